/* cmd_trace_compare.c: `plateau trace compare A B`: two runs side by side,
 * each a trace file or directory (analyzed here) or a result file written by
 * `plateau trace analyze --format json` or `plateau predict --format json`.
 * Per metric and per collective: A, B, B - A and (B - A) / A. Each side keeps
 * its own definitions; a metric one side does not define shows as "-" (null
 * in JSON, empty in CSV). Definitions and matching rules: docs/trace.md 9. */
#include <stdio.h>
#include <string.h>

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
    "or `plateau predict`. Definitions: docs/trace.md section 9.",
    opts, sizeof opts / sizeof opts[0], true,
};

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

static void print_text(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                       const struct pl_trace_coll_pair *p, int n) {
  text_side("A", a);
  text_side("B", b);
  printf("\n%-18s %13s %13s %13s %9s\n", "per step", "A", "B", "B - A", "(B-A)/A");
  for (int m = 0; m < PL_TM_N; m++)
    if (a->has[m] || b->has[m])
      text_row("", pl_trace_metric_name((enum pl_trace_metric)m), a->value[m], a->has[m],
               b->value[m], b->has[m], metric_unit((enum pl_trace_metric)m));
  text_colls(a, b, p, n);
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

static int print_json(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                      const struct pl_trace_coll_pair *p, int n) {
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

static void print_csv(const struct pl_trace_summary *a, const struct pl_trace_summary *b,
                      const struct pl_trace_coll_pair *p, int n) {
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
  struct pl_trace_summary a, b;
  memset(&b, 0, sizeof b);
  if (load(args->pos[0], o, &a))
    return 1;
  int rc = load(args->pos[1], o, &b);
  struct pl_trace_coll_pair p[2 * PL_TRACE_SUMMARY_MAX_COLL];
  int n = rc == 0 ? pl_trace_coll_pairs(&a, &b, p) : 0;
  if (rc == 0 && format == CLI_FORMAT_JSON)
    rc = print_json(&a, &b, p, n);
  else if (rc == 0 && format == CLI_FORMAT_CSV)
    print_csv(&a, &b, p, n);
  else if (rc == 0)
    print_text(&a, &b, p, n);
  pl_trace_summary_free(&a);
  pl_trace_summary_free(&b);
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
