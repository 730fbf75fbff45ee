/* moe_latent.c: latent MoE (model.moe_latent; Nemotron 3 Super and Ultra).
 *
 * Megatron-Core megatron/core/transformer/moe/moe_layer.py (NVIDIA/Megatron-LM
 * d98e8a6) MoELayer.__init__ builds, when config.moe_latent_size is set, two
 * TELinear layers with parallel_mode "duplicated" (the whole weight on every
 * tensor-parallel rank, no collective): fc1_latent_proj h -> moe_latent_size
 * and fc2_latent_proj moe_latent_size -> h, each with a bias only when
 * add_bias_linear. The router runs first, on the h-wide hidden states
 * (MoELayer.route); preprocess() then projects them down with fc1_latent_proj
 * before dispatch_preprocess, so the permutation, the all-to-all / flex
 * dispatch and combine and the routed experts see moe_latent-wide tokens
 * (experts.py: the grouped MLP's input and output width is moe_latent_size
 * when it is set); postprocess() projects the combined output back up with
 * fc2_latent_proj and adds the shared expert, which runs on the h-wide input
 * (moe_layer.py: "the shared expert must run on the full hidden_states"). The
 * same shapes are Megatron-Bridge's: training/utils/flop_utils.py (HEAD
 * 067f987df0, lines 720-730: routed experts on moe_latent_size plus
 * 4 b s h moe_latent_size for the two projections) and
 * theoretical_memory_utils.py (lines 471-480: experts at moe_latent_size, plus
 * 2 h moe_latent_size projection parameters per MoE layer). */
#include <plateau/model.h>

#include "model/model_int.h"

int64_t pl_model_moe_width(const struct pl_model *m) {
  return m->moe_latent > 0 ? m->moe_latent : m->hidden;
}

int64_t pl_model_moe_latent_params(const struct pl_model *m) {
  if (m->moe_latent <= 0)
    return 0;
  int64_t n = 2 * m->hidden * m->moe_latent;
  if (m->linear_bias) /* add_bias_linear: fc1's bias (latent), fc2's (h) */
    n += m->moe_latent + m->hidden;
  return n;
}

enum pl_status model_moe_latent_check(const struct pl_model *m, struct pl_diag *diag) {
  if (m->moe_latent < 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "model '%s': moe_latent must not be negative", m->name);
  if (m->moe_latent > 0 && m->experts <= 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': moe_latent needs routed experts (experts > 0)", m->name);
  return PL_OK;
}
