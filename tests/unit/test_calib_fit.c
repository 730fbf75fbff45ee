#define _POSIX_C_SOURCE 200809L /* getpid */
/* test_calib_fit.c: calibration recovers known figures. Times are generated
 * by the model itself from a "true" cluster (dgx-h100 with other latencies,
 * bandwidths and overheads), then fitted starting from the dgx-h100 preset:
 * a least-squares fit of a model to its own output must find the truth
 * (differential check of fit.c against the cost model), and the saved file
 * must load back with the same figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "check.h"

#define N_SIZES 14

static struct pl_nccl_row rows[4][N_SIZES];

static void synth(const struct pl_cluster *truth, struct pl_nccl_series *s, int k,
                  int64_t ranks, int64_t per_node, enum pl_coll_algo algo) {
  s->op = PL_COLL_ALL_REDUCE;
  s->op_known = true;
  s->ranks = ranks;
  s->nodes = ranks / per_node;
  s->ranks_per_node = per_node;
  s->rows = rows[k];
  s->n_rows = N_SIZES;
  struct pl_group g = {ranks, per_node};
  for (int i = 0; i < N_SIZES; i++) {
    struct pl_coll_cost c;
    rows[k][i].bytes = 1048576.0 * pow(2.0, i); /* 1 MiB .. 8 GiB */
    CHECK_EQ_INT(pl_coll_time(truth, s->op, rows[k][i].bytes, g, algo, &c), PL_OK);
    rows[k][i].time_s = c.time_s;
  }
}

/* Worst |measured / model - 1| of a series under a cluster. */
static double worst_err(const struct pl_cluster *c, const struct pl_nccl_series *s,
                        enum pl_coll_algo algo) {
  double w = 0.0;
  struct pl_group g = {s->ranks, s->ranks_per_node};
  for (size_t i = 0; i < s->n_rows; i++) {
    struct pl_coll_cost cost;
    if (pl_coll_time(c, s->op, s->rows[i].bytes, g, algo, &cost) != PL_OK)
      return INFINITY;
    w = fmax(w, fabs(s->rows[i].time_s / cost.time_s - 1.0));
  }
  return w;
}

/* The "source" a saved cluster file gives the first entry named key: a
 * figure the fit held at the base must not claim to be fitted. */
static bool saved_source_is_base(const struct pl_cluster *c, const char *key) {
  char tmp[512], text[8192];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/plateau-test-src-%ld.json", dir ? dir : "/tmp", (long)getpid());
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_cluster_save(c, tmp, "test", &d) != PL_OK)
    return false;
  FILE *f = fopen(tmp, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  if (f)
    fclose(f);
  remove(tmp);
  text[n] = '\0';
  char name[64];
  snprintf(name, sizeof name, "\"%s\"", key);
  const char *v = strstr(text, name);
  const char *src = v ? strstr(v, "\"source\": \"") : NULL;
  CHECK(src != NULL);
  return src != NULL && strncmp(src + 11, "from the base cluster", 21) == 0;
}

/* Extrapolation (issue #18, docs/collectives.md "Extrapolation"): logs
 * generated from a true cluster on 2 nodes (ring and tree, 8 ranks per
 * node) are fitted; the fitted file must then predict the same cluster's
 * 16-node logs, which it never saw. The per-call and per-step terms are
 * told apart by the protocol switches inside the fitted range (NCCL's
 * hwLat rows differ per protocol), the ring's steps grow as 2(n-1) and the
 * tree's depth as log2(nodes), so a fit that carries NCCL's structure
 * predicts 16 nodes as well as it fits 2. Second, a network that does not
 * bind on the fitted node count keeps the base's figure. */
