/* fsdp_comm.c: the collectives of an FSDP / ZeRO unit (zero2, zero3), one
 * unit per segment (docs/step-model.md section 4), registered by segments.c.
 *
 * FSDP units (zero2/zero3): one per segment; all_gather of its bf16
 * parameters, reduce_scatter of its gradients in fp32 (FSDP2
 * MixedPrecisionPolicy as torchtitan configures it: param bf16, reduce fp32),
 * and with hybrid sharding an all_reduce of the reduced shard across replicas
 * (FSDP HYBRID_SHARD).
 * ZeRO-3 as DeepSpeed runs it (layout.zero3_*): per-parameter gathers, their
 * re-gathers in the backward, bucketed reduce_scatters or all_reduces
 * (zero3_list_calls and the helpers above it). */
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "sim/sim_int.h"

#include "model/constants.h"

/* The parameter tensors of a segment on one GPU (elements each), as a dense
 * Megatron-style GPT block holds them: fused QKV and projection weights, the
 * MLP's first (gate and up fused) and second weights, their biases
 * (model.linear_bias), two norms (weight, + bias for LayerNorm), QK norms;
 * the embedding (+ learned positions); the final norm and an untied head.
 * Returns the count, 0 for MoE blocks (not listed: one call per unit). */
#define SEG_TENSORS 16
static int seg_tensors(const struct pl_run *run, enum sim_seg_kind kind, double t[SEG_TENSORS]) {
  const struct pl_model *m = &run->model;
  double tp = (double)(run->layout.tp > 0 ? run->layout.tp : 1), h = (double)m->hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double fc1 = (double)m->ffn_hidden * (m->mlp == PL_MLP_SWIGLU ? 2.0 : 1.0);
  int norm = m->norm == PL_NORM_LAYER ? 2 : 1, n = 0;
  if (kind == SIM_SEG_EMBED) {
    t[n++] = (double)m->vocab * h / tp;
    if (m->pos == PL_POS_LEARNED)
      t[n++] = (double)m->max_positions * h;
    return n;
  }
  if (kind == SIM_SEG_HEAD) {
    for (int i = 0; i < norm; i++)
      t[n++] = h;
    if (!m->tied_embeddings)
      t[n++] = (double)m->vocab * h / tp;
    return n;
  }
  if (m->experts > 0)
    return 0;
  double w[4] = {h * (q + 2 * kv) / tp, q * h / tp, h * fc1 / tp, (double)m->ffn_hidden * h / tp};
  double b[4] = {(q + 2 * kv) / tp, h, fc1 / tp, h};
  for (int i = 0; i < 4; i++) {
    t[n++] = w[i];
    if (m->linear_bias)
      t[n++] = b[i];
  }
  for (int i = 0; i < 2 * norm; i++)
    t[n++] = h;
  if (m->qk_norm) {
    t[n++] = (double)m->head_dim;
    t[n++] = (double)m->head_dim;
  }
  return n;
}

/* DeepSpeed v0.3.16's stage 3 (microsoft/DeepSpeed tag v0.3.16,
 * deepspeed/runtime/zero/constants.py
 * ZERO_OPTIMIZATION_PARAM_PERSISTENCE_THRESHOLD_DEFAULT, stage3.py
 * `param.ds_numel < self.persistence_threshold` -> ds_persist): parameters
 * of fewer elements stay whole on every rank and are never gathered. */
#define ZERO3_PERSIST_ELEMENTS 1e5

