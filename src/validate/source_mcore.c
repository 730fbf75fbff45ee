/* source_mcore.c: what the two Megatron-Core sources share, and the model
 * zoo's own rules: the model presets their names mean (validate_mcore_model,
 * also used by the Llama 3 rows, sources_scale.c), Megatron-LM's model FLOPs,
 * the experts and router balance as the rows state them, the EP overlap rule
 * Megatron-Core applies, and the Megatron MoE model zoo
 * (megatron_moe_modelzoo.csv: step time, printed, or TFLOP/s by Megatron-LM's
 * own FLOP count). The Megatron-Bridge performance summary's per-release
 * rules are in source_bridge.c and its source_bridge_*.c parts; README.md in
 * data/validation, "How each source defines its metrics". Nothing here looks
 * at a prediction. The table entries that use these rules are in sources.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/model.h>

#include "validate/validate_int.h"

/* ------------------------------- Megatron-LM FLOPs, model presets, experts */

/* Megatron-LM's model FLOPs per step (megatron/training/training.py,
 * num_floating_point_operations -> transformer_flops, MHA/GQA branch, as of
 * Megatron-LM core_r0.14 (2025), which the model zoo's "TFLOPS" logs):
 *   B s [12 L h (f_dense g (Ld/L) + (f_e k g + f_sh g) (Lm/L))
 *        + 12 L h^2 (1 + g_kv/a + s/(2h)) (d a / h) + 6 h V]
 * g = 3/2 for SwiGLU, Ld/Lm dense/MoE blocks, f_e the expert width, k the
 * top-k, d a the query projection width, s/(2h) the causal half of the
 * score and value GEMMs, V the padded vocabulary. Checked on the model
 * zoo's own rows that print both step time and TFLOP/s (Qwen3-235B-A22B,
 * 256 H100, GBS 2048 x 4096: 245 TF x 256 x 19.7 s = 147.3 GFLOP per token;
 * this formula gives 148.0, the step time's rounding). */
double validate_megatron_flops(const struct pl_model *m, double batch, double seq) {
  double h = (double)m->hidden, L = (double)m->layers;
  double g = m->mlp == PL_MLP_SWIGLU ? 1.5 : 1.0;
  double moe = pl_model_is_moe(m) ? (double)pl_model_moe_layers(m) : 0.0;
  double dense = L - moe;
  double qr = (double)(m->head_dim * m->heads) / h;
  double mlp = (double)m->ffn_hidden * g * dense / L +
               ((double)m->expert_ffn * (double)m->top_k + (double)m->shared_ffn) * g * moe / L;
  double attn = h * (1.0 + (double)m->kv_heads / (double)m->heads + seq / (2.0 * h)) * qr;
  return batch * seq * (12.0 * L * h * (mlp + attn) + 6.0 * h * (double)m->vocab);
}

/* The model presets (data/models/) the two sources' model names mean, up to
 * a parenthesised variant ("DeepSeekV3 (w/o MTP)"). */
static const struct {
  const char *name;
  const char *preset;
} mcore_models[] = {
    {"DeepSeekV3", "deepseek-v3"},      {"Qwen3_30B_a3B", "qwen3-30b-a3b"},
    {"Qwen3_235B_a22B", "qwen3-235b-a22b"}, {"Qwen3-235B-A22B", "qwen3-235b-a22b"},
    {"GPT OSS 120B", "gpt-oss-120b"},   {"LLAMA3.1_405B", "llama3-405b"},
    {"LLAMA3_70B", "llama3-70b"},       {"LLAMA3_8B", "llama3-8b"},
    {"Nemotron_3_Nano", "nemotron-3-nano"}, {"Kimi_K2", "kimi-k2"},
    {"Nemotron_3_Super", "nemotron-3-super"}, {"Nemotron_3_5_Lightning", "nemotron-3.5-lightning"},
    {"Llama 3 405B", "llama3-405b"}, /* Llama 3 paper, Table 4 (sources_scale.c) */
};

