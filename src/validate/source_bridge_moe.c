/* source_bridge_moe.c: the Megatron-Bridge rows' MoE rules by release (part of
 * source_bridge.c's reading, which calls them): the token dispatcher, the
 * expert-parallel all-to-all overlap and the fused MXFP8 grouped MLP with its
 * cuDNN cluster margin. */
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h"
#include "validate/validate_int.h"

/* GPT-OSS 120B's token dispatcher by release (each section's Megatron-Bridge
 * release as for validate_bridge_ep_overlap). The recipe and the model bridge set
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
 * Every one of these names the hybridep backend (v0.4.0, v0.4.2, v0.5.0
 * gpt_oss_workload_base_configs.py moe_flex_dispatcher_backend="hybridep"; HEAD
 * perf_recipes/gpt_oss/common.py), none deepep, so they read as PL_MOE_HYBRIDEP, as
 * validate_bridge_layout reads the other models' hybridep configs: HybridEP pads each
 * expert's rows to the quantized GEMM's alignment inside its dispatch (Megatron-Core
 * megatron/core/transformer/moe/token_dispatcher.py _HybridEPManager.dispatch: pad_multiple =
 * get_align_size_for_quantization when config.fp8 or fp4, at the 3rdparty/Megatron-LM commits
 * v0.4.0 and v0.5.0 pin, d7288711 and d0b3b775), so Transformer Engine's
 * Fp8Padding copy is not charged (model/flops.c expert_pad) on the MXFP8 rows. Until
 * session 23 they read as deepep (the same price on an NVL72 rack and on Blackwell DGX
 * nodes, sim/moe_comm.c, but with the padding copy).
 * Returns whether the row is GPT-OSS 120B (its dispatcher then set here). */
bool validate_bridge_gpt_oss_dispatch(const struct validate_in *in, struct pl_layout *l,
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
      l->dispatch = PL_MOE_HYBRIDEP; /* as the other models' hybridep configs (source_bridge.c) */
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
 *    HybridEP's measured DGX B200 rate (moe_comm.c flex_nvl5_call_s, as DeepSeek-V3 on
 *    B200/B300 above); on H100 inside one node by NCCL's all_to_all (no published
 *    intra-node H100 HybridEP rate). The host waits after the dispatch (moe_sync.c).
 *  - Qwen3-235B-A22B on DGX B300 from 26.04.01 (v0.4.2, v0.5.0 scripts/performance/configs/
 *    qwen/qwen3_workload_base_configs.py QWEN3_235B_A22B_PRETRAIN_CONFIG_B300_{BF16,FP8_CS}_V1:
 *    moe_flex_dispatcher_backend "hybridep", inherited by FP8_MX and the _V2 configs;
 *    qwen3_llm_pretrain.py qwen3_235b_a22b_pretrain_config_b300 sets
 *    moe_token_dispatcher_type "flex"). v0.3.0-v0.4.1 set "alltoall" there, and the B200 and
 *    H100 functions keep "alltoall" in every release through v0.5.0. ep 8: one node.
 *  - Qwen3-30B-A3B on DGX B300 from 26.02 (v0.3.0, v0.3.1, v0.4.0, v0.4.2, v0.5.0
 *    scripts/performance/configs/qwen/qwen3_workload_base_configs.py
 *    QWEN3_30B_A3B_PRETRAIN_CONFIG_B300_{BF16,FP8_CS}_V1: moe_flex_dispatcher_backend
 *    "hybridep", FP8_MX_V1 = FP8_CS_V1 or replace(FP8_CS_V1, ...); qwen3_llm_pretrain.py
 *    qwen3_30b_a3b_pretrain_config_b300: v0.3.0 hands the backend to the recipe, whose
 *    apply_flex_dispatcher_backend sets the flex type on compute capability 10, v0.3.1 ..
 *    v0.5.0 set moe_token_dispatcher_type "flex" themselves) and on DGX B200 from 26.02.01
 *    (v0.3.1 .. v0.5.0 QWEN3_30B_A3B_PRETRAIN_CONFIG_B200_BF16_V1, mbs 4, backend "hybridep",
 *    FP8_CS / FP8_MX = it; qwen3_30b_a3b_pretrain_config_b200 "flex": Megatron-Bridge PR
 *    #2499, "Fix Qwen3 30B A3B B200 perf config to use hybridep+flex dispatcher"). v0.3.0's
 *    B200 config names no backend (alltoall, the mbs 1 row of 26.02), nor v0.2.2's (25.11).
 *    ep 8: one node, priced as the Nemotron 3 Nano DGX rows above.
 *  - Nemotron 3 Super on DGX B200/B300 from 26.04 (v0.4.0, v0.4.2, v0.5.0
 *    scripts/performance/configs/nemotronh/nemotron_3_workload_base_configs.py
 *    BASE_NEMOTRON_3_SUPER_CONFIG: moe_flex_dispatcher_backend "hybridep", which the B200 and
 *    B300 configs replace() from; utils/overrides.py set_workload_base_configs (line 225)
 *    calls apply_flex_dispatcher_backend, which sets the flex type; 26.08 HEAD 067f987df0
 *    perf_recipes/nemotronh/{b300,b200}/nemotronh.py nemotron_3_super_*_config set "flex" and
 *    "hybridep" themselves). B300 ep 8: one node; B200 ep 64: eight nodes, over InfiniBand
 *    (moe_comm.c flex_ib_call_s). */
void validate_bridge_release_dispatch(const struct validate_in *in, struct pl_layout *l,
                                      struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus; /* space-separated words; model: a prefix */
    enum pl_moe_dispatch dispatch;
    const char *note;
  } cfg[] = {
      {"26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "DeepSeekV3", "B200 B300", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's B200/B300 config)"},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "H100", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's H100 config)"},
      {"26.02", "Qwen3_30B", "H100", PL_MOE_DEEPEP, "deepep dispatcher (the release's H100 config)"},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Nemotron_3_Nano", "B200 B300 H100",
       PL_MOE_HYBRIDEP, "hybridep dispatcher (the release's DGX config)"},
      {"26.04.01 26.06 26.06.01", "Qwen3_235B", "B300", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's B300 config)"},
      {"26.02 26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "B300", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's B300 config)"},
      {"26.02.01 26.04 26.04.01 26.06 26.06.01", "Qwen3_30B", "B200", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's B200 config)"},
      {"26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Super", "B200 B300", PL_MOE_HYBRIDEP,
       "hybridep dispatcher (the release's DGX config)"},
  };
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
    if (bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, -1)) {
      l->dispatch = cfg[i].dispatch;
      validate_note(row, "%s", cfg[i].note);
      return;
    }
}

