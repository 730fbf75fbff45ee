/* source_bridge.c: how the Megatron-Bridge performance summary is read
 * (data/validation/megatron_bridge_performance_summary.csv, tokens/s/GPU,
 * printed; README.md there, "How each source defines its metrics").
 *
 * Each container section of the summary was run with one Megatron-Bridge
 * release, whose recipes and performance scripts set what the row does not
 * state (dispatcher, overlaps, recompute, CUDA-graph scope, FP8 recipe,
 * fusions, cuDNN); each rule names the release files it was read in. What the
 * Bridge shares with the model zoo (model presets, experts, balance, the EP
 * overlap rule) is in source_mcore.c. Nothing here looks at a prediction. The
 * table entry that uses these rules is in sources.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/validate_int.h"

static const char *cell(const struct validate_in *in, const char *col) {
  return validate_csv_cell(in->csv, in->rec, col);
}

/* Megatron-Bridge 25.09-26.08 performance summary (docs/performance-summary.md
 * and -archive.md @ 067f987df0): tokens/s/GPU per row. */
bool validate_bridge_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *shard = cell(in, "sharding");
  const char *fsdp = "Megatron FSDP (";
  int64_t group = strncmp(shard, fsdp, strlen(fsdp)) == 0 ? strtoll(shard + strlen(fsdp), NULL, 10)
                                                          : 0;
  if (group > 0) {
    l->shard = PL_SHARD_ZERO3;
    l->shard_group = group;
    l->shard_grads_reduce_dtype = true; /* Megatron FSDP's main_grad_buffer (layout.h) */
    l->fsdp_block_units = true;         /* fsdp_unit_modules [TransformerLayer] (layout.h) */
    validate_note(row, "Megatron FSDP with sharding group %lld (the page's FSDP column) as zero3, "
                       "gradient shards in the reduce dtype, blocks as its units",
                  (long long)group);
  } else {
    /* "DDP (distributed optimizer not stated)" or empty */
    l->shard = PL_SHARD_ZERO1;
    validate_note(row, "distributed optimizer (not stated; the recipes' "
                       "use_distributed_optimizer=True)");
  }
  if (cell(in, "recompute")[0] != '\0')
    return validate_skip(row, "recompute '%s' not understood", cell(in, "recompute"));
  l->recompute = PL_RECOMPUTE_NONE;
  validate_note(row, "no recompute (not stated)");
  /* Every release's performance scripts set cross_entropy_fusion_impl "te"
   * (r0.1.0 scripts/performance/configs/<model>/<model>_llm_pretrain.yaml for 25.09;
   * v0.2.0-v0.2.2 utils/helpers.py, v0.3.0-v0.6.0 and HEAD 067f987df0
   * utils/overrides.py _set_common_perf_overrides) on top of the providers'
   * cross_entropy_loss_fusion=True (gpt_provider.py) */
  l->te_cross_entropy = true;
  validate_note(row, "TE fused cross-entropy (the performance scripts' cross_entropy_fusion_impl te)");
  return true;
}

/* DeepSeek-V3 as Megatron-Bridge trains it (067f987df0): one MTP module
 * (recipes/deepseek/h100/deepseek_v3.py deepseek_v3_pretrain_1024gpu_h100_bf16_config,
 * mtp_num_layers = 1; none in the rows named "w/o MTP") and a pipeline layout
 * string per (pp, vp) (the same file's _get_deepseek_v3_pipeline_layout map,
 * last stage ["mtp"] * mtp_num_layers + ["loss"]; the perf recipes
 * perf_recipes/deepseek/gb300/deepseek_v3.py (pp 2, vp 8) and h100/deepseek_v3.py
 * (pp 8, vp 4) pass their strings explicitly). Other (pp, vp) have no layout
 * there, and 61 blocks split over them no other way. */
static bool bridge_deepseek(const struct validate_in *in, struct pl_layout *l,
                            struct pl_vrow *row) {
  static const struct {
    int64_t pp, vp;
    const char *head, *tail; /* the string is head + ("m" x mtp) + tail */
  } maps[] = {
      {4, 1, "Et*16|t*16|t*16|t*13", "L"}, {8, 1, "Et*8|(t*8|)*6t*5", "L"},
      {4, 2, "Et*8|(t*8|)*6t*5", "L"},     {16, 1, "Et*4|(t*4|)*14t", "L"},
      {8, 2, "Et*4|(t*4|)*14t", "L"},      {4, 4, "Et*4|(t*4|)*14t", "L"},
      {2, 8, "Et*4|(t*4|)*14t", "L"},      {8, 4, "Et|(tt|)*30", "L"},
  };
  bool mtp = strstr(cell(in, "model"), "w/o MTP") == NULL;
  int64_t vp = l->vp > 0 ? l->vp : 1, pp = l->pp > 0 ? l->pp : 1;
  l->mtp_layers = mtp ? 1 : 0;
  /* Every release's DeepSeek-V3 recipe runs Megatron-Core's precision-aware
   * optimizer with bf16 moments (use_precision_aware_optimizer True,
   * main_params_dtype fp32, exp_avg_dtype / exp_avg_sq_dtype bf16):
   * recipes/deepseek/deepseek_v3.py (v0.1.0rc4, whose 25.09 performance yaml
   * configs/deepseek/deepseek_v3_llm_pretrain.yaml sets no optimizer key;
   * v0.2.0-v0.2.2 deepseek_v3 pretrain_config,
   * v0.3.0-v0.5.0 deepseek_v3_pretrain_config; HEAD 067f987df0
   * recipes/deepseek/h100/deepseek_v3.py deepseek_v3_pretrain_1024gpu_h100_bf16_config,
   * re-exported as deepseek_v3_pretrain_config and the base of the
   * perf_recipes). The performance scripts keep it (they clear it only
   * for Megatron FSDP: utils/helpers.py, utils/overrides.py) */
  if (l->shard != PL_SHARD_DDP) {
    l->adam_moments_bf16 = true;
    validate_note(row, "Adam moments in bf16 (the recipe's precision-aware optimizer)");
  }
  if (pp == 1)
    return true;
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
    if (maps[i].pp != pp || maps[i].vp != vp)
      continue;
    snprintf(l->pipeline_layout, sizeof l->pipeline_layout, "%s%s%s", maps[i].head,
             mtp ? "m" : "", maps[i].tail);
    validate_note(row, "pipeline layout %s, %s (Megatron-Bridge DeepSeek-V3 recipe)",
                  l->pipeline_layout, mtp ? "one MTP module" : "no MTP");
    return true;
  }
  return validate_skip(row, "no Megatron-Bridge DeepSeek-V3 pipeline layout for pp %lld vp %lld "
                            "(61 blocks do not split evenly)",
                       (long long)pp, (long long)vp);
}

/* Footnotes of the Megatron-Bridge tables that say a published figure is not
 * the configuration's performance. docs/performance-summary-archive.md
 * (HEAD 067f987df0), 26.06.01 NeMo Container, GPT OSS 120B: "[^gpt-oss-note]:
 * Performance regression in GPT-OSS 120B pre-training is a known issue
 * (NVIDIA/cudnn-frontend issue 256). It will be resolved with the next
 * container release." (that issue: the MoE grouped GEMM dGLU kernel
 * grouped_gemm_dglu_wrapper_sm100 10x slower from cudnn-frontend 1.24.0).
 * A row whose figures carry such a marker is skipped with the note. */
