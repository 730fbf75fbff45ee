/* lower_int.h (internal to src/sim, beside sim_int.h): the lowering's state,
 * shared by the pass walk (lower.c), the pipeline exchange (lower_p2p.c) and
 * the pass templates (lower_tpl.c),
 * and the primitives they use to issue tasks and edges. The primitives are
 * inline: they sit in the inner loop of every pass. */
#ifndef PL_SIM_LOWER_INT_H
#define PL_SIM_LOWER_INT_H

#include <plateau/model.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/constants.h"
#include "sim/sim_int.h"

#define LOWER_ENDS 3
#define LOWER_JOIN 4

/* Merged tp collectives of a one-segment unit; n < 0 until computed. */
struct tp_cache {
  struct sim_comm list[SIM_SEG_TP];
  int n;
};

/* Merged tp collectives of a multi-segment unit (a whole pass of a chunk). */
#define TP_MULTI 8
struct tp_multi {
  int32_t embed, layers, head, pass;
  struct sim_comm list[SIM_SEG_N * SIM_SEG_TP];
  int n;
};

/* Pass templates (docs/step-model.md section 11): a pass with
 * per-unit FSDP traffic issues the same tasks and edges as an earlier pass
 * of the same shape (chunk, pass, gather or not, and which of the lowering's
 * inputs -- the join list, the last two units' ends -- are set and equal),
 * up to the ids; it is copied from that pass instead of derived again. The
 * inputs are its slots: join[0 .. LOWER_JOIN), unit_end[0], unit_end[1]. */
#define TPL_MAX 32
#define TPL_IN (LOWER_JOIN + 2)
#define TPL_OUT (LOWER_JOIN + 4) /* join, unit_end[0..1], last_comp, pass_first */
#define TPL_NONE INT32_MIN      /* an id coded: >= 0 in the pass, -(slot + 1) an input */
#define TPL_BAD (INT32_MIN + 1) /* an id that is neither */

struct tpl_edge {
  int32_t from, to; /* coded; to is always in the pass */
  int32_t next;     /* from in the pass: its previous edge in the pass, -1 when none (tpl_save) */
};

struct tpl {
  int32_t layers, pass, n_join;
  bool embed, head;
  bool ag;
  int8_t pat[TPL_IN]; /* -1 unset, else the first slot with the same id */
  int32_t stage, layer_first, a, n; /* the source pass: its tasks [a, a + n) */
  int32_t e0, ne;          /* its edges, in tpl_edges */
  int32_t out[TPL_OUT];
  int32_t n_join_out;
};

/* More of a template, kept apart from struct tpl so that a lowering without
 * templates does not clear it: the streams its pass issues on (tpl_replay
 * links the copy's tasks onto them) and where its edge tables are. */
struct tpl_str {
  int32_t l0; /* its tasks' edge list heads, then counts of edges in, in tpl_links */
  int n;      /* streams */
  int32_t str[PL_STREAM_N];                              /* each: its stream in the source pass */
  int32_t str_first[PL_STREAM_N], str_last[PL_STREAM_N]; /* its first, last task (in the pass) */
};

