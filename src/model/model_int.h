/* model_int.h (internal to src/model): what the model loaders share.
 * Ownership: none; the functions fill caller-owned values. */
#ifndef PL_MODEL_INT_H
#define PL_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <plateau/model.h>

#include "base/json.h"

/* Limits on model dimensions. They are far above any published model (the
 * largest dense models have h = 2^15, l < 2^8, V < 2^18) and keep every
 * product in params.c below 2^62, so parameter counts cannot overflow int64:
 * l * (3 h f + 4 (a d) h) <= 2^16 * (3 * 2^20 * 2^22 + 4 * 2^22 * 2^20) < 2^62. */
#define MODEL_MAX_LAYERS (INT64_C(1) << 16)
#define MODEL_MAX_HIDDEN (INT64_C(1) << 20)
#define MODEL_MAX_FFN (INT64_C(1) << 22)
#define MODEL_MAX_HEADS (INT64_C(1) << 16)
#define MODEL_MAX_QKV_WIDTH (INT64_C(1) << 22) /* heads * head_dim */
#define MODEL_MAX_VOCAB (INT64_C(1) << 24)
#define MODEL_MAX_SEQ (INT64_C(1) << 26)

/* A required (or optional: leaves *out untouched when absent) positive
 * integer no larger than max. Errors name origin and key: absent ->
 * PL_ERR_MISSING, not an integer -> PL_ERR_PARSE, <= 0 or > max -> PL_ERR_RANGE. */
enum pl_status model_json_size(yajl_val obj, const char *key, bool required, const char *origin,
                               int64_t max, int64_t *out, struct pl_diag *diag);

/* Fill *out from a Hugging Face config.json tree (hf_config.c). */
enum pl_status model_from_hf(yajl_val root, const char *origin, struct pl_model *out,
                             struct pl_diag *diag);

#endif
