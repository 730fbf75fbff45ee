/* source_torchtitan.c: how pytorch/torchtitan's published runs are read
 * (data/validation/torchtitan_performance.csv; README.md there, "How each
 * source defines its metrics").
 *
 * The rows come from torchtitan's own pages: the benchmarks/ folder and the older
 * docs/performance.md, each at the commit its source_ref names. What they
 * state becomes the run: FSDP2 (fully_shard) over the data-parallel degree,
 * torchtitan's activation-checkpointing modes, torch.compile, torchao's
 * Float8 training, async TP, the pipeline schedule, and the machine (the
 * Grand Teton H100's 96 GB HBM2e at 2.4 TB/s under its default 500 W power
 * limit). Nothing here looks at a prediction. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/layout.h>
#include <plateau/model.h>
#include <plateau/units.h>

#include "validate/validate_int.h"

static bool yes(const struct validate_in *in, const char *col) {
  return strcmp(cell(in, col), "yes") == 0;
}

/* A number as torchtitan's pages print it: "5,762" (thousands separated),
 * "2.4 TB/sec", "500W", "96GB": the leading number, commas dropped; the
 * unit after it is the caller's. Empty -> *present false. */
static bool lead_number(const char *s, double *out, bool *present) {
  char buf[64];
  size_t j = 0;
  while (isspace((unsigned char)*s))
    s++;
  for (; *s != '\0' && (isdigit((unsigned char)*s) || *s == '.' || *s == ','); s++)
    if (*s != ',' && j + 1 < sizeof buf)
      buf[j++] = *s;
  buf[j] = '\0';
  *present = j > 0;
  if (j == 0)
    return *s == '\0'; /* empty is fine, text without a number is not */
  return pl_double_parse(buf, out, NULL) == PL_OK && *out > 0;
}

/* ----------------------------------------------------------------- model */

/* Llama 2 and Llama 3.1 as torchtitan/models/llama/model.py builds them
 * (9dec370, 1ea476e9f): RMSNorm, SwiGLU FeedForward (w1, w2, w3), RoPE, no
 * biases, no dropout, separate output projection. */
bool validate_torchtitan_model(const struct validate_in *in, struct pl_model *m,
                               struct pl_vrow *row) {
  (void)in;
  (void)row;
  m->mlp = PL_MLP_SWIGLU;
  m->norm = PL_NORM_RMS;
  m->pos = PL_POS_ROTARY;
  m->tied_embeddings = m->linear_bias = m->dropout = false;
  return true;
}

/* ---------------------------------------------------------------- modes */

/* Sharding: FSDP2 fully_shard = zero3 (the torchtitan preset's). Activation
 * checkpointing as torchtitan names it (config_manager.py
 * --activation_checkpoint.mode / selective_ac_option, 1ea476e9f-9dec370):
 * "full" every block; "selective op" the per-op policy (plateau's ops);
 * "selective layer" every selective_ac_option-th block, whose default is
 * "2" ("checkpoint every other layer") and which the pages never set
 * otherwise; "none". */
bool validate_torchtitan_modes(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  const char *shard = cell(in, "sharding"), *rc = cell(in, "recompute");
  if (strncmp(shard, "FSDP2", 5) != 0)
    return validate_skip(row, "sharding '%s' not understood (torchtitan: FSDP2)", shard);
  l->shard = PL_SHARD_ZERO3;
  if (strcmp(rc, "full") == 0) {
    l->recompute = PL_RECOMPUTE_FULL;
  } else if (strcmp(rc, "selective op") == 0) {
    l->recompute = PL_RECOMPUTE_OPS;
  } else if (strcmp(rc, "selective layer") == 0) {
    l->recompute = PL_RECOMPUTE_FULL;
    l->recompute_every = 2;
    validate_note(row, "selective layer AC: every 2nd block (torchtitan selective_ac_option "
                       "default '2')");
  } else if (strcmp(rc, "none") == 0) {
    l->recompute = PL_RECOMPUTE_NONE;
  } else {
    return validate_skip(row, "recompute '%s' not understood", rc);
  }
  return true;
}

/* --------------------------------------------------------------- layout */

/* The machine columns: GPU memory "96GB" (taken as GiB, the vendor HBM
 * convention of data/gpus/h100.json), bandwidth "2.4 TB/sec", power limit
 * "500W"; empty = the GPU preset's. False when a stated one is malformed. */
struct tt_machine {
  double mem_bytes, bw_bytes_per_s, power_w;
};

static bool tt_machine(const struct validate_in *in, struct tt_machine *mc) {
  static const char *const cols[] = {"GPU memory", "GPU memory bandwidth", "GPU power limit"};
  static const double scale[] = {1073741824.0, 1e12, 1.0};
  double *dst[] = {&mc->mem_bytes, &mc->bw_bytes_per_s, &mc->power_w};
  for (int i = 0; i < 3; i++) {
    bool present = false;
    double v = 0;
    *dst[i] = 0;
    if (!lead_number(cell(in, cols[i]), &v, &present))
      return false;
    if (present)
      *dst[i] = v * scale[i];
  }
  return true;
}

