/* baseline.c: the accuracy regression guard (docs/accuracy.md,
 * "Regression guard").
 *
 * The baseline file (tests/data/accuracy-baseline.json) records, per dataset,
 * how many rows were predicted and their mean absolute error in percent:
 *   {"what": "...", "command": "...", "tolerance_pp": 1,
 *    "datasets": [{"name": "...", "rows": 26, "predicted": 10,
 *                  "mape": 7.25, "median_ape": 6.1, "max_ape": 12.3}]}
 * A check fails a dataset whose mean error grew by more than tolerance_pp
 * percentage points, whose predicted-row count fell (a row that became a
 * skip must not hide a regression), or that was in the baseline and is
 * missing now. Improvements and new datasets are reported, not failed: the
 * file is then rewritten by `plateau validate ... --write-baseline FILE`.
 * An optional "scaling": {"pairs": 41, "mean_abs_gap_pp": 4.02} guards the
 * weak-scaling view (pl_validation_scaling) the same way: it fails when the
 * mean |gap| grows by more than tolerance_pp or pairs are lost. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <plateau/emit.h>
#include <plateau/outfile.h>

#include "base/json.h"
#include "validate/validate_int.h"

/* A failure beyond the PL_VALIDATE_MAX_FINDINGS kept is still counted: the
 * 65th finding of a baseline was dropped and, after 64 notes, exit 0. */
static void finding(struct pl_vcheck *out, const char *dataset, bool failed, const char *fmt,
                    double a, double b) {
  out->n_failed += failed;
  if (out->n_findings >= PL_VALIDATE_MAX_FINDINGS)
    return;
  struct pl_vfinding *f = &out->findings[out->n_findings++];
  snprintf(f->dataset, sizeof f->dataset, "%s", dataset);
  snprintf(f->msg, sizeof f->msg, fmt, a, b, out->tolerance_pct);
  f->failed = failed;
}

static const struct pl_vsummary *find_set(const struct pl_validation *v, const char *name) {
  for (size_t i = 0; i < v->n_sets; i++)
    if (strcmp(v->sets[i].name, name) == 0)
      return &v->sets[i];
  return NULL;
}

/* One baseline entry against this run. */
static enum pl_status check_entry(const struct pl_validation *v, yajl_val entry, const char *origin,
                                  struct pl_vcheck *out, struct pl_diag *diag) {
  char name[64];
  int64_t predicted = 0;
  double mape = 0;
  enum pl_status st = base_json_str(entry, "name", true, origin, name, sizeof name, diag);
  if (st == PL_OK)
    st = base_json_int(entry, "predicted", true, origin, &predicted, diag);
  if (st == PL_OK)
    st = base_json_double(entry, "mape", true, origin, &mape, diag);
  if (st == PL_OK && (predicted < 0 || !(mape >= 0)))
    st = pl_diag_set(diag, PL_ERR_RANGE, "%s: dataset '%s': predicted %lld and mape %g must not "
                     "be negative", origin, name, (long long)predicted, mape);
  if (st != PL_OK)
    return st;
  const struct pl_vsummary *s = find_set(v, name);
  if (s == NULL) {
    finding(out, name, true, "in the baseline but not validated (pass its CSV)", 0, 0);
    return PL_OK;
  }
  if (s->predicted < predicted)
    finding(out, name, true, "%.0f rows predicted, baseline %.0f: a predicted row became a skip",
            (double)s->predicted, (double)predicted);
  if (s->mape > mape + out->tolerance_pct)
    finding(out, name, true, "mean error %.2f%% > baseline %.2f%% + %.2f pp", s->mape, mape);
  else if (s->mape < mape - out->tolerance_pct)
    finding(out, name, false,
            "mean error %.2f%% < baseline %.2f%% - %.2f pp: improved, update with --write-baseline",
            s->mape, mape);
  return PL_OK;
}

static bool in_baseline(yajl_val sets, const char *name) {
  for (size_t i = 0; i < sets->u.array.len; i++) {
    yajl_val n = base_json_get(sets->u.array.values[i], "name");
    if (n != NULL && YAJL_IS_STRING(n) && strcmp(n->u.string, name) == 0)
      return true;
  }
  return false;
}

