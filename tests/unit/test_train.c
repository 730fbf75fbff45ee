/* test_train.c: time and cost to train (src/sim/train.c) on a made-up
 * prediction whose numbers are easy to follow by hand, and the token-count
 * parser (pl_count_parse) behind `--tokens`. */
#include <plateau/plateau.h>

#include <string.h>

#include "check.h"

/* 64 GPUs, gbs 512 x seq 4096 = 2,097,152 tokens per step, 2 s per step
 * (1,048,576 tokens/s), the cluster drawing 50 kW. */
static void made_up(struct pl_prediction *p) {
  memset(p, 0, sizeof *p);
  p->run.layout.gpus = 64;
  p->flops.tokens_per_step = 512.0 * 4096;
  p->step.simulated = true;
  p->step.step_time_s = 2.0;
  p->step.tokens_per_s = 512.0 * 4096 / 2.0;
  p->step.cluster_w = 50e3;
  p->step.energy_per_step_j = 50e3 * 2.0;
}

static void test_budget(void) {
  struct pl_prediction p;
  struct pl_train t;
  made_up(&p);
  p.run.train.tokens = 1e12;
  p.run.train.gpu_hour_usd = 2.0;
  p.run.train.kwh_usd = 0.10;
  pl_train_compute(&p, &t);
  CHECK(t.requested && t.has_tokens && t.has_gpu_price && t.has_energy_price);
  /* 1e12 / 2,097,152 = 476,837.158... -> 476,838 whole steps */
  CHECK_NEAR_REL(t.steps, 476838, 0);
  /* 476,838 steps x 2 s = 953,676 s = 11.0379... days (/ 86,400) */
  CHECK_NEAR_REL(t.time_s, 953676, 1e-15);
  CHECK_NEAR_REL(t.days, 953676.0 / 86400, 1e-15);
  /* 64 GPUs x 953,676 s / 3600 = 16,954.24 GPU-hours; x $2 = $33,908.48 */
  CHECK_NEAR_REL(t.gpu_hours, 16954.24, 1e-12);
  CHECK_NEAR_REL(t.cost_usd, 33908.48, 1e-12);
  /* 476,838 x 100 kJ = 4.76838e10 J = 13,245.5 kWh (/ 3.6e6); x $0.10 = $1,324.55 */
  CHECK_NEAR_REL(t.energy_j, 4.76838e10, 1e-15);
  CHECK_NEAR_REL(t.energy_kwh, 4.76838e10 / 3.6e6, 1e-15);
  CHECK_NEAR_REL(t.energy_cost_usd, 4.76838e10 / 3.6e6 * 0.10, 1e-12);
  /* a million tokens takes 1e6 / 1,048,576 s = 0.95367 s: 64 x 2 $/h x that / 3600 =
   * $0.033908 per million tokens; 50 kW x that = 47,684 J = 0.013246 kWh -> $0.0013246 */
  CHECK_NEAR_REL(t.usd_per_mtok, 64 * 2.0 * (1e6 / 1048576.0) / 3600, 1e-12);
  CHECK_NEAR_REL(t.energy_usd_per_mtok, 50e3 * (1e6 / 1048576.0) / 3.6e6 * 0.10, 1e-12);
}

static void test_partial(void) {
  struct pl_prediction p;
  struct pl_train t;
  made_up(&p);
  pl_train_compute(&p, &t);
  CHECK(!t.requested); /* nothing asked: nothing computed */
  p.run.train.gpu_hour_usd = 3.0;
  pl_train_compute(&p, &t);
  CHECK(t.requested && !t.has_tokens && t.has_gpu_price && !t.has_energy_price);
  CHECK_NEAR_REL(t.steps, 0, 0);
  CHECK_NEAR_REL(t.usd_per_mtok, 64 * 3.0 * (1e6 / 1048576.0) / 3600, 1e-12);
  p.run.train.tokens = 1e9;
  p.step.simulated = false; /* a layout that does not fit has no time to train */
  pl_train_compute(&p, &t);
  CHECK(t.requested && !t.has_tokens && !t.has_gpu_price);
}

static void count_ok(const char *text, double want) {
  double v = 0;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_count_parse(text, &v, &d), PL_OK, dp);
  CHECK_NEAR_REL(v, want, 1e-15);
}

static void count_bad(const char *text, enum pl_status want) {
  double v = 0;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_count_parse(text, &v, &d), want, dp);
}

static void test_count_parse(void) {
  count_ok("15T", 15e12);
  count_ok("2T", 2e12);
  count_ok("300B", 300e9);
  count_ok("300G", 300e9);
  count_ok("2.5M", 2.5e6);
  count_ok("4k", 4e3);
  count_ok("1P", 1e15);
  count_ok("1e12", 1e12);
  count_ok("4096", 4096);
  count_bad("", PL_ERR_PARSE);
  count_bad("T", PL_ERR_PARSE);
  count_bad("15X", PL_ERR_PARSE);
  count_bad("15TT", PL_ERR_PARSE);
  count_bad("15 T", PL_ERR_PARSE);
  count_bad("inf", PL_ERR_PARSE);
  count_bad("1e400", PL_ERR_PARSE);
  count_bad("nan", PL_ERR_PARSE);
  count_bad("0", PL_ERR_RANGE);
  count_bad("-2T", PL_ERR_RANGE);
  /* below one: 0.5 tokens was "training 0 tokens" in 1 step; 0.001K = 1 is a count */
  count_bad("0.5", PL_ERR_RANGE);
  count_bad("1e-5", PL_ERR_RANGE);
  count_bad("0.0001K", PL_ERR_RANGE);
  count_ok("0.001K", 1);
  count_ok("1", 1);
  /* strtod's hexadecimal: 0x10 was 16 tokens */
  count_bad("0x10", PL_ERR_PARSE);
  count_bad("0x1p4", PL_ERR_PARSE);
}

/* CSV cells carry 15 significant digits, JSON numbers read back exactly. */
static void test_csv_digits(void) {
  char buf[40];
  volatile double a = 0.1, b = 0.2; /* computed at run time, not folded */
  pl_fmt_csv(buf, sizeof buf, a + b);
  CHECK(strcmp(buf, "0.3") == 0);
  pl_fmt_double(buf, sizeof buf, a + b);
  CHECK(strcmp(buf, "0.30000000000000004") == 0);
  volatile double c = 0.0021000000000000003, half = 0.5;
  pl_fmt_csv(buf, sizeof buf, c * half); /* 0.0010500000000000002 exactly */
  CHECK(strcmp(buf, "0.00105") == 0);
  pl_fmt_csv(buf, sizeof buf, 6738415616.0);
  CHECK(strcmp(buf, "6738415616") == 0);
  pl_fmt_csv(buf, sizeof buf, 1.0 / 3);
  CHECK(strcmp(buf, "0.333333333333333") == 0);
}

int main(void) {
  test_csv_digits();
  test_budget();
  test_partial();
  test_count_parse();
  return check_finish();
}
