/* fuzz_trace.c: libFuzzer target for the Kineto trace reader and analyzers
 * (src/trace/), plain and gzip, through the same streaming path as files
 * (trace_input_open_mem feeds input.c's chunk loop).
 *
 * Each input is run four ways, and the runs must agree:
 *   1. the bytes as given, in 256 KiB chunks (the production chunk size);
 *   2. the same bytes in tiny chunks (1..61 bytes, chosen from the input), so
 *      every token, escape and gzip block straddles chunk boundaries;
 *   3. when the bytes are not gzip: gzip-compressed here (as one member, or
 *      two concatenated members when the input's length is odd) and read in
 *      tiny chunks, so the inflate loop sees meaningful JSON;
 *   4. the public pl_trace_analyze_mem with options chosen from the input
 *      (skip -1..1, per-step or whole-trace windows): set.c's across-rank
 *      code.
 *   5. the bytes read with a launch budget of 4 records (spill.c: launches
 *      beyond it go to a temporary file in sorted runs, merged at link time).
  6. the bytes read with launch and GPU-record budgets of 4 records each
 *      (gspill.c: GPU records go to a temporary file, measured by a sweep over
 *      sorted runs): the rank analysis must equal the in-memory one exactly.
 * Runs 1-3 and 5 must succeed or fail together and, on success, parse the same
 * events; run 5 must link every GPU event as run 1 does. Every successful analysis must satisfy docs/trace.md section 3:
 * finite non-negative metrics, compute + exposed comm + exposed memory +
 * idle = span, overlapped <= comm. A violation aborts, which libFuzzer and the
 * ctest replay (replay_main.c) report as a failure.
 *
 * Seed corpus (tests/fuzz/corpus/fuzz_trace/): snippets of the real traces in
 * tests/data/traces (SOURCES.md there): one step's launches, their kernels,
 * flows, record_param_comms and recompute frames, with trimmed deviceProperties
 * and without unused args: rocm_rpc_recompute (tracelens_mi300),
 * kineto2021 (2021 schema), nccl_kernel_args (hta_nccl_data), dlrm_flows.json.gz
 * (dlrm worker0), b200_no_steps (tracelens_b200); triton.json.gz and
 * cpu_only.json.gz are whole files, two_members.json.gz is triton twice
 * (concatenated gzip members). synthetic.json is test_trace.c's hand-built
 * trace plus record_param_comms, recompute and a memset. bad_* are the
 * errors of tests/cli/trace_errors.sh in small; edge_* sit on the time
 * parser's limits; found-* are what fuzzing found (each fixed). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <plateau/plateau.h>

#include "trace/trace_int.h"

/* Inputs beyond this are cut: libFuzzer's default max_len is 4096, corpus
 * files are < 50 KB, and gzip-wrapping larger inputs only costs time. */
#define MAX_INPUT (1u << 20)

static void die(const char *what) {
  fprintf(stderr, "fuzz_trace: invariant broken: %s\n", what);
  abort();
}

/* gzip of data (two members when split > 0), in a malloc'd buffer. */
static unsigned char *gzip_of(const uint8_t *data, size_t size, size_t split, size_t *out_len) {
  size_t cap = 2 * (compressBound((uLong)size) + 64), n = 0;
  unsigned char *out = malloc(cap);
  size_t parts[2] = {split, size - split};
  const uint8_t *p = data;
  for (int m = 0; out != NULL && m < 2; m++) {
    if (m == 1 && split == 0)
      break;
    size_t len = m == 0 && split == 0 ? size : parts[m];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      die("deflateInit2");
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)len;
    z.next_out = out + n;
    z.avail_out = (uInt)(cap - n);
    if (deflate(&z, Z_FINISH) != Z_STREAM_END)
      die("deflate");
    n = cap - z.avail_out;
    deflateEnd(&z);
    p += len;
  }
  *out_len = n;
  return out;
}

static bool same_vec(const struct trace_vec *a, const struct trace_vec *b, size_t elem) {
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len * elem) == 0);
}

