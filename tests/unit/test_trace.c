/* test_trace.c: the Kineto trace analyzer (src/trace/) on a hand-built trace
 * whose every metric is derived below, and on real traces of each schema
 * (tests/data/traces/SOURCES.md): 2021 Kineto, current Kineto, ROCm, CPU-only,
 * no ProfilerStep, an 8-rank set. Agreement with TraceLens's own expected
 * output is in test_trace_tracelens.c. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "check.h"
#include "trace/trace_int.h"

#define TR PL_TEST_DATA "/traces/"

/* A pointer CHECK_STATUS can test for NULL without -Waddress. */
static struct pl_diag *diag_ptr(struct pl_diag *d) { return d; }

static const char *write_tmp(const char *text) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/pl_test_trace_XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static struct pl_trace_set *analyze1(const char *path, int64_t skip, bool whole) {
  struct pl_trace_opts o = {skip, 1, whole};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *paths[] = {path};
  enum pl_status st = pl_trace_analyze(paths, 1, &o, &s, &d);
  CHECK_STATUS(st, PL_OK, diag_ptr(&d));
  return s;
}

/* Two steps of 100 us on the CPU. Launches (runtime calls) at 10, 20 us
 * (step 1) and 110, 120 us (step 2). GPU, in us:
 *   corr 1 compute [50, 80)      corr 2 nccl   [70, 100)
 *   corr 3 compute [150, 160.5005) (dur "10.5005" -> 10500.5 ns -> 10501 ns)
 *   corr 4 memcpy  [155, 170)
 * Windows: step 1 [50, 150) (to step 2's first GPU start), step 2 [150, 170)
 * (its own last end). Step 1: compute 30, comm 30, overlap [70,80) = 10,
 * exposed comm 20, memory 0, idle 100 - |[50,100)| = 50. Step 2: compute
 * 10.501, memory 15, exposed memory [160.501,170) = 9.499, busy 20, idle 0. */
static const char synthetic[] =
    "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 3, \"world_size\": 4},\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1,"
    " \"tid\": 1, \"ts\": 1000000000.000, \"dur\": 100},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#2\", \"pid\": 1,"
    " \"tid\": 1, \"ts\": 1000000100, \"dur\": 100.000},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"tid\": 1,"
    " \"ts\": 1000000010, \"dur\": 1, \"args\": {\"correlation\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"tid\": 1,"
    " \"ts\": 1000000020, \"dur\": 1, \"args\": {\"correlation\": 2}},\n"
    "  {\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 3, \"tid\": 1,"
    " \"ts\": 1000000110},\n"
    "  {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"tid\": 1,"
    " \"ts\": 1000000120, \"dur\": 1, \"args\": {\"correlation\": 4}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"sm90_gemm\", \"pid\": 0, \"tid\": 7,"
    " \"ts\": 1000000050, \"dur\": 30, \"args\": {\"stream\": 7, \"correlation\": 1}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllGather_RING_LL(x)\","
    " \"tid\": 20, \"ts\": 1000000070, \"dur\": 30, \"args\": {\"correlation\": 2,"
    " \"Collective name\": \"_allgather_base\", \"In msg nelems\": 1000, \"Out msg nelems\": 4000,"
    " \"Group size\": 4, \"dtype\": \"BFloat16\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"elementwise\", \"tid\": 7,"
    " \"ts\": 1000000150.000, \"dur\": 10.5005, \"args\": {\"correlation\": 3}},\n"
    "  {\"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoD\", \"tid\": 7,"
    " \"ts\": 1000000155, \"dur\": 15, \"args\": {\"correlation\": 4}}\n"
    " ]}\n";

