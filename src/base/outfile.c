/* outfile.c: output files (see outfile.h).
 *
 * A regular file (or none yet) is written to a temporary beside it and renamed
 * over it: rename() within one directory is atomic on POSIX file systems, so a
 * reader sees the old file or the new one, never half of one. A symlink is
 * followed, so the file it points to is replaced and the link stays. A device,
 * FIFO or socket cannot be replaced by a rename without destroying it (root
 * could turn /dev/full into a regular file): it is written in place. A
 * directory is refused before anything is computed into it. */
#define _POSIX_C_SOURCE 200809L
#include <plateau/outfile.h>

#include <errno.h>
#include <limits.h>
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

/* The path a write to `path` lands on: the target of a symlink chain (also a
 * dangling one, which the write then creates), else path itself. */
enum pl_status pl_path_follow_links(const char *path, char *out, size_t cap,
                                    struct pl_diag *diag) {
  char cur[4096];
  snprintf(cur, sizeof cur, "%s", path);
  for (int hops = 0; hops < 40; hops++) { /* 40 = Linux's MAXSYMLINKS */
    struct stat st;
    if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
      if ((size_t)snprintf(out, cap, "%s", cur) >= cap)
        return pl_diag_set(diag, PL_ERR_LIMIT, "output path '%s' resolves to a path too long",
                           path);
      return PL_OK;
    }
    char link[4096];
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0)
      return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    link[n] = '\0';
    char next[4096];
    const char *slash = strrchr(cur, '/');
    int w = link[0] == '/' || slash == NULL
                ? snprintf(next, sizeof next, "%s", link)
                : snprintf(next, sizeof next, "%.*s/%s", (int)(slash - cur), cur, link);
    if (w < 0 || (size_t)w >= sizeof next)
      return pl_diag_set(diag, PL_ERR_LIMIT, "output path '%s' resolves to a path too long",
                         path);
    memcpy(cur, next, (size_t)w + 1);
  }
  return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': too many levels of symbolic links",
                     path);
}

static enum pl_status open_in_place(struct pl_outfile *o, struct pl_diag *diag) {
  o->in_place = true;
  o->f = fopen(o->path, "w");
  if (o->f == NULL)
    return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));
  return PL_OK;
}

enum pl_status pl_outfile_open(struct pl_outfile *o, const char *path, struct pl_diag *diag) {
  memset(o, 0, sizeof *o);
  size_t n = strlen(path);
  if (n == 0)
    return pl_diag_set(diag, PL_ERR_IO, "empty output path");
  if (n >= sizeof o->path)
    return pl_diag_set(diag, PL_ERR_LIMIT, "output path is longer than %zu characters",
                       sizeof o->path - 1);
  enum pl_status s = pl_path_follow_links(path, o->path, sizeof o->path, diag);
  if (s != PL_OK)
    return s;
  struct stat st;
  if (stat(o->path, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': it is a directory", path);
    if (!S_ISREG(st.st_mode))
      return open_in_place(o, diag);
  }
  if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", o->path) >= sizeof o->tmp)
    return pl_diag_set(diag, PL_ERR_LIMIT, "output path '%s' is too long", path);
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
  errno = 0;
  int bad = fflush(o->f) != 0 || ferror(o->f);
  int err = errno;
  if (fclose(o->f) != 0 && err == 0)
    err = errno;
  o->f = NULL;
  if ((bad || err != 0) && st == PL_OK)
    st = pl_diag_set(diag, PL_ERR_IO, "cannot write '%s': %s", o->path,
                     err != 0 ? strerror(err) : "write error");
  if (o->in_place)
    return st;
  if (st == PL_OK && rename(o->tmp, o->path) != 0)
    st = pl_diag_set(diag, PL_ERR_IO, "cannot replace '%s': %s", o->path, strerror(errno));
  if (st != PL_OK)
    remove(o->tmp);
  return st;
}
