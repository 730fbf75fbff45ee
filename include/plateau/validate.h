/* validate.h: `plateau validate`: predict published training runs and compare
 * the prediction with what their sources measured.
 *
 * Input is the CSV layout of data/validation/ (its README.md): common columns
 * describing the run (model dimensions, GPU, layout, batch), then the
 * source's own metric columns. Each record becomes a pl_run; its published
 * metric is converted to a step time with that source's own FLOP convention
 * (docs/accuracy.md, "How each source is read"), and the relative error of
 * the predicted step time is reported. Records that cannot be expressed are
 * kept as skipped rows with the reason; none is dropped.
 *
 * Every error figure is in percent: error = 100 (predicted - measured) /
 * measured (signed); ape = |error|.
 * Ownership: struct pl_validation is caller storage, filled by
 * pl_validation_add_file/_csv and released with pl_validation_free. */
#ifndef PLATEAU_VALIDATE_H
#define PLATEAU_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emit.h"
#include "layout.h"
#include "predict.h"
#include "run_flags.h"
#include "status.h"

/* One published record and its prediction. */
struct pl_vrow {
  char dataset[64];       /* CSV file name without directory and ".csv" */
  int64_t row;            /* 1-based data record in the file (header excluded) */
  int64_t line;           /* file line where the record starts */
  char label[160];        /* "GPT 1.7B, 32 x a100-80g, tp1 pp1 dp32, gbs 512" */
  char model[64];         /* the model's name (when predicted) */
  char source[16];        /* how the row was read: "sc21", "llmfoundry" ("" = unknown) */
  char publication[256];  /* the record's 'source' cell: the publication or benchmark round it
                             comes from (weak-scaling pairs stay inside one) */
  char framework[32];     /* the framework the run used: "megatron-lm", "nemo" ("" = unknown) */
  char architecture[200]; /* the model family assumed for the row's source */
  char gpu[32];           /* GPU preset used */
  char cluster[64];       /* cluster preset used */
  char quantity[32];      /* what predicted and measured are: "step_time_s" */
  char metric[160];       /* the published column read and its conversion */
  double published;       /* that column's value as printed ("44%" -> 44) */
  double measured;        /* published value converted to quantity */
  double predicted;       /* plateau's prediction of quantity */
  double error;           /* percent, signed: 100 (predicted - measured) / measured */
  bool published_rate;    /* the published column is a rate (tokens/s, FLOP/s): measured is
                             a constant over it, so its error differs from the step's */
  double published_error; /* percent, signed, on the published column as printed: for a
                             rate 100 (measured / predicted - 1) (predicted rate over
                             published), else error */
  bool skipped;           /* no prediction: skipped_reason says why */
  char skipped_reason[320];
  char assumed[1024];      /* fields this row did not state and how they were filled */
  struct pl_layout layout; /* resolved layout (when predicted) */
  double mfu;              /* predicted MFU (PaLM convention), for diagnosis */
  double compute_s;        /* predicted step breakdown, for diagnosis */
  double exposed_comm_s;
  double bubble_s;
  double optimizer_s;
  double other_s;
  char command[4096];      /* the `plateau predict` command line that reproduces the prediction
                              (src/validate/command.c; "" when skipped) */
};

/* What a validation compares (`validate --quantity`): the step time (seconds
 * per optimizer step, every source), or the peak memory per GPU (bytes) where
 * a source publishes one (validate_source.memory): plateau's total of
 * pl_memory (busiest stage, with its buffers and framework allowance) against
 * the published figure, whose definition the row's metric states. Under
 * memory a row is compared whether or not plateau predicts that it fits. */
enum pl_vquantity { PL_VQUANTITY_STEP, PL_VQUANTITY_MEMORY };
const char *pl_vquantity_name(enum pl_vquantity q); /* "step", "memory" */
/* The row's quantity key: "step_time_s", "peak_memory_bytes". */
const char *pl_vquantity_key(enum pl_vquantity q);
enum pl_status pl_vquantity_parse(const char *s, enum pl_vquantity *out, struct pl_diag *diag);

