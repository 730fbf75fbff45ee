/* lower.c: one training step as engine tasks, for one representative rank
 * of each pipeline stage (docs/step-model.md section 5). Every rank of a
 * stage runs the same program, so one stands for all; collectives among them
 * are priced as whole-group calls (groups.c).
 *
 * Each stage's compute stream follows its pipeline schedule (gpipe.c,
 * 1f1b.c, interleaved.c): a slot is one pass (forward or backward) of one
 * micro-batch through one model chunk. A pass is a chain of units; a unit is
 * one or more consecutive segments (embedding, transformer blocks, LM head):
 *   compute (main part) -> [attention part || cp ring] -> tp collectives
 * The tp collectives are blocking: the next unit waits for them. Where a pass
 * has per-unit data-parallel traffic, each segment is its own unit; otherwise
 * the whole pass is one unit (identical blocks aggregate exactly: the same
 * chain repeated, with nothing else in between).
 *
 * Data parallelism, per shard mode:
 *   ddp (PyTorch DDP): gradients all_reduced in 25 MB buckets as the last
 *     micro-batch's backward produces them (no_sync before: gradient
 *     accumulation as DDP and Megatron do it), overlapping that backward;
 *   zero1 (ZeRO-1 / Megatron distributed optimizer): the same buckets
 *     reduce_scattered, and the updated bf16 parameters all_gathered after
 *     the optimizer step, not overlapped;
 *   zero2 / zero3 (FSDP SHARD_GRAD_OP / FULL_SHARD, one unit per segment):
 *     a unit's parameters are all_gathered before use when not already
 *     gathered, prefetched: the gather of unit k may start once unit k - 2 has
 *     finished computing (at most two units gathered ahead, FSDP's explicit
 *     prefetch of the next unit); zero2 keeps them gathered after the forward
 *     (reshard_after_forward = False), zero3 frees them, and both free them
 *     after the backward. Each backward reduce_scatters every unit's
 *     gradients (FSDP's default gradient accumulation, with communication),
 *     followed by an all_reduce across replicas with hybrid sharding.
 *     With pp > 1 and layout.fsdp_pp_unsharded (torchtitan; fsdp_pp_flush)
 *     a chunk is gathered by its first forward only and its gradients are
 *     reduce_scattered once, after its last backward.
 * Pipeline stages exchange activations (forward) and their gradients
 * (backward) with send/recv on their own streams; the receiving pass waits.
 * Each stage ends with its AdamW step: memory-bound over its local shard
 * (the buckets, the optimizer step and zero1's gathers: lower_dp.c).
 * With layout.grad_reduce_after_backward (Megatron-LM 2021-22) the ddp/zero1
 * buckets are reduced only after the stage's whole backward. With pp > 1 and
 * tied embeddings, the first and last stages all_reduce the embedding
 * gradient before the optimizer. Sends are blocking (lower_p2p.c sim_p2p_emit_sends).
 * Ignored: the gradient-norm all_reduce of one scalar (latency only),
 * host-side overheads.
 *
 * Compression (sim_step.compress, pl_predict's path; compress.c): with pp = 1
 * a pass with per-unit FSDP traffic issues only keep_layers layer units, and
 * 1F1B / interleaved pipelines only enough micro-batches for keep_pairs
 * steady-state periods past stage 0's warm-up; every task carries tags (pass
 * instance, layer unit, steady pair) and anchors so the engine can insert
 * the missing units and periods once it finds the steady state. FSDP
 * layouts whose traffic outlasts their compute (fsdp_comm_bound) repeat
 * only micro-batch by micro-batch: with pp = 1 their layer units are all
 * kept but the first pass's; with pp > 1 (1F1B, vp = 1) each stage repeats
 * with a period of its own: every stage's steady pairs are
 * anchors (3), and templates stay on (tpl_tags stamps the copies' tags).
 *
 * Pass templates (whole steps only; docs/step-model.md section 11): a pass
 * with per-unit FSDP traffic issues the same tasks and edges as
 * an earlier pass of the same shape, up to ids, stage and micro-batch, so it
 * is copied from the first pass of that shape (tpl_replay) rather than
 * derived again (lower_tpl.c); the copy issues every task and edge in the same order, so
 * the engine sees the same graph bit for bit (test_sim_fast.c checks it). */
#include <plateau/alloc.h>
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "model/constants.h"
#include "sim/lower_int.h"
#include "sim/sim_int.h"

/* A unit's collectives, merged by kind; part -1 all of them, 0 all but the
 * blocks' expert-parallel ones, 1 only those (slots SIM_SEG_EP on). */
static int tp_merge_part(const struct sim_seg *sg, const struct unit *u, struct sim_comm *list,
                         int part) {
  int p = u->slot.pass;
  int64_t mult[SIM_SEG_N] = {u->embed, u->layers, u->head};
  int n = 0;
  for (int k = 0; k < SIM_SEG_N; k++) {
    for (int j = 0; j < SIM_SEG_TP && mult[k] > 0; j++) {
      int ep = k == SIM_SEG_LAYER && j >= SIM_SEG_EP;
      if (part >= 0 && ep != part)
        continue;
      struct sim_comm c = sg[k].tp[p][j];
      int i = 0;
      while (i < n && list[i].coll != c.coll)
        i++;
      if (c.coll < 0)
        continue;
      if (i == n)
        list[n++] = (struct sim_comm){c.coll, 0};
      list[i].calls += (int32_t)mult[k] * c.calls;
    }
  }
  return n;
}

static int tp_merge(const struct sim_seg *sg, const struct unit *u, struct sim_comm *list) {
  return tp_merge_part(sg, u, list, -1);
}

/* Which single segment a unit is (SIM_SEG_N when it spans several). */
static int unit_seg(const struct unit *u) {
  if (u->embed + u->layers + u->head != 1)
    return SIM_SEG_N;
  return u->embed ? SIM_SEG_EMBED : u->layers ? SIM_SEG_LAYER : SIM_SEG_HEAD;
}

/* The merged tp list of a unit; one-segment units (every unit of a pass with
 * per-unit data-parallel traffic) take it from a per-(segment, pass) cache. */
static const struct sim_comm *tp_list(struct lower *lw, const struct unit *u,
                                      struct sim_comm *scratch, int *n) {
  int k = unit_seg(u), p = u->slot.pass;
  if (lw->st->reference) {
    *n = tp_merge(lw->st->seg, u, scratch);
    return scratch;
  }
  if (k == SIM_SEG_N) {
    for (int i = 0; i < lw->n_multi; i++) {
      const struct tp_multi *t = &lw->tp_multi[i];
      if (t->embed == u->embed && t->layers == u->layers && t->head == u->head && t->pass == p) {
        *n = t->n;
        return t->list;
      }
    }
    if (lw->n_multi == TP_MULTI) {
      *n = tp_merge(lw->st->seg, u, scratch);
      return scratch;
    }
    struct tp_multi *t = &lw->tp_multi[lw->n_multi++];
    *t = (struct tp_multi){u->embed, u->layers, u->head, p, {{0, 0}}, 0};
    t->n = tp_merge(lw->st->seg, u, t->list);
    *n = t->n;
    return t->list;
  }
  struct tp_cache *c = &lw->tp_cache[k][p];
  if (c->n < 0)
    c->n = tp_merge(lw->st->seg, u, c->list);
  *n = c->n;
  return c->list;
}

/* Issue a tp list on the tp stream, its first task after `after` and `ring`
 * (SIM_NONE: no edge); returns the last task. */
static int32_t tp_issue(struct lower *lw, const struct sim_comm *list, int n, int32_t after,
                        int32_t ring) {
  int32_t prev = SIM_NONE;
  for (int i = 0; i < n; i++) {
    int32_t t = i + 1 < n ? coll_pair(lw, PL_STREAM_TP, list[i], list[i + 1]) : SIM_NONE;
    if (t != SIM_NONE)
      i++;
    else
      t = coll_task(lw, PL_STREAM_TP, list[i].coll, list[i].calls);
    if (prev == SIM_NONE) {
      dep(lw, after, t);
      dep(lw, ring, t);
    }
    prev = t;
  }
  return prev;
}

