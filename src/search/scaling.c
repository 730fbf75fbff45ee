/* scaling.c: the diminishing-returns figures of one scaling series
 * (docs/search.md, "Diminishing returns"). With T(N) the tokens/s on N GPUs,
 * N0 the smallest point that fits and N' the previous point that fits:
 *   scaling efficiency   E(N) = (T(N) / N) / (T(N0) / N0)
 *   marginal tokens/s/GPU M(N) = (T(N) - T(N')) / (N - N')
 *   marginal efficiency  e(N) = M(N) / (T(N0) / N0)
 * e(N) is the throughput each added GPU brought, as a fraction of what a GPU
 * delivered at the smallest scale; the knee is the first N with
 * e(N) < threshold. The same formulas serve weak scaling (batch grows with N)
 * and strong scaling (batch fixed): both compare tokens per second. */
#include <plateau/search.h>

#include <string.h>

void pl_scaling_figures(struct pl_scaling_point *pts, size_t n, double threshold,
                        struct pl_knee *knee) {
  memset(knee, 0, sizeof *knee);
  const struct pl_scaling_point *base = NULL, *prev = NULL;
  for (size_t i = 0; i < n; i++) {
    struct pl_scaling_point *p = &pts[i];
    p->has_efficiency = p->has_marginal = false;
    p->scaling_efficiency = p->marginal_tokens_per_s_per_gpu = p->marginal_efficiency = 0;
    if (!p->valid || p->gpus <= 0)
      continue;
    if (base == NULL)
      base = p;
    double per_gpu0 = base->tokens_per_s / (double)base->gpus;
    if (per_gpu0 > 0) {
      p->has_efficiency = true;
      p->scaling_efficiency = p->tokens_per_s / (double)p->gpus / per_gpu0;
    }
    if (prev != NULL && p->gpus > prev->gpus && per_gpu0 > 0) {
      p->has_marginal = true;
      p->marginal_tokens_per_s_per_gpu =
          (p->tokens_per_s - prev->tokens_per_s) / (double)(p->gpus - prev->gpus);
      p->marginal_efficiency = p->marginal_tokens_per_s_per_gpu / per_gpu0;
      if (!knee->found && p->marginal_efficiency < threshold) {
        knee->found = true;
        knee->gpus = p->gpus;
        knee->prev_gpus = prev->gpus;
        knee->marginal_efficiency = p->marginal_efficiency;
        knee->scaling_efficiency = p->scaling_efficiency;
      }
    }
    prev = p;
  }
}
