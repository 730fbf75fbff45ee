/* api.c: the plateau commands as library calls (api.h). Each call runs the
 * command's own code (src/cli/cmd_<verb>.c, built into libplateau.so with
 * this file) with `--format json` and its output and error streams pointed
 * at memory (cli_io_set), so the document returned is the one the CLI prints
 * and an error is the line the CLI would print. The commands keep large
 * working state in static storage, so one lock serialises the calls. */
#define _POSIX_C_SOURCE 200809L
#include <plateau/api.h>
#include <plateau/version.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/opts.h"

/* Arguments of one call beyond the command's own: a CSV file per validation
 * source or a trace per rank, with room to spare over CLI_MAX_POSITIONAL. */
#define API_MAX_ARGS (CLI_MAX_POSITIONAL + 2 * CLI_MAX_OPTS)

struct command {
  const char *name;
  int (*run)(int argc, char **argv);
  bool sub;                  /* argv[0] is a subcommand ("trace analyze") */
};

static const struct command commands[] = {
    {"predict", cmd_predict, false},         {"search", cmd_search, false},
    {"sweep", cmd_sweep, false},             {"validate", cmd_validate, false},
    {"trace", cmd_trace, true},              {"collectives", cmd_collectives, false},
    {"list", cmd_list, false},               {"calibrate", cmd_calibrate, true},
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

const char *pl_api_version(void) { return pl_version(); }

void pl_api_free(char *json) { free(json); /* open_memstream's buffer comes from malloc */ }

/* Options the API sets itself or cannot honour; only before a "--". */
static enum pl_status check_args(const char *command, int argc, const char *const *argv,
                                 struct pl_diag *diag) {
  if (argc < 0 || argc > API_MAX_ARGS || (argc > 0 && argv == NULL))
    return pl_diag_set(diag, PL_ERR_USAGE, "%s: %d arguments (at most %d)", command, argc,
                       API_MAX_ARGS);
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    if (a == NULL)
      return pl_diag_set(diag, PL_ERR_USAGE, "%s: argument %d is NULL", command, i);
    if (strcmp(a, "--") == 0)
      break;
    if (strcmp(a, "--format") == 0 || strncmp(a, "--format=", 9) == 0)
      return pl_diag_set(diag, PL_ERR_USAGE, "%s: --format: the API always returns JSON",
                         command);
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
      return pl_diag_set(diag, PL_ERR_USAGE, "%s: --help: see `plateau %s --help`", command,
                         command);
  }
  return PL_OK;
}

/* The CLI's first error line without its "plateau: " or "plateau " prefix. */
static enum pl_status failure(int rc, const char *err, struct pl_diag *diag) {
  const char *msg = err != NULL ? err : "";
  if (strncmp(msg, "plateau: ", 9) == 0)
    msg += 9;
  else if (strncmp(msg, "plateau ", 8) == 0)
    msg += 8;
  size_t len = strcspn(msg, "\n");
  if (len == 0)
    return pl_diag_set(diag, rc == 2 ? PL_ERR_USAGE : PL_ERR_INPUT, "the command failed (exit %d)",
                       rc);
  return pl_diag_set(diag, rc == 2 ? PL_ERR_USAGE : PL_ERR_INPUT, "%.*s", (int)len, msg);
}

/* argv for the command: name [sub] --format json args... */
static char **command_argv(const struct command *c, int argc, const char *const *argv, int *n) {
  char **v = calloc((size_t)argc + 5, sizeof *v);
  if (v == NULL)
    return NULL;
  int k = 0, i = 0;
  v[k++] = (char *)c->name;
  if (c->sub && argc > 0)
    v[k++] = (char *)argv[i++];
  v[k++] = "--format";
  v[k++] = "json";
  while (i < argc)
    v[k++] = (char *)argv[i++];
  *n = k;
  return v;
}

