/* tuner.c: pl_coll_time. Builds the per-call context from the cluster and the
 * group, then, like NCCL's tuner (src/enqueue.cc topoGetAlgoInfo over
 * src/graph/tuning.cc's tables), costs every enabled (algorithm, protocol)
 * pair with NCCL's model and keeps the cheapest, which is then charged with
 * its pipeline fill (a term NCCL's model lacks; docs/collectives.md,
 * "Pipeline fill" and "The tuner"). Which pairs are enabled follows
 * tuning.cc: tree only for all_reduce; NVLS only on NVLS switches, on one
 * node, Simple only; NVLS_TREE for all_reduce across nodes on NVLS nodes;
 * CollNet (collnet.c) across nodes where the cluster runs IB SHARP;
 * LL128 on NVLink-class fabrics; plus the protocol and buffer settings
 * the cloud fabrics prescribe (nccl_setup). Nothing is allocated: the step
 * simulator calls this millions of times. */
#include <plateau/coll.h>

#include <math.h>
#include <string.h>

#include "net/net_int.h"

/* p2p has no fill: one message per peer, nothing pipelined. */
static const struct net_algo algos[] = {
    {PL_ALGO_RING, net_ring_time, net_ring_fill_s},
    {PL_ALGO_TREE, net_tree_time, net_tree_fill_s},
    {PL_ALGO_NVLS, net_nvls_time, net_nvls_fill_s},
    {PL_ALGO_NVLS_TREE, net_nvls_tree_time, net_nvls_tree_fill_s},
    {PL_ALGO_P2P, net_p2p_time, NULL},
    {PL_ALGO_PAT, net_pat_time, NULL},
    {PL_ALGO_COLLNET_DIRECT, net_collnet_direct_time, NULL},
    {PL_ALGO_COLLNET_CHAIN, net_collnet_chain_time, NULL},
};
#define N_ALGOS (sizeof algos / sizeof algos[0])

static enum net_arch arch_of(const char *arch) {
  if (strcmp(arch, "volta") == 0)
    return NET_ARCH_VOLTA;
  if (strcmp(arch, "hopper") == 0 || strcmp(arch, "cdna3") == 0)
    return NET_ARCH_HOPPER; /* cdna3: RCCL's own tables are not modelled */
  if (strcmp(arch, "blackwell") == 0)
    return NET_ARCH_BLACKWELL;
  return NET_ARCH_AMPERE;
}

static double scale(double cluster_s, double nccl_s) {
  return cluster_s > 0.0 && nccl_s > 0.0 ? cluster_s / nccl_s : 1.0;
}

/* Per-rank and per-node network bandwidth of a group with g ranks per node:
 * the node's NICs are shared by every GPU on the network at once (the g
 * ranks, or `active` of them with sibling groups: pl_coll_time_shared), and
 * one rank reaches at most the NICs next to it (NICs per GPU, at least one).
 * Where every GPU has its own NIC the siblings cost nothing; where two GPUs
 * share one (Omni-Path on Jean Zay, EFA on p4d) each gets half of it when
 * both communicate. */
static void net_bandwidths(const struct pl_cluster *c, int64_t g, int64_t active,
                           struct net_ctx *x) {
  double gpn = (double)c->gpus_per_node;
  double local = fmax(1.0, (double)c->nics_per_node / gpn) * c->nic_bytes_per_s;
  double node = pl_cluster_node_net_bytes_per_s(c);
  int64_t sharing = active > g ? (active < c->gpus_per_node ? active : c->gpus_per_node) : g;
  x->b_net_rank = fmin(node / (double)sharing, local);
  x->b_net_node = x->b_net_rank * (double)g;
}

