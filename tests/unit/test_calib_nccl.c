/* test_calib_nccl.c: the collective model against the real nccl-tests logs in
 * tests/data/nccl (sources in its README), and calibration on them.
 *
 * Prints, per log: the worst busbw error of the built-in preset of that
 * system at sizes >= 64 MiB; the worst error after `calibrate nccl` on that
 * log at sizes >= 1 MiB; and, for the single-node H100 logs, the worst error
 * of a fit on one log predicting the others at >= 1 MiB. The targets are 15%,
 * 10% and 15%. Where the model misses a target the miss is recorded in
 * docs/collectives.md ("Validation") with its cause, and the bound asserted
 * here is that documented figure (so the test still catches a regression);
 * no constant was tuned to any of these logs. busbw error = measured time /
 * modelled time - 1 (busbw is inversely proportional to time). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"

#define NCCL PL_TEST_DATA "/nccl/"
#define MIB 1048576.0

struct case_ {
  const char *file, *preset, *algo;
  int series;            /* which test in the file */
  double preset_bound;   /* asserted: worst busbw error >= 64 MiB with the preset */
  double calib_bound;    /* asserted: worst error >= 1 MiB after calibrating on the log */
};

/* Bounds: 0.15 / 0.10 where the target is met; otherwise the documented miss
 * rounded up to the next 5% (docs/collectives.md, "Validation"). */
static const struct case_ cases[] = {
    {"h100_1node_8gpu_all_reduce_ring_together.txt", "dgx-h100", "ring", 0, 0.15, 0.10},
    {"h100_1node_8gpu_all_gather_ring_together.txt", "dgx-h100", "ring", 0, 0.15, 0.10},
    {"h100_1node_8gpu_reduce_scatter_ring_together.txt", "dgx-h100", "ring", 0, 0.15, 0.10},
    {"h100_1node_8gpu_all_reduce_nvls_together.txt", "dgx-h100", "nvls", 0, 0.15, 0.10},
    {"h100_2node_p5_efa_all_reduce_aws.txt", "aws-p5", "auto", 0, 0.35, 0.25},
    {"a100_2node_p4de_efa_all_reduce_aws.txt", "aws-p4de", "auto", 0, 0.15, 0.10},
    {"h100_2node_gcp_a3mega_all_reduce.txt", "gcp-a3mega", "auto", 0, 0.15, 0.10},
    /* known exclusion: an NCCL_DEBUG=INFO run (docs/collectives.md) */
    {"h100_2node_16gpu_alltoall_sendrecv_xxrjun.txt", "dgx-h100", "auto", 0, 10.0, 0.15},
    {"h100_2node_16gpu_alltoall_sendrecv_xxrjun.txt", "dgx-h100", "auto", 1, 5.5, 0.15},
    {"a100_1node_8gpu_all_reduce_UNATTRIBUTED.txt", "dgx-a100", "auto", 0, 0.15, 0.15},
};
/* Cross prediction between the four single-node H100 logs (rows: fitted on,
 * columns: predicted; order all_reduce ring, all_gather ring, reduce_scatter
 * ring, all_reduce NVLS): target 0.15; misses documented in
 * docs/collectives.md, rounded up to the next 5%. */
static const double cross_bound[4][4] = {
    {0, 0.15, 0.15, 0.15}, {0.15, 0, 0.15, 0.15}, {0.15, 0.15, 0, 0.15}, {0.20, 0.15, 0.15, 0}};
#define N_CASES (sizeof cases / sizeof cases[0])

/* Logs without rank lines (the AWS README tables) are 2 nodes, 16 ranks. */
static struct pl_nccl_series *load(const struct case_ *c, struct pl_nccl_log **log) {
  char path[512];
  snprintf(path, sizeof path, NCCL "%s", c->file);
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_nccl_log_load(path, log, &d), PL_OK, dp);
  if (*log == NULL || (size_t)c->series >= (*log)->n_series)
    return NULL;
  struct pl_nccl_series *s = &(*log)->series[c->series];
  struct pl_nccl_hints h = {.nodes = strstr(c->file, "2node") ? 2 : 1};
  CHECK_STATUS(pl_nccl_series_resolve(s, &h, c->file, NULL, 0, &d), PL_OK, dp);
  return s;
}