/* torchtitan's default pipeline split, as a Megatron-Core layout string
 * (layout.pipeline_layout; stage i on rank i % pp, torchtitan's "loop"
 * style, stage_ids_this_rank): parallelisms/pipelining_utils.py
 * generate_split_points (9dec370): pp x (1 stage per rank for a
 * PipelineScheduleSingle such as 1F1B, 2 for a PipelineScheduleMulti such
 * as Interleaved1F1B) stages; base = layers / stages; the first stage gets
 * base layers, each middle stage base + 1 while layers % stages remain,
 * else base; the last stage the rest. The embedding is on the first stage,
 * the norm, output layer and loss on the last (pipeline_llama.py
 * _build_stage). No split point is stated by any row. */
static bool tt_pipeline_split(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  bool present = false;
  int64_t layers = 0;
  if (l->pp <= 1 || validate_int(cell(in, "layers"), &layers, &present) != PL_OK || !present)
    return true; /* no pipeline, or the model rule reports the missing layers */
  int64_t vp = l->vp > 1 ? l->vp : 1, stages = l->pp * vp;
  if (stages > layers || stages > PL_LAYOUT_MAX_CHUNKS)
    return validate_skip(row, "%lld pipeline stages for %lld layers (torchtitan refuses more "
                              "stages than layers)", (long long)stages, (long long)layers);
  int64_t base = layers / stages, extra = layers % stages, used = 0;
  size_t n = 0;
  char *s = l->pipeline_layout;
  for (int64_t i = 0; i < stages; i++) {
    int64_t k = base;
    if (i > 0 && i < stages - 1 && extra > 0) {
      k++;
      extra--;
    }
    if (i == stages - 1)
      k = layers - used;
    used += k;
    int w = snprintf(s + n, sizeof l->pipeline_layout - n, "%s%st*%lld%s", i > 0 ? "|" : "",
                     i == 0 ? "E" : "", (long long)k, i == stages - 1 ? "L" : "");
    if (w < 0 || (size_t)w >= sizeof l->pipeline_layout - n)
      return validate_skip(row, "pipeline split of %lld stages too long to describe",
                           (long long)stages);
    n += (size_t)w;
  }
  validate_note(row, "torchtitan's default pipeline split (generate_split_points): %s", s);
  return true;
}

/* The loss as the row's torchtitan ran it: PyTorch's eager
 * F.cross_entropy on an fp32 copy of the logits (the torchtitan preset's
 * eager_xent), unless torch.compile compiled it. torchtitan compiled the loss
 * with training.compile only from e10cb94 (2024-10-22, "compile it if
 * compiling") to e8977b0 (2024-12-18, "turning off compile on loss
 * function": commented out at 9dec370, train.py), and again in 2025
 * (components/loss.py build_cross_entropy_loss at 820504e and e7c0cae).
 * Before e10cb94 the model's output did the .float() (model.py), the same
 * tensors. A compiled loss keeps plateau's 4 B per logit (not derived). */
static bool tt_loss_compiled(const struct validate_in *in) {
  const char *ref = cell(in, "source_ref");
  return yes(in, "torch.compile") && (strstr(ref, "torchtitan 820504e") != NULL ||
                                      strstr(ref, "torchtitan e7c0cae") != NULL);
}

/* What the row's torch adds to the preset's memory layout: DTensor's TP plan
 * (tp_gathered_saved) and FSDP2's fp32 shards (fp32_param_shards) are the
 * preset's, every torchtitan release's; torch.distributed.pipelining at the
 * row's torch keeps every stage's outputs until the step ends
 * (layout.pp_keep_outputs): before PyTorch PR #153383 (2025-05-13), so at
 * torch 1963fc8 (2024-12-23). */
static void tt_loss(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  l->pp_keep_outputs = strstr(cell(in, "source_ref"), "torch 1963fc8") != NULL;
  if (tt_loss_compiled(in))
    validate_note(row, "loss compiled with the model (torchtitan 2025 build_cross_entropy_loss)");
}

/* FP8 as torchao's Float8Linear ran it: the dynamic tensor-wise recipe
 * (torchtitan config_manager.py float8 scaling_type_* 'dynamic' at 9dec370;
 * recipe_name None = tensorwise at e7c0cae) is plateau's fp8-tensorwise;
 * a row whose precision says rowwise (--float8.recipe_name rowwise:
 * torchao Float8LinearConfig.from_recipe_name ROWWISE) is fp8-rowwise. */
