/* sim.h: the step simulator behind pl_predict, opened up for the trace
 * writer, tests and benchmarks.
 *
 * pl_predict (predict.h) lowers one training step into tasks on GPU streams
 * (compute; tp, cp, dp and pp communication) for one representative rank of
 * each pipeline stage and runs them through a discrete-event engine. A
 * pl_timeline keeps those tasks so they can be inspected or written as a
 * Chrome/Perfetto trace. The model behind every number: docs/step-model.md.
 *
 * Ownership: a timeline from pl_timeline_build belongs to the caller and is
 * released with pl_timeline_free; strings in a struct pl_timeline_task borrow
 * from static storage. */
#ifndef PLATEAU_SIM_H
#define PLATEAU_SIM_H

#include "coll.h"
#include "flops.h"
#include "hw.h"
#include "layout.h"
#include "model.h"
#include "predict.h"
#include "status.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pl_pass { PL_PASS_FWD, PL_PASS_BWD };

/* Time of one operation of one micro-batch on one GPU at full speed
 * (docs/step-model.md section 2): GEMMs by tile and wave quantization over
 * the SMs at the GPU's measured best GEMM rate, attention by the GPU's
 * FlashAttention efficiency, memory-bound ops by HBM bytes; each kernel adds
 * the GPU's fixed per-kernel cost. The GPU's efficiency data must be loaded. */
double pl_op_time_s(const struct pl_gpu *g, enum pl_dtype dtype, const struct pl_op *op,
                    enum pl_pass pass);
/* The same as the run executes it: l->dtype, and with l->eager_attention the
 * attention core as separate GEMMs and memory-bound softmax (and, when
 * m->dropout, dropout) kernels, as Megatron-LM ran it before FlashAttention;
 * the block's fp8_casts under FP8 current scaling (l->fp8_recipe) at the GPU's
 * efficiency.fp8_current_quantize, which pl_op_time_s cannot tell apart. */
double pl_op_run_time_s(const struct pl_gpu *g, const struct pl_layout *l, const struct pl_model *m,
                        const struct pl_op *op, enum pl_pass pass);
/* With l->fp8_attention: cuDNN's MXFP8 attention time over its BF16 time for m's
 * head shape and the pass (the GPU file's attention.cudnn.mxfp8_time_ratio;
 * latent attention's 192/128 heads or head dims <= 128); 1 when not given. */
double pl_mxfp8_attention_ratio(const struct pl_gpu *g, const struct pl_model *m,
                                enum pl_pass pass);
/* One GEMM (m x k) @ (k x n), repeated count times (a batched GEMM). FP8:
 * with cuBLASLt's default split accumulator (as the GPU file's FP8
 * measurements ran; Transformer Engine's dgrad and wgrad GEMMs). */
double pl_gemm_time_s(const struct pl_gpu *g, enum pl_dtype dtype, int64_t m, int64_t n, int64_t k,
                      int64_t count);
/* The same with FP8 fast accumulation (Transformer Engine's forward GEMM):
 * no gemm.tile_fixed_k_fp8; BF16 as pl_gemm_time_s. */
double pl_gemm_fast_acc_time_s(const struct pl_gpu *g, enum pl_dtype dtype, int64_t m, int64_t n,
                               int64_t k, int64_t count);
/* Kernels one op launches in a pass (a GEMM's backward is dgrad + wgrad). */
int pl_op_kernels(const struct pl_op *op, enum pl_pass pass);
/* The ops the simulator times for one segment of a resolved run (segment 0
 * the embedding, 1 one transformer block, 2 the LM head): pl_embed_ops /
 * pl_layer_ops / pl_head_ops plus the memory-bound kernels the step model
 * adds around them (Megatron's bias-gradient and dropout kernels, unfused
 * element-wise kernels, gradient accumulation and FSDP copies:
 * docs/step-model.md sections 2.3a-2.3c). Returns how many were written. */
int pl_sim_segment_ops(const struct pl_run *run, int segment, struct pl_op ops[PL_MAX_LAYER_OPS]);

/* The streams of one simulated rank, CUDA-stream-like: each runs its tasks
 * one at a time in the order they were issued. */
