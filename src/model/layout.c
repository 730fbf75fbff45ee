/* layout.c: resolve a partly given parallel layout into a complete one, and
 * reject layouts that cannot run. The divisibility rules are Megatron-LM's
 * (arguments.py): tp divides attention heads, KV heads (query groups) and the
 * FFN width; interleaving needs layers divisible by pp*vp and micro-batches
 * divisible by pp; context parallelism splits each sequence into 2*cp chunks
 * for causal load balance (Megatron/TransformerEngine CP). Uneven pipeline
 * stages are allowed for 1f1b/gpipe: the busiest stage holds ceil(l/pp); or
 * given (first_stage_layers, last_stage_layers) as Megatron-Core splits them.
 * The stage split itself is in layout_stages.c, what a resolved layout
 * implies for bytes (FP8 gathered weights, TP gather bytes, buckets) in
 * layout_bytes.c. */
#include <plateau/flops.h>
#include <plateau/layout.h>

#include <string.h>

#include "model/constants.h"
#include "model/layout_int.h"
#include "model/model_int.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int64_t or_default(int64_t v, int64_t def) { return v > 0 ? v : def; }

/* Limits: PL_LAYOUT_MAX_* (layout.h, docs/limits.md). */
#define LAYOUT_MAX_GPUS PL_LAYOUT_MAX_GPUS
#define LAYOUT_MAX_BATCH PL_LAYOUT_MAX_BATCH
#define LAYOUT_MAX_SEQ PL_LAYOUT_MAX_SEQ

static enum pl_status too_big(struct pl_diag *diag, const char *what, int64_t v, int64_t max) {
  return pl_diag_set(diag, PL_ERR_LIMIT, "layout: %s %lld is more than the limit %lld", what,
                     (long long)v, (long long)max);
}

/* Range checks before any product is formed. */
static enum pl_status check_counts(const struct pl_layout *l, int64_t per_node,
                                   struct pl_diag *diag) {
  if (l->gpus > LAYOUT_MAX_GPUS)
    return too_big(diag, "gpus", l->gpus, LAYOUT_MAX_GPUS);
  if (l->gpus <= 0 && l->nodes > LAYOUT_MAX_GPUS / per_node)
    return too_big(diag, "nodes", l->nodes, LAYOUT_MAX_GPUS / per_node);
  const struct {
    const char *name;
    int64_t v, max;
  } c[] = {{"gbs", l->gbs, LAYOUT_MAX_BATCH},
           {"batch per gpu", l->batch_per_gpu, LAYOUT_MAX_BATCH},
           {"mbs", l->mbs, LAYOUT_MAX_BATCH},
           {"seq", l->seq, LAYOUT_MAX_SEQ},
           {"tp", l->tp, LAYOUT_MAX_GPUS},
           {"pp", l->pp, LAYOUT_MAX_GPUS},
           {"cp", l->cp, LAYOUT_MAX_GPUS},
           {"vp", l->vp, LAYOUT_MAX_GPUS},
           {"ep", l->ep, LAYOUT_MAX_GPUS},
           {"etp", l->etp, LAYOUT_MAX_GPUS},
           {"shard group", l->shard_group, LAYOUT_MAX_GPUS}};
  for (size_t i = 0; i < N_OF(c); i++)
    if (c[i].v > c[i].max)
      return too_big(diag, c[i].name, c[i].v, c[i].max);
  return PL_OK;
}

/* Degrees and world size: dp = gpus / (tp * pp * cp). */
static enum pl_status resolve_degrees(struct pl_layout *l, const struct pl_model *m,
                                      const struct pl_cluster *c, struct pl_diag *diag) {
  int64_t per_node = c->gpus_per_node > 0 ? c->gpus_per_node : 1;
  enum pl_status st = check_counts(l, per_node, diag);
  if (st != PL_OK)
    return st;
  if (l->gpus <= 0)
    l->gpus = l->nodes > 0 ? l->nodes * per_node : per_node;
  l->nodes = (l->gpus + per_node - 1) / per_node;
  l->tp = or_default(l->tp, 1);
  l->pp = or_default(l->pp, 1);
  l->cp = or_default(l->cp, 1);
  if (m->heads % l->tp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout tp=%lld: tp must divide attention heads (%lld)",
                       (long long)l->tp, (long long)m->heads);
  if (m->kv_heads % l->tp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout tp=%lld: tp must divide KV heads (%lld)",
                       (long long)l->tp, (long long)m->kv_heads);
  if (m->ffn_hidden % l->tp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout tp=%lld: tp must divide the FFN width (%lld)",
                       (long long)l->tp, (long long)m->ffn_hidden);
  /* Megatron-Core MambaMixer.__init__ asserts nheads % tp == 0 and ngroups % tp == 0 */
  if (pl_model_kind_layers(m, 'M') > 0 &&
      (m->mamba_heads % l->tp != 0 || m->mamba_groups % l->tp != 0))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout tp=%lld: tp must divide the Mamba heads (%lld) and groups (%lld)",
                       (long long)l->tp, (long long)m->mamba_heads, (long long)m->mamba_groups);
  /* plateau splits attention's sequence under cp (ring exchange of K/V);
   * how Megatron-Core splits a Mamba mixer's scan across cp ranks (its
   * conv and SSD state hand-over) is not modelled: refuse rather than
   * price the Mamba layers as if each rank held the whole sequence. */
  if (pl_model_kind_layers(m, 'M') > 0 && l->cp > 1)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout cp=%lld: context parallelism of Mamba layers is not modelled",
                       (long long)l->cp);
  if (l->pp > m->layers)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout pp=%lld: more pipeline stages than layers (%lld)",
                       (long long)l->pp, (long long)m->layers);
  int64_t model_par = l->tp * l->pp * l->cp;
  if (l->gpus % model_par != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: %lld GPUs are not divisible by tp*pp*cp = %lld*%lld*%lld = %lld",
                       (long long)l->gpus, (long long)l->tp, (long long)l->pp, (long long)l->cp,
                       (long long)model_par);
  l->dp = l->gpus / model_par;
  return PL_OK;
}

