/* layout.h: how a training run is spread over GPUs, and its batch.
 *
 * Users set some fields and leave others 0 (meaning "derive" or "default");
 * pl_layout_resolve fills every field and rejects impossible layouts with one
 * line naming the problem. Defaults (documented in docs/cli.md):
 *   tp = pp = cp = 1, shard = zero2 (FSDP SHARD_GRAD_OP, as the study ran),
 *   shard_group = dp, mbs = 1, gbs = batch_per_gpu * gpus with batch_per_gpu = 1,
 *   seq = the model's seq_len, recompute = none, schedule = 1f1b (vp = 1),
 *   dtype = bf16, sequence parallelism on whenever tp > 1.
 * Ownership: plain value owned by the caller. */
#ifndef PLATEAU_LAYOUT_H
#define PLATEAU_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>
#include "hw.h"
#include "model.h"
#include "status.h"

enum pl_shard { PL_SHARD_DDP, PL_SHARD_ZERO1, PL_SHARD_ZERO2, PL_SHARD_ZERO3 };
/* What the step trains (layout.task): pre-training, full-parameter supervised
 * fine-tuning, or LoRA (Hu et al. 2021, arXiv 2106.09685) with the base
 * weights frozen. docs/finetune.md. */
enum pl_run_task { PL_RUN_PRETRAIN, PL_RUN_SFT, PL_RUN_LORA };
/* The block's linears LoRA can adapt (Megatron-Bridge peft/lora.py
 * target_modules: linear_qkv, linear_proj, linear_fc1, linear_fc2). */
enum pl_lora_target {
  PL_LORA_QKV = 1u << 0,
  PL_LORA_PROJ = 1u << 1,
  PL_LORA_FC1 = 1u << 2,
  PL_LORA_FC2 = 1u << 3,
  PL_LORA_ALL = 0xFu
};
/* none; selective = the attention core (Korthikanti et al. 2022); full =
 * every block from its input; ops = torchtitan's per-op selective
 * checkpointing (every op re-run but the saved ones: SDPA, the reduce_scatters
 * and every odd-numbered mm of a block; flops.h pl_layer_ops, docs/model.md). */
enum pl_recompute { PL_RECOMPUTE_NONE, PL_RECOMPUTE_SELECTIVE, PL_RECOMPUTE_FULL, PL_RECOMPUTE_OPS };
/* Megatron-Core's selective recompute modules (TransformerConfig.recompute_modules,
 * megatron/core/transformer/transformer_config.py, Megatron-LM d98e8a6), bits
 * of layout.recompute_modules with recompute selective; each is honoured by
 * the module that checks for it:
 *   core_attn      attention.py: the core attention (checkpoint), the
 *                  default ["core_attn"] = plateau's selective;
 *   moe_act        moe/experts.py: the experts' activation function, its
 *                  output (the fc2 input) discarded (CheckpointWithoutOutput);
 *   layernorm      transformer_layer.py: input_layernorm and pre_mlp_layernorm,
 *                  their outputs discarded (CheckpointWithoutOutput);
 *   mla_up_proj    multi_latent_attention.py: the q/kv up projections and RoPE
 *                  (qkv_up_proj_and_rope_apply), Q, K, V discarded after the
 *                  core attention;
 *   mlp            transformer_layer.py: the dense MLP of non-MoE blocks (checkpoint);
 *   moe            moe/moe_layer.py: the whole MoE layer, router, dispatch,
 *                  experts, combine (checkpoint);
 *   shared_experts moe/moe_layer.py: the shared expert MLP (checkpoint).
 * flops.c mark_recompute, memory_act.c model_mem_layer_act, docs/step-model.md 2.4. */
enum pl_recompute_module {
  PL_RCM_CORE_ATTN = 1u << 0,
  PL_RCM_MOE_ACT = 1u << 1,
  PL_RCM_LAYERNORM = 1u << 2,
  PL_RCM_MLA_UP_PROJ = 1u << 3,
  PL_RCM_MLP = 1u << 4,
  PL_RCM_MOE = 1u << 5,
  PL_RCM_SHARED_EXPERTS = 1u << 6
};
#define PL_RCM_COUNT 7
/* Megatron-Core's fine-grained activation offloading (TransformerConfig
 * fine_grained_activation_offloading with offload_modules, core_v0.16.0+
 * transformer_config.py; pipeline_parallel/fine_grained_activation_offload.py),
 * bits of layout.offload_modules: the named module's saved input goes to host
 * memory on a D2H stream after the group's forward and comes back on an H2D
 * stream one group ahead in the backward. Modelled:
 *   expert_fc1  moe/experts.py TEGroupedMLP: the experts' fc1 input (the
 *               permuted tokens; TE saves the original, set_save_original_input);
 *   moe_act     the experts' activation input (the fc1 output).
 * Megatron-Core's other choices (attn_norm, qkv_linear, core_attn, attn_proj,
 * mlp_norm) are not modelled and refused. memory_act.c model_mem_offload_moe_block. */
enum pl_offload_module { PL_OFM_EXPERT_FC1 = 1u << 0, PL_OFM_MOE_ACT = 1u << 1 };
#define PL_OFM_COUNT 2
/* Modules a run keeps at 16-bit under FP8 / FP4 (layout.bf16_modules; Megatron-Core's
 * per-module quantization recipe, --te-precision-config-file / quant_recipe, matched by
 * module name: megatron/core/quantization): the attention's linear_qkv, its linear_proj,
 * and a latent MoE's fc1_latent_proj / fc2_latent_proj (src/model/quant_modules.c) */
enum pl_bf16_module {
  PL_B16_LINEAR_QKV = 1u << 0,
  PL_B16_LINEAR_PROJ = 1u << 1,
  PL_B16_LATENT_PROJ = 1u << 2
};
#define PL_B16_COUNT 3
/* CUDA-graph scopes a Megatron-Core run captures (TransformerConfig.cuda_graph_impl
 * "transformer_engine" with cuda_graph_scope, or "full_iteration"), bits of
 * layout.cuda_graph_scopes. A captured op's kernels replay from a graph, so the
 * host issues none of them one by one: the eager host floor (host_per_kernel_s,
 * host_per_gemm_s) counts only the ops outside (sim/compute.c op_graphed):
 *   attn            transformer_layer.py _te_cuda_graph_capture -> _forward_attention:
 *                   input_layernorm, the self-attention (qkv or the MLA projections,
 *                   RoPE, the core attention, the output projection), self_attn_bda;
 *   moe_router      on MoE blocks, _forward_mlp up to the router: pre_mlp_layernorm,
 *                   the router and its top-k, the shared experts (moe_layer.py
 *                   route / shared_experts_compute, early return of
 *                   MoECudaGraphPartialCaptureSignal);
 *   moe_preprocess  the token dispatcher's dispatch_preprocess (moe_layer.py
 *                   preprocess): routing metadata, no op of plateau's op list under
 *                   the flex dispatcher the recipes use (its permutation runs in the
 *                   dispatch); the experts, dispatch and combine stay eager;
 *   mamba           a hybrid stack's Mamba blocks whole (Megatron-Core ssm/mamba_layer.py
 *                   MambaLayer, CudaGraphModule.mamba, Megatron-LM d98e8a6): norm, the
 *                   Mamba-2 mixer's ops, residual; in plateau's average hybrid block the
 *                   shared norm1 and resid1 count as captured;
 *   full_iteration  the whole forward-backward step is one graph (Megatron-Bridge
 *                   cuda_graph_impl "full_iteration"): no op is issued eagerly;
 *   mlp             a dense block's _forward_mlp (CudaGraphScope.mlp, "dense layers
 *                   only"): pre_mlp_layernorm, linear_fc1, the activation, linear_fc2,
 *                   mlp_bda; in plateau's average block the shared norm2 and resid2
 *                   count as captured only when the model has no MoE block.
 * Megatron-Core's whole-layer graphs (core_v0.14/v0.15 cuda_graph_scope "full", the
 * default; core_v0.16 an empty scope list, with cuda_graph_impl "transformer_engine"
 * or layer-wise "local") are attn,mlp on a dense model; the moe scope (drop-and-pad
 * MoE layers only) is not modelled and refused.
 * Megatron-Core core_v0.16.0 megatron/core/transformer/transformer_layer.py,
 * moe/moe_layer.py, moe/moe_utils.py maybe_skip_or_early_return_by_cudagraph. */
enum pl_cuda_graph_scope {
  PL_CGS_ATTN = 1u << 0,
  PL_CGS_MOE_ROUTER = 1u << 1,
  PL_CGS_MOE_PREPROCESS = 1u << 2,
  PL_CGS_FULL_ITERATION = 1u << 3,
  PL_CGS_MAMBA = 1u << 4,
  PL_CGS_MLP = 1u << 5
};
#define PL_CGS_COUNT 6
enum pl_schedule { PL_SCHEDULE_1F1B, PL_SCHEDULE_INTERLEAVED, PL_SCHEDULE_GPIPE };
/* How the element-wise work around the GEMMs runs (docs/step-model.md 2.3b):
 * fused = the op list's minimum traffic (Megatron-LM/TransformerEngine fused
 * kernels, torch.compile); unfused = eager PyTorch modules (HF, Composer,
 * torchtitan without compile): RMSNorm, SwiGLU, RoPE, dropout as chains of
 * separate kernels. Default fused. */
enum pl_kernels { PL_KERNELS_FUSED, PL_KERNELS_UNFUSED };
/* How an MoE block moves tokens to their experts and back (Megatron-Core's
 * --moe-token-dispatcher-type, megatron/core/transformer/moe/token_dispatcher.py):
 * alltoall (MoEAlltoAllTokenDispatcher, the default here), allgather
 * (MoEAllGatherTokenDispatcher: every rank gathers all tokens of the ep group
 * and reduce_scatters the outputs), deepep (MoEFlexTokenDispatcher with
 * DeepEP's fused dispatch/combine kernels: NVLink inside a node, RDMA across),
 * hybridep (MoEFlexTokenDispatcher with --moe-flex-dispatcher-backend hybridep:
 * NVIDIA's Hybrid-EP kernels, a token sent once per destination node over
 * RDMA then forwarded over NVLink; priced as deepep except where Hybrid-EP's
 * own measurements apply, src/sim/segments.c). */