enum pl_stream {
  PL_STREAM_COMPUTE,
  PL_STREAM_TP,        /* tensor-parallel collectives (blocking) */
  PL_STREAM_CP,        /* context-parallel ring exchange */
  PL_STREAM_DP_GATHER, /* FSDP/ZeRO parameter all_gather */
  PL_STREAM_DP_REDUCE, /* gradient reduce_scatter / all_reduce */
  PL_STREAM_PP_FWD,    /* activations sent to the next stage */
  PL_STREAM_PP_BWD,    /* gradients sent to the previous stage */
  PL_STREAM_N
};
const char *pl_stream_name(enum pl_stream s); /* "compute", "tp", ... */

enum pl_task_kind {
  PL_TASK_FORWARD,
  PL_TASK_BACKWARD, /* includes recomputation of the forward when enabled */
  PL_TASK_OPTIMIZER,
  PL_TASK_COLL
};

/* Which part of a compute segment a task covers. With context parallelism
 * the attention core runs apart so the K/V ring can overlap it. With
 * layout.ep_comm_overlap a block runs as two windows: the ops of Megatron-Core's
 * MoE mlp node (PL_PART_EXPERTS, pl_op_moe_mlp_node) and the others
 * (PL_PART_NON_EXPERTS). With layout.te_linear_bwd_overlap a dense block's
 * backward runs the column-parallel linears' dgrad and wgrad GEMMs as tasks of
 * their own (PL_PART_TE_COLUMN, pl_op_te_column) after the other ops
 * (PL_PART_TE_REST). With the windows, the ops of the MoE combine node
 * (PL_PART_COMBINE, pl_op_moe_combine_node) run as a task of their own after
 * the window of the block's other ops. */
enum pl_task_part {
  PL_PART_ALL,
  PL_PART_MAIN,
  PL_PART_ATTN,
  PL_PART_EXPERTS,
  PL_PART_NON_EXPERTS,
  PL_PART_TE_COLUMN,
  PL_PART_TE_REST,
  PL_PART_COMBINE
};

/* One simulated task. Compute tasks cover consecutive segments of one model
 * chunk for one micro-batch: the embedding (if embed), `layers` transformer
 * blocks starting at layer_first, then the LM head (if head). */
struct pl_timeline_task {
  int64_t stage; /* pipeline stage (simulated rank) */
  enum pl_stream stream;
  enum pl_task_kind kind;
  double start_s;
  double end_s;
  /* compute */
  enum pl_task_part part;
  int64_t micro_batch; /* -1 when none */
  int64_t chunk;       /* model chunk (virtual stage) on this rank */
  int64_t layer_first;
  int64_t layers;
  bool embed;
  bool head;
  bool recompute; /* backward includes recomputation */
  /* collectives: the task stands for colls[0].calls calls of colls[0], then
   * those of colls[1] (a unit's tp all_gathers and reduce_scatters run back
   * to back on one stream and are simulated as one task) */
  struct pl_timeline_coll {
    enum pl_coll_op op;
    const char *group; /* "tp", "cp", "dp", "dp-replica", "pp" */
    int64_t group_ranks;
    double bytes; /* per call, nccl-tests size convention */
    int64_t calls;
    double call_s; /* one call alone */
    enum pl_coll_algo algo;
    enum pl_coll_proto proto;
  } colls[2];
  int n_colls;        /* 0 for compute tasks */
  int64_t peer_stage; /* pp: the receiving stage, else -1 */
};

struct pl_timeline;

/* Predict like pl_predict and keep the simulated timeline. A layout that
 * does not fit is an error here (PL_ERR_LAYOUT naming the memory shortfall):
 * there is no step to show. pred may be NULL. */
enum pl_status pl_timeline_build(const struct pl_run *run, struct pl_timeline **out,
                                 struct pl_prediction *pred, struct pl_diag *diag);
void pl_timeline_free(struct pl_timeline *tl);
size_t pl_timeline_count(const struct pl_timeline *tl);
void pl_timeline_get(const struct pl_timeline *tl, size_t i, struct pl_timeline_task *out);
double pl_timeline_step_s(const struct pl_timeline *tl);
int64_t pl_timeline_stages(const struct pl_timeline *tl);
/* The resolved run the timeline was simulated for. */
const struct pl_run *pl_timeline_run(const struct pl_timeline *tl);
/* Written as a Chrome/Perfetto trace by pl_timeline_write (report.h). */

#endif
