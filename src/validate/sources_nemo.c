/* sources_nemo.c: the rules of NVIDIA's NeMo-based sources (table entries in
 * sources.c): nemo (NeMo 24.07 performance summary and long-sequence table:
 * tokens/s/GPU, or model TFLOP/s/GPU by NeMo's FLOP formula; model
 * dimensions by name, userbuffers SMs, cuDNN of the container) and mlperf
 * (MLPerf Training GPT-3, NVIDIA's NeMo submission: seconds per step, its
 * configs' TP_COMM_OVERLAP and SHARP threshold). Conventions of the sources,
 * not corrections: nothing here looks at a prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h"
#include "validate/sources_int.h"

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

bool validate_nemo_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  const char *name = cell(in, "model");
  /* Mixtral 8x7B: the preset of that name (data/models/mixtral-8x7b.json,
   * the checkpoint's config.json), as NeMo's MixtralConfig8x7B builds it */
  if (strcmp(name, "Mixtral-8x7B") == 0)
    return validate_mcore_preset(in, "mixtral-8x7b", m, row);
  /* Mixtral 8x22B: data/models/mixtral-8x22b.json (the checkpoint's
   * config.json, = NeMo's MixtralConfig8x22B); the performance scripts
   * (r2.2.0 scripts/llm/performance/pretrain_mixtral_8x22b.py, r2.3.0
   * scripts/performance/llm/) tokenize with mistralai/Mixtral-8x22B-v0.1 */
  if (strcmp(name, "Mixtral-8x22B") == 0)
    return validate_mcore_preset(in, "mixtral-8x22b", m, row);
  /* Llama 4 Scout: data/models/llama4-scout.json (the checkpoint's text
   * config, = NeMo's Llama4Experts16Config, whose vocab_size 202048 is kept:
   * GPTConfig.configure_model uses a preset vocab_size over the tokenizer's,
   * nemo/collections/llm/gpt/model/base.py, r2.4.0) */
  if (strcmp(name, "LLAMA4-Scout-LLM") == 0)
    return validate_mcore_preset(in, "llama4-scout", m, row);
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

/* What the 2025 performance scripts set that changes memory only (the
 * containers' release branches: NeMo 25.04 = r2.3.0, 25.07 = r2.4.0):
 *  - every row: Transformer Engine's fused cross-entropy
 *    (layout.te_cross_entropy): set_primary_perf_configs sets
 *    cross_entropy_fusion_impl "te" (r2.3.0 scripts/performance/utils.py,
 *    r2.4.0 scripts/performance/helpers.py), on top of GPTConfig's
 *    cross_entropy_loss_fusion True (nemo/collections/llm/gpt/model/base.py);
 *    not in r2.2.0 (25.02);
 *  - Megatron FSDP rows (use_mcore_fsdp: fsdp "megatron",
 *    data_parallel_sharding_strategy optim_grads_params in the same
 *    function): NeMo's megatron_parallel.py builds Megatron-Core's
 *    custom_fsdp FullyShardedDataParallel without fsdp_unit_modules, whose
 *    default under optim_grads_params is [TransformerLayer]
 *    (custom_fsdp/fully_sharded_data_parallel.py __init__, core_r0.12.0 and
 *    core_v0.13.0): the blocks are its units (layout.fsdp_block_units); its
 *    main_grad_buffer is fp32 only with grad_reduce_in_fp32
 *    (param_and_grad_buffer.py _init_each_parameter_group_buffers), which
 *    the recipes' performance optimizations turn off (llama3_70b.py
 *    pretrain_performance_optimizations: plugins.grad_reduce_in_fp32 False):
 *    layout.shard_grads_reduce_dtype; and FP8-CS's
 *    bf16_with_fp8_current_scaling_mixed sets fp8_param_gather True
 *    (recipes/precision/mixed_precision.py, r2.3.0 and r2.4.0), as
 *    Megatron-Bridge's copy of it does (validate_bridge_fp8_params). */
static void nemo_2025_memory(const struct validate_in *in, struct pl_layout *l,
                             struct pl_vrow *row) {
  const char *sec = cell(in, "table_or_section");
  if (strstr(sec, "Container NeMo 25.04") == NULL && strstr(sec, "Container NeMo 25.07") == NULL)
    return;
  l->te_cross_entropy = true;
  validate_note(row, "TE fused cross-entropy (the performance scripts' cross_entropy_fusion_impl "
                     "te)");
  /* FP8-CS's fp8_param_gather holds under the distributed optimizer (the
   * recipe sets it whatever the sharding). Under Megatron FSDP only from
   * r2.4.0: r2.3.0's scripts/performance/utils.py set_primary_perf_configs
   * (lines 352-354) turns it off when use_mcore_fsdp ("Currently FSDP does
   * not support FP8 param gather. Disabling fp8 param gather."); r2.4.0's
   * helpers.py has no such override (`git grep fp8_param_gather v2.4.0 --
   * scripts/performance`: the LoRA MLPerf script only). The override came
   * with the scripts' fp8_recipe option itself (2d1571ec03, #13055,
   * 2025-04-19, so every FP8-CS run of r2.3.0's scripts has it) and is
   * still in the v2.3.0 tag; v2.3.1 drops it (e659a9beb0, #13267 "Remove the
   * code to disable fp8 param gather when using FSDP"): a 25.04 row run
   * with v2.3.1's scripts would gather FP8 parameters */
  bool fsdp_2504 = strstr(sec, "Container NeMo 25.04") != NULL && l->shard == PL_SHARD_ZERO3 &&
                   strncmp(cell(in, "sharding"), "Megatron FSDP", 13) == 0;
  if (fsdp_2504 && l->dtype == PL_DTYPE_FP8)
    validate_note(row, "BF16 parameters (r2.3.0's performance scripts turn fp8_param_gather off "
                       "under Megatron FSDP)");
  else
    validate_bridge_fp8_params(in, l, row);
  if (strncmp(cell(in, "sharding"), "Megatron FSDP", 13) != 0 || l->shard != PL_SHARD_ZERO3)
    return;
  l->fsdp_block_units = true;
  l->shard_grads_reduce_dtype = true;
  validate_note(row, "Megatron FSDP: blocks as its units, gradient shards in the reduce dtype");
  /* Llama 3.1 405B, FP8, 128 GB200, tp 2 pp 1 cp 1, Megatron FSDP, mbs 1: r2.4.0
   * scripts/performance/recommended_model_configs/model_configs_gb200.csv
   * (pre_train llama31 405b fp8: activation_offload_layers 95, the only
   * configuration of that layout; its gbs 256 is not the page's 64, which
   * only changes the micro-batches per step, not the memory at pp 1), which
   * helpers.py get_user_configs reads when the command line does not set it
   * and set_primary_perf_configs turns into cpu_offloading True,
   * cpu_offloading_weights False, cpu_offloading_num_layers 95 */
  if (strstr(cell(in, "table_or_section"), "Container NeMo 25.07") != NULL &&
      strstr(cell(in, "model"), "405B") != NULL && l->dtype == PL_DTYPE_FP8 && l->tp == 2 &&
      l->pp == 1 && l->cp <= 1 && l->mbs == 1 && l->gpus == 128) {
    l->act_offload_layers = 95;
    validate_note(row, "activations of 95 blocks offloaded to the host (r2.4.0's recommended "
                       "config for this layout, gbs 256; not stated in the row)");
  }
}

