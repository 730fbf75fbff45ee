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
 * 2022, App. B) for comparison (flops_totals.c; flops_int.h holds the
 * per-GPU dimensions both files use). */
#include <plateau/flops.h>

#include <math.h>
#include <string.h>

#include "model/constants.h"
#include "model/flops_int.h"
#include "model/model_int.h"

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
/* RoPE as Megatron-Core's unfused path runs it (model rope_yarn).
 * apply_rotary_pos_emb (megatron/core/models/common/embeddings/rope_utils.py,
 * core_v0.16.0) takes it whenever mscale != 1, "not supported by TE's fused
 * RoPE", even with apply_rope_fusion; attention.py passes YaRN's concentration
 * factor as mscale; Megatron-Bridge also turns apply_rope_fusion off for any
 * position_embedding_type but "rope" (gpt_provider.py finalize ->
 * utils/fusions.py validate_rope_fusion_compatibility, v0.2.2 .. v0.5.0).
 * _apply_rotary_pos_emb_bshd, per element of q or k (bf16, rot_dim = head_dim
 * so t_pass is empty): t * cos (reads 2, writes 2), _rotate_half's -x2 (1 + 1)
 * and cat((-x2, x1)) (2 + 2), * sin (2 + 2), the add (4 + 2), the closing
 * torch.cat((t, t_pass)) copy (2 + 2): 24 B, six kernels (and six on the
 * [s, 1, 1, d] cos/sin table). Backward (PyTorch autograd,
 * tools/autograd/derivatives.yaml): the two mul gradients grad * cos, grad *
 * sin (4 + 4), neg (2), chunk's split_backward cat (4), the two gradients of
 * t summed (6), slice_backward of t[..., :rot_dim] (zeros 2 + copy 4) and of
 * the empty t_pass (zeros 2), their sum (6): 34 B, nine kernels. */
static const struct elem_cost ROPE_UNFUSED = {3, 3, 12 * BF16_BYTES, 17 * BF16_BYTES};
/* Megatron-Core's GQA query copy (layout.gqa_query_copy): SelfAttention
 * get_query_key_value_tensors (megatron/core/transformer/attention.py) views
 * the fused QKV output as [sq, b, ng, (np/ng + 2) hn], splits it along the
 * last dim (torch.split or TE's SplitAlongDim: views) and runs
 * query.reshape(sq, b, np, hn). Merging the ng dim (stride (np/ng + 2) hn)
 * with the np/ng dim (stride hn) is a view only when one of them has size 1,
 * so for 1 < ng < np (per tp rank) reshape copies: 2 B read + 2 B written per
 * query element, one kernel, forward only (the backward of the copy is a
 * view of the contiguous gradient). */
static const struct elem_cost GQA_QUERY_COPY = {0, 0, 2 * BF16_BYTES, 0};
#define ROPE_UNFUSED_FWD_KERNELS 12
#define ROPE_UNFUSED_BWD_KERNELS 9
/* SwiGLU per output element: silu(g) * u reads g, u, writes y; bwd reads g, u, dy, writes dg, du.
 */
static const struct elem_cost SWIGLU = {6, 12, 3 * BF16_BYTES, 5 * BF16_BYTES};
/* Megatron-Core's SwiGLU when its @jit_fuser functions run as eager PyTorch
 * (layout.jit_eager): fusions/fused_bias_swiglu.py (core_v0.15.0 .. core_v0.17.0)
 * swiglu(y) chunks y into the halves y_1, y_2 (views) and runs F.silu(y_1)
 * (reads 2 B, writes 2) and the product with y_2 (4 + 2): 10 B in 2 kernels
 * per output element; swiglu_back(g, y) runs sigmoid(y_1) twice (2 + 2 each),
 * g * s (4 + 2), 1 - s (2 + 2), y_1 * (1 - s) (4 + 2), 1 + ... (2 + 2), the
 * product of those two (4 + 2), * y_2 (4 + 2), F.silu(y_1) (2 + 2),
 * g * silu (4 + 2) and the closing cat of the two halves' gradients (4 + 4):
 * 58 B in 11 kernels. All bf16 (PyTorch keeps each op's output dtype). */
static const struct elem_cost SWIGLU_EAGER = {6, 12, 5 * BF16_BYTES, 29 * BF16_BYTES};
#define SWIGLU_EAGER_FWD_KERNELS 2
#define SWIGLU_EAGER_BWD_KERNELS 11
/* The routed experts' weighted form, eager (TEGroupedMLP with
 * bias_activation_fusion: weighted_bias_swiglu_impl -> weighted_swiglu /
 * weighted_swiglu_back, same file), with 16-bit router probabilities (the
 * router's output dtype under the alltoall and allgather dispatchers):
 * forward swiglu (10 B, 2 kernels) then * weights (4 B; .to() of the same
 * dtype launches nothing): 14 B in 3; backward g * weights (4 B), swiglu_back
 * (58 B, 11), swiglu(y) again (10 B, 2), * g (6 B) and the sum over the last
 * dim for the weights' gradient (reads 2 B): 80 B in 16 kernels. fp32
 * probabilities (the flex dispatcher's, an fp32 router's) promote the
 * products to fp32 and cost more; not counted. */
static const struct elem_cost SWIGLU_WEIGHTED_EAGER = {6, 12, 7 * BF16_BYTES, 40 * BF16_BYTES};
#define SWIGLU_WEIGHTED_EAGER_FWD_KERNELS 3
#define SWIGLU_WEIGHTED_EAGER_BWD_KERNELS 16
/* GPT-OSS's routed experts (model glu_clamp), eager: fc1's bias is the GEMM's
 * epilogue (TEGroupedMLP linear_fc1 skip_bias_add False), so
 * weighted_bias_quick_geglu_impl takes its bias-free path,
 * fusions/fused_bias_geglu.py (core_v0.16.0) weighted_quick_geglu /
 * weighted_quick_geglu_back, 16-bit probabilities, per activation element:
 * forward quick_geglu = 1.702 * y_1 (2 + 2 B), sigmoid (2 + 2), y_1 * s
 * (4 + 2), y_2 + offset (2 + 2), the product (4 + 2) = 24 B in 5 kernels,
 * then * weights (4): 28 B in 6. Backward g * weights (4); quick_geglu_back
 * in Python's evaluation order: 1.702 * y_1 (4), sigmoid (4), g * s (6),
 * 1.702 * y_1 again (4), 1 - s (4), their product (6), 1 + ... (4), * (6),
 * y_2 + offset (4), * (6), g * y_1 (6), * s (6), the cat (8) = 68 B in 13;
 * quick_geglu again for the weights' gradient (24 B, 5), * g (6) and the sum
 * (2): 104 B in 21 kernels. The clamp chain before it is eager either way
 * (GLU_CLAMP). */
static const struct elem_cost QUICK_GEGLU_WEIGHTED_EAGER = {6, 12, 14 * BF16_BYTES,
                                                            52 * BF16_BYTES};
#define QUICK_GEGLU_WEIGHTED_EAGER_FWD_KERNELS 6
#define QUICK_GEGLU_WEIGHTED_EAGER_BWD_KERNELS 21
/* GELU (tanh form): ~8 FLOPs; bwd reads x, dy, writes dx. */
static const struct elem_cost GELU = {8, 16, 2 * BF16_BYTES, 3 * BF16_BYTES};
/* Residual add (dropout fused): reads 2, writes 1; bwd adds the two gradients. */
static const struct elem_cost RESIDUAL = {1, 1, 3 * BF16_BYTES, 3 * BF16_BYTES};
/* The attention residual of an MoE model with linear biases (model out_bias or
 * linear_bias, GPT-OSS), as Megatron-Core runs it: TEGroupedMLP asserts
 * `not (add_bias_linear and bias_dropout_fusion)` (moe/experts.py,
 * core_v0.15.0 .. core_v0.18.0; Megatron-Bridge's GPT-OSS bridge sets
 * bias_dropout_fusion False), so the attention output's bias, which
 * linear_proj returns unapplied (skip_bias_add), is added by the unfused
 * bias-dropout-add (fusions/fused_bias_dropout.py _bias_dropout_add_func:
 * `x = x + bias`, dropout, `residual + out`): one more kernel reading and
 * writing 2 B before the residual add (dropout at p 0 launches none: ATen
 * _dropout_impl returns its input); its backward sums the gradient over the
 * tokens for the bias (a reduction reading 2 B). 10 B forward and 8 B backward
 * per element in two kernels each way (helper oss21; noted by ossmoe14). */
static const struct elem_cost RESIDUAL_BIAS = {2, 2, 5 * BF16_BYTES, 4 * BF16_BYTES};
/* Embedding gather (plus learned-position add); bwd scatter-adds rows into an fp32 gradient. */
static const struct elem_cost EMBED = {0, 1, 2 * BF16_BYTES, BF16_BYTES + 2 * FP32_BYTES};
static const struct elem_cost EMBED_POS = {1, 1, 3 * BF16_BYTES, BF16_BYTES + 2 * FP32_BYTES};
/* The embedding's backward beyond its per-token bytes: PyTorch's
 * embedding_dense_backward_cuda (aten/src/ATen/native/cuda/Embedding.cu;
 * F.embedding's backward: Megatron-Core VocabParallelEmbedding, Hugging Face
 * and torchtitan nn.Embedding alike) returns a gradient of the whole table,
 * `at::zeros({num_weights, dim}, grad.options())`: every backward pass writes
 * the rank's table rows x hidden at the gradient's 2 B before it scatters the
 * looked-up rows into it (EMBED's bytes). Up to EMBED_BWD_FEATURE_MAX indices
 * one embedding_backward_feature_kernel follows the fill (2 kernels); above,
 * embedding_backward_cuda_kernel (EmbeddingBackwardKernel.cu, pytorch/pytorch
 * d2999467 and the 2024+ form with compute_num_of_partial_segments) runs
 * arange, cub radix_sort_pairs on the int64 indices (histogram, exclusive sum
 * and 8 onesweep passes of 8 bits: cub Policy800+ ONESWEEP_RADIX_BITS 8 over
 * 64-bit keys, as PyTorch passes no end bit), the zeros fill, cub
 * unique_by_key (2), krn_partials_per_segment, cub exclusive_sum (2),
 * compute_num_of_partial_segments, krn_partial_segment_offset,
 * compute_grad_weight and sum_and_scatter: 21 kernels. */
