/* fig_cost.c: where a step's time, memory and energy go as GPUs are
 * added: the time breakdown (compute, overlapped and exposed communication,
 * pipeline bubble; arXiv 2411.13055 Sec. 3 "Communication efficiency"),
 * memory per GPU by part (Appendix H) and power (Sec. 3 "Power
 * utilization"). Single-setup figures use the spec's focus model and
 * cluster with the first weak-scaling batch. */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

/* A bar's label: its GPUs, and under them the model-parallel degrees when
 * the layout varies from bar to bar (l not NULL). */
static void add_cat(struct study_panel *pn, int64_t gpus, const struct pl_layout *l) {
  if (pn->n_cat >= STUDY_MAX_PTS)
    return;
  char *c = pn->cat[pn->n_cat++];
  c[0] = '\0';
  study_appendf(c, sizeof pn->cat[0], "%lld", (long long)gpus);
  if (l == NULL)
    return;
  study_appendf(c, sizeof pn->cat[0], "\n");
  if (l->tp > 1)
    study_appendf(c, sizeof pn->cat[0], "tp%lld", (long long)l->tp);
  if (l->pp > 1)
    study_appendf(c, sizeof pn->cat[0], "pp%lld", (long long)l->pp);
  if (l->cp > 1)
    study_appendf(c, sizeof pn->cat[0], "cp%lld", (long long)l->cp);
  if (l->tp * l->pp * l->cp == 1)
    study_appendf(c, sizeof pn->cat[0], "dp");
}

/* ---- step time breakdown ---- */

static const char *const time_parts[] = {"compute (not overlapped)", "overlapped communication",
                                         "exposed communication", "pipeline bubble",
                                         "optimizer and other"};

static void time_bars(const struct pl_study *st, struct study_panel *pn, int s, int b) {
  bool searched = st->strat[s].best;
  int m = st->focus_model, c = st->focus_cluster;
  for (int i = 0; i < 5; i++)
    study_panel_add(pn, time_parts[i], i, 1, 0);
  for (int k = 0; k < st->spec.n_nodes; k++) {
    const struct pl_study_point *p = pl_study_at(st, m, c, b, s, k);
    if (p->status != PL_STUDY_OK || pn->n_cat >= STUDY_MAX_PTS)
      continue;
    const struct pl_step *t = &p->pred.step;
    double overlapped = t->overlapped_comm_s < t->compute_s ? t->overlapped_comm_s : t->compute_s;
    double v[5] = {t->compute_s - overlapped, overlapped, t->exposed_comm_s, t->bubble_s,
                   t->optimizer_s + t->other_s};
    for (int i = 0; i < 5; i++)
      study_series_add(&pn->s[i], (double)pn->n_cat, v[i], NULL);
    add_cat(pn, p->gpus, searched ? &p->pred.run.layout : NULL);
  }
}

static void breakdown_findings(const struct pl_study *st, struct study_fig *f, int b) {
  int m = st->focus_model, c = st->focus_cluster, base = st->baseline, lo, hi;
  f->findings[0] = '\0';
  if (!study_ends(st, m, c, b, base, &lo, &hi))
    return;
  const struct pl_step *a = &pl_study_at(st, m, c, b, base, lo)->pred.step;
  const struct pl_step *z = &pl_study_at(st, m, c, b, base, hi)->pred.step;
  char g0[32], g1[32];
  study_fmt_int(g0, sizeof g0, pl_study_at(st, m, c, b, base, lo)->gpus);
  study_fmt_int(g1, sizeof g1, pl_study_at(st, m, c, b, base, hi)->gpus);
  study_appendf(f->findings, sizeof f->findings,
                "Under FSDP alone, exposed communication of %s on %s goes from %.1f%% of the step "
                "at %s GPUs to %.1f%% at %s, while the time spent computing goes from %.2f s to "
                "%.2f s per step.",
                st->models[m].name, st->clusters[c].name,
                100.0 * a->exposed_comm_s / a->step_time_s, g0,
                100.0 * z->exposed_comm_s / z->step_time_s, g1, a->compute_s, z->compute_s);
}

