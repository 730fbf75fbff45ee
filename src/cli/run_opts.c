/* run_opts.c: turn the shared run options into a struct pl_run. */
#include "run_opts.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/units.h>

/* --power-cap W: watts, with or without the unit ("500", "500 W"). */
static int load_power_cap(const struct cli_args *args, struct pl_gpu *g) {
  const char *v = cli_get(args, "power-cap");
  if (v == NULL)
    return 0;
  struct pl_diag d;
  pl_diag_clear(&d);
  double w = 0;
  if (pl_unit_parse(v, PL_UNIT_WATTS, &w, NULL) != PL_OK && pl_double_parse(v, &w, NULL) != PL_OK)
    return cli_fail("--power-cap: '%s' is not a power (expected watts, e.g. 500 or '500 W')", v);
  if (pl_gpu_set_power_cap(g, w, &d) != PL_OK)
    return cli_fail("--power-cap: %s", d.msg);
  return 0;
}

static int load_hardware(const struct cli_args *args, struct pl_run *run) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *gpu = cli_get(args, "gpu");
  const char *cluster = cli_get(args, "cluster");
  if (cluster == NULL) {
    const char *g = gpu ? gpu : "h100";
    cluster = pl_cluster_default_for_gpu(g);
    struct pl_gpu named; /* a GPU file (e.g. from calibrate compute): its "name" picks the system */
    if (cluster == NULL && pl_gpu_load(g, &named, &d) == PL_OK)
      cluster = pl_cluster_default_for_gpu(named.name);
    else if (cluster == NULL) /* not a GPU at all: say so, with the nearest presets */
      return cli_fail("--gpu: %s", d.msg);
    if (cluster == NULL)
      return cli_fail("--gpu '%s': no default cluster for this GPU; give --cluster", g);
  }
  if (pl_cluster_load(cluster, &run->cluster, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (gpu != NULL && strcmp(gpu, run->cluster.gpu_name) != 0) {
    /* A cluster built from another GPU: keep its fabric, swap the GPU. */
    if (pl_gpu_load(gpu, &run->cluster.gpu, &d) != PL_OK)
      return cli_fail("%s", d.msg);
  }
  return load_power_cap(args, &run->cluster.gpu);
}

static int load_ints(const struct cli_args *args, struct pl_layout *l) {
  struct {
    const char *name;
    int64_t *field;
  } ints[] = {
      {"gpus", &l->gpus}, {"nodes", &l->nodes}, {"tp", &l->tp},   {"pp", &l->pp},
      {"cp", &l->cp},     {"vp", &l->vp},       {"shard-group", &l->shard_group},
      {"seq", &l->seq},   {"mbs", &l->mbs},     {"gbs", &l->gbs}, {"batch-per-gpu", &l->batch_per_gpu},
      {"ep", &l->ep},     {"etp", &l->etp},
      {"first-stage-layers", &l->first_stage_layers},
      {"last-stage-layers", &l->last_stage_layers},
      {"recompute-layers", &l->recompute_layers},
      {"recompute-every", &l->recompute_every},
      {"act-offload-layers", &l->act_offload_layers},
      {"mtp-layers", &l->mtp_layers},
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    if (cli_get_int(args, ints[i].name, ints[i].field) != 0)
      return 1;
  const char *pipe = cli_get(args, "pipeline-layout");
  if (pipe != NULL && (pipe[0] == '\0' || strlen(pipe) >= sizeof l->pipeline_layout))
    return cli_fail("--pipeline-layout: '%s' must be 1 to %d characters", pipe,
                    (int)sizeof l->pipeline_layout - 1);
  if (pipe != NULL)
    memcpy(l->pipeline_layout, pipe, strlen(pipe) + 1);
  if (l->gpus > 0 && l->nodes > 0)
    return cli_fail("give --gpus or --nodes, not both");
  if (l->gbs > 0 && l->batch_per_gpu > 0)
    return cli_fail("give --gbs or --batch-per-gpu, not both");
  if (cli_get_double(args, "moe-imbalance", &l->moe_imbalance) != 0)
    return 1;
  if (cli_get(args, "moe-imbalance") != NULL && !(l->moe_imbalance >= 1.0))
    return cli_fail("--moe-imbalance: must be at least 1 (balanced), not '%s'",
                    cli_get(args, "moe-imbalance"));
  return 0;
}

/* An option taking one of two words: 1 with *second set when given, 0 when
 * absent, -1 (after printing why) for any other word. what names the value
 * in the message ("unknown kernels 'x'"). */
static int two_way(const struct cli_args *args, const char *name, const char *what,
                   const char *first, const char *second, bool *is_second) {
  const char *v = cli_get(args, name);
  if (v == NULL)
    return 0;
  if (strcmp(v, first) != 0 && strcmp(v, second) != 0) {
    cli_fail("--%s: unknown %s '%s' (expected %s|%s)", name, what, v, first, second);
    return -1;
  }
  *is_second = strcmp(v, second) == 0;
  return 1;
}

/* A two-word behaviour flag onto a framework setting: the second word means
 * on when second_on, else off. */
static int setting_flag(const struct cli_args *args, const char *name, const char *what,
                        const char *first, const char *second, bool second_on,
                        enum pl_setting *out) {
  bool is_second;
  int given = two_way(args, name, what, first, second, &is_second);
  if (given > 0)
    *out = is_second == second_on ? PL_SETTING_ON : PL_SETTING_OFF;
  return given < 0 ? 1 : 0;
}

/* A count flag, 0..max (0 is a value: none, over a preset's, so not
 * cli_get_int): sets *out and *set when given. */
static int count_flag(const struct cli_args *args, const char *name, const char *noun,
                      long long max, int64_t *out, bool *set) {
  const char *v = cli_get(args, name);
  if (v == NULL)
    return 0;
  char *end = NULL;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (end == v || *end != '\0' || errno != 0 || n < 0 || n > max)
    return cli_fail("--%s: '%s' is not %s 0..%lld", name, v, noun, max);
  *out = n;
  *set = true;
  return 0;
}

/* A host-time behaviour flag, 0 to 1 ms ("37 us"): sets *out_s and *set when given. */
static int time_flag(const struct cli_args *args, const char *name, const char *example,
                     double *out_s, bool *set) {
  const char *v = cli_get(args, name);
  if (v == NULL)
    return 0;
  double t = -1;
  if (pl_unit_parse(v, PL_UNIT_SECONDS, &t, NULL) != PL_OK || !(t >= 0) || t > 1e-3)
    return cli_fail("--%s: '%s' is not a time from 0 to 1 ms (e.g. '%s')", name, v, example);
  *out_s = t;
  *set = true;
  return 0;
}

/* Every behaviour flag overrides the framework preset's value. */
static int load_behaviours(const struct cli_args *args, struct pl_framework *fw) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *v;
  if ((v = cli_get(args, "framework")) != NULL && pl_framework_load(v, fw, &d) != PL_OK)
    return cli_fail("--framework: %s", d.msg);
  if ((v = cli_get(args, "attention")) != NULL && pl_attention_parse(v, &fw->attention, &d) != PL_OK)
    return cli_fail("--attention: %s", d.msg);
  static const struct {
    const char *name, *what, *first, *second;
    bool second_on;
    size_t field;
  } flags[] = {
#define FW_FIELD(f) offsetof(struct pl_framework, f)
      {"kernels", "kernels", "fused", "unfused", false, FW_FIELD(fused_kernels)},
      {"fsdp-comm", "value", "one", "separate", true, FW_FIELD(fsdp_separate_comms)},
      {"fsdp-prefetch", "value", "on", "off", false, FW_FIELD(fsdp_prefetch)},
      {"sequence-parallel", "value", "on", "off", false, FW_FIELD(sequence_parallel)},
      {"tp-comm-overlap", "value", "on", "off", false, FW_FIELD(tp_comm_overlap)},
      {"overlap-grad-reduce", "value", "on", "off", false, FW_FIELD(overlap_grad_reduce)},
      {"overlap-param-gather", "value", "on", "off", false, FW_FIELD(overlap_param_gather)},
      {"overlap-p2p", "value", "on", "off", false, FW_FIELD(overlap_p2p)},
      {"p2p-serial", "value", "on", "off", false, FW_FIELD(p2p_serial)},
      {"p2p-scatter-gather", "value", "on", "off", false, FW_FIELD(p2p_scatter_gather)},
      {"shard-grads-reduce-dtype", "value", "on", "off", false,
       FW_FIELD(shard_grads_reduce_dtype)},
      {"grad-reduce-dtype", "dtype", "fp32", "bf16", false, FW_FIELD(grad_reduce_fp32)},
      {"zero1-grad-reduce", "op", "reduce-scatter", "all-reduce", true,
       FW_FIELD(zero1_grad_all_reduce)},
      {"grad-accum", "mode", "in-place", "fp32-copy", true, FW_FIELD(grad_accum_fp32_copy)},
      {"fp8-weight-cache", "value", "on", "off", false, FW_FIELD(fp8_weight_cache)},
      {"fsdp-pp-unsharded", "value", "on", "off", false, FW_FIELD(fsdp_pp_unsharded)},
      {"head-16bit", "value", "on", "off", false, FW_FIELD(head_16bit)},
      {"te-cross-entropy", "value", "on", "off", false, FW_FIELD(te_cross_entropy)},
      {"megatron-xent", "value", "on", "off", false, FW_FIELD(megatron_xent)},
      {"fsdp-block-units", "value", "on", "off", false, FW_FIELD(fsdp_block_units)},
      {"adam-moments-dtype", "dtype", "bf16", "fp32", false, FW_FIELD(adam_moments_bf16)},
      {"te-linear-bwd-overlap", "value", "on", "off", false, FW_FIELD(te_linear_bwd_overlap)},
      {"moe-host-sync", "value", "on", "off", false, FW_FIELD(moe_host_sync)},
      {"launch-blocking", "value", "on", "off", false, FW_FIELD(launch_blocking)},
      {"ep-comm-overlap", "value", "on", "off", false, FW_FIELD(ep_comm_overlap)},
      {"zero3-grad-reduce", "op", "reduce-scatter", "all-reduce", true,
       FW_FIELD(zero3_grad_all_reduce)},
      {"fp8-all-gather", "value", "on", "off", false, FW_FIELD(fp8_all_gather)},
      {"zero3-reuse", "value", "on", "off", false, FW_FIELD(zero3_reuse)},
      {"zero3-debug-norm", "value", "on", "off", false, FW_FIELD(zero3_debug_norm)},
      {"cudnn-2024", "value", "on", "off", false, FW_FIELD(cudnn_2024)},
      {"cudnn-913", "value", "on", "off", false, FW_FIELD(cudnn_913)},
      {"fp8-attention", "value", "on", "off", false, FW_FIELD(fp8_attention)},
      {"nvfp4-rht-unfused", "value", "on", "off", false, FW_FIELD(nvfp4_rht_unfused)},
      {"fused-grouped-mlp", "value", "on", "off", false, FW_FIELD(fused_grouped_mlp)},
      {"tp-seq-copies", "value", "on", "off", false, FW_FIELD(tp_seq_copies)},
      {"cp-allgather", "value", "on", "off", false, FW_FIELD(cp_allgather)},
      {"async-tp", "value", "on", "off", false, FW_FIELD(async_tp)},
      {"grad-accum-fusion", "value", "on", "off", false, FW_FIELD(grad_accum_fusion)},
#undef FW_FIELD
  };
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
    enum pl_setting *field = (enum pl_setting *)((char *)fw + flags[i].field);
    if (setting_flag(args, flags[i].name, flags[i].what, flags[i].first, flags[i].second,
                     flags[i].second_on, field) != 0)
      return 1;
  }
  if ((v = cli_get(args, "cudnn")) != NULL) {
    if (pl_cudnn_version_parse(v, &fw->cudnn_version, &d) != PL_OK)
      return cli_fail("--cudnn: %s", d.msg);
    fw->cudnn_version_set = true;
  } else if (cli_get(args, "cudnn-2024") != NULL || cli_get(args, "cudnn-913") != NULL) {
    fw->cudnn_version_set = false; /* the alias flag overrides a preset's version */
  }
  int64_t passes = -1;
  if (cli_get_int(args, "logit-metric-passes", &passes) != 0)
    return 1;
  if (cli_get(args, "logit-metric-passes") != NULL && (passes < 0 || passes > 16))
    return cli_fail("--logit-metric-passes: %lld is out of range (expected 0..16)",
                    (long long)passes);
  if (passes >= 0) {
    fw->logit_metric_passes = passes;
    fw->logit_metric_passes_set = true;
  }
  if (count_flag(args, "cudnn-cluster-margin", "a cluster count", 64, &fw->cudnn_cluster_margin,
                 &fw->cudnn_cluster_margin_set) != 0 ||
      count_flag(args, "ub-proj-fprop-sms", "an SM count", 255, &fw->ub_proj_fprop_sms,
                 &fw->ub_proj_fprop_sms_set) != 0 ||
      count_flag(args, "ub-fc2-fprop-sms", "an SM count", 255, &fw->ub_fc2_fprop_sms,
                 &fw->ub_fc2_fprop_sms_set) != 0)
    return 1;
  if (time_flag(args, "host-per-kernel", "37 us", &fw->host_per_kernel_s,
                &fw->host_per_kernel_set) != 0 ||
      time_flag(args, "host-per-gemm", "48 us", &fw->host_per_gemm_s, &fw->host_per_gemm_set) != 0 ||
      time_flag(args, "host-per-launch", "7.3 us", &fw->host_per_launch_s,
                &fw->host_per_launch_set) != 0 ||
      time_flag(args, "zero3-list-copy", "22.64 us", &fw->zero3_list_copy_s,
                &fw->zero3_list_copy_set) != 0)
    return 1;
  if ((v = cli_get(args, "bucket-mb")) != NULL) {
    char *end = NULL;
    double mb = strcmp(v, "megatron") == 0 ? 0 : strtod(v, &end);
    if (strcmp(v, "megatron") == 0) {
      fw->bucket_dp_scaled = true;
      fw->bucket_mb = 0;
    } else if (end == v || *end != '\0' || !(mb > 0) || mb > 1e5) {
      return cli_fail("--bucket-mb: '%s' is not a size in MiB above 0 and up to 100000, or 'megatron'",
                      v);
    } else {
      fw->bucket_mb = mb;
      fw->bucket_dp_scaled = false;
    }
  }
  return 0;
}

