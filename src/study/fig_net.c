/* fig_net.c: the network figures. "collectives": bus bandwidth of
 * all_reduce against all_gather and reduce_scatter as nodes are added
 * (arXiv 2411.13055 Figure 2, from the collective model instead of
 * nccl-tests). "measured": runs analyzed from Kineto traces over the
 * predicted curves: the share of the step spent in communication, and the
 * bus bandwidth their collectives reached against the model's at the same
 * size and group. The measured workload need not be the predicted one: the
 * sentences say which setup the curves are for. */
#include "study_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/units.h>

/* The collective of cluster c, op o at node index k. */
static const struct pl_study_coll *coll_at(const struct pl_study *st, int c, int o, int k) {
  int64_t i = ((int64_t)c * 3 + o) * st->spec.n_nodes + k;
  return i < st->n_coll ? &st->coll[i] : NULL;
}

static void coll_findings(const struct pl_study *st, struct study_fig *f) {
  int c = st->focus_cluster;
  char bytes[32];
  pl_fmt_bytes(bytes, sizeof bytes, st->spec.coll_bytes);
  study_setf(f->findings, sizeof f->findings, "On %s with %s messages", st->clusters[c].name,
             bytes);
  int said = 0;
  for (int o = 0; o < 2; o++) {
    const struct pl_study_coll *a = NULL, *z = NULL;
    for (int k = 0; k < st->spec.n_nodes; k++) {
      const struct pl_study_coll *x = coll_at(st, c, o, k);
      if (x == NULL || !x->ok)
        continue;
      if (a == NULL)
        a = x;
      z = x;
    }
    if (a == NULL || z == a)
      continue;
    char ch[48];
    study_fmt_change(ch, sizeof ch, a->busbw_bytes_per_s, z->busbw_bytes_per_s);
    if (said == 0)
      study_appendf(f->findings, sizeof f->findings, ", from %lld to %lld nodes",
                    (long long)a->nodes, (long long)z->nodes);
    study_appendf(f->findings, sizeof f->findings, "%s %s bus bandwidth %s (%.0f to %.0f GB/s, %s)",
                  said ? ", while" : "", pl_coll_op_name((enum pl_coll_op)a->op), ch,
                  a->busbw_bytes_per_s / 1e9, z->busbw_bytes_per_s / 1e9, z->algo);
    said++;
  }
  study_appendf(f->findings, sizeof f->findings, "%s",
                said ? "." : ", no collective runs at two scales.");
}

void study_fig_collectives(const struct pl_study *st, struct study_fig *f) {
  char bytes[32];
  pl_fmt_bytes(bytes, sizeof bytes, st->spec.coll_bytes);
  study_fig_begin(f, "collectives", "Collective bus bandwidth against nodes");
  study_setf(
      f->caption, sizeof f->caption,
      "Predicted bus bandwidth (nccl-tests definition, GB/s = 1e9 B/s) of one %s collective "
      "over all GPUs of n nodes, with the algorithm NCCL's tuner would pick; colour: "
      "operation, line style: cluster (reduce_scatter is drawn over all_gather where the model "
      "gives both the same time).",
      bytes);
  f->n_panels = 1;
  study_panel_begin(STUDY_PANEL_LINES, &f->p[0], "Bus bandwidth", "nodes", "bus bandwidth (GB/s)");
  int pts = 0;
  for (int c = 0; c < st->spec.n_clusters; c++)
    for (int o = 0; o < 3; o++) {
      const struct pl_study_coll *x0 = coll_at(st, c, o, 0);
      if (x0 == NULL)
        continue;
      char t[96];
      study_setf(t, sizeof t, "%s %s", pl_coll_op_name((enum pl_coll_op)x0->op),
                 st->clusters[c].name);
      struct study_series *s = study_panel_add(&f->p[0], t, o, c + 1, 5 + 2 * (c % 4));
      for (int k = 0; s != NULL && k < st->spec.n_nodes; k++) {
        const struct pl_study_coll *x = coll_at(st, c, o, k);
        if (x != NULL && x->ok)
          study_series_add(s, (double)x->nodes, x->busbw_bytes_per_s / 1e9, NULL);
      }
      pts += s != NULL ? s->n : 0;
    }
  if (pts == 0) {
    study_setf(f->skip, sizeof f->skip, "the collective model gave no time for any cluster");
    return;
  }
  coll_findings(st, f);
}

