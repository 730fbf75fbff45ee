/* framework_flags.c: the framework behaviours as predict flags, one table
 * (include/plateau/run_flags.h). The CLI reads a run's flags through it
 * (src/cli/run_opts.c) and validate writes a row's resolved framework back
 * through it (src/validate/command.c), so the two cannot drift. Each row:
 * the flag, the struct pl_framework field it sets, how its value is read. */
#include <plateau/data.h>
#include <plateau/run_flags.h>
#include <plateau/units.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flag_text.h"

enum kind {
  K_PRESET,    /* --framework: a preset or file, read first */
  K_ATTENTION, /* --attention flash|cudnn|te|triton|eager */
  K_WORDS,     /* an enum pl_setting by one of two words */
  K_COUNT,     /* an int64_t 0..max with its bool "given" */
  K_TIME,      /* a host time 0..1 ms ("37 us") with its bool "given" */
  K_CUDNN,     /* --cudnn VERSION|latest (wins over the two aliases) */
  K_BUCKET,    /* --bucket-mb MiB|megatron */
  K_BUCKET_PARAMS, /* --bucket-params N (parameters; not with --bucket-mb) */
};

struct flag {
  const char *name;
  enum kind kind;
  size_t off;     /* the field */
  size_t set_off; /* K_COUNT, K_TIME: the field's bool "given" */
  const char *a;  /* K_WORDS: the first word; K_COUNT: the noun; K_TIME: an example */
  const char *b;  /* K_WORDS: the second word */
  const char *what; /* K_WORDS: the value's noun in the error ("unknown kernels 'x'") */
  bool second_on; /* K_WORDS: the second word means on */
  int64_t max;    /* K_COUNT */
  bool quiet;     /* not written by pl_framework_flags_format (aliases of --cudnn) */
};

#define FW(f) offsetof(struct pl_framework, f)
#define ONOFF(name, f) {name, K_WORDS, FW(f), 0, "on", "off", "value", false, 0, false}
#define WORDS(name, f, what, a, b, second_on) {name, K_WORDS, FW(f), 0, a, b, what, second_on, 0, false}
#define COUNT(name, f, set, noun, max) {name, K_COUNT, FW(f), FW(set), noun, NULL, NULL, false, max, false}
#define TIME(name, f, set, example) {name, K_TIME, FW(f), FW(set), example, NULL, NULL, false, 0, false}

