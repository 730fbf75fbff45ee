/* mem.c: the simulator's memory, reused across predictions on each thread.
 *
 * A prediction builds and frees the same few large arrays (tasks, edges,
 * lowering templates, compression state) every time. Given back to the C
 * library, the largest land at the top of its heap and are trimmed (brk)
 * or unmapped, and the next prediction pays the kernel to map and zero
 * those pages again: on some layouts that was a third of pl_predict's CPU
 * time (bench/README.md). Here a freed block of SIM_MEM_MIN bytes or more is
 * kept in a small per-thread cache and handed out again, best fit first, so
 * a thread that predicts many layouts (search, sweep, study) maps its
 * working set once. A thread's blocks are freed when it exits; the main
 * thread's stay reachable from its thread-local cache until the process
 * ends. Allocation still goes through pl_malloc (alloc.h), so a failing hook
 * fails the allocations the cache cannot serve.
 *
 * Every block carries a header with its capacity; sim_free takes only
 * blocks from sim_malloc, sim_calloc and sim_realloc. */
#define _POSIX_C_SOURCE 200809L
#include <plateau/alloc.h>

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sim/sim_int.h"

#define SIM_MEM_MIN 4096      /* smaller blocks go straight back to the C library */
#define SIM_MEM_SLOTS 32      /* cached blocks per thread */
#define SIM_MEM_MAX_BYTES (INT64_C(1) << 30) /* cached bytes per thread, at most */

union sim_mem_head {
  size_t cap; /* usable bytes after the header */
  max_align_t align;
};

static _Thread_local struct {
  union sim_mem_head *blk[SIM_MEM_SLOTS];
  int n;
  int64_t bytes;
  int keyed; /* the exit destructor is registered for this thread */
} cache;

static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void drop_all(void *unused) {
  (void)unused;
  for (int i = 0; i < cache.n; i++)
    pl_free(cache.blk[i]);
  cache.n = 0;
  cache.bytes = 0;
}

static void make_key(void) {
  if (pthread_key_create(&cache_key, drop_all) != 0)
    cache_key = 0;
}

/* Remove and return the smallest cached block of at least bytes, or NULL. */
static union sim_mem_head *take(size_t bytes) {
  int best = -1;
  for (int i = 0; i < cache.n; i++)
    if (cache.blk[i]->cap >= bytes && (best < 0 || cache.blk[i]->cap < cache.blk[best]->cap))
      best = i;
  if (best < 0)
    return NULL;
  union sim_mem_head *h = cache.blk[best];
  cache.blk[best] = cache.blk[--cache.n];
  cache.bytes -= (int64_t)h->cap;
  return h;
}

/* Keep h for later; when full, the smallest block makes room (or h goes). */
static void keep(union sim_mem_head *h) {
  if (!cache.keyed) {
    pthread_once(&cache_once, make_key);
    cache.keyed = pthread_setspecific(cache_key, &cache) == 0 ? 1 : -1;
  }
  if (cache.keyed < 0 || h->cap < SIM_MEM_MIN ||
      cache.bytes + (int64_t)h->cap > SIM_MEM_MAX_BYTES) {
    pl_free(h);
    return;
  }
  if (cache.n == SIM_MEM_SLOTS) {
    int small = 0;
    for (int i = 1; i < cache.n; i++)
      if (cache.blk[i]->cap < cache.blk[small]->cap)
        small = i;
    if (cache.blk[small]->cap >= h->cap) {
      pl_free(h);
      return;
    }
    cache.bytes -= (int64_t)cache.blk[small]->cap;
    pl_free(cache.blk[small]);
    cache.blk[small] = cache.blk[--cache.n];
  }
  cache.blk[cache.n++] = h;
  cache.bytes += (int64_t)h->cap;
}

void *sim_malloc(size_t bytes) {
  if (bytes == 0)
    bytes = 1;
  if (bytes > SIZE_MAX - sizeof(union sim_mem_head))
    return NULL;
  union sim_mem_head *h = bytes >= SIM_MEM_MIN ? take(bytes) : NULL;
  if (h == NULL) {
    h = pl_malloc(sizeof *h + bytes);
    if (h == NULL)
      return NULL;
    h->cap = bytes;
  }
  return h + 1;
}

void *sim_calloc(size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size)
    return NULL;
  size_t bytes = count * size;
  void *p = sim_malloc(bytes);
  if (p != NULL)
    memset(p, 0, bytes > 0 ? bytes : 1);
  return p;
}

void *sim_realloc(void *ptr, size_t bytes) {
  if (ptr == NULL)
    return sim_malloc(bytes);
  union sim_mem_head *old = (union sim_mem_head *)ptr - 1;
  if (bytes <= old->cap)
    return ptr;
  void *p = sim_malloc(bytes);
  if (p == NULL)
    return NULL; /* ptr is still valid, as with realloc */
  memcpy(p, ptr, old->cap);
  keep(old);
  return p;
}

void *sim_reallocarray(void *ptr, size_t count, size_t size) {
  if (size != 0 && count > SIZE_MAX / size)
    return NULL;
  return sim_realloc(ptr, count * size);
}

void sim_free(void *ptr) {
  if (ptr != NULL)
    keep((union sim_mem_head *)ptr - 1);
}
