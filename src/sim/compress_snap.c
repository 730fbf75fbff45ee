/* compress_snap.c: snapshots of the engine's state for the steady-state
 * compression (compress_int.h): per stream the tasks started, what is left
 * of the running one and its rate, per rank the integrals; two snapshots
 * one period apart agree when every stream is in the same state up to the
 * shift. */
#include <plateau/alloc.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "sim/compress_int.h"

void sim_cmp_snap_free(struct sim_snap *s) {
  sim_free(s->started);
  sim_free(s->left);
  sim_free(s->rate);
  sim_free(s->acc);
  memset(s, 0, sizeof *s);
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

void sim_cmp_take(struct sim_engine *e, struct sim_snap *s) {
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
void sim_cmp_take_rank(struct sim_engine *e, struct sim_snap *s, int32_t r) {
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
bool sim_cmp_same_stream(const struct sim_snap *a, const struct sim_snap *b, int32_t i, double tol,
                         int32_t *moved) {
  if (b->started[i] < a->started[i] || (a->left[i] < 0) != (b->left[i] < 0) ||
      a->rate[i] != b->rate[i] || fabs(a->left[i] - b->left[i]) > tol)
    return false;
  *moved += b->started[i] - a->started[i];
  return true;
}

/* The two states agree up to the shift. */
bool sim_cmp_same_state(const struct sim_engine *e, const struct sim_snap *a,
                        const struct sim_snap *b) {
  double tol = SIM_CMP_TOL * b->now_s;
  int32_t moved = 0;
  for (int32_t i = 0; i < e->n_streams; i++)
    if (!sim_cmp_same_stream(a, b, i, tol, &moved))
      return false;
  for (int32_t r = 0; r < e->n_ranks; r++)
    if (a->acc[r].n_in != b->acc[r].n_in)
      return false;
  return moved > 0 && b->now_s > a->now_s;
}
