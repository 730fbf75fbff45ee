/* test_sim_compute.c: the per-op compute model against closed forms
 * (docs/step-model.md section 2), with the a100-80g GPU file's numbers:
 * MAMF 271.2 TFLOP/s at 1024x10240x5120, tile 256x128, 108 SMs, HBM
 * 2039 GB/s x 0.88, 1.2 us per kernel, FlashAttention-2 73% / 50%. */
#include <plateau/plateau.h>

#include <math.h>
#include <string.h>

#include "check.h"
#include "run_fixture.h"
#include "sim/sim_int.h"

/* Sums of a few doubles: equal up to rounding. */
#define EXACT 1e-12

static struct pl_gpu a100;

static double ovh(void) { return a100.eff.kernel_overhead_s; }

/* h100 with the sustained fraction its file gave when the formula tests below
 * were derived by hand (0.887 for BF16 and FP8 alike, before session 28's
 * per-dtype soak figures): they test the formulas, not the file's figure,
 * which test_sustained_fraction checks. */
static enum pl_status load_h100_887(struct pl_gpu *g, struct pl_diag *d) {
  enum pl_status st = pl_gpu_load("h100", g, d);
  g->eff.gemm_sustained_fraction = 0.887;
  g->eff.gemm_sustained_fraction_fp8 = 0;
  return st;
}

/* The GPU file's efficiency object is read with its sources. */
static void test_loaded(void) {
  CHECK(a100.eff.present);
  CHECK_NEAR_REL(a100.eff.gemm_mamf_flops_per_s, 271.2e12, EXACT);
  CHECK_EQ_INT(a100.eff.gemm_mamf_shape[0], 1024);
  CHECK_EQ_INT(a100.eff.gemm_mamf_shape[2], 5120);
  CHECK_EQ_INT(a100.eff.gemm_tile_m, 256);
  CHECK_EQ_INT(a100.eff.gemm_tile_n, 128);
  CHECK_NEAR_REL(a100.eff.kernel_overhead_s, 1.2e-6, EXACT);
}

/* The shape MAMF was measured at runs at exactly the measured rate times
 * the GPU file's sustained fraction (a100: 0.949):
 * 2 * 1024 * 10240 * 5120 / (271.2e12 * 0.949) = 0.4172 ms, plus one kernel. */
static void test_mamf_shape(void) {
  double t = pl_gemm_time_s(&a100, PL_DTYPE_BF16, 1024, 10240, 5120, 1);
  CHECK_NEAR_REL(t - ovh(), 2.0 * 1024 * 10240 * 5120 / (271.2e12 * 0.949), 1e-9);
}

/* The GEMM the A100 sustained fraction comes from (Horace He, thonking.ai
 * "Strangely, Matrix Multiplications on GPUs Run Faster When Given
 * 'Predictable' Data!": bf16 8192^3 cuBLAS matmul, randn inputs, 257-258
 * TFLOPS) comes out at that rate. By hand: 8192/256 x 8192/128 = 2048 tiles,
 * 19 waves of 108 SMs (2052 slots); the MAMF shape 1024x10240 is 320 tiles
 * in 3 waves (324 slots), so the per-slot rate is 271.2 x 324/320 = 274.59
 * TFLOP/s and the tile model's time is 2 x 2052 x 256 x 128 x 8192 /
 * (274.59e12 x 0.949) = 4.2278 ms, under the MAMF ceiling's 2 x 8192^3 /
 * (271.2e12 x 0.949) = 4.2722 ms, which binds: 257.37 TFLOP/s. Operand and
 * output bytes, 6 x 8192^2 = 402.7 MB at 0.88 x 2039 GB/s = 0.224 ms, do not
 * bind. Plus one kernel. */
static void test_sustained_a100_8192(void) {
  double t = pl_gemm_time_s(&a100, PL_DTYPE_BF16, 8192, 8192, 8192, 1) - ovh();
  CHECK_NEAR_REL(t, 2.0 * 8192.0 * 8192 * 8192 / (271.2e12 * 0.949), 1e-9);
  CHECK_NEAR_REL(2.0 * 8192.0 * 8192 * 8192 / t, 257.5e12, 1e-3);
}

/* A GPU file with a sustained fraction runs GEMMs at that fraction of the
 * burst rate: h100 MAMF 794.5 TFLOP/s at 2048x2048x13312 (128 tiles of
 * 128x256 in one wave of 132 SMs) x 0.868 (this project's H100 soaks,
 * data/ground-truth/h100) = 689.6 TFLOP/s at that shape: 2 * 2048 * 2048 *
 * 13312 / 689.6e12 = 0.1619 ms, plus one kernel. The soaked shape, 8192^3:
 * q at the MAMF shape = (2048^2 / (132 x 32768)) x 13312 / (13312 + 170) =
 * 0.969697 x 0.987391 = 0.957470, rate = 794.5e12 x 0.868 / 0.957470 =
 * 720.26 TFLOP/s per tiled FLOP; 8192^3 is 2048 tiles = 16 waves (69,206,016
 * output elements paid) of K 8192 + 170: 2 x 69206016 x 8362 / 720.26e12 =
 * 1.6069 ms = 684.2 TFLOP/s, the soaks' mean 684.0 (680, 680, 688.0, 687.7).
 * FP8 takes the file's FP8 figure, held at 0.887 (the pre-session-28 figure,
 * until the FP8 anchor is re-measured at full clock; the soak's 1255.6 TFLOP/s
 * would give 0.967 on the throttled anchor: h100.json's source): at the FP8 MAMF
 * shape 8192x4096x128256 exactly 1369.7 x 0.887; 8192^3 with the split
 * accumulator (K0 472): q at the FP8 shape = 0.969697 x 128256 / 128728 =
 * 0.966141, rate = 1369.7e12 x 0.887 / 0.966141 = 1257.50 TFLOP/s, 2 x
 * 69206016 x 8664 / 1257.50e12 = 0.95364 ms = 1153.0 TFLOP/s (clock_duty.csv
 * soak: 1255.6, 8.2 % faster: the known miss this hold keeps). A file without the
 * fraction (v100) reads 0: the burst rate is used as is; one without the FP8
 * figure (h200) runs FP8 at its BF16 one. */
static void test_sustained_fraction(void) {
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("h100", &h100, &d), PL_OK, dp);
  CHECK_NEAR_REL(h100.eff.gemm_sustained_fraction, 0.868, EXACT);
  CHECK_NEAR_REL(h100.eff.gemm_sustained_fraction_fp8, 0.887, EXACT);
  struct pl_gpu v100;
  CHECK_STATUS(pl_gpu_load("v100", &v100, &d), PL_OK, dp);
  CHECK_NEAR_REL(v100.eff.gemm_sustained_fraction, 0.0, 0);
  double k = h100.eff.kernel_overhead_s;
  double t = pl_gemm_time_s(&h100, PL_DTYPE_BF16, 2048, 2048, 13312, 1) - k;
  CHECK_NEAR_REL(t, 2.0 * 2048 * 2048 * 13312 / (794.5e12 * 0.868), 1e-9);
  CHECK_NEAR_REL(t, 0.1619e-3, 1e-3);
  double tb = pl_gemm_time_s(&h100, PL_DTYPE_BF16, 8192, 8192, 8192, 1) - k;
  CHECK_NEAR_REL(tb, 2.0 * 69206016 * 8362 / (794.5e12 * 0.868 / 0.957470), 1e-5);
  CHECK_NEAR_REL(2.0 * 8192.0 * 8192 * 8192 / tb, 684.2e12, 1e-3);
  double t8 = pl_gemm_time_s(&h100, PL_DTYPE_FP8, 8192, 4096, 128256, 1) - k;
  CHECK_NEAR_REL(t8, 2.0 * 8192 * 4096 * 128256 / (1369.7e12 * 0.887), 1e-9);
  double tf = pl_gemm_time_s(&h100, PL_DTYPE_FP8, 8192, 8192, 8192, 1) - k;
  CHECK_NEAR_REL(tf, 2.0 * 69206016 * 8664 / (1369.7e12 * 0.887 / 0.966141), 1e-5);
  CHECK_NEAR_REL(2.0 * 8192.0 * 8192 * 8192 / tf, 1153.0e12, 1e-3);
  /* h200 gives no FP8 figure: its FP8 GEMMs take its BF16 0.887 */
  struct pl_gpu h200;
  CHECK_STATUS(pl_gpu_load("h200", &h200, &d), PL_OK, dp);
  CHECK_NEAR_REL(h200.eff.gemm_sustained_fraction_fp8, 0.0, 0);
  struct pl_gpu h200b = h200;
  h200b.eff.gemm_sustained_fraction_fp8 = 0.887;
  CHECK_NEAR_REL(pl_gemm_time_s(&h200, PL_DTYPE_FP8, 8192, 8192, 8192, 1),
                 pl_gemm_time_s(&h200b, PL_DTYPE_FP8, 8192, 8192, 8192, 1), EXACT);
}

/* A GPU file with gemm.tile_fixed_k (h100: 170, fitted to OpenXLA's sm_90
 * matmul table) charges each tile k + 170 K elements, and the MAMF shape
 * still runs at its measured rate: rate = 794.5e12 * 0.887 * 13482 / 13312
 * per perfectly tiled FLOP, so 2048x2048 at k = 2048 takes
 * 2 * 2048 * 2048 * (2048 + 170) / rate = 26.07 us (a K=2048 GEMM at 0.935
 * of the K=13312 one's rate). FP8 GEMMs pay nothing (no FP8 figure). */
static void test_tile_fixed_k(void) {
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  CHECK_NEAR_REL(h100.eff.gemm_tile_fixed_k, 170.0, EXACT);
  CHECK_NEAR_REL(a100.eff.gemm_tile_fixed_k, 0.0, 0);
  double ovh_h = h100.eff.kernel_overhead_s;
  double rate = 794.5e12 * 0.887 * 13482.0 / 13312.0;
  double t = pl_gemm_time_s(&h100, PL_DTYPE_BF16, 2048, 2048, 2048, 1) - ovh_h;
  CHECK_NEAR_REL(t, 2.0 * 2048 * 2048 * (2048.0 + 170.0) / rate, 1e-9);
  CHECK_NEAR_REL(t, 26.07e-6, 1e-3);
  double big = pl_gemm_time_s(&h100, PL_DTYPE_BF16, 2048, 2048, 13312, 1) - ovh_h;
  /* rate at k = 2048 over rate at k = 13312: (2048 / 2218) / (13312 / 13482) = 0.9352 */
  CHECK_NEAR_REL((2048.0 / t) / (13312.0 / big), 0.9352, 1e-4);
  /* FP8 at its own MAMF shape (data/ground-truth/h100: 8192x4096x128256):
   * exactly the measured rate x sustained */
  double t8 = pl_gemm_time_s(&h100, PL_DTYPE_FP8, 8192, 4096, 128256, 1) - ovh_h;
  CHECK_NEAR_REL(t8, 2.0 * 8192 * 4096 * 128256 / (1369.7e12 * 0.887), 1e-9);
}

/* gemm.tile_alt_bf16 (optional; cuBLAS's nvjet 128x192 tile in this project's H100
 * trace): a BF16 GEMM takes whichever of 128x256, 128x192 and their transposes pays
 * for the fewest output elements. h100 with 128x192 added by hand:
 * - the trace's qkv wgrad, output 3072x2048, K 4096: 128x256 gives 24 x 8 = 192
 *   tiles = 2 waves of 132 (2 x 32768 elements per SM); 128x192 gives 24 x 11 = 264
 *   = exactly 2 waves of 24576, so 3/4 of the work: t = 2 x (2 x 24576 x 132) x
 *   (4096 + 170) / rate, rate = 794.5e12 x 0.887 / q, q = 2048^2 / (132 x 32768)
 *   x 13312 / 13482 (the MAMF shape: 128 tiles of 128x256 = 1 wave; 176 of 128x192
 *   = 2 waves, more: its q is unchanged) = 736.0 TFLOP/s: 75.21 us, under the MSMF cap (685 TFLOP/s
 *   against 704.7);
 * - 4096x3072 (the qkv forward): 384 tiles of 128x256 = 3 waves x 32768 = 98304,
 *   512 of 128x192 = 4 waves x 24576 = 98304: a tie keeps 128x256 (same time);
 * - FP8 keeps the one tile (the same 3072x2048 GEMM times as without the key). */
static void test_tile_alt_bf16(void) {
  struct pl_gpu h100, alt;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  CHECK_EQ_INT(h100.eff.gemm_tile_alt_bf16_m, 0); /* not set in h100.json (session 28) */
  alt = h100;
  alt.eff.gemm_tile_alt_bf16_m = 128;
  alt.eff.gemm_tile_alt_bf16_n = 192;
  double o = h100.eff.kernel_overhead_s;
  double q = 2048.0 * 2048.0 / (132.0 * 32768.0) * 13312.0 / 13482.0;
  double rate = 794.5e12 * 0.887 / q;
  double t = pl_gemm_time_s(&alt, PL_DTYPE_BF16, 3072, 2048, 4096, 1) - o;
  CHECK_NEAR_REL(t, 2.0 * (2.0 * 24576 * 132) * (4096.0 + 170.0) / rate, 1e-9);
  CHECK_NEAR_REL(t, 75.21e-6, 1e-3);
  double t0 = pl_gemm_time_s(&h100, PL_DTYPE_BF16, 3072, 2048, 4096, 1) - o;
  CHECK_NEAR_REL(t / t0, 0.75, 1e-9);
  /* the MAMF shape still comes out at the measured rate x sustained */
  CHECK_NEAR_REL(pl_gemm_time_s(&alt, PL_DTYPE_BF16, 2048, 2048, 13312, 1),
                 pl_gemm_time_s(&h100, PL_DTYPE_BF16, 2048, 2048, 13312, 1), 1e-12);
  /* a tie keeps the first tile */
  CHECK_NEAR_REL(pl_gemm_time_s(&alt, PL_DTYPE_BF16, 4096, 3072, 2048, 1),
                 pl_gemm_time_s(&h100, PL_DTYPE_BF16, 4096, 3072, 2048, 1), 1e-12);
  /* FP8: no second tile */
  CHECK_NEAR_REL(pl_gemm_time_s(&alt, PL_DTYPE_FP8, 3072, 2048, 4096, 1),
                 pl_gemm_time_s(&h100, PL_DTYPE_FP8, 3072, 2048, 4096, 1), 1e-12);
}

/* gemm.tile_fixed_k_fp8 (FP8's per-tile fixed cost; 472 K elements is the
 * fit of scripts/gemm-fp8-tile-fit.py to the project's measured H100 FP8
 * GEMMs, set here by hand: no GPU file sets it yet). Hand-derived on h100:
 * the FP8 anchor 8192x4096x128256 has 64 x 16 = 1024 tiles of 128x256 in
 * 8 waves of 132 SMs, quantization 1024 / 1056 = 0.969697, times its K share
 * 128256 / (128256 + 472) = 0.996333: q = 0.966141, so the per-tile rate is
 * 1369.7e12 x 0.887 / 0.966141 = 1257.50 TFLOP/s and the anchor itself still
 * runs at exactly 1369.7 x 0.887. 8192x8192x1024: 2048 tiles, 16 waves,
 * work 16 x 128 x 256 x 132 = 69206016; time 2 x 69206016 x (1024 + 472) /
 * 1257.50e12 = 164.66 us (without the key: the MAMF floor, 113.13 us, so
 * x 1.4556 = (1496 / 1024) x 0.996333). At the burst clock (x 0.887)
 * that is 146.06 us; data/ground-truth/h100/gemm.csv measured 146.19 us.
 * BF16 ignores the FP8 key; MXFP8 and NVFP4 take it where the FP8 rate is
 * measured (gb200); a GPU whose FP8 rate is the BF16 one scaled (a file
 * without mamf_fp8: gb300 with the key removed) takes none.
 * gb300's own FP8 rate (session 25, bwd25) is B300's measured MAMF at its
 * clock, 3353.3 x 2070 / 2032 = 3416 TFLOP/s at 3072x6144x7168: 24 x 24 =
 * 576 tiles of 128x256 in 4 waves of 152 SMs (session 27; 160 before, the
 * same 4 waves), quantization 576 / 608, so the per-tile rate is 3416e12 x
 * 0.866 / (576 / 608) and the anchor runs at exactly 3416 x 0.866.
 * 4096x4096x8192: 32 x 16 = 512 tiles, 4 waves, work 4 x 152 x 128 x 256 =
 * 19922944; 2 x 19922944 x 8192 x 576 / 608 = 2 x 20971520 x 8192 x 0.9 (the
 * SM count cancels at equal wave counts), / (3416e12 x 0.866) = 104.53 us
 * (above the MAMF floor, 92.93 us). Scaled from the BF16
 * estimate by the peaks as before (1777.6 x 2 = 3555.2 at the BF16 anchor
 * 1792x16128x3072, 882 tiles in 6 waves: 882 / 912 on 152 SMs, the same
 * product as 0.91875 with 160's 960 slots) it is 102.53 us (93.24 us
 * with the BF16 estimate before session 27, 1939). */
static void test_tile_fixed_k_fp8(void) {
  struct pl_gpu h100, plain, gb, gb3;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  plain = h100;
  plain.eff.gemm_tile_fixed_k_fp8 = 0;
  h100.eff.gemm_tile_fixed_k_fp8 = 472;
  double o = h100.eff.kernel_overhead_s;
  double t = pl_gemm_time_s(&h100, PL_DTYPE_FP8, 8192, 8192, 1024, 1) - o;
  CHECK_NEAR_REL(t, 2.0 * 69206016 * (1024 + 472) / (1369.7e12 * 0.887 / 0.966141), 1e-6);
  CHECK_NEAR_REL(t, 164.66e-6, 1e-4);
  CHECK_NEAR_REL(t * 0.887, 146.06e-6, 1e-4);
  double t0 = pl_gemm_time_s(&plain, PL_DTYPE_FP8, 8192, 8192, 1024, 1) - o;
  CHECK_NEAR_REL(t0, 2.0 * 8192 * 8192 * 1024 / (1369.7e12 * 0.887), 1e-9);
  CHECK_NEAR_REL(t / t0, 1.4556, 1e-4);
  /* the anchor stays at its measured rate */
  double ta = pl_gemm_time_s(&h100, PL_DTYPE_FP8, 8192, 4096, 128256, 1) - o;
  CHECK_NEAR_REL(ta, 2.0 * 8192 * 4096 * 128256 / (1369.7e12 * 0.887), 1e-9);
  /* BF16 unchanged */
  CHECK_NEAR_REL(pl_gemm_time_s(&h100, PL_DTYPE_BF16, 8192, 8192, 1024, 1),
                 pl_gemm_time_s(&plain, PL_DTYPE_BF16, 8192, 8192, 1024, 1), 1e-12);
  /* block-scaled GEMMs on a GPU with a measured FP8 rate: MXFP8 is the FP8
   * time / mxfp8_vs_fp8 with the key too, and slower with it than without */
  CHECK_STATUS(pl_gpu_load("gb200", &gb, &d), PL_OK, dp);
  struct pl_gpu gbk = gb;
  gbk.eff.gemm_tile_fixed_k_fp8 = 600;
  double og = gb.eff.kernel_overhead_s;
  double f8 = pl_gemm_time_s(&gbk, PL_DTYPE_FP8, 8192, 8192, 1024, 1) - og;
  double mx = pl_gemm_time_s(&gbk, PL_DTYPE_MXFP8, 8192, 8192, 1024, 1) - og;
  CHECK_NEAR_REL(mx, f8 / gb.eff.gemm_mxfp8_vs_fp8, 1e-9);
  CHECK(pl_gemm_time_s(&gbk, PL_DTYPE_NVFP4, 8192, 8192, 1024, 1) >
        pl_gemm_time_s(&gb, PL_DTYPE_NVFP4, 8192, 8192, 1024, 1) * 1.1);
  CHECK_STATUS(pl_gpu_load("gb300", &gb3, &d), PL_OK, dp);
  CHECK_NEAR_REL(gb3.eff.gemm_fp8_mamf_flops_per_s, 3416e12, EXACT);
  double o3 = gb3.eff.kernel_overhead_s;
  CHECK_NEAR_REL(pl_gemm_time_s(&gb3, PL_DTYPE_FP8, 3072, 6144, 7168, 1) - o3,
                 2.0 * 3072 * 6144 * 7168 / (3416e12 * 0.866), 1e-9);
  CHECK_NEAR_REL(pl_gemm_time_s(&gb3, PL_DTYPE_FP8, 4096, 4096, 8192, 1) - o3,
                 2.0 * 20971520 * 8192 * 0.9 / (3416e12 * 0.866), 1e-9);
  CHECK_NEAR_REL(pl_gemm_time_s(&gb3, PL_DTYPE_FP8, 4096, 4096, 8192, 1) - o3, 104.53e-6, 1e-4);
  struct pl_gpu gb3s = gb3; /* the same file without its FP8 measurement */
  gb3s.eff.gemm_fp8_mamf_flops_per_s = 0;
  CHECK_NEAR_REL(pl_gemm_time_s(&gb3s, PL_DTYPE_FP8, 4096, 4096, 8192, 1) - o3,
                 2.0 * 20971520 * 8192 * 0.91875 / (3555.2e12 * 0.866), 1e-9);
  CHECK_NEAR_REL(pl_gemm_time_s(&gb3s, PL_DTYPE_FP8, 4096, 4096, 8192, 1) - o3, 102.53e-6, 1e-4);
  gb3 = gb3s;
  struct pl_gpu gb3k = gb3;
  gb3k.eff.gemm_tile_fixed_k_fp8 = 600;
  CHECK_NEAR_REL(pl_gemm_time_s(&gb3k, PL_DTYPE_MXFP8, 8192, 8192, 1024, 1),
                 pl_gemm_time_s(&gb3, PL_DTYPE_MXFP8, 8192, 8192, 1024, 1), 1e-12);
}

/* FP8 accumulator mode by pass (docs/step-model.md 2.1): Transformer Engine
 * runs the forward GEMM with fast accumulation and dgrad / wgrad with the split
 * accumulator, which h100.json's tile_fixed_k_fp8 (472, measured split GEMMs)
 * belongs to. By hand, one FP8 op of 8192 tokens, 1024 in, 8192 out on H100
 * (MAMF 1369.7 TFLOP/s at 8192x4096x128256 x sustained 0.887; 128x256 tiles on
 * 132 SMs). Forward 8192x8192, K 1024: 2048 tiles, 16 waves, quantization
 * 2048 / 2112 = 0.969697, exactly the anchor's (no K0 either side), so
 * 2 x 8192 x 8192 x 1024 / (1369.7e12 x 0.887) = 113.126 us. Dgrad 8192x1024
 * and wgrad 1024x8192, K 8192: 256 tiles, 2 waves (264 tile slots), each tile
 * K 8192 + 472; the rate divides MAMF by the anchor's quantization with its
 * own K0 share, 0.969697 x 128256 / 128728 = 0.966141: 2 x 264 x 128 x 256 x
 * 8664 x 0.966141 / (1369.7e12 x 0.887) = 119.205 us each, 5.4 % over the
 * same FLOPs in the forward. Plus kernel_overhead per GEMM. */
static void test_fp8_accumulator_pass(void) {
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  CHECK_NEAR_REL(h100.eff.gemm_tile_fixed_k_fp8, 472.0, EXACT);
  double o = h100.eff.kernel_overhead_s;
  struct pl_op op = {.name = "fc1",
                     .kind = PL_OP_GEMM,
                     .m = 8192,
                     .n = 8192,
                     .k = 1024,
                     .count = 1,
                     .fwd_flops = 2.0 * 8192 * 8192 * 1024,
                     .bwd_flops = 4.0 * 8192 * 8192 * 1024};
  double fwd = pl_op_time_s(&h100, PL_DTYPE_FP8, &op, PL_PASS_FWD) - o;
  CHECK_NEAR_REL(fwd, 2.0 * 8192 * 8192 * 1024 / (1369.7e12 * 0.887), 1e-9);
  CHECK_NEAR_REL(fwd, 113.126e-6, 1e-5);
  double bwd = pl_op_time_s(&h100, PL_DTYPE_FP8, &op, PL_PASS_BWD) - 2 * o;
  CHECK_NEAR_REL(bwd, 2 * 2.0 * 264 * 128 * 256 * 8664 * 0.966141 / (1369.7e12 * 0.887), 1e-6);
  CHECK_NEAR_REL(bwd / 2, 119.205e-6, 1e-5);
  /* the forward GEMM alone: pl_gemm_fast_acc_time_s; with the split
   * accumulator (pl_gemm_time_s) the same shape pays K0 */
  CHECK_NEAR_REL(pl_gemm_fast_acc_time_s(&h100, PL_DTYPE_FP8, 8192, 8192, 1024, 1) - o, fwd, 1e-12);
  CHECK_NEAR_REL(pl_gemm_time_s(&h100, PL_DTYPE_FP8, 8192, 8192, 1024, 1) - o, 164.66e-6, 1e-4);
  /* BF16 has one mode */
  CHECK_NEAR_REL(pl_gemm_fast_acc_time_s(&h100, PL_DTYPE_BF16, 8192, 8192, 1024, 1),
                 pl_gemm_time_s(&h100, PL_DTYPE_BF16, 8192, 8192, 1024, 1), 1e-12);
}

/* GB200 (data/gpus/gb200.json, stas00/ml-engineering mamf-finder table):
 * each measured shape comes out at exactly its measured rate x sustained
 * (0.826: B200's 0.823 carried per SM to GB200's 1200 W on 152 SMs and 2062 MHz): BF16 1822 TFLOP/s at
 * 4096x9728x2048, FP8 3615.6 at 19456x5120x1536. NVFP4 is scaled from the FP8
 * measurement by the file's nvfp4_vs_fp8 (1.810, B300's measured ratio as an
 * upper bound; the peaks, 10000 against FP8's 5000, would give 2): FP8 / 1.810;
 * MXFP8 by the file's mxfp8_vs_fp8 (0.9513, B300's measured ratio as an
 * estimate): the FP8 time / 0.9513 (all math-bound: the FP8 GEMM's 237 MB at
 * 7.2 TB/s is 33 us against 102 us of math). */
static void test_blackwell_low_precision(void) {
  struct pl_gpu gb;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("gb200", &gb, &d), PL_OK, dp);
  CHECK_NEAR_REL(gb.eff.gemm_mamf_flops_per_s, 1822e12, EXACT);
  CHECK_NEAR_REL(gb.eff.gemm_fp8_mamf_flops_per_s, 3615.6e12, EXACT);
  double o = gb.eff.kernel_overhead_s, s = 0.826;
  double tb = pl_gemm_time_s(&gb, PL_DTYPE_BF16, 4096, 9728, 2048, 1) - o;
  CHECK_NEAR_REL(tb, 2.0 * 4096 * 9728 * 2048 / (1822e12 * s), 1e-9);
  double m = 19456, n = 5120, k = 1536;
  double t8 = pl_gemm_time_s(&gb, PL_DTYPE_FP8, 19456, 5120, 1536, 1) - o;
  CHECK_NEAR_REL(t8, 2.0 * m * n * k / (3615.6e12 * s), 1e-9);
  CHECK_NEAR_REL(t8, 102.5e-6, 1e-2);
  /* MXFP8 at B300's measured 0.9513 of the FP8 rate (gb200.json
   * gemm.mxfp8_vs_fp8, an estimate for the same MMA): 102.5 / 0.9513 = 107.7 us */
  double tmx = pl_gemm_time_s(&gb, PL_DTYPE_MXFP8, 19456, 5120, 1536, 1) - o;
  CHECK_NEAR_REL(tmx, t8 / 0.9513, 1e-9);
  CHECK_NEAR_REL(tmx, 107.7e-6, 1e-2);
  double t4 = pl_gemm_time_s(&gb, PL_DTYPE_NVFP4, 19456, 5120, 1536, 1) - o;
  CHECK_NEAR_REL(t4, t8 / 1.810, 1e-9);
}

/* B200 and GB200 NVFP4 GEMMs no faster than B300's measured ones (session 22).
 * B300 has B200's FP8 peak (4500 TFLOP/s), SM design and count and no less HBM
 * bandwidth, but 1.5 times its NVFP4 peak (13500 against 9000; GB300 15000
 * against GB200's 10000), so at the shapes NVIDIA measured on B300 (TE
 * gemm_profiling.rst: the 12 GEMMs of a hidden-4096, intermediate-16384 layer at
 * M = 15872, pre-quantized FP8 6.812 ms, NVFP4 3.764 ms: 1.810) a B200's
 * NVFP4 / FP8 time ratio cannot exceed 1.810. The peaks' ratio 2 (the files
 * before) gave b200 FP8 6.998 ms and NVFP4 3.506 ms for that layer, 1.996, and
 * an NVFP4 layer 7 % faster than the B300's measured 3.764 ms at a lower
 * clock. At B200's FP8 MAMF shape 15360x4096x3072 (its measured 3432.5
 * TFLOP/s x 0.823 sustained, 2 m n k = 386.5 GFLOP): FP8 136.8 us, NVFP4
 * 136.8 / 1.810 = 75.6 us. */
