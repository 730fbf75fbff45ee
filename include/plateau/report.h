/* report.h: a prediction as people and programs read it. The JSON object is
 * the same wherever a prediction appears (predict, search results, sweep
 * points, study results), so scripts can rely on one schema. Fields that do
 * not apply (a layout that does not fit has no step time) are null in JSON
 * and empty in CSV, never NaN.
 * Ownership: nothing is retained; FILEs and emitters stay the caller's. */
#ifndef PLATEAU_REPORT_H
#define PLATEAU_REPORT_H

#include <stdio.h>
#include "emit.h"
#include "predict.h"

/* The prediction's members, written into the object the caller has open. */
void pl_report_predict_members(struct pl_emit *e, const struct pl_prediction *p);
/* A whole object: { members }; key as in pl_emit_obj_begin. */
void pl_report_predict_json(struct pl_emit *e, const char *key, const struct pl_prediction *p);
/* A table a person reads in a few seconds. */
void pl_report_predict_text(FILE *out, const struct pl_prediction *p);
/* One header line and one row per prediction; columns are flat JSON paths
 * with dots ("memory.total_bytes"). */
void pl_report_predict_csv_header(FILE *out);
void pl_report_predict_csv_row(FILE *out, const struct pl_prediction *p);

/* Compute per operation of a resolved run (a prediction's run): each op of
 * the embedding, one block and the LM head, timed alone for one micro-batch,
 * and its time per step on one GPU of the stage that runs it (`predict --ops`).
 * JSON: an array of {segment, name, kind, m, n, k, count, fwd_flops,
 * bwd_flops, fwd_bytes, bwd_bytes, recompute, fwd_s, bwd_s, per_step_s}. */
void pl_report_ops_text(FILE *out, const struct pl_run *run);
void pl_report_ops_json(struct pl_emit *e, const char *key, const struct pl_run *run);
/* The same table for a prediction (p->run), with the simulated step's compute
 * set beside the ops' sum (with pp 1 and a simulated step) and the step's
 * parts that are not compute (exposed communication, bubble, optimizer,
 * other). */
void pl_report_predict_ops_text(FILE *out, const struct pl_prediction *p);
/* The kernel categories of `plateau trace analyze` (docs/trace.md 3.5), as
 * predict files its ops under them (its JSON "kernel_time" and the ops'
 * "class"; docs/trace.md 9.4). */
enum pl_kernel_class {
  PL_KC_GEMM,
  PL_KC_ATTENTION,
  PL_KC_ELEMENTWISE,
  PL_KC_REDUCTION,
  PL_KC_OTHER_COMPUTE,
  PL_KC_N
};
enum pl_kernel_class pl_op_kernel_class(const struct pl_op *op);
const char *pl_kernel_class_name(enum pl_kernel_class c); /* "gemm", ... */
/* Compute per step of one GPU by kernel category: the --ops per-step times
 * summed by pl_op_kernel_class, the optimizer step added to elementwise (its
 * multi_tensor_apply kernels are element-wise by the trace's name rule).
 * False (all 0) when no step was simulated or pp > 1 (the embedding and the
 * head run on different GPUs: no sum describes one GPU). */
bool pl_report_kernel_classes(const struct pl_prediction *p, double class_s[PL_KC_N]);
/* A prediction's object (pl_report_predict_json) with its "ops" added. */
void pl_report_predict_ops_json(struct pl_emit *e, const char *key, const struct pl_prediction *p);

struct pl_timeline; /* sim.h */
/* Write the predicted step as a Chrome/Perfetto trace (src/report/timeline.c):
 * a process per stage, a thread per stream, kernels named like real ones,
 * Kineto-style args so a Kineto analyzer can read it back. Written to a
 * temporary name in the same directory, then renamed over path. */
enum pl_status pl_predict_timeline(const struct pl_run *run, const char *path,
                                   struct pl_diag *diag);
enum pl_status pl_timeline_write(const struct pl_timeline *tl, const char *path,
                                 struct pl_diag *diag);

#endif
