/* seg_params.c: the parameters a segment (embedding, average block, head)
 * holds on one GPU after tensor and expert sharding, and its parameter
 * tensors; read by segments.c (the segment's gradient and optimizer work) and
 * fsdp_comm.c (its FSDP unit's collectives). */
#include <plateau/model.h>

#include "sim/sim_int.h"

/* Parameters of the average block on one GPU: dense blocks split by tp;
 * MoE blocks their attention, router and shared expert by tp and their
 * routed experts by etp * ep. */
static double layer_params_gpu(const struct pl_run *run) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  double tp = (double)(l->tp > 0 ? l->tp : 1);
  if (!pl_model_is_moe(m))
    return (double)pl_model_layer_params(m) / tp;
  double moe = (double)pl_model_moe_layers(m), L = (double)m->layers;
  double experts = (double)m->experts * (double)pl_model_expert_params(m);
  double moe_rest = (double)pl_model_moe_layer_params(m) - experts;
  double ex = (double)(l->ep > 0 ? l->ep : 1) * (double)(l->etp > 0 ? l->etp : 1);
  double dense = (L - moe) * (double)pl_model_layer_params(m) / tp;
  return (dense + moe * (moe_rest / tp + experts / ex)) / L;
}

/* The routed-expert part of layer_params_gpu: the average block's experts
 * split over etp * ep (0 for a dense model). */
double sim_layer_expert_params_gpu(const struct pl_run *run) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  if (!pl_model_is_moe(m))
    return 0;
  double ex = (double)(l->ep > 0 ? l->ep : 1) * (double)(l->etp > 0 ? l->etp : 1);
  return (double)pl_model_moe_layers(m) * (double)m->experts * (double)pl_model_expert_params(m) /
         ex / (double)m->layers;
}

/* Parameter tensors of a segment (each gets its own gradient-accumulation
 * kernels): a dense block as Megatron stores it, fused QKV and (SwiGLU) fused
 * gate/up: two norms (weight, + bias for LayerNorm), QK norms, four linear
 * weights and their biases. An MoE block is counted as the dense one (its
 * experts' tensors depend on the grouped-GEMM layout: not modelled). The
 * embedding: word (+ learned positions); the head: final norm + the output
 * weight when untied. */
double sim_seg_param_tensors(const struct pl_run *run, enum sim_seg_kind kind) {
  const struct pl_model *m = &run->model;
  if (run->layout.task == PL_RUN_LORA) /* the adapters' A and B (sim_seg_params) */
    return kind == SIM_SEG_LAYER ? pl_lora_layer_tensors(&run->layout) : 0.0;
  double norm = m->norm == PL_NORM_LAYER ? 2.0 : 1.0;
  if (kind == SIM_SEG_EMBED)
    return m->pos == PL_POS_LEARNED ? 2.0 : 1.0;
  if (kind == SIM_SEG_HEAD)
    return norm + (m->tied_embeddings ? 0.0 : 1.0);
  double t = 2.0 * norm + (m->qk_norm ? 2.0 : 0.0) + 4.0;
  t += (m->linear_bias || m->qkv_bias) ? 1.0 : 0.0;
  t += (m->linear_bias || m->out_bias) ? 1.0 : 0.0;
  t += (m->linear_bias || m->mlp_bias) ? 2.0 : 0.0;
  return t;
}

/* The segment's own (base) parameters on one GPU after tp (and expert)
 * sharding, trainable or not. */
static double base_params(const struct pl_run *run, enum sim_seg_kind kind) {
  const struct pl_model *m = &run->model;
  if (kind == SIM_SEG_LAYER)
    return layer_params_gpu(run);
  double params = kind == SIM_SEG_EMBED ? (double)pl_model_embedding_params(m)
                                        : (double)pl_model_head_params(m);
  /* the MTP modules' eh_proj (2h x h, column-parallel) and their three norms
   * go with the head (their blocks are blocks of the chunk) */
  if (kind == SIM_SEG_HEAD)
    params += (double)run->layout.mtp_layers * (2.0 * (double)m->hidden * (double)m->hidden +
                                                3.0 * (double)m->hidden);
  return params / (double)(run->layout.tp > 0 ? run->layout.tp : 1);
}

