/* test_nccl_multinode.c: the collective model against the real multi-node
 * nccl-tests logs in tests/data/nccl-multinode (2 to 540 nodes; sources in
 * its README), with the preset or cluster file of each system.
 *
 * Prints, per log, the mean and worst busbw error over the sizes >= 1 MiB
 * (busbw error = measured time / modelled time - 1: busbw is inversely
 * proportional to time; the measured time is the lower of nccl-tests'
 * out-of-place and in-place timings, row_time_s), as a markdown row (docs/collectives.md, "Multi-node
 * logs"). The bound asserted per log is its measured mean error rounded up
 * to the next whole percent plus 2 points, so the test fails if the model
 * gets worse on any log; where a log meets the 10% target the bound is also
 * at most 10%. No constant was tuned to these logs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"

#define DIR PL_TEST_DATA "/nccl-multinode/"
#define MIB 1048576.0

struct case_ {
  const char *file, *cluster, *algo;
  int proto;            /* forced protocol (NCCL_PROTO in the log), -1 = NCCL's choice */
  int64_t ranks, nodes; /* for logs without '#  Rank ... on HOST' lines; 0 = from the log */
  double bound;         /* asserted: mean busbw error >= 1 MiB */
  int min_channels;     /* NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS the log sets, 0 = default */
  bool sharp;           /* the log runs IB SHARP (NCCL_COLLNET_ENABLE=1): cluster 'sharp' */
};

/* Run conditions a log's own job script sets beyond the case table (docs/collectives.md,
 * "Session 8 (nvls8)"). The CoreWeave GB200 20-rack log is the output quoted in
 * coreweave/nccl-tests PR #48 (commit 5ceab10, 2025-04-21, "Performance with this example
 * running across 20 racks"); that example (slurm/nccl-test-distributed-gb200-nvl72-enroot.slurm
 * at 5ceab10) sets NCCL_NVLS_ENABLE=0 (commit a736384, 2025-04-14: "per NV ask, we need to
 * disable NVLS temporarily for our nccl-tests"; re-enabled by PR #60, 2025-08-27) and
 * NCCL_NET_GDR_C2C=1, with NCCL 2.26.2 (the image tag). So NCCL ran ring or tree, not NVLS_TREE.
 * NCCL 2.26.2 has no P2C path type (added in 2.27.3, "Add support for P2C (PXN over C2C) and the
 * LL128 protocol"): a GB200 GPU reaches its NIC through the Grace CPU (NCCL issue #1579, 2025-01:
 * "the NIC was accessed through a CPU"; NCCL_NET_GDR_C2C documentation: "a NIC attached to a CPU
 * (i.e. distance PHB)"), so its typeInter is PATH_PHB and 2.26.2 enables LL128 only up to
 * PATH_PXN (src/graph/tuning.cc ncclTopoTuneModel): no LL128 between racks. The 1- and 2-rack
 * logs are the outputs of PR #43 (2025-02-20; its script sets NCCL_NVLS_ENABLE=1 and pins the
 * NCCL 2.25.1 image, 2.26.2 being released on 2025-03-12): NVLS and NVLS_TREE as modelled. */
struct run_env {
  const char *file;
  bool nvls_off;            /* NCCL_NVLS_ENABLE=0 */
  const char *gpu_nic_path; /* the path NCCL's topology names in this version; NULL: preset */
};
static const struct run_env run_envs[] = {
    {"gb200_360node_1440gpu_all_reduce_coreweave-readme-20racks.txt", true, "phb"},
};

static void apply_run_env(const char *file, struct pl_cluster *cl) {
  for (size_t i = 0; i < sizeof run_envs / sizeof run_envs[0]; i++) {
    if (strcmp(run_envs[i].file, file) != 0)
      continue;
    if (run_envs[i].nvls_off)
      cl->nvls = false;
    if (run_envs[i].gpu_nic_path != NULL)
      snprintf(cl->gpu_nic_path, sizeof cl->gpu_nic_path, "%s", run_envs[i].gpu_nic_path);
  }
}

/* The NCCL release each log names (its header; tests/data/nccl-multinode/README.md), passed
 * as the cluster's nccl_version (src/net/nccl_version.c: the tuning values that differ by
 * release). Logs not listed: version not printed nor bounded (nccl-tests #322), or outside the
 * releases plateau carries (CoreWeave SHARP 2.18.1), or another lane's (Polaris 2.21.5): the
 * default tables. Session 10 (nccl10). */
static const struct {
  const char *tag, *version;
} nccl_versions[] = {
    {"qoofyk", "2.26.2"},                  /* "NCCL version 2.26.2+cuda12.8" in both logs */
    {"xxrjun-cluster01", "2.29.2"},        /* "nccl-library=22902" */
    {"coreweave-readme-1rack", "2.25.1"},  /* PR #43's nccl2.25.1 image (header, PROVENANCE) */
    {"coreweave-readme-2racks", "2.25.1"}, /* same PR */
    {"coreweave-readme-20racks", "2.26.2"}, /* PR #48's 2.26.2 image (run_envs above) */
    {"together-gb200", "2.29.2"},          /* "NCCL version 2.29.2+cuda13.1" (NCCL INFO) */
    /* gj-aion (nccl-tests #309): not printed, but bounded. The runs were posted on 2025-06-18
     * (the logs' DATE lines), before tag v2.28.3-1 (2025-09-02, NVIDIA/nccl), and the 8-node
     * logs pay NCCL_RUNTIME_CONNECT's first-call connection (2.22.3 on; connect_signatures).
     * For a DGX H100 all_reduce every release 2.23.4-2.27.x gives plateau the same tables
     * (nccl_version.c: the items keyed inside that range are PAT's factor, CollNet's and the
     * Blackwell caps and channels, none of which these runs take), so 2.27.3, the last tag
     * before the posts, stands for the range. What it changes: NVLS_TREE's ranking before
     * 2.28.3 (net_ver_nvls_tree_graph_ranked; docs/collectives.md, "Session 28 (h100r28)"). */
    {"gj-aion", "2.27.3"},
};

static void apply_nccl_version(const char *file, struct pl_cluster *cl) {
  for (size_t i = 0; i < sizeof nccl_versions / sizeof nccl_versions[0]; i++)
    if (strstr(file, nccl_versions[i].tag) != NULL) {
      struct pl_diag d, *dp = &d;
      pl_diag_clear(&d);
      CHECK_STATUS(pl_nccl_version_parse(nccl_versions[i].version, &cl->nccl_version, &d), PL_OK,
                   dp);
    }
}

