/* cudnn_release.c: the cuDNN release a run uses, read and written as
 * "MAJOR.MINOR[.PATCH]" or "latest" and held as cuDNN 9's CUDNN_VERSION code
 * (hw.h), and the GPU file's rate by shape of the release a run takes
 * (docs/step-model.md 2.2 "cuDNN by version"). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/hw.h>

/* "M.m" or "M.m.p" (sep '.') or "M_m[_p]" (sep '_'): the code, and whether a
 * patch was given; false on anything else. */
static bool version_parts(const char *s, char sep, int64_t *code, bool *patch) {
  long part[3] = {0, 0, 0};
  int n = 0;
  while (n < 3) {
    if (!isdigit((unsigned char)*s))
      return false;
    char *end;
    part[n] = strtol(s, &end, 10);
    if (end - s > 2)
      return false;
    s = end;
    n++;
    if (*s != sep)
      break;
    s++;
  }
  if (*s != '\0' || n < 2 || part[1] > 99 || part[2] > 99)
    return false;
  *code = part[0] * 10000 + part[1] * 100 + part[2];
  *patch = n == 3;
  return true;
}

enum pl_status pl_cudnn_version_parse(const char *text, int64_t *code, struct pl_diag *diag) {
  if (text != NULL && strcmp(text, "latest") == 0) {
    *code = PL_CUDNN_LATEST;
    return PL_OK;
  }
  int64_t v = 0;
  bool patch = false;
  if (text == NULL || !version_parts(text, '.', &v, &patch))
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "'%s' is not a cuDNN version (expected MAJOR.MINOR[.PATCH], e.g. 9.13, "
                       "or latest)",
                       text ? text : "");
  if (v < PL_CUDNN_VERSION_MIN || v > PL_CUDNN_VERSION_MAX)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "cuDNN version '%s': fused flash attention needs cuDNN 8.9 or newer", text);
  *code = v;
  return PL_OK;
}

void pl_cudnn_version_str(int64_t code, char *out, size_t n) {
  if (code <= 0)
    snprintf(out, n, "%s", "latest");
  else if (code % 100 == 0)
    snprintf(out, n, "%d.%d", (int)(code / 10000), (int)(code / 100 % 100));
  else
    snprintf(out, n, "%d.%d.%d", (int)(code / 10000), (int)(code / 100 % 100), (int)(code % 100));
}

bool pl_cudnn_shape_key(const char *key, int64_t *from, int64_t *through) {
  if (strncmp(key, "shape_", 6) != 0)
    return false;
  /* shape_2024 (session 8): the cuDNN of mid-2024 containers, 9.0-9.1 */
  if (strcmp(key, "shape_2024") == 0) {
    *from = 90000;
    *through = PL_CUDNN_2024 + 99;
    return true;
  }
  int64_t v = 0;
  bool patch = false;
  if (!version_parts(key + 6, '_', &v, &patch) || v < PL_CUDNN_VERSION_MIN)
    return false;
  *from = v;
  *through = patch ? v : v + 99; /* no patch: every patch of the release */
  return true;
}

const struct pl_attn_cudnn_shape *pl_gpu_cudnn_shape(const struct pl_gpu_efficiency *e,
                                                     int64_t code) {
  /* a release older than the oldest entry runs as that entry, the next one
   * measured, as a release between two entries does (session 26): every GPU
   * file's measured releases rise with the version (b200: 9.10.2 0.645, 9.13.1
   * 0.695, today's 0.727 forward; h100: 2024's below today's), so the oldest
   * entry bounds an older release from above, where today's rates did so
   * more loosely */
  if (code <= PL_CUDNN_LATEST || e->attn_cudnn_version_count < 1)
    return NULL;
  for (int i = 0; i < e->attn_cudnn_version_count; i++)
    if (e->attn_cudnn_versions[i].cudnn_through >= code)
      return &e->attn_cudnn_versions[i];
  return NULL;
}
