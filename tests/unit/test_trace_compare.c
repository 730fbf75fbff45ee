/* test_trace_compare.c: run summaries from traces and result files, their
 * differences, and the pairing of collectives (src/trace/summary.c,
 * compare.c; docs/trace.md 9). Result files are written here by hand so each
 * expected number can be derived beside it. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, fdopen */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plateau/plateau.h>

#include "check.h"

#define TR PL_TEST_DATA "/traces/"

static struct pl_diag *diag_ptr(struct pl_diag *d) { return d; }

static char tmp_path[64];
static const char *write_tmp(const char *text, size_t pad) {
  snprintf(tmp_path, sizeof tmp_path, "/tmp/pl_test_cmp_XXXXXX");
  int fd = mkstemp(tmp_path);
  if (fd < 0)
    return NULL;
  FILE *f = fdopen(fd, "w");
  if (pad > 0) { /* a long member before the rest: {"metadata": "xxxx...", <text> */
    fputs("{\"metadata\": \"", f);
    for (size_t i = 0; i < pad; i++)
      fputc('x', f);
    fputs("\", ", f);
  }
  fputs(text, f);
  fclose(f);
  return tmp_path;
}

static const struct pl_trace_opts opts = {-1, 1, false};

static void test_delta(void) {
  struct pl_trace_delta d = pl_trace_delta(2.0, true, 2.5, true);
  CHECK(d.has_diff && d.has_rel);
  CHECK_NEAR_REL(d.diff, 0.5, 0);
  CHECK_NEAR_REL(d.rel, 0.25, 0); /* (2.5 - 2) / 2 */
  d = pl_trace_delta(0, true, 1, true);
  CHECK(d.has_diff && !d.has_rel); /* relative to 0: undefined */
  d = pl_trace_delta(1, false, 1, true);
  CHECK(!d.has_diff && !d.has_rel);
}

/* A `trace analyze --format json` result, trimmed to what summaries read. */
static const char trace_json[] =
    "{\"files\": 8, \"world_size\": 8, \"step_time_s\": 0.5, \"tokens_per_s\": null,"
    " \"mfu\": 0.4, \"breakdown\": {\"compute_s\": 0.3, \"exposed_comm_s\": 0.1,"
    " \"overlapped_comm_s\": 0.05, \"exposed_memory_s\": 0.01, \"idle_s\": 0.09,"
    " \"comm_s\": 0.15, \"memory_s\": 0.02, \"recompute_s\": 0},"
    " \"collectives\": [{\"op\": \"all_reduce\", \"group_size\": 8, \"count\": 2, \"bytes\": 1e6,"
    " \"time_s\": 0.01, \"algbw_gbps\": 0.2, \"busbw_gbps\": 0.35},"
    " {\"op\": \"all_gather\", \"group_size\": null, \"count\": 4, \"bytes\": null,"
    " \"time_s\": 0.02, \"algbw_gbps\": null, \"busbw_gbps\": null}],"
    " \"ranks\": []}";

static void test_trace_result(void) {
  struct pl_trace_summary s;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *p = write_tmp(trace_json, 0);
  CHECK_STATUS(pl_trace_summary_load(p, &opts, &s, &d), PL_OK, diag_ptr(&d));
  CHECK_EQ_INT(s.source, PL_TSRC_TRACE_JSON);
  CHECK_EQ_INT(s.ranks, 8);
  CHECK_NEAR_REL(s.value[PL_TM_STEP_TIME_S], 0.5, 0);
  CHECK_NEAR_REL(s.value[PL_TM_IDLE_S], 0.09, 0);
  CHECK(s.has[PL_TM_MFU] && !s.has[PL_TM_TOKENS_PER_S]); /* null = absent */
  CHECK(!s.has[PL_TM_BUBBLE_S] && !s.has[PL_TM_OPTIMIZER_S]);
  CHECK_EQ_INT(s.n_coll, 2);
  if (s.n_coll == 2) {
    CHECK_STR(s.coll[0].op, "all_reduce");
    CHECK_EQ_INT(s.coll[0].group_size, 8);
    CHECK_NEAR_REL(s.coll[0].busbw_bytes_per_s, 0.35e9, 1e-15);
    CHECK_EQ_INT(s.coll[1].group_size, 0); /* null: unknown */
    CHECK_NEAR_REL(s.coll[1].bytes, 0, 0);
  }
  pl_trace_summary_free(&s);
  /* the same document behind 70 KB of other members: still a result */
  p = write_tmp(trace_json + 1, 70000);
  CHECK_STATUS(pl_trace_summary_load(p, &opts, &s, &d), PL_OK, diag_ptr(&d));
  CHECK_EQ_INT(s.source, PL_TSRC_TRACE_JSON);
  pl_trace_summary_free(&s);
  unlink(p);
}

