/* memory.c: bytes per GPU during a training step, for the busiest pipeline
 * stage. Derivations: docs/model.md "Memory".
 *
 * Model states: mixed-precision AdamW as Megatron-LM keeps it with bf16
 * (docs/source/api-guide/dist_optimizer.md, "bf16 param, fp32 grads": 18 B
 * per parameter, 6 + 12/d with the distributed optimizer): bf16 parameters
 * 2 B, fp32 main gradients 4 B, fp32 master weights + Adam m + v 12 B. ZeRO
 * shards them over shard_group * cp GPUs (context-parallel ranks hold the same
 * weights; Megatron and torchtitan shard over dp x cp): zero1 the optimizer
 * states, zero2 also the gradients, zero3 also the parameters; ddp none.
 *
 * Activations: Korthikanti et al. 2022 Table 2 per block, generalised
 * (pl_memory_layer_activation_bytes), times the micro-batches a stage holds
 * at its peak: 1f1b stage i holds min(pp - i, m); interleaved rank i holds
 * min(2 (pp - i - 1) + (v - 1) pp + 1, m v) chunk-micro-batches of 1/v of its
 * blocks (Megatron's warm-up count; rank 0 gives Korthikanti Sec. 4.2.3's
 * p (1 + (p - 1)/(p v))); gpipe holds all m; pp = 1 holds one.
 * First stage adds the embedding dropout mask; last stage the final-norm and
 * LM-head inputs and the fp32 logits (Korthikanti Sec. 4.3), 16-bit ones
 * under Transformer Engine's fused cross-entropy (layout.te_cross_entropy). Full recompute
 * adds the working set of one re-run block, selective the re-run scores, ops
 * (torchtitan per-op SAC) what its saved tensors lack of a whole block; a
 * micro-batch's head and its re-run block are freed and made in turn, so the
 * last stage holds the larger of the two.
 *
 * Other: FSDP/ZeRO unsharded units (zero3: the current and the prefetched
 * unit's bf16 parameters plus one unit's fp32 gradients; Megatron FSDP's
 * block units with the modules outside them kept gathered,
 * layout.fsdp_block_units; DeepSpeed 2021's
 * per-module fetch instead with layout.zero3_list_copy_s,
 * deepspeed_working_elems; zero2: one unit's
 * fp32 gradients before its reduce-scatter; with pp > 1 and
 * layout.fsdp_pp_unsharded the whole stage's bf16 parameters and fp32
 * gradients), the SP all-gather buffer, the
 * pipeline send/recv buffers, ring-attention K/V buffers, and an allowance
 * for the framework: 1 GiB fixed (CUDA context, cuBLAS workspaces, NCCL
 * buffers) plus 5% of everything else for caching-allocator fragmentation.
 * Both allowance numbers are assumptions, not measurements.
 * Under FP8/MXFP8/NVFP4 the GEMMs' saved inputs are Transformer Engine's
 * quantized copies (layer_act).
 * Transformer Engine FP8 parameters (Megatron FSDP fp8_param_gather,
 * pl_layout_te_fp8_params) keep the blocks' GEMM weights at 1 B, sharded
 * and gathered.
 * The first block in its backward adds the larger of its MLP's (fc2 input
 * gradient, mlp_bwd_extra) and eager attention's (score gradient,
 * eager_attention_bwd_extra) activation gradients.
 * Ignored: optimizer-step temporaries, the other activation-gradient buffers
 * (hidden width; MoE and hybrid blocks), fp8 weight copies. */
#include <plateau/flops.h>
#include <plateau/memory.h>

#include <stdio.h>
#include <string.h>

#include "model/constants.h"
#include "model/model_int.h"

#define FP32_LOGIT_BYTES 4.0 /* logits upcast for the loss (Korthikanti Sec. 4.3) */
/* layout.te_cross_entropy: TE's fused cross-entropy keeps the 16-bit logits
 * (its gradient written into them in place) instead of an fp32 copy */
#define TE_XENT_LOGIT_BYTES 2.0
#define FRAMEWORK_FIXED_BYTES (1024.0 * 1024.0 * 1024.0) /* assumption */
#define FRAGMENTATION 0.05                               /* assumption */

static int64_t deg(int64_t v) { return v > 0 ? v : 1; }

static int64_t seq_of(const struct pl_model *m, const struct pl_layout *l) {
  return l->seq > 0 ? l->seq : m->seq_len;
}

/* ------------------------------------------------------------------ */
/* Activations of one block                                            */

/* Tokens of one micro-batch on one GPU: mbs * seq / cp. */
/* What divides a block's "replicated" activations (the block input, norm
 * outputs, dropout masks): sequence parallelism shards them over tp. */
static double sp_div(const struct pl_layout *l) {
  return l->sp && deg(l->tp) > 1 ? (double)deg(l->tp) : 1.0;
}

static double local_tokens(const struct pl_model *m, const struct pl_layout *l) {
  return (double)deg(l->mbs) * (double)(seq_of(m, l) / deg(l->cp));
}

/* The per-token bytes of the attention scores: eager attention keeps softmax
 * output (2 B), and with dropout its mask (1 B) and output (2 B), for every
 * key of every local head; FlashAttention keeps one fp32 log-sum-exp per
 * query and head. */
/* The keys each query attends to: the sequence, or the sliding window. */
static double attention_keys(const struct pl_model *m, const struct pl_layout *l) {
  int64_t seq = seq_of(m, l);
  return (double)(m->sliding_window > 0 && m->sliding_window < seq ? m->sliding_window : seq);
}

static double scores_bytes_per_token(const struct pl_model *m, const struct pl_layout *l) {
  double heads = (double)(m->heads / deg(l->tp));
  if (!l->eager_attention)
    return 4.0 * heads;
  return (m->dropout ? 5.0 : 2.0) * heads * attention_keys(m, l);
}

/* An MoE block against the dense one, averaged over the blocks: instead of
 * the dense MLP's inputs (mlp * f per token, / tp), the router's fp32
 * probabilities, and on the busiest rank, for each of its routed copies
 * (tokens / tp * top_k * imbalance, times etp gathered) the expert fc1 input
 * (e h: e the GEMM input bytes of layer_act), the activation's and fc2's
 * inputs (mlp * expert_ffn / etp); plus the shared expert's inputs
 * (mlp * shared_ffn / tp). Megatron-Core keeps these for the grouped GEMMs'
 * backward (GroupedMLP, TEGroupedMLP). Under FP8, MXFP8 and NVFP4 TE's
 * GroupedLinear saves the fc1 input as the quantized copy it made for the
 * forward GEMM, column-wise data only (TE v2.10 module/grouped_linear.py
 * _GroupedLinear.forward: inputmats = tex.split_quantize(...),
 * update_usage(rowwise_usage=False, columnwise_usage=True), saved through
 * prepare_for_saving), not the 16-bit tokens: Megatron-Core's TEGroupedMLP
 * asks for the original input only when it offloads expert_fc1
 * (transformer/moe/experts.py TEGroupedMLP.__init__, set_save_original_input,
 * core_v0.16.0). */
