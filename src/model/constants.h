/* constants.h: the modelling constants more than one folder uses, each
 * defined once with its source. The memory model (model/memory*.c), the step
 * simulator (sim/segments.c, sim/lower.c) and the search's pruning bound
 * (search/comm.c) read the same values, so a change here moves all three.
 * Bytes are per element (or per parameter where the name says so). */
#ifndef PL_MODEL_CONSTANTS_H
#define PL_MODEL_CONSTANTS_H

/* Activations on the wire (tensor, context and pipeline parallelism): bf16,
 * as the layer computes them (Megatron-LM --bf16; docs/step-model.md 5). */
#define ACT_BYTES 2.0
/* The amax Transformer Engine's current-scaling and NVFP4 quantizers all_reduce
 * over the tp group under sequence parallelism: one fp32 (csrc/quantizer.cpp,
 * v2.8, `amax_reduction_group->allreduce({amax}, MAX)`; src/sim/segments.c). */
#define TE_AMAX_BYTES 4.0
/* Transformer Engine release_v0.8's delayed-scaling meta per FP8 GEMM
 * (transformer_engine/pytorch/module.py TransformerEngineBaseModule
 * set_meta_tensor: "Max. number of fp8 tensors per GEMM = 3 (input, weight,
 * output) for fwd and 2 (grad_output and grad_input) for bwd"), each an fp32
 * amax, and the FP8 GEMMs of one TransformerLayer (transformer.py: qkv
 * LayerNormLinear, proj Linear, LayerNormMLP num_gemms=2). The amax rows
 * all_reduced per fp8_autocast region (fp8.py global_amax_reduction, row 0 of
 * each module's amax_history: the history length does not enter);
 * segments.c sim_fp8_amax_reduce_wait_s. */
#define TE_V08_AMAX_FWD_PER_GEMM 3.0
#define TE_V08_AMAX_BWD_PER_GEMM 2.0
#define TE_V08_LAYER_FP8_GEMMS 4.0
/* Element sizes of the op cost tables (model/flops.c, model/mamba.c). */
#define BF16_BYTES 2.0
#define FP32_BYTES 4.0
/* The reference kernel of a GPU file's efficiency.strided_elementwise: a bf16
 * unary op on PyTorch's non-vectorized path reads 2 B and writes 2 B per
 * element (sim/compute.c strided_extra_s times such kernels per element). */
#define PL_STRIDED_UNARY_BYTES (2.0 * BF16_BYTES)
/* One token count of Megatron-Core's MoE dispatcher: routing_map.sum(dim=0) of a
 * bool map is int64 (token_dispatcher.py MoEAlltoAllTokenDispatcher.preprocess). */
#define MOE_COUNT_BYTES 8.0
/* One element of Megatron-Core's MoE routing map: a torch.bool tensor, 1 byte
 * (token_dispatcher.py; HybridEP all_gathers it, sim/moe_comm.c). */
#define MOE_ROUTING_MAP_BYTES 1.0
/* SMs of HybridEP's dispatch and combine kernels when none is given: Megatron-Core
 * transformer_config.py moe_hybridep_num_sms default 16 (core_v0.16.1: "In pure NVL
 * scenarios, 16 SMs can generally achieve good bandwidth"; layout.hybridep_sms). */
#define HYBRIDEP_DEFAULT_SMS 16
/* SMs of DeepEP's normal (intranode) dispatch and combine kernels in a
 * Megatron-Core run: transformer_config.py moe_deepep_num_sms default 20
 * (core_v0.14.0, core_v0.15.0, core_v0.16.1, core_v0.18.0), applied by
 * fused_a2a.py set_deepep_num_sms (Buffer.set_num_sms); no Megatron-Bridge
 * performance config through v0.5.0 sets another (HEAD 067f987df0's one
 * setting, perf_recipes/qwen/b200/qwen3_moe.py, sets 20). sim/moe_comm.c
 * takes DeepEP's measured rate at the largest SM count not above it. */
#define DEEPEP_DEFAULT_SMS 20
/* H800 SXM's NVLink, per GPU per direction: NVIDIA H800 Tensor Core GPU
 * datasheet "NVLink 400GB/s" (both directions, as H100's 900 GB/s), i.e. 200
 * GB/s each way. DeepEP measured its intranode kernels on it (docs/legacy.md,
 * "H800 (~160 GB/s NVLink maximum bandwidth)"); sim/moe_comm.c carries that
 * NVLink-bound rate to another Hopper node by the ratio of the links. */
