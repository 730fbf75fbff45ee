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
 *   nemo         NeMo 24.07 performance summary: tokens/s/GPU, printed; the
 *                long-sequence rows: model TFLOP/s/GPU by NeMo's FLOP formula
 *   mlperf       MLPerf Training GPT-3 (NVIDIA, NeMo): seconds per step
 *                derived from the logs' timestamps
 *   vtrain       vTrain ground truth (Megatron-DeepSpeed): iteration time (ms)
 *   bridge       Megatron-Bridge performance summary: tokens/s/GPU, printed
 *   moezoo       Megatron-Core MoE model zoo: step time (s), printed, or
 *                TFLOP/s by Megatron-LM's own FLOP count
 *   megascale    MegaScale (NSDI 2024), Megatron-LM's rows: iteration time
 *                (s), printed, or MFU by Korthikanti's model FLOPs
 *   llama3       Llama 3 Herd of Models, Table 4: TFLOPs/GPU by PaLM's count
 *                (the rules of these two: sources_scale.c)
 *   torchtitan   pytorch/torchtitan benchmarks / docs/performance.md:
 *                tokens/s per GPU, printed (source_torchtitan.c)
 * These are conventions of the sources, not corrections: nothing here looks
 * at a prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

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
  return validate_metric(in, col, row); /* metric.c */
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
  return validate_measure_time(in, col, scale, row); /* metric.c */
}

/* ------------------------------------------------------------------ SC21 */

/* Smallest divisor >= 2 of n (n itself when prime), 1 when n < 2. */
static int64_t smallest_divisor(int64_t n) {
  for (int64_t k = 2; k <= n; k++)
    if (n % k == 0)
      return k;
  return 1;
}

/* Table 2's PTD-P rows give only the model-parallel size (96 for GPT-3 175B,
 * 280 for 530B). The paper picks the degrees "using heuristics described in
 * Sec. 3" (Sec. 5.1): tensor parallelism up to the GPUs of one server, then
 * pipeline parallelism (Sec. 3.3 Takeaway #1; Sec. 5.4.1: peak "when the
 * tensor-parallel size is equal to the number of GPUs in a single node (8 with
 * DGX A100 nodes)"), as every Table 1 row from 18.4B up runs. The split is
 * taken only where Megatron-LM can run it: the heads divide by tp (mpu
 * divide() in ParallelSelfAttention) and the layers by pp
 * (ParallelTransformer's assert). For 280 it is the only split with tp <= 8
 * that does (tp 1/2/4 leave pp 280/140/70, none dividing 105 layers). */
#define SC21_TP_PER_SERVER 8

static bool sc21_split(const struct validate_in *in, double mp, struct pl_layout *l,
                       struct pl_vrow *row) {
  bool present = false, ok = true;
  int64_t heads = 0, layers = 0, m = (int64_t)mp;
  ok = validate_int(cell(in, "heads"), &heads, &present) == PL_OK && present && ok;
  ok = validate_int(cell(in, "layers"), &layers, &present) == PL_OK && present && ok;
  if (!ok || (double)m != mp || m % SC21_TP_PER_SERVER != 0 || heads % SC21_TP_PER_SERVER != 0 ||
      layers % (m / SC21_TP_PER_SERVER) != 0)
    return validate_skip(row, "tp/pp split of model-parallel size %g not stated", mp);
  l->tp = SC21_TP_PER_SERVER;
  l->pp = m / SC21_TP_PER_SERVER;
  validate_note(row,
                "tp %d pp %lld (model-parallel size %lld not split in Table 2: tp = GPUs per "
                "DGX A100 server, Sec. 3.3/5.4.1); non-interleaved schedule (Megatron's "
                "default; Table 2 names none)",
                SC21_TP_PER_SERVER, (long long)l->pp, (long long)m);
  return true;
}

static bool sc21_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  bool present = false;
  double mp = 0;
  if (validate_num(cell(in, "Model-parallel size"), &mp, &present) == PL_OK && present &&
      !stated(in, "tp") && mp > 1 && !sc21_split(in, mp, l, row))
    return false;
  recompute_default(in, l, row, "Eq. 3 of the paper counts the recompute forward");
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

/* Table 2's DeepSpeed ZeRO-3 (released in DeepSpeed 0.3.13, March 2021; the
 * paper's April 2021 runs) run with the preset deepspeed-zero3-2021
 * (data/frameworks/), DeepSpeed v0.3.16's behaviour: each parameter gathered
 * and reduce_scattered in its own tensor-list call, each gather after a
 * torch.cuda.synchronize() (not prefetched; DeepSpeed PR #1188); the other
 * rows with the source's megatron-lm. */
static bool sc21_overrides(const struct validate_in *in, struct pl_framework *fw,
                           struct pl_vrow *row) {
  const char *shard = cell(in, "sharding");
  if (strstr(shard, "DeepSpeed") == NULL || strstr(shard, "ZeRO-3") == NULL)
    return true;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_framework_preset("deepspeed-zero3-2021", fw, &d) != PL_OK)
    return validate_skip(row, "framework preset: %s", d.msg);
  snprintf(row->framework, sizeof row->framework, "deepspeed-zero3-2021");
  validate_note(row, "DeepSpeed ZeRO-3 of 2021 (preset deepspeed-zero3-2021): one gather and "
                     "one reduce_scatter per parameter, not prefetched");
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
  row->published_rate = true; /* step = X / the published rate */
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

/* The paper's own runs use its sequence parallelism (Megatron-LM v3.0 added
 * --sequence-parallel with it, off by default: the megatron-lm preset's
 * value) unless the recompute column says "no sequence parallelism": the
 * row's departure from the preset (layout_modes reads the same words). */
static bool korthikanti_overrides(const struct validate_in *in, struct pl_framework *fw,
                                  struct pl_vrow *row) {
  (void)row;
  bool off = strstr(cell(in, "recompute"), "no sequence parallelism") != NULL;
  fw->sequence_parallel = off ? PL_SETTING_OFF : PL_SETTING_ON;
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
  /* MT-NLG's pipeline is DeepSpeed's engine (Smith et al. 2022 Sec. 2.3:
   * Megatron-DeepSpeed, "pipeline parallelism from DeepSpeed"): its blocking
   * one-at-a-time sends and tp-partitioned tensors (layout.p2p_serial;
   * deepspeed/runtime/pipe/engine.py is_pipe_partitioned = is_model_parallel
   * since 2020), not the 2022 `deepspeed` preset, whose BF16_Optimizer MT-NLG's
   * fp16 run did not use */
  l->p2p_serial = true;
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
static bool bloom_overrides(const struct validate_in *in, struct pl_framework *fw,
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
  row->published_rate = true; /* step = X / the published rate */
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
    validate_note(row, "FSDP mixed precision PURE: gradients reduced in bf16, as modelled");
  /* FSDP's gathers and reduce_scatters on one process group, Composer's two
   * train metrics on every micro-batch's logits (logit_metric_passes 2),
   * Triton FlashAttention, eager element-wise kernels: the llm-foundry preset
   * (data/frameworks/llm-foundry.json) */
  (void)l;
  return true;
}

/* Composer composer/trainer/mosaic_fsdp_utils.py get_mixed_precision: 'PURE'
 * sets reduce_dtype to the precision's dtype (bf16): 2 B per gradient in
 * FSDP's reduce_scatter (src/sim/segments.c fsdp_grad_bytes), the row's
 * departure from the preset. */
static bool llmfoundry_overrides(const struct validate_in *in, struct pl_framework *fw,
                                 struct pl_vrow *row) {
  (void)row;
  if (strcmp(cell(in, "MP Mode"), "PURE") == 0)
    fw->grad_reduce_fp32 = PL_SETTING_OFF;
  return true;
}

static bool llmfoundry_measure(const struct validate_in *in, const struct pl_run *run,
                               struct pl_vrow *row) {
  const char *col = "Throughput (T/s)";
  if (!metric(in, col, row))
    return false;
  row->measured = (double)run->layout.gbs * (double)run->model.seq_len / row->published;
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / rate", col);
  return true;
}

/* ------------------------------------------------------------ NeMo 24.07 */

/* NeMo's model FLOPs for Llama-family models (NeMo 2
 * nemo/utils/flops_formulas.py, llama2/llama3):
 *   B s l h^2 (12 + 12 g/a + 18 f/h + 12 s/h + 6 V/(l h))
 * The 24.07 table's own rows confirm it: tokens/s/GPU x this per-token count
 * = its model TFLOP/s/GPU (LLAMA2-7B: 16847 x 46.08 GFLOP = 776, printed
 * 776; docs/accuracy.md). */
double validate_nemo_llama_flops(double batch, double seq, double layers, double hidden,
                                 double heads, double kv_heads, double ffn, double vocab) {
  return batch * seq * layers * hidden * hidden *
         (12.0 + 12.0 * kv_heads / heads + 18.0 * ffn / hidden + 12.0 * seq / hidden +
          6.0 * vocab / (layers * hidden));
}

/* Models the NeMo page names without dimensions: each from the NeMo
 * configuration of that name (docs/accuracy.md, "How rows become runs"). */
static const struct named_model {
  const char *name; /* as the row's model column spells it */
  int64_t layers, hidden, heads, kv_heads, ffn_hidden, vocab;
  const char *why;
} nemo_models[] = {
    {"GPT3-5B", 24, 4096, 32, 32, 16384, 50257,
     "NeMo-Framework-Launcher conf/training/gpt3/5b.yaml: 24 layers, hidden 4096, 32 heads, ffn "
     "4h, GPT2BPETokenizer (50257)"},
    {"GPT3-20B", 44, 6144, 48, 48, 24576, 50257,
     "NeMo-Framework-Launcher conf/training/gpt3/20b.yaml: 44 layers, hidden 6144, 48 heads, ffn "
     "4h, GPT2BPETokenizer (50257)"},
    {"GPT3-175B", 96, 12288, 96, 96, 49152, 50257,
     "NeMo-Framework-Launcher conf/training/gpt3/175b.yaml (= Brown et al. 2020): 96 layers, "
     "hidden 12288, 96 heads, ffn 4h, GPT2BPETokenizer (50257)"},
    {"Nemotron-8B", 32, 4096, 32, 32, 16384, 256000,
     "NeMo llm/gpt/model/nemotron.py Nemotron3Config8B: 32 layers, hidden 4096, 32 heads (MHA), "
     "ffn 16384; vocab 256000 (Nemotron-4 tokenizer, arXiv 2402.16819)"},
    {"Nemotron-22B", 40, 6144, 48, 48, 24576, 256000,
     "NeMo-Framework-Launcher conf/training/nemotron/nemotron_22b.yaml: 40 layers, hidden 6144, "
     "48 heads (num_query_groups null: MHA), ffn 24576; vocab 256000"},
    {"Nemotron-340B", 96, 18432, 96, 8, 73728, 256000,
     "NeMo llm/gpt/model/nemotron.py Nemotron4Config340B: 96 layers, hidden 18432, 96 heads, 8 "
     "query groups, ffn 73728; vocab 256000"},
};

/* The architecture family by the model's name: GPT-3 as NeMo's gpt3 configs
 * build it (GELU, learned positions, LayerNorm, biases, tied embeddings,
 * hidden/attention dropout 0.1), Llama (SwiGLU, RoPE, RMSNorm, untied, no
 * biases, no dropout), Nemotron (conf/training/nemotron: squared-ReLU MLP of
 * two matrices, RoPE, LayerNorm1p, untied, no biases, no dropout). */
static bool nemo_family(const char *name, struct pl_model *m, struct pl_vrow *row) {
  if (strncmp(name, "GPT3", 4) == 0) {
    m->mlp = PL_MLP_GELU;
    m->pos = PL_POS_LEARNED;
    m->norm = PL_NORM_LAYER;
    m->tied_embeddings = m->linear_bias = m->dropout = true;
  } else if (strncmp(name, "LLAMA", 5) == 0) {
    m->mlp = PL_MLP_SWIGLU;
    m->pos = PL_POS_ROTARY;
    m->norm = PL_NORM_RMS;
    m->tied_embeddings = m->linear_bias = m->dropout = false;
  } else if (strncmp(name, "Nemotron", 8) == 0) {
    m->mlp = PL_MLP_GELU;
    m->pos = PL_POS_ROTARY;
    m->norm = PL_NORM_LAYER;
    m->tied_embeddings = m->linear_bias = m->dropout = false;
    validate_note(row, "Nemotron's squared-ReLU MLP timed as the two-matrix GELU MLP");
  } else {
    return validate_skip(row, "model '%s': no architecture rule for it", name);
  }
  return true;
}

static bool nemo_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  const char *name = cell(in, "model");
  if (!nemo_family(name, m, row))
    return false;
  if (stated(in, "layers"))
    return true;
  for (size_t i = 0; i < sizeof nemo_models / sizeof nemo_models[0]; i++) {
    const struct named_model *n = &nemo_models[i];
    if (strcmp(name, n->name) != 0)
      continue;
    m->layers = n->layers;
    m->hidden = n->hidden;
    m->heads = n->heads;
    m->kv_heads = n->kv_heads;
    m->ffn_hidden = n->ffn_hidden;
    m->vocab = n->vocab;
    validate_note(row, "model dimensions not in the row: %s", n->why);
    return true;
  }
  return validate_skip(row, "model '%s': dimensions not stated", name);
}

