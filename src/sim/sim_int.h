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

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <plateau/coll.h>
#include <plateau/flops.h>
#include <plateau/predict.h>
#include <plateau/sim.h>

/* mem.c: the simulator's allocations, reused across predictions on each
 * thread (a block freed here is kept for the next prediction). Blocks from
 * these are freed with sim_free only. */
void *sim_malloc(size_t bytes);
void *sim_calloc(size_t count, size_t size);
void *sim_realloc(void *ptr, size_t bytes);
void *sim_reallocarray(void *ptr, size_t count, size_t size);
void sim_free(void *ptr);

/* ---------------------------------------------------------------- engine */

/* What a running task competes for on its rank. Compute slows by the GPU's
 * overlap_slowdown while any communication on SMs runs; an INTRA collective
 * (NCCL's SM-driven kernels inside the NVLink domain) slows by the GPU's
 * comm_overlap_slowdown while compute runs beside it; collectives on the
 * same fabric share it equally (processor sharing). INTRA_CE: an intra-node
 * transfer by the copy engines (Transformer Engine's ring exchange,
 * lower_unit.c ub_ce): it shares the node's fabric with INTRA but takes no
 * SM, so compute beside it keeps its speed and it keeps its own. INTER: a
 * collective across nodes, paced by the NICs, not slowed by compute
 * (docs/step-model.md section 3). */
enum sim_res { SIM_RES_COMPUTE, SIM_RES_INTRA, SIM_RES_INTER, SIM_RES_INTRA_CE, SIM_RES_N };

#define SIM_NONE (-1)
#define SIM_MAX_COLLS 48
struct sim_meta;
struct sim_tag;
struct sim_coll;
#define SIM_MAX_RANK_STREAMS 8

struct sim_task {
  double left_s;   /* work still to do, valid at mark_s */
  double rate;     /* current speed (1 = full) */
  double mark_s;   /* when left_s was last brought up to date */
  double due_s;    /* running: when it completes at its current rate */
  uint64_t seq;    /* running: order of (re)scheduling, breaks ties of due_s */
  int32_t stream;
  int32_t next;    /* next task issued on the same stream */
  int32_t edges;   /* first outgoing dependency edge */
  int32_t waiting; /* predecessors not yet finished */
  uint8_t res;     /* enum sim_res: what it competes for */
  uint8_t pos;     /* running: its place in its rank's running list */
  double work_s;   /* duration alone at full speed */
  double start_s;
  double end_s;
};

struct sim_edge {
  int32_t to;
  int32_t next;
};

struct sim_stream {
  int32_t first;   /* first task issued, SIM_NONE when none */
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
  int32_t first;        /* running task due first (by due_s, then seq), SIM_NONE when idle */
};

/* A rank's first task's key (due_s, seq); +inf when idle. */
struct sim_key {
  double due_s;
  uint64_t seq;
};

/* Step accounting integrated while the engine runs (compressed path,
 * docs/step-model.md section 11): what account.c computes from the finished
 * timeline, as integrals over time of functions of the running set, so an
 * inserted period adds its integrals k times. Per rank. */
struct sim_acc {
  double t_s; /* integrated up to here */
  double compute_s, optimizer_s, exposed_s, overlapped_s;
  double idle_s;  /* time with the compute stream idle */
  int32_t n_in;   /* pp transfers to this rank running now (they count as its comm) */
  int32_t n_comm; /* own collectives running now */
  int8_t comp;    /* running compute task: 0 none, 1 forward/backward, 2 optimizer */
  double calls[SIM_MAX_COLLS], time_s[SIM_MAX_COLLS], exp_s[SIM_MAX_COLLS];
};

/* Steady-state compression (docs/step-model.md section 11). The lowering
 * simulates fewer identical FSDP units per pass and fewer identical pipeline
 * periods than the step has; the engine finds, at anchors, two states one
 * period apart that agree, checks that the task graph around them is
 * invariant under the one-period shift, and inserts the missing periods
 * there: every rank is frozen for k periods and its accumulated integrals
 * grow by k times those of the period. Anchors (sim_tag.anchor): 1 = first
 * compute of a layer unit of a pass that lacks units (pp = 1 only: with
 * pp > 1 transfers from other stages would cross the inserted time),
 * 2 = first compute of a steady-state pipeline pair on stage 0, 3 = the
 * same on every stage when each stage has a period of its own (comm-bound
 * FSDP with pp > 1: each rank frozen for k of its own periods, compress_stage.c). */
