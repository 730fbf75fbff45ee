/* compute.c: how long one operation takes on one GPU (docs/step-model.md
 * section 2). Every efficiency number comes from the GPU's data file
 * (struct pl_gpu_efficiency, with its source there); nothing is fitted to a
 * model or a validation row.
 *
 * GEMM (m x k) @ (k x n): the output is cut into tiles of tile_m x tile_n,
 * one per thread block; blocks run in waves of one block per SM. Tile
 * quantization (partial tiles at the edges still cost a whole tile) and wave
 * quantization (a last, partly filled wave costs a whole wave) follow NVIDIA's
 * "Matrix Multiplication Background User's Guide" (docs.nvidia.com/deeplearning
 * /performance/dl-performance-matrix-multiplication). The per-SM rate is the
 * GPU's measured best GEMM rate (MAMF, "maximum achievable matmul FLOPS",
 * stas00/ml-engineering) spread over its SMs, times the file's sustained
 * fraction when given (mamf-finder's MSMF / MAMF: the power-limited rate of a
 * long run over the boost-clock burst, docs/step-model.md 2.1); the kernel
 * library is assumed to pick the better of the tile and its transpose. Where the GPU file
 * gives gemm.tile_fixed_k, each tile also pays that many K elements of work outside its K loop
 * (prologue and epilogue; fitted to OpenXLA's measured sm_90 matmul table, so GEMMs with
 * K = 1-2k run 5-10% below large-K ones); FP8 GEMMs (and the block-scaled ones rated from
 * the FP8 measurement) pay gemm.tile_fixed_k_fp8 instead (fitted to this project's measured
 * H100 FP8 GEMMs: K = 2048 runs about 20% below large K), but only with the split accumulator
 * that measurement used, Transformer Engine's dgrad and wgrad; its forward runs fast
 * accumulation and pays none (unmeasured; docs/step-model.md 2.1). Time is the larger of
 * that and the HBM time of reading A, B and writing C (roofline).
 * Attention (fused, FlashAttention): executed FLOPs (half the counted ones
 * when causal) over the GPU's FlashAttention forward/backward fraction of peak (FlashAttention-2
 * paper, Dao 2023, arXiv 2307.08691; FlashAttention-3 paper, Shah et al. 2024, arXiv 2407.08608),
 * or its HBM bytes if that is longer; the Triton FlashAttention kernel (layout.attention_triton)
 * uses the GPU file's triton fractions (FlashAttention-2 paper Sec. 4.1: FA2 is 1.3-1.5x faster
 * than FlashAttention in Triton forward, about 2x backward); cuDNN's fused flash attention
 * (layout.attention_cudnn: Transformer Engine's FusedAttention, preferred on Hopper+) uses the
 * GPU file's cudnn fractions (measured on H100, data/ground-truth/h100). Memory-bound ops: HBM bytes over
 * the achievable bandwidth; with eager PyTorch kernels (layout.kernels unfused) the loss adds
 * autocast's fp32 cross-entropy copies (section 2.3d). Each kernel adds the GPU's fixed
 * kernel_overhead_s. The sustained fraction (the clock under the power limit) scales the GEMMs
 * and the attention kernels' tensor math alike (attention_s); memory-bound kernels keep their
 * HBM figures. Ignored: split-K and stream-K kernels that soften wave quantization, L2 reuse,
 * and throttling on GPUs whose file gives no sustained fraction (V100, MI300X: none published). */
#include <plateau/layout.h>
#include <plateau/model.h>
#include <plateau/sim.h>

#include <math.h>
#include <string.h>

#include "model/constants.h"
#include "sim/sim_int.h"

static double peak_of(const struct pl_gpu *g, enum pl_dtype dt) {
  double p = pl_gpu_peak_flops_per_s(g, dt);
  return p > 0 ? p : g->peak_bf16_flops_per_s;
}

static double ceil_div(int64_t a, int64_t b) { return (double)((a + b - 1) / b); }

/* Waves of tm x tn tiles: the time, in units of one tile's K-loop on one SM. */
static double tile_waves(int64_t m, int64_t n, int64_t count, int64_t tm, int64_t tn, int64_t sms) {
  double tiles = ceil_div(m, tm) * ceil_div(n, tn) * (double)count;
  return ceil(tiles / (double)sms) * (double)tm * (double)tn;
}

static double hbm_s(const struct pl_gpu *g, double bytes) {
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  return bw > 0 ? bytes / bw : 0;
}

/* Tile-and-wave work of a GEMM in units of one tile-row-of-K on one SM:
 * the better of the tile and its transpose. A BF16 GEMM also tries the GPU
 * file's second tile (gemm.tile_alt_bf16) and its transpose, and takes the
 * fewest output elements the waves pay for, a tie keeping the first tile:
 * cuBLAS ran this project's H100 trace's 3072x2048 (K 4096) wgrad with
 * nvjet_sm90_tst_128x192 tiles, 264 tiles = exactly 2 waves of 132 SMs,
 * where 128x256 pays 2 waves of the larger tile for 192 tiles (1.45 waves);
 * its other 14 GEMM shapes ran 256x128 or 320x128 (docs/step-model.md 2.1). */
static double gemm_work(const struct pl_gpu *g, enum pl_dtype dt, int64_t m, int64_t n,
                        int64_t count) {
  int64_t sms = g->sm_count > 0 ? g->sm_count : 1;
  int64_t tm = g->eff.gemm_tile_m > 0 ? g->eff.gemm_tile_m : 128;
  int64_t tn = g->eff.gemm_tile_n > 0 ? g->eff.gemm_tile_n : 128;
  double a = tile_waves(m, n, count, tm, tn, sms), b = tile_waves(m, n, count, tn, tm, sms);
  double w = a < b ? a : b;
  int64_t am = g->eff.gemm_tile_alt_bf16_m, an = g->eff.gemm_tile_alt_bf16_n;
  if (dt == PL_DTYPE_BF16 && am > 0 && an > 0) {
    double c = tile_waves(m, n, count, am, an, sms), d = tile_waves(m, n, count, an, am, sms);
    if (c < w)
      w = c;
    if (d < w)
      w = d;
  }
  return w * (double)sms;
}

/* Each output tile's cost outside its K loop (pipeline prologue, epilogue
 * store), in K elements of mainloop: the GPU file's gemm.tile_fixed_k for
 * BF16 (fitted to OpenXLA's measured table) and gemm.tile_fixed_k_fp8 for
 * FP8, MXFP8 and NVFP4 (fitted to measured FP8 GEMMs; the block-scaled GEMMs
 * are rated from the FP8 measurement, so they take its fixed cost too), only
 * where the FP8 rate is itself a measurement (docs/step-model.md 2.1). */
static double tile_fixed_k(const struct pl_gpu *g, enum pl_dtype dt, bool split_acc) {
  const struct pl_gpu_efficiency *e = &g->eff;
  if (dt == PL_DTYPE_BF16)
    return e->gemm_tile_fixed_k;
  bool fp8_like = dt == PL_DTYPE_FP8 || dt == PL_DTYPE_MXFP8 || dt == PL_DTYPE_NVFP4;
  return fp8_like && split_acc && e->gemm_fp8_mamf_flops_per_s > 0 ? e->gemm_tile_fixed_k_fp8 : 0;
}

/* The GPU's GEMM rate for perfectly quantized work: the MAMF measurement
 * divided by the quantization efficiency this model gives its best shape,
 * so that shape comes out at exactly its measured rate. */
static double gemm_rate(const struct pl_gpu *g, enum pl_dtype dt, bool split_acc,
                        double *ceiling) {
  const struct pl_gpu_efficiency *e = &g->eff;
  double mamf = e->gemm_mamf_flops_per_s;
  const int64_t *shape = e->gemm_mamf_shape;
  /* MXFP8 has the FP8 tensor-core peak on Blackwell (same in the
   * datasheets); its rate is the FP8 measurement times the file's measured
   * ratio (gemm.mxfp8_vs_fp8), or the peaks' ratio. NVFP4 too: like MXFP8 it is a block-scaled
   * narrow-precision GEMM of Transformer Engine's recipes, and the FP8
   * measurement is the nearest one in kind (its per-tile fixed cost is the
   * FP8 one, tile_fixed_k_fp8). Any other dtype without a measurement: the
   * BF16 one scaled by the peaks. */
  /* A block-scaled GEMM's rate against the FP8 one: the GPU file's measured
   * ratio at equal shapes when it gives one (gemm.mxfp8_vs_fp8,
   * gemm.nvfp4_vs_fp8: cuBLAS's block-scaled kernels load and apply the
   * per-block scale factors and TE swizzles them before each GEMM, so they
   * reach less than the peak ratio), else the ratio of the peaks. */
  bool fp8_like = dt == PL_DTYPE_FP8 || dt == PL_DTYPE_MXFP8 || dt == PL_DTYPE_NVFP4;
  double vs_fp8 = g->peak_fp8_flops_per_s > 0 ? peak_of(g, dt) / g->peak_fp8_flops_per_s : 0;
  if (dt == PL_DTYPE_MXFP8 && e->gemm_mxfp8_vs_fp8 > 0)
    vs_fp8 = e->gemm_mxfp8_vs_fp8;
  else if (dt == PL_DTYPE_NVFP4 && e->gemm_nvfp4_vs_fp8 > 0)
    vs_fp8 = e->gemm_nvfp4_vs_fp8;
  /* the measured shape paid its tiles' fixed cost in the dtype it was
   * measured in: BF16's for the BF16 MAMF, FP8's for the FP8 one (a BF16
   * anchor scaled to FP8 by the peaks keeps none, as before the FP8 key) */
  double k0 = dt == PL_DTYPE_BF16 ? tile_fixed_k(g, dt, split_acc) : 0;
  if (fp8_like && e->gemm_fp8_mamf_flops_per_s > 0 && g->peak_fp8_flops_per_s > 0) {
    mamf = e->gemm_fp8_mamf_flops_per_s * vs_fp8;
    shape = e->gemm_fp8_mamf_shape;
    /* the FP8 measurement ran with the split accumulator (torch._scaled_mm,
     * use_fast_accum False): its fixed cost goes with that mode only */
    k0 = tile_fixed_k(g, dt, split_acc); /* the one rule of the accumulator */
  } else if (fp8_like && g->peak_fp8_flops_per_s > 0 && g->peak_bf16_flops_per_s > 0) {
    /* no FP8 measurement: the BF16 one scaled to FP8 by the peaks, then as above */
    mamf *= g->peak_fp8_flops_per_s / g->peak_bf16_flops_per_s * vs_fp8;
  } else if (dt != PL_DTYPE_BF16 && g->peak_bf16_flops_per_s > 0) {
    mamf *= peak_of(g, dt) / g->peak_bf16_flops_per_s;
  }
  if (ceiling)
    *ceiling = 0;
  if (mamf <= 0 || shape[0] <= 0 || shape[1] <= 0)
    return 0;
  /* the measured shape's quantization with the tiles of the dtype it was measured in */
  enum pl_dtype shape_dt = fp8_like && e->gemm_fp8_mamf_flops_per_s > 0 ? PL_DTYPE_FP8 : PL_DTYPE_BF16;
  double q = (double)shape[0] * (double)shape[1] / gemm_work(g, shape_dt, shape[0], shape[1], 1);
  if (shape[2] > 0)
    q *= (double)shape[2] / ((double)shape[2] + k0);
  /* a training step keeps the GPU at its power limit: the sustained rate when the file gives it */
  double sustained = e->gemm_sustained_fraction > 0 ? e->gemm_sustained_fraction : 1.0;
  /* FP8-like GEMMs take the file's FP8 figure when it gives one: measured
   * against the FP8 rate of the same file (docs/step-model.md 2.1) */
  if (fp8_like && e->gemm_sustained_fraction_fp8 > 0)
    sustained = e->gemm_sustained_fraction_fp8;
  /* mamf-finder's MAMF is the best rate of its shape search, so no shape
   * beats it: the sustained rate of any GEMM is at most MAMF x the sustained
   * fraction, its MSMF (stas00/ml-engineering compute/accelerator/benchmarks/
   * README.md: "the highest any matmul shape reaches"). The tile and wave
   * corrections above can otherwise lift a large-K shape above it when the
   * assumed tile misjudges the measured shape's quantization. */
  if (ceiling && !e->gemm_mamf_not_ceiling)
    *ceiling = mamf * sustained * pl_gpu_clock_fraction(g);
  return mamf / q * sustained * pl_gpu_clock_fraction(g); /* slower under a power cap */
}

