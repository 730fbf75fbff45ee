/* source_bridge_runtime.c: how each Megatron-Bridge release runs a row's step
 * (part of source_bridge.c's reading, which calls them): selective recompute
 * modules, CUDA-graph scopes and activation CPU offloading (with the rows
 * whose stated layout the release did not run). */
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h"
#include "validate/validate_int.h"

/* Megatron-Core selective recompute modules (layout.recompute_modules) of the
 * rows whose Megatron-Bridge performance configuration sets them. The rows do
 * not state them; as for validate_bridge_ep_overlap each container section is read in
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
 *    25.09 (v0.1.0rc4 = r0.1.0 scripts/performance/run_script.py: gpu b200
 *    recompute_modules ["mla_up_proj"], gb200 with token drop the same; the
 *    25.09 yaml configs/deepseek/deepseek_v3_llm_pretrain.yaml sets
 *    recompute_granularity "selective");
 *  - GPT-OSS 120B: gpt_oss workload configs v0.2.2-v0.5.0 and HEAD
 *    perf_recipes/gpt_oss/{gb200,b200,h100}/gpt_oss.py: GB200, B200 and H100
 *    ["layernorm", "moe_act"] (GB300, B300 none), except GB200_FP8_MX_V2
 *    (v0.5.0 and HEAD: recompute_modules=[]);
 *  - Kimi K2: v0.3.1, v0.4.0, v0.4.2, v0.5.0 configs/kimi/kimi_workload_base_configs.py
 *    KIMI_K2_PRETRAIN_CONFIG_GB300 (pp 4 vp 4 ep 64 mbs 2 gbs 4096, every precision)
 *    ["mla_up_proj"]; HEAD perf_recipes/kimi/gb300/kimi_k2.py the same;
 *  - Qwen3: qwen3_llm_pretrain.py sets recompute_granularity None (none);
 *  - Nemotron 3 Nano: v0.3.1 configs/nemotronh/nemotron_3_nano_workload_base_configs.py,
 *    v0.4.0, v0.4.2, v0.5.0 nemotron_3_workload_base_configs.py: H100_FP8_CS_V1
 *    ["moe", "layernorm", "core_attn", "moe_act"]; GB300, GB200, B300, B200 none
 *    (the recipe recipes/nemotronh/nemotron_3_nano.py sets recompute_granularity
 *    None; HEAD perf_recipes/nemotronh/common.py _apply_nemotron_3_nano_perf_defaults
 *    the same for 26.08).
 *  - Nemotron 3 Super: v0.4.0, v0.4.2, v0.5.0 nemotron_3_workload_base_configs.py
 *    NEMOTRON_3_SUPER_PRETRAIN_CONFIG_B300_{BF16,NVFP4}_V1 ["moe_act", "layernorm"],
 *    B300_FP8_MX_V1 none; B200_BF16_V1 ["moe_act", "moe", "layernorm", "core_attn"],
 *    B200_FP8_MX_V1 ["moe_act", "layernorm"], B200_NVFP4_V1 None; GB300, GB200 none (the
 *    recipe sets no recompute); HEAD perf_recipes/nemotronh/{b300,b200}/nemotronh.py
 *    nemotron_3_super_*_config the same (recompute_granularity "selective").
 *  - Nemotron 3.5 Lightning (26.08 GB200: perf_recipes/nemotronh/gb200/nemotronh.py
 *    nemotron_3_5_lightning_pretrain_8gpu_gb200_*_config, built on the Nano configs: no
 *    recompute, CUDA graphs over attn, mamba, moe_router, moe_preprocess).
 * An empty list means no recompute. Rows not listed keep "not stated". */
