/* samefile.c: an input named twice.
 *
 * `trace analyze r0.json r0.json` read rank 0 twice and averaged it as two
 * ranks of a world of 2; `calibrate nccl log.txt log.txt` fitted every row of
 * the log with twice the weight of another log's, and exited 0. A shell glob
 * and an explicit name, or a directory and a file in it, do the same. Same file
 * means same device and inode, as outpath.c's check of an output against the
 * inputs (POSIX stat(): st_dev and st_ino identify a file). */
#define _POSIX_C_SOURCE 200809L
#include <plateau/outfile.h>

#include <plateau/alloc.h>
#include <stdlib.h>
#include <sys/stat.h>

struct ident {
  dev_t dev;
  ino_t ino;
  int index;
};

static int cmp_ident(const void *a, const void *b) {
  const struct ident *x = a, *y = b;
  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  if (x->ino != y->ino)
    return x->ino < y->ino ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

bool pl_paths_same_file(const char *const *paths, int n, int *first, int *second) {
  /* sorted by (device, inode), so a trace directory of 65,536 files costs
   * n log n, not n^2; among equal files the first two indices are reported */
  struct ident *id = n > 1 ? pl_calloc((size_t)n, sizeof *id) : NULL;
  if (id == NULL)
    return false;
  int k = 0;
  for (int i = 0; i < n; i++) {
    struct stat st;
    if (paths[i] != NULL && stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
      id[k++] = (struct ident){st.st_dev, st.st_ino, i};
  }
  qsort(id, (size_t)k, sizeof *id, cmp_ident);
  bool found = false;
  for (int i = 1; i < k; i++)
    if (id[i].dev == id[i - 1].dev && id[i].ino == id[i - 1].ino &&
        (!found || id[i - 1].index < *first)) {
      *first = id[i - 1].index;
      *second = id[i].index;
      found = true;
    }
  pl_free(id);
  return found;
}