/* pl_gemm_time_s with out_bytes per output element moved through HBM (2: a
 * 16-bit output written; 8: an fp32 output read and written back, cuBLAS
 * beta = 1, as a weight-gradient GEMM accumulating into main_grad), and the
 * FP8 accumulator mode: split_acc true is cuBLASLt's default (the partial sums
 * promoted to fp32 as the K loop runs; what the FP8 measurement used), false
 * its fast accumulation (CUBLASLT_MATMUL_DESC_FAST_ACCUM), which the FP8
 * fixed cost does not apply to (docs/step-model.md 2.1). BF16 ignores it. */
static double gemm_time_out_s(const struct pl_gpu *g, enum pl_dtype dtype, int64_t m, int64_t n,
                              int64_t k, int64_t count, double out_bytes, bool split_acc) {
  if (m <= 0 || n <= 0 || k <= 0 || count <= 0)
    return 0;
  double ceiling = 0;
  double rate = gemm_rate(g, dtype, split_acc, &ceiling);
  double k_eff = (double)k + tile_fixed_k(g, dtype, split_acc);
  double t_math = rate > 0 ? 2.0 * gemm_work(g, dtype, m, n, count) * k_eff / rate : 0;
  double t_floor = ceiling > 0 ? 2.0 * (double)m * (double)n * (double)k * (double)count / ceiling : 0;
  if (t_math < t_floor)
    t_math = t_floor;
  double elem = pl_dtype_element_bytes(dtype); /* operands; the output: out_bytes */
  double bytes = (elem * ((double)m * k + (double)k * n) + out_bytes * (double)m * n) * (double)count;
  double t_mem = hbm_s(g, bytes);
  return (t_math > t_mem ? t_math : t_mem) + g->eff.kernel_overhead_s;
}

double pl_gemm_time_s(const struct pl_gpu *g, enum pl_dtype dtype, int64_t m, int64_t n, int64_t k,
                      int64_t count) {
  return gemm_time_out_s(g, dtype, m, n, k, count, 2.0, true); /* a 16-bit output */
}

double pl_gemm_fast_acc_time_s(const struct pl_gpu *g, enum pl_dtype dtype, int64_t m, int64_t n,
                               int64_t k, int64_t count) {
  return gemm_time_out_s(g, dtype, m, n, k, count, 2.0, false);
}

int pl_op_kernels(const struct pl_op *op, enum pl_pass pass) {
  switch (op->kind) {
  case PL_OP_GEMM:
    /* a batched GEMM op that stands for a chain of kernels (the SSD's) says how many */
    if (op->batched && (pass == PL_PASS_FWD ? op->fwd_kernels : op->bwd_kernels) > 0)
      return pass == PL_PASS_FWD ? op->fwd_kernels : op->bwd_kernels;
    if (pass == PL_PASS_BWD && op->frozen)
      return 1; /* a frozen weight (LoRA): the dgrad alone */
    return pass == PL_PASS_FWD ? 1 : 2; /* dgrad + wgrad */
  case PL_OP_ATTENTION:
    return pass == PL_PASS_FWD ? 1 : 3; /* FA2 bwd: dot(dO,O), main loop, convert dQ */
  case PL_OP_MEMORY: break;
  }
  double bytes = pass == PL_PASS_FWD ? op->fwd_bytes : op->bwd_bytes;
  if (bytes <= 0)
    return 0;
  if (pass == PL_PASS_BWD) {
    if (op->bwd_kernels < 0)
      return 0; /* runs inside another op's kernels (pl_op.bwd_kernels) */
    return op->bwd_kernels > 1 ? op->bwd_kernels : 1;
  }
  if (op->fwd_kernels < 0)
    return 0; /* runs inside another op's kernel (pl_op.fwd_kernels) */
  return op->fwd_kernels > 1 ? op->fwd_kernels : 1;
}

static double gemm_op_s(const struct pl_gpu *g, enum pl_dtype dt, const struct pl_op *op,
                        enum pl_pass pass) {
  /* FP8: the forward GEMM with fast accumulation, dgrad and wgrad with the
   * split accumulator (Transformer Engine's defaults, docs/step-model.md 2.1) */
  if (pass == PL_PASS_FWD)
    return pl_gemm_fast_acc_time_s(g, dt, op->m, op->n, op->k, op->count);
  /* a frozen weight (LoRA, pl_op.frozen): the dgrad GEMM alone */
  if (op->frozen)
    return pl_gemm_time_s(g, dt, op->m, op->k, op->n, op->count);
  /* dgrad (m x n) @ (n x k) and wgrad (k x m) @ (m x n), scaled when the op
   * does not do the usual 2x forward work in backward */
  double t = pl_gemm_time_s(g, dt, op->m, op->k, op->n, op->count) +
             gemm_time_out_s(g, dt, op->k, op->n, op->m, op->count,
                             op->wgrad_accum_fp32 ? 8.0 : 2.0, true);
  double usual = 2.0 * op->fwd_flops;
  return usual > 0 ? t * op->bwd_flops / usual : t;
}

/* Which fused attention kernel runs (layout.attention_triton, attention_cudnn). */
enum attn_kernel { ATTN_FLASH, ATTN_TRITON, ATTN_CUDNN };

static bool attn_is_cudnn(enum attn_kernel k) { return k == ATTN_CUDNN; }

/* The kernel's fraction of peak: FlashAttention-2 by default; the Triton
 * FlashAttention (flash_attn_triton.py, which llm-foundry ran for ALiBi) or
 * cuDNN's fused flash attention when the layout says so and the GPU file gives
 * its figures (docs/step-model.md section 2.2; pl_layout_resolve refuses cudnn
 * without them). */
static double attention_fraction(const struct pl_gpu *g, enum pl_pass pass, enum attn_kernel k) {
  const struct pl_gpu_efficiency *e = &g->eff;
  bool fwd = pass == PL_PASS_FWD;
  if (k == ATTN_TRITON && e->attn_triton_fwd_fraction > 0 && e->attn_triton_bwd_fraction > 0)
    return fwd ? e->attn_triton_fwd_fraction : e->attn_triton_bwd_fraction;
  if (attn_is_cudnn(k) && e->attn_cudnn_fwd_fraction > 0 &&
      e->attn_cudnn_bwd_fraction > 0)
    return fwd ? e->attn_cudnn_fwd_fraction : e->attn_cudnn_bwd_fraction;
  return fwd ? e->attn_fwd_fraction : e->attn_bwd_fraction;
}

/* Query rows per CTA of the fused attention kernel: FlashAttention-2's work
 * decomposition (Dao 2023, arXiv 2307.08691, Sec. 3.2: thread blocks over batch
 * x heads x query blocks; Sec. 3.3 block sizes 64-128, 128 on the large head
 * dims) and cuDNN's sm90 flash SDPA kernels alike. */
#define ATTN_TILE_ROWS 128
/* Beyond this many tiles the exact dispatch is replaced by its bound: the last
 * wave's imbalance is below one tile in more than 248 per SM (< 0.5 %). */
#define ATTN_TILE_SIM_MAX 32768

/* Query rows of the CTA whose key range a sliding-window tile walks
 * (tile_keys): cuDNN's sm100 forward runs two 128-row query tiles per CTA over
 * one shared loop of 128-key tiles (cudnn-frontend @ 3929da2
 * include/cudnn_frontend/experimental/sm100_sdpa_prefill_engine.h execute:
 * `Tiles_Q = 2`, ctas_in_q_dim = div_up(S_q, TILE_M x Tiles_Q), TILE_M = TILE_N
 * = 128 for head dims 64 and 128; the generated kernel
 * generated/sdpa/sm100/prefill/full_seqlens/d64_fprop_kernel.h calls
 * compute_kv_loop_bounds(q_row_coord, BMM1_TILE_M x Tiles_Q, TILE_N, ...) and
 * both softmax warp groups walk that range); its sm90 forward two 64-row warp
 * groups, 128 rows (sm90_sdpa_prefill_engine.h `effective_tile_m = TILE_M x 2`,
 * knob 64x128x64), as FlashAttention-2's head-dim-64 forward (kBlockM = kBlockN
 * = 128, flash_fwd_launch_template.h run_mha_fwd_hdim64 @ 0251105). Backward:
 * one 128-key tile per CTA walking the 128-row query tiles its window reaches
 * (FlashAttention-2 run_mha_bwd_hdim64 128 x 128, m_block_max in
 * flash_bwd_kernel.h; cuDNN's is not published), which deals the same key
 * positions as 128-row query tiles over their own key range. */
#define ATTN_WINDOW_CTA_ROWS_SM100_FWD 256

/* Key positions query tile i walks: causal, the keys up to its last row,
 * (i + 1) x 128; a sliding window of n keys (window_rows > 0, the rows of the
 * tile's CTA), whole 128-key tiles from the one holding the CTA's first row's
 * earliest key to the one holding its last row (FlashAttention-2
 * flash_fwd_kernel.h n_block_min = max(0, (m_block x kBlockM - window_left) /
 * kBlockN), n_block_max = ceil((m_block + 1) x kBlockM / kBlockN); cuDNN's
 * compute_kv_loop_bounds the same with its CTA's rows): a 128-key window costs
 * two key tiles per 128-row tile (three per tile of a 256-row CTA), not the
 * window's 128 keys; otherwise n. `left` is the bound the kernel subtracts
 * from the CTA's first row: FlashAttention-2's window_size_left, the window
 * n; cuDNN's left_bound, which keeps keys with column + left_bound > row
 * (cudnn-frontend utils/attn_score_modifiers.h sliding_window_mask) and which
 * Transformer Engine sets to window_size_left + 1 (fused_attn_f16_arbitrary_seqlen.cu
 * set_diagonal_band_left_bound(window_size_left + 1) @ d0067d0): the same keys,
 * but (row - n - 1) / 128 starts one key tile earlier when the window is a
 * multiple of 128, a tile wholly masked that the loop still walks. */
static int64_t tile_keys(int64_t i, int64_t m, int64_t n, bool causal, int64_t window_rows,
                         int64_t left) {
  if (window_rows > 0) {
    int64_t r0 = i * ATTN_TILE_ROWS / window_rows * window_rows;
    int64_t first = r0 > left ? (r0 - left) / ATTN_TILE_ROWS : 0;
    int64_t last = (r0 + window_rows + ATTN_TILE_ROWS - 1) / ATTN_TILE_ROWS;
    int64_t end = (m + ATTN_TILE_ROWS - 1) / ATTN_TILE_ROWS;
    return ((last < end ? last : end) - first) * ATTN_TILE_ROWS;
  }
  int64_t keys = causal ? (i + 1) * ATTN_TILE_ROWS : n;
  return keys < n ? keys : n;
}

/* The SMs' finish times as a binary min-heap of sms entries: the root's SM
 * takes a tile and finishes at v; sift v down from the root. */
static void sm_heap_replace_root(double *load, int64_t sms, double v) {
  int64_t j = 0;
  for (;;) {
    int64_t l = 2 * j + 1, r = l + 1, k = j;
    double kv = v;
    if (l < sms && load[l] < kv) {
      k = l;
      kv = load[l];
    }
    if (r < sms && load[r] < kv)
      k = r;
    if (k == j)
      break;
    load[j] = load[k];
    j = k;
  }
  load[j] = v;
}

/* Makespan, in key positions of one tile, of the query tiles of one kernel
 * launch (count x ceil(m / 128) tiles of m queries against n keys) dealt in
 * grid order to the first free SM (the hardware's block scheduler), each tile
 * costing its keys (tile_keys) plus `fixed` (the tile's prologue and epilogue: loading Q,
 * the softmax rescale and writing O, expressed as key positions of mainloop).
 * Causal: query tile i sees the keys up to its last row, (i + 1) x 128; each
 * head's tiles heaviest first (cuDNN: the grid order that fits the measured
 * kernels best; FlashAttention-2's backward: grid_n(num_n_block, b, h) with
 * n_block = blockIdx.x, key block j doing the query blocks from j on) or, with
 * `lightest_first`, in query-block order (FlashAttention-2's forward: grid
 * (num_m_block, b, h), m_block = blockIdx.x; docs/step-model.md 2.2); a
 * sliding window (window_rows > 0): the key tiles its CTA walks (left: the
 * kernel's left bound, tile_keys); otherwise
 * every tile sees n keys. */
