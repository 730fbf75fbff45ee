/* collnet.c: NCCL's CollNet algorithms, the collectives that InfiniBand
 * SHARP reduces and gathers in the switches (cluster field inter.sharp:
 * NCCL_COLLNET_ENABLE=1 with the SHARP plugin, docs/collectives.md,
 * "CollNet (IB SHARP)").
 *
 * NCCL's model (src/graph/tuning.cc ncclTopoTuneModel, checked in 2.21.5,
 * the version of the MLPerf v4.0 runs, and 2.29.2):
 *   CollNetDirect, all_gather / reduce_scatter (NCCL >= 2.20.3; 2.19.4 runs
 *   them on Ring and NVLS only), Simple only, on NVSwitch nodes ("Disable
 *   CollNet+Direct if not on an NVSwitch system") with at most one rank per
 *   head ("AllGather/ReduceScatter requires 1:1 GPU:NIC"):
 *     busBw   = ppn x min(bwIntra, 0.9 x bwInter)   (2.29; 2.21: ppn x bw x
 *               0.95 at 1 ppn ... 0.85 at 8 ppn), used as the algorithm
 *               bandwidth (no busBw -> algBw conversion for these ops);
 *               the kernel (src/device/reduce_scatter.h and all_gather.h
 *               RunWorkColl<..., NCCL_ALGO_COLLNET_DIRECT, NCCL_PROTO_SIMPLE>,
 *               2.21-2.29: Phase 1 "Scatter inputs to peers", the Scatterer
 *               loop over the nRails - 1 other heads) moves (ppn-1)/ppn of
 *               every rank's buffer over its NVLink, which NCCL's formula
 *               does not bound
 *     latency = 2 (min(1, ppn-1) intraLat + (ppn-1) 0.4 us) + interLat
 *   CollNetChain, all_reduce, Simple only:
 *     algBw   = nChannels x bwIntra x 0.5
 *     latency = 2 (ppn-1) intraLat + interLat
 * with intraLat = hwLat[NVLINK][CollNet*][Simple] (Direct 3.7 us, Chain
 * 2.8 us), interLat = hwLat[NET][CollNet*][Simple] (Direct 31 us, Chain
 * 30 us; "with ppn=1 latencies are fully exposed, use the Tree network
 * latency", 2.26+), baseLat 0. As everywhere in plateau the bandwidths are
 * the hardware's: a node's ppn ranks move the gathered or scattered bytes
 * through their own NICs (rank NIC rate x ppn, x NCCL's 0.9), and the chain
 * sends every byte twice over each GPU's NVLink (up to the head, back
 * down: NCCL's 0.5) while the node's NICs carry it once each way. Not
 * modelled: CollNetDirect all_reduce (NCCL ranks it at 0.85 x 0.5 of the
 * graph bandwidth, below the chain's 0.5 on one-NIC-per-GPU nodes) and
 * NVLS with SHARP across nodes. */
#include "net/net_int.h"

#include <math.h>
#include <string.h>

#define US 1e-6

/* hwLat rows of CollNetDirect / CollNetChain, Simple (tuning.cc) */
#define DIRECT_NVLINK_US 3.7
#define DIRECT_NET_US 31.0
#define CHAIN_NVLINK_US 2.8
#define CHAIN_NET_US 30.0
/* 2.29: busBw = ppn x min(bwIntra, bwInter x 0.9f) */
#define DIRECT_NET_EFF 0.9

/* The network hop: the CollNet row, or Tree's with one rank per node. */
static double net_hop_s(const struct net_ctx *x, double collnet_us) {
  if (x->g == 1)
    return net_hop_lat_s(x, NET_HW_NET, NET_T_TREE, PL_PROTO_SIMPLE);
  return collnet_us * US * x->lat_scale[NET_HW_NET];
}

