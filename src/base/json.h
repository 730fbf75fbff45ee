/* json.h (internal): small JSON documents (presets, configs, specs) as yajl
 * trees, with typed getters that name the file and field in every error.
 * Large inputs (traces) never come here: they are streamed (src/trace/).
 * Ownership: a tree from base_json_* is released with base_json_free. */
#ifndef PL_BASE_JSON_H
#define PL_BASE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_tree.h>

#include <plateau/status.h>
#include <plateau/units.h>

/* Documents here are hand-sized: bigger ones are a mistake (e.g. a trace
 * passed as --model), not something to load into a tree. */
#define BASE_JSON_MAX_BYTES (16u << 20)
/* Configs nest a few levels; yajl_tree_free recurses, so deep nesting from
 * hostile input is refused before parsing. */
#define BASE_JSON_MAX_DEPTH 64

/* Read a whole file (capped at max_bytes) into a NUL-terminated buffer.
 * Refuses gzip data with a message that says so. */
enum pl_status base_read_file(const char *path, size_t max_bytes, char **text, size_t *len,
                              struct pl_diag *diag);

enum pl_status base_json_parse(const char *text, size_t len, const char *origin, yajl_val *out,
                               struct pl_diag *diag);
enum pl_status base_json_load(const char *path, yajl_val *out, struct pl_diag *diag);
void base_json_free(yajl_val v);

/* Field look-up in an object; NULL when absent (or v not an object). */
yajl_val base_json_get(yajl_val obj, const char *key);

/* Unknown keys of obj are notes and ignored, but one within 1 edit of a key
 * in keys[0..n) (2 for keys of 6 characters or more: "kv_head", "behaviors")
 * is a misspelling whose value would be silently dropped: PL_ERR_PARSE,
 * "<origin>: unknown key 'kv_head': did you mean 'kv_heads'? ...". */
enum pl_status base_json_near_miss(yajl_val obj, const char *const *keys, size_t n,
                                   const char *origin, struct pl_diag *diag);

/* Typed getters. "required" fields report PL_ERR_MISSING when absent; optional
 * ones leave *out untouched and return PL_OK. Errors read
 * "<origin>: field 'key': <why>". */
enum pl_status base_json_int(yajl_val obj, const char *key, bool required, const char *origin,
                             int64_t *out, struct pl_diag *diag);
enum pl_status base_json_double(yajl_val obj, const char *key, bool required, const char *origin,
                                double *out, struct pl_diag *diag);
enum pl_status base_json_bool(yajl_val obj, const char *key, bool required, const char *origin,
                              bool *out, struct pl_diag *diag);
enum pl_status base_json_str(yajl_val obj, const char *key, bool required, const char *origin,
                             char *out, size_t out_len, struct pl_diag *diag);
/* A quantity with a unit, e.g. "989 TFLOP/s", or an object {"value": "...",
 * "source": "..."} as data files write it. */
enum pl_status base_json_unit(yajl_val obj, const char *key, enum pl_unit_kind kind,
                              bool required, const char *origin, double *out,
                              struct pl_diag *diag);

#endif
