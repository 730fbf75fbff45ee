/* scaling.c: weak scaling as published (validate.h, pl_validation_scaling).
 *
 * The llm-foundry tables, like the study this tool follows (arXiv 2411.13055,
 * Sec. 4), run one model at several GPU counts with the same work per GPU. A
 * perfectly scaling run would keep its per-GPU throughput; how much it loses,
 * measured against predicted, says whether the model sees what costs grow
 * with the GPU count, which the per-row error alone hides. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/validate.h>

/* Same publication, model, hardware, layout shape and per-GPU work; only the
 * GPU count (and with it dp and gbs) may differ. The publication matters where
 * one file gathers several benchmark rounds (mlperf_gpt3: MLPerf Training v3.0
 * to v4.1): a pair across rounds would count a newer software stack's speed-up
 * as scaling. */
static bool same_series(const struct pl_vrow *a, const struct pl_vrow *b) {
  const struct pl_layout *x = &a->layout, *y = &b->layout;
  return strcmp(a->dataset, b->dataset) == 0 && strcmp(a->publication, b->publication) == 0 &&
         strcmp(a->model, b->model) == 0 &&
         strcmp(a->gpu, b->gpu) == 0 && strcmp(a->cluster, b->cluster) == 0 && x->tp == y->tp &&
         x->pp == y->pp && x->cp == y->cp && x->vp == y->vp && x->shard == y->shard &&
         x->schedule == y->schedule && x->dtype == y->dtype && x->recompute == y->recompute &&
         x->sp == y->sp && x->seq == y->seq && x->mbs == y->mbs &&
         x->micro_batches == y->micro_batches;
}

/* Tokens per GPU and second, from a step time. */
static double per_gpu(const struct pl_vrow *r, double step_s) {
  const struct pl_layout *l = &r->layout;
  return (double)l->gbs * (double)l->seq / ((double)l->gpus * step_s);
}

static void name_series(const struct pl_vrow *r, char *out, size_t len) {
  const struct pl_layout *l = &r->layout;
  char shape[48] = "";
  if (l->tp > 1 || l->pp > 1 || l->cp > 1)
    snprintf(shape, sizeof shape, ", tp%lld pp%lld cp%lld", (long long)l->tp, (long long)l->pp,
             (long long)l->cp);
  snprintf(out, len, "%.40s, %.24s, %s, recompute %s%s, seq %lld, mbs %lld x %lld per step",
           r->model, r->gpu, pl_dtype_name(l->dtype), pl_recompute_name(l->recompute), shape,
           (long long)l->seq, (long long)l->mbs, (long long)l->micro_batches);
}

static int by_value(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return a < b ? -1 : a > b;
}

static int by_gpus(const void *pa, const void *pb) {
  const struct pl_vscaling *a = pa, *b = pb;
  if (a->gpus != b->gpus)
    return a->gpus < b->gpus ? -1 : 1;
  return a->row < b->row ? -1 : a->row > b->row;
}

/* The pairs of the series that starts at rows[first]; members are marked. */
static size_t series_pairs(const struct pl_vrow *rows, size_t n, size_t first, bool *taken,
                           struct pl_vscaling *out) {
  size_t base = first;
  for (size_t j = first; j < n; j++)
    if (!taken[j] && !rows[j].skipped && same_series(&rows[first], &rows[j]) &&
        rows[j].layout.gpus < rows[base].layout.gpus)
      base = j;
  const struct pl_vrow *b = &rows[base];
  size_t k = 0;
  for (size_t j = first; j < n; j++) {
    const struct pl_vrow *r = &rows[j];
    if (taken[j] || r->skipped || !same_series(&rows[first], r))
      continue;
    taken[j] = true;
    if (r->layout.gpus == b->layout.gpus)
      continue; /* the base itself, or a repeat of its GPU count */
    struct pl_vscaling *p = &out[k++];
    memset(p, 0, sizeof *p);
    snprintf(p->dataset, sizeof p->dataset, "%s", r->dataset);
    name_series(r, p->series, sizeof p->series);
    p->base_row = b->row;
    p->row = r->row;
    p->base_gpus = b->layout.gpus;
    p->gpus = r->layout.gpus;
    p->measured_eff = per_gpu(r, r->measured) / per_gpu(b, b->measured);
    p->predicted_eff = per_gpu(r, r->predicted) / per_gpu(b, b->predicted);
    p->gap_pp = 100.0 * (p->predicted_eff - p->measured_eff);
  }
  qsort(out, k, sizeof *out, by_gpus);
  return k;
}

enum pl_status pl_validation_scaling(const struct pl_validation *v, struct pl_vscaling_set *out,
                                     struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  if (v->n_rows == 0)
    return PL_OK;
  bool *taken = calloc(v->n_rows, sizeof *taken);
  double *gaps = calloc(v->n_rows, sizeof *gaps);
  out->pairs = calloc(v->n_rows, sizeof *out->pairs); /* at most one pair per row */
  if (taken == NULL || gaps == NULL || out->pairs == NULL) {
    free(taken);
    free(gaps);
    pl_vscaling_free(out);
    return pl_diag_set(diag, PL_ERR_NOMEM, "validate: out of memory for the scaling pairs");
  }
  for (size_t i = 0; i < v->n_rows; i++)
    if (!taken[i] && !v->rows[i].skipped)
      out->n += series_pairs(v->rows, v->n_rows, i, taken, out->pairs + out->n);
  for (size_t i = 0; i < out->n; i++) {
    const struct pl_vscaling *p = &out->pairs[i];
    out->mean_measured_loss_pct += 100.0 * (1.0 - p->measured_eff) / (double)out->n;
    out->mean_predicted_loss_pct += 100.0 * (1.0 - p->predicted_eff) / (double)out->n;
    out->mean_abs_gap_pp += fabs(p->gap_pp) / (double)out->n;
    gaps[i] = p->gap_pp;
  }
  if (out->n > 0) {
    qsort(gaps, out->n, sizeof *gaps, by_value);
    size_t h = out->n / 2;
    out->median_gap_pp = out->n % 2 ? gaps[h] : 0.5 * (gaps[h - 1] + gaps[h]);
  }
  free(taken);
  free(gaps);
  return PL_OK;
}

void pl_vscaling_free(struct pl_vscaling_set *s) {
  free(s->pairs);
  memset(s, 0, sizeof *s);
}
