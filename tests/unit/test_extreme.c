/* test_extreme.c: numeric guards (docs/robustness.md, "Numbers"). Extreme but
 * valid inputs go through pl_predict: a 1T-parameter model, 1 GPU and
 * 131072 GPUs, sequences of 1 and 2^20 tokens, a vocabulary of 1, large
 * micro-batches, every shard and recompute mode. Each run either fails
 * cleanly (status + message) or its JSON report (pl_report_predict_json,
 * parsed back) holds only finite, non-negative numbers with the sanity
 * relations below; its CSV and text reports contain no "nan" or "inf".
 *
 * Counts are checked for overflow by value: the 1T model's FLOPs per step on
 * 131072 GPUs (6 N T = 6 * 1.0e12 * 131072 * 4096 = 3.2e21, Kaplan et al.
 * 2020 eq. 2.1) must come out of int64-free double arithmetic intact. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/plateau.h>
#include <plateau/report.h>

#include "base/json.h"
#include "check.h"

/* Roughly GPT-3 shape scaled to ~1.0T parameters: 12 * 128 * 25600^2 =
 * 1.007e12 in the layers. */
static const char *const t1_json =
    "{\"name\": \"t1\", \"layers\": 128, \"hidden\": 25600, \"heads\": 160, \"kv_heads\": 160, "
    "\"ffn_hidden\": 102400, \"vocab\": 51200, \"seq_len\": 4096, \"mlp\": \"gelu\", "
    "\"pos\": \"learned\", \"max_positions\": 4096, \"norm\": \"layer\", "
    "\"tied_embeddings\": true, \"linear_bias\": true}";
static const char *const vocab1_json =
    "{\"name\": \"v1\", \"layers\": 2, \"hidden\": 64, \"heads\": 1, \"kv_heads\": 1, "
    "\"ffn_hidden\": 128, \"vocab\": 1, \"seq_len\": 1, \"mlp\": \"swiglu\", "
    "\"pos\": \"rotary\", \"norm\": \"rms\", \"tied_embeddings\": false, \"linear_bias\": false}";

static char *slurp(FILE *f, size_t *len) {
  long n = ftell(f);
  rewind(f);
  char *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  buf[*len] = '\0';
  return buf;
}

static int bad_numbers, numbers;

/* Every number finite and >= 0 (no member of predict's report is signed). */
static void walk(yajl_val v, const char *key) {
  if (YAJL_IS_NUMBER(v)) {
    double x = YAJL_GET_DOUBLE(v);
    numbers++;
    if (!isfinite(x) || x < 0 || x > 1e30) {
      fprintf(stderr, "  number '%s' = %g is not finite, negative or absurd\n", key, x);
      bad_numbers++;
    }
  } else if (YAJL_IS_OBJECT(v)) {
    for (size_t i = 0; i < v->u.object.len; i++)
      walk(v->u.object.values[i], v->u.object.keys[i]);
  } else if (YAJL_IS_ARRAY(v)) {
    for (size_t i = 0; i < v->u.array.len; i++)
      walk(v->u.array.values[i], key);
  }
}

static double num(yajl_val root, const char *const *path) {
  yajl_val v = yajl_tree_get(root, (const char **)path, yajl_t_number);
  return v != NULL ? YAJL_GET_DOUBLE(v) : NAN;
}

/* A layout that does not fit has null times (not simulated): fewer numbers. */
static void check_json(const struct pl_prediction *p, const char *what) {
  FILE *f = tmpfile();
  struct pl_emit *e = pl_emit_open(f);
  pl_report_predict_json(e, NULL, p);
  struct pl_diag d;
  CHECK_STATUS(pl_emit_close(e, &d), PL_OK, &d);
  size_t len;
  char *text = slurp(f, &len);
  fclose(f);
  yajl_val root = NULL;
  CHECK_STATUS(base_json_parse(text, len, what, &root, &d), PL_OK, &d);
  free(text);
  if (root == NULL)
    return;
  bad_numbers = numbers = 0;
  walk(root, "(root)");
  if (numbers <= 30)
    fprintf(stderr, "%s: %d numbers\n", what, numbers);
  CHECK(numbers > 30); /* the walk saw the report */
  if (bad_numbers > 0)
    fprintf(stderr, "%s: %d bad numbers\n", what, bad_numbers);
  CHECK(bad_numbers == 0);
  static const char *const step[] = {"step_time_s", NULL}, *const mfu[] = {"mfu", NULL};
  double t = num(root, step), u = num(root, mfu);
  if (p->memory.fits) {
    CHECK(t > 0);
    CHECK(u >= 0 && u <= 1);
  }
  base_json_free(root);
}

static bool word_char(char c) { return isalpha((unsigned char)c) || c == '_'; }

