/* compress.c: steady-state compression of the step simulation
 * (docs/step-model.md section 11). The engine reaches it only through the
 * hooks at the end of this file (sim_cmp_hooks), which predict.c installs;
 * the integrals it compares and multiplies are online.c's.
 *
 * Model: a training step repeats identical work: the layer units of an FSDP
 * pass (same tasks, same durations, same dependency pattern), and the
 * steady-state periods of a 1F1B or interleaved pipeline (one forward and
 * one backward per stage, or pp*vp of each). Once the simulation reaches a
 * periodic regime, state S at time t and state S' at t + P (one period
 * later) agree up to the one-period shift of every stream: each stream has
 * started d_s more tasks, runs the shifted image of the same task with the
 * same rate and the same time to completion. From then on the evolution is
 * the one from S shifted by P, for as long as the task graph is invariant
 * under the shift. The lowering therefore issues only a few such periods
 * (lower.c: keep_layers, keep_pairs) and tells how many are missing; here,
 * at anchors one period apart, the two states are compared (times to
 * completion within 1e-12 of the current time), the graph is checked to be
 * invariant under the shift over the period and the next one (same work,
 * resource, predecessor count, and every outgoing edge to a task of a
 * repeatable period mapped to the shifted target; edges leaving the
 * repeated region do not take part, as the last simulated period stands for
 * the step's last one), the tasks started in the period must all carry the
 * lowering's tag for a repeatable period, and then the k missing periods are
 * inserted: every running task is moved k*P later (a freeze of every rank)
 * and every rank's integrals grow by k times their growth over the period.
 * When a step ends with periods still missing (no steady state was found in
 * what was simulated) the caller simulates the whole step instead.
 *
 * Per-stage periods (the block before stage_anchor below):
 * when stages repeat with periods of their own (comm-bound FSDP with
 * pp > 1), each rank is frozen for k of its own periods, under checks of
 * the edges between stages of different periods; the pp transfers each
 * stage receives are added after the run, at their times in the step.
 *
 * Assumption checked only partly: an edge into a repeated task from more
 * than one period before it is covered by the predecessor count alone. */
#include <plateau/alloc.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim/sim_int.h"

__attribute__((always_inline)) static inline enum pl_status snap_alloc(const struct sim_engine *e,
                                                                       struct sim_snap *s) {
  memset(s, 0, sizeof *s);
  s->started = sim_malloc((size_t)e->n_streams * sizeof *s->started);
  s->left = sim_malloc((size_t)e->n_streams * sizeof *s->left);
  s->rate = sim_malloc((size_t)e->n_streams * sizeof *s->rate);
  s->acc = sim_malloc((size_t)e->n_ranks * sizeof *s->acc);
  return s->started && s->left && s->rate && s->acc ? PL_OK : PL_ERR_NOMEM;
}

static void snap_free(struct sim_snap *s) {
  sim_free(s->started);
  sim_free(s->left);
  sim_free(s->rate);
  sim_free(s->acc);
  memset(s, 0, sizeof *s);
}

/* Per-stage periods: snapshots and the checks' arrays. */
static enum pl_status stage_init(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  size_t r = (size_t)e->n_ranks, n = (size_t)e->n_tasks + 1;
  c->stg = sim_calloc(2 * r + 3, sizeof *c->stg);
  c->stg_ok = sim_calloc(r, sizeof *c->stg_ok);
  c->frozen_s = sim_calloc(r, sizeof *c->frozen_s);
  c->nb = sim_calloc(n, sizeof *c->nb);
  c->bind_s = sim_malloc(r * r * sizeof *c->bind_s);
  c->fin = sim_malloc(((size_t)e->n_streams + 1) * sizeof *c->fin);
  c->cut_run = sim_malloc(((size_t)e->n_streams + 1) * sizeof *c->cut_run);
  c->cut_d = sim_malloc(((size_t)e->n_streams + 1) * sizeof *c->cut_d);
  c->cut_shift = sim_calloc(r, sizeof *c->cut_shift);
  if (c->stg == NULL || c->stg_ok == NULL || c->frozen_s == NULL || c->nb == NULL ||
      c->bind_s == NULL || c->fin == NULL || c->cut_run == NULL || c->cut_d == NULL ||
      c->cut_shift == NULL)
    return PL_ERR_NOMEM;
  for (size_t i = 0; i < 2 * r + 3; i++)
    if (snap_alloc(e, &c->stg[i]) != PL_OK)
      return PL_ERR_NOMEM;
  for (size_t i = 0; i < r * r; i++)
    c->bind_s[i] = -1;
  return PL_OK;
}

static void stage_free(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  if (!c->stage_mode)
    return;
  for (int32_t i = 0; c->stg != NULL && i < 2 * e->n_ranks + 3; i++)
    snap_free(&c->stg[i]);
  sim_free(c->stg);
  sim_free(c->stg_ok);
  sim_free(c->frozen_s);
  sim_free(c->nb);
  sim_free(c->bind_s);
  sim_free(c->fin);
  sim_free(c->cut_run);
  sim_free(c->cut_d);
  sim_free(c->cut_shift);
}

