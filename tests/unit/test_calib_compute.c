#define _POSIX_C_SOURCE 200809L /* mkstemp, close */
/* test_calib_compute.c: `calibrate compute` (src/calib/compute_*.c).
 *
 * 1. A generated Kineto trace whose kernels follow known constants: a
 *    "truth" H100 with gemm rate 700 TFLOP/s at its MAMF shape, tile_fixed_k
 *    120, no sustained fraction, attention fractions 0.5 / 0.4 and HBM
 *    fraction 0.8. Each kernel's duration is that GPU's model time of its op
 *    (pl_compute_obs_time_s, written in microseconds with 6 decimals, so
 *    rounding is < 1e-6 relative); the fit, starting from the stock h100 file
 *    (794.5 TFLOP/s x 0.887, 170, 0.35, 0.35, 0.9), must recover every
 *    constant within 2 %. The trace also holds a kernel with no launch record
 *    and an op without shapes, which must be counted, not used.
 * 2. The measured H100 trace (tests/data/traces/gt_h100_llama3.2-1b_seq4096,
 *    data/ground-truth/h100/README.md): the fitted file's predictions of the
 *    trace's own ops must be within 10 % in total kernel time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "check.h"

#define GT_TRACE PL_TEST_DATA "/traces/gt_h100_llama3.2-1b_seq4096.json.gz"

struct buf { char *p; size_t n, cap; };

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void put(struct buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->n + (size_t)need + 1 > b->cap) {
    b->cap = 2 * (b->n + (size_t)need + 1);
    b->p = realloc(b->p, b->cap);
  }
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
  va_end(ap);
  b->n += (size_t)need;
}

/* One op with one kernel: cpu_op (External id), its launch and the kernel,
 * all at ts (us). */
static void op_event_at(struct buf *b, int id, long ts, const char *name, const char *dims,
                        const char *types, const char *concrete, double dur_s) {
  put(b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":1,"
         "\"args\":{\"External id\":%d,\"Input Dims\":%s,\"Input type\":%s,\"Concrete Inputs\":%s}},",
      name, ts, id, dims, types, concrete);
  put(b, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
         "\"ts\":%ld,\"dur\":1,\"args\":{\"External id\":%d,\"correlation\":%d}},",
      ts, id, 1000 + id);
  put(b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%ld,"
         "\"dur\":%.6f,\"args\":{\"correlation\":%d,\"stream\":7}},",
      id, ts, dur_s * 1e6, 1000 + id);
}

static void op_event(struct buf *b, int id, const char *name, const char *dims, const char *types,
                     const char *concrete, double dur_s) {
  op_event_at(b, id, 10L * id, name, dims, types, concrete, dur_s);
}

static const int64_t gemms[][3] = {
    {4096, 3072, 2048}, {4096, 2048, 2048},  {4096, 16384, 2048}, {4096, 2048, 8192},
    {8192, 4096, 14336}, {2048, 128256, 4096}, {4096, 4096, 1024}, {8192, 8192, 4096},
};

static struct pl_gpu truth_gpu(void) {
  struct pl_gpu g;
  struct pl_diag d;
  pl_diag_clear(&d);
  pl_gpu_load("h100", &g, &d);
  g.eff.gemm_mamf_flops_per_s = 700e12; /* at 2048x2048x13312, with k0 and no sustained cut */
  g.eff.gemm_tile_fixed_k = 120;
  g.eff.gemm_sustained_fraction = 1.0;
  /* the truth is a calibrated-style file: its mamf is the model's anchor at one
   * shape, not a searched maximum, so it caps nothing (what the fit assumes) */
  g.eff.gemm_mamf_not_ceiling = true;
  g.eff.attn_fwd_fraction = 0.5;
  g.eff.attn_bwd_fraction = 0.4;
  g.eff.attn_shape_fwd_fraction = 0; /* FlashAttention-2 at the constant fractions above */
  g.eff.attn_shape_bwd_fraction = 0;
  g.eff.hbm_fraction = 0.8;
  return g;
}

/* With beside: the 8 GEMMs again, from 10 s on, each beside an NCCL kernel
 * and slowed as the step simulator slows compute there, by 1 +
 * overlap_slowdown (src/sim/engine.c rates_for); the fit must leave them out
 * and still recover the truth. */
