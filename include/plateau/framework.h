/* framework.h: the training framework a run uses, as an input of its own.
 *
 * A framework is the software that runs a parallel layout: it decides
 * whether tensor-parallel collectives hide behind GEMMs, when gradients are
 * reduced, how parameters are gathered, which kernels run. Presets live in
 * data/frameworks/<name>.json (docs/frameworks.md), each behaviour with the
 * file and version of the framework's code it comes from; every behaviour
 * can also be set alone (one CLI flag each).
 *
 * Every behaviour is three-valued: unset (0) leaves plateau's default, the
 * one used when no framework is named (docs/cli.md), so a zeroed struct
 * changes nothing. pl_framework_apply writes what is set onto the layout's
 * behaviour fields, which the simulator reads; pl_framework_resolved reads
 * them back, every behaviour then set.
 * Ownership: plain value owned by the caller. */
#ifndef PLATEAU_FRAMEWORK_H
#define PLATEAU_FRAMEWORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "layout.h"
#include "status.h"

/* A behaviour that is on, off, or left to plateau's default. */
enum pl_setting { PL_SETTING_UNSET = 0, PL_SETTING_OFF, PL_SETTING_ON };

/* Attention kernel: flash (FlashAttention-2, CUDA), triton (FlashAttention in
 * Triton, flash_attn_triton.py), eager (the s x s scores stored), cudnn (cuDNN's
 * fused flash attention: Transformer Engine's FusedAttention sub-backend
 * F16_arbitrary_seqlen, PyTorch SDPA's cudnn_attention), te (Transformer
 * Engine chooses: cudnn on compute capability >= 9.0 where cuDNN supports the
 * shape, flash below; resolved against the GPU by pl_layout_resolve,
 * docs/step-model.md 2.2). New values are appended, never renumbered. */
enum pl_attention {
  PL_ATTENTION_UNSET = 0,
  PL_ATTENTION_FLASH,
  PL_ATTENTION_TRITON,
  PL_ATTENTION_EAGER,
  PL_ATTENTION_CUDNN,
  PL_ATTENTION_TE
};

