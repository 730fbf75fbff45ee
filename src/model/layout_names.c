/* layout_names.c: the names of a layout's settings (shard, recompute, schedule,
 * dtype, token dispatcher, recompute modules, CUDA-graph scopes) and their
 * parsers, one-line errors for unknown values. Resolution and checks of a
 * whole layout are in layout.c. */
#include <plateau/layout.h>

#include <stdio.h>
#include <string.h>

#include "model/constants.h"

static const char *const shard_names[] = {"ddp", "zero1", "zero2", "zero3"};
static const char *const recompute_names[] = {"none", "selective", "full", "ops"};
static const char *const schedule_names[] = {"1f1b", "interleaved", "gpipe"};
static const char *const dtype_names[] = {"bf16", "fp8", "mxfp8", "nvfp4"};
static const char *const dispatch_names[] = {"alltoall", "allgather", "deepep", "hybridep"};
/* Megatron-Core's cp_comm_type words (transformer_config.py) */
static const char *const cp_comm_names[] = {"p2p", "all_gather", "a2a", "a2a+p2p"};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *pl_shard_name(enum pl_shard s) { return shard_names[s]; }
const char *pl_recompute_name(enum pl_recompute r) { return recompute_names[r]; }
const char *pl_schedule_name(enum pl_schedule s) { return schedule_names[s]; }
const char *pl_dtype_name(enum pl_dtype d) { return dtype_names[d]; }

const char *pl_dtype_hw_name(enum pl_dtype d) {
  static const char *const hw[] = {"BF16", "FP8", "MXFP8 (block-scaled FP8)",
                                   "NVFP4 (block-scaled FP4)"};
  return hw[d];
}
const char *pl_moe_dispatch_name(enum pl_moe_dispatch d) { return dispatch_names[d]; }
const char *pl_cp_comm_name(enum pl_cp_comm c) { return cp_comm_names[c]; }
const char *pl_fsdp_ga_nosync_name(const struct pl_layout *l) {
  return !l->fsdp_ga_nosync ? "off" : l->fsdp_ga_keep ? "keep" : "on";
}

static enum pl_status parse_name(const char *s, const char *const *names, size_t n,
                                 const char *what, int *out, struct pl_diag *diag) {
  for (size_t i = 0; i < n; i++) {
    if (s != NULL && strcmp(s, names[i]) == 0) {
      *out = (int)i;
      return PL_OK;
    }
  }
  char list[128] = "";
  for (size_t i = 0; i < n; i++) {
    strncat(list, names[i], sizeof list - strlen(list) - 1);
    if (i + 1 < n)
      strncat(list, "|", sizeof list - strlen(list) - 1);
  }
  return pl_diag_set(diag, PL_ERR_UNKNOWN, "unknown %s '%s' (expected %s)", what, s ? s : "",
                     list);
}

enum pl_status pl_shard_parse(const char *s, enum pl_shard *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, shard_names, N_OF(shard_names), "shard mode", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_shard)v;
  return st;
}

enum pl_status pl_recompute_parse(const char *s, enum pl_recompute *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, recompute_names, N_OF(recompute_names), "recompute mode", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_recompute)v;
  return st;
}

/* Megatron-Core's names (transformer_config.py allowed_modules), in bit order */
static const char *const recompute_module_names[PL_RCM_COUNT] = {
    "core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts"};

const char *pl_recompute_module_name(int bit) {
  return bit >= 0 && bit < PL_RCM_COUNT ? recompute_module_names[bit] : "";
}

uint32_t pl_layout_recompute_modules(const struct pl_layout *l) {
  if (l->recompute != PL_RECOMPUTE_SELECTIVE)
    return 0;
  return l->recompute_modules != 0 ? l->recompute_modules : (uint32_t)PL_RCM_CORE_ATTN;
}

/* Names <-> bit mask (model_int.h) */
enum pl_status model_name_mask_parse(const char *p, const char *const *names, int count,
                                     const char *what, const char *expected, uint32_t *out,
                                     struct pl_diag *diag) {
  uint32_t mask = 0;
  for (;;) {
    size_t n = strcspn(p, ",");
    int bit = -1;
    for (int i = 0; i < count; i++)
      if (strlen(names[i]) == n && strncmp(p, names[i], n) == 0)
        bit = i;
    if (bit < 0)
      return pl_diag_set(diag, PL_ERR_PARSE, "unknown %s '%.*s' (expected %s)", what,
                         (int)(n < 64 ? n : 64), p, expected);
    if (mask & (1u << bit))
      return pl_diag_set(diag, PL_ERR_PARSE, "%s '%s' given twice", what, names[bit]);
    mask |= 1u << bit;
    if (p[n] == '\0')
      break;
    p += n + 1;
  }
  *out = mask;
  return PL_OK;
}

/* The names of a mask's bits, comma-separated, in bit order. */
void model_name_mask_format(uint32_t mask, const char *const *names, int count, char *buf,
                            size_t n) {
  if (n == 0)
    return;
  buf[0] = '\0';
  for (int i = 0; i < count; i++) {
    if (!(mask & (1u << i)))
      continue;
    if (buf[0] != '\0')
      strncat(buf, ",", n - strlen(buf) - 1);
    strncat(buf, names[i], n - strlen(buf) - 1);
  }
}

