/* opts.h: the CLI's option parser. Each command declares one table of
 * options; the table generates its --help and is the only place an option
 * is defined. Accepts "--name value" and "--name=value"; "-h"/"--help" prints
 * help. Anything else starting with "-" is a usage error (exit 2). */
#ifndef PL_CLI_OPTS_H
#define PL_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <plateau/calib_trace.h>

/* Options one command may declare: the longest table (search, sweep: their own
 * options plus RUN_OPTS) had 65 in round 2 and reached 128 in session 24
 * (--moe-router-fusion and --fused-norm made sweep's 130) and passed 160 in session 28 (five
 * framework flags merged at once); cli_parse refuses a longer table. */
#define CLI_MAX_OPTS 192
#define CLI_MAX_POSITIONAL 4096

struct cli_opt {
  const char *name;  /* long name without "--" */
  const char *arg;   /* metavariable ("N", "FILE"); NULL for a flag */
  const char *help;  /* one line; mention the default */
};

struct cli_cmd {
  const char *name;        /* "predict" */
  const char *usage;       /* "plateau predict [options]" */
  const char *summary;     /* one sentence */
  const struct cli_opt *opts;
  size_t n_opts;
  bool positional;         /* accepts positional arguments */
};

struct cli_args {
  const struct cli_cmd *cmd;
  const char *values[CLI_MAX_OPTS]; /* per option: its value, "1" for a set flag, NULL unset */
  const char *pos[CLI_MAX_POSITIONAL];
  int n_pos;
  bool help;
};

/* Where a command writes: stdout and stderr for the plateau command; memory
 * streams while the C API (src/api/api.c) runs a command, set for the calling
 * thread around that one call. Output and errors of every command go through
 * cli_out() and cli_err() on the JSON path. */
struct cli_io {
  FILE *out;
  FILE *err;
};
void cli_io_set(const struct cli_io *io); /* NULL: back to stdout and stderr */
FILE *cli_out(void);
FILE *cli_err(void);

/* Returns 0 on success, 2 on a usage error (message printed). Sets args->help
 * when help was asked for (the caller prints it and exits 0). */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *args);
void cli_print_help(const struct cli_cmd *cmd, FILE *out);

/* Every command's first step: parse, and answer --help. Returns CLI_RUN when
 * the command should go on, else its exit status (0 after help, 2 on a usage
 * error): `if ((rc = cli_start(...)) != CLI_RUN) return rc;`. */
#define CLI_RUN (-1)
int cli_start(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *args);

/* Print "plateau <command>: msg" and the --help hint; returns 2 (usage error). */
int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Value of an option, or NULL when not given. The name must be in the table. */
const char *cli_get(const struct cli_args *args, const char *name);
bool cli_flag(const struct cli_args *args, const char *name);
/* cli_get for the library's flag tables (include/plateau/run_flags.h
 * pl_flag_get_fn): ctx is the struct cli_args. */
const char *cli_flag_get(void *ctx, const char *name);
/* Whether option `name` is in the command's table. */
bool cli_has_opt(const struct cli_cmd *cmd, const char *name);

/* Typed accessors: return 0 (and leave *out) when unset, 0 with *out set on
 * success, 1 after printing "plateau: --name: why" on a bad value. */
int cli_get_int(const struct cli_args *args, const char *name, int64_t *out);
int cli_get_double(const struct cli_args *args, const char *name, double *out);

/* 0 when option `name` (an output file) is unset, or is not a directory and
 * names no file this run also reads (a positional argument or another
 * option's value); else 1 after printing why (outpath.c). */
int cli_output_ok(const struct cli_args *args, const char *name);

/* 0 when no two positional arguments name the same regular file; else 1 after
 * printing "plateau: WHAT 'A' given twice" or "WHATs 'A' and 'B' are one file" (outpath.c,
 * src/base/samefile.c): an input read twice weighs twice. */
int cli_inputs_distinct(const struct cli_args *args, const char *what);

/* Print "plateau: msg" to stderr; returns 1 (bad input) for `return cli_fail(...)`. */
int cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

struct pl_emit;
/* A JSON writer on cli_out() whose top-level object opens with "version"
 * (pl_version(): git describe at build time). NULL when out of memory. */
struct pl_emit *cli_emit_open(void);
/* Finish a JSON document written to stdout: close the writer and report a
 * failure (out of memory, a non-finite number) as "plateau: ...". Returns 0
 * or 1, for `return cli_emit_done(e);`. e may be NULL (allocation failed). */
int cli_emit_done(struct pl_emit *e);

/* --nccl-version X.Y.Z onto a loaded cluster (its nccl_version; the
 * cluster file's value, if any, is replaced). 0 when absent or set, else 1
 * after printing why. */
#define CLI_NCCL_VERSION_OPT                                                                    \
  {"nccl-version", "V",                                                                         \
   "NCCL release the system runs, e.g. 2.29.2 (2.23 to 2.29): NCCL's tuner of that release "   \
   "picks each call's algorithm and protocol (default: the cluster's nccl_version, else the "  \
   "tables of NCCL 2.28.3-2.28.7; docs/collectives.md, 'NCCL versions')"}
struct pl_cluster;
int cli_nccl_version(const struct cli_args *args, struct pl_cluster *c);

/* --format values shared by every command. */
enum cli_format { CLI_FORMAT_TEXT, CLI_FORMAT_JSON, CLI_FORMAT_CSV };
int cli_get_format(const struct cli_args *args, enum cli_format *out);

/* --overlap exclude|correct|include of the calibrate commands (default
 * exclude): what a fit does with the calls or ops that ran beside others.
 * Its name back for reports. */
int cli_get_overlap(const struct cli_args *args, enum pl_calib_trace_overlap *out);
const char *cli_overlap_name(enum pl_calib_trace_overlap m);

#endif