static enum pl_status resolve_sharding(struct pl_layout *l, struct pl_diag *diag) {
  /* LoRA without a shard mode given: Megatron's distributed optimizer
   * (zero1), as the Megatron-Bridge LoRA performance recipes run
   * (use_distributed_optimizer True, perf_recipes/llama/h100/llama3.py and gb200, gb300
   * llama3_70b_peft_*; src/model/finetune.c models ddp and zero1 only) */
  if (!l->shard_set && l->shard == PL_SHARD_DDP)
    l->shard = l->task == PL_RUN_LORA ? PL_SHARD_ZERO1 : PL_SHARD_ZERO2;
  if (l->shard == PL_SHARD_DDP) {
    if (l->shard_group > 1)
      return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: --shard-group needs a ZeRO/FSDP shard mode, not ddp");
    l->shard_group = 1;
    return PL_OK;
  }
  /* One process group for gathers and reduce_scatters unless told otherwise
   * (layout.h, fsdp_one_comm) */
  if (l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3)
    l->fsdp_one_comm = l->fsdp_one_comm || !l->fsdp_separate_comms;
  else
    l->fsdp_one_comm = false;
  l->shard_group = or_default(l->shard_group, l->dp);
  if (l->dp % l->shard_group != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: shard group %lld must divide the data-parallel degree %lld",
                       (long long)l->shard_group, (long long)l->dp);
  return PL_OK;
}

static enum pl_status resolve_batch(struct pl_layout *l, const struct pl_model *m,
                                    struct pl_diag *diag) {
  l->seq = or_default(l->seq, m->seq_len);
  if (m->pos == PL_POS_LEARNED && m->max_positions > 0 && l->seq > m->max_positions)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: seq %lld exceeds the model's %lld learned positions",
                       (long long)l->seq, (long long)m->max_positions);
  if (l->seq % (l->cp > 1 ? 2 * l->cp : 1) != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout cp=%lld: seq %lld must be divisible by 2*cp (causal load balancing)",
                       (long long)l->cp, (long long)l->seq);
  l->mbs = or_default(l->mbs, 1);
  if (l->gbs <= 0)
    l->gbs = or_default(l->batch_per_gpu, 1) * l->gpus;
  if (l->gbs > LAYOUT_MAX_BATCH) /* batch_per_gpu * gpus */
    return too_big(diag, "gbs", l->gbs, LAYOUT_MAX_BATCH);
  if (l->gbs % (l->dp * l->mbs) != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: global batch %lld is not divisible by dp*mbs = %lld*%lld",
                       (long long)l->gbs, (long long)l->dp, (long long)l->mbs);
  l->micro_batches = l->gbs / (l->dp * l->mbs);
  return PL_OK;
}

/* --recompute-modules (layout.recompute_modules): Megatron-Core's checks in
 * TransformerConfig.__post_init__ (transformer_config.py, Megatron-LM d98e8a6):
 * the list is read with selective granularity only; "moe_act in
 * recompute_modules is only supported with moe_grouped_gemm" (an MoE model
 * here: a dense one has no experts); "mla_up_proj ... only supported with
 * multi_latent_attention"; "Delayed scaling does not support moe_act and
 * layernorm recompute for fp8"; "disable moe in recompute_modules when
 * enabling overlap_moe_expert_parallel_comm". moe and shared_experts name
 * modules a dense model (or one without a shared expert) does not have:
 * refused as well rather than ignored. */
static enum pl_status resolve_recompute_modules(const struct pl_layout *l,
                                                const struct pl_model *m,
                                                struct pl_diag *diag) {
  uint32_t r = l->recompute_modules;
  if (r == 0)
    return PL_OK;
  if (r >> PL_RCM_COUNT)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: unknown recompute module bits 0x%x",
                       (unsigned)r);
  if (l->recompute != PL_RECOMPUTE_SELECTIVE)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --recompute-modules needs --recompute selective (Megatron-Core "
                       "reads recompute_modules with selective granularity only), not %s",
                       pl_recompute_name(l->recompute));
  bool moe = pl_model_is_moe(m);
  if ((r & (PL_RCM_MOE_ACT | PL_RCM_MOE)) && !moe)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: recompute modules moe_act and moe need an MoE model; '%s' is dense",
                       m->name);
  if ((r & PL_RCM_SHARED_EXPERTS) && (!moe || m->shared_ffn <= 0))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: recompute module shared_experts needs an MoE model with a shared "
                       "expert; '%s' has none", m->name);
  if ((r & PL_RCM_MLA_UP_PROJ) && m->kv_lora_rank <= 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: recompute module mla_up_proj needs multi-latent attention; '%s' "
                       "has none", m->name);
  if ((r & PL_RCM_MLP) && moe && pl_model_moe_layers(m) >= m->layers)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: recompute module mlp recomputes the dense MLP of non-MoE blocks; "
                       "every block of '%s' is MoE", m->name);
  if ((r & (PL_RCM_MOE_ACT | PL_RCM_LAYERNORM)) && l->dtype == PL_DTYPE_FP8 &&
      l->fp8_recipe == PL_FP8_RECIPE_DELAYED)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: delayed scaling does not support moe_act and layernorm recompute "
                       "for fp8 (Megatron-Core)");
  if ((r & PL_RCM_MOE) && l->ep_comm_overlap)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: recompute module moe cannot run with the ep all-to-all overlap "
                       "(Megatron-Core: disable moe in recompute_modules when enabling "
                       "overlap_moe_expert_parallel_comm)");
  return PL_OK;
}

/* --recompute-layers / --recompute-every: full recomputation of some blocks
 * (flops.h, pl_recompute_share). Megatron allows the block method with
 * granularity full only (arguments.py: "recompute method is not yet
 * supported for selective recomputing granularity"). */
