/* trace_gen.h: shared by the spill tests (test_trace_spill.c,
 * test_trace_gspill.c): the shipped traces, a generated multi-step trace
 * with every ordering of launches, flows and kernels a Kineto file may hold,
 * and exact (bitwise) comparison of analyses. Header-only, static inline, so
 * each test includes what it uses. */
#ifndef PL_TEST_TRACE_GEN_H
#define PL_TEST_TRACE_GEN_H

#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdbool.h>
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
static inline struct pl_diag *diag_ptr(struct pl_diag *d) { return d; }

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
static bool trace_gen_two_devices;

static inline void launch(FILE *f, int64_t corr, double ts, int tid, int64_t ext) {
  fprintf(f,
          "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
          "\"pid\": 1, \"tid\": %d, \"ts\": %.3f, \"dur\": 4, \"args\": {\"External id\": %lld, "
          "\"correlation\": %lld}},\n",
          tid, ts, (long long)ext, (long long)corr);
}

static inline void flow(FILE *f, int64_t corr, double ts, int tid) {
  fprintf(f,
          "{\"ph\": \"s\", \"id\": %lld, \"pid\": 1, \"tid\": %d, \"ts\": %.3f, "
          "\"cat\": \"ac2g\", \"name\": \"ac2g\"},\n",
          (long long)corr, tid, ts);
}

static inline void kernel(FILE *f, int64_t corr, double ts, int i) {
  const char *name = i % 6 == 5   ? "ncclDevKernel_Generic"
                     : i % 6 == 4 ? "Memcpy DtoD (Device -> Device)"
                                  : "void gemm_kernel<128>(Params)";
  fprintf(f,
          "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
          "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"device\": 0, \"stream\": %d, "
          "\"correlation\": %lld}},\n",
          i % 6 == 4 ? "gpu_memcpy" : "kernel", name, trace_gen_two_devices && i % 5 == 1 ? 3 : 0,
          i % 6 == 5 ? 20 : 7, ts, 12.5 + (i % 3) * 7.0, i % 6 == 5 ? 20 : 7, (long long)corr);
}

/* One step: 24 launches in the orders a trace may hold them. */
static inline void gen_step(FILE *f, int s) {
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

static inline const char *gen_trace(void) {
  static char path[64];
  snprintf(path, sizeof path, "/tmp/pl_test_trace_gen_XXXXXX");
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
static inline bool same_coll(const struct pl_trace_coll *a, const struct pl_trace_coll *b) {
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
  SAME(sync_matched); /* across ranks (across.c, TraceLens's implicit-sync view) */
  SAME(sync_count);
  SAME(sync_time_s);
  SAME(start_skew_s);
  SAME(start_skew_max_s);
  SAME(end_skew_s);
  SAME(sync_algbw_bytes_per_s);
  SAME(sync_busbw_bytes_per_s);
  return same;
}

static inline bool same_call(const struct pl_trace_call *a, const struct pl_trace_call *b) {
  bool same = strcmp(a->op, b->op) == 0;
  SAME(group_size);
  SAME(group_start);
  SAME(group_stride);
  SAME(bytes);
  SAME(time_s);
  SAME(overlap_s);
  return same;
}

static inline bool same_rank(const struct pl_trace_rank *a, const struct pl_trace_rank *b) {
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
  SAME(n_coll_sizes); /* TraceLens's per-size table (collectives.c) */
  for (int i = 0; same && i < a->n_coll_sizes; i++) {
    same = strcmp(a->coll_sizes[i].op, b->coll_sizes[i].op) == 0;
    SAME(coll_sizes[i].group_size);
    SAME(coll_sizes[i].bytes);
    SAME(coll_sizes[i].dtype_bytes);
    SAME(coll_sizes[i].calls);
    SAME(coll_sizes[i].sum_s);
    SAME(coll_sizes[i].mean_s);
    SAME(coll_sizes[i].std_s);
    SAME(coll_sizes[i].min_s);
    SAME(coll_sizes[i].max_s);
  }
  /* the kernel breakdown, idle split, streams, launches, arrival (kernels.c, across.c) */
  SAME(idle_host_s);
  SAME(idle_kernel_s);
  SAME(idle_other_s);
  SAME(kernel_s);
  SAME(kcat_s);
  SAME(comm_cat_s); /* communication per collective kind: list algebra = the sweep */
  SAME(overlapped_cat_s);
  SAME(launch);
  SAME(coll_wait_s);
  SAME(coll_last);
  SAME(coll_first);
  SAME(coll_matched);
  SAME(n_kernels);
  SAME(n_streams);
  for (int i = 0; same && i < a->n_kernels; i++) {
    same = strcmp(a->kernels[i].name, b->kernels[i].name) == 0;
    SAME(kernels[i].category);
    SAME(kernels[i].count);
    SAME(kernels[i].time_s);
    SAME(kernels[i].min_s);
    SAME(kernels[i].max_s);
  }
  for (int i = 0; same && i < a->n_streams; i++)
    SAME(streams[i]);
  return same;
}

static inline bool same_stat(const struct pl_trace_stat *a, const struct pl_trace_stat *b) {
  bool same = true;
  SAME(mean);
  SAME(min);
  SAME(max);
  SAME(min_rank);
  SAME(max_rank);
  return same;
}

static inline bool same_set(const struct pl_trace_set *a, const struct pl_trace_set *b) {
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

/* Allocation failure on a spilling analysis (budgets in bytes, 0 default):
 * failing allocation 1, 2, ... each gives "out of memory" (alloc_inject.h;
 * leaks: cli_valgrind and the sanitizer build). */
struct spill_call {
  const char *path;
  int64_t launch_budget, gpu_budget;
};

static inline enum pl_status spill_analyze(void *ctx, struct pl_diag *d) {
  const struct spill_call *c = ctx;
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_set *s = NULL;
  enum pl_status st =
      trace_analyze_budgets(&c->path, 1, &o, true, c->launch_budget, c->gpu_budget, &s, d);
  pl_trace_set_free(s);
  return st;
}

static inline void fail_each(const char *path, int64_t launch_budget, int64_t gpu_budget) {
  struct spill_call c = {path, launch_budget, gpu_budget};
  CHECK(alloc_fail_each(path, spill_analyze, &c) >= 10);
}

#endif
