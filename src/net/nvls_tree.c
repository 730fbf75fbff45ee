/* nvls_tree.c: NCCL's NVLS_TREE all_reduce (NCCL >= 2.18): NVLS
 * reduce-scatter inside each node, a double binary tree between nodes on the
 * reduced shards (one NIC per shard), NVLS multicast back.
 *
 * Bandwidth (docs/collectives.md, "NVLS_TREE"): per GPU the NVLS part moves
 * S (h+1)/h per direction at B x eff (h = min(g, 32) heads, nvls.c); per node the tree moves S (two nodes)
 * or 2S (more) per direction over the node's NICs; the slower bounds.
 * NCCL's per-channel cap perChMaxNVLSTreeBws x the NVLS heads (a busBw;
 * the NVLS graph's channels are its heads, nvls_tree_cap below)
 * applies. Latency: NCCL 2.28, hwLat[NVLINK][NVLSTree] + 2 log2i(m)
 * hwLat[NET][NVLSTree] (25 us + 2 log2(m) x 14 us); the 25 us is per call
 * and stays NCCL's table value, the network hops scale with the cluster's
 * inter latency (docs/collectives.md, section 1).
 * net_nvls_tree_fill_s adds the pipeline fill NCCL's model leaves out: one
 * loop of NCCL's NVLS_TREE chunks through NVLS, the tree and NVLS again
 * (docs/collectives.md, "Pipeline fill"). */
#include "net/net_int.h"

#include <math.h>

/* NVLS_TREE chunk (NCCL 2.27-2.28 src/enqueue.cc calcCollChunking): start
 * at NCCL_NVLS_CHUNKSIZE (128 KiB by default), capped by
 * NCCL_NVLSTREE_MAX_CHUNKSIZE (default: 64 KiB on >= 4 nodes, else no cap;
 * the aws-ofi-nccl plugin sets both to 512 KiB on P5, tuner.c), then cut
 * to 256 KiB below 32 x ops x chunk bytes, 128 KiB below 16 x, 64 KiB
 * below 4 x and 32 KiB below 1 x, ops = nvls channels x heads. */
static double nvls_tree_chunk_bytes(const struct net_ctx *x, double bytes, double ops) {
  static const struct net_rung cuts[] = {{32, 262144}, {16, 131072}, {4, 65536}, {1, 32768}};
  return net_chunk_ladder(fmin(x->nvls_chunk, x->nvls_tree_max_chunk), bytes, ops, cuts, 4);
}

/* The node's network rate for NVLS_TREE: the per-channel NIC share
 * (net_node_bw_channels, 0.4 of a rail a channel) on the NVLS channels, but
 * at most NCCL's 16 (NET_NVLS_CHANNELS). NCCL_MIN_CTAS raises the NVLS
 * channels (src/transport/nvls.cc ncclNvlsInit, nvlsChannels = max(minCTAs,
 * ..)), yet connectNvls (src/graph/connect.cc, NCCL 2.18-2.29) runs every
 * NVLS channel of a head rank through that head's one NIC, so the extra
 * channels add no NIC, and NCCL's own note on the NVLS / NVLS_TREE channel
 * count is "NVLS should not need more than 16 channels to get peak BW"
 * (src/enqueue.cc topoGetAlgoInfo, v2.18.3-1 .. v2.29.7-1). The chunk ladder
 * and the fill's loop still count every channel (concurrentOps). Session 27
 * (nvt27), docs/collectives.md. */
static double nvls_tree_net_bw(const struct net_ctx *x) {
  return net_node_bw_channels(x, fmin(x->nvls_channels, NET_NVLS_CHANNELS));
}

