/* kernels.c: why the GPU is idle, which kernels take its time, and how late
 * kernels start after their launch (docs/trace.md 3.5-3.7).
 *
 * One pass over the GPU events of the rank in view, in start order (the
 * in-memory events through an index sorted by start, spilled ones through
 * the sorted runs of gspill.c), with memory that does not grow with the
 * trace: per name and per stream accumulators and a fixed histogram.
 *
 * - Kernel breakdown: time per name and per category, clipped to the step
 *   windows, as HolisticTraceAnalysis's BreakdownAnalysis
 *   .get_gpu_kernel_breakdown sums "dur" per name (HTA 0c2146a,
 *   hta/analyzers/breakdown_analysis.py; HTA sums whole kernels over the
 *   whole trace). Categories refine HTA's get_kernel_type (COMMUNICATION
 *   "nccl", MEMORY, COMPUTATION) by name pattern (kcat.c).
 * - Idle split: each idle gap of the GPU (no event of any stream running)
 *   is named after the event that ends it, with HTA's rules from
 *   _analyze_idle_time_for_stream: host wait when that event's launch came
 *   after the gap began (the CPU had not enqueued it yet), kernel wait when
 *   the gap is under consecutive_kernel_delay = 30 ns (HTA's default in
 *   TraceAnalysis.get_idle_time_breakdown), other otherwise (it was
 *   enqueued but waited: on another stream, an event, a synchronization).
 *   The same rules per stream, over gaps between that stream's events, are
 *   HTA's per-stream idle time breakdown.
 * - Launch statistics: launch delay = GPU start - runtime call start, and
 *   HTA's CudaKernelAnalysis.cuda_kernel_launch_stats outlier rules (runtime
 *   call > 50 us, delay > 100 us, short events: runtime call <= 50 us and
 *   longer than the GPU event). HTA's own launch_delay starts at the runtime
 *   call's end (ts_gpu - ts_cpu - dur_cpu, clipped at 0): kept beside it as
 *   hta_delay_* (docs/trace.md 3.7). */
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

#define KERNEL_WAIT_NS 30                    /* HTA consecutive_kernel_delay default */
#define RUNTIME_CUTOFF_NS INT64_C(50000)     /* HTA runtime_cutoff, 50 us */
#define DELAY_CUTOFF_NS INT64_C(100000)      /* HTA launch_delay_cutoff, 100 us */

/* ---- names ---- */

static uint32_t hash_name(const char *s, size_t n) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

static bool name_eq(const struct trace_data *d, uint32_t id, const char *s, size_t n) {
  const char *t = (const char *)d->name_text.data + TRACE_AT(d->name_at, uint32_t, id);
  return strncmp(t, s, n) == 0 && t[n] == '\0';
}

/* Double the table (and re-insert every name) when it is half full. */
static bool name_grow(struct trace_data *d) {
  size_t slots = d->name_slots ? d->name_slots * 2 : 1024;
  uint32_t *h = pl_calloc(slots, sizeof *h);
  if (h == NULL)
    return false;
  for (uint32_t id = 0; id < d->name_at.len; id++) {
    const char *t = (const char *)d->name_text.data + TRACE_AT(d->name_at, uint32_t, id);
    size_t j = hash_name(t, strlen(t)) & (slots - 1);
    while (h[j] != 0)
      j = (j + 1) & (slots - 1);
    h[j] = id + 1;
  }
  pl_free(d->name_hash);
  d->name_hash = h;
  d->name_slots = slots;
  return true;
}

static bool text_push(struct trace_vec *v, const char *s, size_t n) {
  for (size_t i = 0; i <= n; i++) {
    char *c = trace_vec_push(v, 1);
    if (c == NULL)
      return false;
    *c = i < n ? s[i] : '\0';
  }
  return true;
}

int32_t trace_name_intern(struct trace_data *d, const char *s, size_t n) {
  if (2 * (d->name_at.len + 1) > d->name_slots && !name_grow(d))
    return -1;
  size_t j = hash_name(s, n) & (d->name_slots - 1);
  while (d->name_hash[j] != 0) {
    if (name_eq(d, d->name_hash[j] - 1, s, n))
      return (int32_t)(d->name_hash[j] - 1);
    j = (j + 1) & (d->name_slots - 1);
  }
  if (d->name_at.len >= TRACE_MAX_NAMES || d->name_text.len + n + 1 > TRACE_MAX_NAME_BYTES)
    return TRACE_NAME_OTHER;
  uint32_t *at = trace_vec_push(&d->name_at, sizeof *at);
  if (at == NULL)
    return -1;
  *at = (uint32_t)d->name_text.len;
  if (!text_push(&d->name_text, s, n))
    return -1;
  d->name_hash[j] = (uint32_t)d->name_at.len;
  return (int32_t)(d->name_at.len - 1);
}

