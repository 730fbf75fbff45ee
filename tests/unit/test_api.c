/* test_api.c: the C API (include/plateau/api.h, libplateau.so) returns the
 * document the CLI prints, fails with the CLI's message and status, and
 * prints nothing: stdout and stderr are pointed at a file during the calls
 * and the file must stay empty. Linked against the shared library. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, dup */
#include <plateau/api.h>
#include <plateau/version.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static int saved_out = -1, saved_err = -1;
static char quiet_path[] = "/tmp/plateau-test-api-XXXXXX";

/* fd 1 and 2 into a scratch file until loud() */
static void quiet(void) {
  fflush(stdout);
  fflush(stderr);
  int fd = mkstemp(quiet_path);
  saved_out = dup(1);
  saved_err = dup(2);
  dup2(fd, 1);
  dup2(fd, 2);
  close(fd);
}

/* restore fd 1 and 2; returns the bytes written meanwhile */
static long loud(void) {
  fflush(stdout);
  fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  struct stat st;
  long n = stat(quiet_path, &st) == 0 ? (long)st.st_size : -1;
  FILE *f = n > 0 ? fopen(quiet_path, "r") : NULL; /* failed checks, or what leaked */
  for (int c; f != NULL && (c = fgetc(f)) != EOF;)
    fputc(c, stderr);
  if (f != NULL)
    fclose(f);
  unlink(quiet_path);
  return n;
}

static enum pl_status call(const char *cmd, int argc, const char *const *argv, char **json,
                           struct pl_diag *d) {
  pl_diag_clear(d);
  return pl_api_run(cmd, argc, argv, json, d);
}

static void test_ok(void) {
  const char *argv[] = {"--model", "llama2-7b", "--gpus=8", "--tokens", "2T"};
  char *json = NULL;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_api_predict(5, argv, &json, &d), PL_OK, dp);
  CHECK(json != NULL && json[0] == '{');
  /* the version stamp opens the document, then the prediction's members */
  char head[128];
  snprintf(head, sizeof head, "{\n  \"version\": \"%s\",\n  \"model\": {", pl_version());
  CHECK(json != NULL && strncmp(json, head, strlen(head)) == 0);
  CHECK(json != NULL && strstr(json, "\"step_time_s\": ") != NULL);
  CHECK(json != NULL && strstr(json, "\"days\": ") != NULL);
  pl_api_free(json);
  CHECK(strcmp(pl_api_version(), pl_version()) == 0);
}

static void test_errors(void) {
  char *json = (char *)"x";
  struct pl_diag d, *dp = &d;
  const char *bad_value[] = {"--tokens", "15X"};
  CHECK_STATUS(call("predict", 2, bad_value, &json, &d), PL_ERR_INPUT, dp);
  CHECK(json == NULL);
  CHECK_CONTAINS(d.msg, "--tokens: '15X' is not a count");
  CHECK(strncmp(d.msg, "plateau", 7) != 0); /* the CLI's prefix is dropped */
  const char *unknown[] = {"--gpuz", "8"};
  CHECK_STATUS(call("predict", 2, unknown, &json, &d), PL_ERR_USAGE, dp);
  CHECK_CONTAINS(d.msg, "predict: unknown option '--gpuz'");
  const char *format[] = {"--format=csv"};
  CHECK_STATUS(call("search", 1, format, &json, &d), PL_ERR_USAGE, dp);
  CHECK_CONTAINS(d.msg, "--format");
  const char *help[] = {"--help"};
  CHECK_STATUS(call("sweep", 1, help, &json, &d), PL_ERR_USAGE, dp);
  const char *null_arg[] = {"--gpus", NULL};
  CHECK_STATUS(call("predict", 2, null_arg, &json, &d), PL_ERR_USAGE, dp);
  CHECK_STATUS(call("frobnicate", 0, NULL, &json, &d), PL_ERR_USAGE, dp);
  CHECK_CONTAINS(d.msg, "unknown command 'frobnicate'");
  CHECK_STATUS(call("validate", 0, NULL, &json, &d), PL_ERR_USAGE, dp);
  CHECK_CONTAINS(d.msg, "validate: give at least one CSV file");
  const char *missing[] = {"/nonexistent/rank0.json"};
  CHECK_STATUS(pl_api_trace_analyze(1, missing, &json, &d), PL_ERR_INPUT, dp);
  CHECK_CONTAINS(d.msg, "/nonexistent/rank0.json");
  CHECK_STATUS(pl_api_run("predict", 0, NULL, NULL, &d), PL_ERR_USAGE, dp);
}

/* after failures the next call still works (no state left behind) */
/* calibrate through the API: a subcommand is required, its errors carry the
 * CLI's message, its warnings stay in the call (the 256-node Polaris all_reduce
 * warns that both hop latencies sit at the fit's edge) and calibrate compute's
 * document comes back (it was written to fd 1: json was empty). */
static void test_calibrate(void) {
  char *json = NULL;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(call("calibrate", 0, NULL, &json, &d), PL_ERR_USAGE, dp);
  CHECK_CONTAINS(d.msg, "calibrate: give the subcommand first");
  const char *opt_first[] = {"--out", "x.json"};
  CHECK_STATUS(call("trace", 2, opt_first, &json, &d), PL_ERR_USAGE, dp);
  CHECK_CONTAINS(d.msg, "trace: give the subcommand first");
  const char *bogus[] = {"bogus"};
  CHECK_STATUS(call("calibrate", 1, bogus, &json, &d), PL_ERR_USAGE, dp);
  CHECK_CONTAINS(d.msg, "calibrate: unknown kind 'bogus' (expected nccl, trace or compute)");
  const char *log =
      PL_TEST_DATA "/nccl-multinode/a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot.txt";
  const char *trace = PL_TEST_DATA "/traces/gt_h100_llama3.2-1b_seq4096.json.gz";
  char out[64];
  snprintf(out, sizeof out, "/tmp/plateau-test-api-%ld.json", (long)getpid());
  const char *nccl[] = {"nccl",         log,     "--op", "all_reduce", "--cluster",
                        "alcf-polaris", "--out", out};
  CHECK_STATUS(call("calibrate", 8, nccl, &json, &d), PL_OK, dp);
  CHECK(json != NULL && strstr(json, "\"at_limit\": [") != NULL);
  CHECK(json != NULL && strstr(json, "\"intra_latency_s\",") != NULL);
  pl_api_free(json);
  json = NULL;
  const char *compute[] = {"compute", trace, "--gpu", "h100", "--out", out};
  CHECK_STATUS(call("calibrate", 6, compute, &json, &d), PL_OK, dp);
  CHECK(json != NULL && json[0] == '{' && strstr(json, "\"gemm.mamf\"") != NULL);
  pl_api_free(json);
  remove(out);
}

static void test_again(void) {
  const char *argv[] = {"--gpus", "16", "--top", "2", "--threads", "1"};
  char *json = NULL;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(call("search", 6, argv, &json, &d), PL_OK, dp);
  CHECK(json != NULL && strstr(json, "\"rank\": 2") != NULL);
  pl_api_free(json);
  const char *list[] = {"gpus"};
  CHECK_STATUS(pl_api_list(1, list, &json, &d), PL_OK, dp);
  CHECK(json != NULL && strstr(json, "\"h100\"") != NULL);
  pl_api_free(json);
}

int main(void) {
  quiet();
  test_ok();
  test_errors();
  test_calibrate();
  test_again();
  long printed = loud();
  CHECK_EQ_INT(printed, 0); /* the library printed nothing */
  return check_finish();
}