static char *generated_trace_beside(const struct pl_gpu *truth, size_t *len, bool beside);
static char *generated_trace(const struct pl_gpu *truth, size_t *len) {
  return generated_trace_beside(truth, len, false);
}

static char *generated_trace_beside(const struct pl_gpu *truth, size_t *len, bool beside) {
  struct buf b = {0};
  put(&b, "{\"schemaVersion\":1,\"traceEvents\":[");
  int id = 1;
  for (size_t i = 0; i < sizeof gemms / sizeof gemms[0]; i++) {
    struct pl_compute_obs o = {PL_COMPUTE_GEMM, gemms[i][0], gemms[i][1], gemms[i][2], 1, 0, 0, 0, 1, PL_PHASE_FWD, "", 0};
    char dims[96];
    snprintf(dims, sizeof dims, "[[%lld,%lld],[%lld,%lld]]", (long long)o.m, (long long)o.k,
             (long long)o.k, (long long)o.n);
    op_event(&b, id++, "aten::mm", dims, "[\"c10::BFloat16\",\"c10::BFloat16\"]", "[\"\",\"\"]",
             pl_compute_obs_time_s(truth, &o));
  }
  static const int64_t seqs[] = {2048, 4096, 8192};
  for (size_t i = 0; i < 3; i++) {
    int64_t s = seqs[i];
    double fwd = 4.0 * 32 * (double)s * (double)s * 128;
    double qe = 32.0 * (double)s * 128;
    struct pl_compute_obs f = {PL_COMPUTE_ATTN_FWD, s, s, 128, 32, fwd, 2.0 * 4 * qe, 0, 1, PL_PHASE_FWD, "", 0};
    struct pl_compute_obs bw = {PL_COMPUTE_ATTN_BWD, s, s, 128, 32, 2.5 * fwd, 2.0 * 8 * qe, 0, 1, PL_PHASE_FWD, "", 0};
    char q[64], dims[512];
    snprintf(q, sizeof q, "[1,32,%lld,128]", (long long)s);
    snprintf(dims, sizeof dims, "[%s,%s,%s,[],[],[],[],[],[]]", q, q, q);
    op_event(&b, id++, "aten::_scaled_dot_product_cudnn_attention", dims,
             "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]",
             "[\"\",\"\",\"\",\"\",\"True\",\"0.\",\"True\",\"False\",\"\"]",
             pl_compute_obs_time_s(truth, &f));
    snprintf(dims, sizeof dims, "[%s,%s,%s,%s,%s,[1,32,%lld,1],[],[],[],[],[],[],[],[],[],[]]", q,
             q, q, q, q, (long long)s);
    op_event(&b, id++, "aten::_scaled_dot_product_cudnn_attention_backward", dims,
             "[\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"]",
             "[\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"4096\",\"4096\",\"0.\","
             "\"True\",\"\"]",
             pl_compute_obs_time_s(truth, &bw));
  }
  /* memory-bound: a bf16 -> fp32 copy (read 2 + write 4 B per element) and a bf16 add */
  struct pl_compute_obs c = {PL_COMPUTE_MEMORY, 0, 0, 0, 1, 0, 6.0 * 4096 * 4096, 0, 1, PL_PHASE_FWD, "", 0};
  op_event(&b, id++, "aten::copy_", "[[4096,4096],[4096,4096],[]]",
           "[\"float\",\"c10::BFloat16\",\"Scalar\"]", "[\"\",\"\",\"False\"]",
           pl_compute_obs_time_s(truth, &c));
  struct pl_compute_obs a = {PL_COMPUTE_MEMORY, 0, 0, 0, 1, 0, 6.0 * 4096 * 8192, 0, 1, PL_PHASE_FWD, "", 0};
  op_event(&b, id++, "aten::add", "[[4096,8192],[4096,8192],[]]",
           "[\"c10::BFloat16\",\"c10::BFloat16\",\"Scalar\"]", "[\"\",\"\",\"1\"]",
           pl_compute_obs_time_s(truth, &a));
  for (size_t i = 0; beside && i < sizeof gemms / sizeof gemms[0]; i++) {
    struct pl_compute_obs o = {PL_COMPUTE_GEMM, gemms[i][0], gemms[i][1], gemms[i][2], 1, 0, 0, 0, 1, PL_PHASE_FWD, "", 0};
    char dims[96];
    snprintf(dims, sizeof dims, "[[%lld,%lld],[%lld,%lld]]", (long long)o.m, (long long)o.k,
             (long long)o.k, (long long)o.n);
    op_event_at(&b, id++, 10000000L + 100000L * (long)i, "aten::mm", dims,
                "[\"c10::BFloat16\",\"c10::BFloat16\"]", "[\"\",\"\"]",
                pl_compute_obs_time_s(truth, &o) * (1 + truth->eff.overlap_slowdown));
  }
  if (beside)
    put(&b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL\","
            "\"pid\":0,\"tid\":9,\"ts\":9999999,\"dur\":1000000,\"args\":{\"correlation\":99998}},");
  /* an op with no shapes, and a kernel nothing launched */
  op_event(&b, id++, "aten::cat", "[]", "[]", "[]", 5e-6);
  put(&b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":1,"
          "\"dur\":3.0,\"args\":{\"correlation\":99999}}]}");
  *len = b.n;
  return b.p;
}

