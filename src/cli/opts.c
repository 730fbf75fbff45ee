/* opts.c: one table per command drives parsing and --help (see opts.h). */
#include "opts.h"

#include <stdarg.h>
#include <string.h>

#include <plateau/calib_trace.h>
#include <plateau/emit.h>
#include <plateau/hw.h>
#include <plateau/units.h>
#include <plateau/version.h>

/* The streams of the command running on this thread (see opts.h). */
static _Thread_local const struct cli_io *io_now;

void cli_io_set(const struct cli_io *io) { io_now = io; }
FILE *cli_out(void) { return io_now != NULL ? io_now->out : stdout; }
FILE *cli_err(void) { return io_now != NULL ? io_now->err : stderr; }

int cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("plateau: ", cli_err());
  vfprintf(cli_err(), fmt, ap);
  fputc('\n', cli_err());
  va_end(ap);
  return 1;
}

static int find_opt(const struct cli_cmd *cmd, const char *name, size_t len) {
  for (size_t i = 0; i < cmd->n_opts; i++)
    if (strlen(cmd->opts[i].name) == len && strncmp(cmd->opts[i].name, name, len) == 0)
      return (int)i;
  return -1;
}

bool cli_has_opt(const struct cli_cmd *cmd, const char *name) {
  return find_opt(cmd, name, strlen(name)) >= 0;
}

static int usage_error(const struct cli_cmd *cmd, const char *what, const char *arg) {
  fprintf(cli_err(), "plateau %s: %s '%s'\nTry 'plateau %s --help'.\n", cmd->name, what, arg,
          cmd->name);
  return 2;
}

/* Parse one "--name[=value]" at argv[*i]; may consume the next argument. */
static int parse_long(const struct cli_cmd *cmd, int argc, char **argv, int *i,
                      struct cli_args *args) {
  const char *name = argv[*i] + 2;
  const char *eq = strchr(name, '=');
  size_t len = eq ? (size_t)(eq - name) : strlen(name);
  int k = find_opt(cmd, name, len);
  if (k < 0)
    return usage_error(cmd, "unknown option", argv[*i]);
  if (cmd->opts[k].arg == NULL) {
    if (eq != NULL)
      return usage_error(cmd, "option takes no value", argv[*i]);
    args->values[k] = "1";
    return 0;
  }
  if (eq != NULL) {
    args->values[k] = eq + 1;
  } else if (*i + 1 < argc) {
    args->values[k] = argv[++*i];
  } else {
    return usage_error(cmd, "option needs a value", argv[*i]);
  }
  return 0;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *args) {
  memset(args, 0, sizeof *args);
  args->cmd = cmd;
  if (cmd->n_opts > CLI_MAX_OPTS) { /* values[] holds one slot per option */
    fprintf(cli_err(), "plateau %s: internal error: %zu options, more than CLI_MAX_OPTS (%d)\n",
            cmd->name, cmd->n_opts, CLI_MAX_OPTS);
    return 2;
  }
  bool only_pos = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_pos && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
      args->help = true;
      return 0;
    }
    if (!only_pos && strcmp(a, "--") == 0) {
      only_pos = true;
    } else if (!only_pos && strncmp(a, "--", 2) == 0) {
      int rc = parse_long(cmd, argc, argv, &i, args);
      if (rc != 0)
        return rc;
    } else if (!only_pos && a[0] == '-' && a[1] != '\0') {
      return usage_error(cmd, "unknown option", a);
    } else {
      if (!cmd->positional)
        return usage_error(cmd, "unexpected argument", a);
      if (args->n_pos >= CLI_MAX_POSITIONAL)
        return usage_error(cmd, "too many arguments, at", a);
      args->pos[args->n_pos++] = a;
    }
  }
  return 0;
}

int cli_start(const struct cli_cmd *cmd, int argc, char **argv, struct cli_args *args) {
  int rc = cli_parse(cmd, argc, argv, args);
  if (rc != 0)
    return rc;
  if (args->help) {
    cli_print_help(cmd, cli_out());
    return 0;
  }
  return CLI_RUN;
}

