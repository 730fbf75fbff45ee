/* memory.c: bytes per GPU during a training step, for the busiest pipeline
 * stage. Derivations: docs/model.md "Memory". This file holds the stage's
 * activations in flight, its buffers and allowance, and the result; the model
 * states are memory_states.c's (model_mem_states), one block's activations
 * memory_act.c's (model_mem_layer_act); memory_int.h holds what they share.
 *
 * Model states: mixed-precision AdamW as Megatron-LM keeps it with bf16
 * (docs/source/api-guide/dist_optimizer.md, "bf16 param, fp32 grads": 18 B
 * per parameter, 6 + 12/d with the distributed optimizer): bf16 parameters
 * 2 B, fp32 main gradients 4 B, fp32 master weights + Adam m + v 12 B. ZeRO
 * shards them over shard_group * cp GPUs (context-parallel ranks hold the same
 * weights; Megatron and torchtitan shard over dp x cp): zero1 the optimizer
 * states, zero2 also the gradients, zero3 also the parameters; ddp none.
 *
 * Activations: Korthikanti et al. 2022 Table 2 per block, generalised
 * (pl_memory_layer_activation_bytes), times the micro-batches a stage holds
 * at its peak: 1f1b stage i holds min(pp - i, m); interleaved rank i holds
 * min(2 (pp - i - 1) + (v - 1) pp + 1, m v) chunk-micro-batches of 1/v of its
 * blocks (Megatron's warm-up count; rank 0 gives Korthikanti Sec. 4.2.3's
 * p (1 + (p - 1)/(p v))); gpipe holds all m; pp = 1 holds one.
 * First stage adds the embedding dropout mask; last stage the final-norm and
 * LM-head inputs and the fp32 logits (Korthikanti Sec. 4.3), 16-bit ones
 * under Transformer Engine's fused cross-entropy (layout.te_cross_entropy). Full recompute
 * adds the working set of one re-run block, selective the re-run scores, ops
 * (torchtitan per-op SAC) what its saved tensors lack of a whole block; a
 * micro-batch's head and its re-run block are freed and made in turn, so the
 * last stage holds the larger of the two.
 *
 * Other: FSDP/ZeRO unsharded units (zero3: the current and the prefetched
 * unit's bf16 parameters plus one unit's fp32 gradients; Megatron FSDP's
 * block units with the modules outside them kept gathered,
 * layout.fsdp_block_units; DeepSpeed 2021's
 * per-module fetch instead with layout.zero3_list_copy_s,
 * memory_states.c deepspeed_working_elems; zero2: one unit's
 * fp32 gradients before its reduce-scatter; with pp > 1 and
 * layout.fsdp_pp_unsharded the whole stage's bf16 parameters and fp32
 * gradients), the SP all-gather buffer, the
 * pipeline send/recv buffers, ring-attention K/V buffers, the stage outputs
 * torch.distributed.pipelining keeps to the step's end (layout.pp_keep_outputs,
 * counted with the activations: kept_outputs), and an allowance
 * for the framework: 1 GiB fixed (CUDA context, cuBLAS workspaces, NCCL
 * buffers) plus 5% of everything else for caching-allocator fragmentation.
 * Both allowance numbers are assumptions, not measurements.
 * Under FP8/MXFP8/NVFP4 the GEMMs' saved inputs are Transformer Engine's
 * quantized copies (model_mem_layer_act).
 * Transformer Engine FP8 parameters (Megatron FSDP fp8_param_gather,
 * pl_layout_te_fp8_params) keep the blocks' GEMM weights at 1 B, sharded
 * and gathered.
 * The first block in its backward adds the larger of its MLP's (fc2 input
 * gradient, model_mem_mlp_bwd_extra) and eager attention's (score gradient,
 * model_mem_eager_attention_bwd_extra) activation gradients.
 * Ignored: optimizer-step temporaries, the other activation-gradient buffers
 * (hidden width; MoE and hybrid blocks), fp8 weight copies. */
