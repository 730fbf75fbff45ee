/* test_predict_validation.c: predicted step time against published
 * measurements of Megatron-LM on DGX A100 (docs/step-model.md, "Validation"):
 *   - Korthikanti et al. 2022 (arXiv 2205.05198) Table 5: iteration time of
 *     22B/175B/530B/1T with full recomputation (no sequence parallelism) and
 *     with selective recomputation + sequence parallelism;
 *   - Narayanan et al. SC21 (arXiv 2104.04473) Table 1: weak scaling 1.7B to
 *     1T; the published TFLOP/s per GPU uses eq. 3 (recompute included),
 *     so step time = F_eq3 / (TFLOP/s x GPUs), F_eq3 = 96 B s l h^2
 *     (1 + s/6h + V/16lh) (tests/data/validation/README.md).
 * Every row is turned into a run the same way, with the constants of the
 * a100-80g GPU file only; the assumptions for what a row does not state are
 * fixed below, one rule for all rows. The test prints every row's error,
 * whether the targets (mean |error| <= 10%, worst <= 20%) are met, and
 * guards against regressions. */
#include <plateau/plateau.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_FIELDS 64
#define MAX_ROWS 64

/* ---- a small RFC 4180 reader (quoted fields, "" escapes) ---- */

struct csv {
  char *text;
  char *rows[MAX_ROWS][MAX_FIELDS];
  int n_rows;
  int n_fields;
};

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s != NULL && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s != NULL)
    s[n] = '\0';
  fclose(f);
  return s;
}

/* Parse one field in place starting at *p; returns its start, advances *p
 * past the separator and sets *eol at the end of a record. */
static char *field(char **p, int *eol) {
  char *in = *p, *out = *p, *start = *p;
  bool quoted = *in == '"';
  in += quoted;
  for (;;) {
    if (quoted && in[0] == '"' && in[1] == '"') {
      *out++ = '"';
      in += 2;
    } else if (quoted && in[0] == '"') {
      quoted = false;
      in++;
    } else if (!quoted && (*in == ',' || *in == '\n' || *in == '\r' || *in == '\0')) {
      break;
    } else {
      *out++ = *in++;
    }
  }
  *eol = *in != ',';
  if (*in == '\r')
    in++;
  if (*in != '\0')
    in++;
  *out = '\0';
  *p = in;
  return start;
}

static bool csv_load(struct csv *c, const char *path) {
  memset(c, 0, sizeof *c);
  c->text = read_all(path);
  if (c->text == NULL)
    return false;
  char *p = c->text;
  while (*p != '\0' && c->n_rows < MAX_ROWS) {
    int eol = 0, n = 0;
    while (!eol && n < MAX_FIELDS)
      c->rows[c->n_rows][n++] = field(&p, &eol);
    if (c->n_rows == 0)
      c->n_fields = n;
    c->n_rows++;
  }
  return true;
}

static const char *col(const struct csv *c, int row, const char *name) {
  for (int i = 0; i < c->n_fields; i++)
    if (strcmp(c->rows[0][i], name) == 0)
      return c->rows[row][i] != NULL ? c->rows[row][i] : "";
  return "";
}

static long long num(const struct csv *c, int row, const char *name) {
  return strtoll(col(c, row, name), NULL, 10);
}

static double real(const struct csv *c, int row, const char *name) {
  return strtod(col(c, row, name), NULL);
}

/* ---- rows to runs ---- */

/* Megatron GPT as both papers ran it: GELU MLP of 4h, learned positions,
 * LayerNorm, biases, tied embeddings, attention and hidden dropout
 * (Megatron-LM defaults 0.1); vocabulary as the CSV gives it. */
static bool gpt_model(const struct csv *c, int r, struct pl_model *m) {
  char json[512];
  snprintf(json, sizeof json,
           "{\"name\": \"gpt\", \"layers\": %lld, \"hidden\": %lld, \"heads\": %lld, "
           "\"ffn_hidden\": %lld, \"vocab\": %lld, \"seq_len\": %lld, \"max_positions\": %lld, "
           "\"mlp\": \"gelu\", \"pos\": \"learned\", \"norm\": \"layer\", "
           "\"tied_embeddings\": true, \"linear_bias\": true, \"dropout\": true}",
           num(c, r, "layers"), num(c, r, "hidden"), num(c, r, "heads"), num(c, r, "ffn_hidden"),
           num(c, r, "vocab"), num(c, r, "seq_len"), num(c, r, "seq_len"));
  struct pl_diag d;
  return pl_model_from_json(json, strlen(json), "validation row", m, &d) == PL_OK;
}

/* Smallest divisor >= 2 of n (n itself when prime), 1 when n < 2. */
static long long smallest_divisor(long long n) {
  for (long long k = 2; k <= n; k++)
    if (n % k == 0)
      return k;
  return 1;
}

/* Assumptions for what the rows leave open (one rule for all rows):
 * micro-batch 1 when not stated (Megatron's GPT-3 175B example script);
 * SC21 used the interleaved schedule with an unstated number of chunks:
 * the smallest that divides the layers of a stage; data parallelism is
 * plain all-reduce (ddp); no sequence parallelism unless the row says so;
 * attention is eager (QK^T, softmax, dropout, PV as separate kernels): both
 * papers predate FlashAttention in Megatron-LM (Korthikanti et al. Sec. 4.1
 * count the stored s x s softmax and dropout tensors). */
