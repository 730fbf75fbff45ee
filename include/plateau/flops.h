/* flops.h: what one training step computes, operation by operation.
 *
 * Counts are doubles: a 1T-parameter model on 100k GPUs exceeds 2^64 FLOPs per
 * step. A multiply-add is 2 FLOPs. Conventions (causal attention counted in
 * full, as Megatron-LM and PaLM count it) and derivations: docs/model.md.
 * Ownership: plain values owned by the caller. */
#ifndef PLATEAU_FLOPS_H
#define PLATEAU_FLOPS_H

#include <stdbool.h>
#include <stdint.h>
#include "layout.h"
#include "model.h"

enum pl_op_kind {
  PL_OP_GEMM,        /* dense matrix multiply (m, n, k) */
  PL_OP_ATTENTION,   /* fused attention core: QK^T, softmax, AV (FlashAttention) */
  PL_OP_MEMORY       /* memory-bound: norms, activations, RoPE, residuals, loss */
};

/* One operation of one micro-batch's forward pass on one GPU, after sharding
 * by tp (and cp, sp). Backward of a GEMM is 2x its forward FLOPs (dgrad+wgrad);
 * backward of attention is 2.5x (FlashAttention-2 recomputes QK^T).
 * Layer ops, in order: norm1, qkv, qk_norm (model qk_norm), rope (rotary
 * models), attn, proj, resid1, norm2, fc1 (gate+up fused when gated), swiglu|gelu, fc2, resid2. Latent
 * attention (DeepSeek) replaces qkv by q_down, q_up (or q), kv_down, kv_up and
 * mla_norms; windowed models with full-attention blocks add attn_full. MoE
 * blocks (share = MoE blocks / blocks) replace fc1..fc2 by router,
 * router_topk, permute, expert_fc1, expert_act, expert_fc2, unpermute and,
 * with a shared expert, shared_fc1, shared_act, shared_fc2; a clamped GLU
 * (model glu_clamp) adds expert_clamp before expert_act, expert biases
 * (mlp_bias) expert_bias after expert_fc2; the alltoall dispatcher adds
 * moe_preprocess and moe_counts_d2h before permute and, with more than one
 * local expert, sort_chunks after it and unsort_chunks before unpermute.
 * Embed ops: embed. Head ops: final_norm, lm_head, loss. */
