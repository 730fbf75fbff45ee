/* source_together.c: how Together AI's GB200 NVL72 cluster benchmarks are read
 * (data/validation/together_gb200.csv; README.md there, "How each source
 * defines its metrics").
 *
 * github.com/togethercomputer/together-dgxc-benchmarking (a fork of NVIDIA's
 * DGX Cloud benchmarking recipes) @ 0b86473a7a, tests/gb200/reports/
 * cluster-training-performance-overview-v3.md: median training step time of
 * Qwen2.5 72B and GPT-OSS 120B (BF16) on 16 trays / 64 GPUs of one GB200 NVL72
 * rack, six racks. The runs are Megatron-Bridge scripts in the container
 * nvcr.io/nvidia/nemo:26.02 (tests/gb200/GB200/qwen-72b-r08.yaml,
 * gpt-oss-120b-r08.yaml: the recipe's pretrain config with the script's
 * overrides); every setting the rows state is the script's or the
 * "Configuration Summary" the runs print (tests/gb200/logs/qwen-r08-v3.log, gpt-oss-r08-v3.log).
 * The same repository's B200 cluster runs of NVIDIA's dgxc recipes (data/validation/
 * together_b200.csv, source keys together-b200 and together-nemo2 in sources.c) are read by the
 * Megatron-Bridge and dgxc rules of their releases; the few settings of the release configs
 * those rules do not cover are at the end of this file.
 * Nothing here looks at a prediction. */
#include <stdio.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/layout.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h" /* validate_bridge_fp8_params */
#include "validate/sources_int.h"       /* validate_dgxc_layout */
#include "validate/validate_int.h"

/* The model presets the rows' names mean (data/models/): the recipes
 * qwen25_72b_pretrain_config (Qwen25ModelProvider72B, the sizes of
 * data/models/qwen2.5-72b.json) and gpt_oss_120b_pretrain_config (the log's
 * Configuration Summary: 36 layers, hidden 2880, 64 heads, 8 query groups,
 * 128 experts top-4 of width 2880, window (128, 0) every other layer =
 * data/models/gpt-oss-120b.json). */
static const struct {
  const char *name, *preset;
} together_models[] = {
    {"Qwen2.5 72B", "qwen2.5-72b"},
    {"GPT OSS 120B", "gpt-oss-120b"},
};

bool validate_together_model(const struct validate_in *in, struct pl_model *m,
                             struct pl_vrow *row) {
  const char *name = cell(in, "model");
  for (size_t i = 0; i < sizeof together_models / sizeof together_models[0]; i++)
    if (strcmp(name, together_models[i].name) == 0)
      return validate_mcore_preset(in, together_models[i].preset, m, row);
  return validate_skip(row, "model '%s': no preset for this source", name);
}

/* A true/false cell (empty: the preset's); false on any other word. */
static bool together_flag(const struct validate_in *in, const char *col, enum pl_setting *dst,
                          struct pl_vrow *row) {
  const char *v = cell(in, col);
  if (strcmp(v, "true") == 0)
    *dst = PL_SETTING_ON;
  else if (strcmp(v, "false") == 0)
    *dst = PL_SETTING_OFF;
  else if (*v)
    return validate_skip(row, "column '%s': '%s' is not true or false", col, v);
  return true;
}

/* The data-parallel bucket the run's Configuration Summary prints (ddp
 * bucket_size, in parameters: the GPT-OSS run's 134217728), or "mcore
 * default" where it prints none (the Qwen run): Megatron-Core's bucket_size
 * None, max(40e6, 1e6 dp cp) parameters (distributed_data_parallel.py;
 * layout.bucket_dp_scaled). Empty: the preset's. */
static bool together_bucket(const struct validate_in *in, struct pl_framework *fw,
                            struct pl_vrow *row) {
  const char *col = "ddp bucket_size (parameters)", *v = cell(in, col);
  if (!*v)
    return true;
  if (strcmp(v, "mcore default") == 0) {
    fw->bucket_params = 0;
    fw->bucket_mb = 0;
    fw->bucket_dp_scaled = true;
    validate_note(row, "Megatron-Core's default bucket (no bucket_size in the run's summary)");
    return true;
  }
  bool present = false;
  double n = 0;
  if (validate_num(v, &n, &present) != PL_OK || !pl_bucket_params_ok(n))
    return validate_skip(row,
                         "column '%s': '%s' is not a whole number from 1 to 1e12 or "
                         "'mcore default'",
                         col, v);
  fw->bucket_params = n;
  fw->bucket_mb = 0;
  fw->bucket_dp_scaled = false;
  validate_note(row, "data-parallel buckets of %.0f parameters (the run's ddp bucket_size)", n);
  return true;
}

