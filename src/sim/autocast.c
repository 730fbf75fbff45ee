/* autocast.c: the per-forward weight casts of torch.autocast over fp32
 * parameters (layout.autocast_weight_casts).
 *
 * A run that keeps its parameters in fp32 and wraps the forward in
 * torch.autocast(dtype=bfloat16) (plain DDP with AMP, Hugging Face Trainer
 * bf16=True without FSDP's mixed precision, the project's own
 * bench/gpu/run_all.py) runs every linear's weight through autocast's
 * cached_cast (pytorch/pytorch aten/src/ATen/autocast_mode.cpp cached_cast:
 * a leaf fp32 tensor that requires grad is cast to bf16 once per autocast
 * region and cached; torch.autocast.__exit__ calls clear_autocast_cache when
 * the outermost region closes, so every micro-batch's forward casts again).
 * Forward: the cast reads 4 B and writes 2 B per weight element (aten::
 * _to_copy). Backward: ToCopyBackward0 (tools/autograd/derivatives.yaml
 * `_to_copy: _to_copy_backward(grad, self.options())`) casts the bf16 weight
 * gradient back to fp32, read 2 B, write 4 B, before AccumulateGrad; the
 * accumulation itself is the segment's grad_accum op (segments.c).
 * The weights are the GEMM ops' n x k x count (the LM head's, tied or not,
 * as its linear casts it); nn.Embedding is not on autocast's lower-precision
 * list (its lookup reads the fp32 table) and the norms' weights are cast by
 * the module, not autocast. Under full or ops recompute the recomputed
 * forward casts again (torch.utils.checkpoint re-enters autocast). Against
 * the project's H100 trace (tests/data/traces/gt_h100_llama3.2-1b_seq4096,
 * docs/trace.md) the forward casts of the 1.236 G weights took 2.51 ms
 * (7.4 GB, 2.95 TB/s) and their backward casts 4.04 ms. */
#include <plateau/flops.h>
#include <plateau/layout.h>

#include <string.h>

#include "model/constants.h"
#include "sim/sim_int.h"

int sim_autocast_casts(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  if (!l->autocast_weight_casts || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  double weights = 0, tensors = 0;
  for (int i = 0; i < n; i++)
    if (ops[i].kind == PL_OP_GEMM) {
      weights += (double)ops[i].n * (double)ops[i].k * (double)ops[i].count;
      tensors += (double)ops[i].count;
    }
  if (weights <= 0)
    return n;
  struct pl_op *op = &ops[n];
  memset(op, 0, sizeof *op);
  op->name = "autocast_casts";
  op->kind = PL_OP_MEMORY;
  op->count = 1;
  op->share = 1.0;
  op->fwd_bytes = op->bwd_bytes = AUTOCAST_CAST_BYTES_PER_ELEM * weights;
  /* The backward's bf16 -> fp32 cast changes dtype, so PyTorch's copy runs
   * gpu_kernel with dynamic casting (aten/src/ATen/native/cuda/Copy.cu
   * direct_copy_kernel_cuda; CUDALoops.cuh gpu_kernel_impl: a contiguous
   * iterator that needs_dynamic_casting goes to launch_unrolled_kernel with
   * LoadWithCast / StoreWithCast, not the vectorized kernel; Copy.cu's
   * bfloat16tofloat32_copy_kernel_cuda is ROCm-only), a non-vectorized
   * kernel timed per element (compute.c strided_extra_s). The forward's
   * fp32 -> bf16 cast has its own typed kernel (bfloat16_copy_kernel_cuda,
   * gpu_kernel_nocast: vectorized). The trace: ToCopyBackward0 as
   * unrolled_elementwise_kernel, 1.236 G elements in 4.04 ms (306 G/s; the
   * H100's strided_elementwise rate is 347 G/s), the forward casts as
   * vectorized_elementwise_kernel. */
  op->bwd_strided_elems = weights;
  op->bwd_strided_bytes = op->bwd_bytes;
  op->fwd_kernels = op->bwd_kernels = (int)tensors; /* one cast per weight tensor */
  op->recompute = l->recompute == PL_RECOMPUTE_FULL || l->recompute == PL_RECOMPUTE_OPS;
  return n + 1;
}
