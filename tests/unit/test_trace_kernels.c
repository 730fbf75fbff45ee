/* test_trace_kernels.c: the kernel breakdown, the idle split, per-stream
 * idle time, launch statistics and collective arrival (src/trace/kernels.c,
 * src/trace/across.c; docs/trace.md 3.5-3.7, 4.1).
 *
 * 1. A five-kernel trace whose every number is derived by hand below.
 * 2. On every shipped trace, both window modes: the idle split adds up to
 *    idle_s, the categories and the names to kernel_s, and each stream's
 *    busy + idle time to its span (exactly, in integer ns; 1e-12 s allows
 *    for the division by the step count).
 * 3. HTA's per-stream idle time breakdown, re-derived from the trace with
 *    HTA's own rules (BreakdownAnalysis._analyze_idle_time_for_stream, HTA
 *    0c2146a: gaps between consecutive events of a stream sorted by ts; host
 *    wait when the runtime call started after the previous event ended;
 *    kernel wait under 30 ns; other), agrees to the ns on the traces whose
 *    streams never run two events at once.
 * 4. dlrm's 8 ranks: the collective arrival, re-derived from the kernels'
 *    start times (a collective's last arrival is the latest start).
 * 5. HTA's kernel breakdown (BreakdownAnalysis.get_gpu_kernel_breakdown:
 *    the sum of dur per kernel name over the whole trace), re-derived by
 *    scripts/hta_kernel_ref.py, equals plateau's per-name times with
 *    --window trace to the ns. */
#include "trace_gen.h" /* first: it asks for POSIX (mkstemp) */

#include <math.h>

/* Kineto events, times in us. Runtime calls on pid 1; kernels on pid 0,
 * tid = stream. */
static const char synthetic[] =
    "{\"traceEvents\": ["
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":0,\"dur\":5,\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":6,\"dur\":4,\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":12,\"dur\":3,\"args\":{\"correlation\":4}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":30,\"dur\":2,\"args\":{\"correlation\":3}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
    "\"ts\":41,\"dur\":1,\"args\":{\"correlation\":5}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,"
    "\"ts\":10,\"dur\":10,\"args\":{\"correlation\":1,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"vectorized_elementwise_kernel\",\"pid\":0,"
    "\"tid\":7,\"ts\":20.010,\"dur\":0.990,\"args\":{\"correlation\":2,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"pid\":0,\"tid\":7,"
    "\"ts\":35,\"dur\":5,\"args\":{\"correlation\":3,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\","
    "\"pid\":0,\"tid\":20,\"ts\":38,\"dur\":10,\"args\":{\"correlation\":4,\"stream\":20}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_sgemm_128x64_nn\",\"pid\":0,\"tid\":7,"
    "\"ts\":50,\"dur\":2,\"args\":{\"correlation\":5,\"stream\":7}}"
    "]}";

#define NS 1e-9
#define US 1e-6