/* A `predict --format json` result: hybrid sharding dp = 16 over shard
 * groups of 8, tp = 4. Group sizes (src/sim/groups.c): dp -> 8 (the shard
 * group), dp-replica -> 16 / 8 = 2, tp -> 4. */
static const char predict_json[] =
    "{\"layout\": {\"gpus\": 64, \"dp\": 16, \"tp\": 4, \"pp\": 1, \"cp\": 1,"
    " \"shard\": \"zero3\", \"shard_group\": 8}, \"memory\": {\"fits\": true},"
    " \"step_time_s\": 1.0, \"tokens_per_s\": 1000, \"mfu\": 0.5,"
    " \"breakdown\": {\"compute_s\": 0.7, \"exposed_comm_s\": 0.1, \"bubble_s\": 0,"
    " \"optimizer_s\": 0.05, \"other_s\": 0.15, \"overlapped_comm_s\": 0.2},"
    " \"collectives\": ["
    "  {\"op\": \"all_gather\", \"group\": \"dp\", \"count\": 10, \"bytes\": 8e6,"
    "   \"time_s\": 0.04, \"exposed_s\": 0},"
    "  {\"op\": \"all_reduce\", \"group\": \"dp-replica\", \"count\": 1, \"bytes\": 4e8,"
    "   \"time_s\": 0.1, \"exposed_s\": 0.05},"
    "  {\"op\": \"all_reduce\", \"group\": \"tp\", \"count\": 64, \"bytes\": 1e6,"
    "   \"time_s\": 0.032, \"exposed_s\": 0.032},"
    "  {\"op\": \"all_reduce\", \"group\": \"tp\", \"count\": 64, \"bytes\": 3e6,"
    "   \"time_s\": 0.064, \"exposed_s\": 0.064}]}";

static void test_predict_result(void) {
  struct pl_trace_summary s;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *p = write_tmp(predict_json, 0);
  CHECK_STATUS(pl_trace_summary_load(p, &opts, &s, &d), PL_OK, diag_ptr(&d));
  CHECK_EQ_INT(s.source, PL_TSRC_PREDICT_JSON);
  CHECK_EQ_INT(s.ranks, 64);
  CHECK_NEAR_REL(s.value[PL_TM_COMM_S], 0.3, 1e-15); /* exposed 0.1 + overlapped 0.2 */
  CHECK(s.has[PL_TM_OPTIMIZER_S] && !s.has[PL_TM_IDLE_S]);
  /* rows are (op, group size): the two tp all_reduce rows merge into one of
   * 128 calls, mean bytes (64 x 1e6 + 64 x 3e6) / 128 = 2e6, time 0.096 s */
  CHECK_EQ_INT(s.n_coll, 3);
  if (s.n_coll == 3) {
    CHECK_STR(s.coll[0].op, "all_gather");
    CHECK_EQ_INT(s.coll[0].group_size, 8);
    /* busbw = 10 x 8e6 x (8-1)/8 / 0.04 = 1.75e9 B/s */
    CHECK_NEAR_REL(s.coll[0].busbw_bytes_per_s, 1.75e9, 1e-12);
    CHECK_EQ_INT(s.coll[1].group_size, 2);
    CHECK_STR(s.coll[1].group, "dp-replica");
    /* all_reduce over 2: 1 x 4e8 x 2(2-1)/2 / 0.1 = 4e9 B/s */
    CHECK_NEAR_REL(s.coll[1].busbw_bytes_per_s, 4e9, 1e-12);
    CHECK_STR(s.coll[2].group, "tp");
    CHECK_EQ_INT(s.coll[2].group_size, 4);
    CHECK_NEAR_REL(s.coll[2].count, 128, 0);
    CHECK_NEAR_REL(s.coll[2].bytes, 2e6, 1e-15);
    CHECK_NEAR_REL(s.coll[2].time_s, 0.096, 1e-15);
  }
  pl_trace_summary_free(&s);
  unlink(p);
}