/* CSV and text are printed with %g/%f: no NaN or infinity may reach them. */
static void check_text(const struct pl_prediction *p, const char *what) {
  FILE *f = tmpfile();
  pl_report_predict_csv_header(f);
  pl_report_predict_csv_row(f, p);
  pl_report_predict_text(f, p);
  size_t len;
  char *text = slurp(f, &len);
  fclose(f);
  for (char *s = text; *s; s++)
    *s = (char)tolower((unsigned char)*s);
  /* "inf" as a word: "information" or "infiniband" would not be numbers, nor a
   * column name's part ("framework.grad_nan_check": '_' joins a name) */
  bool bad = false;
  for (const char *s = text; (s = strstr(s, "inf")) != NULL; s++)
    if ((s == text || !word_char(s[-1])) && !word_char(s[3]))
      bad = true;
  for (const char *s = text; (s = strstr(s, "nan")) != NULL; s++)
    if ((s == text || !word_char(s[-1])) && !word_char(s[3]))
      bad = true;
  if (bad)
    fprintf(stderr, "%s: nan or inf in the CSV or text report\n", what);
  CHECK(!bad);
  free(text);
}

static struct pl_run run;
static struct pl_prediction pred;
static int ran, refused, fitted;

static void load(const char *model_json, const char *preset, const char *cluster) {
  struct pl_diag d;
  memset(&run, 0, sizeof run);
  if (model_json != NULL)
    CHECK_STATUS(pl_model_from_json(model_json, strlen(model_json), "m", &run.model, &d), PL_OK,
                 &d);
  else
    CHECK_STATUS(pl_model_load(preset, &run.model, &d), PL_OK, &d);
  CHECK_STATUS(pl_cluster_load(cluster, &run.cluster, &d), PL_OK, &d);
}

static void go(const char *what) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_predict(&run, &pred, &d);
  if (st != PL_OK) {
    refused++;
    if (d.msg[0] == '\0')
      fprintf(stderr, "%s: error %s without a message\n", what, pl_status_name(st));
    CHECK(d.msg[0] != '\0');
    return;
  }
  ran++;
  fitted += pred.memory.fits;
  check_json(&pred, what);
  check_text(&pred, what);
}

static void layout(int64_t gpus, int64_t tp, int64_t pp, int64_t gbs, int64_t mbs, int64_t seq) {
  run.layout = (struct pl_layout){0};
  run.layout.gpus = gpus;
  run.layout.tp = tp;
  run.layout.pp = pp;
  run.layout.gbs = gbs;
  run.layout.mbs = mbs;
  run.layout.seq = seq;
}

static void test_1t_model(void) {
  load(t1_json, NULL, "dgx-h100");
  layout(131072, 8, 16, 131072, 1, 0);
  run.layout.shard = PL_SHARD_ZERO3;
  run.layout.shard_set = true;
  run.layout.recompute = PL_RECOMPUTE_FULL;
  go("1T on 131072 GPUs");
  /* 6 N T with N ~ 1.0e12 and T = 131072 * 4096 = 5.4e8 tokens */
  if (ran > 0) {
    CHECK(pred.params > 900000000000LL && pred.params < 1100000000000LL);
    CHECK(pred.step.step_time_s > 0 && isfinite(pred.step.step_time_s));
  }
  layout(1, 1, 1, 1, 1, 0); /* does not fit one GPU: a result, fits = false */
  go("1T on 1 GPU");
  CHECK(!pred.memory.fits);
}

static void test_presets(void) {
  static const char *const models[] = {"llama3-405b", "gpt3-175b", "llama2-7b"};
  static const int64_t gpus[] = {1, 8, 1024, 131072};
  for (size_t m = 0; m < 3; m++)
    for (size_t g = 0; g < 4; g++) {
      char what[96];
      snprintf(what, sizeof what, "%s on %lld GPUs", models[m], (long long)gpus[g]);
      load(NULL, models[m], "dgx-h100");
      layout(gpus[g], 0, 0, 0, 0, 0);
      go(what);
    }
}

static void test_sequences(void) {
  load(NULL, "llama2-7b", "dgx-h100");
  layout(8, 0, 0, 8, 1, 1);
  go("seq 1");
  layout(64, 8, 1, 8, 1, 1 << 20);
  run.layout.cp = 8;
  go("seq 2^20 cp 8");
  layout(8, 0, 0, 8, 1, 1 << 20);
  go("seq 2^20 on 8 GPUs");
  layout(8, 0, 0, 8192, 1024, 0);
  go("mbs 1024");
  layout(8, 0, 0, INT64_C(1) << 30, 1 << 20, 16);
  go("gbs 2^30 mbs 2^20 seq 16");
  load(vocab1_json, NULL, "dgx-a100");
  layout(1, 0, 0, 1, 1, 1);
  go("vocab 1, seq 1, 1 GPU");
  layout(2, 1, 2, 4, 1, 1);
  go("vocab 1, pp 2");
}

static void test_modes(void) {
  load(NULL, "llama2-70b", "dgx-b200");
  for (int s = 0; s < 4; s++)
    for (int r = 0; r < 3; r++) {
      layout(64, 8, 2, 128, 1, 0);
      run.layout.shard = (enum pl_shard)s;
      run.layout.shard_set = true;
      run.layout.recompute = (enum pl_recompute)r;
      run.layout.dtype = (s + r) % 2 ? PL_DTYPE_FP8 : PL_DTYPE_BF16;
      go("llama2-70b modes");
    }
}

int main(void) {
  test_1t_model();
  test_presets();
  test_sequences();
  test_modes();
  fprintf(stderr, "%d predictions checked (%d fit in memory), %d refused cleanly\n", ran, fitted,
          refused);
  CHECK(ran >= 20 && fitted >= 15);
  return check_finish();
}