/* States one period apart agree when their times to completion differ by
 * less than this, relative to the current time (compress.c, online.c). */
#define SIM_CMP_TOL 1e-12

struct sim_snap {
  bool valid;
  int32_t key; /* unit: pass id; period: pair index */
  int32_t idx; /* unit index in the pass / pair index */
  double now_s;
  int32_t *started;    /* [stream] tasks started so far */
  double *left;        /* [stream] due - now of the running task, < 0 when idle */
  double *rate;        /* [stream] its rate */
  struct sim_acc *acc; /* [rank] */
};

struct sim_cmp {
  bool on;
  int32_t *need; /* [pass id] units still to insert */
  int32_t n_pass;
  int32_t glob_need;     /* pipeline periods still to insert */
  int32_t period;        /* pairs per period (ring size) */
  struct sim_snap *ring; /* [period] */
  int32_t pending[8];
  int n_pending;
  int32_t *sid, *soff; /* tasks of each stream in issue order */
  int32_t *pos;        /* [task] position on its stream (0 = issued first) */
  int32_t *npred;      /* [task] predecessors in all */
  double *idle0;       /* [task] its rank's compute-idle integral at its start */
  int inserted;        /* insertions made (tests) */
  int n_colls;         /* collectives the step uses (integrals copied) */
  int32_t last_unit;   /* last unit anchor of a compressed pass */
  int32_t last_pair;   /* last pair anchor on stage 0 */
  bool failed;         /* an anchor that was the last chance passed: stop */
  double *drift;       /* [2 * stream] last mismatch between pair anchors */
  int32_t *shift;      /* [stream] scratch: tasks started in the period */
  bool drift_valid;
  /* per-stage periods (anchors 3): comm-bound FSDP with pp > 1 */
  bool stage_mode;
  bool staged;           /* inserted: the checks below run until the end */
  struct sim_snap *stg;  /* [2 * rank]: older and latest anchor, then 3 scratch */
  uint8_t *stg_ok;       /* [rank] its latest anchor matched the one before */
  double *frozen_s;      /* [rank] no task may start before (inserted time) */
  double *nb;            /* [task] may not start before (an edge across the cut) */
  double *bind_s;        /* [a * ranks + b] last start on b triggered by a finish on a */
  int32_t *fin;          /* [stream] tasks finished (at the cut once inserted) */
  /* the cut, for the transfers received (compress_recv.c, stage_recv) */
  double cut_s;          /* when the periods were inserted */
  int32_t cut_k;         /* periods inserted */
  int32_t *cut_run;      /* [stream] task running at the cut, SIM_NONE */
  int32_t *cut_d;        /* [stream] tasks of one period */
  double *cut_shift;     /* [rank] time inserted: k of its periods */
  int32_t fin_rank;      /* rank of the task finishing in this event, -1 */
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
  void *block;         /* tasks and edges as first sized, one allocation (engine.c) */
  bool tasks_in_block; /* tasks still there (else an allocation of their own) */
  bool edges_in_block;
  struct sim_stream *streams;
  int32_t n_streams, cap_streams;
  struct sim_rank *ranks;
  int32_t n_ranks;
  struct sim_heap heap; /* ranks, keyed on their first task's (due_s, seq) */
  struct sim_key *keys; /* [rank] the same keys */
  uint64_t next_seq;
  double overlap_slowdown; /* compute runs at 1/(1+this) while comm runs */
  double slow_rate;        /* that rate */
  double comm_slow_rate;   /* an INTRA collective's rate while compute runs beside it */
  double now_s;
  int32_t finished;
  int32_t dirty[64]; /* ranks to re-rate after the current event */
  int n_dirty;
  int dirty_cap; /* places in dirty[] used: 63 in an event, the finishing rank has the first */
  bool nomem; /* an add failed; sim_engine_run reports it */
  /* compressed path only (NULL/false otherwise) */
  const struct sim_meta *meta;
  const struct sim_tag *tags;
  const struct sim_coll *colls;
  struct sim_acc *acc; /* [rank] when accounting online */
  struct sim_cmp cmp;
  const struct sim_hooks *hooks; /* set with acc */
};