struct lower {
  struct sim_step *st;
  struct tpl tpl[TPL_MAX];
  int n_tpl;
  struct tpl_str *tpl_str;    /* [TPL_MAX], allocated with the first template */
  int32_t *tpl_links;         /* per template: tpl_links_of's tables (tpl_str.l0) */
  int32_t n_tpl_links, cap_tpl_links;
  bool tpl_on;                /* templates usable (not compressing, not the reference path) */
  bool rec, rec_bad;          /* recording a pass's edges; one could not be coded */
  int32_t rec_in[TPL_IN];     /* the recorded pass's inputs */
  int32_t rec_a;              /* its first task */
  struct tpl_edge *tpl_edges; /* edges of every template, in issue order */
  int32_t n_tpl_edges, cap_tpl_edges;
  struct tp_cache tp_cache[SIM_SEG_N][2];
  struct tp_multi tp_multi[TP_MULTI]; /* the first TP_MULTI unit shapes met */
  int n_multi;
  const struct pl_layout *l;
  int64_t pp, vp, m, V;
  struct sim_slot *slots; /* stage s's order at s * per_stage */
  int32_t *n_slots;       /* per stage */
  int32_t per_stage;
  int32_t *first;    /* [V][m][2]: first compute task of a pass */
  int32_t *ends;     /* [V][m][2][LOWER_ENDS]: what a send must wait for */
  int32_t *xfer;     /* [V][m][2]: the send after a pass (SIM_NONE: none) */
  int32_t *slot_pos; /* [V][m][2]: the pass's index in its stage's order (slots) */
  int32_t *streams;  /* [pp][PL_STREAM_N] */
  bool *unsharded;   /* [vp] FSDP: chunk's parameters are gathered */
  int32_t *pgather;  /* [vp][2] overlap_param_gather: a chunk's first-bucket and other
                        all_gather tasks, SIM_NONE once waited for */
  int32_t *last_bwd; /* [vp] slot index of the chunk's last backward (in its schedule) */
  int64_t rounds;     /* pipeline schedules per step (layout.pp_schedules; 1: one) */
  int32_t round_slots; /* slots of one schedule on the stage being emitted */
  enum pl_status err;
  struct pl_diag *diag;
  /* per stage while emitting */
  int32_t stage;
  int32_t join[LOWER_JOIN];
  int n_join;
  int32_t unit_end[2]; /* last compute task of the previous two units */
  int32_t last_comp;
  int32_t pass_first;
  double bucket_fill; /* bytes waiting for a DDP bucket */
  double held_bytes;      /* non-FP8 gradient bytes held for the last bucket group (lower_dp.c
                             fp8_groups) */
  double held_open_bytes; /* of them, the bytes of the non-FP8 bucket still open */
  double held_buckets;    /* the non-FP8 buckets closed so far */
  int32_t bucket_coll, bucket_ar_coll, pp_coll;
  int32_t part_ag_coll; /* layout.p2p_serial or p2p_scatter_gather, tp > 1: a split activation's all_gather */
  double act_bytes;     /* one pipeline send's bytes (one tp part of a stage's output) */
  double ebucket_fill; /* expert-gradient bytes waiting for their bucket (edp) */
  int32_t ebucket_coll; /* a full expert bucket's reduction over edp; -1 when edp = 1 */
  /* compression (compress.c): tags stamped on every task added */
  int32_t pass_id;     /* pass instance being emitted, -1 outside passes */
  int32_t cur_unit;    /* its layer unit when compressed, else -1 */
  uint8_t cur_steady;  /* a steady-state pipeline pair */
  bool ep_paired;      /* layout.ep_comm_overlap: the pass runs merged with a partner (lower_unit.c ep_beside) */
  int32_t anchor_pair; /* first compute of this pass anchors pair n (stage 0), else -1 */
  int32_t n_pass;
  int32_t steady_lo, steady_hi; /* current stage's steady pair slots [lo, hi) */
  int64_t periods, period;      /* pipeline periods left out; pairs per period */
  bool whole_units;             /* comm-bound FSDP: units left out in the first pass only */
  bool stage_periods;           /* comm-bound FSDP with pp > 1: periods per stage */
  int64_t deferred;             /* layout.wgrad_deferral: LM-head wgrads the stage has deferred */
  int32_t bwd_seen;             /* backward passes the stage has emitted */
  int32_t *align_at;            /* [vp] layout.align_grad_reduce: after which backward (by
                                   bwd_seen) chunk c's reduction is launched; -1: at the end,
                                   -2: launched */
};

struct unit {
  struct sim_slot slot;
  int32_t layer_first;
  int32_t layers;
  bool embed;
  bool head;
};

static inline bool fsdp(const struct pl_layout *l) {
  return l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
}

