/* predict_ops.c: where the compute time comes from, operation by operation
 * (`plateau predict --ops`). Each op of the embedding, one transformer block
 * and the LM head is timed as the simulator times it (pl_op_run_time_s:
 * docs/step-model.md section 2), alone on the GPU at full speed, for one
 * micro-batch; "per step" multiplies by what one GPU of the stage holding the
 * segment runs in a step: the busiest stage's blocks and the pipeline's
 * micro-batches, with the forward run again in backward where recomputed
 * (in the share of the blocks that recompute it: pl_op_recompute_runs, the
 * simulator's average block). The simulated step also slows compute while
 * collectives overlap it and waits on exposed communication, so these
 * per-step figures add up to less than the step: they answer "which kernel
 * dominates", not "how long"; pl_report_predict_ops_text sets the step's
 * compute and the rest of the step beside their sum. With
 * pipeline stages the embedding and the head run on different GPUs, so no
 * sum (nor share of it) describes one GPU and none is printed. */
#include <plateau/report.h>
#include <plateau/sim.h>
#include <plateau/units.h>

#include <string.h>

static const char *const segment_names[] = {"embed", "layer", "head"};

static const char *kind_name(enum pl_op_kind k) {
  return k == PL_OP_GEMM ? "gemm" : k == PL_OP_ATTENTION ? "attention" : "memory";
}

/* The trace's kernel category (docs/trace.md 3.5) the op's kernels fall in:
 * GEMMs "gemm", attention "attention"; memory-bound normalizations and the
 * loss (softmax / cross-entropy kernels), whose kernel names hold "norm",
 * "softmax", "cross_entropy" or "nll_loss", "reduction"; every other
 * memory-bound op (element-wise, copies, casts, index/scatter) "elementwise". */
enum pl_kernel_class pl_op_kernel_class(const struct pl_op *op) {
  static const char *const reductions[] = {"norm1", "norm2", "final_norm", "mla_norms", "loss",
                                           "train_metrics"};
  if (op->kind == PL_OP_GEMM)
    return PL_KC_GEMM;
  if (op->kind == PL_OP_ATTENTION)
    return PL_KC_ATTENTION;
  for (size_t i = 0; op->name != NULL && i < sizeof reductions / sizeof reductions[0]; i++)
    if (strcmp(op->name, reductions[i]) == 0)
      return PL_KC_REDUCTION;
  return PL_KC_ELEMENTWISE;
}

const char *pl_kernel_class_name(enum pl_kernel_class c) {
  static const char *const n[PL_KC_N] = {"gemm", "attention", "elementwise", "reduction",
                                         "other_compute"};
  return (unsigned)c < PL_KC_N ? n[c] : "?";
}

/* One op's figures, as both outputs print them. */
struct op_row {
  int segment;
  struct pl_op op;
  double fwd_s, bwd_s; /* bwd_s includes the recomputed forward */
  double per_step_s;
};

/* Segments one GPU of the busiest stage runs per micro-batch: the embedding
 * and head once each (on the first and last stage), the blocks ceil(L/pp). */
static double per_microbatch(const struct pl_run *run, int segment) {
  if (segment != 1)
    return 1;
  int64_t pp = run->layout.pp > 0 ? run->layout.pp : 1;
  return (double)((run->model.layers + pp - 1) / pp);
}

static int collect(const struct pl_run *run, struct op_row *rows) {
  const struct pl_gpu *g = &run->cluster.gpu;
  double mb = (double)(run->layout.micro_batches > 0 ? run->layout.micro_batches : 1);
  int n = 0;
  for (int seg = 0; seg < 3; seg++) {
    struct pl_op ops[PL_MAX_LAYER_OPS];
    int k = pl_sim_segment_ops(run, seg, ops);
    for (int i = 0; i < k; i++) {
      struct op_row *r = &rows[n++];
      r->segment = seg;
      r->op = ops[i];
      r->fwd_s = pl_op_run_time_s(g, &run->layout, &run->model, &ops[i], PL_PASS_FWD);
      struct pl_op part; /* the whole op, or under recompute ops a fused GEMM's part */
      double runs = pl_op_recompute_runs(&run->model, &run->layout, &ops[i], &part);
      r->bwd_s =
          pl_op_run_time_s(g, &run->layout, &run->model, &ops[i], PL_PASS_BWD) +
          (runs > 0 ? runs * pl_op_run_time_s(g, &run->layout, &run->model, &part, PL_PASS_FWD)
                    : 0);
      double share = ops[i].share > 0 ? ops[i].share : 1.0; /* flops.h: blocks that run it */
      r->per_step_s = (r->fwd_s + r->bwd_s) * per_microbatch(run, seg) * mb * share;
    }
  }
  return n;
}

