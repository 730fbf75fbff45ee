/* json.c: yajl-tree wrappers for small JSON documents (see json.h). */
#include "base/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/data.h>

enum pl_status base_read_file(const char *path, size_t max_bytes, char **text, size_t *len,
                              struct pl_diag *diag) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
  size_t cap = 4096, n = 0;
  char *buf = pl_malloc(cap + 1);
  enum pl_status st = PL_OK;
  if (buf == NULL) {
    st = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory reading '%s'", path);
    goto out_close;
  }
  for (;;) {
    if (n == cap) {
      if (cap >= max_bytes) {
        st = pl_diag_set(diag, PL_ERR_LIMIT, "'%s' is larger than %zu MiB, the limit for this kind of file",
                         path, max_bytes >> 20);
        goto out_free;
      }
      size_t ncap = cap * 2 > max_bytes ? max_bytes : cap * 2;
      char *nb = pl_realloc(buf, ncap + 1);
      if (nb == NULL) {
        st = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory reading '%s'", path);
        goto out_free;
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
  }
  if (ferror(f)) {
    st = pl_diag_set(diag, PL_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
    goto out_free;
  }
  if (n >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
    st = pl_diag_set(diag, PL_ERR_UNSUPPORTED, "'%s' is gzip-compressed: decompress it first (gunzip)",
                     path);
    goto out_free;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  fclose(f);
  return PL_OK;
out_free:
  pl_free(buf);
out_close:
  fclose(f);
  return st;
}

/* Nesting depth outside strings, stopping early past the limit. */
static int nesting_depth(const char *s, size_t len) {
  int depth = 0, max = 0;
  bool in_str = false;
  for (size_t i = 0; i < len && max <= BASE_JSON_MAX_DEPTH; i++) {
    char c = s[i];
    if (in_str) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_str = false;
    } else if (c == '"') {
      in_str = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max)
        max = depth;
    } else if (c == '}' || c == ']') {
      depth--;
    }
  }
  return max;
}

/* The first key that appears twice in one object, searched depth first, or
 * NULL. yajl's tree keeps both entries and lookups see the first, so a file
 * saying "layers": 32 and later "layers": 80 would run with 32 unannounced.
 * Objects here are small (a model, a cluster, a spec), so pairs are compared. */
static const char *duplicate_key(yajl_val v, const char **parent) {
  if (YAJL_IS_ARRAY(v)) {
    for (size_t i = 0; i < v->u.array.len; i++) {
      const char *k = duplicate_key(v->u.array.values[i], parent);
      if (k != NULL)
        return k;
    }
    return NULL;
  }
  if (!YAJL_IS_OBJECT(v))
    return NULL;
  size_t n = v->u.object.len;
  for (size_t i = 0; i < n; i++) {
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(v->u.object.keys[i], v->u.object.keys[j]) == 0)
        return v->u.object.keys[i];
    const char *k = duplicate_key(v->u.object.values[i], parent);
    if (k != NULL) {
      if (*parent == NULL)
        *parent = v->u.object.keys[i];
      return k;
    }
  }
  return NULL;
}

static enum pl_status check_keys(yajl_val v, const char *origin, struct pl_diag *diag) {
  const char *parent = NULL;
  const char *k = duplicate_key(v, &parent);
  if (k == NULL)
    return PL_OK;
  if (parent != NULL)
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: key '%s' appears twice in one object (under '%s')",
                       origin, k, parent);
  return pl_diag_set(diag, PL_ERR_PARSE, "%s: key '%s' appears twice in one object", origin, k);
}