/* The NCCL settings a system prescribes (docs/collectives.md, "Cloud
 * fabrics"). GPUDirect-TCPXO (Google A3 Mega) only runs with Google's NCCL
 * profile (/var/lib/tcpxo/lib64/nccl-env-profile.sh: "these parameters
 * should not be modified"), which sets NCCL_PROTO=Simple,
 * NCCL_ALGO=Ring,Tree, NCCL_BUFFSIZE=8388608 and NCCL_NVLS_ENABLE=0 (the
 * preset's "nvls": false). EFA before P5 (the aws-ofi-nccl SENDRECV
 * protocol) needs NCCL_PROTO=simple: "EFA doesn't support LL and LL128"
 * (aws-ofi-nccl issue #76); the plugin forces it everywhere but on P5 with
 * its RDMA protocol (aws-ofi-nccl PR #280). On EFA the plugin also sets,
 * per instance type (aws-ofi-nccl src/platform-aws.cpp, platform_data_map):
 * NCCL_BUFFSIZE=8388608 on p4d/p4de/p5/p5e/p5en, and on the P5 family
 * NCCL_NVLS_CHUNKSIZE = NCCL_NVLSTREE_MAX_CHUNKSIZE = 524288 ("a max chunk
 * size of 512KiB recovers from the regression" of NCCL 2.19's 64 KiB
 * NVLS_TREE chunks). Everything else runs NCCL's defaults: all protocols,
 * 4 MiB buffers, NCCL_NVLS_CHUNKSIZE 128 KiB (src/transport/nvls.cc) and
 * NCCL_NVLSTREE_MAX_CHUNKSIZE unset (-2: 64 KiB on >= 4 nodes,
 * src/enqueue.cc). */
static void nccl_setup(const struct pl_cluster *c, struct net_ctx *x) {
  /* first letters first: this runs on every call */
  bool tcpxo = c->inter_kind[0] == 't' && strcmp(c->inter_kind, "tcpxo") == 0;
  bool efa = c->inter_kind[0] == 'e' && strcmp(c->inter_kind, "efa") == 0;
  bool efa_simple = efa && x->arch < NET_ARCH_HOPPER;
  bool simple_only = tcpxo || efa_simple;
  x->proto_on[PL_PROTO_LL] = !simple_only;
  x->proto_on[PL_PROTO_LL128] = x->ll128 && !simple_only;
  x->proto_on[PL_PROTO_SIMPLE] = true;
  x->ring_tree_only = tcpxo; /* the profile's NCCL_ALGO=Ring,Tree */
  x->buff_scale = tcpxo || efa ? 2.0 : 1.0;
  x->nvls_chunk = efa && !efa_simple ? 524288.0 : NET_NVLS_CHUNK_BYTES;
  x->nvls_tree_max_chunk = efa && !efa_simple ? 524288.0
                           : x->m >= 4        ? 65536.0
                                              : x->nvls_chunk;
}

/* Channels a group's ring and tree run on, for their pipeline fill. With
 * several ranks per node that is the cluster's nccl_channels (the presets
 * quote NCCL_DEBUG logs of full nodes, or derive the count from NCCL's
 * search rules: docs/collectives.md, "Channels"). One rank
 * per node has a single GPU and its NIC(s): NCCL's topology search
 * (src/graph/search.cc) builds channels of about one speed (its
 * per-architecture speed arrays), so that group gets the full-node count
 * scaled by its bandwidth over NVLink's, at least 1. */
static double fill_channels(const struct net_ctx *x) {
  if (x->g > 1 || x->b_intra <= 0.0)
    return x->channels;
  return fmax(1.0, fmin(x->channels, x->channels * x->b_net_node / x->b_intra));
}