const char *trace_name_str(const struct trace_data *d, uint16_t id) {
  if (id >= d->name_at.len)
    return "(other names)";
  return (const char *)d->name_text.data + TRACE_AT(d->name_at, uint32_t, id);
}

/* ---- the launch-delay histogram ---- */

/* Exact below 16 ns; then for 2^e <= v < 2^(e+1), 16 buckets of 2^(e-4). */
int trace_hist_bucket(int64_t ns) {
  if (ns < 16)
    return ns < 0 ? 0 : (int)ns;
  int e = 63 - __builtin_clzll((unsigned long long)ns);
  int b = 16 + (e - 4) * 16 + (int)((ns >> (e - 4)) & 15);
  return b < TRACE_HIST_BUCKETS ? b : TRACE_HIST_BUCKETS - 1;
}

double trace_hist_mid_ns(int b) {
  if (b < 16)
    return b;
  int e = (b - 16) / 16 + 4, k = (b - 16) % 16;
  double lo = (double)(INT64_C(1) << e) + (double)k * (double)(INT64_C(1) << (e - 4));
  return lo + 0.5 * (double)(INT64_C(1) << (e - 4));
}

static double quantile_s(const int64_t *hist, int64_t events, double q) {
  int64_t want = (int64_t)(q * (double)events), seen = 0;
  if (want >= events)
    want = events - 1;
  for (int b = 0; b < TRACE_HIST_BUCKETS; b++) {
    seen += hist[b];
    if (seen > want)
      return trace_hist_mid_ns(b) * 1e-9;
  }
  return 0;
}

/* Mean and quantiles from the sums and the histogram. */
void trace_launch_finish(struct pl_trace_launch *l) {
  if (l->hta_events > 0) {
    l->hta_delay_mean_s = l->hta_delay_sum_s / (double)l->hta_events;
    l->hta_delay_p50_s = quantile_s(l->hta_hist, l->hta_events, 0.50);
    l->hta_delay_p90_s = quantile_s(l->hta_hist, l->hta_events, 0.90);
    l->hta_delay_p99_s = quantile_s(l->hta_hist, l->hta_events, 0.99);
  }
  if (l->events == 0)
    return;
  l->delay_mean_s = l->delay_sum_s / (double)l->events;
  l->delay_p50_s = quantile_s(l->hist, l->events, 0.50);
  l->delay_p90_s = quantile_s(l->hist, l->events, 0.90);
  l->delay_p99_s = quantile_s(l->hist, l->events, 0.99);
}

/* ---- the pass ---- */

enum idle_why { IDLE_HOST, IDLE_KERNEL, IDLE_OTHER };

struct name_acc {
  int64_t time_ns, count, min_ns, max_ns;
  uint8_t cat;
};

struct stream_acc {
  bool seen;
  int64_t first_ns, last_end_ns, busy_ns, idle_ns[3];
};

struct sweep {
  const struct trace_data *d;
  const struct trace_iv *w;
  size_t nw;
  bool started;
  int64_t frontier;    /* largest end so far, all streams */
  int64_t idle_ns[3];  /* by enum idle_why */
  int64_t kcat_ns[PL_TK_N];
  struct name_acc *names; /* name_at.len + 1 entries (the last: other names) */
  size_t n_names;
  struct stream_acc streams[TRACE_MAX_STREAMS];
  struct pl_trace_launch *launch;
  int64_t short_gpu_ns, short_cpu_ns;
};