/* Scratch snapshots after the ring: [period] = current, [period + 1] = unit. */
static enum pl_status sim_cmp_init(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  int32_t n = c->period + 2;
  c->ring = sim_calloc((size_t)n, sizeof *c->ring);
  c->soff = sim_calloc((size_t)e->n_streams + 1, sizeof *c->soff);
  c->sid = sim_malloc(((size_t)e->n_tasks + 1) * sizeof *c->sid);
  c->drift = sim_calloc(2 * (size_t)e->n_streams + 1, sizeof *c->drift);
  c->shift = sim_calloc((size_t)e->n_streams + 1, sizeof *c->shift);
  size_t n_tasks = (size_t)e->n_tasks + 1;
  c->pos = sim_malloc(n_tasks * sizeof *c->pos);
  c->npred = sim_malloc(n_tasks * sizeof *c->npred);
  c->idle0 = sim_malloc(n_tasks * sizeof *c->idle0);
  if (c->ring == NULL || c->soff == NULL || c->sid == NULL || c->drift == NULL ||
      c->shift == NULL || c->pos == NULL || c->npred == NULL || c->idle0 == NULL)
    return PL_ERR_NOMEM;
  for (int32_t i = 0; i < n; i++)
    if (snap_alloc(e, &c->ring[i]) != PL_OK)
      return PL_ERR_NOMEM;
  if (c->stage_mode && stage_init(e) != PL_OK)
    return PL_ERR_NOMEM;
  /* positions on each stream (ids grow in issue order) and predecessor counts */
  for (int32_t i = 0; i < e->n_tasks; i++) {
    c->pos[i] = c->soff[e->tasks[i].stream + 1]++;
    c->npred[i] = e->tasks[i].waiting;
  }
  for (int32_t s = 0; s < e->n_streams; s++)
    c->soff[s + 1] += c->soff[s];
  for (int32_t i = 0; i < e->n_tasks; i++)
    c->sid[c->soff[e->tasks[i].stream] + c->pos[i]] = i;
  return PL_OK;
}

void sim_cmp_free(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  for (int32_t i = 0; c->ring != NULL && i < c->period + 2; i++)
    snap_free(&c->ring[i]);
  sim_free(c->ring);
  sim_free(c->sid);
  sim_free(c->soff);
  sim_free(c->drift);
  sim_free(c->shift);
  sim_free(c->pos);
  sim_free(c->npred);
  sim_free(c->idle0);
  sim_free(c->need);
  stage_free(e);
  memset(c, 0, sizeof *c);
}

bool sim_cmp_done(const struct sim_engine *e) {
  if (e->cmp.glob_need > 0 || e->cmp.failed)
    return false;
  for (int32_t i = 0; i < e->cmp.n_pass; i++)
    if (e->cmp.need[i] > 0)
      return false;
  return true;
}

static int32_t stream_count(const struct sim_engine *e, int32_t s) {
  return e->cmp.soff[s + 1] - e->cmp.soff[s];
}

/* The scalars and the first n collectives' integrals. */
static void acc_copy(struct sim_acc *to, const struct sim_acc *from, int n) {
  memcpy(to, from, offsetof(struct sim_acc, calls));
  memcpy(to->calls, from->calls, (size_t)n * sizeof to->calls[0]);
  memcpy(to->time_s, from->time_s, (size_t)n * sizeof to->time_s[0]);
  memcpy(to->exp_s, from->exp_s, (size_t)n * sizeof to->exp_s[0]);
}

/* Stream i's state into snapshot s: tasks started, what is left of the
 * running one and its rate. */
static void take_stream(const struct sim_engine *e, struct sim_snap *s, int32_t i) {
  const struct sim_stream *st = &e->streams[i];
  s->started[i] = st->head == SIM_NONE ? stream_count(e, i)
                                       : e->cmp.pos[st->head] + (st->running != SIM_NONE);
  s->left[i] = st->running != SIM_NONE ? e->tasks[st->running].due_s - e->now_s : -1;
  s->rate[i] = st->running != SIM_NONE ? e->tasks[st->running].rate : 0;
}

static void take(struct sim_engine *e, struct sim_snap *s) {
  for (int32_t r = 0; r < e->n_ranks; r++)
    sim_acc_advance(e, r);
  s->now_s = e->now_s;
  for (int32_t i = 0; i < e->n_streams; i++)
    take_stream(e, s, i);
  for (int32_t r = 0; r < e->n_ranks; r++)
    acc_copy(&s->acc[r], &e->acc[r], e->cmp.n_colls);
  s->valid = true;
}

/* The same for one rank: its streams and integrals only. */
static void take_rank(struct sim_engine *e, struct sim_snap *s, int32_t r) {
  sim_acc_advance(e, r);
  s->now_s = e->now_s;
  const struct sim_rank *rk = &e->ranks[r];
  for (int j = 0; j < rk->n_streams; j++)
    take_stream(e, s, rk->streams[j]);
  acc_copy(&s->acc[r], &e->acc[r], e->cmp.n_colls);
  s->valid = true;
}

/* Stream i is in the same state in a and b up to the shift (within tol);
 * adds the tasks it advanced to *moved. */
static bool same_stream(const struct sim_snap *a, const struct sim_snap *b, int32_t i, double tol,
                        int32_t *moved) {
  if (b->started[i] < a->started[i] || (a->left[i] < 0) != (b->left[i] < 0) ||
      a->rate[i] != b->rate[i] || fabs(a->left[i] - b->left[i]) > tol)
    return false;
  *moved += b->started[i] - a->started[i];
  return true;
}

