/* engine.c: a discrete-event simulator of GPU streams (docs/step-model.md
 * section 3).
 *
 * Model: each simulated rank (one GPU) owns a few streams. A stream runs its
 * tasks one at a time in issue order, as a CUDA stream does; a task starts
 * when it heads its stream, the stream is idle and every task it depends on
 * has finished (cross-stream and cross-rank edges play the role of CUDA
 * events and NCCL send/recv matching). A task carries work in seconds at full
 * speed and progresses at a rate set by what else runs on its rank, a fluid
 * (processor-sharing) model:
 *   - compute runs at 1/(1 + overlap_slowdown) while any collective runs on
 *     the same GPU: NCCL kernels take SMs and HBM bandwidth from it
 *     (Lee et al. 2025, arXiv 2507.03114, measured 18.9% average slowdown);
 *   - collectives on the same fabric (intra- or inter-node) share it equally.
 * Whenever a rank's running set changes, the tasks whose rate changes are
 * brought up to date and their completion moved in the event heap (heap.c,
 * one entry per running task).
 *
 * Memory: tasks, edges and streams live in flat arrays indexed by int32 and
 * grown by doubling (sized up front from the lowering's estimate), so
 * running the simulation allocates nothing per task. What it ignores: launch
 * latency from the host (the CPU is assumed to run ahead), stream priorities.
 *
 * Compressed path (pl_predict): with e->acc set, every start and finish also
 * updates the step accounting integrated over time, and starts of anchor
 * tasks let compress.c compare states one period apart and insert the
 * periods the lowering left out (docs/step-model.md section 11). */
#include <plateau/alloc.h>

#include <string.h>

#include "sim/sim_int.h"

static bool grow(void **p, int32_t *cap, int32_t need, size_t size) {
  if (need <= *cap)
    return true;
  int32_t n = *cap ? *cap : 64;
  while (n < need)
    n = n > INT32_MAX / 2 ? INT32_MAX : 2 * n;
  void *q = pl_reallocarray(*p, (size_t)n, size);
  if (q == NULL)
    return false;
  *p = q;
  *cap = n;
  return true;
}

enum pl_status sim_engine_init(struct sim_engine *e, int32_t ranks, int32_t task_hint,
                               double overlap_slowdown) {
  memset(e, 0, sizeof *e);
  e->overlap_slowdown = overlap_slowdown;
  e->slow_rate = 1.0 / (1.0 + overlap_slowdown);
  e->ranks = pl_calloc((size_t)ranks, sizeof *e->ranks);
  if (e->ranks == NULL)
    return PL_ERR_NOMEM;
  e->n_ranks = ranks;
  if (!grow((void **)&e->tasks, &e->cap_tasks, task_hint, sizeof *e->tasks) ||
      !grow((void **)&e->edges, &e->cap_edges, 2 * task_hint, sizeof *e->edges))
    return PL_ERR_NOMEM;
  return PL_OK;
}

void sim_engine_free(struct sim_engine *e) {
  pl_free(e->tasks);
  pl_free(e->edges);
  pl_free(e->streams);
  pl_free(e->ranks);
  pl_free(e->acc);
  sim_cmp_free(e);
  sim_heap_free(&e->heap);
  memset(e, 0, sizeof *e);
}

int32_t sim_stream_add(struct sim_engine *e, int32_t rank) {
  struct sim_rank *r = &e->ranks[rank];
  if (r->n_streams == SIM_MAX_RANK_STREAMS ||
      !grow((void **)&e->streams, &e->cap_streams, e->n_streams + 1, sizeof *e->streams)) {
    e->nomem = true;
    return SIM_NONE;
  }
  int32_t id = e->n_streams++;
  e->streams[id] = (struct sim_stream){SIM_NONE, SIM_NONE, SIM_NONE, rank};
  r->streams[r->n_streams++] = id;
  return id;
}

