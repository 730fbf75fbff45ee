/* compute_fit.c: the GPU file's compute efficiencies fitted to measured
 * kernels (include/plateau/calib_compute.h, docs/ground-truth.md).
 *
 * Every fit minimises the relative time error sum((pred - t) / t)^2 under
 * the step model's own formulas (src/sim/compute.c):
 *  - GEMM: t = 2 W (K + k0) / R, W the tile-and-wave work of m x n on the
 *    base file's tile and SM count; with u = the base model's time at K = 1
 *    (2 W / R0) this is t = s u (K + k0): linear in s and s k0, solved from
 *    the 2 x 2 normal equations; when the K values cannot separate k0 (one K,
 *    or a negative k0) k0 stays the base file's and only s is fitted. GEMMs
 *    the base model calls memory-bound are left out of the fit. The GPU file
 *    records the result as the rate the fitted model gives the file's MAMF
 *    shape (gemm.mamf) and k0 (gemm.tile_fixed_k), with
 *    gemm.sustained_fraction 1: the fitted rate is what the kernels ran at.
 *  - FP8 GEMM: the same with k0 = 0 (compute.c charges FP8 no fixed cost).
 *  - attention: t = F / (peak f), F the executed FLOPs (half the counted ones
 *    when causal, as compute.c): f = sum c^2 / sum c with c = F / (peak t).
 *  - memory-bound: t = B / (bandwidth f): f = sum c^2 / sum c, c = B / (bw t).
 * Kernel durations exclude the launch gap the model adds per kernel
 * (kernel_overhead), so predictions here leave it out. Figures with no
 * observation keep their base predictions: the base sustained fraction is
 * folded into them when it becomes 1. */
#include <plateau/calib_compute.h>
#include <plateau/flops.h>
#include <plateau/sim.h>

#include <math.h>
#include <string.h>

/* The base model with no launch gap, no memory floor, no per-tile fixed cost
 * and no sustained fraction: pure tile-and-wave math time. */
static struct pl_gpu math_only(const struct pl_gpu *base) {
  struct pl_gpu g = *base;
  g.eff.kernel_overhead_s = 0;
  g.eff.gemm_tile_fixed_k = 0;
  g.eff.gemm_tile_fixed_k_fp8 = 0;
  g.eff.gemm_sustained_fraction = 1.0;
  g.eff.gemm_sustained_fraction_fp8 = 0; /* FP8 takes the 1 above */
  g.eff.gemm_mamf_not_ceiling = true;
  g.hbm_bytes_per_s = 1e30;
  return g;
}

static enum pl_dtype dtype_of(const struct pl_compute_obs *o) {
  return o->kind == PL_COMPUTE_GEMM_FP8 ? PL_DTYPE_FP8 : PL_DTYPE_BF16;
}

double pl_compute_obs_time_s(const struct pl_gpu *g, const struct pl_compute_obs *o) {
  double ovh = g->eff.kernel_overhead_s;
  if (o->kind == PL_COMPUTE_GEMM || o->kind == PL_COMPUTE_GEMM_FP8)
    return pl_gemm_time_s(g, dtype_of(o), o->m, o->n, o->k, o->count) - ovh;
  struct pl_op op;
  memset(&op, 0, sizeof op);
  op.name = "calibrated";
  op.count = o->count > 0 ? o->count : 1;
  enum pl_pass pass = o->kind == PL_COMPUTE_ATTN_BWD ? PL_PASS_BWD : PL_PASS_FWD;
  if (o->kind == PL_COMPUTE_MEMORY) {
    op.kind = PL_OP_MEMORY;
    op.fwd_bytes = o->bytes;
  } else {
    op.kind = PL_OP_ATTENTION;
    op.m = o->m;
    op.n = o->n;
    op.k = o->k;
    op.causal = true;
    op.fwd_flops = pass == PL_PASS_BWD ? o->flops / 2.5 : o->flops;
    op.bwd_flops = pass == PL_PASS_BWD ? o->flops : 2.5 * o->flops;
    op.fwd_bytes = op.bwd_bytes = o->bytes;
  }
  return pl_op_time_s(g, PL_DTYPE_BF16, &op, pass) - pl_op_kernels(&op, pass) * ovh;
}