static bool nemo_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *task = cell(in, "Task");
  if (strcmp(task, "SFT") == 0)
    return validate_skip(row, "SFT on SQuAD packed to 4096 tokens: attention runs per packed "
                              "sample, whose lengths are not stated");
  if (strcmp(task, "LoRA") == 0)
    return validate_skip(row, "LoRA: frozen base weights (no weight gradients, optimizer on "
                              "the adapters only) are not modelled");
  if (strcmp(task, "pretrain") != 0)
    return validate_skip(row, "task '%s' is not pre-training", task);
  if (!stated(in, "sharding")) {
    l->shard = PL_SHARD_ZERO1;
    validate_note(row, "distributed optimizer (not stated; NeMo's configs: optim "
                       "distributed_fused_adam with overlap_grad_sync and overlap_param_sync)");
  }
  if (!stated(in, "recompute")) {
    l->recompute = PL_RECOMPUTE_NONE;
    validate_note(row, "no recompute (not stated)");
  }
  return true;
}

/* The container the row's table names: NeMo 24.03.01 (the long-sequence
 * H100 table) and 24.07 (the performance summary) are mid-2024 containers,
 * whose cuDNN (9.0-9.1: NeMo's "Software Component Versions" page, the
 * training container built on NVIDIA's PyTorch 24.02 container) ran fused
 * attention at the rates NVIDIA published for cuDNN 9.1 (cudnn-frontend
 * benchmark results @ b740542, 2024-05-07; layout.cudnn_version 9.1). The 2025
 * tables (NeMo 25.04, B200) keep today's cuDNN. */
static bool nemo_overrides(const struct validate_in *in, struct pl_framework *fw,
                           struct pl_vrow *row) {
  if (strstr(cell(in, "table_or_section"), "NeMo24.") == NULL)
    return true;
  fw->cudnn_version = PL_CUDNN_2024;
  fw->cudnn_version_set = true;
  validate_note(row, "cuDNN attention of mid-2024 (container NeMo 24.x: cuDNN 9.0-9.1)");
  return true;
}

static bool nemo_measure(const struct validate_in *in, const struct pl_run *run,
                         struct pl_vrow *row) {
  const struct pl_layout *l = &run->layout;
  const struct pl_model *m = &run->model;
  const char *col = "Tokens / sec / GPU";
  if (stated(in, col)) {
    if (!metric(in, col, row))
      return false;
    row->measured = (double)l->gbs * (double)m->seq_len / (row->published * (double)l->gpus);
    row->published_rate = true; /* step = X / the published rate */
    snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / (rate x GPUs)",
             col);
    return true;
  }
  col = "TFLOPS / GPU (with CP)";
  if (strncmp(cell(in, "model"), "LLAMA", 5) != 0)
    return validate_skip(row, "no tokens/s; NeMo's FLOP formula is used for Llama rows only");
  if (!metric(in, col, row))
    return false;
  bool present = false;
  double vocab = 0; /* the vocabulary as NeMo counts it: unpadded */
  if (validate_num(cell(in, "vocab"), &vocab, &present) != PL_OK || !present)
    return validate_skip(row, "vocabulary size not stated");
  double f = validate_nemo_llama_flops((double)l->gbs, (double)m->seq_len, (double)m->layers,
                                       (double)m->hidden, (double)m->heads, (double)m->kv_heads,
                                       (double)m->ffn_hidden, vocab);
  row->measured = f / (row->published * 1e12 * (double)l->gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric,
           "%s -> step = NeMo model FLOPs (llama formula) / (rate x GPUs)", col);
  return true;
}

/* ------------------------------------------------------- MLPerf GPT-3 */

static bool mlperf_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!stated(in, "sharding")) {
    l->shard = PL_SHARD_ZERO1;
    validate_note(row, "distributed optimizer (USE_DIST_OPTIMIZER not in this config; the "
                       "earlier configs of the same implementation set it)");
  }
  return true;
}

/* TP_COMM_OVERLAP of the submission's config_*.sh (a column of the row):
 * Transformer Engine userbuffers on or off, whatever the preset says. */
static bool mlperf_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row) {
  const char *v = cell(in, "TP_COMM_OVERLAP");
  if (strcmp(v, "True") == 0)
    fw->tp_comm_overlap = PL_SETTING_ON;
  else if (strcmp(v, "False") == 0)
    fw->tp_comm_overlap = PL_SETTING_OFF;
  else if (v[0] != '\0')
    return validate_skip(row, "column 'TP_COMM_OVERLAP': '%s' is not True or False", v);
  if (v[0] != '\0')
    validate_note(row, "tp_comm_overlap %s (TP_COMM_OVERLAP=%s in the config)",
                  fw->tp_comm_overlap == PL_SETTING_ON ? "on" : "off", v);
  return true;
}

/* IB SHARP for the data-parallel collectives. NVIDIA's v4.0 and v4.1
 * configs (config_common.sh) set "NCCL_SHARP_GROUP_SIZE_THRESH=2  #Avoid
 * falling back to non-sharp" under "#SHARP", and run.sub passes it into the
 * training containers (--container-env=...,NCCL_SHARP_GROUP_SIZE_THRESH).
 * The SHARP plugin (nccl-rdma-sharp-plugins src/sharp_plugin.c,
 * ncclSharpConnect) falls back to non-SHARP for a CollNet group of fewer
 * nodes than that; NVIDIA's enroot SHARP hook (enroot conf/hooks/extra/
 * 50-sharp.sh) turns on NCCL_COLLNET_ENABLE=1 for SHARP jobs and sets the
 * threshold to the job's node count, so without the override only
 * whole-job communicators get SHARP, with it the data-parallel groups (2 to
 * 242 nodes) do. v3.0/v3.1 do not set it: their data-parallel groups run
 * without SHARP (and their NCCL 2.17-2.18 has no CollNet all_gather /
 * reduce_scatter; NCCL 2.21.5 / 2.22.3 of v4.0 / v4.1 has, from 2.20.3).
 * The column holds the config's value; the cluster's 'sharp' models the
 * plugin at its threshold of 2 nodes (docs/collectives.md, "CollNet"). */
static void mlperf_hardware(const struct validate_in *in, const struct pl_layout *l,
                            struct pl_cluster *c, struct pl_vrow *row) {
  (void)l;
  const char *v = cell(in, "NCCL_SHARP_GROUP_SIZE_THRESH (config_common.sh)");
  if (v[0] == '\0')
    return;
  if (strcmp(v, "2") != 0) {
    validate_note(row, "NCCL_SHARP_GROUP_SIZE_THRESH=%s: only the SHARP plugin's threshold of 2 "
                       "nodes is modelled; no SHARP",
                  v);
    return;
  }
  c->sharp = true;
  validate_note(row, "IB SHARP (CollNet) for groups of >= 2 nodes (NCCL_SHARP_GROUP_SIZE_THRESH=2 "
                     "in the config)");
}

static bool mlperf_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row) {
  return measure_time(in, "step time s (median segment, derived)", 1.0, row);
}

/* ---------------------------------------------------------------- vTrain */

static bool vtrain_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!stated(in, "sharding"))
    validate_note(row, "plain data parallel (ZeRO stage not stated; vTrain's simulator models a "
                       "data-parallel all_reduce after the backward)");
  if (!stated(in, "precision"))
    validate_note(row, "16-bit (precision not stated; vTrain profiles torch.float16, timed at the "
                       "bf16 tensor rate)");
  return true;
}

static bool vtrain_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row) {
  return measure_time(in, "iteration time (ms)", 1e-3, row);
}

/* ------------------------- Megatron-Bridge and the Megatron MoE model zoo */

/* Megatron-LM's model FLOPs per step (megatron/training/training.py,
 * num_floating_point_operations -> transformer_flops, MHA/GQA branch, as of
 * Megatron-LM core_r0.14 (2025), which the model zoo's "TFLOPS" logs):
 *   B s [12 L h (f_dense g (Ld/L) + (f_e k g + f_sh g) (Lm/L))
 *        + 12 L h^2 (1 + g_kv/a + s/(2h)) (d a / h) + 6 h V]
 * g = 3/2 for SwiGLU, Ld/Lm dense/MoE blocks, f_e the expert width, k the
 * top-k, d a the query projection width, s/(2h) the causal half of the
 * score and value GEMMs, V the padded vocabulary. Checked on the model
 * zoo's own rows that print both step time and TFLOP/s (Qwen3-235B-A22B,
 * 256 H100, GBS 2048 x 4096: 245 TF x 256 x 19.7 s = 147.3 GFLOP per token;
 * this formula gives 148.0, the step time's rounding). */
double validate_megatron_flops(const struct pl_model *m, double batch, double seq) {
  double h = (double)m->hidden, L = (double)m->layers;
  double g = m->mlp == PL_MLP_SWIGLU ? 1.5 : 1.0;
  double moe = pl_model_is_moe(m) ? (double)pl_model_moe_layers(m) : 0.0;
  double dense = L - moe;
  double qr = (double)(m->head_dim * m->heads) / h;
  double mlp = (double)m->ffn_hidden * g * dense / L +
               ((double)m->expert_ffn * (double)m->top_k + (double)m->shared_ffn) * g * moe / L;
  double attn = h * (1.0 + (double)m->kv_heads / (double)m->heads + seq / (2.0 * h)) * qr;
  return batch * seq * (12.0 * L * h * (mlp + attn) + 6.0 * h * (double)m->vocab);
}

/* The model presets (data/models/) the two sources' model names mean, up to
 * a parenthesised variant ("DeepSeekV3 (w/o MTP)"). */
static const struct {
  const char *name;
  const char *preset;
} mcore_models[] = {
    {"DeepSeekV3", "deepseek-v3"},      {"Qwen3_30B_a3B", "qwen3-30b-a3b"},
    {"Qwen3_235B_a22B", "qwen3-235b-a22b"}, {"Qwen3-235B-A22B", "qwen3-235b-a22b"},
    {"GPT OSS 120B", "gpt-oss-120b"},   {"LLAMA3.1_405B", "llama3-405b"},
    {"LLAMA3_70B", "llama3-70b"},       {"LLAMA3_8B", "llama3-8b"},
    {"Nemotron_3_Nano", "nemotron-3-nano"},
    {"Llama 3 405B", "llama3-405b"}, /* Llama 3 paper, Table 4 (sources_scale.c) */
};

/* Models that cannot be expressed, with the reason. */
static const struct {
  const char *prefix;
  const char *why;
} mcore_unexpressible[] = {
    /* Nemotron_3_Nano is a preset (hybrid Mamba-2 stack, model/mamba.c); the
     * larger ones run latent MoE (moe_latent_size, Megatron-Bridge
     * nemotron_h_bridge.py) and MTP, whose configurations are not in data/models */
    {"Nemotron_3_Super", "Nemotron 3 Super: latent MoE (moe_latent_size) and MTP in a hybrid "
                         "Mamba-2 stack are not modelled, and its configuration is not in "
                         "data/models"},
    {"Nemotron_3_Ultra", "Nemotron 3 Ultra: latent MoE in a hybrid Mamba-2 stack is not "
                         "modelled, and its configuration is not in data/models"},
    {"Nemotron_3_5", "no Nemotron 3.5 preset: its configuration is not in data/models"},
    {"Qwen3-Next", "Qwen3-Next mixes Gated DeltaNet linear attention with gated attention; linear "
                   "attention is not modelled"},
    {"DeepSeekV4", "no DeepSeek-V4 preset: its configuration is not in data/models"},
    {"Kimi_K2", "no Kimi K2 preset: its configuration is not in data/models"},
};

/* A stated dimension column must agree with the preset (0 = not stated). */
static bool mcore_dim(const struct validate_in *in, const char *col, int64_t want,
                      struct pl_vrow *row) {
  int64_t v = 0;
  bool present = false;
  if (validate_int(cell(in, col), &v, &present) != PL_OK || !present || v == want)
    return true;
  return validate_skip(row, "column '%s' = %lld but the preset has %lld", col, (long long)v,
                       (long long)want);
}

static bool mcore_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  const char *name = cell(in, "model");
  size_t n = strcspn(name, "(");
  while (n > 0 && name[n - 1] == ' ')
    n--;
  for (size_t i = 0; i < sizeof mcore_unexpressible / sizeof mcore_unexpressible[0]; i++)
    if (strncmp(name, mcore_unexpressible[i].prefix, strlen(mcore_unexpressible[i].prefix)) == 0)
      return validate_skip(row, "%s", mcore_unexpressible[i].why);
  for (size_t i = 0; i < sizeof mcore_models / sizeof mcore_models[0]; i++) {
    if (strlen(mcore_models[i].name) != n || strncmp(name, mcore_models[i].name, n) != 0)
      continue;
    struct pl_diag d;
    pl_diag_clear(&d);
    enum pl_status st = pl_model_load(mcore_models[i].preset, m, &d);
    if (st != PL_OK) {
      if (st == PL_ERR_NOMEM)
        *in->fatal = st;
      return validate_skip(row, "model preset: %s", d.msg);
    }
    if (strstr(name, "w/o MTP") != NULL)
      m->mtp_layers = 0;
    validate_note(row, "model: preset %s",
                  mcore_models[i].preset);
    return mcore_dim(in, "layers", m->layers, row) && mcore_dim(in, "hidden", m->hidden, row) &&
           mcore_dim(in, "heads", m->heads, row) && mcore_dim(in, "kv_heads", m->kv_heads, row) &&
           mcore_dim(in, "moe_experts", m->experts, row) &&
           mcore_dim(in, "moe_topk", m->top_k, row) &&
           mcore_dim(in, "moe_ffn_hidden", m->expert_ffn, row);
  }
  return validate_skip(row, "model '%s': no preset", name);
}

