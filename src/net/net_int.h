/* net_int.h (internal to src/net): the per-call context every algorithm file
 * reads, the algorithm table, and NCCL's tuning constants (nccl_tables.c).
 *
 * The model is NCCL's own cost model (src/graph/tuning.cc, NCCL 2.28):
 *   time = latency(algo, proto, hops) + bytes / algbw(algo, proto)
 * with the hardware bandwidths taken from the cluster instead of NCCL's
 * topology search, and NVLS bandwidth derived from its traffic pattern.
 * docs/collectives.md derives each formula. */
#ifndef PL_NET_INT_H
#define PL_NET_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <plateau/coll.h>

/* Rows of NCCL's tables. NET_ARCH_* index the per-architecture tables
 * (NCCL_VOLTA/AMPERE/HOPPER/BLACKWELL_COMPCAP_IDX). */
enum net_arch { NET_ARCH_VOLTA, NET_ARCH_AMPERE, NET_ARCH_HOPPER, NET_ARCH_BLACKWELL, NET_ARCH_N };
/* Link kinds of NCCL's hwLat table (NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET). */
enum net_hw { NET_HW_NVLINK, NET_HW_PCI, NET_HW_NET, NET_HW_N };
/* The algorithms of the latency tables, in plateau's own order. */
enum net_talgo { NET_T_TREE, NET_T_RING, NET_T_NVLS, NET_T_NVLS_TREE, NET_T_PAT, NET_T_N };

/* Everything an algorithm needs about one call, computed once per call. */
struct net_ctx {
  const struct pl_cluster *c;
  enum pl_coll_op op;
  int64_t n;                /* ranks */
  int64_t g;                /* ranks per node */
  int64_t m;                /* nodes */
  enum net_arch arch;
  int idx2;                 /* NCCL's node-count column: 0 = 1 node, 1 = 2 nodes, 2 = more */
  int llidx1;               /* NCCL's llMaxBws row: arch on 1 node, CPU vendor otherwise */
  enum net_hw intra_hw;     /* NVLINK or PCI */
  double b_intra;           /* bytes/s per GPU per direction inside a node */
  double b_net_rank;        /* bytes/s per rank per direction to other nodes */
  double b_net_node;        /* bytes/s per node per direction used by this group's g ranks */
  double lat_scale[NET_HW_N]; /* cluster latency / NCCL's Ring-Simple entry, per link kind */
  double net_overhead_s;    /* NCCL getNetOverhead(): per network post */
  double channels;          /* NCCL coll channels */
  double net_channels;      /* coll channels of this group's multi-node rings/trees (tuner.c) */
  double search_rings;      /* NCCL's graph channels across nodes (graphs[a]->nChannels, tuner.c) */
  double search_bw;         /* their nChannels x bwInter, bytes/s (0: not derived) */
  double rail_bw;           /* bytes/s of one NCCL network device (a GPU's rail) */
  double nvls_channels;     /* NVLS channels (NET_NVLS_CHANNELS, raised by NCCL_MIN_CTAS) */
  double nvls_node_channels; /* NVLS channels of a one-node group (nvls.c): NCCL's per
                              * architecture and release (net_ver_nvls_node_channels),
                              * raised by NCCL_MIN_CTAS */
  double nc;                /* channels the charged call runs on (topoGetAlgoInfo, tuner.c) */
  bool charge;              /* false: NCCL's ranking view (all channels, NICs at line rate);
                             * true: the charged time (nc channels, per-channel NIC share) */
  double fill_channels;     /* channels this group's ring/tree pipelines run on (tuner.c) */
  bool ll128;               /* LL128 enabled (NCCL's default rules) */
  bool ring_tree_only;      /* the system's NCCL setup sets NCCL_ALGO=Ring,Tree (tuner.c):
                             * PAT, CollNet and NVLS_TREE cannot run */
  bool proto_on[PL_PROTO_N];/* protocols the system's NCCL setup allows (tuner.c) */
  double buff_scale;        /* NCCL_BUFFSIZE / its 4 MiB default (Simple chunks scale with it) */
  double nvls_chunk;        /* NCCL_NVLS_CHUNKSIZE in effect (bytes) */
  double nvls_tree_max_chunk; /* NCCL_NVLSTREE_MAX_CHUNKSIZE in effect (bytes) */
  bool nvls;                /* NVLS usable by this group */
  bool sharp;               /* CollNet (IB SHARP) usable by this group (collnet.c) */
  double heads;             /* CollNet heads per node: NCCL's collNetHeadsNum, one per rail */
  double nvls_eff;          /* NCCL nvlsEfficiency[arch] */
  double max_ctas;          /* the communicator's CTA cap (ncclConfig_t maxCTAs after
                             * NCCL's env rules, ctas.c); 0: none */
  int64_t nccl_version;     /* the cluster's NCCL release (nccl_version.c), 0: default */
};

