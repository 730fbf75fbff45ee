/* test_trace_spill.c: launches spilled to a temporary file (src/trace/spill.c)
 * give exactly the results of the in-memory path. Every shipped trace
 * (tests/data/traces, SOURCES.md there) and a generated multi-step trace with
 * kernels written before their launches, flow starts before, after and apart
 * from their runtime calls, launches without flows, a correlation with two kernels and
 * one with two runtime calls, recompute frames and record_param_comms
 * collectives found by External id and by time are analyzed with the default
 * budget (no spill: they are small) and with budgets of 4 to 128 launches;
 * every number of every rank, collective and call must be identical. */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "alloc_inject.h"
#include "check.h"
#include "trace/trace_int.h"
#include "trace_gen.h"

static struct pl_trace_set *run(const char *path, bool whole, int64_t budget) {
  struct pl_trace_opts o = {-1, 1, whole};
  struct pl_trace_set *s = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = trace_analyze_budgets(&path, 1, &o, true, budget, 0, &s, &d);
  if (st != PL_OK)
    fprintf(stderr, "%s: %s\n", path, d.msg);
  return s;
}

/* Read and link path with a budget; d is the caller's to free. */
static void read_link(const char *path, int64_t budget, struct trace_data *d) {
  struct pl_diag diag;
  memset(d, 0, sizeof *d);
  pl_diag_clear(&diag);
  d->spill_budget_bytes = budget;
  CHECK_STATUS(trace_read(path, d, &diag), PL_OK, diag_ptr(&diag));
  if (budget == 128) { /* 4 launches: the tiny budget must really spill */
    CHECK(d->spill != NULL);
    CHECK(d->spill_runs.len > 10);
    CHECK(d->launches.len <= 4);
  }
  CHECK_STATUS(trace_link(d, &diag), PL_OK, diag_ptr(&diag));
}

/* What linking decides, byte for byte: every GPU event's step and flags
 * (linked, flow, recompute) and every NCCL kernel's collective (trace_gpu
 * and trace_comm have no padding). Returns the unlinked GPU events. */
static int64_t check_links(const char *path) {
  struct trace_data a, b;
  read_link(path, 0, &a);
  read_link(path, 128, &b);
  CHECK(a.spill == NULL);
  CHECK(a.gpu.len == b.gpu.len && a.comm.len == b.comm.len);
  if (a.gpu.len == b.gpu.len)
    CHECK(a.gpu.len == 0 ||
          memcmp(a.gpu.data, b.gpu.data, a.gpu.len * sizeof(struct trace_gpu)) == 0);
  if (a.comm.len == b.comm.len)
    CHECK(a.comm.len == 0 ||
          memcmp(a.comm.data, b.comm.data, a.comm.len * sizeof(struct trace_comm)) == 0);
  int64_t unlinked = 0;
  for (size_t i = 0; i < b.gpu.len; i++)
    unlinked += !(TRACE_AT(b.gpu, struct trace_gpu, i).flags & TRACE_F_LINKED);
  trace_data_free(&a);
  trace_data_free(&b);
  return unlinked;
}

static void compare(const char *path) {
  static const int64_t budgets[] = {128, 1024, 4096};
  for (int w = 0; w < 2; w++) {
    struct pl_trace_set *ref = run(path, w == 1, 0);
    CHECK(ref != NULL);
    for (size_t b = 0; ref != NULL && b < sizeof budgets / sizeof *budgets; b++) {
      struct pl_trace_set *s = run(path, w == 1, budgets[b]);
      CHECK(s != NULL);
      if (s != NULL && !same_set(ref, s)) {
        fprintf(stderr, "differs: %s, whole %d, budget %lld\n", path, w, (long long)budgets[b]);
        CHECK(false);
      }
      pl_trace_set_free(s);
    }
    pl_trace_set_free(ref);
  }
}

int main(void) {
  for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++)
    compare(shipped[i]);
  const char *gen = gen_trace();
  CHECK(gen != NULL);
  if (gen != NULL) {
    compare(gen);
    /* 14 steps x 24 launches; unlinked GPU events: per step the kernels of
     * i % 4 == 3 without a runtime call but with a flow are linked by the
     * flow, so every kernel has a launch. */
    CHECK_EQ_INT(check_links(gen), 0);
    struct pl_trace_set *s = run(gen, false, 128);
    /* 14 steps; the last is kept (no cut-short rule applies), the default
     * skip is 14 / 6 = 2; recompute frames and both collectives are seen */
    CHECK(s != NULL && s->ranks[0].steps_total == 14 && s->ranks[0].steps == 12);
    CHECK(s != NULL && s->ranks[0].recompute_s > 0 && s->ranks[0].n_coll == 2);
    pl_trace_set_free(s);
    fail_each(gen, 128, 0);
    remove(gen);
  }
  check_links(TR "kineto2021_resnet50_worker0.json.gz");
  check_links(TR "tracelens_mi300_resnet_act_checkpoint.json.gz");
  check_links(TR "hta_nccl_data.json.gz");
  return check_finish();
}
