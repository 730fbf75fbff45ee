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
 *   per collective category k (all_reduce, all_gather, ..., other_comm; the
 *   kernel categories of kcat.c): comm_k = |M_k|, overlap_k = |M_k and C|,
 *   M_k the union of that category's kernels (docs/trace.md 3.4.2)
 *
 * so compute + exposed_comm + exposed_memory + idle = span exactly. These
 * are TraceLens's GPUEventAnalyser definitions (computation_time,
 * exposed_comm_time, exposed_memcpy_time, idle_time), taken per window.
 * In memory they come from interval lists; when the GPU events spilled
 * (gspill.c), from one sweep over them in start order (see sweep_all),
 * which gives the same integers without any list. */
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

/* Per communication category present: M_k and M_k and C, measured and freed
 * while C is alive (three lists at most, as below). */
static enum pl_status measure_cats(const struct trace_data *d, unsigned fm, unsigned fw,
                                   const struct trace_ivs *c, const struct trace_iv *w,
                                   size_t nw, int64_t *tmp, struct trace_breakdown *out) {
  bool present[PL_TRACE_COMM_CATS] = {false};
  const struct trace_gpu *g = d->gpu.data;
  for (size_t i = 0; i < d->gpu.len; i++)
    if (g[i].kind == TRACE_COMM)
      present[trace_comm_cat((enum trace_op)g[i].name_op)] = true;
  enum pl_status s = PL_OK;
  for (int k = 0; k < PL_TRACE_COMM_CATS && s == PL_OK; k++) {
    if (!present[k])
      continue;
    struct trace_ivs mk, xk;
    memset(&mk, 0, sizeof mk);
    memset(&xk, 0, sizeof xk);
    if ((s = trace_ivs_union_comm(d, k, fm, fw, &mk)) == PL_OK &&
        (s = trace_ivs_and(c, &mk, &xk)) == PL_OK) {
      out->comm_cat_ns[k] = measure_sum(&mk, w, nw, tmp);
      out->overlapped_cat_ns[k] = measure_sum(&xk, w, nw, tmp);
    }
    trace_ivs_free(&mk);
    trace_ivs_free(&xk);
  }
  return s;
}

/* The lists are built, measured and freed one after another, so at most
 * three are alive at once (C, M_k and M_k and C per category; C, M and C or M; then C or M, Y and Y - C - M):
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
      (s = measure_cats(d, fm, fw, &l.c, w, nw, tmp, out)) != PL_OK ||
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

/* ---- GPU events in temporary files (gspill.c): one sweep ----
 *
 * The same seven measures without interval lists, over the records merged
 * by start. Let e[K] be the largest end of the intervals of set K (C, M, Y,
 * and R: the compute intervals of recompute) that start at or before the
 * sweep's frontier f. Every such interval starts at or before f, so the part
 * of K's union at or after f is exactly [f, e[K]), and no later interval
 * starts before the next start s. [f, s) is therefore cut at the e[K] inside
 * it into pieces on which each set is either covered or not; each piece adds
 * its length inside the windows to the measures whose combination of sets
 * covers it. Integer ns throughout, so the sums equal the list algebra's. */
enum { SET_C, SET_M, SET_Y, SET_R, SET_K0, N_SETS = SET_K0 + PL_TRACE_COMM_CATS };
/* SET_K0 + k: the communication kernels of category k (trace_comm_cat) */

struct sweep {
  const struct trace_iv *w;
  size_t nw, j;   /* windows; the first one not wholly before the frontier */
  int64_t f;      /* the frontier */
  int64_t e[N_SETS];
  int64_t cm_ns;  /* |C or M| */
  struct trace_breakdown *out;
};

/* Length of [p, q) inside the windows; p never decreases between calls. */
static int64_t in_windows(struct sweep *sw, int64_t p, int64_t q) {
  while (sw->j < sw->nw && sw->w[sw->j].b <= p)
    sw->j++;
  int64_t sum = 0;
  for (size_t k = sw->j; k < sw->nw && sw->w[k].a < q; k++) {
    int64_t a = sw->w[k].a > p ? sw->w[k].a : p, b = sw->w[k].b < q ? sw->w[k].b : q;
    if (a < b)
      sum += b - a;
  }
  return sum;
}

static void add_piece(struct sweep *sw, int64_t p, int64_t q) {
  bool c = sw->e[SET_C] >= q, m = sw->e[SET_M] >= q, y = sw->e[SET_Y] >= q;
  bool r = sw->e[SET_R] >= q;
  if (!c && !m && !y && !r)
    return;
  int64_t len = in_windows(sw, p, q);
  struct trace_breakdown *o = sw->out;
  o->compute_ns += c ? len : 0;
  o->comm_ns += m ? len : 0;
  o->overlapped_ns += c && m ? len : 0;
  o->memory_ns += y ? len : 0;
  o->exposed_memory_ns += y && !c && !m ? len : 0;
  o->recompute_ns += r ? len : 0;
  sw->cm_ns += c || m ? len : 0;
  for (int k = 0; k < PL_TRACE_COMM_CATS && m; k++) {
    bool mk = sw->e[SET_K0 + k] >= q;
    o->comm_cat_ns[k] += mk ? len : 0;
    o->overlapped_cat_ns[k] += mk && c ? len : 0;
  }
}