/* FP8 parameters of the NeMo 2 rows that run the performance scripts' FP8
 * default, bf16_with_fp8_mixed (delayed scaling): that recipe sets fp8_params
 * True (nemo/collections/llm/recipes/precision/mixed_precision.py, v2.2.0 and
 * the 25.02.01 pin d2b21556f2), which MegatronMixedPrecision turns into
 * fp8_param_gather True (nemo/lightning/pytorch/plugins/mixed_precision.py,
 * v2.2.0 lines 103-105: FP8_PARAMETERS and fp8_param_gather), or sets
 * fp8_param_gather True itself (v2.3.0 .. v2.5.0 line 70; the dgxc 25.04
 * pins b4148d2169, 7a8f1cc7bc, 6f2c6fdaff); MegatronStrategy copies it into
 * the DDP config (megatron_strategy.py update_config_with_dtype_overrides).
 * The performance scripts override it only under Megatron FSDP (v2.3.0
 * utils.py) and in the LoRA MLPerf script: `git grep fp8_param_gather` of
 * scripts/llm/performance (v2.2.0) and scripts/performance (the pins). With
 * the distributed optimizer Megatron-Core keeps the Float8Tensor GEMM weights
 * in uint8 buffers and all_gathers them at 1 B (distributed_data_parallel.py
 * param_dtype torch.uint8 for is_float8tensor, core_r0.11.0 .. core_r0.12.0;
 * layout_bytes.c pl_layout_te_fp8_params). The rows: the NeMo page's 25.02
 * FP8 rows (scripts/llm/performance/pretrain_*.py: bf16_with_fp8_mixed for
 * every model) and dgxc's NeMo 2 rows whose precision names the recipe. */
static void nemo2_fp8_delayed_params(const struct validate_in *in, struct pl_layout *l,
                                     struct pl_vrow *row) {
  bool page_2502 = strstr(cell(in, "table_or_section"), "Container NeMo 25.02") != NULL;
  bool dgxc_ds = strncmp(cell(in, "launcher"), "NeMo 2", 6) == 0 &&
                 strstr(cell(in, "precision"), "bf16_with_fp8_mixed") != NULL;
  if (page_2502 || dgxc_ds)
    validate_fp8_delayed_params(l, row, "FP8 parameters, gathered at 1 B (bf16_with_fp8_mixed's "
                                        "fp8_param_gather under the distributed optimizer)");
}

/* NeMo 2's pre-training performance recipes defer the last pipeline stage's
 * LM-head wgrads (layout.wgrad_deferral): pretrain_performance_optimizations
 * hands MegatronCommOverlapCallback defer_embedding_wgrad_compute=True with
 * wgrad_deferral_limit 50 (nemo/collections/llm/recipes/gpt3_175b.py,
 * llama31_405b.py) or 22 (llama3_70b.py, nemotron4_340b.py), at v2.2.0,
 * v2.3.0, v2.4.0, r2.5.0 and the dgxc pins d2b21556f2 and 6f2c6fdaff; the
 * callback keeps a user value whatever the parallelism
 * (nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py
 * _override_user_cfgs, v2.4.0) and copies it into the model config; the
 * performance scripts build pretrain_recipe(performance_mode=True) and turn
 * it off only under Megatron FSDP (scripts/performance/utils.py
 * set_primary_perf_configs v2.3.0, helpers.py v2.4.0). The rows: the NeMo
 * page's 2025 sections and dgxc's NeMo 2 rows of those models (dgxc's Llama
 * 3.1 70B runs pretrain_llama3_70b.py, the llama3_70b recipe), with pp > 1
 * and the distributed optimizer (Megatron-Core acts on it in its pipelined
 * schedules only: schedules.py finish_embedding_wgrad_compute). */
static void nemo2_wgrad_deferral(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row) {
  static const struct {
    const char *model, *recipe;
    int64_t limit;
  } recipes[] = {
      {"GPT3-175B", "gpt3_175b.py", 50},       {"LLAMA3-405B", "llama31_405b.py", 50},
      {"LLAMA3.1-405B", "llama31_405b.py", 50}, {"LLAMA3-70B", "llama3_70b.py", 22},
      {"LLAMA3.1-70B", "llama3_70b.py", 22},    {"Nemotron-340B", "nemotron4_340b.py", 22},
      {"Nemotron4-340B", "nemotron4_340b.py", 22},
  };
  bool nemo2 = strncmp(cell(in, "launcher"), "NeMo 2", 6) == 0 ||
               strstr(cell(in, "table_or_section"), "Container NeMo 25.") != NULL;
  if (!nemo2 || l->pp < 2 || (l->shard != PL_SHARD_DDP && l->shard != PL_SHARD_ZERO1))
    return;
  for (size_t i = 0; i < sizeof recipes / sizeof recipes[0]; i++) {
    if (strcmp(cell(in, "model"), recipes[i].model) != 0)
      continue;
    l->wgrad_deferral = recipes[i].limit;
    validate_note(row, "LM-head wgrad of the first %lld micro-batches deferred to the pipeline "
                       "flush (NeMo 2 %s pretrain_performance_optimizations: "
                       "defer_embedding_wgrad_compute, wgrad_deferral_limit %lld)",
                  (long long)recipes[i].limit, recipes[i].recipe, (long long)recipes[i].limit);
    return;
  }
}

/* layout.pg_with_opt_step: NeMo 2's performance scripts hand
 * MegatronCommOverlapCallback overlap_param_gather_with_optimizer_step =
 * dp > 1 and pp > 1 and vp > 1, dp = gpus / (tp pp cp)
 * (set_primary_perf_configs: scripts/llm/performance/utils.py v2.2.0 line
 * 223; scripts/performance/utils.py v2.3.0 line 286 and the dgxc pins
 * d2b21556f2 line 231, b4148d2169, 7a8f1cc7bc, 6f2c6fdaff line 369;
 * scripts/performance/helpers.py v2.4.0 line 404, "WARNING: If True,
 * checkpointing (if enabled) might not work"). The callback's own default is
 * False ("Currently disabled due to an issue with checkpointing"), but its
 * _override_user_cfgs puts every value the user gave over
 * _get_optimizer_overlap_cfgs' defaults and copies them into the optimizer
 * and DDP configs under the distributed optimizer (nemo/lightning/pytorch/
 * callbacks/megatron_comm_overlap.py setup, v2.2.0). The rows: the NeMo
 * page's 2025 sections and dgxc's NeMo 2 rows (the scripts they run), with
 * the distributed optimizer (Megatron FSDP rows have pp 1); the rows do not
 * state it. */
static void nemo2_pg_opt_step(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  bool nemo2 = strncmp(cell(in, "launcher"), "NeMo 2", 6) == 0 ||
               strstr(cell(in, "table_or_section"), "Container NeMo 25.") != NULL;
  int64_t mp = l->tp * l->pp * (l->cp > 0 ? l->cp : 1);
  int64_t dp = mp > 0 ? l->gpus / mp : 0;
  if (!nemo2 || l->shard != PL_SHARD_ZERO1 || dp <= 1 || l->pp <= 1 || l->vp <= 1)
    return;
  l->pg_with_opt_step = true;
  validate_note(row, "the first chunk's parameter gather beside the optimizer step (NeMo 2's "
                     "performance scripts: overlap_param_gather_with_optimizer_step for dp, pp, "
                     "vp > 1)");
}

bool validate_nemo_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  /* The finetuning rows (SFT and LoRA; --task models both, src/model/finetune.c)
   * ran SQuAD v1.1 packed to 4096 tokens: the packed samples' attention runs
   * per sample (THD, cu_seqlens), its cost following the samples' lengths
   * (sum of squares), which neither the page nor SQuAD's paper (Rajpurkar et
   * al. 2016) states: skipped rather than guessed (docs/finetune.md) */
  const char *task = cell(in, "Task");
  if (strcmp(task, "SFT") == 0 || strcmp(task, "LoRA") == 0)
    return validate_skip(row, "%s on SQuAD packed to 4096 tokens: attention runs per packed "
                              "sample, whose lengths are not stated",
                         task);
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
   * capacity, the mean. The same callback in the Mixtral 8x22B recipes (mixtral_8x22b.py
   * performance optimizations, r2.2.0-r2.4.0) and Llama 4 Scout's
   * (recipes/llama4_e16.py pretrain_performance_optimizations, r2.4.0, which
   * scripts/performance/llm/pretrain_llama4_e16.py runs) */
  if (strncmp(cell(in, "model"), "Mixtral", 7) == 0 ||
      strncmp(cell(in, "model"), "LLAMA4", 6) == 0) {
    l->moe_imbalance = 1.0;
    l->moe_pad_capacity = true;
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
  nemo_2025_memory(in, l, row);
  nemo2_fp8_delayed_params(in, l, row);
  nemo2_wgrad_deferral(in, l, row);
  nemo2_pg_opt_step(in, l, row);
  return true;
}

