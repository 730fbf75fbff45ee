/* fig_layout.c: which layout wins and what new hardware buys.
 * "best": every named strategy's throughput relative to FSDP alone and the
 * searched best layout's gain over it (arXiv 2411.13055 Sec. 3
 * "Parallelization Strategies", Appendices D and F). "generations": the
 * speed-up of each GPU generation over the previous one against the ratio of
 * their peak dense FLOP/s (the paper's hardware comparison and Appendix G). */
#include "study_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* tokens/s of strategy s over FSDP alone at node index k; false if either
 * did not run. */
static bool ratio(const struct pl_study *st, int m, int c, int b, int s, int k, double *r) {
  double v, v0;
  if (!study_metric(pl_study_at(st, m, c, b, s, k), STUDY_M_TOKENS_PER_S, &v) ||
      !study_metric(pl_study_at(st, m, c, b, st->baseline, k), STUDY_M_TOKENS_PER_S, &v0))
    return false;
  *r = v / v0;
  return true;
}

static int strategy_dash(const struct study_strategy *ss) {
  int kinds = (ss->tp > 1) + (ss->pp > 1) + (ss->cp > 1);
  if (kinds > 1)
    return 4;
  return ss->pp > 1 ? 2 : ss->cp > 1 ? 3 : 1;
}

static void relative_panel(const struct pl_study *st, struct study_panel *pn, int b) {
  int m = st->focus_model, c = st->focus_cluster;
  char t[160];
  study_setf(t, sizeof t, "Each strategy against FSDP alone (%s)", st->models[m].name);
  study_panel_begin(STUDY_PANEL_LINES, pn, t, "GPUs", "throughput / FSDP alone");
  for (int s = 0; s < st->spec.n_strategies; s++) {
    if (s == st->baseline)
      continue;
    bool best = st->strat[s].best;
    struct study_series *x = study_panel_add(pn, st->spec.strategies[s], best ? -1 : s % 10,
                                             best ? 1 : strategy_dash(&st->strat[s]), best ? 7 : 6);
    for (int k = 0; x != NULL && k < st->spec.n_nodes; k++) {
      double r;
      if (ratio(st, m, c, b, s, k, &r))
        study_series_add(x, (double)pl_study_at(st, m, c, b, s, k)->gpus, r, NULL);
    }
  }
  pn->n_hlines = 1;
  pn->hline[0] = (struct study_hline){1.0, -1, "FSDP alone"};
}

static void gain_panel(const struct pl_study *st, struct study_panel *pn, int b, int best) {
  int c = st->focus_cluster;
  study_panel_begin(STUDY_PANEL_LINES, pn, "Best layout's gain over FSDP alone", "GPUs", "gain in throughput (%)");
  for (int m = 0; m < st->spec.n_models; m++) {
    struct study_series *x = study_panel_add(pn, st->models[m].name, m, 1, 7);
    if (x == NULL)
      break;
    x->labels = m == st->focus_model;
    char prev[40] = "";
    for (int k = 0; k < st->spec.n_nodes; k++) {
      double r;
      if (!ratio(st, m, c, b, best, k, &r))
        continue;
      const struct pl_study_point *p = pl_study_at(st, m, c, b, best, k);
      char lab[40];
      study_layout_label(&p->pred.run.layout, lab, sizeof lab);
      /* Label a layout where it first appears, not at every point. */
      bool same = strcmp(prev, lab) == 0;
      study_copy(prev, sizeof prev, lab);
      study_series_add(x, (double)p->gpus, 100.0 * (r - 1.0), same ? "" : lab);
    }
  }
}

/* The fastest named (not searched) strategy at node index k, -1 if none. */
static int fastest_named(const struct pl_study *st, int m, int c, int b, int k, double *r_out) {
  int win = -1;
  for (int s = 0; s < st->spec.n_strategies; s++) {
    double r;
    if (s == st->baseline || st->strat[s].best || !ratio(st, m, c, b, s, k, &r))
      continue;
    if (win < 0 || r > *r_out) {
      win = s;
      *r_out = r;
    }
  }
  return win;
}

