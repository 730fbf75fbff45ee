/* compress_stage.c: per-stage periods of the steady-state compression
 * (compress_int.h; docs/step-model.md section 11): each stage compared with
 * its own pair before, and once every stage matches, each rank frozen for
 * k of its own periods, under the checks below. */
#include <plateau/alloc.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim/compress_int.h"

/* Per-stage periods: snapshots and the checks' arrays. */
enum pl_status sim_cmp_stage_init(struct sim_engine *e) {
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

void sim_cmp_stage_free(struct sim_engine *e) {
  struct sim_cmp *c = &e->cmp;
  if (!c->stage_mode)
    return;
  for (int32_t i = 0; c->stg != NULL && i < 2 * e->n_ranks + 3; i++)
    sim_cmp_snap_free(&c->stg[i]);
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

/* Two anchors of one stage agree up to the shift (its streams and
 * integrals; the transfers into it are checked apart). */
static bool same_stage(const struct sim_engine *e, const struct sim_snap *a,
                       const struct sim_snap *b, int32_t rank) {
  double tol = SIM_CMP_TOL * b->now_s;
  int32_t moved = 0;
  const struct sim_rank *rk = &e->ranks[rank];
  for (int j = 0; j < rk->n_streams; j++)
    if (!sim_cmp_same_stream(a, b, rk->streams[j], tol, &moved))
      return false;
  return moved > 0 && b->now_s > a->now_s;
}

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

/* A steady pair of one stage starts: compare with its pair before. */
void sim_cmp_stage_anchor(struct sim_engine *e, int32_t id) {
  struct sim_cmp *c = &e->cmp;
  if (c->glob_need <= 0 || c->staged)
    return;
  int32_t r = stream_rank(e, e->tasks[id].stream);
  struct sim_snap *old = &c->stg[2 * r], *lat = &c->stg[2 * r + 1], *cur = &c->stg[2 * e->n_ranks];
  sim_cmp_take_rank(e, cur, r);
  cur->key = r;
  cur->idx = e->tags[id].pair;
  c->stg_ok[r] = lat->valid && lat->idx == cur->idx - 1 && same_stage(e, lat, cur, r);
  swap(old, lat);
  swap(lat, cur);
  if (c->stg_ok[r])
    stage_try_insert(e);
}
