/* test_alloc_fail.c: failure injection (docs/robustness.md). For one trace
 * analysis, one search on a tiny space, one prediction and one validation
 * CSV record, the n-th allocation of libplateau fails, for EVERY n from 1 to
 * the number of allocations the call makes: each run must return
 * PL_ERR_NOMEM with a message saying "out of memory", never crash or succeed
 * with a silently degraded result; the ASan build (scripts/test.sh
 * --sanitize) checks that nothing leaks on any of those paths. The loop ends
 * on the first n the call never reaches (the run made fewer than n
 * allocations), so no allocation is skipped, unlike a loop that stops at
 * the first success.
 *
 * The allocation hook (include/plateau/alloc.h) is process-wide and not
 * thread-safe, so the calls run with one thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>

#include "alloc_inject.h"
#include "check.h"


typedef enum pl_status (*call_fn)(struct pl_diag *diag);

struct plain_call {
  call_fn fn;
};

static enum pl_status call_plain(void *ctx, struct pl_diag *diag) {
  return ((const struct plain_call *)ctx)->fn(diag);
}

/* Fail allocation 1, 2, ... of fn in turn (alloc_inject.h: each failure
 * must surface as "out of memory"; a validation row that turned OOM into a
 * "skipped" row was a bug); returns how many allocations the call makes. */
static long fail_each(const char *what, call_fn fn) {
  struct plain_call c = {fn};
  long n = alloc_fail_each(what, call_plain, &c);
  fprintf(stderr, "%s: %ld allocations, each failed once\n", what, n);
  CHECK(n > 0);
  return n;
}

/* ---- trace analysis of a small shipped trace (tests/data/traces) ---- */

static char *trace_bytes;
static size_t trace_len;

static void read_trace(const char *path) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (f == NULL)
    return;
  trace_bytes = malloc(1 << 20);
  trace_len = fread(trace_bytes, 1, 1 << 20, f);
  fclose(f);
  CHECK(trace_len > 0 && trace_len < (1 << 20));
}

static enum pl_status trace_mem(struct pl_diag *diag) {
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_set *s = NULL;
  enum pl_status st = pl_trace_analyze_mem(trace_bytes, trace_len, "triton", &o, &s, diag);
  if (st == PL_OK)
    CHECK(s->n_ranks == 1);
  pl_trace_set_free(s);
  return st;
}

/* The file path (directory expansion, gzip input, one worker thread). */
static enum pl_status trace_file(struct pl_diag *diag) {
  const char *paths[] = {PL_TEST_DATA "/traces/hta_triton_example.json.gz"};
  struct pl_trace_opts o = {-1, 1, false};
  struct pl_trace_set *s = NULL;
  enum pl_status st = pl_trace_analyze(paths, 1, &o, &s, diag);
  pl_trace_set_free(s);
  return st;
}

/* ---- search and predict on a tiny model ---- */

static const char *const tiny_json =
    "{\"name\": \"tiny\", \"layers\": 4, \"hidden\": 512, \"heads\": 8, \"kv_heads\": 8, "
    "\"ffn_hidden\": 1408, \"vocab\": 1000, \"seq_len\": 512, \"mlp\": \"swiglu\", "
    "\"pos\": \"rotary\", \"norm\": \"rms\", \"tied_embeddings\": false, \"linear_bias\": false}";

static struct pl_run run;

static void load_run(void) {
  struct pl_diag d;
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_from_json(tiny_json, strlen(tiny_json), "tiny", &run.model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, &d);
}

/* 4 GPUs, gbs 4; tp and pp free (tuples (1,1,1) (2,1,1) (1,2,1) (4,1,1)
 * (1,4,1) (2,2,1) and cp), ZeRO-2 only, no recompute, mbs 1: a few dozen
 * layouts, each predicted once. */
static enum pl_status search(struct pl_diag *diag) {
  struct pl_search_opts o;
  memset(&o, 0, sizeof o);
  o.top_k = 3;
  enum pl_status st = pl_search_space_parse("shard=zero2,recompute=none,mbs=1", &o.space, diag);
  if (st != PL_OK)
    return st;
  run.layout = (struct pl_layout){0};
  run.layout.gpus = 4;
  run.layout.gbs = 4;
  struct pl_search_result r;
  memset(&r, 0, sizeof r);
  st = pl_search_run(&run, &o, &r, diag);
  if (st == PL_OK)
    CHECK(r.n_hits >= 1);
  pl_search_result_free(&r);
  return st;
}

/* tp 2, pp 2 (1F1B), dp 2: every kind of collective and the pipeline. */
static enum pl_status predict(struct pl_diag *diag) {
  static struct pl_prediction pred;
  run.layout = (struct pl_layout){0};
  run.layout.gpus = 8;
  run.layout.tp = 2;
  run.layout.pp = 2;
  run.layout.gbs = 16;
  return pl_predict(&run, &pred, diag);
}

/* ---- one validation CSV: header and one record (tests/data/validation) ---- */

static char csv[16384];
static size_t csv_len;

static void read_csv(const char *path) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL);
  if (f == NULL)
    return;
  int lines = 0, c;
  while (lines < 2 && csv_len + 1 < sizeof csv && (c = fgetc(f)) != EOF) {
    csv[csv_len++] = (char)c;
    lines += c == '\n';
  }
  fclose(f);
  CHECK(lines == 2);
}

static enum pl_status validate(struct pl_diag *diag) {
  struct pl_validation v;
  pl_validation_init(&v);
  enum pl_status st = pl_validation_add_csv(&v, "sc21", csv, csv_len, diag);
  if (st == PL_OK)
    CHECK(v.n_rows == 1);
  pl_validation_free(&v);
  return st;
}

int main(void) {
  read_trace(PL_TEST_DATA "/traces/hta_triton_example.json.gz");
  if (trace_bytes != NULL)
    fail_each("trace analyze (memory)", trace_mem);
  fail_each("trace analyze (file)", trace_file);
  free(trace_bytes);
  load_run();
  fail_each("search (tiny space)", search);
  fail_each("predict (tp2 pp2 dp2)", predict);
  read_csv(PL_TEST_DATA "/validation/megatron_sc21_narayanan.csv");
  fail_each("validate (one record)", validate);
  return check_finish();
}
