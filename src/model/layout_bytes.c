/* layout_bytes.c: what a resolved layout implies for the bytes moved: the
 * FP8 weights FSDP gathers (torchao's tensorwise recipe, Megatron-Core's
 * fp8_param_gather), the bytes per element of the sequence-parallel
 * all_gathers per recipe, and the gradient bucket size. */
#include <plateau/layout.h>

#include "model/constants.h"

bool pl_layout_fp8_tensorwise(const struct pl_layout *l) {
  return l->dtype == PL_DTYPE_FP8 && l->fp8_recipe == PL_FP8_RECIPE_TENSORWISE;
}

bool pl_layout_fp8_rowwise(const struct pl_layout *l) {
  return l->dtype == PL_DTYPE_FP8 && l->fp8_recipe == PL_FP8_RECIPE_ROWWISE;
}

static bool fsdp_sharded(const struct pl_layout *l) {
  return l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
}

/* Megatron-Core's fp8_param_gather under Megatron FSDP: TE modules built
 * under fp8_model_init hold Float8Tensor weights, and
 * megatron_fsdp/param_and_grad_buffer.py
 * ParamAndGradBuffer._init_each_parameter_group_buffers (core_v0.15.0-
 * core_v0.17.0) gives their groups a uint8 model_weight_buffer (shards and
 * gathered buckets, 1 B per element, no 16-bit copy) and bf16 gradients; a
 * transpose buffer is added only for MXFP8 (mixed_precision.py
 * fp8_need_transpose_data), so MXFP8 and the block-scaled recipes are left
 * out. Per-tensor recipes only: delayed, current scaling, the default.
 * The same under zero1, Megatron-Core's distributed optimizer with
 * fp8_param_gather (session 22, mlperf22): distributed/
 * distributed_data_parallel.py groups the parameters into buffers by
 * (param_dtype, grad_dtype), param_dtype torch.uint8 for an FP8 parameter
 * (is_float8tensor), so the FP8 weights are kept, and their buckets
 * all_gathered, at 1 B (param_and_grad_buffer.py start_param_sync on the
 * uint8 param_data); the optimizer casts its fp32 main shard into them
 * (distrib_optimizer.py _copy_main_params_to_model_params ->
 * fp8_utils.py quantize_param_shard -> TE cast_master_weights_to_fp8).
 * lower_dp.c param_gather charges the gather. */
bool pl_layout_te_fp8_params(const struct pl_layout *l) {
  return l->fp8_all_gather && (fsdp_sharded(l) || l->shard == PL_SHARD_ZERO1) &&
         l->dtype == PL_DTYPE_FP8 &&
         (l->fp8_recipe == PL_FP8_RECIPE_TENSOR || l->fp8_recipe == PL_FP8_RECIPE_DELAYED ||
          l->fp8_recipe == PL_FP8_RECIPE_CURRENT);
}

double pl_layout_fp8_gathered_weights(const struct pl_model *m, const struct pl_layout *l) {
  bool on = (l->fp8_all_gather && fsdp_sharded(l) && pl_layout_fp8_tensorwise(l)) ||
            pl_layout_te_fp8_params(l);
  if (!on || pl_model_is_moe(m) || m->kv_lora_rank > 0)
    return 0;
  double h = (double)m->hidden, q = (double)(m->heads * m->head_dim);
  double kv = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn_hidden;
  double up = m->mlp == PL_MLP_SWIGLU ? 2.0 : 1.0;
  return (h * (q + 2.0 * kv) + q * h + (up + 1.0) * h * f) / (double)(l->tp > 0 ? l->tp : 1);
}

