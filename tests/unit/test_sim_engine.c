/* test_sim_engine.c: the discrete-event engine and the pipeline schedules
 * against closed forms (docs/step-model.md sections 3 and 5). */
#include <stdlib.h>

#include "check.h"
#include "sim/sim_int.h"

/* Tolerance for sums of a few doubles: exact up to rounding. */
#define EXACT 1e-12

static struct pl_diag *const nodiag = NULL;

static void test_heap_order(void) {
  struct sim_heap h;
  CHECK_STATUS(sim_heap_init(&h, 6), PL_OK, nodiag);
  double t[] = {3, 1, 2, 1, 1};
  for (int i = 0; i < 5; i++)
    sim_heap_set(&h, i, t[i]);
  /* moving an item re-inserts it: 0 now at time 1, after 1, 3, 4 */
  sim_heap_set(&h, 0, 1.0);
  sim_heap_set(&h, 5, 0.5);
  /* equal times pop in (re)insertion order: 0.5 (id 5), 1 (ids 1, 3, 4, 0), 2 */
  int want[] = {5, 1, 3, 4, 0, 2};
  for (int i = 0; i < 6; i++)
    CHECK_EQ_INT(sim_heap_pop(&h), want[i]);
  CHECK_EQ_INT(sim_heap_pop(&h), SIM_NONE);
  sim_heap_free(&h);
}

/* Moving every item by one constant (compress.c inserting periods) keeps
 * the pop order and moves each due time: 0.25 + 2 = 2.25, 1 + 2 = 3, ... */
static void test_heap_shift(void) {
  struct sim_heap h;
  CHECK_STATUS(sim_heap_init(&h, 4), PL_OK, nodiag);
  double t[] = {1, 0.25, 4, 2};
  for (int i = 0; i < 4; i++)
    sim_heap_set(&h, i, t[i]);
  sim_heap_shift(&h, 2.0);
  int want[] = {1, 0, 3, 2};
  double due[] = {2.25, 3, 4, 6};
  for (int i = 0; i < 4; i++) {
    int32_t id = sim_heap_pop(&h);
    CHECK_EQ_INT(id, want[i]);
    CHECK_NEAR_REL(h.due[id], due[i], EXACT);
  }
  sim_heap_free(&h);
}

static void test_chain_and_deps(void) {
  struct sim_engine e;
  CHECK_STATUS(sim_engine_init(&e, 2, 4, 0.0), PL_OK, nodiag);
  int32_t a = sim_stream_add(&e, 0), b = sim_stream_add(&e, 1);
  int32_t t1 = sim_task_add(&e, a, 1.0, SIM_RES_COMPUTE);
  int32_t t2 = sim_task_add(&e, a, 2.0, SIM_RES_COMPUTE);
  int32_t t3 = sim_task_add(&e, b, 0.5, SIM_RES_COMPUTE);
  int32_t t4 = sim_task_add(&e, a, 3.0, SIM_RES_COMPUTE);
  sim_dep(&e, t2, t3); /* t3 on rank 1 waits for t2: starts at 3 */
  sim_dep(&e, t3, t4); /* t4 queued behind t2 anyway, and waits for t3: starts at 3.5 */
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(sim_engine_run(&e, &d), PL_OK, dp);
  CHECK_NEAR_REL(e.tasks[t1].end_s, 1.0, EXACT);
  CHECK_NEAR_REL(e.tasks[t3].start_s, 3.0, EXACT);
  CHECK_NEAR_REL(e.tasks[t4].start_s, 3.5, EXACT);
  CHECK_NEAR_REL(e.tasks[t4].end_s, 6.5, EXACT);
  sim_engine_free(&e);
}

static void test_cycle_is_reported(void) {
  struct sim_engine e;
  CHECK_STATUS(sim_engine_init(&e, 1, 4, 0.0), PL_OK, nodiag);
  int32_t a = sim_stream_add(&e, 0), b = sim_stream_add(&e, 0);
  int32_t t1 = sim_task_add(&e, a, 1.0, SIM_RES_COMPUTE);
  int32_t t2 = sim_task_add(&e, b, 1.0, SIM_RES_INTER);
  sim_dep(&e, t1, t2);
  sim_dep(&e, t2, t1);
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(sim_engine_run(&e, &d), PL_ERR_INTERNAL, dp);
  CHECK_CONTAINS(d.msg, "2 of 2 tasks never became ready");
  sim_engine_free(&e);
}