/* The two states agree up to the shift. */
static bool same_state(const struct sim_engine *e, const struct sim_snap *a,
                       const struct sim_snap *b) {
  double tol = SIM_CMP_TOL * b->now_s;
  int32_t moved = 0;
  for (int32_t i = 0; i < e->n_streams; i++)
    if (!same_stream(a, b, i, tol, &moved))
      return false;
  for (int32_t r = 0; r < e->n_ranks; r++)
    if (a->acc[r].n_in != b->acc[r].n_in)
      return false;
  return moved > 0 && b->now_s > a->now_s;
}

/* The one-period shift between snapshots a and b: stream s advanced d[s]. */
struct shift {
  const struct sim_engine *e;
  const int32_t *d; /* [stream] */
  int mode;
  int32_t key;
};

/* Task x maps to the task d positions later on its stream (SIM_NONE past the end). */
static inline int32_t shifted(const struct shift *sh, int32_t x) {
  const struct sim_cmp *c = &sh->e->cmp;
  int32_t s = sh->e->tasks[x].stream, p = c->pos[x] + sh->d[s];
  return p < c->soff[s + 1] - c->soff[s] ? c->sid[c->soff[s] + p] : SIM_NONE;
}

/* Tasks started in the period carry the tag of a repeatable period. */
static inline bool tagged(const struct sim_tag *m, int mode, int32_t key) {
  return mode == 1 ? m->pass_id == key && m->unit >= 0 : m->steady != 0;
}

/* The next edge from k on whose target (mapped one period on when map) is
 * repeatable; that target in *to. SIM_NONE at the end of the list. */
static inline int32_t next_edge(const struct shift *sh, int32_t k, bool map, int32_t *to) {
  const struct sim_engine *e = sh->e;
  for (; k != SIM_NONE; k = e->edges[k].next) {
    *to = map ? shifted(sh, e->edges[k].to) : e->edges[k].to;
    if (*to != SIM_NONE && tagged(&e->tags[*to], sh->mode, sh->key))
      return k;
  }
  return SIM_NONE;
}

/* y is x one period later: same work, resource and predecessor count, and
 * x's edges to tasks repeatable one period on lead to those images from y
 * (and y has no other edge to a repeatable task). Edges to tasks outside the
 * repeated region do not take part: the last simulated period stands for the
 * step's last one, whose successors differ (the next micro-batch's gathers,
 * the optimizer), and in the step those edges leave the region too. */
__attribute__((always_inline)) static inline bool same_task(const struct shift *sh, int32_t x,
                                                            int32_t y) {
  const struct sim_engine *e = sh->e;
  const struct sim_task *tx = &e->tasks[x], *ty = &e->tasks[y];
  if (tx->work_s != ty->work_s || tx->res != ty->res || e->cmp.npred[x] != e->cmp.npred[y])
    return false;
  int32_t tox = SIM_NONE, toy = SIM_NONE;
  int32_t i = next_edge(sh, tx->edges, true, &tox), j = next_edge(sh, ty->edges, false, &toy);
  while (i != SIM_NONE && j != SIM_NONE) {
    if (tox != toy)
      return false;
    i = next_edge(sh, e->edges[i].next, true, &tox);
    j = next_edge(sh, e->edges[j].next, false, &toy);
  }
  return i == SIM_NONE && j == SIM_NONE;
}

/* The graph from one task before the period to its end maps onto the next
 * period where that one is still tagged repeatable (past the steady region
 * the structure changes, as it does in the step with the missing periods). */
/* (inlined: two callers; kept the cost the one-caller version had) */
__attribute__((always_inline)) static inline bool invariant(const struct sim_engine *e,
                                                            const struct sim_snap *a,
                                                            const struct sim_snap *b, int mode,
                                                            int32_t key) {
  int32_t *d = e->cmp.shift;
  for (int32_t s = 0; s < e->n_streams; s++)
    d[s] = b->started[s] - a->started[s];
  const struct shift sh = {e, d, mode, key};
  for (int32_t s = 0; s < e->n_streams; s++) {
    int32_t n = stream_count(e, s);
    int32_t lo = a->started[s] > 0 ? a->started[s] - 1 : 0;
    const int32_t *ids = &e->cmp.sid[e->cmp.soff[s]];
    for (int32_t p = lo; p < b->started[s]; p++) {
      if (p >= a->started[s] && !tagged(&e->tags[ids[p]], mode, key))
        return false;
      if (d[s] == 0 || p + d[s] >= n || !tagged(&e->tags[ids[p + d[s]]], mode, key))
        continue;
      if (!same_task(&sh, ids[p], ids[p + d[s]]))
        return false;
    }
  }
  return true;
}

__attribute__((always_inline)) static inline void add_scaled(struct sim_acc *x,
                                                             const struct sim_acc *a,
                                                             const struct sim_acc *b, double k,
                                                             int n_colls) {
  x->compute_s += k * (b->compute_s - a->compute_s);
  x->optimizer_s += k * (b->optimizer_s - a->optimizer_s);
  x->exposed_s += k * (b->exposed_s - a->exposed_s);
  x->overlapped_s += k * (b->overlapped_s - a->overlapped_s);
  x->idle_s += k * (b->idle_s - a->idle_s);
  for (int i = 0; i < n_colls; i++) {
    x->calls[i] += k * (b->calls[i] - a->calls[i]);
    x->time_s[i] += k * (b->time_s[i] - a->time_s[i]);
    x->exp_s[i] += k * (b->exp_s[i] - a->exp_s[i]);
  }
}