/* Accuracy over a set of rows (one dataset, or all of them). */
struct pl_vsummary {
  char name[64];          /* dataset name, "all" for the overall summary */
  int64_t rows;           /* records read */
  int64_t predicted;      /* rows with a prediction */
  int64_t skipped;        /* rows - predicted */
  double mape;            /* mean |error| over predicted rows, percent (0 when none) */
  double median_ape;      /* median |error|, percent */
  double max_ape;         /* worst |error|, percent */
  double bias;            /* mean signed error, percent: < 0 = predicted too fast */
  double published_mape;  /* mean |published_error| (the error on the column as published:
                             tokens/s, FLOP/s or time), percent */
  double published_bias;  /* its mean signed error, percent: > 0 = predicted rate too high */
  int64_t worst_row;      /* its row number in its dataset, 0 when none */
  char worst_dataset[64]; /* its dataset (differs per row only in "all") */
};

/* The hardware what-if of `validate` (--cluster, --gpu, predict's hardware
 * flags, --nccl-version): every row runs on it instead of the presets its
 * source names, so that a user checks their runs against their own
 * calibrated machine (the files of calibrate nccl / calibrate compute).
 * --cluster replaces the cluster preset the row would load (its GPU must be
 * the row's), --gpu the GPU figures of rows on that GPU (a calibrated file
 * keeps its base preset's name); a row on another GPU is skipped with the
 * reason. The row's own hardware edits (its source's, its hardware_flags)
 * apply on top, then the flags given here. Set with
 * pl_validation_set_hardware before adding files; zeroed = none. */
#define PL_VHW_MAX_FLAGS 16
struct pl_vhardware {
  char cluster_arg[1024]; /* the cluster preset or file given; "" = each row's */
  char gpu_arg[1024];     /* the GPU preset or file given; "" = each row's */
  struct pl_cluster cluster; /* cluster_arg loaded (its own GPU) */
  struct pl_gpu gpu;         /* gpu_arg loaded */
  size_t n_flags;            /* hardware flags given (run_flags.h pl_cluster_flag_name), and
                                "nccl-version" */
  char flag_name[PL_VHW_MAX_FLAGS][24];
  char flag_value[PL_VHW_MAX_FLAGS][128];
};

struct pl_validation {
  struct pl_vrow *rows; /* in file order, files in the order added */
  size_t n_rows;
  size_t cap_rows;
  struct pl_vsummary *sets; /* one per file added */
  size_t n_sets;
  size_t cap_sets;
  struct pl_vsummary overall;
  struct pl_framework framework; /* set before adding files: replaces every row's own
                                    behaviours (validate --framework); zeroed = none */
  enum pl_vquantity quantity;    /* set before adding files: what is compared
                                    (validate --quantity); zeroed = step time */
  struct pl_vhardware hardware;  /* set before adding files (pl_validation_set_hardware):
                                    validate's hardware what-if; zeroed = none */
};

/* Read validate's hardware what-if from get (the names "cluster", "gpu",
 * each pl_cluster_flag_name and "nccl-version"; get as run_flags.h) into
 * v->hardware: the cluster and GPU loaded, each flag's value checked on that
 * cluster (without --cluster, a value that only some machines refuse, as
 * --sharp on off InfiniBand, is left to each row, which is skipped with the
 * reason). Fails with a one-line diag ("--power-cap: ...") on a preset or
 * file that does not load or a value no machine takes. *any says whether
 * anything was given. */
enum pl_status pl_validation_set_hardware(struct pl_validation *v, pl_flag_get_fn get, void *ctx,
                                          bool *any, struct pl_diag *diag);

void pl_validation_init(struct pl_validation *v);
void pl_validation_free(struct pl_validation *v);

/* Read one validation CSV (RFC 4180), predict every record, append the rows
 * and a summary named after the file. Fails only on an unreadable or
 * malformed file (message with file and line); a record that cannot be
 * expressed becomes a skipped row. */
enum pl_status pl_validation_add_file(struct pl_validation *v, const char *path,
                                      struct pl_diag *diag);
