/* test_trace_tracelens.c: agreement with TraceLens (AMD-AGI/TraceLens, MIT)
 * on the traces it ships with expected output (tests/data/traces/SOURCES.md).
 *
 * TraceLens's gpu_timeline (GPUEventAnalyser) uses the definitions of
 * docs/trace.md 3 over one window from the first GPU event to the last, but
 * only over GPU events its call tree links to a CPU launch through an ac2g
 * flow, and (with --detect_recompute) split by whether the launch ran inside
 * torch.utils.checkpoint's recompute_fn. The expected numbers below are the
 * CSVs' "time ms" column; tolerance 1% as the issue asks (the agreement is in
 * fact ~1e-9: TraceLens adds float microseconds, we add integer ns). */
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"
#include "trace/trace_int.h"

#define TR PL_TEST_DATA "/traces/"

/* A pointer CHECK_STATUS can test for NULL without -Waddress. */
static struct pl_diag *diag_ptr(struct pl_diag *d) { return d; }

/* pl_trace_analyze on one path, one thread, default warm-up; NULL after a
 * failed CHECK_STATUS. */
static struct pl_trace_set *analyze(const char *path, bool whole_trace) {
  struct pl_trace_opts o = {-1, 1, whole_trace};
  const char *paths[] = {path};
  struct pl_trace_set *s = NULL;
  struct pl_diag diag;
  pl_diag_clear(&diag);
  CHECK_STATUS(pl_trace_analyze(paths, 1, &o, &s, &diag), PL_OK, diag_ptr(&diag));
  return s;
}
#define TOL 0.01

static void timeline(const struct trace_data *d, unsigned mask, unsigned want,
                     struct trace_breakdown *b) {
  struct trace_iv w = {0, 0};
  struct pl_diag diag;
  pl_diag_clear(&diag);
  CHECK(trace_whole_window(d, mask, want, &w));
  CHECK_STATUS(trace_breakdown(d, &w, 1, mask, want, b, &diag), PL_OK, diag_ptr(&diag));
}

static bool load(const char *path, struct trace_data *d) {
  struct pl_diag diag;
  pl_diag_clear(&diag);
  memset(d, 0, sizeof *d);
  enum pl_status s = trace_read(path, d, &diag);
  CHECK_STATUS(s, PL_OK, diag_ptr(&diag));
  if (s == PL_OK)
    s = trace_link(d, &diag);
  return s == PL_OK;
}

/* tracelens_mi300_gpu_timeline.csv, is_recompute False and True. */
static void test_mi300(void) {
  struct trace_data d;
  if (!load(TR "tracelens_mi300_resnet_act_checkpoint.json.gz", &d))
    return;
  unsigned mask = TRACE_F_FLOW | TRACE_F_RECOMPUTE;
  struct trace_breakdown f, t;
  timeline(&d, mask, TRACE_F_FLOW, &f);
  CHECK_NEAR_REL(f.compute_ns * 1e-6, 15.11189404296875, TOL);
  CHECK_NEAR_REL(f.exposed_comm_ns * 1e-6, 38.3431845703125, TOL);
  CHECK_NEAR_REL(f.exposed_memory_ns * 1e-6, 1.5836318359375, TOL);
  CHECK_NEAR_REL(f.idle_ns * 1e-6, 1.478892578125, TOL);
  CHECK_NEAR_REL(f.span_ns * 1e-6, 56.51760302734375, TOL);
  CHECK_NEAR_REL(f.comm_ns * 1e-6, 47.20031005859375, TOL);
  CHECK_NEAR_REL(f.memory_ns * 1e-6, 1.63343310546875, TOL);
  timeline(&d, mask, TRACE_F_FLOW | TRACE_F_RECOMPUTE, &t);
  CHECK_NEAR_REL(t.compute_ns * 1e-6, 4.12223779296875, TOL);
  CHECK_EQ_INT(t.exposed_comm_ns, 0);
  CHECK_NEAR_REL(t.idle_ns * 1e-6, 37.65201123046875, TOL);
  CHECK_NEAR_REL(t.span_ns * 1e-6, 41.7742490234375, TOL);
  /* tracelens_mi300_coll_analysis.csv: linked all_reduce calls 2 x 3, dur_sum
   * 26798.24 + 20338.798 us; broadcast 43.675 + 19.597 us */
  int64_t ar_n = 0, ar_ns = 0, bc_n = 0, bc_ns = 0;
  const struct trace_gpu *g = d.gpu.data;
  const struct trace_coll *c = d.colls.data;
  const struct trace_comm *m = d.comm.data;
  for (size_t i = 0; i < d.comm.len; i++) {
    const struct trace_gpu *k = &g[m[i].gpu];
    if (k->kind != TRACE_COMM || !(k->flags & TRACE_F_FLOW) || m[i].coll < 0)
      continue;
    if (c[m[i].coll].op == TRACE_OP_ALL_REDUCE)
      ar_n++, ar_ns += k->dur_ns;
    if (c[m[i].coll].op == TRACE_OP_BROADCAST)
      bc_n++, bc_ns += k->dur_ns;
  }
  CHECK_EQ_INT(ar_n, 6);
  CHECK_EQ_INT(ar_ns, INT64_C(47137038));
  CHECK_EQ_INT(bc_n, 6);
  CHECK_EQ_INT(bc_ns, 63272);
  trace_data_free(&d);
}