void validate_bridge_recompute(const struct validate_in *in, struct pl_layout *l,
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
      {"25.11 25.09", "DeepSeekV3", "GB200 B200", -1, PL_RCM_MLA_UP_PROJ},
      {"26.08 26.06.01 26.06 26.04.01 26.04 26.02.01", "Kimi_K2", "GB300", -1,
       PL_RCM_MLA_UP_PROJ},
      {"26.08 26.06 26.06.01", "GPT OSS 120B", "GB200", PL_DTYPE_MXFP8, 0},
      {"26.08 26.06.01 26.06 26.04.01 26.04 26.02.01 26.02 25.11 25.09", "GPT OSS 120B",
       "GB200 B200 H100", -1, PL_RCM_LAYERNORM | PL_RCM_MOE_ACT},
      {"26.06.01 26.06 26.04.01 26.04 26.02.01", "Nemotron_3_Nano", "H100", PL_DTYPE_FP8,
       PL_RCM_MOE | PL_RCM_LAYERNORM | PL_RCM_CORE_ATTN | PL_RCM_MOE_ACT},
      {"26.08 26.06.01 26.06 26.04.01 26.04 26.02.01", "Nemotron_3_Nano", "GB300 GB200 B300 B200",
       -1, 0},
      {"26.08 26.06.01 26.06 26.04.01 26.04", "Nemotron_3_Super", "B300", PL_DTYPE_MXFP8, 0},
      {"26.08 26.06.01 26.06 26.04.01 26.04", "Nemotron_3_Super", "B300", -1,
       PL_RCM_MOE_ACT | PL_RCM_LAYERNORM},
      {"26.08 26.06.01 26.06 26.04.01 26.04", "Nemotron_3_Super", "B200", PL_DTYPE_BF16,
       PL_RCM_MOE_ACT | PL_RCM_MOE | PL_RCM_LAYERNORM | PL_RCM_CORE_ATTN},
      {"26.08 26.06.01 26.06 26.04.01 26.04", "Nemotron_3_Super", "B200", PL_DTYPE_MXFP8,
       PL_RCM_MOE_ACT | PL_RCM_LAYERNORM},
      {"26.08 26.06.01 26.06 26.04.01 26.04", "Nemotron_3_Super", "GB300 GB200 B200", -1, 0},
      {"26.08", "Nemotron_3_5_Lightning", "GB200", -1, 0},
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
 * (as validate_bridge_recompute: 25.11 v0.2.2, 26.02 v0.3.0, 26.02.01 v0.3.1, 26.04
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
 *  - Nemotron 3 Super (v0.4.0, v0.4.2, v0.5.0 nemotron_3_workload_base_configs.py
 *    BASE_NEMOTRON_3_SUPER_CONFIG: cuda_graph_impl "transformer_engine", [attn, mamba,
 *    moe_router, moe_preprocess], which GB300, GB200 and B300 keep;
 *    BASE_NEMOTRON_3_SUPER_CONFIG_B200 cuda_graph_impl "none", its NVFP4_V1 "transformer_engine"
 *    with the same four scopes; HEAD perf_recipes/nemotronh/<gpu>/nemotronh.py
 *    nemotron_3_super_*_config the same per GPU and precision).
 *  - Llama 3 8B, 25.11 (v0.2.0-v0.2.2 configs/llama3/workload_base_configs.py
 *    LLAMA3_8B_{GB300,GB200,B200}_{BF16,FP8_CS}_BASE_CONFIG, FP8_MX = FP8_CS):
 *    cuda_graph_impl "local", cuda_graph_scope "full_iteration" (session 21, gb21).
 *  - GPT-OSS 120B (session 22, oss22): v0.2.2 configs/gpt_oss/workload_base_configs.py
 *    GPT_OSS_120B_GB300_BF16_BASE_CONFIG; v0.3.0, v0.3.1, v0.4.0, v0.4.2, v0.5.0
 *    configs/gpt_oss/gpt_oss_workload_base_configs.py
 *    GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,B300}_BF16_V1 (the V2 configs and the
 *    FP8_MX aliases replace() them without touching the graph):
 *    cuda_graph_impl "transformer_engine", [attn, moe_router, moe_preprocess];
 *    GB200, B200 and H100 set none. v0.5.0 GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,
 *    GB200}_FP8_MX_V2 cuda_graph_impl "full_iteration"; HEAD 067f987df0 (26.08)
 *    perf_recipes/gpt_oss/{gb300,gb200}/gpt_oss.py fp8mx the same
 *    (common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs), gb300 bf16 and b300
 *    bf16/fp8mx [attn, moe_router, moe_preprocess], gb200 bf16, b200, h100 none.
 *    utils/overrides.py _set_cuda_graph_overrides (v0.2.2 utils/helpers.py
 *    set_cuda_graph_overrides) applies the config's impl and scope.
 * First match wins. Other models' rows keep none (not read here). */
