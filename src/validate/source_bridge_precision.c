/* source_bridge_precision.c: the Megatron-Bridge rows' precision rules by
 * release (part of source_bridge.c's reading, which calls them): the FP8
 * recipe of plain "FP8" rows, FP8 parameters of Megatron FSDP rows, MXFP8
 * attention and the NVFP4 RHT cast of the release's Transformer Engine. */
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h"
#include "validate/validate_int.h"

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
void validate_bridge_fp8_recipe(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row) {
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  const char *name = cell(in, "model");
  if (l->dtype != PL_DTYPE_FP8 || l->fp8_recipe != PL_FP8_RECIPE_TENSOR ||
      !validate_word_in("26.02 26.02.01 26.04 26.04.01 26.06", sec) ||
      strncmp(name, "DeepSeekV3", 10) == 0 || strncmp(name, "Kimi", 4) == 0)
    return;
  l->fp8_recipe = PL_FP8_RECIPE_CURRENT;
  validate_note(row, "FP8 as current scaling (the release's performance scripts: fp8_cs, "
                     "no delayed scaling)");
}

/* FP8 parameters of the rows under FP8 current scaling, with Megatron FSDP
 * or the distributed optimizer (layout.fp8_all_gather; pl_layout_te_fp8_params
 * takes zero1 and zero3): every release's fp8_cs recipe,
 * src/megatron/bridge/training/mixed_precision.py
 * bf16_with_fp8_current_scaling_mixed (v0.2.0, v0.2.2, v0.3.0, v0.3.1 line
 * 289; v0.4.0 line 294; v0.4.2 line 308; v0.5.0 line 302), sets
 * fp8_param_gather = True whatever the data-parallel sharding; its
 * __setattr__ keeps fp8_param in step and setup() hands both to the model and
 * the DDP config (update_config_with_precision_overrides). The performance
 * scripts' get_precision_config (v0.2.2 scripts/performance/utils/helpers.py,
 * v0.3.0 .. v0.5.0 utils/precision.py) turns off only first_last_layers_bf16;
 * `git grep fp8_param_gather` in scripts/performance of v0.2.2 .. v0.5.0
 * finds overrides only for Kimi-K2 with Muon and MXFP8 (not fp8_cs) and
 * GPT-OSS 20B (v0.5.0 configs/gpt_oss/gpt_oss_llm_pretrain.py
 * get_gpt_oss_20b_precision_config: fp8_param and fp8_param_gather False for
 * every compute dtype; HEAD 067f987df0 perf_recipes/gpt_oss/common.py the
 * same), so GPT-OSS 20B rows keep BF16 parameters. Under the distributed
 * optimizer Megatron-Core then keeps the GEMM weights in uint8 buffers and
 * all_gathers them at 1 B (layout_bytes.c pl_layout_te_fp8_params). Run after
 * validate_bridge_fp8_recipe. */
void validate_bridge_fp8_params(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row) {
  if ((l->shard != PL_SHARD_ZERO3 && l->shard != PL_SHARD_ZERO1) ||
      l->dtype != PL_DTYPE_FP8 || l->fp8_recipe != PL_FP8_RECIPE_CURRENT ||
      strncmp(cell(in, "model"), "GPT OSS 20B", 11) == 0)
    return;
  l->fp8_all_gather = true;
  validate_note(row, "FP8 parameters, gathered at 1 B (the fp8_cs recipe's fp8_param_gather)");
}

void validate_fp8_delayed_params(struct pl_layout *l, struct pl_vrow *row, const char *why) {
  if (l->shard != PL_SHARD_ZERO1 || l->dtype != PL_DTYPE_FP8 ||
      (l->fp8_recipe != PL_FP8_RECIPE_TENSOR && l->fp8_recipe != PL_FP8_RECIPE_DELAYED))
    return;
  l->fp8_all_gather = true;
  validate_note(row, "%s", why);
}

/* MXFP8 attention (layout.fp8_attention) of the rows whose Megatron-Bridge
 * performance configuration sets fp8_dot_product_attention (each container
 * section read in the release of its month, as validate_bridge_recompute; the setting
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
 *    B300; 235B on B200); nemotronh/gb300/nemotronh.py
 *    nemotron_3_nano_pretrain_8gpu_gb300_fp8mx_config (Nemotron 3 Nano GB300 MXFP8: its
 *    attention blocks; the v0.5.0 Nano configs set none); nemotronh/{gb300,gb200}/
 *    nemotronh.py nemotron_3_super_64gpu_*_fp8mx_config (Nemotron 3 Super; v0.5.0 none);
 *    nemotronh/gb200/nemotronh.py nemotron_3_5_lightning_pretrain_8gpu_gb200_fp8mx_config.
 *  - GPT-OSS 120B: v0.5.0 GPT_OSS_120B_PRETRAIN_CONFIG_{GB300,GB200}_FP8_MX_V2
 *    (gpt_oss_workload_base_configs.py) for 26.06 and 26.06.01; 26.08 (HEAD
 *    perf_recipes/gpt_oss/{gb300,gb200}/gpt_oss.py *_fp8mx_config ->
 *    common.py _apply_gpt_oss_120b_full_iter_fp8mx_configs); not B300/B200 (their
 *    FP8_MX_V2 are the BF16 configs; HEAD's b300/b200 fp8mx set none). TE 2.16
 *    (v0.5.0's pin) runs FP8 attention with sinks and with a sliding window on
 *    sm100 from cuDNN 9.21 (get_attention_backend "Filter: Softmax type" and
 *    "Filter: Sliding window attention"; TE 2.14 refused both, so no earlier
 *    section is read); the rows take today's cuDNN (layout.c te_uses_cudnn). */