static void test_synthetic(void) {
  const char *path = write_tmp(synthetic);
  struct pl_trace_set *s = analyze1(path, -1, false);
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  CHECK_EQ_INT(r->rank, 3);
  CHECK_EQ_INT(r->world_size, 4);
  CHECK_EQ_INT(r->steps, 2);           /* default skip: min(10, 2/6) = 0 */
  CHECK_EQ_INT(r->gpu_events, 4);
  CHECK_EQ_INT(r->unlinked_events, 0); /* corr 3 is linked by its flow alone */
  /* means over the 2 steps, exact to the ns (tolerance: double rounding only) */
  CHECK_NEAR_REL(r->span_s, 60e-6, 1e-12);      /* (100 + 20) / 2 */
  CHECK_NEAR_REL(r->compute_s, 20.2505e-6, 1e-12); /* (30 + 10.501) / 2 */
  CHECK_NEAR_REL(r->comm_s, 15e-6, 1e-12);
  CHECK_NEAR_REL(r->overlapped_comm_s, 5e-6, 1e-12);
  CHECK_NEAR_REL(r->exposed_comm_s, 10e-6, 1e-12);
  CHECK_NEAR_REL(r->memory_s, 7.5e-6, 1e-12);
  CHECK_NEAR_REL(r->exposed_memory_s, 4.7495e-6, 1e-12);
  CHECK_NEAR_REL(r->idle_s, 25e-6, 1e-12);
  CHECK_NEAR_REL(r->cpu_step_s, 100e-6, 1e-12);
  /* one all_gather per 2 steps, 4 ranks: bytes = out 4000 x 2 B = 8000;
   * algbw = 8000 B / 30 us = 266.67 MB/s; busbw x (4-1)/4 = 200 MB/s */
  CHECK_EQ_INT(r->n_coll, 1);
  if (r->n_coll == 1) {
    CHECK_STR(r->coll[0].op, "all_gather");
    CHECK_EQ_INT(r->coll[0].group_size, 4);
    CHECK_NEAR_REL(r->coll[0].count, 0.5, 0);
    CHECK_NEAR_REL(r->coll[0].bytes, 8000, 0);
    CHECK_NEAR_REL(r->coll[0].busbw_bytes_per_s, 200e6, 1e-12);
  }
  pl_trace_set_free(s);
  /* --skip 1 keeps step 2 alone: span 20, compute 10.501 */
  s = analyze1(path, 1, false);
  if (s != NULL) {
    CHECK_EQ_INT(s->ranks[0].steps, 1);
    CHECK_NEAR_REL(s->ranks[0].compute_s, 10.501e-6, 1e-12);
    CHECK_NEAR_REL(s->ranks[0].idle_s, 0, 0);
    pl_trace_set_free(s);
  }
  /* whole trace: [50, 170) = 120 us; busy = [50,100) + [150,170) = 70 */
  s = analyze1(path, -1, true);
  if (s != NULL) {
    CHECK_NEAR_REL(s->ranks[0].span_s, 120e-6, 1e-12);
    CHECK_NEAR_REL(s->ranks[0].idle_s, 50e-6, 1e-12);
    pl_trace_set_free(s);
  }
  unlink(path);
}

/* Microseconds text to ns without a double: checked through a one-kernel trace. */
static void test_exact_times(void) {
  const char *path = write_tmp(
      "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1767189312000000.001,"
      " \"dur\": 0.0015}, {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
      " \"ts\": 1767189312000000.003, \"dur\": 2.999}]");
  struct trace_data d;
  memset(&d, 0, sizeof d);
  struct pl_diag diag;
  pl_diag_clear(&diag);
  CHECK_STATUS(trace_read(path, &d, &diag), PL_OK, diag_ptr(&diag));
  if (d.gpu.len == 2) {
    /* 1767189312000000.001 us = 1767189312000000001 ns: beyond a double's 53 bits */
    CHECK(TRACE_AT(d.gpu, struct trace_gpu, 0).ts_ns == INT64_C(1767189312000000001));
    CHECK_EQ_INT(TRACE_AT(d.gpu, struct trace_gpu, 0).dur_ns, 2); /* 1.5 ns rounds up */
    CHECK_EQ_INT(TRACE_AT(d.gpu, struct trace_gpu, 1).dur_ns, 2999);
  }
  trace_data_free(&d);
  unlink(path);
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  unsigned char *buf = NULL;
  *len = 0;
  if (f == NULL)
    return NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    long n = ftell(f);
    rewind(f);
    buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf != NULL)
      *len = fread(buf, 1, (size_t)n, f);
  }
  fclose(f);
  return buf;
}

/* A trace in memory goes through the file's streaming path: the same events
 * whatever the chunk size (3 bytes: every token and gzip block straddles
 * chunks), and pl_trace_analyze_mem gives the file's numbers. */
static void test_memory_input(void) {
  size_t len;
  unsigned char *gz = slurp(TR "hta_triton_example.json.gz", &len);
  CHECK(gz != NULL && len == 2221);
  struct trace_data a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(trace_read(TR "hta_triton_example.json.gz", &a, &d), PL_OK, diag_ptr(&d));
  CHECK_STATUS(trace_read_mem(gz, len, "mem", 3, &b, &d), PL_OK, diag_ptr(&d));
  CHECK(a.gpu.len > 0 && a.gpu.len == b.gpu.len &&
        memcmp(a.gpu.data, b.gpu.data, a.gpu.len * sizeof(struct trace_gpu)) == 0);
  CHECK(a.launches.len == b.launches.len && a.raw_bytes == b.raw_bytes);
  CHECK_EQ_INT(b.raw_bytes, 16645); /* the gunzipped size, hta_triton_example.json */
  trace_data_free(&a);
  trace_data_free(&b);
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_set *m = NULL;
  CHECK_STATUS(pl_trace_analyze_mem(gz, len, "mem.json.gz", &o, &m, &d), PL_OK, diag_ptr(&d));
  struct pl_trace_set *f = analyze1(TR "hta_triton_example.json.gz", -1, false);
  if (m != NULL && f != NULL) {
    CHECK_STR(m->ranks[0].file, "mem.json.gz");
    CHECK(m->ranks[0].span_s == f->ranks[0].span_s && m->ranks[0].span_s > 0);
    CHECK(m->ranks[0].compute_s == f->ranks[0].compute_s);
  }
  pl_trace_set_free(m);
  pl_trace_set_free(f);
  free(gz);
  /* errors name the given name; an empty buffer is an empty trace */
  CHECK_STATUS(pl_trace_analyze_mem("", 0, "nothing", &o, &m, &d), PL_ERR_PARSE, diag_ptr(&d));
  CHECK(strstr(d.msg, "trace 'nothing': empty file") != NULL);
  CHECK(m == NULL);
}