/* Bytes per gradient element a ddp/zero1 reduction moves: GRAD_BYTES (fp32:
 * Megatron-LM with --bf16 sets accumulate_allreduce_grads_in_fp32, DDP on fp32
 * params), or bf16 with layout.grad_reduce_bf16 (Megatron-Core
 * grad_reduce_in_fp32 = False, NeMo optim.grad_sync_dtype bf16). */
static inline double sim_grad_bytes(const struct pl_layout *l) {
  return l->grad_reduce_bf16 ? PARAM_BYTES : GRAD_BYTES;
}

/* Bytes per gradient element the data-parallel reduction moves: as
 * sim_grad_bytes, but 16-bit with layout.grad_comm_cast. DeepSpeed's
 * allreduce_bucket (deepspeed/runtime/engine.py, v0.5.8 to v0.9.5 at least)
 * casts the flattened fp32 bucket to communication_data_type, which with no
 * "communication_data_type" in the config is bf16 whenever bf16 is enabled
 * (engine.py communication_data_type, d14baad94 2021-11-26; 261d63708
 * 2023-03-30 only drops the ZeRO-stage clause), all_reduces that and copies it
 * back. The tied-embedding all_reduce (pipe/engine.py _exec_reduce_tied_grads:
 * dist.all_reduce(weight._hp_grad)) has no cast and keeps sim_grad_bytes. */
static inline double sim_dp_reduce_bytes(const struct pl_layout *l) {
  return l->grad_comm_cast ? PARAM_BYTES : sim_grad_bytes(l);
}

/* The ddp/zero1 gradient reduction: all_reduce for ddp or with
 * layout.zero1_grad_all_reduce, else the distributed optimizer's
 * reduce_scatter. */
static inline enum pl_coll_op sim_grad_reduce_op(const struct pl_layout *l) {
  return l->shard == PL_SHARD_DDP || l->zero1_grad_all_reduce ? PL_COLL_ALL_REDUCE
                                                               : PL_COLL_REDUCE_SCATTER;
}

static inline size_t pass_index(const struct lower *lw, int64_t v, int64_t mb, int pass) {
  return ((size_t)v * (size_t)lw->m + (size_t)mb) * 2 + (size_t)pass;
}

static inline void fail(struct lower *lw, enum pl_status s) {
  if (lw->err == PL_OK)
    lw->err = s;
}

static inline bool meta_room(struct sim_step *st, int32_t n) {
  if (n <= st->cap_meta)
    return true;
  int32_t cap = st->cap_meta ? 2 * st->cap_meta : n > 1024 ? n : 1024;
  while (cap < n)
    cap *= 2;
  struct sim_meta *p = sim_reallocarray(st->meta, (size_t)cap, sizeof *p);
  if (p == NULL)
    return false;
  st->meta = p;
  if (st->compress) {
    struct sim_tag *t = sim_reallocarray(st->tags, (size_t)cap, sizeof *t);
    if (t == NULL)
      return false;
    st->tags = t;
  }
  st->cap_meta = cap;
  return true;
}

/* Add a task on one of the current stage's streams, with default metadata. */
static inline int32_t add(struct lower *lw, enum pl_stream s, double work_s, enum pl_task_kind kind,
                   enum sim_res res) {
  struct sim_step *st = lw->st;
  int32_t id = sim_task_add(&st->eng, lw->streams[lw->stage * PL_STREAM_N + s], work_s, res);
  if (id == SIM_NONE || !meta_room(st, id + 1)) {
    fail(lw, PL_ERR_NOMEM);
    return SIM_NONE;
  }
  st->meta[id] = (struct sim_meta){.stage = lw->stage,
                                   .peer = -1,
                                   .mb = -1,
                                   .coll = -1,
                                   .coll2 = -1,
                                   .stream = (uint8_t)s,
                                   .kind = (uint8_t)kind,
                                   .part = PL_PART_ALL};
  if (st->compress)
    st->tags[id] = (struct sim_tag){lw->pass_id, lw->cur_unit, -1, 0, lw->cur_steady};
  return id;
}