/* The container the row's table names: NeMo 24.03.01 (the long-sequence
 * H100 table) and 24.07 (the performance summary) are mid-2024 containers,
 * whose cuDNN (9.0-9.1: NeMo's "Software Component Versions" page, the
 * training container built on NVIDIA's PyTorch 24.02 container) ran fused
 * attention at the rates NVIDIA published for cuDNN 9.1 (cudnn-frontend
 * benchmark results @ b740542, 2024-05-07; layout.cudnn_version 9.1): the
 * preset nemo-2024 (data/frameworks/). The 2025 tables (NeMo 25.04, B200) keep
 * today's cuDNN (nemo). */
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

/* The userbuffers SMs of the NeMo 2 page's FP8 rows with tp > 1 and tp
 * overlap on: each performance script hands MegatronCommOverlapCallback the
 * ub config of its GPU and compute dtype (ub_cfg[gpu_type][compute_dtype],
 * then callbacks[idx].tp_comm_overlap_cfg), whose proj_fprop / fc2_fprop
 * num_sm (both set_sm_margin True; a RingExchangeOverlapCfg has num_sm 1)
 * the model charges (src/sim/ub_margin.c), instead of the preset's H100
 * Llama 70B 24/16. Container NeMo 25.02: NVIDIA/NeMo v2.2.0
 * scripts/llm/performance/pretrain_*.py (the 25.02.01 pin d2b21556f2
 * scripts/performance/llm/ the same); 25.04: v2.3.0 scripts/performance/llm/
 * (gb200 keys name the b200 configs); 25.07: v2.4.0 the same. Configs in
 * nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py of each tag
 * (the b200 / h12288 fprop entries unchanged v2.2.0 .. v2.4.0). Mixtral's
 * recipes leave tp overlap off (below); tp-1 rows have none. */
static const struct {
  const char *container, *gpu, *model, *cfg;
  int64_t proj_sms, fc2_sms;
} nemo2_ub[] = {
    {"NeMo 25.02", "B200 ", "GPT3-175B",
     "v2.2.0 pretrain_gpt3_175b.py: userbuffers_fp8_b200_h12288_tp4_mbs1_seqlen2048, ring exchange",
     1, 1},
    {"NeMo 25.02", "B200 ", "LLAMA3-70B",
     "v2.2.0 pretrain_llama3_70b.py: userbuffers_fp8_b200_h8192_tp2_mbs1_seqlen8192, ring exchange",
     1, 1},
    {"NeMo 25.02", "B200 ", "LLAMA3-405B",
     "v2.2.0 pretrain_llama31_405b.py: userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192, ring "
     "exchange",
     1, 1},
    /* v2.2.0 pretrain_nemotron4_340b.py sets the bf16 config for every dtype
     * (`if gpu_type == "b200": tp_comm_overlap_cfg =
     * userbuffers_bf16_b200_h18432_tp8_mbs1_seqlen4096`) */
    {"NeMo 25.02", "B200 ", "Nemotron-340B",
     "v2.2.0 pretrain_nemotron4_340b.py: userbuffers_bf16_b200_h18432_tp8_mbs1_seqlen4096 (fc2: "
     "pipeline 24 SMs)",
     1, 24},
    {"NeMo 25.02", "H100 ", "GPT3-175B",
     "v2.2.0 pretrain_gpt3_175b.py: userbuffers_fp8_h100_h12288_tp4_mbs1_seqlen2048 (proj: "
     "pipeline 24 SMs, fc2: ring exchange)",
     24, 1},
    {"NeMo 25.04", "GB200 ", "GPT3-175B",
     "v2.3.0 pretrain_gpt3_175b.py: userbuffers_fp8_b200_h12288_tp4_mbs1_seqlen2048, ring exchange",
     1, 1},
    {"NeMo 25.04", "GB200 ", "LLAMA3-405B",
     "v2.3.0 pretrain_llama31_405b.py: userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192, ring "
     "exchange",
     1, 1},
    {"NeMo 25.04", "GB200 ", "Nemotron-340B",
     "v2.3.0 pretrain_nemotron4_340b.py: userbuffers_fp8_b200_h18432_tp8_mbs1_seqlen4096, ring "
     "exchange",
     1, 1},
    {"NeMo 25.07", "GB200 ", "LLAMA3.1-405B",
     "v2.4.0 pretrain_llama31_405b.py: userbuffers_fp8_b200_h16384_tp4_cp2_mbs1_seqlen8192 (the "
     "gb200 fp8 entry whatever the tp), ring exchange",
     1, 1},
};

static void nemo2_page_ub(const struct validate_in *in, struct pl_framework *fw,
                          struct pl_vrow *row) {
  const char *sec = cell(in, "table_or_section");
  for (size_t i = 0; i < sizeof nemo2_ub / sizeof nemo2_ub[0]; i++) {
    if (strstr(sec, nemo2_ub[i].container) == NULL ||
        strncmp(cell(in, "gpu"), nemo2_ub[i].gpu, strlen(nemo2_ub[i].gpu)) != 0 ||
        strcmp(cell(in, "model"), nemo2_ub[i].model) != 0)
      continue;
    fw->ub_proj_fprop_sms = nemo2_ub[i].proj_sms;
    fw->ub_fc2_fprop_sms = nemo2_ub[i].fc2_sms;
    fw->ub_proj_fprop_sms_set = fw->ub_fc2_fprop_sms_set = true;
    validate_note(row, "userbuffers %lld/%lld SMs (proj/fc2 fprop: NeMo %s)",
                  (long long)nemo2_ub[i].proj_sms, (long long)nemo2_ub[i].fc2_sms, nemo2_ub[i].cfg);
    return;
  }
}

/* What the NeMo 24.x containers' launcher training configs set per model
 * (NVIDIA/NeMo-Framework-Launcher launcher_scripts/conf/training/<file>.yaml at
 * the container's tag: 24.07 = 8325688d (2024-08-01), 24.03.01 = 5c7e280a
 * (2024-04-19), the long-sequence table's): model.cross_entropy_loss_fusion
 * (only nemotron_8b, nemotron_22b since dceaaf93 2024-06-17 "Nemotron perf
 * optimizations", llama3_8b, llama3_70b since 9352b045 2024-06-27 "perf patch";
 * the llama2 files got it on 2024-08-02, fee1762f, after the 24.07 tag) and
 * model.optim.bucket_cap_mb of distributed_fused_adam. Both tags name every
 * model of the rows; Mixtral is not in the 24.x tables. */
static const struct {
  const char *container, *model, *file, *tag;
  bool xent_fusion;
  double bucket_mb;
} nemo24_cfg[] = {
    {"NeMo24.07", "GPT3-5B", "gpt3/5b.yaml", "24.07 8325688d", false, 400},
    {"NeMo24.07", "GPT3-20B", "gpt3/20b.yaml", "24.07 8325688d", false, 220},
    {"NeMo24.07", "GPT3-175B", "gpt3/175b.yaml", "24.07 8325688d", false, 220},
    {"NeMo24.07", "LLAMA2-7B", "llama/llama2_7b.yaml", "24.07 8325688d", false, 125},
    {"NeMo24.07", "LLAMA2-13B", "llama/llama2_13b.yaml", "24.07 8325688d", false, 125},
    {"NeMo24.07", "LLAMA2-70B", "llama/llama2_70b.yaml", "24.07 8325688d", false, 125},
    {"NeMo24.07", "Nemotron-8B", "nemotron/nemotron_8b.yaml", "24.07 8325688d", true, 100},
    {"NeMo24.07", "Nemotron-22B", "nemotron/nemotron_22b.yaml", "24.07 8325688d", true, 100},
    {"NeMo24.07", "Nemotron-340B", "nemotron/nemotron_340b.yaml", "24.07 8325688d", false, 50},
    {"NeMo24.07", "LLAMA3-8B", "llama/llama3_8b.yaml", "24.07 8325688d", true, 125},
    {"NeMo24.07", "LLAMA3-70B", "llama/llama3_70b.yaml", "24.07 8325688d", true, 125},
    {"NeMo24.03.01", "LLAMA2-7B", "llama/llama2_7b.yaml", "24.03.01 5c7e280a", false, 125},
};