/* Times that would overflow int64 ns arithmetic are refused (trace_int.h). */
static void test_time_limits(void) {
  static const char big_ts[] = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
                               " \"ts\": 8446744073709552, \"dur\": 1}]";
  static const char big_dur[] = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
                                " \"ts\": 1, \"dur\": 4611686018427387}]";
  static const char ok[] = "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
                           " \"ts\": 3999999999999999, \"dur\": 999999999999}]";
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze_mem(big_ts, sizeof big_ts - 1, "t", &o, &s, &d), PL_ERR_RANGE,
               diag_ptr(&d));
  CHECK(strstr(d.msg, "field 'ts' value 8446744073709552 is out of range") != NULL);
  CHECK_STATUS(pl_trace_analyze_mem(big_dur, sizeof big_dur - 1, "t", &o, &s, &d), PL_ERR_RANGE,
               diag_ptr(&d));
  CHECK(strstr(d.msg, "field 'dur' value 4611686018427387 is out of range") != NULL);
  /* just inside both limits: one kernel of 999999999999 us, no idle */
  CHECK_STATUS(pl_trace_analyze_mem(ok, sizeof ok - 1, "t", &o, &s, &d), PL_OK, diag_ptr(&d));
  if (s != NULL) {
    CHECK_NEAR_REL(s->ranks[0].span_s, 999999.999999, 1e-15);
    CHECK_NEAR_REL(s->ranks[0].idle_s, 0, 0);
  }
  pl_trace_set_free(s);
}

static void test_intervals(void) {
  struct trace_iv a[] = {{0, 10}, {20, 30}}, b[] = {{5, 25}};
  struct trace_ivs x = {a, 2}, y = {b, 1}, o;
  CHECK(trace_ivs_and(&x, &y, &o) == PL_OK);
  CHECK_EQ_INT(trace_ivs_total(&o), 10); /* [5,10) + [20,25) */
  trace_ivs_free(&o);
  CHECK(trace_ivs_minus(&x, &y, &o) == PL_OK);
  CHECK_EQ_INT(trace_ivs_total(&o), 10); /* [0,5) + [25,30) */
  trace_ivs_free(&o);
  CHECK(trace_ivs_or(&x, &y, &o) == PL_OK);
  CHECK_EQ_INT(o.n, 1);                  /* [0,30) */
  CHECK_EQ_INT(trace_ivs_total(&o), 30);
  trace_ivs_free(&o);
  struct trace_iv w[] = {{0, 8}, {8, 22}, {22, 100}};
  int64_t len[3];
  trace_ivs_measure(&x, w, 3, len);
  CHECK_EQ_INT(len[0], 8); /* [0,8) */
  CHECK_EQ_INT(len[1], 4); /* [8,10) + [20,22) */
  CHECK_EQ_INT(len[2], 8); /* [22,30) */
}

/* compute + exposed comm + exposed memory + idle = span (docs/trace.md 3). */
static void check_identity(const struct pl_trace_rank *r) {
  double sum = r->compute_s + r->exposed_comm_s + r->exposed_memory_s + r->idle_s;
  CHECK_NEAR_REL(sum, r->span_s, 1e-9);
  CHECK(r->overlapped_comm_s <= r->comm_s && r->compute_s <= r->span_s);
}

static void test_schemas(void) {
  /* 2021 schema: ProfilerStep#5..#10, default skip min(10, 6/6) = 1 */
  struct pl_trace_set *s = analyze1(TR "kineto2021_resnet50_worker0.json.gz", -1, false);
  if (s != NULL) {
    const struct pl_trace_rank *r = &s->ranks[0];
    CHECK_EQ_INT(r->steps_total, 6);
    CHECK_EQ_INT(r->steps_skipped, 1);
    CHECK_EQ_INT(r->first_step, 6);
    CHECK(r->has_gpu && r->compute_s > 0.05 && r->comm_s == 0);
    CHECK_EQ_INT(r->unlinked_events, 0);
    check_identity(r);
    pl_trace_set_free(s);
  }
  /* ROCm 6.2, kernels on stream 0, no distributedInfo: its 2nd step is cut short */
  s = analyze1(TR "hta_amd_mi250_minitoy.json.gz", -1, false);
  if (s != NULL) {
    CHECK(s->ranks[0].last_dropped);
    CHECK_EQ_INT(s->ranks[0].steps, 1);
    CHECK_EQ_INT(s->ranks[0].rank, -1);
    check_identity(&s->ranks[0]);
    pl_trace_set_free(s);
  }
  /* CPU-only (gloo), rank 34 of 300: no GPU metrics */
  s = analyze1(TR "hta_cpu_only_rank-34.json.gz", -1, false);
  if (s != NULL) {
    CHECK(!s->any_gpu && !s->ranks[0].has_gpu);
    CHECK_EQ_INT(s->ranks[0].rank, 34);
    CHECK_EQ_INT(s->world_size, 300);
    CHECK(s->ranks[0].cpu_step_s > 0 && s->ranks[0].compute_s == 0);
    pl_trace_set_free(s);
  }
  /* no ProfilerStep: one window over the whole trace */
  s = analyze1(TR "hta_alexnet_no_steps.json.gz", -1, false);
  if (s != NULL) {
    CHECK(!s->ranks[0].has_steps);
    CHECK_EQ_INT(s->ranks[0].steps, 1);
    check_identity(&s->ranks[0]);
    pl_trace_set_free(s);
  }
  /* plain JSON (not gzip) and the same trace gzipped agree exactly */
  struct pl_trace_set *p = analyze1(TR "hta_triton_example.json", -1, false);
  s = analyze1(TR "hta_triton_example.json.gz", -1, false);
  if (s != NULL && p != NULL)
    CHECK(s->ranks[0].span_s == p->ranks[0].span_s && s->ranks[0].span_s > 0);
  pl_trace_set_free(s);
  pl_trace_set_free(p);
}

