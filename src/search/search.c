/* search.c: rank the layouts that fit, best first, simulating as few as the
 * bound allows (docs/search.md, "Ranking" and "Pruning").
 *
 * Candidates are sorted by their score bound, best first, and simulated in
 * chunks of SEARCH_CHUNK. Before each chunk the K-th best score so far is the
 * bar: a candidate whose bound is below the bar (or equal to it and later in
 * enumeration order, which loses the tie) cannot enter the top K and is
 * skipped. Because candidates come in bound order, the first one below the
 * bar ends the search. The chunk size does not depend on threads or ranks,
 * so neither do the layouts simulated, the counts, or the results. Ties in
 * score are broken by enumeration order: the earlier layout ranks first. */
#include "search_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

/* Candidates simulated between two updates of the bar. */
#define SEARCH_CHUNK 64
/* Relative slack on the bound: the simulator and the bound round in
 * different places, so a bound equal to a score up to rounding is kept. */
#define SEARCH_BOUND_SLACK 1e-9

static const char *const reject_names[] = {
#define PL_REJECT_NAME(name, key) key,
    PL_REJECT_MAP(PL_REJECT_NAME)
#undef PL_REJECT_NAME
};

const char *pl_reject_name(enum pl_reject r) {
  return (unsigned)r < PL_REJECT_N ? reject_names[r] : "unknown";
}

double pl_search_objective(const struct pl_prediction *p, enum pl_objective obj,
                           double gpu_hour_usd) {
  if (obj == PL_OBJECTIVE_COST) {
    double usd_per_s = (double)p->run.layout.gpus * gpu_hour_usd / 3600.0;
    return p->step.tokens_per_s > 0 ? usd_per_s / p->step.tokens_per_s * 1e6 : 0;
  }
  return search_score(p, obj, gpu_hour_usd);
}

/* Best first: higher bound, then earlier key. */
static int cmp_bound(const void *a, const void *b) {
  const struct search_cand *x = a, *y = b;
  if (x->ub != y->ub)
    return x->ub > y->ub ? -1 : 1;
  return x->key < y->key ? -1 : (x->key > y->key ? 1 : 0);
}

/* One simulated candidate. */
struct eval_rec {
  enum pl_status status;
  char msg[256];
  double score;
  struct pl_prediction pred;
};

struct top {
  struct eval_rec *rec;      /* K slots, best first */
  int64_t *key;
  int64_t n, k;
};

static bool better(double s1, int64_t k1, double s2, int64_t k2) {
  return s1 > s2 || (s1 == s2 && k1 < k2);
}

static void top_insert(struct top *t, const struct eval_rec *r, int64_t key) {
  int64_t pos = t->n;
  while (pos > 0 && better(r->score, key, t->rec[pos - 1].score, t->key[pos - 1]))
    pos--;
  if (pos >= t->k)
    return;
  int64_t last = t->n < t->k ? t->n : t->k - 1;
  memmove(&t->rec[pos + 1], &t->rec[pos], (size_t)(last - pos) * sizeof *t->rec);
  memmove(&t->key[pos + 1], &t->key[pos], (size_t)(last - pos) * sizeof *t->key);
  t->rec[pos] = *r;
  t->key[pos] = key;
  if (t->n < t->k)
    t->n++;
}

/* Can a candidate with this bound still enter the top K? */
static bool may_enter(const struct top *t, const struct search_cand *c) {
  if (t->n < t->k)
    return true;
  double ub = c->ub * (1 + SEARCH_BOUND_SLACK);
  const struct eval_rec *bar = &t->rec[t->k - 1];
  return better(ub, c->key, bar->score, t->key[t->k - 1]);
}

struct eval_job {
  const struct search_ctx *ctx;
  const struct pl_run *base;
  const struct search_cand *cands;
  const int64_t *idx;        /* chunk: indexes into cands */
};

