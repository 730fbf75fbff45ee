/* sim_int.h (internal to src/sim): the discrete-event engine, the pipeline
 * schedules, and the lowering of one training step into engine tasks.
 *
 * Flow (docs/step-model.md): predict.c resolves the run; segments.c prices
 * each model segment (compute per pass, its blocking tp/cp collectives, its
 * FSDP/DDP collectives); lower.c walks each stage's schedule (gpipe.c,
 * 1f1b.c, interleaved.c) and emits tasks; engine.c runs them; account.c
 * turns the finished timeline into the step breakdown; power.c adds power.
 * Ownership: a struct sim_step owns its engine and metadata and is released
 * with sim_step_free. */
#ifndef PL_SIM_INT_H
#define PL_SIM_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <plateau/coll.h>
#include <plateau/flops.h>
#include <plateau/predict.h>
#include <plateau/sim.h>

/* ---------------------------------------------------------------- engine */

/* What a running task competes for on its rank. Compute slows by the GPU's
 * overlap_slowdown while any communication runs; collectives on the same
 * fabric share it equally (processor sharing). */
enum sim_res { SIM_RES_COMPUTE, SIM_RES_INTRA, SIM_RES_INTER, SIM_RES_N };

#define SIM_NONE (-1)
#define SIM_MAX_RANK_STREAMS 8

struct sim_task {
  double work_s; /* duration alone at full speed */
  double left_s; /* work still to do, valid at mark_s */
  double rate;   /* current speed (1 = full) */
  double mark_s; /* when left_s was last brought up to date */
  double start_s;
  double end_s;
  int32_t stream;
  int32_t next;    /* next task issued on the same stream */
  int32_t edges;   /* first outgoing dependency edge */
  int32_t waiting; /* predecessors not yet finished */
  uint8_t res;     /* enum sim_res: what it competes for */
};

struct sim_edge {
  int32_t to;
  int32_t next;
};

struct sim_stream {
  int32_t head;    /* next task to run, SIM_NONE when drained */
  int32_t tail;    /* last task issued */
  int32_t running; /* task running now, SIM_NONE when idle */
  int32_t rank;
};

struct sim_rank {
  int32_t streams[SIM_MAX_RANK_STREAMS];
  int n_streams;
  int32_t running[SIM_MAX_RANK_STREAMS]; /* tasks running now, unordered */
  int n_running;
  int n_res[SIM_RES_N]; /* of which competing for each resource */
  bool dirty;           /* running set changed: re-rate */
};

/* The event queue: an indexed min-heap of tasks keyed on (due time,
 * sequence of (re)insertion); each task is in it at most once. */
struct sim_heap_entry {
  double due_s;
  uint64_t seq; /* tie-break: order of (re)insertion */
  int32_t item;
};

struct sim_heap {
  struct sim_heap_entry *items; /* heap order; keys inline so sifting stays in one array */
  int32_t n;
  int32_t *at; /* [item] position in items, SIM_NONE when absent */
  double *due; /* [item] completion time */
  int32_t n_items;
  uint64_t next_seq;
};

struct sim_engine {
  struct sim_task *tasks;
  int32_t n_tasks, cap_tasks;
  struct sim_edge *edges;
  int32_t n_edges, cap_edges;
  struct sim_stream *streams;
  int32_t n_streams, cap_streams;
  struct sim_rank *ranks;
  int32_t n_ranks;
  struct sim_heap heap;
  double overlap_slowdown; /* compute runs at 1/(1+this) while comm runs */
  double slow_rate;        /* that rate */
  double now_s;
  int32_t finished;
  int32_t dirty[64]; /* ranks to re-rate after the current event */
  int n_dirty;
  bool nomem; /* an add failed; sim_engine_run reports it */
};

enum pl_status sim_engine_init(struct sim_engine *e, int32_t ranks, int32_t task_hint,
                               double overlap_slowdown);
void sim_engine_free(struct sim_engine *e);
int32_t sim_stream_add(struct sim_engine *e, int32_t rank);
/* Issue a task at the tail of stream; returns its id or SIM_NONE (no memory). */
int32_t sim_task_add(struct sim_engine *e, int32_t stream, double work_s, enum sim_res res);
/* to may not start before from has finished. Ids SIM_NONE are ignored. */
void sim_dep(struct sim_engine *e, int32_t from, int32_t to);
/* Run every task to completion. PL_ERR_INTERNAL when tasks never become
 * ready (a dependency cycle: a lowering bug). */
enum pl_status sim_engine_run(struct sim_engine *e, struct pl_diag *diag);

/* Items are 0 .. n_items - 1. */
enum pl_status sim_heap_init(struct sim_heap *h, int32_t n_items);
/* Insert item with this due time, or move it there if present. */
void sim_heap_set(struct sim_heap *h, int32_t item, double due_s);
/* Remove and return the earliest item, SIM_NONE when empty. */
int32_t sim_heap_pop(struct sim_heap *h);
void sim_heap_free(struct sim_heap *h);

/* ------------------------------------------------------------- schedules */

/* One slot of a stage's compute order: pass of micro-batch mb through
 * model chunk (virtual stage chunk * pp + stage). */
struct sim_slot {
  int32_t mb;
  int32_t chunk;
  int32_t pass; /* enum pl_pass */
};

