/* test_calib_trace.c: collective calls from traces grouped into series for
 * the fit (src/calib/trace_series.c, docs/trace.md 10): where a group sits,
 * which calls are left out and why, and a row's time (min or median). The
 * calls are written here by hand; the fit itself is net's (test via
 * tests/cli/calibrate_trace.sh on predicted traces). */
#include <stdio.h>
#include <string.h>

#include <plateau/calib_trace.h>
#include <plateau/plateau.h>

#include "check.h"

static struct pl_trace_call call(const char *op, int64_t n, int64_t start, int64_t stride,
                                 double bytes, double time_s) {
  struct pl_trace_call c;
  memset(&c, 0, sizeof c);
  snprintf(c.op, sizeof c.op, "%s", op);
  c.group_size = n;
  c.group_start = start;
  c.group_stride = stride;
  c.bytes = bytes;
  c.time_s = time_s;
  return c;
}

static struct pl_trace_call calls[] = {
    /* dp over tp = 8: ranks 0, 8, 16, 24 on 4 nodes of 8 -> 4 nodes, 1 per node */
    {"all_gather", 4, 0, 8, 1e6, 3e-3, 0},
    /* 16 ranks in order: 2 nodes of 8; one size three times: min 1 ms, median 2 ms */
    {"all_reduce", 16, 0, 1, 4e6, 3e-3, 0},
    {"all_reduce", 16, 0, 1, 4e6, 1e-3, 0},
    {"all_reduce", 16, 0, 1, 4e6, 2e-3, 0},
    /* a second size of the same series, two calls: median (4 + 6) / 2 = 5 ms */
    {"all_reduce", 16, 0, 1, 8e6, 6e-3, 0},
    {"all_reduce", 16, 0, 1, 8e6, 4e-3, 0},
    /* ranks 6..9: nodes 0 and 1, 2 each */
    {"reduce_scatter", 4, 6, 1, 2e6, 1e-3, 0},
    /* ranks 7, 8, 9: 1 on node 0, 2 on node 1: uneven, left out */
    {"reduce_scatter", 3, 7, 1, 2e6, 1e-3, 0},
    /* no placement: left out unless --ranks-per-node */
    {"all_to_all", 8, 0, 0, 1e6, 1e-3, 0},
    /* no size; an op without a cost model; a 1-rank group */
    {"all_reduce", 16, 0, 1, 0, 1e-3, 0},
    {"reduce", 16, 0, 1, 1e6, 1e-3, 0},
    {"all_reduce", 1, 0, 1, 1e6, 1e-3, 0},
};

static const struct pl_nccl_series *find(const struct pl_calib_trace *t, enum pl_coll_op op) {
  for (size_t i = 0; i < t->n_series; i++)
    if (t->series[i].op == op)
      return &t->series[i];
  return NULL;
}

static void run(int64_t rpn_hint, enum pl_calib_trace_stat stat, struct pl_calib_trace **t) {
  struct pl_trace_rank r;
  memset(&r, 0, sizeof r);
  snprintf(r.device, sizeof r.device, "NVIDIA H100");
  r.calls = calls;
  r.n_calls = sizeof calls / sizeof calls[0];
  struct pl_trace_set set;
  memset(&set, 0, sizeof set);
  set.ranks = &r;
  set.n_ranks = 1;
  struct pl_calib_trace_opts o = {.gpus_per_node = 8, .ranks_per_node = rpn_hint, .stat = stat};
  struct pl_diag d;
  pl_diag_clear(&d);
  struct pl_diag *dp = &d;
  CHECK_STATUS(pl_calib_trace_series(&set, &o, t, &d), PL_OK, dp);
}

static void test_grouping(void) {
  struct pl_calib_trace *t = NULL;
  run(0, PL_CALIB_TRACE_MIN, &t);
  if (t == NULL)
    return;
  CHECK_EQ_INT(t->calls, 12);
  CHECK_EQ_INT(t->used, 7);
  CHECK_EQ_INT(t->unsized, 1);
  CHECK_EQ_INT(t->unplaced, 2);    /* the uneven group and the unplaced all_to_all */
  CHECK_EQ_INT(t->unsupported, 2); /* reduce, and the 1-rank group */
  CHECK_EQ_INT(t->n_series, 3);
  const struct pl_nccl_series *ag = find(t, PL_COLL_ALL_GATHER);
  const struct pl_nccl_series *ar = find(t, PL_COLL_ALL_REDUCE);
  const struct pl_nccl_series *rs = find(t, PL_COLL_REDUCE_SCATTER);
  CHECK(ag != NULL && ar != NULL && rs != NULL);
  if (ag != NULL && ar != NULL && rs != NULL) {
    CHECK(ag->ranks == 4 && ag->nodes == 4 && ag->ranks_per_node == 1);
    CHECK(ar->ranks == 16 && ar->nodes == 2 && ar->ranks_per_node == 8);
    CHECK(rs->ranks == 4 && rs->nodes == 2 && rs->ranks_per_node == 2);
    CHECK_EQ_INT(ar->n_rows, 2);
    if (ar->n_rows == 2) {
      CHECK_NEAR_REL(ar->rows[0].bytes, 4e6, 0);
      CHECK_NEAR_REL(ar->rows[0].time_s, 1e-3, 0); /* min of 3, 1, 2 ms */
      CHECK_NEAR_REL(ar->rows[1].time_s, 4e-3, 0); /* min of 6, 4 ms */
      /* busbw = 4e6 B / 1 ms x 2(16-1)/16 = 7.5e9 B/s */
      CHECK_NEAR_REL(ar->rows[0].busbw_bytes_per_s, 7.5e9, 1e-12);
    }
    CHECK_STR(ar->device, "NVIDIA H100");
  }
  pl_calib_trace_free(t);
}

