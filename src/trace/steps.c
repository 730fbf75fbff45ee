/* steps.c: one rank's steps, their GPU windows, and its per-step means.
 *
 * Steps are the ProfilerStep#N CPU spans (docs/trace.md 2). A GPU event
 * belongs to the step whose span holds its CPU launch (link.c). Step k's GPU
 * window runs from the start of its first GPU event to the start of step
 * k+1's first GPU event, or to its own last GPU end when no later step has
 * one, so windows tile the GPU timeline: the gap in which the GPU waits for the
 * host between steps is idle time of the step before it. Every GPU interval
 * is clipped to the windows (breakdown.c), so an all-reduce of step k that
 * runs on after step k+1 has started counts in step k+1's window.
 *
 * Which steps count (docs/trace.md 2.3): a last step whose CPU span is shorter
 * than half the median of the others was cut short by the profiler and is
 * dropped (a lone step is kept); then the first `skip` steps are warm-up.
 * When the GPU events spilled to a temporary file (gspill.c), the passes
 * over them here (extents, counts) read that file piece by piece. */
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

int64_t pl_trace_default_skip(int64_t steps) {
  int64_t k = steps / 6;
  return k < 10 ? k : 10;
}

static int cmp_i64(const void *p, const void *q) {
  int64_t x = *(const int64_t *)p, y = *(const int64_t *)q;
  return (x > y) - (x < y);
}

/* True when the last step looks cut short (see the file comment). */
static bool last_cut_short(const struct trace_data *d) {
  size_t n = d->steps.len;
  const struct trace_span *s = d->steps.data;
  if (n < 2)
    return false;
  int64_t dur[64];
  size_t m = 0;
  for (size_t i = n - 1; i-- > 0 && m < 64;)
    dur[m++] = s[i].end_ns - s[i].ts_ns;
  qsort(dur, m, sizeof dur[0], cmp_i64);
  int64_t median = m % 2 ? dur[m / 2] : (dur[m / 2 - 1] + dur[m / 2]) / 2;
  return 2 * (s[n - 1].end_ns - s[n - 1].ts_ns) < median;
}

/* Widen first[k] and last[k] by the GPU events of step k among g[0, n). */
static void extend(const struct trace_gpu *g, size_t n, int64_t *first, int64_t *last) {
  for (size_t i = 0; i < n; i++) {
    int32_t k = g[i].step;
    if (k < 0)
      continue;
    if (g[i].ts_ns < first[k])
      first[k] = g[i].ts_ns;
    if (g[i].ts_ns + g[i].dur_ns > last[k])
      last[k] = g[i].ts_ns + g[i].dur_ns;
  }
}

static void extents_piece(void *ctx, struct trace_grec *r, size_t n) {
  int64_t **fl = ctx;
  for (size_t i = 0; i < n; i++)
    extend(&r[i].g, 1, fl[0], fl[1]);
}

/* First GPU start and last GPU end of each step's events, over every device
 * of the file: the devices of one file share its steps, so a pipeline stage
 * that starts late or ends early still has the whole step as its window and
 * its wait is idle time (the bubble), as for a rank with a file of its own
 * and several steps. */
static enum pl_status step_extents(const struct trace_data *d, int64_t **first, int64_t **last) {
  size_t n = d->steps.len;
  *first = pl_reallocarray(NULL, n, sizeof **first);
  *last = pl_reallocarray(NULL, n, sizeof **last);
  if (*first == NULL || *last == NULL)
    return PL_ERR_NOMEM;
  for (size_t k = 0; k < n; k++)
    (*first)[k] = INT64_MAX, (*last)[k] = INT64_MIN;
  if (d->gspill != NULL) {
    int64_t *fl[2] = {*first, *last};
    return trace_gspill_each(d, false, extents_piece, fl, NULL);
  }
  extend(d->gpu.data, d->gpu.len, *first, *last);
  return PL_OK;
}

/* Windows of steps [lo, hi) into w. */
static enum pl_status step_windows(const struct trace_data *d, size_t lo, size_t hi,
                                   struct trace_iv *w) {
  const struct trace_span *s = d->steps.data;
  int64_t *first, *last;
  enum pl_status st = step_extents(d, &first, &last);
  if (st != PL_OK) {
    pl_free(first);
    pl_free(last);
    return st;
  }
  size_t n = d->steps.len;
  for (size_t k = 0; k < n; k++) {
    if (first[k] == INT64_MAX) /* no GPU work launched: the CPU start */
      first[k] = s[k].ts_ns;
    if (k > 0 && first[k] < first[k - 1])
      first[k] = first[k - 1];
  }
  for (size_t k = lo; k < hi; k++) {
    int64_t end = k + 1 < n ? first[k + 1] : last[k];
    w[k - lo] = (struct trace_iv){first[k], end > first[k] ? end : first[k]};
  }
  pl_free(first);
  pl_free(last);
  return PL_OK;
}