/* Insert k periods of length b - a at now: freeze every rank. */
static void insert(struct sim_engine *e, const struct sim_snap *a, const struct sim_snap *b,
                   int32_t k) {
  double delta = (double)k * (b->now_s - a->now_s);
  for (int32_t r = 0; r < e->n_ranks; r++) {
    double idle = (double)k * (b->acc[r].idle_s - a->acc[r].idle_s);
    add_scaled(&e->acc[r], &a->acc[r], &b->acc[r], (double)k, e->cmp.n_colls);
    e->acc[r].t_s = e->now_s + delta;
    const struct sim_rank *rk = &e->ranks[r];
    for (int i = 0; i < rk->n_running; i++) {
      /* a running task now stands for its image k periods on */
      struct sim_task *t = &e->tasks[rk->running[i]];
      t->mark_s += delta;
      t->start_s += delta;
      e->cmp.idle0[rk->running[i]] += idle;
    }
  }
  sim_engine_shift(e, delta);
  e->cmp.inserted++;
}

/* Two 1F1B periods in a row that differ from the one before by the same
 * shift (a stage whose phase keeps sliding, a queue that keeps growing) do
 * not converge within a step's few periods: give up at once rather than at
 * the last anchor (speed only; the whole step is simulated either way). */
static bool drifting(struct sim_engine *e, const struct sim_snap *a, const struct sim_snap *b) {
  struct sim_cmp *c = &e->cmp;
  double tol = SIM_CMP_TOL * b->now_s;
  bool same = c->drift_valid;
  for (int32_t i = 0; i < e->n_streams; i++) {
    double ds = b->started[i] - a->started[i], dl = b->left[i] - a->left[i];
    same = same && c->drift[2 * i] == ds && fabs(c->drift[2 * i + 1] - dl) <= tol;
    c->drift[2 * i] = ds;
    c->drift[2 * i + 1] = dl;
  }
  c->drift_valid = true;
  return same;
}

static void swap(struct sim_snap *x, struct sim_snap *y) {
  struct sim_snap t = *x;
  *x = *y;
  *y = t;
}

/* ---- per-stage periods (docs/step-model.md section 11) ----
 * Comm-bound FSDP with pp > 1 (zero2 tp4 pp4): stages touch only through pp
 * sends, and each repeats with a period of its own while no send between
 * stages of different periods binds. Each stage's pair anchors are compared
 * with the one before (that stage's streams and integrals only); once every
 * stage matches, the k missing periods are inserted at once, each rank
 * frozen for k of its own periods. Valid when (checked, else the whole step
 * is simulated):
 *  - the graph is invariant under the per-stage shifts (invariant());
 *  - no start on b was triggered by a finish on a (a, b of different
 *    periods) since the older of their compared anchors, and the slack of
 *    each such send family, linear in the period index, is not negative at
 *    its last inserted instance (stage_slack: without it a send
 *    can come to bind inside the inserted periods, where the receiver then
 *    locks to the sender's period); after the cut nothing may start before
 *    its rank's inserted time (frozen_s) nor before the image of a
 *    predecessor finished before the cut (nb);
 *  - what stage_recv assumes at the cut (stage_cut_ok).
 * The pp sends a stage receives are not integrated online here: they slide
 * against the receiver from period to period, so stage_recv adds them after
 * the run (requiring each to lie inside the receiver's own comm instead
 * would hold the insertion back by three micro-batches). */

static double stage_period(const struct sim_cmp *c, int32_t r) {
  return c->stg[2 * r + 1].now_s - c->stg[2 * r].now_s;
}

/* Two anchors of one stage agree up to the shift (its streams and
 * integrals; the transfers into it are checked apart). */
static bool same_stage(const struct sim_engine *e, const struct sim_snap *a,
                       const struct sim_snap *b, int32_t rank) {
  double tol = SIM_CMP_TOL * b->now_s;
  int32_t moved = 0;
  const struct sim_rank *rk = &e->ranks[rank];
  for (int j = 0; j < rk->n_streams; j++)
    if (!same_stream(a, b, rk->streams[j], tol, &moved))
      return false;
  return moved > 0 && b->now_s > a->now_s;
}

static int32_t stream_rank(const struct sim_engine *e, int32_t s) { return e->streams[s].rank; }

/* Tasks of stream s finished so far (the running one is its head). */
static int32_t finished_on(const struct sim_engine *e, int32_t s) {
  const struct sim_stream *st = &e->streams[s];
  return st->head == SIM_NONE ? stream_count(e, s) : e->cmp.pos[st->head];
}

/* The receiving task of pp send x (its one edge to another rank), SIM_NONE. */
static int32_t send_target(const struct sim_engine *e, int32_t x) {
  int32_t a = stream_rank(e, e->tasks[x].stream);
  for (int32_t j = e->tasks[x].edges; j != SIM_NONE; j = e->edges[j].next)
    if (stream_rank(e, e->tasks[e->edges[j].to].stream) != a)
      return e->edges[j].to;
  return SIM_NONE;
}

/* Started on its stream by now (running or finished). */
static bool has_started(const struct sim_engine *e, int32_t y) {
  const struct sim_stream *st = &e->streams[e->tasks[y].stream];
  int32_t started = st->head == SIM_NONE ? stream_count(e, e->tasks[y].stream)
                                         : e->cmp.pos[st->head] + (st->running != SIM_NONE);
  return e->cmp.pos[y] < started;
}