#include <plateau/flops.h>
#include <plateau/memory.h>

#include <stdio.h>
#include <string.h>

#include "model/constants.h"
#include "model/memory_int.h"

#define FP32_LOGIT_BYTES 4.0 /* logits upcast for the loss (Korthikanti Sec. 4.3) */
/* layout.te_cross_entropy: TE's fused cross-entropy keeps the 16-bit logits
 * (its gradient written into them in place) instead of an fp32 copy */
#define TE_XENT_LOGIT_BYTES 2.0
/* layout.eager_xent: PyTorch's eager F.cross_entropy(logits.float()) holds,
 * at log_softmax's backward, its saved fp32 output, nll_loss's dense fp32
 * gradient (zeros_like + scatter) and the fp32 input gradient that
 * _log_softmax_backward_data allocates: 12 B per logit, 8 B above the 4 B
 * kept from the forward (PyTorch tools/autograd/derivatives.yaml
 * _log_softmax: result saved; aten/src/ATen/native/cuda/SoftMax.cu
 * log_softmax_backward_cuda_out; torchtitan 9dec370 train.py loss_fn, whose
 * compile is commented out, and `del pred` before backward). */
#define EAGER_XENT_BWD_EXTRA_BYTES 8.0
/* layout.eager_xent with tp > 1: the logits are vocab-sharded, which eager
 * F.cross_entropy accepts only under PyTorch's loss_parallel context (DTensor
 * custom handlers; torchtitan 9dec370 enters it whenever tp > 1 unless
 * training.disable_loss_parallel: utils.py get_train_context,
 * parallel_dims.py loss_parallel_enabled). Its fused backward,
 * torch/distributed/tensor/parallel/loss.py _nll_loss_and_log_softmax_backward
 * (the same in its first form, with torch.distributed._tensor imports, and
 * at pytorch main 02eef6b), computes
 * (grad_input + torch.exp(x)) * grad_output with grad_input = zeros_like(x)
 * while the saved fp32 log_softmax output x is alive: x, grad_input, exp(x)
 * and the sum, then x, grad_input, the sum and the product, 4 fp32 tensors,
 * 16 B per logit, 12 B above the 4 B kept from the forward (the forward's
 * _log_softmax holds the bf16 logits, the fp32 copy, shifted and exp(shifted)
 * or the result: 14 B, less). */
#define LOSS_PARALLEL_XENT_BWD_EXTRA_BYTES 12.0
#define FRAMEWORK_FIXED_BYTES (1024.0 * 1024.0 * 1024.0) /* assumption */
#define FRAGMENTATION 0.05                               /* assumption */

/* ------------------------------------------------------------------ */
/* One stage                                                           */

/* Micro-batches (in whole-stage units) whose activations stage i holds. */
static double in_flight(const struct pl_layout *l, int64_t i) {
  int64_t pp = deg(l->pp), mb = deg(l->micro_batches), v = deg(l->vp);
  if (pp == 1)
    return 1.0;
  switch (l->schedule) {
  case PL_SCHEDULE_GPIPE: return (double)mb;
  case PL_SCHEDULE_INTERLEAVED: {
    int64_t chunks = 2 * (pp - i - 1) + (v - 1) * pp + 1;
    return (double)(chunks < mb * v ? chunks : mb * v) / (double)v;
  }
  case PL_SCHEDULE_1F1B:
  default: return (double)(pp - i < mb ? pp - i : mb);
  }
}

/* The checkpointed groups of stage i under the uniform method: each chunk's
 * blocks in groups of N = recompute_layers (1 when 0), the last one shorter
 * when N does not divide them; *widest the largest group. */