/* Models that cannot be expressed, with the reason. */
static const struct {
  const char *prefix;
  const char *why;
} mcore_unexpressible[] = {
    /* Nemotron_3_Nano and _Super are presets (hybrid Mamba-2 stacks,
     * model/mamba.c; Super's latent MoE and MTP: model/moe_latent.c,
     * hybrid_mtp.c). Ultra's HF config is not public (Megatron-Bridge builds
     * it with AutoBridge from the Hugging Face hub) */
    {"Nemotron_3_Ultra", "Nemotron 3 Ultra: its configuration (HF config.json, which "
                         "Megatron-Bridge's recipe loads through AutoBridge) is not published "
                         "where plateau can read it, so it is not in data/models"},
    {"Qwen3-Next", "Qwen3-Next mixes Gated DeltaNet linear attention with gated attention; linear "
                   "attention is not modelled"},
    /* Megatron-Bridge models/deepseek/deepseek_v4_bridge.py (HEAD 067f987df0):
     * compressed sparse attention (per-layer compress ratios 4 / 128, a CSA
     * indexer, FlashMLA sparse kernels) and hyper-connections around every
     * block and the head */
    {"DeepSeekV4", "DeepSeek-V4: compressed sparse attention and hyper-connections "
                   "(Megatron-Bridge deepseek_v4_bridge.py) are not modelled"},
};

/* A stated dimension column must agree with the preset (0 = not stated). */
static bool mcore_dim(const struct validate_in *in, const char *col, int64_t want,
                      struct pl_vrow *row) {
  int64_t v = 0;
  bool present = false;
  if (validate_int(cell(in, col), &v, &present) != PL_OK || !present || v == want)
    return true;
  return validate_skip(row, "column '%s' = %lld but the preset has %lld", col, (long long)v,
                       (long long)want);
}

bool validate_mcore_preset(const struct validate_in *in, const char *preset, struct pl_model *m,
                           struct pl_vrow *row) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_model_load(preset, m, &d);
  if (st != PL_OK) {
    if (st == PL_ERR_NOMEM)
      *in->fatal = st;
    return validate_skip(row, "model preset: %s", d.msg);
  }
  validate_note(row, "model: preset %s", preset);
  return validate_mcore_dims(in, m, row);
}

bool validate_mcore_dims(const struct validate_in *in, const struct pl_model *m,
                         struct pl_vrow *row) {
  return mcore_dim(in, "layers", m->layers, row) && mcore_dim(in, "hidden", m->hidden, row) &&
         mcore_dim(in, "heads", m->heads, row) && mcore_dim(in, "kv_heads", m->kv_heads, row) &&
         mcore_dim(in, "moe_experts", m->experts, row) &&
         mcore_dim(in, "moe_topk", m->top_k, row) &&
         mcore_dim(in, "moe_ffn_hidden", m->expert_ffn, row);
}

bool validate_mcore_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  const char *name = cell(in, "model");
  size_t n = strcspn(name, "(");
  while (n > 0 && name[n - 1] == ' ')
    n--;
  for (size_t i = 0; i < sizeof mcore_unexpressible / sizeof mcore_unexpressible[0]; i++)
    if (strncmp(name, mcore_unexpressible[i].prefix, strlen(mcore_unexpressible[i].prefix)) == 0)
      return validate_skip(row, "%s", mcore_unexpressible[i].why);
  for (size_t i = 0; i < sizeof mcore_models / sizeof mcore_models[0]; i++) {
    if (strlen(mcore_models[i].name) != n || strncmp(name, mcore_models[i].name, n) != 0)
      continue;
    if (!validate_mcore_preset(in, mcore_models[i].preset, m, row))
      return false;
    if (strstr(name, "w/o MTP") != NULL)
      m->mtp_layers = 0;
    return true;
  }
  return validate_skip(row, "model '%s': no preset", name);
}

/* The expert-parallel degrees a row states (ep; etp in the model zoo). */
bool validate_mcore_experts(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  static const char *const cols[] = {"ep", "etp"};
  int64_t *dst[] = {&l->ep, &l->etp};
  for (int i = 0; i < 2; i++) {
    bool present = false;
    int64_t v = 0;
    if (validate_int(cell(in, cols[i]), &v, &present) != PL_OK)
      return validate_skip(row, "column '%s': '%s' is not a positive integer", cols[i],
                           cell(in, cols[i]));
    if (present)
      *dst[i] = v;
  }
  return true;
}