static double tiles_makespan(int64_t m, int64_t n, bool causal, int64_t window_rows, int64_t left,
                             int64_t count, int64_t sms, double fixed, bool lightest_first) {
  int64_t tiles = (m + ATTN_TILE_ROWS - 1) / ATTN_TILE_ROWS;
  double longest = 0, total = 0;
  for (int64_t i = 0; i < tiles; i++) {
    double v = (double)tile_keys(i, m, n, causal, window_rows, left) + fixed;
    total += v;
    longest = v > longest ? v : longest;
  }
  total *= (double)count;
  if (sms < 1)
    sms = 1;
  if (tiles * count > ATTN_TILE_SIM_MAX || sms > 4096) {
    double even = total / (double)sms;
    return even > longest ? even : longest;
  }
  /* list scheduling: each tile starts on the SM that frees first (a binary
   * min-heap of the SMs' finish times) */
  double load[4096];
  for (int64_t j = 0; j < sms; j++)
    load[j] = 0;
  double span = 0;
  for (int64_t c = 0; c < count; c++) {
    for (int64_t t = 0; t < tiles; t++) {
      int64_t i = lightest_first ? t : tiles - 1 - t;
      double v = load[0] + (double)tile_keys(i, m, n, causal, window_rows, left) + fixed;
      span = v > span ? v : span;
      sm_heap_replace_root(load, sms, v);
    }
  }
  return span;
}

/* The makespan is a pure function of its arguments, and a search asks for
 * the same few shapes for every layout it simulates (the list schedule of up
 * to ATTN_TILE_SIM_MAX tiles was 93 % of `plateau search --model deepseek-v3
 * --gpus 1024 --gpu h100`'s CPU time: 25 s; bench/search_moe.sh): answers are
 * kept per thread (search threads share nothing) in a small direct-mapped
 * table, the same numbers as computing them again. */
#define MAKESPAN_MEMO 256
struct makespan_memo {
  int64_t m, n, window_rows, left, count, sms;
  double fixed, span;
  bool causal, light, used;
};

static double attn_tiles_makespan(int64_t m, int64_t n, bool causal, int64_t window_rows,
                                  int64_t left, int64_t count, int64_t sms, double fixed,
                                  bool lightest_first) {
  static _Thread_local struct makespan_memo memo[MAKESPAN_MEMO];
  uint64_t h = (uint64_t)m * 0x9E3779B97F4A7C15u ^ (uint64_t)n * 0xC2B2AE3D27D4EB4Fu ^
               (uint64_t)count * 0x165667B19E3779F9u ^ (uint64_t)sms * 0x27D4EB2F165667C5u ^
               (uint64_t)window_rows << 3 ^ (uint64_t)left << 13 ^ (uint64_t)(causal ? 1 : 0) << 1 ^
               (uint64_t)(lightest_first ? 1 : 0);
  struct makespan_memo *e = &memo[(h ^ h >> 29) % MAKESPAN_MEMO];
  if (e->used && e->m == m && e->n == n && e->window_rows == window_rows && e->left == left &&
      e->count == count &&
      e->sms == sms && e->fixed == fixed && e->causal == causal && e->light == lightest_first)
    return e->span;
  double span = tiles_makespan(m, n, causal, window_rows, left, count, sms, fixed, lightest_first);
  *e = (struct makespan_memo){m,     n,    window_rows, left,           count,
                              sms,   fixed, span,       causal, lightest_first, true};
  return span;
}

/* The attention time by shape when the GPU file gives the kernel's shape
 * parameters (cuDNN: efficiency.attention.cudnn.shape; FlashAttention-2:
 * efficiency.attention.shape), else a negative value.
 * With an older cuDNN (layout.cudnn_version) and a GPU file that gives that
 * release's figures (attention.cudnn.shape_<major>_<minor>; pl_gpu_cudnn_shape),
 * cuDNN's form runs at that release's asymptote and tile cost (docs/step-model.md
 * 2.2 "cuDNN by version": shape_2024, NVIDIA's published cuDNN 9.1 SDPA benchmark,
 * cudnn-frontend benchmark/benchmark_results.csv @ b740542, 2024-05-07,
 * scripts/attn-cudnn-2024-fit.py; shape_9_13, its cuDNN 9.13.1 benchmark on B200
 * and GB300, benchmark/sdpa_benchmark_training/artifacts @ bb37575, 2025-10-07,
 * scripts/attn-cudnn-913-fit.py):
 * t = makespan x (FLOPs of one tile-row-block per key) / (asymptote x peak / SMs).
 * The FLOPs per key position of a 128-row tile are the op's counted FLOPs
 * (every query against every key) / (count x m x n) x 128. */
/* Head dims up to this run cuDNN's small-head kernel figures
 * (attention.cudnn.shape_head_dim_64): measured at head dim 64 on H100. */
#define ATTN_SMALL_HEAD_DIM 64

/* Whether cuDNN's small-head figures apply: query/key heads at most 64 wide
 * (op->k; the value heads are never wider in the models plateau reads: latent
 * attention's are 128 against 192). */
static bool attn_small_head(const struct pl_op *op) {
  return op->k > 0 && op->k <= ATTN_SMALL_HEAD_DIM;
}

/* The fused attention kernel's rate bound set by the SFU (docs/step-model.md
 * 2.2 "Head dim 64"), as a fraction of the 16-bit tensor peak: both passes
 * take one exponential per score element (the forward's exp(S - rowmax), the
 * backward's recomputed P = exp(S - LSE); FlashAttention-2, Dao 2023, arXiv
 * 2307.08691, Algorithms 1 and 2) on MUFU.EX2, while the tensor cores do 4 d
 * FLOPs per score element forward (QK^T and PV at head dim d = op->k) and
 * 2.5x that backward (flops.c attention). At attention.cudnn.
 * tensor_flops_per_exp tensor FLOPs per exponential the kernel cannot run
 * above those FLOPs / tensor_flops_per_exp of peak. Both units run at the SM
 * clock, so the sustained clock scales both alike. Latent attention's value
 * heads (128 < 192) make the true forward count 640, not 768, per score: the
 * bound is then 20 % loose, and far from binding (1.25 of peak on GB200).
 * 0 = no figure (no bound). */
static double attn_exp_bound(const struct pl_gpu *g, const struct pl_op *op, enum pl_pass pass) {
  double tpe = g->eff.attn_tensor_flops_per_exp;
  double per_score = 4.0 * (double)op->k * (pass == PL_PASS_FWD ? 1.0 : 2.5);
  return tpe > 0 && op->k > 0 ? per_score / tpe : 0;
}

/* The fraction f held below the exponential bound (cuDNN kernels only). */
static double attn_exp_limited(const struct pl_gpu *g, const struct pl_op *op, enum pl_pass pass,
                               enum attn_kernel kernel, double f) {
  double bound = attn_is_cudnn(kernel) ? attn_exp_bound(g, op, pass) : 0;
  return bound > 0 && bound < f ? bound : f;
}

/* A sliding window of n keys (n < m, flops.c) is walked in whole key tiles by
 * its CTA's rows from the kernel's left bound (tile_keys): cuDNN's sm100
 * forward CTA of 256 rows, else 128; cuDNN's bound Transformer Engine's
 * window_size_left + 1, FlashAttention-2's the window. */
static void window_cta(const struct pl_gpu *g, bool fwd, bool cudnn, int64_t n, int64_t *rows,
                       int64_t *left) {
  bool sm100 = g->sm_arch / 10 == 10;
  *rows = cudnn && fwd && sm100 ? ATTN_WINDOW_CTA_ROWS_SM100_FWD : ATTN_TILE_ROWS;
  *left = cudnn ? n + 1 : n;
}

/* The key positions a window's tiles walk over the n each query counts
 * (tile_keys; 1 when not a window): the factor on the counted FLOPs where
 * the GPU file gives no shape figures and a flat fraction times the op. */
static double window_walk_ratio(const struct pl_gpu *g, const struct pl_op *op, bool fwd,
                                bool cudnn) {
  int64_t m = op->m, n = op->n;
  if (n >= m || n < 1 || m < 1)
    return 1.0;
  int64_t rows, left;
  window_cta(g, fwd, cudnn, n, &rows, &left);
  int64_t tiles = (m + ATTN_TILE_ROWS - 1) / ATTN_TILE_ROWS;
  double walked = 0;
  for (int64_t i = 0; i < tiles; i++)
    walked += (double)tile_keys(i, m, n, false, rows, left);
  return walked / ((double)tiles * (double)n);
}

/* Transformer Engine's all_gather context parallelism
 * (AttnFuncWithCPAndKVAllGather.forward / backward, context_parallel.py,
 * v2.20.0.dev0 @ d0067d0): after the K/V all_gather a rank runs its two
 * query chunks (local_seq_chunk_ids [rank, 2 cp - rank - 1], c queries each)
 * as two launches at once, one on the current stream and one on cp_stream
 * (flash_attn_streams, "to resolve wave quantization"), chunk k against the
 * keys up to its end, (k + 1) c, causal bottom-right
 * (get_kv_seq_info_after_all_gather, "causal_bottom_right"): query tile i
 * sees (k + 1) c - c + (i + 1) x 128 keys. Rank 0's chunks 0 and 2 cp - 1
 * (every rank's pair holds the same 2 cp c^2 / 2 work). The two grids share
 * the SMs: makespan max(total / SMs, longest tile), the dispatch bound of
 * attn_tiles_makespan's large grids. In key positions of one tile. */
static double cp_gathered_span(int64_t c, int64_t cp, int64_t count, int64_t sms, double fixed) {
  int64_t tiles = (c + ATTN_TILE_ROWS - 1) / ATTN_TILE_ROWS;
  int64_t chunks[2] = {0, 2 * cp - 1};
  double total = 0, longest = 0;
  for (int k = 0; k < 2; k++) {
    int64_t end = (chunks[k] + 1) * c;
    for (int64_t i = 0; i < tiles; i++) {
      int64_t keys = end - c + (i + 1) * ATTN_TILE_ROWS;
      double v = (double)(keys < end ? keys : end) + fixed;
      total += v;
      longest = v > longest ? v : longest;
    }
  }
  total *= (double)count;
  double even = total / (double)(sms > 0 ? sms : 1);
  return even > longest ? even : longest;
}

/* Deal `count` x ceil(m / 128) tiles of one launch (m queries against n keys,
 * tile_keys, plus `fixed` each) onto the SMs' finish times `load` (a binary
 * min-heap of sms entries), in grid order to the first free SM, as
 * tiles_makespan does; returns the latest finish. */
static double deal_launch(double *load, int64_t sms, int64_t m, int64_t n, bool causal,
                          int64_t count, double fixed, bool lightest_first, double span) {
  int64_t tiles = (m + ATTN_TILE_ROWS - 1) / ATTN_TILE_ROWS;
  for (int64_t c = 0; c < count; c++) {
    for (int64_t t = 0; t < tiles; t++) {
      int64_t i = lightest_first ? t : tiles - 1 - t;
      double v = load[0] + (double)tile_keys(i, m, n, causal, 0, 0) + fixed;
      span = v > span ? v : span;
      sm_heap_replace_root(load, sms, v);
    }
  }
  return span;
}

/* The forward of Transformer Engine's load-balanced p2p ring (n = cp x m
 * keys): the causal diagonal (m x m) then cp - 1 unmasked launches taken as m
 * queries against m / 2 keys (attention_shape_math_s), issued alternately on
 * two CUDA streams, each launch waiting only for its own K/V and for the
 * launch two before it on its stream: TransformerEngine
 * transformer_engine/pytorch/attention.py AttnFuncWithCP.forward, v1.4-v1.9
 * ("create two streams to resolve wave quantization issue of Flash Attn in
 * each step": flash_attn_streams = [torch.cuda.current_stream(), cp_stream],
 * step i runs `with torch.cuda.stream(flash_attn_streams[i % 2])`), and the
 * same loop in AttnFuncWithCPAndKVP2P.forward (context_parallel.py,
 * v1.10 .. d0067d0). So the next launch's tiles take the SMs the last wave of
 * the one before leaves free: the launches' tiles are dealt in issue order to
 * the first free SM as one pool (the hardware's block scheduler across two
 * concurrent grids). The backward (AttnFuncWithCPAndKVP2P.backward, one
 * stream) keeps a makespan per launch. Above ATTN_TILE_SIM_MAX tiles, the
 * bound: max(total / SMs, the longest tile). In key positions of one tile. */
