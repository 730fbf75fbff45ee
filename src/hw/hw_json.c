/* hw_json.c: preset-or-file opening and the {"value", "source"} getters used
 * by gpu_load.c and cluster_load.c (see hw_int.h). */
#include "hw/hw_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/data.h>

static bool looks_like_path(const char *s) {
  size_t n = strlen(s);
  return strchr(s, '/') != NULL || (n > 5 && strcmp(s + n - 5, ".json") == 0);
}

/* "v100, a100-40g, ..." for the error that lists what exists. */
static void preset_list(const char *kind, char *buf, size_t n) {
  buf[0] = '\0';
  for (size_t i = 0; pl_data_name(kind, i) != NULL; i++) {
    size_t used = strlen(buf);
    snprintf(buf + used, n - used, "%s%s", i ? ", " : "", pl_data_name(kind, i));
  }
}

enum pl_status hw_open(const char *kind, const char *name_or_path, yajl_val *tree, char *origin,
                       size_t origin_len, bool *is_file, struct pl_diag *diag) {
  const char *what = strcmp(kind, "gpus") == 0 ? "gpu" : "cluster";
  if (name_or_path == NULL || name_or_path[0] == '\0')
    return pl_diag_set(diag, PL_ERR_MISSING, "no %s given", what);
  size_t len = 0;
  const char *text = looks_like_path(name_or_path) ? NULL : pl_data_find(kind, name_or_path, &len);
  if (text != NULL) {
    snprintf(origin, origin_len, "%s preset '%s'", what, name_or_path);
    *is_file = false;
    return base_json_parse(text, len, origin, tree, diag);
  }
  FILE *probe = fopen(name_or_path, "rb");
  if (probe == NULL && !looks_like_path(name_or_path)) {
    char list[512];
    preset_list(kind, list, sizeof list);
    char hint[160];
    bool near = pl_data_hint(kind, name_or_path, hint, sizeof hint);
    return pl_diag_set(diag, PL_ERR_UNKNOWN, "unknown %s '%s': not a preset (%s) and no such file%s%s",
                       what, name_or_path, list, near ? "; " : "", hint);
  }
  if (probe != NULL)
    fclose(probe);
  snprintf(origin, origin_len, "%s file '%s'", what, name_or_path);
  *is_file = true;
  return base_json_load(name_or_path, tree, diag);
}

/* The field itself, or its "value" member when written with a source. */
static yajl_val unwrap(yajl_val obj, const char *key) {
  yajl_val v = base_json_get(obj, key);
  if (v != NULL && YAJL_IS_OBJECT(v))
    v = base_json_get(v, "value");
  return (v == NULL || YAJL_IS_NULL(v)) ? NULL : v;
}

static enum pl_status absent(bool required, const char *origin, const char *key,
                             struct pl_diag *diag) {
  if (!required)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_MISSING, "%s: missing field '%s'", origin, key);
}

enum pl_status hw_int(yajl_val obj, const char *key, bool required, const char *origin,
                      int64_t *out, struct pl_diag *diag) {
  yajl_val v = unwrap(obj, key);
  if (v == NULL)
    return absent(required, origin, key, diag);
  double d = YAJL_IS_NUMBER(v) ? YAJL_GET_DOUBLE(v) : NAN;
  if (YAJL_IS_INTEGER(v)) {
    *out = YAJL_GET_INTEGER(v);
    return PL_OK;
  }
  if (isfinite(d) && d == floor(d) && fabs(d) < 9e15) {
    *out = (int64_t)d;
    return PL_OK;
  }
  return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' must be an integer", origin, key);
}

enum pl_status hw_bool(yajl_val obj, const char *key, bool required, const char *origin,
                       bool *out, struct pl_diag *diag) {
  yajl_val v = unwrap(obj, key);
  if (v == NULL)
    return absent(required, origin, key, diag);
  if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' must be true or false", origin, key);
  *out = YAJL_IS_TRUE(v);
  return PL_OK;
}

enum pl_status hw_str(yajl_val obj, const char *key, bool required, const char *origin, char *out,
                      size_t out_len, struct pl_diag *diag) {
  yajl_val v = unwrap(obj, key);
  if (v == NULL)
    return absent(required, origin, key, diag);
  if (!YAJL_IS_STRING(v))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' must be a string", origin, key);
  const char *s = YAJL_GET_STRING(v);
  size_t n = strlen(s);
  if (n >= out_len)
    return pl_diag_set(diag, PL_ERR_LIMIT, "%s: field '%s' is longer than %zu characters", origin,
                       key, out_len - 1);
  memcpy(out, s, n + 1);
  return PL_OK;
}

enum pl_status hw_unit(yajl_val obj, const char *key, enum pl_unit_kind kind, bool required,
                       bool positive, const char *origin, double *out, struct pl_diag *diag) {
  double v = 0.0;
  if (unwrap(obj, key) == NULL)
    return absent(required, origin, key, diag);
  enum pl_status st = base_json_unit(obj, key, kind, required, origin, &v, diag);
  if (st != PL_OK)
    return st;
  if (positive && !(v > 0.0))
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field '%s' must be greater than zero", origin, key);
  *out = v;
  return PL_OK;
}

yajl_val hw_section(yajl_val obj, const char *key, bool required, const char *origin,
                    struct pl_diag *diag, enum pl_status *st) {
  yajl_val v = base_json_get(obj, key);
  *st = PL_OK;
  if (v == NULL || YAJL_IS_NULL(v)) {
    if (required)
      *st = pl_diag_set(diag, PL_ERR_MISSING, "%s: missing section '%s'", origin, key);
    return NULL;
  }
  if (!YAJL_IS_OBJECT(v)) {
    *st = pl_diag_set(diag, PL_ERR_PARSE, "%s: section '%s' must be a JSON object", origin, key);
    return NULL;
  }
  return v;
}

enum pl_status hw_word(yajl_val obj, const char *key, bool required, const char *origin,
                       const char *const *allowed, char *out, size_t out_len,
                       struct pl_diag *diag) {
  char buf[64] = "";
  enum pl_status st = hw_str(obj, key, required, origin, buf, sizeof buf, diag);
  if (st != PL_OK || buf[0] == '\0')
    return st;
  char list[256] = "";
  for (size_t i = 0; allowed[i] != NULL; i++) {
    if (strcmp(buf, allowed[i]) == 0) {
      snprintf(out, out_len, "%s", buf);
      return PL_OK;
    }
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
  }
  return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' is '%s', expected one of %s", origin, key,
                     buf, list);
}
