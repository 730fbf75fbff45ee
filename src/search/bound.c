/* bound.c: a cheap lower bound on a layout's step time, used to skip layouts
 * that provably cannot enter the top K (docs/search.md, "Pruning").
 *
 * The step simulator (src/sim, docs/step-model.md) runs each pipeline
 * rank's compute stream through its passes; a compute task takes at least
 * its work (pl_op_run_time_s summed over its ops, a backward adding the
 * forward of recomputed ops) and runs at 1/(1 + overlap_slowdown) while any
 * collective runs on the GPU; blocking tp collectives sit between compute
 * tasks; collectives never run faster than alone (comm.c prices them).
 * The bound is the largest of:
 *  - the pipeline as a flow shop: stage r cannot start before the first
 *    micro-batch has been forwarded through the stages before it, and the
 *    step cannot end before the last backward has gone back through them:
 *    step >= sum_{i<r} (f_i + b_i + 2 send) + m (f_r + b_r) + optimizer_r,
 *    m micro-batches, f and b a pass's compute plus its blocking tp
 *    collectives, send one pipeline send (for equal stages the
 *    (m + p - 1)(f + b) of GPipe and 1F1B, Narayanan et al. 2021, SC21,
 *    Sec. 2.2). Interleaved (v chunks per rank): the chains are p - 1 chunks
 *    of 1/v of a stage each;
 *  - one rank alone, compute plus the waits it cannot avoid (blocking tp,
 *    its own pipeline sends, which the simulator makes blocking) plus the
 *    slowdown the collective work of its busier fabric must cause
 *    (rank_bound, fabric_work);
 *  - layers per stage: floor(l/p) or ceil(l/p) (src/model/layout.c), which
 *    stages hold the extra ones not assumed; the embedding on the first
 *    stage, the LM head and loss on the last.
 * Left out, because they can only add time: contention between collectives
 * beyond the fabric sums, FSDP prefetch limits.
 * Scores: tokens/s <= tokens per step / bound. Tokens per joule <= tokens
 * per step / the least energy of a step that long (min_energy_j). Cost ranks
 * as tokens/s at a fixed GPU count. */
#include "search_int.h"

#include <math.h>

#include <plateau/flops.h>
#include <plateau/sim.h>

/* Forward + backward compute of a list of ops, as the simulator sums them
 * (src/sim/pass_ops.c, sim_seg_ops_s): a backward adds the forward of the
 * ops it recomputes, in the share of the blocks that recompute them
 * (pl_op_recompute_runs; src/sim/segments.c prices the average block). The
 * ops are the simulator's own (pl_sim_segment_ops:
 * the model's op list plus the memory-bound kernels the step model adds,
 * gradient accumulation and FSDP copies among them, which depend on the
 * shard mode). */
static double ops_time(const struct search_ctx *ctx, const struct pl_layout *l,
                       const struct pl_op *ops, int n, double *attn_f, double *attn_b) {
  const struct pl_gpu *g = &ctx->cluster->gpu;
  double t = 0;
  *attn_f = *attn_b = 0;
  for (int i = 0; i < n; i++) {
    double f = pl_op_run_time_s(g, l, ctx->model, &ops[i], PL_PASS_FWD);
    double b = pl_op_run_time_s(g, l, ctx->model, &ops[i], PL_PASS_BWD);
    struct pl_op part; /* the whole op, or under recompute ops a fused GEMM's part */
    double runs = pl_op_recompute_runs(ctx->model, l, &ops[i], &part); /* the average block */
    if (runs > 0)
      b += runs * pl_op_run_time_s(g, l, ctx->model, &part, PL_PASS_FWD);
    double share = ops[i].share > 0 ? ops[i].share : 1.0; /* flops.h: blocks that run it */
    f *= share;
    b *= share;
    t += f + b;
    if (ops[i].kind == PL_OP_ATTENTION) {
      *attn_f += f;
      *attn_b += b;
    }
  }
  return t;
}

void search_seg_times(const struct search_ctx *ctx, const struct pl_layout *l,
                      struct search_seg_times *out) {
  static _Thread_local struct pl_run run; /* large: kept off the stack */
  struct pl_op ops[PL_MAX_LAYER_OPS];
  double af, ab;
  run.model = *ctx->model;
  run.cluster = *ctx->cluster;
  run.layout = *l;
  out->layer_s = ops_time(ctx, l, ops, pl_sim_segment_ops(&run, 1, ops), &out->attn_f_s,
                          &out->attn_b_s);
  out->embed_s = ops_time(ctx, l, ops, pl_sim_segment_ops(&run, 0, ops), &af, &ab);
  out->head_s = ops_time(ctx, l, ops, pl_sim_segment_ops(&run, 2, ops), &af, &ab);
}

/* What one pipeline rank holds: whole transformer blocks, and maybe the
 * embedding and the LM head. */
