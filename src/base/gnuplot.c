/* gnuplot.c: the one gnuplot runner (see gnuplot.h): fork, chdir into the
 * figure's directory, exec, wait. Exit 127 from the child is the shell's
 * convention for "command not found", which execlp failing reports here. */
#define _POSIX_C_SOURCE 200809L
#include <plateau/gnuplot.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: cwd = dir; with a log, stdout to /dev/null and stderr
 * appended to the log. */
static void child(const char *gnuplot, const char *dir, const char *script, const char *log) {
  if (chdir(dir) != 0)
    _exit(126);
  if (log != NULL) {
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    int null = open("/dev/null", O_RDWR);
    if (fd >= 0)
      dup2(fd, 2);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
    }
  }
  execlp(gnuplot, gnuplot, script, (char *)NULL);
  _exit(127);
}

enum pl_status pl_gnuplot_run(const char *gnuplot, const char *dir, const char *script,
                              const char *log, struct pl_diag *diag) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return pl_diag_set(diag, PL_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
  if (pid == 0)
    child(gnuplot, dir, script, log);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return pl_diag_set(diag, PL_ERR_IO, "waiting for gnuplot: %s", strerror(errno));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    return pl_diag_set(diag, PL_ERR_UNSUPPORTED, "cannot run '%s' (not installed or not on PATH)",
                       gnuplot);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return pl_diag_set(diag, PL_ERR_INTERNAL, "gnuplot failed on '%s/%s'", dir, script);
  return PL_OK;
}
