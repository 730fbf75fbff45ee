/* nccl_version.c: the NCCL release a system runs (struct pl_cluster
 * nccl_version, cluster-file key "nccl_version", --nccl-version) and the
 * tuning-model values that differ between releases.
 *
 * A release's tables decide what NCCL picks, not what a call then costs: they
 * are NCCL's tuner model (src/graph/tuning.cc ncclTopoTuneModel fills
 * comm->bandwidths / latencies, which src/enqueue.cc topoGetAlgoInfo only
 * ranks), and a table change with no kernel change (2.28.9's NVLSTree
 * latency came with a proxy-ordering fix and a GIN fix, commit dbc86fd0)
 * moves the choice alone. So the version's values enter the ranking view
 * (net_ctx charge false) only; the charged time keeps the default tables,
 * NCCL 2.28.3-2.28.7's, whose Blackwell and Hopper per-channel figures are
 * NVIDIA's newest measured tuning data ("Update tuning data for H100,
 * GB200-NV72", 2.28.3 release notes). Version 0 (not stated) ranks on the
 * default tables too: nothing moves unless a version is given.
 *
 * Everything else in nccl_tables.c is the same in every release accepted
 * here: baseLat, hwLat, llMaxBws, the Volta/Ampere/Hopper per-channel rows
 * and the first 23 columns of treeCorrectionFactor are identical in
 * src/graph/tuning.cc of tags v2.23.4-1 .. v2.29.7-1 but for the entries
 * below (2.22.3 and older have other Tree/Simple latencies, 28 us, so they
 * are not accepted).
 *
 * Values by release (tuning.cc; 2.28 moved the tables into
 * ncclTunerConstantsDefaults):
 * - hwLat[NET][NVLSTree][Simple]: 14 us up to 2.28.7, 20.9 us from 2.28.9
 *   (tags v2.28.7-1 / v2.28.9-1; 2.29.2-2.29.7 keep 20.9).
 * - Blackwell perChMaxTreeBws {2x38.7, 2x41.4, 2x36.0} and
 *   perChMaxTreeLL128Bws {2x36.7, 2x36.7, 2x29.0} in 2.25.1-2.27.7 (the
 *   Hopper rows doubled); {70.0, 42.8, 24.0} and {55.6, 31.67, 20.0} from
 *   2.28.3.
 * - Blackwell perChMaxRingLL128Bws {2x36.7 x3} up to 2.28.3, {2x36.7, 34.6,
 *   2x36.7} in 2.28.7-2.28.9, {34.5, 34.6, 34.5} in 2.29.2-2.29.3, {40.0,
 *   40.0, 40.0} from 2.29.7 (tags v2.28.3-1 .. v2.29.7-1; session 27).
 * - Blackwell perChMaxNVLSTreeBws {0, 96.0, 43.1} in 2.28.3-2.28.7, {0, 96.0,
 *   43.8} from 2.28.9.
 * - treeCorrectionFactor: a 24th column (512 MiB - 1 GiB) from 2.29.2, read
 *   only by NVLS_TREE all_reduce on Blackwell x86 hosts (net_ver_nvls_tree_
 *   corrected, nvls_tree.c); the tree keeps "logSize < 23" (v2.29.2-1 ..
 *   v2.29.7-1 ncclTopoGetAlgoTime), so tree.c ranks on 23 columns.
 * - PAT's busBw factor: 0.85 in 2.23.x, 0.75 from 2.24 (tags v2.23.4-1 /
 *   v2.24.3-1 ncclTopoTuneModel "if (a == NCCL_ALGO_PAT) busBw *= ..";
 *   net_ver_pat_bw_factor, pat.c; session 27).
 * - CollNetDirect all_gather / reduce_scatter busBw: ppn x bwIntra x
 *   (w 0.85 + (1 - w) 0.95), w = (ppn - 1) / 7, up to 2.26.x ("Measured
 *   corrective ratio needed at 1 ppn and 8ppn. Here we hackishly
 *   interpolate the two", tags v2.20.3-1 .. v2.26.6-1), ppn x min(bwIntra,
 *   0.9 bwInter) from 2.27.3 (tags v2.27.3-1 .. v2.29.7-1);
 *   net_ver_collnet_ag_rs_eff, collnet.c; session 27.
 * - CollNetChain above 8 ranks a node: allowed up to 2.27.x, skipped from
 *   2.28.3 (net_ver_collnet_chain_capped; enters both views: an availability
 *   rule, not a table).
 * One runtime value differs by release too and enters both views, because
 * it is what the kernel runs on, not a ranking table: the NVLS channels of a
 * Blackwell group inside one NVLink domain (net_ver_nvls_node_channels; 32 up
 * to 2.26.x, 24 from 2.27.3; version 0 takes the default release's 24).
 * - NVLS_TREE's ranking before 2.28.3: heads x min(bwIntra, bwInter[/2]) x
 *   5/6 on the NVLS search graph, no perChMaxNVLSTreeBws
 *   (net_ver_nvls_tree_graph_ranked, nvls_tree.c; session 28, h100r28).
 * Not carried (docs/collectives.md, "NCCL versions"): the NVLS channels of Blackwell
 * (src/transport/nvls.cc: 32 in 2.25.1-2.26, 24/32 in 2.27) for NVLS_TREE's
 * network channels (tried: GB200 2 racks 14.7 -> 24.8 %, the rack's NVLS
 * rate has no source); one-node NVLS takes them (session 14). */