static int load_modes(const struct cli_args *args, struct pl_layout *l) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *v;
  if ((v = cli_get(args, "shard")) != NULL) {
    if (pl_shard_parse(v, &l->shard, &d) != PL_OK)
      return cli_fail("--shard: %s", d.msg);
    l->shard_set = true;
  }
  if ((v = cli_get(args, "recompute")) != NULL && pl_recompute_parse(v, &l->recompute, &d) != PL_OK)
    return cli_fail("--recompute: %s", d.msg);
  /* --recompute-modules LIST: Megatron-Core --recompute-modules, read with
   * --recompute-granularity selective; selective when --recompute is not given */
  if ((v = cli_get(args, "recompute-modules")) != NULL) {
    if (pl_recompute_modules_parse(v, &l->recompute_modules, &d) != PL_OK)
      return cli_fail("--recompute-modules: %s", d.msg);
    if (cli_get(args, "recompute") == NULL)
      l->recompute = PL_RECOMPUTE_SELECTIVE;
    else if (l->recompute != PL_RECOMPUTE_SELECTIVE)
      return cli_fail("--recompute-modules: needs --recompute selective (Megatron-Core reads "
                      "recompute_modules with selective granularity only), not %s",
                      pl_recompute_name(l->recompute));
  }
  /* --offload-modules LIST: Megatron-Core --fine-grained-activation-offloading
   * --offload-modules (layout.h enum pl_offload_module) */
  if ((v = cli_get(args, "offload-modules")) != NULL &&
      pl_offload_modules_parse(v, &l->offload_modules, &d) != PL_OK)
    return cli_fail("--offload-modules: %s", d.msg);
  /* --cuda-graph-scope LIST: Megatron-Core cuda_graph_scope (layout.h enum
   * pl_cuda_graph_scope): the ops it captures cost the host nothing per kernel */
  if ((v = cli_get(args, "cuda-graph-scope")) != NULL &&
      pl_cuda_graph_scopes_parse(v, &l->cuda_graph_scopes, &d) != PL_OK)
    return cli_fail("--cuda-graph-scope: %s", d.msg);
  bool uniform = false;
  int method = two_way(args, "recompute-method", "method", "block", "uniform", &uniform);
  if (method < 0)
    return 1;
  if (method > 0 && l->recompute != PL_RECOMPUTE_FULL)
    return cli_fail("--recompute-method: needs --recompute full (Megatron applies it to the "
                    "full granularity only)");
  l->recompute_uniform = uniform;
  bool account = false; /* --account-embed-loss: Megatron-Core's pipeline split flags */
  int given = two_way(args, "account-embed-loss", "value", "off", "on", &account);
  if (given < 0)
    return 1;
  if (given > 0)
    l->account_embed_loss = account;
  if ((v = cli_get(args, "schedule")) != NULL && pl_schedule_parse(v, &l->schedule, &d) != PL_OK)
    return cli_fail("--schedule: %s", d.msg);
  if ((v = cli_get(args, "dtype")) != NULL && pl_layout_dtype_parse(v, l, &d) != PL_OK)
    return cli_fail("--dtype: %s", d.msg);
  if ((v = cli_get(args, "moe-dispatch")) != NULL &&
      pl_moe_dispatch_parse(v, &l->dispatch, &d) != PL_OK)
    return cli_fail("--moe-dispatch: %s", d.msg);
  return 0;
}

