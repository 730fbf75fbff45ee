/* flops.c: the operations of one training step, and its FLOP totals.
 *
 * pl_layer_ops / pl_embed_ops / pl_head_ops list what one GPU executes for
 * one micro-batch's forward pass, after Megatron-style sharding: tensor
 * parallelism (tp) splits attention heads, KV heads, the FFN width and the
 * vocabulary (Shoeybi et al. 2019); context parallelism (cp) splits every
 * sequence's tokens, while each query still sees all keys (ring attention);
 * sequence parallelism (Korthikanti et al. 2022 Sec. 4.2.2) splits the
 * tokens of the norms and residual adds by tp. Each op carries its GEMM shape,
 * forward/backward FLOPs and forward/backward HBM bytes (bf16: 2 bytes per
 * element). Counting conventions (docs/model.md "FLOPs"):
 *   - a multiply-add is 2 FLOPs; GEMM backward = dgrad + wgrad = 2x forward;
 *   - attention is counted in full, s x s per sequence although causal
 *     masking skips half (Megatron-LM, PaLM); a sliding window of w keys
 *     counts s x min(s, w); attention backward is 2.5x forward
 *     (FlashAttention-2 recomputes QK^T: 5 matmuls against 2), 2x with
 *     l->eager_attention;
 *   - elementwise ops count the arithmetic of their reference kernels
 *     (per-element constants below, an assumption: they are < 1% of a
 *     step's FLOPs and matter only through their bytes);
 *   - biases are fused into GEMM epilogues and not listed; dropout is fused
 *     into the residual add (Megatron bias-dropout-add).
 * pl_flops_compute gives the per-step totals: model FLOPs (GEMMs and
 * attention matmuls, 3x forward, no recompute: the MFU numerator as PaLM and
 * Korthikanti define it), hardware FLOPs (plus the recomputed forward), and
 * the closed forms of Narayanan et al. 2021 eq. 3 and PaLM (Chowdhery et al.
 * 2022, App. B) for comparison. */
#include <plateau/flops.h>

#include <string.h>

#define BF16_BYTES 2.0
#define FP32_BYTES 4.0

/* Per-element costs of the memory-bound ops (assumption, see header). */
struct elem_cost {
  double fwd_flops, bwd_flops; /* per element */
  double fwd_bytes, bwd_bytes; /* per element */
};
/* RMSNorm: x^2, sum, * rstd, * weight; bwd reads x, dy, writes dx. */
static const struct elem_cost RMS_NORM = {4, 8, 2 * BF16_BYTES, 3 * BF16_BYTES};
/* LayerNorm: mean, x - mean, ^2, sum, * rstd, * weight, + bias. */
static const struct elem_cost LAYER_NORM = {7, 14, 2 * BF16_BYTES, 3 * BF16_BYTES};
/* RoPE on q and k: x cos + rot(x) sin; bwd rotates back (same cost). */
static const struct elem_cost ROPE = {3, 3, 2 * BF16_BYTES, 2 * BF16_BYTES};
/* SwiGLU per output element: silu(g) * u reads g, u, writes y; bwd reads g, u, dy, writes dg, du.
 */
static const struct elem_cost SWIGLU = {6, 12, 3 * BF16_BYTES, 5 * BF16_BYTES};
/* GELU (tanh form): ~8 FLOPs; bwd reads x, dy, writes dx. */
static const struct elem_cost GELU = {8, 16, 2 * BF16_BYTES, 3 * BF16_BYTES};
/* Residual add (dropout fused): reads 2, writes 1; bwd adds the two gradients. */
static const struct elem_cost RESIDUAL = {1, 1, 3 * BF16_BYTES, 3 * BF16_BYTES};
/* Embedding gather (plus learned-position add); bwd scatter-adds rows into an fp32 gradient. */
static const struct elem_cost EMBED = {0, 1, 2 * BF16_BYTES, BF16_BYTES + 2 * FP32_BYTES};
static const struct elem_cost EMBED_POS = {1, 1, 3 * BF16_BYTES, BF16_BYTES + 2 * FP32_BYTES};
/* Cross-entropy over the logits: max, exp, sum, gather; a fused kernel reads
 * the bf16 logits once and keeps fp32 softmax for backward, which reads it
 * and writes bf16 dlogits. */