/* layout.zero3_list_copy_s (docs/step-model.md 2.7): DeepSpeed v0.3.16 ZeRO-3
 * gathers one parameter per call (partition_parameters.py _allgather_param,
 * called per parameter by stage3.py fetch_sub_module with async_op=True) and
 * reduce_scatters one gradient per call (_reduce_scatter_gradients ->
 * _reduce_scatter_gradient), both through the tensor-list API
 * (torch.distributed.all_gather(list of world_size views, ...),
 * reduce_scatter(out, list of world_size views)). PyTorch's
 * ProcessGroupNCCL of that time (torch/lib/c10d/ProcessGroupNCCL.cpp,
 * allgather / reduce_scatter, 1.7-1.8) runs one NCCL call on a flattened
 * buffer and one copy_ per rank (after the gather; before the
 * reduce_scatter, flatten_for_scatter_gather's copies). The host issues the
 * world_size copies while the GPU runs the NCCL call, so one call takes
 * max(NCCL time, world_size x copy_s), less the gather's narrows, which
 * precede its NCCL call (ZERO3_GATHER_PRE_SHARE). The unit's collective time is the sum
 * over its tensors: gathers of the tensors above the persistence threshold,
 * reduce_scatters of all. */
/* DeepSpeed v0.3.16 stage3.py: with activation checkpointing the recomputed
 * forward fetches a block's parameters and its post-forward hook
 * (release_sub_module) partitions them again unless _keep_for_later: the
 * parameters the traced module order uses before this module's next use
 * (get_reuse_distance_in_numel, _distance_in_numel) number fewer than
 * max_reuse_distance (constants.py ZERO_OPTIMIZATION_MAX_REUSE_DISTANCE_DEFAULT,
 * 1e9 elements). Between a module's recomputed forward and its backward run
 * the later modules' recomputed forwards and then their backwards, so the
 * distance of tensor i is twice the elements listed after it. */
#define ZERO3_REUSE_ELEMENTS 1e9
/* layout.zero3_no_reuse: in DeepSpeed v0.3.14 (PR #867, 2021-04-07) to
 * v0.5.x, setup_zero_stage3_hooks registers the reset_step pre-hook on the
 * top module after _register_hooks_recursively's own pre-hook, so each
 * forward increments the step id before resetting it and every later module
 * is looked up one trace entry too early (DeepSpeed issue #1069, 2021-05-27:
 * "the rest of the step ids in the forward pass to be off by 1"):
 * get_reuse_distance_in_numel finds another module at that entry and returns
 * its 1e12 default, so _keep_for_later is never true and every gathered
 * tensor is gathered again for its backward. */
static bool zero3_regathered(const struct pl_layout *l, const double *t, int n, int i) {
  if (l->zero3_no_reuse)
    return true;
  double after = 0;
  for (int j = i + 1; j < n; j++)
    after += t[j];
  return 2.0 * after >= ZERO3_REUSE_ELEMENTS;
}


/* Which tensors of a segment DeepSpeed 2021 gathers (above the persistence
 * threshold) and gathers again for the backward (zero3_regathered, under
 * full recompute): the rule zero3_list_calls prices the calls by. */
static void zero3_gathered(const struct pl_run *run, enum sim_seg_kind kind, const double *t,
                           int n, int i, bool *gathered, bool *again) {
  *gathered = t[i] >= ZERO3_PERSIST_ELEMENTS;
  *again = *gathered && kind == SIM_SEG_LAYER && run->layout.recompute == PL_RECOMPUTE_FULL &&
           zero3_regathered(&run->layout, t, n, i);
}

/* HBM bytes of DeepSpeed 2021's per-parameter gathers in one pass of a
 * segment (layout.zero3_list_copy_s), per gathered element and gather:
 * partition_parameters.py _allgather_param (v0.3.13-v0.5.x) first fills the
 * whole output with torch.zeros(aligned_param_size) (a write of 2 B), which
 * runs exposed: it is queued after the previous module's release
 * (_partition_param: `param.data = torch.ones(1).to(param.device)`, a
 * blocking host-to-device copy, which PyTorch's copy_kernel_cuda ends with a
 * stream synchronize) and is waited for by the gather's
 * torch.cuda.synchronize(). ProcessGroupNCCL's copies of the flat NCCL
 * output into the world_size views run on the NCCL stream behind the NCCL
 * kernel and are priced with the call (zero3_calls_s), not here.
 * The forward gathers every gathered tensor once; the backward once more
 * and, under full recompute, again the tensors zero3_regathered. */