static void eval_item(void *arg, int64_t i, void *out) {
  struct eval_job *job = arg;
  struct eval_rec *r = out;
  struct pl_run run;
  struct pl_diag d;
  pl_diag_clear(&d);
  run.model = job->base->model;
  run.cluster = job->base->cluster;
  run.train = job->ctx->train;
  run.framework = job->base->framework;
  search_cand_layout(job->ctx, &job->cands[job->idx[i]], &run.layout);
  r->status = pl_predict(&run, &r->pred, &d);
  snprintf(r->msg, sizeof r->msg, "%.255s", d.msg);
  r->score = r->status == PL_OK && r->pred.step.simulated
                 ? search_score(&r->pred, job->ctx->objective, job->ctx->gpu_hour_usd)
                 : 0;
}

struct ranker {
  const struct search_ctx *ctx;
  const struct pl_run *base;
  const struct pl_search_opts *opts;
  struct search_space_out *space;
  struct pl_search_result *res;
  struct top top;
  int64_t idx[SEARCH_CHUNK];
  struct eval_rec *recs;     /* SEARCH_CHUNK */
};

/* Pick the next chunk from position *pos; returns its size. */
static int pick_chunk(struct ranker *rk, int64_t *pos) {
  int n = 0;
  while (*pos < rk->space->n_cands && n < SEARCH_CHUNK) {
    const struct search_cand *c = &rk->space->cands[*pos];
    if (!rk->opts->exhaustive && !may_enter(&rk->top, c)) {
      if (c->ub * (1 + SEARCH_BOUND_SLACK) < rk->top.rec[rk->top.k - 1].score) {
        rk->res->pruned += rk->space->n_cands - *pos;  /* all later bounds are lower */
        *pos = rk->space->n_cands;
        break;
      }
      rk->res->pruned++;
      ++*pos;
      continue;
    }
    rk->idx[n++] = (*pos)++;
  }
  return n;
}

static enum pl_status take_chunk(struct ranker *rk, int n, struct pl_diag *diag) {
  for (int i = 0; i < n; i++) {
    const struct eval_rec *r = &rk->recs[i];
    const struct search_cand *c = &rk->space->cands[rk->idx[i]];
    if (r->status == PL_ERR_LIMIT) {
      /* One layout too large to simulate (e.g. 131,072 micro-batches) is
       * counted with its reason; the others are still ranked. */
      rk->res->rejected[PL_REJECT_SIMULATION]++;
      continue;
    }
    if (r->status != PL_OK)
      return pl_diag_set(diag, r->status, "%s", r->msg);
    if (!r->pred.step.simulated) {
      rk->res->rejected[PL_REJECT_MEMORY]++;  /* the bound's memory check agreed; defensive */
      continue;
    }
    rk->res->evaluated++;
    top_insert(&rk->top, r, c->key);
  }
  return PL_OK;
}

static enum pl_status rank_all(struct ranker *rk, const struct pl_run *base, struct pl_diag *diag) {
  int64_t pos = 0;
  struct eval_job job = {rk->ctx, base, rk->space->cands, rk->idx};
  while (pos < rk->space->n_cands) {
    int n = pick_chunk(rk, &pos);
    if (n == 0)
      break;
    enum pl_status st = pl_par_map(rk->opts->par, n, sizeof *rk->recs, eval_item, &job, rk->recs, diag);
    if (st == PL_OK)
      st = take_chunk(rk, n, diag);
    if (st != PL_OK)
      return st;
    if (rk->opts->progress != NULL)
      rk->opts->progress(rk->opts->progress_ud, pos, rk->space->n_cands);
  }
  return PL_OK;
}