static bool bridge_flagged(const struct validate_in *in, struct pl_vrow *row) {
  static const struct {
    const char *marker, *why;
  } notes[] = {
      {"[^gpt-oss-note]", "the table flags this figure as a known performance regression "
                          "([^gpt-oss-note]: cudnn-frontend issue 256, grouped GEMM dGLU kernel "
                          "10x slower; fixed in the next container)"},
  };
  const char *cols[] = {"Tokens / sec / GPU", "Model TFLOP / sec / GPU"};
  for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
      if (strstr(cell(in, cols[c]), notes[i].marker) != NULL)
        return validate_skip(row, "%s", notes[i].why);
  return true;
}

/* Expert-parallel all-to-all overlap (layout.ep_comm_overlap) for the rows
 * whose Megatron-Bridge configuration set overlap_moe_expert_parallel_comm.
 * The rows do not state it; each container section is matched to the
 * Megatron-Bridge release of its month (tags v0.4.0 2026-04-16, v0.5.0
 * 2026-06-16, v0.6.0 2026-08-19; the 25.x sections are not read: v0.2.2's
 * configs/qwen3/workload_base_configs.py and deepseek's set moe_a2a_overlap=True
 * in some configs whose layouts the 25.x rows do not state as run), and that release's
 * performance configuration for the row's model, GPU and precision is read:
 *  - 26.08: src/megatron/bridge/perf_recipes (HEAD 067f987df0, v0.6.x):
 *    deepseek/common.py _enable_deepseek_full_iteration_mxfp8 (DeepSeek-V3
 *    fp8mx on GB300, GB200, B300) and b200/deepseek_v3.py fp8mx and nvfp4;
 *    qwen/common.py _enable_hybridep_full_iteration_mxfp8 (Qwen3-235B and
 *    Qwen3-30B fp8mx on GB300, GB200, B300; 235B on B200) and
 *    qwen/b200/qwen3_moe.py qwen3_30b_a3b_pretrain_8gpu_b200_fp8mx_config;
 *    gpt_oss/common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs (GPT-OSS
 *    120B fp8mx on GB300, GB200); qwen/h100/qwen3_moe.py (235B bf16 and fp8cs,
 *    30B bf16);
 *  - 26.06, 26.06.01: v0.5.0 scripts/performance/configs/<model>/<model>_workload_base_configs.py,
 *    moe_a2a_overlap=True in DEEPSEEK_V3_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V1,
 *    _B200_FP8_MX_V2, _B200_NVFP4_V2, GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2
 *    and _GB200_BF16_V2 (GBS 1280);
 *    and qwen/qwen3_workload_base_configs.py QWEN3_30B_A3B_PRETRAIN_CONFIG_{GB300,GB200,B300}_FP8_MX_V1
 *    (moe_a2a_overlap=True, full_iteration graphs, cutedsl_fused_grouped_mlp; applied by
 *    scripts/performance/utils/overrides.py _set_moe_a2a_overlap_overrides:
 *    comm_overlap.overlap_moe_expert_parallel_comm = True; the same as 26.08's perf_recipes);
 *  - 26.04, 26.04.01: v0.4.0, GPT_OSS_120B_PRETRAIN_CONFIG_GB200_BF16_V2 only;
 *  - 26.02: v0.3.0 qwen/qwen3_workload_base_configs.py sets moe_a2a_overlap=True in
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1 and in the Qwen3-235B V1 configs
 *    of B300/H100, which the gbs 8192 _V2 configs replace() and keep, applied by
 *    utils/overrides.py _set_moe_a2a_overlap_overrides as above (with delay_wgrad_compute);
 *  - Qwen3-235B (ep10's audit, listed in the table): H100 V1/V2 in v0.3.0-v0.5.0, B300 in
 *    v0.3.0, GB300/GB200 FP8_MX_V2 in v0.5.0, and v0.2.2 (25.11) B200/H100 and Qwen3-30B H100.
 * A row whose layout Megatron-Core refuses the overlap for (ep 1, or pp > 1
 * without a virtual pipeline: transformer_config.py __post_init__) keeps it off. */
static void bridge_ep_overlap(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  static const struct {
    const char *section, *model, *gpus; /* gpus: the names after "DGX-", space-separated */
    int dtype;                          /* enum pl_dtype, or -1 for any */
    int64_t gbs;                        /* 0: any */
  } on[] = {
      {"26.08", "DeepSeekV3", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8, 0},
      {"26.08", "DeepSeekV3", "B200", PL_DTYPE_NVFP4, 0},
      {"26.08", "Qwen3_235B", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8, 0},
      {"26.08", "Qwen3_30B", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8, 0},
      {"26.08", "GPT OSS 120B", "GB300 GB200", PL_DTYPE_MXFP8, 0},
      {"26.08", "Qwen3_235B", "H100", -1, 0},
      {"26.08", "Qwen3_30B", "H100", PL_DTYPE_BF16, 0},
      {"26.06", "DeepSeekV3", "GB300 GB200 B200", PL_DTYPE_MXFP8, 0},
      {"26.06", "Qwen3_30B", "GB300 GB200 B300", PL_DTYPE_MXFP8, 0},
      {"26.06", "DeepSeekV3", "B200", PL_DTYPE_NVFP4, 0},
      {"26.06", "GPT OSS 120B", "GB300 GB200", PL_DTYPE_MXFP8, 0},
      {"26.06", "GPT OSS 120B", "GB200", PL_DTYPE_BF16, 1280},
      {"26.04", "GPT OSS 120B", "GB200", PL_DTYPE_BF16, 1280},
      /* 26.02 only (the full section name: 26.02.01 is v0.3.1, whose H100 configs set
       * moe_a2a_overlap=False): v0.3.0 QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1
       * (pp 2 vp 12 ep 8 gbs 1024, the row's layout), moe_a2a_overlap=True, deepep */
      {"26.02 NeMo Container", "Qwen3_30B", "H100", -1, 0},
      /* 26.04.01: v0.4.2 DEEPSEEK_V3_PRETRAIN_CONFIG_B200_FP8_MX_V2 (pp 8 vp 2 ep 32,
       * moe_a2a_overlap=True, moe_flex_dispatcher_backend "deepep") */
      {"26.04.01", "DeepSeekV3", "B200", PL_DTYPE_MXFP8, 0},
      /* Qwen3-235B-A22B (ep10, session 10: grep of moe_a2a_overlap=True in every release's
       * scripts/performance/configs/qwen and qwen3 workload base configs):
       * v0.5.0 (26.06, 26.06.01) QWEN3_235B_A22B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2;
       * QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1 in v0.3.0, v0.3.1, v0.4.0,
       * v0.4.2 and v0.5.0 (26.02 to 26.06.01; the _V2 configs replace() them and keep it);
       * v0.3.0 (26.02 only) QWEN3_235B_A22B_PRETRAIN_CONFIG_B300_{BF16,FP8_CS}_V1 (FP8_MX =
       * FP8_CS; v0.3.1 sets False); v0.2.2 (25.11) configs/qwen3/workload_base_configs.py
       * QWEN3_235B_A22B_{B200,H100}_{BF16,FP8_CS}_BASE_CONFIG (B200 FP8_MX = FP8_CS) and
       * QWEN3_30B_A3B_H100_{BF16,FP8_CS}_BASE_CONFIG */
      {"26.06", "Qwen3_235B", "GB300 GB200", PL_DTYPE_MXFP8, 0},
      {"26.06", "Qwen3_235B", "H100", -1, 0},
      {"26.04", "Qwen3_235B", "H100", -1, 0},
      {"26.02", "Qwen3_235B", "H100", -1, 0},
      {"26.02 NeMo Container", "Qwen3_235B", "B300", -1, 0},
      {"25.11", "Qwen3_235B", "B200 H100", -1, 0},
      {"25.11", "Qwen3_30B", "H100", -1, 0},
  };
  const char *sec = cell(in, "table_or_section"), *name = cell(in, "model");
  const char *gpu = cell(in, "gpu");
  if (strncmp(gpu, "DGX-", 4) == 0)
    gpu += 4;
  bool set = false;
  for (size_t i = 0; i < sizeof on / sizeof on[0] && !set; i++) {
    size_t n = strlen(on[i].section);
    if (strncmp(sec, on[i].section, n) != 0 || (sec[n] != ' ' && sec[n] != '.'))
      continue;
    if (strncmp(name, on[i].model, strlen(on[i].model)) != 0)
      continue;
    if (on[i].dtype >= 0 && (int)l->dtype != on[i].dtype)
      continue;
    if (on[i].gbs > 0 && l->gbs != on[i].gbs)
      continue;
    set = validate_word_in(on[i].gpus, gpu);
  }
  if (set)
    validate_mcore_ep_overlap(l, row, "the release's overlap_moe_expert_parallel_comm");
}

