/* search_int.h (internal to src/search and its tests): the thread pool, the
 * parallel plumbing, the enumeration of the layout space and the lower bound
 * used for pruning.
 * Ownership: search_pool_new/_free pair up; candidate arrays returned through
 * **out are pl_malloc'd and released with pl_free by the caller. */
#ifndef PL_SEARCH_INT_H
#define PL_SEARCH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <plateau/search.h>

/* ---- pool.c ---- */
typedef void (*search_pool_fn)(void *ctx, int64_t i);
struct search_pool;
enum pl_status search_pool_new(int threads, struct search_pool **out, struct pl_diag *diag);
void search_pool_free(struct search_pool *p);
void search_pool_run(struct search_pool *p, int64_t n, search_pool_fn fn, void *ctx);

/* ---- par.c ---- */
struct search_pool *search_par_pool(struct pl_par *par); /* NULL when par is NULL */
/* Every rank's bytes, concatenated in rank order; lens[nranks]. Without
 * ranks *all is a copy of mine. */
enum pl_status search_par_allgather(struct pl_par *par, const void *mine, size_t len, void **all,
                                    size_t *lens, struct pl_diag *diag);

/* ---- space.c: the enumeration ---- */

/* Upper limits that keep the enumeration's work bounded (docs/search.md):
 * divisor lists of gpus, gbs and layers are at most SEARCH_MAX_DIVISORS long
 * (the most divisors of any integer below 2^31 is 1600); tuples (tp, pp, cp)
 * at most SEARCH_MAX_TUPLES. */
#define SEARCH_MAX_DIVISORS 1600
#define SEARCH_MAX_TUPLES 200000
#define SEARCH_MAX_TOP_K 10000

/* One layout that fits, compactly (int32: a world of at most 2^31 GPUs). */
struct search_cand {
  int64_t key;               /* position in enumeration order: tuple << 32 | inner */
  double ub;                 /* upper bound on the score (see bound.c) */
  double lb_step_s;          /* lower bound on the step time */
  int32_t tp, pp, cp, dp, vp, mbs, shard_group, ep;
  uint8_t shard, recompute, schedule;
};

struct search_tuple {
  int64_t tp, pp, cp, dp;
  int64_t ep; /* expert-parallel degree (1 for a dense model) */
};

/* Everything the enumeration and ranking read; built once, shared read-only
 * by all threads. */
struct search_ctx {
  const struct pl_model *model;
  const struct pl_cluster *cluster; /* &placed */
  struct pl_cluster placed;        /* the base cluster placed for ctx->gpus (pl_cluster_place) */
  struct pl_train_opts train;     /* the base run's, copied into every candidate's run */
  int64_t gpus, gbs, seq;
  enum pl_dtype dtype;
  struct pl_search_space space;
  enum pl_objective objective;
  double gpu_hour_usd;
  double tokens_per_step;
  struct pl_layout tmpl;          /* the base layout's inputs; search_cand_layout fills the rest */
  int64_t *div_gpus, n_div_gpus;  /* divisors of gpus, ascending */
  int64_t *div_gbs, n_div_gbs;    /* divisors of gbs, ascending */
  struct search_tuple *tuples;    /* (tp, pp, cp) in enumeration order */
  int64_t n_tuples;
};

enum pl_status search_ctx_init(struct search_ctx *ctx, const struct pl_run *base,
                               const struct pl_search_opts *opts, struct pl_diag *diag);
void search_ctx_free(struct search_ctx *ctx);

/* All layouts of the space: counts by reason and the candidates that fit, in
 * enumeration order (ascending key), with their bounds. Spread over par. */
struct search_space_out {
  int64_t considered;
  int64_t rejected[PL_REJECT_N];
  bool has_closest;          /* of the layouts that do not fit, the first needing least memory */
  double closest_bytes;
  struct search_cand closest;
  struct search_cand *cands;
  int64_t n_cands;
};
enum pl_status search_enumerate(const struct search_ctx *ctx, struct pl_par *par,
                                struct search_space_out *out, struct pl_diag *diag);

