/* sources.c: how each published source is read (data/validation/README.md,
 * "How each source defines its metrics"; docs/accuracy.md repeats it).
 *
 * One table entry per source: its architecture family, facts about its
 * software (FlashAttention or not, sequence parallelism), the rule for each
 * field it leaves empty, and the conversion of its published metric to a
 * step time using the source's OWN formula, so predicted and measured step
 * times are compared like for like:
 *   sc21         Narayanan et al. SC21: TFLOP/s by eq. 3 (recompute counted)
 *   korthikanti  Korthikanti et al. 2022: iteration time (s), printed
 *   megatron20   Megatron-LM README 2020: iteration time (ms), printed
 *   mtnlg        Smith et al. 2022 (MT-NLG): iteration time (s), printed
 *   bloom        BigScience tr11: iteration time (s); else Megatron-DeepSpeed
 *                "TFLOPs" = 8 P s B / (t gpus) with P counted rank by rank
 *   llmfoundry   MosaicML llm-foundry: tokens/s over the cluster, printed
 *   opt          Zhang et al. 2022 (OPT): cannot be expressed (see skip_all)
 * These are conventions of the sources, not corrections: nothing here looks
 * at a prediction. */
#include <stdio.h>
#include <string.h>

#include "validate/validate_int.h"

/* Narayanan et al. 2021 (arXiv 2104.04473), eq. 3: FLOPs of one iteration
 * with activation recomputation, F = 96 B s l h^2 (1 + s/6h + V/16lh). The
 * 96 = 4 passes (forward, recomputed forward, 2x backward) x 24 B s h^2 per
 * layer; GEMMs only. */
double validate_megatron_eq3_flops(double batch, double seq, double layers, double hidden,
                                   double vocab) {
  return 96.0 * batch * seq * layers * hidden * hidden *
         (1.0 + seq / (6.0 * hidden) + vocab / (16.0 * layers * hidden));
}

static const char *cell(const struct validate_in *in, const char *col) {
  return validate_csv_cell(in->csv, in->rec, col);
}

static bool stated(const struct validate_in *in, const char *col) {
  return cell(in, col)[0] != '\0';
}

/* A published number in column col (> 0), or the row skipped. */
static bool metric(const struct validate_in *in, const char *col, struct pl_vrow *row) {
  bool present = false;
  double v = 0;
  if (validate_num(cell(in, col), &v, &present) != PL_OK || (present && !(v > 0)))
    return validate_skip(row, "column '%s': '%s' is not a positive number", col, cell(in, col));
  if (!present)
    return validate_skip(row, "column '%s' is empty: nothing to compare", col);
  row->published = v;
  return true;
}

static void recompute_default(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row, const char *why) {
  if (stated(in, "recompute"))
    return;
  l->recompute = PL_RECOMPUTE_FULL;
  validate_note(row, "recompute full (not stated; %s)", why);
}

/* Printed step time in seconds (scale 1) or milliseconds (scale 1e-3). */
static bool measure_time(const struct validate_in *in, const char *col, double scale,
                         struct pl_vrow *row) {
  if (!metric(in, col, row))
    return false;
  row->measured = row->published * scale;
  snprintf(row->metric, sizeof row->metric, "%s (printed)", col);
  return true;
}

/* ------------------------------------------------------------------ SC21 */

/* Smallest divisor >= 2 of n (n itself when prime), 1 when n < 2. */
static int64_t smallest_divisor(int64_t n) {
  for (int64_t k = 2; k <= n; k++)
    if (n % k == 0)
      return k;
  return 1;
}

