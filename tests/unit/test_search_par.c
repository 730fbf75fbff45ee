/* test_search_par.c: results do not depend on how the work is spread. The
 * same parallel map and the same search run serially, on 3 threads, and on
 * 2 "ranks" (two threads of this process joined by an allgather built on a
 * barrier, which stands in for MPI so this runs in every build). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <string.h>

#include <plateau/plateau.h>

#include "check.h"

/* ---- a two-rank world inside one process ---- */

struct world {
  pthread_barrier_t bar;
  const void *buf[2];
  size_t len[2];
};

struct rank_ud {
  struct world *w;
  int rank;
};

static enum pl_status fake_allgather(void *ud, const void *mine, size_t len, void **all,
                                     size_t *lens, struct pl_diag *diag) {
  struct rank_ud *r = ud;
  struct world *w = r->w;
  w->buf[r->rank] = mine;
  w->len[r->rank] = len;
  pthread_barrier_wait(&w->bar);
  char *out = pl_malloc(w->len[0] + w->len[1]);
  if (out == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "fake allgather: out of memory");
  if (w->len[0] > 0)
    memcpy(out, w->buf[0], w->len[0]);
  if (w->len[1] > 0)
    memcpy(out + w->len[0], w->buf[1], w->len[1]);
  lens[0] = w->len[0];
  lens[1] = w->len[1];
  *all = out;
  pthread_barrier_wait(&w->bar); /* both copied before either buffer changes */
  return PL_OK;
}

/* ---- a map whose items cost different amounts ---- */

static void square_item(void *ctx, int64_t i, void *out) {
  (void)ctx;
  double v = 0;
  for (int64_t k = 0; k <= i % 97; k++)
    v += (double)(i * k) * 0.5;
  memcpy(out, &v, sizeof v);
}

struct map_job {
  struct rank_ud ud;
  int64_t n;
  double out[1000];
  enum pl_status st;
};

static void *map_rank(void *arg) {
  struct map_job *j = arg;
  struct pl_par_dist dist = {j->ud.rank, 2, fake_allgather, &j->ud};
  struct pl_par *par = NULL;
  struct pl_diag d;
  j->st = pl_par_new(2, &dist, &par, &d);
  if (j->st == PL_OK)
    j->st = pl_par_map(par, j->n, sizeof(double), square_item, NULL, j->out, &d);
  pl_par_free(par);
  return NULL;
}

static void test_map(void) {
  static double serial[1000], threaded[1000];
  struct pl_diag d;
  struct pl_par *par = NULL;
  CHECK_STATUS(pl_par_map(NULL, 1000, sizeof(double), square_item, NULL, serial, &d), PL_OK, &d);
  CHECK_STATUS(pl_par_new(3, NULL, &par, &d), PL_OK, &d);
  CHECK_STATUS(pl_par_map(par, 1000, sizeof(double), square_item, NULL, threaded, &d), PL_OK, &d);
  CHECK(memcmp(serial, threaded, sizeof serial) == 0);
  pl_par_free(par);
  CHECK_STATUS(pl_par_new(0, NULL, &par, &d), PL_ERR_RANGE, &d);

  /* 2 ranks, n = 1000, 7 and 1 (fewer items than ranks). */
  static const int64_t sizes[] = {1000, 7, 1};
  for (size_t s = 0; s < 3; s++) {
    static struct world w;
    static struct map_job jobs[2];
    pthread_barrier_init(&w.bar, NULL, 2);
    pthread_t t[2];
    for (int r = 0; r < 2; r++) {
      memset(&jobs[r], 0, sizeof jobs[r]);
      jobs[r].ud.w = &w;
      jobs[r].ud.rank = r;
      jobs[r].n = sizes[s];
      pthread_create(&t[r], NULL, map_rank, &jobs[r]);
    }
    for (int r = 0; r < 2; r++)
      pthread_join(t[r], NULL);
    pthread_barrier_destroy(&w.bar);
    for (int r = 0; r < 2; r++) {
      CHECK_EQ_INT(jobs[r].st, PL_OK);
      CHECK(memcmp(jobs[r].out, serial, (size_t)sizes[s] * sizeof(double)) == 0);
    }
  }
}