static enum pl_status resolve_recompute(const struct pl_layout *l, const struct pl_model *m,
                                        struct pl_diag *diag) {
  /* --recompute ops follows torchtitan's policy through the mm order of its
   * Llama-style block (wq wk wv wo, w1 w3 w2; flops.c mark_recompute): a
   * GELU MLP, latent attention or grouped expert GEMMs (not aten.mm) have
   * another order, not modelled */
  if (l->recompute == PL_RECOMPUTE_OPS &&
      (pl_model_is_moe(m) || m->kv_lora_rank > 0 || m->mlp != PL_MLP_SWIGLU))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --recompute ops models torchtitan's dense Llama-style block "
                       "(gated MLP, no MoE, no latent attention); model '%s' is not one",
                       m->name);
  enum pl_status st = resolve_recompute_modules(l, m, diag);
  if (st != PL_OK)
    return st;
  /* --act-offload-layers: Megatron-Core refuses cpu_offloading with pp > 1, with
   * any recompute granularity, and for cpu_offloading_num_layers outside
   * [0, num_layers) (transformer_config.py TransformerConfig.__post_init__) */
  if (l->act_offload_layers < 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: --act-offload-layers must be 0 or more");
  if (l->act_offload_layers > 0 && l->pp > 1)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --act-offload-layers needs pp 1 (Megatron-Core has no CPU "
                       "offloading with pipeline parallelism)");
  if (l->act_offload_layers > 0 && l->recompute != PL_RECOMPUTE_NONE)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --act-offload-layers needs --recompute none (Megatron-Core: CPU "
                       "offloading does not work with activation recomputation)");
  if (l->act_offload_layers >= m->layers && l->act_offload_layers > 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --act-offload-layers %lld must be below the model's %lld blocks",
                       (long long)l->act_offload_layers, (long long)m->layers);
  /* Megatron-Core: "--use-precision-aware-optimizer only supported with
   * distributed optimizer" (optimizer_config.py OptimizerConfig.__post_init__) */
  if (l->adam_moments_bf16 && l->shard == PL_SHARD_DDP)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --adam-moments-dtype bf16 needs --shard zero1 or higher (Megatron-"
                       "Core's precision-aware optimizer needs the distributed optimizer)");
  /* --optimizer sgd prices torch.optim.SGD over 16-bit parameters: their
   * gradients are 16-bit, so the reduction is too; Adam's settings and FSDP2's
   * fp32 parameter shards (fp32 parameters, another run) do not apply */
  if (l->opt_sgd && !l->grad_reduce_bf16)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --optimizer sgd needs --grad-reduce-dtype bf16 (torch.optim.SGD "
                       "over 16-bit parameters: their gradients are 16-bit)");
  if (l->opt_sgd && (l->adam_moments_bf16 || l->fp32_param_shards))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --optimizer sgd cannot be combined with --adam-moments-dtype bf16 "
                       "or --fp32-param-shards on (SGD over 16-bit parameters keeps no state)");
  /* nor do AdamW's master copy and implementation: SGD keeps no master
   * (memory_states.c optimizer_bytes, SGD_OPTIMIZER_BYTES), and its step is
   * priced as the eager per-parameter loop (src/sim/lower_dp.c,
   * SGD_STEP_BYTES_PER_PARAM); torch.optim.SGD's own foreach/fused variants
   * are not modelled, so asking for one is refused rather than ignored */
  if (l->opt_sgd && (l->adam_no_master || l->opt_fused))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --optimizer sgd cannot be combined with --adam-master none or "
                       "--optimizer-impl fused (AdamW's settings; SGD's step is modelled eager, "
                       "with no master)");
  /* --offload-modules: Megatron-Core refuses fine_grained_activation_offloading
   * with cpu_offloading (transformer_config.py __post_init__, core_v0.16.0);
   * both modelled modules are the experts' */
  if (l->offload_modules != 0 && l->act_offload_layers > 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --offload-modules cannot be combined with --act-offload-layers "
                       "(Megatron-Core: fine_grained_activation_offloading cannot be enabled "
                       "with cpu_offloading)");
  if (l->offload_modules != 0 && !pl_model_is_moe(m))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --offload-modules expert_fc1|moe_act needs an MoE model; '%s' "
                       "has no experts",
                       m->name);
  /* --moe-fc1-bias-eager prices the routed experts' fc1 bias (flops.c
   * EXPERT_FC1_BIAS): a model without experts or without expert biases has none
   * to add, so the flag is refused rather than ignored */
  if (l->moe_fc1_bias_eager && (!pl_model_is_moe(m) || !m->mlp_bias))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --moe-fc1-bias-eager on needs an MoE model with expert biases "
                       "(mlp_bias, GPT-OSS); '%s' has %s",
                       m->name, pl_model_is_moe(m) ? "no biases" : "no experts");
  if (l->recompute_uniform && l->recompute != PL_RECOMPUTE_FULL)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --recompute-method uniform needs --recompute full");
  if (l->recompute_uniform && l->recompute_every > 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: give --recompute-method uniform or --recompute-every, not both");
  if (l->recompute_layers == 0 && l->recompute_every == 0)
    return PL_OK;
  if (l->recompute_layers < 0 || l->recompute_every < 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: recompute layers must be positive");
  if (l->recompute_layers > 0 && l->recompute_every > 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: give --recompute-layers or --recompute-every, not both");
  if (l->recompute != PL_RECOMPUTE_FULL)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --recompute-layers/--recompute-every need --recompute full");
  int64_t v = l->recompute_layers > 0 ? l->recompute_layers : l->recompute_every;
  if (v > m->layers)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: %lld is more than the model's %lld blocks",
                       (long long)v, (long long)m->layers);
  return PL_OK;
}

/* --pp-schedules N (layout.pp_schedules): the step's micro-batches run as N
 * pipeline schedules one after another, PyTorch pipelining's schedule.step()
 * once per gradient-accumulation step (NeMo AutoModel recipes/llm/benchmark.py
 * run_benchmark -> train_ft.py _forward_backward_step, 89e3a9fdd). */
static enum pl_status resolve_pp_schedules(struct pl_layout *l, struct pl_diag *diag) {
  if (l->pp_schedules < 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "layout: --pp-schedules %lld must be at least 1 (0: one schedule)",
                       (long long)l->pp_schedules);
  if (l->pp_schedules <= 1)
    return PL_OK;
  if (l->pp < 2)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --pp-schedules %lld needs pipeline parallelism (pp >= 2); with pp 1 "
                       "gradient accumulation is the step's micro-batches already",
                       (long long)l->pp_schedules);
  if (l->micro_batches % l->pp_schedules != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --pp-schedules %lld must divide the step's %lld micro-batches",
                       (long long)l->pp_schedules, (long long)l->micro_batches);
  return PL_OK;
}