static void test_synthetic(void) {
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze_mem(synthetic, sizeof synthetic - 1, "synthetic.json", &o, &s, &d),
               PL_OK, diag_ptr(&d));
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  /* No ProfilerStep: one window from the first start (10 us) to the last end
   * (52 us), 42 us. Busy: [10, 20) + [20.01, 21) + [35, 48) + [50, 52) =
   * 10 + 0.99 + 13 + 2 = 25.99 us, idle 16.01 us. The gaps of the GPU:
   * [20, 20.01): ended by the elementwise kernel, launched at 6 < 20, 10 ns
   * < 30 ns: kernel wait 10 ns. [21, 35): the flash kernel was launched at
   * 30 > 21: host wait 14 us. [48, 50): the last gemm was launched at 41 <
   * 48 and the gap is 2 us: other 2 us. */
  CHECK_NEAR_REL(r->span_s, 42 * US, 1e-12);
  CHECK_NEAR_REL(r->idle_s, 16.01 * US, 1e-12);
  CHECK_NEAR_REL(r->idle_host_s, 14 * US, 1e-12);
  CHECK_NEAR_REL(r->idle_kernel_s, 10 * NS, 1e-12);
  CHECK_NEAR_REL(r->idle_other_s, 2 * US, 1e-12);
  /* Categories: gemm 10 + 2, elementwise 0.99, attention 5, all_reduce 10;
   * all kernels 27.99 us (a sum: the all-reduce overlaps the flash kernel). */
  CHECK_NEAR_REL(r->kcat_s[PL_TK_GEMM], 12 * US, 1e-12);
  CHECK_NEAR_REL(r->kcat_s[PL_TK_ELEMENTWISE], 0.99 * US, 1e-12);
  CHECK_NEAR_REL(r->kcat_s[PL_TK_ATTENTION], 5 * US, 1e-12);
  CHECK_NEAR_REL(r->kcat_s[PL_TK_ALL_REDUCE], 10 * US, 1e-12);
  CHECK_NEAR_REL(r->kernel_s, 27.99 * US, 1e-12);
  /* Names: the gemm first (12 us, 2 calls, 2 to 10 us). */
  CHECK_EQ_INT(r->n_kernels, 4);
  if (r->n_kernels == 4) {
    CHECK_STR(r->kernels[0].name, "volta_sgemm_128x64_nn");
    CHECK_NEAR_REL(r->kernels[0].count, 2, 0);
    CHECK_NEAR_REL(r->kernels[0].min_s, 2 * US, 1e-12);
    CHECK_NEAR_REL(r->kernels[0].max_s, 10 * US, 1e-12);
  }
  /* Streams. 7: span [10, 52) = 42 us, busy 10 + 0.99 + 5 + 2 = 17.99 us;
   * gaps [20, 20.01) kernel wait, [21, 35) host (launch 30 > 21), [40, 50)
   * host (launch 41 > 40): host 24 us, kernel 10 ns. 20: one kernel, span =
   * busy = 10 us. */
  CHECK_EQ_INT(r->n_streams, 2);
  if (r->n_streams == 2) {
    CHECK_EQ_INT(r->streams[0].stream, 7);
    CHECK_NEAR_REL(r->streams[0].span_s, 42 * US, 1e-12);
    CHECK_NEAR_REL(r->streams[0].busy_s, 17.99 * US, 1e-12);
    CHECK_NEAR_REL(r->streams[0].idle_host_s, 24 * US, 1e-12);
    CHECK_NEAR_REL(r->streams[0].idle_kernel_s, 10 * NS, 1e-12);
    CHECK(r->streams[0].idle_other_s == 0);
    CHECK_NEAR_REL(r->streams[1].busy_s, 10 * US, 1e-12);
    CHECK(r->streams[1].idle_s == 0);
  }
  /* Launch delays: 10 - 0 = 10, 20.01 - 6 = 14.01, 35 - 30 = 5, 38 - 12 =
   * 26, 50 - 41 = 9 us; mean 64.01 / 5 = 12.802 us, max 26 us. Median: the
   * third of 5, 9, 10, 14.01, 26, i.e. 10 us = 10000 ns, in [8192, 16384)
   * whose 16 buckets are 512 ns wide: bucket 3, [9728, 10240), midpoint
   * 9984 ns. Short events (launch call <= 50 us and longer than the kernel):
   * only the elementwise kernel (0.99 us under a 4 us call). */
  CHECK_EQ_INT(r->launch.events, 5);
  CHECK_NEAR_REL(r->launch.delay_mean_s, 12.802 * US, 1e-12);
  CHECK_NEAR_REL(r->launch.delay_max_s, 26 * US, 1e-12);
  CHECK_NEAR_REL(r->launch.delay_p50_s, 9984 * NS, 1e-12);
  CHECK_EQ_INT(r->launch.short_events, 1);
  CHECK_NEAR_REL(r->launch.short_gpu_s, 0.99 * US, 1e-12);
  CHECK_NEAR_REL(r->launch.short_cpu_s, 4 * US, 1e-12);
  CHECK_EQ_INT(r->launch.delay_outliers, 0);
  pl_trace_set_free(s);
}

static bool near(double a, double b) {
  return fabs(a - b) <= 1e-12 + 1e-12 * fabs(b);
}

