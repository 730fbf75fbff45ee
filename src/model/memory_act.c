/* memory_act.c: one block's activation bytes on one GPU for one micro-batch
 * (Korthikanti et al. 2022 Table 2, generalised; docs/model.md "Memory"):
 * what the block saves for its backward under each recompute mode, less what
 * activation offloading moves to the host (model_mem_layer_act), and what its
 * first backward holds on top (model_mem_eager_attention_bwd_extra,
 * model_mem_mlp_bwd_extra). memory.c multiplies them by the stage's blocks
 * and micro-batches in flight. */
#include <plateau/flops.h>
#include <plateau/memory.h>

#include "model/memory_int.h"
#include "model/model_int.h"

/* The keys each query attends to: the sequence, or the sliding window. */
static double attention_keys(const struct pl_model *m, const struct pl_layout *l) {
  int64_t seq = seq_of(m, l);
  return (double)(m->sliding_window > 0 && m->sliding_window < seq ? m->sliding_window : seq);
}

/* The per-token bytes of the attention scores: eager attention keeps softmax
 * output (2 B), and with dropout its mask (1 B) and output (2 B), for every
 * key of every local head; FlashAttention keeps one fp32 log-sum-exp per
 * query and head. */
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
 * (e h: e the GEMM input bytes of model_mem_layer_act), the activation's and fc2's
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
  double t = (double)deg(l->tp), etp = (double)deg(l->etp);
  double share = pl_moe_block_share(m, l);
  double tok = sb / t;
  double copies = tok * (double)m->top_k * etp * pl_moe_imbalance(m, l);
  /* a latent MoE's copies are moe_latent wide, and fc2_latent_proj keeps its
   * latent-wide input (moe_latent.c); fc1_latent_proj's input is the norm
   * output the block already keeps */
  double w = (double)pl_model_moe_width(m);
  double moe = tok * 4.0 * (double)m->experts +
               copies * (e * w + mlp * (double)m->expert_ffn / etp + glu_clamp_bytes(m, etp)) +
               sb * mlp * (double)m->shared_ffn / t + tok * e * (double)m->moe_latent;
  double dense = sb * mlp * (double)m->ffn_hidden / t;
  return share * (moe - dense);
}

/* What Megatron-Core's selective recompute modules (layout.recompute_modules)
 * free of one block's activations, in model_mem_layer_act's terms (sb tokens, e the
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
  double share = pl_moe_block_share(m, l);
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
                            copies * (e * (double)pl_model_moe_width(m) +
                                      mlp * (double)m->expert_ffn / etp + glu_clamp_bytes(m, etp)) +
                            shared + tok * e * (double)m->moe_latent);
  if (mods & PL_RCM_MOE_ACT) /* and the clamped GLU's copy, inside the checkpoint */
    freed += share * copies * (e * (double)m->expert_ffn / etp + glu_clamp_bytes(m, etp));
  if (mods & PL_RCM_SHARED_EXPERTS)
    freed += share * shared;
  return freed;
}

/* What fine-grained activation offloading (layout.offload_modules) moves to
 * the host from one MoE block: its routed copies times offload.c's bytes a
 * copy */
double model_mem_offload_moe_block(const struct pl_model *m, const struct pl_layout *l, double sb,
                                   double e, double mlp) {
  double t = (double)deg(l->tp), etp = (double)deg(l->etp);
  double copies = sb / t * (double)m->top_k * etp * pl_moe_imbalance(m, l);
  return copies * model_offload_copy_bytes(m, l, e, mlp, etp, glu_clamp_bytes(m, etp));
}

/* A hybrid Mamba-2 stack's average block (model.hybrid_pattern, mamba.c),
 * without recompute or with selective recompute, in model_mem_layer_act's terms: each
 * block keeps its norm input (2 B) and its first GEMM's input (e); the
 * attention blocks Q, K, V, the proj input and the scores statistics; the
 * Mamba blocks what their mixer saves (model_mamba_act_bytes_per_token);
 * the MLP blocks their MLP inputs; the MoE blocks moe_act_delta's MoE part.
 * Selective recompute frees modules_freed's bytes, less what a two-norm
 * block has and a single-mixer one lacks (one norm output, the scores and
 * the dense MLP of the blocks without them). */