static double te_layer_s(const struct pl_gpu *g, enum pl_dtype dt) {
  const int64_t shape[4][3] = {
      {15872, 12288, 4096}, {15872, 4096, 4096}, {15872, 16384, 4096}, {15872, 4096, 16384}};
  double total_s = 0;
  for (int i = 0; i < 4; i++) {
    struct pl_op op;
    memset(&op, 0, sizeof op);
    op.name = "fc1";
    op.kind = PL_OP_GEMM;
    op.m = shape[i][0];
    op.n = shape[i][1];
    op.k = shape[i][2];
    op.count = 1;
    op.share = 1.0;
    op.fwd_flops = 2.0 * (double)op.m * (double)op.n * (double)op.k;
    op.bwd_flops = 2.0 * op.fwd_flops;
    total_s += pl_op_time_s(g, dt, &op, PL_PASS_FWD) + pl_op_time_s(g, dt, &op, PL_PASS_BWD);
  }
  return total_s;
}

static void test_b200_nvfp4_bound(void) {
  struct pl_gpu b2;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b200", &b2, &d), PL_OK, dp);
  CHECK_NEAR_REL(b2.eff.gemm_nvfp4_vs_fp8, 1.810, EXACT);
  double o = b2.eff.kernel_overhead_s, flop = 2.0 * 15360 * 4096 * 3072;
  double t8 = pl_gemm_time_s(&b2, PL_DTYPE_FP8, 15360, 4096, 3072, 1) - o;
  CHECK_NEAR_REL(t8, flop / (3432.5e12 * 0.823), 1e-9);
  CHECK_NEAR_REL(t8, 136.8e-6, 1e-3);
  double t4 = pl_gemm_time_s(&b2, PL_DTYPE_NVFP4, 15360, 4096, 3072, 1) - o;
  CHECK_NEAR_REL(t4, 75.6e-6, 1e-3);
  /* the layer ratio, on both parts, at most B300's measured 6.812 / 3.764 */
  const char *names[2] = {"b200", "gb200"};
  for (int i = 0; i < 2; i++) {
    struct pl_gpu g;
    CHECK_STATUS(pl_gpu_load(names[i], &g, &d), PL_OK, dp);
    CHECK(te_layer_s(&g, PL_DTYPE_FP8) / te_layer_s(&g, PL_DTYPE_NVFP4) <= 6.812 / 3.764 + 1e-3);
  }
}

/* B300's block-scaled GEMMs at the measured rates against FP8 (gemm.mxfp8_vs_fp8
 * 0.9513 = 6.812 / 7.161 ms, gemm.nvfp4_vs_fp8 1.810 = 6.812 / 3.764 ms: TE's
 * gemm_profiling.rst, pre-quantized per-layer GEMM times on B300), not the peaks'
 * 1 and 3. At the FP8 MAMF shape 3072x6144x7168 (math-bound: 2 m n k = 270.6
 * GFLOP; its tiles fill the SMs exactly as measured): FP8 at 3353.3 x 0.823 =
 * 2759.8 TFLOP/s = 98.0 us; MXFP8 98.0 / 0.9513 = 103.1 us; NVFP4 98.0 / 1.810 =
 * 54.2 us (the peaks would give 32.7 us). */
static void test_blackwell_block_scaled_rates(void) {
  struct pl_gpu b3;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b300", &b3, &d), PL_OK, dp);
  CHECK_NEAR_REL(b3.eff.gemm_mxfp8_vs_fp8, 0.9513, EXACT);
  CHECK_NEAR_REL(b3.eff.gemm_nvfp4_vs_fp8, 1.810, EXACT);
  double o = b3.eff.kernel_overhead_s, flop = 2.0 * 3072 * 6144 * 7168;
  double t8 = pl_gemm_time_s(&b3, PL_DTYPE_FP8, 3072, 6144, 7168, 1) - o;
  CHECK_NEAR_REL(t8, flop / (3353.3e12 * 0.823), 1e-9);
  CHECK_NEAR_REL(t8, 98.0e-6, 1e-2);
  double tmx = pl_gemm_time_s(&b3, PL_DTYPE_MXFP8, 3072, 6144, 7168, 1) - o;
  CHECK_NEAR_REL(tmx, t8 / 0.9513, 1e-9);
  CHECK_NEAR_REL(tmx, 103.1e-6, 1e-2);
  double t4 = pl_gemm_time_s(&b3, PL_DTYPE_NVFP4, 3072, 6144, 7168, 1) - o;
  CHECK_NEAR_REL(t4, t8 / 1.810, 1e-9);
  CHECK_NEAR_REL(t4, 54.2e-6, 1e-2);
  /* GB300 (the same GPU) has no FP8 measurement: the BF16 MAMF doubled by the
   * peaks (5000 / 2500), then the same ratios */
  struct pl_gpu g3;
  CHECK_STATUS(pl_gpu_load("gb300", &g3, &d), PL_OK, dp);
  double og = g3.eff.kernel_overhead_s;
  double g8 = pl_gemm_time_s(&g3, PL_DTYPE_FP8, 1792, 16128, 3072, 1) - og;
  double gmx = pl_gemm_time_s(&g3, PL_DTYPE_MXFP8, 1792, 16128, 3072, 1) - og;
  double g4 = pl_gemm_time_s(&g3, PL_DTYPE_NVFP4, 1792, 16128, 3072, 1) - og;
  CHECK_NEAR_REL(gmx, g8 / 0.9513, 1e-9);
  CHECK_NEAR_REL(g4, g8 / 1.810, 1e-9);
}

/* The MAMF ceiling: mamf-finder's MAMF is the best rate of its shape search,
 * so no GEMM sustains more than MAMF x sustained_fraction (the MSMF). GB200's
 * MAMF shape 4096x9728x2048 fills exactly 8 waves of 128x256 tiles on its 152
 * SMs (1216 tiles) and pays K0 = 340 of 2388 (2048 / 2388 = 0.8576), so the
 * tile model reads it as 0.8576 of a per-SM rate 1822 / 0.8576 = 2124.6
 * TFLOP/s, 85 % of the 2500 peak. A large-K GEMM of near-perfect waves,
 * 16384x32768x8192 (16384 tiles, 107.79 of 108 waves, 0.998 full; 8192 / 8532
 * = 0.960), would then run at 1681.6 TFLOP/s sustained, 5.231 ms: above the
 * MAMF burst x sustained (1505.0). Capped: 2 m n k / (1822e12 x 0.826) = 8.796e12 / 1.5050e15 =
 * 5.845 ms. (Transformer Engine's JAX dense example on a GB200,
 * docs/examples/jax/dense.out: this layer's BF16 forward and backward, three
 * such GEMMs, in 18.056 ms = 1461 TFLOP/s with the weights' fp32 cast.) A file
 * whose MAMF is a fitted anchor (gemm.mamf_is_ceiling false, calibrate
 * compute) is not capped; the MAMF shape itself is unchanged either way. */
static void test_mamf_ceiling(void) {
  struct pl_gpu gb;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("gb200", &gb, &d), PL_OK, dp);
  CHECK(!gb.eff.gemm_mamf_not_ceiling);
  double o = gb.eff.kernel_overhead_s, flop = 2.0 * 16384 * 32768 * 8192;
  double capped = pl_gemm_time_s(&gb, PL_DTYPE_BF16, 16384, 32768, 8192, 1) - o;
  CHECK_NEAR_REL(capped, flop / (1822e12 * 0.826), 1e-9);
  CHECK_NEAR_REL(capped, 5.845e-3, 1e-3);
  struct pl_gpu fit = gb;
  fit.eff.gemm_mamf_not_ceiling = true;
  double free_ = pl_gemm_time_s(&fit, PL_DTYPE_BF16, 16384, 32768, 8192, 1) - o;
  CHECK_NEAR_REL(free_, 5.231e-3, 1e-3);
  double at = 2.0 * 4096 * 9728 * 2048 / (1822e12 * 0.826);
  CHECK_NEAR_REL(pl_gemm_time_s(&gb, PL_DTYPE_BF16, 4096, 9728, 2048, 1) - o, at, 1e-9);
  CHECK_NEAR_REL(pl_gemm_time_s(&fit, PL_DTYPE_BF16, 4096, 9728, 2048, 1) - o, at, 1e-9);
}

/* Wave quantization: 108 tiles of 256x128 fill the 108 SMs once; 109
 * tiles need a second wave, twice the time for one more tile (k = 32768
 * keeps both math-bound). */
static void test_wave_quantization(void) {
  /* without the MAMF ceiling: one exactly filled wave at K = 32768 would run
   * above A100's measured MAMF (test_mamf_ceiling), which hides the waves */
  struct pl_gpu a = a100;
  a.eff.gemm_mamf_not_ceiling = true;
  double one = pl_gemm_time_s(&a, PL_DTYPE_BF16, 256, 128 * 108, 32768, 1) - ovh();
  double two = pl_gemm_time_s(&a, PL_DTYPE_BF16, 256, 128 * 109, 32768, 1) - ovh();
  CHECK_NEAR_REL(two, 2.0 * one, 1e-9);
}

/* Tile quantization: m = 257 needs a second row of 256-row tiles (or the
 * transposed 128-row tiles: 3 rows) -> 216 tiles of 256x128 = 2 waves on 108
 * SMs, the same time as m = 512. */
static void test_tile_quantization(void) {
  struct pl_gpu a = a100; /* without the MAMF ceiling, as test_wave_quantization */
  a.eff.gemm_mamf_not_ceiling = true;
  double t257 = pl_gemm_time_s(&a, PL_DTYPE_BF16, 257, 128 * 108, 32768, 1);
  double t512 = pl_gemm_time_s(&a, PL_DTYPE_BF16, 512, 128 * 108, 32768, 1);
  CHECK_NEAR_REL(t257, t512, 1e-9);
}

/* A GEMM of low arithmetic intensity is memory-bound: m = 256 * 108,
 * n = k = 128 is one wave of tiles (2 * 256*128*128 * 108 FLOP-slots, about
 * 3.3 us at MAMF) but moves (m k + k n + m n) * 2 bytes = 14.2 MB, 7.9 us at
 * 2039 GB/s * 0.88. */
static void test_memory_bound_gemm(void) {
  double m = 256.0 * 108, bytes = 2.0 * (m * 128 + 128.0 * 128 + m * 128);
  double t = pl_gemm_time_s(&a100, PL_DTYPE_BF16, 256 * 108, 128, 128, 1);
  CHECK_NEAR_REL(t - ovh(), bytes / (2039e9 * 0.88), 1e-9);
}

/* Causal attention of 32 heads, 4096 x 4096, head dim 128: 4 s^2 d FLOPs a
 * head forward, 2.5 times that backward. */
/* A memory-bound op of the whole layer (count 1, share 1) moving fwd_bytes
 * forward and bwd_bytes backward in one kernel each way. */
static struct pl_op memory_op(const char *name, double fwd_bytes, double bwd_bytes) {
  struct pl_op op;
  memset(&op, 0, sizeof op);
  op.name = name;
  op.kind = PL_OP_MEMORY;
  op.count = 1;
  op.share = 1.0;
  op.fwd_bytes = fwd_bytes;
  op.bwd_bytes = bwd_bytes;
  return op;
}

static struct pl_op causal_attention_op(void) {
  return (struct pl_op){.name = "attn",
                        .kind = PL_OP_ATTENTION,
                        .m = 4096,
                        .n = 4096,
                        .k = 128,
                        .count = 32,
                        .fwd_flops = 4.0 * 32 * 4096.0 * 4096 * 128,
                        .bwd_flops = 2.5 * 4.0 * 32 * 4096.0 * 4096 * 128,
                        .fwd_bytes = 1e6,
                        .bwd_bytes = 2e6};
}

/* Causal FlashAttention does half the counted FLOPs: with the flat figures
 * (A100's file without its rate by shape) forward time
 * 0.5 * F / (312e12 * 0.73 * 0.949) + one kernel (the A100's sustained
 * fraction holds attention's tensor-core math too); backward at 50% with 3
 * kernels. */
static void test_flash_attention(void) {
  struct pl_op op = causal_attention_op();
  struct pl_gpu flat = a100;
  flat.eff.attn_shape_fwd_fraction = flat.eff.attn_shape_bwd_fraction = 0;
  double f = pl_op_time_s(&flat, PL_DTYPE_BF16, &op, PL_PASS_FWD);
  double b = pl_op_time_s(&flat, PL_DTYPE_BF16, &op, PL_PASS_BWD);
  CHECK_NEAR_REL(f, 0.5 * op.fwd_flops / (312e12 * 0.73 * 0.949) + ovh(), 1e-9);
  CHECK_NEAR_REL(b, 0.5 * op.bwd_flops / (312e12 * 0.50 * 0.949) + 3 * ovh(), 1e-9);
  CHECK_EQ_INT(pl_op_kernels(&op, PL_PASS_BWD), 3);
}

/* The Triton FlashAttention (layout.attention_triton) runs at the GPU file's
 * triton fractions, 0.521 forward and 0.25 backward on A100, at its sustained
 * fraction 0.949: 0.5 F / (312e12 * 0.521 * 0.949) + 1 kernel,
 * 0.5 F_bwd / (312e12 * 0.25 * 0.949) + 3. */
static void test_triton_attention(void) {
  struct pl_op op = causal_attention_op();
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_triton = true};
  struct pl_model m = {.dropout = false};
  double f = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD);
  double b = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_BWD);
  CHECK_NEAR_REL(f, 0.5 * op.fwd_flops / (312e12 * 0.521 * 0.949) + ovh(), 1e-9);
  CHECK_NEAR_REL(b, 0.5 * op.bwd_flops / (312e12 * 0.25 * 0.949) + 3 * ovh(), 1e-9);
  /* without the flag: FlashAttention-2's figures */
  l.attention_triton = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD),
                 pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD), EXACT);
}

/* On a GPU whose file gives a sustained fraction, attention's tensor-core
 * math runs at it too (the FlashAttention figures are bursts, like MAMF):
 * h100 FlashAttention-2 forward 0.5 F / (989.4e12 * 0.35 * 0.887) + one
 * kernel; Triton backward 0.5 F_bwd / (989.4e12 * 0.175 * 0.887) + 3. */
static void test_attention_sustained(void) {
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  /* the flat figures: without FlashAttention-2's rate by shape (attention.shape) */
  h100.eff.attn_shape_fwd_fraction = 0;
  h100.eff.attn_shape_bwd_fraction = 0;
  struct pl_op op = causal_attention_op();
  double k = h100.eff.kernel_overhead_s;
  CHECK_NEAR_REL(pl_op_time_s(&h100, PL_DTYPE_BF16, &op, PL_PASS_FWD),
                 0.5 * op.fwd_flops / (989.4e12 * 0.35 * 0.887) + k, 1e-9);
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_triton = true};
  struct pl_model m = {.dropout = false};
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &op, PL_PASS_BWD),
                 0.5 * op.bwd_flops / (989.4e12 * 0.175 * 0.887) + 3 * k, 1e-9);
}

/* cuDNN's fused flash attention (layout.attention_cudnn, Transformer Engine's
 * FusedAttention on Hopper+) runs at the GPU file's cudnn fractions: h100
 * 0.615 forward and 0.532 backward (data/ground-truth/h100/attn_sweep.csv,
 * median of the kernel-bound head-dim-128 shapes), times the sustained 0.887:
 * forward 0.5 * 4 * 32 * 4096^2 * 128 = 137.44 GFLOP / (989.4e12 * 0.615 * 0.887)
 * = 254.6 us + one kernel; backward 2.5 times that, 343.60 GFLOP /
 * (989.4e12 * 0.532 * 0.887) = 735.9 us + 3 kernels. A GPU without the figures (a100-80g) keeps the
 * FlashAttention-2 fractions in pl_op_run_time_s (pl_layout_resolve refuses
 * such a layout before it gets there). */
static void test_cudnn_attention(void) {
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  /* the constant figures: a GPU file without cudnn.shape (nor FlashAttention-2's shape) */
  h100.eff.attn_cudnn_shape_fwd_fraction = 0;
  h100.eff.attn_cudnn_shape_bwd_fraction = 0;
  h100.eff.attn_shape_fwd_fraction = 0;
  h100.eff.attn_shape_bwd_fraction = 0;
  CHECK_NEAR_REL(h100.eff.attn_cudnn_fwd_fraction, 0.615, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_bwd_fraction, 0.532, EXACT);
  CHECK_NEAR_REL(a100.eff.attn_cudnn_fwd_fraction, 0.0, 0);
  struct pl_op op = causal_attention_op();
  double k = h100.eff.kernel_overhead_s;
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.dropout = false};
  double f = pl_op_run_time_s(&h100, &l, &m, &op, PL_PASS_FWD);
  double b = pl_op_run_time_s(&h100, &l, &m, &op, PL_PASS_BWD);
  CHECK_NEAR_REL(f - k, 137438953472.0 / (989.4e12 * 0.615 * 0.887), 1e-9);
  CHECK_NEAR_REL(f - k, 254.6e-6, 2e-4);
  CHECK_NEAR_REL(b - 3 * k, 343597383680.0 / (989.4e12 * 0.532 * 0.887), 1e-9);
  CHECK_NEAR_REL(b - 3 * k, 735.9e-6, 2e-4);
  /* faster than FlashAttention-2 at 0.35: 0.35 / 0.615 of its math time */
  CHECK_NEAR_REL(f - k, (pl_op_time_s(&h100, PL_DTYPE_BF16, &op, PL_PASS_FWD) - k) * 0.35 / 0.615,
                 1e-9);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD),
                 pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD), EXACT);
}

/* cuDNN's rate by shape (h100 attention.cudnn.shape: asymptote 0.670 / 0.600
 * of peak, per-tile fixed cost 192 / 400 key positions, 132 SMs, 128-row query
 * tiles, sustained 0.887), worked by hand; the op counts 128 FLOPs per score
 * forward (320 backward), so a tile's 128 rows cost 128 x 128 = 16384 FLOPs per
 * key forward (40960 backward), and an SM runs 989.4e12 x 0.670 x 0.887 / 132
 * = 4.4545e12 FLOP/s forward (3.9891e12 backward).
 * (a) one head, 1024 causal queries: 8 tiles on 8 SMs, the longest (the last
 *     query tile: 1024 keys) sets the time: (1024 + 192) x 16384 / 4.4545e12
 *     = 4.4725 us forward; backward (1024 + 400) x 40960 / 3.9891e12 = 14.621 us
 *     (plus the kernel overheads: one forward, three backward).
 * (b) 2048 heads of 4096 (65536 tiles, past the dispatch simulation): the
 *     work spread evenly, sum over 32 tiles of (i+1) x 128 + 192 = 73728 per
 *     head, 2048 x 73728 / 132 = 1143901.1 key positions per SM forward =
 *     4207.3 us; backward (67584 + 32 x 400) x 2048 / 132 = 1247170.0 x 40960
 *     / 3.9891e12 = 12805.9 us.
 * (c) context parallelism 2 (1024 local queries against 2048 keys): the causal
 *     diagonal (1216, as (a)) plus one unmasked launch of 1024 queries against
 *     512 keys (8 tiles of 512 + 192 = 704): 1920 x (128 x 128 x 1024 x 2048 /
 *     (1024 x 2048)) / 4.4545e12 = 7.0620 us forward. */
static struct pl_op shape_op(int64_t count, int64_t m, int64_t n) {
  double scores = (double)count * (double)m * (double)n;
  return (struct pl_op){.name = "attn", .kind = PL_OP_ATTENTION, .m = m, .n = n, .k = 128,
                        .count = count, .causal = true, .fwd_flops = 128.0 * scores,
                        .bwd_flops = 320.0 * scores};
}

static void test_cudnn_attention_shape(void) {
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_shape_fwd_fraction, 0.670, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_shape_bwd_fraction, 0.600, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_fwd_tile_fixed_keys, 192.0, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_bwd_tile_fixed_keys, 400.0, EXACT);
  double k = h100.eff.kernel_overhead_s;
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.dropout = false};
  struct pl_op a = shape_op(1, 1024, 1024);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD) - k, 4.4725e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_BWD) - 3 * k, 14.621e-6, 2e-4);
  struct pl_op b = shape_op(2048, 4096, 4096);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &b, PL_PASS_FWD) - k, 4207.3e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &b, PL_PASS_BWD) - 3 * k, 12805.9e-6, 2e-4);
  struct pl_op c = shape_op(1, 1024, 2048);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &c, PL_PASS_FWD) - k, 7.0620e-6, 2e-4);
  /* (d) the same shape under Transformer Engine's all_gather cp
   * (op.cp_gathered 2, compute.c cp_gathered_span): rank 0's chunks 0 and 3
   * of c = 512 queries, 4 tiles each, against the keys up to their chunk's
   * end, bottom-right causal: 128, 256, 384, 512 and 1664, 1792, 1920, 2048
   * keys (8704 in all), + 192 per tile = 10240; the two grids share the 132
   * SMs: max(10240 / 132, the longest 2048 + 192 = 2240) = 2240 key
   * positions: 2240 x 16384 / 4.4545e12 = 8.2389 us forward. 66 heads: max(66
   * x 10240 / 132 = 5120, 2240) = 5120: 18.832 us; backward (K0 400) max(66 x
   * (8704 + 3200) / 132 = 5952, 2448) x 40960 / 3.9891e12 = 61.115 us. */
  c.cp_gathered = 2;
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &c, PL_PASS_FWD) - k, 8.2389e-6, 2e-4);
  struct pl_op cg = shape_op(66, 1024, 2048);
  cg.cp_gathered = 2;
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &cg, PL_PASS_FWD) - k, 18.832e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &cg, PL_PASS_BWD) - 3 * k, 61.115e-6, 2e-4);
  /* (e) shape (c) on Transformer Engine's p2p ring, whose forward launches
   * alternate between two streams (op.cp_two_streams, compute.c
   * cp_ring_fwd_span; TE v1.4 attention.py AttnFuncWithCP.forward
   * flash_attn_streams): the 8 diagonal tiles (1216 .. 320 key positions,
   * heaviest first) take 8 SMs, the unmasked launch's 8 tiles of 704 start at
   * once on 8 idle SMs: makespan max(1216, 704) = 1216, as (a): 4.4725 us
   * forward (7.0620 us without the streams, above). The backward (one stream
   * in TE) keeps its per-launch makespans. 2112 heads (33792 tiles, past the
   * dispatch simulation): the bound, 2112 x (diagonal 128 x 36 + 8 x 192 =
   * 6144, plus 8 x (512 + 192) = 5632) / 132 = 188416 key positions x 16384 /
   * 4.4545e12 = 693.01 us. */
  struct pl_op ring = shape_op(1, 1024, 2048);
  ring.cp_two_streams = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &ring, PL_PASS_FWD) - k, 4.4725e-6, 2e-4);
  struct pl_op plain = shape_op(1, 1024, 2048);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &ring, PL_PASS_BWD),
                 pl_op_run_time_s(&h100, &l, &m, &plain, PL_PASS_BWD), EXACT);
  struct pl_op wide = shape_op(2112, 1024, 2048);
  wide.cp_two_streams = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &wide, PL_PASS_FWD) - k, 693.01e-6, 2e-4);
  /* the small shape runs far below the constant figure (0.615) */
  CHECK(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD) - k >
        10 * 0.5 * a.fwd_flops / (989.4e12 * 0.615 * 0.887));
  /* layout.cudnn_version 9.1 (--cudnn-2024 on): the same form at the cuDNN 9.1 figures
   * (attention.cudnn.shape_2024: asymptote 0.598 / 0.512, fixed cost 0 / 64):
   * (a) forward 1024 x 16384 / (989.4e12 x 0.598 x 0.887 / 132) = 4.2199 us,
   * backward (1024 + 64) x 40960 / (989.4e12 x 0.512 x 0.887 / 132) = 13.092 us */
  l.cudnn_version = PL_CUDNN_2024;
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD) - k, 4.2199e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_BWD) - 3 * k, 13.092e-6, 2e-4);
  /* so does 9.0 (the oldest release at or after it is 9.1's entry) */
  l.cudnn_version = 90000;
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD) - k, 4.2199e-6, 2e-4);
  /* 9.2 is newer than every release h100.json gives: today's shape, as latest (0) */
  l.cudnn_version = 90200;
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD) - k, 4.4725e-6, 2e-4);
  l.cudnn_version = PL_CUDNN_2024;
  /* a GPU file without the 2024 figures keeps today's (h100 with shape_2024 removed) */
  struct pl_gpu h = h100;
  h.eff.attn_cudnn_version_count = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&h, &l, &m, &a, PL_PASS_FWD) - k, 4.4725e-6, 2e-4);
}

/* layout.cudnn_version 9.13 (--cudnn-913 on): cuDNN's form at the cuDNN 9.13.1 figures (b200.json
 * attention.cudnn.shape_9_13: asymptote 0.695 / 0.525, fixed cost 400 / 336, fitted
 * to NVIDIA's published B200 benchmark). Shape (a) of the test above, one head of
 * 1024 causal queries: 8 tiles on 8 of 148 SMs, the makespan the heaviest tile,
 * 1024 + K0 key positions; per key 128 x 128 = 16384 FLOPs forward, 320 x 128 = 40960
 * backward; B200 peak 2250e12, sustained 0.823:
 *   forward (1024 + 400) x 16384 / (2250e12 x 0.695 x 0.823 / 148) = 2.6830 us,
 *   backward (1024 + 336) x 40960 / (2250e12 x 0.525 x 0.823 / 148) = 8.4805 us;
 * today's (shape: 0.727 / 0.567, K0 400 / 320, GB200's fit per SM and clock):
 *   (1024 + 400) x 16384 / (2250e12 x 0.727 x 0.823 / 148) = 2.5649 us,
 *   (1024 + 320) x 40960 / (2250e12 x 0.567 x 0.823 / 148) = 7.7599 us. A GPU file
 * without the 9.13 figures (h100) keeps today's. */
static void test_cudnn_913_attention(void) {
  struct pl_gpu b200, h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b200", &b200, &d), PL_OK, dp);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  double k = b200.eff.kernel_overhead_s;
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.dropout = false};
  struct pl_op a = shape_op(1, 1024, 1024);
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_FWD) - k, 2.5649e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_BWD) - 3 * k, 7.7599e-6, 2e-4);
  double h_today = pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD);
  l.cudnn_version = PL_CUDNN_913;
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_FWD) - k, 2.6830e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_BWD) - 3 * k, 8.4805e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD), h_today, 1e-12);
  /* 9.13.1 is 9.13's; 9.17 (newer than every entry) takes today's. 9.10 takes
   * b200.json's shape_9_10 (session 26: asymptote 0.645 / 0.520 at the same
   * K0 400 / 336 as 9.13's 0.695 / 0.525, so the time scales by the ratio:
   * 2.6830 us x 0.695 / 0.645 = 2.8910 us forward, 8.4805 us x 0.525 / 0.520
   * = 8.5620 us backward), and 9.9, older than the oldest entry, the same */
  l.cudnn_version = 91301;
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_FWD) - k, 2.6830e-6, 2e-4);
  l.cudnn_version = 91000;
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_FWD) - k, 2.8910e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_BWD) - 3 * k, 8.5620e-6, 2e-4);
  l.cudnn_version = PL_CUDNN_NGC_2504;
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_FWD) - k, 2.8910e-6, 2e-4);
  /* NGC PyTorch 25.01's cuDNN 9.7.0 (the NeMo 25.02 / 25.04 containers' base,
   * session 29): older than the oldest entry, 9.10's figures too: 2.8910 us
   * forward, 8.5620 us backward; h100 (shape_2024 only, through 9.1) keeps today's */
  l.cudnn_version = PL_CUDNN_NGC_2501;
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_FWD) - k, 2.8910e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_BWD) - 3 * k, 8.5620e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD), h_today, 1e-12);
  l.cudnn_version = 91700;
  CHECK_NEAR_REL(pl_op_run_time_s(&b200, &l, &m, &a, PL_PASS_FWD) - k, 2.5649e-6, 2e-4);
}

/* Head dim 64 (docs/step-model.md 2.2 "Head dim 64"). An op of head dim 64
 * counts 2 x (64 + 64) = 256 FLOPs per score forward, 2.5 x 256 = 640 backward,
 * so a 128-row tile costs 256 x 128 = 32768 FLOPs per key forward (81920
 * backward). One head of 1024 causal queries: 8 tiles on 8 SMs, the heaviest
 * (1024 keys + K0) sets the time.
 * (a) h100 attention.cudnn.shape_head_dim_64 (measured: asymptote 0.490 /
 *     0.485, K0 192 / 496; sustained 0.887, 132 SMs): an SM runs 989.4e12 x
 *     0.490 x 0.887 / 132 = 3.25775e12 FLOP/s forward, 989.4e12 x 0.485 x 0.887
 *     / 132 = 3.22451e12 backward: (1024 + 192) x 32768 / 3.25775e12 =
 *     12.2311 us forward, (1024 + 496) x 81920 / 3.22451e12 = 38.6163 us
 *     backward. The SFU bound (tensor_flops_per_exp 256) is 256 / 256 = 1.0
 *     forward: not binding. Without the entry the head-dim-128 shape runs.
 * (b) gb200 (shape 0.705 / K0 400 forward, sustained 0.826, 152 SMs, peak
 *     2500e12; tensor_flops_per_exp 512): the exponential bound 256 / 512 =
 *     0.5 < 0.705, so an SM runs 2500e12 x 0.5 x 0.826 / 152 = 6.79276e12
 *     FLOP/s: (1024 + 400) x 32768 / 6.79276e12 = 6.8693 us forward (4.8719 us
 *     at 0.705), with the file's measured head-dim-64 entry (d) taken out.
 *     Backward 640 / 512 = 1.25: not binding; head dim 128 (512 / 512 = 1.0)
 *     not binding; gb300 (256 per exponential: 1.0) not binding.
 * (d) gb200 attention.cudnn.shape_head_dim_64 (session 23: cudnn-frontend's
 *     published GPT-OSS benchmark, cuDNN 9.19.1; refitted in session 24 with
 *     the windowed key-tile rule on GB200's 152 SMs: 0.405 / 0.375, K0 400 / 320,
 *     under the bound): an SM runs 2500e12 x 0.405 x 0.826 / 152 = 5.50214e12 FLOP/s
 *     forward, 2500e12 x 0.375 x 0.826 / 152 = 5.09457e12 backward:
 *     (1024 + 400) x 32768 / 5.50214e12 = 8.4806 us forward, (1024 + 320) x
 *     81920 / 5.09457e12 = 21.6113 us backward. */
