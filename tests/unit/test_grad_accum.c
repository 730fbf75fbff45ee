/* test_grad_accum.c: Megatron-Core's gradient accumulation fusion
 * (layout.grad_accum_fusion, src/sim/grad_accum.c) against hand-derived
 * numbers, on the a100-80g GPU file (HBM 2039 GB/s x 0.88). */
#include <plateau/plateau.h>

#include <math.h>
#include <string.h>

#include "check.h"
#include "run_fixture.h"
#include "model_fixture.h"
#include "sim/sim_int.h"

#define EXACT 1e-12

static struct pl_gpu a100;


/* The block's 12,847,104 parameters (4 h^2 + 3 h f + 2 h) are its GEMM
 * weights, qkv 1024 x 3072 = 3,145,728, proj 1024 x 1024 = 1,048,576, fc1
 * 1024 x 5632 = 5,767,168, fc2 2816 x 1024 = 2,883,584 (12,845,056), and its
 * two RMSNorm weights (2 x 1024). Unfused: the add pass moves 10 B of every
 * parameter, 128,471,040 B, in 6 launches (2 norms, qkv, proj, fc1, fc2).
 * Fused: the weights accumulate in their wgrad GEMMs, so the pass moves the
 * norms' 10 x 2048 = 20,480 B in 2 launches, and the four GEMMs (not the
 * attention core) carry wgrad_accum_fp32. The head (untied: final norm
 * 1024 + output 1024 x 32000): fused, 10 x 1024 = 10,240 B in 1 launch. The
 * embedding (32000 x 1024, a lookup: no GEMM) keeps its 327,680,000 B. */
static void test_fused_bytes(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *acc = find(ops, n, "grad_accum");
  CHECK(acc != NULL);
  if (acc != NULL) {
    CHECK_NEAR_REL(acc->bwd_bytes, 128471040.0, EXACT);
    CHECK_EQ_INT(pl_op_kernels(acc, PL_PASS_BWD), 6);
  }
  const struct pl_op *fc1 = find(ops, n, "fc1");
  CHECK(fc1 != NULL && !fc1->wgrad_accum_fp32);
  run.layout.grad_accum_fusion = true;
  n = pl_sim_segment_ops(&run, 1, ops);
  acc = find(ops, n, "grad_accum");
  CHECK(acc != NULL);
  if (acc != NULL) {
    CHECK_NEAR_REL(acc->bwd_bytes, 20480.0, EXACT);
    CHECK_EQ_INT(pl_op_kernels(acc, PL_PASS_BWD), 2);
  }
  const char *gemms[] = {"qkv", "proj", "fc1", "fc2"};
  for (int i = 0; i < 4; i++) {
    const struct pl_op *g = find(ops, n, gemms[i]);
    CHECK(g != NULL && g->wgrad_accum_fp32);
  }
  const struct pl_op *attn = find(ops, n, "attn");
  CHECK(attn != NULL && !attn->wgrad_accum_fp32);
  n = pl_sim_segment_ops(&run, 2, ops);
  acc = find(ops, n, "grad_accum");
  CHECK(acc != NULL && fabs(acc->bwd_bytes - 10240.0) < 1e-6);
  CHECK(acc != NULL && pl_op_kernels(acc, PL_PASS_BWD) == 1);
  n = pl_sim_segment_ops(&run, 0, ops);
  acc = find(ops, n, "grad_accum");
  CHECK(acc != NULL && fabs(acc->bwd_bytes - 327680000.0) < 1e-3);
  /* zero2/zero3 have no add pass: the fusion changes nothing there */
  run.layout.shard = PL_SHARD_ZERO2;
  n = pl_sim_segment_ops(&run, 1, ops);
  CHECK(find(ops, n, "grad_accum") == NULL);
}

/* Tied embeddings: the head's GEMM accumulates into the table's main_grad,
 * but the table is the embedding segment's parameter, so the head keeps only
 * its final norm's 1024 x 10 B; the embedding keeps its whole add. */
static void test_tied_head(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.model.tied_embeddings = true;
  run.layout.grad_accum_fusion = true;
  int n = pl_sim_segment_ops(&run, 2, ops);
  const struct pl_op *acc = find(ops, n, "grad_accum");
  CHECK(acc != NULL && fabs(acc->bwd_bytes - 10240.0) < 1e-6);
  const struct pl_op *head = find(ops, n, "lm_head");
  CHECK(head != NULL && head->wgrad_accum_fp32);
  n = pl_sim_segment_ops(&run, 0, ops);
  acc = find(ops, n, "grad_accum");
  CHECK(acc != NULL && fabs(acc->bwd_bytes - 327680000.0) < 1e-3);
}

/* The fused wgrad GEMM reads and writes its fp32 output: 8 B per element
 * instead of 2. A memory-bound backward, m 64 tokens, n = k = 4096: the
 * wgrad (4096 x 4096, inner 64) does 2.15 GFLOP (8.8 us at the A100's rate)
 * against 2 x (4096 x 64 + 64 x 4096) + 2 x 4096^2 = 34.6 MB (19.3 us), so
 * the extra 6 x 4096^2 = 100,663,296 B add exactly 100,663,296 /
 * (2039e9 x 0.88) = 56.10 us; the dgrad (64 x 4096, inner 4096) is
 * unchanged. */
static void test_wgrad_epilogue(void) {
  struct pl_op op = {.name = "fc2",
                     .kind = PL_OP_GEMM,
                     .m = 64,
                     .n = 4096,
                     .k = 4096,
                     .count = 1,
                     .fwd_flops = 2.0 * 64 * 4096 * 4096,
                     .bwd_flops = 4.0 * 64 * 4096 * 4096};
  double plain = pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_BWD);
  double fwd = pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD);
  op.wgrad_accum_fp32 = true;
  double fused = pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_BWD);
  CHECK_NEAR_REL(fused - plain, 6.0 * 4096 * 4096 / (2039e9 * 0.88), 1e-9);
  CHECK_NEAR_REL(pl_op_time_s(&a100, PL_DTYPE_BF16, &op, PL_PASS_FWD), fwd, EXACT);
}

int main(void) {
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_gpu_load("a100-80g", &a100, &d), PL_OK, dp);
  CHECK_NEAR_REL(a100.hbm_bytes_per_s * a100.eff.hbm_fraction, 2039e9 * 0.88, 1e-9);
  test_fused_bytes();
  test_tied_head();
  test_wgrad_epilogue();
  return check_finish();
}