/* The sentence about the largest scale where FSDP alone and a rival both run. */
static void best_at_scale(const struct pl_study *st, struct study_fig *f, int b, int best) {
  int m = st->focus_model, c = st->focus_cluster;
  for (int k = st->spec.n_nodes - 1; k >= 0; k--) {
    double r = 0.0, rn = 0.0;
    int w = fastest_named(st, m, c, b, k, &rn);
    bool has_best = best >= 0 && ratio(st, m, c, b, best, k, &r);
    if (!has_best && w < 0)
      continue;
    char g[32], lab[64];
    study_fmt_int(g, sizeof g, pl_study_at(st, m, c, b, st->baseline, k)->gpus);
    study_appendf(f->findings, sizeof f->findings, "At %s GPUs on %s, ", g, st->clusters[c].name);
    if (has_best) {
      study_layout_label(&pl_study_at(st, m, c, b, best, k)->pred.run.layout, lab, sizeof lab);
      study_appendf(f->findings, sizeof f->findings,
                    "the best layout for %s is %s, %+.0f%% over FSDP alone%s", st->models[m].name,
                    lab, 100.0 * (r - 1.0), w >= 0 ? "; " : "");
    }
    if (w >= 0)
      study_appendf(f->findings, sizeof f->findings,
                    "the fastest named strategy%s%s is %s, %+.0f%% over FSDP alone",
                    has_best ? " there" : " for ", has_best ? "" : st->models[m].name,
                    st->spec.strategies[w], 100.0 * (rn - 1.0));
    study_appendf(f->findings, sizeof f->findings, ". ");
    return;
  }
}

static void best_findings(const struct pl_study *st, struct study_fig *f, int b, int best) {
  int c = st->focus_cluster;
  f->findings[0] = '\0';
  best_at_scale(st, f, b, best);
  for (int mm = 0; mm < st->spec.n_models; mm++) {
    int lo, hi;
    study_ends(st, mm, c, b, st->baseline, &lo, &hi);
    if (lo >= 0)
      continue; /* runs at one scale at least */
    const struct pl_study_point *p = pl_study_at(st, mm, c, b, st->baseline, st->spec.n_nodes - 1);
    char g[32];
    study_fmt_int(g, sizeof g, p->gpus);
    study_appendf(f->findings, sizeof f->findings,
                  "FSDP alone runs %s on %s at no scale (at %s GPUs: %s)", st->models[mm].name,
                  st->clusters[c].name, g, p->why);
    const struct pl_study_point *q =
        best >= 0 ? pl_study_at(st, mm, c, b, best, st->spec.n_nodes - 1) : NULL;
    if (q != NULL && q->status == PL_STUDY_OK) {
      char lab[64];
      study_layout_label(&q->pred.run.layout, lab, sizeof lab);
      study_appendf(f->findings, sizeof f->findings, "; the best layout there is %s at %.1f%% MFU",
                    lab, 100.0 * q->pred.step.mfu);
    }
    study_appendf(f->findings, sizeof f->findings, ". ");
  }
  size_t n = strlen(f->findings);
  if (n > 0 && f->findings[n - 1] == ' ')
    f->findings[n - 1] = '\0';
}

void study_fig_best(const struct pl_study *st, struct study_fig *f) {
  int b = study_main_batch(st), best = pl_study_spec_strategy(&st->spec, "best");
  char bname[64];
  study_batch_name(&st->spec.batches[b], bname, sizeof bname);
  study_fig_begin(f, "best", "The best layout at each scale against FSDP alone");
  study_setf(f->caption, sizeof f->caption,
             "Left: throughput of each strategy over FSDP alone for %s on %s (%s); solid: tensor, "
             "dashed: pipeline, dotted: context parallelism; black: the layout search's best. "
             "Right: the best layout's gain over FSDP alone per model, labelled with the layout "
             "for %s. Points where FSDP alone does not run have no ratio.",
             st->models[st->focus_model].name, st->clusters[st->focus_cluster].name, bname,
             st->models[st->focus_model].name);
  f->n_panels = best >= 0 ? 2 : 1;
  relative_panel(st, &f->p[0], b);
  if (best >= 0)
    gain_panel(st, &f->p[1], b, best);
  int pts = 0;
  for (int i = 0; i < f->n_panels; i++)
    for (int j = 0; j < f->p[i].n_series; j++)
      pts += f->p[i].s[j].n;
  best_findings(st, f, b, best);
  if (pts == 0)
    study_setf(f->skip, sizeof f->skip, "FSDP alone never runs beside another strategy on %s%s%s",
               st->clusters[st->focus_cluster].name, f->findings[0] ? ": " : "", f->findings);
}

/* ---- GPU generations ---- */

struct gen {
  int c;
  double peak;
};

static int by_peak(const void *a, const void *b) {
  const struct gen *x = a, *y = b;
  if (x->peak != y->peak)
    return x->peak < y->peak ? -1 : 1;
  return x->c - y->c;
}