/* Per routed copy, the clamped GLU's concatenated copy of fc1's output (model
 * glu_clamp: weighted_bias_quick_geglu_impl's torch.cat, flops.c GLU_CLAMP),
 * which the fused activation saves for its backward while the clamps keep fc1's
 * output itself: 2 * expert_ffn / etp bf16 values. */
static double glu_clamp_bytes(const struct pl_model *m, double etp) {
  return m->glu_clamp ? 2.0 * 2.0 * (double)m->expert_ffn / etp : 0.0;
}

static double moe_act_delta(const struct pl_model *m, const struct pl_layout *l, double sb,
                            double e, double mlp) {
  double t = (double)deg(l->tp), etp = (double)deg(l->etp), h = (double)m->hidden;
  double share = (double)pl_model_moe_layers(m) / (double)m->layers;
  double tok = sb / t;
  double copies = tok * (double)m->top_k * etp * pl_moe_imbalance(m, l);
  double moe = tok * 4.0 * (double)m->experts +
               copies * (e * h + mlp * (double)m->expert_ffn / etp + glu_clamp_bytes(m, etp)) +
               sb * mlp * (double)m->shared_ffn / t;
  double dense = sb * mlp * (double)m->ffn_hidden / t;
  return share * (moe - dense);
}

/* What Megatron-Core's selective recompute modules (layout.recompute_modules)
 * free of one block's activations, in layer_act's terms (sb tokens, e the
 * GEMM input bytes, mlp the MLP bytes per ffn element). A module re-run with
 * tensor_parallel.checkpoint keeps only its input; one re-run with
 * CheckpointWithoutOutput discards its output once the consumer has run
 * (under FP8 the consumer GEMM saves that output unquantized, TE's
 * set_save_original_input, so the whole saved copy goes):
 *   core_attn     the softmax statistics / scores (attention.py);
 *   layernorm     the two norm outputs, the QKV and fc1 / router inputs (e each);
 *   mla_up_proj   Q, K and V, the core attention's saved inputs;
 *   mlp           the dense MLP's internals (activation and fc2 inputs) on the
 *                 dense blocks;
 *   moe           everything moe_act_delta adds for the MoE layer (router
 *                 probabilities, routed copies, expert and shared expert
 *                 internals) on the MoE blocks;
 *   moe_act       the experts' fc2 input (the activation output);
 *   shared_experts the shared expert's internals. */
static double modules_freed(const struct pl_model *m, const struct pl_layout *l, uint32_t mods,
                            double sb, double e, double mlp, double rep_div) {
  double t = (double)deg(l->tp), etp = (double)deg(l->etp), h = (double)m->hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double share = pl_model_is_moe(m) ? (double)pl_model_moe_layers(m) / (double)m->layers : 0.0;
  double freed = 0.0;
  if (mods & PL_RCM_CORE_ATTN)
    freed += sb * scores_bytes_per_token(m, l);
  if (mods & PL_RCM_LAYERNORM)
    freed += sb * 2.0 * e * h / rep_div;
  if ((mods & PL_RCM_MLA_UP_PROJ) && m->kv_lora_rank > 0)
    freed += sb * 2.0 * (q + 2.0 * kv) / t;
  if (mods & PL_RCM_MLP)
    freed += (1.0 - share) * sb * mlp * (double)m->ffn_hidden / t;
  if (share <= 0.0)
    return freed;
  double tok = sb / t, copies = tok * (double)m->top_k * etp * pl_moe_imbalance(m, l);
  double shared = sb * mlp * (double)m->shared_ffn / t;
  if (mods & PL_RCM_MOE)
    return freed + share * (tok * 4.0 * (double)m->experts +
                            copies * (e * h + mlp * (double)m->expert_ffn / etp +
                                      glu_clamp_bytes(m, etp)) +
                            shared);
  if (mods & PL_RCM_MOE_ACT) /* and the clamped GLU's copy, inside the checkpoint */
    freed += share * copies * (e * (double)m->expert_ffn / etp + glu_clamp_bytes(m, etp));
  if (mods & PL_RCM_SHARED_EXPERTS)
    freed += share * shared;
  return freed;
}

/* What fine-grained activation offloading (layout.offload_modules) moves to
 * the host from one MoE block: its routed copies times offload.c's bytes a
 * copy */
static double offload_moe_block(const struct pl_model *m, const struct pl_layout *l, double sb,
                                double e, double mlp) {
  double t = (double)deg(l->tp), etp = (double)deg(l->etp);
  double copies = sb / t * (double)m->top_k * etp * pl_moe_imbalance(m, l);
  return copies * model_offload_copy_bytes(m, l, e, mlp, etp, glu_clamp_bytes(m, etp));
}

/* A hybrid Mamba-2 stack's average block (model.hybrid_pattern, mamba.c),
 * without recompute or with selective recompute, in layer_act's terms: each
 * block keeps its norm input (2 B) and its first GEMM's input (e); the
 * attention blocks Q, K, V, the proj input and the scores statistics; the
 * Mamba blocks what their mixer saves (model_mamba_act_bytes_per_token);
 * the MLP blocks their MLP inputs; the MoE blocks moe_act_delta's MoE part.
 * Selective recompute frees modules_freed's bytes, less what a two-norm
 * block has and a single-mixer one lacks (one norm output, the scores and
 * the dense MLP of the blocks without them). */