/* A Bridge row's container, the first word of its table_or_section
 * ("26.04.01 NeMo Container / ..." -> "26.04.01"): the release whose
 * performance scripts it ran. */
static void bridge_section(const struct validate_in *in, char *sec, size_t n) {
  snprintf(sec, n, "%s", cell(in, "table_or_section"));
  sec[strcspn(sec, " ")] = '\0';
}

/* Whether a Bridge row is one of a release configuration's: its container
 * section among `sections` and its GPU ("DGX-" dropped) among `gpus`
 * (space-separated words), its model name starting with `model`, its dtype
 * `dtype` (an enum pl_dtype, or -1 for any). */
static bool bridge_names_are(const struct validate_in *in, const char *sections,
                             const char *model, const char *gpus) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *gpu = cell(in, "gpu");
  if (strncmp(gpu, "DGX-", 4) == 0)
    gpu += 4;
  return validate_word_in(sections, sec) && strncmp(cell(in, "model"), model, strlen(model)) == 0 &&
         validate_word_in(gpus, gpu);
}

static bool bridge_config_is(const struct validate_in *in, const struct pl_layout *l,
                             const char *sections, const char *model, const char *gpus,
                             int dtype) {
  return bridge_names_are(in, sections, model, gpus) && (dtype < 0 || (int)l->dtype == dtype);
}

/* Megatron-Bridge rows take the nemo preset (TE userbuffers tp overlap on);
 * these release configurations run without it (the section's release as for
 * bridge_recompute; r0.1.0 for 25.09). Only rows with tp > 1 move.
 *  - Qwen3-235B H100, 25.11 to 26.08: v0.2.2 scripts/performance/configs/qwen3/
 *    qwen3_llm_pretrain.py qwen3_235b_a22b_h100_config, v0.3.0-v0.5.0 configs/qwen/
 *    qwen3_llm_pretrain.py qwen3_235b_a22b_pretrain_config_h100
 *    (CommOverlapConfig(tp_comm_overlap=False)), HEAD 067f987df0 perf_recipes/qwen/h100/
 *    qwen3_moe.py qwen3_235b_a22b_pretrain_256gpu_h100_{bf16,fp8cs}_config. Not 25.09:
 *    r0.1.0 scripts/performance/run_script.py passes CommOverlapConfig(tp_comm_overlap=True)
 *    for qwen3 235b_a22b on every GPU.
 *  - Llama 3 70B and 3.1 405B NVFP4, 25.11 to 26.06.01: v0.2.2-v0.5.0
 *    configs/llama{3,31,}/llama3{,1}_llm_pretrain.py llama3_70b_pretrain_config_<gpu> and
 *    llama31_405b_pretrain_config_<gpu> (gb300, gb200, b300, b200):
 *    tp_comm_overlap = False if precision == "nvfp4".
 *  - Nemotron 3 Super and Ultra, 26.04 to 26.08: v0.4.0-v0.5.0 configs/nemotronh/
 *    nemotron_3_llm_pretrain.py nemotron_3_super_pretrain_config_<gpu> and HEAD
 *    perf_recipes/nemotronh/gb200/nemotronh.py nemotron_3_{super,ultra}_*_config leave the
 *    recipe's comm_overlap=None (recipes/common.py _pretrain_common; nemotron_3_super.py
 *    sets none), so Megatron-Core's tp_comm_overlap default False holds
 *    (training/config.py: CommOverlapConfig.setup runs only when comm_overlap is set).
 *  - DeepSeek-V3, 25.09: r0.1.0 run_script.py passes no comm_overlap_config and
 *    recipes/deepseek/deepseek_v3.py pretrain_config defaults CommOverlapConfig(
 *    tp_comm_overlap=False). */
/* The LM head in MXFP8 (behaviour head_16bit off) for the Megatron-Bridge configs
 * that set fp8_output_proj: Megatron-Core then builds the output layer as TE's
 * TELMHeadColumnParallelLinear under the MXFP8 recipe (gpt_model.py, fp8_utils.py
 * is_mxfp8_output_proj_active, core_v0.18.0, the v0.5.0 pin), also the head MTP
 * shares; nemo's head_16bit (a plain ColumnParallelLinear in 16-bit) otherwise.
 *  - 26.06, 26.06.01 (v0.5.0 scripts/performance/configs): deepseek_llm_pretrain.py
 *    deepseek_v3_pretrain_config_{gb300,gb200} and gpt_oss_llm_pretrain.py's GB300 and
 *    GB200 configs: `if cfg.mixed_precision.fp8_recipe == "mxfp8": fp8_output_proj = True`
 *    (the B300/B200 functions do not);
 *  - 26.08 (HEAD 067f987df0 perf_recipes): deepseek/{gb300,gb200,b300}/deepseek_v3.py fp8mx
 *    (_enable_deepseek_full_iteration_mxfp8(cfg, ..., fp8_output_proj=True)), gpt_oss/
 *    common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs (GB300, GB200 fp8mx). */
static void bridge_output_proj(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
  } cfg[] = {
      {"26.06 26.06.01", "DeepSeekV3", "GB300 GB200"},
      {"26.08", "DeepSeekV3", "GB300 GB200 B300"},
      {"26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 GB200"},
  };
  const char *prec = cell(in, "precision");
  if (strcmp(prec, "MXFP8") != 0 && strcmp(prec, "FP8-MX") != 0)
    return;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_names_are(in, cfg[i].sections, cfg[i].model, cfg[i].gpus))
      continue;
    fw->head_16bit = PL_SETTING_OFF;
    validate_note(row, "LM head in MXFP8 (the release's fp8_output_proj, not stated in the row)");
    return;
  }
}

