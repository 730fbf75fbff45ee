/* fig_scale.c: the scaling figures: throughput against GPUs with the
 * ideal linear line (arXiv 2411.13055 Figure 1), MFU per model and GPU
 * generation, and the batch regimes (local batch, Appendix D; fixed global
 * batch, Appendix E). Findings compare the first and last simulated scale. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

/* y = y0 * (x / x0)^power over the series' x values: power 1 is linear
 * scaling from the first point, 0 a flat line. */
static void add_ideal(struct study_panel *pn, const struct study_series *from, const char *title,
                      double power) {
  if (from == NULL || from->n < 2)
    return;
  struct study_series *s = study_panel_add(pn, title, from->color, 2, 0);
  for (int i = 0; s != NULL && i < from->n; i++)
    study_series_add(s, from->x[i], power > 0.0 ? from->y[0] * from->x[i] / from->x[0] : from->y[0],
                     NULL);
}

static double at(const struct pl_study *st, int m, int c, int b, int s, int k,
                 enum study_metric me) {
  double v = 0.0;
  study_metric(pl_study_at(st, m, c, b, s, k), me, &v);
  return v;
}

static void scaling_findings(const struct pl_study *st, struct study_fig *f, int b) {
  int c = st->focus_cluster, base = st->baseline, lo, hi;
  char bname[64], g0[32], g1[32], ch[48];
  study_batch_name(&st->spec.batches[b], bname, sizeof bname);
  study_setf(f->findings, sizeof f->findings, "Under FSDP alone on %s (%s), ", st->clusters[c].name,
             bname);
  bool any = false;
  for (int m = 0; m < st->spec.n_models; m++) {
    if (!study_ends(st, m, c, b, base, &lo, &hi))
      continue;
    const struct pl_study_point *p0 = pl_study_at(st, m, c, b, base, lo);
    const struct pl_study_point *p1 = pl_study_at(st, m, c, b, base, hi);
    study_fmt_int(g0, sizeof g0, p0->gpus);
    study_fmt_int(g1, sizeof g1, p1->gpus);
    double t0 = p0->pred.step.tokens_per_s, t1 = p1->pred.step.tokens_per_s;
    study_fmt_change(ch, sizeof ch, p0->pred.step.tokens_per_s_per_gpu,
                     p1->pred.step.tokens_per_s_per_gpu);
    study_appendf(f->findings, sizeof f->findings,
                  "%sfrom %s to %s GPUs %s's global throughput grows %.0fx (ideal %.0fx) while "
                  "per-GPU throughput %s",
                  any ? "; " : "", g0, g1, st->models[m].name, t1 / t0,
                  (double)p1->gpus / (double)p0->gpus, ch);
    any = true;
  }
  study_appendf(f->findings, sizeof f->findings, "%s",
                any ? "." : "FSDP alone runs at fewer than two scales.");
  for (int m = 0; m < st->spec.n_models; m++) {
    study_ends(st, m, c, b, base, &lo, &hi);
    if (lo < 0)
      study_appendf(f->findings, sizeof f->findings,
                    " %s does not run under FSDP alone at any scale.", st->models[m].name);
  }
}

