/* coll.c: bus bandwidth of the collectives FSDP and tensor/data
 * parallelism use, on every cluster of the study at every node count, from
 * the collective model (pl_coll_time, include/plateau/coll.h). The paper's
 * Figure 2 benchmarks the same with nccl-tests: all_reduce (ring or tree)
 * against all_gather (ring only), one communicator over all GPUs of n nodes.
 * Bus bandwidth follows nccl-tests doc/PERFORMANCE.md (pl_coll_busbw). */
#include "study_int.h"

#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>

static const enum pl_coll_op ops[] = {PL_COLL_ALL_REDUCE, PL_COLL_ALL_GATHER,
                                      PL_COLL_REDUCE_SCATTER};
#define N_OPS ((int)(sizeof ops / sizeof ops[0]))

static void one(const struct pl_cluster *c, enum pl_coll_op op, struct pl_study_coll *out) {
  struct pl_group g = {out->ranks, c->gpus_per_node};
  struct pl_coll_cost cost;
  memset(&cost, 0, sizeof cost);
  enum pl_status rc = pl_coll_time(c, op, out->bytes, g, PL_ALGO_AUTO, &cost);
  if (rc != PL_OK || !(cost.time_s > 0.0)) {
    struct pl_diag d;
    pl_diag_clear(&d);
    pl_coll_check(c, op, out->bytes, g, PL_ALGO_AUTO, &d);
    study_copy(out->why, sizeof out->why, d.msg[0] ? d.msg : pl_status_message(rc));
    return;
  }
  out->ok = true;
  out->time_s = cost.time_s;
  out->busbw_bytes_per_s = pl_coll_busbw(op, out->ranks, out->bytes, cost.time_s);
  study_copy(out->algo, sizeof out->algo, pl_coll_algo_name(cost.algo));
}

enum pl_status study_coll_run(struct pl_study *st, struct pl_diag *diag) {
  const struct pl_study_spec *s = &st->spec;
  size_t n = (size_t)s->n_clusters * N_OPS * (size_t)s->n_nodes;
  st->coll = pl_calloc(n, sizeof *st->coll);
  if (st->coll == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "study: out of memory for collectives");
  size_t k = 0;
  for (int c = 0; c < s->n_clusters; c++)
    for (int o = 0; o < N_OPS; o++)
      for (int i = 0; i < s->n_nodes; i++, k++) {
        struct pl_study_coll *x = &st->coll[k];
        x->cluster = c;
        x->op = (int)ops[o];
        x->nodes = s->nodes[i];
        x->ranks = s->nodes[i] * st->clusters[c].gpus_per_node;
        x->bytes = s->coll_bytes;
        one(&st->clusters[c], ops[o], x);
      }
  st->n_coll = (int64_t)n;
  return PL_OK;
}