/* Pipeline fill (docs/collectives.md, "Pipeline fill"): one loop (a chunk
 * on each of the ops streams, at most the message; NCCL's concurrentOps =
 * nvlsChannels x nvls.nHeads, src/enqueue.cc calcCollChunking, NCCL
 * 2.21-2.29: 16 x 8 on DGX H100, 24 x 8 with NCCL_MIN_CTAS=24, 16 x 32 on
 * an NVL72 rack, whose ranks beyond 32 are not heads) crosses the NVLS
 * reduce-scatter, the network hops of the inter-node tree up and down and
 * the NVLS multicast; fill = the sum of those stage times less the slowest.
 * The heads' trees are ncclGetDtree's (src/graph/connect.cc connectNvls,
 * NCCL 2.18-2.29: even channels tree 0, odd tree 1), so a chunk crosses the
 * tree's depth each way, ceil(log2 m) (net_btree_depth; 4 on 10 nodes, where
 * NCCL's latency term and this fill before session 11 took log2i = 3), as
 * tree.c's fill does (session 10, pol10). */
double net_nvls_tree_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  (void)p; /* Simple only */
  double ops = x->nvls_channels * net_nvls_heads(x);
  double loop = fmin(bytes, ops * nvls_tree_chunk_bytes(x, bytes, ops));
  double t_nvls = loop / (x->b_intra * x->nvls_eff);
  double t_net = loop / nvls_tree_net_bw(x);
  double sum = 2.0 * t_nvls + 2.0 * (double)net_btree_depth(x->m) * t_net;
  return sum - fmax(t_nvls, t_net);
}

/* NVLS_TREE's busBw ceiling: NCCL 2.28-2.29 ncclTopoTuneModel takes
 * graphs[NVLS_TREE]->nChannels x min(intraBw, interBw, perChMaxNVLSTreeBw),
 * and that graph is the NVLS search graph (src/init.cc: graphs[] = {tree,
 * ring, collnetDirect, collnetChain, nvls, nvls, tree}) whose channels are
 * the NVLS heads (src/graph/search.cc ncclTopoCompute: NVLS maxChannels =
 * min(NCCL_MAX_NVLS_ARITY, GPUs), "NVLS search only tries to find NIC:GPU
 * combinations to compute the heads"), not the 16 NVLS compute channels
 * ("NVLS compute channels work orthogonally to NVLS search channels",
 * src/graph/connect.cc connectNvls). So the ceiling is heads x the
 * per-channel figure: 8 x 57.7 = 461.6 GB/s busBw on two DGX H100 nodes,
 * 8 x 45.5 = 364 on more. NCCL 2.19-2.27 rank NVLS_TREE without it (heads x
 * min(bwIntra, bwInter[/2]) x 5/6), but the 2-node logs of 2.26.2 (qoofyk)
 * and of gj-aion both level off at 466-469 GB/s busBw (docs/collectives.md,
 * "Session 9 (ib9)"): the figure is the algorithm's, the tuner only learned
 * it in 2.28 ("NVLSTree Tuning Fixes. Update tuning data for H100",
 * 2.28.3 release notes). A run stating one of those releases is ranked on
 * their graph form instead (nvls_tree_rank_bw_graph below, session 28); the
 * charge keeps this cap. 0: no cap. */
static double nvls_tree_cap(const struct net_ctx *x) {
  return net_nvls_heads(x) * net_nvls_tree_cap_per_head(x);
}

