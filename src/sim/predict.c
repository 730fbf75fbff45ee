/* predict.c: pl_predict, one training configuration in, its cost out
 * (docs/step-model.md section 1): resolve the layout, count parameters,
 * FLOPs and memory (src/model), and when the busiest stage fits in memory,
 * simulate one step (segments.c -> lower.c -> engine.c -> account.c).
 * Also the pl_timeline API that keeps the simulated tasks for the trace
 * writer (src/report/timeline.c). */
#include <plateau/alloc.h>
#include <plateau/layout.h>
#include <plateau/memory.h>
#include <plateau/predict.h>
#include <plateau/sim.h>

#include <math.h>
#include <string.h>

#include "sim/sim_int.h"

struct pl_timeline {
  struct pl_run run; /* resolved; st.run points here */
  struct sim_step st;
};

static enum pl_status chunk_tables(struct sim_step *st) {
  const struct pl_layout *l = &st->run->layout;
  int64_t V = l->pp * l->vp, layers = st->run->model.layers;
  st->chunk_first = sim_calloc((size_t)V, sizeof *st->chunk_first);
  st->chunk_layers = sim_calloc((size_t)V, sizeof *st->chunk_layers);
  if (st->chunk_first == NULL || st->chunk_layers == NULL)
    return PL_ERR_NOMEM;
  /* Megatron splits evenly; with a remainder the first stages take one more
   * (the busiest holds ceil(layers / V), as pl_memory_compute assumes); or
   * unevenly as given; the embedding and the loss may count as blocks
   * (pl_layout_chunk_layers). */
  for (int64_t v = 0; v < V; v++) {
    int64_t first = 0;
    st->chunk_layers[v] = (int32_t)pl_layout_chunk_layers(l, layers, v, &first);
    st->chunk_first[v] = (int32_t)first;
  }
  return PL_OK;
}

/* The step's end. A whole step's tasks end in event order, so the last
 * event's time is the latest end (the same double); a compressed step's
 * shifted tasks are scanned. */
static double latest_end(const struct sim_engine *e) {
  if (e->acc == NULL && e->finished == e->n_tasks)
    return e->now_s;
  double t = 0;
  for (int32_t i = 0; i < e->n_tasks; i++)
    t = e->tasks[i].end_s > t ? e->tasks[i].end_s : t;
  return t;
}

/* Keep counts of the compressed path (compress.c): layer units simulated
 * per FSDP pass and pipeline pairs past the warm-up, enough for the
 * benchmarked layouts to reach their steady state; when one does not, the
 * whole step is simulated instead (per-stage periods first try again with
 * pp - 1 more pairs: docs/step-model.md section 11). */
#define KEEP_LAYERS 6
#define KEEP_PAIRS 2

static enum pl_status build(struct sim_step *st, const struct pl_run *run, bool reference,
                            bool compress, int32_t keep_layers, int32_t keep_pairs,
                            struct pl_diag *diag) {
  memset(st, 0, sizeof *st);
  st->run = run;
  st->reference = reference;
  st->compress = compress;
  st->keep_layers = keep_layers > 1 ? keep_layers : 2;
  st->keep_pairs = keep_pairs > 1 ? keep_pairs : 1;
  st->stages = run->layout.pp;
  st->chunks = run->layout.vp;
  enum pl_status s = chunk_tables(st);
  if (s != PL_OK)
    return pl_diag_set(diag, s, "step simulation: out of memory");
  s = sim_segments(st, diag);
  if (s == PL_OK)
    s = sim_lower(st, diag);
  /* online accounting only when periods are left out: on a whole step the
   * sweep of account.c costs no more */
  bool online = s == PL_OK && st->compress && !sim_cmp_done(&st->eng);
  st->eng.cmp.on = online;
  if (online) {
    st->eng.meta = st->meta;
    st->eng.tags = st->tags;
    st->eng.colls = st->colls;
    st->eng.cmp.n_colls = st->n_colls;
    st->eng.hooks = &sim_cmp_hooks;
    st->eng.acc = sim_calloc((size_t)st->stages, sizeof *st->eng.acc);
    if (st->eng.acc == NULL)
      s = pl_diag_set(diag, PL_ERR_NOMEM, "step simulation: out of memory");
  }
  if (s == PL_OK)
    s = sim_engine_run(&st->eng, diag);
  st->step_s = latest_end(&st->eng);
  if (s == PL_OK && !(st->step_s > 0))
    s = pl_diag_set(diag, PL_ERR_INTERNAL, "step simulation: a step of zero time");
  return s;
}

