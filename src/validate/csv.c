/* csv.c: an RFC 4180 CSV reader for the validation data.
 *
 * RFC 4180 (Shafranovich 2005), section 2: records end with CRLF (LF alone is
 * accepted too, as most tools write it); fields are separated by commas; a
 * field in double quotes may contain commas, line breaks and quotes written
 * twice (""). Deviations, all lenient: a UTF-8 byte-order mark is skipped,
 * blank lines between records are ignored, and spaces around a quoted field
 * are not allowed (RFC: they belong to the field, so a quote after text is
 * an error here rather than a silent misparse).
 * Two passes: the first counts records and fields so every array is sized
 * once; the second copies unescaped fields into one buffer. */
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>

#include "validate/validate_int.h"

struct scan {
  const char *p, *end;
  int64_t line;
  const char *origin;
  /* output (second pass); NULL in the counting pass */
  char *w;
  char **cells;
  size_t n_cells;
};

static enum pl_status scan_fail(struct scan *s, struct pl_diag *diag, const char *why) {
  enum pl_status st = pl_diag_set(diag, PL_ERR_PARSE, "csv '%s': line %lld: %s", s->origin,
                                  (long long)s->line, why);
  if (diag != NULL)
    diag->line = s->line;
  return st;
}

static void put(struct scan *s, char c) {
  if (s->w != NULL)
    *s->w++ = c;
}

/* A quoted field: from after the opening quote to after the closing one. */
static enum pl_status quoted(struct scan *s, struct pl_diag *diag) {
  int64_t start = s->line;
  while (s->p < s->end) {
    char c = *s->p++;
    if (c == '"') {
      if (s->p < s->end && *s->p == '"') {
        put(s, '"');
        s->p++;
        continue;
      }
      return PL_OK;
    }
    if (c == '\n')
      s->line++;
    put(s, c);
  }
  s->line = start;
  return scan_fail(s, diag, "unterminated quoted field");
}

/* One field; leaves p on the separator, line end or end of text. */
static enum pl_status field(struct scan *s, struct pl_diag *diag) {
  if (s->w != NULL)
    s->cells[s->n_cells] = s->w;
  s->n_cells++;
  if (s->p < s->end && *s->p == '"') {
    s->p++;
    enum pl_status st = quoted(s, diag);
    if (st == PL_OK && s->p < s->end && *s->p != ',' && *s->p != '\n' && *s->p != '\r')
      st = scan_fail(s, diag, "text after a closing quote (write a quote inside a field as \"\")");
    put(s, '\0');
    return st;
  }
  while (s->p < s->end && *s->p != ',' && *s->p != '\n' && *s->p != '\r') {
    if (*s->p == '"')
      return scan_fail(s, diag, "quote inside an unquoted field (quote the whole field)");
    put(s, *s->p++);
  }
  put(s, '\0');
  return PL_OK;
}

/* Line end: CRLF or LF (a lone CR is an error). */
static enum pl_status line_end(struct scan *s, struct pl_diag *diag) {
  if (s->p < s->end && *s->p == '\r') {
    s->p++;
    if (s->p >= s->end || *s->p != '\n')
      return scan_fail(s, diag, "carriage return not followed by a line feed");
  }
  if (s->p < s->end) {
    s->p++;
    s->line++;
  }
  return PL_OK;
}

static void skip_blank_lines(struct scan *s) {
  for (;;) {
    if (s->p < s->end && *s->p == '\n') {
      s->p++;
    } else if (s->end - s->p >= 2 && s->p[0] == '\r' && s->p[1] == '\n') {
      s->p += 2;
    } else {
      return;
    }
    s->line++;
  }
}

