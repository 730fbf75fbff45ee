/* trace_cli.h: what the `plateau trace` subcommands share (cmd_trace.c,
 * cmd_trace_compare.c). */
#ifndef PL_CLI_TRACE_CLI_H
#define PL_CLI_TRACE_CLI_H

#include <plateau/trace.h>

#include "opts.h"

/* The options trace_read_opts reads, spelled once for every command that
 * parses traces; put it inside a command's option table. */
#define TRACE_READ_OPTS                                                                       \
  {"threads", "N", "ranks parsed in parallel (default: all cores)"},                         \
  {"skip", "N", "warm-up steps to drop per rank (default min(10, steps/6))"},                \
  {"window", "W", "steps|trace: per-step windows, or the whole trace as one (default steps)"}

/* --skip, --threads and --window into o (defaults when absent); 1 after
 * printing the error on a bad value. The command's table must have them. */
int trace_read_opts(const struct cli_args *a, struct pl_trace_opts *o);

/* `plateau trace compare A B` (argv[0] is "compare"). */
int cmd_trace_compare(int argc, char **argv);

#endif