static void test_median_and_hint(void) {
  struct pl_calib_trace *t = NULL;
  run(4, PL_CALIB_TRACE_MEDIAN, &t);
  if (t == NULL)
    return;
  CHECK_EQ_INT(t->unplaced, 1); /* the all_to_all is placed by the hint: 8 ranks, 4 per node */
  const struct pl_nccl_series *ar = find(t, PL_COLL_ALL_REDUCE);
  const struct pl_nccl_series *aa = find(t, PL_COLL_ALL_TO_ALL);
  CHECK(aa != NULL && aa->nodes == 2 && aa->ranks_per_node == 4);
  if (ar != NULL && ar->n_rows == 2) {
    CHECK_NEAR_REL(ar->rows[0].time_s, 2e-3, 0); /* median of 1, 2, 3 ms */
    CHECK_NEAR_REL(ar->rows[1].time_s, 5e-3, 1e-15); /* (4 + 6) / 2 ms */
  }
  pl_calib_trace_free(t);
}

static void test_nothing_usable(void) {
  struct pl_trace_call c = call("all_reduce", 8, 0, 0, 0, 1e-3);
  struct pl_trace_rank r;
  memset(&r, 0, sizeof r);
  r.calls = &c;
  r.n_calls = 1;
  struct pl_trace_set set;
  memset(&set, 0, sizeof set);
  set.ranks = &r;
  set.n_ranks = 1;
  struct pl_calib_trace_opts o = {.gpus_per_node = 8, .stat = PL_CALIB_TRACE_MIN};
  struct pl_calib_trace *t = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  struct pl_diag *dp = &d;
  CHECK_STATUS(pl_calib_trace_series(&set, &o, &t, &d), PL_ERR_MISSING, dp);
  CHECK(t == NULL && strstr(d.msg, "1 calls: 1 without size") != NULL);
  o.gpus_per_node = 0;
  CHECK_STATUS(pl_calib_trace_series(&set, &o, &t, &d), PL_ERR_RANGE, dp);
}

/* Calls beside compute (overlap_s > 0), docs/trace.md 10.2. On 8 GPUs per
 * node: an all_reduce inside one node at 4 MB, alone 1.0 ms and beside
 * compute 3.0 ms of which 2.0 ms overlapped; one across 2 nodes at 8 MB,
 * beside compute 5.0 ms of which 4.0 ms overlapped.
 *   exclude: per series. The node's series has a call that ran alone: its
 *     overlapped call is left out (4 MB at 1.0 ms). The 2-node series has
 *     none: it falls back (series_fallback) rather than vanish, corrected
 *     where the GPU's slowdown applies, which across nodes is nowhere
 *     (5.0 ms). With min_bytes 5e6 the node's alone call is below the fitted
 *     sizes, so that series falls back too and its 3.0 ms call is corrected.
 *   correct (s = 0.5): inside the node 3.0 - 2.0 x 0.5 / 1.5 = 2.3333 ms (the
 *     simulator ran the 2.0 ms of overlap at 1/1.5: 1.3333 ms of alone-time,
 *     plus 1.0 ms alone); across nodes not corrected (5.0 ms: the simulator
 *     does not slow a call across nodes). Min per size: 1.0 ms and 5.0 ms.
 *   include: times as measured. */
