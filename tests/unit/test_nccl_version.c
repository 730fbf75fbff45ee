#define _POSIX_C_SOURCE 200809L /* getpid */
/* test_nccl_version.c: the NCCL release as an input (src/net/nccl_version.c):
 * parsing, the cluster-file key, and that a release's tables move NCCL's
 * choice of algorithm and protocol but not the cost of a forced call.
 * Expected figures derived by hand in the comments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "check.h"

#define MIB 1048576.0
#define GIB 1073741824.0

static void parse(void) {
  struct pl_diag d, *dp = &d;
  int64_t v = -1;
  pl_diag_clear(&d);
  /* NCCL_VERSION_CODE: 2 x 10000 + 29 x 100 + 2 = 22902 */
  CHECK_STATUS(pl_nccl_version_parse("2.29.2", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, 22902);
  /* as NCCL_DEBUG=VERSION prints it, and as a git tag: 2 x 10000 + 26 x 100 + 2 */
  CHECK_STATUS(pl_nccl_version_parse("2.26.2+cuda12.8", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, 22602);
  CHECK_STATUS(pl_nccl_version_parse("2.28.9-1", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, 22809);
  /* the ends of the accepted range: 2.23.0 = 22300, 2.29.99 = 22999 */
  CHECK_STATUS(pl_nccl_version_parse("2.23.0", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, PL_NCCL_VERSION_MIN);
  CHECK_STATUS(pl_nccl_version_parse("2.29.99", &v, &d), PL_OK, dp);
  CHECK_EQ_INT(v, PL_NCCL_VERSION_MAX);
  /* outside it: 2.22.3 has other Tree/Simple latencies (28 us), 2.30 is not read */
  v = 7;
  CHECK_EQ_INT(pl_nccl_version_parse("2.22.3", &v, &d), PL_ERR_RANGE);
  CHECK(strstr(d.msg, "2.23 to 2.29") != NULL);
  CHECK_EQ_INT(pl_nccl_version_parse("2.30.1", &v, &d), PL_ERR_RANGE);
  CHECK_EQ_INT(v, 7); /* untouched on error */
  const char *bad[] = {"", "2.29", "2.29.2.1", "2.29.x", "v2.29.2", "2.29.2 ", "2..2", "2.100.1",
                       "2.29.100", "-2.29.2", "2.29.2x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_EQ_INT(pl_nccl_version_parse(bad[i], &v, &d), PL_ERR_PARSE);
    CHECK(strstr(d.msg, "MAJOR.MINOR.PATCH") != NULL);
  }
  CHECK_EQ_INT(pl_nccl_version_parse(NULL, &v, &d), PL_ERR_PARSE);
  char s[32];
  pl_nccl_version_str(22902, s, sizeof s);
  CHECK_STR(s, "2.29.2");
  pl_nccl_version_str(0, s, sizeof s);
  CHECK_STR(s, "");
}

/* dgx-h100.json with one more top-level key. */
static enum pl_status h100_with(const char *key_value, struct pl_cluster *c, struct pl_diag *d) {
  FILE *f = fopen(PL_SOURCE_DIR "/data/clusters/dgx-h100.json", "rb");
  static char text[16384];
  size_t n = f ? fread(text, 1, sizeof text - 256, f) : 0;
  if (f)
    fclose(f);
  text[n] = '\0';
  char *brace = strchr(text, '{');
  if (brace == NULL)
    return PL_ERR_PARSE;
  char out[16640];
  snprintf(out, sizeof out, "{%s,%s", key_value, brace + 1);
  return pl_cluster_parse(out, strlen(out), "test cluster", c, d);
}

static void cluster_key(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_cluster c;
  CHECK_STATUS(h100_with("\"nccl_version\": \"2.29.2\"", &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.nccl_version, 22902);
  CHECK_STATUS(h100_with("\"nccl_version\": {\"value\": \"2.26.2\", \"source\": \"log\"}", &c, &d),
               PL_OK, dp);
  CHECK_EQ_INT(c.nccl_version, 22602);
  CHECK_EQ_INT(h100_with("\"nccl_version\": \"2.18.1\"", &c, &d), PL_ERR_RANGE);
  CHECK(strstr(d.msg, "nccl_version") != NULL && strstr(d.msg, "2.18.1") != NULL);
  CHECK_EQ_INT(h100_with("\"nccl_version\": \"latest\"", &c, &d), PL_ERR_PARSE);
  CHECK(strstr(d.msg, "nccl_version") != NULL);
  CHECK_EQ_INT(h100_with("\"nccl_version\": 2.29", &c, &d), PL_ERR_PARSE);
  /* a saved cluster (calibrate nccl writes them) keeps it: "2.29.2" back to 22902 */
  CHECK_STATUS(h100_with("\"nccl_version\": \"2.29.2\"", &c, &d), PL_OK, dp);
  char tmp[512];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/plateau-test-nccl-version-%ld.json", dir ? dir : "/tmp",
           (long)getpid());
  struct pl_cluster back;
  CHECK_STATUS(pl_cluster_save(&c, tmp, "test", &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load(tmp, &back, &d), PL_OK, dp);
  CHECK_EQ_INT(back.nccl_version, 22902);
  remove(tmp);
  /* a preset states none: the default tables */
  CHECK_STATUS(pl_cluster_load("dgx-h100", &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.nccl_version, 0);
}

/* The release moves the choice, not the charge. */
static void ranks_only(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_coll_cost c_def, c_ver, f_def, f_ver;
  /* H100, 10 nodes x 2 ranks, 32 MiB all_reduce (the xxrjun g2 log's first size). NCCL
   * 2.28.9+ ranks NVLS_TREE with hwLat[NET][NVLSTree] = 20.9 us, not 14: its latency grows
   * by 2 log2i(10) x (20.9 - 14) = 2 x 3 x 6.9 = 41.4 us (nvls_tree.c), which hands the size
   * to ring/LL128. The cost of a forced NVLS_TREE call stays the default tables'. */
  struct pl_cluster h, h29;
  CHECK_STATUS(pl_cluster_load("dgx-h100", &h, &d), PL_OK, dp);
  h29 = h;
  CHECK_STATUS(pl_nccl_version_parse("2.29.2", &h29.nccl_version, &d), PL_OK, dp);
  struct pl_group g2 = {20, 2};
  CHECK_EQ_INT(pl_coll_time(&h, PL_COLL_ALL_REDUCE, 32 * MIB, g2, PL_ALGO_AUTO, &c_def), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&h29, PL_COLL_ALL_REDUCE, 32 * MIB, g2, PL_ALGO_AUTO, &c_ver), PL_OK);
  CHECK_EQ_INT(c_def.algo, PL_ALGO_NVLS_TREE);
  CHECK_EQ_INT(c_ver.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c_ver.proto, PL_PROTO_LL128);
  /* the chosen ring/LL128 is charged as a forced one */
  CHECK_EQ_INT(pl_coll_time_proto(&h, PL_COLL_ALL_REDUCE, 32 * MIB, g2, PL_ALGO_RING,
                                  PL_PROTO_LL128, &f_def), PL_OK);
  CHECK_NEAR_REL(c_ver.time_s, f_def.time_s, 1e-12);
  CHECK_EQ_INT(pl_coll_time_proto(&h, PL_COLL_ALL_REDUCE, 32 * MIB, g2, PL_ALGO_NVLS_TREE,
                                  PL_PROTO_SIMPLE, &f_def), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&h29, PL_COLL_ALL_REDUCE, 32 * MIB, g2, PL_ALGO_NVLS_TREE,
                                  PL_PROTO_SIMPLE, &f_ver), PL_OK);
  CHECK_NEAR_REL(f_ver.time_s, f_def.time_s, 1e-12);

  /* GB200 NVL72, 20 racks x 72, NVLS off, GPU to NIC through the CPU (the CoreWeave 20-rack
   * run, test_nccl_multinode.c run_envs), 8 GiB all_reduce. */
  struct pl_cluster gb, gb26;
  CHECK_STATUS(pl_cluster_load("gb200-nvl72", &gb, &d), PL_OK, dp);
  gb.nvls = false;
  snprintf(gb.gpu_nic_path, sizeof gb.gpu_nic_path, "phb");
  gb26 = gb;
  CHECK_STATUS(pl_nccl_version_parse("2.26.2", &gb26.nccl_version, &d), PL_OK, dp);
  struct pl_group racks = {1440, 72};
  CHECK_EQ_INT(pl_coll_time(&gb, PL_COLL_ALL_REDUCE, 8 * GIB, racks, PL_ALGO_AUTO, &c_def), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&gb26, PL_COLL_ALL_REDUCE, 8 * GIB, racks, PL_ALGO_AUTO, &c_ver), PL_OK);
  /* 2.26.2's Blackwell perChMaxTreeBws on > 2 nodes is 2 x 36.0 = 72.0 GB/s a graph channel,
   * three times 2.28's 24.0: the tree NCCL 2.28 caps below the ring at 8 GiB is NCCL 2.26.2's
   * choice, and costs what a forced tree costs (48.9 ms against the ring's 69.8) */
  CHECK_EQ_INT(c_def.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c_ver.algo, PL_ALGO_TREE);
  CHECK_EQ_INT(c_ver.proto, PL_PROTO_SIMPLE);
  CHECK_EQ_INT(pl_coll_time_proto(&gb, PL_COLL_ALL_REDUCE, 8 * GIB, racks, PL_ALGO_TREE,
                                  PL_PROTO_SIMPLE, &f_def), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&gb26, PL_COLL_ALL_REDUCE, 8 * GIB, racks, PL_ALGO_TREE,
                                  PL_PROTO_SIMPLE, &f_ver), PL_OK);
  CHECK_NEAR_REL(f_ver.time_s, f_def.time_s, 1e-12);
  CHECK_NEAR_REL(c_ver.time_s, f_def.time_s, 1e-12);
}

/* NCCL 2.29 ranks NVLS_TREE all_reduce on Blackwell x86 hosts at treeCorrectionFactor of its
 * bandwidth up to 1 GiB, with a 24th column for 512 MiB (v2.29.2-1 src/graph/tuning.cc
 * ncclTopoGetAlgoTime: minCompCap >= 100 and cpuArch X86; "Improves performance tuning of
 * 256M-512M message sizes on Blackwell for AllReduce"; nccl_version.c). Four DGX B200 nodes,
 * NCCL 2.29.2, 512 MiB all_reduce: NVLS_TREE ranks at 25 + 2 x log2i(4) x 20.9 = 108.6 us of
 * latency plus 512 MiB at min(NVLS 721.8 x 0.74 x 8/9 = 474.8, 400 / 2 = 200 GB/s of NICs,
 * 8 heads x 43.8 x 32/62 = 180.9) = 180.9 GB/s: 3,076 us; the factor at 512 MiB
 * (log2i(2^29 / 64) = 23, Simple 0.9) makes it 3,406 us, and the ring, ranked between the two,
 * takes the size. The same release on an Arm host (a Grace host) keeps NVLS_TREE, and both
 * hosts pick the same at 2 GiB (log2i(2^31 / 64) = 25, past the table). The charge of a
 * forced NVLS_TREE call does not change. */
static void nvls_tree_x86(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_cluster b, barm;
  CHECK_STATUS(pl_cluster_load("dgx-b200", &b, &d), PL_OK, dp);
  CHECK_STATUS(pl_nccl_version_parse("2.29.2", &b.nccl_version, &d), PL_OK, dp);
  barm = b;
  snprintf(barm.cpu_vendor, sizeof barm.cpu_vendor, "arm");
  struct pl_group four = {32, 8};
  struct pl_coll_cost cx, ca, fx, fa;
  CHECK_EQ_INT(pl_coll_time(&b, PL_COLL_ALL_REDUCE, 512 * MIB, four, PL_ALGO_AUTO, &cx), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&barm, PL_COLL_ALL_REDUCE, 512 * MIB, four, PL_ALGO_AUTO, &ca), PL_OK);
  CHECK_EQ_INT(cx.algo, PL_ALGO_RING);
  CHECK_EQ_INT(ca.algo, PL_ALGO_NVLS_TREE);
  CHECK_EQ_INT(pl_coll_time_proto(&b, PL_COLL_ALL_REDUCE, 512 * MIB, four, PL_ALGO_NVLS_TREE,
                                  PL_PROTO_SIMPLE, &fx), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&barm, PL_COLL_ALL_REDUCE, 512 * MIB, four, PL_ALGO_NVLS_TREE,
                                  PL_PROTO_SIMPLE, &fa), PL_OK);
  CHECK_NEAR_REL(fx.time_s, fa.time_s, 1e-12);
  CHECK_NEAR_REL(ca.time_s, fa.time_s, 1e-12);
  CHECK_EQ_INT(pl_coll_time(&b, PL_COLL_ALL_REDUCE, 2 * GIB, four, PL_ALGO_AUTO, &cx), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&barm, PL_COLL_ALL_REDUCE, 2 * GIB, four, PL_ALGO_AUTO, &ca), PL_OK);
  CHECK_EQ_INT(cx.algo, ca.algo);
  CHECK_NEAR_REL(cx.time_s, ca.time_s, 1e-12);
}