#define H800_NVLINK_BYTES_PER_S 200e9
/* Chunks of Transformer Engine's userbuffers "pipeline" reduce_scatter
 * overlap (tp_comm_overlap, the forward proj and fc2 outputs): the GEMM runs
 * in num_splits row chunks and each chunk's reduce_scatter follows it on the
 * communication stream, so the last chunk's has no GEMM beside it and the
 * main stream waits for it (TE comm_gemm_overlap.cpp
 * CommOverlapBase::split_overlap_rs, "Last communication chunk with max SM",
 * then cudaStreamWaitEvent(stream_main, _stop_comm)). num_splits 4: TE's
 * default (NVIDIA/TransformerEngine pull request 732) and every
 * NeMo-Framework-Launcher ub config's proj_fprop / fc2_fprop
 * (launcher_scripts/conf/training/tp_overlap/ub_cfg_h100_h8192_tp4_mbs1_seqlen8192.yaml
 * @ 26e42fa9: method pipeline, num_splits 4); src/sim/lower_unit.c ub_rs_tail. */
#define UB_RS_NUM_SPLITS 4
/* Parameters held and gathered: bf16 working copies (FSDP2
 * MixedPrecisionPolicy(param_dtype=bf16) as torchtitan configures it; the
 * bf16 copy Megatron's distributed optimizer all_gathers after its step). */
#define PARAM_BYTES 2.0
/* Gradients held and reduced: fp32 (Megatron main_grad, DDP over fp32
 * parameters, FSDP2 reduce_dtype=fp32; docs/step-model.md 5). */
#define GRAD_BYTES 4.0
/* Optimizer states: fp32 master weights + Adam m + v (ZeRO paper, Rajbhandari
 * et al. 2020, Sec. 3.1: 12 bytes per parameter under mixed precision). */
#define OPTIMIZER_BYTES 12.0
/* Megatron-Core's precision-aware optimizer (layout.adam_moments_bf16):
 * exp_avg and exp_avg_sq in bf16, 2 B each (optimizer/__init__.py hands
 * exp_avg_dtype / exp_avg_sq_dtype to Transformer Engine's FusedAdam); the
 * master weights fp32 (4 B, Megatron-Core's shards under an FP8 recipe) or,
 * when TE's FusedAdam holds them for bf16 parameters, the 16 trailing bits
 * of each fp32 master only (store_param_remainders: "Whole FP32 master can
 * be reconstructed from BF16 params plus the trailing remainder bits",
 * TE pytorch/optimizers/fused_adam.py FusedAdam). */
#define ADAM_MOMENT_BF16_BYTES 2.0
#define MASTER_FP32_BYTES 4.0
#define MASTER_REMAINDER_BYTES 2.0
/* Gradient buckets of DDP and ZeRO-1: torch DDP bucket_cap_mb = 25 (MiB,
 * torch/nn/parallel/distributed.py DistributedDataParallel.__init__). */
#define BUCKET_BYTES (25.0 * 1024 * 1024)

/* The optimizer step's HBM traffic per local parameter.
 * AdamW with fp32 states: read grad, param, m, v (16 B), write param, m, v
 * (12 B), write the bf16 working copy (2 B). */
#define ADAMW_STEP_BYTES_PER_PARAM 30.0
/* The gradient-norm pass that precedes it, one more read of every fp32
 * gradient (4 B): Megatron-LM clip_grad_norm_fp32
 * (megatron/optimizer/clip_grads.py, default --clip-grad 1.0) and
 * torch.nn.utils.clip_grad_norm_ (FSDP, llm-foundry, torchtitan max_norm
 * 1.0) both reduce the norm over all gradients. Its all_reduce of one scalar
 * is latency only and not modelled. */
#define GRAD_NORM_BYTES_PER_PARAM 4.0
/* With bf16 moments (layout.adam_moments_bf16) the step reads and writes m
 * and v at 2 B instead of 4: 4 x 2 B = 8 B less (the remainder master's
 * traffic, read 2 + 2 B, write 2 + 2 B against read 4, write 4 + 2, is not
 * modelled). */