/* Routing as benchmarked: both sources force-balance the router
 * (--moe-router-force-load-balancing: Megatron-Bridge's notes "benchmarks
 * force-balance tokens across experts", the model zoo's commands and its
 * "(forced balance)" figures), so every expert rank gets the mean, and the
 * router draws random logits each forward (layout.moe_force_balance:
 * moe_utils.py RandomSTE; every Megatron-Bridge MoE performance config sets
 * moe_router_force_load_balancing True, v0.2.2 .. v0.5.0
 * scripts/performance/configs/<model>/<model>_llm_pretrain.py). */
void validate_mcore_balance(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (strstr(cell(in, "notes"), "force-balance") != NULL ||
      strstr(cell(in, "notes"), "force-load-balancing") != NULL ||
      strstr(cell(in, "TFLOPS"), "forced balance") != NULL) {
    l->moe_imbalance = 1.0;
    l->moe_force_balance = true;
    validate_note(row, "imbalance 1 (force-balanced router)");
  }
}

/* Whether w is one of the space-separated words of list. */
bool validate_word_in(const char *list, const char *w) {
  size_t n = strlen(w);
  while (n > 0 && *list != '\0') {
    size_t k = strcspn(list, " ");
    if (k == n && strncmp(list, w, n) == 0)
      return true;
    list += k;
    list += strspn(list, " ");
  }
  return false;
}

/* A run that sets Megatron-Core's overlap_moe_expert_parallel_comm (why: the
 * note's words), unless Megatron-Core refuses it for the row's layout (ep 1,
 * or pp > 1 without vp: transformer_config.py, schedules.py); with it
 * delay_wgrad_compute (layout.delay_wgrad), which every source of such rows
 * sets with the overlap: the model zoo's sbatch_benchmarking.sh (@ e8650517)
 * turns A2A_OVERLAP=1 into --delay-wgrad-compute
 * --overlap-moe-expert-parallel-comm; Megatron-Bridge's performance scripts
 * (v0.2.0 utils/helpers.py set_moe_a2a_overlap_overrides, also at dgxc v25.12's
 * pin 15927667ed; v0.3.0-v0.6.0 utils/overrides.py
 * _set_moe_a2a_overlap_overrides) set comm_overlap.delay_wgrad_compute = True
 * (source_bridge_moe.c names the one recipe that does not). */
void validate_mcore_ep_overlap(struct pl_layout *l, struct pl_vrow *row, const char *why) {
  if (l->ep < 2 || (l->pp > 1 && l->vp < 2)) {
    validate_note(row, "ep all-to-all overlap off (%s; Megatron-Core refuses it for ep 1 or "
                       "pp > 1 without vp)", why);
    return;
  }
  l->ep_comm_overlap = true;
  l->delay_wgrad = true;
  validate_note(row, "ep all-to-all overlap (%s), delayed wgrad", why);
}

/* The model zoo's "+1f1b overlap" readme row (best_practice/qwen3/readme.md,
 * H100 "Cross-node EP strategy", Code moe_dev(f3e6c5)): the row was added in
 * commit 8017e11 (2025-05-27, examples/qwen3/readme.md), whose
 * examples/qwen3/run_235b.sh gives its run as "Inter-node EP + 1F1B overlap
 * solution": TP=2 PP=8 VPP=4 EP=32 ... --combined-1f1b --combined-1f1b-recipe
 * ep_a2a, with no --delay-wgrad-compute (the flag A2A_OVERLAP=1 adds only in
 * the later sbatch_benchmarking.sh; Megatron-LM has delay_wgrad_compute from
 * 8333bd5bb6, 2025-06-16, after the row). The moe_dev code is not public; the
 * nearest public code, e1564cc0da (2025-06-16)
 * models/gpt/fine_grained_schedule.py schedule_layer_1f1b, issues the same
 * merged layer as core_v0.14.0's TransformerLayerSchedulePlan.run (combine_bwd
 * | attn_fwd, mlp_bwd | dispatch_fwd, dispatch_bwd | mlp_fwd, combine_fwd |
 * attn_bwd), which layout.ep_comm_overlap prices: the overlap without the
 * delayed wgrad (mlp_bwd and attn_bwd whole in their windows). */