/* generated_trace(truth) parsed; NULL (and a failed check) when it does not parse. */
static struct pl_compute_trace *parsed_trace(const struct pl_gpu *truth) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  size_t len = 0;
  char *text = generated_trace(truth, &len);
  struct pl_compute_trace *t = NULL;
  CHECK_STATUS(pl_compute_obs_parse(text, len, "generated", &t, &d), PL_OK, dp);
  free(text);
  return t;
}

/* Kernels that ran beside a collective on their device are left out (the
 * simulator slows compute there: src/sim/engine.c rates_for). In us:
 *   GEMM 1 [10, 15) on device 0: ends where device 0's NCCL kernel starts
 *     (touching is not overlapping) and overlaps device 1's NCCL kernel
 *     (another GPU): kept;
 *   GEMM 2 [20, 25) on device 0, inside its NCCL kernel [15, 30): left out. */
static void test_beside_comm(void) {
  struct buf b = {0};
  put(&b, "{\"schemaVersion\":1,\"traceEvents\":[");
  op_event(&b, 1, "aten::mm", "[[4096,2048],[2048,3072]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]",
           "[\"\",\"\"]", 5e-6);
  op_event(&b, 2, "aten::mm", "[[4096,2048],[2048,3072]]", "[\"c10::BFloat16\",\"c10::BFloat16\"]",
           "[\"\",\"\"]", 5e-6);
  put(&b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_RING_LL\","
          "\"pid\":0,\"tid\":9,\"ts\":15,\"dur\":15,\"args\":{\"correlation\":5000}},");
  put(&b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_AllGather_RING_LL\","
          "\"pid\":1,\"tid\":9,\"ts\":9,\"dur\":5,\"args\":{\"correlation\":5001}}]}");
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_compute_trace *t = NULL;
  CHECK_STATUS(pl_compute_obs_parse(b.p, b.n, "beside", &t, &d), PL_OK, dp);
  free(b.p);
  if (t == NULL)
    return;
  CHECK_EQ_INT((int64_t)t->n_obs, 1);
  CHECK_EQ_INT((int64_t)t->n_skips, 1);
  if (t->n_skips == 1) {
    CHECK_STR(t->skips[0].name, "aten::mm");
    CHECK_STR(t->skips[0].why, "ran beside a collective");
    CHECK_EQ_INT(t->skips[0].ops, 1);
  }
  pl_compute_trace_free(t);
}