enum pl_moe_dispatch { PL_MOE_ALLTOALL, PL_MOE_ALLGATHER, PL_MOE_DEEPEP, PL_MOE_HYBRIDEP };
/* How context parallelism exchanges attention's inputs (Megatron-Core
 * --cp-comm-type, TransformerConfig.cp_comm_type; Transformer Engine
 * transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py
 * attn_forward_func_with_cp, v2.20.0.dev0 @ d0067d0): p2p (AttnFuncWithCPAndKVP2P,
 * the K/V ring overlapping the attention steps), all_gather
 * (AttnFuncWithCPAndKVAllGather: K/V all_gathered, exposed, dK/dV
 * reduce_scattered; Llama 3's CP, arXiv 2407.21783 Sec. 3.3.2), a2a
 * (AttnFuncWithCPAndQKVOA2A, DeepSpeed-Ulysses: Q, K, V and O swap sequence
 * for heads by all_to_all, exposed), a2a+p2p (a2a within groups of
 * layout.cp_a2a ranks, Megatron-Core --hierarchical-context-parallel-sizes,
 * then the p2p ring across them). src/sim/segments.c layer_cp. */
enum pl_cp_comm { PL_CP_P2P, PL_CP_ALL_GATHER, PL_CP_A2A, PL_CP_A2A_P2P };
/* The flex dispatcher (deepep or hybridep backend). */
#define PL_MOE_IS_FLEX(d) ((d) == PL_MOE_DEEPEP || (d) == PL_MOE_HYBRIDEP)
/* How FP8 (dtype fp8, Hopper recipes) scales and caches its tensors, as
 * Transformer Engine's recipes name them (transformer_engine/common/recipe/
 * __init__.py, TE 2.x: DelayedScaling, Float8CurrentScaling,
 * Float8BlockScaling; docs/step-model.md 2.3e):
 *   tensor    (--dtype fp8, plateau's earlier value): per-tensor scales, the
 *             weights cast again at every micro-batch (no cache);
 *   delayed   (fp8-delayed): DelayedScaling, scales from the amax history;
 *             the FP8 weights cast at the first micro-batch of a step and
 *             reused (TE is_first_microbatch, which Megatron-Core passes);
 *   current   (fp8-current): Float8CurrentScaling, each activation and
 *             gradient's amax computed just before its cast (one more read
 *             of it); weights cached as for delayed;
 *   blockwise (fp8-blockwise): Float8BlockScaling, 1x128 / 128x128 block
 *             scales computed inside the cast; weights cached;
 *   tensorwise (fp8-tensorwise): torchao's Float8Linear "tensorwise" recipe
 *             (torchtitan float8.recipe_name; torchao/float8/config.py
 *             Float8LinearRecipeName ALL_TENSORWISE, "dynamic per-tensor
 *             scaling with the cuBLAS tensorwise kernel"): the amax of every
 *             input, weight and output gradient computed just before its
 *             cast, the weights cast again at every forward (no cache),
 *             the 16-bit input and weight saved for backward and cast
 *             there again (float8_linear.py matmul_with_hp_or_float8_args);
 *   rowwise  (fp8-rowwise): torchao's Float8Linear "rowwise" recipe
 *             (torchao/float8/config.py Float8LinearConfig.from_recipe_name
 *             ROWWISE: axiswise scales for input, weight and output
 *             gradient, powers of 2): every cast as tensorwise, each linear
 *             casting its own input (no Float8 TP styles: all communication
 *             in 16 bits), the forward GEMM on PyTorch's CUTLASS rowwise
 *             kernel, the backward GEMMs on cuBLAS's tensorwise kernel with
 *             the scales applied to the output after it (float8_ops.py
 *             addmm_float8_unwrapped; docs/step-model.md 2.3e). */
enum pl_fp8_recipe {
  PL_FP8_RECIPE_TENSOR = 0,
  PL_FP8_RECIPE_DELAYED,
  PL_FP8_RECIPE_CURRENT,
  PL_FP8_RECIPE_BLOCKWISE,
  PL_FP8_RECIPE_TENSORWISE,
  PL_FP8_RECIPE_ROWWISE
};

/* Limits of a layout (docs/limits.md), PL_ERR_LIMIT beyond them: they keep
 * every product the model forms (gbs * seq tokens, dp * mbs) far from int64
 * overflow. 2^24 GPUs is ~100x the largest clusters announced by 2025. */
#define PL_LAYOUT_MAX_GPUS (INT64_C(1) << 24)
#define PL_LAYOUT_MAX_BATCH (INT64_C(1) << 36) /* sequences per step; also mbs */
#define PL_LAYOUT_MAX_SEQ (INT64_C(1) << 26)   /* tokens per sequence */
/* Pipeline layout strings (layout.pipeline_layout): the longest string taken
 * (the Megatron-Bridge DeepSeek-V3 strings are under 30 characters), the most
 * virtual stages (pp x vp) one may describe, and the most MTP modules. */
#define PL_PIPELINE_LAYOUT_MAX 256
#define PL_LAYOUT_MAX_CHUNKS 4096
#define PL_LAYOUT_MAX_MTP 16

