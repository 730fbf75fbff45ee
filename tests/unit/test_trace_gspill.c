/* test_trace_gspill.c: GPU events spilled to temporary files (src/trace/
 * gspill.c: linked there, measured by one sweep over runs sorted by start)
 * give exactly the results of the in-memory path (interval lists). Every
 * shipped trace (tests/data/traces, SOURCES.md there) and the generated
 * multi-step trace of test_trace_spill.c (kernels before their launches,
 * flows apart from runtime calls, a correlation with two kernels, recompute
 * frames, collectives found by External id and by time) are analyzed with
 * the default budgets (nothing spills: they are small) and with GPU budgets
 * of 4 to 128 records, alone and with launches spilled too (also on a
 * variant whose kernels run on two GPUs); every number of
 * every rank, collective and call must be identical, and so must the linked
 * records themselves. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "alloc_inject.h"
#include "check.h"
#include "trace/trace_int.h"

#define TR PL_TEST_DATA "/traces/"

/* A pointer CHECK_STATUS can test for NULL without -Waddress. */
static struct pl_diag *diag_ptr(struct pl_diag *d) { return d; }

static const char *const shipped[] = {
    TR "hta_alexnet_no_steps.json.gz",
    TR "hta_amd_mi250_minitoy.json.gz",
    TR "hta_cpu_only_rank-34.json.gz",
    TR "hta_nccl_data.json.gz",
    TR "hta_sampled_rank-0.json.gz",
    TR "hta_triton_example.json",
    TR "hta_triton_example.json.gz",
    TR "kineto2021_resnet50_worker0.json.gz",
    TR "tracelens_b200_eager.json.gz",
    TR "tracelens_h100_bert_small.json.gz",
    TR "tracelens_mi300_resnet_act_checkpoint.json.gz",
    TR "dlrm", /* 8 ranks */
};

/* Set: the kernels of every fifth launch run on a second GPU (pid 3), so
 * the file is two ranks, measured one device at a time (set.c). */
static bool two_devices;

static void launch(FILE *f, int64_t corr, double ts, int tid, int64_t ext) {
  fprintf(f,
          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
          "\"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": 4, \"args\": {\"External id\": %lld, "
          "\"correlation\": %lld}},\n",
          tid, ts, (long long)ext, (long long)corr);
}

static void flow(FILE *f, int64_t corr, double ts, int tid) {
  fprintf(f,
          "{\"ph\": \"s\", \"id\": %lld, \"pid\": 1, \"tid\": %d, \"ts\": %.3f, "
          "\"cat\": \"ac2g\", \"name\": \"ac2g\"},\n",
          (long long)corr, tid, ts);
}

static void kernel(FILE *f, int64_t corr, double ts, int i) {
  const char *name = i % 6 == 5   ? "ncclDevKernel_Generic"
                     : i % 6 == 4 ? "Memcpy DtoD (Device -> Device)"
                                  : "void gemm_kernel<128>(Params)";
  fprintf(f,
          "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
          "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"device\": 0, \"stream\": %d, "
          "\"correlation\": %lld}},\n",
          i % 6 == 4 ? "gpu_memcpy" : "kernel", name, two_devices && i % 5 == 1 ? 3 : 0,
          i % 6 == 5 ? 20 : 7, ts, 12.5 + (i % 3) * 7.0, i % 6 == 5 ? 20 : 7, (long long)corr);
}

