/* trace_series.c: collective calls from Kineto traces as nccl-tests-like
 * series for pl_calib_nccl (calib_trace.h, docs/trace.md 10).
 *
 * Each call (pl_trace_analyze_calls) has its op, group size, message size in
 * nccl-tests' convention and kernel time. Where its group sits decides which
 * fabric tier it measures: the trace's "Global rank start/stride" or
 * "Process Group Ranks" give the global ranks, and with the cluster's GPUs
 * per node the number of nodes they span (ranks r land on node r / gpn);
 * uneven groups (2 ranks on one node, 1 on another) have no single
 * ranks-per-node and are left out. Calls are grouped by (op, ranks, ranks per
 * node) into series and by message size into rows.
 *
 * A row's time: a collective kernel starts when its rank launches it and ends
 * when the last rank's data is in, so every rank but the last to arrive also
 * measures waiting. The minimum over all ranks and kept steps is the call in
 * which this rank waited least, the closest a trace gets to nccl-tests'
 * synchronized timing (nccl-tests doc/PERFORMANCE.md times back-to-back
 * calls after a barrier); the median is offered to see how much waiting
 * typical calls include. Calls that overlap compute also share SMs and
 * memory bandwidth with it, which nccl-tests never sees: by default only the
 * calls that ran alone are fitted (overlap_s == 0, exact: integer ns in the
 * trace; per series, see choose), or the overlapped part of an intra-node
 * call is shortened by the step simulator's own contention factor
 * (correct_s), or every call is taken as measured (docs/trace.md 10.2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>
#include <plateau/calib_trace.h>
#include <plateau/coll.h>

struct sample {
  int32_t series;
  bool beside;      /* compute ran beside the call */
  bool correctable; /* beside, inside one node, and the GPU has a slowdown */
  double bytes;
  double time_s;  /* as measured */
  double alone_s; /* without the contention (correct_s) */
};

struct build {
  struct pl_calib_trace *t;
  struct sample *v;
  size_t n, cap;
};

/* Ranks per node of the call's group, or 0 when its placement is unknown. */
static int64_t ranks_per_node(const struct pl_trace_call *c, const struct pl_calib_trace_opts *o) {
  int64_t n = c->group_size;
  if (c->group_stride <= 0) {
    int64_t r = o->ranks_per_node < n ? o->ranks_per_node : n;
    return r > 0 && n % r == 0 ? r : 0;
  }
  /* bounds keep start + i x stride exact and the loop short */
  if (n > (1 << 20) || c->group_start < 0 || c->group_start > (INT64_C(1) << 40) ||
      c->group_stride > (INT64_C(1) << 20))
    return 0;
  int64_t nodes = 0, last = -1;
  for (int64_t i = 0; i < n; i++) {
    int64_t node = (c->group_start + i * c->group_stride) / o->gpus_per_node;
    nodes += node != last;
    last = node;
  }
  return n % nodes == 0 ? n / nodes : 0;
}

/* The series of (op, ranks, ranks per node). The calls ran in a training
 * step, where every GPU of a node is on the network at once (each tp rank in
 * its own dp group): active_per_node is the node's GPUs, so the fit prices a
 * group that crosses nodes as the step simulator does (pl_coll_time_shared;
 * a group inside one node is not affected). */
static int32_t find_series(struct pl_calib_trace *t, enum pl_coll_op op, int64_t n, int64_t rpn,
                           int64_t gpus_per_node) {
  for (size_t i = 0; i < t->n_series; i++) {
    const struct pl_nccl_series *s = &t->series[i];
    if (s->op == op && s->ranks == n && s->ranks_per_node == rpn)
      return (int32_t)i;
  }
  if (t->n_series == PL_NCCL_MAX_SERIES)
    return -1;
  struct pl_nccl_series *s = &t->series[t->n_series];
  memset(s, 0, sizeof *s);
  s->op = op;
  s->op_known = true;
  snprintf(s->redop, sizeof s->redop, "%s", op == PL_COLL_ALL_REDUCE ? "sum" : "none");
  s->ranks = n;
  s->ranks_per_node = rpn;
  s->nodes = n / rpn;
  s->active_per_node = gpus_per_node;
  return (int32_t)t->n_series++;
}

static enum pl_status push(struct build *b, struct sample x) {
  if (b->n == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 1024;
    struct sample *v = pl_reallocarray(b->v, cap, sizeof *v);
    if (v == NULL)
      return PL_ERR_NOMEM;
    b->v = v;
    b->cap = cap;
  }
  b->v[b->n++] = x;
  return PL_OK;
}

/* The call's time without the compute beside it. The step simulator runs an
 * SM-driven collective inside one node (SIM_RES_INTRA: src/sim/groups.c, a
 * group with ranks_per_node == ranks) at 1/(1 + s) while compute runs on its
 * rank (src/sim/engine.c rates_for, efficiency.comm_overlap_slowdown, pytorch
 * PR #172714; docs/step-model.md section 3), and a collective across nodes at
 * full speed. Inverting that: the overlap_s with compute did overlap_s/(1+s)
 * of alone-time, so the call alone takes time - overlap x s/(1+s). */