static double hybrid_layer_act(const struct pl_model *m, const struct pl_layout *l,
                               enum pl_recompute r, double e, double mlp) {
  double t = (double)deg(l->tp), sb = local_tokens(m, l), L = (double)m->layers;
  double rep_div = sp_div(l);
  double h = (double)m->hidden, f = (double)m->ffn_hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double s_attn = (double)pl_model_kind_layers(m, '*') / L;
  double s_mamba = (double)pl_model_kind_layers(m, 'M') / L;
  double s_mlp = (double)pl_model_kind_layers(m, '-') / L;
  double s_moe = (double)pl_model_kind_layers(m, 'E') / L;
  double proj = e < 2.0 && !l->eager_attention ? 2.0 + e : e;
  double scores = sb * scores_bytes_per_token(m, l), dense = sb * mlp * f / t;
  double attn = sb * (2.0 * (q + 2.0 * kv) + proj * q) / t + scores;
  double bytes = sb * (2.0 + e) * h / rep_div + s_attn * attn +
                 s_mamba * sb * model_mamba_act_bytes_per_token(m, t, e) + s_mlp * dense;
  if (s_moe > 0)
    bytes += moe_act_delta(m, l, sb, e, mlp) + s_moe * dense;
  if (r != PL_RECOMPUTE_SELECTIVE)
    return bytes;
  uint32_t mods = l->recompute_modules != 0 ? l->recompute_modules : (uint32_t)PL_RCM_CORE_ATTN;
  double freed = modules_freed(m, l, mods, sb, e, mlp, rep_div);
  if (mods & PL_RCM_LAYERNORM)
    freed -= sb * e * h / rep_div;
  if (mods & PL_RCM_CORE_ATTN)
    freed -= (1.0 - s_attn) * scores;
  if (mods & PL_RCM_MLP)
    freed -= (1.0 - s_moe - s_mlp) * dense;
  return bytes - freed;
}

static double layer_act_kept(const struct pl_model *m, const struct pl_layout *l,
                             enum pl_recompute r);
static void saved_gemm_bytes(const struct pl_model *m, const struct pl_layout *l, double *e,
                             double *mlp);

/* One block's activations on the GPU: what it saves, less what offloading
 * moves to the host (offload_moe_block, on the share of MoE blocks) */
static double layer_act(const struct pl_model *m, const struct pl_layout *l, enum pl_recompute r) {
  double bytes = layer_act_kept(m, l, r);
  if (l->offload_modules == 0 || !pl_model_is_moe(m) || r == PL_RECOMPUTE_FULL ||
      r == PL_RECOMPUTE_OPS)
    return bytes;
  double e, mlp;
  saved_gemm_bytes(m, l, &e, &mlp);
  double share = (double)pl_model_moe_layers(m) / (double)m->layers;
  return bytes - share * offload_moe_block(m, l, local_tokens(m, l), e, mlp);
}

/* e: bytes of a saved GEMM input element (16-bit, or TE's quantized copy);
 * mlp: bytes per MLP ffn element, the activation input (gated: gate and up,
 * bf16) and the fc2 input (e) */
static void saved_gemm_bytes(const struct pl_model *m, const struct pl_layout *l, double *e,
                             double *mlp) {
  bool hp_saved = l->dtype == PL_DTYPE_BF16 || pl_layout_fp8_tensorwise(l);
  *e = hp_saved ? 2.0 : pl_dtype_element_bytes(l->dtype);
  *mlp = (m->mlp == PL_MLP_SWIGLU ? 4.0 : 2.0) + *e;
}

static double layer_act_kept(const struct pl_model *m, const struct pl_layout *l,
                             enum pl_recompute r) {
  double t = (double)deg(l->tp), sb = local_tokens(m, l);
  double rep_div = sp_div(l);
  double h = (double)m->hidden, f = (double)m->ffn_hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  if (r == PL_RECOMPUTE_FULL)
    return 2.0 * sb * h / rep_div; /* the block input only */
  if (r == PL_RECOMPUTE_OPS) {
    /* torchtitan per-op SAC (flops.c mark_recompute): the checkpoint's input
     * (2h, / tp with SP), the saved mm outputs wq (2q), wv (2kv), w1 (2f),
     * sharded by tp, and w2 (2h: its output before the tp reduction is
     * whole on every rank), the SDPA output (2q / tp) with its log-sum-exp,
     * and with SP the two reduce_scatter outputs (2h / tp each) */
    double saved = 2.0 * h / rep_div + 2.0 * (2.0 * q + kv + f) / t + 2.0 * h +
                   (l->sp && t > 1 ? 4.0 * h / t : 0.0);
    return sb * (saved + scores_bytes_per_token(m, l));
  }
  /* The four GEMMs with weights keep their input for the weight gradient.
   * In 16-bit that is the bf16 tensor (2 B). Under FP8, MXFP8 and NVFP4
   * (Transformer Engine recipes, layout.h) TE keeps only the quantized copy
   * it made for the forward GEMM, e bytes an element with its scales
   * (pl_dtype_element_bytes): TE 2.x transformer_engine/pytorch/module/
   * linear.py _Linear.forward ("Discard row-wise data since it is not
   * needed in backward pass"; saved_inputmat = inputmat, the quantized
   * tensor) and layernorm_linear.py (ln_out_to_save = ln_out, produced
   * quantized by the fused norm). So the bf16 norm outputs (QKV and fc1
   * inputs) and the activation output (fc2 input) are not kept; the
   * attention output stays bf16 where the fused attention kernel saves it
   * for its own backward (FlashAttention / cuDNN save O), and the proj
   * GEMM's quantized copy comes on top (docs/model.md "Memory"). */
  /* fp8-tensorwise (torchao Float8Linear, layout.h) saves the 16-bit input
   * instead: torchao/float8/float8_linear.py matmul_with_hp_or_float8_args
   * ctx.save_for_backward(input_hp, weight_hp_t), cast again in backward */
  double e, mlp;
  saved_gemm_bytes(m, l, &e, &mlp);
  /* norm1 in, norm2 in (2 B each), QKV in, fc1 in (e) + two dropout masks (1 B) */
  double rep = (4.0 + 2.0 * e) * h + (m->dropout ? 2.0 * h : 0.0);
  /* Q, K, V; proj in (e, plus the bf16 attention output a fused kernel
   * keeps when that is not the same tensor) */
  double proj = e < 2.0 && !l->eager_attention ? 2.0 + e : e;
  if (pl_model_is_hybrid(m))
    return hybrid_layer_act(m, l, r, e, mlp);
  double shard = 2.0 * (q + 2.0 * kv) + proj * q + mlp * f;
  double bytes = sb * (rep / rep_div + shard / t);
  if (pl_model_is_moe(m))
    bytes += moe_act_delta(m, l, sb, e, mlp);
  bytes += sb * scores_bytes_per_token(m, l);
  if (r == PL_RECOMPUTE_SELECTIVE) {
    uint32_t mods = l->recompute_modules != 0 ? l->recompute_modules : (uint32_t)PL_RCM_CORE_ATTN;
    bytes -= modules_freed(m, l, mods, sb, e, mlp, rep_div);
  }
  return bytes;
}

