/* cmd_trace_compare.c: `plateau trace compare A B`: two runs side by side,
 * each a trace file or directory (analyzed here) or a result file written by
 * `plateau trace analyze --format json` or `plateau predict --format json`.
 * Per metric and per collective: A, B, B - A and (B - A) / A. Each side keeps
 * its own definitions; a metric one side does not define shows as "-" (null
 * in JSON, empty in CSV). Definitions and matching rules: docs/trace.md 9. */
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/calib_compute.h>
#include <plateau/plateau.h>

#include "opts.h"
#include "trace_cli.h"

static const struct cli_opt opts[] = {
    {"format", "F", "text|json|csv (default text)"},
    TRACE_READ_OPTS,
};

static const struct cli_cmd cmd = {
    "trace compare", "plateau trace compare [options] A B",
    "Compare two runs per metric (step_time_s, compute_s, exposed_comm_s, overlapped_comm_s,\n"
    "idle_s, ...) and per collective, with B - A and (B - A) / A. A and B are Kineto traces\n"
    "(a file or a directory of one file per rank) or JSON results of `plateau trace analyze`\n"
    "or `plateau predict`. A trace file against `plateau predict --ops --format json` adds a\n"
    "table per operation (GEMMs and attention matched by shape, the rest per phase).\n"
    "Definitions: docs/trace.md section 9.",
    opts, sizeof opts / sizeof opts[0], true,
};

struct per_op;

/* The four compared fields of a collective row. */
enum cfield { CF_CALLS, CF_BYTES, CF_TIME, CF_BUSBW, CF_N };
static const char *const cfield_key[CF_N] = {"calls", "bytes", "time_s", "busbw_gbps"};
static const char *const cfield_label[CF_N] = {"calls", "bytes/call", "time", "busbw (GB/s)"};

/* Value of field f of row i of s (false when unknown or absent). */
static bool cvalue(const struct pl_trace_summary *s, int i, enum cfield f, double *v) {
  if (i < 0)
    return false;
  const struct pl_trace_summary_coll *c = &s->coll[i];
  double x[CF_N] = {c->count, c->bytes, c->time_s, c->busbw_bytes_per_s / 1e9};
  *v = x[f];
  return f == CF_CALLS || f == CF_TIME || x[f] > 0;
}

/* The group size two paired rows show: the known one. */
static int64_t pair_group(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                          struct pl_trace_coll_pair p) {
  int64_t n = p.a >= 0 ? a->coll[p.a].group_size : 0;
  return n > 0 || p.b < 0 ? n : b->coll[p.b].group_size;
}

/* ---- text ---- */

static void fmt_value(char *buf, size_t n, double v, bool has, char unit, bool sign) {
  if (!has) {
    snprintf(buf, n, "-");
    return;
  }
  char t[40];
  double m = sign && v < 0 ? -v : v;
  if (unit == 's')
    pl_fmt_seconds(t, sizeof t, m);
  else if (unit == 'B')
    pl_fmt_bytes(t, sizeof t, m);
  else
    snprintf(t, sizeof t, "%.4g", m);
  snprintf(buf, n, "%s%s", sign ? (v < 0 ? "-" : "+") : "", t);
}

static void text_row(const char *lead, const char *label, double a, bool ha, double b, bool hb,
                     char unit) {
  struct pl_trace_delta d = pl_trace_delta(a, ha, b, hb);
  char sa[48], sb[48], sd[48], sr[24] = "-";
  fmt_value(sa, sizeof sa, a, ha, unit, false);
  fmt_value(sb, sizeof sb, b, hb, unit, false);
  fmt_value(sd, sizeof sd, d.diff, d.has_diff, unit, true);
  if (d.has_rel)
    snprintf(sr, sizeof sr, "%+.2f%%", 100 * d.rel);
  printf("%s%-18s %13s %13s %13s %9s\n", lead, label, sa, sb, sd, sr);
}

static char metric_unit(enum pl_trace_metric m) {
  return m == PL_TM_TOKENS_PER_S || m == PL_TM_MFU ? ' ' : 's';
}