/* Blackwell perChMaxRingLL128Bws by release (src/graph/tuning.cc): {73.4, 73.4, 73.4} in
 * v2.28.3-1, {73.4, 34.6, 73.4} in v2.28.7-1 .. v2.28.9-1, {34.5, 34.6, 34.5} in v2.29.2-1 ..
 * v2.29.3-1, {40.0, 40.0, 40.0} in v2.29.7-1. Two DGX B200 nodes, 64 MiB all_gather: 2.28.3 and
 * 2.28.7 differ in that one two-node entry only, and its cut of the LL128 ring's ranked bandwidth
 * from 16 x 73.4 to 16 x 34.6 GB/s hands the size from ring/LL128 to ring/Simple, which is charged
 * as a forced ring/Simple call. */
static void ring_ll128_rows(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_cluster b283, b287;
  CHECK_STATUS(pl_cluster_load("dgx-b200", &b283, &d), PL_OK, dp);
  b287 = b283;
  CHECK_STATUS(pl_nccl_version_parse("2.28.3", &b283.nccl_version, &d), PL_OK, dp);
  CHECK_STATUS(pl_nccl_version_parse("2.28.7", &b287.nccl_version, &d), PL_OK, dp);
  struct pl_group two = {16, 8};
  struct pl_coll_cost c283, c287, f;
  CHECK_EQ_INT(pl_coll_time(&b283, PL_COLL_ALL_GATHER, 64 * MIB, two, PL_ALGO_AUTO, &c283), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&b287, PL_COLL_ALL_GATHER, 64 * MIB, two, PL_ALGO_AUTO, &c287), PL_OK);
  CHECK_EQ_INT(c283.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c283.proto, PL_PROTO_LL128);
  CHECK_EQ_INT(c287.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c287.proto, PL_PROTO_SIMPLE);
  CHECK_EQ_INT(pl_coll_time_proto(&b283, PL_COLL_ALL_GATHER, 64 * MIB, two, PL_ALGO_RING,
                                  PL_PROTO_SIMPLE, &f), PL_OK);
  CHECK_NEAR_REL(c287.time_s, f.time_s, 1e-12);
}