/* The cuDNN of a Bridge row's container, read in the release of its month as
 * bridge_ep_overlap: the 25.11 section is v0.2.0-v0.2.2, whose image is
 * NGC PyTorch 25.09 (docker/Dockerfile.ci FROM nvcr.io/nvidia/pytorch:25.09-py3;
 * docker/common/install.sh installs its Python packages with
 * --no-install-package nvidia-cudnn-cu12, keeping the container's cuDNN), and
 * that container ships cuDNN 9.13 (NVIDIA/cudnn-frontend
 * benchmark/sdpa_benchmark_training/README.md @ bb37575: torch.backends.cudnn.
 * version() = 91300 in nvcr.io/nvidia/pytorch:25.09-py3). Its fused attention
 * runs at the rates NVIDIA published for cuDNN 9.13.1 (layout.cudnn_version 9.13; GPU
 * files with attention.cudnn.shape_9_13: B200, GB200, GB300). v0.3.0 (26.02)
 * moves to PyTorch 25.11 and later releases to newer images: today's rates.
 * The 25.09 section (r0.1.0, an ubuntu:24.04 image with the CUDA repository's
 * cuDNN of its build date) is not read: its rows state no precision. */
static void bridge_cudnn(const struct validate_in *in, struct pl_framework *fw,
                         struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  if (!validate_word_in("25.11", sec))
    return;
  fw->cudnn_version = PL_CUDNN_913;
  fw->cudnn_version_set = true;
  validate_note(row, "cuDNN 9.13 attention (the release's image, NGC PyTorch 25.09)");
}

bool validate_bridge_overrides(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row) {
  bridge_output_proj(in, fw, row);
  bridge_cudnn(in, fw, row);
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words */
    const char *precision;               /* the row's precision cell, or NULL for any */
    const char *why;
  } off[] = {
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "Qwen3_235B", "H100", NULL,
       "the release's Qwen3-235B H100 config"},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "LLAMA3", "GB300 GB200 B300 B200",
       "NVFP4", "the release's Llama 3 nvfp4 config"},
      {"26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Super", "GB300 GB200 B300 B200", NULL,
       "the release's Nemotron 3 Super config sets no comm_overlap"},
      {"26.08", "Nemotron_3_Ultra", "GB200", NULL,
       "the release's Nemotron 3 Ultra config sets no comm_overlap"},
      {"25.09", "DeepSeekV3", "H100 B200 GB200", NULL,
       "r0.1.0's DeepSeek-V3 recipe default"},
  };
  for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
    if (!bridge_names_are(in, off[i].sections, off[i].model, off[i].gpus))
      continue;
    if (off[i].precision != NULL && strcmp(cell(in, "precision"), off[i].precision) != 0)
      continue;
    fw->tp_comm_overlap = PL_SETTING_OFF;
    validate_note(row, "tp_comm_overlap off (%s)", off[i].why);
    return true;
  }
  return true;
}

/* Megatron-Core selective recompute modules (layout.recompute_modules) of the
 * rows whose Megatron-Bridge performance configuration sets them. The rows do
 * not state them; as for bridge_ep_overlap each container section is read in
 * the release of its month (tag dates: v0.2.0 2025-11-26, v0.3.0 2026-02-26,
 * v0.3.1 2026-03-20, v0.4.0 2026-04-16, v0.4.2 2026-05-28, v0.5.0 2026-06-16,
 * v0.6.0 2026-08-19), whose performance scripts run the listed modules with
 * recompute_granularity "selective" (deepseek_llm_pretrain.py; for the others
 * utils/overrides.py _set_recompute_overrides: a recompute_modules list sets
 * granularity selective). The row's pp/vp/ep/mbs were checked against the
 * same config:
 *  - DeepSeek-V3: scripts/performance/configs/deepseek/ workload base configs
 *    of v0.2.2 (25.11: GB200, B200 ["mla_up_proj"]), v0.3.0/v0.3.1 (26.02,
 *    26.02.01: GB300_V2, GB200_V2, B300_V2, B200_V2 ["mla_up_proj"]), v0.4.0
 *    (26.04: GB300_V2 and B300/B200_V2 ["mla_up_proj"], GB200_V2 ["mlp"]), v0.4.2
 *    (26.04.01: as 26.04 but B200_FP8_MX_V2 ["mla_up_proj", "mlp"]), v0.5.0
 *    (26.06, 26.06.01: GB300_FP8_MX_V2 [], GB200_FP8_MX_V2 and B300_V2
 *    ["mla_up_proj"]); HEAD 067f987df0 perf_recipes/deepseek/{gb300,gb200}/
 *    deepseek_v3.py fp8mx (26.08: [] and ["mla_up_proj"]);
 *  - GPT-OSS 120B: gpt_oss workload configs v0.2.2-v0.5.0 and HEAD
 *    perf_recipes/gpt_oss/{gb200,b200,h100}/gpt_oss.py: GB200, B200 and H100
 *    ["layernorm", "moe_act"] (GB300, B300 none), except GB200_FP8_MX_V2
 *    (v0.5.0 and HEAD: recompute_modules=[]);
 *  - Qwen3: qwen3_llm_pretrain.py sets recompute_granularity None (none);
 *  - Nemotron 3 Nano: v0.3.1 configs/nemotronh/nemotron_3_nano_workload_base_configs.py,
 *    v0.4.0, v0.4.2, v0.5.0 nemotron_3_workload_base_configs.py: H100_FP8_CS_V1
 *    ["moe", "layernorm", "core_attn", "moe_act"]; GB300, GB200, B300, B200 none
 *    (the recipe recipes/nemotronh/nemotron_3_nano.py sets recompute_granularity
 *    None; HEAD perf_recipes/nemotronh/common.py _apply_nemotron_3_nano_perf_defaults
 *    the same for 26.08).
 * An empty list means no recompute. Rows not listed keep "not stated". */
static void bridge_recompute(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words */
    int dtype;                           /* enum pl_dtype, or -1 for any */
    uint32_t mods;                       /* 0: none (an empty list) */
  } cfg[] = {
      {"26.08 26.06 26.06.01", "DeepSeekV3", "GB300", PL_DTYPE_MXFP8, 0},
      {"26.08 26.06 26.06.01", "DeepSeekV3", "GB200 B300", PL_DTYPE_MXFP8, PL_RCM_MLA_UP_PROJ},
      {"26.04 26.04.01", "DeepSeekV3", "GB200", PL_DTYPE_MXFP8, PL_RCM_MLP},
      {"26.04.01", "DeepSeekV3", "B200", PL_DTYPE_MXFP8, PL_RCM_MLA_UP_PROJ | PL_RCM_MLP},
      {"26.04 26.04.01 26.02 26.02.01", "DeepSeekV3", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8,
       PL_RCM_MLA_UP_PROJ},
      {"25.11", "DeepSeekV3", "GB200 B200", -1, PL_RCM_MLA_UP_PROJ},
      {"26.08 26.06 26.06.01", "GPT OSS 120B", "GB200", PL_DTYPE_MXFP8, 0},
      {"26.08 26.06.01 26.06 26.04.01 26.04 26.02.01 26.02 25.11 25.09", "GPT OSS 120B",
       "GB200 B200 H100", -1, PL_RCM_LAYERNORM | PL_RCM_MOE_ACT},
      {"26.06.01 26.06 26.04.01 26.04 26.02.01", "Nemotron_3_Nano", "H100", PL_DTYPE_FP8,
       PL_RCM_MOE | PL_RCM_LAYERNORM | PL_RCM_CORE_ATTN | PL_RCM_MOE_ACT},
      {"26.08 26.06.01 26.06 26.04.01 26.04 26.02.01", "Nemotron_3_Nano", "GB300 GB200 B300 B200",
       -1, 0},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, cfg[i].dtype))
      continue;
    if (cfg[i].mods == 0) {
      l->recompute = PL_RECOMPUTE_NONE;
      validate_note(row, "no recompute (the release's config: recompute_modules [])");
      return;
    }
    l->recompute = PL_RECOMPUTE_SELECTIVE;
    l->recompute_modules = cfg[i].mods;
    char mods[128];
    pl_recompute_modules_format(cfg[i].mods, mods, sizeof mods);
    validate_note(row, "recompute modules %s (the release's config, not stated in the row)", mods);
    return;
  }
}