static double hybrid_layer_act(const struct pl_model *m, const struct pl_layout *l,
                               enum pl_recompute r, double e, double mlp) {
  double t = (double)deg(l->tp), sb = local_tokens(m, l);
  double rep_div = sp_div(l);
  double h = (double)m->hidden, f = (double)m->ffn_hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double s_attn = pl_hybrid_share(m, l, '*'); /* MTP modules' blocks included */
  double s_mamba = pl_hybrid_share(m, l, 'M');
  double s_mlp = pl_hybrid_share(m, l, '-');
  double s_moe = pl_hybrid_share(m, l, 'E');
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

/* One block's activations on the GPU: what it saves, less what offloading
 * moves to the host (model_mem_offload_moe_block, on the share of MoE blocks) */
double model_mem_layer_act(const struct pl_model *m, const struct pl_layout *l,
                           enum pl_recompute r) {
  double bytes = layer_act_kept(m, l, r);
  if (l->offload_modules == 0 || !pl_model_is_moe(m) || r == PL_RECOMPUTE_FULL ||
      r == PL_RECOMPUTE_OPS)
    return bytes;
  double e, mlp;
  model_mem_saved_gemm_bytes(m, l, &e, &mlp);
  double share = pl_moe_block_share(m, l);
  return bytes - share * model_mem_offload_moe_block(m, l, local_tokens(m, l), e, mlp);
}

/* e: bytes of a saved GEMM input element (16-bit, or TE's quantized copy);
 * mlp: bytes per MLP ffn element, the activation input (gated: gate and up,
 * bf16) and the fc2 input (e) */
void model_mem_saved_gemm_bytes(const struct pl_model *m, const struct pl_layout *l, double *e,
                                double *mlp) {
  bool hp_saved =
      l->dtype == PL_DTYPE_BF16 || pl_layout_fp8_tensorwise(l) || pl_layout_fp8_rowwise(l);
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
  /* fp8-tensorwise and fp8-rowwise (torchao Float8Linear, layout.h) save the
   * 16-bit input instead: torchao/float8/float8_linear.py
   * matmul_with_hp_or_float8_args ctx.save_for_backward(input_hp,
   * weight_hp_t), cast again in backward (the same at 6243040) */
  double e, mlp;
  model_mem_saved_gemm_bytes(m, l, &e, &mlp);
  /* norm1 in, norm2 in (2 B each), QKV in, fc1 in (e) + two dropout masks (1 B) */
  double rep = (4.0 + 2.0 * e) * h + (m->dropout ? 2.0 * h : 0.0);
  /* layout.parallel_block (GPT-NeoX gpt_j_residual, tied norms): one norm,
   * whose input (2 B) is saved, and its output the one tensor the QKV and
   * fc1 GEMMs both save (e once); both branches keep a dropout mask */
  if (l->parallel_block)
    rep = (2.0 + e) * h + (m->dropout ? 2.0 * h : 0.0);
  /* Q, K, V; proj in (e, plus the bf16 attention output a fused kernel
   * keeps when that is not the same tensor) */
  double proj = e < 2.0 && !l->eager_attention ? 2.0 + e : e;
  if (pl_model_is_hybrid(m))
    return hybrid_layer_act(m, l, r, e, mlp);
  double shard = 2.0 * (q + 2.0 * kv) + proj * q + mlp * f;
  double bytes = sb * (rep / rep_div + shard / t);
  if (tp_gathered_inputs_saved(l) && !pl_model_is_moe(m)) {
    /* DTensor SP (memory_int.h): the QKV and fc1 inputs are the gathered
     * tensors, whole, at the gather's element bytes (torchao's Float8 TP
     * styles gather the fp8 cast, and its tensor-wise Float8Linear saves that
     * input_fp8: torchao eab345c float8/float8_linear.py
     * manual_float8_matmul_with_args_in_float8.forward); MoE: not derived */
    bytes += sb * h * (2.0 * pl_layout_tp_gather_bytes(l, PL_TP_GATHER_FWD) - 2.0 * e / rep_div);
  }
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
double model_mem_eager_attention_bwd_extra(const struct pl_model *m, const struct pl_layout *l) {
  if (!l->eager_attention || pl_model_is_hybrid(m))
    return 0.0;
  double t = (double)deg(l->tp), sb = local_tokens(m, l);
  double rep_div = sp_div(l);
  double h = (double)m->hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double e, mlp;
  model_mem_saved_gemm_bytes(m, l, &e, &mlp);
  double grad_b = m->dropout || l->kernels == PL_KERNELS_FUSED ? 2.0 : 4.0;
  double grad = grad_b * (double)(m->heads / deg(l->tp)) * attention_keys(m, l);
  double held = (2.0 + e) * h / rep_div + 2.0 * (q + 2.0 * kv) / t + scores_bytes_per_token(m, l);
  double extra = sb * (held + grad) - layer_act_kept(m, l, PL_RECOMPUTE_NONE);
  return extra > 0.0 ? extra : 0.0;
}

/* Context parallelism as PyTorch's context_parallel runs it with the
 * all-gather rotater (layout.cp_allgather, torchtitan; src/sim/segments.c
 * layer_cp_allgather prices its time): what one block holds at its core
 * attention's backward beyond what it saves (layer_act_kept without
 * recompute), for one micro-batch. torch/distributed/tensor/experimental/
 * _attention.py _templated_ring_attention_backward (pytorch 0123248; the
 * same structure in the 2.6 line the time model cites) allocates, before
 * its loop over the cp steps, grad_query, grad_key and grad_value with
 * zeros_like in the fp32 accumulation dtype (_cp_options.convert_to_f32),
 * and its K/V rotater (_AllGatherRotater.exchange_buffers) all-gathers the
 * rank's torch.cat of K and V once into _aggregated_buffer, cp times the
 * local K and V in 16 bits, which it keeps until the function returns; each
 * step's SDPA backward then returns a 16-bit grad_query_, grad_key_ and
 * grad_value_. K and V carry heads / tp heads (torchtitan repeats them to
 * every query head before SDPA, as the time model counts them). So per
 * token, with a = heads / tp heads of head_dim d: 4 cp a d (the gathered K
 * and V) + 4 a d (grad_query) + 8 a d (grad_key, grad_value) + 6 a d (the
 * step's gradients). Not counted: the dK/dV rotation's fp32 send and receive
 * buffers (ft_c.permute_tensor, whose lifetimes follow the collective's
 * waits), the flash kernel's own workspace. By then the block's backward has
 * freed what it saved after the core attention (the second norm's and the
 * MLP's inputs); it still holds the first norm's and the QKV input, Q, K, V,
 * the attention output (SDPA's backward reads it) and the log-sum-exp. The
 * extra is what that exceeds the block's saved bytes, 0 when the freed part
 * is larger. MoE and hybrid blocks: 0 (not derived). */
double model_mem_cp_allgather_bwd_extra(const struct pl_model *m, const struct pl_layout *l) {
  if (!l->cp_allgather || deg(l->cp) <= 1 || l->eager_attention || pl_model_is_moe(m) ||
      pl_model_is_hybrid(m))
    return 0.0;
  double t = (double)deg(l->tp), sb = local_tokens(m, l), cp = (double)deg(l->cp);
  double h = (double)m->hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double ad = (double)(m->heads / deg(l->tp)) * (double)m->head_dim;
  double e, mlp;
  model_mem_saved_gemm_bytes(m, l, &e, &mlp);
  /* the QKV input: the sequence shard, or under DTensor SP the gathered
   * tensor, whole (layer_act_kept's tp_gathered_inputs_saved) */
  double qkv_in = tp_gathered_inputs_saved(l) ? pl_layout_tp_gather_bytes(l, PL_TP_GATHER_FWD) * h
                                              : e * h / sp_div(l);
  double held = 2.0 * h / sp_div(l) + qkv_in + 2.0 * (q + 2.0 * kv) / t + 2.0 * q / t +
                scores_bytes_per_token(m, l);
  double work = (4.0 * cp + 4.0 + 8.0 + 6.0) * ad;
  double extra = sb * (held + work) - layer_act_kept(m, l, PL_RECOMPUTE_NONE);
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
double model_mem_mlp_bwd_extra(const struct pl_model *m, const struct pl_layout *l, double rerun) {
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
  return model_mem_layer_act(m, l, l->recompute);
}
