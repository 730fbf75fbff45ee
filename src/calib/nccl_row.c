/* nccl_row.c: one nccl-tests result row.
 *
 * nccl-tests 2.x prints
 *   size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong
 * (out-of-place, then in-place; time in us, bandwidths in GB/s = 1e9 B/s).
 * Older versions have no root column; some runs print one half only. A row
 * is rejected (and the caller warns) when a number does not parse, a value is
 * negative or not finite, #wrong is non-zero, or the printed algbw is not
 * size/time: that catches garbled or hand-edited numbers. */
#include "calib/calib_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int calib_tokens(char *s, char **tok, int max) {
  int n = 0;
  while (*s != '\0' && n < max) {
    while (*s == ' ' || *s == '\t')
      s++;
    if (*s == '\0')
      break;
    tok[n++] = s;
    while (*s != '\0' && *s != ' ' && *s != '\t')
      s++;
    if (*s != '\0')
      *s++ = '\0';
  }
  return n;
}

static bool number(const char *t, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(t, &end);
  if (end == t || *end != '\0' || errno == ERANGE || !isfinite(v) || v < 0.0)
    return false;
  *out = v;
  return true;
}

static bool is_int(const char *t) {
  const char *p = t + (*t == '-');
  if (*p == '\0')
    return false;
  for (; *p; p++)
    if (*p < '0' || *p > '9')
      return false;
  return true;
}

static bool is_word(const char *t) {
  return (*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z');
}

/* "#wrong": 0, or N/A when validation is off. nccl-tests before 2.10 printed
 * an "error" column instead, the largest deviation found ("5e-07"); a
 * failed check there shows in "# Out of bounds values", so a number with a
 * fraction or exponent is that column, not a count of wrong elements. */
static bool wrong_ok(const char *t) {
  if (strcmp(t, "N/A") == 0 || strcmp(t, "0") == 0)
    return true;
  char *end;
  double v = strtod(t, &end);
  return *end == '\0' && end != t && strpbrk(t, ".eE") != NULL && isfinite(v) && v >= 0.0;
}

static const char *const half_names[3] = {"time", "algbw", "busbw"};

/* time algbw busbw starting at tok[0]: -1 when all parse, else the index of
 * the first bad one. */
static int half(char **tok, double *time_us, double *algbw, double *busbw) {
  double *dst[3] = {time_us, algbw, busbw};
  for (int i = 0; i < 3; i++)
    if (!number(tok[i], dst[i]))
      return i;
  return -1;
}

bool calib_parse_row(char **tok, int n, struct pl_nccl_row *row, char *redop, size_t redop_len,
                     char *why, size_t why_len) {
  if (n < 8 || !is_word(tok[2]) || !is_word(tok[3])) {
    snprintf(why, why_len, "incomplete result row (%d fields, expected 12 or 13): truncated?", n);
    return false;
  }
  double size, time_us, algbw, busbw;
  if (!number(tok[0], &size) || !is_int(tok[1])) {
    snprintf(why, why_len, "size '%s' or count '%s' is not a whole number", tok[0], tok[1]);
    return false;
  }
  int k = 4;
  if (n - 4 == 9 || (n - 4 == 5 && is_int(tok[4])))
    k = 5; /* root column present */
  if (n - k < 4) {
    snprintf(why, why_len, "incomplete result row (%d fields): truncated?", n);
    return false;
  }
  int bad = half(tok + k, &time_us, &algbw, &busbw);
  if (bad >= 0) {
    snprintf(why, why_len, "unreadable %s '%s'", half_names[bad], tok[k + bad]);
    return false;
  }
  if (!wrong_ok(tok[k + 3])) {
    snprintf(why, why_len, "nccl-tests reports '%s' wrong results", tok[k + 3]);
    return false;
  }
  if (!(time_us > 0.0)) {
    snprintf(why, why_len, "time %s us is not positive", tok[k]);
    return false;
  }
  double expect = size / (time_us * 1e3); /* GB/s as nccl-tests computes it */
  if (fabs(algbw - expect) > 0.006 + 0.02 * expect) {
    snprintf(why, why_len, "algbw %.2f GB/s is not size/time = %.2f GB/s (garbled numbers?)",
             algbw, expect);
    return false;
  }
  row->bytes = size;
  row->time_s = time_us * 1e-6;
  row->algbw_bytes_per_s = algbw * 1e9;
  row->busbw_bytes_per_s = busbw * 1e9;
  row->inplace_time_s = 0.0;
  double t2, a2, b2;
  if (n - k >= 8 && half(tok + k + 4, &t2, &a2, &b2) < 0 && t2 > 0.0)
    row->inplace_time_s = t2 * 1e-6;
  snprintf(redop, redop_len, "%s", tok[3]);
  return true;
}

void calib_warn(struct pl_nccl_log *log, int64_t line, const char *fmt, ...) {
  if (log->n_warnings < PL_NCCL_WARNINGS_KEPT) {
    char *w = log->warnings[log->n_warnings];
    size_t cap = sizeof log->warnings[0];
    int used = line > 0 ? snprintf(w, cap, "line %lld: ", (long long)line) : 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w + used, cap - (size_t)used, fmt, ap);
    va_end(ap);
  }
  log->n_warnings++;
}