/* The reader's output must not depend on how the bytes were chunked. */
static void compare(const struct trace_data *a, const struct trace_data *b) {
  if (!same_vec(&a->gpu, &b->gpu, sizeof(struct trace_gpu)) ||
      !same_vec(&a->corr, &b->corr, sizeof(int64_t)) ||
      !same_vec(&a->comm, &b->comm, sizeof(struct trace_comm)) ||
      !same_vec(&a->launches, &b->launches, sizeof(struct trace_launch)) ||
      !same_vec(&a->steps, &b->steps, sizeof(struct trace_span)) ||
      !same_vec(&a->recompute, &b->recompute, sizeof(struct trace_span)) ||
      !same_vec(&a->colls, &b->colls, sizeof(struct trace_coll)))
    die("events differ between chunk sizes or plain/gzip");
  if (a->rank != b->rank || a->world_size != b->world_size || a->base_ns != b->base_ns ||
      a->n_events != b->n_events || a->raw_bytes != b->raw_bytes ||
      strcmp(a->device, b->device) != 0)
    die("trace header fields differ between chunk sizes or plain/gzip");
}

static void check_value(double v) {
  if (!isfinite(v) || v < 0)
    die("a metric is negative, infinite or NaN");
}

static void check_colls(const struct pl_trace_rank *r) {
  for (int i = 0; i < r->n_coll; i++) {
    const struct pl_trace_coll *c = &r->coll[i];
    double cv[] = {c->count, c->bytes, c->time_s, c->algbw_bytes_per_s, c->busbw_bytes_per_s};
    for (size_t k = 0; k < sizeof cv / sizeof cv[0]; k++)
      check_value(cv[k]);
  }
}

static void check_rank(const struct pl_trace_rank *r) {
  double v[] = {r->span_s,       r->compute_s,        r->comm_s,  r->overlapped_comm_s,
                r->exposed_comm_s, r->memory_s,       r->exposed_memory_s, r->idle_s,
                r->recompute_s,  r->cpu_step_s};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    check_value(v[i]);
  if (!r->has_gpu) /* CPU-only: span is the CPU step time, GPU metrics 0 */
    return;
  /* integer ns divided by the step count: equal up to double rounding */
  double sum = r->compute_s + r->exposed_comm_s + r->exposed_memory_s + r->idle_s;
  if (fabs(sum - r->span_s) > 1e-9 * r->span_s + 1e-15)
    die("compute + exposed comm + exposed memory + idle != span");
  if (r->overlapped_comm_s > r->comm_s * (1 + 1e-12) || r->steps < 1)
    die("overlapped > comm, or no steps");
  check_colls(r);
}

static void check_set(const struct pl_trace_set *s) {
  if (s->n_ranks < 1 || s->n_ranks > TRACE_MAX_DEVICES)
    die("one buffer must give one rank, or one per GPU pid");
  for (int i = 0; i < s->n_ranks; i++)
    check_rank(&s->ranks[i]);
  for (int i = 0; i < s->n_coll; i++)
    check_value(s->coll[i].busbw_bytes_per_s);
  check_value(s->step_time_s.mean);
}

/* Read data with the given chunk size; on success, analyze it per step. */
static enum pl_status run(const void *data, size_t size, size_t chunk, struct trace_data *d) {
  memset(d, 0, sizeof *d);
  struct pl_diag diag;
  pl_diag_clear(&diag);
  enum pl_status s = trace_read_mem(data, size, "fuzz", chunk, d, &diag);
  if (s != PL_OK && diag.msg[0] == '\0')
    die("an error without a message");
  return s;
}

/* Run 5: the same links from spilled launches as from launches in memory. */
static void spilled(const void *data, size_t size, struct trace_data *a) {
  struct trace_data b;
  memset(&b, 0, sizeof b);
  b.spill_budget_bytes = 4 * (int64_t)sizeof(struct trace_launch);
  struct pl_diag diag;
  pl_diag_clear(&diag);
  if (trace_read_mem(data, size, "fuzz", 0, &b, &diag) != PL_OK)
    die("a spilling read failed where the in-memory read succeeded");
  if (trace_link(a, &diag) == PL_OK && trace_link(&b, &diag) == PL_OK &&
      (!same_vec(&a->gpu, &b.gpu, sizeof(struct trace_gpu)) ||
       !same_vec(&a->comm, &b.comm, sizeof(struct trace_comm))))
    die("spilled launches link differently");
  trace_data_free(&b);
}

