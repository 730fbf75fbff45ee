/* lower_dp.c: the data-parallel side of the lowering (lower.c): ddp/zero1
 * gradient buckets (dense over dp, routed experts over edp) and their flush,
 * Megatron-LM 2021-22's reduction after the backward and the tied-embedding
 * all_reduce, the optimizer step, and zero1's parameter all_gathers, after the
 * step or overlapped with the next one (layout.overlap_param_gather).
 * docs/step-model.md. */
#include <plateau/model.h>

#include <math.h>

#include "model/constants.h"
#include "sim/lower_int.h"
#include "sim/sim_int.h"

/* Expert gradients (Megatron-Core DistributedDataParallel, megatron/core/
 * distributed/distributed_data_parallel.py, core_r0.12: the expert-parallel
 * parameters get their own buffers, expert_parallel_buffers, whose buckets
 * reduce over the expert data-parallel group, parallel_state
 * get_expert_data_parallel_group, of edp = world / (etp ep pp) ranks; the
 * distributed optimizer shards them over that group too): full buckets are
 * reduced over edp as they fill, the rest at the flush; with edp = 1 there is
 * nothing to reduce. */
static void expert_bucket(struct lower *lw, double bytes, int32_t after, bool flush) {
  if (lw->ebucket_coll < 0)
    return;
  lw->ebucket_fill += bytes;
  double full = floor(lw->ebucket_fill / lw->st->bucket_bytes);
  if (full >= 1) {
    int32_t t = coll_task(lw, PL_STREAM_DP_REDUCE, lw->ebucket_coll, (int64_t)full);
    dep(lw, after, t);
    lw->ebucket_fill -= full * lw->st->bucket_bytes;
  }
  if (!flush || lw->ebucket_fill <= 0)
    return;
  enum pl_coll_op op = sim_grad_reduce_op(lw->l);
  int32_t rest;
  enum pl_status s = sim_coll_add(lw->st, op, "edp", lw->ebucket_fill, &rest, lw->diag);
  if (s != PL_OK)
    fail(lw, s);
  int32_t t = coll_task(lw, PL_STREAM_DP_REDUCE, rest, 1);
  dep(lw, after, t);
  lw->ebucket_fill = 0;
}

/* Megatron-Core's bucket groups with FP8 parameters (fp8_param_gather under
 * the distributed optimizer, pl_layout_te_fp8_params): DistributedDataParallel
 * keeps the FP8 weights in a uint8 buffer and the rest (embedding, output
 * layer, norms) in a bf16 one, and partition_buckets (megatron/core/
 * distributed/param_and_grad_buffer.py, case 3, "When using fp8 params, merge
 * all non-fp8 buckets into the last fp8 bucket group"; core_r0.9.0 to
 * core_r0.15.0) makes one group of every fp8 bucket but the last, and puts
 * the last fp8 bucket (the model's first blocks) together with all non-fp8
 * buckets. A group reduces once all its buckets' gradients are ready
 * (_ParamAndGradBucketGroup.register_grad_ready) and gathers as one
 * coalesced call (start_param_sync, _coalescing_manager): the output layer's
 * gradient, ready first in the backward, waits for the embedding's, ready
 * last, and the first forward waits for the embedding, the output layer and
 * the norms gathered together. Megatron-Core's DistributedDataParallel
 * only, which plateau knows by its bucket (bucket_params or bucket_dp_scaled:
 * a bucket of parameters, not NeMo 1's Apex DistributedFusedAdam buckets of
 * bucket_mb, whose uint8 buckets are not grouped this way). Dense
 * transformer models only: where pl_layout_fp8_gathered_weights gives a
 * block's FP8 weights (not MoE or MLA) and every block is a transformer
 * block (not a Mamba hybrid, whose blocks' split it does not give). */
static bool fp8_groups(const struct lower *lw) {
  const struct pl_model *m = &lw->st->run->model;
  const struct pl_layout *l = lw->l;
  return l->shard == PL_SHARD_ZERO1 && pl_layout_te_fp8_params(l) &&
         (l->bucket_params > 0 || l->bucket_dp_scaled) && !pl_model_is_hybrid(m) &&
         pl_layout_fp8_gathered_weights(m, l) > 0;
}

/* The non-FP8 dense parameters of segment sg under fp8_groups: a block's
 * parameters less its FP8 GEMM weights (its norms), the embedding and the
 * output layer whole. */
