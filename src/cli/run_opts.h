/* run_opts.h: the options that describe a training run (model, hardware,
 * layout, batch), shared by predict, search, sweep and study so that every
 * command spells them the same way. */
#ifndef PL_CLI_RUN_OPTS_H
#define PL_CLI_RUN_OPTS_H

#include <plateau/predict.h>

#include "opts.h"

/* The hardware edits of a run (include/plateau/run_flags.h pl_cluster_flag_name), for
 * RUN_OPTS and for validate's hardware what-if. */
#define RUN_HARDWARE_OPTS                                                                     \
  {"power-cap", "W", "GPU board power limit in watts, '500' or '500 W' (default: the GPU's TDP); lowers the sustained clock"}, \
  {"hbm", "SIZE", "GPU memory (HBM) per GPU, '80 GiB' or '96 GB', for a machine whose GPUs differ from the GPU file's (default: the GPU file's)"}, \
  {"hbm-bandwidth", "BW", "HBM bandwidth per GPU, '3.35 TB/s' (default: the GPU file's)"}, \
  RUN_NETWORK_OPTS,                                                                           \
  {"gpu-variability", "CV", "the GPUs' sustained clocks spread with this standard deviation over mean, '0.02' or '2%' (at most 0.1), and the step waits for the expected slowest of the run's GPUs; default: the GPU file's measured spread (b200, gb200: 0.0088, the slowest of 8 B200 under full-node load; h100, h200: 0.0093, of 8 H200), else off; 'off' turns it off (docs/hardware.md 'GPU variability')"}

/* The hardware edits that change collectives (a subset of the above, also
 * taken by `plateau collectives`). */
#define RUN_NETWORK_OPTS                                                                      \
  {"nic-bandwidth", "BW", "network bandwidth per NIC and direction, '400 Gb/s' or '50 GB/s' (default: the cluster's)"}, \
  {"sharp", "on|off", "InfiniBand SHARP in-network reduction used by NCCL: CollNet with the SHARP plugin (NCCL_COLLNET_ENABLE=1) for groups of >= 2 nodes (docs/collectives.md, 'CollNet'; default: the cluster's)"}, \
  {"gpus-per-node", "N", "GPUs per node as NCCL sees it, the NVLink domain, at most the cluster's: a GB200/GB300 NVL72 job placed in NVLink segments of K trays (Slurm --segment K) has 4K; NICs per GPU kept (default: the cluster's)"}, \
  {"nccl-min-channels", "N", "the channel floor NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS put under every communicator (0..64; default: the cluster's, usually none): coll and NVLS channels at least N, except where a communicator's --nccl-max-ctas-* is lower"}

