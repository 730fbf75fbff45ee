/* calib_compute.h: a GPU file's compute efficiencies fitted to the kernels of
 * PyTorch profiler (Kineto) traces recorded with record_shapes=True
 * (`plateau calibrate compute`, docs/ground-truth.md).
 *
 * pl_compute_obs_load reads one trace (plain JSON or gzip), links each GPU
 * kernel to the CPU op that launched it (kernel "correlation" -> runtime
 * call's "External id" -> the cpu_op with that id, the innermost op around
 * the launch) and turns each op instance whose shape it can recover into an
 * observation: a GEMM (aten::mm/addmm/bmm/baddbmm in bf16/fp16,
 * aten::_scaled_mm in fp8) with its m, n, k; a causal attention forward or
 * backward (the flash, cuDNN and efficient SDPA ops) with its executed FLOPs;
 * or a memory-bound op (copy_, add, mul, sub, div, their in-place forms,
 * neg, silu, pow, rsqrt, fill_, zero_) with the least bytes it moves. The
 * measured time of an op is the sum of its kernels' durations. Kernels that
 * link to no op, and ops that are none of the above or lack shapes, are
 * counted per op name, never guessed.
 *
 * pl_calib_compute fits, by least squares on relative time error, the
 * GEMM rate and per-tile fixed cost (gemm.mamf, gemm.tile_fixed_k), the FP8
 * GEMM rate, the attention forward and backward fractions and the HBM
 * fraction, over the base GPU's tile/wave model (src/sim/compute.c), and
 * returns the fitted GPU; pl_calib_compute_save writes it as a GPU file
 * (the base file with those entries replaced, each naming its fit). */
#ifndef PLATEAU_CALIB_COMPUTE_H
#define PLATEAU_CALIB_COMPUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hw.h"
#include "status.h"
#include "trace.h"

#define PL_COMPUTE_MAX_FILE_BYTES (1024u << 20) /* uncompressed trace */
#define PL_COMPUTE_MAX_NAMES 64                 /* distinct unrecovered op names kept */
#define PL_COMPUTE_MIN_MEMORY_BYTES (8.0 * 1048576.0) /* smaller memory-bound ops are launch-bound */

enum pl_compute_kind {
  PL_COMPUTE_GEMM,      /* bf16/fp16 GEMM */
  PL_COMPUTE_GEMM_FP8,  /* aten::_scaled_mm */
  PL_COMPUTE_ATTN_FWD,  /* causal attention forward */
  PL_COMPUTE_ATTN_BWD,  /* causal attention backward */
  PL_COMPUTE_MEMORY,    /* memory-bound, >= PL_COMPUTE_MIN_MEMORY_BYTES */
  PL_COMPUTE_KINDS
};

/* Which part of the step launched an op (PyTorch's own record_function
 * ranges around it on its CPU thread): the autograd engine runs each backward
 * node inside "autograd::engine::evaluate_function: <node>" (torch/csrc/
 * autograd/engine.cpp, Engine::thread_main); Optimizer.step and zero_grad run
 * inside "Optimizer.step#<class>.step" / "Optimizer.zero_grad#<class>.zero_grad"
 * (torch/optim/optimizer.py, profile_hook_step), and foreach / fused
 * optimizer ops (aten::_foreach_*, aten::_fused_adam*: clip_grad_norm_ runs
 * outside the optimizer's range) count there too; everything else is forward. */
enum pl_compute_phase { PL_PHASE_FWD, PL_PHASE_BWD, PL_PHASE_OPT, PL_PHASE_N };

struct pl_compute_obs {
  enum pl_compute_kind kind;
  int64_t m, n, k, count;  /* GEMM: (m x k) @ (k x n), count batched; attention: m = queries,
                              n = keys, k = head dim, count = batch x heads */
  double flops;            /* attention: counted FLOPs (4 b h sq sk d forward, x2.5 backward,
                              src/model/flops.c), before the causal half */
  double bytes;            /* memory-bound: least bytes moved; attention: q/k/v/o bytes */
  double time_s;           /* measured: the op's kernels' durations, summed */
  int kernels;
  enum pl_compute_phase phase;
  char op[48];             /* the ATen op ("aten::mm") */
  double beside_s;         /* of time_s, the part with a collective running on the device */
};

