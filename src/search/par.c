/* par.c: spread indexed work over this process's threads and, when the caller
 * supplies an allgather (MPI), over ranks.
 *
 * Item i of n goes to rank i % nranks (a stride balances cheap and dear items
 * better than blocks); within a rank the thread pool takes items from a
 * shared counter. Each item writes only its own output slot, so outputs do
 * not depend on threads or ranks, and the gather puts every slot back in
 * place on every rank. */
#include "search_int.h"

#include <string.h>

#include <plateau/alloc.h>

struct pl_par {
  struct search_pool *pool;
  struct pl_par_dist dist;   /* nranks 1 and no allgather without MPI */
};

enum pl_status pl_par_new(int threads, const struct pl_par_dist *dist, struct pl_par **out,
                          struct pl_diag *diag) {
  if (threads < 1)
    return pl_diag_set(diag, PL_ERR_RANGE, "threads %d: need at least 1", threads);
  if (dist != NULL && (dist->nranks < 1 || dist->rank < 0 || dist->rank >= dist->nranks ||
                       (dist->nranks > 1 && dist->allgather == NULL)))
    return pl_diag_set(diag, PL_ERR_RANGE, "rank %d of %d: not a valid place", dist->rank,
                       dist->nranks);
  struct pl_par *p = pl_calloc(1, sizeof *p);
  if (p == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "parallel runner: out of memory");
  p->dist.nranks = 1;
  if (dist != NULL)
    p->dist = *dist;
  enum pl_status st = search_pool_new(threads, &p->pool, diag);
  if (st != PL_OK) {
    pl_free(p);
    return st;
  }
  *out = p;
  return PL_OK;
}

void pl_par_free(struct pl_par *par) {
  if (par == NULL)
    return;
  search_pool_free(par->pool);
  pl_free(par);
}

int pl_par_rank(const struct pl_par *par) { return par ? par->dist.rank : 0; }
int pl_par_nranks(const struct pl_par *par) { return par ? par->dist.nranks : 1; }
struct search_pool *search_par_pool(struct pl_par *par) { return par ? par->pool : NULL; }

enum pl_status search_par_allgather(struct pl_par *par, const void *mine, size_t len, void **all,
                                    size_t *lens, struct pl_diag *diag) {
  if (par == NULL || par->dist.nranks == 1) {
    *all = pl_malloc(len);
    if (*all == NULL)
      return pl_diag_set(diag, PL_ERR_NOMEM, "gather: out of memory for %zu bytes", len);
    if (len > 0)
      memcpy(*all, mine, len);
    lens[0] = len;
    return PL_OK;
  }
  return par->dist.allgather(par->dist.ud, mine, len, all, lens, diag);
}

/* The items of one rank: i = rank + j * nranks. */
struct rank_job {
  pl_par_fn fn;
  void *ctx;
  char *out;
  size_t item_size;
  int64_t rank, nranks;
};

static void run_rank_item(void *arg, int64_t j) {
  struct rank_job *job = arg;
  job->fn(job->ctx, job->rank + j * job->nranks, job->out + (size_t)j * job->item_size);
}

static int64_t items_of_rank(int64_t n, int64_t rank, int64_t nranks) {
  return rank < n ? (n - rank + nranks - 1) / nranks : 0;
}

/* Put each rank's outputs back at their item positions. */
static enum pl_status scatter_back(const char *all, const size_t *lens, int64_t n, int64_t nranks,
                                   size_t item_size, char *out, struct pl_diag *diag) {
  size_t off = 0;
  for (int64_t r = 0; r < nranks; r++) {
    int64_t cnt = items_of_rank(n, r, nranks);
    if (lens[r] != (size_t)cnt * item_size)
      return pl_diag_set(diag, PL_ERR_INTERNAL, "gather: rank %lld sent %zu bytes, expected %zu",
                         (long long)r, lens[r], (size_t)cnt * item_size);
    for (int64_t j = 0; j < cnt; j++)
      memcpy(out + (size_t)(r + j * nranks) * item_size, all + off + (size_t)j * item_size,
             item_size);
    off += lens[r];
  }
  return PL_OK;
}

enum pl_status pl_par_map(struct pl_par *par, int64_t n, size_t item_size, pl_par_fn fn,
                          void *ctx, void *out, struct pl_diag *diag) {
  int64_t nranks = pl_par_nranks(par), rank = pl_par_rank(par);
  if (nranks == 1) {
    struct rank_job job = {fn, ctx, out, item_size, 0, 1};
    search_pool_run(search_par_pool(par), n, run_rank_item, &job);
    return PL_OK;
  }
  int64_t mine = items_of_rank(n, rank, nranks);
  char *buf = pl_calloc(mine > 0 ? (size_t)mine : 1, item_size);
  size_t *lens = pl_calloc((size_t)nranks, sizeof *lens);
  void *all = NULL;
  enum pl_status st = PL_OK;
  if (buf == NULL || lens == NULL) {
    /* Still take part in the gather so the other ranks do not wait forever. */
    st = pl_diag_set(diag, PL_ERR_NOMEM, "parallel map: out of memory for %lld items",
                     (long long)mine);
    mine = 0;
  }
  struct rank_job job = {fn, ctx, buf, item_size, rank, nranks};
  search_pool_run(search_par_pool(par), mine, run_rank_item, &job);
  enum pl_status gst = PL_OK;
  if (lens != NULL)
    gst = search_par_allgather(par, buf, (size_t)mine * item_size, &all, lens, diag);
  if (st == PL_OK)
    st = gst;
  if (st == PL_OK)
    st = scatter_back(all, lens, n, nranks, item_size, out, diag);
  pl_free(all);
  pl_free(lens);
  pl_free(buf);
  return st;
}