/* The router without Megatron-Core's moe_router_fusion (layout.moe_router_unfused) for
 * the Nemotron 3 Nano rows: Megatron-Bridge's recipe sets cfg.model.moe_router_fusion = False
 * (src/megatron/bridge/recipes/nemotronh/nemotron_3_nano.py, v0.3.1 line 86, v0.4.0, v0.4.2
 * and v0.5.0 line 126; HEAD 067f987df0 recipes/nemotronh/h100/nemotron_3_nano.py, which the
 * 26.08 perf_recipes/nemotronh build on) and no performance config turns it on (v0.3.1 ..
 * v0.5.0 scripts/performance/configs/nemotronh/nemotron_3_llm_pretrain.py and
 * utils/overrides.py; HEAD perf_recipes/nemotronh/common.py _apply_nemotron_3_nano_perf_defaults
 * and perf_recipes/_common.py _benchmark_common set nothing for it), while the Qwen3,
 * DeepSeek-V3 and Kimi K2 performance configs set it True. Every section from 26.02.01 on;
 * and the 26.08 Nemotron 3.5 Lightning rows, whose recipes start from the Nano configs
 * (perf_recipes/nemotronh/gb200/nemotronh.py nemotron_3_5_lightning_pretrain_8gpu_gb200_*).
 * The Nemotron 3 Super rows (26.04 .. 26.08) keep Megatron-Core's default False
 * (transformer_config.py moe_router_fusion: bool = False, d98e8a6): nothing sets it for them
 * (`git grep moe_router_fusion` finds no hit in v0.4.0, v0.4.2, v0.5.0 scripts/performance/utils,
 * configs/nemotronh and recipes/nemotronh/nemotron_3_super.py; at HEAD 067f987df0 only
 * perf_recipes/nemotronh/common.py _apply_nemotron_3_ultra_perf_defaults and the H100
 * Lightning recipe set True, models/ and training/ nothing). */
void validate_bridge_router_fusion(const struct validate_in *in, struct pl_layout *l,
                                   struct pl_vrow *row) {
  if (!bridge_names_are(in, "26.02.01 26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Nano",
                        "GB300 GB200 B300 B200 H100") &&
      !bridge_names_are(in, "26.08", "Nemotron_3_5_Lightning", "GB300 GB200") &&
      !bridge_names_are(in, "26.04 26.04.01 26.06 26.06.01 26.08", "Nemotron_3_Super",
                        "GB300 GB200 B300 B200"))
    return;
  l->moe_router_unfused = true;
  validate_note(row, "unfused router (the recipe's moe_router_fusion False, or Megatron-Core's "
                     "default)");
}

