/* framework.c: framework presets (data/frameworks/<name>.json or a file of the
 * same format), and their mapping onto the layout's behaviour fields.
 *
 * File format (docs/frameworks.md): one object with "name", "description",
 * optional "version", optional "base" (a preset whose behaviours it starts
 * from, each of its own replacing the base's) and "behaviours", an object whose keys are the fields
 * of struct pl_framework; each value is bare (true, "flash", 2) or
 * {"value": ..., "source": "repository, file, function, version"}. An
 * unknown behaviour key is an error (a typo would silently change nothing);
 * other top-level keys are ignored so files can carry notes. */
#include <plateau/alloc.h>
#include <plateau/data.h>
#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/units.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <inttypes.h>
#include <string.h>

#include "base/json.h"
#include "model/constants.h"

/* The on/off behaviours, by JSON key and field. */
static const struct {
  const char *key;
  size_t off;
} settings[] = {
    {"sequence_parallel", offsetof(struct pl_framework, sequence_parallel)},
    {"fused_kernels", offsetof(struct pl_framework, fused_kernels)},
    {"tp_comm_overlap", offsetof(struct pl_framework, tp_comm_overlap)},
    {"overlap_grad_reduce", offsetof(struct pl_framework, overlap_grad_reduce)},
    {"overlap_param_gather", offsetof(struct pl_framework, overlap_param_gather)},
    {"overlap_p2p", offsetof(struct pl_framework, overlap_p2p)},
    {"grad_reduce_fp32", offsetof(struct pl_framework, grad_reduce_fp32)},
    {"zero1_grad_all_reduce", offsetof(struct pl_framework, zero1_grad_all_reduce)},
    {"grad_accum_fp32_copy", offsetof(struct pl_framework, grad_accum_fp32_copy)},
    {"fsdp_prefetch", offsetof(struct pl_framework, fsdp_prefetch)},
    {"fsdp_separate_comms", offsetof(struct pl_framework, fsdp_separate_comms)},
    {"p2p_serial", offsetof(struct pl_framework, p2p_serial)},
    {"p2p_scatter_gather", offsetof(struct pl_framework, p2p_scatter_gather)},
    {"shard_grads_reduce_dtype", offsetof(struct pl_framework, shard_grads_reduce_dtype)},
};
#define N_SETTINGS (sizeof settings / sizeof settings[0])

/* On/off behaviours that predict's JSON and CSV report under their own
 * names elsewhere (layout fields), so not in the loop of
 * pl_framework_setting: read the same way as settings[]. */
static const struct {
  const char *key;
  size_t off;
} more_settings[] = {
    {"fp8_weight_cache", offsetof(struct pl_framework, fp8_weight_cache)},
    {"grad_comm_cast", offsetof(struct pl_framework, grad_comm_cast)},
    {"head_16bit", offsetof(struct pl_framework, head_16bit)},
    {"launch_blocking", offsetof(struct pl_framework, launch_blocking)},
    {"ep_comm_overlap", offsetof(struct pl_framework, ep_comm_overlap)},
    {"delay_wgrad_compute", offsetof(struct pl_framework, delay_wgrad)},
    {"optimizer_fused", offsetof(struct pl_framework, optimizer_fused)},
    {"grad_clip", offsetof(struct pl_framework, grad_clip)},
    {"autocast_weight_casts", offsetof(struct pl_framework, autocast_weight_casts)},
    {"optimizer_torch", offsetof(struct pl_framework, optimizer_torch)},
    {"optimizer_sgd", offsetof(struct pl_framework, optimizer_sgd)},
    {"zero3_grad_all_reduce", offsetof(struct pl_framework, zero3_grad_all_reduce)},
    {"fp8_all_gather", offsetof(struct pl_framework, fp8_all_gather)},
    {"zero3_reuse", offsetof(struct pl_framework, zero3_reuse)},
    {"zero3_debug_norm", offsetof(struct pl_framework, zero3_debug_norm)},
    {"cudnn_2024", offsetof(struct pl_framework, cudnn_2024)},
    {"cudnn_913", offsetof(struct pl_framework, cudnn_913)},
    {"fp8_attention", offsetof(struct pl_framework, fp8_attention)},
    {"nvfp4_rht_unfused", offsetof(struct pl_framework, nvfp4_rht_unfused)},
    {"fused_grouped_mlp", offsetof(struct pl_framework, fused_grouped_mlp)},
    {"tp_seq_copies", offsetof(struct pl_framework, tp_seq_copies)},
    {"cp_allgather", offsetof(struct pl_framework, cp_allgather)},
    {"async_tp", offsetof(struct pl_framework, async_tp)},
    {"grad_accum_fusion", offsetof(struct pl_framework, grad_accum_fusion)},
    {"te_cross_entropy", offsetof(struct pl_framework, te_cross_entropy)},
    {"megatron_xent", offsetof(struct pl_framework, megatron_xent)},
    {"megatron_softmax", offsetof(struct pl_framework, megatron_softmax)},
    {"parallel_block", offsetof(struct pl_framework, parallel_block)},
    {"gqa_query_copy", offsetof(struct pl_framework, gqa_query_copy)},
    {"fms_rope", offsetof(struct pl_framework, fms_rope)},
    {"kv_expand_copy", offsetof(struct pl_framework, kv_expand_copy)},
    {"separate_linears", offsetof(struct pl_framework, separate_linears)},
    {"rope_complex", offsetof(struct pl_framework, rope_complex)},
    {"fsdp_block_units", offsetof(struct pl_framework, fsdp_block_units)},
    {"adam_moments_bf16", offsetof(struct pl_framework, adam_moments_bf16)},
    {"te_linear_bwd_overlap", offsetof(struct pl_framework, te_linear_bwd_overlap)},
    {"align_grad_reduce", offsetof(struct pl_framework, align_grad_reduce)},
    {"overlap_param_gather_with_optimizer_step", offsetof(struct pl_framework, pg_with_opt_step)},
    {"moe_host_sync", offsetof(struct pl_framework, moe_host_sync)},
    {"moe_expert_padding", offsetof(struct pl_framework, moe_expert_padding)},
    {"moe_router_fusion", offsetof(struct pl_framework, moe_router_fusion)},
    {"jit_fuser", offsetof(struct pl_framework, jit_fuser)},
    {"fsdp_pp_unsharded", offsetof(struct pl_framework, fsdp_pp_unsharded)},
    {"eager_xent", offsetof(struct pl_framework, eager_xent)},
    {"pp_keep_outputs", offsetof(struct pl_framework, pp_keep_outputs)},
    {"tp_gathered_saved", offsetof(struct pl_framework, tp_gathered_saved)},
    {"fp32_param_shards", offsetof(struct pl_framework, fp32_param_shards)},
    {"adam_no_master", offsetof(struct pl_framework, adam_no_master)},
    {"fsdp1_copies", offsetof(struct pl_framework, fsdp1_copies)},
    {"fsdp2_predivide", offsetof(struct pl_framework, fsdp2_predivide)},
    {"fsdp2_rs_copy_in", offsetof(struct pl_framework, fsdp2_rs_copy_in)},
    {"fused_norm", offsetof(struct pl_framework, fused_norm)},
    {"inductor_norms", offsetof(struct pl_framework, inductor_norms)},
    {"fsdp_root_unit", offsetof(struct pl_framework, fsdp_root_unit)},
    {"hf_shift_copy", offsetof(struct pl_framework, hf_shift_copy)},
    {"logits_shift_copy", offsetof(struct pl_framework, logits_shift_copy)},
    {"eager_z_loss", offsetof(struct pl_framework, eager_z_loss)},
    {"grad_buffer_passes", offsetof(struct pl_framework, grad_buffer_passes)},
    {"grad_scale_pass", offsetof(struct pl_framework, grad_scale_pass)},
    {"grad_nan_check", offsetof(struct pl_framework, grad_nan_check)},
    {"logits_fp32", offsetof(struct pl_framework, logits_fp32)},
    {"fp8_amax_reduce_sync", offsetof(struct pl_framework, fp8_amax_reduce_sync)},
};