enum pl_status pl_recompute_modules_parse(const char *s, uint32_t *out, struct pl_diag *diag) {
  const char *p = s != NULL ? s : "";
  if (*p == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "empty recompute module list (for none, use "
                                           "--recompute none)");
  return model_name_mask_parse(p, recompute_module_names, PL_RCM_COUNT, "recompute module",
                         "a comma-separated list of "
                         "core_attn|moe_act|layernorm|mla_up_proj|mlp|moe|shared_experts",
                         out, diag);
}

void pl_recompute_modules_format(uint32_t mask, char *buf, size_t n) {
  model_name_mask_format(mask, recompute_module_names, PL_RCM_COUNT, buf, n);
}

/* Megatron-Core's CudaGraphScope names (transformer/enums.py), in bit order */
static const char *const cuda_graph_scope_names[PL_CGS_COUNT] = {
    "attn", "moe_router", "moe_preprocess", "full_iteration", "mamba", "mlp"};

enum pl_status pl_cuda_graph_scopes_parse(const char *s, uint32_t *out, struct pl_diag *diag) {
  const char *p = s != NULL ? s : "";
  if (strcmp(p, "none") == 0) {
    *out = 0;
    return PL_OK;
  }
  if (*p == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "empty CUDA graph scope list (for none, use none)");
  return model_name_mask_parse(p, cuda_graph_scope_names, PL_CGS_COUNT, "CUDA graph scope",
                         "none or a comma-separated list of "
                         "attn|mlp|moe_router|moe_preprocess|mamba|full_iteration",
                         out, diag);
}

void pl_layout_wgrad_deferral_format(int64_t deferral, char *buf, size_t n) {
  if (deferral < 0)
    snprintf(buf, n, "all");
  else if (deferral == 0)
    snprintf(buf, n, "off");
  else
    snprintf(buf, n, "%lld", (long long)deferral);
}

void pl_cuda_graph_scopes_format(uint32_t mask, char *buf, size_t n) {
  model_name_mask_format(mask, cuda_graph_scope_names, PL_CGS_COUNT, buf, n);
  if (n > 0 && buf[0] == '\0')
    strncat(buf, "none", n - 1);
}

enum pl_status pl_schedule_parse(const char *s, enum pl_schedule *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, schedule_names, N_OF(schedule_names), "pipeline schedule", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_schedule)v;
  return st;
}

enum pl_status pl_dtype_parse(const char *s, enum pl_dtype *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st = parse_name(s, dtype_names, N_OF(dtype_names), "dtype", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_dtype)v;
  return st;
}

static const char *const recipe_names[] = {"fp8", "fp8-delayed", "fp8-current", "fp8-blockwise",
                                            "fp8-tensorwise", "fp8-rowwise"};

const char *pl_layout_dtype_name(const struct pl_layout *l) {
  if (l->dtype == PL_DTYPE_FP8 && l->fp8_recipe > PL_FP8_RECIPE_TENSOR &&
      l->fp8_recipe <= PL_FP8_RECIPE_ROWWISE)
    return recipe_names[l->fp8_recipe];
  return pl_dtype_name(l->dtype);
}

enum pl_status pl_layout_dtype_parse(const char *s, struct pl_layout *l, struct pl_diag *diag) {
  for (size_t i = 1; s != NULL && i < N_OF(recipe_names); i++) {
    if (strcmp(s, recipe_names[i]) == 0) {
      l->dtype = PL_DTYPE_FP8;
      l->fp8_recipe = (enum pl_fp8_recipe)i;
      return PL_OK;
    }
  }
  enum pl_dtype d = PL_DTYPE_BF16;
  if (s != NULL && pl_dtype_parse(s, &d, NULL) == PL_OK) {
    l->dtype = d;
    l->fp8_recipe = PL_FP8_RECIPE_TENSOR;
    return PL_OK;
  }
  return pl_diag_set(diag, PL_ERR_UNKNOWN,
                     "unknown dtype '%s' (expected bf16|fp8|fp8-delayed|fp8-current|"
                     "fp8-blockwise|fp8-tensorwise|fp8-rowwise|mxfp8|nvfp4)",
                     s ? s : "");
}

enum pl_status pl_moe_dispatch_parse(const char *s, enum pl_moe_dispatch *out,
                                     struct pl_diag *diag) {
  int v = 0;
  enum pl_status st =
      parse_name(s, dispatch_names, N_OF(dispatch_names), "token dispatcher", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_moe_dispatch)v;
  return st;
}

enum pl_status pl_cp_comm_parse(const char *s, enum pl_cp_comm *out, struct pl_diag *diag) {
  int v = 0;
  enum pl_status st =
      parse_name(s, cp_comm_names, N_OF(cp_comm_names), "cp comm type", &v, diag);
  if (st == PL_OK)
    *out = (enum pl_cp_comm)v;
  return st;
}