/* tracelens_h100_gpu_timeline.csv: every GPU event is linked, no recompute,
 * one ProfilerStep: the public API gives TraceLens's numbers directly. */
static void test_h100(void) {
  struct pl_trace_set *s = analyze(TR "tracelens_h100_bert_small.json.gz", true);
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  CHECK_NEAR_REL(r->compute_s * 1e3, 0.30719775390625, TOL);
  CHECK_NEAR_REL(r->exposed_comm_s, 0, 0);
  CHECK_NEAR_REL(r->exposed_memory_s * 1e3, 0.002239990234375, TOL);
  CHECK_NEAR_REL(r->idle_s * 1e3, 3.59838720703125, TOL);
  CHECK_NEAR_REL(r->span_s * 1e3, 3.907824951171875, TOL);
  pl_trace_set_free(s);
}

/* tracelens_mi300_coll_analysis.csv (TraceLens's build_df_summary_long, the
 * expected output it ships): one row per (collective, group, dtype, nelems),
 * dur in us. Bytes = nelems x dtype size: 8816192 x 2 (BFloat16) = 17632384,
 * 2873320 x 2 = 5746640, 9600 x 2 = 19200, 20 x 8 (Long) = 160. plateau's
 * per-size rows over the whole trace (docs/trace.md 3.4.1) hold the same
 * kernels; its fifth row, 5 ncclDevKernel_Generic kernels with no args and no
 * record_param_comms (op and size unknown), is one TraceLens's groupby drops. */
static void test_mi300_sizes(void) {
  static const struct {
    const char *op;
    double bytes, sum_us, mean_us, std_us, min_us, max_us;
  } want[] = {
      {"all_reduce", 17632384, 26798.24, 8932.746666666668, 276.099019776118, 8656.708, 9208.906},
      {"all_reduce", 5746640, 20338.798, 6779.599333333333, 119.66539283073179, 6678.4, 6911.678},
      {"broadcast", 19200, 43.675, 14.558333333333332, 0.21128495765986952, 14.319, 14.719},
      {"broadcast", 160, 19.597, 6.532333333333334, 0.8102674455593867, 5.879, 7.439},
  };
  struct pl_trace_set *s = analyze(TR "tracelens_mi300_resnet_act_checkpoint.json.gz", true);
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  CHECK_EQ_INT(r->n_coll_sizes, 5);
  for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
    const struct pl_trace_coll_size *c = NULL;
    for (int i = 0; i < r->n_coll_sizes; i++)
      if (strcmp(r->coll_sizes[i].op, want[k].op) == 0 && r->coll_sizes[i].bytes == want[k].bytes)
        c = &r->coll_sizes[i];
    CHECK(c != NULL);
    if (c == NULL)
      continue;
    CHECK_EQ_INT(c->calls, 3);
    CHECK_EQ_INT(c->group_size, 8);
    CHECK_NEAR_REL(c->sum_s * 1e6, want[k].sum_us, 1e-9);
    CHECK_NEAR_REL(c->mean_s * 1e6, want[k].mean_us, 1e-9);
    CHECK_NEAR_REL(c->std_s * 1e6, want[k].std_us, 1e-6);
    CHECK_NEAR_REL(c->min_s * 1e6, want[k].min_us, 1e-9);
    CHECK_NEAR_REL(c->max_s * 1e6, want[k].max_us, 1e-9);
  }
  /* longest total first, as TraceLens sorts (dur_sum descending) */
  for (int i = 1; i < r->n_coll_sizes; i++)
    CHECK(r->coll_sizes[i - 1].sum_s >= r->coll_sizes[i].sum_s);
  CHECK(strcmp(r->coll_sizes[1].op, "unknown") == 0 && r->coll_sizes[1].bytes == 0 &&
        r->coll_sizes[1].calls == 5);
  pl_trace_set_free(s);
}

