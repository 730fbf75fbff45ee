/* hw_int.h (internal to src/hw): helpers shared by the GPU and cluster
 * loaders. Data files write most fields either bare ("8") or with their
 * source ({"value": 8, "source": "DGX H100 user guide"}); these getters accept
 * both and name the file, the section and the field in every error. */
#ifndef PL_HW_INT_H
#define PL_HW_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/json.h"

/* Longest path we keep in messages and in struct fields. */
#define HW_ORIGIN_MAX 320

/* Open a preset of a kind ("gpus", "clusters") or, when name_or_path is not
 * a preset (or contains '/' or ends in ".json"), a file. On success *tree
 * holds the document, origin names it for messages ("gpu preset 'h100'" or
 * "gpu file 'x.json'") and *is_file says which it was. */
enum pl_status hw_open(const char *kind, const char *name_or_path, yajl_val *tree, char *origin,
                       size_t origin_len, bool *is_file, struct pl_diag *diag);

/* Typed getters that unwrap {"value": ...}. Optional fields that are absent
 * leave *out untouched and return PL_OK. */
enum pl_status hw_int(yajl_val obj, const char *key, bool required, const char *origin,
                      int64_t *out, struct pl_diag *diag);
enum pl_status hw_bool(yajl_val obj, const char *key, bool required, const char *origin,
                       bool *out, struct pl_diag *diag);
enum pl_status hw_str(yajl_val obj, const char *key, bool required, const char *origin, char *out,
                      size_t out_len, struct pl_diag *diag);
/* A quantity with its unit; never negative, and > 0 when positive is set. */
enum pl_status hw_unit(yajl_val obj, const char *key, enum pl_unit_kind kind, bool required,
                       bool positive, const char *origin, double *out, struct pl_diag *diag);
/* A required JSON object section ("intra", "links"); NULL after filling diag. */
yajl_val hw_section(yajl_val obj, const char *key, bool required, const char *origin,
                    struct pl_diag *diag, enum pl_status *st);

/* One of the allowed words, e.g. arch in {"volta", "ampere", ...}. */
enum pl_status hw_word(yajl_val obj, const char *key, bool required, const char *origin,
                       const char *const *allowed, char *out, size_t out_len,
                       struct pl_diag *diag);

#endif
