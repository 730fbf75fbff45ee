/* commands.h: one entry point per CLI verb, each in src/cli/cmd_<verb>.c.
 * argv[0] is the verb itself. Exit codes: 0 ok, 1 bad input or failed run,
 * 2 usage error. */
#ifndef PL_CLI_COMMANDS_H
#define PL_CLI_COMMANDS_H

int cmd_predict(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_validate(int argc, char **argv);

int cmd_collectives(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
/* defined by the trace tools in cmd_calibrate_trace.c; dispatched from cmd_calibrate.c */
int cmd_calibrate_trace(int argc, char **argv);
/* cmd_calibrate_compute.c: `calibrate compute`, dispatched from cmd_calibrate.c */
int cmd_calibrate_compute(int argc, char **argv);

#endif