enum pl_status sim_engine_init(struct sim_engine *e, int32_t ranks, int32_t task_hint,
                               double overlap_slowdown);
/* An INTRA collective runs at 1/(1 + comm_overlap_slowdown) of its speed
 * while compute runs on its rank (0 after sim_engine_init: not slowed). */
void sim_engine_set_comm_slowdown(struct sim_engine *e, double comm_overlap_slowdown);

/* An op's time t on the SMs Transformer Engine's userbuffers leave the
 * forward proj and fc2 GEMMs (ub_margin.c; t when no margin applies). */
double sim_ub_margin_s(const struct pl_gpu *g, const struct pl_layout *l, const struct pl_op *op,
                       enum pl_pass pass, double t);
void sim_engine_free(struct sim_engine *e);
int32_t sim_stream_add(struct sim_engine *e, int32_t rank);
/* Issue a task at the tail of stream; returns its id or SIM_NONE (no memory). */
int32_t sim_task_add(struct sim_engine *e, int32_t stream, double work_s, enum sim_res res);
/* to may not start before from has finished. Ids SIM_NONE are ignored. */
void sim_dep(struct sim_engine *e, int32_t from, int32_t to);
/* Room for n more tasks and m more edges (false: no memory), so that
 * lower.c's template copies, which do not check, can write them. */
bool sim_engine_reserve(struct sim_engine *e, int32_t n, int32_t m);
/* Run every task to completion. PL_ERR_INTERNAL when tasks never become
 * ready (a dependency cycle: a lowering bug). */
enum pl_status sim_engine_run(struct sim_engine *e, struct pl_diag *diag);
/* Move every running task's completion delta_s later (period insertion). */
void sim_engine_shift(struct sim_engine *e, double delta_s);
/* The same for one rank's running tasks (per-stage insertion). */
void sim_engine_shift_rank(struct sim_engine *e, int32_t rank, double delta_s);

/* What the engine calls on its compressed path (e->acc set), through
 * e->hooks: compress.c's sim_cmp_hooks, which predict.c installs. The engine
 * names no function of compression or of the online accounting, so those
 * files call the engine (sim_engine_shift*) and never the other way round. */
struct sim_hooks {
  enum pl_status (*init)(struct sim_engine *e); /* before the first event */
  /* a task of rank starts / ends at now, before the running set changes */
  void (*start)(struct sim_engine *e, int32_t id, int32_t rank);
  void (*finish)(struct sim_engine *e, int32_t id, int32_t rank);
  /* the same with per-stage periods (sim_cmp.stage_mode) */
  void (*start_stage)(struct sim_engine *e, int32_t id, int32_t rank);
  void (*finish_stage)(struct sim_engine *e, int32_t id, int32_t rank);
  void (*flush)(struct sim_engine *e);                 /* after an event with anchors */
  void (*advance)(struct sim_engine *e, int32_t rank); /* integrals up to now */
  enum pl_status (*end)(struct sim_engine *e);         /* after the last event */
};

/* compress.c: steady-state detection and period insertion (its parts:
 * compress_int.h). */
extern const struct sim_hooks sim_cmp_hooks;
/* Its state (e->cmp, which the lowering fills) freed; before sim_engine_free. */
void sim_cmp_free(struct sim_engine *e);
bool sim_cmp_done(const struct sim_engine *e);

/* online.c: the accounting integrated while the engine runs (the hooks
 * start, finish, start_stage, finish_stage and advance). */
void sim_acc_advance(struct sim_engine *e, int32_t rank);
void sim_acc_task_done(struct sim_engine *e, int32_t id, int32_t rank);
void sim_acc_start(struct sim_engine *e, int32_t id, int32_t rank);
void sim_acc_finish(struct sim_engine *e, int32_t id, int32_t rank);
void sim_acc_start_stage(struct sim_engine *e, int32_t id, int32_t rank);
void sim_acc_finish_stage(struct sim_engine *e, int32_t id, int32_t rank);

