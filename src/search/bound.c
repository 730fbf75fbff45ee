/* bound.c: a cheap lower bound on a layout's step time, used to skip layouts
 * that provably cannot enter the top K (docs/search.md, "Pruning").
 *
 * The step simulator (src/sim, docs/step-model.md) prices each segment's
 * compute per micro-batch with pl_op_time_s, a backward including the forward
 * of the ops it recomputes; a compute task never runs faster than that (it
 * only slows while communication runs), and waits for its pipeline
 * predecessors. The bound uses exactly those compute times and nothing else:
 *  - the pipeline, as a flow shop: stage r cannot start before the first
 *    micro-batch has been forwarded through the stages before it, and the
 *    step cannot end before the last micro-batch's backward has gone back
 *    through them, so step >= sum_{i<r} (f_i + b_i) + m (f_r + b_r) for every
 *    stage r, m micro-batches per step (for equal stages this is the
 *    (m + p - 1)(f + b) of GPipe and 1F1B, Narayanan et al. 2021, SC21,
 *    Sec. 2.2). Interleaved (v chunks per rank): the chains before the last
 *    rank's first task and after its last one are p - 1 chunks each, so
 *    step >= (p - 1)(f_c + b_c) + m (f_r + b_r), f_c + b_c one chunk's work.
 *  - layers per stage: floor(l/p) or ceil(l/p) (src/model/layout.c); which
 *    stages hold the extra layers is not assumed. The embedding is on the
 *    first stage, the LM head and loss on the last.
 * Left out, because they can only add time: every collective (tp, cp, dp,
 * pp), the optimizer step, overlap slowdown.
 * Scores: tokens/s <= tokens per step / bound. Tokens per joule <= tokens
 * per step / (bound * least cluster power, min_cluster_w). Cost ranks as
 * tokens/s at a fixed GPU count. */
#include "search_int.h"

#include <math.h>

#include <plateau/flops.h>
#include <plateau/sim.h>

/* Forward and backward compute of a list of ops, as the simulator sums them. */
static void ops_time(const struct search_ctx *ctx, const struct pl_op *ops, int n,
                     double *fwd_s, double *bwd_s) {
  const struct pl_gpu *g = &ctx->cluster->gpu;
  double f = 0, b = 0;
  for (int i = 0; i < n; i++) {
    f += pl_op_time_s(g, ctx->dtype, &ops[i], PL_PASS_FWD);
    b += pl_op_time_s(g, ctx->dtype, &ops[i], PL_PASS_BWD);
    if (ops[i].recompute)
      b += pl_op_time_s(g, ctx->dtype, &ops[i], PL_PASS_FWD);
  }
  *fwd_s = f;
  *bwd_s = b;
}

void search_seg_times(const struct search_ctx *ctx, const struct pl_layout *l,
                      struct search_seg_times *out) {
  struct pl_op ops[PL_MAX_LAYER_OPS];
  double f, b;
  ops_time(ctx, ops, pl_layer_ops(ctx->model, l, ops), &f, &b);
  out->layer_s = f + b;
  ops_time(ctx, ops, pl_embed_ops(ctx->model, l, ops), &f, &b);
  out->embed_s = f + b;
  ops_time(ctx, ops, pl_head_ops(ctx->model, l, ops), &f, &b);
  out->head_s = f + b;
}

double search_step_lb_s(const struct search_ctx *ctx, const struct pl_layout *l,
                        const struct search_seg_times *t) {
  double m = (double)l->micro_batches;
  int64_t p = l->pp, layers = ctx->model->layers;
  if (p <= 1)
    return m * ((double)layers * t->layer_s + t->embed_s + t->head_s);
  if (l->schedule == PL_SCHEDULE_INTERLEAVED && l->vp > 1) {
    double rank_s = (double)(layers / p) * t->layer_s;
    double chunk_s = rank_s / (double)l->vp;
    return (double)(p - 1) * chunk_s + m * (rank_s + t->head_s);
  }
  /* Last stage: the p - 1 before it hold at least floor(l/p) layers each,
   * the first of them the embedding. Busiest: ceil(l/p), nothing before. */
  double lo = (double)(layers / p), hi = (double)((layers + p - 1) / p);
  double last = (double)(p - 1) * lo * t->layer_s + t->embed_s + m * (lo * t->layer_s + t->head_s);
  double busiest = m * hi * t->layer_s;
  return last > busiest ? last : busiest;
}

/* The least power the simulator can give the cluster (src/sim/power.c,
 * account.c): each GPU draws idle + (tdp - idle) * share, share a mix of the
 * GPU's compute, communication and wait shares with fractions that cover
 * the step, so share >= the smallest of the three (when none is negative),
 * capped at TDP; each node adds node_other_w. 0 when no bound holds. */
static double min_cluster_w(const struct search_ctx *ctx, const struct pl_layout *l) {
  const struct pl_gpu *g = &ctx->cluster->gpu;
  const struct pl_gpu_efficiency *e = &g->eff;
  double a = e->power_compute;
  a = e->power_comm < a ? e->power_comm : a;
  a = e->power_wait < a ? e->power_wait : a;
  if (a < 0 || g->idle_w < 0 || ctx->cluster->node_other_w < 0)
    return 0;
  double range = g->tdp_w > g->idle_w ? g->tdp_w - g->idle_w : 0;
  double w = g->idle_w + range * a;
  if (g->tdp_w > g->idle_w && w > g->tdp_w)
    w = g->tdp_w;
  return w * (double)l->gpus + ctx->cluster->node_other_w * (double)l->nodes;
}

double search_score_ub(const struct search_ctx *ctx, const struct pl_layout *l, double lb_step_s) {
  if (!(lb_step_s > 0))
    return INFINITY;
  double w = 0;
  switch (ctx->objective) {
  case PL_OBJECTIVE_THROUGHPUT:
  case PL_OBJECTIVE_COST:
    return ctx->tokens_per_step / lb_step_s;
  case PL_OBJECTIVE_TOKENS_PER_J:
    w = min_cluster_w(ctx, l);
    return w > 0 ? ctx->tokens_per_step / (lb_step_s * w) : INFINITY;
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