/* Worst |measured/model - 1| over rows >= min_bytes. */
static double worst(const struct pl_cluster *cl, const struct pl_nccl_series *s,
                    enum pl_coll_algo algo, double min_bytes) {
  double w = 0.0;
  struct pl_group g = {s->ranks, s->ranks_per_node};
  for (size_t i = 0; i < s->n_rows; i++) {
    if (s->rows[i].bytes < min_bytes)
      continue;
    struct pl_coll_cost c;
    if (pl_coll_time(cl, s->op, s->rows[i].bytes, g, algo, &c) != PL_OK)
      return INFINITY;
    w = fmax(w, fabs(s->rows[i].time_s / c.time_s - 1.0));
  }
  return w;
}

static void fit_one(const struct pl_cluster *base, const struct pl_nccl_series *s,
                    enum pl_coll_algo algo, struct pl_cluster *out) {
  struct pl_calib_obs o = {s, algo};
  struct pl_calib_fit fit;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_calib_nccl(base, &o, 1, MIB, out, &fit, &d), PL_OK, dp);
}

/* One verdict: the target, the error, PASS/MISS against the target, and the
 * asserted regression bound (the target where met, the documented miss
 * otherwise). */
static void verdict(const char *what, double target, double err, double bound) {
  printf("    %-22s target %4.0f%%  error %6.1f%%  %-4s (regression bound %.0f%%)\n", what,
         100 * target, 100 * err, err <= target ? "PASS" : "MISS", 100 * bound);
  CHECK(err <= bound);
}

static void per_log(void) {
  printf("per log: worst busbw error, preset >= 64 MiB and calibrated on the log >= 1 MiB\n");
  for (size_t k = 0; k < N_CASES; k++) {
    const struct case_ *c = &cases[k];
    struct pl_nccl_log *log = NULL;
    struct pl_nccl_series *s = load(c, &log);
    struct pl_cluster preset, fitted;
    enum pl_coll_algo algo;
    CHECK_EQ_INT(pl_coll_algo_parse(c->algo, &algo, NULL), PL_OK);
    if (s == NULL || pl_cluster_load(c->preset, &preset, NULL) != PL_OK) {
      CHECK(!"log or preset did not load");
      pl_nccl_log_free(log);
      continue;
    }
    double e_preset = worst(&preset, s, algo, 64 * MIB);
    fit_one(&preset, s, algo, &fitted);
    double e_calib = worst(&fitted, s, algo, MIB);
    printf("  %s (%s, preset %s, algo %s)\n", c->file, pl_coll_op_name(s->op), c->preset, c->algo);
    verdict("preset, >= 64 MiB", 0.15, e_preset, c->preset_bound);
    verdict("calibrated, >= 1 MiB", 0.10, e_calib, c->calib_bound);
    pl_nccl_log_free(log);
  }
}

/* A fit on one single-node H100 log predicting the other three. */
static void cross_h100(void) {
  printf("\nfit on one H100 single-node log, worst busbw error >= 1 MiB on the others:\n");
  for (size_t a = 0; a < 4; a++) {
    struct pl_nccl_log *la = NULL;
    struct pl_nccl_series *sa = load(&cases[a], &la);
    struct pl_cluster base, fitted;
    enum pl_coll_algo algo_a;
    pl_coll_algo_parse(cases[a].algo, &algo_a, NULL);
    if (sa == NULL || pl_cluster_load("dgx-h100", &base, NULL) != PL_OK) {
      CHECK(!"log did not load");
      pl_nccl_log_free(la);
      continue;
    }
    fit_one(&base, sa, algo_a, &fitted);
    for (size_t b = 0; b < 4; b++) {
      if (b == a)
        continue;
      struct pl_nccl_log *lb = NULL;
      struct pl_nccl_series *sb = load(&cases[b], &lb);
      enum pl_coll_algo algo_b;
      pl_coll_algo_parse(cases[b].algo, &algo_b, NULL);
      double e = sb ? worst(&fitted, sb, algo_b, MIB) : INFINITY;
      printf("  %s -> %s\n", cases[a].file, cases[b].file);
      verdict("cross, >= 1 MiB", 0.15, e, cross_bound[a][b]);
      pl_nccl_log_free(lb);
    }
    pl_nccl_log_free(la);
  }
}

int main(void) {
  per_log();
  cross_h100();
  return check_finish();
}
