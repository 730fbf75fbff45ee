/* grid.c: one grid point as a training run, and its evaluation.
 *
 * Points are stored model-major with the node count innermost, so a series
 * along the GPUs is contiguous. A named strategy is predicted as given
 * (pl_predict); "best" is searched (best.c). Batch regimes: weak
 * scaling gives every GPU n sequences (gbs = n x GPUs, the same tokens per
 * GPU for every strategy at one scale, so strategies compare fairly); a
 * fixed batch keeps gbs = n at every scale (Appendix E of arXiv 2411.13055).
 *
 * Micro-batch "auto" (docs/study.md): without pipeline stages each data-
 * parallel rank runs its local batch in the largest micro-batch of at most 4
 * sequences (the paper's largest local batch) that divides it and fits in
 * memory, accumulating gradients over the rest; pipelines use micro-batches
 * of 1 sequence so that 1F1B has micro-batches to overlap. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

/* Largest micro-batch of the auto rule (see above). */
#define STUDY_AUTO_MAX_MBS 4

int64_t study_point_index(const struct pl_study *st, int model, int cluster, int batch,
                          int strategy, int node_index) {
  const struct pl_study_spec *s = &st->spec;
  int64_t i = model;
  i = i * s->n_clusters + cluster;
  i = i * s->n_batches + batch;
  i = i * s->n_strategies + strategy;
  return i * s->n_nodes + node_index;
}

/* Micro-batch sizes the auto rule tries, largest first; returns how many. */
static int auto_mbs(const struct study_strategy *ss, int64_t gpus, int64_t gbs, int64_t *out) {
  int n = 0;
  int64_t group = ss->tp * ss->pp * ss->cp;
  if (ss->pp == 1 && group > 0 && gpus % group == 0 && gbs % (gpus / group) == 0) {
    int64_t local = gbs / (gpus / group);
    for (int64_t m = STUDY_AUTO_MAX_MBS; m > 1; m--)
      if (local % m == 0)
        out[n++] = m;
  }
  out[n++] = 1; /* pl_predict names any divisibility problem */
  return n;
}

/* The run of a point (layout unresolved: pl_predict checks it). For "best"
 * only gpus, batch, seq and dtype matter. */
static void study_point_run(const struct pl_study *st, const struct pl_study_point *p,
                            struct pl_run *run) {
  const struct pl_study_spec *s = &st->spec;
  const struct study_strategy *ss = &st->strat[p->strategy];
  const struct pl_study_batch *b = &s->batches[p->batch];
  memset(run, 0, sizeof *run);
  run->model = st->models[p->model];
  run->cluster = st->clusters[p->cluster];
  run->framework = s->framework;
  struct pl_layout *l = &run->layout;
  l->gpus = p->gpus;
  l->gbs = b->kind == PL_STUDY_WEAK ? b->n * p->gpus : b->n;
  l->seq = s->seq;
  l->dtype = s->dtype;
  if (ss->best)
    return;
  l->tp = ss->tp;
  l->pp = ss->pp;
  l->cp = ss->cp;
  l->shard = ss->shard;
  l->shard_set = true;
  l->recompute = s->recompute;
  l->mbs = s->mbs > 0 ? s->mbs : 1;
}

static void set_why(struct pl_study_point *p, const char *why) {
  study_copy(p->why, sizeof p->why, why);
}

/* pl_predict at each micro-batch the spec allows (auto: largest that fits). */
static enum pl_status predict_mbs(const struct pl_study *st, const struct pl_study_point *p,
                                  struct pl_run *run, struct pl_prediction *pred,
                                  struct pl_diag *d) {
  int64_t mbs[STUDY_AUTO_MAX_MBS + 1];
  int n = 1;
  mbs[0] = run->layout.mbs;
  if (st->spec.mbs == 0)
    n = auto_mbs(&st->strat[p->strategy], run->layout.gpus, run->layout.gbs, mbs);
  enum pl_status rc = PL_OK;
  for (int i = 0; i < n; i++) {
    run->layout.mbs = mbs[i];
    pl_diag_clear(d);
    rc = pl_predict(run, pred, d);
    if (rc == PL_OK && pred->memory.fits)
      break;
  }
  return rc;
}

void study_point_eval(const struct pl_study *st, struct pl_study_point *p) {
  struct pl_run run;
  study_point_run(st, p, &run);
  if (st->strat[p->strategy].best) {
    study_best_layout(st, &run, p);
    return;
  }
  struct pl_diag d;
  if (predict_mbs(st, p, &run, &p->pred, &d) != PL_OK) {
    p->status = PL_STUDY_INFEASIBLE;
    set_why(p, d.msg);
    return;
  }
  p->has_pred = true;
  if (p->pred.memory.fits && p->pred.step.simulated) {
    p->status = PL_STUDY_OK;
    return;
  }
  p->status = PL_STUDY_NO_FIT;
  set_why(p, p->pred.memory.fits ? "not simulated" : p->pred.memory.why);
}