/* The cuDNN of the NeMo 25.02 and 25.04 containers: 9.7.0, NGC PyTorch
 * 25.01's (PL_CUDNN_NGC_2501). NVIDIA/NeMo's requirements/manifest.json names
 * "ngc-pytorch": "nvcr.io/nvidia/pytorch:25.01-py3", the BASE_IMAGE its
 * .github/workflows/cicd-main.yml builds on, at v2.2.0 (7192a2c944, the 25.02
 * release), v2.3.0 (2b03b748bb, 25.04) and at every commit the dgxc-benchmarking
 * 25.02.01 / 25.04.0x recipes pin (d2b21556f2, 7a8f1cc7bc, b4148d2169,
 * 6f2c6fdaff); v2.4.0 (25.07) moves to 25.05-py3, not read here. That image's
 * cuDNN is 9.7.0.66 (MLPerf v5.0 NVIDIA/systems/eos-dfw_*_ngc25.01_nemo.json,
 * hw.h). Whichever NGC base from 25.01 to 25.04 a container took, its cuDNN is
 * 9.7.0-9.9.0 (the same v5.0 system files: ngc25.03 9.8.0.87, ngc25.04
 * 9.9.0.52), older than the oldest release NVIDIA published SDPA figures of on
 * B200 and GB200 (9.10.2, attention.cudnn.shape_9_10), which such a run takes
 * (src/hw/cudnn_release.c pl_gpu_cudnn_shape): the prediction is the same for
 * any of them. GPU files with no entry at or above 9.7 (H100, H200: shape_2024
 * only) keep today's rates. The same image's cuBLAS, 12.8.3.14, is the one
 * b200.json's MAMF was measured with (torch 2.7.1+cu128, whose wheel pins
 * nvidia-cublas-cu12==12.8.3.14: pytorch/pytorch
 * .github/scripts/generate_binary_build_matrix.py, CUDA 12.8): no GEMM factor
 * by container is charged (docs/accuracy.md, Session 29 (helper bwsw29)). */
void validate_nemo_2025_cudnn(struct pl_framework *fw, struct pl_vrow *row) {
  fw->cudnn_version_set = true;
  fw->cudnn_version = PL_CUDNN_NGC_2501;
  validate_note(row, "cuDNN 9.7 attention (the container's base, NGC PyTorch 25.01: cuDNN "
                     "9.7.0; timed at the oldest release measured on the GPU)");
}

bool validate_nemo_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row) {
  /* NeMo 2's Mixtral performance recipes leave Transformer Engine's
   * userbuffers off: their pretrain_performance_optimizations
   * (nemo/collections/llm/recipes/mixtral_8x7b.py, mixtral_8x22b.py, r2.2.0;
   * mixtral_8x22b_64k.py, r2.3.0, which the 25.02 / 25.04 performance scripts
   * run) add MegatronCommOverlapCallback without tp_comm_overlap, whose
   * _get_model_comm_overlap_cfgs then sets tp_comm_overlap False
   * (nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py, r2.2.0 and
   * r2.3.0), and the scripts' set_primary_perf_configs sets none; the Llama
   * recipes pass tp_comm_overlap=True (llama3_70b.py r2.2.0). */
  if (strncmp(cell(in, "model"), "Mixtral", 7) == 0 &&
      strstr(cell(in, "table_or_section"), "NeMo24.") == NULL) {
    fw->tp_comm_overlap = PL_SETTING_OFF;
    validate_note(row, "tp_comm_overlap off (NeMo 2's Mixtral recipes: MegatronCommOverlapCallback "
                       "without tp_comm_overlap, r2.2.0-r2.3.0)");
    /* Their MegatronTokenDropCallback pads every expert to its capacity
     * (moe_pad_expert_input_to_capacity, validate_nemo_layout): Megatron-Core's
     * MoEAlltoAllTokenDispatcher.preprocess then knows the split sizes on the
     * host and keeps cuda_sync_point "no_sync" (megatron/core/transformer/moe/
     * token_dispatcher.py, core_r0.11.0 and core_r0.12.0, the 25.02 / 25.04
     * containers' Megatron-Core) */
    fw->moe_host_sync = PL_SETTING_OFF;
    validate_note(row, "no host sync in the dispatcher (padded to capacity: Megatron-Core's "
                       "cuda_sync_point no_sync)");
  }
  if (strstr(cell(in, "table_or_section"), "NeMo24.") == NULL) {
    nemo2_page_ub(in, fw, row);
    if (strstr(cell(in, "table_or_section"), "Container NeMo 25.02") != NULL ||
        strstr(cell(in, "table_or_section"), "Container NeMo 25.04") != NULL)
      validate_nemo_2025_cudnn(fw, row);
    return true;
  }
  if (!validate_row_preset("nemo-2024", fw, row))
    return false;
  for (size_t i = 0; i < sizeof nemo_ub / sizeof nemo_ub[0]; i++)
    if (strcmp(cell(in, "model"), nemo_ub[i].model) == 0) {
      fw->ub_proj_fprop_sms = nemo_ub[i].proj_sms;
      fw->ub_fc2_fprop_sms = nemo_ub[i].fc2_sms;
      fw->ub_proj_fprop_sms_set = fw->ub_fc2_fprop_sms_set = true;
      validate_note(row, "userbuffers margins %lld/%lld SMs (proj/fc2 fprop: launcher %s)",
                    (long long)nemo_ub[i].proj_sms, (long long)nemo_ub[i].fc2_sms, nemo_ub[i].file);
    }
  /* the attention: the nemo-2024 preset's FlashAttention-2, as the container's
   * NeMo-Framework-Launcher (tags 24.03.01, 24.07) exports NVTE_FUSED_ATTN=0
   * to every job (launcher_scripts/conf/config.yaml env_vars; data/frameworks/
   * nemo-2024.json attention) */
  validate_note(row, "FlashAttention-2 (the 24.x launcher's config.yaml env_vars NVTE_FUSED_ATTN: 0)");
  /* NeMo 1.x (24.03, 24.07) builds Megatron-Core's TransformerConfig from the
   * model config, copying a field only when the config has it
   * (nemo/collections/nlp/models/language_modeling/megatron_base_model.py
   * build_transformer_config, NVIDIA/NeMo @ 4c73f77670 and r2.0.0rc1 579983f:
   * `elif field.name in cfg`), else Megatron-Core's default False
   * (core_r0.8.0 model_parallel_config.py cross_entropy_loss_fusion), the
   * unfused vocab-parallel cross-entropy (layout.megatron_xent). The
   * container's launcher training configs (the row's model, nemo24_cfg) set it
   * for four models; their Apex buckets (optim.bucket_cap_mb) per model too.
   * NeMo 2.0 turned the fusion on from 2024-09-06 (1d5de59460, GPTConfig), so
   * the 2025 rows keep the preset's fused loss. */
  bool fused = false;
  const char *sec = cell(in, "table_or_section");
  for (size_t i = 0; i < sizeof nemo24_cfg / sizeof nemo24_cfg[0]; i++) {
    if (strstr(sec, nemo24_cfg[i].container) == NULL ||
        strcmp(cell(in, "model"), nemo24_cfg[i].model) != 0)
      continue;
    fused = nemo24_cfg[i].xent_fusion;
    fw->bucket_mb = nemo24_cfg[i].bucket_mb;
    fw->bucket_params = 0;
    validate_note(row, "Apex buckets of %g MiB (launcher %s @ %s optim.bucket_cap_mb)",
                  nemo24_cfg[i].bucket_mb, nemo24_cfg[i].file, nemo24_cfg[i].tag);
    break;
  }
  fw->megatron_xent = fused ? PL_SETTING_OFF : PL_SETTING_ON;
  if (fused)
    validate_note(row, "Megatron-Core's fused cross-entropy (the launcher config's "
                       "cross_entropy_loss_fusion true)");
  else
    validate_note(row, "Megatron's unfused cross-entropy (NeMo 1.x sets no "
                       "cross_entropy_loss_fusion)");
  return true;
}