static const struct elem_cost XENT = {4, 1, BF16_BYTES + FP32_BYTES, FP32_BYTES + BF16_BYTES};

static int64_t deg(int64_t v) { return v > 0 ? v : 1; }

/* The per-GPU dimensions of one micro-batch. */
struct dims {
  int64_t tp;
  int64_t seq;      /* tokens per sequence */
  int64_t s_q;      /* query tokens per sequence on this GPU: seq / cp */
  int64_t s_k;      /* keys each query is counted against: min(seq, window) */
  int64_t tokens;   /* mbs * s_q */
  int64_t tokens_n; /* tokens of norms/residuals: / tp with sequence parallelism */
  int64_t mbs;
};

static struct dims dims_of(const struct pl_model *m, const struct pl_layout *l) {
  struct dims d;
  d.tp = deg(l->tp);
  d.seq = l->seq > 0 ? l->seq : m->seq_len;
  d.s_q = d.seq / deg(l->cp);
  d.s_k = m->sliding_window > 0 && m->sliding_window < d.seq ? m->sliding_window : d.seq;
  d.mbs = deg(l->mbs);
  d.tokens = d.mbs * d.s_q;
  d.tokens_n = l->sp && d.tp > 1 ? d.tokens / d.tp : d.tokens;
  return d;
}

static void gemm(struct pl_op *op, const char *name, int64_t m, int64_t n, int64_t k) {
  memset(op, 0, sizeof *op);
  op->name = name;
  op->kind = PL_OP_GEMM;
  op->m = m;
  op->n = n;
  op->k = k;
  op->count = 1;
  op->fwd_flops = 2.0 * (double)m * (double)n * (double)k;
  op->bwd_flops = 2.0 * op->fwd_flops;
  op->fwd_bytes = BF16_BYTES * ((double)m * k + (double)k * n + (double)m * n);
  op->bwd_bytes = 2.0 * op->fwd_bytes; /* dgrad and wgrad each touch three matrices */
}

static void elementwise(struct pl_op *op, const char *name, double elems, struct elem_cost c) {
  memset(op, 0, sizeof *op);
  op->name = name;
  op->kind = PL_OP_MEMORY;
  op->count = 1;
  op->fwd_flops = c.fwd_flops * elems;
  op->bwd_flops = c.bwd_flops * elems;
  op->fwd_bytes = c.fwd_bytes * elems;
  op->bwd_bytes = c.bwd_bytes * elems;
}

/* Attention core: per GPU heads/tp query heads, kv_heads/tp KV heads, s_q
 * queries against s_k keys. FlashAttention-2 (default): fwd reads Q, K, V,
 * writes O and the fp32 row log-sum-exp; bwd recomputes the scores (2.5x
 * FLOPs), reads Q, K, V, O, dO, LSE, writes dQ, dK, dV and an fp32 row sum.
 * Eager attention (l->eager_attention, Megatron without FlashAttention):
 * bwd 2x FLOPs, and the bf16 s x s scores go through HBM: fwd writes S, reads
 * it for the softmax, writes P, reads P for PV (8 B per score); bwd reads P,
 * writes and reads dP, writes and reads dS (10 B per score). Dropout on the
 * scores is folded into the softmax pass. K and V are counted as read once,
 * a lower bound: the kernels re-read them per query tile, mostly from L2. */