static void test_generated(void) {
  struct pl_gpu truth = truth_gpu(), base, fitted;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_compute_trace *t = parsed_trace(&truth);
  if (t == NULL)
    return;
  /* 8 GEMMs + 3 x 2 attention + 2 memory ops; the cat and the orphan are counted */
  CHECK_EQ_INT((int64_t)t->n_obs, 16);
  CHECK_EQ_INT(t->kernels, 18);
  CHECK_EQ_INT(t->unlinked_kernels, 1);
  CHECK_EQ_INT((int64_t)t->n_skips, 1);
  CHECK_STR(t->skips[0].name, "aten::cat");
  CHECK_STATUS(pl_gpu_load("h100", &base, &d), PL_OK, dp);
  struct pl_compute_fit fit;
  CHECK_STATUS(pl_calib_compute(&base, t->obs, t->n_obs, &fitted, &fit, &d), PL_OK, dp);
  CHECK(fit.p[PL_CP_GEMM_RATE].fitted && fit.p[PL_CP_GEMM_FIXED_K].fitted);
  /* the rate at the MAMF shape is the truth's mamf (its sustained fraction is 1) */
  CHECK_NEAR_REL(fitted.eff.gemm_mamf_flops_per_s, 700e12, 0.02);
  CHECK_NEAR_REL(fitted.eff.gemm_tile_fixed_k, 120.0, 0.02);
  CHECK_NEAR_REL(fitted.eff.gemm_sustained_fraction, 1.0, 1e-12);
  CHECK_NEAR_REL(fitted.eff.attn_fwd_fraction, 0.5, 0.02);
  CHECK_NEAR_REL(fitted.eff.attn_bwd_fraction, 0.4, 0.02);
  CHECK_NEAR_REL(fitted.eff.hbm_fraction, 0.8, 0.02);
  CHECK(!fit.p[PL_CP_GEMM_FP8_RATE].fitted);
  CHECK(fit.p[PL_CP_GEMM_RATE].rms_rel_err < 1e-4);
  CHECK_NEAR_REL(fit.predicted_s, fit.measured_s, 1e-4);
  /* FP8 was not observed: its base prediction must not move (the base's
   * sustained fraction folded into its rate) */
  double t8b = pl_gemm_time_s(&base, PL_DTYPE_FP8, 8192, 8192, 8192, 1);
  double t8f = pl_gemm_time_s(&fitted, PL_DTYPE_FP8, 8192, 8192, 8192, 1);
  CHECK_NEAR_REL(t8f, t8b, 1e-9);
  /* nor with an FP8 per-tile cost in the base (gemm.tile_fixed_k_fp8, kept):
   * at K = 1024 it is 1.46x the time without it (test_sim_compute), so a fit
   * that dropped or double-counted it would move this prediction */
  struct pl_gpu base8 = base, base0 = base, fitted8;
  base8.eff.gemm_tile_fixed_k_fp8 = 472; /* h100.json's value since session 24 */
  base0.eff.gemm_tile_fixed_k_fp8 = 0;
  CHECK_STATUS(pl_calib_compute(&base8, t->obs, t->n_obs, &fitted8, &fit, &d), PL_OK, dp);
  CHECK_NEAR_REL(fitted8.eff.gemm_tile_fixed_k_fp8, 472.0, 1e-12);
  CHECK_NEAR_REL(pl_gemm_time_s(&fitted8, PL_DTYPE_FP8, 8192, 8192, 1024, 1),
                 pl_gemm_time_s(&base8, PL_DTYPE_FP8, 8192, 8192, 1024, 1), 1e-9);
  CHECK(pl_gemm_time_s(&base8, PL_DTYPE_FP8, 8192, 8192, 1024, 1) >
        1.4 * pl_gemm_time_s(&base0, PL_DTYPE_FP8, 8192, 8192, 1024, 1));
  pl_compute_trace_free(t);
}