static enum pl_setting *setting_at(struct pl_framework *fw, size_t i) {
  return (enum pl_setting *)((char *)fw + settings[i].off);
}

const char *pl_framework_setting(const struct pl_framework *fw, size_t i, enum pl_setting *value) {
  if (i >= N_SETTINGS)
    return NULL;
  *value = *(const enum pl_setting *)((const char *)fw + settings[i].off);
  return settings[i].key;
}

/* Behaviours whose flag takes words other than on|off: the flag's name as a
 * key and the word for each setting (docs/cli.md). */
static const struct {
  const char *key;
  size_t off;
  const char *on, *off_word;
} flag_words[] = {
    {"kernels", offsetof(struct pl_framework, fused_kernels), "fused", "unfused"},
    {"grad_reduce_dtype", offsetof(struct pl_framework, grad_reduce_fp32), "fp32", "bf16"},
    {"zero1_grad_reduce", offsetof(struct pl_framework, zero1_grad_all_reduce), "all-reduce",
     "reduce-scatter"},
    {"grad_accum", offsetof(struct pl_framework, grad_accum_fp32_copy), "fp32-copy", "in-place"},
};

const char *pl_framework_flag_word(const struct pl_framework *fw, size_t i, const char **key) {
  if (i >= sizeof flag_words / sizeof flag_words[0])
    return NULL;
  enum pl_setting v = *(const enum pl_setting *)((const char *)fw + flag_words[i].off);
  *key = flag_words[i].key;
  return v == PL_SETTING_ON ? flag_words[i].on : v == PL_SETTING_OFF ? flag_words[i].off_word : NULL;
}

const char *pl_setting_name(enum pl_setting s) {
  return s == PL_SETTING_ON ? "on" : s == PL_SETTING_OFF ? "off" : "unset";
}

enum pl_status pl_setting_parse(const char *s, enum pl_setting *out, struct pl_diag *diag) {
  if (strcmp(s, "on") == 0)
    *out = PL_SETTING_ON;
  else if (strcmp(s, "off") == 0)
    *out = PL_SETTING_OFF;
  else
    return pl_diag_set(diag, PL_ERR_PARSE, "unknown value '%s' (expected on|off)", s);
  return PL_OK;
}

/* In enum order (framework.h); "te" is Transformer Engine's choice, resolved
 * against the GPU (pl_layout_resolve), never an output. */
static const char *const attention_names[] = {"unset", "flash", "triton", "eager", "cudnn", "te"};
#define N_ATTENTION ((int)(sizeof attention_names / sizeof attention_names[0]))

const char *pl_attention_name(enum pl_attention a) {
  return (int)a >= 0 && (int)a < N_ATTENTION ? attention_names[a] : "unset";
}

enum pl_status pl_attention_parse(const char *s, enum pl_attention *out, struct pl_diag *diag) {
  for (int i = 1; i < N_ATTENTION; i++) {
    if (strcmp(s, attention_names[i]) == 0) {
      *out = (enum pl_attention)i;
      return PL_OK;
    }
  }
  return pl_diag_set(diag, PL_ERR_PARSE,
                     "unknown attention '%s' (expected flash|cudnn|te|triton|eager)", s);
}

/* ------------------------------------------------------------- loading */

/* A behaviour's value: bare, or the "value" of {"value", "source"}. */
static yajl_val value_of(yajl_val v) {
  yajl_val inner = YAJL_IS_OBJECT(v) ? base_json_get(v, "value") : NULL;
  return inner != NULL ? inner : v;
}