static double cp_ring_fwd_span(int64_t m, int64_t cp, int64_t count, int64_t sms, double fixed,
                               bool lightest_first) {
  int64_t half = m / 2 > 0 ? m / 2 : 1;
  int64_t tiles = (m + ATTN_TILE_ROWS - 1) / ATTN_TILE_ROWS;
  double diag = 0, longest = (double)m + fixed; /* the diagonal's last tile */
  for (int64_t i = 0; i < tiles; i++)
    diag += (double)tile_keys(i, m, m, true, 0, 0) + fixed;
  if (sms < 1)
    sms = 1;
  if (cp * tiles * count > ATTN_TILE_SIM_MAX || sms > 4096) {
    double total = (double)count * (diag + (double)(cp - 1) * (double)tiles * ((double)half + fixed));
    double even = total / (double)sms;
    return even > longest ? even : longest;
  }
  double load[4096];
  for (int64_t j = 0; j < sms; j++)
    load[j] = 0;
  double span = deal_launch(load, sms, m, m, true, count, fixed, lightest_first, 0);
  for (int64_t s = 1; s < cp; s++)
    span = deal_launch(load, sms, m, half, false, count, fixed, lightest_first, span);
  return span;
}

/* cp_ring_fwd_span's answers kept per thread, as attn_tiles_makespan's are
 * (a search asks for the same few shapes for every layout it simulates). */
#define RING_MEMO 64
static double cp_ring_fwd_span_memo(int64_t m, int64_t cp, int64_t count, int64_t sms,
                                    double fixed, bool lightest_first) {
  static _Thread_local struct makespan_memo memo[RING_MEMO];
  uint64_t h = (uint64_t)m * 0x9E3779B97F4A7C15u ^ (uint64_t)cp * 0xC2B2AE3D27D4EB4Fu ^
               (uint64_t)count * 0x165667B19E3779F9u ^ (uint64_t)sms * 0x27D4EB2F165667C5u ^
               (uint64_t)(lightest_first ? 1 : 0);
  struct makespan_memo *e = &memo[(h ^ h >> 29) % RING_MEMO];
  if (e->used && e->m == m && e->n == cp && e->count == count && e->sms == sms &&
      e->fixed == fixed && e->light == lightest_first)
    return e->span;
  double span = cp_ring_fwd_span(m, cp, count, sms, fixed, lightest_first);
  *e = (struct makespan_memo){m, cp, 0, 0, count, sms, fixed, span, true, lightest_first, true};
  return span;
}

static double attention_shape_math_s(const struct pl_gpu *g, const struct pl_op *op,
                                     enum pl_pass pass, double rate_scale,
                                     enum attn_kernel kernel, int64_t cudnn_version) {
  const struct pl_gpu_efficiency *e = &g->eff;
  bool fwd = pass == PL_PASS_FWD;
  bool cudnn = attn_is_cudnn(kernel);
  double f = cudnn ? (fwd ? e->attn_cudnn_shape_fwd_fraction : e->attn_cudnn_shape_bwd_fraction)
                   : (fwd ? e->attn_shape_fwd_fraction : e->attn_shape_bwd_fraction);
  if (!(f > 0) || g->sm_count < 1 || op->m < 1 || op->n < 1)
    return -1;
  double fixed = cudnn ? (fwd ? e->attn_cudnn_fwd_tile_fixed_keys : e->attn_cudnn_bwd_tile_fixed_keys)
                       : (fwd ? e->attn_fwd_tile_fixed_keys : e->attn_bwd_tile_fixed_keys);
  const struct pl_attn_cudnn_shape *rel = cudnn ? pl_gpu_cudnn_shape(e, cudnn_version) : NULL;
  bool today = rel == NULL || !((fwd ? rel->fwd_fraction : rel->bwd_fraction) > 0);
  if (!today) {
    f = fwd ? rel->fwd_fraction : rel->bwd_fraction;
    fixed = fwd ? rel->fwd_tile_fixed_keys : rel->bwd_tile_fixed_keys;
  }
  /* head dims <= 64: the kernel's own figures where the file gives them
   * (measured with today's cuDNN, so every run that takes today's rates takes
   * them too, whatever release it names; a run given an older release's entry,
   * layout.cudnn_version, keeps that entry's head-dim-128 form) */
  double f64 = fwd ? e->attn_cudnn_hd64_shape_fwd_fraction : e->attn_cudnn_hd64_shape_bwd_fraction;
  if (cudnn && today && f64 > 0 && attn_small_head(op)) {
    f = f64;
    fixed = fwd ? e->attn_cudnn_hd64_fwd_tile_fixed_keys : e->attn_cudnn_hd64_bwd_tile_fixed_keys;
  }
  double fa64 = fwd ? e->attn_hd64_shape_fwd_fraction : e->attn_hd64_shape_bwd_fraction;
  if (!cudnn && fa64 > 0 && attn_small_head(op)) {
    f = fa64;
    fixed = fwd ? e->attn_hd64_fwd_tile_fixed_keys : e->attn_hd64_bwd_tile_fixed_keys;
  }
  f = attn_exp_limited(g, op, pass, kernel, f);
  /* FlashAttention-2's forward grid runs each head's query blocks in order
   * (flash_fwd_launch_template.h run_flash_fwd), lightest first when causal */
  bool light = !cudnn && fwd;
  double flops = fwd ? op->fwd_flops : op->bwd_flops;
  int64_t m = op->m, n = op->n, count = op->count > 0 ? op->count : 1;
  double per_key = flops / ((double)count * (double)m * (double)n) * ATTN_TILE_ROWS;
  double sm_rate = g->peak_bf16_flops_per_s * f * rate_scale / (double)g->sm_count;
  if (!(sm_rate > 0))
    return 0;
  double span;
  if (n > m && op->cp_gathered > 1) {
    span = cp_gathered_span(m / 2 > 0 ? m / 2 : 1, op->cp_gathered, count, g->sm_count, fixed);
  } else if (n > m) {
    /* context parallelism (n = cp x m): Transformer Engine's load-balanced
     * ring (transformer_engine/pytorch/attention.py AttnFuncWithCPAndKVP2P)
     * runs cp launches per pass: the causal diagonal, m queries against the
     * local m keys, then cp - 1 unmasked launches of half the work each (the
     * local queries against half a received K/V chunk, or half the queries
     * against all of it), taken here as m queries against m / 2 keys. */
    int64_t cp = (n + m / 2) / m;
    if (fwd && op->cp_two_streams) /* the forward's launches on two streams (cp_ring_fwd_span) */
      span = cp_ring_fwd_span_memo(m, cp, count, g->sm_count, fixed, light);
    else
      span = attn_tiles_makespan(m, m, true, 0, 0, count, g->sm_count, fixed, light) +
             (double)(cp - 1) * attn_tiles_makespan(m, m / 2 > 0 ? m / 2 : 1, false, 0, 0, count,
                                                    g->sm_count, fixed, light);
  } else {
    int64_t rows = 0, left = 0;
    if (n < m)
      window_cta(g, fwd, cudnn, n, &rows, &left);
    span = attn_tiles_makespan(m, n, n >= m, rows, left, count, g->sm_count, fixed, light);
  }
  return span * per_key / sm_rate;
}

static double attention_s(const struct pl_gpu *g, enum pl_dtype dt, const struct pl_op *op,
                          enum pl_pass pass, enum attn_kernel kernel, int64_t cudnn_version) {
  /* a GPU file without cuDNN's figures times FlashAttention-2, by shape where
   * it gives FlashAttention-2's shape figures (A100) */
  if (attn_is_cudnn(kernel) &&
      !(g->eff.attn_cudnn_fwd_fraction > 0 && g->eff.attn_cudnn_bwd_fraction > 0))
    kernel = ATTN_FLASH;
  double frac = attn_exp_limited(g, op, pass, kernel, attention_fraction(g, pass, kernel));
  double flops = pass == PL_PASS_FWD ? op->fwd_flops : op->bwd_flops;
  double bytes = pass == PL_PASS_FWD ? op->fwd_bytes : op->bwd_bytes;
  /* Causal masking: the kernel skips fully masked blocks and does about half
   * the counted work when each query sees the whole sequence (keys >= queries,
   * also with load-balanced cp); the efficiency figures count causal FLOPs the
   * same way (FlashAttention's benchmark halves them). A sliding window
   * shorter than the queries computes the whole key tiles its CTAs walk
   * (window_walk_ratio; the shape form below charges the same tiles). */
  flops *= op->n >= op->m ? 0.5
                           : window_walk_ratio(g, op, pass == PL_PASS_FWD, attn_is_cudnn(kernel));
  /* FlashAttention runs in 16-bit even in FP8 training recipes. Its
   * efficiency figures are kernel benchmarks, bursts at the boost clock like
   * mamf-finder's MAMF; a training step holds the GPU at its power limit, so
   * the tensor-core math of attention runs at the same sustained fraction as
   * the GEMMs (gemm.sustained_fraction: the clock, not the kernel, sets it) */
  double sustained = g->eff.gemm_sustained_fraction > 0 ? g->eff.gemm_sustained_fraction : 1.0;
  sustained *= pl_gpu_clock_fraction(g); /* slower under a power cap */
  double rate = g->peak_bf16_flops_per_s * frac * sustained;
  (void)dt;
  double t_math = rate > 0 ? flops / rate : 0, t_mem = hbm_s(g, bytes);
  if (attn_is_cudnn(kernel) || kernel == ATTN_FLASH) {
    double t_shape = attention_shape_math_s(g, op, pass, sustained, kernel, cudnn_version);
    if (t_shape >= 0)
      t_math = t_shape;
  }
  return (t_math > t_mem ? t_math : t_mem) + pl_op_kernels(op, pass) * g->eff.kernel_overhead_s;
}

/* Whether Megatron's FusedScaleMaskSoftmax runs its fused kernel on an eager
 * attention op (layout.megatron_softmax): is_kernel_available of
 * megatron/model/fused_softmax.py (microsoft/Megatron-DeepSpeed f4157bea; the same
 * conditions in NVIDIA/Megatron-LM 7a77abd9, the b * np % 4 rule since 4916bae6,
 * 2021-02-04): 16 < sk <= 4096, sq, sk and b * np multiples of 4, and b * np
 * (causal mask: ScaledUpperTriangMaskedSoftmax) or sq (padding mask) a multiple of
 * get_batch_per_block (megatron/fused_kernels/scaled_masked_softmax.h: warps of
 * min(next_pow2(sk), 32) threads in a 128-thread block, 2 rows a warp when
 * next_pow2(sk) <= 128, else 1). b * np is the op's count (micro-batch x heads per
 * tp rank), sq its m, sk its n. Not taken: PyTorch's fp32 softmax op by op
 * (forward_torch_softmax; constants.h MEGATRON_SOFTMAX_UNFUSED_*). */
bool sim_megatron_softmax_fused(const struct pl_op *op) {
  int64_t bnp = op->count, sq = op->m, sk = op->n;
  if (!(sk > MEGATRON_SOFTMAX_MIN_KEYS && sk <= MEGATRON_SOFTMAX_MAX_KEYS && sq % 4 == 0 &&
        sk % 4 == 0 && bnp % 4 == 0))
    return false;
  int64_t pow2 = 1;
  while (pow2 < sk)
    pow2 <<= 1;
  int64_t warp = pow2 < 32 ? pow2 : 32;
  int64_t per_block = MEGATRON_SOFTMAX_THREADS_PER_BLOCK / warp * (pow2 <= 128 ? 2 : 1);
  return (op->causal ? bnp : sq) % per_block == 0;
}

static bool unfused_softmax(const struct pl_layout *l, const struct pl_op *op) {
  return l->megatron_softmax && op->kind == PL_OP_ATTENTION && !sim_megatron_softmax_fused(op);
}

/* Eager (unfused) attention as Megatron-LM ran it before FlashAttention
 * (megatron/model/transformer.py CoreAttention: baddbmm for QK^T, the fused
 * scale-mask-softmax kernel, torch dropout on the probabilities, bmm for PV;
 * the tensors Korthikanti et al. 2022 Sec. 4.1 count). Per score element:
 * softmax reads and writes 16-bit values (4 B), dropout reads them and writes
 * values and a 1-byte mask (5 B); backward: dropout 5 B, softmax 6 B (y, dy,
 * dx). Every score is computed: no causal skipping. With ALiBi
 * (Megatron-DeepSpeed, BLOOM) the baddbmm's input is the broadcast bias,
 * `matmul_result = alibi[:b*np, :, :sk]` then `torch.baddbmm(matmul_result,
 * q, k^T, beta=...)` (megatron/model/transformer.py): the result is not that
 * tensor, so PyTorch first copies the bias into it and the GEMM reads it back
 * as C (aten/src/ATen/native/cuda/Blas.cpp, addmm_out_cuda_impl:
 * `if (!result.is_same(self)) ... copy_(result, *self_)`): +4 B per score in
 * every forward. The two GEMMs have different inner widths when V's head dim
 * differs from Q's and K's (latent attention: d_qk 192, d_v 128): Transformer
 * Engine's UnfusedDotProductAttention.forward (TransformerEngine 006b3360,
 * transformer_engine/pytorch/attention/dot_product_attention/backends.py)
 * runs `torch.baddbmm(..., query [b*np, sq, hn], key [b*np, hn, sk])` at
 * Q's head dim and `torch.bmm(attention_probs, value_layer)` with the
 * context's size taken from `value_layer.size(3)`: QK^T at d_qk, PV at d_v;
 * autograd's backward of the bmm runs dP = dO V^T and dV = P^T dO at d_v, of
 * the baddbmm dQ = dS K and dK = dS^T Q at d_qk. */
