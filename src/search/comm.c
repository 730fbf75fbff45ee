/* comm.c: the communication a layout cannot avoid, priced as the step
 * simulator prices it, for the pruning bound (bound.c, docs/search.md).
 *
 * It mirrors the simulator's lowering (src/sim/segments.c, lower.c,
 * groups.c; docs/step-model.md sections 4 and 5) and prices each collective
 * with the same pl_coll_time:
 *  - groups in Megatron-LM rank order (tp innermost, then cp, dp, pp): a
 *    group whose members are `stride` ranks apart has
 *    min(ranks, max(1, gpus_per_node / stride)) ranks per node;
 *  - tensor parallelism per block and micro-batch (a hybrid stack's blocks
 *    hold one mixer: half the calls below), activations
 *    mbs * seq/cp * hidden in bf16 (the all_gathers at
 *    pl_layout_tp_gather_bytes: 4-bit under NVFP4): with sequence parallelism 2 all_gather +
 *    2 reduce_scatter forward and the same backward (plus 2 + 2 more under
 *    full recompute), without it 2 all_reduce forward, 2 (+2) backward;
 *    embedding and LM head one each (segments.c). These are blocking: the
 *    next compute waits for them;
 *  - context parallelism: a ring of cp - 1 send/recv steps per block and
 *    pass, overlapping the attention core, which the next block waits for;
 *  - pipeline parallelism: each pass's output (mbs * seq/cp * hidden / tp
 *    bf16 elements) sent to the neighbouring stage, blocking the sender;
 *  - for each group whether it spans nodes: its calls then share the
 *    network, else NVLink (the simulator's per-rank fabric sharing);
 *  - FSDP (zero2/zero3), one unit per segment: all_gather of its bf16
 *    parameters, reduce_scatter of its fp32 gradients after every backward,
 *    an all_reduce across replicas when the shard group is smaller than dp;
 *  - ddp/zero1: fp32 gradients all_reduced (reduce_scattered) in 25 MiB
 *    buckets once per step; zero1 all_gathers the updated bf16 parameters
 *    after the optimizer, in bucket-sized calls;
 *  - the optimizer: AdamW over the local parameters, at least
 *    ADAMW_LOWER_BOUND_BYTES_PER_PARAM (22) bytes of HBM traffic per
 *    parameter (the least any step the simulator prices moves: the fused
 *    step with bf16 moments and no gradient-norm pass; model/constants.h)
 *    at the achievable bandwidth, plus one kernel. The simulator counts as
 *    much or more (34 for Megatron's fused step with its norm pass, 92 for
 *    eager foreach); counting less keeps this a lower bound. torch.optim.SGD
 *    over 16-bit parameters (layout.opt_sgd) counts its own 12 B instead.
 * If the simulator changes these rules, tests/unit/test_search_prune.c
 * (bound <= simulated step for every layout of small spaces) fails. */
#include "search_int.h"

#include <math.h>
#include <string.h>

#include <plateau/coll.h>
#include <plateau/flops.h>
#include <plateau/model.h>

#include "model/constants.h"

static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

static struct pl_group strided(const struct search_ctx *ctx, int64_t ranks, int64_t stride) {
  int64_t gpn = ctx->cluster->gpus_per_node > 0 ? ctx->cluster->gpus_per_node : 1;
  gpn = imin(gpn, imax(1, ctx->gpus));
  return pl_group_strided(ranks, stride, gpn);
}

/* One call's time, with the node's NICs shared by all its GPUs when the
 * group crosses nodes, as the step simulator prices it (src/sim/groups.c);
 * 0 for a group of one or nothing to send. */
static double coll_s(const struct search_ctx *ctx, enum pl_coll_op op, double bytes,
                     struct pl_group g) {
  struct pl_coll_cost cost;
  if (g.ranks <= 1 || !(bytes > 0))
    return 0;
  if (pl_coll_time_shared(ctx->cluster, op, bytes, g, ctx->cluster->gpus_per_node, PL_ALGO_AUTO,
                          &cost) != PL_OK)
    return 0;
  return cost.time_s;
}

/* Context parallelism: per block cp - 1 send/recv steps of the local K and
 * V chunk forward, of K, V, dK, dV backward, between ring neighbours (one
 * pair, crossing nodes as soon as the ring spans more than one). */