/* Same from text in memory; name is the dataset name. */
enum pl_status pl_validation_add_csv(struct pl_validation *v, const char *name, const char *text,
                                     size_t len, struct pl_diag *diag);

/* One record (row, 1-based as in the reports) of one validation CSV,
 * predicted as pl_validation_add_file predicts it; pred keeps the whole
 * prediction (valid when !out->skipped). Fails on an unreadable or
 * malformed file or a row out of range. */
enum pl_status pl_validation_explain(const char *path, int64_t row, struct pl_vrow *out,
                                     struct pl_prediction *pred, struct pl_diag *diag);

/* Summary of a set of rows (used for each dataset and for "all"); fails
 * only when the median's scratch array cannot be allocated. */
enum pl_status pl_validation_summarize(const struct pl_vrow *rows, size_t n, const char *name,
                                       struct pl_vsummary *out, struct pl_diag *diag);

/* The summary grouped another way (`validate --by`): per dataset, per GPU
 * preset, per framework the runs used, or per precision. A row that was not
 * read far enough to know its key (an unknown source, a malformed cell) is
 * in the group "unknown". Groups come in the order their first row appears. */
enum pl_vgroup { PL_VGROUP_DATASET, PL_VGROUP_GPU, PL_VGROUP_FRAMEWORK, PL_VGROUP_DTYPE };
const char *pl_vgroup_name(enum pl_vgroup g); /* "dataset", "gpu", "framework", "dtype" */
enum pl_status pl_vgroup_parse(const char *s, enum pl_vgroup *out, struct pl_diag *diag);
struct pl_vgroups {
  enum pl_vgroup by;
  struct pl_vsummary *groups; /* name = the group's key; worst_dataset set */
  size_t n;
};
/* Fills out (released with pl_vgroups_free); fails only when memory runs out. */
enum pl_status pl_validation_group(const struct pl_validation *v, enum pl_vgroup by,
                                   struct pl_vgroups *out, struct pl_diag *diag);
void pl_vgroups_free(struct pl_vgroups *g);

/* Regression guard (docs/accuracy.md, "Regression guard"). A baseline file
 * records each dataset's mean error and predicted-row count. A dataset fails
 * when its mape exceeds the baseline's by more than tolerance_pct percentage
 * points, when fewer of its rows are predicted than in the baseline (a row
 * turned into a skip would otherwise hide a regression), or when it is in
 * the baseline but was not validated. When the file has a "scaling" entry,
 * the weak-scaling pairs (pl_validation_scaling) fail the same way: mean
 * |gap| beyond its baseline by more than the tolerance, or pairs lost
 * (finding dataset "scaling"). */
#define PL_VALIDATE_MAX_FINDINGS 64
struct pl_vfinding {
  char dataset[64];
  bool failed;   /* false: informational (improved, new dataset) */
  char msg[256]; /* one line: "mape 9.41% > baseline 7.20% + 1.00 pp" */
};
struct pl_vcheck {
  double tolerance_pct; /* percentage points, from the file (default 1) */
  struct pl_vfinding findings[PL_VALIDATE_MAX_FINDINGS];
  int n_findings;
  int n_failed;
};
enum pl_status pl_validation_check_baseline(const struct pl_validation *v, const char *path,
                                            struct pl_vcheck *out, struct pl_diag *diag);
/* Write the baseline for v's datasets (a temporary beside path, then rename: pl_outfile); command
 * (may be NULL) is stored to say how it was produced. */
enum pl_status pl_validation_write_baseline(const struct pl_validation *v, const char *path,
                                            const char *command, struct pl_diag *diag);

/* Weak scaling as published. The predicted rows of one dataset that run the
 * same model on the same GPU and cluster with the same layout shape (tp, pp,
 * cp, vp, sharding, schedule, precision, recompute) and the same work per
 * GPU (sequence, micro-batch, micro-batches per step) at different GPU
 * counts form a series. Each row above its series' smallest GPU count gives
 * one pair: per-GPU throughput (gbs x seq / (gpus x step)) relative to that
 * smallest count, as measured and as predicted. This is the study's question
 * (how per-GPU throughput falls as GPUs are added) asked of published runs. */
