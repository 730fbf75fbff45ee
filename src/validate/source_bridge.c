/* source_bridge.c: how the Megatron-Bridge performance summary is read
 * (data/validation/megatron_bridge_performance_summary.csv, tokens/s/GPU,
 * printed; README.md there, "How each source defines its metrics").
 *
 * Each container section of the summary was run with one Megatron-Bridge
 * release, whose recipes and performance scripts set what the row does not
 * state (dispatcher, overlaps, recompute, CUDA-graph scope, FP8 recipe,
 * fusions, cuDNN); each rule names the release files it was read in. This
 * file reads a row's modes, its layout (calling the rules of the files
 * below in order) and its metric; the rules by job:
 *   source_bridge_moe.c        token dispatcher, EP overlap, fused grouped MLP
 *   source_bridge_precision.c  FP8 recipe, FP8 parameters, FP8 attention, NVFP4 RHT
 *   source_bridge_runtime.c    recompute modules, activation offload, CUDA-graph scopes
 *   source_bridge_framework.c  framework overrides: LM head, cuDNN, tp_comm_overlap
 *   source_bridge_qwen3.c      Qwen3 rows whose layout is not their release's (skipped)
 *   source_bridge_int.h        what they share (row matching, cross-file rules)
 * What the Bridge shares with the model zoo (model presets, experts, balance,
 * the EP overlap rule) is in source_mcore.c. Nothing here looks at a
 * prediction. The table entry that uses these rules is in sources.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h"
#include "validate/validate_int.h"

/* A Bridge row's model: the preset its name means (validate_mcore_model), with the
 * vocabulary as the release's training setup sizes it. Megatron-Bridge's
 * src/megatron/bridge/training/setup.py _validate_and_set_vocab_size (v0.1.0rc4 .. v0.6.0
 * and HEAD 067f987df0) keeps a model provider's set vocab_size as it is
 * (should_pad_vocab False) when it is not smaller than the tokenizer's, and pads
 * (should_pad_vocab True: gpt_provider.py provide, utils/vocab_utils.py
 * calculate_padded_vocab_size, a multiple of make_vocab_size_divisible_by 128 x tp) only a
 * vocabulary taken from the tokenizer, when the provider leaves it None. Per section:
 *  - 25.09 (v0.1.0rc4): the Llama recipes build Llama3ModelProvider70B /
 *    Llama31ModelProvider405B / Llama3ModelProvider8B (recipes/llama/llama3_70b.py,
 *    llama31_405b.py, llama3_8b.py), which set no vocab_size (models/llama/llama_provider.py;
 *    GPTModelProvider's default None), with the recipe's NullTokenizer of vocab_size 128256
 *    (tokenizers/tokenizer.py _NullTokenizer.vocab_size = the given size, its EOD included),
 *    and the performance scripts set no tokenizer: 128256 padded to 128 x tp. The DeepSeek-V3
 *    and Qwen3 providers set theirs (models/deepseek/deepseek_provider.py 129280,
 *    models/qwen/qwen_provider.py 151936): unpadded.
 *  - 25.11 .. 26.06.01 (v0.2.0 .. v0.5.x): every recipe's model comes from its Hugging Face
 *    config (AutoBridge.from_hf_pretrained(...).to_megatron_provider: vocab_size =
 *    hf_config.vocab_size, models/llama/llama_bridge.py, qwen/qwen3_moe_bridge.py, v0.4.0's
 *    conversion/model_bridge.py) or a provider that sets it (gpt_oss_provider.py 201088,
 *    deepseek_provider.py, kimi_provider.py); the tokenizers (NullTokenizer 32000 by the
 *    scripts' --vocab_size default, 128256 for Llama) are not larger: unpadded. No
 *    use_tokenizer_vocab_size exists before v0.6.0.
 *  - 26.08 (HEAD 067f987df0): the flat perf_recipes the scripts run by default (--use_recipes
 *    off, scripts/performance/argument_parser.py) call perf_recipes/_common.py
 *    _benchmark_common, which sets tokenizer.use_tokenizer_vocab_size False ("Performance
 *    recipes benchmark a fixed model shape"): the HF config's vocabulary, unpadded.
 * Nemotron-H's 131072 is a multiple of 128 x 8 either way. */