/* The tp collectives of a unit, issued after its compute and its cp ring. */
static void unit_tp(struct lower *lw, const struct unit *u, int32_t after, int32_t ring) {
  struct sim_comm scratch[SIM_SEG_N * SIM_SEG_TP];
  int n;
  const struct sim_comm *list = tp_list(lw, u, scratch, &n);
  join_add(lw, tp_issue(lw, list, n, after, ring));
}

/* layout.tp_comm_overlap (Transformer Engine userbuffers, te.pytorch
 * module/base.py initialize_ub; NeMo ub_tp_comm_overlap, Megatron-Core
 * --tp-comm-overlap): the transformer layers' all_gathers (ring_exchange or
 * bulk) and reduce_scatters (pipeline, num_splits chunks) are split and run
 * beside the GEMMs they feed or follow, so a unit's layer tp traffic starts
 * with its compute and the next unit waits for both; the engine slows the
 * compute while they run (overlap_slowdown: the SMs userbuffers take,
 * num_sm 16-24 of 132 in the H100 ub-confs). Embedding and LM-head
 * collectives stay blocking (TE overlaps its own linear layers only).
 * Ignored: the last of the num_splits reduce_scatter chunks, which has no
 * GEMM left to hide behind (1/4 of the forward reduce_scatters). */
static bool tp_overlapped(const struct lower *lw, const struct unit *u) {
  return lw->l->tp_comm_overlap && lw->l->sp && u->layers > 0;
}

/* A list issued beside a unit's compute: after prev, the compute before it,
 * and the unit's inputs in (n_in of them); the next unit waits for it. */
static void tp_issue_beside(struct lower *lw, const struct sim_comm *list, int n, int32_t prev,
                            const int32_t *in, int n_in) {
  int32_t first_id = lw->st->eng.n_tasks;
  int32_t last = tp_issue(lw, list, n, prev, SIM_NONE);
  for (int i = 0; i < n_in && last != SIM_NONE; i++)
    dep(lw, in[i], first_id);
  join_add(lw, last);
}

/* The overlapped part of a unit's tp traffic: its layers' collectives,
 * issued beside its compute (after prev, the compute before it, and the
 * unit's inputs in, n_in of them). */
static void unit_tp_beside(struct lower *lw, const struct unit *u, int32_t prev, const int32_t *in,
                           int n_in) {
  struct sim_comm scratch[SIM_SEG_N * SIM_SEG_TP];
  struct unit lay = *u;
  lay.embed = lay.head = false;
  int n;
  const struct sim_comm *list = tp_list(lw, &lay, scratch, &n);
  tp_issue_beside(lw, list, n, prev, in, n_in);
}

/* layout.ep_comm_overlap (Megatron-Core --overlap-moe-expert-parallel-comm;
 * core_v0.15.0 models/common/model_chunk_schedule_plan.py
 * TransformerLayerSchedulePlan.run, pipeline_parallel/utils.py ScheduleNode
 * and stream_acquire_context): in the 1F1B steady state the forward of one
 * micro-batch and the backward of another run merged, layer by layer, on a
 * compute and a communication stream; each micro-batch's nodes wait for its
 * previous node (one CUDA event per schedule plan), so the layer runs as four
 * windows, each as long as the longer of its two sides:
 *   comm: combine_bwd         | dispatch_fwd       | dispatch_bwd | combine_fwd
 *   comp: attn_fwd, post_attn | mlp_bwd, mlp_bwd_dw | mlp_fwd      | post_attn_bwd, attn_bwd
 * (mlp: the routed and shared experts, pl_op_moe_mlp_node; attn and post_attn:
 * the rest of the block). A communication hides only behind its window's
 * compute, not behind the whole layer's. plateau keeps one pass per slot: a
 * forward unit runs its non-expert window, then its expert window, a
 * backward unit its expert window, then the rest, each beside half the
 * block's expert-parallel calls (the partner's dispatch or combine: the same
 * bytes as the unit's own); the second window starts when the first's compute
 * and communication are both done. With identical blocks the unit's two
 * windows sum to the layers' windows exactly. all_gathers over etp go with the
 * dispatch (expert window), reduce_scatters with the combine. The engine slows
 * compute while they overlap (overlap_slowdown). The warm-up forwards and
 * the cool-down backwards have no partner (lower.ep_paired): their calls
 * block, as without the overlap. With tp_overlapped the blocks' tp traffic
 * runs beside the compute too, queued after the expert-parallel calls on the
 * one stream plateau gives both. Not modelled: the combine's unpermute and
 * residual add, which run on the communication stream after the all_to_all
 * (submodule_combine_forward), stay on compute. With a cp split (cp > 1) the
 * unit keeps one window beside all its calls. */
static bool ep_beside(const struct lower *lw, const struct unit *u) {
  return lw->l->ep_comm_overlap && lw->ep_paired && u->layers > 0;
}

/* The expert-parallel calls of a unit's blocks split between its two
 * windows (ep_beside): half of each all_to_all's calls to each, all_gathers
 * to the expert window, reduce_scatters to the other. */
static void ep_split(const struct lower *lw, const struct unit *u, struct sim_comm *first,
                     int *n_first, struct sim_comm *second, int *n_second) {
  struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
  int n = tp_merge_part(lw->st->seg, u, list, 1);
  bool fwd = u->slot.pass == PL_PASS_FWD;
  *n_first = *n_second = 0;
  for (int i = 0; i < n; i++) {
    enum pl_coll_op op = lw->st->colls[list[i].coll].op;
    int32_t a = list[i].calls / 2, b = list[i].calls - a; /* first window, expert window */
    if (op == PL_COLL_ALL_GATHER)
      a = 0, b = list[i].calls;
    else if (op != PL_COLL_ALL_TO_ALL)
      a = list[i].calls, b = 0;
    int32_t w1 = fwd ? a : b, w2 = fwd ? b : a; /* forward: rest first; backward: experts */
    if (w1 > 0)
      first[(*n_first)++] = (struct sim_comm){list[i].coll, w1};
    if (w2 > 0)
      second[(*n_second)++] = (struct sim_comm){list[i].coll, w2};
  }
}

/* The embedding's and the LM head's compute of a unit under ep_beside with
 * windows, which Megatron-Core runs outside the merged layers
 * (TransformerModelChunkSchedulePlan.run, core_v0.15.0-core_v0.17.x: the
 * forward's pre_process (embedding) and the backward's post_process (LM head
 * and loss) before the layer loop, the forward's post_process and the
 * backward's pre_process after it; an MTP layer's output layer and loss, its
 * mtp_post_process node, run on the compute stream after its combine_fwd and
 * before its combine_bwd, beside no call), so no expert-parallel call of the
 * partner hides behind them: before (the forward's embedding, the backward's
 * head) or after the windows. The MTP modules' attn-node ops
 * (sim_seg.in_layer_s) stay in the blocks' windows. Returns the edge's
 * compute; *edge: a unit of that edge alone (layers 0). */
static double ep_edge_s(const struct lower *lw, const struct unit *u, bool before,
                        struct unit *edge) {
  const struct sim_seg *sg = lw->st->seg;
  int p = u->slot.pass;
  bool head = (p == PL_PASS_FWD) != before;
  *edge = *u;
  edge->layers = 0;
  edge->embed = !head && u->embed;
  edge->head = head && u->head;
  const struct sim_seg *hd = &sg[SIM_SEG_HEAD];
  return (double)edge->embed * sg[SIM_SEG_EMBED].comp_s[p] +
         (double)edge->head * (hd->comp_s[p] - hd->in_layer_s[p]);
}

/* The second window of a unit under ep_beside with windows (see there):
 * c1 is the first window's compute, prev the compute before the unit and in
 * the unit's inputs (n_in); second_s the second window's compute, after which
 * the edge that follows the layers runs (ep_edge_s); tp_beside: the blocks'
 * tp collectives run beside the compute (tp_overlapped), else they block
 * after it. Returns the unit's last compute task. */