double sim_zero3_list_gather_bytes(const struct pl_run *run, enum sim_seg_kind kind,
                                   enum pl_pass pass) {
  double t[SEG_TENSORS], bytes = 0;
  int n = seg_tensors(run, kind, t);
  if (n == 0) /* MoE blocks: not listed (one call per unit), FSDP2's copy-out */
    return (pass == PL_PASS_FWD ? 1.0 : 2.0) * 2.0 * PARAM_BYTES * sim_seg_params(run, kind);
  for (int i = 0; i < n; i++) {
    bool gathered, again;
    zero3_gathered(run, kind, t, n, i, &gathered, &again);
    double gathers = !gathered ? 0 : pass == PL_PASS_FWD ? 1 : again ? 2 : 1;
    bytes += gathers * t[i] * PARAM_BYTES;
  }
  return bytes;
}

/* The share of zero3_list_copy_s that a gather spends before its NCCL call:
 * DeepSpeed v0.3.16 partition_parameters.py _allgather_param builds its
 * world_size-long list of flat_tensor.narrow views in a Python loop after
 * torch.cuda.synchronize() and before torch.distributed.all_gather, so the
 * narrows cannot overlap the gather; only ProcessGroupNCCL's copies (its
 * post hook: collective() runs pre, the NCCL call, then post) can. The
 * preset's 22.64 us per rank is the medians of aten::narrow (7.89 us) and
 * aten::copy_ (14.75 us) of the same trace (data/frameworks/
 * deepspeed-zero3-2021.json): 7.89 / 22.64 of it precedes the call. A
 * reduce_scatter's narrows and copies (ProcessGroupNCCL's pre hook) both
 * precede its NCCL call, but _reduce_scatter_gradients issues a bucket's
 * calls back to back without synchronising, so the host's work on the next
 * call overlaps the GPU's NCCL work on this one: max() per call. */
#define ZERO3_GATHER_PRE_SHARE (7.89 / 22.64)

/* One NCCL call of op and bytes over the collective's group (0 where the
 * model has no time for it). */
static double zero3_nccl_s(const struct pl_run *run, const struct sim_coll *c, enum pl_coll_op op,
                           double bytes) {
  struct pl_coll_cost cost;
  return pl_coll_time_shared(&run->cluster, op, bytes, c->g, run->cluster.gpus_per_node,
                             PL_ALGO_AUTO, &cost) == PL_OK
             ? cost.time_s
             : 0;
}

/* The GPU's side of ProcessGroupNCCL's world_size copies of one tensor-list
 * call of bytes: PyTorch 1.8 torch/lib/c10d/ProcessGroupNCCL.cpp issues them
 * under at::cuda::CUDAStreamGuard(ncclStreams[i]), on the NCCL stream:
 * allgather's post hook copies outputFlattened[i][j] into each view after
 * the ncclAllGather, reduce_scatter's pre hook copies each input view into
 * inputFlattened before the ncclReduceScatter (collective(): pre, the NCCL
 * call, post, then the work's event on the NCCL stream). The copies move
 * every element once (a read and a write) at the GPU's hbm_fraction of its
 * bandwidth, and each of the world_size kernels costs kernel_overhead. */
static double zero3_copies_dev_s(const struct pl_run *run, double ranks, double bytes) {
  const struct pl_gpu *g = &run->cluster.gpu;
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  return (bw > 0 ? 2.0 * bytes / bw : 0) + ranks * g->eff.kernel_overhead_s;
}

/* One call per tensor of the set: a reduce_scatter max(copies + NCCL time,
 * ranks x copy_s); a gather ranks x the narrow share, then max(NCCL time +
 * copies, ranks x the rest). The GPU runs a call's copies and its NCCL
 * kernel in order on one stream (zero3_copies_dev_s) while the host issues
 * the copies: when the host is the slower, each copy runs as soon as it is
 * issued and the host's time is the call's; when the GPU is, the copies
 * follow (gather) or precede (reduce_scatter) the NCCL kernel. */
