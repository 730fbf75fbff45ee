/* pat.c: NCCL's PAT algorithm ("Parallel Aggregated Trees", NCCL >= 2.23)
 * for all_gather and reduce_scatter with one rank per node.
 *
 * NCCL 2.28 src/graph/tuning.cc (ncclTopoTuneModel) enables PAT only when
 * every node holds one rank (ncclPatEnable: nNodes == nRanks), only for
 * all_gather and reduce_scatter and only with the Simple protocol, on the
 * tree graph (src/init.cc: graphs[NCCL_ALGO_PAT] = treeGraph). Its model:
 *   busBw   = nChannels x bw x 0.75, used as the algorithm bandwidth (PAT is
 *             not converted by nRanks / nsteps as ring is)
 *   latency = baseLat[PAT] 8 us + log2i(nNodes) x interLat / 3.5
 *             + nRanks x 2.8 us ("still a linear part")
 * with interLat the Tree network row (hwLat[NET][TREE][Simple] 14 us, "with
 * ppn=1 latencies are fully exposed, use the Tree network latency"). As for
 * the other algorithms plateau takes nChannels x bw from the hardware: one
 * rank per node pushes what its NICs carry (b_net_node with g = 1). No
 * pipeline fill is charged: the model's log-depth latency already counts
 * the tree's stages (docs/collectives.md, "PAT"). NCCL 2.23.x ranks PAT at
 * 0.85, not 0.75 (net_ver_pat_bw_factor); the charge keeps 0.75. */
#include "net/net_int.h"

#include <math.h>

/* NCCL 2.28 tuning.cc: the PAT linear term, us per rank, and the divisor of
 * its log-depth network latency. */
#define PAT_US_PER_RANK 2.8
#define PAT_LOG_LAT_DIV 3.5
#define PAT_BW_FACTOR 0.75

double net_pat_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  /* NCCL_ALGO=Ring,Tree (Google's GPUDirect-TCPXO profile, tuner.c) leaves PAT out */
  if (p != PL_PROTO_SIMPLE || x->g != 1 || x->m < 2 || x->ring_tree_only)
    return -1.0;
  if (x->op != PL_COLL_ALL_GATHER && x->op != PL_COLL_REDUCE_SCATTER)
    return -1.0;
  double f = x->charge ? PAT_BW_FACTOR : net_ver_pat_bw_factor(x->nccl_version, PAT_BW_FACTOR);
  double algbw = net_node_bw(x) * f;
  double inter = net_hop_lat_s(x, NET_HW_NET, NET_T_TREE, p);
  double lat = net_base_lat_s(NET_T_PAT, p) + (double)net_log2i(x->m) * inter / PAT_LOG_LAT_DIV +
               (double)x->n * PAT_US_PER_RANK * 1e-6;
  return lat + bytes / algbw;
}