/* The coll channels NCCL builds for a group of g ranks per node on several
 * nodes, from the NCCL network devices (rails) its ranks reach, by NCCL's
 * rules (NCCL 2.21-2.29):
 * the search (src/graph/search.cc ncclTopoCompute) finds one ring per rail
 * at the first speed not above the rail's bandwidth; ncclTopoDupChannels
 * doubles the rings, halving their speed, when that speed is >= 25 GB/s,
 * except on ccMin > 80 (Hopper on) below 50 GB/s with more than 4 rings;
 * ncclTopoPostset (src/graph/connect.cc) doubles the channels, and doubles
 * them again on sm90+ across nodes while they are under 16 and a ring's
 * speed is above 45 GB/s ("4 compute channels per search channel to reach
 * peak BW on <8 PPN"). DGX H100, 8 ranks per node: 8 rings of 48 GB/s,
 * not duplicated, 16 channels (the 24 of single-node logs come from the
 * NVLink-only search); 1 rank per node: 1 ring, duplicated to 2 of 24 GB/s,
 * 4 channels; DGX A100 (HDR, 25 GB/s): 8 rings of 24 GB/s, 16 channels;
 * Polaris (2 Slingshot NICs): 4. */
static double group_net_channels(const struct pl_cluster *c, struct net_ctx *x) {
  /* more NICs than GPUs (AWS P5's 32 EFA): the plugin's devices are not the
   * NICs, so the preset's logged count stands */
  if (x->g >= c->gpus_per_node && c->nics_per_node > c->gpus_per_node)
    return x->channels;
  double rails = (double)(c->nics_per_node < c->gpus_per_node ? c->nics_per_node : c->gpus_per_node);
  /* a group's ranks are spread over the node (strided over tp), each next
   * to its own rail while there are rails enough */
  double used = fmax(1.0, fmin(rails, (double)x->g));
  bool sm90 = x->arch >= NET_ARCH_HOPPER;
  /* the release's list for the GPU: NCCL's search picks sm100SpeedArrayInter
   * for compute capability 10.x in every graph pattern, the ring's included
   * (src/graph/search.cc ncclTopoCompute, 2.27-2.29), as for the CollNet
   * chain below (nccl_version.c); it differs from the sm90 list only above
   * 48 GB/s, so only 800 Gb/s rails (dgx-b300, gb300-nvl72) see it: rings of
   * 96 GB/s, duplicated to 48, 32 coll channels instead of 16 */
  size_t nsp;
  const double *sp = net_ver_inter_speeds(x->nccl_version, x->arch, &nsp);
  double gbs = x->rail_bw / 1e9, speed = sp[nsp - 1];
  for (size_t i = 0; i < nsp; i++)
    if (sp[i] <= gbs) {
      speed = sp[i];
      break;
    }
  double rings = fmin(used, 16.0); /* MAXCHANNELS/2 search channels */
  double chain_rings = rings;      /* the CollNet chain graph's: the ring's before duplication */
  if (speed >= 25.0 && !(sm90 && speed < 50.0 && rings > 4.0)) {
    rings = fmin(2.0 * rings, 16.0);
    speed /= 2.0;
  }
  x->search_rings = rings; /* the graph's nChannels and bwInter the tuner ranks with */
  x->search_bw = rings * speed * 1e9;
  double ch = net_collnet_channels(x, chain_rings, fmin(2.0 * rings, 32.0));
  if (sm90 && speed > 45.0 && ch < 16.0)
    ch *= 2.0;
  return ch;
}

/* NCCL enables LL128 by default only where the GPU reaches its NIC without
 * crossing the CPU: graph typeInter <= PATH_PXN on Hopper and later
 * (NCCL_LL128_C2C default 1), <= PATH_PXB before (NCCL 2.28 src/graph/
 * tuning.cc ncclTopoTuneModel, "Enable LL128 by default only on ..."; 2.18-
 * 2.26 allow PXN from Hopper on too). One node has no network path. */
static bool ll128_over_net(const struct pl_cluster *c, const struct net_ctx *x) {
  if (x->m == 1)
    return true;
  const char *p = c->gpu_nic_path;
  bool pxn_ok = x->arch >= NET_ARCH_HOPPER;
  return strcmp(p, "phb") != 0 && strcmp(p, "sys") != 0 && (pxn_ok || strcmp(p, "pxn") != 0);
}