static enum pl_status check_opts(const struct pl_search_opts *o, struct pl_diag *diag) {
  if (o->top_k < 1 || o->top_k > SEARCH_MAX_TOP_K)
    return pl_diag_set(diag, PL_ERR_RANGE, "search: top %lld is outside 1..%d", (long long)o->top_k,
                       SEARCH_MAX_TOP_K);
  if (o->objective == PL_OBJECTIVE_COST && !(o->gpu_hour_usd > 0 && isfinite(o->gpu_hour_usd)))
    return pl_diag_set(diag, PL_ERR_MISSING, "search: the cost objective needs a GPU-hour price > 0");
  return PL_OK;
}

static enum pl_status fill_result(struct ranker *rk, struct pl_search_result *out,
                                  struct pl_diag *diag) {
  out->hits = pl_calloc(rk->top.n > 0 ? (size_t)rk->top.n : 1, sizeof *out->hits);
  if (out->hits == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory");
  for (int64_t i = 0; i < rk->top.n; i++) {
    out->hits[i].pred = rk->top.rec[i].pred;
    out->hits[i].index = rk->top.key[i];
    out->hits[i].objective =
        pl_search_objective(&out->hits[i].pred, rk->opts->objective, rk->opts->gpu_hour_usd);
  }
  out->n_hits = rk->top.n;
  out->considered = rk->space->considered;
  if (out->n_hits == 0 && rk->space->has_closest) {
    struct pl_run run;
    run.model = rk->ctx->model[0];
    run.cluster = rk->ctx->cluster[0];
    run.train = rk->ctx->train;
    run.framework = rk->base->framework;
    search_cand_layout(rk->ctx, &rk->space->closest, &run.layout);
    enum pl_status st = pl_predict(&run, &out->closest, diag);
    if (st != PL_OK)
      return st;
    out->has_closest = true;
  }
  for (int r = 0; r < PL_REJECT_N; r++) {
    out->rejected[r] += rk->space->rejected[r];
    out->rejected_total += out->rejected[r];
  }
  return PL_OK;
}

static enum pl_status run_ranker(struct ranker *rk, const struct pl_run *base,
                                 struct pl_search_result *out, struct pl_diag *diag) {
  int64_t k = rk->opts->top_k;
  rk->base = base;
  rk->top.k = k;
  rk->top.rec = pl_calloc((size_t)k, sizeof *rk->top.rec);
  rk->top.key = pl_calloc((size_t)k, sizeof *rk->top.key);
  rk->recs = pl_calloc(SEARCH_CHUNK, sizeof *rk->recs);
  enum pl_status st = PL_OK;
  if (rk->top.rec == NULL || rk->top.key == NULL || rk->recs == NULL)
    st = pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory for the top %lld", (long long)k);
  if (st == PL_OK) {
    qsort(rk->space->cands, (size_t)rk->space->n_cands, sizeof *rk->space->cands, cmp_bound);
    st = rank_all(rk, base, diag);
  }
  if (st == PL_OK)
    st = fill_result(rk, out, diag);
  pl_free(rk->recs);
  pl_free(rk->top.key);
  pl_free(rk->top.rec);
  return st;
}

enum pl_status pl_search_run(const struct pl_run *base, const struct pl_search_opts *opts,
                             struct pl_search_result *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  enum pl_status st = check_opts(opts, diag);
  if (st != PL_OK)
    return st;
  struct search_ctx ctx;
  st = search_ctx_init(&ctx, base, opts, diag);
  if (st != PL_OK)
    return st;
  struct search_space_out space;
  st = search_enumerate(&ctx, opts->par, &space, diag);
  if (st == PL_OK) {
    struct ranker rk;
    memset(&rk, 0, sizeof rk);
    rk.ctx = &ctx;
    rk.opts = opts;
    rk.space = &space;
    rk.res = out;
    st = run_ranker(&rk, base, out, diag);
    pl_free(space.cands);
  }
  search_ctx_free(&ctx);
  if (st != PL_OK)
    pl_search_result_free(out);
  return st;
}

void pl_search_result_free(struct pl_search_result *r) {
  if (r == NULL)
    return;
  pl_free(r->hits);
  r->hits = NULL;
  r->n_hits = 0;
}
