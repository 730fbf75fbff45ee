/* fig_util.c: building blocks of the study's figures: series along the
 * GPU axis taken from grid points, and the metrics a figure can plot. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

#include <plateau/band.h>

struct study_series *study_panel_add(struct study_panel *pn, const char *title, int color, int dash,
                                     int point) {
  if (pn->n_series >= STUDY_MAX_SERIES)
    return NULL;
  struct study_series *s = &pn->s[pn->n_series++];
  memset(s, 0, sizeof *s);
  study_copy(s->title, sizeof s->title, title);
  s->color = color;
  s->dash = dash;
  s->point = point;
  return s;
}

void study_series_add(struct study_series *s, double x, double y, const char *label) {
  if (s == NULL || s->n >= STUDY_MAX_PTS)
    return;
  s->x[s->n] = x;
  s->y[s->n] = y;
  study_setf(s->label[s->n], sizeof s->label[0], "%s", label != NULL ? label : "");
  s->n++;
}

bool study_metric(const struct pl_study_point *p, enum study_metric m, double *out) {
  if (p->status != PL_STUDY_OK || !p->has_pred)
    return false;
  const struct pl_step *s = &p->pred.step;
  *out = 0.0;
  switch (m) {
  case STUDY_M_TOKENS_PER_S: *out = s->tokens_per_s; break;
  case STUDY_M_TOKENS_PER_S_PER_GPU: *out = s->tokens_per_s_per_gpu; break;
  case STUDY_M_MFU_PCT: *out = 100.0 * s->mfu; break;
  case STUDY_M_GPU_W: *out = s->gpu_w; break;
  case STUDY_M_TOKENS_PER_J: *out = s->tokens_per_j; break;
  case STUDY_M_STEP_S: *out = s->step_time_s; break;
  }
  return *out > 0.0;
}

int study_series_nodes(const struct pl_study *st, struct study_series *s, int model, int cluster,
                       int batch, int strategy, enum study_metric m) {
  int added = 0;
  for (int k = 0; k < st->spec.n_nodes; k++) {
    const struct pl_study_point *p = pl_study_at(st, model, cluster, batch, strategy, k);
    double v = 0.0;
    if (study_metric(p, m, &v)) {
      study_series_add(s, (double)p->gpus, v, NULL);
      added++;
    }
  }
  return added;
}

/* The band's ends for metric m of a simulated point (pl_band_ranges). */
static bool band_of(const struct pl_study_point *p, enum study_metric m, double *lo, double *hi) {
  double v = 0.0;
  if (!study_metric(p, m, &v))
    return false;
  struct pl_band b;
  pl_band_of(&p->pred, &b);
  if (!b.known)
    return false;
  struct pl_band_ranges r;
  pl_band_ranges(&b, &p->pred.step, &r);
  switch (m) {
  case STUDY_M_TOKENS_PER_S: *lo = r.tokens_per_s[0], *hi = r.tokens_per_s[1]; break;
  case STUDY_M_TOKENS_PER_S_PER_GPU:
    *lo = r.tokens_per_s[0] / (double)p->gpus, *hi = r.tokens_per_s[1] / (double)p->gpus;
    break;
  case STUDY_M_MFU_PCT: *lo = 100.0 * r.mfu[0], *hi = 100.0 * r.mfu[1]; break;
  case STUDY_M_STEP_S: *lo = r.step_time_s[0], *hi = r.step_time_s[1]; break;
  default: return false;
  }
  return *lo > 0.0 && *hi >= *lo;
}

int study_band_nodes(const struct pl_study *st, struct study_panel *pn, const char *of, int color,
                     int model, int cluster, int batch, int strategy, enum study_metric m) {
  char title[96];
  study_setf(title, sizeof title, "error band %s", of);
  struct study_series *s = study_panel_add(pn, title, color, 1, 0);
  if (s == NULL)
    return 0;
  s->band = true;
  for (int k = 0; k < st->spec.n_nodes; k++) {
    const struct pl_study_point *p = pl_study_at(st, model, cluster, batch, strategy, k);
    double v = 0.0, lo = 0.0, hi = 0.0;
    if (!band_of(p, m, &lo, &hi) || !study_metric(p, m, &v) || s->n >= STUDY_MAX_PTS)
      continue;
    s->lo[s->n] = lo;
    s->hi[s->n] = hi;
    study_series_add(s, (double)p->gpus, v, NULL);
  }
  int n = s->n;
  if (n == 0) /* nothing to shade */
    pn->n_series--;
  return n;
}

bool study_ends(const struct pl_study *st, int model, int cluster, int batch, int strategy,
                int *first, int *last) {
  *first = *last = -1;
  for (int k = 0; k < st->spec.n_nodes; k++) {
    const struct pl_study_point *p = pl_study_at(st, model, cluster, batch, strategy, k);
    if (p->status != PL_STUDY_OK)
      continue;
    if (*first < 0)
      *first = k;
    *last = k;
  }
  return *first >= 0 && *last > *first;
}

int study_main_batch(const struct pl_study *st) {
  for (int b = 0; b < st->spec.n_batches; b++)
    if (st->spec.batches[b].kind == PL_STUDY_WEAK)
      return b;
  return 0;
}