/* HybridEP's SM count (layout.hybridep_sms) where a release's recipe sets its own.
 * Up to 26.06.01 the performance scripts' common overrides set
 * moe_hybridep_num_sms = 32 for every hybridep run after the workload config
 * (v0.3.0-v0.5.0 scripts/performance/utils/overrides.py _set_common_perf_overrides,
 * called last in set_workload_base_configs): the nemo preset's hybridep_sms 32.
 * 26.08 (HEAD 067f987df0) builds each run from a flat perf recipe
 * (scripts/performance/run_script.py _prepare_perf_recipe: get_perf_recipe_by_name,
 * then only the CLI and user overrides, which set no SM count), and the common
 * 32 moved into src/megatron/bridge/perf_recipes/_common.py _benchmark_common
 * (line 88-89), which some recipes follow with their own value. The Nemotron 3
 * Nano recipes (perf_recipes/nemotronh/<gpu>/nemotronh.py) do:
 *  - gb300: bf16 line 350, mxfp8 (_build_nemotron_3_nano_gb300_mxfp8) line 400,
 *    nvfp4 line 462: 16;
 *  - gb200: bf16 line 335 and nvfp4 line 447: 16; mxfp8
 *    (_build_nemotron_3_nano_gb200_mxfp8) line 385: 32;
 *  - b300: bf16 247, fp8mx 300, nvfp4 353: 16; b200: bf16 239, nvfp4 341: 16,
 *    fp8mx 290: 32 (DGX rows price HybridEP at its 16-SM B200 rate either way:
 *    sim/moe_comm.c flex_nvl5_call_s).
 * The 26.08 Nemotron 3.5 Lightning GB200 recipes set 16 (bf16 on the Nano bf16 config's 16;
 * _build_nemotron_3_5_lightning_gb200_mxfp8 moe_hybridep_num_sms = 16 after the Nano
 * mxfp8 builder's 32).
 * The 26.08 Qwen3, DeepSeek-V3 GB and GPT-OSS 120B GB recipes keep 32
 * (_benchmark_common after the hybridep backend; deepseek/gb200 and gb300 deepseek_v3.py and
 * gpt_oss/common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs set 32 too).
 * The row's value beats the preset's (model/framework.c pl_framework_apply). */