static void ring_times(const struct search_ctx *ctx, const struct pl_layout *l,
                       struct search_tp_times *out) {
  /* the other cp exchanges (layout.cp_comm all_gather, a2a, a2a+p2p) are
   * left out of the bound: it stays a lower bound (the simulation prices them) */
  if (l->cp <= 1 || l->cp_comm != PL_CP_P2P)
    return;
  const struct pl_model *m = ctx->model;
  struct pl_group ring = strided(ctx, l->cp, l->tp);
  struct pl_group pair = {2, ring.ranks_per_node < ring.ranks ? 1 : 2};
  double kv = 2.0 * (double)l->mbs * (double)(l->seq / l->cp) * (double)(m->kv_heads / l->tp) *
              (double)m->head_dim * ACT_BYTES;
  out->ring_inter = pair.ranks_per_node < pair.ranks;
  out->ring_f = (double)(l->cp - 1) * coll_s(ctx, PL_COLL_SEND_RECV, kv, pair);
  out->ring_b = (double)(l->cp - 1) * coll_s(ctx, PL_COLL_SEND_RECV, 2.0 * kv, pair);
}

/* Pipeline parallelism: each pass's output, mbs * seq/cp * hidden bf16
 * elements (activations forward, their gradients backward), / tp where
 * sequence parallelism, Megatron-LM's scatter/gather or DeepSpeed's
 * partitioned tensors split it, sent to the neighbouring stage, tp*cp*dp
 * ranks away (src/sim/lower.c setup_colls, groups.c: the "pp" pair). Where
 * the simulator sends the whole tensor after all (a size tp does not divide,
 * a schedule DeepSpeed's engine does not run), this is less: still a bound. */
static double pp_send_s(const struct search_ctx *ctx, const struct pl_layout *l,
                        struct search_tp_times *out) {
  if (l->pp <= 1)
    return 0;
  struct pl_group pair = strided(ctx, 2, l->tp * l->cp * l->dp);
  out->pp_inter = pair.ranks_per_node < pair.ranks;
  bool split = l->sp || l->p2p_scatter_gather || l->p2p_serial;
  double act = (double)l->mbs * (double)(l->seq / l->cp) * (double)ctx->model->hidden * ACT_BYTES /
               (split ? (double)l->tp : 1.0);
  return coll_s(ctx, PL_COLL_SEND_RECV, act, pair);
}

static void tp_times(const struct search_ctx *ctx, const struct pl_layout *l,
                     struct search_tp_times *out);

/* Expert parallelism, as src/sim/moe_comm.c (sim_layer_moe) prices it: per
 * block the dispatch and combine all_to_alls over ep of the routed copies
 * (times the MoE share and the imbalance), twice forward, twice backward
 * (four with full recompute); with etp > 1 an all_gather and a
 * reduce_scatter over etp of etp times that; with the allgather dispatcher an
 * all_gather and a reduce_scatter of the hidden states over etp * ep. Blocking,
 * so they add to the block's tp time; with layout.ep_comm_overlap they run
 * beside the compute (src/sim/lower_unit.c ep_beside), so the bound leaves them
 * out (it stays a lower bound). */
static void moe_times(const struct search_ctx *ctx, const struct pl_layout *l,
                      struct search_tp_times *out) {
  const struct pl_model *m = ctx->model;
  if (!pl_model_is_moe(m) || l->ep * l->etp <= 1 || l->ep_comm_overlap)
    return;
  double share = pl_moe_block_share(m, l);
  double tokens = (double)l->mbs * (double)(l->seq / l->cp) / (double)(l->sp ? l->tp : 1);
  double h_bytes = (double)m->hidden * ACT_BYTES * share, f, b;
  double bwd = l->recompute == PL_RECOMPUTE_FULL ? 4 : 2;
  if (l->dispatch == PL_MOE_ALLGATHER) {
    double all = tokens * h_bytes * (double)(l->ep * l->etp);
    struct pl_group g = strided(ctx, l->ep * l->etp, 1);
    f = coll_s(ctx, PL_COLL_ALL_GATHER, all, g) + coll_s(ctx, PL_COLL_REDUCE_SCATTER, all, g);
    out->layer_f += f;
    out->layer_b += f * bwd / 2;
    return;
  }
  double copies = tokens * (double)m->top_k * h_bytes * pl_moe_imbalance(m, l);
  f = coll_s(ctx, PL_COLL_ALL_TO_ALL, copies, strided(ctx, l->ep, l->etp));
  b = 0;
  if (l->etp > 1) {
    struct pl_group g = strided(ctx, l->etp, 1);
    b = coll_s(ctx, PL_COLL_ALL_GATHER, copies * (double)l->etp, g) +
        coll_s(ctx, PL_COLL_REDUCE_SCATTER, copies * (double)l->etp, g);
  }
  out->layer_f += 2 * f + b;
  out->layer_b += bwd * f + b * bwd / 2;
}