/* CUDA-graph scopes (layout.cuda_graph_scopes) of the Qwen3 rows, from the
 * Megatron-Bridge performance configuration of each container section's release
 * (as bridge_recompute: 25.11 v0.2.2, 26.02 v0.3.0, 26.02.01 v0.3.1, 26.04
 * v0.4.0, 26.04.01 v0.4.2, 26.06 and 26.06.01 v0.5.0, 26.08 HEAD 067f987df0).
 * scripts/performance/configs/qwen/qwen3_workload_base_configs.py (v0.2.2:
 * configs/qwen3/workload_base_configs.py) sets cuda_graph_impl
 * "transformer_engine" with a cuda_graph_scope per GPU and precision; a config
 * that sets none keeps the recipe's cuda_graph_impl "none"
 * (src/megatron/bridge/recipes/qwen/qwen3_moe.py): every op eager.
 *  - Qwen3-30B-A3B: GB300, B300 [moe_router, moe_preprocess]; GB200 BF16 and
 *    FP8-CS [attn, moe_router, moe_preprocess], MXFP8 [moe_router,
 *    moe_preprocess]; B200 [moe_router, moe_preprocess] in v0.2.2 and v0.3.0,
 *    [attn, moe_router, moe_preprocess] from v0.3.1; H100 BF16 [moe_router,
 *    moe_preprocess], H100 FP8-CS none. v0.5.0: GB300, GB200, B300 FP8_MX_V1
 *    cuda_graph_impl "full_iteration" (qwen3_llm_pretrain.py
 *    set_full_iter_cg_configs); HEAD perf_recipes qwen/common.py
 *    _enable_hybridep_full_iteration_mxfp8 the same for fp8mx on GB300, GB200, B300.
 *  - Qwen3-235B-A22B (the rows' gbs 8192: the V2 configs from v0.3.0): GB200
 *    [attn, moe_router, moe_preprocess]; GB300 [moe_router, moe_preprocess] in
 *    v0.2.2 and v0.3.0 BF16, [attn, moe_router, moe_preprocess] otherwise;
 *    B300, B200, H100 none; v0.5.0 GB300/GB200 FP8_MX_V2 and HEAD fp8mx on
 *    GB300, GB200, B300, B200 full_iteration.
 *  - Nemotron 3 Nano (v0.3.1 nemotron_3_nano_workload_base_configs.py, v0.4.0,
 *    v0.4.2, v0.5.0 nemotron_3_workload_base_configs.py
 *    BASE_NEMOTRON_3_NANO_CONFIG; HEAD perf_recipes/nemotronh/{gb300,gb200,b300,
 *    b200}/nemotronh.py set_cuda_graph_modules): GB300, GB200, B300, B200 [attn,
 *    mamba, moe_router, moe_preprocess]; H100 FP8_CS_V1 [mamba].
 * First match wins. Other models' rows keep none (not read here). */
static void bridge_graph_scope(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  enum {
    A = PL_CGS_ATTN,
    R = PL_CGS_MOE_ROUTER | PL_CGS_MOE_PREPROCESS,
    F = PL_CGS_FULL_ITERATION,
    M = PL_CGS_MAMBA
  };
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
    int dtype;                           /* enum pl_dtype, or -1 for any */
    uint32_t scopes;                     /* 0: none, every op eager */
  } cfg[] = {
      {"26.08 26.06 26.06.01", "Qwen3_30B", "GB300 GB200 B300", PL_DTYPE_MXFP8, F},
      {"26.08 26.06 26.06.01", "Qwen3_235B", "GB300 GB200", PL_DTYPE_MXFP8, F},
      {"26.08", "Qwen3_235B", "B300 B200", PL_DTYPE_MXFP8, F},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "GB300 B300", -1, R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "GB200",
       PL_DTYPE_MXFP8, R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "GB200", -1, A | R},
      {"25.11 26.02", "Qwen3_30B", "B200", -1, R},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "B200", -1, A | R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "H100", PL_DTYPE_BF16,
       R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "H100", -1, 0},
      {"25.11 26.02", "Qwen3_235B", "GB300", PL_DTYPE_BF16, R},
      {"25.11", "Qwen3_235B", "GB300", -1, R},
      {"26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_235B", "GB300", -1, A | R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_235B", "GB200", -1, A | R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "Qwen3_235B",
       "B300 B200 H100", -1, 0},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Nano", "GB300 GB200 B300 B200",
       -1, A | R | M},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Nemotron_3_Nano", "H100", PL_DTYPE_FP8, M},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, cfg[i].dtype))
      continue;
    l->cuda_graph_scopes = cfg[i].scopes;
    char list[64];
    pl_cuda_graph_scopes_format(cfg[i].scopes, list, sizeof list);
    validate_note(row, "CUDA graph scope %s (the release's config, not stated in the row)", list);
    return;
  }
}

/* MXFP8 attention (layout.fp8_attention) of the rows whose Megatron-Bridge
 * performance configuration sets fp8_dot_product_attention (each container
 * section read in the release of its month, as bridge_recompute; the setting
 * first appears in v0.5.0: `git grep fp8_dot_product_attention` finds it in no
 * v0.2.2-v0.4.2 scripts/performance config). Megatron-Core passes it to TE's
 * MXFP8BlockScaling(fp8_dpa=...) (fp8_utils.py get_fp8_recipe, core_v0.18.0, the
 * 3rdparty/Megatron-LM of v0.5.0), and TE (the v0.5.0 pin 4220403e, in v2.16)
 * runs cuDNN's MXFP8 SDPA for it on sm100.
 *  - 26.06, 26.06.01 (v0.5.0 scripts/performance/configs/): deepseek
 *    DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_FP8_MX_V1 (and _V2, its replace()), not GB200's;
 *    qwen QWEN3_235B_A22B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2 and
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_{GB300,GB200,B300}_FP8_MX_V1;
 *  - 26.08 (HEAD 067f987df0 src/megatron/bridge/perf_recipes): deepseek/{gb300,b300}/
 *    deepseek_v3.py fp8mx (_enable_deepseek_full_iteration_mxfp8(cfg,
 *    fp8_dot_product_attention=True); gb200's passes none: False); qwen/common.py
 *    _enable_hybridep_full_iteration_mxfp8 (Qwen3-235B and 30B fp8mx on GB300, GB200,
 *    B300; 235B on B200).
 *  - GPT-OSS 120B: v0.5.0 GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2
 *    (gpt_oss_workload_base_configs.py) for 26.06 and 26.06.01; 26.08 (HEAD
 *    perf_recipes/gpt_oss/{gb300,gb200}/gpt_oss.py *_fp8mx_config ->
 *    common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs); not B300/B200 (their
 *    FP8_MX_V2 are the BF16 configs; HEAD's b300/b200 fp8mx set none). TE 2.16
 *    (v0.5.0's pin) runs FP8 attention with sinks and with a sliding window on
 *    sm100 from cuDNN 9.21 (get_attention_backend "Filter: Softmax type" and
 *    "Filter: Sliding window attention"; TE 2.14 refused both, so no earlier
 *    section is read); the rows take today's cuDNN (layout.c te_uses_cudnn). */