bool validate_nemo_measure(const struct validate_in *in, const struct pl_run *run,
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

bool validate_mlperf_layout(const struct validate_in *in, struct pl_layout *l,
                            struct pl_vrow *row) {
  if (!stated(in, "sharding")) {
    l->shard = PL_SHARD_ZERO1;
    validate_note(row, "distributed optimizer (USE_DIST_OPTIMIZER not in this config; the "
                       "earlier configs of the same implementation set it)");
  }
  /* FP8_PARAMS=True (the v4.0 / v4.1 GPT-3 config_common.sh that every
   * config of those rounds sources; column 'FP8_PARAMS (config)'):
   * conf/custom.yaml model.fp8_params, with which NeMo (v2.0.0.rc0.beta,
   * megatron_gpt_model.py) builds the model under Transformer Engine's
   * fp8_model_init (Float8Tensor weights), and NeMo's
   * MegatronDistributedFusedAdam (run_and_time.sh
   * optim@model.optim=distributed_fused_adam; nemo/core/optim/
   * distributed_adam.py) puts the FP8 parameters in buckets of their own
   * with param_sync_dtype=torch.uint8 and casts its fp32 shards into them
   * (cast_to_fp8) once per step: the blocks' GEMM weights all_gathered at
   * 1 B (layout.fp8_all_gather under zero1, pl_layout_te_fp8_params). The
   * v3.x configs set none: empty. */
  const char *fp = cell(in, "FP8_PARAMS (config)");
  if (strcmp(fp, "True") == 0) {
    if (l->dtype == PL_DTYPE_FP8 && l->shard == PL_SHARD_ZERO1) {
      l->fp8_all_gather = true;
      validate_note(row, "FP8 parameters, all_gathered at 1 B (FP8_PARAMS=True in the config: "
                         "the distributed Adam's uint8 parameter buckets)");
    }
  } else if (fp[0] != '\0' && strcmp(fp, "False") != 0) {
    return validate_skip(row, "column 'FP8_PARAMS (config)': '%s' is not True or False", fp);
  }
  return true;
}

/* The attention kernel and cuDNN of the GPT-3 submission's image (columns
 * 'attention backend (image)', 'cuDNN (image)', written by
 * scripts/mlperf-gpt3-rows.py from the implementation's Dockerfile and the
 * result log; data/validation/SOURCES.md). Transformer Engine's
 * DotProductAttention picks the kernel: TE release_v0.8 (v3.0 images,
 * transformer_engine/pytorch/transformer.py) runs flash-attn 1.x whenever the
 * mask is causal on sm80+; TE 09ba8427 / 4ee8e8ec (v3.1, with flash-attn
 * 2.0.8 installed) returns its FlashAttention branch before the fused (cuDNN)
 * one (attention.py DotProductAttention.forward); from v1.6rc1 (v4.0, v4.1)
 * "Select FusedAttention on sm90". 'flash' is plateau's FlashAttention-2:
 * the v3.1 kernel itself; for v3.0's flash-attn 1.x the nearest measured one
 * (FlashAttention-2 is about twice FlashAttention-1's speed, Dao 2023, arXiv
 * 2307.08691: v3.0 stays a lower bound). 'cudnn' is the preset's. The cuDNN
 * version (the log's cudnn_version, e.g. 9.1.0.70 in NVIDIA's v4.0 logs:
 * NGC PyTorch 24.04) selects the GPU file's rates of that release
 * (layout.cudnn_version). Empty: the preset's. */
static bool mlperf_image_attention(const struct validate_in *in, struct pl_framework *fw,
                                   struct pl_vrow *row) {
  const char *a = cell(in, "attention backend (image)");
  if (strcmp(a, "flash") == 0) {
    fw->attention = PL_ATTENTION_FLASH;
    validate_note(row, "FlashAttention (the image's Transformer Engine runs flash-attn before "
                       "cuDNN: v3.x images)");
  } else if (a[0] != '\0' && strcmp(a, "cudnn") != 0) {
    return validate_skip(row, "column 'attention backend (image)': '%s' is not flash or cudnn", a);
  }
  const char *v = cell(in, "cuDNN (image)");
  if (v[0] == '\0')
    return true;
  struct pl_diag d = {0};
  int64_t code = 0;
  if (pl_cudnn_version_parse(v, &code, &d) != PL_OK)
    return validate_skip(row, "column 'cuDNN (image)': %s", d.msg);
  fw->cudnn_version_set = true;
  fw->cudnn_version = code;
  validate_note(row, "cuDNN %s attention rates (the image's cuDNN, as the result log prints it)", v);
  return true;
}

/* TP_COMM_OVERLAP of the submission's config_*.sh (a column of the row):
 * Transformer Engine userbuffers on or off, whatever the preset says. */
bool validate_mlperf_overrides(const struct validate_in *in, struct pl_framework *fw,
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
  /* The userbuffers SMs of the chunked reduce_scatter overlaps (proj_fprop,
   * fc2_fprop; set_sm_margin 1 takes them from the GEMM) as each GPT-3
   * submission's tp_overlap yaml gives them (columns 'ub proj_fprop SMs
   * (config)', 'ub fc2_fprop SMs (config)'): v3.0 run_and_time.sh
   * model.ub_tp_comm_overlap_cfg=${TP_CONFIG_FILE} (config_tp_h100.sh:
   * h100tp4pp8mbs1_tp_comm_overlap_cfg.yaml, 24 / pipeline 20); v3.1
   * conf/custom.yaml tp_overlap h100tp4pp8mbs1.yaml (24 / pipeline 4);
   * v4.0/v4.1 h100tp4mbs{1,2}.yaml (proj 24; fc2 ${FC2_FPROP_METHOD,
   * ring_exchange} with ${FC2_FPROP_SM,1}: the mbs1 configs export pipeline
   * and 4, the mbs2 ones nothing, ring_exchange's 1 as the NeMo launcher's
   * GPT3-175B row; the B200 preview's custom.yaml falls back to the h100 file,
   * GPU_ARCH unset). Empty: the preset's.
   * The v5.1 Llama 3.1 8B rows (session 28, uf28) carry the margin NeMo 2
   * applies, not the yaml's num_sm: their pretrain.py get_overlap_callback
   * builds a ring_exchange entry as RingExchangeOverlapCfg(fp8_buf=...) only,
   * whose defaults are num_sm=1, set_sm_margin=False (NeMo 25.09-alpha / v2.4.0
   * llm/recipes/tp_overlap_configs/userbuffers.py), and TE release_v2.8
   * comm_gemm_overlap.cpp sets _math_sms = set_sm_margin ? sm_count - num_sm :
   * sm_count; a pipeline entry keeps num_sm when set_sm_margin is 1
   * (scripts/mlperf-llama-rows.py ub_fprop_margins): NVIDIA's gb200tp2mbs1.yaml
   * (GPU_ARCH=gb200, GB300 too) 0/0; Cisco's pretrain.py ignores its yaml and
   * hands MegatronCommOverlapCallback a hard-coded TransformerLayerTPOverlapCfg
   * (proj_fprop PipelineOverlapCfg num_sm=24, fc2_fprop num_sm=8, both
   * set_sm_margin=True): 24/8. */
  static const char *const ubcol[] = {"ub proj_fprop SMs (config)", "ub fc2_fprop SMs (config)"};
  for (int k = 0; k < 2; k++) {
    double sms = 0;
    bool sms_present = false;
    if (validate_num(cell(in, ubcol[k]), &sms, &sms_present) != PL_OK ||
        (sms_present && !(sms >= 0 && sms <= 255 && sms == (double)(int64_t)sms)))
      return validate_skip(row, "column '%s': '%s' is not a whole number of SMs from 0 to 255",
                           ubcol[k], cell(in, ubcol[k]));
    if (!sms_present)
      continue;
    if (k == 0) {
      fw->ub_proj_fprop_sms = (int64_t)sms;
      fw->ub_proj_fprop_sms_set = true;
    } else {
      fw->ub_fc2_fprop_sms = (int64_t)sms;
      fw->ub_fc2_fprop_sms_set = true;
    }
  }
  if (cell(in, ubcol[0])[0] != '\0' || cell(in, ubcol[1])[0] != '\0')
    validate_note(row,
                  "userbuffers margins %s/%s SMs (proj/fc2 fprop: the config's tp_overlap "
                  "yaml)",
                  cell(in, ubcol[0])[0] ? cell(in, ubcol[0]) : "preset",
                  cell(in, ubcol[1])[0] ? cell(in, ubcol[1]) : "preset");
  /* Megatron-Core DDP's check_for_nan_in_grad as the submission's NeMo 2
   * pretrain.py get_strategy passes it to DistributedDataParallelConfig
   * (column 'check_for_nan_in_grad (pretrain.py)', scripts/mlperf-llama-rows.py
   * nan_check_of; session 28, mlperfcfg28): False in every v5.1 implementation
   * but Cisco's 8B and Nebius' 405B (mlcommons/training_results_v5.1 @
   * 441d65f4, each implementation's pretrain.py l. 389; True l. 355 / 354),
   * True in the v5.0 ngc25.01 ones (eos-dfw, Nebius l. 354), `not
   * config.model.full_cuda_graph` in the v5.0 ngc25.04 ones (tyche, carina
   * l. 345; FULL_CUDA_GRAPH of the config, True in their config_common_cg.sh).
   * Off, start_grad_sync skips check_grads and its per-bucket
   * grad_data.norm(p=2) (Megatron-LM 25.04-alpha.rc1 / 25.09-alpha.rc1
   * param_and_grad_buffer.py): layout.no_grad_nan_check. Empty: the
   * preset's (on). */
  const char *nc = cell(in, "check_for_nan_in_grad (pretrain.py)");
  if (strcmp(nc, "True") == 0)
    fw->grad_nan_check = PL_SETTING_ON;
  else if (strcmp(nc, "False") == 0)
    fw->grad_nan_check = PL_SETTING_OFF;
  else if (nc[0] != '\0')
    return validate_skip(row,
                         "column 'check_for_nan_in_grad (pretrain.py)': '%s' is not True or False",
                         nc);
  if (nc[0] != '\0')
    validate_note(row,
                  "Megatron-Core DDP check_for_nan_in_grad=%s (the submission's pretrain.py): "
                  "bucket-norm pass %s",
                  nc, fw->grad_nan_check == PL_SETTING_ON ? "counted" : "not counted");
  /* The GPT-3 rows (v3.0-v4.1) train with Apex's distributed_fused_adam, in
   * buckets of bucket_cap_mb MiB: v3.0 pytorch/run_and_time.sh
   * ${BUCKET_CAP_MB:=100}; v3.1 pytorch/conf/optim/distributed_fused_adam.yaml
   * ${oc.env:BUCKET_CAP_MB,100}, the configs set none; v4.0/v4.1
   * config_common.sh export BUCKET_CAP_MB=200, v4.1 eos_n32_ngc24.09_nemo
   * config_DGXH100_32x8x256x4x8_mbs2.sh 125 after it. Not NeMo 2's buckets in
   * parameters (the nemo preset's bucket_params), which the 405B rows run. */
  double mb = 0;
  bool mb_present = false;
  if (validate_num(cell(in, "BUCKET_CAP_MB (config)"), &mb, &mb_present) != PL_OK ||
      (mb_present && !(mb > 0 && mb <= 1e5)))
    return validate_skip(row, "column 'BUCKET_CAP_MB (config)': '%s' is not a size in MiB",
                         cell(in, "BUCKET_CAP_MB (config)"));
  if (mb_present) {
    fw->bucket_mb = mb;
    fw->bucket_params = 0;
    fw->bucket_dp_scaled = false;
    validate_note(row, "data-parallel buckets of %g MiB (BUCKET_CAP_MB: Apex's bucket_cap_mb)", mb);
    /* Apex's DistributedFusedAdam holds the gradients, not Megatron-Core's
     * DistributedDataParallel: none of its per-step gradient-buffer zero and
     * check_for_nan_in_grad norms (layout.grad_buffer_passes; Apex's own
     * zero_grad not counted, not read in session 28) */
    fw->grad_buffer_passes = PL_SETTING_OFF;
  }
  /* The Llama 3.1 8B implementation of MLPerf v5.1 (NeMo 2): the DDP bucket
   * in parameters, config_common_8b.sh export BUCKET_SIZE=768000000, read by
   * conf/custom.yaml model.optim.bucket_size (${oc.env:BUCKET_SIZE,134217728})
   * and passed by pretrain.py to Megatron-Core's
   * DistributedDataParallelConfig(bucket_size=..., grad_reduce_in_fp32=False):
   * bucket_params, as the nemo preset's NeMo 2 bucket. Empty: the preset's. */
  const char *bcol = "BUCKET_SIZE (config, parameters)";
  double n = 0;
  bool n_present = false;
  if (validate_num(cell(in, bcol), &n, &n_present) != PL_OK ||
      (n_present && !pl_bucket_params_ok(n)))
    return validate_skip(row, "column '%s': '%s' is not a whole number from 1 to 1e12", bcol,
                         cell(in, bcol));
  if (n_present) {
    fw->bucket_params = n;
    fw->bucket_mb = 0;
    fw->bucket_dp_scaled = false;
    validate_note(row, "data-parallel buckets of %.0f parameters (BUCKET_SIZE in the config)", n);
  }
  if (!mlperf_image_attention(in, fw, row))
    return false;
  /* The v3.0 GPT-3 images (NVIDIA's and NVIDIA_CoreWeave's
   * benchmarks/gpt3/implementations/pytorch/Dockerfile, training_results_v3.0
   * @ 63e326c4: ARG TE_REVISION=release_v0.8, NEMO_REVISION=v1.17.0_pt_23.04;
   * config_fp8.sh FP8_REDUCE_AMAX=True, FP8_AMAX_HISTORY=1024; no config sets
   * NVTE_ASYNC_AMAX_REDUCTION or NVTE_DP_AMAX_REDUCE_INTERVAL) reduce the
   * delayed-scaling amaxes with a blocking all_reduce over the stage's tp x dp
   * ranks per model chunk and pass (layout.fp8_amax_reduce_sync, segments.c
   * sim_fp8_amax_reduce_wait_s). The v3.1 configs export
   * NVTE_DP_AMAX_REDUCE_INTERVAL=0 and NVTE_ASYNC_AMAX_REDUCTION=1 ("AMAX AR
   * overlap and disable DP", config_common.sh; TE 09ba8427 fp8.py: 0 = tp only,
   * waited for at the next chunk's first module): not priced. The v4.x images
   * (TE 1.x) were not read for it. */
  if (strncmp(cell(in, "source"), "MLPerf Training v3.0 ", 21) == 0) {
    fw->fp8_amax_reduce_sync = PL_SETTING_ON;
    validate_note(row, "Transformer Engine release_v0.8's blocking amax all_reduce over the stage's "
                       "tp x dp ranks per model chunk and pass (v3.0 image)");
  }
  /* NVIDIA's v4.0 GPT-3 image (mlcommons/training_results_v4.0 @ 6fe95437,
   * NVIDIA/benchmarks/gpt3/implementations/nemo/Dockerfile) builds NeMo
   * v2.0.0.rc0.beta on Megatron-Core core_v0.7.0.beta (conf/custom.yaml
   * mcore_gpt: True), which predates Megatron-Core's cross_entropy_loss_fusion
   * (Megatron-LM 7b4a6d76c9, 2024-06-14): the loss is the unfused
   * vocab-parallel cross-entropy (layout.megatron_xent). The v3.x and v4.1
   * images were not read; those rows keep the preset's fused loss. */
  if (strncmp(cell(in, "source"), "MLPerf Training v4.0 ", 21) == 0) {
    fw->megatron_xent = PL_SETTING_ON;
    validate_note(row, "Megatron's unfused cross-entropy (v4.0 image: NeMo 2.0.0rc0 on "
                       "Megatron-Core 0.7.0, before cross_entropy_loss_fusion)");
  }
  /* The v5.1 images on Blackwell run cuDNN 9.13.1: every Blackwell submitter's
   * Dockerfile (mlcommons/training_results_v5.1 @ 441d65f4, Llama 3.1 8B:
   * {NVIDIA,Dell,Lenovo,Nebius,Supermicro,University-of-Florida,Verda}/benchmarks/
   * llama31_8b/.../Dockerfile; Llama 3.1 405B: NVIDIA/benchmarks/llama31_405b/
   * implementations/{hsg,theia,tyche}_*_ngc25.09_nemo/Dockerfile and
   * University-of-Florida/.../llama31_405b/implementations/b200_nemo/Dockerfile)
   * builds on nvcr.io/nvidia/pytorch:25.09-py3 and pins
   * apt-get install libcudnn9-cuda-13=9.13.1.26-1 (ENV CUDNN_VERSION=9.13.1.26);
   * the result logs that print the environment say "cudnn_version":"9.13.1.26"
   * (Dell, Oracle, Verda result_0.txt); Lambda's GB300 image is the 25.09
   * PyTorch container itself, cuDNN 9.13 (cudnn-frontend sdpa_benchmark_training
   * README @ bb37575: 91300). Fused attention then runs at the rates NVIDIA
   * published for cuDNN 9.13.1 (layout.cudnn_version 9.13; GPU files with
   * attention.cudnn.shape_9_13: B200, GB200, GB300; others today's rates). The
   * Hopper rows' images differ (8B: Cisco 25.01, HPE 25.08; 405B: Nebius H200
   * 25.01) and keep the preset's; the v5.0 rows (NGC 25.04 images) too. */
  if (strncmp(cell(in, "source"), "MLPerf Training v5.1 ", 21) == 0 &&
      strstr(cell(in, "gpu"), "Blackwell") != NULL) {
    fw->cudnn_version_set = true;
    fw->cudnn_version = PL_CUDNN_913;
    validate_note(row, "cuDNN 9.13 attention (the image's libcudnn9 9.13.1.26, NGC PyTorch 25.09)");
  }
  /* The v5.0 images on Blackwell run cuDNN 9.9.0: the NVIDIA and IBM+CoreWeave+
   * NVIDIA GB200 Dockerfiles (mlcommons/training_results_v5.0 @ 0fdc28f0,
   * NVIDIA/benchmarks/llama31_405b/implementations/tyche_ngpu{256,512}_ngc25.04_
   * nemo/Dockerfile, IBM+CoreWeave+NVIDIA/.../carina_ngpu*_ngc25.04_nemo/
   * Dockerfile) build on nvcr.io/nvidia/pytorch:25.04-py3 and install no cuDNN
   * of their own (the cudnn-frontend checkout is Transformer Engine's header
   * library); that image's cuDNN is 9.9.0 (NVIDIA/cudnn-frontend @ 06ddf80
   * benchmark/Llama-3.2-1B-Training/README.md: "nvcr.io/nvidia/pytorch:25.04-py3
   * ... cuDNN 9.9.0", torch.backends.cudnn.version() = 90900 on a B200). Older
   * than every Blackwell GPU file's entry, it runs as the oldest measured release,
   * cuDNN 9.10.2 on B200 (attention.cudnn.shape_9_10, src/hw/cudnn_release.c). The
   * v5.0 Hopper rows (NGC 25.01 images) keep the preset's. */
  if (strncmp(cell(in, "source"), "MLPerf Training v5.0 ", 21) == 0 &&
      strstr(cell(in, "gpu"), "Blackwell") != NULL) {
    fw->cudnn_version_set = true;
    fw->cudnn_version = PL_CUDNN_NGC_2504;
    validate_note(row, "cuDNN 9.9 attention (NGC PyTorch 25.04's cuDNN 9.9.0, the image's base; "
                       "timed at the oldest release measured on the GPU, 9.10)");
  }
  return true;
}

/* No IB SHARP (CollNet) in any MLPerf NeMo submission plateau holds (GPT-3
 * 175B v3.0-v4.1, Llama 3.1 405B v5.0/v5.1, Llama 3.1 8B v5.1). Session 5
 * read the configs' "NCCL_SHARP_GROUP_SIZE_THRESH=2  #Avoid falling back to
 * non-sharp" (config_common.sh, under "#SHARP"; run.sub passes it with
 * --container-env) as SHARP for the data-parallel groups; the threshold only
 * acts once CollNet is on, and nothing in these submissions turns it on:
 * - NCCL src/init.cc (v2.18.5 l. 862, v2.21.5 l. 1034; 2.27.7 NCCL_CONFIG_DEFAULT
 *   collnetEnable 0): CollNet only with NCCL_COLLNET_ENABLE=1 (or the
 *   communicator's config);
 * - NVIDIA/enroot conf/hooks/extra/50-sharp.sh writes NCCL_COLLNET_ENABLE=1
 *   only when SLURM_NETWORK is "sharp"; Megatron-Core core_v0.7.0
 *   parallel_state.py initialize_model_parallel (use_sharp, l. 516-533) says
 *   "To enable SHARP, `#SBATCH_NETWORK=sharp` should be set in the sbatch
 *   script". No gpt3, llama31_405b or llama31_8b config, run.sub or README
 *   sets SBATCH_NETWORK (READMEs: "sbatch -N ${DGXNNODES} -t ${WALLTIME}
 *   run.sub"), and their conf/custom.yaml sharp: ${oc.env:SHARP,False} stays
 *   False: the GPT-3 config_common.sh (mlcommons/training_results_v4.0 @
 *   6fe95437, v4.1 @ b87b9e39) has "# Enable SHARP for large scale only" with
 *   "export SHARP=True" commented out. NVIDIA's configs that want SHARP on the
 *   same clusters say so: v4.0 llama2_70b_lora/implementations/nemo/
 *   config_DGXH100_128x8x1xtp4pp1cp2.sh and v4.1 eos_n128_ngc24.09_nemo's
 *   export SBATCH_NETWORK=sharp and SHARP=True; v4.0 bert eos_n434
 *   SBATCH_NETWORK=sharp;
 * - the logs that print the NeMo config say "sharp: false" (Supermicro v4.0
 *   and Oracle v4.1 gpt3 result logs, Nebius v5.0 llama31_405b, Dell/Oracle/
 *   Verda v5.1 llama31_8b), and the one multi-node 8B log with NCCL_DEBUG=INFO
 *   (Dell 2xXE9685Lx8B200, NCCL 2.27.7) has none of CollNet's setup lines
 *   (transport/coll_net.cc "CollNet %02d/%1d : %d [send] via COLLNET").
 * So the data-parallel collectives run NCCL's own algorithms (rings, trees)
 * on every row (docs/accuracy.md, "Session 23 (helper sharp23)"). Not
 * modelled either way: NCCL_NVLS_ENABLE=0, which the v3.1-v5.1 configs set
 * (plateau uses NVLS inside a node only, where these rows' NCCL collectives
 * do not choose it: no row moves). */
void validate_mlperf_hardware(const struct validate_in *in, const struct pl_layout *l,
                              struct pl_cluster *c, struct pl_vrow *row) {
  (void)l;
  c->sharp = false;
  if (cell(in, "NCCL_SHARP_GROUP_SIZE_THRESH (config_common.sh)")[0] != '\0')
    validate_note(row, "no IB SHARP: the config's NCCL_SHARP_GROUP_SIZE_THRESH is inert, "
                       "NCCL_COLLNET_ENABLE unset (SHARP=False, no SBATCH_NETWORK=sharp)");
}

bool validate_mlperf_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row) {
  return measure_time(in, "step time s (median segment, derived)", 1.0, row);
}

