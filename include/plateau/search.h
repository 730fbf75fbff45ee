/* search.h: find the best parallel layouts for a model on a cluster, and the
 * figures that say where adding GPUs stops paying (docs/search.md).
 *
 * A search enumerates every layout of a fixed world size and global batch
 * (tp, pp, cp, dp, shard mode and group, micro-batch, recompute, schedule and
 * vp), rejects the ones that cannot run or do not fit in memory (counting why),
 * and ranks the rest with pl_predict. Layouts are visited in bound order and a
 * layout is skipped only when a lower bound on its step time proves it cannot
 * enter the top K. Results are identical whatever the threads or ranks.
 *
 * Ownership: a struct pl_par from pl_par_new is released with pl_par_free; a
 * struct pl_search_result filled by pl_search_run is released with
 * pl_search_result_free. Everything else is a plain value owned by the caller. */
#ifndef PLATEAU_SEARCH_H
#define PLATEAU_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "predict.h"
#include "status.h"

/* ---- parallel execution: threads here, optionally ranks elsewhere ---- */

/* How work is spread across processes (MPI ranks). The library never links
 * MPI: the caller provides allgather. Every rank must make the same calls in
 * the same order with the same inputs; all ranks get the same results. */
struct pl_par_dist {
  int rank;                  /* this process, 0-based */
  int nranks;                /* processes taking part (>= 1) */
  /* Concatenate every rank's bytes in rank order into *all (allocated with
   * pl_malloc, freed by the library) and write each rank's length to
   * lens[nranks]. */
  enum pl_status (*allgather)(void *ud, const void *mine, size_t len, void **all, size_t *lens,
                              struct pl_diag *diag);
  void *ud;
};

struct pl_par;

/* threads >= 1 worker threads in this process; dist NULL = one process. */
enum pl_status pl_par_new(int threads, const struct pl_par_dist *dist, struct pl_par **out,
                          struct pl_diag *diag);
void pl_par_free(struct pl_par *par);
int pl_par_rank(const struct pl_par *par);   /* 0 without dist */
int pl_par_nranks(const struct pl_par *par); /* 1 without dist */

/* Run fn(ctx, i, out + i * item_size) for i in [0, n) over threads and ranks;
 * on return every rank holds all n outputs. fn must be a pure function of i
 * (and ctx) and must not fail: record failures inside the output. */
typedef void (*pl_par_fn)(void *ctx, int64_t i, void *out);
enum pl_status pl_par_map(struct pl_par *par, int64_t n, size_t item_size, pl_par_fn fn,
                          void *ctx, void *out, struct pl_diag *diag);

/* ---- the layout space ---- */

enum pl_objective {
  PL_OBJECTIVE_THROUGHPUT,     /* tokens/s, higher is better */
  PL_OBJECTIVE_TOKENS_PER_J,   /* tokens per joule, higher is better */
  PL_OBJECTIVE_COST            /* USD per million tokens at a GPU-hour price, lower is better */
};

/* X(name, key): why a layout was rejected before ranking, in checking order. */
#define PL_REJECT_MAP(X)                                                    \
  X(TP_HEADS, "tp_divides_heads")           /* tp must divide heads */     \
  X(TP_KV_HEADS, "tp_divides_kv_heads")     /* ... and KV heads */          \
  X(TP_FFN, "tp_divides_ffn")               /* ... and the FFN width */     \
  X(PP_LAYERS, "pp_exceeds_layers")         /* more stages than layers */   \
  X(CP_SEQ, "cp_divides_seq")               /* seq % (2 cp) != 0 */         \
  X(BATCH, "batch_divisibility")            /* gbs % (dp * mbs) != 0 */     \
  X(INTERLEAVE, "interleave_micro_batches") /* micro-batches % pp != 0 */   \
  X(LAYOUT, "layout_other")                 /* pl_layout_resolve refused */ \
  X(MEMORY, "does_not_fit")                 /* memory per GPU > HBM */      \
  X(SIMULATION, "simulation_limit")         /* step above the simulator's task limit */

enum pl_reject {
#define PL_REJECT_ENUM(name, key) PL_REJECT_##name,
  PL_REJECT_MAP(PL_REJECT_ENUM)
#undef PL_REJECT_ENUM
  PL_REJECT_N
};
const char *pl_reject_name(enum pl_reject r); /* "does_not_fit" */

