/* hf_config.c: a Hugging Face transformers config.json, as published on the
 * Hub, read into a struct pl_model.
 *
 * Three layouts are understood, each with its transformers field names
 * (configuration_llama.py, configuration_mistral.py, configuration_qwen2.py,
 * configuration_gpt2.py, configuration_gpt_neox.py):
 *   Llama family (model_type llama, mistral, qwen2): num_hidden_layers,
 *     hidden_size, num_attention_heads, num_key_value_heads (absent = MHA),
 *     head_dim (absent = hidden/heads), intermediate_size, vocab_size,
 *     max_position_embeddings; gated SiLU MLP (3 matrices), RMSNorm, RoPE,
 *     tie_word_embeddings (default false), attention_bias / mlp_bias (Llama,
 *     default false); Qwen2 always has Q/K/V biases (modeling_qwen2.py);
 *     dropout when attention_dropout > 0.
 *   GPT-2 (gpt2): n_layer, n_embd, n_head, n_inner (absent or null = 4 *
 *     n_embd, modeling_gpt2.py), vocab_size, n_positions; learned positions,
 *     LayerNorm, GELU, biases everywhere, tied head (default true); dropout
 *     when attn_pdrop, resid_pdrop or embd_pdrop > 0 (default 0.1).
 *   GPT-NeoX (gpt_neox, Pythia): num_hidden_layers, hidden_size,
 *     num_attention_heads, intermediate_size, vocab_size,
 *     max_position_embeddings; rotary, LayerNorm, GELU, biases, untied
 *     embed_out (default); dropout when attention_dropout or hidden_dropout
 *     > 0 (default 0). use_parallel_residual changes the data flow, not
 *     the parameters or FLOPs, so it is ignored.
 * The layout comes from model_type when present, else from the fields.
 * Fields that define the size of the model are required: transformers would
 * fall back to its class defaults, but a config without them is more likely
 * truncated than meant. The default sequence length is the context the model
 * was configured for: rope_scaling.original_max_position_embeddings when a
 * long-context extension is declared, else max_position_embeddings (GPT-2:
 * n_positions). Mixture-of-experts families (mixtral, qwen2_moe, qwen3,
 * qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss, llama4 / llama4_text) are
 * read as the Llama family plus their own fields (hf_moe.c); Llama 4's
 * text model is its config's text_config. NemotronH (nemotron_h) hybrid
 * Mamba-2 stacks likewise, plus hf_mamba.c's fields. A config of any type
 * that declares a feature plateau does not model (logit soft-capping, linear
 * attention: refuse_unmodelled_fields) is refused by that field's name. */
#include <stdio.h>
#include <string.h>

#include "model/model_int.h"

enum hf_family { HF_LLAMA, HF_GPT2, HF_NEOX };

/* True when any of the dropout probabilities is above 0; absent ones take
 * the transformers class default def. */
static enum pl_status any_dropout(yajl_val root, const char *origin, const char *const *keys,
                                  size_t n, double def, bool *out, struct pl_diag *diag) {
  *out = false;
  for (size_t i = 0; i < n; i++) {
    double p = def;
    enum pl_status st = base_json_double(root, keys[i], false, origin, &p, diag);
    if (st != PL_OK)
      return st;
    if (p > 0)
      *out = true;
  }
  return PL_OK;
}

static enum pl_status family_of(yajl_val root, const char *origin, enum hf_family *fam,
                                struct pl_diag *diag) {
  char type[64] = "";
  enum pl_status st = base_json_str(root, "model_type", false, origin, type, sizeof type, diag);
  if (st != PL_OK)
    return st;
  if (type[0] == '\0') { /* no model_type: tell by the fields */
    static const char *const moe_keys[] = {"num_local_experts", "num_experts", "n_routed_experts"};
    for (size_t i = 0; i < sizeof moe_keys / sizeof moe_keys[0]; i++)
      if (base_json_get(root, moe_keys[i]) != NULL)
        return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                           "%s: mixture-of-experts field '%s' without a model_type: add the "
                           "config's model_type",
                           origin, moe_keys[i]);
    if (base_json_get(root, "n_embd") != NULL)
      *fam = HF_GPT2;
    else if (base_json_get(root, "rotary_pct") != NULL ||
             base_json_get(root, "use_parallel_residual") != NULL)
      *fam = HF_NEOX;
    else
      *fam = HF_LLAMA;
    return PL_OK;
  }
  static const char *const llama_like[] = {"llama",     "mistral",     "qwen2",    "mixtral",
                                           "qwen2_moe", "qwen3",       "qwen3_moe", "deepseek_v2",
                                           "deepseek_v3", "kimi_k2",   "gpt_oss",   "llama4_text",
                                           "nemotron_h"};
  for (size_t i = 0; i < sizeof llama_like / sizeof llama_like[0]; i++) {
    if (strcmp(type, llama_like[i]) == 0) {
      *fam = HF_LLAMA;
      return PL_OK;
    }
  }
  if (strcmp(type, "gpt2") == 0)
    *fam = HF_GPT2;
  else if (strcmp(type, "gpt_neox") == 0)
    *fam = HF_NEOX;
  else
    return pl_diag_set(diag, PL_ERR_UNSUPPORTED,
                       "%s: model_type '%s' is not supported (supported: llama, mistral, qwen2, "
                       "qwen3, gpt2, gpt_neox, mixtral, qwen2_moe, qwen3_moe, deepseek_v2, "
                       "deepseek_v3, kimi_k2, gpt_oss, llama4, nemotron_h)",
                       origin, type);
  return PL_OK;
}