/* Every sum the breakdowns promise, on one rank. */
static void check_sums(const char *path, const struct pl_trace_rank *r) {
  if (!r->has_gpu)
    return;
  bool ok = near(r->idle_host_s + r->idle_kernel_s + r->idle_other_s, r->idle_s);
  double c = 0, k = 0;
  for (int i = 0; i < PL_TK_N; i++)
    c += r->kcat_s[i];
  for (int i = 0; i < r->n_kernels; i++)
    k += r->kernels[i].time_s;
  ok &= near(c, r->kernel_s) && near(k, r->kernel_s);
  for (int i = 0; i < r->n_streams; i++) {
    const struct pl_trace_stream *t = &r->streams[i];
    ok &= near(t->busy_s + t->idle_s, t->span_s);
    ok &= near(t->idle_host_s + t->idle_kernel_s + t->idle_other_s, t->idle_s);
  }
  if (!ok)
    fprintf(stderr, "sums differ: %s rank %lld\n", path, (long long)r->rank);
  CHECK(ok);
}

static void test_sums(void) {
  const char *all[sizeof shipped / sizeof shipped[0] + 1];
  size_t n = 0;
  for (; n < sizeof shipped / sizeof shipped[0]; n++)
    all[n] = shipped[n];
  all[n++] = TR "gt_h100_llama3.2-1b_seq4096.json.gz"; /* not in the spill tests' list */
  for (size_t i = 0; i < n; i++) {
    for (int whole = 0; whole < 2; whole++) {
      struct pl_trace_opts o = {-1, 1, whole == 1};
      struct pl_trace_set *s = NULL;
      struct pl_diag d;
      pl_diag_clear(&d);
      CHECK_STATUS(pl_trace_analyze(&all[i], 1, &o, &s, &d), PL_OK, diag_ptr(&d));
      for (int k = 0; s != NULL && k < s->n_ranks; k++)
        check_sums(all[i], &s->ranks[k]);
      pl_trace_set_free(s);
    }
  }
}

/* HTA's numbers per stream (ns: host, kernel, other), from the trace with
 * HTA's rules (see the file comment), by scripts/hta_idle_ref.py, which
 * reads the times exactly (decimal) as plateau's reader does. */
struct hta_stream {
  int64_t stream, host_ns, kernel_ns, other_ns;
};

static void check_hta(const char *path, const struct hta_stream *want, int n) {
  struct pl_trace_opts o = {-1, 1, true}; /* HTA: the whole trace */
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze(&path, 1, &o, &s, &d), PL_OK, diag_ptr(&d));
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  CHECK_EQ_INT(r->n_streams, n);
  for (int i = 0; i < n && i < r->n_streams; i++) {
    const struct pl_trace_stream *t = &r->streams[i];
    CHECK_EQ_INT(t->stream, want[i].stream);
    CHECK_EQ_INT(llround(t->idle_host_s * 1e9), want[i].host_ns);
    CHECK_EQ_INT(llround(t->idle_kernel_s * 1e9), want[i].kernel_ns);
    CHECK_EQ_INT(llround(t->idle_other_s * 1e9), want[i].other_ns);
  }
  pl_trace_set_free(s);
}

static void test_hta(void) {
  static const struct hta_stream sampled[] = {{7, 397917000, 0, 602100000},
                                              {23, 1214793000, 0, 194000},
                                              {25, 560120000, 0, 100448000},
                                              {84, 794901000, 0, 3148000},
                                              {203, 558073000, 0, 0}};
  static const struct hta_stream nccl[] = {{7, 540091317, 0, 2150343}, {40, 583924256, 0, 0}};
  static const struct hta_stream mi300[] = {{0, 0, 2792, 57851367}, {4, 0, 0, 12519400}};
  static const struct hta_stream kineto[] = {{7, 382676000, 0, 10243000}};
  check_hta(TR "hta_sampled_rank-0.json.gz", sampled, 5);
  check_hta(TR "hta_nccl_data.json.gz", nccl, 2);
  check_hta(TR "tracelens_mi300_resnet_act_checkpoint.json.gz", mi300, 2);
  check_hta(TR "kineto2021_resnet50_worker0.json.gz", kineto, 1);
}

/* HTA's kernel breakdown with --window trace (one window, one "step"): the
 * longest names' summed dur and calls, the total and the number of names,
 * from scripts/hta_kernel_ref.py. */
struct hta_kernel {
  int64_t ns, calls;
  const char *prefix;
};