static double zero3_calls_s(const struct pl_run *run, const struct sim_coll *c, double per_elem,
                            const double *t, int n, const bool *use) {
  double ranks = (double)c->g.ranks;
  double host_s = ranks * run->layout.zero3_list_copy_s, sum = 0;
  double pre_s = c->op == PL_COLL_ALL_GATHER ? host_s * ZERO3_GATHER_PRE_SHARE : 0;
  double post_s = host_s - pre_s;
  for (int i = 0; i < n; i++) {
    if (!use[i])
      continue;
    double gpu_s = zero3_nccl_s(run, c, c->op, t[i] * per_elem) +
                   zero3_copies_dev_s(run, ranks, t[i] * per_elem);
    sum += pre_s + (gpu_s > post_s ? gpu_s : post_s);
  }
  return sum;
}

/* DeepSpeed v0.3.16 stage3.py: after every backward,
 * FP16_DeepSpeedZeroOptimizer_Stage3.backward calls _partition_all_parameters,
 * whose release_and_reset_parameter partitions every parameter still whole,
 * the persistent ones (ds_persist, under ZERO3_PERSIST_ELEMENTS) included;
 * step() ends in _post_step, which gathers the persistent parameters back in
 * one synchronous call (persistent_parameters[0].all_gather(...) ->
 * partition_parameters.py _all_gather(async_op=False) -> _allgather_params;
 * the same in v0.3.13). _allgather_params gathers their concatenated
 * partitions in one tensor-list all_gather (world_size narrows, then
 * ProcessGroupNCCL's world_size copies: one zero3 call), then, per
 * parameter and per rank whose partition holds any of it, runs
 * partitions[i].narrow, replicated_tensor.view(-1), .narrow and .copy_ in a
 * Python loop. With the trace medians behind zero3_list_copy_s (narrow 7.89
 * us, copy_ 14.75 us) and aten::view's (2.63 us, 1,140 ops of the same
 * trace, tests/data/traces/gt_h100_llama3.2-1b_seq4096.json.gz), one
 * iteration is (22.64 + 7.89 + 2.63) / 22.64 of zero3_list_copy_s. */
#define ZERO3_PERSIST_LOOP_SHARE ((22.64 + 7.89 + 2.63) / 22.64)

/* The ranks whose partition of a tensor of numel elements holds any of it:
 * DeepSpeed pads a tensor to a multiple of world_size
 * (partition_parameters.py _aligned_size / _padding_size), so a partition is
 * ceil(numel / ranks) elements and _allgather_params copies from the ranks
 * whose partition starts below numel (param_start < param_size). */
static double zero3_ranks_with_data(double numel, double ranks) {
  double part = ceil(numel / ranks);
  return part > 0 ? fmin(ranks, ceil(numel / part)) : 0;
}

enum pl_status sim_zero3_persist_gather(struct sim_step *st, double elems, double host_s,
                                        int32_t *out, struct pl_diag *diag) {
  const struct pl_run *run = st->run;
  *out = SIM_NONE;
  if (run->layout.zero3_list_copy_s <= 0 || elems <= 0)
    return PL_OK;
  int32_t before = st->n_colls;
  enum pl_status r = sim_coll_add(st, PL_COLL_ALL_GATHER, "dp", elems * PARAM_BYTES, out, diag);
  if (r != PL_OK || *out < before) /* none, or a collective of the same size already priced */
    return r;
  struct sim_coll *c = &st->colls[*out];
  double one = 1.0;
  bool use = true;
  c->time_s = zero3_calls_s(run, c, c->bytes, &one, 1, &use) + host_s;
  return PL_OK;
}