/* Is this GEMM math-bound in the base model (compute.c: max of math, HBM)? */
static bool gemm_math_bound(const struct pl_gpu *base, const struct pl_compute_obs *o) {
  double elem = o->kind == PL_COMPUTE_GEMM_FP8 ? 1.0 : 2.0;
  double bytes = (elem * ((double)o->m * o->k + (double)o->k * o->n) + 2.0 * (double)o->m * o->n) *
                 (double)o->count;
  double bw = base->hbm_bytes_per_s * base->eff.hbm_fraction;
  struct pl_gpu g = *base;
  g.eff.kernel_overhead_s = 0;
  g.hbm_bytes_per_s = 1e30;
  double t_math = pl_gemm_time_s(&g, dtype_of(o), o->m, o->n, o->k, o->count);
  return bw <= 0 || bytes / bw <= t_math;
}

struct gemm_fit { double s, k0; int64_t ops; bool k0_fitted; };

/* Least squares of t = s u (K + k0) on relative error; k0 fixed at k0_base
 * when fix_k0 or when the data cannot separate it. */
static struct gemm_fit fit_gemm(const struct pl_gpu *base, const struct pl_compute_obs *obs,
                                size_t n, enum pl_compute_kind kind, double k0_base, bool fix_k0) {
  struct pl_gpu g0 = math_only(base);
  double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
  struct gemm_fit f = {0, k0_base, 0, false};
  for (size_t i = 0; i < n; i++) {
    const struct pl_compute_obs *o = &obs[i];
    if (o->kind != kind || !gemm_math_bound(base, o))
      continue;
    double u = pl_gemm_time_s(&g0, dtype_of(o), o->m, o->n, 1, o->count);
    double x1 = u * (double)o->k / o->time_s, x2 = u / o->time_s; /* scaled by 1/t */
    a11 += x1 * x1;
    a12 += x1 * x2;
    a22 += x2 * x2;
    b1 += x1;
    b2 += x2;
    f.ops++;
  }
  if (f.ops == 0)
    return f;
  double det = a11 * a22 - a12 * a12;
  if (!fix_k0 && f.ops >= 2 && det > 1e-9 * a11 * a22) {
    double c1 = (b1 * a22 - b2 * a12) / det, c2 = (a11 * b2 - a12 * b1) / det;
    if (c1 > 0 && c2 >= 0) {
      f.s = c1;
      f.k0 = c2 / c1;
      f.k0_fitted = true;
      return f;
    }
  }
  /* s alone: t = s u (K + k0): s = sum a / sum a^2 with a = u (K + k0) / t */
  double sa = 0, saa = 0;
  for (size_t i = 0; i < n; i++) {
    const struct pl_compute_obs *o = &obs[i];
    if (o->kind != kind || !gemm_math_bound(base, o))
      continue;
    double a = pl_gemm_time_s(&g0, dtype_of(o), o->m, o->n, 1, o->count) *
               ((double)o->k + f.k0) / o->time_s;
    sa += a;
    saa += a * a;
  }
  f.s = saa > 0 ? sa / saa : 0;
  return f;
}

/* f = sum c^2 / sum c over the observations of a kind, c = work / (rate t). */
static double fit_fraction(const struct pl_gpu *base, const struct pl_compute_obs *obs, size_t n,
                           enum pl_compute_kind kind, int64_t *ops) {
  double sc = 0, scc = 0;
  *ops = 0;
  for (size_t i = 0; i < n; i++) {
    const struct pl_compute_obs *o = &obs[i];
    if (o->kind != kind)
      continue;
    double c;
    if (kind == PL_COMPUTE_MEMORY)
      c = o->bytes / (base->hbm_bytes_per_s * o->time_s);
    else
      c = o->flops * (o->n >= o->m ? 0.5 : 1.0) / (base->peak_bf16_flops_per_s * o->time_s);
    sc += c;
    scc += c * c;
    (*ops)++;
  }
  return sc > 0 ? scc / sc : 0;
}