/* Llama 3.1 style: the pre-training context is rope_scaling's original one. */
static enum pl_status llama_seq(yajl_val root, const char *origin, struct pl_model *m,
                                struct pl_diag *diag) {
  enum pl_status st = model_json_size(root, "max_position_embeddings", true, origin, MODEL_MAX_SEQ,
                                      &m->seq_len, diag);
  yajl_val scaling = base_json_get(root, "rope_scaling");
  if (st != PL_OK || scaling == NULL || !YAJL_IS_OBJECT(scaling))
    return st;
  char where[300];
  snprintf(where, sizeof where, "%s: rope_scaling", origin);
  return model_json_size(scaling, "original_max_position_embeddings", false, where, MODEL_MAX_SEQ,
                         &m->seq_len, diag);
}

static enum pl_status llama_window(yajl_val root, const char *origin, bool qwen,
                                   struct pl_model *m, struct pl_diag *diag) {
  bool use = true;
  if (qwen) { /* Qwen2 declares a window but only applies it with use_sliding_window */
    use = false;
    enum pl_status st = base_json_bool(root, "use_sliding_window", false, origin, &use, diag);
    if (st != PL_OK)
      return st;
  }
  if (!use)
    return PL_OK;
  return model_json_size(root, "sliding_window", false, origin, MODEL_MAX_SEQ, &m->sliding_window,
                         diag);
}

static enum pl_status llama_flags(yajl_val root, const char *origin, bool qwen2, struct pl_model *m,
                                  struct pl_diag *diag) {
  bool attn_bias = false;
  enum pl_status st =
      base_json_bool(root, "tie_word_embeddings", false, origin, &m->tied_embeddings, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "attention_bias", false, origin, &attn_bias, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "mlp_bias", false, origin, &m->mlp_bias, diag);
  m->qkv_bias = attn_bias || qwen2;
  m->out_bias = attn_bias;
  static const char *const drop[] = {"attention_dropout"};
  if (st == PL_OK)
    st = any_dropout(root, origin, drop, 1, 0.0, &m->dropout, diag);
  return st;
}

static enum pl_status from_llama(yajl_val root, const char *origin, struct pl_model *m,
                                 struct pl_diag *diag) {
  const struct model_size f[] = {
      {"num_hidden_layers", true, MODEL_MAX_LAYERS, &m->layers},
      {"hidden_size", true, MODEL_MAX_HIDDEN, &m->hidden},
      {"num_attention_heads", true, MODEL_MAX_HEADS, &m->heads},
      {"num_key_value_heads", false, MODEL_MAX_HEADS, &m->kv_heads},
      {"head_dim", false, MODEL_MAX_QKV_WIDTH, &m->head_dim},
      {"intermediate_size", true, MODEL_MAX_FFN, &m->ffn_hidden},
      {"vocab_size", true, MODEL_MAX_VOCAB, &m->vocab},
  };
  char type[32] = "";
  base_json_str(root, "model_type", false, origin, type, sizeof type, NULL);
  /* every Qwen family applies its window only with use_sliding_window;
   * Qwen2 and Qwen2-MoE always have Q/K/V biases */
  bool qwen = strncmp(type, "qwen", 4) == 0;
  bool qwen2 = strncmp(type, "qwen2", 5) == 0;
  enum pl_status st = model_json_sizes(root, f, sizeof f / sizeof f[0], origin, diag);
  if (st == PL_OK)
    st = llama_seq(root, origin, m, diag);
  if (st == PL_OK)
    st = llama_window(root, origin, qwen, m, diag);
  if (st == PL_OK)
    st = llama_flags(root, origin, qwen2, m, diag);
  if (st == PL_OK && strcmp(type, "nemotron_h") != 0) /* its experts: hf_mamba.c */
    st = model_hf_moe(root, origin, type, m, diag);
  m->mlp = PL_MLP_SWIGLU;
  m->pos = PL_POS_ROTARY;
  m->norm = PL_NORM_RMS;
  if (st == PL_OK)
    st = model_hf_hybrid(root, origin, type, m, diag);
  return st;
}