/* In the order of predict's --help (src/cli/run_opts.h RUN_OPTS). */
static const struct flag flags[] = {
    {"framework", K_PRESET, 0, 0, NULL, NULL, NULL, false, 0, false},
    {"attention", K_ATTENTION, FW(attention), 0, NULL, NULL, NULL, false, 0, false},
    WORDS("kernels", fused_kernels, "kernels", "fused", "unfused", false),
    WORDS("fsdp-comm", fsdp_separate_comms, "value", "one", "separate", true),
    ONOFF("fsdp-prefetch", fsdp_prefetch),
    ONOFF("ep-comm-overlap", ep_comm_overlap),
    WORDS("optimizer-impl", optimizer_fused, "implementation", "fused", "foreach", false),
    ONOFF("grad-clip", grad_clip),
    ONOFF("autocast-weight-casts", autocast_weight_casts),
    ONOFF("optimizer-torch", optimizer_torch),
    WORDS("optimizer", optimizer_sgd, "optimizer", PL_OPTIMIZER_ADAMW, PL_OPTIMIZER_SGD, true),
    ONOFF("delay-wgrad", delay_wgrad),
    ONOFF("sequence-parallel", sequence_parallel),
    ONOFF("tp-comm-overlap", tp_comm_overlap),
    ONOFF("overlap-grad-reduce", overlap_grad_reduce),
    ONOFF("overlap-param-gather", overlap_param_gather),
    ONOFF("overlap-p2p", overlap_p2p),
    ONOFF("p2p-serial", p2p_serial),
    ONOFF("p2p-scatter-gather", p2p_scatter_gather),
    ONOFF("shard-grads-reduce-dtype", shard_grads_reduce_dtype),
    WORDS("grad-reduce-dtype", grad_reduce_fp32, "dtype", "fp32", "bf16", false),
    ONOFF("grad-comm-cast", grad_comm_cast),
    WORDS("zero1-grad-reduce", zero1_grad_all_reduce, "op", "reduce-scatter", "all-reduce", true),
    WORDS("grad-accum", grad_accum_fp32_copy, "mode", "in-place", "fp32-copy", true),
    COUNT("logit-metric-passes", logit_metric_passes, logit_metric_passes_set, NULL, 16),
    ONOFF("fp8-weight-cache", fp8_weight_cache),
    ONOFF("fsdp-pp-unsharded", fsdp_pp_unsharded),
    ONOFF("head-16bit", head_16bit),
    ONOFF("te-linear-bwd-overlap", te_linear_bwd_overlap),
    ONOFF("align-grad-reduce", align_grad_reduce),
    ONOFF("overlap-param-gather-with-optimizer-step", pg_with_opt_step),
    ONOFF("moe-host-sync", moe_host_sync),
    ONOFF("moe-expert-padding", moe_expert_padding),
    ONOFF("moe-router-fusion", moe_router_fusion),
    ONOFF("jit-fuser", jit_fuser),
    ONOFF("te-cross-entropy", te_cross_entropy),
    ONOFF("megatron-xent", megatron_xent),
    ONOFF("megatron-softmax", megatron_softmax),
    ONOFF("parallel-block", parallel_block),
    ONOFF("gqa-query-copy", gqa_query_copy),
    ONOFF("fms-rope", fms_rope),
    ONOFF("kv-expand-copy", kv_expand_copy),
    ONOFF("separate-linears", separate_linears),
    ONOFF("rope-complex", rope_complex),
    ONOFF("eager-cross-entropy", eager_xent),
    ONOFF("pp-keep-outputs", pp_keep_outputs),
    ONOFF("tp-gathered-saved", tp_gathered_saved),
    ONOFF("fp32-param-shards", fp32_param_shards),
    ONOFF("fsdp1-copies", fsdp1_copies),
    ONOFF("fsdp2-predivide", fsdp2_predivide),
    ONOFF("fsdp2-rs-copy-in", fsdp2_rs_copy_in),
    ONOFF("fused-norm", fused_norm),
    ONOFF("inductor-norms", inductor_norms),
    ONOFF("fsdp-root-unit", fsdp_root_unit),
    ONOFF("hf-shift-copy", hf_shift_copy),
    ONOFF("logits-shift-copy", logits_shift_copy),
    ONOFF("eager-z-loss", eager_z_loss),
    ONOFF("grad-buffer-passes", grad_buffer_passes),
    ONOFF("grad-scale-pass", grad_scale_pass),
    ONOFF("grad-nan-check", grad_nan_check),
    ONOFF("logits-fp32", logits_fp32),
    WORDS("fp8-amax-reduce", fp8_amax_reduce_sync, "mode", "off", "sync-dp-tp", true),
    WORDS("adam-moments-dtype", adam_moments_bf16, "dtype", "bf16", "fp32", false),
    WORDS("adam-master", adam_no_master, "value", "none", "kept", false),
    ONOFF("fsdp-block-units", fsdp_block_units),
    ONOFF("launch-blocking", launch_blocking),
    ONOFF("fp8-all-gather", fp8_all_gather),
    TIME("host-per-kernel", host_per_kernel_s, host_per_kernel_set, "37 us"),
    WORDS("zero3-grad-reduce", zero3_grad_all_reduce, "op", "reduce-scatter", "all-reduce", true),
    ONOFF("zero3-reuse", zero3_reuse),
    ONOFF("zero3-debug-norm", zero3_debug_norm),
    {"cudnn-2024", K_WORDS, FW(cudnn_2024), 0, "on", "off", "value", false, 0, true},
    {"cudnn-913", K_WORDS, FW(cudnn_913), 0, "on", "off", "value", false, 0, true},
    {"cudnn", K_CUDNN, FW(cudnn_version), FW(cudnn_version_set), NULL, NULL, NULL, false, 0, false},
    ONOFF("fp8-attention", fp8_attention),
    ONOFF("nvfp4-rht-unfused", nvfp4_rht_unfused),
    ONOFF("fused-grouped-mlp", fused_grouped_mlp),
    COUNT("cudnn-cluster-margin", cudnn_cluster_margin, cudnn_cluster_margin_set,
          "a cluster count", 64),
    COUNT("ub-proj-fprop-sms", ub_proj_fprop_sms, ub_proj_fprop_sms_set, "an SM count", 255),
    COUNT("ub-fc2-fprop-sms", ub_fc2_fprop_sms, ub_fc2_fprop_sms_set, "an SM count", 255),
    COUNT("hybridep-sms", hybridep_sms, hybridep_sms_set, "an SM count", 255),
    COUNT("nccl-max-ctas-tp", nccl_max_ctas_tp, nccl_max_ctas_tp_set, "a CTA count", 64),
    COUNT("nccl-max-ctas-cp", nccl_max_ctas_cp, nccl_max_ctas_cp_set, "a CTA count", 64),
    COUNT("nccl-max-ctas-dp", nccl_max_ctas_dp, nccl_max_ctas_dp_set, "a CTA count", 64),
    COUNT("nccl-max-ctas-pp", nccl_max_ctas_pp, nccl_max_ctas_pp_set, "a CTA count", 64),
    ONOFF("tp-seq-copies", tp_seq_copies),
    ONOFF("cp-allgather", cp_allgather),
    ONOFF("async-tp", async_tp),
    ONOFF("grad-accum-fusion", grad_accum_fusion),
    TIME("host-per-gemm", host_per_gemm_s, host_per_gemm_set, "48 us"),
    TIME("host-per-launch", host_per_launch_s, host_per_launch_set, "7.3 us"),
    TIME("zero3-list-copy", zero3_list_copy_s, zero3_list_copy_set, "22.64 us"),
    {"bucket-mb", K_BUCKET, FW(bucket_mb), 0, NULL, NULL, NULL, false, 0, false},
    {"bucket-params", K_BUCKET_PARAMS, FW(bucket_params), 0, NULL, NULL, NULL, false, 0, false},
    /* framework files' step_sync_* and opt_syncs_per_tensor (src/model/framework.c
     * read_other: 0..64 and 0..4) */
    COUNT("step-sync-all-reduces", step_sync_all_reduces, step_syncs_set, "a call count", 64),
    COUNT("step-sync-broadcasts", step_sync_broadcasts, step_syncs_set, "a call count", 64),
    COUNT("step-sync-all-gathers", step_sync_all_gathers, step_syncs_set, "a call count", 64),
    COUNT("opt-syncs-per-tensor", opt_syncs_per_tensor, opt_syncs_per_tensor_set,
          "a sync count", 4),
};
#undef FW
#define N_FLAGS (sizeof flags / sizeof flags[0])

