/* spill.c: CPU launch records beyond a fixed memory budget, kept in a
 * temporary file (issue #5, docs/trace.md 11.1).
 *
 * The reader holds at most trace_spill_cap launches; when that many are held,
 * they are sorted (trace_cmp_launch: correlation, runtime call first, time)
 * and appended to a tmpfile() as one run, and the vector is emptied. At link
 * time the runs are merged (a k-way merge, each run read through its share of
 * a buffer of the same budget) into one stream in the order an in-memory
 * sort would give, and repeats of a correlation are folded exactly as
 * trace_link's in-memory dedupe folds them (the first record wins, flow flags
 * are or-ed), so the result does not depend on the budget. The file is
 * removed by the C library when it is closed (tmpfile). Below the
 * budget nothing here runs. */
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

size_t trace_spill_cap(const struct trace_data *d) {
  int64_t b = d->spill_budget_bytes > 0 ? d->spill_budget_bytes : (int64_t)TRACE_SPILL_BUDGET_BYTES;
  size_t n = (size_t)(b / (int64_t)sizeof(struct trace_launch));
  return n < 4 ? 4 : n; /* a few records at least: a merge needs one per run */
}

enum pl_status trace_spill_launches(struct trace_data *d, struct pl_diag *diag) {
  size_t n = d->launches.len;
  if (n == 0)
    return PL_OK;
  if (d->spill == NULL && (d->spill = tmpfile()) == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot create a temporary file for trace launches");
  int64_t *run = trace_vec_push(&d->spill_runs, sizeof *run);
  if (run == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory spilling trace launches");
  trace_sort_launches(d->launches.data, n);
  if (fseek(d->spill, 0, SEEK_END) != 0 ||
      fwrite(d->launches.data, sizeof(struct trace_launch), n, d->spill) != n)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write the temporary file of trace launches");
  *run = (int64_t)n;
  d->launches.len = 0;
  return PL_OK;
}

/* One run being merged: its records [next, end) in the file, and a window
 * buf[pos, len) of them read ahead. */
struct run {
  int64_t next, end; /* record numbers in the file */
  struct trace_launch *buf;
  size_t pos, len;
};

struct trace_merge {
  FILE *f;
  struct run *runs;
  size_t n_runs, per; /* per: buffer records of each run */
  struct trace_launch *bufs; /* the caller's, or own */
  struct trace_launch *own;
  struct trace_launch held; /* the record the next call returns, when have */
  bool have;
  bool err;
};

enum pl_status trace_merge_open(struct trace_data *d, struct trace_launch *buf, size_t buf_records,
                                struct trace_merge **out, struct pl_diag *diag) {
  size_t k = d->spill_runs.len;
  struct trace_merge *m = pl_calloc(1, sizeof *m);
  if (m == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory merging trace launches");
  m->f = d->spill;
  m->n_runs = k;
  m->per = k > 0 && buf_records / k > 0 ? buf_records / k : 1;
  m->runs = pl_calloc(k > 0 ? k : 1, sizeof *m->runs);
  m->bufs = buf;
  if (k * m->per > buf_records) /* more runs than buffer records: one each */
    m->bufs = m->own = pl_reallocarray(NULL, k, sizeof *m->bufs);
  if (m->runs == NULL || m->bufs == NULL) {
    trace_merge_close(m);
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory merging trace launches");
  }
  int64_t at = 0;
  for (size_t i = 0; i < k; i++) {
    int64_t n = TRACE_AT(d->spill_runs, int64_t, i);
    m->runs[i] = (struct run){at, at + n, m->bufs + i * m->per, 0, 0};
    at += n;
  }
  *out = m;
  return PL_OK;
}

/* Make run r's window non-empty if it has records left; false at its end. */
static bool refill(struct trace_merge *m, struct run *r) {
  if (r->pos < r->len)
    return true;
  if (r->next >= r->end)
    return false;
  size_t want = (size_t)(r->end - r->next) < m->per ? (size_t)(r->end - r->next) : m->per;
  long off = (long)(r->next * (int64_t)sizeof(struct trace_launch));
  if (fseek(m->f, off, SEEK_SET) != 0 ||
      fread(r->buf, sizeof *r->buf, want, m->f) != want) {
    m->err = true;
    return false;
  }
  r->next += (int64_t)want;
  r->pos = 0;
  r->len = want;
  return true;
}

/* The smallest head over all runs, taken out; false when all are done. */
static bool pop_min(struct trace_merge *m, struct trace_launch *out) {
  struct run *best = NULL;
  for (size_t i = 0; i < m->n_runs; i++) {
    struct run *r = &m->runs[i];
    if (!refill(m, r))
      continue;
    if (best == NULL || trace_cmp_launch(&r->buf[r->pos], &best->buf[best->pos]) < 0)
      best = r;
  }
  if (best == NULL || m->err)
    return false;
  *out = best->buf[best->pos++];
  return true;
}

int trace_merge_next(struct trace_merge *m, struct trace_launch *out) {
  if (!m->have && !(m->have = pop_min(m, &m->held)))
    return m->err ? -1 : 0;
  *out = m->held;
  for (;;) {
    m->have = pop_min(m, &m->held);
    if (!m->have || m->held.corr != out->corr)
      break;
    out->flow |= m->held.flow;
  }
  return m->err ? -1 : 1;
}

void trace_merge_close(struct trace_merge *m) {
  if (m == NULL)
    return;
  pl_free(m->runs);
  pl_free(m->own);
  pl_free(m);
}