static bool make_run(const struct csv *c, int r, bool sc21, struct pl_run *run) {
  memset(run, 0, sizeof *run);
  struct pl_diag d;
  if (!gpt_model(c, r, &run->model) || pl_cluster_load("dgx-a100", &run->cluster, &d) != PL_OK)
    return false;
  struct pl_layout *l = &run->layout;
  l->gpus = num(c, r, "num_gpus");
  l->tp = num(c, r, "tp");
  l->pp = num(c, r, "pp");
  l->gbs = num(c, r, "global_batch");
  l->mbs = num(c, r, "micro_batch") > 0 ? num(c, r, "micro_batch") : 1;
  l->shard = PL_SHARD_DDP;
  l->shard_set = true;
  l->eager_attention = true;
  l->grad_reduce_after_backward = true; /* Megatron-LM 2021-22: allreduce_gradients() after backward */
  const char *rc = col(c, r, "recompute");
  bool selective = strstr(rc, "selective") != NULL;
  l->recompute = selective ? PL_RECOMPUTE_SELECTIVE : PL_RECOMPUTE_FULL;
  l->no_sp = strstr(rc, "sequence parallelism") == NULL || strstr(rc, "no sequence") != NULL;
  long long vp = num(c, r, "vp");
  if (sc21 && l->pp > 1)
    vp = smallest_divisor(num(c, r, "layers") / l->pp);
  if (vp > 1) {
    l->vp = vp;
    l->schedule = PL_SCHEDULE_INTERLEAVED;
  }
  return true;
}

static double eq3_flops(const struct csv *c, int r) {
  double B = (double)num(c, r, "global_batch"), s = (double)num(c, r, "seq_len");
  double L = (double)num(c, r, "layers"), h = (double)num(c, r, "hidden");
  double V = (double)num(c, r, "vocab");
  return 96.0 * B * s * L * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * L * h));
}

struct tally {
  double sum_ape;
  double max_ape;
  int n;
};

static void run_row(const struct csv *c, int r, bool sc21, struct tally *t) {
  static struct pl_run run;
  static struct pl_prediction p;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK(make_run(c, r, sc21, &run));
  enum pl_status st = pl_predict(&run, &p, &d);
  CHECK_STATUS(st, PL_OK, dp);
  if (st != PL_OK || !p.step.simulated) {
    printf("  %-12s %5lld GPUs: no prediction (%s)\n", col(c, r, "model"), num(c, r, "num_gpus"),
           st != PL_OK ? d.msg : p.memory.why);
    CHECK(p.step.simulated);
    return;
  }
  double measured = sc21 ? eq3_flops(c, r) / (real(c, r, "Achieved teraFLOP/s per GPU") * 1e12 *
                                              (double)num(c, r, "num_gpus"))
                         : real(c, r, "Iteration Time (seconds)");
  double err = 100.0 * (p.step.step_time_s - measured) / measured;
  printf("  %-12s %5lld GPUs tp%-2lld pp%-2lld vp%lld dp%-3lld %-9s measured %8.3f s  "
         "predicted %8.3f s  error %+6.1f%%  (compute %.2f, exposed comm %.2f, bubble %.2f)\n",
         col(c, r, "model"), (long long)p.run.layout.gpus, (long long)p.run.layout.tp,
         (long long)p.run.layout.pp, (long long)p.run.layout.vp, (long long)p.run.layout.dp,
         pl_recompute_name(p.run.layout.recompute), measured, p.step.step_time_s, err,
         p.step.compute_s, p.step.exposed_comm_s, p.step.bubble_s);
  t->sum_ape += fabs(err);
  t->max_ape = fabs(err) > t->max_ape ? fabs(err) : t->max_ape;
  t->n++;
}

static void run_file(const char *name, const char *section, bool sc21, struct tally *t) {
  char path[512];
  snprintf(path, sizeof path, "%s/validation/%s", PL_TEST_DATA, name);
  static struct csv c;
  CHECK(csv_load(&c, path));
  printf("%s (%s):\n", name, section);
  for (int r = 1; r < c.n_rows; r++)
    if (strcmp(col(&c, r, "table_or_section"), section) == 0)
      run_row(&c, r, sc21, t);
  free(c.text);
}

int main(void) {
  struct tally t = {0, 0, 0};
  run_file("korthikanti2022_activation_recompute.csv", "Table 5 end-to-end", false, &t);
  run_file("megatron_sc21_narayanan.csv", "Table 1 weak scaling", true, &t);
  /* 8 rows of Table 5, 10 rows of Table 1 */
  CHECK_EQ_INT(t.n, 18);
  double mean = t.n > 0 ? t.sum_ape / t.n : 0;
  bool met = mean <= 10.0 && t.max_ape <= 20.0;
  printf("step time over %d rows: mean |error| %.1f%%, worst %.1f%% (targets 10%%, 20%%: %s)\n",
         t.n, mean, t.max_ape, met ? "met" : "NOT MET, see docs/step-model.md");
  /* The targets are met since the gradient-accumulation pass
   * (docs/step-model.md 2.3c: 7.1% mean, 13.1% worst); they are now the
   * guard, so a change that breaks them fails here. */
  CHECK(mean <= 10.0);
  CHECK(t.max_ape <= 20.0);
  return check_finish();
}