const char *pl_framework_flag_name(size_t i) { return i < N_FLAGS ? flags[i].name : NULL; }

/* The word of a two-word flag (K_WORDS) for fw's setting, from the table that
 * parses it: the one home of those words for output too. */
static const char *words_word(const struct flag *f, enum pl_setting s) {
  return s == PL_SETTING_UNSET ? NULL : (s == PL_SETTING_ON) == f->second_on ? f->b : f->a;
}

const char *pl_framework_flag_value(const struct pl_framework *fw, const char *flag) {
  for (size_t i = 0; i < N_FLAGS; i++)
    if (flags[i].kind == K_WORDS && strcmp(flags[i].name, flag) == 0)
      return words_word(&flags[i], *(const enum pl_setting *)((const char *)fw + flags[i].off));
  return NULL;
}

/* ---------------------------------------------------------------- read */

static enum pl_setting *setting_at(struct pl_framework *fw, const struct flag *f) {
  return (enum pl_setting *)((char *)fw + f->off);
}

/* A count 0..max: 0 is a value (none, over a preset's), so not pl_int_parse.
 * --logit-metric-passes keeps its older words for a number out of range. */
static enum pl_status read_count(const struct flag *f, const char *v, struct pl_framework *fw,
                                 struct pl_diag *diag) {
  char *end = NULL;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  bool number = end != v && *end == '\0' && errno == 0;
  if (number && f->a == NULL && (n < 0 || n > f->max))
    return pl_diag_set(diag, PL_ERR_RANGE, "--%s: %lld is out of range (expected 0..%" PRId64 ")",
                       f->name, n, f->max);
  if (!number || n < 0 || n > f->max)
    return pl_diag_set(diag, PL_ERR_PARSE, "--%s: '%s' is not %s 0..%" PRId64, f->name, v,
                       f->a != NULL ? f->a : "a count", f->max);
  *(int64_t *)((char *)fw + f->off) = n;
  *(bool *)((char *)fw + f->set_off) = true;
  return PL_OK;
}

