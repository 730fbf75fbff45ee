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
  if (x->ts_ns != y->ts_ns)
    return x->ts_ns < y->ts_ns ? -1 : 1;
  /* A total order, so that the record kept of a repeated correlation (the
   * first) is the same after the in-memory sort (not stable) and after the
   * spill merge: two launches alike so far may differ in their thread,
   * which collective attribution (link.c rpc_around) and recompute compare. */
  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  if (x->ext_id != y->ext_id)
    return x->ext_id < y->ext_id ? -1 : 1;
  if (x->dur_ns != y->dur_ns)
    return x->dur_ns < y->dur_ns ? -1 : 1;
  return (x->flow > y->flow) - (x->flow < y->flow);
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
