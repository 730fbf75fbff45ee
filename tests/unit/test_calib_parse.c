/* test_calib_parse.c: the nccl-tests log reader on small hand-written logs:
 * headers, srun prefixes, NCCL_DEBUG lines, two tests in a file, and every
 * kind of bad input (empty, another tool's output, truncated, garbled
 * numbers, failed validation, NUL bytes): a clear error or the parsable
 * part with warnings, never a crash. Row values are nccl-tests' own: algbw =
 * size / time (GB/s = 1e9 B/s), busbw = algbw x factor. */
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"

/* 8 ranks on host "a": all_reduce, busbw/algbw = 2 x 7/8 = 1.75. */
static const char good[] =
    "# nccl-tests version 2.17.9 nccl-headers=22602 nccl-library=22602\n"
    "# Collective test starting: all_reduce_perf\n"
    "# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor)\n"
    "#  Rank  0 Group  0 Pid 1 on          a device  0 [0000:29:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid 1 on          a device  1 [0000:2f:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  2 Group  0 Pid 1 on          a device  2 [0000:35:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  3 Group  0 Pid 1 on          a device  3 [0000:3b:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  4 Group  0 Pid 1 on          a device  4 [0000:43:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  5 Group  0 Pid 1 on          a device  5 [0000:49:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  6 Group  0 Pid 1 on          a device  6 [0000:4f:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  7 Group  0 Pid 1 on          a device  7 [0000:55:00] NVIDIA H100 80GB HBM3\n"
    "a:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "
    "time   algbw   busbw  #wrong\n"
    "     1048576        262144     float     sum      -1    44.38   23.63   41.35       0    "
    "43.46   24.13   42.23       0\n"
    "a:1:1 [3] NCCL INFO some debug line in the middle of the table\n"
    "    67108864      16777216     float     sum      -1   366.74  182.99  320.23       0   "
    "367.32  182.70  319.72       0\n"
    "# Avg bus bandwidth    : 123.035\n";

static struct pl_nccl_log *parse(const char *text, enum pl_status want, struct pl_diag *d) {
  struct pl_nccl_log *log = NULL;
  pl_diag_clear(d);
  enum pl_status st = pl_nccl_log_parse(text, strlen(text), "t.log", &log, d);
  CHECK_STATUS(st, want, d);
  return log;
}

static void well_formed(void) {
  struct pl_diag d;
  struct pl_nccl_log *log = parse(good, PL_OK, &d);
  if (log == NULL)
    return;
  CHECK_EQ_INT(log->n_series, 1);
  CHECK_EQ_INT(log->n_warnings, 0);
  struct pl_nccl_series *s = &log->series[0];
  CHECK(s->op_known && s->op == PL_COLL_ALL_REDUCE);
  CHECK_EQ_INT(s->ranks, 8);
  CHECK_EQ_INT(s->nodes, 1);
  CHECK_STR(s->device, "NVIDIA H100 80GB HBM3");
  CHECK_STR(s->algo_hint, "Ring");
  CHECK_EQ_INT(s->n_rows, 2);
  CHECK_NEAR_REL(s->rows[0].bytes, 1048576.0, 0);
  CHECK_NEAR_REL(s->rows[0].time_s, 44.38e-6, 1e-12);
  CHECK_NEAR_REL(s->rows[0].inplace_time_s, 43.46e-6, 1e-12);
  CHECK_NEAR_REL(s->rows[1].busbw_bytes_per_s, 320.23e9, 1e-12);
  CHECK_EQ_INT(s->rows[1].line, 16);
  CHECK_EQ_INT(pl_nccl_series_resolve(s, NULL, "t.log", NULL, 0, &d), PL_OK);
  CHECK_EQ_INT(s->ranks_per_node, 8);
  pl_nccl_log_free(log);
}

/* The AWS README form: srun "0: " prefixes, no headers. */
static const char bare[] =
    "0: #       size         count      type   redop    root     time   algbw   busbw #wrong\n"
    "0:      1048576        262144     float     sum      -1    123.2    8.51   15.95      0    "
    "121.3    8.64   16.21      0\n"
    "0:  17179869184    4294967296     float     sum      -1    66132  259.78  487.09      0    "
    "66109  259.87  487.26      0\n";

static void bare_table(void) {
  struct pl_diag d, *dp = &d;
  struct pl_nccl_log *log = parse(bare, PL_OK, &d);
  if (log == NULL)
    return;
  struct pl_nccl_series *s = &log->series[0];
  CHECK(!s->op_known);
  CHECK_EQ_INT(s->n_rows, 2);
  /* op and ranks from busbw/algbw = 487.09 / 259.78 = 1.87501: all_reduce,
   * 2 / (2 - 1.875) = 16 ranks; nodes must be given. */
  CHECK_STATUS(pl_nccl_series_resolve(s, NULL, "t.log", NULL, 0, &d), PL_ERR_MISSING, dp);
  CHECK_CONTAINS(d.msg, "--nodes");
  struct pl_nccl_hints h = {.nodes = 2};
  CHECK_STATUS(pl_nccl_series_resolve(s, &h, "t.log", NULL, 0, &d), PL_OK, dp);
  CHECK_EQ_INT(s->op, PL_COLL_ALL_REDUCE);
  CHECK_EQ_INT(s->ranks, 16);
  CHECK_EQ_INT(s->ranks_per_node, 8);
  struct pl_nccl_hints wrong = {.op_set = true, .op = PL_COLL_ALL_GATHER, .ranks = 16, .nodes = 2};
  char warn[300];
  CHECK_STATUS(pl_nccl_series_resolve(s, &wrong, "t.log", warn, sizeof warn, &d), PL_ERR_RANGE, dp);
  CHECK_CONTAINS(d.msg, "--op");
  pl_nccl_log_free(log);
}