static void zoo_combined_1f1b(struct pl_layout *l, struct pl_vrow *row) {
  if (l->ep < 2 || (l->pp > 1 && l->vp < 2)) {
    validate_note(row, "ep all-to-all overlap off ('+1f1b overlap'; Megatron-Core refuses it "
                       "for ep 1 or pp > 1 without vp)");
    return;
  }
  l->ep_comm_overlap = true;
  l->delay_wgrad = false;
  validate_note(row, "ep all-to-all overlap ('+1f1b overlap': the row's run, --combined-1f1b "
                     "--combined-1f1b-recipe ep_a2a), no delayed wgrad");
}

/* A GB200/GB300 NVL72 job larger than a rack: the jobs place whole trays of
 * 4 GPUs per NVLink segment (Slurm --segment); the model zoo states the
 * segment per row (SEGMENT=8: 32 GPUs, SEGMENT=16: 64), and where a row does
 * not, the segment is the library's placement (pl_cluster_place: the largest
 * whole-tray segment that divides the job; 16 trays = 64 GPUs for every GPU
 * count here, multiples of 64 and not of 72). Each segment has its GPUs'
 * NICs (one per GPU in both racks). */
void validate_nvl_segment(const struct validate_in *in, const struct pl_layout *l,
                          struct pl_cluster *c, struct pl_vrow *row) {
  if (c->gpus_per_node != 72)
    return;
  int64_t trays = 0;
  const char *seg = strstr(cell(in, "notes"), "SEGMENT=");
  if (seg != NULL)
    trays = strtoll(seg + 8, NULL, 10);
  int64_t gpus = 0;
  if (trays > 0) {
    gpus = 4 * trays;
    c->nics_per_node = c->nics_per_node * gpus / c->gpus_per_node;
    c->gpus_per_node = gpus;
  } else {
    gpus = pl_cluster_place(c, l->gpus);
  }
  if (gpus > 0)
    validate_note(row, "NVLink segment of %lld trays = %lld GPUs (%s)", (long long)(gpus / 4),
                  (long long)gpus,
                  seg != NULL ? "SEGMENT in the command"
                              : "not stated: the largest whole-tray segment dividing the job");
}

/* Megatron-Core MoE model zoo (yanring/Megatron-MoE-ModelZoo
 * best_practice/qwen3/readme.md @ e8650517, 020b8136). Its benchmarking
 * config (model_configs/benchmarking/Qwen3-235B-A22B.yaml @ 30631ea5) sets
 * --use-distributed-optimizer, --overlap-grad-reduce, --overlap-param-gather,
 * --sequence-parallel, --make-vocab-size-divisible-by 1187, and
 * --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split. */
/* The words of option opt in the zoo readme's command under a table (the
 * row's notes: "`... opt W1 W2 ... --next ...`"), up to the next option or
 * the command's end, joined with commas into list. Returns whether the
 * notes hold the option. */
static bool zoo_cmd_words(const char *notes, const char *opt, char *list, size_t size) {
  const char *p = strstr(notes, opt);
  list[0] = '\0';
  if (p == NULL)
    return false;
  size_t used = 0;
  for (p += strlen(opt); *p != '\0' && *p != '`' && strncmp(p, "--", 2) != 0;) {
    size_t n = strcspn(p, " `");
    if (n > 0 && used + n + 2 < size)
      used += (size_t)snprintf(list + used, size - used, "%s%.*s", used > 0 ? "," : "", (int)n,
                               p);
    p += n;
    p += strspn(p, " ");
  }
  return true;
}

/* Module lists the zoo readme's command under a table (the row's notes) may
 * give, each read only behind the option that switches it on, up to the next
 * option:
 * - Megatron-Core --fine-grained-activation-offloading --offload-modules M1 M2
 *   ... (layout.offload_modules);
 * - --cuda-graph-impl transformer_engine --cuda-graph-scope S1 S2 ...
 *   (layout.cuda_graph_scopes; the GB200 BF16 and GB300 MXFP8 commands of
 *   best_practice/qwen3/readme.md @ e8650517 and 020b8136: attn moe_router
 *   moe_preprocess): the captured ops replay from TE's CUDA graphs and cost
 *   the host nothing (docs/step-model.md 2.6). Without --cuda-graph-impl
 *   Megatron-Core captures nothing (cuda_graph_impl defaults to "none",
 *   transformer_config.py), so a scope alone is not read. */
