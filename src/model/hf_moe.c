/* hf_moe.c: the mixture-of-experts and attention-variant fields of a Hugging
 * Face config.json, on top of the Llama-family fields hf_config.c reads.
 *
 * Field names and defaults as transformers defines them (configuration_*.py,
 * modeling_*.py, transformers 4.55):
 *   mixtral: num_local_experts, num_experts_per_tok; each expert is a gated
 *     MLP of intermediate_size (MixtralSparseMoeBlock); router h x experts.
 *   qwen2_moe: num_experts, num_experts_per_tok, moe_intermediate_size,
 *     shared_expert_intermediate_size with its Linear(h, 1) gate,
 *     decoder_sparse_step (block i is MoE when (i + 1) % step == 0),
 *     mlp_only_layers (must be empty here); Q/K/V biases as Qwen2.
 *   qwen3_moe (and dense qwen3): as Qwen2-MoE without a shared expert, plus
 *     q_norm / k_norm (RMSNorm over head_dim) in every block.
 *   deepseek_v2 / deepseek_v3: n_routed_experts, num_experts_per_tok,
 *     moe_intermediate_size, n_shared_experts (one MLP of n_shared *
 *     moe_intermediate_size, DeepseekV3MoE.shared_experts),
 *     first_k_dense_replace, moe_layer_freq (only 1 is read: DeepSeek's
 *     layer_idx % freq counts differently), multi-head latent attention
 *     (q_lora_rank, may be null; kv_lora_rank, qk_nope_head_dim,
 *     qk_rope_head_dim, v_head_dim), num_nextn_predict_layers (MTP) and,
 *     with topk_method "noaux_tc" (V3), the router's e_score_correction_bias.
 *   gpt_oss: num_local_experts, num_experts_per_tok (or experts_per_token),
 *     experts of intermediate_size with biases (GptOssExperts gate_up_proj_bias,
 *     down_proj_bias), a router with bias, attention biases and per-head sinks,
 *     layer_types: the "full_attention" blocks ignore sliding_window;
 *     swiglu_limit (> 0: both halves of the expert fc1 output clamped before the
 *     activation, GptOssExperts: gate.clamp(max=limit), up.clamp(-limit, limit)).
 *   llama4 (text_config) / llama4_text: num_local_experts,
 *     num_experts_per_tok, intermediate_size (each expert and the shared
 *     expert), intermediate_size_mlp (the dense blocks),
 *     interleave_moe_layer_step. The vision tower is not modelled. */
#include <string.h>

#include "model/model_int.h"

/* The first of keys that is present, as a positive size. */
static enum pl_status size_any(yajl_val root, const char *const *keys, size_t n, bool required,
                               const char *origin, int64_t max, int64_t *out,
                               struct pl_diag *diag) {
  for (size_t i = 0; i < n; i++) {
    yajl_val v = base_json_get(root, keys[i]);
    if (v != NULL && !YAJL_IS_NULL(v))
      return model_json_size(root, keys[i], true, origin, max, out, diag);
  }
  if (!required)
    return PL_OK;
  return model_json_size(root, keys[0], true, origin, max, out, diag);
}

static enum pl_status routed(yajl_val root, const char *origin, const char *experts_key,
                             struct pl_model *m, struct pl_diag *diag) {
  static const char *const topk[] = {"num_experts_per_tok", "experts_per_token"};
  const char *const ek[] = {experts_key};
  enum pl_status st = size_any(root, ek, 1, true, origin, MODEL_MAX_EXPERTS, &m->experts, diag);
  if (st == PL_OK)
    st = size_any(root, topk, 2, true, origin, MODEL_MAX_EXPERTS, &m->top_k, diag);
  return st;
}

/* mlp_only_layers: a list of dense blocks Qwen-MoE may name; only [] is read. */
static enum pl_status qwen_dense_list(yajl_val root, const char *origin, struct pl_diag *diag) {
  yajl_val v = base_json_get(root, "mlp_only_layers");
  if (v == NULL || YAJL_IS_NULL(v) || (YAJL_IS_ARRAY(v) && v->u.array.len == 0))
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                     "%s: field 'mlp_only_layers' lists dense blocks; only an empty list is "
                     "supported",
                     origin);
}