static bool sc21_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  bool present = false;
  double mp = 0;
  if (validate_num(cell(in, "Model-parallel size"), &mp, &present) == PL_OK && present &&
      !stated(in, "tp") && mp > 1)
    return validate_skip(row, "tp/pp split of model-parallel size %g not stated", mp);
  recompute_default(in, l, row, "Eq. 3 of the paper counts the recompute forward");
  /* Table 2's DeepSpeed ZeRO-3 (released in DeepSpeed 0.3.13, March 2021, the
   * version of the paper's April 2021 runs): each parameter all_gather called
   * torch.cuda.synchronize(), so a gather neither overlapped the compute
   * before it nor was prefetched (DeepSpeed PR #1188, June 2021: "the async
   * version is not async at all, because each all_gather calls
   * torch.cuda.synchronize()"). */
  if (l->shard == PL_SHARD_ZERO3 && strstr(cell(in, "sharding"), "DeepSpeed") != NULL) {
    l->gather_no_prefetch = true;
    validate_note(row, "DeepSpeed ZeRO-3 of 2021: parameter all_gathers not prefetched "
                       "(each synchronized the device, DeepSpeed PR #1188)");
  }
  /* Table 1 ran the interleaved schedule without saying how many chunks:
   * the fewest that divide a stage's layers (the same rule as the step
   * model's own validation test, tests/unit/test_predict_validation.c). */
  int64_t layers = 0;
  if (!stated(in, "vp") && l->pp > 1 && strstr(cell(in, "notes"), "interleaved") != NULL &&
      validate_int(cell(in, "layers"), &layers, &present) == PL_OK && present) {
    int64_t vp = smallest_divisor(layers / l->pp);
    if (vp > 1) {
      l->vp = vp;
      l->schedule = PL_SCHEDULE_INTERLEAVED;
    }
    validate_note(row,
                  "interleaved chunks per device not stated: vp=%lld, the fewest that divide "
                  "the %lld layers of a stage",
                  (long long)vp, (long long)(layers / l->pp));
  }
  return true;
}

static bool sc21_measure(const struct validate_in *in, const struct pl_run *run,
                         struct pl_vrow *row) {
  const char *col = "Achieved teraFLOP/s per GPU";
  if (!metric(in, col, row))
    return false;
  const struct pl_model *m = &run->model;
  double f = validate_megatron_eq3_flops((double)run->layout.gbs, (double)m->seq_len,
                                         (double)m->layers, (double)m->hidden, (double)m->vocab);
  row->measured = f / (row->published * 1e12 * (double)run->layout.gpus);
  snprintf(row->metric, sizeof row->metric,
           "%s -> step = eq.3 FLOPs (recompute counted) / (rate x GPUs)", col);
  return true;
}

/* ----------------------------------------------------------- Korthikanti */

static bool korthikanti_layout(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  if (stated(in, "Forward (ms)"))
    return validate_skip(row, "single-layer forward/backward time (Table 4), not a step");
  if (!stated(in, "vp") && l->pp > 1)
    validate_note(row, "vp not stated (interleaving is named for 175B and 530B only): 1F1B");
  return true;
}

static bool korthikanti_measure(const struct validate_in *in, const struct pl_run *run,
                                struct pl_vrow *row) {
  return measure_time(in, "Iteration Time (seconds)", 1.0, row);
}

/* ------------------------------------------------------ Megatron-LM 2020 */

static bool megatron20_layout(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  recompute_default(in, l, row, "the README's TFLOP/s equal eq. 3 with the recompute forward");
  if (!stated(in, "sharding"))
    validate_note(row, "plain data parallel (Megatron v1)");
  if (l->mbs == 0) {
    int64_t dp = l->gpus / (l->tp * l->pp * l->cp);
    if (dp < 1 || l->gbs % dp != 0)
      return validate_skip(row, "global batch %lld not divisible by dp %lld", (long long)l->gbs,
                           (long long)dp);
    l->mbs = l->gbs / dp;
    validate_note(row, "micro-batch %lld = batch per replica (Megatron v1 has no micro-batches)",
                  (long long)l->mbs);
  }
  return true;
}

static bool megatron20_measure(const struct validate_in *in, const struct pl_run *run,
                               struct pl_vrow *row) {
  return measure_time(in, "Iteration Time (ms)", 1e-3, row);
}

