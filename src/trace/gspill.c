/* gspill.c: GPU events beyond a fixed memory budget, kept in temporary files
 * (issue #5, docs/trace.md 11.1), so that peak memory does not grow with
 * the trace.
 *
 * The reader holds at most trace_gpu_cap GPU records (trace_gpu, its
 * correlation and, for NCCL kernels, trace_comm). When that many are held,
 * they are written to a tmpfile() as struct trace_grec in trace order, the
 * vectors are emptied, and from then on every piece that fills up follows;
 * trace_link writes out the rest, so the file then holds every GPU event of
 * the trace in trace order. Linking (link.c) rewrites the records in place,
 * piece by piece, once per block of launches. trace_gspill_sort then writes
 * the linked records again to a second tmpfile, in runs of one budget each
 * sorted by start, and trace_gmerge_open merges the runs back (runs.c: k-way,
 * each run through its share of one budget) for the breakdown's sweep.
 * Everything else that reads GPU events (step extents, counts, collectives)
 * makes one pass over the first file in trace order, so sums of doubles are
 * taken in the order the in-memory path takes them and results are
 * identical. The C library removes both files when they are closed. Below
 * the budget nothing here runs. */
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>

#include "heapsort.h"
#include "trace_int.h"

#define PIECE 4096 /* records per read/write of a pass: 192 KiB */

size_t trace_gpu_cap(const struct trace_data *d) {
  int64_t b = d->gpu_budget_bytes > 0 ? d->gpu_budget_bytes : (int64_t)TRACE_GPU_BUDGET_BYTES;
  size_t n = (size_t)(b / (int64_t)(sizeof(struct trace_gpu) + sizeof(int64_t)));
  return n < 4 ? 4 : n;
}

