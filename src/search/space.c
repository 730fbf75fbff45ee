/* space.c: the space of parallel layouts for a fixed world size and global
 * batch, enumerated in one fixed order (docs/search.md, "The space").
 *
 * Degrees come first: every (tp, pp, cp) whose product divides the GPUs, dp
 * the rest, and for an MoE model every expert-parallel degree ep (add_ep_tuples). Inside a degree tuple: the micro-batch over the divisors of gbs,
 * recompute none/selective/full, the shard configuration (ddp; then zero1,
 * zero2, zero3 each over a shard group g dividing dp with g > 1, g = dp being
 * plain FSDP/ZeRO and g < dp hybrid sharding; g = 1 only when dp = 1), and
 * the schedule: 1f1b alone when pp = 1, else 1f1b, gpipe, then interleaved
 * with each vp > 1 dividing layers / pp. Each layout gets the first reason
 * in PL_REJECT_MAP's order that rules it out (the rules are Megatron-LM's,
 * as src/model/layout.c applies them, which stays the final judge), or its
 * memory and a bound on its step time when it fits.
 *
 * Degree tuples are the unit of parallel work: tuple i goes to rank
 * i % nranks, threads share a rank's tuples, and the results are put back in
 * tuple order, so the output does not depend on how the work was spread. */
#include "search_int.h"

#include <string.h>

#include <plateau/alloc.h>
#include <plateau/memory.h>

