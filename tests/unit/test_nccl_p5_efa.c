/* test_nccl_p5_efa.c: the collective model of the aws-p5 preset (8 H100 + 32 x 100 Gb/s EFA per
 * node, NCCL's tuner and the aws-ofi-nccl settings of src/net/tuner.c) against the only published
 * multi-node p5 measurements past 2 nodes found (session 28, helper efa28; docs/collectives.md,
 * "Session 28 (efa28)"):
 *
 *  1. tests/data/nccl-multinode/h100_1to64node_busbw_hf-ultrascale-playbook.txt: Hugging Face's
 *     Ultra-Scale Playbook figure "Communication Bandwidth by Number of Nodes (size=256MB)",
 *     all_reduce / all_gather / reduce_scatter at 1-64 nodes of 8 H100 on EFA, the cluster of
 *     the nanotron sweep (data/validation/nanotron_benchmarks.csv). Transcribed figure data (the
 *     line and its 5th-95th percentile band per node count), read as nccl-tests busbw of a
 *     2^28-byte call over all 8 GPUs of each node (provenance and the reasons in the file's
 *     header). NCCL version, tool and placement are not stated.
 *  2. tests/data/nccl-multinode/h100_8node_64gpu_all_reduce_p5_nccl-pr1112.txt: NVIDIA/nccl PR
 *     #1112, 4 GiB all_reduce on 8 p5 nodes with NCCL 2.19.3, 2.19.3 without the 64 KiB
 *     NVLS_TREE chunk cap, and 2.19.1 (three verbatim nccl-tests lines, labelled).
 *
 * Error = modelled busbw / measured busbw - 1 (busbw is inversely proportional to time at a fixed
 * size; positive = the model is too fast). Per series it prints each row, whether the model lies
 * inside the published 5th-95th percentile band, and the mean |error|; the bound asserted per
 * series is its first-look mean rounded up to the next whole percent plus 2 points, so the test
 * fails if the model moves away from the data (first look, model unchanged: bounds[]). The rows
 * the model is known not to describe are listed with the reason and bounded all the same.
 * Nothing is fitted. Session 29 (efa29): the aws-p5 preset runs the aws-ofi-nccl tuner plugin's
 * region map (cluster field nccl_tuner); the figure is printed under both tuners, PR #1112 under
 * NCCL's own (NCCL 2.19 loads no tuner by default). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"
#include "data_lines.h"

#define HF_FILE PL_TEST_DATA "/nccl-multinode/h100_1to64node_busbw_hf-ultrascale-playbook.txt"
#define PR_FILE PL_TEST_DATA "/nccl-multinode/h100_8node_64gpu_all_reduce_p5_nccl-pr1112.txt"
#define MAX_ROWS 32

struct row {
  char op[24];
  int64_t nodes;
  double bytes, busbw_Bps, p5_Bps, p95_Bps;
};

static struct row rows[MAX_ROWS];
static size_t n_rows;

/* First-look mean |error| per op (session 28, model unchanged), rounded up + 2 points:
 * all_reduce 192.8 %, all_gather 151.0 %, reduce_scatter 153.2 % (worst rows: all_reduce at 64
 * nodes +598.3 %, 230.0 modelled against 32.9 GB/s; all_gather / reduce_scatter at 8 nodes
 * +236 / +238 %). 1 node -4.0 %, 2 nodes +7.2 % for all_reduce: the model holds to 2 nodes (as
 * on AWS's own 2-node log, tests/data/nccl/h100_2node_p5_efa_all_reduce_aws.txt) and runs away
 * from 4 nodes on. */
