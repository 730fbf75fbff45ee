/* calib.h: nccl-tests logs in, a fitted cluster file out.
 *
 * pl_nccl_log_load reads real nccl-tests output (all_reduce_perf,
 * all_gather_perf, reduce_scatter_perf, alltoall_perf, sendrecv_perf,
 * broadcast_perf): the result table (out-of-place and in-place columns), the
 * "# Collective test starting" and "#  Rank ... on HOST device ..." header
 * lines (ranks, ranks per node), interleaved NCCL_DEBUG lines and srun "0: "
 * prefixes. Several tests in one file become several series. Lines that look
 * like results but do not parse (truncated, garbage numbers, failed
 * validation) are skipped with a warning naming the line.
 *
 * pl_calib_nccl fits, by least squares on relative time error, the fixed
 * launch overhead, the call floor and the latency and bandwidth of each fabric tier the logs
 * exercise, starting from a base cluster, and returns the fitted cluster
 * (save it with pl_cluster_save; it loads wherever a preset does).
 * Ownership: a log from pl_nccl_log_load is released with pl_nccl_log_free;
 * everything else is a plain value owned by the caller. */
#ifndef PLATEAU_CALIB_H
#define PLATEAU_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "coll.h"
#include "hw.h"
#include "status.h"

/* Limits that keep a hostile or huge input from growing memory without
 * bound: nccl-tests prints ~40 rows per test and a handful of tests. */
#define PL_NCCL_MAX_FILE_BYTES (64u << 20)
#define PL_NCCL_MAX_ROWS 4096     /* per series */
#define PL_NCCL_MAX_SERIES 64     /* per file */
#define PL_NCCL_MAX_HOSTS 4096    /* distinct host names in "# Rank" lines */
#define PL_NCCL_WARNINGS_KEPT 32  /* warning texts kept; all are counted */

struct pl_nccl_row {
  double bytes;               /* nccl-tests "size" column */
  double time_s;              /* out-of-place time */
  double inplace_time_s;      /* in-place time, 0 when the log has none */
  double algbw_bytes_per_s;   /* out-of-place, as printed */
  double busbw_bytes_per_s;   /* out-of-place, as printed */
  int64_t line;               /* 1-based line in the file */
};

struct pl_nccl_series {
  enum pl_coll_op op;
  bool op_known;              /* from a "# Collective test starting" line or resolved */
  char redop[16];             /* "sum", "none", ... as printed */
  int64_t ranks;              /* from "# Rank" lines; 0 = not stated */
  int64_t nodes;              /* distinct hosts in "# Rank" lines; 0 = not stated */
  int64_t ranks_per_node;     /* ranks / nodes once known */
  int64_t active_per_node;    /* GPUs of a node on the network at once when measured:
                                 0 = the group alone (nccl-tests); training traces:
                                 the whole node (pl_coll_time_shared) */
  char device[64];            /* GPU name from the first "# Rank" line */
  char algo_hint[16];         /* from "NCCL_ALGO set by environment to X", else "" */
  int64_t first_line;
  size_t n_rows;
  struct pl_nccl_row *rows;
};

struct pl_nccl_log {
  char origin[256];           /* path as given */
  size_t n_series;
  struct pl_nccl_series *series;
  size_t n_warnings;          /* all warnings */
  char warnings[PL_NCCL_WARNINGS_KEPT][200]; /* the first ones, "line 12: ..." */
};

enum pl_status pl_nccl_log_parse(const char *text, size_t len, const char *origin,
                                 struct pl_nccl_log **out, struct pl_diag *diag);
enum pl_status pl_nccl_log_load(const char *path, struct pl_nccl_log **out,
                                struct pl_diag *diag);
void pl_nccl_log_free(struct pl_nccl_log *log);

/* What the user knows that a log may not say (0 / false = not given). */
struct pl_nccl_hints {
  bool op_set;
  enum pl_coll_op op;
  int64_t ranks;
  int64_t nodes;
};