/* The rate the (fitted or base) GEMM model gives a shape: what gemm.mamf and
 * gemm.mamf_fp8 record (compute.c reproduces it at that shape). */
static double rate_at(const struct pl_gpu *g, enum pl_dtype dt, const int64_t shape[3]) {
  struct pl_gpu h = *g;
  h.eff.kernel_overhead_s = 0;
  h.hbm_bytes_per_s = 1e30;
  double t = pl_gemm_time_s(&h, dt, shape[0], shape[1], shape[2], 1);
  return t > 0 ? 2.0 * (double)shape[0] * (double)shape[1] * (double)shape[2] / t : 0;
}

/* Residuals and totals of one parameter's observations under g. */
static void score(const struct pl_gpu *g, const struct pl_compute_obs *obs, size_t n,
                  enum pl_compute_kind kind, struct pl_compute_param *p) {
  double se = 0;
  p->ops = p->kernels = 0;
  p->measured_s = p->predicted_s = 0;
  for (size_t i = 0; i < n; i++) {
    if (obs[i].kind != kind)
      continue;
    double t = pl_compute_obs_time_s(g, &obs[i]);
    double e = t / obs[i].time_s - 1.0;
    se += e * e;
    p->ops++;
    p->kernels += obs[i].kernels;
    p->measured_s += obs[i].time_s;
    p->predicted_s += t;
  }
  p->rms_rel_err = p->ops > 0 ? sqrt(se / (double)p->ops) : 0;
}

/* The GPU with the fitted GEMM figures written the way the file holds them. */
static void apply_gemm(const struct pl_gpu *base, struct pl_gpu *out, struct gemm_fit bf,
                       struct gemm_fit f8) {
  struct pl_gpu g0 = math_only(base);
  const struct pl_gpu_efficiency *e = &base->eff;
  struct pl_gpu_efficiency *o = &out->eff;
  /* bf16: fitted t(shape) = s u(shape) (K + k0); unfitted: the base model's */
  if (bf.ops > 0) {
    double t = bf.s * pl_gemm_time_s(&g0, PL_DTYPE_BF16, e->gemm_mamf_shape[0],
                                     e->gemm_mamf_shape[1], 1, 1) *
               ((double)e->gemm_mamf_shape[2] + bf.k0);
    o->gemm_mamf_flops_per_s = 2.0 * (double)e->gemm_mamf_shape[0] * (double)e->gemm_mamf_shape[1] *
                               (double)e->gemm_mamf_shape[2] / t;
    o->gemm_tile_fixed_k = bf.k0;
  } else {
    o->gemm_mamf_flops_per_s = rate_at(base, PL_DTYPE_BF16, e->gemm_mamf_shape);
  }
  /* fp8 at its own shape (or the bf16 MAMF shape when the base has none) */
  const int64_t *s8 = e->gemm_fp8_mamf_flops_per_s > 0 ? e->gemm_fp8_mamf_shape : e->gemm_mamf_shape;
  memcpy(o->gemm_fp8_mamf_shape, s8, sizeof o->gemm_fp8_mamf_shape);
  if (f8.ops > 0) {
    double t = f8.s * pl_gemm_time_s(&g0, PL_DTYPE_FP8, s8[0], s8[1], 1, 1) *
               ((double)s8[2] + f8.k0);
    o->gemm_fp8_mamf_flops_per_s = 2.0 * (double)s8[0] * (double)s8[1] * (double)s8[2] / t;
  } else if (base->peak_fp8_flops_per_s > 0) {
    o->gemm_fp8_mamf_flops_per_s = rate_at(base, PL_DTYPE_FP8, s8);
  }
  o->gemm_sustained_fraction = 1.0;
  o->gemm_sustained_fraction_fp8 = 0; /* the fitted FP8 rate has it folded in too */
  o->gemm_mamf_not_ceiling = true; /* a fitted anchor, not a searched maximum */
}