struct pl_vscaling {
  char dataset[64];
  char series[200];     /* "MPT-1b, h100, bf16, none, seq 2048, mbs 12 x 1 per step" */
  int64_t base_row;     /* the series' row at its smallest GPU count */
  int64_t row;
  int64_t base_gpus;
  int64_t gpus;
  double measured_eff;  /* per-GPU throughput at gpus / at base_gpus, as published */
  double predicted_eff; /* the same ratio of plateau's predictions */
  double gap_pp;        /* 100 (predicted_eff - measured_eff): > 0 = less loss predicted */
};
struct pl_vscaling_set {
  struct pl_vscaling *pairs; /* by dataset, then series (first row's order), then gpus */
  size_t n;
  double mean_measured_loss_pct;  /* mean of 100 (1 - measured_eff) */
  double mean_predicted_loss_pct; /* mean of 100 (1 - predicted_eff) */
  double mean_abs_gap_pp;         /* mean of 100 |predicted_eff - measured_eff| */
  double median_gap_pp;           /* median of gap_pp (signed; robust to one odd row) */
};
/* Fills out (released with pl_vscaling_free; n = 0 when no dataset has a
 * series); fails only when memory runs out. */
enum pl_status pl_validation_scaling(const struct pl_validation *v, struct pl_vscaling_set *out,
                                     struct pl_diag *diag);
void pl_vscaling_free(struct pl_vscaling_set *s);

/* Reports. Text: per-dataset tables then the summary; rows false prints the
 * summary only. CSV: one line per row. JSON: {"datasets": [...], "overall":
 * {...}, "rows": [...]}. */
void pl_report_validate_text(FILE *out, const struct pl_validation *v, bool rows);
void pl_report_validate_csv(FILE *out, const struct pl_validation *v);
void pl_report_validate_json(struct pl_emit *e, const struct pl_validation *v);
/* Grouped (validate --by): text, the summary table with one line per group
 * and the overall line; CSV, one line per group (by, group, rows, predicted,
 * skipped, mape, median_ape, max_ape, bias, worst_dataset, worst_row); JSON,
 * the object of pl_report_validate_json with "by" and "groups" added. */
void pl_report_validate_groups_text(FILE *out, const struct pl_validation *v,
                                    const struct pl_vgroups *g, bool rows);
void pl_report_validate_groups_csv(FILE *out, const struct pl_vgroups *g);
void pl_report_validate_groups_json(struct pl_emit *e, const struct pl_validation *v,
                                    const struct pl_vgroups *g);
/* One row (validate --explain): text names it and gives measured, predicted,
 * error and assumptions or the skip reason; JSON is the object of "rows". */
void pl_report_validate_row_text(FILE *out, const struct pl_vrow *r);
void pl_report_validate_row_json(struct pl_emit *e, const char *key, const struct pl_vrow *r);
/* The weak-scaling pairs: a text table with a summary line, CSV, or JSON
 * {"scaling": [...], "summary": {...}}. */
void pl_report_scaling_text(FILE *out, const struct pl_vscaling_set *s);
void pl_report_scaling_csv(FILE *out, const struct pl_vscaling_set *s);
void pl_report_scaling_json(struct pl_emit *e, const struct pl_vscaling_set *s);
/* A gnuplot script drawing predicted vs measured step time (log-log, one
 * point type per dataset, y = x and +-20% guides) into svg_path and png_path
 * (either may be NULL). The data are inline, so the script stands alone. */
void pl_report_validate_gnuplot(FILE *out, const struct pl_validation *v, const char *svg_path,
                                const char *png_path);
/* The weak-scaling figure: per-GPU throughput lost, predicted against
 * measured (percent), one point type per dataset, and y = x. */
void pl_report_scaling_gnuplot(FILE *out, const struct pl_vscaling_set *s, const char *svg_path,
                               const char *png_path);

#endif
