/* test_grad_buffer.c: Megatron-Core DDP's per-step passes over its gradient
 * buffer (layout.grad_buffer_passes, src/sim/lower_dp.c
 * sim_grad_buffer_passes_s, constants.h GRAD_BUFFER_ZERO_PASSES,
 * GRAD_NAN_CHECK_PASSES; layout.no_grad_nan_check) against
 * hand-derived numbers, on the a100-80g GPU file (HBM 2039 GB/s x 0.88) and
 * on the small Llama run of run_fixture.h on a DGX H100. */
#include <plateau/plateau.h>

#include <math.h>
#include <string.h>

#include "check.h"
#include "run_fixture.h"
#include "sim/lower_int.h"

static struct pl_gpu a100;

/* One billion local gradients in fp32 (grad_reduce_in_fp32): zero_ writes
 * 4 B of each, the NaN check's bucket norms read 4 B of each, 8e9 B at
 * 2039e9 x 0.88 = 1.79432e12 B/s: 4.45852 ms. bf16 gradients
 * (grad_reduce_bf16): half, 2.22926 ms. Off, or zero2/zero3 (Megatron's FSDP
 * keeps its own sharded gradients), or no parameters: nothing. */
static void test_passes_s(void) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.shard = PL_SHARD_ZERO1;
  l.grad_buffer_passes = true;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 8e9 / 1.79432e12, 1e-9);
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 4.45852e-3, 1e-5);
  l.shard = PL_SHARD_DDP;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 4.45852e-3, 1e-5);
  l.grad_reduce_bf16 = true;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 2.22926e-3, 1e-5);
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 0) == 0.0);
  l.shard = PL_SHARD_ZERO3;
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 1e9) == 0.0);
  l.shard = PL_SHARD_ZERO2;
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 1e9) == 0.0);
  l.shard = PL_SHARD_ZERO1;
  l.grad_buffer_passes = false;
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 1e9) == 0.0);
  /* layout.grad_scale_pass (no average_in_collective): the in-place 1/dp
   * scaling reads and writes every gradient once more, 2 x 4 B: alone
   * 4.45852 ms for 1e9 fp32 gradients; with the zero and norm passes
   * 4 x 4 B = 16e9 B / 1.79432e12 B/s = 8.91703 ms; zero3 still nothing.
   * Only where the factor 1/(dp x cp) is not 1 (start_grad_sync's
   * "gradient_scaling_factor != 1.0"): at dp 1, cp 1 the pass is not run. */
  l.grad_reduce_bf16 = false;
  l.grad_scale_pass = true;
  l.dp = 1;
  l.cp = 1;
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 1e9) == 0.0);
  l.cp = 2;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 4.45852e-3, 1e-5);
  l.dp = 8;
  l.cp = 1;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 4.45852e-3, 1e-5);
  l.grad_buffer_passes = true;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 16e9 / 1.79432e12, 1e-9);
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 8.91703e-3, 1e-5);
  l.shard = PL_SHARD_ZERO3;
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 1e9) == 0.0);
}

/* layout.no_grad_nan_check (check_for_nan_in_grad=False: start_grad_sync
 * skips check_grads): only the zero pass, 4 B written per fp32 gradient,
 * 4e9 B / 1.79432e12 B/s = 2.22926 ms for 1e9; bf16 gradients 1.11463 ms;
 * with the 1/dp scaling pass (read + write 4 B) 12e9 B: 6.68777 ms. The
 * switch does nothing without grad_buffer_passes (only the scaling pass,
 * 4.45852 ms) and nothing under zero3. */
static void test_no_nan_check_s(void) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.shard = PL_SHARD_ZERO1;
  l.grad_buffer_passes = true;
  l.no_grad_nan_check = true;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 4e9 / 1.79432e12, 1e-9);
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 2.22926e-3, 1e-5);
  l.grad_reduce_bf16 = true;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 1.11463e-3, 1e-5);
  l.grad_reduce_bf16 = false;
  l.grad_scale_pass = true;
  l.dp = 8;
  l.cp = 1;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 6.68777e-3, 1e-5);
  l.grad_buffer_passes = false;
  CHECK_NEAR_REL(sim_grad_buffer_passes_s(&l, &a100, 1e9), 4.45852e-3, 1e-5);
  l.grad_scale_pass = false;
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 1e9) == 0.0);
  l.grad_buffer_passes = true;
  l.shard = PL_SHARD_ZERO3;
  CHECK(sim_grad_buffer_passes_s(&l, &a100, 1e9) == 0.0);
}

/* Wired into the step: the small Llama (2 layers, h 1024, ffn 2816, vocab
 * 32000 untied) has 2 x 12,847,104 (blocks) + 32,768,000 (embedding) +
 * 1024 + 32,768,000 (final norm, head) = 91,231,232 parameters, all on the
 * one stage. On 8 H100s under zero1 with fp32 gradients, on: the optimizer
 * time grows by 91,231,232 x 8 B at the H100's HBM rate (the gpu file's
 * hbm_bytes_per_s x eff.hbm_fraction, read back from the run), the same on
 * every rank whatever the dp degree (the buffer is not sharded). */
static void test_step(void) {
  struct pl_diag d, *dp = &d;
  struct pl_run run;
  static struct pl_prediction off, on;
  small_llama(&run);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, dp);
  run.layout.gpus = 8;
  run.layout.batch_per_gpu = 2;
  run.layout.shard = PL_SHARD_ZERO1;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_predict(&run, &off, &d), PL_OK, dp);
  run.layout.grad_buffer_passes = true;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_predict(&run, &on, &d), PL_OK, dp);
  CHECK(off.step.simulated && on.step.simulated);
  CHECK_EQ_INT(on.params, 91231232);
  const struct pl_gpu *g = &on.run.cluster.gpu;
  double want = 91231232.0 * 8.0 / (g->hbm_bytes_per_s * g->eff.hbm_fraction);
  CHECK_NEAR_REL(on.step.optimizer_s - off.step.optimizer_s, want, 1e-9);
  CHECK_NEAR_REL(on.step.compute_s, off.step.compute_s, 1e-12);
  CHECK(on.step.step_time_s > off.step.step_time_s);
  /* check_for_nan_in_grad off: the zero pass alone, half of the 8 B above
   * (91,231,232 x 4 B), compute unchanged */
  static struct pl_prediction zero_only;
  run.layout.no_grad_nan_check = true;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_predict(&run, &zero_only, &d), PL_OK, dp);
  CHECK_NEAR_REL(zero_only.step.optimizer_s - off.step.optimizer_s, want / 2.0, 1e-9);
  CHECK_NEAR_REL(zero_only.step.compute_s, off.step.compute_s, 1e-12);
}

int main(void) {
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_gpu_load("a100-80g", &a100, &d), PL_OK, dp);
  CHECK_NEAR_REL(a100.hbm_bytes_per_s * a100.eff.hbm_fraction, 2039e9 * 0.88, 1e-9);
  test_passes_s();
  test_no_nan_check_s();
  test_step();
  return check_finish();
}
