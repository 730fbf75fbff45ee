/* flops_totals.c: the FLOP totals of one training step (pl_flops_compute):
 * model FLOPs (GEMMs and attention matmuls, 3x forward, no recompute),
 * hardware FLOPs (plus the recomputed forward), the closed forms of
 * Narayanan et al. 2021 eq. 3 and PaLM; the counting conventions are
 * flops.c's (its head comment, docs/model.md "FLOPs"). */
#include <plateau/flops.h>

#include <string.h>

#include "model/flops_int.h"
#include "model/model_int.h"

/* Attention matmuls of all blocks for one sequence, unsharded: QK^T and PV,
 * 2 * seq * keys * heads * (head_dim + v_head_dim), keys = min(seq, window)
 * on windowed blocks and seq on the model's full-attention blocks. */
static double attn_seq_flops(const struct pl_model *m, double seq, double s_k, double s_full) {
  double vd = m->v_head_dim > 0 ? (double)m->v_head_dim : (double)m->head_dim;
  double per_key = 2.0 * seq * (double)m->heads * ((double)m->head_dim + vd);
  double full = s_k < seq ? (double)m->full_attn_layers : 0.0;
  return per_key * (((double)pl_model_attention_layers(m) - full) * s_k + full * s_full);
}

/* GEMM FLOPs of one block's attention projections for one token. */
static double attn_proj_flops(const struct pl_model *m) {
  double h = (double)m->hidden, a = (double)m->heads, hd = (double)m->head_dim;
  double vd = m->v_head_dim > 0 ? (double)m->v_head_dim : hd;
  if (m->kv_lora_rank <= 0) {
    double q = a * hd, kv = (double)m->kv_heads * hd;
    return 2.0 * (h * (q + 2.0 * kv) + q * h);
  }
  double r_q = (double)m->q_lora_rank, r_kv = (double)m->kv_lora_rank;
  double rope = (double)m->qk_rope_dim;
  double q = r_q > 0 ? h * r_q + r_q * a * hd : h * a * hd;
  double kv = h * (r_kv + rope) + r_kv * a * (hd - rope + vd);
  return 2.0 * (q + kv + a * vd * h);
}

/* GEMM FLOPs of one MLP of width f for one token. */
static double mlp_flops(const struct pl_model *m, int64_t f) {
  return 2.0 * (m->mlp == PL_MLP_SWIGLU ? 3.0 : 2.0) * (double)m->hidden * (double)f;
}

/* GEMM FLOPs of one MoE block's MLP part for one token: the router (2 h E),
 * the top_k routed experts at the MoE width (the latent width of a latent
 * MoE, with its two h x moe_latent projections: moe_latent.c; Megatron-Bridge
 * flop_utils.py counts the same) and the shared expert at h. */
static double moe_token_flops(const struct pl_model *m) {
  double h = (double)m->hidden, w = (double)pl_model_moe_width(m);
  double routed = 2.0 * (m->mlp == PL_MLP_SWIGLU ? 3.0 : 2.0) * w * (double)m->expert_ffn;
  double latent = m->moe_latent > 0 ? 2.0 * 2.0 * h * w : 0.0;
  return 2.0 * h * (double)m->experts + (double)m->top_k * routed + latent +
         (m->shared_ffn > 0 ? mlp_flops(m, m->shared_ffn) : 0.0);
}

/* Forward GEMM FLOPs of all blocks for one sequence, unsharded, without the
 * attention core: projections, dense MLPs, and on MoE blocks the router
 * (2 h E per token), the top_k routed experts and the shared expert (model
 * FLOPs count the experts a token is routed to, not all experts: docs/model.md
 * "Mixture of experts"). */
static double blocks_gemm_seq_flops(const struct pl_model *m, double seq) {
  double moe = (double)pl_model_moe_layers(m), dense = (double)pl_model_dense_mlp_layers(m);
  double per_tok = (double)pl_model_attention_layers(m) * attn_proj_flops(m) +
                   dense * mlp_flops(m, m->ffn_hidden);
  if (pl_model_is_hybrid(m)) /* the Mamba-2 mixers: projections and the SSD's matmuls */
    per_tok += (double)pl_model_kind_layers(m, 'M') * model_mamba_token_flops(m);
  if (moe > 0)
    per_tok += moe * moe_token_flops(m);
  return seq * per_tok;
}

/* Narayanan et al. 2021 eq. 3: F = 96 B s l h^2 (1 + s/6h + V/16lh). It
 * assumes MHA, a 4h GELU MLP and full recomputation (4 passes of 24 B s l h^2). */
static double megatron_eq3(const struct pl_model *m, double batch, double seq) {
  double h = (double)m->hidden, l = (double)m->layers, v = (double)m->vocab;
  return 96.0 * batch * seq * l * h * h * (1.0 + seq / (6.0 * h) + v / (16.0 * l * h));
}

/* Matmul FLOPs the selective recompute modules re-run for one sequence
 * (layout.recompute_modules; mark_recompute marks the same ops): core_attn
 * the attention core, mla_up_proj the q and kv up-projections (q_lora_rank
 * x q width, or h x q width without q_lora_rank, and kv_lora_rank x the k
 * and v widths), mlp the dense blocks' MLPs, moe the MoE blocks' router,
 * top_k experts and shared expert, shared_experts the shared expert alone.
 * layernorm and moe_act re-run element-wise kernels only: no matmul FLOPs. */