/* Run 6: every GPU record spilled as well: the same analysis, to the bit. */
static bool same_rank(const struct pl_trace_rank *x, const struct pl_trace_rank *y) {
  const double a[] = {x->span_s, x->compute_s, x->comm_s, x->overlapped_comm_s,
                      x->exposed_comm_s, x->memory_s, x->exposed_memory_s, x->idle_s,
                      x->recompute_s, x->cpu_step_s};
  const double b[] = {y->span_s, y->compute_s, y->comm_s, y->overlapped_comm_s,
                      y->exposed_comm_s, y->memory_s, y->exposed_memory_s, y->idle_s,
                      y->recompute_s, y->cpu_step_s};
  if (memcmp(a, b, sizeof a) != 0 || x->steps != y->steps || x->gpu_events != y->gpu_events ||
      x->unlinked_events != y->unlinked_events || x->n_coll != y->n_coll ||
      x->n_calls != y->n_calls)
    return false;
  for (int i = 0; i < x->n_coll; i++)
    if (x->coll[i].count != y->coll[i].count || x->coll[i].time_s != y->coll[i].time_s ||
        x->coll[i].bytes != y->coll[i].bytes)
      return false;
  return true;
}

static enum pl_status rank_of(const void *data, size_t size, int64_t budget_records,
                              struct pl_trace_rank *r) {
  struct trace_data d;
  memset(&d, 0, sizeof d);
  memset(r, 0, sizeof *r);
  d.spill_budget_bytes = budget_records * (int64_t)sizeof(struct trace_launch);
  d.gpu_budget_bytes = budget_records * (int64_t)sizeof(struct trace_grec);
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_diag diag;
  pl_diag_clear(&diag);
  enum pl_status s = trace_read_mem(data, size, "fuzz", 0, &d, &diag);
  if (s == PL_OK)
    s = trace_rank_analyze(&d, "fuzz", &o, true, r, &diag);
  trace_data_free(&d);
  return s;
}

static void gpu_spilled(const void *data, size_t size) {
  struct pl_trace_rank x, y;
  enum pl_status sx = rank_of(data, size, 0, &x), sy = rank_of(data, size, 4, &y);
  if ((sx == PL_OK) != (sy == PL_OK))
    die("success differs with GPU records spilled");
  if (sx == PL_OK && !same_rank(&x, &y))
    die("spilled GPU records give another analysis");
  trace_rank_free(&x); /* collectives, calls, kernels, streams, arrivals */
  trace_rank_free(&y);
}

static void analyze(struct trace_data *d) {
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_rank r;
  struct pl_diag diag;
  pl_diag_clear(&diag);
  memset(&r, 0, sizeof r);
  if (trace_rank_analyze(d, "fuzz", &o, true, &r, &diag) == PL_OK)
    check_rank(&r);
  for (int64_t i = 0; i < r.n_calls; i++)
    check_value(r.calls[i].bytes), check_value(r.calls[i].time_s);
  trace_rank_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > MAX_INPUT)
    size = MAX_INPUT;
  size_t tiny = 1 + (size > 0 ? data[size - 1] % 61 : 0);
  struct trace_data a, b;
  enum pl_status sa = run(data, size, 0, &a);
  enum pl_status sb = run(data, size, tiny, &b);
  /* Success must not depend on chunking. Which error comes first may: a
   * corrupt gzip member fails its CRC only at its end, which a big chunk
   * reaches before the JSON error inside it that small chunks hit first. */
  if ((sa == PL_OK) != (sb == PL_OK))
    die("success differs between chunk sizes");
  if (sa == PL_OK)
    compare(&a, &b);
  trace_data_free(&b);
  bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  if (!gz && size > 0) {
    size_t zlen;
    unsigned char *z = gzip_of(data, size, size % 2 ? size / 2 : 0, &zlen);
    if (z != NULL) {
      enum pl_status sz = run(z, zlen, tiny, &b);
      if ((sz == PL_OK) != (sa == PL_OK))
        die("success differs between plain and gzip");
      if (sz == PL_OK)
        compare(&a, &b);
      trace_data_free(&b);
      free(z);
    }
  }
  if (sa == PL_OK)
    spilled(data, size, &a);
  if (sa == PL_OK)
    gpu_spilled(data, size);
  if (sa == PL_OK)
    analyze(&a);
  trace_data_free(&a);
  struct pl_trace_opts o = {(int64_t)(size % 3) - 1, 1, size % 2 == 1};
  struct pl_trace_set *s = NULL;
  struct pl_diag diag;
  pl_diag_clear(&diag);
  if (pl_trace_analyze_mem(data, size, "fuzz", &o, &s, &diag) == PL_OK)
    check_set(s);
  else if (diag.msg[0] == '\0')
    die("an error without a message");
  pl_trace_set_free(s);
  return 0;
}
