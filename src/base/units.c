/* units.c: parse "<number> <unit>" into SI doubles, and format for people.
 * Decimal prefixes are powers of 10, binary (Ki, Mi, Gi, Ti) powers of 2;
 * bits per second are converted to bytes per second (divide by 8). */
#include <plateau/units.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct prefix {
  const char *text;
  double scale;
};

/* Longest first so "Gi" wins over "G". */
static const struct prefix prefixes[] = {
    {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
    {"n", 1e-9},    {"u", 1e-6},       {"m", 1e-3},          {"k", 1e3},
    {"K", 1e3},     {"M", 1e6},        {"G", 1e9},           {"T", 1e12},
    {"P", 1e15},    {"", 1.0},
};

struct base_unit {
  const char *text;
  enum pl_unit_kind kind;
  double scale; /* to SI of that kind */
};

static const struct base_unit bases[] = {
    {"B/s", PL_UNIT_BYTES_PER_S, 1.0},   {"b/s", PL_UNIT_BYTES_PER_S, 0.125},
    {"bps", PL_UNIT_BYTES_PER_S, 0.125}, {"FLOP/s", PL_UNIT_FLOPS_PER_S, 1.0},
    {"FLOPS", PL_UNIT_FLOPS_PER_S, 1.0}, {"B", PL_UNIT_BYTES, 1.0},
    {"s", PL_UNIT_SECONDS, 1.0},         {"W", PL_UNIT_WATTS, 1.0},
};

static const char *kind_name(enum pl_unit_kind k) {
  switch (k) {
  case PL_UNIT_BYTES: return "bytes (e.g. \"80 GiB\")";
  case PL_UNIT_BYTES_PER_S: return "a bandwidth (e.g. \"450 GB/s\")";
  case PL_UNIT_FLOPS_PER_S: return "a compute rate (e.g. \"989 TFLOP/s\")";
  case PL_UNIT_SECONDS: return "a time (e.g. \"2.5 us\")";
  case PL_UNIT_WATTS: return "a power (e.g. \"700 W\")";
  case PL_UNIT_BITS_PER_S: return "a bandwidth (e.g. \"400 Gb/s\")";
  case PL_UNIT_NONE: return "a number";
  }
  return "a quantity";
}

/* Match unit text (after the number, spaces skipped) to prefix * base. */
static int match_unit(const char *u, enum pl_unit_kind want, double *scale) {
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t pl = strlen(prefixes[i].text);
    if (strncmp(u, prefixes[i].text, pl) != 0)
      continue;
    for (size_t j = 0; j < sizeof bases / sizeof bases[0]; j++) {
      enum pl_unit_kind k = bases[j].kind;
      int ok = k == want || (want == PL_UNIT_BITS_PER_S && k == PL_UNIT_BYTES_PER_S);
      if (ok && strcmp(u + pl, bases[j].text) == 0) {
        /* "ms" is milli-seconds, but "mB" would be nonsense: only time and
         * small-prefix combos are allowed for sub-unit prefixes. */
        if (prefixes[i].scale < 1.0 && k != PL_UNIT_SECONDS)
          continue;
        *scale = prefixes[i].scale * bases[j].scale;
        return 1;
      }
    }
  }
  return 0;
}

/* strtod for numbers as people write them: C99 strtod also reads hexadecimal
 * ("0x10" = 16, "0x1p4"), which no plateau figure is written in, so a number
 * spelt so is not read (*end = text, the caller's "not a number"). */
static double decimal_strtod(const char *text, char **end) {
  double v = strtod(text, end);
  for (const char *p = text; p < *end; p++)
    if (*p == 'x' || *p == 'X') {
      *end = (char *)text;
      return 0;
    }
  return v;
}

enum pl_status pl_double_parse(const char *text, double *out, struct pl_diag *diag) {
  if (text == NULL || *text == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "expected a number, got an empty value");
  char *end = NULL;
  errno = 0;
  double v = decimal_strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v))
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s' is not a finite number", text);
  *out = v;
  return PL_OK;
}

static double count_suffix(char c) {
  switch (c) {
  case 'K': case 'k': return 1e3;
  case 'M': return 1e6;
  case 'B': case 'G': return 1e9;
  case 'T': return 1e12;
  case 'P': return 1e15;
  default: return 0;
  }
}

enum pl_status pl_count_parse(const char *text, double *out, struct pl_diag *diag) {
  if (text == NULL || *text == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "expected a count such as 15T, got an empty value");
  char *end = NULL;
  errno = 0;
  double v = decimal_strtod(text, &end);
  double scale = 1;
  if (end != text && *end != '\0' && end[1] == '\0')
    scale = count_suffix(*end++);
  if (end == text || *end != '\0' || scale == 0 || errno == ERANGE || !isfinite(v * scale))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "'%s' is not a count (a number with an optional K, M, B, T or P: 15T, 300B)",
                       text);
  if (!(v > 0))
    return pl_diag_set(diag, PL_ERR_RANGE, "'%s' must be positive", text);
  /* a count of less than one (0.5 tokens: "training 0 tokens ... 1 steps") */
  if (v * scale < 1)
    return pl_diag_set(diag, PL_ERR_RANGE, "'%s' is %g, less than 1", text, v * scale);
  *out = v * scale;
  return PL_OK;
}