/* The expert-parallel degrees a row states (ep; etp in the model zoo). */
static bool mcore_experts(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  static const char *const cols[] = {"ep", "etp"};
  int64_t *dst[] = {&l->ep, &l->etp};
  for (int i = 0; i < 2; i++) {
    bool present = false;
    int64_t v = 0;
    if (validate_int(cell(in, cols[i]), &v, &present) != PL_OK)
      return validate_skip(row, "column '%s': '%s' is not a positive integer", cols[i],
                           cell(in, cols[i]));
    if (present)
      *dst[i] = v;
  }
  return true;
}

/* Routing as benchmarked: both sources force-balance the router
 * (--moe-router-force-load-balancing: Megatron-Bridge's notes "benchmarks
 * force-balance tokens across experts", the model zoo's commands and its
 * "(forced balance)" figures), so every expert rank gets the mean. */
static void mcore_balance(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (strstr(cell(in, "notes"), "force-balance") != NULL ||
      strstr(cell(in, "notes"), "force-load-balancing") != NULL ||
      strstr(cell(in, "TFLOPS"), "forced balance") != NULL) {
    l->moe_imbalance = 1.0;
    validate_note(row, "imbalance 1 (force-balanced router)");
  }
}

/* Megatron-Bridge 25.09-26.08 performance summary (docs/performance-summary.md
 * and -archive.md @ 067f987df0): tokens/s/GPU per row. */
static bool bridge_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *shard = cell(in, "sharding");
  const char *fsdp = "Megatron FSDP (";
  int64_t group = strncmp(shard, fsdp, strlen(fsdp)) == 0 ? strtoll(shard + strlen(fsdp), NULL, 10)
                                                          : 0;
  if (group > 0) {
    l->shard = PL_SHARD_ZERO3;
    l->shard_group = group;
    l->shard_grads_reduce_dtype = true; /* Megatron FSDP's main_grad_buffer (layout.h) */
    l->fsdp_block_units = true;         /* fsdp_unit_modules [TransformerLayer] (layout.h) */
    validate_note(row, "Megatron FSDP with sharding group %lld (the page's FSDP column) as zero3, "
                       "gradient shards in the reduce dtype, blocks as its units",
                  (long long)group);
  } else {
    /* "DDP (distributed optimizer not stated)" or empty */
    l->shard = PL_SHARD_ZERO1;
    validate_note(row, "distributed optimizer (not stated; the recipes' "
                       "use_distributed_optimizer=True)");
  }
  if (cell(in, "recompute")[0] != '\0')
    return validate_skip(row, "recompute '%s' not understood", cell(in, "recompute"));
  l->recompute = PL_RECOMPUTE_NONE;
  validate_note(row, "no recompute (not stated)");
  /* Every release's performance scripts set cross_entropy_fusion_impl "te"
   * (r0.1.0 scripts/performance/configs/<model>/<model>_llm_pretrain.yaml for 25.09;
   * v0.2.0-v0.2.2 utils/helpers.py, v0.3.0-v0.6.0 and HEAD 067f987df0
   * utils/overrides.py _set_common_perf_overrides) on top of the providers'
   * cross_entropy_loss_fusion=True (gpt_provider.py) */
  l->te_cross_entropy = true;
  validate_note(row, "TE fused cross-entropy (the performance scripts' cross_entropy_fusion_impl te)");
  return true;
}

/* DeepSeek-V3 as Megatron-Bridge trains it (067f987df0): one MTP module
 * (recipes/deepseek/h100/deepseek_v3.py deepseek_v3_pretrain_1024gpu_h100_bf16_config,
 * mtp_num_layers = 1; none in the rows named "w/o MTP") and a pipeline layout
 * string per (pp, vp) (the same file's _get_deepseek_v3_pipeline_layout map,
 * last stage ["mtp"] * mtp_num_layers + ["loss"]; the perf recipes
 * perf_recipes/deepseek/gb300/deepseek_v3.py (pp 2, vp 8) and h100/deepseek_v3.py
 * (pp 8, vp 4) pass their strings explicitly). Other (pp, vp) have no layout
 * there, and 61 blocks split over them no other way. */
static bool bridge_deepseek(const struct validate_in *in, struct pl_layout *l,
                            struct pl_vrow *row) {
  static const struct {
    int64_t pp, vp;
    const char *head, *tail; /* the string is head + ("m" x mtp) + tail */
  } maps[] = {
      {4, 1, "Et*16|t*16|t*16|t*13", "L"}, {8, 1, "Et*8|(t*8|)*6t*5", "L"},
      {4, 2, "Et*8|(t*8|)*6t*5", "L"},     {16, 1, "Et*4|(t*4|)*14t", "L"},
      {8, 2, "Et*4|(t*4|)*14t", "L"},      {4, 4, "Et*4|(t*4|)*14t", "L"},
      {2, 8, "Et*4|(t*4|)*14t", "L"},      {8, 4, "Et|(tt|)*30", "L"},
  };
  bool mtp = strstr(cell(in, "model"), "w/o MTP") == NULL;
  int64_t vp = l->vp > 0 ? l->vp : 1, pp = l->pp > 0 ? l->pp : 1;
  l->mtp_layers = mtp ? 1 : 0;
  /* Every release's DeepSeek-V3 recipe runs Megatron-Core's precision-aware
   * optimizer with bf16 moments (use_precision_aware_optimizer True,
   * main_params_dtype fp32, exp_avg_dtype / exp_avg_sq_dtype bf16):
   * recipes/deepseek/deepseek_v3.py (v0.1.0rc4, whose 25.09 performance yaml
   * configs/deepseek/deepseek_v3_llm_pretrain.yaml sets no optimizer key;
   * v0.2.0-v0.2.2 deepseek_v3 pretrain_config,
   * v0.3.0-v0.5.0 deepseek_v3_pretrain_config; HEAD 067f987df0
   * recipes/deepseek/h100/deepseek_v3.py deepseek_v3_pretrain_1024gpu_h100_bf16_config,
   * re-exported as deepseek_v3_pretrain_config and the base of the
   * perf_recipes). The performance scripts keep it (they clear it only
   * for Megatron FSDP: utils/helpers.py, utils/overrides.py) */
  if (l->shard != PL_SHARD_DDP) {
    l->adam_moments_bf16 = true;
    validate_note(row, "Adam moments in bf16 (the recipe's precision-aware optimizer)");
  }
  if (pp == 1)
    return true;
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
    if (maps[i].pp != pp || maps[i].vp != vp)
      continue;
    snprintf(l->pipeline_layout, sizeof l->pipeline_layout, "%s%s%s", maps[i].head,
             mtp ? "m" : "", maps[i].tail);
    validate_note(row, "pipeline layout %s, %s (Megatron-Bridge DeepSeek-V3 recipe)",
                  l->pipeline_layout, mtp ? "one MTP module" : "no MTP");
    return true;
  }
  return validate_skip(row, "no Megatron-Bridge DeepSeek-V3 pipeline layout for pp %lld vp %lld "
                            "(61 blocks do not split evenly)",
                       (long long)pp, (long long)vp);
}

/* Footnotes of the Megatron-Bridge tables that say a published figure is not
 * the configuration's performance. docs/performance-summary-archive.md
 * (HEAD 067f987df0), 26.06.01 NeMo Container, GPT OSS 120B: "[^gpt-oss-note]:
 * Performance regression in GPT-OSS 120B pre-training is a known issue
 * (NVIDIA/cudnn-frontend issue 256). It will be resolved with the next
 * container release." (that issue: the MoE grouped GEMM dGLU kernel
 * grouped_gemm_dglu_wrapper_sm100 10x slower from cudnn-frontend 1.24.0).
 * A row whose figures carry such a marker is skipped with the note. */
static bool bridge_flagged(const struct validate_in *in, struct pl_vrow *row) {
  static const struct {
    const char *marker, *why;
  } notes[] = {
      {"[^gpt-oss-note]", "the table flags this figure as a known performance regression "
                          "([^gpt-oss-note]: cudnn-frontend issue 256, grouped GEMM dGLU kernel "
                          "10x slower; fixed in the next container)"},
  };
  const char *cols[] = {"Tokens / sec / GPU", "Model TFLOP / sec / GPU"};
  for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++)
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
      if (strstr(cell(in, cols[c]), notes[i].marker) != NULL)
        return validate_skip(row, "%s", notes[i].why);
  return true;
}

/* Whether w is one of the space-separated words of list. */
static bool word_in(const char *list, const char *w) {
  size_t n = strlen(w);
  while (n > 0 && *list != '\0') {
    size_t k = strcspn(list, " ");
    if (k == n && strncmp(list, w, n) == 0)
      return true;
    list += k;
    list += strspn(list, " ");
  }
  return false;
}

/* A run that sets Megatron-Core's overlap_moe_expert_parallel_comm (why: the
 * note's words), unless Megatron-Core refuses it for the row's layout (ep 1,
 * or pp > 1 without vp: transformer_config.py, schedules.py). */
static void mcore_ep_overlap(struct pl_layout *l, struct pl_vrow *row, const char *why) {
  if (l->ep < 2 || (l->pp > 1 && l->vp < 2)) {
    validate_note(row, "ep all-to-all overlap off (%s; Megatron-Core refuses it for ep 1 or "
                       "pp > 1 without vp)", why);
    return;
  }
  l->ep_comm_overlap = true;
  validate_note(row, "ep all-to-all overlap (%s)", why);
}

/* Expert-parallel all-to-all overlap (layout.ep_comm_overlap) for the rows
 * whose Megatron-Bridge configuration set overlap_moe_expert_parallel_comm.
 * The rows do not state it; each container section is matched to the
 * Megatron-Bridge release of its month (tags v0.4.0 2026-04-16, v0.5.0
 * 2026-06-16, v0.6.0 2026-08-19; the 25.x sections are not read: v0.2.2's
 * configs/qwen3/workload_base_configs.py and deepseek's set moe_a2a_overlap=True
 * in some configs whose layouts the 25.x rows do not state as run), and that release's
 * performance configuration for the row's model, GPU and precision is read:
 *  - 26.08: src/megatron/bridge/perf_recipes (HEAD 067f987df0, v0.6.x):
 *    deepseek/common.py _enable_deepseek_full_iteration_mxfp8 (DeepSeek-V3
 *    fp8mx on GB300, GB200, B300) and b200/deepseek_v3.py fp8mx and nvfp4;
 *    qwen/common.py _enable_hybridep_full_iteration_mxfp8 (Qwen3-235B and
 *    Qwen3-30B fp8mx on GB300, GB200, B300; 235B on B200) and
 *    qwen/b200/qwen3_moe.py qwen3_30b_a3b_pretrain_8gpu_b200_fp8mx_config;
 *    gpt_oss/common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs (GPT-OSS
 *    120B fp8mx on GB300, GB200); qwen/h100/qwen3_moe.py (235B bf16 and fp8cs,
 *    30B bf16);
 *  - 26.06, 26.06.01: v0.5.0 scripts/performance/configs/<model>/<model>_workload_base_configs.py,
 *    moe_a2a_overlap=True in DEEPSEEK_V3_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V1,
 *    _B200_FP8_MX_V2, _B200_NVFP4_V2, GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2
 *    and _GB200_BF16_V2 (GBS 1280);
 *    and qwen/qwen3_workload_base_configs.py QWEN3_30B_A3B_PRETRAIN_CONFIG_{GB300,GB200,B300}_FP8_MX_V1
 *    (moe_a2a_overlap=True, full_iteration graphs, cutedsl_fused_grouped_mlp; applied by
 *    scripts/performance/utils/overrides.py _set_moe_a2a_overlap_overrides:
 *    comm_overlap.overlap_moe_expert_parallel_comm = True; the same as 26.08's perf_recipes);
 *  - 26.04, 26.04.01: v0.4.0, GPT_OSS_120B_PRETRAIN_CONFIG_GB200_BF16_V2 only;
 *  - 26.02: v0.3.0 qwen/qwen3_workload_base_configs.py sets moe_a2a_overlap=True in
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1 and in the Qwen3-235B V1 configs
 *    of B300/H100, which the gbs 8192 _V2 configs replace() and keep, applied by
 *    utils/overrides.py _set_moe_a2a_overlap_overrides as above (with delay_wgrad_compute);
 *  - Qwen3-235B (ep10's audit, listed in the table): H100 V1/V2 in v0.3.0-v0.5.0, B300 in
 *    v0.3.0, GB300/GB200 FP8_MX_V2 in v0.5.0, and v0.2.2 (25.11) B200/H100 and Qwen3-30B H100.
 * A row whose layout Megatron-Core refuses the overlap for (ep 1, or pp > 1
 * without a virtual pipeline: transformer_config.py __post_init__) keeps it off. */
