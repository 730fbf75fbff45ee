/* api.h: the plateau command line as C calls, for programs and other
 * languages (the Python package in python/ calls these through ctypes).
 *
 * Each command takes its options exactly as the CLI spells them, argv-style
 * and without the command name: {"--model", "llama2-7b", "--gpus", "8"} or
 * {"--gpus=8"}; positional arguments (validate's CSV files, trace analyze's
 * paths) follow as they would on the command line. The result is the JSON
 * document that `plateau <command> ... --format json` prints, byte for byte:
 * the calls run the command's own code with its output in memory. Options
 * are checked as the CLI checks them; an unknown one, --format or --help is
 * a usage error (PL_ERR_USAGE), a bad value or a failed run PL_ERR_INPUT,
 * with the CLI's message (without its "plateau: " prefix) in diag->msg.
 *
 * Nothing is printed and nothing exits. Calls may run on several threads at
 * once only for different commands' inputs; the commands keep their large
 * working state in static storage, so concurrent calls must be serialised by
 * the caller (the Python package holds a lock).
 *
 * Ownership: *json is allocated by the library and released with
 * pl_api_free; it is NULL after a failure. */
#ifndef PLATEAU_API_H
#define PLATEAU_API_H

#include "status.h"

/* Any command by name: "predict", "search", "sweep", "validate", "trace"
 * (argv[0] "analyze" or "compare"), "collectives", "list", "calibrate". */
enum pl_status pl_api_run(const char *command, int argc, const char *const *argv, char **json,
                          struct pl_diag *diag);

/* One entry point per command, the same as pl_api_run(name, ...). */
enum pl_status pl_api_predict(int argc, const char *const *argv, char **json, struct pl_diag *diag);
enum pl_status pl_api_search(int argc, const char *const *argv, char **json, struct pl_diag *diag);
enum pl_status pl_api_sweep(int argc, const char *const *argv, char **json, struct pl_diag *diag);
enum pl_status pl_api_validate(int argc, const char *const *argv, char **json,
                               struct pl_diag *diag);
enum pl_status pl_api_trace_analyze(int argc, const char *const *argv, char **json,
                                    struct pl_diag *diag);
enum pl_status pl_api_collectives(int argc, const char *const *argv, char **json,
                                  struct pl_diag *diag);
enum pl_status pl_api_list(int argc, const char *const *argv, char **json, struct pl_diag *diag);

void pl_api_free(char *json);

/* The version the library was built as ("0.1.0-123-gabcdef0", or "0.1.0"
 * outside a git checkout), as every JSON document records it. */
const char *pl_api_version(void);

#endif