struct pl_framework {
  char name[32];                       /* preset name; "" = none named */
  char description[200];               /* one line, for `plateau list frameworks` */
  char family[32];                     /* the preset at the root of the file's "base" chain (its
                                          own name without a base): the error bands' class */
  bool shard_set;                      /* shard below is the framework's default sharding */
  enum pl_shard shard;                 /* used when the layout does not give one */
  enum pl_attention attention;
  enum pl_setting sequence_parallel;   /* Megatron sequence parallelism whenever tp > 1 */
  bool sequence_parallel_moe;          /* file value "moe" (sequence_parallel unset): on only
                                          for a mixture-of-experts model with tp > 1, off
                                          otherwise (Megatron-Core's MoELayer.forward refuses
                                          MoE training with tp > 1 without it) */
  enum pl_setting fused_kernels;       /* off = eager PyTorch element-wise kernels */
  enum pl_setting tp_comm_overlap;     /* tp all_gather/reduce_scatter hidden behind the GEMMs
                                          (Transformer Engine userbuffers, torchtitan async TP) */
  enum pl_setting overlap_grad_reduce; /* ddp/zero1 buckets reduced during the last backward */
  enum pl_setting overlap_param_gather; /* zero1 parameter all_gather during the next forward */
  enum pl_setting overlap_p2p;         /* pipeline send/recv asynchronous (not blocking) */
  enum pl_setting p2p_serial;          /* DeepSpeed's pipeline engine: each send/recv a blocking
                                          call in TrainSchedule order (layout.p2p_serial) */
  enum pl_setting p2p_scatter_gather;  /* Megatron-LM 2021-22: a tp-split pipeline activation
                                          all_gathered back on the receiver
                                          (layout.p2p_scatter_gather) */
  enum pl_setting grad_reduce_fp32;    /* ddp/zero1 gradients reduced in fp32 (off: bf16) */
  enum pl_setting grad_comm_cast;      /* fp32 gradients cast to bf16 for the dp reduction only
                                          (DeepSpeed communication_data_type; layout.grad_comm_cast) */
  enum pl_setting shard_grads_reduce_dtype; /* zero2/zero3 gradient shards kept in the reduce
                                          dtype (Megatron FSDP; layout.shard_grads_reduce_dtype) */
  enum pl_setting zero1_grad_all_reduce; /* zero1 gradients all_reduced, not reduce_scattered */
  enum pl_setting grad_accum_fp32_copy; /* 16-bit gradients cast to an fp32 copy per micro-batch */
  enum pl_setting fsdp_prefetch;       /* zero2/zero3 gathers prefetched */
  enum pl_setting fsdp_separate_comms; /* zero2/zero3 reduce_scatters on their own communicator */
  bool step_syncs_set;                 /* the three below were given */
  int64_t step_sync_all_reduces;       /* small all_reduces over all GPUs per step, host-waited
                                          (layout.step_sync_all_reduces) */
  int64_t step_sync_broadcasts;        /* the same for broadcasts */
  int64_t step_sync_all_gathers;       /* the same for all_gathers */
  bool opt_syncs_per_tensor_set;
  int64_t opt_syncs_per_tensor;        /* host syncs of the optimizer per parameter tensor
                                          (layout.opt_syncs_per_tensor) */
  bool logit_metric_passes_set;
  int64_t logit_metric_passes;         /* forward-only fp32 loss passes per micro-batch */
  bool host_per_kernel_set;
  double host_per_kernel_s;            /* host time to issue one kernel (eager PyTorch); 0 = not
                                          modelled (layout.host_per_kernel_s) */
  bool host_per_gemm_set;
  double host_per_gemm_s;              /* host time to issue one cuBLAS GEMM (Transformer Engine's
                                          per-GEMM call); 0 = as any kernel
                                          (layout.host_per_gemm_s) */
  bool host_per_launch_set;
  double host_per_launch_s;            /* host time of one kernel Transformer Engine launches from
                                          C++ (its per-expert quantize kernels);
                                          0 = not counted (layout.host_per_launch_s) */
  bool zero3_list_copy_set;
  double zero3_list_copy_s;            /* zero3 per-parameter tensor-list collectives: host time
                                          of one copy_ per rank (layout.zero3_list_copy_s) */
  double bucket_mb;                    /* ddp/zero1 bucket in MiB; 0 = unset (layout.bucket_bytes) */
  bool bucket_dp_scaled;               /* Megatron-Core's default bucket (layout.bucket_dp_scaled) */
  double bucket_params;                /* ddp/zero1 bucket in parameters (Megatron-Core
                                          DistributedDataParallelConfig.bucket_size as NeMo 2's and
                                          Megatron-Bridge's comm-overlap configs set it);
                                          0 = unset (layout.bucket_params) */
  enum pl_setting fp8_weight_cache;    /* FP8 weights cast once per step (TE is_first_microbatch) */
  enum pl_setting fsdp_pp_unsharded;   /* zero2/zero3 with pp > 1: parameters kept unsharded over
                                          the step, gradients reduced after the last backward */
  enum pl_setting head_16bit;          /* the LM head GEMM stays 16-bit under FP8/MXFP8/NVFP4
                                          recipes (layout.head_16bit) */
  enum pl_setting te_cross_entropy;    /* the loss is TE's fused cross-entropy: logits kept
                                          16-bit, not as an fp32 copy (layout.te_cross_entropy) */
  enum pl_setting megatron_xent;       /* the loss is Megatron's vocab-parallel cross-entropy run
                                          unfused, op by op (layout.megatron_xent) */
  enum pl_setting megatron_softmax;    /* eager attention's softmax is Megatron's
                                          FusedScaleMaskSoftmax, unfused for the shapes its
                                          kernel refuses (layout.megatron_softmax) */
  enum pl_setting parallel_block;      /* GPT-J/PaLM parallel block: attention and MLP read one
                                          LayerNorm's output, one tp reduction of their summed
                                          outputs (layout.parallel_block) */
  enum pl_setting gqa_query_copy;      /* Megatron-Core's split of the fused QKV output copies the
                                          query when 1 < kv groups < heads per tp rank
                                          (layout.gqa_query_copy) */
  enum pl_setting fms_rope;            /* eager RoPE as IBM fms runs it: an fp32 2 x 2 rotation
                                          per pair, not HF's rotate_half (layout.fms_rope) */
  enum pl_setting kv_expand_copy;      /* GQA: K and V copied out to every query head before
                                          SDPA, summed back in the backward
                                          (layout.kv_expand_copy) */
  enum pl_setting separate_linears;    /* q, k, v and a gated MLP's w1, w3 as separate linears,
                                          not fused GEMMs (layout.separate_linears) */
  enum pl_setting rope_complex;        /* RoPE by complex multiplication, unfused even under
                                          torch.compile (layout.rope_complex) */
  enum pl_setting adam_moments_bf16;   /* Adam's exp_avg / exp_avg_sq kept in bf16 (Megatron-Core
                                          precision-aware optimizer; layout.adam_moments_bf16) */
  enum pl_setting fsdp_block_units;    /* zero3 units are the blocks only; embedding, final norm
                                          and LM head stay gathered (Megatron FSDP;
                                          layout.fsdp_block_units) */
  enum pl_setting moe_host_sync;       /* MoE: the host waits for the tokens per local expert
                                          once per block's forward (layout.moe_host_sync) */
  enum pl_setting moe_router_fusion;   /* MoE: Megatron-Core's fused router kernels (on) or its
                                          eager top-k and aux-loss path (off;
                                          layout.moe_router_unfused) */
  enum pl_setting jit_fuser;           /* Megatron-Core's @jit_fuser SwiGLU compiled into one
                                          kernel each way (on) or run as eager kernels (off;
                                          layout.jit_eager) */
  enum pl_setting moe_expert_padding;  /* MoE under FP8/FP4: TE pads each expert's rows to the
                                          GEMM alignment and back (layout.moe_expert_padding) */
  enum pl_setting pg_with_opt_step;    /* overlap_param_gather_with_optimizer_step: the first
                                          model chunk's parameter gather starts after its own
                                          optimizer step (layout.pg_with_opt_step) */
  enum pl_setting align_grad_reduce;   /* Megatron-Core's schedules launch each model chunk's
                                          gradient reduction themselves (grad_sync_func), aligned
                                          across pipeline stages (layout.align_grad_reduce) */
  enum pl_setting te_linear_bwd_overlap; /* tp without userbuffers: TE's column-parallel linears
                                             run their backward collectives async behind their
                                             GEMMs (layout.te_linear_bwd_overlap) */
  enum pl_setting launch_blocking;     /* CUDA_LAUNCH_BLOCKING=1: host time per kernel adds to
                                          the GPU time (layout.launch_blocking) */
  enum pl_setting ep_comm_overlap;     /* MoE expert-parallel all-to-alls beside the compute of
                                          another micro-batch (layout.ep_comm_overlap) */
  enum pl_setting delay_wgrad;         /* with ep_comm_overlap, the weight-gradient GEMMs after
                                          the next collective is issued (layout.delay_wgrad) */
  enum pl_setting optimizer_fused;     /* eager runs: torch.optim's fused AdamW (on) or its
                                          foreach passes (layout.opt_fused) */
  enum pl_setting autocast_weight_casts; /* fp32 weights cast to bf16 by torch.autocast every
                                            forward (layout.autocast_weight_casts) */
  enum pl_setting optimizer_torch;     /* the optimizer is torch.optim's AdamW also when the model
                                          is compiled (layout.opt_torch) */
  enum pl_setting optimizer_sgd;       /* the optimizer is torch.optim.SGD (momentum 0) over the
                                          16-bit parameters, no master, no state (on) or AdamW
                                          (off; layout.opt_sgd) */
  enum pl_setting grad_clip;           /* the gradient-norm pass before the optimizer step (on)
                                          or none (layout.no_grad_clip) */
  enum pl_setting zero3_grad_all_reduce; /* zero3 gradients all_reduced in buckets, not
                                            reduce_scattered (layout.zero3_grad_all_reduce) */
  enum pl_setting fp8_all_gather;      /* zero2/zero3 with fp8-tensorwise: the blocks' GEMM weights
                                          cast to FP8 before FSDP's all_gather (torchtitan
                                          enable_fsdp_float8_all_gather; layout.fp8_all_gather) */
  enum pl_setting cudnn_2024;          /* alias of cudnn_version 9.1 (on) / latest (off, when
                                          the version is 9.0-9.1): mid-2024 cuDNN's rates */
  enum pl_setting fp8_attention;       /* MXFP8 attention: Megatron-Core's
                                          fp8_dot_product_attention (layout.fp8_attention) */
  enum pl_setting nvfp4_rht_unfused;   /* NVFP4 casts as Transformer Engine before 2.14 runs
                                          them: the RHT'd columnwise cast a pass of its own
                                          (layout.nvfp4_rht_unfused) */
  enum pl_setting fused_grouped_mlp;   /* the experts' MLP as Transformer Engine's fused MXFP8
                                          grouped MLP (layout.fused_grouped_mlp) */
  bool cudnn_cluster_margin_set;
  int64_t cudnn_cluster_margin;        /* 2-SM clusters the fused grouped MLP's cuDNN kernels
                                          leave free (layout.cudnn_cluster_margin) */
  bool ub_proj_fprop_sms_set;          /* ub_proj_fprop_sms below is given */
  bool ub_fc2_fprop_sms_set;           /* ub_fc2_fprop_sms below is given */
  int64_t ub_proj_fprop_sms;           /* SMs Transformer Engine's userbuffers set aside
                                          (set_sm_margin) beside the forward proj GEMM
                                          (layout.ub_proj_fprop_sms) */
  int64_t ub_fc2_fprop_sms;            /* the same beside the forward fc2 GEMM */
  bool hybridep_sms_set;               /* hybridep_sms below is given */
  int64_t hybridep_sms;                /* SMs of HybridEP's dispatch and combine kernels
                                          (layout.hybridep_sms) */
  bool nccl_max_ctas_tp_set;         /* nccl_max_ctas_tp below is given */
  int64_t nccl_max_ctas_tp;            /* NCCL CTA cap of the tp communicator's calls
                                          (layout.nccl_max_ctas_tp; 0: none) */
  bool nccl_max_ctas_cp_set;         /* nccl_max_ctas_cp below is given */
  int64_t nccl_max_ctas_cp;            /* NCCL CTA cap of the cp communicator's calls
                                          (layout.nccl_max_ctas_cp; 0: none) */
  bool nccl_max_ctas_dp_set;         /* nccl_max_ctas_dp below is given */
  int64_t nccl_max_ctas_dp;            /* NCCL CTA cap of the data-parallel (dp x cp) communicator's calls
                                          (layout.nccl_max_ctas_dp; 0: none) */
  bool nccl_max_ctas_pp_set;         /* nccl_max_ctas_pp below is given */
  int64_t nccl_max_ctas_pp;            /* NCCL CTA cap of the pipeline neighbours' communicator's calls
                                          (layout.nccl_max_ctas_pp; 0: none) */
  enum pl_setting cudnn_913;           /* alias of cudnn_version 9.13 (on) / latest (off, when
                                          the version is 9.13.x): cuDNN 9.13's rates */
  bool cudnn_version_set;              /* cudnn_version below is given; it wins over the aliases */
  int64_t cudnn_version;               /* the cuDNN release attention runs as (layout.cudnn_version;
                                          0 = latest) */
  enum pl_setting async_tp;            /* PyTorch's micro-pipeline (async) TP: fused collectives
                                          beside their partner GEMMs only (layout.async_tp) */
  enum pl_setting grad_accum_fusion;   /* ddp/zero1: the weight-gradient GEMMs accumulate into the
                                          fp32 main_grad (Megatron-Core
                                          gradient_accumulation_fusion; layout.grad_accum_fusion) */
  enum pl_setting tp_seq_copies;       /* sequence-parallel collectives on a batch-first
                                          activation's dim 1: a copy per call (layout.tp_seq_copies) */
  enum pl_setting cp_allgather;        /* context parallelism as PyTorch's context_parallel with
                                          the allgather rotater (layout.cp_allgather) */
  enum pl_setting zero3_reuse;         /* zero3 per-parameter gathers: a parameter used again
                                          within DeepSpeed's stage3_max_reuse_distance stays
                                          gathered (layout.zero3_no_reuse) */
  enum pl_setting zero3_debug_norm;    /* zero3 per-parameter gathers: each module fetch takes
                                          every parameter's norm and reads it back (DeepSpeed
                                          0.3.15-0.4.1 fetch_sub_module; layout.zero3_debug_norm) */
  enum pl_setting eager_xent;          /* the loss is PyTorch's eager cross_entropy on an fp32 copy
                                          of the logits (layout.eager_xent) */
  enum pl_setting pp_keep_outputs;     /* pp > 1: every stage keeps each micro-batch's output until
                                          the step ends (layout.pp_keep_outputs) */
  enum pl_setting tp_gathered_saved;   /* tp > 1 with sp: PyTorch DTensor's TP plan saves the
                                          gathered inputs whole (layout.tp_gathered_saved) */
  enum pl_setting fp32_param_shards;   /* zero3: the shards are the fp32 parameters, no 16-bit
                                          shard or separate master (layout.fp32_param_shards) */
  enum pl_setting fsdp1_copies;        /* zero2/zero3: FSDP1's flat-parameter copies instead of
                                          FSDP2's (layout.fsdp1_copies) */
  enum pl_setting fsdp2_predivide;     /* zero2/zero3 as FSDP2 of the PyTorch 2.3 line: a bf16
                                          reduce_scatter input divided in place before the
                                          call (layout.fsdp2_predivide) */
  enum pl_setting inductor_norms;      /* with fused kernels, the RMSNorms as torch.compile's
                                          generated kernels (layout.inductor_norms) */
  enum pl_setting fused_norm;          /* with unfused kernels, RMSNorm as one fused kernel each
                                          way (torchtitan's Triton fused_rmsnorm;
                                          layout.fused_norm) */
  enum pl_setting fsdp2_rs_copy_in;    /* zero2/zero3 as FSDP2 of the PyTorch 2.3 line: the
                                          gradient copy-in runs after the previous
                                          reduce_scatter and the backward waits for it
                                          (layout.fsdp2_rs_copy_in) */
  enum pl_setting fsdp_root_unit;      /* zero2/zero3, pp = vp = 1: the embedding, final norm and
                                          LM head are one FSDP unit (the root's), gathered once
                                          before the forward and reduce_scattered after the whole
                                          backward (layout.fsdp_root_unit) */
  enum pl_setting hf_shift_copy;       /* with the eager loss (kernels unfused), Hugging Face's
                                          shift of the fp32 logits copies them once more
                                          (layout.hf_shift_copy) */
  enum pl_setting logits_shift_copy;   /* without the eager loss, the 16-bit logits shifted by a
                                          copy before a compiled or fused loss (OLMo-core
                                          get_losses; layout.logits_shift_copy) */
  enum pl_setting eager_z_loss;        /* with the eager loss, the z-loss logsumexp(-1).pow(2) run
                                          eagerly on the fp32 logits (OLMo-core
                                          cross_entropy_loss; layout.eager_z_loss) */
  enum pl_setting grad_buffer_passes;  /* ddp/zero1: Megatron-Core DDP's per-step passes over its
                                          contiguous gradient buffer, zero_grad_buffer's zero_
                                          and check_for_nan_in_grad's bucket norms
                                          (layout.grad_buffer_passes) */
  enum pl_setting grad_scale_pass;     /* ddp/zero1: Megatron-Core DDP divides each bucket's
                                          gradients by the dp size before its reduce, without
                                          average_in_collective (layout.grad_scale_pass) */
  enum pl_setting logits_fp32;         /* without the eager loss, the logits cast to fp32 by the
                                          model and the fused loss run on fp32 (OLMo-core
                                          fused_loss; layout.logits_fp32) */
  enum pl_setting adam_no_master;      /* the optimizer keeps no master copy: the 16-bit
                                          parameters are its parameters (layout.adam_no_master) */
  enum pl_setting grad_nan_check;      /* with grad_buffer_passes: Megatron-Core DDP's
                                          check_for_nan_in_grad, each bucket's norm read before
                                          its reduce (on) or not (layout.no_grad_nan_check) */
  enum pl_setting fp8_amax_reduce_sync; /* FP8 delayed scaling as Transformer Engine release_v0.8
                                           reduces its amaxes: a blocking all_reduce (MAX) over
                                           the stage's tp x dp ranks per fp8_autocast region and
                                           pass (layout.fp8_amax_reduce_sync) */
};

