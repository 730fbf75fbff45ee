/* segments.c: the cost of each model segment (embedding, one transformer
 * block, LM head) for one micro-batch on one GPU, and the collectives tied to
 * it (docs/step-model.md section 4).
 *
 * Compute: the segment's ops (src/model/flops.c) timed by compute.c; the
 * backward includes the forward of ops marked for recomputation (full: the
 * whole block; selective: the attention core). With cp > 1 the attention core
 * is kept apart so the K/V ring can overlap it.
 * Tensor parallelism (Megatron-LM, Shoeybi et al. 2019; sequence parallelism
 * Korthikanti et al. 2022 Sec. 4.2.2), per block, activations b*s*h in bf16:
 *   with sp:    fwd 2 all_gather + 2 reduce_scatter, bwd the same (conjugates);
 *   without sp: fwd 2 all_reduce, bwd 2 all_reduce;
 *   full recomputation repeats the forward's collectives in the backward.
 *   Embedding (vocab-parallel): fwd reduce_scatter (sp) or all_reduce, bwd
 *   all_gather (sp). LM head: fwd all_gather (sp), bwd reduce_scatter (sp) or
 *   all_reduce. Ignored: the extra all_gather Megatron's sp backward issues to
 *   recompute the wgrad input (overlapped with dgrad), the three small
 *   all_reduces of the vocab-parallel cross-entropy.
 * Context parallelism (Megatron/TransformerEngine ring attention): per block
 * cp - 1 send/recv steps of the local K and V chunk in the forward, of K, V
 * and dK, dV in the backward, overlapping the attention core.
 * Expert parallelism (MoE blocks): the dispatch and combine collectives of
 * a block, moe_comm.c (sim_layer_moe).
 * FSDP units (zero2/zero3): one per segment; all_gather of its bf16
 * parameters, reduce_scatter of its gradients in fp32 (FSDP2
 * MixedPrecisionPolicy as torchtitan configures it: param bf16, reduce fp32),
 * and with hybrid sharding an all_reduce of the reduced shard across replicas
 * (FSDP HYBRID_SHARD). */
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "sim/sim_int.h"

#include "model/constants.h"

void sim_comm_set(struct sim_comm *c, int32_t coll, int32_t calls) {
  c->coll = coll;
  c->calls = coll >= 0 ? calls : 0;
}

static void seg_clear(struct sim_seg *s) {
  memset(s, 0, sizeof *s);
  for (int p = 0; p < 2; p++) {
    for (int i = 0; i < SIM_SEG_TP; i++)
      sim_comm_set(&s->tp[p][i], SIM_NONE, 0);
    sim_comm_set(&s->cp[p], SIM_NONE, 0);
  }
  sim_comm_set(&s->cp_dkv, SIM_NONE, 0);
  sim_comm_set(&s->te_in_ag, SIM_NONE, 0);
  s->ag = s->ag2 = s->ag3 = s->rs = s->ar = SIM_NONE;
}

/* The share of a pass's compute that one of Megatron-Core's schedule nodes
 * runs (in_node: pl_op_moe_mlp_node, the routed and shared experts; or
 * pl_op_mtp_attn_node), by the ops' GPU time at full speed; the per-block
 * lumps of no one node (pl_op_node_free: the FP8 casts, the gradient
 * accumulation) split pro rata. 0 when no op is in the node. */
static double node_share(const struct pl_gpu *g, const struct pl_layout *l,
                         const struct pl_model *m, const struct pl_op *ops, int n, enum pl_pass p,
                         bool (*in_node)(const struct pl_op *)) {
  double mlp = 0, rest = 0;
  for (int i = 0; i < n; i++) {
    if (pl_op_node_free(&ops[i]))
      continue;
    double t = (ops[i].share > 0 ? ops[i].share : 1.0) * pl_op_run_time_s(g, l, m, &ops[i], p);
    if (in_node(&ops[i]))
      mlp += t;
    else
      rest += t;
  }
  return mlp + rest > 0 ? mlp / (mlp + rest) : 0.0;
}

/* wait: the MoE dispatcher's wait in the forward and a recomputed forward
 * (moe_sync.c), or NULL. */
static void seg_compute(struct sim_step *st, struct sim_seg *s, const struct pl_op *ops, int n,
                        bool split_attn, const struct sim_moe_wait *wait) {
  const struct pl_gpu *g = &st->run->cluster.gpu;
  const struct pl_layout *l = &st->run->layout;
  const struct pl_model *m = &st->run->model;
  for (int p = 0; p < 2; p++) {
    s->comp_s[p] = sim_seg_ops_s(g, l, m, ops, n, (enum pl_pass)p, false, wait);
    if (split_attn) {
      s->attn_s[p] = sim_seg_ops_s(g, l, m, ops, n, (enum pl_pass)p, true, NULL);
      s->comp_s[p] -= s->attn_s[p];
    }
    if (p == PL_PASS_BWD && l->te_linear_bwd_overlap)
      for (int i = 0; i < n; i++) {
        int k = pl_op_te_column(&ops[i]);
        if (k >= 0)
          s->te_column_s[k] += (ops[i].share > 0 ? ops[i].share : 1.0) *
                               pl_op_run_time_s(g, l, m, &ops[i], PL_PASS_BWD);
      }
    if (l->async_tp)
      for (int i = 0; i < n; i++) {
        int k = pl_op_tp_linear(&ops[i]);
        if (k < 0)
          continue;
        double share = ops[i].share > 0 ? ops[i].share : 1.0;
        s->atp_lin_s[p][k] += share * pl_op_run_time_s(g, l, m, &ops[i], (enum pl_pass)p);
        struct pl_op part; /* as sim_seg_ops_s: the recomputed forward (or a fused GEMM's part) */
        if (p == PL_PASS_BWD && pl_op_recompute_part(&ops[i], &part))
          s->atp_rf_s[k] += share * pl_op_run_time_s(g, l, m, &part, PL_PASS_FWD);
      }
    if (l->ep_comm_overlap && !split_attn) {
      s->experts_s[p] = s->comp_s[p] * node_share(g, l, m, ops, n, (enum pl_pass)p,
                                                  pl_op_moe_mlp_node);
      s->in_layer_s[p] = s->comp_s[p] * node_share(g, l, m, ops, n, (enum pl_pass)p,
                                                   pl_op_mtp_attn_node);
    }
  }
  /* recompute full on a share f of the blocks (recompute_layers/every): the
   * average block's backward, f of it with the forward re-run */
  double f = pl_recompute_share(m, l);
  if (l->recompute != PL_RECOMPUTE_FULL || f >= 1.0 || n > PL_MAX_LAYER_OPS)
    return;
  struct pl_op kept[PL_MAX_LAYER_OPS];
  memcpy(kept, ops, (size_t)n * sizeof kept[0]);
  for (int i = 0; i < n; i++)
    kept[i].recompute = false;
  double comp = sim_seg_ops_s(g, l, m, kept, n, PL_PASS_BWD, false, NULL);
  double attn = split_attn ? sim_seg_ops_s(g, l, m, kept, n, PL_PASS_BWD, true, NULL) : 0.0;
  s->comp_s[PL_PASS_BWD] = (1.0 - f) * (comp - attn) + f * s->comp_s[PL_PASS_BWD];
  s->attn_s[PL_PASS_BWD] = (1.0 - f) * attn + f * s->attn_s[PL_PASS_BWD];
}