struct pl_op {
  const char *name;       /* "qkv", "attn", "proj", "fc1", "fc2", "norm1", ... (static string) */
  enum pl_op_kind kind;
  int64_t m, n, k;        /* GEMM: (m x k) @ (k x n). ATTENTION: m = queries, n = keys,
                             k = head_dim per (sequence, head). 0 for MEMORY ops */
  int64_t k_v;            /* ATTENTION: V's head dim, the width of P.V's output and dO, when it
                             differs from k (latent attention: 128 where Q and K are 192);
                             0 = k. Eager attention times P.V and its backward at it */
  int64_t count;          /* how many such ops (ATTENTION: mbs * heads / tp), else 1 */
  double fwd_flops;       /* forward FLOPs, all counts included */
  double bwd_flops;       /* backward FLOPs (executed: attention 2.5x) */
  double fwd_bytes;       /* HBM bytes moved in forward (every kind; bf16 = 2 B/element) */
  double bwd_bytes;       /* HBM bytes moved in backward */
  bool recompute;         /* forward re-run before backward under l->recompute
                             (selective: attn; full: every layer op; ops: see
                             recompute_n) */
  int64_t recompute_n;    /* GEMM under recompute ops: output columns re-run, a part of
                             a fused GEMM (qkv: torchtitan's wk; fc1: its w3); 0 = the
                             whole op (pl_op_recompute_part) */
  bool causal;            /* ATTENTION: causally masked. FLOPs count the whole s x s_k
                             square (convention); kernels that skip masked tiles
                             (FlashAttention) execute about half of them */
  int64_t cp_gathered;    /* ATTENTION: cp of Transformer Engine's all_gather context
                             parallelism (layout.cp_comm all_gather): the local m queries run
                             as two launches of m / 2 against the gathered keys up to their
                             chunk (src/sim/compute.c); 0 otherwise */
  bool cp_two_streams;    /* ATTENTION: Transformer Engine's p2p ring (cp > 1, layout.cp_comm
                             p2p or a2a+p2p, not PyTorch's context_parallel): the forward's cp
                             launches alternate between two CUDA streams and share the SMs
                             (src/sim/compute.c cp_ring_fwd_span) */
  int bwd_kernels;        /* MEMORY: kernels the backward launches when more than one
                             (0: one; -1: none, its work runs inside another op's kernels;
                             docs/step-model.md 2.6): a norm's backward (3), the gradient
                             accumulation's per-tensor adds */
  int fwd_kernels;        /* MEMORY: kernels the forward launches when more than one (0: one;
                             -1: none, its work runs inside another op's kernel) */
  bool host_waits;        /* MEMORY: the host reads each kernel's result back and waits for it
                             (Tensor.item()): the GPU idles while the host issues the kernel and
                             the read, 2 x host_per_kernel_s per kernel added to the pass
                             (sim_seg_ops_s) */
  bool host_sync;         /* the host, once it has issued the op's forward, waits for the GPU
                             to finish every kernel issued before (a stream synchronize or
                             a device-to-host read of a result the next launches need): the
                             pass's host floor applies piece by piece between such ops
                             (sim_seg_ops_s), in the forward and in a recomputed forward */
  bool frozen;            /* GEMM: its weight is frozen (layout.task lora): the backward is the
                             dgrad alone (bwd_flops = fwd_flops), no wgrad GEMM, no gradient */
  bool batched;           /* GEMM: the count products are one batched kernel launch (the
                             Mamba-2 SSD's Triton kernels), not count separate cuBLAS calls */
  bool high_precision;    /* GEMM: runs in 16-bit whatever the layout's dtype (the LM head
                             with layout.head_16bit); pl_op_run_time_s times it as bf16 */
  bool wgrad_accum_fp32;  /* GEMM: its weight-gradient GEMM accumulates into the fp32 main_grad
                             (layout.grad_accum_fusion, set by src/sim/grad_accum.c): its output
                             is read and written at 4 B per element, not written at 2 B */
  double fwd_strided_elems; /* MEMORY: elements written by the forward's kernels that PyTorch runs
                             on its non-vectorized path (an operand is a strided view or a
                             broadcast: CUDALoops.cuh launch_legacy_kernel), all counts
                             included; 0 = none. Timed per element where the GPU file gives
                             efficiency.strided_elementwise (pl_op_time_s), else in the bytes */
  double bwd_strided_elems; /* the same for the backward */
  double fwd_strided_bytes; /* the bytes of those forward kernels (part of fwd_bytes) */
  double bwd_strided_bytes; /* the bytes of those backward kernels (part of bwd_bytes) */
  double share;           /* fraction of the model's blocks that run this op: 1 for most;
                             a model whose blocks differ (dense and MoE blocks, windowed
                             and full attention) lists an average block, each op weighted
                             by the blocks that have it. Times and FLOPs above are for
                             one block that has it */
};

/* Room for every op a block can have: a hybrid block with all kinds of mixer
 * and every MoE and attention option lists about 41 (tests/unit/test_flops.c
 * test_layer_ops_bound), and sim/segments.c appends up to 14 more (bias
 * gradients, dropout masks, eager kernels, the QKV gradient cat, the metric
 * passes, the FP8 casts). */
#define PL_MAX_LAYER_OPS 96

/* Per-GPU ops of one transformer block for one micro-batch (mbs sequences of
 * seq tokens, divided by cp), sharded by tp; with l->sp the norms and residual
 * adds see tokens / tp. Returns how many were written. */
int pl_layer_ops(const struct pl_model *m, const struct pl_layout *l,
                 struct pl_op ops[PL_MAX_LAYER_OPS]);
/* Ops of the embedding (first stage) and of the final norm + LM head + loss
 * (last stage), same conventions. */
int pl_embed_ops(const struct pl_model *m, const struct pl_layout *l,
                 struct pl_op ops[PL_MAX_LAYER_OPS]);
int pl_head_ops(const struct pl_model *m, const struct pl_layout *l,
                struct pl_op ops[PL_MAX_LAYER_OPS]);

