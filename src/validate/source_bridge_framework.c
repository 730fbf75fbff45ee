/* source_bridge_framework.c: the framework settings a Megatron-Bridge row's
 * release changes against the nemo preset (validate_bridge_overrides, the
 * table entry's framework hook in sources.c): the LM head in MXFP8, the
 * container's cuDNN, tp_comm_overlap off, the Llama configs' userbuffers SMs. */
#include <stdio.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h"
#include "validate/validate_int.h"

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
 * validate_bridge_ep_overlap: the 25.11 section is v0.2.0-v0.2.2, whose image is
 * NGC PyTorch 25.09 (docker/Dockerfile.ci FROM nvcr.io/nvidia/pytorch:25.09-py3;
 * docker/common/install.sh installs its Python packages with
 * --no-install-package nvidia-cudnn-cu12, keeping the container's cuDNN), and
 * that container ships cuDNN 9.13 (NVIDIA/cudnn-frontend
 * benchmark/sdpa_benchmark_training/README.md @ bb37575: torch.backends.cudnn.
 * version() = 91300 in nvcr.io/nvidia/pytorch:25.09-py3). Its fused attention
 * runs at the rates NVIDIA published for cuDNN 9.13.1 (layout.cudnn_version 9.13; GPU
 * files with attention.cudnn.shape_9_13: B200, GB200, GB300). v0.3.0 (26.02)
 * moves to PyTorch 25.11 and later releases to newer images: today's rates.
 * The cuDNN is the preset nemo-25-11's (data/frameworks/), which replaces the
 * row's nemo preset first, before the row's own changes. The 25.09 section (r0.1.0, an ubuntu:24.04 image with the CUDA repository's
 * cuDNN of its build date) is not read: its rows state no precision. */
static bool bridge_cudnn(const struct validate_in *in, struct pl_framework *fw,
                         struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  if (!validate_word_in("25.11", sec))
    return true;
  if (!validate_row_preset("nemo-25-11", fw, row))
    return false;
  return true;
}

/* The userbuffers SMs of the Llama 3 70B and 3.1 405B rows with tp overlap: the
 * release's configs hand CommOverlapConfig a ub config per GPU and precision
 * (cfg.comm_overlap.tp_comm_overlap_cfg = comm_overlap_cfg in llama3{,1}_llm_pretrain.py
 * llama3_70b_pretrain_config_<gpu> / llama31_405b_pretrain_config_<gpu>: v0.2.2
 * configs/llama3{,1}/, v0.3.1, v0.4.2, v0.5.1 configs/llama/; gb300, gb200, b300, b200
 * take the b200 configs: bf16 for BF16, fp8 for every other precision; h100 its own),
 * whose proj/fc2 fprop num_sm (src/megatron/bridge/training/comm_overlap.py, the same
 * in v0.2.2 .. v0.5.1 and HEAD 067f987df0; set_sm_margin True; a RingExchangeOverlapCfg
 * has num_sm 1) replace the nemo preset's H100 24/16. The fp8 configs run both fprop
 * overlaps as ring exchanges. Sections 25.11 to 26.06.01 (the releases read; 25.09's
 * rows state no precision and are skipped). Rows the table above turns off (NVFP4)
 * return before this. */
static void bridge_llama_ub(const struct validate_in *in, struct pl_framework *fw,
                            struct pl_vrow *row) {
  static const char *const sections = "25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01";
  static const struct {
    const char *model, *gpus, *cfg_bf16, *cfg_fp8;
    int64_t bf16_proj, bf16_fc2, fp8_proj, fp8_fc2;
  } ub[] = {
      {"LLAMA3_70B", "GB300 GB200 B300 B200", "userbuffers_bf16_b200_h8192_tp2_mbs1_seqlen8192",
       "userbuffers_fp8_b200_h8192_tp2_mbs1_seqlen8192", 32, 16, 1, 1},
      {"LLAMA3_70B", "H100", "userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192",
       "userbuffers_fp8_h100_h8192_tp4_mbs1_seqlen8192", 24, 16, 1, 1},
      {"LLAMA3.1_405B", "GB300 GB200 B300 B200",
       "userbuffers_bf16_b200_h16384_tp4_cp2_mbs1_seqlen8192",
       "userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192", 32, 8, 1, 1},
      {"LLAMA3.1_405B", "H100", "userbuffers_bf16_h100_h16384_tp8_cp2_mbs1_seqlen8192",
       "userbuffers_fp8_h100_h16384_tp8_cp2_mbs1_seqlen8192", 24, 8, 1, 1},
  };
  const char *prec = cell(in, "precision");
  if (prec[0] == '\0')
    return;
  bool bf16 = strcmp(prec, "BF16") == 0;
  for (size_t i = 0; i < sizeof ub / sizeof ub[0]; i++) {
    if (!bridge_names_are(in, sections, ub[i].model, ub[i].gpus))
      continue;
    fw->ub_proj_fprop_sms = bf16 ? ub[i].bf16_proj : ub[i].fp8_proj;
    fw->ub_fc2_fprop_sms = bf16 ? ub[i].bf16_fc2 : ub[i].fp8_fc2;
    fw->ub_proj_fprop_sms_set = fw->ub_fc2_fprop_sms_set = true;
    validate_note(row, "userbuffers %lld/%lld SMs (proj/fc2 fprop: the release's %s)",
                  (long long)fw->ub_proj_fprop_sms, (long long)fw->ub_fc2_fprop_sms,
                  bf16 ? ub[i].cfg_bf16 : ub[i].cfg_fp8);
    return;
  }
}

/* Megatron-Bridge rows take the nemo preset (TE userbuffers tp overlap on);
 * these release configurations run without it (the section's release as for
 * validate_bridge_recompute; r0.1.0 for 25.09). Only rows with tp > 1 move.
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
 *    Nor do they get the 128 Mi-parameter bucket of _get_optimizer_overlap_cfgs (the
 *    nemo preset's bucket_params) but Megatron-Core's bucket_size None: max(40e6, 1e6 dp
 *    cp) parameters (bucket_dp_scaled), set for the Super rows (Ultra is refused).
 *  - DeepSeek-V3, 25.09: r0.1.0 run_script.py passes no comm_overlap_config and
 *    recipes/deepseek/deepseek_v3.py pretrain_config defaults CommOverlapConfig(
 *    tp_comm_overlap=False). */
bool validate_bridge_overrides(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row) {
  if (!bridge_cudnn(in, fw, row))
    return false;
  bridge_output_proj(in, fw, row);
  /* Megatron-Bridge's DistributedInitConfig.align_grad_reduce defaults True
   * (src/megatron/bridge/training/config.py v0.1.0rc4 .. v0.3.0; from v0.4.0
   * Megatron-LM's megatron/training/config/common_config.py) and no recipe or
   * performance config read sets it (git grep align_grad_reduce, v0.6.0):
   * training/setup.py hands the schedules each chunk's start_grad_sync
   * (layout.align_grad_reduce; the nemo preset, NeMo 2's, leaves it off) */
  fw->align_grad_reduce = PL_SETTING_ON;
  if (strcmp(row->framework, "nemo-25-11") == 0)
    validate_note(row, "cuDNN 9.13 attention (the release's image, NGC PyTorch 25.09)");
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
  /* 25.11 (Megatron-Bridge v0.2.0 .. v0.2.2 scripts/performance/configs/deepseek/
   * deepseek_llm_pretrain.py deepseek_v3_gb300_config and deepseek_v3_gb200_config,
   * qwen3/qwen3_llm_pretrain.py qwen3_235b_a22b_b200_config): under fp8_mx, "keeping this
   * enabled causes NaN grad norm": comm_overlap, ddp and optimizer overlap_param_gather False,
   * so the distributed optimizer's parameter all_gathers are waited for. The MoE configs only
   * and the same release's Llama 3 70B and Llama 3.1 405B GB300/GB200/B200 configs
   * (v0.2.0 .. v0.2.2 configs/llama3/llama3_llm_pretrain.py llama3_70b_{gb300,gb200,b200}_config,
   * configs/llama31/llama31_llm_pretrain.py llama31_405b_{gb300,gb200,b200}_config: the same
   * `if precision == "fp8_mx"` block; not the 8B configs; v0.3.0 and later drop it). */
  static const struct {
    const char *model, *gpus;
  } no_pg[] = {{"DeepSeekV3", "GB300 GB200"},
               {"Qwen3_235B", "B200"},
               {"LLAMA3_70B", "GB300 GB200 B200"},
               {"LLAMA3.1_405B", "GB300 GB200 B200"}};
  for (size_t i = 0; i < sizeof no_pg / sizeof no_pg[0]; i++)
    if (bridge_names_are(in, "25.11", no_pg[i].model, no_pg[i].gpus) &&
        (strcmp(cell(in, "precision"), "FP8-MX") == 0 ||
         strcmp(cell(in, "precision"), "MXFP8") == 0)) {
      fw->overlap_param_gather = PL_SETTING_OFF;
      validate_note(row, "overlap_param_gather off (the release's fp8_mx config: NaN grad norm)");
    }
  for (size_t i = 0; i < sizeof off / sizeof off[0]; i++) {
    if (!bridge_names_are(in, off[i].sections, off[i].model, off[i].gpus))
      continue;
    if (off[i].precision != NULL && strcmp(cell(in, "precision"), off[i].precision) != 0)
      continue;
    fw->tp_comm_overlap = PL_SETTING_OFF;
    validate_note(row, "tp_comm_overlap off (%s)", off[i].why);
    if (strncmp(off[i].model, "Nemotron_3_Super", 16) == 0) {
      fw->bucket_dp_scaled = true; /* no comm_overlap config: Megatron-Core's bucket_size */
      fw->bucket_params = 0;
      fw->bucket_mb = 0;
      validate_note(row, "Megatron-Core's gradient bucket, max(40e6, 1e6 x dp x cp) parameters "
                         "(no comm_overlap config)");
    }
    return true;
  }
  bridge_llama_ub(in, fw, row);
  return true;
}