/* The GPT-3 175B rows (mlperf_gpt3.csv): the v4.0 and v4.1 NVIDIA
 * implementations (training_results_v4.0 @ 6fe95437 implementations/nemo,
 * v4.1 @ b87b9e39) export the same NCCL_CFG_PATH (conf/custom.yaml
 * model.nccl_communicator_config_path; the yaml's caps as the Llama
 * implementations') with NCCL_MIN_NCHANNELS=4; v3.0 / v3.1 set neither
 * the path nor a cap. */
bool validate_mlperf_gpt3_layout(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row) {
  return validate_mlperf_layout(in, l, row) && validate_mlperf_nccl_ctas(in, l, row);
}

void validate_mlperf_gpt3_hardware(const struct validate_in *in, const struct pl_layout *l,
                                   struct pl_cluster *c, struct pl_vrow *row) {
  validate_mlperf_hardware(in, l, c, row);
  (void)validate_mlperf_nccl_floor(in, c, row);
}

/* ------------------------------------------- MLPerf v5.0 Llama 3.1 405B */

/* The llama31_405b benchmark's model: Llama 3.1 405B as NeMo builds it
 * (MODEL_SIZE=405b in the submissions' config_*.sh; NeMo
 * llm/gpt/model/llama.py Llama31Config405B: 126 layers, hidden 16384, 128
 * heads, 8 query groups, ffn 53248): the preset of that name, whose
 * dimensions the row's columns repeat (checked). */