/* Items are 0 .. n_items - 1. */
enum pl_status sim_heap_init(struct sim_heap *h, int32_t n_items);
/* Insert item with this due time, or move it there if present. */
void sim_heap_set(struct sim_heap *h, int32_t item, double due_s);
/* The same with the tie-break sequence chosen by the caller (the engine keys
 * each rank on its earliest task's (due, seq)). */
void sim_heap_set_key(struct sim_heap *h, int32_t item, double due_s, uint64_t seq);
/* Take item out (nothing when absent). */
void sim_heap_remove(struct sim_heap *h, int32_t item);
/* Remove and return the earliest item, SIM_NONE when empty. */
int32_t sim_heap_pop(struct sim_heap *h);
/* Move every item delta_s later. */
void sim_heap_shift(struct sim_heap *h, double delta_s);
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

/* ------------------------------------------------------------- segments */

enum sim_seg_kind { SIM_SEG_EMBED, SIM_SEG_LAYER, SIM_SEG_HEAD, SIM_SEG_N };

/* A collective repeated calls times back to back; coll < 0 means none. */
struct sim_comm {
  int32_t coll;
  int32_t calls;
};

#define SIM_SEG_TP 8 /* tp and ep collectives of one segment and pass (kinds, not calls) */
#define SIM_SEG_EP 2 /* a block's slots from this one on are its expert-parallel collectives
                        (moe_comm.c sim_layer_moe) */
#define SIM_SEG_EP_COUNTS (SIM_SEG_EP + 3) /* the alltoall dispatcher's token counts' all_gather */
#define SIM_SEG_EP_PROBS (SIM_SEG_EP + 4)  /* and its probabilities' all_to_all (moe_comm.c) */

/* Costs of one segment (embedding, one transformer block, or the LM head)
 * for one micro-batch on one GPU. Index [pass] is enum pl_pass. */
/* The most exposed cp collectives of one kind around an attention core
 * (a2a: Q, K, V and O or their gradients). */
#define SIM_CP_COMMS 4

