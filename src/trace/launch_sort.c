/* launch_sort.c: the order of CPU launch records, by correlation id (the
 * runtime call before its flow start, then by time), that link.c and the
 * spill merge of spill.c both follow; a leaf, so neither calls the other
 * for it. */
#include <stddef.h>

#include "trace_int.h"

int trace_cmp_launch(const struct trace_launch *x, const struct trace_launch *y) {
  if (x->corr != y->corr)
    return x->corr < y->corr ? -1 : 1;
  if (x->runtime != y->runtime) /* the runtime call first: it has the External id */
    return x->runtime > y->runtime ? -1 : 1;
  return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

/* Launches sorted in place: glibc's qsort is a merge sort that allocates a
 * copy of the array (32 bytes per launch, the largest allocation of a run),
 * so launches are sorted by heapsort, and not at all when, as Kineto writes
 * them, they already are. */
static void sift(struct trace_launch *l, size_t i, size_t n) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      return;
    if (c + 1 < n && trace_cmp_launch(&l[c], &l[c + 1]) < 0)
      c++;
    if (trace_cmp_launch(&l[i], &l[c]) >= 0)
      return;
    struct trace_launch t = l[i];
    l[i] = l[c];
    l[c] = t;
    i = c;
  }
}

void trace_sort_launches(struct trace_launch *l, size_t n) {
  size_t i = 1;
  while (i < n && trace_cmp_launch(&l[i - 1], &l[i]) <= 0)
    i++;
  if (i >= n)
    return;
  for (i = n / 2; i-- > 0;)
    sift(l, i, n);
  for (size_t m = n; m-- > 1;) {
    struct trace_launch t = l[0];
    l[0] = l[m];
    l[m] = t;
    sift(l, 0, m);
  }
}