static const struct {
  const char *gate, *opt, *what, *note; /* note: the row's note before the list */
  size_t off;
  enum pl_status (*parse)(const char *s, uint32_t *out, struct pl_diag *diag);
} zoo_lists[] = {
    {"--fine-grained-activation-offloading", "--offload-modules ",
     "fine-grained activation offloading", "fine-grained activation offloading of",
     offsetof(struct pl_layout, offload_modules),
     pl_offload_modules_parse},
    {"--cuda-graph-impl transformer_engine", "--cuda-graph-scope ", "CUDA graph scope",
     "CUDA graph scope", offsetof(struct pl_layout, cuda_graph_scopes), pl_cuda_graph_scopes_parse},
};

static bool zoo_cmd_lists(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *notes = cell(in, "notes");
  for (size_t i = 0; i < sizeof zoo_lists / sizeof zoo_lists[0]; i++) {
    char list[128];
    if (strstr(notes, zoo_lists[i].gate) == NULL ||
        !zoo_cmd_words(notes, zoo_lists[i].opt, list, sizeof list))
      continue;
    struct pl_diag d;
    if (zoo_lists[i].parse(list, (uint32_t *)((char *)l + zoo_lists[i].off), &d) != PL_OK)
      return validate_skip(row, "%s: %s", zoo_lists[i].what, d.msg);
    validate_note(row, "%s %s (the command)", zoo_lists[i].note, list);
  }
  return true;
}

bool validate_zoo_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *shard = cell(in, "sharding"), *rc = cell(in, "recompute");
  if (!zoo_cmd_lists(in, l, row))
    return false;
  if (strstr(shard, "Megatron FSDP") != NULL) {
    l->shard = PL_SHARD_ZERO3;
    l->shard_grads_reduce_dtype = true; /* Megatron FSDP's main_grad_buffer (layout.h) */
    l->fsdp_block_units = true;         /* fsdp_unit_modules [TransformerLayer] (layout.h) */
    validate_note(row, "Megatron FSDP (optim_grads_params: parameters, gradients and optimizer "
                       "states sharded) as zero3, gradient shards in the reduce dtype, blocks as "
                       "its units");
  } else if (shard[0] != '\0') {
    return validate_skip(row, "sharding '%s' not understood", shard);
  } else {
    l->shard = PL_SHARD_ZERO1;
    validate_note(row, "distributed optimizer (config)");
  }
  /* model_configs/benchmarking/Qwen3-235B-A22B.yaml (from 274316a of
   * 2025-08-20 to e8650517) and Qwen3-Next-80B-A3B.yaml (e8650517):
   * --cross-entropy-loss-fusion true, --cross-entropy-fusion-impl te */
  l->te_cross_entropy = true;
  validate_note(row, "TE fused cross-entropy (config)");
  /* The recompute column names Megatron-Core --recompute-modules (selective
   * granularity; layout.recompute_modules): "norm, act" (the readme's
   * shorthand for layernorm and moe_act), "selective (layernorm moe)",
   * "selective (moe_act layernorm)"; "full" is --recompute-granularity full. */
  static const struct {
    const char *word;
    uint32_t mod;
  } words[] = {{"norm", PL_RCM_LAYERNORM},       {"layernorm", PL_RCM_LAYERNORM},
               {"act", PL_RCM_MOE_ACT},          {"moe_act", PL_RCM_MOE_ACT},
               {"moe", PL_RCM_MOE},              {"shared_expert", PL_RCM_SHARED_EXPERTS},
               {"shared_experts", PL_RCM_SHARED_EXPERTS}};
  l->recompute = PL_RECOMPUTE_NONE;
  if (strstr(rc, "full") != NULL) {
    l->recompute = PL_RECOMPUTE_FULL;
    return true;
  }
  if (rc[0] == '\0' || strstr(rc, "none specified") != NULL)
    return true;
  uint32_t mods = 0;
  for (const char *p = rc; *p != '\0';) {
    size_t n = strcspn(p, " ,()");
    if (n == 0) {
      p++;
      continue;
    }
    bool known = n == 9 && strncmp(p, "selective", 9) == 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0] && !known; i++)
      if (strlen(words[i].word) == n && strncmp(p, words[i].word, n) == 0) {
        mods |= words[i].mod;
        known = true;
      }
    if (!known)
      return validate_skip(row, "recompute '%s' not understood", rc);
    p += n;
  }
  if (mods != 0) {
    l->recompute = PL_RECOMPUTE_SELECTIVE;
    l->recompute_modules = mods;
    char list[128];
    pl_recompute_modules_format(mods, list, sizeof list);
    validate_note(row, "recompute modules %s ('%s')", list, rc);
  }
  return true;
}