struct pl_layout {
  int64_t gpus;            /* world size = dp * tp * pp * cp */
  int64_t nodes;           /* gpus / gpus_per_node, rounded up */
  int64_t dp;              /* data-parallel degree (derived) */
  int64_t tp;              /* tensor-parallel degree */
  int64_t pp;              /* pipeline stages */
  int64_t cp;              /* context-parallel degree */
  int64_t vp;              /* virtual stages (model chunks) per pipeline rank */
  enum pl_shard shard;     /* ZeRO stage over the data-parallel group */
  int64_t shard_group;     /* GPUs a shard spans: dp = plain, < dp = hybrid (HSDP) */
  int64_t mbs;             /* micro-batch, sequences */
  int64_t gbs;             /* global batch, sequences per optimizer step */
  int64_t batch_per_gpu;   /* input: sequences per GPU; gbs = that * gpus (0 = unset) */
  int64_t micro_batches;   /* per pipeline per step = gbs / (dp * mbs) (derived) */
  int64_t seq;             /* tokens per sequence */
  enum pl_recompute recompute;
  enum pl_schedule schedule;
  enum pl_dtype dtype;
  bool sp;                 /* Megatron sequence parallelism with tp (derived: tp > 1) */
  bool shard_set;          /* input: shard was given explicitly */
  bool eager_attention;    /* input: attention stores the s x s scores (no FlashAttention,
                              as in Korthikanti et al. 2022); default false = FlashAttention */
  bool account_embed_loss; /* input: the pipeline split counts the embedding and the loss as one
                              block each (Megatron-Core --account-for-embedding-in-pipeline-split
                              and --account-for-loss-in-pipeline-split): the first and the last
                              virtual chunk build one block fewer (pl_layout_chunk_layers) */
  bool no_sp;              /* input: keep sequence parallelism off although tp > 1 (Megatron
                              before Korthikanti et al. 2022, or without --sequence-parallel) */
  bool sp_moe;             /* input: no_sp holds for a dense model only: an MoE model with
                              tp > 1 runs sequence parallelism (framework sequence_parallel
                              "moe", pl_layout_resolve) */
  bool grad_reduce_after_backward; /* input: ddp/zero1 gradients are reduced after the whole
                              backward, not overlapped with it (Megatron-LM's
                              allreduce_gradients() before overlap_grad_reduce, 2023) */
  enum pl_kernels kernels; /* input: fused (default) or unfused element-wise kernels */
  bool attention_triton;   /* input: FlashAttention runs as the Triton kernel (flash_attn_triton.py,
                              llm-foundry attn_impl triton), timed with the GPU's triton fractions */
  bool attention_cudnn;    /* input, or derived from attention_te: attention runs as cuDNN's fused
                              flash attention (TE FusedAttention F16_arbitrary_seqlen), timed with
                              the GPU's cudnn fractions; a GPU file without them is refused */
  int64_t cudnn_version;   /* input: the cuDNN release fused attention runs as (cuDNN 9's
                              CUDNN_VERSION code, 9.13.0 -> 91300; hw.h PL_CUDNN_*): a GPU file
                              with that release's figures (attention.cudnn.shape_<major>_<minor>,
                              pl_gpu_cudnn_shape) times it with them; 0 = latest: today's rates
                              (attention.cudnn.shape). --cudnn-2024 on = 9.1, --cudnn-913 on =
                              9.13 (docs/step-model.md 2.2 "cuDNN by version") */
  bool fp8_attention;      /* input: Megatron-Core's fp8_dot_product_attention under the MXFP8
                              recipe: TE's DotProductAttention runs cuDNN's MXFP8 SDPA, timed as
                              the BF16 cuDNN kernel x the GPU file's attention.cudnn.
                              mxfp8_time_ratio; needs dtype mxfp8, cuDNN attention and the
                              figures (pl_layout_resolve refuses otherwise) */
  bool nvfp4_rht_unfused;  /* input: under NVFP4, Transformer Engine before 2.14 quantizes each
                              input and output gradient rowwise (nvte_quantize_v2) and, in a
                              second pass over the 16-bit tensor, the random-Hadamard-transformed
                              columnwise copy (nvte_hadamard_transform_cast_fusion_columnwise):
                              +2 B per element in fp8_casts (TE 2.9-2.13 NVFP4Quantizer::
                              quantize_impl; one fused kernel from 2.14) */
  bool async_tp;           /* input: PyTorch's micro-pipeline TP (Inductor
                              fx_passes/micro_pipeline_tp.py, torchtitan's async TP): with sp, each
                              all_gather feeding matmuls and each reduce_scatter of one matmul's output
                              runs beside that GEMM only; the backward's column-parallel input-gradient
                              reduce_scatters (a sum of matmuls) stay blocking (src/sim/lower.c
                              atp_windows) */
  bool grad_accum_fusion;  /* input: ddp/zero1, Megatron-Core's gradient_accumulation_fusion: the
                              weight-gradient GEMMs accumulate into the fp32 main_grad in their
                              epilogue (read and write 4 B per weight instead of writing 2 B), so
                              only the other parameters (norms, biases, embedding, router) take the
                              per-micro-batch add pass and its launches (src/sim/grad_accum.c) */
  bool tp_seq_copies;      /* input: with sequence parallelism, the activations are batch-first
                              [b, s, h] and sharded on the sequence (DTensor Shard(1), torchtitan),
                              so each tp all_gather is followed by a copy of its output and each
                              reduce_scatter preceded by a copy of its input (PyTorch
                              _functional_collectives all_gather_tensor / reduce_scatter_tensor with
                              a dim != 0: chunk + cat); Megatron's [s, b, h] gathers dim 0 and
                              copies nothing (src/sim/segments.c tp_seq_copies) */
  bool cp_allgather;       /* input: context parallelism as PyTorch's experimental context_parallel
                              runs it with the allgather rotater (torchtitan): the K/V of every
                              query head (repeat_kv before SDPA) all_gathered once per ring, waited
                              after the first (diagonal) SDPA; the backward's fp32 dK/dV rotated
                              by all_to_all each step, the last one waited after the ring; eager
                              fp32 merges of each step's output and gradients (src/sim/segments.c
                              cp_merge_ops, lower_unit.c cp_gather_ring) */
  enum pl_cp_comm cp_comm; /* input: context parallelism's exchange (enum pl_cp_comm; default p2p;
                              exclusive with cp_allgather, PyTorch's own context_parallel) */
  int64_t cp_a2a;          /* input: cp_comm a2a+p2p: the a2a group's size, the first of Megatron-Core's
                              hierarchical_context_parallel_sizes (divides cp; 0 = not given) */
  bool fused_grouped_mlp;  /* input: Transformer Engine's fused MXFP8 grouped MLP (Megatron-Core
                              use_transformer_engine_op_fuser with NVTE_CUTEDSL_FUSED_GROUPED_MLP=1:
                              TE ops/fused/forward_grouped_mlp.py, backward_grouped_mlp.py, v2.16):
                              cuDNN's grouped GEMM kernels apply the experts' GLU, biases and router
                              probabilities and quantize their outputs in the epilogue, so the
                              experts' activation, clamp and bias passes and two of their casts are
                              gone; needs dtype
                              mxfp8, compute capability 10.x, a gated MoE model with etp 1 and
                              widths divisible by 64 (pl_layout_resolve refuses otherwise) */
  int64_t cudnn_cluster_margin; /* input: clusters of two SMs that the fused grouped MLP's cuDNN
                              kernels leave out of their persistent grid for concurrent
                              communication (cuDNN frontend's CUDNNFE_CLUSTER_OVERLAP_MARGIN;
                              Megatron-Bridge's fused-MLP configs set 8); needs fused_grouped_mlp;
                              0 = none (src/sim/compute.c cluster_margin_s) */
  int64_t ub_proj_fprop_sms; /* input: with tp_comm_overlap and sp, the SMs Transformer Engine's
                              userbuffers reserve for the reduce_scatter beside the forward proj
                              GEMM (its ub config's num_sm with set_sm_margin; TE
                              comm_gemm_overlap.cpp _math_sms): the GEMM runs on the other SMs;
                              0 = no margin (src/sim/ub_margin.c) */
  int64_t ub_fc2_fprop_sms; /* input: the same for the forward fc2 GEMM */
  int64_t hybridep_sms;     /* input: SMs of HybridEP's dispatch and combine kernels
                               (Megatron-Core moe_hybridep_num_sms; 0 = its default 16):
                               which of HybridEP's measured rates sim/moe_comm.c uses */
  int64_t nccl_max_ctas_tp;  /* input: the NCCL CTA cap of the tp communicator (ncclConfig_t
                               maxCTAs, Megatron-Core --nccl-communicator-config-path 'tp'
                               max_ctas, after NCCL's env rules and NCCL_MIN_NCHANNELS' floor);
                               0 = none. Its calls run on at most that many channels
                               (src/net/ctas.c; sim/groups.c) */
  int64_t nccl_max_ctas_cp;  /* input: the same for the cp communicator ('cp') */
  int64_t nccl_max_ctas_dp;  /* input: the same for the data-parallel communicator plateau's
                               dp group is (dp x cp: 'dp_cp', 'dp' without cp) */
  int64_t nccl_max_ctas_pp;  /* input: the same for the pipeline neighbours ('pp') */
  bool attention_te;       /* input: Transformer Engine picks the kernel (get_attention_backend):
                              pl_layout_resolve sets attention_cudnn on compute capability >= 9.0
                              (GPU arch hopper, blackwell) where cuDNN trains the head dims, and
                              leaves FlashAttention-2 otherwise (docs/step-model.md 2.2) */
  int64_t step_sync_all_reduces; /* input: small all_reduces over all GPUs once per optimizer
                              step, each waited for by the host before the next is issued, so
                              their latencies add up on the step (Composer's trainer loop: loss,
                              sample/token counts, grad-norm, metric barriers; data/frameworks/
                              llm-foundry.json); default 0 (src/sim/step_sync.c) */
  int64_t step_sync_broadcasts; /* input: the same for small broadcasts from rank 0 */
  int64_t opt_syncs_per_tensor; /* input: host syncs the eager optimizer makes per parameter
                              tensor of the GPU (Composer's DecoupledAdamW reads each tensor's
                              step counter with .item() before its kernels: 1), so each tensor's
                              kernels wait for the host to issue them (src/sim/opt_host.c);
                              default 0: the optimizer is charged by bytes only */
  int64_t step_sync_all_gathers; /* input: the same for small all_gathers (torchmetrics' metric
                              state sync) */
  int64_t logit_metric_passes; /* input: forward-only fp32 cross-entropy passes over the logits
                              per micro-batch for training metrics (Composer's train metrics
                              after each micro-batch's backward: LanguageCrossEntropy and
                              LanguagePerplexity, 2 for llm-foundry's MPT); default 0 */
  bool grad_accum_cast;    /* input: ddp/zero1 16-bit gradients are cast to an fp32 temporary
                              before being added to the fp32 accumulation buffer (DeepSpeed
                              BF16_Optimizer.update_hp_grads: 18 B per parameter and
                              micro-batch instead of Megatron's main_grad.add_, 10 B) */
  bool gather_no_prefetch; /* input: zero3 parameter all_gathers are not prefetched: a unit's
                              gather starts after the previous unit's compute and its compute
                              waits for it (DeepSpeed ZeRO-3 before PR #1188, June 2021: each
                              all_gather called torch.cuda.synchronize()) */
  bool zero1_grad_all_reduce; /* input: zero1 gradients are all_reduced over the whole
                              data-parallel group, not reduce_scattered, before the sharded
                              optimizer step (DeepSpeed's pipeline engine with BF16_Optimizer:
                              runtime/pipe/engine.py _bf16_reduce_grads) */
  bool fsdp_one_comm;      /* resolved: zero2/zero3 parameter all_gathers and gradient
                              reduce_scatters share one NCCL communicator, so they run one at
                              a time in issue order, a unit's backward prefetch gather before
                              its reduce_scatter (PyTorch FSDP1 and FSDP2 by default: one
                              process group whose collectives run on one NCCL stream;
                              pytorch/pytorch #65299, #186335). True for zero2/zero3 unless
                              fsdp_separate_comms; an input true is kept */
  int64_t ep;              /* expert-parallel degree: the routed experts split over ep ranks
                              (MoE models; 1 for dense) */
  int64_t etp;             /* expert tensor parallelism: each expert's MLP split over etp
                              ranks (Megatron --expert-tensor-parallel-size; default 1) */
  int64_t edp;             /* expert data parallelism (derived): gpus / (etp * ep * pp), as
                              megatron/core/parallel_state.py derives
                              expert_data_parallel_size */
  double moe_imbalance;    /* tokens the busiest expert rank receives over the mean (>= 1;
                              0 = the default, docs/model.md "Mixture of experts") */
  enum pl_moe_dispatch dispatch; /* token dispatcher (MoE models) */
  bool moe_pad_capacity;   /* input (--moe-pad-capacity): the experts' inputs are dropped and
                              padded to their capacity (Megatron-Core
                              moe_expert_capacity_factor with moe_pad_expert_input_to_capacity,
                              NeMo's MegatronTokenDropCallback): the alltoall dispatcher knows
                              every split size on the host, so its preprocess neither counts
                              the tokens nor all_gathers the counts (token_dispatcher.py
                              MoEAlltoAllTokenDispatcher.preprocess returns early under
                              drop_and_pad; model/moe_dispatch.c, sim/moe_comm.c) */
  bool moe_force_balance;  /* input (--moe-force-balance): the benchmark's forced balance,
                              Megatron-Core moe_router_force_load_balancing (every
                              Megatron-Bridge MoE performance config): the router's logits
                              are replaced by random ones each forward (moe_utils.py
                              RandomSTE: logits.clone().normal_()), two kernels per MoE block
                              (model/flops.c router_random); the balance itself is
                              moe_imbalance 1 */
  bool moe_fake_gate;      /* input (--moe-fake-gate): NeMo AutoModel's FakeBalancedGate
                              (BackendConfig fake_balanced_gate, every AutoModel MoE benchmark
                              config; NVIDIA-NeMo/Automodel components/moe/layers.py, noise
                              0): no router GEMM, top-k or load-balancing loss; token t of a
                              rank's micro-batch takes experts (t k + j) mod E, j < k, with
                              weights 1/k, so every expert gets the same rows (imbalance 1)
                              and a token's copies go to consecutive experts: the flex
                              dispatcher sends it to the few ranks and nodes those span
                              (sim/moe_comm.c sim_moe_fake_gate_share). Not with moe_force_balance */
  bool moe_fc1_bias_eager; /* input (--moe-fc1-bias-eager): an MoE with expert biases (model
                              mlp_bias, GPT-OSS) adds fc1's bias after the grouped GEMM eagerly,
                              NeMo AutoModel's GroupedExpertsDeepEP._apply_bias without
                              probabilities (components/moe/layers.py @ 89e3a9fdd: ops.gmm has
                              no bias; torch.cat([t + b for t, b in zip(torch.split(out,
                              tokens_per_expert), bias)])): op expert_fc1_bias (flops.c
                              EXPERT_FC1_BIAS). fc2's bias is the existing expert_bias */
  bool fsdp_ga_nosync;     /* input (--fsdp-ga-nosync on|keep): zero2/zero3 with pp 1 and
                              gradient accumulation as NeMo AutoModel runs it: every backward
                              but the step's last runs with set_requires_gradient_sync(False)
                              on a root FSDP module (recurse=True: every unit), so it does not
                              reduce_scatter (the gradient accumulates unsharded); the last
                              backward reduce_scatters each unit as usual. Source:
                              recipes/llm/train_ft.py _forward_backward_step ->
                              components/distributed/utils.py get_sync_ctx(model, idx ==
                              num_batches - 1), which acts when the model passed is an
                              FSDPModule (defer_fsdp_grad_sync, default True, from bb0c0bfb0).
                              pp 1 only (sim/lower.c) */
  bool fsdp_ga_keep;       /* input (--fsdp-ga-nosync keep): with fsdp_ga_nosync, the units also
                              stay gathered after a non-final backward
                              (set_reshard_after_backward(False)): NeMo AutoModel's
                              MoEFSDPSyncMixin (components/moe/fsdp_mixin.py, 2c236e081+, with
                              BackendConfig enable_fsdp_optimizations;
                              prepare_for_grad_accumulation before the first micro-batch,
                              prepare_for_final_backward before the last), so the next
                              forward gathers nothing; zero3 still frees after each forward
                              (reshard_after_forward) and gathers again for the backward */
  bool moe_act_compiled;   /* input (--moe-act-compiled): a clamped GLU's experts (model
                              glu_clamp, GPT-OSS) run their activation as one torch.compile'd
                              kernel each way, NeMo AutoModel's quick_geglu_deepep
                              (components/moe/layers.py @ 89e3a9fdd, @torch.compile: the
                              strided halves, both clamps, the sigmoid, the offset and the
                              probabilities fused into one pointwise kernel): no expert_clamp
                              op (Megatron-Core's eager clamp + cat and its blocking offset
                              copy), expert_act at the fused GLU's bytes */
  double moe_random_imbalance; /* derived (resolve, with moe_force_balance): the busiest
                              expert-parallel rank's expected load over the mean under the
                              random logits, pl_moe_random_imbalance (model/moe_balance.c);
                              pl_moe_imbalance takes the larger of it and moe_imbalance */
  bool fsdp_separate_comms; /* input: the reduce_scatters have a communicator of their own
                              (a second process group, e.g. FSDP2's reduce_scatter_group or
                              torchtitan's option), so they overlap the gathers */
  /* Behaviours set through struct pl_framework (framework.h), false by default: */
  bool tp_comm_overlap;    /* input: with sp, the transformer layers' tp all_gathers and
                              reduce_scatters run beside their GEMMs (Transformer Engine
                              userbuffers, ub_tp_comm_overlap; torchtitan async TP), not after */
  bool overlap_param_gather; /* input: zero1 parameter all_gathers overlap the next step's
                              forward (Megatron-Core DDP overlap_param_gather), not waited for
                              after the optimizer step */
  bool overlap_p2p;        /* input: pipeline send/recv are asynchronous: only the receiver
                              waits (Megatron-Core overlap_p2p_comm), not blocking */
  bool p2p_serial;         /* input: 1F1B, vp = 1: every pipeline send and recv is its own
                              blocking call, issued one at a time in DeepSpeed's TrainSchedule
                              order (RecvGrad, SendActivation before a backward; SendGrad,
                              RecvActivation before a forward), each waiting for both stages:
                              a boundary's two transfers run one after the other (DeepSpeed
                              runtime/pipe/schedule.py, p2p.py; lower_p2p.c sim_p2p_emit_serial) */
  bool p2p_scatter_gather; /* input: pp > 1, tp > 1, no sp: every tensor a stage receives
                              (activation or gradient) came split over the tp ranks and is
                              put back by an all_gather over tp plus a copy of the whole
                              tensor (Megatron-LM v2.1-v3.0 p2p_communication.py _communicate,
                              --scatter-gather-tensors-in-pipeline; lower_p2p.c sg_pass_extras) */
  bool grad_reduce_bf16;   /* input: ddp/zero1 gradients reduced in bf16 (Megatron-Core
                              grad_reduce_in_fp32 = False, NeMo grad_sync_dtype bf16), not fp32 */
  bool grad_comm_cast;     /* input: ddp/zero1 fp32 gradients cast to bf16 for the data-parallel
                              reduction only and copied back (DeepSpeed's default
                              communication_data_type under bf16, engine.py allreduce_bucket);
                              the tied-embedding all_reduce stays fp32 (lower_dp.c) */
  bool shard_grads_reduce_dtype; /* input: zero2/zero3 keep their gradient shards in the reduce
                              dtype (bf16 with grad_reduce_bf16), as Megatron-Core's Megatron
                              FSDP does (megatron_fsdp/param_and_grad_buffer.py
                              ParamAndGradBuffer._init_each_parameter_group_buffers: the
                              main_grad_buffer is fp32 only with grad_reduce_in_fp32, else the
                              parameters' dtype, bf16 also for FP8 parameters); false: fp32,
                              as PyTorch FSDP2 casts reduced gradients to its fp32 sharded
                              parameters' dtype (memory_states.c model_mem_states) */
  double host_per_kernel_s; /* input: host (CPU) time to issue one kernel from eager PyTorch:
                              Python, the dispatcher, autograd and the launch call. A pass of a
                              segment takes at least its kernels times this (the host is the
                              bottleneck when kernels are short); 0 (default) = not modelled,
                              the CPU always runs ahead. docs/step-model.md 2.6 */
  double host_per_gemm_s;  /* input: host time to issue one cuBLAS GEMM, counted for each GEMM
                              call of a pass instead of host_per_kernel_s: Transformer Engine
                              builds the cuBLASLt descriptors and queries its heuristic on every
                              call, and its GroupedLinear makes one call per local expert
                              (sim_op_run_gemms). 0 (default) = a GEMM counts as any kernel.
                              docs/step-model.md 2.6 */
  double host_per_launch_s; /* input: host time of one kernel Transformer Engine launches from a
                              C++ loop, counted for each per-expert quantize kernel of a grouped
                              expert GEMM under FP8 current scaling, FP8 block scaling or MXFP8
                              (split_quantize: sim_op_split_quantize_kernels). 0 (default) = not
                              counted. docs/step-model.md 2.6 */
  double zero3_list_copy_s; /* input: zero3 collectives one parameter tensor per call through
                              the tensor-list c10d API (DeepSpeed 0.3.16 ZeRO-3 on PyTorch
                              1.7-1.8 ProcessGroupNCCL): each call costs the host one copy_
                              per rank of this time, and each gather synchronizes the device
                              (waits for the gradient reductions issued before it: lower.c emit_segments). 0 (default) = one call per
                              unit, flat tensors. docs/step-model.md 2.7 */
  bool zero3_no_reuse;     /* input: with zero3_list_copy_s, DeepSpeed's module trace does not
                              match at run time (stage3.py v0.3.14-v0.5.x: the top module's
                              reset_step pre-hook runs after its fetch hook, so every step id
                              is off by one), so _keep_for_later never keeps a parameter:
                              every use of a parameter gathers it again (the backward after
                              the recomputed forward included); false (default): a parameter
                              reused within stage3_max_reuse_distance (1e9 elements) stays
                              gathered. fsdp_comm.c zero3_regathered, docs/step-model.md 2.7 */
  bool zero3_debug_norm;   /* input: with zero3_list_copy_s, every module fetch computes each
                              of the module's parameters' norm and reads it back to the host:
                              DeepSpeed v0.3.15-v0.4.1 stage3.py fetch_sub_module formats
                              `norm {param.norm()}` into a debug message whether or not it is
                              printed, and a 0-dim tensor's __format__ calls item(). A read
                              of the parameter per fetch, and the host waits for it.
                              segments.c zero3_debug_norm_op, docs/step-model.md 2.7 */
  bool zero3_grad_all_reduce; /* input: zero3 gradients all_reduced in buckets of whole
                              gradients, one call per bucket (DeepSpeed ZeRO-3 with its default
                              config of 2021, contiguous_gradients false: stage3.py
                              reduce_ipg_grads -> allreduce_bucket), not
                              reduce_scattered per unit; with zero3_list_copy_s no per-rank
                              list copies. docs/step-model.md 2.7 */
  double bucket_bytes;     /* input: ddp/zero1 gradient bucket (one reduce call) and zero1
                              parameter all_gather call size; 0 (default) = 25 MiB, torch DDP
                              bucket_cap_mb (pl_layout_bucket_bytes) */
  bool bucket_dp_scaled;   /* input: Megatron-Core DDP's default bucket instead:
                              max(40e6, 1e6 * dp * cp) parameters (pl_layout_bucket_bytes) */
  double bucket_params;    /* input: a bucket of this many parameters instead (Megatron-Core
                              DistributedDataParallelConfig.bucket_size as set by NeMo 2's
                              MegatronCommOverlapCallback and Megatron-Bridge's
                              CommOverlapConfig when dp > 1), whatever the gradient dtype;
                              0 = unset (pl_layout_bucket_bytes) */
  bool fp8_weight_cache;   /* input: with FP8 (Transformer Engine), the weights are cast to FP8
                              on the first micro-batch of a step only and the cached copy is used
                              by the others (Megatron-Core forward_step calls
                              set_is_first_microbatch; TE Linear's is_first_microbatch) */
  bool fp8_all_gather;     /* input: with dtype fp8-tensorwise (torchao Float8Linear) and
                              zero2/zero3, each block's GEMM weight shard is cast to FP8 before
                              FSDP's all_gather, which then moves 1 B per weight element, and the
                              gathered FP8 weight is used without further casts (torchao
                              float8/fsdp_utils.py WeightWithDynamicFloat8CastTensor
                              fsdp_pre_all_gather; torchtitan enable_fsdp_float8_all_gather,
                              default false; fsdp_comm.c sim_seg_fsdp, segments.c fp8_casts). With a per-tensor
                              Transformer Engine recipe (fp8, fp8-delayed, fp8-current) it is
                              Megatron-Core's fp8_param_gather under Megatron FSDP: the GEMM
                              weights are FP8 parameters, 1 B shards and gathers, cast from the
                              master shard after the optimizer step (pl_layout_te_fp8_params;
                              memory_states.c model_mem_states) */
  bool launch_blocking;    /* input: CUDA_LAUNCH_BLOCKING=1 in the run's environment: every
                              kernel launch returns only when the kernel has finished, so the
                              host's per-kernel time (host_per_kernel_s) adds to a pass's GPU
                              time instead of overlapping it (sim_seg_ops_s; BLOOM's tr11 slurm
                              script, docs/frameworks.md) */
  bool ep_comm_overlap;    /* input: MoE models with ep > 1: the expert-parallel token
                              collectives of a transformer block run on their own stream beside
                              the compute, as Megatron-Core's combined 1F1B schedule runs them
                              (--overlap-moe-expert-parallel-comm: the forward of one micro-batch
                              merged with the backward of another, layer by layer, the dispatch
                              and combine of one hidden behind the attention and expert compute
                              of the other; lower_unit.c ep_beside); false: blocking after it */
  bool delay_wgrad;        /* input: with ep_comm_overlap, Megatron-Core's delay_wgrad_compute:
                              a merged layer's backward runs the experts' and the attention
                              linears' weight-gradient GEMMs after the dispatch it overlaps is
                              issued, so the next collective waits for the dgrad alone
                              (fine_grained_callables.py TransformerLayerNode.backward_dw,
                              model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run,
                              core_v0.16.0; lower_unit.c ep_windows); false: inside the backward */
  bool head_16bit;         /* input: with dtype fp8, mxfp8 or nvfp4 the LM head's GEMMs still run
                              in 16-bit: Megatron-Core builds the output layer as
                              tensor_parallel.ColumnParallelLinear, a plain torch matmul that TE's
                              autocast does not quantize (megatron/core/models/gpt/gpt_model.py;
                              TE's TELMHeadColumnParallelLinear only with fp8_output_proj and the
                              MXFP8 recipe, default off); false: at the layout's dtype */
  bool eager_xent;         /* input: the loss is PyTorch's eager cross_entropy on an fp32 copy of
                              the logits (torchtitan train.py loss_fn, 9dec370): log_softmax saves
                              its fp32 output, the backward adds its dense fp32 gradient and the
                              fp32 input gradient, 12 B per logit at the loss's backward instead
                              of the 4 B of an in-place fp32 cross-entropy (memory.c); with
                              tp > 1 PyTorch's loss_parallel, 16 B (memory.c); its time: the
                              fp32 cast and passes (compute.c eager_xent_extra_s), whatever
                              layout.kernels says */
  bool tp_gathered_saved;  /* input: with tp > 1 and sp, tensor parallelism is PyTorch DTensor's
                              plan (torchtitan apply_tp): the input hooks all-gather the
                              sequence-sharded activation before the attention, the feed-forward
                              and the output layer, whose column-parallel linears save the gathered
                              tensor whole for their weight gradient (Megatron's save the shard);
                              memory only (memory_int.h tp_gathered_inputs_saved); set by
                              validate's torchtitan loader */
  bool fp32_param_shards;  /* input: zero3 as PyTorch FSDP keeps it: the shards are the fp32
                              parameters, updated in place by the optimizer (fully_shard's
                              MixedPrecisionPolicy casts to bf16 only for the all-gather), no
                              16-bit shard and no separate master: 16 B per parameter instead of
                              18 (memory_states.c); memory only; set by validate's torchtitan
                              loader */
  bool fsdp1_copies;       /* input: zero2/zero3 as PyTorch FSDP1 (FullyShardedDataParallel with
                              a FlatParameter) copies: the all_gather writes the flat parameter
                              whose views the module uses (no copy-out), the views' split backward
                              concatenates the gradients into the flat gradient (read + write
                              2 B), which is cast to the reduce dtype (fp32: read 2, write 4 B)
                              and pre-divided in place (fp32 8 B, bf16 4 B) before the
                              reduce_scatter; instead of FSDP2's copy-out and chunk_cat
                              (src/sim/segments.c param_kernels) */
  bool fsdp2_predivide;    /* input: zero2/zero3 as PyTorch 2.3's FSDP2 reduces bf16 gradients
                              (torch/distributed/_composable/fsdp/_fsdp_param_group.py
                              _init_grad_divide_factors, _fsdp_collectives.py
                              foreach_reduce_scatter: _div_if_needed(reduce_scatter_input,
                              predivide_factor), a factor > 1 for any
                              data-parallel world of 2 or more): with a bf16 reduce one more
                              pass over the whole reduce_scatter input per micro-batch, read +
                              write 2 B per parameter; an fp32 reduce divides inside NCCL
                              (ReduceOp.AVG, pytorch #120919, in 2.3) and bf16 too from 2.4
                              (#123362), with no pass
                              (src/sim/segments.c param_kernels); ignored with fsdp1_copies,
                              which has its own */
  bool inductor_norms;     /* input: with fused kernels, the RMSNorms are torch.compile's
                              (Inductor's) generated Triton reductions: the norm ops at the
                              GPU file's efficiency.rms_norm_compiled (src/sim/compute.c
                              eager_norm_s; docs/step-model.md 2.3b), not hbm_fraction */
  bool fused_norm;         /* input: with unfused kernels, the RMSNorms run as one fused kernel
                              each way (torchtitan's Triton FusedRMSNorm, norm_type =
                              "fused_rmsnorm", torchtitan/models/norms.py, 2024-04-05 to
                              37c4b8181, 2025-02-06): no rmsnorm_eager chain, the norm ops at
                              their 4 / 6 B per element at hbm_fraction (src/sim/segments.c
                              unfused_kernels, compute.c eager_norm_s) */
  bool fsdp2_rs_copy_in;   /* input: zero2/zero3 as PyTorch 2.3's FSDP2 places the gradient
                              copy-in (_fsdp_collectives.py foreach_reduce_scatter: the copy-in
                              and the pre-divide under torch.cuda.stream(reduce_scatter_stream)
                              after reduce_scatter_stream.wait_stream(current_stream), then
                              current_stream.wait_event(copy_in_event)): the pass runs behind
                              the previous unit's reduce_scatter and the next unit's backward
                              waits for it, so when the reduce_scatters are the longer a unit
                              takes its reduce_scatter plus the copy-in, not the longer of the
                              two; priced as its own compute task after the unit and the
                              previous reduce_scatter (sim_seg.rs_copy_s, lower.c
                              emit_segments); later FSDP2 copies in on the compute stream
                              (foreach_reduce: chunk_cat before reduce_scatter_stream.
                              wait_stream); not with fsdp_pp_unsharded and pp > 1, which
                              reduces once after the last backward */
  bool adam_no_master;     /* input: the optimizer keeps no master copy of the parameters; the
                              16-bit parameters are updated in place: Apex DistributedFusedAdam
                              with store_params False, as NeMo 1 sets it when the optimizer
                              dtype equals the model's (megatron_base_model.py
                              setup_optimization, NeMo v2.0.0): 0 B of master instead of 4 (or
                              the 2 B remainder); memory only (memory_states.c); set by
                              validate's dgxc loader */
  bool moe_host_sync;      /* input: MoE blocks: the host waits once per block's forward for the
                              GPU to count the tokens each local expert receives before it issues
                              the expert GEMMs (Megatron-Core's token dispatchers: the split sizes
                              and TE GroupedLinear's m_splits are host lists), so the GPU idles
                              while the host issues what follows; used with the host floors
                              (host_per_kernel_s, host_per_gemm_s) and without ep_comm_overlap
                              (sim/moe_sync.c) */
  bool moe_router_unfused; /* input: MoE router without Megatron-Core's moe_router_fusion: the
                              top-k routing and the load-balancing loss run as eager PyTorch
                              kernels (core_v0.16.0 moe_utils.py fused=False), not Transformer
                              Engine's fused router kernels; model/flops.c ROUTER_TOPK_UNFUSED */
  bool jit_eager;          /* input: Megatron-Core's @jit_fuser activation functions (the MLPs'
                              and the routed experts' SwiGLU, fusions/fused_bias_swiglu.py) run
                              as eager PyTorch kernels, one per op on the chunked halves, not as
                              torch.compile's one fused kernel each way; model/flops.c
                              SWIGLU_EAGER (docs/step-model.md "Eager SwiGLU") */
  bool moe_expert_padding; /* input: MoE blocks under an FP8/FP4 recipe (dtype fp8, mxfp8, nvfp4):
                              Transformer Engine's Fp8Padding copies each local expert's rows to a
                              multiple of 16 (32 for MXFP8) before the grouped GEMMs and
                              Fp8Unpadding copies them back after (Megatron-Core TEGroupedMLP,
                              core_v0.14.0 .. core_v0.18.0), unless the router already padded
                              the counts (moe_router_padding_for_fp8 / _for_quantization) or
                              HybridEP's dispatch did (dispatch hybridep); model/flops.c moe_ops */
  bool pg_with_opt_step;    /* input: zero1 with overlap_param_gather: Megatron-Core's
                              overlap_param_gather_with_optimizer_step: the first model chunk
                              has an optimizer of its own, whose step is followed by that
                              chunk's parameter gather while the other chunks' step runs
                              (sim/lower_dp.c) */
  bool align_grad_reduce;   /* input: with overlap_grad_reduce and pp > 1, Megatron-Core's
                              align_grad_reduce (Megatron-LM --no-align-grad-reduce unset,
                              Megatron-Bridge DistributedInitConfig): the schedule launches a
                              chunk's whole reduction itself (config.grad_sync_func): 1F1B, on
                              stages after the first, after the last backward; interleaved,
                              after the backward pp_rank virtual micro-batches later
                              (sim/lower.c) */
  bool te_linear_bwd_overlap; /* input: the blocks' linears are Transformer Engine modules, whose
                                 column-parallel backward (TE 2.x module/linear.py _Linear.backward,
                                 layernorm_linear.py _LayerNormLinear.backward) all_gathers its saved
                                 input async behind the dgrad GEMM and reduce_scatters (sp) or
                                 all_reduces the dgrad async behind the wgrad GEMM; used with tp > 1
                                 and no tp_comm_overlap (sim/lower_unit.c te_bwd_windows) */
  bool megatron_xent;      /* input: the loss is Megatron's vocab_parallel_cross_entropy run op by
                              op on an fp32 copy of the logits (Megatron-LM without
                              --cross-entropy-loss-fusion, its default: core_r0.8.0
                              megatron/core/tensor_parallel/cross_entropy.py; the 2020 code
                              megatron/mpu/cross_entropy.py; Megatron-DeepSpeed): forward
                              .float(), max, subtract, exp, sum, div_ = 38 B per logit, backward
                              mul_ and the cast back to 16 bits = 14 B, against the single fused
                              pass of the op list (6 + 6 B); time only (sim/compute.c); ignored
                              with te_cross_entropy or unfused kernels */
  bool megatron_softmax;   /* input: eager attention's softmax is Megatron's FusedScaleMaskSoftmax
                              (legacy Megatron-LM since 2021-02, Megatron-DeepSpeed): its fused
                              kernel only for the shapes is_kernel_available takes (b * np a
                              multiple of 4, ...), else PyTorch's fp32 softmax op by op: 37 B and
                              5 kernels forward, 41 B and 5 backward per score instead of 4 / 6 B
                              and 1 (sim/compute.c megatron_softmax_fused, constants.h) */
  bool parallel_block;     /* input: the parallel transformer block y = x + Attention(LN(x)) +
                              MLP(LN(x)) (GPT-J, PaLM Sec. 2, MegaScale Sec. 3.1) as GPT-NeoX's
                              ParallelTransformerLayer runs it with gpt_j_residual and tied
                              norms: one norm per block (no norm2), the attention and MLP
                              row-parallel outputs summed before ONE tp reduction (one
                              all_reduce, or all_gather + reduce_scatter with sp, per block and
                              pass instead of two), the MLP's bias-dropout-add onto the
                              attention output over the full (unsplit) tokens, then the
                              residual add (flops.c pl_layer_ops, sim/segments.c layer_tp);
                              dense non-hybrid blocks only */
  bool gqa_query_copy;     /* input: the query is copied once per block's forward after the
                              split of the fused QKV output, as Megatron-Core's
                              SelfAttention.get_query_key_value_tensors runs it (attention.py,
                              core_v0.16.0 as read by oss21; other tags not checked): the view
                              [sq, b, ng, (np/ng + 2) hn] is split (views) and query.reshape
                              (sq, b, np, hn) cannot be a view when 1 < ng < np per tp rank
                              (the group stride (np/ng + 2) hn is not (np/ng) hn); 2 B read +
                              2 B written per query element (model/flops.c, op q_copy) */
  bool fms_rope;           /* input: with unfused kernels, RoPE runs as IBM fms's eager
                              RotaryEmbedding.adjusted_qk (fms/modules/positions.py,
                              foundation-model-stack ec70f500, 2024-03-10): q.float(), a
                              broadcast multiply by the 2 x 2 rotation of each pair into a
                              [.., d/2, 2, 2] fp32 tensor, .sum(5), .type_as(q): 36 B per q and
                              k element each way against the fused 4 B (sim/segments.c
                              unfused_kernels, op rope_eager); off: HF's rotate_half path */
  bool kv_expand_copy;     /* input: with fewer kv heads than query heads per tp rank, K and V
                              are expanded to every query head with expand + flatten before
                              SDPA, which copies them (fms MultiHeadAttention.forward,
                              keys.unsqueeze(2).expand(...).flatten(1, 2), ec70f500); the
                              backward sums the copies back: 2 B read per kv element and 2 B
                              written per query-head element for K and for V, each way
                              (sim/segments.c kv_expand_ops, op kv_expand) */
  bool separate_linears;   /* input: the attention's q, k and v projections are three linears
                              and a gated MLP's w1, w3 two (torchtitan models/llama3/model/
                              model.py Attention wq, wk, wv and FeedForward w1, w3 nn.Linear;
                              9dec370 models/llama/model.py the same), not one fused QKV and
                              one fused fc1 GEMM: the ops qkv and fc1 are timed as their
                              separate GEMMs (forward, dgrad, wgrad each; sim/compute.c
                              separate_linears_ratio), the input gradients are summed by
                              autograd (ops qkv_grad_sum, fc1_grad_sum) instead of concatenated
                              (qkv_grad_cat), and fp8-tensorwise without tp casts each linear's
                              input (segments.c fp8_casts) */
  bool rope_complex;       /* input: RoPE by complex multiplication (torchtitan's
                              apply_rotary_emb: view_as_complex of the fp32 q/k, times the
                              complex freqs_cis, view_as_real, type_as), which TorchInductor
                              does not generate code for (torch/_inductor/lowering.py
                              unsupported_input_tensor: complex tensors fall back to eager
                              ATen kernels; torchtitan issue 15): the cast, complex multiply
                              and cast-back kernels run even under torch.compile, +16 B
                              forward and +16 B backward per q and k element beyond the fused
                              rope op (op rope_complex, segments.c) */
  bool te_cross_entropy;   /* input: the loss is Transformer Engine's fused cross-entropy
                              (Megatron-Core cross_entropy_loss_fusion with
                              cross_entropy_fusion_impl 'te': language_module.py
                              compute_language_model_loss -> te_parallel_cross_entropy): its
                              Triton kernels read the 16-bit logits and write the gradient into
                              them in place, and the autograd node saves that tensor (TE 2.x
                              transformer_engine/pytorch/cross_entropy.py CrossEntropyFunction,
                              triton/cross_entropy.py cross_entropy_forward), so the logits stay
                              2 B; false: Megatron-Core's native paths, which upcast them to an
                              fp32 copy and save it (tensor_parallel/cross_entropy.py
                              calculate_logits_max .float()); memory.c activations */
  bool opt_fused;          /* input: with kernels unfused (eager PyTorch), the optimizer is
                              torch.optim.AdamW(fused=True): one _fused_adamw_ multi_tensor_apply
                              kernel family reading param, grad, m, v and writing param, m, v
                              (28 B per parameter) instead of _multi_tensor_adamw's eight foreach
                              passes (80 B); lower_dp.c, constants.h ADAMW_FUSED_EAGER_* */
  bool autocast_weight_casts; /* input: fp32 parameters under torch.autocast(bf16): every GEMM
                                 weight cast to bf16 each forward (6 B per element) and its
                                 gradient cast back each backward (6 B); src/sim/autocast.c */
  bool opt_torch;          /* input: the optimizer is torch.optim's AdamW (foreach, or fused with
                              opt_fused) and clip_grad_norm_ eager even when kernels are fused:
                              torch.compile compiles the model's blocks, not the optimizer step
                              (torchtitan); lower_dp.c sim_opt_bytes_per_param */
  bool opt_sgd;            /* input: the optimizer is torch.optim.SGD with momentum 0 and a
                              weight decay, stepping the 16-bit parameters themselves (Lightning
                              Fabric precision 'bf16-true': bf16 parameters and gradients, no
                              fp32 master): no optimizer state (0 B), 16-bit gradients, and
                              per parameter grad.add(param) then param.add_(grad), 12 B
                              (torch/optim/sgd.py _single_tensor_sgd; constants.h SGD_*);
                              lower_dp.c sim_opt_bytes_per_param, memory_states.c */
  bool no_grad_clip;       /* input: no gradient-norm pass before the optimizer step (the
                              run does not clip: torch clip_grad_norm_ / Megatron clip_grad 0);
                              lower_dp.c */
  bool adam_moments_bf16;  /* input: Adam's two moments kept in bf16, 2 B each, as Megatron-Core's
                              precision-aware optimizer keeps them (--use-precision-aware-optimizer
                              --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16: optimizer/__init__.py
                              passes exp_avg_dtype / exp_avg_sq_dtype to TE's FusedAdam; needs the
                              distributed optimizer, optimizer_config.py __post_init__). With no
                              FP8 recipe (or delayed scaling) TE's FusedAdam also holds the master
                              weights (master_weights, use_precision_aware_optimizer_no_fp8_or_ds_fp8)
                              and, for bf16 parameters, only their 16-bit remainders
                              (store_param_remainders, default True in OptimizerConfig): 2 B; with
                              other FP8 recipes Megatron-Core keeps fp32 master shards, 4 B.
                              false: 12 B per parameter; memory_states.c model_mem_states,
                              lower_dp.c */
  bool fsdp_block_units;   /* input: zero3 as Megatron FSDP runs it: the FSDP units are the
                              transformer blocks only (mcore_fsdp_adapter.py
                              FullyShardedDataParallel: fsdp_unit_modules = [TransformerLayer]
                              for optim_grads_params, core_v0.14.0-v0.18.0); the modules outside
                              them (embedding, final norm, LM head) are gathered in 16-bit on
                              first use and stay gathered through the step (megatron_fsdp.py
                              _register_fsdp_hooks registers the post-forward release only on
                              units; param_and_grad_buffer.py AllGatherPipeline.release_bucket:
                              "Non-unit modules should remain persistently allocated"); false: the
                              embedding / LM head gathered and freed as units, the largest unit
                              sizing the working set (PyTorch FSDP); memory_states.c
                              model_mem_states */
  bool fsdp_root_unit;     /* input: zero2/zero3 with one model chunk per rank (pp = vp = 1), as
                              PyTorch FSDP1 / FSDP2 run a model whose root module is wrapped last
                              (torchtitan before 83e694105, 2025-07-28: fully_shard(model) over the
                              embedding, final norm and output; FSDP1 auto-wrap of the blocks,
                              then FSDP(model)): the embedding and the LM head with its norm are
                              ONE unit, gathered before the first forward unit, not resharded
                              after the forward (FSDP2 _fsdp_state.py FSDPState._lazy_init:
                              post_forward_mesh_info = None for the root; FSDP1 _runtime_utils.py
                              _post_forward_reshard: never frees the root), and reduce_scattered
                              once, after the whole backward, which the optimizer waits for
                              (FSDP2 _root_post_backward_final_callback runs the root's
                              post_backward, then the current stream waits for the reduce-scatter
                              event). Not with fsdp_block_units or zero3_list_copy_s; lower.c */
  bool hf_shift_copy;      /* input: with eager_xent, the loss as Hugging Face's causal-LM
                              heads compute it (transformers 00227283 models/llama/
                              modeling_llama.py LlamaForCausalLM.forward: logits.float(), then
                              shift_logits = logits[..., :-1, :].contiguous() before
                              CrossEntropyLoss): one more fp32 copy of the logits forward (read 4,
                              write 4 B per logit) and its slice backward (zeros 4, copy 4 + 4):
                              time only (compute.c eager_xent_extra_s); the copy's memory is not
                              counted */
  bool logits_shift_copy;  /* input: without eager_xent (a compiled or fused loss), the 16-bit
                              logits shifted by a copy first, as OLMo-core's trainer does
                              (allenai/OLMo-core e27ba74550 src/olmo_core/train/trainer.py
                              Trainer.get_losses: logits[..., :-1, :].contiguous(), eager, before
                              the compiled cross_entropy_loss): read 2 + write 2 B per logit
                              forward, the slice backward's zeros 2 + copy 2 + 2 B backward: time
                              only (compute.c shift_copy_s) */
  bool eager_z_loss;       /* input: with eager_xent, the z-loss run eagerly on the fp32 logits
                              beside F.cross_entropy, as OLMo-core's cross_entropy_loss before
                              its compile_loss (allenai/OLMo-core 8c03ca8a2 src/olmo_core/nn/
                              functional/cross_entropy_loss.py: z_squared =
                              logits.logsumexp(-1).pow(2), z_loss_multiplier set by the official
                              scripts): ATen's logsumexp and its backward, per logit; time only
                              (compute.c eager_z_loss_s) */
  bool grad_buffer_passes; /* input: ddp/zero1, Megatron-Core's DistributedDataParallel: once per
                              step the whole local gradient buffer is zeroed (distributed_data_
                              parallel.py zero_grad_buffer -> param_and_grad_buffer.py reset:
                              grad_data.zero_()) and, with check_for_nan_in_grad, each bucket's
                              norm read before its reduce (start_grad_sync / check_grads:
                              grad_data.norm(p=2)): one write and one read of every local
                              gradient, on the compute stream (lower_dp.c sim_dp_emit_tail,
                              constants.h GRAD_BUFFER_ZERO_PASSES, GRAD_NAN_CHECK_PASSES) */
  bool no_grad_nan_check;  /* input: with grad_buffer_passes, the run turns Megatron-Core's
                              check_for_nan_in_grad off (DistributedDataParallelConfig(
                              check_for_nan_in_grad=False), e.g. the MLPerf v5.1 NeMo 2
                              pretrain.py): start_grad_sync skips check_grads, so only the zero
                              pass is counted (lower_dp.c sim_grad_buffer_passes_s) */
  bool grad_scale_pass;    /* input: ddp/zero1, Megatron-Core's DistributedDataParallel without
                              average_in_collective (Megatron-LM's default): each bucket's
                              gradients are scaled by 1/dp before its reduce (param_and_grad_
                              buffer.py start_grad_sync: grad_data *= gradient_scaling_factor;
                              `self.data /= self.data_parallel_world_size` since 25c7eb2863): one
                              more read and write of every local gradient (lower_dp.c
                              sim_grad_buffer_passes_s, constants.h GRAD_SCALE_PASSES) */
  bool fp8_amax_reduce_sync; /* input: with dtype fp8 (delayed scaling), Transformer Engine
                              release_v0.8's amax reduction: at the exit of each fp8_autocast
                              region's forward and the end of its backward, the amaxes of the
                              region's FP8 GEMMs (3 fp32 per GEMM forward, 2 backward) are
                              all_reduced (MAX) over the amax group (tp x dp: the ranks of one
                              pipeline stage) with async_op=False, so the compute stream waits
                              for it; one region per model chunk (NeMo 1.17
                              ParallelTransformer.forward); segments.c sim_fp8_amax_reduce_wait_s */
  bool logits_fp32;        /* input: without eager_xent, the model returns its logits cast to fp32
                              (`self.w_out(h).float()`) and a fused loss reads them in fp32, as
                              OLMo-core's fused_loss before its compile_loss (allenai/OLMo-core
                              41400c46f nn/transformer/model.py Transformer.forward; train/
                              trainer.py get_losses -> nn/functional/cross_entropy_loss.py
                              fused_cross_entropy_loss, the Triton kernel of olmo_core/triton/
                              cross_entropy_loss.py): the cast (read 2, write 4 B per logit
                              forward, PyTorch's unrolled copy; its backward read 4, write 2),
                              logits_shift_copy at 4 B per element, the loss reading fp32 (4 B
                              instead of the op's 6) and writing an fp32 gradient (read 4 +
                              write 4 instead of 6); time only (compute.c logits_fp32_s) */
  bool fsdp_pp_unsharded;  /* input: zero2/zero3 with pp > 1: a stage's parameters are gathered on
                              each chunk's first forward and kept unsharded for the whole step,
                              its gradients accumulated unsharded and reduce_scattered once, after
                              the chunk's last backward (torchtitan apply_fsdp: reshard_after_
                              forward False with pp; PyTorch pipelining stage.py
                              backward_maybe_with_nosync); false = per micro-batch, as pp = 1 */
  int64_t pp_schedules;    /* input: pp > 1: the step's micro-batches run as this many pipeline
                              schedules one after another, each with its own fill and drain and,
                              with fsdp_pp_unsharded, its own gathers and reduce_scatters: PyTorch
                              pipelining's schedule.step() once per gradient-accumulation step
                              (NeMo AutoModel recipes/llm/benchmark.py run_benchmark ->
                              train_ft.py _forward_backward_step @ 89e3a9fdd); 0 or 1: one
                              schedule (Megatron-Core) */
  bool pp_keep_outputs;    /* input: pp > 1: every pipeline stage keeps each micro-batch's output
                              (the hidden states it sends; the last stage's logits) until the
                              step ends, as torch.distributed.pipelining did before PyTorch PR
                              #153383 (May 2025): stage.py forward_one_chunk appended every
                              output to output_chunks, cleared only by clear_runtime_states at
                              the next step's start; memory only (memory.c kept_outputs);
                              false: freed after their send and backward (Megatron-Core
                              deallocate_output_tensor) */
  int64_t first_stage_layers; /* input: transformer blocks on the first pipeline stage, the rest
                              split evenly (Megatron-Core --decoder-first-pipeline-num-layers,
                              TransformerConfig.num_layers_in_first_pipeline_stage); 0 = the
                              even split (docs/step-model.md 5) */
  enum pl_fp8_recipe fp8_recipe; /* input: with dtype fp8, its Transformer Engine recipe */
  int64_t recompute_layers; /* input: with recompute full, Megatron-Core --recompute-num-layers N:
                              block method (default), only the first N blocks of each model
                              chunk are recomputed; uniform method (recompute_uniform), groups
                              of N blocks checkpointed at their input; 0 = every block, one by
                              one */
  int64_t recompute_every;  /* input: with recompute full, every K-th block is checkpointed
                              (torchtitan activation_checkpoint selective_ac_option = "K");
                              0 = every block */
  int64_t act_offload_layers; /* input: Megatron-Core cpu_offloading with
                              cpu_offloading_num_layers N (activations only,
                              cpu_offloading_weights False): the saved activations of the first
                              N blocks go to host memory during the forward and come back for
                              the backward (Transformer Engine get_cpu_offload_context), so the
                              GPU holds those of the other blocks only; pp 1, no recompute,
                              N < blocks (Megatron-Core transformer_config.py __post_init__);
                              the copies run on a side stream and are not charged to the step
                              (docs/model.md "Memory"); 0 = none */
  int64_t last_stage_layers;  /* input: the same for the last stage
                              (--decoder-last-pipeline-num-layers); 0 = the even split */
  char pipeline_layout[PL_PIPELINE_LAYOUT_MAX]; /* input: Megatron-Core
                              --pipeline-model-parallel-layout, e.g. "Et*4|(t*4|)*14tmL": each
                              virtual stage's layers (E embedding, t block, m MTP module, L loss;
                              src/model/pipe_layout.c); sets vp; "" = the split of the fields
                              above */
  int64_t mtp_layers;       /* input: multi-token-prediction modules trained (Megatron-Core
                              --mtp-num-layers): each one more block (the average block), an
                              embedding lookup, two norms, the eh_proj GEMM (2h -> h) and a second
                              pass through the output layer and the loss (multi_token_prediction.py);
                              on the virtual stage holding 'm', else the last; 0 = none */
  int64_t bf16_last_blocks; /* input: under FP8 / MXFP8 / NVFP4, the model's last N blocks run
                              their GEMMs in 16-bit (Megatron-Core first_last_layers_bf16 with
                              num_layers_at_end_in_bf16 N and num_layers_at_start_in_bf16 0:
                              fp8_utils.py get_fp8_context, fp4_utils.py get_fp4_context); priced
                              as that share of each block kind's GEMMs (model/hybrid_mtp.c
                              pl_bf16_block_share); 0 = none */
  uint32_t bf16_modules;    /* input: enum pl_bf16_module bits kept at 16-bit under FP8 / FP4
                              (--bf16-modules; Megatron-Core quant_recipe matchers); 0 = none */
  int64_t mtp_module_blocks; /* derived (pl_layout_resolve): blocks of one MTP module, the
                              length of a hybrid model's mtp_pattern ("*E": 2;
                              src/model/hybrid_mtp.c), 1 for other models; 0 reads as 1 */
  int64_t wgrad_deferral;   /* input: Megatron-Core defer_embedding_wgrad_compute with
                              wgrad_deferral_limit: the last pipeline stage defers the LM head's
                              weight-gradient GEMM of its first N micro-batches (-1: all, the
                              limit 0) to the pipeline flush (sim/lower.c); 0 (default) = off;
                              only with pp > 1 (Megatron-Core refuses it at pp 1) and ddp/zero1 */
  uint32_t cuda_graph_scopes; /* input: enum pl_cuda_graph_scope bits the run captures in CUDA
                              graphs (Megatron-Core cuda_graph_scope); their ops cost the host
                              nothing per kernel (sim/compute.c); 0 (default) = every op eager */
  uint32_t offload_modules; /* input: enum pl_offload_module bits whose saved inputs are
                              offloaded to the host (Megatron-Core --fine-grained-activation-
                              offloading --offload-modules); 0 = none */
  uint32_t recompute_modules; /* input: with recompute selective, the enum pl_recompute_module
                              bits re-run (Megatron-Core --recompute-modules); 0 = Megatron's
                              default, core_attn alone (pl_layout_recompute_modules) */
  enum pl_run_task task;    /* input: pretrain (default), sft (full-parameter fine-tuning: the
                              same step as pre-training on the same token stream) or lora
                              (frozen base weights, low-rank adapters; src/model/finetune.c,
                              docs/finetune.md) */
  int64_t lora_rank;        /* input: with task lora, the adapters' rank (Megatron-Bridge
                              peft/lora.py LoRA.dim); 0 = the default 32 */
  int64_t packed_sample_len; /* input: the sequence packs samples of this many tokens (NeMo's and
                              Megatron-Bridge's packed SFT datasets, THD with cu_seqlens): the
                              attention runs per sample, a causal square of it, seq / it of them
                              (must divide seq); for samples of different lengths L the one that
                              costs the same is E[L^2] / E[L]; 0 = one sample per sequence */
  uint32_t lora_targets;    /* input: with task lora, enum pl_lora_target bits of the block's
                              linears that get an adapter (LoRA.target_modules); 0 = all four */
  bool recompute_uniform;   /* input: with recompute full, Megatron-Core --recompute-method
                              uniform: each model chunk's blocks checkpointed in groups of
                              recompute_layers (1 when 0) at the group's input, every block
                              recomputed; false = the block method (recompute_layers: the
                              first N blocks of each chunk recomputed, the rest not) */
};

