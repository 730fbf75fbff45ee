/* nccl_tables.c: the constants of NCCL's tuning model, copied from NCCL 2.28
 * (2.28.3-2.28.7; the entries other releases change: nccl_version.c)
 * src/graph/tuning.cc (ncclTunerConstantsDefaults, nvlsEfficiency,
 * treeCorrectionFactor, getNetOverhead). These are properties of NCCL's
 * software, not of the hardware: the hardware figures (link bandwidths, the
 * per-hop latency of each fabric) come from the cluster file. A cluster's
 * intra/inter latency rescales NCCL's hwLat rows of that link kind, so a
 * preset whose latencies equal NCCL's Ring/Simple entries (3.4 us NVLink,
 * 14 us network) reproduces NCCL exactly, and a calibrated file moves every
 * protocol's latency by the same factor. */
#include "net/net_int.h"

#include <math.h>
#include <string.h>

#define US 1e-6
#define GBPS 1e9

/* baseLat [algo][proto], us: Tree {6.8, 14.0, 8.4}, Ring {6.6, 14.0, 8.4},
 * NVLS and NVLSTree 0, PAT {8, 8, 8}. */
static const double base_lat_us[NET_T_N][PL_PROTO_N] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};

/* hwLat [link kind][algo][proto], us. */
static const double hw_lat_us[NET_HW_N][NET_T_N][PL_PROTO_N] = {
    /* NVLINK: Tree, Ring, NVLS, NVLSTree, PAT */
    {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    /* PCI */
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    /* NET */
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, 14}, {0, 0, 14}},
};

/* llMaxBws [row][nodes 1/2/>2], GB/s: rows are Volta/Intel, Ampere/AMD,
 * Hopper, Blackwell (single node: by GPU; several nodes: by CPU vendor). */
