/* gpu_efficiency.c: the "efficiency" object of a GPU file: how close real
 * kernels get to the datasheet peaks and how the GPU draws power, each number
 * with the public measurement it comes from. Layout (docs/step-model.md
 * section 2 explains each number and how the step model uses it):
 *
 *   "efficiency": {
 *     "gemm": {
 *       "mamf": {"value": "794.5 TFLOP/s", "shape": "2048x2048x13312", "source": "..."},
 *       "mamf_fp8": {... optional ...},
 *       "tile": {"value": "128x256", "source": "..."},
 *       "tile_alt_bf16": {"value": "128x192", "source": "..."}  (optional)
 *       "sustained_fraction": {"value": 0.887, "source": "..."}  (optional)
 *       "tile_fixed_k": {"value": 170, "source": "..."}  (optional)
 *       "tile_fixed_k_fp8": {"value": 472, "source": "..."}  (optional)
 *       "sustained_fraction_fp8": {"value": 0.967, "source": "..."}  (optional; absent: FP8
 *         GEMMs take sustained_fraction)
 *       "mxfp8_vs_fp8": {"value": 0.951, "source": "..."}  (optional)
 *       "nvfp4_vs_fp8": {"value": 1.81, "source": "..."}  (optional)
 *       "mamf_is_ceiling": {"value": false, "source": "..."}  (optional, default true)
 *     },
 *     "attention": {"kernel": "FlashAttention-2",
 *                   "fwd_fraction": {"value": 0.35, "source": "..."},
 *                   "bwd_fraction": {"value": 0.30, "source": "..."},
 *                   "triton": {"fwd_fraction": {...}, "bwd_fraction": {...}}  (optional),
 *                   "cudnn": {"kernel": "...", "fwd_fraction": {...}, "bwd_fraction": {...},
 *                            "shape": {"fwd_fraction": {...}, "bwd_fraction": {...},
 *                                      "fwd_tile_fixed_keys": {...},
 *                                      "bwd_tile_fixed_keys": {...}}  (optional),
 *                            "shape_head_dim_64": {the same four}  (optional),
 *                            "tensor_flops_per_exp": {"value": 512, "source": "..."}
 *                            (optional)}
 *                            (optional: cuDNN's fused flash attention),
 *                   "shape": {the same four for the kernel above}  (optional),
 *                   "shape_head_dim_64": {the same four at head dims <= 64}  (optional)},
 *     "mamba_ssm": {"ssd_states": {"fwd_fraction": {...}, "bwd_fraction": {...}},
 *                   "ssd_chunk_state": {...}, "ssd_bmm_cb": {...}, "ssd_chunk_scan": {...},
 *                   "ssm_norm": {...}, "ssd_gate": {...}}  (optional: the Mamba-2 mixer's
 *                   Triton kernels by op; ssd_states, ssm_norm and ssd_gate of the HBM
 *                   bandwidth, the others of the BF16 peak),
 *     "hbm_fraction": {"value": 0.9, "source": "..."},
 *     "mxfp8_quantize": {"value": 0.65, "source": "..."}  (optional: Transformer Engine's
 *                   MXFP8 quantize kernels' measured fraction of the HBM bandwidth, (0, 1]),
 *     "fp8_current_quantize": {...}  (optional: the same for TE's per-tensor FP8 current
 *                   scaling casts, amax pass included),
 *     "nvfp4_quantize": {...}  (optional: the same for TE's NVFP4 casts, amax pass included),
 *     "layer_norm_eager": {...}, "rms_norm_eager": {...}  (optional: PyTorch's eager norms'
 *                   measured fraction of the HBM bandwidth, (0, 1]; docs/step-model.md 2.3b),
 *     "rms_norm_compiled": {...}  (optional: torch.compile's generated RMSNorm kernel's
 *                   published fraction of the HBM bandwidth, (0, 1]; step-model.md 2.3b),
 *     "strided_elementwise": {...}  (optional: a bf16 unary kernel's measured fraction of the
 *                   HBM bandwidth on PyTorch's non-vectorized path, (0, 1]; step-model.md 2.3h),
 *     "rope_eager": {...}, "rope_eager_bwd": {...}  (optional: HF's eager RoPE chain's
 *                   measured fraction, forward and backward, (0, 1]; docs/step-model.md 2.3b),
 *     "kernel_overhead": {"value": "2 us", "source": "..."},
 *     "overlap_slowdown": {"value": 0.189, "source": "..."},
 *     "comm_overlap_slowdown": {"value": 0.50, "source": "..."}  (optional: how much longer an
 *                   SM-driven collective inside the NVLink domain takes while compute runs
 *                   beside it, [0, 4]; absent = 0, not slowed; docs/step-model.md section 3),
 *     "power": {"compute": {...}, "comm": {...}, "wait": {...}},
 *     "clock_spread": {"value": 0.0088, "source": "..."}  (optional: the measured spread of the
 *                   sustained clock across GPUs of this SKU, standard deviation over mean, [0,
 *                   PL_GPU_CLOCK_CV_MAX]; the default of --gpu-variability, src/hw/variability.c)
 *   }
 *
 * Every entry must name its source: a number without one is refused. */