bool validate_bridge_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  if (!validate_mcore_model(in, m, row))
    return false;
  char sec[32];
  bridge_section(in, sec, sizeof sec);
  if (strcmp(sec, "25.09") != 0 || strncmp(cell(in, "model"), "LLAMA3", 6) != 0) {
    validate_note(row, "vocab %lld unpadded (Megatron-Bridge keeps the model's set "
                       "vocab_size: setup.py _validate_and_set_vocab_size)",
                  (long long)m->vocab);
    return true;
  }
  int64_t tp = strtoll(cell(in, "tp"), NULL, 10);
  if (tp < 1)
    tp = 1; /* every Bridge row states tp; an empty cell pads to 128 */
  int64_t mult = MEGATRON_VOCAB_DIVISOR * tp, padded = (m->vocab + mult - 1) / mult * mult;
  validate_note(row, "vocab %lld padded to %lld (25.09: the Llama provider sets none, so the "
                     "recipe's NullTokenizer 128256 is padded to 128 tp)",
                (long long)m->vocab, (long long)padded);
  m->vocab = padded;
  return true;
}

/* Megatron-Bridge 25.09-26.08 performance summary (docs/performance-summary.md
 * and -archive.md @ 067f987df0): tokens/s/GPU per row. */
bool validate_bridge_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
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
static bool bridge_layout_61(struct pl_layout *l, struct pl_vrow *row, bool mtp,
                             const char *who) {
  static const struct {
    int64_t pp, vp;
    const char *head, *tail; /* the string is head + ("m" x mtp) + tail */
  } maps[] = {
      {4, 1, "Et*16|t*16|t*16|t*13", "L"}, {8, 1, "Et*8|(t*8|)*6t*5", "L"},
      {4, 2, "Et*8|(t*8|)*6t*5", "L"},     {16, 1, "Et*4|(t*4|)*14t", "L"},
      {8, 2, "Et*4|(t*4|)*14t", "L"},      {4, 4, "Et*4|(t*4|)*14t", "L"},
      {2, 8, "Et*4|(t*4|)*14t", "L"},      {8, 4, "Et|(tt|)*30", "L"},
  };
  int64_t vp = l->vp > 0 ? l->vp : 1, pp = l->pp > 0 ? l->pp : 1;
  if (pp == 1)
    return true;
  for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
    if (maps[i].pp != pp || maps[i].vp != vp)
      continue;
    snprintf(l->pipeline_layout, sizeof l->pipeline_layout, "%s%s%s", maps[i].head,
             mtp ? "m" : "", maps[i].tail);
    validate_note(row, "pipeline layout %s, %s (Megatron-Bridge %s recipe)", l->pipeline_layout,
                  mtp ? "one MTP module" : "no MTP", who);
    return true;
  }
  return validate_skip(row, "no Megatron-Bridge %s pipeline layout for pp %lld vp %lld "
                            "(61 blocks do not split evenly)",
                       who, (long long)pp, (long long)vp);
}

static bool bridge_deepseek(const struct validate_in *in, struct pl_layout *l,
                            struct pl_vrow *row) {
  bool mtp = strstr(cell(in, "model"), "w/o MTP") == NULL;
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
  /* 25.11's DGX-GB300 rows (w/o MTP, pp 2 vp 4 ep 32, gbs 4096) are not the
   * v0.2.0-v0.2.2 GB300 config (pp 4 vp 4 ep 64, gbs 2048). The layout they
   * state is on the release branch's test line: Megatron-Bridge
   * gaod/r0.2.0_test d19cb73c8 ("gb300 changes", 2025-12-05) and its tip
   * 4a82e1651 set DEEPSEEK_V3_GB300_BASE_CONFIG to pp 2 vp 4 ep 32 gbs 4096
   * and deepseek_v3_gb300_config passes layout "Et*3|(t*4|)*14ttL" with
   * mtp_num_layers None. That string has 16 chunks; Megatron-Core (0d8e0714,
   * that branch's pin, transformer_config.py __post_init__ "PP layout")
   * takes vp = chunks / pp = 8 from a layout and asserts a set vp equals it,
   * so the run that had this layout ran vp 8, not the table's 4 (the
   * interleaved bubble differs by (pp-1)/(m vp): 0.8 % -> 0.4 % of the
   * step at 32 micro-batches) */
  if (!mtp && l->pp == 2 && l->vp == 4 && bridge_config_is(in, l, "25.11", "DeepSeekV3", "GB300", -1)) {
    snprintf(l->pipeline_layout, sizeof l->pipeline_layout, "Et*3|(t*4|)*14ttL");
    l->vp = 8;
    validate_note(row, "pipeline layout Et*3|(t*4|)*14ttL, no MTP (Megatron-Bridge "
                       "gaod/r0.2.0_test d19cb73c8 deepseek_v3_gb300_config): 16 chunks, so vp 8 "
                       "(Megatron-Core takes vp from the layout; the table says 4)");
    return true;
  }
  return bridge_layout_61(l, row, mtp, "DeepSeek-V3");
}