static const struct {
  const char *tuner, *op;
  double bound;
} bounds[] = {
    {"nccl", "all_reduce", 1.95},
    {"nccl", "all_gather", 1.54},
    {"nccl", "reduce_scatter", 1.56},
    /* session 29 (efa29): the preset now runs the aws-ofi-nccl tuner plugin's P5 region map
     * (cluster field nccl_tuner, src/net/ofi_regions.c). all_reduce 192.8 -> 199.9 % (4 and 8
     * nodes ring/LL128 +124.0 / +135.4 %, 16-64 nodes tree/LL128 +203.2 / +285.6 / +640.0 %);
     * the plugin has no all_gather / reduce_scatter map at 8 ranks per node, so those are
     * NCCL's picks as before. Bound = 199.9 rounded up + 2. The figure does not say whether
     * its runs loaded the plugin's tuner (NCCL >= 2.21 does by default), so both are kept. */
    {"aws-ofi-nccl-p5", "all_reduce", 2.02},
    {"aws-ofi-nccl-p5", "all_gather", 1.54},
    {"aws-ofi-nccl-p5", "reduce_scatter", 1.56},
};

static void load_hf(void) {
  FILE *f = data_lines_open(HF_FILE);
  if (f == NULL)
    return;
  char line[256];
  while (n_rows < MAX_ROWS && data_lines_next(f, line, (int)sizeof line)) {
    struct row *r = &rows[n_rows];
    long long nodes = 0;
    double bw = 0.0, lo = 0.0, hi = 0.0;
    int k = sscanf(line, "%23s %lld %lf %lf %lf %lf", r->op, &nodes, &r->bytes, &bw, &lo, &hi);
    CHECK_EQ_INT(k, 6);
    if (k != 6)
      continue;
    CHECK(lo <= bw && bw <= hi); /* the line lies inside its band */
    r->nodes = nodes;
    r->busbw_Bps = bw * 1e9;
    r->p5_Bps = lo * 1e9;
    r->p95_Bps = hi * 1e9;
    n_rows++;
  }
  fclose(f);
}

/* Modelled busbw of op on the aws-p5 preset, every GPU of each node in the group (as the
 * figure's "each node here has 8 GPUs"), the tuner's pick (PL_ALGO_AUTO) with the preset's
 * nccl_tuner replaced by `tuner` ("nccl": NCCL's own; "aws-ofi-nccl-p5": the plugin's map). */
static double model_busbw(const char *op_name, int64_t nodes, double bytes, const char *tuner,
                          const char **algo, const char **proto) {
  struct pl_cluster cl;
  enum pl_coll_op op;
  if (pl_cluster_load("aws-p5", &cl, NULL) != PL_OK ||
      pl_coll_op_parse(op_name, &op, NULL) != PL_OK)
    return NAN;
  snprintf(cl.nccl_tuner, sizeof cl.nccl_tuner, "%s", tuner);
  struct pl_group g = {8 * nodes, 8};
  struct pl_coll_cost cost;
  if (pl_coll_time(&cl, op, bytes, g, PL_ALGO_AUTO, &cost) != PL_OK || cost.time_s <= 0.0)
    return NAN;
  *algo = pl_coll_algo_name(cost.algo);
  *proto = pl_coll_proto_name(cost.proto);
  return pl_coll_busbw(op, g.ranks, bytes, cost.time_s);
}

static double bound_of(const char *tuner, const char *op) {
  for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
    if (strcmp(bounds[i].tuner, tuner) == 0 && strcmp(bounds[i].op, op) == 0)
      return bounds[i].bound;
  return -1.0;
}

