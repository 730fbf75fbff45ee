/* test_sim_fast.c: the optimized step simulation (cached per-(segment,
 * pass) tp lists in the lowering, one accounting sweep per stage) gives
 * bit-identical results to the straightforward path kept behind
 * sim_step.reference (docs/step-model.md section 11). Both are run on a set
 * of layouts covering every shard mode, schedule, cp, hybrid sharding,
 * eager attention and Megatron's gradient reduction after the backward;
 * every task's start and end time and the whole step breakdown must match
 * exactly (memcmp), not within a tolerance: the optimizations may not change
 * a single rounding. */
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"
#include "sim/sim_int.h"

struct layout_case {
  const char *model, *cluster;
  int64_t gpus, tp, pp, vp, cp, mbs, batch_per_gpu;
  enum pl_shard shard;
  int64_t shard_group;
  enum pl_recompute recompute;
  enum pl_schedule schedule;
  bool eager, no_sp, grad_after;
};

static const struct layout_case cases[] = {
    {"llama2-70b", "dgx-h100", 2048, 1, 1, 1, 1, 1, 1, PL_SHARD_ZERO3, 0, PL_RECOMPUTE_FULL,
     PL_SCHEDULE_1F1B, false, false, false},
    {"llama2-70b", "dgx-h100", 2048, 8, 1, 1, 1, 1, 1, PL_SHARD_ZERO2, 0, PL_RECOMPUTE_SELECTIVE,
     PL_SCHEDULE_1F1B, false, false, false},
    {"llama2-70b", "dgx-h100", 2048, 8, 4, 5, 1, 1, 1, PL_SHARD_ZERO1, 0, PL_RECOMPUTE_SELECTIVE,
     PL_SCHEDULE_INTERLEAVED, false, false, false},
    {"llama2-70b", "dgx-h100", 2048, 4, 4, 1, 1, 1, 1, PL_SHARD_ZERO2, 0, PL_RECOMPUTE_FULL,
     PL_SCHEDULE_1F1B, false, false, false},
    {"llama2-70b", "dgx-h100", 2048, 4, 4, 1, 1, 1, 1, PL_SHARD_ZERO3, 64, PL_RECOMPUTE_FULL,
     PL_SCHEDULE_GPIPE, false, false, false},
    {"llama2-70b", "dgx-h100", 512, 8, 2, 1, 2, 1, 2, PL_SHARD_ZERO1, 0, PL_RECOMPUTE_SELECTIVE,
     PL_SCHEDULE_1F1B, false, false, false},
    {"llama2-7b", "dgx-h100", 64, 1, 1, 1, 1, 1, 2, PL_SHARD_DDP, 0, PL_RECOMPUTE_FULL,
     PL_SCHEDULE_1F1B, false, false, false},
    {"llama2-13b", "dgx-a100", 256, 4, 4, 2, 1, 1, 8, PL_SHARD_DDP, 0, PL_RECOMPUTE_FULL,
     PL_SCHEDULE_INTERLEAVED, true, true, true},
    {"llama2-13b", "dgx-a100", 256, 2, 2, 1, 1, 2, 4, PL_SHARD_ZERO3, 0, PL_RECOMPUTE_SELECTIVE,
     PL_SCHEDULE_1F1B, false, false, false},
};

static void make_run(const struct layout_case *c, struct pl_run *r) {
  struct pl_diag d;
  memset(r, 0, sizeof *r);
  CHECK_STATUS(pl_model_load(c->model, &r->model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load(c->cluster, &r->cluster, &d), PL_OK, &d);
  struct pl_layout *l = &r->layout;
  l->gpus = c->gpus;
  l->tp = c->tp;
  l->pp = c->pp;
  l->vp = c->vp;
  l->cp = c->cp;
  l->mbs = c->mbs;
  l->batch_per_gpu = c->batch_per_gpu;
  l->shard = c->shard;
  l->shard_set = true;
  l->shard_group = c->shard_group;
  l->recompute = c->recompute;
  l->schedule = c->schedule;
  l->eager_attention = c->eager;
  l->no_sp = c->no_sp;
  l->grad_reduce_after_backward = c->grad_after;
  CHECK_STATUS(pl_layout_resolve(l, &r->model, &r->cluster, &d), PL_OK, &d);
}

static void check_same(const struct layout_case *c) {
  static struct pl_run run;
  static struct pl_step fast_out, ref_out;
  struct pl_flops fl;
  struct pl_diag d;
  struct sim_step fast, ref;
  make_run(c, &run);
  pl_flops_compute(&run.model, &run.layout, &fl);
  CHECK_STATUS(sim_step_build(&fast, &run, false, &d), PL_OK, &d);
  CHECK_STATUS(sim_step_build(&ref, &run, true, &d), PL_OK, &d);
  CHECK_EQ_INT(fast.eng.n_tasks, ref.eng.n_tasks);
  CHECK(memcmp(&fast.step_s, &ref.step_s, sizeof fast.step_s) == 0);
  int32_t n = fast.eng.n_tasks < ref.eng.n_tasks ? fast.eng.n_tasks : ref.eng.n_tasks, diff = 0;
  for (int32_t i = 0; i < n; i++)
    diff += fast.eng.tasks[i].start_s != ref.eng.tasks[i].start_s ||
            fast.eng.tasks[i].end_s != ref.eng.tasks[i].end_s;
  CHECK_EQ_INT(diff, 0);
  memset(&fast_out, 0, sizeof fast_out);
  memset(&ref_out, 0, sizeof ref_out);
  CHECK_STATUS(sim_account(&fast, &fl, &fast_out), PL_OK, &d);
  CHECK_STATUS(sim_account(&ref, &fl, &ref_out), PL_OK, &d);
  CHECK(fast_out.simulated);
  CHECK(memcmp(&fast_out, &ref_out, sizeof fast_out) == 0);
  sim_step_free(&fast);
  sim_step_free(&ref);
}

int main(void) {
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_same(&cases[i]);
  return check_finish();
}
