/* fig_exposed.c: the study's main claim drawn directly: how much of each
 * collective type stays exposed (not hidden behind compute) per step as
 * GPUs are added, under FSDP alone and under the layout that beats it
 * (arXiv 2411.13055 section 4: FSDP's all_gather and reduce_scatter become
 * latency-bound and exposed at scale; tensor and pipeline parallelism trade
 * them for their own, smaller, collectives). The values are predict's
 * per-collective exposed time (struct pl_coll_summary.exposed_s,
 * docs/step-model.md), summed by type; results.csv carries the same sums
 * (study.exposed_<type>_s), which tests/cli/study_figdata.sh checks the
 * figure's data against. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

const char *const study_xk_names[STUDY_N_XK] = {"all_gather", "reduce_scatter", "all_reduce",
                                                 "tp", "pp", "cp"};

/* The type of one collective summary: its group for tp, pp and cp; else
 * (dp, dp-replica) its op. -1 for ops of the data-parallel groups that are
 * none of the three (none today). */
static int kind_of(const struct pl_coll_summary *c) {
  if (strcmp(c->group, "tp") == 0)
    return STUDY_XK_TP;
  if (strcmp(c->group, "pp") == 0)
    return STUDY_XK_PP;
  if (strcmp(c->group, "cp") == 0 || strcmp(c->group, "tp+cp") == 0)
    return STUDY_XK_CP;
  for (int k = 0; k < STUDY_XK_TP; k++)
    if (strcmp(c->op, study_xk_names[k]) == 0)
      return k;
  return -1;
}

bool study_exposed_by_kind(const struct pl_prediction *p, double out[STUDY_N_XK]) {
  for (int k = 0; k < STUDY_N_XK; k++)
    out[k] = 0.0;
  if (!p->step.simulated)
    return false;
  for (int i = 0; i < p->step.n_collectives; i++) {
    int k = kind_of(&p->step.collectives[i]);
    if (k >= 0)
      out[k] += p->step.collectives[i].exposed_s;
  }
  return true;
}

/* One series per collective type that is ever exposed; returns how many. */
static int exposed_panel(const struct pl_study *st, struct study_panel *pn, int s, int b,
                         double *last_ms) {
  int m = st->focus_model, c = st->focus_cluster, drawn = 0;
  for (int k = 0; k < STUDY_N_XK; k++) {
    struct study_series tmp;
    memset(&tmp, 0, sizeof tmp);
    bool any = false;
    for (int n = 0; n < st->spec.n_nodes; n++) {
      const struct pl_study_point *p = pl_study_at(st, m, c, b, s, n);
      double x[STUDY_N_XK];
      if (p->status != PL_STUDY_OK || !p->has_pred || !study_exposed_by_kind(&p->pred, x))
        continue;
      study_series_add(&tmp, (double)p->gpus, 1e3 * x[k], NULL);
      any |= x[k] > 0;
      last_ms[k] = 1e3 * x[k];
    }
    if (!any)
      continue;
    struct study_series *o = study_panel_add(pn, study_xk_names[k], k, 1, 7);
    for (int i = 0; o != NULL && i < tmp.n; i++)
      study_series_add(o, tmp.x[i], tmp.y[i], NULL);
    drawn++;
  }
  return drawn;
}

/* The strategy of the right panel: "best" when the spec has it, else the
 * first named strategy other than FSDP alone; -1 none. */
static int other_strategy(const struct pl_study *st) {
  int best = pl_study_spec_strategy(&st->spec, "best");
  if (best >= 0)
    return best;
  for (int s = 0; s < st->spec.n_strategies; s++)
    if (s != st->baseline)
      return s;
  return -1;
}

static void exposed_findings(const struct pl_study *st, struct study_fig *f, const double *base,
                             const double *other, int s) {
  int worst = 0;
  for (int k = 1; k < STUDY_N_XK; k++)
    worst = base[k] > base[worst] ? k : worst;
  study_setf(f->findings, sizeof f->findings,
             "At the largest scale that runs, FSDP alone leaves %.1f ms of %s exposed per step",
             base[worst], study_xk_names[worst]);
  if (s >= 0) {
    double a = 0, b = 0;
    for (int k = 0; k < STUDY_N_XK; k++)
      a += base[k], b += other[k];
    study_appendf(f->findings, sizeof f->findings,
                  "; all collectives together: %.1f ms under FSDP alone, %.1f ms under %s", a, b,
                  st->spec.strategies[s]);
  }
  study_appendf(f->findings, sizeof f->findings, ".");
}