/* Move the frontier to s, measuring [f, s). */
static void advance(struct sweep *sw, int64_t s) {
  int64_t cut[N_SETS + 1];
  int n = 0;
  for (int k = 0; k < N_SETS; k++) {
    int64_t e = sw->e[k];
    if (e <= sw->f || e >= s)
      continue;
    int i = n++; /* insertion sort: at most N_SETS cuts */
    while (i > 0 && cut[i - 1] > e) {
      cut[i] = cut[i - 1];
      i--;
    }
    cut[i] = e;
  }
  cut[n++] = s;
  int64_t p = sw->f;
  for (int i = 0; i < n; i++) {
    if (cut[i] > p)
      add_piece(sw, p, cut[i]);
    p = cut[i];
  }
  sw->f = s;
}

static void sweep_add(struct sweep *sw, const struct trace_gpu *g, unsigned fm, unsigned fw) {
  int64_t end = g->ts_ns + g->dur_ns;
  int set = g->kind == TRACE_COMPUTE ? SET_C : g->kind == TRACE_COMM ? SET_M : SET_Y;
  if (g->ts_ns > sw->f)
    advance(sw, g->ts_ns);
  if ((g->flags & fm) == fw && end > sw->e[set])
    sw->e[set] = end;
  int k = set == SET_M ? SET_K0 + trace_comm_cat((enum trace_op)g->name_op) : -1;
  if (k >= 0 && (g->flags & fm) == fw && end > sw->e[k])
    sw->e[k] = end;
  if (set == SET_C && (g->flags & (fm | TRACE_F_RECOMPUTE)) == (fw | TRACE_F_RECOMPUTE) &&
      end > sw->e[SET_R])
    sw->e[SET_R] = end;
}

static enum pl_status sweep_all(const struct trace_data *d, unsigned fm, unsigned fw,
                                const struct trace_iv *w, size_t nw,
                                struct trace_breakdown *out) {
  struct sweep sw = {w, nw, 0, INT64_MIN, {0}, 0, out};
  for (int k = 0; k < N_SETS; k++)
    sw.e[k] = INT64_MIN;
  struct trace_runs *m;
  enum pl_status s = trace_gmerge_open(d, &m, NULL);
  if (s != PL_OK) {
    trace_runs_close(m);
    return s;
  }
  struct trace_gpu g;
  int got;
  bool first = true;
  while ((got = trace_runs_pop(m, &g)) > 0) {
    if (!trace_in_view(d, &g))
      continue;
    if (first)
      sw.f = g.ts_ns; /* nothing is covered before the first start */
    first = false;
    sweep_add(&sw, &g, fm, fw);
  }
  trace_runs_close(m);
  if (got < 0)
    return PL_ERR_IO;
  int64_t last = sw.f;
  for (int k = 0; k < N_SETS; k++)
    last = sw.e[k] > last ? sw.e[k] : last;
  if (!first)
    advance(&sw, last);
  out->busy_ns = sw.cm_ns + out->exposed_memory_ns;
  return PL_OK;
}

enum pl_status trace_breakdown(const struct trace_data *d, const struct trace_iv *w, size_t nw,
                               unsigned flag_mask, unsigned flag_want,
                               struct trace_breakdown *out, struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  enum pl_status s;
  if (d->gspill != NULL) {
    s = sweep_all(d, flag_mask, flag_want, w, nw, out);
  } else {
    int64_t *tmp = pl_reallocarray(NULL, nw ? nw : 1, sizeof *tmp);
    s = tmp ? measure_all(d, flag_mask, flag_want, w, nw, tmp, out) : PL_ERR_NOMEM;
    pl_free(tmp);
  }
  if (s == PL_ERR_IO)
    return pl_diag_set(diag, s, "cannot read the temporary file of GPU events");
  if (s != PL_OK)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory computing the GPU timeline");
  for (size_t i = 0; i < nw; i++)
    out->span_ns += w[i].b - w[i].a;
  out->exposed_comm_ns = out->comm_ns - out->overlapped_ns;
  out->idle_ns = out->span_ns - out->busy_ns;
  return PL_OK;
}

struct whole {
  const struct trace_data *d;
  unsigned fm, fw;
  struct trace_iv *w;
  bool any;
};

static void widen(struct whole *x, const struct trace_gpu *g, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if ((g[i].flags & x->fm) != x->fw || !trace_in_view(x->d, &g[i]))
      continue;
    int64_t a = g[i].ts_ns, b = g[i].ts_ns + g[i].dur_ns;
    if (!x->any || a < x->w->a)
      x->w->a = a;
    if (!x->any || b > x->w->b)
      x->w->b = b;
    x->any = true;
  }
}

static void widen_piece(void *ctx, struct trace_grec *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    widen(ctx, &r[i].g, 1);
}

bool trace_whole_window(const struct trace_data *d, unsigned flag_mask, unsigned flag_want,
                        struct trace_iv *w) {
  struct whole x = {d, flag_mask, flag_want, w, false};
  if (d->gspill == NULL)
    widen(&x, d->gpu.data, d->gpu.len);
  else if (trace_gspill_each(d, false, widen_piece, &x, NULL) != PL_OK)
    return false;
  return x.any;
}