#include "hw/gpu_efficiency.h"
#include "hw/hw_int.h"

#include <stdio.h>
#include <string.h>

/* A plain number must stay below this: fractions are <= 1, a slowdown or a
 * power share a little above 1 is possible but anything larger is a typo. */
#define EFF_MAX_FRACTION 4.0
/* Shapes and tiles are products of three (two) positive integers. */
#define EFF_MAX_DIM (INT64_C(1) << 24)

static enum pl_status need_source(yajl_val v, const char *origin, const char *key,
                                  struct pl_diag *diag) {
  yajl_val s = base_json_get(v, "source");
  if (s == NULL || !YAJL_IS_STRING(s) || YAJL_GET_STRING(s)[0] == '\0')
    return pl_diag_set(
        diag, PL_ERR_MISSING,
        "%s: efficiency field '%s' needs a \"source\" naming where the number comes from", origin,
        key);
  return PL_OK;
}

static enum pl_status entry(yajl_val obj, const char *key, const char *origin, yajl_val *out,
                            struct pl_diag *diag) {
  yajl_val v = base_json_get(obj, key);
  if (v == NULL || !YAJL_IS_OBJECT(v))
    return pl_diag_set(
        diag, PL_ERR_MISSING,
        "%s: efficiency field '%s' missing (an object with \"value\" and \"source\")", origin, key);
  *out = v;
  return need_source(v, origin, key, diag);
}

static enum pl_status fraction(yajl_val obj, const char *key, const char *origin, double *out,
                               struct pl_diag *diag) {
  yajl_val v = NULL;
  enum pl_status st = entry(obj, key, origin, &v, diag);
  if (st != PL_OK)
    return st;
  yajl_val x = base_json_get(v, "value");
  if (x == NULL || !YAJL_IS_NUMBER(x))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: efficiency field '%s': \"value\" must be a number",
                       origin, key);
  double d = YAJL_GET_DOUBLE(x);
  if (!(d >= 0 && d <= EFF_MAX_FRACTION))
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: efficiency field '%s': %g is outside [0, %g]",
                       origin, key, d, EFF_MAX_FRACTION);
  *out = d;
  return PL_OK;
}

/* An optional sustained GEMM fraction: absent 0 (the burst rate), else in
 * (0, 1]: a sustained rate cannot beat the rate it is a fraction of. */
static enum pl_status sustained(yajl_val g, const char *key, const char *origin, double *out,
                                struct pl_diag *diag) {
  if (base_json_get(g, key) == NULL)
    return PL_OK;
  enum pl_status st = fraction(g, key, origin, out, diag);
  if (st == PL_OK && !(*out <= 1.0))
    st = pl_diag_set(diag, PL_ERR_RANGE,
                     "%s: efficiency field '%s': %g is above 1 (a sustained rate cannot beat the "
                     "rate it is a fraction of)",
                     origin, key, *out);
  return st;
}

static enum pl_status quantity(yajl_val obj, const char *key, enum pl_unit_kind kind,
                               const char *origin, double *out, struct pl_diag *diag) {
  yajl_val v = NULL;
  enum pl_status st = entry(obj, key, origin, &v, diag);
  if (st != PL_OK)
    return st;
  return base_json_unit(obj, key, kind, true, origin, out, diag);
}