enum pl_status sim_step_build(struct sim_step *st, const struct pl_run *run, bool reference,
                              struct pl_diag *diag) {
  return build(st, run, reference, false, KEEP_LAYERS, KEEP_PAIRS, diag);
}

enum pl_status sim_step_build_keep(struct sim_step *st, const struct pl_run *run,
                                   int32_t keep_layers, int32_t keep_pairs, struct pl_diag *diag) {
  enum pl_status s = build(st, run, false, true, keep_layers, keep_pairs, diag);
  if (s != PL_OK || sim_cmp_done(&st->eng))
    return s;
  /* per-stage periods: the later stages may settle pp - 1 pairs after
   * stage 0 has; one more try with that many pairs kept */
  if (st->eng.cmp.stage_mode) {
    int32_t more = keep_pairs + (int32_t)(run->layout.pp - 1);
    sim_step_free(st);
    s = build(st, run, false, true, keep_layers, more, diag);
    if (s != PL_OK || sim_cmp_done(&st->eng))
      return s;
  }
  sim_step_free(st); /* no steady state found: the whole step */
  return build(st, run, false, false, keep_layers, keep_pairs, diag);
}

enum pl_status sim_step_build_fast(struct sim_step *st, const struct pl_run *run,
                                   struct pl_diag *diag) {
  return sim_step_build_keep(st, run, KEEP_LAYERS, KEEP_PAIRS, diag);
}

void sim_step_free(struct sim_step *st) {
  sim_cmp_free(&st->eng);
  sim_engine_free(&st->eng);
  sim_free(st->meta);
  sim_free(st->tags);
  sim_free(st->chunk_first);
  sim_free(st->chunk_layers);
  memset(st, 0, sizeof *st);
}

static enum pl_status check_inputs(const struct pl_run *run, struct pl_diag *diag) {
  enum pl_status s = pl_model_check(&run->model, diag);
  if (s != PL_OK)
    return s;
  const struct pl_cluster *c = &run->cluster;
  if (c->gpus_per_node <= 0 || !(c->gpu.peak_bf16_flops_per_s > 0) || !(c->gpu.hbm_bytes > 0))
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "cluster '%s': needs gpus_per_node, a BF16 peak and HBM capacity", c->name);
  return PL_OK;
}

static enum pl_status check_efficiency(const struct pl_gpu *g, struct pl_diag *diag) {
  if (g->eff.present && g->eff.gemm_mamf_flops_per_s > 0 && g->eff.hbm_fraction > 0 &&
      g->eff.attn_fwd_fraction > 0 && g->eff.attn_bwd_fraction > 0 && g->sm_count > 0)
    return PL_OK;
  return pl_diag_set(diag, PL_ERR_MISSING,
                     "gpu '%s': no step-time efficiency data (the GPU file needs an \"efficiency\" "
                     "object with positive gemm, attention and hbm figures, and sm_count; see "
                     "docs/step-model.md)",
                     g->name);
}

/* Time and cost to train beyond a double (a step of 1e299 s from a GPU file's
 * 1e-288 B/s, times the token budget): refused rather than printed as inf. */
static enum pl_status check_train(const struct pl_prediction *p, struct pl_diag *diag) {
  const struct pl_train *t = &p->train;
  const double x[] = {t->steps,    t->time_s,           t->days,         t->gpu_hours,
                      t->cost_usd, t->energy_j,         t->energy_kwh,   t->energy_cost_usd,
                      t->usd_per_mtok, t->energy_usd_per_mtok};
  for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
    if (!isfinite(x[i]))
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "time and cost to train: %.4g tokens at a step of %.4g s give a figure "
                         "beyond a double; check the token budget, the prices and the hardware",
                         p->run.train.tokens, p->step.step_time_s);
  return PL_OK;
}

/* Everything but the step; out->run ends up resolved. */
static enum pl_status count(const struct pl_run *run, struct pl_prediction *out,
                            struct pl_diag *diag) {
  memset(out, 0, sizeof *out);
  out->run = *run;
  pl_framework_apply(&run->framework, &out->run.layout);
  enum pl_status s = check_inputs(run, diag);
  if (s == PL_OK) {
    pl_cluster_place(&out->run.cluster, out->run.layout.gpus);
    s = pl_layout_resolve(&out->run.layout, &out->run.model, &out->run.cluster, diag);
    /* the step waits for the slowest of the world's GPUs (--gpu-variability) */
    pl_gpu_variability_resolve(&out->run.cluster.gpu, out->run.layout.gpus);
  }
  if (s != PL_OK)
    return s;
  const struct pl_model *m = &out->run.model;
  out->params = pl_model_params(m);
  out->active_params = pl_model_active_params(m);
  pl_flops_compute(m, &out->run.layout, &out->flops);
  pl_memory_compute(m, &out->run.layout, &out->run.cluster.gpu, &out->memory);
  return PL_OK;
}