static void bridge_fp8_attention(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
  } cfg[] = {
      {"26.06 26.06.01", "DeepSeekV3", "GB300"},
      {"26.08", "DeepSeekV3", "GB300 B300"},
      {"26.06 26.06.01", "Qwen3_235B", "GB300 GB200"},
      {"26.06 26.06.01", "Qwen3_30B", "GB300 GB200 B300"},
      {"26.08", "Qwen3_235B", "GB300 GB200 B300 B200"},
      {"26.08", "Qwen3_30B", "GB300 GB200 B300"},
      {"26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 GB200"},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, PL_DTYPE_MXFP8))
      continue;
    l->fp8_attention = true;
    validate_note(row, "MXFP8 attention (the release's fp8_dot_product_attention, not stated in "
                       "the row)");
    return;
  }
}

/* NVFP4 rows of the releases whose Transformer Engine casts an RHT'd tensor in
 * two passes (layout.nvfp4_rht_unfused): the Megatron-Bridge release of each
 * section (as bridge_recompute) pins TE in its uv.lock: v0.2.2 (25.11)
 * 2.9.0+70f53666, v0.3.0 and v0.3.1 (26.02, 26.02.01) 2.12.0+5671fd36, v0.4.0
 * (26.04) 2.14.0+71bbefbf, v0.4.2 2.14.1, v0.5.0 2.16.0. TE 2.9-2.13's
 * NVFP4Quantizer::quantize_impl (pytorch/csrc/quantizer.cpp) quantizes the
 * rowwise copy with nvte_quantize_v2 and the columnwise RHT copy with
 * nvte_hadamard_transform_cast_fusion_columnwise, each reading the input; TE
 * 2.14 fuses both into nvte_quantize_with_hadamard_transform. */
static void bridge_nvfp4_rht(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  if (!bridge_config_is(in, l, "25.11 26.02 26.02.01", "", "GB300 GB200 B300 B200",
                        PL_DTYPE_NVFP4))
    return;
  l->nvfp4_rht_unfused = true;
  validate_note(row, "NVFP4 RHT cast in two passes (the release's Transformer Engine 2.9/2.12)");
}

/* MoE MXFP8 rows whose release configuration runs Transformer Engine's fused
 * MXFP8 grouped MLP (layout.fused_grouped_mlp): Megatron-Core's
 * use_transformer_engine_op_fuser with NVTE_CUTEDSL_FUSED_GROUPED_MLP=1.
 *  - 26.06, 26.06.01 (v0.5.0 scripts/performance/configs): cutedsl_fused_grouped_mlp=True
 *    in DEEPSEEK_V3_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V1 (the _V2 configs replace()
 *    them), QWEN3_235B_A22B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2,
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_{GB300,GB200,B300}_FP8_MX_V1 and
 *    GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2; utils/overrides.py then sets
 *    use_transformer_engine_op_fuser and moe_mlp_glu_interleave_size 32, perf_plugins.py
 *    NVTE_CUTEDSL_FUSED_GROUPED_MLP=1;
 *  - 26.08 (HEAD 067f987df0 perf_recipes): the op fuser from deepseek/common.py
 *    _enable_deepseek_full_iteration_mxfp8 (deepseek_v3 fp8mx on gb300, gb200, b300),
 *    qwen/common.py _enable_hybridep_full_iteration_mxfp8 (qwen3_235b and qwen3_30b fp8mx
 *    on gb300, gb200, b300; 235b 256-GPU on b200) and gpt_oss/common.py
 *    _apply_gpt_oss_120b_full_iter_fp8mx_configs (gb300, gb200), each with the env
 *    NVTE_CUTEDSL_FUSED_GROUPED_MLP: 1 in its config function.
 * Each of these configurations also runs the fused kernels with a cluster margin of 8
 * (layout.cudnn_cluster_margin, cuDNN frontend's CUDNNFE_CLUSTER_OVERLAP_MARGIN): v0.5.0
 * scripts/performance/perf_plugins.py sets CUDNNFE_CLUSTER_OVERLAP_MARGIN=8 whenever
 * cutedsl_fused_grouped_mlp and moe_a2a_overlap (every v0.5.0 config above sets both);
 * the 26.08 perf_recipes above carry "CUDNNFE_CLUSTER_OVERLAP_MARGIN": 8 in the same
 * config functions' env. */
static void bridge_fused_mlp(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus;
  } on[] = {
      {"26.06 26.06.01 26.08", "DeepSeekV3", "GB300 GB200"},
      {"26.08", "DeepSeekV3", "B300"},
      {"26.06 26.06.01 26.08", "Qwen3_235B", "GB300 GB200"},
      {"26.08", "Qwen3_235B", "B300"},
      {"26.06 26.06.01 26.08", "Qwen3_30B", "GB300 GB200 B300"},
      {"26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 GB200"},
  };
  for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
    if (bridge_config_is(in, l, on[i].sections, on[i].model, on[i].gpus, PL_DTYPE_MXFP8)) {
      l->fused_grouped_mlp = true;
      l->cudnn_cluster_margin = 8;
      validate_note(row, "fused MXFP8 grouped MLP (the release's cutedsl_fused_grouped_mlp / "
                         "TE op fuser), its cuDNN kernels with 8 clusters left free (the "
                         "release's CUDNNFE_CLUSTER_OVERLAP_MARGIN)");
      return;
    }
  }
}

/* The FP8 recipe of the rows whose precision reads plain "FP8" (the 26.x
 * sections; 25.11 writes "FP8-CS"). Each section was read in the release of
 * its month (26.02: v0.3.0, 26.02.01: v0.3.1, 26.04: v0.4.0, 26.04.01:
 * v0.4.2, 26.06: v0.5.0): scripts/performance/argument_parser.py
 * --compute_dtype offers only bf16, fp8_cs, fp8_mx, fp8_sc and nvfp4 (no
 * delayed scaling), and scripts/performance/configs/<model>/<model>_workload_base_configs.py
 * define for Llama 3 8B/70B, Llama 3.1 405B, Qwen3 30B/235B and Nemotron 3
 * Nano only *_FP8_CS_* among the FP8 configs (fp8_sc: DeepSeek-V3 and Kimi-K2
 * on H100 only); the rows' layouts are those configs'. fp8_cs is
 * utils/precision.py get_precision_config -> mixed_precision.py
 * bf16_with_fp8_current_scaling_mixed (fp8_recipe "tensorwise": Transformer
 * Engine Float8CurrentScaling) -> plateau's fp8-current. */
static void bridge_fp8_recipe(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *name = cell(in, "model");
  if (l->dtype != PL_DTYPE_FP8 || l->fp8_recipe != PL_FP8_RECIPE_TENSOR ||
      !validate_word_in("26.02 26.02.01 26.04 26.04.01 26.06", sec) ||
      strncmp(name, "DeepSeekV3", 10) == 0 || strncmp(name, "Kimi", 4) == 0)
    return;
  l->fp8_recipe = PL_FP8_RECIPE_CURRENT;
  validate_note(row, "FP8 as current scaling (the release's performance scripts: fp8_cs, "
                     "no delayed scaling)");
}

/* FP8 parameters of the Megatron FSDP rows under FP8 current scaling
 * (layout.fp8_all_gather, pl_layout_te_fp8_params): every release's fp8_cs
 * recipe, mixed_precision.py bf16_with_fp8_current_scaling_mixed (r0.1.0,
 * v0.2.0, v0.3.1, v0.4.0, v0.4.2), sets fp8_param_gather = True, and the
 * performance scripts leave it on (only Kimi-K2's MXFP8 config turns it off).
 * Run after bridge_fp8_recipe. */