/* PAT's busBw factor by release (src/graph/tuning.cc ncclTopoTuneModel: 0.85 in v2.23.4-1, 0.75
 * in v2.24.3-1 and later). DGX H100, 16 nodes x 1 rank, 16 MiB all_gather: PAT's latency is
 * 8 + log2i(16) x 14 / 3.5 + 16 x 2.8 = 68.8 us, its bandwidth one 400G NIC, 50 GB/s, x the
 * factor: ranked at 68.8 + 16 MiB / 42.5 GB/s = 463.6 us in 2.23.4 and 68.8 + 16 MiB / 37.5 GB/s
 * = 516.2 us in 2.24.3, and ring/LL128, ranked between the two, takes the size in 2.24.3 only.
 * The PAT 2.23.4 picks is charged at the default 0.75: 516.2 us. */
static void pat_factor(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_cluster h23, h24;
  CHECK_STATUS(pl_cluster_load("dgx-h100", &h23, &d), PL_OK, dp);
  h24 = h23;
  CHECK_STATUS(pl_nccl_version_parse("2.23.4", &h23.nccl_version, &d), PL_OK, dp);
  CHECK_STATUS(pl_nccl_version_parse("2.24.3", &h24.nccl_version, &d), PL_OK, dp);
  struct pl_group one = {16, 1};
  struct pl_coll_cost c23, c24, f23, f24;
  CHECK_EQ_INT(pl_coll_time(&h23, PL_COLL_ALL_GATHER, 16 * MIB, one, PL_ALGO_AUTO, &c23), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&h24, PL_COLL_ALL_GATHER, 16 * MIB, one, PL_ALGO_AUTO, &c24), PL_OK);
  CHECK_EQ_INT(c23.algo, PL_ALGO_PAT);
  CHECK_EQ_INT(c24.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c24.proto, PL_PROTO_LL128);
  CHECK_NEAR_REL(c23.time_s, 68.8e-6 + 16 * MIB / 37.5e9, 1e-9);
  CHECK_EQ_INT(pl_coll_time_proto(&h23, PL_COLL_ALL_GATHER, 16 * MIB, one, PL_ALGO_PAT,
                                  PL_PROTO_SIMPLE, &f23), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&h24, PL_COLL_ALL_GATHER, 16 * MIB, one, PL_ALGO_PAT,
                                  PL_PROTO_SIMPLE, &f24), PL_OK);
  CHECK_NEAR_REL(f23.time_s, f24.time_s, 1e-12);
}

