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

/* A complete description of a training run. */
struct pl_run {
  struct pl_model model;
  struct pl_cluster cluster;
  struct pl_layout layout;   /* as given; pl_predict resolves a copy */
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

struct pl_prediction {
  struct pl_run run;         /* layout resolved */
  int64_t params;
  struct pl_flops flops;
  struct pl_memory memory;
  struct pl_step step;
};

/* Resolve the layout, count FLOPs and memory, and (when it fits) simulate
 * one step. A layout that does not fit is a result (memory.fits false). */
enum pl_status pl_predict(const struct pl_run *run, struct pl_prediction *out,
                          struct pl_diag *diag);

#endif