static double modules_recompute_seq_flops(const struct pl_model *m, uint32_t mods, double seq,
                                          double attn_seq) {
  double moe = (double)pl_model_moe_layers(m), dense = (double)pl_model_dense_mlp_layers(m);
  double h = (double)m->hidden, f = 0.0;
  if (mods & PL_RCM_CORE_ATTN)
    f += attn_seq;
  if ((mods & PL_RCM_MLA_UP_PROJ) && m->kv_lora_rank > 0) {
    double a = (double)m->heads, hd = (double)m->head_dim, rope = (double)m->qk_rope_dim;
    double vd = m->v_head_dim > 0 ? (double)m->v_head_dim : hd;
    double q_in = m->q_lora_rank > 0 ? (double)m->q_lora_rank : h;
    f += seq * (double)m->layers * 2.0 *
         (q_in * a * hd + (double)m->kv_lora_rank * a * (hd - rope + vd));
  }
  if (mods & PL_RCM_MLP)
    f += seq * dense * mlp_flops(m, m->ffn_hidden);
  double shared = m->shared_ffn > 0 ? mlp_flops(m, m->shared_ffn) : 0.0;
  if (mods & PL_RCM_MOE)
    f += seq * moe * moe_token_flops(m);
  else if (mods & PL_RCM_SHARED_EXPERTS)
    f += seq * moe * shared;
  return f;
}

double pl_flops_palm_per_token(const struct pl_model *m, int64_t seq) {
  /* 6N counts the parameters a token uses: all of a dense model, the active
   * ones of an MoE model */
  double n = pl_model_is_moe(m) ? (double)pl_model_active_params(m) : (double)pl_model_params(m);
  return 6.0 * n + 12.0 * (double)pl_model_attention_layers(m) *
                       (double)(m->heads * m->head_dim) * (double)seq;
}

void pl_flops_compute(const struct pl_model *m, const struct pl_layout *l, struct pl_flops *out) {
  struct dims d = dims_of(m, l);
  double seq = (double)d.seq, s_k = (double)d.s_k, l_n = (double)m->layers;
  double batch = (double)deg(l->gbs), mbs = (double)d.mbs;
  /* packed samples (d.pack): the full-attention blocks of a windowed model
   * see a sample's keys too */
  double attn_seq = attn_seq_flops(m, seq, s_k, d.pack > 0 ? (double)d.pack : seq);
  double blocks_seq = blocks_gemm_seq_flops(m, seq) + attn_seq;
  double head_seq = 2.0 * seq * (double)m->hidden * (double)m->vocab;
  double recompute_seq = 0.0;
  if (l->recompute == PL_RECOMPUTE_SELECTIVE) /* core_attn alone unless modules are given */
    recompute_seq = modules_recompute_seq_flops(m, pl_layout_recompute_modules(l), seq, attn_seq);
  else if (l->recompute == PL_RECOMPUTE_FULL)
    recompute_seq = blocks_seq * pl_recompute_share(m, l);
  else if (l->recompute == PL_RECOMPUTE_OPS) /* wk, wo, w3 (mark_recompute): 2 h (kv + q + f) */
    recompute_seq = seq * l_n * 2.0 * (double)m->hidden *
                    (double)(m->kv_heads * m->head_dim + m->heads * m->head_dim + m->ffn_hidden);
  /* MTP modules (layout.mtp_layers) as Megatron-LM counts them
   * (megatron/training/training.py num_floating_point_operations, HEAD
   * d98e8a6): each one more block, MoE when the last block is, its norms 3h
   * and eh_proj 2h^2 per token (x2 for the multiply-add), and one more pass
   * through the logits. */
  double mtp_seq = 0.0;
  if (l->mtp_layers > 0) {
    double h = (double)m->hidden;
    bool last_moe = pl_model_moe_blocks_below(m, m->layers) >
                    pl_model_moe_blocks_below(m, m->layers - 1);
    double mlp = last_moe ? moe_token_flops(m) : mlp_flops(m, m->ffn_hidden);
    double block = seq * (attn_proj_flops(m) + mlp) + attn_seq / l_n;
    if (pl_model_is_hybrid(m)) /* the module's blocks, by kind (model.mtp_pattern) */
      block = model_hybrid_mtp_seq_flops(m, seq, attn_proj_flops(m), moe_token_flops(m),
                                         mlp_flops(m, m->ffn_hidden),
                                         attn_seq / (double)deg(pl_model_attention_layers(m)));
    mtp_seq = (double)l->mtp_layers * (block + seq * 2.0 * (3.0 * h + 2.0 * h * h) + head_seq);
  }
  memset(out, 0, sizeof *out);
  out->layer_fwd = mbs * blocks_seq / l_n;
  out->layer_bwd = 2.0 * out->layer_fwd;
  out->head_fwd = mbs * head_seq;
  out->tokens_per_step = batch * seq;
  out->model_per_step = 3.0 * batch * (blocks_seq + head_seq + mtp_seq);
  if (l->task == PL_RUN_LORA) {
    /* LoRA (src/model/finetune.c): the frozen GEMMs run forward and dgrad
     * (2x their forward), the attention core its whole backward (3x), the
     * adapters' A and B, r (in + out) weights a block, all three (3x); MTP
     * is refused with lora (dense models only) */
    double adapters = seq * l_n * 2.0 * pl_lora_layer_params(m, l) * (double)d.tp;
    out->model_per_step = batch * (2.0 * (blocks_seq - attn_seq + head_seq) + 3.0 * attn_seq +
                                   3.0 * adapters);
  }
  out->hardware_per_step = out->model_per_step + batch * recompute_seq;
  out->megatron_per_step = megatron_eq3(m, batch, seq);
  out->palm_per_step = pl_flops_palm_per_token(m, d.seq) * out->tokens_per_step;
}