static enum pl_status from_qwen_moe(yajl_val root, const char *origin, bool shared,
                                    struct pl_model *m, struct pl_diag *diag) {
  enum pl_status st = routed(root, origin, "num_experts", m, diag);
  if (st == PL_OK)
    st = model_json_size(root, "moe_intermediate_size", true, origin, MODEL_MAX_FFN,
                         &m->expert_ffn, diag);
  if (st == PL_OK)
    st = model_json_size(root, "decoder_sparse_step", false, origin, MODEL_MAX_LAYERS,
                         &m->moe_step, diag);
  if (st == PL_OK && shared)
    st = model_json_size(root, "shared_expert_intermediate_size", false, origin, MODEL_MAX_FFN,
                         &m->shared_ffn, diag);
  m->shared_gate = m->shared_ffn > 0;
  return st == PL_OK ? qwen_dense_list(root, origin, diag) : st;
}

static enum pl_status deepseek_mla(yajl_val root, const char *origin, struct pl_model *m,
                                   struct pl_diag *diag) {
  int64_t nope = 0;
  const struct model_size f[] = {{"q_lora_rank", false, MODEL_MAX_HIDDEN, &m->q_lora_rank},
                                 {"kv_lora_rank", true, MODEL_MAX_HIDDEN, &m->kv_lora_rank},
                                 {"qk_nope_head_dim", true, MODEL_MAX_HIDDEN, &nope},
                                 {"qk_rope_head_dim", true, MODEL_MAX_HIDDEN, &m->qk_rope_dim},
                                 {"v_head_dim", true, MODEL_MAX_HIDDEN, &m->v_head_dim}};
  enum pl_status st = model_json_sizes(root, f, sizeof f / sizeof f[0], origin, diag);
  if (st != PL_OK)
    return st;
  m->head_dim = nope + m->qk_rope_dim; /* the query/key head; transformers' head_dim is rope only */
  m->kv_heads = m->heads;              /* every head has its own K and V after kv_b_proj */
  return PL_OK;
}

static enum pl_status from_deepseek(yajl_val root, const char *origin, struct pl_model *m,
                                    struct pl_diag *diag) {
  int64_t shared = 0, freq = 1;
  char method[32] = "";
  enum pl_status st = routed(root, origin, "n_routed_experts", m, diag);
  if (st == PL_OK)
    st = model_json_size(root, "moe_intermediate_size", true, origin, MODEL_MAX_FFN,
                         &m->expert_ffn, diag);
  if (st == PL_OK)
    st = model_json_size(root, "n_shared_experts", false, origin, MODEL_MAX_EXPERTS, &shared, diag);
  if (st == PL_OK)
    st = model_json_size(root, "first_k_dense_replace", false, origin, MODEL_MAX_LAYERS,
                         &m->moe_first_dense, diag);
  if (st == PL_OK)
    st = model_json_size(root, "moe_layer_freq", false, origin, MODEL_MAX_LAYERS, &freq, diag);
  /* num_nextn_predict_layers 0 (Kimi K2's config): no MTP module, as absent */
  int64_t nextn = 0;
  if (st == PL_OK)
    st = base_json_int(root, "num_nextn_predict_layers", false, origin, &nextn, diag);
  if (st == PL_OK && nextn != 0)
    st = model_json_size(root, "num_nextn_predict_layers", false, origin, MODEL_MAX_LAYERS,
                         &m->mtp_layers, diag);
  if (st == PL_OK)
    st = base_json_str(root, "topk_method", false, origin, method, sizeof method, diag);
  if (st == PL_OK && freq != 1)
    return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                       "%s: field 'moe_layer_freq' is %lld; only 1 is supported", origin,
                       (long long)freq);
  m->shared_ffn = shared * m->expert_ffn;
  m->router_bias = strcmp(method, "noaux_tc") == 0;
  return st == PL_OK ? deepseek_mla(root, origin, m, diag) : st;
}