struct stage {
  double layers;
  bool embed;
  bool head;
};

/* Per micro-batch: compute, blocking tp collectives, parameters. */
static double stage_comp(const struct search_times *t, const struct stage *s) {
  return s->layers * t->seg.layer_s + (s->embed ? t->seg.embed_s : 0) + (s->head ? t->seg.head_s : 0);
}

/* Blocking tp collectives, and the part of each block's cp ring that its
 * attention core does not cover (the next block waits for the ring), the
 * core taking k times its work (1: a pass is at least core + what the ring
 * adds; 1 + s: the core slowed while the ring runs, so what is left is time
 * with compute idle). */
static double stage_tp_k(const struct search_times *t, const struct stage *s, double k) {
  const struct search_tp_times *p = &t->tp;
  double ring_f = p->ring_f - k * t->seg.attn_f_s, ring_b = p->ring_b - k * t->seg.attn_b_s;
  double ring = (ring_f > 0 ? ring_f : 0) + (ring_b > 0 ? ring_b : 0);
  return s->layers * (p->layer_f + p->layer_b + ring) + (s->embed ? p->embed_f + p->embed_b : 0) +
         (s->head ? p->head_f + p->head_b : 0);
}

static double stage_tp(const struct search_times *t, const struct stage *s) {
  return stage_tp_k(t, s, 1);
}

static double stage_params(const struct search_times *t, const struct stage *s) {
  const double *p = t->dp.params;
  return s->layers * p[SEARCH_SEG_LAYER] + (s->embed ? p[SEARCH_SEG_EMBED] : 0) +
         (s->head ? p[SEARCH_SEG_HEAD] : 0);
}

/* Sum (per unit) or least (over the unit kinds present) of a dp time. */
static double units_sum(const struct stage *s, const double *v) {
  return s->layers * v[SEARCH_SEG_LAYER] + (s->embed ? v[SEARCH_SEG_EMBED] : 0) +
         (s->head ? v[SEARCH_SEG_HEAD] : 0);
}

static double units_min(const struct stage *s, const double *v) {
  double m = s->layers > 0 ? v[SEARCH_SEG_LAYER] : INFINITY;
  if (s->embed && v[SEARCH_SEG_EMBED] < m)
    m = v[SEARCH_SEG_EMBED];
  if (s->head && v[SEARCH_SEG_HEAD] < m)
    m = v[SEARCH_SEG_HEAD];
  return isfinite(m) ? m : 0;
}

/* The most a rank's last backward unit can spend in tp collectives. */
static double last_tp_b(const struct search_times *t, const struct stage *s) {
  double m = s->layers > 0 ? t->tp.layer_b : 0;
  if (s->embed && t->tp.embed_b > m)
    m = t->tp.embed_b;
  if (s->head && t->tp.head_b > m)
    m = t->tp.head_b;
  return m;
}

/* Pipeline sends a rank provably waits for (src/sim/lower_p2p.c sim_p2p_emit_sends):
 * every pass sends its output to the next virtual stage (forward) or the
 * previous one (backward), and the rank's next pass waits for the send, which
 * starts after the pass's last compute and tp collective. Each rank runs m v
 * passes of each kind (v chunks when interleaved); the first stage's chunk 0
 * backwards and the last stage's chunk v - 1 forwards send nothing, and the
 * last pass's send has no pass after it: at least 2 m v - m - 1 on any rank. */
static double pp_sends(const struct pl_layout *l) {
  if (l->pp <= 1)
    return 0;
  double m = (double)l->micro_batches;
  double v = l->schedule == PL_SCHEDULE_INTERLEAVED && l->vp > 1 ? (double)l->vp : 1;
  double n = 2 * m * v - m - 1;
  return n > 0 ? n : 0;
}

/* Blocking tp collectives of one micro-batch, the cp ring left out. */
static double stage_tp_only(const struct search_times *t, const struct stage *s) {
  const struct search_tp_times *p = &t->tp;
  return s->layers * (p->layer_f + p->layer_b) + (s->embed ? p->embed_f + p->embed_b : 0) +
         (s->head ? p->head_f + p->head_b : 0);
}

/* Collective work on a rank's two fabrics, w[0] NVLink and w[1] the network:
 * the calls it surely issues, each at its time alone. The simulator shares a
 * fabric equally among the calls running on it on one rank (src/sim/engine.c,
 * processor sharing), so a fabric finishes at most one second of alone-time
 * per second: the time some collective runs is at least w[0] and w[1].
 * Counted: tp and the cp ring per block and micro-batch, the pipeline sends
 * (at least 2 m v - m on any rank), FSDP's gathers and reductions (their
 * replica all_reduces on the replica group's fabric), the full ddp/zero1
 * buckets of one backward (per chunk when interleaved), zero1's gather. */