static double seg_non_fp8_params(const struct lower *lw, const struct sim_seg *sg) {
  double dense = sg->params - sg->expert_params;
  if (sg == &lw->st->seg[SIM_SEG_LAYER])
    dense -= pl_layout_fp8_gathered_weights(&lw->st->run->model, lw->l);
  return dense > 0 ? dense : 0;
}

/* Megatron-Core's bucketing of a buffer (_ParamAndGradBuffer.__init__,
 * param_and_grad_buffer.py core_r0.14.0): parameters in backward order, a
 * bucket closed once it holds bucket_size elements or more, a parameter never
 * split ("(param_end_index - bucket_start_index) >= bucket_size"): add x, one
 * parameter or one block's norms, to the open bucket *open, closing it into
 * *n. */
static void bucket_add(double x, double bucket, double *open, double *n) {
  *open += x;
  if (*open > 0 && *open >= bucket) {
    *n += 1;
    *open = 0;
  }
}

/* DDP/zero1: add a segment's gradients to the bucket and reduce full ones;
 * its routed experts' gradients go to their own bucket (expert_bucket).
 * Under fp8_groups its non-FP8 gradients are held for the last group and
 * reduced at the flush with the last FP8 bucket: the group's calls (one per
 * bucket, coalesced) share its bytes. */
void sim_dp_bucket(struct lower *lw, const struct sim_seg *sg, int32_t after, bool flush) {
  expert_bucket(lw, sg != NULL ? sg->expert_params * sim_dp_reduce_bytes(lw->l) : 0, after, flush);
  double held =
      sg != NULL && fp8_groups(lw) ? seg_non_fp8_params(lw, sg) * sim_dp_reduce_bytes(lw->l) : 0;
  lw->held_bytes += held;
  bucket_add(held, lw->st->bucket_bytes, &lw->held_open_bytes, &lw->held_buckets);
  lw->bucket_fill +=
      sg != NULL ? (sg->params - sg->expert_params) * sim_dp_reduce_bytes(lw->l) - held : 0;
  double full = floor(lw->bucket_fill / lw->st->bucket_bytes);
  /* fp8_groups: the last FP8 bucket is the last group's, so one full
   * bucket stays until more gradients come (or the flush takes it) */
  if (fp8_groups(lw) && full >= 1 && lw->bucket_fill <= full * lw->st->bucket_bytes)
    full -= 1;
  if (full >= 1) {
    int32_t t = coll_task(lw, PL_STREAM_DP_REDUCE, lw->bucket_coll, (int64_t)full);
    dep(lw, after, t);
    coll_task(lw, PL_STREAM_DP_REDUCE, lw->bucket_ar_coll, (int64_t)full);
    lw->bucket_fill -= full * lw->st->bucket_bytes;
  }
  double last = lw->bucket_fill + lw->held_bytes;
  if (!flush || last <= 0)
    return;
  double calls = (lw->bucket_fill > 0 ? 1 : 0) + lw->held_buckets + (lw->held_open_bytes > 0 ? 1 : 0);
  enum pl_coll_op op = sim_grad_reduce_op(lw->l);
  int32_t rest, rest_ar = SIM_NONE;
  enum pl_status s = sim_coll_add(lw->st, op, "dp", last / calls, &rest, lw->diag);
  if (s == PL_OK && lw->bucket_ar_coll >= 0)
    s = sim_coll_add(lw->st, PL_COLL_ALL_REDUCE, "dp-replica",
                     last / calls / (double)pl_layout_shard_ranks(lw->l), &rest_ar, lw->diag);
  if (s != PL_OK)
    fail(lw, s);
  int32_t t = coll_task(lw, PL_STREAM_DP_REDUCE, rest, (int64_t)calls);
  dep(lw, after, t);
  coll_task(lw, PL_STREAM_DP_REDUCE, rest_ar, (int64_t)calls);
  lw->bucket_fill = lw->held_bytes = lw->held_open_bytes = lw->held_buckets = 0;
}

/* Parameters of model chunk v (all stages' chunks numbered) on one GPU. */
static double chunk_params(const struct lower *lw, int64_t v) {
  const struct sim_seg *sg = lw->st->seg;
  return (double)lw->st->chunk_layers[v] * sg[SIM_SEG_LAYER].params +
         (v == 0 ? sg[SIM_SEG_EMBED].params : 0) + (v == lw->V - 1 ? sg[SIM_SEG_HEAD].params : 0);
}