/* TFLOP/s for math ops, GB/s for memory-bound ones: what bounds each.
 * Causal attention counts the whole s x s square (flops.h) but the kernel
 * skips the masked half (compute.c): the rate shown is of executed FLOPs,
 * comparable with the GPU's peak. */
static void rate(char *buf, size_t len, const struct pl_op *op, double flops, double bytes,
                 double s) {
  if (op->kind == PL_OP_ATTENTION && op->causal && op->n >= op->m)
    flops *= 0.5;
  if (s <= 0)
    snprintf(buf, len, "-");
  else if (op->kind == PL_OP_MEMORY)
    snprintf(buf, len, "%.0f GB/s", bytes / s / 1e9);
  else
    snprintf(buf, len, "%.0f TFLOP/s", flops / s / 1e12);
}

bool pl_report_kernel_classes(const struct pl_prediction *p, double class_s[PL_KC_N]) {
  for (int c = 0; c < PL_KC_N; c++)
    class_s[c] = 0;
  if (!p->step.simulated || p->run.layout.pp > 1)
    return false;
  struct op_row rows[3 * PL_MAX_LAYER_OPS];
  int n = collect(&p->run, rows);
  for (int i = 0; i < n; i++)
    class_s[pl_op_kernel_class(&rows[i].op)] += rows[i].per_step_s;
  /* the optimizer's multi_tensor_apply (foreach / fused AdamW) kernels */
  class_s[PL_KC_ELEMENTWISE] += p->step.optimizer_s;
  return true;
}