enum pl_status base_json_parse(const char *text, size_t len, const char *origin, yajl_val *out,
                               struct pl_diag *diag) {
  /* text need not be NUL-terminated (public *_parse(text, len) calls pass
   * caller buffers): only len bytes are read, and yajl gets a copy. A UTF-8
   * byte order mark is skipped (RFC 8259 section 8.1 lets a parser ignore it;
   * Windows editors write one). */
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
    text += 3;
    len -= 3;
  }
  size_t blank = 0;
  while (blank < len && strchr(" \t\r\n", text[blank]) != NULL && text[blank] != '\0')
    blank++;
  if (blank == len)
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: empty file, expected a JSON object", origin);
  if (memchr(text, '\0', len) != NULL)
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: contains a NUL byte, not JSON text", origin);
  if (nesting_depth(text, len) > BASE_JSON_MAX_DEPTH)
    return pl_diag_set(diag, PL_ERR_LIMIT, "%s: JSON nested deeper than %d levels", origin,
                       BASE_JSON_MAX_DEPTH);
  char *copy = pl_malloc(len + 1);
  if (copy == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "%s: out of memory reading JSON", origin);
  memcpy(copy, text, len);
  copy[len] = '\0';
  char err[512] = "";
  yajl_val v = yajl_tree_parse(copy, err, sizeof err);
  pl_free(copy);
  if (v == NULL) {
    /* yajl's message spans lines (context + caret); keep the first line. */
    char *nl = strchr(err, '\n');
    if (nl != NULL)
      *nl = '\0';
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: malformed JSON: %s", origin,
                       err[0] ? err : "parse error");
  }
  if (!YAJL_IS_OBJECT(v)) {
    yajl_tree_free(v);
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: expected a JSON object at the top level", origin);
  }
  enum pl_status st = check_keys(v, origin, diag);
  if (st != PL_OK) {
    yajl_tree_free(v);
    return st;
  }
  *out = v;
  return PL_OK;
}

enum pl_status base_json_load(const char *path, yajl_val *out, struct pl_diag *diag) {
  char *text = NULL;
  size_t len = 0;
  enum pl_status st = base_read_file(path, BASE_JSON_MAX_BYTES, &text, &len, diag);
  if (st != PL_OK)
    return st;
  char origin[300];
  snprintf(origin, sizeof origin, "'%s'", path);
  st = base_json_parse(text, len, origin, out, diag);
  pl_free(text);
  return st;
}

void base_json_free(yajl_val v) {
  if (v != NULL)
    yajl_tree_free(v);
}

yajl_val base_json_get(yajl_val obj, const char *key) {
  if (obj == NULL || !YAJL_IS_OBJECT(obj))
    return NULL;
  for (size_t i = 0; i < obj->u.object.len; i++)
    if (strcmp(obj->u.object.keys[i], key) == 0)
      return obj->u.object.values[i];
  return NULL;
}

/* Absent or JSON null both count as "not given". */
static yajl_val field(yajl_val obj, const char *key) {
  yajl_val v = base_json_get(obj, key);
  return (v == NULL || YAJL_IS_NULL(v)) ? NULL : v;
}

static enum pl_status missing(const char *origin, const char *key, struct pl_diag *diag) {
  return pl_diag_set(diag, PL_ERR_MISSING, "%s: missing field '%s'", origin, key);
}

enum pl_status base_json_int(yajl_val obj, const char *key, bool required, const char *origin,
                             int64_t *out, struct pl_diag *diag) {
  yajl_val v = field(obj, key);
  if (v == NULL)
    return required ? missing(origin, key, diag) : PL_OK;
  if (YAJL_IS_INTEGER(v)) {
    *out = YAJL_GET_INTEGER(v);
    return PL_OK;
  }
  if (YAJL_IS_DOUBLE(v)) { /* 4096.0 is fine; 4096.5 is not */
    double d = YAJL_GET_DOUBLE(v);
    if (isfinite(d) && d == floor(d) && fabs(d) < 9e15) {
      *out = (int64_t)d;
      return PL_OK;
    }
    if (!isfinite(d) || fabs(d) >= 9e15) /* 2^63, 1e309: say it is the size */
      return pl_diag_set(diag, PL_ERR_LIMIT, "%s: field '%s' is %s, too large for an integer",
                         origin, key, v->u.number.r);
  }
  if (YAJL_IS_NUMBER(v) && !YAJL_IS_INTEGER(v) && !YAJL_IS_DOUBLE(v)) /* overflowed both */
    return pl_diag_set(diag, PL_ERR_LIMIT, "%s: field '%s' is %s, too large for a number", origin,
                       key, v->u.number.r);
  return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' must be an integer", origin, key);
}

