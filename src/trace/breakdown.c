/* breakdown.c: one rank's GPU timeline split into compute, communication,
 * memory traffic and idle time over a set of windows (docs/trace.md 3):
 *
 *   compute   = |C|            C = union of compute kernels
 *   comm      = |M|            M = union of NCCL/RCCL kernels
 *   overlap   = |M and C|      exposed_comm = comm - overlap = |M - C|
 *   memory    = |Y|            Y = union of memcpy and memset
 *   exp. mem  = |Y - C - M|
 *   idle      = span - |C or M or Y|
 *
 * so compute + exposed_comm + exposed_memory + idle = span exactly. These
 * are TraceLens's GPUEventAnalyser definitions (computation_time,
 * exposed_comm_time, exposed_memcpy_time, idle_time), taken per window. */
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

#define KIND(k) (1u << (k))

static int64_t measure_sum(const struct trace_ivs *x, const struct trace_iv *w, size_t nw,
                           int64_t *tmp) {
  trace_ivs_measure(x, w, nw, tmp);
  int64_t sum = 0;
  for (size_t i = 0; i < nw; i++)
    sum += tmp[i];
  return sum;
}

/* The lists are built, measured and freed one after another, so at most
 * three are alive at once (C, M and C or M; then C or M, Y and Y - C - M):
 * a list holds at most one interval per GPU event, 16 bytes. */
struct lists {
  struct trace_ivs c, m, cm, y, x;
};

static void free_lists(struct lists *l) {
  trace_ivs_free(&l->c);
  trace_ivs_free(&l->m);
  trace_ivs_free(&l->cm);
  trace_ivs_free(&l->y);
  trace_ivs_free(&l->x);
}

static enum pl_status measure_all(const struct trace_data *d, unsigned fm, unsigned fw,
                                  const struct trace_iv *w, size_t nw, int64_t *tmp,
                                  struct trace_breakdown *out) {
  struct lists l;
  memset(&l, 0, sizeof l);
  enum pl_status s = trace_ivs_union(d, KIND(TRACE_COMPUTE), fm | TRACE_F_RECOMPUTE,
                                     fw | TRACE_F_RECOMPUTE, &l.x);
  if (s != PL_OK)
    goto out;
  out->recompute_ns = measure_sum(&l.x, w, nw, tmp);
  trace_ivs_free(&l.x);
  if ((s = trace_ivs_union(d, KIND(TRACE_COMPUTE), fm, fw, &l.c)) != PL_OK ||
      (s = trace_ivs_union(d, KIND(TRACE_COMM), fm, fw, &l.m)) != PL_OK ||
      (s = trace_ivs_and(&l.c, &l.m, &l.x)) != PL_OK)
    goto out;
  out->compute_ns = measure_sum(&l.c, w, nw, tmp);
  out->comm_ns = measure_sum(&l.m, w, nw, tmp);
  out->overlapped_ns = measure_sum(&l.x, w, nw, tmp);
  trace_ivs_free(&l.x);
  if ((s = trace_ivs_or(&l.c, &l.m, &l.cm)) != PL_OK)
    goto out;
  trace_ivs_free(&l.c);
  trace_ivs_free(&l.m);
  if ((s = trace_ivs_union(d, KIND(TRACE_MEMCPY) | KIND(TRACE_MEMSET), fm, fw, &l.y)) != PL_OK ||
      (s = trace_ivs_minus(&l.y, &l.cm, &l.x)) != PL_OK)
    goto out;
  out->memory_ns = measure_sum(&l.y, w, nw, tmp);
  out->exposed_memory_ns = measure_sum(&l.x, w, nw, tmp);
  /* |C or M or Y| = |C or M| + |Y - C - M| (disjoint), per window, in
   * integer ns: exact, and no fourth list of up to one interval per event */
  out->busy_ns = measure_sum(&l.cm, w, nw, tmp) + out->exposed_memory_ns;
out:
  free_lists(&l);
  return s;
}

enum pl_status trace_breakdown(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                               unsigned flag_mask, unsigned flag_want,
                               struct trace_breakdown *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  int64_t *tmp = pl_reallocarray(NULL, nw ? nw : 1, sizeof *tmp);
  enum pl_status s = tmp ? measure_all(d, flag_mask, flag_want, w, nw, tmp, out) : PL_ERR_NOMEM;
  pl_free(tmp);
  if (s != PL_OK)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory computing the GPU timeline");
  for (size_t i = 0; i < nw; i++)
    out->span_ns += w[i].b - w[i].a;
  out->exposed_comm_ns = out->comm_ns - out->overlapped_ns;
  out->idle_ns = out->span_ns - out->busy_ns;
  return PL_OK;
}

bool trace_whole_window(const struct trace_data *d, unsigned flag_mask, unsigned flag_want,
                        struct trace_iv *w) {
  const struct trace_gpu *g = d->gpu.data;
  bool any = false;
  for (size_t i = 0; i < d->gpu.len; i++) {
    if ((g[i].flags & flag_mask) != flag_want || !trace_in_view(d, &g[i]))
      continue;
    int64_t a = g[i].ts_ns, b = g[i].ts_ns + g[i].dur_ns;
    if (!any || a < w->a)
      w->a = a;
    if (!any || b > w->b)
      w->b = b;
    any = true;
  }
  return any;
}