void study_fig_scaling(const struct pl_study *st, struct study_fig *f) {
  int c = st->focus_cluster, b = study_main_batch(st), base = st->baseline;
  study_fig_begin(f, "scaling", "Throughput against GPUs under FSDP alone");
  study_setf(f->caption, sizeof f->caption,
             "Predicted tokens per second on %s with FSDP alone (%s, tp = pp = cp = 1), all GPUs "
             "together (left) and per GPU (right); dashed: ideal linear scaling from the smallest "
             "scale that runs; shaded: the prediction's error band (the middle 90%% of the "
             "published runs of its class, measured over predicted; docs/accuracy.md).",
             st->clusters[c].name, pl_shard_name(st->spec.shard));
  f->n_panels = 2;
  study_panel_begin(STUDY_PANEL_LINES, &f->p[0], "Global throughput", "GPUs", "tokens/s (all GPUs)");
  study_panel_begin(STUDY_PANEL_LINES, &f->p[1], "Per-GPU throughput", "GPUs", "tokens/s per GPU");
  f->p[0].logy = true;
  study_setf(f->p[0].yformat, sizeof f->p[0].yformat, "%%.0s%%c");
  int drawn = 0, published = 0;
  for (int m = 0; m < st->spec.n_models; m++) {
    char t[96];
    study_copy(t, sizeof t, st->models[m].name);
    struct study_series *s0 = study_panel_add(&f->p[0], t, m, 1, 7);
    struct study_series *s1 = study_panel_add(&f->p[1], t, m, 1, 7);
    study_series_nodes(st, s0, m, c, b, base, STUDY_M_TOKENS_PER_S);
    if (study_series_nodes(st, s1, m, c, b, base, STUDY_M_TOKENS_PER_S_PER_GPU) > 0)
      drawn++;
    study_setf(t, sizeof t, "ideal %s", st->models[m].name);
    add_ideal(&f->p[0], s0, t, 1.0);
    add_ideal(&f->p[1], s1, t, 0.0);
    study_band_nodes(st, &f->p[0], st->models[m].name, m, m, c, b, base, STUDY_M_TOKENS_PER_S);
    study_band_nodes(st, &f->p[1], st->models[m].name, m, m, c, b, base,
                     STUDY_M_TOKENS_PER_S_PER_GPU);
    published += study_published_series(st, &f->p[1], m, c, m, st->models[m].name,
                                        STUDY_M_TOKENS_PER_S_PER_GPU);
  }
  if (published > 0)
    study_appendf(f->caption, sizeof f->caption,
                  " Open markers: published runs of the same model on the same GPU at the same "
                  "sequence length (data/validation, embedded or --validation; their own layout and precision, docs/study.md).");
  if (drawn == 0) {
    study_setf(f->skip, sizeof f->skip, "FSDP alone does not run for any model on %s",
               st->clusters[c].name);
    return;
  }
  scaling_findings(st, f, b);
}

/* ---- MFU per model and GPU generation ---- */

static int fig_strategy(const struct pl_study *st) {
  int best = pl_study_spec_strategy(&st->spec, "best");
  return best >= 0 ? best : st->baseline;
}

/* "2,048 GPUs" when every cluster has that many at node index k, else "256 nodes". */
static const char *scale_name(const struct pl_study *st, int m, int b, int s, int k, char *buf,
                              size_t n) {
  int64_t g = pl_study_at(st, m, 0, b, s, k)->gpus;
  for (int c = 1; c < st->spec.n_clusters; c++)
    if (pl_study_at(st, m, c, b, s, k)->gpus != g) {
      study_fmt_int(buf, n, st->spec.nodes[k]);
      study_appendf(buf, n, " nodes");
      return buf;
    }
  study_fmt_int(buf, n, g);
  study_appendf(buf, n, " GPUs");
  return buf;
}

static void mfu_findings(const struct pl_study *st, struct study_fig *f, int b, int s) {
  int m = st->focus_model, c = st->focus_cluster, lo, hi;
  char g0[32], g1[32];
  f->findings[0] = '\0';
  if (study_ends(st, m, c, b, s, &lo, &hi)) {
    study_fmt_int(g0, sizeof g0, pl_study_at(st, m, c, b, s, lo)->gpus);
    study_fmt_int(g1, sizeof g1, pl_study_at(st, m, c, b, s, hi)->gpus);
    study_appendf(
        f->findings, sizeof f->findings,
        "With the %s layout, MFU of %s on %s goes from %.1f%% at %s GPUs to %.1f%% at %s. ",
        st->spec.strategies[s], st->models[m].name, st->clusters[c].name,
        at(st, m, c, b, s, lo, STUDY_M_MFU_PCT), g0, at(st, m, c, b, s, hi, STUDY_M_MFU_PCT), g1);
  }
  /* The largest scale at which every cluster runs the focus model. */
  for (int k = st->spec.n_nodes - 1; k >= 0 && st->spec.n_clusters > 1; k--) {
    int ok = 0;
    for (int cc = 0; cc < st->spec.n_clusters; cc++)
      ok += pl_study_at(st, m, cc, b, s, k)->status == PL_STUDY_OK;
    if (ok < st->spec.n_clusters)
      continue;
    study_appendf(f->findings, sizeof f->findings, "At %s, %s's MFU is",
                  scale_name(st, m, b, s, k, g1, sizeof g1), st->models[m].name);
    for (int cc = 0; cc < st->spec.n_clusters; cc++) {
      char gpu[32];
      study_gpu_label(&st->clusters[cc], gpu, sizeof gpu);
      study_appendf(f->findings, sizeof f->findings, "%s %.1f%% on %s",
                    cc == 0 ? "" : (cc + 1 == st->spec.n_clusters ? " and" : ","),
                    at(st, m, cc, b, s, k, STUDY_M_MFU_PCT), gpu);
    }
    study_appendf(f->findings, sizeof f->findings, ".");
    break;
  }
}