static void attention(struct pl_op *op, const struct pl_model *m, const struct pl_layout *l,
                      const struct dims *d) {
  double a = (double)(m->heads / d->tp), g = (double)(m->kv_heads / d->tp);
  double hd = (double)m->head_dim, b = (double)d->mbs;
  double q_elems = b * (double)d->s_q * a * hd;  /* Q, O, dO, dQ */
  double kv_elems = b * (double)d->s_k * g * hd; /* K, V, dK, dV */
  double rows = b * (double)d->s_q * a, scores = rows * (double)d->s_k;
  memset(op, 0, sizeof *op);
  op->name = "attn";
  op->kind = PL_OP_ATTENTION;
  op->m = d->s_q;
  op->n = d->s_k;
  op->k = m->head_dim;
  op->count = d->mbs * (m->heads / d->tp);
  op->causal = true;
  op->fwd_flops = 4.0 * scores * hd; /* QK^T and PV */
  op->fwd_bytes = BF16_BYTES * (2 * q_elems + 2 * kv_elems);
  op->bwd_bytes = BF16_BYTES * (4 * q_elems + 4 * kv_elems);
  if (l->eager_attention) {
    op->bwd_flops = 2.0 * op->fwd_flops;
    op->fwd_bytes += 4 * BF16_BYTES * scores;
    op->bwd_bytes += 5 * BF16_BYTES * scores;
  } else {
    op->bwd_flops = 2.5 * op->fwd_flops;
    op->fwd_bytes += FP32_BYTES * rows;
    op->bwd_bytes += 2 * FP32_BYTES * rows;
  }
}

static struct elem_cost norm_cost(const struct pl_model *m) {
  return m->norm == PL_NORM_RMS ? RMS_NORM : LAYER_NORM;
}

static void mark_recompute(struct pl_op *ops, int n, enum pl_recompute r) {
  for (int i = 0; i < n; i++)
    ops[i].recompute =
        r == PL_RECOMPUTE_FULL || (r == PL_RECOMPUTE_SELECTIVE && ops[i].kind == PL_OP_ATTENTION);
}

int pl_layer_ops(const struct pl_model *m, const struct pl_layout *l,
                 struct pl_op ops[PL_MAX_LAYER_OPS]) {
  struct dims d = dims_of(m, l);
  double h = (double)m->hidden, norm_elems = (double)d.tokens_n * h;
  int64_t q_w = m->heads / d.tp * m->head_dim, kv_w = m->kv_heads / d.tp * m->head_dim;
  int64_t ffn = m->ffn_hidden / d.tp;
  bool gated = m->mlp == PL_MLP_SWIGLU;
  int n = 0;
  elementwise(&ops[n++], "norm1", norm_elems, norm_cost(m));
  gemm(&ops[n++], "qkv", d.tokens, q_w + 2 * kv_w, m->hidden);
  if (m->pos == PL_POS_ROTARY)
    elementwise(&ops[n++], "rope", (double)d.tokens * (double)(q_w + kv_w), ROPE);
  attention(&ops[n++], m, l, &d);
  gemm(&ops[n++], "proj", d.tokens, m->hidden, q_w);
  elementwise(&ops[n++], "resid1", norm_elems, RESIDUAL);
  elementwise(&ops[n++], "norm2", norm_elems, norm_cost(m));
  gemm(&ops[n++], "fc1", d.tokens, gated ? 2 * ffn : ffn, m->hidden);
  elementwise(&ops[n++], gated ? "swiglu" : "gelu", (double)d.tokens * (double)ffn,
              gated ? SWIGLU : GELU);
  gemm(&ops[n++], "fc2", d.tokens, m->hidden, ffn);
  elementwise(&ops[n++], "resid2", norm_elems, RESIDUAL);
  mark_recompute(ops, n, l->recompute);
  return n;
}

/* Vocab-parallel embedding: each tp rank looks up all tokens in its vocabulary
 * slice (rows outside it give zeros) before the tp reduction. */
int pl_embed_ops(const struct pl_model *m, const struct pl_layout *l,
                 struct pl_op ops[PL_MAX_LAYER_OPS]) {
  struct dims d = dims_of(m, l);
  double elems = (double)d.tokens * (double)m->hidden;
  elementwise(&ops[0], "embed", elems, m->pos == PL_POS_LEARNED ? EMBED_POS : EMBED);
  ops[0].recompute = false;
  return 1;
}

