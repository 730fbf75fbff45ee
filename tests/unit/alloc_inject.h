/* alloc_inject.h: an allocation hook for tests (install with pl_alloc_set)
 * that fails allocation number alloc_fail_at and records that it did, so a
 * test can fail allocation 1, 2, ... of one operation in turn. Static: each
 * test executable that includes it gets its own counters. */
#ifndef PL_TEST_ALLOC_INJECT_H
#define PL_TEST_ALLOC_INJECT_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/status.h>

#include "check.h"

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

typedef enum pl_status (*alloc_call_fn)(void *ctx, struct pl_diag *diag);

/* Fail allocation 1, 2, ... of fn(ctx) in turn until a run never reaches
 * the failing one. Each failure must surface as PL_ERR_NOMEM with "out of
 * memory" (not another status, and not success: none of the calls tested
 * has an optional allocation); the run without a failure must succeed.
 * Returns how many allocations the call makes. */
static inline long alloc_fail_each(const char *what, alloc_call_fn fn, void *ctx) {
  long n;
  for (n = 1; n < 1000000; n++) {
    struct pl_diag d;
    pl_diag_clear(&d);
    alloc_calls = 0;
    alloc_fail_at = n;
    injected = false;
    pl_alloc_set(failing_alloc, NULL);
    enum pl_status st = fn(ctx, &d);
    pl_alloc_set(NULL, NULL);
    if (!injected) {
      CHECK_STATUS(st, PL_OK, &d);
      break;
    }
    if (st != PL_ERR_NOMEM || strstr(d.msg, "out of memory") == NULL) {
      fprintf(stderr, "%s: allocation %ld failed: status %s, message '%s'\n", what, n,
              pl_status_name(st), d.msg);
      CHECK(false);
    }
  }
  return n - 1;
}

#endif