/* Compute of 10 s and a collective of 5 s start together with a 25%
 * slowdown: compute runs at 1/1.25 = 0.8 for 5 s (4 s of work), then the
 * remaining 6 s at full speed: ends at 11. */
static void test_overlap_slowdown(void) {
  struct sim_engine e;
  CHECK_STATUS(sim_engine_init(&e, 1, 4, 0.25), PL_OK, nodiag);
  int32_t c = sim_stream_add(&e, 0), x = sim_stream_add(&e, 0);
  int32_t tc = sim_task_add(&e, c, 10.0, SIM_RES_COMPUTE);
  int32_t tx = sim_task_add(&e, x, 5.0, SIM_RES_INTER);
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(sim_engine_run(&e, &d), PL_OK, dp);
  CHECK_NEAR_REL(e.tasks[tx].end_s, 5.0, EXACT);
  CHECK_NEAR_REL(e.tasks[tc].end_s, 11.0, EXACT);
  sim_engine_free(&e);
}

/* Two 2 s collectives on the same fabric share it: both end at 4; on
 * different fabrics they do not: both end at 2. */
static void test_fabric_sharing(void) {
  for (int same = 0; same < 2; same++) {
    struct sim_engine e;
    CHECK_STATUS(sim_engine_init(&e, 1, 4, 0.0), PL_OK, nodiag);
    int32_t a = sim_stream_add(&e, 0), b = sim_stream_add(&e, 0);
    int32_t ta = sim_task_add(&e, a, 2.0, SIM_RES_INTER);
    int32_t tb = sim_task_add(&e, b, 2.0, same ? SIM_RES_INTER : SIM_RES_INTRA);
    struct pl_diag d, *dp = &d;
    CHECK_STATUS(sim_engine_run(&e, &d), PL_OK, dp);
    CHECK_NEAR_REL(e.tasks[ta].end_s, same ? 4.0 : 2.0, EXACT);
    CHECK_NEAR_REL(e.tasks[tb].end_s, same ? 4.0 : 2.0, EXACT);
    sim_engine_free(&e);
  }
}

/* A copy-engine transfer (SIM_RES_INTRA_CE, Transformer Engine's ring
 * exchange) takes no SM: compute of 10 s beside a 5 s one at a 25%
 * slowdown still ends at 10 (an SM collective would end it at 11, above).
 * It shares the node's fabric with an SM collective (SIM_RES_INTRA): a 2 s
 * one of each, started together, run at half speed and both end at 4, and
 * compute beside them is slowed only while the SM one runs: 4 s at 0.8
 * (3.2 s of work), the remaining 6.8 s at full speed: ends at 10.8. */
static void test_copy_engine(void) {
  for (int sm = 0; sm < 2; sm++) {
    struct sim_engine e;
    CHECK_STATUS(sim_engine_init(&e, 1, 4, 0.25), PL_OK, nodiag);
    int32_t c = sim_stream_add(&e, 0), x = sim_stream_add(&e, 0), y = sim_stream_add(&e, 0);
    int32_t tc = sim_task_add(&e, c, 10.0, SIM_RES_COMPUTE);
    int32_t tx = sim_task_add(&e, x, sm ? 2.0 : 5.0, SIM_RES_INTRA_CE);
    int32_t ty = sm ? sim_task_add(&e, y, 2.0, SIM_RES_INTRA) : SIM_NONE;
    struct pl_diag d, *dp = &d;
    CHECK_STATUS(sim_engine_run(&e, &d), PL_OK, dp);
    CHECK_NEAR_REL(e.tasks[tx].end_s, sm ? 4.0 : 5.0, EXACT);
    if (sm)
      CHECK_NEAR_REL(e.tasks[ty].end_s, 4.0, EXACT);
    CHECK_NEAR_REL(e.tasks[tc].end_s, sm ? 10.8 : 10.0, EXACT);
    sim_engine_free(&e);
  }
}

