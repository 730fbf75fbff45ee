/* predict.h: one training configuration in, its predicted cost out.
 * Ownership: plain values owned by the caller. */
#ifndef PLATEAU_PREDICT_H
#define PLATEAU_PREDICT_H

#include <stdbool.h>
#include <stdint.h>
#include "flops.h"
#include "framework.h"
#include "hw.h"
#include "layout.h"
#include "memory.h"
#include "model.h"
#include "status.h"

/* The largest token budget and prices accepted (docs/limits.md): typo
 * guards, not model constants, five or more orders of magnitude above any
 * real run (Llama 3: about 15e12 tokens, arXiv 2407.21783 section 1;
 * cloud GPU-hours and kWh cost a few USD). What still overflows (absurd
 * hardware figures: a 1e299 s step) pl_predict refuses. */
#define PL_TRAIN_MAX_TOKENS 1e18
#define PL_TRAIN_MAX_USD 1e6

/* What a whole training run is asked to cost (`--tokens`, `--gpu-hour-price`,
 * `--energy-price`); 0 = not given. */
struct pl_train_opts {
  double tokens;             /* tokens to train on */
  double gpu_hour_usd;       /* price of one GPU for one hour */
  double kwh_usd;            /* price of one kWh of the cluster's energy */
};

/* A complete description of a training run. */
struct pl_run {
  struct pl_model model;
  struct pl_cluster cluster;
  struct pl_layout layout;   /* as given; pl_predict resolves a copy */
  struct pl_train_opts train;
  struct pl_framework framework; /* zeroed = none named; pl_predict applies it to the layout */
};

/* One kind of collective of a step, summed over its calls on one rank. */
struct pl_coll_summary {
  char op[24];               /* "all_gather" */
  char group[8];             /* "dp", "tp", "pp", "cp", "dp-replica" */
  int64_t count;             /* calls per step */
  double bytes;              /* per call, nccl-tests size convention */
  double time_s;             /* all calls */
  double exposed_s;          /* of which not hidden behind compute */
};

#define PL_MAX_COLL_SUMMARIES 16

struct pl_step {
  bool simulated;            /* false when the layout does not fit (no step run) */
  double step_time_s;
  double tokens_per_s;
  double tokens_per_s_per_gpu;
  double mfu;                /* model FLOPs / (step time * gpus * peak) */
  double hfu;                /* hardware FLOPs (recompute included) / same */
  double tflops_per_gpu;     /* model FLOP/s per GPU / 1e12 */
  /* compute + exposed_comm + bubble + optimizer + other = step_time_s */
  double compute_s;
  double exposed_comm_s;
  double bubble_s;
  double optimizer_s;
  double other_s;
  double overlapped_comm_s;  /* communication hidden behind compute */
  struct pl_coll_summary collectives[PL_MAX_COLL_SUMMARIES];
  int n_collectives;
  double gpu_w;              /* mean draw per GPU over the step */
  double cluster_w;          /* GPUs + node power beyond them */
  double energy_per_step_j;
  double tokens_per_j;
};

/* Time and cost of training run.train.tokens tokens at the predicted step
 * (docs/model.md "Time and cost to train"). Quantities whose input was not
 * given are 0 with their has_ flag false. */
struct pl_train {
  bool requested;            /* any of tokens, gpu_hour_usd, kwh_usd was given */
  bool has_tokens;           /* time, steps, GPU-hours, energy (and costs) for the tokens */
  bool has_gpu_price;        /* cost_usd (with tokens) and usd_per_mtok */
  bool has_energy_price;     /* energy_cost_usd (with tokens) and energy_usd_per_mtok */
  double steps;              /* ceil(tokens / tokens per step): whole optimizer steps */
  double time_s;             /* steps * step time (wall clock, no restarts or evaluation) */
  double days;               /* time_s / 86400 */
  double gpu_hours;          /* gpus * time_s / 3600 */
  double cost_usd;           /* gpu_hours * gpu_hour_usd */
  double energy_j;           /* steps * energy per step (GPUs and their nodes) */
  double energy_kwh;         /* energy_j / 3.6e6 */
  double energy_cost_usd;    /* energy_kwh * kwh_usd */
  double usd_per_mtok;       /* GPU cost of one million tokens */
  double energy_usd_per_mtok;/* energy cost of one million tokens */
};

struct pl_prediction {
  struct pl_run run;         /* layout resolved */
  struct pl_train train;     /* filled when run.train asks and a step was simulated */
  int64_t params;
  int64_t active_params;    /* parameters one token uses (MoE: top_k experts); = params when dense */
  struct pl_flops flops;
  struct pl_memory memory;
  struct pl_step step;
};

/* Resolve the layout, count FLOPs and memory, and (when it fits) simulate
 * one step. A layout that does not fit is a result (memory.fits false). */
enum pl_status pl_predict(const struct pl_run *run, struct pl_prediction *out,
                          struct pl_diag *diag);

/* Time and cost of training from a simulated step (p->step) and
 * p->run.train; out is cleared when nothing was asked or no step was run. */
void pl_train_compute(const struct pl_prediction *p, struct pl_train *out);

#endif