enum pl_status trace_spill_gpu(struct trace_data *d, struct pl_diag *diag) {
  if (d->gspill == NULL && (d->gspill = tmpfile()) == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot create a temporary file for GPU events");
  const struct trace_gpu *g = d->gpu.data;
  const int64_t *corr = d->corr.data;
  const struct trace_comm *c = d->comm.data;
  struct trace_grec buf[64];
  size_t k = 0, nb = 0;
  FILE *f = d->gspill;
  if (fseek(f, 0, SEEK_END) != 0)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write the temporary file of GPU events");
  for (size_t i = 0; i < d->gpu.len; i++) {
    struct trace_grec *r = &buf[nb++];
    memset(r, 0, sizeof *r);
    r->g = g[i];
    r->corr = corr[i];
    r->ext_id = -1;
    r->coll = -1;
    if (k < d->comm.len && c[k].gpu == (int32_t)i) {
      r->ext_id = c[k].ext_id;
      r->coll = c[k].coll;
      k++;
    }
    if ((nb == 64 || i + 1 == d->gpu.len) && fwrite(buf, sizeof *buf, nb, f) != nb)
      return pl_diag_set(diag, PL_ERR_IO, "cannot write the temporary file of GPU events");
    nb = nb == 64 ? 0 : nb;
  }
  d->n_gspill += (int64_t)d->gpu.len;
  d->gpu.len = d->corr.len = d->comm.len = 0;
  return PL_OK;
}

enum pl_status trace_gspill_each(const struct trace_data *d, bool write, trace_grec_fn *fn,
                                 void *ctx, struct pl_diag *diag) {
  struct trace_grec *buf = pl_reallocarray(NULL, PIECE, sizeof *buf);
  if (buf == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory reading GPU events back");
  FILE *f = d->gspill;
  enum pl_status s = PL_OK;
  for (int64_t at = 0; at < d->n_gspill && s == PL_OK;) {
    size_t n = d->n_gspill - at < PIECE ? (size_t)(d->n_gspill - at) : PIECE;
    long off = (long)(at * (int64_t)sizeof *buf);
    if (fseek(f, off, SEEK_SET) != 0 || fread(buf, sizeof *buf, n, f) != n) {
      s = pl_diag_set(diag, PL_ERR_IO, "cannot read the temporary file of GPU events");
      break;
    }
    fn(ctx, buf, n);
    if (write && (fseek(f, off, SEEK_SET) != 0 || fwrite(buf, sizeof *buf, n, f) != n))
      s = pl_diag_set(diag, PL_ERR_IO, "cannot write the temporary file of GPU events");
    at += (int64_t)n;
  }
  pl_free(buf);
  return s;
}

/* In place by start (heapsort.h: glibc's qsort would allocate a copy). */
static bool before(const void *x, const void *y) {
  return ((const struct trace_gpu *)x)->ts_ns < ((const struct trace_gpu *)y)->ts_ns;
}

static void sort_by_start(struct trace_gpu *g, size_t n) {
  _Static_assert(sizeof(struct trace_gpu) <= TRACE_HEAP_MAX_ELEM, "heapsort.h buffer");
  trace_heapsort(g, n, sizeof *g, before);
}

/* One budget of records at a time: collected, sorted, written as a run. */
struct sorter {
  struct trace_data *d;
  struct trace_gpu *run;
  size_t n, cap;
  enum pl_status err;
};

static void flush_run(struct sorter *st) {
  if (st->n == 0 || st->err != PL_OK)
    return;
  int64_t *len = trace_vec_push(&st->d->gsorted_runs, sizeof *len);
  sort_by_start(st->run, st->n);
  if (len == NULL)
    st->err = PL_ERR_NOMEM;
  else if (fwrite(st->run, sizeof *st->run, st->n, st->d->gsorted) != st->n)
    st->err = PL_ERR_IO;
  else
    *len = (int64_t)st->n;
  st->n = 0;
}

static void collect(void *ctx, struct trace_grec *r, size_t n) {
  struct sorter *st = ctx;
  for (size_t i = 0; i < n && st->err == PL_OK; i++) {
    st->run[st->n++] = r[i].g;
    if (st->n == st->cap)
      flush_run(st);
  }
}

/* Sorted-run records in one GPU budget: a run is sorted in, and the merge
 * reads back through, the memory trace_gpu_cap's records take. */
static size_t sorted_cap(const struct trace_data *d) {
  return trace_gpu_cap(d) * (sizeof(struct trace_gpu) + sizeof(int64_t)) / sizeof(struct trace_gpu);
}

enum pl_status trace_gspill_sort(struct trace_data *d, struct pl_diag *diag) {
  struct sorter st = {d, NULL, 0, sorted_cap(d), PL_OK};
  if (d->gsorted == NULL && (d->gsorted = tmpfile()) == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot create a temporary file for GPU events");
  if (fseek(d->gsorted, 0, SEEK_SET) != 0)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write the temporary file of sorted GPU events");
  d->gsorted_runs.len = 0; /* a retried link starts over */
  if ((st.run = pl_reallocarray(NULL, st.cap, sizeof *st.run)) == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory sorting GPU events");
  enum pl_status s = trace_gspill_each(d, false, collect, &st, diag);
  if (s == PL_OK)
    flush_run(&st);
  pl_free(st.run);
  if (s == PL_OK && st.err == PL_ERR_NOMEM)
    s = pl_diag_set(diag, PL_ERR_NOMEM, "out of memory sorting GPU events");
  else if (s == PL_OK && st.err != PL_OK)
    s = pl_diag_set(diag, PL_ERR_IO, "cannot write the temporary file of sorted GPU events");
  return s;
}

/* ---- merging the sorted runs back ---- */

static bool gpu_before(const void *x, const void *y) {
  return before(x, y);
}

enum pl_status trace_gmerge_open(const struct trace_data *d, struct trace_runs **out,
                                 struct pl_diag *diag) {
  if (trace_runs_open(d->gsorted, &d->gsorted_runs, sizeof(struct trace_gpu), gpu_before, NULL,
                      sorted_cap(d), out) != PL_OK)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory merging GPU events");
  return PL_OK;
}