static void check_hta_kernels(const char *path, const struct hta_kernel *want, int n,
                              int64_t total_ns, int names) {
  struct pl_trace_opts o = {-1, 1, true};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze(&path, 1, &o, &s, &d), PL_OK, diag_ptr(&d));
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  CHECK_EQ_INT(llround(r->kernel_s * 1e9), total_ns);
  CHECK_EQ_INT(r->n_kernels, names); /* every name, longest first */
  for (int i = 0; i < n && i < r->n_kernels; i++) {
    const struct pl_trace_kernel *k = &r->kernels[i];
    CHECK_EQ_INT(llround(k->time_s * 1e9), want[i].ns);
    CHECK_EQ_INT(llround(k->count), want[i].calls);
    CHECK(strncmp(k->name, want[i].prefix, strlen(want[i].prefix)) == 0);
  }
  pl_trace_set_free(s);
}

static void test_hta_kernels(void) {
  static const struct hta_kernel sampled[] = {
      {396199000, 10, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"},
      {23469000, 2, "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kerne"},
      {15167000, 2, "void split_embedding_codegen_forward_unweighted_kernel"}};
  static const struct hta_kernel kineto[] = {
      {80756000, 162, "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>"},
      {66472000, 156, "void cudnn::cnn::wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false"},
      {59642000, 264, "void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>"},
      {39814000, 3090, "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunct"}};
  check_hta_kernels(TR "hta_sampled_rank-0.json.gz", sampled, 3, 607844000, 197);
  check_hta_kernels(TR "kineto2021_resnet50_worker0.json.gz", kineto, 4, 603558000, 69);
}

/* One file over the whole trace (--window trace), one thread; NULL after a
 * failed CHECK_STATUS. */
static struct pl_trace_set *analyze_whole(const char *path) {
  struct pl_trace_opts o = {-1, 1, true};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze(&path, 1, &o, &s, &d), PL_OK, diag_ptr(&d));
  return s;
}

/* HTA's communication/computation overlap (get_comm_comp_overlap) and
 * temporal breakdown (get_temporal_breakdown) over every GPU event of the
 * file, from scripts/hta_overlap_ref.py (HTA f4d0062's rules re-derived in
 * Python, exact in ns): --window trace gives the same unions to the ns.
 * HTA's ratio is overlapped / comm: hta_nccl_data 7317025 / 46876493 =
 * 0.156092, hta_sampled_rank-0 0.149460, tracelens_mi300 (RCCL) 0.222205. */
struct hta_overlap {
  const char *path;
  int64_t comm_ns, compute_ns, overlap_ns, idle_ns, span_ns;
};

static void test_hta_overlap(void) {
  static const struct hta_overlap want[] = {
      {TR "hta_nccl_data.json.gz", 46876493, 115655847, 7317025, 503050991, 660551005},
      {TR "hta_sampled_rank-0.json.gz", 396199000, 210320000, 59216000, 675191000, 1222847000},
      {TR "tracelens_mi300_resnet_act_checkpoint.json.gz", 71516523, 25739303, 15891299, 2565652,
       86567708},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    struct pl_trace_set *s = analyze_whole(want[i].path);
    if (s == NULL)
      continue;
    const struct pl_trace_rank *r = &s->ranks[0];
    CHECK_EQ_INT(llround(r->comm_s * 1e9), want[i].comm_ns);
    CHECK_EQ_INT(llround(r->compute_s * 1e9), want[i].compute_ns);
    CHECK_EQ_INT(llround(r->overlapped_comm_s * 1e9), want[i].overlap_ns);
    CHECK_EQ_INT(llround(r->idle_s * 1e9), want[i].idle_ns);
    CHECK_EQ_INT(llround(r->span_s * 1e9), want[i].span_ns);
    pl_trace_set_free(s);
  }
}

/* Communication per collective kind (docs/trace.md 3.4.2), HTA's overlap
 * applied to each kind's union M_k: scripts/hta_overlap_ref.py on
 * hta_nccl_data (kinds from the kernels' "Collective name" args) prints
 * "kind all_reduce 46762159 7317025" and "kind broadcast 114334 0" (|M_k|,
 * |M_k and compute|, ns), and on tracelens_b200_eager "kind all_gather 21953 0".
 * The kinds' unions cover M, so the sums are at least comm and overlap, and
 * equal them when no two kinds run at once (nccl_data: 46762159 + 114334 =
 * 46876493 = comm, the figure of test_hta_overlap). */