/* Parameters of stage s on one GPU after tp sharding. */
/* The routed-expert part of stage_params. */
static double stage_expert_params(const struct lower *lw, int64_t s) {
  double p = 0;
  for (int64_t c = 0; c < lw->vp; c++)
    p += (double)lw->st->chunk_layers[c * lw->pp + s] * lw->st->seg[SIM_SEG_LAYER].expert_params;
  return p;
}

/* Blocks of stage s on one GPU (all its chunks). */
static double stage_layers(const struct lower *lw, int64_t s) {
  double k = 0;
  for (int64_t c = 0; c < lw->vp; c++)
    k += (double)lw->st->chunk_layers[c * lw->pp + s];
  return k;
}

static double stage_params(const struct lower *lw, int64_t s) {
  const struct sim_seg *sg = lw->st->seg;
  double p = 0;
  for (int64_t c = 0; c < lw->vp; c++) {
    int64_t v = c * lw->pp + s;
    p += (double)lw->st->chunk_layers[v] * sg[SIM_SEG_LAYER].params;
    p += v == 0 ? sg[SIM_SEG_EMBED].params : 0;
    p += v == lw->V - 1 ? sg[SIM_SEG_HEAD].params : 0;
  }
  return p;
}

/* Megatron-LM 2021-22 (megatron/training.py train_step): after the whole
 * forward_backward_func, model.allreduce_gradients() reduces every gradient
 * bucket, then _allreduce_embedding_grads() sums the tied word-embedding
 * gradient between the first and last stage; the optimizer follows. Nothing
 * of it overlaps the backward (overlap_grad_reduce came with Megatron-core,
 * 2023). The embedding all_reduce runs whenever pp > 1 and the embeddings are
 * tied, whatever the gradient overlap. */
static void grads_after_backward(struct lower *lw, double params) {
  const struct pl_layout *l = lw->l;
  if (!fsdp(l) && l->grad_reduce_after_backward && lw->bucket_coll >= 0) {
    double ex = stage_expert_params(lw, lw->stage);
    lw->bucket_fill = (params - ex) * sim_dp_reduce_bytes(l);
    expert_bucket(lw, ex * sim_dp_reduce_bytes(l), lw->last_comp, true);
    sim_dp_bucket(lw, NULL, lw->last_comp, true);
  }
  bool edge = lw->stage == 0 || lw->stage == lw->pp - 1;
  if (lw->pp < 2 || !edge || !lw->st->run->model.tied_embeddings)
    return;
  int32_t ar;
  double bytes = lw->st->seg[SIM_SEG_EMBED].params * sim_grad_bytes(l);
  enum pl_status s = sim_coll_add(lw->st, PL_COLL_ALL_REDUCE, "pp", bytes, &ar, lw->diag);
  if (s != PL_OK)
    fail(lw, s);
  int32_t t = coll_task(lw, PL_STREAM_DP_REDUCE, ar, 1);
  dep(lw, lw->last_comp, t);
}

/* Bucket-sized calls of a zero1 parameter all_gather of bytes. */
static double param_gather_calls(const struct lower *lw, double bytes) {
  return ceil(bytes / pl_layout_bucket_bytes(lw->l, PARAM_BYTES,
                                             (double)pl_model_params(&lw->st->run->model)));
}

/* A ddp/zero1 bucket's elements (param_gather_calls' bytes at 2 B), for
 * the fp8_groups bucketing of the parameter gathers. */
static double bucket_elems(const struct lower *lw) {
  return pl_layout_bucket_bytes(lw->l, PARAM_BYTES, (double)pl_model_params(&lw->st->run->model)) /
         PARAM_BYTES;
}

/* The zero1 bf16 parameter all_gather of a stage, in bucket-sized calls:
 * the number of calls after the first group, the collective of the first
 * group's calls (in forward order) in *first, as many as *first_calls, and
 * of the others in *ag. The routed experts' share
 * (expert_params of params) is never in it: Megatron-Core keeps the
 * expert-parallel parameters in their own buffers
 * (distributed_data_parallel.py expert_parallel_buffers, core_r0.12-v0.16),
 * whose param all_gather (param_and_grad_buffer.py start_param_sync) runs
 * over the expert data-parallel group, the group of their reduce
 * (expert_bucket); expert_gather adds it when edp > 1. With edp = 1 that
 * group has one rank: the gather moves nothing over the network (the
 * distributed optimizer keeps the experts whole there, sim_dp_emit_tail's
 * ex / edp), so no collective carries them. */