/* ---- a whole search ---- */

static struct pl_run run;

static void setup_run(void) {
  struct pl_diag d;
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_load("llama2-7b", &run.model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, &d);
  run.layout.gpus = 16;
  run.layout.gbs = 32;
}

static void search_opts(struct pl_search_opts *o) {
  memset(o, 0, sizeof *o);
  o->top_k = 5;
  o->space.recompute_mask = 1u << PL_RECOMPUTE_NONE; /* keep the test small */
  o->space.mbs = 1;
}

struct search_job {
  struct rank_ud ud;
  struct pl_search_result res;
  enum pl_status st;
};

static void *search_rank(void *arg) {
  struct search_job *j = arg;
  struct pl_par_dist dist = {j->ud.rank, 2, fake_allgather, &j->ud};
  struct pl_par *par = NULL;
  struct pl_diag d;
  struct pl_search_opts o;
  search_opts(&o);
  j->st = pl_par_new(1, &dist, &par, &d);
  o.par = par;
  if (j->st == PL_OK)
    j->st = pl_search_run(&run, &o, &j->res, &d);
  pl_par_free(par);
  return NULL;
}

static void same_result(const struct pl_search_result *a, const struct pl_search_result *b) {
  CHECK_EQ_INT(a->considered, b->considered);
  CHECK_EQ_INT(a->rejected_total, b->rejected_total);
  CHECK_EQ_INT(a->pruned, b->pruned);
  CHECK_EQ_INT(a->evaluated, b->evaluated);
  CHECK_EQ_INT(a->n_hits, b->n_hits);
  for (int64_t i = 0; i < a->n_hits && i < b->n_hits; i++) {
    CHECK_EQ_INT(a->hits[i].index, b->hits[i].index);
    CHECK(memcmp(&a->hits[i].pred.step, &b->hits[i].pred.step, sizeof a->hits[i].pred.step) == 0);
  }
}

static void test_search_spread(void) {
  setup_run();
  struct pl_search_opts o;
  struct pl_search_result serial, threaded;
  struct pl_diag d;
  search_opts(&o);
  CHECK_STATUS(pl_search_run(&run, &o, &serial, &d), PL_OK, &d);
  CHECK(serial.n_hits == 5);
  CHECK_EQ_INT(serial.considered, serial.rejected_total + serial.pruned + serial.evaluated);
  struct pl_par *par = NULL;
  CHECK_STATUS(pl_par_new(3, NULL, &par, &d), PL_OK, &d);
  o.par = par;
  CHECK_STATUS(pl_search_run(&run, &o, &threaded, &d), PL_OK, &d);
  pl_par_free(par);
  same_result(&serial, &threaded);
  pl_search_result_free(&threaded);

  static struct world w;
  static struct search_job jobs[2];
  pthread_barrier_init(&w.bar, NULL, 2);
  pthread_t t[2];
  for (int r = 0; r < 2; r++) {
    memset(&jobs[r], 0, sizeof jobs[r]);
    jobs[r].ud.w = &w;
    jobs[r].ud.rank = r;
    pthread_create(&t[r], NULL, search_rank, &jobs[r]);
  }
  for (int r = 0; r < 2; r++)
    pthread_join(t[r], NULL);
  pthread_barrier_destroy(&w.bar);
  for (int r = 0; r < 2; r++) {
    CHECK_EQ_INT(jobs[r].st, PL_OK);
    same_result(&serial, &jobs[r].res);
    pl_search_result_free(&jobs[r].res);
  }
  pl_search_result_free(&serial);
}

int main(void) {
  test_map();
  test_search_spread();
  return check_finish();
}