void validate_bridge_hybridep_sms(const struct validate_in *in, struct pl_layout *l,
                                  struct pl_vrow *row) {
  static const struct {
    const char *sections, *model, *gpus;
    int dtype; /* enum pl_dtype, -1 for any */
    int64_t sms;
  } cfg[] = {
      {"26.08", "Nemotron_3_5_Lightning", "GB200", -1, 16},
      {"26.08", "Nemotron_3_Nano", "GB200 B200", PL_DTYPE_MXFP8, 32},
      {"26.08", "Nemotron_3_Nano", "GB300 GB200 B300 B200", -1, 16},
  };
  if (l->dispatch != PL_MOE_HYBRIDEP)
    return;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++)
    if (bridge_config_is(in, l, cfg[i].sections, cfg[i].model, cfg[i].gpus, cfg[i].dtype)) {
      l->hybridep_sms = cfg[i].sms;
      validate_note(row, "%lld HybridEP SMs (the release's recipe)", (long long)cfg[i].sms);
      return;
    }
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
void validate_bridge_ep_overlap(const struct validate_in *in, struct pl_layout *l,
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
      {"26.08", "Qwen3_30B", "H100", PL_DTYPE_BF16, 0}, /* delay_wgrad_compute False (below) */
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
  size_t i = 0;
  for (; i < sizeof on / sizeof on[0] && !set; i++) {
    size_t n = strlen(on[i].section);
    if (strncmp(sec, on[i].section, n) != 0 || (sec[n] != ' ' && sec[n] != '.'))
      continue;
    if (strncmp(name, on[i].model, strlen(on[i].model)) != 0)
      continue;
    if (on[i].dtype >= 0 && (int)l->dtype != on[i].dtype)
      continue;
    if (on[i].gbs > 0 && l->gbs != on[i].gbs)
      continue;
    set = validate_word_in(on[i].gpus, gpu);
  }
  if (!set)
    return;
  validate_mcore_ep_overlap(l, row, "the release's overlap_moe_expert_parallel_comm");
  /* delay_wgrad_compute (validate_mcore_ep_overlap sets it with the overlap): every
   * release's scripts set both (v0.2.0-v0.2.2 utils/helpers.py
   * set_moe_a2a_overlap_overrides, v0.3.0-v0.6.0 utils/overrides.py
   * _set_moe_a2a_overlap_overrides), as the 26.08 perf_recipes do (HEAD 067f987df0
   * perf_recipes/{deepseek,gpt_oss,qwen}/...), except
   * qwen/h100/qwen3_moe.py qwen3_30b_a3b_pretrain_16gpu_h100_bf16_config:
   * delay_wgrad_compute = False */
  if (l->delay_wgrad && strcmp(on[i - 1].section, "26.08") == 0 &&
      strcmp(on[i - 1].model, "Qwen3_30B") == 0 && strcmp(on[i - 1].gpus, "H100") == 0) {
    l->delay_wgrad = false;
    validate_note(row, "delayed wgrad off (the 26.08 recipe's delay_wgrad_compute False)");
  }
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
 *    NVTE_CUTEDSL_FUSED_GROUPED_MLP: 1 in its config function. Not applied:
 *    nemotronh/{gb300,gb200}/nemotronh.py nemotron_3_super_64gpu_*_fp8mx_config (26.08) set
 *    the op fuser with NVTE_CUTEDSL_FUSED_GROUPED_MLP 1 too, but Super's experts are
 *    squared-ReLU (TE's fused weighted squared-ReLU path), which the GLU-only fused model
 *    (layout.fused_grouped_mlp) does not price: those two rows run the unfused experts.
 * Each of these configurations also runs the fused kernels with a cluster margin of 8
 * (layout.cudnn_cluster_margin, cuDNN frontend's CUDNNFE_CLUSTER_OVERLAP_MARGIN): v0.5.0
 * scripts/performance/perf_plugins.py sets CUDNNFE_CLUSTER_OVERLAP_MARGIN=8 whenever
 * cutedsl_fused_grouped_mlp and moe_a2a_overlap (every v0.5.0 config above sets both);
 * the 26.08 perf_recipes above carry "CUDNNFE_CLUSTER_OVERLAP_MARGIN": 8 in the same
 * config functions' env. */
void validate_bridge_fused_mlp(const struct validate_in *in, struct pl_layout *l,
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
      l->cudnn_cluster_margin = 8;
      validate_note(row, "fused MXFP8 grouped MLP (the release's cutedsl_fused_grouped_mlp / "
                         "TE op fuser), its cuDNN kernels with 8 clusters left free (the "
                         "release's CUDNNFE_CLUSTER_OVERLAP_MARGIN)");
      return;
    }
  }
}

/* The 25.09 section's token-drop rows (the model cell says "(tokendrop)"):
 * Megatron-Bridge v0.1.0rc4 (r0.1.0, the 25.09 release; the page's commit
 * fa0315ae2 the same) scripts/performance/run_script.py builds every Qwen3
 * run, and DeepSeek-V3 on B200/GB200 (use_tokendrop for gpu b200, gb200,
 * which also sets enable_deepep False), with
 * recipe.model = apply_moe_token_drop(recipe.model)
 * (src/megatron/bridge/training/utils/moe_token_drop.py: capacity factor 1.0,
 * moe_pad_expert_input_to_capacity True, asserting the alltoall dispatcher).
 * The providers keep moe_token_dispatcher_type "alltoall"
 * (models/qwen/qwen_provider.py, models/deepseek/deepseek_provider.py) and no
 * 25.09 performance yaml names another, so these rows run alltoall, not the
 * hybridep of the later GB200/GB300 configs. The router is not force-balanced
 * (run_script.py sets moe_router_force_load_balancing only for DeepSeek-V3
 * with DeepEP, on H100; the section's footnote force-balances only the
 * "token-dropless" benchmarks): every expert computes its padded capacity, the
 * mean, so the imbalance is 1 without RandomSTE's random logits. Returns
 * whether the row is one (the caller then skips validate_mcore_balance). */
bool validate_bridge_tokendrop_2509(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  if (strcmp(sec, "25.09") != 0 || strstr(cell(in, "model"), "(tokendrop)") == NULL)
    return false;
  l->dispatch = PL_MOE_ALLTOALL;
  l->moe_imbalance = 1.0;
  l->moe_pad_capacity = true;
  l->moe_force_balance = false;
  validate_note(row, "25.09 token drop: alltoall dispatcher, capacity factor 1.0 padded to "
                     "capacity, imbalance 1 without forced balance (v0.1.0rc4 run_script.py "
                     "apply_moe_token_drop)");
  return true;
}
