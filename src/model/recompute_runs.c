/* recompute_runs.c: how often a backward re-runs an op's forward, for the
 * per-op figures (`predict --ops`, `validate --explain`, the search's bound)
 * to count recomputation as the simulator prices it.
 *
 * The simulator prices the average block (src/sim/segments.c seg_compute,
 * docs/step-model.md 2.4): with full recompute of only some blocks
 * (recompute_layers N, Megatron-Core's block method; recompute_every K,
 * torchtitan's selective layer AC) a block's backward is the un-recomputed
 * one plus pl_recompute_share of the recomputed forward. Counting the
 * recomputed forward in every block instead overstates the compute: a
 * torchtitan Llama 3 8B row with every 2nd block checkpointed summed its ops
 * to 2.774 s per step for a simulated compute of 2.524 s. */
#include <plateau/flops.h>

double pl_op_recompute_runs(const struct pl_model *m, const struct pl_layout *l,
                            const struct pl_op *op, struct pl_op *part) {
  if (!pl_op_recompute_part(op, part))
    return 0.0;
  /* selective recompute and torchtitan's op-level policy mark the ops that
   * every block re-runs (flops.c mark_recompute); full recompute marks every
   * op of the block, and re-runs it in the share of the blocks checkpointed */
  return l->recompute == PL_RECOMPUTE_FULL ? pl_recompute_share(m, l) : 1.0;
}
