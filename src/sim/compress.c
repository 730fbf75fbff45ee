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
 * Per-stage periods (compress_stage.c): when stages repeat with periods of
 * their own (comm-bound FSDP with pp > 1), each rank is frozen for k of its
 * own periods, under checks of the edges between stages of different
 * periods; the pp transfers each stage receives are added after the run, at
 * their times in the step (compress_recv.c). Snapshots: compress_snap.c;
 * what the parts share: compress_int.h.
 *
 * Assumption checked only partly: an edge into a repeated task from more
 * than one period before it is covered by the predecessor count alone. */
#include <plateau/alloc.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim/compress_int.h"

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
  if (c->stage_mode && sim_cmp_stage_init(e) != PL_OK)
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
    sim_cmp_snap_free(&c->ring[i]);
  sim_free(c->ring);
  sim_free(c->sid);
  sim_free(c->soff);
  sim_free(c->drift);
  sim_free(c->shift);
  sim_free(c->pos);
  sim_free(c->npred);
  sim_free(c->idle0);
  sim_free(c->need);
  sim_cmp_stage_free(e);
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

static void anchor(struct sim_engine *e, int32_t id) {
  struct sim_cmp *c = &e->cmp;
  const struct sim_tag *m = &e->tags[id];
  int mode = m->anchor;
  if (mode == 3) {
    sim_cmp_stage_anchor(e, id);
    return;
  }
  int32_t *need = mode == 1 ? &c->need[m->pass_id] : &c->glob_need;
  if (*need <= 0)
    return;
  struct sim_snap *cur = &c->ring[c->period];
  int32_t key = mode == 1 ? m->pass_id : 0, idx = mode == 1 ? m->unit : m->pair;
  struct sim_snap *prev = mode == 1 ? &c->ring[c->period + 1] : &c->ring[idx % c->period];
  int32_t back = mode == 1 ? 1 : c->period;
  sim_cmp_take(e, cur);
  cur->key = key;
  cur->idx = idx;
  bool paired = prev->valid && prev->key == key && prev->idx == idx - back;
  if (paired && sim_cmp_same_state(e, prev, cur) && invariant(e, prev, cur, mode, key)) {
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