void study_fig_mfu(const struct pl_study *st, struct study_fig *f) {
  int b = study_main_batch(st), s = fig_strategy(st), drawn = 0, published = 0;
  char bname[64];
  study_batch_name(&st->spec.batches[b], bname, sizeof bname);
  study_fig_begin(f, "mfu", "MFU against GPUs per model and GPU generation");
  study_setf(f->caption, sizeof f->caption,
             "Model FLOPs utilization (model FLOPs per step over step time x GPUs x peak dense "
             "FLOP/s, PaLM's definition) with the %s layout at each point, %s; colour: cluster, "
             "line style: model; shaded: the error band of %s's prediction (the middle 90%% "
             "of the published runs of its class; docs/accuracy.md).",
             st->spec.strategies[s], bname, st->models[st->focus_model].name);
  f->n_panels = 1;
  study_panel_begin(STUDY_PANEL_LINES, &f->p[0], "MFU", "GPUs", "MFU (%)");
  for (int c = 0; c < st->spec.n_clusters; c++)
    for (int m = 0; m < st->spec.n_models; m++) {
      char t[96];
      study_setf(t, sizeof t, "%s %s", st->models[m].name, st->clusters[c].name);
      struct study_series *x = study_panel_add(&f->p[0], t, c, m + 1, 5 + 2 * (m % 4));
      drawn += study_series_nodes(st, x, m, c, b, s, STUDY_M_MFU_PCT) > 0;
      if (m == st->focus_model)
        study_band_nodes(st, &f->p[0], t, c, m, c, b, s, STUDY_M_MFU_PCT);
      published += study_published_series(st, &f->p[0], m, c, c, t, STUDY_M_MFU_PCT);
    }
  if (published > 0)
    study_appendf(f->caption, sizeof f->caption,
                  " Open markers: published runs of the same model on the same GPU at the same "
                  "sequence length (data/validation, embedded or --validation; their own layout and precision), their MFU "
                  "in plateau's convention for the run's precision: model FLOPs over measured "
                  "step time x GPUs x the dense peak of that precision (an FP8 run against "
                  "the FP8 peak; docs/study.md).");
  if (drawn == 0) {
    study_setf(f->skip, sizeof f->skip, "no point of the %s layout runs", st->spec.strategies[s]);
    return;
  }
  mfu_findings(st, f, b, s);
}

/* ---- batch regimes ---- */

static void batch_weak(const struct pl_study *st, struct study_panel *pn, char *fnd, size_t n) {
  int m = st->focus_model, c = st->focus_cluster, base = st->baseline, best = fig_strategy(st);
  int lo_b = -1, hi_b = -1;
  for (int b = 0; b < st->spec.n_batches; b++) {
    if (st->spec.batches[b].kind != PL_STUDY_WEAK)
      continue;
    char bn[64], t[96];
    study_batch_name(&st->spec.batches[b], bn, sizeof bn);
    study_setf(t, sizeof t, "FSDP, %s", bn);
    study_series_nodes(st, study_panel_add(pn, t, b, 1, 7), m, c, b, base,
                       STUDY_M_TOKENS_PER_S_PER_GPU);
    if (best != base) {
      study_setf(t, sizeof t, "%s, %s", st->spec.strategies[best], bn);
      study_series_nodes(st, study_panel_add(pn, t, b, 2, 6), m, c, b, best,
                         STUDY_M_TOKENS_PER_S_PER_GPU);
    }
    if (lo_b < 0 || st->spec.batches[b].n < st->spec.batches[lo_b].n)
      lo_b = b;
    if (hi_b < 0 || st->spec.batches[b].n > st->spec.batches[hi_b].n)
      hi_b = b;
  }
  for (int k = st->spec.n_nodes - 1; lo_b != hi_b && k >= 0; k--) {
    double v0, v1;
    if (!study_metric(pl_study_at(st, m, c, lo_b, base, k), STUDY_M_TOKENS_PER_S_PER_GPU, &v0) ||
        !study_metric(pl_study_at(st, m, c, hi_b, base, k), STUDY_M_TOKENS_PER_S_PER_GPU, &v1))
      continue;
    char g[32], ch[48];
    study_fmt_int(g, sizeof g, pl_study_at(st, m, c, lo_b, base, k)->gpus);
    study_fmt_change(ch, sizeof ch, v0, v1);
    study_appendf(fnd, n,
                  "At %s GPUs under FSDP, going from %lld to %lld sequences per GPU, per-GPU "
                  "throughput of %s %s. ",
                  g, (long long)st->spec.batches[lo_b].n, (long long)st->spec.batches[hi_b].n,
                  st->models[m].name, ch);
    break;
  }
}

