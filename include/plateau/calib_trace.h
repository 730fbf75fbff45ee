/* calib_trace.h: the collective calls measured in Kineto traces, grouped
 * into nccl-tests-like series so pl_calib_nccl (calib.h) can fit a cluster to
 * them (`plateau calibrate trace`, docs/trace.md 10).
 *
 * A series is one (op, ranks, ranks per node); a row is one message size,
 * with the time of that size's calls over every rank and kept step reduced
 * to one number (the minimum by default: see docs/trace.md 10.2).
 * Ownership: what pl_calib_trace_series returns belongs to the caller and is
 * released with pl_calib_trace_free; series point into it. */
#ifndef PLATEAU_CALIB_TRACE_H
#define PLATEAU_CALIB_TRACE_H

#include <stdint.h>
#include "calib.h"
#include "status.h"
#include "trace.h"

enum pl_calib_trace_stat {
  PL_CALIB_TRACE_MIN,    /* the fastest call of a size: the rank that waited least */
  PL_CALIB_TRACE_MEDIAN  /* the median call (includes typical waiting for peers) */
};

struct pl_calib_trace_opts {
  int64_t gpus_per_node;  /* of the cluster the traces come from (> 0) */
  int64_t ranks_per_node; /* for groups whose ranks the trace does not list: 0 = skip them */
  enum pl_calib_trace_stat stat;
};

struct pl_calib_trace {
  struct pl_nccl_series *series; /* op known, ranks and nodes resolved, rows by size */
  int64_t **row_calls;           /* [series][row]: calls behind each row */
  size_t n_series;
  int64_t calls;       /* collective calls in the kept steps of all ranks */
  int64_t used;        /* of which in a series */
  int64_t unsized;     /* no message size in the trace */
  int64_t unplaced;    /* group placement unknown (no rank list, --ranks-per-node not given) */
  int64_t unsupported; /* op the model has no cost for (reduce, gather, barrier, unknown) or 1 rank */
};

/* Group the calls of a set from pl_trace_analyze_calls. Fails with
 * PL_ERR_MISSING when no call has a size and a placement. */
enum pl_status pl_calib_trace_series(const struct pl_trace_set *set,
                                     const struct pl_calib_trace_opts *o,
                                     struct pl_calib_trace **out, struct pl_diag *diag);
void pl_calib_trace_free(struct pl_calib_trace *t);

#endif
