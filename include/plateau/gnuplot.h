/* gnuplot.h: drawing a figure whose gnuplot script is already written
 * (`validate --plot`, the study's figures). */
#ifndef PLATEAU_GNUPLOT_H
#define PLATEAU_GNUPLOT_H

#include "status.h"

/* Run `gnuplot script` with dir as the working directory, so a script names
 * its outputs relative to itself and can be rerun there by hand. gnuplot is
 * the program (a name on PATH or a path). With log NULL the child keeps the
 * caller's stdout and stderr; otherwise its stdout goes to /dev/null and its
 * stderr is appended to dir/log. Returns PL_OK when it exits 0;
 * PL_ERR_UNSUPPORTED when the program cannot be run (not installed);
 * PL_ERR_IO when it cannot be started or waited for; PL_ERR_INTERNAL when it
 * fails. diag says which. */
enum pl_status pl_gnuplot_run(const char *gnuplot, const char *dir, const char *script,
                              const char *log, struct pl_diag *diag);

#endif