void validate_bridge_graph_scope(const struct validate_in *in, struct pl_layout *l,
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
      {"25.11", "LLAMA3_8B", "GB300 GB200 B200", -1, F},
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
      {"26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Super", "GB300 GB200 B300", -1,
       A | R | M},
      {"26.08", "Nemotron_3_5_Lightning", "GB200", -1, A | R | M},
      {"26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Super", "B200", PL_DTYPE_NVFP4,
       A | R | M},
      {"26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Super", "B200", -1, 0},
      {"26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 GB200", PL_DTYPE_MXFP8, F},
      {"25.11", "GPT OSS 120B", "GB300", -1, A | R},
      {"26.02 26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 B300", -1,
       A | R},
      {"25.11 26.02 26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "GPT OSS 120B",
       "GB200 B200 H100", -1, 0},
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

/* Activation CPU offloading (layout.act_offload_layers) of the Llama 3 70B
 * rows trained with Megatron FSDP. The rows do not state it; each section
 * was read in the release of its month (25.11: v0.2.0-v0.2.2
 * scripts/performance/configs/llama3/workload_base_configs.py
 * LLAMA3_70B_{GB300,GB200}_FP8_CS_BASE_CONFIG; 26.02: v0.3.0, 26.02.01:
 * v0.3.1, 26.04: v0.4.0, 26.04.01: v0.4.2 configs/llama/
 * llama3_workload_base_configs.py LLAMA3_70B_PRETRAIN_CONFIG_{GB300,GB200}_
 * FP8_CS_V1/V2): micro_batch_size 2, use_megatron_fsdp True,
 * cpu_offloading_num_layers 20 on GB300 and 40 on GB200, tp 1 pp 1 as the
 * rows; 25.09 (GB200 only): v0.1.0rc4 (and the page's commit fa0315ae2)
 * scripts/performance/configs/llama3/llama3_70b_llm_pretrain.yaml perf_matrix
 * gb200 num_gpus_64 fp8_cs, the same mbs 2 / tp 1 pp 1 / Megatron FSDP /
 * cpu_offloading_num_layers 40. utils/overrides.py _set_recompute_overrides
 * (v0.1.0rc4 and v0.2.x utils/helpers.py set_recompute_overrides) turns that
 * into model.cpu_offloading True,
 * cpu_offloading_weights False, cpu_offloading_num_layers N. The same
 * releases configure no FP8 Megatron-FSDP layout on other GPUs, and
 * their MXFP8/NVFP4 GB300 layouts are pp 4 vp 5 with micro_batch_size 1 (the
 * V1/V2 configs above): the two 26.02.01 GB300 rows that state tp 1 pp 1 /
 * pp 4 with mbs 2 for those precisions are not a layout the release ran. */
bool validate_bridge_offload(const struct validate_in *in, struct pl_layout *l,
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
      !validate_word_in("25.09 25.11 26.02 26.02.01 26.04 26.04.01", sec))
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

/* layout.pg_with_opt_step: Megatron-Bridge's performance scripts turn on
 * overlap_param_gather_with_optimizer_step whenever dp = gpus / (tp pp cp),
 * pp and vp are all above 1 (r0.1.0 line v0.1.0rc4 scripts/performance/
 * run_script.py; 25.11 v0.2.2 utils/helpers.py; v0.3.0 .. v0.6.0
 * utils/overrides.py), from v0.3.0 (26.02) not for fp8_mx and nvfp4
 * ("causes NaN grad norm"); the rows do not state it. */
void validate_bridge_pg_opt_step(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row) {
  int64_t mp = l->tp * l->pp * (l->cp > 0 ? l->cp : 1);
  int64_t dp = mp > 0 ? l->gpus / mp : 0;
  if (dp <= 1 || l->pp <= 1 || l->vp <= 1)
    return;
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  bool old = validate_word_in("25.09 25.11", sec);
  if (!old && (l->dtype == PL_DTYPE_MXFP8 || l->dtype == PL_DTYPE_NVFP4))
    return;
  l->pg_with_opt_step = true;
  validate_note(row, "the first chunk's parameter gather beside the optimizer step (the release's "
                     "performance scripts: overlap_param_gather_with_optimizer_step for dp, pp, vp > 1)");
}