static void text_side(const char *which, const struct pl_trace_summary *s) {
  printf("%s  %s  (%s", which, s->origin, pl_trace_source_name(s->source));
  if (s->ranks > 0)
    printf(", %lld %s", (long long)s->ranks,
           s->source == PL_TSRC_PREDICT_JSON ? "GPUs" : s->ranks == 1 ? "file" : "files");
  printf(")\n");
}

static void text_colls(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                       const struct pl_trace_coll_pair *p, int n) {
  if (n == 0)
    return;
  printf("\ncollectives per step (ranks = communicator size; GB/s = 1e9 B/s):\n");
  printf("  %-15s %5s  %-18s %13s %13s %13s %9s\n", "op", "ranks", "field", "A", "B", "B - A",
         "(B-A)/A");
  static const char unit[CF_N] = {' ', 'B', 's', ' '};
  for (int k = 0; k < n; k++) {
    const char *op = p[k].a >= 0 ? a->coll[p[k].a].op : b->coll[p[k].b].op;
    int64_t g = pair_group(a, b, p[k]);
    for (int f = 0; f < CF_N; f++) {
      double va = 0, vb = 0;
      bool ha = cvalue(a, p[k].a, (enum cfield)f, &va), hb = cvalue(b, p[k].b, (enum cfield)f, &vb);
      char lead[96], gs[24] = "?";
      if (g > 0)
        snprintf(gs, sizeof gs, "%lld", (long long)g);
      snprintf(lead, sizeof lead, "  %-15s %5s  ", f == 0 ? op : "", f == 0 ? gs : "");
      text_row(lead, cfield_label[f], va, ha, vb, hb, unit[f]);
    }
  }
}

static void text_ops(const struct per_op *po);

static void print_text(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                       const struct pl_trace_coll_pair *p, int n, const struct per_op *po) {
  text_side("A", a);
  text_side("B", b);
  printf("\n%-18s %13s %13s %13s %9s\n", "per step", "A", "B", "B - A", "(B-A)/A");
  for (int m = 0; m < PL_TM_N; m++)
    if (a->has[m] || b->has[m])
      text_row("", pl_trace_metric_name((enum pl_trace_metric)m), a->value[m], a->has[m],
               b->value[m], b->has[m], metric_unit((enum pl_trace_metric)m));
  text_colls(a, b, p, n);
  text_ops(po);
}

/* ---- JSON ---- */

static void num_or_null(struct pl_emit *e, const char *k, double v, bool ok) {
  if (ok)
    pl_emit_num(e, k, v);
  else
    pl_emit_null(e, k);
}

static void json_cmp(struct pl_emit *e, const char *key, double a, bool ha, double b, bool hb) {
  struct pl_trace_delta d = pl_trace_delta(a, ha, b, hb);
  pl_emit_obj_begin(e, key);
  num_or_null(e, "a", a, ha);
  num_or_null(e, "b", b, hb);
  num_or_null(e, "diff", d.diff, d.has_diff);
  num_or_null(e, "rel", d.rel, d.has_rel);
  pl_emit_obj_end(e);
}

static void json_side(struct pl_emit *e, const char *key, const struct pl_trace_summary *s) {
  pl_emit_obj_begin(e, key);
  pl_emit_str(e, "path", s->origin);
  pl_emit_str(e, "source", pl_trace_source_name(s->source));
  if (s->ranks > 0)
    pl_emit_int(e, "ranks", s->ranks);
  else
    pl_emit_null(e, "ranks");
  pl_emit_obj_end(e);
}

static void json_coll(struct pl_emit *e, const struct pl_trace_summary *a,
                      const struct pl_trace_summary *b, struct pl_trace_coll_pair p) {
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "op", p.a >= 0 ? a->coll[p.a].op : b->coll[p.b].op);
  int64_t g = pair_group(a, b, p);
  if (g > 0)
    pl_emit_int(e, "group_size", g);
  else
    pl_emit_null(e, "group_size");
  pl_emit_str(e, "group_a", p.a >= 0 && a->coll[p.a].group[0] ? a->coll[p.a].group : NULL);
  pl_emit_str(e, "group_b", p.b >= 0 && b->coll[p.b].group[0] ? b->coll[p.b].group : NULL);
  for (int f = 0; f < CF_N; f++) {
    double va = 0, vb = 0;
    bool ha = cvalue(a, p.a, (enum cfield)f, &va), hb = cvalue(b, p.b, (enum cfield)f, &vb);
    json_cmp(e, cfield_key[f], va, ha, vb, hb);
  }
  pl_emit_obj_end(e);
}

