/* outpath.c: checks on an output path before a run computes anything: it must
 * not be a directory, nor name a file the same run reads.
 *
 * `calibrate nccl log.txt --out log.txt` or `predict --model m.json --trace
 * m.json` would replace the input with the result and exit 0. Same file means
 * same device and inode (stat follows symlinks and hard links), so
 * `./m.json`, `m.json` and a link to it all count. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <sys/stat.h>

#include <plateau/outfile.h>
#include "opts.h"

static bool same_file(const struct stat *a, const char *path) {
  struct stat b;
  return path != NULL && stat(path, &b) == 0 && S_ISREG(b.st_mode) && a->st_dev == b.st_dev &&
         a->st_ino == b.st_ino;
}

int cli_output_ok(const struct cli_args *a, const char *name) {
  const char *out = cli_get(a, name);
  struct stat st;
  if (out == NULL || stat(out, &st) != 0)
    return 0;
  if (S_ISDIR(st.st_mode))
    return cli_fail("--%s '%s': it is a directory; give a file name", name, out);
  if (!S_ISREG(st.st_mode))
    return 0;
  for (int i = 0; i < a->n_pos; i++)
    if (same_file(&st, a->pos[i]))
      return cli_fail("--%s '%s' is also an input of this run ('%s'); write elsewhere", name,
                      out, a->pos[i]);
  for (size_t i = 0; i < a->cmd->n_opts; i++) {
    const char *v = a->values[i];
    if (v != NULL && v != out && strcmp(a->cmd->opts[i].name, name) != 0 && same_file(&st, v))
      return cli_fail("--%s '%s' is also an input of this run (--%s '%s'); write elsewhere",
                      name, out, a->cmd->opts[i].name, v);
  }
  return 0;
}

int cli_inputs_distinct(const struct cli_args *a, const char *what) {
  int i, j;
  if (pl_paths_same_file(a->pos, a->n_pos, &i, &j))
    return strcmp(a->pos[i], a->pos[j]) == 0
               ? cli_fail("%s '%s' given twice: each input is read once", what, a->pos[i])
               : cli_fail("%ss '%s' and '%s' are one file: each input is read once", what,
                          a->pos[i], a->pos[j]);
  return 0;
}
