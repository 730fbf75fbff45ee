/* reader_text.c: numbers from their JSON text. yajl hands every number over
 * as its text (yajl_number callback): ids and counts are read as integers,
 * "ts"/"dur" in microseconds as integer nanoseconds without passing through
 * a double (reader.c). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "reader_int.h"

bool trace_text_i64(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = n > 0 && s[0] == '-';
  i += neg;
  if (i == n)
    return false;
  int64_t v = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
    if (v > (INT64_MAX - 9) / 10)
      return false;
    v = v * 10 + (s[i] - '0');
  }
  /* "8.0" is an integer; "8.5" or "1e3" is not */
  if (i < n && s[i] == '.') {
    for (i++; i < n && s[i] == '0'; i++)
      ;
  }
  if (i != n)
    return false;
  *out = neg ? -v : v;
  return true;
}

/* Microseconds as text ("3743411222862.936", "1623142623460111", "5e-3")
 * to integer nanoseconds. */
bool trace_text_us_to_ns(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  bool neg = n > 0 && s[0] == '-';
  i += neg;
  int64_t us = 0;
  size_t digits = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
    if (us > (INT64_MAX / 1000 - 9) / 10)
      return false;
    us = us * 10 + (s[i] - '0');
  }
  int64_t frac = 0;
  int fd = 0;
  bool round_up = false;
  if (i < n && s[i] == '.') {
    for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
      if (fd < 3)
        frac = frac * 10 + (s[i] - '0');
      else if (fd == 3)
        round_up = s[i] >= '5';
      fd++;
    }
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    /* exponent form: not written by Kineto; accepted, rounded to 1 ns */
    char buf[64];
    if (n >= sizeof buf)
      return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    if (*end != '\0' || !(v > -9e12 && v < 9e12))
      return false;
    double ns = v * 1000.0;
    *out = (int64_t)(ns < 0 ? ns - 0.5 : ns + 0.5);
    return true;
  }
  if (i != n || digits == 0)
    return false;
  for (; fd < 3; fd++)
    frac *= 10;
  int64_t v = us * 1000 + frac + (round_up ? 1 : 0);
  *out = neg ? -v : v;
  return true;
}

/* "stream 7", "25738", "[pid:tid]" -> the first run of digits, else 0. */
int64_t trace_text_digits(const char *s, size_t n) {
  size_t i = 0;
  while (i < n && (s[i] < '0' || s[i] > '9'))
    i++;
  int64_t v = 0;
  for (; i < n && s[i] >= '0' && s[i] <= '9' && v < INT64_MAX / 10 - 9; i++)
    v = v * 10 + (s[i] - '0');
  return v;
}