static double eager_attention_s(const struct pl_gpu *g, enum pl_dtype dt, const struct pl_op *op,
                                enum pl_pass pass, bool dropout, bool alibi, bool unfused_softmax) {
  int64_t m = op->m, n = op->n, k = op->k, c = op->count, kv = op->k_v > 0 ? op->k_v : op->k;
  double elems = (double)c * (double)m * (double)n;
  double softmax = pass == PL_PASS_FWD
                       ? (unfused_softmax ? MEGATRON_SOFTMAX_UNFUSED_FWD_BYTES : 4.0)
                       : (unfused_softmax ? MEGATRON_SOFTMAX_UNFUSED_BWD_BYTES : 6.0);
  double per_elem = pass == PL_PASS_FWD ? softmax + (dropout ? 5.0 : 0.0) + (alibi ? 4.0 : 0.0)
                                        : softmax + (dropout ? 5.0 : 0.0);
  int mem_kernels = (dropout ? 1 : 0) + (unfused_softmax ? MEGATRON_SOFTMAX_UNFUSED_KERNELS : 1);
  double t = hbm_s(g, elems * per_elem) + mem_kernels * g->eff.kernel_overhead_s;
  if (pass == PL_PASS_FWD)
    return t + pl_gemm_time_s(g, dt, m, n, k, c) + pl_gemm_time_s(g, dt, m, kv, n, c);
  /* dP = dO V^T, dV = P^T dO (at d_v); dQ = dS K, dK = dS^T Q (at d_qk) */
  return t + pl_gemm_time_s(g, dt, m, n, kv, c) + pl_gemm_time_s(g, dt, n, kv, m, c) +
         pl_gemm_time_s(g, dt, m, k, n, c) + pl_gemm_time_s(g, dt, n, k, m, c);
}

/* The Mamba-2 mixer part an op is (src/model/mamba.c names them), or -1. */
static int ssd_part(const struct pl_op *op) {
  static const char *const names[PL_SSD_KERNELS] = {
      "ssd_states", "ssd_chunk_state", "ssd_bmm_cb", "ssd_chunk_scan", "ssm_norm", "ssd_gate"};
  if (op->name == NULL || (op->name[0] != 's'))
    return -1;
  for (int i = 0; i < PL_SSD_KERNELS; i++)
    if (strcmp(op->name, names[i]) == 0)
      return i;
  return -1;
}

/* The Mamba-2 mixer's Triton kernels at the GPU file's measured rates
 * (efficiency.mamba_ssm, docs/step-model.md 2.2b): the SSD's matmul parts at
 * a fraction of the BF16 peak on the FLOPs plateau counts for them (16-bit
 * whatever the recipe), held at the GEMMs' sustained fraction like attention
 * (the measurement is a boost-clock burst; the clock, not the kernel, sets
 * it); the memory-bound parts (cumsum and state passing, the RMSNorm, the
 * gate) at a
 * fraction of the HBM bandwidth on their bytes; plus kernel_overhead per
 * launch. -1 when the GPU file gives no rate (the GEMM tile model and the
 * HBM bytes at hbm_fraction then). */
static double ssd_s(const struct pl_gpu *g, const struct pl_op *op, enum pl_pass pass) {
  int part = ssd_part(op);
  if (part < 0)
    return -1;
  bool fwd = pass == PL_PASS_FWD;
  double f = fwd ? g->eff.ssd_fwd_fraction[part] : g->eff.ssd_bwd_fraction[part];
  if (!(f > 0))
    return -1;
  double t;
  if (part == PL_SSD_STATES || part == PL_SSD_NORM || part == PL_SSD_GATE) {
    double bw = g->hbm_bytes_per_s * f;
    t = bw > 0 ? (fwd ? op->fwd_bytes : op->bwd_bytes) / bw : 0;
  } else {
    double sustained = g->eff.gemm_sustained_fraction > 0 ? g->eff.gemm_sustained_fraction : 1.0;
    double rate = g->peak_bf16_flops_per_s * f * sustained * pl_gpu_clock_fraction(g);
    t = rate > 0 ? (fwd ? op->fwd_flops : op->bwd_flops) / rate : 0;
  }
  return t + pl_op_kernels(op, pass) * g->eff.kernel_overhead_s;
}

/* A memory op's pass at a measured fraction f of the HBM bandwidth (a GPU
 * file's quantize, eager-norm or eager-RoPE rate), plus kernel_overhead per
 * launch. */
static double op_at_fraction_s(const struct pl_gpu *g, double f, const struct pl_op *op,
                               enum pl_pass pass) {
  double bw = g->hbm_bytes_per_s * f;
  double bytes = pass == PL_PASS_FWD ? op->fwd_bytes : op->bwd_bytes;
  return (bw > 0 ? bytes / bw : 0) + pl_op_kernels(op, pass) * g->eff.kernel_overhead_s;
}

/* The block's FP8 casts (segments.c fp8_casts) at the GPU file's measured
 * rate of Transformer Engine's quantize kernels for the run's format, a
 * fraction of the HBM bandwidth on the bytes plateau counts for them
 * (docs/step-model.md 2.3e): efficiency.mxfp8_quantize under MXFP8 (read 2 B,
 * write the rowwise and the columnwise copy with their E8M0 scales);
 * efficiency.nvfp4_quantize under NVFP4 (the amax pass, then the cast);
 * efficiency.fp8_current_quantize under per-tensor FP8 with current scaling
 * (current true: Float8CurrentScalingQuantizer's compute_amax, then the cast).
 * Plus kernel_overhead per launch. These kernels reach well under what a plain
 * copy does on Blackwell (TE PR #1628: "the kernel is compute-bound").
 * -1 when the op is not these casts or the file gives no rate for the format
 * (the HBM bytes at hbm_fraction then). */
static double quantize_s(const struct pl_gpu *g, enum pl_dtype dtype, bool current,
                         const struct pl_op *op, enum pl_pass pass) {
  if (op->kind != PL_OP_MEMORY || op->name == NULL || strcmp(op->name, "fp8_casts") != 0)
    return -1;
  double f = dtype == PL_DTYPE_MXFP8              ? g->eff.mxfp8_quantize_fraction
             : dtype == PL_DTYPE_NVFP4            ? g->eff.nvfp4_quantize_fraction
             : dtype == PL_DTYPE_FP8 && current ? g->eff.fp8_current_quantize_fraction
                                                  : 0;
  if (!(f > 0))
    return -1;
  return op_at_fraction_s(g, f, op, pass);
}

/* PyTorch's non-vectorized element-wise kernels (pl_op strided_elems): when an
 * operand is a strided view (a torch.chunk half) or a broadcast, TensorIterator
 * is not contiguous and gpu_kernel_impl_nocast (aten/src/ATen/native/cuda/
 * CUDALoops.cuh) runs launch_legacy_kernel<128, 4> with an offset calculator
 * per element instead of launch_vectorized_kernel. Such a kernel costs about
 * the same per element whatever it moves (Together's B200 profile: unary 4 B
 * and binary 6 B per element within 3 %, gpu file strided_elementwise), so
 * its elements are timed at the file's unary rate, elements x 4 B /
 * (fraction x HBM), in place of its bytes at hbm_fraction. Returns the
 * difference, 0 when the file gives no rate or the op has no such kernels. */
static double strided_extra_s(const struct pl_gpu *g, const struct pl_op *op, enum pl_pass pass) {
  double f = g->eff.strided_elementwise_fraction;
  bool fwd = pass == PL_PASS_FWD;
  double elems = fwd ? op->fwd_strided_elems : op->bwd_strided_elems;
  double bytes = fwd ? op->fwd_strided_bytes : op->bwd_strided_bytes;
  if (!(f > 0) || !(elems > 0) || !(g->hbm_bytes_per_s > 0))
    return 0;
  return elems * PL_STRIDED_UNARY_BYTES / (g->hbm_bytes_per_s * f) - hbm_s(g, bytes);
}

double pl_op_time_s(const struct pl_gpu *g, enum pl_dtype dtype, const struct pl_op *op,
                    enum pl_pass pass) {
  double ssd = ssd_s(g, op, pass);
  if (ssd >= 0)
    return ssd;
  /* the FP8 recipe is not known here: per-tensor FP8 casts at hbm_fraction */
  double quantize = quantize_s(g, dtype, false, op, pass);
  if (quantize >= 0)
    return quantize;
  switch (op->kind) {
  case PL_OP_GEMM: return gemm_op_s(g, dtype, op, pass);
  case PL_OP_ATTENTION: return attention_s(g, dtype, op, pass, ATTN_FLASH, PL_CUDNN_LATEST);
  case PL_OP_MEMORY: break;
  }
  double bytes = pass == PL_PASS_FWD ? op->fwd_bytes : op->bwd_bytes;
  return hbm_s(g, bytes) + strided_extra_s(g, op, pass) +
         pl_op_kernels(op, pass) * g->eff.kernel_overhead_s;
}

/* Cross-entropy as eager PyTorch runs it on fp32 logits (layout.eager_xent:
 * a `logits.float()` before F.cross_entropy, or bf16 autocast, which runs
 * log_softmax and nll_loss in fp32: PyTorch AMP op reference, "CUDA Ops that
 * can autocast to float32"), so beyond the fused
 * kernel of the op list (read bf16 logits, write fp32 softmax; backward read
 * it, write bf16 dlogits: 6 + 6 B per logit) the logits are cast to an fp32
 * copy (read 2, write 4) and log_softmax reads that copy (+2 over reading
 * bf16): +8 B forward; backward nll_loss_backward writes a dense fp32
 * gradient (4), log_softmax_backward reads it (4) and writes fp32 (+2 over
 * bf16), the cast back to bf16 reads it and writes (4 + 2): +16 B. Rows past
 * shared memory add log_softmax's re-reads of its input (+8 B forward) and of
 * its gradient (+4 B backward; constants.h LOG_SOFTMAX_REREAD_*): against the
 * project's H100 trace (tests/data/traces/gt_h100_llama3.2-1b_seq4096,
 * vocab 128256) cunn_SoftMaxForward moved 16 B per logit in 2.80 ms and
 * cunn_SoftMaxBackward 16 B in 2.88 ms, about 3.0 TB/s each (docs/trace.md). */
double sim_microbatch_logits(const struct pl_model *m, const struct pl_layout *l) {
  int64_t tp = l->tp > 0 ? l->tp : 1, cp = l->cp > 0 ? l->cp : 1;
  double tokens =
      (double)(l->mbs > 0 ? l->mbs : 1) * (double)((l->seq > 0 ? l->seq : m->seq_len) / cp);
  return tokens * (double)((m->vocab + tp - 1) / tp);
}

/* layout.hf_shift_copy (Hugging Face's LlamaForCausalLM.forward, transformers
 * 00227283: shift_logits = logits[..., :-1, :].contiguous() after
 * logits.float()): the fp32 logits copied once more, read 4 + write 4 B per
 * logit forward in one kernel; backward the slice's slice_backward (aten
 * TensorShape.cpp: zeros, 4 B, then a copy of the slice, 4 + 4 B) in two
 * kernels; contiguous()'s backward is the gradient itself. */
#define HF_SHIFT_FWD_BYTES 8.0
#define HF_SHIFT_BWD_BYTES 12.0

/* layout.eager_z_loss: OLMo-core's eager cross_entropy_loss with
 * compute_z_loss (allenai/OLMo-core 8c03ca8a2 src/olmo_core/nn/functional/
 * cross_entropy_loss.py: z_squared = logits.logsumexp(-1).pow(2) on the fp32
 * logits beside F.cross_entropy; the official scripts set z_loss_multiplier).
 * ATen's logsumexp (aten/src/ATen/native/ReduceOps.cpp logsumexp_out_impl:
 * maxes = at::amax(self, dims, true); at::sum_out(result, (self -
 * maxes).exp_(), dims)): amax reads 4 B, the subtract of the broadcast maxes
 * reads 4 and writes 4 on PyTorch's non-vectorized path (a broadcast operand,
 * as strided_extra_s), exp_ in place 4 + 4, sum reads 4: 16 B vectorized plus
 * one non-vectorized element-wise op, 4 kernels. Backward (torch/csrc/
 * autograd/FunctionsManual.cpp logsumexp_backward: grad * (self -
 * result).exp()): the subtract of the broadcast result (non-vectorized, 4 +
 * 4), exp 4 + 4, the product with the broadcast per-token gradient
 * (non-vectorized, 4 + 4), and autograd's sum of the logits' two gradients
 * (cross-entropy's and this one; input_buffer.cpp accumulate: 4 + 4 read,
 * 4 written): 20 B vectorized plus two non-vectorized ops, 4 kernels. The
 * per-token pow, mask and sum (1/V of a logit's bytes) are left out. */