/* layout.zero3_grad_all_reduce: DeepSpeed ZeRO-3 with its default config
 * reduces gradients by all_reduce, not by the per-parameter reduce_scatter:
 * deepspeed/runtime/zero/constants.py ZERO3_OPTIMIZATION_CONTIGUOUS_GRADIENTS_DEFAULT
 * = False in every tag from v0.3.13 (2021-03-16) to v0.4.2 (2021-06-28), and
 * stage3.py reduce_ipg_grads without contiguous_gradients takes
 * buffered_reduce_fallback below whatever reduce_scatter says. Each gradient's
 * hook (stage3.py reduce_independent_p_g_buckets_and_remove_grads) adds it to
 * the ipg bucket and, when the bucket's elements plus the new gradient's
 * exceed reduce_bucket_size (ZERO_OPTIMIZATION_REDUCE_BUCKET_SIZE_DEFAULT,
 * 5e8 elements), first reduces the bucket (reduce_ipg_grads ->
 * buffered_reduce_fallback -> allreduce_no_retain -> allreduce_and_copy ->
 * allreduce_bucket: flatten, div_, one dist.all_reduce of the whole bucket,
 * then a copy back per gradient), so a gradient larger than the bucket is
 * reduced alone. With contiguous_gradients true (as DeepSpeedExamples
 * Megatron-LM-v1.1.5-ZeRO3/examples/ds_zero_stage_3_config.json, 2cd968f2,
 * 2021-03-08, sets it, reduce_scatter unset) average_tensor all_reduces too
 * (gradient_reduction_w_predivide) when reduce_scatter is false, its default
 * in v0.3.16 (ZERO_OPTIMIZATION_REDUCE_SCATTER_DEFAULT, DeepSpeed #971,
 * back to True in #1058, 2021-05-21), and reduce_scatters per parameter
 * otherwise (zero3_calls_s). One all_reduce per bucket, no per-rank list
 * copies. The
 * gradients are bucketed in backward order (the tensors reversed) within
 * the unit: a bucket that DeepSpeed carries over into the next unit's
 * gradients is here reduced at the unit's end, so a model whose block
 * holds less than a bucket is charged one call per block. */
#define ZERO3_REDUCE_BUCKET_ELEMENTS 5e8
/* The device passes around one bucket's all_reduce (DeepSpeed v0.3.16
 * stage3.py allreduce_bucket and allreduce_and_copy, on the reduction
 * stream like the all_reduce): self.flatten (csrc/utils/flatten_unflatten.cpp
 * -> torch::utils::flatten_dense_tensors: at::cat of the bucket's gradients,
 * a read and a write of each element, but the tensor itself, no copy, when
 * the bucket holds one), tensor.div_(world_size) in place (a read and a
 * write), and after the all_reduce buf.copy_(synced) per gradient from
 * unflatten's views of the flat tensor (a read and a write; none for a
 * one-tensor bucket, whose view is the gradient itself: PyTorch's copy_impl
 * returns early when self and src are views of the same data). Each pass
 * streams through HBM at the GPU's hbm_fraction of its bandwidth, plus one
 * kernel_overhead per kernel (cat, div_, and one copy per gradient). */
static double zero3_bucket_passes_s(const struct pl_run *run, double elems, double per_elem,
                                    int tensors) {
  const struct pl_gpu *g = &run->cluster.gpu;
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  double passes = tensors > 1 ? 3.0 : 1.0, kernels = tensors > 1 ? 2.0 + tensors : 1.0;
  return (bw > 0 ? passes * 2.0 * elems * per_elem / bw : 0) + kernels * g->eff.kernel_overhead_s;
}

static double zero3_all_reduce_s(const struct pl_run *run, const struct sim_coll *c,
                                 double per_elem, const double *t, int n) {
  double sum = 0, fill = 0;
  int tensors = 0;
  for (int i = n; i-- > 0;) {
    if (fill > 0 && fill + t[i] > ZERO3_REDUCE_BUCKET_ELEMENTS) {
      sum += zero3_nccl_s(run, c, PL_COLL_ALL_REDUCE, fill * per_elem) +
             zero3_bucket_passes_s(run, fill, per_elem, tensors);
      fill = 0;
      tensors = 0;
    }
    fill += t[i];
    tensors++;
  }
  if (fill > 0)
    sum += zero3_nccl_s(run, c, PL_COLL_ALL_REDUCE, fill * per_elem) +
           zero3_bucket_passes_s(run, fill, per_elem, tensors);
  return sum;
}

