/* test_ofi_regions.c: the aws-ofi-nccl tuner plugin's P5/P5e region map (src/net/ofi_regions.c,
 * cluster field "nccl_tuner": "aws-ofi-nccl-p5"), points derived by hand from the vertices of
 * aws/aws-ofi-nccl src/tuner/nccl_ofi_regions.cpp region_init_internal_p5_p5e @ 2daf7d30.
 * The map lives in log2(bytes) x log2(ranks); an edge between two vertices is a straight line
 * there, so the boundary at a rank count r between vertices (x0, r0) and (x1, r1) is
 * x = 2^(log2 x0 + (log2 r - log2 r0) / (log2 r1 - log2 r0) x (log2 x1 - log2 x0)). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"
#include "net/net_int.h"

#define TUNER "aws-ofi-nccl-p5"

/* the first region holding the call, or (-1, -1) when none */
static void pick(enum pl_coll_op op, double bytes, int64_t ranks, int64_t nodes, int *algo,
                 int *proto) {
  int next = 0;
  enum pl_coll_algo a;
  enum pl_coll_proto p;
  *algo = *proto = -1;
  if (net_ofi_region_next(TUNER, op, bytes, ranks, nodes, &next, &a, &p)) {
    *algo = (int)a;
    *proto = (int)p;
  }
}

#define EXPECT(op, bytes, ranks, nodes, want_algo, want_proto)                                     \
  do {                                                                                             \
    int got_a, got_p;                                                                              \
    pick(op, bytes, ranks, nodes, &got_a, &got_p);                                                 \
    CHECK_EQ_INT(got_a, (int)(want_algo));                                                         \
    CHECK_EQ_INT(got_p, (int)(want_proto));                                                        \
  } while (0)

static void eight_per_node(void) {
  const enum pl_coll_op ar = PL_COLL_ALL_REDUCE;
  /* 1 MiB on 4 nodes: left of the tree/LL128 boundary (31457280 B at 16 ranks, 37748736 at
   * 32), so tree/LL128 */
  EXPECT(ar, 1048576.0, 32, 4, PL_ALGO_TREE, PL_PROTO_LL128);
  /* 256 MiB on 4 nodes (32 ranks): tree/LL128 ends at the vertex 37748736 B (36 MiB); the
   * ring/LL128 region runs from there to its right edge (1073741824, 17) -> (2147483648, 64):
   * at 32 ranks log2 x = 30 + (5 - 4.087) / (6 - 4.087) = 30.477, 1.49 GB. 2^28 is between:
   * ring/LL128 */
  EXPECT(ar, 268435456.0, 32, 4, PL_ALGO_RING, PL_PROTO_LL128);
  /* 8 nodes (64 ranks): tree/LL128 to the vertex 117440512 B (112 MiB), ring/LL128 to 2 GiB */
  EXPECT(ar, 268435456.0, 64, 8, PL_ALGO_RING, PL_PROTO_LL128);
  /* 16 nodes (128 ranks): tree/LL128 to the vertex 301989888 B (288 MiB) > 256 MiB */
  EXPECT(ar, 268435456.0, 128, 16, PL_ALGO_TREE, PL_PROTO_LL128);
  /* 64 nodes (512 ranks): tree/LL128 to the vertex 335544320 B (320 MiB) */
  EXPECT(ar, 268435456.0, 512, 64, PL_ALGO_TREE, PL_PROTO_LL128);
  /* 4 GiB on 8 nodes: right of ring/LL128 (2 GiB at 64 ranks) and of ring/Simple's left edge
   * vertex (2684354560, 64): ring/Simple */
  EXPECT(ar, 4294967296.0, 64, 8, PL_ALGO_RING, PL_PROTO_SIMPLE);
  /* 2.25 GiB on 8 nodes: between ring/LL128's 2 GiB and ring/Simple's 2.5 GiB, and the
   * NVLS_TREE regions start at 128 ranks: no region, NCCL's own choice */
  EXPECT(ar, 2415919104.0, 64, 8, -1, -1);
  /* 2 nodes: the plugin leaves them to NCCL ("Skip when two nodes or lesser") */
  EXPECT(ar, 268435456.0, 16, 2, -1, -1);
  /* 4 ranks per node: no map on P5 (nRanks is neither 8, 2 nor 1 x nNodes) */
  EXPECT(ar, 268435456.0, 16, 4, -1, -1);
  /* no all_gather map at 8 ranks per node */
  EXPECT(PL_COLL_ALL_GATHER, 268435456.0, 64, 8, -1, -1);
}