/* Collective args on the kernel (HTA nccl_data: DDP, 2 ranks, float). */
/* pl_trace_call.overlap_s: the synthetic trace's one NCCL kernel [70, 100) us
 * has the compute kernel [50, 80) beside it for [70, 80) = 10 us (the memcpy of
 * step 2 is no compute and overlaps nothing); calibrate trace tells calls that
 * ran alone by overlap_s == 0 (docs/trace.md 10.2). */
static void test_call_overlap(void) {
  const char *path = write_tmp(synthetic);
  struct pl_trace_opts o = {0, 1, false};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *paths[] = {path};
  CHECK_STATUS(pl_trace_analyze_calls(paths, 1, &o, &s, &d), PL_OK, diag_ptr(&d));
  if (s != NULL) {
    CHECK_EQ_INT(s->ranks[0].n_calls, 1);
    if (s->ranks[0].n_calls == 1) {
      CHECK_NEAR_REL(s->ranks[0].calls[0].time_s, 30e-6, 1e-12);
      CHECK_NEAR_REL(s->ranks[0].calls[0].overlap_s, 10e-6, 1e-12);
    }
  }
  pl_trace_set_free(s);
  unlink(path);
}

static void test_collective_args(void) {
  struct pl_trace_set *s = analyze1(TR "hta_nccl_data.json.gz", -1, false);
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  CHECK(r->n_coll >= 1);
  if (r->n_coll >= 1) {
    CHECK_STR(r->coll[0].op, "all_reduce");
    CHECK_EQ_INT(r->coll[0].group_size, 2);
    /* every call sized: In msg nelems x 4 B (dtype Float) */
    CHECK(r->coll[0].sized_calls > 0 && r->coll[0].bytes > 0);
    /* busbw = algbw x 2(n-1)/n = algbw x 1 for n = 2 */
    CHECK_NEAR_REL(r->coll[0].busbw_bytes_per_s, r->coll[0].algbw_bytes_per_s, 1e-12);
  }
  check_identity(r);
  pl_trace_set_free(s);
}

/* Sizes from ProcessGroupNCCL's "nccl:<op>" annotations (src/trace/
 * reader_shape.c): their "Input Dims" and "Input type" with record_shapes.
 * Four all_reduce kernels, each launched inside one annotation on thread 1:
 * [[2, 3]] c10::BFloat16 = 6 x 2 = 12 B; [[4]] "long int" = 32 B; and
 * three whose shape cannot be read ([[-1]], [[[1]]] nested too deep, dims
 * whose product overflows int64), which stay unsized. A record_param_comms
 * op around the last launch wins over the annotation around it. */
static const char titles[] =
    "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2}, \"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"tid\":1,\"ts\":10,"
    "\"dur\":5,\"args\":{\"External id\":1,\"Input Dims\":[[2,3]],\"Input type\":[\"c10::BFloat16\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":11,"
    "\"dur\":1,\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"tid\":1,\"ts\":20,"
    "\"dur\":5,\"args\":{\"External id\":2,\"Input Dims\":[[4],[9]],\"Input type\":[\"long int\",\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":21,"
    "\"dur\":1,\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"tid\":1,\"ts\":30,"
    "\"dur\":5,\"args\":{\"External id\":3,\"Input Dims\":[[-1]],\"Input type\":[\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":31,"
    "\"dur\":1,\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"tid\":1,\"ts\":40,"
    "\"dur\":5,\"args\":{\"External id\":4,\"Input Dims\":[[[1]]],\"Input type\":[\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":41,"
    "\"dur\":1,\"args\":{\"correlation\":4}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"tid\":1,\"ts\":50,"
    "\"dur\":5,\"args\":{\"External id\":5,\"Input Dims\":[[4294967296,4294967296]],"
    "\"Input type\":[\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":51,"
    "\"dur\":1,\"args\":{\"correlation\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"nccl:all_reduce\",\"tid\":1,\"ts\":60,"
    "\"dur\":5,\"args\":{\"External id\":6,\"Input Dims\":[[1000]],\"Input type\":[\"float\"]}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"tid\":1,\"ts\":61,"
    "\"dur\":3,\"args\":{\"External id\":7,\"Collective name\":\"allreduce\",\"In msg nelems\":8,"
    "\"dtype\":\"Float\",\"Group size\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"tid\":1,\"ts\":62,"
    "\"dur\":1,\"args\":{\"correlation\":6}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"tid\":7,"
    "\"ts\":100,\"dur\":1,\"args\":{\"correlation\":1}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"tid\":7,"
    "\"ts\":110,\"dur\":1,\"args\":{\"correlation\":2}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"tid\":7,"
    "\"ts\":120,\"dur\":1,\"args\":{\"correlation\":3}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"tid\":7,"
    "\"ts\":130,\"dur\":1,\"args\":{\"correlation\":4}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"tid\":7,"
    "\"ts\":140,\"dur\":1,\"args\":{\"correlation\":5}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"tid\":7,"
    "\"ts\":150,\"dur\":1,\"args\":{\"correlation\":6}}\n"
    "]}\n";

