/* link.c: tie each GPU event to the CPU side of the trace.
 *
 * A GPU event carries args "correlation"; the CPU launch with the same id is a
 * cuda_runtime/cuda_driver call (HIP calls on ROCm) with args "correlation",
 * or the start ("ph": "s") of an ac2g/async flow whose "id" is that
 * correlation (Kineto draws one per launch). The launch's time decides the
 * ProfilerStep the event belongs to (docs/trace.md 2.2), its thread and time
 * whether it ran inside torch.utils.checkpoint's recompute_fn (activation
 * recomputation), and its "External id" or enclosing record_param_comms op
 * which collective a NCCL/RCCL kernel is when the kernel's own args do not say
 * (RCCL's ncclDevKernel_Generic, older PyTorch). Everything is sorted once and
 * looked up by binary search: O(n log n) in the number of GPU events. */
#include <stdlib.h>
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

static int cmp_span(const void *a, const void *b) {
  const struct trace_span *x = a, *y = b;
  if (x->ts_ns != y->ts_ns)
    return x->ts_ns < y->ts_ns ? -1 : 1;
  return (x->num > y->num) - (x->num < y->num);
}

/* Merge the runtime record and the flow start of one correlation into one
 * record whose flow flag says whether a flow exists. */
static void dedupe_launches(struct trace_data *d) {
  struct trace_launch *l = d->launches.data;
  size_t n = d->launches.len, k = 0;
  if (n == 0)
    return;
  trace_sort_launches(l, n);
  for (size_t i = 0; i < n; i++) {
    if (k > 0 && l[k - 1].corr == l[i].corr) {
      l[k - 1].flow |= l[i].flow;
      continue;
    }
    l[k++] = l[i];
  }
  d->launches.len = k;
}

static int cmp_num(const void *a, const void *b) {
  const struct trace_span *x = a, *y = b;
  if (x->num != y->num)
    return x->num < y->num ? -1 : 1;
  return (x->ts_ns > y->ts_ns) - (x->ts_ns < y->ts_ns);
}

/* Sort steps by time; a step number seen twice keeps its first span. */
static void dedupe_steps(struct trace_data *d) {
  struct trace_span *s = d->steps.data;
  size_t n = d->steps.len, k = 0;
  if (n == 0)
    return;
  qsort(s, n, sizeof *s, cmp_num);
  for (size_t i = 0; i < n; i++)
    if (k == 0 || s[k - 1].num != s[i].num)
      s[k++] = s[i];
  d->steps.len = k;
  qsort(s, k, sizeof *s, cmp_span);
}

/* The launch of correlation corr in l[0, n) (sorted by correlation), or
 * NULL; a negative correlation (none) or one outside the block has none. */
static const struct trace_launch *find_in(const struct trace_launch *l, size_t n, int64_t corr) {
  if (corr < 0 || n == 0 || corr < l[0].corr || corr > l[n - 1].corr)
    return NULL;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l[mid].corr < corr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && l[lo].corr == corr ? &l[lo] : NULL;
}

static const struct trace_launch *find_launch(const struct trace_data *d, int64_t corr) {
  return find_in(d->launches.data, d->launches.len, corr);
}

/* Index of the last span starting at or before t, or -1. */
static long last_before(const struct trace_span *s, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].ts_ns <= t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (long)lo - 1;
}

static int32_t step_of(const struct trace_data *d, int64_t t) {
  const struct trace_span *s = d->steps.data;
  long i = last_before(s, d->steps.len, t);
  return i >= 0 && t < s[i].end_ns ? (int32_t)i : -1;
}

/* Recompute frames on one thread are sequential; a few steps back suffice. */
static bool in_recompute(const struct trace_data *d, int64_t t, int32_t tid) {
  const struct trace_span *s = d->recompute.data;
  long i = last_before(s, d->recompute.len, t);
  for (long k = 0; i >= 0 && k < 64; i--, k++)
    if (trace_tid32(s[i].tid) == tid && t < s[i].end_ns)
      return true;
  return false;
}

/* record_param_comms ops (colls with an External id) by External id and by
 * start time: (key, index) pairs, so sorting needs no global context. */