static void json_ops(struct pl_emit *e, const struct per_op *po);

static int print_json(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                      const struct pl_trace_coll_pair *p, int n, const struct per_op *po) {
  struct pl_emit *e = cli_emit_open();
  if (e == NULL)
    return cli_fail("out of memory");
  pl_emit_obj_begin(e, NULL);
  json_side(e, "a", a);
  json_side(e, "b", b);
  pl_emit_obj_begin(e, "metrics");
  for (int m = 0; m < PL_TM_N; m++)
    if (a->has[m] || b->has[m])
      json_cmp(e, pl_trace_metric_name((enum pl_trace_metric)m), a->value[m], a->has[m],
               b->value[m], b->has[m]);
  pl_emit_obj_end(e);
  pl_emit_arr_begin(e, "collectives");
  for (int k = 0; k < n; k++)
    json_coll(e, a, b, p[k]);
  pl_emit_arr_end(e);
  json_ops(e, po);
  pl_emit_obj_end(e);
  return cli_emit_done(e);
}

/* ---- CSV: section,name,group_size,field,a,b,diff,rel ---- */

static void csv_num(double v, bool has) {
  char b[40] = "";
  if (has)
    pl_fmt_csv(b, sizeof b, v);
  printf(",%s", b);
}

static void csv_row(const char *section, const char *name, int64_t g, const char *field,
                    double a, bool ha, double b, bool hb) {
  struct pl_trace_delta d = pl_trace_delta(a, ha, b, hb);
  printf("%s,%s,", section, name);
  if (g > 0)
    printf("%lld", (long long)g);
  printf(",%s", field);
  csv_num(a, ha);
  csv_num(b, hb);
  csv_num(d.diff, d.has_diff);
  csv_num(d.rel, d.has_rel);
  printf("\n");
}

static void csv_ops(const struct per_op *po);

static void print_csv(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                      const struct pl_trace_coll_pair *p, int n, const struct per_op *po) {
  printf("section,name,group_size,field,a,b,diff,rel\n");
  for (int m = 0; m < PL_TM_N; m++)
    if (a->has[m] || b->has[m])
      csv_row("metric", pl_trace_metric_name((enum pl_trace_metric)m), 0, "value", a->value[m],
              a->has[m], b->value[m], b->has[m]);
  for (int k = 0; k < n; k++) {
    const char *op = p[k].a >= 0 ? a->coll[p[k].a].op : b->coll[p[k].b].op;
    for (int f = 0; f < CF_N; f++) {
      double va = 0, vb = 0;
      bool ha = cvalue(a, p[k].a, (enum cfield)f, &va), hb = cvalue(b, p[k].b, (enum cfield)f, &vb);
      csv_row("collective", op, pair_group(a, b, p[k]), cfield_key[f], va, ha, vb, hb);
    }
  }
  csv_ops(po);
}

/* ---- per operation: a trace file against predict --ops (docs/trace.md 9.5) ---- */

struct per_op {
  bool wanted;         /* one side a trace, the other a prediction */
  bool trace_is_a;
  const char *note;    /* why there is no table, when wanted */
  struct pl_opcmp *c;  /* the table, or NULL */
};

/* A row's two sides as A and B. */
struct op_pair {
  double a, b;
  bool ha, hb;
};

static struct op_pair op_sides(const struct per_op *po, const struct pl_opcmp_row *r) {
  struct op_pair p;
  p.a = po->trace_is_a ? r->measured_s : r->predicted_s;
  p.ha = po->trace_is_a ? r->has_meas : r->has_pred;
  p.b = po->trace_is_a ? r->predicted_s : r->measured_s;
  p.hb = po->trace_is_a ? r->has_pred : r->has_meas;
  return p;
}

/* A GEMM row's achieved rate on each side: its FLOPs per step over its time per step
 * (pl_opcmp_row meas_flops, pred_flops); a side without FLOPs or time has none. */
