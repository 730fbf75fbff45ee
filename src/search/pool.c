/* pool.c: a fixed pool of worker threads that runs one indexed job at a time.
 *
 * search_pool_run(pool, n, fn, ctx) calls fn(ctx, i) once for every i in
 * [0, n), the calling thread working alongside the workers; items are claimed
 * from one atomic counter, so load balances itself. Each call to fn must
 * write only its own output slot: then results do not depend on which thread
 * ran which item, and a run is deterministic whatever the thread count.
 * Assumes POSIX threads and C11 atomics. */
#define _POSIX_C_SOURCE 200809L
#include "search_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <plateau/alloc.h>

struct search_pool {
  int n_workers;             /* threads besides the caller */
  pthread_t *workers;
  pthread_mutex_t mu;
  pthread_cond_t wake;       /* a new job or quit */
  pthread_cond_t done;       /* a worker finished the job */
  uint64_t generation;       /* counts jobs, so workers see each once */
  int busy;                  /* workers still on the current job */
  bool quit;
  search_pool_fn fn;
  void *ctx;
  int64_t n_items;
  atomic_llong next;         /* next unclaimed item */
};

static void drain(struct search_pool *p) {
  for (;;) {
    long long i = atomic_fetch_add(&p->next, 1);
    if (i >= p->n_items)
      return;
    p->fn(p->ctx, (int64_t)i);
  }
}

static void *worker_main(void *arg) {
  struct search_pool *p = arg;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->quit && p->generation == seen)
      pthread_cond_wait(&p->wake, &p->mu);
    if (p->quit)
      break;
    seen = p->generation;
    pthread_mutex_unlock(&p->mu);
    drain(p);
    pthread_mutex_lock(&p->mu);
    if (--p->busy == 0)
      pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

static void stop_workers(struct search_pool *p, int started) {
  pthread_mutex_lock(&p->mu);
  p->quit = true;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < started; i++)
    pthread_join(p->workers[i], NULL);
}

/* Free a pool whose threads are not running (stopped, or never started). */
static void search_pool_free_started(struct search_pool *p);

enum pl_status search_pool_new(int threads, struct search_pool **out, struct pl_diag *diag) {
  struct search_pool *p = pl_calloc(1, sizeof *p);
  int n = threads > 1 ? threads - 1 : 0;
  if (p == NULL || (n > 0 && (p->workers = pl_calloc((size_t)n, sizeof *p->workers)) == NULL)) {
    pl_free(p);
    return pl_diag_set(diag, PL_ERR_NOMEM, "thread pool: out of memory");
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->wake, NULL);
  pthread_cond_init(&p->done, NULL);
  atomic_init(&p->next, 0);
  for (int i = 0; i < n; i++) {
    if (pthread_create(&p->workers[i], NULL, worker_main, p) != 0) {
      stop_workers(p, i);
      search_pool_free_started(p);
      return pl_diag_set(diag, PL_ERR_INTERNAL, "thread pool: cannot start thread %d of %d", i + 1,
                         threads);
    }
    p->n_workers = i + 1;
  }
  *out = p;
  return PL_OK;
}

static void search_pool_free_started(struct search_pool *p) {
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->mu);
  pl_free(p->workers);
  pl_free(p);
}

void search_pool_free(struct search_pool *p) {
  if (p == NULL)
    return;
  stop_workers(p, p->n_workers);
  search_pool_free_started(p);
}

void search_pool_run(struct search_pool *p, int64_t n, search_pool_fn fn, void *ctx) {
  if (p == NULL || p->n_workers == 0 || n < 2) {
    for (int64_t i = 0; i < n; i++)
      fn(ctx, i);
    return;
  }
  pthread_mutex_lock(&p->mu);
  p->fn = fn;
  p->ctx = ctx;
  p->n_items = n;
  atomic_store(&p->next, 0);
  p->busy = p->n_workers;
  p->generation++;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->mu);
  drain(p);
  pthread_mutex_lock(&p->mu);
  while (p->busy > 0)
    pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}
