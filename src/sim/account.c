/* account.c: from the finished timeline to the step's figures
 * (docs/step-model.md section 6).
 *
 * For each stage's rank, time in [0, step] is split by what the GPU was
 * doing: compute (its compute stream busy: forward/backward, or the optimizer
 * step), exposed communication (a collective or pipeline transfer of this
 * rank running while compute is idle), and the rest, waiting: the pipeline
 * bubble when pp > 1, "other" otherwise. So compute + exposed_comm + bubble +
 * optimizer + other = step time exactly. Communication running under compute
 * is overlapped_comm. The breakdown and collectives reported are those of the
 * stage with the most compute (the one that sets the pace); power averages
 * all stages. A collective's exposed time is the part of it not under
 * compute; two exposed collectives at once both count theirs.
 *
 * Cost: O(tasks). Each stream's tasks finish in issue order, so a stage's
 * compute intervals come sorted and its communication intervals are a merge
 * of a few sorted lists (its comm streams, and the transfers it receives). */
#include <plateau/alloc.h>
#include <plateau/coll.h>

#include <math.h>
#include <string.h>

#include "sim/sim_int.h"

/* Lists per stage: its streams (0 = compute), then transfers received from
 * the previous stage (pp-fwd) and from the next (pp-bwd). */
#define LISTS (PL_STREAM_N + 2)

struct stage_time {
  double compute_s, optimizer_s, exposed_s, overlapped_s;
};

struct index {
  int32_t *ids;
  int32_t *off; /* [stages * LISTS + 1] */
};

static int list_of(const struct sim_meta *m, int64_t stage) {
  if (m->stage == stage)
    return m->stream;
  return m->stream == PL_STREAM_PP_FWD ? PL_STREAM_N : PL_STREAM_N + 1;
}

/* Counting sort of task ids into (stage, list); each list in id order, which
 * is issue order, which is time order within a stream. */
static bool build_index(const struct sim_step *st, struct index *ix) {
  int32_t n = st->eng.n_tasks;
  size_t keys = (size_t)st->stages * LISTS;
  ix->off = pl_calloc(keys + 2, sizeof *ix->off);
  ix->ids = pl_malloc((2 * (size_t)n + 1) * sizeof *ix->ids);
  if (ix->off == NULL || ix->ids == NULL)
    return false;
  for (int32_t i = 0; i < n; i++) {
    const struct sim_meta *m = &st->meta[i];
    ix->off[m->stage * LISTS + list_of(m, m->stage) + 2]++;
    if (m->peer >= 0)
      ix->off[m->peer * LISTS + list_of(m, m->peer) + 2]++;
  }
  for (size_t k = 0; k < keys; k++)
    ix->off[k + 2] += ix->off[k + 1];
  for (int32_t i = 0; i < n; i++) {
    const struct sim_meta *m = &st->meta[i];
    ix->ids[ix->off[m->stage * LISTS + list_of(m, m->stage) + 1]++] = i;
    if (m->peer >= 0)
      ix->ids[ix->off[m->peer * LISTS + list_of(m, m->peer) + 1]++] = i;
  }
  return true;
}

/* A cursor over a stage's sorted compute intervals. */
struct comp_cursor {
  const struct sim_task *tasks;
  const int32_t *ids;
  int32_t n, at;
};

/* Length of [a, b) under compute; a must not decrease between calls. */
static double covered(struct comp_cursor *c, double a, double b) {
  while (c->at < c->n && c->tasks[c->ids[c->at]].end_s <= a)
    c->at++;
  double t = 0;
  for (int32_t i = c->at; i < c->n && c->tasks[c->ids[i]].start_s < b; i++) {
    const struct sim_task *k = &c->tasks[c->ids[i]];
    double x = k->start_s > a ? k->start_s : a, y = k->end_s < b ? k->end_s : b;
    t += y > x ? y - x : 0;
  }
  return t;
}

/* The next comm interval in start order across the stage's non-empty lists
 * (a list leaves the set when it runs out). */
struct merge {
  const struct sim_task *tasks;
  const int32_t *ids;
  int32_t at[LISTS], end[LISTS];
  int live[LISTS];
  int n_live;
};

static void merge_init(struct merge *mg, const int32_t *base) {
  mg->n_live = 0;
  for (int k = 1; k < LISTS; k++) {
    mg->at[k] = base[k];
    mg->end[k] = base[k + 1];
    if (mg->at[k] < mg->end[k])
      mg->live[mg->n_live++] = k;
  }
}

static int32_t merge_next(struct merge *mg) {
  int best = -1;
  double best_s = 0;
  for (int i = 0; i < mg->n_live; i++) {
    double t = mg->tasks[mg->ids[mg->at[mg->live[i]]]].start_s;
    if (best < 0 || t < best_s) {
      best = i;
      best_s = t;
    }
  }
  if (best < 0)
    return SIM_NONE;
  int k = mg->live[best];
  int32_t id = mg->ids[mg->at[k]++];
  if (mg->at[k] == mg->end[k])
    mg->live[best] = mg->live[--mg->n_live];
  return id;
}