static void test_title_sizes(void) {
  const char *path = write_tmp(titles);
  struct pl_trace_set *s = analyze1(path, -1, true);
  unlink(path);
  if (s == NULL)
    return;
  const struct pl_trace_rank *r = &s->ranks[0];
  CHECK_EQ_INT(r->n_coll, 1);
  if (r->n_coll == 1) {
    /* 6 calls, 3 sized: (12 + 32 + 8 x 4) / 3 = 76 / 3 B */
    CHECK_STR(r->coll[0].op, "all_reduce");
    CHECK_NEAR_REL(r->coll[0].count, 6, 0);
    CHECK_NEAR_REL(r->coll[0].sized_calls, 3, 0);
    CHECK_NEAR_REL(r->coll[0].bytes, 76.0 / 3.0, 1e-12);
  }
  pl_trace_set_free(s);
  /* dlrm worker 0 (PyTorch of 2023, no "Collective name"): all_reduce of
   * 394241, 112 and 226960 float = 4 x 621313 / 3 = 828417.33 B per call;
   * all_to_all of 6144 float, 24 "long int", 384 int, 3392 int, 6144 float
   * = (24576 + 192 + 1536 + 13568 + 24576) / 5 = 12889.6 B per call */
  s = analyze1(TR "dlrm/worker0_step_12.1694128201545.pt.trace.json.gz", -1, false);
  if (s == NULL)
    return;
  r = &s->ranks[0];
  CHECK_EQ_INT(r->n_coll, 2);
  for (int i = 0; i < r->n_coll; i++) {
    if (strcmp(r->coll[i].op, "all_reduce") == 0)
      CHECK_NEAR_REL(r->coll[i].bytes, 4.0 * 621313 / 3, 1e-12);
    else {
      CHECK_STR(r->coll[i].op, "all_to_all");
      CHECK_NEAR_REL(r->coll[i].bytes, 12889.6, 1e-12);
    }
  }
  pl_trace_set_free(s);
}

static const char *dlrm[8] = {
    TR "dlrm/worker0_step_12.1694128201545.pt.trace.json.gz",
    TR "dlrm/worker1_step_12.1694128201556.pt.trace.json.gz",
    TR "dlrm/worker2_step_12.1694128201554.pt.trace.json.gz",
    TR "dlrm/worker3_step_12.1694128201557.pt.trace.json.gz",
    TR "dlrm/worker4_step_12.1694128201547.pt.trace.json.gz",
    TR "dlrm/worker5_step_12.1694128201549.pt.trace.json.gz",
    TR "dlrm/worker6_step_12.1694128201553.pt.trace.json.gz",
    TR "dlrm/worker7_step_12.1694128201553.pt.trace.json.gz",
};

/* The 8-rank DLRM set: same numbers with 1 and 4 threads; a missing rank named. */
static void test_rank_set(void) {
  struct pl_trace_opts o1 = {-1, 1, false}, o4 = {-1, 4, false};
  struct pl_trace_set *a = NULL, *b = NULL, *c = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_analyze(dlrm, 8, &o1, &a, &d), PL_OK, diag_ptr(&d));
  CHECK_STATUS(pl_trace_analyze(dlrm, 8, &o4, &b, &d), PL_OK, diag_ptr(&d));
  if (a != NULL && b != NULL) {
    CHECK_EQ_INT(a->n_ranks, 8);
    CHECK_EQ_INT(a->n_missing, 0);
    for (int i = 0; i < 8; i++) {
      CHECK_EQ_INT(a->ranks[i].rank, i);
      CHECK(memcmp(&a->ranks[i].span_s, &b->ranks[i].span_s,
                   sizeof(double) * 10) == 0); /* span_s .. cpu_step_s, bit for bit */
      check_identity(&a->ranks[i]);
    }
    CHECK(a->step_time_s.mean == b->step_time_s.mean);
    CHECK(a->straggler_rank == b->straggler_rank && a->straggler_rank >= 0);
    CHECK(a->step_time_s.min <= a->step_time_s.mean && a->step_time_s.mean <= a->step_time_s.max);
  }
  const char *seven[7];
  for (int i = 0; i < 7; i++)
    seven[i] = dlrm[i < 5 ? i : i + 1]; /* without rank 5 */
  CHECK_STATUS(pl_trace_analyze(seven, 7, &o4, &c, &d), PL_OK, diag_ptr(&d));
  if (c != NULL) {
    CHECK_EQ_INT(c->n_missing, 1);
    if (c->n_missing == 1)
      CHECK_EQ_INT(c->missing[0], 5);
  }
  pl_trace_set_free(a);
  pl_trace_set_free(b);
  pl_trace_set_free(c);
}

