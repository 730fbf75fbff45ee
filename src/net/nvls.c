/* nvls.c: NVLink SHARP inside one node (NCCL's NVLS algorithm): the NVSwitch
 * reduces (multimem.ld_reduce) and multicasts (multimem.st), Simple protocol
 * only, on NVLS-capable switches (Hopper, Blackwell).
 *
 * Bandwidth from the traffic (docs/collectives.md, "NVLS"): for all_reduce
 * of S bytes over n GPUs each GPU serves S to the switch's reductions and
 * stores its reduced S/n, and receives S/n plus the multicast S, so each
 * direction carries S (n+1)/n: algbw = B x eff x n/(n+1). all_gather (each
 * GPU receives S) and reduce_scatter (each GPU serves S) run at B x eff.
 * eff is NCCL's nvlsEfficiency (0.85 Hopper, 0.74 Blackwell). NCCL's own
 * selection model scales differently (bwIntra x eff x 2 for all_reduce,
 * capped by bwInter): we keep its efficiency but not that form, which
 * under-predicts the measured NVLS all_reduce on H100 by ~25%.
 * Latency: hwLat[NVLINK][NVLS][Simple] = 25 us, no base latency. Across nodes
 * NVLS needs in-network reduction (SHARP/CollNet), which plateau does not
 * model: multi-node groups use NVLS_TREE (nvls_tree.c) instead. */
#include "net/net_int.h"

double net_nvls_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (p != PL_PROTO_SIMPLE || !x->nvls || x->m != 1)
    return -1.0;
  double b = x->b_intra * x->nvls_eff;
  double algbw;
  switch (x->op) {
  case PL_COLL_ALL_REDUCE: algbw = b * (double)x->n / (double)(x->n + 1); break;
  case PL_COLL_ALL_GATHER:
  case PL_COLL_REDUCE_SCATTER: algbw = b; break;
  default: return -1.0;
  }
  return net_hop_lat_s(x, x->intra_hw, NET_T_NVLS, p) + bytes / algbw;
}