#define Z_LOSS_FWD_BYTES 16.0
#define Z_LOSS_BWD_BYTES 20.0
#define Z_LOSS_FWD_BROADCAST_OPS 1
#define Z_LOSS_BWD_BROADCAST_OPS 2
#define Z_LOSS_KERNELS 4

static double eager_z_loss_s(const struct pl_gpu *g, const struct pl_layout *l,
                             const struct pl_model *m, enum pl_pass pass) {
  bool fwd = pass == PL_PASS_FWD;
  double logits = sim_microbatch_logits(m, l);
  double ops = fwd ? Z_LOSS_FWD_BROADCAST_OPS : Z_LOSS_BWD_BROADCAST_OPS;
  /* a broadcast fp32 op at the GPU's strided_elementwise rate per element,
   * as the forward's logits.float() below; 8 B at hbm_fraction without it */
  double f = g->eff.strided_elementwise_fraction;
  double broadcast = f > 0 && g->hbm_bytes_per_s > 0
                         ? logits * PL_STRIDED_UNARY_BYTES / (g->hbm_bytes_per_s * f)
                         : hbm_s(g, logits * 8.0);
  return hbm_s(g, logits * (fwd ? Z_LOSS_FWD_BYTES : Z_LOSS_BWD_BYTES)) + ops * broadcast +
         Z_LOSS_KERNELS * g->eff.kernel_overhead_s;
}

static double eager_xent_extra_s(const struct pl_gpu *g, const struct pl_layout *l,
                                 const struct pl_model *m, enum pl_pass pass) {
  double logits = sim_microbatch_logits(m, l);
  bool fwd = pass == PL_PASS_FWD;
  int64_t tp = l->tp > 0 ? l->tp : 1;
  /* a row (one token's vocabulary shard) of fp32 logits past shared memory:
   * log_softmax's input re-reads (constants.h LOG_SOFTMAX_REREAD_*) */
  double row_bytes = (double)((m->vocab + tp - 1) / tp) * 4.0;
  double reread = row_bytes >= SOFTMAX_SMEM_PER_BLOCK_BYTES
                      ? (fwd ? LOG_SOFTMAX_REREAD_FWD_BYTES : LOG_SOFTMAX_REREAD_BWD_BYTES)
                      : 0.0;
  double t = hbm_s(g, logits * ((fwd ? 8.0 : 16.0) + reread)) + 2 * g->eff.kernel_overhead_s;
  /* the forward's logits.float() changes dtype: PyTorch's unrolled
   * (non-vectorized) copy kernel (autocast.c explains the path), timed per
   * element at the GPU's strided_elementwise rate in place of its 6 B
   * (read 2, write 4, in the +8 above) at hbm_fraction; the trace: 4096 x
   * 128256 logits in 1.62 ms as unrolled_elementwise_kernel, 323 G/s */
  double f = g->eff.strided_elementwise_fraction;
  if (fwd && f > 0 && g->hbm_bytes_per_s > 0)
    t += logits * PL_STRIDED_UNARY_BYTES / (g->hbm_bytes_per_s * f) - hbm_s(g, logits * 6.0);
  if (l->hf_shift_copy)
    t += hbm_s(g, logits * (fwd ? HF_SHIFT_FWD_BYTES : HF_SHIFT_BWD_BYTES)) +
         (fwd ? 1 : 2) * g->eff.kernel_overhead_s;
  if (l->eager_z_loss)
    t += eager_z_loss_s(g, l, m, pass);
  return t;
}

/* Megatron's vocab-parallel cross-entropy run op by op (layout.megatron_xent;
 * Megatron-LM core_r0.8.0 megatron/core/tensor_parallel/cross_entropy.py
 * VocabParallelCrossEntropy, called by language_module.py
 * compute_language_model_loss without cross_entropy_loss_fusion; the same
 * passes in Megatron-LM 2020 megatron/mpu/cross_entropy.py and
 * Megatron-DeepSpeed). Forward, per logit: logits.float() reads 2 B and
 * writes 4, max reads 4, the in-place subtract of the max reads and writes
 * 4 + 4, exp (out= in place) 4 + 4, sum reads 4, div_ by the sum 4 + 4: 38 B
 * in 6 kernels. Backward: mul_ by the loss gradient 4 + 4 and the .float()
 * cast's backward to 16 bits 4 + 2: 14 B in 2 kernels. The op list prices
 * one fused pass (flops.c XENT: 6 + 6 B, one kernel each way), so this adds
 * 32 B and 5 kernels forward, 8 B and 1 kernel backward. Ignored: the
 * per-token gathers and the target mask (1/V of a logit's bytes). */
#define MEGATRON_XENT_FWD_EXTRA_BYTES 32.0
#define MEGATRON_XENT_BWD_EXTRA_BYTES 8.0
#define MEGATRON_XENT_FWD_EXTRA_KERNELS 5
#define MEGATRON_XENT_BWD_EXTRA_KERNELS 1

/* The op list's loss (flops.c: the LM head's cross-entropy pass). */
static bool loss_op(const struct pl_op *op) {
  return op->kind == PL_OP_MEMORY && op->name != NULL && strcmp(op->name, "loss") == 0;
}

/* The loss as PyTorch's eager cross_entropy on an fp32 copy of the logits
 * (eager_xent_extra_s): layout.eager_xent, the flag that also sizes its
 * memory (memory.c), not layout.kernels, which says how the blocks' element-
 * wise ops run. The two part where a run's loss is not its blocks' kind:
 * torchtitan with torch.compile compiled the blocks but not the loss
 * (`pred.float()` then F.cross_entropy, eager, from e8977b0 to 820504e:
 * validate/source_torchtitan.c tt_loss_compiled); llm-foundry's eager MPT
 * blocks end in flash_attn's fused Triton CrossEntropyLoss (mosaicml/
 * llm-foundry 5e85bd62d llmfoundry/models/mpt/modeling_mpt.py
 * ComposerMPTCausalLM: loss_fn default 'fused_crossentropy', no yaml of the
 * benchmarks sets torch_crossentropy); fms-fsdp's eager blocks end in a bf16
 * cross-entropy with no fp32 copy (fms-fsdp ed74fd5 train_utils.py). */
static bool eager_xent_op(const struct pl_layout *l, const struct pl_op *op) {
  return l->eager_xent && !l->te_cross_entropy && loss_op(op);
}

/* layout.logits_shift_copy: the 16-bit logits shifted by a copy before a
 * compiled or fused loss (allenai/OLMo-core e27ba74550 src/olmo_core/train/
 * trainer.py Trainer.get_losses: logits_for_loss = logits[..., :-1,
 * :].contiguous(), run eagerly outside the torch.compile'd
 * cross_entropy_loss (compile_loss=True in the official scripts' trainer
 * config, internal/experiment.py); the logits are bf16, FSDP2's param_dtype).
 * Forward one copy kernel, read 2 + write 2 B per logit; backward the slice's
 * slice_backward (aten TensorShape.cpp: zeros 2 B, then a copy of the slice,
 * 2 + 2 B) in two kernels, as HF_SHIFT_* for fp32. Not with the eager loss,
 * whose fp32 shift copy is layout.hf_shift_copy. */
#define SHIFT_COPY_FWD_BYTES 4.0
#define SHIFT_COPY_BWD_BYTES 6.0

static bool shift_copy_op(const struct pl_layout *l, const struct pl_op *op) {
  return l->logits_shift_copy && !l->eager_xent && loss_op(op);
}

/* with layout.logits_fp32 the shifted logits are fp32: HF_SHIFT_* (4 B per element) */
static double shift_copy_s(const struct pl_gpu *g, const struct pl_layout *l,
                           const struct pl_model *m, enum pl_pass pass) {
  bool fwd = pass == PL_PASS_FWD;
  double bytes = l->logits_fp32 ? (fwd ? HF_SHIFT_FWD_BYTES : HF_SHIFT_BWD_BYTES)
                                : (fwd ? SHIFT_COPY_FWD_BYTES : SHIFT_COPY_BWD_BYTES);
  return hbm_s(g, sim_microbatch_logits(m, l) * bytes) + (fwd ? 1 : 2) * g->eff.kernel_overhead_s;
}

/* layout.logits_fp32: the model hands the loss fp32 logits and a fused loss
 * runs on them, as OLMo-core with fused_loss=True before compile_loss
 * (allenai/OLMo-core 41400c46f: the 7B, 8B and 13B official scripts set
 * fused_loss=True since a69f0bd1c / db448c86d, 2024-09-08;
 * nn/transformer/model.py Transformer.forward returns
 * `self.w_out(h).float()`; train/trainer.py get_losses shifts the fp32
 * logits with `.contiguous()` (layout.logits_shift_copy, at 4 B here) and
 * calls nn/functional/cross_entropy_loss.py fused_cross_entropy_loss, the
 * Triton kernels of olmo_core/triton/cross_entropy_loss.py, adapted from
 * flash-attn's ops/triton/cross_entropy.py). Per logit:
 *  - the cast: forward `.float()` reads 2 and writes 4 B on PyTorch's
 *    unrolled (non-vectorized) copy kernel, timed at the GPU's
 *    strided_elementwise rate as eager_xent_extra_s times it; its backward
 *    (ToCopyBackward0) reads the fp32 gradient and writes bf16, 4 + 2 B;
 *    one kernel each way;
 *  - the loss: cross_entropy_fwd_kernel reads each fp32 row once (an online
 *    softmax, with the z-loss lse_square_scale * lse^2 in the same kernel)
 *    and writes per-row loss and lse: 4 B, where the op list's fused pass
 *    (flops.c XENT) reads bf16 and writes fp32, 6 B; cross_entropy_bwd_kernel
 *    reads the fp32 logits and writes an fp32 dlogits (torch.empty_like,
 *    inplace_backward=False), 4 + 4 B where XENT has 6.
 * So forward the cast and -2 B, backward 6 + 2 B and one kernel. Memory: the
 * fp32 logits and their copy are not counted (time only). */
#define LOGITS_FP32_CAST_FWD_BYTES 6.0 /* bf16 read 2, fp32 write 4 */
#define LOGITS_FP32_CAST_BWD_BYTES 6.0 /* fp32 read 4, bf16 write 2 */
#define LOGITS_FP32_LOSS_FWD_DELTA_BYTES (-2.0)
#define LOGITS_FP32_LOSS_BWD_DELTA_BYTES 2.0

static bool logits_fp32_op(const struct pl_layout *l, const struct pl_op *op) {
  return l->logits_fp32 && !l->eager_xent && !l->megatron_xent && loss_op(op);
}

static double logits_fp32_s(const struct pl_gpu *g, const struct pl_layout *l,
                            const struct pl_model *m, enum pl_pass pass) {
  double logits = sim_microbatch_logits(m, l);
  if (pass != PL_PASS_FWD)
    return hbm_s(g, logits * (LOGITS_FP32_CAST_BWD_BYTES + LOGITS_FP32_LOSS_BWD_DELTA_BYTES)) +
           g->eff.kernel_overhead_s;
  double f = g->eff.strided_elementwise_fraction;
  double cast = f > 0 && g->hbm_bytes_per_s > 0
                    ? logits * PL_STRIDED_UNARY_BYTES / (g->hbm_bytes_per_s * f)
                    : hbm_s(g, logits * LOGITS_FP32_CAST_FWD_BYTES);
  return cast + hbm_s(g, logits * LOGITS_FP32_LOSS_FWD_DELTA_BYTES) + g->eff.kernel_overhead_s;
}

static bool megatron_xent_op(const struct pl_layout *l, const struct pl_op *op) {
  return l->megatron_xent && !l->te_cross_entropy && l->kernels != PL_KERNELS_UNFUSED &&
         !l->eager_xent && loss_op(op);
}

static int megatron_xent_extra_kernels(enum pl_pass pass) {
  return pass == PL_PASS_FWD ? MEGATRON_XENT_FWD_EXTRA_KERNELS : MEGATRON_XENT_BWD_EXTRA_KERNELS;
}