static void fill_means(struct pl_trace_rank *r, const struct trace_breakdown *b, double n) {
  double k = 1e-9 / n;
  r->span_s = (double)b->span_ns * k;
  r->compute_s = (double)b->compute_ns * k;
  r->comm_s = (double)b->comm_ns * k;
  r->overlapped_comm_s = (double)b->overlapped_ns * k;
  r->exposed_comm_s = (double)b->exposed_comm_ns * k;
  r->memory_s = (double)b->memory_ns * k;
  r->exposed_memory_s = (double)b->exposed_memory_ns * k;
  r->idle_s = (double)b->idle_ns * k;
  r->recompute_s = (double)b->recompute_ns * k;
  for (int c = 0; c < PL_TRACE_COMM_CATS; c++) {
    r->comm_cat_s[c] = (double)b->comm_cat_ns[c] * k;
    r->overlapped_cat_s[c] = (double)b->overlapped_cat_ns[c] * k;
  }
}

struct counter {
  const struct trace_data *d;
  struct pl_trace_rank *r;
};

static void count(struct counter *c, const struct trace_gpu *g, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!trace_in_view(c->d, &g[i]))
      continue;
    c->r->gpu_events++;
    c->r->unlinked_events += !(g[i].flags & TRACE_F_LINKED);
  }
}

static void count_piece(void *ctx, struct trace_grec *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    count(ctx, &r[i].g, 1);
}

static enum pl_status fill_identity(struct trace_data *d, const char *path,
                                    struct pl_trace_rank *r, struct pl_diag *diag) {
  memset(r, 0, sizeof *r);
  r->file = path;
  r->rank = d->rank;
  if (r->rank < 0) {
    r->rank = trace_rank_from_path(path);
    r->rank_from_name = r->rank >= 0;
  }
  r->world_size = d->world_size;
  memcpy(r->device, d->device, sizeof r->device);
  r->json_bytes = d->raw_bytes;
  r->gpu_devices = d->n_devices;
  r->gpu_pid = d->view_dev > 0 ? d->devices[d->view_dev - 1] : -1;
  r->first_step = -1;
  struct counter c = {d, r};
  enum pl_status s = PL_OK;
  if (d->gspill != NULL)
    s = trace_gspill_each(d, false, count_piece, &c, diag);
  else
    count(&c, d->gpu.data, d->gpu.len);
  r->has_gpu = r->gpu_events > 0;
  r->has_steps = d->steps.len > 0;
  return s;
}

/* Decide the kept range [lo, hi) of steps; error when skip leaves none. */
static enum pl_status kept_steps(const struct trace_data *d, const char *path,
                                 const struct pl_trace_opts *o, struct pl_trace_rank *r,
                                 size_t *lo, size_t *hi, struct pl_diag *diag) {
  size_t n = d->steps.len;
  r->last_dropped = last_cut_short(d);
  r->steps_total = (int64_t)n - r->last_dropped;
  int64_t skip = o->skip >= 0 ? o->skip : pl_trace_default_skip(r->steps_total);
  if (skip >= r->steps_total)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "trace '%s': --skip %lld leaves no steps (%lld complete steps)", path,
                       (long long)skip, (long long)r->steps_total);
  r->steps_skipped = skip;
  r->steps = r->steps_total - skip;
  *lo = (size_t)skip;
  *hi = (size_t)r->steps_total;
  r->first_step = TRACE_AT(d->steps, struct trace_span, *lo).num;
  double cpu = 0;
  for (size_t k = *lo; k < *hi; k++)
    cpu += (double)(TRACE_AT(d->steps, struct trace_span, k).end_ns -
                    TRACE_AT(d->steps, struct trace_span, k).ts_ns);
  r->cpu_step_s = cpu * 1e-9 / (double)r->steps;
  return PL_OK;
}

enum pl_status trace_rank_analyze(struct trace_data *d, const char *path,
                                  const struct pl_trace_opts *o, bool keep_calls,
                                  struct pl_trace_rank *r, struct pl_diag *diag) {
  enum pl_status s = trace_link(d, diag);
  if (s != PL_OK)
    return s;
  s = fill_identity(d, path, r, diag);
  if (s != PL_OK)
    return s;
  size_t lo = 0, hi = 0, nw = 1;
  bool by_step = r->has_steps && !o->whole_trace;
  if (r->has_steps && (by_step || !r->has_gpu)) {
    s = kept_steps(d, path, o, r, &lo, &hi, diag);
    if (s != PL_OK)
      return s;
  }
  if (!by_step)
    r->steps = 1;
  if (!r->has_gpu) { /* CPU-only: the CPU step time is all there is */
    r->span_s = r->cpu_step_s;
    return PL_OK;
  }
  nw = by_step ? hi - lo : 1;
  struct trace_data all = *d; /* a view of every device */
  all.view_dev = 0;
  struct trace_iv *w = pl_reallocarray(NULL, nw, sizeof *w);
  if (w == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", path);
  w[0] = (struct trace_iv){0, 0};
  if (by_step && (s = step_windows(d, lo, hi, w)) != PL_OK)
    s = s == PL_ERR_NOMEM ? pl_diag_set(diag, s, "trace '%s': out of memory", path)
        : pl_diag_set(diag, s, "trace '%s': cannot read the temporary file of GPU events", path);
  else if (!by_step)
    trace_whole_window(&all, 0, 0, &w[0]); /* the file's, as step_extents */
  struct trace_breakdown b;
  if (s == PL_OK)
    s = trace_breakdown(d, w, nw, 0, 0, &b, diag);
  if (s == PL_OK) {
    fill_means(r, &b, (double)nw);
    s = trace_collectives(d, w, nw, keep_calls, r, diag);
  }
  if (s == PL_OK)
    s = trace_kernels(d, w, nw, r, diag);
  pl_free(w);
  return s;
}