static enum pl_status zero3_list_calls(struct sim_step *st, enum sim_seg_kind kind,
                                       struct sim_seg *s, struct pl_diag *diag) {
  const struct pl_run *run = st->run;
  double t[SEG_TENSORS];
  bool all[SEG_TENSORS], gathered[SEG_TENSORS], again[SEG_TENSORS], persist[SEG_TENSORS];
  int n = seg_tensors(run, kind, t);
  if (run->layout.zero3_list_copy_s <= 0 || n == 0)
    return PL_OK;
  double again_elems = 0;
  double ranks = s->rs >= 0 ? (double)st->colls[s->rs].g.ranks : 1;
  double loop_s = run->layout.zero3_list_copy_s * ZERO3_PERSIST_LOOP_SHARE;
  for (int i = 0; i < n; i++) {
    all[i] = true;
    zero3_gathered(run, kind, t, n, i, &gathered[i], &again[i]);
    persist[i] = !gathered[i];
    if (!gathered[i]) {
      s->z3_persist_elems += t[i];
      s->z3_persist_host_s += zero3_ranks_with_data(t[i], ranks) * loop_s;
    }
    again_elems += again[i] ? t[i] : 0;
  }
  if (s->rs >= 0 && run->layout.zero3_grad_all_reduce)
    st->colls[s->rs].time_s =
        zero3_all_reduce_s(run, &st->colls[s->rs], st->colls[s->rs].bytes / s->params, t, n);
  else if (s->rs >= 0)
    st->colls[s->rs].time_s =
        zero3_calls_s(run, &st->colls[s->rs], st->colls[s->rs].bytes / s->params, t, n, all);
  if (s->ag < 0)
    return PL_OK;
  double per_elem = st->colls[s->ag].bytes / s->params;
  st->colls[s->ag].time_s = zero3_calls_s(run, &st->colls[s->ag], per_elem, t, n, gathered);
  enum pl_status r = PL_OK;
  /* DeepSpeed v0.3.16: every backward ends in _partition_all_parameters
   * (persistent parameters included, sim_zero3_persist_gather), and the next
   * micro-batch's forward fetch_sub_module gathers them back one per call
   * (_all_gather(async_op=True) -> _allgather_param) */
  if (s->z3_persist_elems > 0 && run->layout.micro_batches > 1) {
    r = sim_coll_add(st, PL_COLL_ALL_GATHER, "dp", s->z3_persist_elems * per_elem, &s->ag3, diag);
    if (r == PL_OK && s->ag3 >= 0)
      st->colls[s->ag3].time_s = zero3_calls_s(run, &st->colls[s->ag3], per_elem, t, n, persist);
  }
  if (r != PL_OK || again_elems <= 0)
    return r;
  r = sim_coll_add(st, PL_COLL_ALL_GATHER, "dp", again_elems * per_elem, &s->ag2, diag);
  if (r == PL_OK && s->ag2 >= 0)
    st->colls[s->ag2].time_s = zero3_calls_s(run, &st->colls[s->ag2], per_elem, t, n, again);
  return r;
}

/* Bytes per gradient element an FSDP unit's reduce_scatter (and HSDP's
 * replica all_reduce) moves: fp32 by default (PyTorch FSDP MixedPrecision
 * reduce_dtype float32 as torchtitan and Composer's DEFAULT set it), the
 * 16-bit parameter dtype with layout.grad_reduce_bf16: FSDP reduce_dtype bf16
 * (MosaicML Composer composer/trainer/mosaic_fsdp_utils.py
 * get_mixed_precision, 'PURE': reduce_dtype = the precision's dtype) and
 * DeepSpeed's fp16 ZeRO-3 (v0.3.16 deepspeed/runtime/zero/stage3.py
 * reduce_independent_p_g_buckets_and_remove_grads copies each fp16
 * param.grad into the ipg buffer of self.dtype, and average_tensor
 * reduce_scatters it without a cast: allreduce_always_fp32 is off by
 * default). The search bound counts the same (search_grad_bytes). */
static double fsdp_grad_bytes(const struct pl_layout *l) {
  return l->grad_reduce_bf16 ? PARAM_BYTES : GRAD_BYTES;
}