/* "2048x2048x13312" or "128x256": want positive integers joined by 'x'. */
static enum pl_status dims(const char *text, int want, int64_t *out, const char *origin,
                           const char *key, struct pl_diag *diag) {
  const char *p = text;
  for (int i = 0; i < want; i++) {
    int64_t v = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9' && v < EFF_MAX_DIM; p++, digits++)
      v = v * 10 + (*p - '0');
    bool sep_ok = i + 1 < want ? *p == 'x' : *p == '\0';
    if (digits == 0 || v <= 0 || v >= EFF_MAX_DIM || !sep_ok)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "%s: efficiency field '%s': '%s' is not %s of positive integers", origin,
                         key, text, want == 3 ? "MxNxK" : "MxN");
    out[i] = v;
    p += i + 1 < want;
  }
  return PL_OK;
}

static enum pl_status dims_field(yajl_val v, const char *field, int want, int64_t *out,
                                 const char *origin, const char *key, struct pl_diag *diag) {
  yajl_val s = base_json_get(v, field);
  if (s == NULL || !YAJL_IS_STRING(s))
    return pl_diag_set(diag, PL_ERR_MISSING, "%s: efficiency field '%s' needs \"%s\" as a string",
                       origin, key, field);
  return dims(YAJL_GET_STRING(s), want, out, origin, key, diag);
}

static enum pl_status mamf(yajl_val gemm, const char *key, bool required, const char *origin,
                           double *rate, int64_t shape[3], struct pl_diag *diag) {
  if (!required && base_json_get(gemm, key) == NULL)
    return PL_OK;
  yajl_val v = NULL;
  enum pl_status st = entry(gemm, key, origin, &v, diag);
  if (st == PL_OK)
    st = base_json_unit(gemm, key, PL_UNIT_FLOPS_PER_S, true, origin, rate, diag);
  if (st == PL_OK)
    st = dims_field(v, "shape", 3, shape, origin, key, diag);
  return st;
}

/* "tile_fixed_k" (GEMM) or "*_tile_fixed_keys" (attention): a number of K
 * elements (key positions) in [0, 65536]. */
static enum pl_status tile_fixed_k(yajl_val g, const char *key, const char *origin, double *out,
                                   struct pl_diag *diag) {
  yajl_val v = NULL;
  enum pl_status st = entry(g, key, origin, &v, diag);
  if (st != PL_OK)
    return st;
  yajl_val x = base_json_get(v, "value");
  if (x == NULL || !YAJL_IS_NUMBER(x))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: efficiency field '%s': \"value\" must be a number", origin, key);
  double d = YAJL_GET_DOUBLE(x);
  if (!(d >= 0 && d <= 65536))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: efficiency field '%s': %g is outside [0, 65536] K elements", origin,
                       key, d);
  *out = d;
  return PL_OK;
}

/* An optional ratio of two measured rates: a number in (0, EFF_MAX_FRACTION];
 * absent leaves *out at 0 (not given). */
static enum pl_status rate_ratio(yajl_val obj, const char *key, const char *origin, double *out,
                                 struct pl_diag *diag) {
  if (base_json_get(obj, key) == NULL)
    return PL_OK;
  enum pl_status st = fraction(obj, key, origin, out, diag);
  if (st == PL_OK && !(*out > 0))
    st = pl_diag_set(diag, PL_ERR_RANGE,
                     "%s: efficiency field '%s': a ratio of GEMM rates must be above 0", origin,
                     key);
  return st;
}