/* ---- bus bandwidth against message size (the paper's Figure 2 form) ---- */

/* Message sizes of the size sweep: 64 KiB to 16 GiB by fours, nccl-tests'
 * definition (the whole buffer). */
#define SWEEP_MIN_BYTES 65536.0
#define SWEEP_STEPS 10

/* busbw of op over every GPU of `nodes` nodes of cluster cl at `bytes`, or
 * false when the model gives no time. */
static bool sweep_busbw(const struct pl_cluster *cl, enum pl_coll_op op, int64_t nodes,
                        double bytes, double *out) {
  int64_t g = cl->gpus_per_node, n = nodes * g;
  struct pl_coll_cost cost;
  if (n < 2 || pl_coll_time(cl, op, bytes, (struct pl_group){n, g}, PL_ALGO_AUTO, &cost) != PL_OK ||
      !(cost.time_s > 0.0))
    return false;
  *out = pl_coll_busbw(op, n, bytes, cost.time_s);
  return true;
}

/* The focus cluster's busbw at 64 MiB and 16 GiB on the fewest and the
 * most nodes of the grid (all_gather), for the sentence. */
static void size_findings(const struct pl_study *st, struct study_fig *f) {
  const struct pl_cluster *cl = &st->clusters[st->focus_cluster];
  int64_t lo = st->spec.nodes[0], hi = st->spec.nodes[st->spec.n_nodes - 1];
  double a64, z64, a16, z16;
  double big = SWEEP_MIN_BYTES * pow(4.0, SWEEP_STEPS - 1);
  if (!sweep_busbw(cl, PL_COLL_ALL_GATHER, lo, 67108864.0, &a64) ||
      !sweep_busbw(cl, PL_COLL_ALL_GATHER, hi, 67108864.0, &z64) ||
      !sweep_busbw(cl, PL_COLL_ALL_GATHER, lo, big, &a16) ||
      !sweep_busbw(cl, PL_COLL_ALL_GATHER, hi, big, &z16)) {
    study_setf(f->findings, sizeof f->findings, "On %s the model gives no all_gather time.",
               cl->name);
    return;
  }
  study_setf(f->findings, sizeof f->findings,
             "On %s, all_gather of 64 MiB reaches %.0f GB/s bus bandwidth on %lld node%s and "
             "%.0f GB/s on %lld nodes; at 16 GiB %.0f and %.0f GB/s: the larger the world, the "
             "larger the message needed to leave the latency-bound regime.",
             cl->name, a64 / 1e9, (long long)lo, lo == 1 ? "" : "s", z64 / 1e9, (long long)hi,
             a16 / 1e9, z16 / 1e9);
}

void study_fig_collectives_size(const struct pl_study *st, struct study_fig *f) {
  static const enum pl_coll_op ops[2] = {PL_COLL_ALL_REDUCE, PL_COLL_ALL_GATHER};
  study_fig_begin(f, "collectives_size", "Collective bus bandwidth against message size");
  study_setf(f->caption, sizeof f->caption,
             "Predicted bus bandwidth (nccl-tests definition, GB/s = 1e9 B/s) of all_reduce and "
             "all_gather over all GPUs of n nodes against the message size (64 KiB to 16 GiB), "
             "with the algorithm NCCL's tuner would pick (the form of the paper's Figure 2); "
             "colour: nodes, line style: cluster.");
  f->n_panels = 2;
  int pts = 0;
  for (int o = 0; o < 2; o++) {
    char t[96];
    study_setf(t, sizeof t, "%s", pl_coll_op_name(ops[o]));
    study_panel_begin(STUDY_PANEL_LINES, &f->p[o], t, "message size (MiB)", "bus bandwidth (GB/s)");
    for (int c = 0; c < st->spec.n_clusters; c++)
      for (int k = 0; k < st->spec.n_nodes; k++) {
        const struct pl_cluster *cl = &st->clusters[c];
        study_setf(t, sizeof t, "%s, %lld node%s", cl->name, (long long)st->spec.nodes[k],
                   st->spec.nodes[k] == 1 ? "" : "s");
        struct study_series *s = study_panel_add(&f->p[o], t, k, c + 1, 5 + 2 * (c % 4));
        double bytes = SWEEP_MIN_BYTES, bw;
        for (int i = 0; s != NULL && i < SWEEP_STEPS; i++, bytes *= 4.0)
          if (sweep_busbw(cl, ops[o], st->spec.nodes[k], bytes, &bw))
            study_series_add(s, bytes / 1048576.0, bw / 1e9, NULL);
        pts += s != NULL ? s->n : 0;
      }
  }
  if (pts == 0) {
    study_setf(f->skip, sizeof f->skip, "the collective model gave no time for any cluster");
    return;
  }
  size_findings(st, f);
}