static void ctx_init(const struct pl_cluster *c, enum pl_coll_op op, struct pl_group g,
                     int64_t active, struct net_ctx *x) {
  memset(x, 0, sizeof *x);
  x->c = c;
  x->op = op;
  x->n = g.ranks;
  x->g = g.ranks_per_node;
  x->m = g.ranks / g.ranks_per_node;
  x->arch = arch_of(c->gpu.arch);
  x->nccl_version = c->nccl_version;
  x->idx2 = x->m <= 2 ? (int)x->m - 1 : 2;
  x->llidx1 = x->m == 1 ? (int)x->arch : (strcmp(c->cpu_vendor, "amd") == 0 ? 1 : 0);
  x->intra_hw = strcmp(c->intra_kind, "pcie") == 0 ? NET_HW_PCI : NET_HW_NVLINK;
  x->b_intra = c->intra_nccl_bytes_per_s > 0 ? c->intra_nccl_bytes_per_s : c->intra_bytes_per_s;
  /* siblings share NICs only where the group itself uses them */
  net_bandwidths(c, x->g, x->m > 1 ? active : 0, x);
  x->lat_scale[NET_HW_NVLINK] =
      scale(c->intra_latency_s, net_hw_lat_table_s(NET_HW_NVLINK, NET_T_RING, PL_PROTO_SIMPLE));
  x->lat_scale[NET_HW_PCI] =
      scale(c->intra_latency_s, net_hw_lat_table_s(NET_HW_PCI, NET_T_RING, PL_PROTO_SIMPLE));
  x->lat_scale[NET_HW_NET] =
      scale(c->inter_latency_s, net_hw_lat_table_s(NET_HW_NET, NET_T_RING, PL_PROTO_SIMPLE));
  x->net_overhead_s = net_cpu_overhead_s(c->cpu_vendor);
  x->channels = (double)(c->nccl_channels > 0 ? c->nccl_channels : 16);
  x->fill_channels = fill_channels(x);
  if (x->m > 1) {
    /* one NCCL network device per GPU at most: where a GPU has several NICs
     * (AWS P5: 4 EFA per GPU) the plugin drives them as one rail */
    int64_t rails = c->nics_per_node < c->gpus_per_node ? c->nics_per_node : c->gpus_per_node;
    x->rail_bw = rails > 0 ? pl_cluster_node_net_bytes_per_s(c) / (double)rails : 0.0;
    /* CollNet: one head per rail (collNetHeadsNum); the SHARP plugin serves
     * groups of at least NCCL_SHARP_GROUP_SIZE_THRESH = 2 nodes (its
     * default, nccl-rdma-sharp-plugins src/sharp_plugin.c); it also adds
     * coll channels (collnet.c net_collnet_channels) */
    x->heads = (double)rails;
    x->sharp = c->sharp;
    x->net_channels = group_net_channels(c, x);
  }
  /* NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS: ncclTopoPostset copies channels up to
   * it (src/graph/connect.cc, "Honor NCCL_MIN_NRINGS"); NCCL_MIN_CTAS also
   * raises the NVLS channels */
  x->nvls_channels = NET_NVLS_CHANNELS;
  x->nvls_node_channels = net_ver_nvls_node_channels(c->nccl_version, x->arch);
  if (c->nccl_min_channels > 0) {
    x->channels = fmax(x->channels, (double)c->nccl_min_channels);
    x->net_channels = fmax(x->net_channels, (double)c->nccl_min_channels);
    /* src/transport/nvls.cc: nvlsChannels = max(minCTAs, min(maxCTAs, 16)) */
    x->nvls_channels = fmax(x->nvls_channels, (double)c->nccl_min_channels);
    x->nvls_node_channels = fmax(x->nvls_node_channels, (double)c->nccl_min_channels);
  }
  x->ll128 = x->intra_hw == NET_HW_NVLINK && ll128_over_net(c, x);
  nccl_setup(c, x);
  x->nvls_eff = net_nvls_efficiency(x->arch);
  x->nvls = c->nvls && x->nvls_eff > 0.0 && x->g >= 2;
}