static enum pl_status gemm_part(yajl_val eff, const char *origin, struct pl_gpu_efficiency *e,
                                struct pl_diag *diag) {
  yajl_val g = base_json_get(eff, "gemm");
  if (g == NULL || !YAJL_IS_OBJECT(g))
    return pl_diag_set(diag, PL_ERR_MISSING, "%s: efficiency needs a \"gemm\" object", origin);
  enum pl_status st =
      mamf(g, "mamf", true, origin, &e->gemm_mamf_flops_per_s, e->gemm_mamf_shape, diag);
  if (st == PL_OK)
    st = mamf(g, "mamf_fp8", false, origin, &e->gemm_fp8_mamf_flops_per_s, e->gemm_fp8_mamf_shape,
              diag);
  yajl_val t;
  if (st == PL_OK)
    st = entry(g, "tile", origin, &t, diag);
  int64_t tile[2] = {0, 0};
  if (st == PL_OK)
    st = dims_field(t, "value", 2, tile, origin, "tile", diag);
  e->gemm_tile_m = tile[0];
  e->gemm_tile_n = tile[1];
  /* optional: a second tile BF16 kernels are seen to run, chosen by the fewest
   * output elements the waves pay for (docs/step-model.md 2.1) */
  int64_t alt[2] = {0, 0};
  if (st == PL_OK && base_json_get(g, "tile_alt_bf16") != NULL) {
    st = entry(g, "tile_alt_bf16", origin, &t, diag);
    if (st == PL_OK)
      st = dims_field(t, "value", 2, alt, origin, "tile_alt_bf16", diag);
  }
  e->gemm_tile_alt_bf16_m = alt[0];
  e->gemm_tile_alt_bf16_n = alt[1];
  /* optional: the rate a GEMM sustains at the power limit, as a fraction of the burst MAMF;
   * and the same for FP8 GEMMs, measured against the file's FP8 rate (docs/step-model.md
   * 2.1: h100's FP8 anchor was itself timed under the cap) */
  if (st == PL_OK)
    st = sustained(g, "sustained_fraction", origin, &e->gemm_sustained_fraction, diag);
  if (st == PL_OK)
    st = sustained(g, "sustained_fraction_fp8", origin, &e->gemm_sustained_fraction_fp8, diag);
  /* optional: each output tile's cost outside its K loop, in K elements */
  if (st == PL_OK && base_json_get(g, "tile_fixed_k") != NULL)
    st = tile_fixed_k(g, "tile_fixed_k", origin, &e->gemm_tile_fixed_k, diag);
  /* optional: the same for FP8 GEMMs, whose K loop runs twice as many K
   * elements per cycle, so the same fixed time is more K elements */
  if (st == PL_OK && base_json_get(g, "tile_fixed_k_fp8") != NULL)
    st = tile_fixed_k(g, "tile_fixed_k_fp8", origin, &e->gemm_tile_fixed_k_fp8, diag);
  /* optional: the block-scaled GEMMs' measured rate against the tensor-scaled
   * FP8 GEMM's at the same shapes (a ratio of rates, 0 < r <= 4) */
  if (st == PL_OK)
    st = rate_ratio(g, "mxfp8_vs_fp8", origin, &e->gemm_mxfp8_vs_fp8, diag);
  if (st == PL_OK)
    st = rate_ratio(g, "nvfp4_vs_fp8", origin, &e->gemm_nvfp4_vs_fp8, diag);
  /* optional: whether the MAMF figures are the best rate of a shape search
   * (mamf-finder's definition: no shape runs faster), so that they cap every
   * GEMM; false in files written by `plateau calibrate compute`, whose rate is
   * a fitted anchor at one shape */
  bool ceiling = true;
  if (st == PL_OK && base_json_get(g, "mamf_is_ceiling") != NULL) {
    st = need_source(base_json_get(g, "mamf_is_ceiling"), origin, "mamf_is_ceiling", diag);
    if (st == PL_OK)
      st = hw_bool(g, "mamf_is_ceiling", true, origin, &ceiling, diag);
  }
  e->gemm_mamf_not_ceiling = !ceiling;
  return st;
}

/* An attention kernel's optional rate by shape (docs/step-model.md 2.2): the
 * object `key` under `kernel` (named `what` in errors) with the large-shape
 * asymptote of each pass and each query tile's fixed cost in key positions. */
static enum pl_status attention_shape(yajl_val kernel, const char *key, const char *what,
                                      const char *origin, double *fwd, double *bwd,
                                      double *fwd_keys, double *bwd_keys, struct pl_diag *diag) {
  yajl_val sh = base_json_get(kernel, key);
  if (sh == NULL)
    return PL_OK;
  if (!YAJL_IS_OBJECT(sh))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: efficiency field '%s' must be an object with \"fwd_fraction\", "
                       "\"bwd_fraction\", \"fwd_tile_fixed_keys\" and \"bwd_tile_fixed_keys\"",
                       origin, what);
  enum pl_status st = fraction(sh, "fwd_fraction", origin, fwd, diag);
  if (st == PL_OK)
    st = fraction(sh, "bwd_fraction", origin, bwd, diag);
  if (st == PL_OK)
    st = tile_fixed_k(sh, "fwd_tile_fixed_keys", origin, fwd_keys, diag);
  if (st == PL_OK)
    st = tile_fixed_k(sh, "bwd_tile_fixed_keys", origin, bwd_keys, diag);
  return st;
}