/* Load a preset by name (data/frameworks/) or a framework file by path into
 * *out (cleared first). Unknown names list the presets. */
enum pl_status pl_framework_load(const char *name_or_path, struct pl_framework *out,
                                 struct pl_diag *diag);
/* The same for a preset name only (no file look-up). */
/* The family of a framework named by a row or a run (a validation row's
 * framework column): the preset at the root of its "base" chain, or the name
 * itself when it is no preset. Writes at most n bytes to buf; returns buf. */
const char *pl_framework_family(const char *name, char *buf, size_t n);

enum pl_status pl_framework_preset(const char *name, struct pl_framework *out,
                                   struct pl_diag *diag);

/* Parse a framework file's text (len bytes; origin names it in errors) into
 * *out (cleared first): what pl_framework_load does after reading the file. */
enum pl_status pl_framework_parse(const char *text, size_t len, const char *origin,
                                  struct pl_framework *out, struct pl_diag *diag);

/* Write the behaviours fw sets onto the layout (those unset are left). */
void pl_framework_apply(const struct pl_framework *fw, struct pl_layout *l);
/* Every behaviour as the layout runs it (after pl_framework_apply and
 * pl_layout_resolve), named after fw. */
void pl_framework_resolved(const struct pl_framework *fw, const struct pl_layout *l,
                           struct pl_framework *out);