void search_tp_times(const struct search_ctx *ctx, const struct pl_layout *l,
                     struct search_tp_times *out) {
  memset(out, 0, sizeof *out);
  ring_times(ctx, l, out);
  out->pp_send_s = pp_send_s(ctx, l, out);
  tp_times(ctx, l, out);
  moe_times(ctx, l, out);
}

static void tp_times(const struct search_ctx *ctx, const struct pl_layout *l,
                     struct search_tp_times *out) {
  if (l->tp <= 1)
    return;
  struct pl_group g = strided(ctx, l->tp, 1);
  out->tp_inter = g.ranks_per_node < g.ranks;
  double elems = (double)l->mbs * (double)(l->seq / l->cp) * (double)ctx->model->hidden;
  double act = elems * ACT_BYTES;
  /* per block and pass two (attention, MLP); one in a hybrid stack, whose
   * blocks hold a single mixer (segments.c layer_tp) */
  double per = pl_model_is_hybrid(ctx->model) ? 1 : 2;
  /* layout.parallel_block: one reduction of the summed branches, one
   * gather of their shared input (as sim/segments.c layer_tp) */
  if (l->parallel_block)
    per = 1;
  double extra = l->recompute == PL_RECOMPUTE_FULL ? per : 0;
  if (l->sp) {
    /* the blocks' gathers at the simulator's sizes (pl_layout_tp_gather_bytes:
     * quantized under NVFP4); the backward entry holds the grad_output
     * gathers and the recomputed forward's input gathers (recompute ops
     * re-runs the all_gathers only) at their mean size, as segments.c
     * layer_tp; the embedding's and LM head's gathers stay 16-bit */
    double fwd_b = pl_layout_tp_gather_bytes(l, PL_TP_GATHER_FWD);
    double extra_ag = l->recompute == PL_RECOMPUTE_OPS ? per : extra;
    double bwd_b = (per * pl_layout_tp_gather_bytes(l, PL_TP_GATHER_GRAD) + extra_ag * fwd_b) /
                   (per + extra_ag);
    double ag = coll_s(ctx, PL_COLL_ALL_GATHER, elems * fwd_b, g);
    double ag_bwd = coll_s(ctx, PL_COLL_ALL_GATHER, elems * bwd_b, g);
    double ag16 = coll_s(ctx, PL_COLL_ALL_GATHER, act, g);
    double rs = coll_s(ctx, PL_COLL_REDUCE_SCATTER, act, g);
    out->layer_f = per * (ag + rs);
    out->layer_b = (per + extra_ag) * ag_bwd + (per + extra) * rs;
    out->embed_f = rs;
    out->embed_b = ag16;
    out->head_f = ag16;
    out->head_b = rs;
    return;
  }
  double ar = coll_s(ctx, PL_COLL_ALL_REDUCE, act, g);
  if (l->recompute == PL_RECOMPUTE_OPS)
    extra = per;
  out->layer_f = per * ar;
  out->layer_b = (per + extra) * ar;
  out->embed_f = ar;
  out->head_b = ar;
}

/* A segment's base parameters on one GPU after tp, trainable or not. */
static double base_params(const struct search_ctx *ctx, int kind, int64_t tp) {
  const struct pl_model *m = ctx->model;
  double p = kind == SEARCH_SEG_LAYER   ? (double)pl_model_layer_params(m)
             : kind == SEARCH_SEG_EMBED ? (double)pl_model_embedding_params(m)
                                        : (double)pl_model_head_params(m);
  return p / (double)tp;
}

static double seg_params(const struct search_ctx *ctx, const struct pl_layout *l, int kind,
                         int64_t tp) {
  /* LoRA: the trainable parameters are the adapters alone, as the simulator
   * prices them (src/sim/seg_params.c sim_seg_params), so the bound's
   * optimizer and reductions stay below the simulated step */
  if (l->task == PL_RUN_LORA)
    return kind == SEARCH_SEG_LAYER ? pl_lora_layer_params(ctx->model, l) : 0.0;
  return base_params(ctx, kind, tp);
}

/* The parameters an FSDP unit gathers: under LoRA the frozen base weights
 * with the adapters (src/sim/seg_params.c sim_seg_gathered_params) */
static double seg_gathered_params(const struct search_ctx *ctx, const struct pl_layout *l, int kind,
                                  int64_t tp) {
  double p = seg_params(ctx, l, kind, tp);
  return l->task == PL_RUN_LORA ? p + base_params(ctx, kind, tp) : p;
}