bool validate_mlperf_llama_model(const struct validate_in *in, struct pl_model *m,
                                 struct pl_vrow *row) {
  return validate_mcore_preset(in, "llama3-405b", m, row);
}

/* The llama31_8b benchmark's model (MLPerf Training v5.1): MODEL_SIZE=8b
 * (config_common_8b.sh), which the implementation's pretrain.py builds as
 * NeMo's Llama31Config8B (llm/gpt/model/llama.py: 32 layers, hidden 4096,
 * 32 heads, 8 query groups, ffn 14336; vocabulary 128256 of the Llama 3.1
 * tokenizer). Its dimensions are the llama3-8b preset's: Llama 3.1 differs
 * from Llama 3 in RoPE scaling and context length, neither a per-step cost at
 * the benchmark's sequence of 8192. The row's columns repeat them (checked). */
bool validate_mlperf_llama8b_model(const struct validate_in *in, struct pl_model *m,
                                   struct pl_vrow *row) {
  return validate_mcore_preset(in, "llama3-8b", m, row);
}

/* The submissions' config_*.sh export ASYM_PP_EMBED=True and
 * ASYM_PP_LOSS=True, which conf/custom.yaml passes to the model as
 * account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split
 * (126 + 2 = 128 layers over pp x vp = 64 virtual stages); the distributed
 * optimizer as for the GPT-3 rows. */