static int32_t ep_windows(struct lower *lw, const struct unit *u, double second_s, int32_t c1,
                          int32_t prev, const int32_t *in, int n_in, bool tp_beside) {
  struct sim_comm w1[SIM_SEG_N * SIM_SEG_TP] = {{0, 0}}, w2[SIM_SEG_N * SIM_SEG_TP] = {{0, 0}};
  int n1 = 0, n2 = 0;
  ep_split(lw, u, w1, &n1, w2, &n2);
  tp_issue_beside(lw, w1, n1, prev, in, n_in); /* joins: the second window waits for it */
  bool fwd = u->slot.pass == PL_PASS_FWD;
  struct unit after;
  double after_s = ep_edge_s(lw, u, false, &after);
  struct unit lay = *u;
  lay.embed = lay.head = false;
  int32_t c2 = comp(lw, second_s, &lay, fwd ? PL_PART_EXPERTS : PL_PART_NON_EXPERTS);
  if (n2 > 0)
    join_add(lw, tp_issue(lw, w2, n2, c1, SIM_NONE));
  if (after.embed || after.head) /* waits for the window's calls (joined) */
    c2 = comp(lw, after_s, &after, PL_PART_ALL);
  struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
  struct unit edge = *u;
  edge.layers = 0;
  if (tp_beside) { /* tp_overlapped: the blocks' tp traffic beside their compute */
    int n = tp_merge_part(lw->st->seg, &lay, list, 0);
    tp_issue_beside(lw, list, n, prev, in, n_in);
    if (edge.embed || edge.head)
      unit_tp(lw, &edge, c2, SIM_NONE);
  } else {
    int n = tp_merge_part(lw->st->seg, u, list, 0);
    join_add(lw, tp_issue(lw, list, n, c2, SIM_NONE));
  }
  lw->unit_end[1] = lw->unit_end[0];
  lw->unit_end[0] = c2;
  return c2;
}

/* layout.te_linear_bwd_overlap (Transformer Engine 2.x module/layernorm_linear.py
 * _LayerNormLinear.backward, module/linear.py _Linear.backward): without
 * userbuffers (no tp_overlapped), a column-parallel TE linear (qkv, fc1:
 * Megatron-Core's TELayerNormColumnParallelLinear) runs its backward as
 *   [all_gather of its saved input, async_op=True (sp only)] beside the dgrad GEMM,
 *   wait for it, then [dgrad reduce_scatter (sp) or all_reduce, async_op=True]
 *   beside the wgrad GEMM ("Overlap dgrad-RS/AR with wgrad"), wait for it.
 * So a dense block's backward unit runs its other ops first (PL_PART_TE_REST),
 * then per linear a dgrad and a wgrad task (half the op's backward each: the
 * two GEMMs have the same FLOPs, 2 m n k), each beside its one collective:
 * a collective hides at most behind its partner GEMM, the excess waits. The
 * row-parallel linears' grad_output all_gathers (base.py
 * grad_output_preprocess, blocking) and the recomputed forward's collectives
 * stay blocking after the compute. The input all_gather is traffic the other
 * paths leave out (userbuffers' bulk overlap hides it; Megatron-LM's own
 * layers keep the gathered input): counted here. Not modelled: the blocks'
 * order inside the backward (fc2, fc1, attention, qkv); MoE and hybrid
 * blocks, a cp split and the embedding and head keep the blocking path. */
static bool te_bwd(const struct lower *lw, const struct unit *u, double attn_s) {
  const struct pl_model *m = &lw->st->run->model;
  return lw->l->te_linear_bwd_overlap && lw->l->tp > 1 && u->slot.pass == PL_PASS_BWD &&
         u->layers > 0 && attn_s <= 0 && !tp_overlapped(lw, u) && !ep_beside(lw, u) &&
         !pl_model_is_moe(m) && !pl_model_is_hybrid(m);
}

/* The column-parallel linears' windows of a backward unit under te_bwd,
 * after its other compute c; col_s[k]: linear k's backward (both GEMMs).
 * Returns the last compute task. */
static int32_t te_bwd_windows(struct lower *lw, const struct unit *u, int32_t c,
                              const double col_s[2]) {
  const struct sim_seg *lay = &lw->st->seg[SIM_SEG_LAYER];
  bool sp = lw->l->sp;
  struct sim_comm in_ag = lay->te_in_ag; /* sp: all_gather of the saved input */
  struct sim_comm dg = lay->tp[PL_PASS_BWD][sp ? 1 : 0]; /* reduce_scatter or all_reduce */
  int32_t l = u->layers;
  struct sim_comm scratch[SIM_SEG_N * SIM_SEG_TP], rest[SIM_SEG_N * SIM_SEG_TP];
  int n, n_rest = 0;
  const struct sim_comm *all = tp_list(lw, u, scratch, &n);
  for (int i = 0; i < n; i++) { /* the blocking rest: all but the 2 per block taken below */
    rest[n_rest] = all[i];
    if (all[i].coll == dg.coll)
      rest[n_rest].calls -= 2 * l < all[i].calls ? 2 * l : all[i].calls;
    if (rest[n_rest].calls > 0)
      n_rest++;
  }
  for (int k = 0; k < 2; k++) {
    int32_t ag = sp ? coll_task(lw, PL_STREAM_TP, in_ag.coll, l) : SIM_NONE;
    dep(lw, c, ag);
    int32_t d = comp(lw, 0.5 * col_s[k], u, PL_PART_TE_COLUMN);
    join_add(lw, ag);
    c = comp(lw, 0.5 * col_s[k], u, PL_PART_TE_COLUMN);
    int32_t rs = coll_task(lw, PL_STREAM_TP, dg.coll, l);
    dep(lw, d, rs);
    join_add(lw, rs);
  }
  join_add(lw, tp_issue(lw, rest, n_rest, c, SIM_NONE));
  return c;
}

/* layout.async_tp: PyTorch's micro-pipeline TP (torchtitan's
 * experimental.enable_async_tensor_parallel; Inductor
 * torch/_inductor/fx_passes/micro_pipeline_tp.py, pytorch/pytorch 00122fb and
 * 5f65158). The pass replaces an all_gather whose result is the left operand
 * of matmuls (fuse_all_gather_matmul, _find_consumer_matmuls) by
 * fused_all_gather_matmul and a reduce_scatter of one matmul's output
 * (fuse_matmul_reduce_scatter, _find_producer_matmul; the matmul result must
 * have one user) by fused_matmul_reduce_scatter: the collective is
 * decomposed into tp steps that run beside the shards of that GEMM, so it
 * hides behind its partner GEMM only. Per block:
 *   forward: qkv and fc1 (w1, w3) beside their input all_gather, proj and fc2
 *     beside their output reduce_scatter;
 *   backward: proj's and fc2's grad_output all_gather beside their dgrad GEMM
 *     (the left operand; the wgrad GEMM reads it transposed, not fused: half
 *     the op's backward, the two GEMMs have the same FLOPs); the recomputed
 *     forward (pl_op_recompute_part) as the forward, its re-run all_gathers
 *     beside the recomputed column GEMMs and its reduce_scatters beside the
 *     recomputed row GEMMs; the input-gradient reduce_scatters of qkv and fc1
 *     (wq + wk + wv, w1 + w3: a sum of matmuls, no producer matmul) blocking
 *     after the unit's compute, as without the pass.
 * A unit's layers run each window together (l calls beside l GEMMs); with a
 * cp split (attn_s) the windows follow the attention core and its ring. The
 * embedding's and the LM head's collectives, MoE and hybrid blocks and runs
 * without sp keep the blocking path. Not modelled: the per-step cost
 * of the decomposition (tp smaller GEMMs instead of one). */
static bool atp(const struct lower *lw, const struct unit *u, double attn_s) {
  const struct pl_model *m = &lw->st->run->model;
  (void)attn_s;
  return lw->l->async_tp && lw->l->sp && lw->l->tp > 1 && u->layers > 0 && !tp_overlapped(lw, u) && !ep_beside(lw, u) && !pl_model_is_moe(m) &&
         !pl_model_is_hybrid(m);
}

/* One async-TP window after compute c: a GEMM of gemm_s beside calls of
 * collective coll; the next compute waits for both. Returns the GEMM's task. */