/* The slack of the sends between stages of different periods inside the
 * inserted periods. A send family (one send a period on the sender's
 * stream) has slack start(receiver) - end(send), linear in the period index
 * while both stages repeat: s_n = s_0 + n (P_b - P_a). Its last instance
 * wholly before the cut (send finished, receiver started) gives s_0; the
 * instances up to the first one whose receiver starts after the cut are
 * inserted, so none of them may bind (slack < 0: the receiver would have
 * waited, locking to the sender's period inside the inserted time, which
 * the frozen copies do not reproduce). The first one after the cut is
 * simulated and may bind. Checked at the last inserted instance; an
 * instance at the cut that bound (slack 0) is not counted as slack. */
static bool stage_slack(const struct sim_engine *e, const struct sim_snap *A,
                        const struct sim_snap *B, int32_t k) {
  const struct sim_cmp *c = &e->cmp;
  double tol = SIM_CMP_TOL * e->now_s;
  for (int32_t s = 0; s < e->n_streams; s++) {
    int32_t first = e->streams[s].first, d = B->started[s] - A->started[s];
    if (first == SIM_NONE || e->meta[first].peer < 0 || d <= 0)
      continue;
    int32_t a = stream_rank(e, s), n = stream_count(e, s), q = 0;
    const int32_t *ids = &c->sid[c->soff[s]];
    /* q: the first send whose receiver has not started at the cut */
    while (q < c->fin[s] && send_target(e, ids[q]) != SIM_NONE &&
           has_started(e, send_target(e, ids[q])))
      q++;
    for (int32_t p = q - d > 0 ? q - d : 0; p < q && p < n; p++) {
      int32_t x = ids[p], y = send_target(e, x);
      if (y == SIM_NONE)
        continue;
      double dp = stage_period(c, stream_rank(e, e->tasks[y].stream)) - stage_period(c, a);
      if (fabs(dp) <= tol)
        continue;
      double slack = e->tasks[y].start_s - e->tasks[x].end_s;
      int32_t inserted = (q + k * d - p + d - 1) / d - 1; /* instances before the first real one */
      if (slack <= tol || slack + (double)inserted * dp < -tol)
        return false;
    }
  }
  return true;
}

/* Edges from tasks finished before the cut to tasks of another rank: a
 * target running at the cut (moved by its own rank's k periods) must have
 * started after the predecessor's image (checked, !apply); one not started
 * yet may not start before it (apply: nb, checked as it starts). Edges
 * between ranks leave pp sends only (lower.c, emit_sends), which have
 * streams of their own: the other streams are not scanned. */
static bool stage_edges(struct sim_engine *e, int32_t k, bool apply) {
  struct sim_cmp *c = &e->cmp;
  double tol = SIM_CMP_TOL * e->now_s;
  for (int32_t s = 0; s < e->n_streams; s++) {
    int32_t a = stream_rank(e, s);
    if (e->streams[s].first == SIM_NONE || e->meta[e->streams[s].first].peer < 0)
      continue;
    double delta = (double)k * stage_period(c, a);
    const int32_t *ids = &c->sid[c->soff[s]];
    for (int32_t p = 0; p < c->fin[s]; p++)
      for (int32_t j = e->tasks[ids[p]].edges; j != SIM_NONE; j = e->edges[j].next) {
        int32_t to = e->edges[j].to, ts = e->tasks[to].stream;
        const struct sim_stream *st = &e->streams[ts];
        if (st->rank == a || (st->running != to && c->pos[to] < c->fin[ts]))
          continue;
        double t = e->tasks[ids[p]].end_s + delta;
        if (st->running == to) {
          if (!apply && e->tasks[to].start_s + (double)k * stage_period(c, st->rank) < t - tol)
            return false;
        } else if (apply && t > c->nb[to]) {
          c->nb[to] = t;
        }
      }
  }
  return true;
}

/* What stage_recv relies on at the cut: a task running on rank r started
 * less than one of r's periods before (so its earlier image and the one
 * after the inserted time stay apart from the period they are mapped to),
 * and the last period's sends of every send stream lie in its rank's
 * repeating regime (the inserted sends are their images). */
static bool stage_cut_ok(const struct sim_engine *e, const struct sim_snap *A,
                         const struct sim_snap *B) {
  const struct sim_cmp *c = &e->cmp;
  double tol = SIM_CMP_TOL * e->now_s;
  for (int32_t s = 0; s < e->n_streams; s++) {
    int32_t r = stream_rank(e, s), y = e->streams[s].running, first = e->streams[s].first;
    double P = stage_period(c, r);
    if (y != SIM_NONE && (e->tasks[y].start_s < e->now_s - P || e->tasks[y].due_s > e->now_s + P))
      return false;
    int32_t d = B->started[s] - A->started[s];
    if (first == SIM_NONE || e->meta[first].peer < 0 || d <= 0)
      continue;
    if (c->fin[s] < d ||
        e->tasks[c->sid[c->soff[s] + c->fin[s] - d]].start_s < c->stg[2 * r].now_s - tol)
      return false;
  }
  return true;
}

