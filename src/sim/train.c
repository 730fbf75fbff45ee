/* train.c: time and cost to train a token budget from one predicted step
 * (docs/model.md "Time and cost to train").
 *
 * A run of T tokens takes ceil(T / (gbs * seq)) optimizer steps, each of the
 * predicted step time; GPU-hours count every GPU of the world for the whole
 * wall clock (what a cloud bills), energy is the step's cluster energy (GPUs
 * and the rest of their nodes, sim/account.c power()) per step. Ignored:
 * restarts after failures, checkpointing, evaluation, data loading stalls and
 * a learning-rate warm-up's different batch sizes, so the figures are a lower
 * bound of what a real run bills. */
#include <plateau/predict.h>

#include <math.h>
#include <string.h>

#define SECONDS_PER_DAY 86400.0   /* 24 h */
#define SECONDS_PER_HOUR 3600.0
#define J_PER_KWH 3.6e6           /* 1 kW * 3600 s */

static void per_mtok(const struct pl_prediction *p, struct pl_train *t) {
  const struct pl_train_opts *o = &p->run.train;
  double s_per_mtok = 1e6 / p->step.tokens_per_s;
  if (t->has_gpu_price)
    t->usd_per_mtok = (double)p->run.layout.gpus * o->gpu_hour_usd * s_per_mtok / SECONDS_PER_HOUR;
  if (t->has_energy_price)
    t->energy_usd_per_mtok = p->step.cluster_w * s_per_mtok / J_PER_KWH * o->kwh_usd;
}

void pl_train_compute(const struct pl_prediction *p, struct pl_train *out) {
  memset(out, 0, sizeof *out);
  const struct pl_train_opts *o = &p->run.train;
  out->requested = o->tokens > 0 || o->gpu_hour_usd > 0 || o->kwh_usd > 0;
  if (!out->requested || !p->step.simulated || !(p->step.tokens_per_s > 0))
    return;
  out->has_tokens = o->tokens > 0;
  out->has_gpu_price = o->gpu_hour_usd > 0;
  out->has_energy_price = o->kwh_usd > 0;
  per_mtok(p, out);
  if (!out->has_tokens)
    return;
  out->steps = ceil(o->tokens / p->flops.tokens_per_step);
  out->time_s = out->steps * p->step.step_time_s;
  out->days = out->time_s / SECONDS_PER_DAY;
  out->gpu_hours = (double)p->run.layout.gpus * out->time_s / SECONDS_PER_HOUR;
  out->cost_usd = out->gpu_hours * o->gpu_hour_usd;
  out->energy_j = out->steps * p->step.energy_per_step_j;
  out->energy_kwh = out->energy_j / J_PER_KWH;
  out->energy_cost_usd = out->energy_kwh * o->kwh_usd;
}