/* Register op over tp for an activation of elem_bytes per element and store
 * it in *out. */
static enum pl_status tp_comm_sized(struct sim_step *st, struct sim_comm *out, enum pl_coll_op op,
                                    int32_t calls, double elem_bytes, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  double act =
      (double)l->mbs * (double)(l->seq / l->cp) * (double)st->run->model.hidden * elem_bytes;
  int32_t c;
  enum pl_status r = sim_coll_add(st, op, "tp", act, &c, diag);
  sim_comm_set(out, c, calls);
  return r;
}

/* Register op over tp for a 16-bit activation and store it as entry i of pass p. */
static enum pl_status tp_comm(struct sim_step *st, struct sim_seg *s, int p, int i,
                              enum pl_coll_op op, int32_t calls, struct pl_diag *diag) {
  return tp_comm_sized(st, &s->tp[p][i], op, calls, ACT_BYTES, diag);
}


static enum pl_status layer_tp(struct sim_step *st, struct sim_seg *s, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  /* per block and pass: two (attention, MLP); one in a hybrid stack, whose
   * blocks hold a single mixer (Megatron-Core MambaLayer: the Mamba mixer's
   * row-parallel out_proj; TransformerLayer with only attention or an MLP) */
  int32_t per = pl_model_is_hybrid(&st->run->model) ? 1 : 2;
  /* the recomputed forward's collectives; with recompute on a share f of
   * the blocks, per * f per average block, rounded to whole calls */
  int32_t extra = l->recompute == PL_RECOMPUTE_FULL
                      ? (int32_t)lround(per * pl_recompute_share(&st->run->model, l))
                      : 0;
  /* recompute ops (flops.c mark_recompute): the two all_gathers before
   * attention and the MLP are re-run, the reduce_scatters saved
   * (_c10d_functional.reduce_scatter_tensor is in torchtitan's
   * _op_sac_save_list); without SP both all_reduces are re-run (not saved) */
  int32_t extra_ag = l->recompute == PL_RECOMPUTE_OPS ? per : extra;
  enum pl_status r;
  if (l->sp) {
    double fwd_ag = pl_layout_tp_gather_bytes(l, PL_TP_GATHER_FWD);
    /* the backward entry holds the grad_output gathers and the recomputed
     * forward's input gathers: their mean size per call */
    double bwd_ag = (per * pl_layout_tp_gather_bytes(l, PL_TP_GATHER_GRAD) + extra_ag * fwd_ag) /
                    (double)(per + extra_ag);
    r = tp_comm_sized(st, &s->tp[PL_PASS_FWD][0], PL_COLL_ALL_GATHER, per, fwd_ag, diag);
    if (r == PL_OK)
      r = tp_comm(st, s, PL_PASS_FWD, 1, PL_COLL_REDUCE_SCATTER, per, diag);
    if (r == PL_OK)
      r = tp_comm_sized(st, &s->tp[PL_PASS_BWD][0], PL_COLL_ALL_GATHER, per + extra_ag, bwd_ag,
                        diag);
    if (r == PL_OK)
      r = tp_comm(st, s, PL_PASS_BWD, 1, PL_COLL_REDUCE_SCATTER, per + extra, diag);
    /* lower.c te_bwd_windows: one re-gather per column-parallel linear */
    if (r == PL_OK)
      r = tp_comm_sized(st, &s->te_in_ag, PL_COLL_ALL_GATHER, per,
                        pl_layout_tp_gather_bytes(l, PL_TP_GATHER_REGATHER), diag);
    return r;
  }
  if (l->recompute == PL_RECOMPUTE_OPS)
    extra = per;
  r = tp_comm(st, s, PL_PASS_FWD, 0, PL_COLL_ALL_REDUCE, per, diag);
  if (r == PL_OK)
    r = tp_comm(st, s, PL_PASS_BWD, 0, PL_COLL_ALL_REDUCE, per + extra, diag);
  return r;
}

/* Embedding: fwd reduce_scatter (sp) or all_reduce; bwd all_gather (sp). */
static enum pl_status embed_tp(struct sim_step *st, struct sim_seg *s, struct pl_diag *diag) {
  if (!st->run->layout.sp)
    return tp_comm(st, s, PL_PASS_FWD, 0, PL_COLL_ALL_REDUCE, 1, diag);
  enum pl_status r = tp_comm(st, s, PL_PASS_FWD, 0, PL_COLL_REDUCE_SCATTER, 1, diag);
  if (r == PL_OK)
    r = tp_comm(st, s, PL_PASS_BWD, 0, PL_COLL_ALL_GATHER, 1, diag);
  return r;
}

/* LM head: fwd all_gather (sp); bwd reduce_scatter (sp) or all_reduce. Each
 * MTP module (layout.mtp_layers; Megatron-Core multi_token_prediction.py
 * _concat_embeddings) adds its eh_proj, a ColumnParallelLinear of a 2h-wide
 * input (with sp: all_gather of it, two h-sized calls, reduce_scatter of its
 * gradient; without: all_reduce of its gradient), the gather of its h/tp-wide
 * output (gather_from_tensor_model_parallel_region: an all_gather, whose
 * backward is a split) and one more output-layer pass. */
static enum pl_status head_tp(struct sim_step *st, struct sim_seg *s, struct pl_diag *diag) {
  int32_t k = (int32_t)st->run->layout.mtp_layers;
  enum pl_status r = PL_OK;
  if (!st->run->layout.sp) {
    r = tp_comm(st, s, PL_PASS_BWD, 0, PL_COLL_ALL_REDUCE, 1 + 2 * k, diag);
    if (r == PL_OK && k > 0)
      r = tp_comm(st, s, PL_PASS_FWD, 0, PL_COLL_ALL_GATHER, k, diag);
    return r;
  }
  r = tp_comm(st, s, PL_PASS_FWD, 0, PL_COLL_ALL_GATHER, 1 + 4 * k, diag);
  if (r == PL_OK)
    r = tp_comm(st, s, PL_PASS_BWD, 0, PL_COLL_REDUCE_SCATTER, 1 + 3 * k, diag);
  return r;
}

