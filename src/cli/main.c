/* main.c: the plateau command line. It only dispatches to cmd_<verb>. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "commands.h"

struct verb {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
};

static const struct verb verbs[] = {
    {"study", cmd_study, "the paper's scaling study for any setup, as a report (CSV, JSON, figures, HTML)"},
    {"predict", cmd_predict, "predict one configuration: FLOPs, memory, step time, MFU, power"},
    {"search", cmd_search, "rank every parallel layout of a run, pruning what cannot win"},
    {"sweep", cmd_sweep, "scale a run over GPUs, models, GPU types; where returns diminish"},
    {"collectives", cmd_collectives, "model NCCL collectives: time, algbw, busbw per size and group size"},
    {"calibrate", cmd_calibrate,
     "fit a cluster to nccl-tests logs or traces, or a GPU's compute to a trace"},
    {"trace", cmd_trace, "measure a run from PyTorch profiler (Kineto) traces, one per rank"},
    {"validate", cmd_validate, "compare predictions with published training runs (accuracy)"},
    {"list", cmd_list, "list the built-in presets: models, gpus, clusters"},
};

static void usage(FILE *out) {
  fprintf(out, "usage: plateau <command> [options]   (plateau <command> --help for its options)\n\n"
               "commands:\n");
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
    fprintf(out, "  %-13s %s\n", verbs[i].name, verbs[i].summary);
  fprintf(out, "\nexit status: 0 ok, 1 bad input or failed run, 2 usage error\n");
}

/* Output lost on the way out (stdout on a full disk, a closed pipe reader) is a
 * failed run: a script must not read a truncated table as a result. */
static int finish(int rc) {
  errno = 0;
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "plateau: cannot write standard output: %s\n",
            errno != 0 ? strerror(errno) : "write error");
    return rc != 0 ? rc : 1;
  }
  return rc;
}

/* `plateau help CMD [SUB]`: CMD's --help (SUB's for trace and calibrate). */
static int help_verb(int argc, char **argv) {
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++) {
    if (strcmp(argv[2], verbs[i].name) != 0)
      continue;
    char *v[4] = {argv[2], argc >= 4 ? argv[3] : "--help", "--help", NULL};
    return verbs[i].run(argc >= 4 ? 3 : 2, v);
  }
  fprintf(stderr, "plateau: help: unknown command '%s'\n", argv[2]);
  usage(stderr);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "help") == 0 && argc >= 3)
    return help_verb(argc, argv);
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return finish(0);
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("plateau %s\n", pl_version());
    return finish(0);
  }
  for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
    if (strcmp(argv[1], verbs[i].name) == 0)
      return finish(verbs[i].run(argc - 1, argv + 1));
  fprintf(stderr, "plateau: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}