#include "net/net_int.h"

#include <string.h>

#define V_2_23_0 22300
#define V_2_24_0 22400
#define V_2_27_0 22700
#define V_2_28_3 22803
#define V_2_28_7 22807
#define V_2_28_9 22809
#define V_2_29_0 22900
#define V_2_29_7 22907

double net_ver_hw_lat_us(int64_t version, enum net_hw hw, enum net_talgo a, enum pl_coll_proto p,
                         double table_us) {
  if (hw == NET_HW_NET && a == NET_T_NVLS_TREE && p == PL_PROTO_SIMPLE && version >= V_2_28_9)
    return 20.9;
  return table_us;
}

const double *net_ver_blackwell_row(int64_t version, enum net_cap cap) {
  static const double tree_old[3] = {2 * 38.7, 2 * 41.4, 2 * 36.0};
  static const double tree_ll128_old[3] = {2 * 36.7, 2 * 36.7, 2 * 29.0};
  static const double ring_ll128_2287[3] = {2 * 36.7, 34.6, 2 * 36.7};
  static const double ring_ll128_229[3] = {34.5, 34.6, 34.5};
  static const double ring_ll128_2297[3] = {40.0, 40.0, 40.0};
  static const double nvls_tree_2289[3] = {0.0, 96.0, 43.8};
  if (version == 0)
    return NULL;
  switch (cap) {
  case NET_CAP_TREE: return version < V_2_28_3 ? tree_old : NULL;
  case NET_CAP_TREE_LL128: return version < V_2_28_3 ? tree_ll128_old : NULL;
  case NET_CAP_RING_LL128:
    return version >= V_2_29_7   ? ring_ll128_2297
           : version >= V_2_29_0 ? ring_ll128_229
           : version >= V_2_28_7 ? ring_ll128_2287
                                 : NULL;
  case NET_CAP_NVLS_TREE: return version >= V_2_28_9 ? nvls_tree_2289 : NULL;
  }
  return NULL;
}

double net_ver_nvls_node_channels(int64_t version, enum net_arch arch) {
  if (arch != NET_ARCH_BLACKWELL)
    return NET_NVLS_CHANNELS;
  return version != 0 && version < V_2_27_0 ? NET_NVLS_CHANNELS_SM100 : NET_NVLS_CHANNELS_SM100_NVL;
}

/* NCCL's search speeds for graphs that cross the network, GB/s per channel
 * (src/graph/search.cc speedArrayInter, sm90SpeedArrayInter and
 * sm100SpeedArrayInter). The pre-Hopper and sm90 lists are the same in
 * NCCL 2.21-2.29. The sm100 list changed by release: the sm90 list in
 * 2.25.1-2.26.x, 47.9 first in 2.27.x, 96 added on top in 2.28.3 (tags
 * v2.28.3-1 .. v2.29.3-1) and 80 between 96 and 48 in 2.29.7 (tag v2.29.7-1);
 * version 0 takes the default release's (2.28.3-2.28.7). */
