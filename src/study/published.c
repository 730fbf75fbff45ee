/* published.c: published runs over the study's curves (issue 21). The CLI
 * reads the validation CSVs (data/validation/, docs/accuracy.md) with the
 * validate code and hands their predicted rows here (study and validate sit
 * side by side in docs/architecture.md's order). A run is kept when it
 * trained the same model (name, case-insensitive), on the same GPU preset as
 * a cluster of the spec, at the spec's sequence length. Layout, batch and
 * precision may differ: the legend names the dataset, and results.json
 * ("published") each run's layout. Its measured per-GPU throughput is
 * gbs x seq / (measured step time x GPUs): the inverse of the conversion
 * validate applied to the published column. */
#include "study_int.h"

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

int study_published_series(const struct pl_study *st, struct study_panel *pn, int model,
                           int cluster, int color, const char *what) {
  int added = 0;
  for (int i = 0; i < st->n_published; i++) {
    const struct study_published *p = &st->published[i];
    if (p->model != model || p->cluster != cluster)
      continue;
    bool seen = false; /* one series per dataset: its first run makes it */
    for (int j = 0; j < i && !seen; j++)
      seen = st->published[j].model == model && st->published[j].cluster == cluster &&
             strcmp(st->published[j].run.dataset, p->run.dataset) == 0;
    if (seen)
      continue;
    char t[96];
    study_setf(t, sizeof t, "published %s (%s)", what, p->run.dataset);
    struct study_series *s = study_panel_add(pn, t, color, 0, 6 + 2 * (added % 3));
    for (int j = i; s != NULL && j < st->n_published; j++) {
      const struct study_published *q = &st->published[j];
      if (q->model == model && q->cluster == cluster &&
          strcmp(q->run.dataset, p->run.dataset) == 0) {
        study_series_add(s, (double)q->run.layout.gpus, q->tokens_per_s_per_gpu, NULL);
        added++;
      }
    }
  }
  return added;
}
