/* lower_unit.c: one unit of a pass as engine tasks (lower.c's file comment
 * says what a unit is): its compute, and how its tensor-, context- and
 * expert-parallel collectives run against that compute: blocking after it,
 * beside it (Transformer Engine's userbuffers, tp_comm_overlap), in Transformer
 * Engine's per-linear backward windows (te_bwd_windows), in PyTorch's
 * micro-pipeline TP windows (atp_windows), in Megatron-Core's merged EP
 * windows (ep_windows), or around the attention as a context-parallel ring
 * (Transformer Engine) or PyTorch's all-gather context parallelism
 * (cp_gather_rings). The data-parallel traffic and the pipeline exchange are
 * lower.c's, lower_dp.c's and lower_p2p.c's. */
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "model/constants.h"
#include "sim/lower_int.h"
#include "sim/sim_int.h"

/* A unit's collectives, merged by kind; part -1 all of them, 0 all but the
 * blocks' expert-parallel ones, 1 only those (slots SIM_SEG_EP on). A slot
 * with no call in this pass (a forward-only call in a backward: the alltoall
 * dispatcher's counts, HybridEP's routing map) is left out: as the list's last
 * entry it would issue no task and end the unit's chain (tp_issue_ub). */
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
      if (c.coll < 0 || c.calls <= 0)
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

/* Under Transformer Engine's userbuffers (ub, tp_overlapped) the layers'
 * all_gathers are ring exchanges: TE v2.8 pytorch/module/base.py
 * initialize_ub puts qkv_fprop, fc1_fprop, proj_dgrad and fc2_dgrad on
 * "ring_exchange" with use_ce True (userbuffers.cu sends by copy engine)
 * and set_sm_margin False (the GEMM keeps every SM: comm_gemm_overlap.cpp
 * _math_sms); NeMo's ub configs keep the method and do not set use_ce. So
 * they run on the node's fabric as the other tp calls do but take no SM
 * from the compute beside them (SIM_RES_INTRA_CE). The reduce_scatters
 * (pipeline, bulk) run SM kernels: the GPU's overlap_slowdown, except the
 * forward's (proj_fprop, fc2_fprop) when the ub config reserves SMs for them
 * with set_sm_margin (layout.ub_proj_fprop_sms and ub_fc2_fprop_sms both
 * set, ub UB_RS_MARGIN): comm_gemm_overlap.cpp CommOverlapCore::initialize
 * sets _math_sms = sm_count - num_comm_sm and split_overlap_rs launches the
 * GEMM chunks on _math_sms, so the reduce_scatter kernels run on SMs the GEMM
 * does not use; the GEMM's own loss is in its time (src/sim/ub_margin.c),
 * not in a slowdown while the collective runs. The backward's bulk
 * reduce_scatters (qkv_wgrad, fc1_wgrad: set_sm_margin 0 in NeMo's ub
 * configs) keep overlap_slowdown. */
enum { UB_OFF, UB_ON, UB_RS_MARGIN };

static int ub_mode(const struct lower *lw, const struct unit *u) {
  const struct pl_layout *l = lw->l;
  return u->slot.pass == PL_PASS_FWD && l->ub_proj_fprop_sms > 0 && l->ub_fc2_fprop_sms > 0
             ? UB_RS_MARGIN
             : UB_ON;
}

static bool ub_ce(const struct lower *lw, int ub, struct sim_comm c) {
  const struct sim_coll *k = c.coll >= 0 ? &lw->st->colls[c.coll] : NULL;
  if (ub == UB_OFF || k == NULL || k->res != SIM_RES_INTRA)
    return false;
  return k->op == PL_COLL_ALL_GATHER || (ub == UB_RS_MARGIN && k->op == PL_COLL_REDUCE_SCATTER);
}

/* Issue a tp list on the tp stream, its first task after `after` and `ring`
 * (SIM_NONE: no edge), the ring exchanges on the copy engines when ub;
 * returns the last task. */
static int32_t tp_issue_ub(struct lower *lw, const struct sim_comm *list, int n, int32_t after,
                           int32_t ring, int ub) {
  int32_t prev = SIM_NONE;
  for (int i = 0; i < n; i++) {
    bool ce = ub_ce(lw, ub, list[i]);
    int32_t t = i + 1 < n && !ce && !ub_ce(lw, ub, list[i + 1])
                    ? coll_pair(lw, PL_STREAM_TP, list[i], list[i + 1])
                    : SIM_NONE;
    if (t != SIM_NONE)
      i++;
    else
      t = coll_task(lw, PL_STREAM_TP, list[i].coll, list[i].calls);
    if (ce && t != SIM_NONE)
      lw->st->eng.tasks[t].res = SIM_RES_INTRA_CE;
    if (prev == SIM_NONE) {
      dep(lw, after, t);
      dep(lw, ring, t);
    }
    prev = t;
  }
  return prev;
}