/* Settle op, ranks and nodes of a series from its headers, the busbw/algbw
 * ratio it prints and the hints; an error says what is missing or
 * contradictory. A warning (ratio disagreeing with the header) goes to warn
 * when not NULL (warn_len bytes), else is dropped. */
enum pl_status pl_nccl_series_resolve(struct pl_nccl_series *s, const struct pl_nccl_hints *h,
                                      const char *origin, char *warn, size_t warn_len,
                                      struct pl_diag *diag);

/* One measured series to fit and the algorithm NCCL ran it with (AUTO when
 * the log does not say). */
struct pl_calib_obs {
  const struct pl_nccl_series *series;
  enum pl_coll_algo algo;
};

struct pl_calib_fit {
  bool fit_intra;             /* a single-node series constrained the intra tier */
  bool fit_inter;             /* a multi-node series constrained the network */
  bool fit_inter_bw;          /* ... including its bandwidth, which is fitted only where it sets
                                 a fitted row (fit.c net_bw_binds); false: the base's figure */
  double launch_s;            /* added to every call */
  double floor_s;             /* no call is shorter */
  double intra_latency_s;
  double intra_bytes_per_s;   /* per GPU per direction (the model's NVLink figure) */
  double inter_latency_s;
  double node_net_bytes_per_s;/* per node per direction */
  bool fit_msg;               /* the rows constrained the per-message proxy cost */
  double inter_msg_s;         /* that cost, seconds per network message (0: off) */
  unsigned at_limit;          /* PL_CALIB_LIMIT_* bits: figures the fit pushed to the edge of its
                                 range, 1/100 or 100 x the base's; the rows do not pin them, so
                                 they are not measurements (calibrate nccl warns) */
  /* What the fitted rows ran, for extrapolating (docs/collectives.md, "calibrate nccl",
   * "What a 2-node fit cannot see"): the algorithm / protocol pairs of the fitted rows after
   * the fit (PL_CALIB_PAIR bits), and the fewest network messages one ring step of a fitted
   * row across nodes posts per proxy thread (pl_coll_cost.net_msgs_per_step; 0: no fitted row
   * runs a ring across nodes). A larger group runs fewer channels at the same size (NCCL drops
   * a ring LL channel while bytes < channels x 512 x 8 x ranks), down to one message a step,
   * which a fit whose rows all post more has not measured. */
  unsigned pairs_seen;
  double min_net_msgs_per_step;
  size_t n_points;            /* rows used */
  double rms_rel_err;         /* over those rows, after the fit */
  double max_rel_err;
  int iterations;
};

#define PL_CALIB_LIMIT_INTRA_LAT 1u /* NVLink hop latency */
#define PL_CALIB_LIMIT_INTRA_BW 2u  /* NVLink bandwidth */
#define PL_CALIB_LIMIT_INTER_LAT 4u /* network hop latency */
#define PL_CALIB_LIMIT_INTER_BW 8u  /* network bandwidth */

/* pl_calib_fit.pairs_seen's bit for algorithm a with protocol p */
#define PL_CALIB_PAIR(a, p) (1u << ((unsigned)(a) * (unsigned)PL_PROTO_N + (unsigned)(p)))

/* Fewest result rows pl_calib_nccl fits (it frees up to 4 figures at once:
 * launch overhead, floor, latency and bandwidth of one tier). */
#define PL_CALIB_NCCL_MIN_ROWS 4

/* Fit rows with bytes >= min_bytes. Fails with PL_ERR_RANGE when fewer than
 * PL_CALIB_NCCL_MIN_ROWS rows are left and PL_ERR_UNSUPPORTED when a forced
 * algorithm cannot run a series. */
enum pl_status pl_calib_nccl(const struct pl_cluster *base, const struct pl_calib_obs *obs,
                             size_t n_obs, double min_bytes, struct pl_cluster *out,
                             struct pl_calib_fit *fit, struct pl_diag *diag);

#endif
