/* nvls.c: NVLink SHARP inside one node (NCCL's NVLS algorithm): the NVSwitch
 * reduces (multimem.ld_reduce) and multicasts (multimem.st), Simple protocol
 * only, on NVLS-capable switches (Hopper, Blackwell).
 *
 * Bandwidth from the traffic (docs/collectives.md, "NVLS"): for all_reduce
 * of S bytes over n GPUs each GPU serves S to the switch's reductions and
 * stores its reduced S/n, and receives S/n plus the multicast S, so each
 * direction carries S (n+1)/n: algbw = B x eff x n/(n+1). With more than
 * NCCL_MAX_NVLS_ARITY = 32 ranks (an NVL72 rack) only h = 32 of them are
 * heads (src/device/all_reduce.h, NVLS oneNode: every rank scatters S into
 * its buffers and gathers S back; only heads, nvls->headRank != -1, run the
 * multimem reduce and multicast store for their 1/h of each loop), so the
 * heads carry S (h+1)/h: algbw = B x eff x h/(h+1), h = min(n, 32).
 * all_gather (each GPU receives S) and reduce_scatter (each GPU serves S)
 * run at B x eff, and NCCL runs them on NVLS only up to 32 ranks
 * (net_int.h NET_NVLS_MAX_ARITY).
 * eff is NCCL's nvlsEfficiency (0.85 Hopper, 0.74 Blackwell). NCCL's own
 * selection model scales differently (bwIntra x eff x 2 for all_reduce,
 * capped by bwInter): we keep its efficiency but not that form, which
 * under-predicts the measured NVLS all_reduce on H100 by ~25%.
 * Latency: hwLat[NVLINK][NVLS][Simple] = 25 us, no base latency; NCCL charges
 * it once per call (latencies[NVLS] = intraLat), so it is an algorithm
 * constant like baseLat and is not rescaled by the cluster's (possibly
 * fitted) NVLink hop latency (docs/collectives.md, section 1). Across nodes
 * NVLS needs in-network reduction (SHARP/CollNet), which plateau does not
 * model: multi-node groups use NVLS_TREE (nvls_tree.c) instead.
 *
 * Chunk ramp (docs/collectives.md, "NVLS chunks"): NCCL splits an NVLS call
 * over nvlsChannels x nHeads concurrent streams (src/enqueue.cc
 * calcCollChunking concurrentOps = nChannels x nvls.nHeads, with nChannels
 * = comm->nvlsChannels, topoGetAlgoInfo; nHeads = min(g, 32)): 16 x 8 on an
 * H100 node; on Blackwell 24 x heads from NCCL 2.27, 32 x heads before
 * (net_ver_nvls_node_channels; 24 x 32 on a GB200 rack) and
 * picks the chunk size from the message (src/enqueue.cc calcCollChunking,
 * NCCL 2.19-2.28): NCCL_NVLS_CHUNKSIZE = 128 KiB (512 KiB where the
 * aws-ofi-nccl plugin sets it, tuner.c), at most one buffer step, cut to
 * 64 KiB below 64 x streams x chunk bytes, 32 KiB below 8 x, 16 KiB below
 * 2 x. On H100 with the defaults
 * that means 64 KiB chunks up to 1 GiB: every loop (one chunk on every
 * stream) is a step the GPUs synchronise on through the switch. plateau
 * charges each loop one NVLink step latency (NCCL's hwLat[NVLINK][Ring]
 * [Simple] = 3.4 us), the same per-step cost NCCL's ring model charges, or
 * in the charged view the scatter/gather's serial walk over the loop's
 * heads where that is larger (nvls_loop_s); nothing is fitted to a log.
 * net_nvls_fill_s adds the pipeline fill: one loop at algbw
 * (docs/collectives.md, "Pipeline fill"). */
#include "net/net_int.h"

#include <math.h>

double net_nvls_chunk_bytes(const struct net_ctx *x, double bytes, double streams) {
  /* stepSize (NCCL_BUFFSIZE / NCCL_STEPS, chunkSteps 1) capped by
   * NCCL_NVLS_CHUNKSIZE; then the size cuts */
  static const struct net_rung cuts[] = {{64, 65536}, {8, 32768}, {2, 16384}};
  return net_chunk_ladder(fmin(524288.0 * x->buff_scale, x->nvls_chunk), bytes, streams, cuts, 3);
}