static double correct_s(const struct pl_trace_call *c, int64_t rpn,
                        const struct pl_calib_trace_opts *o, bool *corrected) {
  double s = o->comm_overlap_slowdown, ov = c->overlap_s < c->time_s ? c->overlap_s : c->time_s;
  *corrected = rpn == c->group_size && s > 0 && ov > 0;
  return *corrected ? c->time_s - ov * s / (1 + s) : c->time_s;
}

/* Sort one call into a series, or count why it cannot be. */
static enum pl_status add_call(struct build *b, const struct pl_trace_call *c,
                               const struct pl_calib_trace_opts *o, struct pl_diag *diag) {
  struct pl_calib_trace *t = b->t;
  enum pl_coll_op op;
  t->calls++;
  if (pl_coll_op_parse(c->op, &op, NULL) != PL_OK || c->group_size < 2) {
    t->unsupported++;
    return PL_OK;
  }
  if (!(c->bytes > 0) || !(c->time_s > 0)) {
    t->unsized++;
    return PL_OK;
  }
  int64_t rpn = ranks_per_node(c, o);
  if (rpn == 0) {
    t->unplaced++;
    return PL_OK;
  }
  int32_t s = find_series(t, op, c->group_size, rpn, o->gpus_per_node);
  if (s < 0)
    return pl_diag_set(diag, PL_ERR_LIMIT, "traces: more than %d kinds of collective group",
                       PL_NCCL_MAX_SERIES);
  t->used++;
  struct sample x = {s, c->overlap_s > 0, false, c->bytes, c->time_s, 0};
  x.alone_s = correct_s(c, rpn, o, &x.correctable);
  t->overlapped += x.beside;
  if (push(b, x) != PL_OK)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory grouping collective calls");
  return PL_OK;
}

static int cmp_sample(const void *p, const void *q) {
  const struct sample *x = p, *y = q;
  if (x->series != y->series)
    return x->series < y->series ? -1 : 1;
  if (x->bytes != y->bytes)
    return x->bytes < y->bytes ? -1 : 1;
  return (x->time_s > y->time_s) - (x->time_s < y->time_s);
}

/* The row of samples v[0..k) (one series, one size, times ascending). */
static void make_row(const struct sample *v, size_t k, const struct pl_nccl_series *s,
                     enum pl_calib_trace_stat stat, struct pl_nccl_row *r) {
  double t = v[0].time_s;
  if (stat == PL_CALIB_TRACE_MEDIAN)
    t = k % 2 ? v[k / 2].time_s : 0.5 * (v[k / 2 - 1].time_s + v[k / 2].time_s);
  memset(r, 0, sizeof *r);
  r->bytes = v[0].bytes;
  r->time_s = t;
  r->algbw_bytes_per_s = r->bytes / t;
  r->busbw_bytes_per_s = pl_coll_busbw(s->op, s->ranks, r->bytes, t);
}

/* Rows of series i from its sorted samples v[0..n). */
static enum pl_status make_rows(struct pl_calib_trace *t, size_t i, const struct sample *v,
                                size_t n, enum pl_calib_trace_stat stat, struct pl_diag *diag) {
  struct pl_nccl_series *s = &t->series[i];
  size_t rows = 0;
  for (size_t k = 0; k < n; k++)
    rows += k == 0 || v[k].bytes != v[k - 1].bytes;
  if (rows > PL_NCCL_MAX_ROWS)
    return pl_diag_set(diag, PL_ERR_LIMIT,
                       "traces: more than %d message sizes of %s over %lld ranks",
                       PL_NCCL_MAX_ROWS, pl_coll_op_name(s->op), (long long)s->ranks);
  s->rows = pl_calloc(rows, sizeof *s->rows);
  t->row_calls[i] = pl_calloc(rows, sizeof *t->row_calls[i]);
  if (s->rows == NULL || t->row_calls[i] == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory grouping collective calls");
  for (size_t a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && v[b].bytes == v[a].bytes; b++)
      ;
    make_row(v + a, b - a, s, stat, &s->rows[s->n_rows]);
    t->row_calls[i][s->n_rows++] = (int64_t)(b - a);
  }
  return PL_OK;
}

/* Each call's time for the fit, by the overlap mode; calls left out dropped.
 * exclude works per series: a series with a call that ran alone at a fitted
 * size (>= min_bytes) keeps only its calls that ran alone; a series whose
 * every such call ran beside compute (the dp collectives across nodes of a
 * step whose tp collectives run alone, say) is not dropped, which would leave
 * its fabric tier at the base's figure unsaid: its calls are corrected when
 * the GPU has a slowdown, else taken as measured (series_fallback). */