#define ADAMW_BF16_MOMENTS_SAVED_BYTES 8.0
/* Megatron-Core DDP's per-step passes over its whole local gradient buffer
 * (layout.grad_buffer_passes), in gradient-buffer elements moved per
 * parameter: zero_grad_buffer() before the first forward writes every element
 * once (distributed_data_parallel.py zero_grad_buffer -> param_and_grad_buffer.py
 * _ParamAndGradBuffer.reset: self.grad_data.zero_(), core_r0.8.0 .. core_v0.14.0),
 * and with ddp_config.check_for_nan_in_grad each bucket's norm is taken
 * before its reduce, one read of every element (core_r0.8.0 Bucket.start_grad_sync
 * `norm = self.grad_data.norm(p=2)`; core_v0.12.0 / core_v0.14.0
 * _ParamAndGradBucketGroup.check_grads `grad_norm = self.buckets[i].grad_data.norm(p=2)`).
 * Megatron-LM turns the check on by default (--check-for-nan-in-loss-and-grad),
 * NeMo 2 and Megatron-Bridge recipes set check_for_nan_in_grad=True. The
 * gradient scaling pass (grad_data *= gradient_scaling_factor) is not counted:
 * NeMo 2 / Bridge set average_in_collective=True, which makes the factor 1.
 * The two are counted apart (session 28, mlperfcfg28): start_grad_sync calls
 * check_grads only `if self.ddp_config.check_for_nan_in_grad or
 * self.ddp_config.check_for_large_grads` (Megatron-LM 25.04-alpha.rc1,
 * 25.09-alpha.rc1; both default False in DistributedDataParallelConfig), and
 * the MLPerf v5.1 NeMo 2 pretrain.py pass check_for_nan_in_grad=False
 * (layout.no_grad_nan_check): the zero pass stays. */
#define GRAD_BUFFER_ZERO_PASSES 1.0
#define GRAD_NAN_CHECK_PASSES 1.0
/* Without average_in_collective (Megatron-LM's --ddp-average-in-collective is
 * store_true, default False; core_r0.8.0 distributed_data_parallel.py sets
 * gradient_scaling_factor = 1/dp then), each bucket's gradients are scaled
 * in place before its reduce, a read and a write of every element
 * (layout.grad_scale_pass; param_and_grad_buffer.py start_grad_sync
 * `grad_data *= gradient_scaling_factor`, core_r0.8.0 .. core_v0.14.0;
 * `self.data /= self.data_parallel_world_size` in grad_buffer.py since
 * Megatron-LM 25c7eb2863, which created megatron/core/distributed). */
#define GRAD_SCALE_PASSES 2.0
/* What the simulator counts for a fused optimizer: 34 B. */
#define ADAMW_BYTES_PER_PARAM (ADAMW_STEP_BYTES_PER_PARAM + GRAD_NORM_BYTES_PER_PARAM)
/* Eager PyTorch (layout.kernels unfused: FSDP with torch.optim or Composer):
 * AdamW as element-wise passes, torch.optim.adamw._multi_tensor_adamw
 * (torch 2.0/2.1, the default foreach path): decoupled decay mul_ (8 B),
 * exp_avg lerp_ (12), exp_avg_sq mul_ (8) and addcmul_ (12), sqrt (8),
 * div_ (8), add_ eps (8), addcdiv_ into the parameter (16): 80 B per
 * parameter (Composer's DecoupledAdamW loop, composer/optim/
 * decoupled_weight_decay.py, makes the same passes per tensor, 88 B); and
 * torch.nn.utils.clip_grad_norm_: the norms (read 4 B) and the scaling
 * multiply (read and write 4 B), 12 B. FSDP keeps no separate bf16 copy to
 * write (the cast happens at gather time). */