static double param_gather(struct lower *lw, double params, double expert_params, double layers,
                           bool head, bool embed, int32_t *first, double *first_calls,
                           int32_t *ag) {
  *first_calls = 1;
  double bytes = (params - expert_params) * PARAM_BYTES;
  double calls = param_gather_calls(lw, bytes);
  double first_bytes = -1.0;
  /* TE FP8 parameters under the distributed optimizer (pl_layout_te_fp8_params,
   * Megatron-Core fp8_param_gather): the blocks' GEMM weights sit in uint8
   * buffers and gather at 1 B; the rest (embeddings, norms) at 2 B. Buckets
   * hold bucket_size elements whatever the dtype. Under fp8_groups the
   * groups are the FP8 buckets, the first gathered (the last group) with
   * every non-FP8 parameter at 2 B. */
  if (pl_layout_te_fp8_params(lw->l)) {
    double q = pl_dtype_element_bytes(lw->l->dtype);
    double fp8 = layers * pl_layout_fp8_gathered_weights(&lw->st->run->model, lw->l);
    bytes -= fp8 * (PARAM_BYTES - q);
    if (fp8_groups(lw) && fp8 > 0) {
      double bucket = bucket_elems(lw);
      double fp8_calls = ceil(fp8 / bucket);
      calls = fp8_calls > 1 ? fp8_calls : 1;
      first_bytes = bytes - (fp8 - fmin(bucket, fp8)) * q;
      bytes -= first_bytes;
    }
  }
  enum pl_status s = PL_OK;
  if (first_bytes >= 0) {
    /* the first group's calls: its FP8 bucket and the non-FP8 buffer's
     * buckets (bucket_add over the output layer, the norms, the embedding) */
    const struct sim_seg *sg = lw->st->seg;
    double bucket = bucket_elems(lw);
    double open = 0, n = 1;
    if (head)
      bucket_add(seg_non_fp8_params(lw, &sg[SIM_SEG_HEAD]), bucket, &open, &n);
    for (double k = 0; k < layers; k++)
      bucket_add(seg_non_fp8_params(lw, &sg[SIM_SEG_LAYER]), bucket, &open, &n);
    if (embed)
      bucket_add(seg_non_fp8_params(lw, &sg[SIM_SEG_EMBED]), bucket, &open, &n);
    n += open > 0 ? 1 : 0;
    *first_calls = n;
    s = sim_coll_add(lw->st, PL_COLL_ALL_GATHER, "dp", first_bytes / n, first, lw->diag);
  }
  if (s == PL_OK && first_bytes >= 0 && calls <= 1)
    *ag = *first;
  else if (s == PL_OK)
    s = sim_coll_add(lw->st, PL_COLL_ALL_GATHER, "dp",
                     bytes / (first_bytes >= 0 ? calls - 1 : calls), ag, lw->diag);
  if (first_bytes < 0)
    *first = *ag;
  if (s != PL_OK)
    fail(lw, s);
  return calls;
}

/* The expert parameters' all_gather over edp (param_gather), queued after
 * task t on the gather stream: the task it ends with, or t when there is
 * none (edp = 1: each rank holds its experts whole). */
static int32_t expert_gather(struct lower *lw, double expert_params, int32_t t) {
  double bytes = expert_params * PARAM_BYTES;
  if (lw->ebucket_coll < 0 || bytes <= 0)
    return t;
  double calls = param_gather_calls(lw, bytes);
  int32_t ag;
  enum pl_status s = sim_coll_add(lw->st, PL_COLL_ALL_GATHER, "edp", bytes / calls, &ag, lw->diag);
  if (s != PL_OK)
    fail(lw, s);
  int32_t e = coll_task(lw, PL_STREAM_DP_GATHER, ag, (int64_t)calls);
  if (t != SIM_NONE)
    dep(lw, t, e);
  return e;
}

/* layout.zero3_list_copy_s: DeepSpeed 2021 ZeRO-3 gathers the stage's
 * persistent parameters back after the optimizer step, one synchronous call
 * and a host copy loop (fsdp_comm.c sim_zero3_persist_gather). */