static enum pl_status run_captured(const struct command *c, int argc, const char *const *argv,
                                   char **json, struct pl_diag *diag) {
  char *out_buf = NULL, *err_buf = NULL;
  size_t out_len = 0, err_len = 0;
  int n = 0;
  char **v = command_argv(c, argc, argv, &n);
  FILE *out = open_memstream(&out_buf, &out_len);
  FILE *err = open_memstream(&err_buf, &err_len);
  enum pl_status st = PL_OK;
  if (v == NULL || out == NULL || err == NULL) {
    st = pl_diag_set(diag, PL_ERR_NOMEM, "%s: out of memory", c->name);
    goto out_close;
  }
  struct cli_io io = {out, err};
  pthread_mutex_lock(&lock);
  cli_io_set(&io);
  int rc = c->run(n, v);
  cli_io_set(NULL);
  pthread_mutex_unlock(&lock);
  fclose(out);
  fclose(err);
  out = err = NULL;
  if (rc == 0) {
    *json = out_buf;
    out_buf = NULL;
  } else {
    st = failure(rc, err_buf, diag);
  }
out_close:
  if (out != NULL)
    fclose(out);
  if (err != NULL)
    fclose(err);
  free(out_buf);
  free(err_buf);
  free(v);
  return st;
}

enum pl_status pl_api_run(const char *command, int argc, const char *const *argv, char **json,
                          struct pl_diag *diag) {
  if (json == NULL)
    return pl_diag_set(diag, PL_ERR_USAGE, "pl_api_run: json is NULL");
  *json = NULL;
  if (command == NULL)
    return pl_diag_set(diag, PL_ERR_USAGE, "pl_api_run: command is NULL");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    if (strcmp(command, commands[i].name) != 0)
      continue;
    enum pl_status st = check_args(command, argc, argv, diag);
    if (st != PL_OK)
      return st;
    /* "trace" and "calibrate" take their subcommand first: without one,
     * command_argv would hand the command "--format" as its subcommand */
    if (commands[i].sub && (argc == 0 || argv[0][0] == '-'))
      return pl_diag_set(diag, PL_ERR_USAGE, "%s: give the subcommand first (plateau %s --help)",
                         command, command);
    return run_captured(&commands[i], argc, argv, json, diag);
  }
  return pl_diag_set(diag, PL_ERR_USAGE, "unknown command '%s'", command);
}

enum pl_status pl_api_predict(int argc, const char *const *argv, char **json,
                              struct pl_diag *diag) {
  return pl_api_run("predict", argc, argv, json, diag);
}

enum pl_status pl_api_search(int argc, const char *const *argv, char **json, struct pl_diag *diag) {
  return pl_api_run("search", argc, argv, json, diag);
}

enum pl_status pl_api_sweep(int argc, const char *const *argv, char **json, struct pl_diag *diag) {
  return pl_api_run("sweep", argc, argv, json, diag);
}

enum pl_status pl_api_validate(int argc, const char *const *argv, char **json,
                               struct pl_diag *diag) {
  return pl_api_run("validate", argc, argv, json, diag);
}

enum pl_status pl_api_collectives(int argc, const char *const *argv, char **json,
                                  struct pl_diag *diag) {
  return pl_api_run("collectives", argc, argv, json, diag);
}

enum pl_status pl_api_list(int argc, const char *const *argv, char **json, struct pl_diag *diag) {
  return pl_api_run("list", argc, argv, json, diag);
}

/* "trace analyze" with the caller's arguments after the subcommand. */
enum pl_status pl_api_trace_analyze(int argc, const char *const *argv, char **json,
                                    struct pl_diag *diag) {
  if (argc < 0 || argc > API_MAX_ARGS - 1 || (argc > 0 && argv == NULL))
    return pl_diag_set(diag, PL_ERR_USAGE, "trace analyze: %d arguments", argc);
  const char **v = calloc((size_t)argc + 1, sizeof *v);
  if (v == NULL)
    return pl_diag_set(diag, PL_ERR_NOMEM, "trace analyze: out of memory");
  v[0] = "analyze";
  for (int i = 0; i < argc; i++)
    v[i + 1] = argv[i];
  enum pl_status st = pl_api_run("trace", argc + 1, v, json, diag);
  free(v);
  return st;
}
