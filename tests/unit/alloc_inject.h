/* alloc_inject.h: an allocation hook for tests (install with pl_alloc_set)
 * that fails allocation number alloc_fail_at and records that it did, so a
 * test can fail allocation 1, 2, ... of one operation in turn. Static: each
 * test executable that includes it gets its own counters. */
#ifndef PL_TEST_ALLOC_INJECT_H
#define PL_TEST_ALLOC_INJECT_H

#include <stdbool.h>
#include <stdlib.h>

static long alloc_calls, alloc_fail_at;
static bool injected;

static void *failing_alloc(void *ud, void *ptr, size_t size) {
  (void)ud;
  if (size == 0) {
    free(ptr);
    return NULL;
  }
  if (++alloc_calls == alloc_fail_at) {
    injected = true;
    return NULL;
  }
  return realloc(ptr, size);
}

#endif
