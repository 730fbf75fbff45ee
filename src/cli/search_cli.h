/* search_cli.h: what `plateau search` and `plateau sweep` share: worker threads,
 * MPI ranks (when built with MPI and started by mpirun), the progress bar,
 * search options, and CSV rows that extend predict's columns. */
#ifndef PL_CLI_SEARCH_CLI_H
#define PL_CLI_SEARCH_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include <plateau/predict.h>
#include <plateau/search.h>

#include "opts.h"

/* Option table entries for --threads and --quiet. */
#define PAR_OPTS                                                                              \
  {"threads", "T", "worker threads per process (default: all cores, shared among the "       \
                   "ranks of a node under mpirun)"},                                          \
  {"quiet", NULL, "no progress bar (it is drawn on stderr only when stderr is a terminal "    \
                  "and the run takes over a second)"}

struct cli_par {
  struct pl_par *par;
  int rank;                  /* 0 without MPI */
  int nranks;                /* 1 without MPI */
  bool mpi;                  /* MPI was initialised here */
  bool bar;                  /* draw the progress bar */
  bool drawn;                /* something is on the bar's line */
  int shown;                 /* percent last drawn, -1 none */
  double start_s;
  const char *label;         /* "search", "sweep" */
};

/* Start threads (and MPI under mpirun). Returns 0, or 1 after printing. */
int cli_par_begin(const struct cli_args *args, const char *label, struct cli_par *cp);
void cli_par_end(struct cli_par *cp);

/* pl_progress_fn for a struct cli_par; cli_progress_clear wipes the bar. */
void cli_progress(void *ud, int64_t done, int64_t total);
void cli_progress_clear(struct cli_par *cp);

/* Search options shared by search and sweep: --objective, --top,
 * --gpu-hour-price, --exhaustive; with run != NULL also the run options and
 * the constraints they and --fix put on the space. Returns 0, or 1 after
 * printing. */
int cli_search_setup(const struct cli_args *args, struct pl_run *run, struct pl_search_opts *so,
                     bool *has_price);
/* Constraints from the run options given (--tp, --shard, ...) and --fix. */
int cli_search_space(const struct cli_args *args, const struct pl_layout *l,
                     struct pl_search_space *s);
const char *cli_objective_name(enum pl_objective o);

/* predict's CSV header or row without its newline, so callers can append
 * columns. Returns 0, or 1 after printing. */
int cli_csv_predict_header(FILE *out);
int cli_csv_predict_row(FILE *out, const struct pl_prediction *p);
/* A CSV cell: ",value" or "," when absent. */
void cli_csv_num(FILE *out, double v, bool valid);

#endif