static void batch_fixed(const struct pl_study *st, struct study_panel *pn, char *fnd, size_t n) {
  int m = st->focus_model, c = st->focus_cluster, base = st->baseline, best = fig_strategy(st);
  bool said = false; /* one sentence, for the first fixed batch that runs */
  for (int b = 0; b < st->spec.n_batches; b++) {
    if (st->spec.batches[b].kind != PL_STUDY_FIXED)
      continue;
    char bn[64], t[96];
    study_batch_name(&st->spec.batches[b], bn, sizeof bn);
    if (best != base) {
      study_setf(t, sizeof t, "FSDP, %s", bn);
      study_series_nodes(st, study_panel_add(pn, t, b, 1, 7), m, c, b, base, STUDY_M_TOKENS_PER_S);
    }
    study_setf(t, sizeof t, "%s, %s", st->spec.strategies[best], bn);
    struct study_series *sb = study_panel_add(pn, t, b, best != base ? 4 : 1, 6);
    study_series_nodes(st, sb, m, c, b, best, STUDY_M_TOKENS_PER_S);
    study_setf(t, sizeof t, "ideal, %s", bn);
    add_ideal(pn, sb, t, 1.0);
    int lo, hi;
    if (said || !study_ends(st, m, c, b, best, &lo, &hi))
      continue;
    said = true;
    const struct pl_study_point *p0 = pl_study_at(st, m, c, b, best, lo);
    const struct pl_study_point *p1 = pl_study_at(st, m, c, b, best, hi);
    char g0[32], g1[32];
    study_fmt_int(g0, sizeof g0, p0->gpus);
    study_fmt_int(g1, sizeof g1, p1->gpus);
    study_appendf(fnd, n,
                  "With a fixed %s, from %s to %s GPUs the %s layout trains %s %.1fx as fast "
                  "(ideal %.0fx).",
                  bn, g0, g1, st->spec.strategies[best], st->models[m].name,
                  p1->pred.step.tokens_per_s / p0->pred.step.tokens_per_s,
                  (double)p1->gpus / (double)p0->gpus);
  }
}

void study_fig_batch(const struct pl_study *st, struct study_fig *f) {
  bool weak = false, fixed = false;
  for (int b = 0; b < st->spec.n_batches; b++) {
    weak |= st->spec.batches[b].kind == PL_STUDY_WEAK;
    fixed |= st->spec.batches[b].kind == PL_STUDY_FIXED;
  }
  study_fig_begin(f, "batch", "Local batch size and a fixed global batch");
  study_setf(f->caption, sizeof f->caption,
             "%s on %s. Weak scaling: per-GPU throughput with n sequences of %lld tokens per GPU. "
             "Fixed global batch: throughput of the whole cluster as GPUs are added to the same "
             "batch (dashed: ideal linear speed-up); points whose batch does not divide over the "
             "data-parallel ranks are left out.",
             st->models[st->focus_model].name, st->clusters[st->focus_cluster].name,
             (long long)st->spec.seq);
  f->n_panels = 0;
  if (weak)
    study_panel_begin(STUDY_PANEL_LINES, &f->p[f->n_panels++], "Weak scaling", "GPUs", "tokens/s per GPU");
  if (fixed) {
    struct study_panel *pn = &f->p[f->n_panels++];
    study_panel_begin(STUDY_PANEL_LINES, pn, "Fixed global batch", "GPUs", "tokens/s (all GPUs)");
    pn->logy = true;
    study_setf(pn->yformat, sizeof pn->yformat, "%%.0s%%c");
  }
  f->findings[0] = '\0';
  if (weak)
    batch_weak(st, &f->p[0], f->findings, sizeof f->findings);
  if (fixed)
    batch_fixed(st, &f->p[f->n_panels - 1], f->findings, sizeof f->findings);
  int pts = 0;
  for (int i = 0; i < f->n_panels; i++)
    for (int j = 0; j < f->p[i].n_series; j++)
      pts += f->p[i].s[j].n;
  if (pts == 0)
    study_setf(f->skip, sizeof f->skip, "no point of %s on %s runs",
               st->models[st->focus_model].name, st->clusters[st->focus_cluster].name);
}