static void zero3_persist_tail(struct lower *lw, int32_t opt) {
  if (lw->l->shard != PL_SHARD_ZERO3 || lw->l->zero3_list_copy_s <= 0 || opt == SIM_NONE)
    return;
  const struct sim_seg *sg = lw->st->seg;
  double elems = 0, host_s = 0;
  for (int64_t c = 0; c < lw->vp; c++) {
    int64_t v = c * lw->pp + lw->stage;
    double k = (double)lw->st->chunk_layers[v];
    elems += k * sg[SIM_SEG_LAYER].z3_persist_elems;
    host_s += k * sg[SIM_SEG_LAYER].z3_persist_host_s;
    if (v == 0) {
      elems += sg[SIM_SEG_EMBED].z3_persist_elems;
      host_s += sg[SIM_SEG_EMBED].z3_persist_host_s;
    }
    if (v == lw->V - 1) {
      elems += sg[SIM_SEG_HEAD].z3_persist_elems;
      host_s += sg[SIM_SEG_HEAD].z3_persist_host_s;
    }
  }
  int32_t ag;
  enum pl_status s = sim_zero3_persist_gather(lw->st, elems, host_s, &ag, lw->diag);
  if (s != PL_OK)
    fail(lw, s);
  if (ag == SIM_NONE)
    return;
  dep(lw, opt, coll_task(lw, PL_STREAM_DP_GATHER, ag, 1));
}

/* layout.pg_with_opt_step (Megatron-Core overlap_param_gather_with_optimizer_step
 * with overlap_param_gather): get_megatron_optimizer gives the first model
 * chunk an optimizer of its own (optimizer/__init__.py: all_dense_model_chunks
 * = [[model_chunks[0]], model_chunks[1:]], core_v0.16.0), and
 * ChainedOptimizer.step_with_ready_grads dispatches that chunk's parameter
 * all_gather right after its step (optimizer.py: start_param_sync(force_dispatch
 * =True) for optimizer_idx 0), beside the other chunks' step; the forward
 * pre-hooks do not dispatch it again (distributed_data_parallel.py
 * start_param_sync). In plateau's steady step (sim_dp_gather_ahead: the
 * gathers a bound at the step's start) the first chunk's first bucket moves
 * here, after its share of the optimizer step; its other buckets stay at the
 * step's start, ahead of the other chunks' gathers, and its first forward no
 * longer waits. */
static bool pg_opt(const struct lower *lw) {
  const struct pl_layout *l = lw->l;
  return l->pg_with_opt_step && l->overlap_param_gather && l->shard == PL_SHARD_ZERO1 &&
         lw->bucket_coll >= 0;
}

/* The optimizer step's HBM bytes per local parameter (constants.h): the fused
 * step of Megatron / TE / DeepSpeed (30 B, its bf16 copy written; 8 B less
 * with bf16 moments) and its norm pass (4 B); eager PyTorch (kernels unfused):
 * torch.optim's foreach passes (80 B) or, with layout.opt_fused, its one fused
 * kernel family (28 B), and clip_grad_norm_'s norms and scaling (12 B); the
 * same for a compiled model with layout.opt_torch; torch.optim.SGD over
 * 16-bit parameters with layout.opt_sgd (12 B, its norm pass 6 B).
 * layout.no_grad_clip drops the norm pass. */
double sim_opt_bytes_per_param(const struct pl_layout *l) {
  /* torch.optim.SGD over the 16-bit parameters (layout.opt_sgd): eager
   * whatever the model's kernels (torch.compile compiles the model, not the
   * step), 12 B; clip_grad_norm_ over 16-bit gradients reads 2 B and its
   * scaling multiply reads and writes 2 B each: half the fp32 norm pass */
  if (l->opt_sgd)
    return SGD_STEP_BYTES_PER_PARAM +
           (l->no_grad_clip ? 0.0 : GRAD_NORM_EAGER_BYTES_PER_PARAM * PARAM_BYTES / GRAD_BYTES);
  /* torch.optim's step: eager PyTorch, or a compiled model whose optimizer
   * torch.compile leaves alone (layout.opt_torch) */
  bool eager = l->kernels == PL_KERNELS_UNFUSED || l->opt_torch;
  double step = !eager           ? ADAMW_STEP_BYTES_PER_PARAM
                : l->opt_fused   ? ADAMW_FUSED_EAGER_STEP_BYTES_PER_PARAM
                                 : ADAMW_FOREACH_STEP_BYTES_PER_PARAM;
  if (l->adam_moments_bf16 && !eager) /* TE FusedAdam, bf16 m, v */
    step -= ADAMW_BF16_MOMENTS_SAVED_BYTES;
  double norm = l->no_grad_clip ? 0.0 : eager ? GRAD_NORM_EAGER_BYTES_PER_PARAM
                                              : GRAD_NORM_BYTES_PER_PARAM;
  return step + norm;
}