static const double ll_max_bws[NET_ARCH_N][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
static const double per_ch_ring_ll128[NET_ARCH_N][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {2 * 36.7, 2 * 36.7, 2 * 36.7}};
static const double per_ch_tree_ll128[NET_ARCH_N][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
static const double per_ch_tree[NET_ARCH_N][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
static const double per_ch_nvls_tree[NET_ARCH_N][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.1}};
static const double nvls_eff[NET_ARCH_N] = {0.0, 0.0, 0.85, 0.74};

/* treeCorrectionFactor [proto][log2(bytes/64)], powers of two 64 B .. 256 MiB
 * (23 columns, NCCL up to 2.28.9); NCCL 2.29 appends a 24th for 512 MiB
 * (v2.29.2-1 src/graph/tuning.cc: {1.0, 1.0, .9}; net_ver_tree_corr_cols),
 * which only NVLS_TREE's ranking on Blackwell x86 hosts reads: NCCL's tree
 * keeps its 23 (ncclTopoGetAlgoTime "logSize < 23"). */
static const double tree_corr[PL_PROTO_N][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
     .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
};

double net_base_lat_s(enum net_talgo a, enum pl_coll_proto p) { return base_lat_us[a][p] * US; }

double net_hw_lat_table_s(enum net_hw hw, enum net_talgo a, enum pl_coll_proto p) {
  return hw_lat_us[hw][a][p] * US;
}

double net_hop_lat_s(const struct net_ctx *x, enum net_hw hw, enum net_talgo a,
                     enum pl_coll_proto p) {
  /* the release's table ranks; the charge keeps the default (nccl_version.c) */
  int64_t v = x->charge ? 0 : x->nccl_version;
  return net_ver_hw_lat_us(v, hw, a, p, hw_lat_us[hw][a][p]) * US * x->lat_scale[hw];
}

/* Channels the per-channel caps (perChMaxRingLL128Bw, perChMaxTreeBw,
 * perChMaxTreeLL128Bw) count. NCCL's tuner multiplies them by the graph's
 * channels (graphs[a]->nChannels in ncclTopoTuneModel, NCCL 2.18-2.29):
 * when ranking, across nodes the rings of the network search (tuner.c
 * group_net_channels), on one node the cluster's count. A graph channel
 * runs as two coll channels (CTAs): ncclTopoPostset, src/graph/connect.cc,
 * "nChannels = comm->nChannels = std::min(MAXCHANNELS,nChannels*2)"), so
 * a charged call on nc coll channels gets nc / 2 of them: half a cap per
 * CTA, NCCL's own figure when every channel runs. Per CTA, not per graph
 * channel: with NCCL_MIN_NCHANNELS=32 (four CTAs a graph channel) the
 * 128-node LL128 ring log reaches 367 GB/s, above 8 x 36.7 = 293.6
 * (docs/collectives.md, "Session 9 (nvls9)"). */
static double used_channels(const struct net_ctx *x) {
  if (x->charge)
    return x->nc / 2.0;
  return x->m > 1 && x->search_rings > 0.0 ? x->search_rings : x->channels;
}
/* The share of the full channel set a charged call runs on. */
static double channel_share(const struct net_ctx *x) {
  double full = x->m > 1 ? x->net_channels : x->channels;
  return x->charge && full > 0.0 ? fmin(1.0, x->nc / full) : 1.0;
}

double net_intra_bw(const struct net_ctx *x) { return x->b_intra * channel_share(x); }

double net_node_bw_channels(const struct net_ctx *x, double channels) {
  if (!x->charge || x->rail_bw <= 0.0)
    return x->b_net_node;
  double frac = x->buff_scale / (x->buff_scale + NET_CHANNEL_BUBBLE_STEPS);
  return fmin(x->b_net_node, channels * frac * x->rail_bw);
}

double net_node_bw(const struct net_ctx *x) {
  return net_node_bw_channels(x, x->charge ? x->nc : x->net_channels);
}

/* llMaxBw bounds the whole call (NCCL applies it to the call, not per
 * channel); fewer channels bind through the links they drive instead. */
double net_ll_max_bw(const struct net_ctx *x) { return ll_max_bws[x->llidx1][x->idx2] * GBPS; }

/* One entry of a per-channel table (GB/s): when ranking, the Blackwell row
 * of the cluster's NCCL release where it differs; the charge keeps the
 * default tables (nccl_version.c). */
static double per_ch(const struct net_ctx *x, const double (*table)[3], enum net_cap cap) {
  int64_t v = x->charge ? 0 : x->nccl_version;
  const double *row = x->arch == NET_ARCH_BLACKWELL ? net_ver_blackwell_row(v, cap) : NULL;
  return row != NULL ? row[x->idx2] : table[x->arch][x->idx2];
}

double net_ring_ll128_cap(const struct net_ctx *x) {
  return used_channels(x) * per_ch(x, per_ch_ring_ll128, NET_CAP_RING_LL128) * GBPS;
}

double net_tree_cap(const struct net_ctx *x) {
  return used_channels(x) * per_ch(x, per_ch_tree, NET_CAP_TREE) * GBPS;
}

double net_tree_ll128_cap(const struct net_ctx *x) {
  return used_channels(x) * per_ch(x, per_ch_tree_ll128, NET_CAP_TREE_LL128) * GBPS;
}

/* perChMaxNVLSTreeBws: NVLS_TREE's busBw ceiling per NVLS head (nvls_tree.c
 * multiplies it by the heads); 0 means "no cap" (Hopper/Blackwell single
 * node has no NVLSTree). */
double net_nvls_tree_cap_per_head(const struct net_ctx *x) {
  return per_ch(x, per_ch_nvls_tree, NET_CAP_NVLS_TREE) * GBPS;
}

double net_tree_correction_cols(enum pl_coll_proto p, double bytes, int cols) {
  double units = bytes / 64.0;
  if (units < 1.0) /* NCCL: log2i(nBytes >> 6) < 0, no correction */
    return 1.0;
  int k = net_log2i((int64_t)units);
  return k < cols && k < 24 ? tree_corr[p][k] : 1.0;
}

double net_tree_correction(enum pl_coll_proto p, double bytes) {
  return net_tree_correction_cols(p, bytes, 23);
}

double net_nvls_efficiency(enum net_arch a) { return nvls_eff[a]; }

/* Ring chunk = buffSizes[proto] / NCCL_STEPS (8) x chunkSteps (src/enqueue.cc
 * calcCollChunking). Default buffers (src/init.cc, src/include/device.h):
 * Simple NCCL_BUFFSIZE 4 MiB with ALLREDUCE/ALLGATHER_CHUNKSTEPS = 4, so
 * 2 MiB; LL 8 lines x 512 threads x 8 steps x 16 B = 512 KiB, 64 KiB a step,
 * halved for the flags; LL128 120 x 640 x 8 x 8 B = 4.92 MB, 614,400 B a
 * step, x 15/16 data. */
double net_ring_chunk_bytes(const struct net_ctx *x, enum pl_coll_proto p) {
  switch (p) {
  case PL_PROTO_LL: return 32768.0;
  case PL_PROTO_LL128: return 576000.0;
  default: return 2097152.0 * x->buff_scale;
  }
}

double net_tree_chunk_bytes(const struct net_ctx *x, enum pl_coll_proto p) {
  return p == PL_PROTO_SIMPLE ? 524288.0 * x->buff_scale : net_ring_chunk_bytes(x, p);
}

/* getNetOverhead(): 1 us on Intel hosts, 2 us on AMD, 1 us otherwise. */
double net_cpu_overhead_s(const char *cpu_vendor) {
  return strcmp(cpu_vendor, "amd") == 0 ? 2.0 * US : 1.0 * US;
}

int net_btree_depth(int64_t m) { return m > 1 ? net_log2i(m - 1) + 1 : 0; }

int net_log2i(int64_t v) {
  int k = -1;
  while (v > 0) {
    v >>= 1;
    k++;
  }
  return k;
}
