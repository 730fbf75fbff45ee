/* outfile.h: every file plateau writes goes through here. A regular file is
 * written to a temporary name in the same directory and renamed over the target
 * only when complete, so an interrupted or failed run leaves the old file or
 * none, never half of one; a symlink is followed (its target is replaced); a
 * device, FIFO or socket is written in place; a directory is refused. Every
 * write and the close are checked.
 * Ownership: the struct is the caller's; pl_outfile_commit always closes it. */
#ifndef PLATEAU_OUTFILE_H
#define PLATEAU_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include "status.h"

struct pl_outfile {
  FILE *f;          /* write here */
  char path[4096];  /* final name */
  char tmp[4200];   /* temporary name beside it */
  bool in_place;    /* a device, FIFO or socket: written directly, no rename */
};

enum pl_status pl_outfile_open(struct pl_outfile *o, const char *path, struct pl_diag *diag);
/* The path a write to `path` lands on: the end of its chain of symbolic links
 * (a dangling link's target, which a write creates), else path itself. */
enum pl_status pl_path_follow_links(const char *path, char *out, size_t cap,
                                    struct pl_diag *diag);

/* True when two of paths[0..n-1] name the same regular file (same device and
 * inode after symbolic links: `a.json`, `./a.json`, a link or hard link to it);
 * *first < *second are their indices. Paths that cannot be stat()ed and files
 * that are not regular (/dev/stdin, a pipe) never match. An input named twice
 * would be read twice (src/base/samefile.c). */
bool pl_paths_same_file(const char *const *paths, int n, int *first, int *second);

/* Close; when st is PL_OK and the close succeeds, rename over the final name,
 * otherwise remove the temporary. Returns st, or the close/rename failure. */
enum pl_status pl_outfile_commit(struct pl_outfile *o, enum pl_status st, struct pl_diag *diag);

#endif