/* An op name whose kernels could not be used, with how many and how long. */
struct pl_compute_skip {
  char name[96];
  char why[48];
  int64_t ops, kernels;
  double time_s;
};

struct pl_compute_trace {
  char origin[256];
  size_t n_obs, cap_obs;
  struct pl_compute_obs *obs;
  int64_t kernels;          /* GPU kernels and memsets in the trace */
  double kernel_s;          /* their total duration */
  int64_t unlinked_kernels; /* no runtime call or op to link to */
  double unlinked_s;
  double phase_s[PL_PHASE_N]; /* linked kernel time by the phase of its op */
  /* GPU idle before an event (kernel, memset, memcpy) launched by an op of
   * that phase, the whole trace, per device: host wait when the launch call
   * started after the device went idle, else queued (docs/trace.md 9.5) */
  double idle_host_s[PL_PHASE_N], idle_queued_s[PL_PHASE_N];
  int64_t steps;            /* distinct "ProfilerStep#N" ranges (0: none) */
  size_t n_skips;           /* distinct (name, why) */
  int64_t skips_dropped;    /* ops beyond PL_COMPUTE_MAX_NAMES distinct names (counted) */
  /* Ops with a kernel that ran beside a collective on its device: not in obs
   * (they are also skips, "ran beside a collective"), kept here with their
   * beside_s for pl_compute_obs_alone (docs/ground-truth.md). */
  struct pl_compute_obs *beside;
  size_t n_beside, cap_beside;
  struct pl_compute_skip skips[PL_COMPUTE_MAX_NAMES];
};

enum pl_status pl_compute_obs_load(const char *path, struct pl_compute_trace **out,
                                   struct pl_diag *diag);
enum pl_status pl_compute_obs_parse(const char *text, size_t len, const char *origin,
                                    struct pl_compute_trace **out, struct pl_diag *diag);
void pl_compute_trace_free(struct pl_compute_trace *t);

/* An op that ran beside a collective, as its kernels would have run alone:
 * the step simulator runs compute at 1/(1 + overlap_slowdown) while a
 * collective runs on its rank (src/sim/engine.c rates_for), so the beside_s
 * part did beside_s / (1 + s) of alone-time. Returns o with time_s reduced by
 * beside_s x s / (1 + s) and beside_s 0. */
struct pl_compute_obs pl_compute_obs_alone(const struct pl_compute_obs *o,
                                           double overlap_slowdown);

/* One fitted parameter: its value before and after, and what it rests on. */
struct pl_compute_param {
  bool fitted;              /* false: no observation, base value kept */
  double before, after;
  int64_t ops, kernels;
  double rms_rel_err;       /* relative time residual over its ops, after the fit */
  double measured_s, predicted_s; /* over its ops, with the fitted file */
};

enum pl_compute_param_id {
  PL_CP_GEMM_RATE,       /* gemm.mamf (as the fitted rate at the file's MAMF shape) */
  PL_CP_GEMM_FIXED_K,    /* gemm.tile_fixed_k */
  PL_CP_GEMM_FP8_RATE,   /* gemm.mamf_fp8 */
  PL_CP_ATTN_FWD,        /* attention.fwd_fraction */
  PL_CP_ATTN_BWD,        /* attention.bwd_fraction */
  PL_CP_HBM,             /* hbm_fraction */
  PL_CP_COUNT
};

struct pl_compute_fit {
  struct pl_compute_param p[PL_CP_COUNT];
  double measured_s;        /* all observations */
  double predicted_base_s;  /* the same ops with the base GPU */
  double predicted_s;       /* with the fitted GPU */
};

