/* memory_states.c: the model states of pipeline stage i on one GPU
 * (model_mem_states; docs/model.md "Memory"): its parameters, gradients and
 * optimizer states, sharded as layout.shard says, and the FSDP/ZeRO units
 * held unsharded at once (block units, Megatron FSDP's, DeepSpeed 2021's
 * per-module fetch). */
#include "model/constants.h"
#include "model/memory_int.h"

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

/* Parameters of rank i's virtual chunk c (virtual stage c * pp + i) on one
 * GPU: its blocks (pl_layout_chunk_layers), their routed experts and MoE
 * parts as stage_experts counts them, and the stage's modules outside the
 * blocks on the chunk that runs them: the token table on the model's first
 * virtual stage, the final norm and LM head on its last. A rank's vp chunks
 * add up to model_mem_states' params. */
double model_mem_chunk_params(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                              int64_t c) {
  int64_t pp = deg(l->pp), v = deg(l->vp), first = 0;
  int64_t k = pl_layout_chunk_layers(l, m->layers, c * pp + i, &first);
  double t = (double)deg(l->tp), n = (double)k * layer_params_tp(m, t);
  if (pl_model_is_moe(m)) {
    double moe =
        (double)(pl_model_moe_blocks_below(m, first + k) - pl_model_moe_blocks_below(m, first));
    double all = (double)m->experts * (double)pl_model_expert_params(m);
    n += moe * all / (double)(deg(l->ep) * deg(l->etp)) +
         moe * ((double)pl_model_moe_layer_params(m) - all - (double)pl_model_layer_params(m)) / t;
  }
  if ((i == 0 && c == 0) || (i == pp - 1 && c == v - 1))
    n += edge_params(m, l, i);
  return n;
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
 * also qualify without FP8 parameters, not modelled: 4 B kept).
 * layout.adam_no_master: no master at all, the 16-bit parameters are the
 * optimizer's (Apex DistributedFusedAdam store_params False: "store a
 * distributed copy of the parameters as optimizer state", off), so m and v
 * only: 8 B, or 4 B with bf16 moments (Apex's dtype bf16, "datatype for
 * optimizer state"). With fp32_shards (zero3 as PyTorch FSDP keeps it,
 * model_mem_states) the fp32 shard is the master: none besides it. */
static double optimizer_bytes(const struct pl_layout *l, bool fp32_shards) {
  /* torch.optim.SGD, momentum 0, over the 16-bit parameters (layout.opt_sgd):
   * no momentum_buffer (torch/optim/sgd.py: created only when momentum != 0)
   * and no master copy: nothing */
  if (l->opt_sgd)
    return SGD_OPTIMIZER_BYTES;
  bool no_master = l->adam_no_master || fp32_shards;
  if (!l->adam_moments_bf16)
    return no_master ? OPTIMIZER_BYTES - MASTER_FP32_BYTES : OPTIMIZER_BYTES;
  double master = l->dtype == PL_DTYPE_BF16 ? MASTER_REMAINDER_BYTES : MASTER_FP32_BYTES;
  return (no_master ? 0.0 : master) + 2.0 * ADAM_MOMENT_BF16_BYTES;
}

/* Model states: dense parameters sharded over shard_group * cp, routed
 * experts over the expert data-parallel group (Megatron-Core's distributed
 * optimizer shards expert parameters over expert_data_parallel_group). */