static inline int32_t tpl_code(const struct lower *lw, int32_t id) {
  if (id == SIM_NONE)
    return TPL_NONE;
  if (id >= lw->rec_a)
    return id - lw->rec_a;
  for (int j = 0; j < TPL_IN; j++)
    if (lw->rec_in[j] == id)
      return -(j + 1);
  return TPL_BAD; /* not an input: the pass cannot be a template */
}

static inline void record(struct lower *lw, int32_t from, int32_t to) {
  int32_t f = tpl_code(lw, from);
  if (f == TPL_BAD || f == TPL_NONE) {
    lw->rec_bad = true;
    return;
  }
  if (lw->n_tpl_edges == lw->cap_tpl_edges) {
    int32_t cap = lw->cap_tpl_edges ? 2 * lw->cap_tpl_edges : 256;
    struct tpl_edge *p = sim_reallocarray(lw->tpl_edges, (size_t)cap, sizeof *p);
    if (p == NULL) {
      lw->rec_bad = true;
      return;
    }
    lw->tpl_edges = p;
    lw->cap_tpl_edges = cap;
  }
  lw->tpl_edges[lw->n_tpl_edges++] = (struct tpl_edge){f, to - lw->rec_a, -1};
}

/* to may not start before from (SIM_NONE: no edge); recorded for a template. */
static inline void dep(struct lower *lw, int32_t from, int32_t to) {
  if (from < 0 || to < 0 || from == to)
    return;
  sim_dep(&lw->st->eng, from, to);
  if (lw->rec)
    record(lw, from, to);
}

static inline void join_add(struct lower *lw, int32_t id) {
  if (id != SIM_NONE && lw->n_join < LOWER_JOIN)
    lw->join[lw->n_join++] = id;
}

static inline int32_t coll_task(struct lower *lw, enum pl_stream s, int32_t coll, int64_t calls) {
  if (coll < 0 || calls <= 0)
    return SIM_NONE;
  const struct sim_coll *c = &lw->st->colls[coll];
  int32_t id = add(lw, s, (double)calls * c->time_s, PL_TASK_COLL, c->res);
  if (id != SIM_NONE) {
    lw->st->meta[id].coll = coll;
    lw->st->meta[id].calls = (int32_t)calls;
  }
  return id;
}

/* Two collectives back to back on one stream and fabric, as one task. */
static inline int32_t coll_pair(struct lower *lw, enum pl_stream s, struct sim_comm a, struct sim_comm b) {
  if (a.coll < 0 || b.coll < 0 || a.calls <= 0 || b.calls <= 0 ||
      lw->st->colls[a.coll].res != lw->st->colls[b.coll].res)
    return SIM_NONE;
  const struct sim_coll *cb = &lw->st->colls[b.coll];
  int32_t id = coll_task(lw, s, a.coll, a.calls);
  if (id == SIM_NONE)
    return SIM_NONE;
  lw->st->eng.tasks[id].work_s += (double)b.calls * cb->time_s;
  lw->st->meta[id].coll2 = b.coll;
  lw->st->meta[id].calls2 = b.calls;
  return id;
}

static inline int32_t comp(struct lower *lw, double work_s, const struct unit *u, enum pl_task_part part) {
  enum pl_task_kind kind = u->slot.pass == PL_PASS_FWD ? PL_TASK_FORWARD : PL_TASK_BACKWARD;
  int32_t id = add(lw, PL_STREAM_COMPUTE, work_s, kind, SIM_RES_COMPUTE);
  if (id == SIM_NONE)
    return id;
  for (int i = 0; i < lw->n_join; i++)
    dep(lw, lw->join[i], id);
  lw->n_join = 0;
  struct sim_meta *mt = &lw->st->meta[id];
  mt->mb = u->slot.mb;
  mt->chunk = u->slot.chunk;
  mt->layer_first = u->layer_first;
  mt->layers = u->layers;
  mt->embed = u->embed;
  mt->head = u->head;
  mt->part = (uint8_t)part;
  mt->recompute = u->slot.pass == PL_PASS_BWD && lw->l->recompute != PL_RECOMPUTE_NONE;
  if (lw->pass_first == SIM_NONE && lw->anchor_pair >= 0) {
    lw->st->tags[id].anchor = lw->stage_periods ? 3 : 2;
    lw->st->tags[id].pair = lw->anchor_pair;
  }
  if (lw->pass_first == SIM_NONE)
    lw->pass_first = id;
  lw->last_comp = id;
  return id;
}

