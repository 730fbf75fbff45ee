/* fuzz_nccl_log.c: the nccl-tests log reader from memory (pl_nccl_log_parse),
 * then settling op/ranks/nodes of every series (pl_nccl_series_resolve) and
 * costing each resolved row on dgx-h100 the way `calibrate nccl` compares
 * them. Aborts when a parsed row or a modelled time is not finite. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

static void cost_rows(const struct pl_cluster *c, const struct pl_nccl_series *s) {
  struct pl_group g = {s->ranks, s->ranks_per_node};
  for (size_t i = 0; i < s->n_rows; i++) {
    if (!isfinite(s->rows[i].bytes) || !isfinite(s->rows[i].time_s) || s->rows[i].time_s < 0.0)
      abort();
    struct pl_coll_cost cost;
    if (pl_coll_time(c, s->op, s->rows[i].bytes, g, PL_ALGO_AUTO, &cost) == PL_OK &&
        !(cost.time_s >= 0.0 && isfinite(cost.time_s)))
      abort();
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static struct pl_cluster h100;
  static int loaded = -1;
  if (loaded < 0)
    loaded = pl_cluster_load("dgx-h100", &h100, NULL) == PL_OK;
  struct pl_nccl_log *log = NULL;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_nccl_log_parse((const char *)data, size, "fuzz", &log, &d) != PL_OK) {
    if (log != NULL || d.msg[0] == '\0')
      abort(); /* an error leaves no log and always says why */
    return 0;
  }
  for (size_t k = 0; k < log->n_series; k++) {
    struct pl_nccl_series *s = &log->series[k];
    struct pl_nccl_hints h = {.nodes = (int64_t)(size % 3)};
    char warn[200];
    if (pl_nccl_series_resolve(s, &h, "fuzz", warn, sizeof warn, &d) == PL_OK && loaded)
      cost_rows(&h100, s);
  }
  pl_nccl_log_free(log);
  return 0;
}