/* The collective's side (comm_overlap_slowdown), with the numbers of the
 * H100 figure's source (data/gpus/h100.json: pytorch/pytorch PR #172714,
 * 8x H100): a GEMM of 1.56 s-units and an all_gather of 1.40 start
 * together, compute slowed by 0.189, an SM collective inside the node by
 * 0.502. The GEMM ends first, at 1.56 x 1.189 = 1.85484; the gather has
 * then done 1.85484 / 1.502 = 1.23491 of its 1.40 and runs the remaining
 * 0.16509 at full speed: ends at 2.01993, the PR's 2.02 overlapped. Across
 * nodes (SIM_RES_INTER) the collective keeps its speed: it ends at 1.40,
 * the GEMM at 1.40 + (1.56 - 1.40 / 1.189) = 1.78254; on the copy engines
 * (SIM_RES_INTRA_CE) neither slows: 1.40 and 1.56. Alone (no compute
 * beside it) the SM collective runs at full speed: 1.40. */
static void test_comm_overlap_slowdown(void) {
  const double gemm = 1.56, gather = 1.40, slow = 0.189, comm = 0.502;
  enum sim_res res[] = {SIM_RES_INTRA, SIM_RES_INTER, SIM_RES_INTRA_CE};
  double t_gemm = gemm * (1 + slow);
  double want_x[] = {t_gemm + gather - t_gemm / (1 + comm), gather, gather};
  double want_c[] = {t_gemm, gather + gemm - gather / (1 + slow), gemm};
  for (int i = 0; i < 3; i++) {
    struct sim_engine e;
    CHECK_STATUS(sim_engine_init(&e, 1, 4, slow), PL_OK, nodiag);
    sim_engine_set_comm_slowdown(&e, comm);
    int32_t c = sim_stream_add(&e, 0), x = sim_stream_add(&e, 0);
    int32_t tc = sim_task_add(&e, c, gemm, SIM_RES_COMPUTE);
    int32_t tx = sim_task_add(&e, x, gather, res[i]);
    struct pl_diag d, *dp = &d;
    CHECK_STATUS(sim_engine_run(&e, &d), PL_OK, dp);
    CHECK_NEAR_REL(e.tasks[tx].end_s, want_x[i], EXACT);
    CHECK_NEAR_REL(e.tasks[tc].end_s, want_c[i], EXACT);
    if (i == 0)
      CHECK_NEAR_REL(e.tasks[tx].end_s, 2.02, 1e-3);
    sim_engine_free(&e);
  }
  struct sim_engine e;
  CHECK_STATUS(sim_engine_init(&e, 1, 4, slow), PL_OK, nodiag);
  sim_engine_set_comm_slowdown(&e, comm);
  int32_t tx = sim_task_add(&e, sim_stream_add(&e, 0), gather, SIM_RES_INTRA);
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(sim_engine_run(&e, &d), PL_OK, dp);
  CHECK_NEAR_REL(e.tasks[tx].end_s, gather, EXACT);
  sim_engine_free(&e);
}

/* Simulate a pipeline schedule with free communication: every chunk's
 * forward takes tf / vp and backward tb / vp on every stage. Returns the
 * makespan. */
static double pipeline_makespan(const struct sim_schedule *sch, int64_t p, int64_t m, int64_t vp,
                                double tf, double tb) {
  int64_t per = 2 * m * vp, V = p * vp;
  struct sim_slot *slots = calloc((size_t)(p * per), sizeof *slots);
  int32_t *task = calloc((size_t)(V * m * 2), sizeof *task); /* [v][mb][pass] */
  struct sim_engine e;
  sim_engine_init(&e, (int32_t)p, (int32_t)(p * per), 0.0);
  for (int64_t s = 0; s < p; s++) {
    int32_t stream = sim_stream_add(&e, (int32_t)s);
    int32_t n = sch->order(p, m, vp, s, &slots[s * per]);
    CHECK_EQ_INT(n, per);
    for (int32_t i = 0; i < n; i++) {
      struct sim_slot sl = slots[s * per + i];
      int64_t v = sl.chunk * p + s;
      double w = (sl.pass == PL_PASS_FWD ? tf : tb) / (double)vp;
      task[(v * m + sl.mb) * 2 + sl.pass] = sim_task_add(&e, stream, w, SIM_RES_COMPUTE);
    }
  }
  for (int64_t v = 0; v < V; v++) {
    for (int64_t mb = 0; mb < m; mb++) {
      if (v > 0)
        sim_dep(&e, task[((v - 1) * m + mb) * 2], task[(v * m + mb) * 2]);
      if (v < V - 1)
        sim_dep(&e, task[((v + 1) * m + mb) * 2 + 1], task[(v * m + mb) * 2 + 1]);
      else
        sim_dep(&e, task[(v * m + mb) * 2], task[(v * m + mb) * 2 + 1]);
    }
  }
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(sim_engine_run(&e, &d), PL_OK, dp);
  double t = 0;
  for (int32_t i = 0; i < e.n_tasks; i++)
    t = e.tasks[i].end_s > t ? e.tasks[i].end_s : t;
  sim_engine_free(&e);
  free(slots);
  free(task);
  return t;
}