int32_t sim_task_add(struct sim_engine *e, int32_t stream, double work_s, enum sim_res res) {
  if (stream < 0 || (e->n_tasks == e->cap_tasks &&
                     !grow((void **)&e->tasks, &e->cap_tasks, e->n_tasks + 1, sizeof *e->tasks))) {
    e->nomem = true;
    return SIM_NONE;
  }
  int32_t id = e->n_tasks++;
  struct sim_task *t = &e->tasks[id];
  /* every field the run reads before writing: the rest is set when it starts */
  t->work_s = work_s > 0 ? work_s : 0;
  t->start_s = t->end_s = 0;
  t->stream = stream;
  t->res = (uint8_t)res;
  t->next = t->edges = SIM_NONE;
  t->waiting = 0;
  struct sim_stream *s = &e->streams[stream];
  if (s->tail == SIM_NONE)
    s->head = id;
  else
    e->tasks[s->tail].next = id;
  s->tail = id;
  return id;
}

void sim_dep(struct sim_engine *e, int32_t from, int32_t to) {
  if (from < 0 || to < 0 || from == to)
    return;
  if (e->n_edges == e->cap_edges &&
      !grow((void **)&e->edges, &e->cap_edges, e->n_edges + 1, sizeof *e->edges)) {
    e->nomem = true;
    return;
  }
  int32_t id = e->n_edges++;
  e->edges[id] = (struct sim_edge){to, e->tasks[from].edges};
  e->tasks[from].edges = id;
  e->tasks[to].waiting++;
}

/* Speed of a task of each class when n[] tasks of each class run on its rank. */
static void rates_for(const struct sim_engine *e, const int n[SIM_RES_N], double rate[SIM_RES_N]) {
  static const double share[SIM_MAX_RANK_STREAMS + 1] = {
      1, 1, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8};
  rate[SIM_RES_COMPUTE] = n[SIM_RES_INTRA] + n[SIM_RES_INTER] > 0 ? e->slow_rate : 1.0;
  rate[SIM_RES_INTRA] = share[n[SIM_RES_INTRA]];
  rate[SIM_RES_INTER] = share[n[SIM_RES_INTER]];
}

static void schedule(struct sim_engine *e, int32_t id) {
  const struct sim_task *t = &e->tasks[id];
  sim_heap_set(&e->heap, id, e->now_s + t->left_s / t->rate);
}

/* Re-rate the running tasks of a rank after its running set changed. A task
 * whose rate is unchanged keeps (left_s, mark_s): its completion event stays
 * valid; the others are brought up to date and rescheduled. */
static void rerate(struct sim_engine *e, int32_t rank) {
  struct sim_rank *r = &e->ranks[rank];
  r->dirty = false;
  double rates[SIM_RES_N];
  rates_for(e, r->n_res, rates);
  for (int i = 0; i < r->n_running; i++) {
    struct sim_task *t = &e->tasks[r->running[i]];
    double rate = rates[t->res];
    if (rate == t->rate)
      continue;
    t->left_s -= t->rate * (e->now_s - t->mark_s);
    t->left_s = t->left_s > 0 ? t->left_s : 0;
    t->mark_s = e->now_s;
    t->rate = rate;
    schedule(e, r->running[i]);
  }
}

/* Remember that a rank's running set changed during this event. Ranks past
 * the small dirty list are re-rated at once (correct, only slower). */
static void touch(struct sim_engine *e, int32_t rank) {
  struct sim_rank *r = &e->ranks[rank];
  if (r->dirty)
    return;
  r->dirty = true;
  if (e->n_dirty < (int)(sizeof e->dirty / sizeof e->dirty[0]))
    e->dirty[e->n_dirty++] = rank;
  else
    rerate(e, rank);
}

static void flush_dirty(struct sim_engine *e) {
  for (int i = 0; i < e->n_dirty; i++)
    if (e->ranks[e->dirty[i]].dirty)
      rerate(e, e->dirty[i]);
  e->n_dirty = 0;
}

