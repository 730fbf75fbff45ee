/* across.c: the kernel breakdown, launch statistics and collective arrival
 * of a set of ranks (docs/trace.md 4 and 4.1).
 *
 * Kernel names merge by their text (means over ranks with GPU events, as
 * the breakdown's metrics); launch histograms add up. Collective arrival:
 * a rank's collective calls of a kept step are numbered per (op, group) in
 * start order; calls with the same step, op, group and number on two or
 * more ranks are one collective. Its last arrival is the latest kernel
 * start (on the traces' common clock: ranks of one job write epoch
 * timestamps; clocks of different hosts may be skewed by as much as their
 * synchronization allows), and every other rank waits from its own start
 * until then: a collective cannot finish before its last member starts.
 * This is HTA's straggler view (hta/analyzers/straggler.py,
 * find_stragglers_with_late_start_comm_kernels, HTA 0c2146a) per call.
 * Each matched collective is also timed as TraceLens times it (sync_add). */
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

void trace_rank_free(struct pl_trace_rank *r) {
  pl_free(r->coll);
  pl_free(r->coll_sizes);
  r->coll_sizes = NULL;
  r->n_coll_sizes = 0;
  pl_free(r->calls);
  for (int i = 0; i < r->n_kernels; i++)
    pl_free(r->kernels[i].name);
  pl_free(r->kernels);
  pl_free(r->streams);
  pl_free(r->arrivals_);
  r->coll = NULL;
  r->calls = NULL;
  r->kernels = NULL;
  r->streams = NULL;
  r->arrivals_ = NULL;
  r->n_kernels = r->n_streams = 0;
}

/* ---- kernel names over ranks ---- */

static int cmp_kptr(const void *x, const void *y) {
  const struct pl_trace_kernel *a = *(const struct pl_trace_kernel *const *)x;
  const struct pl_trace_kernel *b = *(const struct pl_trace_kernel *const *)y;
  return strcmp(a->name, b->name);
}