/* The complete layout of a candidate (unresolved fields filled, ready for
 * pl_layout_resolve / pl_predict). */
void search_cand_layout(const struct search_ctx *ctx, const struct search_cand *c,
                        struct pl_layout *l);

/* ---- bound.c and comm.c ---- */

enum { SEARCH_SEG_EMBED, SEARCH_SEG_LAYER, SEARCH_SEG_HEAD, SEARCH_SEG_N };

/* Compute of one micro-batch on one GPU, forward + backward (recompute
 * included), as the simulator prices it. Depends on tp, cp, mbs, seq,
 * recompute, the shard mode (gradient accumulation, FSDP copies) and the
 * layout's inputs (dtype, attention kind) only. */
struct search_seg_times {
  double layer_s;            /* one transformer block, attention core included */
  double attn_f_s;           /* of which the attention core's forward */
  double attn_b_s;           /* and backward (with its recompute) */
  double embed_s;            /* embedding (first stage) */
  double head_s;             /* final norm + LM head + loss (last stage) */
};
void search_seg_times(const struct search_ctx *ctx, const struct pl_layout *l,
                      struct search_seg_times *out);

/* Blocking tensor-parallel collectives of one micro-batch, forward and
 * backward, per segment (0 when tp = 1). Same dependencies as seg times. */
struct search_tp_times {
  double layer_f, layer_b, embed_f, embed_b, head_f, head_b;
  double ring_f, ring_b;     /* cp ring of one block, overlapping its attention core */
  double pp_send_s;          /* one pipeline send of a pass's output (0 when pp = 1); the
                                pair strides tp*cp*dp, fixed within a (tp, pp, cp) tuple */
  bool tp_inter, ring_inter, pp_inter; /* the group spans nodes: its calls share the
                                          network, else NVLink (src/sim/groups.c) */
};
void search_tp_times(const struct search_ctx *ctx, const struct pl_layout *l,
                     struct search_tp_times *out);

/* Data-parallel collectives: per FSDP unit (segment kind) one all_gather and
 * one gradient reduction (reduce_scatter + replica all_reduce); for ddp and
 * zero1 one 25 MiB bucket. Depends on tp, cp, dp and the shard config. */
struct search_dp_times {
  double params[SEARCH_SEG_N]; /* parameters of a segment on one GPU (after tp) */
  double ag_s[SEARCH_SEG_N];
  double rs_s[SEARCH_SEG_N];
  double bucket_s;
  double rep_s[SEARCH_SEG_N]; /* of rs_s, the all_reduce across replicas (HSDP) */
  double bucket_rep_s;        /* of bucket_s, the same */
  bool dp_inter, rep_inter;   /* the shard / replica group spans nodes */
};
void search_dp_times(const struct search_ctx *ctx, const struct pl_layout *l,
                     struct search_dp_times *out);
double search_optimizer_s(const struct search_ctx *ctx, const struct pl_layout *l, double params);
double search_zero1_gather_s(const struct search_ctx *ctx, const struct pl_layout *l,
                             double params);
double search_bucket_bytes(const struct search_ctx *ctx, const struct pl_layout *l);
double search_grad_bytes(const struct pl_layout *l);

struct search_times {
  struct search_seg_times seg;
  struct search_tp_times tp;
  struct search_dp_times dp;
};

/* A lower bound on pl_predict's step time for a resolved layout, and the
 * matching upper bound on the score (higher is better; +inf when no bound is
 * known for the objective). */
double search_step_lb_s(const struct search_ctx *ctx, const struct pl_layout *l,
                        const struct search_times *t);
double search_score_ub(const struct search_ctx *ctx, const struct pl_layout *l,
                       const struct search_times *t, double lb_step_s);

/* The score of a simulated prediction: higher is better for every objective
 * (cost ranks by tokens per USD). */
double search_score(const struct pl_prediction *p, enum pl_objective obj, double gpu_hour_usd);

#endif