/* One pass over the text: counts (out == NULL) or fills out. */
static enum pl_status pass(struct scan *s, struct validate_csv *out, size_t *n_cols,
                           size_t *n_records, struct pl_diag *diag) {
  *n_records = 0;
  skip_blank_lines(s);
  while (s->p < s->end) {
    size_t first = s->n_cells;
    if (out != NULL)
      out->lines[*n_records] = s->line;
    int64_t line = s->line;
    for (;;) {
      if (s->n_cells - first >= VALIDATE_MAX_COLUMNS)
        return scan_fail(s, diag, "more than 512 fields in one record");
      enum pl_status st = field(s, diag);
      if (st != PL_OK)
        return st;
      if (s->p >= s->end || *s->p != ',')
        break;
      s->p++;
    }
    size_t n = s->n_cells - first;
    if (*n_records == 0)
      *n_cols = n;
    if (n != *n_cols) {
      char why[96];
      snprintf(why, sizeof why, "%zu fields, the header has %zu", n, *n_cols);
      s->line = line;
      return scan_fail(s, diag, why);
    }
    if (++*n_records > VALIDATE_MAX_RECORDS)
      return scan_fail(s, diag, "more than 100000 records");
    enum pl_status st = line_end(s, diag);
    if (st != PL_OK)
      return st;
    skip_blank_lines(s);
  }
  return PL_OK;
}

static void scan_init(struct scan *s, const char *text, size_t len, const char *origin) {
  memset(s, 0, sizeof *s);
  s->p = text;
  s->end = text + len;
  s->line = 1;
  s->origin = origin;
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    s->p += 3;
}

static size_t line_of(const char *text, const char *at) {
  size_t line = 1;
  for (const char *p = text; p < at; p++)
    line += *p == '\n';
  return line;
}

/* Two columns of one name: lookups would see the first and ignore the other. */
static enum pl_status unique_header(const struct validate_csv *c, const char *origin,
                                    struct pl_diag *diag) {
  for (size_t i = 0; i < c->n_cols; i++)
    for (size_t j = i + 1; j < c->n_cols; j++)
      if (strcmp(c->cells[i], c->cells[j]) == 0)
        return pl_diag_set(diag, PL_ERR_PARSE,
                           "csv '%s': column '%s' appears twice in the header (columns %zu and %zu)",
                           origin, c->cells[i], i + 1, j + 1);
  return PL_OK;
}

enum pl_status validate_csv_parse(const char *text, size_t len, const char *origin,
                                  struct validate_csv *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  if (len > VALIDATE_MAX_FILE_BYTES)
    return pl_diag_set(diag, PL_ERR_LIMIT, "csv '%s': larger than 64 MiB", origin);
  const char *nul = memchr(text, '\0', len);
  if (nul != NULL)
    return pl_diag_set(diag, PL_ERR_PARSE, "csv '%s': line %zu: contains a NUL byte, not CSV text",
                       origin, line_of(text, nul));
  struct scan s;
  size_t n_cols = 0, n_records = 0;
  scan_init(&s, text, len, origin);
  enum pl_status st = pass(&s, NULL, &n_cols, &n_records, diag);
  if (st != PL_OK)
    return st;
  if (n_records == 0)
    return pl_diag_set(diag, PL_ERR_PARSE, "csv '%s': empty (no header line)", origin);
  out->text = pl_malloc(len + s.n_cells + 1);
  out->cells = pl_reallocarray(NULL, s.n_cells, sizeof *out->cells);
  out->lines = pl_reallocarray(NULL, n_records, sizeof *out->lines);
  if (out->text == NULL || out->cells == NULL || out->lines == NULL) {
    validate_csv_free(out);
    return pl_diag_set(diag, PL_ERR_NOMEM, "csv '%s': out of memory", origin);
  }
  scan_init(&s, text, len, origin);
  s.w = out->text;
  s.cells = out->cells;
  st = pass(&s, out, &n_cols, &n_records, diag);
  if (st != PL_OK) {
    validate_csv_free(out);
    return st;
  }
  out->n_cols = n_cols;
  out->n_records = n_records;
  st = unique_header(out, origin, diag);
  if (st != PL_OK)
    validate_csv_free(out);
  return st;
}

void validate_csv_free(struct validate_csv *c) {
  pl_free(c->text);
  pl_free(c->cells);
  pl_free(c->lines);
  memset(c, 0, sizeof *c);
}

int validate_csv_col(const struct validate_csv *c, const char *name) {
  for (size_t i = 0; i < c->n_cols; i++)
    if (strcmp(c->cells[i], name) == 0)
      return (int)i;
  return -1;
}

const char *validate_csv_cell(const struct validate_csv *c, size_t rec, const char *name) {
  int col = validate_csv_col(c, name);
  if (col < 0 || rec >= c->n_records)
    return "";
  return c->cells[rec * c->n_cols + (size_t)col];
}