/* Expands to the option table entries; put it inside a command's table. */
#define RUN_OPTS                                                                              \
  {"model", "M", "model preset, plateau model file or HF config.json (default llama2-7b)"}, \
  {"gpu", "G", "GPU preset or file (default h100)"},                                         \
  {"cluster", "C", "cluster preset or file (default: the DGX system of --gpu)"},           \
  RUN_HARDWARE_OPTS,                                                                          \
  {"gpus", "N", "world size (default: one node)"},                                           \
  {"nodes", "N", "world size in nodes (instead of --gpus)"},                                 \
  {"tp", "N", "tensor-parallel degree (default 1)"},                                         \
  {"pp", "N", "pipeline stages (default 1)"},                                                \
  {"cp", "N", "context-parallel degree (default 1)"},                                        \
  {"cp-comm-type", "T", "p2p|all_gather|a2a|a2a+p2p: how context parallelism exchanges attention's inputs (Megatron-Core --cp-comm-type, Transformer Engine's context_parallel.py): p2p the K/V ring hidden behind the attention steps; all_gather K/V (kv-head width) all_gathered before attention and dK/dV reduce_scattered after, both exposed (Llama 3's CP); a2a Q, K, V and O swap sequence for heads by all_to_all, exposed (DeepSpeed-Ulysses; cp divides the kv heads per tp rank); a2a+p2p a2a within --cp-a2a-size ranks, then the p2p ring across (default p2p; not with --cp-allgather on)"}, \
  {"cp-a2a-size", "N", "with --cp-comm-type a2a+p2p: the a2a group's size, the first of Megatron-Core's --hierarchical-context-parallel-sizes (divides cp)"}, \
  {"vp", "N", "virtual stages per pipeline rank, interleaved schedule (default 1)"},        \
  {"shard", "MODE", "ddp|zero1|zero2|zero3 (default zero2 = FSDP SHARD_GRAD_OP)"},           \
  {"shard-group", "G", "shard within groups of G GPUs, replicate across (HSDP; default dp)"}, \
  {"seq", "L", "sequence length, tokens (default: the model's)"},                            \
  {"mbs", "N", "micro-batch, sequences (default 1)"},                                        \
  {"gbs", "N", "global batch, sequences per step (default batch-per-gpu x gpus)"},           \
  {"batch-per-gpu", "N", "sequences per GPU per step; gbs = that x gpus (default 1)"},       \
  {"recompute", "MODE",                                                                       \
   "none|selective|full|ops activation recomputation (default none; ops = torchtitan per-op "  \
   "selective AC)"},     \
  {"recompute-layers", "N", "with --recompute full, only the first N blocks of each model chunk (Megatron --recompute-method block --recompute-num-layers N; default: all)"}, \
  {"recompute-every", "K", "with --recompute full, every K-th block only (torchtitan selective_ac_option K; default: all)"}, \
  {"offload-modules", "LIST", "MoE saved inputs offloaded to host memory in the forward and reloaded one group ahead in the backward, comma-separated: expert_fc1 (the experts' fc1 input)|moe_act (their activation input) (Megatron-Core --fine-grained-activation-offloading --offload-modules; its other modules are not modelled): memory only, the copies overlap compute and are not charged (default: none)"}, \
  {"act-offload-layers", "N", "activations of the first N blocks offloaded to host memory in the forward, reloaded for the backward (Megatron-Core --cpu-offloading-num-layers N with activation offloading, Transformer Engine get_cpu_offload_context): memory only, the copies overlap compute and are not charged; pp 1, no recompute, N below the blocks (default 0: none)"}, \
  {"cuda-graph-scope", "LIST", "CUDA-graph scopes the run captures, comma-separated: attn|moe_router|moe_preprocess|mamba|full_iteration, or none (Megatron-Core cuda_graph_impl transformer_engine with cuda_graph_scope, or Megatron-Bridge full_iteration); their kernels cost the host nothing (host per-kernel and per-GEMM floors count the other ops); default none"}, \
  {"recompute-modules", "LIST", "Megatron-Core selective recompute modules, comma-separated: core_attn|moe_act|layernorm|mla_up_proj|mlp|moe|shared_experts (Megatron --recompute-modules with --recompute-granularity selective; implies --recompute selective; default with selective: core_attn)"}, \
  {"recompute-method", "M", "block|uniform with --recompute full (Megatron --recompute-method): block = only the first --recompute-layers N blocks of each model chunk recomputed; uniform = every block recomputed, checkpointed in groups of N (default block)"}, \
  {"schedule", "S", "1f1b|interleaved|gpipe pipeline schedule (default 1f1b)"},             \
  {"first-stage-layers", "N", "transformer blocks on the first pipeline stage, the rest split evenly (Megatron --decoder-first-pipeline-num-layers; default: even split)"}, \
  {"last-stage-layers", "N", "transformer blocks on the last pipeline stage (Megatron --decoder-last-pipeline-num-layers; default: even split)"}, \
  {"pipeline-layout", "S", "Megatron-Core pipeline layout string, e.g. 'Et*4|(t*4|)*14tmL': each virtual stage's layers, '|' between stages (E embedding, t transformer block, m MTP module, L loss; '(..)*n' and 'x*n' repeat); sets vp (Megatron --pipeline-model-parallel-layout; default: even split)"}, \
  {"mtp-layers", "N", "multi-token-prediction modules trained (Megatron --mtp-num-layers): each one more block, an eh_proj GEMM and a second output-layer and loss pass, on the stage holding 'm' or the last (default 0: none)"}, \
  {"account-embed-loss", "on|off", "the pipeline split counts the embedding and the loss as one block each: the first and the last virtual stage build one block fewer (Megatron-Core --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split; default off)"}, \
  {"dtype", "T", "bf16|fp8|fp8-delayed|fp8-current|fp8-blockwise|fp8-tensorwise|fp8-rowwise|mxfp8|nvfp4 (default bf16; fp8-delayed|current|blockwise: Transformer Engine recipes with cached FP8 weights; fp8-tensorwise: torchao Float8Linear (torchtitan), amax before every cast, weights cast every forward; fp8-rowwise: torchao's rowwise recipe, each linear casting its own input, backward outputs rescaled, 16-bit communication; docs/step-model.md 2.3e; mxfp8, nvfp4: Blackwell)"},                                              \
  {"framework", "NAME", "framework preset or file: megatron-lm|megatron-core|nemo|torchtitan|pytorch-fsdp|llm-foundry|deepspeed (default none: plateau's defaults; plateau list frameworks)"}, \
  {"attention", "A", "flash|cudnn|te|triton|eager: flash = FlashAttention-2, cudnn = cuDNN fused attention (GPU files with cudnn figures), te = Transformer Engine's choice (cudnn on Hopper/Blackwell, else flash), triton = FlashAttention in Triton, eager stores the s x s scores (default flash)"}, \
  {"kernels", "K", "fused|unfused element-wise kernels: unfused = eager PyTorch (default fused)"}, \
  {"fsdp-comm", "C", "one|separate communicators for zero2/zero3 gathers and reduce_scatters (default one, as PyTorch)"}, \
  {"fsdp-prefetch", "P", "on|off: zero2/zero3 gathers prefetched and hidden behind compute (default on), or each started after the previous unit's compute and waited for (a bound when they do not overlap)"}, \
  {"ep", "N", "expert-parallel degree, MoE models: divides the experts (default 1)"},      \
  {"etp", "N", "expert tensor-parallel degree, MoE models (default 1); edp = gpus / (etp x ep x pp)"}, \
  {"moe-imbalance", "X", "tokens of the busiest expert rank over the mean, >= 1 (default 1.25, the GShard/Switch capacity factor)"}, \
  {"moe-dispatch", "D", "alltoall|allgather|deepep|hybridep MoE token dispatcher (default alltoall)"}, \
  {"moe-pad-capacity", "on|off", "experts' inputs dropped and padded to capacity (Megatron-Core moe_pad_expert_input_to_capacity): no token counts or their all_gather in the alltoall dispatcher (default off)"}, \
  {"moe-force-balance", "on|off", "the router forced to balance (Megatron-Core moe_router_force_load_balancing, as benchmarks run): random logits each forward, two more kernels per MoE block, the busiest expert rank carrying their sampling spread (about 1 %); --moe-imbalance then defaults to 1 (default off)"}, \
  {"ep-comm-overlap", "on|off", "MoE with ep > 1: the expert-parallel all-to-alls run beside the compute of another micro-batch (Megatron-Core --overlap-moe-expert-parallel-comm, combined 1F1B; default off: blocking)"}, \
  {"sequence-parallel", "on|off", "Megatron sequence parallelism whenever tp > 1 (default on)"}, \
  {"tp-comm-overlap", "on|off", "with sequence parallelism, the layers' tp all_gathers/reduce_scatters run beside their GEMMs (Transformer Engine userbuffers; default off)"}, \
  {"overlap-grad-reduce", "on|off", "ddp/zero1 gradient buckets reduced during the last backward (default on), or after it"}, \
  {"overlap-param-gather", "on|off", "zero1 parameter all_gather overlapped with the next forward (default off: after the optimizer step)"}, \
  {"overlap-p2p", "on|off", "interleaved pipeline send/recv asynchronous, only the receiver waits (default off: blocking)"}, \
  {"p2p-serial", "on|off", "1F1B pipeline exchange as DeepSpeed's pipeline engine runs it: each send and recv its own blocking call in TrainSchedule order, a boundary's activation and gradient one after the other, tp-split activations all_gathered back (default off: Megatron's batched send/recv)"}, \
  {"p2p-scatter-gather", "on|off", "pipeline activations and gradients sent split over the tp ranks and all_gathered back on the receiver, plus a copy (Megatron-LM 2021-22 --scatter-gather-tensors-in-pipeline; pp > 1, tp > 1, no sequence parallelism; default off)"}, \
  {"shard-grads-reduce-dtype", "on|off", "zero2/zero3: gradient shards kept in the --grad-reduce-dtype (Megatron-Core's Megatron FSDP main_grad_buffer; default off: fp32, as PyTorch FSDP2 keeps them in its fp32 sharded parameters' dtype)"}, \
  {"grad-reduce-dtype", "T", "fp32|bf16 gradient reduction: ddp/zero1 buckets, zero2/zero3 reduce_scatter (default fp32)"}, \
  {"zero1-grad-reduce", "OP", "reduce-scatter|all-reduce of zero1 gradients (default reduce-scatter; all-reduce = DeepSpeed pipeline engine)"}, \
  {"grad-accum", "MODE", "in-place|fp32-copy: 16-bit ddp/zero1 gradients added in place (default) or cast to an fp32 copy per micro-batch (DeepSpeed BF16_Optimizer)"}, \
  {"logit-metric-passes", "N", "extra fp32 cross-entropy passes over the logits per micro-batch for train metrics (default 0; llm-foundry 2)"}, \
  {"fp8-weight-cache", "on|off", "with FP8, MXFP8 or NVFP4, weights cast once per step and cached for the other micro-batches (Transformer Engine is_first_microbatch, as Megatron-Core passes it; default off: every micro-batch)"}, \
  {"fsdp-pp-unsharded", "on|off", "zero2/zero3 with pp > 1: parameters gathered once per step and kept unsharded, gradients reduce_scattered after each chunk's last backward (torchtitan with PP; default off: per micro-batch)"}, \
  {"head-16bit", "on|off", "with FP8, MXFP8 or NVFP4, the LM head's GEMMs still run in 16-bit (Megatron-Core's output layer is not a Transformer Engine module; default off: at the run's dtype)"}, \
  {"te-linear-bwd-overlap", "on|off", "tp without --tp-comm-overlap: Transformer Engine's column-parallel linears run the backward's input all_gather beside the dgrad GEMM and the dgrad reduce_scatter/all_reduce beside the wgrad GEMM (TE _Linear.backward; on in megatron-core, nemo)"}, \
  {"moe-host-sync", "on|off", "MoE: the host waits once per block's forward until the GPU has counted the tokens of each local expert, then issues the expert GEMMs while the GPU idles (Megatron-Core's token dispatchers; counts with --host-per-kernel/--host-per-gemm, not with --ep-comm-overlap; on in megatron-core, nemo; default off: the host runs ahead)"}, \
  {"moe-router-fusion", "on|off", "MoE: the router's top-k and load-balancing loss run as Transformer Engine's fused kernels (Megatron-Core moe_router_fusion; default on); off: Megatron-Core's eager path, about 27 kernels forward and 9 backward for the top-k and 20 and 12 for the loss over the fp32 tokens x experts scores (moe_utils.py fused=False)"}, \
  {"jit-fuser", "on|off", "Megatron-Core's SwiGLU (the MLPs', the shared and routed experts'; fusions/fused_bias_swiglu.py @jit_fuser) runs as torch.compile's one kernel each way (default on); off: as eager PyTorch kernels on the chunked halves, 10 B in 2 kernels forward and 58 B in 11 backward per activation element (80 B in 16 for the routed experts' weighted form, 104 B in 21 for GPT-OSS's weighted quick-GEGLU)"}, \
  {"moe-expert-padding", "on|off", "MoE under an FP8/FP4 dtype: Transformer Engine's Fp8Padding copies each local expert's rows to a multiple of 16 (32 for mxfp8) before the grouped GEMMs and back after, 8 B per routed element each way (Megatron-Core TEGroupedMLP; off where the recipe pads at the router, moe_router_padding_for_quantization; never with --moe-dispatch hybridep, whose dispatch pads; on in megatron-core, nemo; default off)"}, \
  {"te-cross-entropy", "on|off", "the loss is Transformer Engine's fused cross-entropy (Megatron-Core cross_entropy_fusion_impl te): the logits stay 16-bit, 2 B each, in memory (default off: an fp32 copy, 4 B, as Megatron-Core's native cross-entropy upcasts them)"}, \
  {"eager-cross-entropy", "on|off", "the loss is PyTorch's eager F.cross_entropy on an fp32 copy of the logits (torchtitan's loss_fn without torch.compile): log_softmax's fp32 output, its dense fp32 gradient and the fp32 input gradient, 12 B per logit at the loss's backward instead of 4; memory only (default off)"}, \
  {"pp-keep-outputs", "on|off", "pp > 1: every pipeline stage keeps each micro-batch's output (the hidden states it sends, the last stage's 16-bit logits) until the step ends, as torch.distributed.pipelining did before PyTorch 2.8 (PR #153383; torchtitan with PP); memory only (default off: freed after use, as Megatron-Core's deallocate_output_tensor)"}, \
  {"tp-gathered-saved", "on|off", "tp > 1 with sequence parallelism: tensor parallelism is PyTorch DTensor's plan (torchtitan apply_tp), whose column-parallel linears save the all-gathered input whole for their weight gradient instead of the sequence shard (Megatron-Core's); memory only (default off; on in the torchtitan preset)"}, \
  {"fp32-param-shards", "on|off", "zero3 as PyTorch FSDP2 keeps it: the shards are the fp32 parameters, updated in place, cast to bf16 only for the all-gather: 16 B per parameter instead of 18 (no 16-bit shard, no separate master); memory only (default off; on in the torchtitan preset)"}, \
  {"fsdp1-copies", "on|off", "zero2/zero3 as PyTorch FSDP1 (FullyShardedDataParallel) copies: no copy-out after the all_gather (it writes the flat parameter), the gradients concatenated into the flat gradient, cast to the reduce dtype and pre-divided before the reduce_scatter (fp32: 18 B per parameter per micro-batch, bf16: 8 B) instead of FSDP2's copy-out and chunk_cat (default off: FSDP2; on in the pytorch-fsdp, fms-fsdp and llm-foundry presets)"}, \
  {"fsdp2-predivide", "on|off", "zero2/zero3 as PyTorch 2.3's FSDP2 reduces bf16 gradients: the whole reduce_scatter input divided in place by the pre-divide factor before the call (_div_if_needed(reduce_scatter_input, predivide_factor)), one more pass per micro-batch, read + write 2 B per parameter; none with an fp32 reduce (ReduceOp.AVG in 2.3) nor in 2.4+ (default off)"}, \
  {"fused-norm", "on|off", "with --kernels unfused, each RMSNorm runs as one fused kernel each way, as torchtitan's Triton FusedRMSNorm (norm_type = \"fused_rmsnorm\", torchtitan/models/norms.py, 2024-04 to 2025-02): no eager op-by-op chain (rmsnorm_eager), the norm reads x and writes y forward (4 B per element), reads x and dy and writes dx backward (6 B), at the GPU's hbm_fraction (default off)"}, \
  {"fsdp-root-unit", "on|off", "zero2/zero3 with pp 1 as PyTorch FSDP wraps the model's root last (FSDP1 auto-wrap, FSDP2 fully_shard(model) in torchtitan before 2025-07-28): the embedding, final norm and LM head are one unit, gathered once before the forward and kept through the backward, their gradients reduce_scattered after the whole backward, the optimizer waiting (default on for the torchtitan (v0.1.0), torchtitan-2024-04, pytorch-fsdp, fms-fsdp and llm-foundry presets; off otherwise: the embedding and the head are units of their own, as torchtitan from 2025-07-28)"}, \
  {"fsdp2-rs-copy-in", "on|off", "zero2/zero3 as PyTorch 2.3's FSDP2 copies gradients in: the copy-in (and any pre-divide) runs on the reduce-scatter stream behind the previous unit's reduce_scatter and the backward waits for it, so a comm-bound unit takes its reduce_scatter plus the copy-in (default off: the copy-in on the compute stream, as later FSDP2)"}, \
  {"megatron-xent", "on|off", "the loss is Megatron's vocab_parallel_cross_entropy run op by op on an fp32 copy of the logits (Megatron-LM without --cross-entropy-loss-fusion, its default; Megatron-DeepSpeed): 38 B per logit forward, 14 B backward, against one fused pass of 6 + 6 B (default off; on in the megatron-core, megatron-lm, deepspeed and deepspeed-zero3-2021 presets; ignored with --te-cross-entropy on or --kernels unfused)"}, \
  {"gqa-query-copy", "on|off", "attention as Megatron-Core runs it: the split of the fused QKV output leaves the query strided, and query.reshape copies it once per block's forward (2 B read + 2 B written per query element) when 1 < kv heads < query heads per tp rank (SelfAttention.get_query_key_value_tensors; default on for the megatron-core and nemo presets, off otherwise)"}, \
  {"fms-rope", "on|off", "with --kernels unfused, RoPE as IBM fms runs it eagerly (RotaryEmbedding.adjusted_qk): q and k cast to fp32, multiplied by each pair's 2 x 2 rotation into a tensor twice their size, summed and cast back: 36 B per q and k element each way instead of the fused 4 B (HF's rotate_half path: 20 and 16 B); default on for the fms-fsdp-2024-03 preset, off otherwise"}, \
  {"kv-expand-copy", "on|off", "GQA with fewer kv heads than query heads per tp rank: K and V are expanded to every query head with expand + flatten before SDPA, which copies them (fms MultiHeadAttention); the backward sums the copies back: per token 2 B x (kv + query heads) x head_dim for K and for V each way; default on for the fms-fsdp-2024-03 preset, off otherwise"}, \
  {"separate-linears", "on|off", "projections as torchtitan builds them: q, k and v are three linears (wq, wk, wv) and a gated MLP's w1, w3 two, so they run as separate GEMMs (the narrow k and v ones at their own rate), autograd sums their input gradients instead of concatenating one split, and fp8-tensorwise without tp casts each linear's input (default on for the torchtitan preset, off otherwise)"}, \
  {"rope-complex", "on|off", "RoPE as torchtitan computes it, by complex multiplication (view_as_complex of the fp32 q and k, times freqs_cis, view_as_real, cast back): TorchInductor generates no code for complex tensors, so the cast, complex multiply and cast-back kernels run unfused even under torch.compile (+16 B forward and backward per q and k element; default on for the torchtitan preset, off otherwise)"}, \
  {"adam-moments-dtype", "T", "fp32|bf16 Adam moments (exp_avg, exp_avg_sq): bf16 = Megatron-Core's precision-aware optimizer (--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16), 2 B each, and with no FP8 recipe TE's FusedAdam keeps bf16 parameters' master weights as 16-bit remainders; needs zero1 or higher (default fp32: 12 B of optimizer state per parameter)"}, \
  {"adam-master", "W", "kept|none the optimizer's master copy of the parameters: none = the 16-bit parameters are the optimizer's, updated in place (Apex DistributedFusedAdam store_params False, as NeMo 1 sets it when the optimizer dtype equals the model's): m and v only, 8 B per parameter, 4 B with --adam-moments-dtype bf16; memory only (default kept)"}, \
  {"fsdp-block-units", "on|off", "zero3 as Megatron FSDP runs it: only the blocks are FSDP units; the embedding, final norm and LM head are gathered in 16-bit once and stay gathered through the step (Megatron-Core fsdp_unit_modules [TransformerLayer]): memory, and the backward does not gather them again (default off: gathered and freed as units, as PyTorch FSDP)"}, \
  {"launch-blocking", "on|off", "CUDA_LAUNCH_BLOCKING=1 in the run: each kernel launch waits for the kernel, so the host time per kernel (--host-per-kernel) adds to a pass's GPU time (default off: they overlap)"}, \
  {"fp8-all-gather", "on|off", "with --dtype fp8-tensorwise and zero2/zero3, the blocks' GEMM weight shards cast to FP8 before FSDP's all_gather: 1 B per weight gathered, no cast after it (torchtitan enable_fsdp_float8_all_gather); with --dtype fp8, fp8-delayed or fp8-current, Transformer Engine FP8 parameters as Megatron FSDP (zero2/zero3) or Megatron-Core's distributed optimizer (zero1) keeps them with fp8_param_gather: 1 B weights and gathers; refused with fp8-rowwise (default off)"}, \
  {"host-per-kernel", "T", "host time to issue one kernel from eager PyTorch ('37 us'): a pass takes at least its kernels times this (default 0: not modelled)"}, \
  {"zero3-grad-reduce", "OP", "reduce-scatter|all-reduce of zero3 gradients: all-reduce = DeepSpeed ZeRO-3's default config of 2021 (contiguous_gradients false), whole gradients in buckets of 5e8 elements, one all_reduce per bucket (default reduce-scatter: one per unit, or per parameter with --zero3-list-copy)"}, \
  {"zero3-reuse", "on|off", "with --zero3-list-copy, a parameter used again within DeepSpeed's stage3_max_reuse_distance (1e9 elements) stays gathered (default on); off: every use gathers it again, as DeepSpeed 0.3.14-0.5.x ran (its module trace off by one step)"}, \
  {"zero3-debug-norm", "on|off", "with --zero3-list-copy, every module fetch takes each of its parameters' norm and reads it back to the host, as DeepSpeed 0.3.15-0.4.1's fetch_sub_module formats it into a debug message (default off)"}, \
  {"cudnn-2024", "on|off", "cuDNN fused attention at the rates of the cuDNN that mid-2024 containers shipped (9.0-9.1; NVIDIA's published cudnn-frontend benchmark of cuDNN 9.1, GPU files with attention.cudnn.shape_2024; default off: today's cuDNN)"}, \
  {"cudnn-913", "on|off", "cuDNN fused attention at the rates of cuDNN 9.13, the cuDNN of NGC PyTorch 25.09 (Megatron-Bridge v0.2.x, the 25.09/25.11 NeMo containers; NVIDIA's published cudnn-frontend benchmark of cuDNN 9.13.1, GPU files with attention.cudnn.shape_9_13; default off: today's cuDNN)"}, \
  {"cudnn", "VERSION", "the cuDNN release fused attention runs as, MAJOR.MINOR[.PATCH] from 8.9 or latest: a GPU file with that release's figures (attention.cudnn.shape_<major>_<minor>; the oldest release at or after VERSION) times cuDNN attention with them (9.1: mid-2024 containers, as --cudnn-2024 on; 9.13: NGC PyTorch 25.09, as --cudnn-913 on; wins over both; default latest: today's cuDNN)"}, \
  {"fp8-attention", "on|off", "MXFP8 attention, Megatron-Core's --fp8-dot-product-attention under the mxfp8 recipe: Transformer Engine runs cuDNN's MXFP8 SDPA, timed as the BF16 cuDNN kernel x the GPU file's attention.cudnn.mxfp8_time_ratio (NVIDIA's published cudnn-frontend benchmark); needs --dtype mxfp8 and cuDNN attention (default off)"}, \
  {"nvfp4-rht-unfused", "on|off", "under --dtype nvfp4, Transformer Engine before 2.14 (Megatron-Bridge 25.11 to 26.02.01 containers): each input and output gradient is read once more for the random-Hadamard-transformed columnwise cast, +2 B per element (NVFP4Quantizer::quantize_impl, fused from TE 2.14; default off)"}, \
  {"fused-grouped-mlp", "on|off", "the experts' MLP as Transformer Engine's fused MXFP8 grouped MLP (Megatron-Core's TE op fuser with NVTE_CUTEDSL_FUSED_GROUPED_MLP=1, Megatron-Bridge 26.06+ MoE MXFP8 configs): cuDNN's grouped GEMM kernels apply the GLU, biases and router probabilities and quantize in their epilogue; needs --dtype mxfp8, a compute capability 10.x GPU and a gated MoE model with --etp 1 (default off)"}, \
  {"cudnn-cluster-margin", "N", "with --fused-grouped-mlp on, the clusters of two SMs that its cuDNN grouped GEMM kernels (forward and input gradient) leave out of their persistent grid for concurrent communication, cuDNN frontend's CUDNNFE_CLUSTER_OVERLAP_MARGIN (Megatron-Bridge 26.06+ fused-MLP configs: 8): those kernels run on (SMs/2 - N) clusters (default 0)"}, \
  {"ub-proj-fprop-sms", "N", "with --tp-comm-overlap on and sequence parallelism, the SMs Transformer Engine's userbuffers set aside (num_sm with set_sm_margin in the ub config; TE comm_gemm_overlap.cpp _math_sms) for the reduce_scatter beside the forward attention-projection GEMM, which runs on the other SMs; that reduce_scatter then takes no SM from compute (nemo preset: 24, NeMo launcher ub configs; default 0: no margin)"}, \
  {"ub-fc2-fprop-sms", "N", "the same for the forward fc2 (MLP down-projection) GEMM (nemo preset: 16; default 0)"}, \
  {"hybridep-sms", "N", "SMs of HybridEP's dispatch and combine kernels (Megatron-Core moe_hybridep_num_sms): 32 takes HybridEP's 32-SM rates on NVL72 racks (nemo preset: 32, the Megatron-Bridge perf scripts'; default 16)"}, \
  {"nccl-max-ctas-tp", "N", "NCCL CTA cap of the tp communicator's calls (ncclConfig_t maxCTAs: Megatron-Core --nccl-communicator-config-path key 'tp' max_ctas, after NCCL_MAX_CTAS and NCCL_MIN_NCHANNELS): its calls run on at most N channels, ranked as uncapped (0: none, the default)"}, \
  {"nccl-max-ctas-cp", "N", "NCCL CTA cap of the cp communicator's calls (ncclConfig_t maxCTAs: Megatron-Core --nccl-communicator-config-path key 'cp' max_ctas, after NCCL_MAX_CTAS and NCCL_MIN_NCHANNELS): its calls run on at most N channels, ranked as uncapped (0: none, the default)"}, \
  {"nccl-max-ctas-dp", "N", "NCCL CTA cap of the data-parallel (dp x cp) communicator's calls (ncclConfig_t maxCTAs: Megatron-Core --nccl-communicator-config-path key 'dp_cp (dp without cp)' max_ctas, after NCCL_MAX_CTAS and NCCL_MIN_NCHANNELS): its calls run on at most N channels, ranked as uncapped (0: none, the default)"}, \
  {"nccl-max-ctas-pp", "N", "NCCL CTA cap of the pipeline neighbours' communicator's calls (ncclConfig_t maxCTAs: Megatron-Core --nccl-communicator-config-path key 'pp' max_ctas, after NCCL_MAX_CTAS and NCCL_MIN_NCHANNELS): its calls run on at most N channels, ranked as uncapped (0: none, the default)"}, \
  {"tp-seq-copies", "on|off", "with tp > 1 and sequence parallelism, activations batch-first and sharded on the sequence (DTensor Shard(1), torchtitan): a copy of each tp all_gather's output and of each reduce_scatter's input (PyTorch _functional_collectives chunk + cat; with --async-tp (torchtitan's async TP) or --tp-comm-overlap, only the backward's unfused reduce_scatters) (default off; on in torchtitan)"}, \
  {"cp-allgather", "on|off", "with cp > 1, context parallelism as PyTorch's context_parallel runs it with the allgather rotater (torchtitan): K/V of every query head all_gathered once per ring and waited after the diagonal SDPA, fp32 dK/dV rotated by all_to_all, eager fp32 merges of the per-step outputs and gradients (default off; on in torchtitan)"}, \
  {"async-tp", "on|off", "PyTorch's micro-pipeline (async) TP, torchtitan's experimental.enable_async_tensor_parallel: with tp > 1 and sequence parallelism each all_gather feeding matmuls and each reduce_scatter of one matmul's output runs beside that GEMM only (Inductor micro_pipeline_tp.py); the backward's column-parallel input-gradient reduce_scatters stay blocking; for TE userbuffers use --tp-comm-overlap (default off)"}, \
  {"grad-accum-fusion", "on|off", "ddp/zero1: the weight-gradient GEMMs accumulate into the fp32 gradient buffer in their epilogue (Megatron-Core gradient_accumulation_fusion), so only the norms, biases, embedding and router take the per-micro-batch add pass (default off; on in megatron-core, nemo)"}, \
  {"host-per-gemm", "T", "host time to issue one cuBLAS GEMM from Transformer Engine ('48 us'), counted per GEMM call instead of --host-per-kernel; a grouped expert GEMM is one call per local expert (default 0: a GEMM counts as any kernel)"}, \
  {"host-per-launch", "T", "host time of one kernel Transformer Engine launches from C++ ('7.3 us'): each per-expert quantize kernel of a grouped expert GEMM under FP8 current scaling (3 per expert), FP8 block scaling or MXFP8 (1 per expert) costs the host that much (default 0: not counted)"}, \
  {"zero3-list-copy", "T", "zero3 with one tensor-list gather/reduce_scatter per parameter (DeepSpeed 0.3.16): host time of one copy_ per rank per call ('22.64 us'; default 0: one call per unit)"}, \
  {"bucket-mb", "MB", "ddp/zero1 gradient bucket and zero1 gather call size in MiB, or 'megatron' (Megatron-Core DDP: max(40e6, 1e6 dp) parameters); default 25 (torch DDP bucket_cap_mb)"}, \
  {"bucket-params", "N", "ddp/zero1 gradient bucket and zero1 gather call size in parameters, whatever the gradient dtype (Megatron-Core DistributedDataParallelConfig.bucket_size; NeMo 2 and Megatron-Bridge set 134217728 when dp > 1; at dp 1, or with --overlap-grad-reduce off, one bucket of every gradient); not with --bucket-mb (nemo preset: 134217728)"}, \
  {"step-sync-all-reduces", "N", "small all_reduces over all GPUs once per optimizer step, each waited for by the host before the next (Composer's trainer loop: loss, sample and token counts, grad-norm; llm-foundry preset), 0..64 (default 0)"}, \
  {"step-sync-broadcasts", "N", "the same for small broadcasts from rank 0, 0..64 (default 0)"}, \
  {"step-sync-all-gathers", "N", "the same for small all_gathers (torchmetrics' metric state sync), 0..64 (default 0)"}, \
  {"opt-syncs-per-tensor", "N", "host syncs the eager optimizer makes per parameter tensor (Composer's DecoupledAdamW reads each tensor's step with .item(): 1), so each tensor's kernels wait for the host, 0..4 (default 0: the optimizer is charged by bytes only)"}

/* Time and cost to train (struct pl_train_opts), for predict, search and sweep. */
#define TRAIN_OPTS                                                                            \
  {"tokens", "N", "tokens to train on (15T, 300B, 2.5e12): adds days to train, GPU-hours and "  \
                  "energy"},                                                                  \
  {"gpu-hour-price", "USD", "price of one GPU for one hour: adds the cost (of --tokens, and "   \
                            "per million tokens); needed by --objective cost"},               \
  {"energy-price", "USD", "price of one kWh: adds the energy cost from the power model"}

/* Build a run from the parsed options. Returns 0, or 1 after printing the
 * problem. The layout is left unresolved (pl_predict resolves it). */
int run_from_args(const struct cli_args *args, struct pl_run *run);

/* --NAME USD (gpu-hour-price, energy-price) into *usd when given: positive and
 * at most PL_TRAIN_MAX_USD; 1 (message printed) on a bad value. */
int run_opts_price(const struct cli_args *args, const char *name, double *usd);

/* The run options a layout search cannot take (search and sweep --layout
 * best|--strategies): it enumerates pp and recompute itself, and its bound
 * assumes even stages. Returns 0, or 1 after naming the first one given. */
int run_opts_search_refused(const struct cli_args *args);

#endif