/* layer_types: count the blocks that attend the whole sequence. */
static void count_full_layers(yajl_val root, struct pl_model *m) {
  yajl_val v = base_json_get(root, "layer_types");
  if (v == NULL || !YAJL_IS_ARRAY(v))
    return;
  for (size_t i = 0; i < v->u.array.len; i++) {
    const char *s = YAJL_GET_STRING(v->u.array.values[i]);
    if (s != NULL && strcmp(s, "full_attention") == 0)
      m->full_attn_layers++;
  }
}

static enum pl_status from_gpt_oss(yajl_val root, const char *origin, struct pl_model *m,
                                   struct pl_diag *diag) {
  enum pl_status st = routed(root, origin, "num_local_experts", m, diag);
  m->expert_ffn = m->ffn_hidden;
  m->router_bias = true;
  m->mlp_bias = true;
  m->attn_sinks = true;
  double limit = 0;
  if (st == PL_OK)
    st = base_json_double(root, "swiglu_limit", false, origin, &limit, diag);
  m->glu_clamp = limit > 0;
  count_full_layers(root, m);
  if (m->full_attn_layers > m->layers)
    m->full_attn_layers = m->layers;
  return st;
}

static enum pl_status from_llama4(yajl_val root, const char *origin, struct pl_model *m,
                                  struct pl_diag *diag) {
  enum pl_status st = routed(root, origin, "num_local_experts", m, diag);
  m->expert_ffn = m->ffn_hidden;
  m->shared_ffn = m->ffn_hidden; /* Llama4TextMoe.shared_expert: intermediate_size */
  if (st == PL_OK)
    st = model_json_size(root, "intermediate_size_mlp", false, origin, MODEL_MAX_FFN,
                         &m->ffn_hidden, diag);
  if (st == PL_OK)
    st = model_json_size(root, "interleave_moe_layer_step", false, origin, MODEL_MAX_LAYERS,
                         &m->moe_step, diag);
  return st;
}

enum pl_status model_hf_moe(yajl_val root, const char *origin, const char *type,
                            struct pl_model *m, struct pl_diag *diag) {
  if (strcmp(type, "mixtral") == 0) {
    m->expert_ffn = m->ffn_hidden;
    return routed(root, origin, "num_local_experts", m, diag);
  }
  if (strcmp(type, "qwen2_moe") == 0)
    return from_qwen_moe(root, origin, true, m, diag);
  if (strcmp(type, "qwen3_moe") == 0) {
    m->qk_norm = true;
    return from_qwen_moe(root, origin, false, m, diag);
  }
  if (strcmp(type, "qwen3") == 0) {
    m->qk_norm = true;
    return PL_OK;
  }
  /* kimi_k2: DeepSeek-V3's architecture and fields (the config's
   * architectures DeepseekV3ForCausalLM; Megatron-Bridge's KimiK2Bridge,
   * models/kimi/kimi_bridge.py at 067f987df0, reads it through the DeepSeek
   * mapping list, deepseek/common.py get_common_mapping_list) */
  if (strcmp(type, "deepseek_v2") == 0 || strcmp(type, "deepseek_v3") == 0 ||
      strcmp(type, "kimi_k2") == 0)
    return from_deepseek(root, origin, m, diag);
  if (strcmp(type, "gpt_oss") == 0)
    return from_gpt_oss(root, origin, m, diag);
  if (strcmp(type, "llama4_text") == 0)
    return from_llama4(root, origin, m, diag);
  static const char *const moe_keys[] = {"num_local_experts", "num_experts", "n_routed_experts",
                                         "moe_intermediate_size"};
  for (size_t i = 0; i < sizeof moe_keys / sizeof moe_keys[0]; i++) {
    yajl_val v = base_json_get(root, moe_keys[i]);
    if (v != NULL && !YAJL_IS_NULL(v))
      return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                         "%s: model_type '%s' with mixture-of-experts field '%s' is not "
                         "supported (mixture-of-experts types: mixtral, qwen2_moe, qwen3_moe, "
                         "deepseek_v2, deepseek_v3, kimi_k2, gpt_oss, llama4)",
                         origin, type, moe_keys[i]);
  }
  return PL_OK;
}
