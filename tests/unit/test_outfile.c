/* test_outfile.c: outputs appear whole or not at all. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "check.h"

static int read_all(const char *path, char *buf, size_t n) {
  FILE *f = fopen(path, "r");
  if (f == NULL)
    return -1;
  size_t got = fread(buf, 1, n - 1, f);
  buf[got] = '\0';
  fclose(f);
  return (int)got;
}

int main(void) {
  char dir[] = "/tmp/pl-outfile-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256], buf[64];
  snprintf(path, sizeof path, "%s/out.json", dir);
  struct pl_outfile o;
  struct pl_diag d;
  pl_diag_clear(&d);

  /* A committed write replaces the file. */
  CHECK_STATUS(pl_outfile_open(&o, path, &d), PL_OK, &d);
  fputs("old", o.f);
  CHECK_STATUS(pl_outfile_commit(&o, PL_OK, &d), PL_OK, &d);
  CHECK_EQ_INT(read_all(path, buf, sizeof buf), 3);
  CHECK_STR(buf, "old");

  /* A failed run leaves the old file, and no temporary behind. */
  CHECK_STATUS(pl_outfile_open(&o, path, &d), PL_OK, &d);
  fputs("half", o.f);
  char tmp[sizeof o.tmp];
  memcpy(tmp, o.tmp, sizeof tmp);
  CHECK_STATUS(pl_outfile_commit(&o, PL_ERR_PARSE, &d), PL_ERR_PARSE, &d);
  CHECK_EQ_INT(read_all(path, buf, sizeof buf), 3);
  CHECK_STR(buf, "old");
  CHECK(access(tmp, F_OK) != 0);

  /* A directory that does not exist is an error naming the path. */
  CHECK_STATUS(pl_outfile_open(&o, "/nonexistent-dir/x.json", &d), PL_ERR_IO, &d);
  CHECK_CONTAINS(d.msg, "/nonexistent-dir/x.json");

  remove(path);
  rmdir(dir);
  return check_finish();
}