static struct pl_op hd64_op(int64_t count, int64_t m, int64_t n) {
  double scores = (double)count * (double)m * (double)n;
  return (struct pl_op){.name = "attn", .kind = PL_OP_ATTENTION, .m = m, .n = n, .k = 64,
                        .count = count, .causal = true, .fwd_flops = 256.0 * scores,
                        .bwd_flops = 640.0 * scores};
}

static void test_cudnn_head_dim_64(void) {
  struct pl_gpu h100, gb200, gb300;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  CHECK_STATUS(pl_gpu_load("gb200", &gb200, &d), PL_OK, dp);
  CHECK_STATUS(pl_gpu_load("gb300", &gb300, &d), PL_OK, dp);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_hd64_shape_fwd_fraction, 0.490, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_hd64_shape_bwd_fraction, 0.485, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_hd64_fwd_tile_fixed_keys, 192.0, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_cudnn_hd64_bwd_tile_fixed_keys, 496.0, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_tensor_flops_per_exp, 256.0, EXACT);
  CHECK_NEAR_REL(gb200.eff.attn_tensor_flops_per_exp, 512.0, EXACT);
  CHECK_NEAR_REL(gb300.eff.attn_tensor_flops_per_exp, 256.0, EXACT);
  double k = h100.eff.kernel_overhead_s;
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.dropout = false};
  struct pl_op a = hd64_op(1, 1024, 1024);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD) - k, 12.2311e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_BWD) - 3 * k, 38.6163e-6, 2e-4);
  /* without the entry: the head-dim-128 shape, (1024 + 192) x 32768 /
   * (989.4e12 x 0.670 x 0.887 / 132) = 8.9452 us */
  struct pl_gpu h = h100;
  h.eff.attn_cudnn_hd64_shape_fwd_fraction = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&h, &l, &m, &a, PL_PASS_FWD) - k, 8.9452e-6, 2e-4);
  /* head dim 128 (shape_op's op with k = 128) keeps the head-dim-128 shape */
  struct pl_op wide = shape_op(1, 1024, 1024);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &wide, PL_PASS_FWD),
                 pl_op_run_time_s(&h, &l, &m, &wide, PL_PASS_FWD), EXACT);
  /* (b) the SFU bound on GB200, forward only, on the head-dim-128 shape (the
   * file's measured head-dim-64 forward entry, (d), taken out) */
  double kb = gb200.eff.kernel_overhead_s;
  struct pl_gpu gn = gb200;
  gn.eff.attn_cudnn_hd64_shape_fwd_fraction = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&gn, &l, &m, &a, PL_PASS_FWD) - kb, 6.8693e-6, 2e-4);
  struct pl_gpu g = gn;
  g.eff.attn_tensor_flops_per_exp = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &m, &a, PL_PASS_FWD) - kb, 4.8719e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &l, &m, &a, PL_PASS_BWD),
                 pl_op_run_time_s(&g, &l, &m, &a, PL_PASS_BWD), EXACT);
  /* (d) GB200's measured head-dim-64 entry, below the bound */
  CHECK_NEAR_REL(gb200.eff.attn_cudnn_hd64_shape_fwd_fraction, 0.405, EXACT);
  CHECK_NEAR_REL(gb200.eff.attn_cudnn_hd64_bwd_tile_fixed_keys, 320.0, EXACT);
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &l, &m, &a, PL_PASS_FWD) - kb, 8.4806e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &l, &m, &a, PL_PASS_BWD) - 3 * kb, 21.6113e-6, 2e-4);
  struct pl_op full = a; /* head dim 128: 512 FLOPs per score forward */
  full.k = 128;
  full.fwd_flops *= 2;
  full.bwd_flops *= 2;
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &l, &m, &full, PL_PASS_FWD),
                 pl_op_run_time_s(&g, &l, &m, &full, PL_PASS_FWD), EXACT);
  struct pl_gpu u = gb300;
  u.eff.attn_tensor_flops_per_exp = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&gb300, &l, &m, &a, PL_PASS_FWD),
                 pl_op_run_time_s(&u, &l, &m, &a, PL_PASS_FWD), EXACT);
  /* (c) FlashAttention-2 at head dim 64 (h100 attention.shape_head_dim_64, measured:
   * 0.310 / 0.295, K0 224 / 448): the 8 forward tiles go lightest first to 8 free SMs,
   * the heaviest sets the time: (1024 + 224) x 32768 / (989.4e12 x 0.310 x 0.887 / 132)
   * = 19.842 us; backward (1024 + 448) x 81920 / (989.4e12 x 0.295 x 0.887 / 132)
   * = 61.483 us; without the entry attention.shape's 0.340 / K0 144: (1024 + 144) x
   * 32768 / (989.4e12 x 0.340 x 0.887 / 132) = 16.931 us */
  struct pl_layout fa = {.dtype = PL_DTYPE_BF16};
  CHECK_NEAR_REL(h100.eff.attn_hd64_shape_fwd_fraction, 0.310, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_hd64_bwd_tile_fixed_keys, 448.0, EXACT);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &fa, &m, &a, PL_PASS_FWD) - k, 19.842e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &fa, &m, &a, PL_PASS_BWD) - 3 * k, 61.483e-6, 2e-4);
  struct pl_gpu hf = h100;
  hf.eff.attn_hd64_shape_fwd_fraction = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&hf, &fa, &m, &a, PL_PASS_FWD) - k, 16.931e-6, 2e-4);
  /* FlashAttention-2 is not bound here (cuDNN's figures only) */
  struct pl_layout fl = {.dtype = PL_DTYPE_BF16};
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &fl, &m, &a, PL_PASS_FWD),
                 pl_op_run_time_s(&g, &fl, &m, &a, PL_PASS_FWD), EXACT);
}

/* A sliding window is walked in whole 128-key tiles (compute.c tile_keys,
 * docs/step-model.md 2.2 "Sliding windows"). One head of 1024 queries with a
 * 128-key window at head dim 64 (hd64_op(1, 1024, 128): 8 tiles on 8 SMs, the
 * heaviest sets the time). cuDNN's left bound is Transformer Engine's
 * window_size_left + 1 = 129, FlashAttention-2's the window, 128.
 * (a) gb200 forward, cuDNN's sm100 CTA of 256 rows (compute capability 10.0):
 *     CTA c starts at row 256c and walks key tiles max(0, (256c - 129) / 128)
 *     to ceil((256c + 256) / 128): c = 0 tiles 0-1 (256 keys), c = 1 tiles
 *     0-3, c = 2 tiles 2-5, c = 3 tiles 4-7 (512 keys); the heaviest tile 512 +
 *     K0 400 = 912 key positions: 912 x 32768 / 5.50214e12 (test (d) above) =
 *     5.4314 us, against 128 + 400 = 528 (3.1445 us) for the window's own keys.
 * (b) gb200 backward, 128-row tiles: tile i walks key tiles (128i - 129) / 128
 *     = i - 2 to i (i >= 2): 384 + K0 320 = 704: 704 x 81920 / 5.09457e12 =
 *     11.3202 us.
 * (c) h100 (no compute capability: 128-row CTAs, cuDNN's sm90): forward 384 +
 *     K0 192 = 576: 576 x 32768 / 3.25775e12 = 5.7937 us; backward 384 + 496 =
 *     880: 880 x 81920 / 3.22451e12 = 22.3568 us.
 * (d) FlashAttention-2 on h100 (left bound 128: tiles i - 1 and i): forward 256
 *     + K0 224 = 480 at 0.310: 480 x 32768 / (989.4e12 x 0.310 x 0.887 / 132) =
 *     7.6315 us; backward 256 + 448 = 704 at 0.295: 29.4049 us. */
static void test_window_key_tiles(void) {
  struct pl_gpu h100, gb200;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  CHECK_STATUS(pl_gpu_load("gb200", &gb200, &d), PL_OK, dp);
  CHECK(gb200.sm_arch == 100 && h100.sm_arch == 0);
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.dropout = false};
  struct pl_op w = hd64_op(1, 1024, 128);
  double kb = gb200.eff.kernel_overhead_s, kh = h100.eff.kernel_overhead_s;
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &l, &m, &w, PL_PASS_FWD) - kb, 5.4314e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &l, &m, &w, PL_PASS_BWD) - 3 * kb, 11.3202e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &w, PL_PASS_FWD) - kh, 5.7937e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &w, PL_PASS_BWD) - 3 * kh, 22.3568e-6, 2e-4);
  /* the same GPU without its compute capability walks 128-row CTAs forward:
   * 384 + 400 = 784 of the 912 key positions */
  struct pl_gpu g = gb200;
  g.sm_arch = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &m, &w, PL_PASS_FWD) - kb, 5.4314e-6 * 784.0 / 912.0,
                 2e-4);
  struct pl_layout fa = {.dtype = PL_DTYPE_BF16};
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &fa, &m, &w, PL_PASS_FWD) - kh, 7.6315e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &fa, &m, &w, PL_PASS_BWD) - 3 * kh, 29.4049e-6, 2e-4);
  /* (e) FlashAttention-2 on gb200, which gives no shape figures: the flat 0.34
   * of peak (x sustained 0.826) on the counted FLOPs times the key positions
   * the tiles walk over the window's: tile 0 128, tiles 1-7 256, (128 + 7 x
   * 256) / (8 x 128) = 1.875: 1.875 x 256 x 1024 x 128 / (2500e12 x 0.34 x
   * 0.826) = 0.089609 us forward, 1.875 x 640 x 1024 x 128 / ... = 0.224023 us
   * backward (640 FLOPs per score) */
  CHECK_NEAR_REL(gb200.eff.attn_fwd_fraction, 0.34, EXACT);
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &fa, &m, &w, PL_PASS_FWD) - kb, 0.089609e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&gb200, &fa, &m, &w, PL_PASS_BWD) - 3 * kb, 0.224023e-6, 2e-4);
}

/* MXFP8 attention (layout.fp8_attention): the BF16 cuDNN kernel's time times the
 * GPU file's published MXFP8/BF16 time ratio (gb300.json attention.cudnn.
 * mxfp8_time_ratio, NVIDIA's cudnn-frontend benchmark, medians over seq 2k-32k):
 * head dim 128 forward 0.722, backward 1.022 (the MXFP8 backward is no faster
 * there); latent attention's 192/128 heads 0.645 and 0.725. A GPU file without
 * the figures keeps the BF16 time (the layout is refused there at resolve). */
static void test_mxfp8_attention(void) {
  struct pl_gpu g;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("gb300", &g, &d), PL_OK, dp);
  CHECK_NEAR_REL(g.eff.attn_cudnn_mxfp8_fwd_ratio, 0.722, EXACT);
  CHECK_NEAR_REL(g.eff.attn_cudnn_mxfp8_bwd_ratio, 1.022, EXACT);
  CHECK_NEAR_REL(g.eff.attn_cudnn_mxfp8_mla_fwd_ratio, 0.645, EXACT);
  CHECK_NEAR_REL(g.eff.attn_cudnn_mxfp8_mla_bwd_ratio, 0.725, EXACT);
  struct pl_layout l = {.dtype = PL_DTYPE_MXFP8, .attention_cudnn = true};
  struct pl_model gqa = {.head_dim = 128};
  struct pl_model mla = {.head_dim = 192, .v_head_dim = 128};
  struct pl_op a = shape_op(64, 4096, 4096);
  double f16 = pl_op_run_time_s(&g, &l, &gqa, &a, PL_PASS_FWD);
  double b16 = pl_op_run_time_s(&g, &l, &gqa, &a, PL_PASS_BWD);
  CHECK(f16 > 0 && b16 > 0);
  l.fp8_attention = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &gqa, &a, PL_PASS_FWD), 0.722 * f16, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &gqa, &a, PL_PASS_BWD), 1.022 * b16, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &mla, &a, PL_PASS_FWD), 0.645 * f16, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &mla, &a, PL_PASS_BWD), 0.725 * b16, 1e-12);
  struct pl_gpu h = g;
  h.eff.attn_cudnn_mxfp8_fwd_ratio = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&h, &l, &gqa, &a, PL_PASS_FWD), f16, 1e-12);
}

/* cuDNN's FP8/MXFP8 backward with a sliding window runs the whole causal
 * triangle (compute.c attn_fp8_window_bwd; NVIDIA's cuDNN 9.22 GPT-OSS SDPA
 * benchmark, data/published/cudnn-frontend/sdpa_gpt_oss_gb300.csv: the MXFP8
 * backward at window 128 grows x3.6-3.9 per doubling of the sequence, the BF16
 * one and both forwards x2). A 128-key window over 4096 queries (shape_op: 64
 * heads, FLOPs 128 / 320 per score) under MXFP8 attention on gb300:
 *  - backward = 1.022 x the BF16 backward of the causal op over all 4096 keys,
 *    whose FLOPs are 4096 / 128 = 32 x the window's (shape_op(64, 4096, 4096));
 *  - forward = 0.722 x its own BF16 forward (the forward skips by window).
 * The BF16 windowed backward keeps its window (well under the causal one: its
 * tiles walk three key tiles under Transformer Engine's left bound 129, 384 + K0
 * 432 key positions, against the causal tiles' 2112 + 432 on average, x 3.1;
 * compute.c tile_keys). */
static void test_mxfp8_window_backward(void) {
  struct pl_gpu g;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("gb300", &g, &d), PL_OK, dp);
  struct pl_layout l = {.dtype = PL_DTYPE_MXFP8, .attention_cudnn = true};
  struct pl_model gqa = {.head_dim = 128};
  struct pl_op win = shape_op(64, 4096, 128), full = shape_op(64, 4096, 4096);
  CHECK_NEAR_REL(full.bwd_flops, 32.0 * win.bwd_flops, 1e-12);
  double win_f16 = pl_op_run_time_s(&g, &l, &gqa, &win, PL_PASS_FWD);
  double win_b16 = pl_op_run_time_s(&g, &l, &gqa, &win, PL_PASS_BWD);
  double full_b16 = pl_op_run_time_s(&g, &l, &gqa, &full, PL_PASS_BWD);
  CHECK(win_b16 > 0 && full_b16 > 2.5 * win_b16);
  l.fp8_attention = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &gqa, &win, PL_PASS_BWD), 1.022 * full_b16, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &gqa, &win, PL_PASS_FWD), 0.722 * win_f16, 1e-12);
  /* the causal op itself is unchanged by the rule */
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &l, &gqa, &full, PL_PASS_BWD), 1.022 * full_b16, 1e-12);
}

/* FlashAttention-2's rate by shape (h100 attention.shape: asymptote 0.340 /
 * 0.335 of peak, per-tile fixed cost 144 / 416 key positions; 132 SMs,
 * 128-row tiles, sustained 0.887), worked by hand with shape_op's FLOPs
 * (16384 per key position of a tile forward, 40960 backward): an SM runs
 * 989.4e12 x 0.340 x 0.887 / 132 = 2.26048e12 FLOP/s forward (2.22724e12
 * backward at 0.335).
 * (a) one head, 1024 causal queries: 8 tiles on 8 SMs, the last one sets the
 *     time: (1024 + 144) x 16384 / 2.26048e12 = 8.4657 us forward; backward
 *     (1024 + 416) x 40960 / 2.22724e12 = 26.482 us.
 * (b) the forward's grid order (flash_fwd_launch_template.h run_flash_fwd:
 *     grid (num_m_block, b, h), m_block = blockIdx.x): one head of 17024
 *     queries is 133 tiles; tiles 0-131 fill the 132 SMs lightest first and
 *     the heaviest, tile 132 (17024 + 144 keys), waits for the SM that frees
 *     first, tile 0's (128 + 144): 17440 key positions x 16384 / 2.26048e12 =
 *     126.405 us (heaviest first, as cuDNN's, would give 17168 = 124.434 us).
 * (c) 2048 heads of 4096 (past the dispatch simulation): the work spread
 *     evenly, 32 tiles of (i+1) x 128 + 144 = 72192 key positions per head,
 *     x 2048 / 132 = 1120069.8 per SM = 8118.29 us forward.
 * An A100 (no entry) keeps the flat fraction. */
static void test_flash_attention_shape(void) {
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  CHECK_NEAR_REL(h100.eff.attn_shape_fwd_fraction, 0.340, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_shape_bwd_fraction, 0.335, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_fwd_tile_fixed_keys, 144.0, EXACT);
  CHECK_NEAR_REL(h100.eff.attn_bwd_tile_fixed_keys, 416.0, EXACT);
  double k = h100.eff.kernel_overhead_s;
  struct pl_op a = shape_op(1, 1024, 1024);
  CHECK_NEAR_REL(pl_op_time_s(&h100, PL_DTYPE_BF16, &a, PL_PASS_FWD) - k, 8.4657e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_time_s(&h100, PL_DTYPE_BF16, &a, PL_PASS_BWD) - 3 * k, 26.482e-6, 2e-4);
  struct pl_op b = shape_op(1, 17024, 17024);
  CHECK_NEAR_REL(pl_op_time_s(&h100, PL_DTYPE_BF16, &b, PL_PASS_FWD) - k, 126.405e-6, 2e-4);
  struct pl_op c = shape_op(2048, 4096, 4096);
  CHECK_NEAR_REL(pl_op_time_s(&h100, PL_DTYPE_BF16, &c, PL_PASS_FWD) - k, 8118.29e-6, 2e-4);
  /* the layout's default kernel (flash) runs it too */
  struct pl_layout l = {.dtype = PL_DTYPE_BF16};
  struct pl_model m = {.dropout = false};
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &l, &m, &a, PL_PASS_FWD),
                 pl_op_time_s(&h100, PL_DTYPE_BF16, &a, PL_PASS_FWD), EXACT);
  /* no entry: the flat figures (an A100 file without its shape entry) */
  struct pl_gpu flat = a100;
  flat.eff.attn_shape_fwd_fraction = flat.eff.attn_shape_bwd_fraction = 0;
  double sus = flat.eff.gemm_sustained_fraction > 0 ? flat.eff.gemm_sustained_fraction : 1.0;
  CHECK_NEAR_REL(pl_op_time_s(&flat, PL_DTYPE_BF16, &c, PL_PASS_FWD) - ovh(),
                 0.5 * c.fwd_flops / (flat.peak_bf16_flops_per_s * flat.eff.attn_fwd_fraction * sus),
                 1e-9);
}

/* FlashAttention-2's rate by shape on A100 (a100-80g attention.shape: 0.73 /
 * 0.622 of peak, per-tile fixed cost 176 key positions in both passes, fitted
 * to flash-attention's published A100 figure by scripts/attn-fa2-a100-fit.py;
 * 108 SMs, 128-row tiles, sustained 0.949), by hand with shape_op's FLOPs
 * (16384 per key position of a tile forward, 40960 backward): an SM runs
 * 312e12 x 0.73 x 0.949 / 108 = 2.001336e12 FLOP/s forward, 312e12 x 0.622 x
 * 0.949 / 108 = 1.705248e12 backward.
 * (a) one head, 1024 causal queries: 8 tiles on 8 SMs, the heaviest sets the
 *     time: (1024 + 176) x 16384 / 2.001336e12 = 9.8238 us forward;
 *     (1024 + 176) x 40960 / 1.705248e12 = 28.824 us backward.
 * (b) 2048 heads of 4096 (past the dispatch simulation): per head 32 tiles of
 *     (i+1) x 128 + 176 = 73216 key positions, x 2048 / 108 = 1388392.3 per
 *     SM = 11366.1 us forward.
 * (c) head dim 64 takes attention.shape_head_dim_64 (0.73 / 0.53, K0 184):
 *     (a)'s head at d 64 (shape_op's FLOPs, k = 64): (1024 + 184) x 16384 /
 *     2.001336e12 = 9.8893 us forward; backward at 312e12 x 0.53 x 0.949 / 108
 *     = 1.453024e12: (1024 + 184) x 40960 / 1.453024e12 = 34.053 us. */
static void test_flash_attention_shape_a100(void) {
  double k = ovh();
  struct pl_op a = shape_op(1, 1024, 1024);
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &a, PL_PASS_FWD) - k, 9.8238e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &a, PL_PASS_BWD) - 3 * k, 28.824e-6, 2e-4);
  struct pl_op c = shape_op(2048, 4096, 4096);
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &c, PL_PASS_FWD) - k, 11366.1e-6, 2e-4);
  struct pl_op h = shape_op(1, 1024, 1024);
  h.k = 64;
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &h, PL_PASS_FWD) - k, 9.8893e-6, 2e-4);
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &h, PL_PASS_BWD) - 3 * k, 34.053e-6, 2e-4);
  /* cudnn asked on a GPU without cuDNN's figures: FlashAttention-2 by shape */
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.dropout = false};
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &a, PL_PASS_FWD),
                 pl_op_time_s(&a100, PL_DTYPE_BF16, &a, PL_PASS_FWD), EXACT);
}

/* Blackwell cuDNN attention by shape (data/gpus/gb200.json, gb300.json:
 * efficiency.attention.cudnn.shape fitted to NVIDIA's published cuDNN SDPA
 * training benchmark, data/published/cudnn-frontend/sdpa_llama3.1_*.csv):
 * at the benchmark's own shape (batch 2 x 64 heads, seq 8192, head dim 128,
 * causal; 4 x 128 FLOPs per score forward, 2.5x that backward) the burst
 * time (the run time without its launches, times the sustained fraction
 * that a training step adds) comes back within the fit's error of the
 * published kernel time: GB200 1.397 ms forward, 4.127 ms backward; GB300
 * 1.185 / 3.832 ms. The old estimate (0.51 of peak forward) said 1.72 ms. */
static void test_blackwell_cudnn_attention(void) {
  static const struct {
    const char *gpu;
    double fwd_s, bwd_s;
  } pub[] = {{"gb200", 1.397e-3, 4.127e-3}, {"gb300", 1.185e-3, 3.832e-3}};
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .attention_cudnn = true};
  struct pl_model m = {.dropout = false};
  double scores = 128.0 * 8192.0 * 8192.0;
  struct pl_op a = {.name = "attn", .kind = PL_OP_ATTENTION, .m = 8192, .n = 8192, .k = 128,
                    .count = 128, .causal = true, .fwd_flops = 512.0 * scores,
                    .bwd_flops = 1280.0 * scores};
  for (size_t i = 0; i < sizeof pub / sizeof pub[0]; i++) {
    struct pl_gpu g;
    struct pl_diag d, *dp = &d;
    pl_diag_clear(&d);
    CHECK_STATUS(pl_gpu_load(pub[i].gpu, &g, &d), PL_OK, dp);
    CHECK(g.eff.attn_cudnn_shape_fwd_fraction > 0 && g.eff.attn_cudnn_shape_bwd_fraction > 0);
    double k = g.eff.kernel_overhead_s, sus = g.eff.gemm_sustained_fraction;
    double fwd = (pl_op_run_time_s(&g, &l, &m, &a, PL_PASS_FWD) - k) * sus;
    double bwd = (pl_op_run_time_s(&g, &l, &m, &a, PL_PASS_BWD) - 3 * k) * sus;
    CHECK_NEAR_REL(fwd, pub[i].fwd_s, 0.05);
    CHECK_NEAR_REL(bwd, pub[i].bwd_s, 0.10);
  }
}

/* Eager attention (no FlashAttention) materializes the scores: slower than
 * the fused kernel, and its forward is at least the softmax traffic
 * 32 * 4096^2 elements * (4 + 5 with dropout) bytes over the HBM. */
static void test_eager_attention(void) {
  struct pl_op op = causal_attention_op();
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .eager_attention = true};
  struct pl_model m = {.dropout = true};
  double eager = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD);
  double flash = pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD);
  CHECK(eager > flash);
  CHECK(eager > 32.0 * 4096 * 4096 * 9.0 / (2039e9 * 0.88));
  l.eager_attention = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD), flash, EXACT);
}

/* Eager attention with V's head dim below Q's and K's (latent attention,
 * d_qk 192, d_v 128; TE UnfusedDotProductAttention: baddbmm at d_qk, bmm
 * with value_layer at d_v). The score traffic is the same, so against the
 * same op at d_v = d_qk = 192 only the GEMMs whose inner or output width is
 * V's change: forward P.V (m x n)(n x d_v); backward dP = dO V^T
 * (m x d_v)(d_v x n) and dV = P^T dO (n x m)(m x d_v). QK^T, dQ and dK stay
 * at 192. k_v = 0 means k (every non-latent model). */
static void test_eager_attention_v_head_dim(void) {
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .eager_attention = true};
  struct pl_model m = {.head_dim = 192, .v_head_dim = 128};
  int64_t s = 4096, c = 16;
  struct pl_op mla = {.name = "attn", .kind = PL_OP_ATTENTION, .m = s, .n = s, .k = 192,
                      .k_v = 128, .count = c, .causal = true};
  struct pl_op same = mla;
  same.k_v = 0;
  struct pl_op same192 = mla;
  same192.k_v = 192;
  double f = pl_op_run_time_s(&a100, &l, &m, &mla, PL_PASS_FWD);
  double b = pl_op_run_time_s(&a100, &l, &m, &mla, PL_PASS_BWD);
  double f0 = pl_op_run_time_s(&a100, &l, &m, &same, PL_PASS_FWD);
  double b0 = pl_op_run_time_s(&a100, &l, &m, &same, PL_PASS_BWD);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &same192, PL_PASS_FWD), f0, EXACT);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &same192, PL_PASS_BWD), b0, EXACT);
  enum pl_dtype bf = PL_DTYPE_BF16;
  /* P.V and dV = P^T dO are both (4096 x 4096)(4096 x d_v) products */
  double pv = pl_gemm_time_s(&a100, bf, s, 128, s, c) - pl_gemm_time_s(&a100, bf, s, 192, s, c);
  double dp = pl_gemm_time_s(&a100, bf, s, s, 128, c) - pl_gemm_time_s(&a100, bf, s, s, 192, c);
  CHECK(pv < 0 && dp < 0);
  CHECK_NEAR_REL(f - f0, pv, 1e-9);
  CHECK_NEAR_REL(b - b0, dp + pv, 1e-9);
}

/* Memory-bound ops: bytes over the achievable bandwidth, one kernel. */
static void test_memory_op(void) {
  struct pl_op op = {
      .name = "norm1", .kind = PL_OP_MEMORY, .count = 1, .fwd_bytes = 1e9, .bwd_bytes = 0};
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD),
                 1e9 / (2039e9 * 0.88) + ovh(), 1e-9);
  CHECK_EQ_INT(pl_op_kernels(&op, PL_PASS_BWD), 0);
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_BWD) + 1.0, 1.0, EXACT);
}

/* A GEMM's backward is dgrad (m x n)(n x k) + wgrad (k x m)(m x n). */
static void test_gemm_backward(void) {
  struct pl_op op = {.name = "fc1",
                     .kind = PL_OP_GEMM,
                     .m = 8192,
                     .n = 3072,
                     .k = 6144,
                     .count = 1,
                     .fwd_flops = 2.0 * 8192 * 3072 * 6144,
                     .bwd_flops = 4.0 * 8192 * 3072 * 6144};
  double want = pl_gemm_time_s(&a100, PL_DTYPE_BF16, 8192, 6144, 3072, 1) +
                pl_gemm_time_s(&a100, PL_DTYPE_BF16, 6144, 3072, 8192, 1);
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_BWD), want, EXACT);
  CHECK_EQ_INT(pl_op_kernels(&op, PL_PASS_BWD), 2);
}

/* Find an op by name in a segment's op list, or NULL. */
static const struct pl_op *find_op(const struct pl_op *ops, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(ops[i].name, name) == 0)
      return &ops[i];
  return NULL;
}

/* The fp8_casts op of one segment of run (pl_sim_segment_ops into ops). */
static const struct pl_op *fp8_casts_of(const struct pl_run *run, struct pl_op *ops) {
  return find_op(ops, pl_sim_segment_ops(run, 1, ops), "fp8_casts");
}


/* Unfused (eager PyTorch) element-wise kernels, docs/step-model.md 2.3b, per
 * block of 1024 tokens: RMSNorm +32 B fwd / +86 B bwd per element of 2 norms
 * over 1024 x 1024 = 67.1 MB / 180.4 MB (backward: 92 B for the autograd
 * chain, 12 + 6 + 24 + 4 + 28 + 12 + 6, less the fused norm's 6 B); SwiGLU +4 / +6 B per element of
 * 1024 x 2816 = 11.5 MB / 23.1 MB (+4 / +8 B: silu then the multiply, 10 B,
 * against the fused 6 B; autograd's two multiply gradients and
 * silu_backward, 18 B, against 10 B); RoPE (HF's chain, 20 B forward, 30 B
 * backward, less the op list's 4 B) +16 / +26 B per q and k element,
 * 1024 x 2048 = 33.6 MB / 54.5 MB. Fused adds none of them. */