static int64_t uniform_groups(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                              int64_t *widest) {
  int64_t pp = deg(l->pp), n = l->recompute_layers > 0 ? l->recompute_layers : 1, groups = 0;
  *widest = 0;
  for (int64_t c = 0; c < deg(l->vp); c++) {
    int64_t chunk = pl_layout_chunk_layers(l, m->layers, c * pp + i, NULL);
    groups += (chunk + n - 1) / n;
    int64_t w = chunk < n ? chunk : n;
    *widest = w > *widest ? w : *widest;
  }
  if (*widest < 1)
    *widest = 1;
  return groups;
}

static void activations(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                        struct stage *s) {
  int64_t pp = deg(l->pp), tp = deg(l->tp);
  double sb = local_tokens(m, l), h = (double)m->hidden;
  double rep_div = sp_div(l);
  s->in_flight = in_flight(l, i);
  s->layer_act = model_mem_layer_act(m, l, l->recompute);
  s->act_b = s->in_flight * (double)s->layers * s->layer_act;
  int64_t rerun_blocks = 1; /* blocks whose activations a backward re-creates at once */
  if (l->recompute == PL_RECOMPUTE_FULL && l->recompute_uniform) {
    /* Megatron-Core --recompute-method uniform (TransformerBlock._checkpointed_forward):
     * a chunk's blocks checkpointed in groups of N at the group's input; a
     * group's backward re-runs its N blocks together */
    int64_t groups = uniform_groups(m, l, i, &rerun_blocks);
    s->act_b = s->in_flight * (double)groups * s->layer_act;
    s->layer_act = s->layers > 0 ? s->act_b / (s->in_flight * (double)s->layers) : s->layer_act;
  } else if (l->recompute == PL_RECOMPUTE_FULL &&
             (l->recompute_layers > 0 || l->recompute_every > 0)) {
    /* the blocks not recomputed keep all their activations (flops.h,
     * pl_recompute_stage_blocks); the layer figure is their average */
    int64_t rc = pl_recompute_stage_blocks(m, l, i);
    double kept = model_mem_layer_act(m, l, PL_RECOMPUTE_NONE);
    s->act_b = s->in_flight * ((double)rc * s->layer_act + (double)(s->layers - rc) * kept);
    s->layer_act = s->layers > 0 ? s->act_b / (s->in_flight * (double)s->layers) : s->layer_act;
  }
  if (l->act_offload_layers > 0) {
    /* Megatron-Core cpu_offloading (layout.act_offload_layers; pp 1, no
     * recompute, so every block saves model_mem_layer_act): Transformer Engine copies
     * the saved activations of the first N blocks to the host and frees them
     * before the forward's end, and reloads them during the backward after
     * the blocks above have freed theirs: "activation memory usage is equal
     * to (num_layers - num_offloaded_layers) * T" (TE 2.10-2.14
     * transformer_engine/pytorch/cpu_offload.py get_cpu_offload_context,
     * DefaultOffloadSynchronizer; TE 2.9's AsyncDoubleBufferGroupOffloadHandler
     * has the same peak: a block's copy is awaited one block later, and the
     * peak is the end of the forward) */
    int64_t off = l->act_offload_layers < s->layers ? l->act_offload_layers : s->layers - 1;
    if (off > 0)
      s->act_b -= s->in_flight * (double)off * s->layer_act;
  }
  if (l->offload_modules != 0 && l->recompute != PL_RECOMPUTE_FULL &&
      l->recompute != PL_RECOMPUTE_OPS) {
    /* fine-grained offloading (layout.offload_modules): one MoE block's
     * offloaded groups stay on the GPU, the last group of a chunk whose
     * backward comes next (ChunkOffloadHandler.should_bulk_offload) or the
     * group reloaded one ahead in the backward (bulk_reload) */
    double e, mlp;
    model_mem_saved_gemm_bytes(m, l, &e, &mlp);
    s->act_b += model_mem_offload_moe_block(m, l, local_tokens(m, l), e, mlp);
  }
  if (i == 0 && m->dropout) /* embedding dropout mask, 1 B per element */
    s->act_b += s->in_flight * sb * h / rep_div;
  s->logits = 0.0;
  double head1_b = 0.0, held = 1.0, rerun_b = 0.0, xent_x = 0.0; /* one micro-batch's head; the re-run block */
  if (i == pp - 1) {
    held = l->schedule == PL_SCHEDULE_GPIPE && pp > 1 ? (double)deg(l->micro_batches) : 1.0;
    double logit_b = l->te_cross_entropy ? TE_XENT_LOGIT_BYTES : FP32_LOGIT_BYTES;
    s->logits = held * logit_b * sb * (double)((m->vocab + tp - 1) / tp);
    /* final-norm input; LM head input, gathered whole under DTensor SP
     * (tp_gathered_inputs_saved: the output layer is a 16-bit
     * ColwiseParallel, torchtitan's Float8 conversion skips it) */
    double head_in = tp_gathered_inputs_saved(l) ? 2.0 * sb * h : 2.0 * sb * h / rep_div;
    head1_b = 2.0 * sb * h / rep_div + head_in + s->logits / held;
    if (l->eager_xent && !l->te_cross_entropy) /* one micro-batch at its loss's backward */
      xent_x = (tp > 1 ? LOSS_PARALLEL_XENT_BWD_EXTRA_BYTES : EAGER_XENT_BWD_EXTRA_BYTES) * sb *
               (double)((m->vocab + tp - 1) / tp);
  }
  if (l->recompute != PL_RECOMPUTE_NONE) { /* the block being re-run */
    double rerun =
        model_mem_layer_act(m, l, PL_RECOMPUTE_NONE) -
        (l->recompute == PL_RECOMPUTE_FULL ? 0.0 : model_mem_layer_act(m, l, l->recompute));
    rerun_b = (double)rerun_blocks * (rerun > 0.0 ? rerun : 0.0); /* ops, tp >= 16: can be < 0 */
  }
  /* the first block in its backward (re-run or not) holds on top the larger
   * of its MLP's and its core attention's working set (eager attention's
   * score gradients, or the all-gather CP's gathered K/V and fp32
   * gradients; two moments of its backward); the head is freed by then */
  double att_x = model_mem_eager_attention_bwd_extra(m, l),
         mlp_x = model_mem_mlp_bwd_extra(m, l, rerun_b),
         cp_x = model_mem_cp_allgather_bwd_extra(m, l);
  att_x = cp_x > att_x ? cp_x : att_x; /* both at the core attention's backward */
  rerun_b += att_x > mlp_x ? att_x : mlp_x;
  /* A micro-batch's head and its re-run block are never held together: its
   * backward runs the loss, LM head and final norm first, and the autograd
   * engine frees each node's saved tensors once the node has run (Megatron-LM
   * schedules.py backward_step: one torch.autograd.backward from the loss; the
   * cross entropy's saved softmax, tensor_parallel/cross_entropy.py
   * _VocabParallelCrossEntropy, goes with its node); only then does the last
   * checkpointed block reach CheckpointFunction.backward (tensor_parallel/
   * random.py) and re-run. The other held micro-batches' heads (gpipe) stay. */
  s->act_b += (held - 1.0) * head1_b + (head1_b + xent_x > rerun_b ? head1_b + xent_x : rerun_b);
}