/* A pipeline schedule fills out[0 .. 2*m*vp) for one stage and returns the
 * number of slots written. Callers never switch on the kind: they look the
 * schedule up in this table. */
struct sim_schedule {
  const char *name;
  int32_t (*order)(int64_t pp, int64_t m, int64_t vp, int64_t stage, struct sim_slot *out);
};

const struct sim_schedule *sim_schedule_for(enum pl_schedule s);
extern const struct sim_schedule sim_schedule_gpipe;
extern const struct sim_schedule sim_schedule_1f1b;
extern const struct sim_schedule sim_schedule_interleaved;

/* ----------------------------------------------------------- collectives */

/* One distinct collective of the step: op over a group with a size. */
struct sim_coll {
  enum pl_coll_op op;
  const char *group; /* "tp", "cp", "dp", "dp-replica", "pp" */
  struct pl_group g;
  double bytes;  /* per call */
  double time_s; /* one call, alone */
  enum pl_coll_algo algo;
  enum pl_coll_proto proto;
  enum sim_res res; /* fabric it loads: intra- or inter-node */
};

#define SIM_MAX_COLLS 48

/* ------------------------------------------------------------- segments */

enum sim_seg_kind { SIM_SEG_EMBED, SIM_SEG_LAYER, SIM_SEG_HEAD, SIM_SEG_N };

/* A collective repeated calls times back to back; coll < 0 means none. */
struct sim_comm {
  int32_t coll;
  int32_t calls;
};

#define SIM_SEG_TP 4 /* tp collectives of one segment and pass (kinds, not calls) */

/* Costs of one segment (embedding, one transformer block, or the LM head)
 * for one micro-batch on one GPU. Index [pass] is enum pl_pass. */
struct sim_seg {
  double comp_s[2];                  /* compute at full speed, without attn_s */
  double attn_s[2];                  /* attention core when split (cp > 1), else 0 */
  struct sim_comm tp[2][SIM_SEG_TP]; /* blocking tensor-parallel collectives */
  struct sim_comm cp[2];             /* K/V ring exchange, overlaps attn_s */
  double params;                     /* parameters on this GPU after tp sharding */
  int32_t ag;                        /* FSDP all_gather of the unit, or -1 */
  int32_t rs;                        /* FSDP reduce_scatter of its grads, or -1 */
  int32_t ar;                        /* hybrid: all_reduce across replicas, or -1 */
};

/* ---------------------------------------------------------- lowering */

/* Per-task facts for accounting and the trace (same index as engine tasks). */
struct sim_meta {
  int32_t stage;
  int32_t peer; /* pp send: receiving stage, else -1 */
  int32_t mb;   /* -1 when none */
  int32_t layer_first;
  int32_t layers;
  int32_t coll; /* index into colls, -1 for compute */
  int32_t calls;
  int32_t coll2; /* a second collective run after the first, or -1 */
  int32_t calls2;
  int32_t chunk;
  uint8_t stream; /* enum pl_stream */
  uint8_t kind;   /* enum pl_task_kind */
  uint8_t part;   /* enum pl_task_part */
  uint8_t embed, head, recompute;
};

/* The whole simulated step. */
struct sim_step {
  const struct pl_run *run; /* resolved */
  struct sim_engine eng;
  struct sim_meta *meta;
  int32_t cap_meta;
  struct sim_coll colls[SIM_MAX_COLLS];
  int n_colls;
  struct sim_seg seg[SIM_SEG_N];
  int64_t stages;        /* pp */
  int64_t chunks;        /* vp */
  int32_t *chunk_first;  /* [vp*pp] first layer of each virtual stage */
  int32_t *chunk_layers; /* [vp*pp] layers of each virtual stage */
  double bucket_bytes;   /* DDP gradient bucket */
  double step_s;
  bool reference; /* tests: take the straightforward path (no caches, no
                     shortcuts) to check the optimized one gives identical results */
};

/* reference: take the straightforward path (tests compare the two). */
enum pl_status sim_step_build(struct sim_step *st, const struct pl_run *run, bool reference,
                              struct pl_diag *diag);
void sim_step_free(struct sim_step *st);

/* segments.c: price the three segment kinds and register their collectives. */
enum pl_status sim_segments(struct sim_step *st, struct pl_diag *diag);
/* groups.c: the communicator a collective runs on (Megatron rank order:
 * tp innermost, then cp, then dp, then pp) and its cost, deduplicated. */
struct pl_group sim_group(const struct pl_run *run, const char *group);
enum pl_status sim_coll_add(struct sim_step *st, enum pl_coll_op op, const char *group,
                            double bytes, int32_t *out, struct pl_diag *diag);
/* lower.c */
enum pl_status sim_lower(struct sim_step *st, struct pl_diag *diag);

/* account.c: breakdown of the finished step for the reported stage. */
enum pl_status sim_account(const struct sim_step *st, const struct pl_flops *fl,
                           struct pl_step *out);
/* power.c: mean per-GPU and cluster power for a stage's time split. */
double sim_gpu_power_w(const struct pl_gpu *g, double compute_frac, double comm_frac,
                       double wait_frac);

/* compute.c helpers shared with segments.c */
double sim_seg_ops_s(const struct pl_gpu *g, const struct pl_layout *l, const struct pl_model *m,
                     const struct pl_op *ops, int n, enum pl_pass pass, bool attention_only);

#endif