int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(cli_err(), "plateau %s: ", cmd->name);
  vfprintf(cli_err(), fmt, ap);
  va_end(ap);
  fprintf(cli_err(), "\nTry 'plateau %s --help'.\n", cmd->name);
  return 2;
}

void cli_print_help(const struct cli_cmd *cmd, FILE *out) {
  fprintf(out, "usage: %s\n\n%s\n\noptions:\n", cmd->usage, cmd->summary);
  for (size_t i = 0; i < cmd->n_opts; i++) {
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", cmd->opts[i].name, cmd->opts[i].arg ? " " : "",
             cmd->opts[i].arg ? cmd->opts[i].arg : "");
    fprintf(out, "  %-26s %s\n", left, cmd->opts[i].help);
  }
  fprintf(out, "  %-26s %s\n", "-h, --help", "show this help and exit");
  fprintf(out, "\nexit status: 0 ok, 1 bad input or failed run, 2 usage error\n");
}

const char *cli_get(const struct cli_args *args, const char *name) {
  int k = find_opt(args->cmd, name, strlen(name));
  return k < 0 ? NULL : args->values[k];
}

bool cli_flag(const struct cli_args *args, const char *name) { return cli_get(args, name) != NULL; }

const char *cli_flag_get(void *ctx, const char *name) {
  return cli_get((const struct cli_args *)ctx, name);
}

int cli_get_int(const struct cli_args *args, const char *name, int64_t *out) {
  const char *v = cli_get(args, name);
  if (v == NULL)
    return 0;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_int_parse(v, out, &d) != PL_OK)
    return cli_fail("--%s: %s", name, d.msg);
  return 0;
}

int cli_get_double(const struct cli_args *args, const char *name, double *out) {
  const char *v = cli_get(args, name);
  if (v == NULL)
    return 0;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_double_parse(v, out, &d) != PL_OK)
    return cli_fail("--%s: %s", name, d.msg);
  return 0;
}

int cli_get_format(const struct cli_args *args, enum cli_format *out) {
  const char *v = cli_get(args, "format");
  *out = CLI_FORMAT_TEXT;
  if (v == NULL || strcmp(v, "text") == 0)
    return 0;
  if (strcmp(v, "json") == 0)
    *out = CLI_FORMAT_JSON;
  else if (strcmp(v, "csv") == 0)
    *out = CLI_FORMAT_CSV;
  else
    return cli_fail("--format: unknown format '%s' (expected text|json|csv)", v);
  return 0;
}

int cli_get_overlap(const struct cli_args *args, enum pl_calib_trace_overlap *out) {
  const char *v = cli_get(args, "overlap");
  *out = PL_CALIB_TRACE_EXCLUDE;
  if (v == NULL || strcmp(v, "exclude") == 0)
    return 0;
  if (strcmp(v, "correct") == 0)
    *out = PL_CALIB_TRACE_CORRECT;
  else if (strcmp(v, "include") == 0)
    *out = PL_CALIB_TRACE_INCLUDE;
  else
    return cli_fail("--overlap: unknown value '%s' (expected exclude|correct|include)", v);
  return 0;
}

const char *cli_overlap_name(enum pl_calib_trace_overlap m) {
  return m == PL_CALIB_TRACE_EXCLUDE   ? "exclude"
         : m == PL_CALIB_TRACE_CORRECT ? "correct"
                                       : "include";
}

int cli_nccl_version(const struct cli_args *args, struct pl_cluster *c) {
  const char *v = cli_get(args, "nccl-version");
  struct pl_diag d;
  pl_diag_clear(&d);
  if (v != NULL && pl_nccl_version_parse(v, &c->nccl_version, &d) != PL_OK)
    return cli_fail("--nccl-version: %s", d.msg);
  return 0;
}

struct pl_emit *cli_emit_open(void) {
  struct pl_emit *e = pl_emit_open(cli_out());
  pl_emit_stamp(e, "version", pl_version());
  return e;
}

int cli_emit_done(struct pl_emit *e) {
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_emit_close(e, &d) != PL_OK)
    return cli_fail("%s", d.msg);
  return 0;
}