/* Bytes per element of a block's sequence-parallel all_gathers. Transformer
 * Engine's linears quantize before they gather (module/layernorm_linear.py,
 * layernorm_mlp.py, linear.py: the norm output is quantized locally, then
 * gather_along_first_dim(..., quantizer=input_quantizer); the row-parallel
 * linears' grad_output in module/base.py grad_output_preprocess, "FP8 with
 * all-gather"; the column-parallel input re-gathered for wgrad in the
 * backward, lower_unit.c te_bwd_windows), so the bytes depend on the recipe
 * (TE v2.12 transformer_engine/pytorch/distributed.py):
 *  - per-tensor FP8 (plateau's tensor, delayed and current recipes:
 *    Float8Quantizer, Float8CurrentScalingQuantizer): _all_gather_fp8 moves
 *    the rowwise FP8 data only (supports_only_rowwise_all_gather True; the
 *    transpose is made locally after the gather): 1 B in all three gathers.
 *    TE 1.x does the same (v0.11-v1.13 layernorm_linear.py: ln_out is uint8
 *    from the norm kernel when fp8, then gather_along_first_dim; base.py
 *    grad_output_preprocess "FP8 case with gather": cast, then gather);
 *  - NVFP4 (NVFP4BlockScaling, _all_gather_nvfp4), MXFP8 (MXFP8BlockScaling,
 *    _all_gather_mxfp8, TE >= 2.2; 2.0-2.1 gathered the columnwise copy in
 *    16 bits) and FP8 block scaling (Float8BlockScaling,
 *    _start_all_gather_fp8_blockwise, TE >= 2.3 as the recipe; activations
 *    and gradients 1x128 blocks, x/grad_block_scaling_dim 1, with FP32
 *    scales: 1 + 4/128 B): the data and scales of each usage asked for
 *    (supports_only_rowwise_all_gather False): the forward input its rowwise
 *    copy (set_usage(rowwise=True, columnwise=False) before the gather), the
 *    wgrad re-gather its columnwise copy (set_usage(rowwise=False,
 *    columnwise=True)), the grad_output both (linear.py _Linear.backward sets
 *    rowwise and columnwise when no userbuffers): one element's bytes
 *    (pl_dtype_element_bytes) once, once, twice.
 * Reduce-scatters stay 16-bit (the GEMM outputs).
 *  - torchao's tensorwise recipe (fp8-tensorwise) under TP as torchtitan
 *    applies it: apply_tp uses torchao's Float8ColwiseParallel,
 *    Float8RowwiseParallel and PrepareFloat8ModuleInput when Float8 is on
 *    (torchtitan parallelisms/parallelize_llama.py at 9dec370;
 *    enable_float8_tensorwise_tp at 820504e); they cast the sharded input
 *    to float8 before redistribute(Replicate) and cast the gradient to
 *    float8 before the backward's gather (_NoopFwToFloat8BwDynamic ahead of
 *    the output's redistribute; torchao/float8/float8_tensor_parallel.py):
 *    one float8 tensor with a scalar scale, 1 B in every gather.
 *  - torchao's rowwise recipe (fp8-rowwise): torchtitan applies the Float8
 *    TP styles only for tensorwise (apply_tp enable_float8_tensorwise_tp
 *    at 820504e) and docs/float8.md there says "For float8 with rowwise
 *    scaling, all distributed communication is done in high precision":
 *    16-bit gathers, each linear casting what it receives. */
double pl_layout_tp_gather_bytes(const struct pl_layout *l, enum pl_tp_gather g) {
  double q;
  if (pl_layout_fp8_tensorwise(l))
    return pl_dtype_element_bytes(PL_DTYPE_FP8);
  if (pl_layout_fp8_rowwise(l))
    return ACT_BYTES;
  if (l->dtype == PL_DTYPE_NVFP4 || l->dtype == PL_DTYPE_MXFP8)
    q = pl_dtype_element_bytes(l->dtype);
  else if (l->dtype == PL_DTYPE_FP8 && l->fp8_recipe == PL_FP8_RECIPE_BLOCKWISE)
    q = pl_dtype_element_bytes(PL_DTYPE_FP8) + 4.0 / 128.0;
  else if (l->dtype == PL_DTYPE_FP8)
    return pl_dtype_element_bytes(PL_DTYPE_FP8); /* rowwise only, every gather */
  else
    return ACT_BYTES;
  return g == PL_TP_GATHER_GRAD ? 2.0 * q : q;
}

double pl_layout_bucket_bytes(const struct pl_layout *l, double elem_bytes, double model_params) {
  if (l->bucket_params > 0) {
    /* NeMo 2 nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py and
     * Megatron-Bridge src/megatron/bridge/training/comm_overlap.py
     * _get_optimizer_overlap_cfgs: bucket_size (parameters) only when the
     * data-parallel size without context parallelism is above 1; at dp 1
     * bucket_size None and overlap_grad_reduce False, which Megatron-Core's
     * DDP makes one bucket of every gradient, as for any bucket_size
     * without overlap_grad_reduce */
    if ((l->dp <= 1 || l->grad_reduce_after_backward) && model_params > 0)
      return model_params * elem_bytes;
    return l->bucket_params * elem_bytes;
  }
  if (l->bucket_dp_scaled && l->grad_reduce_after_backward && model_params > 0)
    return model_params * elem_bytes; /* bucket_size None: every gradient in one bucket */
  if (l->bucket_dp_scaled) {
    /* Megatron-Core DistributedDataParallel.__init__ (core_r0.9.0): bucket_size =
     * max(40000000, 1000000 * data-parallel size with context parallelism) parameters */
    double dp = (double)(l->dp > 0 ? l->dp : 1) * (double)(l->cp > 0 ? l->cp : 1);
    double params = 1e6 * dp > 4e7 ? 1e6 * dp : 4e7;
    return params * elem_bytes;
  }
  return l->bucket_bytes > 0 ? l->bucket_bytes : BUCKET_BYTES;
}

int64_t pl_layout_shard_ranks(const struct pl_layout *l) {
  int64_t dp = l->shard == PL_SHARD_DDP || l->shard_group <= 0 ? l->dp : l->shard_group;
  return (dp > 0 ? dp : 1) * (l->cp > 0 ? l->cp : 1);
}

/* The ranks cp's all_to_all spans (layout.cp_comm): cp for a2a, the
 * a2a group (cp_a2a) for a2a+p2p, else 1 (Transformer Engine
 * context_parallel.py attn_forward_func_with_cp, v2.20.0.dev0 @ d0067d0). */
int64_t pl_layout_cp_a2a_ranks(const struct pl_layout *l) {
  if (l->cp <= 1)
    return 1;
  if (l->cp_comm == PL_CP_A2A)
    return l->cp;
  if (l->cp_comm == PL_CP_A2A_P2P && l->cp_a2a > 0)
    return l->cp_a2a;
  return 1;
}
