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
 *     the same GPU's SMs: NCCL kernels take SMs and HBM bandwidth from it
 *     (Lee et al. 2025, arXiv 2507.03114, measured 18.9% average slowdown);
 *     copy-engine transfers (SIM_RES_INTRA_CE) take none;
 *   - a collective inside the NVLink domain driven by SMs (SIM_RES_INTRA)
 *     runs at 1/(1 + comm_overlap_slowdown) while compute runs on the same
 *     GPU: its CTAs copy at NVLink rate through the memory system the
 *     compute kernels load (the GPU files' figure: an 8x H100 all_gather
 *     beside a GEMM, pytorch/pytorch PR #172714, docs/step-model.md
 *     section 3); one across nodes (SIM_RES_INTER) is paced by the NICs, a
 *     few GB/s per channel, and keeps its speed;
 *   - collectives on the same fabric (intra- or inter-node) share it equally.
 * Whenever a rank's running set changes, the tasks whose rate changes are
 * brought up to date and rescheduled: each gets its completion time due_s and
 * a sequence number seq (the order of rescheduling, which breaks ties), and
 * the rank is keyed on its first task by (due_s, seq). The next event is the
 * first task of the rank with the smallest key: found by a scan with up to
 * SCAN_RANKS ranks, from an indexed heap of ranks (heap.c) beyond. This is
 * the order a heap of every running task pops them in (what this file once
 * did; docs/history.md), at one key update per
 * re-rated rank instead of one heap move per rescheduled task.
 *
 * Memory: tasks, edges and streams live in flat arrays indexed by int32 and
 * grown by doubling (sized up front from the lowering's estimate), so
 * running the simulation allocates nothing per task. What it ignores: launch
 * latency from the host (the CPU is assumed to run ahead), stream priorities.
 *
 * Compressed path (pl_predict): with e->acc set, every start and finish also
 * updates the step accounting integrated over time, and starts of anchor
 * tasks let compress.c compare states one period apart and insert the
 * periods the lowering left out (docs/step-model.md section 11), all through
 * e->hooks (sim_int.h): this file calls neither. */
#include <plateau/alloc.h>

#include <math.h>
#include <string.h>

#include "sim/sim_int.h"

/* Capacity for need elements, doubling from cap (64 when empty). */
static int32_t cap_for(int32_t cap, int32_t need) {
  int32_t n = cap ? cap : 64;
  while (n < need)
    n = n > INT32_MAX / 2 ? INT32_MAX : 2 * n;
  return n;
}

static bool grow(void **p, int32_t *cap, int32_t need, size_t size) {
  if (need <= *cap)
    return true;
  int32_t n = cap_for(*cap, need);
  void *q = sim_reallocarray(*p, (size_t)n, size);
  if (q == NULL)
    return false;
  *p = q;
  *cap = n;
  return true;
}

/* The same as grow() for the tasks or the edges, which start out in one
 * allocation (*in_block): the first growth past it moves them out. */
static bool grow_part(void **p, int32_t *cap, bool *in_block, int32_t need, size_t size) {
  if (need <= *cap || !*in_block)
    return grow(p, cap, need, size);
  void *old = *p, *q = NULL;
  int32_t n = 0;
  if (!grow(&q, &n, need, size))
    return false;
  memcpy(q, old, (size_t)*cap * size);
  *p = q;
  *cap = n;
  *in_block = false;
  return true;
}

/* Tasks and edges sized from the hint in one allocation: a step's largest
 * arrays as one chunk, so that glibc's dynamic thresholds (set by the
 * largest chunk freed) keep every later step's arrays on a heap it does not
 * trim and regrow, page faults included, at each prediction
 * (docs/history.md). */
static bool alloc_block(struct sim_engine *e, int32_t task_hint) {
  int32_t nt = cap_for(0, task_hint),
          ne = cap_for(0, task_hint > INT32_MAX / 2 ? INT32_MAX : 2 * task_hint);
  size_t bytes = (size_t)nt * sizeof *e->tasks + (size_t)ne * sizeof *e->edges;
  e->block = sim_malloc(bytes);
  if (e->block == NULL)
    return false;
  e->tasks = e->block;
  e->edges = (struct sim_edge *)(void *)((char *)e->block + (size_t)nt * sizeof *e->tasks);
  e->cap_tasks = nt;
  e->cap_edges = ne;
  e->tasks_in_block = e->edges_in_block = true;
  return true;
}

enum pl_status sim_engine_init(struct sim_engine *e, int32_t ranks, int32_t task_hint,
                               double overlap_slowdown) {
  memset(e, 0, sizeof *e);
  e->overlap_slowdown = overlap_slowdown;
  e->slow_rate = 1.0 / (1.0 + overlap_slowdown);
  e->comm_slow_rate = 1.0;
  e->ranks = sim_calloc((size_t)ranks, sizeof *e->ranks);
  if (e->ranks == NULL)
    return PL_ERR_NOMEM;
  e->n_ranks = ranks;
  e->keys = sim_malloc((size_t)ranks * sizeof *e->keys);
  if (e->keys == NULL)
    return PL_ERR_NOMEM;
  for (int32_t k = 0; k < ranks; k++) {
    e->ranks[k].first = SIM_NONE;
    e->keys[k] = (struct sim_key){INFINITY, UINT64_MAX};
  }
  if (task_hint > 0 && !alloc_block(e, task_hint))
    return PL_ERR_NOMEM;
  return PL_OK;
}

void sim_engine_set_comm_slowdown(struct sim_engine *e, double comm_overlap_slowdown) {
  e->comm_slow_rate = 1.0 / (1.0 + (comm_overlap_slowdown > 0 ? comm_overlap_slowdown : 0.0));
}

void sim_engine_free(struct sim_engine *e) {
  if (!e->tasks_in_block)
    sim_free(e->tasks);
  if (!e->edges_in_block)
    sim_free(e->edges);
  sim_free(e->block);
  sim_free(e->streams);
  sim_free(e->ranks);
  sim_free(e->keys);
  sim_free(e->acc);
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
  e->streams[id] = (struct sim_stream){SIM_NONE, SIM_NONE, SIM_NONE, SIM_NONE, rank};
  r->streams[r->n_streams++] = id;
  return id;
}

int32_t sim_task_add(struct sim_engine *e, int32_t stream, double work_s, enum sim_res res) {
  if (stream < 0 || (e->n_tasks == e->cap_tasks &&
                     !grow_part((void **)&e->tasks, &e->cap_tasks, &e->tasks_in_block,
                                e->n_tasks + 1, sizeof *e->tasks))) {
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
    s->head = s->first = id;
  else
    e->tasks[s->tail].next = id;
  s->tail = id;
  return id;
}

void sim_dep(struct sim_engine *e, int32_t from, int32_t to) {
  if (from < 0 || to < 0 || from == to)
    return;
  if (e->n_edges == e->cap_edges &&
      !grow_part((void **)&e->edges, &e->cap_edges, &e->edges_in_block, e->n_edges + 1,
                 sizeof *e->edges)) {
    e->nomem = true;
    return;
  }
  int32_t id = e->n_edges++;
  e->edges[id] = (struct sim_edge){to, e->tasks[from].edges};
  e->tasks[from].edges = id;
  e->tasks[to].waiting++;
}

bool sim_engine_reserve(struct sim_engine *e, int32_t n, int32_t m) {
  if (n > INT32_MAX - e->n_tasks || m > INT32_MAX - e->n_edges ||
      !grow_part((void **)&e->tasks, &e->cap_tasks, &e->tasks_in_block, e->n_tasks + n,
                 sizeof *e->tasks) ||
      !grow_part((void **)&e->edges, &e->cap_edges, &e->edges_in_block, e->n_edges + m,
                 sizeof *e->edges)) {
    e->nomem = true;
    return false;
  }
  return true;
}

/* Speed of a task of each class when n[] tasks of each class run on its rank. */
static void rates_for(const struct sim_engine *e, const int n[SIM_RES_N], double rate[SIM_RES_N]) {
  static const double share[SIM_MAX_RANK_STREAMS + 1] = {
      1, 1, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8};
  rate[SIM_RES_COMPUTE] = n[SIM_RES_INTRA] + n[SIM_RES_INTER] > 0 ? e->slow_rate : 1.0;
  rate[SIM_RES_INTRA] = rate[SIM_RES_INTRA_CE] = share[n[SIM_RES_INTRA] + n[SIM_RES_INTRA_CE]];
  if (n[SIM_RES_COMPUTE] > 0)
    rate[SIM_RES_INTRA] *= e->comm_slow_rate;
  rate[SIM_RES_INTER] = share[n[SIM_RES_INTER]];
}

static bool earlier(const struct sim_task *a, const struct sim_task *b) {
  return a->due_s < b->due_s || (a->due_s == b->due_s && a->seq < b->seq);
}

/* Few ranks (pp <= SCAN_RANKS): the next event is found by scanning each
 * rank's first task; more: the ranks sit in an indexed heap (heap.c). */
#define SCAN_RANKS 8

/* Key the rank on (due_s, seq) of its first running task. The earliest of
 * the ranks' first tasks is the earliest of all running tasks by (due_s,
 * seq): the order a heap of every running task would pop them in. */
static inline void rekey_to(struct sim_engine *e, int32_t rank, double due_s, uint64_t seq) {
  struct sim_key *k = &e->keys[rank];
  if (e->n_ranks > SCAN_RANKS && (due_s != k->due_s || seq != k->seq))
    sim_heap_set_key(&e->heap, rank, due_s, seq);
  *k = (struct sim_key){due_s, seq};
}

/* The same by the first task, best (SIM_NONE when the rank is idle). */
static inline void rekey(struct sim_engine *e, int32_t rank, int32_t best) {
  struct sim_key *k = &e->keys[rank];
  e->ranks[rank].first = best;
  if (best == SIM_NONE) {
    *k = (struct sim_key){INFINITY, UINT64_MAX};
    if (e->n_ranks > SCAN_RANKS)
      sim_heap_remove(&e->heap, rank);
    return;
  }
  const struct sim_task *t = &e->tasks[best];
  rekey_to(e, rank, t->due_s, t->seq);
}

__attribute__((always_inline)) static inline int32_t first_of(const struct sim_engine *e,
                                                              const struct sim_rank *r) {
  int32_t best = SIM_NONE;
  for (int i = 0; i < r->n_running; i++)
    if (best == SIM_NONE || earlier(&e->tasks[r->running[i]], &e->tasks[best]))
      best = r->running[i];
  return best;
}

/* Re-rate the running tasks of a rank after its running set changed. A task
 * whose rate is unchanged keeps (left_s, mark_s): its completion time stays
 * valid; the others are brought up to date and rescheduled (a new seq). */
static void rerate(struct sim_engine *e, int32_t rank) {
  struct sim_rank *r = &e->ranks[rank];
  r->dirty = false;
  double rates[SIM_RES_N];
  rates_for(e, r->n_res, rates);
  int32_t best = SIM_NONE;
  double due = INFINITY, now = e->now_s;
  uint64_t seq = UINT64_MAX;
  for (int i = 0; i < r->n_running; i++) {
    int32_t id = r->running[i];
    struct sim_task *t = &e->tasks[id];
    double rate = rates[t->res];
    if (rate != t->rate) {
      double left = t->left_s - t->rate * (now - t->mark_s);
      left = left > 0 ? left : 0;
      t->left_s = left;
      t->mark_s = now;
      t->rate = rate;
      t->due_s = now + left / rate;
      t->seq = e->next_seq++;
    }
    if (t->due_s < due || (t->due_s == due && t->seq < seq)) { /* earlier() */
      best = id;
      due = t->due_s;
      seq = t->seq;
    }
  }
  r->first = best;
  if (best == SIM_NONE)
    rekey(e, rank, SIM_NONE);
  else
    rekey_to(e, rank, due, seq);
}

void sim_engine_shift_rank(struct sim_engine *e, int32_t rank, double delta_s) {
  const struct sim_rank *r = &e->ranks[rank];
  for (int i = 0; i < r->n_running; i++)
    e->tasks[r->running[i]].due_s += delta_s;
  rekey(e, rank, first_of(e, r)); /* adding one constant can make new ties */
}

void sim_engine_shift(struct sim_engine *e, double delta_s) {
  for (int32_t k = 0; k < e->n_ranks; k++)
    sim_engine_shift_rank(e, k, delta_s);
}

/* The running task due first, SIM_NONE when none runs. */
static inline int32_t next_event(const struct sim_engine *e) {
  if (e->n_ranks > SCAN_RANKS)
    return e->heap.n > 0 ? e->ranks[e->heap.items[0].item].first : SIM_NONE;
  const struct sim_key *k = e->keys;
  int32_t best = 0;
  double due = k[0].due_s;
  uint64_t seq = k[0].seq;
  for (int32_t i = 1; i < e->n_ranks; i++)
    if (k[i].due_s < due || (k[i].due_s == due && k[i].seq < seq)) {
      best = i;
      due = k[i].due_s;
      seq = k[i].seq;
    }
  return e->ranks[best].first;
}

/* Remember that a rank's running set changed during this event. Ranks past
 * the small dirty list are re-rated at once (correct, only slower). */
static void touch(struct sim_engine *e, int32_t rank) {
  struct sim_rank *r = &e->ranks[rank];
  if (r->dirty)
    return;
  r->dirty = true;
  if (e->n_dirty < e->dirty_cap)
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
static inline void try_start(struct sim_engine *e, int32_t stream) {
  struct sim_stream *s = &e->streams[stream];
  if (s->running != SIM_NONE || s->head == SIM_NONE || e->tasks[s->head].waiting > 0)
    return;
  struct sim_task *t = &e->tasks[s->head];
  struct sim_rank *r = &e->ranks[s->rank];
  s->running = s->head;
  t->start_s = t->mark_s = e->now_s;
  t->left_s = t->work_s;
  t->rate = 0; /* forces rerate to schedule it */
  t->pos = (uint8_t)r->n_running;
  r->running[r->n_running++] = s->head;
  r->n_res[t->res]++;
  touch(e, s->rank);
}

/* The same on the compressed path, then the start told to the online
 * accounting `acc` (online.c; its counts do not depend on the order of the
 * updates). Kept apart so the plain path carries none of it. */
__attribute__((always_inline)) static inline void
try_start_acc(struct sim_engine *e, int32_t stream,
              void (*acc)(struct sim_engine *, int32_t, int32_t)) {
  const struct sim_stream *s = &e->streams[stream];
  if (s->running != SIM_NONE)
    return;
  try_start(e, stream);
  if (s->running != SIM_NONE)
    acc(e, s->running, s->rank);
}

/* Global periods (anchors) and per-stage periods (sim_cmp.stage_mode). */
__attribute__((always_inline)) static inline void try_start_cmp(struct sim_engine *e,
                                                                int32_t stream) {
  try_start_acc(e, stream, e->hooks->start);
}

__attribute__((always_inline)) static inline void try_start_stage(struct sim_engine *e,
                                                                  int32_t stream) {
  try_start_acc(e, stream, e->hooks->start_stage);
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
  int32_t last = r->running[--r->n_running]; /* takes the finished task's place */
  r->running[t->pos] = last;
  e->tasks[last].pos = t->pos;
  r->n_res[t->res]--;
  /* the finishing rank is the first one touched in this event (n_dirty is
   * 0 here): it is re-rated first, as flush_dirty would, without a place
   * in the list */
  r->dirty = true;
  for (int32_t k = t->edges; k != SIM_NONE; k = e->edges[k].next) {
    struct sim_task *to = &e->tasks[e->edges[k].to];
    if (--to->waiting == 0)
      start(e, to->stream);
  }
  start(e, t->stream);
  rerate(e, s->rank);
  flush_dirty(e);
}

static void finish(struct sim_engine *e, int32_t id) { finish_with(e, id, try_start); }

static void finish_cmp(struct sim_engine *e, int32_t id) {
  e->hooks->finish(e, id, e->streams[e->tasks[id].stream].rank);
  finish_with(e, id, try_start_cmp);
  if (e->cmp.n_pending > 0)
    e->hooks->flush(e);
}

/* The finishing rank is recorded: a start it triggers on another rank is a
 * binding edge across stages (compress_stage.c). */
static void finish_stage(struct sim_engine *e, int32_t id) {
  int32_t rank = e->streams[e->tasks[id].stream].rank;
  e->hooks->finish_stage(e, id, rank);
  e->cmp.fin_rank = rank;
  finish_with(e, id, try_start_stage);
  e->cmp.fin_rank = SIM_NONE;
  if (e->cmp.n_pending > 0)
    e->hooks->flush(e);
}

/* Finish every task in event order, with `fin` (the plain, compressed or
 * per-stage variant, each inlined); the compressed paths stop early when no
 * steady state can be found (cmp.failed, never set on the plain path). */
__attribute__((always_inline)) static inline void
run_events(struct sim_engine *e, void (*fin)(struct sim_engine *, int32_t)) {
  for (int32_t id = next_event(e); id != SIM_NONE && !e->cmp.failed; id = next_event(e)) {
    e->now_s = e->tasks[id].due_s;
    fin(e, id);
  }
}

/* Compressed path: stops early when no steady state can be found (the
 * caller then simulates the whole step). */
static void run_cmp(struct sim_engine *e) {
  bool stage = e->cmp.stage_mode;
  e->cmp.fin_rank = SIM_NONE;
  for (int32_t i = 0; i < e->n_streams; i++)
    if (stage)
      try_start_stage(e, i);
    else
      try_start_cmp(e, i);
  flush_dirty(e);
  e->dirty_cap--; /* events: the finishing rank takes the first place */
  if (e->cmp.n_pending > 0)
    e->hooks->flush(e);
  if (stage)
    run_events(e, finish_stage);
  else
    run_events(e, finish_cmp);
  for (int32_t r = 0; r < e->n_ranks; r++)
    e->hooks->advance(e, r);
}

enum pl_status sim_engine_run(struct sim_engine *e, struct pl_diag *diag) {
  if (e->nomem || sim_heap_init(&e->heap, e->n_ranks) != PL_OK ||
      (e->cmp.on && e->hooks->init(e) != PL_OK))
    return pl_diag_set(diag, PL_ERR_NOMEM, "step simulation: out of memory");
  e->now_s = 0;
  e->dirty_cap = (int)(sizeof e->dirty / sizeof e->dirty[0]);
  if (e->acc != NULL) {
    run_cmp(e);
    if (e->cmp.failed)
      return PL_OK; /* compression found no steady state: the caller starts over */
    if (e->hooks->end(e) != PL_OK)
      return pl_diag_set(diag, PL_ERR_NOMEM, "step simulation: out of memory");
  } else {
    for (int32_t i = 0; i < e->n_streams; i++)
      try_start(e, i);
    flush_dirty(e);
    e->dirty_cap--; /* events: the finishing rank takes the first place */
    run_events(e, finish);
  }
  if (e->finished != e->n_tasks)
    return pl_diag_set(diag, PL_ERR_INTERNAL,
                       "step simulation: %d of %d tasks never became ready (dependency cycle)",
                       (int)(e->n_tasks - e->finished), (int)e->n_tasks);
  return PL_OK;
}