static enum pl_status read_setting(yajl_val v, const char *key, const char *origin,
                                   enum pl_setting *out, struct pl_diag *diag) {
  if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: behaviour '%s' must be true or false", origin, key);
  *out = YAJL_IS_TRUE(v) ? PL_SETTING_ON : PL_SETTING_OFF;
  return PL_OK;
}

/* A behaviour that is a host time from 0 to 1 ms ("37 us"). */
static enum pl_status read_host_time(const char *s, const char *key, const char *example,
                                     const char *origin, double *out_s, bool *set,
                                     struct pl_diag *diag) {
  double t = -1;
  if (s == NULL || pl_unit_parse(s, PL_UNIT_SECONDS, &t, NULL) != PL_OK || !(t >= 0) || t > 1e-3)
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: behaviour '%s' must be a time from 0 to 1 ms (\"%s\")", origin, key,
                       example);
  *out_s = t;
  *set = true;
  return PL_OK;
}

/* A whole-number behaviour in 0..max (a count of passes, syncs or SMs). */
static enum pl_status read_count(yajl_val v, const char *key, int64_t max, const char *origin,
                                 int64_t *dst, bool *set, struct pl_diag *diag) {
  if (!YAJL_IS_INTEGER(v) || YAJL_GET_INTEGER(v) < 0 || YAJL_GET_INTEGER(v) > max)
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: behaviour '%s' must be an integer 0..%" PRId64,
                       origin, key, max);
  *dst = YAJL_GET_INTEGER(v);
  *set = true;
  return PL_OK;
}

bool pl_bucket_params_ok(double n) { return n >= 1 && n <= 1e12 && floor(n) == n; }

static enum pl_status read_other(yajl_val v, const char *key, const char *origin,
                                 struct pl_framework *fw, struct pl_diag *diag) {
  const char *s = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
  if (strcmp(key, "attention") == 0) {
    if (s == NULL || pl_attention_parse(s, &fw->attention, NULL) != PL_OK)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: behaviour 'attention' must be \"flash\", \"cudnn\", \"te\", "
                         "\"triton\" or \"eager\"",
                         origin);
    return PL_OK;
  }
  if (strcmp(key, "shard") == 0) {
    if (s == NULL || pl_shard_parse(s, &fw->shard, NULL) != PL_OK)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: behaviour 'shard' must be \"ddp\", \"zero1\", \"zero2\" or \"zero3\"",
                         origin);
    fw->shard_set = true;
    return PL_OK;
  }
  if (strcmp(key, "logit_metric_passes") == 0)
    return read_count(v, key, 16, origin, &fw->logit_metric_passes, &fw->logit_metric_passes_set,
                      diag);
  if (strcmp(key, "step_sync_all_reduces") == 0)
    return read_count(v, key, 64, origin, &fw->step_sync_all_reduces, &fw->step_syncs_set, diag);
  if (strcmp(key, "step_sync_broadcasts") == 0)
    return read_count(v, key, 64, origin, &fw->step_sync_broadcasts, &fw->step_syncs_set, diag);
  if (strcmp(key, "step_sync_all_gathers") == 0)
    return read_count(v, key, 64, origin, &fw->step_sync_all_gathers, &fw->step_syncs_set, diag);
  if (strcmp(key, "opt_syncs_per_tensor") == 0)
    return read_count(v, key, 4, origin, &fw->opt_syncs_per_tensor,
                      &fw->opt_syncs_per_tensor_set, diag);
  if (strcmp(key, "cudnn_cluster_margin") == 0)
    return read_count(v, key, 64, origin, &fw->cudnn_cluster_margin,
                      &fw->cudnn_cluster_margin_set, diag);
  if (strcmp(key, "ub_proj_fprop_sms") == 0)
    return read_count(v, key, 255, origin, &fw->ub_proj_fprop_sms, &fw->ub_proj_fprop_sms_set,
                      diag);
  if (strcmp(key, "ub_fc2_fprop_sms") == 0)
    return read_count(v, key, 255, origin, &fw->ub_fc2_fprop_sms, &fw->ub_fc2_fprop_sms_set, diag);
  if (strcmp(key, "hybridep_sms") == 0)
    return read_count(v, key, 255, origin, &fw->hybridep_sms, &fw->hybridep_sms_set, diag);
  if (strcmp(key, "nccl_max_ctas_tp") == 0)
    return read_count(v, key, 64, origin, &fw->nccl_max_ctas_tp, &fw->nccl_max_ctas_tp_set, diag);
  if (strcmp(key, "nccl_max_ctas_cp") == 0)
    return read_count(v, key, 64, origin, &fw->nccl_max_ctas_cp, &fw->nccl_max_ctas_cp_set, diag);
  if (strcmp(key, "nccl_max_ctas_dp") == 0)
    return read_count(v, key, 64, origin, &fw->nccl_max_ctas_dp, &fw->nccl_max_ctas_dp_set, diag);
  if (strcmp(key, "nccl_max_ctas_pp") == 0)
    return read_count(v, key, 64, origin, &fw->nccl_max_ctas_pp, &fw->nccl_max_ctas_pp_set, diag);
  if (strcmp(key, "host_per_kernel") == 0)
    return read_host_time(s, key, "37 us", origin, &fw->host_per_kernel_s, &fw->host_per_kernel_set, diag);
  if (strcmp(key, "host_per_gemm") == 0)
    return read_host_time(s, key, "48 us", origin, &fw->host_per_gemm_s, &fw->host_per_gemm_set, diag);
  if (strcmp(key, "host_per_launch") == 0)
    return read_host_time(s, key, "7.3 us", origin, &fw->host_per_launch_s,
                          &fw->host_per_launch_set, diag);
  if (strcmp(key, "zero3_list_copy") == 0)
    return read_host_time(s, key, "15 us", origin, &fw->zero3_list_copy_s, &fw->zero3_list_copy_set, diag);
  if (strcmp(key, "cudnn_version") == 0) {
    struct pl_diag d;
    pl_diag_clear(&d);
    if (s == NULL || pl_cudnn_version_parse(s, &fw->cudnn_version, &d) != PL_OK)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: behaviour 'cudnn_version' must be a cuDNN version from 8.9 "
                         "(\"9.13\") or \"latest\"",
                         origin);
    fw->cudnn_version_set = true;
    return PL_OK;
  }
  /* bucket_mb and bucket_params each replace the other (a file over its base) */
  if (strcmp(key, "bucket_mb") == 0) {
    if (s != NULL && strcmp(s, "megatron") == 0) {
      fw->bucket_dp_scaled = true;
      fw->bucket_params = 0;
      return PL_OK;
    }
    if (!YAJL_IS_NUMBER(v) || !(YAJL_GET_DOUBLE(v) > 0) || YAJL_GET_DOUBLE(v) > 1e5)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: behaviour 'bucket_mb' must be a size in MiB above 0 and up to 100000, "
                         "or \"megatron\"",
                         origin);
    fw->bucket_mb = YAJL_GET_DOUBLE(v);
    fw->bucket_dp_scaled = false;
    fw->bucket_params = 0;
    return PL_OK;
  }
  if (strcmp(key, "bucket_params") == 0) {
    double n = YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : -1;
    if (!pl_bucket_params_ok(n))
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: behaviour 'bucket_params' must be a whole number of parameters from "
                         "1 to 1e12",
                         origin);
    fw->bucket_params = n;
    fw->bucket_mb = 0;
    fw->bucket_dp_scaled = false;
    return PL_OK;
  }
  return pl_diag_set(diag, PL_ERR_PARSE, "%s: unknown behaviour '%s' (docs/frameworks.md)", origin,
                     key);
}

