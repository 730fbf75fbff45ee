/* launch_sort.c: the order of CPU launch records, by correlation id (the
 * runtime call before its flow start, then by time), that link.c and the
 * spill merge of spill.c both follow; a leaf, so neither calls the other
 * for it. */
#include <stdbool.h>
#include <stddef.h>

#include "heapsort.h"
#include "trace_int.h"

int trace_cmp_launch(const struct trace_launch *x, const struct trace_launch *y) {
  if (x->corr != y->corr)
    return x->corr < y->corr ? -1 : 1;
  if (x->runtime != y->runtime) /* the runtime call first: it has the External id */
    return x->runtime > y->runtime ? -1 : 1;
  return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

static bool launch_less(const void *x, const void *y) {
  return trace_cmp_launch(x, y) < 0;
}

/* Launches sorted in place (heapsort.h), and not at all when, as Kineto
 * writes them, they already are. */
void trace_sort_launches(struct trace_launch *l, size_t n) {
  size_t i = 1;
  while (i < n && trace_cmp_launch(&l[i - 1], &l[i]) <= 0)
    i++;
  if (i >= n)
    return;
  _Static_assert(sizeof(struct trace_launch) <= TRACE_HEAP_MAX_ELEM, "heapsort.h buffer");
  trace_heapsort(l, n, sizeof *l, launch_less);
}