/* Summary slot of each coll entry, by (op, group). */
static void summary_slots(const struct sim_step *st, struct pl_step *out, int *slot) {
  for (int i = 0; i < st->n_colls; i++) {
    const struct sim_coll *c = &st->colls[i];
    const char *op = pl_coll_op_name(c->op);
    int j = 0;
    while (j < out->n_collectives && (strcmp(out->collectives[j].op, op) != 0 ||
                                      strcmp(out->collectives[j].group, c->group) != 0))
      j++;
    if (j == out->n_collectives && j < PL_MAX_COLL_SUMMARIES) {
      struct pl_coll_summary *s = &out->collectives[out->n_collectives++];
      memset(s, 0, sizeof *s);
      strncpy(s->op, op, sizeof s->op - 1);
      strncpy(s->group, c->group, sizeof s->group - 1);
    }
    slot[i] = j < PL_MAX_COLL_SUMMARIES ? j : -1;
  }
}

static void add_one(const struct sim_step *st, const int *slot, int32_t coll, int32_t calls,
                    double len, double exposed, struct pl_step *out) {
  if (coll < 0 || slot[coll] < 0)
    return;
  struct pl_coll_summary *s = &out->collectives[slot[coll]];
  double bytes = s->bytes * (double)s->count + st->colls[coll].bytes * calls;
  s->count += calls;
  s->bytes = s->count > 0 ? bytes / (double)s->count : 0;
  s->time_s += len;
  s->exposed_s += exposed;
}

/* A task's time and exposure, split between its two collectives (if it has
 * two) in proportion to their time alone. */
static void add_summary(const struct sim_step *st, const int *slot, int32_t id, double len,
                        double exposed, struct pl_step *out) {
  const struct sim_meta *m = &st->meta[id];
  double w1 = m->coll >= 0 ? m->calls * st->colls[m->coll].time_s : 0;
  double w2 = m->coll2 >= 0 ? m->calls2 * st->colls[m->coll2].time_s : 0;
  double f = w1 + w2 > 0 ? w1 / (w1 + w2) : 1;
  add_one(st, slot, m->coll, m->calls, len * f, exposed * f, out);
  if (m->coll2 >= 0)
    add_one(st, slot, m->coll2, m->calls2, len * (1 - f), exposed * (1 - f), out);
}

/* A stage's compute and optimizer time: its compute stream's busy time. */
static void stage_busy(const struct sim_step *st, const struct index *ix, int64_t s,
                       struct stage_time *t) {
  const struct sim_task *tasks = st->eng.tasks;
  const int32_t *base = &ix->off[s * LISTS];
  const int32_t *ids = &ix->ids[base[0]];
  memset(t, 0, sizeof *t);
  for (int32_t i = 0; i < base[1] - base[0]; i++) {
    const struct sim_task *k = &tasks[ids[i]];
    *(st->meta[ids[i]].kind == PL_TASK_OPTIMIZER ? &t->optimizer_s : &t->compute_s) +=
        k->end_s - k->start_s;
  }
}

/* Split one stage's time; with out != NULL also fill its collectives. */
static void stage_account(const struct sim_step *st, const struct index *ix, int64_t s,
                          const int *slot, struct stage_time *t, struct pl_step *out) {
  const struct sim_task *tasks = st->eng.tasks;
  const int32_t *base = &ix->off[s * LISTS];
  struct comp_cursor cc = {tasks, &ix->ids[base[0]], base[1] - base[0], 0};
  stage_busy(st, ix, s, t);
  struct merge mg = {.tasks = tasks, .ids = ix->ids};
  merge_init(&mg, base);
  struct comp_cursor cu = cc, ci = cc; /* union sweep, per-task sweep */
  double ua = 0, ub = -1;
  for (int32_t id = merge_next(&mg);; id = merge_next(&mg)) {
    double a = id != SIM_NONE ? tasks[id].start_s : 0, b = id != SIM_NONE ? tasks[id].end_s : 0;
    if (id != SIM_NONE && a <= ub) {
      ub = b > ub ? b : ub;
    } else {
      double under = ub > ua ? covered(&cu, ua, ub) : 0;
      t->overlapped_s += under;
      t->exposed_s += ub > ua ? (ub - ua) - under : 0;
      ua = a;
      ub = b;
    }
    if (id == SIM_NONE)
      break;
    if (out != NULL && st->meta[id].stage == s)
      add_summary(st, slot, id, b - a, (b - a) - covered(&ci, a, b), out);
  }
}

static void drop_unused(struct pl_step *out) {
  int n = 0;
  for (int i = 0; i < out->n_collectives; i++)
    if (out->collectives[i].count > 0)
      out->collectives[n++] = out->collectives[i];
  out->n_collectives = n;
}

static void rates(const struct sim_step *st, const struct pl_flops *fl, struct pl_step *out) {
  const struct pl_layout *l = &st->run->layout;
  double T = out->step_time_s, gpus = (double)l->gpus;
  double peak = pl_gpu_peak_flops_per_s(&st->run->cluster.gpu, l->dtype);
  out->tokens_per_s = fl->tokens_per_step / T;
  out->tokens_per_s_per_gpu = out->tokens_per_s / gpus;
  out->mfu = peak > 0 ? fl->model_per_step / (T * gpus * peak) : 0;
  out->hfu = peak > 0 ? fl->hardware_per_step / (T * gpus * peak) : 0;
  out->tflops_per_gpu = fl->model_per_step / T / gpus / 1e12;
}