static enum pl_status read_behaviour(const char *key, yajl_val raw, const char *origin,
                                     struct pl_framework *fw, struct pl_diag *diag) {
  yajl_val v = value_of(raw);
  /* "moe": Megatron-Core's opt-in sequence parallelism, which an MoE model
   * with tp > 1 cannot train without (pl_framework_apply, layout.sp_moe) */
  const char *word = YAJL_IS_STRING(v) ? YAJL_GET_STRING(v) : NULL;
  if (word != NULL && strcmp(key, "sequence_parallel") == 0) {
    if (strcmp(word, "moe") != 0)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: behaviour 'sequence_parallel' must be true, false or \"moe\"",
                         origin);
    fw->sequence_parallel = PL_SETTING_UNSET;
    fw->sequence_parallel_moe = true;
    return PL_OK;
  }
  for (size_t i = 0; i < N_SETTINGS; i++)
    if (strcmp(key, settings[i].key) == 0)
      return read_setting(v, key, origin, setting_at(fw, i), diag);
  for (size_t i = 0; i < sizeof more_settings / sizeof more_settings[0]; i++)
    if (strcmp(key, more_settings[i].key) == 0)
      return read_setting(v, key, origin, (enum pl_setting *)((char *)fw + more_settings[i].off),
                          diag);
  return read_other(v, key, origin, fw, diag);
}

/* A file's "base": the preset it starts from (a versioned preset, e.g.
 * nemo-24.07, is its framework's preset with the behaviours its release
 * changed); chains of presets end within FRAMEWORK_BASE_DEPTH. */
#define FRAMEWORK_BASE_DEPTH 4

static enum pl_status framework_parse(yajl_val root, const char *origin, struct pl_framework *fw,
                                      int depth, struct pl_diag *diag);

static enum pl_status read_base(yajl_val root, const char *origin, struct pl_framework *fw,
                                int depth, struct pl_diag *diag) {
  char base[32] = "";
  enum pl_status st = base_json_str(root, "base", false, origin, base, sizeof base, diag);
  if (st != PL_OK || base[0] == '\0')
    return st;
  size_t len = 0;
  const char *text = pl_data_find("frameworks", base, &len);
  if (text == NULL)
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: base '%s' is not a framework preset", origin, base);
  if (depth >= FRAMEWORK_BASE_DEPTH)
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: base presets nest deeper than %d (a loop?)",
                       origin, FRAMEWORK_BASE_DEPTH);
  char inner[96];
  snprintf(inner, sizeof inner, "framework preset '%s'", base);
  yajl_val broot = NULL;
  st = base_json_parse(text, len, inner, &broot, diag);
  if (st == PL_OK)
    st = framework_parse(broot, inner, fw, depth + 1, diag);
  base_json_free(broot);
  return st;
}

static enum pl_status framework_parse(yajl_val root, const char *origin, struct pl_framework *fw,
                                      int depth, struct pl_diag *diag) {
  memset(fw, 0, sizeof *fw);
  if (!YAJL_IS_OBJECT(root))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: expected a JSON object", origin);
  /* the top-level keys a framework file has (data/frameworks/); "behaviors" is
   * a near miss: its behaviours would be dropped, the file read as plateau's defaults */
  static const char *const keys[] = {"name", "description", "version", "base", "behaviours",
                                     "source"};
  enum pl_status st = base_json_near_miss(root, keys, sizeof keys / sizeof keys[0], origin, diag);
  if (st == PL_OK)
    st = read_base(root, origin, fw, depth, diag);
  if (st == PL_OK) {
    memset(fw->name, 0, sizeof fw->name);
    memset(fw->description, 0, sizeof fw->description);
    st = base_json_str(root, "name", true, origin, fw->name, sizeof fw->name, diag);
  }
  if (st == PL_OK && fw->family[0] == '\0')
    memcpy(fw->family, fw->name, sizeof fw->family);
  if (st == PL_OK)
    st = base_json_str(root, "description", false, origin, fw->description,
                       sizeof fw->description, diag);
  yajl_val b = base_json_get(root, "behaviours");
  if (st != PL_OK || b == NULL)
    return st;
  if (!YAJL_IS_OBJECT(b))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'behaviours' must be an object", origin);
  for (size_t i = 0; i < b->u.object.len && st == PL_OK; i++)
    st = read_behaviour(b->u.object.keys[i], b->u.object.values[i], origin, fw, diag);
  return st;
}

