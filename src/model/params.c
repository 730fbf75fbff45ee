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
 * "Parameters".
 *
 * Mixture of experts (docs/model.md "Mixture of experts"): an MoE block
 * replaces the MLP by a router (experts x h, plus a bias per expert where the
 * model has one), the routed experts (each a gated MLP of width expert_ffn,
 * with GPT-OSS's biases when mlp_bias) and the shared expert(s) (one gated MLP
 * of width shared_ffn; Qwen2-MoE adds its h-weight gate). Which blocks are
 * MoE: transformers' DeepseekV3DecoderLayer (layer_idx >= first_k_dense_replace),
 * Qwen2MoeDecoderLayer and Llama4TextDecoderLayer ((layer_idx + 1) %
 * step == 0). Multi-head latent attention follows DeepseekV3Attention
 * (modeling_deepseek_v3.py): q_a_proj h r_q, q_a_layernorm r_q, q_b_proj
 * r_q a (d_nope + d_rope) (or q_proj h a (d_nope + d_rope) without r_q),
 * kv_a_proj_with_mqa h (r_kv + d_rope), kv_a_layernorm r_kv, kv_b_proj
 * r_kv a (d_nope + d_v), o_proj a d_v h. A hybrid Mamba-2 stack
 * (model.hybrid_pattern) sums its single-mixer blocks, each with one
 * pre-norm (mamba.c). Dimensions are bounded by
 * pl_model_check, so nothing overflows (model_int.h). */
#include <plateau/model.h>


static int64_t norm_params(const struct pl_model *m) {
  return m->norm == PL_NORM_RMS ? m->hidden : 2 * m->hidden;
}

static int64_t mla_params(const struct pl_model *m) {
  int64_t a = m->heads, h = m->hidden, rope = m->qk_rope_dim;
  int64_t v = m->v_head_dim > 0 ? m->v_head_dim : m->head_dim;
  int64_t q = m->q_lora_rank > 0 ? h * m->q_lora_rank + m->q_lora_rank +
                                       m->q_lora_rank * a * m->head_dim
                                 : h * a * m->head_dim;
  int64_t kv = h * (m->kv_lora_rank + rope) + m->kv_lora_rank +
               m->kv_lora_rank * a * (m->head_dim - rope + v);
  return q + kv + a * v * h;
}

static int64_t attention_params(const struct pl_model *m) {
  if (m->kv_lora_rank > 0)
    return mla_params(m);
  int64_t q = m->heads * m->head_dim, kv = m->kv_heads * m->head_dim;
  int64_t n = m->hidden * (q + 2 * kv) + q * m->hidden;
  if (m->linear_bias || m->qkv_bias)
    n += q + 2 * kv;
  if (m->linear_bias || m->out_bias)
    n += m->hidden;
  if (m->qk_norm)
    n += 2 * m->head_dim;
  if (m->attn_sinks)
    n += m->heads;
  return n;
}

/* A gated or GELU MLP of inner width f, with biases when the model has them. */
static int64_t mlp_of(const struct pl_model *m, int64_t f) {
  int64_t up = m->mlp == PL_MLP_SWIGLU ? 2 : 1; /* gate + up, or fc1 */
  int64_t n = (up + 1) * m->hidden * f;
  if (m->linear_bias || m->mlp_bias)
    n += up * f + m->hidden;
  return n;
}

bool pl_model_is_moe(const struct pl_model *m) { return m->experts > 0; }

int64_t pl_model_moe_blocks_below(const struct pl_model *m, int64_t x) {
  if (!pl_model_is_moe(m))
    return 0;
  if (pl_model_is_hybrid(m))
    return pl_model_kind_below(m, 'E', x);
  int64_t step = m->moe_step > 0 ? m->moe_step : 1;
  int64_t first = m->moe_first_dense < x ? m->moe_first_dense : x;
  return x / step - first / step; /* multiples of step in (first, x] */
}

int64_t pl_model_moe_layers(const struct pl_model *m) {
  return pl_model_moe_blocks_below(m, m->layers);
}

int64_t pl_model_dense_mlp_layers(const struct pl_model *m) {
  return pl_model_is_hybrid(m) ? pl_model_kind_layers(m, '-') : m->layers - pl_model_moe_layers(m);
}

int64_t pl_model_attention_params(const struct pl_model *m) {
  return attention_params(m) + 2 * norm_params(m);
}

/* A routed expert runs at pl_model_moe_width (the latent width of a latent
 * MoE, moe_latent.c; else h): its fc1 reads and its fc2 writes that width. */