/* Eager attention's backward (layout.eager_attention): what one block holds
 * at its core attention's backward beyond what it saves (layer_act_kept
 * without recompute), for one micro-batch. The gradient of the probabilities
 * is a new b x heads/tp x s x keys 16-bit tensor: the bmm with V's backward
 * allocates it while the bmm's saved input (the dropout output) is alive, and
 * the dropout's backward allocates the next one before autograd frees the
 * first (PyTorch frees a node's saved tensors and its incoming gradient once
 * the node has run: torch/csrc/autograd/engine.cpp call_function,
 * fn.release_variables() unless the graph is kept); the fused softmax's
 * backward then writes its gradient in place (NVIDIA/Megatron-LM v2.5, Aug 2021, megatron/model/transformer.py
 * ParallelAttention.forward: baddbmm into torch.empty, scale_mask_softmax,
 * attention_dropout, bmm; megatron/fused_kernels/
 * scaled_upper_triang_masked_softmax_cuda.cu bwd_cuda: "backward pass is
 * completely in-place"). So the peak is the saved scores plus one 2-byte
 * gradient per element; without dropout and without the fused softmax,
 * PyTorch's softmax backward allocates a second one (4 B). By then the
 * block's backward has freed every tensor saved after the core attention
 * (the proj input, the second norm's and the MLP's inputs, the two dropout
 * masks); what is still held is the first norm's input (2 B), the QKV input
 * (e), Q, K, V and the scores. The extra is what that exceeds the block's
 * saved bytes, 0 when the freed part is larger. Gradients of hidden width
 * (the residual stream's) are left out, as everywhere in this file.
 * FlashAttention and cuDNN keep no s x s tensor: 0. Hybrid stacks: 0 (not
 * derived). */
static double eager_attention_bwd_extra(const struct pl_model *m, const struct pl_layout *l) {
  if (!l->eager_attention || pl_model_is_hybrid(m))
    return 0.0;
  double t = (double)deg(l->tp), sb = local_tokens(m, l);
  double rep_div = sp_div(l);
  double h = (double)m->hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double e, mlp;
  saved_gemm_bytes(m, l, &e, &mlp);
  double grad_b = m->dropout || l->kernels == PL_KERNELS_FUSED ? 2.0 : 4.0;
  double grad = grad_b * (double)(m->heads / deg(l->tp)) * attention_keys(m, l);
  double held = (2.0 + e) * h / rep_div + 2.0 * (q + 2.0 * kv) / t + scores_bytes_per_token(m, l);
  double extra = sb * (held + grad) - layer_act_kept(m, l, PL_RECOMPUTE_NONE);
  return extra > 0.0 ? extra : 0.0;
}

/* The MLP's backward: fc2's backward allocates the gradient of its input,
 * 2 bytes per ffn element (f / tp per token; 16-bit even under FP8 recipes),
 * while the block still holds every tensor it saved except the MLP output's
 * dropout mask, freed by the dropout's backward just before (the fc2 node
 * releases its own saved input only after it has run: torch/csrc/autograd/
 * engine.cpp call_function; Megatron-LM v2.5 megatron/model/transformer.py
 * ParallelMLP.forward: dense_h_to_4h, bias_gelu_impl, dense_4h_to_h; the same
 * order in any MLP: the fc2 input gradient cannot be smaller). Under
 * selective recompute the re-run modules (rerun_b) are not re-created yet
 * when the MLP's backward runs, so they are taken off (a lower bound when
 * mlp is itself a re-run module). MoE and hybrid blocks: 0 (not derived). */
static double mlp_bwd_extra(const struct pl_model *m, const struct pl_layout *l, double rerun) {
  if (pl_model_is_moe(m) || pl_model_is_hybrid(m))
    return 0.0;
  double t = (double)deg(l->tp), sb = local_tokens(m, l);
  double rep_div = sp_div(l);
  double mask = m->dropout ? (double)m->hidden / rep_div : 0.0;
  double extra = sb * (2.0 * (double)m->ffn_hidden / t - mask) -
                 (l->recompute == PL_RECOMPUTE_SELECTIVE ? rerun : 0.0);
  return extra > 0.0 ? extra : 0.0;
}

double pl_memory_layer_activation_bytes(const struct pl_model *m, const struct pl_layout *l) {
  return layer_act(m, l, l->recompute);
}

/* ------------------------------------------------------------------ */
/* Parameters per pipeline stage                                       */

/* Blocks of stage i: its vp chunks (pl_layout_chunk_layers). */
static int64_t stage_layers(const struct pl_model *m, const struct pl_layout *l, int64_t i) {
  int64_t pp = deg(l->pp), n = 0;
  for (int64_t c = 0; c < deg(l->vp); c++)
    n += pl_layout_chunk_layers(l, m->layers, c * pp + i, NULL);
  return n;
}

static double norm_params(const struct pl_model *m) {
  return m->norm == PL_NORM_RMS ? (double)m->hidden : 2.0 * (double)m->hidden;
}

/* One block on one tp rank: matrices and the biases of column-parallel
 * layers split by tp; norms and row-parallel biases replicated. */
static double layer_params_tp(const struct pl_model *m, double t) {
  /* latent attention: its down-projections are replicated, ignored; a hybrid
   * stack's blocks (Mamba-2 in_proj, conv1d and out_proj split by heads,
   * MambaMixer): all split, the norms' h per block ignored */
  if (m->kv_lora_rank > 0 || pl_model_is_hybrid(m))
    return (double)pl_model_layer_params(m) / t;
  double h = (double)m->hidden, f = (double)m->ffn_hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double up = m->mlp == PL_MLP_SWIGLU ? 2.0 : 1.0;
  double split = h * (q + 2 * kv) + q * h + (up + 1) * h * f, rep = 2 * norm_params(m);
  if (m->linear_bias || m->qkv_bias)
    split += q + 2 * kv;
  if (m->linear_bias || m->out_bias)
    rep += h;
  if (m->linear_bias || m->mlp_bias) {
    split += up * f;
    rep += h;
  }
  return split / t + rep;
}

/* Vocab-parallel table rows on one tp rank (vocabulary padded to tp). */
static double vocab_rows(const struct pl_model *m, int64_t tp) {
  return (double)((m->vocab + tp - 1) / tp) * (double)m->hidden;
}

/* Parameters outside the blocks held by stage i: the token (and position)
 * table on the first; final norm and LM head on the last (with tied
 * embeddings and pp > 1 the last stage keeps its own copy, as Megatron does). */
static double edge_params(const struct pl_model *m, const struct pl_layout *l, int64_t i) {
  int64_t tp = deg(l->tp), pp = deg(l->pp);
  double n = 0;
  if (i == 0)
    n +=
        vocab_rows(m, tp) + (m->pos == PL_POS_LEARNED ? (double)(m->max_positions * m->hidden) : 0);
  if (i == pp - 1) {
    n += norm_params(m);
    if (!m->tied_embeddings || pp > 1)
      n += vocab_rows(m, tp);
  }
  return n;
}

