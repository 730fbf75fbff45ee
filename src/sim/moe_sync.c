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
 * backward reuses the forward's host sizes: no wait.
 *
 * After the wait the GPU has nothing queued: it runs each kernel once the host
 * has issued it. Between two waits the host issues the rest of the block
 * (the experts, the combine, the residual) and the next block up to its
 * routing; that window is priced as a two-stage flow (host, then GPU) over its
 * ops in issue order (host_flow.c), each op k launches of equal host and GPU
 * time: the GPU ends an op at max(its previous end + G, host start +
 * max(H + G/k, H/k + G)); an op with pl_op.host_sync makes the host wait there.
 * This file places the ops, the dispatch, the combine and the wait in it.
 * The dispatch and combine run on the GPU in that window: the all_to_all right
 * after the wait (alltoall: the host issues the experts meanwhile), the
 * allgather's gather and the flex dispatch just before it (the host waits for
 * them), the combine after the experts. lower.c charges those collectives
 * after the unit's compute, so the block's forward compute becomes the window
 * less their time alone. Without the wait the pass takes the larger of its
 * host and GPU time, or its flow where an op syncs (pass_ops.c
 * sim_seg_ops_s); the difference is what the
 * wait costs: the GPU idles while the host issues work it could have issued
 * earlier. Order inside the window as Megatron-Core runs it (moe_layer.py
 * MoELayer.forward, core_v0.16.0): the shared experts before the router; the
 * FP8 casts, a lump per block (segments.c fp8_casts), split by the GEMM time
 * on each side. Not modelled: the wait of a forward recomputed in the
 * backward (recompute of the MoE layer), the combined 1F1B schedule
 * (ep_comm_overlap: another micro-batch's backward is queued beside it), the
 * first block of a chunk (its window holds the pipeline receive instead). */
#include <plateau/layout.h>
#include <plateau/model.h>

#include <string.h>

#include "sim/sim_int.h"

static bool shared_op(const struct pl_op *op) { return strncmp(op->name, "shared_", 7) == 0; }

/* Op op of the window's forward as one item of the flow (FP8 casts: the
 * share frac): its host time and launches (sim_op_host_s), its GPU time with
 * its host waits' (pl_op.host_waits). */
static void flow_index(struct sim_flow *f, const struct pl_gpu *g, const struct pl_layout *l,
                       const struct pl_model *m, const struct pl_op *op, double frac) {
  sim_flow_item(f, g, l, m, op, false, PL_PASS_FWD, frac);
  /* a second wait inside the window (pl_op.host_sync: GPT-OSS's clamped GLU
   * copies its offset to the GPU blocking, flops.c GLU_CLAMP): the host
   * issues nothing more until the GPU has run everything so far */
  if (op->host_sync)
    sim_flow_sync(f);
}

double sim_moe_sync_fwd_s(const struct pl_gpu *g, const struct pl_layout *l,
                          const struct pl_model *m, const struct pl_op *ops, int n,
                          double dispatch_s, double combine_s) {
  int cut = -1, casts = -1, router = -1, unperm = -1;
  double gemm_pre = 0, gemm_post = 0;
  for (int i = 0; i < n; i++) {
    if (strcmp(ops[i].name, "permute") == 0)
      cut = i;
    else if (strcmp(ops[i].name, "fp8_casts") == 0)
      casts = i;
    else if (strcmp(ops[i].name, "router") == 0)
      router = i;
    else if (strcmp(ops[i].name, "unpermute") == 0)
      unperm = i;
  }
  if (cut < 0 || router < 0 || unperm < 0)
    return -1.0;
  for (int i = 0; i < n; i++)
    if (ops[i].kind == PL_OP_GEMM) {
      double t = (ops[i].share > 0 ? ops[i].share : 1.0) *
                 pl_op_run_time_s(g, l, m, &ops[i], PL_PASS_FWD);
      if (i > cut && !shared_op(&ops[i]))
        gemm_post += t;
      else
        gemm_pre += t;
    }
  double post = gemm_pre + gemm_post > 0 ? gemm_post / (gemm_pre + gemm_post) : 0.5;
  bool before = l->dispatch == PL_MOE_ALLTOALL; /* the wait precedes the dispatch */
  struct sim_flow f = {0, 0};
  if (before)
    sim_flow_gpu(&f, dispatch_s);
  for (int i = cut + 1; i < n; i++) { /* the rest of this block */
    if (shared_op(&ops[i]) || i == casts)
      continue;
    flow_index(&f, g, l, m, &ops[i], 1.0);
    if (i == unperm)
      sim_flow_gpu(&f, combine_s);
  }
  if (casts >= 0)
    flow_index(&f, g, l, m, &ops[casts], post);
  for (int i = 0; i <= cut; i++) { /* the next block up to its routing */
    if (i == router)
      for (int j = 0; j < n; j++)
        if (shared_op(&ops[j]))
          flow_index(&f, g, l, m, &ops[j], 1.0);
    if (i != casts)
      flow_index(&f, g, l, m, &ops[i], 1.0);
  }
  if (casts >= 0)
    flow_index(&f, g, l, m, &ops[casts], 1.0 - post);
  if (!before)
    sim_flow_gpu(&f, dispatch_s);
  return sim_flow_end_s(&f) - dispatch_s - combine_s; /* the host waits for the GPU */
}

void sim_moe_host_sync(struct sim_step *st, struct sim_seg *s, const struct pl_op *ops, int n) {
  const struct pl_run *run = st->run;
  const struct pl_layout *l = &run->layout;
  const struct pl_model *m = &run->model;
  if (!l->moe_host_sync || l->ep_comm_overlap || !pl_model_is_moe(m) ||
      (l->host_per_kernel_s <= 0 && l->host_per_gemm_s <= 0))
    return;
  /* the block's forward collectives after its tp ones (segments.c layer_moe):
   * an all_to_all twice (dispatch, combine), an all_gather with the dispatch,
   * a reduce_scatter with the combine */
  double dispatch_s = 0, combine_s = 0;
  for (int i = SIM_SEG_EP; i < SIM_SEG_TP; i++) {
    const struct sim_comm *c = &s->tp[PL_PASS_FWD][i];
    if (c->coll < 0 || c->calls <= 0)
      continue;
    const struct sim_coll *k = &st->colls[c->coll];
    if (k->op == PL_COLL_ALL_TO_ALL) {
      dispatch_s += k->time_s * (double)c->calls / 2.0;
      combine_s += k->time_s * (double)c->calls / 2.0;
    } else if (k->op == PL_COLL_ALL_GATHER) {
      dispatch_s += k->time_s * (double)c->calls;
    } else {
      combine_s += k->time_s * (double)c->calls;
    }
  }
  const struct pl_gpu *g = &run->cluster.gpu;
  double with = sim_moe_sync_fwd_s(g, l, m, ops, n, dispatch_s, combine_s);
  if (with < 0)
    return;
  s->comp_s[PL_PASS_FWD] += with - sim_seg_ops_s(g, l, m, ops, n, PL_PASS_FWD, false);
}