/* Parameters of a segment on one GPU after tp (and expert) sharding that
 * train (take gradients, their reduction and optimizer states). */
double sim_seg_params(const struct pl_run *run, enum sim_seg_kind kind) {
  /* LoRA (layout.task): the trainable parameters are the adapters alone;
   * Megatron-Core's DistributedDataParallel puts only parameters that
   * require a gradient in its buffers (distributed_data_parallel.py
   * __init__, `if not param.requires_grad: continue`), so the gradient
   * reduction and the (distributed) optimizer see those only
   * (src/model/finetune.c); FSDP2 reduce_scatters only the parameters that
   * got a gradient (sim_seg_gathered_params) */
  if (run->layout.task == PL_RUN_LORA)
    return kind == SIM_SEG_LAYER ? pl_lora_layer_params(&run->model, &run->layout) : 0.0;
  return base_params(run, kind);
}

/* Parameters of a segment's FSDP unit (zero2/zero3) that its all_gather
 * moves: every parameter of the unit, trainable or not. Under LoRA the
 * frozen base weights stay in the unit with the adapters: NeMo AutoModel
 * (NVIDIA-NeMo/Automodel 2013a4dd6 nemo_automodel/components/_peft/lora.py
 * LinearLoRA._init_adapter sets the base weight's requires_grad False and
 * adds lora_A, lora_B as submodules of the same linear, before
 * components/distributed/parallelizer.py apply_fsdp2_sharding_recursively
 * fully_shards each block) and torchtune (30b8519e8 recipes/
 * lora_finetune_distributed.py: training.shard_model fully_shards every
 * layer, then set_trainable_params) shard frozen and trainable parameters
 * together, and FSDP2's all_gather gathers every parameter of the group
 * (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py
 * FSDPParamGroup.unshard -> foreach_all_gather over self.fsdp_params),
 * while its post_backward reduce_scatters only the fsdp_params whose
 * unsharded_param.grad is not None (fsdp_params_with_grad): the adapters'
 * (sim_seg_params). Without LoRA the two are the same. */
double sim_seg_gathered_params(const struct pl_run *run, enum sim_seg_kind kind) {
  if (run->layout.task != PL_RUN_LORA)
    return sim_seg_params(run, kind);
  return base_params(run, kind) + sim_seg_params(run, kind);
}

/* The routed experts' parameters of a segment that are no part of its FSDP
 * unit over dp (zero2/zero3 with ep > 1): FSDP2 leaves them to a unit of
 * their own over the expert-data-parallel ranks, or to none when those are
 * one rank. NVIDIA-NeMo/Automodel nemo_automodel/components/moe/parallelizer.py
 * apply_fsdp (89e3a9fdd, 8d9bfb90e; the same at 36044ad3d): with ep enabled
 * the block's fully_shard gets ignored_params = the experts' parameters, and
 * only when the ep_shard mesh (dp / ep ranks) has more than one rank are the
 * experts sharded by fully_shard(block.mlp.experts, mesh=ep_shard_mesh,
 * Shard(1)); with ep == dp each rank holds its local experts whole and no
 * collective gathers or reduces them. 0 for the embedding and head, dense
 * models and ep 1, and for Megatron FSDP's units (layout.fsdp_block_units:
 * its expert buffers are not re-derived here; the Megatron MoE model zoo's
 * FSDP row keeps its price). */
double sim_fsdp_expert_params(const struct pl_run *run, enum sim_seg_kind kind) {
  const struct pl_layout *l = &run->layout;
  bool sharded = l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
  if (!sharded || l->fsdp_block_units || kind != SIM_SEG_LAYER || l->ep <= 1 ||
      !pl_model_is_moe(&run->model))
    return 0;
  return sim_layer_expert_params_gpu(run);
}