enum pl_status pl_framework_parse(const char *text, size_t len, const char *origin,
                                  struct pl_framework *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  yajl_val root = NULL;
  enum pl_status st = base_json_parse(text, len, origin, &root, diag);
  if (st == PL_OK)
    st = framework_parse(root, origin, out, 0, diag);
  base_json_free(root);
  return st;
}

static enum pl_status unknown_preset(const char *name, struct pl_diag *diag) {
  char list[256] = "";
  for (size_t i = 0; pl_data_name("frameworks", i) != NULL; i++) {
    if (i > 0)
      strncat(list, ", ", sizeof list - strlen(list) - 1);
    strncat(list, pl_data_name("frameworks", i), sizeof list - strlen(list) - 1);
  }
  char hint[160];
  bool near = pl_data_hint("frameworks", name, hint, sizeof hint);
  return pl_diag_set(diag, PL_ERR_UNKNOWN,
                     "unknown framework '%s' (presets: %s; or give the path of a framework file)%s%s",
                     name, list, near ? "; " : "", hint);
}

enum pl_status pl_framework_preset(const char *name, struct pl_framework *out,
                                   struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  size_t len = 0;
  const char *text = name != NULL ? pl_data_find("frameworks", name, &len) : NULL;
  if (text == NULL)
    return unknown_preset(name != NULL ? name : "", diag);
  char origin[96];
  snprintf(origin, sizeof origin, "framework preset '%s'", name);
  return pl_framework_parse(text, len, origin, out, diag);
}

const char *pl_framework_family(const char *name, char *buf, size_t n) {
  struct pl_framework fw;
  struct pl_diag d;
  pl_diag_clear(&d);
  bool preset = name != NULL && pl_framework_preset(name, &fw, &d) == PL_OK;
  snprintf(buf, n, "%s", preset ? fw.family : name != NULL ? name : "");
  return buf;
}

enum pl_status pl_framework_load(const char *name_or_path, struct pl_framework *out,
                                 struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  if (name_or_path == NULL || name_or_path[0] == '\0')
    return pl_diag_set(diag, PL_ERR_MISSING, "no framework given: name a preset or a file");
  size_t n = strlen(name_or_path);
  bool path = strchr(name_or_path, '/') != NULL || (n > 5 && strcmp(name_or_path + n - 5, ".json") == 0);
  if (!path)
    return pl_framework_preset(name_or_path, out, diag);
  char *text = NULL;
  size_t len = 0;
  enum pl_status st = base_read_file(name_or_path, BASE_JSON_MAX_BYTES, &text, &len, diag);
  if (st != PL_OK)
    return st;
  char origin[300];
  snprintf(origin, sizeof origin, "framework file '%s'", name_or_path);
  st = pl_framework_parse(text, len, origin, out, diag);
  pl_free(text);
  return st;
}

/* ------------------------------------------------------------- mapping */

/* A setting onto a layout bool; invert for the layout's negative fields. */
static void put(enum pl_setting s, bool *field, bool invert) {
  if (s != PL_SETTING_UNSET)
    *field = (s == PL_SETTING_ON) != invert;
}

/* The release an on/off alias of cudnn_version stands for, by major.minor:
 * cudnn_2024 = 9.0-9.1 (the mid-2024 containers), cudnn_913 = 9.13.x. */
static bool cudnn_is(int64_t v, int64_t from, int64_t to) {
  return v >= from && v <= to + 99;
}

/* The cuDNN release (layout.cudnn_version): the version when given, else its
 * older on/off aliases (--cudnn-2024, --cudnn-913; the 2024 one first when both
 * are on, as when they were two kernels); an alias off returns a run of its
 * release to the latest. */
static void apply_cudnn(const struct pl_framework *fw, struct pl_layout *l) {
  if (fw->cudnn_version_set)
    l->cudnn_version = fw->cudnn_version;
  else if (fw->cudnn_2024 == PL_SETTING_ON)
    l->cudnn_version = PL_CUDNN_2024;
  else if (fw->cudnn_913 == PL_SETTING_ON)
    l->cudnn_version = PL_CUDNN_913;
  else if ((fw->cudnn_2024 == PL_SETTING_OFF && cudnn_is(l->cudnn_version, 90000, PL_CUDNN_2024)) ||
           (fw->cudnn_913 == PL_SETTING_OFF && cudnn_is(l->cudnn_version, PL_CUDNN_913, PL_CUDNN_913)))
    l->cudnn_version = PL_CUDNN_LATEST;
}