struct sim_seg {
  double comp_s[2];                  /* compute at full speed, without attn_s */
  double attn_s[2];                  /* attention core when split (cp > 1), else 0 */
  double te_column_s[2];             /* backward of the two column-parallel TE linears (qkv,
                                        fc1: pl_op_te_column), each op's dgrad + wgrad GEMMs at
                                        full speed, part of comp_s[PL_PASS_BWD] */
  double atp_lin_s[2][4];            /* layout.async_tp: the four tp linears' GEMMs (pl_op_tp_linear:
                                        qkv, fc1, proj, fc2) at full speed, per pass (backward: dgrad
                                        + wgrad), part of comp_s (lower_unit.c atp_windows) */
  double atp_rf_s[4];                /* of comp_s[PL_PASS_BWD]: their recomputed forward */
  double atp_chunk[2][4];            /* layout.async_tp: each tp linear's GEMM cut into tp row
                                        chunks over the whole GEMM ([0]: its forward shape, [1]:
                                        its dgrad's), segments.c atp_chunk_ratio; 0: none */
  double experts_s[2];               /* part of comp_s in Megatron-Core's MoE mlp node, with
                                        layout.ep_comm_overlap and no cp split (else 0) */
  double defer_wgrad_s;              /* LM head with layout.wgrad_deferral: its weight-gradient
                                        GEMM of one micro-batch, part of comp_s[PL_PASS_BWD]
                                        (segments.c head_wgrad_s; lower.c defers it) */
  double in_layer_s[2];              /* LM head: part of comp_s run inside the merged layers
                                        (pl_op_mtp_attn_node), with layout.ep_comm_overlap */
  double combine_s[2];               /* part of comp_s in Megatron-Core's MoE combine node
                                        (segments.c combine_share), with layout.ep_comm_overlap
                                        and no cp split (else 0): lower_unit.c ep_windows */
  double dw_experts_s, dw_rest_s;    /* layout.delay_wgrad: of comp_s[PL_PASS_BWD], the weight-
                                        gradient GEMMs Megatron-Core delays (segments.c
                                        delayed_wgrad_share): the mlp node's (experts_s) and the
                                        attention linears'; lower_unit.c ep_windows */
  double dw_lead_s[2];               /* layout.delay_wgrad on Hopper (pl_gpu.arch): of comp_s
                                        [PL_PASS_BWD], the first delayed wgrad GEMM kernel of
                                        [0] the attention node (qkv), [1] the mlp node (expert_fc2,
                                        one local expert's), which the collective beside them waits
                                        for (segments.c, lower_unit.c ep_lead_gemm) */
  struct sim_comm tp[2][SIM_SEG_TP]; /* blocking tensor- and expert-parallel collectives */
  struct sim_comm te_in_ag;          /* with sp: the all_gather of a column-parallel TE linear's
                                        saved input for its wgrad (lower_unit.c te_bwd_windows), one
                                        per such linear; not in tp[] (segments.c layer_tp) */
  struct sim_comm cp[2];             /* K/V ring exchange, overlaps attn_s; with
                                        layout.cp_allgather the K/V all_gather of one ring */
  struct sim_comm cp_dkv;            /* layout.cp_allgather: the backward's fp32 dK/dV all_to_all
                                        of one ring step, cp per ring (lower_unit.c cp_gather_ring) */
  struct sim_comm cp_pre[2][SIM_CP_COMMS];  /* layout.cp_comm all_gather, a2a, a2a+p2p: the
                                        collectives waited before the attention core, exposed
                                        (segments.c layer_cp_te); SIM_NONE-ended */
  struct sim_comm cp_post[2][SIM_CP_COMMS]; /* ... and after it */
  struct sim_comm cp_re[SIM_CP_COMMS]; /* ... a recomputed attention forward's (pre and post) */
  double cp_re_runs;                 /* recomputed attention forwards per block
                                        (pl_op_recompute_runs of the attention core) */
  double params;                     /* parameters on this GPU after tp sharding */
  double expert_params;              /* of which routed experts (MoE blocks): their gradients
                                        reduce over edp, not dp (lower.c bucket) */
  int32_t ag;                        /* FSDP all_gather of the unit, or -1 */
  int32_t ag2;                       /* zero3 with layout.zero3_list_copy_s and full recompute:
                                        the tensors gathered again for the backward after the
                                        recomputed forward released them, or -1 */
  int32_t ag3;                       /* zero3 with layout.zero3_list_copy_s: its persistent
                                        tensors, gathered one per call by the forward of every
                                        micro-batch after a step's first, or -1 */
  int32_t rs;                        /* FSDP reduce_scatter of its grads, or -1 */
  int32_t eag, ers;                  /* zero2/zero3 with ep > 1 and edp > 1: the routed experts'
                                        own unit's all_gather and reduce_scatter over edp, each
                                        issued back to back with ag / rs (fsdp_comm.c
                                        expert_unit), or -1 */
  double rs_copy_s;                  /* layout.fsdp2_rs_copy_in: the gradient copy-in (and
                                        pre-divide) of one unit, a compute task after the unit
                                        and the previous unit's reduce_scatter (lower.c
                                        emit_segments); 0: in the unit's compute */
  double z3_persist_elems;           /* zero3 with layout.zero3_list_copy_s: elements of its
                                        tensors under DeepSpeed's persistence threshold */
  double z3_persist_host_s;          /* and the host time of their copy loop at the step's
                                        end (segments.c, sim_zero3_persist_gather) */
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

/* Compression tags of a task (compressed lowering only; same index). */
struct sim_tag {
  int32_t pass_id; /* pass instance, -1 outside passes */
  int32_t unit;    /* layer unit in a compressed pass, else -1 */
  int32_t pair;    /* steady-state pair index on stage 0 (anchor 2) */
  uint8_t anchor;  /* 0, 1 (unit), 2 (pipeline pair) or 3 (pair of a stage, per-stage periods) */
  uint8_t steady;  /* issued for a steady-state pipeline pair */
};

/* The whole simulated step. */
struct sim_step {
  const struct pl_run *run; /* resolved */
  struct sim_engine eng;
  struct sim_meta *meta;
  struct sim_tag *tags; /* compress only, capacity cap_meta */
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
  bool reference;      /* tests: take the straightforward path (no caches, no
                          shortcuts) to check the optimized one gives identical results */
  bool compress;       /* simulate fewer identical periods and insert the rest
                          (online accounting; no per-task timeline) */
  int32_t keep_layers; /* compression: layer units simulated per FSDP pass */
  int32_t keep_pairs;  /* compression: pipeline periods simulated past the warm-up */
  int32_t copied;      /* tasks issued as copies of a pass template (lower.c; tests) */
};

/* reference: take the straightforward path (tests compare the two). */
enum pl_status sim_step_build(struct sim_step *st, const struct pl_run *run, bool reference,
                              struct pl_diag *diag);
/* The fast path of pl_predict: compressed lowering, online accounting; falls
 * back to the whole step when no steady state is found. sim_account then
 * reads the integrals. */
enum pl_status sim_step_build_fast(struct sim_step *st, const struct pl_run *run,
                                   struct pl_diag *diag);
/* The same with chosen keep counts (tests: too few forces the fallback). */
enum pl_status sim_step_build_keep(struct sim_step *st, const struct pl_run *run,
                                   int32_t keep_layers, int32_t keep_pairs, struct pl_diag *diag);
void sim_step_free(struct sim_step *st);

/* segments.c: price the three segment kinds and register their collectives. */
enum pl_status sim_segments(struct sim_step *st, struct pl_diag *diag);
/* The compute stream's wait per block for Transformer Engine's amax
 * all_reduces over tp (current scaling and NVFP4 under sequence parallelism),
 * out[PL_PASS_FWD] and out[PL_PASS_BWD]; 0 where none (segments.c). */
void sim_tp_amax_wait_s(const struct pl_run *run, double out[2]);
/* The compute stream's wait per block for Transformer Engine release_v0.8's
 * blocking delayed-scaling amax all_reduce over the stage's tp x dp ranks
 * (layout.fp8_amax_reduce_sync), out[PL_PASS_FWD], out[PL_PASS_BWD]; 0 where
 * none (segments.c). */
void sim_fp8_amax_reduce_wait_s(const struct pl_run *run, double out[2]);
/* A segment's collective slot: collective coll (SIM_NONE: none), calls times
 * per pass (segments.c, moe_comm.c). */
/* layout.fsdp_root_unit as it applies: zero2/zero3 with one chunk per rank
 * (pp = vp = 1, the embedding and the head on the same rank and in the root
 * module), PyTorch FSDP's units (not Megatron FSDP's fsdp_block_units, not
 * DeepSpeed 2021's per-parameter zero3_list_copy_s): the embedding segment's
 * unit is the root's (embedding + final norm + LM head), the head segment
 * has no collectives of its own (fsdp_comm.c sim_seg_fsdp, lower.c). */
static inline bool sim_fsdp_root_unit(const struct pl_layout *l) {
  bool sharded = l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
  return l->fsdp_root_unit && sharded && l->pp == 1 && l->vp <= 1 && !l->fsdp_block_units &&
         !(l->shard == PL_SHARD_ZERO3 && l->zero3_list_copy_s > 0);
}

/* zero3 as Megatron FSDP runs it (layout.fsdp_block_units): the modules
 * outside the blocks (embedding, final norm, LM head) are no FSDP units, so
 * megatron_fsdp.py _register_fsdp_hooks gives them a forward pre-hook that
 * gathers their own parameters but no post-forward release and no backward
 * pre-hook (both registered on fsdp_unit_modules only; Megatron-LM 00caa53a
 * megatron/core/distributed/fsdp/src/megatron_fsdp/megatron_fsdp.py): they
 * stay gathered from the forward, and the backward gathers them not again
 * (lower.c emit_segments). Their gradients are still reduced one by one,
 * each parameter's post-accumulate-grad hook calling reduce_gradients, as
 * the segments' own reduce_scatters already are. */
static inline bool sim_fsdp_edges_kept(const struct pl_layout *l) {
  return l->shard == PL_SHARD_ZERO3 && l->fsdp_block_units && l->zero3_list_copy_s <= 0;
}

static inline void sim_comm_set(struct sim_comm *c, int32_t coll, int32_t calls) {
  c->coll = coll;
  c->calls = coll >= 0 ? calls : 0;
}
/* The expert-parallel dispatch and combine collectives of an MoE block into
 * s's blocking list, slots SIM_SEG_EP.. (moe_comm.c; none for a dense model). */
enum pl_status sim_layer_moe(struct sim_step *st, struct sim_seg *s, struct pl_diag *diag);
/* seg_params.c: a segment's parameters on one GPU after tp (and expert)
 * sharding, elements; the average block's routed-expert part of them (0 for
 * a dense model); the segment's parameter tensors (each its own
 * gradient-accumulation kernels). */
double sim_seg_params(const struct pl_run *run, enum sim_seg_kind kind);
/* seg_params.c: the parameters a segment's FSDP unit gathers (trainable and
 * frozen: sim_seg_params plus LoRA's frozen base weights) */
double sim_seg_gathered_params(const struct pl_run *run, enum sim_seg_kind kind);
double sim_layer_expert_params_gpu(const struct pl_run *run);
/* seg_params.c: the routed experts' parameters outside the segment's FSDP
 * unit over dp (zero2/zero3, ep > 1): their own unit over edp, none at edp 1 */
double sim_fsdp_expert_params(const struct pl_run *run, enum sim_seg_kind kind);
double sim_seg_param_tensors(const struct pl_run *run, enum sim_seg_kind kind);
/* grad_accum.c: of a segment's params and parameter tensors, those the
 * ddp/zero1 per-micro-batch add pass still accumulates; with
 * layout.grad_accum_fusion the weight GEMMs of ops[0..n) accumulate their
 * wgrad into main_grad instead (pl_op.wgrad_accum_fp32 set on them). */
struct sim_grad_accum {
  double params;
  double tensors;
};
struct sim_grad_accum sim_grad_accum_unfused(const struct pl_run *run, enum sim_seg_kind kind,
                                             double params, double tensors, struct pl_op *ops,
                                             int n);
/* The FSDP unit collectives of a segment (zero2, zero3; none otherwise):
 * its parameter all_gather, gradient reduce_scatter, HSDP's replica
 * all_reduce and ZeRO-3's per-parameter calls (fsdp_comm.c). */
enum pl_status sim_seg_fsdp(struct sim_step *st, enum sim_seg_kind kind, struct sim_seg *s,
                            struct pl_diag *diag);
/* HBM bytes of DeepSpeed 2021's per-parameter ZeRO-3 gathers in one pass of a
 * segment (layout.zero3_list_copy_s; fsdp_comm.c). */
double sim_zero3_list_gather_bytes(const struct pl_run *run, enum sim_seg_kind kind,
                                   enum pl_pass pass);
/* groups.c: the communicator a collective runs on (Megatron rank order:
 * tp innermost, then cp, then dp, then pp) and its cost, deduplicated. */
enum pl_status sim_coll_add(struct sim_step *st, enum pl_coll_op op, const char *group,
                            double bytes, int32_t *out, struct pl_diag *diag);
/* segments.c: DeepSpeed 2021 ZeRO-3's gather of the persistent parameters
 * after the optimizer step (elems elements whose copy loop takes host_s):
 * the collective in *out (SIM_NONE when none), its time_s set. */
enum pl_status sim_zero3_persist_gather(struct sim_step *st, double elems, double host_s,
                                        int32_t *out, struct pl_diag *diag);
/* host_flow.c: the host issuing a pass's work and the GPU running it, in
 * issue order (docs/step-model.md 2.6): host_s when the host has issued,
 * gpu_s when the GPU has run, everything so far. */
struct sim_flow {
  double host_s, gpu_s;
};
/* launches for an item whose host and GPU time overlap completely (max of
 * the two from a common start): the limit of many launches */
#define SIM_FLOW_FLUID INFINITY
/* An item of `launches` launches (k, at least 1) of equal host and GPU time,
 * host_s and gpu_s in all: the GPU ends it at max(its previous end + gpu_s,
 * host start + max(host_s + gpu_s/k, host_s/k + gpu_s)). */
void sim_flow_op(struct sim_flow *f, double host_s, double gpu_s, double launches);
/* GPU-only work (a collective): it starts once the host has reached it and
 * the GPU is free. */
void sim_flow_gpu(struct sim_flow *f, double gpu_s);
/* The host waits until the GPU has run everything so far. */
void sim_flow_sync(struct sim_flow *f);
/* When both have finished. */
double sim_flow_end_s(const struct sim_flow *f);
/* moe_sync.c: the MoE dispatcher's wait in a block's forward
 * (layout.moe_host_sync): the dispatch and combine of one block's forward
 * (one call of each, alone), GPU items of the pass's flow around the wait
 * (pass_ops.c sim_seg_ops_s). */
struct sim_moe_wait {
  double dispatch_s, combine_s;
  double counts_s; /* alltoall: the counts' all_gather, before the wait */
};
/* Whether the run's MoE blocks wait, and then their collectives in *w from
 * the layer segment s, its expert-parallel ones priced (segments.c
 * layer_moe). */
bool sim_moe_wait_of(const struct sim_step *st, const struct sim_seg *s, struct sim_moe_wait *w);
/* moe_comm.c: layout.moe_fake_gate's routing over ep ranks dealt to nodes of
 * per_node ranks (1: the ranks themselves): the share of a rank's tokens the
 * busiest group receives, and in *mean (when not NULL) the groups a token
 * reaches; -1 beyond its table */
double sim_moe_fake_gate_share(const struct pl_model *m, int64_t ep, int64_t per_node,
                               double *mean);
/* lower.c */
enum pl_status sim_lower(struct sim_step *st, struct pl_diag *diag);

/* account.c: breakdown of the finished step for the reported stage. */
enum pl_status sim_account(const struct sim_step *st, const struct pl_flops *fl,
                           struct pl_step *out);
/* power.c: mean per-GPU and cluster power for a stage's time split. */
double sim_gpu_power_w(const struct pl_gpu *g, double compute_frac, double comm_frac,
                       double wait_frac);

/* compute.c helpers shared with segments.c */
/* Logits of one micro-batch on one rank: mbs x seq / cp tokens times the
 * vocabulary slice of a tp rank (padded to tp, as the LM head's op). */
double sim_microbatch_logits(const struct pl_model *m, const struct pl_layout *l);
/* autocast.c: appends torch.autocast's per-forward fp32 weight casts of a
 * segment's GEMM weights (layout.autocast_weight_casts); returns the count. */
int sim_autocast_casts(const struct pl_run *run, struct pl_op *ops, int n);
/* eager_accum.c: eager PyTorch ddp's gradient accumulation and DDP bucket
 * copies, bytes per parameter per micro-batch (< 0: not eager ddp). */
double sim_eager_ddp_accum_bytes(const struct pl_run *run, enum sim_seg_kind kind);
double sim_op_run_gemms(const struct pl_op *op, enum pl_pass pass);
/* Whether the run replays op from a CUDA graph (layout.cuda_graph_scopes): its
 * host time is then 0. */
bool sim_op_graphed(const struct pl_layout *l, const struct pl_model *m, const struct pl_op *op);
/* Quantize kernels Transformer Engine launches from C++ for a grouped expert
 * GEMM's operand in one pass (split_quantize: per local expert, 3 under FP8
 * current scaling, 1 under MXFP8 or FP8 block scaling; 0 otherwise). */
double sim_op_split_quantize_kernels(const struct pl_layout *l, const struct pl_op *op,
                                     enum pl_pass pass);
/* Megatron's FusedScaleMaskSoftmax takes this eager attention op's shape
 * (compute.c; layout.megatron_softmax) */
bool sim_megatron_softmax_fused(const struct pl_op *op);
double sim_op_run_kernels(const struct pl_layout *l, const struct pl_model *m,
                          const struct pl_op *op, enum pl_pass pass);
/* A pass's time as the host flow of its ops (docs/step-model.md 2.6); wait:
 * a forward with the MoE dispatcher's wait (NULL: none). */
double sim_seg_ops_s(const struct pl_gpu *g, const struct pl_layout *l, const struct pl_model *m,
                     const struct pl_op *ops, int n, enum pl_pass pass, bool attention_only,
                     const struct sim_moe_wait *wait);

#endif