static void choose(struct build *b, const struct pl_calib_trace_opts *o) {
  struct pl_calib_trace *t = b->t;
  bool alone[PL_NCCL_MAX_SERIES] = {false};
  for (size_t k = 0; k < b->n; k++)
    alone[b->v[k].series] |= !b->v[k].beside && b->v[k].bytes >= o->min_bytes;
  enum pl_calib_trace_overlap fallback =
      o->comm_overlap_slowdown > 0 ? PL_CALIB_TRACE_CORRECT : PL_CALIB_TRACE_INCLUDE;
  for (size_t i = 0; i < t->n_series; i++)
    t->series_fallback[i] = o->overlap == PL_CALIB_TRACE_EXCLUDE && !alone[i];
  size_t n = 0;
  for (size_t k = 0; k < b->n; k++) {
    struct sample x = b->v[k];
    enum pl_calib_trace_overlap m = t->series_fallback[x.series] ? fallback : o->overlap;
    if (m == PL_CALIB_TRACE_EXCLUDE && x.beside) {
      t->excluded++;
      t->used--;
      continue;
    }
    if (m == PL_CALIB_TRACE_CORRECT && x.correctable) {
      x.time_s = x.alone_s;
      t->corrected++;
    }
    b->v[n++] = x;
  }
  b->n = n;
}

static enum pl_status finish(struct build *b, const struct pl_trace_set *set,
                             const struct pl_calib_trace_opts *o, struct pl_diag *diag) {
  enum pl_calib_trace_stat stat = o->stat;
  struct pl_calib_trace *t = b->t;
  if (t->used == 0)
    return pl_diag_set(diag, PL_ERR_MISSING,
                       "traces: no collective call with a message size and a known group "
                       "placement (%lld calls: %lld without size, %lld without placement, "
                       "%lld of an op the model does not cost)",
                       (long long)t->calls, (long long)t->unsized, (long long)t->unplaced,
                       (long long)t->unsupported);
  choose(b, o);
  if (b->n > 0)
    qsort(b->v, b->n, sizeof *b->v, cmp_sample);
  for (size_t i = 0, a = 0; i < t->n_series; i++) {
    size_t e = a;
    while (e < b->n && b->v[e].series == (int32_t)i)
      e++;
    snprintf(t->series[i].device, sizeof t->series[i].device, "%s", set->ranks[0].device);
    enum pl_status st = make_rows(t, i, b->v + a, e - a, stat, diag);
    if (st != PL_OK)
      return st;
    a = e;
  }
  return PL_OK;
}

enum pl_status pl_calib_trace_series(const struct pl_trace_set *set,
                                     const struct pl_calib_trace_opts *o,
                                     struct pl_calib_trace **out, struct pl_diag *diag) {
  *out = NULL;
  if (o->gpus_per_node < 1)
    return pl_diag_set(diag, PL_ERR_RANGE, "gpus per node must be at least 1");
  struct build b = {pl_calloc(1, sizeof *b.t), NULL, 0, 0};
  struct pl_calib_trace *t = b.t;
  enum pl_status st = PL_OK;
  if (t != NULL) {
    t->series = pl_calloc(PL_NCCL_MAX_SERIES, sizeof *t->series);
    t->row_calls = pl_calloc(PL_NCCL_MAX_SERIES, sizeof *t->row_calls);
    t->series_fallback = pl_calloc(PL_NCCL_MAX_SERIES, sizeof *t->series_fallback);
  }
  if (t == NULL || t->series == NULL || t->row_calls == NULL || t->series_fallback == NULL)
    st = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory");
  for (int r = 0; st == PL_OK && r < set->n_ranks; r++)
    for (int64_t k = 0; st == PL_OK && k < set->ranks[r].n_calls; k++)
      st = add_call(&b, &set->ranks[r].calls[k], o, diag);
  if (st == PL_OK)
    st = finish(&b, set, o, diag);
  pl_free(b.v);
  if (st != PL_OK) {
    pl_calib_trace_free(t);
    return st;
  }
  *out = t;
  return PL_OK;
}

size_t pl_calib_trace_rows(const struct pl_calib_trace *t, double min_bytes) {
  size_t n = 0;
  for (size_t i = 0; t != NULL && i < t->n_series; i++)
    for (size_t k = 0; k < t->series[i].n_rows; k++)
      n += t->series[i].rows[k].bytes >= min_bytes;
  return n;
}

void pl_calib_trace_free(struct pl_calib_trace *t) {
  if (t == NULL)
    return;
  for (size_t i = 0; t->series != NULL && i < t->n_series; i++) {
    pl_free(t->series[i].rows);
    if (t->row_calls != NULL)
      pl_free(t->row_calls[i]);
  }
  pl_free(t->series);
  pl_free(t->row_calls);
  pl_free(t->series_fallback);
  pl_free(t);
}