static void two_per_node(void) {
  const enum pl_coll_op ar = PL_COLL_ALL_REDUCE;
  /* 25 MiB on 64 nodes (128 ranks): tree/LL128 up to the vertex 88160256 B (84 MiB) */
  EXPECT(ar, 26214400.0, 128, 64, PL_ALGO_TREE, PL_PROTO_LL128);
  /* 25 MiB on 32 nodes (64 ranks): tree/LL128 only to the vertex 9473024 B (9 MiB); ring/LL128
   * to the vertex 296747008 B: ring/LL128 */
  EXPECT(ar, 26214400.0, 64, 32, PL_ALGO_RING, PL_PROTO_LL128);
  /* 25 MiB on 16 nodes (32 ranks): tree/LL128 to 5525504 B; ring/LL128's right edge
   * (41842688, 8) -> (296747008, 64) at 32 ranks: log2 x = 25.318 + 2/3 x 2.827 = 27.20,
   * 154 MB: ring/LL128 */
  EXPECT(ar, 26214400.0, 32, 16, PL_ALGO_RING, PL_PROTO_LL128);
  /* 512 MiB on 16 nodes (32 ranks): right of that edge (154 MB) and of NVLS_TREE's
   * (275775488, 8..48): the ring/Simple region (81844224, 5) .. (MAX, 32) */
  EXPECT(ar, 536870912.0, 32, 16, PL_ALGO_RING, PL_PROTO_SIMPLE);
}

static void one_per_node(void) {
  const enum pl_coll_op ar = PL_COLL_ALL_REDUCE;
  /* the vertex (2367488, 16) itself: on the tree/LL128 region's edge, which counts as inside
   * (is_inside_region returns 0, and the plugin keeps any in_out >= 0) */
  EXPECT(ar, 2367488.0, 16, 16, PL_ALGO_TREE, PL_PROTO_LL128);
  /* 25 MiB on 16 nodes: tree/LL128 ends at 2367488 B; ring/LL128's right edge (4736000, 2) ->
   * (269484032, 128) at 16 ranks is halfway in log2 ranks (1 -> 7 at 4): log2 x = 22.175 +
   * 0.5 x 5.831 = 25.09, 35.7 MB: ring/LL128 */
  EXPECT(ar, 26214400.0, 16, 16, PL_ALGO_RING, PL_PROTO_LL128);
  /* 64 MiB on 16 nodes: right of 35.7 MB: ring/Simple */
  EXPECT(ar, 67108864.0, 16, 16, PL_ALGO_RING, PL_PROTO_SIMPLE);
  /* all_gather: ring/Simple right of the edge (4194304, 2) -> (8589934592, 2048): at 16 ranks
   * log2 x = 22 + 3/10 x 11 = 25.3 (41.6 MB); 64 MiB inside, 1 MiB in no region */
  EXPECT(PL_COLL_ALL_GATHER, 67108864.0, 16, 16, PL_ALGO_RING, PL_PROTO_SIMPLE);
  EXPECT(PL_COLL_ALL_GATHER, 1048576.0, 16, 16, -1, -1);
  /* reduce_scatter: edge (8388608, 2) -> (4294967296, 1024): at 16 ranks log2 x = 23 + 3/9 x 9
   * = 26 (64 MiB); 128 MiB is right of it (inside), 32 MiB left (outside) */
  EXPECT(PL_COLL_REDUCE_SCATTER, 134217728.0, 16, 16, PL_ALGO_RING, PL_PROTO_SIMPLE);
  EXPECT(PL_COLL_REDUCE_SCATTER, 33554432.0, 16, 16, -1, -1);
  /* NCCL's tuner named: no map */
  int next = 0;
  enum pl_coll_algo a;
  enum pl_coll_proto p;
  CHECK(!net_ofi_region_next("nccl", ar, 26214400.0, 16, 16, &next, &a, &p));
  CHECK(net_ofi_tuner_known(TUNER));
  CHECK(!net_ofi_tuner_known("nccl"));
}

/* Through pl_coll_time: the aws-p5 preset runs the plugin's map; with "nccl" NCCL's own ranking
 * (NVLS_TREE at 256 MiB on 4 nodes, docs/collectives.md "Session 28 (efa28)"). A forced
 * algorithm is NCCL_ALGO: NCCL leaves the other algorithms out of its cost table and the plugin
 * (tuner v3, NCCL >= 2.22.3) forces the first region of the forced one holding the call. */