static int32_t tp_issue(struct lower *lw, const struct sim_comm *list, int n, int32_t after,
                        int32_t ring) {
  return tp_issue_ub(lw, list, n, after, ring, UB_OFF);
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
 * compute while the reduce_scatters run (overlap_slowdown: the SMs
 * userbuffers take, num_sm 16-24 of 132 in the H100 ub-confs), not while
 * the ring exchanges run on the copy engines (ub_ce). Embedding and LM-head
 * collectives stay blocking (TE overlaps its own linear layers only).
 * The last of the forward's num_splits reduce_scatter chunks, which has no
 * GEMM left to hide behind, runs after the compute (ub_rs_tail); the
 * backward's bulk re-gathers of the column-parallel inputs go beside it
 * (ub_regather_beside). */
static bool tp_overlapped(const struct lower *lw, const struct unit *u) {
  return lw->l->tp_comm_overlap && lw->l->sp && u->layers > 0;
}

/* A list issued beside a unit's compute: after prev, the compute before it,
 * and the unit's inputs in (n_in of them); the next unit waits for it. */
static void tp_issue_beside(struct lower *lw, const struct sim_comm *list, int n, int32_t prev,
                            const int32_t *in, int n_in, int ub) {
  int32_t first_id = lw->st->eng.n_tasks;
  int32_t last = tp_issue_ub(lw, list, n, prev, SIM_NONE, ub);
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
  tp_issue_beside(lw, list, n, prev, in, n_in, ub_mode(lw, u));
}

/* Under userbuffers the backward of each column-parallel TE linear (qkv,
 * fc1: LayerNormLinear) re-gathers its saved sequence-parallel input for the
 * wgrad as a bulk overlap beside its dgrad GEMM: TE layernorm_linear.py
 * _LayerNormLinear.backward (@ d0067d0d), ctx.ub_bulk_dgrad, "Overlap
 * inputmat all-gather with dgrad compute" (ub names qkv_dgrad, fc1_dgrad;
 * method bulk in every NeMo and MLPerf ub config), fill_userbuffers_buffer_
 * for_all_gather then the dgrad GEMM with bulk_overlap. The bulk all_gather
 * is userbuffers' SM kernel (CommOverlapBase::bulk_overlap,
 * allgather2_userbuff_inplace on num_sm SMs), not a copy-engine ring
 * exchange, so it runs on the tp fabric with the GPU's overlap_slowdown
 * (UB_OFF). Without userbuffers the same re-gather is te_bwd_windows'. The
 * backward unit's re-gathers go beside its compute, first on the tp stream
 * (the dgrad they hide behind precedes the wgrad the reduce_scatters hide
 * behind). */
static void ub_regather_beside(struct lower *lw, const struct unit *u, int32_t prev,
                               const int32_t *in, int n_in) {
  const struct sim_comm *g = &lw->st->seg[SIM_SEG_LAYER].te_in_ag;
  if (u->slot.pass != PL_PASS_BWD || u->layers <= 0 || g->coll < 0 || g->calls <= 0)
    return;
  struct sim_comm one = {g->coll, (int32_t)(u->layers * g->calls)};
  tp_issue_beside(lw, &one, 1, prev, in, n_in, UB_OFF);
}

/* The forward's userbuffers reduce_scatters (proj_fprop, fc2_fprop) leave
 * their last chunk exposed: TE's CommOverlapBase::split_overlap_rs
 * (comm_gemm_overlap.cpp) cuts the GEMM into num_splits row chunks and issues
 * chunk i's reduce_scatter on the communication stream after GEMM chunk i, so
 * the last chunk's runs after the whole GEMM, with no compute beside it, and
 * the main stream waits for it (cudaStreamWaitEvent(stream_main, _stop_comm))
 * before the layer goes on. Per block, 1/UB_RS_NUM_SPLITS of each forward
 * reduce_scatter leaves the chain beside the unit's compute (first_id on: the
 * chain's tasks, unit_tp_beside) for a task on the tp stream after both the
 * compute (c) and that chain; the next unit waits for it. With several blocks
 * in a unit the tails are summed into one (each block's is exposed in its
 * block: the same sum when the chain fits beside the compute). The backward's
 * reduce_scatters are bulk overlaps (qkv_wgrad, fc1_wgrad: the whole
 * collective beside the wgrad GEMM) and keep no tail. Not modelled: the
 * ring_exchange method's final reduction kernel (split_overlap_rs of
 * CommOverlapP2PBase), which MLPerf's B200/GB200 ub configs choose. */
static void ub_rs_tail(struct lower *lw, const struct unit *u, int32_t c, int32_t first_id) {
  if (u->slot.pass != PL_PASS_FWD || u->layers <= 0)
    return;
  struct sim_step *st = lw->st;
  struct unit lay = *u;
  lay.embed = lay.head = false;
  struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
  int n = tp_merge_part(st->seg, &lay, list, 0);
  double tail_s = 0;
  int32_t rs = -1;
  for (int i = 0; i < n; i++) {
    const struct sim_coll *k = &st->colls[list[i].coll];
    if (k->op != PL_COLL_REDUCE_SCATTER || k->res != SIM_RES_INTRA)
      continue;
    double share = (double)list[i].calls * k->time_s / UB_RS_NUM_SPLITS;
    for (int32_t id = first_id; id < st->eng.n_tasks; id++)
      if (st->meta[id].coll == list[i].coll || st->meta[id].coll2 == list[i].coll) {
        double w = st->eng.tasks[id].work_s;
        st->eng.tasks[id].work_s = w > share ? w - share : 0;
        break;
      }
    tail_s += share;
    rs = list[i].coll;
  }
  if (rs < 0 || !(tail_s > 0))
    return;
  int32_t t = add(lw, PL_STREAM_TP, tail_s, PL_TASK_COLL, SIM_RES_INTRA);
  if (t == SIM_NONE)
    return;
  st->meta[t].coll = rs;
  st->meta[t].calls = 0; /* a part of calls the chain counts */
  dep(lw, c, t);
  join_add(lw, t);
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
 * (mlp: the routed experts, pl_op_moe_mlp_node; attn and post_attn: the rest
 * of the block, the shared experts included from core_v0.16.0). A
 * communication hides only behind its window's compute, not behind the whole
 * layer's. plateau keeps one pass per slot: a
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
 * one stream plateau gives both. The combine node's own ops (the
 * unpermutation and the residual add, pl_op_moe_combine_node: core_v0.14.0-
 * core_v0.18.0 submodule_combine_forward runs layer.mlp.combine, then
 * postprocess and mlp_bda, on the communication stream after the
 * all_to_all; its backward, before it) leave the non-expert window and run
 * as a task of their own after it (PL_PART_COMBINE): on the communication
 * stream the forward's start only when the all_to_all is done and share the
 * SMs with the partner's compute, so with the SMs shared as a fluid (work
 * conserved) the window takes max(compute, calls) + their time, which the
 * task after the window is; the backward's run before its all_to_all, taken
 * the same way (as if they ran first at full speed, so the all_to_all starts
 * earlier than under an even split of the SMs). The unit keeps its own ops
 * (per merged pair the forward's and the backward's are the same sum, as
 * ep_split's calls). With a cp split (cp > 1) the unit keeps one window
 * beside all its calls. */
static bool ep_beside(const struct lower *lw, const struct unit *u) {
  return lw->l->ep_comm_overlap && lw->ep_paired && u->layers > 0;
}

/* The expert-parallel calls of a unit's blocks split between its two
 * windows (ep_beside): half of each all_to_all's calls to each, all_gathers
 * and the alltoall dispatcher's probabilities' all_to_all (sent with the
 * dispatch only, moe_comm.c a2a_metadata) to the expert window,
 * reduce_scatters to the other. The dispatcher's forward-only gather
 * (SIM_SEG_EP_COUNTS: the alltoall dispatcher's counts, HybridEP's routing
 * map, moe_comm.c) belongs to dispatch_fwd, which core_v0.15.0-core_v0.17.x
 * (TransformerLayerSchedulePlan.run) issues on the communication stream
 * beside the partner backward's mlp_bwd, not beside the forward's own
 * mlp_fwd: a paired backward unit carries its partner forward's gathers in
 * its expert window, a paired forward unit none of its own (per merged pair
 * the calls are the same; a backward's own re-run gathers stay with it). */
static void ep_split(const struct lower *lw, const struct unit *u, struct sim_comm *first,
                     int *n_first, struct sim_comm *second, int *n_second) {
  struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
  int n = tp_merge_part(lw->st->seg, u, list, 1);
  bool fwd = u->slot.pass == PL_PASS_FWD;
  int32_t probs = lw->st->seg[SIM_SEG_LAYER].tp[u->slot.pass][SIM_SEG_EP_PROBS].coll;
  const struct sim_comm *gather = &lw->st->seg[SIM_SEG_LAYER].tp[PL_PASS_FWD][SIM_SEG_EP_COUNTS];
  int32_t partner = gather->coll >= 0 && gather->calls > 0 ? (int32_t)u->layers * gather->calls : 0;
  *n_first = *n_second = 0;
  for (int i = 0; i < n; i++) {
    if (fwd && partner > 0 && list[i].coll == gather->coll)
      list[i].calls = list[i].calls > partner ? list[i].calls - partner : 0;
    else if (!fwd && partner > 0 && list[i].coll == gather->coll)
      list[i].calls += partner, partner = 0;
    if (list[i].calls <= 0)
      continue;
    enum pl_coll_op op = lw->st->colls[list[i].coll].op;
    int32_t a = list[i].calls / 2, b = list[i].calls - a; /* first window, expert window */
    if (op == PL_COLL_ALL_GATHER || (probs >= 0 && list[i].coll == probs))
      a = 0, b = list[i].calls;
    else if (op != PL_COLL_ALL_TO_ALL)
      a = list[i].calls, b = 0;
    int32_t w1 = fwd ? a : b, w2 = fwd ? b : a; /* forward: rest first; backward: experts */
    if (w1 > 0)
      first[(*n_first)++] = (struct sim_comm){list[i].coll, w1};
    if (w2 > 0)
      second[(*n_second)++] = (struct sim_comm){list[i].coll, w2};
  }
  if (!fwd && partner > 0) /* no gather of its own: the partner's, in the expert window */
    first[(*n_first)++] = (struct sim_comm){gather->coll, partner};
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

/* layout.delay_wgrad (Megatron-Core delay_wgrad_compute, core_v0.16.0
 * model_chunk_schedule_plan.py TransformerLayerSchedulePlan.run): a merged
 * layer issues combine_bwd | attn_fwd, mlp_bwd (dgrad only) | dispatch_fwd,
 * then mlp_bwd_dw, dispatch_bwd (waiting for the dgrad alone) | mlp_fwd,
 * combine_fwd | attn_bwd (dgrad), then attn_bwd_dw, which the next layer's
 * combine_bwd (waiting for attn_bwd) runs beside with its attn_fwd. So per
 * merged pair the windows are max(attn_dw + attn_fwd, combine_bwd),
 * max(mlp_dgrad, dispatch_fwd), max(mlp_dw + mlp_fwd, dispatch_bwd),
 * max(attn_dgrad, combine_fwd): the backward's delayed wgrad GEMMs (segments.c
 * delayed_wgrad_share) join the partner forward's windows. A paired unit runs
 * its own windows (ep_windows), so a backward's windows drop them and a
 * forward's take a backward's worth per block (the blocks are identical; per
 * merged pair the sum is the same). Unpaired passes (warm-up, cool-down)
 * have no windows and keep them. *first, *second: the unit's two windows'
 * compute (forward: non-experts, experts; backward: experts, non-experts). */
static void ep_delay_wgrad(const struct lower *lw, const struct unit *u, double *first,
                           double *second) {
  const struct sim_seg *ly = &lw->st->seg[SIM_SEG_LAYER];
  if (!lw->l->delay_wgrad)
    return;
  double e = (double)u->layers * ly->dw_experts_s, r = (double)u->layers * ly->dw_rest_s;
  if (u->slot.pass == PL_PASS_FWD) {
    *first += r;
    *second += e;
  } else {
    *first = fmax(0.0, *first - e);
    *second = fmax(0.0, *second - r);
  }
}

/* On Hopper a communication kernel that becomes ready while a persistent GEMM
 * holds the SMs starts only when that GEMM ends: Megatron-Bridge's
 * launcher sets CUDA_DEVICE_MAX_CONNECTIONS=1 on Hopper with tp or cp > 1
 * "to schedule a communication kernel before the overlapping persistent GEMM
 * kernel. Otherwise, communication kernel will be pushed to the end of the
 * GEMM kernel" (scripts/performance/perf_plugins.py
 * _set_num_cuda_device_max_connections, v0.2.2-v0.5.0), and keeps 8
 * connections under the EP overlap (default-priority streams until
 * core_v0.18.0's high_priority_a2a_comm_stream). Under layout.delay_wgrad two
 * windows of a merged layer start that way: run() issues mlp.backward_dw
 * before moe_dispatch.backward and attn.backward_dw at its end, before the
 * next layer's moe_combine.backward, so when the dgrad those collectives wait
 * for ends, the compute stream's head is a wgrad GEMM issued before them
 * (model_chunk_schedule_plan.py core_v0.16.0). The collective waits for that
 * first GEMM kernel (sim_seg.dw_lead_s: qkv's wgrad, or one local expert's
 * fc2 wgrad), then runs beside the rest. Those GEMMs are in a paired forward
 * unit's windows (ep_delay_wgrad): window k's lead, its layers' worth (0
 * elsewhere). */
static double ep_lead_gemm(const struct lower *lw, const struct unit *u, int k) {
  if (!lw->l->delay_wgrad || u->slot.pass != PL_PASS_FWD)
    return 0.0;
  return (double)u->layers * lw->st->seg[SIM_SEG_LAYER].dw_lead_s[k];
}

/* The second window of a unit under ep_beside with windows (see there):
 * c1 is the first window's compute, prev the compute before the unit and in
 * the unit's inputs (n_in); second_s the second window's compute, after which
 * the edge that follows the layers runs (ep_edge_s); tp_beside: the blocks'
 * tp collectives run beside the compute (tp_overlapped), else they block
 * after it; lead1: the first window's leading GEMM task its calls wait for
 * (ep_lead_gemm), or SIM_NONE. Returns the unit's last compute task. */
static int32_t ep_windows(struct lower *lw, const struct unit *u, double second_s, double combine_s,
                          int32_t c1, int32_t prev, const int32_t *in, int n_in, bool tp_beside,
                          int32_t lead1) {
  struct sim_comm w1[SIM_SEG_N * SIM_SEG_TP] = {{0, 0}}, w2[SIM_SEG_N * SIM_SEG_TP] = {{0, 0}};
  int n1 = 0, n2 = 0;
  ep_split(lw, u, w1, &n1, w2, &n2);
  /* joins: the second window waits for it */
  tp_issue_beside(lw, w1, n1, lead1 != SIM_NONE ? lead1 : prev, in, n_in, UB_OFF);
  bool fwd = u->slot.pass == PL_PASS_FWD;
  struct unit after;
  double after_s = ep_edge_s(lw, u, false, &after);
  struct unit lay = *u;
  lay.embed = lay.head = false;
  if (fwd && combine_s > 0) /* after the first window's compute and calls (joined) */
    c1 = comp(lw, combine_s, &lay, PL_PART_COMBINE);
  enum pl_task_part part2 = fwd ? PL_PART_EXPERTS : PL_PART_NON_EXPERTS;
  double lead2_s = fmin(ep_lead_gemm(lw, u, 1), second_s);
  int32_t lead2 = lead2_s > 0 ? comp(lw, lead2_s, &lay, part2) : SIM_NONE;
  int32_t c2 = comp(lw, second_s - fmax(lead2_s, 0.0), &lay, part2);
  if (n2 > 0)
    join_add(lw, tp_issue(lw, w2, n2, lead2 != SIM_NONE ? lead2 : c1, SIM_NONE));
  if (!fwd && combine_s > 0) /* after the second window's compute and calls (joined) */
    c2 = comp(lw, combine_s, &lay, PL_PART_COMBINE);
  if (after.embed || after.head) /* waits for the window's calls (joined) */
    c2 = comp(lw, after_s, &after, PL_PART_ALL);
  struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
  struct unit edge = *u;
  edge.layers = 0;
  if (tp_beside) { /* tp_overlapped: the blocks' tp traffic beside their compute */
    int n = tp_merge_part(lw->st->seg, &lay, list, 0);
    tp_issue_beside(lw, list, n, prev, in, n_in, ub_mode(lw, u));
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
  /* LoRA's frozen linears (layout.task) run no wgrad GEMM for the dgrad's
   * collective to hide behind: the blocking path */
  return lw->l->te_linear_bwd_overlap && lw->l->tp > 1 && u->slot.pass == PL_PASS_BWD &&
         lw->l->task != PL_RUN_LORA &&
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
 * without sp keep the blocking path. Each window as torch's symmetric-memory
 * decomposition runs it (atp_gather, atp_scatter; segments.c
 * atp_chunk_ratio: the GEMM cut into tp row chunks). */
static bool atp(const struct lower *lw, const struct unit *u, double attn_s) {
  const struct pl_model *m = &lw->st->run->model;
  (void)attn_s;
  return lw->l->async_tp && lw->l->sp && lw->l->tp > 1 && u->layers > 0 && !tp_overlapped(lw, u) && !ep_beside(lw, u) && !pl_model_is_moe(m) &&
         !pl_model_is_hybrid(m);
}

/* HBM time of a copy or reduction kernel moving bytes (compute.c's
 * memory-bound rate: the GPU's hbm_fraction of its bandwidth, plus its fixed
 * per-kernel cost). */
static double atp_hbm_s(const struct lower *lw, double bytes, int64_t kernels) {
  const struct pl_gpu *g = &lw->st->run->cluster.gpu;
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  return (bw > 0 ? bytes / bw : 0) + (double)kernels * g->eff.kernel_overhead_s;
}

/* The fused collective's transfers: cudaMemcpyAsync copies from the peers'
 * symmetric buffers (Tensor.copy_ of contiguous same-dtype tensors on one
 * device), so they run on the copy engines and take no SM from the GEMM chunks
 * beside them (SIM_RES_INTRA_CE, as Transformer Engine's ring exchange); their
 * time is the collective's. Returns the task. */
static int32_t atp_copies(struct lower *lw, int32_t coll, int64_t calls) {
  int32_t t = coll_task(lw, PL_STREAM_TP, coll, calls);
  if (t != SIM_NONE && lw->st->colls[coll].res == SIM_RES_INTRA)
    lw->st->eng.tasks[t].res = SIM_RES_INTRA_CE;
  return t;
}

/* One async-TP all_gather window after compute c (gemm_s: the GEMM chunks,
 * calls of collective coll): torch _pipelined_all_gather_and_consume copies
 * the local shard into its symmetric buffer and waits on a barrier before any
 * peer's shard can be copied (the 2025 file: "we are giving up the chance to
 * overlap mv and b with the first shard_consumer"; 2024's ran it beside the
 * local chunk on the backend stream), then consumes the local chunk while the
 * first peer's copy runs; each peer's chunk waits for its copy, so with the
 * copies serial ("cp from different streams cannot overlap") the last chunk
 * runs after the last copy: tp - 1 chunks beside the copies, one after both.
 * Returns the last GEMM task. */
static int32_t atp_gather(struct lower *lw, const struct unit *u, int32_t c, double gemm_s,
                          int32_t coll, int64_t calls) {
  if (calls <= 0 || coll < 0)
    return comp(lw, gemm_s, u, PL_PART_TE_COLUMN);
  double tp = (double)lw->l->tp;
  const struct sim_coll *k = &lw->st->colls[coll];
  /* the local shard (bytes / tp of the gathered output) read and written */
  c = comp(lw, atp_hbm_s(lw, (double)calls * 2.0 * k->bytes / tp, calls), u, PL_PART_TE_COLUMN);
  int32_t t = atp_copies(lw, coll, calls);
  dep(lw, c, t);
  comp(lw, gemm_s * (tp - 1.0) / tp, u, PL_PART_TE_COLUMN);
  join_add(lw, t);
  return comp(lw, gemm_s / tp, u, PL_PART_TE_COLUMN);
}

/* One async-TP reduce_scatter window (torch _pipelined_produce_and_all2all and
 * _fused_matmul_reduce_scatter_impl): each step's chunk is produced into a
 * symmetric buffer, a barrier, then the peer copies it, so the first chunk runs
 * before any copy; the remaining tp - 1 chunks (the local one last) beside the
 * copies; then the stacked partials (tp x m / tp rows, the GEMM's whole
 * output) are summed over the ranks in one reduction kernel (reduce_fn,
 * torch.sum over dim 0): read the whole output, write 1 / tp of it. Returns
 * the reduction's task. */
static int32_t atp_scatter(struct lower *lw, const struct unit *u, double gemm_s,
                           int32_t coll, int64_t calls) {
  if (calls <= 0 || coll < 0)
    return comp(lw, gemm_s, u, PL_PART_TE_COLUMN);
  double tp = (double)lw->l->tp;
  const struct sim_coll *k = &lw->st->colls[coll];
  int32_t first = comp(lw, gemm_s / tp, u, PL_PART_TE_COLUMN);
  int32_t t = atp_copies(lw, coll, calls);
  dep(lw, first, t);
  comp(lw, gemm_s * (tp - 1.0) / tp, u, PL_PART_TE_COLUMN);
  join_add(lw, t);
  return comp(lw, atp_hbm_s(lw, (double)calls * k->bytes * (1.0 + 1.0 / tp), calls), u,
              PL_PART_TE_COLUMN);
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
  /* Inductor fuses an all_gather only with the matmuls that take its result
   * as their left operand (micro_pipeline_tp.py _find_consumer_matmuls: the
   * users that are mm or _scaled_mm, or a reshape into one). Under torchao's
   * rowwise recipe no Float8 TP style casts before the gather (torchtitan
   * apply_tp: the Float8 styles only with tensorwise), so the gathered 16-bit
   * activation and output gradient feed the linears' rowwise casts, not a
   * matmul: those all_gathers stay blocking; the reduce_scatters of the
   * forward's _scaled_mm outputs are still fused (_find_producer_matmul). */
  bool ag_fused = !pl_layout_fp8_rowwise(lw->l);
  int64_t rs_rec = p == PL_PASS_BWD ? (rs_all > 2 * l ? rs_all - 2 * l : 0) : 0;
  int64_t ag_rec = p == PL_PASS_BWD ? (ag_all > 2 * l ? ag_all - 2 * l : 0) : 0;
  int64_t ag_take = !ag_fused ? 0 : p == PL_PASS_BWD ? (ag_all < 2 * l ? ag_all : 2 * l) + ag_rec : ag_all;
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
  const double(*ch)[4] = lay->atp_chunk; /* the GEMMs cut into tp chunks (segments.c) */
  for (int k = 0; k < 2; k++) { /* attention (qkv, proj), then the MLP (fc1, fc2) */
    if (p == PL_PASS_FWD) {
      int64_t fa = !ag_fused ? 0 : k == 0 ? ag_all / 2 : ag_all - ag_all / 2;
      c = atp_gather(lw, u, c, lin_s[k] * (fa > 0 ? ch[0][k] : 1.0), ag.coll, fa);
      c = atp_scatter(lw, u, lin_s[k + 2] * ch[0][k + 2], rs.coll,
                      k == 0 ? rs_all / 2 : rs_all - rs_all / 2);
      continue;
    }
    int64_t ga = !ag_fused ? 0 : k == 0 ? ag_rec / 2 : ag_rec - ag_rec / 2;
    int64_t gr = k == 0 ? rs_rec / 2 : rs_rec - rs_rec / 2;
    /* the recomputed forward's GEMMs are cut as the forward's when their
     * collectives re-run beside them, else they run whole */
    if (rf_s[k] > 0 || ga > 0)
      c = atp_gather(lw, u, c, rf_s[k] * (ga > 0 ? ch[0][k] : 1.0), ag.coll, ga);
    if (rf_s[k + 2] > 0 || gr > 0)
      c = atp_scatter(lw, u, rf_s[k + 2] * (gr > 0 ? ch[0][k + 2] : 1.0), rs.coll, gr);
    int64_t gg = ag_all - ag_rec; /* the grad_output gathers */
    int64_t gk = !ag_fused ? 0 : k == 0 ? gg / 2 : gg - gg / 2;
    c = atp_gather(lw, u, c, 0.5 * lin_s[k + 2] * (gk > 0 ? ch[1][k + 2] : 1.0), ag.coll, gk);
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

/* layout.cp_comm all_gather, a2a, a2a+p2p: Transformer Engine's exchanges
 * around the attention core that the compute stream waits for (segments.c
 * layer_cp: synchronous all_gather / reduce_scatter, all_to_all waited
 * before the next stage), `layers` blocks' worth on the cp stream after
 * `after`, the next compute task waiting for them. */
static void cp_exposed(struct lower *lw, int32_t after, const struct sim_comm *list,
                       int64_t layers) {
  int32_t last = after;
  for (int i = 0; i < SIM_CP_COMMS && layers > 0 && list[i].coll != SIM_NONE; i++) {
    int32_t t = coll_task(lw, PL_STREAM_CP, list[i].coll, layers * list[i].calls);
    dep(lw, last, t);
    if (t != SIM_NONE)
      last = t;
  }
  if (last != after)
    join_add(lw, last);
}

/* Emit one unit; gather (or SIM_NONE) is its parameter all_gather. Returns
 * its last compute task. */
int32_t sim_emit_unit(struct lower *lw, const struct unit *u, int32_t gather) {
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
  double second_s = 0, combine_s = 0;
  if (windows) { /* the edges run alone, outside the windows (ep_edge_s) */
    struct unit before, after;
    double before_s = ep_edge_s(lw, u, true, &before);
    double layer_s = main_s - before_s - ep_edge_s(lw, u, false, &after);
    if (before.embed || before.head)
      prev = c0 = comp(lw, before_s, &before, PL_PART_ALL);
    first_s = p == PL_PASS_FWD ? layer_s - mlp_s : mlp_s;
    second_s = layer_s - first_s;
    /* the combine node's ops leave the non-expert window (ep_windows) */
    combine_s = fmin((double)u->layers * sg[SIM_SEG_LAYER].combine_s[p], layer_s - mlp_s);
    if (p == PL_PASS_FWD)
      first_s -= combine_s;
    else
      second_s -= combine_s;
    ep_delay_wgrad(lw, u, &first_s, &second_s);
  }
  struct unit blk = *u; /* under windows the blocks alone: the edges have their tasks */
  if (windows)
    blk.embed = blk.head = false;
  /* ep_lead_gemm: the first window's calls wait for its leading GEMM */
  double lead1_s = windows ? fmin(ep_lead_gemm(lw, u, 0), first_s) : 0.0;
  int32_t lead1 = lead1_s > 0 ? comp(lw, lead1_s, &blk, first_part) : SIM_NONE;
  int32_t c = comp(lw, first_s - fmax(lead1_s, 0.0), &blk, first_part);
  int32_t c_first = c0 != SIM_NONE ? c0 : lead1 != SIM_NONE ? lead1 : c;
  if (c_first != SIM_NONE && lw->cur_unit >= 0 && lw->st->eng.cmp.need[lw->pass_id] > 0)
    lw->st->tags[c_first].anchor = 1;
  if (windows)
    return ep_windows(lw, u, second_s, combine_s, c, prev, in, n_in, beside, lead1);
  int32_t ring = SIM_NONE;
  if (attn_s > 0 && lw->l->cp_allgather) {
    c = cp_gather_rings(lw, u, attn_s, (enum pl_pass)p, &ring);
    join_add(lw, ring);
  } else if (attn_s > 0) {
    const struct sim_seg *ly = &sg[SIM_SEG_LAYER];
    if (p == PL_PASS_BWD) /* a recomputed attention forward's exchanges first */
      cp_exposed(lw, c, ly->cp_re, llround((double)u->layers * ly->cp_re_runs));
    cp_exposed(lw, c, ly->cp_pre[p], u->layers);
    const struct sim_comm *cp = &ly->cp[p];
    int32_t re_ring = SIM_NONE; /* a recomputed forward's own K/V ring, before the backward's */
    if (p == PL_PASS_BWD)
      re_ring = coll_task(lw, PL_STREAM_CP, ly->cp[PL_PASS_FWD].coll,
                          llround((double)u->layers * ly->cp_re_runs) * ly->cp[PL_PASS_FWD].calls);
    dep(lw, c, re_ring);
    ring = coll_task(lw, PL_STREAM_CP, cp->coll, (int64_t)u->layers * cp->calls);
    dep(lw, c, ring);
    dep(lw, re_ring, ring);
    c = comp(lw, attn_s, u, PL_PART_ATTN);
    cp_exposed(lw, c, ly->cp_post[p], u->layers);
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
      ub_regather_beside(lw, u, prev, in, n_in);
      int32_t first_id = lw->st->eng.n_tasks;
      tp_issue_beside(lw, list, n, prev, in, n_in, ub_mode(lw, u));
      ub_rs_tail(lw, u, c, first_id);
      n = tp_merge_part(lw->st->seg, &lay, list, 1);
      if (n > 0)
        join_add(lw, tp_issue(lw, list, n, c, ring));
    } else {
      ub_regather_beside(lw, u, prev, in, n_in);
      int32_t first_id = lw->st->eng.n_tasks;
      unit_tp_beside(lw, u, prev, in, n_in);
      ub_rs_tail(lw, u, c, first_id);
    }
    if (edge.embed || edge.head)
      unit_tp(lw, &edge, c, ring);
  } else if (ep) {
    struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
    int n = tp_merge_part(lw->st->seg, u, list, 1);
    tp_issue_beside(lw, list, n, prev, in, n_in, UB_OFF);
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
