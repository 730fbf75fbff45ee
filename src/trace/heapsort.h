/* heapsort.h (internal to src/trace): one in-place heapsort for the trace's
 * record arrays. glibc's qsort is a merge sort that allocates a copy of the
 * array (the largest allocation of a run for launches), so records are sorted
 * in place. static inline with the comparison passed as a constant function:
 * each caller gets a specialised copy, as fast as the hand-written ones it
 * replaces. */
#ifndef PL_TRACE_HEAPSORT_H
#define PL_TRACE_HEAPSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* The largest record sorted here (struct trace_gpu, 40 bytes) fits. */
#define TRACE_HEAP_MAX_ELEM 64

static inline void trace_heap_swap(unsigned char *a, unsigned char *b, size_t size) {
  unsigned char t[TRACE_HEAP_MAX_ELEM];
  memcpy(t, a, size);
  memcpy(a, b, size);
  memcpy(b, t, size);
}

static inline void trace_heap_sift(unsigned char *base, size_t size, size_t i, size_t n,
                                   bool (*less)(const void *, const void *)) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      return;
    if (c + 1 < n && less(base + c * size, base + (c + 1) * size))
      c++;
    if (!less(base + i * size, base + c * size))
      return;
    trace_heap_swap(base + i * size, base + c * size, size);
    i = c;
  }
}

/* Sort n records of size bytes (<= TRACE_HEAP_MAX_ELEM) ascending by less. */
static inline void trace_heapsort(void *records, size_t n, size_t size,
                                  bool (*less)(const void *, const void *)) {
  unsigned char *base = records;
  for (size_t i = n / 2; i-- > 0;)
    trace_heap_sift(base, size, i, n, less);
  for (size_t m = n; m-- > 1;) {
    trace_heap_swap(base, base + m * size, size);
    trace_heap_sift(base, size, 0, m, less);
  }
}

#endif