double net_nvls_heads(const struct net_ctx *x) {
  return fmin((double)x->g, (double)NET_NVLS_MAX_ARITY);
}

/* NCCL's concurrent streams: NVLS channels x heads (the rack's ranks
 * beyond 32 are not heads and own no stream). */
static double nvls_streams(const struct net_ctx *x) {
  return x->nvls_node_channels * net_nvls_heads(x);
}

/* One loop's charge: its synchronisation through the switch (one NVLink
 * step latency), or, where larger, the scatter and gather warps' walk over
 * the loop's nHeads peers, NCCL's arity serialization of that primitive
 * (NET_ARITY_SER_US a peer). Each loop of each channel is a rendezvous of
 * every rank and head (NCCL v2.29.2-1 src/transport/nvls.cc ncclNvlsSetup:
 * NCCL_NVLS_MIN_POLL credits, polled with multimem.ld_reduce.min in
 * src/device/prims_simple.h loadStepValue), and the scatter / gather call
 * (src/device/all_reduce.h, all_gather.h, reduce_scatter.h: NVLS
 * FanAsymmetric<.., NCCL_MAX_NVLS_ARITY>, ScatterGatherOp) copies to or
 * from its nHeads peers one after the other. The two overlap: NCCL_STEPS =
 * 8 slots a stream let the next loop's credit wait run under this loop's
 * copies, so a loop costs the larger, not the sum (NCCL's CollNet Direct
 * latency adds them because it prices one pass of a small message). With
 * at most 8 heads (one node) 8 x 0.4 = 3.2 us < 3.4 us: nodes are
 * unchanged; an NVL72 rack's 32 heads pay 12.8 us a loop
 * (docs/collectives.md, "Session 26 (coll26)"). NCCL's ranking view
 * (!x->charge) keeps the step alone: NCCL's tuner has no such term. */
static double nvls_loop_s(const struct net_ctx *x) {
  double step = net_hw_lat_table_s(x->intra_hw, NET_T_RING, PL_PROTO_SIMPLE);
  if (!x->charge)
    return step;
  return fmax(step, net_nvls_heads(x) * NET_ARITY_SER_US * 1e-6);
}

/* Loops of one chunk per stream, each paying nvls_loop_s. */
static double nvls_chunk_lat_s(const struct net_ctx *x, double bytes) {
  double streams = nvls_streams(x);
  double loops = ceil(bytes / (streams * net_nvls_chunk_bytes(x, bytes, streams)));
  return loops * nvls_loop_s(x);
}

/* all_reduce: the heads' traffic S (h+1)/h per direction bounds it. */
static double nvls_algbw(const struct net_ctx *x) {
  double b = x->b_intra * x->nvls_eff;
  double h = fmin((double)x->n, (double)NET_NVLS_MAX_ARITY);
  return x->op == PL_COLL_ALL_REDUCE ? b * h / (h + 1.0) : b;
}

/* Pipeline fill: one loop (a chunk on every stream, at most the message)
 * crosses the kernel's stages before the last loop can finish
 * (docs/collectives.md, "Pipeline fill"). */
double net_nvls_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  (void)p; /* Simple only */
  double streams = nvls_streams(x);
  return fmin(bytes, streams * net_nvls_chunk_bytes(x, bytes, streams)) / nvls_algbw(x);
}

double net_nvls_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (p != PL_PROTO_SIMPLE || !x->nvls || x->m != 1)
    return -1.0;
  switch (x->op) {
  case PL_COLL_ALL_REDUCE: break;
  case PL_COLL_ALL_GATHER:
  case PL_COLL_REDUCE_SCATTER:
    if (x->n > NET_NVLS_MAX_ARITY)
      return -1.0;
    break;
  default: return -1.0;
  }
  double algbw = nvls_algbw(x);
  return net_hw_lat_table_s(x->intra_hw, NET_T_NVLS, p) + nvls_chunk_lat_s(x, bytes) + bytes / algbw;
}
