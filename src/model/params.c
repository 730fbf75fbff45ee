/* params.c: exact parameter counts of a decoder-only transformer.
 *
 * One block: Q, K, V and output projections (GQA: K and V have kv_heads *
 * head_dim outputs), the MLP (gated: gate, up, down = 3 h f; GELU: 2 h f),
 * two norms (RMSNorm: weight, h; LayerNorm: weight and bias, 2 h) and the
 * biases the model declares. Outside the blocks: the token table V h, a
 * learned position table max_positions * h (GPT-2/GPT-3), the final norm,
 * and the LM head V h unless it is tied to the token table (no bias, as in
 * every supported family). Derivation and checks against published totals
 * (Llama-2 7B 6,738,415,616; GPT-2 124,439,808 ...): docs/model.md
 * "Parameters". Dimensions are bounded by pl_model_check, so nothing
 * overflows (model_int.h). */
#include <plateau/model.h>

static int64_t norm_params(const struct pl_model *m) {
  return m->norm == PL_NORM_RMS ? m->hidden : 2 * m->hidden;
}

static int64_t attention_params(const struct pl_model *m) {
  int64_t q = m->heads * m->head_dim, kv = m->kv_heads * m->head_dim;
  int64_t n = m->hidden * (q + 2 * kv) + q * m->hidden;
  if (m->linear_bias || m->qkv_bias)
    n += q + 2 * kv;
  if (m->linear_bias || m->out_bias)
    n += m->hidden;
  return n;
}

static int64_t mlp_params(const struct pl_model *m) {
  int64_t up = m->mlp == PL_MLP_SWIGLU ? 2 : 1; /* gate + up, or fc1 */
  int64_t n = (up + 1) * m->hidden * m->ffn_hidden;
  if (m->linear_bias || m->mlp_bias)
    n += up * m->ffn_hidden + m->hidden;
  return n;
}

int64_t pl_model_layer_params(const struct pl_model *m) {
  return attention_params(m) + mlp_params(m) + 2 * norm_params(m);
}

int64_t pl_model_embedding_params(const struct pl_model *m) {
  int64_t n = m->vocab * m->hidden;
  if (m->pos == PL_POS_LEARNED)
    n += m->max_positions * m->hidden;
  return n;
}

int64_t pl_model_head_params(const struct pl_model *m) {
  return (m->tied_embeddings ? 0 : m->vocab * m->hidden) + norm_params(m);
}

int64_t pl_model_params(const struct pl_model *m) {
  return m->layers * pl_model_layer_params(m) + pl_model_embedding_params(m) +
         pl_model_head_params(m);
}