/* The fitted file written and read back predicts what the fit did. */
static void test_save_roundtrip(void) {
  struct pl_gpu truth = truth_gpu(), base, fitted, back;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_compute_trace *t = parsed_trace(&truth);
  if (t == NULL)
    return;
  pl_gpu_load("h100", &base, &d);
  struct pl_compute_fit fit;
  CHECK_STATUS(pl_calib_compute(&base, t->obs, t->n_obs, &fitted, &fit, &d), PL_OK, dp);
  char path[] = "/tmp/plateau_test_calib_compute_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0)
    close(fd);
  CHECK_STATUS(pl_calib_compute_save("h100", &fitted, &fit, "test", path, &d), PL_OK, dp);
  CHECK_STATUS(pl_gpu_load(path, &back, &d), PL_OK, dp);
  remove(path);
  CHECK_STR(back.name, "h100");
  /* cuDNN's rate by shape survives the round trip, its asymptotes carrying the
   * base's sustained fraction (h100: 0.670 / 0.600 x 0.887), its fixed keys not */
  double sus = base.eff.gemm_sustained_fraction;
  CHECK(base.eff.attn_cudnn_shape_fwd_fraction > 0 && sus > 0 && sus < 1);
  CHECK_NEAR_REL(back.eff.attn_cudnn_shape_fwd_fraction,
                 base.eff.attn_cudnn_shape_fwd_fraction * sus, 1e-9);
  CHECK_NEAR_REL(back.eff.attn_cudnn_shape_bwd_fraction,
                 base.eff.attn_cudnn_shape_bwd_fraction * sus, 1e-9);
  CHECK_NEAR_REL(back.eff.attn_cudnn_fwd_tile_fixed_keys, base.eff.attn_cudnn_fwd_tile_fixed_keys,
                 1e-12);
  CHECK_NEAR_REL(back.eff.attn_cudnn_bwd_tile_fixed_keys, base.eff.attn_cudnn_bwd_tile_fixed_keys,
                 1e-12);
  /* so does the cuDNN of 2024's (h100 shape_2024: 0.598 / 0.512 x 0.887, fixed keys 0 / 64):
   * the fitted file's sustained fraction is 1, so unscaled it would run at the burst clock */
  const struct pl_attn_cudnn_shape *b24 = pl_gpu_cudnn_shape(&base.eff, PL_CUDNN_2024);
  const struct pl_attn_cudnn_shape *k24 = pl_gpu_cudnn_shape(&back.eff, PL_CUDNN_2024);
  CHECK(b24 != NULL && k24 != NULL && b24->fwd_fraction > 0);
  if (b24 != NULL && k24 != NULL) {
    CHECK_NEAR_REL(k24->fwd_fraction, b24->fwd_fraction * sus, 1e-9);
    CHECK_NEAR_REL(k24->bwd_fraction, b24->bwd_fraction * sus, 1e-9);
    CHECK_NEAR_REL(k24->bwd_tile_fixed_keys, b24->bwd_tile_fixed_keys, 1e-12);
  }
  /* and the head-dim-64 figures (h100 shape_head_dim_64: 0.490 / 0.485 x 0.887, fixed keys
   * 192 / 496); the SFU bound, 256 FLOPs per exponential, is written as 256 / 0.887 =
   * 288.61 so that its fraction of peak, applied before the clock, keeps its place
   * (test_save_roundtrip_913 checks the times where it binds) */
  CHECK_NEAR_REL(back.eff.attn_cudnn_hd64_shape_fwd_fraction, 0.490 * sus, 1e-9);
  CHECK_NEAR_REL(back.eff.attn_cudnn_hd64_shape_bwd_fraction, 0.485 * sus, 1e-9);
  CHECK_NEAR_REL(back.eff.attn_cudnn_hd64_bwd_tile_fixed_keys, 496.0, 1e-12);
  CHECK_NEAR_REL(back.eff.attn_tensor_flops_per_exp, 256.0 / sus, 1e-9);
  /* FlashAttention-2's head-dim-64 shape goes with its head-dim-128 one: dropped when the
   * trace fitted the kernel's fractions, else 0.310 x 0.887 */
  CHECK((fitted.eff.attn_hd64_shape_fwd_fraction > 0) == (fitted.eff.attn_shape_fwd_fraction > 0));
  CHECK_NEAR_REL(back.eff.attn_hd64_shape_fwd_fraction, fitted.eff.attn_hd64_shape_fwd_fraction,
                 1e-9);
  /* the bandwidth fractions session 27 put in h100.json (strided_elementwise 0.415,
   * rope_eager 0.387 / 0.524: of the datasheet's HBM bandwidth, not refitted) are kept */
  CHECK(base.eff.strided_elementwise_fraction > 0 && base.eff.rope_eager_fraction > 0);
  CHECK_NEAR_REL(back.eff.strided_elementwise_fraction, base.eff.strided_elementwise_fraction,
                 1e-9);
  CHECK_NEAR_REL(back.eff.rope_eager_fraction, base.eff.rope_eager_fraction, 1e-9);
  CHECK_NEAR_REL(back.eff.rope_eager_bwd_fraction, base.eff.rope_eager_bwd_fraction, 1e-9);
  for (size_t i = 0; i < t->n_obs; i++)
    CHECK_NEAR_REL(pl_compute_obs_time_s(&back, &t->obs[i]),
                   pl_compute_obs_time_s(&fitted, &t->obs[i]), 1e-6);
  pl_compute_trace_free(t);
}

/* A B200 base: cuDNN 9.13's rate by shape (b200.json shape_9_13: 0.695 / 0.525,
 * fixed keys 400 / 336) is written with the base's sustained fraction folded in
 * (0.823: 0.5720 / 0.4321), like today's. */