/* The part of op re-run before its backward: false when nothing is; else
 * *part is the op itself or, for a GEMM with recompute_n, the GEMM of those
 * recompute_n output columns (its FLOPs, bytes and shape). */
bool pl_op_recompute_part(const struct pl_op *op, struct pl_op *part);

/* Whether op runs in Megatron-Core's MoE "mlp" schedule node, the routed
 * experts between the dispatch and the combine (models/gpt/fine_grained_callables.py
 * submodule_moe_forward: routed_experts_compute), with the dispatcher's
 * post-dispatch and pre-combine steps that routed_experts_compute runs around
 * the experts (core_v0.15.0-core_v0.18.0 moe_layer.py: dispatch_postprocess,
 * the alltoall dispatcher's sort_chunks_by_idxs; combine_preprocess, its
 * unsort; core_v0.14.0 experts_compute the same) and Transformer Engine's
 * per-expert padding inside TEGroupedMLP (expert_pad); false for the block's
 * other ops and for the per-block lumps (fp8_casts, grad_accum) that belong
 * to no one node (pl_op_node_free). The shared experts are not in it: from
 * core_v0.16.0 to core_v0.18.0 submodule_attn_forward runs
 * shared_experts_compute after the pre-MLP norm, before the router, in the
 * attn node (core_v0.14.0/0.15.0 ran them in the mlp node,
 * submodule_moe_forward); plateau takes the current placement. */
bool pl_op_moe_mlp_node(const struct pl_op *op);
/* Whether op runs in Megatron-Core's MoE "combine" schedule node, after the
 * combine's all_to_all on the communication stream: the token unpermutation
 * (combine_postprocess), the shared experts' output add (postprocess,
 * moe_shared_add) and the block's second residual add (mlp_bda)
 * (core_v0.14.0-core_v0.18.0 models/gpt/fine_grained_callables.py
 * submodule_combine_forward; its backward runs there too). resid2 is every
 * block's: a dense block's has no combine node (weight it by the MoE share). */
bool pl_op_moe_combine_node(const struct pl_op *op);
/* The GEMM of a column-parallel Transformer Engine linear of a dense block:
 * qkv and fc1 (Megatron-Core's TELayerNormColumnParallelLinear; gpt_layer_specs.py
 * get_gpt_layer_with_transformer_engine_spec); its index among them (0 qkv,
 * 1 fc1) or -1 for any other op (layout.te_linear_bwd_overlap). */
int pl_op_te_column(const struct pl_op *op);
/* The GEMM of one of a dense block's four tensor-parallel linears: 0 qkv,
 * 1 fc1 (column-parallel, pl_op_te_column), 2 proj, 3 fc2 (row-parallel), or
 * -1 for any other op (layout.async_tp: src/sim/lower_unit.c atp_windows). */
int pl_op_tp_linear(const struct pl_op *op);
bool pl_op_node_free(const struct pl_op *op);
/* Whether an LM-head-segment op runs in the MTP layer's attn schedule node,
 * inside the merged layers of Megatron-Core's combined 1F1B (core_v0.15.0
 * models/common/model_chunk_schedule_plan.py TransformerLayerSchedulePlan:
 * "mtp.attn wraps around transformer_layer.attn with extra norm, proj and
 * embedding operations"): mtp_embed, mtp_norms, mtp_eh_proj; false for the
 * output layer, the loss and the MTP's own (its mtp_post_process node). */
bool pl_op_mtp_attn_node(const struct pl_op *op);

/* A hybrid stack's share of blocks of kind ('M', '*', '-', 'E') among all the
 * blocks a step runs: the pattern's and layout.mtp_layers times the model's
 * MTP module's (model.mtp_pattern; hybrid_mtp.c). l may be NULL (no MTP). */
double pl_hybrid_share(const struct pl_model *m, const struct pl_layout *l, char kind);
/* The share of MoE blocks among the blocks a step runs (pl_hybrid_share's 'E'
 * for a hybrid stack, MoE blocks / layers otherwise; 0 for a dense model). */