void study_fig_breakdown(const struct pl_study *st, struct study_fig *f) {
  int b = study_main_batch(st), best = pl_study_spec_strategy(&st->spec, "best");
  char bname[64];
  study_batch_name(&st->spec.batches[b], bname, sizeof bname);
  study_fig_begin(f, "breakdown", "Where the step time goes");
  study_setf(f->caption, sizeof f->caption,
             "Predicted time per step of %s on %s (%s) by part, per world size: compute not hidden "
             "under communication, communication overlapped with compute, exposed communication, "
             "pipeline bubble, optimizer and other. The parts add up to the step time. Under the "
             "best layout's bars: its model-parallel degrees (dp: data parallel only).",
             st->models[st->focus_model].name, st->clusters[st->focus_cluster].name, bname);
  f->n_panels = best >= 0 ? 2 : 1;
  study_panel_begin(STUDY_PANEL_STACKED, &f->p[0], "FSDP alone", "GPUs", "time per step (s)");
  time_bars(st, &f->p[0], st->baseline, b);
  if (best >= 0) {
    study_panel_begin(STUDY_PANEL_STACKED, &f->p[1], "Best layout", "GPUs", "time per step (s)");
    time_bars(st, &f->p[1], best, b);
  }
  if (f->p[0].n_cat == 0 && (best < 0 || f->p[1].n_cat == 0)) {
    study_setf(f->skip, sizeof f->skip, "no point of %s on %s runs",
               st->models[st->focus_model].name, st->clusters[st->focus_cluster].name);
    return;
  }
  breakdown_findings(st, f, b);
}

/* ---- memory per GPU ---- */

static const char *const mem_parts[] = {"parameters", "gradients", "optimizer states",
                                        "activations", "other (buffers, framework)"};

static void memory_findings(const struct pl_study *st, struct study_fig *f, const double *tot,
                            const int64_t *gpus, int n, const struct pl_memory *last) {
  char g0[32], g1[32], gh[32];
  study_fmt_int(g0, sizeof g0, gpus[0]);
  study_fmt_int(g1, sizeof g1, gpus[n - 1]);
  double saving = tot[0] - tot[n - 1];
  int half = n - 1;
  for (int i = 1; i < n; i++)
    if (tot[0] - tot[i] >= 0.5 * saving) {
      half = i;
      break;
    }
  study_fmt_int(gh, sizeof gh, gpus[half]);
  study_setf(f->findings, sizeof f->findings,
             "Under FSDP (%s), memory per GPU for %s falls from %.1f GiB at %s GPUs to %.1f GiB at "
             "%s (%.0f%%); half of that saving is reached by %s GPUs, because parameters (%.1f "
             "GiB) and activations (%.1f GiB) do not shrink with more data-parallel ranks.",
             pl_shard_name(st->spec.shard), st->models[st->focus_model].name, tot[0] / GIB, g0,
             tot[n - 1] / GIB, g1, tot[0] > 0 ? 100.0 * saving / tot[0] : 0.0, gh,
             last->params_bytes / GIB, last->activations_bytes / GIB);
}

void study_fig_memory(const struct pl_study *st, struct study_fig *f) {
  int m = st->focus_model, c = st->focus_cluster, b = study_main_batch(st), base = st->baseline;
  study_fig_begin(f, "memory", "Memory per GPU against world size");
  study_setf(f->caption, sizeof f->caption,
             "Predicted memory of the busiest GPU for %s under FSDP alone (%s) on %s, by part; the "
             "dashed line is the GPU's memory. Bars above it do not fit.",
             st->models[m].name, pl_shard_name(st->spec.shard), st->clusters[c].name);
  f->n_panels = 1;
  struct study_panel *pn = &f->p[0];
  study_panel_begin(STUDY_PANEL_STACKED, pn, "Memory per GPU (FSDP alone)", "GPUs", "GiB per GPU");
  for (int i = 0; i < 5; i++)
    study_panel_add(pn, mem_parts[i], i, 1, 0);
  double tot[STUDY_MAX_PTS];
  int64_t gpus[STUDY_MAX_PTS];
  struct pl_memory last;
  memset(&last, 0, sizeof last);
  for (int k = 0; k < st->spec.n_nodes; k++) {
    const struct pl_study_point *p = pl_study_at(st, m, c, b, base, k);
    if (!p->has_pred || pn->n_cat >= STUDY_MAX_PTS)
      continue;
    const struct pl_memory *me = &p->pred.memory;
    double v[5] = {me->params_bytes, me->grads_bytes, me->optimizer_bytes, me->activations_bytes,
                   me->other_bytes};
    for (int i = 0; i < 5; i++)
      study_series_add(&pn->s[i], (double)pn->n_cat, v[i] / GIB, NULL);
    tot[pn->n_cat] = me->total_bytes;
    gpus[pn->n_cat] = p->gpus;
    last = *me;
    add_cat(pn, p->gpus, NULL);
  }
  pn->n_hlines = 1;
  pn->hline[0].y = st->clusters[c].gpu.hbm_bytes / GIB;
  pn->hline[0].color = -1;
  study_setf(pn->hline[0].title, sizeof pn->hline[0].title, "%s memory", st->clusters[c].gpu.name);
  if (pn->n_cat < 2) {
    study_setf(f->skip, sizeof f->skip, "FSDP alone has fewer than two valid layouts of %s on %s",
               st->models[m].name, st->clusters[c].name);
    return;
  }
  memory_findings(st, f, tot, gpus, pn->n_cat, &last);
}