static void test_save_roundtrip_913(void) {
  struct pl_gpu truth = truth_gpu(), base, fitted, back;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_compute_trace *t = parsed_trace(&truth);
  if (t == NULL)
    return;
  CHECK_STATUS(pl_gpu_load("b200", &base, &d), PL_OK, dp);
  struct pl_compute_fit fit;
  CHECK_STATUS(pl_calib_compute(&base, t->obs, t->n_obs, &fitted, &fit, &d), PL_OK, dp);
  char path[] = "/tmp/plateau_test_calib_compute_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd >= 0)
    close(fd);
  CHECK_STATUS(pl_calib_compute_save("b200", &fitted, &fit, "test", path, &d), PL_OK, dp);
  CHECK_STATUS(pl_gpu_load(path, &back, &d), PL_OK, dp);
  remove(path);
  const struct pl_attn_cudnn_shape *k913 = pl_gpu_cudnn_shape(&back.eff, PL_CUDNN_913);
  /* two release entries since session 26: 9.10 and 9.13 */
  CHECK(k913 != NULL && back.eff.attn_cudnn_version_count == 2);
  const struct pl_attn_cudnn_shape *k910 = pl_gpu_cudnn_shape(&back.eff, 91000);
  CHECK(k910 != NULL && k910 != k913);
  if (k910 != NULL) {
    CHECK_NEAR_REL(k910->fwd_fraction, 0.645 * 0.823, 1e-9);
    CHECK_NEAR_REL(k910->bwd_fraction, 0.520 * 0.823, 1e-9);
  }
  if (k913 != NULL) {
    CHECK_NEAR_REL(k913->fwd_fraction, 0.695 * 0.823, 1e-9);
    CHECK_NEAR_REL(k913->bwd_fraction, 0.525 * 0.823, 1e-9);
    CHECK_NEAR_REL(k913->fwd_tile_fixed_keys, 400.0, 1e-12);
    CHECK_NEAR_REL(k913->bwd_tile_fixed_keys, 336.0, 1e-12);
  }
  /* the SFU bound binds at head dim 64 on B200 (256 FLOPs per score / 512 per
   * exponential = 0.5 < 0.741): the base runs 0.5 x 0.823, the fitted file (sustained
   * 1) 256 / (512 / 0.823) = 0.4115, the same time */
  CHECK_NEAR_REL(back.eff.attn_tensor_flops_per_exp, 512.0 / 0.823, 1e-9);
  struct pl_op a = {.name = "attn", .kind = PL_OP_ATTENTION, .m = 4096, .n = 4096, .k = 64,
                    .count = 32, .causal = true, .fwd_flops = 256.0 * 32 * 4096 * 4096,
                    .bwd_flops = 640.0 * 32 * 4096 * 4096};
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.head_dim = 64};
  CHECK_NEAR_REL(pl_op_run_time_s(&back, &l, &m, &a, PL_PASS_FWD),
                 pl_op_run_time_s(&base, &l, &m, &a, PL_PASS_FWD), 1e-9);
  CHECK_NEAR_REL(pl_op_run_time_s(&back, &l, &m, &a, PL_PASS_BWD),
                 pl_op_run_time_s(&base, &l, &m, &a, PL_PASS_BWD), 1e-9);
  pl_compute_trace_free(t);
}

/* The measured H100 trace: per-op predictions of the fitted file within 10 %
 * of the measured kernel time in total. */
static void test_h100_trace(void) {
  struct pl_gpu base, fitted;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_compute_trace *t = NULL;
  CHECK_STATUS(pl_compute_obs_load(GT_TRACE, &t, &d), PL_OK, dp);
  if (t == NULL)
    return;
  CHECK(t->n_obs > 1000);
  CHECK_EQ_INT(t->unlinked_kernels, 0);
  pl_gpu_load("h100", &base, &d);
  struct pl_compute_fit fit;
  CHECK_STATUS(pl_calib_compute(&base, t->obs, t->n_obs, &fitted, &fit, &d), PL_OK, dp);
  double err = fit.predicted_s / fit.measured_s - 1.0;
  printf("  h100 trace: %zu ops, measured %.2f ms, base %+.1f%%, fitted %+.1f%%\n", t->n_obs,
         fit.measured_s * 1e3, 100 * (fit.predicted_base_s / fit.measured_s - 1), 100 * err);
  CHECK(fabs(err) < 0.10);
  CHECK(fit.p[PL_CP_GEMM_RATE].fitted && fit.p[PL_CP_ATTN_FWD].fitted &&
        fit.p[PL_CP_ATTN_BWD].fitted && fit.p[PL_CP_HBM].fitted);
  /* the kernels it could not use are named: the fused optimizer first */
  CHECK(t->n_skips > 0);
  if (t->n_skips > 0)
    CHECK_STR(t->skips[0].name, "aten::_fused_adamw_");
  pl_compute_trace_free(t);
}