/* Kimi K2 as Megatron-Bridge trains it: 61 blocks, no MTP (KimiK2Provider
 * mtp_num_layers None, v0.3.1 models/kimi/kimi_provider.py; the HF config's
 * num_nextn_predict_layers 0), and _get_kimi_k2_pipeline_layout
 * (recipes/kimi/kimi_k2.py v0.3.1-v0.5.0, recipes/kimi/h100/kimi_k2.py at
 * HEAD 067f987df0): the DeepSeek-V3 map's strings without the MTP module (its
 * (4, 4): [embedding + 4 decoders] + [4 decoders] x 14 + [decoder, loss]).
 * Every release's GB300 config (v0.3.1-v0.5.0 scripts/performance/configs/
 * kimi/kimi_workload_base_configs.py KIMI_K2_PRETRAIN_CONFIG_GB300, HEAD
 * perf_recipes/kimi/gb300/kimi_k2.py) runs pp 4 vp 4 ep 64 mbs 2 gbs 4096
 * with the Muon optimizer (kimi_llm_pretrain.py optimizer_type "muon";
 * Megatron-Core's LayerWiseDistributedOptimizer): not modelled, priced as
 * the distributed Adam the row's sharding column implies. */
static bool bridge_kimi(struct pl_layout *l, struct pl_vrow *row) {
  l->mtp_layers = 0;
  validate_note(row, "Muon optimizer (the release's config) priced as distributed Adam: "
                     "Muon's Newton-Schulz iterations are not modelled");
  return bridge_layout_61(l, row, false, "Kimi K2");
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

/* The row's task (docs/finetune.md). The summary's SFT and LoRA sections
 * ran the performance recipes (NVIDIA-NeMo/Megatron-Bridge 067f987
 * src/megatron/bridge/perf_recipes/llama/{h100,gb200,gb300}/llama3.py
 * llama3_70b_sft_* and llama3_70b_peft_*) through scripts/performance, whose
 * data default is `--data mock` (argument_parser.py; run_recipe.py replaces
 * the recipe's dataset with the mock GPT dataset): full seq-length samples,
 * so SFT is pre-training's step on every weight and LoRA's attention runs
 * over the whole sequence too. Every LoRA recipe sets
 * cfg.peft.target_modules = ["linear_qkv"] with the default rank 32. */
static bool bridge_task(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *task = cell(in, "Task");
  if (strcmp(task, "pretrain") == 0)
    return true;
  if (strcmp(task, "SFT") == 0) {
    l->task = PL_RUN_SFT;
    validate_note(row, "SFT: every weight trained, mock full-length samples (scripts/performance "
                       "--data mock)");
    return true;
  }
  if (strcmp(task, "LoRA") == 0) {
    l->task = PL_RUN_LORA;
    l->lora_targets = PL_LORA_QKV;
    validate_note(row, "LoRA rank 32 on linear_qkv, base frozen (perf recipe), mock full-length "
                       "samples");
    return true;
  }
  return validate_skip(row, "task '%s' is not pre-training, SFT or LoRA (the summary's words: "
                            "pretrain, SFT, LoRA)",
                       task);
}

bool validate_bridge_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!bridge_flagged(in, row))
    return false;
  bool sourced = validate_bridge_precision_2509(in, l, row);
  validate_bridge_fp8_recipe(in, l, row);
  validate_bridge_fp8_params(in, l, row);
  if (!bridge_task(in, l, row))
    return false;
  if (cell(in, "precision")[0] == '\0' && !sourced)
    return validate_skip(row, "precision not stated in the row");
  if (!validate_mcore_experts(in, l, row))
    return false;
  /* Token dispatcher (Megatron-Bridge scripts/performance/configs/<model>/<model>_workload_base_configs.py):
   * the GB200/GB300 configs use the flex dispatcher with the hybridep backend (DeepEP's kernels
   * for an NVLink rack), most others moe_token_dispatcher_type alltoall. Every GB200/GB300 config
   * of DeepSeek-V3, Qwen3-30B-A3B, Qwen3-235B-A22B, Kimi K2 and Nemotron 3 Nano names
   * moe_flex_dispatcher_backend "hybridep" (or inherits it) in v0.2.0 .. v0.5.0, so these rows read
   * as hybridep, not deepep: HybridEP pads each expert's rows to the quantized GEMM's alignment in
   * its dispatch (Megatron-Core _HybridEPManager.dispatch pad_multiple under fp8/fp4, in every
   * 3rdparty/Megatron-LM commit those releases pin), so Transformer Engine's Fp8Padding copies
   * nothing (model/flops.c expert_pad). On an NVL72 rack deepep and hybridep are otherwise priced
   * alike (sim/moe_comm.c flex_nvl5_call_s). */
  char g[64];
  snprintf(g, sizeof g, "%s", cell(in, "gpu"));
  if (validate_bridge_gpt_oss_dispatch(in, l, row)) {
    /* set by its release's config */
  } else if ((strstr(g, "GB200") != NULL || strstr(g, "GB300") != NULL) &&
             !bridge_names_are(in, "25.09", "", "GB200")) {
    /* not 25.09: v0.1.0rc4 names the flex dispatcher only for DeepSeek-V3 with DeepEP on
     * H100 (scripts/performance/run_script.py enable_deepep); its token-drop runs assert
     * alltoall (validate_bridge_tokendrop_2509) */
    l->dispatch = PL_MOE_HYBRIDEP;
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
    validate_bridge_release_dispatch(in, l, row);
  }
  if (!validate_bridge_tokendrop_2509(in, l, row))
    validate_mcore_balance(in, l, row);
  validate_bridge_router_fusion(in, l, row);
  validate_bridge_hybridep_sms(in, l, row);
  validate_bridge_ep_overlap(in, l, row);
  validate_bridge_recompute(in, l, row);
  validate_bridge_graph_scope(in, l, row);
  validate_bridge_pg_opt_step(in, l, row);
  validate_bridge_fp8_attention(in, l, row);
  validate_bridge_nvfp4_rht(in, l, row);
  validate_bridge_fused_mlp(in, l, row);
  if (!validate_bridge_offload(in, l, row))
    return false;
  if (!validate_bridge_qwen3_layout(in, l, row))
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
  if (strncmp(name, "Kimi_K2", 7) == 0)
    return bridge_kimi(l, row);
  if (strncmp(name, "Nemotron_3_Super", 16) == 0 || strncmp(name, "Nemotron_3_5_Lightning", 22) == 0) {
    /* the Super recipe trains two MTP runs of its one "*E" module
     * (recipes/nemotronh/h100/nemotron_3_super.py, HEAD 067f987df0:
     * mtp_num_layers 2, mtp_use_repeated_layer True), which every performance
     * recipe inherits (perf_recipes/nemotronh/<gpu>/nemotronh.py
     * nemotron_3_super_*_config start from it and leave MTP alone); the
     * Lightning performance recipes set the same on the Nano configs
     * (nemotron_3_5_lightning_pretrain_8gpu_<gpu>_*_config) */
    l->mtp_layers = 2;
    validate_note(row, "MTP: two runs of the repeated '*E' module (recipe mtp_num_layers 2)");
    /* Super under NVFP4: its last 14 blocks in BF16 (first_last_layers_bf16 with
     * num_layers_at_end_in_bf16 14; Megatron-Bridge's MixedPrecisionConfig leaves
     * num_layers_at_start_in_bf16 at 0): v0.4.0 scripts/performance/configs/nemotronh/
     * nemotron_3_llm_pretrain.py set_nemotron_3_super_common_configs (lines 49-50),
     * v0.4.2 / v0.5.0 the same file's nemotron_3_super_bf16_with_nvfp4_mixed() (line 43,
     * training/mixed_precision.py), HEAD 067f987df0 perf_recipes/nemotronh/common.py
     * _nemotron_3_super_nvfp4_precision */
    if (strncmp(name, "Nemotron_3_Super", 16) == 0 && l->dtype == PL_DTYPE_NVFP4) {
      l->bf16_last_blocks = 14;
      validate_note(row, "last 14 blocks in BF16 (the recipe's num_layers_at_end_in_bf16)");
      /* and its quant_recipe te_quant.cfg (the same releases: v0.4.0 .. v0.5.0
       * scripts/performance/configs/nemotronh/te_quant.cfg, HEAD
       * perf_recipes/nemotronh/te_quant.cfg): attention linear_qkv / linear_proj and
       * the latent projections in bf16 (model/quant_modules.c) */
      l->bf16_modules = PL_B16_LINEAR_QKV | PL_B16_LINEAR_PROJ | PL_B16_LATENT_PROJ;
      validate_note(row, "linear_qkv, linear_proj, latent_proj in BF16 (the recipe's te_quant.cfg)");
    }
  }
  return true;
}

bool validate_bridge_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row) {
  const char *col = "Tokens / sec / GPU";
  if (!validate_metric(in, col, row))
    return false;
  const struct pl_layout *l = &run->layout;
  row->measured =
      (double)l->gbs * (double)run->model.seq_len / (row->published * (double)l->gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / (rate x GPUs)",
           col);
  return true;
}