static double megatron_xent_extra_s(const struct pl_gpu *g, const struct pl_layout *l,
                                    const struct pl_model *m, enum pl_pass pass) {
  double bytes =
      pass == PL_PASS_FWD ? MEGATRON_XENT_FWD_EXTRA_BYTES : MEGATRON_XENT_BWD_EXTRA_BYTES;
  return hbm_s(g, sim_microbatch_logits(m, l) * bytes) +
         megatron_xent_extra_kernels(pass) * g->eff.kernel_overhead_s;
}

/* Kernels an op launches as it runs (pl_op_run_time_s's variants): eager
 * attention as baddbmm, the softmax, dropout and bmm (backward: four GEMMs
 * and the two element-wise kernels; the softmax 5 kernels each way where
 * Megatron's fused kernel refuses the shape, layout.megatron_softmax); eager
 * cross-entropy's two extra casts. */
double sim_op_run_kernels(const struct pl_layout *l, const struct pl_model *m,
                          const struct pl_op *op, enum pl_pass pass) {
  if (eager_xent_op(l, op))
    return pl_op_kernels(op, pass) + 2 + (l->eager_z_loss ? Z_LOSS_KERNELS : 0);
  if (megatron_xent_op(l, op))
    return pl_op_kernels(op, pass) + megatron_xent_extra_kernels(pass) +
           (shift_copy_op(l, op) ? (pass == PL_PASS_FWD ? 1 : 2) : 0);
  if (shift_copy_op(l, op) || logits_fp32_op(l, op))
    return pl_op_kernels(op, pass) + (shift_copy_op(l, op) ? (pass == PL_PASS_FWD ? 1 : 2) : 0) +
           (logits_fp32_op(l, op) ? 1 : 0);
  if (op->kind == PL_OP_ATTENTION && l->eager_attention)
    return (pass == PL_PASS_FWD ? 2 : 4) + (m->dropout ? 1 : 0) +
           (unfused_softmax(l, op) ? MEGATRON_SOFTMAX_UNFUSED_KERNELS : 1);
  return pl_op_kernels(op, pass);
}

/* cuBLAS GEMM calls an op makes on the host: one forward and two backward
 * (dgrad, wgrad) per GEMM of its count. A grouped op's count is separate
 * calls: Megatron-Core's TEGroupedMLP is Transformer Engine's GroupedLinear
 * (megatron/core/extensions/transformer_engine.py TEGroupedLinear,
 * core_v0.15.0 .. core_v0.16.0), whose general_grouped_gemm runs
 * nvte_multi_tensor_gemm: one cublas_gemm per local expert, each creating the
 * cuBLASLt layouts and descriptor, querying cublasLtMatmulAlgoGetHeuristic and
 * launching cublasLtMatmul (NVIDIA/TransformerEngine
 * transformer_engine/common/gemm/cublaslt_gemm.cu multi_stream_cublas_gemm,
 * v2.9 .. v2.17.1; CUTLASS's grouped GEMM only on Hopper with
 * NVTE_USE_CUTLASS_GROUPED_GEMM=1, the cuBLASLt grouped path from v2.17 only
 * with NVTE_GROUPED_LINEAR_USE_FUSED_GROUPED_GEMM=1, both off by default). */
double sim_op_run_gemms(const struct pl_op *op, enum pl_pass pass) {
  if (op->kind != PL_OP_GEMM)
    return 0;
  double calls = op->count > 1 && !op->batched ? (double)op->count : 1.0;
  return calls * (pass == PL_PASS_FWD ? 1.0 : 2.0);
}

/* Kernels Transformer Engine launches one by one from C++ to quantize a
 * grouped expert GEMM's operand, one pass of it: GroupedLinear splits the
 * input (forward) and the output gradient (backward) per local expert and
 * quantizes them with tex.split_quantize (transformer_engine/pytorch/module/
 * grouped_linear.py _GroupedLinear.forward/backward), whose
 * multi_tensor_quantize_impl has one fused kernel for FP8 delayed scaling
 * only (nvte_multi_cast_transpose) and otherwise "Quantize kernels
 * individually": quantizer->quantize per split (transformer_engine/pytorch/
 * csrc/extensions/cast.cpp, TE v2.6 .. v2.18). Per split
 * (transformer_engine/pytorch/csrc/quantizer.cpp, v2.12):
 * Float8CurrentScalingQuantizer nvte_compute_amax_with_config,
 * nvte_compute_scale_from_amax and nvte_quantize_v2 (3 kernels);
 * MXFP8Quantizer and Float8BlockQuantizer one nvte_quantize_v2 (rowwise and
 * columnwise copies in one kernel). NVFP4 has grouped kernels
 * (split_quantize_nvfp4_impl) and torchao's tensorwise recipe no
 * GroupedLinear: not counted. Their GPU time is in the fp8_casts op. */
double sim_op_split_quantize_kernels(const struct pl_layout *l, const struct pl_op *op,
                                     enum pl_pass pass) {
  (void)pass; /* forward: the input; backward: the output gradient; one split each per expert */
  if (op->kind != PL_OP_GEMM || op->count <= 1 || op->batched || op->high_precision)
    return 0;
  double per_split = 0;
  if (l->dtype == PL_DTYPE_MXFP8)
    per_split = 1;
  else if (l->dtype == PL_DTYPE_FP8 && l->fp8_recipe == PL_FP8_RECIPE_CURRENT)
    per_split = 3;
  else if (l->dtype == PL_DTYPE_FP8 && l->fp8_recipe == PL_FP8_RECIPE_BLOCKWISE)
    per_split = 1;
  return per_split * (double)op->count;
}

/* MXFP8 attention (layout.fp8_attention: Megatron-Core's fp8_dot_product_attention
 * under the MXFP8 recipe, TE's DotProductAttention on cuDNN's MXFP8 SDPA): the
 * BF16 cuDNN kernel's time scaled by the GPU file's published MXFP8/BF16 time
 * ratio for the model's head shape (latent attention's 192/128 heads or head
 * dims <= 128; docs/step-model.md 2.2 "MXFP8 attention"). 1 where the file
 * gives none (pl_layout_resolve refuses the layout there). */
double pl_mxfp8_attention_ratio(const struct pl_gpu *g, const struct pl_model *m,
                                enum pl_pass pass) {
  const struct pl_gpu_efficiency *e = &g->eff;
  bool mla = m != NULL && m->v_head_dim > 0 && m->v_head_dim != m->head_dim;
  bool fwd = pass == PL_PASS_FWD;
  double r = mla ? (fwd ? e->attn_cudnn_mxfp8_mla_fwd_ratio : e->attn_cudnn_mxfp8_mla_bwd_ratio)
                 : (fwd ? e->attn_cudnn_mxfp8_fwd_ratio : e->attn_cudnn_mxfp8_bwd_ratio);
  return r > 0 ? r : 1.0;
}

/* The fused grouped MLP's cuDNN kernels under a cluster margin
 * (layout.cudnn_cluster_margin, cuDNN frontend's CUDNNFE_CLUSTER_OVERLAP_MARGIN,
 * which Megatron-Bridge sets so the all-to-all finds free SMs beside them):
 * grouped_gemm_glu, grouped_gemm_quant and grouped_gemm_dglu
 * (python/cudnn/grouped_gemm/<kernel>/api.py compile(), v1.23.0) launch a
 * persistent grid of get_max_active_clusters(2) - margin clusters (their
 * default mma_tiler_mn (256, 256) pairs two SMs, cluster_shape_mn (2, 1);
 * Transformer Engine v2.16 ops/fused/{forward,backward}_grouped_mlp.py passes
 * no tiler), so with C = SMs / 2 clusters the experts' forward and
 * input-gradient GEMMs take C / (C - margin) of their whole-GPU time. The
 * weight-gradient kernel (grouped_gemm_wgrad, v1.23.0) keeps the whole grid:
 * of a backward, only the dgrad share of gemm_op_s's dgrad + wgrad grows. */
static double cluster_margin_s(const struct pl_gpu *g, const struct pl_layout *l,
                               const struct pl_op *op, enum pl_pass pass, double t) {
  if (!l->fused_grouped_mlp || l->cudnn_cluster_margin <= 0 || op->kind != PL_OP_GEMM ||
      op->name == NULL || strncmp(op->name, "expert_fc", 9) != 0 ||
      l->cudnn_cluster_margin >= g->sm_count / 2)
    return t;
  double clusters = (double)(g->sm_count / 2);
  double f = clusters / (clusters - (double)l->cudnn_cluster_margin);
  if (pass == PL_PASS_FWD)
    return t * f;
  double dgrad = pl_gemm_time_s(g, l->dtype, op->m, op->k, op->n, op->count);
  double wgrad = pl_gemm_time_s(g, l->dtype, op->k, op->n, op->m, op->count);
  double share = dgrad + wgrad > 0 ? dgrad / (dgrad + wgrad) : 0;
  return t * (1.0 + share * (f - 1.0));
}

/* The block's and the head's norms in eager PyTorch (layout.kernels unfused)
 * at the GPU file's measured rate of PyTorch's own norm kernels, a fraction
 * of the HBM bandwidth on the bytes plateau counts for them (docs/step-model.md
 * 2.3b): a norm is a row reduction then a scale, and its kernels reach well
 * under what a streaming element-wise kernel does (data/ground-truth/h100/
 * memory.csv: F.layer_norm 0.51-0.57 of the H100's 3.35 TB/s, HF's LlamaRMSNorm
 * chain 0.62-0.70 on its 36 B per element, add/mul 0.80-0.89).
 * LayerNorm models (efficiency.layer_norm_eager): the norm ops, one
 * native_layer_norm kernel each, and layernorm_eager, the backward's second
 * read of dY and X (segments.c unfused_kernels). RMSNorm models (efficiency.rms_norm_eager):
 * the norm ops and rmsnorm_eager, the extra passes of the same chain
 * (segments.c unfused_kernels), priced together as the measurement timed them.
 * The backward is priced at the forward's measured fraction (no backward was
 * measured). Plus kernel_overhead per launch.
 * Compiled RMSNorm models (layout.inductor_norms, fused kernels): the norm ops,
 * one Inductor-generated Triton reduction each way on the fused list's 4 / 6 B
 * per element, at efficiency.rms_norm_compiled: torch.compile's RMSNorm
 * forward as published (h100: Dao-AILab/quack's H100 benchmark, PyTorch 2.7.1,
 * 0.54-0.69 of the HBM bandwidth at widths 2048-16384, median 0.617;
 * docs/step-model.md 2.3b), the backward at the same fraction (none published
 * at these widths). -1 when the op is no norm, the run's kernels are fused and
 * not compiled norms (Transformer Engine, Apex: other kernels) or the file
 * gives no rate (the HBM bytes at hbm_fraction then). */
static double eager_norm_s(const struct pl_gpu *g, const struct pl_layout *l,
                           const struct pl_model *m, const struct pl_op *op, enum pl_pass pass) {
  static const char *const norms[] = {"norm1",          "norm2",         "final_norm",
                                      "qk_norm",        "mtp_final_norm", "rmsnorm_eager",
                                      "layernorm_eager"};
  if (op->kind != PL_OP_MEMORY || op->name == NULL)
    return -1;
  if (l->kernels != PL_KERNELS_UNFUSED) {
    /* rmsnorm_eager and layernorm_eager are not in a fused run's op list */
    bool compiled_norm = false;
    for (size_t i = 0; i < 5; i++)
      compiled_norm = compiled_norm || strcmp(op->name, norms[i]) == 0;
    if (!l->inductor_norms || m->norm != PL_NORM_RMS || !compiled_norm ||
        !(g->eff.rms_norm_compiled_fraction > 0))
      return -1;
    return op_at_fraction_s(g, g->eff.rms_norm_compiled_fraction, op, pass);
  }
  /* layout.fused_norm: the RMSNorm is one Triton kernel each way (segments.c
   * unfused_kernels), priced as the other fused memory ops at hbm_fraction */
  if (l->fused_norm && m->norm == PL_NORM_RMS)
    return -1;
  bool is_norm = false;
  for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++)
    is_norm = is_norm || strcmp(op->name, norms[i]) == 0;
  double f = m->norm == PL_NORM_RMS ? g->eff.rms_norm_eager_fraction
                                    : g->eff.layer_norm_eager_fraction;
  if (!is_norm || !(f > 0))
    return -1;
  return op_at_fraction_s(g, f, op, pass);
}