/* One algorithm: time_s is NCCL's cost model of one call under a protocol,
 * or a negative value when it cannot run (op, protocol or cluster not
 * supported); the tuner ranks on it, as NCCL does. fill_s (NULL: none) is
 * the pipeline fill NCCL's model leaves out, added to the chosen pair only
 * (docs/collectives.md, "Pipeline fill"). */
struct net_algo {
  enum pl_coll_algo algo;
  double (*time_s)(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
  double (*fill_s)(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
};

double net_ring_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
/* A communicator's CTA cap on the charged call (ctas.c): nc and the NVLS
 * channels at most x->max_ctas. */
void net_ctas_charge(struct net_ctx *cx);
/* The proxy thread's messages (proxy_msg.c): per ring step, and the time a
 * charged ring call across nodes spends posting them and, where one message
 * is a step's only chain, moving it (xfer_s: the call's transfer time at
 * all channels; 0 unless the cluster has inter.message_overhead). */
double net_proxy_msgs_per_step(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_proxy_ring_s(const struct net_ctx *x, enum pl_coll_proto p, int64_t nsteps,
                        double bytes, double xfer_s);
double net_ring_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_tree_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_tree_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_nvls_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_nvls_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_nvls_tree_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_nvls_tree_fill_s(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_p2p_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_pat_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_collnet_direct_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
double net_collnet_chain_time(const struct net_ctx *x, enum pl_coll_proto p, double bytes);
/* The coll channels of a group once NCCL_COLLNET_ENABLE=1 has added its half
 * (ch: the ring's, chain_rings: the ring graph's search channels). */
double net_collnet_channels(const struct net_ctx *x, double chain_rings, double ch);

/* NCCL constants (nccl_tables.c). Latencies in seconds, bandwidths in bytes/s. */
double net_base_lat_s(enum net_talgo a, enum pl_coll_proto p);
/* hwLat of NCCL scaled by the cluster's measured or preset latency of that link kind. */
double net_hop_lat_s(const struct net_ctx *x, enum net_hw hw, enum net_talgo a,
                     enum pl_coll_proto p);
double net_hw_lat_table_s(enum net_hw hw, enum net_talgo a, enum pl_coll_proto p);
double net_ll_max_bw(const struct net_ctx *x);
double net_ring_ll128_cap(const struct net_ctx *x);
double net_tree_cap(const struct net_ctx *x);
double net_tree_ll128_cap(const struct net_ctx *x);
double net_nvls_tree_cap_per_head(const struct net_ctx *x);
double net_tree_correction(enum pl_coll_proto p, double bytes);
/* The same with the table's first cols columns (23 up to NCCL 2.28, 24 from
 * 2.29: net_ver_tree_corr_cols). */
double net_tree_correction_cols(enum pl_coll_proto p, double bytes, int cols);
double net_nvls_efficiency(enum net_arch a);
double net_cpu_overhead_s(const char *cpu_vendor);

/* Values that change with the NCCL release (nccl_version.c; version in
 * NCCL_VERSION_CODE form, 0 = not stated: the default tables). */
enum net_cap { NET_CAP_RING_LL128, NET_CAP_TREE_LL128, NET_CAP_TREE, NET_CAP_NVLS_TREE };
/* hwLat of that release; table_us is the default table's entry. */
double net_ver_hw_lat_us(int64_t version, enum net_hw hw, enum net_talgo a, enum pl_coll_proto p,
                         double table_us);
/* The Blackwell row (N1/N2/N4) of a per-channel table in that release, or
 * NULL where it is the default table's. */
const double *net_ver_blackwell_row(int64_t version, enum net_cap cap);
/* NVLS channels NCCL builds for a group inside one NVLink domain (one node
 * here) on that architecture in that release. */
double net_ver_nvls_node_channels(int64_t version, enum net_arch arch);
/* NCCL's search speeds across the network (GB/s per channel, fastest
 * first) for that architecture in that release; *n gets their count. */
const double *net_ver_inter_speeds(int64_t version, enum net_arch arch, size_t *n);
/* Columns of treeCorrectionFactor in that release (23, or 24 from 2.29). */
int net_ver_tree_corr_cols(int64_t version);
/* Whether that release ranks NVLS_TREE all_reduce with treeCorrectionFactor
 * on this architecture and host CPU (from 2.29, Blackwell on x86 hosts). */
bool net_ver_nvls_tree_corrected(int64_t version, enum net_arch arch, const char *cpu_vendor);
/* PAT's busBw factor in that release (0.85 in 2.23.x); table: the default's. */
double net_ver_pat_bw_factor(int64_t version, double table);
/* CollNetDirect all_gather / reduce_scatter's factor on ppn x the rail in that
 * release (before 2.27: 0.95 at 1 ppn to 0.85 at 8); table: the default's. */
double net_ver_collnet_ag_rs_eff(int64_t version, double ppn, double table);
/* Whether that release skips CollNetChain above NET_COLLNET_MAX_LOCAL_RANKS
 * ranks a node (from 2.28.3; version 0 = the default release: yes). */
bool net_ver_collnet_chain_capped(int64_t version);
/* Whether that release ranks NVLS_TREE on its NVLS search graph alone,
 * heads x min(bwIntra, bwInter[/2 on > 2 nodes]) x 5/6, without
 * perChMaxNVLSTreeBws (2.19.3 to 2.27.x; version 0 = the default release:
 * no). nvls_tree.c nvls_tree_rank_bw_graph. */
bool net_ver_nvls_tree_graph_ranked(int64_t version);

/* Largest data chunk of one ring step per channel, by protocol (NCCL
 * calcCollChunking: buffSize / NCCL_STEPS x chunkSteps; LL carries half its
 * line, LL128 15 of 16 words). */
double net_ring_chunk_bytes(const struct net_ctx *x, enum pl_coll_proto p);
/* Same for tree (chunkSteps 1): one buffer step. */
double net_tree_chunk_bytes(const struct net_ctx *x, enum pl_coll_proto p);

/* What one NCCL channel drives on the network, as a fraction of its NIC's
 * line rate: a channel leaves its NIC idle while it flushes and
 * synchronises between steps ("On a channel, there can be communication
 * bubbles where no communication is happening, e.g. because we are flushing
 * data or synchronizing. Having two channels per NIC makes the NIC
 * utilization closer to peak", S. Jeaugey, NCCL maintainer, NVIDIA/nccl
 * issue #438), and with NCCL's default two channels per NIC and default
 * 4 MiB buffers a 200 Gb/s (25 GB/s) NIC gives "~20 GB/s" ("My rule of
 * thumb is ~20 GB/s per NIC", NVIDIA/nccl #320; "Ideally, you should get
 * ~20 GB/s with each individual NIC", #652): 20 / 25 / 2 = 0.4 of the line
 * rate per channel, i.e. a bubble of 1.5 step transfers per step. The
 * bubble is per step, so larger steps (NCCL_BUFFSIZE x buff_scale: the
 * 8 MiB the EFA and TCPXO setups prescribe, tuner.c) dilute it:
 * fraction = buff_scale / (buff_scale + 1.5). docs/collectives.md,
 * "Channels on the network". */
#define NET_CHANNEL_NIC_FRACTION 0.4
#define NET_CHANNEL_BUBBLE_STEPS ((1.0 - NET_CHANNEL_NIC_FRACTION) / NET_CHANNEL_NIC_FRACTION)
/* Bandwidths the algorithms see. Ranking (x->charge false) uses the
 * hardware figures, as NCCL's tuner uses its topology figures; the charged
 * time uses the nc channels the call runs on: each carries 1/channels of
 * the NVLink bandwidth and drives at most NET_CHANNEL_NIC_FRACTION of its
 * rail on the network (the node is still capped by its NICs). */
double net_intra_bw(const struct net_ctx *x);
double net_node_bw(const struct net_ctx *x);
/* Same, for an algorithm running a fixed number of channels (NVLS_TREE). */
double net_node_bw_channels(const struct net_ctx *x, double channels);

/* floor(log2(v)) for v >= 1, as NCCL's log2i. */
int net_log2i(int64_t v);
/* Levels of NCCL's binary tree over m nodes (src/graph/trees.cc ncclGetBtree,
 * which ncclGetDtree mirrors or shifts): ceil(log2 m), 0 for one node. A
 * non-power-of-two m puts the largest power of two under the root, one level
 * more than NCCL's log2i(m), which its latency model keeps ("not an exact
 * value but a good approximation", src/graph/connect.cc connectTrees). */
int net_btree_depth(int64_t m);

/* NCCL's P2P protocol switch: LL up to this many bytes per peer
 * (NCCL_P2P_LL_THRESHOLD default, src/enqueue.cc). */
#define NET_P2P_LL_THRESHOLD 16384.0
/* NVLS channels NCCL builds on H100-class nodes ("16 nvls channels" in
 * NCCL_DEBUG=INFO output; NCCL_NVLS_NCHANNELS default). */
#define NET_NVLS_CHANNELS 16.0
/* NVLS channels NCCL builds on Blackwell (src/transport/nvls.cc
 * ncclNvlsInit): NVLS_NCHANNELS_SM100 = 32 (v2.25.1-1 .. v2.26.6-1 for every
 * communicator; from v2.27.3-1 across NVLink domains), and from v2.27.3-1
 * NVLS_NCHANNELS_SM100_NVL = 24 for a communicator inside one NVLink domain
 * (one node, or all ranks in one MNNVL clique: "Use a reduced number of
 * channels for single node/MNNVL domain on Blackwell", channels = multiNode ?
 * NVLS_NCHANNELS_SM100 : NVLS_NCHANNELS_SM100_NVL; the 2.27.3 release notes
 * say "with multiple NVLink domains", the code is followed). Unchanged to
 * v2.29.7-1. */
#define NET_NVLS_CHANNELS_SM100 32.0
#define NET_NVLS_CHANNELS_SM100_NVL 24.0
/* NCCL_MAX_NVLS_ARITY (src/include/device.h, NCCL 2.19-2.29): at most 32
 * NVLS heads (src/graph/search.cc ncclTopoCompute: NVLS maxChannels =
 * min(NCCL_MAX_NVLS_ARITY, GPUs); connect.cc connectNvls: one head per
 * NVLS graph channel), and no NVLS all_gather or reduce_scatter on more
 * ranks than that (src/enqueue.cc, NCCL 2.26.2 "comm->nRanks >
 * NCCL_MAX_NVLS_ARITY", 2.27-2.29 "comm->localRanks > NCCL_MAX_NVLS_ARITY").
 * Only NVLink domains of more than 32 GPUs (GB200/GB300 NVL72) reach it. */
#define NET_NVLS_MAX_ARITY 32
/* CollNet runs with at most NCCL_MAX_DIRECT_ARITY + 1 = 8 ranks on a node
 * (src/include/device.h NCCL_MAX_DIRECT_ARITY 7; src/enqueue.cc
 * topoGetAlgoInfo "CollNetDirect is only supported for up to 8 local GPUs",
 * comm->maxLocalRanks > 8 skips it, v2.23.4-1 .. v2.29.7-1; the same for
 * CollNetChain from v2.28.3-1, net_ver_collnet_chain_capped). An NVL72 rack
 * is one node to NCCL (MNNVL), so its groups of more than 8 ranks a rack
 * have no CollNet. */
#define NET_COLLNET_MAX_LOCAL_RANKS 8
/* NCCL's "arity serialization latency", 0.4 us a peer (src/graph/tuning.cc
 * ncclTopoTuneModel, CollNet Direct: "Add 0.4 us arity serialization
 * latency", x (nRanks/nNodes - 1) peers, both directions; v2.19.3-1 ..
 * v2.29.7-1): the cost of the Simple scatter/gather primitive walking its
 * peers one after the other (src/device/prims_simple.h ScatterGatherOp,
 * "Loop over peers"). collnet.c charges it as NCCL does; nvls.c charges it
 * to each NVLS loop, whose scatter and gather walk all nHeads peers
 * (docs/collectives.md, "Session 26 (coll26)"). */
#define NET_ARITY_SER_US 0.4
/* NVLS heads of a node of g ranks: min(g, NET_NVLS_MAX_ARITY). */
double net_nvls_heads(const struct net_ctx *x);
/* NCCL_NVLS_CHUNKSIZE default (src/transport/nvls.cc, NCCL 2.19-2.28). */
#define NET_NVLS_CHUNK_BYTES 131072.0
/* NCCL's chunk ladders (src/enqueue.cc calcCollChunking): each rung in
 * turn cuts the chunk to rung.to_bytes when the message is smaller than
 * rung.loops loops of ops x the current chunk and the chunk is larger. */
struct net_rung {
  double loops, to_bytes;
};
static inline double net_chunk_ladder(double chunk, double bytes, double ops,
                                      const struct net_rung *rungs, int n) {
  for (int i = 0; i < n; i++)
    if (bytes < rungs[i].loops * ops * chunk && chunk > rungs[i].to_bytes)
      chunk = rungs[i].to_bytes;
  return chunk;
}
/* NVLS chunk size NCCL uses for a message of `bytes` over `streams`
 * concurrent (channel, head) pairs (src/enqueue.cc calcCollChunking). */
double net_nvls_chunk_bytes(const struct net_ctx *x, double bytes, double streams);

/* The aws-ofi-nccl tuner plugin's region map (ofi_regions.c): true where
 * `tuner` names one plateau carries ("aws-ofi-nccl-p5"). */
bool net_ofi_tuner_known(const char *tuner);
/* The next region of that map, from index *next on, containing a call of
 * `bytes` on `ranks` ranks over `nodes` nodes: its (algorithm, protocol),
 * *next set past it; false where none does (more than 2 nodes only; the
 * group's ranks per node and the op select the map). */
bool net_ofi_region_next(const char *tuner, enum pl_coll_op op, double bytes, int64_t ranks,
                         int64_t nodes, int *next, enum pl_coll_algo *algo,
                         enum pl_coll_proto *proto);

#endif