/* layout.pp_keep_outputs: what rank i's pipeline stages keep of their
 * outputs until the step ends. torch.distributed.pipelining before PyTorch PR
 * #153383 (merged 2025-05-13; so at torch 1963fc8, 2024-12-23, torchtitan's
 * end-2024 benchmarks) appended every micro-batch's stage output to
 * output_chunks in _PipelineStageBase.forward_one_chunk (stage.py: "Prepare
 * for final output merge or reduction", read by get_fwd_send_ops for the
 * send), on every stage, and only clear_runtime_states at the next step's
 * start clears it; since #138504 (Oct 2024) the last stage detaches them
 * after its backward, which frees their autograd graph but not the tensors
 * (PyTorch issue #159251 describes the same on the last stage after #153383).
 * So each virtual stage holds all m micro-batches' outputs once its last
 * forward has run: the hidden states it sends, 2 B x tokens x h (/ tp under
 * sequence parallelism: the stage's last block ends sequence-sharded), and
 * on the model's last virtual stage the 16-bit logits, vocab-sharded over tp
 * (torchtitan's loss_parallel output layer, Shard(-1); model.py returns
 * self.output(h) without an fp32 cast at 9dec370). In 1F1B and interleaved
 * 1F1B a stage's last forward comes before its cooldown, while its steady-state
 * micro-batches are still in flight, so the whole amount adds to the peak. */