/* Why a call cannot be costed, or PL_OK. */
static enum pl_status validate(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                               struct pl_group g, enum pl_coll_algo algo, struct pl_diag *diag) {
  if ((unsigned)op >= PL_COLL_N_OPS || (unsigned)algo >= PL_ALGO_N)
    return pl_diag_set(diag, PL_ERR_RANGE, "unknown collective or algorithm code");
  if (!(bytes >= 0.0) || !isfinite(bytes))
    return pl_diag_set(diag, PL_ERR_RANGE, "message size %g bytes is not a finite size >= 0", bytes);
  if (g.ranks < 1 || g.ranks_per_node < 1 || g.ranks % g.ranks_per_node != 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "group of %lld ranks with %lld per node: ranks must be a positive "
                       "multiple of ranks per node",
                       (long long)g.ranks, (long long)g.ranks_per_node);
  if (g.ranks_per_node > c->gpus_per_node)
    return pl_diag_set(diag, PL_ERR_RANGE, "%lld ranks per node but cluster '%s' has %lld GPUs per node",
                       (long long)g.ranks_per_node, c->name, (long long)c->gpus_per_node);
  if (g.ranks > g.ranks_per_node && pl_cluster_node_net_bytes_per_s(c) <= 0.0)
    return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                       "group spans %lld nodes but cluster '%s' has no inter-node network",
                       (long long)(g.ranks / g.ranks_per_node), c->name);
  if (g.ranks_per_node > 1 && c->intra_nccl_bytes_per_s <= 0.0 && c->intra_bytes_per_s <= 0.0)
    return pl_diag_set(diag, PL_ERR_UNSUPPORTED, "cluster '%s' has no intra-node bandwidth", c->name);
  return PL_OK;
}

/* Best protocol of one algorithm (or the forced one) as NCCL's model ranks
 * it (no pipeline fill); < 0 if none. */
static double best_proto(const struct net_ctx *x, const struct net_algo *a, double bytes,
                         int only_proto, enum pl_coll_proto *proto) {
  double best = -1.0;
  for (int p = 0; p < PL_PROTO_N; p++) {
    if ((only_proto >= 0 && p != only_proto) || !x->proto_on[p])
      continue;
    double t = a->time_s(x, (enum pl_coll_proto)p, bytes);
    if (t >= 0.0 && (best < 0.0 || t < best)) {
      best = t;
      *proto = (enum pl_coll_proto)p;
    }
  }
  return best;
}

/* The channels one call runs on (NCCL 2.21-2.29 src/enqueue.cc
 * topoGetAlgoInfo): NVLS and NVLS_TREE use the NVLS channels; ring, tree and
 * PAT start from the coll channels and drop one while the message is below
 * channels x threads x threadThreshold. Threads: NCCL_SIMPLE_MAX_NTHREADS
 * and NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640 (src/include/
 * device.h); thresholds NCCL_SIMPLE_THREAD_THRESHOLD 64, NCCL_LL_THREAD_
 * THRESHOLD 8 (x nRanks for ring), NCCL_LL128_THREAD_THRESHOLD 8 (src/
 * include/comm.h, src/graph/tuning.cc ncclTopoTuneModel). */
static double call_channels(const struct net_ctx *x, enum pl_coll_algo a, enum pl_coll_proto p,
                            double bytes) {
  double full = x->m > 1 ? x->net_channels : x->channels;
  if (a == PL_ALGO_NVLS || a == PL_ALGO_NVLS_TREE || a == PL_ALGO_P2P || full < 1.0)
    return full;
  double nt = p == PL_PROTO_LL128 ? 640.0 : 512.0;
  double thr = p == PL_PROTO_SIMPLE ? 64.0 : 8.0;
  if (p == PL_PROTO_LL && a == PL_ALGO_RING)
    thr *= (double)x->n;
  /* NCCL: while (nBytes < nc*nt*thr && nc > 1) nc--, i.e. the largest
   * nc <= full with nc*nt*thr <= nBytes, at least 1 */
  double nc = floor(bytes / (nt * thr));
  return fmax(1.0, fmin(full, nc));
}