/* One step: 24 launches in the orders a trace may hold them. */
static void gen_step(FILE *f, int s) {
  double t0 = 1e6 + s * 1000.0;
  fprintf(f,
          "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, "
          "\"tid\": 1, \"ts\": %.3f, \"dur\": 900}, \n",
          s, t0);
  fprintf(f,
          "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/utils/"
          "checkpoint.py(100): recompute_fn\", \"pid\": 1, \"tid\": 1, \"ts\": %.3f, "
          "\"dur\": 100}, \n",
          t0 + 250);
  for (int i = 0; i < 24; i++) {
    int64_t corr = (int64_t)s * 100 + i, ext = i % 2 ? 5000 + corr : -1;
    double lt = t0 + 10 + i * 30.0, gt = t0 + 60 + i * 29.0;
    int tid = i % 7 == 0 ? 2 : 1;
    if (i % 6 == 5) /* the collective around the launch */
      fprintf(f,
              "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", "
              "\"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": 10, \"args\": {\"External id\": "
              "%lld, \"Collective name\": \"%s\", \"In msg nelems\": %d, \"Out msg nelems\": "
              "%d, \"dtype\": \"Float\", \"Group size\": 8}},\n",
              tid, lt - 2, (long long)(5000 + corr), i % 12 == 5 ? "_allgather_base" : "allreduce",
              1000 * (i + s), 1000 * (i + s));
    switch (i % 4) {
    case 0: /* runtime, flow (or later, at the step's end), kernel */
      launch(f, corr, lt, tid, ext);
      if (i % 5)
        flow(f, corr, lt, tid);
      kernel(f, corr, gt, i);
      break;
    case 1: /* the kernel before its launch */
      kernel(f, corr, gt, i);
      launch(f, corr, lt, tid, ext);
      flow(f, corr, lt, tid);
      break;
    case 2: /* flow first, kernel, runtime */
      flow(f, corr, lt, tid);
      kernel(f, corr, gt, i);
      launch(f, corr, lt, tid, ext);
      break;
    default: /* kernel, flow, no runtime call except for every other one */
      kernel(f, corr, gt, i);
      flow(f, corr, lt + 1, tid);
      if (i % 8 == 3)
        launch(f, corr, lt, tid, ext);
    }
    if (i == 6) /* a graph: a second kernel of the same correlation */
      kernel(f, corr, gt + 15, i);
    if (i == 13) /* a second runtime call of one correlation, later */
      launch(f, corr, lt + 3, tid, -1);
  }
  for (int i = 0; i < 24; i += 20) /* flows apart from their runtime calls */
    flow(f, (int64_t)s * 100 + i, t0 + 10 + i * 30.0, i % 7 == 0 ? 2 : 1);
}

static const char *gen_trace(void) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/pl_test_trace_gspill_XXXXXX");
  int fd = mkstemp(path);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (f == NULL)
    return NULL;
  fprintf(f, "{\"schemaVersion\": 1, \"distributedInfo\": {\"rank\": 0, \"world_size\": 8},\n"
             "\"traceEvents\": [\n");
  for (int s = 1; s <= 14; s++)
    gen_step(f, s);
  fprintf(f, "{\"ph\": \"i\", \"name\": \"end\", \"ts\": 2e6}\n]}\n");
  fclose(f);
  return path;
}

#define SAME(f) same &= memcmp(&a->f, &b->f, sizeof a->f) == 0
static bool same_coll(const struct pl_trace_coll *a, const struct pl_trace_coll *b) {
  bool same = strcmp(a->op, b->op) == 0;
  SAME(group_size);
  SAME(count);
  SAME(bytes);
  SAME(time_s);
  SAME(algbw_bytes_per_s);
  SAME(busbw_bytes_per_s);
  SAME(sized_calls);
  SAME(sized_bytes);
  SAME(sized_time_s);
  SAME(bus_bytes);
  return same;
}

static bool same_call(const struct pl_trace_call *a, const struct pl_trace_call *b) {
  bool same = strcmp(a->op, b->op) == 0;
  SAME(group_size);
  SAME(group_start);
  SAME(group_stride);
  SAME(bytes);
  SAME(time_s);
  return same;
}

static bool same_rank(const struct pl_trace_rank *a, const struct pl_trace_rank *b) {
  bool same = strcmp(a->file, b->file) == 0 && strcmp(a->device, b->device) == 0;
  SAME(rank);
  SAME(world_size);
  SAME(rank_from_name);
  SAME(has_gpu);
  SAME(has_steps);
  SAME(steps_total);
  SAME(steps_skipped);
  SAME(steps);
  SAME(last_dropped);
  SAME(first_step);
  SAME(span_s);
  SAME(compute_s);
  SAME(comm_s);
  SAME(overlapped_comm_s);
  SAME(exposed_comm_s);
  SAME(memory_s);
  SAME(exposed_memory_s);
  SAME(idle_s);
  SAME(recompute_s);
  SAME(cpu_step_s);
  SAME(gpu_events);
  SAME(gpu_devices);
  SAME(gpu_pid);
  SAME(unlinked_events);
  SAME(json_bytes);
  SAME(n_coll);
  SAME(n_calls);
  for (int i = 0; same && i < a->n_coll; i++)
    same = same_coll(&a->coll[i], &b->coll[i]);
  for (int64_t i = 0; same && i < a->n_calls; i++)
    same = same_call(&a->calls[i], &b->calls[i]);
  return same;
}