static double kept_outputs(const struct pl_model *m, const struct pl_layout *l, int64_t i) {
  int64_t pp = deg(l->pp), v = deg(l->vp), tp = deg(l->tp);
  if (!l->pp_keep_outputs || pp == 1)
    return 0.0;
  double sb = local_tokens(m, l), per_mb = 0.0;
  for (int64_t c = 0; c < v; c++)
    per_mb += c * pp + i == pp * v - 1 ? 2.0 * sb * (double)((m->vocab + tp - 1) / tp)
                                       : 2.0 * sb * (double)m->hidden / sp_div(l);
  return (double)deg(l->micro_batches) * per_mb;
}

/* layout.fsdp_pp_unsharded under the interleaved schedule: the bytes by which
 * the stage's unsharded fp32 gradients (GRAD_BYTES x its parameters,
 * model_mem_states) exceed what is live at the stage's peak; subtracted from
 * them. FSDP2 creates a parameter group's unsharded gradient in the group's
 * first post_backward (FSDPParamGroup.post_backward: with reduce_grads off,
 * FSDPParam.to_accumulated_grad_if_needed upcasts the autograd gradient into
 * unsharded_accumulated_grad, reduce dtype fp32) and hands it to
 * foreach_reduce, dropping it, in the post_backward of the backward that
 * syncs (pytorch/pytorch 002a76f torch/distributed/fsdp/_fully_shard/
 * _fsdp_param_group.py); torch.distributed.pipelining syncs only a stage's
 * last backward (stage.py backward_maybe_with_nosync:
 * set_requires_gradient_sync(last_backward)). So rank i's chunk c holds its
 * gradients from its first backward to its last, not through the forward.
 * The interleaved order (Megatron-Core core_v0.19.0 schedules.py
 * get_schedule_table and get_model_chunk_id; torch ScheduleInterleaved1F1B's
 * backward_stage_index, pytorch 00722e6 schedules.py, the same with
 * microbatches_per_round = pp when pp divides m): micro-batches in groups of
 * pp (the last group the rest), chunk-major within a group, backwards in
 * reverse chunk order; warm-up W = min(2 (pp - i - 1) + (v - 1) pp, m v)
 * forwards (in_flight), so before the k-th backward the rank holds min(W + 1,
 * m v - k) chunk-micro-batches. Chunk c's first backward is k = (v - 1 - c) x
 * (first group's size) and its last is in the last group, so at that moment
 * chunks c..v-1 are live unless their last backward has passed (one group:
 * only c). Between two first backwards the held activations and the live
 * gradients only fall, so the peak is at one of them; the gradients of the
 * chunk being back-propagated are counted whole alongside its micro-batch's
 * activations (an upper bound: autograd frees each block's saved tensors as
 * its gradients appear). With one chunk per rank (1f1b, gpipe) the first
 * backward comes at the activation peak and all the stage's gradients are
 * live: nothing changes. The parameters are gathered whole at the peak: by
 * the first backward every chunk has run a forward (W + 1 > (v - 1) pp). */