static void test_comm_by_op(void) {
  struct pl_trace_opts o = {-1, 1, true};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *path = TR "hta_nccl_data.json.gz";
  CHECK_STATUS(pl_trace_analyze(&path, 1, &o, &s, &d), PL_OK, diag_ptr(&d));
  if (s != NULL) {
    const struct pl_trace_rank *r = &s->ranks[0];
    int ar = PL_TK_ALL_REDUCE - PL_TK_ALL_REDUCE, bc = PL_TK_BROADCAST - PL_TK_ALL_REDUCE;
    CHECK_EQ_INT(llround(r->comm_cat_s[ar] * 1e9), 46762159);
    CHECK_EQ_INT(llround(r->overlapped_cat_s[ar] * 1e9), 7317025);
    CHECK_EQ_INT(llround(r->comm_cat_s[bc] * 1e9), 114334);
    CHECK_EQ_INT(llround(r->overlapped_cat_s[bc] * 1e9), 0);
    for (int k = 0; k < PL_TRACE_COMM_CATS; k++)
      if (k != ar && k != bc)
        CHECK_EQ_INT(llround(r->comm_cat_s[k] * 1e9), 0);
  }
  pl_trace_set_free(s);
  /* every shipped trace, both window modes: the kinds cover M */
  static const char *const all[] = {
      TR "dlrm", TR "hta_nccl_data.json.gz", TR "hta_sampled_rank-0.json.gz",
      TR "tracelens_mi300_resnet_act_checkpoint.json.gz", TR "tracelens_b200_eager.json.gz",
      TR "kineto2021_resnet50_worker0.json.gz"};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    for (int whole = 0; whole < 2; whole++) {
      struct pl_trace_opts ow = {-1, 1, whole == 1};
      s = NULL;
      pl_diag_clear(&d);
      CHECK_STATUS(pl_trace_analyze(&all[i], 1, &ow, &s, &d), PL_OK, diag_ptr(&d));
      for (int j = 0; s != NULL && j < s->n_ranks; j++) {
        const struct pl_trace_rank *r = &s->ranks[j];
        double c = 0, ov = 0;
        for (int k = 0; k < PL_TRACE_COMM_CATS; k++) {
          CHECK(r->overlapped_cat_s[k] <= r->comm_cat_s[k]);
          c += r->comm_cat_s[k];
          ov += r->overlapped_cat_s[k];
        }
        CHECK(c >= r->comm_s * (1 - 1e-12) && ov >= r->overlapped_comm_s * (1 - 1e-12));
        CHECK(c <= 1e-12 || r->comm_s > 0);
      }
      pl_trace_set_free(s);
    }
}

/* HTA's launch_delay = ts_gpu - ts_cpu - dur_cpu clipped at 0 (launch.hta_*,
 * docs/trace.md 3.7). scripts/hta_launch_ref.py over every runtime call with
 * a correlation ("all"), ns: events, sum, max, delays > 100 us, calls > 50 us:
 *   hta_nccl_data          3774  103192251      964931    267  1
 *   hta_sampled_rank-0     1204  20539698000    111018000 937  2
 *   tracelens_mi300        2685  74854668629    38673055  2685 0
 *   kineto2021_resnet50    9096  100221533000   31976000  7267 6
 * (HTA's own name filter, cudaLaunchKernel/ExC and cudaMemcpy/MemsetAsync,
 * keeps the same events on the CUDA traces and none on the ROCm one.) */