/* ---------------------------------------------------------------- MT-NLG */

static bool mtnlg_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  recompute_default(in, l, row, "the published TFLOP/s equal eq. 3 with the recompute forward");
  return true;
}

static bool mtnlg_measure(const struct validate_in *in, const struct pl_run *run,
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
static bool bloom_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (l->shard == PL_SHARD_ZERO1 && strstr(cell(in, "sharding"), "BF16_Optimizer") != NULL) {
    l->zero1_grad_all_reduce = true;
    l->grad_accum_cast = true;
    validate_note(row, "DeepSpeed BF16_Optimizer: each micro-batch's bf16 gradients cast to fp32 "
                       "and added (update_hp_grads), fp32 gradients all_reduced (pipeline engine "
                       "_bf16_reduce_grads), then the bf16 parameters all_gathered");
  }
  return true;
}

/* Megatron-DeepSpeed's "TFLOPs" (bigscience math/README.md):
 * model_size_in_B * 4 * 2 * seq * GBS / (time * gpus * 1e3); the model size
 * is summed rank by rank, so the tied word embedding held by the first and
 * the last pipeline stage counts twice (176.2 B + 3.6 B = 179.8 B; the
 * steady-state log line, 104.70 s at 149.77 TFLOPs, implies 179.4 B). */
static bool bloom_measure(const struct validate_in *in, const struct pl_run *run,
                          struct pl_vrow *row) {
  if (stated(in, "elapsed time per iteration (s)"))
    return measure_time(in, "elapsed time per iteration (s)", 1.0, row);
  if (!metric(in, "TFLOPs", row))
    return false;
  const struct pl_model *m = &run->model;
  double p = (double)pl_model_params(m) + (double)(m->vocab * m->hidden);
  row->measured = 8.0 * p * (double)m->seq_len * (double)run->layout.gbs /
                  (row->published * 1e12 * (double)run->layout.gpus);
  snprintf(row->metric, sizeof row->metric,
           "TFLOPs -> step = 8 P s B / (rate x GPUs), P = %.1f B (Megatron-DeepSpeed count)",
           p / 1e9);
  return true;
}

/* ------------------------------------------------------------ llm-foundry */

static bool llmfoundry_layout(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  if (strcmp(cell(in, "Activation CPUOffload"), "True") == 0)
    return validate_skip(row, "activation CPU offload is not modelled");
  if (strcmp(cell(in, "MP Mode"), "DEFAULT") == 0)
    validate_note(row, "FSDP mixed precision DEFAULT: gradients reduced in fp32, as modelled");
  else if (strcmp(cell(in, "MP Mode"), "PURE") == 0)
    validate_note(row, "FSDP mixed precision PURE reduces gradients in bf16; modelled in fp32");
  /* FSDP's gathers and reduce_scatters on one process group: the default
   * (layout.fsdp_one_comm, docs/step-model.md section 5). Composer evaluates
   * MPT's two train metrics (LanguageCrossEntropy, LanguagePerplexity) on every
   * micro-batch's logits (layout.logit_metric_passes) */
  l->logit_metric_passes = 2;
  return true;
}

static bool llmfoundry_measure(const struct validate_in *in, const struct pl_run *run,
                               struct pl_vrow *row) {
  const char *col = "Throughput (T/s)";
  if (!metric(in, col, row))
    return false;
  row->measured = (double)run->layout.gbs * (double)run->model.seq_len / row->published;
  snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / rate", col);
  return true;
}

/* ----------------------------------------------------------------- table */

#define GPT3_FAMILY                                                                                \
  "GPT-2/3 as Megatron-LM builds it: GELU MLP, learned positions, LayerNorm, biases, tied "        \
  "embeddings, dropout 0.1 (Megatron default), Megatron fused kernels"