static int32_t atp_window(struct lower *lw, const struct unit *u, int32_t c, double gemm_s,
                          int32_t coll, int64_t calls) {
  int32_t t = calls > 0 ? coll_task(lw, PL_STREAM_TP, coll, calls) : SIM_NONE;
  dep(lw, c, t);
  int32_t g = comp(lw, gemm_s, u, PL_PART_TE_COLUMN);
  join_add(lw, t);
  return g;
}

/* The windows of a unit under atp, after its other compute c; lin_s: the four
 * linears' GEMMs (pl_op_tp_linear order: qkv, fc1, proj, fc2) and rf_s their
 * recomputed forward (backward only), both for the unit's layers. Returns the
 * last compute task. */
static int32_t atp_windows(struct lower *lw, const struct unit *u, int32_t c, const double lin_s[4],
                           const double rf_s[4]) {
  const struct sim_seg *lay = &lw->st->seg[SIM_SEG_LAYER];
  int p = u->slot.pass;
  struct sim_comm ag = lay->tp[p][0], rs = lay->tp[p][1]; /* layer_tp's sp entries */
  int64_t l = u->layers;
  /* calls of each taken into windows: forward 2 l of both; backward 2 l
   * grad_output gathers and the re-run gathers and reduce_scatters beyond the
   * 2 l input-gradient reduce_scatters */
  int64_t ag_all = (int64_t)ag.calls * l, rs_all = (int64_t)rs.calls * l;
  int64_t rs_rec = p == PL_PASS_BWD ? (rs_all > 2 * l ? rs_all - 2 * l : 0) : 0;
  int64_t ag_rec = p == PL_PASS_BWD ? (ag_all > 2 * l ? ag_all - 2 * l : 0) : 0;
  int64_t ag_take = p == PL_PASS_BWD ? (ag_all < 2 * l ? ag_all : 2 * l) + ag_rec : ag_all;
  int64_t rs_take = p == PL_PASS_BWD ? rs_rec : rs_all;
  struct sim_comm scratch[SIM_SEG_N * SIM_SEG_TP], rest[SIM_SEG_N * SIM_SEG_TP];
  int n, n_rest = 0;
  const struct sim_comm *all = tp_list(lw, u, scratch, &n);
  for (int i = 0; i < n; i++) { /* the blocking rest */
    rest[n_rest] = all[i];
    if (all[i].coll == ag.coll && ag.coll != SIM_NONE)
      rest[n_rest].calls -= ag_take < all[i].calls ? ag_take : all[i].calls;
    else if (all[i].coll == rs.coll && rs.coll != SIM_NONE)
      rest[n_rest].calls -= rs_take < all[i].calls ? rs_take : all[i].calls;
    if (rest[n_rest].calls > 0)
      n_rest++;
  }
  for (int k = 0; k < 2; k++) { /* attention (qkv, proj), then the MLP (fc1, fc2) */
    if (p == PL_PASS_FWD) {
      c = atp_window(lw, u, c, lin_s[k], ag.coll, k == 0 ? ag_all / 2 : ag_all - ag_all / 2);
      c = atp_window(lw, u, c, lin_s[k + 2], rs.coll, k == 0 ? rs_all / 2 : rs_all - rs_all / 2);
      continue;
    }
    int64_t ga = k == 0 ? ag_rec / 2 : ag_rec - ag_rec / 2;
    int64_t gr = k == 0 ? rs_rec / 2 : rs_rec - rs_rec / 2;
    if (rf_s[k] > 0 || ga > 0)
      c = atp_window(lw, u, c, rf_s[k], ag.coll, ga);
    if (rf_s[k + 2] > 0 || gr > 0)
      c = atp_window(lw, u, c, rf_s[k + 2], rs.coll, gr);
    int64_t gg = ag_all - ag_rec; /* the grad_output gathers */
    c = atp_window(lw, u, c, 0.5 * lin_s[k + 2], ag.coll, k == 0 ? gg / 2 : gg - gg / 2);
    c = comp(lw, 0.5 * lin_s[k + 2] + lin_s[k], u, PL_PART_TE_COLUMN);
  }
  join_add(lw, tp_issue(lw, rest, n_rest, c, SIM_NONE));
  return c;
}

/* One ring of PyTorch context_parallel's allgather attention
 * (layout.cp_allgather; torch/distributed/tensor/experimental/_attention.py,
 * PyTorch 2.6 line) over `layers` blocks taking ring_s of attention: the
 * K/V all_gather is issued before the first SDPA call and waited before the
 * second (_AllGatherRotater.exchange_buffers / next_buffer), so it hides
 * behind the first of the cp equal steps only (the load-balanced diagonal and
 * cp - 1 half-masked steps each do 1/cp of the rank's causal work); with dkv
 * (a backward ring) each step's fp32 dK/dV all_to_all overlaps the next
 * step and the last one is waited after the ring. Returns the last compute
 * task; *ring the last cp task (joined). */
static int32_t cp_gather_one(struct lower *lw, const struct unit *u, double ring_s, bool dkv,
                             enum pl_pass p, int32_t *ring) {
  const struct sim_seg *sg = &lw->st->seg[SIM_SEG_LAYER];
  double cp = (double)lw->l->cp;
  int64_t layers = u->layers;
  int32_t c0 = lw->last_comp;
  int32_t ag = coll_task(lw, PL_STREAM_CP, sg->cp[p].coll, layers * sg->cp[p].calls);
  dep(lw, c0, ag);
  int32_t first = comp(lw, ring_s / cp, u, PL_PART_ATTN);
  join_add(lw, ag);
  int32_t rest = comp(lw, ring_s * (cp - 1.0) / cp, u, PL_PART_ATTN);
  *ring = ag;
  if (dkv && sg->cp_dkv.calls > 1) {
    int32_t steps = coll_task(lw, PL_STREAM_CP, sg->cp_dkv.coll, layers * (sg->cp_dkv.calls - 1));
    dep(lw, first, steps);
    dep(lw, ag, steps);
    int32_t last = coll_task(lw, PL_STREAM_CP, sg->cp_dkv.coll, layers);
    dep(lw, steps, last);
    dep(lw, rest, last);
    *ring = last;
  }
  return rest;
}

/* layout.cp_allgather: the attention part of a unit as its rings: the
 * forward one; a backward the recomputed forward's (full recompute: the
 * forward's attention time times the recomputed share) and then its own. */
static int32_t cp_gather_rings(struct lower *lw, const struct unit *u, double attn_s,
                               enum pl_pass p, int32_t *ring) {
  if (p == PL_PASS_FWD)
    return cp_gather_one(lw, u, attn_s, false, p, ring);
  double re = 0;
  if (lw->l->recompute == PL_RECOMPUTE_FULL)
    re = pl_recompute_share(&lw->st->run->model, lw->l) * (double)u->layers *
         lw->st->seg[SIM_SEG_LAYER].attn_s[PL_PASS_FWD];
  if (re > 0 && re < attn_s) {
    int32_t r0;
    cp_gather_one(lw, u, re, false, PL_PASS_FWD, &r0);
    join_add(lw, r0);
    attn_s -= re;
  }
  return cp_gather_one(lw, u, attn_s, true, p, ring);
}

/* Emit one unit; gather (or SIM_NONE) is its parameter all_gather. Returns
 * its last compute task. */
