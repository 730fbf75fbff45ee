/* band.c: the error band of a prediction's class of run (band.h; the data
 * file data/accuracy/error-bands.json is written by scripts/gen-error-bands.py
 * from `plateau validate --format json`; docs/accuracy.md, "Error band").
 *
 * File layout: {"trim_pct": 5, "min_rows": 20, "classes": [{"class": "h100
 * multi-node", "rows": 112, "measured_over_predicted": [lo, hi]}, ...]}; other
 * top-level keys (how it was generated) are notes. */
#include <plateau/band.h>
#include <plateau/data.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"

int pl_band_keys(const char *gpu, const char *framework, int64_t nodes,
                 char keys[PL_BAND_LEVELS][PL_BAND_KEY_LEN]) {
  const char *scale = nodes <= 1 ? "single-node" : "multi-node";
  int n = 0;
  if (framework != NULL && framework[0] != '\0')
    snprintf(keys[n++], PL_BAND_KEY_LEN, "%s %s %s", gpu, framework, scale);
  snprintf(keys[n++], PL_BAND_KEY_LEN, "%s %s", gpu, scale);
  snprintf(keys[n++], PL_BAND_KEY_LEN, "%s", gpu);
  snprintf(keys[n++], PL_BAND_KEY_LEN, "all");
  return n;
}

static enum pl_status parse_class(yajl_val c, size_t i, const char *origin, struct pl_band *b,
                                  struct pl_diag *diag) {
  char where[160];
  snprintf(where, sizeof where, "%s: classes[%zu]", origin, i);
  if (!YAJL_IS_OBJECT(c))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: not an object", where);
  enum pl_status st = base_json_str(c, "class", true, where, b->class_name, sizeof b->class_name, diag);
  if (st == PL_OK)
    st = base_json_int(c, "rows", true, where, &b->rows, diag);
  if (st != PL_OK)
    return st;
  yajl_val r = base_json_get(c, "measured_over_predicted");
  if (r == NULL || !YAJL_IS_ARRAY(r) || r->u.array.len != 2 || !YAJL_IS_NUMBER(r->u.array.values[0]) ||
      !YAJL_IS_NUMBER(r->u.array.values[1]))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'measured_over_predicted': want [lo, hi]",
                       where);
  b->ratio_lo = YAJL_GET_DOUBLE(r->u.array.values[0]);
  b->ratio_hi = YAJL_GET_DOUBLE(r->u.array.values[1]);
  if (!(b->ratio_lo > 0 && b->ratio_lo <= b->ratio_hi && isfinite(b->ratio_hi)))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: field 'measured_over_predicted': want 0 < lo <= hi, finite", where);
  if (b->rows < 1)
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'rows': want >= 1", where);
  b->known = true;
  return PL_OK;
}

enum pl_status pl_band_table_parse(const char *text, size_t len, const char *origin,
                                   struct pl_band_table *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  yajl_val root = NULL;
  enum pl_status st = base_json_parse(text, len, origin, &root, diag);
  if (st != PL_OK)
    return st;
  st = base_json_double(root, "trim_pct", true, origin, &out->trim_pct, diag);
  if (st == PL_OK && !(out->trim_pct >= 0 && out->trim_pct < 50))
    st = pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'trim_pct': want 0 <= x < 50", origin);
  if (st == PL_OK)
    st = base_json_int(root, "min_rows", true, origin, &out->min_rows, diag);
  yajl_val cl = st == PL_OK ? base_json_get(root, "classes") : NULL;
  if (st == PL_OK && (cl == NULL || !YAJL_IS_ARRAY(cl)))
    st = pl_diag_set(diag, PL_ERR_PARSE, "%s: field 'classes': want an array", origin);
  if (st == PL_OK && cl->u.array.len > PL_BAND_MAX_CLASSES)
    st = pl_diag_set(diag, PL_ERR_PARSE, "%s: %zu classes, at most %d", origin, cl->u.array.len,
                     PL_BAND_MAX_CLASSES);
  for (size_t i = 0; st == PL_OK && i < cl->u.array.len; i++) {
    st = parse_class(cl->u.array.values[i], i, origin, &out->classes[i], diag);
    out->classes[i].central_pct = 100.0 - 2.0 * out->trim_pct;
    out->n = i + 1;
  }
  base_json_free(root);
  if (st != PL_OK)
    out->n = 0;
  return st;
}

enum pl_status pl_band_table_builtin(struct pl_band_table *out, struct pl_diag *diag) {
  size_t len = 0;
  const char *text = pl_data_find("accuracy", "error-bands", &len);
  if (text == NULL) {
    memset(out, 0, sizeof *out);
    return pl_diag_set(diag, PL_ERR_INTERNAL, "data/accuracy/error-bands.json is not embedded");
  }
  return pl_band_table_parse(text, len, "data/accuracy/error-bands.json", out, diag);
}

const struct pl_band *pl_band_table_find(const struct pl_band_table *t, const char *gpu,
                                         const char *framework, int64_t nodes) {
  char keys[PL_BAND_LEVELS][PL_BAND_KEY_LEN];
  int n = pl_band_keys(gpu, framework, nodes, keys);
  for (int k = 0; k < n; k++)
    for (size_t i = 0; i < t->n; i++)
      if (strcmp(t->classes[i].class_name, keys[k]) == 0)
        return &t->classes[i];
  return NULL;
}

void pl_band_of(const struct pl_prediction *p, struct pl_band *out) {
  memset(out, 0, sizeof *out);
  if (!p->step.simulated)
    return;
  struct pl_band_table t; /* parsed on every call (a few kB): no state shared between threads */
  struct pl_diag diag = {0};
  if (pl_band_table_builtin(&t, &diag) != PL_OK)
    return;
  /* a versioned preset (nemo-2024) is its family's class (nemo): framework.h */
  const struct pl_framework *fw = &p->run.framework;
  const struct pl_band *b = pl_band_table_find(&t, p->run.cluster.gpu.name,
                                               fw->family[0] != '\0' ? fw->family : fw->name,
                                               p->run.layout.nodes);
  if (b != NULL)
    *out = *b;
}

void pl_band_ranges(const struct pl_band *b, const struct pl_step *s, struct pl_band_ranges *out) {
  double lo = b->ratio_lo, hi = b->ratio_hi;
  if (s->hfu > 0 && lo < s->hfu) /* at best every hardware FLOP at peak: HFU 100 % */
    lo = s->hfu;
  if (hi < lo)
    hi = lo;
  out->step_time_s[0] = s->step_time_s * lo;
  out->step_time_s[1] = s->step_time_s * hi;
  out->tokens_per_s[0] = s->tokens_per_s / hi;
  out->tokens_per_s[1] = s->tokens_per_s / lo;
  out->mfu[0] = s->mfu / hi;
  out->mfu[1] = s->mfu / lo;
}