double pl_moe_block_share(const struct pl_model *m, const struct pl_layout *l);
/* The share of kind's blocks (a hybrid stack's 'M', '*', '-', 'E'; any
 * letter for other models) whose GEMMs run in 16-bit under an FP8 / FP4
 * dtype: those among the last layout.bf16_last_blocks blocks, and a hybrid
 * stack's MTP modules' blocks (Megatron-Bridge's NemotronH provider sets
 * keep_mtp_spec_in_bf16 whenever the model has MTP: nemotron_h_bridge.py);
 * 0 under BF16. */
double pl_bf16_block_share(const struct pl_model *m, const struct pl_layout *l, char kind);

/* The load factor of the busiest expert-parallel rank: layout.moe_imbalance
 * capped by what a rank can receive (ep * min(top_k, experts / ep) / top_k;
 * 1 with ep = 1), 1 for a dense model. */
double pl_moe_imbalance(const struct pl_model *m, const struct pl_layout *l);

/* The expected load of the busiest of ep expert-parallel ranks over the mean
 * when every token's top_k of experts experts are a uniformly random subset
 * (the forced-balance router's random logits), tokens = the tokens each rank
 * of the group routes (times etp when expert tensor parallelism gathers
 * them): 1 + sqrt(ep/(ep-1)) E[max of ep normals] sigma / mean
 * (model/moe_balance.c); 1 for ep <= 1 or top_k >= experts. */
double pl_moe_random_imbalance(int64_t experts, int64_t top_k, int64_t ep, double tokens);

/* The share of blocks recomputed in full: 1 with recompute full alone or with
 * the uniform method (recompute_uniform), 0 without full recompute; with
 * recompute_layers N (block method), min(N, n) / n for the
 * blocks n of a model chunk (Megatron-Core TransformerBlock._checkpointed_forward,
 * block method: the first N of each chunk); with recompute_every K,
 * floor(n / K) / n for the blocks n of a pipeline rank (torchtitan
 * _apply_ac_to_transformer_block: a rank-wide counter checkpoints the blocks
 * whose count is a multiple of K). The simulator prices the average block
 * (docs/step-model.md 2.4). */
double pl_recompute_share(const struct pl_model *m, const struct pl_layout *l);
/* Blocks recomputed in full among stage s's blocks (memory). */
int64_t pl_recompute_stage_blocks(const struct pl_model *m, const struct pl_layout *l, int64_t s);
/* How many times an average block's backward re-runs the forward of op's
 * recomputed part (*part, pl_op_recompute_part): 0 when op is not
 * recomputed; under full recompute pl_recompute_share (the simulator's
 * average block, src/sim/segments.c); else 1 (selective and op-level
 * recompute re-run their ops in every block). An op's backward with its
 * recomputation is bwd(op) + runs * fwd(*part). */
double pl_op_recompute_runs(const struct pl_model *m, const struct pl_layout *l,
                            const struct pl_op *op, struct pl_op *part);

/* Per-step totals: matmul FLOPs (GEMMs + attention QK^T/PV), causal attention
 * counted in full, backward = 2x forward (the PaLM / Korthikanti convention;
 * the ops above carry executed FLOPs instead). docs/model.md "FLOPs". */
struct pl_flops {
  double model_per_step;     /* whole cluster, no recompute: the MFU numerator (PaLM) */
  double hardware_per_step;  /* model + recomputed forward (selective: attention core;
                                full: whole block; ops: the wk, wo and w3 GEMMs,
                                2 h (kv + q + f) per token and block): the HFU
                                numerator (Korthikanti) */
  double layer_fwd;          /* one block, one micro-batch, whole model width (unsharded) */
  double layer_bwd;          /* = 2 * layer_fwd */
  double head_fwd;           /* LM head GEMM, one micro-batch, unsharded */
  double megatron_per_step;  /* Narayanan et al. 2021 eq. 3 (recompute included) */
  double palm_per_step;      /* PaLM: 6N + 12 l h s per token, times tokens */
  double tokens_per_step;
};

void pl_flops_compute(const struct pl_model *m, const struct pl_layout *l, struct pl_flops *out);
/* PaLM's model FLOPs per token at sequence length seq: 6 N + 12 l h s
 * (Chowdhery et al. 2022, appendix B; h = heads x head_dim), the
 * palm_per_step above per token, and `trace analyze --model`'s numerator. */
double pl_flops_palm_per_token(const struct pl_model *m, int64_t seq);

#endif
