/* fuzz_cluster.c: GPU and cluster JSON files from memory (pl_gpu_parse,
 * pl_cluster_parse; the first byte picks which, the rest is the document),
 * then the collective model on whatever parses: every op on 1, 2 and 4 nodes
 * at a few sizes must give a finite time >= 0 or a clean error. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

static void exercise(const struct pl_cluster *c) {
  static const double sizes[] = {0.0, 8.0, 1048576.0, 67108864.0, 8589934592.0};
  static const int64_t nodes[] = {1, 2, 4};
  for (int op = 0; op < PL_COLL_N_OPS; op++)
    for (size_t n = 0; n < sizeof nodes / sizeof nodes[0]; n++)
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        struct pl_group g = {nodes[n] * c->gpus_per_node, c->gpus_per_node};
        struct pl_coll_cost cost;
        if (pl_coll_time(c, (enum pl_coll_op)op, sizes[k], g, PL_ALGO_AUTO, &cost) == PL_OK &&
            !(cost.time_s >= 0.0 && isfinite(cost.time_s)))
          abort();
      }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const char *text = (const char *)data + 1;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (data[0] & 1) {
    struct pl_gpu g;
    if (pl_gpu_parse(text, size - 1, "fuzz", &g, &d) == PL_OK)
      (void)pl_gpu_peak_flops_per_s(&g, PL_DTYPE_BF16);
    return 0;
  }
  struct pl_cluster c;
  if (pl_cluster_parse(text, size - 1, "fuzz", &c, &d) == PL_OK)
    exercise(&c);
  else if (d.msg[0] == '\0')
    abort(); /* every error says why */
  return 0;
}
