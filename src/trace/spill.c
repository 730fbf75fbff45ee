/* spill.c: CPU launch records beyond a fixed memory budget, kept in a
 * temporary file (issue #5, docs/trace.md 11.1).
 *
 * The reader holds at most trace_spill_cap launches; when that many are held,
 * they are sorted (trace_cmp_launch: correlation, runtime call first, time)
 * and appended to a tmpfile() as one run, and the vector is emptied. At link
 * time the runs are merged (runs.c: a k-way merge, each run read through its
 * share of a buffer of the same budget) into one stream in the order an in-memory
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

/* The runs merged back (runs.c), with repeats of a correlation folded. */
struct trace_merge {
  struct trace_runs *runs;
  struct trace_launch held; /* the record the next call returns, when have */
  bool have;
  int err; /* a pop's -1 */
};

static bool launch_before(const void *x, const void *y) {
  return trace_cmp_launch(x, y) < 0;
}

enum pl_status trace_merge_open(struct trace_data *d, struct trace_launch *buf, size_t buf_records,
                                struct trace_merge **out, struct pl_diag *diag) {
  struct trace_merge *m = *out = pl_calloc(1, sizeof *m);
  if (m == NULL || trace_runs_open(d->spill, &d->spill_runs, sizeof *buf, launch_before, buf,
                                   buf_records, &m->runs) != PL_OK) {
    trace_merge_close(m);
    *out = NULL;
    return pl_diag_set(diag, PL_ERR_NOMEM, "out of memory merging trace launches");
  }
  return PL_OK;
}

static bool pop(struct trace_merge *m, struct trace_launch *out) {
  int got = trace_runs_pop(m->runs, out);
  if (got < 0)
    m->err = -1;
  return got > 0;
}

int trace_merge_next(struct trace_merge *m, struct trace_launch *out) {
  if (!m->have && !(m->have = pop(m, &m->held)))
    return m->err;
  *out = m->held;
  for (;;) {
    m->have = pop(m, &m->held);
    if (!m->have || m->held.corr != out->corr)
      break;
    out->flow |= m->held.flow;
  }
  return m->err < 0 ? -1 : 1;
}

void trace_merge_close(struct trace_merge *m) {
  if (m == NULL)
    return;
  trace_runs_close(m->runs);
  pl_free(m);
}
