/* tree.c: NCCL's tree algorithm (all_reduce only): a chain through the ranks
 * of each node and a double binary tree between nodes, reduce going up and
 * broadcast coming down.
 *
 * NCCL 2.28 src/graph/tuning.cc: latency = baseLat + 2((g-1) intraLat +
 * log2i(m) interLat); busBw x 0.92 capped per channel; LL /3.8 capped by
 * llMaxBw; LL128 x 7/9 on one node, x 120/128 across nodes; algbw = busBw / 2,
 * times treeCorrectionFactor for sizes up to 256 MiB.
 *
 * busBw from the hardware (docs/collectives.md, "Tree"): the intra-node chain
 * moves every byte up and down each GPU, so it runs at the NVLink rate as
 * NCCL assumes; between nodes a double binary tree sends and receives 2S per
 * node for S bytes (interior in one tree, leaf in the other), but only S when
 * there are two nodes (each is the other's only child). The network bound is
 * therefore 2 x (node NICs) on two nodes and 1 x beyond. */
#include "net/net_int.h"

#include <math.h>

static double tree_bus_bw(const struct net_ctx *x, enum pl_coll_proto p) {
  double net = x->b_net_node * (x->m == 2 ? 2.0 : 1.0);
  double bw = x->m == 1 ? x->b_intra : (x->g == 1 ? net : fmin(x->b_intra, net));
  bw = fmin(bw * 0.92, net_tree_cap(x));
  if (p == PL_PROTO_LL)
    return fmin(bw / 3.8, net_ll_max_bw(x));
  if (p == PL_PROTO_LL128)
    return fmin(bw * (x->m == 1 ? 7.0 / 9.0 : 120.0 / 128.0), net_tree_ll128_cap(x));
  return bw;
}

double net_tree_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (x->op != PL_COLL_ALL_REDUCE)
    return -1.0;
  if (p == PL_PROTO_LL128 && !x->ll128)
    return -1.0;
  double algbw = tree_bus_bw(x, p) * 0.5 * net_tree_correction(p, bytes);
  double intra = net_hop_lat_s(x, x->intra_hw, NET_T_TREE, p);
  double inter = net_hop_lat_s(x, NET_HW_NET, NET_T_TREE, p);
  double lat = net_base_lat_s(NET_T_TREE, p) +
               2.0 * ((double)(x->g - 1) * intra + (double)net_log2i(x->m) * inter);
  return lat + bytes / algbw;
}