/* Start the head of a stream if it can run. */
static void try_start(struct sim_engine *e, int32_t stream) {
  struct sim_stream *s = &e->streams[stream];
  if (s->running != SIM_NONE || s->head == SIM_NONE || e->tasks[s->head].waiting > 0)
    return;
  struct sim_task *t = &e->tasks[s->head];
  struct sim_rank *r = &e->ranks[s->rank];
  s->running = s->head;
  t->start_s = t->mark_s = e->now_s;
  t->left_s = t->work_s;
  t->rate = 0; /* forces rerate to schedule it */
  r->running[r->n_running++] = s->head;
  r->n_res[t->res]++;
  touch(e, s->rank);
}

/* The same on the compressed path: online accounting and anchors
 * (compress.c; its counts do not depend on the order of the updates). Kept
 * apart so the plain path carries none of it. */
static void try_start_cmp(struct sim_engine *e, int32_t stream) {
  const struct sim_stream *s = &e->streams[stream];
  if (s->running != SIM_NONE)
    return;
  try_start(e, stream);
  if (s->running != SIM_NONE)
    sim_acc_start(e, s->running, s->rank);
}

static inline void finish_with(struct sim_engine *e, int32_t id,
                               void (*start)(struct sim_engine *, int32_t)) {
  struct sim_task *t = &e->tasks[id];
  struct sim_stream *s = &e->streams[t->stream];
  struct sim_rank *r = &e->ranks[s->rank];
  t->end_s = e->now_s;
  t->left_s = 0;
  s->running = SIM_NONE;
  s->head = t->next;
  e->finished++;
  for (int i = 0; i < r->n_running; i++)
    if (r->running[i] == id)
      r->running[i] = r->running[--r->n_running];
  r->n_res[t->res]--;
  touch(e, s->rank);
  for (int32_t k = t->edges; k != SIM_NONE; k = e->edges[k].next) {
    struct sim_task *to = &e->tasks[e->edges[k].to];
    if (--to->waiting == 0)
      start(e, to->stream);
  }
  start(e, t->stream);
  flush_dirty(e);
}

static void finish(struct sim_engine *e, int32_t id) { finish_with(e, id, try_start); }

static void finish_cmp(struct sim_engine *e, int32_t id) {
  sim_acc_finish(e, id, e->streams[e->tasks[id].stream].rank);
  finish_with(e, id, try_start_cmp);
  if (e->cmp.n_pending > 0)
    sim_cmp_flush(e);
}

/* Compressed path: stops early when no steady state can be found (the
 * caller then simulates the whole step). */
static void run_cmp(struct sim_engine *e) {
  for (int32_t i = 0; i < e->n_streams; i++)
    try_start_cmp(e, i);
  flush_dirty(e);
  if (e->cmp.n_pending > 0)
    sim_cmp_flush(e);
  for (int32_t id = sim_heap_pop(&e->heap); id != SIM_NONE && !e->cmp.failed;
       id = sim_heap_pop(&e->heap)) {
    e->now_s = e->heap.due[id];
    finish_cmp(e, id);
  }
  for (int32_t r = 0; r < e->n_ranks; r++)
    sim_acc_advance(e, r);
}

enum pl_status sim_engine_run(struct sim_engine *e, struct pl_diag *diag) {
  if (e->nomem || sim_heap_init(&e->heap, e->n_tasks) != PL_OK ||
      (e->cmp.on && sim_cmp_init(e) != PL_OK))
    return pl_diag_set(diag, PL_ERR_NOMEM, "step simulation: out of memory");
  e->now_s = 0;
  if (e->acc != NULL) {
    run_cmp(e);
    if (e->cmp.failed)
      return PL_OK; /* compression found no steady state: the caller starts over */
  } else {
    for (int32_t i = 0; i < e->n_streams; i++)
      try_start(e, i);
    flush_dirty(e);
    for (int32_t id = sim_heap_pop(&e->heap); id != SIM_NONE; id = sim_heap_pop(&e->heap)) {
      e->now_s = e->heap.due[id];
      finish(e, id);
    }
  }
  if (e->finished != e->n_tasks)
    return pl_diag_set(diag, PL_ERR_INTERNAL,
                       "step simulation: %d of %d tasks never became ready (dependency cycle)",
                       (int)(e->n_tasks - e->finished), (int)e->n_tasks);
  return PL_OK;
}