static struct op_pair op_rates(const struct per_op *po, const struct pl_opcmp_row *r) {
  struct op_pair t = op_sides(po, r), f;
  f.a = po->trace_is_a ? r->meas_flops : r->pred_flops;
  f.b = po->trace_is_a ? r->pred_flops : r->meas_flops;
  f.ha = t.ha && f.a > 0 && t.a > 0;
  f.hb = t.hb && f.b > 0 && t.b > 0;
  f.a = f.ha ? f.a / t.a : 0;
  f.b = f.hb ? f.b / t.b : 0;
  return f;
}

static void fmt_tflops(char *buf, size_t n, double v, bool has) {
  if (has)
    snprintf(buf, n, "%.0f", v / 1e12);
  else
    snprintf(buf, n, "-");
}

/* One rule for the per-operation table's rows in text, JSON and CSV: a row with neither side is
 * not shown, nor a shape row that neither ran nor was predicted (a GEMM shape the model lists
 * for another pass). */
static bool op_row_shown(const struct pl_opcmp_row *r) {
  if (!r->has_pred && !r->has_meas)
    return false;
  return !(r->shape[0] && r->calls == 0 && r->predicted_s == 0);
}

static const char *const phase_key[PL_PHASE_N] = {"fwd", "bwd", "step"};

/* The trace's GPU idle by phase (pl_opcmp idle_host_s, idle_queued_s). */
static void text_idle(const struct per_op *po) {
  const struct pl_opcmp *c = po->c;
  printf("\nGPU idle by the phase of the op whose kernel ends the gap (%s, per step; host wait: "
         "launched after the GPU went idle, queued: before; docs/trace.md 9.5):\n",
         po->trace_is_a ? "A" : "B");
  printf("  %-5s %13s %13s\n", "phase", "host wait", "queued");
  for (int ph = 0; ph < PL_PHASE_N; ph++) {
    char h[48], q[48];
    fmt_value(h, sizeof h, c->idle_host_s[ph], true, 's', false);
    fmt_value(q, sizeof q, c->idle_queued_s[ph], true, 's', false);
    printf("  %-5s %13s %13s\n", phase_key[ph], h, q);
  }
}

static void text_ops(const struct per_op *po) {
  if (!po->wanted)
    return;
  if (po->c == NULL) {
    printf("\nper operation: %s\n", po->note);
    return;
  }
  const struct pl_opcmp *c = po->c;
  printf("\nper operation, per step (%s: %.0f %s; GEMMs and attention matched by shape, the "
         "rest by phase; docs/trace.md 9.5):\n",
         po->trace_is_a ? "A" : "B", c->steps,
         c->steps_known ? "ProfilerStep ranges" : "step (no ProfilerStep range: whole trace)");
  printf("  %-24s %-4s %-26s %7s %13s %13s %13s %9s %8s %8s\n", "op", "pass",
         "shape (m x n x k x count)", "calls", "A", "B", "B - A", "(B-A)/A", "A TF/s", "B TF/s");
  for (int i = 0; i < c->n_rows; i++) {
    const struct pl_opcmp_row *r = &c->rows[i];
    if (!op_row_shown(r))
      continue;
    struct op_pair pr = op_sides(po, r);
    char lead[192], calls[16] = "";
    if (r->shape[0] || r->calls > 0)
      snprintf(calls, sizeof calls, "%.0f", r->calls);
    snprintf(lead, sizeof lead, "  %-24s %-4s %-26s %7s", r->name, r->pass, r->shape, calls);
    struct pl_trace_delta d = pl_trace_delta(pr.a, pr.ha, pr.b, pr.hb);
    char sa[48], sb[48], sd[48], sr[24] = "-";
    fmt_value(sa, sizeof sa, pr.a, pr.ha, 's', false);
    fmt_value(sb, sizeof sb, pr.b, pr.hb, 's', false);
    fmt_value(sd, sizeof sd, d.diff, d.has_diff, 's', true);
    if (d.has_rel)
      snprintf(sr, sizeof sr, "%+.2f%%", 100 * d.rel);
    struct op_pair fr = op_rates(po, r);
    char ta[16], tb[16];
    fmt_tflops(ta, sizeof ta, fr.a, fr.ha);
    fmt_tflops(tb, sizeof tb, fr.b, fr.hb);
    printf("%s %13s %13s %13s %9s %8s %8s\n", lead, sa, sb, sd, sr, ta, tb);
  }
  text_idle(po);
  if (c->n_unmatched == 0)
    return;
  printf("\nnot matched to a predicted op (%s, per step, longest first):\n",
         po->trace_is_a ? "A" : "B");
  for (int i = 0; i < c->n_unmatched; i++) {
    const struct pl_opcmp_row *r = &c->unmatched[i];
    char t[32];
    pl_fmt_seconds(t, sizeof t, r->measured_s);
    printf("  %-40s %-9s %-26s %5.0f calls %11s  %s\n", r->name, r->pass, r->shape, r->calls, t,
           r->why);
  }
  if (c->unmatched_dropped > 0)
    printf("  ... %lld more kinds\n", (long long)c->unmatched_dropped);
}