static enum pl_status from_gpt2(yajl_val root, const char *origin, struct pl_model *m,
                                struct pl_diag *diag) {
  const struct model_size f[] = {
      {"n_layer", true, MODEL_MAX_LAYERS, &m->layers},
      {"n_embd", true, MODEL_MAX_HIDDEN, &m->hidden},
      {"n_head", true, MODEL_MAX_HEADS, &m->heads},
      {"n_inner", false, MODEL_MAX_FFN, &m->ffn_hidden},
      {"vocab_size", true, MODEL_MAX_VOCAB, &m->vocab},
      {"n_positions", true, MODEL_MAX_SEQ, &m->max_positions},
  };
  m->tied_embeddings = true;
  enum pl_status st = model_json_sizes(root, f, sizeof f / sizeof f[0], origin, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "tie_word_embeddings", false, origin, &m->tied_embeddings, diag);
  static const char *const drop[] = {"attn_pdrop", "resid_pdrop", "embd_pdrop"};
  if (st == PL_OK) /* configuration_gpt2.py defaults: 0.1 each */
    st = any_dropout(root, origin, drop, 3, 0.1, &m->dropout, diag);
  if (st == PL_OK && m->ffn_hidden == 0)
    m->ffn_hidden = 4 * m->hidden; /* n_inner null: modeling_gpt2.py uses 4 * n_embd */
  m->seq_len = m->max_positions;
  m->mlp = PL_MLP_GELU;
  m->pos = PL_POS_LEARNED;
  m->norm = PL_NORM_LAYER;
  m->linear_bias = true;
  return st;
}

static enum pl_status from_neox(yajl_val root, const char *origin, struct pl_model *m,
                                struct pl_diag *diag) {
  const struct model_size f[] = {
      {"num_hidden_layers", true, MODEL_MAX_LAYERS, &m->layers},
      {"hidden_size", true, MODEL_MAX_HIDDEN, &m->hidden},
      {"num_attention_heads", true, MODEL_MAX_HEADS, &m->heads},
      {"intermediate_size", true, MODEL_MAX_FFN, &m->ffn_hidden},
      {"vocab_size", true, MODEL_MAX_VOCAB, &m->vocab},
      {"max_position_embeddings", true, MODEL_MAX_SEQ, &m->seq_len},
  };
  bool attn_bias = true; /* configuration_gpt_neox.py: attention_bias defaults to true */
  enum pl_status st = model_json_sizes(root, f, sizeof f / sizeof f[0], origin, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "tie_word_embeddings", false, origin, &m->tied_embeddings, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "attention_bias", false, origin, &attn_bias, diag);
  static const char *const drop[] = {"attention_dropout", "hidden_dropout"};
  if (st == PL_OK) /* configuration_gpt_neox.py defaults: 0.0 */
    st = any_dropout(root, origin, drop, 2, 0.0, &m->dropout, diag);
  m->linear_bias = attn_bias;
  m->mlp_bias = true;
  m->mlp = PL_MLP_GELU;
  m->pos = PL_POS_ROTARY;
  m->norm = PL_NORM_LAYER;
  return st;
}

/* head_dim and kv_heads when the config leaves them out. */
static enum pl_status finish(const char *origin, struct pl_model *m, struct pl_diag *diag) {
  if (m->kv_heads == 0)
    m->kv_heads = m->heads;
  if (m->head_dim == 0) {
    if (m->hidden % m->heads != 0)
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "%s: hidden size %lld is not divisible by %lld attention heads", origin,
                         (long long)m->hidden, (long long)m->heads);
    m->head_dim = m->hidden / m->heads;
  }
  return PL_OK;
}

/* The default training sequence length: a config's max_position_embeddings
 * is the longest context the model serves (Qwen2: 131,072), not what it was
 * pre-trained on, and a first prediction at it "does not fit". When the
 * config states its training length (rope_scaling's
 * original_max_position_embeddings, read by llama_seq) that is kept;
 * otherwise the default is HF_DEFAULT_SEQ_TOKENS or the context if shorter,
 * and max_context keeps the context so the output can say so (issue 20). */
#define HF_DEFAULT_SEQ_TOKENS 4096 /* Llama 2's pre-training length (arXiv 2307.09288, Table 1) */
static void default_seq(yajl_val root, struct pl_model *m) {
  yajl_val scaling = base_json_get(root, "rope_scaling");
  if (scaling != NULL && YAJL_IS_OBJECT(scaling) &&
      base_json_get(scaling, "original_max_position_embeddings") != NULL)
    return;
  if (m->seq_len > HF_DEFAULT_SEQ_TOKENS) {
    m->max_context = m->seq_len;
    m->seq_len = HF_DEFAULT_SEQ_TOKENS;
  }
}