static void through_the_model(void) {
  struct pl_cluster cl;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK(pl_cluster_load("aws-p5", &cl, &d) == PL_OK);
  CHECK(strcmp(cl.nccl_tuner, TUNER) == 0);
  struct pl_group g4 = {32, 8}, g2 = {16, 8};
  struct pl_coll_cost c;
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 268435456.0, g4, PL_ALGO_AUTO, &c) == PL_OK);
  CHECK_EQ_INT((int)c.algo, (int)PL_ALGO_RING);
  CHECK_EQ_INT((int)c.proto, (int)PL_PROTO_LL128);
  struct pl_coll_cost forced;
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 268435456.0, g4, PL_ALGO_RING, &forced) == PL_OK);
  CHECK(fabs(forced.time_s - c.time_s) <= 1e-12 * c.time_s); /* the same pair, the same cost */
  struct pl_coll_cost two;
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 268435456.0, g2, PL_ALGO_AUTO, &two) == PL_OK);
  CHECK_EQ_INT((int)two.algo, (int)PL_ALGO_NVLS_TREE); /* 2 nodes: NCCL's pick */
  /* One rank per node on 8 nodes, 1 MiB, NCCL_ALGO=Ring: the 1-per-node map's tree/LL128 region
   * starts at 16 ranks; ring/LL128 runs from x = 0 (log2 1e-6) to its right edge (4736000, 2) ->
   * (269484032, 128), at 8 ranks log2 x = 22.175 + 2/6 x 5.814 = 24.11 (17.7 MB): 1 MiB is inside,
   * so the plugin forces LL128 where NCCL's own ranking takes LL for ring at this size.
   * NCCL_ALGO=Tree: no tree region holds 8 ranks, NCCL's own protocol. */
  struct pl_group g8x1 = {8, 1};
  struct pl_coll_cost ring_map, tree_map, ring_own, tree_own;
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 1048576.0, g8x1, PL_ALGO_RING, &ring_map) == PL_OK);
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 1048576.0, g8x1, PL_ALGO_TREE, &tree_map) == PL_OK);
  snprintf(cl.nccl_tuner, sizeof cl.nccl_tuner, "nccl");
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 268435456.0, g4, PL_ALGO_AUTO, &c) == PL_OK);
  CHECK_EQ_INT((int)c.algo, (int)PL_ALGO_NVLS_TREE);
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 1048576.0, g8x1, PL_ALGO_RING, &ring_own) == PL_OK);
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 1048576.0, g8x1, PL_ALGO_TREE, &tree_own) == PL_OK);
  CHECK_EQ_INT((int)ring_map.algo, (int)PL_ALGO_RING);
  CHECK_EQ_INT((int)ring_map.proto, (int)PL_PROTO_LL128);
  CHECK_EQ_INT((int)ring_own.proto, (int)PL_PROTO_LL);
  CHECK_EQ_INT((int)tree_map.proto, (int)tree_own.proto);
  CHECK(tree_map.time_s == tree_own.time_s);
}

/* the field: a bad value is an error naming it (saved and read back: test_cluster_roundtrip) */
static void field(void) {
  const char *good =
      "{\"name\":\"t\",\"gpu\":\"h100\",\"gpus_per_node\":8,"
      "\"intra\":{\"kind\":\"nvswitch\",\"bandwidth\":\"450 GB/s\",\"latency\":\"3.4 us\"},"
      "\"inter\":{\"kind\":\"efa\",\"nics_per_node\":32,\"nic_bandwidth\":\"100 Gb/s\","
      "\"latency\":\"23 us\"},\"nccl_tuner\":\"%s\",\"node_other_power\":\"4.6 kW\"}";
  char text[1024];
  struct pl_cluster cl;
  struct pl_diag d;
  snprintf(text, sizeof text, good, "aws-ofi-nccl-p5");
  pl_diag_clear(&d);
  CHECK(pl_cluster_parse(text, strlen(text), "t", &cl, &d) == PL_OK);
  CHECK(strcmp(cl.nccl_tuner, "aws-ofi-nccl-p5") == 0);
  snprintf(text, sizeof text, good, "aws-ofi-nccl");
  pl_diag_clear(&d);
  CHECK(pl_cluster_parse(text, strlen(text), "t", &cl, &d) != PL_OK);
  CHECK(strstr(d.msg, "nccl_tuner") != NULL);
}

/* A cluster built in code leaves the field empty: NCCL's own tuner (pl_cluster_nccl_tuner), and
 * the map is not consulted. */
static void empty_field(void) {
  struct pl_cluster cl;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK(pl_cluster_load("aws-p5", &cl, &d) == PL_OK);
  CHECK(strcmp(pl_cluster_nccl_tuner(&cl), PL_NCCL_TUNER_AWS_OFI_P5) == 0);
  cl.nccl_tuner[0] = '\0';
  CHECK(strcmp(pl_cluster_nccl_tuner(&cl), "nccl") == 0);
  struct pl_group g4 = {32, 8};
  struct pl_coll_cost c;
  CHECK(pl_coll_time(&cl, PL_COLL_ALL_REDUCE, 268435456.0, g4, PL_ALGO_AUTO, &c) == PL_OK);
  CHECK_EQ_INT((int)c.algo, (int)PL_ALGO_NVLS_TREE); /* NCCL's pick, as through_the_model */
}

int main(void) {
  eight_per_node();
  two_per_node();
  one_per_node();
  through_the_model();
  field();
  empty_field();
  return check_finish();
}