void pl_framework_apply(const struct pl_framework *fw, struct pl_layout *l) {
  if (fw->shard_set && !l->shard_set) {
    l->shard = fw->shard;
    l->shard_set = true;
  }
  if (fw->attention != PL_ATTENTION_UNSET) {
    l->eager_attention = fw->attention == PL_ATTENTION_EAGER;
    l->attention_triton = fw->attention == PL_ATTENTION_TRITON;
    l->attention_cudnn = fw->attention == PL_ATTENTION_CUDNN;
    l->attention_te = fw->attention == PL_ATTENTION_TE;
  }
  put(fw->sequence_parallel, &l->no_sp, true);
  if (fw->sequence_parallel != PL_SETTING_UNSET)
    l->sp_moe = false;
  else if (fw->sequence_parallel_moe)
    l->no_sp = l->sp_moe = true;
  if (fw->fused_kernels != PL_SETTING_UNSET)
    l->kernels = fw->fused_kernels == PL_SETTING_ON ? PL_KERNELS_FUSED : PL_KERNELS_UNFUSED;
  put(fw->tp_comm_overlap, &l->tp_comm_overlap, false);
  put(fw->overlap_grad_reduce, &l->grad_reduce_after_backward, true);
  put(fw->overlap_param_gather, &l->overlap_param_gather, false);
  put(fw->overlap_p2p, &l->overlap_p2p, false);
  put(fw->p2p_serial, &l->p2p_serial, false);
  put(fw->p2p_scatter_gather, &l->p2p_scatter_gather, false);
  put(fw->shard_grads_reduce_dtype, &l->shard_grads_reduce_dtype, false);
  put(fw->grad_reduce_fp32, &l->grad_reduce_bf16, true);
  put(fw->grad_comm_cast, &l->grad_comm_cast, false);
  put(fw->zero1_grad_all_reduce, &l->zero1_grad_all_reduce, false);
  put(fw->grad_accum_fp32_copy, &l->grad_accum_cast, false);
  put(fw->fsdp_prefetch, &l->gather_no_prefetch, true);
  put(fw->fsdp_separate_comms, &l->fsdp_separate_comms, false);
  if (fw->logit_metric_passes_set)
    l->logit_metric_passes = fw->logit_metric_passes;
  if (fw->opt_syncs_per_tensor_set)
    l->opt_syncs_per_tensor = fw->opt_syncs_per_tensor;
  if (fw->step_syncs_set) {
    l->step_sync_all_reduces = fw->step_sync_all_reduces;
    l->step_sync_broadcasts = fw->step_sync_broadcasts;
    l->step_sync_all_gathers = fw->step_sync_all_gathers;
  }
  if (fw->host_per_kernel_set)
    l->host_per_kernel_s = fw->host_per_kernel_s;
  if (fw->host_per_gemm_set)
    l->host_per_gemm_s = fw->host_per_gemm_s;
  if (fw->host_per_launch_set)
    l->host_per_launch_s = fw->host_per_launch_s;
  if (fw->zero3_list_copy_set)
    l->zero3_list_copy_s = fw->zero3_list_copy_s;
  if (fw->bucket_dp_scaled || fw->bucket_params > 0 || fw->bucket_mb > 0) {
    l->bucket_dp_scaled = fw->bucket_dp_scaled;
    l->bucket_params = fw->bucket_dp_scaled ? 0 : fw->bucket_params;
    l->bucket_bytes =
        fw->bucket_dp_scaled || fw->bucket_params > 0 ? 0 : fw->bucket_mb * 1024.0 * 1024.0;
  }
  put(fw->fp8_weight_cache, &l->fp8_weight_cache, false);
  put(fw->fsdp_pp_unsharded, &l->fsdp_pp_unsharded, false);
  put(fw->head_16bit, &l->head_16bit, false);
  put(fw->te_cross_entropy, &l->te_cross_entropy, false);
  put(fw->megatron_xent, &l->megatron_xent, false);
  put(fw->megatron_softmax, &l->megatron_softmax, false);
  put(fw->parallel_block, &l->parallel_block, false);
  put(fw->gqa_query_copy, &l->gqa_query_copy, false);
  put(fw->fms_rope, &l->fms_rope, false);
  put(fw->kv_expand_copy, &l->kv_expand_copy, false);
  put(fw->separate_linears, &l->separate_linears, false);
  put(fw->rope_complex, &l->rope_complex, false);
  put(fw->fsdp_block_units, &l->fsdp_block_units, false);
  put(fw->adam_moments_bf16, &l->adam_moments_bf16, false);
  put(fw->te_linear_bwd_overlap, &l->te_linear_bwd_overlap, false);
  put(fw->align_grad_reduce, &l->align_grad_reduce, false);
  put(fw->pg_with_opt_step, &l->pg_with_opt_step, false);
  put(fw->moe_host_sync, &l->moe_host_sync, false);
  put(fw->moe_expert_padding, &l->moe_expert_padding, false);
  put(fw->moe_router_fusion, &l->moe_router_unfused, true);
  put(fw->jit_fuser, &l->jit_eager, true);
  put(fw->launch_blocking, &l->launch_blocking, false);
  put(fw->ep_comm_overlap, &l->ep_comm_overlap, false);
  put(fw->delay_wgrad, &l->delay_wgrad, false);
  put(fw->optimizer_fused, &l->opt_fused, false);
  put(fw->grad_clip, &l->no_grad_clip, true);
  put(fw->autocast_weight_casts, &l->autocast_weight_casts, false);
  put(fw->optimizer_torch, &l->opt_torch, false);
  put(fw->optimizer_sgd, &l->opt_sgd, false);
  put(fw->zero3_grad_all_reduce, &l->zero3_grad_all_reduce, false);
  put(fw->fp8_all_gather, &l->fp8_all_gather, false);
  put(fw->zero3_reuse, &l->zero3_no_reuse, true);
  put(fw->zero3_debug_norm, &l->zero3_debug_norm, false);
  apply_cudnn(fw, l);
  put(fw->fp8_attention, &l->fp8_attention, false);
  put(fw->nvfp4_rht_unfused, &l->nvfp4_rht_unfused, false);
  put(fw->fused_grouped_mlp, &l->fused_grouped_mlp, false);
  if (fw->cudnn_cluster_margin_set)
    l->cudnn_cluster_margin = fw->cudnn_cluster_margin;
  if (fw->ub_proj_fprop_sms_set)
    l->ub_proj_fprop_sms = fw->ub_proj_fprop_sms;
  if (fw->ub_fc2_fprop_sms_set)
    l->ub_fc2_fprop_sms = fw->ub_fc2_fprop_sms;
  /* A count the run itself gives (l->hybridep_sms > 0 before the framework is
   * applied: a validation loader's reading of the row's own recipe, e.g. the
   * Megatron-Bridge 26.08 perf_recipes that set moe_hybridep_num_sms after
   * _benchmark_common's 32) beats the preset's default, as the recipe's own
   * assignment beats the common overrides it follows (docs/frameworks.md). */
  if (fw->hybridep_sms_set && l->hybridep_sms <= 0)
    l->hybridep_sms = fw->hybridep_sms;
  /* NCCL CTA caps: a validation loader's reading of the row's own
   * communicator config (l->nccl_max_ctas_* > 0) beats the preset's */
  if (fw->nccl_max_ctas_tp_set && l->nccl_max_ctas_tp <= 0)
    l->nccl_max_ctas_tp = fw->nccl_max_ctas_tp;
  if (fw->nccl_max_ctas_cp_set && l->nccl_max_ctas_cp <= 0)
    l->nccl_max_ctas_cp = fw->nccl_max_ctas_cp;
  if (fw->nccl_max_ctas_dp_set && l->nccl_max_ctas_dp <= 0)
    l->nccl_max_ctas_dp = fw->nccl_max_ctas_dp;
  if (fw->nccl_max_ctas_pp_set && l->nccl_max_ctas_pp <= 0)
    l->nccl_max_ctas_pp = fw->nccl_max_ctas_pp;
  put(fw->tp_seq_copies, &l->tp_seq_copies, false);
  put(fw->cp_allgather, &l->cp_allgather, false);
  put(fw->async_tp, &l->async_tp, false);
  put(fw->grad_accum_fusion, &l->grad_accum_fusion, false);
  put(fw->eager_xent, &l->eager_xent, false);
  put(fw->pp_keep_outputs, &l->pp_keep_outputs, false);
  put(fw->tp_gathered_saved, &l->tp_gathered_saved, false);
  put(fw->fp32_param_shards, &l->fp32_param_shards, false);
  put(fw->adam_no_master, &l->adam_no_master, false);
  put(fw->fsdp1_copies, &l->fsdp1_copies, false);
  put(fw->fsdp2_predivide, &l->fsdp2_predivide, false);
  put(fw->fsdp2_rs_copy_in, &l->fsdp2_rs_copy_in, false);
  put(fw->fused_norm, &l->fused_norm, false);
  put(fw->inductor_norms, &l->inductor_norms, false);
  put(fw->fsdp_root_unit, &l->fsdp_root_unit, false);
  put(fw->hf_shift_copy, &l->hf_shift_copy, false);
  put(fw->logits_shift_copy, &l->logits_shift_copy, false);
  put(fw->eager_z_loss, &l->eager_z_loss, false);
  put(fw->grad_buffer_passes, &l->grad_buffer_passes, false);
  put(fw->grad_scale_pass, &l->grad_scale_pass, false);
  put(fw->grad_nan_check, &l->no_grad_nan_check, true);
  put(fw->logits_fp32, &l->logits_fp32, false);
  put(fw->fp8_amax_reduce_sync, &l->fp8_amax_reduce_sync, false);
}

