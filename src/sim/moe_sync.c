/* moe_sync.c: the host's wait in a MoE block's forward (layout.moe_host_sync,
 * docs/step-model.md 2.6 "MoE host sync").
 *
 * Megatron-Core's token dispatchers hand the expert GEMMs host-side sizes, so
 * the host stops once per MoE block's forward until the GPU has counted the
 * tokens of each local expert (core_v0.15.0, core_v0.16.0
 * megatron/core/transformer/moe/token_dispatcher.py):
 *   alltoall  MoEAlltoAllTokenDispatcher.preprocess sets cuda_sync_point
 *             "before_ep_alltoall" (ep or tp > 1): the split sizes of the
 *             all_to_all are copied to the host after the routing, and
 *             token_dispatch waits for the copy (_maybe_dtoh_and_synchronize:
 *             d2h_event.synchronize()) before it issues the all_to_all;
 *   allgather MoEAllGatherTokenDispatcher.dispatch_postprocess reads
 *             local_map.sum(...).cpu() after the all_gather of the tokens;
 *   flex      (deepep: HybridEP) _HybridEPManager.dispatch passes
 *             num_permuted_tokens None ("will cause a CPU sync", fused_a2a.py
 *             hybrid_ep_dispatch: "obtains the size from a GPU tensor, which
 *             causes a D2H synchronization"), and TEGroupedMLP.forward
 *             (experts.py) calls tokens_per_expert.tolist() on the GPU tensor
 *             the dispatch returns: the host waits for the dispatch.
 * The experts are Transformer Engine's GroupedLinear, whose m_splits are a host
 * list (one cuBLAS call per local expert, compute.c sim_op_run_gemms). The
 * backward reuses the forward's host sizes: no wait, but where it re-runs the
 * MoE layer's forward (recompute of the moe module or the whole block:
 * tensor_parallel.checkpoint of MoELayer.forward's custom_forward, which
 * calls the dispatcher again) the re-run waits as the forward did.
 *
 * After the wait the GPU has nothing queued: it runs each kernel once the host
 * has issued it. The forward is therefore a pass with one more host sync,
 * priced as every such pass is (pass_ops.c sim_seg_ops_s, the flow of its ops
 * in issue order, host_flow.c): the period between two waits (the rest of the
 * block: the experts, the combine, the residual; then the next block up to
 * its routing), each op k launches of equal host and GPU time, an op with
 * pl_op.host_sync a second wait. The dispatch and combine are GPU items of
 * that flow: the all_to_all right after the wait (alltoall: the host issues
 * the experts meanwhile), the allgather's gather and the flex dispatch just
 * before it (the host waits for them), as for the alltoall dispatcher's
 * counts' all_gather (moe_comm.c a2a_metadata; its probabilities' all_to_all
 * goes with the dispatch), the combine after the experts. lower.c
 * charges those collectives after the unit's compute, so the block's forward
 * compute is the flow less their time alone. This file says where the wait
 * applies and hands the pass its collectives (sim_moe_wait_of). Not modelled:
 * the combined 1F1B schedule (ep_comm_overlap: another micro-batch's
 * backward is queued beside it), the first block of a chunk (its window holds
 * the pipeline receive instead), CUDA_LAUNCH_BLOCKING (each launch waits for
 * its kernel anyway: the wait adds nothing). */
#include <plateau/layout.h>
#include <plateau/model.h>

#include "sim/sim_int.h"

bool sim_moe_wait_of(const struct sim_step *st, const struct sim_seg *s, struct sim_moe_wait *w) {
  const struct pl_run *run = st->run;
  const struct pl_layout *l = &run->layout;
  if (!l->moe_host_sync || l->ep_comm_overlap || !pl_model_is_moe(&run->model) ||
      (l->host_per_kernel_s <= 0 && l->host_per_gemm_s <= 0))
    return false;
  /* the block's forward collectives after its tp ones (moe_comm.c sim_layer_moe):
   * an all_to_all twice (dispatch, combine), an all_gather with the dispatch,
   * a reduce_scatter with the combine */
  *w = (struct sim_moe_wait){0, 0, 0};
  for (int i = SIM_SEG_EP; i < SIM_SEG_TP; i++) {
    const struct sim_comm *c = &s->tp[PL_PASS_FWD][i];
    if (c->coll < 0 || c->calls <= 0)
      continue;
    const struct sim_coll *k = &st->colls[c->coll];
    if (i == SIM_SEG_EP_COUNTS) { /* alltoall: the split sizes the host waits for */
      w->counts_s += k->time_s * (double)c->calls;
    } else if (i == SIM_SEG_EP_PROBS) { /* alltoall: right after the tokens' dispatch */
      w->dispatch_s += k->time_s * (double)c->calls;
    } else if (k->op == PL_COLL_ALL_TO_ALL) {
      w->dispatch_s += k->time_s * (double)c->calls / 2.0;
      w->combine_s += k->time_s * (double)c->calls / 2.0;
    } else if (k->op == PL_COLL_ALL_GATHER) {
      w->dispatch_s += k->time_s * (double)c->calls;
    } else {
      w->combine_s += k->time_s * (double)c->calls;
    }
  }
  return true;
}