static void json_ops(struct pl_emit *e, const struct per_op *po) {
  if (po->c == NULL) {
    pl_emit_null(e, "operations");
    pl_emit_null(e, "operations_unmatched");
    pl_emit_null(e, "idle_by_phase");
    return;
  }
  const struct pl_opcmp *c = po->c;
  pl_emit_obj_begin(e, "idle_by_phase");
  pl_emit_str(e, "side", po->trace_is_a ? "a" : "b");
  for (int ph = 0; ph < PL_PHASE_N; ph++) {
    pl_emit_obj_begin(e, phase_key[ph]);
    pl_emit_num(e, "host_s", c->idle_host_s[ph]);
    pl_emit_num(e, "queued_s", c->idle_queued_s[ph]);
    pl_emit_obj_end(e);
  }
  pl_emit_obj_end(e);
  pl_emit_obj_begin(e, "operations_trace");
  pl_emit_str(e, "side", po->trace_is_a ? "a" : "b");
  pl_emit_num(e, "steps", c->steps);
  pl_emit_bool(e, "steps_known", c->steps_known);
  pl_emit_obj_end(e);
  pl_emit_arr_begin(e, "operations");
  for (int i = 0; i < c->n_rows; i++) {
    const struct pl_opcmp_row *r = &c->rows[i];
    if (!op_row_shown(r))
      continue;
    struct op_pair pr = op_sides(po, r);
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "name", r->name);
    pl_emit_str(e, "pass", r->pass);
    pl_emit_str(e, "shape", r->shape[0] ? r->shape : NULL);
    pl_emit_num(e, "calls", r->calls);
    json_cmp(e, "time_s", pr.a, pr.ha, pr.b, pr.hb);
    struct op_pair fr = op_rates(po, r);
    if (fr.ha || fr.hb)
      json_cmp(e, "flops_per_s", fr.a, fr.ha, fr.b, fr.hb);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_arr_begin(e, "operations_unmatched");
  for (int i = 0; i < c->n_unmatched; i++) {
    const struct pl_opcmp_row *r = &c->unmatched[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "op", r->name);
    pl_emit_str(e, "phase", r->pass);
    pl_emit_str(e, "shape", r->shape);
    pl_emit_num(e, "calls", r->calls);
    pl_emit_num(e, "time_s", r->measured_s);
    pl_emit_str(e, "why", r->why);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}

static void csv_ops(const struct per_op *po) {
  if (po->c == NULL)
    return;
  const struct pl_opcmp *c = po->c;
  for (int i = 0; i < c->n_rows; i++) {
    const struct pl_opcmp_row *r = &c->rows[i];
    if (!op_row_shown(r))
      continue;
    struct op_pair pr = op_sides(po, r);
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", r->name, r->pass[0] ? "." : "", r->pass);
    for (char *p = name; *p; p++)
      if (*p == ' ')
        *p = '_';
    csv_row("operation", name, 0, "time_s", pr.a, pr.ha, pr.b, pr.hb);
    struct op_pair fr = op_rates(po, r);
    if (fr.ha || fr.hb)
      csv_row("operation", name, 0, "flops_per_s", fr.a, fr.ha, fr.b, fr.hb);
  }
  for (int i = 0; i < c->n_unmatched; i++) {
    const struct pl_opcmp_row *r = &c->unmatched[i];
    char name[200];
    snprintf(name, sizeof name, "%s [%s; %s; %s]", r->name, r->shape, r->pass, r->why);
    for (char *p = name; *p; p++)
      if (*p == ',')
        *p = ';';
    csv_row("operation_unmatched", name, 0, "time_s", r->measured_s, po->trace_is_a, r->measured_s,
            !po->trace_is_a);
  }
  for (int ph = 0; ph < PL_PHASE_N; ph++) {
    csv_row("idle_by_phase", phase_key[ph], 0, "host_s", c->idle_host_s[ph], po->trace_is_a,
            c->idle_host_s[ph], !po->trace_is_a);
    csv_row("idle_by_phase", phase_key[ph], 0, "queued_s", c->idle_queued_s[ph], po->trace_is_a,
            c->idle_queued_s[ph], !po->trace_is_a);
  }
}

static void per_op_load(const char *const paths[2], const struct pl_trace_summary *s,
                        struct per_op *po) {
  memset(po, 0, sizeof *po);
  int t = s[0].source == PL_TSRC_TRACE && s[1].source == PL_TSRC_PREDICT_JSON   ? 0
          : s[1].source == PL_TSRC_TRACE && s[0].source == PL_TSRC_PREDICT_JSON ? 1
                                                                                 : -1;
  if (t < 0)
    return;
  po->wanted = true;
  po->trace_is_a = t == 0;
  const struct pl_trace_summary *p = &s[1 - t];
  static char note[600];
  if (p->n_ops == 0) {
    po->note = "the prediction has no ops: write it with `plateau predict --ops --format json`";
    return;
  }
  if (s[t].ranks != 1) {
    po->note = "one trace file of one rank only";
    return;
  }
  struct pl_compute_trace *ct = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  po->c = pl_malloc(sizeof *po->c);
  if (po->c == NULL || pl_compute_obs_load(paths[t], &ct, &d) != PL_OK ||
      pl_compute_opcmp(ct, p->ops, p->n_ops, p->value[PL_TM_OPTIMIZER_S],
                       p->has[PL_TM_OPTIMIZER_S], po->c, &d) != PL_OK) {
    snprintf(note, sizeof note, "%s", po->c == NULL ? "out of memory" : d.msg);
    po->note = note;
    pl_free(po->c);
    po->c = NULL;
  }
  pl_compute_trace_free(ct);
}

/* ---- driver ---- */

static int load(const char *path, const struct pl_trace_opts *o, struct pl_trace_summary *s) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_trace_summary_load(path, o, s, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}

static int compare(const struct cli_args *args, enum cli_format format,
                   const struct pl_trace_opts *o) {
  struct pl_trace_summary s[2];
  memset(&s[1], 0, sizeof s[1]);
  if (load(args->pos[0], o, &s[0]))
    return 1;
  int rc = load(args->pos[1], o, &s[1]);
  struct pl_trace_summary *a = &s[0], *b = &s[1];
  struct pl_trace_coll_pair p[2 * PL_TRACE_SUMMARY_MAX_COLL];
  int n = rc == 0 ? pl_trace_coll_pairs(a, b, p) : 0;
  struct per_op po;
  memset(&po, 0, sizeof po);
  if (rc == 0) {
    const char *const paths[2] = {args->pos[0], args->pos[1]};
    per_op_load(paths, s, &po);
  }
  if (rc == 0 && format == CLI_FORMAT_JSON)
    rc = print_json(a, b, p, n, &po);
  else if (rc == 0 && format == CLI_FORMAT_CSV)
    print_csv(a, b, p, n, &po);
  else if (rc == 0)
    print_text(a, b, p, n, &po);
  pl_free(po.c);
  pl_trace_summary_free(a);
  pl_trace_summary_free(b);
  return rc;
}

int cmd_trace_compare(int argc, char **argv) {
  struct cli_args args;
  int rc = cli_start(&cmd, argc, argv, &args);
  if (rc != CLI_RUN)
    return rc;
  if (args.n_pos != 2)
    return cli_usage(&cmd, "expected two runs A B, got %d", args.n_pos);
  enum cli_format format;
  struct pl_trace_opts o;
  if (cli_get_format(&args, &format) || trace_read_opts(&args, &o))
    return 1;
  return compare(&args, format, &o);
}