/* First window whose end is after t. */
static size_t first_after(const struct trace_iv *w, size_t nw, int64_t t) {
  size_t lo = 0, hi = nw;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w[mid].b <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Length of [a, b) inside the windows. */
static int64_t clip(const struct trace_iv *w, size_t nw, int64_t a, int64_t b) {
  int64_t len = 0;
  for (size_t i = first_after(w, nw, a); i < nw && w[i].a < b; i++) {
    int64_t x = a > w[i].a ? a : w[i].a, y = b < w[i].b ? b : w[i].b;
    len += y > x ? y - x : 0;
  }
  return len;
}

static bool in_windows(const struct trace_iv *w, size_t nw, int64_t t) {
  size_t i = first_after(w, nw, t);
  return i < nw && w[i].a <= t;
}

/* HTA's rule for a gap [from, g's start) ended by g. */
static enum idle_why why(const struct trace_gpu *g, int64_t from) {
  if (g->launch_ns != INT64_MIN && g->launch_ns > from)
    return IDLE_HOST;
  return g->ts_ns - from < KERNEL_WAIT_NS ? IDLE_KERNEL : IDLE_OTHER;
}

static void on_stream(struct sweep *p, const struct trace_gpu *g, int64_t end) {
  struct stream_acc *s = &p->streams[g->stream];
  if (!s->seen) {
    s->seen = true;
    s->first_ns = g->ts_ns;
    s->last_end_ns = g->ts_ns;
  }
  if (g->ts_ns > s->last_end_ns) { /* a gap, counted once: an empty event still closes it */
    s->idle_ns[why(g, s->last_end_ns)] += clip(p->w, p->nw, s->last_end_ns, g->ts_ns);
    s->last_end_ns = g->ts_ns;
  }
  if (end > s->last_end_ns) {
    s->busy_ns += clip(p->w, p->nw, s->last_end_ns, end);
    s->last_end_ns = end;
  }
}

static void on_gpu_idle(struct sweep *p, const struct trace_gpu *g, int64_t end) {
  if (!p->started) { /* before the first event: from the first window's start */
    p->started = true;
    p->frontier = p->nw > 0 && p->w[0].a < g->ts_ns ? p->w[0].a : g->ts_ns;
  }
  if (g->ts_ns > p->frontier) {
    p->idle_ns[why(g, p->frontier)] += clip(p->w, p->nw, p->frontier, g->ts_ns);
    p->frontier = g->ts_ns;
  }
  if (end > p->frontier)
    p->frontier = end;
}

/* one delay into one set of counters: plateau's (launch to start) or HTA's */
static void add_delay(int64_t ns, int64_t *events, double *sum_s, double *max_s, int64_t *hist,
                      int64_t *outliers) {
  (*events)++;
  *sum_s += (double)ns * 1e-9;
  if (*events == 1 || (double)ns * 1e-9 > *max_s)
    *max_s = (double)ns * 1e-9;
  hist[trace_hist_bucket(ns)]++;
  *outliers += ns > DELAY_CUTOFF_NS;
}

static void on_launch(struct sweep *p, const struct trace_gpu *g) {
  struct pl_trace_launch *l = p->launch;
  if (g->launch_ns == INT64_MIN)
    return;
  int64_t delay = g->ts_ns - g->launch_ns;
  add_delay(delay, &l->events, &l->delay_sum_s, &l->delay_max_s, l->hist, &l->delay_outliers);
  if (g->rt_dur_ns < 0)
    return;
  int64_t hta = delay - g->rt_dur_ns; /* HTA: ts_gpu - ts_cpu - dur_cpu, clip(lower=0) */
  hta = hta > 0 ? hta : 0;
  add_delay(hta, &l->hta_events, &l->hta_delay_sum_s, &l->hta_delay_max_s, l->hta_hist,
            &l->hta_delay_outliers);
  l->runtime_outliers += g->rt_dur_ns > RUNTIME_CUTOFF_NS;
  if (g->rt_dur_ns <= RUNTIME_CUTOFF_NS && g->dur_ns < g->rt_dur_ns) {
    l->short_events++;
    p->short_gpu_ns += g->dur_ns;
    p->short_cpu_ns += g->rt_dur_ns;
  }
}

static void on_event(struct sweep *p, const struct trace_gpu *g) {
  if (!trace_in_view(p->d, g))
    return;
  int64_t end = g->ts_ns + g->dur_ns;
  size_t k = g->name < p->n_names ? g->name : p->n_names - 1;
  struct name_acc *a = &p->names[k];
  if (a->cat == UINT8_MAX)
    a->cat = (uint8_t)trace_kcat_of(trace_name_str(p->d, g->name), g->kind, g->name_op);
  int64_t len = clip(p->w, p->nw, g->ts_ns, end);
  enum pl_trace_kcat cat = g->kind == TRACE_COMM
                               ? trace_kcat_of("", TRACE_COMM, (enum trace_op)g->name_op)
                               : (enum pl_trace_kcat)a->cat;
  a->time_ns += len;
  p->kcat_ns[cat] += len;
  if (in_windows(p->w, p->nw, g->ts_ns)) {
    if (a->count == 0 || g->dur_ns < a->min_ns)
      a->min_ns = g->dur_ns;
    if (a->count == 0 || g->dur_ns > a->max_ns)
      a->max_ns = g->dur_ns;
    a->count++;
    on_launch(p, g);
  }
  on_gpu_idle(p, g, end);
  on_stream(p, g, end);
}

/* ---- in start order ---- */

static bool idx_before(const struct trace_gpu *g, int32_t x, int32_t y) {
  return g[x].ts_ns < g[y].ts_ns || (g[x].ts_ns == g[y].ts_ns && x < y);
}

static void idx_sift(const struct trace_gpu *g, int32_t *v, size_t i, size_t n) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      return;
    if (c + 1 < n && idx_before(g, v[c], v[c + 1]))
      c++;
    if (!idx_before(g, v[i], v[c]))
      return;
    int32_t t = v[i];
    v[i] = v[c];
    v[c] = t;
    i = c;
  }
}