/* Insert k periods of rank r's own length at now. */
static void stage_insert_rank(struct sim_engine *e, int32_t r, int32_t k) {
  struct sim_cmp *c = &e->cmp;
  const struct sim_snap *a = &c->stg[2 * r], *b = &c->stg[2 * r + 1];
  double delta = (double)k * (b->now_s - a->now_s);
  double idle = (double)k * (b->acc[r].idle_s - a->acc[r].idle_s);
  add_scaled(&e->acc[r], &a->acc[r], &b->acc[r], (double)k, c->n_colls);
  e->acc[r].t_s = e->now_s + delta;
  c->cut_shift[r] = delta;
  c->frozen_s[r] = e->now_s + delta;
  const struct sim_rank *rk = &e->ranks[r];
  for (int i = 0; i < rk->n_running; i++) {
    struct sim_task *t = &e->tasks[rk->running[i]];
    t->mark_s += delta;
    t->start_s += delta;
    c->idle0[rk->running[i]] += idle;
  }
  sim_engine_shift_rank(e, r, delta);
}

static void stage_try_insert(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  int32_t n = e->n_ranks, k = c->glob_need;
  double tol = SIM_CMP_TOL * e->now_s;
  for (int32_t r = 0; r < n; r++)
    if (!c->stg_ok[r] || e->now_s - c->stg[2 * r + 1].now_s >= stage_period(c, r))
      return;
  struct sim_snap *A = &c->stg[2 * n + 1], *B = &c->stg[2 * n + 2];
  for (int32_t s = 0; s < e->n_streams; s++) {
    int32_t r = stream_rank(e, s);
    A->started[s] = c->stg[2 * r].started[s];
    B->started[s] = c->stg[2 * r + 1].started[s];
    c->fin[s] = finished_on(e, s);
  }
  for (int32_t a = 0; a < n; a++)
    for (int32_t b = 0; b < n; b++) {
      if (a == b || fabs(stage_period(c, a) - stage_period(c, b)) <= tol)
        continue;
      double since = fmin(c->stg[2 * a].now_s, c->stg[2 * b].now_s);
      if (c->bind_s[a * n + b] >= since)
        return;
    }
  if (!invariant(e, A, B, 2, 0) || !stage_edges(e, k, false) || !stage_slack(e, A, B, k) ||
      !stage_cut_ok(e, A, B))
    return;
  stage_edges(e, k, true);
  c->cut_s = e->now_s;
  c->cut_k = k;
  for (int32_t s = 0; s < e->n_streams; s++) {
    c->cut_run[s] = e->streams[s].running;
    c->cut_d[s] = B->started[s] - A->started[s];
  }
  for (int32_t r = 0; r < n; r++) {
    sim_acc_advance(e, r); /* integrals up to the cut */
    stage_insert_rank(e, r, k);
  }
  c->glob_need = 0;
  c->staged = true;
  c->inserted++;
}

/* ---- transfers received, with per-stage periods ----
 * A pp send counts as comm of the stage receiving it (account.c): the
 * receiver's exposed or overlapped time grows by the part of the send not
 * under its own comm, split by its compute stream being busy. Between
 * stages of different periods the sends slide against the receiver's
 * activity from period to period, so the inserted periods cannot carry
 * them as k copies; the engine therefore integrates each rank's own comm
 * only (acc_start), and here, with the step done, each send into a rank
 * at its time in the whole step (simulated, or the image j periods on of
 * one of the sender's last period before the cut) is laid over the
 * receiver's timeline at that time: as simulated before the cut and after
 * its inserted time, and inside it the receiver's last period before the
 * cut, j of its periods back. Exact as the sweep is, in another order. */

struct span {
  double a, b; /* [a, b) */
};

/* Stream s's tasks in the whole step's time, in start order: as simulated,
 * and the one running at the cut also as it ran before (its image k
 * periods earlier). */
static int32_t own_spans(const struct sim_engine *e, int32_t s, struct span *out) {
  const struct sim_cmp *c = &e->cmp;
  double shift = c->cut_shift[stream_rank(e, s)];
  const int32_t *ids = &c->sid[c->soff[s]];
  int32_t n = stream_count(e, s), k = 0;
  for (int32_t p = 0; p < n; p++) {
    const struct sim_task *t = &e->tasks[ids[p]];
    if (ids[p] == c->cut_run[s])
      out[k++] = (struct span){t->start_s - shift, t->end_s - shift};
    out[k++] = (struct span){t->start_s, t->end_s};
  }
  return k;
}

/* Stream s's sends to rank b in the whole step's time, in start order:
 * those finished before the cut, the images of its last period's (j = 1
 * .. k periods on), and those started after. */
static int32_t send_spans(const struct sim_engine *e, int32_t s, int32_t b, struct span *out) {
  const struct sim_cmp *c = &e->cmp;
  const int32_t *ids = &c->sid[c->soff[s]];
  int32_t n = stream_count(e, s), fin = c->fin[s], d = c->cut_d[s], k = 0;
  double P = stage_period(c, stream_rank(e, s));
  for (int32_t p = 0; p <= n; p++) { /* p == n: every send finished before the cut */
    if (p == fin)
      for (int32_t j = 1; j <= c->cut_k && d > 0; j++)
        for (int32_t q = fin - d; q < fin; q++) {
          const struct sim_task *t = &e->tasks[ids[q]];
          if (e->meta[ids[q]].peer == b)
            out[k++] = (struct span){t->start_s + j * P, t->end_s + j * P};
        }
    if (p == n)
      break;
    const struct sim_task *t = &e->tasks[ids[p]];
    if (e->meta[ids[p]].peer == b)
      out[k++] = (struct span){t->start_s, t->end_s};
  }
  return k;
}