/* --tokens, --gpu-hour-price, --energy-price (absent from a command's table: unset). */
static int load_train(const struct cli_args *args, struct pl_train_opts *t) {
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *v = cli_get(args, "tokens");
  if (v != NULL && pl_count_parse(v, &t->tokens, &d) != PL_OK)
    return cli_fail("--tokens: %s", d.msg);
  const char *price[2] = {"gpu-hour-price", "energy-price"};
  double *field[2] = {&t->gpu_hour_usd, &t->kwh_usd};
  for (int i = 0; i < 2; i++) {
    if (cli_get_double(args, price[i], field[i]) != 0)
      return 1;
    if (cli_get(args, price[i]) != NULL && !(*field[i] > 0))
      return cli_fail("--%s: %s is not a positive price", price[i], cli_get(args, price[i]));
  }
  return 0;
}

int run_from_args(const struct cli_args *args, struct pl_run *run) {
  memset(run, 0, sizeof *run);
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *model = cli_get(args, "model");
  if (pl_model_load(model ? model : "llama2-7b", &run->model, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  if (load_hardware(args, run) != 0 || load_ints(args, &run->layout) != 0 ||
      load_train(args, &run->train) != 0)
    return 1;
  if (load_modes(args, &run->layout) != 0 || load_behaviours(args, &run->framework) != 0)
    return 1;
  pl_framework_apply(&run->framework, &run->layout);
  return 0;
}

int run_opts_search_refused(const struct cli_args *args) {
  static const char *const refused[] = {"first-stage-layers", "last-stage-layers",
                                        "pipeline-layout",
                                        "recompute-layers", "recompute-every",
                                        "recompute-method", "recompute-modules",
                                        "act-offload-layers"};
  for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
    if (cli_get(args, refused[i]) != NULL)
      return cli_fail("--%s: a layout search does not take it (it enumerates pp and "
                      "recompute itself); use plateau predict or sweep --layout given", refused[i]);
  return 0;
}