static int cmp_kernel(const void *x, const void *y) {
  const struct pl_trace_kernel *a = x, *b = y;
  if (a->time_s != b->time_s)
    return a->time_s > b->time_s ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* Fold the run of equal names v[0, n) into o (means over gpu_ranks). */
static enum pl_status fold(struct pl_trace_kernel *const *v, size_t n, double gpu_ranks,
                           struct pl_trace_kernel *o) {
  o->name = pl_strdup(v[0]->name);
  if (o->name == NULL)
    return PL_ERR_NOMEM;
  o->category = v[0]->category;
  o->min_s = v[0]->min_s;
  o->max_s = v[0]->max_s;
  for (size_t i = 0; i < n; i++) {
    o->count += v[i]->count / gpu_ranks;
    o->time_s += v[i]->time_s / gpu_ranks;
    o->min_s = v[i]->min_s < o->min_s ? v[i]->min_s : o->min_s;
    o->max_s = v[i]->max_s > o->max_s ? v[i]->max_s : o->max_s;
  }
  return PL_OK;
}

static enum pl_status merge_kernels(struct pl_trace_set *s, double gpu_ranks) {
  size_t n = 0;
  for (int i = 0; i < s->n_ranks; i++)
    n += (size_t)s->ranks[i].n_kernels;
  if (n == 0)
    return PL_OK;
  struct pl_trace_kernel **v = pl_reallocarray(NULL, n, sizeof *v);
  s->kernels = pl_calloc(n, sizeof *s->kernels);
  if (v == NULL || s->kernels == NULL) {
    pl_free(v);
    return PL_ERR_NOMEM;
  }
  size_t k = 0;
  for (int i = 0; i < s->n_ranks; i++)
    for (int j = 0; j < s->ranks[i].n_kernels; j++)
      v[k++] = &s->ranks[i].kernels[j];
  qsort(v, n, sizeof *v, cmp_kptr); /* stable enough: equal names fold together */
  enum pl_status st = PL_OK;
  for (size_t a = 0; a < n && st == PL_OK;) {
    size_t b = a + 1;
    while (b < n && strcmp(v[b]->name, v[a]->name) == 0)
      b++;
    st = fold(v + a, b - a, gpu_ranks, &s->kernels[s->n_kernels]);
    s->n_kernels += st == PL_OK;
    a = b;
  }
  pl_free(v);
  if (s->n_kernels > 1) /* NULL when empty: qsort must not see it */
    qsort(s->kernels, (size_t)s->n_kernels, sizeof *s->kernels, cmp_kernel);
  return st;
}

static void merge_launch(struct pl_trace_set *s, double gpu_ranks) {
  struct pl_trace_launch *o = &s->launch;
  for (int i = 0; i < s->n_ranks; i++) {
    const struct pl_trace_launch *l = &s->ranks[i].launch;
    if (l->events > 0 && (o->events == 0 || l->delay_max_s > o->delay_max_s))
      o->delay_max_s = l->delay_max_s;
    if (l->hta_events > 0 && (o->hta_events == 0 || l->hta_delay_max_s > o->hta_delay_max_s))
      o->hta_delay_max_s = l->hta_delay_max_s;
    o->hta_events += l->hta_events;
    o->hta_delay_sum_s += l->hta_delay_sum_s;
    o->hta_delay_outliers += l->hta_delay_outliers;
    o->events += l->events;
    o->delay_sum_s += l->delay_sum_s;
    o->delay_outliers += l->delay_outliers;
    o->runtime_outliers += l->runtime_outliers;
    o->short_events += l->short_events;
    o->short_gpu_s += l->short_gpu_s / gpu_ranks;
    o->short_cpu_s += l->short_cpu_s / gpu_ranks;
    for (int b = 0; b < PL_TRACE_HIST_BUCKETS; b++) {
      o->hist[b] += l->hist[b];
      o->hta_hist[b] += l->hta_hist[b];
    }
  }
  trace_launch_finish(o);
}

/* ---- collective arrival ---- */

static int cmp_key(const struct trace_arrival *a, const struct trace_arrival *b) {
  if (a->step != b->step)
    return a->step < b->step ? -1 : 1;
  if (a->op != b->op)
    return a->op < b->op ? -1 : 1;
  if (a->group_size != b->group_size)
    return a->group_size < b->group_size ? -1 : 1;
  if (a->group_start != b->group_start)
    return a->group_start < b->group_start ? -1 : 1;
  return 0;
}

/* One rank's calls: by key, then start (to number them). */
static int cmp_in_rank(const void *x, const void *y) {
  const struct trace_arrival *a = x, *b = y;
  int c = cmp_key(a, b);
  if (c != 0)
    return c;
  return (a->ts_ns > b->ts_ns) - (a->ts_ns < b->ts_ns);
}

/* All ranks' calls: by key, number, then rank. */
static int cmp_matched(const void *x, const void *y) {
  const struct trace_arrival *a = x, *b = y;
  int c = cmp_key(a, b);
  if (c != 0)
    return c;
  if (a->ord != b->ord)
    return a->ord < b->ord ? -1 : 1;
  return (a->rank_i > b->rank_i) - (a->rank_i < b->rank_i);
}

static bool same_call(const struct trace_arrival *a, const struct trace_arrival *b) {
  return cmp_key(a, b) == 0 && a->ord == b->ord;
}

/* Every rank's arrivals, numbered, in one array sorted by call. */
static struct trace_arrival *gather(struct pl_trace_set *s, size_t *n_out) {
  size_t n = 0;
  for (int i = 0; i < s->n_ranks; i++)
    n += (size_t)s->ranks[i].n_arrivals_;
  struct trace_arrival *v = pl_reallocarray(NULL, n ? n : 1, sizeof *v);
  if (v == NULL)
    return NULL;
  size_t k = 0;
  for (int i = 0; i < s->n_ranks; i++) {
    struct trace_arrival *a = s->ranks[i].arrivals_;
    size_t m = (size_t)s->ranks[i].n_arrivals_;
    if (m > 1) /* a is NULL for a rank with no arrivals */
      qsort(a, m, sizeof *a, cmp_in_rank);
    for (size_t j = 0; j < m; j++) {
      a[j].rank_i = i;
      a[j].ord = j > 0 && cmp_key(&a[j - 1], &a[j]) == 0 ? a[j - 1].ord + 1 : 0;
      v[k++] = a[j];
    }
  }
  qsort(v, n, sizeof *v, cmp_matched);
  *n_out = n;
  return v;
}

static struct pl_trace_step_arrival *step_of(struct pl_trace_set *s, int64_t step) {
  if (s->n_arrivals > 0 && s->arrivals[s->n_arrivals - 1].step == step)
    return &s->arrivals[s->n_arrivals - 1];
  struct pl_trace_step_arrival *o = &s->arrivals[s->n_arrivals++];
  memset(o, 0, sizeof *o);
  o->step = step;
  o->last_rank = -1;
  return o;
}

/* The set's row of a collective kind (merge_coll made one per op and group
 * size the ranks report), or NULL. */
static struct pl_trace_coll *set_row(struct pl_trace_set *s, const struct trace_arrival *a) {
  const char *op = trace_op_name((enum trace_op)a->op);
  for (int i = 0; i < s->n_coll; i++)
    if (s->coll[i].group_size == a->group_size && strcmp(s->coll[i].op, op) == 0)
      return &s->coll[i];
  return NULL;
}

/* TraceLens's view of one collective (NcclAnalyser.build_df_nccl_implicit_
 * sync_cat, AMD-AGI/TraceLens 171dd74): comm_latency = the shortest kernel
 * among its ranks, skew in start time = latest start - earliest start, skew
 * in end time = latest end - earliest end, algo bw = size / comm_latency.
 * The size is the first member's that is known (TraceLens takes the first
 * rank's and requires all to agree). Sums here; sync_finish divides. */
static void sync_add(struct pl_trace_set *s, const struct trace_arrival *v, size_t n) {
  struct pl_trace_coll *c = set_row(s, &v[0]);
  if (c == NULL)
    return;
  int64_t s0 = v[0].ts_ns, s1 = v[0].ts_ns, e0 = v[0].ts_ns + v[0].dur_ns, e1 = e0;
  int64_t lat = v[0].dur_ns;
  double bytes = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t e = v[i].ts_ns + v[i].dur_ns;
    s0 = v[i].ts_ns < s0 ? v[i].ts_ns : s0;
    s1 = v[i].ts_ns > s1 ? v[i].ts_ns : s1;
    e0 = e < e0 ? e : e0;
    e1 = e > e1 ? e : e1;
    lat = v[i].dur_ns < lat ? v[i].dur_ns : lat;
    if (bytes <= 0 && v[i].bytes > 0)
      bytes = v[i].bytes;
  }
  double skew = (double)(s1 - s0) * 1e-9;
  c->sync_matched++;
  c->sync_time_s += (double)lat * 1e-9; /* all steps; sync_finish divides */
  c->start_skew_s += skew;
  c->end_skew_s += (double)(e1 - e0) * 1e-9;
  c->start_skew_max_s = skew > c->start_skew_max_s ? skew : c->start_skew_max_s;
  if (bytes > 0 && lat > 0) {
    c->sync_sized++;
    c->sync_sized_bytes += bytes;
    c->sync_sized_time_s += (double)lat * 1e-9;
    c->sync_bus_bytes += bytes * trace_bus_factor((enum trace_op)v[0].op, v[0].group_size);
  }
}

