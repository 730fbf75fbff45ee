/* files.c: the file-system helpers of the study report: whole-file
 * reads, paths, and removal of the temporary trees the report builds. */
#define _POSIX_C_SOURCE 200809L
#include "study_int.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <plateau/alloc.h>

#include "base/json.h"

/* Figures are at most a few MB of SVG; anything larger is not ours. */
#define STUDY_MAX_FILE_BYTES (64u << 20)

enum pl_status study_read_all(const char *path, char **text, size_t *len, struct pl_diag *diag) {
  return base_read_file(path, STUDY_MAX_FILE_BYTES, text, len, diag);
}

bool study_path(char *buf, size_t n, const char *dir, const char *name) {
  int w = snprintf(buf, n, "%s/%s", dir, name);
  return w > 0 && (size_t)w < n;
}

/* Depth is bounded: the report has one level of subdirectories. */
static void rm_depth(const char *path, int depth) {
  struct stat sb;
  if (lstat(path, &sb) != 0)
    return;
  if (!S_ISDIR(sb.st_mode) || depth > 4) {
    unlink(path);
    return;
  }
  DIR *d = opendir(path);
  if (d != NULL) {
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      char child[4096];
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      if (study_path(child, sizeof child, path, e->d_name))
        rm_depth(child, depth + 1);
    }
    closedir(d);
  }
  rmdir(path);
}

void study_rmtree(const char *path) { rm_depth(path, 0); }