/* Fill derived fields and defaults; reject what cannot run. */
enum pl_status pl_layout_resolve(struct pl_layout *l, const struct pl_model *m,
                                 const struct pl_cluster *c, struct pl_diag *diag);

/* Transformer blocks of model chunk v of a layout with pp stages and vp
 * chunks per stage, v in virtual-stage order (chunk c of stage s is
 * v = c * pp + s), *first (may be NULL) the global index of its first block.
 * Even split: layers / (pp vp), the first chunks one more for a remainder;
 * with first/last_stage_layers, Megatron-Core's uneven split
 * (megatron/core/transformer/transformer_block.py, get_num_layers_to_build):
 * those stages hold the given blocks, the other stages the rest evenly, and
 * each stage's blocks are split evenly over its vp chunks. With
 * account_embed_loss (even split only) the embedding and the loss count as
 * one block each, taken from the first and the last chunk
 * (transformer_layer.py get_transformer_layer_offset). With a pipeline
 * layout string, the chunk's t and m; otherwise the MTP modules
 * (mtp_layers) are blocks of the last chunk. The layout must
 * be resolved (pl_layout_resolve checks the split). */
int64_t pl_layout_chunk_layers(const struct pl_layout *l, int64_t layers, int64_t v,
                               int64_t *first);
