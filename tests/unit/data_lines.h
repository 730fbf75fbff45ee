/* data_lines.h: the reader the NCCL data-file tests share (test_nccl_p5_efa,
 * test_nccl_b200_together): a whitespace-separated table, one row a line,
 * '#' comment lines and blank lines skipped. The open is a check: a missing
 * file fails the test. */
#ifndef PLATEAU_TEST_DATA_LINES_H
#define PLATEAU_TEST_DATA_LINES_H

#include <stdbool.h>
#include <stdio.h>

#include "check.h"

/* path opened for reading, or NULL (the failure checked). */
static inline FILE *data_lines_open(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  return f;
}

/* The next data line of f in line (n bytes); false at the end. */
static inline bool data_lines_next(FILE *f, char *line, int n) {
  while (fgets(line, n, f) != NULL)
    if (line[0] != '#' && line[0] != '\n')
      return true;
  return false;
}

#endif