/* HF's eager RoPE (layout.kernels unfused, rotary models that run neither
 * fms's nor torchtitan's complex RoPE nor Megatron's unfused path): the op
 * list's rope and rope_eager, the rest of the same apply_rotary_pos_emb chain
 * (segments.c unfused_kernels: 20 B forward, 30 B backward per q and k
 * element), at the GPU file's measured fraction of the HBM bandwidth for
 * that chain, forward (efficiency.rope_eager) and backward
 * (efficiency.rope_eager_bwd): its multiplies broadcast cos and sin over the
 * heads of a transposed q and its neg and cat read strided halves, so its
 * kernels take PyTorch's non-vectorized element-wise path and stay well under
 * a streaming copy (docs/step-model.md 2.3b). Plus kernel_overhead per
 * launch, as eager_norm_s. -1 when the op is not that chain or the file gives
 * no rate (the bytes at hbm_fraction then). */
static double eager_rope_s(const struct pl_gpu *g, const struct pl_layout *l,
                           const struct pl_model *m, const struct pl_op *op, enum pl_pass pass) {
  if (l->kernels != PL_KERNELS_UNFUSED || op->kind != PL_OP_MEMORY || op->name == NULL ||
      m->pos != PL_POS_ROTARY || l->rope_complex || l->fms_rope || m->rope_yarn ||
      m->kv_lora_rank > 0)
    return -1;
  if (strcmp(op->name, "rope") != 0 && strcmp(op->name, "rope_eager") != 0)
    return -1;
  double f = pass == PL_PASS_FWD ? g->eff.rope_eager_fraction : g->eff.rope_eager_bwd_fraction;
  if (!(f > 0))
    return -1;
  return op_at_fraction_s(g, f, op, pass);
}

/* cuDNN's FP8/MXFP8 SDPA backward with a sliding window runs the whole causal
 * triangle: NVIDIA's published cuDNN 9.22 GPT-OSS SDPA benchmark (cudnn-frontend
 * benchmark/sdpa_benchmark_training/results/gpt_oss/ @ fb682ce, the GB200 and
 * GB300 files; window 128, head dim 64, 256 heads x sequences; copied as
 * data/published/cudnn-frontend/sdpa_gpt_oss_gb200.csv and _gb300.csv) times the
 * MXFP8 backward at 4k, 8k, 16k and 32k keys as 1.87, 6.65, 25.0, 96.9 ms on GB300 (2.08, 7.43, 27.9, 108.4 on GB200): x3.6 to
 * x3.9 per doubling, the s^2 of full causal attention, while its BF16 backward
 * (0.44, 0.86, 1.71, 3.45 ms) and both forwards grow as s. So the op is timed as
 * the causal attention of its queries over all of their keys (n = m; the counted
 * FLOPs scaled to match), then by the MXFP8 time ratio as any MXFP8 attention. */
static const struct pl_op *attn_fp8_window_bwd(const struct pl_op *op, struct pl_op *full) {
  *full = *op;
  double scale = (double)op->m / (double)op->n;
  full->n = op->m;
  full->fwd_flops *= scale;
  full->bwd_flops *= scale;
  return full;
}

/* Two or three GEMMs of n_i output columns each (n_i = parts[i], count c
 * each) over the one fused GEMM of n = sum n_i columns: forward m x n_i x k,
 * backward each dgrad (m x k from n_i) and wgrad (k x n_i over m). */
static double split_gemm_ratio(const struct pl_gpu *g, enum pl_dtype dt, const struct pl_op *op,
                               const int64_t *parts, int n_parts, enum pl_pass pass) {
  int64_t c = op->count;
  bool fwd = pass == PL_PASS_FWD;
  double one = fwd ? pl_gemm_fast_acc_time_s(g, dt, op->m, op->n, op->k, c)
                   : pl_gemm_time_s(g, dt, op->m, op->k, op->n, c) +
                         pl_gemm_time_s(g, dt, op->k, op->n, op->m, c);
  double split = 0;
  for (int i = 0; i < n_parts; i++)
    split += fwd ? pl_gemm_fast_acc_time_s(g, dt, op->m, parts[i], op->k, c)
                 : pl_gemm_time_s(g, dt, op->m, op->k, parts[i], c) +
                       pl_gemm_time_s(g, dt, op->k, parts[i], op->m, c);
  return one > 0 ? split / one : 1.0;
}

/* layout.separate_linears (torchtitan's Attention: wq, wk and wv, and its
 * FeedForward: w1 and w3, are separate nn.Linear modules,
 * models/llama3/model/model.py at 820504e; 9dec370 models/llama/model.py):
 * the fused QKV op's time scaled by its three GEMMs over the one (q_w, kv_w,
 * kv_w output columns) and a gated MLP's fc1 by its two (w1, w3: half the
 * columns each), forward, dgrad and wgrad, so the narrow k and v GEMMs
 * (kv_heads x head_dim / tp columns) pay their own tile and wave
 * quantization and each dgrad writes the whole m x k input gradient. 1 for
 * any other op, and for a recomputed part (recompute ops: torchtitan's wk or
 * w3 alone, already one GEMM). */
static double separate_linears_ratio(const struct pl_gpu *g, const struct pl_layout *l,
                                     const struct pl_model *m, const struct pl_op *op,
                                     enum pl_pass pass) {
  if (!l->separate_linears || op->kind != PL_OP_GEMM || l->tp <= 0)
    return 1.0;
  if (strcmp(op->name, "qkv") == 0 && m->kv_heads > 0 && m->head_dim > 0) {
    int64_t kv = m->kv_heads / l->tp * m->head_dim, q = m->heads / l->tp * m->head_dim;
    int64_t parts[3] = {q, kv, kv};
    return q > 0 && kv > 0 && op->n == q + 2 * kv
               ? split_gemm_ratio(g, l->dtype, op, parts, 3, pass)
               : 1.0;
  }
  if (strcmp(op->name, "fc1") == 0 && m->mlp == PL_MLP_SWIGLU) {
    int64_t f = m->ffn_hidden / l->tp, parts[2] = {f, f};
    return f > 0 && op->n == 2 * f ? split_gemm_ratio(g, l->dtype, op, parts, 2, pass) : 1.0;
  }
  return 1.0;
}

double pl_op_run_time_s(const struct pl_gpu *g, const struct pl_layout *l, const struct pl_model *m,
                        const struct pl_op *op, enum pl_pass pass) {
  double quantize = quantize_s(g, l->dtype, l->fp8_recipe == PL_FP8_RECIPE_CURRENT, op, pass);
  if (quantize >= 0)
    return quantize;
  double norm = eager_norm_s(g, l, m, op, pass);
  if (norm >= 0)
    return norm;
  double rope = eager_rope_s(g, l, m, op, pass);
  if (rope >= 0)
    return rope;
  if (eager_xent_op(l, op))
    return pl_op_time_s(g, l->dtype, op, pass) + eager_xent_extra_s(g, l, m, pass);
  if (megatron_xent_op(l, op))
    return pl_op_time_s(g, l->dtype, op, pass) + megatron_xent_extra_s(g, l, m, pass) +
           (shift_copy_op(l, op) ? shift_copy_s(g, l, m, pass) : 0.0);
  if (shift_copy_op(l, op) || logits_fp32_op(l, op))
    return pl_op_time_s(g, l->dtype, op, pass) +
           (shift_copy_op(l, op) ? shift_copy_s(g, l, m, pass) : 0.0) +
           (logits_fp32_op(l, op) ? logits_fp32_s(g, l, m, pass) : 0.0);
  if (op->kind == PL_OP_ATTENTION && l->eager_attention)
    return eager_attention_s(g, l->dtype, op, pass, m->dropout, m->pos == PL_POS_ALIBI,
                             unfused_softmax(l, op));
  if (op->kind == PL_OP_ATTENTION && l->attention_triton)
    return attention_s(g, l->dtype, op, pass, ATTN_TRITON, PL_CUDNN_LATEST);
  if (op->kind == PL_OP_ATTENTION && l->attention_cudnn) {
    struct pl_op full;
    if (l->fp8_attention && pass == PL_PASS_BWD && op->n < op->m)
      op = attn_fp8_window_bwd(op, &full);
    double t = attention_s(g, l->dtype, op, pass, ATTN_CUDNN, l->cudnn_version);
    return l->fp8_attention ? t * pl_mxfp8_attention_ratio(g, m, pass) : t;
  }
  /* a GEMM the framework leaves in 16-bit under an FP8/FP4 recipe (the LM head with
   * layout.head_16bit: Megatron-Core's output layer is tensor_parallel.ColumnParallelLinear) */
  if (op->kind == PL_OP_GEMM && op->high_precision)
    return pl_op_time_s(g, PL_DTYPE_BF16, op, pass);
  double t = pl_op_time_s(g, l->dtype, op, pass) * separate_linears_ratio(g, l, m, op, pass);
  return sim_ub_margin_s(g, l, op, pass, cluster_margin_s(g, l, op, pass, t));
}

/* Whether the run replays op from a CUDA graph (layout.cuda_graph_scopes,
 * layout.h enum pl_cuda_graph_scope): by the op's name, the attention part of
 * a block (_forward_attention) under attn, the pre-MLP norm, router, top-k and
 * shared expert of a MoE block under moe_router (pl_model.experts > 0), every
 * op under full_iteration. A graph replay is one launch per layer and pass,
 * not counted. */
bool sim_op_graphed(const struct pl_layout *l, const struct pl_model *m, const struct pl_op *op) {
  static const char *const attn_ops[] = {"norm1", "qkv",       "qk_norm", "q",     "q_down",
                                         "q_up",  "kv_down",   "kv_up",   "mla_norms", "rope",
                                         "attn",  "attn_full", "proj",    "resid1"};
  static const char *const router_ops[] = {"norm2",         "router",      "router_fp32_casts",
                                           "router_random", "router_topk", "router_aux_loss",
                                           "shared_fc1",    "shared_act",  "shared_fc2"};
  static const char *const mamba_ops[] = {
      "norm1",          "in_proj",  "conv1d",     "ssd_states", "ssd_gate", "ssd_chunk_state",
      "ssd_bmm_cb",     "ssd_chunk_scan", "ssm_norm", "ssm_layout", "out_proj", "resid1"};
  uint32_t s = l->cuda_graph_scopes;
  if (s & PL_CGS_FULL_ITERATION)
    return true;
  if ((s & PL_CGS_MAMBA) && m != NULL && pl_model_is_hybrid(m))
    for (size_t i = 0; i < sizeof mamba_ops / sizeof mamba_ops[0]; i++)
      if (strcmp(op->name, mamba_ops[i]) == 0)
        return true;
  if (s & PL_CGS_ATTN)
    for (size_t i = 0; i < sizeof attn_ops / sizeof attn_ops[0]; i++)
      if (strcmp(op->name, attn_ops[i]) == 0)
        return true;
  /* mlp (CudaGraphScope.mlp, "dense layers only"; transformer_layer.py
   * _te_cuda_graph_capture: not is_moe_layer and mlp in scope -> _forward_mlp,
   * core_v0.16.0): the dense MLP's ops; norm2 and resid2 are shared with the
   * MoE blocks in plateau's average block, so they count only for a model
   * with no MoE block (pl_model_moe_layers 0) */
  if (s & PL_CGS_MLP) {
    static const char *const mlp_ops[] = {"fc1", "swiglu", "gelu", "fc2"};
    for (size_t i = 0; i < sizeof mlp_ops / sizeof mlp_ops[0]; i++)
      if (strcmp(op->name, mlp_ops[i]) == 0)
        return true;
    if (m != NULL && pl_model_moe_layers(m) == 0 &&
        (strcmp(op->name, "norm2") == 0 || strcmp(op->name, "resid2") == 0))
      return true;
  }
  if ((s & PL_CGS_MOE_ROUTER) && m != NULL && m->experts > 0)
    for (size_t i = 0; i < sizeof router_ops / sizeof router_ops[0]; i++)
      if (strcmp(op->name, router_ops[i]) == 0)
        return true;
  /* moe_preprocess: MoELayer.preprocess, the dispatcher's dispatch_preprocess,
   * is inside the graph (moe_layer.py, moe_utils.py
   * maybe_skip_or_early_return_by_cudagraph, core_v0.16.0); under the alltoall
   * dispatcher that is its preprocess sums (flops.c MOE_PREPROCESS; the counts'
   * copies run after the graph, at before_ep_alltoall) and the permutation
   * (moe_utils.py permute); the flex dispatcher permutes after its dispatch */
  if ((s & PL_CGS_MOE_PREPROCESS) &&
      (strcmp(op->name, "moe_preprocess") == 0 ||
       (l->dispatch == PL_MOE_ALLTOALL && strcmp(op->name, "permute") == 0)))
    return true;
  return false;
}