static int32_t emit_unit(struct lower *lw, const struct unit *u, int32_t gather) {
  const struct sim_seg *sg = lw->st->seg;
  int p = u->slot.pass;
  double main_s = (double)u->embed * sg[SIM_SEG_EMBED].comp_s[p] +
                  (double)u->layers * sg[SIM_SEG_LAYER].comp_s[p] +
                  (double)u->head * sg[SIM_SEG_HEAD].comp_s[p];
  double attn_s = (double)u->layers * sg[SIM_SEG_LAYER].attn_s[p];
  join_add(lw, gather);
  bool beside = tp_overlapped(lw, u), ep = ep_beside(lw, u);
  int32_t in[LOWER_JOIN], prev = lw->last_comp;
  int n_in = beside || ep ? lw->n_join : 0;
  memcpy(in, lw->join, (size_t)n_in * sizeof in[0]);
  double mlp_s = (double)u->layers * sg[SIM_SEG_LAYER].experts_s[p];
  bool windows = ep && attn_s <= 0 && mlp_s > 0 && mlp_s < main_s;
  double first_s = !windows ? main_s : p == PL_PASS_FWD ? main_s - mlp_s : mlp_s;
  enum pl_task_part first_part = !windows             ? (attn_s > 0 ? PL_PART_MAIN : PL_PART_ALL)
                                 : p == PL_PASS_FWD ? PL_PART_NON_EXPERTS
                                                    : PL_PART_EXPERTS;
  double col_s[2] = {0, 0};
  bool te = !windows && te_bwd(lw, u, attn_s);
  if (te) { /* the column-parallel linears' GEMMs leave the first task */
    double sum = 0;
    for (int k = 0; k < 2; k++)
      sum += col_s[k] = (double)u->layers * sg[SIM_SEG_LAYER].te_column_s[k];
    for (int k = 0; k < 2 && sum > first_s; k++) /* a host floor above the GPU time */
      col_s[k] *= first_s / sum;
    first_s -= fmin(sum, first_s);
    first_part = PL_PART_TE_REST;
  }
  double lin_s[4] = {0, 0, 0, 0}, rf_s[4] = {0, 0, 0, 0};
  bool async = !windows && !te && atp(lw, u, attn_s);
  if (async) { /* the four tp linears' GEMMs leave the first task (atp_windows) */
    const struct sim_seg *ly = &sg[SIM_SEG_LAYER];
    double sum = 0;
    for (int k = 0; k < 4; k++) {
      lin_s[k] = (double)u->layers * ly->atp_lin_s[p][k];
      rf_s[k] = p == PL_PASS_BWD ? (double)u->layers * ly->atp_rf_s[k] : 0.0;
      sum += lin_s[k] + rf_s[k];
    }
    double edge_s = (double)u->embed * sg[SIM_SEG_EMBED].comp_s[p] +
                    (double)u->head * sg[SIM_SEG_HEAD].comp_s[p];
    double room = fmax(0.0, first_s - edge_s); /* a host floor above the GPU time */
    for (int k = 0; k < 4 && sum > room; k++)
      lin_s[k] *= room / sum, rf_s[k] *= room / sum;
    first_s -= fmin(sum, room);
    first_part = PL_PART_TE_REST;
  }
  int32_t c0 = SIM_NONE;
  double second_s = 0;
  if (windows) { /* the edges run alone, outside the windows (ep_edge_s) */
    struct unit before, after;
    double before_s = ep_edge_s(lw, u, true, &before);
    double layer_s = main_s - before_s - ep_edge_s(lw, u, false, &after);
    if (before.embed || before.head)
      prev = c0 = comp(lw, before_s, &before, PL_PART_ALL);
    first_s = p == PL_PASS_FWD ? layer_s - mlp_s : mlp_s;
    second_s = layer_s - first_s;
  }
  struct unit blk = *u; /* under windows the blocks alone: the edges have their tasks */
  if (windows)
    blk.embed = blk.head = false;
  int32_t c = comp(lw, first_s, &blk, first_part);
  int32_t c_first = c0 != SIM_NONE ? c0 : c;
  if (c_first != SIM_NONE && lw->cur_unit >= 0 && lw->st->eng.cmp.need[lw->pass_id] > 0)
    lw->st->tags[c_first].anchor = 1;
  if (windows)
    return ep_windows(lw, u, second_s, c, prev, in, n_in, beside);
  int32_t ring = SIM_NONE;
  if (attn_s > 0 && lw->l->cp_allgather) {
    c = cp_gather_rings(lw, u, attn_s, (enum pl_pass)p, &ring);
    join_add(lw, ring);
  } else if (attn_s > 0) {
    const struct sim_comm *cp = &sg[SIM_SEG_LAYER].cp[p];
    ring = coll_task(lw, PL_STREAM_CP, cp->coll, (int64_t)u->layers * cp->calls);
    dep(lw, c, ring);
    c = comp(lw, attn_s, u, PL_PART_ATTN);
    join_add(lw, ring);
  }
  if (beside) {
    struct unit edge = *u;
    edge.layers = 0;
    if (pl_model_is_moe(&lw->st->run->model) && !ep) {
      /* TE userbuffers overlap the tp collectives of TE's linear layers only:
       * the expert-parallel all_to_all (Megatron-Core token_dispatcher.py
       * MoEAlltoAllTokenDispatcher -> tensor_parallel/mappings.py _AllToAll,
       * torch.distributed.all_to_all_single on the compute stream, waited on
       * before the experts) stays blocking after the unit's compute unless
       * ep_comm_overlap moves it beside */
      struct unit lay = *u;
      lay.embed = lay.head = false;
      struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
      int n = tp_merge_part(lw->st->seg, &lay, list, 0);
      tp_issue_beside(lw, list, n, prev, in, n_in);
      n = tp_merge_part(lw->st->seg, &lay, list, 1);
      if (n > 0)
        join_add(lw, tp_issue(lw, list, n, c, ring));
    } else {
      unit_tp_beside(lw, u, prev, in, n_in);
    }
    if (edge.embed || edge.head)
      unit_tp(lw, &edge, c, ring);
  } else if (ep) {
    struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
    int n = tp_merge_part(lw->st->seg, u, list, 1);
    tp_issue_beside(lw, list, n, prev, in, n_in);
    n = tp_merge_part(lw->st->seg, u, list, 0);
    join_add(lw, tp_issue(lw, list, n, c, ring));
  } else if (te) {
    c = te_bwd_windows(lw, u, c, col_s);
  } else if (async) {
    c = atp_windows(lw, u, c, lin_s, rf_s);
  } else {
    unit_tp(lw, u, c, ring);
  }
  lw->unit_end[1] = lw->unit_end[0];
  lw->unit_end[0] = c;
  return c;
}

static int32_t gather(struct lower *lw, const struct sim_seg *sg, struct sim_slot slot) {
  /* ag2: the tensors a backward gathers again after its recomputed forward;
   * ag3: the persistent tensors a forward after the step's first micro-batch
   * gathers back (layout.zero3_list_copy_s, fsdp_comm.c zero3_list_calls) */
  int32_t two = slot.pass == PL_PASS_BWD ? sg->ag2 : slot.mb > 0 ? sg->ag3 : SIM_NONE;
  int32_t t = two >= 0 ? coll_pair(lw, PL_STREAM_DP_GATHER, (struct sim_comm){sg->ag, 1},
                                   (struct sim_comm){two, 1})
                       : coll_task(lw, PL_STREAM_DP_GATHER, sg->ag, 1);
  /* prefetch at most two units ahead; none with layout.gather_no_prefetch */
  dep(lw, lw->l->gather_no_prefetch ? lw->unit_end[0] : lw->unit_end[1], t);
  return t;
}

/* n units' reduce_scatters (and HSDP all_reduces) of segment sg, after task after. */
static int32_t reduce(struct lower *lw, const struct sim_seg *sg, int32_t after, int64_t n) {
  /* layout.fsdp_one_comm: one communicator, so the reduce_scatter queues
   * behind the gathers on their stream (the HSDP all_reduce is another) */
  enum pl_stream s = lw->l->fsdp_one_comm ? PL_STREAM_DP_GATHER : PL_STREAM_DP_REDUCE;
  int32_t t = coll_task(lw, s, sg->rs, n);
  dep(lw, after, t);
  int32_t a = coll_task(lw, PL_STREAM_DP_REDUCE, sg->ar, n);
  if (s != PL_STREAM_DP_REDUCE)
    dep(lw, t, a);
  return t;
}

/* Layer units a pass with per-unit FSDP traffic issues when compressed
 * (compress.c inserts the rest): pp = 1 only, where no transfer from another
 * stage can fall inside the inserted time. */