/* 1F1B and GPipe: makespan (m + p - 1)(tf + tb), so the bubble, makespan -
 * m (tf + tb), is (p - 1)/(m + p - 1) of it (Narayanan et al. 2021). */
static void test_bubble_1f1b_gpipe(void) {
  int64_t cases[][2] = {{1, 1}, {2, 1}, {4, 8}, {8, 8}, {8, 32}, {3, 5}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t p = cases[i][0], m = cases[i][1];
    double tf = 1.0, tb = 2.0, want = (double)(m + p - 1) * (tf + tb);
    double t1 = pipeline_makespan(&sim_schedule_1f1b, p, m, 1, tf, tb);
    double tg = pipeline_makespan(&sim_schedule_gpipe, p, m, 1, tf, tb);
    CHECK_NEAR_REL(t1, want, EXACT);
    CHECK_NEAR_REL(tg, want, EXACT);
    double bubble = (t1 - (double)m * (tf + tb)) / t1;
    CHECK_NEAR_REL(bubble + 1.0, (double)(p - 1) / (double)(m + p - 1) + 1.0, EXACT);
  }
}

/* Interleaved with vp chunks: the bubble shrinks vp-fold, makespan
 * m (tf + tb) + (p - 1)(tf + tb)/vp (Narayanan et al. SC21 Sec. 2.2.2). */
static void test_bubble_interleaved(void) {
  int64_t cases[][3] = {{2, 4, 2}, {4, 8, 2}, {4, 8, 3}, {8, 16, 4}, {4, 4, 2}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t p = cases[i][0], m = cases[i][1], vp = cases[i][2];
    double tf = 1.0, tb = 2.0;
    double want = (double)m * (tf + tb) + (double)(p - 1) * (tf + tb) / (double)vp;
    CHECK_NEAR_REL(pipeline_makespan(&sim_schedule_interleaved, p, m, vp, tf, tb), want, 1e-9);
  }
}

/* Every schedule runs each (micro-batch, chunk) forward and backward once,
 * forward before backward. */
static void test_schedules_complete(void) {
  const struct sim_schedule *all[] = {&sim_schedule_gpipe, &sim_schedule_1f1b,
                                      &sim_schedule_interleaved};
  struct sim_slot out[2 * 16 * 4];
  for (int k = 0; k < 3; k++) {
    int64_t p = 4, m = 16, vp = k == 2 ? 4 : 1;
    for (int64_t s = 0; s < p; s++) {
      int seen[16][4][2] = {{{0}}};
      int32_t n = all[k]->order(p, m, vp, s, out);
      CHECK_EQ_INT(n, 2 * m * vp);
      for (int32_t i = 0; i < n; i++) {
        CHECK(!seen[out[i].mb][out[i].chunk][out[i].pass]);
        seen[out[i].mb][out[i].chunk][out[i].pass] = 1;
        if (out[i].pass == PL_PASS_BWD)
          CHECK(seen[out[i].mb][out[i].chunk][PL_PASS_FWD]);
      }
    }
  }
}

int main(void) {
  test_heap_order();
  test_heap_shift();
  test_chain_and_deps();
  test_cycle_is_reported();
  test_overlap_slowdown();
  test_comm_overlap_slowdown();
  test_fabric_sharing();
  test_copy_engine();
  test_bubble_1f1b_gpipe();
  test_bubble_interleaved();
  test_schedules_complete();
  return check_finish();
}
