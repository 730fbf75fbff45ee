/* json_size.c: a positive size field of a model or Hugging Face config
 * file, bounded by the limits of model_int.h; shared by model_load.c,
 * hf_config.c, hf_moe.c and hf_mamba.c (a leaf, so they do not call each other for it). */
#include "model/model_int.h"

enum pl_status model_json_size(yajl_val obj, const char *key, bool required, const char *origin,
                               int64_t max, int64_t *out, struct pl_diag *diag) {
  int64_t v = 0;
  yajl_val field = base_json_get(obj, key);
  bool present = field != NULL && !YAJL_IS_NULL(field);
  enum pl_status st = base_json_int(obj, key, required, origin, &v, diag);
  if (st != PL_OK || !present)
    return st;
  if (v <= 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field '%s' must be a positive integer, not %lld",
                       origin, key, (long long)v);
  if (v > max)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: field '%s' is %lld, above the limit %lld", origin,
                       key, (long long)v, (long long)max);
  *out = v;
  return PL_OK;
}

enum pl_status model_json_sizes(yajl_val obj, const struct model_size *f, size_t n,
                                const char *origin, struct pl_diag *diag) {
  for (size_t i = 0; i < n; i++) {
    enum pl_status st =
        model_json_size(obj, f[i].key, f[i].required, origin, f[i].max, f[i].out, diag);
    if (st != PL_OK)
      return st;
  }
  return PL_OK;
}