/* --fsdp-ga-nosync (layout.fsdp_ga_nosync): NeMo AutoModel's MoEFSDPSyncMixin
 * defers FSDP2's gradient sync to the last micro-batch only without pipeline
 * parallelism (components/moe/fsdp_mixin.py prepare_for_grad_accumulation,
 * 2c236e081; with pp the pipeline stage's backward_maybe_with_nosync does it:
 * --fsdp-pp-unsharded). It needs FSDP units (zero2/zero3). */
static enum pl_status resolve_fsdp_ga_nosync(const struct pl_layout *l, struct pl_diag *diag) {
  if (l->fsdp_ga_keep && !l->fsdp_ga_nosync)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: --fsdp-ga-nosync keep defers the sync too");
  if (!l->fsdp_ga_nosync)
    return PL_OK;
  if (l->shard != PL_SHARD_ZERO2 && l->shard != PL_SHARD_ZERO3)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --fsdp-ga-nosync needs FSDP units (--shard zero2 or zero3), not %s",
                       pl_shard_name(l->shard));
  if (l->pp > 1)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --fsdp-ga-nosync is for pp 1; with pipeline parallelism the stage's "
                       "no-sync backwards are --fsdp-pp-unsharded");
  return PL_OK;
}

static enum pl_status resolve_schedule(struct pl_layout *l, const struct pl_model *m,
                                       struct pl_diag *diag) {
  enum pl_status ns = resolve_fsdp_ga_nosync(l, diag);
  if (ns != PL_OK)
    return ns;
  enum pl_status ps = resolve_pp_schedules(l, diag);
  if (ps != PL_OK)
    return ps;
  /* vp is 0 when not given; an explicit vp 1 under the interleaved schedule asks for a
   * schedule of one chunk per stage, which is 1F1B: refuse it rather than run vp 2 */
  if (l->vp == 1 && l->schedule == PL_SCHEDULE_INTERLEAVED)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: the interleaved schedule needs vp >= 2 (got vp=1; omit --vp for 2)");
  l->vp = or_default(l->vp, 1);
  if (l->vp > 1 && l->schedule == PL_SCHEDULE_1F1B)
    l->schedule = PL_SCHEDULE_INTERLEAVED;
  if (l->schedule != PL_SCHEDULE_INTERLEAVED) {
    if (l->vp > 1)
      return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: vp=%lld needs the interleaved schedule",
                         (long long)l->vp);
    return PL_OK;
  }
  if (l->pp < 2)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: the interleaved schedule needs pp >= 2");
  if (l->vp < 2)
    l->vp = 2;
  int64_t extra = l->account_embed_loss ? 2 : 0;
  if (!pl_layout_uneven_stages(l) && l->pipeline_layout[0] == '\0' &&
      (m->layers + extra) % (l->pp * l->vp) != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: interleaving needs layers (%lld%s) divisible by pp*vp = %lld",
                       (long long)m->layers, extra > 0 ? " + embedding + loss" : "",
                       (long long)(l->pp * l->vp));
  /* a chunk may hold only the embedding or the loss (Megatron-Core allows it) */
  if (l->pp_schedules > 1 && (l->micro_batches / l->pp_schedules) % l->pp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: interleaving needs each pipeline schedule's micro-batches (%lld / "
                       "--pp-schedules %lld) divisible by pp (%lld)",
                       (long long)l->micro_batches, (long long)l->pp_schedules, (long long)l->pp);
  if (l->micro_batches % l->pp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: interleaving needs micro-batches (%lld) divisible by pp (%lld)",
                       (long long)l->micro_batches, (long long)l->pp);
  return PL_OK;
}

/* Default load imbalance of the busiest expert-parallel rank (docs/model.md
 * "Mixture of experts"): the expert capacity factor 1.25 of GShard and the
 * Switch Transformer (Fedus, Zoph and Shazeer 2022, JMLR 23, Sec. 2.2 and
 * Table 1), the overload that token-dropping routers budget for; dropless
 * routers with a balancing loss (Megatron-Core's default) are assumed to run
 * near it. Benchmarks that force balanced routing (Megatron-Bridge's
 * --moe-router-force-load-balancing) use 1 (the default under
 * moe_force_balance), plus the random logits' spread (moe_balance.c). */
#define MOE_IMBALANCE_DEFAULT 1.25
/* Beyond this no layout is meaningful; flops.c caps the factor by what the
 * busiest rank can receive (ep * min(top_k, experts / ep) / top_k). */
#define MOE_IMBALANCE_MAX 1024.0

static enum pl_status layout_err(struct pl_diag *diag, const char *fmt, long long a, long long b) {
  return pl_diag_set(diag, PL_ERR_LAYOUT, fmt, a, b);
}

/* ep_comm_overlap's conditions, as Megatron-Core asserts them for
 * overlap_moe_expert_parallel_comm (megatron/core/transformer/
 * transformer_config.py __post_init__, Megatron-LM d98e8a6): expert model
 * parallelism, the alltoall or flex dispatcher (not allgather), no full
 * recomputation, and with pp > 1 a virtual pipeline. Called for MoE models;
 * a dense model with the behaviour on is refused in resolve_experts. */