static const double speeds_old[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                    7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double speeds_sm90[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                     15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double speeds_sm100_227[] = {47.9, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                          15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double speeds_sm100_228[] = {96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                          17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
static const double speeds_sm100_2297[] = {96.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0,
                                           24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0,
                                           3.0,  2.4,  1.2,  0.24, 0.12};
#define N_OF(a) (sizeof a / sizeof a[0])

const double *net_ver_inter_speeds(int64_t version, enum net_arch arch, size_t *n) {
  if (arch < NET_ARCH_HOPPER) {
    *n = N_OF(speeds_old);
    return speeds_old;
  }
  if (arch == NET_ARCH_BLACKWELL) {
    if (version >= V_2_29_7) {
      *n = N_OF(speeds_sm100_2297);
      return speeds_sm100_2297;
    }
    if (version == 0 || version >= V_2_28_3) {
      *n = N_OF(speeds_sm100_228);
      return speeds_sm100_228;
    }
    if (version >= V_2_27_0) {
      *n = N_OF(speeds_sm100_227);
      return speeds_sm100_227;
    }
  }
  *n = N_OF(speeds_sm90);
  return speeds_sm90;
}

/* NCCL 2.29 extends treeCorrectionFactor by a 24th column (512 MiB - 1 GiB:
 * LL 1.0, LL128 1.0, Simple 0.9) and applies it to NVLS_TREE all_reduce as
 * well when every GPU is Blackwell or newer and the host CPU is x86
 * (v2.29.2-1 src/graph/tuning.cc ncclTopoGetAlgoTime: "algorithm ==
 * NCCL_ALGO_NVLS_TREE && ... logSize < 24 && comm->minCompCap >= 100 &&
 * comm->cpuArch == NCCL_TOPO_CPU_ARCH_X86"; the release notes' "Improves
 * performance tuning of 256M-512M message sizes on Blackwell for AllReduce";
 * unchanged in v2.29.7-1 and v2.30.3-1). A tuner figure: it ranks, it does not charge. */
int net_ver_tree_corr_cols(int64_t version) { return version >= V_2_29_0 ? 24 : 23; }

bool net_ver_nvls_tree_corrected(int64_t version, enum net_arch arch, const char *cpu_vendor) {
  /* NCCL_TOPO_CPU_ARCH_X86: an x86_64 host (src/graph/xml.cc); plateau's Intel and AMD hosts */
  bool x86 =
      cpu_vendor != NULL && (strcmp(cpu_vendor, "intel") == 0 || strcmp(cpu_vendor, "amd") == 0);
  return version >= V_2_29_0 && arch == NET_ARCH_BLACKWELL && x86;
}

/* PAT all_gather / reduce_scatter: NCCL 2.23.x ranks at busBw x 0.85, 2.24.3
 * and later at 0.75 (v2.23.4-1 / v2.24.3-1 src/graph/tuning.cc
 * ncclTopoTuneModel; the latency terms are the same in both). A tuner
 * figure: it ranks, it does not charge. */
double net_ver_pat_bw_factor(int64_t version, double table) {
  return version >= V_2_23_0 && version < V_2_24_0 ? 0.85 : table;
}

/* CollNetDirect all_gather / reduce_scatter before 2.27: busBw = ppn x bw x
 * (w 0.85 + (1 - w) 0.95), w = (ppn - 1) / (8 - 1) in float (v2.20.3-1 ..
 * v2.26.6-1 src/graph/tuning.cc ncclTopoTuneModel, bw = the CollNet graph's
 * bwIntra; 0.95 at 1 rank a node, 0.85 at 8). From 2.27.3 ppn x min(bwIntra,
 * 0.9 bwInter), the table value. plateau takes bwIntra = bwInter (the rail;
 * collnet.c net_collnet_channels: the Hopper list and Blackwell before 2.27
 * start at 48, so the search cannot raise bwIntra above a 400G rail), so the
 * releases differ by the factor alone. Ranks, does not charge. */
double net_ver_collnet_ag_rs_eff(int64_t version, double ppn, double table) {
  if (version == 0 || version >= V_2_27_0)
    return table;
  double w = (ppn - 1.0) / (8.0 - 1.0);
  return w * 0.85 + (1.0 - w) * 0.95;
}

/* CollNetChain with more than 8 ranks a node: allowed up to 2.27.x, skipped
 * from 2.28.3 ("Disable CollNet Chain for more than 8 local GPUs", v2.28.3-1
 * src/enqueue.cc topoGetAlgoInfo; absent in v2.27.7-1). Not a ranking table:
 * the algorithm cannot be chosen, so both views follow it. */
bool net_ver_collnet_chain_capped(int64_t version) { return version == 0 || version >= V_2_28_3; }

/* NCCL 2.19.3-2.27.x ncclTopoTuneModel (src/graph/tuning.cc): NVLS_TREE
 * "bw = std::min(graphs[a]->bwIntra, nNodes <= 2 ? graphs[a]->bwInter :
 * graphs[a]->bwInter/2)", busBw = graphs[a]->nChannels x bw, x 5/6 to the
 * bandwidth it ranks with (tags v2.19.3-1, v2.22.3-1, v2.26.2-1, v2.27.7-1);
 * perChMaxNVLSTreeBws and the nvlsEfficiency form arrive in 2.28.3 (tag
 * v2.28.3-1, "Update tuning data for H100"). Plateau's nccl_version takes
 * 2.23 on, so the lower end is not checked here. */
bool net_ver_nvls_tree_graph_ranked(int64_t version) { return version != 0 && version < V_2_28_3; }
