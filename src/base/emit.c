/* emit.c: a small pretty-printing JSON writer (see emit.h). Writing JSON is
 * only escaping and commas; parsing is left to yajl. */
#include <plateau/emit.h>

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

#define EMIT_MAX_DEPTH 32

struct pl_emit {
  FILE *out;
  int depth;
  bool first[EMIT_MAX_DEPTH]; /* no member written yet at this level */
  bool fault;
  char fault_key[64];
  const char *stamp_key;      /* first member of the top-level object (pl_emit_stamp) */
  const char *stamp_value;
};

void pl_emit_stamp(struct pl_emit *e, const char *key, const char *value) {
  if (e == NULL)
    return;
  e->stamp_key = key;
  e->stamp_value = value;
}

struct pl_emit *pl_emit_open(FILE *out) {
  struct pl_emit *e = pl_calloc(1, sizeof *e);
  if (e == NULL)
    return NULL;
  e->out = out;
  e->first[0] = true;
  return e;
}

static void fault(struct pl_emit *e, const char *why) {
  if (!e->fault)
    snprintf(e->fault_key, sizeof e->fault_key, "%s", why ? why : "(array element)");
  e->fault = true;
}

enum pl_status pl_emit_close(struct pl_emit *e, struct pl_diag *diag) {
  if (e == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  if (e->depth != 0)
    fault(e, "(unbalanced nesting)");
  fputc('\n', e->out);
  enum pl_status st = PL_OK;
  if (e->fault)
    st = pl_diag_set(diag, PL_ERR_INTERNAL, "non-finite or malformed output at '%s'", e->fault_key);
  pl_free(e);
  return st;
}

/* The length of the well-formed UTF-8 sequence at p, 1..4, or 0 when the
 * bytes there are not one: the table of well-formed byte sequences of the
 * Unicode Standard 15.0, section 3.9, Table 3-7 (no overlong forms, no
 * surrogates U+D800..U+DFFF, nothing above U+10FFFF). */
static int utf8_len(const unsigned char *p) {
  unsigned char b = p[0];
  if (b < 0x80)
    return 1;
  int n = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0;
  if (n == 0)
    return 0;
  unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
  if (b == 0xE0)
    lo = 0xA0;
  else if (b == 0xED)
    hi = 0x9F;
  else if (b == 0xF0)
    lo = 0x90;
  else if (b == 0xF4)
    hi = 0x8F;
  if (p[1] < lo || p[1] > hi)
    return 0;
  for (int i = 2; i < n; i++) /* a NUL (the end) is not a continuation byte */
    if (p[i] < 0x80 || p[i] > 0xBF)
      return 0;
  return n;
}

/* A JSON string (RFC 8259 section 7): JSON text is UTF-8 (section 8.1), so
 * a byte that does not start a well-formed UTF-8 sequence (a file name in
 * another encoding, given on the command line) is written as U+FFFD, the
 * replacement character, rather than passed through to make the whole
 * document unreadable to a strict parser (Python's json, pandas). */
static void put_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p >= 0x80) {
      int n = utf8_len(p);
      if (n == 0) {
        fputs("\\ufffd", f);
      } else {
        fwrite(p, 1, (size_t)n, f);
        p += n - 1;
      }
      continue;
    }
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    default:
      if (*p < 0x20)
        fprintf(f, "\\u%04x", *p);
      else
        fputc(*p, f);
    }
  }
  fputc('"', f);
}

/* Comma, newline, indent and "key": before a value. */
static void prefix(struct pl_emit *e, const char *key) {
  if (e->depth > 0) {
    if (!e->first[e->depth])
      fputc(',', e->out);
    fputc('\n', e->out);
    for (int i = 0; i < e->depth; i++)
      fputs("  ", e->out);
  }
  e->first[e->depth] = false;
  if (key != NULL) {
    put_string(e->out, key);
    fputs(": ", e->out);
  }
}

static void open_level(struct pl_emit *e, const char *key, char c) {
  prefix(e, key);
  fputc(c, e->out);
  if (e->depth + 1 >= EMIT_MAX_DEPTH) {
    fault(e, key);
    return;
  }
  e->depth++;
  e->first[e->depth] = true;
}

static void close_level(struct pl_emit *e, char c) {
  if (e->depth == 0) {
    fault(e, "(unbalanced nesting)");
    return;
  }
  bool empty = e->first[e->depth];
  e->depth--;
  if (!empty) {
    fputc('\n', e->out);
    for (int i = 0; i < e->depth; i++)
      fputs("  ", e->out);
  }
  fputc(c, e->out);
}

void pl_emit_obj_begin(struct pl_emit *e, const char *key) {
  bool top = e->depth == 0;
  open_level(e, key, '{');
  if (top && e->stamp_key != NULL)
    pl_emit_str(e, e->stamp_key, e->stamp_value);
}
void pl_emit_obj_end(struct pl_emit *e) { close_level(e, '}'); }
void pl_emit_arr_begin(struct pl_emit *e, const char *key) { open_level(e, key, '['); }
void pl_emit_arr_end(struct pl_emit *e) { close_level(e, ']'); }

/* The shortest %.*g of v, from 6 significant digits up to max_digits, that
 * reads back to v; at max_digits when none does. */
static void fmt_shortest(char *buf, size_t n, double v, int max_digits) {
  if (!isfinite(v)) { /* never "nan"/"inf" in a report: an empty CSV cell */
    snprintf(buf, n, "%s", "");
    return;
  }
  if (v == 0.0) { /* also folds -0 */
    snprintf(buf, n, "0");
    return;
  }
  for (int prec = 6; prec <= max_digits; prec++) {
    snprintf(buf, n, "%.*g", prec, v);
    if (strtod(buf, NULL) == v)
      return;
  }
}

/* JSON: exact (17 digits at most), so a document read back compares equal. */
void pl_fmt_double(char *buf, size_t n, double v) { fmt_shortest(buf, n, v, 17); }

/* CSV and tables: DBL_DIG (15) significant digits at most. A double carries
 * 15 decimal digits through arithmetic; the 16th and 17th are rounding noise
 * (0.1 + 0.2 is 0.30000000000000004 at 17 digits, 0.3 at 15). */
void pl_fmt_csv(char *buf, size_t n, double v) { fmt_shortest(buf, n, v, DBL_DIG); }

void pl_emit_num(struct pl_emit *e, const char *key, double v) {
  prefix(e, key);
  if (!isfinite(v)) {
    fault(e, key);
    fputs("null", e->out);
    return;
  }
  char buf[40];
  pl_fmt_double(buf, sizeof buf, v);
  fputs(buf, e->out);
}

void pl_emit_int(struct pl_emit *e, const char *key, int64_t v) {
  prefix(e, key);
  fprintf(e->out, "%lld", (long long)v);
}

void pl_emit_str(struct pl_emit *e, const char *key, const char *v) {
  prefix(e, key);
  if (v == NULL)
    fputs("null", e->out);
  else
    put_string(e->out, v);
}

void pl_emit_bool(struct pl_emit *e, const char *key, bool v) {
  prefix(e, key);
  fputs(v ? "true" : "false", e->out);
}

void pl_emit_null(struct pl_emit *e, const char *key) {
  prefix(e, key);
  fputs("null", e->out);
}