/* Ascending divisors of n (n >= 1) into a new array. */
static enum pl_status divisors(int64_t n, int64_t **out, int64_t *count, struct pl_diag *diag) {
  int64_t lo[SEARCH_MAX_DIVISORS], hi[SEARCH_MAX_DIVISORS];
  int64_t nlo = 0, nhi = 0;
  for (int64_t d = 1; d * d <= n; d++) {
    if (n % d != 0)
      continue;
    if (nlo >= SEARCH_MAX_DIVISORS / 2)
      return pl_diag_set(diag, PL_ERR_LIMIT, "%lld has too many divisors to search", (long long)n);
    lo[nlo++] = d;
    if (d != n / d)
      hi[nhi++] = n / d;
  }
  int64_t *v = pl_calloc((size_t)(nlo + nhi), sizeof *v);
  if (v == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory");
  memcpy(v, lo, (size_t)nlo * sizeof *v);
  for (int64_t i = 0; i < nhi; i++)
    v[nlo + i] = hi[nhi - 1 - i];
  *out = v;
  *count = nlo + nhi;
  return PL_OK;
}

static bool fixed_ok(int64_t want, int64_t v) { return want <= 0 || want == v; }

static enum pl_status add_tuple(struct search_ctx *ctx, int64_t *cap, struct search_tuple t,
                                struct pl_diag *diag) {
  if (ctx->n_tuples >= SEARCH_MAX_TUPLES)
    return pl_diag_set(diag, PL_ERR_LIMIT, "search: more than %d (tp, pp, cp) tuples for %lld GPUs",
                       SEARCH_MAX_TUPLES, (long long)ctx->gpus);
  if (ctx->n_tuples == *cap) {
    int64_t ncap = *cap ? 2 * *cap : 64;
    void *p = pl_reallocarray(ctx->tuples, (size_t)ncap, sizeof *ctx->tuples);
    if (p == NULL)
      return pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory");
    ctx->tuples = p;
    *cap = ncap;
  }
  ctx->tuples[ctx->n_tuples++] = t;
  return PL_OK;
}

/* A degree tuple for each expert-parallel degree of an MoE model: every ep
 * dividing the experts with etp * ep dividing the GPUs of a stage (the
 * rules of src/model/layout.c, resolve_experts); the run's --ep when given;
 * ep = 1 alone for a dense model. */
static enum pl_status add_ep_tuples(struct search_ctx *ctx, int64_t *cap, struct search_tuple t,
                                    struct pl_diag *diag) {
  const struct pl_model *m = ctx->model;
  if (!pl_model_is_moe(m))
    return add_tuple(ctx, cap, t, diag);
  int64_t etp = ctx->tmpl.etp > 0 ? ctx->tmpl.etp : 1, stage = ctx->gpus / t.pp;
  for (int64_t ep = 1; ep <= m->experts && etp * ep <= stage; ep++) {
    if (m->experts % ep != 0 || stage % (etp * ep) != 0 || !fixed_ok(ctx->tmpl.ep, ep))
      continue;
    t.ep = ep;
    enum pl_status st = add_tuple(ctx, cap, t, diag);
    if (st != PL_OK)
      return st;
  }
  return PL_OK;
}

static enum pl_status build_tuples(struct search_ctx *ctx, struct pl_diag *diag) {
  const struct pl_search_space *s = &ctx->space;
  int64_t cap = 0;
  for (int64_t a = 0; a < ctx->n_div_gpus; a++) {
    int64_t tp = ctx->div_gpus[a];
    for (int64_t b = 0; b < ctx->n_div_gpus && fixed_ok(s->tp, tp); b++) {
      int64_t pp = ctx->div_gpus[b];
      if ((ctx->gpus / tp) % pp != 0 || !fixed_ok(s->pp, pp))
        continue;
      for (int64_t c = 0; c < ctx->n_div_gpus; c++) {
        int64_t cp = ctx->div_gpus[c];
        if ((ctx->gpus / tp / pp) % cp != 0 || !fixed_ok(s->cp, cp))
          continue;
        struct search_tuple t = {tp, pp, cp, ctx->gpus / tp / pp / cp, 1};
        if (!fixed_ok(s->dp, t.dp))
          continue;
        enum pl_status st = add_ep_tuples(ctx, &cap, t, diag);
        if (st != PL_OK)
          return st;
      }
    }
  }
  return PL_OK;
}

/* Resolve the run's size: gpus, gbs and seq as pl_layout_resolve would. */
static enum pl_status resolve_size(struct search_ctx *ctx, const struct pl_run *base,
                                   struct pl_diag *diag) {
  const struct pl_layout *l = &base->layout;
  int64_t per_node = base->cluster.gpus_per_node > 0 ? base->cluster.gpus_per_node : 1;
  if (l->gpus <= 0 && l->nodes > PL_LAYOUT_MAX_GPUS / per_node) /* before nodes * per_node */
    return pl_diag_set(diag, PL_ERR_LIMIT, "search: %lld nodes is above the limit of %lld",
                       (long long)l->nodes, (long long)(PL_LAYOUT_MAX_GPUS / per_node));
  ctx->gpus = l->gpus > 0 ? l->gpus : (l->nodes > 0 ? l->nodes * per_node : per_node);
  if (ctx->gpus > PL_LAYOUT_MAX_GPUS)
    return pl_diag_set(diag, PL_ERR_LIMIT, "search: %lld GPUs is above the limit of %lld",
                       (long long)ctx->gpus, (long long)PL_LAYOUT_MAX_GPUS);
  int64_t bpg = l->batch_per_gpu > 0 ? l->batch_per_gpu : 1;
  if (l->gbs <= 0 && bpg > INT32_MAX / ctx->gpus)
    return pl_diag_set(diag, PL_ERR_LIMIT, "search: global batch above the limit of %d", INT32_MAX);
  ctx->gbs = l->gbs > 0 ? l->gbs : bpg * ctx->gpus;
  if (ctx->gbs > INT32_MAX)
    return pl_diag_set(diag, PL_ERR_LIMIT, "search: global batch %lld is above the limit of %d",
                       (long long)ctx->gbs, INT32_MAX);
  ctx->seq = l->seq > 0 ? l->seq : base->model.seq_len;
  ctx->dtype = l->dtype;
  if (ctx->dtype != PL_DTYPE_BF16 && pl_gpu_peak_flops_per_s(&base->cluster.gpu, ctx->dtype) <= 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "search: dtype %s needs %s tensor cores, which gpu '%s' lacks; use "
                       "--dtype bf16",
                       pl_dtype_name(ctx->dtype), pl_dtype_hw_name(ctx->dtype),
                       base->cluster.gpu.name);
  ctx->tokens_per_step = (double)ctx->gbs * (double)ctx->seq;
  return PL_OK;
}

static enum pl_status check_fixed(const struct search_ctx *ctx, struct pl_diag *diag) {
  const struct pl_search_space *s = &ctx->space;
  const char *names[] = {"tp", "pp", "cp", "dp"};
  const int64_t vals[] = {s->tp, s->pp, s->cp, s->dp};
  for (int i = 0; i < 4; i++)
    if (vals[i] > 0 && ctx->gpus % vals[i] != 0)
      return pl_diag_set(diag, PL_ERR_LAYOUT, "search: %s=%lld does not divide %lld GPUs", names[i],
                         (long long)vals[i], (long long)ctx->gpus);
  if (s->mbs > 0 && ctx->gbs % s->mbs != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT, "search: mbs=%lld does not divide the global batch %lld",
                       (long long)s->mbs, (long long)ctx->gbs);
  return PL_OK;
}

/* Keep the base layout's other inputs (attention kind, sequence parallelism
 * off, and whatever is added later); clear what the search decides. */
static void make_template(struct search_ctx *ctx, const struct pl_layout *base) {
  struct pl_layout *t = &ctx->tmpl;
  *t = *base;
  t->gpus = ctx->gpus;
  t->nodes = t->dp = t->micro_batches = t->batch_per_gpu = 0;
  t->gbs = ctx->gbs;
  t->seq = ctx->seq;
  t->sp = false;
  t->shard_set = true;
}

enum pl_status search_ctx_init(struct search_ctx *ctx, const struct pl_run *base,
                               const struct pl_search_opts *opts, struct pl_diag *diag) {
  memset(ctx, 0, sizeof *ctx);
  ctx->model = &base->model;
  ctx->cluster = &base->cluster;
  ctx->train = base->train;
  ctx->space = opts->space;
  ctx->objective = opts->objective;
  ctx->gpu_hour_usd = opts->gpu_hour_usd;
  enum pl_status st = resolve_size(ctx, base, diag);
  if (st == PL_OK) {
    ctx->placed = base->cluster;
    pl_cluster_place(&ctx->placed, ctx->gpus);
    ctx->cluster = &ctx->placed;
    st = check_fixed(ctx, diag);
  }
  if (st == PL_OK)
    make_template(ctx, &base->layout);
  if (st == PL_OK)
    pl_framework_apply(&base->framework, &ctx->tmpl);
  if (st == PL_OK)
    st = divisors(ctx->gpus, &ctx->div_gpus, &ctx->n_div_gpus, diag);
  if (st == PL_OK)
    st = divisors(ctx->gbs, &ctx->div_gbs, &ctx->n_div_gbs, diag);
  if (st == PL_OK)
    st = build_tuples(ctx, diag);
  if (st != PL_OK)
    search_ctx_free(ctx);
  return st;
}

void search_ctx_free(struct search_ctx *ctx) {
  pl_free(ctx->div_gpus);
  pl_free(ctx->div_gbs);
  pl_free(ctx->tuples);
  ctx->div_gpus = ctx->div_gbs = NULL;
  ctx->tuples = NULL;
}

void search_cand_layout(const struct search_ctx *ctx, const struct search_cand *c,
                        struct pl_layout *l) {
  *l = ctx->tmpl;
  l->tp = c->tp;
  l->ep = c->ep;
  l->pp = c->pp;
  l->cp = c->cp;
  l->vp = c->vp;
  l->shard = (enum pl_shard)c->shard;
  l->shard_group = c->shard_group;
  l->mbs = c->mbs;
  l->recompute = (enum pl_recompute)c->recompute;
  l->schedule = (enum pl_schedule)c->schedule;
}

/* ---- one degree tuple ---- */

struct tuple_out {
  enum pl_status status;
  int64_t considered;
  int64_t rejected[PL_REJECT_N];
  bool has_closest;          /* the first layout needing the least memory of those that do not fit */
  double closest_bytes;
  struct search_cand closest;
  struct search_cand *cands;
  int64_t n, cap;
};

/* The reason the degrees alone rule out, or PL_REJECT_N. */
static enum pl_reject degree_reason(const struct search_ctx *ctx, const struct search_tuple *t) {
  const struct pl_model *m = ctx->model;
  if (m->heads % t->tp != 0)
    return PL_REJECT_TP_HEADS;
  if (m->kv_heads % t->tp != 0)
    return PL_REJECT_TP_KV_HEADS;
  if (m->ffn_hidden % t->tp != 0)
    return PL_REJECT_TP_FFN;
  if (t->pp > m->layers)
    return PL_REJECT_PP_LAYERS;
  if (t->cp > 1 && ctx->seq % (2 * t->cp) != 0)
    return PL_REJECT_CP_SEQ;
  return PL_REJECT_N;
}

static bool push_cand(struct tuple_out *o, const struct search_cand *c) {
  if (o->n == o->cap) {
    int64_t ncap = o->cap ? 2 * o->cap : 64;
    void *p = pl_reallocarray(o->cands, (size_t)ncap, sizeof *o->cands);
    if (p == NULL)
      return false;
    o->cands = p;
    o->cap = ncap;
  }
  o->cands[o->n++] = *c;
  return true;
}

/* Bound inputs shared between layouts, computed for the first that fits:
 * compute and tp times per (tuple, mbs, recompute), dp times per (tuple,
 * shard mode, shard group). */
struct times_cache {
  bool seg_valid;                  /* tp times of this (mbs, recompute) */
  bool mode_valid[PL_SHARD_ZERO3 + 1]; /* seg times per shard mode */
  struct search_seg_times seg[PL_SHARD_ZERO3 + 1];
  struct search_times t;           /* seg and dp parts: copied from the above / below */
  int64_t dp_slot;                 /* mode * n_div_gpus + group index */
  bool *dp_valid;                  /* per slot */
  struct search_dp_times *dp;      /* per slot */
};

/* Check one layout of the tuple; record its reason or keep it. */
static void visit(const struct search_ctx *ctx, const struct search_tuple *t, enum pl_reject deg,
                  struct search_cand *c, struct times_cache *cache, struct tuple_out *o) {
  o->considered++;
  enum pl_reject why = deg;
  int64_t micro = 0;
  if (why == PL_REJECT_N && ctx->gbs % (t->dp * c->mbs) != 0)
    why = PL_REJECT_BATCH;
  if (why == PL_REJECT_N)
    micro = ctx->gbs / (t->dp * c->mbs);
  if (why == PL_REJECT_N && c->schedule == PL_SCHEDULE_INTERLEAVED && micro % t->pp != 0)
    why = PL_REJECT_INTERLEAVE;
  struct pl_layout l;
  if (why == PL_REJECT_N) {
    search_cand_layout(ctx, c, &l);
    if (pl_layout_resolve(&l, ctx->model, ctx->cluster, NULL) != PL_OK)
      why = PL_REJECT_LAYOUT;
  }
  if (why == PL_REJECT_N) {
    struct pl_memory mem;
    pl_memory_compute(ctx->model, &l, &ctx->cluster->gpu, &mem);
    if (!mem.fits) {
      why = PL_REJECT_MEMORY;
      if (!o->has_closest || mem.total_bytes < o->closest_bytes) {
        o->has_closest = true;
        o->closest_bytes = mem.total_bytes;
        o->closest = *c;
      }
    }
  }
  if (why != PL_REJECT_N) {
    o->rejected[why]++;
    return;
  }
  if (!cache->seg_valid) {
    search_tp_times(ctx, &l, &cache->t.tp);
    memset(cache->mode_valid, 0, sizeof cache->mode_valid);
    cache->seg_valid = true;
  }
  if (!cache->mode_valid[c->shard]) {
    search_seg_times(ctx, &l, &cache->seg[c->shard]);
    cache->mode_valid[c->shard] = true;
  }
  cache->t.seg = cache->seg[c->shard];
  if (!cache->dp_valid[cache->dp_slot]) {
    search_dp_times(ctx, &l, &cache->dp[cache->dp_slot]);
    cache->dp_valid[cache->dp_slot] = true;
  }
  cache->t.dp = cache->dp[cache->dp_slot];
  c->lb_step_s = search_step_lb_s(ctx, &l, &cache->t);
  c->ub = search_score_ub(ctx, &l, &cache->t, c->lb_step_s);
  if (!push_cand(o, c))
    o->status = PL_ERR_NOMEM;
}

/* Schedules of a tuple: (schedule, vp) pairs in enumeration order. */
struct sched_list {
  int n;
  uint8_t sched[256];  /* vp divides layers/pp <= 2^16: at most 120 divisors */
  int32_t vp[256];
};

static void add_sched(struct sched_list *s, enum pl_schedule sched, int64_t vp) {
  if (s->n >= 256)
    return;
  s->sched[s->n] = (uint8_t)sched;
  s->vp[s->n] = (int32_t)vp;
  s->n++;
}

static void schedules(const struct search_ctx *ctx, const struct search_tuple *t,
                      struct sched_list *out) {
  const struct pl_search_space *s = &ctx->space;
  unsigned mask = s->schedule_mask ? s->schedule_mask : ~0u;
  out->n = 0;
  if (t->pp == 1) {
    if (fixed_ok(s->vp, 1))
      add_sched(out, PL_SCHEDULE_1F1B, 1);
    return;
  }
  if ((mask & (1u << PL_SCHEDULE_1F1B)) && fixed_ok(s->vp, 1))
    add_sched(out, PL_SCHEDULE_1F1B, 1);
  if ((mask & (1u << PL_SCHEDULE_GPIPE)) && fixed_ok(s->vp, 1))
    add_sched(out, PL_SCHEDULE_GPIPE, 1);
  if (!(mask & (1u << PL_SCHEDULE_INTERLEAVED)) || ctx->model->layers % t->pp != 0)
    return;
  int64_t per = ctx->model->layers / t->pp;
  for (int64_t v = 2; v <= per; v++)
    if (per % v == 0 && fixed_ok(s->vp, v))
      add_sched(out, PL_SCHEDULE_INTERLEAVED, v);
}

static bool shard_group_ok(const struct search_ctx *ctx, int64_t dp, int64_t g) {
  int64_t want = ctx->space.shard_group;
  if (dp % g != 0 || (g == 1 && dp > 1))
    return false;
  return want == 0 || (want < 0 && g == dp) || want == g;
}

/* Shard configurations and schedules below one (mbs, recompute). */
static void shard_and_schedule(const struct search_ctx *ctx, const struct search_tuple *t,
                               enum pl_reject deg, const struct sched_list *sl,
                               struct search_cand *c, struct tuple_out *o, int64_t tuple_index,
                               struct times_cache *cache) {
  unsigned smask = ctx->space.shard_mask ? ctx->space.shard_mask : ~0u;
  cache->seg_valid = false;
  for (int mode = PL_SHARD_DDP; mode <= PL_SHARD_ZERO3; mode++) {
    if (!(smask & (1u << mode)))
      continue;
    for (int64_t g = 0; g < ctx->n_div_gpus; g++) {
      int64_t group = ctx->div_gpus[g];
      if (mode == PL_SHARD_DDP ? (group != 1 || ctx->space.shard_group > 1)
                               : !shard_group_ok(ctx, t->dp, group))
        continue;
      c->shard = (uint8_t)mode;
      c->shard_group = (int32_t)group;
      cache->dp_slot = mode * ctx->n_div_gpus + g;
      for (int k = 0; k < sl->n; k++) {
        c->schedule = sl->sched[k];
        c->vp = sl->vp[k];
        c->key = (tuple_index << 32) | o->considered;
        visit(ctx, t, deg, c, cache, o);
      }
    }
  }
}

static void enumerate_tuple(const struct search_ctx *ctx, int64_t i, struct tuple_out *o) {
  const struct search_tuple *t = &ctx->tuples[i];
  const struct pl_search_space *s = &ctx->space;
  enum pl_reject deg = degree_reason(ctx, t);
  /* the default search tries none, selective and full; ops only when asked */
  unsigned rmask = s->recompute_mask ? s->recompute_mask : (1u << (PL_RECOMPUTE_FULL + 1)) - 1;
  struct sched_list sl;
  schedules(ctx, t, &sl);
  struct search_cand c;
  memset(&c, 0, sizeof c);
  c.tp = (int32_t)t->tp;
  c.ep = (int32_t)t->ep;
  c.pp = (int32_t)t->pp;
  c.cp = (int32_t)t->cp;
  c.dp = (int32_t)t->dp;
  struct times_cache cache;
  memset(&cache, 0, sizeof cache);
  size_t slots = (size_t)(PL_SHARD_ZERO3 + 1) * (size_t)ctx->n_div_gpus;
  cache.dp_valid = pl_calloc(slots, sizeof *cache.dp_valid);
  cache.dp = pl_calloc(slots, sizeof *cache.dp);
  if (cache.dp_valid == NULL || cache.dp == NULL) {
    o->status = PL_ERR_NOMEM;
    pl_free(cache.dp_valid);
    pl_free(cache.dp);
    return;
  }
  for (int64_t b = 0; b < ctx->n_div_gbs; b++) {
    if (!fixed_ok(s->mbs, ctx->div_gbs[b]))
      continue;
    c.mbs = (int32_t)ctx->div_gbs[b];
    for (int r = PL_RECOMPUTE_NONE; r <= PL_RECOMPUTE_OPS; r++) {
      if (!(rmask & (1u << r)))
        continue;
      c.recompute = (uint8_t)r;
      shard_and_schedule(ctx, t, deg, &sl, &c, o, i, &cache);
    }
  }
  pl_free(cache.dp_valid);
  pl_free(cache.dp);
}

/* ---- spreading the tuples and gathering them back ---- */

struct enum_job {
  const struct search_ctx *ctx;
  struct tuple_out *outs;  /* indexed by this rank's j */
  int64_t rank, nranks;
};

static void enum_item(void *arg, int64_t j) {
  struct enum_job *job = arg;
  enumerate_tuple(job->ctx, job->rank + j * job->nranks, &job->outs[j]);
}

/* Serialized tuple: header then n candidates. */
struct tuple_rec {
  int64_t tuple;
  int64_t status;
  int64_t considered;
  int64_t rejected[PL_REJECT_N];
  int64_t has_closest;
  double closest_bytes;
  struct search_cand closest;
  int64_t n;
};

static enum pl_status pack(const struct tuple_out *outs, int64_t count, int64_t rank,
                           int64_t nranks, char **buf, size_t *len, struct pl_diag *diag) {
  size_t total = 0;
  for (int64_t j = 0; j < count; j++)
    total += sizeof(struct tuple_rec) + (size_t)outs[j].n * sizeof(struct search_cand);
  char *p = pl_malloc(total);
  if (p == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory packing %zu bytes", total);
  size_t off = 0;
  for (int64_t j = 0; j < count; j++) {
    struct tuple_rec h;
    memset(&h, 0, sizeof h);
    h.tuple = rank + j * nranks;
    h.status = outs[j].status;
    h.considered = outs[j].considered;
    memcpy(h.rejected, outs[j].rejected, sizeof h.rejected);
    h.has_closest = outs[j].has_closest;
    h.closest_bytes = outs[j].closest_bytes;
    h.closest = outs[j].closest;
    h.n = outs[j].n;
    memcpy(p + off, &h, sizeof h);
    off += sizeof h;
    if (h.n > 0)
      memcpy(p + off, outs[j].cands, (size_t)h.n * sizeof(struct search_cand));
    off += (size_t)h.n * sizeof(struct search_cand);
  }
  *buf = p;
  *len = total;
  return PL_OK;
}

/* Index every tuple's record in the gathered bytes, then concatenate. */
static enum pl_status unpack(const struct search_ctx *ctx, const char *all, size_t len,
                             struct search_space_out *out, struct pl_diag *diag) {
  const char **at = pl_calloc((size_t)ctx->n_tuples + 1, sizeof *at);
  if (at == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory");
  enum pl_status st = PL_OK;
  int64_t total = 0;
  for (size_t off = 0; off < len;) {
    struct tuple_rec h;
    memcpy(&h, all + off, sizeof h);
    if (h.tuple < 0 || h.tuple >= ctx->n_tuples || at[h.tuple] != NULL)
      st = pl_diag_set(diag, PL_ERR_INTERNAL, "search: bad tuple %lld in gathered data",
                       (long long)h.tuple);
    if (st == PL_OK && h.status != PL_OK)
      st = pl_diag_set(diag, (enum pl_status)h.status, "search: out of memory enumerating layouts");
    if (st != PL_OK)
      break;
    at[h.tuple] = all + off;
    off += sizeof h + (size_t)h.n * sizeof(struct search_cand);
    total += h.n;
  }
  if (st == PL_OK) {
    out->cands = pl_calloc(total > 0 ? (size_t)total : 1, sizeof *out->cands);
    if (out->cands == NULL)
      st = pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory for %lld layouts", (long long)total);
  }
  for (int64_t i = 0; st == PL_OK && i < ctx->n_tuples; i++) {
    struct tuple_rec h;
    if (at[i] == NULL) {
      st = pl_diag_set(diag, PL_ERR_INTERNAL, "search: tuple %lld missing from gathered data",
                       (long long)i);
      break;
    }
    memcpy(&h, at[i], sizeof h);
    out->considered += h.considered;
    for (int r = 0; r < PL_REJECT_N; r++)
      out->rejected[r] += h.rejected[r];
    if (h.has_closest && (!out->has_closest || h.closest_bytes < out->closest_bytes)) {
      out->has_closest = true;
      out->closest_bytes = h.closest_bytes;
      out->closest = h.closest;
    }
    if (h.n > 0)
      memcpy(out->cands + out->n_cands, at[i] + sizeof h, (size_t)h.n * sizeof(struct search_cand));
    out->n_cands += h.n;
  }
  pl_free(at);
  return st;
}

enum pl_status search_enumerate(const struct search_ctx *ctx, struct pl_par *par,
                                struct search_space_out *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  int64_t nranks = pl_par_nranks(par), rank = pl_par_rank(par);
  int64_t mine = rank < ctx->n_tuples ? (ctx->n_tuples - rank + nranks - 1) / nranks : 0;
  struct tuple_out *outs = pl_calloc(mine > 0 ? (size_t)mine : 1, sizeof *outs);
  size_t *lens = pl_calloc((size_t)nranks, sizeof *lens);
  if (outs == NULL || lens == NULL) {
    pl_free(outs);
    pl_free(lens);
    return pl_diag_set(diag, PL_ERR_NOMEM, "search: out of memory");
  }
  struct enum_job job = {ctx, outs, rank, nranks};
  search_pool_run(search_par_pool(par), mine, enum_item, &job);
  char *buf = NULL, *all = NULL;
  size_t len = 0;
  enum pl_status st = pack(outs, mine, rank, nranks, &buf, &len, diag);
  enum pl_status gst = search_par_allgather(par, buf, st == PL_OK ? len : 0, (void **)&all, lens, diag);
  if (st == PL_OK)
    st = gst;
  size_t all_len = 0;
  for (int64_t r = 0; r < nranks; r++)
    all_len += lens[r];
  if (st == PL_OK)
    st = unpack(ctx, all, all_len, out, diag);
  for (int64_t j = 0; j < mine; j++)
    pl_free(outs[j].cands);
  pl_free(outs);
  pl_free(buf);
  pl_free(all);
  pl_free(lens);
  if (st != PL_OK) {
    pl_free(out->cands);
    out->cands = NULL;
  }
  return st;
}