/* Indexes of the in-memory events by start (heapsort; none when in order). */
static void idx_sort(const struct trace_gpu *g, int32_t *v, size_t n) {
  size_t i = 1;
  while (i < n && !idx_before(g, v[i], v[i - 1]))
    i++;
  if (i >= n)
    return;
  for (size_t k = n / 2; k-- > 0;)
    idx_sift(g, v, k, n);
  for (size_t m = n; m-- > 1;) {
    int32_t t = v[0];
    v[0] = v[m];
    v[m] = t;
    idx_sift(g, v, 0, m);
  }
}

static enum pl_status each_in_memory(struct sweep *p) {
  const struct trace_gpu *g = p->d->gpu.data;
  size_t n = p->d->gpu.len;
  int32_t *v = pl_reallocarray(NULL, n ? n : 1, sizeof *v);
  if (v == NULL)
    return PL_ERR_NOMEM;
  for (size_t i = 0; i < n; i++)
    v[i] = (int32_t)i;
  idx_sort(g, v, n);
  for (size_t i = 0; i < n; i++)
    on_event(p, &g[v[i]]);
  pl_free(v);
  return PL_OK;
}

static enum pl_status each_spilled(struct sweep *p, struct pl_diag *diag) {
  struct trace_runs *m = NULL;
  enum pl_status s = trace_gmerge_open(p->d, &m, diag);
  struct trace_gpu g;
  int got = 0;
  while (s == PL_OK && (got = trace_runs_pop(m, &g)) > 0)
    on_event(p, &g);
  if (s == PL_OK && got < 0)
    s = pl_diag_set(diag, PL_ERR_IO, "cannot read the temporary file of GPU events");
  trace_runs_close(m);
  return s;
}

/* ---- results ---- */

static int cmp_kernel(const void *x, const void *y) {
  const struct pl_trace_kernel *a = x, *b = y;
  if (a->time_s != b->time_s)
    return a->time_s > b->time_s ? -1 : 1;
  return strcmp(a->name, b->name);
}

static enum pl_status fill_kernels(const struct sweep *p, struct pl_trace_rank *r, double k) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_names; i++)
    n += p->names[i].count > 0 || p->names[i].time_ns > 0;
  r->kernels = pl_calloc(n ? n : 1, sizeof *r->kernels);
  if (r->kernels == NULL)
    return PL_ERR_NOMEM;
  for (size_t i = 0; i < p->n_names; i++) {
    const struct name_acc *a = &p->names[i];
    if (a->count == 0 && a->time_ns == 0)
      continue;
    struct pl_trace_kernel *o = &r->kernels[r->n_kernels];
    o->name = pl_strdup(trace_name_str(p->d, (uint16_t)(i + 1 == p->n_names ? TRACE_NAME_OTHER : i)));
    if (o->name == NULL)
      return PL_ERR_NOMEM;
    r->n_kernels++;
    o->category = (enum pl_trace_kcat)a->cat;
    o->count = (double)a->count / k;
    o->time_s = (double)a->time_ns * 1e-9 / k;
    o->min_s = (double)a->min_ns * 1e-9;
    o->max_s = (double)a->max_ns * 1e-9;
  }
  if (r->n_kernels > 1) /* NULL when empty: qsort must not see it */
    qsort(r->kernels, (size_t)r->n_kernels, sizeof *r->kernels, cmp_kernel);
  return PL_OK;
}