/* The readme's "### H100" table prints no command; its rows' runs are the
 * launch scripts published with them, and each of those commands carries
 * --moe-router-force-load-balancing (uncommented), so the router is forced to
 * balance (layout.moe_force_balance, as validate_mcore_balance):
 * - the five Qwen3-235B-A22B rows (Code moe_dev(f3e6c5), main(1e057005)) came
 *   in commit 8017e11 (2025-05-27, examples/qwen3/readme.md) beside
 *   examples/qwen3/run_235b.sh (31c5686, unchanged at 8017e11), whose five
 *   commands ("Inter-node EP solution", "Inter-node EP + 1F1B overlap
 *   solution", "Intra-node EP + large TP", "+ FSDP", "+ large PP") all end in
 *   it, under "# Note: Add --moe-router-force-load-balancing for stable
 *   benchmarking";
 * - the Qwen3-Next-80B-A3B row (Code dev(bbc762d5)) came in b0b92ff
 *   (2025-11-04) with best_practice/Qwen3/run_next_80b.sh, whose one command
 *   carries it.
 * Megatron-LM main 1e057005 (the rows' Code): arguments.py
 * --moe-router-force-load-balancing -> TransformerConfig
 * moe_router_force_load_balancing -> router.py TopKRouter.forward
 * apply_random_logits. */
static const struct {
  const char *code, *script;
} zoo_h100_runs[] = {
    {"Megatron-LM code: moe_dev(f3e6c5)", "examples/qwen3/run_235b.sh @ 8017e11"},
    {"Megatron-LM code: main(1e057005)", "examples/qwen3/run_235b.sh @ 8017e11"},
    {"Megatron-LM code: dev(bbc762d5)", "best_practice/Qwen3/run_next_80b.sh @ b0b92ff"},
};

static void zoo_h100_balance(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  if (l->moe_force_balance || strstr(cell(in, "table_or_section"), "'### H100' table") == NULL)
    return;
  for (size_t i = 0; i < sizeof zoo_h100_runs / sizeof zoo_h100_runs[0]; i++)
    if (strstr(cell(in, "notes"), zoo_h100_runs[i].code) != NULL) {
      l->moe_imbalance = 1.0;
      l->moe_force_balance = true;
      validate_note(row,
                    "imbalance 1 (force-balanced router: --moe-router-force-load-balancing "
                    "in the row's command, %s)",
                    zoo_h100_runs[i].script);
      return;
    }
}

