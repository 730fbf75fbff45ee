/* study.h: the paper's experiments for any setup, in one call (docs/study.md).
 *
 * A study is a grid: models x clusters x batch regimes x strategies x node
 * counts. Every point is predicted with pl_predict (named strategies) or found
 * by pl_search_run ("best"); bus bandwidths of the collectives come from
 * pl_coll_time; measured runs (Kineto trace directories) can be added. The
 * report is results.csv, results.json, gnuplot scripts + data + figures (SVG
 * and PNG) and a self-contained index.html, written atomically into a
 * directory. Findings are sentences computed from the results, never fixed
 * text (Fernandez et al., "Hardware Scaling Trends and Diminishing Returns in
 * Large-Scale Distributed Training", arXiv 2411.13055, is the study copied).
 *
 * Ownership: a struct pl_study from pl_study_run is released with
 * pl_study_free; the points and strings it hands out borrow from it. A spec
 * is a plain value owned by the caller. */
#ifndef PLATEAU_STUDY_H
#define PLATEAU_STUDY_H

#include "layout.h"
#include "predict.h"
#include "status.h"
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* Entries of each axis of a spec; more is a spec error (a grid that large
 * would not finish in minutes anyway). */
#define PL_STUDY_MAX_AXIS 32
/* Trace directories (--measured) a study accepts. */
#define PL_STUDY_MAX_MEASURED 16

enum pl_study_batch_kind {
  PL_STUDY_WEAK, /* n sequences per GPU: the global batch grows with the GPUs */
  PL_STUDY_FIXED /* a fixed global batch of n sequences (the paper's Appendix E) */
};

struct pl_study_batch {
  enum pl_study_batch_kind kind;
  int64_t n; /* sequences per GPU (weak) or per step (fixed) */
};

struct pl_study_spec {
  char models[PL_STUDY_MAX_AXIS][256]; /* preset names or model files */
  int n_models;
  char clusters[PL_STUDY_MAX_AXIS][256]; /* preset names or cluster files */
  int n_clusters;
  int64_t nodes[PL_STUDY_MAX_AXIS]; /* ascending, distinct */
  int n_nodes;
  char strategies[PL_STUDY_MAX_AXIS][32]; /* "fsdp" (required: the baseline), "tp2",
                                             "pp4", "cp2", "tp2pp2", ..., "best" (search) */
  int n_strategies;
  struct pl_study_batch batches[PL_STUDY_MAX_AXIS];
  int n_batches;
  int64_t seq;                 /* tokens per sequence */
  enum pl_shard shard;         /* ZeRO stage of the named strategies */
  enum pl_recompute recompute; /* of the named strategies */
  int64_t mbs;                 /* micro-batch of the named strategies; 0 = auto (docs/study.md) */
  enum pl_dtype dtype;
  char best_space[256];    /* constraints on the "best" search, pl_search_space_parse
                              syntax ("shard=zero2|zero3"); "" = the whole space;
                              default: the paper's family (docs/study.md) */
  double coll_bytes;       /* message size of the bus-bandwidth figure, nccl-tests convention */
  char focus_model[256];   /* the model of the single-setup figures; one of models */
  char focus_cluster[256]; /* the cluster of the single-setup figures; one of clusters */
  struct pl_framework framework; /* every run's framework (zeroed: none named) */
  char framework_ref[256];        /* the framework as named: a preset name, a framework file's
                                     path, or "none" (plateau's defaults); default
                                     PL_STUDY_DEFAULT_FRAMEWORK */
};

/* The framework preset the default study runs with: the paper's own stack
 * (arXiv 2411.13055 Appendix C: PyTorch 2.3.1 FSDP2, xFormers 0.27 attention;
 * data/frameworks/fsdp2-study-2024.json, docs/study.md "The study's framework"). */
#define PL_STUDY_DEFAULT_FRAMEWORK "fsdp2-study-2024"

/* Set the spec's framework from ref: a preset name, a framework file, or
 * "none" (no framework: every behaviour at plateau's default). On error the
 * spec is unchanged and diag says why. */
enum pl_status pl_study_spec_set_framework(struct pl_study_spec *s, const char *ref,
                                           struct pl_diag *diag);

/* The default grid of docs/study.md: Llama-2 7B/13B/70B on DGX V100/A100/H100,
 * 1..256 nodes, FSDP against tp/pp/cp and the best layout, 1, 2 and 4
 * sequences of 4096 tokens per GPU and a fixed global batch of 1024. */
void pl_study_spec_default(struct pl_study_spec *s);
/* Start from the default and override the fields a JSON spec sets. Unknown
 * fields and bad values are errors naming the field. */
enum pl_status pl_study_spec_parse(const char *text, size_t len, const char *origin,
                                   struct pl_study_spec *s, struct pl_diag *diag);
enum pl_status pl_study_spec_load(const char *path, struct pl_study_spec *s, struct pl_diag *diag);
/* Index of a strategy in the spec, -1 when absent. */
int pl_study_spec_strategy(const struct pl_study_spec *s, const char *name);

enum pl_study_status {
  PL_STUDY_OK,        /* simulated */
  PL_STUDY_NO_FIT,    /* a valid layout that does not fit in memory (or, for
                         "best", no layout fits) */
  PL_STUDY_INFEASIBLE /* the layout cannot run at this point (divisibility) */
};
const char *pl_study_status_name(enum pl_study_status s); /* "ok", "does_not_fit", "infeasible" */