/* The largest single module outside the blocks on stage i: the token table
 * (first stage) or the LM head (last stage, untied or pp > 1); Megatron FSDP
 * gathers and reduces each module's parameters on its own (recurse=False). */
static double edge_module_max(const struct pl_model *m, const struct pl_layout *l, int64_t i) {
  int64_t tp = deg(l->tp), pp = deg(l->pp);
  double embed = 0.0, head = 0.0;
  if (i == 0) /* a learned position table is a module of its own, smaller */
    embed = vocab_rows(m, tp);
  if (i == pp - 1 && (!m->tied_embeddings || pp > 1))
    head = vocab_rows(m, tp);
  return embed > head ? embed : head;
}

/* ------------------------------------------------------------------ */
/* One stage                                                           */

/* Micro-batches (in whole-stage units) whose activations stage i holds. */
static double in_flight(const struct pl_layout *l, int64_t i) {
  int64_t pp = deg(l->pp), mb = deg(l->micro_batches), v = deg(l->vp);
  if (pp == 1)
    return 1.0;
  switch (l->schedule) {
  case PL_SCHEDULE_GPIPE: return (double)mb;
  case PL_SCHEDULE_INTERLEAVED: {
    int64_t chunks = 2 * (pp - i - 1) + (v - 1) * pp + 1;
    return (double)(chunks < mb * v ? chunks : mb * v) / (double)v;
  }
  case PL_SCHEDULE_1F1B:
  default: return (double)(pp - i < mb ? pp - i : mb);
  }
}

struct stage {
  int64_t layers;
  double params, in_flight, layer_act, logits;
  double params_b, grads_b, optimizer_b, act_b, unsharded_b, comm_b, framework_b, total_b;
};

/* MoE blocks among stage i's blocks (pl_model_moe_blocks_below's rule). */
static int64_t stage_moe_blocks(const struct pl_model *m, const struct pl_layout *l, int64_t i) {
  if (!pl_model_is_moe(m))
    return 0;
  int64_t pp = deg(l->pp), n = 0;
  for (int64_t c = 0; c < deg(l->vp); c++) {
    int64_t first = 0, k = pl_layout_chunk_layers(l, m->layers, c * pp + i, &first);
    n += pl_model_moe_blocks_below(m, first + k) - pl_model_moe_blocks_below(m, first);
  }
  return n;
}

/* Stage i's routed-expert parameters on one GPU (split over etp * ep) and
 * the MoE blocks' other parameters against a dense block's (tp-split). */
static void stage_experts(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                          double *experts, double *moe_delta) {
  double moe = (double)stage_moe_blocks(m, l, i), t = (double)deg(l->tp);
  double all = (double)m->experts * (double)pl_model_expert_params(m);
  *experts = moe * all / (double)(deg(l->ep) * deg(l->etp));
  *moe_delta = moe * ((double)pl_model_moe_layer_params(m) - all -
                      (double)pl_model_layer_params(m)) / t;
}

/* DeepSpeed 2021 ZeRO-3 (layout.zero3_list_copy_s: its per-parameter path)
 * gathers per module, not per block: v0.3.16 stage3.py fetch_sub_module
 * gathers sub_module.named_parameters(recurse=False), the parameters of the
 * module about to run (a Linear's weight and bias), and release_sub_module
 * partitions them again after it unless _keep_for_later. Dense blocks with
 * standard attention only (MoE and latent attention keep the block unit). */
static bool deepspeed_module_fetch(const struct pl_model *m, const struct pl_layout *l) {
  return l->zero3_list_copy_s > 0 && !pl_model_is_moe(m) && m->kv_lora_rank <= 0;
}

/* DeepSpeed v0.3.16 stage3.py constants.py: reduce_bucket_size,
 * stage3_max_reuse_distance and stage3_prefetch_bucket_size defaults
 * (ZERO_OPTIMIZATION_REDUCE_BUCKET_SIZE_DEFAULT 5e8,
 * ZERO_OPTIMIZATION_MAX_REUSE_DISTANCE_DEFAULT 1e9,
 * ZERO_OPTIMIZATION_PREFETCH_BUCKET_SIZE_DEFAULT 5e7 elements). */
#define DS_REDUCE_BUCKET_ELEMS 5e8
#define DS_REUSE_DISTANCE_ELEMS 1e9
#define DS_PREFETCH_BUCKET_ELEMS 5e7

/* The largest parameter tensor stage i holds on one GPU: a block's QKV,
 * projection, fc1 (gate and up together when gated) or fc2 weight, the
 * token table on the first stage, an untied (or, with pp > 1, the last
 * stage's own) LM head on the last. */
static double largest_tensor(const struct pl_model *m, const struct pl_layout *l, int64_t i) {
  double t = (double)deg(l->tp), h = (double)m->hidden, f = (double)m->ffn_hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double w[4] = {h * (q + 2.0 * kv) / t, q * h / t,
                 h * f * (m->mlp == PL_MLP_SWIGLU ? 2.0 : 1.0) / t, f * h / t};
  double big = 0;
  for (int k = 0; k < 4; k++)
    big = w[k] > big ? w[k] : big;
  int64_t pp = deg(l->pp);
  double table = vocab_rows(m, deg(l->tp));
  if (i == 0 || (i == pp - 1 && (!m->tied_embeddings || pp > 1)))
    big = table > big ? table : big;
  return big;
}

/* Elements of DeepSpeed 2021 ZeRO-3's unsharded working set on stage i, at
 * its peak in backward (all 16-bit): the module's gathered weight (at a
 * gather: _allgather_param's flat_tensor, and ProcessGroupNCCL's flattened
 * output of PyTorch 1.7-1.8 allgather beside it); the full-size gradient the
 * module's backward produces (param.grad, kept whole until its bucket is
 * reduced: stage3.py reduce_independent_p_g_buckets_and_remove_grads); and
 * the bucket under reduction, a gradient larger than reduce_bucket_size
 * alone, or up to reduce_bucket_size elements and allreduce_bucket's
 * flattened copy of them (contiguous_gradients' two ipg buffers of the
 * same size likewise): a bound, max(largest tensor, 2 x the bucket). Plus
 * what stays gathered between uses: with the module trace working
 * (layout.zero3_no_reuse false) parameters reused within
 * stage3_max_reuse_distance (_keep_for_later), at most that many elements,
 * and with prefetch on up to stage3_prefetch_bucket_size more
 * (prefetch_next_sub_modules). */