/* The ranks a log lists against its busbw/algbw ratio, within nccl-tests'
 * two printed decimals. A 1,024-rank all_reduce at 1 GiB prints algbw 14.60,
 * busbw 29.17 (1 GiB / 73,555 us = 14.598 GB/s; x 2 x 1023 / 1024 = 29.167):
 * 29.17 / 14.60 = 1.99795 reads as 973 ranks, but the rounding (+-0.005 on
 * each figure) spans 1.99692 .. 1.99897, which holds 1,024's 1.99805: no
 * warning (the 256- and 540-node Polaris logs drew one each). 8 ranks for
 * the 16-rank table above (1.875 against 1.75) is still a warning. */
static const char wide[] =
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time "
    "  algbw   busbw #wrong\n"
    "  1073741824     268435456     float     sum      -1    73555   14.60   29.17      0    73601 "
    "  14.59   29.16      0\n";

static void ratio_rounding(void) {
  struct pl_diag d, *dp = &d;
  char warn[300];
  struct pl_nccl_log *log = parse(wide, PL_OK, &d);
  if (log != NULL) {
    struct pl_nccl_hints h = {.op_set = true, .op = PL_COLL_ALL_REDUCE, .ranks = 1024, .nodes = 256};
    CHECK_STATUS(pl_nccl_series_resolve(&log->series[0], &h, "t.log", warn, sizeof warn, &d),
                 PL_OK, dp);
    CHECK_STR(warn, "");
    pl_nccl_log_free(log);
  }
  log = parse(bare, PL_OK, &d);
  if (log != NULL) {
    struct pl_nccl_hints h = {.ranks = 8, .nodes = 1};
    CHECK_STATUS(pl_nccl_series_resolve(&log->series[0], &h, "t.log", warn, sizeof warn, &d),
                 PL_OK, dp);
    CHECK_CONTAINS(warn, "implies 16 ranks");
    pl_nccl_log_free(log);
  }
}

static void bad_inputs(void) {
  struct pl_diag d;
  parse("", PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "empty");
  parse("  \n\n", PL_ERR_PARSE, &d);
  parse("Filesystem 1K-blocks Used Available Use% Mounted on\n/dev/sda1 100 50 50 50% /\n",
        PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "no nccl-tests result rows");
  CHECK_CONTAINS(d.msg, "t.log");
  struct pl_nccl_log *log = NULL;
  pl_diag_clear(&d);
  CHECK_EQ_INT(pl_nccl_log_parse("1 2\0 3", 6, "t.log", &log, &d), PL_ERR_PARSE);
  CHECK_CONTAINS(d.msg, "binary");
  /* Only broken rows: an error that quotes the first problem. */
  parse("  1048576  262144  float  sum  -1  44.38  99.99  41.35  0\n", PL_ERR_PARSE, &d);
  CHECK_CONTAINS(d.msg, "line 1");
  CHECK_CONTAINS(d.msg, "algbw");
}

static void partial_inputs(void) {
  char text[4096];
  struct pl_diag d;
  /* Truncated last line, a garbled algbw, a failed validation, a NaN. */
  snprintf(text, sizeof text, "%s%s%s%s%s", good,
           "   134217728      33554432     float     sum      -1   699.15  191.97\n",
           "   268435456      67108864     float     sum      -1  1351.22  298.66  347.66       0\n",
           "   536870912     134217728     float     sum      -1  2644.82  202.99  355.23       3\n",
           "  1073741824     268435456     float     sum      -1      nan  206.25  360.94       0\n");
  struct pl_nccl_log *log = parse(text, PL_OK, &d);
  if (log == NULL)
    return;
  CHECK_EQ_INT(log->series[0].n_rows, 2);
  CHECK_EQ_INT(log->n_warnings, 4);
  CHECK_CONTAINS(log->warnings[0], "line 18");
  CHECK_CONTAINS(log->warnings[0], "truncated");
  CHECK_CONTAINS(log->warnings[1], "algbw");
  CHECK_CONTAINS(log->warnings[2], "wrong");
  CHECK_CONTAINS(log->warnings[3], "time");
  pl_nccl_log_free(log);
}

/* Two tests in one file, a third one plateau does not model, and sizes that
 * restart without a header. */