/* The nemo preset (Megatron-Core with Transformer Engine, as the NeMo
 * 26.02 Megatron-Bridge rows of the performance summary), then what the runs
 * print in their Configuration Summary (non-default values vs Megatron-Core):
 *  - cross_entropy_loss_fusion True (cross_entropy_fusion_impl 'te'): the
 *    fused loss;
 *  - tp_comm_overlap: the GPT-OSS script passes CommOverlapConfig(
 *    tp_comm_overlap=False); the Qwen run's summary lists no tp_comm_overlap
 *    among the TransformerConfig values that differ from Megatron-Core's
 *    default (False): off for both;
 *  - ddp grad_reduce_in_fp32 True (the bf16_mixed precision config sets it
 *    when the config is finalized, after the script's False): gradients
 *    reduced in fp32;
 *  - the data-parallel bucket (together_bucket). */
bool validate_together_overrides(const struct validate_in *in, struct pl_framework *fw,
                                 struct pl_vrow *row) {
  if (strcmp(cell(in, "container"), "nemo:26.02") != 0)
    return validate_skip(row, "container '%s': only nemo:26.02 rows are read",
                         cell(in, "container"));
  /* megatron_xent is the unfused Megatron loss: the fused one is its opposite */
  enum pl_setting fused = PL_SETTING_UNSET;
  if (!together_flag(in, "cross_entropy_loss_fusion", &fused, row) ||
      !together_flag(in, "tp_comm_overlap", &fw->tp_comm_overlap, row) ||
      !together_flag(in, "grad_reduce_in_fp32", &fw->grad_reduce_fp32, row) ||
      !together_bucket(in, fw, row))
    return false;
  if (fused != PL_SETTING_UNSET)
    fw->megatron_xent = fused == PL_SETTING_ON ? PL_SETTING_OFF : PL_SETTING_ON;
  validate_note(row,
                "the row's settings (script, printed Configuration Summary): fused loss "
                "%s, tp overlap %s, fp32 gradient reduce %s",
                cell(in, "cross_entropy_loss_fusion"), cell(in, "tp_comm_overlap"),
                cell(in, "grad_reduce_in_fp32"));
  return true;
}

/* The layout the scripts set: the distributed optimizer (use_distributed_
 * optimizer True, overlap_grad_reduce and overlap_param_gather True),
 * selective recompute of the listed modules (recompute_granularity
 * 'selective', recompute_modules), no CUDA graphs (cuda_graph_impl 'none'),
 * the experts (ep, etp), the token dispatcher the run printed and the
 * router's balance (moe_router_force_load_balancing True: every expert rank
 * computes the mean, random logits each forward). */
bool validate_together_layout(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  if (strcmp(cell(in, "Task"), "pretrain") != 0)
    return validate_skip(row, "task '%s' is not pre-training", cell(in, "Task"));
  if (!validate_recompute_modules(in, l, row, "the script's recompute_modules"))
    return false;
  if (strcmp(cell(in, "cuda_graphs"), "none") != 0)
    return validate_skip(row, "column 'cuda_graphs': '%s' (only 'none' is read)",
                         cell(in, "cuda_graphs"));
  if (!validate_mcore_experts(in, l, row))
    return false;
  const char *disp = cell(in, "moe_dispatcher");
  if (*disp && pl_moe_dispatch_parse(disp, &l->dispatch, NULL) != PL_OK)
    return validate_skip(row, "column 'moe_dispatcher': '%s' is not a dispatcher", disp);
  const char *bal = cell(in, "moe_balance");
  if (strcmp(bal, "force-balanced") == 0) {
    l->moe_imbalance = 1.0;
    l->moe_force_balance = true;
    validate_note(row, "imbalance 1 (the script's moe_router_force_load_balancing)");
  } else if (*bal) {
    return validate_skip(row, "column 'moe_balance': '%s' is not 'force-balanced'", bal);
  }
  return true;
}

