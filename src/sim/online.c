/* online.c: the step accounting integrated while the engine runs, on the
 * compressed path (docs/step-model.md section 11), and the records that
 * compression checks at each task start.
 *
 * Accounting (what account.c computes from the finished timeline) as
 * integrals over time of functions of each rank's running set: compute and
 * optimizer time (its compute stream busy), comm exposed or overlapped
 * (any collective of the rank or pp transfer into it running, compute idle
 * or busy), and per collective the time and the exposed time of its tasks,
 * a task with two collectives split in proportion to their time alone. The
 * sums are the same as account.c's per-task sums, in another order (equal
 * to ~1e-15 relative).
 *
 * The engine calls these through sim_cmp_hooks (compress.c); nothing here
 * calls compression: anchors are queued in e->cmp.pending for
 * sim_cmp_flush, and per-stage starts are recorded in e->cmp for its
 * checks. */
#include <plateau/alloc.h>

#include <stddef.h>

#include "sim/sim_int.h"

static inline void advance(struct sim_engine *e, int32_t rank) {
  struct sim_acc *a = &e->acc[rank];
  double dt = e->now_s - a->t_s;
  if (!(dt > 0))
    return;
  a->t_s = e->now_s;
  if (a->comp != 0)
    *(a->comp == 2 ? &a->optimizer_s : &a->compute_s) += dt;
  else
    a->idle_s += dt;
  if (a->n_comm + a->n_in > 0)
    *(a->comp != 0 ? &a->overlapped_s : &a->exposed_s) += dt;
}

void sim_acc_advance(struct sim_engine *e, int32_t rank) { advance(e, rank); }

/* An anchor task started: compression compares states there at its next
 * flush (sim_cmp_flush, after the event). */
static void queue_anchor(struct sim_engine *e, int32_t id) {
  struct sim_cmp *c = &e->cmp;
  if (c->n_pending < (int)(sizeof c->pending / sizeof c->pending[0]))
    c->pending[c->n_pending++] = id;
}

/* Per-stage periods: a task starts on rank. Records starts
 * triggered by another rank's finish (a binding edge across stages), and
 * after the insertion checks that nothing starts before its rank's inserted
 * time or before the image of a predecessor finished before the cut. */
static void stage_start(struct sim_engine *e, int32_t id, int32_t rank) {
  struct sim_cmp *c = &e->cmp;
  if (c->fin_rank >= 0 && c->fin_rank != rank)
    c->bind_s[c->fin_rank * e->n_ranks + rank] = e->now_s;
  if (c->staged) {
    double tol = SIM_CMP_TOL * e->now_s;
    if (e->now_s < c->frozen_s[rank] - tol || e->now_s < c->nb[id] - tol)
      c->failed = true;
  }
}

/* A collective task of the rank ends: its time and the compute-idle part of
 * it, split between its two collectives in proportion to their time alone. */
void sim_acc_task_done(struct sim_engine *e, int32_t id, int32_t rank) {
  const struct sim_meta *m = &e->meta[id];
  const struct sim_task *t = &e->tasks[id];
  struct sim_acc *a = &e->acc[rank];
  double len = e->now_s - t->start_s, exp = a->idle_s - e->cmp.idle0[id], f = 1;
  if (m->coll2 >= 0) {
    double w1 = m->calls * e->colls[m->coll].time_s, w2 = m->calls2 * e->colls[m->coll2].time_s;
    f = w1 + w2 > 0 ? w1 / (w1 + w2) : 1;
    a->time_s[m->coll2] += len * (1 - f);
    a->exp_s[m->coll2] += exp * (1 - f);
  }
  a->time_s[m->coll] += len * f;
  a->exp_s[m->coll] += exp * f;
}

/* Online accounting (compressed path): bring the rank's integrals up to now
 * before its running set changes; a pp transfer also counts as comm of the
 * stage receiving it (account.c). With per-stage periods (stage) it does
 * not here: the receiver's integrals then hold its own comm only, and
 * stage_recv (compress_recv.c) adds the transfers it receives once the step is done, at
 * their times in the whole step (inlined into each caller, stage a
 * constant there). */
__attribute__((always_inline)) static inline void acc_start(struct sim_engine *e, int32_t id,
                                                            int32_t rank, bool stage) {
  const struct sim_meta *m = &e->meta[id];
  struct sim_acc *a = &e->acc[rank];
  advance(e, rank);
  if (e->tasks[id].res == SIM_RES_COMPUTE)
    a->comp = m->kind == PL_TASK_OPTIMIZER ? 2 : 1;
  else
    a->n_comm++;
  e->cmp.idle0[id] = a->idle_s;
  if (stage)
    stage_start(e, id, rank);
  if (m->coll >= 0)
    a->calls[m->coll] += m->calls;
  if (m->coll2 >= 0)
    a->calls[m->coll2] += m->calls2;
  if (m->peer >= 0 && !stage) {
    advance(e, m->peer);
    e->acc[m->peer].n_in++;
  }
  if (e->cmp.on && e->tags[id].anchor != 0)
    queue_anchor(e, id);
}

/* inlined into each caller, stage a constant there */
__attribute__((always_inline)) static inline void acc_finish(struct sim_engine *e, int32_t id,
                                                             int32_t rank, bool stage) {
  const struct sim_meta *m = &e->meta[id];
  struct sim_acc *a = &e->acc[rank];
  advance(e, rank);
  if (e->tasks[id].res == SIM_RES_COMPUTE)
    a->comp = 0;
  else
    a->n_comm--;
  if (m->coll >= 0)
    sim_acc_task_done(e, id, rank);
  if (m->peer >= 0 && !stage) {
    advance(e, m->peer);
    e->acc[m->peer].n_in--;
  }
}

void sim_acc_start(struct sim_engine *e, int32_t id, int32_t rank) {
  acc_start(e, id, rank, false);
}

void sim_acc_finish(struct sim_engine *e, int32_t id, int32_t rank) {
  acc_finish(e, id, rank, false);
}

/* The same with per-stage periods (the checks' records, no transfers in). */
void sim_acc_start_stage(struct sim_engine *e, int32_t id, int32_t rank) {
  acc_start(e, id, rank, true);
}

void sim_acc_finish_stage(struct sim_engine *e, int32_t id, int32_t rank) {
  acc_finish(e, id, rank, true);
}