/* The table; step (or NULL): the simulated step, to set the sum beside. */
static void ops_text(FILE *out, const struct pl_run *run, const struct pl_step *step) {
  struct op_row rows[3 * PL_MAX_LAYER_OPS];
  int n = collect(run, rows);
  bool one_stage = run->layout.pp <= 1;
  double total = 0;
  for (int i = 0; i < n; i++)
    total += rows[i].per_step_s;
  fprintf(out, "\ncompute per operation (one GPU, one micro-batch, alone at full speed; "
               "per step: %lld blocks x %lld micro-batches)\n",
          (long long)per_microbatch(run, 1), (long long)run->layout.micro_batches);
  double rc = pl_recompute_share(&run->model, &run->layout);
  if (rc > 0 && rc < 1) /* recompute_layers / recompute_every: the average block */
    fprintf(out, "  (recompute full on %lld of a stage's %lld blocks: bwd is the average "
                 "block's, its recomputed forward counted %.3g times)\n",
            (long long)pl_recompute_stage_blocks(&run->model, &run->layout, 0),
            (long long)pl_layout_stage_layers(&run->layout, run->model.layers, 0), rc);
  fprintf(out, "  %-6s %-15s %-9s %-26s %10s %12s %10s %12s %10s %6s\n", "seg", "op", "kind",
          "shape (m x n x k) x count", "fwd", "rate", "bwd", "rate", "per step", "share");
  for (int i = 0; i < n; i++) {
    const struct op_row *r = &rows[i];
    const struct pl_op *op = &r->op;
    char shape[48] = "-", f[32], b[32], fr[32], br[32], st[32];
    if (op->kind != PL_OP_MEMORY)
      snprintf(shape, sizeof shape, "%lld x %lld x %lld x %lld", (long long)op->m,
               (long long)op->n, (long long)op->k, (long long)op->count);
    pl_fmt_seconds(f, sizeof f, r->fwd_s);
    pl_fmt_seconds(b, sizeof b, r->bwd_s);
    pl_fmt_seconds(st, sizeof st, r->per_step_s);
    rate(fr, sizeof fr, op, op->fwd_flops, op->fwd_bytes, r->fwd_s);
    struct pl_op part;
    double runs = pl_op_recompute_runs(&run->model, &run->layout, op, &part);
    double bwd_flops = op->bwd_flops + (runs > 0 ? runs * part.fwd_flops : 0);
    double bwd_bytes = op->bwd_bytes + (runs > 0 ? runs * part.fwd_bytes : 0);
    rate(br, sizeof br, op, bwd_flops, bwd_bytes, r->bwd_s);
    char sh[16] = "-";
    if (one_stage && total > 0)
      snprintf(sh, sizeof sh, "%.1f%%", 100.0 * r->per_step_s / total);
    fprintf(out, "  %-6s %-15s %-9s %-26s %10s %12s %10s %12s %10s %6s\n",
            segment_names[r->segment], op->name, kind_name(op->kind), shape, f, fr, b, br, st, sh);
  }
  char t[32];
  pl_fmt_seconds(t, sizeof t, total);
  if (one_stage)
    fprintf(out, "  %-6s %-15s %s (backward includes the recomputed forward; collectives, "
                 "overlap slowdown and waits excluded)\n",
            "", "sum per step", t);
  else
    fprintf(out, "  (pp > 1: per step on the stage that runs it: the embedding on the first, the "
                 "head on the last; backward includes the recomputed forward)\n");
  if (!one_stage || step == NULL || !step->simulated)
    return;
  /* the step's compute is the compute stream's busy time (src/sim/account.c):
   * these ops, slowed while collectives run beside them (engine.c
   * overlap_slowdown) and waiting on the host where it issues slower than
   * the GPU runs (docs/step-model.md 2.6); the rest of the step is not compute */
  char c[32], d[32], x[32], b[32], o[32], r[32];
  pl_fmt_seconds(c, sizeof c, step->compute_s);
  pl_fmt_seconds(d, sizeof d, step->compute_s - total >= 0 ? step->compute_s - total
                                                            : total - step->compute_s);
  pl_fmt_seconds(x, sizeof x, step->exposed_comm_s);
  pl_fmt_seconds(b, sizeof b, step->bubble_s);
  pl_fmt_seconds(o, sizeof o, step->optimizer_s);
  pl_fmt_seconds(r, sizeof r, step->other_s);
  fprintf(out, "  %-6s %-15s %s = sum %s %s (compute slowed while collectives run beside it, "
               "host-bound issue)\n",
          "", "step's compute", c, step->compute_s >= total ? "+" : "-", d);
  fprintf(out, "  %-6s %-15s exposed communication %s, pipeline bubble %s, optimizer %s, "
               "other %s\n",
          "", "not compute", x, b, o, r);
}

void pl_report_ops_text(FILE *out, const struct pl_run *run) { ops_text(out, run, NULL); }

void pl_report_predict_ops_text(FILE *out, const struct pl_prediction *p) {
  ops_text(out, &p->run, &p->step);
}

void pl_report_ops_json(struct pl_emit *e, const char *key, const struct pl_run *run) {
  struct op_row rows[3 * PL_MAX_LAYER_OPS];
  int n = collect(run, rows);
  pl_emit_arr_begin(e, key);
  for (int i = 0; i < n; i++) {
    const struct op_row *r = &rows[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "segment", segment_names[r->segment]);
    pl_emit_str(e, "name", r->op.name);
    pl_emit_str(e, "kind", kind_name(r->op.kind));
    pl_emit_str(e, "class", pl_kernel_class_name(pl_op_kernel_class(&r->op)));
    pl_emit_int(e, "m", r->op.m);
    pl_emit_int(e, "n", r->op.n);
    pl_emit_int(e, "k", r->op.k);
    pl_emit_int(e, "count", r->op.count);
    pl_emit_num(e, "fwd_flops", r->op.fwd_flops);
    pl_emit_num(e, "bwd_flops", r->op.bwd_flops);
    pl_emit_num(e, "fwd_bytes", r->op.fwd_bytes);
    pl_emit_num(e, "bwd_bytes", r->op.bwd_bytes);
    pl_emit_bool(e, "recompute", r->op.recompute);
    pl_emit_num(e, "fwd_s", r->fwd_s);
    pl_emit_num(e, "bwd_s", r->bwd_s);
    pl_emit_num(e, "per_step_s", r->per_step_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
}