static void test_bad_input(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_compute_trace *t = NULL;
  CHECK_STATUS(pl_compute_obs_parse("{\"a\":1}", 7, "x", &t, &d), PL_ERR_PARSE, dp);
  CHECK_STATUS(pl_compute_obs_parse("{\"traceEvents\":[]}", 18, "x", &t, &d), PL_ERR_RANGE, dp);
  CHECK_STATUS(pl_compute_obs_parse("{\"traceEvents\":[", 16, "x", &t, &d), PL_ERR_PARSE, dp);
  CHECK_STATUS(pl_compute_obs_load(PL_TEST_DATA "/no/such/trace.json", &t, &d), PL_ERR_IO, dp);
  struct pl_gpu base, out;
  pl_gpu_load("h100", &base, &d);
  struct pl_compute_fit fit;
  CHECK_STATUS(pl_calib_compute(&base, NULL, 0, &out, &fit, &d), PL_ERR_RANGE, dp);
}

/* The generated trace plus 8 GEMMs beside a collective, slowed by the GPU's
 * overlap_slowdown: they are left out, and the fit is the truth's. */
static void test_generated_beside(void) {
  struct pl_gpu truth = truth_gpu(), base, fitted;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK(truth.eff.overlap_slowdown > 0.1); /* h100's 0.189: the slowed GEMMs differ */
  size_t len = 0;
  char *text = generated_trace_beside(&truth, &len, true);
  struct pl_compute_trace *t = NULL;
  CHECK_STATUS(pl_compute_obs_parse(text, len, "generated", &t, &d), PL_OK, dp);
  free(text);
  if (t == NULL)
    return;
  CHECK_EQ_INT((int64_t)t->n_obs, 16);
  bool named = false;
  for (size_t i = 0; i < t->n_skips; i++)
    named |= strcmp(t->skips[i].why, "ran beside a collective") == 0 && t->skips[i].ops == 8;
  CHECK(named);
  CHECK_STATUS(pl_gpu_load("h100", &base, &d), PL_OK, dp);
  struct pl_compute_fit fit;
  CHECK_STATUS(pl_calib_compute(&base, t->obs, t->n_obs, &fitted, &fit, &d), PL_OK, dp);
  CHECK_NEAR_REL(fitted.eff.gemm_mamf_flops_per_s, 700e12, 0.02);
  CHECK_NEAR_REL(fitted.eff.gemm_tile_fixed_k, 120.0, 0.02);
  /* --overlap correct: the 8 kept apart, wholly inside the collective
   * (beside_s = time_s), shortened by 1/(1 + 0.189) back to the truth: with
   * them too the fit is the truth's; taken as measured it is slower */
  CHECK_EQ_INT((int64_t)t->n_beside, 8);
  struct pl_compute_obs all[32];
  size_t n = 0;
  for (size_t i = 0; i < t->n_obs && n < 32; i++)
    all[n++] = t->obs[i];
  for (size_t i = 0; i < t->n_beside && n < 32; i++) {
    CHECK_NEAR_REL(t->beside[i].beside_s, t->beside[i].time_s, 1e-9);
    all[n++] = pl_compute_obs_alone(&t->beside[i], truth.eff.overlap_slowdown);
  }
  CHECK_STATUS(pl_calib_compute(&base, all, n, &fitted, &fit, &d), PL_OK, dp);
  CHECK_NEAR_REL(fitted.eff.gemm_mamf_flops_per_s, 700e12, 0.02);
  CHECK(fit.p[PL_CP_GEMM_RATE].ops == 16);
  for (size_t i = 0; i < t->n_beside; i++)
    all[t->n_obs + i] = t->beside[i];
  CHECK_STATUS(pl_calib_compute(&base, all, n, &fitted, &fit, &d), PL_OK, dp);
  CHECK(fitted.eff.gemm_mamf_flops_per_s < 0.97 * 700e12);
  pl_compute_trace_free(t);
}

int main(void) {
  test_beside_comm();
  test_generated_beside();
  test_generated();
  test_save_roundtrip();
  test_save_roundtrip_913();
  test_h100_trace();
  test_bad_input();
  return check_finish();
}
