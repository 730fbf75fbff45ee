/* hf_mamba.c: the hybrid Mamba-2 fields of a Hugging Face NemotronH
 * config.json (model_type nemotron_h: Nemotron-H, Nemotron Nano 2,
 * Nemotron 3), on top of the Llama-family fields hf_config.c reads.
 *
 * Field names as the NemotronH configuration defines them and Megatron-Bridge
 * maps them (src/megatron/bridge/models/nemotronh/nemotron_h_bridge.py,
 * HEAD 067f987; the Nemotron 3 Nano config in
 * tests/unit_tests/models/nemotronh/test_nemotron_h_bridge.py):
 * hybrid_override_pattern (M Mamba-2, * attention, - MLP, E MoE; '|'
 * pipeline delimiters are dropped as the bridge drops them), mamba_num_heads,
 * mamba_head_dim, n_groups, ssm_state_size, conv_kernel (4), chunk_size
 * (128), attention_head_dim (the attention head width; NemotronH has no
 * head_dim key); MoE blocks when n_routed_experts is above 0 (the bridge
 * adds no MoE for null or 0): n_routed_experts, num_experts_per_tok,
 * moe_intermediate_size, moe_shared_expert_intermediate_size, the router's
 * e_score_correction_bias (NemotronHTopkRouter). Every MLP is the
 * two-matrix up/down MLP (NemotronHMLP; mlp_hidden_act relu2), timed as the
 * GELU MLP. Latent MoE: moe_latent_size (model.moe_latent, moe_latent.c;
 * the bridge copies it to the provider when the config has it). Multi-token
 * prediction: num_nextn_predict_layers modules (model.mtp_layers) of the
 * blocks mtp_hybrid_override_pattern names (model.mtp_pattern,
 * hybrid_mtp.c); as NemotronHBridge._hf_mtp_config, a depth above 0 needs
 * the pattern. */
#include <string.h>

#include "model/model_int.h"

static enum pl_status read_pattern(yajl_val root, const char *origin, struct pl_model *m,
                                   struct pl_diag *diag) {
  char raw[PL_MODEL_MAX_PATTERN * 2 + 1] = "";
  enum pl_status st =
      base_json_str(root, "hybrid_override_pattern", true, origin, raw, sizeof raw, diag);
  if (st != PL_OK)
    return st;
  size_t k = 0;
  for (size_t i = 0; raw[i] != '\0'; i++) {
    if (raw[i] == '|')
      continue;
    if (k >= PL_MODEL_MAX_PATTERN)
      return pl_diag_set(diag, PL_ERR_LIMIT,
                         "%s: field 'hybrid_override_pattern' has more than %d blocks", origin,
                         PL_MODEL_MAX_PATTERN);
    m->hybrid_pattern[k++] = raw[i];
  }
  m->hybrid_pattern[k] = '\0';
  return PL_OK;
}

/* moe_latent_size (null or absent: none), num_nextn_predict_layers and its
 * mtp_hybrid_override_pattern. */
static enum pl_status read_latent_mtp(yajl_val root, const char *origin, struct pl_model *m,
                                      struct pl_diag *diag) {
  yajl_val latent = base_json_get(root, "moe_latent_size");
  enum pl_status st = PL_OK;
  if (latent != NULL && !YAJL_IS_NULL(latent))
    st = model_json_size(root, "moe_latent_size", true, origin, MODEL_MAX_HIDDEN, &m->moe_latent,
                         diag);
  int64_t mtp = 0;
  if (st == PL_OK)
    st = base_json_int(root, "num_nextn_predict_layers", false, origin, &mtp, diag);
  if (st != PL_OK || mtp == 0)
    return st;
  /* a negative count is no config's (the plateau reader refuses mtp_layers < 0 alike) */
  if (mtp < 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: num_nextn_predict_layers must not be negative, not %lld", origin,
                       (long long)mtp);
  if (mtp > MODEL_MAX_LAYERS)
    return pl_diag_set(diag, PL_ERR_RANGE, "%s: num_nextn_predict_layers %lld is above %lld",
                       origin, (long long)mtp, (long long)MODEL_MAX_LAYERS);
  m->mtp_layers = mtp;
  st = base_json_str(root, "mtp_hybrid_override_pattern", false, origin, m->mtp_pattern,
                     sizeof m->mtp_pattern, diag);
  if (st == PL_OK && m->mtp_pattern[0] == '\0')
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "%s: num_nextn_predict_layers %lld needs mtp_hybrid_override_pattern, the "
                       "MTP module's blocks (Megatron-Bridge NemotronHBridge._hf_mtp_config)",
                       origin, (long long)mtp);
  return st;
}

enum pl_status model_hf_hybrid(yajl_val root, const char *origin, const char *type,
                               struct pl_model *m, struct pl_diag *diag) {
  if (strcmp(type, "nemotron_h") != 0)
    return PL_OK;
  enum pl_status st = read_latent_mtp(root, origin, m, diag);
  if (st == PL_OK)
    st = read_pattern(root, origin, m, diag);
  const struct model_size f[] = {
      {"mamba_num_heads", true, MODEL_MAX_HIDDEN, &m->mamba_heads},
      {"mamba_head_dim", true, MODEL_MAX_HIDDEN, &m->mamba_head_dim},
      {"n_groups", true, MODEL_MAX_HIDDEN, &m->mamba_groups},
      {"ssm_state_size", true, MODEL_MAX_HIDDEN, &m->mamba_state},
      {"conv_kernel", false, MODEL_MAX_HIDDEN, &m->mamba_conv},
      {"chunk_size", false, MODEL_MAX_SEQ, &m->mamba_chunk},
      {"attention_head_dim", false, MODEL_MAX_QKV_WIDTH, &m->head_dim},
  };
  if (st == PL_OK)
    st = model_json_sizes(root, f, sizeof f / sizeof f[0], origin, diag);
  int64_t n_experts = 0;
  if (st == PL_OK && base_json_get(root, "n_routed_experts") != NULL &&
      !YAJL_IS_NULL(base_json_get(root, "n_routed_experts")))
    st = base_json_int(root, "n_routed_experts", false, origin, &n_experts, diag);
  if (st == PL_OK && n_experts > 0) {
    const struct model_size e[] = {
        {"n_routed_experts", true, MODEL_MAX_EXPERTS, &m->experts},
        {"num_experts_per_tok", true, MODEL_MAX_EXPERTS, &m->top_k},
        {"moe_intermediate_size", true, MODEL_MAX_FFN, &m->expert_ffn},
        {"moe_shared_expert_intermediate_size", false, MODEL_MAX_FFN, &m->shared_ffn},
    };
    st = model_json_sizes(root, e, sizeof e / sizeof e[0], origin, diag);
    m->router_bias = true;
    /* Megatron-Bridge builds every NemotronH MoE with an fp32 router and the
     * seq_aux_loss (nemotron_h_bridge.py provider_bridge, HEAD 067f987df0:
     * moe_router_dtype "fp32", moe_router_load_balancing_type "seq_aux_loss",
     * moe_aux_loss_coeff 1e-4), as the nemotron-3-nano / -super presets say */
    m->router_fp32 = true;
    m->router_aux_loss = true;
  }
  m->mlp = PL_MLP_GELU;
  /* no position embedding: nemotron_h_bridge.py provider_bridge sets
   * position_embedding_type "none" ("Mamba doesn't use position embeddings") */
  m->pos = PL_POS_NONE;
  model_mamba_defaults(m);
  return st;
}