void validate_bridge_fp8_attention(const struct validate_in *in, struct pl_layout *l,
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
      {"26.08", "Nemotron_3_Nano", "GB300"},
      {"26.08", "Nemotron_3_Super", "GB300 GB200"},
      {"26.08", "Nemotron_3_5_Lightning", "GB200"},
      {"26.06 26.06.01 26.08", "GPT OSS 120B", "GB300 GB200"},
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
 * section (as validate_bridge_recompute) pins TE in its uv.lock: v0.2.2 (25.11)
 * 2.9.0+70f53666, v0.3.0 and v0.3.1 (26.02, 26.02.01) 2.12.0+5671fd36, v0.4.0
 * (26.04) 2.14.0+71bbefbf, v0.4.2 2.14.1, v0.5.0 2.16.0. TE 2.9-2.13's
 * NVFP4Quantizer::quantize_impl (pytorch/csrc/quantizer.cpp) quantizes the
 * rowwise copy with nvte_quantize_v2 and the columnwise RHT copy with
 * nvte_hadamard_transform_cast_fusion_columnwise, each reading the input; TE
 * 2.14 fuses both into nvte_quantize_with_hadamard_transform. */
void validate_bridge_nvfp4_rht(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  if (!bridge_config_is(in, l, "25.11 26.02 26.02.01", "", "GB300 GB200 B300 B200",
                        PL_DTYPE_NVFP4))
    return;
  l->nvfp4_rht_unfused = true;
  validate_note(row, "NVFP4 RHT cast in two passes (the release's Transformer Engine 2.9/2.12)");
}

/* The precision of the 25.09 section's rows, which print none (the tables
 * have no precision column; docs/performance-summary-archive.md @ 067f987df0,
 * first published at fa0315ae2, "update 25.09 performance summary"), where the
 * release's performance configuration ties the row to exactly one recipe.
 * The section's footnote: "The numbers in parentheses indicate the use of
 * different quantization granularities: In case of GB200 and B200 systems,
 * 32x32 for both weights and activations" -- so a parenthesised figure is block
 * scaled, and the only block-scaled recipe the 25.09 scripts offer on
 * GB200/B200 is fp8_mx (scripts/performance/argument_parser.py --fp8_recipe
 * ds, cs, mx, ss; ss is H100's 128x128 subchannel; utils/helpers.py
 * get_precision_config: mx -> bf16_with_mxfp8_mixed). Each row's layout was
 * checked against scripts/performance/configs/<model>/<model>_llm_pretrain.yaml
 * perf_matrix (utils/helpers.py apply_perf_matrix_overrides: the precision's
 * entry merged over "common") at the page's commit fa0315ae2 (= v0.1.0rc3's
 * configs) and at v0.1.0rc4 (r0.1.0, the release the other 25.09 rules read);
 * a row is listed when one of them has it as its fp8_mx entry:
 *  - LLAMA3_8B GB200, B200 (num_gpus_8: tp 1 pp 1 mbs 2 for every precision);
 *  - LLAMA3_70B GB200 (num_gpus_64 fp8_mx: tp 2 pp 4 vp 5, no FSDP, mbs 1). The
 *    table's MBS cell (2, not parenthesised) belongs to the FSDP layout; the
 *    parenthesised GA (16) = GBS 128 / (mbs x dp 8) gives mbs 1, as the config;
 *  - LLAMA3.1_405B GB200, B200 (num_gpus_128 fp8_mx: tp 4 pp 8 cp 2 vp 8);
 *  - Qwen3_30B GB200 (num_gpus_8: tp 1 pp 1 ep 8 mbs 4, both commits);
 *  - Qwen3_235B GB200 (fa0315ae2 num_gpus_64: tp 2 pp 1 ep 64; v0.1.0rc4 moved
 *    to tp 1 pp 8 ep 8), Qwen3_235B B200 (v0.1.0rc4: tp 1 pp 8 vp 2 ep 8;
 *    fa0315ae2 had vp 12);
 *  - DeepSeekV3 B200 (v0.1.0rc4 num_gpus_256: tp 1 pp 16 ep 8; fa0315ae2 tp 2).
 * And two unparenthesised figures whose layout only the fp8_cs entry has
 * (fp8_cs -> bf16_with_fp8_current_scaling_mixed, fp8_recipe "tensorwise",
 * fp8_param_gather True in v0.1.0rc4 training/mixed_precision.py; the scripts
 * turn off first_last_layers_bf16):
 *  - LLAMA3_70B GB200 num_gpus_64 fp8_cs: mbs 2, tp 1 pp 1, use_megatron_fsdp,
 *    cpu_offloading_num_layers 40 (bf16 and fp8_ds mbs 1, fp8_mx tp 2 pp 4;
 *    the same at both commits);
 *  - Qwen3_30B H100 num_gpus_16 at fa0315ae2: tp 1 pp 2 vp 24 ep 8 with fp8_cs
 *    mbs 2 (bf16 mbs 1, no other FP8 entry; v0.1.0rc4 has vp 12). Its two rows
 *    (the model cell's "(tokendrop)" read as an alternative) are the same figure.
 * Left unread: the other unparenthesised figures, whose layout is that of
 * fp8_ds and fp8_cs alike (Llama; the ds/cs choice is not stated) or of
 * fp8_cs alone among the listed entries but runnable as ds through "common"
 * (DeepSeek-V3, Qwen3); DeepSeek-V3 GB200's parenthesised pp 8 vp 2 (no
 * config); H100's parenthesised 128x128 figure (fp8_ss: no plateau precision).
 * Returns whether the row's precision was set here. */
bool validate_bridge_precision_2509(const struct validate_in *in, struct pl_layout *l,
                                    struct pl_vrow *row) {
  static const struct {
    const char *model, *gpu; /* model: a prefix; gpu: after "DGX-" */
    bool paren;              /* the figure is the parenthesised alternative */
    int64_t tp, pp, vp, cp, ep, mbs;
    int dtype;        /* enum pl_dtype */
    int64_t set_mbs;  /* 0: keep the row's */
  } cfg[] = {
      {"LLAMA3_8B", "GB200", true, 1, 1, 1, 1, 1, 2, PL_DTYPE_MXFP8, 0},
      {"LLAMA3_70B", "GB200", false, 1, 1, 1, 1, 1, 2, PL_DTYPE_FP8, 0},
      {"LLAMA3_70B", "GB200", true, 2, 4, 5, 1, 1, 2, PL_DTYPE_MXFP8, 1},
      {"LLAMA3.1_405B", "GB200", true, 4, 8, 8, 2, 1, 1, PL_DTYPE_MXFP8, 0},
      {"Qwen3_30B", "GB200", true, 1, 1, 1, 1, 8, 4, PL_DTYPE_MXFP8, 0},
      {"Qwen3_235B", "GB200", true, 2, 1, 1, 1, 64, 1, PL_DTYPE_MXFP8, 0},
      {"LLAMA3_8B", "B200", true, 1, 1, 1, 1, 1, 2, PL_DTYPE_MXFP8, 0},
      {"LLAMA3.1_405B", "B200", true, 4, 8, 8, 2, 1, 1, PL_DTYPE_MXFP8, 0},
      {"DeepSeekV3", "B200", true, 1, 16, 1, 1, 8, 1, PL_DTYPE_MXFP8, 0},
      {"Qwen3_235B", "B200", true, 1, 8, 2, 1, 8, 1, PL_DTYPE_MXFP8, 0},
      {"Qwen3_30B", "H100", false, 1, 2, 24, 1, 8, 2, PL_DTYPE_FP8, 0},
  };
  if (cell(in, "precision")[0] != '\0')
    return false;
  /* the figure's own cell is parenthesised: the notes name it among the cells whose
   * parenthesised alternative this row takes */
  const char *notes = cell(in, "notes");
  const char *alt = strstr(notes, "values taken from the parenthesised alternative");
  bool paren = false;
  if (alt != NULL) {
    const char *tok = strstr(alt, "Tokens / sec / GPU");
    const char *end = strchr(alt, ';');
    paren = tok != NULL && (end == NULL || tok < end);
  }
  int64_t ep = strtoll(cell(in, "ep"), NULL, 10);
  int64_t vp = l->vp > 1 ? l->vp : 1, cp = l->cp > 1 ? l->cp : 1;
  for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
    if (!bridge_names_are(in, "25.09", cfg[i].model, cfg[i].gpu) || cfg[i].paren != paren ||
        cfg[i].tp != l->tp || cfg[i].pp != l->pp || cfg[i].vp != vp || cfg[i].cp != cp ||
        cfg[i].ep != (ep > 1 ? ep : 1) || cfg[i].mbs != l->mbs)
      continue;
    l->dtype = (enum pl_dtype)cfg[i].dtype;
    if (l->dtype == PL_DTYPE_FP8)
      l->fp8_recipe = PL_FP8_RECIPE_CURRENT;
    validate_note(row, "%s (not stated: the 25.09 performance config's only recipe with this "
                       "layout%s, Megatron-Bridge v0.1.0rc4 / fa0315ae2 perf_matrix)",
                  l->dtype == PL_DTYPE_MXFP8 ? "MXFP8" : "FP8 current scaling",
                  paren ? " and a parenthesised, block-scaled figure" : "");
    if (cfg[i].set_mbs > 0) {
      l->mbs = cfg[i].set_mbs;
      validate_note(row, "mbs %lld (the fp8_mx config; the row's GA 16 = 128 / (mbs x dp 8)), "
                         "not the table's unparenthesised 2",
                    (long long)l->mbs);
    }
    return true;
  }
  return false;
}