/* The on/off behaviours in a fixed order, for output: the JSON key of the
 * i-th ("tp_comm_overlap"), NULL past the end; *value gets fw's setting. */
const char *pl_framework_setting(const struct pl_framework *fw, size_t i, enum pl_setting *value);

/* The behaviours whose flags take other words than on|off (--kernels
 * fused|unfused, --grad-reduce-dtype, --zero1-grad-reduce, --grad-accum), in
 * a fixed order: the i-th's word for fw's setting ("unfused"), *key its flag
 * as a JSON key ("kernels"); NULL past the end or when fw leaves it unset
 * (a resolved framework sets every one). */
const char *pl_framework_flag_word(const struct pl_framework *fw, size_t i, const char **key);

/* A two-word flag's word for fw's setting, by the flag's name ("optimizer"
 * gives "adamw" or "sgd", "fp8-amax-reduce" "off" or "sync-dp-tp"), from the
 * table that parses the flag (framework_flags.c); NULL when unset or when the
 * flag takes other values. */
const char *pl_framework_flag_value(const struct pl_framework *fw, const char *flag);

/* Names for output and parsing. */
const char *pl_setting_name(enum pl_setting s); /* "on", "off", "unset" */
/* --optimizer's words (framework.optimizer_sgd off|on), one home for the flag,
 * predict's JSON "optimizer" and its CSV column framework.optimizer */
#define PL_OPTIMIZER_ADAMW "adamw"
#define PL_OPTIMIZER_SGD "sgd"
const char *pl_attention_name(enum pl_attention a);
enum pl_status pl_setting_parse(const char *s, enum pl_setting *out, struct pl_diag *diag);
enum pl_status pl_attention_parse(const char *s, enum pl_attention *out, struct pl_diag *diag);
/* A bucket in parameters as a framework file's bucket_params or --bucket-params
 * gives it: a whole number from 1 to 1e12. */
bool pl_bucket_params_ok(double n);

#endif