bool validate_torchtitan_layout(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row) {
  struct tt_machine mc;
  if (!tt_machine(in, &mc))
    return validate_skip(row, "GPU memory / bandwidth / power limit: not a positive number");
  if (l->dtype == PL_DTYPE_FP8) {
    bool rowwise = strstr(cell(in, "precision"), "rowwise") != NULL;
    l->fp8_recipe = rowwise ? PL_FP8_RECIPE_ROWWISE : PL_FP8_RECIPE_TENSORWISE;
  }
  if (!tt_pipeline_split(in, l, row))
    return false;
  tt_loss(in, l, row);
  if (l->cp > 1)
    validate_note(row, "context parallel: PyTorch context_parallel with the allgather rotater "
                       "(torchtitan preset's cp_allgather)");
  return true;
}

/* ------------------------------------------------------------ overrides */

/* The row's departures from the torchtitan preset:
 *  - torch.compile (training.compile): every TransformerBlock compiled
 *    (parallelize_llama.py apply_compile, 9dec370): Inductor fuses the
 *    element-wise ops, as plateau's fused kernels; its RMSNorm
 *    (models/norms.py RMSNorm @ 9dec370: x.float() * rsqrt(mean(x^2) + eps),
 *    cast, * weight) is an Inductor-generated reduction, priced at the GPU
 *    file's published rate for it (layout.inductor_norms, compile29).
 *  - Async TP (experimental.enable_async_tensor_parallel): Inductor's
 *    micro-pipelined TP (torch._inductor.config._micro_pipeline_tp, same
 *    file apply_tp): layout.async_tp, each fused collective beside its
 *    partner GEMM only (src/sim/lower_unit.c atp_windows; not TE userbuffers'
 *    tp_comm_overlap).
 *  - Float8 all-gather (float8.enable_fsdp_float8_all_gather) as stated.
 *  - The output layer stays bf16 under Float8 in every version these rows
 *    ran: float8.py convert_to_float8_training module_filter_fn
 *    fqn != "output" (3faaa1a0d, 9dec370), filter_fqns = ["output"] in the
 *    llama3 train_configs (820504e, e7c0cae).
 *  - norm_type (the row's train_configs toml, column norm_type):
 *    "fused_rmsnorm" is torchtitan's Triton FusedRMSNorm (torchtitan/models/
 *    norms.py, PR 181 2024-04-05, removed by 37c4b8181 2025-02-06; set by
 *    llama3_8b.toml and llama2_13b.toml @ 1ea476e9f): layout.fused_norm.
 *    "rmsnorm" (or empty) keeps the preset's eager RMSNorm; anything else is
 *    not a norm plateau prices (torchtitan's layernorm / np_layernorm are
 *    LayerNorms on a Llama model) and the row is refused.
 *  - The rows of docs/performance.md @ 1ea476e9f (2024-04, 64 A100) ran the
 *    PyTorch nightly its README names (torch-2.4.0.dev20240412), whose FSDP2
 *    copied the reduce_scatter input in on the reduce-scatter stream until
 *    pytorch/pytorch #129721 (2024-06-27): the torchtitan-2024-04 preset
 *    (data/frameworks/torchtitan-2024-04.json). */
bool validate_torchtitan_overrides(const struct validate_in *in, struct pl_framework *fw,
                                   struct pl_vrow *row) {
  if (strstr(cell(in, "source_ref"), "1ea476e9f") != NULL &&
      !validate_row_preset("torchtitan-2024-04", fw, row))
    return false;
  const char *norm = cell(in, "norm_type");
  if (strcmp(norm, "fused_rmsnorm") == 0)
    fw->fused_norm = PL_SETTING_ON;
  else if (norm[0] != '\0' && strcmp(norm, "rmsnorm") != 0)
    return validate_skip(row, "norm_type '%s' is not rmsnorm or fused_rmsnorm", norm);
  if (yes(in, "torch.compile")) {
    fw->fused_kernels = PL_SETTING_ON;
    fw->inductor_norms = PL_SETTING_ON;
  }
  if (yes(in, "Async TP"))
    fw->async_tp = PL_SETTING_ON;
  if (yes(in, "Float8 all-gather"))
    fw->fp8_all_gather = PL_SETTING_ON;
  if (strstr(cell(in, "precision"), "FP8") != NULL)
    fw->head_16bit = PL_SETTING_ON;
  if (tt_loss_compiled(in))
    fw->eager_xent = PL_SETTING_OFF;
  /* The optimizer as the row's torchtitan built it: torchtitan 9dec370
   * (2024-12-26) torchtitan/optimizer.py build_optimizers passes
   * fused = job_config.optimizer.fused (config_manager.py: --optimizer.fused,
   * store_true, off) and foreach = not fused: torch's foreach AdamW. The
   * preset's fused default (optimizer.implementation "fused") came with
   * 6e4988550 (2025-02-24), before 820504e and e7c0cae (2025-06). Under
   * --kernels fused the simulator prices the fused step either way. */
  if (strstr(cell(in, "source_ref"), "torchtitan 9dec370") != NULL)
    fw->optimizer_fused = PL_SETTING_OFF;
  return true;
}

