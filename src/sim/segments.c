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
 * and dK, dV in the backward, overlapping the attention core; TE's merges of
 * each step's partial result are the memory op cp_p2p_merge (cp_p2p_merge_ops).
 * FP8 current scaling / NVFP4 with sequence parallelism: the amax all_reduce
 * over tp before each such cast waits on the compute stream (sim_tp_amax_wait_s).
 * Expert parallelism (MoE blocks): the dispatch and combine collectives of
 * a block, moe_comm.c (sim_layer_moe).
 * FSDP units (zero2/zero3): their collectives, fsdp_comm.c (sim_seg_fsdp). */
#include <plateau/coll.h>
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "sim/sim_int.h"

#include "model/constants.h"

static void seg_clear(struct sim_seg *s) {
  memset(s, 0, sizeof *s);
  for (int p = 0; p < 2; p++) {
    for (int i = 0; i < SIM_SEG_TP; i++)
      sim_comm_set(&s->tp[p][i], SIM_NONE, 0);
    sim_comm_set(&s->cp[p], SIM_NONE, 0);
  }
  sim_comm_set(&s->cp_dkv, SIM_NONE, 0);
  for (int i = 0; i < SIM_CP_COMMS; i++) {
    for (int p = 0; p < 2; p++) {
      sim_comm_set(&s->cp_pre[p][i], SIM_NONE, 0);
      sim_comm_set(&s->cp_post[p][i], SIM_NONE, 0);
    }
    sim_comm_set(&s->cp_re[i], SIM_NONE, 0);
  }
  sim_comm_set(&s->te_in_ag, SIM_NONE, 0);
  s->ag = s->ag2 = s->ag3 = s->rs = s->ar = s->eag = s->ers = SIM_NONE;
}

/* One op's GPU time in a pass at full speed, weighted by its share of the
 * layer (pl_op share; 0 means the whole op): the unit the node shares below
 * are taken in. */
static double op_share_s(const struct pl_gpu *g, const struct pl_layout *l,
                         const struct pl_model *m, const struct pl_op *op, enum pl_pass p) {
  return (op->share > 0 ? op->share : 1.0) * pl_op_run_time_s(g, l, m, op, p);
}

/* The share of a pass's compute that one of Megatron-Core's schedule nodes
 * runs (in_node: pl_op_moe_mlp_node, the routed experts; or
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
    double t = op_share_s(g, l, m, &ops[i], p);
    if (in_node(&ops[i]))
      mlp += t;
    else
      rest += t;
  }
  return mlp + rest > 0 ? mlp / (mlp + rest) : 0.0;
}

/* Whether op's weight-gradient GEMM is one Megatron-Core delays under
 * delay_wgrad_compute: Transformer Engine linears built with it (TE >= 2.3
 * delay_wgrad_compute, extensions/transformer_engine.py core_v0.16.0) whose
 * backward_dw a schedule node calls: the mlp node's routed experts
 * (TransformerLayerNode.backward_dw over bwd_dw_callables) and the attention
 * node's linears and shared experts (_BackwardDWWrapper: self_attention.backward_dw,
 * mlp.backward_dw(shared_experts=True)). The router (a plain torch linear), the
 * LM head and a dense block's MLP keep their wgrad in the backward. */
static bool delayed_wgrad_op(const struct pl_op *op) {
  static const char *const attn[] = {"qkv",   "q",    "q_down",     "q_up",      "kv_down",
                                     "kv_up", "proj", "shared_fc1", "shared_fc2"};
  if (op->kind != PL_OP_GEMM)
    return false;
  if (pl_op_moe_mlp_node(op))
    return true;
  for (size_t i = 0; i < sizeof attn / sizeof attn[0]; i++)
    if (strcmp(op->name, attn[i]) == 0)
      return true;
  return false;
}

/* The shares of a backward's compute that layout.delay_wgrad moves out of
 * its nodes: half the backward GEMM time of each delayed op (the wgrad GEMM
 * has the dgrad's FLOPs, 2 m n k, as lower_unit.c te_bwd_windows takes it),
 * *experts of the mlp node's ops, *rest of the attention linears', by the ops'
 * GPU time at full speed as node_share. */
static void delayed_wgrad_share(const struct pl_gpu *g, const struct pl_layout *l,
                                const struct pl_model *m, const struct pl_op *ops, int n,
                                double *experts, double *rest) {
  double mlp = 0, attn = 0, all = 0;
  for (int i = 0; i < n; i++) {
    if (pl_op_node_free(&ops[i]))
      continue;
    double t = op_share_s(g, l, m, &ops[i], PL_PASS_BWD);
    all += t;
    if (delayed_wgrad_op(&ops[i]))
      *(pl_op_moe_mlp_node(&ops[i]) ? &mlp : &attn) += 0.5 * t;
  }
  *experts = all > 0 ? mlp / all : 0.0;
  *rest = all > 0 ? attn / all : 0.0;
}

/* layout.delay_wgrad on Hopper: the shares of a backward's compute of the
 * first wgrad GEMM kernel each delayed node runs, by the ops' GPU time at
 * full speed as delayed_wgrad_share: lead[0] the attention node's
 * (Attention.backward_dw runs _backward_qkv_proj first, then the output
 * projection: attention.py core_v0.16.0; the qkv op's wgrad, half its
 * backward; 0 without one, e.g. latent attention), lead[1] the mlp node's
 * (TEGroupedMLP.backward_dw: linear_fc2 first, experts.py core_v0.16.0; TE's
 * GroupedLinear runs one cuBLAS GEMM per local expert, so one expert's: half
 * expert_fc2's backward over its count). */
static void delayed_wgrad_lead(const struct pl_gpu *g, const struct pl_layout *l,
                               const struct pl_model *m, const struct pl_op *ops, int n,
                               double lead[2]) {
  double all = 0, qkv = 0, fc2 = 0;
  for (int i = 0; i < n; i++) {
    if (pl_op_node_free(&ops[i]))
      continue;
    double t = op_share_s(g, l, m, &ops[i], PL_PASS_BWD);
    all += t;
    if (ops[i].kind == PL_OP_GEMM && strcmp(ops[i].name, "qkv") == 0)
      qkv += 0.5 * t;
    else if (ops[i].kind == PL_OP_GEMM && strcmp(ops[i].name, "expert_fc2") == 0)
      fc2 += 0.5 * t / (double)(ops[i].count > 0 ? ops[i].count : 1);
  }
  lead[0] = all > 0 ? qkv / all : 0.0;
  lead[1] = all > 0 ? fc2 / all : 0.0;
}

/* The share of a pass's compute that Megatron-Core's MoE combine node runs
 * on the communication stream after the combine's all_to_all
 * (pl_op_moe_combine_node: the unpermutation, and the residual add of the
 * MoE blocks only, by the MoE share of the blocks), as node_share. */
static double combine_share(const struct pl_gpu *g, const struct pl_layout *l,
                            const struct pl_model *m, const struct pl_op *ops, int n,
                            enum pl_pass p) {
  double moe = (double)pl_model_moe_layers(m) / (double)(m->layers > 0 ? m->layers : 1);
  double node = 0, all = 0;
  for (int i = 0; i < n; i++) {
    if (pl_op_node_free(&ops[i]))
      continue;
    double t = op_share_s(g, l, m, &ops[i], p);
    all += t;
    if (pl_op_moe_combine_node(&ops[i]))
      node += strcmp(ops[i].name, "resid2") == 0 ? moe * t : t;
  }
  return all > 0 ? node / all : 0.0;
}

/* layout.async_tp: PyTorch's symmetric-memory decomposition runs the GEMM
 * beside a fused collective as tp GEMMs of m / tp rows each
 * (torch/distributed/_symmetric_memory/__init__.py: _fused_all_gather_matmul_impl's
 * shard_consumer, one mm per gathered shard and weight; _fused_matmul_reduce_scatter_impl's
 * chunk_producer, one mm per destination rank's rows), alternating between the
 * current stream and a backend stream so that consecutive chunks overlap ("In
 * addition to computation/communication overlapping, the strategy allows for
 * computation/computation overlapping, greatly reducing quantization
 * inefficiency", _pipelined_all_gather_and_consume / _pipelined_produce_and_all2all;
 * read in the 2024 and 2025 versions of the file). So the chunks are priced as
 * one launch of tp x count GEMMs of m / tp rows (their waves share the SMs: each
 * weight read tp times, the partial last wave counted once) plus the launch
 * overhead of the (tp - 1) x count further kernels, over the whole GEMM: the
 * forward shape (m x n x k) and the dgrad's (m x k x n: the backward's
 * grad_output all_gather feeds it). */