/* layout.cp_allgather: PyTorch's context_parallel with the allgather
 * rotater (torch/distributed/tensor/experimental/_attention.py, PyTorch 2.6
 * line: _templated_ring_attention, _templated_ring_attention_backward,
 * _AllGatherRotater; torchtitan's default context_parallel_rotate_method
 * 'allgather', config_manager.py @ 9dec370). torchtitan repeats K and V to
 * every query head before SDPA (models/llama/model.py Attention.forward,
 * repeat_kv @ 9dec370), so the exchanged K/V has heads / tp heads. Per ring
 * (one forward, one backward, one recomputed forward): one all_gather of the
 * rank's K/V (torch.cat of k and v, 16-bit) over cp; the backward also rotates
 * the fp32 dK/dV accumulators (convert_to_f32) with an all_to_all to the next
 * rank (ft_c.permute_tensor: one peer, priced as a send/recv) after each of
 * its cp steps. */
static enum pl_status layer_cp_allgather(struct sim_step *st, struct sim_seg *s,
                                         struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  const struct pl_model *m = &st->run->model;
  double kv = 2.0 * (double)l->mbs * (double)(l->seq / l->cp) * (double)(m->heads / l->tp) *
              (double)m->head_dim; /* elements of the rank's K and V */
  int32_t ag, dkv;
  enum pl_status r = sim_coll_add(st, PL_COLL_ALL_GATHER, "cp", (double)l->cp * kv * ACT_BYTES,
                                  &ag, diag);
  if (r == PL_OK)
    r = sim_coll_add(st, PL_COLL_SEND_RECV, "cp", kv * 4.0, &dkv, diag);
  if (r != PL_OK)
    return r;
  sim_comm_set(&s->cp[PL_PASS_FWD], ag, 1);
  sim_comm_set(&s->cp[PL_PASS_BWD], ag, 1);
  sim_comm_set(&s->cp_dkv, dkv, (int32_t)l->cp);
  return PL_OK;
}

static enum pl_status layer_cp(struct sim_step *st, struct sim_seg *s, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  const struct pl_model *m = &st->run->model;
  if (l->cp_allgather)
    return layer_cp_allgather(st, s, diag);
  double kv = 2.0 * (double)l->mbs * (double)(l->seq / l->cp) * (double)(m->kv_heads / l->tp) *
              (double)m->head_dim * ACT_BYTES;
  int32_t f, b;
  enum pl_status r = sim_coll_add(st, PL_COLL_SEND_RECV, "cp", kv, &f, diag);
  if (r == PL_OK)
    r = sim_coll_add(st, PL_COLL_SEND_RECV, "cp", 2.0 * kv, &b, diag);
  if (r != PL_OK)
    return r;
  sim_comm_set(&s->cp[PL_PASS_FWD], f, (int32_t)(l->cp - 1));
  sim_comm_set(&s->cp[PL_PASS_BWD], b, (int32_t)(l->cp - 1));
  return PL_OK;
}

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

static double seg_params(const struct pl_run *run, enum sim_seg_kind kind);

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
 * torch.cuda.synchronize(); then ProcessGroupNCCL's post hook copies the
 * flat NCCL output into the world_size views (a read and a write of 2 B).
 * The forward gathers every gathered tensor once; the backward once more
 * and, under full recompute, again the tensors zero3_regathered. */