static int32_t kept_layers(struct lower *lw, const struct unit *base, bool sync) {
  const struct sim_step *st = lw->st;
  /* comm-bound FSDP: only the step's first pass, with nothing queued on the
   * data-parallel streams yet, repeats unit by unit */
  bool units = !lw->whole_units || lw->pass_id == 0;
  if (!st->compress || !units || lw->pp != 1 || sync || base->layers <= st->keep_layers)
    return base->layers;
  st->eng.cmp.need[lw->pass_id] = base->layers - st->keep_layers;
  return st->keep_layers;
}

/* A pass with per-segment data-parallel traffic: one unit per segment. */
static void emit_segments(struct lower *lw, const struct unit *base, bool ag, bool rs, bool sync) {
  int32_t layers = kept_layers(lw, base, sync);
  int n = base->embed + layers + base->head;
  bool fwd = base->slot.pass == PL_PASS_FWD, tag = layers < base->layers;
  int32_t c = SIM_NONE, pend_c = SIM_NONE;
  const struct sim_seg *pend = NULL; /* fsdp_one_comm: reduce_scatter not yet issued */
  for (int i = 0; i < n; i++) {
    int k = fwd ? i : n - 1 - i; /* position in forward order */
    struct unit u = {base->slot, base->layer_first + k - base->embed, 1, false, false};
    lw->cur_unit = tag ? i - (fwd ? base->embed : base->head) : -1;
    enum sim_seg_kind kind = SIM_SEG_LAYER;
    if (base->embed && k == 0) {
      kind = SIM_SEG_EMBED;
      u = (struct unit){base->slot, 0, 0, true, false};
      lw->cur_unit = -1;
    } else if (base->head && k == n - 1) {
      kind = SIM_SEG_HEAD;
      u = (struct unit){base->slot, 0, 0, false, true};
      lw->cur_unit = -1;
    }
    const struct sim_seg *sg = &lw->st->seg[kind];
    /* layout.zero3_list_copy_s: DeepSpeed 2021's per-parameter gather
     * begins with torch.cuda.synchronize() (partition_parameters.py
     * _allgather_param, v0.3.13-v0.5.x; stage3.py _synchronize_communication
     * too), which waits for every stream of the device, the gradient
     * reductions issued on the reduction stream by the previous module's
     * backward included (stage3.py allreduce_and_copy / average_tensor under
     * torch.cuda.stream(self.reduction_stream)): the gather waits for the
     * reduction issued before it */
    int32_t r = SIM_NONE;
    if (pend != NULL && lw->l->shard == PL_SHARD_ZERO3 && lw->l->zero3_list_copy_s > 0) {
      r = reduce(lw, pend, pend_c, 1);
      pend = NULL;
    }
    int32_t g = ag ? gather(lw, sg, base->slot) : SIM_NONE;
    if (g != SIM_NONE && r != SIM_NONE)
      dep(lw, r, g);
    if (pend != NULL) /* FSDP's post-backward hook prefetches, then reduces */
      reduce(lw, pend, pend_c, 1);
    pend = NULL;
    c = emit_unit(lw, &u, g);
    if (rs && lw->l->fsdp_one_comm) {
      pend = sg;
      pend_c = c;
    } else if (rs) {
      reduce(lw, sg, c, 1);
    }
    if (sync)
      sim_dp_bucket(lw, sg, c, false);
  }
  lw->cur_unit = -1;
  if (pend != NULL)
    reduce(lw, pend, pend_c, 1);
  if (sync)
    sim_dp_bucket(lw, NULL, c, true);
}

static void record_ends(struct lower *lw, size_t pi) {
  int32_t *e = &lw->ends[pi * LOWER_ENDS];
  e[0] = lw->last_comp;
  for (int i = 1; i < LOWER_ENDS; i++)
    e[i] = i - 1 < lw->n_join ? lw->join[i - 1] : SIM_NONE;
}

/* A pass with per-unit FSDP traffic: copied from a template of its shape,
 * or derived (and kept as a template). */
static void emit_fsdp_pass(struct lower *lw, const struct unit *base, bool ag, bool rs) {
  int32_t in[TPL_IN];
  int8_t pat[TPL_IN];
  sim_tpl_inputs(lw, in, pat);
  const struct tpl *t = sim_tpl_find(lw, base, ag, pat);
  if (t != NULL) {
    sim_tpl_replay(lw, t, base, in);
    return;
  }
  int n_join = lw->n_join;
  int32_t e0 = lw->n_tpl_edges;
  memcpy(lw->rec_in, in, sizeof in);
  lw->rec_a = lw->st->eng.n_tasks;
  lw->rec = true;
  lw->rec_bad = false;
  emit_segments(lw, base, ag, rs, false);
  lw->rec = false;
  sim_tpl_save(lw, base, ag, n_join, pat, e0);
}

/* FSDP with pipelining as torchtitan runs it (layout.fsdp_pp_unsharded, pp > 1):
 * torchtitan's apply_fsdp (torchtitan/models/llama3/infra/parallelize.py,
 * v0.1.0) sets reshard_after_forward False when pp is enabled, and PyTorch's
 * pipeline stage (torch/distributed/pipelining/stage.py, _PipelineStageBase.
 * backward_maybe_with_nosync, 2.6+) runs every backward of an FSDPModule with
 * set_requires_gradient_sync(False) and set_reshard_after_backward(False): a
 * chunk's parameters are gathered by its first forward and stay gathered for
 * the step, its gradients accumulate unsharded. After the chunk's last
 * backward it calls post_backward() of every FSDP state, which
 * reduce_scatters each unit's gradients, one after another, once the
 * backward has finished (not overlapped with it). */
static bool fsdp_pp(const struct lower *lw) {
  return fsdp(lw->l) && lw->l->fsdp_pp_unsharded && lw->pp > 1;
}

static void fsdp_pp_flush(struct lower *lw, const struct unit *base) {
  const struct sim_seg *sg = lw->st->seg;
  int32_t after = lw->last_comp;
  if (base->head)
    reduce(lw, &sg[SIM_SEG_HEAD], after, 1);
  if (base->layers > 0)
    reduce(lw, &sg[SIM_SEG_LAYER], after, base->layers);
  if (base->embed)
    reduce(lw, &sg[SIM_SEG_EMBED], after, 1);
}

static void emit_pass(struct lower *lw, int32_t index, struct sim_slot sl) {
  const struct pl_layout *l = lw->l;
  int64_t v = (int64_t)sl.chunk * lw->pp + lw->stage;
  struct unit base = {sl, lw->st->chunk_first[v], lw->st->chunk_layers[v], v == 0, v == lw->V - 1};
  bool sharded = fsdp(l) && lw->st->seg[SIM_SEG_LAYER].ag >= 0;
  bool ag = sharded && !lw->unsharded[sl.chunk];
  bool keep = sharded && fsdp_pp(lw);
  bool rs = sharded && sl.pass == PL_PASS_BWD && !keep;
  bool sync = !fsdp(l) && !l->grad_reduce_after_backward && lw->bucket_coll >= 0 &&
              sl.pass == PL_PASS_BWD && index == lw->last_bwd[sl.chunk];
  bool flush = keep && sl.pass == PL_PASS_BWD && index == lw->last_bwd[sl.chunk];
  lw->pass_first = SIM_NONE;
  lw->pass_id = lw->n_pass++;
  /* the pass that flushes the gradient buckets happens once: not repeatable */
  lw->cur_steady = index >= lw->steady_lo && index < lw->steady_hi && !sync && !flush;
  /* Megatron-Core's combined 1F1B (ep_beside) merges forward w + 1 + k with
   * backward k: the warm-up forwards up to the one before the first backward
   * (one more warm-up micro-batch with the overlap, schedules.py
   * get_pp_rank_microbatches) and the backwards after the last forward run
   * alone; with pp 1 the first forward and the last backward
   * (combined_1f1b_schedule_for_no_pipelining) */
  lw->ep_paired = lw->steady_lo < lw->steady_hi &&
                  (sl.pass == PL_PASS_FWD ? index >= lw->steady_lo + 2 : index < lw->steady_hi - 2);
  lw->anchor_pair =
      lw->st->eng.cmp.glob_need > 0 && (lw->stage == 0 || lw->stage_periods) && lw->cur_steady &&
              sl.pass == PL_PASS_FWD
          ? (index - lw->steady_lo) / 2
          : -1;
  if ((ag || rs) && !sync && lw->tpl_on)
    emit_fsdp_pass(lw, &base, ag, rs);
  else if (ag || rs || sync)
    emit_segments(lw, &base, ag, rs, sync);
  else
    emit_unit(lw, &base, SIM_NONE);
  sim_p2p_pass_extras(lw, sl, v);
  size_t pi = pass_index(lw, v, sl.mb, sl.pass);
  lw->first[pi] = lw->pass_first;
  record_ends(lw, pi);
  if (flush)
    fsdp_pp_flush(lw, &base);
  if (sharded)
    lw->unsharded[sl.chunk] = keep || (sl.pass == PL_PASS_FWD && l->shard == PL_SHARD_ZERO2);
  lw->pass_id = -1;
  lw->cur_steady = 0;
  lw->anchor_pair = -1;
}

