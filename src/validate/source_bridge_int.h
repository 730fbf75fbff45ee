/* source_bridge_int.h (internal to src/validate): what the files of the
 * Megatron-Bridge reading share (source_bridge.c and its rules by job:
 * source_bridge_moe.c, _precision.c, _runtime.c, _framework.c, _qwen3.c): a row's cell,
 * its container section, whether it is one of a release configuration's, and
 * the rules source_bridge.c's validate_bridge_layout calls in order. The
 * public entry points (validate_bridge_modes, _layout, _overrides, _measure)
 * are in validate_int.h. */
#ifndef PL_SOURCE_BRIDGE_INT_H
#define PL_SOURCE_BRIDGE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "validate/validate_int.h"

/* A Bridge row's container, the first word of its table_or_section
 * ("26.04.01 NeMo Container / ..." -> "26.04.01"): the release whose
 * performance scripts it ran. */
static inline void bridge_section(const struct validate_in *in, char *sec, size_t n) {
  snprintf(sec, n, "%s", cell(in, "table_or_section"));
  sec[strcspn(sec, " ")] = '\0';
}

/* Whether a Bridge row is one of a release configuration's: its container
 * section among `sections` and its GPU ("DGX-" dropped) among `gpus`
 * (space-separated words), its model name starting with `model`, its dtype
 * `dtype` (an enum pl_dtype, or -1 for any). */
static inline bool bridge_names_are(const struct validate_in *in, const char *sections,
                                    const char *model, const char *gpus) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *gpu = cell(in, "gpu");
  if (strncmp(gpu, "DGX-", 4) == 0)
    gpu += 4;
  return validate_word_in(sections, sec) && strncmp(cell(in, "model"), model, strlen(model)) == 0 &&
         validate_word_in(gpus, gpu);
}

static inline bool bridge_config_is(const struct validate_in *in, const struct pl_layout *l,
                                    const char *sections, const char *model, const char *gpus,
                                    int dtype) {
  return bridge_names_are(in, sections, model, gpus) && (dtype < 0 || (int)l->dtype == dtype);
}

/* source_bridge_moe.c */
bool validate_bridge_gpt_oss_dispatch(const struct validate_in *in, struct pl_layout *l,
                                      struct pl_vrow *row);
void validate_bridge_release_dispatch(const struct validate_in *in, struct pl_layout *l,
                                      struct pl_vrow *row);
bool validate_bridge_tokendrop_2509(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row);
void validate_bridge_router_fusion(const struct validate_in *in, struct pl_layout *l,
                                   struct pl_vrow *row);
void validate_bridge_hybridep_sms(const struct validate_in *in, struct pl_layout *l,
                                  struct pl_vrow *row);
void validate_bridge_ep_overlap(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row);
void validate_bridge_fused_mlp(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row);
/* source_bridge_qwen3.c */
bool validate_bridge_qwen3_layout(const struct validate_in *in, const struct pl_layout *l,
                                  struct pl_vrow *row);
/* source_bridge_precision.c */
bool validate_bridge_precision_2509(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row);
void validate_bridge_fp8_recipe(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row);
void validate_bridge_fp8_params(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row);
/* FP8 weights of a tensor-wise (delayed) FP8 run under the distributed optimizer,
 * gathered at 1 B: the one predicate of NeMo 1's fp8_params and NeMo 2's
 * bf16_with_fp8_mixed rows; `why` is the row's note */
void validate_fp8_delayed_params(struct pl_layout *l, struct pl_vrow *row, const char *why);
void validate_bridge_fp8_attention(const struct validate_in *in, struct pl_layout *l,
                                   struct pl_vrow *row);
void validate_bridge_nvfp4_rht(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row);
/* source_bridge_runtime.c */
void validate_bridge_recompute(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row);
void validate_bridge_graph_scope(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row);
void validate_bridge_pg_opt_step(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row);
bool validate_bridge_offload(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row);

#endif