/* The experts' own FSDP unit over the expert-data-parallel ranks (edp > 1;
 * sim_fsdp_expert_params): NVIDIA-NeMo/Automodel moe/parallelizer.py
 * apply_fsdp's fully_shard(block.mlp.experts, mesh=ep_shard_mesh), a child
 * unit of the block's, whose all_gather FSDP2 issues on the same all-gather
 * stream right after its parent's and whose reduce_scatter on the same
 * reduce-scatter stream: lower.c runs each back to back with the block
 * unit's call of its kind (s->eag, s->ers). None with edp 1 (sim_coll_add
 * gives no collective for a 1-rank group). */
static enum pl_status expert_unit(struct sim_step *st, struct sim_seg *s, double ex, double gb,
                                  struct pl_diag *diag) {
  enum pl_status r = sim_coll_add(st, PL_COLL_ALL_GATHER, "edp", ex * PARAM_BYTES, &s->eag, diag);
  if (r == PL_OK)
    r = sim_coll_add(st, PL_COLL_REDUCE_SCATTER, "edp", ex * gb, &s->ers, diag);
  return r;
}

/* FSDP colls of a unit of the given parameters (zero2/zero3 only). */
enum pl_status sim_seg_fsdp(struct sim_step *st, enum sim_seg_kind kind, struct sim_seg *s,
                            struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  if (l->shard != PL_SHARD_ZERO2 && l->shard != PL_SHARD_ZERO3)
    return PL_OK;
  double gb = fsdp_grad_bytes(l);
  /* layout.fsdp_root_unit: the root's unit gathers and reduces the
   * embedding, final norm and LM head together (sim_int.h); the head has
   * none of its own */
  double params = s->params;
  /* the unit's gathered parameters: its trainable ones and, under LoRA, the
   * frozen base weights, which FSDP2 gathers for every forward (and, with
   * reshard_after_forward, every backward) but never reduces
   * (sim_seg_gathered_params) */
  double gathered = sim_seg_gathered_params(st->run, kind);
  if (sim_fsdp_root_unit(l) && kind == SIM_SEG_HEAD)
    return PL_OK;
  if (sim_fsdp_root_unit(l) && kind == SIM_SEG_EMBED) {
    params += sim_seg_params(st->run, SIM_SEG_HEAD);
    gathered += sim_seg_gathered_params(st->run, SIM_SEG_HEAD);
  }
  /* the routed experts: not in the dp unit (sim_fsdp_expert_params) */
  double ex = sim_fsdp_expert_params(st->run, kind);
  params -= ex;
  gathered -= ex;
  /* layout.fp8_all_gather: the blocks' GEMM weights gathered at 1 B */
  double ag_bytes = gathered * PARAM_BYTES;
  if (kind == SIM_SEG_LAYER)
    ag_bytes -= pl_layout_fp8_gathered_weights(&st->run->model, &st->run->layout) * (PARAM_BYTES - pl_dtype_element_bytes(l->dtype));
  enum pl_status r = sim_coll_add(st, PL_COLL_ALL_GATHER, "dp", ag_bytes, &s->ag, diag);
  /* layout.zero3_grad_all_reduce: DeepSpeed ZeRO-3's default config
   * all_reduces whole gradients (zero3_all_reduce_s) */
  enum pl_coll_op rs_op = l->shard == PL_SHARD_ZERO3 && l->zero3_grad_all_reduce
                              ? PL_COLL_ALL_REDUCE
                              : PL_COLL_REDUCE_SCATTER;
  if (r == PL_OK)
    r = sim_coll_add(st, rs_op, "dp", params * gb, &s->rs, diag);
  if (r == PL_OK && ex > 0)
    r = expert_unit(st, s, ex, gb, diag);
  if (r == PL_OK && l->shard == PL_SHARD_ZERO3)
    r = zero3_list_calls(st, kind, s, diag);
  if (r == PL_OK && l->shard_group < l->dp)
    r = sim_coll_add(st, PL_COLL_ALL_REDUCE, "dp-replica", params * gb / (double)pl_layout_shard_ranks(l),
                     &s->ar, diag);
  return r;
}