enum pl_status pl_int_parse(const char *text, int64_t *out, struct pl_diag *diag) {
  if (text == NULL || *text == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "expected a positive integer, got an empty value");
  for (const char *p = text; *p; p++)
    if (!isdigit((unsigned char)*p))
      return pl_diag_set(diag, PL_ERR_PARSE, "'%s' is not a positive integer", text);
  errno = 0;
  char *end = NULL;
  long long v = strtoll(text, &end, 10);
  if (errno == ERANGE || *end != '\0')
    return pl_diag_set(diag, PL_ERR_RANGE, "'%s' is too large", text);
  if (v <= 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "'%s' must be positive", text);
  *out = (int64_t)v;
  return PL_OK;
}

enum pl_status pl_unit_parse(const char *text, enum pl_unit_kind kind, double *out,
                             struct pl_diag *diag) {
  if (text == NULL)
    return pl_diag_set(diag, PL_ERR_PARSE, "expected %s, got nothing", kind_name(kind));
  char *end = NULL;
  errno = 0;
  double v = decimal_strtod(text, &end);
  if (end == text || errno == ERANGE || !isfinite(v))
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s' is not %s", text, kind_name(kind));
  while (*end == ' ')
    end++;
  if (kind == PL_UNIT_NONE) {
    if (*end != '\0')
      return pl_diag_set(diag, PL_ERR_PARSE, "'%s' is not a plain number", text);
    *out = v;
    return PL_OK;
  }
  if (*end == '\0') {
    if (v == 0.0) { /* zero needs no unit */
      *out = 0.0;
      return PL_OK;
    }
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s' has no unit: expected %s", text,
                       kind_name(kind));
  }
  double scale = 0.0;
  if (!match_unit(end, kind, &scale))
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s': unknown unit '%s', expected %s", text, end,
                       kind_name(kind));
  if (!isfinite(v * scale)) /* "1e308 TB": finite number, infinite quantity */
    return pl_diag_set(diag, PL_ERR_RANGE, "'%s' is too large", text);
  *out = v * scale;
  return PL_OK;
}

enum pl_status pl_size_parse(const char *text, double *bytes, struct pl_diag *diag) {
  if (text == NULL || *text == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "expected a size, got an empty value");
  char *end = NULL;
  errno = 0;
  double v = decimal_strtod(text, &end);
  if (end == text || errno == ERANGE || !isfinite(v) || v < 0)
    return pl_diag_set(diag, PL_ERR_PARSE, "'%s' is not a size", text);
  while (*end == ' ')
    end++;
  /* nccl-tests -b/-e: K, M, G are powers of 2. "GB"/"MB" are powers of 10. */
  static const struct prefix sizes[] = {
      {"", 1.0},          {"B", 1.0},          {"K", 1024.0},       {"KiB", 1024.0},
      {"M", 1048576.0},   {"MiB", 1048576.0},  {"G", 1073741824.0}, {"GiB", 1073741824.0},
      {"T", 1099511627776.0}, {"TiB", 1099511627776.0}, {"KB", 1e3}, {"kB", 1e3},
      {"MB", 1e6},        {"GB", 1e9},         {"TB", 1e12},
  };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    if (strcmp(end, sizes[i].text) == 0) {
      if (!isfinite(v * sizes[i].scale))
        return pl_diag_set(diag, PL_ERR_RANGE, "'%s' is too large", text);
      *bytes = v * sizes[i].scale;
      return PL_OK;
    }
  }
  return pl_diag_set(diag, PL_ERR_PARSE, "'%s': unknown size suffix '%s' (use K, M, G, MiB, GB)",
                     text, end);
}

void pl_fmt_bytes(char *buf, size_t n, double bytes) {
  static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  double v = bytes;
  while (fabs(v) >= 1024.0 && i < 5) {
    v /= 1024.0;
    i++;
  }
  snprintf(buf, n, i == 0 ? "%.0f %s" : "%.2f %s", v, u[i]);
}

void pl_fmt_seconds(char *buf, size_t n, double s) {
  double a = fabs(s);
  if (a == 0.0)
    snprintf(buf, n, "0 s");
  else if (a < 1e-3)
    snprintf(buf, n, "%.1f us", s * 1e6);
  else if (a < 1.0)
    snprintf(buf, n, "%.2f ms", s * 1e3);
  else if (a < 1e9)
    snprintf(buf, n, "%.3f s", s);
  else /* "%.3f" of 1e30 s fills a 32-byte buffer and cuts off the unit */
    snprintf(buf, n, "%.4g s", s);
}

void pl_fmt_count(char *buf, size_t n, double count) {
  static const char *const u[] = {"", "K", "M", "B", "T", "P", "E", "Z"};
  int i = 0;
  double v = count;
  while (fabs(v) >= 1000.0 && i < 7) {
    v /= 1000.0;
    i++;
  }
  if (fabs(v) >= 1000.0) /* beyond Z: "%.2f" would print hundreds of digits */
    snprintf(buf, n, "%.3g", count);
  else
    snprintf(buf, n, i == 0 ? "%.0f%s" : "%.2f %s", v, u[i]);
}