/* layout.grad_buffer_passes: Megatron-Core DDP zeroes its whole local
 * gradient buffer once per step (constants.h GRAD_BUFFER_ZERO_PASSES) and,
 * unless the run turns check_for_nan_in_grad off (layout.no_grad_nan_check),
 * reads it once more for the NaN check's bucket norms (GRAD_NAN_CHECK_PASSES):
 * every local gradient element
 * (the stage's parameters, unsharded: the buffer holds them all; the
 * distributed optimizer shards only the step), at the gradient buffer's
 * dtype (sim_grad_bytes: fp32 with grad_reduce_in_fp32), at the HBM rate.
 * Both run on the compute stream, the zero before the first forward and the
 * norms between backward kernels; counted with the optimizer step, the
 * stream's other non-forward/backward work. ddp and zero1 only (Megatron's
 * FSDP keeps sharded gradients of its own). */
double sim_grad_buffer_passes_s(const struct pl_layout *l, const struct pl_gpu *g, double params) {
  if (l->shard != PL_SHARD_DDP && l->shard != PL_SHARD_ZERO1)
    return 0.0;
  /* layout.grad_scale_pass: the 1/dp scaling before each reduce, a read and
   * a write more (constants.h GRAD_SCALE_PASSES); Megatron-Core scales only
   * "if self.gradient_scaling_factor != 1.0" (param_and_grad_buffer.py
   * start_grad_sync), the factor being 1 / the data-parallel size with
   * context parallelism: no pass at dp x cp = 1 */
  bool scales = l->grad_scale_pass && l->dp * l->cp > 1;
  double buffer = GRAD_BUFFER_ZERO_PASSES + (l->no_grad_nan_check ? 0.0 : GRAD_NAN_CHECK_PASSES);
  double passes = (l->grad_buffer_passes ? buffer : 0.0) + (scales ? GRAD_SCALE_PASSES : 0.0);
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  if (!(passes > 0) || !(bw > 0) || !(params > 0))
    return 0.0;
  return params * passes * sim_grad_bytes(l) / bw;
}

void sim_dp_emit_tail(struct lower *lw) {
  const struct pl_layout *l = lw->l;
  const struct pl_gpu *g = &lw->st->run->cluster.gpu;
  double params = stage_params(lw, lw->stage);
  grads_after_backward(lw, params);
  /* the distributed optimizer shards the experts over edp (expert_bucket) */
  double ex = stage_expert_params(lw, lw->stage);
  double local = l->shard == PL_SHARD_DDP
                     ? params
                     : (params - ex) / (double)pl_layout_shard_ranks(l) + ex / (double)(l->edp > 0 ? l->edp : 1);
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  double per_param = sim_opt_bytes_per_param(l);
  double opt_s = (bw > 0 ? local * per_param / bw : 0) + g->eff.kernel_overhead_s;
  opt_s += sim_grad_buffer_passes_s(l, g, params);
  opt_s = sim_opt_host_s(lw, opt_s);
  int32_t reduce_tail =
      lw->st->eng.streams[lw->streams[lw->stage * PL_STREAM_N + PL_STREAM_DP_REDUCE]].tail;
  join_add(lw, reduce_tail);
  if (l->fsdp_one_comm) /* the last reduce_scatters queue on the gather stream */
    join_add(lw,
             lw->st->eng.streams[lw->streams[lw->stage * PL_STREAM_N + PL_STREAM_DP_GATHER]].tail);
  double first_s = 0; /* pg_opt: the first chunk's own optimizer step */
  if (pg_opt(lw) && params > 0)
    first_s = opt_s * chunk_params(lw, lw->stage) / params;
  int32_t t = add(lw, PL_STREAM_COMPUTE, first_s > 0 ? first_s : opt_s, PL_TASK_OPTIMIZER,
                  SIM_RES_COMPUTE);
  for (int i = 0; i < lw->n_join && t != SIM_NONE; i++)
    dep(lw, lw->join[i], t);
  lw->n_join = 0;
  if (first_s > 0) {
    int64_t v = lw->stage; /* chunk 0 of this stage */
    double ex0 = (double)lw->st->chunk_layers[v] * lw->st->seg[SIM_SEG_LAYER].expert_params;
    int32_t ag, ag1;
    double n1;
    param_gather(lw, chunk_params(lw, v), ex0, (double)lw->st->chunk_layers[v], v == lw->V - 1,
                 v == 0, &ag1, &n1, &ag);
    dep(lw, t, coll_task(lw, PL_STREAM_DP_GATHER, ag1, (int64_t)n1));
    t = add(lw, PL_STREAM_COMPUTE, opt_s - first_s, PL_TASK_OPTIMIZER, SIM_RES_COMPUTE);
  }
  zero3_persist_tail(lw, t);
  sim_step_sync_emit(lw, t);
  if (l->shard != PL_SHARD_ZERO1 || lw->bucket_coll < 0 || l->overlap_param_gather)
    return;
  int32_t ag, ag1;
  double n1;
  double calls = param_gather(lw, params, ex, stage_layers(lw, lw->stage), lw->stage == lw->pp - 1,
                              lw->stage == 0, &ag1, &n1, &ag);
  int32_t a = coll_task(lw, PL_STREAM_DP_GATHER, ag1, (int64_t)n1);
  dep(lw, t, a);
  if (calls > 1)
    a = coll_task(lw, PL_STREAM_DP_GATHER, ag, (int64_t)calls - 1);
  expert_gather(lw, ex, a);
}

