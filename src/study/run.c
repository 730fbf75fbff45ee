/* run.c: run a study: load the spec's models and clusters, lay out the
 * grid, and evaluate every point over threads (pl_par_map from search.h),
 * then the collective bus bandwidths. Points are evaluated in chunks so
 * progress is reported (and cancellation seen) from the calling thread; a
 * point's result depends only on its axes, so output does not depend on the
 * thread count. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>

/* Grids beyond this many points are refused: about 4 KB each, and minutes
 * per thousand searches (docs/study.md). */
#define STUDY_MAX_POINTS 50000

static int find_name(const char (*names)[256], int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0)
      return i;
  return -1;
}

static enum pl_status load_axes(struct pl_study *st, struct pl_diag *diag) {
  const struct pl_study_spec *s = &st->spec;
  struct pl_diag d;
  for (int i = 0; i < s->n_models; i++) {
    pl_diag_clear(&d);
    enum pl_status rc = pl_model_load(s->models[i], &st->models[i], &d);
    if (rc != PL_OK)
      return pl_diag_set(diag, rc, "spec field 'models': %s", d.msg);
  }
  for (int i = 0; i < s->n_clusters; i++) {
    pl_diag_clear(&d);
    enum pl_status rc = pl_cluster_load(s->clusters[i], &st->clusters[i], &d);
    if (rc != PL_OK)
      return pl_diag_set(diag, rc, "spec field 'clusters': %s", d.msg);
  }
  for (int i = 0; i < s->n_strategies; i++) {
    pl_diag_clear(&d);
    enum pl_status rc = study_strategy_parse(s->strategies[i], s->shard, &st->strat[i], &d);
    if (rc != PL_OK)
      return pl_diag_set(diag, rc, "spec field 'strategies': %s", d.msg);
  }
  st->baseline = pl_study_spec_strategy(s, "fsdp");
  st->focus_model = find_name(s->models, s->n_models, s->focus_model);
  st->focus_cluster = find_name(s->clusters, s->n_clusters, s->focus_cluster);
  if (st->baseline < 0)
    return pl_diag_set(diag, PL_ERR_MISSING, "spec field 'strategies': must include \"fsdp\"");
  if (st->focus_model < 0 || st->focus_cluster < 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "spec field 'focus': '%s' on '%s' is not in the grid",
                       s->focus_model, s->focus_cluster);
  return PL_OK;
}

static enum pl_status check_spec(const struct pl_study_spec *s, int64_t *n, struct pl_diag *diag) {
  if (s->n_models < 1 || s->n_clusters < 1 || s->n_nodes < 1 || s->n_strategies < 1 ||
      s->n_batches < 1 || s->n_models > PL_STUDY_MAX_AXIS || s->n_clusters > PL_STUDY_MAX_AXIS ||
      s->n_nodes > PL_STUDY_MAX_AXIS || s->n_strategies > PL_STUDY_MAX_AXIS ||
      s->n_batches > PL_STUDY_MAX_AXIS)
    return pl_diag_set(diag, PL_ERR_RANGE, "study spec: every axis needs 1 to %d entries",
                       PL_STUDY_MAX_AXIS);
  *n = (int64_t)s->n_models * s->n_clusters * s->n_batches * s->n_strategies * s->n_nodes;
  if (*n > STUDY_MAX_POINTS)
    return pl_diag_set(diag, PL_ERR_LIMIT,
                       "study spec: the grid has %lld points, more than %d; drop some axis values",
                       (long long)*n, STUDY_MAX_POINTS);
  return PL_OK;
}

/* The axes of point i (the inverse of study_point_index). */
static void decode(const struct pl_study *st, int64_t i, struct pl_study_point *p) {
  const struct pl_study_spec *s = &st->spec;
  memset(p, 0, sizeof *p);
  p->node_index = (int)(i % s->n_nodes);
  i /= s->n_nodes;
  p->strategy = (int)(i % s->n_strategies);
  i /= s->n_strategies;
  p->batch = (int)(i % s->n_batches);
  i /= s->n_batches;
  p->cluster = (int)(i % s->n_clusters);
  p->model = (int)(i / s->n_clusters);
  p->nodes = s->nodes[p->node_index];
  p->gpus = p->nodes * st->clusters[p->cluster].gpus_per_node;
}