/* One virtual stage of a pipeline layout string. */
struct pl_pipe_chunk {
  int64_t decoders; /* t */
  int64_t mtp;      /* m */
  bool embed;       /* E */
  bool loss;        /* L */
};
/* Parse a Megatron-Core pipeline layout string into at most max virtual
 * stages (*n of them), as parse_str_to_list does (src/model/pipe_layout.c);
 * PL_ERR_LAYOUT with one line on a bad character or count. */
enum pl_status pl_pipeline_layout_parse(const char *s, struct pl_pipe_chunk *out, int64_t max,
                                        int64_t *n, struct pl_diag *diag);
/* Check layout.pipeline_layout against the model and the layout (Megatron-Core
 * validate_layer_layout) and set vp from it; also checks mtp_layers. */
enum pl_status pl_layout_resolve_pipeline(struct pl_layout *l, const struct pl_model *m,
                                          struct pl_diag *diag);
/* With a pipeline layout string: *blocks (t + m) and *first (may be NULL) of
 * virtual stage v, true; false without one. */
bool pl_layout_chunk_from_string(const struct pl_layout *l, int64_t v, int64_t *blocks,
                                 int64_t *first);
/* The blocks of pipeline stage s (all its chunks). */
int64_t pl_layout_stage_layers(const struct pl_layout *l, int64_t layers, int64_t s);
/* Whether the split is uneven by request (first or last stage given). */
bool pl_layout_uneven_stages(const struct pl_layout *l);
/* Whether the GEMMs run torchao's fp8-tensorwise recipe (--dtype fp8-tensorwise). */
bool pl_layout_fp8_tensorwise(const struct pl_layout *l);
/* Whether the GEMMs run torchao's fp8-rowwise recipe (--dtype fp8-rowwise). */
bool pl_layout_fp8_rowwise(const struct pl_layout *l);
/* Bytes per activation element of one tensor-parallel all_gather of a
 * block's linears (sequence parallelism): Transformer Engine gathers the
 * quantized tensor: 1 B under per-tensor FP8; under NVFP4, MXFP8 and FP8
 * block scaling one element with its scales (pl_dtype_element_bytes, FP8
 * blocks 1 + 4/128) for the forward input and the column-parallel input
 * re-gathered for wgrad, twice that for the row-parallel grad_output (both
 * copies); torchao's tensorwise FP8 (torchtitan's Float8 TP styles) 1 B in
 * every gather; 2 (16-bit) otherwise, torchao's rowwise FP8 included.
 * Sources in layout.c. The simulator (segments.c) and the search bound
 * (search/comm.c) both size their gathers with it. */
