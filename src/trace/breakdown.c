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

enum { L_C, L_M, L_Y, L_CM, L_YX, L_ALL, L_RC, L_N };

static void free_lists(struct trace_ivs *l) {
  for (int i = 0; i < L_N; i++)
    trace_ivs_free(&l[i]);
}

static enum pl_status build(const struct trace_data *d, unsigned fm, unsigned fw,
                            struct trace_ivs *l) {
  struct trace_ivs t1 = {0}, t2 = {0};
  enum pl_status s = trace_ivs_union(d, KIND(TRACE_COMPUTE), fm, fw, &l[L_C]);
  if (s == PL_OK)
    s = trace_ivs_union(d, KIND(TRACE_COMM), fm, fw, &l[L_M]);
  if (s == PL_OK)
    s = trace_ivs_union(d, KIND(TRACE_MEMCPY) | KIND(TRACE_MEMSET), fm, fw, &l[L_Y]);
  if (s == PL_OK)
    s = trace_ivs_union(d, KIND(TRACE_COMPUTE), fm | TRACE_F_RECOMPUTE,
                        fw | TRACE_F_RECOMPUTE, &l[L_RC]);
  if (s == PL_OK)
    s = trace_ivs_and(&l[L_C], &l[L_M], &l[L_CM]);
  if (s == PL_OK)
    s = trace_ivs_or(&l[L_C], &l[L_M], &t1);
  if (s == PL_OK)
    s = trace_ivs_minus(&l[L_Y], &t1, &l[L_YX]);
  if (s == PL_OK)
    s = trace_ivs_or(&t1, &l[L_Y], &l[L_ALL]);
  trace_ivs_free(&t1);
  trace_ivs_free(&t2);
  return s;
}

static int64_t measure_sum(const struct trace_ivs *x, const struct trace_iv *w, size_t nw,
                           int64_t *tmp) {
  trace_ivs_measure(x, w, nw, tmp);
  int64_t sum = 0;
  for (size_t i = 0; i < nw; i++)
    sum += tmp[i];
  return sum;
}

enum pl_status trace_breakdown(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                               unsigned flag_mask, unsigned flag_want,
                               struct trace_breakdown *out, struct pl_diag *diag) {
  struct trace_ivs l[L_N];
  memset(l, 0, sizeof l);
  memset(out, 0, sizeof *out);
  int64_t *tmp = pl_reallocarray(NULL, nw ? nw : 1, sizeof *tmp);
  enum pl_status s = tmp ? build(d, flag_mask, flag_want, l) : PL_ERR_NOMEM;
  if (s != PL_OK) {
    free_lists(l);
    pl_free(tmp);
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory computing the GPU timeline");
  }
  for (size_t i = 0; i < nw; i++)
    out->span_ns += w[i].b - w[i].a;
  out->compute_ns = measure_sum(&l[L_C], w, nw, tmp);
  out->comm_ns = measure_sum(&l[L_M], w, nw, tmp);
  out->overlapped_ns = measure_sum(&l[L_CM], w, nw, tmp);
  out->exposed_comm_ns = out->comm_ns - out->overlapped_ns;
  out->memory_ns = measure_sum(&l[L_Y], w, nw, tmp);
  out->exposed_memory_ns = measure_sum(&l[L_YX], w, nw, tmp);
  out->busy_ns = measure_sum(&l[L_ALL], w, nw, tmp);
  out->idle_ns = out->span_ns - out->busy_ns;
  out->recompute_ns = measure_sum(&l[L_RC], w, nw, tmp);
  free_lists(l);
  pl_free(tmp);
  return PL_OK;
}

bool trace_whole_window(const struct trace_data *d, unsigned flag_mask, unsigned flag_want,
                        struct trace_iv *w) {
  const struct trace_gpu *g = d->gpu.data;
  bool any = false;
  for (size_t i = 0; i < d->gpu.len; i++) {
    if ((g[i].flags & flag_mask) != flag_want)
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