static void several_tests(void) {
  static const char text[] =
      "# Collective test starting: alltoall_perf\n"
      "    33554432        262144    double    none      -1   8930.3    3.76    3.52      0   "
      "7902.8    4.25    3.98    N/A\n"
      "# Collective test starting: sendrecv_perf\n"
      "    33554432       4194304    double     sum      -1   7108.9    4.72    4.72      0   "
      "7623.0    4.40    4.40    N/A\n"
      "# Collective test starting: reduce_perf\n"
      "    33554432       4194304    double     sum       0   7108.9    4.72    4.72      0   "
      "7623.0    4.40    4.40    N/A\n"
      "# Collective test starting: all_gather_perf\n"
      "     1048576         32768     float    none      -1    40.10   26.15   22.88       0\n"
      "     2097152         65536     float    none      -1    40.85   51.34   44.93       0\n"
      "     1048576         32768     float    none      -1    40.10   26.15   22.88       0\n";
  struct pl_diag d, *dp = &d;
  struct pl_nccl_log *log = parse(text, PL_OK, &d);
  if (log == NULL)
    return;
  CHECK_EQ_INT(log->n_series, 4);
  CHECK_EQ_INT(log->series[0].op, PL_COLL_ALL_TO_ALL);
  CHECK_EQ_INT(log->series[1].op, PL_COLL_SEND_RECV);
  CHECK_EQ_INT(log->series[2].op, PL_COLL_ALL_GATHER);
  CHECK(!log->series[3].op_known); /* restarted sizes: op from the ratio */
  CHECK_EQ_INT(log->n_warnings, 2);
  CHECK_CONTAINS(log->warnings[0], "reduce_perf");
  CHECK_CONTAINS(log->warnings[1], "sizes start again");
  /* none + ratio < 1 fits all_gather and all_to_all alike: --op needed. */
  struct pl_nccl_hints h = {.nodes = 1};
  CHECK_STATUS(pl_nccl_series_resolve(&log->series[3], &h, "t.log", NULL, 0, &d), PL_ERR_MISSING,
               dp);
  CHECK_CONTAINS(d.msg, "--op");
  /* all_gather with ratio 22.88/26.15 = 0.875 = 7/8: 8 ranks. */
  CHECK_STATUS(pl_nccl_series_resolve(&log->series[2], &h, "t.log", NULL, 0, &d), PL_OK, dp);
  CHECK_EQ_INT(log->series[2].ranks, 8);
  pl_nccl_log_free(log);
}

static void files(void) {
  struct pl_nccl_log *log = NULL;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_nccl_log_load(PL_TEST_DATA "/nccl/h100_2node_16gpu_alltoall_sendrecv_xxrjun.txt",
                                &log, &d),
               PL_OK, dp);
  if (log != NULL) {
    CHECK_EQ_INT(log->n_series, 2);
    CHECK_EQ_INT(log->series[0].ranks, 16);
    CHECK_EQ_INT(log->series[0].nodes, 2); /* cnode4-005, cnode4-007 */
    CHECK_EQ_INT(log->series[1].n_rows, 10);
  }
  pl_nccl_log_free(log);
  CHECK_STATUS(pl_nccl_log_load(PL_TEST_DATA "/nccl/missing.txt", &log, &d), PL_ERR_IO, dp);
  CHECK_CONTAINS(d.msg, "missing.txt");
}

/* Deterministic mutations of a good log (byte flips, truncations, line
 * duplication): every result is a clean OK or a parse error, never a crash
 * (run under PL_SANITIZE in CI). Seeded LCG, so the run is reproducible. */
static void mutations(void) {
  unsigned long long x = 12345;
  char buf[sizeof good + sizeof good];
  int ok = 0, errors = 0;
  for (int it = 0; it < 3000; it++) {
    size_t n = sizeof good - 1;
    memcpy(buf, good, n);
    for (int k = 0; k < 1 + it % 7; k++) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      size_t at = (size_t)(x >> 33) % n;
      unsigned char b = (unsigned char)(x >> 17);
      if (b == 0)
        b = ' ';
      buf[at] = (char)(it % 3 == 0 ? "0123456789.- \n#eE"[b % 17] : b);
    }
    if (it % 5 == 0)
      n = (size_t)(x >> 40) % n + 1; /* truncate anywhere */
    struct pl_nccl_log *log = NULL;
    enum pl_status st = pl_nccl_log_parse(buf, n, "m.log", &log, NULL);
    CHECK(st == PL_OK || st == PL_ERR_PARSE);
    if (st == PL_OK) {
      ok++;
      CHECK(log != NULL && log->n_series >= 1);
      for (size_t i = 0; log != NULL && i < log->n_series; i++)
        pl_nccl_series_resolve(&log->series[i], NULL, "m.log", NULL, 0, NULL);
    } else {
      errors++;
    }
    pl_nccl_log_free(log);
  }
  CHECK(ok > 0 && errors > 0); /* both outcomes were exercised */
}

int main(void) {
  mutations();
  well_formed();
  bare_table();
  ratio_rounding();
  bad_inputs();
  partial_inputs();
  several_tests();
  files();
  return check_finish();
}