void model_mem_states(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                      struct stage *s) {
  double n = l->shard == PL_SHARD_DDP ? 1.0 : (double)pl_layout_shard_ranks(l);
  double ne = l->shard == PL_SHARD_DDP ? 1.0 : (double)deg(l->edp);
  double t = (double)deg(l->tp), ex = 0, moe_delta = 0;
  s->layers = stage_layers(m, l, i);
  stage_experts(m, l, i, &ex, &moe_delta);
  double dense = (double)s->layers * layer_params_tp(m, t) + moe_delta + edge_params(m, l, i);
  s->params = dense + ex;
  s->params_b = PARAM_BYTES * (dense / (l->shard == PL_SHARD_ZERO3 ? n : 1.0) +
                               ex / (l->shard == PL_SHARD_ZERO3 ? ne : 1.0));
  /* zero3 as PyTorch FSDP keeps it (layout.fp32_param_shards): the shards
   * are the fp32 parameters themselves, which the optimizer updates in place
   * (torch/distributed/fsdp/_fully_shard/_fsdp_param.py, main 010ae4a,
   * _composable/fsdp/ in 2024: FSDPParam._init_sharded_param keeps the
   * padded shard in the original parameter's dtype, and MixedPrecisionPolicy
   * (param_dtype=bf16) casts it only into the all-gather input,
   * _to_dtype_if_needed; torchtitan 9dec370 builds the model in fp32 and
   * mixed_precision_param bfloat16), so no 16-bit shard and no
   * separate fp32 master: 4 B in parameters, the master's 4 B out of the
   * optimizer states below (16 B per parameter with fp32 gradients, against
   * Megatron's 18) */
  bool fp32_shards = l->fp32_param_shards && l->shard == PL_SHARD_ZERO3 && !l->adam_moments_bf16 &&
                     !l->adam_no_master;
  if (fp32_shards)
    s->params_b *= MASTER_FP32_BYTES / PARAM_BYTES;
  /* FP8-gathered GEMM weights (fp8_w > 0): gathered, they are 1 B, both TE's
   * FP8 parameters and torchao's float8 all-gather, whose
   * fsdp_post_all_gather wraps the gathered fp8 data in a Float8Tensor
   * with no 16-bit copy (torchao eab345c float8/fsdp_utils.py
   * WeightWithDynamicFloat8CastTensor; the unsharded units below).
   * Transformer Engine FP8 parameters (pl_layout_te_fp8_params: Megatron
   * FSDP's fp8_param_gather) are also kept as 1 B shards; torchao's shards
   * stay the high-precision parameters */
  double fp8_w = pl_layout_fp8_gathered_weights(m, l);
  double fp8_save = fp8_w > 0.0 ? PARAM_BYTES - pl_dtype_element_bytes(l->dtype) : 0.0;
  if (pl_layout_te_fp8_params(l))
    s->params_b -= fp8_save * (double)s->layers * fp8_w / (l->shard == PL_SHARD_ZERO3 ? n : 1.0);
  /* ddp/zero1 with layout.grad_reduce_bf16: the gradient buffer is bf16
   * (Megatron-Core param_and_grad_buffer.py: grad dtype = fp32 only with
   * grad_reduce_in_fp32, else the parameters' dtype) */
  double grad_bytes = l->grad_reduce_bf16 && l->shard <= PL_SHARD_ZERO1 ? PARAM_BYTES : GRAD_BYTES;
  /* torch.optim.SGD over 16-bit parameters (layout.opt_sgd, Fabric
   * 'bf16-true'): each parameter's .grad has the parameter's dtype, and
   * FSDP with an all-bf16 MixedPrecision keeps its sharded gradients in it
   * (FlatParamHandle: the sharded grad in the reduce dtype, bf16 here) */
  if (l->opt_sgd)
    grad_bytes = PARAM_BYTES;
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
  /* PyTorch FSDP2 with 16-bit parameters and no fp32 master (layout.adam_no_master,
   * not fp32_param_shards; NeMo AutoModel's MoE models, bf16 throughout): the
   * sharded gradient is the parameter's dtype, whatever the reduce dtype:
   * foreach_reduce casts the reduce_scatter output back before it becomes
   * .grad (reduce_output = _to_dtype_if_needed(reduce_output, orig_dtype),
   * pytorch/pytorch torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py,
   * 8fc2039de); parameters left out of the units (the routed experts at edp 1,
   * moe/parallelizer.py ignored_params) get autograd's .grad, also in their own
   * dtype. Not Megatron FSDP (fsdp_block_units), whose buffers are above */
  if (l->adam_no_master && !fp32_shards && l->shard >= PL_SHARD_ZERO2 && !l->fsdp_block_units &&
      !l->shard_grads_reduce_dtype)
    grad_bytes = PARAM_BYTES;
  s->grads_b = grad_bytes * (dense / (l->shard >= PL_SHARD_ZERO2 ? n : 1.0) +
                             ex / (l->shard >= PL_SHARD_ZERO2 ? ne : 1.0));
  s->optimizer_b = optimizer_bytes(l, fp32_shards) *
                   (dense / (l->shard >= PL_SHARD_ZERO1 ? n : 1.0) +
                    ex / (l->shard >= PL_SHARD_ZERO1 ? ne : 1.0));
  /* LoRA (finetune.c, model_lora_check): the adapters' parameters, the only
   * ones with gradients and optimizer states (0 for other tasks) */
  double lora = (double)s->layers * pl_lora_layer_params(m, l);
  if (l->task == PL_RUN_LORA) {
    /* the frozen base keeps its weights (sharded by zero3 as above: FSDP2
     * shards frozen and trainable parameters alike, fsdp_comm.c) and
     * nothing else; the adapters are parameters with gradients and
     * optimizer states (Megatron-Core's buffers and distributed optimizer
     * hold requires_grad parameters only; FSDP2's sharded gradients exist
     * for the parameters its post_backward reduce_scatters, those with a
     * .grad: src/sim/seg_params.c sim_seg_gathered_params), sharded as any
     * parameter is under the layout's shard */
    double w = fp32_shards ? MASTER_FP32_BYTES : PARAM_BYTES;
    s->params += lora;
    s->params_b += w * lora / (l->shard == PL_SHARD_ZERO3 ? n : 1.0);
    s->grads_b = grad_bytes * lora / (l->shard >= PL_SHARD_ZERO2 ? n : 1.0);
    s->optimizer_b = optimizer_bytes(l, fp32_shards) * lora / (l->shard >= PL_SHARD_ZERO1 ? n : 1.0);
  }
  /* FSDP/ZeRO unit: one block, or the embedding / LM head when larger; its
   * unsharded gradient fp32, or 16-bit with layout.opt_sgd (the 16-bit
   * parameters' own gradients) */
  double unit_grad_bytes = l->opt_sgd ? PARAM_BYTES : GRAD_BYTES;
  double unit = layer_params_tp(m, t), edge = edge_params(m, l, i);
  unit = edge > unit ? edge : unit;
  /* the unit's unsharded gradients: under LoRA a block's adapters alone (the
   * frozen weights get none; the embedding and head none at all) */
  double unit_grads = l->task == PL_RUN_LORA ? pl_lora_layer_params(m, l) : unit;
  double stage_grads = l->task == PL_RUN_LORA ? lora : s->params;
  /* layout.fsdp_ga_nosync (NeMo AutoModel's deferred gradient sync, pp 1;
   * sim/lower.c fsdp_ga_nosync): between the first backward and the last
   * reduce_scatter every unit's gradient accumulates unsharded in fp32
   * (MixedPrecisionPolicy reduce_dtype float32, moe/parallelizer.py apply_fsdp;
   * FSDPParam.to_accumulated_grad_if_needed), and with layout.fsdp_ga_keep
   * (MoEFSDPSyncMixin) every unit also stays gathered in bf16; the routed
   * experts are FSDP units only with edp > 1 (moe28: ignored_params), else
   * their gradients are the plain ones counted above. Under LoRA the held
   * parameters are the frozen base and the adapters (dense + lora; no experts:
   * model_lora_check) and the held gradients the adapters' alone, as
   * stage_grads */
  bool ga_nosync = l->shard >= PL_SHARD_ZERO2 && l->fsdp_ga_nosync && deg(l->pp) == 1 &&
                   l->micro_batches > 1;
  double held = ga_nosync && ne <= 1.0 ? dense + lora : s->params;
  double held_grads = l->task == PL_RUN_LORA ? lora : held;
  if (ga_nosync && l->shard == PL_SHARD_ZERO2)
    s->unsharded_b = GRAD_BYTES * held_grads;
  else if (ga_nosync && l->fsdp_ga_keep)
    s->unsharded_b = PARAM_BYTES * held + GRAD_BYTES * held_grads -
                     fp8_save * (double)s->layers * fp8_w;
  else if (ga_nosync) /* zero3, resharded after each pass: zero3's two gathered units below */
    s->unsharded_b = 2.0 * (PARAM_BYTES * unit - (unit > edge ? fp8_save * fp8_w : 0.0)) +
                     GRAD_BYTES * held_grads;
  else if (l->shard >= PL_SHARD_ZERO2 && l->fsdp_pp_unsharded && deg(l->pp) > 1)
    /* FSDP with pipelining as torchtitan runs it (layout.fsdp_pp_unsharded;
     * src/sim/lower.c fsdp_pp_flush): the whole stage's parameters stay
     * gathered in bf16 for the step, and its gradients accumulate unsharded
     * in the reduce dtype, fp32 (FSDP2 FSDPParam.to_accumulated_grad_if_needed
     * upcasts to reduce_dtype, torch/distributed/fsdp/_fully_shard/
     * _fsdp_param.py, 2.6+; torchtitan mixed_precision_reduce "float32") until
     * the reduce_scatter after the last backward; FP8-gathered GEMM weights
     * at 1 B (fp8_save). Under zero2 the parameters are not sharded, so
     * params_b above already holds the stage's bf16 parameters whole (the
     * copy the forward uses): only the fp32 gradients come on top, or the
     * stage's 16-bit weights would be counted twice */
    s->unsharded_b = l->shard == PL_SHARD_ZERO2
                         ? GRAD_BYTES * stage_grads
                         : PARAM_BYTES * s->params + GRAD_BYTES * stage_grads -
                               fp8_save * (double)s->layers * fp8_w;
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
    /* the gathered block units' GEMM weights at 1 B when gathered in FP8 (fp8_save);
     * an embedding or LM-head unit stays 16-bit */
    s->unsharded_b = 2.0 * (PARAM_BYTES * unit - (unit > edge ? fp8_save * fp8_w : 0.0)) +
                     unit_grad_bytes * unit_grads;
  else if (l->shard == PL_SHARD_ZERO2)
    s->unsharded_b = unit_grad_bytes * unit_grads;
  else
    s->unsharded_b = 0.0;
}