static void test_unfused_kernels(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  int fused = pl_sim_segment_ops(&run, 1, ops);
  CHECK(find_op(ops, fused, "rmsnorm_eager") == NULL);
  run.layout.kernels = PL_KERNELS_UNFUSED;
  int n = pl_sim_segment_ops(&run, 1, ops);
  CHECK_EQ_INT(n, fused + 3);
  const struct pl_op *norm = find_op(ops, n, "rmsnorm_eager");
  const struct pl_op *glu = find_op(ops, n, "swiglu_eager");
  const struct pl_op *rope = find_op(ops, n, "rope_eager");
  CHECK(norm != NULL && glu != NULL && rope != NULL);
  if (norm == NULL || glu == NULL || rope == NULL)
    return;
  CHECK_NEAR_REL(norm->fwd_bytes, 2.0 * 32 * 1024 * 1024, EXACT);
  CHECK_NEAR_REL(norm->bwd_bytes, 2.0 * (12 + 6 + 24 + 4 + 28 + 12 + 6 - 6) * 1024 * 1024, EXACT);
  CHECK_NEAR_REL(glu->fwd_bytes, 4.0 * 1024 * 2816, EXACT);
  /* one fc1 for gate and up (no separate_linears): chunk's backward cat,
   * +8 B per ffn element and one kernel (session 27, segments.c); the silu
   * and the multiply on the halves on the non-vectorized path: 2 elements
   * each way, 10 B forward, 12 B backward */
  CHECK_NEAR_REL(glu->bwd_bytes, (8.0 + 8.0) * 1024 * 2816, EXACT);
  CHECK(glu->fwd_kernels == 0 && glu->bwd_kernels == 3);
  CHECK_NEAR_REL(glu->fwd_strided_elems, 2.0 * 1024 * 2816, EXACT);
  CHECK_NEAR_REL(glu->fwd_strided_bytes, 10.0 * 1024 * 2816, EXACT);
  CHECK_NEAR_REL(glu->bwd_strided_elems, 2.0 * 1024 * 2816, EXACT);
  CHECK_NEAR_REL(glu->bwd_strided_bytes, 12.0 * 1024 * 2816, EXACT);
  CHECK_NEAR_REL(rope->fwd_bytes, 16.0 * 1024 * 2048, EXACT);
  CHECK_NEAR_REL(rope->bwd_bytes, 26.0 * 1024 * 2048, EXACT);
  /* separate gate and up linears: contiguous operands, no cat */
  run.layout.separate_linears = true;
  int ns = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *glu_s = find_op(ops, ns, "swiglu_eager");
  CHECK(glu_s != NULL);
  if (glu_s != NULL) {
    CHECK_NEAR_REL(glu_s->bwd_bytes, 8.0 * 1024 * 2816, EXACT);
    CHECK(glu_s->bwd_kernels == 2 && glu_s->fwd_strided_elems == 0);
  }
  run.layout.separate_linears = false;
  n = pl_sim_segment_ops(&run, 1, ops);
  CHECK(rope->fwd_kernels == 9 && rope->bwd_kernels == 17);
  /* memory-bound: 67.1 MB at 2039 GB/s x 0.88 = 37.4 us, plus one kernel */
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, norm, PL_PASS_FWD),
                 2.0 * 32 * 1024 * 1024 / (2039e9 * 0.88) + ovh(), 1e-9);
}

/* FP8 through Transformer Engine's Linear (docs/step-model.md 2.3e): 4 B
 * per GEMM input element and weight forward, 4 B per output-gradient element
 * backward. This block's GEMMs on 1024 tokens: inputs qkv, proj, fc1 1024 x
 * 1024 and fc2 1024 x 2816 = 6,029,312 elements; weights 1024 x 3072,
 * 1024 x 1024, 1024 x 5632 (gate and up), 2816 x 1024 = 12,845,056; outputs
 * 1024 x (3072 + 1024 + 5632 + 1024) = 11,010,048. So 75,497,472 B forward,
 * 44,040,192 B backward, forward again under full recompute; none in BF16. */
static void test_fp8_casts(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  int n = pl_sim_segment_ops(&run, 1, ops);
  CHECK(find_op(ops, n, "fp8_casts") == NULL);
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.recompute = PL_RECOMPUTE_FULL;
  const struct pl_op *c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_NEAR_REL(c->fwd_bytes, 4.0 * (6029312.0 + 12845056.0), EXACT);
    CHECK_NEAR_REL(c->bwd_bytes, 4.0 * 11010048.0, EXACT);
    CHECK(c->recompute);
  }
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 2, ops), "fp8_casts") == NULL); /* head: 16-bit */
  /* fp8-tensorwise (torchao Float8Linear): 5 B per cast (amax read 2, cast
   * read 2, write 1); forward casts inputs and weights, backward the output
   * gradients twice and inputs and weights again: 5 x (6,029,312 +
   * 12,845,056) = 94,371,840 B forward, 5 x (2 x 11,010,048 + 12,845,056 +
   * 6,029,312) = 204,472,320 B backward, whatever the micro-batches */
  run.layout.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  run.layout.micro_batches = 8;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_NEAR_REL(c->fwd_bytes, 94371840.0, EXACT);
    CHECK_NEAR_REL(c->bwd_bytes, 204472320.0, EXACT);
    CHECK(c->recompute);
  }
  /* fp8-rowwise (torchao's rowwise recipe): the same 5 B casts, but each
   * linear casts its own input: q, k, v (3 x 1,048,576) and the gated MLP's
   * gate and up (2 x 1,048,576), proj 1,048,576, fc2 2,883,584 = 9,175,040
   * input elements per pass. Forward 5 x (9,175,040 + 12,845,056) =
   * 110,100,480 B; backward the casts 5 x (2 x 11,010,048 + 12,845,056 +
   * 9,175,040) = 220,200,960 B plus the rescale of the backward GEMMs'
   * 16-bit outputs (read 2, write 2), dgrad 6,029,312 and wgrad 12,845,056
   * elements: 4 x 18,874,368 = 75,497,472 B; 295,698,432 B in all */
  run.layout.fp8_recipe = PL_FP8_RECIPE_ROWWISE;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_NEAR_REL(c->fwd_bytes, 110100480.0, EXACT);
    CHECK_NEAR_REL(c->bwd_bytes, 295698432.0, EXACT);
    CHECK(c->recompute);
  }
  run.layout.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  /* layout.fp8_all_gather under zero3 sharded 4 ways: the weights are cast
   * on the local shard before the gather (12,845,056 / 4 = 3,211,264) and
   * not again in backward: 5 x (6,029,312 + 3,211,264) = 46,202,880 B
   * forward, 5 x (2 x 11,010,048 + 6,029,312) = 140,247,040 B backward;
   * under ddp the flag changes nothing */
  run.layout.fp8_all_gather = true;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL && c->fwd_bytes == 94371840.0);
  run.layout.shard = PL_SHARD_ZERO3;
  run.layout.dp = run.layout.shard_group = 4;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_NEAR_REL(c->fwd_bytes, 46202880.0, EXACT);
    CHECK_NEAR_REL(c->bwd_bytes, 140247040.0, EXACT);
  }
  /* NVFP4 (Transformer Engine's NVFP4Quantizer: an amax read of the 16-bit
   * input, 2 B, then one pass writing the rowwise and columnwise copies,
   * 2 x (0.5 + 1/16) B, after reading 2 B): 5.125 B per input, weight and
   * output-gradient element (the weight's quantizer computes its amax too):
   * 5.125 x (6,029,312 + 12,845,056) = 96,731,136 B forward, 5.125 x
   * 11,010,048 = 56,426,496 B backward; with the weight cache over 8
   * micro-batches the weights cost 1/8: 30,900,224 + 8,228,864 =
   * 39,129,088 B forward */
  run.layout.shard = PL_SHARD_DDP;
  run.layout.dp = run.layout.shard_group = 1;
  run.layout.fp8_all_gather = false;
  run.layout.fp8_recipe = PL_FP8_RECIPE_DELAYED;
  run.layout.dtype = PL_DTYPE_NVFP4;
  run.layout.fp8_weight_cache = false;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_NEAR_REL(c->fwd_bytes, 96731136.0, EXACT);
    CHECK_NEAR_REL(c->bwd_bytes, 56426496.0, EXACT);
  }
  run.layout.fp8_weight_cache = true;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL && fabs(c->fwd_bytes - 39129088.0) < 1.0);
  /* layout.nvfp4_rht_unfused (TE 2.9-2.13: the RHT'd columnwise cast reads the
   * input again): +2 B per input and output-gradient element, none per weight:
   * 7.125 x 6,029,312 + 5.125 x 12,845,056 = 42,958,848 + 65,830,912 =
   * 108,789,760 B forward, 7.125 x 11,010,048 = 78,446,592 B backward */
  run.layout.fp8_weight_cache = false;
  run.layout.nvfp4_rht_unfused = true;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_NEAR_REL(c->fwd_bytes, 108789760.0, EXACT);
    CHECK_NEAR_REL(c->bwd_bytes, 78446592.0, EXACT);
  }
}

/* The MoE router stays 16-bit under FP8 (Megatron-Core's
 * RouterGatingLinearFunction hands the bf16 input and weight to
 * te_general_gemm, moe_utils.py core_v0.14.0 .. core_v0.17.0): the router op
 * is high_precision and fp8_casts leaves its operands out. small_llama made
 * MoE: 4 experts, top 2, expert width 512, ep 1, 1024 tokens; every block MoE.
 * GEMMs cast (m x k inputs, k x n weights, m x n output gradients, x count):
 *   qkv 1024 x 3072 x 1024, proj 1024 x 1024 x 1024,
 *   expert_fc1 512 x 1024 x 1024 x 4 (rows 1024 x 2 / 4; gate and up),
 *   expert_fc2 512 x 1024 x 512 x 4.
 * Inputs 1,048,576 + 1,048,576 + 2,097,152 + 1,048,576 = 5,242,880; weights
 * 3,145,728 + 1,048,576 + 4,194,304 + 2,097,152 = 10,485,760; outputs
 * 3,145,728 + 1,048,576 + 2,097,152 + 2,097,152 = 8,388,608. At 4 B each:
 * 62,914,560 B forward, 33,554,432 B backward (the router's 1024 x 1024
 * input, 1024 x 4 weight and output would add 4,210,688 / 16,384 B). */
/* The Blackwell GEMM model against NVIDIA's measured B300 kernels (session 19,
 * bw19): TransformerEngine docs/examples/gemm_profiling/gemm_profiling.rst
 * (1609c890e; read at 8f2e635), "Autocast vs Pre-quantized", NVIDIA B300 SXM6 AC,
 * benchmarks/gemm/benchmark_gemm.py --pre-quantize, the 12 GEMMs of a
 * hidden-4096, ffn-16384 layer at M = 15872 (fprop m x n x k: 15872 x 12288 x
 * 4096, 15872 x 4096 x 4096, 15872 x 16384 x 4096, 15872 x 4096 x 16384; dgrad
 * and wgrad the same FLOPs, 1.917e13 FLOP per layer). Per-layer totals
 * published: BF16 13.102 ms, FP8 current scaling 6.812, MXFP8 7.161, NVFP4
 * 3.764. Plateau's b300 (measured FP8 MAMF, B200's BF16 MAMF, the 0.823
 * sustained fraction, the tile model) times the 4 shapes forward plus backward
 * within 6 % of each: 13.394 / 7.044 / 7.404 / 3.898 ms when written, 2-4 %
 * slower. Not a fit: no b300 figure was set from this table except
 * mxfp8_vs_fp8 and nvfp4_vs_fp8 (their ratios, not their levels). It fails if
 * a change to the GEMM model moves B300 more than 6 % off NVIDIA's kernels. */
static void test_b300_te_gemm_profiling(void) {
  struct pl_gpu g;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b300", &g, &d), PL_OK, dp);
  const int64_t shape[4][3] = {
      {15872, 12288, 4096}, {15872, 4096, 4096}, {15872, 16384, 4096}, {15872, 4096, 16384}};
  const enum pl_dtype dtype[4] = {PL_DTYPE_BF16, PL_DTYPE_FP8, PL_DTYPE_MXFP8, PL_DTYPE_NVFP4};
  const double published_ms[4] = {13.102, 6.812, 7.161, 3.764};
  for (int t = 0; t < 4; t++) {
    double total_s = 0, flops = 0;
    for (int i = 0; i < 4; i++) {
      struct pl_op op;
      memset(&op, 0, sizeof op);
      op.name = "fc1";
      op.kind = PL_OP_GEMM;
      op.m = shape[i][0];
      op.n = shape[i][1];
      op.k = shape[i][2];
      op.count = 1;
      op.share = 1.0;
      op.fwd_flops = 2.0 * (double)op.m * (double)op.n * (double)op.k;
      op.bwd_flops = 2.0 * op.fwd_flops;
      flops += 3.0 * op.fwd_flops;
      total_s += pl_op_time_s(&g, dtype[t], &op, PL_PASS_FWD) +
                 pl_op_time_s(&g, dtype[t], &op, PL_PASS_BWD);
    }
    CHECK_NEAR_REL(flops, 1.9170e13, 1e-3);
    CHECK_NEAR_REL(total_s, published_ms[t] * 1e-3, 0.06);
  }
}

/* The block's casts under MXFP8 run at the GPU file's measured rate of TE's
 * MXFP8 quantize kernels (efficiency.mxfp8_quantize), not at hbm_fraction.
 * An fp8_casts op of 406,250,000 B forward and 203,125,000 B backward on b300
 * (8 TB/s, mxfp8_quantize 0.622, hbm_fraction 0.81, kernel_overhead 1.2 us):
 *   MXFP8 forward  4.0625e8 / (8e12 x 0.622) = 81.6419 us + 1.2 = 82.8419 us
 *   MXFP8 backward 2.03125e8 / 4.976e12      = 40.8209 us + 1.2 = 42.0209 us
 *   FP8 or another op name: 4.0625e8 / (8e12 x 0.81) = 62.6929 us + 1.2 = 63.8929 us
 * h100 gives no rate: its MXFP8-typed casts stay at hbm_fraction,
 * 4.0625e8 / (3.35e12 x 0.9) = 134.743 us + its kernel_overhead. */
static void test_mxfp8_quantize_rate(void) {
  struct pl_gpu g, h;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b300", &g, &d), PL_OK, dp);
  CHECK_STATUS(load_h100_887(&h, &d), PL_OK, dp);
  struct pl_op op = memory_op("fp8_casts", 406250000.0, 203125000.0);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_MXFP8, &op, PL_PASS_FWD), 82.8419e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_MXFP8, &op, PL_PASS_BWD), 42.0209e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_FP8, &op, PL_PASS_FWD), 63.8929e-6, 1e-5);
  op.name = "permute";
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_MXFP8, &op, PL_PASS_FWD), 63.8929e-6, 1e-5);
  op.name = "fp8_casts";
  CHECK_NEAR_REL(pl_op_time_s(&h, PL_DTYPE_MXFP8, &op, PL_PASS_FWD),
                 134.743e-6 + h.eff.kernel_overhead_s, 1e-5);
}

/* Per-tensor FP8 on a GPU where Transformer Engine runs FP8 GEMMs in any
 * layout (pl_gpu_fp8_non_tn_gemm: compute capability 10.0-11.x, 13.0+): the
 * quantizers write one FP8 copy and no transpose, read 2 B + write 1 B per
 * element. small_llama's block (test_fp8_casts): inputs 6,029,312, weights
 * 12,845,056, output gradients 11,010,048 elements.
 *  - delayed on sm 10.0: 3 x 18,874,368 = 56,623,104 B forward, 3 x
 *    11,010,048 = 33,030,144 B backward;
 *  - the same on sm 12.0 (RTX Blackwell, TN only) and 9.0: 4 B, 75,497,472 B;
 *  - current scaling on sm 10.3 with the weight cache over 8 micro-batches:
 *    5 B per element (amax read 2 + 3): 5 x 6,029,312 + 5 x 12,845,056 / 8 =
 *    30,146,560 + 8,028,160 = 38,174,720 B forward, 5 x 11,010,048 =
 *    55,050,240 B backward;
 *  - blockwise keeps its 2 + 2 x 1 B (Float8BlockQuantizer writes both). */
static void test_fp8_no_transpose(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.fp8_recipe = PL_FP8_RECIPE_DELAYED;
  run.cluster.gpu.sm_arch = 100;
  CHECK(pl_gpu_fp8_non_tn_gemm(&run.cluster.gpu));
  const struct pl_op *c = fp8_casts_of(&run, ops);
  CHECK(c != NULL && c->fwd_bytes == 56623104.0 && c->bwd_bytes == 33030144.0);
  run.cluster.gpu.sm_arch = 120;
  CHECK(!pl_gpu_fp8_non_tn_gemm(&run.cluster.gpu));
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL && c->fwd_bytes == 75497472.0);
  run.cluster.gpu.sm_arch = 90;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL && c->fwd_bytes == 75497472.0);
  run.cluster.gpu.sm_arch = 103;
  run.layout.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  run.layout.micro_batches = 8;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_NEAR_REL(c->fwd_bytes, 38174720.0, EXACT);
    CHECK_NEAR_REL(c->bwd_bytes, 55050240.0, EXACT);
  }
  run.layout.fp8_recipe = PL_FP8_RECIPE_BLOCKWISE;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL && c->bwd_bytes == 4.0 * 11010048.0);
  CHECK(!pl_gpu_fp8_non_tn_gemm(&a100));
}

/* Transformer Engine's fused MXFP8 grouped MLP (layout.fused_grouped_mlp,
 * docs/step-model.md 2.6). small_llama's block with 4 experts, top-2, expert
 * width 512: 1,024 tokens x 2 copies / 4 experts = 512 rows each; expert_fc1
 * is 512 x 1024 x 1024 x 4, expert_fc2 512 x 1024 x 512 x 4. MXFP8 casts
 * cost 2 + 2 x (1 + 1/32) = 4.0625 B per element. Fused: fc2's input
 * (4 x 512 x 512 = 1,048,576 elements) comes quantized out of fc1's epilogue
 * and fc1's output gradient (4 x 512 x 1024 = 2,097,152) out of the dGLU
 * epilogue: neither is cast; the weights keep their share (MXFP8 parameters in
 * the configs that run it): forward 4.0625 x -1,048,576 = -4,259,840 B,
 * backward 4.0625 x -2,097,152 = -8,519,680 B. */
static void test_fused_grouped_mlp_casts(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.model.experts = 4;
  run.model.top_k = 2;
  run.model.expert_ffn = 512;
  run.layout.ep = run.layout.etp = 1;
  run.layout.dtype = PL_DTYPE_MXFP8;
  run.layout.fp8_weight_cache = true;
  run.layout.micro_batches = 4;
  const struct pl_op *c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c == NULL)
    return;
  double fwd = c->fwd_bytes, bwd = c->bwd_bytes;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "expert_act") != NULL);
  run.layout.fused_grouped_mlp = true;
  c = fp8_casts_of(&run, ops);
  CHECK(c != NULL);
  if (c == NULL)
    return;
  CHECK_NEAR_REL(c->fwd_bytes - fwd, -4259840.0, 1e-9);
  CHECK_NEAR_REL(c->bwd_bytes - bwd, -8519680.0, 1e-9);
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "expert_act") == NULL);
}

/* One 8192 x 8192 x 8192 GEMM named name (the name selects the GEMM's role:
 * expert, proj, fc2, ...): 2 x 8192^3 FLOPs forward, twice that backward. */
static struct pl_op square_gemm(const char *name) {
  struct pl_op op;
  memset(&op, 0, sizeof op);
  op.name = name;
  op.kind = PL_OP_GEMM;
  op.m = op.n = op.k = 8192;
  op.count = 1;
  op.share = 1.0;
  op.fwd_flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  op.bwd_flops = 2.0 * op.fwd_flops;
  return op;
}

/* The fused grouped MLP's cuDNN kernels under a cluster margin
 * (layout.cudnn_cluster_margin; cuDNN frontend v1.23.0 grouped_gemm_{glu,quant,dglu}
 * launch get_max_active_clusters(2) - margin clusters, grouped_gemm_wgrad all of
 * them). gb300: 152 SMs = 76 two-SM clusters; margin 8 leaves 68:
 *  - forward: x 76 / 68 = 1.117647;
 *  - backward of a square GEMM (8192 x 8192 x 8192: dgrad and wgrad the same
 *    shape, so the same time): half of it x 76 / 68, half as is:
 *    1 + 0.5 x (76 / 68 - 1) = 1 + 0.5 x 8 / 68 = 1.058824;
 *  - no change for a GEMM that is not an expert's (proj), without the fused MLP,
 *    or with margin 0. */
static void test_cluster_margin(void) {
  struct pl_gpu g;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("gb300", &g, &d), PL_OK, dp);
  CHECK(g.sm_count == 152);
  struct pl_run run;
  small_llama(&run);
  run.layout.dtype = PL_DTYPE_MXFP8;
  struct pl_op op = square_gemm("expert_fc1");
  double f0 = pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD);
  double b0 = pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD);
  CHECK(f0 > 0 && b0 > 0);
  run.layout.fused_grouped_mlp = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  run.layout.cudnn_cluster_margin = 8;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD) / f0,
                 1.117647, 1e-6);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD) / b0,
                 1.058824, 1e-6);
  op.name = "proj";
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  op.name = "expert_fc2";
  run.layout.fused_grouped_mlp = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD), b0, 1e-12);
}

/* The forward proj and fc2 GEMMs beside Transformer Engine's userbuffers
 * reduce_scatter with set_sm_margin (layout.ub_proj_fprop_sms /
 * ub_fc2_fprop_sms; TE comm_gemm_overlap.cpp _math_sms = sm_count - num_sm).
 * h100: 132 SMs.
 *  - proj forward, margin 24: 132 / (132 - 24) = 132 / 108 = 1.222222;
 *  - fc2 forward, margin 16: 132 / 116 = 1.137931;
 *  - fc2 forward, margin 1 (a ring-exchange entry): 132 / 131 = 1.007634;
 *  - unchanged: the backward (dgrad/wgrad are not beside these reduce_scatters),
 *    qkv (its ring exchange takes no SM), without tp_comm_overlap, without
 *    sequence parallelism, with tp 1, margin 0, and a margin of every SM. */
static void test_ub_margin(void) {
  struct pl_gpu g;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&g, &d), PL_OK, dp);
  CHECK(g.sm_count == 132);
  struct pl_run run;
  small_llama(&run);
  struct pl_op op = square_gemm("proj");
  double f0 = pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD);
  double b0 = pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD);
  CHECK(f0 > 0 && b0 > 0);
  run.layout.ub_proj_fprop_sms = 24;
  run.layout.ub_fc2_fprop_sms = 16;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  run.layout.tp_comm_overlap = true;
  run.layout.sp = true;
  run.layout.tp = 4;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD) / f0,
                 1.222222, 1e-6);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD), b0, 1e-12);
  op.name = "fc2";
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD) / f0,
                 1.137931, 1e-6);
  run.layout.ub_fc2_fprop_sms = 1;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD) / f0,
                 1.007634, 1e-6);
  run.layout.ub_fc2_fprop_sms = 132;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  run.layout.ub_fc2_fprop_sms = 0;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  op.name = "qkv";
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  op.name = "proj";
  run.layout.sp = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  run.layout.sp = true;
  run.layout.tp = 1;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  run.layout.tp = 4;
  run.layout.tp_comm_overlap = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
}

/* The per-tensor FP8 current-scaling and NVFP4 casts at the GPU's measured
 * quantize rates (efficiency.fp8_current_quantize 0.665 and nvfp4_quantize
 * 0.566 on b300, docs/step-model.md 2.3e). On 406,250,000 B at 8 TB/s:
 *  - FP8 current scaling (pl_op_run_time_s, layout.fp8_recipe current):
 *    406.25e6 / (8e12 x 0.665) = 76.3628 us + 1.2 us = 77.5628 us;
 *  - the same op under delayed scaling, or through pl_op_time_s (no recipe):
 *    hbm_fraction 0.81, 62.6929 + 1.2 = 63.8929 us;
 *  - NVFP4: 406.25e6 / (8e12 x 0.566) = 89.7197 + 1.2 = 90.9195 us;
 *  - h100 (no such keys) under current scaling: hbm_fraction. */
static void test_quantize_rates(void) {
  struct pl_gpu g, h;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b300", &g, &d), PL_OK, dp);
  CHECK_STATUS(load_h100_887(&h, &d), PL_OK, dp);
  struct pl_run run;
  small_llama(&run);
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  struct pl_op op = memory_op("fp8_casts", 406250000.0, 0.0);
  CHECK_NEAR_REL(g.eff.kernel_overhead_s, 1.2e-6, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 77.5628e-6,
                 1e-5);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_FP8, &op, PL_PASS_FWD), 63.8929e-6, 1e-5);
  run.layout.fp8_recipe = PL_FP8_RECIPE_DELAYED;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 63.8929e-6,
                 1e-5);
  run.layout.dtype = PL_DTYPE_NVFP4;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 90.9195e-6,
                 1e-5);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_NVFP4, &op, PL_PASS_FWD), 90.9195e-6, 1e-5);
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  CHECK_NEAR_REL(pl_op_run_time_s(&h, &run.layout, &run.model, &op, PL_PASS_FWD),
                 406.25e6 / (h.hbm_bytes_per_s * h.eff.hbm_fraction) + h.eff.kernel_overhead_s,
                 1e-9);
}

/* The norms of eager runs at the GPU's measured rate of PyTorch's norm
 * kernels (efficiency.rms_norm_eager 0.655, layer_norm_eager 0.528 on h100,
 * docs/step-model.md 2.3b). On 335,000,000 B at 3.35 TB/s:
 *  - RMSNorm model, kernels unfused, norm1: 335e6 / (3.35e12 x 0.655) =
 *    152.6718 us + 1.2 us = 153.8718 us; rmsnorm_eager the same;
 *  - LayerNorm model: 335e6 / (3.35e12 x 0.528) = 189.3939 + 1.2 = 190.5939 us;
 *  - backward (3 kernels for norm1): 2 x 335e6 / (3.35e12 x 0.655) = 305.3435
 *    + 3.6 = 308.9435 us;
 *  - kernels fused (TE, torch.compile), another op (resid1) or a GPU file
 *    without the keys (b200): hbm_fraction, 335e6 / (3.35e12 x 0.9) =
 *    111.1111 + 1.2 = 112.3111 us on h100. */
static void test_eager_norm_rates(void) {
  struct pl_gpu g, a;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&g, &d), PL_OK, dp);
  CHECK_STATUS(pl_gpu_load("b200", &a, &d), PL_OK, dp);
  CHECK_NEAR_REL(g.hbm_bytes_per_s, 3.35e12, 1e-12);
  CHECK_NEAR_REL(g.eff.kernel_overhead_s, 1.2e-6, 1e-12);
  struct pl_run run;
  small_llama(&run);
  run.model.norm = PL_NORM_RMS;
  run.layout.kernels = PL_KERNELS_UNFUSED;
  struct pl_op op = memory_op("norm1", 335e6, 670e6);
  op.bwd_kernels = 3;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 153.8718e-6,
                 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD), 308.9435e-6,
                 1e-5);
  op.name = "rmsnorm_eager";
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 153.8718e-6,
                 1e-5);
  op.name = "norm1";
  run.model.norm = PL_NORM_LAYER;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 190.5939e-6,
                 1e-5);
  /* not these norms, fused kernels, or no measured rate: hbm_fraction */
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_BF16, &op, PL_PASS_FWD), 112.3111e-6, 1e-5);
  op.name = "resid1";
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 112.3111e-6,
                 1e-5);
  op.name = "norm1";
  run.layout.kernels = PL_KERNELS_FUSED;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 112.3111e-6,
                 1e-5);
  run.layout.kernels = PL_KERNELS_UNFUSED;
  CHECK_NEAR_REL(a.eff.layer_norm_eager_fraction, 0.0, 0);
  CHECK_NEAR_REL(pl_op_run_time_s(&a, &run.layout, &run.model, &op, PL_PASS_FWD),
                 335e6 / (a.hbm_bytes_per_s * a.eff.hbm_fraction) + a.eff.kernel_overhead_s, 1e-9);
}

/* PyTorch's non-vectorized element-wise kernels (pl_op strided_elems, gpu
 * file efficiency.strided_elementwise): b200 0.191 of 7.672 TB/s for a 4 B
 * unary element = 366.3 G elements/s. An op of 300 MB at hbm_fraction with
 * 50 M elements (200 MB) on that path: the other 100 MB at 0.8 x 7.672 TB/s
 * = 16.2930 us, the 50 M elements 50e6 x 4 / (0.191 x 7.672e12) = 136.4876
 * us, plus one kernel (1.2 us): 153.98 us. h100 (0.415 of 3.35 TB/s):
 * 100 MB at 0.9 = 33.1675 us, 50e6 x 4 / (0.415 x 3.35e12) = 143.8590 us,
 * + 1.2 us = 178.2265 us. h200 gives no rate: all 300 MB at 0.9 x 4.8
 * TB/s = 69.4444 us + 1.2 us. No strided elements: as before on b200. */