static void bridge_fp8_params(struct pl_layout *l, struct pl_vrow *row) {
  if (l->shard != PL_SHARD_ZERO3 || l->dtype != PL_DTYPE_FP8 ||
      l->fp8_recipe != PL_FP8_RECIPE_CURRENT)
    return;
  l->fp8_all_gather = true;
  validate_note(row, "FP8 parameters, gathered at 1 B (the fp8_cs recipe's fp8_param_gather)");
}

/* Activation CPU offloading (layout.act_offload_layers) of the Llama 3 70B
 * rows trained with Megatron FSDP. The rows do not state it; each section
 * was read in the release of its month (25.11: v0.2.0-v0.2.2
 * scripts/performance/configs/llama3/workload_base_configs.py
 * LLAMA3_70B_{GB300,GB200}_FP8_CS_BASE_CONFIG; 26.02: v0.3.0, 26.02.01:
 * v0.3.1, 26.04: v0.4.0, 26.04.01: v0.4.2 configs/llama/
 * llama3_workload_base_configs.py LLAMA3_70B_PRETRAIN_CONFIG_{GB300,GB200}_
 * FP8_CS_V1/V2): micro_batch_size 2, use_megatron_fsdp True,
 * cpu_offloading_num_layers 20 on GB300 and 40 on GB200, tp 1 pp 1 as the
 * rows. utils/overrides.py _set_recompute_overrides (v0.2.x utils/helpers.py
 * set_recompute_overrides) turns that into model.cpu_offloading True,
 * cpu_offloading_weights False, cpu_offloading_num_layers N. The same
 * releases configure no FP8 Megatron-FSDP layout on other GPUs, and
 * their MXFP8/NVFP4 GB300 layouts are pp 4 vp 5 with micro_batch_size 1 (the
 * V1/V2 configs above): the two 26.02.01 GB300 rows that state tp 1 pp 1 /
 * pp 4 with mbs 2 for those precisions are not a layout the release ran. */
static bool bridge_offload(const struct validate_in *in, struct pl_layout *l,
                           struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *gpu = cell(in, "gpu");
  /* GPT-OSS 120B on H100, 25.11: v0.2.0-v0.2.2 gpt_oss/workload_base_configs.py
   * GPT_OSS_120B_H100_BF16_BASE_CONFIG (BASE_GPT_OSS_120B_CONFIG micro_batch_size 1,
   * GBS 512, pp 4, ep 8); the row states mbs 4, and its mbs x dp x GA (4 x 16 x 2 =
   * 128) is not its GBS 512 either; every later section states mbs 1 */
  if (strncmp(cell(in, "model"), "GPT OSS 120B", 12) == 0 && strcmp(sec, "25.11") == 0 &&
      strcmp(gpu, "DGX-H100") == 0 && l->mbs != 1)
    return validate_skip(row, "the row's mbs %lld is not the release's (v0.2.x "
                              "GPT_OSS_120B_H100_BF16_BASE_CONFIG: mbs 1) nor consistent with "
                              "its GBS (mbs x dp x GA = 128 != 512)",
                         (long long)l->mbs);
  if (strncmp(cell(in, "model"), "LLAMA3_70B", 10) != 0 ||
      !validate_word_in("25.11 26.02 26.02.01 26.04 26.04.01", sec))
    return true;
  bool gb300 = strcmp(gpu, "DGX-GB300") == 0, gb200 = strcmp(gpu, "DGX-GB200") == 0;
  if (gb300 && strcmp(sec, "26.02.01") == 0 &&
      (l->dtype == PL_DTYPE_MXFP8 || l->dtype == PL_DTYPE_NVFP4) && l->mbs == 2)
    return validate_skip(row, "the row's layout (tp %lld pp %lld, mbs 2) is not the release's "
                              "(v0.3.1 LLAMA3_70B_PRETRAIN_CONFIG_GB300_%s_V2: pp 4 vp 5, mbs 1)",
                         (long long)l->tp, (long long)l->pp,
                         l->dtype == PL_DTYPE_MXFP8 ? "FP8_MX" : "NVFP4");
  if (!(gb300 || gb200) || l->shard != PL_SHARD_ZERO3 || l->dtype != PL_DTYPE_FP8 ||
      l->tp != 1 || l->pp != 1 || l->mbs != 2)
    return true;
  l->act_offload_layers = gb300 ? 20 : 40;
  validate_note(row, "activations of %lld blocks offloaded to the host (the release's "
                     "cpu_offloading_num_layers, not stated in the row)",
                (long long)l->act_offload_layers);
  return true;
}

/* GPT-OSS 120B's token dispatcher by release (each section's Megatron-Bridge
 * release as for bridge_ep_overlap). The recipe and the model bridge set
 * moe_token_dispatcher_type "alltoall" (src/megatron/bridge/recipes/gpt_oss/
 * gpt_oss.py, models/gpt_oss/gpt_oss_provider.py, v0.2.2 .. v0.6.0; the
 * recipe's moe_flex_dispatcher_backend "deepep" is inert without the flex
 * type); the performance configs switch to the flex dispatcher with the
 * hybridep backend only where they name it (scripts/performance/configs/
 * gpt_oss/gpt_oss_llm_pretrain.py applies base_cfg.moe_flex_dispatcher_backend
 * through apply_flex_dispatcher_backend, which sets the flex type):
 *  - 25.11 (v0.2.2 configs/gpt_oss/workload_base_configs.py), 26.02, 26.02.01
 *    (v0.3.0, v0.3.1 gpt_oss_workload_base_configs.py): no backend on any GPU:
 *    alltoall, the GB200/GB300 rows included;
 *  - 26.04 (v0.4.0): GPT_OSS_120B_PRETRAIN_CONFIG_{GB200,B300,B200}_BF16_V2
 *    hybridep; GB300 and H100 none;
 *  - 26.04.01 (v0.4.2): B300_BF16_V2 hybridep only;
 *  - 26.06, 26.06.01 (v0.5.0): B300_BF16_V2 (and FP8_MX_V2 = it) hybridep,
 *    {GB300,GB200}_FP8_MX_V2 hybridep; B200 and H100 none;
 *  - 26.08 (HEAD 067f987df0 perf_recipes/gpt_oss/common.py
 *    _apply_gpt_oss_120b_full_iter_fp8mx_configs: moe_token_dispatcher_type
 *    "flex", backend hybridep, GB300 and GB200 fp8mx).
 * Returns whether the row is GPT-OSS 120B (its dispatcher then set here). */
static bool bridge_gpt_oss_dispatch(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  static const struct {
    const char *sections, *gpus;
    int dtype; /* enum pl_dtype, or -1 for any */
  } flex[] = {
      {"26.04", "GB200 B300 B200", -1},
      {"26.04.01", "B300", -1},
      {"26.06 26.06.01", "B300", -1},
      {"26.06 26.06.01 26.08", "GB300 GB200", PL_DTYPE_MXFP8},
  };
  if (strncmp(cell(in, "model"), "GPT OSS 120B", 12) != 0)
    return false;
  l->dispatch = PL_MOE_ALLTOALL;
  for (size_t i = 0; i < sizeof flex / sizeof flex[0]; i++)
    if (bridge_config_is(in, l, flex[i].sections, "GPT OSS 120B", flex[i].gpus, flex[i].dtype)) {
      l->dispatch = PL_MOE_DEEPEP; /* priced as hybridep where its measurements apply */
      validate_note(row, "hybridep dispatcher (the release's GPT-OSS config)");
      return true;
    }
  validate_note(row, "alltoall dispatcher (the release's GPT-OSS config)");
  return true;
}