/* cuDNN's MXFP8 attention as its time over the BF16 kernel's at the same shapes
 * (layout.fp8_attention, docs/step-model.md 2.2 "MXFP8 attention"): the optional
 * object attention.cudnn.mxfp8_time_ratio with the forward and backward ratio of
 * head dims <= 128 and of latent attention's 192/128 heads, each above 0. */
static enum pl_status mxfp8_attention(yajl_val cu, const char *origin,
                                      struct pl_gpu_efficiency *e, struct pl_diag *diag) {
  yajl_val r = base_json_get(cu, "mxfp8_time_ratio");
  if (r == NULL)
    return PL_OK;
  if (!YAJL_IS_OBJECT(r))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: efficiency field 'attention.cudnn.mxfp8_time_ratio' must be an object "
                       "with \"fwd\", \"bwd\", \"mla_fwd\" and \"mla_bwd\"",
                       origin);
  const char *keys[] = {"fwd", "bwd", "mla_fwd", "mla_bwd"};
  double *out[] = {&e->attn_cudnn_mxfp8_fwd_ratio, &e->attn_cudnn_mxfp8_bwd_ratio,
                   &e->attn_cudnn_mxfp8_mla_fwd_ratio, &e->attn_cudnn_mxfp8_mla_bwd_ratio};
  enum pl_status st = PL_OK;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0] && st == PL_OK; i++) {
    st = fraction(r, keys[i], origin, out[i], diag);
    if (st == PL_OK && !(*out[i] > 0))
      st = pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: efficiency field '%s' of attention.cudnn.mxfp8_time_ratio: a time "
                       "ratio must be above 0",
                       origin, keys[i]);
  }
  return st;
}

/* The optional rates by shape of older cuDNN releases: every key of
 * attention.cudnn that names one (pl_cudnn_shape_key), each read as
 * attention.cudnn.shape, kept in ascending order of the release. */
static enum pl_status cudnn_versions(yajl_val cu, const char *origin, struct pl_gpu_efficiency *e,
                                     struct pl_diag *diag) {
  enum pl_status st = PL_OK;
  for (size_t i = 0; i < cu->u.object.len && st == PL_OK; i++) {
    const char *k = cu->u.object.keys[i];
    int64_t from = 0, through = 0;
    if (!pl_cudnn_shape_key(k, &from, &through))
      continue;
    int n = e->attn_cudnn_version_count;
    for (int j = 0; j < n; j++)
      if (e->attn_cudnn_versions[j].cudnn_through == through)
        return pl_diag_set(diag, PL_ERR_PARSE,
                           "%s: efficiency field 'attention.cudnn.%s' names a cuDNN release "
                           "given twice",
                           origin, k);
    if (n >= PL_ATTN_CUDNN_VERSIONS_MAX)
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "%s: attention.cudnn gives more than %d cuDNN releases' shapes", origin,
                         PL_ATTN_CUDNN_VERSIONS_MAX);
    struct pl_attn_cudnn_shape v = {.cudnn_from = from, .cudnn_through = through};
    char what[64];
    snprintf(what, sizeof what, "attention.cudnn.%s", k);
    st = attention_shape(cu, k, what, origin, &v.fwd_fraction, &v.bwd_fraction,
                         &v.fwd_tile_fixed_keys, &v.bwd_tile_fixed_keys, diag);
    int at = n;
    while (at > 0 && e->attn_cudnn_versions[at - 1].cudnn_through > through) {
      e->attn_cudnn_versions[at] = e->attn_cudnn_versions[at - 1];
      at--;
    }
    e->attn_cudnn_versions[at] = v;
    e->attn_cudnn_version_count = n + 1;
  }
  return st;
}

/* The optional attention.cudnn.tensor_flops_per_exp (docs/step-model.md 2.2
 * "Head dim 64"): the dense 16-bit tensor-core FLOPs an SM does in the time its
 * SFUs do one exponential, a number in [1, 65536]; absent leaves *out at 0. */