/* The report's median step time (seconds), printed; or, for a run whose
 * report prints only the median "TFLOPS/GPU" Megatron-Bridge logs (the rack
 * 07 17-node re-run), step = Megatron-LM's model FLOPs / (rate x GPUs):
 * Bridge logs Megatron-LM's num_floating_point_operations count
 * (validate_megatron_flops). Checked on the report's own pairs: Qwen2.5 72B
 * rack 08 19.91 s at 732.2, rack 04 20.56 s at 709.0 TFLOPS/GPU give 14,578
 * and 14,577 TFLOP per GPU and step = 444.9 GFLOP per token over 512 x 4096
 * tokens and 64 GPUs; the formula gives 444.85 (vocabulary 152064). */
bool validate_together_measure(const struct validate_in *in, const struct pl_run *run,
                               struct pl_vrow *row) {
  const char *time_col = "Training step time (seconds per step)";
  if (stated(in, time_col))
    return validate_measure_time(in, time_col, 1.0, row);
  const char *col = "Model TFLOP/s/GPU (Megatron-Bridge count)";
  bool present = false;
  double tf = 0;
  if (validate_num(cell(in, col), &tf, &present) != PL_OK || !present || !(tf > 0))
    return validate_skip(row, "column '%s': '%s' is not a positive number", col, cell(in, col));
  return validate_measure_megatron_rate(run, col, tf, row);
}

/* Together AI's B200 runs of NVIDIA's dgxc recipes (data/validation/together_b200.csv, source
 * together-b200): the Megatron-Bridge rules of the 26.02 release (validate_bridge_layout), then
 * the recompute settings of the release's B200 workload base configs that those rules do not
 * set because the performance summary has no row of that config. The recipes' Megatron-Bridge
 * is commit 6b3b5ba7e (the install the runs used: tests/b200/scripts/llama31_405b_nvfp4/
 * report_new_megatron_bridge_2026-04-11.md), whose scripts/performance configs and
 * utils/overrides.py are v0.3.0's (git diff v0.3.0 6b3b5ba7e touches neither):
 *  - Llama 3.1 405B NVFP4: LLAMA31_405B_PRETRAIN_CONFIG_B200_NVFP4_V1 (no V2: the report
 *    says setup_experiment.py falls back to V1) sets recompute_num_layers=1, which
 *    _set_recompute_overrides turns into recompute_granularity "full", recompute_method
 *    "block": the first block of each model chunk re-runs its forward (the report's own
 *    variant OOMed at pp 8 with it and needed 8);
 *  - DeepSeek-V3 BF16: DEEPSEEK_V3_PRETRAIN_CONFIG_B200_BF16_V2 is DEEPSEEK_V3_PRETRAIN_CONFIG_
 *    B200_V2, the MXFP8 config's, with recompute_modules ["mla_up_proj"] (selective). */
static void together_b200_recompute(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  static const struct {
    const char *model; /* the row's model name starts with it */
    enum pl_dtype dtype;
    enum pl_recompute recompute;
    int64_t layers;   /* full: recompute_num_layers (block method) */
    uint32_t modules; /* selective: the modules */
    const char *config;
  } cfg[] = {
      {"LLAMA3.1_405B", PL_DTYPE_NVFP4, PL_RECOMPUTE_FULL, 1, 0,
       "LLAMA31_405B_PRETRAIN_CONFIG_B200_NVFP4_V1 recompute_num_layers=1"},
      {"DeepSeekV3", PL_DTYPE_BF16, PL_RECOMPUTE_SELECTIVE, 0, PL_RCM_MLA_UP_PROJ,
       "DEEPSEEK_V3_PRETRAIN_CONFIG_B200_BF16_V2 recompute_modules [mla_up_proj]"},
  };
  if (stated(in, "recompute") || strcmp(cell(in, "gpu"), "B200") != 0)
    return;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (strncmp(cell(in, "model"), cfg[i].model, strlen(cfg[i].model)) != 0 ||
        l->dtype != cfg[i].dtype)
      continue;
    l->recompute = cfg[i].recompute;
    if (cfg[i].recompute == PL_RECOMPUTE_FULL) {
      l->recompute_layers = cfg[i].layers;
      l->recompute_uniform = false;
      validate_note(row,
                    "recompute full, block method, the first %lld block(s) of each chunk "
                    "(the release's %s)",
                    (long long)cfg[i].layers, cfg[i].config);
    } else {
      l->recompute_modules = cfg[i].modules;
      validate_note(row, "recompute selective (the release's %s)", cfg[i].config);
    }
    return;
  }
}