/* layout.overlap_param_gather (Megatron-Core DistributedDataParallel with
 * overlap_param_gather, megatron/core/distributed/distributed_data_parallel.py
 * _make_forward_pre_hook and param_and_grad_buffer.py start_param_sync /
 * finish_param_sync, core_r0.9.0; NeMo optim.overlap_param_sync): the zero1
 * parameter all_gathers launched at the optimizer step run while the next
 * step begins, each module's forward pre-hook waiting for its bucket. In a
 * steady step that is the same as issuing them at the step's start, chunk by
 * chunk: a chunk's first forward waits for its first bucket, and the pass
 * after that forward for the chunk's other buckets (a bound: real hooks wait
 * bucket by bucket inside the pass). */
void sim_dp_gather_ahead(struct lower *lw) {
  const struct pl_layout *l = lw->l;
  bool on = l->shard == PL_SHARD_ZERO1 && lw->bucket_coll >= 0 && l->overlap_param_gather;
  for (int64_t c = 0; c < lw->vp; c++) {
    int32_t *pg = &lw->pgather[2 * c];
    pg[0] = pg[1] = SIM_NONE;
    if (!on)
      continue;
    int32_t ag, ag1;
    int64_t v = c * lw->pp + lw->stage;
    double ex = (double)lw->st->chunk_layers[v] * lw->st->seg[SIM_SEG_LAYER].expert_params;
    double n1;
    double calls = param_gather(lw, chunk_params(lw, v), ex, (double)lw->st->chunk_layers[v],
                                v == lw->V - 1, v == 0, &ag1, &n1, &ag);
    /* pg_opt: chunk 0's first bucket was gathered after its optimizer step */
    bool moved = c == 0 && pg_opt(lw);
    pg[0] = moved ? SIM_NONE : coll_task(lw, PL_STREAM_DP_GATHER, ag1, (int64_t)n1);
    pg[1] = calls > 1 ? coll_task(lw, PL_STREAM_DP_GATHER, ag, (int64_t)calls - 1) : SIM_NONE;
    int32_t e = expert_gather(lw, ex, pg[1] != SIM_NONE ? pg[1] : pg[0]);
    pg[1] = e != pg[0] ? e : pg[1];
  }
}

/* Before pass sl: join what it waits for of the parameter gathers; *later
 * is what the pass after it waits for. */
void sim_dp_gather_wait(struct lower *lw, struct sim_slot sl, int32_t *later) {
  join_add(lw, *later);
  *later = SIM_NONE;
  int32_t *pg = &lw->pgather[2 * sl.chunk];
  if (sl.pass != PL_PASS_FWD || (pg[0] == SIM_NONE && pg[1] == SIM_NONE))
    return;
  join_add(lw, pg[0]);
  *later = pg[1];
  pg[0] = pg[1] = SIM_NONE;
}