static enum pl_status choose(const struct net_ctx *x, double bytes, enum pl_coll_algo algo,
                             int only_proto, struct pl_coll_cost *out) {
  double best = -1.0;
  size_t won = 0;
  for (size_t i = 0; i < N_ALGOS; i++) {
    if (algo != PL_ALGO_AUTO && algos[i].algo != algo)
      continue;
    enum pl_coll_proto p = PL_PROTO_SIMPLE;
    double t = best_proto(x, &algos[i], bytes, only_proto, &p);
    if (t >= 0.0 && (best < 0.0 || t < best)) {
      best = t;
      won = i;
      out->algo = algos[i].algo;
      out->proto = p;
    }
  }
  if (best < 0.0)
    return PL_ERR_UNSUPPORTED;
  /* the winner is charged on the channels it runs on, with its fill */
  struct net_ctx cx = *x;
  cx.charge = true;
  cx.nc = call_channels(x, out->algo, out->proto, bytes);
  net_ctas_charge(&cx); /* the communicator's maxCTAs, if capped (ctas.c) */
  if (out->algo == PL_ALGO_RING || out->algo == PL_ALGO_TREE)
    cx.fill_channels = cx.nc; /* the pipelines run on the call's channels */
  out->channels = cx.nc;
  out->net_msgs_per_step =
      out->algo == PL_ALGO_RING && x->m > 1 && x->op != PL_COLL_BROADCAST
          ? net_proxy_msgs_per_step(&cx, out->proto, bytes)
          : 0.0;
  best = algos[won].time_s(&cx, out->proto, bytes);
  if (algos[won].fill_s != NULL)
    best += algos[won].fill_s(&cx, out->proto, bytes);
  out->time_s = fmax(x->c->coll_floor_s, best + x->c->coll_launch_s);
  return PL_OK;
}

static enum pl_status coll_time(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                                struct pl_group g, int64_t active, int64_t max_ctas,
                                enum pl_coll_algo algo, int only_proto,
                                struct pl_coll_cost *out) {
  enum pl_status st = validate(c, op, bytes, g, algo, NULL);
  if (st != PL_OK)
    return st;
  if (active < 0)
    return PL_ERR_RANGE;
  if (g.ranks == 1) {
    out->time_s = 0.0;
    out->algo = algo == PL_ALGO_AUTO ? PL_ALGO_RING : algo;
    out->proto = PL_PROTO_SIMPLE;
    out->channels = out->net_msgs_per_step = 0.0;
    return PL_OK;
  }
  struct net_ctx x;
  ctx_init(c, op, g, active, &x);
  x.max_ctas = max_ctas > 0 ? (double)max_ctas : 0.0;
  /* the aws-ofi-nccl tuner plugin (ofi_regions.c) forces the pair of the
   * first region holding the call whose pair NCCL has enabled; a call in no
   * such region is NCCL's own choice. A forced algorithm or protocol
   * (NCCL_ALGO / NCCL_PROTO) leaves the other pairs out of NCCL's cost table
   * (src/graph/tuning.cc ncclTopoTuneModel zeroes their bandwidth, so
   * ncclTopoGetAlgoTime gives -1, NCCL_ALGO_PROTO_IGNORE; v2.23.4-1) and the
   * plugin walks on to a region of the forced ones: its v3 interface, the
   * one NCCL 2.22.3 and later load (plateau's 2.23-2.29), stays loaded
   * whatever NCCL_ALGO / NCCL_PROTO say (aws-ofi-nccl src/tuner/
   * nccl_ofi_tuner.cpp @ 2daf7d30: only the v2 init of NCCL 2.21 steps aside,
   * since faf2e8f2) */
  if (x.m > 2 && net_ofi_tuner_known(c->nccl_tuner)) {
    int next = 0;
    enum pl_coll_algo ra;
    enum pl_coll_proto rp;
    while (net_ofi_region_next(c->nccl_tuner, op, bytes, x.n, x.m, &next, &ra, &rp))
      if ((algo == PL_ALGO_AUTO || ra == algo) && (only_proto < 0 || (int)rp == only_proto) &&
          choose(&x, bytes, ra, (int)rp, out) == PL_OK)
        return PL_OK;
  }
  return choose(&x, bytes, algo, only_proto, out);
}