/* ---- measured runs ---- */

/* The node index whose GPUs are closest to gpus (log scale). */
static int nearest_k(const struct pl_study *st, int c, int64_t gpus) {
  int best = 0;
  double bd = INFINITY;
  for (int k = 0; k < st->spec.n_nodes; k++) {
    double d =
        fabs(log((double)(st->spec.nodes[k] * st->clusters[c].gpus_per_node)) - log((double)gpus));
    if (d < bd) {
      bd = d;
      best = k;
    }
  }
  return best;
}

static bool predicted_busbw(const struct pl_cluster *cl, const char *op, double bytes,
                            int64_t ranks, double *out) {
  enum pl_coll_op o;
  if (pl_coll_op_parse(op, &o, NULL) != PL_OK || ranks < 2)
    return false;
  int64_t per = ranks < cl->gpus_per_node ? ranks : cl->gpus_per_node;
  if (ranks % per != 0)
    return false;
  struct pl_coll_cost cost;
  if (pl_coll_time(cl, o, bytes, (struct pl_group){ranks, per}, PL_ALGO_AUTO, &cost) != PL_OK ||
      !(cost.time_s > 0.0))
    return false;
  *out = pl_coll_busbw(o, ranks, bytes, cost.time_s);
  return true;
}

static void share_panel(const struct pl_study *st, struct study_panel *pn) {
  int m = st->focus_model, c = st->focus_cluster, b = study_main_batch(st), base = st->baseline;
  study_panel_begin(STUDY_PANEL_LINES, pn, "Communication share of the step", "GPUs", "share of step time (%)");
  struct study_series *pe = study_panel_add(pn, "exposed, predicted", 3, 1, 0);
  struct study_series *po = study_panel_add(pn, "overlapped, predicted", 1, 1, 0);
  for (int k = 0; k < st->spec.n_nodes; k++) {
    const struct pl_study_point *p = pl_study_at(st, m, c, b, base, k);
    if (p->status != PL_STUDY_OK)
      continue;
    const struct pl_step *s = &p->pred.step;
    study_series_add(pe, (double)p->gpus, 100.0 * s->exposed_comm_s / s->step_time_s, NULL);
    study_series_add(po, (double)p->gpus, 100.0 * s->overlapped_comm_s / s->step_time_s, NULL);
  }
  struct study_series *me = study_panel_add(pn, "exposed, measured", 3, 0, 9);
  struct study_series *mo = study_panel_add(pn, "overlapped, measured", 1, 0, 11);
  for (int i = 0; i < st->n_measured; i++) {
    const struct pl_study_measured *x = &st->measured[i];
    study_series_add(me, (double)x->world_size, 100.0 * x->exposed_comm_s / x->step_time_s,
                     x->label);
    study_series_add(mo, (double)x->world_size, 100.0 * x->overlapped_comm_s / x->step_time_s,
                     NULL);
  }
  if (me != NULL)
    me->labels = true;
}