/* Final norm, LM head over this rank's vocabulary slice (padded up to a
 * multiple of tp, as Megatron pads it) and the vocab-parallel cross-entropy. */
int pl_head_ops(const struct pl_model *m, const struct pl_layout *l,
                struct pl_op ops[PL_MAX_LAYER_OPS]) {
  struct dims d = dims_of(m, l);
  int64_t vocab_shard = (m->vocab + d.tp - 1) / d.tp;
  int n = 0;
  elementwise(&ops[n++], "final_norm", (double)d.tokens_n * (double)m->hidden, norm_cost(m));
  gemm(&ops[n++], "lm_head", d.tokens, vocab_shard, m->hidden);
  elementwise(&ops[n++], "loss", (double)d.tokens * (double)vocab_shard, XENT);
  for (int i = 0; i < n; i++)
    ops[i].recompute = false;
  return n;
}

/* Attention matmuls of one block for one sequence, unsharded: QK^T and PV,
 * 2 * 2 * seq * s_k * (heads * head_dim). */
static double attn_seq_flops(const struct pl_model *m, double seq, double s_k) {
  return 4.0 * seq * s_k * (double)(m->heads * m->head_dim);
}

/* Forward FLOPs of one block for one sequence, unsharded: the GEMMs
 * 2 s (h (a + 2 g) d + a d h + k h f), k = 3 gated / 2 GELU, plus attention. */
static double layer_seq_flops(const struct pl_model *m, double seq, double s_k) {
  double h = (double)m->hidden, f = (double)m->ffn_hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double mlp_mats = m->mlp == PL_MLP_SWIGLU ? 3.0 : 2.0;
  return 2.0 * seq * (h * (q + 2.0 * kv) + q * h + mlp_mats * h * f) + attn_seq_flops(m, seq, s_k);
}

/* Narayanan et al. 2021 eq. 3: F = 96 B s l h^2 (1 + s/6h + V/16lh). It
 * assumes MHA, a 4h GELU MLP and full recomputation (4 passes of 24 B s l h^2). */
static double megatron_eq3(const struct pl_model *m, double batch, double seq) {
  double h = (double)m->hidden, l = (double)m->layers, v = (double)m->vocab;
  return 96.0 * batch * seq * l * h * h * (1.0 + seq / (6.0 * h) + v / (16.0 * l * h));
}

double pl_flops_palm_per_token(const struct pl_model *m, int64_t seq) {
  return 6.0 * (double)pl_model_params(m) +
         12.0 * (double)m->layers * (double)(m->heads * m->head_dim) * (double)seq;
}

void pl_flops_compute(const struct pl_model *m, const struct pl_layout *l, struct pl_flops *out) {
  struct dims d = dims_of(m, l);
  double seq = (double)d.seq, s_k = (double)d.s_k, l_n = (double)m->layers;
  double batch = (double)deg(l->gbs), mbs = (double)d.mbs;
  double layer_seq = layer_seq_flops(m, seq, s_k);
  double head_seq = 2.0 * seq * (double)m->hidden * (double)m->vocab;
  double recompute_seq = 0.0;
  if (l->recompute == PL_RECOMPUTE_SELECTIVE)
    recompute_seq = l_n * attn_seq_flops(m, seq, s_k);
  else if (l->recompute == PL_RECOMPUTE_FULL)
    recompute_seq = l_n * layer_seq;
  memset(out, 0, sizeof *out);
  out->layer_fwd = mbs * layer_seq;
  out->layer_bwd = 2.0 * out->layer_fwd;
  out->head_fwd = mbs * head_seq;
  out->tokens_per_step = batch * seq;
  out->model_per_step = 3.0 * batch * (l_n * layer_seq + head_seq);
  out->hardware_per_step = out->model_per_step + batch * recompute_seq;
  out->megatron_per_step = megatron_eq3(m, batch, seq);
  out->palm_per_step = pl_flops_palm_per_token(m, d.seq) * out->tokens_per_step;
}
