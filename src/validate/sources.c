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
 *   mlm_h100     Megatron-LM README 2024 (H100, Megatron-Core r0.8.0):
 *                per-GPU TFLOP/s or MFU by Megatron-LM's r0.8.0 FLOP count
 *                (source_mlm_h100.c)
 *   mtnlg        Smith et al. 2022 (MT-NLG): iteration time (s), printed
 *   bloom        BigScience tr11: iteration time (s); else Megatron-DeepSpeed
 *                "TFLOPs" = 8 P s B / (t gpus) with P counted rank by rank
 *   llmfoundry   MosaicML llm-foundry: tokens/s over the cluster, printed
 *   opt          Zhang et al. 2022 (OPT): cannot be expressed (see skip_all)
 *   nemo         NeMo 24.07 performance summary: tokens/s/GPU, printed; the
 *                long-sequence rows: model TFLOP/s/GPU by NeMo's FLOP formula
 *   mlperf       MLPerf Training GPT-3 (NVIDIA, NeMo): seconds per step
 *                derived from the logs' timestamps
 *   mlperf_llama MLPerf Training v5.0 Llama 3.1 405B (NVIDIA, NeMo): seconds
 *                per step from the logs' per-step timestamps
 *   mlperf_llama8b MLPerf Training v5.1 Llama 3.1 8B (every submitter on
 *                NVIDIA GPUs, NeMo): as mlperf_llama, logged every 32 steps
 *   vtrain       vTrain ground truth (Megatron-DeepSpeed): iteration time (ms)
 *   bridge       Megatron-Bridge performance summary: tokens/s/GPU, printed
 *   moezoo       Megatron-Core MoE model zoo: step time (s), printed, or
 *                TFLOP/s by Megatron-LM's own FLOP count (the rules of these
 *                two: source_bridge*.c, source_mcore.c)
 *   megascale    MegaScale (NSDI 2024), Megatron-LM's rows and Table 3 (1)
 *                (parallel transformer block): iteration time
 *                (s), printed, or MFU by Korthikanti's model FLOPs
 *   llama3       Llama 3 Herd of Models, Table 4: TFLOPs/GPU by PaLM's count
 *                (the rules of these two: sources_scale.c)
 *   torchtitan   pytorch/torchtitan benchmarks / docs/performance.md:
 *                tokens/s per GPU, printed (source_torchtitan.c)
 *   fms          IBM fms-fsdp (PyTorch blog 2024-03, README 2024-05):
 *                tokens/s per GPU, printed (source_fms.c)
 *   dgxc         NVIDIA dgxc-benchmarking recipes' Expected Performance:
 *                seconds per step, printed (source_dgxc.c)
 *   together     Together AI's GB200 NVL72 cluster benchmarks (Megatron-Bridge
 *                in nemo:26.02): median seconds per step, printed
 *                (source_together.c)
 *   together-nemo2 Together AI's B200 runs of the legacy NeMo 2 dgxc recipes
 *                (nemo 25.07): seconds per step, printed; the dgxc rules
 *   together-b200 Together AI's B200 cluster runs of NVIDIA's dgxc recipes
 *                (Megatron-Bridge 26.02 performance scripts through
 *                llmb-run): seconds per step, printed; read by the
 *                Megatron-Bridge rules of the release (source_bridge*.c)
 * This file holds the table; the rules of the older sources are in files by
 * family, sharing sources_int.h: sources_megatron.c (sc21, korthikanti,
 * megatron20), sources_deepspeed.c (mtnlg, bloom, vtrain),
 * sources_llmfoundry.c, sources_nemo.c (nemo, mlperf).
 * These are conventions of the sources, not corrections: nothing here looks
 * at a prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/sources_int.h"

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
     .overrides = validate_sc21_overrides,
     .layout = validate_sc21_layout,
     .measure = validate_sc21_measure},
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
     .overrides = validate_korthikanti_overrides,
     .layout = validate_korthikanti_layout,
     .measure = validate_korthikanti_measure},
    /* before "megatron20": its match ("NVIDIA/Megatron-LM") occurs in this one's rows */
    {.key = "mlm_h100",
     .framework = "megatron-core",
     .match = "Megatron-LM README H100 scaling",
     .family = "GPT as Megatron-LM core_r0.8.0 builds it by default: GELU MLP, learned "
               "positions, LayerNorm, biases, dropout 0.1, Transformer Engine layers; untied "
               "output layer (the model table's parameter counts)",
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true, /* --tp-comm-overlap requires it (source_mlm_h100.c) */
     .megatron_vocab_pad = true,
     .use_preset = true,
     .model = validate_mlm_h100_model,
     .layout = validate_mlm_h100_layout,
     .overrides = validate_mlm_h100_overrides,
     .measure = validate_mlm_h100_measure},
    {.key = "megatron20",
     .framework = "megatron-lm",
     .match = "NVIDIA/Megatron-LM",
     .family = GPT3_FAMILY,
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .layout = validate_megatron20_layout,
     .measure = validate_megatron20_measure},
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
     .layout = validate_mtnlg_layout,
     .measure = validate_mtnlg_measure},
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
     .overrides = validate_llama3_overrides,
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
     .overrides = validate_bloom_overrides,
     .layout = validate_bloom_layout,
     .measure = validate_bloom_measure},
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
     .overrides = validate_llmfoundry_overrides,
     .layout = validate_llmfoundry_layout,
     .measure = validate_llmfoundry_measure},
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
     .model = validate_nemo_model,
     .layout = validate_nemo_layout,
     .overrides = validate_nemo_overrides,
     .measure = validate_nemo_measure},
    /* before "mlperf": its match ("MLPerf Training") is a prefix of this one's rows */
    {.key = "mlperf_llama",
     .framework = "nemo",
     .match = "Llama 3.1 405B (mlcommons/training_results",
     .family = "Llama 3.1 405B as NeMo builds it (SwiGLU, RoPE, RMSNorm, untied embeddings, no "
               "biases, no dropout; Transformer Engine)",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .model = validate_mlperf_llama_model,
     .overrides = validate_mlperf_overrides,
     .layout = validate_mlperf_llama_layout,
     .hardware = validate_mlperf_llama_hardware,
     .measure = validate_mlperf_v5_measure},
    /* before "mlperf", as mlperf_llama: MLPerf Training v5.1's Llama 3.1 8B
     * (data/validation/mlperf_v51_llama8b.csv), every submitter's NeMo
     * implementation (the reference's config_*.sh), the rules of the 405B rows */
    {.key = "mlperf_llama8b",
     .framework = "nemo",
     .match = "Llama 3.1 8B (mlcommons/training_results",
     .family = "Llama 3.1 8B as NeMo builds it (SwiGLU, RoPE, RMSNorm, untied embeddings, no "
               "biases, no dropout; Transformer Engine)",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .model = validate_mlperf_llama8b_model,
     .overrides = validate_mlperf_overrides,
     .layout = validate_mlperf_llama_layout,
     .hardware = validate_mlperf_llama_hardware,
     .measure = validate_mlperf_v5_measure},
    /* No dropout: every GPT-3 implementation's model config sets hidden_dropout
     * and attention_dropout 0.0 (training_results_v3.0 NVIDIA / NVIDIA_CoreWeave
     * pytorch/conf/megatron_gpt_config.yaml l. 72-74, v3.1 pytorch/conf/
     * custom.yaml l. 71-72, v4.0 / v4.1 nemo/conf/custom.yaml l. 73-75, and
     * Supermicro's v4.0 log prints them as run). */
    {.key = "mlperf",
     .framework = "nemo",
     .match = "MLPerf Training",
     .family = "GPT-2/3 as Megatron-LM builds it: GELU MLP, learned positions, LayerNorm, "
               "biases, tied embeddings, no dropout (the benchmark's config: hidden and "
               "attention dropout 0.0), Megatron fused kernels (NVIDIA's NeMo implementation, "
               "Transformer Engine)",
     .pos = PL_POS_LEARNED,
     .linear_bias = true,
     .dropout = false,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .vocab_default = 50257,
     .vocab_why = "GPT-3's vocabulary size (Brown et al. 2020); the MLPerf SentencePiece "
                  "model's size is not in the row",
     .use_preset = true,
     .overrides = validate_mlperf_overrides,
     .layout = validate_mlperf_gpt3_layout,     /* + NCCL CTA caps (source_mlperf_ctas.c) */
     .hardware = validate_mlperf_gpt3_hardware,
     .measure = validate_mlperf_measure},
    /* Megatron-DeepSpeed (vTrain data/README.md), so DeepSpeed's engine: the
     * dp all_reduce once after a stage's last backward (pipe/engine.py
     * _exec_reduce_grads; pretrain_gpt.py builds GPTModelPipe at pp 1 too),
     * 2 B per gradient on the wire whether the runs were fp16 or bf16
     * (engine.py communication_data_type: float16 / bfloat16, v0.9.5-v0.12.6;
     * the preset's grad_comm_cast). vTrain's own simulator all_reduces the
     * float16 parameters' bytes after the backward too (src/predictor.py
     * create_model, create_layer_graph "comm across dp" @ f8dda84).
     * docs/accuracy.md "Session 28 (vtrain28)". The preset's megatron_softmax:
     * Megatron's fused softmax refuses b x heads-per-rank not a multiple of 4
     * (16 heads at tp 8 and micro-batch 1; row 40's 48 heads at tp 16), the rule
     * vTrain's profiled copy has too (src/model/fused_softmax.py
     * custom_kernel_constraint @ f8dda84); "Session 29 (vtrain29)" */
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
     .layout = validate_vtrain_layout,
     .measure = validate_vtrain_measure},
    {.key = "bridge",
     .framework = "nemo",
     .match = "NVIDIA-NeMo/Megatron-Bridge",
     .family = "per model: the data/models preset its name means (DeepSeek-V3, Qwen3, GPT-OSS, "
               "Llama 3, Nemotron 3 Nano); Megatron-Core with Transformer Engine",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     /* the vocabulary as each release's training setup sets it (source_bridge.c
      * validate_bridge_model: padded only where the release's model leaves it unset) */
     .megatron_vocab_pad = false,
     .use_preset = true,
     .model = validate_bridge_model,
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
     .measure = validate_torchtitan_measure,
     .memory = validate_torchtitan_memory},
    /* IBM + PyTorch's FSDP runs (PyTorch blog 2024-03 and fms-fsdp README):
     * FSDP1 with fms-fsdp's config defaults, the fms-fsdp preset; fms's LLaMA
     * (fms/models/llama.py LLaMAConfig: SwiGLU, RMS norm, RoPE, tie_heads False,
     * no biases, p_dropout 0) is the family validate_torchtitan_model sets */
    {.key = "fms",
     .framework = "fms-fsdp",
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
    /* NVIDIA's DGX Cloud Benchmarking recipes (source_dgxc.c): NeMo 24.x
     * launcher and NeMo 2 (25.02, 25.04) runs on DGX Cloud H100 and GB200; the model family by name as the NeMo
     * rows (validate_nemo_model), the dimensions from the recipe yaml */
    {.key = "dgxc",
     .framework = "nemo",
     .match = "NVIDIA/dgxc-benchmarking",
     .family = "per model: Llama 3.1, Nemotron-4, GPT-3 as the recipes' NeMo yaml build them; "
               "Megatron-Core with Transformer Engine",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true,
     .use_preset = true,
     .model = validate_dgxc_model, /* + the v25.05 MoE presets */
     .layout = validate_dgxc_layout,
     .overrides = validate_dgxc_overrides,
     .hardware = validate_nvl_segment, /* the GB200 NVL72 rows (source_mcore.c) */
     .measure = validate_dgxc_measure},
    /* Together AI's B200 runs of NVIDIA's dgxc recipes for nemo:26.02 (llmb-run, 512 GPUs;
     * data/validation/together_b200.csv): the recipes run Megatron-Bridge's
     * scripts/performance (setup_experiment.py; the runs' experiment names are its
     * utils/utils.py names) with the release's B200 workload base configs, the same
     * scripts and configs the Bridge performance summary's 26.02 rows ran, at another
     * scale. So the rows are read by the Bridge rules of that release (the model names
     * are its summary's); only the measure (seconds per step, printed) is Together's.
     * Listed before "together", whose match is a prefix of this one. */
    /* Together AI's B200 runs of the legacy NeMo 2 dgxc recipes (nemotron4-340b launch.sh with
     * nemo:25.07.01; data/validation/together_b200.csv): NeMo's performance scripts, read by the
     * dgxc rules of NeMo 2 rows (source_dgxc.c: the row states the launch's layout, tp overlap
     * and the rest); only the measure (seconds per step, printed) is Together's. Before
     * "together", whose match is a prefix of this one. */
    {.key = "together-nemo2",
     .framework = "nemo",
     .match = "togethercomputer/together-dgxc-benchmarking (Together AI B200 cluster, NeMo 2",
     .family = "per model: Nemotron-4 as NeMo 2's recipe builds it (the row's dimensions); "
               "Megatron-Core with Transformer Engine (NeMo 2 performance scripts)",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     .megatron_vocab_pad = true, /* as the dgxc entry: NeMo 2 pads the vocabulary */
     .use_preset = true,
     .model = validate_dgxc_model,
     .layout = validate_together_nemo2_layout, /* the dgxc rules + FP8-CS's fp8_param_gather */
     .overrides = validate_dgxc_overrides,
     .hardware = validate_nvl_segment,
     .measure = validate_together_measure},
    {.key = "together-b200",
     .framework = "nemo",
     .match = "togethercomputer/together-dgxc-benchmarking (Together AI B200",
     .family = "per model: the data/models preset its Megatron-Bridge name means (Llama 3 70B, "
               "Llama 3.1 405B, DeepSeek-V3, Qwen3-235B-A22B, Nemotron-H 56B); Megatron-Core with "
               "Transformer Engine (Megatron-Bridge 26.02 performance scripts)",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     /* as "together": Megatron-Bridge's _validate_and_set_vocab_size keeps a provider's set
      * vocab_size unpadded (session 22, together22) */
     .megatron_vocab_pad = false,
     .use_preset = true,
     .model = validate_together_b200_model, /* the Bridge names + Nemotron-H 56B */
     .modes = validate_bridge_modes,
     .layout = validate_together_b200_layout, /* the Bridge rules + the release's B200 recompute */
     .overrides = validate_bridge_overrides,
     .hardware = validate_nvl_segment,
     .measure = validate_together_measure},
    {.key = "together",
     .framework = "nemo",
     .match = "togethercomputer/together-dgxc-benchmarking",
     .family = "per model: the data/models preset its name means (Qwen2.5 72B, GPT-OSS 120B); "
               "Megatron-Core with Transformer Engine (Megatron-Bridge recipes)",
     .pos = PL_POS_ROTARY,
     .eager_attention = false,
     .grad_reduce_after_backward = false,
     .sequence_parallel = true,
     /* Megatron-Bridge's training setup _validate_and_set_vocab_size: a model provider's
      * vocab_size that is set and not smaller than the tokenizer's (NullTokenizer 32000 in
      * these runs' printed summary) is used as it is, should_pad_vocab False: no padding to a
      * multiple of 128 tp (Qwen2.5's 152064 stays 152064 at tp 8) */
     .megatron_vocab_pad = false,
     .use_preset = true,
     .model = validate_together_model,
     .layout = validate_together_layout,
     .overrides = validate_together_overrides,
     .hardware = validate_nvl_segment, /* 16 trays of one GB200 NVL72 rack (source_mcore.c) */
     .measure = validate_together_measure},
};

const struct validate_source *validate_source_find(const char *source_cell) {
  for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++)
    if (strstr(source_cell, sources[i].match) != NULL)
      return &sources[i];
  return NULL;
}
