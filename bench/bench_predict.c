/* bench_predict.c: full predictions per second (pl_predict: layout, FLOPs,
 * memory, lowering, event simulation, accounting) for Llama-2 70B on 2048
 * H100s under a few layouts, on one core. Target: >= 2,000 per second per
 * core for each layout (docs/step-model.md, "Speed").
 * Run: ./bench_predict [seconds per layout, default 1] [case index, default all]
 *                      [predictions: a fixed count instead of the time budget,
 *                       for instruction counts under valgrind --tool=callgrind] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <plateau/plateau.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct layout_case {
  const char *label;
  int64_t tp, pp, vp, mbs;
  enum pl_shard shard;
  enum pl_recompute recompute;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int bench(const struct pl_run *base, const struct layout_case *c, double budget_s,
                 long count) {
  static struct pl_run run;
  static struct pl_prediction p;
  struct pl_diag d;
  run = *base;
  run.layout.tp = c->tp;
  run.layout.pp = c->pp;
  run.layout.vp = c->vp;
  run.layout.mbs = c->mbs;
  run.layout.shard = c->shard;
  run.layout.shard_set = true;
  run.layout.recompute = c->recompute;
  long n = 0;
  double t0 = now_s(), t = t0;
  while (count > 0 ? n < count : t - t0 < budget_s) {
    if (pl_predict(&run, &p, &d) != PL_OK) {
      fprintf(stderr, "bench_predict: %s: %s\n", c->label, d.msg);
      return 1;
    }
    n++;
    if (n % 16 == 0)
      t = now_s();
  }
  t = now_s();
  printf("%-34s %10.0f predictions/s  (%s, step %.3f s, MFU %.1f%%)\n", c->label,
         (double)n / (t - t0), p.step.simulated ? "simulated" : "does not fit", p.step.step_time_s,
         100.0 * p.step.mfu);
  return 0;
}

int main(int argc, char **argv) {
  double budget = argc > 1 ? strtod(argv[1], NULL) : 1.0;
  int only = argc > 2 ? (int)strtol(argv[2], NULL, 10) : -1;
  long count = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
  static struct pl_run base;
  struct pl_diag d;
  memset(&base, 0, sizeof base);
  if (pl_model_load("llama2-70b", &base.model, &d) != PL_OK ||
      pl_cluster_load("dgx-h100", &base.cluster, &d) != PL_OK) {
    fprintf(stderr, "bench_predict: %s\n", d.msg);
    return 1;
  }
  base.layout.gpus = 2048;
  base.layout.batch_per_gpu = 1;
  static const struct layout_case cases[] = {
      {"fsdp zero3, full recompute (tp1 pp1)", 1, 1, 1, 1, PL_SHARD_ZERO3, PL_RECOMPUTE_FULL},
      {"zero2 tp8 (m=8)", 8, 1, 1, 1, PL_SHARD_ZERO2, PL_RECOMPUTE_SELECTIVE},
      {"zero1 tp8 pp4 1f1b (m=32)", 8, 4, 1, 1, PL_SHARD_ZERO1, PL_RECOMPUTE_SELECTIVE},
      {"zero1 tp8 pp4 vp5 interleaved (m=32)", 8, 4, 5, 1, PL_SHARD_ZERO1, PL_RECOMPUTE_SELECTIVE},
      {"zero2 tp4 pp4 1f1b (m=16, fsdp+pp)", 4, 4, 1, 1, PL_SHARD_ZERO2, PL_RECOMPUTE_FULL},
  };
  printf("Llama-2 70B, 2048 x H100 (dgx-h100), 1 sequence of 4096 tokens per GPU\n");
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if ((only < 0 || (size_t)only == i) && bench(&base, &cases[i], budget, count) != 0)
      return 1;
  return 0;
}