static double atp_chunk_ratio(const struct pl_gpu *g, const struct pl_layout *l,
                              const struct pl_op *op, bool dgrad) {
  int64_t tp = l->tp > 1 ? l->tp : 1;
  int64_t n = dgrad ? op->k : op->n, k = dgrad ? op->n : op->k;
  /* the forward GEMM runs FP8 with fast accumulation, the dgrad with the
   * split accumulator (compute.c gemm_op_s) */
  double (*gemm_s)(const struct pl_gpu *, enum pl_dtype, int64_t, int64_t, int64_t, int64_t) =
      dgrad ? pl_gemm_time_s : pl_gemm_fast_acc_time_s;
  double whole = gemm_s(g, l->dtype, op->m, n, k, op->count);
  if (op->kind != PL_OP_GEMM || tp <= 1 || op->m < tp || !(whole > 0))
    return 1.0;
  double chunks = gemm_s(g, l->dtype, op->m / tp, n, k, op->count * tp) +
                  (double)((tp - 1) * op->count) * g->eff.kernel_overhead_s;
  return chunks / whole;
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
          s->te_column_s[k] += op_share_s(g, l, m, &ops[i], PL_PASS_BWD);
      }
    if (l->async_tp)
      for (int i = 0; i < n; i++) {
        int k = pl_op_tp_linear(&ops[i]);
        if (k < 0)
          continue;
        double share = ops[i].share > 0 ? ops[i].share : 1.0;
        s->atp_lin_s[p][k] += share * pl_op_run_time_s(g, l, m, &ops[i], (enum pl_pass)p);
        s->atp_chunk[p][k] = atp_chunk_ratio(g, l, &ops[i], p == PL_PASS_BWD);
        /* as sim_seg_ops_s: the recomputed forward (or a fused GEMM's part),
         * in the average block as comp_s below (recompute_layers/every) */
        struct pl_op part;
        double runs = p == PL_PASS_BWD ? pl_op_recompute_runs(m, l, &ops[i], &part) : 0.0;
        if (runs > 0)
          s->atp_rf_s[k] += share * runs * pl_op_run_time_s(g, l, m, &part, PL_PASS_FWD);
      }
    if (l->ep_comm_overlap && !split_attn) {
      s->experts_s[p] = s->comp_s[p] * node_share(g, l, m, ops, n, (enum pl_pass)p,
                                                  pl_op_moe_mlp_node);
      s->in_layer_s[p] = s->comp_s[p] * node_share(g, l, m, ops, n, (enum pl_pass)p,
                                                   pl_op_mtp_attn_node);
      s->combine_s[p] = s->comp_s[p] * combine_share(g, l, m, ops, n, (enum pl_pass)p);
      if (p == PL_PASS_BWD && l->delay_wgrad) {
        double e, r;
        delayed_wgrad_share(g, l, m, ops, n, &e, &r);
        s->dw_experts_s = s->comp_s[p] * e;
        s->dw_rest_s = s->comp_s[p] * r;
        if (strcmp(g->arch, "hopper") == 0) { /* the GPU file's architecture */
          double lead[2];
          delayed_wgrad_lead(g, l, m, ops, n, lead);
          s->dw_lead_s[0] = s->comp_s[p] * lead[0];
          s->dw_lead_s[1] = s->comp_s[p] * lead[1];
        }
      }
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
  /* layout.parallel_block: the attention's and the MLP's row-parallel
   * outputs are summed and reduced once, their common input gathered once
   * (GPT-NeoX ParallelTransformerLayer, gpt_j_residual: parallel_output on
   * both, one self.reduce; flops.c pl_layer_ops) */
  if (st->run->layout.parallel_block)
    per = 1;
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
    /* lower_unit.c te_bwd_windows: one re-gather per column-parallel linear */
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

/* Append `calls` of collective op over group (bytes as coll.h sizes them)
 * to a SIM_NONE-ended list of SIM_CP_COMMS, adding to an entry of the same
 * collective. */
static enum pl_status cp_put(struct sim_step *st, struct sim_comm *list, enum pl_coll_op op,
                             const char *group, double bytes, int32_t calls, struct pl_diag *diag) {
  int32_t c;
  enum pl_status r = sim_coll_add(st, op, group, bytes, &c, diag);
  if (r != PL_OK || c == SIM_NONE)
    return r;
  for (int i = 0; i < SIM_CP_COMMS; i++) {
    if (list[i].coll == c) {
      list[i].calls += calls;
      return PL_OK;
    }
    if (list[i].coll == SIM_NONE) {
      sim_comm_set(&list[i], c, calls);
      return PL_OK;
    }
  }
  return pl_diag_set(diag, PL_ERR_INTERNAL, "cp: more than %d collectives around attention",
                     SIM_CP_COMMS);
}

/* The rank's 16-bit Q (and O), K and V bytes before any exchange: mbs x
 * seq/cp tokens of heads/tp (kv_heads/tp) heads; V and O at the value head
 * dim (latent attention). */
struct cp_bytes {
  double q, o, k, v;
};

static struct cp_bytes cp_bytes_of(const struct pl_layout *l, const struct pl_model *m) {
  double tok = (double)l->mbs * (double)(l->seq / l->cp) * ACT_BYTES;
  double hd = (double)m->head_dim, vd = m->v_head_dim > 0 ? (double)m->v_head_dim : hd;
  double a = (double)(m->heads / l->tp);
  double g = (double)((m->kv_heads > 0 ? m->kv_heads : m->heads) / l->tp);
  return (struct cp_bytes){tok * a * hd, tok * a * vd, tok * g * hd, tok * g * vd};
}

/* layout.cp_comm all_gather: Transformer Engine's AttnFuncWithCPAndKVAllGather
 * (transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py, v2.20.0.dev0 @ d0067d0; "KV all-gather between CP
 * ranks is exposed", its docstring citing Llama 3 Sec. 3.3.2). Forward:
 * gather_along_first_dim(k, cp_group) and (v, cp_group), two synchronous
 * all_gathers of the rank's K and V at their own (kv-head) width, before
 * the two attention steps; backward: the same two all_gathers again (K/V
 * are saved unexchanged), the attention backward, then
 * reduce_scatter_along_first_dim(dk) and (dv): two synchronous 16-bit
 * reduce_scatters of the cp-wide gradients (fwd_nominal_dtype). A
 * recomputed forward repeats the forward's gathers. */
static enum pl_status cp_all_gather(struct sim_step *st, struct sim_seg *s, struct cp_bytes b,
                                    struct pl_diag *diag) {
  double cp = (double)st->run->layout.cp;
  enum pl_status r = PL_OK;
  for (int p = 0; p < 2 && r == PL_OK; p++) {
    r = cp_put(st, s->cp_pre[p], PL_COLL_ALL_GATHER, "cp", cp * b.k, 1, diag);
    if (r == PL_OK)
      r = cp_put(st, s->cp_pre[p], PL_COLL_ALL_GATHER, "cp", cp * b.v, 1, diag);
  }
  if (r == PL_OK)
    r = cp_put(st, s->cp_post[PL_PASS_BWD], PL_COLL_REDUCE_SCATTER, "cp", cp * b.k, 1, diag);
  if (r == PL_OK)
    r = cp_put(st, s->cp_post[PL_PASS_BWD], PL_COLL_REDUCE_SCATTER, "cp", cp * b.v, 1, diag);
  if (r == PL_OK)
    memcpy(s->cp_re, s->cp_pre[PL_PASS_FWD], sizeof s->cp_re);
  return r;
}

/* layout.cp_comm a2a (and the a2a half of a2a+p2p over its group):
 * flash_attn_a2a_communicate (context_parallel.py, v2.20.0.dev0 @ d0067d0)
 * runs one all_to_all_single per tensor over the group, each the tensor's
 * size, waited on before the next stage: forward Q, K, V before the
 * attention (sequence gathered, heads scattered) and O after it; backward
 * dO before, dQ, dK, dV after (AttnFuncWithCPAndQKVOA2A forward / backward;
 * AttnFuncWithCPAndKVP2P's cp_size_a2a > 1 branches the same). A recomputed
 * forward repeats Q, K, V and O. */
static enum pl_status cp_a2a(struct sim_step *st, struct sim_seg *s, struct cp_bytes b,
                             const char *group, struct pl_diag *diag) {
  const enum pl_coll_op a2a = PL_COLL_ALL_TO_ALL;
  struct sim_comm *fp = s->cp_pre[PL_PASS_FWD], *fo = s->cp_post[PL_PASS_FWD];
  struct sim_comm *bp = s->cp_pre[PL_PASS_BWD], *bo = s->cp_post[PL_PASS_BWD];
  enum pl_status r = cp_put(st, fp, a2a, group, b.q, 1, diag);
  if (r == PL_OK)
    r = cp_put(st, fp, a2a, group, b.k, 1, diag);
  if (r == PL_OK)
    r = cp_put(st, fp, a2a, group, b.v, 1, diag);
  if (r == PL_OK)
    r = cp_put(st, fo, a2a, group, b.o, 1, diag);
  if (r == PL_OK)
    r = cp_put(st, bp, a2a, group, b.o, 1, diag); /* dO */
  if (r == PL_OK)
    r = cp_put(st, bo, a2a, group, b.q, 1, diag);
  if (r == PL_OK)
    r = cp_put(st, bo, a2a, group, b.k, 1, diag);
  if (r == PL_OK)
    r = cp_put(st, bo, a2a, group, b.v, 1, diag);
  for (int i = 0; r == PL_OK && i < SIM_CP_COMMS; i++) {
    if (fp[i].coll != SIM_NONE)
      r = cp_put(st, s->cp_re, a2a, group, st->colls[fp[i].coll].bytes, fp[i].calls, diag);
    if (r == PL_OK && fo[i].coll != SIM_NONE)
      r = cp_put(st, s->cp_re, a2a, group, st->colls[fo[i].coll].bytes, fo[i].calls, diag);
  }
  return r;
}

/* The recomputed forwards of the attention core per block (the
 * attention op's pl_op_recompute_runs: selective recompute's core_attn, full
 * recompute's share of the blocks), for its exposed cp collectives. */
static double attn_recompute_runs(const struct pl_run *run, const struct pl_op *ops, int n) {
  for (int i = 0; i < n; i++) {
    if (ops[i].kind != PL_OP_ATTENTION)
      continue;
    struct pl_op part;
    return pl_op_recompute_runs(&run->model, &run->layout, &ops[i], &part);
  }
  return 0.0;
}

static enum pl_status layer_cp(struct sim_step *st, struct sim_seg *s, const struct pl_op *ops,
                               int n, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  const struct pl_model *m = &st->run->model;
  if (l->cp_allgather)
    return layer_cp_allgather(st, s, diag);
  struct cp_bytes b = cp_bytes_of(l, m);
  s->cp_re_runs = attn_recompute_runs(st->run, ops, n);
  if (l->cp_comm == PL_CP_ALL_GATHER)
    return cp_all_gather(st, s, b, diag);
  int64_t grp = pl_layout_cp_a2a_ranks(l), ring = l->cp / grp;
  enum pl_status r = PL_OK;
  if (grp > 1)
    r = cp_a2a(st, s, b, l->cp_comm == PL_CP_A2A ? "cp" : "cp-a2a", diag);
  if (r != PL_OK || ring <= 1)
    return r;
  /* the p2p ring (AttnFuncWithCPAndKVP2P): after an a2a over grp ranks a
   * rank holds grp x the tokens of 1/grp of the heads, the same K/V bytes */
  const char *group = grp > 1 ? "cp-ring" : "cp";
  /* the send buffer is torch.cat((k.view(-1), v.view(-1))) (context_parallel.py
   * AttnFuncWithCPAndKVP2P.forward, p2p_comm_buffers[0]): K and V at their own
   * head dims (latent attention: V at v_head_dim) */
  double kv = b.k + b.v;
  int32_t f, bw;
  r = sim_coll_add(st, PL_COLL_SEND_RECV, group, kv, &f, diag);
  if (r == PL_OK)
    r = sim_coll_add(st, PL_COLL_SEND_RECV, group, 2.0 * kv, &bw, diag);
  if (r != PL_OK)
    return r;
  sim_comm_set(&s->cp[PL_PASS_FWD], f, (int32_t)(ring - 1));
  sim_comm_set(&s->cp[PL_PASS_BWD], bw, (int32_t)(ring - 1));
  return PL_OK;
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

/* Whether the backward re-runs these memory ops: full recompute re-runs the
 * block, ops recompute the listed ops (the ops below are all among them). */
static bool ops_rerun(const struct pl_layout *l) {
  return l->recompute == PL_RECOMPUTE_FULL || l->recompute == PL_RECOMPUTE_OPS;
}

/* Element-wise work eager PyTorch modules do beyond the op list's fused
 * minimum (layout.kernels = unfused; docs/step-model.md section 2.3b), per
 * element, forward / backward extra bytes:
 *  - RMSNorm as HF LlamaRMSNorm runs it (to fp32, pow, mean, * rsqrt, to
 *    bf16, * weight: 36 B forward against the fused 4 B): +32 B forward.
 *    Its autograd backward, node by node (PyTorch tools/autograd/
 *    derivatives.yaml, torch/csrc/autograd/FunctionsManual.cpp), per
 *    element with a bf16 weight: y = w * g: grad * g (4 + 2) summed over the
 *    rows for dw (2), grad * w (2 + 2): 12 B; g = f.to(bf16): the cast back
 *    (2 + 4): 6 B; f = a * rstd: grad * rstd (4 + 4), grad * a (8 + 4)
 *    summed per row (4): 24 B; mean: mean_backward's expand / N written
 *    (4): 4 B; a.pow(2): pow_backward's grad * (2 * a.pow(1)), where pow by
 *    1 is a copy (aten Pow.cpp pow_Tensor_Scalar_out: out.copy_(base)),
 *    (4 + 4) + (4 + 4) + (8 + 4): 28 B; the two gradients of a summed in
 *    the engine's InputBuffer (8 + 4): 12 B; a = x.float(): the cast back
 *    (4 + 2): 6 B. 92 B against the fused 6 B: +86 B. Checked against
 *    Liger-Kernel's published A100 timings of the same chain
 *    (data/published/liger-kernel/: its fp32 weight adds 8 B, 100 B), whose
 *    backward then runs at the forward's fraction of the bandwidth at every
 *    width (0.568 / 0.573 at 2048, 0.556 / 0.559, 0.609 / 0.602, 0.640 /
 *    0.634 at 16384; on 64 B it would be 0.36-0.41);
 *  - SwiGLU as `act_fn(gate_proj(x)) * up_proj(x)`: silu writes s and the
 *    multiply reads it back (+4 B forward); backward the multiply's two
 *    gradients and silu_backward, 18 B against the fused 10 (+8 B) per ffn
 *    element (itemized below);
 *  - RoPE as HF apply_rotary_pos_emb (q*cos + rotate_half(q)*sin: neg, cat,
 *    two multiplies, an add: 20 B against 4 B; backward 30 B against 4 B,
 *    itemized below): +16 / +26 B per q and k element; with layout.fms_rope as IBM fms's
 *    RotaryEmbedding.adjusted_qk (fms/modules/positions.py, foundation-model-
 *    stack ec70f500, 2024-03-10, the form since b85a0d8c of 2024-02-26):
 *    q.float() (2 + 4), freqs.mul(q_.unsqueeze(-2)) into a [.., d/2, 2, 2]
 *    fp32 tensor twice q's size (4 + 8), .sum(5) (8 + 4), .type_as(q)
 *    (4 + 2): 36 B; backward (autograd) type_as's cast to fp32 (2 + 4), the
 *    multiply's grad * freqs over the expanded sum gradient (4 + 8) and its
 *    sum_to_size back over the broadcast dim (8 + 4), the cast back to bf16
 *    (4 + 2): 36 B; +32 / +32 B per q and k element, four kernels each way
 *    for each of q and k (the op list's rope counts one); the freqs gather
 *    (per token, shared by the heads) is not counted;
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
  bool full = ops_rerun(l);
  if (l->kernels != PL_KERNELS_UNFUSED || n + 4 > PL_MAX_LAYER_OPS)
    return n;
  /* layout.fused_norm: torchtitan's Triton FusedRMSNorm (torchtitan/models/
   * norms.py @ 1ea476e9f, _rms_norm_fwd_kernel / _rms_norm_bwd_kernel_sm):
   * one kernel reads x (and w, per row from cache) and writes y and a
   * per-row rstd, the fused op's 4 B per element; the backward reads x, dy
   * (and w, rstd) and writes dx, 6 B, plus a [sm_count, N] fp32 partial dw
   * summed by one more kernel (not counted: 4 B x sm_count x N against
   * 6 B x tokens x N). No eager chain then. */
  /* the block's norms: two, one in the parallel block (layout.parallel_block,
   * flops.c pl_layer_ops); its two branches keep their dropouts */
  double norms = l->parallel_block ? 1.0 : 2.0;
  if (m->norm == PL_NORM_RMS && !l->fused_norm)
    mem_op(&ops[n++], "rmsnorm_eager", norms * 32.0 * tokens_n * h, norms * 86.0 * tokens_n * h, full);
  /* F.layer_norm's backward (pytorch/pytorch aten/src/ATen/native/cuda/
   * layer_norm_kernel.cu LayerNormBackwardKernelImplInternal) runs the input
   * gradient (layer_norm_grad_input_kernel: reads dY and X, writes dX, the
   * norm op's 6 B per element) and then the weight and bias gradients in a
   * kernel of their own (GammaBetaBackwardCUDAKernel / _32x32 / Simple, by
   * shape) that reads dY and X again: +4 B per element of each of the
   * block's two norms, no launch of its own (the norm op's backward counts
   * its kernels, flops.c norm_op). Liger-Kernel's A100 timings of
   * nn.LayerNorm agree: forward + backward less forward runs at 0.53-0.59 of
   * the HBM on the 20 B per fp32 element of both passes, against 0.51-0.57
   * for the forward (data/gpus/a100-80g.json layer_norm_eager). Eager runs
   * only: apex's fused LayerNorm re-reads too (cuComputePartGradGammaBeta),
   * Transformer Engine's ln_bwd does not (its partials come out of the
   * input-gradient pass), and the fused op list does not tell them apart. */
  if (m->norm == PL_NORM_LAYER) {
    mem_op(&ops[n], "layernorm_eager", 0, norms * 4.0 * tokens_n * h, false);
    ops[n++].bwd_kernels = -1;
  }
  /* SwiGLU as F.silu(w1(x)) * w3(x) (HF LlamaMLP, torchtitan FeedForward),
   * per FFN element, bf16: forward silu (2 + 2) and the multiply (4 + 2),
   * 10 B in two kernels; backward (PyTorch derivatives.yaml: mul saves both
   * inputs, SiluBackward its input) grad * w3(x) (4 + 2), grad * silu(w1(x))
   * (4 + 2), silu_backward (4 + 2): 18 B in three kernels. The op list's
   * fused swiglu counts 6 / 10 B and one kernel each way (flops.c SWIGLU),
   * so +4 / +8 B and one / two kernels more (session 26: the backward was
   * +6 B, one kernel). */
  if (m->mlp == PL_MLP_SWIGLU) {
    double f = (double)(m->ffn_hidden / tp);
    mem_op(&ops[n], "swiglu_eager", 4.0 * tokens * f, 8.0 * tokens * f, full);
    ops[n].bwd_kernels = 2;
    /* One fc1 GEMM for gate and up (the op list's, without
     * layout.separate_linears), split by torch.chunk into two views with the
     * full row's stride: F.silu(gate) and the multiply by up take PyTorch's
     * non-vectorized path (an operand not contiguous: CUDALoops.cuh
     * gpu_kernel_impl_nocast; compute.c strided_extra_s), forward 2
     * elements, 10 B per ffn element, backward grad * up and silu_backward
     * on the gate half, 2 elements, 12 B (grad * silu reads two contiguous
     * tensors); and chunk's backward (derivatives.yaml: split_backward, an
     * at::cat) writes the two half gradients into the fc1 output gradient,
     * read 2 + 2, write 2 + 2 B per ffn element, one kernel. The project's
     * H100 trace (bench/gpu/run_all.py Block: fc1(...).chunk(2)) runs silu
     * and mul as elementwise_kernel<128, 4> (1.55 and 1.61 ms per step),
     * SplitBackward0's cat 1.44 ms. Not under layout.jit_eager, whose
     * SWIGLU_EAGER already counts Megatron's chunked kernels (flops.c). The
     * strided bytes span this op and the op list's swiglu, so they are set
     * here on the whole chain's elements. */
    if (!l->separate_linears && !l->jit_eager) {
      ops[n].bwd_bytes += SWIGLU_CHUNK_CAT_BWD_BYTES * tokens * f;
      ops[n].bwd_kernels += 1;
      ops[n].fwd_strided_elems = 2.0 * tokens * f;
      ops[n].fwd_strided_bytes = 10.0 * tokens * f;
      ops[n].bwd_strided_elems = 2.0 * tokens * f;
      ops[n].bwd_strided_bytes = 12.0 * tokens * f;
    }
    n++;
  }
  if (m->pos == PL_POS_ROTARY && !l->rope_complex) { /* complex RoPE: its own op (rope_complex) */
    double qk = (double)(m->heads + m->kv_heads) / (double)tp * (double)m->head_dim;
    if (l->fms_rope) {
      mem_op(&ops[n], "rope_eager", 32.0 * tokens * qk, 32.0 * tokens * qk, full);
      ops[n].fwd_kernels = ops[n].bwd_kernels = 7; /* 2 x 4, less the op list's rope */
      n++;
    } else {
      /* HF apply_rotary_pos_emb (transformers >= 4.42 models/llama/
       * modeling_llama.py: q * cos + rotate_half(q) * sin, rotate_half =
       * cat((-x[..., d/2:], x[..., :d/2]))), per q or k element, bf16:
       * forward q * cos (2 + 2), neg of the half (1 + 1), cat (2 + 2),
       * * sin (2 + 2), the add (4 + 2): 20 B, five kernels. Backward node by
       * node (PyTorch tools/autograd/derivatives.yaml; aten TensorShape.cpp
       * slice_backward = zeros + copy of the slice): grad * cos and
       * grad * sin (4 + 4), neg of the half (2), cat's backward narrows
       * (views), the two slices' slice_backward (zeros 2 + copy of the half
       * 2, twice: 8), the three gradients of q summed by the autograd
       * engine's InputBuffer (two adds, 6 + 6): 30 B, nine kernels (the
       * op list's rope: 4 B and one kernel each way). */
      mem_op(&ops[n], "rope_eager", 16.0 * tokens * qk, 26.0 * tokens * qk, full);
      ops[n].fwd_kernels = 9;  /* 2 x 5, less the op list's rope */
      ops[n].bwd_kernels = 17; /* 2 x 9, less the op list's rope */
      n++;
    }
  }
  if (m->dropout)
    mem_op(&ops[n++], "dropout_eager", 2.0 * 4.0 * tokens_n * h, 0, full);
  return n;
}

/* layout.kv_expand_copy: GQA attention that hands SDPA K and V already
 * expanded to every query head. IBM fms's MultiHeadAttention.forward
 * (fms/modules/attention.py, foundation-model-stack ec70f500, 2024-03-10;
 * the same at 61e1ca53, 2024-05-09): keys.unsqueeze(2).expand(-1, -1,
 * expansion, -1, -1).flatten(1, 2), and the same for values; the expanded
 * dim has stride 0, so flatten cannot be a view and copies. Per token, with
 * a query and g kv heads per tp rank (g < a) of head_dim d, for K and for V:
 * read 2 g d, write 2 a d bytes; the backward of the expand sums the a-head
 * gradient back onto g heads: read 2 a d, write 2 g d. One kernel each way
 * for each of K and V; run again by a recomputed forward. The fused
 * attention kernel then reads a heads of K and V instead of g (compute-bound,
 * not counted). */
static int kv_expand_ops(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  struct layer_tokens t = layer_tokens_of(run);
  double a = (double)(m->heads / t.tp), g = (double)(m->kv_heads / t.tp);
  if (!l->kv_expand_copy || !(g >= 1.0 && g < a) || m->kv_lora_rank > 0 ||
      n + 1 > PL_MAX_LAYER_OPS)
    return n;
  bool full = ops_rerun(l);
  double bytes = 2.0 * 2.0 * t.tokens * (a + g) * (double)m->head_dim; /* K and V */
  mem_op(&ops[n], "kv_expand", bytes, bytes, full);
  ops[n].fwd_kernels = ops[n].bwd_kernels = 2;
  /* The forward copies read a broadcast (stride-0) view, so their
   * TensorIterator is not contiguous: reshape's clone -> copy_ ->
   * direct_copy_kernel_cuda -> gpu_kernel_nocast runs the non-vectorized
   * launch_legacy_kernel (aten/src/ATen/native/cuda/Copy.cu, CUDALoops.cuh;
   * the path of flops.c GQA_QUERY_COPY): one element per K and V element
   * written, a heads each, on the GPU file's per-element rate where it has
   * one (compute.c strided_extra_s; this project's H100 trace
   * gt_h100_llama3.2-1b_seq4096 runs the copy_ of [1, 8, 4, 4096, 64] as
   * elementwise_kernel<128, 4, gpu_kernel_impl_nocast> in 22.98 us). The
   * backward's sums over the expanded dim are reductions, another kernel
   * family. */
  ops[n].fwd_strided_elems = 2.0 * t.tokens * a * (double)m->head_dim;
  ops[n].fwd_strided_bytes = bytes;
  return n + 1;
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
  /* latent attention: no QKV GEMM; its k/v split and concatenation are the
   * RoPE kernels' work (flops.c mla_rope_bytes) */
  if (n + 1 > PL_MAX_LAYER_OPS || run->model.kv_lora_rank > 0)
    return n;
  if (run->layout.separate_linears) {
    /* separate linears (layout.separate_linears, torchtitan's wq, wk, wv and
     * w1, w3): no split to undo; the block's attention input feeds three
     * linears and its MLP input two (gated MLP), so autograd sums their input
     * gradients (tokens x hidden each): eager PyTorch accumulates them in its
     * InputBuffer one add at a time (torch/csrc/autograd/input_buffer.cpp
     * accumulate: each add reads two and writes one, 6 B per element: 12 B
     * for three gradients, 6 B for two), torch.compile's backward graph has
     * the adds as one fused pointwise kernel (read all, write one: 8 B for
     * three, 6 B for two) */
    bool eager = run->layout.kernels == PL_KERNELS_UNFUSED;
    double h = t.tokens * (double)run->model.hidden;
    mem_op(&ops[n], "qkv_grad_sum", 0, (eager ? 12.0 : 8.0) * h, false);
    ops[n++].bwd_kernels = eager ? 2 : 1;
    if (run->model.mlp == PL_MLP_SWIGLU && run->model.ffn_hidden > 0 && n + 1 <= PL_MAX_LAYER_OPS)
      mem_op(&ops[n++], "fc1_grad_sum", 0, 6.0 * h, false);
    return n;
  }
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
/* fp8-rowwise: torchao's Float8Linear with the "rowwise" recipe
 * (torchtitan --float8.recipe_name rowwise; torchao/float8/config.py
 * Float8LinearConfig.from_recipe_name ROWWISE at 6243040, the torchao of
 * torchtitan's June 2025 async-TP benchmark: AXISWISE e4m3 casts of input,
 * weight and output gradient, round_scales_to_power_of_2). The casts are
 * tensorwise's (float8_linear.py matmul_with_hp_or_float8_args, one amax
 * read per row or column instead of per tensor, the same 5 B per element):
 * forward the input (along K) and the weight, backward the output gradient
 * along each axis, the weight along the other axis and the input along M.
 * Two differences are charged:
 *  - each nn.Linear casts its own input: no Float8 TP style casts a shared
 *    input once (torchtitan apply_tp uses PrepareFloat8ModuleInput only with
 *    enable_float8_tensorwise_tp, 820504e), and torchtitan's Llama has
 *    separate wq, wk, wv and w1, w3 (models/llama3/model.py Attention,
 *    FeedForward), so the QKV GEMM's input is cast 3 times per pass and a
 *    gated MLP's fc1 input twice (rowwise_input_casts);
 *  - the backward GEMMs (use_fast_accum False: Float8LinearConfig
 *    gemm_config_grad_input / grad_weight) run cuBLAS's tensorwise kernel
 *    with unit scales and multiply the scales into the 16-bit output after it
 *    (float8_ops.py addmm_float8_unwrapped: "The rowwise CUTLASS-based kernel
 *    is so slow without fast-accum that we'd rather use the tensorwise
 *    cuBLAS-based kernel and do the scaling manually afterwards"), which
 *    under torch.compile is "at least one extra triton kernel *per GEMM*"
 *    (pytorch/ao issue 2184): read and write 2 B per dgrad (m x k) and
 *    wgrad (k x n) output element.
 * The forward GEMM (use_fast_accum True) runs PyTorch's CUTLASS rowwise
 * kernel, timed at the FP8 rate: "most shapes are within 90-100% of
 * tensor-wise efficiency" with fast accumulation (pytorch/pytorch issue
 * 147971), no per-shape table published. */
#define ROWWISE_RESCALE_BYTES (2.0 + 2.0)

static double rowwise_input_casts(const struct pl_run *run, const struct pl_op *o) {
  if (o->count == 1 && strcmp(o->name, "qkv") == 0)
    return 3.0;
  if (o->count == 1 && strcmp(o->name, "fc1") == 0 && run->model.mlp == PL_MLP_SWIGLU)
    return 2.0;
  return 1.0;
}

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
   * cast_master_weights_to_fp8, core_v0.16.0): 1 / pl_layout_shard_ranks of it. The
   * transpose Hopper's FP8 GEMMs need for dgrad is not modelled. */
  if (pl_layout_te_fp8_params(l) && fp8_gathered_weights(run) > 0)
    weight_share /= (double)pl_layout_shard_ranks(l);
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
  bool tensorwise = pl_layout_fp8_tensorwise(l), rowwise = pl_layout_fp8_rowwise(l);
  const double tw_cast = 2.0 + 2.0 + pl_dtype_element_bytes(l->dtype);
  /* with layout.fp8_all_gather (fp8_gathered_weights) the weight is cast once per
   * gather, on the local shard (1 / pl_layout_shard_ranks of it), and not in backward */
  bool gathered_fp8 = tensorwise && fp8_gathered_weights(run) > 0;
  double w_fwd = gathered_fp8 ? 1.0 / (double)pl_layout_shard_ranks(l) : 1.0;
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
      /* without tp torchtitan applies no Float8 TP style (apply_tp, which
       * casts a block input once for all its linears with
       * PrepareFloat8ModuleInput, runs only with tp > 1), so with separate
       * linears each Float8Linear casts its own input, forward and backward,
       * as under the rowwise recipe */
      int lin = pl_op_tp_linear(o);
      if (l->tp > 1 && lin >= 0) {
        /* torchao's Float8 TP styles (torchao/float8/float8_tensor_parallel.py;
         * torchtitan apply_tp with float8 tensorwise, 9dec370 and 820504e):
         * PrepareFloat8ModuleInput casts the attention's and the MLP's
         * sequence-sharded input once, before the fp8 all_gather, for all
         * their column-parallel linears (m / tp x k); Float8RowwiseParallel
         * casts the row-parallel linear's input (m x k); each linear then
         * gets a Float8Tensor, so Float8Linear neither casts it again nor
         * re-casts it in backward (the saved input is fp8); each output's
         * _NoopFwToFloat8BwDynamic casts its gradient once for dgrad and
         * wgrad, after the row-parallel output's reduce_scatter, i.e. on the
         * shard (m / tp x n), the column-parallel ones whole (m x n). The
         * weights as without tp. The fp8 tensors the wgrad GEMM reuses come
         * from a collective or the saved forward, so torchao's
         * preprocess_addmm (float8_ops.py: a_data.contiguous() when a is
         * not row-major, b_data.t().contiguous().t() when b is) copies them
         * into the layouts torch._scaled_mm needs: grad_output.t() (m x n)
         * and the input (m x k), 1 B read and 1 B written per element, once
         * per tensor (AOTAutograd's CSE merges the copies of one input its
         * linears share). */
        double tp = (double)l->tp;
        bool col = lin < 2;
        fwd += tw_cast * c * ((col ? m * k / tp : m * k) + w_fwd * k * nn);
        bwd += tw_cast * c * ((col ? m * nn : m * nn / tp) + w_bwd * k * nn) +
               2.0 * c * (m * k + m * nn);
        continue;
      }
      double in = l->separate_linears && l->tp <= 1 ? rowwise_input_casts(run, o) : 1.0;
      fwd += tw_cast * c * (in * m * k + w_fwd * k * nn);
      bwd += tw_cast * c * (2.0 * m * nn + w_bwd * k * nn + in * m * k);
      continue;
    }
    if (rowwise) {
      double in = rowwise_input_casts(run, o);
      fwd += tw_cast * c * (in * m * k + k * nn);
      bwd += tw_cast * c * (2.0 * m * nn + k * nn + in * m * k) +
             ROWWISE_RESCALE_BYTES * c * (m * k + k * nn);
      continue;
    }
    /* a frozen weight (LoRA, pl_op.frozen) has no wgrad GEMM, so Transformer
     * Engine quantizes its input and its output gradient rowwise only: one
     * copy, not the columnwise one wgrad reads (transformer_engine/pytorch/
     * module/linear.py and layernorm_linear.py _Linear.forward:
     * backward_needs_input = is_grad_enabled and weight.requires_grad,
     * input_quantizer.set_usage(columnwise=backward_needs_input); backward:
     * without bias and requires_wgrad, grad_output_quantizer.set_usage(
     * columnwise=False), v2.10+ and d0067d0); its weight keeps both copies
     * (the dgrad GEMM reads it transposed) */
    double act_elem = o->frozen ? 2.0 + pl_dtype_element_bytes(l->dtype) : per_elem;
    if (cached || amax > 0) {
      /* the weight's cast reads it for its amax too under current scaling and
       * NVFP4 (Float8CurrentScalingQuantizer / NVFP4Quantizer quantize_impl
       * compute the amax of every tensor they quantize) */
      fwd += (act_elem + amax + rht_pass) * c * m * k * in_k + (per_elem + amax) * weight_share * c * k * nn;
      bwd += (act_elem + amax + rht_pass) * c * m * nn * go_k;
      continue;
    }
    fwd += act_elem * c * m * k * in_k + per_elem * c * k * nn;
    bwd += act_elem * c * m * nn * go_k;
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