/* TraceLens's NcclAnalyser.build_df_nccl_implicit_sync_cat on dlrm's 8 ranks
 * (docs/trace.md 4.2). Expected numbers from scripts/tracelens_coll_ref.py
 * sync tests/data/traces/dlrm/worker*.gz, which reads the kernels' ts/dur from the
 * JSON without plateau and pairs the ranks' NCCL kernels by their order
 * (TraceLens's simplified mode: one stream, no process-group name), ns:
 *   op          collectives  sum of shortest dur  start skew sum (max)  end skew sum
 *   all_reduce  3            175000               1692000 (885000)      17000
 *   send_recv   5            42000                9552000 (7624000)     10000
 * plateau files the SendRecv kernels under the nccl:all_to_all annotation
 * (docs/trace.md 3.4) and pairs per (op, ordinal): the same pairs here (the
 * script checks every pair's kernels have one op). One step, so per step =
 * the sums; skews are means: 1692000 / 3 = 564000 ns, 9552000 / 5 = 1910400 ns.
 * Bandwidth: all_reduce sizes from nccl:all_reduce's Input Dims (float) are
 * 394241, 112 and 226960 elements (rank 0, the first member with a size): 621313 x 4 B =
 * 2485252 B for the three collectives, so algbw
 * = 2485252 / 175000e-9 = 14.20144 GB/s and busbw x 2 x 7 / 8 = 24.85252. */
static void test_dlrm_sync(void) {
  struct pl_trace_set *s = analyze(TR "dlrm", false);
  if (s == NULL)
    return;
  const struct pl_trace_coll *ar = NULL, *aa = NULL;
  for (int i = 0; i < s->n_coll; i++) {
    if (strcmp(s->coll[i].op, "all_reduce") == 0)
      ar = &s->coll[i];
    if (strcmp(s->coll[i].op, "all_to_all") == 0)
      aa = &s->coll[i];
  }
  CHECK(ar != NULL && aa != NULL);
  if (ar != NULL && aa != NULL) {
    CHECK_EQ_INT(ar->sync_matched, 3);
    CHECK_NEAR_REL(ar->sync_count, 3, 0);
    CHECK_NEAR_REL(ar->sync_time_s, 175000e-9, 1e-12);
    CHECK_NEAR_REL(ar->start_skew_s, 564000e-9, 1e-12);
    CHECK_NEAR_REL(ar->start_skew_max_s, 885000e-9, 1e-12);
    CHECK_NEAR_REL(ar->end_skew_s, 17000e-9 / 3, 1e-12);
    CHECK_NEAR_REL(ar->sync_algbw_bytes_per_s, 14.20144e9, 1e-9);
    CHECK_NEAR_REL(ar->sync_busbw_bytes_per_s, 24.85252e9, 1e-9);
    /* the per-rank lower bound stays: mean kernel time includes the waits */
    CHECK(ar->busbw_bytes_per_s < ar->sync_busbw_bytes_per_s);
    CHECK_EQ_INT(aa->sync_matched, 5);
    CHECK_NEAR_REL(aa->sync_time_s, 42000e-9, 1e-12);
    CHECK_NEAR_REL(aa->start_skew_s, 1910400e-9, 1e-12);
    CHECK_NEAR_REL(aa->start_skew_max_s, 7624000e-9, 1e-12);
    CHECK_NEAR_REL(aa->end_skew_s, 2000e-9, 1e-12);
  }
  /* each rank's own rows carry none of it */
  for (int i = 0; i < s->ranks[0].n_coll; i++)
    CHECK_EQ_INT(s->ranks[0].coll[i].sync_matched, 0);
  pl_trace_set_free(s);
}

/* One file: nothing to match, the fields stay 0. */
static void test_single_no_sync(void) {
  struct pl_trace_set *s = analyze(TR "hta_nccl_data.json.gz", false);
  if (s == NULL)
    return;
  CHECK(s->n_coll > 0);
  for (int i = 0; i < s->n_coll; i++) {
    CHECK_EQ_INT(s->coll[i].sync_matched, 0);
    CHECK_NEAR_REL(s->coll[i].sync_busbw_bytes_per_s, 0, 0);
  }
  pl_trace_set_free(s);
}

int main(void) {
  test_mi300();
  test_h100();
  test_mi300_sizes();
  test_dlrm_sync();
  test_single_no_sync();
  return check_finish();
}