enum pl_status base_json_double(yajl_val obj, const char *key, bool required, const char *origin,
                                double *out, struct pl_diag *diag) {
  yajl_val v = field(obj, key);
  if (v == NULL)
    return required ? missing(origin, key, diag) : PL_OK;
  if (!YAJL_IS_NUMBER(v) || !isfinite(YAJL_GET_DOUBLE(v)))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' must be a finite number", origin, key);
  *out = YAJL_GET_DOUBLE(v);
  return PL_OK;
}

enum pl_status base_json_bool(yajl_val obj, const char *key, bool required, const char *origin,
                              bool *out, struct pl_diag *diag) {
  yajl_val v = field(obj, key);
  if (v == NULL)
    return required ? missing(origin, key, diag) : PL_OK;
  if (!YAJL_IS_TRUE(v) && !YAJL_IS_FALSE(v))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' must be true or false", origin, key);
  *out = YAJL_IS_TRUE(v);
  return PL_OK;
}

enum pl_status base_json_str(yajl_val obj, const char *key, bool required, const char *origin,
                             char *out, size_t out_len, struct pl_diag *diag) {
  yajl_val v = field(obj, key);
  if (v == NULL)
    return required ? missing(origin, key, diag) : PL_OK;
  if (!YAJL_IS_STRING(v))
    return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' must be a string", origin, key);
  const char *s = YAJL_GET_STRING(v);
  if (strlen(s) >= out_len)
    return pl_diag_set(diag, PL_ERR_LIMIT, "%s: field '%s' is longer than %zu characters", origin,
                       key, out_len - 1);
  memcpy(out, s, strlen(s) + 1);
  return PL_OK;
}

enum pl_status base_json_unit(yajl_val obj, const char *key, enum pl_unit_kind kind,
                              bool required, const char *origin, double *out,
                              struct pl_diag *diag) {
  yajl_val v = field(obj, key);
  if (v == NULL)
    return required ? missing(origin, key, diag) : PL_OK;
  if (YAJL_IS_OBJECT(v))
    v = field(v, "value");
  if (v != NULL && YAJL_IS_NUMBER(v) && YAJL_GET_DOUBLE(v) == 0.0) {
    *out = 0.0;
    return PL_OK;
  }
  if (v == NULL || !YAJL_IS_STRING(v))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "%s: field '%s' must be a quantity with its unit as a string, e.g. \"450 GB/s\"",
                       origin, key);
  struct pl_diag inner;
  pl_diag_clear(&inner);
  enum pl_status st = pl_unit_parse(YAJL_GET_STRING(v), kind, out, &inner);
  if (st != PL_OK)
    return pl_diag_set(diag, st, "%s: field '%s': %s", origin, key, inner.msg);
  if (*out < 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field '%s' must not be negative", origin, key);
  return PL_OK;
}

enum pl_status base_json_near_miss(yajl_val obj, const char *const *keys, size_t n,
                                   const char *origin, struct pl_diag *diag) {
  if (!YAJL_IS_OBJECT(obj))
    return PL_OK;
  for (size_t i = 0; i < obj->u.object.len; i++) {
    const char *k = obj->u.object.keys[i];
    bool known = false;
    for (size_t j = 0; j < n && !known; j++)
      known = strcmp(k, keys[j]) == 0;
    if (known || strlen(k) > 63)
      continue;
    for (size_t j = 0; j < n; j++)
      if (pl_data_edit_distance(k, keys[j]) <= (strlen(keys[j]) >= 6 ? 2u : 1u))
        return pl_diag_set(diag, PL_ERR_PARSE,
                           "%s: unknown key '%s': did you mean '%s'? (keys plateau does not "
                           "read are notes, but this one is a near miss and its value would be "
                           "ignored)",
                           origin, k, keys[j]);
  }
  return PL_OK;
}
