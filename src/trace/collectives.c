/* collectives.c: per-kind summaries of one rank's NCCL/RCCL kernels.
 *
 * Each communication kernel is one collective call. Its kind and size come
 * from the kernel's args ("Collective name", "In msg nelems", "Out msg
 * nelems", "Group size", "dtype", "Process Group Ranks"), else from the
 * record_param_comms op that launched it (link.c), else the kind alone from
 * the kernel name (ncclDevKernel_AllGather_RING_LL). Sizes follow nccl-tests'
 * size column: all_gather counts the gathered output, reduce_scatter and
 * all_to_all the whole input, all_reduce and broadcast the buffer. Achieved
 * bandwidths (nccl-tests doc/PERFORMANCE.md): algbw = bytes / kernel time,
 * busbw = algbw x factor(op, n). Kernel time is from the kernel's start on
 * this rank, so it includes waiting for the slowest peer (docs/trace.md 3.4).
 * A communication kernel identical to an earlier one (same device (pid),
 * stream (tid), start, duration and name) is the same event seen twice, as
 * when a trace's events were merged or concatenated twice: it is counted once
 * and reported (pl_trace_rank.duplicate_comm_events; issue 22).
 * With the calls listed, each call also gets the time compute kernels ran on
 * the same GPU while it ran (overlap_s: the call's interval against the union
 * of the compute kernels, exact in integer ns), so `calibrate trace` can tell
 * calls that ran alone from calls that shared the SMs (docs/trace.md 10.2). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

/* The identity of a GPU event: what two copies of one event share. */
struct seen {
  int64_t ts_ns, dur_ns;
  uint16_t name;
  uint8_t stream, dev, used;
};

struct acc {
  enum trace_op op;
  int64_t n;
  int64_t calls;
  double time_ns; /* a sum of durations: a double cannot overflow */
  struct pl_trace_coll sum;
};

static double call_bytes(const struct trace_coll *c, enum trace_op op) {
  /* elements as doubles: input counts multiplied together must not overflow */
  double ne = (double)c->in_nelems;
  if (op == TRACE_OP_ALL_GATHER || op == TRACE_OP_GATHER)
    ne = c->out_nelems >= 0 ? (double)c->out_nelems
         : (c->in_nelems >= 0 && c->group_size > 0 ? (double)c->in_nelems * (double)c->group_size
                                                    : -1);
  if (ne < 0 && c->out_nelems >= 0 && op != TRACE_OP_REDUCE_SCATTER)
    ne = (double)c->out_nelems;
  if (ne < 0 || c->dtype_bytes <= 0)
    return 0;
  return ne * c->dtype_bytes;
}

/* Is GPU event g counted in the windows? By its start time, as the
 * breakdown clips it (windows are sorted and disjoint). */
static bool in_windows(const struct trace_gpu *g, const struct trace_iv *w, size_t nw) {
  size_t lo = 0, hi = nw;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w[mid].a <= g->ts_ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo > 0 && g->ts_ns < w[lo - 1].b;
}

static struct acc *find_acc(struct acc *a, int *na, enum trace_op op, int64_t n) {
  for (int i = 0; i < *na; i++)
    if (a[i].op == op && a[i].n == n)
      return &a[i];
  if (*na >= TRACE_OP_N * 8)
    return &a[*na - 1]; /* more than 8 group sizes per op: fold into the last */
  struct acc *x = &a[(*na)++];
  memset(x, 0, sizeof *x);
  x->op = op;
  x->n = n;
  return x;
}

static void add_call(struct acc *x, const struct trace_gpu *g, const struct trace_coll *c) {
  x->calls++;
  x->time_ns += (double)g->dur_ns;
  double bytes = c ? call_bytes(c, x->op) : 0;
  if (bytes <= 0 || g->dur_ns <= 0)
    return;
  x->sum.sized_calls++;
  x->sum.sized_bytes += bytes;
  x->sum.sized_time_s += (double)g->dur_ns * 1e-9;
  x->sum.bus_bytes += bytes * trace_bus_factor(x->op, x->n);
}