/* One file, GPU events of two pids (a predicted pp=2 trace): one rank per
 * pid over the file's step window (docs/trace.md 8). One step [0, 100) us on
 * the CPU; pid 0 computes [10, 20), pid 1 [40, 60); a kernel without a pid
 * [20, 25) goes with the first pid. Window: first GPU start 10 to last end
 * 60 = 50 us for both. pid 0: compute 15, idle 35; pid 1: compute 20, idle 30. */
static void test_split_pids(void) {
  const char *path = write_tmp(
      "{\"distributedInfo\": {\"rank\": 0, \"world_size\": 2}, \"traceEvents\": [\n"
      " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 9,"
      "  \"tid\": 1, \"ts\": 0, \"dur\": 100},\n"
      " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"a\", \"pid\": 0, \"tid\": 7, \"ts\": 10,"
      "  \"dur\": 10, \"args\": {\"correlation\": 1}},\n"
      " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"b\", \"pid\": 1, \"tid\": 7, \"ts\": 40,"
      "  \"dur\": 20, \"args\": {\"correlation\": 2}},\n"
      " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"c\", \"tid\": 7, \"ts\": 20, \"dur\": 5},\n"
      " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"l\", \"pid\": 9, \"tid\": 1, \"ts\": 5,"
      "  \"dur\": 1, \"args\": {\"correlation\": 1}},\n"
      " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"l\", \"pid\": 9, \"tid\": 1, \"ts\": 6,"
      "  \"dur\": 1, \"args\": {\"correlation\": 2}}]}\n");
  struct pl_trace_set *s = analyze1(path, -1, false);
  if (s != NULL && s->n_ranks == 2) {
    for (int i = 0; i < 2; i++) {
      const struct pl_trace_rank *r = &s->ranks[i];
      CHECK_EQ_INT(r->gpu_pid, i);
      CHECK_EQ_INT(r->rank, 0);
      CHECK_EQ_INT(r->gpu_devices, 2);
      CHECK_NEAR_REL(r->span_s, 50e-6, 1e-12);
      CHECK_NEAR_REL(r->compute_s, i == 0 ? 15e-6 : 20e-6, 1e-12);
      CHECK_NEAR_REL(r->idle_s, i == 0 ? 35e-6 : 30e-6, 1e-12);
    }
    CHECK_EQ_INT(s->ranks[0].gpu_events, 2);
    CHECK_EQ_INT(s->ranks[0].unlinked_events, 1); /* the kernel without a correlation */
    CHECK_EQ_INT(s->n_missing, 0);                /* one file: no missing ranks */
    CHECK_EQ_INT(s->duplicate_rank, -1);          /* one file's split is not a duplicate */
  } else {
    CHECK(s != NULL && s->n_ranks == 2);
  }
  pl_trace_set_free(s);
  unlink(path);
}