/* The union of n sorted lists (list i: in[off[i] .. off[i + 1])), in start
 * order, into out; returns its length. */
static int32_t union_of(const struct span *in, const int32_t *off, int n, struct span *out) {
  int32_t at[SIM_MAX_RANK_STREAMS], k = 0;
  for (int i = 0; i < n; i++)
    at[i] = off[i];
  for (;;) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (at[i] < off[i + 1] && (best < 0 || in[at[i]].a < in[at[best]].a))
        best = i;
    if (best < 0)
      return k;
    struct span x = in[at[best]++];
    if (k > 0 && x.a <= out[k - 1].b)
      out[k - 1].b = x.b > out[k - 1].b ? x.b : out[k - 1].b;
    else
      out[k++] = x;
  }
}

/* The first of the sorted, disjoint spans l[0 .. n) that ends after x (n
 * when none). */
static int32_t ending_after(const struct span *l, int32_t n, double x) {
  int32_t lo = 0, hi = n;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (l[mid].b <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Length of [x0, x1) inside the sorted, disjoint spans l[0 .. n). */
static double inside(const struct span *l, int32_t n, double x0, double x1) {
  double t = 0;
  for (int32_t i = ending_after(l, n, x0); i < n && l[i].a < x1; i++) {
    double a = l[i].a > x0 ? l[i].a : x0, b = l[i].b < x1 ? l[i].b : x1;
    t += b > a ? b - a : 0;
  }
  return t;
}

/* A receiver's timeline: its own comm streams' spans (list i: own[off[i]
 * .. off[i + 1]), each sorted and disjoint) and its compute spans. */
struct recv_line {
  const struct span *own, *comp;
  const int32_t *off;
  int n, n_comp;
};

/* [x0, x1) of the timeline as simulated: the part not under own comm,
 * split by compute busy or idle. The own streams are walked together from
 * x0 (a cursor each): a point under one of their spans moves to the
 * furthest end among those covering it; a free point starts a gap up to
 * the next span's start. */
static void not_own(const struct recv_line *L, double x0, double x1, double *idle, double *busy) {
  int32_t at[SIM_MAX_RANK_STREAMS];
  for (int i = 0; i < L->n; i++)
    at[i] = L->off[i] + ending_after(L->own + L->off[i], L->off[i + 1] - L->off[i], x0);
  double g = x0;
  while (g < x1) {
    double cover = g, next = x1;
    for (int i = 0; i < L->n; i++) {
      while (at[i] < L->off[i + 1] && L->own[at[i]].b <= g)
        at[i]++;
      if (at[i] == L->off[i + 1])
        continue;
      const struct span *p = &L->own[at[i]];
      if (p->a <= g)
        cover = p->b > cover ? p->b : cover;
      else
        next = p->a < next ? p->a : next;
    }
    if (cover > g) {
      g = cover;
      continue;
    }
    double under = inside(L->comp, L->n_comp, g, next);
    *busy += under;
    *idle += (next - g) - under;
    g = next;
  }
}

/* The same at whole-step times: inside rank r's inserted time, mapped j
 * periods back into its last period before the cut. */
static void not_own_at(const struct sim_engine *e, int32_t r, const struct recv_line *L, double x0,
                       double x1, double *idle, double *busy) {
  const struct sim_cmp *c = &e->cmp;
  double cut = c->cut_s, end = cut + c->cut_shift[r], P = stage_period(c, r);
  if (x0 < cut) {
    not_own(L, x0, x1 < cut ? x1 : cut, idle, busy);
    x0 = cut;
  }
  while (x0 < x1 && x0 < end) {
    /* x0 in the j-th inserted period, [cut + (j - 1) P, cut + j P) */
    int32_t j = (int32_t)floor((x0 - cut) / P) + 1;
    j = j < 1 ? 1 : j;
    while (j < c->cut_k && cut + j * P <= x0) /* rounding at a period's edge */
      j++;
    j = j < c->cut_k ? j : c->cut_k;
    double y = j == c->cut_k ? end : cut + j * P;
    y = y < x1 ? y : x1;
    not_own(L, x0 - j * P, y - j * P, idle, busy);
    x0 = y;
  }
  if (x0 < x1)
    not_own(L, x0, x1, idle, busy);
}

/* Add every rank's transfers received (see above). */
static enum pl_status stage_recv(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  /* room for one rank's tasks with a pre-image per stream, and twice for
   * every send with its images (the lists, then their union) */
  size_t cap = 1, sends = 1;
  for (int32_t r = 0; r < e->n_ranks; r++) {
    size_t n = 0;
    for (int j = 0; j < e->ranks[r].n_streams; j++)
      n += (size_t)stream_count(e, e->ranks[r].streams[j]) + 1;
    cap = n > cap ? n : cap;
  }
  for (int32_t s = 0; s < e->n_streams; s++)
    if (e->streams[s].first != SIM_NONE && e->meta[e->streams[s].first].peer >= 0)
      sends += (size_t)stream_count(e, s) + (size_t)c->cut_k * (size_t)c->cut_d[s];
  struct span *buf = sim_malloc((cap + 2 * sends) * sizeof *buf);
  if (buf == NULL)
    return PL_ERR_NOMEM;
  struct span *raw = buf + cap, *in = raw + sends;
  for (int32_t r = 0; r < e->n_ranks; r++) {
    /* the sends into r, as one union (1F1B with vp = 1: one stream of
     * each neighbour sends to it) */
    int32_t off[SIM_MAX_RANK_STREAMS + 1], n = 0;
    off[0] = 0;
    for (int32_t s = 0; s < e->n_streams && n < SIM_MAX_RANK_STREAMS; s++) {
      int32_t first = e->streams[s].first;
      if (first == SIM_NONE || stream_rank(e, s) == r || e->meta[first].peer < 0)
        continue;
      int32_t got = send_spans(e, s, r, raw + off[n]);
      if (got > 0) {
        off[n + 1] = off[n] + got;
        n++;
      }
    }
    int32_t m = union_of(raw, off, n, in);
    if (m == 0)
      continue;
    /* r's own spans: compute first in buf, then each comm stream */
    const struct sim_rank *rk = &e->ranks[r];
    int32_t own_off[SIM_MAX_RANK_STREAMS + 1], n_own = 0, n_comp = 0, at = 0;
    for (int j = 0; j < rk->n_streams; j++) {
      int32_t s = rk->streams[j], first = e->streams[s].first;
      if (first != SIM_NONE && e->tasks[first].res == SIM_RES_COMPUTE)
        at = n_comp = own_spans(e, s, buf);
    }
    own_off[0] = at;
    for (int j = 0; j < rk->n_streams; j++) {
      int32_t s = rk->streams[j], first = e->streams[s].first;
      if (first == SIM_NONE || e->tasks[first].res == SIM_RES_COMPUTE)
        continue;
      own_off[n_own + 1] = own_off[n_own] + own_spans(e, s, buf + own_off[n_own]);
      n_own++;
    }
    struct recv_line L = {buf, buf, own_off, n_own, n_comp};
    double idle = 0, busy = 0;
    for (int32_t i = 0; i < m; i++)
      not_own_at(e, r, &L, in[i].a, in[i].b, &idle, &busy);
    e->acc[r].exposed_s += idle;
    e->acc[r].overlapped_s += busy;
  }
  sim_free(buf);
  return PL_OK;
}

static enum pl_status sim_cmp_stage_end(struct sim_engine *e) {
  if (!e->cmp.stage_mode || !e->cmp.staged || e->cmp.failed)
    return PL_OK;
  return stage_recv(e);
}

/* A steady pair of one stage starts: compare with its pair before. */
static void stage_anchor(struct sim_engine *e, int32_t id) {
  struct sim_cmp *c = &e->cmp;
  if (c->glob_need <= 0 || c->staged)
    return;
  int32_t r = stream_rank(e, e->tasks[id].stream);
  struct sim_snap *old = &c->stg[2 * r], *lat = &c->stg[2 * r + 1], *cur = &c->stg[2 * e->n_ranks];
  take_rank(e, cur, r);
  cur->key = r;
  cur->idx = e->tags[id].pair;
  c->stg_ok[r] = lat->valid && lat->idx == cur->idx - 1 && same_stage(e, lat, cur, r);
  swap(old, lat);
  swap(lat, cur);
  if (c->stg_ok[r])
    stage_try_insert(e);
}

static void anchor(struct sim_engine *e, int32_t id) {
  struct sim_cmp *c = &e->cmp;
  const struct sim_tag *m = &e->tags[id];
  int mode = m->anchor;
  if (mode == 3) {
    stage_anchor(e, id);
    return;
  }
  int32_t *need = mode == 1 ? &c->need[m->pass_id] : &c->glob_need;
  if (*need <= 0)
    return;
  struct sim_snap *cur = &c->ring[c->period];
  int32_t key = mode == 1 ? m->pass_id : 0, idx = mode == 1 ? m->unit : m->pair;
  struct sim_snap *prev = mode == 1 ? &c->ring[c->period + 1] : &c->ring[idx % c->period];
  int32_t back = mode == 1 ? 1 : c->period;
  take(e, cur);
  cur->key = key;
  cur->idx = idx;
  bool paired = prev->valid && prev->key == key && prev->idx == idx - back;
  if (paired && same_state(e, prev, cur) && invariant(e, prev, cur, mode, key)) {
    insert(e, prev, cur, *need);
    *need = 0;
  } else if (paired && mode == 2 && c->period == 1 && drifting(e, prev, cur)) {
    c->failed = true;
  }
  /* the last anchor that could have matched: the step cannot be completed */
  if (*need > 0 && idx >= (mode == 1 ? c->last_unit : c->last_pair))
    c->failed = true;
  swap(prev, cur);
}

static void sim_cmp_flush(struct sim_engine *e) {
  int n = e->cmp.n_pending;
  e->cmp.n_pending = 0;
  for (int i = 0; i < n; i++)
    anchor(e, e->cmp.pending[i]);
}

const struct sim_hooks sim_cmp_hooks = {
    .init = sim_cmp_init,
    .start = sim_acc_start,
    .finish = sim_acc_finish,
    .start_stage = sim_acc_start_stage,
    .finish_stage = sim_acc_finish_stage,
    .flush = sim_cmp_flush,
    .advance = sim_acc_advance,
    .end = sim_cmp_stage_end,
};