void search_dp_times(const struct search_ctx *ctx, const struct pl_layout *l,
                     struct search_dp_times *out) {
  memset(out, 0, sizeof *out);
  int64_t sg = pl_layout_shard_ranks(l); /* the simulator's "dp" group (src/sim/groups.c) */
  struct pl_group dp = strided(ctx, sg, l->tp);
  struct pl_group rep = strided(ctx, l->dp * l->cp / sg, l->tp * sg);
  bool hybrid = l->shard != PL_SHARD_DDP && l->shard_group < l->dp;
  out->dp_inter = dp.ranks_per_node < dp.ranks;
  out->rep_inter = rep.ranks_per_node < rep.ranks;
  for (int k = 0; k < SEARCH_SEG_N; k++)
    out->params[k] = seg_params(ctx, l, k, l->tp);
  if (l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3) {
    for (int k = 0; k < SEARCH_SEG_N; k++) {
      double p = out->params[k];
      out->ag_s[k] =
          coll_s(ctx, PL_COLL_ALL_GATHER, seg_gathered_params(ctx, l, k, l->tp) * PARAM_BYTES, dp);
      /* the simulator's fsdp_grad_bytes (src/sim/segments.c): 16-bit with grad_reduce_bf16 */
      out->rs_s[k] = coll_s(ctx, PL_COLL_REDUCE_SCATTER, p * search_grad_bytes(l), dp);
      if (hybrid && out->rs_s[k] > 0)
        out->rep_s[k] =
            coll_s(ctx, PL_COLL_ALL_REDUCE, p * search_grad_bytes(l) / (double)sg, rep);
      out->rs_s[k] += out->rep_s[k];
    }
    return;
  }
  enum pl_coll_op op = l->shard == PL_SHARD_DDP ? PL_COLL_ALL_REDUCE : PL_COLL_REDUCE_SCATTER;
  double bucket = search_bucket_bytes(ctx, l);
  out->bucket_s = coll_s(ctx, op, bucket, dp);
  if (hybrid && out->bucket_s > 0)
    out->bucket_rep_s = coll_s(ctx, PL_COLL_ALL_REDUCE, bucket / (double)sg, rep);
  out->bucket_s += out->bucket_rep_s;
}

double search_optimizer_s(const struct search_ctx *ctx, const struct pl_layout *l, double params) {
  const struct pl_gpu *g = &ctx->cluster->gpu;
  double local = l->shard == PL_SHARD_DDP ? params : params / (double)pl_layout_shard_ranks(l);
  double bw = g->hbm_bytes_per_s * g->eff.hbm_fraction;
  /* torch.optim.SGD (layout.opt_sgd) moves less than any AdamW step: 12 B */
  double per_param = l->opt_sgd ? SGD_STEP_BYTES_PER_PARAM : ADAMW_LOWER_BOUND_BYTES_PER_PARAM;
  return (bw > 0 ? local * per_param / bw : 0) + g->eff.kernel_overhead_s;
}

/* zero1: the updated bf16 parameters all_gathered after the optimizer, in
 * ceil(bytes / bucket) equal calls. */
double search_zero1_gather_s(const struct search_ctx *ctx, const struct pl_layout *l,
                             double params) {
  if (l->shard != PL_SHARD_ZERO1)
    return 0;
  struct pl_group dp = strided(ctx, pl_layout_shard_ranks(l), l->tp);
  double bytes = params * PARAM_BYTES;
  double calls = ceil(bytes / pl_layout_bucket_bytes(l, PARAM_BYTES, (double)pl_model_params(ctx->model)));
  return calls > 0 ? calls * coll_s(ctx, PL_COLL_ALL_GATHER, bytes / calls, dp) : 0;
}

/* the simulator's bucket (src/sim/lower.c), with its elements counted at
 * search_grad_bytes, the bytes per gradient the simulator reduces */
double search_bucket_bytes(const struct search_ctx *ctx, const struct pl_layout *l) {
  return pl_layout_bucket_bytes(l, search_grad_bytes(l), (double)pl_model_params(ctx->model));
}
/* src/sim/lower.c grad_bytes: bf16 with layout.grad_reduce_bf16, else fp32
 * (counting fp32 for a bf16 reduction doubled the full buckets of a fixed
 * byte size, so the bound could exceed the simulated step) */
double search_grad_bytes(const struct pl_layout *l) {
  return l->grad_reduce_bf16 ? PARAM_BYTES : GRAD_BYTES;
}