static enum pl_status read_bucket(const char *v, struct pl_framework *fw, struct pl_diag *diag) {
  if (strcmp(v, "megatron") == 0) {
    fw->bucket_dp_scaled = true;
    fw->bucket_mb = 0;
    fw->bucket_params = 0;
    return PL_OK;
  }
  char *end = NULL;
  double mb = strtod(v, &end);
  if (end == v || *end != '\0' || !(mb > 0) || mb > 1e5)
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "--bucket-mb: '%s' is not a size in MiB above 0 and up to 100000, or "
                       "'megatron'",
                       v);
  fw->bucket_mb = mb;
  fw->bucket_dp_scaled = false;
  fw->bucket_params = 0;
  return PL_OK;
}

/* --bucket-params: the bucket in parameters, over a preset's bucket_mb or
 * bucket_params; one of the two bucket flags only */
static enum pl_status read_bucket_params(const char *v, pl_flag_get_fn get, void *ctx,
                                         struct pl_framework *fw, struct pl_diag *diag) {
  if (get(ctx, "bucket-mb") != NULL)
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "--bucket-params: give the bucket by --bucket-mb or --bucket-params, not both");
  char *end = NULL;
  double n = strtod(v, &end);
  if (end == v || *end != '\0' || !pl_bucket_params_ok(n))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "--bucket-params: '%s' is not a whole number of parameters from 1 to 1e12",
                       v);
  fw->bucket_params = n;
  fw->bucket_mb = 0;
  fw->bucket_dp_scaled = false;
  return PL_OK;
}

static enum pl_status read_one(const struct flag *f, const char *v, pl_flag_get_fn get, void *ctx,
                               struct pl_framework *fw, struct pl_diag *diag) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = PL_OK;
  switch (f->kind) {
  case K_PRESET:
    if (v != NULL && (st = pl_framework_load(v, fw, &d)) != PL_OK)
      return pl_diag_set(diag, st, "--framework: %s", d.msg);
    return PL_OK;
  case K_ATTENTION:
    if (v != NULL && (st = pl_attention_parse(v, &fw->attention, &d)) != PL_OK)
      return pl_diag_set(diag, st, "--attention: %s", d.msg);
    return PL_OK;
  case K_CUDNN:
    if (v != NULL) {
      if ((st = pl_cudnn_version_parse(v, &fw->cudnn_version, &d)) != PL_OK)
        return pl_diag_set(diag, st, "--cudnn: %s", d.msg);
      fw->cudnn_version_set = true;
    } else if (get(ctx, "cudnn-2024") != NULL || get(ctx, "cudnn-913") != NULL) {
      fw->cudnn_version_set = false; /* the alias flag overrides a preset's version */
    }
    return PL_OK;
  default:
    break;
  }
  if (v == NULL)
    return PL_OK;
  switch (f->kind) {
  case K_WORDS:
    if (strcmp(v, f->a) != 0 && strcmp(v, f->b) != 0)
      return pl_diag_set(diag, PL_ERR_PARSE, "--%s: unknown %s '%s' (expected %s|%s)", f->name,
                         f->what, v, f->a, f->b);
    *setting_at(fw, f) = (strcmp(v, f->b) == 0) == f->second_on ? PL_SETTING_ON : PL_SETTING_OFF;
    return PL_OK;
  case K_COUNT:
    return read_count(f, v, fw, diag);
  case K_TIME: {
    double t = -1;
    if (pl_unit_parse(v, PL_UNIT_SECONDS, &t, NULL) != PL_OK || !(t >= 0) || t > 1e-3)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "--%s: '%s' is not a time from 0 to 1 ms (e.g. '%s')", f->name, v, f->a);
    *(double *)((char *)fw + f->off) = t;
    *(bool *)((char *)fw + f->set_off) = true;
    return PL_OK;
  }
  case K_BUCKET:
    return read_bucket(v, fw, diag);
  case K_BUCKET_PARAMS:
    return read_bucket_params(v, get, ctx, fw, diag);
  default:
    return PL_OK;
  }
}