static void emit_stage(struct lower *lw, int64_t s) {
  lw->stage = (int32_t)s;
  lw->n_join = 0;
  lw->unit_end[0] = lw->unit_end[1] = SIM_NONE;
  lw->last_comp = SIM_NONE;
  lw->bucket_fill = lw->ebucket_fill = 0;
  const struct sim_slot *sl = &lw->slots[s * lw->per_stage];
  for (int64_t c = 0; c < lw->vp; c++) {
    lw->unsharded[c] = false;
    lw->last_bwd[c] = -1;
  }
  for (int32_t i = 0; i < lw->n_slots[s]; i++)
    if (sl[i].pass == PL_PASS_BWD)
      lw->last_bwd[sl[i].chunk] = i;
  steady_range(lw, sl, lw->n_slots[s]);
  sim_dp_gather_ahead(lw);
  int32_t later = SIM_NONE;
  for (int32_t i = 0; i < lw->n_slots[s] && lw->err == PL_OK; i++) {
    sim_dp_gather_wait(lw, sl[i], &later);
    emit_pass(lw, i, sl[i]);
  }
  sim_dp_emit_tail(lw);
}

/* Sends between stages, in each sender's compute order. Blocking, as
 * Megatron-LM's p2p_communication._communicate runs them: the sends and
 * receives around a pass are posted with batch_isend_irecv, every request is
 * waited for (followed by torch.cuda.synchronize() in the 2021-22 code) before
 * the next forward or backward starts, so a transfer sits on its sender's
 * critical path as well as its receiver's. */
static enum pl_status setup_colls(struct lower *lw, struct pl_diag *diag) {
  const struct pl_layout *l = lw->l;
  const struct pl_model *md = &lw->st->run->model;
  lw->bucket_coll = lw->bucket_ar_coll = lw->pp_coll = lw->ebucket_coll = SIM_NONE;
  /* A stage boundary's tensor (seq/cp x mbs x hidden, 16-bit) goes out whole
   * from every tp rank unless something splits it: sequence parallelism (the
   * tensor is already 1/tp along the sequence: Megatron-LM schedules.py and
   * Megatron-Core schedules.py get_tensor_shapes divide the sequence by tp
   * only when sequence_parallel is on), Megatron-LM 2021-22's scatter/gather
   * (sg_on) or DeepSpeed's partitioned pipe tensors (p2p_serial with tp > 1:
   * PartitionedTensor). Megatron-Core dropped the scatter/gather (3c92fa9,
   * 2023), so without SP it sends the whole tensor. */
  double full = (double)l->mbs * (double)(l->seq / l->cp) * (double)md->hidden * 2.0;
  bool split = l->sp || sim_p2p_split(lw);
  double act = split ? full / (double)l->tp : full;
  enum pl_status s = sim_coll_add(lw->st, PL_COLL_SEND_RECV, "pp", act, &lw->pp_coll, diag);
  lw->part_ag_coll = SIM_NONE;
  lw->act_bytes = act;
  if (s == PL_OK && sim_p2p_split(lw))
    s = sim_coll_add(lw->st, PL_COLL_ALL_GATHER, "tp", act * (double)l->tp, &lw->part_ag_coll, diag);
  if (s != PL_OK || fsdp(l))
    return s;
  enum pl_coll_op op = sim_grad_reduce_op(l);
  s = sim_coll_add(lw->st, op, "dp", lw->st->bucket_bytes, &lw->bucket_coll, diag);
  if (s == PL_OK && lw->st->seg[SIM_SEG_LAYER].expert_params > 0 && l->edp > 1)
    s = sim_coll_add(lw->st, op, "edp", lw->st->bucket_bytes, &lw->ebucket_coll, diag);
  if (s == PL_OK && l->shard != PL_SHARD_DDP && l->shard_group < l->dp)
    s = sim_coll_add(lw->st, PL_COLL_ALL_REDUCE, "dp-replica",
                     lw->st->bucket_bytes / (double)l->shard_group, &lw->bucket_ar_coll, diag);
  return s;
}

static enum pl_status alloc_tables(struct lower *lw) {
  size_t passes = (size_t)lw->V * (size_t)lw->m * 2;
  lw->slots = sim_calloc((size_t)lw->pp * (size_t)lw->per_stage, sizeof *lw->slots);
  lw->n_slots = sim_calloc((size_t)lw->pp, sizeof *lw->n_slots);
  lw->first = sim_calloc(passes, sizeof *lw->first);
  lw->ends = sim_calloc(passes * LOWER_ENDS, sizeof *lw->ends);
  lw->xfer = sim_calloc(passes, sizeof *lw->xfer);
  lw->streams = sim_calloc((size_t)lw->pp * PL_STREAM_N, sizeof *lw->streams);
  lw->unsharded = sim_calloc((size_t)lw->vp, sizeof *lw->unsharded);
  lw->pgather = sim_calloc((size_t)lw->vp * 2, sizeof *lw->pgather);
  lw->last_bwd = sim_calloc((size_t)lw->vp, sizeof *lw->last_bwd);
  bool ok = lw->slots && lw->n_slots && lw->first && lw->ends && lw->xfer && lw->streams &&
            lw->unsharded &&
            lw->pgather &&
            lw->last_bwd;
  return ok ? PL_OK : PL_ERR_NOMEM;
}

static void free_tables(struct lower *lw) {
  sim_free(lw->tpl_edges);
  sim_free(lw->tpl_str);
  sim_free(lw->tpl_links);
  sim_free(lw->slots);
  sim_free(lw->n_slots);
  sim_free(lw->first);
  sim_free(lw->ends);
  sim_free(lw->xfer);
  sim_free(lw->streams);
  sim_free(lw->unsharded);
  sim_free(lw->pgather);
  sim_free(lw->last_bwd);
}

/* FSDP traffic per layer and 1F1B pair against the layer's compute (both
 * alone): when the gathers and reduce_scatters take at least as long, their
 * queue grows from unit to unit (Llama-2 70B zero2 tp8: the reduce_scatter
 * stream falls behind by a constant per unit of a backward), so units do not
 * repeat, except in the step's first pass, where nothing is queued yet; with
 * pp = 1 the queue drains in the next forward and whole micro-batches repeat
 * (docs/step-model.md section 11); with pp > 1 stage 0 runs at a
 * period of its own, slower than the later stages', for most of the step
 * (zero2 tp4 pp4), so periods are inserted per stage. */
static bool fsdp_comm_bound(const struct lower *lw) {
  const struct sim_seg *sg = &lw->st->seg[SIM_SEG_LAYER];
  const struct sim_coll *c = lw->st->colls;
  if (!fsdp(lw->l) || sg->ag < 0 || fsdp_pp(lw))
    return false;
  double gathers = lw->l->shard == PL_SHARD_ZERO3 ? 2 : 1;
  double dp = gathers * c[sg->ag].time_s + (sg->rs >= 0 ? c[sg->rs].time_s : 0) +
              (sg->ar >= 0 ? c[sg->ar].time_s : 0);
  double comp = sg->comp_s[0] + sg->comp_s[1] + sg->attn_s[0] + sg->attn_s[1];
  return dp >= comp;
}