/* Nemotron-H 56B, which the Bridge summary has no row of (so no name in validate_mcore_model):
 * the recipes' pretrain_nemotron-h runs scripts/performance/configs/nemotronh/
 * nemotronh_llm_pretrain.py nemotronh_56b_pretrain_config_b200 (6b3b5ba7e = v0.3.0), the
 * recipe nemotronh_56b_pretrain_config (src/megatron/bridge/recipes/nemotronh/nemotronh.py:
 * NemotronHModelProvider56B = data/models/nemotron-h-56b.json, seq_length 8192, sequence
 * parallel, CommOverlapConfig(tp_comm_overlap=True) by enable_default_comm_overlap) with the
 * base config NEMOTRONH_56B_PRETRAIN_CONFIG_B200_FP8_CS_V1 (tp 2, global batch 192 at 64 GPUs,
 * cuda_graph_impl "transformer_engine", cuda_graph_scope [mamba, attn]) and
 * set_nemotronh_common_configs (ddp grad_reduce_in_fp32 False). */
static const char *const together_nemotronh = "NemotronH_56B";

bool validate_together_b200_model(const struct validate_in *in, struct pl_model *m,
                                  struct pl_vrow *row) {
  if (strcmp(cell(in, "model"), together_nemotronh) == 0)
    return validate_mcore_preset(in, "nemotron-h-56b", m, row);
  return validate_mcore_model(in, m, row);
}

/* Llama 3 70B FP8 current scaling with Megatron FSDP on B200 (the 25.11.01 scaling runs): the
 * release's config offloads the activations of 5 blocks to the host. Megatron-Bridge v0.2.2
 * (25.11) scripts/performance/configs/llama3/workload_base_configs.py
 * LLAMA3_70B_B200_FP8_CS_BASE_CONFIG (use_megatron_fsdp True, cpu_offloading_num_layers 5; the
 * same in v0.3.0 LLAMA3_70B_PRETRAIN_CONFIG_B200_FP8_CS_V1/V2), which utils/helpers.py
 * set_recompute_overrides (v0.3.0 utils/overrides.py _set_recompute_overrides) turns into
 * cpu_offloading True, cpu_offloading_weights False, cpu_offloading_num_layers 5 (layout
 * act_offload_layers: memory only). validate_bridge_offload sets it for GB300/GB200 rows. */
static void together_b200_offload(const struct validate_in *in, struct pl_layout *l,
                                  struct pl_vrow *row) {
  if (strncmp(cell(in, "model"), "LLAMA3_70B", 10) != 0 || strcmp(cell(in, "gpu"), "B200") != 0 ||
      l->dtype != PL_DTYPE_FP8 || l->shard != PL_SHARD_ZERO3 || l->act_offload_layers != 0)
    return;
  l->act_offload_layers = 5;
  validate_note(row, "activations of 5 blocks offloaded to the host (the release's "
                     "LLAMA3_70B B200 FP8_CS config, cpu_offloading_num_layers 5)");
}

/* The router's balance the row states (column 'moe_balance'): the dgxc recipes run
 * Megatron-Bridge's scripts/performance/setup_experiment.py (NVIDIA/dgxc-benchmarking
 * deepseek_v3/pretrain/megatron_bridge/launch.sh, qwen3/pretrain/launch.sh, 841f546), whose
 * v0.3.0 configs set moe_router_force_load_balancing True for every DeepSeek-V3 and Qwen3 run
 * (configs/deepseek/deepseek_llm_pretrain.py set_deepseek_v3_common_configs,
 * configs/qwen/qwen3_llm_pretrain.py set_qwen3_common_configs; utils/overrides.py clears it
 * only under --use_tokendrop, which the launch scripts do not pass). The Bridge summary's rows
 * say so in their notes (validate_mcore_balance); Together's in this column. */