static enum pl_setting setting(bool on) { return on ? PL_SETTING_ON : PL_SETTING_OFF; }

void pl_framework_resolved(const struct pl_framework *fw, const struct pl_layout *l,
                           struct pl_framework *out) {
  memset(out, 0, sizeof *out);
  memcpy(out->name, fw->name, sizeof out->name);
  memcpy(out->description, fw->description, sizeof out->description);
  memcpy(out->family, fw->family, sizeof out->family);
  out->shard_set = true;
  out->shard = l->shard;
  /* the kernel that runs: "te" is resolved to cudnn or flash by then */
  out->attention = l->eager_attention    ? PL_ATTENTION_EAGER
                   : l->attention_triton ? PL_ATTENTION_TRITON
                   : l->attention_cudnn  ? PL_ATTENTION_CUDNN
                                         : PL_ATTENTION_FLASH;
  out->sequence_parallel = setting(!l->no_sp);
  out->fused_kernels = setting(l->kernels == PL_KERNELS_FUSED);
  out->tp_comm_overlap = setting(l->tp_comm_overlap);
  out->overlap_grad_reduce = setting(!l->grad_reduce_after_backward);
  out->overlap_param_gather = setting(l->overlap_param_gather);
  out->overlap_p2p = setting(l->overlap_p2p);
  out->p2p_serial = setting(l->p2p_serial);
  out->p2p_scatter_gather = setting(l->p2p_scatter_gather);
  out->shard_grads_reduce_dtype = setting(l->shard_grads_reduce_dtype);
  out->grad_reduce_fp32 = setting(!l->grad_reduce_bf16);
  out->grad_comm_cast = setting(l->grad_comm_cast);
  out->zero1_grad_all_reduce = setting(l->zero1_grad_all_reduce);
  out->grad_accum_fp32_copy = setting(l->grad_accum_cast);
  out->fsdp_prefetch = setting(!l->gather_no_prefetch);
  out->fsdp_separate_comms = setting(!l->fsdp_one_comm && l->fsdp_separate_comms);
  out->logit_metric_passes_set = true;
  out->logit_metric_passes = l->logit_metric_passes;
  out->opt_syncs_per_tensor_set = true;
  out->opt_syncs_per_tensor = l->opt_syncs_per_tensor;
  out->step_syncs_set = true;
  out->step_sync_all_reduces = l->step_sync_all_reduces;
  out->step_sync_broadcasts = l->step_sync_broadcasts;
  out->step_sync_all_gathers = l->step_sync_all_gathers;
  out->host_per_kernel_set = true;
  out->host_per_kernel_s = l->host_per_kernel_s;
  out->host_per_gemm_set = true;
  out->host_per_gemm_s = l->host_per_gemm_s;
  out->host_per_launch_set = true;
  out->host_per_launch_s = l->host_per_launch_s;
  out->zero3_list_copy_set = true;
  out->zero3_list_copy_s = l->zero3_list_copy_s;
  /* the gradient bucket as it runs, in MiB (the dtype its elements are reduced in) */
  out->bucket_mb = pl_layout_bucket_bytes(l, l->grad_reduce_bf16 ? 2.0 : 4.0, 0) / (1024.0 * 1024.0);
  out->bucket_dp_scaled = l->bucket_dp_scaled;
  out->bucket_params = l->bucket_params;
  out->fp8_weight_cache = setting(l->fp8_weight_cache);
  out->fsdp_pp_unsharded = setting(l->fsdp_pp_unsharded);
  out->head_16bit = setting(l->head_16bit);
  out->te_cross_entropy = setting(l->te_cross_entropy);
  out->megatron_xent = setting(l->megatron_xent);
  out->megatron_softmax = setting(l->megatron_softmax);
  out->parallel_block = setting(l->parallel_block);
  out->gqa_query_copy = setting(l->gqa_query_copy);
  out->fms_rope = setting(l->fms_rope);
  out->kv_expand_copy = setting(l->kv_expand_copy);
  out->separate_linears = setting(l->separate_linears);
  out->rope_complex = setting(l->rope_complex);
  out->fsdp_block_units = setting(l->fsdp_block_units);
  out->adam_moments_bf16 = setting(l->adam_moments_bf16);
  out->te_linear_bwd_overlap = setting(l->te_linear_bwd_overlap);
  out->align_grad_reduce = setting(l->align_grad_reduce);
  out->pg_with_opt_step = setting(l->pg_with_opt_step);
  out->moe_host_sync = setting(l->moe_host_sync);
  out->moe_expert_padding = setting(l->moe_expert_padding);
  out->moe_router_fusion = setting(!l->moe_router_unfused);
  out->jit_fuser = setting(!l->jit_eager);
  out->launch_blocking = setting(l->launch_blocking);
  out->ep_comm_overlap = setting(l->ep_comm_overlap);
  out->delay_wgrad = setting(l->delay_wgrad);
  out->optimizer_fused = setting(l->opt_fused);
  out->grad_clip = setting(!l->no_grad_clip);
  out->autocast_weight_casts = setting(l->autocast_weight_casts);
  out->optimizer_torch = setting(l->opt_torch);
  out->optimizer_sgd = setting(l->opt_sgd);
  out->zero3_grad_all_reduce = setting(l->zero3_grad_all_reduce);
  out->fp8_all_gather = setting(l->fp8_all_gather);
  out->zero3_reuse = setting(!l->zero3_no_reuse);
  out->zero3_debug_norm = setting(l->zero3_debug_norm);
  out->cudnn_2024 = setting(cudnn_is(l->cudnn_version, 90000, PL_CUDNN_2024));
  out->cudnn_913 = setting(cudnn_is(l->cudnn_version, PL_CUDNN_913, PL_CUDNN_913));
  out->cudnn_version_set = true;
  out->cudnn_version = l->cudnn_version;
  out->fp8_attention = setting(l->fp8_attention);
  out->nvfp4_rht_unfused = setting(l->nvfp4_rht_unfused);
  out->fused_grouped_mlp = setting(l->fused_grouped_mlp);
  out->cudnn_cluster_margin_set = true;
  out->cudnn_cluster_margin = l->cudnn_cluster_margin;
  out->ub_proj_fprop_sms_set = out->ub_fc2_fprop_sms_set = true;
  out->ub_proj_fprop_sms = l->ub_proj_fprop_sms;
  out->ub_fc2_fprop_sms = l->ub_fc2_fprop_sms;
  out->hybridep_sms_set = true;
  out->hybridep_sms = l->hybridep_sms > 0 ? l->hybridep_sms : HYBRIDEP_DEFAULT_SMS;
  out->nccl_max_ctas_tp_set = true;
  out->nccl_max_ctas_tp = l->nccl_max_ctas_tp;
  out->nccl_max_ctas_cp_set = true;
  out->nccl_max_ctas_cp = l->nccl_max_ctas_cp;
  out->nccl_max_ctas_dp_set = true;
  out->nccl_max_ctas_dp = l->nccl_max_ctas_dp;
  out->nccl_max_ctas_pp_set = true;
  out->nccl_max_ctas_pp = l->nccl_max_ctas_pp;
  out->tp_seq_copies = setting(l->tp_seq_copies);
  out->cp_allgather = setting(l->cp_allgather);
  out->async_tp = setting(l->async_tp);
  out->grad_accum_fusion = setting(l->grad_accum_fusion);
  out->eager_xent = setting(l->eager_xent);
  out->pp_keep_outputs = setting(l->pp_keep_outputs);
  out->tp_gathered_saved = setting(l->tp_gathered_saved);
  out->fp32_param_shards = setting(l->fp32_param_shards);
  out->adam_no_master = setting(l->adam_no_master);
  out->fsdp1_copies = setting(l->fsdp1_copies);
  out->fsdp2_predivide = setting(l->fsdp2_predivide);
  out->fsdp2_rs_copy_in = setting(l->fsdp2_rs_copy_in);
  out->fused_norm = setting(l->fused_norm);
  out->inductor_norms = setting(l->inductor_norms);
  out->fsdp_root_unit = setting(l->fsdp_root_unit);
  out->hf_shift_copy = setting(l->hf_shift_copy);
  out->logits_shift_copy = setting(l->logits_shift_copy);
  out->eager_z_loss = setting(l->eager_z_loss);
  out->grad_buffer_passes = setting(l->grad_buffer_passes);
  out->grad_scale_pass = setting(l->grad_scale_pass);
  out->grad_nan_check = setting(!l->no_grad_nan_check);
  out->logits_fp32 = setting(l->logits_fp32);
  out->fp8_amax_reduce_sync = setting(l->fp8_amax_reduce_sync);
}