/* Compression: simulate fewer steady-state pipeline periods (1F1B: one
 * forward and one backward per stage; interleaved: pp*vp of each, pp
 * micro-batches) than the step has: enough past stage 0's warm-up for
 * keep_pairs pairs and one period more; compress.c inserts the rest. */
static void reduce_pairs(struct lower *lw) {
  lw->periods = 0;
  lw->period = 1;
  const struct sim_step *st = lw->st;
  enum pl_schedule sc = lw->l->schedule;
  if (!st->compress || (sc != PL_SCHEDULE_1F1B && sc != PL_SCHEDULE_INTERLEAVED))
    return;
  if (sc == PL_SCHEDULE_1F1B) {
    int64_t keep = lw->pp - 1 + st->keep_pairs + 1;
    if (keep < lw->m) {
      lw->periods = lw->m - keep;
      lw->m = keep;
    }
    return;
  }
  int64_t q = lw->pp * lw->vp, warm = (lw->pp - 1) * 2 + (lw->vp - 1) * lw->pp;
  int64_t need = warm + q + st->keep_pairs, keep = lw->pp;
  while (keep * lw->vp < need || keep == lw->pp)
    keep += lw->pp;
  if (lw->m % lw->pp == 0 && keep < lw->m) {
    lw->periods = (lw->m - keep) / lw->pp;
    lw->m = keep;
    lw->period = q;
  }
}

/* A step simulated as more tasks than this is refused: it would take
 * gigabytes and minutes; no real layout comes near (1T on 3072 GPUs with
 * 512 micro-batches is ~10^6). */
#define LOWER_MAX_TASKS (INT64_C(1) << 25)

/* Rough task count, to size the engine's arrays once (an upper estimate). */
static int64_t task_estimate(const struct lower *lw) {
  int64_t slots = lw->pp * lw->per_stage;
  int64_t per_chunk = lw->st->run->model.layers / lw->V + 3;
  for (int64_t v = 0; pl_layout_uneven_stages(lw->l) && v < lw->V; v++)
    per_chunk = lw->st->chunk_layers[v] + 3 > per_chunk ? lw->st->chunk_layers[v] + 3 : per_chunk;
  int64_t seg_passes = fsdp(lw->l) ? slots : lw->pp * lw->vp;
  return 6 * slots + 6 * seg_passes * per_chunk + 64;
}

static enum pl_status make_streams(struct lower *lw) {
  for (int64_t s = 0; s < lw->pp; s++)
    for (int k = 0; k < PL_STREAM_N; k++) {
      int32_t id = sim_stream_add(&lw->st->eng, (int32_t)s);
      lw->streams[s * PL_STREAM_N + k] = id;
      /* a template moves a pass to another stage by this stream offset */
      lw->tpl_on = lw->tpl_on && id == s * PL_STREAM_N + k;
    }
  return lw->st->eng.nomem ? PL_ERR_NOMEM : PL_OK;
}

/* Compression (compress.c): how many pipeline periods were left out, and a
 * count of missing layer units per pass instance. */
static enum pl_status compress_setup(struct lower *lw) {
  struct sim_cmp *c = &lw->st->eng.cmp;
  c->period = 1;
  c->n_pass = (int32_t)(lw->pp * lw->per_stage);
  c->need = sim_calloc((size_t)c->n_pass, sizeof *c->need);
  if (c->need == NULL)
    return PL_ERR_NOMEM;
  if (!lw->st->compress)
    return PL_OK;
  c->on = true;
  c->glob_need = (int32_t)lw->periods;
  c->period = (int32_t)lw->period;
  c->last_unit = lw->st->keep_layers - 1;
  c->last_pair = INT32_MAX;
  c->stage_mode = lw->stage_periods;
  return PL_OK;
}

static enum pl_status run_lowering(struct lower *lw, struct pl_diag *diag) {
  const struct sim_schedule *sched = sim_schedule_for(lw->l->schedule);
  for (int64_t s = 0; s < lw->pp; s++)
    lw->n_slots[s] = sched->order(lw->pp, lw->m, lw->vp, s, &lw->slots[s * lw->per_stage]);
  for (size_t i = 0; i < (size_t)lw->V * (size_t)lw->m * 2; i++)
    lw->first[i] = lw->xfer[i] = SIM_NONE;
  enum pl_status s = sim_engine_init(&lw->st->eng, (int32_t)lw->pp, (int32_t)task_estimate(lw),
                                     lw->st->run->cluster.gpu.eff.overlap_slowdown);
  /* metadata sized once too: regrowing it copies every entry */
  if (s == PL_OK && !meta_room(lw->st, (int32_t)task_estimate(lw)))
    s = PL_ERR_NOMEM;
  if (s == PL_OK)
    s = compress_setup(lw);
  if (s == PL_OK)
    s = make_streams(lw);
  if (s == PL_OK)
    s = setup_colls(lw, diag);
  for (int64_t st = 0; st < lw->pp && s == PL_OK && lw->err == PL_OK; st++)
    emit_stage(lw, st);
  for (int64_t st = 0; st < lw->pp && s == PL_OK && lw->err == PL_OK; st++)
    sim_p2p_emit_sends(lw, st);
  if (s == PL_OK && lw->err == PL_OK && sim_p2p_serial(lw))
    for (int64_t st = 0; st < lw->pp; st++)
      sim_p2p_emit_serial(lw, st);
  if (s == PL_OK && (lw->err != PL_OK || lw->st->eng.nomem))
    s = lw->err != PL_OK ? lw->err : PL_ERR_NOMEM;
  return s;
}

enum pl_status sim_lower(struct sim_step *st, struct pl_diag *diag) {
  struct lower lw;
  memset(&lw, 0, sizeof lw);
  lw.st = st;
  lw.diag = diag;
  lw.pass_id = lw.cur_unit = lw.anchor_pair = -1;
  lw.l = &st->run->layout;
  lw.pp = lw.l->pp;
  lw.vp = lw.l->vp;
  lw.m = lw.l->micro_batches;
  lw.V = lw.pp * lw.vp;
  lw.per_stage = (int32_t)(2 * lw.m * lw.vp);
  for (int k = 0; k < SIM_SEG_N; k++)
    lw.tp_cache[k][0].n = lw.tp_cache[k][1].n = -1;
  st->bucket_bytes = pl_layout_bucket_bytes(lw.l, sim_grad_bytes(lw.l), (double)pl_model_params(&st->run->model));
  /* the limit holds for the whole step, compressed or not */
  if (lw.m > LOWER_MAX_TASKS || (double)lw.pp * (double)lw.per_stage > (double)LOWER_MAX_TASKS ||
      task_estimate(&lw) > LOWER_MAX_TASKS)
    return pl_diag_set(diag, PL_ERR_LIMIT,
                       "step simulation: pp=%lld x %lld micro-batches x vp=%lld is too many passes "
                       "to simulate (limit %lld tasks)",
                       (long long)lw.pp, (long long)lw.m, (long long)lw.vp,
                       (long long)LOWER_MAX_TASKS);
  if (st->compress && fsdp_comm_bound(&lw)) {
    /* pp > 1: each stage repeats with its own period, 1F1B only */
    if (lw.pp > 1 && (lw.l->schedule != PL_SCHEDULE_1F1B || lw.vp != 1))
      st->compress = false;
    else
      lw.whole_units = true;
    lw.stage_periods = st->compress && lw.pp > 1;
  }
  reduce_pairs(&lw);
  /* templates: not with layer units left out (their tags differ per unit) */
  lw.tpl_on = (!st->compress || lw.stage_periods) && !st->reference;
  lw.per_stage = (int32_t)(2 * lw.m * lw.vp);
  enum pl_status s = alloc_tables(&lw);
  if (s == PL_OK)
    s = run_lowering(&lw, diag);
  free_tables(&lw);
  if (s == PL_ERR_NOMEM)
    return pl_diag_set(diag, s, "step simulation: out of memory");
  if (s != PL_OK && diag != NULL && diag->msg[0] == '\0')
    return pl_diag_set(diag, s, "step simulation: %s", pl_status_message(s));
  return s;
}
