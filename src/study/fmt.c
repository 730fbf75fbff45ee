/* fmt.c: numbers and names as the study's sentences print them
 * ("2,048 H100s", "falls 31%", "tp2 pp1 zero2 mbs 1"). Formatting only; no
 * locale is consulted, so output is the same on every machine. */
#include "study_int.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void study_appendf(char *buf, size_t n, const char *fmt, ...) {
  size_t used = strlen(buf);
  if (used + 1 >= n)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + used, n - used, fmt, ap);
  va_end(ap);
}

void study_setf(char *buf, size_t n, const char *fmt, ...) {
  if (n == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, n, fmt, ap);
  va_end(ap);
}

void study_copy(char *dst, size_t n, const char *src) {
  if (n == 0)
    return;
  size_t len = strlen(src);
  if (len >= n)
    len = n - 1;
  memcpy(dst, src, len);
  dst[len] = '\0';
}

void study_fmt_int(char *buf, size_t n, int64_t v) {
  char digits[32];
  snprintf(digits, sizeof digits, "%lld", (long long)(v < 0 ? -v : v));
  size_t len = strlen(digits);
  char out[48];
  size_t k = 0;
  if (v < 0)
    out[k++] = '-';
  for (size_t i = 0; i < len; i++) {
    if (i > 0 && (len - i) % 3 == 0)
      out[k++] = ',';
    out[k++] = digits[i];
  }
  out[k] = '\0';
  snprintf(buf, n, "%s", out);
}

void study_fmt_change(char *buf, size_t n, double a, double b) {
  if (a == 0.0) {
    snprintf(buf, n, "goes from 0 to %g", b);
    return;
  }
  double pct = 100.0 * (b - a) / fabs(a);
  if (fabs(pct) < 0.5)
    snprintf(buf, n, "stays within 0.5%%");
  else if (pct < 0)
    snprintf(buf, n, "falls %.0f%%", -pct);
  else
    snprintf(buf, n, "rises %.0f%%", pct);
}

void study_gpu_label(const struct pl_cluster *c, char *buf, size_t n) {
  snprintf(buf, n, "%s", c->gpu.name);
  for (char *s = buf; *s; s++)
    *s = (char)toupper((unsigned char)*s);
}

void study_layout_label(const struct pl_layout *l, char *buf, size_t n) {
  buf[0] = '\0';
  study_appendf(buf, n, "tp%lld pp%lld", (long long)l->tp, (long long)l->pp);
  if (l->cp > 1)
    study_appendf(buf, n, " cp%lld", (long long)l->cp);
  if (l->vp > 1)
    study_appendf(buf, n, " vp%lld", (long long)l->vp);
  study_appendf(buf, n, " %s", pl_shard_name(l->shard));
  if (l->shard_group > 0 && l->shard_group < l->dp)
    study_appendf(buf, n, "/%lld", (long long)l->shard_group);
  study_appendf(buf, n, " mbs%lld", (long long)l->mbs);
  if (l->recompute != PL_RECOMPUTE_NONE)
    study_appendf(buf, n, " %s", pl_recompute_name(l->recompute));
}