static void test_strided_elementwise(void) {
  struct pl_gpu b, h, h200;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b200", &b, &d), PL_OK, dp);
  CHECK_STATUS(load_h100_887(&h, &d), PL_OK, dp);
  CHECK_STATUS(pl_gpu_load("h200", &h200, &d), PL_OK, dp);
  CHECK_NEAR_REL(b.hbm_bytes_per_s, 7.672e12, 1e-12);
  CHECK_NEAR_REL(b.eff.hbm_fraction, 0.8, 1e-12);
  CHECK_NEAR_REL(b.eff.kernel_overhead_s, 1.2e-6, 1e-12);
  CHECK_NEAR_REL(h200.eff.strided_elementwise_fraction, 0.0, 0);
  struct pl_op op = memory_op("expert_clamp", 300e6, 300e6);
  op.bwd_strided_elems = 50e6;
  op.bwd_strided_bytes = 200e6;
  CHECK_NEAR_REL(pl_op_time_s(&b, PL_DTYPE_BF16, &op, PL_PASS_BWD), 153.98e-6, 1e-4);
  CHECK_NEAR_REL(pl_op_time_s(&b, PL_DTYPE_BF16, &op, PL_PASS_BWD),
                 100e6 / (0.8 * 7.672e12) + 50e6 * 4.0 / (0.191 * 7.672e12) + 1.2e-6, 1e-12);
  CHECK_NEAR_REL(pl_op_time_s(&b, PL_DTYPE_BF16, &op, PL_PASS_FWD),
                 300e6 / (0.8 * 7.672e12) + 1.2e-6, 1e-12);
  CHECK_NEAR_REL(pl_op_time_s(&h, PL_DTYPE_BF16, &op, PL_PASS_BWD), 178.2265e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_time_s(&h200, PL_DTYPE_BF16, &op, PL_PASS_BWD), 70.6444e-6, 1e-5);
}

/* HF's eager RoPE at the GPU file's measured rates (compute.c eager_rope_s;
 * a100-80g efficiency.rope_eager 0.414, rope_eager_bwd 0.52, kernel_overhead
 * 1.2 us; docs/step-model.md 2.3b), small_llama unfused: rope_eager moves
 * 33,554,432 B forward in 9 kernels and 54,525,952 B backward in 17:
 *  - forward 33,554,432 / (2039e9 x 0.414) = 39.7499 us + 9 x 1.2 = 50.5499 us;
 *  - backward 54,525,952 / (2039e9 x 0.52) = 51.4262 us + 17 x 1.2 = 71.8262 us;
 *  - the op list's rope (one kernel): 4 B x 2,097,152 = 8,388,608 B /
 *    (2039e9 x 0.414) = 9.9375 us + 1.2 = 11.1375 us;
 *  - h100 (rope_eager 0.387, rope_eager_bwd 0.524 from this project's H100
 *    trace; 3.35 TB/s, kernel_overhead 1.2 us): forward 33,554,432 /
 *    (3.35e12 x 0.387) = 25.8817 us + 10.8 = 36.6817 us; backward
 *    54,525,952 / (3.35e12 x 0.524) = 31.0618 us + 20.4 = 51.4618 us;
 *  - fms's RoPE, torchtitan's complex RoPE, fused kernels and h200 (no
 *    measured rate) keep hbm_fraction: rope_eager forward 33,554,432 /
 *    (2039e9 x 0.88) = 18.7004 us + 10.8 = 29.5004 us on a100-80g. */
static void test_eager_rope_rates(void) {
  struct pl_gpu g, h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("h200", &g, &d), PL_OK, dp);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.kernels = PL_KERNELS_UNFUSED;
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *r = find_op(ops, n, "rope_eager"), *base = find_op(ops, n, "rope");
  CHECK(r != NULL && base != NULL);
  if (r == NULL || base == NULL)
    return;
  CHECK_NEAR_REL(a100.eff.rope_eager_fraction, 0.414, 1e-12);
  CHECK_NEAR_REL(a100.eff.rope_eager_bwd_fraction, 0.52, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, r, PL_PASS_FWD), 50.5499e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, r, PL_PASS_BWD), 71.8262e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, base, PL_PASS_FWD), 11.1375e-6,
                 1e-5);
  /* at hbm_fraction 0.88: 33,554,432 / (2039e9 x 0.88) = 18.7004 us + 10.8 us */
  double plain = pl_op_time_s(&a100, PL_DTYPE_BF16, r, PL_PASS_FWD);
  CHECK_NEAR_REL(plain, 29.5004e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &run.layout, &run.model, r, PL_PASS_FWD), 36.6817e-6,
                 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(&h100, &run.layout, &run.model, r, PL_PASS_BWD), 51.4618e-6,
                 1e-5);
  CHECK_NEAR_REL(g.eff.rope_eager_fraction, 0.0, 0);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, r, PL_PASS_FWD),
                 pl_op_time_s(&g, PL_DTYPE_BF16, r, PL_PASS_FWD), 1e-12);
  run.layout.fms_rope = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, r, PL_PASS_FWD), plain, 1e-12);
  run.layout.fms_rope = false;
  run.layout.rope_complex = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, base, PL_PASS_FWD),
                 pl_op_time_s(&a100, PL_DTYPE_BF16, base, PL_PASS_FWD), 1e-12);
  run.layout.rope_complex = false;
  run.layout.kernels = PL_KERNELS_FUSED;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, base, PL_PASS_FWD),
                 pl_op_time_s(&a100, PL_DTYPE_BF16, base, PL_PASS_FWD), 1e-12);
}

/* The loss op of small_llama's 32,768,000 logits (the fused kernel's 6 B per
 * logit each way), and the check that turning *flag on adds fwd_s forward and
 * bwd_s backward to it on g (relative 1e-5); *flag is left on. */
static struct pl_op loss_op(void) {
  return memory_op("loss", 6.0 * 32768000.0, 6.0 * 32768000.0);
}

static void check_loss_adds(const struct pl_gpu *g, struct pl_run *run, bool *flag, double fwd_s,
                            double bwd_s) {
  struct pl_op op = loss_op();
  double f0 = pl_op_run_time_s(g, &run->layout, &run->model, &op, PL_PASS_FWD);
  double b0 = pl_op_run_time_s(g, &run->layout, &run->model, &op, PL_PASS_BWD);
  *flag = true;
  CHECK_NEAR_REL(pl_op_run_time_s(g, &run->layout, &run->model, &op, PL_PASS_FWD) - f0, fwd_s,
                 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(g, &run->layout, &run->model, &op, PL_PASS_BWD) - b0, bwd_s,
                 1e-5);
}

/* layout.hf_shift_copy (compute.c eager_xent_extra_s; Hugging Face's
 * shift_logits = logits[..., :-1, :].contiguous() after logits.float()),
 * small_llama with the eager loss on a100-80g: 2 x 512 x 32,000 = 32,768,000
 * logits; the loss op gains 8 B per logit forward in one kernel, 262,144,000 B
 * / (2039e9 x 0.88) = 146.0966 us + 1.2 = 147.2966 us, and 12 B backward in
 * two, 393,216,000 B / (2039e9 x 0.88) = 219.1449 us + 2.4 = 221.5449 us;
 * nothing without the eager loss. */
static void test_hf_shift_copy(void) {
  struct pl_run run;
  small_llama(&run);
  run.layout.eager_xent = true;
  check_loss_adds(&a100, &run, &run.layout.hf_shift_copy, 147.2966e-6, 221.5449e-6);
  struct pl_op op = loss_op();
  run.layout.eager_xent = false;
  double plain_on = pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_FWD);
  run.layout.hf_shift_copy = false;
  CHECK_NEAR_REL(plain_on, pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_FWD),
                 1e-12);
}

/* layout.logits_shift_copy (compute.c shift_copy_s; OLMo-core e27ba74550
 * Trainer.get_losses: logits[..., :-1, :].contiguous() on the bf16 logits
 * before the compiled loss), small_llama on a100-80g: 32,768,000 logits; the
 * loss op gains 4 B per logit forward in one kernel, 131,072,000 B /
 * (2039e9 x 0.88) = 73.0483 us + 1.2 = 74.2483 us, and 6 B backward (zeros
 * 2, copy 2 + 2) in two, 196,608,000 B / 1794.32e9 = 109.5724 us + 2.4 =
 * 111.9724 us; nothing with the eager loss (hf_shift_copy's fp32 copy). */
static void test_logits_shift_copy(void) {
  struct pl_run run;
  small_llama(&run);
  check_loss_adds(&a100, &run, &run.layout.logits_shift_copy, 74.2483e-6, 111.9724e-6);
  struct pl_op op = loss_op();
  struct pl_op norm = memory_op("norm1", 1e6, 1e6);
  double n_on = pl_op_run_time_s(&a100, &run.layout, &run.model, &norm, PL_PASS_FWD);
  run.layout.logits_shift_copy = false;
  CHECK_NEAR_REL(n_on, pl_op_run_time_s(&a100, &run.layout, &run.model, &norm, PL_PASS_FWD), 1e-12);
  run.layout.eager_xent = true;
  double e_off = pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_FWD);
  run.layout.logits_shift_copy = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_FWD), e_off, 1e-12);
}

/* layout.eager_z_loss (compute.c eager_z_loss_s; OLMo-core's eager
 * logits.logsumexp(-1).pow(2) on the fp32 logits), small_llama with the eager
 * loss: 32,768,000 logits. On a100-80g (no strided_elementwise rate: a
 * broadcast op is 8 B at hbm_fraction) the loss op gains 24 B per logit
 * forward, 786,432,000 B / (2039e9 x 0.88) = 438.2897 us + 4 kernels x 1.2 =
 * 443.0897 us, and 36 B backward, 1,179,648,000 B / 1794.32e9 = 657.4346 us
 * + 4.8 = 662.2346 us. With a strided_elementwise fraction of 0.5 each
 * broadcast op is 32,768,000 x 4 B / (2039e9 x 0.5) = 128.5650 us: forward
 * 16 B at hbm (292.1931 us) + one broadcast op + 4.8 = 425.5581 us, backward
 * 20 B (365.2414 us) + two + 4.8 = 627.1714 us. Nothing without the eager
 * loss. */
static void test_eager_z_loss(void) {
  struct pl_run run;
  small_llama(&run);
  run.layout.eager_xent = true;
  struct pl_op op = loss_op();
  struct pl_gpu g = a100;
  g.eff.strided_elementwise_fraction = 0.0;
  check_loss_adds(&g, &run, &run.layout.eager_z_loss, 443.0897e-6, 662.2346e-6);
  g.eff.strided_elementwise_fraction = 0.5;
  run.layout.eager_z_loss = false;
  /* the forward's logits.float() also moves to the strided rate: difference */
  check_loss_adds(&g, &run, &run.layout.eager_z_loss, 425.5581e-6, 627.1714e-6);
  run.layout.eager_xent = false;
  double on = pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD);
  run.layout.eager_z_loss = false;
  CHECK_NEAR_REL(on, pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), 1e-12);
}

/* layout.logits_fp32 (compute.c logits_fp32_s; OLMo-core 41400c46f with
 * fused_loss: the model's self.w_out(h).float(), then the Triton
 * cross-entropy on fp32 logits), small_llama without the eager loss:
 * 32,768,000 logits. With no strided_elementwise rate the cast is 6 B at
 * hbm_fraction, so forward 6 - 2 (the loss reads 4 B, not the fused op's
 * 6) = 4 B: 131,072,000 B / (2039e9 x 0.88) = 73.0483 us + 1.2 (the cast's
 * kernel) = 74.2483 us; backward the cast back 6 B + the fp32 gradient's 2 B
 * over the op's 6 = 8 B: 262,144,000 B / 1794.32e9 = 146.0966 us + 1.2 =
 * 147.2966 us. With layout.logits_shift_copy on too the shift copy is fp32:
 * +4 B forward (8 instead of 4), +6 B backward (12 instead of 6): forward
 * 8 B, 146.0966 + 1.2 = 147.2966 us; backward 14 B, 458,752,000 B ->
 * 255.6690 + 1.2 = 256.8690 us. With a strided_elementwise fraction of 0.5
 * the cast is 32,768,000 x 4 B / (2039e9 x 0.5) = 128.5650 us, so forward
 * 128.5650 - 2 B at hbm (65,536,000 B -> 36.5241 us) + 1.2 = 93.2409 us.
 * Nothing under the eager loss (its own fp32 cast) or Megatron's. */
static void test_logits_fp32(void) {
  struct pl_run run;
  small_llama(&run);
  struct pl_op op = loss_op();
  struct pl_gpu g = a100;
  g.eff.strided_elementwise_fraction = 0.0;
  check_loss_adds(&g, &run, &run.layout.logits_fp32, 74.2483e-6, 147.2966e-6);
  CHECK(sim_op_run_kernels(&run.layout, &run.model, &op, PL_PASS_FWD) ==
        pl_op_kernels(&op, PL_PASS_FWD) + 1);
  run.layout.logits_fp32 = false;
  run.layout.logits_shift_copy = true;
  check_loss_adds(&g, &run, &run.layout.logits_fp32, 147.2966e-6, 256.8690e-6);
  CHECK(sim_op_run_kernels(&run.layout, &run.model, &op, PL_PASS_BWD) ==
        pl_op_kernels(&op, PL_PASS_BWD) + 3);
  run.layout.logits_shift_copy = false;
  run.layout.logits_fp32 = false;
  g.eff.strided_elementwise_fraction = 0.5;
  check_loss_adds(&g, &run, &run.layout.logits_fp32, 93.2409e-6, 147.2966e-6);
  run.layout.eager_xent = true;
  double e_on = pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD);
  run.layout.logits_fp32 = false;
  CHECK_NEAR_REL(e_on, pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_BWD), 1e-12);
  run.layout.eager_xent = false;
  run.layout.megatron_xent = true;
  double m_off = pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD);
  run.layout.logits_fp32 = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, &op, PL_PASS_FWD), m_off, 1e-12);
}

/* The eager fp32 loss's time follows layout.eager_xent, not layout.kernels
 * (compute.c eager_xent_op): small_llama's 32,768,000 logits on a100-80g,
 * fused blocks (torchtitan compiled without its loss): +8 B per logit
 * forward and, the 32000-logit fp32 row (128,000 B) being past the 48 KiB of
 * shared memory, log_softmax's two re-reads (+8 B; session 27): 16 B,
 * 524,288,000 B / (2039e9 x 0.88) = 292.1932 us + 2 x 1.2 = 294.5932 us;
 * +16 B backward and the gradient's re-read (+4 B): 20 B, 655,360,000 B ->
 * 365.2416 + 2.4 = 367.6416 us;
 * two more kernels each way. Unfused blocks without it (llm-foundry's MPT and
 * flash_attn's fused loss, fms's bf16 loss): the fused loss op alone. */
static void test_eager_xent_time(void) {
  struct pl_run run;
  small_llama(&run);
  struct pl_op op = loss_op();
  run.layout.kernels = PL_KERNELS_FUSED;
  double f0 = pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_FWD);
  double b0 = pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_BWD);
  CHECK_NEAR_REL(f0, pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD), 1e-12);
  run.layout.eager_xent = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_FWD) - f0,
                 294.5932e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_BWD) - b0,
                 367.6416e-6, 1e-5);
  CHECK_NEAR_REL(sim_op_run_kernels(&run.layout, &run.model, &op, PL_PASS_FWD), 3.0, 0);
  run.layout.eager_xent = false;
  run.layout.kernels = PL_KERNELS_UNFUSED;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_FWD), f0, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, &op, PL_PASS_BWD), b0, 1e-12);
  CHECK_NEAR_REL(sim_op_run_kernels(&run.layout, &run.model, &op, PL_PASS_FWD), 1.0, 0);
}

/* small_llama with kernels unfused (eager PyTorch), and the h100 preset in *g
 * (its load checked): the setup of the eager norm tests below. */
static void unfused_h100_llama(struct pl_run *run, struct pl_gpu *g) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("h100", g, &d), PL_OK, dp);
  small_llama(run);
  run->layout.kernels = PL_KERNELS_UNFUSED;
}

/* layout.fused_norm (torchtitan's Triton FusedRMSNorm, torchtitan/models/
 * norms.py @ 1ea476e9f: the forward kernel reads x and writes y, the backward
 * reads x and dy and writes dx), kernels unfused, per block of 1024 tokens x
 * 1024 hidden: no rmsnorm_eager op (one fewer than unfused, swiglu_eager and
 * rope_eager stay); norm1 keeps the fused count, (2 + 2) B x 1,048,576 =
 * 4,194,304 B forward and (2 + 2 + 2) B x 1,048,576 = 6,291,456 B backward,
 * timed at hbm_fraction on h100: 4,194,304 / (3.35e12 x 0.9) = 1.391146 us
 * + 1.2 us = 2.591146 us (at the eager rate 0.655 it would be 3.111 us). A
 * LayerNorm model keeps its eager rate (the Triton kernel is an RMSNorm). */
static void test_fused_norm(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  struct pl_gpu g;
  unfused_h100_llama(&run, &g);
  int eager = pl_sim_segment_ops(&run, 1, ops);
  run.layout.fused_norm = true;
  int n = pl_sim_segment_ops(&run, 1, ops);
  CHECK_EQ_INT(n, eager - 1);
  CHECK(find_op(ops, n, "rmsnorm_eager") == NULL);
  CHECK(find_op(ops, n, "swiglu_eager") != NULL && find_op(ops, n, "rope_eager") != NULL);
  const struct pl_op *norm = find_op(ops, n, "norm1");
  CHECK(norm != NULL);
  if (norm == NULL)
    return;
  CHECK_NEAR_REL(norm->fwd_bytes, (2.0 + 2.0) * 1024 * 1024, EXACT);
  CHECK_NEAR_REL(norm->bwd_bytes, (2.0 + 2.0 + 2.0) * 1024 * 1024, EXACT);
  CHECK_NEAR_REL(g.eff.hbm_fraction, 0.9, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, norm, PL_PASS_FWD), 2.591146e-6,
                 1e-5);
  run.layout.fused_norm = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, norm, PL_PASS_FWD),
                 4194304.0 / (3.35e12 * 0.655) + 1.2e-6, 1e-9);
  run.layout.fused_norm = true;
  run.model.norm = PL_NORM_LAYER;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, norm, PL_PASS_FWD),
                 4194304.0 / (3.35e12 * g.eff.layer_norm_eager_fraction) + 1.2e-6, 1e-9);
}

/* layout.inductor_norms (torch.compile's generated RMSNorm kernels), kernels
 * fused, h100, per block of 1024 tokens x 1024 hidden: norm1 moves (2 + 2) B x
 * 1,048,576 = 4,194,304 B forward and (2 + 2 + 2) B = 6,291,456 B backward,
 * at the file's rms_norm_compiled 0.617 (Dao-AILab/quack's H100 figure:
 * 2185, 2303, 1947, 1814 GB/s at widths 2K-16K / 3.35 TB/s = 0.652, 0.687,
 * 0.581, 0.541, median (0.652 + 0.581) / 2 = 0.6165 -> 0.617):
 * 4,194,304 / (3.35e12 x 0.617) = 2.029220 us + 1.2 us = 3.229220 us forward
 * (off: at hbm_fraction, 4,194,304 / 3.015e12 + 1.2 us = 2.591146 us); the
 * backward 6,291,456 / 2.06695e12 = 3.043830 us + its launches. Other memory
 * ops, a LayerNorm model or a GPU file without the figure (a100-80g): no
 * change (hbm_fraction). */
static void test_inductor_norms(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  struct pl_gpu g;
  unfused_h100_llama(&run, &g);
  run.layout.kernels = PL_KERNELS_FUSED;
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *norm = find_op(ops, n, "norm1");
  const struct pl_op *resid = find_op(ops, n, "resid1");
  CHECK(norm != NULL && resid != NULL);
  if (norm == NULL || resid == NULL)
    return;
  CHECK_NEAR_REL(norm->fwd_bytes, (2.0 + 2.0) * 1024 * 1024, EXACT);
  CHECK_NEAR_REL(norm->bwd_bytes, (2.0 + 2.0 + 2.0) * 1024 * 1024, EXACT);
  CHECK_NEAR_REL(g.eff.rms_norm_compiled_fraction, 0.617, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, norm, PL_PASS_FWD), 2.591146e-6,
                 1e-5);
  run.layout.inductor_norms = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, norm, PL_PASS_FWD), 3.229220e-6,
                 1e-5);
  double bwd_kernels = (double)pl_op_kernels(norm, PL_PASS_BWD);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, norm, PL_PASS_BWD),
                 3.043830e-6 + bwd_kernels * 1.2e-6, 1e-5);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, resid, PL_PASS_FWD),
                 resid->fwd_bytes / (3.35e12 * 0.9) + 1.2e-6, 1e-9);
  CHECK(!(a100.eff.rms_norm_compiled_fraction > 0));
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &run.layout, &run.model, norm, PL_PASS_FWD),
                 4194304.0 / (a100.hbm_bytes_per_s * a100.eff.hbm_fraction) +
                     a100.eff.kernel_overhead_s,
                 1e-9);
  run.model.norm = PL_NORM_LAYER;
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, norm, PL_PASS_FWD), 2.591146e-6,
                 1e-5);
}

/* F.layer_norm's backward reads dY and X a second time for the weight and
 * bias gradients (pytorch/pytorch aten/src/ATen/native/cuda/
 * layer_norm_kernel.cu: layer_norm_grad_input_kernel, then
 * GammaBetaBackwardCUDAKernel): kernels unfused, a LayerNorm model, per
 * block of 1024 tokens x 1024 hidden, op layernorm_eager: forward 0 B,
 * backward 2 norms x (2 + 2) B x 1,048,576 = 8,388,608 B and no launch of
 * its own; on h100 at layer_norm_eager 0.528: 8,388,608 / (3.35e12 x
 * 0.528) = 4.742542 us. An RMSNorm model or fused kernels: no such op. */
static void test_layernorm_eager_reread(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  struct pl_gpu g;
  unfused_h100_llama(&run, &g);
  int n = pl_sim_segment_ops(&run, 1, ops);
  CHECK(find_op(ops, n, "layernorm_eager") == NULL);
  run.model.norm = PL_NORM_LAYER;
  n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *op = find_op(ops, n, "layernorm_eager");
  CHECK(op != NULL);
  if (op == NULL)
    return;
  CHECK_NEAR_REL(op->fwd_bytes, 0.0, 0);
  CHECK_NEAR_REL(op->bwd_bytes, 2.0 * (2.0 + 2.0) * 1024 * 1024, EXACT);
  CHECK_EQ_INT(pl_op_kernels(op, PL_PASS_BWD), 0);
  CHECK_EQ_INT(pl_op_kernels(op, PL_PASS_FWD), 0);
  CHECK_NEAR_REL(g.eff.layer_norm_eager_fraction, 0.528, 1e-12);
  CHECK_NEAR_REL(pl_op_run_time_s(&g, &run.layout, &run.model, op, PL_PASS_BWD), 4.742542e-6,
                 1e-5);
  run.layout.kernels = PL_KERNELS_FUSED;
  n = pl_sim_segment_ops(&run, 1, ops);
  CHECK(find_op(ops, n, "layernorm_eager") == NULL);
}

static void test_router_16bit(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.model.experts = 4;
  run.model.top_k = 2;
  run.model.expert_ffn = 512;
  run.model.moe_step = 1;
  run.layout.ep = run.layout.etp = 1;
  run.layout.dtype = PL_DTYPE_FP8;
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *r = find_op(ops, n, "router");
  const struct pl_op *c = find_op(ops, n, "fp8_casts");
  CHECK(r != NULL && c != NULL);
  if (r == NULL || c == NULL)
    return;
  CHECK(r->high_precision);
  CHECK_NEAR_REL(c->fwd_bytes, 62914560.0, EXACT);
  CHECK_NEAR_REL(c->bwd_bytes, 33554432.0, EXACT);
  CHECK(find_op(ops, n, "router_fp32_casts") == NULL);
  /* moe_router_dtype fp32 (model router_fp32): the backward casts the 1024
   * x 1024 input and the 4 x 1024 weight up and their gradients back, 12 B
   * per element: 12 x 1028 x 1024 = 12,632,064 B in 4 kernels; nothing in
   * the forward (no bytes, no launch); the FP8 casts do not change */
  run.model.router_fp32 = true;
  n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *f = find_op(ops, n, "router_fp32_casts");
  c = find_op(ops, n, "fp8_casts");
  CHECK(f != NULL && c != NULL);
  if (f == NULL || c == NULL)
    return;
  CHECK(f->fwd_bytes == 0.0 && f->fwd_kernels == -1 && f->bwd_kernels == 4);
  CHECK_NEAR_REL(f->bwd_bytes, 12632064.0, EXACT);
  CHECK_NEAR_REL(c->bwd_bytes, 33554432.0, EXACT);
  CHECK(pl_op_time_s(&a100, PL_DTYPE_FP8, f, PL_PASS_FWD) == 0.0);
  /* the switch load-balancing loss (model router_aux_loss, flops.c ROUTER_AUX_LOSS): one op
   * after the top-k over the 1024 tokens x 4 experts, 14 B per element forward (57,344 B)
   * and 28 B backward (114,688 B), 5 kernels each way; absent without the key */
  CHECK(find_op(ops, n, "router_aux_loss") == NULL);
  run.model.router_aux_loss = true;
  n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *x = find_op(ops, n, "router_aux_loss");
  CHECK(x != NULL);
  if (x == NULL)
    return;
  CHECK(x == find_op(ops, n, "router_topk") + 1);
  CHECK(x->fwd_kernels == 5 && x->bwd_kernels == 5);
  CHECK_NEAR_REL(x->fwd_bytes, 57344.0, EXACT);
  CHECK_NEAR_REL(x->bwd_bytes, 114688.0, EXACT);
  CHECK(x->fwd_flops == 0.0 && x->bwd_flops == 0.0);
}

/* layout.head_16bit (Megatron-Core's output layer is tensor_parallel.ColumnParallelLinear, not a
 * TE module): under FP8 the LM head's GEMM is timed exactly as the same GEMM in bf16, forward and
 * backward; without it, at the FP8 rate (shorter on this H100, whose FP8 peak is twice bf16). The
 * blocks' GEMMs keep the FP8 rate either way. */
static void test_head_16bit(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  struct pl_gpu h100;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(load_h100_887(&h100, &d), PL_OK, dp);
  small_llama(&run);
  run.layout.dtype = PL_DTYPE_FP8;
  const struct pl_gpu *g = &h100;
  int n = pl_sim_segment_ops(&run, 2, ops);
  const struct pl_op *h = find_op(ops, n, "lm_head");
  CHECK(h != NULL && !h->high_precision);
  if (h == NULL)
    return;
  double f8 = pl_op_run_time_s(g, &run.layout, &run.model, h, PL_PASS_FWD);
  CHECK_NEAR_REL(f8, pl_op_time_s(g, PL_DTYPE_FP8, h, PL_PASS_FWD), EXACT);
  run.layout.head_16bit = true;
  n = pl_sim_segment_ops(&run, 2, ops);
  h = find_op(ops, n, "lm_head");
  CHECK(h != NULL && h->high_precision);
  if (h == NULL)
    return;
  for (int p = 0; p < 2; p++) {
    enum pl_pass pass = p == 0 ? PL_PASS_FWD : PL_PASS_BWD;
    CHECK_NEAR_REL(pl_op_run_time_s(g, &run.layout, &run.model, h, pass),
                   pl_op_time_s(g, PL_DTYPE_BF16, h, pass), EXACT);
  }
  CHECK(pl_op_run_time_s(g, &run.layout, &run.model, h, PL_PASS_FWD) > f8);
  n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *fc1 = find_op(ops, n, "fc1");
  CHECK(fc1 != NULL && !fc1->high_precision);
}

/* Gradient passes per micro-batch, docs/step-model.md 2.3c. A block of this
 * model has 4 h^2 (attention) + 3 h f (SwiGLU) + 2 h (norms) = 4,194,304 +
 * 8,650,752 + 2048 = 12,847,104 parameters. ddp: main_grad add, 10 B each
 * in backward (128.5 MB), none in forward. zero2: all_gather copy-out 4 B in
 * forward, reduce_scatter copy-in/cast 6 B in backward; zero3 re-gathers in
 * backward: 4 + 6 = 10 B. */