/* ------------------------------------------------------------- hardware */

/* The machine the row names: HBM size and bandwidth, and the board power
 * limit (pl_gpu_set_power_cap: the SM clock the cap allows, docs/hardware.md
 * "Power cap"). The numbers are checked in validate_torchtitan_layout; a
 * limit outside the GPU's range (idle, TDP] skips the row. */
void validate_torchtitan_hardware(const struct validate_in *in, const struct pl_layout *l,
                                  struct pl_cluster *c, struct pl_vrow *row) {
  (void)l;
  struct tt_machine mc;
  if (!tt_machine(in, &mc))
    return;
  if (mc.mem_bytes > 0)
    c->gpu.hbm_bytes = mc.mem_bytes;
  if (mc.bw_bytes_per_s > 0)
    c->gpu.hbm_bytes_per_s = mc.bw_bytes_per_s;
  if (mc.power_w > 0) {
    struct pl_diag d;
    pl_diag_clear(&d);
    if (pl_gpu_set_power_cap(&c->gpu, mc.power_w, &d) != PL_OK) {
      validate_skip(row, "column 'GPU power limit': %s", d.msg);
      return;
    }
    validate_note(row, "board power limit %.0f W (the row's machine)", mc.power_w);
  }
  if (mc.mem_bytes > 0 || mc.bw_bytes_per_s > 0)
    validate_note(row, "HBM %.0f GiB at %.2f TB/s (the row's machine)",
                  c->gpu.hbm_bytes / 1073741824.0, c->gpu.hbm_bytes_per_s / 1e12);
}

/* -------------------------------------------------------------- measure */

/* torchtitan logs tokens per second per GPU: the tokens of the local batch
 * over the logging window, divided by the non-data-parallel size
 * (train.py: tps = ntokens_since_last_log / (time_delta *
 * non_data_parallel_size), 9dec370; wps = ... / (time_delta *
 * model_parallel_size), 1ea476e9f), so step = global batch tokens /
 * (rate x GPUs). The pages call it TPS/GPU, WPS or tokens/sec. */
bool validate_torchtitan_measure(const struct validate_in *in, const struct pl_run *run,
                                 struct pl_vrow *row) {
  static const char *const cols[] = {"TPS/GPU", "WPS", "tokens/sec"};
  for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
    const char *v = cell(in, cols[i]);
    bool present = false;
    double rate = 0;
    if (!lead_number(v, &rate, &present))
      return validate_skip(row, "column '%s': '%s' is not a positive number", cols[i], v);
    if (!present)
      continue;
    row->published = rate;
    row->measured = (double)run->layout.gbs * (double)run->model.seq_len /
                    (rate * (double)run->layout.gpus);
    row->published_rate = true; /* step = X / the published rate */
    snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / (rate x GPUs)",
             cols[i]);
    return true;
  }
  return validate_skip(row, "no tokens-per-second figure (TPS/GPU, WPS, tokens/sec)");
}

/* --------------------------------------------------------------- memory */

/* Memory(GiB) as torchtitan prints it: train.py logs
 * device_memory_monitor.get_peak_stats().max_reserved_gib at each log step,
 * i.e. torch.cuda.memory_stats()["reserved_bytes.all.peak"] / 2^30, the
 * caching allocator's peak reserved segments since the last log step
 * (reset_peak_stats after each log; torchtitan/metrics.py
 * DeviceMemoryMonitor.get_peak_stats and train.py @ 9dec370; the same in
 * torchtitan/components/metrics.py at the 2025 pages' commits). Reserved
 * includes the allocator's cached, fragmented blocks and cuBLAS workspaces;
 * it excludes the CUDA context and NCCL's own buffers (not allocated through
 * PyTorch's allocator). */
bool validate_torchtitan_memory(const struct validate_in *in, struct pl_vrow *row) {
  const char *col = "Memory(GiB)", *v = cell(in, col);
  bool present = false;
  double gib = 0;
  if (!lead_number(v, &gib, &present))
    return validate_skip(row, "column '%s': '%s' is not a positive number", col, v);
  if (!present)
    return validate_skip(row, "no published memory figure (column '%s' empty)", col);
  row->published = gib;
  row->measured = gib * 1073741824.0;
  snprintf(row->metric, sizeof row->metric,
           "%s: torch.cuda peak reserved bytes (torchtitan DeviceMemoryMonitor max_reserved_gib); "
           "no CUDA context or NCCL buffers", col);
  return true;
}
