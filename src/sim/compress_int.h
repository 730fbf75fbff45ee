/* compress_int.h (internal to the steady-state compression): what its
 * parts share (docs/step-model.md section 11).
 *   compress.c        the hooks, setup, and the whole-step periods: anchors
 *                     compared one period apart, the missing periods inserted
 *   compress_snap.c   snapshots of the engine's state: taken and compared
 *   compress_stage.c  per-stage periods (comm-bound FSDP with pp > 1)
 *   compress_recv.c   with per-stage periods, the transfers each stage
 *                     receives, added after the run
 * The graph check (invariant) and the scaled integrals (add_scaled) are used
 * by both kinds of period and stay inlined into each (bench_predict counts
 * instructions); compress.c calls the other three, which call none of it
 * back (scripts/check-calls.sh). */
#ifndef PL_SIM_COMPRESS_INT_H
#define PL_SIM_COMPRESS_INT_H

#include <stdbool.h>
#include <stdint.h>
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

static inline int32_t stream_count(const struct sim_engine *e, int32_t s) {
  return e->cmp.soff[s + 1] - e->cmp.soff[s];
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

static inline void swap(struct sim_snap *x, struct sim_snap *y) {
  struct sim_snap t = *x;
  *x = *y;
  *y = t;
}

static inline double stage_period(const struct sim_cmp *c, int32_t r) {
  return c->stg[2 * r + 1].now_s - c->stg[2 * r].now_s;
}

static inline int32_t stream_rank(const struct sim_engine *e, int32_t s) {
  return e->streams[s].rank;
}

/* compress_snap.c: snapshots. */
void sim_cmp_snap_free(struct sim_snap *s);
/* The whole engine's state into s (every rank's integrals advanced to now). */
void sim_cmp_take(struct sim_engine *e, struct sim_snap *s);
/* The same for rank r: its streams and integrals only. */
void sim_cmp_take_rank(struct sim_engine *e, struct sim_snap *s, int32_t r);
bool sim_cmp_same_stream(const struct sim_snap *a, const struct sim_snap *b, int32_t i, double tol,
                         int32_t *moved);
bool sim_cmp_same_state(const struct sim_engine *e, const struct sim_snap *a,
                        const struct sim_snap *b);

/* compress_stage.c: per-stage periods. */
enum pl_status sim_cmp_stage_init(struct sim_engine *e);
void sim_cmp_stage_free(struct sim_engine *e);
/* Anchor task id (tag anchor 3) starts a steady pair of its stage. */
void sim_cmp_stage_anchor(struct sim_engine *e, int32_t id);

/* compress_recv.c: the end hook: with per-stage periods inserted, every
 * rank's transfers received. */
enum pl_status sim_cmp_stage_end(struct sim_engine *e);

#endif