static void test_param_kernels(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  double p = 4.0 * 1024 * 1024 + 3.0 * 1024 * 2816 + 2.0 * 1024;
  small_llama(&run);
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *acc = find_op(ops, n, "grad_accum");
  CHECK(acc != NULL && find_op(ops, n, "fsdp_copies") == NULL);
  if (acc != NULL) {
    CHECK_NEAR_REL(acc->bwd_bytes, 10.0 * p, EXACT);
    CHECK(acc->fwd_bytes == 0 && !acc->recompute);
  }
  run.layout.shard = PL_SHARD_ZERO2;
  n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *cp = find_op(ops, n, "fsdp_copies");
  CHECK(cp != NULL && find_op(ops, n, "grad_accum") == NULL);
  if (cp != NULL) {
    CHECK_NEAR_REL(cp->fwd_bytes, 4.0 * p, EXACT);
    CHECK_NEAR_REL(cp->bwd_bytes, 6.0 * p, EXACT);
  }
  run.layout.shard = PL_SHARD_ZERO3;
  n = pl_sim_segment_ops(&run, 1, ops);
  cp = find_op(ops, n, "fsdp_copies");
  CHECK(cp != NULL);
  if (cp != NULL)
    CHECK_NEAR_REL(cp->bwd_bytes, 10.0 * p, EXACT);
  /* layout.fsdp1_copies (PyTorch FSDP1): no copy-out, forward or backward;
   * backward the split backward's cat (2 + 2 B), the cast to the fp32 reduce
   * dtype (2 + 4 B) and the in-place pre-divide (4 + 4 B): 18 B; with a bf16
   * reduce the cat and a 16-bit pre-divide (2 + 2 B): 8 B; zero2 the same */
  run.layout.fsdp1_copies = true;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && cp->fwd_bytes == 0 && fabs(cp->bwd_bytes - 18.0 * p) <= 1e-9 * p);
  run.layout.grad_reduce_bf16 = true;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && cp->fwd_bytes == 0 && fabs(cp->bwd_bytes - 8.0 * p) <= 1e-9 * p);
  run.layout.shard = PL_SHARD_ZERO2;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && cp->fwd_bytes == 0 && fabs(cp->bwd_bytes - 8.0 * p) <= 1e-9 * p);
  run.layout.shard = PL_SHARD_ZERO3;
  run.layout.grad_reduce_bf16 = false;
  run.layout.fsdp1_copies = false;
  /* layout.fsdp2_predivide (FSDP2 of the PyTorch 2.3 line: _div_if_needed on
   * the whole reduce_scatter input, a factor >= 2 for dp >= 2, with a bf16
   * reduce): + read and write of the bf16 input, 4 B per parameter in
   * backward, on top of the copy-in (6 B) and zero3's re-gather copy-out
   * (4 B): 14 B; none with an fp32 reduce (ReduceOp.AVG since #120919, in
   * 2.3): 10 B; no pass for one rank (factor 1); ignored with fsdp1_copies,
   * whose own pre-divide is in its 18 B */
  run.layout.fsdp2_predivide = true;
  run.layout.dp = 8;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - 10.0 * p) <= 1e-9 * p && fabs(cp->fwd_bytes - 4.0 * p) <= 1e-9 * p);
  run.layout.grad_reduce_bf16 = true;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - 14.0 * p) <= 1e-9 * p);
  run.layout.dp = 1;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - 10.0 * p) <= 1e-9 * p);
  run.layout.dp = 8;
  run.layout.grad_reduce_bf16 = false;
  run.layout.fsdp1_copies = true;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - 18.0 * p) <= 1e-9 * p && cp->fwd_bytes == 0);
  run.layout.fsdp1_copies = false;
  /* layout.fsdp2_rs_copy_in: the copy-in and pre-divide (6 + 8 B) leave the
   * unit (sim_seg.rs_copy_s, lower.c); zero3's re-gather copy-out (4 B)
   * stays; with one rank (no reduce_scatter) they stay in the unit */
  run.layout.fsdp2_rs_copy_in = true;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - 4.0 * p) <= 1e-9 * p);
  run.layout.dp = 1;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - 10.0 * p) <= 1e-9 * p);
  run.layout.dp = 8;
  run.layout.fsdp2_rs_copy_in = false;
  run.layout.fsdp2_predivide = false;
  /* DeepSpeed 2021's per-parameter gathers (layout.zero3_list_copy_s,
   * fsdp_comm.c sim_zero3_list_gather_bytes): each gather of a tensor above the
   * persistence threshold (1e5 elements: the four weights, g = p - 2 x 1024;
   * the two RMSNorm weights stay whole) writes its torch.zeros output (2 B)
   * on the compute stream: 2 B per element and gather (ProcessGroupNCCL's
   * copies into the views run on the NCCL stream and are priced with the
   * call, fsdp_comm.c zero3_copies_dev_s). Forward 2 g; backward one
   * gather, 2 g, plus the gradients' 6 B per parameter of the per-parameter
   * reduce_scatter path (unchanged) */
  double g = p - 2.0 * 1024;
  run.layout.zero3_list_copy_s = 1e-6;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL);
  if (cp != NULL) {
    CHECK_NEAR_REL(cp->fwd_bytes, 2.0 * g, EXACT);
    CHECK_NEAR_REL(cp->bwd_bytes, 2.0 * g + 6.0 * p, EXACT);
  }
  /* full recompute: within the reuse distance (1e9 elements: this block
   * holds 1.2e7) the recomputed forward's gather is kept for the backward,
   * no second gather; with zero3_no_reuse every tensor is gathered again:
   * 2 x 2 g */
  run.layout.recompute = PL_RECOMPUTE_FULL;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - (2.0 * g + 6.0 * p)) <= 1e-9 * p);
  run.layout.zero3_no_reuse = true;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - (4.0 * g + 6.0 * p)) <= 1e-9 * p);
  /* gradients all_reduced in buckets: their passes are the buckets'
   * (zero3_bucket_passes_s, with the all_reduce), none here */
  run.layout.zero3_grad_all_reduce = true;
  cp = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fsdp_copies");
  CHECK(cp != NULL && fabs(cp->bwd_bytes - 4.0 * g) <= 1e-9 * p);
  CHECK(cp != NULL && fabs(cp->fwd_bytes - 2.0 * g) <= 1e-9 * p);
}

/* layout.tp_seq_copies (segments.c tp_seq_copies), small_llama at tp 2 with
 * sequence parallelism: one gathered activation = mbs 2 x seq 512 x h 1024 =
 * 1,048,576 elements; 2 regions per block (attention, MLP):
 *  - bf16: per region an all_gather copy (read + write 2 B) and a
 *    reduce_scatter copy (2 + 2 B): 2 x 8 B x 1,048,576 = 16,777,216 B
 *    forward and the same backward; not recomputed;
 *  - ops recompute: the re-run all_gathers' copies, 2 x 4 B x 1,048,576 =
 *    8,388,608 B more backward: 25,165,824;
 *  - full recompute: the forward's copies re-run (the op's recompute flag);
 *  - fp8-tensorwise (torchao's Float8 TP gathers 1 B): 2 x (2 + 4) B x
 *    1,048,576 = 12,582,912 B each way;
 *  - fp8-rowwise (no Float8 TP styles: 16-bit gathers): bf16's 16,777,216;
 *  - tp_comm_overlap (async TP): only the backward's 2 unfused
 *    reduce_scatter copies, 2 x 4 B x 1,048,576 = 8,388,608 B, no forward;
 *  - async TP under fp8-rowwise: the all_gathers are not fused (their
 *    16-bit result feeds the rowwise casts), so their copies stay: forward
 *    2 x 4 B x 1,048,576 = 8,388,608 B; backward the grad_output gathers'
 *    and the unfused reduce_scatters' copies, 16,777,216 B;
 *  - off, or without sequence parallelism: no op. */
static void test_tp_seq_copies(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.tp = 2;
  run.layout.sp = true;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies") == NULL);
  run.layout.tp_seq_copies = true;
  const struct pl_op *c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->fwd_bytes == 16777216.0 && c->bwd_bytes == 16777216.0 && !c->recompute);
  run.layout.recompute = PL_RECOMPUTE_OPS;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->fwd_bytes == 16777216.0 && c->bwd_bytes == 25165824.0 && !c->recompute);
  run.layout.recompute = PL_RECOMPUTE_FULL;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->bwd_bytes == 16777216.0 && c->recompute);
  run.layout.recompute = PL_RECOMPUTE_NONE;
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->fwd_bytes == 12582912.0 && c->bwd_bytes == 12582912.0);
  run.layout.fp8_recipe = PL_FP8_RECIPE_ROWWISE;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->fwd_bytes == 16777216.0 && c->bwd_bytes == 16777216.0);
  run.layout.dtype = PL_DTYPE_BF16;
  run.layout.tp_comm_overlap = true;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->fwd_bytes == 0 && c->bwd_bytes == 8388608.0 && !c->recompute);
  run.layout.tp_comm_overlap = false;
  run.layout.async_tp = true;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->fwd_bytes == 0 && c->bwd_bytes == 8388608.0);
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.fp8_recipe = PL_FP8_RECIPE_ROWWISE;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies");
  CHECK(c != NULL && c->fwd_bytes == 8388608.0 && c->bwd_bytes == 16777216.0);
  run.layout.dtype = PL_DTYPE_BF16;
  run.layout.async_tp = false;
  run.layout.sp = false;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "tp_seq_copies") == NULL);
}

/* layout.cp_allgather (segments.c cp_merge_ops), small_llama at cp 2: E =
 * mbs 2 x seq/cp 256 x heads 8 x head_dim 128 = 524,288 elements (k and v
 * repeated to the query heads, so GQA does not change it):
 *  - forward 14 + 6 x 2 + 40 x 1 = 66 B per E = 34,603,008 B;
 *  - backward 58 + 26 x 2 + 34 x 1 = 144 B per E = 75,497,472 B;
 *  - cp 4 (E = 262,144): forward 14 + 24 + 120 = 158 B per E = 41,418,752 B,
 *    backward 58 + 104 + 102 = 264 B per E = 69,206,016 B;
 *  - full recompute re-runs the forward's (the op's recompute flag);
 *  - off, or cp 1: no op. */
static void test_cp_merge_ops(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.cp = 2;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_merge") == NULL);
  run.layout.cp_allgather = true;
  const struct pl_op *c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_merge");
  CHECK(c != NULL && c->fwd_bytes == 34603008.0 && c->bwd_bytes == 75497472.0 && !c->recompute);
  run.model.kv_heads = 2;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_merge");
  CHECK(c != NULL && c->fwd_bytes == 34603008.0 && c->bwd_bytes == 75497472.0);
  run.layout.cp = 4;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_merge");
  CHECK(c != NULL && c->fwd_bytes == 41418752.0 && c->bwd_bytes == 69206016.0);
  run.layout.recompute = PL_RECOMPUTE_FULL;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_merge");
  CHECK(c != NULL && c->recompute);
  run.layout.cp = 1;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_merge") == NULL);
}

/* IBM fms's eager attention (segments.c unfused_kernels with layout.fms_rope,
 * kv_expand_ops with layout.kv_expand_copy), small_llama: tokens = mbs 2 x
 * seq 512 = 1,024, q and k 16 heads x 128 = 2,048 elements per token:
 *  - HF rotate_half (default, unfused): rope_eager +16 / +26 B per element =
 *    33,554,432 / 54,525,952 B;
 *  - fms_rope: +32 / +32 B = 67,108,864 B each way, 7 kernels each way;
 *  - fused kernels: no rope_eager;
 *  - kv_expand: none at MHA (8 kv heads); kv_heads 2 (a 8, g 2): 2 B x 2
 *    (K, V) x 1,024 x (8 + 2) x 128 = 5,242,880 B each way, 2 kernels; the
 *    forward's copies from the stride-0 view on the non-vectorized path: 2 x
 *    1,024 x 8 x 128 = 2,097,152 elements carrying all 5,242,880 B, none
 *    backward (a reduction); tp 2 (a 4, g 1): 2,621,440 B, 1,048,576
 *    elements; full recompute re-runs it. On b200 (strided_elementwise 0.191 of 7.672 TB/s)
 *    8,388,608 B / 1.465352e12 B/s = 5.724636 us + 2 x 1.2 = 8.124636 us
 *    forward; backward (reductions) at hbm_fraction 0.80: 5,242,880 /
 *    6.1376e12 = 0.854224 us + 2.4 = 3.254224 us. */
static void test_fms_eager_attention(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.kernels = PL_KERNELS_UNFUSED;
  const struct pl_op *r = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "rope_eager");
  CHECK(r != NULL && r->fwd_bytes == 33554432.0 && r->bwd_bytes == 54525952.0);
  run.layout.fms_rope = true;
  r = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "rope_eager");
  CHECK(r != NULL && r->fwd_bytes == 67108864.0 && r->bwd_bytes == 67108864.0 &&
        r->fwd_kernels == 7 && r->bwd_kernels == 7);
  run.layout.kernels = PL_KERNELS_FUSED;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "rope_eager") == NULL);
  run.layout.kv_expand_copy = true;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "kv_expand") == NULL);
  run.model.kv_heads = 2;
  const struct pl_op *c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "kv_expand");
  CHECK(c != NULL && c->fwd_bytes == 5242880.0 && c->bwd_bytes == 5242880.0 &&
        c->fwd_kernels == 2 && c->bwd_kernels == 2 && !c->recompute);
  CHECK(c != NULL && c->fwd_strided_elems == 2097152.0 && c->fwd_strided_bytes == 5242880.0 &&
        c->bwd_strided_elems == 0.0 && c->bwd_strided_bytes == 0.0);
  struct pl_gpu b2;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("b200", &b2, &d), PL_OK, dp);
  if (c != NULL) {
    CHECK_NEAR_REL(pl_op_time_s(&b2, PL_DTYPE_BF16, c, PL_PASS_FWD), 8.124636e-6, 1e-6);
    CHECK_NEAR_REL(pl_op_time_s(&b2, PL_DTYPE_BF16, c, PL_PASS_BWD), 3.254224e-6, 1e-6);
  }
  run.layout.tp = 2;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "kv_expand");
  CHECK(c != NULL && c->fwd_bytes == 2621440.0 && c->bwd_bytes == 2621440.0 &&
        c->fwd_strided_elems == 1048576.0);
  run.layout.recompute = PL_RECOMPUTE_FULL;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "kv_expand");
  CHECK(c != NULL && c->recompute);
  run.layout.kv_expand_copy = false;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "kv_expand") == NULL);
}

/* layout.rope_complex (segments.c rope_complex; torchtitan's complex RoPE,
 * unfused under torch.compile), small_llama: tokens 1024, q and k heads 8 + 8
 * of 128 = 2048 columns: 16 B x 1024 x 2048 = 33,554,432 B forward and
 * backward, 5 kernels each way; not recomputed without recompute, re-run
 * under ops and full recompute; with eager kernels it replaces rope_eager;
 * no op for a model without rotary positions. */
static void test_rope_complex(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "rope_complex") == NULL);
  run.layout.rope_complex = true;
  const struct pl_op *r = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "rope_complex");
  CHECK(r != NULL && r->fwd_bytes == 33554432.0 && r->bwd_bytes == 33554432.0 && !r->recompute);
  CHECK(r != NULL && r->fwd_kernels == 5 && r->bwd_kernels == 5);
  run.layout.recompute = PL_RECOMPUTE_OPS;
  r = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "rope_complex");
  CHECK(r != NULL && r->recompute);
  run.layout.recompute = PL_RECOMPUTE_NONE;
  run.layout.kernels = PL_KERNELS_UNFUSED;
  int n = pl_sim_segment_ops(&run, 1, ops);
  CHECK(find_op(ops, n, "rope_complex") != NULL && find_op(ops, n, "rope_eager") == NULL);
  run.layout.rope_complex = false;
  n = pl_sim_segment_ops(&run, 1, ops);
  CHECK(find_op(ops, n, "rope_complex") == NULL && find_op(ops, n, "rope_eager") != NULL);
  run.layout.rope_complex = true;
  run.layout.kernels = PL_KERNELS_FUSED;
  run.model.pos = PL_POS_ALIBI;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "rope_complex") == NULL);
}

/* fp8-tensorwise under tp: torchao's Float8 TP styles (segments.c
 * fp8_casts; torchao/float8/float8_tensor_parallel.py, torchtitan apply_tp),
 * small_llama at tp 2 with sp: the block's GEMMs on 1024 gathered tokens are
 * qkv 1024 x 1536 x 1024, proj 1024 x 1024 x 512, fc1 1024 x 2816 x 1024,
 * fc2 1024 x 1024 x 1408 (m x n x k). Casts of 5 B per element:
 *   forward: the column-parallel inputs once on the sequence shard (qkv's and
 *     fc1's 1024 x 1024 / 2 = 524,288 each), the row-parallel inputs whole
 *     (proj 524,288, fc2 1,441,792), the weights (1,572,864 + 524,288 +
 *     2,883,584 + 1,441,792 = 6,422,528): 5 x 9,437,184 = 47,185,920 B;
 *   backward: each output gradient once, the column-parallel ones whole
 *     (1,572,864 + 2,883,584), the row-parallel ones on the shard (2 x
 *     1024 x 1024 / 2 = 1,048,576), the weights again (6,422,528), no input:
 *     5 x 11,927,552 = 59,637,760 B; plus the wgrad's layout copies of each
 *     GEMM's fp8 input (m x k: 1,048,576 + 524,288 + 1,048,576 + 1,441,792
 *     = 4,063,232) and output gradient (m x n: 1,572,864 + 1,048,576 +
 *     2,883,584 + 1,048,576 = 6,553,600), 2 B each: 21,233,664 B;
 *     80,871,424 B in all. */
static void test_fp8_tensorwise_tp(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.tp = 2;
  run.layout.sp = true;
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *q = find_op(ops, n, "qkv"), *p = find_op(ops, n, "proj");
  const struct pl_op *f1 = find_op(ops, n, "fc1"), *f2 = find_op(ops, n, "fc2");
  CHECK(q != NULL && q->m == 1024 && q->n == 1536 && q->k == 1024);
  CHECK(p != NULL && p->m == 1024 && p->n == 1024 && p->k == 512);
  CHECK(f1 != NULL && f1->m == 1024 && f1->n == 2816 && f1->k == 1024);
  CHECK(f2 != NULL && f2->m == 1024 && f2->n == 1024 && f2->k == 1408);
  const struct pl_op *c = find_op(ops, n, "fp8_casts");
  CHECK(c != NULL && c->fwd_bytes == 47185920.0 && c->bwd_bytes == 80871424.0);
}

/* layout.separate_linears (torchtitan's wq, wk, wv and w1, w3; sim/compute.c
 * separate_linears_ratio, segments.c qkv_grad_sum, fc1_grad_sum), small_llama:
 * tokens T = mbs 2 x seq 512 = 1024, hidden 1024, 8 heads and 8 kv heads of
 * 128, SwiGLU ffn 2816: the fused op qkv is 1024 x 3072 x 1024 (q, k, v
 * 1024 x 1024 x 1024 each), fc1 1024 x 5632 x 1024 (w1, w3 1024 x 2816 x
 * 1024). Each op's time is scaled by its GEMMs over the one (G =
 * pl_gemm_time_s on the A100):
 *   qkv forward  3 G(T, 1024, 1024, 1) / G(T, 3072, 1024, 1) (three launches);
 *   qkv backward 6 G(T, 1024, 1024, 1) (dgrads and wgrads, all square)
 *                / [G(T, 1024, 3072, 1) + G(1024, 3072, T, 1)];
 *   fc1 forward  2 G(T, 2816, 1024, 1) / G(T, 5632, 1024, 1);
 *   fc1 backward 2 [G(T, 1024, 2816, 1) + G(1024, 2816, T, 1)]
 *                / [G(T, 1024, 5632, 1) + G(1024, 5632, T, 1)].
 * No qkv_grad_cat; backward sums of the input gradients: qkv_grad_sum with
 * fused kernels 8 B x T x hidden = 8,388,608 B in one kernel, eager 12 B =
 * 12,582,912 B in two; fc1_grad_sum 6 B = 6,291,456 B either way.
 * fp8-tensorwise at tp 1: each linear casts its own input (5 B per element,
 * forward and backward): qkv's input 2 more times and fc1's once more, each
 * T x 1024: +3 x 5 x 1,048,576 = 15,728,640 B each way in fp8_casts. */
static void test_separate_linears(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *q = find_op(ops, n, "qkv"), *f = find_op(ops, n, "fc1");
  CHECK(q != NULL && q->m == 1024 && q->n == 3072 && q->k == 1024);
  CHECK(f != NULL && f->m == 1024 && f->n == 5632 && f->k == 1024);
  CHECK(find_op(ops, n, "qkv_grad_cat") != NULL && find_op(ops, n, "qkv_grad_sum") == NULL);
  CHECK(find_op(ops, n, "fc1_grad_sum") == NULL);
  double t0[2][2];
  for (int p = 0; p < 2; p++) {
    t0[0][p] = pl_op_run_time_s(&a100, &run.layout, &run.model, q, (enum pl_pass)p);
    t0[1][p] = pl_op_run_time_s(&a100, &run.layout, &run.model, f, (enum pl_pass)p);
  }
  run.layout.separate_linears = true;
  n = pl_sim_segment_ops(&run, 1, ops);
  q = find_op(ops, n, "qkv");
  f = find_op(ops, n, "fc1");
  CHECK(q != NULL && f != NULL && find_op(ops, n, "qkv_grad_cat") == NULL);
  const struct pl_op *s = find_op(ops, n, "qkv_grad_sum");
  CHECK(s != NULL && s->fwd_bytes == 0 && s->bwd_bytes == 8388608.0 && s->bwd_kernels == 1);
  s = find_op(ops, n, "fc1_grad_sum");
  CHECK(s != NULL && s->fwd_bytes == 0 && s->bwd_bytes == 6291456.0);
  enum pl_dtype bf = PL_DTYPE_BF16;
  const struct pl_gpu *g = &a100;
  double r[2][2] = {
      {3.0 * pl_gemm_time_s(g, bf, 1024, 1024, 1024, 1) / pl_gemm_time_s(g, bf, 1024, 3072, 1024, 1),
       6.0 * pl_gemm_time_s(g, bf, 1024, 1024, 1024, 1) /
           (pl_gemm_time_s(g, bf, 1024, 1024, 3072, 1) + pl_gemm_time_s(g, bf, 1024, 3072, 1024, 1))},
      {2.0 * pl_gemm_time_s(g, bf, 1024, 2816, 1024, 1) / pl_gemm_time_s(g, bf, 1024, 5632, 1024, 1),
       2.0 * (pl_gemm_time_s(g, bf, 1024, 1024, 2816, 1) + pl_gemm_time_s(g, bf, 1024, 2816, 1024, 1)) /
           (pl_gemm_time_s(g, bf, 1024, 1024, 5632, 1) + pl_gemm_time_s(g, bf, 1024, 5632, 1024, 1))}};
  CHECK(r[0][0] > 1.0 && r[0][1] > 1.0); /* the test can fail: three GEMMs are not free */
  for (int p = 0; p < 2; p++) {
    CHECK_NEAR_REL(pl_op_run_time_s(g, &run.layout, &run.model, q, (enum pl_pass)p), t0[0][p] * r[0][p], 1e-12);
    CHECK_NEAR_REL(pl_op_run_time_s(g, &run.layout, &run.model, f, (enum pl_pass)p), t0[1][p] * r[1][p], 1e-12);
  }
  run.layout.kernels = PL_KERNELS_UNFUSED;
  s = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "qkv_grad_sum");
  CHECK(s != NULL && s->bwd_bytes == 12582912.0 && s->bwd_kernels == 2);
  run.layout.kernels = PL_KERNELS_FUSED;
  run.layout.dtype = PL_DTYPE_FP8;
  run.layout.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  const struct pl_op *c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fp8_casts");
  CHECK(c != NULL);
  double cf = c ? c->fwd_bytes : 0, cb = c ? c->bwd_bytes : 0;
  run.layout.separate_linears = false;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "fp8_casts");
  CHECK(c != NULL && cf - c->fwd_bytes == 15728640.0 && cb - c->bwd_bytes == 15728640.0);
}

/* Transformer Engine's ring (segments.c cp_p2p_merge_ops, cp > 1 without
 * cp_allgather), small_llama at cp 2: query elements E = mbs 2 x seq/cp 256
 * x heads 8 x head_dim 128 = 524,288, K = E at kv_heads 8; 2 B each:
 *  - forward 8K + (4 + 6 x 1) E = 18 x 524,288 = 9,437,184 B;
 *  - backward (24 + 0) K + (4 + 6) E = 34 x 524,288 = 17,825,792 B;
 *  - kv_heads 2 (K = 131,072): forward 8 x 131,072 + 10 x 524,288 =
 *    6,291,456 B; backward 24 x 131,072 + 10 x 524,288 = 8,388,608 B;
 *  - cp 4 (E = 262,144, K = 65,536): forward 8K + (4 + 18) E = 524,288 +
 *    5,767,168 = 6,291,456 B; backward (24 + 12) K + 22 E = 2,359,296 +
 *    5,767,168 = 8,126,464 B; kernels 2 x 4 + 1 = 9 and 3 x 4 + 1 = 13;
 *  - full recompute re-runs the forward's; cp_allgather (PyTorch's ring,
 *    cp_merge instead), fp8 attention, or cp 1: no op. */
static void test_cp_p2p_merge_ops(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge") == NULL);
  run.layout.cp = 2;
  const struct pl_op *c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge");
  CHECK(c != NULL && c->fwd_bytes == 9437184.0 && c->bwd_bytes == 17825792.0 && !c->recompute);
  run.model.kv_heads = 2;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge");
  CHECK(c != NULL && c->fwd_bytes == 6291456.0 && c->bwd_bytes == 8388608.0);
  run.layout.cp = 4;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge");
  CHECK(c != NULL && c->fwd_bytes == 6291456.0 && c->bwd_bytes == 8126464.0);
  CHECK(c != NULL && c->fwd_kernels == 9 && c->bwd_kernels == 13);
  run.layout.recompute = PL_RECOMPUTE_FULL;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge");
  CHECK(c != NULL && c->recompute);
  run.layout.fp8_attention = true;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge") == NULL);
  run.layout.fp8_attention = false;
  run.layout.cp_allgather = true;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge") == NULL);
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_merge") != NULL);
}

/* layout.cp_comm (segments.c cp_te_copies, cp_p2p_merge_ops; flops.c
 * attention), small_llama at cp 2: E = K = mbs 2 x seq/cp 256 x 8 heads x
 * 128 = 524,288 elements:
 *  - all_gather: the attention core marked cp_gathered 2 (m 256, n 512);
 *    cp_ag_copies forward 8 cp K + 6E = 16K + 6E = 22 x 524,288
 *    = 11,534,336 B; backward (32 cp + 6) K + 4E = 74 x 524,288 =
 *    38,797,312 B; 5 and 12 kernels; no cp_p2p_merge;
 *  - a2a: cp_a2a_copies 16E + 16K = 32 x 524,288 = 16,777,216 B each way,
 *    8 kernels; the attention core over the whole sequence (m = n = 512)
 *    with 8 / 2 = 4 heads: count mbs 2 x 4 = 8; no cp_p2p_merge;
 *  - a2a+p2p at cp 4 with an a2a of 2: the attention core m = 512 / 4 x 2 =
 *    256 queries against n = 512 keys, count 2 x 8 / 2 = 8; the ring of
 *    cp / 2 = 2 ranks merges as cp 2 on E = K = 2 x 128 x 8 x 128 = 262,144:
 *    forward 8K + 10E = 4,718,592 B, backward 24K + 10E = 8,912,896 B,
 *    kernels 5 and 7. */
static void test_cp_comm_ops(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.cp = 2;
  run.layout.cp_comm = PL_CP_ALL_GATHER;
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *c = find_op(ops, n, "cp_ag_copies");
  CHECK(c != NULL && c->fwd_bytes == 11534336.0 && c->bwd_bytes == 38797312.0);
  CHECK(c != NULL && c->fwd_kernels == 5 && c->bwd_kernels == 12 && !c->recompute);
  CHECK(find_op(ops, n, "cp_p2p_merge") == NULL && find_op(ops, n, "cp_a2a_copies") == NULL);
  /* selective recompute (core_attn by default) re-runs TE's whole cp Function */
  run.layout.recompute = PL_RECOMPUTE_SELECTIVE;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_ag_copies");
  CHECK(c != NULL && c->recompute);
  run.layout.cp_comm = PL_CP_P2P;
  c = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "cp_p2p_merge");
  CHECK(c != NULL && c->recompute);
  run.layout.recompute = PL_RECOMPUTE_NONE;
  run.layout.cp_comm = PL_CP_ALL_GATHER;
  n = pl_sim_segment_ops(&run, 1, ops);
  c = find_op(ops, n, "attn"); /* the two gathered launches (compute.c cp_gathered_span) */
  CHECK(c != NULL && c->cp_gathered == 2 && c->m == 256 && c->n == 512);
  run.layout.cp_comm = PL_CP_A2A;
  n = pl_sim_segment_ops(&run, 1, ops);
  c = find_op(ops, n, "cp_a2a_copies");
  CHECK(c != NULL && c->fwd_bytes == 16777216.0 && c->bwd_bytes == 16777216.0);
  CHECK(c != NULL && c->fwd_kernels == 8 && c->bwd_kernels == 8);
  CHECK(find_op(ops, n, "cp_p2p_merge") == NULL);
  c = find_op(ops, n, "attn");
  CHECK(c != NULL && c->m == 512 && c->n == 512 && c->count == 8 && c->cp_gathered == 0);
  run.layout.cp = 4;
  run.layout.cp_comm = PL_CP_A2A_P2P;
  run.layout.cp_a2a = 2;
  n = pl_sim_segment_ops(&run, 1, ops);
  c = find_op(ops, n, "attn");
  CHECK(c != NULL && c->m == 256 && c->n == 512 && c->count == 8);
  c = find_op(ops, n, "cp_p2p_merge");
  CHECK(c != NULL && c->fwd_bytes == 4718592.0 && c->bwd_bytes == 8912896.0);
  CHECK(c != NULL && c->fwd_kernels == 5 && c->bwd_kernels == 7);
  CHECK(find_op(ops, n, "cp_a2a_copies") != NULL);
}