static void bridge_ep_overlap(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  static const struct {
    const char *section, *model, *gpus; /* gpus: the names after "DGX-", space-separated */
    int dtype;                          /* enum pl_dtype, or -1 for any */
    int64_t gbs;                        /* 0: any */
  } on[] = {
      {"26.08", "DeepSeekV3", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8, 0},
      {"26.08", "DeepSeekV3", "B200", PL_DTYPE_NVFP4, 0},
      {"26.08", "Qwen3_235B", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8, 0},
      {"26.08", "Qwen3_30B", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8, 0},
      {"26.08", "GPT OSS 120B", "GB300 GB200", PL_DTYPE_MXFP8, 0},
      {"26.08", "Qwen3_235B", "H100", -1, 0},
      {"26.08", "Qwen3_30B", "H100", PL_DTYPE_BF16, 0},
      {"26.06", "DeepSeekV3", "GB300 GB200 B200", PL_DTYPE_MXFP8, 0},
      {"26.06", "Qwen3_30B", "GB300 GB200 B300", PL_DTYPE_MXFP8, 0},
      {"26.06", "DeepSeekV3", "B200", PL_DTYPE_NVFP4, 0},
      {"26.06", "GPT OSS 120B", "GB300 GB200", PL_DTYPE_MXFP8, 0},
      {"26.06", "GPT OSS 120B", "GB200", PL_DTYPE_BF16, 1280},
      {"26.04", "GPT OSS 120B", "GB200", PL_DTYPE_BF16, 1280},
      /* 26.02 only (the full section name: 26.02.01 is v0.3.1, whose H100 configs set
       * moe_a2a_overlap=False): v0.3.0 QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1
       * (pp 2 vp 12 ep 8 gbs 1024, the row's layout), moe_a2a_overlap=True, deepep */
      {"26.02 NeMo Container", "Qwen3_30B", "H100", -1, 0},
      /* 26.04.01: v0.4.2 DEEPSEEK_V3_PRETRAIN_CONFIG_B200_FP8_MX_V2 (pp 8 vp 2 ep 32,
       * moe_a2a_overlap=True, moe_flex_dispatcher_backend "deepep") */
      {"26.04.01", "DeepSeekV3", "B200", PL_DTYPE_MXFP8, 0},
      /* Qwen3-235B-A22B (ep10, session 10: grep of moe_a2a_overlap=True in every release's
       * scripts/performance/configs/qwen and qwen3 workload base configs):
       * v0.5.0 (26.06, 26.06.01) QWEN3_235B_A22B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2;
       * QWEN3_235B_A22B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1 in v0.3.0, v0.3.1, v0.4.0,
       * v0.4.2 and v0.5.0 (26.02 to 26.06.01; the _V2 configs replace() them and keep it);
       * v0.3.0 (26.02 only) QWEN3_235B_A22B_PRETRAIN_CONFIG_B300_{BF16,FP8_CS}_V1 (FP8_MX =
       * FP8_CS; v0.3.1 sets False); v0.2.2 (25.11) configs/qwen3/workload_base_configs.py
       * QWEN3_235B_A22B_{B200,H100}_{BF16,FP8_CS}_BASE_CONFIG (B200 FP8_MX = FP8_CS) and
       * QWEN3_30B_A3B_H100_{BF16,FP8_CS}_BASE_CONFIG */
      {"26.06", "Qwen3_235B", "GB300 GB200", PL_DTYPE_MXFP8, 0},
      {"26.06", "Qwen3_235B", "H100", -1, 0},
      {"26.04", "Qwen3_235B", "H100", -1, 0},
      {"26.02", "Qwen3_235B", "H100", -1, 0},
      {"26.02 NeMo Container", "Qwen3_235B", "B300", -1, 0},
      {"25.11", "Qwen3_235B", "B200 H100", -1, 0},
      {"25.11", "Qwen3_30B", "H100", -1, 0},
  };
  const char *sec = cell(in, "table_or_section"), *name = cell(in, "model");
  const char *gpu = cell(in, "gpu");
  if (strncmp(gpu, "DGX-", 4) == 0)
    gpu += 4;
  bool set = false;
  for (size_t i = 0; i < sizeof on / sizeof on[0] && !set; i++) {
    size_t n = strlen(on[i].section);
    if (strncmp(sec, on[i].section, n) != 0 || (sec[n] != ' ' && sec[n] != '.'))
      continue;
    if (strncmp(name, on[i].model, strlen(on[i].model)) != 0)
      continue;
    if (on[i].dtype >= 0 && (int)l->dtype != on[i].dtype)
      continue;
    if (on[i].gbs > 0 && l->gbs != on[i].gbs)
      continue;
    set = word_in(on[i].gpus, gpu);
  }
  if (set)
    mcore_ep_overlap(l, row, "the release's overlap_moe_expert_parallel_comm");
}

/* A Bridge row's container, the first word of its table_or_section
 * ("26.04.01 NeMo Container / ..." -> "26.04.01"): the release whose
 * performance scripts it ran. */
static void bridge_section(const struct validate_in *in, char *sec, size_t n) {
  snprintf(sec, n, "%s", cell(in, "table_or_section"));
  sec[strcspn(sec, " ")] = '\0';
}

/* Whether a Bridge row is one of a release configuration's: its container
 * section among `sections` and its GPU ("DGX-" dropped) among `gpus`
 * (space-separated words), its model name starting with `model`, its dtype
 * `dtype` (an enum pl_dtype, or -1 for any). */
static bool bridge_names_are(const struct validate_in *in, const char *sections,
                             const char *model, const char *gpus) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *gpu = cell(in, "gpu");
  if (strncmp(gpu, "DGX-", 4) == 0)
    gpu += 4;
  return word_in(sections, sec) && strncmp(cell(in, "model"), model, strlen(model)) == 0 &&
         word_in(gpus, gpu);
}

static bool bridge_config_is(const struct validate_in *in, const struct pl_layout *l,
                             const char *sections, const char *model, const char *gpus,
                             int dtype) {
  return bridge_names_are(in, sections, model, gpus) && (dtype < 0 || (int)l->dtype == dtype);
}

/* Megatron-Bridge rows take the nemo preset (TE userbuffers tp overlap on);
 * these release configurations run without it (the section's release as for
 * bridge_recompute; r0.1.0 for 25.09). Only rows with tp > 1 move.
 *  - Qwen3-235B H100, 25.11 to 26.08: v0.2.2 scripts/performance/configs/qwen3/
 *    qwen3_llm_pretrain.py qwen3_235b_a22b_h100_config, v0.3.0-v0.5.0 configs/qwen/
 *    qwen3_llm_pretrain.py qwen3_235b_a22b_pretrain_config_h100
 *    (CommOverlapConfig(tp_comm_overlap=False)), HEAD 067f987df0 perf_recipes/qwen/h100/
 *    qwen3_moe.py qwen3_235b_a22b_pretrain_256gpu_h100_{bf16,fp8cs}_config. Not 25.09:
 *    r0.1.0 scripts/performance/run_script.py passes CommOverlapConfig(tp_comm_overlap=True)
 *    for qwen3 235b_a22b on every GPU.
 *  - Llama 3 70B and 3.1 405B NVFP4, 25.11 to 26.06.01: v0.2.2-v0.5.0
 *    configs/llama{3,31,}/llama3{,1}_llm_pretrain.py llama3_70b_pretrain_config_<gpu> and
 *    llama31_405b_pretrain_config_<gpu> (gb300, gb200, b300, b200):
 *    tp_comm_overlap = False if precision == "nvfp4".
 *  - Nemotron 3 Super and Ultra, 26.04 to 26.08: v0.4.0-v0.5.0 configs/nemotronh/
 *    nemotron_3_llm_pretrain.py nemotron_3_super_pretrain_config_<gpu> and HEAD
 *    perf_recipes/nemotronh/gb200/nemotronh.py nemotron_3_{super,ultra}_*_config leave the
 *    recipe's comm_overlap=None (recipes/common.py _pretrain_common; nemotron_3_super.py
 *    sets none), so Megatron-Core's tp_comm_overlap default False holds
 *    (training/config.py: CommOverlapConfig.setup runs only when comm_overlap is set).
 *  - DeepSeek-V3, 25.09: r0.1.0 run_script.py passes no comm_overlap_config and
 *    recipes/deepseek/deepseek_v3.py pretrain_config defaults CommOverlapConfig(
 *    tp_comm_overlap=False). */
/* The LM head in MXFP8 (behaviour head_16bit off) for the Megatron-Bridge configs
 * that set fp8_output_proj: Megatron-Core then builds the output layer as TE's
 * TELMHeadColumnParallelLinear under the MXFP8 recipe (gpt_model.py, fp8_utils.py
 * is_mxfp8_output_proj_active, core_v0.18.0, the v0.5.0 pin), also the head MTP
 * shares; nemo's head_16bit (a plain ColumnParallelLinear in 16-bit) otherwise.
 *  - 26.06, 26.06.01 (v0.5.0 scripts/performance/configs): deepseek_llm_pretrain.py
 *    deepseek_v3_pretrain_config_{gb300,gb200} and gpt_oss_llm_pretrain.py's GB300 and
 *    GB200 configs: `if cfg.mixed_precision.fp8_recipe == "mxfp8": fp8_output_proj = True`
 *    (the B300/B200 functions do not);
 *  - 26.08 (HEAD 067f987df0 perf_recipes): deepseek/{gb300,gb200,b300}/deepseek_v3.py fp8mx
 *    (_enable_deepseek_full_iteration_mxfp8(cfg, ..., fp8_output_proj=True)), gpt_oss/
 *    common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs (GB300, GB200 fp8mx). */
static void bridge_output_proj(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
  } cfg[] = {
      {"26.06 26.06.01", "DeepSeekV3", "GB300 GB200"},
      {"26.08", "DeepSeekV3", "GB300 GB200 B300"},
      {"26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 GB200"},
  };
  const char *prec = cell(in, "precision");
  if (strcmp(prec, "MXFP8") != 0 && strcmp(prec, "FP8-MX") != 0)
    return;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_names_are(in, cfg[i].sections, cfg[i].model, cfg[i].gpus))
      continue;
    fw->head_16bit = PL_SETTING_OFF;
    validate_note(row, "LM head in MXFP8 (the release's fp8_output_proj, not stated in the row)");
    return;
  }
}

/* The cuDNN of a Bridge row's container, read in the release of its month as
 * bridge_ep_overlap: the 25.11 section is v0.2.0-v0.2.2, whose image is
 * NGC PyTorch 25.09 (docker/Dockerfile.ci FROM nvcr.io/nvidia/pytorch:25.09-py3;
 * docker/common/install.sh installs its Python packages with
 * --no-install-package nvidia-cudnn-cu12, keeping the container's cuDNN), and
 * that container ships cuDNN 9.13 (NVIDIA/cudnn-frontend
 * benchmark/sdpa_benchmark_training/README.md @ bb37575: torch.backends.cudnn.
 * version() = 91300 in nvcr.io/nvidia/pytorch:25.09-py3). Its fused attention
 * runs at the rates NVIDIA published for cuDNN 9.13.1 (layout.cudnn_version 9.13; GPU
 * files with attention.cudnn.shape_9_13: B200, GB200, GB300). v0.3.0 (26.02)
 * moves to PyTorch 25.11 and later releases to newer images: today's rates.
 * The 25.09 section (r0.1.0, an ubuntu:24.04 image with the CUDA repository's
 * cuDNN of its build date) is not read: its rows state no precision. */
static void bridge_cudnn(const struct validate_in *in, struct pl_framework *fw,
                         struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  if (!word_in("25.11", sec))
    return;
  fw->cudnn_version = PL_CUDNN_913;
  fw->cudnn_version_set = true;
  validate_note(row, "cuDNN 9.13 attention (the release's image, NGC PyTorch 25.09)");
}

static bool bridge_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row) {
  bridge_output_proj(in, fw, row);
  bridge_cudnn(in, fw, row);
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words */
    const char *precision;               /* the row's precision cell, or NULL for any */
    const char *why;
  } off[] = {
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "Qwen3_235B", "H100", NULL,
       "the release's Qwen3-235B H100 config"},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "LLAMA3", "GB300 GB200 B300 B200",
       "NVFP4", "the release's Llama 3 nvfp4 config"},
      {"26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Super", "GB300 GB200 B300 B200", NULL,
       "the release's Nemotron 3 Super config sets no comm_overlap"},
      {"26.08", "Nemotron_3_Ultra", "GB200", NULL,
       "the release's Nemotron 3 Ultra config sets no comm_overlap"},
      {"25.09", "DeepSeekV3", "H100 B200 GB200", NULL,
       "r0.1.0's DeepSeek-V3 recipe default"},
  };
  for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
    if (!bridge_names_are(in, off[i].sections, off[i].model, off[i].gpus))
      continue;
    if (off[i].precision != NULL && strcmp(cell(in, "precision"), off[i].precision) != 0)
      continue;
    fw->tp_comm_overlap = PL_SETTING_OFF;
    validate_note(row, "tp_comm_overlap off (%s)", off[i].why);
    return true;
  }
  return true;
}

