/* nvls_tree.c: NCCL's NVLS_TREE all_reduce (NCCL >= 2.18): NVLS
 * reduce-scatter inside each node, a double binary tree between nodes on the
 * reduced shards (one NIC per shard), NVLS multicast back.
 *
 * Bandwidth (docs/collectives.md, "NVLS_TREE"): per GPU the NVLS part moves
 * S (g+1)/g per direction at B x eff; per node the tree moves S (two nodes)
 * or 2S (more) per direction over the node's NICs; the slower bounds.
 * NCCL's per-channel cap perChMaxNVLSTreeBws x 16 NVLS channels (a busBw)
 * applies. Latency: NCCL 2.28, hwLat[NVLINK][NVLSTree] + 2 log2i(m)
 * hwLat[NET][NVLSTree] (25 us + 2 log2(m) x 14 us). */
#include "net/net_int.h"

#include <math.h>

double net_nvls_tree_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (p != PL_PROTO_SIMPLE || !x->nvls || x->m < 2 || x->op != PL_COLL_ALL_REDUCE)
    return -1.0;
  double per_byte_intra = ((double)x->g + 1.0) / (double)x->g / (x->b_intra * x->nvls_eff);
  double per_byte_net = (x->m == 2 ? 1.0 : 2.0) / x->b_net_node;
  double algbw = 1.0 / fmax(per_byte_intra, per_byte_net);
  double cap = net_nvls_tree_cap(x);
  if (cap > 0.0) /* a busBw cap; algbw = busBw n / (2(n-1)) */
    algbw = fmin(algbw, cap * (double)x->n / (2.0 * (double)(x->n - 1)));
  double lat = net_hop_lat_s(x, x->intra_hw, NET_T_NVLS_TREE, p) +
               2.0 * (double)net_log2i(x->m) * net_hop_lat_s(x, NET_HW_NET, NET_T_NVLS_TREE, p);
  return lat + bytes / algbw;
}