static void set_param(struct pl_compute_param *p, bool fitted, double before, double after) {
  memset(p, 0, sizeof *p);
  p->fitted = fitted;
  p->before = before;
  p->after = after;
}

enum pl_status pl_calib_compute(const struct pl_gpu *base, const struct pl_compute_obs *obs,
                                size_t n_obs, struct pl_gpu *out, struct pl_compute_fit *fit,
                                struct pl_diag *diag) {
  memset(fit, 0, sizeof *fit);
  const struct pl_gpu_efficiency *e = &base->eff;
  if (!e->present || e->gemm_mamf_flops_per_s <= 0 || base->sm_count <= 0)
    return pl_diag_set(diag, PL_ERR_MISSING,
                       "calibrate compute: GPU '%s' has no efficiency figures to start from",
                       base->name);
  for (size_t i = 0; i < n_obs; i++)
    if (!(obs[i].time_s > 0) || !isfinite(obs[i].time_s))
      return pl_diag_set(diag, PL_ERR_RANGE, "calibrate compute: observation %zu has no time", i);
  if (n_obs == 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "calibrate compute: no kernel whose shape could be recovered (was the "
                       "trace recorded with record_shapes=True?)");
  double sus = e->gemm_sustained_fraction > 0 ? e->gemm_sustained_fraction : 1.0;
  struct gemm_fit bf = fit_gemm(base, obs, n_obs, PL_COMPUTE_GEMM, e->gemm_tile_fixed_k, false);
  /* FP8: the rate alone, the GPU file's FP8 per-tile cost kept (0 when none) */
  struct gemm_fit f8 =
      fit_gemm(base, obs, n_obs, PL_COMPUTE_GEMM_FP8, e->gemm_tile_fixed_k_fp8, true);
  *out = *base;
  apply_gemm(base, out, bf, f8);
  int64_t n_fwd = 0, n_bwd = 0, n_mem = 0;
  double ffwd = fit_fraction(base, obs, n_obs, PL_COMPUTE_ATTN_FWD, &n_fwd);
  double fbwd = fit_fraction(base, obs, n_obs, PL_COMPUTE_ATTN_BWD, &n_bwd);
  double fmem = fit_fraction(base, obs, n_obs, PL_COMPUTE_MEMORY, &n_mem);
  out->eff.attn_fwd_fraction = n_fwd > 0 ? ffwd : e->attn_fwd_fraction * sus;
  out->eff.attn_bwd_fraction = n_bwd > 0 ? fbwd : e->attn_bwd_fraction * sus;
  out->eff.attn_triton_fwd_fraction = e->attn_triton_fwd_fraction * sus;
  out->eff.attn_triton_bwd_fraction = e->attn_triton_bwd_fraction * sus;
  out->eff.attn_cudnn_fwd_fraction = e->attn_cudnn_fwd_fraction * sus;
  out->eff.attn_cudnn_bwd_fraction = e->attn_cudnn_bwd_fraction * sus;
  /* cuDNN's rate by shape: its asymptotes are rates like the fractions above
   * (the sustained fraction folded in); the tiles' fixed keys are not rates */
  out->eff.attn_cudnn_shape_fwd_fraction = e->attn_cudnn_shape_fwd_fraction * sus;
  out->eff.attn_cudnn_shape_bwd_fraction = e->attn_cudnn_shape_bwd_fraction * sus;
  /* and the older cuDNN releases' (layout.cudnn_version) */
  for (int i = 0; i < e->attn_cudnn_version_count; i++) {
    out->eff.attn_cudnn_versions[i].fwd_fraction = e->attn_cudnn_versions[i].fwd_fraction * sus;
    out->eff.attn_cudnn_versions[i].bwd_fraction = e->attn_cudnn_versions[i].bwd_fraction * sus;
  }
  /* and the head-dim-64 figures; the SFU bound (a fraction of peak, applied
   * before the sustained fraction: compute.c attn_exp_bound) keeps its place
   * under the folded-in clock as tensor_flops_per_exp / sus */
  out->eff.attn_cudnn_hd64_shape_fwd_fraction = e->attn_cudnn_hd64_shape_fwd_fraction * sus;
  out->eff.attn_cudnn_hd64_shape_bwd_fraction = e->attn_cudnn_hd64_shape_bwd_fraction * sus;
  out->eff.attn_tensor_flops_per_exp = e->attn_tensor_flops_per_exp / sus;
  /* FlashAttention-2's rate by shape likewise, unless the trace measured the
   * kernel's fractions: then those define it and the shape would override them */
  bool attn_fitted = n_fwd > 0 || n_bwd > 0;
  out->eff.attn_shape_fwd_fraction = attn_fitted ? 0 : e->attn_shape_fwd_fraction * sus;
  out->eff.attn_shape_bwd_fraction = attn_fitted ? 0 : e->attn_shape_bwd_fraction * sus;
  out->eff.attn_hd64_shape_fwd_fraction = attn_fitted ? 0 : e->attn_hd64_shape_fwd_fraction * sus;
  out->eff.attn_hd64_shape_bwd_fraction = attn_fitted ? 0 : e->attn_hd64_shape_bwd_fraction * sus;
  if (n_mem > 0)
    out->eff.hbm_fraction = fmem;
  /* the Mamba-2 SSD's matmul parts are rates of the BF16 peak like the
   * attention fractions: the sustained fraction folded in (the HBM parts are not) */
  for (int i = PL_SSD_CHUNK_STATE; i <= PL_SSD_CHUNK_SCAN; i++) {
    out->eff.ssd_fwd_fraction[i] = e->ssd_fwd_fraction[i] * sus;
    out->eff.ssd_bwd_fraction[i] = e->ssd_bwd_fraction[i] * sus;
  }

  struct pl_compute_param *p = fit->p;
  set_param(&p[PL_CP_GEMM_RATE], bf.ops > 0, rate_at(base, PL_DTYPE_BF16, e->gemm_mamf_shape),
            out->eff.gemm_mamf_flops_per_s);
  set_param(&p[PL_CP_GEMM_FIXED_K], bf.k0_fitted, e->gemm_tile_fixed_k, out->eff.gemm_tile_fixed_k);
  set_param(&p[PL_CP_GEMM_FP8_RATE], f8.ops > 0,
            rate_at(base, PL_DTYPE_FP8, out->eff.gemm_fp8_mamf_shape),
            out->eff.gemm_fp8_mamf_flops_per_s);
  set_param(&p[PL_CP_ATTN_FWD], n_fwd > 0, e->attn_fwd_fraction * sus, out->eff.attn_fwd_fraction);
  set_param(&p[PL_CP_ATTN_BWD], n_bwd > 0, e->attn_bwd_fraction * sus, out->eff.attn_bwd_fraction);
  set_param(&p[PL_CP_HBM], n_mem > 0, e->hbm_fraction, out->eff.hbm_fraction);
  static const enum pl_compute_kind kinds[PL_CP_COUNT] = {
      PL_COMPUTE_GEMM, PL_COMPUTE_GEMM, PL_COMPUTE_GEMM_FP8, PL_COMPUTE_ATTN_FWD,
      PL_COMPUTE_ATTN_BWD, PL_COMPUTE_MEMORY};
  for (int i = 0; i < PL_CP_COUNT; i++)
    score(out, obs, n_obs, kinds[i], &p[i]);
  for (size_t i = 0; i < n_obs; i++) {
    fit->measured_s += obs[i].time_s;
    fit->predicted_base_s += pl_compute_obs_time_s(base, &obs[i]);
    fit->predicted_s += pl_compute_obs_time_s(out, &obs[i]);
  }
  if (!(fit->predicted_s > 0) || !isfinite(fit->predicted_s))
    return pl_diag_set(diag, PL_ERR_RANGE, "calibrate compute: the fit did not converge");
  return PL_OK;
}