bool validate_mlperf_llama_layout(const struct validate_in *in, struct pl_layout *l,
                                  struct pl_vrow *row) {
  /* a system whose submission holds several configs of its shape and batch
   * that differ in precision (scripts/mlperf-llama-rows.py): not guessed */
  if (strncmp(cell(in, "precision"), "not identified", 14) == 0)
    return validate_skip(row, "the submission's config: %s",
                         cell(in, "precision"));
  const char *e = cell(in, "ASYM_PP_EMBED (config)"), *s = cell(in, "ASYM_PP_LOSS (config)");
  if (strcmp(e, "True") == 0 && strcmp(s, "True") == 0) {
    l->account_embed_loss = true;
    validate_note(row, "embedding, loss count in the pipeline split (ASYM_PP_EMBED, ASYM_PP_LOSS)");
  } else if (e[0] != '\0' || s[0] != '\0') {
    return validate_skip(row, "ASYM_PP_EMBED '%s', ASYM_PP_LOSS '%s': only both True is modelled",
                         e, s);
  }
  /* FULL_CUDA_GRAPH: the whole training step replays as one CUDA graph.
   * v5.0 (NeMo 25.04): conf/custom.yaml full_cuda_graph, which
   * custom_callbacks.py's warmup passes as training_step(...,
   * capture_cuda_graph=full_cuda_graph); v5.1 (NeMo 25.09): conf/custom.yaml
   * cuda_graph_scope 'full_iteration' when FULL_CUDA_GRAPH is '1' (with
   * enable_cuda_graph from MCORE_CUDA_GRAPH=1, both in config_common_cg.sh). */
  /* FP8_RECIPE=tensorwise (the v5.1 implementations' config_common.sh; their
   * conf/custom.yaml model.fp8_recipe reads it, pretrain.py passes it to
   * NeMo's MegatronMixedPrecision): Megatron-Core's Fp8Recipe.tensorwise,
   * which fp8_utils.py get_fp8_recipe builds as Transformer Engine's
   * Float8CurrentScaling -> plateau's fp8-current. Unstated: the v5.0
   * custom.yaml default, delayed scaling (the preset's). */
  if (l->dtype == PL_DTYPE_FP8 && strstr(cell(in, "precision"), "FP8_RECIPE=tensorwise") != NULL) {
    l->fp8_recipe = PL_FP8_RECIPE_CURRENT;
    validate_note(row, "FP8 current scaling (FP8_RECIPE=tensorwise in the config)");
  }
  const char *g = cell(in, "CUDA graphs (config)");
  if (strcmp(g, "FULL_CUDA_GRAPH=True") == 0 || strcmp(g, "FULL_CUDA_GRAPH=1") == 0) {
    l->cuda_graph_scopes |= PL_CGS_FULL_ITERATION;
    validate_note(row, "full-iteration CUDA graph (%s)", g);
  }
  if (!validate_mlperf_layout(in, l, row))
    return false;
  /* FP8_PARAM_GATHER=True (the v5.1 config_common.sh of every NeMo
   * implementation but Cisco's; conf/custom.yaml model.fp8_param_gather, which
   * NeMo's MegatronMixedPrecision turns into TE FP8 parameters and Megatron-Core's
   * DDP fp8_param_gather): the distributed optimizer keeps and all_gathers
   * the blocks' GEMM weights at 1 B (pl_layout_te_fp8_params). Per-tensor
   * FP8 recipes only; the NVFP4 configs set it False. The 405B rows
   * (mlperf_v5.csv, session 23) hold the value pretrain.py passes to the DDP
   * config: FP8_PARAMS in the v5.0 ngc25.01 implementations (eos-dfw, Nebius:
   * pretrain.py fp8_param_gather = config.model.optim.fp8_params),
   * FP8_PARAM_GATHER in the others; True on every FP8 row. */
  if (strcmp(cell(in, "FP8_PARAM_GATHER (config)"), "True") == 0 && l->dtype == PL_DTYPE_FP8 &&
      l->shard == PL_SHARD_ZERO1) {
    l->fp8_all_gather = true;
    validate_note(row, "FP8 parameters, all_gathered at 1 B (FP8_PARAM_GATHER=True in the config)");
  }
  return validate_mlperf_nccl_ctas(in, l, row);
}

/* No SHARP, as for the GPT-3 rows (validate_mlperf_hardware); on GB200/GB300
 * NVL72 the NVLink segment of the configs' SEGMENT (v5.1: tp pp cp / DGXNGPU = 16 trays, run.sub's
 * Slurm --segment) by the rule of the Megatron-Core model zoo's rows
 * (validate_nvl_segment: 16 trays when a job larger than a rack leaves it
 * unstated, as v5.0's configs do). */
void validate_mlperf_llama_hardware(const struct validate_in *in, const struct pl_layout *l,
                                    struct pl_cluster *c, struct pl_vrow *row) {
  validate_mlperf_hardware(in, l, c, row);
  validate_nvl_segment(in, l, c, row);
  (void)validate_mlperf_nccl_floor(in, c, row);
}

/* Seconds per step: the median wall-clock interval between consecutive
 * per-step MLLOG tracked_stats lines (train_step_time, logged every step by
 * the submissions' custom_callbacks.py _log_throughputs) with no evaluation
 * between them. Not every v5.0 log has eval_start events (the GB200 ones
 * do not), so the GPT-3 rows' block segments cannot be used throughout;
 * where both exist they agree within 0.3-2 % (data/validation/SOURCES.md). */
bool validate_mlperf_v5_measure(const struct validate_in *in, const struct pl_run *run,
                                struct pl_vrow *row) {
  (void)run;
  return measure_time(in, "step time s (median log interval, derived)", 1.0, row);
}