struct rpc_key {
  int64_t key;
  int32_t idx;
};
struct rpc_index {
  struct rpc_key *by_ext;
  struct rpc_key *by_ts;
  size_t n;
};

static int cmp_key(const void *a, const void *b) {
  const struct rpc_key *x = a, *y = b;
  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return (x->idx > y->idx) - (x->idx < y->idx);
}

static enum pl_status rpc_build(const struct trace_data *d, struct rpc_index *x,
                                struct pl_diag *diag) {
  const struct trace_coll *c = d->colls.data;
  memset(x, 0, sizeof *x);
  for (size_t i = 0; i < d->colls.len; i++)
    x->n += c[i].ext_id >= 0;
  if (x->n == 0)
    return PL_OK;
  x->by_ext = pl_reallocarray(NULL, x->n, sizeof *x->by_ext);
  x->by_ts = pl_reallocarray(NULL, x->n, sizeof *x->by_ts);
  if (x->by_ext == NULL || x->by_ts == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory linking collectives");
  size_t k = 0;
  for (size_t i = 0; i < d->colls.len; i++) {
    if (c[i].ext_id < 0)
      continue;
    x->by_ext[k] = (struct rpc_key){c[i].ext_id, (int32_t)i};
    x->by_ts[k] = (struct rpc_key){c[i].ts_ns, (int32_t)i};
    k++;
  }
  qsort(x->by_ext, x->n, sizeof *x->by_ext, cmp_key);
  qsort(x->by_ts, x->n, sizeof *x->by_ts, cmp_key);
  return PL_OK;
}

/* Number of keys <= v. */
static size_t upper(const struct rpc_key *k, size_t n, int64_t v) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (k[mid].key <= v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int32_t rpc_by_ext(const struct rpc_index *x, int64_t ext) {
  if (ext < 0 || x->n == 0)
    return -1;
  size_t i = upper(x->by_ext, x->n, ext - 1);
  return i < x->n && x->by_ext[i].key == ext ? x->by_ext[i].idx : -1;
}

/* The op on the launching thread whose span holds the launch, the latest to
 * start; a record_param_comms op before a "nccl:" annotation, which holds
 * the input's size only (reader_shape.c). */
static int32_t rpc_around(const struct trace_data *d, const struct rpc_index *x,
                          const struct trace_launch *l) {
  const struct trace_coll *c = d->colls.data;
  size_t i = upper(x->by_ts, x->n, l->ts_ns);
  int32_t title = -1;
  for (size_t k = 0; i > 0 && k < 16; i--, k++) {
    const struct trace_coll *r = &c[x->by_ts[i - 1].idx];
    if (trace_tid32(r->tid) != l->tid || l->ts_ns > r->end_ns)
      continue;
    if (!r->title)
      return x->by_ts[i - 1].idx;
    if (title < 0)
      title = x->by_ts[i - 1].idx;
  }
  return title;
}

static void link_to(const struct trace_data *d, struct trace_gpu *g, const struct trace_launch *l) {
  g->flags |= TRACE_F_LINKED;
  g->launch_ns = l->ts_ns;
  g->rt_dur_ns = l->dur_ns < 0 ? -1 : l->dur_ns > INT32_MAX ? INT32_MAX : (int32_t)l->dur_ns;
  if (l->flow)
    g->flags |= TRACE_F_FLOW;
  g->step = step_of(d, l->ts_ns);
  if (d->recompute.len > 0 && in_recompute(d, l->ts_ns, l->tid))
    g->flags |= TRACE_F_RECOMPUTE;
}

static void link_one(struct trace_data *d, struct trace_gpu *g, int64_t corr) {
  const struct trace_launch *l = find_launch(d, corr);
  if (l != NULL)
    link_to(d, g, l);
}

/* The collective of a NCCL kernel whose own args do not name one, from its
 * launch l (NULL when none). */
static int32_t coll_of(const struct trace_data *d, const struct rpc_index *x,
                       const struct trace_comm *c, const struct trace_launch *l) {
  int32_t k = rpc_by_ext(x, c->ext_id);
  if (k < 0 && l != NULL)
    k = rpc_by_ext(x, l->ext_id);
  if (k < 0 && l != NULL)
    k = rpc_around(d, x, l);
  return k;
}

static void link_comm(struct trace_data *d, const struct rpc_index *x, struct trace_comm *c) {
  if (c->coll >= 0 || x->n == 0)
    return;
  int64_t corr = TRACE_AT(d->corr, int64_t, c->gpu);
  c->coll = coll_of(d, x, c, find_launch(d, corr));
}

/* Spilled launches (spill.c) arrive merged in blocks of distinct, ascending
 * correlations; each GPU event's correlation is in at most one block, so
 * linking block by block gives what one in-memory search gives. */
static void link_block(struct trace_data *d, const struct rpc_index *x,
                       const struct trace_launch *b, size_t n) {
  struct trace_gpu *g = d->gpu.data;
  const int64_t *corr = d->corr.data;
  for (size_t i = 0; i < d->gpu.len; i++) {
    const struct trace_launch *l = find_in(b, n, corr[i]);
    if (l != NULL)
      link_to(d, &g[i], l);
  }
  struct trace_comm *c = d->comm.data;
  for (size_t i = 0; i < d->comm.len && x->n > 0; i++) {
    const struct trace_launch *l = c[i].coll < 0 ? find_in(b, n, corr[c[i].gpu]) : NULL;
    if (l != NULL)
      c[i].coll = coll_of(d, x, &c[i], l);
  }
}

/* GPU events in the temporary file (gspill.c): each launch block is one
 * pass over the file, rewriting the records in place. The first pass gives
 * NCCL kernels the collective their own External id names, as
 * link_spilled does before its blocks. */
struct fblock {
  struct trace_data *d;
  const struct rpc_index *x;
  const struct trace_launch *b; /* NULL: the pass by External id alone */
  size_t n;
};

static void link_file_piece(void *ctx, struct trace_grec *r, size_t n) {
  const struct fblock *f = ctx;
  for (size_t i = 0; i < n; i++) {
    struct trace_comm c = {r[i].ext_id, -1, r[i].coll};
    bool comm = r[i].g.kind == TRACE_COMM && r[i].coll < 0 && f->x->n > 0;
    if (f->b == NULL) {
      if (comm)
        r[i].coll = coll_of(f->d, f->x, &c, NULL);
      continue;
    }
    const struct trace_launch *l = find_in(f->b, f->n, r[i].corr);
    if (l == NULL)
      continue;
    link_to(f->d, &r[i].g, l);
    if (comm)
      r[i].coll = coll_of(f->d, f->x, &c, l);
  }
}

static enum pl_status link_file_block(struct trace_data *d, const struct rpc_index *x,
                                      const struct trace_launch *b, size_t n,
                                      struct pl_diag *diag) {
  struct fblock f = {d, x, b, n};
  return trace_gspill_each(d, true, link_file_piece, &f, diag);
}

/* Link from the spill file: the held launches become its last run, and
 * their vector (at least the budget: it filled up once) is reused, half as
 * the merge's read buffers, half as one block, so linking allocates no more
 * (and glibc's heap does not grow by a second budget). */
static enum pl_status link_spilled(struct trace_data *d, const struct rpc_index *x,
                                   struct pl_diag *diag) {
  enum pl_status s = trace_spill_launches(d, diag);
  if (s != PL_OK)
    return s;
  struct trace_comm *c = d->comm.data;
  for (size_t i = 0; i < d->comm.len && x->n > 0; i++)
    if (c[i].coll < 0) /* the kernel's External id first, as link_comm */
      c[i].coll = coll_of(d, x, &c[i], NULL);
  if (d->gspill != NULL && x->n > 0)
    s = link_file_block(d, x, NULL, 0, diag);
  if (s != PL_OK)
    return s;
  size_t cap = d->launches.cap, nb = cap / 2;
  struct trace_launch *b = d->launches.data;
  struct trace_merge *m = NULL;
  s = trace_merge_open(d, b + nb, cap - nb, &m, diag);
  size_t n = 0;
  int got = 1;
  while (s == PL_OK && got > 0) {
    got = trace_merge_next(m, &b[n]);
    n += got > 0;
    if (n > 0 && (n == nb || got == 0)) {
      if (d->gspill != NULL)
        s = link_file_block(d, x, b, n, diag);
      else
        link_block(d, x, b, n);
      n = 0;
    }
  }
  if (s == PL_OK && got < 0)
    s = pl_diag_set(diag, PL_ERR_IO, "cannot read the temporary file of trace launches");
  trace_merge_close(m);
  return s;
}

/* GPU events in the file, launches in memory (sorted, deduplicated): one
 * pass by External id, one with every launch as one block. */
static enum pl_status link_in_file(struct trace_data *d, const struct rpc_index *x,
                                   struct pl_diag *diag) {
  enum pl_status s = x->n > 0 ? link_file_block(d, x, NULL, 0, diag) : PL_OK;
  if (s == PL_OK && d->launches.len > 0)
    s = link_file_block(d, x, d->launches.data, d->launches.len, diag);
  return s;
}

/* A NCCL kernel whose collective was found takes the collective's op as its
 * name_op, so the kernel breakdown's communication categories (kernels.c)
 * and the collectives (collectives.c, which prefers the collective's op
 * anyway) agree. Spilled GPU events get theirs in one more pass over the
 * file (ops_piece). */
static void comm_ops(struct trace_data *d) {
  const struct trace_comm *c = d->comm.data;
  for (size_t i = 0; i < d->comm.len; i++) {
    if (c[i].coll < 0)
      continue;
    uint8_t op = TRACE_AT(d->colls, struct trace_coll, c[i].coll).op;
    if (op != TRACE_OP_UNKNOWN)
      TRACE_AT(d->gpu, struct trace_gpu, c[i].gpu).name_op = op;
  }
}

static void ops_piece(void *ctx, struct trace_grec *r, size_t n) {
  const struct trace_data *d = ctx;
  for (size_t i = 0; i < n; i++) {
    if (r[i].g.kind != TRACE_COMM || r[i].coll < 0)
      continue;
    uint8_t op = TRACE_AT(d->colls, struct trace_coll, r[i].coll).op;
    if (op != TRACE_OP_UNKNOWN)
      r[i].g.name_op = op;
  }
}

enum pl_status trace_link(struct trace_data *d, struct pl_diag *diag) {
  if (d->linked)
    return PL_OK;
  dedupe_launches(d);
  dedupe_steps(d);
  if (d->recompute.len > 0)
    qsort(d->recompute.data, d->recompute.len, sizeof(struct trace_span), cmp_span);
  struct rpc_index x;
  enum pl_status s = rpc_build(d, &x, diag);
  if (s == PL_OK && d->gspill != NULL) /* the GPU events held go after the rest */
    s = trace_spill_gpu(d, diag);
  if (s == PL_OK && d->spill != NULL)
    s = link_spilled(d, &x, diag);
  else if (s == PL_OK && d->gspill != NULL)
    s = link_in_file(d, &x, diag);
  else if (s == PL_OK) {
    struct trace_gpu *g = d->gpu.data;
    const int64_t *corr = d->corr.data;
    for (size_t i = 0; i < d->gpu.len; i++)
      link_one(d, &g[i], corr[i]);
    struct trace_comm *c = d->comm.data;
    for (size_t i = 0; i < d->comm.len; i++)
      link_comm(d, &x, &c[i]);
  }
  if (s == PL_OK && d->gspill == NULL)
    comm_ops(d);
  if (s == PL_OK && d->gspill != NULL && d->colls.len > 0)
    s = trace_gspill_each(d, true, ops_piece, d, diag);
  if (s == PL_OK && d->gspill != NULL) {
    trace_vec_free(&d->launches); /* before the sort's budget is allocated */
    s = trace_gspill_sort(d, diag);
  }
  if (s == PL_OK) {
    /* what only linking needed: the launches and the correlations */
    trace_vec_free(&d->launches);
    trace_vec_free(&d->corr);
    d->linked = true;
  }
  pl_free(x.by_ext);
  pl_free(x.by_ts);
  return s;
}