static void test_overlap(void) {
  struct pl_trace_call cs[] = {
      {"all_reduce", 8, 0, 1, 4e6, 1e-3, 0},
      {"all_reduce", 8, 0, 1, 4e6, 3e-3, 2e-3},
      {"all_reduce", 16, 0, 1, 8e6, 5e-3, 4e-3},
  };
  struct pl_trace_rank r;
  memset(&r, 0, sizeof r);
  r.calls = cs;
  r.n_calls = 3;
  struct pl_trace_set set;
  memset(&set, 0, sizeof set);
  set.ranks = &r;
  set.n_ranks = 1;
  struct pl_calib_trace_opts o = {.gpus_per_node = 8, .stat = PL_CALIB_TRACE_MEDIAN,
                                  .comm_overlap_slowdown = 0.5};
  struct pl_diag d;
  pl_diag_clear(&d);
  struct pl_diag *dp = &d;
  struct pl_calib_trace *t = NULL;
  /* exclude (the default, 0) */
  CHECK_STATUS(pl_calib_trace_series(&set, &o, &t, &d), PL_OK, dp);
  if (t != NULL) {
    CHECK(t->used == 2 && t->overlapped == 2 && t->excluded == 1 && t->corrected == 0);
    CHECK_EQ_INT(t->n_series, 2);
    for (size_t i = 0; i < t->n_series; i++) {
      const struct pl_nccl_series *x = &t->series[i];
      CHECK(x->n_rows == 1 && t->series_fallback[i] == (x->nodes == 2));
      if (x->n_rows == 1)
        CHECK_NEAR_REL(x->rows[0].time_s, x->nodes == 1 ? 1e-3 : 5e-3, 0);
    }
    CHECK_EQ_INT(pl_calib_trace_rows(t, 1), 2);
    CHECK_EQ_INT(pl_calib_trace_rows(t, 5e6), 1);
  }
  pl_calib_trace_free(t);
  o.min_bytes = 5e6;
  CHECK_STATUS(pl_calib_trace_series(&set, &o, &t, &d), PL_OK, dp);
  if (t != NULL) {
    CHECK(t->used == 3 && t->excluded == 0 && t->corrected == 1);
    CHECK(t->n_series == 2 && t->series_fallback[0] && t->series_fallback[1]);
  }
  pl_calib_trace_free(t);
  o.min_bytes = 0;
  /* correct: median of the in-node size = (1.0 + 2.3333) / 2 ms */
  o.overlap = PL_CALIB_TRACE_CORRECT;
  CHECK_STATUS(pl_calib_trace_series(&set, &o, &t, &d), PL_OK, dp);
  if (t != NULL) {
    CHECK(t->used == 3 && t->overlapped == 2 && t->excluded == 0 && t->corrected == 1);
    const struct pl_nccl_series *in = NULL, *across = NULL;
    for (size_t i = 0; i < t->n_series; i++) {
      if (t->series[i].nodes == 1)
        in = &t->series[i];
      else
        across = &t->series[i];
    }
    CHECK(in != NULL && across != NULL);
    if (in != NULL && in->n_rows == 1)
      CHECK_NEAR_REL(in->rows[0].time_s, 0.5 * (1e-3 + (3e-3 - 2e-3 / 3)), 1e-12);
    if (across != NULL && across->n_rows == 1)
      CHECK_NEAR_REL(across->rows[0].time_s, 5e-3, 0);
  }
  pl_calib_trace_free(t);
  /* include: median (1.0 + 3.0) / 2 = 2.0 ms */
  o.overlap = PL_CALIB_TRACE_INCLUDE;
  CHECK_STATUS(pl_calib_trace_series(&set, &o, &t, &d), PL_OK, dp);
  if (t != NULL) {
    CHECK(t->used == 3 && t->overlapped == 2 && t->excluded == 0 && t->corrected == 0);
    for (size_t i = 0; i < t->n_series; i++)
      if (t->series[i].nodes == 1 && t->series[i].n_rows == 1)
        CHECK_NEAR_REL(t->series[i].rows[0].time_s, 2e-3, 1e-15);
  }
  pl_calib_trace_free(t);
  /* every call beside compute, exclude, no slowdown known: both series fall
   * back to the calls as measured */
  r.calls = cs + 1;
  r.n_calls = 2;
  o.overlap = PL_CALIB_TRACE_EXCLUDE;
  o.comm_overlap_slowdown = 0;
  CHECK_STATUS(pl_calib_trace_series(&set, &o, &t, &d), PL_OK, dp);
  CHECK(t != NULL && t->n_series == 2 && t->excluded == 0 && t->corrected == 0);
  CHECK_EQ_INT(pl_calib_trace_rows(t, 1), 2);
  for (size_t i = 0; t != NULL && i < t->n_series; i++)
    if (t->series[i].nodes == 1 && t->series[i].n_rows == 1)
      CHECK_NEAR_REL(t->series[i].rows[0].time_s, 3e-3, 0);
  pl_calib_trace_free(t);
}

int main(void) {
  test_grouping();
  test_overlap();
  test_median_and_hint();
  test_nothing_usable();
  return check_finish();
}