static enum pl_status tensor_flops_per_exp(yajl_val cu, const char *origin, double *out,
                                           struct pl_diag *diag) {
  const char *key = "tensor_flops_per_exp";
  yajl_val v = NULL;
  if (base_json_get(cu, key) == NULL)
    return PL_OK;
  enum pl_status st = entry(cu, key, origin, &v, diag);
  if (st != PL_OK)
    return st;
  yajl_val x = base_json_get(v, "value");
  if (x == NULL || !YAJL_IS_NUMBER(x))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: efficiency field 'attention.cudnn.%s': \"value\" must be a number",
                       origin, key);
  double d = YAJL_GET_DOUBLE(x);
  if (!(d >= 1 && d <= 65536))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: efficiency field 'attention.cudnn.%s': %g is outside [1, 65536] "
                       "FLOPs per exponential",
                       origin, key, d);
  *out = d;
  return PL_OK;
}

static enum pl_status attention_part(yajl_val eff, const char *origin, struct pl_gpu_efficiency *e,
                                     struct pl_diag *diag) {
  yajl_val a = base_json_get(eff, "attention");
  if (a == NULL || !YAJL_IS_OBJECT(a))
    return pl_diag_set(diag, PL_ERR_MISSING, "%s: efficiency needs an \"attention\" object",
                       origin);
  enum pl_status st =
      base_json_str(a, "kernel", true, origin, e->attn_kernel, sizeof e->attn_kernel, diag);
  if (st == PL_OK)
    st = fraction(a, "fwd_fraction", origin, &e->attn_fwd_fraction, diag);
  if (st == PL_OK)
    st = fraction(a, "bwd_fraction", origin, &e->attn_bwd_fraction, diag);
  /* optional: the Triton FlashAttention kernel, same two fractions */
  yajl_val t = base_json_get(a, "triton");
  if (st == PL_OK && t != NULL && !YAJL_IS_OBJECT(t))
    st = pl_diag_set(diag, PL_ERR_PARSE,
                     "%s: efficiency field 'attention.triton' must be an object with "
                     "\"fwd_fraction\" and \"bwd_fraction\"",
                     origin);
  if (st == PL_OK && t != NULL)
    st = fraction(t, "fwd_fraction", origin, &e->attn_triton_fwd_fraction, diag);
  if (st == PL_OK && t != NULL)
    st = fraction(t, "bwd_fraction", origin, &e->attn_triton_bwd_fraction, diag);
  /* optional: cuDNN's fused flash attention (Transformer Engine FusedAttention,
   * SDPA cudnn_attention), same two fractions */
  yajl_val cu = base_json_get(a, "cudnn");
  if (st == PL_OK && cu != NULL && !YAJL_IS_OBJECT(cu))
    st = pl_diag_set(diag, PL_ERR_PARSE,
                     "%s: efficiency field 'attention.cudnn' must be an object with "
                     "\"fwd_fraction\" and \"bwd_fraction\"",
                     origin);
  if (st == PL_OK && cu != NULL)
    st = fraction(cu, "fwd_fraction", origin, &e->attn_cudnn_fwd_fraction, diag);
  if (st == PL_OK && cu != NULL)
    st = fraction(cu, "bwd_fraction", origin, &e->attn_cudnn_bwd_fraction, diag);
  /* optional: cuDNN's rate by shape (docs/step-model.md 2.2) */
  if (st == PL_OK && cu != NULL)
    st = attention_shape(cu, "shape", "attention.cudnn.shape", origin, &e->attn_cudnn_shape_fwd_fraction,
                         &e->attn_cudnn_shape_bwd_fraction, &e->attn_cudnn_fwd_tile_fixed_keys,
                         &e->attn_cudnn_bwd_tile_fixed_keys, diag);
  /* optional: FlashAttention-2's rate by shape, the same four parameters */
  if (st == PL_OK)
    st = attention_shape(a, "shape", "attention.shape", origin, &e->attn_shape_fwd_fraction,
                         &e->attn_shape_bwd_fraction, &e->attn_fwd_tile_fixed_keys,
                         &e->attn_bwd_tile_fixed_keys, diag);
  /* optional: FlashAttention-2's at head dims <= 64 (docs/step-model.md 2.2 "Head dim 64") */
  if (st == PL_OK)
    st = attention_shape(a, "shape_head_dim_64", "attention.shape_head_dim_64", origin,
                         &e->attn_hd64_shape_fwd_fraction, &e->attn_hd64_shape_bwd_fraction,
                         &e->attn_hd64_fwd_tile_fixed_keys, &e->attn_hd64_bwd_tile_fixed_keys,
                         diag);
  /* optional: the same four as older cuDNN releases ran it (shape_<major>_<minor>,
   * shape_2024; docs/step-model.md 2.2 "cuDNN by version") */
  if (st == PL_OK && cu != NULL)
    st = cudnn_versions(cu, origin, e, diag);
  if (st == PL_OK && cu != NULL)
    st = mxfp8_attention(cu, origin, e, diag);
  /* optional: the same four at head dims <= 64 (docs/step-model.md 2.2 "Head dim 64") */
  if (st == PL_OK && cu != NULL)
    st = attention_shape(cu, "shape_head_dim_64", "attention.cudnn.shape_head_dim_64", origin,
                         &e->attn_cudnn_hd64_shape_fwd_fraction,
                         &e->attn_cudnn_hd64_shape_bwd_fraction,
                         &e->attn_cudnn_hd64_fwd_tile_fixed_keys,
                         &e->attn_cudnn_hd64_bwd_tile_fixed_keys, diag);
  if (st == PL_OK && cu != NULL)
    st = tensor_flops_per_exp(cu, origin, &e->attn_tensor_flops_per_exp, diag);
  return st;
}

