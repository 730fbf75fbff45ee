/* hybrid_mtp.c: multi-token prediction in a hybrid Mamba-2 stack
 * (model.mtp_pattern, layout.mtp_layers; Nemotron 3 Super and Ultra).
 *
 * A hybrid model's MTP module is not one transformer block but the blocks its
 * mtp_hybrid_override_pattern names: HF NemotronH config.json
 * mtp_hybrid_override_pattern "*E" for Nemotron 3 Super (an attention block
 * and an MoE block), which Megatron-Bridge maps to the provider's
 * mtp_hybrid_override_pattern (models/nemotronh/nemotron_h_bridge.py, HEAD
 * 067f987df0; tests/unit_tests/models/nemotronh/test_nemotron_h_bridge.py
 * test_provider_bridge_mtp_config). Megatron-Bridge's Super recipe trains
 * mtp_num_layers 2 with mtp_use_repeated_layer True (recipes/nemotronh/h100/
 * nemotron_3_super.py: "HF config has num_nextn_predict_layers=1 for the
 * shared block; mtp_num_layers=2 controls forward-pass repetitions"): the one
 * module's weights (model.mtp_layers 1, pl_model_mtp_params) run twice
 * (layout.mtp_layers 2). Each run is the module's blocks plus the eh_proj,
 * norms and second output-layer pass flops.c pl_head_ops already prices.
 *
 * plateau prices a hybrid stack as its average block (flops.c
 * hybrid_layer_ops): with MTP the average is over every block a step runs,
 * the trunk's and layout.mtp_layers times the module's, and the last stage
 * holds mtp_layers x len(mtp_pattern) more of those blocks
 * (layout.mtp_module_blocks, layout_stages.c). */
#include <plateau/flops.h>
#include <plateau/layout.h>
#include <plateau/model.h>

#include <string.h>

#include "model/model_int.h"

static int64_t mtp_kind(const struct pl_model *m, char kind) {
  int64_t n = 0;
  for (const char *p = m->mtp_pattern; *p != '\0'; p++)
    n += *p == kind;
  return n;
}

double pl_hybrid_share(const struct pl_model *m, const struct pl_layout *l, char kind) {
  int64_t k = pl_model_is_hybrid(m) && l != NULL ? l->mtp_layers : 0;
  double blocks = (double)m->layers + (double)k * (double)strlen(m->mtp_pattern);
  double of_kind = (double)pl_model_kind_layers(m, kind) + (double)k * (double)mtp_kind(m, kind);
  return blocks > 0.0 ? of_kind / blocks : 0.0;
}

int64_t model_hybrid_mtp_blocks(const struct pl_model *m) {
  size_t n = strlen(m->mtp_pattern);
  return pl_model_is_hybrid(m) && n > 0 ? (int64_t)n : 1;
}

double model_hybrid_mtp_seq_flops(const struct pl_model *m, double seq, double attn_proj_tok,
                                  double moe_tok, double mlp_tok, double attn_core_seq) {
  double f = 0.0;
  for (const char *p = m->mtp_pattern; *p != '\0'; p++) {
    if (*p == 'M')
      f += seq * model_mamba_token_flops(m);
    else if (*p == '*')
      f += seq * attn_proj_tok + attn_core_seq;
    else if (*p == '-')
      f += seq * mlp_tok;
    else if (*p == 'E')
      f += seq * moe_tok;
  }
  return f;
}

double pl_moe_block_share(const struct pl_model *m, const struct pl_layout *l) {
  if (!pl_model_is_moe(m))
    return 0.0;
  if (pl_model_is_hybrid(m))
    return pl_hybrid_share(m, l, 'E');
  return (double)pl_model_moe_layers(m) / (double)m->layers;
}

double pl_bf16_block_share(const struct pl_model *m, const struct pl_layout *l, char kind) {
  if (l == NULL || l->dtype == PL_DTYPE_BF16)
    return 0.0;
  int64_t last = l->bf16_last_blocks < m->layers ? l->bf16_last_blocks : m->layers;
  if (!pl_model_is_hybrid(m))
    return last > 0 ? (double)last / (double)m->layers : 0.0;
  int64_t k = l->mtp_layers, of_kind = pl_model_kind_layers(m, kind) + k * mtp_kind(m, kind);
  int64_t in_bf16 = pl_model_kind_layers(m, kind) - pl_model_kind_below(m, kind, m->layers - last) +
                    k * mtp_kind(m, kind);
  return of_kind > 0 ? (double)in_bf16 / (double)of_kind : 0.0;
}