static double zero3_list_gather_bytes(const struct pl_run *run, enum sim_seg_kind kind,
                                      enum pl_pass pass) {
  double t[SEG_TENSORS], bytes = 0;
  int n = seg_tensors(run, kind, t);
  if (n == 0) /* MoE blocks: not listed (one call per unit), FSDP2's copy-out */
    return (pass == PL_PASS_FWD ? 1.0 : 2.0) * 2.0 * PARAM_BYTES * seg_params(run, kind);
  for (int i = 0; i < n; i++) {
    bool gathered, again;
    zero3_gathered(run, kind, t, n, i, &gathered, &again);
    double gathers = !gathered ? 0 : pass == PL_PASS_FWD ? 1 : again ? 2 : 1;
    bytes += gathers * t[i] * 3.0 * PARAM_BYTES;
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

/* One call per tensor of the set: a reduce_scatter max(NCCL time, ranks x
 * copy_s); a gather ranks x the narrow share, then max(NCCL time, ranks x
 * the rest). */
static double zero3_calls_s(const struct pl_run *run, const struct sim_coll *c, double per_elem,
                            const double *t, int n, const bool *use) {
  double host_s = (double)c->g.ranks * run->layout.zero3_list_copy_s, sum = 0;
  double pre_s = c->op == PL_COLL_ALL_GATHER ? host_s * ZERO3_GATHER_PRE_SHARE : 0;
  double post_s = host_s - pre_s;
  for (int i = 0; i < n; i++) {
    if (!use[i])
      continue;
    double nccl_s = zero3_nccl_s(run, c, c->op, t[i] * per_elem);
    sum += pre_s + (nccl_s > post_s ? nccl_s : post_s);
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

/* layout.fp8_all_gather: with fp8-tensorwise (torchao Float8Linear) under
 * zero2/zero3, each Float8Linear weight is a WeightWithDynamicFloat8CastTensor
 * whose fsdp_pre_all_gather casts the local shard to FP8, so FSDP2 gathers
 * 1 B per element and the forward and backward take the gathered FP8 weight
 * as already cast (torchao/float8/fsdp_utils.py; float8_linear.py
 * tensor_already_casted_to_fp8); with Transformer Engine's per-tensor FP8
 * recipes, Megatron FSDP's fp8_param_gather gathers the uint8 data of FP8
 * parameters (pl_layout_te_fp8_params). True only for the blocks' GEMM
 * weights of a dense model with standard attention; for MoE experts and MLA
 * blocks the behaviour changes nothing (not modelled). */
static double fp8_gathered_weights(const struct pl_run *run) {
  return pl_layout_fp8_gathered_weights(&run->model, &run->layout);
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

/* FSDP colls of a unit of the given parameters (zero2/zero3 only). */
static enum pl_status seg_fsdp(struct sim_step *st, enum sim_seg_kind kind, struct sim_seg *s,
                               struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  if (l->shard != PL_SHARD_ZERO2 && l->shard != PL_SHARD_ZERO3)
    return PL_OK;
  double gb = fsdp_grad_bytes(l);
  /* layout.fp8_all_gather: the blocks' GEMM weights gathered at 1 B */
  double ag_bytes = s->params * PARAM_BYTES;
  if (kind == SIM_SEG_LAYER)
    ag_bytes -= fp8_gathered_weights(st->run) * (PARAM_BYTES - pl_dtype_element_bytes(l->dtype));
  enum pl_status r = sim_coll_add(st, PL_COLL_ALL_GATHER, "dp", ag_bytes, &s->ag, diag);
  /* layout.zero3_grad_all_reduce: DeepSpeed ZeRO-3's default config
   * all_reduces whole gradients (zero3_all_reduce_s) */
  enum pl_coll_op rs_op = l->shard == PL_SHARD_ZERO3 && l->zero3_grad_all_reduce
                              ? PL_COLL_ALL_REDUCE
                              : PL_COLL_REDUCE_SCATTER;
  if (r == PL_OK)
    r = sim_coll_add(st, rs_op, "dp", s->params * gb, &s->rs, diag);
  if (r == PL_OK && l->shard == PL_SHARD_ZERO3)
    r = zero3_list_calls(st, kind, s, diag);
  if (r == PL_OK && l->shard_group < l->dp)
    r = sim_coll_add(st, PL_COLL_ALL_REDUCE, "dp-replica", s->params * gb / (double)l->shard_group,
                     &s->ar, diag);
  return r;
}

static void mem_op(struct pl_op *op, const char *name, double fwd_bytes, double bwd_bytes,
                   bool recompute) {
  memset(op, 0, sizeof *op);
  op->name = name;
  op->kind = PL_OP_MEMORY;
  op->count = 1;
  op->share = 1.0;
  op->fwd_bytes = fwd_bytes;
  op->bwd_bytes = bwd_bytes;
  op->recompute = recompute;
}

/* A layer's token counts on one rank for one micro-batch: tokens (mbs x
 * seq / cp) and tokens_n, what the norm/residual region holds (divided by tp
 * under sequence parallelism). */
struct layer_tokens {
  int64_t tp;
  double tokens, tokens_n;
};

/* Width of the QKV GEMM's output on one tp rank: q, k and v heads. */
static double qkv_width(const struct pl_model *m, int64_t tp) {
  return (double)(m->heads + 2 * m->kv_heads) / (double)tp * (double)m->head_dim;
}

static struct layer_tokens layer_tokens_of(const struct pl_run *run) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  int64_t tp = l->tp > 0 ? l->tp : 1, seq = l->seq > 0 ? l->seq : m->seq_len;
  double tokens = (double)(l->mbs > 0 ? l->mbs : 1) * (double)(seq / (l->cp > 0 ? l->cp : 1));
  return (struct layer_tokens){tp, tokens, l->sp && tp > 1 ? tokens / (double)tp : tokens};
}

/* Kernels Megatron-LM runs around a block's GEMMs that the op list
 * (src/model/flops.c) folds away, appended to ops[0 .. n):
 *  - bias gradients (model.linear_bias): every linear's bias gradient is its
 *    own reduction over the tokens, reading the whole output gradient once:
 *    ColumnParallelLinear's backward `grad_bias = grad_output.sum(dim=0)`
 *    (megatron/mpu/layers.py, LinearWithGradAccumulationAndAsyncAllreduce)
 *    for qkv, and autograd's broadcast-reduction for the biases Megatron
 *    adds outside the GEMM (skip_bias_add: fc1 into bias_gelu, proj and fc2
 *    into bias_dropout_add, megatron/model/transformer.py). Bytes: 2 per
 *    output element, on tokens x width (proj, fc2: the sp-sharded tokens);
 *  - dropout masks (model.dropout): each of the two fused bias-dropout-add
 *    kernels writes a 1-byte mask per element (forward; again when the
 *    forward is recomputed), and the backward of each is its own kernel
 *    reading the gradient and the mask and writing the gradient (5 B per
 *    element; torch.jit bias_dropout_add_fused_train has no fused backward
 *    with the residual add, megatron/model/fused_bias_dropout.py era 2021-22).
 * No FLOPs are counted for them (memory-bound; docs/model.md counts GEMMs). */
static int megatron_kernels(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  struct layer_tokens t = layer_tokens_of(run);
  int64_t tp = t.tp;
  double tokens = t.tokens, tokens_n = t.tokens_n, h = (double)m->hidden;
  bool full = l->recompute == PL_RECOMPUTE_FULL;
  if (m->linear_bias && n + 4 <= PL_MAX_LAYER_OPS) {
    double qkv = qkv_width(m, tp);
    double ffn = (double)(m->ffn_hidden / tp);
    mem_op(&ops[n++], "qkv_bias_grad", 0, 2.0 * tokens * qkv, false);
    mem_op(&ops[n++], "proj_bias_grad", 0, 2.0 * tokens_n * h, false);
    mem_op(&ops[n++], "fc1_bias_grad", 0, 2.0 * tokens * ffn, false);
    mem_op(&ops[n++], "fc2_bias_grad", 0, 2.0 * tokens_n * h, false);
  }
  if (m->dropout && n + 2 <= PL_MAX_LAYER_OPS) {
    mem_op(&ops[n++], "dropout1_mask", tokens_n * h, 5.0 * tokens_n * h, full);
    mem_op(&ops[n++], "dropout2_mask", tokens_n * h, 5.0 * tokens_n * h, full);
  }
  return n;
}

/* Element-wise work eager PyTorch modules do beyond the op list's fused
 * minimum (layout.kernels = unfused; docs/step-model.md section 2.3b), per
 * element, forward / backward extra bytes:
 *  - RMSNorm as HF LlamaRMSNorm runs it (to fp32, pow, mean, * rsqrt, to
 *    bf16, * weight: 36 B forward against the fused 4 B; its autograd
 *    backward 64 B against 6 B): +32 / +58 B per norm element;
 *  - SwiGLU as `act_fn(gate_proj(x)) * up_proj(x)`: silu writes s and the
 *    multiply reads it back (+4 B forward); backward of the multiply writes
 *    ds, silu's backward reads it (+6 B) per ffn element;
 *  - RoPE as HF apply_rotary_pos_emb (q*cos + rotate_half(q)*sin: neg, cat,
 *    two multiplies, an add: 20 B against 4 B; backward 16 B against 4 B):
 *    +16 / +12 B per q and k element;
 *  - dropout (model.dropout) as nn.Dropout on the two residual branches:
 *    reads and writes the values besides the 1-byte mask (+4 B forward).
 * LayerNorm (one native_layer_norm kernel), GELU (one kernel), residual adds
 * and biases (in the GEMM epilogue of addmm) are separate kernels in the op
 * list already: no extra. Returns the new op count. */
static int unfused_kernels(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  struct layer_tokens t = layer_tokens_of(run);
  int64_t tp = t.tp;
  double tokens = t.tokens, tokens_n = t.tokens_n, h = (double)m->hidden;
  /* element-wise ops are re-run under full and ops recompute (flops.c) */
  bool full = l->recompute == PL_RECOMPUTE_FULL || l->recompute == PL_RECOMPUTE_OPS;
  if (l->kernels != PL_KERNELS_UNFUSED || n + 4 > PL_MAX_LAYER_OPS)
    return n;
  if (m->norm == PL_NORM_RMS)
    mem_op(&ops[n++], "rmsnorm_eager", 2.0 * 32.0 * tokens_n * h, 2.0 * 58.0 * tokens_n * h, full);
  if (m->mlp == PL_MLP_SWIGLU) {
    double f = (double)(m->ffn_hidden / tp);
    mem_op(&ops[n++], "swiglu_eager", 4.0 * tokens * f, 6.0 * tokens * f, full);
  }
  if (m->pos == PL_POS_ROTARY) {
    double qk = (double)(m->heads + m->kv_heads) / (double)tp * (double)m->head_dim;
    mem_op(&ops[n++], "rope_eager", 16.0 * tokens * qk, 12.0 * tokens * qk, full);
  }
  if (m->dropout)
    mem_op(&ops[n++], "dropout_eager", 2.0 * 4.0 * tokens_n * h, 0, full);
  return n;
}

/* The QKV GEMM's output is split into q, k and v views (MPT's
 * `qkv.chunk(3, dim=2)`, llmfoundry/models/layers/attention.py; Megatron's
 * split_tensor_along_last_dim of mixed_x_layer) and the attention kernel
 * returns dq, dk and dv as separate tensors, so autograd's split backward
 * concatenates them into the QKV output gradient (PyTorch
 * tools/autograd/derivatives.yaml: split_with_sizes' backward is
 * split_with_sizes_backward, an at::cat): read and write 2 B per q, k and v
 * element, backward only. Appended as one op. */
static int qkv_grad_cat(const struct pl_run *run, struct pl_op *ops, int n) {
  struct layer_tokens t = layer_tokens_of(run);
  if (n + 1 > PL_MAX_LAYER_OPS)
    return n;
  mem_op(&ops[n++], "qkv_grad_cat", 0, 4.0 * t.tokens * qkv_width(&run->model, t.tp), false);
  return n;
}

/* Training metrics that rerun the loss on the logits after each
 * micro-batch's backward (layout.logit_metric_passes): Composer's
 * Trainer._train_microbatch calls _eval_train_metrics under torch.no_grad and
 * the run's autocast (composer/trainer/trainer.py); each of MPT's train
 * metrics, LanguageCrossEntropy and LanguagePerplexity
 * (composer/metrics/nlp.py), updates with
 * torch.nn.CrossEntropyLoss(reduction='sum') on all logits, which autocast
 * runs in fp32: the cast (read 2, write 4 B) and log_softmax (read 4, write
 * 4 B) per logit, 14 B; nll_loss reads one value per token. Forward only, on
 * the stage holding the head. Appended as one op. */
static int logit_metrics(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  if (l->logit_metric_passes <= 0 || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  double logits = sim_microbatch_logits(&run->model, l);
  mem_op(&ops[n++], "train_metrics", 14.0 * (double)l->logit_metric_passes * logits, 0, false);
  return n;
}

/* FP8 GEMMs as Transformer Engine's Linear runs them
 * (transformer_engine/pytorch/module/linear.py, _Linear): the 16-bit input
 * goes through fp8_cast_transpose_fused (read 2 B, write the FP8 copy and
 * its transpose for wgrad: 4 B per element), so do the weights at every
 * forward call when no first-micro-batch flag lets TE cache them (read
 * 16-bit, write both: 4 B per weight), and in backward the output gradient
 * (grad_output_preprocess: 4 B per element). Only the blocks' GEMMs: the LM
 * head stays 16-bit (llm-foundry ties it to the embedding). TE's fused
 * LayerNormLinear/LayerNormMLP, which write the norm's output straight to
 * FP8, would save one input pass each: not modelled. Appended as one op.
 * MXFP8 and NVFP4 (Blackwell) cast the same tensors, writing a rowwise and a
 * columnwise copy each with its block scales (transformer_engine/pytorch/
 * tensor/mxfp8_tensor.py MXFP8Quantizer and nvfp4_tensor.py NVFP4Quantizer,
 * rowwise and columnwise usage; the scaling block runs along K, so wgrad
 * needs the copy blocked the other way): read 2 B, write 2 x
 * pl_dtype_element_bytes (1 + 1/32 B for MXFP8, 0.5 + 1/16 B for NVFP4).
 * For FP8 that is 2 + 2 x 1 = the 4 B above. On GPUs where TE runs per-tensor
 * FP8 GEMMs in any layout (pl_gpu_fp8_non_tn_gemm: Blackwell data-centre
 * parts, TE v2.3+), its per-tensor quantizers (delayed and current scaling)
 * write no transpose: the one FP8 copy serves the rowwise and the columnwise
 * use (pytorch/csrc/quantizer.cpp Float8Quantizer / Float8CurrentScalingQuantizer
 * create_tensor: with_data = rowwise_usage || non_tn, with_transpose =
 * columnwise_usage && !non_tn; TE v2.3-v2.18): read 2 B, write 1 B. */
static int fp8_casts(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  if (l->dtype == PL_DTYPE_BF16 || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  bool per_tensor_te = l->dtype == PL_DTYPE_FP8 && (l->fp8_recipe == PL_FP8_RECIPE_TENSOR ||
                                                    l->fp8_recipe == PL_FP8_RECIPE_DELAYED ||
                                                    l->fp8_recipe == PL_FP8_RECIPE_CURRENT);
  double copies = per_tensor_te && pl_gpu_fp8_non_tn_gemm(&run->cluster.gpu) ? 1.0 : 2.0;
  double per_elem = 2.0 + copies * pl_dtype_element_bytes(l->dtype);
  /* layout.fp8_recipe (layout.h): delayed, current and blockwise keep the
   * FP8 weights from the step's first micro-batch (TE _Linear's
   * is_first_microbatch: weight casts 1/micro_batches of the time); current
   * scaling first reads each activation and gradient for its amax
   * (Float8CurrentScaling: compute_amax then cast, +2 B per element) */
  /* layout.fp8_weight_cache (framework behaviour): the same cache for any
   * recipe where the framework passes is_first_microbatch, as Megatron-Core's
   * forward_step does (megatron/core/pipeline_parallel/schedules.py:
   * model.set_is_first_microbatch() on a step's first micro-batch) */
  /* MXFP8 and NVFP4 too: TE's Linear/GroupedLinear take the cached weight
   * workspace for any quantizer (transformer_engine/pytorch/module/linear.py
   * _Linear.forward: get_weight_workspace(..., cache_name="weight" when
   * is_first_microbatch is not None, update_workspace=is_first_microbatch);
   * the workspace is an MXFP8Tensor or NVFP4Tensor under those recipes), so
   * the framework's is_first_microbatch caches them the same way */
  bool block_scaled = l->dtype == PL_DTYPE_MXFP8 || l->dtype == PL_DTYPE_NVFP4;
  bool cached = (l->dtype == PL_DTYPE_FP8 &&
                 (l->fp8_recipe != PL_FP8_RECIPE_TENSOR || l->fp8_weight_cache)) ||
                (block_scaled && l->fp8_weight_cache);
  double weight_share = cached && l->micro_batches > 0 ? 1.0 / (double)l->micro_batches : 1.0;
  /* TE FP8 parameters (pl_layout_te_fp8_params): the forward takes the
   * gathered FP8 weight as it is; the cast happens once per step on the
   * local shard only, when the optimizer writes the fp32 master shard back
   * (megatron_fsdp/mixed_precision.py -> TE tensor/utils.py
   * cast_master_weights_to_fp8, core_v0.16.0): 1 / shard_group of it. The
   * transpose Hopper's FP8 GEMMs need for dgrad is not modelled. */
  if (pl_layout_te_fp8_params(l) && fp8_gathered_weights(run) > 0)
    weight_share /= (double)(l->shard_group > 0 ? l->shard_group : 1);
  /* NVFP4 too: its second-level scale is per tensor (global amax / (6 x
   * 448)), so TE's NVFP4Quantizer::quantize_impl (transformer_engine/pytorch/
   * csrc/quantizer.cpp, TE 2.8+) reads the input once for the amax
   * (nvte_hadamard_transform_amax with the recipe's random Hadamard transform
   * on inputs and gradients, nvte_compute_amax_with_config without) before
   * the quantize kernel (nvte_quantize_with_hadamard_transform, one fused
   * pass writing the rowwise and the RHT'd columnwise copy, or
   * nvte_quantize_v2): +2 B per element, as for FP8 current scaling. MXFP8's
   * scales are per 32-element block, computed in its one quantize pass. */
  double amax = (l->dtype == PL_DTYPE_FP8 && l->fp8_recipe == PL_FP8_RECIPE_CURRENT) ||
                        l->dtype == PL_DTYPE_NVFP4
                    ? 2.0
                    : 0.0;
  /* layout.nvfp4_rht_unfused: TE 2.9-2.13's quantize_impl casts an RHT'd
   * tensor (inputs and output gradients; weights take no RHT) rowwise with
   * nvte_quantize_v2, then reads it again for the columnwise copy
   * (nvte_hadamard_transform_cast_fusion_columnwise): +2 B per element */
  double rht_pass = l->dtype == PL_DTYPE_NVFP4 && l->nvfp4_rht_unfused ? 2.0 : 0.0;
  /* fp8-tensorwise: torchao's Float8Linear with the "tensorwise" recipe
   * (torchtitan float8.recipe_name; torchao/float8/config.py ALL_TENSORWISE,
   * "dynamic per-tensor scaling with the cuBLAS tensorwise kernel").
   * torchao/float8/float8_linear.py matmul_with_hp_or_float8_args saves the
   * 16-bit input and weight for backward (ctx.save_for_backward(input_hp,
   * weight_hp_t)) and casts with hp_tensor_to_float8_dynamic, each cast an
   * amax read (float8_utils.py tensor_to_scale) then the cast (read 2 B,
   * write 1 B): 5 B per element. Forward casts input and weight; backward
   * casts grad_output twice (for grad_input and grad_weight), the weight
   * and the input again. No weight cache: torchao has no first-micro-batch
   * flag. Not modelled: the layout copies torch._scaled_mm may need. */
  bool tensorwise = pl_layout_fp8_tensorwise(l);
  const double tw_cast = 2.0 + 2.0 + pl_dtype_element_bytes(l->dtype);
  /* with layout.fp8_all_gather (fp8_gathered_weights) the weight is cast once per
   * gather, on the local shard (1/shard_group of it), and not in backward */
  bool gathered_fp8 = tensorwise && fp8_gathered_weights(run) > 0;
  double w_fwd = gathered_fp8 ? 1.0 / (double)(l->shard_group > 0 ? l->shard_group : 1) : 1.0;
  double w_bwd = gathered_fp8 ? 0.0 : 1.0;
  double fwd = 0, bwd = 0;
  for (int i = 0; i < n; i++) {
    const struct pl_op *o = &ops[i];
    /* a GEMM that stays 16-bit (pl_op.high_precision: the MoE router, the
     * Mamba-2 SSD's Triton kernels) has no TE quantizer: nothing to cast */
    if (o->kind != PL_OP_GEMM || o->high_precision)
      continue;
    double c = (double)o->count * (o->share > 0 ? o->share : 1.0);
    double m = (double)o->m, k = (double)o->k, nn = (double)o->n;
    /* layout.fused_grouped_mlp: fc1's epilogue writes fc2's MXFP8 input and
     * fc2's dGLU epilogue fc1's MXFP8 output gradient (TE v2.16 ops/fused/
     * forward_grouped_mlp.py d_tensor, d_col_tensor; backward_grouped_mlp.py
     * d_row_tensor, d_col_tensor). The weights keep weight_share: TE's op path
     * has no is_first_microbatch cache but takes quantized weights as they are
     * (is_quantized_tensor), which the configs that run it hold (Megatron-Bridge
     * v0.5.0 bf16_with_mxfp8_mixed: fp8_param_gather, i.e. MXFP8 parameters) */
    bool fx = l->fused_grouped_mlp && strncmp(o->name, "expert_fc", 9) == 0;
    double in_k = fx && strcmp(o->name, "expert_fc2") == 0 ? 0.0 : 1.0;
    double go_k = fx && strcmp(o->name, "expert_fc1") == 0 ? 0.0 : 1.0;
    if (tensorwise) {
      fwd += tw_cast * c * (m * k + w_fwd * k * nn);
      bwd += tw_cast * c * (2.0 * m * nn + w_bwd * k * nn + m * k);
      continue;
    }
    if (cached || amax > 0) {
      /* the weight's cast reads it for its amax too under current scaling and
       * NVFP4 (Float8CurrentScalingQuantizer / NVFP4Quantizer quantize_impl
       * compute the amax of every tensor they quantize) */
      fwd += (per_elem + amax + rht_pass) * c * m * k * in_k + (per_elem + amax) * weight_share * c * k * nn;
      bwd += (per_elem + amax + rht_pass) * c * m * nn * go_k;
      continue;
    }
    fwd += per_elem * c * (m * k * in_k + k * nn);
    bwd += per_elem * c * m * nn * go_k;
  }
  mem_op(&ops[n++], "fp8_casts", fwd, bwd, l->recompute == PL_RECOMPUTE_FULL);
  return n;
}

/* Passes over a segment's parameter gradients (and gathered parameters) per
 * micro-batch, memory-bound, appended to ops (docs/step-model.md 2.3c):
 *  - ddp/zero1: each micro-batch's 16-bit gradient is added into the fp32
 *    gradient buffer the step reduces: Megatron-LM's backward hook
 *    `param.main_grad.add_(param.grad.data)` (megatron/model/distributed.py,
 *    DistributedDataParallel._make_param_hook), read 4 + 2, write 4 B per
 *    parameter (PyTorch DDP's AccumulateGrad does the same add); with
 *    layout.grad_accum_cast DeepSpeed's BF16_Optimizer.update_hp_grads,
 *    `hp_grad.data.add_(lp.grad.data.to(hp_grad.dtype))`
 *    (deepspeed/runtime/bf16_optimizer.py), first writes the fp32 copy
 *    (read 2, write 4) and then adds it (read 4 + 4, write 4): 18 B;
 *  - zero2/zero3 (FSDP2, torch/distributed/fsdp/_fully_shard/
 *    _fsdp_collectives.py): the all_gather output is copied out into the
 *    unsharded parameters (foreach_all_gather_copy_out: read + write 2 B per
 *    parameter, every forward gather and, zero3, the backward re-gather); the
 *    gradients are copied and cast into the fp32 reduce_scatter input
 *    (foreach_reduce, torch._chunk_cat: read 2, write 4 B). Ignored: adding
 *    the reduced shard into the sharded gradient from the second
 *    micro-batch on (12 B per shard element, 1/shard_group of the rest).
 * params: this segment's parameters on the GPU after tp. */
/* layout.zero3_debug_norm: DeepSpeed v0.3.15-v0.4.1 stage3.py
 * fetch_sub_module ends with, for each of the module's own parameters
 * (named_parameters(recurse=False): the gathered and the persistent ones),
 * print_rank_0(f"... norm {param.norm()}", force=False); the f-string is
 * built whether or not print_rank_0 prints, and formatting the 0-dim norm
 * calls Tensor.__format__ -> item(), a device-to-host read the host waits
 * for. Added by DeepSpeed #976 (2021-04-18), removed by #1136 (2021-06-23;
 * PR #1188 lists the removal as a speed-up). Per fetch, one reduction kernel
 * per tensor reading it (2 B per element) and the wait (pl_op.host_waits).
 * A module is fetched once per forward and, in backward, once for its
 * backward and once more for its recomputed forward under full recompute
 * (the op's recompute). */
static void zero3_debug_norm_op(const struct pl_run *run, enum sim_seg_kind kind, double params,
                                double tensors, struct pl_op *op) {
  bool again = kind == SIM_SEG_LAYER && run->layout.recompute == PL_RECOMPUTE_FULL;
  mem_op(op, "zero3_debug_norm", PARAM_BYTES * params, PARAM_BYTES * params, again);
  op->fwd_kernels = op->bwd_kernels = (int)llround(tensors);
  op->host_waits = true;
}

static int param_kernels(const struct pl_run *run, enum sim_seg_kind kind, double params,
                         double tensors, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  if (params <= 0 || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  if (l->shard == PL_SHARD_DDP || l->shard == PL_SHARD_ZERO1) {
    mem_op(&ops[n++], "grad_accum", 0, (l->grad_accum_cast ? 18.0 : 10.0) * params, false);
    /* Launches: both adds run per parameter tensor, a Python loop over the
     * parameters (BF16_Optimizer.update_hp_grads: `for lp in group`, a cast
     * and an add each) or one autograd hook per parameter (Megatron-LM
     * _make_param_hook, PyTorch AccumulateGrad): tensors x 2 with the cast,
     * x 1 without (docs/step-model.md 2.6). Megatron's
     * --gradient-accumulation-fusion, which folds the weights' adds into the
     * wgrad GEMM, is not modelled (the bytes above charge it too). */
    ops[n - 1].bwd_kernels = (int)llround(tensors * (l->grad_accum_cast ? 2.0 : 1.0));
    return n;
  }
  if (l->shard == PL_SHARD_ZERO3 && l->zero3_list_copy_s > 0) {
    /* DeepSpeed 2021's per-parameter path: zero3_list_gather_bytes; the
     * gradients' passes with zero3_grad_all_reduce are the buckets'
     * (zero3_bucket_passes_s, charged with the all_reduce), else FSDP2's
     * 6 B below (not re-derived for DeepSpeed's ipg buffer) */
    double grad = l->zero3_grad_all_reduce ? 0.0 : 6.0 * params;
    mem_op(&ops[n++], "fsdp_copies", zero3_list_gather_bytes(run, kind, PL_PASS_FWD),
           zero3_list_gather_bytes(run, kind, PL_PASS_BWD) + grad, false);
    if (l->zero3_debug_norm && n + 1 <= PL_MAX_LAYER_OPS)
      zero3_debug_norm_op(run, kind, params, tensors, &ops[n++]);
    return n;
  }
  double bwd = 6.0 * params;
  if (l->shard == PL_SHARD_ZERO3)
    bwd += 4.0 * params;
  mem_op(&ops[n++], "fsdp_copies", 4.0 * params, bwd, false);
  return n;
}

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
static double layer_expert_params_gpu(const struct pl_run *run) {
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
static double seg_param_tensors(const struct pl_run *run, enum sim_seg_kind kind) {
  const struct pl_model *m = &run->model;
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

/* Parameters of a segment on one GPU after tp (and expert) sharding. */
static double seg_params(const struct pl_run *run, enum sim_seg_kind kind) {
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

/* layout.tp_seq_copies: torchtitan keeps activations batch-first, [b, s, h],
 * and shards them on the sequence for sequence parallelism (apply_tp:
 * SequenceParallel norms, input_layouts / output_layouts Shard(1);
 * torchtitan parallelisms/parallelize_llama.py at 9dec370). DTensor's
 * Shard(1) -> Replicate runs _functional_collectives.all_gather_tensor with
 * gather_dim 1, which gathers on dim 0 and then copies the result into the
 * batch-first layout (torch.cat(torch.chunk(res, group_size, dim=0),
 * dim=gather_dim)); Partial -> Shard(1) runs reduce_scatter_tensor with
 * scatter_dim 1, which first copies its input into the rank-major layout
 * (torch.chunk(self, group_size, dim=scatter_dim), torch.cat). Each is one
 * copy of the full (gathered) activation: read and write the gathered
 * elements (the gather's element bytes, pl_layout_tp_gather_bytes: 1 B for
 * torchao's Float8 TP styles) or 2 B each for the 16-bit reduce_scatter
 * input. Megatron's [s, b, h] layout gathers on dim 0: no copy. Per block
 * and micro-batch (per = 2 sequence-parallel regions, 1 in a hybrid stack):
 *   forward: per all_gathers and per reduce_scatters;
 *   backward: per of each (the forward's reversed), plus, under ops
 *     recompute, the re-run all_gathers (the reduce_scatters are saved:
 *     segments.c layer_tp); under full recompute the forward's copies again
 *     (the op's recompute flag).
 * With async_tp or tp_comm_overlap (torchtitan's async TP: Inductor's micro-pipeline TP,
 * torch/_inductor/fx_passes/micro_pipeline_tp.py) the all_gathers feeding
 * matmuls and the reduce_scatters of one matmul's output are replaced by
 * fused symmetric-memory ops that take the shard dim themselves
 * (restride_A_shard_for_fused_all_gather_matmul); only the backward's
 * reduce_scatters of the column-parallel input gradients, a sum of matmuls
 * (wq + wk + wv, w1 + w3) that _find_producer_matmul does not match, stay
 * unfused and keep their copy: per x 2 B per element in the backward.
 * Not counted: the embedding's and output layer's gathers (one of each per
 * micro-batch), the fused ops' shard restride (1/tp of the elements).
 * Not modelled: the view path of recent PyTorch (all_gather_tensor returns
 * a view, no copy, when the gathered dim 0 is exactly group_size, i.e. a
 * batch of 1 per rank); the release that added it was not pinned here, and
 * the torchtitan rows with batch 1 (Table 6, 405B) may have run without
 * their all_gather copies (docs/accuracy.md "Session 13 (helper tt13)"). */
static int tp_seq_copies(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  if (!l->tp_seq_copies || !l->sp || l->tp <= 1 || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  double full = (double)l->mbs * (double)(l->seq / (l->cp > 0 ? l->cp : 1)) *
                (double)run->model.hidden; /* elements of one gathered activation */
  double per = pl_model_is_hybrid(&run->model) ? 1.0 : 2.0;
  double ag_f = pl_layout_tp_gather_bytes(l, PL_TP_GATHER_FWD);
  double ag_g = pl_layout_tp_gather_bytes(l, PL_TP_GATHER_GRAD);
  if (l->tp_comm_overlap || l->async_tp) {
    mem_op(&ops[n++], "tp_seq_copies", 0, per * 2.0 * ACT_BYTES * full, false);
    return n;
  }
  double fwd = per * (2.0 * ag_f + 2.0 * ACT_BYTES) * full;
  double bwd = per * (2.0 * ag_g + 2.0 * ACT_BYTES) * full;
  if (l->recompute == PL_RECOMPUTE_OPS)
    bwd += per * 2.0 * ag_f * full;
  mem_op(&ops[n++], "tp_seq_copies", fwd, bwd, l->recompute == PL_RECOMPUTE_FULL);
  return n;
}

/* layout.cp_allgather: the eager tensor work around PyTorch
 * context_parallel's per-step SDPA calls (torch/distributed/tensor/
 * experimental/_attention.py, PyTorch 2.6 line), on the ring's last rank,
 * whose every step takes the full-query path (i <= rank) and which the
 * others wait for at the next all_gather. E = mbs x seq/cp x heads/tp x
 * head_dim elements (q, and k and v after torchtitan's repeat_kv). Forward,
 * _templated_ring_attention: key/value.contiguous() of the transposed
 * [b, h, s, d] views 2 x (2 + 2) = 8E; torch.cat of k and v before each of
 * the cp - 1 exchanges 8E; _SDPAMerger.step casts each of the cp outputs to
 * fp32 (2 + 4) 6E; each of the cp - 1 merges (_merge_one: out - block_out
 * 12E, sigmoid(lse diff) x that 8E, out - that 12E; the lse terms are 1/d of
 * it) 32E; results() casts back 6E:
 *   fwd = 14 + 6 cp + 40 (cp - 1) bytes per E.
 * Backward, _templated_ring_attention_backward: fp32 zeros for dq, dk, dv
 * 12E; contiguous k, v 8E; k/v torch.cat before cp - 1 exchanges 8E; step 0
 * dk, dv += (4 + 2 + 4) 20E; steps >= 1 _partial_update(add) of dk, dv (the
 * half += 5E, torch.cat of the whole 8E) 26E; every step torch.cat of the
 * fp32 dk, dv before their all_to_all 16E and dq += 10E; the end casts dq
 * (6E) and dk, dv (8 + 4) to 16 bits:
 *   bwd = 58 + 26 cp + 34 (cp - 1) bytes per E.
 * A recomputed forward (full recompute) runs the forward's again. */
static int cp_merge_ops(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  const struct pl_model *m = &run->model;
  if (!l->cp_allgather || l->cp <= 1 || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  double cp = (double)l->cp;
  double e = (double)l->mbs * (double)(l->seq / l->cp) * (double)(m->heads / l->tp) *
             (double)m->head_dim;
  mem_op(&ops[n++], "cp_merge", (14.0 + 6.0 * cp + 40.0 * (cp - 1.0)) * e,
         (58.0 + 26.0 * cp + 34.0 * (cp - 1.0)) * e, l->recompute == PL_RECOMPUTE_FULL);
  return n;
}

int pl_sim_segment_ops(const struct pl_run *run, int segment,
                       struct pl_op ops[PL_MAX_LAYER_OPS]) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  enum sim_seg_kind kind = segment == 0   ? SIM_SEG_EMBED
                           : segment == 1 ? SIM_SEG_LAYER
                                          : SIM_SEG_HEAD;
  int n = kind == SIM_SEG_LAYER   ? pl_layer_ops(m, l, ops)
          : kind == SIM_SEG_EMBED ? pl_embed_ops(m, l, ops)
                                  : pl_head_ops(m, l, ops);
  if (kind == SIM_SEG_LAYER)
    n = cp_merge_ops(run, ops,
                     tp_seq_copies(run, ops, qkv_grad_cat(run, ops, fp8_casts(run, ops, unfused_kernels(
                                                 run, ops, megatron_kernels(run, ops, n))))));
  else if (kind == SIM_SEG_HEAD)
    n = logit_metrics(run, ops, n);
  return param_kernels(run, kind, seg_params(run, kind), seg_param_tensors(run, kind), ops, n);
}

static enum pl_status price(struct sim_step *st, enum sim_seg_kind kind, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  struct sim_seg *s = &st->seg[kind];
  seg_clear(s);
  int n = pl_sim_segment_ops(st->run, kind == SIM_SEG_EMBED ? 0 : kind == SIM_SEG_LAYER ? 1 : 2,
                             ops);
  s->params = seg_params(st->run, kind);
  s->expert_params = kind == SIM_SEG_LAYER ? layer_expert_params_gpu(st->run) : 0;
  enum pl_status r = PL_OK;
  if (l->tp > 1 && kind == SIM_SEG_LAYER)
    r = layer_tp(st, s, diag);
  else if (l->tp > 1 && kind == SIM_SEG_EMBED)
    r = embed_tp(st, s, diag);
  else if (l->tp > 1)
    r = head_tp(st, s, diag);
  if (r == PL_OK && kind == SIM_SEG_LAYER && l->cp > 1)
    r = layer_cp(st, s, diag);
  if (r == PL_OK && kind == SIM_SEG_LAYER)
    r = sim_layer_moe(st, s, diag);
  /* the compute after the collectives: a MoE forward's dispatcher wait holds
   * its dispatch and combine (moe_sync.c) */
  struct sim_moe_wait wait;
  if (r == PL_OK)
    seg_compute(st, s, ops, n, kind == SIM_SEG_LAYER && l->cp > 1,
                kind == SIM_SEG_LAYER && sim_moe_wait_of(st, s, &wait) ? &wait : NULL);
  if (r == PL_OK)
    r = seg_fsdp(st, kind, s, diag);
  return r;
}

enum pl_status sim_segments(struct sim_step *st, struct pl_diag *diag) {
  enum pl_status r = PL_OK;
  for (int k = 0; k < SIM_SEG_N && r == PL_OK; k++)
    r = price(st, (enum sim_seg_kind)k, diag);
  return r;
}
