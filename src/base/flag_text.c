/* flag_text.c: see flag_text.h. */
#include "flag_text.h"

#include <math.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void flag_text_put(struct flag_text *t, const char *fmt, ...) {
  size_t len = t->need < t->n ? t->need : (t->n > 0 ? t->n - 1 : 0);
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->n > len ? t->s + len : NULL, t->n > len ? t->n - len : 0, fmt, ap);
  va_end(ap);
  if (k > 0)
    t->need += (size_t)k;
}

void flag_text_word(struct flag_text *t, const char *s) {
  for (; *s != '\0'; s++) {
    char c = (*s == '\'' || *s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? '_' : *s;
    flag_text_put(t, "%c", c);
  }
}

struct unit {
  const char *text;
  double scale; /* SI per unit */
};

/* Smallest first; the first of each list is the base unit. The names are
 * the ones pl_unit_parse reads (src/base/units.c). */
static const struct unit seconds[] = {{"s", 1}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
static const struct unit bytes[] = {{"B", 1},          {"KiB", 1024.0},        {"MiB", 1048576.0},
                                    {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
static const struct unit bytes_s[] = {{"B/s", 1}, {"kB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
                                      {"TB/s", 1e12}};
static const struct unit bits_s[] = {{"B/s", 1},     {"kb/s", 125.0}, {"Mb/s", 125e3},
                                     {"Gb/s", 125e6}, {"Tb/s", 125e9}};
static const struct unit watts[] = {{"W", 1}, {"kW", 1e3}};

/* v in unit u with the fewest digits (at least its integer digits, so no
 * exponent for 80 or 400) that pl_unit_parse reads back to v; false when
 * none up to max_digits does. */
static bool quantity_in(struct flag_text *t, double v, enum pl_unit_kind kind,
                        const struct unit *u, int max_digits) {
  double x = v / u->scale;
  int digits = fabs(x) >= 1 ? (int)floor(log10(fabs(x))) + 1 : 1;
  if (digits > max_digits)
    digits = max_digits;
  for (; digits <= max_digits; digits++) {
    char word[64];
    snprintf(word, sizeof word, "%.*g %s", digits, x, u->text);
    double back = NAN;
    if (pl_unit_parse(word, kind, &back, NULL) == PL_OK && back == v) {
      flag_text_put(t, "'%s'", word);
      return true;
    }
  }
  return false;
}

void flag_text_quantity(struct flag_text *t, double v, enum pl_unit_kind kind) {
  const struct unit *u = NULL;
  size_t n = 0;
#define UNITS(list) (u = list, n = sizeof list / sizeof list[0])
  switch (kind) {
  case PL_UNIT_SECONDS: UNITS(seconds); break;
  case PL_UNIT_BYTES: UNITS(bytes); break;
  case PL_UNIT_BYTES_PER_S: UNITS(bytes_s); break;
  case PL_UNIT_BITS_PER_S: UNITS(bits_s); break;
  case PL_UNIT_WATTS: UNITS(watts); break;
  default: flag_text_put(t, "'%.17g'", v); return;
  }
#undef UNITS
  size_t k = 0; /* the largest unit v is at least 1 of (the base unit for 0) */
  for (size_t i = 1; i < n; i++)
    if (fabs(v) >= u[i].scale)
      k = i;
  /* in that unit with up to 15 digits, else in the base unit with up to 17
   * (pl_unit_parse multiplies by the unit: 7.3 x 1e-6 is not the double
   * 7.3e-6, and 7.3e-06 s is) */
  if (quantity_in(t, v, kind, &u[k], 15) || quantity_in(t, v, kind, &u[0], 17))
    return;
  flag_text_put(t, "'%.17g %s'", v, u[0].text);
}
