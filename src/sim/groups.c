/* groups.c: where each communicator's ranks sit, and the collectives of a
 * step, priced once each through pl_coll_time (src/net).
 *
 * Rank order is Megatron-LM's (initialize_model_parallel): tensor-parallel
 * ranks are innermost (consecutive GPUs, inside a node), then context
 * parallel, then data parallel, then pipeline stages outermost. So a group
 * whose members are `stride` ranks apart has
 * ranks_per_node = min(ranks, max(1, gpus_per_node / stride)):
 *   tp: stride 1; cp: stride tp; dp (the shard group: its data-parallel
 *   ranks times cp, pl_layout_shard_ranks): stride tp;
 *   dp-replica (hybrid sharding): stride tp*cp*shard_group;
 *   pp neighbours: stride tp*cp*dp; world (every GPU): stride 1.
 * MoE blocks cut the ranks of a stage a second way (Megatron-Core's expert
 * groups, megatron/core/parallel_state.py, order tp-ep-dp-pp): etp: stride
 * 1; ep: stride etp; edp: stride etp*ep.
 * A send/recv is priced as a pair; a ring of pairs (cp) is as slow as its
 * slowest hop, which crosses nodes as soon as the ring spans more than one.
 * A collective that crosses nodes runs while the other GPUs of the node run
 * theirs (every tp rank its own dp group, every rank of a stage its own
 * send): all the node's GPUs share its NICs (pl_coll_time_shared). */
#include <plateau/coll.h>

#include <string.h>

#include "sim/sim_int.h"

static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }

static struct pl_group strided(int64_t ranks, int64_t stride, int64_t per_node) {
  return pl_group_strided(ranks, stride, per_node);
}

static struct pl_group sim_group(const struct pl_run *run, const char *group) {
  const struct pl_layout *l = &run->layout;
  int64_t gpn = run->cluster.gpus_per_node > 0 ? run->cluster.gpus_per_node : 1;
  gpn = imin(gpn, imax(1, l->gpus));
  int64_t sg = pl_layout_shard_ranks(l); /* dp (or shard_group) x cp, stride tp */
  if (strcmp(group, "tp") == 0)
    return strided(l->tp, 1, gpn);
  if (strcmp(group, "cp") == 0)
    return strided(l->cp, l->tp, gpn);
  /* layout.cp_comm a2a+p2p: Megatron-Core's hierarchical cp groups
   * (parallel_state.py hierarchical_context_parallel_sizes): the a2a over
   * cp_a2a adjacent cp ranks, the ring over the cp / cp_a2a groups */
  int64_t a2a = pl_layout_cp_a2a_ranks(l);
  if (strcmp(group, "cp-a2a") == 0)
    return strided(a2a, l->tp, gpn);
  if (strcmp(group, "cp-ring") == 0)
    return strided(l->cp / a2a, l->tp * a2a, gpn);
  if (strcmp(group, "dp") == 0)
    return strided(sg, l->tp, gpn);
  if (strcmp(group, "etp") == 0)
    return strided(l->etp, 1, gpn);
  if (strcmp(group, "ep") == 0)
    return strided(l->ep, l->etp, gpn);
  if (strcmp(group, "ep-etp") == 0)
    return strided(l->ep * l->etp, 1, gpn);
  if (strcmp(group, "edp") == 0)
    return strided(l->edp, l->etp * l->ep, gpn);
  if (strcmp(group, "world") == 0) /* every GPU of the run */
    return strided(l->gpus, 1, gpn);
  if (strcmp(group, "dp-replica") == 0)
    return strided(l->dp * l->cp / sg, l->tp * sg, gpn);
  /* "pp": two neighbouring stages */
  return strided(2, l->tp * l->cp * l->dp, gpn);
}

/* The pair a send/recv of this group's ring travels between. */
static struct pl_group pair_of(const struct pl_run *run, const char *group) {
  struct pl_group g = sim_group(run, group);
  if (strcmp(group, "pp") == 0)
    return g;
  struct pl_group p = {2, g.ranks_per_node < g.ranks ? 1 : 2};
  return p;
}

/* The group's NCCL CTA cap (layout.nccl_max_ctas_*, Megatron-Core's
 * per-process-group ncclConfig_t maxCTAs; src/net/ctas.c); 0: none. The
 * groups without one in the layout (etp, ep, edp, world, dp-replica) keep
 * NCCL's channels. */
static int64_t group_max_ctas(const struct pl_layout *l, const char *group) {
  if (strcmp(group, "tp") == 0)
    return l->nccl_max_ctas_tp;
  if (strcmp(group, "cp") == 0)
    return l->nccl_max_ctas_cp;
  if (strcmp(group, "dp") == 0)
    return l->nccl_max_ctas_dp;
  if (strcmp(group, "pp") == 0)
    return l->nccl_max_ctas_pp;
  return 0;
}

static int32_t find(const struct sim_step *st, enum pl_coll_op op, const char *group,
                    double bytes) {
  for (int i = 0; i < st->n_colls; i++) {
    const struct sim_coll *c = &st->colls[i];
    if (c->op == op && c->bytes == bytes && strcmp(c->group, group) == 0)
      return i;
  }
  return SIM_NONE;
}

enum pl_status sim_coll_add(struct sim_step *st, enum pl_coll_op op, const char *group,
                            double bytes, int32_t *out, struct pl_diag *diag) {
  *out = SIM_NONE;
  struct pl_group g = op == PL_COLL_SEND_RECV ? pair_of(st->run, group) : sim_group(st->run, group);
  if (g.ranks <= 1 || bytes <= 0 || sim_group(st->run, group).ranks <= 1)
    return PL_OK;
  int32_t i = find(st, op, group, bytes);
  if (i != SIM_NONE) {
    *out = i;
    return PL_OK;
  }
  if (st->n_colls == SIM_MAX_COLLS)
    return pl_diag_set(diag, PL_ERR_LIMIT, "step simulation: more than %d distinct collectives",
                       SIM_MAX_COLLS);
  struct pl_coll_cost cost;
  const struct pl_cluster *cl = &st->run->cluster;
  int64_t cap = group_max_ctas(&st->run->layout, group);
  if (pl_coll_time_capped(cl, op, bytes, g, cl->gpus_per_node, cap, PL_ALGO_AUTO, &cost) != PL_OK) {
    enum pl_status s = pl_coll_check(&st->run->cluster, op, bytes, g, PL_ALGO_AUTO, diag);
    return s != PL_OK ? s
                      : pl_diag_set(diag, PL_ERR_INTERNAL, "%s over %s: no collective time",
                                    pl_coll_op_name(op), group);
  }
  struct sim_coll *c = &st->colls[st->n_colls];
  *c = (struct sim_coll){op,          group,
                         g,           bytes,
                         cost.time_s, cost.algo,
                         cost.proto,  g.ranks_per_node < g.ranks ? SIM_RES_INTER : SIM_RES_INTRA};
  *out = st->n_colls++;
  return PL_OK;
}