static const struct validate_source sources[] = {
    {.key = "sc21",
     .match = "Narayanan et al., SC21",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = true,
     .grad_reduce_after_backward = true,
     .sequence_parallel = false,
     .megatron_vocab_pad = true,
     .layout = sc21_layout,
     .measure = sc21_measure},
    {.key = "korthikanti",
     .match = "Korthikanti et al.",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = true,
     .grad_reduce_after_backward = true,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .layout = korthikanti_layout,
     .measure = korthikanti_measure},
    {.key = "megatron20",
     .match = "NVIDIA/Megatron-LM",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = true,
     .grad_reduce_after_backward = true,
     .sequence_parallel = false,
     .megatron_vocab_pad = true,
     .layout = megatron20_layout,
     .measure = megatron20_measure},
    {.key = "mtnlg",
     .match = "Smith et al.",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = true,
     .grad_reduce_after_backward = true,
     .sequence_parallel = false,
     .megatron_vocab_pad = true,
     .vocab_default = 50257,
     .vocab_why = "GPT-2 BPE vocabulary, which MT-NLG used",
     .layout = mtnlg_layout,
     .measure = mtnlg_measure},
    {.key = "bloom",
     .match = "bigscience-workshop/bigscience",
     .family = "BLOOM (tr11 slurm script): GELU MLP, ALiBi, LayerNorm (the extra embedding "
               "LayerNorm is not modelled), biases, tied embeddings, Megatron-DeepSpeed default "
               "dropout 0.1",
     .pos = PL_POS_ALIBI,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = true,
     .grad_reduce_after_backward = true,
     .sequence_parallel = false,
     .megatron_vocab_pad = true,
     .layout = bloom_layout,
     .measure = bloom_measure},
    {.key = "llmfoundry",
     .match = "mosaicml/llm-foundry",
     .family = "MPT (llm-foundry mpt-*.yaml): GELU MLP, ALiBi, LayerNorm, no biases, tied "
               "embeddings, no dropout, Triton FlashAttention (attn_impl triton), eager PyTorch "
               "element-wise kernels",
     .pos = PL_POS_ALIBI,
     .linear_bias = false,
     .dropout = false,
     .eager_attention = false,
     /* ALiBi ran in the Triton FlashAttention (llmfoundry/models/layers/flash_attn_triton.py):
      * "the current default attention implementation when using ALiBi" until FlashAttention-2
      * gained ALiBi (flash-attn 2.4, 2023-12-23; llm-foundry PR #820 opened that day). The
      * H100 tables were added by PR #543 (reviewed 2023-10-18), the A100 ones before, and
      * submit_benchmarks.py's --attn_impl default was 'triton' in the 2023 versions */
     .triton_attention = true,
     /* Composer MPT modules (llm-foundry models/mpt, layers/blocks.py): F.layer_norm
      * (low_precision_layernorm, set by submit_benchmarks.py), nn.GELU, residual adds
      * as separate PyTorch ops; no Megatron/TE fused kernels */
     .unfused_kernels = true,
     .sequence_parallel = false,
     .megatron_vocab_pad = false,
     .layout = llmfoundry_layout,
     .measure = llmfoundry_measure},
    {.key = "opt",
     .match = "OPT: Open Pre-trained",
     .family = "OPT: GPT-3 style, ReLU MLP",
     .pos = PL_POS_LEARNED,
     .skip_all = "tensor-parallel degree, micro-batch and FLOP convention not stated; 'up to "
                 "147 TFLOP/s' is a best case, not a measured step"},
};

const struct validate_source *validate_source_find(const char *source_cell) {
  for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
    if (strstr(source_cell, sources[i].match) != NULL)
      return &sources[i];
  return NULL;
}

const char *validate_source_list(void) {
  return "Narayanan et al. SC21, Korthikanti et al. 2022, Megatron-LM README 2020, MT-NLG, "
         "BigScience BLOOM, MosaicML llm-foundry, OPT";
}