enum pl_status pl_framework_flags_read(struct pl_framework *fw, pl_flag_get_fn get, void *ctx,
                                       struct pl_diag *diag) {
  for (size_t i = 0; i < N_FLAGS; i++) {
    enum pl_status st = read_one(&flags[i], get(ctx, flags[i].name), get, ctx, fw, diag);
    if (st != PL_OK)
      return st;
  }
  return PL_OK;
}

/* -------------------------------------------------------------- format */

size_t pl_framework_flags_format(const struct pl_framework *fw, char *out, size_t n) {
  struct flag_text t = {out, n, 0};
  if (n > 0)
    out[0] = '\0';
  for (size_t i = 0; i < N_FLAGS; i++) {
    const struct flag *f = &flags[i];
    if (f->quiet)
      continue;
    const void *p = (const char *)fw + f->off;
    switch (f->kind) {
    case K_PRESET: /* a preset by name; a framework file's name would not load */
      if (fw->name[0] != '\0' && pl_data_find("frameworks", fw->name, NULL) != NULL) {
        flag_text_put(&t, " --framework ");
        flag_text_word(&t, fw->name);
      }
      break;
    case K_ATTENTION:
      if (fw->attention != PL_ATTENTION_UNSET)
        flag_text_put(&t, " --attention %s", pl_attention_name(fw->attention));
      break;
    case K_WORDS: {
      const char *w = words_word(f, *(const enum pl_setting *)p);
      if (w != NULL)
        flag_text_put(&t, " --%s %s", f->name, w);
      break;
    }
    case K_COUNT:
      if (*(const bool *)((const char *)fw + f->set_off))
        flag_text_put(&t, " --%s %" PRId64, f->name, *(const int64_t *)p);
      break;
    case K_TIME:
      if (*(const bool *)((const char *)fw + f->set_off))
      {
        flag_text_put(&t, " --%s ", f->name);
        flag_text_quantity(&t, *(const double *)p, PL_UNIT_SECONDS);
      }
      break;
    case K_CUDNN:
      if (fw->cudnn_version_set) {
        char v[16];
        pl_cudnn_version_str(fw->cudnn_version, v, sizeof v);
        flag_text_put(&t, " --cudnn %s", v);
      }
      break;
    case K_BUCKET: /* a resolved framework's bucket_mb is the bucket_params' size */
      if (fw->bucket_dp_scaled)
        flag_text_put(&t, " --bucket-mb megatron");
      else if (fw->bucket_params <= 0 && fw->bucket_mb > 0)
        flag_text_put(&t, " --bucket-mb %.17g", fw->bucket_mb);
      break;
    case K_BUCKET_PARAMS:
      if (!fw->bucket_dp_scaled && fw->bucket_params > 0)
        flag_text_put(&t, " --bucket-params %.17g", fw->bucket_params);
      break;
    }
  }
  return t.need;
}