void study_fig_exposed(const struct pl_study *st, struct study_fig *f) {
  int b = study_main_batch(st), s = other_strategy(st);
  char bname[64];
  study_batch_name(&st->spec.batches[b], bname, sizeof bname);
  study_fig_begin(f, "exposed-collectives", "Exposed communication by collective type");
  study_setf(f->caption, sizeof f->caption,
             "Predicted time per step that each collective type is not hidden behind compute, "
             "%s on %s, %s: all_gather, reduce_scatter and all_reduce of the data-parallel "
             "groups, and everything of the tp, pp and cp groups. Left: FSDP alone; right: %s. "
             "Both panels share the y scale. Types never exposed are not drawn.",
             st->models[st->focus_model].name, st->clusters[st->focus_cluster].name, bname,
             s >= 0 ? st->spec.strategies[s] : "no other strategy in the spec");
  f->n_panels = s >= 0 ? 2 : 1;
  f->same_y = true;
  study_panel_begin(STUDY_PANEL_LINES, &f->p[0], "FSDP alone", "GPUs", "exposed time per step (ms)");
  double base[STUDY_N_XK] = {0}, other[STUDY_N_XK] = {0};
  int drawn = exposed_panel(st, &f->p[0], st->baseline, b, base);
  if (s >= 0) {
    study_panel_begin(STUDY_PANEL_LINES, &f->p[1], st->strat[s].best ? "best layout (searched)" : st->spec.strategies[s], "GPUs", "exposed time per step (ms)");
    drawn += exposed_panel(st, &f->p[1], s, b, other);
    study_copy(f->p[1].empty_note, sizeof f->p[1].empty_note, "nothing exposed");
  }
  study_copy(f->p[0].empty_note, sizeof f->p[0].empty_note, "nothing exposed");
  if (drawn == 0) {
    study_setf(f->skip, sizeof f->skip, "no collective is exposed at any scale on %s",
               st->clusters[st->focus_cluster].name);
    return;
  }
  exposed_findings(st, f, base, other, s);
}

/* ---- every GPU generation against GPUs ---- */

/* Exposed communication as a share of the step (%), of a simulated point. */
static bool exposed_pct(const struct pl_study_point *p, double *out) {
  if (p->status != PL_STUDY_OK || !p->has_pred || p->pred.step.step_time_s <= 0)
    return false;
  *out = 100.0 * p->pred.step.exposed_comm_s / p->pred.step.step_time_s;
  return true;
}

void study_fig_gen_scaling(const struct pl_study *st, struct study_fig *f) {
  int m = st->focus_model, b = study_main_batch(st), base = st->baseline, drawn = 0;
  char bname[64];
  study_batch_name(&st->spec.batches[b], bname, sizeof bname);
  study_fig_begin(f, "generations-scaling", "Every GPU generation against GPUs, FSDP alone");
  study_setf(f->caption, sizeof f->caption,
             "%s under FSDP alone (%s), one line per cluster: throughput per GPU (left) and the "
             "share of the step that communication stays exposed (right); shaded: the "
             "prediction's error band (the middle 90%% of the published runs of its class; "
             "docs/accuracy.md). MFU per generation is the MFU figure.",
             st->models[m].name, bname);
  f->n_panels = 2;
  study_panel_begin(STUDY_PANEL_LINES, &f->p[0], "Throughput per GPU", "GPUs", "exposed time per step (ms)");
  study_copy(f->p[0].ylabel, sizeof f->p[0].ylabel, "tokens/s per GPU");
  study_panel_begin(STUDY_PANEL_LINES, &f->p[1], "Exposed communication", "GPUs", "exposed time per step (ms)");
  study_copy(f->p[1].ylabel, sizeof f->p[1].ylabel, "% of the step");
  double first = 0, last = 0;
  int published = 0;
  for (int c = 0; c < st->spec.n_clusters; c++) {
    struct study_series *s0 = study_panel_add(&f->p[0], st->clusters[c].name, c, 1, 7);
    struct study_series *s1 = study_panel_add(&f->p[1], st->clusters[c].name, c, 1, 7);
    if (study_series_nodes(st, s0, m, c, b, base, STUDY_M_TOKENS_PER_S_PER_GPU) > 0)
      drawn++;
    study_band_nodes(st, &f->p[0], st->clusters[c].name, c, m, c, b, base,
                     STUDY_M_TOKENS_PER_S_PER_GPU);
    published += study_published_series(st, &f->p[0], m, c, c, st->clusters[c].name,
                                        STUDY_M_TOKENS_PER_S_PER_GPU);
    for (int k = 0; k < st->spec.n_nodes; k++) {
      const struct pl_study_point *p = pl_study_at(st, m, c, b, base, k);
      double v;
      if (exposed_pct(p, &v)) {
        study_series_add(s1, (double)p->gpus, v, NULL);
        if (c == st->focus_cluster && s1->n == 1)
          first = v;
        if (c == st->focus_cluster)
          last = v;
      }
    }
  }
  if (published > 0)
    study_appendf(f->caption, sizeof f->caption,
                  " Open markers: published runs of %s on the same GPU at the same sequence "
                  "length (data/validation, embedded or --validation; their own layout and precision, docs/study.md).",
                  st->models[m].name);
  if (drawn == 0) {
    study_setf(f->skip, sizeof f->skip, "FSDP alone does not run for %s on any cluster",
               st->models[m].name);
    return;
  }
  study_setf(f->findings, sizeof f->findings,
             "On %s, exposed communication under FSDP alone goes from %.1f%% of the step at the "
             "smallest scale to %.1f%% at the largest.",
             st->clusters[st->focus_cluster].name, first, last);
}
