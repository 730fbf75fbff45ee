/* sources_deepspeed.c: the rules of the Megatron-DeepSpeed sources (table
 * entries in sources.c): mtnlg (Smith et al. 2022, iteration time), bloom
 * (BigScience tr11: iteration time or Megatron-DeepSpeed "TFLOPs"), vtrain
 * (vTrain ground truth, iteration time). Conventions of the sources, not
 * corrections: nothing here looks at a prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/sources_int.h"

/* ---------------------------------------------------------------- MT-NLG */

bool validate_mtnlg_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  recompute_default(in, l, row, "the published TFLOP/s equal eq. 3 with the recompute forward");
  /* MT-NLG's pipeline is DeepSpeed's engine (Smith et al. 2022 Sec. 2.3:
   * Megatron-DeepSpeed, "pipeline parallelism from DeepSpeed"): its blocking
   * one-at-a-time sends and tp-partitioned tensors (layout.p2p_serial;
   * deepspeed/runtime/pipe/engine.py is_pipe_partitioned = is_model_parallel
   * since 2020), not the 2022 `deepspeed` preset: its BF16_Optimizer (DeepSpeed
   * #1801, 56c52238, 2022-04-19) postdates MT-NLG (announced 2021-10-11), whose
   * bf16 + pipeline path was never public (not in v0.5.x nor in the
   * megatron2.4-3d / big-science branches of 2021: docs/accuracy.md, Session
   * 22 old22 and Session 23 old23), so its gradient path stays the source's
   * default (grad_reduce_after_backward in sources.c) */
  l->p2p_serial = true;
  /* and Megatron-DeepSpeed's GPT loss, which the deepspeed preset sets for the
   * other Megatron-DeepSpeed sources: vocab_parallel_cross_entropy(output.float(),
   * labels) in megatron/model/gpt_model.py post_language_model_processing
   * (microsoft/Megatron-DeepSpeed f4157bea; fp16_lm_cross_entropy off by default),
   * Megatron's passes run op by op (layout.megatron_xent) */
  l->megatron_xent = true;
  /* The row's "mixed precision" (a secondary transcription) is bf16 in the
   * paper's hardware paragraph: "Model training is done with mixed precision
   * using 16-bit bfloat on NVIDIA's Selene supercomputer" (Smith et al. 2022,
   * arXiv 2201.11990, as quoted verbatim by several pages); the loader's
   * default 16-bit dtype is bf16 already, so this only says where it comes
   * from. That DeepSpeed's bf16 + pipeline path was not yet public (DeepSpeed
   * #1398 2021-11-01, #1801 2022-04-19) is why the row keeps Megatron's
   * gradient path: docs/accuracy.md, Session 22 (helper old22). */
  if (l->dtype == PL_DTYPE_BF16)
    validate_note(row, "bf16 (the paper: 'mixed precision using 16-bit bfloat')");
  return true;
}

bool validate_mtnlg_measure(const struct validate_in *in, const struct pl_run *run,
                            struct pl_vrow *row) {
  return measure_time(in, "Iteration time (s)", 1.0, row);
}

/* ----------------------------------------------------------------- BLOOM */

/* BLOOM's ZeRO-1 is DeepSpeed's BF16_Optimizer under the pipeline engine:
 * the fp32 gradients it accumulates are all_reduced over the data-parallel
 * group (runtime/pipe/engine.py _exec_reduce_grads -> _bf16_reduce_grads ->
 * buffered_allreduce_fallback on optimizer.get_grads_for_reduction()), each
 * rank then updates its partition and all_gathers the bf16 parameters
 * (bf16_optimizer.py all_gather_dp_groups): twice the gradient traffic of a
 * reduce_scatter. */
bool validate_bloom_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  /* the deepspeed preset's zero1_grad_all_reduce and grad_accum_fp32_copy */
  if (l->shard == PL_SHARD_ZERO1 && strstr(cell(in, "sharding"), "BF16_Optimizer") != NULL)
    validate_note(row, "DeepSpeed BF16_Optimizer: each micro-batch's bf16 gradients cast to fp32 "
                       "and added (update_hp_grads), fp32 gradients all_reduced (pipeline engine "
                       "_bf16_reduce_grads), then the bf16 parameters all_gathered");
  return true;
}

/* A row whose sharding does not name BF16_Optimizer ran another optimizer:
 * its gradients are neither cast per micro-batch nor all_reduced (the
 * row's departure from the deepspeed preset).
 * Every BLOOM run of this source ran with CUDA_LAUNCH_BLOCKING=1, a run
 * setting of the BLOOM team, not of Megatron-DeepSpeed: tr11-176B-ml.slurm
 * (bigscience-workshop/bigscience @ 9e64ede: "do not remove or the training
 * will hang and nodes will be lost w/o this workaround"), and
 * chronicles-prequel.md "dealing with JZ hanging on the large model", the
 * workaround adopted before the 2022-02-20/28 topology and shape benchmarks
 * of bloom_tuning (without it 320 GPUs "always hangs"). */
bool validate_bloom_overrides(const struct validate_in *in, struct pl_framework *fw,
                              struct pl_vrow *row) {
  if (strstr(cell(in, "sharding"), "BF16_Optimizer") == NULL)
    fw->zero1_grad_all_reduce = fw->grad_accum_fp32_copy = PL_SETTING_OFF;
  fw->launch_blocking = PL_SETTING_ON;
  validate_note(row, "CUDA_LAUNCH_BLOCKING=1 (the tr11 slurm script's hang workaround): kernel "
                     "launches synchronous, host time per kernel added to the GPU time");
  return true;
}

/* Megatron-DeepSpeed's "TFLOPs" (bigscience math/README.md):
 * model_size_in_B * 4 * 2 * seq * GBS / (time * gpus * 1e3); the model size
 * is summed rank by rank, so the tied word embedding held by the first and
 * the last pipeline stage counts twice (176.2 B + 3.6 B = 179.8 B; the
 * steady-state log line, 104.70 s at 149.77 TFLOPs, implies 179.4 B). */
bool validate_bloom_measure(const struct validate_in *in, const struct pl_run *run,
                            struct pl_vrow *row) {
  if (stated(in, "elapsed time per iteration (s)"))
    return measure_time(in, "elapsed time per iteration (s)", 1.0, row);
  if (!metric(in, "TFLOPs", row))
    return false;
  const struct pl_model *m = &run->model;
  double p = (double)pl_model_params(m) + (double)(m->vocab * m->hidden);
  row->measured = 8.0 * p * (double)m->seq_len * (double)run->layout.gbs /
                  (row->published * 1e12 * (double)run->layout.gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric,
           "TFLOPs -> step = 8 P s B / (rate x GPUs), P = %.1f B (Megatron-DeepSpeed count)",
           p / 1e9);
  return true;
}

/* ---------------------------------------------------------------- vTrain */

bool validate_vtrain_layout(const struct validate_in *in, struct pl_layout *l,
                            struct pl_vrow *row) {
  if (!stated(in, "sharding"))
    validate_note(row, "plain data parallel (ZeRO stage not stated; vTrain's simulator models a "
                       "data-parallel all_reduce after the backward)");
  if (!stated(in, "precision"))
    validate_note(row, "16-bit (precision not stated; vTrain profiles torch.float16, timed at the "
                       "bf16 tensor rate)");
  return true;
}

bool validate_vtrain_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row) {
  return measure_time(in, "iteration time (ms)", 1e-3, row);
}