/* NCCL/RCCL kernels: "nccl" or "rccl" anywhere, any case (docs/trace.md 1). */
static void test_comm_names(void) {
  static const struct {
    const char *name;
    bool comm;
  } k[] = {
      {"nccl", true},  {"ncclDevKernel_AllGather_RING_LL", true}, {"xRCCL", true},
      {"void NcClKernel<4>", true}, {"fused_nccl", true}, {"rccl", true},
      {"ncc", false}, {"ccl", false}, {"accl_kernel", false}, {"NCCL", true},
      {"sm90_xmma_gemm_bf16bf16", false}, {"ncCcl", false}, {"cnccl_", true},
      {"multimem_all_reduce_kernel", false}, {"", false},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    CHECK(trace_is_comm_kernel(k[i].name, strlen(k[i].name)) == k[i].comm);
}

/* Compute-kernel categories by name (src/trace/kcat.c, docs/trace.md 3.5):
 * real names, as the repository's traces hold them (cut at 160 bytes where
 * the reader cuts them) or as the library sources declare them. The
 * expected category of each is the library's job for that kernel. */
static void test_kernel_categories(void) {
  static const struct {
    const char *name;
    enum pl_trace_kcat cat;
  } k[] = {
      /* gt_h100 trace: cuDNN SDPA and its FlashAttention-2-style helpers, all
       * launched by aten::_cudnn_attention_backward (the second was gemm:
       * "conv" in "convert") */
      {"cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_26_64x64x64_1x4x1_"
       "cga1x1x1_kernel0_0",
       PL_TK_ATTENTION},
      {"void cudnn::fusion::compute_dot_do_o_specialized<true, 64>(void const*, void const*, "
       "void*, void*, unsigned int)",
       PL_TK_ATTENTION},
      {"void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*, unsigned int)",
       PL_TK_ATTENTION},
      {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", PL_TK_GEMM},
      /* tracelens_b200_eager: vLLM's RMSNorm (was gemm: _typeConvert), the
       * TensorRT-LLM MoE finalize (was gemm: cutlass::bfloat16_t), trtllm-gen
       * batched GEMMs (were other_compute), RoPE and FP8 quantization */
      {"std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, void>::type "
       "vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16*, long",
       PL_TK_REDUCTION},
      {"void moe::dev::finalize::finalizeKernelVecLoad<moe::dev::finalize::KernelParams<"
       "cutlass::bfloat16_t, cutlass::bfloat16_t, 4, true> >(moe::dev::finalize::KernelParams)",
       PL_TK_ELEMENTWISE},
      {"bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_"
       "TN_transOut_schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f",
       PL_TK_GEMM},
      {"void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*)",
       PL_TK_ELEMENTWISE},
      {"void vllm::scaled_fp8_quant_kernel_strided<c10::BFloat16, c10::Float8_e4m3fn>(float)",
       PL_TK_ELEMENTWISE},
      /* CUTLASS GEMM and FlashAttention with a cutlass:: type argument */
      {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>(cutlass_80_"
       "tensorop_s1688gemm_256x64_16x4_tn_align1::Params)",
       PL_TK_GEMM},
      {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, "
       "4, false, false, cutlass::bfloat16_t> >(pytorch_flash::Flash_fwd_params)",
       PL_TK_ATTENTION},
      /* cuDNN convolution, batch norm and layout kernels (kineto2021, HTA's
       * ns_resolution trace: launched by aten::cudnn_convolution,
       * aten::convolution_backward, aten::cudnn_batch_norm[_backward]); the
       * FFT kernel was reduction by cudnn::reduced_divisor, cut at 160 bytes */
      {"volta_scudnn_128x64_relu_interior_nn_v1", PL_TK_GEMM},
      {"cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", PL_TK_GEMM},
      {"void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_"
       "nonfused::WinogradDataParams<float, float>)",
       PL_TK_GEMM},
      {"void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>(float, float)",
       PL_TK_REDUCTION},
      {"void cudnn::bn_fw_tr_1C11_singleread<float, 512, true, 1, 2, 0>(cudnn::bn_fw_tr_1C11_args<"
       "float>)",
       PL_TK_REDUCTION},
      {"void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, (cudnnKernelDataType_t)"
       "2>(cudnn::ops::nchw2nhwc_params_t<float>, float const*, float*)",
       PL_TK_ELEMENTWISE},
      {"void fft2d_c2r_32x32<float, false, false, 0u, false, false>(float*, float2 const*, int, int, "
       "int, int, int, int, int, int, int, float, float, cudnn::reduced_div",
       PL_TK_OTHER_COMPUTE},
      /* ATen */
      {"void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float "
       "const*)",
       PL_TK_REDUCTION},
      {"void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long)",
       PL_TK_REDUCTION},
      {"void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float)",
       PL_TK_REDUCTION},
      {"void at::native::(anonymous namespace)::fused_dropout_kernel_vec<float, float, unsigned int, "
       "1, 4, bool>(at::cuda::detail::TensorInfo<float, unsigned int>)",
       PL_TK_ELEMENTWISE},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
       "namespace)::TensorListMetadata<4>",
       PL_TK_ELEMENTWISE},
      {"void at_cuda_detail::cub::detail::radix_sort::DeviceRadixSortOnesweepKernel<long>", PL_TK_OTHER_COMPUTE},
      /* MIOpen (tracelens_mi300) */
      {"batched_transpose_16x32_half", PL_TK_ELEMENTWISE},
      /* FBGEMM (HTA's sampled traces): the library's own name is no GEMM */
      {"void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, false, "
       "long, 2ul, 32ul>(at::GenericPackedTensorAccessor<c10::Half, 1ul>)",
       PL_TK_ELEMENTWISE},
      {"void fbgemm_gpu::permute_2D_data_kernel<false, int, int, decltype(nullptr)>(int, int, int)",
       PL_TK_ELEMENTWISE},
      /* TransformerEngine v2.8 transformer_engine/common (kernel identifiers as
       * declared: rmsnorm_fwd_kernels.cuh, cast_transpose.cu,
       * cast_transpose_fusion.cu, dequantize_kernels.cuh, fused_rope.cu,
       * permutation.cu, padding.cu, fused_topk_with_score_function.cu,
       * scaled_upper_triang_masked_softmax.cu, recipe/current_scaling.cu) */
      {"void transformer_engine::normalization::rmsnorm_fwd_tuned_kernel<", PL_TK_REDUCTION},
      {"void transformer_engine::(anonymous namespace)::cast_transpose_optimized_kernel<",
       PL_TK_ELEMENTWISE},
      {"void transformer_engine::dgated_act_cast_transpose_kernel<", PL_TK_ELEMENTWISE},
      {"void transformer_engine::dequantization::dequantize_mxfp8_kernel<", PL_TK_ELEMENTWISE},
      {"void transformer_engine::fused_rope_forward_kernel<__nv_bfloat16>", PL_TK_ELEMENTWISE},
      {"void moe_permute_row_map(int const*, int*, int, int, int)", PL_TK_ELEMENTWISE},
      {"void transformer_engine::multi_padding_kernel<", PL_TK_ELEMENTWISE},
      {"void transformer_engine::fused_topk_with_score_function_forward_kernel<float>",
       PL_TK_ELEMENTWISE},
      {"void scaled_upper_triang_masked_softmax_warp_forward<__nv_bfloat16>", PL_TK_REDUCTION},
      {"void transformer_engine::(anonymous namespace)::amax_kernel<8, true, __nv_bfloat16>",
       PL_TK_REDUCTION},
      /* not collectives by the name rule (docs/trace.md 1): TE's
       * userbuffers reduce-scatter and DeepEP's dispatch run as compute */
      {"void transformer_engine::userbuffers_fp16_sum_inplace_gpu_rr_rs_oop<8>(int, int)",
       PL_TK_OTHER_COMPUTE},
      {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*, int*)", PL_TK_OTHER_COMPUTE},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    enum pl_trace_kcat c = trace_kcat_of(k[i].name, TRACE_COMPUTE, TRACE_OP_UNKNOWN);
    if (c != k[i].cat)
      fprintf(stderr, "kernel %zu (%.50s): %s, want %s\n", i, k[i].name, pl_trace_kcat_name(c),
              pl_trace_kcat_name(k[i].cat));
    CHECK(c == k[i].cat);
  }
}

static void test_names(void) {
  CHECK_EQ_INT(trace_rank_from_path("/x/rank-3.json.gz"), 3);
  CHECK_EQ_INT(trace_rank_from_path("trace_rank12_step4.json"), 12);
  CHECK_EQ_INT(trace_rank_from_path("worker0.json"), -1);
  CHECK_EQ_INT(trace_op_from_collective("_reduce_scatter_base", 20), TRACE_OP_REDUCE_SCATTER);
  CHECK_EQ_INT(trace_op_from_kernel("ncclKernel_AllReduce_RING_LL_Sum_float", 38),
               TRACE_OP_ALL_REDUCE);
  CHECK_EQ_INT(trace_op_from_kernel("ncclDevKernel_Generic(x)", 24), TRACE_OP_UNKNOWN);
  {
    /* NCCL's kernel names, 2.18 to 2.29: ncclKernel_<coll>_<algo>_<proto>_<redop>_<ty>
     * (v2.18.1 src/collectives/device/common.h IMPL_COLL_KERN),
     * ncclDevKernel_<coll>[_<redop>_<ty>]_<algo>_<proto> (v2.19.3..v2.29.2
     * src/device/generate.py), ncclSymDevKernel_ (v2.27.3) and
     * ncclSymkDevKernel_<coll>_<algo>[_<redop>_<ty>] (v2.28.3, v2.29.2
     * src/device/symmetric/generate.py kernel_cname) */
    static const struct {
      const char *name;
      enum trace_op op;
    } n[] = {
        {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*)", TRACE_OP_SEND_RECV},
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
         TRACE_OP_ALL_REDUCE},
        {"ncclDevKernel_ReduceScatter_Sum_f32_RING_SIMPLE", TRACE_OP_REDUCE_SCATTER},
        {"ncclDevKernel_Reduce_Sum_f32_RING_LL", TRACE_OP_REDUCE},
        {"ncclDevKernel_Broadcast_RING_LL", TRACE_OP_BROADCAST},
        {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", TRACE_OP_SEND_RECV},
        {"ncclSymDevKernel_AllGather_LL(ncclSymDevArgs)", TRACE_OP_ALL_GATHER},
        {"ncclSymkDevKernel_AllReduce_RSxLDMC_AGxSTMC_sum_bf16", TRACE_OP_ALL_REDUCE},
        {"ncclSymkDevKernel_ReduceScatter_LD_sum_f32", TRACE_OP_REDUCE_SCATTER},
        {"ncclSymkDevKernel_AllGather_GinHier_MCRing", TRACE_OP_ALL_GATHER},
    };
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
      CHECK(trace_is_comm_kernel(n[i].name, strlen(n[i].name)));
      CHECK_EQ_INT(trace_op_from_kernel(n[i].name, strlen(n[i].name)), n[i].op);
    }
  }
  CHECK_EQ_INT(trace_dtype_bytes("c10::BFloat16", 13), 2);
  CHECK_EQ_INT(trace_dtype_bytes("Float8_e4m3fn", 13), 1);
  CHECK_EQ_INT(trace_dtype_bytes("long int", 8), 8); /* older profilers' C++ names */
  CHECK_EQ_INT(trace_dtype_bytes("unsigned char", 13), 1);
  CHECK_EQ_INT(trace_dtype_bytes("short int", 9), 2);
  CHECK_EQ_INT(trace_dtype_bytes("long", 4), 8);
  /* nccl-tests factors: all_reduce 2(n-1)/n = 1.75 for n = 8 */
  CHECK_NEAR_REL(trace_bus_factor(TRACE_OP_ALL_REDUCE, 8), 1.75, 0);
  CHECK_NEAR_REL(trace_bus_factor(TRACE_OP_REDUCE_SCATTER, 8), 0.875, 0);
  CHECK_EQ_INT(pl_trace_default_skip(60), 10); /* the study: 10 of 60 */
  CHECK_EQ_INT(pl_trace_default_skip(6), 1);
  CHECK_EQ_INT(pl_trace_default_skip(1), 0);
}

int main(void) {
  test_intervals();
  test_exact_times();
  test_synthetic();
  test_call_overlap();
  test_schemas();
  test_collective_args();
  test_title_sizes();
  test_rank_set();
  test_names();
  test_comm_names();
  test_kernel_categories();
  test_split_pids();
  test_memory_input();
  test_time_limits();
  return check_finish();
}