/* Per step over the set's most kept steps; means over the matched. */
static void sync_finish(struct pl_trace_set *s) {
  int64_t steps = 1;
  for (int i = 0; i < s->n_ranks; i++)
    steps = s->ranks[i].steps > steps ? s->ranks[i].steps : steps;
  for (int i = 0; i < s->n_coll; i++) {
    struct pl_trace_coll *c = &s->coll[i];
    if (c->sync_matched == 0)
      continue;
    c->sync_count = (double)c->sync_matched / (double)steps;
    c->sync_time_s /= (double)steps;
    c->start_skew_s /= (double)c->sync_matched;
    c->end_skew_s /= (double)c->sync_matched;
    if (c->sync_sized > 0) {
      c->sync_algbw_bytes_per_s = c->sync_sized_bytes / c->sync_sized_time_s;
      c->sync_busbw_bytes_per_s = c->sync_bus_bytes / c->sync_sized_time_s;
    }
  }
}

/* One collective: v[0, n) on n >= 2 ranks. lasts counts per rank. */
static void one_collective(struct pl_trace_set *s, const struct trace_arrival *v, size_t n,
                           int64_t *lasts) {
  size_t last = 0, first = 0;
  for (size_t i = 1; i < n; i++) {
    if (v[i].ts_ns > v[last].ts_ns)
      last = i;
    if (v[i].ts_ns <= v[first].ts_ns) /* TraceLens: max((wait, rank)), the highest on ties */
      first = i;
  }
  s->ranks[v[first].rank_i].coll_first += 1;
  sync_add(s, v, n);
  struct pl_trace_step_arrival *o = step_of(s, v[0].step);
  o->collectives++;
  for (size_t i = 0; i < n; i++) {
    struct pl_trace_rank *r = &s->ranks[v[i].rank_i];
    double wait = (double)(v[last].ts_ns - v[i].ts_ns) * 1e-9;
    r->coll_wait_s += wait;
    r->coll_matched++;
    o->wait_s += wait;
    o->max_wait_s = wait > o->max_wait_s ? wait : o->max_wait_s;
  }
  s->ranks[v[last].rank_i].coll_last += 1;
  lasts[v[last].rank_i]++;
}