int64_t pl_model_expert_params(const struct pl_model *m) {
  if (!pl_model_is_moe(m))
    return 0;
  int64_t w = pl_model_moe_width(m), f = m->expert_ffn;
  int64_t up = m->mlp == PL_MLP_SWIGLU ? 2 : 1;
  int64_t n = (up + 1) * w * f;
  if (m->linear_bias || m->mlp_bias)
    n += up * f + w;
  return n;
}

/* Router, latent projections and shared expert(s) of one MoE block: what
 * every token uses. */
static int64_t moe_common_params(const struct pl_model *m) {
  int64_t n = m->experts * m->hidden + (m->router_bias ? m->experts : 0) +
              pl_model_moe_latent_params(m);
  if (m->shared_ffn > 0)
    n += mlp_of(m, m->shared_ffn) + (m->shared_gate ? m->hidden : 0);
  return n;
}

int64_t pl_model_moe_layer_params(const struct pl_model *m) {
  if (!pl_model_is_moe(m))
    return 0;
  if (pl_model_is_hybrid(m)) /* an 'E' block: its pre-norm and the MoE layer */
    return norm_params(m) + moe_common_params(m) + m->experts * pl_model_expert_params(m);
  return pl_model_attention_params(m) + moe_common_params(m) +
         m->experts * pl_model_expert_params(m);
}

/* A hybrid stack's blocks other than 'E', all together: each a pre-norm and
 * its mixer (Mamba-2, attention or the dense MLP). */
static int64_t hybrid_other_params(const struct pl_model *m) {
  int64_t attn = attention_params(m) + norm_params(m);
  int64_t mlp = mlp_of(m, m->ffn_hidden) + norm_params(m);
  return pl_model_kind_layers(m, 'M') * pl_model_mamba_params(m) +
         pl_model_kind_layers(m, '*') * attn + pl_model_kind_layers(m, '-') * mlp;
}

/* A hybrid stack's non-MoE block is the mean of its 'M', '*' and '-' blocks
 * (rounded down): the callers multiply it by the non-MoE blocks. */
int64_t pl_model_layer_params(const struct pl_model *m) {
  if (pl_model_is_hybrid(m)) {
    int64_t other = m->layers - pl_model_moe_layers(m);
    return other > 0 ? hybrid_other_params(m) / other : 0;
  }
  return pl_model_attention_params(m) + mlp_of(m, m->ffn_hidden);
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

static int64_t outside_blocks(const struct pl_model *m) {
  return pl_model_embedding_params(m) + pl_model_head_params(m);
}

int64_t pl_model_params(const struct pl_model *m) {
  int64_t moe = pl_model_moe_layers(m);
  if (pl_model_is_hybrid(m))
    return hybrid_other_params(m) + moe * pl_model_moe_layer_params(m) + outside_blocks(m);
  return (m->layers - moe) * pl_model_layer_params(m) + moe * pl_model_moe_layer_params(m) +
         outside_blocks(m);
}

int64_t pl_model_active_params(const struct pl_model *m) {
  int64_t moe = pl_model_moe_layers(m);
  int64_t moe_active = pl_model_attention_params(m) + moe_common_params(m) +
                       m->top_k * pl_model_expert_params(m);
  if (pl_model_is_hybrid(m))
    return hybrid_other_params(m) +
           moe * (norm_params(m) + moe_common_params(m) + m->top_k * pl_model_expert_params(m)) +
           outside_blocks(m);
  return (m->layers - moe) * pl_model_layer_params(m) + moe * moe_active + outside_blocks(m);
}

/* A hybrid stack's MTP module's blocks (model.mtp_pattern, hybrid_mtp.c):
 * each kind's block with its pre-norm. */
static int64_t hybrid_mtp_blocks_params(const struct pl_model *m) {
  int64_t n = 0;
  for (const char *p = m->mtp_pattern; *p != '\0'; p++)
    n += *p == 'M'   ? pl_model_mamba_params(m)
         : *p == '*' ? attention_params(m) + norm_params(m)
         : *p == '-' ? mlp_of(m, m->ffn_hidden) + norm_params(m)
                     : pl_model_moe_layer_params(m);
  return n;
}

int64_t pl_model_mtp_params(const struct pl_model *m) {
  if (m->mtp_layers <= 0)
    return 0;
  int64_t block = pl_model_is_moe(m) ? pl_model_moe_layer_params(m) : pl_model_layer_params(m);
  if (pl_model_is_hybrid(m)) /* the module's blocks by kind (hybrid_mtp.c) */
    block = hybrid_mtp_blocks_params(m);
  return m->mtp_layers * (block + 2 * m->hidden * m->hidden + 3 * norm_params(m));
}
