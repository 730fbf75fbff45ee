/* grad_accum.c: which of a segment's parameters take the per-micro-batch
 * gradient-accumulation pass of ddp/zero1 (segments.c param_kernels) when the
 * weight-gradient GEMMs accumulate into the fp32 gradient buffer themselves
 * (layout.grad_accum_fusion, Megatron-Core's gradient_accumulation_fusion).
 *
 * Source (NVIDIA/Megatron-LM, core_r0.9.0 .. core_v0.17.0): Megatron-LM's
 * --no-gradient-accumulation-fusion is store_false, so the fusion is on unless
 * a run turns it off (megatron/training/arguments.py); the Transformer Engine
 * linears get fuse_wgrad_accumulation=config.gradient_accumulation_fusion
 * (megatron/core/extensions/transformer_engine.py TELinear,
 * TELayerNormColumnParallelLinear, TEGroupedLinear), which makes TE's wgrad
 * GEMM write into weight.main_grad with accumulate (cuBLAS beta = 1) and set
 * grad_added_to_main_grad; the LM head (tensor_parallel.ColumnParallelLinear,
 * layers.py LinearWithGradAccumulationAndAsyncCommunication.backward) calls
 * fused_weight_gradient_mlp_cuda.wgrad_gemm_accum_fp32 into main_grad. The
 * DDP backward hook then adds param.grad into main_grad only for the
 * parameters without grad_added_to_main_grad (distributed_data_parallel.py
 * _make_backward_post_hook: `if param.grad is not None and not
 * param.grad_added_to_main_grad: param.main_grad.add_(param.grad.data)`):
 * the norms, biases, the embedding table (VocabParallelEmbedding's backward
 * is no GEMM) and the MoE router (moe_utils.py RouterGatingLinearFunction
 * returns its grad_weight from a plain matmul). NeMo's launcher configs set
 * gradient_accumulation_fusion True (NeMo-Framework-Launcher conf/training/
 * gpt3/175b.yaml @ 056a90e); Megatron-Bridge's GPTModelProvider defaults it
 * to can_enable_gradient_accumulation_fusion() (apex's
 * fused_weight_gradient_mlp_cuda importable, as in the NeMo containers;
 * src/megatron/bridge/models/gpt_provider.py, v0.2.0 .. v0.6.0).
 *
 * The fused wgrad GEMM reads and writes its fp32 output (8 B per weight)
 * instead of writing a 16-bit one (2 B); the separate add (read 4 + 2,
 * write 4 = 10 B per weight) and its launch per weight tensor go
 * (compute.c gemm_op_s times the epilogue's bytes, pl_op.wgrad_accum_fp32). */
#include <plateau/model.h>

#include <string.h>

#include "sim/sim_int.h"

/* The segment's weight tensors fed by a GEMM's wgrad (sim_seg_param_tensors
 * counts them): a block's fused qkv, projection, fc1 and fc2 (an MoE block is
 * counted as the dense one there), the head's output weight when untied. */
static double weight_tensors(const struct pl_model *m, const struct pl_layout *l,
                             enum sim_seg_kind kind) {
  if (l->task == PL_RUN_LORA) /* the adapters' GEMM weights, the only trainable ones */
    return kind == SIM_SEG_LAYER ? pl_lora_layer_tensors(l) : 0.0;
  if (kind == SIM_SEG_LAYER)
    return 4.0;
  if (kind == SIM_SEG_HEAD)
    return m->tied_embeddings ? 0.0 : 1.0;
  return 0.0;
}

/* Whether a GEMM op's weight is a parameter of this segment: not the
 * router's (its own unfused gradient), not the LM head's when the embedding
 * table is tied to it (the table is the embedding segment's parameter), not
 * the MTP heads' (they share the output weight). */
static bool own_weight(const struct pl_model *m, const struct pl_op *op) {
  if (strcmp(op->name, "mtp_lm_head") == 0)
    return false;
  if (strcmp(op->name, "lm_head") == 0)
    return !m->tied_embeddings;
  return true;
}

struct sim_grad_accum sim_grad_accum_unfused(const struct pl_run *run, enum sim_seg_kind kind,
                                             double params, double tensors, struct pl_op *ops,
                                             int n) {
  struct sim_grad_accum r = {params, tensors};
  if (!run->layout.grad_accum_fusion)
    return r;
  const struct pl_model *m = &run->model;
  double weights = 0;
  for (int i = 0; i < n; i++) {
    struct pl_op *op = &ops[i];
    if (op->kind != PL_OP_GEMM || op->batched || op->frozen || strcmp(op->name, "router") == 0)
      continue;
    op->wgrad_accum_fp32 = true;
    if (own_weight(m, op))
      weights += (op->share > 0 ? op->share : 1.0) * (double)op->n * (double)op->k *
                 (double)op->count;
  }
  r.params = params > weights ? params - weights : 0.0;
  double wt = weight_tensors(m, &run->layout, kind);
  r.tensors = tensors > wt ? tensors - wt : 0.0;
  return r;
}