/* Megatron-Core selective recompute modules (layout.recompute_modules) of the
 * rows whose Megatron-Bridge performance configuration sets them. The rows do
 * not state them; as for bridge_ep_overlap each container section is read in
 * the release of its month (tag dates: v0.2.0 2025-11-26, v0.3.0 2026-02-26,
 * v0.3.1 2026-03-20, v0.4.0 2026-04-16, v0.4.2 2026-05-28, v0.5.0 2026-06-16,
 * v0.6.0 2026-08-19), whose performance scripts run the listed modules with
 * recompute_granularity "selective" (deepseek_llm_pretrain.py; for the others
 * utils/overrides.py _set_recompute_overrides: a recompute_modules list sets
 * granularity selective). The row's pp/vp/ep/mbs were checked against the
 * same config:
 *  - DeepSeek-V3: scripts/performance/configs/deepseek/ workload base configs
 *    of v0.2.2 (25.11: GB200, B200 ["mla_up_proj"]), v0.3.0/v0.3.1 (26.02,
 *    26.02.01: GB300_V2, GB200_V2, B300_V2, B200_V2 ["mla_up_proj"]), v0.4.0
 *    (26.04: GB300_V2 and B300/B200_V2 ["mla_up_proj"], GB200_V2 ["mlp"]), v0.4.2
 *    (26.04.01: as 26.04 but B200_FP8_MX_V2 ["mla_up_proj", "mlp"]), v0.5.0
 *    (26.06, 26.06.01: GB300_FP8_MX_V2 [], GB200_FP8_MX_V2 and B300_V2
 *    ["mla_up_proj"]); HEAD 067f987df0 perf_recipes/deepseek/{gb300,gb200}/
 *    deepseek_v3.py fp8mx (26.08: [] and ["mla_up_proj"]);
 *  - GPT-OSS 120B: gpt_oss workload configs v0.2.2-v0.5.0 and HEAD
 *    perf_recipes/gpt_oss/{gb200,b200,h100}/gpt_oss.py: GB200, B200 and H100
 *    ["layernorm", "moe_act"] (GB300, B300 none), except GB200_FP8_MX_V2
 *    (v0.5.0 and HEAD: recompute_modules=[]);
 *  - Qwen3: qwen3_llm_pretrain.py sets recompute_granularity None (none);
 *  - Nemotron 3 Nano: v0.3.1 configs/nemotronh/nemotron_3_nano_workload_base_configs.py,
 *    v0.4.0, v0.4.2, v0.5.0 nemotron_3_workload_base_configs.py: H100_FP8_CS_V1
 *    ["moe", "layernorm", "core_attn", "moe_act"]; GB300, GB200, B300, B200 none
 *    (the recipe recipes/nemotronh/nemotron_3_nano.py sets recompute_granularity
 *    None; HEAD perf_recipes/nemotronh/common.py _apply_nemotron_3_nano_perf_defaults
 *    the same for 26.08).
 * An empty list means no recompute. Rows not listed keep "not stated". */
static void bridge_recompute(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words */
    int dtype;                           /* enum pl_dtype, or -1 for any */
    uint32_t mods;                       /* 0: none (an empty list) */
  } cfg[] = {
      {"26.08 26.06 26.06.01", "DeepSeekV3", "GB300", PL_DTYPE_MXFP8, 0},
      {"26.08 26.06 26.06.01", "DeepSeekV3", "GB200 B300", PL_DTYPE_MXFP8, PL_RCM_MLA_UP_PROJ},
      {"26.04 26.04.01", "DeepSeekV3", "GB200", PL_DTYPE_MXFP8, PL_RCM_MLP},
      {"26.04.01", "DeepSeekV3", "B200", PL_DTYPE_MXFP8, PL_RCM_MLA_UP_PROJ | PL_RCM_MLP},
      {"26.04 26.04.01 26.02 26.02.01", "DeepSeekV3", "GB300 GB200 B300 B200", PL_DTYPE_MXFP8,
       PL_RCM_MLA_UP_PROJ},
      {"25.11", "DeepSeekV3", "GB200 B200", -1, PL_RCM_MLA_UP_PROJ},
      {"26.08 26.06 26.06.01", "GPT OSS 120B", "GB200", PL_DTYPE_MXFP8, 0},
      {"26.08 26.06.01 26.06 26.04.01 26.04 26.02.01 26.02 25.11 25.09", "GPT OSS 120B",
       "GB200 B200 H100", -1, PL_RCM_LAYERNORM | PL_RCM_MOE_ACT},
      {"26.06.01 26.06 26.04.01 26.04 26.02.01", "Nemotron_3_Nano", "H100", PL_DTYPE_FP8,
       PL_RCM_MOE | PL_RCM_LAYERNORM | PL_RCM_CORE_ATTN | PL_RCM_MOE_ACT},
      {"26.08 26.06.01 26.06 26.04.01 26.04 26.02.01", "Nemotron_3_Nano", "GB300 GB200 B300 B200",
       -1, 0},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, cfg[i].dtype))
      continue;
    if (cfg[i].mods == 0) {
      l->recompute = PL_RECOMPUTE_NONE;
      validate_note(row, "no recompute (the release's config: recompute_modules [])");
      return;
    }
    l->recompute = PL_RECOMPUTE_SELECTIVE;
    l->recompute_modules = cfg[i].mods;
    char mods[128];
    pl_recompute_modules_format(cfg[i].mods, mods, sizeof mods);
    validate_note(row, "recompute modules %s (the release's config, not stated in the row)", mods);
    return;
  }
}

/* CUDA-graph scopes (layout.cuda_graph_scopes) of the Qwen3 rows, from the
 * Megatron-Bridge performance configuration of each container section's release
 * (as bridge_recompute: 25.11 v0.2.2, 26.02 v0.3.0, 26.02.01 v0.3.1, 26.04
 * v0.4.0, 26.04.01 v0.4.2, 26.06 and 26.06.01 v0.5.0, 26.08 HEAD 067f987df0).
 * scripts/performance/configs/qwen/qwen3_workload_base_configs.py (v0.2.2:
 * configs/qwen3/workload_base_configs.py) sets cuda_graph_impl
 * "transformer_engine" with a cuda_graph_scope per GPU and precision; a config
 * that sets none keeps the recipe's cuda_graph_impl "none"
 * (src/megatron/bridge/recipes/qwen/qwen3_moe.py): every op eager.
 *  - Qwen3-30B-A3B: GB300, B300 [moe_router, moe_preprocess]; GB200 BF16 and
 *    FP8-CS [attn, moe_router, moe_preprocess], MXFP8 [moe_router,
 *    moe_preprocess]; B200 [moe_router, moe_preprocess] in v0.2.2 and v0.3.0,
 *    [attn, moe_router, moe_preprocess] from v0.3.1; H100 BF16 [moe_router,
 *    moe_preprocess], H100 FP8-CS none. v0.5.0: GB300, GB200, B300 FP8_MX_V1
 *    cuda_graph_impl "full_iteration" (qwen3_llm_pretrain.py
 *    set_full_iter_cg_configs); HEAD perf_recipes qwen/common.py
 *    _enable_hybridep_full_iteration_mxfp8 the same for fp8mx on GB300, GB200, B300.
 *  - Qwen3-235B-A22B (the rows' gbs 8192: the V2 configs from v0.3.0): GB200
 *    [attn, moe_router, moe_preprocess]; GB300 [moe_router, moe_preprocess] in
 *    v0.2.2 and v0.3.0 BF16, [attn, moe_router, moe_preprocess] otherwise;
 *    B300, B200, H100 none; v0.5.0 GB300/GB200 FP8_MX_V2 and HEAD fp8mx on
 *    GB300, GB200, B300, B200 full_iteration.
 *  - Nemotron 3 Nano (v0.3.1 nemotron_3_nano_workload_base_configs.py, v0.4.0,
 *    v0.4.2, v0.5.0 nemotron_3_workload_base_configs.py
 *    BASE_NEMOTRON_3_NANO_CONFIG; HEAD perf_recipes/nemotronh/{gb300,gb200,b300,
 *    b200}/nemotronh.py set_cuda_graph_modules): GB300, GB200, B300, B200 [attn,
 *    mamba, moe_router, moe_preprocess]; H100 FP8_CS_V1 [mamba].
 * First match wins. Other models' rows keep none (not read here). */
static void bridge_graph_scope(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  enum {
    A = PL_CGS_ATTN,
    R = PL_CGS_MOE_ROUTER | PL_CGS_MOE_PREPROCESS,
    F = PL_CGS_FULL_ITERATION,
    M = PL_CGS_MAMBA
  };
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
    int dtype;                           /* enum pl_dtype, or -1 for any */
    uint32_t scopes;                     /* 0: none, every op eager */
  } cfg[] = {
      {"26.08 26.06 26.06.01", "Qwen3_30B", "GB300 GB200 B300", PL_DTYPE_MXFP8, F},
      {"26.08 26.06 26.06.01", "Qwen3_235B", "GB300 GB200", PL_DTYPE_MXFP8, F},
      {"26.08", "Qwen3_235B", "B300 B200", PL_DTYPE_MXFP8, F},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "GB300 B300", -1, R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "GB200",
       PL_DTYPE_MXFP8, R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "GB200", -1, A | R},
      {"25.11 26.02", "Qwen3_30B", "B200", -1, R},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "B200", -1, A | R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "H100", PL_DTYPE_BF16,
       R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "H100", -1, 0},
      {"25.11 26.02", "Qwen3_235B", "GB300", PL_DTYPE_BF16, R},
      {"25.11", "Qwen3_235B", "GB300", -1, R},
      {"26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_235B", "GB300", -1, A | R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_235B", "GB200", -1, A | R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "Qwen3_235B",
       "B300 B200 H100", -1, 0},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Nano", "GB300 GB200 B300 B200",
       -1, A | R | M},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Nemotron_3_Nano", "H100", PL_DTYPE_FP8, M},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, cfg[i].dtype))
      continue;
    l->cuda_graph_scopes = cfg[i].scopes;
    char list[64];
    pl_cuda_graph_scopes_format(cfg[i].scopes, list, sizeof list);
    validate_note(row, "CUDA graph scope %s (the release's config, not stated in the row)", list);
    return;
  }
}

/* MXFP8 attention (layout.fp8_attention) of the rows whose Megatron-Bridge
 * performance configuration sets fp8_dot_product_attention (each container
 * section read in the release of its month, as bridge_recompute; the setting
 * first appears in v0.5.0: `git grep fp8_dot_product_attention` finds it in no
 * v0.2.2-v0.4.2 scripts/performance config). Megatron-Core passes it to TE's
 * MXFP8BlockScaling(fp8_dpa=...) (fp8_utils.py get_fp8_recipe, core_v0.18.0, the
 * 3rdparty/Megatron-LM of v0.5.0), and TE (the v0.5.0 pin 4220403e, in v2.16)
 * runs cuDNN's MXFP8 SDPA for it on sm100.
 *  - 26.06, 26.06.01 (v0.5.0 scripts/performance/configs/): deepseek
 *    DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_FP8_MX_V1 (and _V2, its replace()), not GB200's;
 *    qwen QWEN3_235B_A22B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2 and
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_{GB300,GB200,B300}_FP8_MX_V1;
 *  - 26.08 (HEAD 067f987df0 src/megatron/bridge/perf_recipes): deepseek/{gb300,b300}/
 *    deepseek_v3.py fp8mx (_enable_deepseek_full_iteration_mxfp8(cfg,
 *    fp8_dot_product_attention=True); gb200's passes none: False); qwen/common.py
 *    _enable_hybridep_full_iteration_mxfp8 (Qwen3-235B and 30B fp8mx on GB300, GB200,
 *    B300; 235B on B200).
 * GPT-OSS's MXFP8 configs set it too (v0.5.0 GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,GB200}_
 * FP8_MX_V2) but are not read here: its attention sinks keep plateau on
 * FlashAttention-2's figures (layout.c te_uses_cudnn), and TE disables FusedAttention
 * for FP8 with a non-vanilla softmax (get_attention_backend, v2.14). */
static void bridge_fp8_attention(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
  } cfg[] = {
      {"26.06 26.06.01", "DeepSeekV3", "GB300"},
      {"26.08", "DeepSeekV3", "GB300 B300"},
      {"26.06 26.06.01", "Qwen3_235B", "GB300 GB200"},
      {"26.06 26.06.01", "Qwen3_30B", "GB300 GB200 B300"},
      {"26.08", "Qwen3_235B", "GB300 GB200 B300 B200"},
      {"26.08", "Qwen3_30B", "GB300 GB200 B300"},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, PL_DTYPE_MXFP8))
      continue;
    l->fp8_attention = true;
    validate_note(row, "MXFP8 attention (the release's fp8_dot_product_attention, not stated in "
                       "the row)");
    return;
  }
}