/* One (op, group, size, dtype) of the per-size table: Welford's running mean
 * and squared deviations of the durations in ns (exact sums of integers up to
 * 2^53 ns; the variance as pandas' std, n - 1). */
#define TRACE_SIZE_ROWS 256

struct size_acc {
  enum trace_op op;
  int64_t n;
  double bytes;
  int dtype_bytes;
  int64_t calls;
  double sum_ns, mean_ns, m2_ns, min_ns, max_ns;
};

static struct size_acc *find_size(struct trace_vec *v, enum trace_op op, int64_t n, double bytes,
                                  int dtype_bytes) {
  struct size_acc *a = v->data;
  /* Past TRACE_SIZE_ROWS distinct rows (a search per call stays bounded), a
   * new size joins its (op, group)'s "other sizes" row: bytes -1. */
  if (v->len >= TRACE_SIZE_ROWS) {
    bool known = false;
    for (size_t i = 0; i < v->len && !known; i++)
      known = a[i].op == op && a[i].n == n && a[i].bytes == bytes &&
              a[i].dtype_bytes == dtype_bytes;
    if (!known) {
      bytes = -1;
      dtype_bytes = 0;
    }
  }
  for (size_t i = 0; i < v->len; i++)
    if (a[i].op == op && a[i].n == n && a[i].bytes == bytes && a[i].dtype_bytes == dtype_bytes)
      return &a[i];
  struct size_acc *x = trace_vec_push(v, sizeof *x);
  if (x == NULL)
    return NULL;
  memset(x, 0, sizeof *x);
  x->op = op;
  x->n = n;
  x->bytes = bytes;
  x->dtype_bytes = dtype_bytes;
  return x;
}

static void add_size(struct size_acc *x, int64_t dur_ns) {
  double d = (double)dur_ns;
  x->calls++;
  x->sum_ns += d;
  x->min_ns = x->calls == 1 || d < x->min_ns ? d : x->min_ns;
  x->max_ns = x->calls == 1 || d > x->max_ns ? d : x->max_ns;
  double delta = d - x->mean_ns;
  x->mean_ns += delta / (double)x->calls;
  x->m2_ns += delta * (d - x->mean_ns);
}

static int cmp_size(const void *p, const void *q) {
  const struct pl_trace_coll_size *x = p, *y = q;
  if (x->sum_s != y->sum_s)
    return x->sum_s > y->sum_s ? -1 : 1;
  int c = strcmp(x->op, y->op);
  if (c != 0)
    return c;
  if (x->group_size != y->group_size)
    return x->group_size < y->group_size ? -1 : 1;
  if (x->bytes != y->bytes)
    return x->bytes < y->bytes ? -1 : 1;
  return (x->dtype_bytes > y->dtype_bytes) - (x->dtype_bytes < y->dtype_bytes);
}

static int cmp_acc(const void *p, const void *q) {
  const struct acc *x = p, *y = q;
  if (x->op != y->op)
    return x->op < y->op ? -1 : 1;
  return (x->n > y->n) - (x->n < y->n);
}

static void finish(const struct acc *x, double steps, struct pl_trace_coll *o) {
  *o = x->sum;
  snprintf(o->op, sizeof o->op, "%s", trace_op_name(x->op));
  o->group_size = x->n > 0 ? x->n : 0;
  o->count = (double)x->calls / steps;
  o->time_s = x->time_ns * 1e-9 / steps;
  if (o->sized_calls > 0) {
    o->bytes = o->sized_bytes / (double)o->sized_calls;
    o->algbw_bytes_per_s = o->sized_bytes / o->sized_time_s;
    o->busbw_bytes_per_s = o->bus_bytes / o->sized_time_s;
  }
}

/* One call for ranks[].calls. Without a stated placement, a group as large
 * as the world is all ranks in order (start 0, stride 1). */