static void extrapolation(const struct pl_cluster *base) {
  struct pl_cluster truth = *base, fitted;
  truth.coll_launch_s = 4e-6;
  truth.inter_latency_s = 20e-6;
  truth.nic_bytes_per_s = 35e9; /* 280 GB/s per node */
  struct pl_nccl_series s[4] = {{0}};
  synth(&truth, &s[0], 0, 16, 8, PL_ALGO_RING);
  synth(&truth, &s[1], 1, 16, 8, PL_ALGO_TREE);
  synth(&truth, &s[2], 2, 128, 8, PL_ALGO_RING);
  synth(&truth, &s[3], 3, 128, 8, PL_ALGO_TREE);
  struct pl_calib_obs obs[2] = {{&s[0], PL_ALGO_RING}, {&s[1], PL_ALGO_TREE}};
  struct pl_calib_fit fit;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_calib_nccl(base, obs, 2, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  double e_ring = worst_err(&fitted, &s[2], PL_ALGO_RING);
  double e_tree = worst_err(&fitted, &s[3], PL_ALGO_TREE);
  printf("extrapolation 2 -> 16 nodes: network hop %.3f us (20), %.2f GB/s per node (280), launch "
         "%.3f us (4); worst error ring %.2g, tree %.2g\n",
         fit.inter_latency_s * 1e6, fit.node_net_bytes_per_s / 1e9, fit.launch_s * 1e6, e_ring,
         e_tree);
  CHECK_NEAR_REL(fit.inter_latency_s, 20e-6, 0.02);
  CHECK_NEAR_REL(fit.node_net_bytes_per_s, 280e9, 0.02);
  CHECK(e_ring < 0.01);
  CHECK(e_tree < 0.01);

  /* The network where it does not bind (net_bw_binds): a 2-node NVLS_TREE
   * on dgx-h100 is set by its NVLS part (NVLink 370.8 GB/s x 0.85 x 8/9 =
   * 280 GB/s algbw, below the 16 NVLS channels' 320 GB/s share of the
   * 400 GB/s network; docs/collectives.md "NVLS_TREE"); from 4 nodes on the
   * network moves 2S per node and binds. A truth with slower NVLink (300
   * GB/s) and the preset's network: the fit must hold the network at
   * 400 GB/s, find NVLink, and predict 8 nodes; a fit free to move the
   * network can trade it against NVLink on the 2-node rows. (Session 9,
   * ib9: the truth was 330 GB/s; NCCL 2.28's NVLS_TREE ceiling counted over
   * the 8 NVLS heads, 8 x 57.7 GB/s busBw = 246.2 GB/s algbw on 16 ranks,
   * nvls_tree.c nvls_tree_cap, now binds above 326 GB/s of NVLink
   * (x 0.85 x 8/9), so 2-node rows cannot show 330; at 300 the NVLS part,
   * 226.7 GB/s, still binds.) */
  truth = *base;
  truth.intra_nccl_bytes_per_s = 300e9;
  synth(&truth, &s[0], 0, 16, 8, PL_ALGO_NVLS_TREE);
  synth(&truth, &s[2], 2, 64, 8, PL_ALGO_NVLS_TREE);
  struct pl_calib_obs nt = {&s[0], PL_ALGO_NVLS_TREE};
  CHECK_STATUS(pl_calib_nccl(base, &nt, 1, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  double e8 = worst_err(&fitted, &s[2], PL_ALGO_NVLS_TREE);
  printf("NVLS_TREE 2 -> 8 nodes: network %.2f GB/s per node (held at 400), NVLink %.2f GB/s "
         "(300), launch %.3f us (0), network hop %.3f us (14); worst error at 8 nodes %.2g\n",
         fit.node_net_bytes_per_s / 1e9, fit.intra_bytes_per_s / 1e9, fit.launch_s * 1e6,
         fit.inter_latency_s * 1e6, e8);
  CHECK_NEAR_REL(fit.node_net_bytes_per_s, 400e9, 1e-12);
  /* held, so the file names the base as its source, and the hop latency
   * (fitted) the fit (session 27, pol27) */
  CHECK(!fit.fit_inter_bw && fit.fit_inter);
  CHECK(!fitted.calibrated_nic_bw && fitted.calibrated_inter);
  CHECK(saved_source_is_base(&fitted, "nic_bandwidth"));
  CHECK_NEAR_REL(fit.intra_bytes_per_s, 300e9, 0.02);
  /* One algorithm and protocol on one node count see per-call and per-hop
   * latency as one sum: launch + 2 log2(2) x hop (NVLS_TREE's network part,
   * nvls_tree.c) = 0 + 2 x 14 us in the truth. The split is free, so at
   * 8 nodes (6 hops) the prediction may be off by 4 x (14 us - hop) on the
   * fastest row (~140 us): within 3% for a hop within 1 us of the truth.
   * Since session 9 (ib9) the fit lands anywhere on that line (hop 3.9 us
   * with this truth, 13.1 us with the former 330 GB/s), so every 8-node row
   * is checked against what the data do pin down: its error is the split's
   * 4 x (hop - 14 us) plus at most 2% (NVLink within 2%, the network held). */
  CHECK_NEAR_REL(fit.launch_s + 2.0 * fit.inter_latency_s, 28e-6, 0.005);
  struct pl_group g8 = {64, 8};
  for (size_t i = 0; i < s[2].n_rows; i++) {
    struct pl_coll_cost c8;
    CHECK_EQ_INT(pl_coll_time(&fitted, PL_COLL_ALL_REDUCE, s[2].rows[i].bytes, g8,
                              PL_ALGO_NVLS_TREE, &c8), PL_OK);
    double split = 4.0 * fabs(fit.inter_latency_s - 14e-6);
    CHECK(fabs(c8.time_s - s[2].rows[i].time_s) <= split + 0.02 * s[2].rows[i].time_s);
  }
}

/* The proxy's per-message cost (src/net/proxy_msg.c): ring all_reduce logs
 * generated on alcf-polaris with 8 us per network message (the preset has
 * none) on 2 nodes (8 ranks); fitted from the preset, the cost must come
 * back and predict the same cluster's 64-node ring (256 ranks) it never
 * saw: a message costs the same on any node count, and the steps grow as
 * 2(n-1). The bound binds where LL and Simple post many small messages
 * (1-64 MiB here), NCCL's terms elsewhere, so the rows tell it apart from
 * the network hop. */
static void proxy_messages(void) {
  struct pl_cluster base, truth, fitted;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("alcf-polaris", &base, &d), PL_OK, dp);
  truth = base;
  truth.inter_msg_s = 8e-6;
  struct pl_nccl_series s[2] = {{0}};
  synth(&truth, &s[0], 0, 8, 4, PL_ALGO_RING);
  synth(&truth, &s[1], 1, 256, 4, PL_ALGO_RING);
  struct pl_calib_obs obs = {&s[0], PL_ALGO_RING};
  struct pl_calib_fit fit;
  CHECK_STATUS(pl_calib_nccl(&base, &obs, 1, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  double e64 = worst_err(&fitted, &s[1], PL_ALGO_RING);
  printf("proxy messages 2 -> 64 nodes: %.3f us per message (8), network hop %.3f us (14), launch "
         "%.3f us (0); worst error at 64 nodes %.2g\n",
         fit.inter_msg_s * 1e6, fit.inter_latency_s * 1e6, fit.launch_s * 1e6, e64);
  CHECK(fit.fit_msg && fitted.calibrated_msg);
  CHECK(!saved_source_is_base(&fitted, "message_overhead"));
  CHECK_NEAR_REL(fit.inter_msg_s, 8e-6, 0.02);
  /* what the fitted rows ran (pl_calib_fit.pairs_seen, min_net_msgs_per_step; calibrate
   * nccl's extrapolation note): ring only, forced. At 8 ranks on 4 channels a ring LL row of
   * 1 MiB runs nc = min(4, floor(1 MiB / (512 x 8 x 8))) = 4 channels with a share of
   * 1 MiB / 32 = 32 KiB, one LL chunk: 1 loop, 4 messages a step; Simple posts 2 a loop
   * (>= 8); larger LL rows loop more. So the fewest is 4 if the 1 MiB row runs LL. The
   * 256-rank series it was not fitted on runs 1 MiB on nc = floor(1 MiB / (512 x 8 x 256))
   * = 1 channel, share 4 KiB: one message a step, outside what the fit measured. */
  printf("proxy messages: pairs 0x%x, fewest messages a fitted ring step %.0f\n", fit.pairs_seen,
         fit.min_net_msgs_per_step);
  CHECK((fit.pairs_seen & ~(PL_CALIB_PAIR(PL_ALGO_RING, PL_PROTO_LL) |
                            PL_CALIB_PAIR(PL_ALGO_RING, PL_PROTO_SIMPLE) |
                            PL_CALIB_PAIR(PL_ALGO_RING, PL_PROTO_LL128))) == 0u);
  CHECK(fit.pairs_seen & PL_CALIB_PAIR(PL_ALGO_RING, PL_PROTO_SIMPLE));
  {
    struct pl_coll_cost c1;
    struct pl_group g8 = {8, 4}, g256 = {256, 4};
    CHECK_EQ_INT(pl_coll_time(&fitted, PL_COLL_ALL_REDUCE, 1048576.0, g8, PL_ALGO_RING, &c1), PL_OK);
    CHECK_NEAR_REL(fit.min_net_msgs_per_step, c1.proto == PL_PROTO_LL ? 4.0 : 8.0, 1e-12);
    CHECK_EQ_INT(pl_coll_time_proto(&fitted, PL_COLL_ALL_REDUCE, 1048576.0, g256, PL_ALGO_RING,
                                    PL_PROTO_LL, &c1), PL_OK);
    CHECK_NEAR_REL(c1.net_msgs_per_step, 1.0, 1e-12);
  }
  /* Since a Simple ring step hides its network hop behind a slice (ring.c
   * ring_simple_exposed_s), the 2-node rows' large Simple calls no longer
   * show the hop, so the few rows where it is exposed leave it loose (26.9 us
   * fitted against 14 in the truth): the message cost still comes back
   * exactly, the 64-node ring's worst row is off by 17 % (was exact). */
  CHECK(e64 < 0.20);
  /* the saved file carries it (inter.message_overhead) and loads back;
   * a negative cost is refused */
  char tmp[512];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/plateau-test-msg-%ld.json", dir ? dir : "/tmp", (long)getpid());
  struct pl_cluster back;
  CHECK_STATUS(pl_cluster_save(&fitted, tmp, "test", &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load(tmp, &back, &d), PL_OK, dp);
  CHECK_NEAR_REL(back.inter_msg_s, fitted.inter_msg_s, 1e-5);
  FILE *f = fopen(tmp, "r");
  char text[8192];
  size_t n = f ? fread(text, 1, sizeof text - 2, f) : 0; /* room for the added sign */
  if (f)
    fclose(f);
  text[n] = '\0';
  char *v = strstr(text, "\"message_overhead\"");
  CHECK(v != NULL);
  if (v != NULL && (v = strstr(v, "\"value\": \"")) != NULL) {
    memmove(v + 11, v + 10, strlen(v + 10) + 1); /* "8.0 us" -> "-8.0 us" */
    v[10] = '-';
    f = fopen(tmp, "w");
    if (f) {
      fputs(text, f);
      fclose(f);
    }
    CHECK_EQ_INT(pl_cluster_load(tmp, &back, &d), PL_ERR_RANGE);
    CHECK(strstr(d.msg, "message_overhead") != NULL);
  }
  remove(tmp);
  /* the preset's own logs carry its 2.86 us (session 12): the fit returns it */
  synth(&base, &s[0], 0, 8, 4, PL_ALGO_RING);
  CHECK_STATUS(pl_calib_nccl(&base, &obs, 1, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  CHECK_NEAR_REL(fit.inter_msg_s, 2.86e-6, 0.02);
  /* logs of a cluster without the cost say nothing about it: off, as in that base */
  base.inter_msg_s = 0.0;
  synth(&base, &s[0], 0, 8, 4, PL_ALGO_RING);
  CHECK_STATUS(pl_calib_nccl(&base, &obs, 1, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  CHECK(fit.inter_msg_s < 0.1e-6);
  /* a tree all_reduce posts no ring messages (the bound is the ring's,
   * proxy_msg.c): with the preset's 2.86 us its rows see nothing, the fit
   * keeps the base's figure and the file says it is the base's, not fitted */
  base.inter_msg_s = 2.86e-6;
  synth(&base, &s[0], 0, 8, 4, PL_ALGO_TREE);
  struct pl_calib_obs tree_obs = {&s[0], PL_ALGO_TREE};
  CHECK_STATUS(pl_calib_nccl(&base, &tree_obs, 1, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  CHECK(fit.fit_inter && !fit.fit_msg && !fitted.calibrated_msg);
  CHECK_NEAR_REL(fitted.inter_msg_s, 2.86e-6, 1e-12);
  CHECK(saved_source_is_base(&fitted, "message_overhead"));
}

/* A free figure no fitted row sees keeps the base's value and says so: a
 * one-node NVLS log cannot see the NVLink hop latency (NVLS's 25 us is a
 * per-call constant, nvls.c; docs/collectives.md "What a log cannot see"),
 * so the fit leaves it where every start put it and the file names the base
 * as its source, while the NVLink bandwidth it does see is the fit's. */
static void kept_figures(void) {
  struct pl_cluster base, truth, fitted;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &base, &d), PL_OK, dp);
  truth = base;
  truth.intra_nccl_bytes_per_s = 340e9;
  struct pl_nccl_series s = {0};
  synth(&truth, &s, 0, 8, 8, PL_ALGO_NVLS);
  struct pl_calib_obs obs = {&s, PL_ALGO_NVLS};
  struct pl_calib_fit fit;
  CHECK_STATUS(pl_calib_nccl(&base, &obs, 1, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  printf("NVLS one node: NVLink %.2f GB/s (340), hop %.3f us (kept at 3.4)\n",
         fit.intra_bytes_per_s / 1e9, fit.intra_latency_s * 1e6);
  CHECK(fit.fit_intra);
  CHECK_NEAR_REL(fit.intra_latency_s, base.intra_latency_s, 1e-12);
  CHECK(fitted.kept_intra_lat && !fitted.kept_intra_bw);
  CHECK(saved_source_is_base(&fitted, "latency"));
  CHECK(!saved_source_is_base(&fitted, "nccl_bandwidth"));
}

int main(void) {
  struct pl_cluster base, truth, fitted, back;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &base, &d), PL_OK, dp);
  truth = base;
  truth.coll_launch_s = 7e-6;
  truth.intra_latency_s = 4.5e-6;
  truth.intra_nccl_bytes_per_s = 330e9;
  truth.inter_latency_s = 22e-6;
  truth.nic_bytes_per_s = 40e9; /* 320 GB/s per node */
  struct pl_nccl_series s[2] = {{0}};
  /* One algorithm per series, as logs run with NCCL_ALGO set: the tuner ranks
   * candidates without pipeline fill (as NCCL does) and charges them with
   * it, so under "auto" the time steps where the choice flips, and a fit
   * started far away cannot always cross such a step (docs/collectives.md,
   * "Calibration"). Protocols still switch inside each algorithm: ring on
   * one node, tree on four. */
  synth(&truth, &s[0], 0, 8, 8, PL_ALGO_RING);
  synth(&truth, &s[1], 1, 32, 8, PL_ALGO_TREE);
  struct pl_calib_obs obs[2] = {{&s[0], PL_ALGO_RING}, {&s[1], PL_ALGO_TREE}};
  struct pl_calib_fit fit;
  CHECK_STATUS(pl_calib_nccl(&base, obs, 2, 1048576.0, &fitted, &fit, &d), PL_OK, dp);
  printf("recovered: launch %.3f us (7), floor %.3f us (0), NVLink hop %.3f us (4.5), %.2f GB/s "
         "(330), network hop %.3f us (22), %.2f GB/s per node (320); rms %.2g\n",
         fit.launch_s * 1e6, fit.floor_s * 1e6, fit.intra_latency_s * 1e6,
         fit.intra_bytes_per_s / 1e9, fit.inter_latency_s * 1e6, fit.node_net_bytes_per_s / 1e9,
         fit.rms_rel_err);
  CHECK(fit.fit_intra && fit.fit_inter);
  CHECK_EQ_INT(fit.n_points, 2 * N_SIZES);
  CHECK(fit.rms_rel_err < 1e-3);
  /* Tolerances: 2% on each figure; the data pin them down exactly, the
   * finite-difference fit stops within a fraction of that. */
  CHECK_NEAR_REL(fit.intra_bytes_per_s, 330e9, 0.02);
  CHECK_NEAR_REL(fit.node_net_bytes_per_s, 320e9, 0.02);
  CHECK_NEAR_REL(fit.launch_s, 7e-6, 0.02);
  CHECK_NEAR_REL(fit.intra_latency_s, 4.5e-6, 0.02);
  CHECK_NEAR_REL(fit.inter_latency_s, 22e-6, 0.02);
  /* No floor in the truth: the data cannot pin it, only bound it below the
   * fastest row (the 1 MiB ring all_reduce, ~39 us), where it binds nothing. */
  double fastest = INFINITY;
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < s[k].n_rows; i++)
      fastest = fmin(fastest, s[k].rows[i].time_s);
  CHECK(fit.floor_s < fastest);
  CHECK(fitted.calibrated && fitted.calibrated_intra && fitted.calibrated_inter);

  /* Round trip through a file. */
  char tmp[512];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/plateau-test-calib-%ld.json", dir ? dir : "/tmp", (long)getpid());
  CHECK_STATUS(pl_cluster_save(&fitted, tmp, "test", &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load(tmp, &back, &d), PL_OK, dp);
  CHECK(back.calibrated);
  CHECK_NEAR_REL(back.intra_nccl_bytes_per_s, fitted.intra_nccl_bytes_per_s, 1e-5);
  CHECK_NEAR_REL(back.nic_bytes_per_s, fitted.nic_bytes_per_s, 1e-5);
  CHECK_NEAR_REL(back.inter_latency_s, fitted.inter_latency_s, 1e-5);
  CHECK_NEAR_REL(back.coll_launch_s + 1e-12, fitted.coll_launch_s + 1e-12, 1e-5);
  CHECK_NEAR_REL(back.node_other_w, base.node_other_w, 1e-5);
  remove(tmp);
  extrapolation(&base);
  proxy_messages();
  kept_figures();

  /* Too few rows to fit. */
  struct pl_calib_obs one = {&s[0], PL_ALGO_AUTO};
  CHECK_STATUS(pl_calib_nccl(&base, &one, 1, 4e9, &fitted, &fit, &d), PL_ERR_RANGE, dp);
  CHECK_CONTAINS(d.msg, "too few");
  /* A forced algorithm the op cannot use. */
  struct pl_calib_obs bad = {&s[0], PL_ALGO_P2P};
  CHECK_STATUS(pl_calib_nccl(&base, &bad, 1, 0, &fitted, &fit, &d), PL_ERR_UNSUPPORTED, dp);
  return check_finish();
}