/* The DGX (8-GPU node) configurations whose release sets a flex dispatcher backend
 * (the first match wins; the rows of other releases keep the dispatcher chosen above):
 *  - DeepSeek-V3 on DGX B200/B300 from 26.02 (v0.3.0, v0.3.1, v0.4.0, v0.4.2, v0.5.0
 *    scripts/performance/configs/deepseek/deepseek_workload_base_configs.py
 *    DEEPSEEK_V3_PRETRAIN_CONFIG_{B200,B300}_V1, inherited by the _V2 configs:
 *    moe_flex_dispatcher_backend "hybridep"; src/megatron/bridge/training/
 *    flex_dispatcher_backend.py apply_flex_dispatcher_backend sets the flex dispatcher for
 *    hybridep on compute capability 8-10, B200 and B300 included). v0.2.x (25.09, 25.11) set
 *    no backend: alltoall. With ep 8 the group is one node: no deduplication across nodes.
 *  - Qwen3-30B-A3B on DGX H100 from 26.02.01 (v0.3.1, v0.4.0, v0.4.2, v0.5.0
 *    scripts/performance/configs/qwen/qwen3_workload_base_configs.py
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1: expert_model_parallel_size 16
 *    over the 16 GPUs, moe_flex_dispatcher_backend "hybridep"; apply_flex_dispatcher_backend
 *    accepts compute capability 9). With ep 16 the group spans two nodes.
 *  - 26.02 (v0.3.0 QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1, pp 2 vp 12 ep 8):
 *    moe_flex_dispatcher_backend "deepep". v0.2.x (25.11) sets no backend: alltoall.
 *  - Nemotron 3 Nano on DGX B200/B300/H100 (v0.3.1 configs/nemotronh/
 *    nemotron_3_nano_workload_base_configs.py, v0.4.0, v0.4.2, v0.5.0
 *    nemotron_3_workload_base_configs.py BASE_NEMOTRON_3_NANO_CONFIG:
 *    moe_flex_dispatcher_backend "hybridep", inherited by every GPU's config, H100 included;
 *    the recipe recipes/nemotronh/nemotron_3_nano.py sets moe_token_dispatcher_type "flex"
 *    itself, and training/config.py's validate_flex_dispatcher_backend accepts hybridep on
 *    compute capability 8-10).
 *    ep 8 is one node on every one of these rows: on Blackwell the call is priced at
 *    HybridEP's measured DGX B200 rate (moe_comm.c flex_nvl5_call_s, as DeepSeek-V3 on
 *    B200/B300 above); on H100 inside one node by NCCL's all_to_all (no published
 *    intra-node H100 HybridEP rate). The host waits after the dispatch (moe_sync.c). */
static void bridge_release_dispatch(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
    enum pl_moe_dispatch dispatch;
    const char *note;
  } cfg[] = {
      {"26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "DeepSeekV3", "B200 B300", PL_MOE_DEEPEP,
       "hybridep dispatcher (the release's B200/B300 config)"},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "H100", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's H100 config)"},
      {"26.02", "Qwen3_30B", "H100", PL_MOE_DEEPEP, "deepep dispatcher (the release's H100 config)"},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Nemotron_3_Nano", "B200 B300 H100",
       PL_MOE_HYBRIDEP, "hybridep dispatcher (the release's DGX config)"},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
    if (bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, -1)) {
      l->dispatch = cfg[i].dispatch;
      validate_note(row, "%s", cfg[i].note);
      return;
    }
}

bool validate_bridge_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!bridge_flagged(in, row))
    return false;
  bridge_fp8_recipe(in, l, row);
  bridge_fp8_params(l, row);
  const char *task = cell(in, "Task");
  if (strcmp(task, "pretrain") != 0)
    return validate_skip(row, "task '%s' is not pre-training (SFT and LoRA are not modelled)", task);
  if (cell(in, "precision")[0] == '\0')
    return validate_skip(row, "precision not stated in the row");
  if (!validate_mcore_experts(in, l, row))
    return false;
  /* Token dispatcher (Megatron-Bridge scripts/performance/configs/<model>/<model>_workload_base_configs.py):
   * the GB200/GB300 configs use the flex dispatcher with the hybridep backend (DeepEP's kernels
   * for an NVLink rack), most others moe_token_dispatcher_type alltoall */
  char g[64];
  snprintf(g, sizeof g, "%s", cell(in, "gpu"));
  if (bridge_gpt_oss_dispatch(in, l, row)) {
    /* set by its release's config */
  } else if (strstr(g, "GB200") != NULL || strstr(g, "GB300") != NULL) {
    l->dispatch = PL_MOE_DEEPEP;
    validate_note(row, "hybridep dispatcher (GB200/GB300 configs)");
  } else {
    l->dispatch = PL_MOE_ALLTOALL;
  }
  /* DeepSeek-V3 on B200 with MXFP8 from 26.04.01 (v0.4.2 DEEPSEEK_V3_PRETRAIN_CONFIG_B200_FP8_MX_V2,
   * v0.5.0 the same, HEAD perf_recipes/deepseek/b200/deepseek_v3.py fp8mx): the flex dispatcher
   * with the deepep backend, its pp 8 vp 2 ep 32 layout (the pp 16 ep 8 configs: alltoall) */
  if (strncmp(cell(in, "model"), "DeepSeekV3", 10) == 0 && strstr(g, "B200") != NULL &&
      strstr(g, "GB200") == NULL && l->dtype == PL_DTYPE_MXFP8 && l->ep == 32) {
    l->dispatch = PL_MOE_DEEPEP;
    validate_note(row, "deepep dispatcher (the release's B200 MXFP8 config with ep 32)");
  } else {
    bridge_release_dispatch(in, l, row);
  }
  validate_mcore_balance(in, l, row);
  bridge_ep_overlap(in, l, row);
  bridge_recompute(in, l, row);
  bridge_graph_scope(in, l, row);
  bridge_fp8_attention(in, l, row);
  bridge_nvfp4_rht(in, l, row);
  bridge_fused_mlp(in, l, row);
  if (!bridge_offload(in, l, row))
    return false;
  /* Megatron-Bridge's recipes for the two large models ("Large model specific
   * pipeline split configurations": recipes/llama/llama3.py for Llama 3.1
   * 405B, recipes/qwen/qwen3_moe.py for Qwen3-235B-A22B) set
   * account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split */
  const char *name = cell(in, "model");
  if (strncmp(name, "LLAMA3.1_405B", 13) == 0 || strncmp(name, "Qwen3_235B", 10) == 0) {
    l->account_embed_loss = true;
    validate_note(row, "embedding, loss count in the pipeline split (recipe)");
  }
  if (strncmp(name, "DeepSeekV3", 10) == 0)
    return bridge_deepseek(in, l, row);
  return true;
}

bool validate_bridge_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row) {
  const char *col = "Tokens / sec / GPU";
  if (!validate_metric(in, col, row))
    return false;
  const struct pl_layout *l = &run->layout;
  row->measured =
      (double)l->gbs * (double)run->model.seq_len / (row->published * (double)l->gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / (rate x GPUs)",
           col);
  return true;
}