static enum pl_status check_ep_overlap(const struct pl_layout *l, struct pl_diag *diag) {
  /* transformer_config.py __post_init__ (core_v0.16.0): "overlap_moe_expert_parallel_comm
   * must be enabled when enabling delay_wgrad_compute" */
  if (l->delay_wgrad && !l->ep_comm_overlap)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: delay wgrad needs the ep comm overlap (Megatron-Core "
                       "delay_wgrad_compute)");
  if (!l->ep_comm_overlap)
    return PL_OK;
  const char *why = l->ep < 2                               ? "needs expert parallelism (ep > 1)"
                    : l->dispatch == PL_MOE_ALLGATHER       ? "needs the alltoall or deepep dispatcher"
                    : l->recompute == PL_RECOMPUTE_FULL     ? "cannot run with full recomputation"
                    : l->pp > 1 && l->vp < 2                ? "needs a virtual pipeline (vp > 1) when pp > 1"
                    : l->mtp_layers > 1                     ? "supports at most one MTP layer"
                                                            : NULL;
  if (why == NULL)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: ep comm overlap %s (Megatron-Core overlap_moe_expert_parallel_comm)",
                     why);
}

/* Expert parallelism (Megatron-Core, megatron/core/parallel_state.py
 * initialize_model_parallel): the ranks of a pipeline stage are cut a second
 * way for the MoE blocks, into etp x ep x edp, so edp = gpus / (etp * ep *
 * pp); ep must divide the experts (each rank holds experts / ep of them), etp
 * the expert width, and etp * ep the ranks of a stage. With tp > 1 an MoE
 * model needs sequence parallelism (megatron/training/arguments.py). */
static enum pl_status resolve_experts(struct pl_layout *l, const struct pl_model *m,
                                      struct pl_diag *diag) {
  l->ep = or_default(l->ep, 1);
  l->etp = or_default(l->etp, 1);
  if (!pl_model_is_moe(m)) {
    if (l->ep_comm_overlap)
      return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: ep comm overlap needs a "
                                              "mixture-of-experts model with ep > 1");
    if (l->delay_wgrad)
      return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: delay wgrad needs the ep comm overlap "
                                              "(Megatron-Core delay_wgrad_compute)");
    if (l->ep > 1 || l->etp > 1)
      return layout_err(diag, "layout ep=%lld etp=%lld: expert parallelism needs a "
                              "mixture-of-experts model", (long long)l->ep, (long long)l->etp);
    l->edp = l->dp;
    return PL_OK;
  }
  if (m->experts % l->ep != 0)
    return layout_err(diag, "layout ep=%lld: ep must divide the experts (%lld)", (long long)l->ep,
                      (long long)m->experts);
  if (m->expert_ffn % l->etp != 0)
    return layout_err(diag, "layout etp=%lld: etp must divide the expert width (%lld)",
                      (long long)l->etp, (long long)m->expert_ffn);
  int64_t stage = l->gpus / l->pp;
  if (l->etp * l->ep > stage)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: etp*ep = %lld*%lld = %lld is above the %lld GPUs of a pipeline "
                       "stage",
                       (long long)l->etp, (long long)l->ep, (long long)(l->etp * l->ep),
                       (long long)stage);
  if (stage % (l->etp * l->ep) != 0)
    return layout_err(diag, "layout: etp*ep = %lld must divide the %lld GPUs of a pipeline stage",
                      (long long)(l->etp * l->ep), (long long)stage);
  if (m->shared_ffn % l->tp != 0)
    return layout_err(diag, "layout tp=%lld: tp must divide the shared expert width (%lld)",
                      (long long)l->tp, (long long)m->shared_ffn);
  if (l->tp > 1 && l->no_sp && l->sp_moe)
    l->no_sp = false; /* the framework's "moe" sequence parallelism (framework.h) */
  if (l->tp > 1 && l->no_sp)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout tp=%lld: a mixture-of-experts model needs sequence parallelism "
                       "with tp > 1 (Megatron-Core)",
                       (long long)l->tp);
  l->edp = stage / (l->etp * l->ep);
  /* a forced-balance router has no systematic imbalance to budget for: its
   * random logits leave only the spread below (model/moe_balance.c) */
  if (l->moe_force_balance && l->moe_fake_gate)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --moe-fake-gate and --moe-force-balance are two routers; give one");
  /* AutoModel's fake gate hands every expert the same rows (layout.h) */
  if (l->moe_imbalance == 0)
    l->moe_imbalance = l->moe_force_balance || l->moe_fake_gate ? 1.0 : MOE_IMBALANCE_DEFAULT;
  if (!(l->moe_imbalance >= 1.0 && l->moe_imbalance <= MOE_IMBALANCE_MAX))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: moe imbalance %g must be between 1 (balanced) and %g",
                       l->moe_imbalance, MOE_IMBALANCE_MAX);
  /* the random logits' spread over the tokens of one micro-batch that each
   * rank routes (tokens_n: / tp with sequence parallelism, as flops_int.h) */
  l->moe_random_imbalance = 1.0;
  if (l->moe_force_balance) {
    int64_t seq = l->seq > 0 ? l->seq : m->seq_len, cp = l->cp > 0 ? l->cp : 1;
    double tokens = (double)(l->mbs > 0 ? l->mbs : 1) * (double)(seq / cp);
    if (l->tp > 1 && !l->no_sp)
      tokens /= (double)l->tp;
    l->moe_random_imbalance =
        pl_moe_random_imbalance(m->experts, m->top_k, l->ep, tokens * (double)l->etp);
  }
  return check_ep_overlap(l, diag);
}

/* Low-precision GEMMs need tensor cores for their format: a GPU file without
 * the dtype's peak (V100 and A100 give no peak_fp8: the A100 datasheet lists
 * no FP8; Hopper gives no peak_mxfp8 or peak_nvfp4: block-scaled MMA is new
 * in Blackwell's fifth-generation tensor cores, NVIDIA Blackwell
 * architecture technical brief) cannot run it; predicting it would divide by
 * a zero peak (MFU 0.0 %). */