/* The tp collectives of a unit, merged by kind (same op and size). */
/* The slots of a stage's steady-state 1F1B pairs, [steady_lo, steady_hi):
 * from the forward before the first backward to the backward after the last
 * forward (none for GPipe, whose passes are not in pairs). */
static inline void steady_range(struct lower *lw, const struct sim_slot *sl, int32_t n) {
  int32_t first_b = -1, last_f = -1;
  for (int32_t i = 0; i < n; i++) {
    if (sl[i].pass == PL_PASS_BWD && first_b < 0)
      first_b = i;
    if (sl[i].pass == PL_PASS_FWD)
      last_f = i;
  }
  lw->steady_lo = lw->steady_hi = 0;
  if (lw->l->schedule == PL_SCHEDULE_GPIPE || first_b < 1 || last_f + 2 <= first_b - 1)
    return;
  lw->steady_lo = first_b - 1;
  lw->steady_hi = last_f + 2;
  if (lw->stage == 0) /* stage 0's last pair anchor */
    lw->st->eng.cmp.last_pair = (lw->steady_hi - lw->steady_lo) / 2 - 1;
}

/* lower_tpl.c: pass templates (docs/step-model.md section 11). */
void sim_tpl_inputs(const struct lower *lw, int32_t *in, int8_t *pat);
const struct tpl *sim_tpl_find(const struct lower *lw, const struct unit *u, bool ag, const int8_t *pat);
void sim_tpl_replay(struct lower *lw, const struct tpl *t, const struct unit *u, const int32_t *in);
void sim_tpl_save(struct lower *lw, const struct unit *u, bool ag, int n_join_in, const int8_t *pat, int32_t e0);

/* lower_p2p.c: the pipeline exchange */
/* lower_dp.c: data-parallel gradients, the optimizer step, zero1 gathers. */
void sim_dp_bucket(struct lower *lw, const struct sim_seg *sg, int32_t after, bool flush);
void sim_dp_emit_tail(struct lower *lw);
void sim_dp_gather_ahead(struct lower *lw);
void sim_dp_gather_wait(struct lower *lw, struct sim_slot sl, int32_t *later);

/* step_sync.c: the trainer loop's small host-waited collectives over all
 * GPUs once per step (layout.step_sync_*), after the task `after`. */
void sim_step_sync_emit(struct lower *lw, int32_t after);

/* opt_host.c: the optimizer step of one GPU when its eager kernels wait for a
 * host sync per parameter tensor (layout.opt_syncs_per_tensor); gpu_s: the
 * step's time by bytes. */
double sim_opt_host_s(const struct lower *lw, double gpu_s);
/* The optimizer step's HBM bytes per local parameter (lower_dp.c). */
double sim_opt_bytes_per_param(const struct pl_layout *l);
/* Megatron-Core DDP's per-step gradient-buffer zero and NaN-check norm passes
 * over params local gradients (layout.grad_buffer_passes; lower_dp.c). */
double sim_grad_buffer_passes_s(const struct pl_layout *l, const struct pl_gpu *g, double params);

/* lower_unit.c: one unit's compute and its tp, cp and ep collectives, after
 * the unit's inputs (gather: its FSDP gather task, or SIM_NONE); returns
 * its last compute task. */
int32_t sim_emit_unit(struct lower *lw, const struct unit *u, int32_t gather);

bool sim_p2p_serial(const struct lower *lw);
bool sim_p2p_split(const struct lower *lw);
void sim_p2p_pass_extras(struct lower *lw, struct sim_slot sl, int64_t v);
void sim_p2p_emit_sends(struct lower *lw, int64_t s);
void sim_p2p_emit_serial(struct lower *lw, int64_t s);

#endif
