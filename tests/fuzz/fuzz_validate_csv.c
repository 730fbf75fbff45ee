/* fuzz_validate_csv.c: libFuzzer target for the validation CSV reader
 * (src/validate/csv.c) and the record -> run conversion behind
 * `plateau validate` (pl_validation_add_csv).
 *
 * Every input goes through validate_csv_parse; on success the table must be
 * consistent (n_records >= 1, every cell a NUL-terminated string inside the
 * text buffer). Small inputs (MAX_PREDICT bytes, a header and MAX_ROWS
 * record) are also read as a whole validation dataset: every row must come
 * back either skipped with a reason or predicted with finite numbers
 * (docs/robustness.md). Any error must carry a message. A violation aborts
 * (libFuzzer and replay_main.c report it).
 *
 * Seed corpus (tests/fuzz/corpus/fuzz_validate_csv/): two records (*_head)
 * or one (*_row1) of each shipped dataset (data/validation, tests/data/
 * validation; sources in their README.md), the quoting edge cases of RFC
 * 4180 and the errors of tests/cli/validate_errors.sh in small. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "validate/validate_int.h"

/* Predicting a row runs the step model (milliseconds under ASan): only
 * small inputs of a header and up to MAX_ROWS records are predicted, so the
 * reader itself still runs thousands of times a second. */
#define MAX_PREDICT 8192
#define MAX_ROWS 1

static void die(const char *what) {
  fprintf(stderr, "fuzz_validate_csv: invariant broken: %s\n", what);
  abort();
}

static void check_table(const struct validate_csv *c) {
  if (c->n_records < 1 || c->n_cols < 1)
    die("a parsed table without a header");
  for (size_t i = 0; i < c->n_records * c->n_cols; i++)
    if (c->cells[i] == NULL || strlen(c->cells[i]) > 64u << 20)
      die("a cell without text");
  for (size_t r = 1; r < c->n_records; r++)
    if (c->lines[r] < c->lines[r - 1])
      die("record lines go backwards");
}

static void check_rows(const struct pl_validation *v) {
  for (size_t i = 0; i < v->n_rows; i++) {
    const struct pl_vrow *r = &v->rows[i];
    if (r->skipped) {
      if (r->skipped_reason[0] == '\0')
        die("a skipped row without a reason");
      continue;
    }
    double x[] = {r->measured, r->predicted, r->error, r->mfu, r->compute_s};
    for (size_t k = 0; k < sizeof x / sizeof x[0]; k++)
      if (!isfinite(x[k]))
        die("a predicted row with a non-finite number");
  }
  if (!isfinite(v->overall.mape) || !isfinite(v->overall.bias))
    die("a non-finite summary");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *text = (const char *)data;
  struct validate_csv c;
  struct pl_diag d;
  pl_diag_clear(&d);
  memset(&c, 0, sizeof c);
  if (validate_csv_parse(text, size, "fuzz", &c, &d) == PL_OK)
    check_table(&c);
  else if (d.msg[0] == '\0')
    die("a csv error without a message");
  validate_csv_free(&c);
  size_t lines = 0;
  for (size_t i = 0; i < size && lines <= MAX_ROWS + 1; i++)
    lines += data[i] == '\n';
  if (size > MAX_PREDICT || lines > MAX_ROWS + 1)
    return 0;
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  enum pl_status s = pl_validation_add_csv(&v, "fuzz", text, size, &d);
  if (s == PL_OK)
    check_rows(&v);
  else if (d.msg[0] == '\0')
    die("a validation error without a message");
  pl_validation_free(&v);
  return 0;
}
