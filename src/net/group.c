/* group.c: where a communicator's ranks sit, from its rank stride.
 *
 * Rank order is Megatron-LM's (megatron/core/parallel_state.py
 * initialize_model_parallel: tp innermost, then cp, dp, pp; expert groups
 * tp-ep-dp-pp): a group whose members are `stride` ranks apart has
 * k = min(ranks, max(1, gpus_per_node / stride)) of them in each node
 * (docs/step-model.md section 4).
 *
 * When k does not divide the group the nodes hold unequal shares: a data-
 * parallel group of 39 ranks strided by tp * cp = 8 on 64-GPU NVLink
 * segments (MLPerf v5.0's 2,496-GPU GB200 Llama 3.1 405B run, tp 4 cp 2
 * pp 8) holds 8, 8, 8, 8 and 7 ranks on five segments. NCCL's rings and
 * trees pass through every node of the communicator once per step
 * (NVIDIA/nccl src/graph/connect.cc connectRings / connectTrees link the
 * nodes' intra-node chains), so the call crosses as many node boundaries as
 * ceil(ranks / k) full nodes, and the busiest node's k ranks share its
 * NICs. It is priced as that many full nodes of k ranks: one ring step more
 * than the uneven group at most, a bound, and the same group whenever k
 * divides it. */
#include <plateau/coll.h>

struct pl_group pl_group_strided(int64_t ranks, int64_t stride, int64_t gpus_per_node) {
  int64_t per = stride > 0 && gpus_per_node > 0 ? gpus_per_node / stride : 1;
  if (per < 1)
    per = 1;
  if (per > ranks)
    per = ranks;
  struct pl_group g = {ranks, per};
  if (per > 0 && ranks % per != 0)
    g.ranks = (ranks / per + 1) * per;
  return g;
}