/* FSDP2's gradient passes before the reduce_scatter, bytes per parameter
 * (docs/step-model.md 2.3c): the copy-in and cast into the fp32 input
 * (foreach_reduce_scatter_copy_in's torch.cat, later torch._chunk_cat: read
 * 2, write 4) and, with layout.fsdp2_predivide and a bf16 reduce (FSDP2 of
 * the PyTorch 2.3 line, torch/distributed/_composable/fsdp/
 * _fsdp_collectives.py foreach_reduce_scatter: `_div_if_needed(
 * reduce_scatter_input, predivide_factor)` right after the copy-in;
 * _fsdp_param_group.py _init_grad_divide_factors: the factor doubles from 1
 * while dp % f == 0 and dp / f > f, so it is 2 or more for any dp >= 2),
 * the in-place division: read + write 2 B. An fp32 reduce has no pre-divide
 * from pytorch/pytorch #120919 (2024-02-29, ahead of the 2.3 branch:
 * ReduceOp.AVG, the division inside NCCL); bf16 followed in #123362
 * (2024-04-04: 2.4). The post-division of the 1/dp shard is ignored, as
 * the accumulation. */
static double fsdp2_reduce_pass_bytes(const struct pl_layout *l) {
  double b = 6.0;
  if (l->fsdp2_predivide && l->dp >= 2 && l->grad_reduce_bf16)
    b += 2.0 * 2.0;
  return b;
}

