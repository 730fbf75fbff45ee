/* trace_cli.h: what the `plateau trace` subcommands share (cmd_trace.c,
 * cmd_trace_compare.c). */
#ifndef PL_CLI_TRACE_CLI_H
#define PL_CLI_TRACE_CLI_H

#include <plateau/trace.h>

#include "opts.h"

/* --skip, --threads and --window into o (defaults when absent); 1 after
 * printing the error on a bad value. The command's table must have them. */
int trace_read_opts(const struct cli_args *a, struct pl_trace_opts *o);

/* `plateau trace compare A B` (argv[0] is "compare"). */
int cmd_trace_compare(int argc, char **argv);

#endif