static void set_breakdown(const struct sim_step *st, const struct stage_time *t,
                          struct pl_step *out) {
  double wait = out->step_time_s - t->compute_s - t->optimizer_s - t->exposed_s;
  /* a residue of rounding in the sums (~1e-17 s) is no wait */
  wait = wait > 1e-12 * out->step_time_s ? wait : 0;
  out->compute_s = t->compute_s;
  out->optimizer_s = t->optimizer_s;
  out->exposed_comm_s = t->exposed_s;
  out->overlapped_comm_s = t->overlapped_s;
  out->bubble_s = st->stages > 1 ? wait : 0;
  out->other_s = st->stages > 1 ? 0 : wait;
}

static void power(const struct sim_step *st, const struct stage_time *all, struct pl_step *out) {
  const struct pl_cluster *c = &st->run->cluster;
  double T = out->step_time_s, w = 0;
  for (int64_t s = 0; s < st->stages; s++) {
    const struct stage_time *t = &all[s];
    double busy = t->compute_s + t->optimizer_s;
    double wait = T - busy - t->exposed_s;
    w += sim_gpu_power_w(&c->gpu, busy / T, t->exposed_s / T, (wait > 0 ? wait : 0) / T);
  }
  out->gpu_w = w / (double)st->stages;
  out->cluster_w =
      out->gpu_w * (double)st->run->layout.gpus + c->node_other_w * (double)st->run->layout.nodes;
  out->energy_per_step_j = out->cluster_w * T;
}

/* Online path (compress.c): the stage times and the picked stage's
 * collectives from the integrals accumulated while the engine ran. */
static void from_integrals(const struct sim_step *st, struct stage_time *all, int64_t *pick,
                           struct pl_step *out, int *slot) {
  const struct sim_acc *acc = st->eng.acc;
  for (int64_t s = 0; s < st->stages; s++) {
    all[s] = (struct stage_time){acc[s].compute_s, acc[s].optimizer_s, acc[s].exposed_s,
                                 acc[s].overlapped_s};
    if (all[s].compute_s + all[s].optimizer_s >= all[*pick].compute_s + all[*pick].optimizer_s)
      *pick = s;
  }
  summary_slots(st, out, slot);
  double bytes[PL_MAX_COLL_SUMMARIES] = {0};
  const struct sim_acc *a = &acc[*pick];
  for (int i = 0; i < st->n_colls; i++) {
    if (slot[i] < 0 || !(a->calls[i] > 0))
      continue;
    struct pl_coll_summary *c = &out->collectives[slot[i]];
    c->count += (int64_t)llround(a->calls[i]);
    bytes[slot[i]] += st->colls[i].bytes * a->calls[i];
    c->time_s += a->time_s[i];
    c->exposed_s += a->exp_s[i];
  }
  for (int j = 0; j < out->n_collectives; j++)
    out->collectives[j].bytes =
        out->collectives[j].count > 0 ? bytes[j] / (double)out->collectives[j].count : 0;
}

enum pl_status sim_account(const struct sim_step *st, const struct pl_flops *fl,
                           struct pl_step *out) {
  memset(out, 0, sizeof *out);
  struct index ix = {NULL, NULL};
  struct stage_time *all = pl_calloc((size_t)st->stages, sizeof *all);
  int slot[SIM_MAX_COLLS];
  enum pl_status ret = PL_ERR_NOMEM;
  int64_t pick = 0;
  out->step_time_s = st->step_s;
  if (all != NULL && st->eng.acc != NULL) {
    from_integrals(st, all, &pick, out, slot);
    goto finish;
  }
  if (all == NULL || !build_index(st, &ix))
    goto out_free;
  for (int64_t s = 0; s < st->stages; s++) {
    stage_busy(st, &ix, s, &all[s]);
    if (all[s].compute_s + all[s].optimizer_s >= all[pick].compute_s + all[pick].optimizer_s)
      pick = s;
  }
  summary_slots(st, out, slot);
  /* one sweep per stage; the reference path (tests) sweeps the picked stage
   * a second time, as the first implementation did: same sums, same order */
  for (int64_t s = 0; s < st->stages; s++)
    stage_account(st, &ix, s, s == pick && !st->reference ? slot : NULL, &all[s],
                  s == pick && !st->reference ? out : NULL);
  if (st->reference)
    stage_account(st, &ix, pick, slot, &all[pick], out);
finish:
  drop_unused(out); /* kinds only other stages issue */
  set_breakdown(st, &all[pick], out);
  rates(st, fl, out);
  power(st, all, out);
  out->tokens_per_j = out->energy_per_step_j > 0 ? fl->tokens_per_step / out->energy_per_step_j : 0;
  out->simulated = true;
  ret = PL_OK;
out_free:
  pl_free(ix.ids);
  pl_free(ix.off);
  pl_free(all);
  return ret;
}