/* Round 11 passes, docs/step-model.md 2.3f, on small_llama (1024 tokens per
 * micro-batch, 8 heads of 128, kv 8, vocab 32000, tp 1):
 *  - qkv_grad_cat: backward only, 4 B per q/k/v element: 4 x 1024 x 3072 =
 *    12,582,912 B; with tp 2, half;
 *  - train_metrics: none by default; 2 passes x 14 B x 1024 x 32000 logits =
 *    917,504,000 B forward on the head, no backward, not recomputed;
 *  - grad_accum with grad_accum_cast: 18 B per parameter (12,847,104 per
 *    block, test_param_kernels) instead of 10. */
static void test_framework_passes(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *cat = find_op(ops, n, "qkv_grad_cat");
  CHECK(cat != NULL);
  if (cat != NULL) {
    CHECK_NEAR_REL(cat->bwd_bytes, 12582912.0, EXACT);
    CHECK(cat->fwd_bytes == 0 && !cat->recompute);
  }
  run.layout.tp = 2;
  cat = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "qkv_grad_cat");
  CHECK(cat != NULL && fabs(cat->bwd_bytes - 6291456.0) < 1e-6);
  run.layout.tp = 1;
  n = pl_sim_segment_ops(&run, 2, ops);
  CHECK(find_op(ops, n, "train_metrics") == NULL);
  CHECK(find_op(ops, n, "qkv_grad_cat") == NULL); /* the head has no QKV */
  /* latent attention (kv_lora_rank > 0): no split backward of its own; the
   * fused MLA RoPE kernels write d_kv (flops.c mla_rope_bytes) */
  run.model.kv_lora_rank = 512;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "qkv_grad_cat") == NULL);
  run.model.kv_lora_rank = 0;
  run.layout.logit_metric_passes = 2;
  n = pl_sim_segment_ops(&run, 2, ops);
  const struct pl_op *tm = find_op(ops, n, "train_metrics");
  CHECK(tm != NULL);
  if (tm != NULL) {
    CHECK_NEAR_REL(tm->fwd_bytes, 917504000.0, EXACT);
    CHECK(tm->bwd_bytes == 0 && !tm->recompute);
  }
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "train_metrics") == NULL);
  double p = 4.0 * 1024 * 1024 + 3.0 * 1024 * 2816 + 2.0 * 1024;
  run.layout.grad_accum_cast = true;
  const struct pl_op *acc = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "grad_accum");
  CHECK(acc != NULL && fabs(acc->bwd_bytes - 18.0 * p) < 1e-3);
}

/* Launch counts (docs/step-model.md 2.6): a norm's backward is 3 kernels
 * (apex/Megatron HostLayerNormGradient), its forward 1; the gradient
 * accumulation launches per parameter tensor: small_llama's block has 6
 * (2 RMSNorm weights, fused QKV, proj, fused gate/up, down), so 6 adds, 12
 * with the fp32 cast; a GPT block (LayerNorm weight + bias, biased linears)
 * has 4 + 4 + 4 = 12, so 24 with the cast. */
static void test_launch_counts(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *norm = find_op(ops, n, "norm1");
  CHECK(norm != NULL);
  if (norm != NULL) {
    CHECK_EQ_INT(pl_op_kernels(norm, PL_PASS_FWD), 1);
    CHECK_EQ_INT(pl_op_kernels(norm, PL_PASS_BWD), 3);
  }
  const struct pl_op *acc = find_op(ops, n, "grad_accum");
  CHECK(acc != NULL);
  if (acc != NULL) {
    CHECK_EQ_INT(pl_op_kernels(acc, PL_PASS_FWD), 0);
    CHECK_EQ_INT(pl_op_kernels(acc, PL_PASS_BWD), 6);
  }
  run.layout.grad_accum_cast = true;
  acc = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "grad_accum");
  CHECK(acc != NULL && pl_op_kernels(acc, PL_PASS_BWD) == 12);
  run.model.norm = PL_NORM_LAYER;
  run.model.linear_bias = true;
  acc = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "grad_accum");
  CHECK(acc != NULL && pl_op_kernels(acc, PL_PASS_BWD) == 24);
}

/* Eager attention with ALiBi (Megatron-DeepSpeed's baddbmm on the copied
 * bias): the forward moves 4 B more per score. With 32 x 4096 x 4096 scores
 * on A100 80 GB (2039 GB/s x 0.88) that is exactly 2.147 GB / 1794 GB/s =
 * 1.197 ms more; the backward is unchanged. */
static void test_eager_alibi(void) {
  struct pl_op op = causal_attention_op();
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .eager_attention = true};
  struct pl_model m = {.dropout = true, .pos = PL_POS_LEARNED};
  double fwd = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD);
  double bwd = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_BWD);
  m.pos = PL_POS_ALIBI;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD) - fwd,
                 4.0 * 32 * 4096.0 * 4096 / (2039e9 * 0.88), 1e-9);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_BWD), bwd, EXACT);
}

/* Megatron's FusedScaleMaskSoftmax (layout.megatron_softmax; Megatron-DeepSpeed
 * f4157bea megatron/model/fused_softmax.py is_kernel_available, get_batch_per_block
 * of megatron/fused_kernels/scaled_masked_softmax.h). By hand:
 * - sk = 1024 (> 128): next_pow2 1024, warp 32 threads, 128 / 32 = 4 warps a
 *   block, 1 row a warp: 4 rows a block. b * np = 2 (16 heads / tp 8, micro-batch 1)
 *   fails b * np % 4; 4 (micro-batch 2) passes; 6 (48 heads / tp 16 x 2, sk 2048)
 *   fails; sk 8192 > 4096 fails; sk 16 (not > 16) fails; sq 1022 fails sq % 4.
 * - sk = 64: next_pow2 64 > 32 so 32-thread warps, 4 warps x 2 rows = 8 a block:
 *   causal b * np = 4 fails (4 % 8), 8 passes; padding mask (not causal) checks
 *   sq = 64 instead: 64 % 8 = 0 passes at b * np = 4.
 * - sk = 32: warp 32, 4 x 2 = 8 again; sk = 20: next_pow2 32, the same.
 * Time on A100 80 GB (2039 GB/s x 0.88 = 1794.32 GB/s, 1.2 us a kernel), b * np = 2,
 * sq = sk = 1024: 2,097,152 scores. Forward unfused: 37 B instead of 4 = 33 B more
 * = 69,206,016 B / 1.79432e12 B/s = 38.570 us, plus 4 more kernels (5 instead of 1)
 * = 4.8 us: 43.370 us. Backward: 41 - 6 = 35 B = 73,400,320 B = 40.907 us + 4.8 us =
 * 45.707 us. Kernels of the op: forward 2 GEMMs + dropout + 5 = 8 (4 fused),
 * backward 4 GEMMs + dropout + 5 = 10 (6 fused). Off (the default), or a shape the
 * kernel takes, changes nothing. */
static void test_megatron_softmax(void) {
  struct pl_op op = {.name = "attn", .kind = PL_OP_ATTENTION, .m = 1024, .n = 1024, .k = 64,
                     .count = 2, .causal = true};
  CHECK(!sim_megatron_softmax_fused(&op));
  op.count = 4;
  CHECK(sim_megatron_softmax_fused(&op));
  struct pl_op t = op;
  t.count = 6, t.m = t.n = 2048;
  CHECK(!sim_megatron_softmax_fused(&t));
  t = op, t.m = t.n = 8192;
  CHECK(!sim_megatron_softmax_fused(&t));
  t = op, t.m = t.n = 16;
  CHECK(!sim_megatron_softmax_fused(&t));
  t = op, t.m = 1022;
  CHECK(!sim_megatron_softmax_fused(&t));
  t = op, t.m = t.n = 64;
  CHECK(!sim_megatron_softmax_fused(&t));
  t.count = 8;
  CHECK(sim_megatron_softmax_fused(&t));
  t.count = 4, t.causal = false;
  CHECK(sim_megatron_softmax_fused(&t));
  t.causal = true, t.m = t.n = 32;
  CHECK(!sim_megatron_softmax_fused(&t));
  t.m = t.n = 20;
  CHECK(!sim_megatron_softmax_fused(&t));
  t.count = 8;
  CHECK(sim_megatron_softmax_fused(&t));

  op.count = 2;
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .eager_attention = true};
  struct pl_model m = {.dropout = true, .pos = PL_POS_LEARNED};
  double fwd = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD);
  double bwd = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_BWD);
  CHECK_NEAR_REL(sim_op_run_kernels(&l, &m, &op, PL_PASS_FWD), 4.0, EXACT);
  CHECK_NEAR_REL(sim_op_run_kernels(&l, &m, &op, PL_PASS_BWD), 6.0, EXACT);
  l.megatron_softmax = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD) - fwd, 43.370e-6, 1e-4);
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_BWD) - bwd, 45.707e-6, 1e-4);
  CHECK_NEAR_REL(sim_op_run_kernels(&l, &m, &op, PL_PASS_FWD), 8.0, EXACT);
  CHECK_NEAR_REL(sim_op_run_kernels(&l, &m, &op, PL_PASS_BWD), 10.0, EXACT);
  op.count = 4; /* the fused kernel takes it: as with the behaviour off */
  double fwd4 = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD);
  CHECK_NEAR_REL(sim_op_run_kernels(&l, &m, &op, PL_PASS_BWD), 6.0, EXACT);
  l.megatron_softmax = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD), fwd4, EXACT);
}

/* layout.launch_blocking (CUDA_LAUNCH_BLOCKING=1): the host issues a kernel only
 * when the previous one has finished, so a pass takes its GPU time plus its
 * kernels times the host time, not the larger of the two. Two memory ops,
 * 1 MB forward and a 3-kernel 2 MB backward, on A100 80 GB (2039 GB/s x 0.88,
 * 1.2 us per kernel), 37 us of host per kernel:
 *   forward GPU = 3 MB / 1794.32 GB/s + 2 x 1.2 us = 4.072 us; 2 kernels;
 *   async: max(4.072, 74) = 74 us; blocking: 4.072 + 74 = 78.072 us;
 *   backward (only the 3-kernel op): 2 MB / 1794.32 GB/s + 3 x 1.2 us,
 *   plus 3 x 37 us when blocking. */
static void test_launch_blocking(void) {
  struct pl_op ops[2] = {
      {.kind = PL_OP_MEMORY, .name = "a", .fwd_bytes = 1e6, .bwd_bytes = 0},
      {.kind = PL_OP_MEMORY, .name = "b", .fwd_bytes = 2e6, .bwd_bytes = 2e6, .bwd_kernels = 3},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_kernel_s = 37e-6};
  struct pl_model m = {.pos = PL_POS_LEARNED};
  double bw = 2039e9 * 0.88;
  double gpu_f = 3e6 / bw + 2 * ovh(), gpu_b = 2e6 / bw + 3 * ovh();
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 74e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_BWD, false, NULL), 111e-6, EXACT);
  l.launch_blocking = true;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), gpu_f + 74e-6,
                 EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_BWD, false, NULL), gpu_b + 111e-6,
                 EXACT);
  /* no host time given: blocking changes nothing */
  l.host_per_kernel_s = 0;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), gpu_f, EXACT);
}

/* pl_op.host_waits (DeepSpeed 2021's debug norm, layout.zero3_debug_norm):
 * op c, 4 kernels of 1 MB each way, the host reading each result back, beside
 * op a (1 kernel). The GPU side: the kernels' own time (2 MB at the HBM
 * rate, 5 kernel overheads) plus, per waiting kernel, the read-back and the
 * next launch during which it idles: 4 x 2 x 37 us. The host side: 5
 * launches and 4 read-backs, 9 x 37 = 333 us, which is longer here. The
 * backward re-runs c's forward under recompute: 8 waiting kernels (a has no
 * backward bytes): GPU 2 MB + 8 overheads + 16 x 37 us = 592 us + the
 * kernels, host 16 x 37 = 592 us. Without host time the waits cost nothing. */
static void test_host_waits(void) {
  struct pl_op ops[2] = {
      {.kind = PL_OP_MEMORY, .name = "a", .fwd_bytes = 1e6, .bwd_bytes = 0},
      {.kind = PL_OP_MEMORY, .name = "c", .fwd_bytes = 1e6, .bwd_bytes = 1e6, .fwd_kernels = 4,
       .bwd_kernels = 4, .host_waits = true},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_kernel_s = 37e-6};
  struct pl_model m = {.pos = PL_POS_LEARNED};
  double bw = 2039e9 * 0.88;
  double gpu_f = 2e6 / bw + 5 * ovh(), gpu_b = 2e6 / bw + 8 * ovh();
  CHECK(gpu_f + 296e-6 < 333e-6);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 333e-6, EXACT);
  ops[1].recompute = true;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_BWD, false, NULL), gpu_b + 592e-6,
                 EXACT);
  l.host_per_kernel_s = 0;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL),
                 2e6 / bw + 5 * ovh(), EXACT);
}

/* pl_op.host_sync: the host cannot run ahead of the GPU across such an op,
 * so the pass takes, piece by piece between syncs, the longer of GPU and
 * host time; the piece after the last sync runs on into the next block's
 * first. Four memory ops on the a100 file (HBM 2039 GB/s x 0.88 =
 * 1794.32 GB/s, 1.2 us per kernel), 37 us of host per kernel:
 *   x 1e6 B in 10 kernels, s 1e6 B in 1 (sync), y 2e9 B in 1, z 1e6 B in 20 (sync).
 * No sync: GPU 2.003e9 / bw + 32 x 1.2 us = 1116.3 + 38.4 = 1154.7 us,
 * host 32 x 37 = 1184 us: 1184 us (max of the two, pass_ops.c). With syncs
 * the pass is the host flow of its ops (host_flow.c), one block's period
 * from just after s: y, z, sync, x, s, sync. After s the GPU is idle: y
 * (1 launch) runs once issued, GPU ends at 37 + y_g; z's 20 launches (740 us
 * of host) end on the host at 777, before the GPU's y_g + z_g, so the GPU
 * ends at 37 + y_g + z_g; the host waits for that (sync), issues x and s
 * (407 us, x's 12.6 us of GPU hidden under s's launch), then s's kernel
 * runs: 37 + y_g + z_g + 407 + s_g. One sync only (z's cleared): the GPU
 * idles only for y's launch after s, the rest of the block is GPU-bound:
 * 37 + the whole GPU time (1191.7 us, not 1184: one launch more than with
 * no sync). The backward syncs only where the op's forward is re-run. */
static void test_host_sync(void) {
  struct pl_op ops[4] = {
      {.kind = PL_OP_MEMORY, .name = "x", .fwd_bytes = 1e6, .bwd_bytes = 1e6, .fwd_kernels = 10},
      {.kind = PL_OP_MEMORY, .name = "s", .fwd_bytes = 1e6, .bwd_bytes = 1e6, .host_sync = true},
      {.kind = PL_OP_MEMORY, .name = "y", .fwd_bytes = 2e9, .bwd_bytes = 1e6},
      {.kind = PL_OP_MEMORY, .name = "z", .fwd_bytes = 1e6, .bwd_bytes = 1e6, .fwd_kernels = 20,
       .host_sync = true},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_kernel_s = 37e-6};
  struct pl_model m = {.pos = PL_POS_LEARNED};
  double bw = 2039e9 * 0.88;
  double y_g = 2e9 / bw + ovh(), z_g = 1e6 / bw + 20 * ovh(), s_g = 1e6 / bw + ovh();
  double x_g = 1e6 / bw + 10 * ovh();
  CHECK(37e-6 + y_g + z_g > 777e-6 && x_g / 10 < 37e-6 && 2.003e9 / bw + 32 * ovh() < 1184e-6);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 4, PL_PASS_FWD, false, NULL),
                 37e-6 + y_g + z_g + 407e-6 + s_g, 1e-12);
  ops[3].host_sync = false;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 4, PL_PASS_FWD, false, NULL),
                 37e-6 + x_g + s_g + y_g + z_g, 1e-12);
  /* backward: 4 x 1e6 B in 4 kernels, 4 x 37 us of host; no op re-runs, no piece */
  ops[3].host_sync = true;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 4, PL_PASS_BWD, false, NULL), 148e-6, EXACT);
  l.host_per_kernel_s = 0; /* no host floor: the GPU time, syncs or not */
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 4, PL_PASS_FWD, false, NULL),
                 2.003e9 / bw + 32 * ovh(), EXACT);
}

/* The backward's issue order (pass_ops.c issue_order): autograd runs the
 * block's backward in reverse, and a recomputed op's forward is re-run just
 * before its own backward. Ops p, s, q on the a100 file (37 us of host per
 * kernel), s recomputed and syncing (pl_op.host_sync):
 *   p backward 2e9 B in 1 kernel (p_g = 2e9 / bw + 1.2 us, GPU-heavy),
 *   s backward and forward 1e6 B in 1 kernel each (s_g), q backward 1e6 B in
 *   20 kernels (q_g; 740 us of host, host-heavy).
 * Issue order q, R(s), sync, s, p; one block's period after the sync:
 * s, p, (next block) q, R(s), sync. From the idle GPU: s and p are issued
 * (74 us), p ends at 74 + p_g (s's kernel ran meanwhile); q's 740 us of
 * issue end on the host at 814 us, long before, so its kernels and R(s)'s
 * follow on the GPU: 74 + p_g + q_g + s_g. Walking the list in forward
 * order instead (q, p, s after the sync) would put q's 740 us of issue in
 * front of p: about 777 us + p_g. Without the recompute there is no sync in
 * the backward: the larger of host (22 kernels x 37 = 814 us) and GPU time
 * (p_g + s_g + q_g = 1143.9 us). */
static void test_backward_issue_order(void) {
  struct pl_op ops[3] = {
      {.kind = PL_OP_MEMORY, .name = "p", .fwd_bytes = 1e6, .bwd_bytes = 2e9},
      {.kind = PL_OP_MEMORY, .name = "s", .fwd_bytes = 1e6, .bwd_bytes = 1e6, .host_sync = true,
       .recompute = true},
      {.kind = PL_OP_MEMORY, .name = "q", .fwd_bytes = 1e6, .bwd_bytes = 1e6, .bwd_kernels = 20},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_kernel_s = 37e-6,
                        .recompute = PL_RECOMPUTE_SELECTIVE};
  struct pl_model m = {.pos = PL_POS_LEARNED};
  double bw = 2039e9 * 0.88;
  double p_g = 2e9 / bw + ovh(), s_g = 1e6 / bw + ovh(), q_g = 1e6 / bw + 20 * ovh();
  CHECK(814e-6 < 74e-6 + p_g);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 3, PL_PASS_BWD, false, NULL),
                 74e-6 + p_g + q_g + s_g, 1e-12);
  ops[1].recompute = false; /* no re-run, no sync: GPU p_g + s_g + q_g > 22 x 37 us */
  CHECK(p_g + s_g + q_g > 22 * 37e-6);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 3, PL_PASS_BWD, false, NULL), p_g + s_g + q_g,
                 1e-12);
}

/* The experts' activation under moe_act recompute is re-run by a gradient
 * hook on fc2's output (Megatron-Core experts.py TEGroupedMLP.forward,
 * CheckpointWithoutOutput.discard_output_and_register_recompute), so before
 * fc2's backward, not its own (pass_ops.c recompute_at). Memory ops on the
 * a100 file, 37 us of host per kernel: a backward 2e9 B (p_g), expert_fc2
 * backward 1e6 B in 20 kernels (q_g, 740 us of host), expert_clamp (sync)
 * and expert_act re-run, every other pass 1e6 B in 1 kernel (s_g). Issue
 * order: z, R(clamp), sync, R(act), fc2, act, clamp, a. Period after the
 * sync: R(act) (host 37), fc2 (host at 777: the GPU idles behind its 740 us
 * of issue), act (814), clamp (851), a (888: runs from there, p_g), then z
 * and R(clamp) behind it: 888 us + p_g + 2 s_g. Had the re-run come just
 * before the activation's own backward, fc2's issue would fall before the
 * sync, behind a: 148 us + p_g + q_g + 2 s_g, 0.7 ms less. */
static void test_moe_act_hook_order(void) {
  struct pl_op ops[5] = {
      {.kind = PL_OP_MEMORY, .name = "a", .fwd_bytes = 1e6, .bwd_bytes = 2e9},
      {.kind = PL_OP_MEMORY, .name = "expert_clamp", .fwd_bytes = 1e6, .bwd_bytes = 1e6,
       .host_sync = true, .recompute = true},
      {.kind = PL_OP_MEMORY, .name = "expert_act", .fwd_bytes = 1e6, .bwd_bytes = 1e6,
       .recompute = true},
      {.kind = PL_OP_MEMORY, .name = "expert_fc2", .fwd_bytes = 1e6, .bwd_bytes = 1e6,
       .bwd_kernels = 20},
      {.kind = PL_OP_MEMORY, .name = "z", .fwd_bytes = 1e6, .bwd_bytes = 1e6},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_kernel_s = 37e-6,
                        .recompute = PL_RECOMPUTE_SELECTIVE};
  struct pl_model m = {.pos = PL_POS_LEARNED};
  double bw = 2039e9 * 0.88;
  double p_g = 2e9 / bw + ovh(), s_g = 1e6 / bw + ovh(), q_g = 1e6 / bw + 20 * ovh();
  CHECK(851e-6 + s_g < 888e-6 && 37e-6 + s_g + q_g < 777e-6);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 5, PL_PASS_BWD, false, NULL),
                 888e-6 + p_g + 2 * s_g, 1e-12);
}

/* DeepSpeed 0.3.15-0.4.1's debug norm (layout.zero3_debug_norm,
 * segments.c zero3_debug_norm_op) on small_llama's block (p elements in 6
 * tensors: 4 weights, 2 RMSNorm weights): each fetch reads every tensor
 * once, 2 B per element, one norm kernel per tensor whose result the host
 * reads back: forward 2p in 6 kernels, backward 2p in 6, re-run with the
 * recomputed forward under full recompute. Only on DeepSpeed's per-parameter
 * path (zero3_list_copy_s). */
static void test_zero3_debug_norm(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  double p = 4.0 * 1024 * 1024 + 3.0 * 1024 * 2816 + 2.0 * 1024;
  small_llama(&run);
  run.layout.shard = PL_SHARD_ZERO3;
  run.layout.zero3_debug_norm = true;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "zero3_debug_norm") == NULL);
  run.layout.zero3_list_copy_s = 1e-6;
  const struct pl_op *nm = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "zero3_debug_norm");
  CHECK(nm != NULL);
  if (nm != NULL) {
    CHECK_NEAR_REL(nm->fwd_bytes, 2.0 * p, EXACT);
    CHECK_NEAR_REL(nm->bwd_bytes, 2.0 * p, EXACT);
    CHECK(nm->fwd_kernels == 6 && nm->bwd_kernels == 6 && nm->host_waits && !nm->recompute);
  }
  run.layout.recompute = PL_RECOMPUTE_FULL;
  nm = find_op(ops, pl_sim_segment_ops(&run, 1, ops), "zero3_debug_norm");
  CHECK(nm != NULL && nm->recompute);
  /* the embedding (no recompute): 32000 x 1024 in one tensor */
  nm = find_op(ops, pl_sim_segment_ops(&run, 0, ops), "zero3_debug_norm");
  CHECK(nm != NULL && !nm->recompute && nm->fwd_kernels == 1 &&
        fabs(nm->fwd_bytes - 2.0 * 32000 * 1024) < 1e-6);
  run.layout.zero3_debug_norm = false;
  CHECK(find_op(ops, pl_sim_segment_ops(&run, 1, ops), "zero3_debug_norm") == NULL);
}

/* layout.host_per_gemm_s: each cuBLAS GEMM call costs the host that time in
 * place of host_per_kernel_s, and a grouped GEMM of count 16 (16 local
 * experts, Transformer Engine's GroupedLinear: one call per expert) is 16
 * calls forward and 32 backward (dgrad + wgrad). Ops: a grouped 64 x 64 x 64
 * GEMM of 16 (GPU time a few us) and a 1 MB forward-only memory op:
 *   host_per_gemm 48 us alone: forward 16 x 48 = 768 us, backward 32 x 48 =
 *   1536 us (the memory op's kernel costs no host time: host_per_kernel 0);
 *   + host_per_kernel 37 us: forward 37 + 768 = 805 us, backward 1536 us;
 *   host_per_gemm 0: the GEMM is one kernel as before, forward 2 x 37 = 74 us;
 *   the GEMM on half the blocks (share 0.5), 48 us alone: forward 384 us. */
static void test_host_per_gemm(void) {
  struct pl_op ops[2] = {
      {.kind = PL_OP_GEMM, .name = "expert_fc1", .m = 64, .n = 64, .k = 64, .count = 16},
      {.kind = PL_OP_MEMORY, .name = "a", .fwd_bytes = 1e6, .bwd_bytes = 0},
  };
  CHECK_NEAR_REL(sim_op_run_gemms(&ops[0], PL_PASS_FWD), 16, EXACT);
  CHECK_NEAR_REL(sim_op_run_gemms(&ops[0], PL_PASS_BWD), 32, EXACT);
  CHECK_NEAR_REL(sim_op_run_gemms(&ops[1], PL_PASS_FWD), 0, EXACT);
  struct pl_op one = {.kind = PL_OP_GEMM, .name = "qkv", .m = 64, .n = 64, .k = 64, .count = 1};
  CHECK_NEAR_REL(sim_op_run_gemms(&one, PL_PASS_BWD), 2, EXACT);
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_gemm_s = 48e-6};
  struct pl_model m = {.pos = PL_POS_LEARNED};
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 768e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_BWD, false, NULL), 1536e-6, EXACT);
  l.host_per_kernel_s = 37e-6;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 805e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_BWD, false, NULL), 1536e-6, EXACT);
  l.host_per_gemm_s = 0;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 74e-6, EXACT);
  l.host_per_kernel_s = 0;
  l.host_per_gemm_s = 48e-6;
  ops[0].share = 0.5;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 384e-6, EXACT);
  /* the attention-only sum (cp split) carries no host floor */
  CHECK(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, true, NULL) < 1e-6);
}

/* The megatron-core preset (session 29, moe29): Megatron-Core with
 * --moe-grouped-gemm and Transformer Engine builds the experts as TEGroupedMLP
 * (TE GroupedLinear: one cuBLAS call per local expert), so the preset charges
 * each GEMM call 48 us as nemo does, the other kernels 37 us. The ops of
 * test_host_per_gemm (a grouped GEMM of 16 experts, a forward-only memory op):
 *   forward 1 x 37 (memory op) + 16 x 48 = 805 us; backward 32 x 48 = 1536 us;
 *   before (host_per_gemm 0: the grouped GEMM one kernel) forward 2 x 37 = 74 us. */
static void test_megatron_core_host_per_gemm(void) {
  struct pl_op ops[2] = {
      {.kind = PL_OP_GEMM, .name = "expert_fc1", .m = 64, .n = 64, .k = 64, .count = 16},
      {.kind = PL_OP_MEMORY, .name = "a", .fwd_bytes = 1e6, .bwd_bytes = 0},
  };
  struct pl_framework fw;
  struct pl_diag d;
  CHECK(pl_framework_preset("megatron-core", &fw, &d) == PL_OK);
  struct pl_layout l = {.dtype = PL_DTYPE_BF16};
  pl_framework_apply(&fw, &l);
  CHECK_NEAR_REL(l.host_per_kernel_s, 37e-6, EXACT);
  CHECK_NEAR_REL(l.host_per_gemm_s, 48e-6, EXACT);
  struct pl_model m = {.pos = PL_POS_LEARNED};
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 805e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_BWD, false, NULL), 1536e-6, EXACT);
  l.host_per_gemm_s = 0; /* the preset before session 29 */
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 2, PL_PASS_FWD, false, NULL), 74e-6, EXACT);
}

/* layout.host_per_launch_s: Transformer Engine's GroupedLinear quantizes its
 * input (forward) and output gradient (backward) per local expert, each split
 * launched from C++ (split_quantize): 3 kernels per expert under FP8 current
 * scaling (amax, scale, cast), 1 under MXFP8 or FP8 block scaling, none under
 * FP8 delayed scaling (one fused multi-tensor kernel), BF16 or NVFP4; only
 * grouped GEMMs (count > 1, not batched, not kept 16-bit). A grouped 64^3 GEMM
 * of 16 (GPU time a few us), host 7.3 us per such launch, nothing else
 * charged:
 *   MXFP8: 16 launches a pass, forward 16 x 7.3 = 116.8 us, backward the same;
 *   FP8 current scaling: 48 launches, 48 x 7.3 = 350.4 us;
 *   MXFP8 + host_per_gemm 48 us: forward 16 x 48 + 116.8 = 884.8 us,
 *   backward 32 x 48 + 116.8 = 1652.8 us;
 *   on half the blocks (share 0.5): 58.4 us; full_iteration graph: no floor. */