static int sorted_gens(const struct pl_study *st, struct gen *g) {
  for (int c = 0; c < st->spec.n_clusters; c++)
    g[c] = (struct gen){c, pl_gpu_peak_flops_per_s(&st->clusters[c].gpu, st->spec.dtype)};
  qsort(g, (size_t)st->spec.n_clusters, sizeof g[0], by_peak);
  return st->spec.n_clusters;
}

static bool speedup(const struct pl_study *st, int m, int lo, int hi, int b, int s, int k,
                    double *r) {
  double a, z;
  if (!study_metric(pl_study_at(st, m, lo, b, s, k), STUDY_M_TOKENS_PER_S, &a) ||
      !study_metric(pl_study_at(st, m, hi, b, s, k), STUDY_M_TOKENS_PER_S, &z))
    return false;
  *r = z / a;
  return true;
}

static void gen_findings(const struct pl_study *st, struct study_fig *f, const struct gen *g, int n,
                         int b, int s) {
  int m = st->focus_model;
  f->findings[0] = '\0';
  for (int i = n - 1; i >= 1; i--) {
    for (int k = st->spec.n_nodes - 1; k >= 0; k--) {
      double r;
      if (!speedup(st, m, g[i - 1].c, g[i].c, b, s, k, &r))
        continue;
      char lo[32], hi[32], gp[32];
      study_gpu_label(&st->clusters[g[i - 1].c], lo, sizeof lo);
      study_gpu_label(&st->clusters[g[i].c], hi, sizeof hi);
      study_fmt_int(gp, sizeof gp, pl_study_at(st, m, g[i].c, b, s, k)->gpus);
      study_appendf(f->findings, sizeof f->findings,
                    "%sAt %s GPUs, %s trains %s %.2fx as fast as %s (%s layouts) while its peak "
                    "dense FLOP/s is %.2fx.",
                    f->findings[0] ? " " : "", gp, hi, st->models[m].name, r, lo,
                    st->spec.strategies[s], g[i].peak / g[i - 1].peak);
      break;
    }
  }
}

void study_fig_generations(const struct pl_study *st, struct study_fig *f) {
  int b = study_main_batch(st), s = pl_study_spec_strategy(&st->spec, "best");
  if (s < 0)
    s = st->baseline;
  study_fig_begin(f, "generations", "GPU generations: speed-up against peak FLOP/s");
  study_setf(f->caption, sizeof f->caption,
             "Throughput of each GPU generation over the previous one (clusters ordered by peak "
             "dense FLOP/s) with the %s layout at each point, per model (line style); the "
             "horizontal lines are the ratios of peak dense FLOP/s that a compute-bound step "
             "would reach.",
             st->spec.strategies[s]);
  struct gen g[PL_STUDY_MAX_AXIS];
  int n = sorted_gens(st, g), pts = 0;
  f->n_panels = 1;
  study_panel_begin(STUDY_PANEL_LINES, &f->p[0], "Speed-up of each generation", "GPUs", "speed-up (x)");
  for (int i = 1; i < n; i++) {
    char lo[32], hi[32], t[96];
    study_gpu_label(&st->clusters[g[i - 1].c], lo, sizeof lo);
    study_gpu_label(&st->clusters[g[i].c], hi, sizeof hi);
    for (int m = 0; m < st->spec.n_models; m++) {
      study_setf(t, sizeof t, "%s/%s %s", hi, lo, st->models[m].name);
      struct study_series *x = study_panel_add(&f->p[0], t, i - 1, m + 1, 5 + 2 * (m % 4));
      for (int k = 0; x != NULL && k < st->spec.n_nodes; k++) {
        double r;
        if (speedup(st, m, g[i - 1].c, g[i].c, b, s, k, &r))
          study_series_add(x, (double)pl_study_at(st, m, g[i].c, b, s, k)->gpus, r, NULL);
      }
      pts += x != NULL ? x->n : 0;
    }
    struct study_panel *pn = &f->p[0];
    if (pn->n_hlines < STUDY_MAX_HLINES) {
      struct study_hline *h = &pn->hline[pn->n_hlines++];
      h->y = g[i].peak / g[i - 1].peak;
      h->color = i - 1;
      study_setf(h->title, sizeof h->title, "peak FLOP/s %s/%s = %.2fx", hi, lo, h->y);
    }
  }
  if (pts == 0) {
    study_setf(f->skip, sizeof f->skip, "needs two clusters that run the same points");
    return;
  }
  gen_findings(st, f, g, n, b, s);
}