static void fabric_work(const struct search_ctx *ctx, const struct pl_layout *l,
                        const struct search_times *t, const struct stage *s, double w[2]) {
  const struct search_dp_times *d = &t->dp;
  double m = (double)l->micro_batches, params = stage_params(t, s);
  w[0] = w[1] = 0;
  w[t->tp.tp_inter] += m * stage_tp_only(t, s);
  w[t->tp.ring_inter] += m * s->layers * (t->tp.ring_f + t->tp.ring_b);
  w[t->tp.pp_inter] += (pp_sends(l) + (l->pp > 1 ? 1 : 0)) * t->tp.pp_send_s;
  w[d->dp_inter] += search_zero1_gather_s(ctx, l, params);
  if (l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3) {
    /* layout.fsdp_pp_unsharded with pp > 1: one gather and one reduction
     * per unit and step (src/sim/lower.c fsdp_pp_flush) */
    bool keep = l->fsdp_pp_unsharded && l->pp > 1;
    double gathers = keep ? 1 : l->shard == PL_SHARD_ZERO3 ? 2 * m : (l->pp == 1 ? m : 1);
    double reduces = keep ? 1 : m;
    double rep = reduces * units_sum(s, d->rep_s);
    w[d->dp_inter] += gathers * units_sum(s, d->ag_s) + reduces * units_sum(s, d->rs_s) - rep;
    w[d->rep_inter] += rep;
    return;
  }
  double full = 0, bucket = search_bucket_bytes(ctx, l), grad = search_grad_bytes(l);
  if (l->vp == 1)
    full = floor(params * grad / bucket);
  else if (l->schedule == PL_SCHEDULE_INTERLEAVED && l->pp > 0 && l->vp > 0)
    full = (double)l->vp *
           floor((double)(ctx->model->layers / l->pp / l->vp) * d->params[SEARCH_SEG_LAYER] * grad /
                 bucket);
  w[d->dp_inter] += full * (d->bucket_s - d->bucket_rep_s);
  w[d->rep_inter] += full * d->bucket_rep_s;
}

/* One rank alone. Its compute stream does C of work (m passes of each kind
 * and the optimizer) at rate 1, or 1/(1+s) while any of its collectives
 * runs; X is time it provably waits on a collective (blocking tp, pipeline
 * sends, the first FSDP all_gather, the last reduce_scatter before the
 * optimizer, zero1's all_gather after it); R the collective work of its
 * busier fabric (fabric_work). With U the time any collective runs
 * (U >= X, U >= R) and O the part of U under compute:
 * step >= C + O s/(1+s) + (U - O) >= C + X/(1+s) + s/(1+s) max(R, X), and
 * step >= U >= R. */
static double rank_bound(const struct search_ctx *ctx, const struct pl_layout *l,
                         const struct search_times *t, const struct stage *s) {
  double m = (double)l->micro_batches, params = stage_params(t, s);
  double slow = ctx->cluster->gpu.eff.overlap_slowdown;
  double C = m * stage_comp(t, s) + search_optimizer_s(ctx, l, params);
  double X = search_zero1_gather_s(ctx, l, params) + pp_sends(l) * t->tp.pp_send_s;
  if (l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3) {
    /* the last unit's reduce_scatter runs alongside its backward tp
     * collectives, already in X: count only what it may add to them */
    double tail = units_min(s, t->dp.rs_s) - last_tp_b(t, s);
    X += units_min(s, t->dp.ag_s) + (tail > 0 ? tail : 0);
  }
  /* waits: Xp with the uncovered cp ring as a pass sees it (C + Xp holds:
   * a block takes at least its compute and what the ring adds), Xi counting
   * only the ring's time with compute idle (for the overlap argument) */
  double Xp = X + m * stage_tp(t, s);
  if (!(slow >= 0))
    return C + Xp; /* never faster: only the waits add */
  double Xi = X + m * stage_tp_k(t, s, 1 + slow);
  double w[2];
  fabric_work(ctx, l, t, s, w);
  double R = w[0] > w[1] ? w[0] : w[1];
  double v = C + Xi / (1 + slow) + slow / (1 + slow) * (R > Xi ? R : Xi);
  v = v > C + Xp ? v : C + Xp;
  return v > R ? v : R; /* the fabric itself takes R */
}

/* Per micro-batch forward + backward of a rank, blocking tp included. */
static double stage_pass(const struct search_times *t, const struct stage *s) {
  return stage_comp(t, s) + stage_tp(t, s);
}