/* The rank most often last in the step just finished (lowest rank on ties). */
static void close_step(struct pl_trace_set *s, int64_t *lasts) {
  if (s->n_arrivals == 0)
    return;
  struct pl_trace_step_arrival *o = &s->arrivals[s->n_arrivals - 1];
  for (int i = 0; i < s->n_ranks; i++) {
    if (lasts[i] > o->last_count) {
      o->last_count = lasts[i];
      o->last_rank = s->ranks[i].rank;
    }
    lasts[i] = 0;
  }
}

static enum pl_status match_arrivals(struct pl_trace_set *s) {
  size_t n = 0;
  struct trace_arrival *v = gather(s, &n);
  int64_t *lasts = pl_calloc((size_t)s->n_ranks + 1, sizeof *lasts);
  s->arrivals = pl_calloc(n ? n : 1, sizeof *s->arrivals);
  if (v == NULL || lasts == NULL || s->arrivals == NULL) {
    pl_free(v);
    pl_free(lasts);
    return PL_ERR_NOMEM;
  }
  for (size_t a = 0; a < n;) {
    size_t b = a + 1;
    while (b < n && same_call(&v[a], &v[b]))
      b++;
    if (s->n_arrivals > 0 && s->arrivals[s->n_arrivals - 1].step != v[a].step)
      close_step(s, lasts);
    if (b - a >= 2)
      one_collective(s, v + a, b - a, lasts);
    a = b;
  }
  close_step(s, lasts);
  sync_finish(s);
  for (int i = 0; i < s->n_ranks; i++) { /* per step, as every rank metric */
    double k = s->ranks[i].steps > 0 ? (double)s->ranks[i].steps : 1.0;
    s->ranks[i].coll_wait_s /= k;
    s->ranks[i].coll_last /= k;
    s->ranks[i].coll_first /= k;
    s->coll_wait_s += s->ranks[i].coll_wait_s / s->n_ranks;
  }
  pl_free(v);
  pl_free(lasts);
  return PL_OK;
}

enum pl_status trace_set_extras(struct pl_trace_set *s) {
  int gpu = 0;
  for (int i = 0; i < s->n_ranks; i++)
    gpu += s->ranks[i].has_gpu;
  double g = gpu > 0 ? (double)gpu : 1.0;
  for (int i = 0; i < s->n_ranks; i++)
    for (int c = 0; c < PL_TK_N; c++)
      s->kcat_s[c] += s->ranks[i].kcat_s[c] / g;
  for (int i = 0; i < s->n_ranks; i++)
    for (int c = 0; c < PL_TRACE_COMM_CATS; c++) {
      s->comm_cat_s[c] += s->ranks[i].comm_cat_s[c] / g;
      s->overlapped_cat_s[c] += s->ranks[i].overlapped_cat_s[c] / g;
    }
  merge_launch(s, g);
  enum pl_status st = merge_kernels(s, g);
  if (st == PL_OK && s->n_ranks >= 2)
    st = match_arrivals(s);
  return st;
}
