/* intervals.c: the interval algebra behind every time metric (docs/trace.md 3).
 * Lists are sorted by start, disjoint and half-open [a, b) in integer ns, so
 * union, intersection and difference are linear merges and results are exact.
 * Touching intervals merge (a == previous b), as TraceLens's merge_intervals
 * does, which changes no length. */
#include <stdlib.h>

#include <plateau/alloc.h>

#include "trace_int.h"

static int cmp_iv(const void *p, const void *q) {
  const struct trace_iv *x = p, *y = q;
  if (x->a != y->a)
    return x->a < y->a ? -1 : 1;
  return (x->b > y->b) - (x->b < y->b);
}

static enum pl_status alloc_ivs(struct trace_ivs *out, size_t n) {
  out->n = 0;
  out->v = pl_reallocarray(NULL, n ? n : 1, sizeof *out->v);
  return out->v ? PL_OK : PL_ERR_NOMEM;
}

/* Sort (unless it already is: glibc's qsort allocates a copy) and merge in
 * place. */
static void merge(struct trace_ivs *x) {
  if (x->n == 0)
    return;
  size_t sorted = 1;
  while (sorted < x->n && cmp_iv(&x->v[sorted - 1], &x->v[sorted]) <= 0)
    sorted++;
  if (sorted < x->n)
    qsort(x->v, x->n, sizeof *x->v, cmp_iv);
  size_t k = 0;
  for (size_t i = 1; i < x->n; i++) {
    if (x->v[i].a <= x->v[k].b) {
      if (x->v[i].b > x->v[k].b)
        x->v[k].b = x->v[i].b;
    } else {
      x->v[++k] = x->v[i];
    }
  }
  x->n = k + 1;
}

/* The merged union of the GPU events in view whose kind is in kind_mask, whose
 * flags under flag_mask equal flag_want and, when by_cat, whose collective
 * category (trace_comm_cat) is cat. */
static enum pl_status union_where(const struct trace_data *d, unsigned kind_mask, bool by_cat,
                                  int cat, unsigned flag_mask, unsigned flag_want,
                                  struct trace_ivs *out) {
  const struct trace_gpu *g = d->gpu.data;
  if (alloc_ivs(out, d->gpu.len) != PL_OK)
    return PL_ERR_NOMEM;
  for (size_t i = 0; i < d->gpu.len; i++) {
    if (!(kind_mask & (1u << g[i].kind)) ||
        (by_cat && trace_comm_cat((enum trace_op)g[i].name_op) != cat) ||
        (g[i].flags & flag_mask) != flag_want || !trace_in_view(d, &g[i]))
      continue;
    out->v[out->n++] = (struct trace_iv){g[i].ts_ns, g[i].ts_ns + g[i].dur_ns};
  }
  merge(out);
  return PL_OK;
}

enum pl_status trace_ivs_union(const struct trace_data *d, unsigned kind_mask, unsigned flag_mask,
                               unsigned flag_want, struct trace_ivs *out) {
  return union_where(d, kind_mask, false, 0, flag_mask, flag_want, out);
}

enum pl_status trace_ivs_union_comm(const struct trace_data *d, int k, unsigned flag_mask,
                                    unsigned flag_want, struct trace_ivs *out) {
  return union_where(d, 1u << TRACE_COMM, true, k, flag_mask, flag_want, out);
}

enum pl_status trace_ivs_and(const struct trace_ivs *x, const struct trace_ivs *y,
                             struct trace_ivs *out) {
  if (alloc_ivs(out, x->n + y->n) != PL_OK)
    return PL_ERR_NOMEM;
  size_t i = 0, j = 0;
  while (i < x->n && j < y->n) {
    int64_t a = x->v[i].a > y->v[j].a ? x->v[i].a : y->v[j].a;
    int64_t b = x->v[i].b < y->v[j].b ? x->v[i].b : y->v[j].b;
    if (a < b)
      out->v[out->n++] = (struct trace_iv){a, b};
    if (x->v[i].b < y->v[j].b)
      i++;
    else
      j++;
  }
  return PL_OK;
}

/* x minus y: the parts of x that no interval of y covers. */
enum pl_status trace_ivs_minus(const struct trace_ivs *x, const struct trace_ivs *y,
                               struct trace_ivs *out) {
  if (alloc_ivs(out, x->n + y->n) != PL_OK)
    return PL_ERR_NOMEM;
  size_t j = 0;
  for (size_t i = 0; i < x->n; i++) {
    int64_t cur = x->v[i].a, end = x->v[i].b;
    while (j < y->n && y->v[j].b <= cur)
      j++;
    for (size_t k = j; k < y->n && y->v[k].a < end && cur < end; k++) {
      if (y->v[k].a > cur)
        out->v[out->n++] = (struct trace_iv){cur, y->v[k].a};
      if (y->v[k].b > cur)
        cur = y->v[k].b;
    }
    if (cur < end)
      out->v[out->n++] = (struct trace_iv){cur, end};
  }
  return PL_OK;
}

enum pl_status trace_ivs_or(const struct trace_ivs *x, const struct trace_ivs *y,
                            struct trace_ivs *out) {
  if (alloc_ivs(out, x->n + y->n) != PL_OK)
    return PL_ERR_NOMEM;
  size_t i = 0, j = 0;
  while (i < x->n || j < y->n) {
    bool take_x = j == y->n || (i < x->n && x->v[i].a <= y->v[j].a);
    struct trace_iv v = take_x ? x->v[i++] : y->v[j++];
    if (out->n > 0 && v.a <= out->v[out->n - 1].b) {
      if (v.b > out->v[out->n - 1].b)
        out->v[out->n - 1].b = v.b;
    } else {
      out->v[out->n++] = v;
    }
  }
  return PL_OK;
}

void trace_ivs_measure(const struct trace_ivs *x, const struct trace_iv *w, size_t nw,
                       int64_t *len_ns) {
  size_t j = 0;
  for (size_t k = 0; k < nw; k++) {
    int64_t sum = 0;
    while (j < x->n && x->v[j].b <= w[k].a)
      j++;
    for (size_t i = j; i < x->n && x->v[i].a < w[k].b; i++) {
      int64_t a = x->v[i].a > w[k].a ? x->v[i].a : w[k].a;
      int64_t b = x->v[i].b < w[k].b ? x->v[i].b : w[k].b;
      if (a < b)
        sum += b - a;
    }
    len_ns[k] = sum;
  }
}

int64_t trace_ivs_total(const struct trace_ivs *x) {
  int64_t sum = 0;
  for (size_t i = 0; i < x->n; i++)
    sum += x->v[i].b - x->v[i].a;
  return sum;
}

void trace_ivs_free(struct trace_ivs *x) {
  pl_free(x->v);
  x->v = NULL;
  x->n = 0;
}

void trace_ivs_normalize(struct trace_ivs *x) { merge(x); }

int64_t trace_ivs_inside(const struct trace_ivs *x, int64_t a, int64_t b) {
  size_t lo = 0, hi = x->n; /* first interval ending after a */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (x->v[mid].b <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t sum = 0;
  for (size_t i = lo; i < x->n && x->v[i].a < b; i++) {
    int64_t s = x->v[i].a > a ? x->v[i].a : a, e = x->v[i].b < b ? x->v[i].b : b;
    if (s < e)
      sum += e - s;
  }
  return sum;
}
