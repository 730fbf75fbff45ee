/* outfile.c: write-to-temporary-then-rename output files (see outfile.h).
 * rename() within one directory is atomic on POSIX file systems. */
#define _POSIX_C_SOURCE 200809L
#include <plateau/outfile.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkstemp creates 0600; give the file the mode a plain fopen would (0666 less
 * the umask). Reading the umask means setting it, so set it straight back. */
static void plain_mode(int fd) {
  mode_t mask = umask(022);
  umask(mask);
  (void)fchmod(fd, 0666 & ~mask);
}

enum pl_status pl_outfile_open(struct pl_outfile *o, const char *path, struct pl_diag *diag) {
  memset(o, 0, sizeof *o);
  size_t n = strlen(path);
  if (n == 0)
    return pl_diag_set(diag, PL_ERR_IO, "empty output path");
  if (n >= sizeof o->path)
    return pl_diag_set(diag, PL_ERR_LIMIT, "output path is longer than %zu characters",
                       sizeof o->path - 1);
  memcpy(o->path, path, n + 1);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", path);
  int fd = mkstemp(o->tmp);
  if (fd < 0)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  plain_mode(fd);
  o->f = fdopen(fd, "w");
  if (o->f == NULL) {
    int err = errno;
    close(fd);
    remove(o->tmp);
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(err));
  }
  return PL_OK;
}

enum pl_status pl_outfile_commit(struct pl_outfile *o, enum pl_status st, struct pl_diag *diag) {
  if (o->f == NULL)
    return st != PL_OK ? st : pl_diag_set(diag, PL_ERR_INTERNAL, "output file was not open");
  int bad = ferror(o->f);
  if (fclose(o->f) != 0 || bad) {
    if (st == PL_OK)
      st = pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));
  }
  o->f = NULL;
  if (st == PL_OK && rename(o->tmp, o->path) != 0)
    st = pl_diag_set(diag, PL_ERR_IO, "cannot rename '%s' to '%s': %s", o->tmp, o->path,
                     strerror(errno));
  if (st != PL_OK)
    remove(o->tmp);
  return st;
}