static void hf_table(const char *tuner) {
  printf("\nnccl_tuner %s\n", tuner);
  printf("| op | nodes | measured GB/s (5th-95th) | modelled GB/s | error | in band | plateau's "
         "pick |\n|---|---:|---:|---:|---:|---|---|\n");
  const char *ops[] = {"all_reduce", "all_gather", "reduce_scatter"};
  for (size_t o = 0; o < 3; o++) {
    double sum = 0.0, worst = 0.0;
    int k = 0;
    for (size_t i = 0; i < n_rows; i++) {
      const struct row *r = &rows[i];
      if (strcmp(r->op, ops[o]) != 0)
        continue;
      const char *a = "", *p = "";
      double m = model_busbw(r->op, r->nodes, r->bytes, tuner, &a, &p);
      CHECK(isfinite(m) && m > 0.0);
      double e = m / r->busbw_Bps - 1.0;
      bool in_band = m >= r->p5_Bps && m <= r->p95_Bps;
      printf("| %s | %lld | %.1f (%.1f-%.1f) | %.1f | %+.1f%% | %s | %s/%s |\n", r->op,
             (long long)r->nodes, r->busbw_Bps / 1e9, r->p5_Bps / 1e9, r->p95_Bps / 1e9, m / 1e9,
             100 * e, in_band ? "yes" : "no", a, p);
      sum += fabs(e);
      worst = fmax(worst, fabs(e));
      k++;
    }
    CHECK_EQ_INT(k, 7);
    double mean = k ? sum / k : INFINITY, bound = bound_of(tuner, ops[o]);
    printf("| %s | mean |%.1f%% | worst %.1f%% | bound %.0f%% | | |\n", ops[o], 100 * mean,
           100 * worst, 100 * bound);
    CHECK(bound > 0.0);
    CHECK(mean <= bound);
  }
}

/* PR #1112: the three 4 GiB rows (out-of-place busbw). "before" (NCCL 2.19.3's 64 KiB NVLS_TREE
 * chunks on >= 4 nodes) is not described: the model charges a chunk size only in the pipeline
 * fill, not per message, and no source gives the per-message cost on EFA that makes 64 KiB
 * chunks 2.7x slower; it is printed and bounded as measured. "after" and "2.19.1" (128 KiB
 * chunks, NCCL's default) are modelled on the preset, whose 512 KiB plugin chunks change only
 * the fill (under 1 % of a 4 GiB call). First look: after +22.8 %, 2.19.1 +22.7 %, before
 * +229.7 %; bounds = mean rounded up + 2 points. */
static void pr1112(void) {
  FILE *f = data_lines_open(PR_FILE);
  if (f == NULL)
    return;
  char line[256];
  int k = 0;
  double sum_described = 0.0;
  printf("\n| NVIDIA/nccl #1112, 8 p5 nodes, 4 GiB | measured GB/s | modelled | error |\n"
         "|---|---:|---:|---:|\n");
  while (data_lines_next(f, line, (int)sizeof line)) {
    char label[16];
    double bytes = 0.0, t_us = 0.0, alg = 0.0, bus = 0.0;
    long long count = 0;
    int n = sscanf(line, "%15[^:]: %lf %lld %*s %*s %*s %lf %lf %lf", label, &bytes, &count, &t_us,
                   &alg, &bus);
    CHECK_EQ_INT(n, 6);
    if (n != 6)
      continue;
    const char *a = "", *p = "";
    /* NCCL 2.19 loads a tuner plugin only where NCCL_TUNER_PLUGIN names one (aws-ofi-nccl
     * src/Makefile.am, "2.19 - 2.20 Tuner only loaded if NCCL_TUNER_PLUGIN is set"), and the
     * PR's runs are NVLS_TREE: NCCL's own pick */
    double m = model_busbw("all_reduce", 8, bytes, "nccl", &a, &p);
    double e = m / (bus * 1e9) - 1.0;
    printf("| %s (%s/%s) | %.2f | %.1f | %+.1f%% |\n", label, a, p, bus, m / 1e9, 100 * e);
    if (strcmp(label, "before") == 0)
      CHECK(fabs(e) <= 2.32); /* not described; first look 229.7 % */
    else
      sum_described += fabs(e);
    k++;
  }
  fclose(f);
  CHECK_EQ_INT(k, 3);
  CHECK(sum_described / 2.0 <= 0.25); /* first look 22.8 % */
}

int main(void) {
  load_hf();
  CHECK(n_rows == 21);
  hf_table("nccl");
  hf_table("aws-ofi-nccl-p5");
  pr1112();
  return check_finish();
}
