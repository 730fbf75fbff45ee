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

#include <stdbool.h>
#include <stdint.h>
#include "calib.h"
#include "status.h"
#include "trace.h"

enum pl_calib_trace_stat {
  PL_CALIB_TRACE_MIN,    /* the fastest call of a size: the rank that waited least */
  PL_CALIB_TRACE_MEDIAN  /* the median call (includes typical waiting for peers) */
};

/* Calls that ran while compute kernels ran on the same GPU (pl_trace_call.
 * overlap_s > 0) shared its SMs and memory with them, which nccl-tests never
 * sees (docs/trace.md 10.2). */
enum pl_calib_trace_overlap {
  PL_CALIB_TRACE_EXCLUDE, /* fit only the calls that ran alone; a series with no such call of
                             >= min_bytes falls back to CORRECT (the GPU has a slowdown) or
                             INCLUDE, so its fabric tier is still fitted */
  PL_CALIB_TRACE_CORRECT, /* every call; the overlapped part of a call inside one node runs at
                             1/(1 + comm_overlap_slowdown), as the step simulator runs it, so
                             it is shortened by that factor */
  PL_CALIB_TRACE_INCLUDE  /* every call as measured: the fit absorbs the contention */
};

struct pl_calib_trace_opts {
  int64_t gpus_per_node;  /* of the cluster the traces come from (> 0) */
  int64_t ranks_per_node; /* for groups whose ranks the trace does not list: 0 = skip them */
  enum pl_calib_trace_stat stat;
  enum pl_calib_trace_overlap overlap;
  double comm_overlap_slowdown; /* the GPU's (struct pl_gpu_eff), for PL_CALIB_TRACE_CORRECT */
  double min_bytes;             /* the fit's smallest size (exclude's per-series test); 0 all */
};

struct pl_calib_trace {
  struct pl_nccl_series *series; /* op known, ranks and nodes resolved, rows by size */
  int64_t **row_calls;           /* [series][row]: calls behind each row */
  bool *series_fallback;         /* [series]: exclude found no call that ran alone at a fitted
                                    size, so the series kept its calls beside compute */
  size_t n_series;
  int64_t calls;       /* collective calls in the kept steps of all ranks */
  int64_t used;        /* of which in a series */
  int64_t unsized;     /* no message size in the trace */
  int64_t unplaced;    /* group placement unknown (no rank list, --ranks-per-node not given) */
  int64_t unsupported; /* op the model has no cost for (reduce, gather, barrier, unknown) or 1 rank */
  int64_t overlapped;  /* of the calls with a size, placement and cost: compute ran beside them */
  int64_t excluded;    /* of those, left out for it (PL_CALIB_TRACE_EXCLUDE) */
  int64_t corrected;   /* of those, used with the contention taken out (PL_CALIB_TRACE_CORRECT) */
};

/* Group the calls of a set from pl_trace_analyze_calls. Fails with
 * PL_ERR_MISSING when no call has a size and a placement. */
enum pl_status pl_calib_trace_series(const struct pl_trace_set *set,
                                     const struct pl_calib_trace_opts *o,
                                     struct pl_calib_trace **out, struct pl_diag *diag);
/* Rows of at least min_bytes over all series: what pl_calib_nccl would fit
 * (it needs PL_CALIB_NCCL_MIN_ROWS). */
size_t pl_calib_trace_rows(const struct pl_calib_trace *t, double min_bytes);
void pl_calib_trace_free(struct pl_calib_trace *t);

#endif