bool validate_zoo_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!validate_mcore_experts(in, l, row))
    return false;
  const char *d = cell(in, "moe_dispatcher");
  if (strcmp(d, "A2A") == 0) {
    l->dispatch = PL_MOE_ALLTOALL;
  } else if (strcmp(d, "DeepEP") == 0) {
    l->dispatch = PL_MOE_DEEPEP;
  } else if (strcmp(d, "HybridEP") == 0) {
    /* the flex dispatcher's HybridEP backend, which pads each expert's rows to the
     * quantized GEMM's alignment in its dispatch (Megatron-Core _HybridEPManager.dispatch
     * pad_multiple, in every Megatron-LM commit that has the backend, from d9153a50ce
     * 2025-10-21 "Add the Hybrid-EP backend to the Flex Dispatcher"): no Transformer Engine
     * Fp8Padding after it (model/flops.c expert_pad); priced as deepep otherwise */
    l->dispatch = PL_MOE_HYBRIDEP;
    validate_note(row, "HybridEP dispatcher");
    /* sbatch_benchmarking.sh (@ e8650517d6 and 020b8136b3, lines 80-81) passes
     * --moe-hybridep-num-sms 32 with DISPATCHER=hybridep, over Megatron-Core's
     * default 16 (the megatron-core preset's); the row's value beats the preset's
     * (model/framework.c pl_framework_apply) */
    if (strstr(cell(in, "notes"), "sbatch_benchmarking.sh") != NULL) {
      l->hybridep_sms = 32;
      validate_note(row, "32 HybridEP SMs (sbatch_benchmarking.sh)");
    }
  } else {
    return validate_skip(row, "dispatcher '%s' not understood", d);
  }
  validate_mcore_balance(in, l, row);
  zoo_h100_balance(in, l, row);
  l->account_embed_loss = true; /* the config's --account-for-embedding/loss-in-pipeline-split */
  /* A2A_OVERLAP=1 in the command under the table (the row's notes):
   * sbatch_benchmarking.sh (@ e8650517) turns A2A_OVERLAP=1 into
   * --delay-wgrad-compute --overlap-moe-expert-parallel-comm (with
   * CUDA_DEVICE_MAX_CONNECTIONS=32). "+1f1b overlap" in the readme row's Notes:
   * that row's own run, without the delayed wgrad (zoo_combined_1f1b). */
  const char *notes = cell(in, "notes");
  if (strstr(notes, "A2A_OVERLAP=1") != NULL)
    validate_mcore_ep_overlap(l, row, "A2A_OVERLAP=1 in the command");
  else if (strstr(notes, "+1f1b overlap") != NULL)
    zoo_combined_1f1b(l, row);
  return true;
}

bool validate_zoo_measure(const struct validate_in *in, const struct pl_run *run,
                          struct pl_vrow *row) {
  if (stated(in, "Step time (sec)"))
    return validate_measure_time(in, "Step time (sec)", 1.0, row);
  /* "295 (forced balance) / 237 (dropless)": the forced-balance run, the
   * routing the command sets */
  const char *col = "TFLOPS", *v = cell(in, col);
  char *end = NULL;
  double tf = strtod(v, &end);
  if (end == v || !(tf > 0))
    return validate_skip(row, "column '%s': '%s' is not a positive number", col, v);
  return validate_measure_megatron_rate(run, col, tf, row);
}

bool validate_measure_megatron_rate(const struct pl_run *run, const char *col, double tf,
                                    struct pl_vrow *row) {
  row->published = tf;
  const struct pl_layout *l = &run->layout;
  double f = validate_megatron_flops(&run->model, (double)l->gbs, (double)run->model.seq_len);
  row->measured = f / (tf * 1e12 * (double)l->gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric,
           "%s -> step = Megatron-LM model FLOPs (num_floating_point_operations) / (rate x GPUs)",
           col);
  return true;
}

bool validate_recompute_modules(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row, const char *origin) {
  const char *mods = cell(in, "recompute_modules");
  if (!*mods)
    return true;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_recompute_modules_parse(mods, &l->recompute_modules, &d) != PL_OK)
    return validate_skip(row, "column 'recompute_modules': %s", d.msg);
  l->recompute = PL_RECOMPUTE_SELECTIVE;
  validate_note(row, "selective recompute of %s (%s)", mods, origin);
  return true;
}

/* The zoo's runs are Megatron-LM with its benchmarking config's overlap flags
 * (--overlap-grad-reduce, --overlap-param-gather, --sequence-parallel); no
 * --tp-comm-overlap. */
bool validate_zoo_overrides(const struct validate_in *in, struct pl_framework *fw,
                            struct pl_vrow *row) {
  (void)in;
  (void)row;
  fw->overlap_grad_reduce = PL_SETTING_ON;
  fw->overlap_param_gather = PL_SETTING_ON;
  fw->sequence_parallel = PL_SETTING_ON;
  return true;
}
