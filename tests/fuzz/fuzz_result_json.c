/* fuzz_result_json.c: the JSON files plateau reads back from its own
 * outputs, from the fuzz input (first byte modulo 3 picks the reader, the
 * rest is the file):
 *   0  an error-band table (pl_band_table_parse; data/accuracy/error-bands.json)
 *   1  `trace compare`'s inputs: a `trace analyze --format json` or
 *      `predict --format json` result, or a trace (pl_trace_summary_load),
 *      then the collectives paired with themselves (pl_trace_coll_pairs)
 *   2  `validate --baseline FILE` (pl_validation_check_baseline) against an
 *      empty validation
 * Files 1 and 2 are read from a temporary file (the readers take paths),
 * written once per input. Every error is one line with a message; a band
 * table that parses has finite bands lo <= hi; a summary has finite values
 * and collectives that pair each with itself; a baseline check has a
 * message per finding. A violation aborts. The temporary file is removed at
 * exit. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

static void error_ok(const struct pl_diag *d) {
  if (d->msg[0] == '\0' || strchr(d->msg, '\n') != NULL)
    abort(); /* every error is one line that says why */
}

static void bands(const char *text, size_t len) {
  static struct pl_band_table t;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_band_table_parse(text, len, "fuzz", &t, &d) != PL_OK) {
    error_ok(&d);
    return;
  }
  if (t.n > PL_BAND_MAX_CLASSES)
    abort();
  for (size_t i = 0; i < t.n; i++) {
    const struct pl_band *b = &t.classes[i];
    if (!isfinite(b->ratio_lo) || !isfinite(b->ratio_hi) || !(b->ratio_lo <= b->ratio_hi) ||
        !(b->ratio_lo > 0) || memchr(b->class_name, '\0', sizeof b->class_name) == NULL)
      abort();
  }
  (void)pl_band_table_find(&t, "h100", "nemo", 16);
  (void)pl_band_table_find(&t, "h100", "", 1);
}

/* The temporary file the path readers get, rewritten for every input. */
static char tmp_path[64] = "";

static void remove_file(void) { unlink(tmp_path); }

static const char *to_file(const uint8_t *data, size_t size) {
  if (tmp_path[0] == '\0') {
    snprintf(tmp_path, sizeof tmp_path, "/tmp/fuzz_result_json_XXXXXX");
    int fd = mkstemp(tmp_path);
    if (fd < 0)
      abort();
    close(fd);
    atexit(remove_file);
  }
  FILE *f = fopen(tmp_path, "wb");
  if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0)
    abort();
  return tmp_path;
}

static void summary(const char *path) {
  static struct pl_trace_summary s;
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_trace_summary_load(path, &o, &s, &d) != PL_OK) {
    error_ok(&d);
    return;
  }
  for (int m = 0; m < PL_TM_N; m++)
    if (s.has[m] && !isfinite(s.value[m]))
      abort();
  if (s.n_coll < 0 || s.n_coll > PL_TRACE_SUMMARY_MAX_COLL || s.n_ops < 0 ||
      s.n_ops > PL_TRACE_SUMMARY_MAX_OPS)
    abort();
  struct pl_trace_coll_pair *pairs = pl_malloc((size_t)(2 * s.n_coll + 1) * sizeof *pairs);
  if (pairs != NULL) {
    int n = pl_trace_coll_pairs(&s, &s, pairs);
    if (n < 0 || n > 2 * s.n_coll)
      abort();
    pl_free(pairs);
  }
  pl_trace_summary_free(&s);
}

static void baseline(const char *path) {
  static struct pl_validation v;
  static int init = 0;
  if (!init) {
    pl_validation_init(&v);
    init = 1;
  }
  struct pl_vcheck c;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_validation_check_baseline(&v, path, &c, &d) != PL_OK) {
    error_ok(&d);
    return;
  }
  if (!isfinite(c.tolerance_pct) || c.tolerance_pct < 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > (1u << 20))
    return 0;
  int which = data[0] % 3;
  data++;
  size--;
  if (which == 0) {
    bands((const char *)data, size);
    return 0;
  }
  const char *path = to_file(data, size);
  if (which == 1)
    summary(path);
  else
    baseline(path);
  return 0;
}