static void busbw_panel(const struct pl_study *st, struct study_panel *pn) {
  const struct pl_cluster *cl = &st->clusters[st->focus_cluster];
  char t[96];
  study_setf(t, sizeof t, "Bus bandwidth: measured against %s", cl->name);
  study_panel_begin(STUDY_PANEL_LINES, pn, t, "ranks", "bus bandwidth (GB/s)");
  study_copy(pn->empty_note, sizeof pn->empty_note,
             "no measured collective with a known size and group");
  int curves = 0;
  for (int i = 0; i < st->n_measured; i++)
    for (int j = 0; j < st->measured[i].n_coll; j++) {
      const struct pl_study_mcoll *x = &st->measured[i].coll[j];
      char sz[32];
      pl_fmt_bytes(sz, sizeof sz, x->bytes);
      study_setf(t, sizeof t, "%s %s, %s", st->measured[i].label, x->op, sz);
      struct study_series *pm = study_panel_add(pn, t, curves % 10, 0, 7);
      study_series_add(pm, (double)x->group_size, x->busbw_bytes_per_s / 1e9, NULL);
      if (curves >= 4)
        continue; /* predicted curves for the four largest only */
      study_setf(t, sizeof t, "model: %s %s", x->op, sz);
      struct study_series *pp = study_panel_add(pn, t, curves % 10, 2, 0);
      double bw;
      if (x->group_size < cl->gpus_per_node &&
          predicted_busbw(cl, x->op, x->bytes, x->group_size, &bw))
        study_series_add(pp, (double)x->group_size, bw / 1e9, NULL);
      for (int k = 0; k < st->spec.n_nodes; k++) {
        int64_t r = st->spec.nodes[k] * cl->gpus_per_node;
        if (predicted_busbw(cl, x->op, x->bytes, r, &bw))
          study_series_add(pp, (double)r, bw / 1e9, NULL);
      }
      curves++;
    }
}

static void measured_findings(const struct pl_study *st, struct study_fig *f) {
  const struct pl_study_measured *x = &st->measured[0];
  int m = st->focus_model, c = st->focus_cluster, b = study_main_batch(st);
  const struct pl_study_point *p =
      pl_study_at(st, m, c, b, st->baseline, nearest_k(st, c, x->world_size));
  char g[32], gp[32];
  study_fmt_int(g, sizeof g, x->world_size);
  study_fmt_int(gp, sizeof gp, p->gpus);
  study_setf(f->findings, sizeof f->findings,
             "Measured run '%s' (%s GPUs): exposed communication is %.1f%% of the %.1f ms step and "
             "overlapped communication %.1f%%",
             x->label, g, 100.0 * x->exposed_comm_s / x->step_time_s, 1e3 * x->step_time_s,
             100.0 * x->overlapped_comm_s / x->step_time_s);
  if (p->status == PL_STUDY_OK)
    study_appendf(f->findings, sizeof f->findings,
                  "; predicted for %s under FSDP alone on %s at %s GPUs: %.1f%% and %.1f%%",
                  st->models[m].name, st->clusters[c].name, gp,
                  100.0 * p->pred.step.exposed_comm_s / p->pred.step.step_time_s,
                  100.0 * p->pred.step.overlapped_comm_s / p->pred.step.step_time_s);
  study_appendf(f->findings, sizeof f->findings, ".");
  double bw;
  if (x->n_coll > 0 && predicted_busbw(&st->clusters[c], x->coll[0].op, x->coll[0].bytes,
                                       x->coll[0].group_size, &bw)) {
    char sz[32];
    pl_fmt_bytes(sz, sizeof sz, x->coll[0].bytes);
    study_appendf(
        f->findings, sizeof f->findings,
        " Its most time-consuming collective, %s of %s over %lld ranks, reached %.1f GB/s "
        "bus bandwidth; the collective model gives %.1f GB/s on %s.",
        x->coll[0].op, sz, (long long)x->coll[0].group_size, x->coll[0].busbw_bytes_per_s / 1e9,
        bw / 1e9, st->clusters[c].name);
  }
}

void study_fig_measured(const struct pl_study *st, struct study_fig *f) {
  study_fig_begin(f, "measured", "Measured runs against the predictions");
  if (st->n_measured == 0) {
    study_setf(f->skip, sizeof f->skip, "no measured runs (plateau study --measured TRACE_DIR...)");
    return;
  }
  study_setf(
      f->caption, sizeof f->caption,
      "Points: runs measured from their Kineto traces (trace analysis, docs/trace.md). Left: "
      "communication as a share of the step, over the prediction for %s under FSDP alone on "
      "%s. Right: bus bandwidth of the measured collectives (points) over the collective "
      "model's at the same size on %s (dashed).",
      st->models[st->focus_model].name, st->clusters[st->focus_cluster].name,
      st->clusters[st->focus_cluster].name);
  f->n_panels = 2;
  share_panel(st, &f->p[0]);
  busbw_panel(st, &f->p[1]);
  measured_findings(st, f);
}