enum pl_status pl_coll_time(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                            struct pl_group g, enum pl_coll_algo algo, struct pl_coll_cost *out) {
  return coll_time(c, op, bytes, g, 0, 0, algo, -1, out);
}

enum pl_status pl_coll_time_shared(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                                   struct pl_group g, int64_t active_per_node,
                                   enum pl_coll_algo algo, struct pl_coll_cost *out) {
  return coll_time(c, op, bytes, g, active_per_node, 0, algo, -1, out);
}

enum pl_status pl_coll_time_capped(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                                   struct pl_group g, int64_t active_per_node, int64_t max_ctas,
                                   enum pl_coll_algo algo, struct pl_coll_cost *out) {
  if (max_ctas < 0)
    return PL_ERR_RANGE;
  return coll_time(c, op, bytes, g, active_per_node, max_ctas, algo, -1, out);
}

enum pl_status pl_coll_time_proto(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                                  struct pl_group g, enum pl_coll_algo algo,
                                  enum pl_coll_proto proto, struct pl_coll_cost *out) {
  if ((unsigned)proto >= PL_PROTO_N)
    return PL_ERR_RANGE;
  return coll_time(c, op, bytes, g, 0, 0, algo, (int)proto, out);
}

/* The reason, in words, that a forced algorithm cannot run. */
static const char *unsupported_why(const struct net_ctx *x, enum pl_coll_algo algo) {
  switch (algo) {
  case PL_ALGO_TREE: return "tree runs all_reduce only";
  case PL_ALGO_RING: return "ring runs all_reduce, all_gather, reduce_scatter and broadcast";
  case PL_ALGO_P2P: return "p2p runs send_recv and all_to_all";
  case PL_ALGO_PAT:
    return "pat runs all_gather and reduce_scatter with one rank per node on two or more nodes";
  case PL_ALGO_NVLS:
    if (!x->nvls)
      return "nvls needs an NVLink SHARP switch (cluster 'nvls': true) and >= 2 ranks per node";
    return "nvls runs all_reduce, all_gather, reduce_scatter on one node (all_gather and "
           "reduce_scatter on at most 32 ranks)";
  case PL_ALGO_COLLNET_DIRECT:
    return "collnet_direct needs IB SHARP (cluster 'sharp': true), NVSwitch nodes, >= 2 nodes, at "
           "most one rank per NIC, and runs all_gather and reduce_scatter";
  case PL_ALGO_COLLNET_CHAIN:
    return "collnet_chain needs IB SHARP (cluster 'sharp': true) and >= 2 nodes, and runs "
           "all_reduce";
  case PL_ALGO_NVLS_TREE:
    if (!x->nvls)
      return "nvls_tree needs an NVLink SHARP switch (cluster 'nvls': true) and >= 2 ranks per node";
    return "nvls_tree runs all_reduce across two or more nodes";
  default: return "no algorithm can run it";
  }
}

enum pl_status pl_coll_check(const struct pl_cluster *c, enum pl_coll_op op, double bytes,
                             struct pl_group g, enum pl_coll_algo algo, struct pl_diag *diag) {
  enum pl_status st = validate(c, op, bytes, g, algo, diag);
  if (st != PL_OK || g.ranks == 1)
    return st;
  struct net_ctx x;
  struct pl_coll_cost cost;
  ctx_init(c, op, g, 0, &x);
  if (choose(&x, bytes, algo, -1, &cost) == PL_OK)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_UNSUPPORTED, "%s with algorithm %s on %lld ranks: %s",
                     pl_coll_op_name(op), pl_coll_algo_name(algo), (long long)g.ranks,
                     unsupported_why(&x, algo));
}