enum pl_tp_gather { PL_TP_GATHER_FWD, PL_TP_GATHER_GRAD, PL_TP_GATHER_REGATHER };
double pl_layout_tp_gather_bytes(const struct pl_layout *l, enum pl_tp_gather g);
/* Whether layout.fp8_all_gather makes the blocks' GEMM weights Transformer
 * Engine FP8 parameters (per-tensor FP8 recipes under zero2/zero3: Megatron
 * FSDP with fp8_param_gather): their shards and gathered copies take 1 B. */
bool pl_layout_te_fp8_params(const struct pl_layout *l);
/* A dense block's GEMM weight elements on one GPU (QKV, projection, the MLP's
 * up (and gate) and down, / tp) that layout.fp8_all_gather gathers at 1 B:
 * with fp8-tensorwise or pl_layout_te_fp8_params under zero2/zero3; 0 where
 * it does not apply (MoE and latent-attention blocks are not modelled). */
double pl_layout_fp8_gathered_weights(const struct pl_model *m, const struct pl_layout *l);
/* Bytes of one ddp/zero1 bucket whose elements take elem_bytes each (gradients
 * 4 or 2, gathered bf16 parameters 2): layout.bucket_bytes, 25 MiB when 0, or
 * with bucket_dp_scaled Megatron-Core's max(40e6, 1e6 * dp * cp) parameters
 * times elem_bytes, or with bucket_params that many parameters times
 * elem_bytes; for both, without overlap_grad_reduce one bucket of all
 * model_params (megatron/core/distributed/distributed_data_parallel.py,
 * DistributedDataParallel.__init__, core_r0.9.0: "Set bucket_size to infinity
 * if overlap_grad_reduce is False"), and for bucket_params also at dp 1 (the
 * comm-overlap configs then leave bucket_size None and overlap_grad_reduce
 * False). */
