/* step_sync.c: the small collectives over all GPUs that a trainer loop runs
 * once per optimizer step and waits for on the host (layout.step_sync_*).
 *
 * Each carries a few bytes, so its time is NCCL's latency at the world size
 * (a ring all_gather or broadcast takes one hop per rank, src/net): nothing
 * else runs while the host waits for it, and the next call (or the next
 * step's first kernel) is issued only after, so the calls follow the
 * optimizer one after the other on the step's critical path. Composer's loop
 * (llm-foundry, data/frameworks/llm-foundry.json) is the case with a source:
 * composer/trainer/trainer.py `_train_loop` (v0.17.2) all_reduces the loss
 * and reads it with .item(), `_accumulate_time_across_ranks` all_reduces the
 * sample and token counts and broadcasts rank 0's batch time, then
 * `_compute_and_log_metrics` computes the train metrics, whose torchmetrics
 * sync (1.0.3, utilities/distributed.py gather_all_tensors) runs a barrier
 * and an all_gather per metric state. */
#include "sim/lower_int.h"

/* Bytes per rank of one call: a scalar or a pair of 32-bit counts
 * (Composer's sample/token tensor, torchmetrics' int64 total_items). */
#define STEP_SYNC_BYTES 8.0

static int32_t sync_task(struct lower *lw, enum pl_coll_op op, double bytes, int64_t calls,
                         int32_t after) {
  if (calls <= 0)
    return after;
  int32_t c;
  enum pl_status s = sim_coll_add(lw->st, op, "world", bytes, &c, lw->diag);
  if (s != PL_OK) {
    fail(lw, s);
    return after;
  }
  int32_t t = coll_task(lw, PL_STREAM_DP_REDUCE, c, calls);
  if (t == SIM_NONE)
    return after;
  dep(lw, after, t);
  return t;
}

void sim_step_sync_emit(struct lower *lw, int32_t after) {
  const struct pl_layout *l = lw->l;
  double ranks = (double)(l->gpus > 0 ? l->gpus : 1);
  int32_t t = sync_task(lw, PL_COLL_ALL_REDUCE, STEP_SYNC_BYTES, l->step_sync_all_reduces, after);
  t = sync_task(lw, PL_COLL_BROADCAST, STEP_SYNC_BYTES, l->step_sync_broadcasts, t);
  /* an all_gather's size is its output, every rank's contribution */
  sync_task(lw, PL_COLL_ALL_GATHER, STEP_SYNC_BYTES * ranks, l->step_sync_all_gathers, t);
}