/* CollNetDirect all_gather's factor by release (src/graph/tuning.cc ncclTopoTuneModel): ppn x bw
 * x (w 0.85 + (1 - w) 0.95), w = (ppn - 1) / 7, in v2.20.3-1 .. v2.26.6-1; ppn x min(bwIntra,
 * 0.9 bwInter) from v2.27.3-1. DGX H100 with SHARP, 4 nodes x 8, 256 MiB: latency 2 (3.7 + 7 x
 * 0.4) + 31 = 44 us; 8 NICs x 50 GB/s x 0.9 = 360 GB/s in 2.28.3, ranked and charged at 44 +
 * 256 MiB / 360 GB/s = 789.7 us; 2.26.2 ranks it at x 0.85 = 340 GB/s, 833.5 us, and the ring,
 * ranked between the two, takes the size. A forced CollNetDirect call costs the same in both. */
static void collnet_ag_factor(void) {
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  struct pl_cluster h26, h28;
  CHECK_STATUS(pl_cluster_load("dgx-h100", &h26, &d), PL_OK, dp);
  h26.sharp = true;
  h28 = h26;
  CHECK_STATUS(pl_nccl_version_parse("2.26.2", &h26.nccl_version, &d), PL_OK, dp);
  CHECK_STATUS(pl_nccl_version_parse("2.28.3", &h28.nccl_version, &d), PL_OK, dp);
  struct pl_group four = {32, 8};
  struct pl_coll_cost c26, c28, f26, f28;
  CHECK_EQ_INT(pl_coll_time(&h26, PL_COLL_ALL_GATHER, 256 * MIB, four, PL_ALGO_AUTO, &c26), PL_OK);
  CHECK_EQ_INT(pl_coll_time(&h28, PL_COLL_ALL_GATHER, 256 * MIB, four, PL_ALGO_AUTO, &c28), PL_OK);
  CHECK_EQ_INT(c26.algo, PL_ALGO_RING);
  CHECK_EQ_INT(c28.algo, PL_ALGO_COLLNET_DIRECT);
  CHECK_NEAR_REL(c28.time_s, 44e-6 + 256 * MIB / 360e9, 1e-9);
  CHECK_EQ_INT(pl_coll_time_proto(&h26, PL_COLL_ALL_GATHER, 256 * MIB, four,
                                  PL_ALGO_COLLNET_DIRECT, PL_PROTO_SIMPLE, &f26), PL_OK);
  CHECK_EQ_INT(pl_coll_time_proto(&h28, PL_COLL_ALL_GATHER, 256 * MIB, four,
                                  PL_ALGO_COLLNET_DIRECT, PL_PROTO_SIMPLE, &f28), PL_OK);
  CHECK_NEAR_REL(f26.time_s, f28.time_s, 1e-12);
}

int main(void) {
  parse();
  cluster_key();
  ranks_only();
  nvls_tree_x86();
  ring_ll128_rows();
  pat_factor();
  collnet_ag_factor();
  return check_finish();
}