double search_step_lb_s(const struct search_ctx *ctx, const struct pl_layout *l,
                        const struct search_times *t) {
  double m = (double)l->micro_batches;
  int64_t p = l->pp, layers = ctx->model->layers;
  if (p <= 1) {
    struct stage all = {(double)layers, true, true};
    return rank_bound(ctx, l, t, &all);
  }
  struct stage layer = {1, false, false}, embed = {0, true, false};
  if (l->schedule == PL_SCHEDULE_INTERLEAVED && l->vp > 1) {
    struct stage last = {(double)(layers / p), false, true};
    double chunk = (double)(layers / p / l->vp) * stage_pass(t, &layer);
    double flow = (double)(p - 1) * (chunk + 2 * t->tp.pp_send_s) + m * stage_pass(t, &last) +
                  search_optimizer_s(ctx, l, stage_params(t, &last));
    double rank = rank_bound(ctx, l, t, &last);
    return flow > rank ? flow : rank;
  }
  /* Stages hold floor or ceil of layers / p, which ones not assumed. Last
   * stage: the p - 1 before it hold at least floor each, the first of them
   * the embedding. Busiest: ceil, nothing assumed before it. */
  double lo = (double)(layers / p), hi = (double)((layers + p - 1) / p);
  struct stage last = {lo, false, true}, busy = {hi, false, false};
  double before = (double)(p - 1) * (lo * stage_pass(t, &layer) + 2 * t->tp.pp_send_s) +
                  stage_pass(t, &embed);
  double best = before + m * stage_pass(t, &last) + search_optimizer_s(ctx, l, stage_params(t, &last));
  double v = m * stage_pass(t, &busy) + search_optimizer_s(ctx, l, stage_params(t, &busy));
  best = v > best ? v : best;
  v = rank_bound(ctx, l, t, &last);
  best = v > best ? v : best;
  v = rank_bound(ctx, l, t, &busy);
  return v > best ? v : best;
}

/* The least compute work any pipeline rank does in a step: at least
 * floor(l/p) blocks per micro-batch and its optimizer. */
static double min_rank_compute_s(const struct search_ctx *ctx, const struct pl_layout *l,
                                 const struct search_times *t) {
  int64_t p = l->pp > 0 ? l->pp : 1;
  struct stage s = {(double)(ctx->model->layers / p), p == 1, p == 1};
  return (double)l->micro_batches * stage_comp(t, &s) +
         search_optimizer_s(ctx, l, stage_params(t, &s));
}

/* The least energy of a step of time step_s (src/sim/power.c, account.c).
 * Each rank's GPU draws idle + (tdp - idle) share (capped at TDP), share =
 * a_c f_c + a_x f_x + a_w f_w over fractions of the step computing, in
 * exposed communication and waiting that add up to at least 1; with a the
 * smallest of the three shares (none negative) share >= a + (a_c - a) f_c,
 * and f_c >= the rank's compute work / step. Each node adds node_other_w.
 * 0 when no bound holds. */
static double min_energy_j(const struct search_ctx *ctx, const struct pl_layout *l,
                           const struct search_times *t, double step_s) {
  const struct pl_gpu *g = &ctx->cluster->gpu;
  const struct pl_gpu_efficiency *e = &g->eff;
  double a = e->power_compute;
  a = e->power_comm < a ? e->power_comm : a;
  a = e->power_wait < a ? e->power_wait : a;
  if (a < 0 || g->idle_w < 0 || ctx->cluster->node_other_w < 0)
    return 0;
  double range = g->tdp_w > g->idle_w ? g->tdp_w - g->idle_w : 0;
  double gpu_j = g->idle_w * step_s + range * (a * step_s + (e->power_compute - a) *
                                                                 min_rank_compute_s(ctx, l, t));
  if (g->tdp_w > g->idle_w && gpu_j > g->tdp_w * step_s)
    gpu_j = g->tdp_w * step_s;
  return gpu_j * (double)l->gpus + ctx->cluster->node_other_w * (double)l->nodes * step_s;
}

double search_score_ub(const struct search_ctx *ctx, const struct pl_layout *l,
                       const struct search_times *t, double lb_step_s) {
  if (!(lb_step_s > 0))
    return INFINITY;
  double j = 0;
  switch (ctx->objective) {
  case PL_OBJECTIVE_THROUGHPUT:
  case PL_OBJECTIVE_COST:
    return ctx->tokens_per_step / lb_step_s;
  case PL_OBJECTIVE_TOKENS_PER_J:
    j = min_energy_j(ctx, l, t, lb_step_s);
    return j > 0 ? ctx->tokens_per_step / j : INFINITY;
  }
  return INFINITY;
}

double search_score(const struct pl_prediction *p, enum pl_objective obj, double gpu_hour_usd) {
  (void)gpu_hour_usd;
  switch (obj) {
  case PL_OBJECTIVE_THROUGHPUT:
  case PL_OBJECTIVE_COST: /* fixed GPUs: USD per token falls as tokens/s rises */
    return p->step.tokens_per_s;
  case PL_OBJECTIVE_TOKENS_PER_J:
    return p->step.tokens_per_j;
  }
  return 0;
}