/* The zero2/zero3 passes are FSDP2's (not FSDP1's flat parameter, not
 * DeepSpeed 2021's per-parameter path), and with layout.fsdp2_rs_copy_in the
 * copy-in leaves the unit for a task of its own (sim_seg.rs_copy_s), which
 * only exists where every backward reduce_scatters (dp >= 2; not the
 * pipelined FSDP of layout.fsdp_pp_unsharded, PyTorch 2.6+, which reduces
 * once after the last backward: lower.c fsdp_pp_flush). */
static bool fsdp2_copy_in_apart(const struct pl_layout *l) {
  bool fsdp2 = (l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3) && !l->fsdp1_copies &&
               !(l->shard == PL_SHARD_ZERO3 && l->zero3_list_copy_s > 0);
  return fsdp2 && l->fsdp2_rs_copy_in && l->dp >= 2 && !(l->fsdp_pp_unsharded && l->pp > 1);
}

static int param_kernels(const struct pl_run *run, enum sim_seg_kind kind, double params,
                         double tensors, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  /* the parameters an FSDP unit gathers and copies out: under LoRA the
   * frozen base weights too, though only the adapters take gradients
   * (sim_seg_gathered_params) */
  double gathered = sim_seg_gathered_params(run, kind);
  bool sharded = l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
  if ((params <= 0 && !(sharded && gathered > 0)) || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  if (l->shard == PL_SHARD_DDP || l->shard == PL_SHARD_ZERO1) {
    /* layout.grad_accum_fusion: the weights' adds are in their wgrad GEMMs (grad_accum.c) */
    struct sim_grad_accum ga = sim_grad_accum_unfused(run, kind, params, tensors, ops, n);
    params = ga.params;
    tensors = ga.tensors;
    double eager = sim_eager_ddp_accum_bytes(run, kind); /* eager PyTorch: eager_accum.c */
    mem_op(&ops[n++], "grad_accum", 0,
           (eager >= 0 ? eager : l->grad_accum_cast ? 18.0 : 10.0) * params, false);
    /* Launches: both adds run per parameter tensor, a Python loop over the
     * parameters (BF16_Optimizer.update_hp_grads: `for lp in group`, a cast
     * and an add each) or one autograd hook per parameter (Megatron-LM
     * _make_param_hook, PyTorch AccumulateGrad): tensors x 2 with the cast,
     * x 1 without (docs/step-model.md 2.6); with Megatron's
     * --gradient-accumulation-fusion only the tensors grad_accum.c leaves. */
    ops[n - 1].bwd_kernels = (int)llround(tensors * (l->grad_accum_cast ? 2.0 : 1.0));
    if (eager == 0) /* every gradient stolen, no DDP copies: no kernel */
      ops[n - 1].bwd_kernels = 0;
    return n;
  }
  if (l->shard == PL_SHARD_ZERO3 && l->zero3_list_copy_s > 0) {
    /* DeepSpeed 2021's per-parameter path: sim_zero3_list_gather_bytes (fsdp_comm.c); the
     * gradients' passes with zero3_grad_all_reduce are the buckets'
     * (zero3_bucket_passes_s, charged with the all_reduce), else FSDP2's
     * 6 B below (not re-derived for DeepSpeed's ipg buffer) */
    double grad = l->zero3_grad_all_reduce ? 0.0 : 6.0 * params;
    mem_op(&ops[n++], "fsdp_copies", sim_zero3_list_gather_bytes(run, kind, PL_PASS_FWD),
           sim_zero3_list_gather_bytes(run, kind, PL_PASS_BWD) + grad, false);
    if (l->zero3_debug_norm && n + 1 <= PL_MAX_LAYER_OPS)
      zero3_debug_norm_op(run, kind, params, tensors, &ops[n++]);
    return n;
  }
  if (l->fsdp1_copies) {
    /* layout.fsdp1_copies, PyTorch FSDP1 (torch/distributed/fsdp/_flat_param.py,
     * _runtime_utils.py, v2.1-v2.3): _all_gather_flat_param gathers straight
     * into the padded unsharded FlatParameter and the module's parameters are
     * its views (split + view; nothing copied, forward or backward re-gather);
     * autograd's split backward (split_with_sizes_backward: at::cat) writes
     * the flat 16-bit gradient: read + write 2 B; _post_backward_hook casts it
     * to the reduce dtype (flat_param.grad.to(_reduce_dtype): read 2, write
     * 4 B when fp32) and _reduce_grad pre-divides it in place
     * (_div_if_needed(padded_unsharded_grad, _gradient_predivide_factor),
     * a factor > 1 for any group of 2 or more: DefaultState.
     * _get_gradient_predivide_factor; read + write 4 B fp32, 2 B bf16) before
     * reduce_scatter_tensor. Shard-sized passes (post-divide, cast back)
     * ignored as for FSDP2. */
    double grad = l->grad_reduce_bf16 ? 4.0 + 4.0 : 4.0 + 6.0 + 8.0;
    mem_op(&ops[n++], "fsdp_copies", 0, grad * params, false);
    return n;
  }
  /* routed experts outside every FSDP unit (ep > 1, edp 1: sim_fsdp_expert_params):
   * no copy-in or copy-out; their bf16 gradients accumulate over the
   * micro-batches as plain parameters' do (autograd's AccumulateGrad adds
   * each backward's gradient to .grad: read 2 + 2, write 2 B per parameter) */
  double outside = run->layout.edp <= 1 ? sim_fsdp_expert_params(run, kind) : 0.0;
  if (outside > 0 && n + 2 <= PL_MAX_LAYER_OPS) {
    params -= outside;
    gathered -= outside;
    mem_op(&ops[n++], "expert_grad_accum", 0, 6.0 * outside, false);
  }
  /* the copy-in (+ pre-divide) of the gradients here, or apart
   * (fsdp2_copy_in_apart, price) */
  double bwd = fsdp2_copy_in_apart(l) ? 0.0 : fsdp2_reduce_pass_bytes(l) * params;
  /* the copy-out of the gathered parameters; zero3's backward re-gather
   * copies out again, but not the root unit's segments: kept gathered from
   * the forward (layout.fsdp_root_unit) */
  if (l->shard == PL_SHARD_ZERO3 && !(sim_fsdp_root_unit(l) && kind != SIM_SEG_LAYER))
    bwd += 4.0 * gathered;
  mem_op(&ops[n++], "fsdp_copies", 4.0 * gathered, bwd, false);
  return n;
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
  if (l->tp_comm_overlap || (l->async_tp && !pl_layout_fp8_rowwise(l))) {
    mem_op(&ops[n++], "tp_seq_copies", 0, per * 2.0 * ACT_BYTES * full, false);
    return n;
  }
  if (l->async_tp) {
    /* rowwise: the all_gathers are not fused (lower_unit.c atp_windows), so
     * their copies stay; the forward's reduce_scatters are */
    double bwd = per * (2.0 * ag_g + 2.0 * ACT_BYTES) * full;
    if (l->recompute == PL_RECOMPUTE_OPS)
      bwd += per * 2.0 * ag_f * full;
    mem_op(&ops[n++], "tp_seq_copies", per * 2.0 * ag_f * full, bwd,
           l->recompute == PL_RECOMPUTE_FULL);
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

/* Context parallelism as Megatron-Core runs it (cp > 1 without
 * layout.cp_allgather): Transformer Engine's AttnFuncWithCPAndKVP2P
 * (transformer_engine/pytorch/attention/dot_product_attention/
 * context_parallel.py, release v2.8, which MLPerf v5.1's NeMo 25.09 image
 * builds) merges each ring step's partial result outside the attention
 * kernel. Counted on the ring's last rank, whose every step takes the full
 * query (sections "diagonal" and "lower-triangle"; the other ranks take half
 * of it in some steps) and which the others wait for at the next exchange;
 * 16-bit attention (fp8 attention keeps fp32 buffers, not counted here), the
 * sbhd layout Megatron passes (a [2, s/2, ...] half is contiguous, so the
 * per-step q/k/v slices copy nothing), each jit_fuser function one kernel.
 * E = mbs x seq/cp x heads/tp x head_dim query elements, K = mbs x seq/cp x
 * kv_heads/tp x head_dim elements of K (and of V), 2 B each:
 *   forward: torch.cat of K and V into the first send buffer 8K;
 *     flash_attn_fwd_out_correction_init of step 0 (read the step's output,
 *     write out) 4E; flash_attn_fwd_out_correction of each later step
 *     (out.add_ of the step's output times exp(lse_step - lse): read both,
 *     write out) 6E:  fwd = 8K + (4 + 6 (cp - 1)) E;
 *   backward: p2p_comm_buffers[0][0].copy_(kv) 8K; dq.copy_(dq_) at step 0
 *     4E and dq.add_(dq_) at each later step 6E; dk[0], dv[0].copy_ of the
 *     half-size step-0 gradients 4K, dk[0], dv[0].add_ of the half-size
 *     gradients of steps 1 .. cp - 2 6K each, dk, dv.add_ of the diagonal
 *     step cp - 1 12K:  bwd = (24 + 6 (cp - 2)) K + (4 + 6 (cp - 1)) E.
 * The softmax-LSE corrections are 1/head_dim of the output's elements (fp32
 * per query and head): their bytes are not counted, their kernels are
 * (forward: the cat, the LSE clone, cp - 1 LSE corrections, cp output
 * corrections; backward: the copy, cp dq and 2 cp dk/dv kernels). */
/* Transformer Engine's cp work outside the attention kernels (the merges,
 * the copies) is part of one autograd Function with the kernels
 * (context_parallel.py AttnFuncWithCPAndKVP2P / ...KVAllGather /
 * ...QKVOA2A), so it re-runs whenever the attention core does: full
 * recomputation, or Megatron-Core's selective core_attn
 * (attention.py _checkpointed_attention_forward checkpoints the whole
 * core_attention call). */
static bool te_cp_rerun(const struct pl_layout *l, const struct pl_op *ops, int n) {
  for (int i = 0; i < n; i++)
    if (ops[i].kind == PL_OP_ATTENTION)
      return ops[i].recompute;
  return l->recompute == PL_RECOMPUTE_FULL;
}

static int cp_p2p_merge_ops(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  const struct pl_model *m = &run->model;
  /* a2a+p2p: the ring spans cp / cp_a2a ranks, each holding cp_a2a x the
   * tokens of 1/cp_a2a of the heads (E and K unchanged) */
  int64_t ring = l->cp / pl_layout_cp_a2a_ranks(l);
  if (l->cp_allgather || l->cp_comm == PL_CP_ALL_GATHER || ring <= 1 || l->fp8_attention ||
      m->heads <= 0 || n + 1 > PL_MAX_LAYER_OPS)
    return n;
  double cp = (double)ring;
  double tok = (double)l->mbs * (double)(l->seq / l->cp) * (double)m->head_dim;
  double e = tok * (double)m->heads / (double)l->tp;
  double k = tok * (double)(m->kv_heads > 0 ? m->kv_heads : m->heads) / (double)l->tp;
  double fwd = ACT_BYTES * (4.0 * k + (2.0 + 3.0 * (cp - 1.0)) * e);
  double bwd = ACT_BYTES * ((12.0 + 3.0 * (cp - 2.0)) * k + (2.0 + 3.0 * (cp - 1.0)) * e);
  mem_op(&ops[n], "cp_p2p_merge", fwd, bwd, te_cp_rerun(l, ops, n));
  ops[n].fwd_kernels = 2 * (int)ring + 1;
  ops[n].bwd_kernels = 3 * (int)ring + 1;
  return n + 1;
}

/* The copies around Transformer Engine's exposed cp exchanges
 * (layout.cp_comm; context_parallel.py, v2.20.0.dev0 @ d0067d0), 16-bit
 * attention in the sbhd layout Megatron passes (movedim of dim 0 to dim 0
 * and slices of [2, s/2, ...] halves copy nothing). E = mbs x seq/cp x
 * heads/tp x head_dim query elements, K = mbs x seq/cp x kv_heads/tp x
 * head_dim elements of K (and of V), 2 B each, read and written.
 * all_gather (AttnFuncWithCPAndKVAllGather): forward, torch.index_select of
 *   k_ag and v_ag into sequence order (2 x 2 cp K x 2 B = 8 cp K),
 *   out_f16[i].copy_(out_per_step[i]) of the two half-query steps (4E) and
 *   the accumulator's torch.zeros(o_shape) (2E, at d0067d0 for every format);
 *   backward, the same index_select (8 cp K), torch.zeros of the cp-wide dk
 *   and dv (4 cp K), dq[i].copy_ (4E), dk/dv[range].add_ of each step's
 *   gradient (read both, write one: the two steps' ranges hold 2 cp + 1 of
 *   the 2 cp half chunks, 12 (cp + 1/2) K) and the index_select of dk and dv
 *   back to rank order (8 cp K):  fwd = 8 cp K + 6E,
 *   bwd = (32 cp + 6) K + 4E; 5 and 12 kernels (dq is torch.empty for sbhd).
 * a2a (flash_attn_a2a_communicate, AttnFuncWithCPAndQKVOA2A; the a2a of
 *   a2a+p2p the same): each exchanged tensor is copied twice, before its
 *   all_to_all (movedim of the split head dim .contiguous(), or the
 *   reorder's index_select) and after it (the reorder's index_select, or the
 *   movedim .contiguous()): 8 B per element; forward Q, K, V, O, backward
 *   dO, dQ, dK, dV:  fwd = bwd = 16 E + 16 K bytes, 8 kernels each way. */
static int cp_te_copies(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  const struct pl_model *m = &run->model;
  bool ag = l->cp_comm == PL_CP_ALL_GATHER, a2a = pl_layout_cp_a2a_ranks(l) > 1;
  if (l->cp_allgather || l->cp <= 1 || (!ag && !a2a) || l->fp8_attention || m->heads <= 0 ||
      n + 1 > PL_MAX_LAYER_OPS)
    return n;
  double cp = (double)l->cp;
  double tok = (double)l->mbs * (double)(l->seq / l->cp) * (double)m->head_dim;
  double e = tok * (double)m->heads / (double)l->tp;
  double k = tok * (double)(m->kv_heads > 0 ? m->kv_heads : m->heads) / (double)l->tp;
  double fwd = ag ? 8.0 * cp * k + 6.0 * e : 16.0 * e + 16.0 * k;
  double bwd = ag ? (32.0 * cp + 6.0) * k + 4.0 * e : 16.0 * e + 16.0 * k;
  mem_op(&ops[n], ag ? "cp_ag_copies" : "cp_a2a_copies", fwd, bwd, te_cp_rerun(l, ops, n));
  ops[n].fwd_kernels = ag ? 5 : 8;
  ops[n].bwd_kernels = ag ? 12 : 8;
  return n + 1;
}

/* layout.rope_complex: RoPE as torchtitan computes it (apply_rotary_emb,
 * models/llama/model.py 9dec370, models/llama3/model/model.py 820504e): per q
 * and k tensor xq.float() (read 2 B, write 4 B), view_as_complex (a view),
 * the complex multiply by freqs_cis (read and write 4 B per real element;
 * freqs_cis is seq x head_dim/2, negligible), view_as_real and flatten
 * (views), type_as (read 4 B, write 2 B): 20 B per element against the fused
 * rope op's 4 B, +16 B forward; the backward the same chain reversed (cast the
 * gradient up, multiply by conj(freqs_cis), cast down), +16 B. TorchInductor
 * generates no code for complex tensors (torch/_inductor/lowering.py
 * unsupported_input_tensor: the complex multiply becomes an eager ATen
 * fallback kernel; pytorch/torchtitan issue 15 reports the warning for this
 * RoPE), and the casts around it cannot fuse into the GEMM or attention
 * kernels on either side, so the chain runs unfused under torch.compile as
 * in eager mode: five kernels beyond the rope op's one, each pass. Re-run
 * under full and ops recompute, as the other element-wise ops. */
static int rope_complex(const struct pl_run *run, struct pl_op *ops, int n) {
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  if (!l->rope_complex || m->pos != PL_POS_ROTARY || m->kv_lora_rank > 0 || m->heads <= 0 ||
      n + 1 > PL_MAX_LAYER_OPS)
    return n;
  struct layer_tokens t = layer_tokens_of(run);
  double qk = (double)(m->heads + m->kv_heads) / (double)t.tp * (double)m->head_dim;
  bool re = ops_rerun(l);
  mem_op(&ops[n], "rope_complex", 16.0 * t.tokens * qk, 16.0 * t.tokens * qk, re);
  ops[n].fwd_kernels = ops[n].bwd_kernels = 5;
  return n + 1;
}

/* What a block's ops gain after the model's own list, in this order (each
 * appends to ops[0 .. n) and returns the new count). */
static int (*const layer_passes[])(const struct pl_run *, struct pl_op *, int) = {
    megatron_kernels, unfused_kernels, rope_complex,     kv_expand_ops,
    fp8_casts,        qkv_grad_cat,    tp_seq_copies,    cp_merge_ops,
    cp_p2p_merge_ops, cp_te_copies,
};

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
    for (size_t i = 0; i < sizeof layer_passes / sizeof layer_passes[0]; i++)
      n = layer_passes[i](run, ops, n);
  else if (kind == SIM_SEG_HEAD)
    n = logit_metrics(run, ops, n);
  if (kind != SIM_SEG_EMBED) /* nn.Embedding is not autocast (autocast.c) */
    n = sim_autocast_casts(run, ops, n);
  return param_kernels(run, kind, sim_seg_params(run, kind), sim_seg_param_tensors(run, kind), ops, n);
}

/* Transformer Engine's current-scaling and NVFP4 quantizers under sequence
 * parallelism (tp > 1): the input of a column-parallel linear and the output
 * gradient of a row-parallel one are split over the tp ranks, so the
 * quantizer takes the amax over the tp group before it scales
 * (transformer_engine/pytorch/module/linear.py, layernorm_linear.py,
 * layernorm_mlp.py _customize_quantizers_float8_current_scaling and
 * _customize_quantizers_nvfp4, ops/basic/basic_linear.py, v2.8:
 * with_amax_reduction, amax_reduction_group = tp_group).
 * csrc/quantizer.cpp Float8CurrentScalingQuantizer::quantize_impl runs
 * compute amax, then `amax_reduction_group->allreduce({amax}, MAX)->wait()`,
 * then the scale and the cast: the cast waits on the compute stream for an
 * all_reduce of one fp32 over tp. Per dense block: forward 2 (qkv and fc1
 * inputs), backward 2 (proj and fc2 output gradients), and the recomputed
 * forward's 2 again on the share of blocks fully recomputed; a MoE block
 * counts its attention's 2 only (its experts are not sequence-parallel
 * linears). Returns the wait per pass of one block (fwd, bwd). Hybrid
 * (Mamba) stacks and the LM head (16-bit with head_16bit) are not counted. */
void sim_tp_amax_wait_s(const struct pl_run *run, double out[2]) {
  const struct pl_layout *l = &run->layout;
  const struct pl_model *m = &run->model;
  out[0] = out[1] = 0.0;
  bool scaled = (l->dtype == PL_DTYPE_FP8 && l->fp8_recipe == PL_FP8_RECIPE_CURRENT) ||
                l->dtype == PL_DTYPE_NVFP4;
  if (!scaled || !l->sp || l->tp <= 1 || pl_model_is_hybrid(m))
    return;
  const struct pl_cluster *cl = &run->cluster;
  int64_t gpn = cl->gpus_per_node > 0 ? cl->gpus_per_node : 1;
  struct pl_coll_cost cost;
  if (pl_coll_time_shared(cl, PL_COLL_ALL_REDUCE, TE_AMAX_BYTES, pl_group_strided(l->tp, 1, gpn), gpn,
                          PL_ALGO_AUTO, &cost) != PL_OK)
    return;
  double per = m->experts > 0 ? 1.0 : 2.0;
  double f = l->recompute == PL_RECOMPUTE_FULL ? pl_recompute_share(m, l) : 0.0;
  out[PL_PASS_FWD] = per * cost.time_s;
  out[PL_PASS_BWD] = (per + per * f) * cost.time_s;
}

/* layout.fp8_amax_reduce_sync: Transformer Engine release_v0.8's delayed-
 * scaling amax reduction (the MLPerf Training v3.0 GPT-3 images: NVIDIA's and
 * NVIDIA_CoreWeave's pytorch/Dockerfile TE_REVISION=release_v0.8, NeMo
 * v1.17.0_pt_23.04). NeMo's ParallelTransformer.forward wraps the layers of
 * its model chunk in one fp8_autocast(fp8_group=parallel_state.
 * get_amax_reduction_group()) (nemo/collections/nlp/modules/common/megatron/
 * transformer.py); Apex's amax reduction group is the tp x dp ranks of one
 * pipeline stage (apex/transformer/parallel_state.py initialize_model_parallel,
 * eec72500 "use a single communicator for amax reduction in both TP and DP
 * domains": amax_group_size = tp * dp, contiguous ranks). TE fp8.py:
 * fp8_autocast's exit calls global_amax_reduction (forward) and
 * module.py _prepare_backward calls it after the region's first module's
 * backward (the region's last); it concatenates row 0 of every module's
 * amax_history and all_reduces it (MAX) over fp8_group with
 * async_op=NVTE_ASYNC_AMAX_REDUCTION (default 0) at every call
 * (NVTE_DP_AMAX_REDUCE_INTERVAL default 1; the v3.0 configs set neither): a
 * synchronous torch.distributed.all_reduce, after which the compute stream
 * waits for the NCCL stream. Per region and micro-batch: one forward call of
 * 12 fp32 per block and one backward call of 8 (constants.h
 * TE_V08_AMAX_*); a region holds layers / (pp x vp) blocks. The recomputed
 * forward reduces nothing (prepare_forward returns before the reduction
 * setup in the recompute phase). Returned per block, as the region's wait
 * shared among its blocks (fwd, bwd). Dense stacks only (TransformerLayer's
 * 4 GEMMs); the wait is the call's own time, not the ranks' skew. */
void sim_fp8_amax_reduce_wait_s(const struct pl_run *run, double out[2]) {
  const struct pl_layout *l = &run->layout;
  const struct pl_model *m = &run->model;
  out[0] = out[1] = 0.0;
  bool delayed = l->dtype == PL_DTYPE_FP8 &&
                 (l->fp8_recipe == PL_FP8_RECIPE_TENSOR || l->fp8_recipe == PL_FP8_RECIPE_DELAYED);
  if (!l->fp8_amax_reduce_sync || !delayed || m->experts > 0 || pl_model_is_hybrid(m))
    return;
  int64_t vp = l->vp > 1 ? l->vp : 1;
  int64_t pp = l->pp > 1 ? l->pp : 1;
  double blocks = (double)m->layers / (double)(pp * vp);
  int64_t ranks = l->tp * (l->cp > 1 ? l->cp : 1) * l->dp;
  if (blocks <= 0 || ranks <= 1)
    return;
  const struct pl_cluster *cl = &run->cluster;
  int64_t gpn = cl->gpus_per_node > 0 ? cl->gpus_per_node : 1;
  struct pl_group g = pl_group_strided(ranks, 1, gpn);
  double gemm_amax_bytes = TE_V08_LAYER_FP8_GEMMS * TE_AMAX_BYTES * blocks;
  struct pl_coll_cost fwd, bwd;
  if (pl_coll_time_shared(cl, PL_COLL_ALL_REDUCE, TE_V08_AMAX_FWD_PER_GEMM * gemm_amax_bytes, g,
                          gpn, PL_ALGO_AUTO, &fwd) != PL_OK ||
      pl_coll_time_shared(cl, PL_COLL_ALL_REDUCE, TE_V08_AMAX_BWD_PER_GEMM * gemm_amax_bytes, g,
                          gpn, PL_ALGO_AUTO, &bwd) != PL_OK)
    return;
  out[PL_PASS_FWD] = fwd.time_s / blocks;
  out[PL_PASS_BWD] = bwd.time_s / blocks;
}

/* layout.wgrad_deferral: the LM head's weight-gradient GEMM of one
 * micro-batch, the wgrad share of its backward (the dgrad m x k from n and the
 * wgrad k x n over m, as compute.c prices a GEMM's backward): Megatron-Core's
 * output layer (tensor_parallel.ColumnParallelLinear, the op "lm_head")
 * defers only that GEMM (layers.py LinearWithGradAccumulationAndAsyncCommunication
 * .backward appends grad_output to grad_output_buffer instead of computing
 * the wgrad, core_v0.16.0); MTP heads are not deferred. */
static double head_wgrad_s(const struct pl_run *run, const struct pl_op *ops, int n) {
  const struct pl_layout *l = &run->layout;
  const struct pl_gpu *g = &run->cluster.gpu;
  for (int i = 0; i < n; i++) {
    const struct pl_op *op = &ops[i];
    if (op->kind != PL_OP_GEMM || strcmp(op->name, "lm_head") != 0)
      continue;
    enum pl_dtype dt = op->high_precision ? PL_DTYPE_BF16 : l->dtype;
    double dg = pl_gemm_time_s(g, dt, op->m, op->k, op->n, op->count);
    double wg = pl_gemm_time_s(g, dt, op->k, op->n, op->m, op->count);
    double bwd = pl_op_run_time_s(g, l, &run->model, op, PL_PASS_BWD);
    return dg + wg > 0 ? bwd * wg / (dg + wg) : 0;
  }
  return 0;
}

static enum pl_status price(struct sim_step *st, enum sim_seg_kind kind, struct pl_diag *diag) {
  const struct pl_layout *l = &st->run->layout;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  struct sim_seg *s = &st->seg[kind];
  seg_clear(s);
  int n = pl_sim_segment_ops(st->run, kind == SIM_SEG_EMBED ? 0 : kind == SIM_SEG_LAYER ? 1 : 2,
                             ops);
  s->params = sim_seg_params(st->run, kind);
  s->expert_params = kind == SIM_SEG_LAYER ? sim_layer_expert_params_gpu(st->run) : 0;
  enum pl_status r = PL_OK;
  if (l->tp > 1 && kind == SIM_SEG_LAYER)
    r = layer_tp(st, s, diag);
  else if (l->tp > 1 && kind == SIM_SEG_EMBED)
    r = embed_tp(st, s, diag);
  else if (l->tp > 1)
    r = head_tp(st, s, diag);
  if (r == PL_OK && kind == SIM_SEG_LAYER && l->cp > 1)
    r = layer_cp(st, s, ops, n, diag);
  if (r == PL_OK && kind == SIM_SEG_LAYER)
    r = sim_layer_moe(st, s, diag);
  /* the compute after the collectives: a MoE forward's dispatcher wait holds
   * its dispatch and combine (moe_sync.c) */
  struct sim_moe_wait wait;
  if (r == PL_OK)
    seg_compute(st, s, ops, n, kind == SIM_SEG_LAYER && l->cp > 1,
                kind == SIM_SEG_LAYER && sim_moe_wait_of(st, s, &wait) ? &wait : NULL);
  if (r == PL_OK && kind == SIM_SEG_HEAD && l->wgrad_deferral != 0)
    s->defer_wgrad_s = fmin(head_wgrad_s(st->run, ops, n), s->comp_s[PL_PASS_BWD]);
  if (r == PL_OK && kind == SIM_SEG_LAYER) {
    double amax[2];
    sim_tp_amax_wait_s(st->run, amax);
    s->comp_s[PL_PASS_FWD] += amax[PL_PASS_FWD];
    s->comp_s[PL_PASS_BWD] += amax[PL_PASS_BWD];
    sim_fp8_amax_reduce_wait_s(st->run, amax);
    s->comp_s[PL_PASS_FWD] += amax[PL_PASS_FWD];
    s->comp_s[PL_PASS_BWD] += amax[PL_PASS_BWD];
  }
  if (r == PL_OK)
    r = sim_seg_fsdp(st, kind, s, diag);
  /* layout.fsdp2_rs_copy_in: the unit's copy-in (+ pre-divide) as a task of
   * its own, timed as the pass param_kernels leaves out */
  if (r == PL_OK && fsdp2_copy_in_apart(l) && s->params > 0) {
    struct pl_op copy;
    double outside = l->edp <= 1 ? sim_fsdp_expert_params(st->run, kind) : 0.0;
    mem_op(&copy, "fsdp2_rs_copy_in", 0, fsdp2_reduce_pass_bytes(l) * (s->params - outside), false);
    double t = pl_op_run_time_s(&st->run->cluster.gpu, l, &st->run->model, &copy, PL_PASS_BWD);
    if (s->rs >= 0)
      s->rs_copy_s = t;
    else /* no reduce_scatter to queue behind (hybrid shard group of 1): in the unit */
      s->comp_s[PL_PASS_BWD] += t;
  }
  return r;
}

enum pl_status sim_segments(struct sim_step *st, struct pl_diag *diag) {
  enum pl_status r = PL_OK;
  for (int k = 0; k < SIM_SEG_N && r == PL_OK; k++)
    r = price(st, (enum sim_seg_kind)k, diag);
  return r;
}