struct chunk {
  const struct pl_study *st;
  int64_t first;
};

static void eval_item(void *ctx, int64_t i, void *out) {
  const struct chunk *c = ctx;
  struct pl_study_point *p = out;
  decode(c->st, c->first + i, p);
  study_point_eval(c->st, p);
}

static bool cancelled(const struct pl_study_opts *o) {
  return o->cancel != NULL && *o->cancel != 0;
}

static enum pl_status eval_all(struct pl_study *st, const struct pl_study_opts *o,
                               struct pl_diag *diag) {
  struct pl_par *par = NULL;
  enum pl_status rc = pl_par_new(o->threads > 0 ? o->threads : 1, NULL, &par, diag);
  if (rc != PL_OK)
    return rc;
  int64_t per = st->n_points / 50;
  if (per < 8)
    per = 8;
  for (int64_t first = 0; rc == PL_OK && first < st->n_points; first += per) {
    if (cancelled(o)) {
      rc = pl_diag_set(diag, PL_ERR_INTERNAL, "interrupted");
      break;
    }
    int64_t n = st->n_points - first < per ? st->n_points - first : per;
    struct chunk c = {st, first};
    rc = pl_par_map(par, n, sizeof *st->points, eval_item, &c, st->points + first, diag);
    if (o->progress != NULL)
      o->progress(o->progress_ud, "points", first + n, st->n_points);
  }
  pl_par_free(par);
  return rc;
}

enum pl_status pl_study_run(const struct pl_study_spec *spec, const struct pl_study_opts *opts,
                            struct pl_study **out, struct pl_diag *diag) {
  *out = NULL;
  int64_t n = 0;
  enum pl_status rc = check_spec(spec, &n, diag);
  if (rc != PL_OK)
    return rc;
  struct pl_study *st = pl_calloc(1, sizeof *st);
  if (st == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "study: out of memory");
  st->spec = *spec;
  rc = load_axes(st, diag);
  if (rc == PL_OK && (st->points = pl_calloc((size_t)n, sizeof *st->points)) == NULL)
    rc = pl_diag_set(diag, PL_ERR_NOMEM, "study: out of memory for %lld points", (long long)n);
  st->n_points = n;
  if (rc == PL_OK)
    rc = eval_all(st, opts, diag);
  if (rc == PL_OK)
    rc = study_coll_run(st, diag);
  if (rc != PL_OK) {
    pl_study_free(st);
    return rc;
  }
  *out = st;
  return PL_OK;
}

void pl_study_free(struct pl_study *st) {
  if (st == NULL)
    return;
  pl_free(st->points);
  pl_free(st->coll);
  pl_free(st->published);
  pl_free(st);
}

const char *pl_study_status_name(enum pl_study_status s) {
  switch (s) {
  case PL_STUDY_OK: return "ok";
  case PL_STUDY_NO_FIT: return "does_not_fit";
  case PL_STUDY_INFEASIBLE: return "infeasible";
  }
  return "?";
}

int64_t pl_study_count(const struct pl_study *st) { return st->n_points; }
const struct pl_study_point *pl_study_get(const struct pl_study *st, int64_t i) {
  return &st->points[i];
}
const struct pl_study_point *pl_study_at(const struct pl_study *st, int model, int cluster,
                                         int batch, int strategy, int node_index) {
  return &st->points[study_point_index(st, model, cluster, batch, strategy, node_index)];
}
int64_t pl_study_coll_count(const struct pl_study *st) { return st->n_coll; }
const struct pl_study_coll *pl_study_coll_get(const struct pl_study *st, int64_t i) {
  return &st->coll[i];
}