static bool same_stat(const struct pl_trace_stat *a, const struct pl_trace_stat *b) {
  bool same = true;
  SAME(mean);
  SAME(min);
  SAME(max);
  SAME(min_rank);
  SAME(max_rank);
  return same;
}

static bool same_set(const struct pl_trace_set *a, const struct pl_trace_set *b) {
  bool same = a->n_ranks == b->n_ranks && a->n_coll == b->n_coll;
  for (int i = 0; same && i < a->n_ranks; i++)
    same = same_rank(&a->ranks[i], &b->ranks[i]);
  for (int i = 0; same && i < a->n_coll; i++)
    same = same_coll(&a->coll[i], &b->coll[i]);
  same = same && same_stat(&a->step_time_s, &b->step_time_s) &&
         same_stat(&a->compute_s, &b->compute_s) && same_stat(&a->comm_s, &b->comm_s) &&
         same_stat(&a->exposed_comm_s, &b->exposed_comm_s) && same_stat(&a->idle_s, &b->idle_s) &&
         same_stat(&a->recompute_s, &b->recompute_s);
  SAME(straggler_rank);
  SAME(straggler_busy_s);
  SAME(straggler_spread_s);
  return same;
}

static struct pl_trace_set *run(const char *path, bool whole, int64_t launch_budget,
                                int64_t gpu_budget) {
  struct pl_trace_opts o = {-1, 1, whole};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = trace_analyze_budgets(&path, 1, &o, true, launch_budget, gpu_budget, &s, &d);
  if (st != PL_OK)
    fprintf(stderr, "%s: %s\n", path, d.msg);
  return s;
}

/* (gpu, launch) budgets in bytes: 128 is 4 GPU records of 32 bytes (the
 * minimum), so every piece of 4 GPU events spills, alone; 1024 (32 records)
 * with launches spilled 4 at a time; 4096 (128 records) alone */
static void compare(const char *path) {
  static const int64_t budgets[][2] = {{128, 0}, {1024, 128}, {4096, 0}};
  for (int w = 0; w < 2; w++) {
    struct pl_trace_set *ref = run(path, w == 1, 0, 0);
    CHECK(ref != NULL);
    for (size_t b = 0; ref != NULL && b < sizeof budgets / sizeof *budgets; b++) {
      struct pl_trace_set *s = run(path, w == 1, budgets[b][1], budgets[b][0]);
      CHECK(s != NULL);
      if (s != NULL && !same_set(ref, s)) {
        fprintf(stderr, "differs: %s, whole %d, gpu budget %lld, launch budget %lld\n", path, w,
                (long long)budgets[b][0], (long long)budgets[b][1]);
        CHECK(false);
      }
      pl_trace_set_free(s);
    }
    pl_trace_set_free(ref);
  }
}

/* The spilled records, linked, gathered back into one array. */
struct gathered {
  struct trace_grec *v;
  size_t n, cap;
};

static void gather(void *ctx, struct trace_grec *r, size_t n) {
  struct gathered *g = ctx;
  for (size_t i = 0; i < n && g->n < g->cap; i++)
    g->v[g->n++] = r[i];
}

/* What linking decides, byte for byte: every GPU event's record (step and
 * flags) and every NCCL kernel's collective, in memory and from the file. */