/* Fit obs (from one or more traces) starting from base; out is base with the
 * fitted efficiencies (gemm.sustained_fraction becomes 1: the fitted rates
 * are what the kernels ran at; unfitted figures are scaled so their
 * predictions do not move). PL_ERR_RANGE when no observation is usable. */
enum pl_status pl_calib_compute(const struct pl_gpu *base, const struct pl_compute_obs *obs,
                                size_t n_obs, struct pl_gpu *out, struct pl_compute_fit *fit,
                                struct pl_diag *diag);

/* The predicted kernel time of one observation on GPU g (the step model's
 * op time without its per-kernel launch gap, which kernel durations do not
 * include). */
double pl_compute_obs_time_s(const struct pl_gpu *g, const struct pl_compute_obs *o);

/* Write fitted as a GPU file at path (atomically): the base GPU's file
 * (base_name_or_path: preset or file, as pl_gpu_load takes it) with the
 * fitted entries replaced; note names the traces. */
enum pl_status pl_calib_compute_save(const char *base_name_or_path, const struct pl_gpu *fitted,
                                     const struct pl_compute_fit *fit, const char *note,
                                     const char *path, struct pl_diag *diag);

/* ---- a trace's ops against a prediction's (`plateau trace compare`,
 * docs/trace.md 9.5). Each GEMM and attention op of the trace is matched to
 * the prediction's op (predict --ops) of the same shape: a GEMM (M x K) @
 * (K x N) is op (m, n, k)'s forward when {M, N} = {m, n} and K = k, its
 * input gradient when {M, N} = {m, k} and K = n, its weight gradient when
 * {M, N} = {n, k} and K = m (nn.Linear's three GEMMs); attention by queries,
 * keys, head dim and batch x heads. The pass is the op's phase in the trace
 * (pl_compute_phase). The rest of the kernel time is compared per phase:
 * memory-bound and other kernels of the forward and of the backward against
 * predict's memory-bound ops, the optimizer's against its optimizer step.
 * Times are per step: the trace's sums over its ProfilerStep count. */
#define PL_OPCMP_MAX_ROWS 160
#define PL_OPCMP_MAX_UNMATCHED 64

struct pl_opcmp_row {
  char name[48];            /* "layer.qkv", "memory-bound", "optimizer", unmatched: "aten::mm" */
  char pass[16];            /* "fwd", "bwd", "step"; unmatched: the phase */
  char shape[48];           /* "4096 x 3072 x 2048 x 1" or "" */
  char why[72];             /* unmatched: the reason */
  double predicted_s, measured_s; /* per step */
  double calls;             /* measured ops per step */
  /* GEMM rows: FLOPs per step, 2 m n k count per GEMM call, of the trace's
   * matched calls (meas) and of the prediction's (pred: one call forward,
   * two backward, per layer and micro-batch); 0 on other rows. Over the
   * row's time, each side's achieved rate (docs/trace.md 9.5). */
  double meas_flops, pred_flops;
  bool has_pred, has_meas;
};

struct pl_opcmp {
  double steps;             /* the trace's ProfilerStep ranges (1 when it has none) */
  bool steps_known;
  struct pl_opcmp_row rows[PL_OPCMP_MAX_ROWS];
  int n_rows;
  struct pl_opcmp_row unmatched[PL_OPCMP_MAX_UNMATCHED]; /* longest first */
  int n_unmatched;
  int64_t unmatched_dropped; /* distinct unmatched kinds beyond the array */
  /* the trace's GPU idle per step by phase (pl_compute_trace idle_host_s,
   * idle_queued_s over the steps) */
  double idle_host_s[PL_PHASE_N], idle_queued_s[PL_PHASE_N];
};

/* Compare trace t with a prediction's ops (predict --ops --format json) and
 * its optimizer step (has_optimizer false: none known). PL_ERR_RANGE when
 * the prediction has no ops. */
enum pl_status pl_compute_opcmp(const struct pl_compute_trace *t,
                                const struct pl_trace_summary_op *ops, int n_ops,
                                double optimizer_s, bool has_optimizer, struct pl_opcmp *out,
                                struct pl_diag *diag);

#endif