static double deepspeed_working_elems(const struct pl_model *m, const struct pl_layout *l,
                                      int64_t i) {
  double big = largest_tensor(m, l, i);
  double bucket = 2.0 * DS_REDUCE_BUCKET_ELEMS;
  double w = 2.0 * big + (big > bucket ? big : bucket);
  if (!l->zero3_no_reuse)
    w += DS_REUSE_DISTANCE_ELEMS;
  if (!l->gather_no_prefetch)
    w += DS_PREFETCH_BUCKET_ELEMS;
  return w;
}

/* Optimizer state bytes per parameter: AdamW's fp32 master, m and v (12 B),
 * or Megatron-Core's precision-aware optimizer with bf16 moments
 * (layout.adam_moments_bf16): 2 + 2 B and a 4 B fp32 master, or 2 B of
 * master remainders when TE's FusedAdam holds the masters of bf16
 * parameters (no FP8 recipe: optimizer_config.py
 * use_precision_aware_optimizer_no_fp8_or_ds_fp8; FP8 delayed scaling would
 * also qualify without FP8 parameters, not modelled: 4 B kept) */
static double optimizer_bytes(const struct pl_layout *l) {
  if (!l->adam_moments_bf16)
    return OPTIMIZER_BYTES;
  double master = l->dtype == PL_DTYPE_BF16 ? MASTER_REMAINDER_BYTES : MASTER_FP32_BYTES;
  return master + 2.0 * ADAM_MOMENT_BF16_BYTES;
}

/* Model states: dense parameters sharded over shard_group * cp, routed
 * experts over the expert data-parallel group (Megatron-Core's distributed
 * optimizer shards expert parameters over expert_data_parallel_group). */
static void model_states(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                         struct stage *s) {
  double n = l->shard == PL_SHARD_DDP ? 1.0 : (double)(deg(l->shard_group) * deg(l->cp));
  double ne = l->shard == PL_SHARD_DDP ? 1.0 : (double)deg(l->edp);
  double t = (double)deg(l->tp), ex = 0, moe_delta = 0;
  s->layers = stage_layers(m, l, i);
  stage_experts(m, l, i, &ex, &moe_delta);
  double dense = (double)s->layers * layer_params_tp(m, t) + moe_delta + edge_params(m, l, i);
  s->params = dense + ex;
  s->params_b = PARAM_BYTES * (dense / (l->shard == PL_SHARD_ZERO3 ? n : 1.0) +
                               ex / (l->shard == PL_SHARD_ZERO3 ? ne : 1.0));
  /* Transformer Engine FP8 parameters (pl_layout_te_fp8_params: Megatron
   * FSDP's fp8_param_gather): the blocks' GEMM weights are kept as 1 B
   * shards, with no 16-bit copy */
  double fp8_w = pl_layout_fp8_gathered_weights(m, l), fp8_save = 0.0;
  if (pl_layout_te_fp8_params(l)) {
    fp8_save = PARAM_BYTES - pl_dtype_element_bytes(l->dtype);
    s->params_b -= fp8_save * (double)s->layers * fp8_w / (l->shard == PL_SHARD_ZERO3 ? n : 1.0);
  }
  /* ddp/zero1 with layout.grad_reduce_bf16: the gradient buffer is bf16
   * (Megatron-Core param_and_grad_buffer.py: grad dtype = fp32 only with
   * grad_reduce_in_fp32, else the parameters' dtype) */
  double grad_bytes = l->grad_reduce_bf16 && l->shard <= PL_SHARD_ZERO1 ? PARAM_BYTES : GRAD_BYTES;
  /* zero2/zero3 with layout.shard_grads_reduce_dtype (Megatron FSDP): the
   * gradient shards live in the main_grad_buffer, whose dtype is fp32 only
   * with grad_reduce_in_fp32, else the parameters' (bf16; bf16 too for FP8
   * parameters): Megatron-Core core_v0.15.0 and core_v0.16.0
   * megatron/core/distributed/fsdp/src/megatron_fsdp/param_and_grad_buffer.py
   * ParamAndGradBuffer._init_each_parameter_group_buffers (`dtype=torch.float32
   * if grad_reduce_in_fp32 else grad_dtype`); core_v0.17.0 the same through
   * mcore_fsdp_adapter.py's MixedPrecisionPolicy main_grads_dtype (fp32 with
   * grad_reduce_in_fp32, else megatron_fsdp_main_grads_dtype, default None:
   * the parameters' dtype). The fp32 master
   * weights (main_weight_buffer) and Adam's two moments stay fp32 shards
   * (OPTIMIZER_BYTES). The unit's unsharded gradient bucket below is left
   * at one fp32 unit: the Megatron-Bridge recipes that run Megatron FSDP set
   * fsdp_double_buffer (two bf16 buckets, FixedPoolAllocator size 2), the
   * same bytes. */
  if (l->grad_reduce_bf16 && l->shard_grads_reduce_dtype && l->shard >= PL_SHARD_ZERO2)
    grad_bytes = PARAM_BYTES;
  /* DeepSpeed 2021 ZeRO-3 keeps its reduced gradient partitions in the
   * parameters' 16-bit dtype: v0.3.16 stage3.py partition_previous_reduced_grads
   * allocates grads_in_partition with dtype=self.dtype (the fp16 parameters'),
   * and the fp32 copy (_prepare_fp32_grad_for_sub_group) exists only during
   * the optimizer step, after the activations are freed */
  if (l->shard == PL_SHARD_ZERO3 && deepspeed_module_fetch(m, l))
    grad_bytes = PARAM_BYTES;
  s->grads_b = grad_bytes * (dense / (l->shard >= PL_SHARD_ZERO2 ? n : 1.0) +
                             ex / (l->shard >= PL_SHARD_ZERO2 ? ne : 1.0));
  s->optimizer_b = optimizer_bytes(l) * (dense / (l->shard >= PL_SHARD_ZERO1 ? n : 1.0) +
                                      ex / (l->shard >= PL_SHARD_ZERO1 ? ne : 1.0));
  /* FSDP/ZeRO unit: one block, or the embedding / LM head when larger */
  double unit = layer_params_tp(m, t), edge = edge_params(m, l, i);
  unit = edge > unit ? edge : unit;
  if (l->shard >= PL_SHARD_ZERO2 && l->fsdp_pp_unsharded && deg(l->pp) > 1)
    /* FSDP with pipelining as torchtitan runs it (layout.fsdp_pp_unsharded;
     * src/sim/lower.c fsdp_pp_flush): the whole stage's parameters stay
     * gathered in bf16 for the step, and its gradients accumulate unsharded
     * in the reduce dtype, fp32 (FSDP2 FSDPParam.to_accumulated_grad_if_needed
     * upcasts to reduce_dtype, torch/distributed/fsdp/_fully_shard/
     * _fsdp_param.py, 2.6+; torchtitan mixed_precision_reduce "float32") until
     * the reduce_scatter after the last backward */
    s->unsharded_b = (PARAM_BYTES + GRAD_BYTES) * s->params;
  else if (l->shard == PL_SHARD_ZERO3 && deepspeed_module_fetch(m, l))
    s->unsharded_b = PARAM_BYTES * deepspeed_working_elems(m, l, i);
  else if (l->shard == PL_SHARD_ZERO3 && l->fsdp_block_units) {
    /* Megatron FSDP (layout.fsdp_block_units): the units are the blocks; the
     * embedding, final norm and LM head are gathered at 2 B on first use and
     * stay gathered (never released before the step's reset). Two block
     * units are gathered at a time (the current and the prefetched one; the
     * Bridge recipes' fsdp_double_buffer: FixedPoolAllocator size 2), at 1 B
     * for TE FP8 parameters. Two gradient buckets in the shards' dtype (the
     * same pool for main_grad) sized by a block or, when larger, the LM head
     * or embedding alone (a non-unit module's bucket, plus its unfused
     * param.grad under gradient_accumulation_fusion off, as the Bridge Llama
     * recipes set it) */
    double block = layer_params_tp(m, t), one = edge_module_max(m, l, i);
    s->unsharded_b = PARAM_BYTES * edge + 2.0 * (PARAM_BYTES * block - fp8_save * fp8_w) +
                     2.0 * grad_bytes * (block > one ? block : one);
  } else if (l->shard == PL_SHARD_ZERO3)
    /* the gathered block units at 1 B for TE FP8 parameters (fp8_save);
     * an embedding or LM-head unit stays 16-bit */
    s->unsharded_b = 2.0 * (PARAM_BYTES * unit - (unit > edge ? fp8_save * fp8_w : 0.0)) +
                     GRAD_BYTES * unit;
  else if (l->shard == PL_SHARD_ZERO2)
    s->unsharded_b = GRAD_BYTES * unit;
  else
    s->unsharded_b = 0.0;
}