static void test_hta_launch(void) {
  static const struct {
    const char *path;
    int64_t events, sum_ns, max_ns, late, slow;
  } want[] = {
      {TR "hta_nccl_data.json.gz", 3774, INT64_C(103192251), 964931, 267, 1},
      {TR "hta_sampled_rank-0.json.gz", 1204, INT64_C(20539698000), 111018000, 937, 2},
      {TR "tracelens_mi300_resnet_act_checkpoint.json.gz", 2685, INT64_C(74854668629), 38673055,
       2685, 0},
      {TR "kineto2021_resnet50_worker0.json.gz", 9096, INT64_C(100221533000), 31976000, 7267, 6},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    struct pl_trace_set *s = analyze_whole(want[i].path);
    if (s == NULL)
      continue;
    const struct pl_trace_launch *l = &s->ranks[0].launch;
    CHECK_EQ_INT(l->hta_events, want[i].events);
    CHECK_NEAR_REL(l->hta_delay_sum_s * 1e9, (double)want[i].sum_ns, 1e-9);
    CHECK_NEAR_REL(l->hta_delay_mean_s * 1e9, (double)want[i].sum_ns / (double)want[i].events,
                   1e-9);
    CHECK_EQ_INT(llround(l->hta_delay_max_s * 1e9), want[i].max_ns);
    CHECK_EQ_INT(l->hta_delay_outliers, want[i].late);
    CHECK_EQ_INT(l->runtime_outliers, want[i].slow);
    CHECK(l->hta_delay_p50_s <= l->hta_delay_p90_s && l->hta_delay_p90_s <= l->hta_delay_p99_s);
    CHECK(l->hta_delay_p99_s <= l->hta_delay_max_s * 1.033);
    /* from the call's end, so never longer than plateau's delay from its start */
    CHECK(l->hta_delay_sum_s <= l->delay_sum_s * (1 + 1e-12));
    pl_trace_set_free(s);
  }
}

/* dlrm: 3 all_reduce and 5 send_recv per rank in its one step. Matching
 * the i-th call of each op over the 8 ranks and taking the latest start as
 * the last arrival, the ranks wait (ns) 5580000, 11125000, 3280000,
 * 9571000, 6370000, 6041000, 3342000, 1534000; rank 7 is last at 5 of the
 * 8 calls, rank 5 at 2, rank 4 at 1; the waits add up to 46843000 ns, the
 * longest single wait 7624000 ns (derived from the kernels' ts in
 * tests/data/traces/dlrm with a 20-line script, independently of plateau). */
static void test_arrival(void) {
  static const int64_t wait_ns[8] = {5580000, 11125000, 3280000, 9571000,
                                     6370000, 6041000,  3342000, 1534000};
  static const double last[8] = {0, 0, 0, 0, 1, 2, 0, 5};
  /* first to arrive (TraceLens's times_arrived_first, the highest rank on
   * ties; scripts/tracelens_coll_ref.py sync, which prints the same waits
   * and lasts as above) */
  static const double first[8] = {1, 3, 0, 1, 1, 0, 2, 0};
  const char *path = TR "dlrm";
  struct pl_trace_opts o = {-1, 2, false};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze(&path, 1, &o, &s, &d), PL_OK, diag_ptr(&d));
  if (s == NULL)
    return;
  CHECK_EQ_INT(s->n_ranks, 8);
  for (int i = 0; i < 8 && i < s->n_ranks; i++) {
    CHECK_EQ_INT(llround(s->ranks[i].coll_wait_s * 1e9), wait_ns[i]);
    CHECK_NEAR_REL(s->ranks[i].coll_last, last[i], 0);
    CHECK_NEAR_REL(s->ranks[i].coll_first, first[i], 0);
    CHECK_EQ_INT(s->ranks[i].coll_matched, 8);
  }
  CHECK_EQ_INT(s->n_arrivals, 1);
  if (s->n_arrivals == 1) {
    CHECK_EQ_INT(s->arrivals[0].collectives, 8);
    CHECK_EQ_INT(s->arrivals[0].last_rank, 7);
    CHECK_EQ_INT(s->arrivals[0].last_count, 5);
    CHECK_EQ_INT(llround(s->arrivals[0].wait_s * 1e9), 46843000);
    CHECK_EQ_INT(llround(s->arrivals[0].max_wait_s * 1e9), 7624000);
  }
  pl_trace_set_free(s);
}

/* One trace, no arrival: a single rank has no one to wait for. */
static void test_single(void) {
  const char *path = TR "hta_nccl_data.json.gz";
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze(&path, 1, &o, &s, &d), PL_OK, diag_ptr(&d));
  if (s != NULL) {
    CHECK_EQ_INT(s->n_arrivals, 0);
    CHECK(s->ranks[0].coll_wait_s == 0);
  }
  pl_trace_set_free(s);
}

int main(void) {
  test_synthetic();
  test_sums();
  test_hta();
  test_hta_kernels();
  test_hta_overlap();
  test_comm_by_op();
  test_hta_launch();
  test_arrival();
  test_single();
  return check_finish();
}