#define ADAMW_EAGER_BYTES_PER_PARAM (ADAMW_FOREACH_STEP_BYTES_PER_PARAM + GRAD_NORM_EAGER_BYTES_PER_PARAM)
/* Eager PyTorch with torch.optim.AdamW(fused=True) (layout.opt_fused; torchtitan's
 * optimizer.implementation default "fused" since pytorch/torchtitan 6e4988550,
 * 2025-02-24): one _fused_adamw_ call, a multi_tensor_apply kernel family over
 * (param, grad, exp_avg, exp_avg_sq) that loads all four and stores all but
 * the gradient, which it writes back only under a grad scaler
 * (pytorch/pytorch aten/src/ATen/native/cuda/fused_adam_utils.cuh
 * FusedAdamMathFunctor: `if (i != kGradIdx || grad_scale_ptr) load_store`):
 * read 16 B, write 12 B per fp32 parameter, no bf16 copy (the cast happens at
 * gather time or under autocast). */
#define ADAMW_FUSED_EAGER_STEP_BYTES_PER_PARAM 28.0
/* The eager foreach step alone (ADAMW_EAGER_BYTES_PER_PARAM less its norm pass)
 * and that norm pass, torch.nn.utils.clip_grad_norm_: the norms (read 4 B)
 * and the scaling multiply (read and write 4 B; torch multiplies by the
 * clamped coefficient whatever its value). */
#define ADAMW_FOREACH_STEP_BYTES_PER_PARAM 80.0
#define GRAD_NORM_EAGER_BYTES_PER_PARAM 12.0
/* Kernels Composer's DecoupledAdamW launches per parameter tensor after its
 * host sync (composer/optim/decoupled_weight_decay.py v0.17.2 `adamw`, with
 * llm-foundry's weight_decay 0: exp_avg mul_ and add_, exp_avg_sq mul_ and
 * addcmul_, sqrt, div, add_ eps, addcdiv_ into the parameter). */
#define ADAMW_EAGER_KERNELS_PER_TENSOR 8.0
/* The search's pruning bound (search/comm.c) must never exceed the simulated
 * step, so it counts the least any optimizer step moves: the fused AdamW step
 * with bf16 moments and no gradient-norm pass (layout.no_grad_clip): 22 B,
 * below the eager fused step's 28 and every step with its norm pass. */
#define ADAMW_LOWER_BOUND_BYTES_PER_PARAM \
  (ADAMW_STEP_BYTES_PER_PARAM - ADAMW_BF16_MOMENTS_SAVED_BYTES)
/* torch.optim.SGD over 16-bit parameters (layout.opt_sgd), as Lightning
 * Fabric precision "bf16-true" trains: the parameters, their .grad and so
 * the update are bf16, with no fp32 master (torch.optim keeps none: it steps
 * the tensors it is given). lightning-thunder examples/lit-gpt/train.py and
 * train_fsdp.py @ 943f99c95: torch.optim.SGD(model.parameters(), lr=6e-4,
 * weight_decay=1e-1, foreach=False), momentum left at its default 0.
 * torch/optim/sgd.py _single_tensor_sgd (torch 2.x, the for-loop path
 * foreach=False selects; read from vendored copies of torch 2.x's sgd.py,
 * not from a pinned pytorch/pytorch commit), per parameter tensor:
 *   grad = grad.add(param, alpha=weight_decay)  read 2 + 2 B, write 2 B
 *   param.add_(grad, alpha=-lr)                 read 2 + 2 B, write 2 B
 * 12 B per parameter in two kernels per tensor (_multi_tensor_sgd's
 * _foreach_add / _foreach_add_ move the same bytes in fewer launches). The
 * momentum buffer (buf.mul_(momentum).add_(grad), a state tensor of the
 * parameter's size) exists only when momentum != 0 and is not modelled:
 * plateau's sgd is momentum 0, optimizer state 0 B. */
#define SGD_WEIGHT_DECAY_BYTES_PER_PARAM 6.0
#define SGD_UPDATE_BYTES_PER_PARAM 6.0
#define SGD_STEP_BYTES_PER_PARAM (SGD_WEIGHT_DECAY_BYTES_PER_PARAM + SGD_UPDATE_BYTES_PER_PARAM)
#define SGD_OPTIMIZER_BYTES 0.0

