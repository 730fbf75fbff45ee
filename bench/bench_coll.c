/* bench_coll.c: cost of one pl_coll_time call (the step simulator makes
 * millions). Prints ns per call for a mix of ops, sizes and group sizes on
 * dgx-h100. Not run by ctest. An optional argument sets the number of calls
 * (default 2,000,000; a small count suits valgrind --tool=callgrind). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <plateau/plateau.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  struct pl_cluster c;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_cluster_load("dgx-h100", &c, &d) != PL_OK) {
    fprintf(stderr, "%s\n", d.msg);
    return 1;
  }
  const long n = argc > 1 ? atol(argv[1]) : 2000000;
  if (n < 1) {
    fprintf(stderr, "bench_coll: call count must be a positive integer\n");
    return 2;
  }
  double sink = 0.0, t0 = now_s();
  for (long i = 0; i < n; i++) {
    struct pl_group g = {8L << (i % 9), 8};
    struct pl_coll_cost cost;
    double bytes = (double)(1L << (10 + i % 24));
    if (pl_coll_time(&c, (enum pl_coll_op)(i % PL_COLL_N_OPS), bytes, g, PL_ALGO_AUTO, &cost) ==
        PL_OK)
      sink += cost.time_s;
  }
  double t = now_s() - t0;
  printf("pl_coll_time: %.1f ns per call (%ld calls, auto algorithm; checksum %.6g)\n",
         1e9 * t / (double)n, n, sink);
  return 0;
}
