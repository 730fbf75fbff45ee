/* offload.c: Megatron-Core's fine-grained activation offloading
 * (layout.offload_modules, layout.h enum pl_offload_module): the modules'
 * names, and what one routed copy moves to the host (memory_act.c
 * model_mem_offload_moe_block counts the copies). */
#include <plateau/layout.h>

#include "model/model_int.h"

/* In bit order; Megatron-Core's names (transformer_config.py offload_modules) */
static const char *const offload_module_names[PL_OFM_COUNT] = {"expert_fc1", "moe_act"};

enum pl_status pl_offload_modules_parse(const char *s, uint32_t *out, struct pl_diag *diag) {
  const char *p = s != NULL ? s : "";
  if (*p == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "empty offload module list");
  return model_name_mask_parse(p, offload_module_names, PL_OFM_COUNT, "offload module",
                               "a comma-separated list of expert_fc1|moe_act; Megatron-Core's "
                               "attn_norm, qkv_linear, core_attn, attn_proj and mlp_norm are not "
                               "modelled",
                               out, diag);
}

void pl_offload_modules_format(uint32_t mask, char *buf, size_t n) {
  model_name_mask_format(mask, offload_module_names, PL_OFM_COUNT, buf, n);
}

/* expert_fc1: the experts' fc1 input; TE saves the original tokens instead of
 * its quantized copy when it is offloaded (core_v0.16.0 moe/experts.py
 * TEGroupedMLP: set_save_original_input(linear_fc1)), and that goes to the
 * host: the e B per element memory_act.c counts leave the GPU. moe_act: the
 * activation's input, the fc1 output (mlp - e B per ffn element), and the
 * clamped GLU's copy unless moe_act is recomputed (then memory_act.c
 * modules_freed has freed it). The whole MoE layer recomputed saves only its
 * input: nothing to offload. pipeline_parallel/fine_grained_activation_offload.py
 * ChunkOffloadHandler: each group is copied on the D2H stream after its
 * forward and its GPU storage released (bulk_offload), reloaded on the H2D
 * stream one group ahead in the backward (bulk_reload). */
double model_offload_copy_bytes(const struct pl_model *m, const struct pl_layout *l, double e,
                                double mlp, double etp, double clamp) {
  uint32_t rcm = pl_layout_recompute_modules(l);
  if (l->offload_modules == 0 || !pl_model_is_moe(m) || (rcm & PL_RCM_MOE))
    return 0.0;
  double bytes = 0.0;
  if (l->offload_modules & PL_OFM_EXPERT_FC1)
    bytes += e * (double)pl_model_moe_width(m); /* a latent MoE: moe_latent wide */
  if (l->offload_modules & PL_OFM_MOE_ACT)
    bytes += (mlp - e) * (double)m->expert_ffn / etp + (rcm & PL_RCM_MOE_ACT ? 0.0 : clamp);
  return bytes;
}
