/* reader_fail.c: the Kineto reader's errors. The first one wins and stops
 * the parse; every message names the file and the JSON byte offset (after
 * gunzip) the parse had reached. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "reader_int.h"

const char *trace_rd_vname(enum vtype t) {
  static const char *n[] = {"a number", "a string", "a boolean", "null", "an object", "an array"};
  return n[t];
}

int64_t trace_rd_here(const struct reader *r) {
  return r->chunk_off + (int64_t)yajl_get_bytes_consumed(r->h);
}

/* Record an error (first one wins) and stop the parse. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int trace_rd_fail(struct reader *r, enum pl_status s, const char *fmt, ...) {
  if (r->err != PL_OK)
    return 0;
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  int64_t at = trace_rd_here(r);
  r->err = pl_diag_set(r->diag, s, "trace '%s': byte %lld: %s", r->path, (long long)at, what);
  if (r->diag != NULL)
    r->diag->offset = at;
  return 0;
}

int trace_rd_type_error(struct reader *r, const char *field, enum vtype t, const char *want) {
  return trace_rd_fail(r, PL_ERR_PARSE, "field '%s' is %s, expected %s", field, trace_rd_vname(t),
                       want);
}

int trace_rd_oom(struct reader *r) {
  return trace_rd_fail(r, PL_ERR_NOMEM, "out of memory");
}

enum pl_status trace_rd_too_long(struct reader *r) {
  int64_t at = trace_rd_here(r);
  if (r->diag != NULL)
    r->diag->offset = at;
  return pl_diag_set(r->diag, PL_ERR_LIMIT,
                     "trace '%s': byte %lld: a string or number longer than %u MiB", r->path,
                     (long long)at, TRACE_MAX_STRING >> 21);
}

/* yajl refused the text: its message on one line, without the trailing dot. */
enum pl_status trace_rd_yajl_failed(struct reader *r, const unsigned char *b, size_t n,
                                    bool at_end) {
  if (r->err != PL_OK)
    return r->err;
  int64_t at = trace_rd_here(r);
  unsigned char *msg = yajl_get_error(r->h, 0, b, n);
  char why[160];
  snprintf(why, sizeof why, "%s", msg ? (const char *)msg : "parse error");
  if (msg != NULL)
    yajl_free_error(r->h, msg);
  for (char *p = why; *p; p++)
    if (*p == '\n')
      *p = ' ';
  size_t len = strlen(why);
  while (len > 0 && (why[len - 1] == ' ' || why[len - 1] == '.'))
    why[--len] = '\0';
  if (r->diag != NULL)
    r->diag->offset = at;
  return pl_diag_set(r->diag, PL_ERR_PARSE, "trace '%s': byte %lld: %s (%s)", r->path,
                     (long long)at, at_end ? "truncated JSON" : "malformed JSON", why);
}