double pl_layout_bucket_bytes(const struct pl_layout *l, double elem_bytes, double model_params);

/* The ranks that reduce one copy of the dense gradients together, and over
 * which a sharded run splits the parameters, gradients and optimizer
 * states: the data-parallel ranks of the shard group (dp for ddp, else
 * shard_group) times cp, since context-parallel ranks hold the same weights.
 * Megatron-Core reduces and shards over the data-parallel group with context
 * parallelism (megatron/core/parallel_state.py
 * get_data_parallel_group(with_context_parallel=True), used by
 * DistributedDataParallel and DistributedOptimizer), torchtitan's FSDP over
 * the flattened dp_shard_cp mesh (torchtitan/distributed/parallel_dims.py).
 * The group sits at stride tp (cp innermost after tp, then dp). */
int64_t pl_layout_shard_ranks(const struct pl_layout *l);
/* The ranks context parallelism's all_to_all spans: cp with cp_comm a2a,
 * cp_a2a with a2a+p2p, else 1 (layout_bytes.c). */
int64_t pl_layout_cp_a2a_ranks(const struct pl_layout *l);

/* The recompute modules in effect: 0 unless recompute is selective, then
 * layout.recompute_modules or core_attn when that is 0. */
uint32_t pl_layout_recompute_modules(const struct pl_layout *l);
/* "mla_up_proj,mlp" <-> bits: comma-separated Megatron-Core module names,
 * each once; PL_ERR_PARSE with one line on an unknown or repeated name or
 * an empty list. The name of bit i (0 <= i < PL_RCM_COUNT). */