static void test_errors(void) {
  struct pl_trace_summary s;
  struct pl_diag d;
  pl_diag_clear(&d);
  const char *p = write_tmp("{\"model\": \"llama2-7b\", \"layers\": 32}", 0);
  CHECK_STATUS(pl_trace_summary_load(p, &opts, &s, &d), PL_ERR_PARSE, diag_ptr(&d));
  CHECK(strstr(d.msg, "neither a Kineto trace nor a plateau result") != NULL);
  unlink(p);
  p = write_tmp("{\"layout\": {}, \"breakdown\": {\"compute_s\": null}, \"step_time_s\": null}", 0);
  CHECK_STATUS(pl_trace_summary_load(p, &opts, &s, &d), PL_ERR_MISSING, diag_ptr(&d));
  CHECK(strstr(d.msg, "no step_time_s") != NULL);
  unlink(p);
  p = write_tmp("{\"ranks\": [], \"breakdown\": {}, \"step_time_s\": -1}", 0);
  CHECK_STATUS(pl_trace_summary_load(p, &opts, &s, &d), PL_ERR_RANGE, diag_ptr(&d));
  CHECK(strstr(d.msg, "field 'step_time_s': -1 is negative") != NULL);
  unlink(p);
  /* malformed JSON with no sign of a trace: the JSON parser's error */
  p = write_tmp("{\"breakdown\": {", 0);
  CHECK_STATUS(pl_trace_summary_load(p, &opts, &s, &d), PL_ERR_PARSE, diag_ptr(&d));
  unlink(p);
}

/* Traces: a file, a gzip file and a directory are analyzed, not parsed as results. */
static void test_traces(void) {
  struct pl_trace_summary s;
  struct pl_diag d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_trace_summary_load(TR "hta_triton_example.json", &opts, &s, &d), PL_OK,
               diag_ptr(&d));
  CHECK_EQ_INT(s.source, PL_TSRC_TRACE);
  CHECK(s.has[PL_TM_IDLE_S] && !s.has[PL_TM_BUBBLE_S] && s.value[PL_TM_STEP_TIME_S] > 0);
  pl_trace_summary_free(&s);
  CHECK_STATUS(pl_trace_summary_load(TR "dlrm", &opts, &s, &d), PL_OK, diag_ptr(&d));
  CHECK_EQ_INT(s.ranks, 8);
  CHECK(s.n_coll >= 1);
  pl_trace_summary_free(&s);
  CHECK_STATUS(pl_trace_summary_load(TR "hta_cpu_only_rank-34.json.gz", &opts, &s, &d), PL_OK,
               diag_ptr(&d));
  CHECK(s.has[PL_TM_STEP_TIME_S] && !s.has[PL_TM_COMPUTE_S]); /* CPU only */
  pl_trace_summary_free(&s);
}

static struct pl_trace_summary_coll row(const char *op, int64_t n) {
  struct pl_trace_summary_coll c;
  memset(&c, 0, sizeof c);
  snprintf(c.op, sizeof c.op, "%s", op);
  c.group_size = n;
  return c;
}

static void test_pairs(void) {
  struct pl_trace_summary_coll ca[] = {row("all_reduce", 8), row("all_gather", 0),
                                       row("send_recv", 0), row("send_recv", 0)};
  struct pl_trace_summary_coll cb[] = {row("all_gather", 4), row("all_reduce", 8),
                                       row("send_recv", 2), row("broadcast", 8)};
  struct pl_trace_summary a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  a.coll = ca;
  a.n_coll = 4;
  b.coll = cb;
  b.n_coll = 4;
  struct pl_trace_coll_pair p[8];
  int n = pl_trace_coll_pairs(&a, &b, p);
  /* all_reduce/8 exact; all_gather unknown size pairs with the lone
   * all_gather/4; two send_recv of unknown size on a: ambiguous, unpaired;
   * b's send_recv/2 and broadcast/8 are left over */
  CHECK_EQ_INT(n, 6);
  if (n == 6) {
    CHECK(p[0].a == 0 && p[0].b == 1);
    CHECK(p[1].a == 1 && p[1].b == 0);
    CHECK(p[2].a == 2 && p[2].b == -1);
    CHECK(p[3].a == 3 && p[3].b == -1);
    CHECK(p[4].a == -1 && p[4].b == 2);
    CHECK(p[5].a == -1 && p[5].b == 3);
  }
}

int main(void) {
  test_delta();
  test_trace_result();
  test_predict_result();
  test_errors();
  test_traces();
  test_pairs();
  return check_finish();
}