/* One grid point and its outcome. */
struct pl_study_point {
  int model, cluster, batch, strategy; /* indices into the spec's axes */
  int node_index;                      /* index into spec nodes */
  int64_t nodes, gpus;
  enum pl_study_status status;
  char why[256]; /* when not ok: the reason in one line */
  bool has_pred; /* pred holds pl_predict's answer (ok, no fit) */
  struct pl_prediction pred;
  int64_t search_evaluated; /* "best": layouts simulated by the search */
};

/* Bus bandwidth of one collective at one scale (pl_coll_time). */
struct pl_study_coll {
  int cluster;
  int op; /* enum pl_coll_op */
  int64_t nodes, ranks;
  double bytes;
  bool ok; /* false: pl_coll_time refused (why) */
  double time_s;
  double busbw_bytes_per_s;
  char algo[16];
  char why[128];
};

/* One collective kind of a measured run. */
struct pl_study_mcoll {
  char op[24];
  int64_t group_size;
  double bytes;             /* mean per call */
  double time_s;            /* per step */
  double busbw_bytes_per_s; /* 0 when unknown */
};

#define PL_STUDY_MAX_MCOLL 8

/* A measured run: the trace analysis of one directory (pl_trace_analyze). */
struct pl_study_measured {
  char label[128]; /* directory name */
  char path[512];
  int64_t world_size; /* stated by the traces, else ranks found */
  int n_ranks;
  double step_time_s, compute_s, comm_s, overlapped_comm_s, exposed_comm_s;
  struct pl_study_mcoll coll[PL_STUDY_MAX_MCOLL];
  int n_coll;
};

typedef void (*pl_study_progress_fn)(void *ud, const char *phase, int64_t done, int64_t total);

struct pl_study_opts {
  int threads;                   /* >= 1 */
  pl_study_progress_fn progress; /* optional; called from the calling thread */
  void *progress_ud;
  volatile sig_atomic_t *cancel; /* optional: stop early (PL_ERR_INTERNAL
                                    "interrupted") when it becomes non-zero */
};

struct pl_study;

/* Load the spec's models and clusters and evaluate every point. Bad names
 * are errors naming the field; points that cannot run are results. */
enum pl_status pl_study_run(const struct pl_study_spec *spec, const struct pl_study_opts *opts,
                            struct pl_study **out, struct pl_diag *diag);
void pl_study_free(struct pl_study *st);

int64_t pl_study_count(const struct pl_study *st);
const struct pl_study_point *pl_study_get(const struct pl_study *st, int64_t i);
/* The point at these axis indices (always exists). */
const struct pl_study_point *pl_study_at(const struct pl_study *st, int model, int cluster,
                                         int batch, int strategy, int node_index);
int64_t pl_study_coll_count(const struct pl_study *st);
const struct pl_study_coll *pl_study_coll_get(const struct pl_study *st, int64_t i);

/* Analyze trace directories (one run each) and add them as measured points. */
enum pl_status pl_study_add_measured(struct pl_study *st, const char *const *dirs, int n,
                                     int threads, struct pl_diag *diag);

/* A published run as validate predicted it (include/plateau/validate.h,
 * struct pl_vrow): what the study needs to draw it. */
struct pl_study_published_run {
  char dataset[64];        /* validation CSV without ".csv" */
  int64_t row;             /* 1-based record in it */
  char label[160];         /* validate's run label */
  char model[64];          /* model name */
  char gpu[32];            /* GPU preset */
  struct pl_layout layout; /* as validate resolved it */
  double measured_step_time_s, predicted_step_time_s;
  double predicted_mfu; /* validate's predicted MFU (pl_step.mfu: PaLM model FLOPs over step x
                           GPUs x the peak of layout.dtype); 0 = unknown */
};
/* Keep the runs of the study's models on its clusters' GPUs at its sequence
 * length, for the figures (docs/study.md, "Published runs"). */
enum pl_status pl_study_add_published(struct pl_study *st, const struct pl_study_published_run *runs,
                                      size_t n, struct pl_diag *diag);

/* A figure's findings: one or two sentences computed from the results. */
struct pl_study_finding {
  char figure[32]; /* figure id: "scaling", "power", ... */
  char text[768];
};
#define PL_STUDY_MAX_FINDINGS 16
/* Fill out[0..max) and return how many; deterministic. */
int pl_study_findings(const struct pl_study *st, struct pl_study_finding *out, int max);

struct pl_study_report_opts {
  const char *gnuplot;           /* binary to run; NULL = "gnuplot" on PATH */
  double elapsed_s;              /* wall time of the run for the report; 0 = not shown */
  int threads;                   /* threads the run used, for the report */
  volatile sig_atomic_t *cancel; /* as in pl_study_opts */
  int png_scale;                 /* PNG pixels per SVG pixel, 1..4 (print: 3); 0 = 1 */
};

struct pl_study_report_info {
  bool figures_drawn; /* gnuplot ran and made every figure */
  int n_figures;      /* figures with data (scripts written) */
  char note[512];     /* why figures are missing and how to get them */
};

/* PL_OK when pl_study_write could replace dir (absent, empty or an earlier
 * report, after symlinks): checked before a study runs, so a bad --out fails
 * in a moment instead of after the whole grid. */
enum pl_status pl_study_out_check(const char *dir, struct pl_diag *diag);

/* Write the report into dir: into a fresh sibling directory first, renamed
 * over dir at the end, so a failure leaves dir as it was. An existing dir is
 * replaced only when it is empty or a previous study report. */
enum pl_status pl_study_write(const struct pl_study *st, const char *dir,
                              const struct pl_study_report_opts *opts,
                              struct pl_study_report_info *info, struct pl_diag *diag);

#endif