#define EMBED_BWD_FEATURE_MAX 3072
#define EMBED_BWD_FEATURE_KERNELS 2
#define EMBED_BWD_SORTED_KERNELS 21

/* Adds the table's zero fill to an embedding op run `lookups` times over
 * `tokens` tokens each, against a table of `rows` rows on this rank. */
static void embed_table_fill(struct pl_op *op, double lookups, int64_t tokens, int64_t rows,
                             int64_t hidden) {
  op->bwd_bytes += lookups * (double)rows * (double)hidden * BF16_BYTES;
  op->fwd_kernels = (int)lookups;
  op->bwd_kernels = (int)lookups * (tokens <= EMBED_BWD_FEATURE_MAX ? EMBED_BWD_FEATURE_KERNELS
                                                                    : EMBED_BWD_SORTED_KERNELS);
}
/* Cross-entropy over the logits: max, exp, sum, gather; a fused kernel reads
 * the bf16 logits once and keeps fp32 softmax for backward, which reads it
 * and writes bf16 dlogits. */
static const struct elem_cost XENT = {4, 1, BF16_BYTES + FP32_BYTES, FP32_BYTES + BF16_BYTES};

/* The builders (op_build.c) under flops.c's names. */
static void gemm(struct pl_op *op, const char *name, int64_t m, int64_t n, int64_t k) {
  model_op_gemm(op, name, m, n, k, 1);
}

/* count GEMMs of one shape in one launch (a grouped GEMM: TransformerEngine
 * GroupedLinear / CUTLASS grouped GEMM, Megatron --moe-grouped-gemm), run by
 * share of the blocks. */
static void gemm_group(struct pl_op *op, const char *name, int64_t m, int64_t n, int64_t k,
                       int64_t count, double share) {
  model_op_gemm(op, name, m, n, k, count);
  op->share = share;
}

static void elementwise(struct pl_op *op, const char *name, double elems, struct elem_cost c) {
  model_op_memory(op, name, elems, c.fwd_flops, c.bwd_flops, c.fwd_bytes, c.bwd_bytes);
}

/* Per element of an op, the part of its kernels PyTorch runs on the
 * non-vectorized path (pl_op strided_elems, sim/compute.c strided_extra_s):
 * elements written and bytes moved by those kernels each way. */
struct strided_cost {
  double fwd_elems, bwd_elems;
  double fwd_bytes, bwd_bytes;
};
static void strided(struct pl_op *op, double elems, struct strided_cost c) {
  op->fwd_strided_elems = c.fwd_elems * elems;
  op->bwd_strided_elems = c.bwd_elems * elems;
  op->fwd_strided_bytes = c.fwd_bytes * elems;
  op->bwd_strided_bytes = c.bwd_bytes * elems;
}

/* Which of ROPE_UNFUSED's kernels take PyTorch's non-vectorized path, per
 * element of q or k (an operand that is a broadcast or a strided view is not
 * contiguous: CUDALoops.cuh gpu_kernel_impl_nocast): t * cos and the rotated
 * half * sin, whose [s, 1, 1, d] tables broadcast over batch and heads (1
 * element, 4 B each), and _rotate_half's -x2 on a chunk half (half an element,
 * 2 B): 2.5 elements, 10 B. Backward the same three: grad * cos, grad * sin
 * and the negation of the cat gradient's slice. The cats, the add, the
 * gradients' sum and the slice copies run on contiguous tensors. */
static const struct strided_cost ROPE_UNFUSED_STRIDED = {2.5, 2.5, 5 * BF16_BYTES,
                                                         5 * BF16_BYTES};

/* GQA_QUERY_COPY's copy reads a strided view (the query columns of the fused
 * QKV output), so reshape's clone runs copy_ -> direct_copy_kernel_cuda ->
 * gpu_kernel_nocast on a non-contiguous iterator (aten/src/ATen/native/cuda/
 * Copy.cu, CUDALoops.cuh): the non-vectorized path, 1 element, 4 B, forward. */
static const struct strided_cost GQA_QUERY_COPY_STRIDED = {1, 0, 2 * BF16_BYTES, 0};
/* RESIDUAL_BIAS's `x = x + bias` broadcasts the [h] bias over the tokens: the
 * non-vectorized path, 1 element, 4 B (x read, the sum written), forward; its
 * backward is a reduction over the tokens (another kernel family). */
static const struct strided_cost RESIDUAL_BIAS_STRIDED = {1, 0, 2 * BF16_BYTES, 0};

/* An op's kernel launches each way (pl_op fwd_kernels / bwd_kernels: 0 one,
 * -1 none, its work inside another op's kernel). */
