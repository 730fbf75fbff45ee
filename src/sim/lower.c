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


/* The block unit's collective a (task t, or SIM_NONE when a is none) and the
 * experts' unit's e after it on stream s, n calls each: one task when both
 * load the same fabric, else e's task after t's. Returns the last task. */
static int32_t gather_experts(struct lower *lw, int32_t a, int32_t e, int32_t t, int64_t n,
                              enum pl_stream s) {
  if (t != SIM_NONE && lw->st->colls[a].res == lw->st->colls[e].res) {
    lw->st->eng.tasks[t].work_s += (double)n * lw->st->colls[e].time_s;
    lw->st->meta[t].coll2 = e;
    lw->st->meta[t].calls2 = (int32_t)n;
    return t;
  }
  int32_t u = coll_task(lw, s, e, n);
  if (t != SIM_NONE)
    dep(lw, t, u);
  return u != SIM_NONE ? u : t;
}

static int32_t gather(struct lower *lw, const struct sim_seg *sg, struct sim_slot slot) {
  /* ag2: the tensors a backward gathers again after its recomputed forward;
   * ag3: the persistent tensors a forward after the step's first micro-batch
   * gathers back (layout.zero3_list_copy_s, fsdp_comm.c zero3_list_calls) */
  int32_t two = slot.pass == PL_PASS_BWD ? sg->ag2 : slot.mb > 0 ? sg->ag3 : SIM_NONE;
  int32_t t = two >= 0 ? coll_pair(lw, PL_STREAM_DP_GATHER, (struct sim_comm){sg->ag, 1},
                                   (struct sim_comm){two, 1})
                       : coll_task(lw, PL_STREAM_DP_GATHER, sg->ag, 1);
  /* eag: the routed experts' own unit over edp, gathered right after the
   * block's on the same stream (fsdp_comm.c expert_unit; one task when both
   * load the same fabric, else two in a row) */
  if (two < 0 && sg->eag >= 0)
    t = gather_experts(lw, sg->ag, sg->eag, t, 1, PL_STREAM_DP_GATHER);
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
  if (sg->ers >= 0) /* the experts' unit over edp, after the block's (fsdp_comm.c expert_unit) */
    t = gather_experts(lw, sg->rs, sg->ers, t, n, s);
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
  int32_t c = SIM_NONE, pend_c = SIM_NONE, last_rs = SIM_NONE;
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
    /* layout.fsdp_root_unit: the root's unit (here the embedding's) stays
     * gathered from the forward to the end of the backward (FSDP2
     * FSDPState._lazy_init: no reshard after forward for the root; FSDP1
     * _post_forward_reshard), so the backward does not gather it; the
     * head has no unit of its own (sg->ag none); Megatron FSDP's embedding
     * and head, no units of its own, stay gathered likewise
     * (sim_fsdp_edges_kept) */
    bool kept = !fwd && ((kind == SIM_SEG_EMBED && sim_fsdp_root_unit(lw->l)) ||
                         (kind != SIM_SEG_LAYER && sim_fsdp_edges_kept(lw->l)));
    int32_t g = ag && !kept ? gather(lw, sg, base->slot) : SIM_NONE;
    if (g != SIM_NONE && r != SIM_NONE)
      dep(lw, r, g);
    if (pend != NULL) /* FSDP's post-backward hook prefetches, then reduces */
      last_rs = reduce(lw, pend, pend_c, 1);
    pend = NULL;
    c = sim_emit_unit(lw, &u, g);
    if (rs && sg->rs_copy_s > 0) {
      /* layout.fsdp2_rs_copy_in (PyTorch 2.3's foreach_reduce_scatter): the
       * copy-in runs on the reduce-scatter stream after the previous unit's
       * reduce_scatter, and the compute stream waits for it (copy_in_event):
       * a compute task after both */
      int32_t cp = comp(lw, sg->rs_copy_s, &u, PL_PART_ALL);
      dep(lw, c, cp);
      dep(lw, last_rs, cp);
      if (cp != SIM_NONE)
        c = cp;
    }
    if (rs && lw->l->fsdp_one_comm) {
      pend = sg;
      pend_c = c;
    } else if (rs) {
      last_rs = reduce(lw, sg, c, 1);
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

/* FSDP without pipelining as NeMo AutoModel runs gradient accumulation
 * (layout.fsdp_ga_nosync, pp 1): recipes/llm/train_ft.py _forward_backward_step
 * calls components/distributed/utils.py get_sync_ctx(model, idx == num_batches
 * - 1), which runs set_requires_gradient_sync(is_last) on a root FSDPModule
 * (recurse: every unit), so every backward but the step's last skips its
 * reduce_scatter (FSDP2 post_backward keeps the gradient unsharded). With
 * layout.fsdp_ga_keep (MoEFSDPSyncMixin, components/moe/fsdp_mixin.py
 * 2c236e081+: prepare_for_grad_accumulation also sets
 * set_reshard_after_backward(False) before the first micro-batch,
 * prepare_for_final_backward resets both before the last) the unit also stays
 * gathered, so the next forward gathers nothing; zero3 still frees after each
 * forward (reshard_after_forward) and gathers again in the backward. The last
 * backward reduce_scatters every unit as FSDP does by default, overlapped with
 * the backward, and reshards. */
static bool fsdp_ga_nosync(const struct lower *lw) {
  return fsdp(lw->l) && lw->l->fsdp_ga_nosync && lw->pp == 1;
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

/* layout.wgrad_deferral (Megatron-Core defer_embedding_wgrad_compute with
 * wgrad_deferral_limit; model_parallel_config.py refuses it with pp 1 or
 * without gradient_accumulation_fusion, core_r0.9.0 .. core_v0.16.0): the
 * output layer's backward on the last pipeline stage appends its grad_output
 * (and the forward its input) to a buffer instead of running the weight-
 * gradient GEMM while the buffer holds fewer than the limit (0: no limit;
 * tensor_parallel/layers.py LinearWithGradAccumulationAndAsyncCommunication
 * .backward and ColumnParallelLinear.forward, core_v0.16.0), so the first N
 * backward passes of the head skip it; after the stage's last pass,
 * schedules.py forward_backward_pipelining_{with,without}_interleaving calls
 * finish_embedding_wgrad_compute -> utils.py drain_embedding_wgrad_compute,
 * which runs the deferred GEMMs before finalize_model_grads: in the last
 * stage's share of the pipeline flush, ahead of its optimizer step. Not with
 * FSDP (its pass templates copy durations). Whether this backward defers:
 * the head's, and the stage has deferred fewer than the limit. */
static bool defers_head(const struct lower *lw, const struct unit *base) {
  const struct pl_layout *l = lw->l;
  if (l->wgrad_deferral == 0 || lw->pp < 2 || fsdp(l) || !base->head ||
      base->slot.pass != PL_PASS_BWD || lw->st->seg[SIM_SEG_HEAD].defer_wgrad_s <= 0)
    return false;
  return l->wgrad_deferral < 0 || lw->deferred < l->wgrad_deferral;
}

/* The deferred LM-head wgrads (defers_head), one compute task after the
 * stage's last pass on the compute stream; it waits for nothing else (the
 * pending joins stay for the optimizer step, which follows it on the stream). */
static void drain_head_wgrads(struct lower *lw, struct sim_slot last) {
  if (lw->deferred <= 0)
    return;
  int32_t saved[LOWER_JOIN];
  int n = lw->n_join;
  memcpy(saved, lw->join, (size_t)n * sizeof saved[0]);
  lw->n_join = 0;
  struct unit u = {last, 0, 0, false, true};
  comp(lw, (double)lw->deferred * lw->st->seg[SIM_SEG_HEAD].defer_wgrad_s, &u, PL_PART_ALL);
  memcpy(lw->join, saved, (size_t)n * sizeof saved[0]);
  lw->n_join = n;
  lw->deferred = 0;
}

/* layout.align_grad_reduce (Megatron-Core with overlap_grad_reduce and
 * align_grad_reduce, the default of Megatron-LM, --no-align-grad-reduce
 * store_false in megatron/training/arguments.py core_v0.12.0 .. core_v0.16.0,
 * and of Megatron-Bridge's DistributedInitConfig v0.1.0 .. v0.6.0): training.py
 * / Bridge setup.py set config.grad_sync_func to each chunk's start_grad_sync,
 * and the schedules then keep the backward hooks from launching buckets
 * (no_sync) and launch a chunk's whole reduction themselves
 * (megatron/core/pipeline_parallel/schedules.py, core_v0.16.0):
 *  - 1F1B (forward_backward_pipelining_without_interleaving): grad sync is
 *    enabled for the last backward only `if config.grad_sync_func is None or
 *    rank == 0`: the first stage reduces bucket by bucket during it, the others
 *    after it, every bucket at once ("Launch any remaining grad reductions",
 *    before finish_embedding_wgrad_compute);
 *  - interleaved (backward_step_helper_postprocess): after the backward of
 *    virtual micro-batch k, the chunk whose last backward was virtual
 *    micro-batch k - pipeline_parallel_rank is launched whole; chunks left at
 *    the end are launched after the cooldown.
 * NeMo 2 leaves it off: extract_ddp_funcs reads getattr(ddp_config,
 * "align_grad_reduce", False) of Megatron-Core's DistributedDataParallelConfig,
 * which has no such field (nemo/lightning/megatron_parallel.py, v2.4.0).
 * Whether stage s's backward-ordered chunk syncs are the schedule's own. */
static bool aligned(const struct lower *lw) {
  return lw->l->align_grad_reduce && lw->pp > 1 && !fsdp(lw->l) &&
         !lw->l->grad_reduce_after_backward && lw->bucket_coll >= 0 &&
         (lw->l->schedule == PL_SCHEDULE_INTERLEAVED || lw->stage > 0);
}

/* The whole gradient reduction of chunk c of the current stage, every bucket
 * queued after task after (the bucket logic of the overlapped path, fed the
 * chunk's segments in backward order and flushed). */
static void chunk_grads(struct lower *lw, int64_t c, int32_t after) {
  const struct sim_seg *sg = lw->st->seg;
  int64_t v = c * lw->pp + lw->stage;
  if (v == lw->V - 1)
    sim_dp_bucket(lw, &sg[SIM_SEG_HEAD], after, false);
  for (int32_t k = 0; k < lw->st->chunk_layers[v]; k++)
    sim_dp_bucket(lw, &sg[SIM_SEG_LAYER], after, false);
  if (v == 0)
    sim_dp_bucket(lw, &sg[SIM_SEG_EMBED], after, false);
  sim_dp_bucket(lw, NULL, after, true);
  lw->align_at[c] = -2;
}

/* After a backward (or, with at_end, after the stage's last pass): launch the
 * chunks whose aligned launch point this is. */
static void aligned_grads(struct lower *lw, bool at_end) {
  if (!aligned(lw))
    return;
  for (int64_t c = 0; c < lw->vp; c++) {
    int32_t at = lw->align_at[c];
    if (at != -2 && (at_end || at == lw->bwd_seen - 1))
      chunk_grads(lw, c, lw->last_comp);
  }
}

/* Stage setup: each chunk's launch point, by backward ordinal: its last
 * backward's ordinal + the stage's rank (interleaved), or the end (1F1B). */
static void aligned_points(struct lower *lw, const struct sim_slot *sl, int32_t n) {
  for (int64_t c = 0; c < lw->vp; c++)
    lw->align_at[c] = -2;
  if (!aligned(lw))
    return;
  int32_t nb = 0; /* first each chunk's last backward ordinal */
  for (int32_t i = 0; i < n; i++)
    if (sl[i].pass == PL_PASS_BWD)
      lw->align_at[sl[i].chunk] = nb++;
  bool inter = lw->l->schedule == PL_SCHEDULE_INTERLEAVED;
  for (int64_t c = 0; c < lw->vp; c++) {
    int32_t at = inter && lw->align_at[c] >= 0 ? lw->align_at[c] + lw->stage : -1;
    lw->align_at[c] = at < nb ? at : -1;
  }
}

/* The chunk's last backward of its pipeline schedule: with layout.pp_schedules
 * each schedule.step() ends with its own (PyTorch pipelining stage.py
 * backward_maybe_with_nosync: last_backward is the schedule's last). */
static bool last_bwd_of(const struct lower *lw, int32_t index, struct sim_slot sl) {
  return sl.pass == PL_PASS_BWD && index % lw->round_slots == lw->last_bwd[sl.chunk];
}

static void emit_pass(struct lower *lw, int32_t index, struct sim_slot sl) {
  const struct pl_layout *l = lw->l;
  int64_t v = (int64_t)sl.chunk * lw->pp + lw->stage;
  struct unit base = {sl, lw->st->chunk_first[v], lw->st->chunk_layers[v], v == 0, v == lw->V - 1};
  bool sharded = fsdp(l) && lw->st->seg[SIM_SEG_LAYER].ag >= 0;
  bool ag = sharded && !lw->unsharded[sl.chunk];
  bool keep = sharded && fsdp_pp(lw);
  /* layout.fsdp_ga_nosync: a backward before the step's last one keeps its
   * gradients and its gathered parameters (fsdp_ga_nosync) */
  bool ga_last = sl.pass == PL_PASS_BWD && last_bwd_of(lw, index, sl);
  bool nosync = sharded && fsdp_ga_nosync(lw) && sl.pass == PL_PASS_BWD && !ga_last;
  bool rs = sharded && sl.pass == PL_PASS_BWD && !keep && !nosync;
  bool sync = !fsdp(l) && !l->grad_reduce_after_backward && lw->bucket_coll >= 0 &&
              last_bwd_of(lw, index, sl) && !aligned(lw);
  bool flush = keep && last_bwd_of(lw, index, sl);
  lw->pass_first = SIM_NONE;
  lw->pass_id = lw->n_pass++;
  /* the pass that flushes the gradient buckets happens once: not repeatable */
  lw->cur_steady = index >= lw->steady_lo && index < lw->steady_hi && !sync && !flush &&
                   !(aligned(lw) && last_bwd_of(lw, index, sl));
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
  /* defers_head: this backward of the head runs without its wgrad GEMM */
  struct sim_seg *head = &lw->st->seg[SIM_SEG_HEAD];
  double head_bwd_s = head->comp_s[PL_PASS_BWD];
  bool defer = defers_head(lw, &base);
  if (defer) {
    head->comp_s[PL_PASS_BWD] =
        fmax(head->in_layer_s[PL_PASS_BWD], head_bwd_s - head->defer_wgrad_s);
    lw->deferred++;
  }
  /* templates key on the gather only: fsdp_ga_nosync's last backward is the
   * only one that reduce_scatters, so it is never a copy of another */
  bool tpl = lw->tpl_on && !(fsdp_ga_nosync(lw) && rs);
  if ((ag || rs) && !sync && tpl)
    emit_fsdp_pass(lw, &base, ag, rs);
  else if (ag || rs || sync)
    emit_segments(lw, &base, ag, rs, sync);
  else
    sim_emit_unit(lw, &base, SIM_NONE);
  head->comp_s[PL_PASS_BWD] = head_bwd_s;
  sim_p2p_pass_extras(lw, sl, v);
  size_t pi = pass_index(lw, v, sl.mb, sl.pass);
  lw->first[pi] = lw->pass_first;
  record_ends(lw, pi);
  if (flush)
    fsdp_pp_flush(lw, &base);
  if (sharded)
    lw->unsharded[sl.chunk] = keep || (nosync && l->fsdp_ga_keep) ||
                              (sl.pass == PL_PASS_FWD && l->shard == PL_SHARD_ZERO2);
  /* the flush's post_backward reshards (set_reshard_after_backward(True)):
   * the next schedule's first forward gathers the chunk again */
  if (flush)
    lw->unsharded[sl.chunk] = false;
  lw->pass_id = -1;
  lw->cur_steady = 0;
  lw->anchor_pair = -1;
}

static void emit_stage(struct lower *lw, int64_t s) {
  lw->stage = (int32_t)s;
  lw->n_join = 0;
  lw->unit_end[0] = lw->unit_end[1] = SIM_NONE;
  lw->last_comp = SIM_NONE;
  lw->bucket_fill = lw->held_bytes = lw->held_open_bytes = lw->held_buckets = lw->ebucket_fill = 0;
  lw->deferred = 0;
  lw->bwd_seen = 0;
  const struct sim_slot *sl = &lw->slots[s * lw->per_stage];
  for (int64_t c = 0; c < lw->vp; c++) {
    lw->unsharded[c] = false;
    lw->last_bwd[c] = -1;
  }
  lw->round_slots = lw->n_slots[s] / (int32_t)lw->rounds;
  if (lw->round_slots < 1)
    lw->round_slots = 1;
  for (int32_t i = 0; i < lw->round_slots; i++)
    if (sl[i].pass == PL_PASS_BWD)
      lw->last_bwd[sl[i].chunk] = i;
  steady_range(lw, sl, lw->n_slots[s]);
  aligned_points(lw, sl, lw->n_slots[s]);
  sim_dp_gather_ahead(lw);
  int32_t later = SIM_NONE;
  for (int32_t i = 0; i < lw->n_slots[s] && lw->err == PL_OK; i++) {
    sim_dp_gather_wait(lw, sl[i], &later);
    emit_pass(lw, i, sl[i]);
    if (sl[i].pass == PL_PASS_BWD) {
      lw->bwd_seen++;
      aligned_grads(lw, false);
    }
  }
  aligned_grads(lw, true); /* "Launch any remaining grad reductions", before the drain */
  if (lw->n_slots[s] > 0)
    drain_head_wgrads(lw, sl[lw->n_slots[s] - 1]);
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
                     lw->st->bucket_bytes / (double)pl_layout_shard_ranks(l), &lw->bucket_ar_coll, diag);
  return s;
}

static enum pl_status alloc_tables(struct lower *lw) {
  size_t passes = (size_t)lw->V * (size_t)lw->m * 2;
  lw->slots = sim_calloc((size_t)lw->pp * (size_t)lw->per_stage, sizeof *lw->slots);
  lw->n_slots = sim_calloc((size_t)lw->pp, sizeof *lw->n_slots);
  lw->first = sim_calloc(passes, sizeof *lw->first);
  lw->ends = sim_calloc(passes * LOWER_ENDS, sizeof *lw->ends);
  lw->xfer = sim_calloc(passes, sizeof *lw->xfer);
  lw->slot_pos = sim_calloc(passes, sizeof *lw->slot_pos);
  lw->streams = sim_calloc((size_t)lw->pp * PL_STREAM_N, sizeof *lw->streams);
  lw->unsharded = sim_calloc((size_t)lw->vp, sizeof *lw->unsharded);
  lw->pgather = sim_calloc((size_t)lw->vp * 2, sizeof *lw->pgather);
  lw->last_bwd = sim_calloc((size_t)lw->vp, sizeof *lw->last_bwd);
  lw->align_at = sim_calloc((size_t)lw->vp, sizeof *lw->align_at);
  bool ok = lw->slots && lw->n_slots && lw->first && lw->ends && lw->xfer && lw->slot_pos &&
            lw->streams &&
            lw->unsharded &&
            lw->pgather &&
            lw->last_bwd && lw->align_at;
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
  sim_free(lw->slot_pos);
  sim_free(lw->streams);
  sim_free(lw->unsharded);
  sim_free(lw->pgather);
  sim_free(lw->last_bwd);
  sim_free(lw->align_at);
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
  dp += gathers * (sg->eag >= 0 ? c[sg->eag].time_s : 0) + (sg->ers >= 0 ? c[sg->ers].time_s : 0);
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
  for (int64_t s = 0; s < lw->pp; s++) {
    const struct sim_slot *sl = &lw->slots[s * lw->per_stage];
    struct sim_slot *out = &lw->slots[s * lw->per_stage];
    /* layout.pp_schedules: the schedule of m / rounds micro-batches, run
     * rounds times one after another on the later micro-batches */
    int64_t m_round = lw->m / lw->rounds;
    int32_t n = sched->order(lw->pp, m_round, lw->vp, s, out);
    for (int64_t r = 1; r < lw->rounds; r++)
      for (int32_t i = 0; i < n; i++) {
        out[r * n + i] = out[i];
        out[r * n + i].mb += (int32_t)(r * m_round);
      }
    lw->n_slots[s] = n * (int32_t)lw->rounds;
    for (int32_t i = 0; i < lw->n_slots[s]; i++)
      lw->slot_pos[pass_index(lw, sl[i].chunk * lw->pp + s, sl[i].mb, sl[i].pass)] = i;
  }
  for (size_t i = 0; i < (size_t)lw->V * (size_t)lw->m * 2; i++)
    lw->first[i] = lw->xfer[i] = SIM_NONE;
  enum pl_status s = sim_engine_init(&lw->st->eng, (int32_t)lw->pp, (int32_t)task_estimate(lw),
                                     lw->st->run->cluster.gpu.eff.overlap_slowdown);
  sim_engine_set_comm_slowdown(&lw->st->eng, lw->st->run->cluster.gpu.eff.comm_overlap_slowdown);
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
  st->bucket_bytes = pl_layout_bucket_bytes(lw.l, sim_dp_reduce_bytes(lw.l), (double)pl_model_params(&st->run->model));
  /* the limit holds for the whole step, compressed or not */
  if (lw.m > LOWER_MAX_TASKS || (double)lw.pp * (double)lw.per_stage > (double)LOWER_MAX_TASKS ||
      task_estimate(&lw) > LOWER_MAX_TASKS)
    return pl_diag_set(diag, PL_ERR_LIMIT,
                       "step simulation: pp=%lld x %lld micro-batches x vp=%lld is too many passes "
                       "to simulate (limit %lld tasks)",
                       (long long)lw.pp, (long long)lw.m, (long long)lw.vp,
                       (long long)LOWER_MAX_TASKS);
  /* layout.fsdp_ga_nosync: the micro-batches differ (the first gathers, the
   * last reduce_scatters): no steady period to repeat, simulate every pass */
  if (fsdp_ga_nosync(&lw))
    st->compress = false;
  if (st->compress && fsdp_comm_bound(&lw)) {
    /* pp > 1: each stage repeats with its own period, 1F1B only */
    if (lw.pp > 1 && (lw.l->schedule != PL_SCHEDULE_1F1B || lw.vp != 1))
      st->compress = false;
    else
      lw.whole_units = true;
    lw.stage_periods = st->compress && lw.pp > 1;
  }
  /* layout.wgrad_deferral: the head's first N backward passes differ from
   * the rest, so the steady periods do not repeat: simulate every one */
  if (lw.l->wgrad_deferral != 0 && lw.pp > 1 && !fsdp(lw.l))
    st->compress = false;
  /* layout.pp_schedules: every schedule has its own warm-up and drain, which
   * the steady-period compression does not know: simulate every pass */
  lw.rounds = lw.pp > 1 && lw.l->pp_schedules > 1 ? lw.l->pp_schedules : 1;
  if (lw.rounds > 1)
    st->compress = false;
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