static double fsdp_pp_grads_not_live(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                                     const struct stage *s) {
  int64_t pp = deg(l->pp), v = deg(l->vp), mb = deg(l->micro_batches);
  if (l->shard < PL_SHARD_ZERO2 || !l->fsdp_pp_unsharded || pp == 1 || v < 2 ||
      l->schedule != PL_SCHEDULE_INTERLEAVED)
    return 0.0;
  int64_t total = mb * v, warm = 2 * (pp - i - 1) + (v - 1) * pp;
  warm = warm < total ? warm : total;
  int64_t first_size = pp < mb ? pp : mb, last_start = pp * ((mb - 1) / pp);
  int64_t last_size = mb - last_start;
  double a = (double)s->layers * s->layer_act / (double)v; /* one chunk-micro-batch */
  double held0 = (double)(warm + 1 < total ? warm + 1 : total), excess = 0.0;
  for (int64_t c = v - 1; c >= 0; c--) {
    int64_t k = (v - 1 - c) * first_size;
    double held = (double)(warm + 1 < total - k ? warm + 1 : total - k), live = 0.0;
    for (int64_t d = c; d < v; d++)
      if (last_start * v + (v - 1 - d) * last_size + last_size - 1 >= k)
        live += GRAD_BYTES * model_mem_chunk_params(m, l, i, d);
    double e = (held - held0) * a + live;
    excess = e > excess ? e : excess;
  }
  double all = GRAD_BYTES * s->params;
  return all > excess ? all - excess : 0.0;
}

/* Context parallelism's exchange buffers (layout.cp_comm; Transformer
 * Engine context_parallel.py, v2.20.0.dev0 @ d0067d0), 16-bit, sb local
 * tokens: p2p (and a2a+p2p's ring) double-buffers the K and V of a chunk;
 * all_gather holds, in the backward, the gathered k_ag and v_ag and the
 * cp-wide dk and dv (AttnFuncWithCPAndKVAllGather.backward), 4 cp K; a2a
 * holds each of Q, K, V its all_to_all input copy and output
 * (flash_attn_a2a_communicate: .contiguous(), torch.empty_like). */
static double cp_buffers(const struct pl_model *m, const struct pl_layout *l, double sb) {
  int64_t cp = deg(l->cp), tp = deg(l->tp);
  if (cp <= 1 || l->cp_allgather) /* the rotater's gathered buffer: model_mem_cp_allgather_bwd_extra */
    return 0.0;
  double kv = sb * (double)(m->kv_heads / tp * m->head_dim); /* elements of K (or V) */
  double q = sb * (double)(m->heads / tp * m->head_dim);
  if (l->cp_comm == PL_CP_ALL_GATHER && !l->cp_allgather)
    return 4.0 * (double)cp * kv * 2.0;
  double b = pl_layout_cp_a2a_ranks(l) > 1 ? 2.0 * (q + 2.0 * kv) * 2.0 : 0.0;
  if (cp / pl_layout_cp_a2a_ranks(l) > 1)
    b += 2.0 * 2.0 * 2.0 * kv;
  return b;
}

static void buffers(const struct pl_model *m, const struct pl_layout *l, struct stage *s) {
  int64_t tp = deg(l->tp);
  double sb = local_tokens(m, l), h = (double)m->hidden;
  double rep_div = sp_div(l);
  s->comm_b = 0.0;
  if (l->sp && tp > 1) /* all-gathered block input before QKV / fc1 */
    s->comm_b += 2.0 * sb * h;
  if (deg(l->pp) > 1) /* one send and one receive buffer */
    s->comm_b += 2.0 * (2.0 * sb * h / rep_div);
  s->comm_b += cp_buffers(m, l, sb);
  double states = s->params_b + s->grads_b + s->optimizer_b + s->act_b + s->unsharded_b + s->comm_b;
  s->framework_b = FRAMEWORK_FIXED_BYTES + FRAGMENTATION * states;
  s->total_b = states + s->framework_b;
}