/* extrapolation bounds (see extrapolation()). Polaris since session 8
 * (polaris8): the fit sees the proxy's per-message cost (src/net/
 * proxy_msg.c) on the 2-node logs, 8.3 us (setup 5) and 4.9 us (setup 4) a
 * message, and NVLink stays at its 230 GB/s (before, the fit dragged it to
 * 51 GB/s and put 256 us per call into launch_overhead): all_gather
 * 352.1 -> 18.0 % (540 nodes) and 332.8 -> 26.6 % (setup 4, 256 nodes);
 * all_reduce (tree at 256/540 nodes, which the bound does not touch) loses
 * the help of the wrong NVLink figure, 37.7 -> 43.4 % and 29.5 -> 36.9 %.
 * With net8's Simple ring steps in slices (ring.c ring_simple_exposed_s,
 * same session): 33.4 / 17.9 % and 30.0 / 25.7 %; bounds +2 points.
 * Session 10 (pol10): on more than two nodes a tree stage moves the chunks
 * of an interior node's two children (tree.c net_tree_fill_s): the tree
 * all_reduce 33.4 -> 16.7 % (540 nodes) and 30.0 -> 9.9 % (setup 4); the
 * fill's levels are the tree's depth, ceil(log2 m) (ncclGetBtree; 10 on 540
 * nodes, NCCL's model says 9): 540 nodes 16.7 -> 14.6 %.
 * Session 25 (coll25): a step with one network message pays the proxy's
 * post and the message's transfer in series (store and forward, net.cc
 * sendProxyProgress; proxy_msg.c): all_gather 17.9 -> 14.0 % (540 nodes)
 * and 25.7 -> 21.3 % (setup 4, 256 nodes); bounds 20 -> 16, 28 -> 24 %. */
/* Session 28 (pol28): the series table also prints the fit's fewest network messages a ring
 * step (pl_calib_fit.min_net_msgs_per_step) and splits each predicted log's rows by it
 * (regimes()); no figure or bound moved. */
#define EXTRAP_POL_AR 0.17
#define EXTRAP_POL_AG 0.15 /* issue 18's target (15 %), met since coll25 */
/* Session 28 (h100r28): with the release the gj-aion runs' date bounds (before 2.28.3,
 * nccl_versions), NCCL's NVLS_TREE ranking on the NVLS graph (nvls_tree.c) puts the fitted
 * 2-node cluster's 8 MiB on tree/LL128 (its NVLink fits at 455.6 GB/s, its network hop at
 * 15.1 us: NVLS_TREE's rank time rises 7 us at 8 MiB, and the tie with tree turns), where the
 * preset keeps NVLS_TREE, as the 8-node log's connection row says NCCL did: 8 MiB +56.5 %,
 * the series 5.3 -> 9.0 %; bound 9 -> 10 %. The qoofyk series 10.6 -> 9.9 %. */
