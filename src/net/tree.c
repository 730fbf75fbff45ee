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
 * therefore 2 x (node NICs) on two nodes and 1 x beyond.
 * net_tree_fill_s adds the pipeline fill NCCL's model leaves out: a chunk
 * round through the chain and the tree, up and down (docs/collectives.md,
 * "Pipeline fill"). */
#include "net/net_int.h"

#include <math.h>

static double tree_bus_bw(const struct net_ctx *x, enum pl_coll_proto p) {
  double net = net_node_bw(x) * (x->m == 2 ? 2.0 : 1.0);
  double intra = net_intra_bw(x);
  double bw = x->m == 1 ? intra : (x->g == 1 ? net : fmin(intra, net));
  bw = fmin(bw * 0.92, net_tree_cap(x));
  if (p == PL_PROTO_LL)
    return fmin(bw / 3.8, net_ll_max_bw(x));
  if (p == PL_PROTO_LL128)
    return fmin(bw * (x->m == 1 ? 7.0 / 9.0 : 120.0 / 128.0), net_tree_ll128_cap(x));
  return bw;
}

/* Pipeline fill (docs/collectives.md, "Pipeline fill"): a chunk climbs the
 * chain and the inter-node tree and comes back down, 2(g-1) NVLink stages
 * and 2 log2(m) network stages; the last chunk leaves the first stage after
 * bytes / algbw, and then still crosses the others: fill = the sum of the
 * stage times less the slowest. The chunk is NCCL's per channel
 * (stepSize: NCCL_BUFFSIZE / NCCL_STEPS, chunkSteps 1 for tree; at most the
 * call's share of a channel), each stage moving it at its link's
 * per-channel rate. On more than two nodes an interior node of NCCL's
 * binary trees has two children (src/graph/trees.cc ncclGetBtree: d0, d1),
 * and the tree all_reduce receives a chunk from each child before it sends
 * the reduced chunk up (src/device/all_reduce.h runTreeSplit /
 * runTreeUpDown: recvReduceSend on FanAsymmetric<NCCL_MAX_TREE_ARITY, 1>,
 * tree->down to tree->up) and sends one to each child on the way down
 * (FanAsymmetric<1, NCCL_MAX_TREE_ARITY>), all on the channel's network
 * connections: a network stage moves two chunks per channel (NCCL 2.18-2.29;
 * docs/collectives.md, "Session 10 (pol10)"). Two nodes are each other's
 * only child: one chunk. The network stages are the tree's depth up and
 * down. */
static double tree_chunk_bytes(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  double chunk = net_tree_chunk_bytes(x, p);
  if (p == PL_PROTO_LL128) { /* NCCL 2.28 calcCollChunking, tree LL128 branch */
    double ppn = (double)x->g;
    double steps = 1.0 + (double)net_log2i(x->m) + 0.1 * ppn;
    while (floor(bytes / (x->fill_channels * chunk)) < steps * 64.0 / ppn && chunk > 131072.0)
      chunk /= 2.0;
    while (floor(bytes / (x->fill_channels * chunk)) < steps * 16.0 / ppn && chunk > 32768.0)
      chunk /= 2.0;
  }
  return fmin(chunk, bytes / x->fill_channels);
}

double net_tree_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  double chunk = tree_chunk_bytes(x, p, bytes) * x->fill_channels;
  double t_nv = x->g > 1 ? chunk / net_intra_bw(x) : 0.0; /* no NVLink stage with g = 1 */
  double children = x->m > 2 ? 2.0 : 1.0; /* chunks a network stage moves per channel */
  double t_net = x->m > 1 ? children * chunk / (net_node_bw(x) * (x->m == 2 ? 2.0 : 1.0)) : 0.0;
  /* levels a chunk crosses: the tree's depth (net_btree_depth); the
   * latency keeps NCCL's log2i */
  double hops = (double)net_btree_depth(x->m);
  double sum = 2.0 * ((double)(x->g - 1) * t_nv + hops * t_net);
  return sum - fmax(x->g > 1 ? t_nv : 0.0, t_net);
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