/* torchao's float8 all-gather is tensorwise only: Float8LinearConfig
 * __post_init__ asserts "enable_fsdp_float8_all_gather only supports
 * tensorwise scaling granularity" (torchao/float8/config.py, 6243040), and
 * torchtitan refuses it with a recipe_name (components/quantization/
 * float8.py, 820504e). */
static enum pl_status check_dtype(const struct pl_layout *l, const struct pl_cluster *c,
                                  struct pl_diag *diag) {
  if (pl_layout_fp8_rowwise(l) && l->fp8_all_gather)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: fp8-rowwise gathers its weights in 16 bits (torchao's float8 "
                       "all-gather supports tensorwise scaling only); use --fp8-all-gather off");
  if (l->dtype == PL_DTYPE_BF16 || pl_gpu_peak_flops_per_s(&c->gpu, l->dtype) > 0)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: dtype %s needs %s tensor cores, which gpu '%s' lacks (its file "
                     "gives no peak_%s); use --dtype bf16",
                     pl_layout_dtype_name(l), pl_dtype_hw_name(l->dtype), c->gpu.name,
                     pl_dtype_name(l->dtype));
}

/* The attention kernel Transformer Engine runs (attention "te"), and the
 * refusal of cuDNN attention on a GPU file without its figures.
 * TE's DotProductAttention (transformer_engine/pytorch/attention/
 * dot_product_attention/utils.py get_attention_backend, v2.0-v2.18 and main;
 * transformer_engine/pytorch/attention.py before v2.2) disables FlashAttention
 * "to give FusedAttention preference on Hopper+ for performance reasons" when
 * both are available and device_compute_capability >= (9, 0) (v2.0 on; v1.2-v1.13
 * test == (9, 0), sm90 only, so Blackwell runs are taken to use TE 2.x, as every
 * Blackwell recipe does); below that FlashAttention-2 wins. FusedAttention is
 * available for bf16 training (transformer_engine/common/fused_attn/fused_attn.cpp
 * nvte_get_fused_attn_backend, F16_arbitrary_seqlen) with head dims that are
 * multiples of 8 and at most 128 on every cuDNN that TE accepts on sm90 (8.9+) and
 * sm100 (9.7+). Larger heads (up to 256 on sm90 from cuDNN 9.5) keep
 * FlashAttention-2, the timing they had before (docs/step-model.md 2.2).
 * Sliding windows and attention sinks depend on the run's cuDNN
 * (layout.cudnn_version; 0 = latest admits both):
 *  - a window (left, 0) with the causal mask, bshd/sbhd, no dropout: cuDNN 9.2+
 *    (fused_attn.cpp nvte_get_fused_attn_backend "9.2: SWA (left, 0) +
 *    top-left diagonal", TE v2.9 to v2.18);
 *  - learnable or off-by-one softmax (sinks): cuDNN 9.13.1+ (same function,
 *    "softmax type ... 9.13.1+: vanilla, off-by-one, learnable", v2.9 to v2.18);
 *    and get_attention_backend's "Filter: Softmax type" disables FlashAttention
 *    (FA2 and FA3 alike, every GPU) for any softmax but vanilla (v2.8 to v2.18).
 *    So a run with sinks takes cuDNN wherever its version admits them. Below
 *    9.13.1 TE leaves only UnfusedDotProductAttention (materialised scores);
 *    plateau keeps FlashAttention-2's timing there, as before (docs/step-model.md
 *    2.2 "Sliding windows and attention sinks").
 * Latent attention's 192/128 heads (DeepSeek-V3) on Blackwell are the exception:
 * there TE has no other fused kernel to run. get_attention_backend disables
 * FlashAttention-2 for head_dim_qk != head_dim_v ("does not support MLA", v2.4-v2.18)
 * and FlashAttention-3 is sm90 only, while nvte_get_fused_attn_backend admits
 * F16_arbitrary_seqlen for head_dim_qk == 192 && head_dim_v == 128 in training on
 * sm_arch >= 100 from cuDNN 9.11 (fused_attn.cpp, v2.8 to v2.18). Every Blackwell
 * run with this shape is taken to be on cuDNN >= 9.11 (the Megatron-Bridge
 * containers build on NGC PyTorch 25.09 and later, docker/Dockerfile.ci v0.2.2-v0.5.0;
 * NVIDIA publishes this very shape's cuDNN SDPA times on GB200 and GB300,
 * cudnn-frontend benchmark/sdpa_benchmark_training results/dsv3, cuDNN 9.22).
 * The arch names of GPU files with compute capability >= 9.0: hopper (9.0),
 * blackwell (10.0, 10.3). */
#define CUDNN_SWA_MIN 90200   /* cuDNN 9.2.0: sliding windows (left, 0) */
#define CUDNN_SINKS_MIN 91301 /* cuDNN 9.13.1: learnable / off-by-one softmax */
#define CUDNN_FP8_SWA_SINKS_MIN 92100 /* cuDNN 9.21: FP8 attention with either */
static bool cudnn_at_least(int64_t version, int64_t min) {
  return version == PL_CUDNN_LATEST || version >= min;
}

static bool te_uses_cudnn(const struct pl_model *m, const struct pl_gpu *g, int64_t cudnn) {
  bool sm90_up = strcmp(g->arch, "hopper") == 0 || strcmp(g->arch, "blackwell") == 0;
  int64_t dqk = m->head_dim, dv = m->v_head_dim > 0 ? m->v_head_dim : m->head_dim;
  bool mla_sm100 = strcmp(g->arch, "blackwell") == 0 && dqk == 192 && dv == 128;
  bool window_ok = m->sliding_window == 0 || cudnn_at_least(cudnn, CUDNN_SWA_MIN);
  bool sinks_ok = !m->attn_sinks || cudnn_at_least(cudnn, CUDNN_SINKS_MIN);
  return sm90_up && g->eff.attn_cudnn_fwd_fraction > 0 && g->eff.attn_cudnn_bwd_fraction > 0 &&
         dqk > 0 && (dqk <= 128 || mla_sm100) && dqk % 8 == 0 && dv > 0 && dv <= 128 &&
         dv % 8 == 0 && window_ok && sinks_ok;
}