/* YaRN RoPE with an attention factor other than 1 (model rope_yarn): the
 * config's rope_scaling names rope_type (or type) "yarn" with factor > 1, and
 * Megatron-Core's concentration factor is not 1: _yarn_get_concentration_factor
 * (megatron/core/models/common/embeddings/yarn_rotary_pos_embedding.py,
 * core_v0.16.0) is 0.1 ln(factor) + 1 unless both mscale and mscale_all_dim
 * are given, then their two mscales' ratio, 1 when they are equal (DeepSeek-V3:
 * 1.0 and 1.0). GPT-OSS: yarn, factor 32, neither given: 1.35. */
static void yarn_scaling(yajl_val root, const char *origin, struct pl_model *m) {
  yajl_val sc = base_json_get(root, "rope_scaling");
  if (sc == NULL || !YAJL_IS_OBJECT(sc))
    return;
  char type[32] = "";
  if (base_json_str(sc, "rope_type", false, origin, type, sizeof type, NULL) != PL_OK ||
      type[0] == '\0')
    base_json_str(sc, "type", false, origin, type, sizeof type, NULL);
  double factor = 0, ms = -1, ms_all = -1;
  if (strcmp(type, "yarn") != 0 ||
      base_json_double(sc, "factor", false, origin, &factor, NULL) != PL_OK || !(factor > 1.0))
    return;
  bool both = base_json_get(sc, "mscale") != NULL && base_json_get(sc, "mscale_all_dim") != NULL &&
              base_json_double(sc, "mscale", false, origin, &ms, NULL) == PL_OK &&
              base_json_double(sc, "mscale_all_dim", false, origin, &ms_all, NULL) == PL_OK;
  m->rope_yarn = !(both && ms == ms_all);
}

/* Fields that declare an architecture feature plateau does not model: a
 * config that sets one (not null, not false) is refused by the field's name
 * rather than predicted as if the feature were absent. Names as transformers
 * defines them: configuration_gemma2.py (attn_logit_softcapping 50.0,
 * final_logit_softcapping 30.0: tanh caps on the attention scores and the
 * logits, which also rule out the fused attention kernels plateau prices;
 * Gemma 3 keeps final_logit_softcapping), configuration_qwen3_next.py
 * (linear_num_value_heads: Gated DeltaNet linear-attention blocks). */
static enum pl_status refuse_unmodelled_fields(yajl_val root, const char *origin,
                                               struct pl_diag *diag) {
  static const struct {
    const char *key, *what;
  } fields[] = {
      {"attn_logit_softcapping", "attention logit soft-capping (Gemma 2)"},
      {"final_logit_softcapping", "final logit soft-capping (Gemma 2/3)"},
      {"linear_num_value_heads", "Gated DeltaNet linear attention (Qwen3-Next)"},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    yajl_val v = base_json_get(root, fields[i].key);
    if (v != NULL && !YAJL_IS_NULL(v) && !YAJL_IS_FALSE(v))
      return pl_diag_set(diag, PL_ERR_UNSUPPORTED, "%s: field '%s': %s is not modelled", origin,
                         fields[i].key, fields[i].what);
  }
  return PL_OK;
}

enum pl_status model_from_hf(yajl_val root, const char *origin, struct pl_model *out,
                             struct pl_diag *diag) {
  enum hf_family fam = HF_LLAMA;
  char type[32] = "";
  base_json_str(root, "model_type", false, origin, type, sizeof type, NULL);
  yajl_val text = base_json_get(root, "text_config");
  if (strcmp(type, "llama4") == 0 && text != NULL && YAJL_IS_OBJECT(text))
    root = text; /* Llama 4: the language model's own config */
  enum pl_status st = refuse_unmodelled_fields(root, origin, diag);
  if (st != PL_OK)
    return st;
  st = family_of(root, origin, &fam, diag);
  if (st != PL_OK)
    return st;
  if (fam == HF_GPT2)
    st = from_gpt2(root, origin, out, diag);
  else if (fam == HF_NEOX)
    st = from_neox(root, origin, out, diag);
  else
    st = from_llama(root, origin, out, diag);
  if (st == PL_OK)
    st = finish(origin, out, diag);
  if (st == PL_OK)
    base_json_str(root, "_name_or_path", false, origin, out->name, sizeof out->name, NULL);
  if (st == PL_OK)
    default_seq(root, out);
  if (st == PL_OK && out->pos == PL_POS_ROTARY)
    yarn_scaling(root, origin, out);
  return st;
}