/* Optional: the Mamba-2 mixer's Triton kernels (mamba_ssm ssd_combined.py,
 * layernorm_gated.py) by op, each with its forward and backward rate
 * (docs/step-model.md 2.2b). A given object must name all six ops. */
static enum pl_status mamba_ssm_part(yajl_val eff, const char *origin,
                                     struct pl_gpu_efficiency *e, struct pl_diag *diag) {
  static const char *const parts[PL_SSD_KERNELS] = {
      "ssd_states", "ssd_chunk_state", "ssd_bmm_cb", "ssd_chunk_scan", "ssm_norm", "ssd_gate"};
  yajl_val s = base_json_get(eff, "mamba_ssm");
  if (s == NULL)
    return PL_OK;
  if (!YAJL_IS_OBJECT(s))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: efficiency field 'mamba_ssm' must be an object with \"ssd_states\", "
                       "\"ssd_chunk_state\", \"ssd_bmm_cb\", \"ssd_chunk_scan\", \"ssm_norm\" and "
                       "\"ssd_gate\"",
                       origin);
  enum pl_status st = PL_OK;
  for (int i = 0; i < PL_SSD_KERNELS && st == PL_OK; i++) {
    yajl_val p = base_json_get(s, parts[i]);
    if (p == NULL || !YAJL_IS_OBJECT(p))
      return pl_diag_set(diag, PL_ERR_MISSING,
                         "%s: efficiency field 'mamba_ssm.%s' missing (an object with "
                         "\"fwd_fraction\" and \"bwd_fraction\")",
                         origin, parts[i]);
    st = fraction(p, "fwd_fraction", origin, &e->ssd_fwd_fraction[i], diag);
    if (st == PL_OK)
      st = fraction(p, "bwd_fraction", origin, &e->ssd_bwd_fraction[i], diag);
    if (st == PL_OK && !(e->ssd_fwd_fraction[i] > 0 && e->ssd_bwd_fraction[i] > 0 &&
                         e->ssd_fwd_fraction[i] <= 1 && e->ssd_bwd_fraction[i] <= 1))
      st = pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: efficiency field 'mamba_ssm.%s': a fraction of a peak must be in (0, 1]",
                       origin, parts[i]);
  }
  return st;
}

static enum pl_status power_part(yajl_val eff, const char *origin, struct pl_gpu_efficiency *e,
                                 struct pl_diag *diag) {
  yajl_val p = base_json_get(eff, "power");
  if (p == NULL || !YAJL_IS_OBJECT(p))
    return pl_diag_set(diag, PL_ERR_MISSING, "%s: efficiency needs a \"power\" object", origin);
  enum pl_status st = fraction(p, "compute", origin, &e->power_compute, diag);
  if (st == PL_OK)
    st = fraction(p, "comm", origin, &e->power_comm, diag);
  if (st == PL_OK)
    st = fraction(p, "wait", origin, &e->power_wait, diag);
  return st;
}

/* The optional measured spread of the GPUs' sustained clocks (clock_spread):
 * the default of pl_gpu.clock_cv, which --gpu-variability overrides (off: 0). */