/* NVFP4 rows of the releases whose Transformer Engine casts an RHT'd tensor in
 * two passes (layout.nvfp4_rht_unfused): the Megatron-Bridge release of each
 * section (as bridge_recompute) pins TE in its uv.lock: v0.2.2 (25.11)
 * 2.9.0+70f53666, v0.3.0 and v0.3.1 (26.02, 26.02.01) 2.12.0+5671fd36, v0.4.0
 * (26.04) 2.14.0+71bbefbf, v0.4.2 2.14.1, v0.5.0 2.16.0. TE 2.9-2.13's
 * NVFP4Quantizer::quantize_impl (pytorch/csrc/quantizer.cpp) quantizes the
 * rowwise copy with nvte_quantize_v2 and the columnwise RHT copy with
 * nvte_hadamard_transform_cast_fusion_columnwise, each reading the input; TE
 * 2.14 fuses both into nvte_quantize_with_hadamard_transform. */
static void bridge_nvfp4_rht(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  if (!bridge_config_is(in, l, "25.11 26.02 26.02.01", "", "GB300 GB200 B300 B200",
                        PL_DTYPE_NVFP4))
    return;
  l->nvfp4_rht_unfused = true;
  validate_note(row, "NVFP4 RHT cast in two passes (the release's Transformer Engine 2.9/2.12)");
}

/* MoE MXFP8 rows whose release configuration runs Transformer Engine's fused
 * MXFP8 grouped MLP (layout.fused_grouped_mlp): Megatron-Core's
 * use_transformer_engine_op_fuser with NVTE_CUTEDSL_FUSED_GROUPED_MLP=1.
 *  - 26.06, 26.06.01 (v0.5.0 scripts/performance/configs): cutedsl_fused_grouped_mlp=True
 *    in DEEPSEEK_V3_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V1 (the _V2 configs replace()
 *    them), QWEN3_235B_A22B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2,
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_{GB300,GB200,B300}_FP8_MX_V1 and
 *    GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2; utils/overrides.py then sets
 *    use_transformer_engine_op_fuser and moe_mlp_glu_interleave_size 32, perf_plugins.py
 *    NVTE_CUTEDSL_FUSED_GROUPED_MLP=1;
 *  - 26.08 (HEAD 067f987df0 perf_recipes): the op fuser from deepseek/common.py
 *    _enable_deepseek_full_iteration_mxfp8 (deepseek_v3 fp8mx on gb300, gb200, b300),
 *    qwen/common.py _enable_hybridep_full_iteration_mxfp8 (qwen3_235b and qwen3_30b fp8mx
 *    on gb300, gb200, b300; 235b 256-GPU on b200) and gpt_oss/common.py
 *    _apply_gpt_oss_120b_full_iter_fp8mx_configs (gb300, gb200), each with the env
 *    NVTE_CUTEDSL_FUSED_GROUPED_MLP: 1 in its config function. */
static void bridge_fused_mlp(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus;
  } on[] = {
      {"26.06 26.06.01 26.08", "DeepSeekV3", "GB300 GB200"},
      {"26.08", "DeepSeekV3", "B300"},
      {"26.06 26.06.01 26.08", "Qwen3_235B", "GB300 GB200"},
      {"26.08", "Qwen3_235B", "B300"},
      {"26.06 26.06.01 26.08", "Qwen3_30B", "GB300 GB200 B300"},
      {"26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 GB200"},
  };
  for (size_t i = 0; i < sizeof on / sizeof on[0]; i++) {
    if (bridge_config_is(in, l, on[i].sections, on[i].model, on[i].gpus, PL_DTYPE_MXFP8)) {
      l->fused_grouped_mlp = true;
      validate_note(row, "fused MXFP8 grouped MLP (the release's cutedsl_fused_grouped_mlp / "
                         "TE op fuser)");
      return;
    }
  }
}

/* The FP8 recipe of the rows whose precision reads plain "FP8" (the 26.x
 * sections; 25.11 writes "FP8-CS"). Each section was read in the release of
 * its month (26.02: v0.3.0, 26.02.01: v0.3.1, 26.04: v0.4.0, 26.04.01:
 * v0.4.2, 26.06: v0.5.0): scripts/performance/argument_parser.py
 * --compute_dtype offers only bf16, fp8_cs, fp8_mx, fp8_sc and nvfp4 (no
 * delayed scaling), and scripts/performance/configs/<model>/<model>_workload_base_configs.py
 * define for Llama 3 8B/70B, Llama 3.1 405B, Qwen3 30B/235B and Nemotron 3
 * Nano only *_FP8_CS_* among the FP8 configs (fp8_sc: DeepSeek-V3 and Kimi-K2
 * on H100 only); the rows' layouts are those configs'. fp8_cs is
 * utils/precision.py get_precision_config -> mixed_precision.py
 * bf16_with_fp8_current_scaling_mixed (fp8_recipe "tensorwise": Transformer
 * Engine Float8CurrentScaling) -> plateau's fp8-current. */
static void bridge_fp8_recipe(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *name = cell(in, "model");
  if (l->dtype != PL_DTYPE_FP8 || l->fp8_recipe != PL_FP8_RECIPE_TENSOR ||
      !word_in("26.02 26.02.01 26.04 26.04.01 26.06", sec) ||
      strncmp(name, "DeepSeekV3", 10) == 0 || strncmp(name, "Kimi", 4) == 0)
    return;
  l->fp8_recipe = PL_FP8_RECIPE_CURRENT;
  validate_note(row, "FP8 as current scaling (the release's performance scripts: fp8_cs, "
                     "no delayed scaling)");
}

/* FP8 parameters of the Megatron FSDP rows under FP8 current scaling
 * (layout.fp8_all_gather, pl_layout_te_fp8_params): every release's fp8_cs
 * recipe, mixed_precision.py bf16_with_fp8_current_scaling_mixed (r0.1.0,
 * v0.2.0, v0.3.1, v0.4.0, v0.4.2), sets fp8_param_gather = True, and the
 * performance scripts leave it on (only Kimi-K2's MXFP8 config turns it off).
 * Run after bridge_fp8_recipe. */
static void bridge_fp8_params(struct pl_layout *l, struct pl_vrow *row) {
  if (l->shard != PL_SHARD_ZERO3 || l->dtype != PL_DTYPE_FP8 ||
      l->fp8_recipe != PL_FP8_RECIPE_CURRENT)
    return;
  l->fp8_all_gather = true;
  validate_note(row, "FP8 parameters, gathered at 1 B (the fp8_cs recipe's fp8_param_gather)");
}

/* Activation CPU offloading (layout.act_offload_layers) of the Llama 3 70B
 * rows trained with Megatron FSDP. The rows do not state it; each section
 * was read in the release of its month (25.11: v0.2.0-v0.2.2
 * scripts/performance/configs/llama3/workload_base_configs.py
 * LLAMA3_70B_{GB300,GB200}_FP8_CS_BASE_CONFIG; 26.02: v0.3.0, 26.02.01:
 * v0.3.1, 26.04: v0.4.0, 26.04.01: v0.4.2 configs/llama/
 * llama3_workload_base_configs.py LLAMA3_70B_PRETRAIN_CONFIG_{GB300,GB200}_
 * FP8_CS_V1/V2): micro_batch_size 2, use_megatron_fsdp True,
 * cpu_offloading_num_layers 20 on GB300 and 40 on GB200, tp 1 pp 1 as the
 * rows. utils/overrides.py _set_recompute_overrides (v0.2.x utils/helpers.py
 * set_recompute_overrides) turns that into model.cpu_offloading True,
 * cpu_offloading_weights False, cpu_offloading_num_layers N. The same
 * releases configure no FP8 Megatron-FSDP layout on other GPUs, and
 * their MXFP8/NVFP4 GB300 layouts are pp 4 vp 5 with micro_batch_size 1 (the
 * V1/V2 configs above): the two 26.02.01 GB300 rows that state tp 1 pp 1 /
 * pp 4 with mbs 2 for those precisions are not a layout the release ran. */
static bool bridge_offload(const struct validate_in *in, struct pl_layout *l,
                           struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *gpu = cell(in, "gpu");
  /* GPT-OSS 120B on H100, 25.11: v0.2.0-v0.2.2 gpt_oss/workload_base_configs.py
   * GPT_OSS_120B_H100_BF16_BASE_CONFIG (BASE_GPT_OSS_120B_CONFIG micro_batch_size 1,
   * GBS 512, pp 4, ep 8); the row states mbs 4, and its mbs x dp x GA (4 x 16 x 2 =
   * 128) is not its GBS 512 either; every later section states mbs 1 */
  if (strncmp(cell(in, "model"), "GPT OSS 120B", 12) == 0 && strcmp(sec, "25.11") == 0 &&
      strcmp(gpu, "DGX-H100") == 0 && l->mbs != 1)
    return validate_skip(row, "the row's mbs %lld is not the release's (v0.2.x "
                              "GPT_OSS_120B_H100_BF16_BASE_CONFIG: mbs 1) nor consistent with "
                              "its GBS (mbs x dp x GA = 128 != 512)",
                         (long long)l->mbs);
  if (strncmp(cell(in, "model"), "LLAMA3_70B", 10) != 0 ||
      !word_in("25.11 26.02 26.02.01 26.04 26.04.01", sec))
    return true;
  bool gb300 = strcmp(gpu, "DGX-GB300") == 0, gb200 = strcmp(gpu, "DGX-GB200") == 0;
  if (gb300 && strcmp(sec, "26.02.01") == 0 &&
      (l->dtype == PL_DTYPE_MXFP8 || l->dtype == PL_DTYPE_NVFP4) && l->mbs == 2)
    return validate_skip(row, "the row's layout (tp %lld pp %lld, mbs 2) is not the release's "
                              "(v0.3.1 LLAMA3_70B_PRETRAIN_CONFIG_GB300_%s_V2: pp 4 vp 5, mbs 1)",
                         (long long)l->tp, (long long)l->pp,
                         l->dtype == PL_DTYPE_MXFP8 ? "FP8_MX" : "NVFP4");
  if (!(gb300 || gb200) || l->shard != PL_SHARD_ZERO3 || l->dtype != PL_DTYPE_FP8 ||
      l->tp != 1 || l->pp != 1 || l->mbs != 2)
    return true;
  l->act_offload_layers = gb300 ? 20 : 40;
  validate_note(row, "activations of %lld blocks offloaded to the host (the release's "
                     "cpu_offloading_num_layers, not stated in the row)",
                (long long)l->act_offload_layers);
  return true;
}

/* GPT-OSS 120B's token dispatcher by release (each section's Megatron-Bridge
 * release as for bridge_ep_overlap). The recipe and the model bridge set
 * moe_token_dispatcher_type "alltoall" (src/megatron/bridge/recipes/gpt_oss/
 * gpt_oss.py, models/gpt_oss/gpt_oss_provider.py, v0.2.2 .. v0.6.0; the
 * recipe's moe_flex_dispatcher_backend "deepep" is inert without the flex
 * type); the performance configs switch to the flex dispatcher with the
 * hybridep backend only where they name it (scripts/performance/configs/
 * gpt_oss/gpt_oss_llm_pretrain.py applies base_cfg.moe_flex_dispatcher_backend
 * through apply_flex_dispatcher_backend, which sets the flex type):
 *  - 25.11 (v0.2.2 configs/gpt_oss/workload_base_configs.py), 26.02, 26.02.01
 *    (v0.3.0, v0.3.1 gpt_oss_workload_base_configs.py): no backend on any GPU:
 *    alltoall, the GB200/GB300 rows included;
 *  - 26.04 (v0.4.0): GPT_OSS_120B_PRETRAIN_CONFIG_{GB200,B300,B200}_BF16_V2
 *    hybridep; GB300 and H100 none;
 *  - 26.04.01 (v0.4.2): B300_BF16_V2 hybridep only;
 *  - 26.06, 26.06.01 (v0.5.0): B300_BF16_V2 (and FP8_MX_V2 = it) hybridep,
 *    {GB300,GB200}_FP8_MX_V2 hybridep; B200 and H100 none;
 *  - 26.08 (HEAD 067f987df0 perf_recipes/gpt_oss/common.py
 *    _apply_gpt_oss_120b_full_iter_fp8mx_configs: moe_token_dispatcher_type
 *    "flex", backend hybridep, GB300 and GB200 fp8mx).
 * Returns whether the row is GPT-OSS 120B (its dispatcher then set here). */
static bool bridge_gpt_oss_dispatch(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  static const struct {
    const char *sections, *gpus;
    int dtype; /* enum pl_dtype, or -1 for any */
  } flex[] = {
      {"26.04", "GB200 B300 B200", -1},
      {"26.04.01", "B300", -1},
      {"26.06 26.06.01", "B300", -1},
      {"26.06 26.06.01 26.08", "GB300 GB200", PL_DTYPE_MXFP8},
  };
  if (strncmp(cell(in, "model"), "GPT OSS 120B", 12) != 0)
    return false;
  l->dispatch = PL_MOE_ALLTOALL;
  for (size_t i = 0; i < sizeof flex / sizeof flex[0]; i++)
    if (bridge_config_is(in, l, flex[i].sections, "GPT OSS 120B", flex[i].gpus, flex[i].dtype)) {
      l->dispatch = PL_MOE_DEEPEP; /* priced as hybridep where its measurements apply */
      validate_note(row, "hybridep dispatcher (the release's GPT-OSS config)");
      return true;
    }
  validate_note(row, "alltoall dispatcher (the release's GPT-OSS config)");
  return true;
}