/* The weak-scaling entry, when the baseline has one. */
static enum pl_status check_scaling(const struct pl_validation *v, yajl_val entry,
                                    const char *origin, struct pl_vcheck *out,
                                    struct pl_diag *diag) {
  int64_t pairs = 0;
  double gap = 0;
  enum pl_status st = base_json_int(entry, "pairs", true, origin, &pairs, diag);
  if (st == PL_OK)
    st = base_json_double(entry, "mean_abs_gap_pp", true, origin, &gap, diag);
  if (st == PL_OK && (pairs < 0 || !(gap >= 0)))
    st = pl_diag_set(diag, PL_ERR_RANGE, "%s: scaling: pairs %lld and mean_abs_gap_pp %g must "
                     "not be negative", origin, (long long)pairs, gap);
  struct pl_vscaling_set s;
  if (st == PL_OK)
    st = pl_validation_scaling(v, &s, diag);
  if (st != PL_OK)
    return st;
  if ((int64_t)s.n < pairs)
    finding(out, "scaling", true, "%.0f weak-scaling pairs, baseline %.0f: a row of a series "
            "became a skip, or rows no longer share a series key (scaling.c same_series)", (double)s.n, (double)pairs);
  if (s.mean_abs_gap_pp > gap + out->tolerance_pct)
    finding(out, "scaling", true, "mean |gap| %.2f pp > baseline %.2f pp + %.2f pp",
            s.mean_abs_gap_pp, gap);
  else if (s.mean_abs_gap_pp < gap - out->tolerance_pct)
    finding(out, "scaling", false,
            "mean |gap| %.2f pp < baseline %.2f pp - %.2f pp: improved, update with "
            "--write-baseline", s.mean_abs_gap_pp, gap);
  pl_vscaling_free(&s);
  return PL_OK;
}

enum pl_status pl_validation_check_baseline(const struct pl_validation *v, const char *path,
                                            struct pl_vcheck *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->tolerance_pct = 1.0;
  yajl_val root = NULL;
  char origin[300];
  snprintf(origin, sizeof origin, "baseline '%s'", path);
  enum pl_status st = base_json_load(path, &root, diag);
  if (st == PL_OK)
    st = base_json_double(root, "tolerance_pp", false, origin, &out->tolerance_pct, diag);
  yajl_val sets = base_json_get(root, "datasets");
  if (st == PL_OK && (sets == NULL || !YAJL_IS_ARRAY(sets)))
    st = pl_diag_set(diag, PL_ERR_MISSING, "%s: field 'datasets' must be an array", origin);
  if (st == PL_OK && !(out->tolerance_pct >= 0))
    st = pl_diag_set(diag, PL_ERR_RANGE, "%s: tolerance_pp must not be negative", origin);
  for (size_t i = 0; st == PL_OK && i < sets->u.array.len; i++)
    st = check_entry(v, sets->u.array.values[i], origin, out, diag);
  for (size_t i = 0; st == PL_OK && i < v->n_sets; i++)
    if (!in_baseline(sets, v->sets[i].name))
      finding(out, v->sets[i].name, false, "not in the baseline (add it with --write-baseline)", 0,
              0);
  yajl_val scaling = st == PL_OK ? base_json_get(root, "scaling") : NULL;
  if (scaling != NULL)
    st = YAJL_IS_OBJECT(scaling)
             ? check_scaling(v, scaling, origin, out, diag)
             : pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'scaling' must be an object", origin);
  base_json_free(root);
  return st;
}

/* ------------------------------------------------------------- writing */

/* Rounded to 0.01 so the file diffs cleanly. */
static double cents(double x) { return (double)(int64_t)(x * 100.0 + 0.5) / 100.0; }

static void write_doc(struct pl_emit *e, const struct pl_validation *v,
                      const struct pl_vscaling_set *scaling, const char *command) {
  pl_emit_obj_begin(e, NULL);
  pl_emit_str(e, "what",
              "accuracy baseline of plateau validate: per dataset, rows predicted and "
              "step-time errors in percent; the regression guard fails a dataset "
              "whose mape grows by more than tolerance_pp, and the weak-scaling view "
              "(scaling: pairs, mean |gap|) likewise (docs/accuracy.md)");
  pl_emit_str(e, "command", command);
  pl_emit_num(e, "tolerance_pp", 1.0);
  pl_emit_arr_begin(e, "datasets");
  for (size_t i = 0; i < v->n_sets; i++) {
    const struct pl_vsummary *s = &v->sets[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "name", s->name);
    pl_emit_int(e, "rows", s->rows);
    pl_emit_int(e, "predicted", s->predicted);
    pl_emit_num(e, "mape", cents(s->mape));
    pl_emit_num(e, "median_ape", cents(s->median_ape));
    pl_emit_num(e, "max_ape", cents(s->max_ape));
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_obj_begin(e, "scaling");
  pl_emit_int(e, "pairs", (int64_t)scaling->n);
  pl_emit_num(e, "mean_abs_gap_pp", cents(scaling->mean_abs_gap_pp));
  pl_emit_obj_end(e);
  pl_emit_obj_end(e);
}

enum pl_status pl_validation_write_baseline(const struct pl_validation *v, const char *path,
                                            const char *command, struct pl_diag *diag) {
  struct pl_vscaling_set scaling;
  enum pl_status st = pl_validation_scaling(v, &scaling, diag);
  if (st != PL_OK)
    return st;
  struct pl_outfile o;
  st = pl_outfile_open(&o, path, diag);
  if (st != PL_OK) {
    pl_vscaling_free(&scaling);
    return st;
  }
  struct pl_emit *e = pl_emit_open(o.f);
  if (e == NULL)
    st = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory writing '%s'", path);
  else {
    write_doc(e, v, &scaling, command);
    st = pl_emit_close(e, diag);
  }
  pl_vscaling_free(&scaling);
  return pl_outfile_commit(&o, st, diag);
}
