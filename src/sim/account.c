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
 * of a few sorted lists (its comm streams, and the transfers it receives),
 * each walked along the engine's stream links (sim_task.next, from
 * sim_stream.first): no index is built. */
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

/* A stage's lists, each by its first task (the rest follow through
 * sim_task.next, in issue order): the stage's streams, then the transfers
 * it receives, which are the sends of the previous stage's pp-fwd stream
 * and of the next stage's pp-bwd stream (every send goes to the stage
 * after or before its sender, modulo pp: lower_p2p.c sim_p2p_emit_sends). */
static void stage_lists(const struct sim_step *st, int64_t s, int32_t *first) {
  const struct sim_engine *e = &st->eng;
  const struct sim_rank *r = &e->ranks[s];
  for (int k = 0; k < PL_STREAM_N; k++)
    first[k] = k < r->n_streams ? e->streams[r->streams[k]].first : SIM_NONE;
  first[PL_STREAM_N] = first[PL_STREAM_N + 1] = SIM_NONE;
  if (st->stages < 2)
    return;
  const struct sim_rank *prev = &e->ranks[(s + st->stages - 1) % st->stages];
  const struct sim_rank *next = &e->ranks[(s + 1) % st->stages];
  if (PL_STREAM_PP_FWD < prev->n_streams)
    first[PL_STREAM_N] = e->streams[prev->streams[PL_STREAM_PP_FWD]].first;
  if (PL_STREAM_PP_BWD < next->n_streams)
    first[PL_STREAM_N + 1] = e->streams[next->streams[PL_STREAM_PP_BWD]].first;
}

/* A cursor over a stage's sorted compute intervals. */
struct comp_cursor {
  const struct sim_task *tasks;
  int32_t at; /* first interval that may still count, SIM_NONE past the last */
};

/* Length of [a, b) under compute; a must not decrease between calls. */
static double covered(struct comp_cursor *c, double a, double b) {
  const struct sim_task *tasks = c->tasks;
  while (c->at != SIM_NONE && tasks[c->at].end_s <= a)
    c->at = tasks[c->at].next;
  double t = 0;
  for (int32_t i = c->at; i != SIM_NONE && tasks[i].start_s < b; i = tasks[i].next) {
    const struct sim_task *k = &tasks[i];
    double x = k->start_s > a ? k->start_s : a, y = k->end_s < b ? k->end_s : b;
    t += y > x ? y - x : 0;
  }
  return t;
}

/* The next comm interval in start order across the stage's non-empty lists
 * (a list leaves the set when it runs out). */
struct merge {
  const struct sim_task *tasks;
  int32_t at[LISTS]; /* [i] live list i's next interval */
  double head_s[LISTS]; /* [i] its start */
  int n_live;
  int rest;  /* the first list from index 2 on with the smallest head, -1 when none */
  bool stale; /* rest must be found again */
};

static void merge_init(struct merge *mg, const int32_t *first) {
  mg->n_live = 0;
  mg->stale = true;
  for (int k = 1; k < LISTS; k++) {
    if (first[k] != SIM_NONE) {
      mg->head_s[mg->n_live] = mg->tasks[first[k]].start_s;
      mg->at[mg->n_live++] = first[k];
    }
  }
}

/* Ties go to the first live list in at[] order (a list that runs out
 * takes the place of the last one). */
static int32_t merge_next(struct merge *mg) {
  if (mg->n_live == 0)
    return SIM_NONE;
  /* The first list with the smallest head, as a scan in index order finds
   * it: lists 0 and 1 (the longest in practice: tp and the FSDP stream),
   * then the first smallest of the rest, found again only when one of
   * them moved. */
  if (mg->stale) {
    mg->rest = -1;
    for (int i = 2; i < mg->n_live; i++)
      if (mg->rest < 0 || mg->head_s[i] < mg->head_s[mg->rest])
        mg->rest = i;
    mg->stale = false;
  }
  int best = 0;
  if (mg->n_live > 1 && mg->head_s[1] < mg->head_s[0])
    best = 1;
  if (mg->rest >= 0 && mg->head_s[mg->rest] < mg->head_s[best])
    best = mg->rest;
  int32_t id = mg->at[best], next = mg->tasks[id].next;
  mg->stale = mg->stale || best >= 2;
  if (next == SIM_NONE) {
    mg->stale = true; /* the last list takes index best */
    mg->n_live--;
    mg->at[best] = mg->at[mg->n_live];
    mg->head_s[best] = mg->head_s[mg->n_live];
  } else {
    mg->at[best] = next;
    mg->head_s[best] = mg->tasks[next].start_s;
  }
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
static void stage_busy(const struct sim_step *st, int64_t s, struct stage_time *t) {
  const struct sim_task *tasks = st->eng.tasks;
  int32_t first[LISTS];
  stage_lists(st, s, first);
  memset(t, 0, sizeof *t);
  for (int32_t i = first[0]; i != SIM_NONE; i = tasks[i].next) {
    const struct sim_task *k = &tasks[i];
    *(st->meta[i].kind == PL_TASK_OPTIMIZER ? &t->optimizer_s : &t->compute_s) +=
        k->end_s - k->start_s;
  }
}

/* Split one stage's time (its busy time already in t); with out != NULL
 * also fill its collectives. */
static void stage_account(const struct sim_step *st, int64_t s, const int *slot,
                          struct stage_time *t, struct pl_step *out) {
  const struct sim_task *tasks = st->eng.tasks;
  int32_t first[LISTS];
  stage_lists(st, s, first);
  t->exposed_s = t->overlapped_s = 0; /* compute_s, optimizer_s: stage_busy */
  struct merge mg = {.tasks = tasks};
  merge_init(&mg, first);
  struct comp_cursor cu = {tasks, first[0]}, ci = cu; /* union sweep, per-task sweep */
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
  struct stage_time *all = sim_calloc((size_t)st->stages, sizeof *all);
  int slot[SIM_MAX_COLLS];
  enum pl_status ret = PL_ERR_NOMEM;
  int64_t pick = 0;
  out->step_time_s = st->step_s;
  if (all != NULL && st->eng.acc != NULL) {
    from_integrals(st, all, &pick, out, slot);
    goto finish;
  }
  if (all == NULL)
    goto out_free;
  for (int64_t s = 0; s < st->stages; s++) {
    stage_busy(st, s, &all[s]);
    if (all[s].compute_s + all[s].optimizer_s >= all[pick].compute_s + all[pick].optimizer_s)
      pick = s;
  }
  summary_slots(st, out, slot);
  /* one sweep per stage; the reference path (tests) sweeps the picked stage
   * a second time, as the first implementation did: same sums, same order */
  for (int64_t s = 0; s < st->stages; s++)
    stage_account(st, s, s == pick && !st->reference ? slot : NULL, &all[s],
                  s == pick && !st->reference ? out : NULL);
  if (st->reference)
    stage_account(st, pick, slot, &all[pick], out);
finish:
  drop_unused(out); /* kinds only other stages issue */
  set_breakdown(st, &all[pick], out);
  rates(st, fl, out);
  power(st, all, out);
  out->tokens_per_j = out->energy_per_step_j > 0 ? fl->tokens_per_step / out->energy_per_step_j : 0;
  out->simulated = true;
  ret = PL_OK;
out_free:
  sim_free(all);
  return ret;
}
