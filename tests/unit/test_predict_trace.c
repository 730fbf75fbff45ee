/* test_predict_trace.c: the predicted timeline written as a Kineto-shaped
 * Chrome trace (src/report/timeline.c) reads back through plateau's own
 * trace analyzer (src/trace) with the prediction's numbers: step time,
 * compute, exposed and overlapped communication, and the collectives. */
#define _POSIX_C_SOURCE 200809L /* getpid */
#include <plateau/plateau.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* The trace stores microseconds with 3 decimals: each time is off by at most
 * 0.5 ns, a few hundred ns over thousands of kernels. */
#define NS 1e-6

static struct pl_run run;
static char path[512];

static void setup(int64_t gpus, int64_t tp, int64_t pp) {
  struct pl_diag d, *dp = &d;
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_load("llama2-7b", &run.model, &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, dp);
  run.layout.gpus = gpus;
  run.layout.tp = tp;
  run.layout.pp = pp;
  run.layout.batch_per_gpu = 1;
}

static const struct pl_trace_coll *find(const struct pl_trace_rank *r, const char *op) {
  for (int i = 0; i < r->n_coll; i++)
    if (strcmp(r->coll[i].op, op) == 0)
      return &r->coll[i];
  return NULL;
}

/* One stage (pp = 1): the file is one rank's trace of one step. */
static void test_round_trip(void) {
  setup(16, 1, 1);
  struct pl_diag d, *dp = &d;
  static struct pl_prediction p;
  struct pl_timeline *tl = NULL;
  CHECK_STATUS(pl_timeline_build(&run, &tl, &p, &d), PL_OK, dp);
  CHECK_STATUS(pl_timeline_write(tl, path, &d), PL_OK, dp);
  pl_timeline_free(tl);
  struct pl_trace_set *set = NULL;
  const char *paths[1] = {path};
  struct pl_trace_opts opts = {.skip = 0, .threads = 1};
  CHECK_STATUS(pl_trace_analyze(paths, 1, &opts, &set, &d), PL_OK, dp);
  if (set == NULL)
    return;
  CHECK_EQ_INT(set->n_ranks, 1);
  const struct pl_trace_rank *r = &set->ranks[0];
  const struct pl_step *s = &p.step;
  CHECK_EQ_INT(r->steps, 1);
  CHECK_NEAR_REL(r->span_s, s->step_time_s, NS);
  CHECK_NEAR_REL(r->compute_s, s->compute_s + s->optimizer_s, NS);
  CHECK_NEAR_REL(r->exposed_comm_s, s->exposed_comm_s, 1e-4);
  CHECK_NEAR_REL(r->overlapped_comm_s, s->overlapped_comm_s, 1e-4);
  /* FSDP over 16 GPUs: 34 all_gathers of 2 bytes x layer params (bf16), 34
   * reduce_scatters of 4 bytes x params (fp32), each over all 16 ranks */
  const struct pl_trace_coll *ag = find(r, "all_gather"), *rs = find(r, "reduce_scatter");
  CHECK(ag != NULL && rs != NULL);
  if (ag != NULL && rs != NULL) {
    CHECK_NEAR_REL(ag->count, 34, 0);
    CHECK_EQ_INT(ag->group_size, 16);
    CHECK_NEAR_REL(rs->count, 34, 0);
    CHECK_NEAR_REL(ag->time_s, s->collectives[0].time_s, NS);
  }
  pl_trace_set_free(set);
}

/* Several stages: one process per stage in one file; it must still parse. */
static void test_pipeline_writes(void) {
  setup(16, 2, 2);
  run.layout.gbs = 32;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_predict_timeline(&run, path, &d), PL_OK, dp);
  struct pl_trace_set *set = NULL;
  const char *paths[1] = {path};
  struct pl_trace_opts opts = {.skip = 0, .threads = 1};
  CHECK_STATUS(pl_trace_analyze(paths, 1, &opts, &set, &d), PL_OK, dp);
  pl_trace_set_free(set);
}

/* A layout that does not fit has no step to draw; an unwritable path fails
 * with the path in the message and leaves nothing behind. */
static void test_errors(void) {
  struct pl_diag d;
  setup(8, 1, 1);
  run.model.layers = 400; /* far beyond 80 GB per GPU */
  CHECK(pl_predict_timeline(&run, path, &d) == PL_ERR_LAYOUT);
  CHECK_CONTAINS(d.msg, "does not fit");
  setup(8, 1, 1);
  CHECK(pl_predict_timeline(&run, "/nonexistent-dir/trace.json", &d) == PL_ERR_IO);
  CHECK_CONTAINS(d.msg, "/nonexistent-dir/trace.json");
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(path, sizeof path, "%s/plateau-test-trace-%ld.json", tmp && *tmp ? tmp : "/tmp",
           (long)getpid());
  test_round_trip();
  test_pipeline_writes();
  test_errors();
  remove(path);
  return check_finish();
}