static enum pl_status resolve_attention(struct pl_layout *l, const struct pl_model *m,
                                        const struct pl_cluster *c, struct pl_diag *diag) {
  if (l->attention_te && !l->eager_attention && !l->attention_triton)
    l->attention_cudnn = te_uses_cudnn(m, &c->gpu, l->cudnn_version);
  if (l->attention_cudnn &&
      !(c->gpu.eff.attn_cudnn_fwd_fraction > 0 && c->gpu.eff.attn_cudnn_bwd_fraction > 0))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: attention cudnn needs the GPU's cuDNN attention figures, which "
                       "gpu '%s' lacks (its file gives no efficiency.attention.cudnn); use "
                       "--attention flash",
                       c->gpu.name);
  /* MXFP8 attention (layout.fp8_attention): TE runs it on cuDNN only, under the
   * MXFP8 recipe (dot_product_attention/utils.py get_attention_backend disables
   * FlashAttention for FP8 attention; TE v2.16 MXFP8 DPA needs sm100 and cuDNN 9.21) */
  const struct pl_gpu_efficiency *e = &c->gpu.eff;
  if (l->fp8_attention && l->dtype != PL_DTYPE_MXFP8)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: fp8 attention is modelled under the mxfp8 recipe only (dtype is "
                       "%s); use --dtype mxfp8 or --fp8-attention off",
                       pl_dtype_name(l->dtype));
  if (l->fp8_attention && !l->attention_cudnn)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: fp8 attention runs on cuDNN's fused attention only; use "
                       "--attention cudnn or te, or --fp8-attention off");
  /* FP8 attention with sinks or a sliding window: TE 2.16 get_attention_backend
   * keeps FusedAttention for them only on sm100 with cuDNN 9.21+ ("Filter: Softmax
   * type", "Filter: Sliding window attention"; TE 2.9-2.14 refuse both) */
  if (l->fp8_attention && (m->attn_sinks || m->sliding_window > 0) &&
      !cudnn_at_least(l->cudnn_version, CUDNN_FP8_SWA_SINKS_MIN))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: fp8 attention with attention sinks or a sliding window needs "
                       "cuDNN 9.21 or newer; use --cudnn latest or --fp8-attention off");
  if (l->fp8_attention &&
      !(e->attn_cudnn_mxfp8_fwd_ratio > 0 && e->attn_cudnn_mxfp8_mla_fwd_ratio > 0))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: fp8 attention needs the GPU's MXFP8 attention figures, which gpu "
                       "'%s' lacks (its file gives no efficiency.attention.cudnn.mxfp8_time_ratio); "
                       "use --fp8-attention off",
                       c->gpu.name);
  return PL_OK;
}

/* Transformer Engine's fused MXFP8 grouped MLP (layout.fused_grouped_mlp) runs
 * where TE v2.16's ForwardGroupedMLP_CuTeGEMMSwiGLU_MXFP8.is_supported and
 * ops/_common.py fuse_grouped_mlp_ops accept it: the MXFP8 recipe, compute
 * capability 10.x (cuDNN's sm100 kernels), GroupedLinear + scaled GLU +
 * GroupedLinear with in/out features divisible by 64; Megatron-Core asserts
 * _is_fused_impl_supported (experts.py, core_v0.18.0: a gated SwiGLU or quick
 * GEGLU, no expert tensor parallelism). */
static enum pl_status check_fused_mlp(const struct pl_layout *l, const struct pl_model *m,
                                      const struct pl_cluster *c, struct pl_diag *diag) {
  /* layout.cudnn_cluster_margin: CUDNNFE_CLUSTER_OVERLAP_MARGIN acts on cuDNN
   * frontend's grouped GEMM kernels only, and cuDNN refuses a margin that leaves
   * no cluster ("max_active_clusters must be > 0 after applying overlap margin",
   * python/cudnn/grouped_gemm/grouped_gemm_glu/api.py, v1.23.0) */
  if (l->cudnn_cluster_margin > 0 && !l->fused_grouped_mlp)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: the cuDNN cluster margin applies to the fused grouped MLP's "
                       "kernels only; use --fused-grouped-mlp on or --cudnn-cluster-margin 0");
  if (l->cudnn_cluster_margin > 0 && l->cudnn_cluster_margin >= c->gpu.sm_count / 2)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: a cuDNN cluster margin of %lld leaves none of gpu '%s''s %lld "
                       "two-SM clusters; use --cudnn-cluster-margin below %lld",
                       (long long)l->cudnn_cluster_margin, c->gpu.name,
                       (long long)(c->gpu.sm_count / 2), (long long)(c->gpu.sm_count / 2));
  if (!l->fused_grouped_mlp)
    return PL_OK;
  int64_t fe = l->etp > 0 ? m->expert_ffn / l->etp : m->expert_ffn;
  const char *why = l->dtype != PL_DTYPE_MXFP8              ? "runs under the mxfp8 recipe only"
                    : c->gpu.sm_arch / 10 != 10             ? "needs a compute capability 10.x GPU"
                    : !pl_model_is_moe(m)                   ? "needs a mixture-of-experts model"
                    : m->mlp != PL_MLP_SWIGLU               ? "needs gated (GLU) experts"
                    : l->etp > 1                            ? "does not run with etp > 1"
                    : m->hidden % 64 != 0 || fe % 64 != 0   ? "needs widths divisible by 64"
                                                            : NULL;
  if (why == NULL)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: the fused grouped MLP %s (Transformer Engine's cuDNN MXFP8 grouped "
                     "GEMM kernels); use --fused-grouped-mlp off",
                     why);
}

/* layout.parallel_block (flops.c pl_layer_ops, sim/segments.c layer_tp): the
 * GPT-NeoX gpt_j_residual block is modelled for dense attention + MLP blocks;
 * an MoE or hybrid stack, and the per-GEMM tp overlaps (TE userbuffers, async
 * TP), whose windows are those of the serial block, are not. */