enum pl_status pl_predict(const struct pl_run *run, struct pl_prediction *out,
                          struct pl_diag *diag) {
  enum pl_status s = count(run, out, diag);
  if (s != PL_OK || !out->memory.fits)
    return s;
  s = check_efficiency(&out->run.cluster.gpu, diag);
  if (s != PL_OK)
    return s;
  struct sim_step st;
  s = sim_step_build_fast(&st, &out->run, diag);
  if (s == PL_OK)
    s = sim_account(&st, &out->flops, &out->step);
  if (s == PL_ERR_NOMEM)
    pl_diag_set(diag, s, "step simulation: out of memory");
  sim_step_free(&st);
  if (s == PL_OK)
    pl_train_compute(out, &out->train);
  if (s == PL_OK)
    s = check_train(out, diag);
  return s;
}

/* ------------------------------------------------------------- timeline */

enum pl_status pl_timeline_build(const struct pl_run *run, struct pl_timeline **out,
                                 struct pl_prediction *pred, struct pl_diag *diag) {
  *out = NULL;
  struct pl_timeline *tl = sim_calloc(1, sizeof *tl);
  struct pl_prediction *p = sim_calloc(1, sizeof *p);
  enum pl_status s = tl != NULL && p != NULL ? count(run, p, diag) : PL_ERR_NOMEM;
  if (s == PL_OK && !p->memory.fits)
    s = pl_diag_set(diag, PL_ERR_LAYOUT, "no step to simulate: does not fit: %s", p->memory.why);
  if (s == PL_OK)
    s = check_efficiency(&p->run.cluster.gpu, diag);
  if (s == PL_OK) {
    tl->run = p->run;
    s = sim_step_build(&tl->st, &tl->run, false, diag);
  }
  if (s == PL_OK)
    s = sim_account(&tl->st, &p->flops, &p->step);
  if (s == PL_OK && pred != NULL)
    *pred = *p;
  if (s == PL_ERR_NOMEM)
    pl_diag_set(diag, s, "step simulation: out of memory");
  sim_free(p);
  if (s != PL_OK) {
    pl_timeline_free(tl);
    return s;
  }
  *out = tl;
  return PL_OK;
}

void pl_timeline_free(struct pl_timeline *tl) {
  if (tl == NULL)
    return;
  sim_step_free(&tl->st);
  sim_free(tl);
}

size_t pl_timeline_count(const struct pl_timeline *tl) { return (size_t)tl->st.eng.n_tasks; }
double pl_timeline_step_s(const struct pl_timeline *tl) { return tl->st.step_s; }
int64_t pl_timeline_stages(const struct pl_timeline *tl) { return tl->st.stages; }
const struct pl_run *pl_timeline_run(const struct pl_timeline *tl) { return &tl->run; }

static const char *const stream_names[PL_STREAM_N] = {"compute",   "tp",     "cp",    "dp-gather",
                                                      "dp-reduce", "pp-fwd", "pp-bwd"};

const char *pl_stream_name(enum pl_stream s) {
  return s >= 0 && s < PL_STREAM_N ? stream_names[s] : "?";
}

void pl_timeline_get(const struct pl_timeline *tl, size_t i, struct pl_timeline_task *out) {
  const struct sim_task *t = &tl->st.eng.tasks[i];
  const struct sim_meta *m = &tl->st.meta[i];
  memset(out, 0, sizeof *out);
  out->stage = m->stage;
  out->stream = (enum pl_stream)m->stream;
  out->kind = (enum pl_task_kind)m->kind;
  out->start_s = t->start_s;
  out->end_s = t->end_s;
  out->part = (enum pl_task_part)m->part;
  out->micro_batch = m->mb;
  out->chunk = m->chunk;
  out->layer_first = m->layer_first;
  out->layers = m->layers;
  out->embed = m->embed;
  out->head = m->head;
  out->recompute = m->recompute;
  out->peer_stage = m->peer;
  int32_t ids[2] = {m->coll, m->coll2}, calls[2] = {m->calls, m->calls2};
  for (int k = 0; k < 2 && ids[k] >= 0; k++) {
    const struct sim_coll *c = &tl->st.colls[ids[k]];
    struct pl_timeline_coll *o = &out->colls[out->n_colls++];
    o->op = c->op;
    o->group = c->group;
    o->group_ranks = c->g.ranks;
    o->bytes = c->bytes;
    o->calls = calls[k];
    o->call_s = c->time_s;
    o->algo = c->algo;
    o->proto = c->proto;
  }
}
