/* eager_accum.c: the gradient passes of eager PyTorch under ddp
 * (layout.kernels unfused, layout.shard ddp): what AccumulateGrad and DDP's
 * Reducer move per parameter, in place of Megatron's main_grad.add_ (10 B per
 * micro-batch, segments.c param_kernels).
 *
 *  - AccumulateGrad (torch/csrc/autograd/functions/accumulate_grad.h
 *    accumulateGrad): when .grad is undefined the incoming gradient is
 *    stolen, no copy; optimizer.zero_grad() sets .grad to None by default
 *    since PyTorch 2.0 (torch/optim/optimizer.py zero_grad, set_to_none=True),
 *    so a step's first micro-batch moves nothing and every later one adds in
 *    place, `variable_grad += new_grad`: read 2 x g, write g, g the gradient's
 *    element size (4 B for fp32 parameters under autocast,
 *    layout.autocast_weight_casts; 2 B for 16-bit parameters). A weight used
 *    twice in one backward (tied embedding and LM head: the embedding
 *    segment's) has its second gradient added every micro-batch.
 *  - DDP over dp > 1 ranks (torch/csrc/distributed/c10d/reducer.cpp,
 *    gradient_as_bucket_view False, its default): mark_variable_ready_dense
 *    copies each gradient into its bucket, dividing by the world size
 *    (at::mul_out(bucket_view, grad, 1 / div_factor): read g, write g), and
 *    after the all_reduce copy_bucket_to_grad copies it back
 *    (grad.copy_(bucket_view): read g, write g), once per synchronised
 *    backward; plateau's ddp all_reduces every micro-batch's buckets
 *    (lower_dp.c), so both copies run every micro-batch.
 * Returns bytes per parameter per micro-batch, averaged over the step's
 * micro-batches; < 0 when the run is not eager ddp. */
#include <plateau/layout.h>
#include <plateau/model.h>

#include "sim/sim_int.h"

double sim_eager_ddp_accum_bytes(const struct pl_run *run, enum sim_seg_kind kind) {
  const struct pl_layout *l = &run->layout;
  if (l->kernels != PL_KERNELS_UNFUSED || l->shard != PL_SHARD_DDP || l->grad_accum_cast)
    return -1;
  double g = l->autocast_weight_casts ? 4.0 : 2.0;
  double micro = l->micro_batches > 0 ? (double)l->micro_batches : 1.0;
  double adds = (micro - 1.0) / micro; /* the first micro-batch's gradient is stolen */
  if (kind == SIM_SEG_EMBED && run->model.tied_embeddings)
    adds = 1.0; /* the head's and the embedding's gradients of one weight */
  double bytes = adds * 3.0 * g;
  if (l->dp > 1)
    bytes += 2.0 * 2.0 * g; /* into the bucket and back */
  return bytes;
}