/* The checkpointed groups of stage i under the uniform method: each chunk's
 * blocks in groups of N = recompute_layers (1 when 0), the last one shorter
 * when N does not divide them; *widest the largest group. */
static int64_t uniform_groups(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                              int64_t *widest) {
  int64_t pp = deg(l->pp), n = l->recompute_layers > 0 ? l->recompute_layers : 1, groups = 0;
  *widest = 0;
  for (int64_t c = 0; c < deg(l->vp); c++) {
    int64_t chunk = pl_layout_chunk_layers(l, m->layers, c * pp + i, NULL);
    groups += (chunk + n - 1) / n;
    int64_t w = chunk < n ? chunk : n;
    *widest = w > *widest ? w : *widest;
  }
  if (*widest < 1)
    *widest = 1;
  return groups;
}

static void activations(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                        struct stage *s) {
  int64_t pp = deg(l->pp), tp = deg(l->tp);
  double sb = local_tokens(m, l), h = (double)m->hidden;
  double rep_div = sp_div(l);
  s->in_flight = in_flight(l, i);
  s->layer_act = layer_act(m, l, l->recompute);
  s->act_b = s->in_flight * (double)s->layers * s->layer_act;
  int64_t rerun_blocks = 1; /* blocks whose activations a backward re-creates at once */
  if (l->recompute == PL_RECOMPUTE_FULL && l->recompute_uniform) {
    /* Megatron-Core --recompute-method uniform (TransformerBlock._checkpointed_forward):
     * a chunk's blocks checkpointed in groups of N at the group's input; a
     * group's backward re-runs its N blocks together */
    int64_t groups = uniform_groups(m, l, i, &rerun_blocks);
    s->act_b = s->in_flight * (double)groups * s->layer_act;
    s->layer_act = s->layers > 0 ? s->act_b / (s->in_flight * (double)s->layers) : s->layer_act;
  } else if (l->recompute == PL_RECOMPUTE_FULL &&
             (l->recompute_layers > 0 || l->recompute_every > 0)) {
    /* the blocks not recomputed keep all their activations (flops.h,
     * pl_recompute_stage_blocks); the layer figure is their average */
    int64_t rc = pl_recompute_stage_blocks(m, l, i);
    double kept = layer_act(m, l, PL_RECOMPUTE_NONE);
    s->act_b = s->in_flight * ((double)rc * s->layer_act + (double)(s->layers - rc) * kept);
    s->layer_act = s->layers > 0 ? s->act_b / (s->in_flight * (double)s->layers) : s->layer_act;
  }
  if (l->act_offload_layers > 0) {
    /* Megatron-Core cpu_offloading (layout.act_offload_layers; pp 1, no
     * recompute, so every block saves layer_act): Transformer Engine copies
     * the saved activations of the first N blocks to the host and frees them
     * before the forward's end, and reloads them during the backward after
     * the blocks above have freed theirs: "activation memory usage is equal
     * to (num_layers - num_offloaded_layers) * T" (TE 2.10-2.14
     * transformer_engine/pytorch/cpu_offload.py get_cpu_offload_context,
     * DefaultOffloadSynchronizer; TE 2.9's AsyncDoubleBufferGroupOffloadHandler
     * has the same peak: a block's copy is awaited one block later, and the
     * peak is the end of the forward) */
    int64_t off = l->act_offload_layers < s->layers ? l->act_offload_layers : s->layers - 1;
    if (off > 0)
      s->act_b -= s->in_flight * (double)off * s->layer_act;
  }
  if (l->offload_modules != 0 && l->recompute != PL_RECOMPUTE_FULL &&
      l->recompute != PL_RECOMPUTE_OPS) {
    /* fine-grained offloading (layout.offload_modules): one MoE block's
     * offloaded groups stay on the GPU, the last group of a chunk whose
     * backward comes next (ChunkOffloadHandler.should_bulk_offload) or the
     * group reloaded one ahead in the backward (bulk_reload) */
    double e, mlp;
    saved_gemm_bytes(m, l, &e, &mlp);
    s->act_b += offload_moe_block(m, l, local_tokens(m, l), e, mlp);
  }
  if (i == 0 && m->dropout) /* embedding dropout mask, 1 B per element */
    s->act_b += s->in_flight * sb * h / rep_div;
  s->logits = 0.0;
  double head1_b = 0.0, held = 1.0, rerun_b = 0.0; /* one micro-batch's head; the re-run block */
  if (i == pp - 1) {
    held = l->schedule == PL_SCHEDULE_GPIPE && pp > 1 ? (double)deg(l->micro_batches) : 1.0;
    double logit_b = l->te_cross_entropy ? TE_XENT_LOGIT_BYTES : FP32_LOGIT_BYTES;
    s->logits = held * logit_b * sb * (double)((m->vocab + tp - 1) / tp);
    head1_b = 2.0 * (2.0 * sb * h / rep_div) + s->logits / held; /* final norm, LM head inputs */
  }
  if (l->recompute != PL_RECOMPUTE_NONE) { /* the block being re-run */
    double rerun = layer_act(m, l, PL_RECOMPUTE_NONE) -
                   (l->recompute == PL_RECOMPUTE_FULL ? 0.0 : layer_act(m, l, l->recompute));
    rerun_b = (double)rerun_blocks * (rerun > 0.0 ? rerun : 0.0); /* ops, tp >= 16: can be < 0 */
  }
  /* the first block in its backward (re-run or not) holds on top the larger
   * of its MLP's and eager attention's activation gradients (two moments of
   * its backward); the head is freed by then */
  double att_x = eager_attention_bwd_extra(m, l), mlp_x = mlp_bwd_extra(m, l, rerun_b);
  rerun_b += att_x > mlp_x ? att_x : mlp_x;
  /* A micro-batch's head and its re-run block are never held together: its
   * backward runs the loss, LM head and final norm first, and the autograd
   * engine frees each node's saved tensors once the node has run (Megatron-LM
   * schedules.py backward_step: one torch.autograd.backward from the loss; the
   * cross entropy's saved softmax, tensor_parallel/cross_entropy.py
   * _VocabParallelCrossEntropy, goes with its node); only then does the last
   * checkpointed block reach CheckpointFunction.backward (tensor_parallel/
   * random.py) and re-run. The other held micro-batches' heads (gpipe) stay. */
  s->act_b += (held - 1.0) * head1_b + (head1_b > rerun_b ? head1_b : rerun_b);
}