/* Constraints on the space. 0 (or an empty mask) leaves a field free. */
struct pl_search_space {
  int64_t tp, pp, cp, dp, vp, mbs;
  int64_t shard_group;       /* 0 free; -1 = the whole dp group only (no HSDP) */
  unsigned shard_mask;       /* bit (1u << enum pl_shard) per allowed mode */
  unsigned recompute_mask;   /* bit (1u << enum pl_recompute) */
  unsigned schedule_mask;    /* bit (1u << enum pl_schedule); ignored when pp = 1 */
};

/* Parse "tp=2,shard=zero3,recompute=full" into constraints added to *space.
 * Keys: tp pp cp dp vp mbs shard shard_group recompute schedule. */
enum pl_status pl_search_space_parse(const char *text, struct pl_search_space *space,
                                     struct pl_diag *diag);

/* A named strategy as constraints (docs/search.md): "best" (free), "fsdp",
 * "ddp", "hsdp" and degrees "tp2", "pp4", "cp2", combinable ("tp2pp2"). */
enum pl_status pl_strategy_parse(const char *name, struct pl_search_space *space,
                                 struct pl_diag *diag);

typedef void (*pl_progress_fn)(void *ud, int64_t done, int64_t total);

struct pl_search_opts {
  enum pl_objective objective;
  double gpu_hour_usd;       /* price of one GPU for one hour (cost objective) */
  int64_t top_k;             /* results wanted (>= 1) */
  struct pl_search_space space;
  bool exhaustive;           /* evaluate every fitting layout (no pruning) */
  struct pl_par *par;        /* NULL: serial in this thread */
  pl_progress_fn progress;   /* optional, called from the calling thread */
  void *progress_ud;
};

struct pl_search_hit {
  struct pl_prediction pred;
  double objective;          /* tokens/s, tokens/J or USD per million tokens */
  int64_t index;             /* position in the enumeration order (tie-break) */
};

struct pl_search_result {
  int64_t considered;        /* layouts enumerated = rejected + pruned + evaluated */
  int64_t rejected[PL_REJECT_N];
  int64_t rejected_total;
  int64_t pruned;            /* fit, but a bound proved they cannot enter the top K */
  int64_t evaluated;         /* simulated with pl_predict */
  int64_t n_hits;            /* <= top_k */
  struct pl_search_hit *hits;/* best first */
  /* When nothing fits: of the layouts rejected for memory, the one needing
   * the least (earliest on ties), predicted (memory.fits false). */
  bool has_closest;
  struct pl_prediction closest;
};

/* base: model, cluster and the layout's gpus (or nodes), gbs (or
 * batch_per_gpu), seq and dtype; its other layout fields are ignored (use
 * opts->space). No fitting layout is a result (n_hits = 0), not an error. */
enum pl_status pl_search_run(const struct pl_run *base, const struct pl_search_opts *opts,
                             struct pl_search_result *out, struct pl_diag *diag);
void pl_search_result_free(struct pl_search_result *r);

/* The objective of a simulated prediction (see enum pl_objective); cost is
 * gpus * gpu_hour_usd / 3600 / tokens_per_s * 1e6 (docs/search.md). */
double pl_search_objective(const struct pl_prediction *p, enum pl_objective obj,
                           double gpu_hour_usd);

/* ---- diminishing returns along a scale axis ---- */

/* One point of a series (same model, hardware and strategy, growing GPUs). */
struct pl_scaling_point {
  int64_t gpus;
  double tokens_per_s;       /* ignored when !valid */
  bool valid;                /* simulated (fits) */
  /* outputs */
  bool has_efficiency;
  double scaling_efficiency; /* (T/N) / (T0/N0), N0 the smallest valid point */
  bool has_marginal;         /* false at the first valid point */
  double marginal_tokens_per_s_per_gpu; /* (T - Tprev) / (N - Nprev) */
  double marginal_efficiency;           /* that / (T0/N0) */
};

struct pl_knee {
  bool found;
  int64_t gpus;              /* first point whose marginal efficiency < threshold */
  int64_t prev_gpus;         /* the valid point before it */
  double marginal_efficiency;
  double scaling_efficiency;
};

/* Fill the outputs of pts[0..n) (sorted by gpus, ascending) and the knee. */
void pl_scaling_figures(struct pl_scaling_point *pts, size_t n, double threshold,
                        struct pl_knee *knee);

#endif