static enum pl_status check_parallel_block(const struct pl_layout *l, const struct pl_model *m,
                                           struct pl_diag *diag) {
  if (!l->parallel_block)
    return PL_OK;
  const char *why = pl_model_is_hybrid(m)       ? "a hybrid stack"
                    : pl_model_is_moe(m)        ? "a mixture-of-experts model"
                    : l->tp_comm_overlap        ? "--tp-comm-overlap on"
                    : l->async_tp               ? "--async-tp on"
                                                : NULL;
  if (why == NULL)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: the parallel transformer block is modelled for dense blocks with "
                     "blocking tp collectives, not with %s; use --parallel-block off",
                     why);
}

/* layout.cp_comm (Megatron-Core --cp-comm-type): exclusive with PyTorch's
 * own context_parallel (cp_allgather); a2a+p2p takes its a2a group's size
 * (--cp-a2a-size, Megatron-Core's hierarchical_context_parallel_sizes[0]),
 * which divides cp; the a2a of Transformer Engine's AttnFuncWithCPAndQKVOA2A
 * splits each rank's heads over its group: "cp_comm_type='a2a' requires
 * num_heads % cp_size == 0 for Q, K, V" (context_parallel.py, v2.20.0.dev0
 * @ d0067d0, AttnFuncWithCPAndQKVOA2A.forward). */
static enum pl_status check_cp_comm(struct pl_layout *l, const struct pl_model *m,
                                    struct pl_diag *diag) {
  if (l->cp_a2a < 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "layout: --cp-a2a-size %lld must be positive",
                       (long long)l->cp_a2a);
  if (l->cp_a2a > 0 && l->cp_comm != PL_CP_A2A_P2P)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "layout: --cp-a2a-size needs --cp-comm-type a2a+p2p");
  if (l->cp <= 1)
    return PL_OK;
  if (l->cp_comm != PL_CP_P2P && l->cp_allgather)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --cp-comm-type %s is Transformer Engine's context parallelism, "
                       "--cp-allgather on PyTorch's; give --cp-allgather off",
                       pl_cp_comm_name(l->cp_comm));
  int64_t group = l->cp_comm == PL_CP_A2A ? l->cp : l->cp_comm == PL_CP_A2A_P2P ? l->cp_a2a : 1;
  if (l->cp_comm == PL_CP_A2A_P2P && (l->cp_a2a <= 0 || l->cp % l->cp_a2a != 0))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout cp=%lld: --cp-comm-type a2a+p2p needs --cp-a2a-size dividing cp",
                       (long long)l->cp);
  int64_t tp = l->tp > 0 ? l->tp : 1;
  if (group > 1 && ((m->heads / tp) % group != 0 || (m->kv_heads / tp) % group != 0))
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: the cp a2a over %lld ranks must divide the heads per tp rank "
                       "(%lld query, %lld key/value)",
                       (long long)group, (long long)(m->heads / tp), (long long)(m->kv_heads / tp));
  return PL_OK;
}

enum pl_status pl_layout_resolve(struct pl_layout *l, const struct pl_model *m,
                                 const struct pl_cluster *c, struct pl_diag *diag) {
  enum pl_status st = check_dtype(l, c, diag);
  if (st == PL_OK)
    st = resolve_attention(l, m, c, diag);
  if (st == PL_OK)
    st = resolve_degrees(l, m, c, diag);
  if (st == PL_OK)
    st = resolve_sharding(l, diag);
  if (st == PL_OK)
    st = resolve_batch(l, m, diag);
  /* a hybrid stack's MTP module is its mtp_pattern's blocks (hybrid_mtp.c);
   * a pipeline layout string's 'm' counts one block, so the two do not mix */
  l->mtp_module_blocks = model_hybrid_mtp_blocks(m);
  if (st == PL_OK && (l->bf16_last_blocks < 0 || l->bf16_last_blocks > m->layers))
    st = pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: --bf16-last-blocks %lld must be between 0 and the model's %lld blocks",
                     (long long)l->bf16_last_blocks, (long long)m->layers);
  if (st == PL_OK && l->mtp_layers > 0 && l->mtp_module_blocks > 1 &&
      l->pipeline_layout[0] != '\0')
    st = pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: a pipeline layout string cannot place a hybrid model's %lld-block "
                     "MTP module (model mtp_pattern '%s')",
                     (long long)l->mtp_module_blocks, m->mtp_pattern);
  if (st == PL_OK)
    st = pl_layout_resolve_pipeline(l, m, diag);
  if (st == PL_OK)
    st = resolve_schedule(l, m, diag);
  if (st == PL_OK)
    st = model_layout_resolve_uneven(l, m, diag);
  if (st == PL_OK)
    st = resolve_recompute(l, m, diag);
  if (st == PL_OK)
    st = resolve_experts(l, m, diag);
  if (st == PL_OK)
    st = check_fused_mlp(l, m, c, diag);
  if (st == PL_OK)
    st = model_lora_check(l, m, diag);
  if (st == PL_OK)
    st = check_parallel_block(l, m, diag);
  if (st == PL_OK)
    st = check_cp_comm(l, m, diag);
  /* layout.ub_*_fprop_sms: TE's _math_sms = sm_count - num_sm must leave the GEMM an SM */
  int64_t ub = l->ub_proj_fprop_sms > l->ub_fc2_fprop_sms ? l->ub_proj_fprop_sms : l->ub_fc2_fprop_sms;
  if (st == PL_OK && ub > 0 && ub >= c->gpu.sm_count)
    st = pl_diag_set(diag, PL_ERR_LAYOUT,
                     "layout: a userbuffers margin of %lld SMs leaves none of gpu '%s''s %lld "
                     "SMs to the GEMM; use --ub-proj-fprop-sms / --ub-fc2-fprop-sms below %lld",
                     (long long)ub, c->gpu.name, (long long)c->gpu.sm_count,
                     (long long)c->gpu.sm_count);
  l->sp = l->tp > 1 && !l->no_sp;
  return st;
}
