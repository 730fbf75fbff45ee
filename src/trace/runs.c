/* runs.c: k-way merge of sorted runs of fixed-size records kept in a
 * temporary file: the read-back half of the external merge sorts that keep
 * trace memory bounded (spill.c: launches; gspill.c: GPU events sorted by
 * start; docs/trace.md 11.1).
 *
 * The runs lie back to back in the file, their lengths in a trace_vec of
 * int64_t. Each run is read through its share of one buffer (the caller's,
 * or allocated here), so memory is the buffer whatever the file's size. The
 * merge takes the smallest head by a strict "before": of equal heads the
 * earlier run's comes first, so the order is the one a stable in-memory sort
 * of the concatenated runs would give. With k runs a pop compares k heads,
 * which is cheap at the run counts budgets give (the file is ~budget x k). */
#include <stdio.h>
#include <string.h>

#include <plateau/alloc.h>

#include "trace_int.h"

/* One run: its records [next, end) in the file, a window buf[pos, len). */
struct run {
  int64_t next, end;
  unsigned char *buf;
  size_t pos, len;
};

struct trace_runs {
  FILE *f;
  size_t size;  /* bytes per record */
  trace_before_fn *before;
  struct run *runs;
  size_t n_runs, per; /* per: buffer records of each run */
  unsigned char *own; /* the buffer, when not the caller's */
  bool err;
};

enum pl_status trace_runs_open(void *file, const struct trace_vec *lens, size_t size,
                               trace_before_fn *before, void *buf, size_t buf_records,
                               struct trace_runs **out) {
  size_t k = lens->len;
  struct trace_runs *m = pl_calloc(1, sizeof *m);
  *out = m;
  if (m == NULL)
    return PL_ERR_NOMEM;
  m->f = file;
  m->size = size;
  m->before = before;
  m->n_runs = k;
  m->per = k > 0 && buf_records / k > 0 ? buf_records / k : 1; /* one record per run at least */
  m->runs = pl_calloc(k > 0 ? k : 1, sizeof *m->runs);
  unsigned char *bufs = buf;
  if (buf == NULL || k * m->per > buf_records)
    bufs = m->own = pl_reallocarray(NULL, k > 0 ? k * m->per : 1, size);
  if (m->runs == NULL || bufs == NULL)
    return PL_ERR_NOMEM;
  int64_t at = 0;
  for (size_t i = 0; i < k; i++) {
    int64_t n = TRACE_AT(*lens, int64_t, i);
    m->runs[i] = (struct run){at, at + n, bufs + i * m->per * size, 0, 0};
    at += n;
  }
  return PL_OK;
}

/* Make run r's window non-empty if it has records left; false at its end. */
static bool refill(struct trace_runs *m, struct run *r) {
  if (r->pos < r->len)
    return true;
  if (r->next >= r->end)
    return false;
  size_t want = (size_t)(r->end - r->next) < m->per ? (size_t)(r->end - r->next) : m->per;
  long off = (long)(r->next * (int64_t)m->size);
  if (fseek(m->f, off, SEEK_SET) != 0 || fread(r->buf, m->size, want, m->f) != want) {
    m->err = true;
    return false;
  }
  r->next += (int64_t)want;
  r->pos = 0;
  r->len = want;
  return true;
}

int trace_runs_pop(struct trace_runs *m, void *out) {
  struct run *best = NULL;
  for (size_t i = 0; i < m->n_runs; i++) {
    struct run *r = &m->runs[i];
    if (refill(m, r) &&
        (best == NULL ||
         m->before(r->buf + r->pos * m->size, best->buf + best->pos * m->size)))
      best = r;
  }
  if (m->err)
    return -1;
  if (best == NULL)
    return 0;
  memcpy(out, best->buf + best->pos++ * m->size, m->size);
  return 1;
}

void trace_runs_close(struct trace_runs *m) {
  if (m == NULL)
    return;
  pl_free(m->runs);
  pl_free(m->own);
  pl_free(m);
}