/* ---- power ---- */

static void power_findings(const struct pl_study *st, struct study_fig *f, int b) {
  int m = st->focus_model, c = st->focus_cluster, base = st->baseline, lo, hi;
  f->findings[0] = '\0';
  if (!study_ends(st, m, c, b, base, &lo, &hi))
    return;
  const struct pl_study_point *p0 = pl_study_at(st, m, c, b, base, lo);
  const struct pl_study_point *p1 = pl_study_at(st, m, c, b, base, hi);
  char g0[32], g1[32], gpu[32], thr[48], pw[48], tpj[48];
  study_fmt_int(g0, sizeof g0, p0->gpus);
  study_fmt_int(g1, sizeof g1, p1->gpus);
  study_gpu_label(&st->clusters[c], gpu, sizeof gpu);
  study_fmt_change(thr, sizeof thr, p0->pred.step.tokens_per_s_per_gpu,
                   p1->pred.step.tokens_per_s_per_gpu);
  study_fmt_change(pw, sizeof pw, p0->pred.step.gpu_w, p1->pred.step.gpu_w);
  study_fmt_change(tpj, sizeof tpj, p0->pred.step.tokens_per_j, p1->pred.step.tokens_per_j);
  study_setf(f->findings, sizeof f->findings,
             "From %s to %s %ss (%s, FSDP alone), per-GPU throughput %s while per-GPU power %s "
             "(%.0f W to %.0f W), so tokens per joule %s.",
             g0, g1, gpu, st->models[m].name, thr, pw, p0->pred.step.gpu_w, p1->pred.step.gpu_w,
             tpj);
}

void study_fig_power(const struct pl_study *st, struct study_fig *f) {
  int m = st->focus_model, b = study_main_batch(st), base = st->baseline;
  int best = pl_study_spec_strategy(&st->spec, "best"), drawn = 0;
  study_fig_begin(f, "power", "Power and energy efficiency against GPUs");
  study_setf(f->caption, sizeof f->caption,
             "Predicted mean draw per GPU over a step (left) and tokens per joule of the whole "
             "cluster, node power beyond the GPUs included (right), for %s; solid: FSDP alone, "
             "dashed: best layout.",
             st->models[m].name);
  f->n_panels = 2;
  struct study_panel *pw = &f->p[0], *pe = &f->p[1];
  memset(pw, 0, sizeof *pw);
  memset(pe, 0, sizeof *pe);
  study_setf(pw->title, sizeof pw->title, "Power per GPU");
  study_setf(pe->title, sizeof pe->title, "Energy efficiency");
  study_setf(pw->ylabel, sizeof pw->ylabel, "W per GPU");
  study_setf(pe->ylabel, sizeof pe->ylabel, "tokens per joule");
  for (int i = 0; i < 2; i++) {
    study_setf(f->p[i].xlabel, sizeof f->p[i].xlabel, "GPUs");
    f->p[i].logx = true;
  }
  for (int c = 0; c < st->spec.n_clusters; c++) {
    char t[96];
    study_setf(t, sizeof t, "%s FSDP", st->clusters[c].name);
    drawn +=
        study_series_nodes(st, study_panel_add(pw, t, c, 1, 7), m, c, b, base, STUDY_M_GPU_W) > 0;
    study_series_nodes(st, study_panel_add(pe, t, c, 1, 7), m, c, b, base, STUDY_M_TOKENS_PER_J);
    if (best < 0)
      continue;
    study_setf(t, sizeof t, "%s best", st->clusters[c].name);
    drawn +=
        study_series_nodes(st, study_panel_add(pw, t, c, 2, 6), m, c, b, best, STUDY_M_GPU_W) > 0;
    study_series_nodes(st, study_panel_add(pe, t, c, 2, 6), m, c, b, best, STUDY_M_TOKENS_PER_J);
  }
  if (drawn == 0) {
    study_setf(f->skip, sizeof f->skip, "no point of %s runs", st->models[m].name);
    return;
  }
  power_findings(st, f, b);
}