static enum pl_status clock_spread(yajl_val eff, const char *origin, double *out,
                                   struct pl_diag *diag) {
  if (base_json_get(eff, "clock_spread") == NULL)
    return PL_OK;
  enum pl_status st = fraction(eff, "clock_spread", origin, out, diag);
  if (st == PL_OK && !(*out <= PL_GPU_CLOCK_CV_MAX))
    st = pl_diag_set(diag, PL_ERR_RANGE,
                     "%s: efficiency field 'clock_spread': %g is outside [0, %g] (standard "
                     "deviation over mean of the GPUs' sustained clocks)",
                     origin, *out, PL_GPU_CLOCK_CV_MAX);
  return st;
}

/* An optional plain number in [0, EFF_MAX_FRACTION] (comm_overlap_slowdown): absent
 * leaves *out 0. */
static enum pl_status optional_fraction(yajl_val eff, const char *key, const char *origin,
                                        double *out, struct pl_diag *diag) {
  if (base_json_get(eff, key) == NULL)
    return PL_OK;
  return fraction(eff, key, origin, out, diag);
}

/* An optional measured quantize rate (mxfp8_quantize, fp8_current_quantize,
 * nvfp4_quantize), eager or compiled norm or RoPE rate (layer_norm_eager, rms_norm_eager,
 * rms_norm_compiled, rope_eager, rope_eager_bwd) or non-vectorized element-wise rate (strided_elementwise): a fraction of the
 * HBM bandwidth in (0, 1]; absent leaves 0. */
static enum pl_status quantize_fraction(yajl_val eff, const char *key, const char *origin,
                                        double *out, struct pl_diag *diag) {
  if (base_json_get(eff, key) == NULL)
    return PL_OK;
  enum pl_status st = fraction(eff, key, origin, out, diag);
  if (st == PL_OK && !(*out > 0 && *out <= 1))
    st = pl_diag_set(diag, PL_ERR_RANGE,
                     "%s: efficiency field '%s': a fraction of the HBM bandwidth must be in (0, 1]",
                     origin, key);
  return st;
}

enum pl_status hw_gpu_efficiency_load(yajl_val root, const char *origin, struct pl_gpu *out,
                                      struct pl_diag *diag) {
  struct pl_gpu_efficiency *e = &out->eff;
  memset(e, 0, sizeof *e);
  yajl_val eff = base_json_get(root, "efficiency");
  if (eff == NULL)
    return PL_OK;
  if (!YAJL_IS_OBJECT(eff))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'efficiency' must be an object", origin);
  enum pl_status st = gemm_part(eff, origin, e, diag);
  if (st == PL_OK)
    st = attention_part(eff, origin, e, diag);
  if (st == PL_OK)
    st = mamba_ssm_part(eff, origin, e, diag);
  if (st == PL_OK)
    st = fraction(eff, "hbm_fraction", origin, &e->hbm_fraction, diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "mxfp8_quantize", origin, &e->mxfp8_quantize_fraction, diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "fp8_current_quantize", origin,
                           &e->fp8_current_quantize_fraction, diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "nvfp4_quantize", origin, &e->nvfp4_quantize_fraction, diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "layer_norm_eager", origin, &e->layer_norm_eager_fraction, diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "rms_norm_eager", origin, &e->rms_norm_eager_fraction, diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "rms_norm_compiled", origin, &e->rms_norm_compiled_fraction,
                           diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "strided_elementwise", origin, &e->strided_elementwise_fraction,
                           diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "rope_eager", origin, &e->rope_eager_fraction, diag);
  if (st == PL_OK)
    st = quantize_fraction(eff, "rope_eager_bwd", origin, &e->rope_eager_bwd_fraction, diag);
  if (st == PL_OK)
    st = quantity(eff, "kernel_overhead", PL_UNIT_SECONDS, origin, &e->kernel_overhead_s, diag);
  if (st == PL_OK)
    st = fraction(eff, "overlap_slowdown", origin, &e->overlap_slowdown, diag);
  if (st == PL_OK)
    st = optional_fraction(eff, "comm_overlap_slowdown", origin, &e->comm_overlap_slowdown, diag);
  if (st == PL_OK)
    st = power_part(eff, origin, e, diag);
  if (st == PL_OK)
    st = clock_spread(eff, origin, &out->clock_cv, diag);
  e->present = st == PL_OK;
  return st;
}