static bool together_b200_balance(const struct validate_in *in, struct pl_layout *l,
                                  struct pl_vrow *row) {
  const char *bal = cell(in, "moe_balance");
  if (strcmp(bal, "force-balanced") == 0) {
    if (!l->moe_force_balance)
      validate_note(row, "imbalance 1 (the script's moe_router_force_load_balancing)");
    l->moe_imbalance = 1.0;
    l->moe_force_balance = true;
  } else if (*bal) {
    return validate_skip(row, "column 'moe_balance': '%s' is not 'force-balanced'", bal);
  }
  return true;
}

/* Megatron-Core's SwiGLU as eager kernels (layout.jit_eager) for the run Together profiled:
 * DeepSeek-V3 MXFP8 on 512 B200, NeMo 26.02, the Bridge B200 preset (the scorecard row
 * 28.618 s; the profiled jobs 84549/84552 ran 28.58-28.72 s). Its torch-profiler report
 * (@661e8e14 worklog/profiler_reports/dsv3_671b_fp8mx_512gpu_profiler.md, "Top 15 GPU
 * kernels", pipeline stage 0: 3 dense blocks and 1 MoE block, 256 micro-batches) lists
 * PyTorch's non-vectorized element-wise kernels 10 sigmoid, 15 binary and 11 other per
 * micro-batch: the 2 sigmoids, 3 products on the chunked halves and 2 silus of
 * fused_bias_swiglu.py's swiglu_back and swiglu (core_v0.16.0) for each of the stage's 5
 * SwiGLUs, where torch.compile would launch one Triton kernel each way. Only this row: no
 * other run's profile shows it, and why the functions ran eager is not known
 * (docs/accuracy.md, session 25 moe25). */
static void together_b200_jit_eager(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  if (strcmp(cell(in, "model"), "DeepSeekV3") != 0 || strcmp(cell(in, "gpu"), "B200") != 0 ||
      strcmp(cell(in, "container"), "nemo:26.02") != 0 || l->dtype != PL_DTYPE_MXFP8)
    return;
  l->jit_eager = true;
  validate_note(row, "SwiGLU as eager kernels (the run's torch-profiler report: swiglu_back's "
                     "sigmoid and products on the chunked halves, not torch.compile's kernel)");
}

bool validate_together_b200_layout(const struct validate_in *in, struct pl_layout *l,
                                   struct pl_vrow *row) {
  if (!validate_bridge_layout(in, l, row) || !together_b200_balance(in, l, row))
    return false;
  together_b200_recompute(in, l, row);
  together_b200_offload(in, l, row);
  together_b200_jit_eager(in, l, row);
  if (strcmp(cell(in, "model"), together_nemotronh) == 0 && strcmp(cell(in, "gpu"), "B200") == 0) {
    l->cuda_graph_scopes = PL_CGS_MAMBA | PL_CGS_ATTN;
    validate_note(row, "CUDA graphs of the mamba and attention blocks (the release's "
                       "NEMOTRONH_56B_PRETRAIN_CONFIG_B200_FP8_CS_V1, transformer_engine)");
  }
  return true;
}

/* Together's legacy NeMo 2 rows (source together-nemo2): the dgxc rules of NeMo 2 rows
 * (validate_dgxc_layout), then FP8 parameters for the FP8 current-scaling rows: the launch
 * scripts pass -fr cs, which NeMo's scripts/performance/helpers.py set_precision_configs turns
 * into bf16_with_fp8_current_scaling_mixed (first_last_layers_bf16 then False), and that
 * recipe sets fp8_param_gather = True (nemo/collections/llm/recipes/precision/
 * mixed_precision.py, branches llmb-nemo-r2.4.0 and llmb-nemo-r2.5.0, the 25.07 / 25.09
 * images' NeMo): with the distributed optimizer the GEMM weights are kept and all_gathered at
 * 1 B (layout.fp8_all_gather under zero1, docs/frameworks.md). */
bool validate_together_nemo2_layout(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  if (!validate_dgxc_layout(in, l, row))
    return false;
  /* NeMo's bf16_with_fp8_current_scaling_mixed sets fp8_param_gather as
   * Megatron-Bridge's copy does: the one rule for both */
  validate_bridge_fp8_params(in, l, row);
  return true;
}
