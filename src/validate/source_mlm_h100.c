/* source_mlm_h100.c: the rules of the Megatron-LM README's H100 scaling
 * results (data/validation/megatron_lm_readme_h100.csv; NVIDIA/Megatron-LM
 * README.md "Training Speed and Scalability" and images/model_table.png @
 * f2e5db402c, 2024-07-15; the figures' legend: Megatron-Core r0.8.0). The
 * table entry is "mlm_h100" in sources.c. Everything the README does not
 * state is a Megatron-LM default at core_r0.8.0 or an assumption said in the
 * row's notes. Conventions of the source, not corrections: nothing here
 * looks at a prediction. */
#include <stdio.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/model.h>

#include "validate/validate_int.h"

/* The model table's GPT models: Megatron-LM's GPT defaults at core_r0.8.0
 * (megatron/training/arguments.py: --position-embedding-type learned_absolute,
 * GELU unless --swiglu, biases unless --disable-bias-linear, hidden and
 * attention dropout 0.1: the source's family fields in sources.c), with
 * untied input and output embeddings (--untie-embeddings-and-output-weights):
 * the table's sizes count the output layer separately, e.g. 7.1B = 12 L h^2
 * + 2 V h = 6.04 + 1.07 B for L 30, h 4096, V 131072 (tied: 6.58 B), 177B =
 * 173.9 + 3.2 B (tied: 175.6), 16B = 14.5 + 1.6 B (tied: 15.3). */
bool validate_mlm_h100_model(const struct validate_in *in, struct pl_model *m,
                             struct pl_vrow *row) {
  (void)in;
  m->tied_embeddings = false;
  validate_note(row, "untied embeddings (the table's parameter counts include a separate "
                     "output layer: 12 L h^2 + 2 V h)");
  return true;
}

/* The strong-scaling runs (README text: 177B from 96 to 4,608 GPUs at batch
 * 1,152) print no layout: the model table's 177B row at the same batch
 * (tp 8, pp 6, dp 48 on 2,304 GPUs, a point of the same curve) is taken,
 * which makes every GPU count of the text a multiple of 48. */
#define MLM_H100_177B_TP 8
#define MLM_H100_177B_PP 6

bool validate_mlm_h100_layout(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  if (!stated(in, "tp") && !stated(in, "pp")) {
    int64_t mp = MLM_H100_177B_TP * MLM_H100_177B_PP;
    if (l->gpus % mp != 0 || l->gbs % (l->gpus / mp) != 0)
      return validate_skip(row,
                           "strong-scaling layout not stated, and %lld GPUs do not take the "
                           "model table's tp %d pp %d",
                           (long long)l->gpus, MLM_H100_177B_TP, MLM_H100_177B_PP);
    l->tp = MLM_H100_177B_TP;
    l->pp = MLM_H100_177B_PP;
    validate_note(row,
                  "tp %d pp %d (the strong-scaling layout is not printed: the model table's "
                  "177B row at the same batch 1152)",
                  MLM_H100_177B_TP, MLM_H100_177B_PP);
  }
  /* --overlap-param-gather (the README's flags) is refused without
   * --use-distributed-optimizer (megatron/training/arguments.py
   * validate_args, core_r0.8.0: "--overlap-param-gather only supported with
   * distributed optimizer") */
  l->shard = PL_SHARD_ZERO1;
  validate_note(row, "distributed optimizer (--overlap-param-gather requires it, Megatron-LM "
                     "core_r0.8.0 arguments.py)");
  if (!stated(in, "recompute"))
    validate_note(row, "no activation recompute (not stated; Megatron-LM's default "
                       "--recompute-granularity None)");
  /* The README overlaps "pipeline-parallel communication (enabled by
   * default)" with computation: Megatron-LM's --no-overlap-p2p-communication
   * (store_false, overlap_p2p_comm on by default). At core_r0.8.0 that
   * overlap exists only in the interleaved schedule: arguments.py
   * validate_args sets args.overlap_p2p_comm = False when
   * --num-layers-per-virtual-pipeline-stage is not given ("non-interleaved
   * schedule does not support overlapping p2p communication"), and
   * schedules.py forward_backward_pipelining_without_interleaving raises on
   * it. So the pp > 1 runs were interleaved. The chunks per rank are not
   * printed: the fewest that split a stage's layers evenly (the SC21 rows'
   * rule, sources_megatron.c), vp = layers / pp itself when that is prime
   * (119B: 23, 462B: 7 layers a stage). The interleaved schedule needs the
   * micro-batches per pipeline to be a multiple of pp (schedules.py
   * forward_backward_pipelining_with_interleaving: RuntimeError otherwise);
   * every row of the README meets it; a row that did not stays 1F1B. */
  int64_t layers = 0;
  bool have_layers = false;
  if (!stated(in, "vp") && l->pp > 1 &&
      validate_int(cell(in, "layers"), &layers, &have_layers) == PL_OK && have_layers &&
      layers % l->pp == 0) {
    int64_t dp = l->gpus / (l->tp * l->pp * l->cp);
    int64_t mbs = l->mbs > 0 ? l->mbs : 1;
    int64_t micro = dp > 0 ? l->gbs / (dp * mbs) : 0;
    int64_t vp = validate_smallest_divisor(layers / l->pp);
    if (vp > 1 && micro > 0 && micro % l->pp == 0) {
      l->vp = vp;
      l->schedule = PL_SCHEDULE_INTERLEAVED;
      validate_note(row,
                    "interleaved schedule (the README overlaps pipeline communication, which "
                    "core_r0.8.0 does only interleaved); vp=%lld not stated: the fewest chunks "
                    "that divide the %lld layers of a stage",
                    (long long)vp, (long long)(layers / l->pp));
    } else {
      validate_note(row, "vp not stated: non-interleaved 1F1B (%lld micro-batches, pp %lld)",
                    (long long)micro, (long long)l->pp);
    }
  }
  if (!stated(in, "precision"))
    validate_note(row, "BF16 (not stated; the MFU column is per-GPU TFLOP/s over 989, H100's "
                       "BF16 dense peak)");
  return true;
}

