/* bench_search.c: how fast `plateau search` goes through layouts, on the
 * issue's case (Llama-2 70B, 1,024 H100s, gbs 1,024, every layout).
 *
 * Prints medians of several runs, one thread unless stated:
 *  - the ranking path: enumerating every layout, checking it, computing its
 *    memory and the bound on its step time (layouts per second);
 *  - the step simulator alone (pl_predict per second, on fitting layouts);
 *  - whole searches for the top 1 and top 10, 1 and 2 threads (wall time,
 *    layouts considered per second, layouts simulated).
 * Times are process CPU seconds (per core when one thread runs), except for
 * the 2-thread search, which is wall time. Medians of several runs.
 * Usage: bench_search [runs] [model] [gpus] [gbs]. The MoE case of issue 19:
 * bench_search 3 deepseek-v3 1024 1024 (every ep as well). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <plateau/plateau.h>

#include "search/search_int.h"

#define MAX_RUNS 15

/* Wall time, or CPU time of the process: on a shared machine the CPU time
 * of a one-thread run is the honest per-core figure. */
static int clock_id = CLOCK_PROCESS_CPUTIME_ID;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(clock_id, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static struct pl_run run;

static int bench_enumerate(int runs) {
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  o.top_k = 1;
  double t[MAX_RUNS];
  struct search_space_out sp;
  struct pl_diag d;
  for (int r = 0; r < runs; r++) {
    struct search_ctx ctx;
    double t0 = now_s();
    if (search_ctx_init(&ctx, &run, &o, &d) != PL_OK || search_enumerate(&ctx, NULL, &sp, &d) != PL_OK) {
      fprintf(stderr, "bench_search: %s\n", d.msg);
      return 1;
    }
    t[r] = now_s() - t0;
    search_ctx_free(&ctx);
    if (r + 1 < runs)
      pl_free(sp.cands);
  }
  double m = median(t, runs);
  printf("ranking path (enumerate, check, memory, bound), 1 thread:\n"
         "  %lld layouts considered, %lld fit, median %.3f s CPU: %.0f layouts/s, %.0f fitting "
         "layouts/s\n",
         (long long)sp.considered, (long long)sp.n_cands, m, (double)sp.considered / m,
         (double)sp.n_cands / m);
  pl_free(sp.cands);
  return 0;
}

/* pl_predict on up to 200 fitting layouts spread over the space. */
static int bench_predict(int runs) {
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  o.top_k = 1;
  struct search_ctx ctx;
  struct search_space_out sp;
  struct pl_diag d;
  if (search_ctx_init(&ctx, &run, &o, &d) != PL_OK || search_enumerate(&ctx, NULL, &sp, &d) != PL_OK) {
    fprintf(stderr, "bench_search: %s\n", d.msg);
    return 1;
  }
  int64_t n = sp.n_cands < 200 ? sp.n_cands : 200, stride = n > 0 ? sp.n_cands / n : 1;
  static struct pl_run r1;
  static struct pl_prediction p;
  double t[MAX_RUNS];
  for (int r = 0; r < runs; r++) {
    double t0 = now_s();
    for (int64_t i = 0; i < n; i++) {
      r1.model = run.model;
      r1.cluster = run.cluster;
      search_cand_layout(&ctx, &sp.cands[i * stride], &r1.layout);
      pl_predict(&r1, &p, &d);
    }
    t[r] = now_s() - t0;
  }
  double m = median(t, runs);
  printf("step simulator (pl_predict), 1 thread:\n  %lld layouts, median %.3f s CPU: %.0f layouts/s\n",
         (long long)n, m, (double)n / m);
  pl_free(sp.cands);
  search_ctx_free(&ctx);
  return 0;
}

static int bench_search(int runs, int64_t top_k, int threads) {
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  o.top_k = top_k;
  struct pl_diag d;
  struct pl_par *par = NULL;
  if (pl_par_new(threads, NULL, &par, &d) != PL_OK) {
    fprintf(stderr, "bench_search: %s\n", d.msg);
    return 1;
  }
  o.par = par;
  clock_id = threads > 1 ? CLOCK_MONOTONIC : CLOCK_PROCESS_CPUTIME_ID;
  double t[MAX_RUNS];
  struct pl_search_result res;
  memset(&res, 0, sizeof res);
  for (int r = 0; r < runs; r++) {
    pl_search_result_free(&res);
    double t0 = now_s();
    if (pl_search_run(&run, &o, &res, &d) != PL_OK) {
      fprintf(stderr, "bench_search: %s\n", d.msg);
      pl_par_free(par);
      return 1;
    }
    t[r] = now_s() - t0;
  }
  double m = median(t, runs);
  printf("search top %lld, %d thread%s:\n  median %.3f s %s: %.0f layouts considered/s; %lld "
         "considered, %lld rejected, %lld pruned, %lld simulated\n",
         (long long)top_k, threads, threads > 1 ? "s" : "", m, threads > 1 ? "wall" : "CPU", (double)res.considered / m,
         (long long)res.considered, (long long)res.rejected_total, (long long)res.pruned,
         (long long)res.evaluated);
  pl_search_result_free(&res);
  pl_par_free(par);
  return 0;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 5;
  const char *model = argc > 2 ? argv[2] : "llama2-70b";
  long long gpus = argc > 3 ? strtoll(argv[3], NULL, 10) : 1024;
  long long gbs = argc > 4 ? strtoll(argv[4], NULL, 10) : 1024;
  if (runs < 1 || runs > MAX_RUNS)
    runs = 5;
  struct pl_diag d;
  memset(&run, 0, sizeof run);
  if (pl_model_load(model, &run.model, &d) != PL_OK ||
      pl_cluster_load("dgx-h100", &run.cluster, &d) != PL_OK) {
    fprintf(stderr, "bench_search: %s\n", d.msg);
    return 1;
  }
  run.layout.gpus = gpus;
  run.layout.gbs = gbs;
  printf("bench_search: %s on %lld H100 (dgx-h100), gbs %lld, medians of %d runs\n", model, gpus, gbs,
         runs);
  if (bench_enumerate(runs) || bench_predict(runs) || bench_search(runs, 1, 1) ||
      bench_search(runs, 10, 1) || bench_search(runs, 10, 2))
    return 1;
  return 0;
}