static void test_host_per_launch(void) {
  struct pl_op op = {.kind = PL_OP_GEMM, .name = "expert_fc1", .m = 64, .n = 64, .k = 64, .count = 16};
  struct pl_layout l = {.dtype = PL_DTYPE_MXFP8, .host_per_launch_s = 7.3e-6};
  struct pl_model m = {.pos = PL_POS_LEARNED, .experts = 128};
  CHECK_NEAR_REL(sim_op_split_quantize_kernels(&l, &op, PL_PASS_FWD), 16, EXACT);
  CHECK_NEAR_REL(sim_op_split_quantize_kernels(&l, &op, PL_PASS_BWD), 16, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_FWD, false, NULL), 116.8e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_BWD, false, NULL), 116.8e-6, EXACT);
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  CHECK_NEAR_REL(sim_op_split_quantize_kernels(&l, &op, PL_PASS_FWD), 48, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_FWD, false, NULL), 350.4e-6, EXACT);
  l.fp8_recipe = PL_FP8_RECIPE_BLOCKWISE;
  CHECK_NEAR_REL(sim_op_split_quantize_kernels(&l, &op, PL_PASS_FWD), 16, EXACT);
  l.fp8_recipe = PL_FP8_RECIPE_DELAYED;
  CHECK(sim_op_split_quantize_kernels(&l, &op, PL_PASS_FWD) == 0);
  l.dtype = PL_DTYPE_BF16;
  CHECK(sim_op_split_quantize_kernels(&l, &op, PL_PASS_FWD) == 0);
  l.dtype = PL_DTYPE_NVFP4;
  CHECK(sim_op_split_quantize_kernels(&l, &op, PL_PASS_FWD) == 0);
  l.dtype = PL_DTYPE_MXFP8;
  struct pl_op dense = op, batched = op, head = op;
  dense.count = 1;
  batched.batched = true;
  head.high_precision = true;
  CHECK(sim_op_split_quantize_kernels(&l, &dense, PL_PASS_FWD) == 0);
  CHECK(sim_op_split_quantize_kernels(&l, &batched, PL_PASS_FWD) == 0);
  CHECK(sim_op_split_quantize_kernels(&l, &head, PL_PASS_FWD) == 0);
  l.host_per_gemm_s = 48e-6;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_FWD, false, NULL), 884.8e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_BWD, false, NULL), 1652.8e-6, EXACT);
  l.host_per_gemm_s = 0;
  op.share = 0.5;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_FWD, false, NULL), 58.4e-6, EXACT);
  op.share = 0;
  l.cuda_graph_scopes = PL_CGS_FULL_ITERATION;
  double t = sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_FWD, false, NULL);
  CHECK(t > 0 && t < 50e-6);
  l.cuda_graph_scopes = 0;
  l.host_per_launch_s = 0;
  t = sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_FWD, false, NULL);
  CHECK(t > 0 && t < 50e-6);
  /* the attention-only sum (cp split) carries no host floor */
  l.host_per_launch_s = 7.3e-6;
  CHECK(sim_seg_ops_s(&a100, &l, &m, &op, 1, PL_PASS_FWD, true, NULL) < 1e-6);
}

/* CUDA-graph scopes (layout.cuda_graph_scopes): a captured op keeps its GPU
 * time but adds nothing to the host floor. Ops: router (one GEMM call), norm1
 * (one memory kernel), expert_fc1 (16 local experts: 16 GEMM calls forward, 32
 * backward); host 37 us per kernel, 48 us per GEMM call; every GPU time here is
 * a few us, so the host floor is the pass time.
 *   eager:                 fwd 48 (router) + 768 (16 x 48) + 37 (norm1) = 853 us
 *   attn:                  norm1 captured: 48 + 768 = 816 us
 *   attn,moe_router:       router captured too: 768 us; backward 32 x 48 = 1536 us
 *   moe_router, dense model (experts 0): no MoE block to capture: 853 us
 *   full_iteration:        no host floor: the GPU time alone (< 50 us) */
static void test_cuda_graph_scopes(void) {
  struct pl_op ops[3] = {
      {.kind = PL_OP_GEMM, .name = "router", .m = 64, .n = 64, .k = 64, .count = 1},
      {.kind = PL_OP_MEMORY, .name = "norm1", .fwd_bytes = 1e6, .bwd_bytes = 0},
      {.kind = PL_OP_GEMM, .name = "expert_fc1", .m = 64, .n = 64, .k = 64, .count = 16},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_gemm_s = 48e-6, .host_per_kernel_s = 37e-6};
  struct pl_model m = {.pos = PL_POS_LEARNED, .experts = 16};
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 3, PL_PASS_FWD, false, NULL), 853e-6, EXACT);
  l.cuda_graph_scopes = PL_CGS_ATTN;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 3, PL_PASS_FWD, false, NULL), 816e-6, EXACT);
  l.cuda_graph_scopes = PL_CGS_ATTN | PL_CGS_MOE_ROUTER | PL_CGS_MOE_PREPROCESS;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 3, PL_PASS_FWD, false, NULL), 768e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 3, PL_PASS_BWD, false, NULL), 1536e-6, EXACT);
  struct pl_model dense = {.pos = PL_POS_LEARNED};
  l.cuda_graph_scopes = PL_CGS_MOE_ROUTER;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &dense, ops, 3, PL_PASS_FWD, false, NULL), 853e-6, EXACT);
  l.cuda_graph_scopes = PL_CGS_FULL_ITERATION;
  double t = sim_seg_ops_s(&a100, &l, &m, ops, 3, PL_PASS_FWD, false, NULL);
  CHECK(t > 0 && t < 50e-6);
  /* names: Megatron-Core's CudaGraphScope values; none = 0 */
  struct pl_diag d;
  uint32_t s = 99;
  CHECK(pl_cuda_graph_scopes_parse("attn,moe_router", &s, &d) == PL_OK && s == 3u);
  CHECK(pl_cuda_graph_scopes_parse("none", &s, &d) == PL_OK && s == 0u);
  CHECK(pl_cuda_graph_scopes_parse("attn,attn", &s, &d) != PL_OK);
  CHECK(pl_cuda_graph_scopes_parse("mlp", &s, &d) == PL_OK && s == (uint32_t)PL_CGS_MLP);
  CHECK(pl_cuda_graph_scopes_parse("moe", &s, &d) != PL_OK); /* drop-and-pad MoE: not modelled */
  CHECK(pl_cuda_graph_scopes_parse("", &s, &d) != PL_OK);
  char buf[64];
  pl_cuda_graph_scopes_format(0, buf, sizeof buf);
  CHECK(strcmp(buf, "none") == 0);
  pl_cuda_graph_scopes_format(15, buf, sizeof buf);
  CHECK(strcmp(buf, "attn,moe_router,moe_preprocess,full_iteration") == 0);
  pl_cuda_graph_scopes_format(PL_CGS_ATTN | PL_CGS_MLP, buf, sizeof buf);
  CHECK(strcmp(buf, "attn,mlp") == 0);
}

/* The mlp scope (Megatron-Core CudaGraphScope.mlp, dense layers only): ops
 * fc1 (one GEMM call, 48 us on the host), swiglu and norm2 (one memory
 * kernel each, 37 us); every GPU time a few us, so the host floor is the pass.
 *   eager:                        48 + 37 + 37 = 122 us
 *   mlp, dense model:             all three captured: GPU time only (< 50 us)
 *   mlp, a model with MoE blocks: fc1 and swiglu captured (the dense share),
 *                                 norm2 shared with the MoE blocks: 37 us
 *   attn alone:                   none of them: 122 us */
static void test_cuda_graph_mlp(void) {
  struct pl_op ops[3] = {
      {.kind = PL_OP_GEMM, .name = "fc1", .m = 64, .n = 64, .k = 64, .count = 1},
      {.kind = PL_OP_MEMORY, .name = "swiglu", .fwd_bytes = 1e3, .bwd_bytes = 0},
      {.kind = PL_OP_MEMORY, .name = "norm2", .fwd_bytes = 1e3, .bwd_bytes = 0},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_gemm_s = 48e-6, .host_per_kernel_s = 37e-6};
  struct pl_model dense = {.pos = PL_POS_LEARNED, .layers = 4};
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &dense, ops, 3, PL_PASS_FWD, false, NULL), 122e-6, EXACT);
  l.cuda_graph_scopes = PL_CGS_ATTN;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &dense, ops, 3, PL_PASS_FWD, false, NULL), 122e-6, EXACT);
  l.cuda_graph_scopes = PL_CGS_MLP;
  double t = sim_seg_ops_s(&a100, &l, &dense, ops, 3, PL_PASS_FWD, false, NULL);
  CHECK(t > 0 && t < 30e-6);
  struct pl_model moe = {.pos = PL_POS_LEARNED, .layers = 4, .experts = 16, .top_k = 2};
  CHECK(pl_model_moe_layers(&moe) > 0);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &moe, ops, 3, PL_PASS_FWD, false, NULL), 37e-6, EXACT);
}

/* The alltoall dispatcher's preprocess (flops.c MOE_PREPROCESS), here as one
 * op of eleven launches, 37 us each on the host: 407 us eager (its GPU time,
 * 1 kB and eleven kernel overheads, is a few us). Megatron-Core's
 * moe_preprocess graph scope captures it (GPU time only, < 50 us);
 * moe_router alone does not (still 407 us). Under that scope the alltoall
 * dispatcher's permute is captured too (dispatch_preprocess), the flex
 * dispatcher's is not; the counts' copies to the host and the sort by local
 * expert (dispatch_postprocess) stay outside every partial scope. */
static void test_graph_moe_preprocess(void) {
  struct pl_op pre = {.kind = PL_OP_MEMORY, .name = "moe_preprocess", .fwd_bytes = 1e3,
                      .fwd_kernels = 11, .share = 1};
  struct pl_op sort = {.kind = PL_OP_MEMORY, .name = "sort_chunks", .fwd_bytes = 1e3,
                       .fwd_kernels = 2, .share = 1};
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .host_per_kernel_s = 37e-6};
  struct pl_model m = {.pos = PL_POS_LEARNED, .experts = 16};
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &pre, 1, PL_PASS_FWD, false, NULL), 407e-6, EXACT);
  l.cuda_graph_scopes = PL_CGS_MOE_ROUTER;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, &pre, 1, PL_PASS_FWD, false, NULL), 407e-6, EXACT);
  l.cuda_graph_scopes = PL_CGS_MOE_ROUTER | PL_CGS_MOE_PREPROCESS;
  double t = sim_seg_ops_s(&a100, &l, &m, &pre, 1, PL_PASS_FWD, false, NULL);
  CHECK(t > 0 && t < 50e-6);
  CHECK(sim_op_graphed(&l, &m, &pre) && !sim_op_graphed(&l, &m, &sort));
  struct pl_op perm = sort, d2h = sort;
  perm.name = "permute";
  d2h.name = "moe_counts_d2h";
  CHECK(sim_op_graphed(&l, &m, &perm) && !sim_op_graphed(&l, &m, &d2h));
  l.dispatch = PL_MOE_DEEPEP;
  CHECK(!sim_op_graphed(&l, &m, &perm) && sim_op_graphed(&l, &m, &pre));
  l.cuda_graph_scopes = PL_CGS_MOE_ROUTER;
  l.dispatch = PL_MOE_ALLTOALL;
  CHECK(!sim_op_graphed(&l, &m, &perm));
}

/* The MoE block of the dispatcher-wait tests (test_moe_host_sync and after):
 * norm1, a 1-call router GEMM, topk, permute, expert_fc1 and expert_fc2 (16
 * calls each), unpermute, resid2 into ops[0..7]; host 37 us per kernel, 48 us
 * per GEMM call, alltoall dispatcher; a learned-position 128-expert model. */
static void moe_wait_block(struct pl_op ops[8], struct pl_layout *l, struct pl_model *m) {
  const struct pl_op block[8] = {
      {.kind = PL_OP_MEMORY, .name = "norm1", .fwd_bytes = 1e3, .fwd_kernels = 1},
      {.kind = PL_OP_GEMM, .name = "router", .m = 64, .n = 64, .k = 64, .count = 1},
      {.kind = PL_OP_MEMORY, .name = "router_topk", .fwd_bytes = 1e3, .fwd_kernels = 1},
      {.kind = PL_OP_MEMORY, .name = "permute", .fwd_bytes = 1e3, .fwd_kernels = 1},
      {.kind = PL_OP_GEMM, .name = "expert_fc1", .m = 64, .n = 64, .k = 64, .count = 16},
      {.kind = PL_OP_GEMM, .name = "expert_fc2", .m = 64, .n = 64, .k = 64, .count = 16},
      {.kind = PL_OP_MEMORY, .name = "unpermute", .fwd_bytes = 1e3, .fwd_kernels = 1},
      {.kind = PL_OP_MEMORY, .name = "resid2", .fwd_bytes = 1e3, .fwd_kernels = 1},
  };
  memcpy(ops, block, sizeof block);
  *l = (struct pl_layout){.dtype = PL_DTYPE_BF16,
                          .host_per_gemm_s = 48e-6,
                          .host_per_kernel_s = 37e-6,
                          .dispatch = PL_MOE_ALLTOALL};
  *m = (struct pl_model){.pos = PL_POS_LEARNED, .experts = 128};
}

/* layout.moe_host_sync (moe_sync.c): the host waits once per MoE block's
 * forward for the tokens per local expert, one more sync of the pass's flow
 * (pass_ops.c sim_seg_ops_s with a struct sim_moe_wait). Host 37 us per
 * kernel, 48 us per GEMM call; ops in list order: norm1, router (1 GEMM
 * call), router_topk, permute | expert_fc1, expert_fc2 (16 local experts: 16
 * calls each), unpermute, resid2. Every GPU time is a few us (eps) but
 * norm1's in case C. Host before the wait 37 + 48 + 37 + 37 = 159 us, after
 * it 768 + 768 + 37 + 37 = 1610 us; without the wait the pass is the host's
 * 1769 us.
 * A alltoall, dispatch 1000 us and combine 500 us (one call each): the
 *   period starts with the dispatch (GPU 0 -> 1000) while the host issues the
 *   experts (768, 1536: the GPU follows at 1536 + eps), unpermute 1573, the
 *   combine 1573 -> 2073, then resid2 and the next block's routing (host 1769)
 *   behind it: 2073 + eps; less the two calls: 573 us. The collectives hide
 *   behind the host's issue.
 * B flex (deepep): the wait follows the dispatch, so it ends the period: GPU
 *   2073 + eps + 1000 = 3073, less the calls 1573 us.
 * C alltoall, no collectives, norm1 a long GPU op G: the host issues the
 *   experts and resid2 first (1610), then norm1 (1647), which the GPU runs
 *   only then: 1647 + G + eps, against max(1769, G + eps) without the wait.
 * D full_iteration graphs: no host time, the period is the GPU time alone.
 * E as A with a second wait after expert_fc1 (pl_op.host_sync, GPT-OSS's
 *   clamped GLU): the host has issued fc1 at 768 but waits for the GPU, still
 *   in the dispatch until 1000 + eps; fc2 1768, unpermute 1805, the combine
 *   1805 -> 2305, the rest (host 2001) behind it: 2305 + eps less the two
 *   calls, 805 us (A's 573 plus the 232 us the host waited).
 * The backward (nothing recomputed), and a forward with no routing op: no
 * wait (1769 us); under
 * CUDA_LAUNCH_BLOCKING neither (host + GPU). */
static void test_moe_host_sync(void) {
  struct pl_op ops[8];
  struct pl_layout l;
  struct pl_model m;
  moe_wait_block(ops, &l, &m);
  struct sim_moe_wait w = {1000e-6, 500e-6, 0}, none = {0, 0, 0};
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, NULL), 1769e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &w), 573e-6, 0.02);
  l.dispatch = PL_MOE_DEEPEP;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &w), 1573e-6, 0.01);
  l.dispatch = PL_MOE_ALLTOALL;
  ops[4].host_sync = true;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &w), 805e-6, 0.02);
  ops[4].host_sync = false;
  /* the backward: no wait (nothing recomputed), its host 2 x (48 + 768 +
   * 768) = 3168 us (the memory ops have no backward bytes: no kernels) */
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_BWD, false, &w), 3168e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_BWD, false, NULL), 3168e-6, EXACT);
  ops[0].fwd_bytes = 1e9; /* G: about 0.6 ms on the A100's HBM */
  double G = pl_op_run_time_s(&a100, &l, &m, &ops[0], PL_PASS_FWD);
  CHECK(G > 300e-6 && G < 1500e-6);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &none), 1647e-6 + G,
                 0.01);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, NULL), 1769e-6, EXACT);
  ops[3].name = "gather"; /* no routing */
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &none), 1769e-6, EXACT);
  ops[3].name = "permute";
  /* CUDA_LAUNCH_BLOCKING: every launch waits for its kernel, the wait adds
   * nothing: host 1769 us + GPU (G + 7 eps) either way */
  l.launch_blocking = true;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &w), 1769e-6 + G, 0.01);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &w),
                 sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, NULL), EXACT);
  l.launch_blocking = false;
  l.cuda_graph_scopes = PL_CGS_FULL_ITERATION;
  double gpu = sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, NULL);
  CHECK(gpu < 1769e-6);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_FWD, false, &none), gpu, 1e-9);
}

/* A backward that re-runs the MoE layer's forward (recompute module moe:
 * router .. unpermute recomputed, tensor_parallel.checkpoint of
 * MoELayer.forward's custom_forward) re-runs the dispatcher and its wait.
 * test_moe_host_sync's block, alltoall, dispatch 1000 us, combine 500 us.
 * Backward issue order: resid2, the re-run router (48), topk (37), permute
 * (37, the wait, then the dispatch), fc1 (768), fc2 (768), unpermute (37,
 * the combine), then the backwards of unpermute, fc2 (1536), fc1 (1536),
 * permute, topk, router (96), norm1 (the memory ops: no backward kernels).
 * From the wait: dispatch 0 -> 1000 while the host issues fc1 and fc2 (1536),
 * unpermute 1573, the combine 1573 -> 2073 while the host issues the
 * backwards (3168 us: 4741), then the next block's router, topk, permute
 * (4863); every GPU op a few us behind (eps): 4863 + eps, less the two calls
 * (lower.c charges them): 3363 us + eps. Without the wait the pass is the
 * host's 3168 + 1695 = 4863 us: the re-run collectives hide behind the
 * host's issue. Only fc1 recomputed (the permute not re-run): no wait. */
static void test_moe_wait_recompute(void) {
  struct pl_op ops[8];
  struct pl_layout l;
  struct pl_model m;
  moe_wait_block(ops, &l, &m);
  struct sim_moe_wait w = {1000e-6, 500e-6, 0};
  for (int i = 1; i <= 6; i++)
    ops[i].recompute = true;
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_BWD, false, NULL), 4863e-6, EXACT);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_BWD, false, &w), 3363e-6, 0.01);
  for (int i = 1; i <= 6; i++)
    ops[i].recompute = i == 4; /* fc1 alone: no routing re-run */
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_BWD, false, &w),
                 sim_seg_ops_s(&a100, &l, &m, ops, 8, PL_PASS_BWD, false, NULL), EXACT);
}

/* The shared experts in the issue order (pass_ops.c fwd_order): the forward
 * runs them before the router (Megatron-Core MoELayer.forward), so autograd
 * runs their backward after the routed experts' (the ready node created last
 * first: torch/csrc/autograd/engine.h ReadyQueue::CompareNodeTaskTime), and a
 * recompute of the MoE layer is issued before its first backward, the
 * unpermute's. Ops: shared_fc1 (one GEMM call, long: forward S_f, backward
 * S_b, two calls), router, permute, expert_fc1 (16 calls), unpermute, all
 * recomputed, then resid2; alltoall wait, no collectives; host 37 us per
 * kernel, 48 us per GEMM call, the memory ops no backward kernels. Backward:
 * resid2; re-run shared_fc1 (48), router (37), permute (37, the wait), fc1
 * (768), unpermute (37); backwards of unpermute, fc1 (1536), permute, router,
 * shared_fc1 (96). From the wait: the host issues fc1, unpermute, fc1's
 * backward (2341: the GPU a few us behind), shared_fc1's backward (host
 * 2437; GPU 2341 + max(96 + S_b/2, 48 + S_b) = 2389 + S_b), the next
 * block's re-run shared_fc1 (GPU + S_f), router, permute (host 2559): the
 * wait ends at 2389 us + S_b + S_f + eps. In list order (shared last, its
 * backward first, the recompute before it) the shared GEMMs ran right after
 * the wait, beside the host's issue of fc1's backward: 853 us + S_f + S_b. */
static void test_shared_expert_order(void) {
  struct pl_op ops[6] = {
      {.kind = PL_OP_MEMORY, .name = "router", .fwd_bytes = 1e3, .fwd_kernels = 1},
      {.kind = PL_OP_MEMORY, .name = "permute", .fwd_bytes = 1e3, .fwd_kernels = 1},
      {.kind = PL_OP_GEMM, .name = "expert_fc1", .m = 64, .n = 64, .k = 64, .count = 16},
      {.kind = PL_OP_MEMORY, .name = "unpermute", .fwd_bytes = 1e3, .fwd_kernels = 1},
      {.kind = PL_OP_GEMM, .name = "shared_fc1", .m = 8192, .n = 4096, .k = 4096, .count = 1},
      {.kind = PL_OP_MEMORY, .name = "resid2", .fwd_bytes = 1e3, .fwd_kernels = 1},
  };
  struct pl_layout l = {.dtype = PL_DTYPE_BF16,
                        .host_per_gemm_s = 48e-6,
                        .host_per_kernel_s = 37e-6,
                        .dispatch = PL_MOE_ALLTOALL};
  struct pl_model m = {.pos = PL_POS_LEARNED, .experts = 128};
  struct sim_moe_wait w = {0, 0, 0};
  for (int i = 0; i < 5; i++)
    ops[i].recompute = true;
  double s_f = pl_op_run_time_s(&a100, &l, &m, &ops[4], PL_PASS_FWD);
  double s_b = pl_op_run_time_s(&a100, &l, &m, &ops[4], PL_PASS_BWD);
  CHECK(s_f > 300e-6 && s_b > 600e-6 && s_f + s_b > 1800e-6);
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 6, PL_PASS_BWD, false, &w),
                 2389e-6 + s_b + s_f, 0.01);
}

/* The FP8 casts in a forward with the MoE dispatcher's wait go where every
 * synced pass puts them (pass_ops.c synced_flow_s, session 13): before each
 * GEMM, by its share of the GEMM time. test_moe_host_sync's block, the router
 * a plain 1-kernel op (no GEMM before the wait), an fp8_casts lump of 2
 * kernels and GPU time C (about 1.2 ms), alltoall, dispatch 1000 us, combine
 * 500 us. fc1 and fc2 are the same GEMM: C/2 and one kernel (37 us) before
 * each. From the wait: dispatch 0 -> 1000; casts (host 37) 1000 -> 1000 +
 * C/2; fc1 (host 805); casts (host 842) -> 1000 + C; fc2 (host 1610: the GPU
 * still ahead, C > 650 us), unpermute (1647), the combine, resid2 (1684), the
 * next block's norm1, router, topk, permute (host 1832 < 1500 + C): the GPU
 * never idles after the dispatch starts, so the flow is 1000 + 500 + the
 * pass's GPU time, and the forward (less the two calls) its GPU time alone:
 * the host is hidden. The window's rule of session 11 (the lump issued after
 * the block's last op) gave 573 us + C: its GPU ran the casts only once the
 * host had issued the block. */
static void test_moe_wait_casts(void) {
  struct pl_op ops[9];
  struct pl_layout l;
  struct pl_model m;
  moe_wait_block(ops, &l, &m);
  ops[1] = (struct pl_op){.kind = PL_OP_MEMORY, .name = "router", .fwd_bytes = 1e3,
                          .fwd_kernels = 1}; /* no GEMM before the wait */
  ops[8] = (struct pl_op){.kind = PL_OP_MEMORY, .name = "fp8_casts", .fwd_bytes = 2e9,
                          .fwd_kernels = 2};
  struct sim_moe_wait w = {1000e-6, 500e-6, 0};
  double C = pl_op_run_time_s(&a100, &l, &m, &ops[8], PL_PASS_FWD), gpu = 0;
  CHECK(C > 700e-6 && C < 3000e-6);
  for (int i = 0; i < 9; i++)
    gpu += pl_op_run_time_s(&a100, &l, &m, &ops[i], PL_PASS_FWD);
  CHECK(gpu - C < 50e-6); /* the eps */
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 9, PL_PASS_FWD, false, &w), gpu, 1e-9);
  /* no wait: max(host 1832 us, GPU) */
  CHECK_NEAR_REL(sim_seg_ops_s(&a100, &l, &m, ops, 9, PL_PASS_FWD, false, NULL),
                 gpu > 1832e-6 ? gpu : 1832e-6, EXACT);
}

/* Megatron's vocab-parallel cross-entropy run op by op (layout.megatron_xent,
 * sim/compute.c megatron_xent_extra_s): beyond the op list's fused pass it
 * adds 32 B per logit and 5 kernels forward, 8 B and 1 kernel backward. By
 * hand, a100 (HBM 2039 GB/s x 0.88 = 1794.32 GB/s, 1.2 us per kernel), mbs 1,
 * seq 1024, vocab 50304, tp 1: 51,511,296 logits; forward 1,648,361,472 B =
 * 918.65 us + 6.0 us = 924.65 us; backward 412,090,368 B = 229.66 us + 1.2 us
 * = 230.86 us. tp 2 halves the logits; TE's cross-entropy or eager kernels
 * (their own loss path) take none of it. */
static void test_megatron_xent(void) {
  struct pl_op op = {.name = "loss", .kind = PL_OP_MEMORY, .fwd_bytes = 6.0 * 51511296.0,
                     .bwd_bytes = 6.0 * 51511296.0};
  struct pl_layout l = {.dtype = PL_DTYPE_BF16, .kernels = PL_KERNELS_FUSED, .mbs = 1,
                        .seq = 1024, .tp = 1, .cp = 1};
  struct pl_model m = {.vocab = 50304, .seq_len = 1024};
  double f0 = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD);
  double b0 = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_BWD);
  CHECK_NEAR_REL(f0, pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD), EXACT);
  l.megatron_xent = true;
  double f = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD) - f0;
  double b = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_BWD) - b0;
  CHECK_NEAR_REL(f, 924.65e-6, 1e-5);
  CHECK_NEAR_REL(b, 230.86e-6, 1e-4);
  CHECK_NEAR_REL(f, 32.0 * 51511296.0 / (2039e9 * 0.88) + 5 * ovh(), 1e-9);
  CHECK_NEAR_REL(b, 8.0 * 51511296.0 / (2039e9 * 0.88) + 1 * ovh(), 1e-9);
  CHECK_NEAR_REL(sim_op_run_kernels(&l, &m, &op, PL_PASS_FWD) - pl_op_kernels(&op, PL_PASS_FWD),
                 5, EXACT);
  l.tp = 2;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD) - f0,
                 16.0 * 51511296.0 / (2039e9 * 0.88) + 5 * ovh(), 1e-9);
  l.tp = 1;
  l.te_cross_entropy = true;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD), f0, EXACT);
  l.te_cross_entropy = false;
  l.kernels = PL_KERNELS_UNFUSED;
  double eager = pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD);
  l.megatron_xent = false;
  CHECK_NEAR_REL(pl_op_run_time_s(&a100, &l, &m, &op, PL_PASS_FWD), eager, EXACT);
}

int main(void) {
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_gpu_load("a100-80g", &a100, &d), PL_OK, dp);
  test_separate_linears();
  test_fp8_tensorwise_tp();
  test_rope_complex();
  test_host_waits();
  test_host_sync();
  test_backward_issue_order();
  test_moe_act_hook_order();
  test_zero3_debug_norm();
  test_loaded();
  test_mamf_shape();
  test_sustained_a100_8192();
  test_sustained_fraction();
  test_attention_sustained();
  test_tile_fixed_k();
  test_tile_alt_bf16();
  test_tile_fixed_k_fp8();
  test_fp8_accumulator_pass();
  test_blackwell_low_precision();
  test_blackwell_block_scaled_rates();
  test_b200_nvfp4_bound();
  test_mamf_ceiling();
  test_wave_quantization();
  test_tile_quantization();
  test_memory_bound_gemm();
  test_flash_attention();
  test_eager_attention();
  test_eager_attention_v_head_dim();
  test_triton_attention();
  test_megatron_xent();
  test_cudnn_attention();
  test_cudnn_attention_shape();
  test_cudnn_913_attention();
  test_cudnn_head_dim_64();
  test_window_key_tiles();
  test_mxfp8_attention();
  test_mxfp8_window_backward();
  test_flash_attention_shape();
  test_flash_attention_shape_a100();
  test_blackwell_cudnn_attention();
  test_memory_op();
  test_gemm_backward();
  test_unfused_kernels();
  test_fp8_casts();
  test_router_16bit();
  test_mxfp8_quantize_rate();
  test_b300_te_gemm_profiling();
  test_fp8_no_transpose();
  test_fused_grouped_mlp_casts();
  test_cluster_margin();
  test_ub_margin();
  test_quantize_rates();
  test_eager_norm_rates();
  test_layernorm_eager_reread();
  test_strided_elementwise();
  test_eager_rope_rates();
  test_hf_shift_copy();
  test_logits_shift_copy();
  test_logits_fp32();
  test_eager_z_loss();
  test_eager_xent_time();
  test_fused_norm();
  test_inductor_norms();
  test_head_16bit();
  test_param_kernels();
  test_framework_passes();
  test_tp_seq_copies();
  test_cp_merge_ops();
  test_fms_eager_attention();
  test_cp_p2p_merge_ops();
  test_cp_comm_ops();
  test_launch_blocking();
  test_host_per_gemm();
  test_megatron_core_host_per_gemm();
  test_host_per_launch();
  test_cuda_graph_scopes();
  test_cuda_graph_mlp();
  test_graph_moe_preprocess();
  test_moe_host_sync();
  test_moe_wait_casts();
  test_moe_wait_recompute();
  test_shared_expert_order();
  test_launch_counts();
  test_eager_alibi();
  test_megatron_softmax();
  return check_finish();
}