/* The README's flags: --overlap-grad-reduce --overlap-param-gather
 * --tp-comm-overlap; Megatron-LM refuses --tp-comm-overlap without
 * --sequence-parallel (arguments.py validate_args, core_r0.8.0: "Tensor
 * parallel communication/GEMM overlap can happen only when sequence
 * parallelism is enabled"). Pipeline p2p overlap is the preset's default. */
bool validate_mlm_h100_overrides(const struct validate_in *in, struct pl_framework *fw,
                                 struct pl_vrow *row) {
  (void)in;
  fw->overlap_grad_reduce = PL_SETTING_ON;
  fw->overlap_param_gather = PL_SETTING_ON;
  fw->tp_comm_overlap = PL_SETTING_ON;
  fw->sequence_parallel = PL_SETTING_ON;
  /* The runs are of mid-2024 (README @ f2e5db402c, 2024-07-15; Megatron-Core
   * r0.8.0, whose CI image is nvcr.io/nvidia/pytorch:24.01-py3: .gitlab-ci.yml
   * build_image BASE_IMAGE at tag core_r0.8.0): every NGC PyTorch container
   * of that date carries a cuDNN of 9.1 or older (24.05: cuDNN 9.1.0.70), and
   * Transformer Engine 1.2-1.8 runs GPT's attention (bf16, causal, dropout
   * 0.1) as cuDNN fused attention on sm90 ("Select FusedAttention on sm90",
   * pytorch/attention.py DotProductAttention.forward). So the fused attention
   * runs at the oldest cuDNN figures the GPU file has, NVIDIA's cuDNN 9.1
   * benchmark of 2024-05 (layout.cudnn_version 9.1, as the NeMo 24.07 rows),
   * not today's cuDNN. */
  fw->cudnn_version_set = true;
  fw->cudnn_version = PL_CUDNN_2024;
  validate_note(row, "cuDNN 9.1 attention (a mid-2024 container: Megatron-Core r0.8.0's CI image "
                     "is NGC PyTorch 24.01; no container of the README's date has a later cuDNN "
                     "than 9.2)");
  return true;
}

/* Megatron-LM's model FLOPs at core_r0.8.0 (megatron/training/training.py
 * num_floating_point_operations): the attention term is (1 + g/a + s/h) q/h,
 * the full s x s score and value GEMMs; later versions count the causal half
 * s/(2h) (validate_megatron_flops). The difference is 12 B s L h^2 (s/2h) q/h
 * = 6 B s^2 L (d a), added here. */
static double mlm_h100_flops(const struct pl_model *m, double batch, double seq) {
  return validate_megatron_flops(m, batch, seq) +
         6.0 * batch * seq * seq * (double)m->layers * (double)(m->head_dim * m->heads);
}

/* Per-GPU TFLOP/s (model table) or the MFU of the text (strong scaling: the
 * two end points; MFU x the GPU's BF16 dense peak, the table's own
 * denominator) -> step = the r0.8.0 FLOPs / (rate x GPUs). */
bool validate_mlm_h100_measure(const struct validate_in *in, const struct pl_run *run,
                               struct pl_vrow *row) {
  const struct pl_layout *l = &run->layout;
  double f = mlm_h100_flops(&run->model, (double)l->gbs, (double)run->model.seq_len);
  if (stated(in, "Per-GPU teraFLOP/s")) {
    if (!validate_metric(in, "Per-GPU teraFLOP/s", row))
      return false;
    row->measured = f / (row->published * 1e12 * (double)l->gpus);
    snprintf(row->metric, sizeof row->metric,
             "Per-GPU teraFLOP/s -> step = Megatron-LM r0.8.0 model FLOPs "
             "(num_floating_point_operations) / (rate x GPUs)");
  } else {
    if (!validate_metric(in, "MFU", row))
      return false;
    double peak = pl_gpu_peak_flops_per_s(&run->cluster.gpu, PL_DTYPE_BF16);
    row->measured = f / (row->published / 100.0 * peak * (double)l->gpus);
    snprintf(row->metric, sizeof row->metric,
             "MFU -> step = Megatron-LM r0.8.0 model FLOPs / (MFU x GPUs x %.1f TFLOP/s)",
             peak / 1e12);
  }
  row->published_rate = true; /* step = X / the published rate */
  return true;
}
