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
 *                TFLOP/s by Megatron-LM's own FLOP count (the rules of these
 *                two: source_bridge*.c, source_mcore.c)
 *   megascale    MegaScale (NSDI 2024), Megatron-LM's rows: iteration time
 *                (s), printed, or MFU by Korthikanti's model FLOPs
 *   llama3       Llama 3 Herd of Models, Table 4: TFLOPs/GPU by PaLM's count
 *                (the rules of these two: sources_scale.c)
 *   torchtitan   pytorch/torchtitan benchmarks / docs/performance.md:
 *                tokens/s per GPU, printed (source_torchtitan.c)
 *   fms          IBM fms-fsdp (PyTorch blog 2024-03, README 2024-05):
 *                tokens/s per GPU, printed (source_fms.c)
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
 * FSDP's reduce_scatter (src/sim/fsdp_comm.c fsdp_grad_bytes), the row's
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
  /* Mixtral 8x7B: the preset of that name (data/models/mixtral-8x7b.json,
   * the checkpoint's config.json), as NeMo's MixtralConfig8x7B builds it */
  if (strcmp(name, "Mixtral-8x7B") == 0)
    return validate_mcore_preset(in, "mixtral-8x7b", m, row);
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
  if (!validate_mcore_experts(in, l, row))
    return false;
  /* NeMo 2's Mixtral recipes in performance mode (the performance scripts'
   * pretrain_recipe(performance_mode=True), scripts/performance/llm/
   * pretrain_mixtral_8x7b.py, r2.3.0) add MegatronTokenDropCallback
   * (nemo/lightning/pytorch/callbacks/moe_token_drop.py: capacity factor 1.0,
   * moe_pad_expert_input_to_capacity True): every expert computes exactly its
   * capacity, the mean */
  if (strncmp(cell(in, "model"), "Mixtral", 7) == 0) {
    l->moe_imbalance = 1.0;
    validate_note(row, "imbalance 1 (NeMo's token drop: capacity factor 1.0, padded to capacity)");
  }
  /* NeMo 2's Llama 3.1 405B recipe counts the embedding and the loss as one
   * layer each in the pipeline split (nemo/collections/llm/recipes/
   * llama31_405b.py model(): account_for_embedding_in_pipeline_split=True,
   * account_for_loss_in_pipeline_split=True, in the release branches r2.2.0,
   * r2.3.0, r2.4.0; added by e446337779, 2025-02-12): 126 + 2 = 128 layers */
  if (strstr(cell(in, "model"), "405B") != NULL) {
    l->account_embed_loss = true;
    validate_note(row, "embedding, loss count in the pipeline split (NeMo's llama31_405b recipe)");
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
/* The userbuffers SMs of the NeMo 24.x rows whose model has a ub config of
 * its own in NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/
 * tp_overlap/ (num_sm of proj_fprop and fc2_fprop, both set_sm_margin 1;
 * src/sim/ub_margin.c); the other models keep the nemo preset's (the Llama
 * 70B files, 24 and 16). */
static const struct {
  const char *model, *file;
  int64_t proj_sms, fc2_sms;
} nemo_ub[] = {
    {"GPT3-175B", "ub_cfg_h100_h12288_tp4_mbs2_seqlen2048.yaml @ 5d302f8 (fc2: ring_exchange)", 24,
     1},
    {"GPT3-20B", "ub_cfg_h100_h6144_tp2_mbs2_seqlen2048.yaml @ 273c942", 16, 24},
    {"LLAMA2-13B", "ub_cfg_h100_h5120_tp2_mbs1_seqlen4096.yaml @ 171d72c", 24, 20},
};

static bool nemo_overrides(const struct validate_in *in, struct pl_framework *fw,
                           struct pl_vrow *row) {
  if (strstr(cell(in, "table_or_section"), "NeMo24.") == NULL)
    return true;
  for (size_t i = 0; i < sizeof nemo_ub / sizeof nemo_ub[0]; i++)
    if (strcmp(cell(in, "model"), nemo_ub[i].model) == 0) {
      fw->ub_proj_fprop_sms = nemo_ub[i].proj_sms;
      fw->ub_fc2_fprop_sms = nemo_ub[i].fc2_sms;
      fw->ub_proj_fprop_sms_set = fw->ub_fc2_fprop_sms_set = true;
      validate_note(row, "userbuffers margins %lld/%lld SMs (proj/fc2 fprop: launcher %s)",
                    (long long)nemo_ub[i].proj_sms, (long long)nemo_ub[i].fc2_sms, nemo_ub[i].file);
    }
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
     .model = validate_mcore_model,
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
     .model = validate_mcore_model,
     .modes = validate_bridge_modes,
     .layout = validate_bridge_layout,
     .overrides = validate_bridge_overrides,
     .hardware = validate_nvl_segment,
     .measure = validate_bridge_measure},
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
     .overrides = validate_zoo_overrides,
     .model = validate_mcore_model,
     .modes = validate_zoo_modes,
     .layout = validate_zoo_layout,
     .hardware = validate_nvl_segment,
     .measure = validate_zoo_measure},
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
    /* IBM + PyTorch's FSDP runs (PyTorch blog 2024-03 and fms-fsdp README):
     * FSDP1 as the pytorch-fsdp preset; fms's LLaMA (fms/models/llama.py
     * LLaMAConfig: SwiGLU, RMS norm, RoPE, tie_heads False, no biases,
     * p_dropout 0) is the family validate_torchtitan_model sets */
    {.key = "fms",
     .framework = "pytorch-fsdp",
     .match = "foundation-model-stack/fms-fsdp",
     .family = "Llama 2 as IBM's foundation-model-stack builds it (fms/models/llama.py): SwiGLU, "
               "RoPE, RMSNorm, untied head, no biases, no dropout; FSDP1, SDPA FlashAttention-2, "
               "eager kernels unless the row says torch.compile",
     .pos = PL_POS_ROTARY,
     .sequence_parallel = false,
     .megatron_vocab_pad = false,
     .use_preset = true,
     .model = validate_torchtitan_model,
     .modes = validate_fms_modes,
     .overrides = validate_fms_overrides,
     .hardware = validate_fms_hardware,
     .measure = validate_fms_measure},
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
         "MegaScale, Llama 3 Herd of Models, torchtitan, IBM fms-fsdp";
}