static void check_links(const char *path, int64_t launch_budget) {
  struct trace_data a, b;
  struct pl_diag diag;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  pl_diag_clear(&diag);
  b.gpu_budget_bytes = 128;
  b.spill_budget_bytes = launch_budget;
  CHECK_STATUS(trace_read(path, &a, &diag), PL_OK, diag_ptr(&diag));
  CHECK_STATUS(trace_read(path, &b, &diag), PL_OK, diag_ptr(&diag));
  CHECK(a.gspill == NULL && b.gspill != NULL && b.gpu.len <= 4);
  CHECK_STATUS(trace_link(&a, &diag), PL_OK, diag_ptr(&diag));
  CHECK_STATUS(trace_link(&b, &diag), PL_OK, diag_ptr(&diag));
  CHECK(b.gpu.len == 0 && b.gsorted != NULL && (size_t)b.n_gspill == a.gpu.len);
  struct gathered g = {calloc(a.gpu.len + 1, sizeof *g.v), 0, a.gpu.len};
  CHECK(g.v != NULL);
  if (g.v != NULL)
    CHECK_STATUS(trace_gspill_each(&b, false, gather, &g, &diag), PL_OK, diag_ptr(&diag));
  CHECK(g.n == a.gpu.len);
  size_t k = 0;
  bool same = true;
  for (size_t i = 0; g.v != NULL && i < g.n; i++) {
    const struct trace_gpu *x = &TRACE_AT(a.gpu, struct trace_gpu, i);
    same &= memcmp(x, &g.v[i].g, sizeof *x) == 0;
    if (x->kind == TRACE_COMM && k < a.comm.len) {
      const struct trace_comm *c = &TRACE_AT(a.comm, struct trace_comm, k++);
      same &= c->gpu == (int32_t)i && c->coll == g.v[i].coll && c->ext_id == g.v[i].ext_id;
    }
  }
  CHECK(same && k == a.comm.len);
  free(g.v);
  trace_data_free(&a);
  trace_data_free(&b);
}

/* Allocation failure on the GPU spill path: each failing allocation gives
 * PL_ERR_NOMEM and "out of memory", never a crash or another status. */
static void fail_each(const char *path) {
  long n;
  for (n = 1; n < 100000; n++) {
    struct pl_trace_opts o = {-1, 1, false};
    struct pl_trace_set *s = NULL;
    struct pl_diag d;
    pl_diag_clear(&d);
    alloc_calls = 0;
    alloc_fail_at = n;
    injected = false;
    pl_alloc_set(failing_alloc, NULL);
    enum pl_status st = trace_analyze_budgets(&path, 1, &o, true, 128, 128, &s, &d);
    pl_alloc_set(NULL, NULL);
    pl_trace_set_free(s);
    if (!injected) {
      CHECK_STATUS(st, PL_OK, diag_ptr(&d));
      break;
    }
    if (st != PL_ERR_NOMEM || strstr(d.msg, "out of memory") == NULL) {
      fprintf(stderr, "%s: allocation %ld failed: status %s, message '%s'\n", path, n,
              pl_status_name(st), d.msg);
      CHECK(false);
    }
  }
  CHECK(n > 10);
}

int main(void) {
  for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++)
    compare(shipped[i]);
  const char *gen = gen_trace();
  CHECK(gen != NULL);
  if (gen != NULL) {
    compare(gen);
    check_links(gen, 0);
    check_links(gen, 128);
    /* 14 steps, default skip 14 / 6 = 2: 12 kept; recompute and both
     * collectives (allreduce, _allgather_base) seen from the file too */
    struct pl_trace_set *s = run(gen, false, 128, 128);
    CHECK(s != NULL && s->ranks[0].steps_total == 14 && s->ranks[0].steps == 12);
    CHECK(s != NULL && s->ranks[0].recompute_s > 0 && s->ranks[0].n_coll == 2);
    pl_trace_set_free(s);
    fail_each(gen);
    remove(gen);
  }
  two_devices = true;
  gen = gen_trace();
  CHECK(gen != NULL);
  if (gen != NULL) {
    compare(gen);
    check_links(gen, 128);
    struct pl_trace_set *s = run(gen, false, 0, 128);
    CHECK(s != NULL && s->n_ranks == 2); /* pid 0 and pid 3 */
    pl_trace_set_free(s);
    remove(gen);
  }
  check_links(TR "kineto2021_resnet50_worker0.json.gz", 0);
  check_links(TR "tracelens_mi300_resnet_act_checkpoint.json.gz", 128);
  check_links(TR "hta_nccl_data.json.gz", 0);
  return check_finish();
}