double net_collnet_direct_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (!x->sharp || x->ring_tree_only || p != PL_PROTO_SIMPLE)
    return -1.0;
  if (x->op != PL_COLL_ALL_GATHER && x->op != PL_COLL_REDUCE_SCATTER)
    return -1.0;
  if (strcmp(x->c->intra_kind, "nvswitch") != 0 || (double)x->g > x->heads)
    return -1.0;
  if (x->g > NET_COLLNET_MAX_LOCAL_RANKS) /* NCCL: up to 8 local GPUs (net_int.h) */
    return -1.0;
  double g = (double)x->g;
  double intra = DIRECT_NVLINK_US * US * x->lat_scale[x->intra_hw];
  double lat = 2.0 * (fmin(1.0, g - 1.0) * intra + (g - 1.0) * NET_ARITY_SER_US * US) +
               net_hop_s(x, DIRECT_NET_US);
  /* before 2.27 NCCL ranks with 0.95 (1 ppn) .. 0.85 (8 ppn) instead of 0.9
   * (net_ver_collnet_ag_rs_eff); the charge keeps 0.9 */
  double eff = x->charge ? DIRECT_NET_EFF
                         : net_ver_collnet_ag_rs_eff(x->nccl_version, g, DIRECT_NET_EFF);
  double bw = x->b_net_node * eff;
  if (bw <= 0.0)
    return -1.0;
  /* Phase 1 of the kernel ("Scatter inputs to peers") sends each rank's
   * slices of the other g - 1 heads over NVLink (all_gather: receives them),
   * so a rank's NVLink carries (g-1)/g of the buffer while its NIC carries
   * 1/g: where a rank's NVLink is slower than (g-1) x its NIC share the
   * NVLink, not the NICs, bounds the call (with at most 8 ranks a node,
   * NET_COLLNET_MAX_LOCAL_RANKS, not on DGX nodes: 423.8 > 360 GB/s). */
  double t_nvlink = x->g > 1 && x->b_intra > 0.0 ? bytes * (g - 1.0) / g / x->b_intra : 0.0;
  return lat + fmax(bytes / bw, t_nvlink);
}

double net_collnet_chain_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (!x->sharp || x->ring_tree_only || p != PL_PROTO_SIMPLE || x->op != PL_COLL_ALL_REDUCE)
    return -1.0;
  if (x->g > NET_COLLNET_MAX_LOCAL_RANKS && net_ver_collnet_chain_capped(x->nccl_version))
    return -1.0;
  double g = (double)x->g;
  double intra = CHAIN_NVLINK_US * US * x->lat_scale[x->intra_hw];
  double lat = 2.0 * (g - 1.0) * intra + net_hop_s(x, CHAIN_NET_US);
  double bw = x->g > 1 ? fmin(0.5 * x->b_intra, x->b_net_node) : x->b_net_node;
  return bw > 0.0 ? lat + bytes / bw : -1.0;
}

/* NCCL_COLLNET_ENABLE=1 adds half the coll channels: src/graph/connect.cc
 * ncclTopoPostset, "Add more channels to saturate intra-node bandwidth,
 * except the 1 PPN case": nChannels + nChannels/2 (at most MAXCHANNELS 32)
 * when the CollNet chain graph's bwIntra > bwInter and nRanks > nNodes
 * (NCCL 2.18-2.29), after the ring's duplication and before the sm90
 * doubling of fewer than 16. The chain graph (init.cc: pattern TREE, as
 * many channels as the ring graph's search) starts where a network search
 * does, bwIntra = bwInter = the first speed of the release's list not above
 * the rail's bandwidth; src/graph/search.cc pass 2 then raises bwIntra alone
 * ("increase bwIntra for trees (2 nodes or collnet)") to the next faster
 * speed of the list if that many chain channels of it fit on a GPU's NVLink
 * (a chain channel enters and leaves each GPU once). DGX B200 with NCCL
 * 2.29.7 (sm100 list 96, 80, 48, ...): 48 -> 80, 8 x 80 = 640 <= 721.8 GB/s,
 * so the 16 coll channels become 24. Hopper (its list starts at 48), and
 * Blackwell before 2.29.7 (96 above 48: 8 x 96 > 721.8), keep bwIntra at
 * bwInter: nothing is added. The channels stay when the SHARP set-up then
 * fails: init.cc runs ncclCollNetSetup after ncclTopoPostset, and its
 * failure (coll_net.cc) only clears collnetEnable. */
double net_collnet_channels(const struct net_ctx *x, double chain_rings, double ch) {
  if (!x->sharp || x->g < 2 || strcmp(x->c->intra_kind, "nvswitch") != 0)
    return ch;
  size_t n;
  const double *sp = net_ver_inter_speeds(x->nccl_version, x->arch, &n);
  double rail_gbs = x->rail_bw / 1e9;
  size_t i = 0;
  while (i + 1 < n && sp[i] > rail_gbs)
    i++;
  if (i == 0 || chain_rings * sp[i - 1] * 1e9 > x->b_intra)
    return ch;
  return fmin(32.0, ch + floor(ch / 2.0));
}
