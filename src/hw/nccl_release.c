/* nccl_release.c: the NCCL release a cluster states, read and written
 * as "MAJOR.MINOR.PATCH" and held as NCCL's NCCL_VERSION_CODE (hw.h). What
 * a release changes in the collective model: src/net/nccl_version.c. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include <plateau/hw.h>

enum pl_status pl_nccl_version_parse(const char *text, int64_t *code, struct pl_diag *diag) {
  long part[3];
  const char *s = text;
  for (int i = 0; i < 3; i++) {
    if (s == NULL || !isdigit((unsigned char)*s))
      goto bad;
    char *end;
    part[i] = strtol(s, &end, 10);
    if (end - s > 3)
      goto bad;
    s = end;
    if (i < 2 && *s++ != '.')
      goto bad;
  }
  if (*s != '\0' && *s != '-' && *s != '+')
    goto bad;
  if (part[1] > 99 || part[2] > 99)
    goto bad;
  int64_t v = part[0] * 10000 + part[1] * 100 + part[2];
  if (v < PL_NCCL_VERSION_MIN || v > PL_NCCL_VERSION_MAX)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "NCCL version '%s': plateau carries the tuning tables of NCCL 2.23 to 2.29",
                       text);
  *code = v;
  return PL_OK;
bad:
  return pl_diag_set(diag, PL_ERR_PARSE,
                     "'%s' is not an NCCL version (expected MAJOR.MINOR.PATCH, e.g. 2.29.2)",
                     text ? text : "");
}

void pl_nccl_version_str(int64_t code, char *out, size_t n) {
  if (code <= 0)
    snprintf(out, n, "%s", "");
  else
    snprintf(out, n, "%d.%d.%d", (int)(code / 10000), (int)(code / 100 % 100), (int)(code % 100));
}