enum pl_status pl_recompute_modules_parse(const char *s, uint32_t *out, struct pl_diag *diag);
void pl_recompute_modules_format(uint32_t mask, char *buf, size_t n);
/* "attn,moe_router,moe_preprocess" -> PL_CGS_* bits; "none" -> 0. Unknown or
 * repeated names are a parse error. Format writes "none" for 0. */
/* "expert_fc1,moe_act" <-> PL_OFM_* bits (offload.c); unknown, repeated or
 * unmodelled names and an empty list are a parse error. */
enum pl_status pl_offload_modules_parse(const char *s, uint32_t *out, struct pl_diag *diag);
void pl_offload_modules_format(uint32_t mask, char *buf, size_t n);
/* "linear_qkv,linear_proj,latent_proj" <-> PL_B16_* bits (quant_modules.c);
 * unknown, repeated or empty names are PL_ERR_PARSE with one line. */
enum pl_status pl_bf16_modules_parse(const char *s, uint32_t *out, struct pl_diag *diag);
void pl_bf16_modules_format(uint32_t mask, char *buf, size_t n);
enum pl_status pl_cuda_graph_scopes_parse(const char *s, uint32_t *out, struct pl_diag *diag);
void pl_cuda_graph_scopes_format(uint32_t mask, char *buf, size_t n);
/* layout.wgrad_deferral as --defer-embedding-wgrad writes it: off, all or N */
void pl_layout_wgrad_deferral_format(int64_t deferral, char *buf, size_t n);
const char *pl_recompute_module_name(int bit);

/* "pretrain" | "sft" | "lora" <-> enum pl_run_task (finetune.c). */
const char *pl_run_task_name(enum pl_run_task t);
enum pl_status pl_run_task_parse(const char *s, enum pl_run_task *out, struct pl_diag *diag);
/* "linear_qkv,linear_fc1" <-> PL_LORA_* bits (also "all"); unknown or
 * repeated names and an empty list are a parse error. Format writes the names. */
enum pl_status pl_lora_targets_parse(const char *s, uint32_t *out, struct pl_diag *diag);
void pl_lora_targets_format(uint32_t mask, char *buf, size_t n);
/* The LoRA rank and targets in effect: layout.lora_rank or 32, and
 * layout.lora_targets or all four (0 and 0 unless task is lora). */
int64_t pl_lora_rank(const struct pl_layout *l);
uint32_t pl_lora_targets(const struct pl_layout *l);
/* Trainable adapter parameters of one dense block on one GPU (both adapter
 * matrices of each target, sharded as Megatron-Bridge's ParallelLinearAdapter
 * shards them, docs/finetune.md); 0 unless task is lora. */
double pl_lora_layer_params(const struct pl_model *m, const struct pl_layout *l);
/* Adapter weight tensors of one block (two per target); 0 unless lora. */
double pl_lora_layer_tensors(const struct pl_layout *l);

/* Names for output and parsing ("zero2", "selective", "1f1b", "bf16"). */
const char *pl_shard_name(enum pl_shard s);
const char *pl_recompute_name(enum pl_recompute r);
const char *pl_schedule_name(enum pl_schedule s);
const char *pl_dtype_name(enum pl_dtype d);
/* The tensor-core capability a dtype needs, for error messages: "FP8", "MXFP8 (block-scaled FP8)". */
const char *pl_dtype_hw_name(enum pl_dtype d);
const char *pl_moe_dispatch_name(enum pl_moe_dispatch d);
enum pl_status pl_moe_dispatch_parse(const char *s, enum pl_moe_dispatch *out,
                                     struct pl_diag *diag);
const char *pl_cp_comm_name(enum pl_cp_comm c);
/* --fsdp-ga-nosync's word for a layout: "off", "on" or "keep" (fsdp_ga_nosync / fsdp_ga_keep) */
const char *pl_fsdp_ga_nosync_name(const struct pl_layout *l);
enum pl_status pl_cp_comm_parse(const char *s, enum pl_cp_comm *out, struct pl_diag *diag);
enum pl_status pl_shard_parse(const char *s, enum pl_shard *out, struct pl_diag *diag);
enum pl_status pl_recompute_parse(const char *s, enum pl_recompute *out, struct pl_diag *diag);
enum pl_status pl_schedule_parse(const char *s, enum pl_schedule *out, struct pl_diag *diag);
enum pl_status pl_dtype_parse(const char *s, enum pl_dtype *out, struct pl_diag *diag);
/* --dtype as the layout holds it: a dtype, or fp8-delayed|fp8-current|
 * fp8-blockwise|fp8-tensorwise|fp8-rowwise (dtype fp8 with that recipe). */
enum pl_status pl_layout_dtype_parse(const char *s, struct pl_layout *l, struct pl_diag *diag);
/* The layout's --dtype word: "fp8-delayed" for fp8 with a recipe, else pl_dtype_name. */
const char *pl_layout_dtype_name(const struct pl_layout *l);

#endif