static void kernels(struct pl_op *op, int fwd, int bwd) {
  op->fwd_kernels = fwd;
  op->bwd_kernels = bwd;
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
static void attention(struct pl_op *op, const char *name, const struct pl_model *m,
                      const struct pl_layout *l, const struct dims *d, int64_t s_k, double share) {
  /* cp's a2a (layout.cp_comm a2a, a2a+p2p; Transformer Engine
   * AttnFuncWithCPAndQKVOA2A, flash_attn_a2a_communicate: [b, s, h, d] ->
   * [b, s x g, h / g, d]): each rank attends g times the queries with 1/g of
   * the heads, the same FLOPs in another shape */
  int64_t grp = pl_layout_cp_a2a_ranks(l);
  int64_t hdiv = d->tp * grp, s_q = d->s_q * grp;
  double a = (double)(m->heads / hdiv), g = (double)(m->kv_heads / hdiv);
  double hd = (double)m->head_dim, b = (double)d->mbs;
  double vd = m->v_head_dim > 0 ? (double)m->v_head_dim : hd; /* latent attention: 128 < 192 */
  /* packed samples (layout.packed_sample_len, d->pack; finetune.c): the
   * varlen (THD) kernel runs each sample of pack tokens as its own causal
   * square, s_q / pack of them per sequence; every key is still read once */
  int64_t per_seq = 1;
  if (d->pack > 0) {
    s_k = s_k < d->pack ? s_k : d->pack;
    per_seq = s_q / d->pack;
  }
  double q_elems = b * (double)s_q * a * hd; /* Q, O, dO, dQ */
  double kv_elems = b * (double)(d->pack > 0 ? s_q : s_k) * g * hd; /* K, V, dK, dV */
  double rows = b * (double)s_q * a, scores = rows * (double)s_k;
  memset(op, 0, sizeof *op);
  op->name = name;
  op->kind = PL_OP_ATTENTION;
  op->m = d->pack > 0 ? d->pack : s_q;
  op->n = s_k;
  op->k = m->head_dim;
  op->k_v = (int64_t)vd;
  op->count = d->mbs * (m->heads / hdiv) * per_seq;
  op->causal = true;
  if (l->cp > 1 && l->cp_comm == PL_CP_ALL_GATHER && !l->cp_allgather)
    op->cp_gathered = l->cp;
  /* Transformer Engine's AttnFuncWithCP(AndKVP2P).forward runs its ring steps
   * on two streams (v1.4 attention.py .. d0067d0 context_parallel.py,
   * flash_attn_streams); PyTorch's context_parallel (cp_allgather) on one */
  op->cp_two_streams = l->cp > 1 && !l->cp_allgather &&
                       (l->cp_comm == PL_CP_P2P || l->cp_comm == PL_CP_A2A_P2P);
  op->share = share;
  op->fwd_flops = 2.0 * scores * (hd + vd); /* QK^T and PV */
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

/* A norm with learned weights: its backward is three kernels, the partial
 * weight (and bias) gradients per row block, their reduction, and the input
 * gradient: HostLayerNormGradient in NVIDIA apex csrc/layer_norm_cuda_kernel.cu
 * and in Megatron's copy megatron/fused_kernels/layer_norm_cuda_kernel.cu
 * (cuComputePartGradGammaBeta, cuComputeGradGammaBeta, cuComputeGradInput;
 * HostRMSNormGradient the same for RMSNorm), and PyTorch's own
 * aten/src/ATen/native/cuda/layer_norm_kernel.cu LayerNormBackwardKernelImplInternal
 * (the same two-pass weight gradient beside the input-gradient kernel). The
 * bytes stay those of norm_cost; only the launches count (docs/step-model.md 2.6). */
static void norm_op(struct pl_op *op, const char *name, double elems, const struct pl_model *m) {
  elementwise(op, name, elems, norm_cost(m));
  op->bwd_kernels = 3;
}

/* Recompute ops: torchtitan's per-op selective activation checkpointing
 * (pytorch/torchtitan torchtitan/distributed/activation_checkpoint.py
 * _apply_op_sac, _get_custom_policy._custom_policy, commit cfb93265): per
 * checkpointed block forward a counter of aten.mm calls; an op of
 * _op_sac_save_list (torchtitan/models/llama3/infra/parallelize.py, 018740b7:
 * aten.mm, the SDPA variants, _c10d_functional.reduce_scatter_tensor,
 * aten.max, flex/varlen attention) is MUST_SAVE except the even-numbered mm;
 * everything else is PREFER_RECOMPUTE, re-run before the block's backward.
 * A Llama block runs its mms as wq (1), wk (2), wv (3), wo (4), w1 (5),
 * w3 (6), w2 (7) (torchtitan/models/llama3/model/model.py Attention.forward,
 * FeedForward.forward: w2(silu(w1(x)) * w3(x))), so wk, wo and w3 are re-run:
 * in plateau's fused GEMMs the kv_w columns of qkv and the ffn (up) half of
 * fc1 (recompute_n); proj whole; fc2 and the attention core kept; every
 * element-wise op re-run (norms, RoPE, SiLU-mul, residual adds: no early stop
 * assumed). The SP all_gathers are re-run too (sim/segments.c layer_tp). */
/* The Megatron-Core recompute modules (layout.h enum pl_recompute_module)
 * that re-run a block op, by the op's name: core_attn the attention core
 * (attention.py _checkpointed_attention_forward); layernorm the two block
 * norms (transformer_layer.py input_layernorm, pre_mlp_layernorm); mla_up_proj
 * qkv_up_proj_and_rope_apply's work (multi_latent_attention.py: linear_q_up_proj
 * or linear_q_proj, linear_kv_up_proj, the RoPE of q and k); mlp the dense
 * MLP (fc1, activation, fc2); moe the whole MoE layer's custom_forward
 * (moe_layer.py: router, top-k, permute, experts, unpermute and the shared
 * expert); moe_act the experts' activation (experts.py activation_recompute);
 * shared_experts the shared expert (moe_layer.py shared_experts_recompute). */
static uint32_t op_modules(const struct pl_op *op, bool mla) {
  static const struct {
    const char *name;
    uint32_t mods;
  } map[] = {
      {"norm1", PL_RCM_LAYERNORM},
      {"norm2", PL_RCM_LAYERNORM},
      {"q_up", PL_RCM_MLA_UP_PROJ},
      {"kv_up", PL_RCM_MLA_UP_PROJ},
      {"fc1", PL_RCM_MLP},
      {"swiglu", PL_RCM_MLP},
      {"gelu", PL_RCM_MLP},
      {"fc2", PL_RCM_MLP},
      {"router", PL_RCM_MOE},
      {"router_fp32_casts", PL_RCM_MOE},
      {"router_random", PL_RCM_MOE},
      {"router_topk", PL_RCM_MOE},
      {"router_aux_loss", PL_RCM_MOE},
      {"moe_preprocess", PL_RCM_MOE},
      {"moe_counts_d2h", PL_RCM_MOE},
      {"permute", PL_RCM_MOE},
      {"sort_chunks", PL_RCM_MOE},
      {"expert_pad", PL_RCM_MOE},
      {"unsort_chunks", PL_RCM_MOE},
      {"expert_fc1", PL_RCM_MOE},
      {"expert_fc1_bias", PL_RCM_MOE},
      {"expert_clamp", PL_RCM_MOE | PL_RCM_MOE_ACT}, /* inside the checkpointed bias_act_func */
      {"expert_act", PL_RCM_MOE | PL_RCM_MOE_ACT},
      {"expert_fc2", PL_RCM_MOE},
      {"expert_bias", PL_RCM_MOE},
      {"unpermute", PL_RCM_MOE},
      {"shared_fc1", PL_RCM_MOE | PL_RCM_SHARED_EXPERTS},
      {"shared_act", PL_RCM_MOE | PL_RCM_SHARED_EXPERTS},
      {"shared_fc2", PL_RCM_MOE | PL_RCM_SHARED_EXPERTS},
      {"moe_shared_add", PL_RCM_MOE}, /* postprocess, inside custom_forward */
  };
  if (op->kind == PL_OP_ATTENTION)
    return PL_RCM_CORE_ATTN;
  /* latent attention's q (no q_lora_rank) and its RoPE are inside the up-projection
   * function; a standard block's rope is not a module of its own */
  if (mla && (strcmp(op->name, "q") == 0 || strcmp(op->name, "rope") == 0))
    return PL_RCM_MLA_UP_PROJ;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(op->name, map[i].name) == 0)
      return map[i].mods;
  return 0;
}

static void mark_recompute(struct pl_op *ops, int n, const struct pl_layout *l, int64_t kv_w,
                           bool mla) {
  enum pl_recompute r = l->recompute;
  uint32_t mods = pl_layout_recompute_modules(l);
  for (int i = 0; i < n; i++) {
    ops[i].recompute = r == PL_RECOMPUTE_FULL || (op_modules(&ops[i], mla) & mods) != 0;
    ops[i].recompute_n = 0;
    if (r != PL_RECOMPUTE_OPS)
      continue;
    const char *nm = ops[i].name;
    if (ops[i].kind == PL_OP_MEMORY || strcmp(nm, "proj") == 0) {
      ops[i].recompute = true;
    } else if (strcmp(nm, "qkv") == 0) {
      ops[i].recompute = true;
      ops[i].recompute_n = kv_w;
    } else if (strcmp(nm, "fc1") == 0) {
      ops[i].recompute = true;
      ops[i].recompute_n = ops[i].n / 2;
    }
  }
}

int pl_op_te_column(const struct pl_op *op) {
  return strcmp(op->name, "qkv") == 0 ? 0 : strcmp(op->name, "fc1") == 0 ? 1 : -1;
}

int pl_op_tp_linear(const struct pl_op *op) {
  int k = pl_op_te_column(op);
  if (k >= 0)
    return k;
  return strcmp(op->name, "proj") == 0 ? 2 : strcmp(op->name, "fc2") == 0 ? 3 : -1;
}

bool pl_op_moe_mlp_node(const struct pl_op *op) {
  static const char *const names[] = {"sort_chunks", "expert_pad",  "expert_fc1", "expert_fc1_bias",
                                      "expert_clamp", "expert_act", "expert_fc2", "expert_bias",
                                      "unsort_chunks"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(op->name, names[i]) == 0)
      return true;
  return false;
}

bool pl_op_moe_combine_node(const struct pl_op *op) {
  return strcmp(op->name, "unpermute") == 0 || strcmp(op->name, "resid2") == 0 ||
         strcmp(op->name, "moe_shared_add") == 0;
}

bool pl_op_mtp_attn_node(const struct pl_op *op) {
  return strcmp(op->name, "mtp_embed") == 0 || strcmp(op->name, "mtp_norms") == 0 ||
         strcmp(op->name, "mtp_eh_proj") == 0;
}

bool pl_op_node_free(const struct pl_op *op) {
  return strcmp(op->name, "fp8_casts") == 0 || strcmp(op->name, "grad_accum") == 0;
}

bool pl_op_recompute_part(const struct pl_op *op, struct pl_op *part) {
  if (!op->recompute)
    return false;
  *part = *op;
  if (op->kind != PL_OP_GEMM || op->recompute_n <= 0 || op->recompute_n >= op->n)
    return true;
  gemm(part, op->name, op->m, op->recompute_n, op->k);
  part->share = op->share;
  part->recompute = true;
  return true;
}

/* Latent attention's RoPE as Megatron-Core's fused path runs it
 * (megatron/core/fusions/fused_mla_yarn_rope_apply.py, core_v0.15.0 ..
 * core_v0.17.0; multi_latent_attention.py qkv_up_proj_and_rope_apply with
 * config.apply_rope_fusion, which Megatron-Bridge's performance scripts set for
 * every model: v0.2.2 utils/helpers.py, v0.3.0 utils/overrides.py
 * _set_common_perf_overrides). Per token, a heads of k_dim (nope) + emb (rope)
 * query/key width and v value width, 2 B each:
 *  - ApplyMLARotaryEmbQ: rotary_fwd_q_kernel rotates q's rope part in place
 *    (reads and writes a * emb); the backward kernel the same on the gradient;
 *  - ApplyMLARotaryEmbKV: rotary_fwd_kv_kernel reads kv_up's output
 *    (a * (k_dim + v)) and k_pos_emb (emb) and writes new tensors o_key
 *    (a * (emb + k_dim)) and o_value (a * v); rotary_bwd_kv_kernel reads dk and
 *    dv and writes d_kv (a * (k_dim + v)) and d_emb (emb).
 * Two kernels each way. The split of kv into key and value is thereby this
 * kernel's, so latent attention has no separate split backward (segments.c
 * qkv_grad_cat). Megatron-Core's unfused path (torch.split, torch.cat,
 * .contiguous()) and torchtitan's torch.cat copy at least as many bytes. */
static void mla_rope_bytes(struct pl_op *op, double tokens, double a, double k_dim, double v,
                           double emb) {
  double q = 4.0 * tokens * a * emb;
  double kv = BF16_BYTES * tokens * (a * (2.0 * k_dim + 2.0 * v + emb) + emb);
  op->fwd_bytes = q + kv;
  op->bwd_bytes = q + kv;
  kernels(op, 2, 2);
}

/* The attention half of a block up to resid1: projections, RoPE, the core
 * (windowed and, for the model's full-attention blocks, whole-sequence),
 * output projection. Latent attention (DeepSeek-V2/V3, Megatron-Core
 * MLASelfAttention): the down-projections and their norms are replicated on
 * every tp rank (q_down and kv_down are not split), the up-projections and
 * the output projection are split by heads. */
static int attention_ops(const struct pl_model *m, const struct pl_layout *l,
                         const struct dims *d, struct pl_op *ops, int n) {
  int64_t a = m->heads / d->tp, hd = m->head_dim;
  int64_t vd = m->v_head_dim > 0 ? m->v_head_dim : hd, h = m->hidden;
  int64_t q_w = a * hd, kv_w = m->kv_heads / d->tp * hd;
  if (m->kv_lora_rank > 0) {
    int64_t r_q = m->q_lora_rank, r_kv = m->kv_lora_rank, rope = m->qk_rope_dim;
    if (r_q > 0) {
      gemm(&ops[n++], "q_down", d->tokens, r_q, h);
      gemm(&ops[n++], "q_up", d->tokens, q_w, r_q);
    } else {
      gemm(&ops[n++], "q", d->tokens, q_w, h);
    }
    gemm(&ops[n++], "kv_down", d->tokens, r_kv + rope, h);
    elementwise(&ops[n++], "mla_norms", (double)d->tokens * (double)(r_q + r_kv), RMS_NORM);
    gemm(&ops[n++], "kv_up", d->tokens, a * (hd - rope + vd), r_kv);
    elementwise(&ops[n], "rope", (double)d->tokens * (double)(a * rope + rope), ROPE);
    mla_rope_bytes(&ops[n++], (double)d->tokens, (double)a, (double)(hd - rope), (double)vd,
                   (double)rope);
  } else {
    gemm(&ops[n++], "qkv", d->tokens, q_w + 2 * kv_w, h);
    int64_t ng = m->kv_heads / d->tp;
    if (l->gqa_query_copy && ng > 1 && ng < a) { /* GQA_QUERY_COPY */
      elementwise(&ops[n], "q_copy", (double)d->tokens * (double)q_w, GQA_QUERY_COPY);
      strided(&ops[n++], (double)d->tokens * (double)q_w, GQA_QUERY_COPY_STRIDED);
    }
    /* Q/K RMSNorm (model qk_norm, Qwen3): Megatron-Core's SelfAttention
     * get_query_key_value_tensors runs self.q_layernorm(query) and
     * self.k_layernorm(key) (TENorm under the TE layer spec with qk_layernorm,
     * megatron/core/models/gpt/gpt_layer_specs.py; core_v0.14.0 .. core_v0.16.0)
     * between the QKV GEMM and RoPE, each normalising every head's head_dim
     * vector: two norm kernels over the q and k widths (backward three each,
     * as norm_op); HF Qwen3Attention runs q_norm and k_norm the same way */
    if (m->qk_norm) {
      norm_op(&ops[n], "qk_norm", (double)d->tokens * (double)(q_w + kv_w), m);
      kernels(&ops[n++], 2, 6);
    }
    if (m->pos == PL_POS_ROTARY) {
      elementwise(&ops[n], "rope", (double)d->tokens * (double)(q_w + kv_w),
                  m->rope_yarn ? ROPE_UNFUSED : ROPE);
      if (m->rope_yarn) {
        kernels(&ops[n], ROPE_UNFUSED_FWD_KERNELS, ROPE_UNFUSED_BWD_KERNELS);
        strided(&ops[n], (double)d->tokens * (double)(q_w + kv_w), ROPE_UNFUSED_STRIDED);
      }
      n++;
    }
  }
  bool split = m->full_attn_layers > 0 && d->s_k < d->seq;
  double full = split ? (double)m->full_attn_layers / (double)m->layers : 0.0;
  attention(&ops[n++], "attn", m, l, d, d->s_k, 1.0 - full);
  if (split)
    attention(&ops[n++], "attn_full", m, l, d, d->seq, full);
  gemm(&ops[n++], "proj", d->tokens, h, a * vd);
  return n;
}

/* An MLP's activation op: SWIGLU or GELU fused, or Megatron-Core's gated
 * activation as eager kernels (layout.jit_eager: SWIGLU_EAGER; weighted, the
 * routed experts' SWIGLU_WEIGHTED_EAGER, or for GPT-OSS's clamped quick-GEGLU,
 * model glu_clamp, QUICK_GEGLU_WEIGHTED_EAGER; a dense clamped GLU keeps the
 * fused cost: no preset has one). */
/* Which kernels of the eager chains above take PyTorch's non-vectorized path
 * (a chunk half or a [rows, 1] weight broadcast as an operand: CUDALoops.cuh
 * gpu_kernel_impl_nocast), per output element. SWIGLU_EAGER: forward
 * F.silu(y_1) (4 B) and * y_2 (6 B), 2 elements, 10 B; backward the two
 * sigmoid(y_1) (4 B each), y_1 * (1 - s) (6), ... * y_2 (6) and F.silu(y_1)
 * (4): 5 elements, 24 B. These are the kernels Together's B200 profile names
 * at::elementwise sigmoid, BinaryFunctor and silu (the gpu files'
 * strided_elementwise). The weighted form adds * weights forward and
 * g * weights and the re-run swiglu(y) backward: 3 elements, 14 B and 8, 38 B.
 * GPT-OSS's quick-GEGLU on the cat's halves: forward 1.702 * y_1 (4 B), y_1 * s
 * (6), y_2 + offset (4), * weights (4): 4 elements, 18 B; backward g * weights
 * (4), quick_geglu_back's two 1.702 * y_1 (4 each), y_2 + offset (4), g * y_1
 * (6), and the re-run quick_geglu (14 B, 3): 8 elements, 36 B. */
static const struct strided_cost SWIGLU_EAGER_STRIDED = {2, 5, 10, 24};
static const struct strided_cost SWIGLU_WEIGHTED_EAGER_STRIDED = {3, 8, 14, 38};
static const struct strided_cost QUICK_GEGLU_WEIGHTED_EAGER_STRIDED = {4, 8, 18, 36};

static int act_op(const struct pl_model *m, const struct pl_layout *l, struct pl_op *ops, int n,
                  const char *name, double elems, bool weighted) {
  bool gated = m->mlp == PL_MLP_SWIGLU;
  if (!gated || !l->jit_eager || (m->glu_clamp && !weighted)) {
    elementwise(&ops[n++], name, elems, gated ? SWIGLU : GELU);
    return n;
  }
  if (m->glu_clamp) {
    elementwise(&ops[n], name, elems, QUICK_GEGLU_WEIGHTED_EAGER);
    strided(&ops[n], elems, QUICK_GEGLU_WEIGHTED_EAGER_STRIDED);
    kernels(&ops[n++], QUICK_GEGLU_WEIGHTED_EAGER_FWD_KERNELS,
            QUICK_GEGLU_WEIGHTED_EAGER_BWD_KERNELS);
    return n;
  }
  elementwise(&ops[n], name, elems, weighted ? SWIGLU_WEIGHTED_EAGER : SWIGLU_EAGER);
  strided(&ops[n], elems, weighted ? SWIGLU_WEIGHTED_EAGER_STRIDED : SWIGLU_EAGER_STRIDED);
  if (weighted)
    kernels(&ops[n++], SWIGLU_WEIGHTED_EAGER_FWD_KERNELS, SWIGLU_WEIGHTED_EAGER_BWD_KERNELS);
  else
    kernels(&ops[n++], SWIGLU_EAGER_FWD_KERNELS, SWIGLU_EAGER_BWD_KERNELS);
  return n;
}

/* The dense MLP, run by share of the blocks. */
static int dense_mlp_ops(const struct pl_model *m, const struct pl_layout *l, const struct dims *d,
                         double share, struct pl_op *ops, int n) {
  int64_t ffn = m->ffn_hidden / d->tp;
  bool gated = m->mlp == PL_MLP_SWIGLU;
  int first = n;
  gemm(&ops[n++], "fc1", d->tokens, gated ? 2 * ffn : ffn, m->hidden);
  n = act_op(m, l, ops, n, gated ? "swiglu" : "gelu", (double)d->tokens * (double)ffn, false);
  gemm(&ops[n++], "fc2", d->tokens, m->hidden, ffn);
  for (int i = first; i < n; i++)
    ops[i].share = share;
  return n;
}

/* Router: top-k over softmax or sigmoid scores of the expert logits, in fp32
 * (Megatron-Core TopKRouter with --moe-router-dtype fp32, as the Megatron-Bridge
 * and ModelZoo MoE recipes set it): read and write the logits, write the
 * probabilities (fwd); backward reads the probabilities and their gradient. */
static const struct elem_cost ROUTER_TOPK = {6, 6, 3 * FP32_BYTES, 3 * FP32_BYTES};
/* The router with Megatron-Core's moe_router_dtype "fp32" (model router_fp32):
 * RouterGatingLinearFunction (moe_utils.py, core_v0.14.0 .. core_v0.17.0)
 * saves the bf16 input and weight; its forward is a bf16 GEMM with fp32
 * output (te_general_gemm(weight, inp, fp32)), but its backward first casts
 * both up (inp.to(fp32), weight.to(fp32): read 2 B, write 4 B per element) and
 * casts the two gradients back (grad_input[0].to(input dtype),
 * grad_weight[0].to(weight dtype): read 4 B, write 2 B): 12 B per element of
 * the input (tokens x h) and of the weight (experts x h), four kernels,
 * nothing in the forward. Its two fp32 x fp32 GEMMs run as TF32
 * (Transformer Engine cublaslt_gemm.cu cublas_gemm: CUBLAS_COMPUTE_32F_FAST_TF32
 * "only for pure FP32 GEMM", v2.9 .. v2.12): timed as the bf16 router GEMM,
 * not modelled. */
static const struct elem_cost ROUTER_FP32_CASTS = {0, 0, 0, 12};
/* The router's switch load-balancing loss (model router_aux_loss) as
 * Megatron-Core runs it with moe_router_load_balancing_type "aux_loss", a
 * coefficient > 0 and moe_router_fusion (core_v0.15.0 router.py
 * TopKRouter.routing and _apply_aux_loss, attach_and_log_load_balancing_loss;
 * moe_utils.py compute_routing_scores_for_aux_loss, switch_load_balancing_loss_func,
 * save_to_aux_losses_tracker, MoEAuxLossAutoScaler; Transformer Engine v2.9
 * pytorch/router.py and common/fused_router/fused_*.cu, one kernel per fused
 * function and pass), per MoE block and micro-batch, tp = cp = 1:
 *  forward 5 kernels: the scores and routing map for the loss
 *    (fused_score_for_moe_aux_loss_fwd: read the logits, write fp32 scores and
 *    the bool map, 9 B per element), routing_map.sum(dim=0) (reads the map,
 *    1 B), the loss (fused_moe_aux_loss_fwd: reads the scores, 4 B), the
 *    logged copy aux_loss / coeff and the tracker's += (scalars);
 *  backward 5 kernels: MoEAuxLossAutoScaler's ones_like(aux_loss) * scale
 *    (scalars), fused_moe_aux_loss_bwd (writes the scores' gradient, 4 B),
 *    fused_score_for_moe_aux_loss_bwd (reads it and the saved scores, writes
 *    the logits' gradient, 12 B) and autograd's sum of the logits' two
 *    gradients (the top-k's and this one: reads 8 B, writes 4 B).
 * Their bytes are small; where the host issues each launch (the host floor,
 * docs/step-model.md 2.6) the ten launches are what they cost. Per element of
 * tokens x experts; the scalars' kernels carry no bytes; FLOPs not counted
 * (a few per element of memory-bound kernels, outside the model's totals). */
static const struct elem_cost ROUTER_AUX_LOSS = {0, 0, 14, 28};
/* The router without moe_router_fusion (layout.moe_router_unfused; Megatron-Core
 * core_v0.16.0 moe_utils.py topk_routing_with_score_function and
 * compute_routing_scores_for_aux_loss with fused=False, router.py
 * TopKRouter.routing), on the path a sigmoid router with an expert bias and
 * group-limited top-k takes (Nemotron 3 Nano's recipe: score function sigmoid,
 * moe_router_enable_expert_bias, num_groups 1, group_topk 1, a scaling factor,
 * the one model whose runs turn the fusion off), in eager PyTorch kernels over
 * the fp32 tokens x experts scores. Bytes per element of tokens x experts
 * (fp32 4 B, bool 1 B) of the full-size kernels only; the kernels on tokens x
 * top_k or on experts are counted as launches with no bytes.
 *  forward (27 kernels, 82 B): sigmoid (8 B), + expert_bias (8), group_limited_topk's
 *    topk over the groups' experts (read 4), the group mask's expand().reshape() copy
 *    (write 4), .bool() (5), ~ (2), masked_fill (9), topk (4); zeros_like(logits) and
 *    the out-of-place scatter of the probabilities (write 4, copy 8); the routing map:
 *    zeros_like, .int(), scatter's copy, .bool() (4 + 8 + 8 + 5); _apply_expert_bias's
 *    routing_map.sum(dim=0) (1); small: the group scores' sum, top-k, zeros and
 *    scatter_, gather, the normalising sum, add and divide, the scaling, the scatters
 *    themselves and the bias counts' add (11);
 *  backward (9 kernels, 16 B): the scatter's gather, the scaling's and the
 *    normalisation's products and sum (small), gather's backward zeros (write 4) and
 *    scatter_add, sigmoid_backward (read 4 + 4, write 4).
 * The fused router (ROUTER_TOPK) does all of it in one kernel each way. */
static const struct elem_cost ROUTER_TOPK_UNFUSED = {6, 6, 82, 16};
#define ROUTER_TOPK_UNFUSED_FWD_KERNELS 27
#define ROUTER_TOPK_UNFUSED_BWD_KERNELS 9
/* The load-balancing loss without moe_router_fusion (model router_aux_loss,
 * layout.moe_router_unfused; aux_loss or seq_aux_loss, which reshapes the same
 * tensors): compute_routing_scores_for_aux_loss with a sigmoid score function,
 * get_tokens_per_expert_and_token_count, switch_load_balancing_loss_func
 * (core_v0.16.0 moe_utils.py, fused=False), attach_and_log_load_balancing_loss.
 *  forward (20 kernels, 54 B): sigmoid (8), the sum over experts (read 4), the
 *    divide (8), topk (4), the routing map's zeros_like, .int(), scatter copy and
 *    .bool() (25), routing_map.sum(dim=0) (1), probs.sum(dim=0) (4); small: the
 *    epsilon add, the scatter, the token counts, the loss's product, sum and
 *    coefficient, the division by the batch, the tracker's two (9);
 *  backward (12 kernels, 48 B): MoEAuxLossAutoScaler's and the loss's small
 *    kernels (4), the divide's backward for the scores (write 4) and for the sum
 *    (a product, 8, and its sum over experts, 4), the broadcast add of the two
 *    (8), sigmoid_backward (12), the logits' two gradients added (12).
 * The fused loss (ROUTER_AUX_LOSS) is 5 kernels each way. */
static const struct elem_cost ROUTER_AUX_LOSS_UNFUSED = {0, 0, 54, 48};
#define ROUTER_AUX_LOSS_UNFUSED_FWD_KERNELS 20
#define ROUTER_AUX_LOSS_UNFUSED_BWD_KERNELS 12
/* The benchmarks' forced balance (layout.moe_force_balance: Megatron-Core
 * moe_router_force_load_balancing, which every Megatron-Bridge MoE performance
 * config sets, v0.2.2 .. v0.5.0 scripts/performance/configs/<model>/
 * <model>_llm_pretrain.py): TopKRouter.forward replaces the gating logits by
 * apply_random_logits(logits) before the routing (core_v0.15.0 router.py;
 * moe_utils.py RandomSTE.forward: logits.clone().normal_(generator=...), a
 * copy (read and write the logits) and an in-place fill (write them): two
 * kernels; RandomSTE.backward returns the gradient as it is: no kernel). Per
 * element of tokens x experts in the logits' dtype (fp32 with router_fp32,
 * else the 16-bit activations); no FLOPs counted. */
#define ROUTER_RANDOM_KERNELS 2
/* NeMo AutoModel's FakeBalancedGate per routed copy (moe_ops, layout.moe_fake_gate):
 * the gate's 42 B in five kernels and the dispatcher input's masked_fill, 16 B
 * in two; no backward */
static const struct elem_cost FAKE_GATE = {0, 0, 42 + 16, 0};
#define FAKE_GATE_FWD_KERNELS 7
/* Token permutation (megatron/core/transformer/moe/moe_utils.py permute and
 * unpermute, fused with --moe-permute-fusion): a gather of every routed copy,
 * read and write 2 B per element; unpermute reads the copies, scales them by
 * their probability and sums the top_k copies of a token (bwd: the conjugate
 * scatter). Per element of the routed copies (tokens * top_k * h). */
static const struct elem_cost PERMUTE = {0, 0, 2 * BF16_BYTES, 2 * BF16_BYTES};
static const struct elem_cost UNPERMUTE = {2, 2, 2 * BF16_BYTES, 3 * BF16_BYTES};
/* Transformer Engine's Fp8Padding and Fp8Unpadding around the grouped GEMMs
 * (layout.moe_expert_padding; TE v2.8 module/fp8_padding.py, fp8_unpadding.py:
 * tex.fused_multi_row_padding / _unpadding, one kernel each, into a new
 * tensor): forward, the permuted input is copied into the padded rows (read
 * and write 2 B) and fc2's output back out of them (2 + 2 B): 8 B per element
 * of the routed copies; backward, the conjugate copies of the two gradients:
 * 8 B. The padding rows (under 16 or 32 per expert) and the probabilities'
 * own pad (one value per row) are left out of the bytes; the probabilities'
 * pad is a kernel of its own each way (experts.py pads permuted_probs with a
 * second quantization_padding call). */
static const struct elem_cost EXPERT_PAD = {0, 0, 4 * BF16_BYTES, 4 * BF16_BYTES};
#define EXPERT_PAD_KERNELS 3
/* The clamped GLU (model glu_clamp, GPT-OSS): Megatron-Core's fused expert
 * activation first clamps fc1's two halves in eager PyTorch and concatenates
 * them (megatron/core/fusions/fused_bias_geglu.py weighted_bias_quick_geglu_impl,
 * the same in core_v0.15.0 .. core_v0.18.0 and main d98e8a6: `x_glu, x_linear =
 * input.chunk(2, -1)`, `torch.cat((x_glu.clamp(max=c), x_linear.clamp(-c, c)), -1)`),
 * then runs the fused kernel on the copy. Per element of the activation's
 * output (fc1's output holds two): each clamp reads and writes its half (4 B),
 * the cat reads and writes both (8 B): 16 B. Backward (PyTorch autograd,
 * tools/autograd/derivatives.yaml `clamp(Tensor self, Scalar? min, Scalar?
 * max)`: `clamp_backward(grad, self, min, max)`): cat's gradient is two views;
 * clamp_backward (torch/csrc/autograd/FunctionsManual.cpp, PyTorch 2.x) is
 * not one kernel but a bool mask and a where: with max only (the glu half)
 * `where(self <= max, grad, zero)`: the compare reads 2 B and writes a 1 B
 * bool, the where reads the mask and the gradient and writes 2 B (8 B, two
 * kernels); with min and max (the linear half) `where((self >= min)
 * .logical_and_(self <= max), grad, zero)`: two compares (3 B each), the
 * in-place and (3 B) and the where (5 B): 14 B, four kernels; chunk's
 * gradient (split_backward) concatenates the two halves (8 B, one kernel):
 * 30 B, seven kernels (helper oss21; moe8 had counted each clamp_backward as
 * one 6 B pass, 20 B in three kernels); forward three (two clamps, the cat).
 * The same function then makes
 * the GLU's offset a device tensor, `torch.tensor(linear_offset,
 * dtype=input.dtype, device=input.device)`, a host-to-device copy that PyTorch
 * runs blocking, a cudaMemcpyAsync and a cudaStreamSynchronize (ATen
 * memcpy_and_sync for a copy_ with non_blocking false; pytorch/pytorch issues
 * #120996 and #190217, open in 2026-07, "torch.tensor(3.14, device=...)
 * syncs", torch.full does not): the host waits for the GPU on every call, in
 * the forward and in the forward re-run under moe_act recompute
 * (pl_op.host_sync). */
static const struct elem_cost GLU_CLAMP = {2, 2, 8 * BF16_BYTES, 15 * BF16_BYTES};
/* GLU_CLAMP's kernels: forward the two clamps and the cat; backward the
 * glu half's compare and where, the linear half's two compares, and and
 * where, and chunk's cat. */
#define GLU_CLAMP_FWD_KERNELS 3
#define GLU_CLAMP_BWD_KERNELS 7
/* Which of GLU_CLAMP's kernels take PyTorch's non-vectorized path (an operand
 * that is not contiguous: aten/src/ATen/native/cuda/CUDALoops.cuh
 * gpu_kernel_impl_nocast launches the vectorized kernel only when
 * iter.is_contiguous()): the two forward clamps read the chunk halves, views
 * with a row stride of twice their width (2 elements, 8 B); backward the three
 * compares read the same saved halves (3 elements, 9 B) and the two wheres
 * read the cat gradient's narrow slices and a 0-dim zero (2 elements, 10 B):
 * 5 elements, 19 B. The cat, its backward cat and the in-place and of two
 * contiguous masks stay vectorized. */
static const struct strided_cost GLU_CLAMP_STRIDED = {2, 5, 8.0, 19.0}; /* bytes: bf16 and bool */
/* Expert biases (model mlp_bias in an MoE block, GPT-OSS): fc1's bias is added
 * inside Transformer Engine's GroupedLinear (TEGroupedMLP builds linear_fc1 with
 * skip_bias_add=False), fc2's is returned and added weighted by each copy's
 * router probability, one expert at a time (megatron/core/transformer/moe/
 * experts.py TEGroupedMLP._apply_bias, core_v0.15.0 .. core_v0.18.0 and the
 * eager path of main d98e8a6: `torch.cat([t + b * p for t, b, p in
 * zip(torch.split(out, tokens_per_expert), biases, torch.split(probs, ...))])
 * .to(out.dtype)`). The probabilities have the router logits' dtype (TE's
 * fused_topk_with_score_function and Megatron-Core's topk_softmax_with_capacity
 * return them "in the same dtype as the logits"), bf16 here: Megatron-Bridge's
 * GPT-OSS bridge and recipes leave moe_router_dtype unset (v0.2.0 .. HEAD
 * 067f987), so the logits are bf16 and the closing .to() is a no-op. Per
 * element of fc2's output: b * p writes 2 B, the add reads 2 + 2 and writes 2,
 * the cat reads and writes 2 each: 12 B. Backward (PyTorch autograd,
 * derivatives.yaml mul: grad * other, summed to the broadcast operand's size):
 * the add and the cat pass views; grad * p summed over the rows for b and
 * grad * b summed over the columns for p, each a 2 B write and two 2 B reads:
 * 12 B; the gradient of torch.split(out, tokens_per_expert) is
 * split_with_sizes_backward, a torch.cat of the experts' gradient slices (one
 * more read and write, 4 B): 16 B. Kernels: forward two per local expert (b * p,
 * the add) and the cat; backward four per expert and the cat. */
static const struct elem_cost EXPERT_BIAS = {2, 4, 6 * BF16_BYTES, 8 * BF16_BYTES};
/* Of EXPERT_BIAS, the products with a broadcast operand run on PyTorch's
 * non-vectorized path (a stride-0 operand makes the iterator non-contiguous,
 * CUDALoops.cuh gpu_kernel_impl_nocast): forward b * p ([h] times [rows, 1]:
 * 1 element, 2 B written), backward grad * p and grad * b (2 elements, 4 B
 * each). The adds, the cats and the sums (reductions) are not. */
static const struct strided_cost EXPERT_BIAS_STRIDED = {1, 2, BF16_BYTES, 4 * BF16_BYTES};
/* The same _apply_bias with fp32 probabilities: Megatron-Core's flex
 * dispatcher hands them over as fp32 whatever the router's dtype
 * (token_dispatcher.py core_v0.16.0: _HybridEPManager.setup_metadata
 * `self.token_probs = self.token_probs.float()`, "HybridEP only supports
 * float32 probs"; _DeepepManager the same, and its get_permuted_hidden_states_
 * by_experts asserts fp32), and moe_router_dtype "fp32" (model router_fp32)
 * makes them fp32 under any dispatcher; MoELayer.routed_experts_compute passes
 * them to the experts uncast. Then `b * p` (bf16 x fp32) is fp32 (writes 4 B),
 * `t + b * p` reads 2 + 4 and writes 4, the cat reads and writes 4 each and
 * the closing .to(out.dtype) reads 4 and writes 2: 28 B, 2 kernels per local
 * expert and 2. Backward: .to()'s gradient casts the bf16 gradient up (2 + 4
 * B); per expert the add's gradient for t is cast back to bf16 by the
 * autograd engine (engine.cpp validate_outputs: 4 + 2 B), grad * p and its sum
 * for b (8 + 4 B), grad * b and its sum for p (8 + 4 B); the split's cat (4 B):
 * 40 B, 6 kernels per expert (b's [h] gradient cast back is the sixth) and 2. */
static const struct elem_cost EXPERT_BIAS_FP32 = {2, 4, 7 * FP32_BYTES, 10 * FP32_BYTES};
/* The same broadcast products in fp32: b * p writes 4 B, grad * p and grad * b
 * read 4 B and write 4 B each. */
static const struct strided_cost EXPERT_BIAS_FP32_STRIDED = {1, 2, FP32_BYTES, 4 * FP32_BYTES};
/* layout.moe_fc1_bias_eager: NeMo AutoModel's GroupedExpertsDeepEP adds fc1's
 * bias after ops.gmm (grouped_gemm, no bias) with _apply_bias and no
 * probabilities (NVIDIA-NeMo/Automodel components/moe/layers.py @ 89e3a9fdd:
 * `torch.cat([t + b for t, b in zip(torch.split(out.view(-1, n),
 * tokens_per_expert), bias)]).view(shape).to(out.dtype)`, all bf16, the .to()
 * a no-op). Per element of fc1's output: t + b reads 2 and writes 2, the cat
 * reads and writes 2 each: 8 B. Backward (autograd): the cat and the add pass
 * the gradient as views for t; b's gradient sums it over the expert's rows
 * (reads 2); torch.split's gradient is split_with_sizes_backward, a cat of the
 * slices (reads and writes 2 each): 6 B. Kernels: forward one add per local
 * expert and the cat (iterating the [experts, n] bias is unbind(0): views);
 * backward one sum per expert, unbind's stack of the bias gradients and the
 * split's cat. */
static const struct elem_cost EXPERT_FC1_BIAS = {1, 1, 4 * BF16_BYTES, 3 * BF16_BYTES};
/* Of EXPERT_FC1_BIAS, t + b has a broadcast operand (b, [n] over the rows):
 * PyTorch's non-vectorized path (EXPERT_BIAS_STRIDED), one element, 4 B
 * forward; the backward's sums and cat are not. */
static const struct strided_cost EXPERT_FC1_BIAS_STRIDED = {1, 0, 2 * BF16_BYTES, 0};
/* layout.fused_grouped_mlp: cuDNN's grouped GEMMs add fc2's probability-scaled
 * bias in their epilogue; the backward's compute_grouped_dbias_dscales (TE
 * v2.16 ops/fused/backward_grouped_mlp.py, a Triton kernel) reads fc2's
 * output gradient once for the bias and probability gradients: 2 B. */
static const struct elem_cost FUSED_BIAS_GRAD = {0, 4, 0, BF16_BYTES};

/* Routed copies one expert of the busiest ep rank computes in one
 * micro-batch. Each rank routes its tokens_n tokens (sequence parallel: the
 * MoE layer sees tokens / tp) to top_k experts; with balanced routing a rank
 * holding experts / ep experts receives tokens_n * top_k of them (the ep
 * group's tokens over its experts), times etp when expert tensor parallelism
 * all-gathers them over the etp group, times the imbalance on the busiest
 * rank (layout moe_imbalance, capped by what the rank can receive). */
double pl_moe_imbalance(const struct pl_model *m, const struct pl_layout *l) {
  if (!pl_model_is_moe(m))
    return 1.0;
  int64_t local = m->experts / deg(l->ep);
  double imb = l->moe_imbalance >= 1.0 ? l->moe_imbalance : 1.0;
  /* forced balance still leaves the random logits' spread (model/moe_balance.c) */
  if (l->moe_force_balance && l->moe_random_imbalance > imb)
    imb = l->moe_random_imbalance;
  /* at most every copy that can reach the rank: top_k copies per token but
   * one per local expert, from all ep ranks (ep = 1: no imbalance across ranks) */
  int64_t reach = m->top_k < local ? m->top_k : local;
  double most = (double)deg(l->ep) * (double)reach / (double)m->top_k;
  return imb < most ? imb : most;
}

int64_t pl_recompute_stage_blocks(const struct pl_model *m, const struct pl_layout *l, int64_t s) {
  int64_t n = pl_layout_stage_layers(l, m->layers, s);
  if (l->recompute != PL_RECOMPUTE_FULL)
    return 0;
  if (l->recompute_uniform) /* every block, in groups (memory.c) */
    return n;
  if (l->recompute_every > 0)
    return n / l->recompute_every;
  if (l->recompute_layers > 0) {
    int64_t pp = deg(l->pp), k = 0;
    for (int64_t c = 0; c < deg(l->vp); c++) {
      int64_t chunk = pl_layout_chunk_layers(l, m->layers, c * pp + s, NULL);
      k += chunk < l->recompute_layers ? chunk : l->recompute_layers;
    }
    return k;
  }
  return n;
}

double pl_recompute_share(const struct pl_model *m, const struct pl_layout *l) {
  if (l->recompute != PL_RECOMPUTE_FULL)
    return 0.0;
  if (l->recompute_uniform || (l->recompute_every <= 0 && l->recompute_layers <= 0))
    return 1.0;
  int64_t n = pl_layout_stage_layers(l, m->layers, 0);
  return n > 0 ? (double)pl_recompute_stage_blocks(m, l, 0) / (double)n : 1.0;
}

static int64_t expert_rows(const struct pl_model *m, const struct pl_layout *l,
                           const struct dims *d) {
  int64_t local = m->experts / deg(l->ep);
  double imb = pl_moe_imbalance(m, l);
  double copies = (double)d->tokens_n * (double)m->top_k * (double)deg(l->etp) * imb;
  double rows = ceil(copies / (double)(local > 0 ? local : 1));
  return rows >= 1.0 ? (int64_t)rows : 1;
}

/* An MoE block's MLP part after its router, from ops[n] on (moe_ops; first:
 * the block's first MoE op, whose share the ops up to the last take). */
static int moe_experts_ops(const struct pl_model *m, const struct pl_layout *l,
                           const struct dims *d, double share, struct pl_op *ops, int n,
                           int first) {
  int64_t local = m->experts / deg(l->ep), fe = m->expert_ffn / deg(l->etp);
  int64_t rows = expert_rows(m, l, d), h = m->hidden;
  /* the dispatched tokens' and the routed experts' width: moe_latent's for
   * a latent MoE (moe_latent.c), h otherwise */
  int64_t w = pl_model_moe_width(m);
  double copies = (double)d->tokens_n * (double)m->top_k * (double)w;
  bool gated = m->mlp == PL_MLP_SWIGLU;
  /* latent MoE: fc1_latent_proj on the rank's tokens before the dispatch,
   * a duplicated TELinear (full weight, no tp collective; moe_latent.c) */
  if (m->moe_latent > 0)
    gemm(&ops[n++], "latent_fc1", d->tokens_n, w, h);
  /* the alltoall dispatcher's counts, permutation and sort (moe_dispatch.c) */
  double received = (double)rows * (double)local * (double)w; /* the copies this rank computes */
  n = model_moe_a2a_preprocess(m, l, (double)d->tokens_n, ops, n);
  elementwise(&ops[n], "permute", copies, PERMUTE);
  model_moe_a2a_permute(l, &ops[n++]);
  n = model_moe_a2a_sort(m, l, "sort_chunks", received, ops, n);
  /* TE's per-expert padding under FP8/FP4 (EXPERT_PAD): not when HybridEP's
   * dispatch already padded the counts (pad_multiple, core_v0.16.0) */
  if (l->moe_expert_padding && l->dtype != PL_DTYPE_BF16 && l->dispatch != PL_MOE_HYBRIDEP) {
    elementwise(&ops[n], "expert_pad", received, EXPERT_PAD);
    kernels(&ops[n++], EXPERT_PAD_KERNELS, EXPERT_PAD_KERNELS);
  }
  gemm_group(&ops[n++], "expert_fc1", rows, gated ? 2 * fe : fe, w, local, share);
  /* layout.fused_grouped_mlp: the GLU (clamp included), its backward and the
   * biases run in the grouped GEMMs' epilogues (layout.h) */
  bool fused = l->fused_grouped_mlp;
  if (m->mlp_bias && l->moe_fc1_bias_eager && !fused) {
    double e1 = (double)rows * (double)local * (double)(gated ? 2 * fe : fe);
    elementwise(&ops[n], "expert_fc1_bias", e1, EXPERT_FC1_BIAS);
    strided(&ops[n], e1, EXPERT_FC1_BIAS_STRIDED);
    kernels(&ops[n++], (int)local + 1, (int)local + 2);
  }
  /* layout.moe_act_compiled: the clamp is inside the compiled activation kernel */
  if (gated && m->glu_clamp && !fused && !l->moe_act_compiled) {
    elementwise(&ops[n], "expert_clamp", (double)rows * (double)local * (double)fe, GLU_CLAMP);
    strided(&ops[n], (double)rows * (double)local * (double)fe, GLU_CLAMP_STRIDED);
    kernels(&ops[n], GLU_CLAMP_FWD_KERNELS, GLU_CLAMP_BWD_KERNELS);
    ops[n++].host_sync = true; /* GLU_CLAMP: the offset's blocking copy */
  }
  if (!fused)
    n = act_op(m, l, ops, n, "expert_act", (double)rows * (double)local * (double)fe, true);
  gemm_group(&ops[n++], "expert_fc2", rows, w, fe, local, share);
  if (m->mlp_bias) { /* per local expert: two products and their sums */
    /* fp32 probabilities: the flex dispatcher's, or an fp32 router's (EXPERT_BIAS_FP32) */
    bool p32 = !fused && (m->router_fp32 || PL_MOE_IS_FLEX(l->dispatch));
    elementwise(&ops[n], "expert_bias", (double)rows * (double)local * (double)w,
                fused ? FUSED_BIAS_GRAD : p32 ? EXPERT_BIAS_FP32 : EXPERT_BIAS);
    if (!fused)
      strided(&ops[n], (double)rows * (double)local * (double)h,
              p32 ? EXPERT_BIAS_FP32_STRIDED : EXPERT_BIAS_STRIDED);
    kernels(&ops[n++], fused ? 0 : 2 * (int)local + (p32 ? 2 : 1),
            fused ? 1 : p32 ? 6 * (int)local + 2 : 4 * (int)local + 1);
  }
  n = model_moe_a2a_sort(m, l, "unsort_chunks", received, ops, n);
  elementwise(&ops[n++], "unpermute", copies, UNPERMUTE);
  if (m->moe_latent > 0) /* fc2_latent_proj after the combine (moe_latent.c) */
    gemm(&ops[n++], "latent_fc2", d->tokens_n, h, w);
  if (m->shared_ffn > 0) {
    int64_t sf = m->shared_ffn / d->tp;
    gemm(&ops[n++], "shared_fc1", d->tokens, gated ? 2 * sf : sf, h);
    n = act_op(m, l, ops, n, "shared_act", (double)d->tokens * (double)sf, false);
    gemm(&ops[n++], "shared_fc2", d->tokens, h, sf);
    /* the shared experts' output joins the routed one: MoELayer.postprocess
     * `output = output + shared_expert_output` (moe_layer.py core_v0.16.0;
     * core_v0.14.0 combine), one add of the block's hidden_states shape
     * (tokens_n: sequence-parallel shard, as the residual). Its backward has no
     * kernel of its own, but the MoE input feeds both the shared experts and
     * the router/dispatch, so autograd sums its two gradients: one add each
     * way, RESIDUAL's bytes. Not a "shared_" name: it runs after the combine,
     * not with the shared experts (pass_ops.c fwd_order) */
    elementwise(&ops[n++], "moe_shared_add", (double)d->tokens_n * (double)h, RESIDUAL);
  }
  for (int i = first; i < n; i++)
    ops[i].share = share;
  return n;
}

/* An MoE block's MLP part on one rank, run by share of the blocks. */
static int moe_ops(const struct pl_model *m, const struct pl_layout *l, const struct dims *d,
                   double share, struct pl_op *ops, int n) {
  int64_t h = m->hidden;
  int first = n;
  if (l->moe_fake_gate) {
    /* NeMo AutoModel's FakeBalancedGate (layout.moe_fake_gate;
     * NVIDIA-NeMo/Automodel components/moe/layers.py FakeBalancedGate.forward,
     * 89e3a9fdd .. 36044ad3d, noise 0): no weight, no GEMM, no top-k, no aux
     * loss; per routed copy (tokens x top_k) torch.ones (fp32, write 4 B),
     * / top_k (read 4, write 4), .type_as(x) (read 4, write 2), arange
     * (int64, write 8), % experts (read 8, write 8): 42 B in five kernels;
     * then GroupedExpertsDeepEP.forward's indices.masked_fill(~token_mask)
     * (read 8, write 8, and the per-token mask) in two: FAKE_GATE. Nothing
     * needs a gradient. Named "router": the block's routing op (pass_ops.c). */
    elementwise(&ops[n], "router", (double)d->tokens_n * (double)m->top_k, FAKE_GATE);
    kernels(&ops[n++], FAKE_GATE_FWD_KERNELS, 0);
    return moe_experts_ops(m, l, d, share, ops, n, first);
  }
  /* Megatron-Core's router is a plain 16-bit parameter, not a Transformer
   * Engine module: TopKRouter.gating (megatron/core/transformer/moe/router.py)
   * calls router_gating_linear, whose RouterGatingLinearFunction
   * (moe_utils.py, core_v0.14.0 .. core_v0.17.0) hands the unquantized input
   * and weight to te_general_gemm: a 16-bit GEMM under any FP8/FP4 recipe,
   * with no quantize of its operands (segments.c fp8_casts skips it). */
  gemm(&ops[n], "router", d->tokens_n, m->experts, h);
  ops[n++].high_precision = true;
  if (m->router_fp32) {
    elementwise(&ops[n], "router_fp32_casts", (double)(d->tokens_n + m->experts) * (double)h,
                ROUTER_FP32_CASTS);
    kernels(&ops[n++], -1, 4);
  }
  if (l->moe_force_balance) { /* ROUTER_RANDOM_KERNELS */
    double b = m->router_fp32 ? FP32_BYTES : BF16_BYTES;
    elementwise(&ops[n], "router_random", (double)d->tokens_n * (double)m->experts,
                (struct elem_cost){0, 0, 3 * b, 0});
    kernels(&ops[n++], ROUTER_RANDOM_KERNELS, 0);
  }
  /* the dispatcher's wait for the token counts: layout.moe_host_sync (moe_sync.c) */
  bool unfused = l->moe_router_unfused; /* ROUTER_TOPK_UNFUSED, ROUTER_AUX_LOSS_UNFUSED */
  elementwise(&ops[n], "router_topk", (double)d->tokens_n * (double)m->experts,
              unfused ? ROUTER_TOPK_UNFUSED : ROUTER_TOPK);
  if (unfused)
    kernels(&ops[n], ROUTER_TOPK_UNFUSED_FWD_KERNELS, ROUTER_TOPK_UNFUSED_BWD_KERNELS);
  n++;
  if (m->router_aux_loss) {
    elementwise(&ops[n], "router_aux_loss", (double)d->tokens_n * (double)m->experts,
                unfused ? ROUTER_AUX_LOSS_UNFUSED : ROUTER_AUX_LOSS);
    kernels(&ops[n++], unfused ? ROUTER_AUX_LOSS_UNFUSED_FWD_KERNELS : 5,
            unfused ? ROUTER_AUX_LOSS_UNFUSED_BWD_KERNELS : 5);
  }
  return moe_experts_ops(m, l, d, share, ops, n, first);
}

/* The 16-bit share of ops[first, n)'s GEMMs (pl_bf16_block_share,
 * layout.bf16_last_blocks): each FP8 / FP4 GEMM splits into a copy at 16-bit
 * (pl_op.high_precision) run by frac of its blocks and the rest; all of them
 * at 16-bit when frac is 1. Returns the new count. */
static int split_16bit(struct pl_op *ops, int first, int n, double frac) {
  if (frac <= 0.0)
    return n;
  int end = n;
  for (int i = first; i < end; i++) {
    if (ops[i].kind != PL_OP_GEMM || ops[i].high_precision)
      continue;
    if (frac >= 1.0 || n >= PL_MAX_LAYER_OPS) {
      ops[i].high_precision = frac >= 1.0 ? true : ops[i].high_precision;
      continue;
    }
    double share = ops[i].share > 0 ? ops[i].share : 1.0;
    ops[n] = ops[i];
    ops[n].share = share * frac;
    ops[n++].high_precision = true;
    ops[i].share = share * (1.0 - frac);
  }
  return n;
}

/* A hybrid stack's average block (model.hybrid_pattern, mamba.c): the
 * pre-norm and residual add of every block, then each mixer kind's ops
 * weighted by the share of blocks of that kind. */
static int hybrid_layer_ops(const struct pl_model *m, const struct pl_layout *l,
                            const struct dims *d, struct pl_op *ops) {
  double norm_elems = (double)d->tokens_n * (double)m->hidden;
  /* shares over every block the step runs, MTP modules' included (hybrid_mtp.c) */
  double s_mamba = pl_hybrid_share(m, l, 'M');
  double s_attn = pl_hybrid_share(m, l, '*');
  double s_mlp = pl_hybrid_share(m, l, '-');
  double s_moe = pl_hybrid_share(m, l, 'E');
  int n = 0, first;
  norm_op(&ops[n++], "norm1", norm_elems, m);
  /* each kind's GEMMs split by its 16-bit share (split_16bit) */
  if (s_mamba > 0) {
    first = n;
    n = model_mamba_ops(m, d->tp, d->mbs, d->s_q, d->tokens, ops, n);
    for (int i = first; i < n; i++)
      ops[i].share = s_mamba;
    n = split_16bit(ops, first, n, pl_bf16_block_share(m, l, 'M'));
  }
  if (s_attn > 0) {
    first = n;
    n = attention_ops(m, l, d, ops, n);
    for (int i = first; i < n; i++)
      ops[i].share *= s_attn;
    n = split_16bit(ops, first, n, pl_bf16_block_share(m, l, '*'));
  }
  if (s_mlp > 0) {
    first = n;
    n = dense_mlp_ops(m, l, d, s_mlp, ops, n);
    n = split_16bit(ops, first, n, pl_bf16_block_share(m, l, '-'));
  }
  if (s_moe > 0) {
    first = n;
    n = moe_ops(m, l, d, s_moe, ops, n);
    n = split_16bit(ops, first, n, pl_bf16_block_share(m, l, 'E'));
  }
  elementwise(&ops[n++], "resid1", norm_elems, RESIDUAL);
  model_bf16_modules_apply(l, ops, n); /* layout.bf16_modules (quant_modules.c) */
  mark_recompute(ops, n, l, m->kv_heads / d->tp * m->head_dim, false);
  return n;
}

int pl_layer_ops(const struct pl_model *m, const struct pl_layout *l,
                 struct pl_op ops[PL_MAX_LAYER_OPS]) {
  struct dims d = dims_of(m, l);
  if (pl_model_is_hybrid(m))
    return hybrid_layer_ops(m, l, &d, ops);
  double norm_elems = (double)d.tokens_n * (double)m->hidden;
  int64_t moe = pl_model_moe_layers(m);
  double moe_share = (double)moe / (double)m->layers;
  int n = 0;
  norm_op(&ops[n++], "norm1", norm_elems, m);
  n = attention_ops(m, l, &d, ops, n);
  /* layout.parallel_block: y = x + Attention(LN(x)) + MLP(LN(x)) (GPT-J;
   * PaLM, Chowdhery et al. 2022 Sec. 2 "Parallel Layers"; MegaScale, Jiang
   * et al. NSDI 2024 Sec. 3.1) as GPT-NeoX runs it (megatron/model/
   * transformer.py ParallelTransformerLayer.forward, gpt_j_residual with
   * gpt_j_tied: one input_layernorm; the MLP's bias_dropout_fn adds its
   * output onto attention_output, both row-parallel outputs unreduced
   * (parallel_output), over the full tokens of the rank; then `residual +
   * self.reduce(output)`, the residual add after the one tp reduction):
   * norm2 and resid1 go, "branch_sum" (RESIDUAL's bytes over d.tokens, not
   * the sequence-split d.tokens_n) comes before resid2. The attention
   * output's own bias-dropout (residual None) is not listed: dropout stays
   * fused as everywhere in this list. Dense, non-MoE blocks only (the
   * layout check refuses the rest). */
  if (l->parallel_block && moe == 0) {
    n = dense_mlp_ops(m, l, &d, 1.0, ops, n);
    elementwise(&ops[n++], "branch_sum", (double)d.tokens * (double)m->hidden, RESIDUAL);
    elementwise(&ops[n++], "resid2", norm_elems, RESIDUAL);
    n = split_16bit(ops, 0, n, pl_bf16_block_share(m, l, 0));
    model_bf16_modules_apply(l, ops, n);
    n = model_lora_layer_ops(m, l, ops, n);
    mark_recompute(ops, n, l, m->kv_heads / d.tp * m->head_dim, m->kv_lora_rank > 0);
    return n;
  }
  if (moe > 0 && (m->out_bias || m->linear_bias)) { /* RESIDUAL_BIAS: the unfused bias add */
    elementwise(&ops[n], "resid1", norm_elems, RESIDUAL_BIAS);
    strided(&ops[n], norm_elems, RESIDUAL_BIAS_STRIDED);
    kernels(&ops[n++], 2, 2);
  } else {
    elementwise(&ops[n++], "resid1", norm_elems, RESIDUAL);
  }
  norm_op(&ops[n++], "norm2", norm_elems, m);
  if (moe < m->layers)
    n = dense_mlp_ops(m, l, &d, 1.0 - moe_share, ops, n);
  if (moe > 0)
    n = moe_ops(m, l, &d, moe_share, ops, n);
  elementwise(&ops[n++], "resid2", norm_elems, RESIDUAL);
  n = split_16bit(ops, 0, n, pl_bf16_block_share(m, l, 0));
  model_bf16_modules_apply(l, ops, n); /* layout.bf16_modules (quant_modules.c) */
  n = model_lora_layer_ops(m, l, ops, n); /* layout.task lora: finetune.c */
  mark_recompute(ops, n, l, m->kv_heads / d.tp * m->head_dim, m->kv_lora_rank > 0);
  return n;
}

/* Vocab-parallel embedding: each tp rank looks up all tokens in its vocabulary
 * slice (rows outside it give zeros) before the tp reduction. */
int pl_embed_ops(const struct pl_model *m, const struct pl_layout *l,
                 struct pl_op ops[PL_MAX_LAYER_OPS]) {
  struct dims d = dims_of(m, l);
  double elems = (double)d.tokens * (double)m->hidden;
  elementwise(&ops[0], "embed", elems, m->pos == PL_POS_LEARNED ? EMBED_POS : EMBED);
  int64_t rows = (m->vocab + d.tp - 1) / d.tp;
  embed_table_fill(&ops[0], 1.0, d.tokens, rows, m->hidden);
  if (m->tied_embeddings && deg(l->pp) == 1 && !l->grad_accum_fusion) {
    /* A table tied to the LM head on one stage gets two gradients in one
     * backward, the head's weight gradient and this lookup's: PyTorch's
     * autograd sums them in the InputBuffer of the node they meet at
     * (torch/csrc/autograd/input_buffer.cpp accumulate: one add reading both
     * and writing one, 6 B per 16-bit table element), when the embedding's
     * backward, the step's last, arrives (the same rule as segments.c
     * qkv_grad_sum): eager PyTorch (MPT's SharedEmbedding F.linear, HF's
     * tied lm_head under FSDP) and Megatron-LM's parallel_lm_logits of
     * 2020-21 (F.linear on the word embeddings' weight). Not with
     * layout.grad_accum_fusion: Megatron's fused head writes its gradient
     * into main_grad and hands autograd None or a placeholder (the versions
     * differ; not counted). With pp > 1 the two copies sit on different
     * stages and an all_reduce joins them instead. */
    ops[0].bwd_bytes += 3.0 * BF16_BYTES * (double)rows * (double)m->hidden;
    ops[0].bwd_kernels += 1;
  }
  ops[0].recompute = false;
  if (l->task == PL_RUN_LORA) { /* the frozen table gets no gradient (finetune.c) */
    ops[0].bwd_flops = 0;
    ops[0].bwd_bytes = 0;
  }
  return 1;
}

/* Final norm, LM head over this rank's vocabulary slice (padded up to a
 * multiple of tp, as Megatron pads it) and the vocab-parallel cross-entropy. */
int pl_head_ops(const struct pl_model *m, const struct pl_layout *l,
                struct pl_op ops[PL_MAX_LAYER_OPS]) {
  struct dims d = dims_of(m, l);
  int64_t vocab_shard = (m->vocab + d.tp - 1) / d.tp;
  int n = 0;
  norm_op(&ops[n++], "final_norm", (double)d.tokens_n * (double)m->hidden, m);
  gemm(&ops[n], "lm_head", d.tokens, vocab_shard, m->hidden);
  ops[n].high_precision = l->head_16bit; /* layout.h head_16bit: Megatron-Core's output layer */
  if (l->task == PL_RUN_LORA)
    model_op_freeze(&ops[n]); /* the frozen output layer: dgrad only (finetune.c) */
  n++;
  elementwise(&ops[n++], "loss", (double)d.tokens * (double)vocab_shard, XENT);
  if (l->mtp_layers > 0) {
    /* The MTP modules' own work beside their transformer block (a block of
     * the chunk, pl_layout_chunk_layers), per module (Megatron-Core
     * megatron/core/transformer/multi_token_prediction.py, HEAD d98e8a6:
     * MultiTokenPredictionLayer._get_embeddings looks up the shifted tokens'
     * embedding; _concat_embeddings normalizes both inputs (enorm, hnorm) and
     * projects [e; h] with eh_proj, a ColumnParallelLinear 2h -> h; _postprocess
     * applies final_layernorm; process_mtp_loss runs the shared output layer
     * and the cross-entropy again). Same shapes for every module: counted k
     * times in one op. */
    double k = (double)l->mtp_layers, tok_h = (double)d.tokens * (double)m->hidden;
    double tok_n_h = (double)d.tokens_n * (double)m->hidden;
    elementwise(&ops[n], "mtp_embed", k * tok_h, m->pos == PL_POS_LEARNED ? EMBED_POS : EMBED);
    embed_table_fill(&ops[n++], k, d.tokens, vocab_shard, m->hidden); /* the shared table */
    norm_op(&ops[n++], "mtp_norms", 2.0 * k * tok_n_h, m);
    gemm_group(&ops[n++], "mtp_eh_proj", d.tokens, m->hidden / d.tp, 2 * m->hidden,
               l->mtp_layers, 1.0);
    norm_op(&ops[n++], "mtp_final_norm", k * tok_n_h, m);
    gemm_group(&ops[n], "mtp_lm_head", d.tokens, vocab_shard, m->hidden, l->mtp_layers, 1.0);
    ops[n++].high_precision = l->head_16bit;
    elementwise(&ops[n++], "mtp_loss", k * (double)d.tokens * (double)vocab_shard, XENT);
  }
  for (int i = 0; i < n; i++)
    ops[i].recompute = false;
  return n;
}