static void stage_compute(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                          struct stage *s) {
  memset(s, 0, sizeof *s);
  model_mem_states(m, l, i, s);
  activations(m, l, i, s);
  s->unsharded_b -= fsdp_pp_grads_not_live(m, l, i, s);
  s->act_b += kept_outputs(m, l, i);
  buffers(m, l, s);
}

/* GiB with one decimal, none for whole numbers: "91.2 GiB", "80 GiB". */
static void fmt_gib(char *buf, size_t n, double bytes) {
  double gib = bytes / (1024.0 * 1024.0 * 1024.0);
  double tenths = (double)(int64_t)(gib * 10.0 + 0.5);
  if ((int64_t)tenths % 10 == 0)
    snprintf(buf, n, "%.0f GiB", tenths / 10.0);
  else
    snprintf(buf, n, "%.1f GiB", tenths / 10.0);
}

/* "needs 91.2 GiB > 80 GiB (optimizer states 48.0 GiB)": the largest part. */
static void explain(struct pl_memory *out) {
  const struct {
    const char *name;
    double bytes;
  } parts[] = {{"parameters", out->params_bytes},
               {"gradients", out->grads_bytes},
               {"optimizer states", out->optimizer_bytes},
               {"activations", out->activations_bytes},
               {"buffers and framework allowance", out->other_bytes}};
  size_t big = 0;
  for (size_t i = 1; i < sizeof parts / sizeof parts[0]; i++)
    if (parts[i].bytes > parts[big].bytes)
      big = i;
  char need[32], cap[32], part[32];
  fmt_gib(need, sizeof need, out->total_bytes);
  fmt_gib(cap, sizeof cap, out->capacity_bytes);
  fmt_gib(part, sizeof part, parts[big].bytes);
  snprintf(out->why, sizeof out->why, "needs %s > %s (%s %s)", need, cap, parts[big].name, part);
}

static void fill(const struct stage *s, int64_t i, const struct pl_gpu *g, struct pl_memory *out) {
  memset(out, 0, sizeof *out);
  out->params_bytes = s->params_b;
  out->grads_bytes = s->grads_b;
  out->optimizer_bytes = s->optimizer_b;
  out->activations_bytes = s->act_b;
  out->other_bytes = s->unsharded_b + s->comm_b + s->framework_b;
  out->total_bytes = s->total_b;
  out->stage = i;
  out->stage_layers = s->layers;
  out->stage_params = s->params;
  out->in_flight = s->in_flight;
  out->layer_act_bytes = s->layer_act;
  out->logits_bytes = s->logits;
  out->unsharded_bytes = s->unsharded_b;
  out->comm_bytes = s->comm_b;
  out->framework_bytes = s->framework_b;
  out->capacity_bytes = g != NULL ? g->hbm_bytes : 0.0;
  if (out->capacity_bytes <= 0) {
    snprintf(out->why, sizeof out->why, "GPU memory capacity unknown (hbm_bytes is 0)");
    return;
  }
  out->fits = out->total_bytes <= out->capacity_bytes;
  if (!out->fits)
    explain(out);
}

void pl_memory_stage(const struct pl_model *m, const struct pl_layout *l, const struct pl_gpu *g,
                     int64_t stage, struct pl_memory *out) {
  struct stage s;
  int64_t pp = deg(l->pp);
  int64_t i = stage < 0 ? 0 : (stage >= pp ? pp - 1 : stage);
  stage_compute(m, l, i, &s);
  fill(&s, i, g, out);
}

void pl_memory_compute(const struct pl_model *m, const struct pl_layout *l, const struct pl_gpu *g,
                       struct pl_memory *out) {
  struct stage best, s;
  int64_t best_i = 0;
  stage_compute(m, l, 0, &best);
  for (int64_t i = 1; i < deg(l->pp); i++) {
    stage_compute(m, l, i, &s);
    if (s.total_b > best.total_b) {
      best = s;
      best_i = i;
    }
  }
  fill(&best, best_i, g, out);
}