static void fill_call(struct pl_trace_call *o, enum trace_op op, int64_t n,
                      const struct trace_gpu *g, const struct trace_coll *c, int64_t world,
                      const struct trace_ivs *busy) {
  snprintf(o->op, sizeof o->op, "%s", trace_op_name(op));
  o->group_size = n > 0 ? n : 0;
  if (c != NULL && c->group_stride > 0) {
    o->group_start = c->group_start;
    o->group_stride = c->group_stride;
  } else if (n > 0 && n == world) {
    o->group_stride = 1;
  }
  o->bytes = c ? call_bytes(c, op) : 0;
  o->time_s = (double)g->dur_ns * 1e-9;
  o->overlap_s = (double)trace_ivs_inside(busy, g->ts_ns, g->ts_ns + g->dur_ns) * 1e-9;
}

static enum pl_status keep_call(struct trace_vec *v, enum trace_op op, int64_t n,
                                const struct trace_gpu *g, const struct trace_coll *c,
                                int64_t world, const struct trace_ivs *busy, struct pl_diag *diag) {
  struct pl_trace_call *o = trace_vec_push(v, sizeof *o);
  if (o == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory listing collective calls");
  fill_call(o, op, n, g, c, world, busy);
  return PL_OK;
}

/* What one pass over the communication kernels accumulates. */
struct pass {
  const struct trace_data *d;
  const struct trace_iv *w;
  size_t nw;
  bool keep_calls;
  struct acc a[TRACE_OP_N * 8];
  int na;
  struct trace_vec calls;
  struct trace_ivs busy;         /* compute kernels of this GPU, merged (only with keep_calls) */
  struct trace_vec spilled_busy; /* struct trace_iv, before merging (spilled traces) */
  struct trace_vec arrivals; /* struct trace_arrival */
  struct trace_vec sizes;    /* struct size_acc */
  int64_t first_step;        /* ProfilerStep number of the first window, -1 none */
  bool nomem;
  struct seen *seen;         /* communication kernels met so far (open addressing) */
  size_t seen_cap, seen_n;
  int64_t dups;
};

/* The window index of t (t is in one: in_windows holds). */
static size_t window_of(const struct trace_iv *w, size_t nw, int64_t t) {
  size_t lo = 0, hi = nw;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w[mid].a <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

static void keep_arrival(struct pass *p, enum trace_op op, int64_t n, const struct trace_gpu *g,
                         const struct trace_coll *c) {
  struct trace_arrival *a = trace_vec_push(&p->arrivals, sizeof *a);
  if (a == NULL) {
    p->nomem = true;
    return;
  }
  int64_t k = (int64_t)window_of(p->w, p->nw, g->ts_ns);
  a->step = p->first_step >= 0 ? p->first_step + k : k;
  a->ts_ns = g->ts_ns + p->d->base_ns;
  a->dur_ns = g->dur_ns;
  a->bytes = c != NULL ? call_bytes(c, op) : 0;
  a->group_size = n > 0 ? n : 0;
  a->group_start = c != NULL && c->group_stride > 0 ? c->group_start : -1;
  a->op = (uint8_t)op;
}

static uint64_t seen_hash(const struct trace_gpu *g) {
  uint64_t h = (uint64_t)g->ts_ns * 0x9E3779B97F4A7C15ull;
  h ^= ((uint64_t)g->dur_ns + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
  h ^= ((uint64_t)g->name << 16 | (uint64_t)g->stream << 8 | g->dev) * 0x165667B19E3779F9ull;
  return h ^ (h >> 29);
}

/* True when an identical event was met before; else remembers it. */
static bool seen_before(struct pass *p, const struct trace_gpu *g) {
  if (2 * (p->seen_n + 1) > p->seen_cap) {
    size_t cap = p->seen_cap ? 2 * p->seen_cap : 1024;
    struct seen *t = pl_calloc(cap, sizeof *t);
    if (t == NULL) {
      p->nomem = true;
      return false;
    }
    for (size_t i = 0; i < p->seen_cap; i++) {
      if (!p->seen[i].used)
        continue;
      struct trace_gpu k = {.ts_ns = p->seen[i].ts_ns, .dur_ns = p->seen[i].dur_ns,
                            .name = p->seen[i].name, .stream = p->seen[i].stream,
                            .dev = p->seen[i].dev};
      size_t j = seen_hash(&k) & (cap - 1);
      while (t[j].used)
        j = (j + 1) & (cap - 1);
      t[j] = p->seen[i];
    }
    pl_free(p->seen);
    p->seen = t;
    p->seen_cap = cap;
  }
  size_t j = seen_hash(g) & (p->seen_cap - 1);
  for (; p->seen[j].used; j = (j + 1) & (p->seen_cap - 1)) {
    const struct seen *e = &p->seen[j];
    if (e->ts_ns == g->ts_ns && e->dur_ns == g->dur_ns && e->name == g->name &&
        e->stream == g->stream && e->dev == g->dev)
      return true;
  }
  p->seen[j] = (struct seen){g->ts_ns, g->dur_ns, g->name, g->stream, g->dev, 1};
  p->seen_n++;
  return false;
}

static void one_call(struct pass *p, const struct trace_gpu *gi, int32_t coll) {
  const struct trace_data *d = p->d;
  if (p->nomem || !trace_in_view(d, gi) || !in_windows(gi, p->w, p->nw))
    return;
  if (seen_before(p, gi)) {
    p->dups++;
    return;
  }
  const struct trace_coll *c = coll >= 0 ? &TRACE_AT(d->colls, struct trace_coll, coll) : NULL;
  enum trace_op op = c && c->op != TRACE_OP_UNKNOWN ? (enum trace_op)c->op
                                                      : (enum trace_op)gi->name_op;
  int64_t n = c && c->group_size > 0 ? c->group_size : d->world_size;
  add_call(find_acc(p->a, &p->na, op, n), gi, c);
  struct size_acc *z = find_size(&p->sizes, op, n > 0 ? n : 0, c ? call_bytes(c, op) : 0,
                                 c && call_bytes(c, op) > 0 ? c->dtype_bytes : 0);
  if (z == NULL)
    p->nomem = true;
  else
    add_size(z, gi->dur_ns);
  keep_arrival(p, op, n, gi, c);
  if (p->keep_calls && keep_call(&p->calls, op, n, gi, c, d->world_size, &p->busy, NULL) != PL_OK)
    p->nomem = true;
}

/* Spilled GPU events (gspill.c): the file is in trace order, and so are the
 * communication kernels in it, so the sums are taken in the same order. */
static void calls_piece(void *ctx, struct trace_grec *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (r[i].g.kind == TRACE_COMM)
      one_call(ctx, &r[i].g, r[i].coll);
}

/* Spilled GPU events: this GPU's compute kernels, collected for busy. */
static void compute_piece(void *ctx, struct trace_grec *r, size_t n) {
  struct pass *p = ctx;
  for (size_t i = 0; i < n && !p->nomem; i++) {
    const struct trace_gpu *g = &r[i].g;
    if (g->kind != TRACE_COMPUTE || !trace_in_view(p->d, g))
      continue;
    struct trace_iv *v = trace_vec_push(&p->spilled_busy, sizeof *v);
    if (v == NULL)
      p->nomem = true;
    else
      *v = (struct trace_iv){g->ts_ns, g->ts_ns + g->dur_ns};
  }
}

/* The union of this GPU's compute kernels. Spilled, it is read back from the
 * file: 16 bytes per compute kernel while merging, held only when the calls
 * are listed (calibrate trace), so `trace analyze` keeps its bound. */
static enum pl_status compute_busy(struct pass *p, struct pl_diag *diag) {
  if (p->d->gspill == NULL)
    return trace_ivs_union(p->d, 1u << TRACE_COMPUTE, 0, 0, &p->busy) == PL_OK
               ? PL_OK
               : pl_diag_set(diag, PL_ERR_NOMEM, "out of memory listing compute kernels");
  enum pl_status s = trace_gspill_each(p->d, false, compute_piece, p, diag);
  p->busy.v = p->spilled_busy.data;
  p->busy.n = p->spilled_busy.len;
  p->spilled_busy = (struct trace_vec){NULL, 0, 0};
  if (s == PL_OK && p->nomem)
    s = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory listing compute kernels");
  if (s == PL_OK)
    trace_ivs_normalize(&p->busy);
  return s;
}

/* The per-size table, per kept step, longest total first (TraceLens sorts
 * by dur_sum). */
static enum pl_status sizes_out(struct pass *p, struct pl_trace_rank *r, struct pl_diag *diag) {
  const struct size_acc *a = p->sizes.data;
  size_t n = p->sizes.len;
  r->coll_sizes = NULL;
  r->n_coll_sizes = 0;
  if (n == 0)
    return PL_OK;
  r->coll_sizes = pl_calloc(n, sizeof *r->coll_sizes);
  if (r->coll_sizes == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory summarizing collectives");
  double steps = r->steps > 0 ? (double)r->steps : 1.0;
  for (size_t i = 0; i < n; i++) {
    struct pl_trace_coll_size *o = &r->coll_sizes[i];
    snprintf(o->op, sizeof o->op, "%s", trace_op_name(a[i].op));
    o->group_size = a[i].n;
    o->bytes = a[i].bytes;
    o->dtype_bytes = a[i].dtype_bytes;
    o->calls = a[i].calls;
    o->count = (double)a[i].calls / steps;
    o->sum_s = a[i].sum_ns * 1e-9;
    o->time_s = o->sum_s / steps;
    o->mean_s = a[i].mean_ns * 1e-9;
    o->std_s = a[i].calls > 1 ? sqrt(a[i].m2_ns / (double)(a[i].calls - 1)) * 1e-9 : 0;
    o->min_s = a[i].min_ns * 1e-9;
    o->max_s = a[i].max_ns * 1e-9;
  }
  if (n > 1)
    qsort(r->coll_sizes, n, sizeof *r->coll_sizes, cmp_size);
  r->n_coll_sizes = (int)n;
  return PL_OK;
}

static enum pl_status summarize(struct pass *p, struct pl_trace_rank *r, struct pl_diag *diag) {
  struct trace_vec calls = p->calls;
  struct acc *a = p->a;
  int na = p->na;
  r->calls = calls.data;
  r->n_calls = (int64_t)calls.len;
  r->n_coll = 0;
  r->coll = NULL;
  if (na == 0)
    return PL_OK;
  qsort(a, (size_t)na, sizeof a[0], cmp_acc);
  r->coll = pl_calloc((size_t)na, sizeof *r->coll);
  if (r->coll == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory summarizing collectives");
  for (int i = 0; i < na; i++)
    finish(&a[i], r->steps > 0 ? (double)r->steps : 1.0, &r->coll[i]);
  r->n_coll = na;
  return PL_OK;
}

enum pl_status trace_collectives(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                                 bool keep_calls, struct pl_trace_rank *r, struct pl_diag *diag) {
  struct pass pass = {.d = d, .w = w, .nw = nw, .keep_calls = keep_calls,
                      .first_step = r->first_step}, *p = &pass;
  r->calls = NULL;
  r->n_calls = 0;
  /* the compute union only for a listing with calls in it (in memory, no
   * communication kernel means nothing to measure against) */
  bool busy = keep_calls && (d->gspill != NULL || d->comm.len > 0);
  enum pl_status s = busy ? compute_busy(p, diag) : PL_OK;
  if (s == PL_OK && d->gspill != NULL) {
    s = trace_gspill_each(d, false, calls_piece, p, diag);
  } else if (s == PL_OK) {
    const struct trace_comm *cm = d->comm.data;
    for (size_t i = 0; i < d->comm.len; i++)
      one_call(p, &TRACE_AT(d->gpu, struct trace_gpu, cm[i].gpu), cm[i].coll);
  }
  pl_free(p->seen);
  trace_ivs_free(&p->busy);
  trace_vec_free(&p->spilled_busy);
  r->duplicate_comm_events = p->dups;
  if (s == PL_OK && p->nomem)
    s = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory listing collective calls");
  if (s != PL_OK) {
    trace_vec_free(&p->calls);
    trace_vec_free(&p->arrivals);
    trace_vec_free(&p->sizes);
    return s;
  }
  r->arrivals_ = p->arrivals.data;
  r->n_arrivals_ = (int64_t)p->arrivals.len;
  s = sizes_out(p, r, diag);
  trace_vec_free(&p->sizes);
  if (s != PL_OK) { /* the listing is handed to r only by summarize */
    trace_vec_free(&p->calls);
    return s;
  }
  return summarize(p, r, diag);
}