/* The DGX (8-GPU node) configurations whose release sets a flex dispatcher backend
 * (the first match wins; the rows of other releases keep the dispatcher chosen above):
 *  - DeepSeek-V3 on DGX B200/B300 from 26.02 (v0.3.0, v0.3.1, v0.4.0, v0.4.2, v0.5.0
 *    scripts/performance/configs/deepseek/deepseek_workload_base_configs.py
 *    DEEPSEEK_V3_PRETRAIN_CONFIG_{B200,B300}_V1, inherited by the _V2 configs:
 *    moe_flex_dispatcher_backend "hybridep"; src/megatron/bridge/training/
 *    flex_dispatcher_backend.py apply_flex_dispatcher_backend sets the flex dispatcher for
 *    hybridep on compute capability 8-10, B200 and B300 included). v0.2.x (25.09, 25.11) set
 *    no backend: alltoall. With ep 8 the group is one node: no deduplication across nodes.
 *  - Qwen3-30B-A3B on DGX H100 from 26.02.01 (v0.3.1, v0.4.0, v0.4.2, v0.5.0
 *    scripts/performance/configs/qwen/qwen3_workload_base_configs.py
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1: expert_model_parallel_size 16
 *    over the 16 GPUs, moe_flex_dispatcher_backend "hybridep"; apply_flex_dispatcher_backend
 *    accepts compute capability 9). With ep 16 the group spans two nodes.
 *  - 26.02 (v0.3.0 QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_{BF16,FP8_CS}_V1, pp 2 vp 12 ep 8):
 *    moe_flex_dispatcher_backend "deepep". v0.2.x (25.11) sets no backend: alltoall.
 *  - Nemotron 3 Nano on DGX B200/B300/H100 (v0.3.1 configs/nemotronh/
 *    nemotron_3_nano_workload_base_configs.py, v0.4.0, v0.4.2, v0.5.0
 *    nemotron_3_workload_base_configs.py BASE_NEMOTRON_3_NANO_CONFIG:
 *    moe_flex_dispatcher_backend "hybridep", inherited by every GPU's config, H100 included;
 *    the recipe recipes/nemotronh/nemotron_3_nano.py sets moe_token_dispatcher_type "flex"
 *    itself, and training/config.py's validate_flex_dispatcher_backend accepts hybridep on
 *    compute capability 8-10).
 *    ep 8 is one node on every one of these rows: on Blackwell the call is priced at
 *    HybridEP's measured DGX B200 rate (segments.c flex_nvl5_call_s, as DeepSeek-V3 on
 *    B200/B300 above); on H100 inside one node by NCCL's all_to_all (no published
 *    intra-node H100 HybridEP rate). The host waits after the dispatch (moe_sync.c). */
static void bridge_release_dispatch(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
    enum pl_moe_dispatch dispatch;
    const char *note;
  } cfg[] = {
      {"26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "DeepSeekV3", "B200 B300", PL_MOE_DEEPEP,
       "hybridep dispatcher (the release's B200/B300 config)"},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "H100", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's H100 config)"},
      {"26.02", "Qwen3_30B", "H100", PL_MOE_DEEPEP, "deepep dispatcher (the release's H100 config)"},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Nemotron_3_Nano", "B200 B300 H100",
       PL_MOE_HYBRIDEP, "hybridep dispatcher (the release's DGX config)"},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
    if (bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, -1)) {
      l->dispatch = cfg[i].dispatch;
      validate_note(row, "%s", cfg[i].note);
      return;
    }
}

static bool bridge_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!bridge_flagged(in, row))
    return false;
  bridge_fp8_recipe(in, l, row);
  bridge_fp8_params(l, row);
  const char *task = cell(in, "Task");
  if (strcmp(task, "pretrain") != 0)
    return validate_skip(row, "task '%s' is not pre-training (SFT and LoRA are not modelled)", task);
  if (cell(in, "precision")[0] == '\0')
    return validate_skip(row, "precision not stated in the row");
  if (!mcore_experts(in, l, row))
    return false;
  /* Token dispatcher (Megatron-Bridge scripts/performance/configs/<model>/<model>_workload_base_configs.py):
   * the GB200/GB300 configs use the flex dispatcher with the hybridep backend (DeepEP's kernels
   * for an NVLink rack), most others moe_token_dispatcher_type alltoall */
  char g[64];
  snprintf(g, sizeof g, "%s", cell(in, "gpu"));
  if (bridge_gpt_oss_dispatch(in, l, row)) {
    /* set by its release's config */
  } else if (strstr(g, "GB200") != NULL || strstr(g, "GB300") != NULL) {
    l->dispatch = PL_MOE_DEEPEP;
    validate_note(row, "hybridep dispatcher (GB200/GB300 configs)");
  } else {
    l->dispatch = PL_MOE_ALLTOALL;
  }
  /* DeepSeek-V3 on B200 with MXFP8 from 26.04.01 (v0.4.2 DEEPSEEK_V3_PRETRAIN_CONFIG_B200_FP8_MX_V2,
   * v0.5.0 the same, HEAD perf_recipes/deepseek/b200/deepseek_v3.py fp8mx): the flex dispatcher
   * with the deepep backend, its pp 8 vp 2 ep 32 layout (the pp 16 ep 8 configs: alltoall) */
  if (strncmp(cell(in, "model"), "DeepSeekV3", 10) == 0 && strstr(g, "B200") != NULL &&
      strstr(g, "GB200") == NULL && l->dtype == PL_DTYPE_MXFP8 && l->ep == 32) {
    l->dispatch = PL_MOE_DEEPEP;
    validate_note(row, "deepep dispatcher (the release's B200 MXFP8 config with ep 32)");
  } else {
    bridge_release_dispatch(in, l, row);
  }
  mcore_balance(in, l, row);
  bridge_ep_overlap(in, l, row);
  bridge_recompute(in, l, row);
  bridge_graph_scope(in, l, row);
  bridge_fp8_attention(in, l, row);
  bridge_nvfp4_rht(in, l, row);
  bridge_fused_mlp(in, l, row);
  if (!bridge_offload(in, l, row))
    return false;
  /* Megatron-Bridge's recipes for the two large models ("Large model specific
   * pipeline split configurations": recipes/llama/llama3.py for Llama 3.1
   * 405B, recipes/qwen/qwen3_moe.py for Qwen3-235B-A22B) set
   * account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split */
  const char *name = cell(in, "model");
  if (strncmp(name, "LLAMA3.1_405B", 13) == 0 || strncmp(name, "Qwen3_235B", 10) == 0) {
    l->account_embed_loss = true;
    validate_note(row, "embedding, loss count in the pipeline split (recipe)");
  }
  if (strncmp(name, "DeepSeekV3", 10) == 0)
    return bridge_deepseek(in, l, row);
  return true;
}

static bool bridge_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row) {
  const char *col = "Tokens / sec / GPU";
  if (!metric(in, col, row))
    return false;
  const struct pl_layout *l = &run->layout;
  row->measured =
      (double)l->gbs * (double)run->model.seq_len / (row->published * (double)l->gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / (rate x GPUs)",
           col);
  return true;
}

/* A GB200/GB300 NVL72 job larger than a rack: the jobs place 16 trays of 4
 * GPUs (64 GPUs) per NVLink segment (the model zoo's SEGMENT=16 in its
 * GB200/GB300 commands, Slurm --segment; GPU counts here are multiples of
 * 64, not of 72), so the NVLink domain is 64 GPUs with their 64 NICs; the
 * model zoo states the segment per row (SEGMENT=8: 32 GPUs). */
static void nvl_segment(const struct validate_in *in, const struct pl_layout *l,
                        struct pl_cluster *c, struct pl_vrow *row) {
  if (c->gpus_per_node != 72)
    return;
  int64_t trays = 0;
  const char *seg = strstr(cell(in, "notes"), "SEGMENT=");
  if (seg != NULL)
    trays = strtoll(seg + 8, NULL, 10);
  if (trays <= 0 && l->gpus <= 72)
    return;
  if (trays <= 0)
    trays = 16;
  int64_t gpus = 4 * trays;
  c->gpus_per_node = gpus;
  c->nics_per_node = gpus; /* one NIC per GPU in both racks */
  validate_note(row, "NVLink segment of %lld trays = %lld GPUs (%s)", (long long)trays,
                (long long)gpus, seg != NULL ? "SEGMENT in the command" : "not stated: 16 trays");
}

/* Megatron-Core MoE model zoo (yanring/Megatron-MoE-ModelZoo
 * best_practice/qwen3/readme.md @ e8650517, 020b8136). Its benchmarking
 * config (model_configs/benchmarking/Qwen3-235B-A22B.yaml @ 30631ea5) sets
 * --use-distributed-optimizer, --overlap-grad-reduce, --overlap-param-gather,
 * --sequence-parallel, --make-vocab-size-divisible-by 1187, and
 * --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split. */
/* The zoo readme's command under a table (the row's notes) with Megatron-Core
 * --fine-grained-activation-offloading --offload-modules M1 M2 ...
 * (layout.offload_modules): the module names up to the next option. */
static bool zoo_offload(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *notes = cell(in, "notes"), *opt = "--offload-modules ";
  const char *p = strstr(notes, opt);
  if (strstr(notes, "--fine-grained-activation-offloading") == NULL || p == NULL)
    return true;
  char list[128] = "";
  size_t used = 0;
  for (p += strlen(opt); *p != '\0' && *p != '`' && strncmp(p, "--", 2) != 0;) {
    size_t n = strcspn(p, " `");
    if (n > 0 && used + n + 2 < sizeof list)
      used += (size_t)snprintf(list + used, sizeof list - used, "%s%.*s", used > 0 ? "," : "",
                               (int)n, p);
    p += n;
    p += strspn(p, " ");
  }
  struct pl_diag d;
  if (pl_offload_modules_parse(list, &l->offload_modules, &d) != PL_OK)
    return validate_skip(row, "fine-grained activation offloading: %s", d.msg);
  validate_note(row, "fine-grained activation offloading of %s (the command)", list);
  return true;
}

static bool zoo_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *shard = cell(in, "sharding"), *rc = cell(in, "recompute");
  if (!zoo_offload(in, l, row))
    return false;
  if (strstr(shard, "Megatron FSDP") != NULL) {
    l->shard = PL_SHARD_ZERO3;
    l->shard_grads_reduce_dtype = true; /* Megatron FSDP's main_grad_buffer (layout.h) */
    l->fsdp_block_units = true;         /* fsdp_unit_modules [TransformerLayer] (layout.h) */
    validate_note(row, "Megatron FSDP (optim_grads_params: parameters, gradients and optimizer "
                       "states sharded) as zero3, gradient shards in the reduce dtype, blocks as "
                       "its units");
  } else if (shard[0] != '\0') {
    return validate_skip(row, "sharding '%s' not understood", shard);
  } else {
    l->shard = PL_SHARD_ZERO1;
    validate_note(row, "distributed optimizer (config)");
  }
  /* model_configs/benchmarking/Qwen3-235B-A22B.yaml (from 274316a of
   * 2025-08-20 to e8650517) and Qwen3-Next-80B-A3B.yaml (e8650517):
   * --cross-entropy-loss-fusion true, --cross-entropy-fusion-impl te */
  l->te_cross_entropy = true;
  validate_note(row, "TE fused cross-entropy (config)");
  /* The recompute column names Megatron-Core --recompute-modules (selective
   * granularity; layout.recompute_modules): "norm, act" (the readme's
   * shorthand for layernorm and moe_act), "selective (layernorm moe)",
   * "selective (moe_act layernorm)"; "full" is --recompute-granularity full. */
  static const struct {
    const char *word;
    uint32_t mod;
  } words[] = {{"norm", PL_RCM_LAYERNORM},       {"layernorm", PL_RCM_LAYERNORM},
               {"act", PL_RCM_MOE_ACT},          {"moe_act", PL_RCM_MOE_ACT},
               {"moe", PL_RCM_MOE},              {"shared_expert", PL_RCM_SHARED_EXPERTS},
               {"shared_experts", PL_RCM_SHARED_EXPERTS}};
  l->recompute = PL_RECOMPUTE_NONE;
  if (strstr(rc, "full") != NULL) {
    l->recompute = PL_RECOMPUTE_FULL;
    return true;
  }
  if (rc[0] == '\0' || strstr(rc, "none specified") != NULL)
    return true;
  uint32_t mods = 0;
  for (const char *p = rc; *p != '\0';) {
    size_t n = strcspn(p, " ,()");
    if (n == 0) {
      p++;
      continue;
    }
    bool known = n == 9 && strncmp(p, "selective", 9) == 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0] && !known; i++)
      if (strlen(words[i].word) == n && strncmp(p, words[i].word, n) == 0) {
        mods |= words[i].mod;
        known = true;
      }
    if (!known)
      return validate_skip(row, "recompute '%s' not understood", rc);
    p += n;
  }
  if (mods != 0) {
    l->recompute = PL_RECOMPUTE_SELECTIVE;
    l->recompute_modules = mods;
    char list[128];
    pl_recompute_modules_format(mods, list, sizeof list);
    validate_note(row, "recompute modules %s ('%s')", list, rc);
  }
  return true;
}