#define EXTRAP_GJ 0.10
#define EXTRAP_QO 0.13
#define EXTRAP_POL4_AR 0.12
#define EXTRAP_POL4_AG 0.24
static const struct case_ cases[] = {
    /* gj-aion H100, IB 400G (nccl-tests #309): defaults, and one forced ring.
     * Session 9 (ib9): NVLS_TREE's ceiling over the 8 NVLS heads (nvls_tree.c
     * nvls_tree_cap) took gj-aion 2-node 10.3 -> 4.5 %, 4-node 6.5 -> 5.8,
     * 8-node 7.5 -> 7.3, minctas24 22.1 -> 21.0, qoofyk 2-node 9.4 -> 5.0,
     * VMware 12.9 -> 12.1, xxrjun g4 all_reduce 7.2 -> 4.4 (g2 4.7 -> 5.4, bound
     * kept); bounds of the moved logs reset to measured + 2 points. Then
     * NVLS_TREE's chunk ladder on nvlsChannels x heads (nvls_tree.c): minctas24
     * 21.0 -> 16.8 % (and GB200 2 racks 20.8 -> 14.7 %, nvls9's bound kept) */
    {"h100_2node_16gpu_all_reduce_nccl-tests-issue309-gj-aion.txt", "dgx-h100", "auto", -1, 16, 2, 0.07, 0, false},
    /* session 21 (coll21): a ring across nodes crosses g - 1 NVLink hops per node and channel
     * (ring.c ring_nvlink_share; connect.cc ncclTopoPreset): the ring log's 256 MiB - 8 GiB
     * -6 -> +1.5 %, 17.4 -> 16.2 %; minctas24's ring rows (4-8 GiB) -5.7 -> +1.9 %, 17.1 ->
     * 16.5 % (bound kept); 128 nodes 7.8 -> 6.8 %; bounds of the moved logs reset */
    {"h100_2node_16gpu_all_reduce_nccl-tests-issue309-gj-aion-ring.txt", "dgx-h100", "ring", -1, 16, 2, 0.19, 24, false},
    {"h100_4node_32gpu_all_reduce_nccl-tests-issue309-gj-aion.txt", "dgx-h100", "auto", -1, 32, 4, 0.08, 0, false},
    {"h100_8node_64gpu_all_reduce_nccl-tests-issue309-gj-aion.txt", "dgx-h100", "auto", -1, 64, 8, 0.10, 0, false},
    /* session 27 (nvt27): NVLS_TREE's network share counts at most NCCL's 16 NVLS channels
     * (nvls_tree.c nvls_tree_net_bw: connectNvls runs every NVLS channel through its head's one
     * NIC; "NVLS should not need more than 16 channels to get peak BW", enqueue.cc): 16.5 ->
     * 10.9 % (8-512 MiB +11.6..+26.8 % -> -2.4..+10.4 %); bound 19 -> 13 % */
    /* session 28 (h100r28): the gj-aion runs predate NCCL 2.28.3 (nccl_versions), whose
     * releases rank NVLS_TREE on the NVLS search graph (nvls_tree.c nvls_tree_rank_bw_graph,
     * 160 GB/s on DGX H100 across > 2 nodes): the ring from 1 GiB on 8 nodes, 256 MiB on 4,
     * where the default logs' busBw drops (ring_switch_drop). minctas24 10.9 -> 8.3 % (1 / 2
     * GiB -21.2 / -21.3 % -> the 24-channel ring), bound 13 -> 10 %; gj-aion 4 nodes 5.9 ->
     * 5.5 %, 8 nodes 5.6 -> 5.8 % (its slow 1 GiB row, 285 GB/s, now charged as the ring) */
    {"h100_8node_64gpu_all_reduce_nccl-tests-issue309-gj-aion-minctas24.txt", "dgx-h100", "auto", -1, 64, 8, 0.10, 24, false},
    /* qoofyk H100, 8x CX-7 400G, NCCL 2.26.2 */
    {"h100_2node_16gpu_all_reduce_nccl-tests-issue309-qoofyk-baremetal.txt", "dgx-h100", "auto", -1, 16, 2, 0.07, 0, false},
    /* session 28 (h100r28): 2.26.2 ranks NVLS_TREE on the NVLS graph (as gj-aion above): ring
     * from 256 MiB, 12.4 -> 12.3 %; bound 15 -> 14 % */
    {"h100_4node_32gpu_all_reduce_nccl-tests-issue309-qoofyk-vmware.txt", "dgx-h100", "auto", -1, 32, 4, 0.14, 0, false},
    /* xxrjun cluster01, 10 nodes, NCCL 2.29.2. Session 11 (coll11): NVLS_TREE's fill crosses
     * the depth of ncclGetDtree's trees, ceil(log2 10) = 4 levels, not log2i = 3 (nvls_tree.c):
     * all_reduce 14.5 -> 12.0 %, run0128 10.3 -> 8.5 %, g4 4.4 -> 3.7 %, g2 4.1 -> 4.5 % (bound
     * kept); bounds of the improved logs reset to measured + 2 points */
    {"h100_10node_80gpu_all_reduce_xxrjun-cluster01.txt", "dgx-h100", "auto", -1, 0, 0, 0.15, 0, false},
    {"h100_10node_80gpu_all_gather_xxrjun-cluster01.txt", "dgx-h100", "auto", -1, 0, 0, 0.10, 0, false},
    {"h100_10node_80gpu_reduce_scatter_xxrjun-cluster01.txt", "dgx-h100", "auto", -1, 0, 0, 0.10, 0, false},
    {"h100_10node_80gpu_alltoall_xxrjun-cluster01.txt", "dgx-h100", "auto", -1, 0, 0, 0.10, 0, false},
    /* the same cluster's run a day earlier (same hosts, NCCL 2.29.2): run-to-run spread */
    {"h100_10node_80gpu_all_reduce_xxrjun-cluster01-run0128.txt", "dgx-h100", "auto", -1, 0, 0, 0.10, 0, false},
    {"h100_10node_80gpu_all_gather_xxrjun-cluster01-run0128.txt", "dgx-h100", "auto", -1, 0, 0, 0.10, 0, false},
    {"h100_10node_80gpu_reduce_scatter_xxrjun-cluster01-run0128.txt", "dgx-h100", "auto", -1, 0, 0, 0.10, 0, false},
    {"h100_10node_80gpu_alltoall_xxrjun-cluster01-run0128.txt", "dgx-h100", "auto", -1, 0, 0, 0.10, 0, false},
    /* the same run with 4 and 2 of each node's GPUs (one communicator alone on the nodes): the
     * channels of a group with fewer ranks per node than the node has GPUs (NCCL's search and
     * ncclTopoDupChannels, tuner.c group_net_channels; docs/collectives.md, "Session 7
     * (net7)") */
    /* with their NCCL 2.29.2 (nccl_versions, session 10): 2.29's NVLSTree network latency,
     * 20.9 us, ranks NVLS_TREE out at 32 MiB: g4 tree/LL128, g2 ring/LL128 (+5.2 %, was
     * NVLS_TREE -17.8 %), g2 5.4 -> 4.1 %. g4 went 4.4 -> 5.5 % on c15a475 (tree/LL128 +31.2 %
     * vs NVLS_TREE +20.8 %); with pol10's tree fill (34883f4) it is 4.4 % either way: bound 7 % */
    {"h100_10node_40gpu_all_reduce_xxrjun-cluster01-g4.txt", "dgx-h100", "auto", -1, 0, 0, 0.06, 0, false},
    {"h100_10node_40gpu_all_gather_xxrjun-cluster01-g4.txt", "dgx-h100", "auto", -1, 0, 0, 0.07, 0, false},
    {"h100_10node_40gpu_reduce_scatter_xxrjun-cluster01-g4.txt", "dgx-h100", "auto", -1, 0, 0, 0.07, 0, false},
    {"h100_10node_20gpu_all_reduce_xxrjun-cluster01-g2.txt", "dgx-h100", "auto", -1, 0, 0, 0.07, 0, false},
    {"h100_10node_20gpu_all_gather_xxrjun-cluster01-g2.txt", "dgx-h100", "auto", -1, 0, 0, 0.04, 0, false},
    {"h100_10node_20gpu_reduce_scatter_xxrjun-cluster01-g2.txt", "dgx-h100", "auto", -1, 0, 0, 0.05, 0, false},
    /* nccl-tests #322: 128 nodes, NCCL_ALGO=Ring NCCL_PROTO=LL128 */
    {"h100_128node_1024gpu_all_reduce_nccl-tests-issue322-partial.txt", "dgx-h100", "ring", PL_PROTO_LL128, 1024, 128, 0.09, 32, false},
    /* CoreWeave, NCCL 2.18.1, NCCL_COLLNET_ENABLE=1 NCCL_ALGO=COLLNETCHAIN (IB SHARP) */
    {"h100_12node_96gpu_all_reduce_coreweave-readme2023-sharp.txt", "dgx-h100", "collnet_chain", -1, 96, 12, 0.06, 0, true},
    /* not described: a100_16node_128gpu_all_reduce_coreweave-readme2022.txt (NIC count, speed
     * and NCCL version not stated, its rank lines elided; docs/collectives.md) */
    /* session 14 (nvl14): one-node NVLS on NCCL 2.25.1's 32 Blackwell NVLS channels x 32
     * heads (nvls.c, net_ver_nvls_node_channels), not 16 x 72 streams: 27.4 -> 26.8 %;
     * bound reset to measured + 2 points. Session 26 (coll26): each loop pays the scatter /
     * gather walk over its 32 heads at NCCL's 0.4 us a peer (12.8 us, not 3.4; nvls.c
     * nvls_loop_s): 26.8 -> 19.6 %, bound 29 -> 22 % */
    {"gb200_18node_72gpu_all_reduce_coreweave-readme-1rack.txt", "gb200-nvl72", "auto", -1, 72, 1, 0.22, 0, false},
    /* two racks (NVLS_TREE, NCCL 2.25.1): 14.7 % since session 9 (-4.5 % at 512 MiB .. -23.3 % at
     * 16 GiB, too slow); the bound was still session 5's 23 %. Session 28 (gbr28): reset to the
     * measured + 2 points, 17 % */
    {"gb200_32node_128gpu_all_reduce_coreweave-readme-2racks.txt", "gb200-nvl72", "auto", -1, 128, 2, 0.17, 0, false},
    /* session 17 (together17): a second one-rack log, Together's GB200 NVL72 (NCCL 2.29.2, NVLS
     * by default, 128 MiB - 32 GiB; its 18 trays print their Rank lines: rack_logs). First look
     * 26.1 % (NVLS +56.1 % at 128 MiB .. +8.2 % at 32 GiB, the CoreWeave rack's pattern).
     * Session 26 (coll26), 12.8 us a loop: 15.1 % (+34.6 % at 128 MiB .. +3.3 % at 32 GiB),
     * bound 29 -> 18 % */
    {"gb200_18node_72gpu_all_reduce_together-gb200-r08.txt", "gb200-nvl72", "auto", -1, 0, 0, 0.18, 0, false},
    /* 20 racks, NVLS off (nvls8): 29.3 %, 24.0 % with the Simple ring steps in slices (net8),
     * 8.1 % with NCCL's per-channel tree figure charged per graph channel (nvls9: two coll
     * channels each, nccl_tables.c used_channels; the tree rows +2.0 .. -6.6 %, the ring the
     * tuner picks at 8 GiB still -35.7 %) */
    /* with its NCCL 2.26.2 (nccl_versions, session 10): 2.26.2's Blackwell tree table (72 GB/s
     * a graph channel on > 2 nodes, 24 from 2.28.3) keeps tree at 8 and 16 GiB in the ranking,
     * one algorithm throughout as the log's slope shows: 8 GiB -35.7 -> -8.1 %, 16 GiB +1.6 ->
     * -9.6 %, mean 8.1 -> 4.9 % (on main ee9b451, with pol10's tree fill: 9.0 -> 5.8 %) */
    {"gb200_360node_1440gpu_all_reduce_coreweave-readme-20racks.txt", "gb200-nvl72", "auto", -1, 1440, 20, 0.07, 0, false},
    /* ALCF Polaris, A100 40GB x4 on HPE Slingshot, NCCL 2.21.5. Session 12 (pol12): the
     * preset's inter.message_overhead 2.86 us (half of the published Polaris Margo round trip,
     * data/clusters/alcf-polaris.json) moves the ring logs: setup (5) all_reduce 2 nodes 95.1
     * -> 60.2 %, all_gather 2 / 8 / 256 / 540 nodes 84.6 / 164.0 / 228.1 / 213.8 -> 61.5 /
     * 81.0 / 112.4 / 106.4 %; setup (4) all_reduce 2 nodes 56.4 -> 31.0 %, all_gather 2 / 8 /
     * 256 nodes 35.0 / 108.6 / 168.0 -> 21.8 / 49.5 / 79.6 % (tree and p2p logs unchanged);
     * bounds of the moved logs reset to measured + 2 points */
    {"a100_2node_8gpu_all_reduce_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 0.63, 0, false},
    {"a100_8node_32gpu_all_reduce_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 0.61, 0, false},
    {"a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 0.16, 0, false},
    {"a100_540node_2160gpu_all_reduce_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 0.21, 0, false},
    {"a100_2node_8gpu_all_gather_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 0.64, 0, false},
    {"a100_8node_32gpu_all_gather_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 0.83, 0, false},
    {"a100_256node_1024gpu_all_gather_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 1.15, 0, false},
    {"a100_540node_2160gpu_all_gather_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 1.09, 0, false},
    {"a100_2node_8gpu_alltoall_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 1.54, 0, false},
    {"a100_8node_32gpu_alltoall_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 1.65, 0, false},
    {"a100_256node_1024gpu_alltoall_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 2.26, 0, false},
    {"a100_540node_2160gpu_alltoall_alcf-polaris-slingshot.txt", "alcf-polaris", "auto", -1, 0, 0, 2.78, 0, false},
    /* the same jobs' runs in ALCF's setup (4), which the repository's README names the best for
     * all_reduce and all_gather (setup (5), above, adds the CXI software matching and alt_read
     * rendezvous its README recommends for alltoall); docs/collectives.md "Session 5" */
    {"a100_2node_8gpu_all_reduce_alcf-polaris-slingshot-setup4.txt", "alcf-polaris", "auto", -1, 0, 0, 0.33, 0, false},
    {"a100_8node_32gpu_all_reduce_alcf-polaris-slingshot-setup4.txt", "alcf-polaris", "auto", -1, 0, 0, 0.40, 0, false},
    {"a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot-setup4.txt", "alcf-polaris", "auto", -1, 0, 0, 0.14, 0, false},
    {"a100_2node_8gpu_all_gather_alcf-polaris-slingshot-setup4.txt", "alcf-polaris", "auto", -1, 0, 0, 0.24, 0, false},
    {"a100_8node_32gpu_all_gather_alcf-polaris-slingshot-setup4.txt", "alcf-polaris", "auto", -1, 0, 0, 0.52, 0, false},
    {"a100_256node_1024gpu_all_gather_alcf-polaris-slingshot-setup4.txt", "alcf-polaris", "auto", -1, 0, 0, 0.82, 0, false},
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* Logs whose cluster the preset cannot describe, listed with the reason (issue #18: "listed
 * with the reason, not dropped"; they stay measured above, with their regression bounds).
 * Sources: docs/collectives.md, "Session 9 (pol9)". listed() fails if a file here is not a
 * case or meets the 10 % target (then it is described and must leave this list). */
#define WHY_SETUP5                                                                              \
  "ALCF setup (5): FI_CXI_RX_MATCH_MODE=software and FI_CXI_RDZV_PROTO=alt_read put every "   \
  "message's match, the copy of its eager bytes into GPU memory, the rendezvous Get and a "    \
  "done-notify Put on the host (libfabric prov/cxi/src/cxip_msg_hpc.c cxip_ux_send, "           \
  "cxip_rdzv_done_notify; fi_cxi(7)); NCCL cannot see these settings (aws-ofi-nccl "          \
  "v1.9.1-aws reports latency 0 off EC2, src/nccl_ofi_net.c); the same jobs in setup (4) run " \
  "up to 4.4x faster below 16 MiB and within 3 % from 128 MiB (256-node all_gather 5-12 %)"
#define WHY_SETUP4                                                                              \
  "the host time of one network message (NCCL 2.21.5 proxy; aws-ofi-nccl v1.9.1-aws SENDRECV " \
  "fi_tsend/fi_trecv plus one flush fi_read per Simple receive on A100, ncclTopoNeedFlush; "   \
  "the CXI rendezvous Get above FI_CXI_RDZV_THRESHOLD) has no published figure: the preset's " \
  "inter.message_overhead 2.86 us is half a Polaris Margo RPC round trip over CXI (one small "  \
  "message host to host; mochi-hpc-experiments latency.csv), `calibrate nccl` fits 4.9 us on " \
  "the 2-node logs, and "                                                                      \
  "the one-message ring step is bimodal, 1.9-3.2 us (matched by the NIC) or setup (5)'s "      \
  "8.4-9.6 us per timing at 2 and 8 nodes (8-node 8-32 KiB: 2.1-2.2 out-of-place, 8.4-8.5 "   \
  "in-place) and the latter in every one-message row at 256 nodes (1-4 MiB, where NCCL "       \
  "2.21.5 runs one channel at 1,024 ranks; the same job's setup (5) rows are 2-5 % slower), "  \
  "never at two messages a step, in 3 of 12 four-message rows partly; setup (4) runs "         \
  "libfabric's default hardware "                                                              \
  "match mode, which never hands matching to software for good (prov/cxi cxip_msg_hpc.c: flow " \
  "control re-enables in the previous state, only hybrid mode moves to software), but an eager " \
  "message that lands before its receive is posted is copied out of the host overflow buffer " \
  "by the proxy thread (cxip_ux_send; aws-ofi-nccl SENDRECV posts fi_tsend with no receiver " \
  "credit), and no source says how often that happens on N nodes; at 2 and 4 messages a step " \
  "a 4-32 KiB message costs 1.6-4.9 us on 2 nodes and 4.9-6.8 us on 8 and 256 nodes (the "     \
  "8-node cost gives the 256-node one within 10 %; setup (5) has no such step), so the 2-node " \
  "fit's 4.9 us (32 KiB and Simple messages) meets the 256-node 4 KiB rows by coincidence and " \
  "misses its 32 KiB row (128 MiB all_gather) by the 2 -> 8-node step, +39 %; no source found " \
  "for that step (docs/collectives.md, Session 28 (pol28))"
#define WHY_A2A "; all_to_all: no published many-peer rate of the CXI NIC"
static const struct {
  const char *file, *why;
} listed_logs[] = {
    {"a100_2node_8gpu_all_reduce_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_8node_32gpu_all_reduce_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_540node_2160gpu_all_reduce_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_2node_8gpu_all_gather_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_8node_32gpu_all_gather_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_256node_1024gpu_all_gather_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_540node_2160gpu_all_gather_alcf-polaris-slingshot.txt", WHY_SETUP5},
    {"a100_2node_8gpu_alltoall_alcf-polaris-slingshot.txt", WHY_SETUP5 WHY_A2A},
    {"a100_8node_32gpu_alltoall_alcf-polaris-slingshot.txt", WHY_SETUP5 WHY_A2A},
    {"a100_256node_1024gpu_alltoall_alcf-polaris-slingshot.txt", WHY_SETUP5 WHY_A2A},
    {"a100_540node_2160gpu_alltoall_alcf-polaris-slingshot.txt", WHY_SETUP5 WHY_A2A},
    {"a100_2node_8gpu_all_reduce_alcf-polaris-slingshot-setup4.txt", WHY_SETUP4},
    {"a100_8node_32gpu_all_reduce_alcf-polaris-slingshot-setup4.txt", WHY_SETUP4},
    {"a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot-setup4.txt", WHY_SETUP4},
    {"a100_2node_8gpu_all_gather_alcf-polaris-slingshot-setup4.txt", WHY_SETUP4},
    {"a100_8node_32gpu_all_gather_alcf-polaris-slingshot-setup4.txt", WHY_SETUP4},
    {"a100_256node_1024gpu_all_gather_alcf-polaris-slingshot-setup4.txt", WHY_SETUP4},
};
static double case_mean[N_CASES]; /* main() fills it: mean busbw error >= 1 MiB per case */

/* Logs whose hosts are the compute trays of one NVL72 rack, printed in their "# Rank" lines
 * (18 hosts x 4 GPUs): the gb200-nvl72 preset's node is the rack's NVLink domain (72 GPUs),
 * as NCCL's MNNVL clique is; the CoreWeave rack logs print one Rank line and state it through
 * the case's ranks / nodes. */
static const char *const rack_logs[] = {"gb200_18node_72gpu_all_reduce_together-gb200-r08.txt"};

static void rack_as_node(const char *file, struct pl_nccl_series *s) {
  for (size_t i = 0; i < sizeof rack_logs / sizeof rack_logs[0]; i++)
    if (strcmp(rack_logs[i], file) == 0) {
      s->nodes = 1;
      s->ranks_per_node = s->ranks;
    }
}

static struct pl_nccl_series *load(const struct case_ *c, struct pl_nccl_log **log) {
  char path[512];
  snprintf(path, sizeof path, DIR "%s", c->file);
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_nccl_log_load(path, log, &d), PL_OK, dp);
  if (*log == NULL || (*log)->n_series < 1)
    return NULL;
  struct pl_nccl_series *s = &(*log)->series[0];
  struct pl_nccl_hints h = {.ranks = c->ranks, .nodes = c->nodes};
  /* the op as the file name states it (the Polaris logs have no test line) */
  static const struct {
    const char *tag;
    enum pl_coll_op op;
  } ops[] = {{"_all_reduce_", PL_COLL_ALL_REDUCE},
             {"_all_gather_", PL_COLL_ALL_GATHER},
             {"_reduce_scatter_", PL_COLL_REDUCE_SCATTER},
             {"_alltoall_", PL_COLL_ALL_TO_ALL}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (strstr(c->file, ops[i].tag)) {
      h.op_set = true;
      h.op = ops[i].op;
    }
  enum pl_status st = pl_nccl_series_resolve(s, &h, c->file, NULL, 0, &d);
  CHECK_STATUS(st, PL_OK, dp);
  rack_as_node(c->file, s);
  return st == PL_OK && s->ranks_per_node > 0 ? s : NULL;
}

/* The measured time of a row: the lower of nccl-tests' two timings of the
 * size. nccl-tests times every size twice, out-of-place then in-place, each
 * the mean of the same number of iterations of the same collective
 * (nccl-tests src/common.cu TimeTest -> BenchTime(..., in_place 0 then 1));
 * NCCL picks the algorithm and protocol from the size alone (src/enqueue.cc
 * topoGetAlgoInfo), so both columns time the same algorithm. Since NCCL
 * 2.22.3 ("Add lazy connection establishment for collective operations:
 * move buffer allocation and connection establishment to the first
 * collective operation using that algorithm", release notes;
 * NCCL_RUNTIME_CONNECT=1 by default, src/init.cc) the first size at which
 * the tuner switches to an algorithm that neither warm-up size (nccl-tests
 * warms up at maxBytes and minBytes only) used pays that setup inside its
 * out-of-place timing; the in-place timing right after does not. A
 * one-time setup only adds time and is not a per-call cost (a training job
 * pays it once), so the lower of the two timings is the one the model is
 * compared with; the table prints the out-of-place column's error beside
 * it (docs/collectives.md, "Multi-node logs"). */
static double row_time_s(const struct pl_nccl_row *r) {
  return r->inplace_time_s > 0.0 ? fmin(r->time_s, r->inplace_time_s) : r->time_s;
}

/* Mean and worst |measured/model - 1| over rows >= min_bytes; oop: the
 * out-of-place column alone (nccl-tests' first timing, one-time costs in). */
static void errors_col(const struct pl_cluster *cl, const struct pl_nccl_series *s,
                       enum pl_coll_algo algo, int proto, double min_bytes, bool oop,
                       double *mean, double *worst) {
  double sum = 0.0, w = 0.0;
  int k = 0;
  struct pl_group g = {s->ranks, s->ranks_per_node};
  for (size_t i = 0; i < s->n_rows; i++) {
    if (s->rows[i].bytes < min_bytes)
      continue;
    struct pl_coll_cost c;
    enum pl_status st = proto >= 0 ? pl_coll_time_proto(cl, s->op, s->rows[i].bytes, g, algo,
                                                        (enum pl_coll_proto)proto, &c)
                                   : pl_coll_time(cl, s->op, s->rows[i].bytes, g, algo, &c);
    if (st != PL_OK) {
      *mean = *worst = INFINITY;
      return;
    }
    double t = oop ? s->rows[i].time_s : row_time_s(&s->rows[i]);
    if (!oop && getenv("PL_NCCL_ROWS") != NULL) /* per-row detail for docs/collectives.md */
      printf("    %12.0f B  measured %10.1f us (out-of-place %10.1f)  model %10.1f us  %+6.1f%%  %s/%s\n",
             s->rows[i].bytes, 1e6 * t, 1e6 * s->rows[i].time_s, 1e6 * c.time_s,
             100 * (t / c.time_s - 1.0), pl_coll_algo_name(c.algo), pl_coll_proto_name(c.proto));
    double e = fabs(t / c.time_s - 1.0);
    sum += e;
    w = fmax(w, e);
    k++;
  }
  *mean = k ? sum / k : INFINITY;
  *worst = w;
}

static void errors(const struct pl_cluster *cl, const struct pl_nccl_series *s,
                   enum pl_coll_algo algo, int proto, double min_bytes, double *mean,
                   double *worst) {
  errors_col(cl, s, algo, proto, min_bytes, false, mean, worst);
}

/* Calibrated on the smallest node count of a series, predicting the largest
 * (docs/collectives.md, "Extrapolation"): the fit files are written nowhere,
 * only evaluated. Indices into cases[]; bound = the measured mean error
 * rounded up plus 2 points (target 15%). */
struct series {
  const char *name;
  int fit[3], n_fit;
  int predict[3], n_predict;
  double bound[3];
};

static int case_index(const char *file) {
  for (size_t k = 0; k < N_CASES; k++)
    if (strcmp(cases[k].file, file) == 0)
      return (int)k;
  return -1;
}

/* The predicted rows split by whether a ring step across nodes posts at least as many network
 * messages as the fewest a fitted row posts (pl_calib_fit.min_net_msgs_per_step): mean
 * |error| over the rows inside the regime the fit measured and over those outside it (fewer
 * messages a step; docs/collectives.md, "Session 28 (pol28)"). A diagnostic: the bounds stay on
 * the whole series. */
static void regimes(const struct pl_cluster *cl, const struct pl_nccl_series *s,
                    enum pl_coll_algo algo, double k_fit, double *in_mean, int *n_in,
                    double *out_mean, int *n_out) {
  struct pl_group g = {s->ranks, s->ranks_per_node};
  double in = 0.0, out = 0.0;
  *n_in = *n_out = 0;
  for (size_t i = 0; i < s->n_rows; i++) {
    struct pl_coll_cost c;
    if (s->rows[i].bytes < MIB || pl_coll_time(cl, s->op, s->rows[i].bytes, g, algo, &c) != PL_OK)
      continue;
    double e = fabs(row_time_s(&s->rows[i]) / c.time_s - 1.0);
    if (c.net_msgs_per_step > 0.0 && c.net_msgs_per_step < k_fit) {
      out += e;
      ++*n_out;
    } else {
      in += e;
      ++*n_in;
    }
  }
  *in_mean = *n_in ? in / *n_in : 0.0;
  *out_mean = *n_out ? out / *n_out : 0.0;
}

static void extrapolate(const struct series *sr) {
  struct pl_nccl_log *logs[3] = {NULL, NULL, NULL};
  struct pl_calib_obs obs[3];
  struct pl_cluster base, fitted;
  const struct case_ *c0 = &cases[sr->fit[0]];
  if (pl_cluster_load(c0->cluster, &base, NULL) != PL_OK) {
    CHECK(!"cluster did not load");
    return;
  }
  base.nccl_min_channels = c0->min_channels;
  apply_nccl_version(c0->file, &base);
  for (int i = 0; i < sr->n_fit; i++) {
    const struct case_ *c = &cases[sr->fit[i]];
    obs[i].series = load(c, &logs[i]);
    CHECK(obs[i].series != NULL);
    if (obs[i].series == NULL)
      goto out;
    pl_coll_algo_parse(c->algo, &obs[i].algo, NULL);
  }
  struct pl_calib_fit fit;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_calib_nccl(&base, obs, (size_t)sr->n_fit, MIB, &fitted, &fit, &d), PL_OK, dp);
  for (int i = 0; i < sr->n_predict; i++) {
    const struct case_ *c = &cases[sr->predict[i]];
    struct pl_nccl_log *log = NULL;
    struct pl_nccl_series *s = load(c, &log);
    enum pl_coll_algo algo;
    pl_coll_algo_parse(c->algo, &algo, NULL);
    double mean = INFINITY, w = INFINITY, in_mean = 0.0, out_mean = 0.0;
    int n_in = 0, n_out = 0;
    if (s != NULL) {
      errors(&fitted, s, algo, c->proto, MIB, &mean, &w);
      regimes(&fitted, s, algo, fit.min_net_msgs_per_step, &in_mean, &n_in, &out_mean, &n_out);
    }
    printf("| %s | %s | %.1f%% | %.1f%% | %.0f%% | %.0f | %d: %.1f%% | %d: %.1f%% |\n", sr->name,
           c->file, 100 * mean, 100 * w, 100 * sr->bound[i], fit.min_net_msgs_per_step, n_in,
           100 * in_mean, n_out, 100 * out_mean);
    CHECK(mean <= sr->bound[i]);
    pl_nccl_log_free(log);
  }
out:
  for (int i = 0; i < sr->n_fit; i++)
    pl_nccl_log_free(logs[i]);
}

static void extrapolation(void) {
  int pol_ar2 = case_index("a100_2node_8gpu_all_reduce_alcf-polaris-slingshot.txt");
  int pol_ag2 = case_index("a100_2node_8gpu_all_gather_alcf-polaris-slingshot.txt");
  int pol_ar540 = case_index("a100_540node_2160gpu_all_reduce_alcf-polaris-slingshot.txt");
  int pol_ag540 = case_index("a100_540node_2160gpu_all_gather_alcf-polaris-slingshot.txt");
  int pol4_ar2 = case_index("a100_2node_8gpu_all_reduce_alcf-polaris-slingshot-setup4.txt");
  int pol4_ag2 = case_index("a100_2node_8gpu_all_gather_alcf-polaris-slingshot-setup4.txt");
  int pol4_ar256 = case_index("a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot-setup4.txt");
  int pol4_ag256 = case_index("a100_256node_1024gpu_all_gather_alcf-polaris-slingshot-setup4.txt");
  int gj2 = case_index("h100_2node_16gpu_all_reduce_nccl-tests-issue309-gj-aion.txt");
  int gj8 = case_index("h100_8node_64gpu_all_reduce_nccl-tests-issue309-gj-aion.txt");
  int qo2 = case_index("h100_2node_16gpu_all_reduce_nccl-tests-issue309-qoofyk-baremetal.txt");
  int qo4 = case_index("h100_4node_32gpu_all_reduce_nccl-tests-issue309-qoofyk-vmware.txt");
  const struct series all[] = {
      {"ALCF Polaris, fit on 2 nodes (all_reduce + all_gather)", {pol_ar2, pol_ag2}, 2,
       {pol_ar540, pol_ag540}, 2, {EXTRAP_POL_AR, EXTRAP_POL_AG}},
      {"ALCF Polaris setup (4), fit on 2 nodes (all_reduce + all_gather)", {pol4_ar2, pol4_ag2}, 2,
       {pol4_ar256, pol4_ag256}, 2, {EXTRAP_POL4_AR, EXTRAP_POL4_AG}},
      {"gj-aion H100, fit on 2 nodes", {gj2}, 1, {gj8}, 1, {EXTRAP_GJ}},
      {"qoofyk H100, fit on 2 nodes (bare metal)", {qo2}, 1, {qo4}, 1, {EXTRAP_QO}},
  };
  printf("\n| series | predicted log | mean busbw error >= 1 MiB | worst | bound | fit: fewest "
         "network messages a ring step | rows at >= that: mean | rows at fewer: mean |\n");
  printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    extrapolate(&all[i]);
}

/* The run conditions of a case on its loaded preset: the channel floor it sets, SHARP, its job
 * script's environment and its NCCL release. */
static void case_cluster(const struct case_ *c, struct pl_cluster *cl) {
  cl->nccl_min_channels = c->min_channels;
  cl->sharp = c->sharp;
  apply_run_env(c->file, cl);
  apply_nccl_version(c->file, cl);
}

/* The case named file, its series (in *log, to free) and its cluster with case_cluster applied,
 * for the tables below that read one log each; NULL (the failure checked, the log freed) when the
 * case is not listed, the log or cluster does not load, or the series has fewer than min_rows. */
static struct pl_nccl_series *load_case(const char *file, size_t min_rows, const struct case_ **out,
                                        struct pl_nccl_log **log, struct pl_cluster *cl) {
  int k = case_index(file);
  CHECK(k >= 0);
  if (k < 0)
    return NULL;
  *out = &cases[k];
  *log = NULL;
  struct pl_nccl_series *s = load(*out, log);
  if (s == NULL || s->n_rows < min_rows || pl_cluster_load((*out)->cluster, cl, NULL) != PL_OK) {
    CHECK(!"log or cluster did not load");
    pl_nccl_log_free(*log);
    return NULL;
  }
  case_cluster(*out, cl);
  return s;
}

/* Which algorithm a size ran, from the log itself (docs/collectives.md, "Session 27 (ring27)").
 * Since NCCL 2.22.3 a communicator connects an algorithm at its first call (row_time_s above),
 * and nccl-tests warms up at maxBytes and minBytes only, so the first size that runs an
 * algorithm neither warm-up size ran pays the connection inside its out-of-place timing. In the
 * issue-309 H100 logs on 4 and 8 nodes that shows at one size >= 1 MiB (out-of-place >= 1.3 x
 * in-place: 2 MiB 1.45 x on VMware, 8 MiB 3.96 x and 2.27 x on the 8-node pair; no other row
 * between the first and the last above 1.07 x), and plateau's tuner first runs a third
 * algorithm at the same size (NVLS_TREE after tree). The error bounds alone would reward moving
 * that switch (gj-aion 8 nodes, 4 MiB: tree/LL128 +38.1 %, NVLS_TREE -10.3 %); this keeps it where
 * the logs put it. Not asserted: gj-aion 4 nodes (its 4 MiB row is 1.33 x as well, 1 MiB 3.4 x),
 * and the xxrjun g2 / g4 all_reduce logs (2.29.2), whose first NVLS_TREE size (64 MiB) shows no
 * connection: plateau's own ranking there is a tie within 2 % (g4 32 MiB tree/LL128 504.8 against
 * NVLS_TREE 509.9 us; g2 64-256 MiB NVLS_TREE ahead of ring by 0.3-2 %). gj-aion's release is not
 * printed; the reading assumes >= 2.22.3 (June 2024; the runs are of June 2025). */
static void connect_signatures(void) {
  static const char *const logs[] = {
      "h100_8node_64gpu_all_reduce_nccl-tests-issue309-gj-aion.txt",
      "h100_8node_64gpu_all_reduce_nccl-tests-issue309-gj-aion-minctas24.txt",
      "h100_4node_32gpu_all_reduce_nccl-tests-issue309-qoofyk-vmware.txt",
  };
  /* rows open with "| connection |", as listed() does, to keep the per-log rows countable */
  printf("\n| | log | plateau: first size of an algorithm no warm-up size ran | "
         "log: first size >= 1 MiB paying a connection |\n|---|---|---:|---:|\n");
  for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
    const struct case_ *c;
    struct pl_nccl_log *log;
    struct pl_cluster cl;
    struct pl_nccl_series *s = load_case(logs[i], 3, &c, &log, &cl);
    if (s == NULL)
      continue;
    struct pl_group g = {s->ranks, s->ranks_per_node};
    bool ran[PL_ALGO_N] = {false};
    struct pl_coll_cost cost;
    CHECK_EQ_INT(pl_coll_time(&cl, s->op, s->rows[0].bytes, g, PL_ALGO_AUTO, &cost), PL_OK);
    ran[cost.algo] = true; /* the minBytes warm-up */
    CHECK_EQ_INT(pl_coll_time(&cl, s->op, s->rows[s->n_rows - 1].bytes, g, PL_ALGO_AUTO, &cost),
                 PL_OK);
    ran[cost.algo] = true; /* the maxBytes warm-up */
    double model_first = 0.0, log_first = 0.0;
    for (size_t r = 1; r + 1 < s->n_rows; r++) {
      const struct pl_nccl_row *row = &s->rows[r];
      CHECK_EQ_INT(pl_coll_time(&cl, s->op, row->bytes, g, PL_ALGO_AUTO, &cost), PL_OK);
      if (!ran[cost.algo] && model_first == 0.0 && row->bytes >= MIB)
        model_first = row->bytes;
      ran[cost.algo] = true;
      if (log_first == 0.0 && row->bytes >= MIB && row->inplace_time_s > 0.0 &&
          row->time_s >= 1.3 * row->inplace_time_s)
        log_first = row->bytes;
    }
    printf("| connection | %s | %.0f MiB | %.0f MiB |\n", c->file, model_first / MIB,
           log_first / MIB);
    CHECK(model_first > 0.0);
    CHECK(model_first == log_first);
    pl_nccl_log_free(log);
  }
}

/* NCCL's tuner does not see NCCL_MIN_CTAS (v2.26.2-1: src/init.cc puts it in config.minCTAs, which
 * only ncclTopoPostset, copying comm->nChannels, and ncclNvlsInit, raising nvlsChannels, read;
 * ncclTopoTuneModel ranks on the search graphs' graphs[a]->nChannels, and ncclTopoGetAlgoTime reads
 * comm->nChannels only in the ring plateau test, nBytes / (nChannels x nRanks) >= 64, true from
 * 1 MiB at 16 and 24 channels). So the minctas24 run and the default run on the same 8 nodes ran
 * the same algorithm and protocol at every size (docs/collectives.md, "Session 27 (ring27)"), and
 * plateau's tuner must pick the same pair for the minctas24 case with and without its floor. */
static void min_ctas_blind(void) {
  const struct case_ *c;
  struct pl_nccl_log *log;
  struct pl_cluster floor24, plain;
  struct pl_nccl_series *s = load_case(
      "h100_8node_64gpu_all_reduce_nccl-tests-issue309-gj-aion-minctas24.txt", 0, &c, &log, &floor24);
  if (s == NULL)
    return;
  CHECK_EQ_INT((int)floor24.nccl_min_channels, 24);
  plain = floor24;
  plain.nccl_min_channels = 0;
  struct pl_group g = {s->ranks, s->ranks_per_node};
  for (size_t r = 0; r < s->n_rows; r++) {
    struct pl_coll_cost a, b;
    CHECK_EQ_INT(pl_coll_time(&floor24, s->op, s->rows[r].bytes, g, PL_ALGO_AUTO, &a), PL_OK);
    CHECK_EQ_INT(pl_coll_time(&plain, s->op, s->rows[r].bytes, g, PL_ALGO_AUTO, &b), PL_OK);
    CHECK_EQ_INT(a.algo, b.algo);
    CHECK_EQ_INT(a.proto, b.proto);
  }
  pl_nccl_log_free(log);
}

/* Where NCCL's tuner leaves NVLS_TREE for the ring, from the log itself (docs/collectives.md,
 * "Session 28 (h100r28)"). Both xxrjun 80-rank all_reduce runs (NCCL 2.29.2, printed) hold their
 * in-place busBw at 364 GB/s at 2 GiB and fall to 316 GB/s at 4 GiB (364.07 -> 315.96, run0128
 * 364.53 -> 315.76); it is the only size >= 1 MiB whose in-place busBw is more than 5 % below
 * the size before it, and from 4 GiB on the rows sit at the ring's 316-323 GB/s. A switch to a
 * faster algorithm shows no drop; this one is NCCL's tuner ranking the ring ahead where it runs
 * 13 % slower (2.29.2 ncclTopoTuneModel: NVLS_TREE busBw = heads x min(2 bwIntra x
 * nvlsEfficiency x (heads - 1) / heads, bwInter, perChMaxNVLSTreeBw 45.5), 364 GB/s on DGX H100,
 * against the ring's 8 x 48 = 384, both x nRanks / nsteps). So
 * the size of the drop is where NCCL switched, and plateau's 2.29.2 ranking must switch at the
 * same size (the time model's NVLS_TREE rate, 320 against the log's 364 GB/s, is a separate
 * question: the switch must not move to mend it). Session 28 also: the gj-aion default runs
 * (release before 2.28.3 by date, nccl_versions) drop once each, 8 nodes at 1 GiB (301.2 ->
 * 285.1 GB/s), 4 nodes at 256 MiB (249.2 -> 235.9), where NCCL 2.19-2.27's ranking on the NVLS
 * graph leaves NVLS_TREE (nvls_tree.c nvls_tree_rank_bw_graph; the 2.28 form would stay to
 * 4 / 2 GiB). Not asserted: gj-aion minctas24 (its one drop is the 8 MiB connection; its
 * 24-channel ring is faster than its NVLS_TREE, so the switch shows as a rise), qoofyk VMware
 * 2.26.2 (no drop at all, where the 2.26.2 ranking leaves NVLS_TREE at 256 MiB: its ring runs
 * at NVLS_TREE's 358-366 GB/s, ring27's reading (a), or NCCL ranked otherwise). */
static void ring_switch_drop(void) {
  static const char *const logs[] = {
      "h100_10node_80gpu_all_reduce_xxrjun-cluster01.txt",
      "h100_10node_80gpu_all_reduce_xxrjun-cluster01-run0128.txt",
      "h100_8node_64gpu_all_reduce_nccl-tests-issue309-gj-aion.txt",
      "h100_4node_32gpu_all_reduce_nccl-tests-issue309-gj-aion.txt",
  };
  printf("\n| | log | plateau: first size it leaves NVLS_TREE | "
         "log: first size >= 1 MiB with in-place busBw > 5 %% below the size before |\n"
         "|---|---|---:|---:|\n");
  for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
    const struct case_ *c;
    struct pl_nccl_log *log;
    struct pl_cluster cl;
    struct pl_nccl_series *s = load_case(logs[i], 3, &c, &log, &cl);
    if (s == NULL)
      continue;
    CHECK(cl.nccl_version > 0); /* the release the log prints, 2.29.2 */
    struct pl_group g = {s->ranks, s->ranks_per_node};
    double model_first = 0.0, log_first = 0.0;
    int drops = 0;
    enum pl_coll_algo prev = PL_ALGO_AUTO;
    for (size_t r = 0; r < s->n_rows; r++) {
      const struct pl_nccl_row *row = &s->rows[r];
      struct pl_coll_cost cost;
      CHECK_EQ_INT(pl_coll_time(&cl, s->op, row->bytes, g, PL_ALGO_AUTO, &cost), PL_OK);
      if (r > 0 && prev == PL_ALGO_NVLS_TREE && cost.algo != PL_ALGO_NVLS_TREE &&
          model_first == 0.0)
        model_first = row->bytes;
      prev = cost.algo;
      if (r == 0 || row->bytes < MIB)
        continue;
      const struct pl_nccl_row *b = &s->rows[r - 1];
      CHECK(row->inplace_time_s > 0.0 && b->inplace_time_s > 0.0);
      /* busBw ratio = (bytes / time) / (bytes_before / time_before) */
      double ratio = (row->bytes / row->inplace_time_s) / (b->bytes / b->inplace_time_s);
      if (ratio < 0.95) {
        drops++;
        if (log_first == 0.0)
          log_first = row->bytes;
      }
    }
    printf("| ring switch | %s | %.0f MiB | %.0f MiB |\n", c->file, model_first / MIB,
           log_first / MIB);
    CHECK_EQ_INT(drops, 1);
    CHECK(model_first > 0.0);
    CHECK(model_first == log_first);
    pl_nccl_log_free(log);
  }
}

/* The listed logs with their reasons (after the per-log table). */
static void listed(void) {
  /* rows open with "| listed |" so that the per-log rows stay the only ones starting with a
   * file name (`grep -E '^\| [a-z0-9_-]+\.txt'` counts them) */
  printf("\n| | log not described by its preset | mean busbw error >= 1 MiB | why |\n");
  printf("|---|---|---:|---|\n");
  for (size_t i = 0; i < sizeof listed_logs / sizeof listed_logs[0]; i++) {
    int k = -1;
    for (size_t j = 0; j < N_CASES; j++)
      if (strcmp(cases[j].file, listed_logs[i].file) == 0)
        k = (int)j;
    CHECK(k >= 0); /* a listed log is still measured */
    if (k < 0)
      continue;
    CHECK(case_mean[k] > 0.10); /* a log within the target is described: unlist it */
    printf("| listed | %s | %.1f%% | %s |\n", listed_logs[i].file, 100 * case_mean[k],
           listed_logs[i].why);
  }
}

int main(void) {
  printf("| log | cluster | op | ranks | nodes | mean busbw error >= 1 MiB | worst | "
         "out-of-place column only: mean (worst) | bound |\n");
  printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (size_t k = 0; k < N_CASES; k++) {
    const struct case_ *c = &cases[k];
    struct pl_nccl_log *log = NULL;
    if (getenv("PL_NCCL_ROWS") != NULL)
      printf("## %s on %s\n", c->file, c->cluster);
    struct pl_nccl_series *s = load(c, &log);
    struct pl_cluster cl;
    enum pl_coll_algo algo;
    CHECK_EQ_INT(pl_coll_algo_parse(c->algo, &algo, NULL), PL_OK);
    if (s == NULL || pl_cluster_load(c->cluster, &cl, NULL) != PL_OK) {
      CHECK(!"log or cluster did not load");
      pl_nccl_log_free(log);
      continue;
    }
    case_cluster(c, &cl);
    double mean, w, mean_oop, w_oop;
    errors(&cl, s, algo, c->proto, MIB, &mean, &w);
    errors_col(&cl, s, algo, c->proto, MIB, true, &mean_oop, &w_oop);
    const char *base = strrchr(c->cluster, '/');
    printf("| %s | %s | %s | %lld | %lld | %.1f%% | %.1f%% | %.1f%% (%.1f%%) | %.0f%% |\n", c->file,
           base ? base + 1 : c->cluster, pl_coll_op_name(s->op), (long long)s->ranks,
           (long long)(s->ranks / s->ranks_per_node), 100 * mean, 100 * w, 100 * mean_oop,
           100 * w_oop, 100 * c->bound);
    CHECK(mean <= c->bound);
    case_mean[k] = mean;
    pl_nccl_log_free(log);
  }
  listed();
  extrapolation();
  connect_signatures();
  min_ctas_blind();
  ring_switch_drop();
  return check_finish();
}