/* The bandwidth NCCL 2.19.3-2.27.x rank NVLS_TREE with (ranking only;
 * net_ver_nvls_tree_graph_ranked): heads x min(bwIntra, bwInter, or
 * bwInter / 2 on more than 2 nodes) x 5/6 (ncclTopoTuneModel), on the NVLS
 * search graph's figures (src/graph/search.cc, v2.26.2-1):
 * - channels: the heads (ncclTopoCompute, NVLS maxChannels = min(
 *   NCCL_MAX_NVLS_ARITY, GPUs));
 * - bwIntra: ncclTopoSearchTryNvls follows NVS -> GPU and GPU -> NVS for
 *   every GPU at bwIntra, twice for the head's own GPU, so over all the
 *   heads a GPU's NVLink carries (heads + 1) x bwIntra: the first search
 *   speed (net_ver_inter_speeds: the search takes the inter-node list when
 *   the node has NICs) with (heads + 1) x speed <= the NVLink bandwidth as
 *   NCCL's topology sees it (intra nccl_bandwidth; DGX H100: 9 x 40 = 360
 *   <= 18 x SM90_NVLINK_BW 20.6 = 370.8, so 40);
 * - bwInter: pass 2 raises it alone ("NCCL_TOPO_PATTERN_NVLS &&
 *   tmpGraph.bwInter < tmpGraph.bwIntra*2") through the faster speeds the
 *   NIC path carries: 42, 45, 48 on a 50 GB/s rail.
 * DGX H100 on > 2 nodes: 8 x min(40, 48 / 2) x 5/6 = 160 GB/s, where 2.28's
 * form gives min(.., 8 x 45.5 busBw); the ring ranks at 8 x 48 x n / (2(n-1))
 * (195 GB/s on 64 ranks): ring from ~630 MB on 8 nodes, ~260 MB on 4
 * (docs/collectives.md, "Session 28 (h100r28)"). */
static double nvls_tree_rank_bw_graph(const struct net_ctx *x) {
  size_t nsp;
  const double *sp = net_ver_inter_speeds(x->nccl_version, x->arch, &nsp);
  double heads = net_nvls_heads(x);
  double nvlink_gbs = x->b_intra / 1e9, rail_gbs = x->rail_bw / 1e9;
  size_t k = nsp - 1;
  for (size_t i = 0; i < nsp; i++)
    if ((heads + 1.0) * sp[i] <= nvlink_gbs) {
      k = i;
      break;
    }
  double bw_intra = sp[k], bw_inter = sp[k];
  while (k > 0 && bw_inter < 2.0 * bw_intra && sp[k - 1] <= rail_gbs)
    bw_inter = sp[--k];
  double bw = fmin(bw_intra, x->m <= 2 ? bw_inter : bw_inter / 2.0);
  return heads * bw * 1e9 * 5.0 / 6.0;
}

double net_nvls_tree_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes) {
  if (p != PL_PROTO_SIMPLE || !x->nvls || x->m < 2 || x->op != PL_COLL_ALL_REDUCE ||
      x->ring_tree_only)
    return -1.0;
  double h = net_nvls_heads(x); /* the heads carry S (h+1)/h (nvls.c) */
  double per_byte_intra = (h + 1.0) / h / (x->b_intra * x->nvls_eff);
  double per_byte_net = (x->m == 2 ? 1.0 : 2.0) / nvls_tree_net_bw(x);
  double algbw = 1.0 / fmax(per_byte_intra, per_byte_net);
  double cap = nvls_tree_cap(x);
  if (cap > 0.0) /* a busBw cap; algbw = busBw n / (2(n-1)) */
    algbw = fmin(algbw, cap * (double)x->n / (2.0 * (double)(x->n - 1)));
  /* NCCL >= 2.29 ranks NVLS_TREE on Blackwell x86 hosts at treeCorrectionFactor
   * of its bandwidth up to 1 GiB (nccl_version.c); the charged call keeps it */
  if (!x->charge && net_ver_nvls_tree_corrected(x->nccl_version, x->arch, x->c->cpu_vendor))
    algbw *= net_tree_correction_cols(p, bytes, net_ver_tree_corr_cols(x->nccl_version));
  /* NCCL 2.19.3-2.27.x rank on the NVLS graph instead; the charge keeps the
   * algorithm's rate above */
  if (!x->charge && net_ver_nvls_tree_graph_ranked(x->nccl_version))
    algbw = nvls_tree_rank_bw_graph(x);
  double lat = net_hw_lat_table_s(x->intra_hw, NET_T_NVLS_TREE, p) +
               2.0 * (double)net_log2i(x->m) * net_hop_lat_s(x, NET_HW_NET, NET_T_NVLS_TREE, p);
  return lat + bytes / algbw;
}