static bool zoo_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!mcore_experts(in, l, row))
    return false;
  const char *d = cell(in, "moe_dispatcher");
  if (strcmp(d, "A2A") == 0) {
    l->dispatch = PL_MOE_ALLTOALL;
  } else if (strcmp(d, "DeepEP") == 0) {
    l->dispatch = PL_MOE_DEEPEP;
  } else if (strcmp(d, "HybridEP") == 0) {
    l->dispatch = PL_MOE_DEEPEP;
    validate_note(row, "HybridEP as deepep");
  } else {
    return validate_skip(row, "dispatcher '%s' not understood", d);
  }
  mcore_balance(in, l, row);
  l->account_embed_loss = true; /* the config's --account-for-embedding/loss-in-pipeline-split */
  /* A2A_OVERLAP=1 in the command under the table (the row's notes), or
   * "+1f1b overlap" in the readme row's Notes (its run:
   * best_practice/qwen3/run_235b.sh's "H100 baseline config", A2A_OVERLAP=1
   * TP=2 PP=8 VPP=4 EP=32 GBS=2048): sbatch_benchmarking.sh (@ e8650517)
   * turns A2A_OVERLAP=1 into --delay-wgrad-compute
   * --overlap-moe-expert-parallel-comm (with CUDA_DEVICE_MAX_CONNECTIONS=32). */
  const char *notes = cell(in, "notes");
  if (strstr(notes, "A2A_OVERLAP=1") != NULL)
    mcore_ep_overlap(l, row, "A2A_OVERLAP=1 in the command");
  else if (strstr(notes, "+1f1b overlap") != NULL)
    mcore_ep_overlap(l, row, "'+1f1b overlap': A2A_OVERLAP=1");
  return true;
}

static bool zoo_measure(const struct validate_in *in, const struct pl_run *run,
                        struct pl_vrow *row) {
  if (stated(in, "Step time (sec)"))
    return measure_time(in, "Step time (sec)", 1.0, row);
  /* "295 (forced balance) / 237 (dropless)": the forced-balance run, the
   * routing the command sets */
  const char *col = "TFLOPS", *v = cell(in, col);
  char *end = NULL;
  double tf = strtod(v, &end);
  if (end == v || !(tf > 0))
    return validate_skip(row, "column '%s': '%s' is not a positive number", col, v);
  row->published = tf;
  const struct pl_layout *l = &run->layout;
  double f = validate_megatron_flops(&run->model, (double)l->gbs, (double)run->model.seq_len);
  row->measured = f / (tf * 1e12 * (double)l->gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric,
           "%s -> step = Megatron-LM model FLOPs (num_floating_point_operations) / (rate x GPUs)",
           col);
  return true;
}

/* The zoo's runs are Megatron-LM with its benchmarking config's overlap flags
 * (--overlap-grad-reduce, --overlap-param-gather, --sequence-parallel); no
 * --tp-comm-overlap. */
static bool zoo_overrides(const struct validate_in *in, struct pl_framework *fw,
                          struct pl_vrow *row) {
  (void)in;
  (void)row;
  fw->overlap_grad_reduce = PL_SETTING_ON;
  fw->overlap_param_gather = PL_SETTING_ON;
  fw->sequence_parallel = PL_SETTING_ON;
  return true;
}

/* ----------------------------------------------------------------- table */

#define GPT3_FAMILY                                                                                \
  "GPT-2/3 as Megatron-LM builds it: GELU MLP, learned positions, LayerNorm, biases, tied "        \
  "embeddings, dropout 0.1 (Megatron default), Megatron fused kernels"

static const struct validate_source sources[] = {
    {.key = "sc21",
     .framework = "megatron-lm",
     .match = "Narayanan et al., SC21",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .overrides = sc21_overrides,
     .layout = sc21_layout,
     .measure = sc21_measure},
    {.key = "korthikanti",
     .framework = "megatron-lm",
     .match = "Korthikanti et al.",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .overrides = korthikanti_overrides,
     .layout = korthikanti_layout,
     .measure = korthikanti_measure},
    {.key = "megatron20",
     .framework = "megatron-lm",
     .match = "NVIDIA/Megatron-LM",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .layout = megatron20_layout,
     .measure = megatron20_measure},
    {.key = "mtnlg",
     .framework = "deepspeed",
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
    /* MegaScale (NSDI 2024): Megatron-LM @ 285068c8, its baseline (sources_scale.c) */
    {.key = "megascale",
     .framework = "megatron-lm",
     .match = "MegaScale: Scaling Large Language Model Training",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     /* "NVIDIA Ampere GPUs" whose MFU divide by 312 TFLOP/s: A100 class; tp 8 pp 8
      * leaves 2.7 B of the 175B parameters per GPU, 49 GB of 16-bit weights, fp32
      * gradients and Adam states (18 B each) under Megatron-LM's default optimizer */
     .unstated_gpu = "a100-80g",
     .gpu_unstated_note = "A100 memory not stated (the paper says 'NVIDIA Ampere GPUs'): 80 GB, "
                          "since tp 8 pp 8 leaves 49 GB of weights, gradients and Adam states "
                          "per GPU under Megatron-LM's default optimizer",
     .use_preset = true,
     .overrides = validate_megascale_overrides,
     .layout = validate_megascale_layout,
     .measure = validate_megascale_measure},
    /* Llama 3 405B pre-training (Table 4): Meta's in-house PyTorch stack, not
     * public; the torchtitan preset is PyTorch's public FSDP + TP + PP + CP of
     * the same mechanisms (sources_scale.c, docs/accuracy.md) */
    {.key = "llama3",
     .framework = "torchtitan",
     .match = "The Llama 3 Herd of Models",
     .family = "Llama 3 405B (data/models/llama3-405b: Table 3 of the paper): SwiGLU, RMSNorm, "
               "RoPE, GQA with 8 KV heads, untied embeddings; Meta's in-house PyTorch stack",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     /* the paper's TP is Korthikanti et al.'s (its citation): sequence parallel */
     .sequence_parallel = true,
     .megatron_vocab_pad = false,
     .use_preset = true,
     .model = mcore_model,
     .modes = validate_llama3_modes,
     .layout = validate_llama3_layout,
     .measure = validate_llama3_measure},
    {.key = "bloom",
     .framework = "deepspeed",
     .match = "bigscience-workshop/bigscience",
     .family = "BLOOM (tr11 slurm script): GELU MLP, ALiBi, LayerNorm (the extra embedding "
               "LayerNorm is not modelled), biases, tied embeddings, Megatron-DeepSpeed default "
               "dropout 0.1",
     .pos = PL_POS_ALIBI,
     .linear_bias = true,
     .dropout = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .overrides = bloom_overrides,
     .layout = bloom_layout,
     .measure = bloom_measure},
    {.key = "llmfoundry",
     .framework = "llm-foundry",
     .match = "mosaicml/llm-foundry",
     .family = "MPT (llm-foundry mpt-*.yaml): GELU MLP, ALiBi, LayerNorm, no biases, tied "
               "embeddings, no dropout, Triton FlashAttention (attn_impl triton), eager PyTorch "
               "element-wise kernels",
     .pos = PL_POS_ALIBI,
     .linear_bias = false,
     .dropout = false,
     /* Triton FlashAttention (ALiBi), eager element-wise kernels, two train-metric
      * passes, FSDP: the llm-foundry preset, each behaviour with its source there */
     .megatron_vocab_pad = false,
     .use_preset = true,
     .overrides = llmfoundry_overrides,
     .layout = llmfoundry_layout,
     .measure = llmfoundry_measure},
    {.key = "opt",
     .framework = "pytorch-fsdp",
     .match = "OPT: Open Pre-trained",
     .family = "OPT: GPT-3 style, ReLU MLP",
     .pos = PL_POS_LEARNED,
     .skip_all = "tensor-parallel degree, micro-batch and FLOP convention not stated; 'up to "
                 "147 TFLOP/s' is a best case, not a measured step"},
    {.key = "nemo",
     .framework = "nemo",
     .match = "NVIDIA/NeMo docs/source/performance",
     .family = "per model: GPT-3 as NeMo's gpt3 configs build it, Llama, Nemotron (see each "
               "row); Transformer Engine fused kernels and attention",
     .pos = PL_POS_LEARNED,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .model = nemo_model,
     .layout = nemo_layout,
     .overrides = nemo_overrides,
     .measure = nemo_measure},
    {.key = "mlperf",
     .framework = "nemo",
     .match = "MLPerf Training",
     .family = GPT3_FAMILY " (NVIDIA's NeMo implementation, Transformer Engine)",
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .vocab_default = 50257,
     .vocab_why = "GPT-3's vocabulary size (Brown et al. 2020); the MLPerf SentencePiece "
                  "model's size is not in the row",
     .use_preset = true,
     .overrides = mlperf_overrides,
     .layout = mlperf_layout,
     .hardware = mlperf_hardware,
     .measure = mlperf_measure},
    {.key = "vtrain",
     .framework = "deepspeed",
     .match = "vTrain (Bang et al.",
     .family = GPT3_FAMILY " (Megatron-DeepSpeed)",
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = true,
     .grad_reduce_after_backward = true,
     .sequence_parallel = false,
     .megatron_vocab_pad = true,
     .vocab_default = 50257,
     .vocab_why = "GPT-2 BPE, vTrain's simulator default (src/config.py); not stated for the "
                  "measurements",
     /* 40 GB cannot hold what was measured: row 1 (3.6B, plain data parallel,
      * fp16 with fp32 master weights and Adam, 18 B per parameter = 65 GB
      * before activations) ran, so the GPUs had 80 GB (docs/accuracy.md) */
     .unstated_gpu = "a100-80g",
     .gpu_unstated_note = "A100 memory not stated in the vTrain repository: 80 GB, since the "
                          "3.6B plain data-parallel runs need 65 GB of weights and optimizer "
                          "states",
     /* vTrain's configs give the measured cluster's network: inter_node_bandwidth
      * 800 Gbps, "Total bandwidth of inter-node communication" (src/config.py),
      * a quarter of it per p2p link (src/predictor.py _compute_p2p_latency):
      * 4 x 200 Gb/s per 8-GPU node (data/clusters/vtrain-a100.json) */
     .cluster = "vtrain-a100",
     .use_preset = true,
     .layout = vtrain_layout,
     .measure = vtrain_measure},
    {.key = "bridge",
     .framework = "nemo",
     .match = "NVIDIA-NeMo/Megatron-Bridge",
     .family = "per model: the data/models preset its name means (DeepSeek-V3, Qwen3, GPT-OSS, "
               "Llama 3, Nemotron 3 Nano); Megatron-Core with Transformer Engine",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .model = mcore_model,
     .modes = bridge_modes,
     .layout = bridge_layout,
     .overrides = bridge_overrides,
     .hardware = nvl_segment,
     .measure = bridge_measure},
    {.key = "moezoo",
     .framework = "megatron-core",
     .match = "Megatron-Core MoE ModelZoo",
     .family = "Qwen3-235B-A22B as the zoo's model_configs/benchmarking yaml builds it (= the "
               "qwen3-235b-a22b preset); Megatron-Core with Transformer Engine",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     /* --make-vocab-size-divisible-by 1187: Qwen3's 151936 = 1187 x 128 stays as it is */
     .megatron_vocab_pad = false,
     .use_preset = true,
     .overrides = zoo_overrides,
     .model = mcore_model,
     .modes = zoo_modes,
     .layout = zoo_layout,
     .hardware = nvl_segment,
     .measure = zoo_measure},
    {.key = "torchtitan",
     .framework = "torchtitan",
     .match = "pytorch/torchtitan",
     .family = "Llama 2 / Llama 3.1 as torchtitan's models/llama builds them: SwiGLU, RoPE, "
               "RMSNorm, untied output, no biases, no dropout; FSDP2, SDPA FlashAttention, eager "
               "kernels unless the row says torch.compile",
     .pos = PL_POS_ROTARY,
     .sequence_parallel = true, /* apply_tp: norms as SequenceParallel (the preset's) */
     .megatron_vocab_pad = false,
     .use_preset = true,
     .model = validate_torchtitan_model,
     .modes = validate_torchtitan_modes,
     .layout = validate_torchtitan_layout,
     .overrides = validate_torchtitan_overrides,
     .hardware = validate_torchtitan_hardware,
     .measure = validate_torchtitan_measure},
};

const struct validate_source *validate_source_find(const char *source_cell) {
  for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
    if (strstr(source_cell, sources[i].match) != NULL)
      return &sources[i];
  return NULL;
}

const char *validate_source_list(void) {
  return "Narayanan et al. SC21, Korthikanti et al. 2022, Megatron-LM README 2020, MT-NLG, "
         "BigScience BLOOM, MosaicML llm-foundry, OPT, NeMo performance summary, MLPerf "
         "Training GPT-3, vTrain, Megatron-Bridge performance summary, Megatron MoE model zoo, "
         "MegaScale, Llama 3 Herd of Models, torchtitan";
}