static void buffers(const struct pl_model *m, const struct pl_layout *l, struct stage *s) {
  int64_t tp = deg(l->tp);
  double sb = local_tokens(m, l), h = (double)m->hidden;
  double rep_div = sp_div(l);
  s->comm_b = 0.0;
  if (l->sp && tp > 1) /* all-gathered block input before QKV / fc1 */
    s->comm_b += 2.0 * sb * h;
  if (deg(l->pp) > 1) /* one send and one receive buffer */
    s->comm_b += 2.0 * (2.0 * sb * h / rep_div);
  if (deg(l->cp) > 1) /* ring attention: double-buffered K and V of a chunk */
    s->comm_b += 2.0 * 2.0 * 2.0 * sb * (double)(m->kv_heads / tp * m->head_dim);
  double states = s->params_b + s->grads_b + s->optimizer_b + s->act_b + s->unsharded_b + s->comm_b;
  s->framework_b = FRAMEWORK_FIXED_BYTES + FRAGMENTATION * states;
  s->total_b = states + s->framework_b;
}

static void stage_compute(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                          struct stage *s) {
  memset(s, 0, sizeof *s);
  model_states(m, l, i, s);
  activations(m, l, i, s);
  buffers(m, l, s);
}

/* GiB with one decimal, none for whole numbers: "91.2 GiB", "80 GiB". */
static void fmt_gib(char *buf, size_t n, double bytes) {
  double gib = bytes / (1024.0 * 1024.0 * 1024.0);
  double tenths = (double)(int64_t)(gib * 10.0 + 0.5);
  if ((int64_t)tenths % 10 == 0)
    snprintf(buf, n, "%.0f GiB", tenths / 10.0);
  else
    snprintf(buf, n, "%.1f GiB", tenths / 10.0);
}

/* "needs 91.2 GiB > 80 GiB (optimizer states 48.0 GiB)": the largest part. */
static void explain(struct pl_memory *out) {
  const struct {
    const char *name;
    double bytes;
  } parts[] = {{"parameters", out->params_bytes},
               {"gradients", out->grads_bytes},
               {"optimizer states", out->optimizer_bytes},
               {"activations", out->activations_bytes},
               {"buffers and framework allowance", out->other_bytes}};
  size_t big = 0;
  for (size_t i = 1; i < sizeof parts / sizeof parts[0]; i++)
    if (parts[i].bytes > parts[big].bytes)
      big = i;
  char need[32], cap[32], part[32];
  fmt_gib(need, sizeof need, out->total_bytes);
  fmt_gib(cap, sizeof cap, out->capacity_bytes);
  fmt_gib(part, sizeof part, parts[big].bytes);
  snprintf(out->why, sizeof out->why, "needs %s > %s (%s %s)", need, cap, parts[big].name, part);
}

static void fill(const struct stage *s, int64_t i, const struct pl_gpu *g, struct pl_memory *out) {
  memset(out, 0, sizeof *out);
  out->params_bytes = s->params_b;
  out->grads_bytes = s->grads_b;
  out->optimizer_bytes = s->optimizer_b;
  out->activations_bytes = s->act_b;
  out->other_bytes = s->unsharded_b + s->comm_b + s->framework_b;
  out->total_bytes = s->total_b;
  out->stage = i;
  out->stage_layers = s->layers;
  out->stage_params = s->params;
  out->in_flight = s->in_flight;
  out->layer_act_bytes = s->layer_act;
  out->logits_bytes = s->logits;
  out->unsharded_bytes = s->unsharded_b;
  out->comm_bytes = s->comm_b;
  out->framework_bytes = s->framework_b;
  out->capacity_bytes = g != NULL ? g->hbm_bytes : 0.0;
  if (out->capacity_bytes <= 0) {
    snprintf(out->why, sizeof out->why, "GPU memory capacity unknown (hbm_bytes is 0)");
    return;
  }
  out->fits = out->total_bytes <= out->capacity_bytes;
  if (!out->fits)
    explain(out);
}

void pl_memory_stage(const struct pl_model *m, const struct pl_layout *l, const struct pl_gpu *g,
                     int64_t stage, struct pl_memory *out) {
  struct stage s;
  int64_t pp = deg(l->pp);
  int64_t i = stage < 0 ? 0 : (stage >= pp ? pp - 1 : stage);
  stage_compute(m, l, i, &s);
  fill(&s, i, g, out);
}

void pl_memory_compute(const struct pl_model *m, const struct pl_layout *l, const struct pl_gpu *g,
                       struct pl_memory *out) {
  struct stage best, s;
  int64_t best_i = 0;
  stage_compute(m, l, 0, &best);
  for (int64_t i = 1; i < deg(l->pp); i++) {
    stage_compute(m, l, i, &s);
    if (s.total_b > best.total_b) {
      best = s;
      best_i = i;
    }
  }
  fill(&best, best_i, g, out);
}