/* Eager log_softmax over rows too long for shared memory (layout.eager_xent):
 * PyTorch's host_softmax (aten/src/ATen/native/cuda/SoftMax.cu) keeps a row
 * in shared memory only when `dim_size < max_elements_per_smem`, i.e. when
 * its fp32 row fits in the block's sharedMemPerBlock (48 KiB on every CUDA
 * GPU since compute capability 2.x without the opt-in carve-out, CUDA C++
 * Programming Guide, Table "Technical Specifications per Compute
 * Capability": "Maximum amount of shared memory per thread block" 48 KB
 * without cudaFuncSetAttribute); longer rows (any LLM vocabulary: 32000 x 4 B
 * = 125 KiB) run cunn_SoftMaxForward, which reads the input three times (the
 * max pass, the sum-of-exp pass, WriteFpropResults) and writes once, 16 B per
 * fp32 logit where one read would be 8: +8 B forward. Its backward,
 * cunn_SoftMaxBackward, reads gradOutput twice (the sum, then
 * WriteBpropResults with the output): +4 B. */
#define SOFTMAX_SMEM_PER_BLOCK_BYTES 49152.0
#define LOG_SOFTMAX_REREAD_FWD_BYTES 8.0
#define LOG_SOFTMAX_REREAD_BWD_BYTES 4.0

/* Megatron's eager attention softmax (layout.megatron_softmax; src/sim/compute.c
 * megatron_softmax_fused): FusedScaleMaskSoftmax runs its fused kernel only when
 * is_kernel_available says so (microsoft/Megatron-DeepSpeed f4157bea and every version
 * since 7a77abd9 (2022-01-12); NVIDIA/Megatron-LM since 4916bae6 (2021-02-04)
 * megatron/model/fused_softmax.py: 16 < sk <= 4096, sq % 4 == 0, sk % 4 == 0,
 * b * np % 4 == 0, then b * np (causal) or sq (padding) a multiple of
 * get_batch_per_block (megatron/fused_kernels/scaled_masked_softmax.h: 128 threads a
 * block over min(next_pow2(sk), 32)-thread warps, 2 rows a warp up to 128 keys, else 1).
 * Otherwise forward_torch_softmax runs op by op in fp32 (softmax_in_fp32 is forced on by
 * the default query-key layer scaling, megatron/model/transformer.py):
 * input.float() (read 2, write 4 B per score), input * scale (4 + 4), masked_fill_ with
 * the bool mask (4 + 1 + 4), torch.nn.Softmax (4 + 4), .half()/.bfloat16() (4 + 2):
 * 37 B and 5 kernels against the fused kernel's 4 B and 1; autograd's backward the
 * reverse: the cast's ToCopyBackward (2 + 4), softmax backward (y 4, dy 4, dx 4),
 * MaskedFillBackward (4 + 1 + 4), MulBackward (4 + 4), ToCopyBackward (4 + 2): 41 B
 * and 5 kernels against 6 B and 1. */
#define MEGATRON_SOFTMAX_MAX_KEYS 4096
#define MEGATRON_SOFTMAX_MIN_KEYS 16 /* exclusive */
#define MEGATRON_SOFTMAX_THREADS_PER_BLOCK 128
#define MEGATRON_SOFTMAX_UNFUSED_FWD_BYTES 37.0
#define MEGATRON_SOFTMAX_UNFUSED_BWD_BYTES 41.0
#define MEGATRON_SOFTMAX_UNFUSED_KERNELS 5

/* Eager SwiGLU on torch.chunk halves of one fc1 output (segments.c
 * unfused_kernels): chunk's backward is an at::cat of the two half gradients
 * (tools/autograd/derivatives.yaml split_backward), read 2 + 2 and write
 * 2 + 2 B per ffn element. */
#define SWIGLU_CHUNK_CAT_BWD_BYTES 8.0

/* torch.autocast's cast of an fp32 weight to bf16 (layout.autocast_weight_casts,
 * src/sim/autocast.c): read 4 B, write 2 B per element forward (aten::_to_copy
 * under cached_cast), and ToCopyBackward0's cast of its gradient back to fp32,
 * read 2 B, write 4 B. */
#define AUTOCAST_CAST_BYTES_PER_ELEM 6.0

/* LoRA's default rank and scale: Megatron-Bridge 067f987 src/megatron/bridge/
 * peft/lora.py LoRA.dim = 32 (alpha = 32), NeMo 1 megatron_gpt_finetuning_
 * config.yaml lora_tuning.adapter_dim 32 (NeMo 4c73f77, the 24.07 release);
 * finetune.c. */
#define LORA_DIM_DEFAULT 32

#endif
