/* published.c: published runs over the study's curves (issue 21). The CLI
 * reads the validation CSVs (data/validation/, docs/accuracy.md) with the
 * validate code and hands their predicted rows here (study and validate sit
 * side by side in docs/architecture.md's order). A run is kept when it
 * trained the same model (name, case-insensitive), on the same GPU preset as
 * a cluster of the spec, at the spec's sequence length. Layout, batch and
 * precision may differ: the legend names the dataset and, when it is not
 * the spec's, the precision; results.json ("published") each run's layout.
 * Its measured per-GPU throughput is gbs x seq / (measured step time x
 * GPUs): the inverse of the conversion validate applied to the published
 * column. Its measured MFU is plateau's, for the run as published: model
 * FLOPs per step (PaLM, docs/model.md) over measured step x GPUs x the dense
 * peak of the run's own precision (src/sim/account.c rates(),
 * pl_gpu_peak_flops_per_s: FP8 runs against the FP8 peak), obtained from
 * validate's prediction of the same run as predicted MFU x predicted step /
 * measured step (same FLOPs, same peak, only the step time differs). */
#include "study_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include <plateau/alloc.h>

static void keep(struct pl_study *st, const struct pl_study_published_run *r) {
  if (!(r->measured_step_time_s > 0.0) || r->layout.seq != st->spec.seq || r->layout.gpus <= 0)
    return;
  for (int m = 0; m < st->spec.n_models; m++) {
    if (strcasecmp(r->model, st->models[m].name) != 0)
      continue;
    for (int c = 0; c < st->spec.n_clusters; c++) {
      if (strcmp(r->gpu, st->clusters[c].gpu.name) != 0 || st->n_published >= STUDY_MAX_PUBLISHED)
        continue;
      struct study_published *p = &st->published[st->n_published++];
      memset(p, 0, sizeof *p);
      p->model = m;
      p->cluster = c;
      p->run = *r;
      p->tokens_per_s_per_gpu = (double)r->layout.gbs * (double)r->layout.seq /
                                (r->measured_step_time_s * (double)r->layout.gpus);
      p->mfu = r->predicted_mfu > 0.0 && r->predicted_step_time_s > 0.0
                   ? r->predicted_mfu * r->predicted_step_time_s / r->measured_step_time_s
                   : 0.0;
    }
  }
}

enum pl_status pl_study_add_published(struct pl_study *st, const struct pl_study_published_run *runs,
                                      size_t n, struct pl_diag *diag) {
  if (st->published == NULL) {
    st->published = pl_calloc(STUDY_MAX_PUBLISHED, sizeof *st->published);
    if (st->published == NULL)
      return pl_diag_set(diag, PL_ERR_NOMEM, "published runs: out of memory");
  }
  for (size_t i = 0; i < n; i++)
    keep(st, &runs[i]);
  return PL_OK;
}

/* Runs i and j go in one series: same setup, dataset and precision. */
static bool same_series(const struct study_published *a, const struct study_published *b) {
  return a->model == b->model && a->cluster == b->cluster &&
         strcmp(a->run.dataset, b->run.dataset) == 0 &&
         strcmp(pl_layout_dtype_name(&a->run.layout), pl_layout_dtype_name(&b->run.layout)) == 0;
}

static bool value_of(const struct study_published *p, enum study_metric m, double *y) {
  *y = m == STUDY_M_MFU_PCT ? 100.0 * p->mfu : p->tokens_per_s_per_gpu;
  return *y > 0.0;
}

int study_published_series(const struct pl_study *st, struct study_panel *pn, int model,
                           int cluster, int color, const char *what, enum study_metric m) {
  int added = 0, series = 0;
  for (int i = 0; i < st->n_published; i++) {
    const struct study_published *p = &st->published[i];
    double y = 0.0;
    if (p->model != model || p->cluster != cluster || !value_of(p, m, &y))
      continue;
    bool seen = false; /* one series per dataset and precision: its first run makes it */
    for (int j = 0; j < i && !seen; j++) {
      double yj = 0.0;
      seen = same_series(&st->published[j], p) && value_of(&st->published[j], m, &yj);
    }
    if (seen)
      continue;
    char t[96], prec[24] = "";
    if (p->run.layout.dtype != st->spec.dtype) { /* "fp8-delayed" -> ", FP8-DELAYED" */
      study_setf(prec, sizeof prec, ", %s", pl_layout_dtype_name(&p->run.layout));
      for (char *c = prec; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    }
    study_setf(t, sizeof t, "published %s (%s%s)", what, p->run.dataset, prec);
    /* Open markers, one shape per model (gnuplot 4, 6, 8, 10: open square,
     * circle, triangle, inverted triangle; the mfu curves draw the model's
     * filled shape, 5 + 2 (m % 4)), the next shape for a second dataset. */
    struct study_series *s =
        study_panel_add(pn, t, color, 0, 4 + 2 * ((model + series++) % 4));
    for (int j = i; s != NULL && j < st->n_published; j++) {
      const struct study_published *q = &st->published[j];
      if (same_series(q, p) && value_of(q, m, &y)) {
        study_series_add(s, (double)q->run.layout.gpus, y, NULL);
        added++;
      }
    }
  }
  return added;
}
