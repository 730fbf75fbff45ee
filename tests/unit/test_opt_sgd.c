/* test_opt_sgd.c: torch.optim.SGD over 16-bit parameters (layout.opt_sgd,
 * src/sim/lower_dp.c sim_opt_bytes_per_param, src/model/constants.h SGD_*)
 * against hand-derived bytes, and the step's time on the a100-40g GPU file's
 * HBM (1555 GB/s x hbm_fraction).
 *
 * torch/optim/sgd.py _single_tensor_sgd (foreach=False; momentum 0, weight
 * decay 0.1 as lightning-thunder's examples/lit-gpt/train.py runs it), per
 * bf16 parameter element:
 *   grad = grad.add(param, alpha=weight_decay): read grad 2 B + param 2 B,
 *                                               write the new grad 2 B = 6 B
 *   param.add_(grad, alpha=-lr):                read param 2 B + grad 2 B,
 *                                               write param 2 B       = 6 B
 * 12 B. With clip_grad_norm_ over the bf16 gradients: the norms read 2 B and
 * the scaling multiply reads and writes 2 B: 6 B more, 18 B. AdamW's
 * figures do not move (eager foreach 80 + 12 = 92 B, fused step 30 + 4). */
#include <plateau/plateau.h>

#include <string.h>

#include "check.h"
#include "model/constants.h"
#include "sim/lower_int.h"

static void test_bytes(void) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.kernels = PL_KERNELS_UNFUSED;
  CHECK(sim_opt_bytes_per_param(&l) == 92.0);
  l.opt_sgd = true;
  CHECK(sim_opt_bytes_per_param(&l) == 18.0);
  l.no_grad_clip = true;
  CHECK(sim_opt_bytes_per_param(&l) == 12.0);
  /* torch.compile compiles the model, not the step: the same under fused
   * kernels, and Adam's flags do not apply */
  l.kernels = PL_KERNELS_FUSED;
  CHECK(sim_opt_bytes_per_param(&l) == 12.0);
  l.opt_fused = true;
  CHECK(sim_opt_bytes_per_param(&l) == 12.0);
  l.opt_sgd = false;
  l.opt_fused = false;
  CHECK(sim_opt_bytes_per_param(&l) == 30.0);
  l.no_grad_clip = false;
  CHECK(sim_opt_bytes_per_param(&l) == 34.0);
  CHECK(SGD_OPTIMIZER_BYTES == 0.0);
}

/* OpenLLaMA 3B (lit_gpt open_llama_3b: 26 blocks of h 3200, MHA, ffn 8640,
 * vocab 32000 untied): 26 x (4 x 3200^2 + 3 x 3200 x 8640 + 2 x 3200) +
 * 2 x 32000 x 3200 + 3200 = 26 x 123,910,400 + 204,803,200 = 3,426,473,600
 * parameters; the step moves 12 B of each, 41,117,683,200 B, on one A100
 * 40 GB (1555e9 B/s x hbm_fraction): 41.1177e9 / (1555e9 x f) s. */
static void test_open_llama_3b_s(void) {
  struct pl_gpu g;
  CHECK(pl_gpu_load(PL_SOURCE_DIR "/data/gpus/a100-40g.json", &g, NULL) == PL_OK);
  double params =
      26.0 * (4.0 * 3200 * 3200 + 3.0 * 3200 * 8640 + 2.0 * 3200) + 2.0 * 32000 * 3200 + 3200;
  CHECK(params == 3426473600.0);
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.opt_sgd = true;
  l.no_grad_clip = true;
  double bytes = params * sim_opt_bytes_per_param(&l);
  CHECK(bytes == 41117683200.0);
  double bw = g.hbm_bytes_per_s * g.eff.hbm_fraction;
  CHECK(bw > 0);
  CHECK_NEAR_REL(bytes / bw, 41117683200.0 / (1555e9 * g.eff.hbm_fraction), 1e-3);
}

int main(void) {
  test_bytes();
  test_open_llama_3b_s();
  return check_finish();
}