static int cmp_stream(const void *x, const void *y) {
  const struct pl_trace_stream *a = x, *b = y;
  return (a->stream > b->stream) - (a->stream < b->stream);
}

static enum pl_status fill_streams(const struct sweep *p, struct pl_trace_rank *r, double k) {
  r->streams = pl_calloc(TRACE_MAX_STREAMS, sizeof *r->streams);
  if (r->streams == NULL)
    return PL_ERR_NOMEM;
  for (int i = 0; i < p->d->n_streams; i++) {
    const struct stream_acc *a = &p->streams[i];
    if (!a->seen)
      continue;
    struct pl_trace_stream *o = &r->streams[r->n_streams++];
    int64_t idle = a->idle_ns[0] + a->idle_ns[1] + a->idle_ns[2];
    o->stream = p->d->streams[i];
    o->span_s = (double)clip(p->w, p->nw, a->first_ns, a->last_end_ns) * 1e-9 / k;
    o->busy_s = (double)a->busy_ns * 1e-9 / k;
    o->idle_s = (double)idle * 1e-9 / k;
    o->idle_host_s = (double)a->idle_ns[IDLE_HOST] * 1e-9 / k;
    o->idle_kernel_s = (double)a->idle_ns[IDLE_KERNEL] * 1e-9 / k;
    o->idle_other_s = (double)a->idle_ns[IDLE_OTHER] * 1e-9 / k;
  }
  if (r->n_streams > 1) /* NULL when empty: qsort must not see it */
    qsort(r->streams, (size_t)r->n_streams, sizeof *r->streams, cmp_stream);
  return PL_OK;
}

static enum pl_status finish(struct sweep *p, struct pl_trace_rank *r) {
  double k = p->nw > 0 ? (double)p->nw : 1.0;
  if (p->started && p->nw > 0 && p->w[p->nw - 1].b > p->frontier) /* after the last event */
    p->idle_ns[IDLE_OTHER] += clip(p->w, p->nw, p->frontier, p->w[p->nw - 1].b);
  r->idle_host_s = (double)p->idle_ns[IDLE_HOST] * 1e-9 / k;
  r->idle_kernel_s = (double)p->idle_ns[IDLE_KERNEL] * 1e-9 / k;
  r->idle_other_s = (double)p->idle_ns[IDLE_OTHER] * 1e-9 / k;
  int64_t total = 0;
  for (int c = 0; c < PL_TK_N; c++) {
    r->kcat_s[c] = (double)p->kcat_ns[c] * 1e-9 / k;
    total += p->kcat_ns[c];
  }
  r->kernel_s = (double)total * 1e-9 / k;
  r->launch.short_gpu_s = (double)p->short_gpu_ns * 1e-9 / k;
  r->launch.short_cpu_s = (double)p->short_cpu_ns * 1e-9 / k;
  trace_launch_finish(&r->launch);
  enum pl_status s = fill_kernels(p, r, k);
  return s == PL_OK ? fill_streams(p, r, k) : s;
}

enum pl_status trace_kernels(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                             struct pl_trace_rank *r, struct pl_diag *diag) {
  struct sweep *p = pl_calloc(1, sizeof *p);
  if (p == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", r->file);
  p->d = d;
  p->w = w;
  p->nw = nw;
  p->launch = &r->launch;
  p->n_names = d->name_at.len + 1;
  p->names = pl_calloc(p->n_names, sizeof *p->names);
  enum pl_status s = p->names == NULL ? PL_ERR_NOMEM : PL_OK;
  for (size_t i = 0; s == PL_OK && i < p->n_names; i++)
    p->names[i].cat = UINT8_MAX;
  if (s == PL_OK)
    s = d->gspill != NULL ? each_spilled(p, diag) : each_in_memory(p);
  if (s == PL_OK)
    s = finish(p, r);
  if (s == PL_ERR_NOMEM)
    s = pl_diag_set(diag, PL_ERR_NOMEM, "trace '%s': out of memory", r->file);
  pl_free(p->names);
  pl_free(p);
  return s;
}
