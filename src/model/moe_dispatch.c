/* moe_dispatch.c: the ops of Megatron-Core's alltoall token dispatcher around
 * the experts (layout dispatch alltoall; flops.c moe_ops calls these in issue
 * order: the counts before the permutation, the sort by local expert after
 * it and back before the unpermutation). Other dispatchers add nothing here.
 * docs/step-model.md 2.6 "Host syncs", docs/model.md. */
#include <plateau/flops.h>
#include <plateau/layout.h>
#include <plateau/model.h>

#include "model/constants.h"
#include "model/model_int.h"

/* Megatron-Core's alltoall dispatcher (layout dispatch alltoall,
 * megatron/core/transformer/moe/token_dispatcher.py MoEAlltoAllTokenDispatcher,
 * the same in core_v0.15.0 .. core_v0.18.2; dropless, no padding, as the
 * Megatron-Bridge recipes run it) counts the routed tokens before the
 * permutation. preprocess: routing_map.sum(dim=0) (a bool sum, int64 out: its
 * .long() is a no-op), then with ep or etp > 1 input_splits (reshape(ep,
 * local).sum(axis=1)), the counts' all_gather over the tp-ep group
 * (gather_from_sequence_parallel_region: one NCCL call), the local experts'
 * slice .contiguous(), num_global_tokens_per_rank (.sum(axis=2)),
 * output_splits_tp (.sum(axis=1)) and num_tokens_per_local_expert
 * (.sum(dim=(0, 1))): six kernels and the NCCL launch; at the dtoh point
 * (before_permutation_1) _maybe_dtoh_and_synchronize copies tokens_per_expert,
 * input_splits, output_splits and output_splits_tp to the host
 * (maybe_move_tensor_to_cpu: .to("cpu", non_blocking=True) on the side
 * stream): four cudaMemcpyAsync (op moe_counts_d2h). Seven plus four
 * launches, each a Python-level op the host issues (the presets'
 * host_per_kernel counts cudaMemcpyAsync as a launch too, docs/step-model.md
 * 2.6); with ep = etp = 1 only the sum and the tokens_per_expert copy. GPU
 * traffic: the bool routing map read once (1 B per element of tokens x
 * experts); the counts (ep x etp x experts int64) are noise; no backward (no
 * tensor of it needs a gradient). The NCCL call itself (the counts'
 * all_gather) is priced as a collective by sim/moe_comm.c a2a_metadata. The moe_preprocess CUDA-graph scope captures
 * the sums (MoELayer.preprocess runs dispatch_preprocess inside the graph,
 * moe_layer.py / moe_utils.py maybe_skip_or_early_return_by_cudagraph,
 * core_v0.16.0) but moves the dtoh point to before_ep_alltoall, outside the
 * graph: the four copies stay eager (sim_op_graphed). */
#define MOE_PREPROCESS_BYTES 1.0 /* forward, per element of the routing map */
#define MOE_PREPROCESS_KERNELS_EP 7
#define MOE_COUNTS_D2H_EP 4
/* Sorting the received tokens by local expert (the same dispatcher, whenever
 * a rank holds more than one expert): dispatch_postprocess sorts the
 * all_to_all's output chunks (ep x etp source ranks x local experts) into
 * expert order, combine_preprocess sorts the experts' outputs back
 * (sort_chunks_by_idxs with moe_permute_fusion, which the Megatron-Bridge
 * MoE providers set: Transformer Engine's moe_sort_chunks_by_index,
 * transformer_engine/pytorch/permutation.py _moe_chunk_sort, v2.9 .. v2.18:
 * forward triton make_chunk_sort_map + sort_chunks_by_map, backward one
 * sort_chunks_by_map). Per element of the received copies (bf16: the
 * dispatcher moves unquantized tokens; the routing probabilities travel in
 * the same kernel, a few bytes per row, left out): read 2, write 2 each way. */
#define SORT_CHUNKS_BYTES (2 * BF16_BYTES) /* per element, each pass */

/* The dispatcher's own permutation before the all_to_all
 * (dispatch_preprocess -> moe_utils.py permute with moe_permute_fusion and
 * probabilities: fused_permute_with_probs, Transformer Engine's
 * moe_permute_with_probs -> _moe_permute_mask_map, permutation.py v2.8 ..
 * v2.18): the forward first builds the row-id map from the bool routing map
 * in three triton passes (triton/permutation.py make_row_id_map:
 * _row_id_map_pass_1/2/3_kernel; the int32 map, tokens x (2 experts + 1),
 * is small beside the tokens), then permute_with_mask_map moves the tokens:
 * four forward kernels, one backward (unpermute_with_mask_map). */
#define PERMUTE_ROW_ID_PASSES 3

int model_moe_a2a_preprocess(const struct pl_model *m, const struct pl_layout *l, double tokens_n,
                             struct pl_op *ops, int n) {
  if (l->dispatch != PL_MOE_ALLTOALL || l->moe_pad_capacity)
    return n; /* drop_and_pad: preprocess returns before counting (layout.h) */
  int64_t local = m->experts / deg(l->ep);
  bool split = deg(l->ep) * deg(l->etp) > 1;
  model_op_memory(&ops[n], "moe_preprocess", tokens_n * (double)m->experts, 0, 0,
                  MOE_PREPROCESS_BYTES, 0);
  ops[n++].fwd_kernels = split ? MOE_PREPROCESS_KERNELS_EP : 1;
  /* tokens_per_expert, and with split sizes input_splits, output_splits, output_splits_tp */
  double counts = (double)local + (split ? 2.0 * (double)deg(l->ep) + (double)deg(l->etp) : 0);
  model_op_memory(&ops[n], "moe_counts_d2h", counts, 0, 0, MOE_COUNT_BYTES, 0);
  ops[n++].fwd_kernels = split ? MOE_COUNTS_D2H_EP : 1;
  return n;
}

void model_moe_a2a_permute(const struct pl_layout *l, struct pl_op *permute) {
  if (l->dispatch == PL_MOE_ALLTOALL)
    permute->fwd_kernels = 1 + PERMUTE_ROW_ID_PASSES;
}

int model_moe_a2a_sort(const struct pl_model *m, const struct pl_layout *l, const char *name,
                       double received_elems, struct pl_op *ops, int n) {
  if (l->dispatch != PL_MOE_ALLTOALL || m->experts / deg(l->ep) <= 1)
    return n;
  model_op_memory(&ops[n], name, received_elems, 0, 0, SORT_CHUNKS_BYTES, SORT_CHUNKS_BYTES);
  ops[n].fwd_kernels = 2;
  ops[n++].bwd_kernels = 1;
  return n;
}
