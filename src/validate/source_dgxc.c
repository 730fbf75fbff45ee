/* source_dgxc.c: how NVIDIA's DGX Cloud Benchmarking recipes are read
 * (data/validation/dgxc_benchmarking.csv; README.md there, "How each source
 * defines its metrics").
 *
 * github.com/NVIDIA/dgxc-benchmarking: each recipe's README has an "Expected
 * Performance" table of the training step time (seconds per step, "the last
 * training step timing" of NeMo's train_step_timing), tokens/s and MFU per
 * GPU count on DGX Cloud H100. The rows hold what the recipe's own launch
 * scripts at the same tag set: up to v25.02 the NeMo 1 path
 * (megatron_gpt_pretraining.py with the recipe's Hydra yaml, containers
 * nemo:24.05 / 24.09 / 24.12), from v25.04 NeMo 2's performance scripts
 * (scripts/performance/llm at the NeMo commit the recipe's setup.sh pins,
 * container nemo:25.02.01): the layout, the model dimensions, the
 * userbuffers SMs, the attention backend (NVTE_FUSED_ATTN) and the loss
 * fusion. Nothing here looks at a prediction. */
#include <stdio.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/layout.h>
#include <plateau/model.h>

#include "validate/source_bridge_int.h" /* validate_fp8_delayed_params, validate_bridge_fp8_params */
#include "validate/sources_int.h"

/* The userbuffers SMs of one recipe (proj_fprop and fc2_fprop num_sm, both
 * "pipeline" with set_sm_margin: the NeMo 1 yaml's ub_tp_comm_overlap_cfg,
 * or the NeMo 2 script's userbuffers_*_h100_* config of
 * nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py);
 * empty = the recipe sets none: the preset's. */
static bool dgxc_ub_sms(const struct validate_in *in, const char *col, int64_t *sms, bool *set,
                        struct pl_vrow *row) {
  bool present = false;
  int64_t v = 0;
  if (validate_int(cell(in, col), &v, &present) != PL_OK || (present && v < 0))
    return validate_skip(row, "column '%s': '%s' is not a whole number", col, cell(in, col));
  if (present) {
    *sms = v;
    *set = true;
  }
  return true;
}

/* The data-parallel bucket the recipe sets:
 *  - NeMo 1 rows: the yaml's optim.bucket_cap_mb for Apex's
 *    distributed_fused_adam, the bucket_mb behaviour (MiB per
 *    reduce_scatter / all_gather; the nemo-2024 preset's own source reads
 *    the launcher's 100 the same way; llama3.1_{8b,70b}.yaml 75, 405b 125,
 *    nemotron4-15b 100, 340b 50, gpt3_175b_hydra 220);
 *  - NeMo 2 rows: MegatronCommOverlapCallback._get_optimizer_overlap_cfgs
 *    (nemo/lightning/pytorch/callbacks/megatron_comm_overlap.py at the
 *    NeMo commit the recipes pin, d2b21556f2) sets the DDP bucket_size to
 *    128 x 1024 x 1024 parameters whenever dp > 1: the nemo preset's
 *    bucket_params, which these rows take; the column, where stated,
 *    restates it and sets bucket_params (parameters, whatever the reduce
 *    dtype);
 *  - NeMo 2 rows whose script adds no MegatronCommOverlapCallback (the
 *    v25.05 Nemotron-H script at NeMo 7a8f1cc7bc calls pretrain_recipe()
 *    without performance_mode, so recipes/nemotronh_56b.py
 *    performance_optimizations never appends it): "mcore default", the
 *    recipe's DistributedDataParallelConfig without bucket_size, i.e.
 *    Megatron-Core's max(40e6, 1e6 dp cp) parameters
 *    (layout.bucket_dp_scaled). */
static bool dgxc_bucket(const struct validate_in *in, struct pl_framework *fw,
                        struct pl_vrow *row) {
  bool mb_present = false, n_present = false;
  double mb = 0, n = 0;
  if (strcmp(cell(in, "ddp bucket_size (parameters)"), "mcore default") == 0) {
    fw->bucket_params = 0;
    fw->bucket_mb = 0;
    fw->bucket_dp_scaled = true;
    validate_note(row, "Megatron-Core's default bucket (no MegatronCommOverlapCallback)");
    return true;
  }
  if (validate_num(cell(in, "bucket_cap_mb"), &mb, &mb_present) != PL_OK ||
      (mb_present && !(mb > 0)))
    return validate_skip(row, "column 'bucket_cap_mb': '%s' is not a positive number",
                         cell(in, "bucket_cap_mb"));
  if (validate_num(cell(in, "ddp bucket_size (parameters)"), &n, &n_present) != PL_OK ||
      (n_present && !(n > 0)))
    return validate_skip(row, "column 'ddp bucket_size (parameters)': '%s' is not a positive "
                              "number or 'mcore default'",
                         cell(in, "ddp bucket_size (parameters)"));
  if (mb_present) {
    fw->bucket_mb = mb;
    fw->bucket_dp_scaled = false;
    fw->bucket_params = 0;
    validate_note(row, "data-parallel buckets of %g MiB (the yaml's bucket_cap_mb)", mb);
  } else if (n_present) {
    if (!pl_bucket_params_ok(n))
      return validate_skip(row, "column 'ddp bucket_size (parameters)': '%s' is not a whole "
                                "number from 1 to 1e12",
                           cell(in, "ddp bucket_size (parameters)"));
    fw->bucket_params = n;
    fw->bucket_mb = 0;
    fw->bucket_dp_scaled = false;
    validate_note(row, "data-parallel buckets of %.0f parameters (NeMo 2's "
                       "MegatronCommOverlapCallback bucket_size)",
                  n);
  }
  return true;
}

/* The NeMo 1 yaml's optim.dtype for Apex's distributed_fused_adam (column
 * 'optim dtype'; only nemotron/nemotron4-340b-synth.yaml @ v24.11.1 and
 * v25.02 sets one: bf16). NeMo (v2.0.0, the 24.09 container's;
 * nemo/collections/nlp/models/language_modeling/megatron_base_model.py
 * MegatronBaseModel.setup_optimization) passes it as the optimizer dtype
 * and, with the model's dtype equal to it (bf16 under megatron_amp_O2,
 * no fp8_params), sets store_params False: Apex's DistributedFusedAdam
 * (apex/contrib/optimizers/distributed_fused_adam.py, "dtype: datatype for
 * optimizer state", "store_params: store a distributed copy of the
 * parameters as optimizer state") keeps m and v in bf16 and no master:
 * adam_moments_bf16 and adam_no_master, 4 B per parameter. With fp8_params
 * (the FP8 rows: configure.sh +model.fp8_params=True) NeMo sets
 * store_params True instead: a master copy in the optimizer dtype, bf16,
 * 2 B; plateau keeps an FP8 run's master at 4 B (memory_states.c), so those
 * rows get adam_moments_bf16 only: 8 B where Apex holds 6. Empty: Apex's
 * fp32 default, the preset's states. */
static bool dgxc_optim_dtype(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row) {
  const char *dt = cell(in, "optim dtype");
  if (!*dt || strcmp(dt, "fp32") == 0)
    return true;
  if (strcmp(dt, "bf16") != 0)
    return validate_skip(row, "column 'optim dtype': '%s' is not bf16 or fp32", dt);
  fw->adam_moments_bf16 = PL_SETTING_ON;
  if (strcmp(cell(in, "fp8_params"), "true") == 0) {
    validate_note(row, "Adam m and v in bf16 (the yaml's optim.dtype bf16); fp8_params: Apex keeps "
                       "a bf16 master (store_params True), counted as an fp32 one (4 B)");
    return true;
  }
  fw->adam_no_master = PL_SETTING_ON;
  validate_note(row, "Adam m and v in bf16 and no master copy (the yaml's optim.dtype bf16: "
                     "Apex DistributedFusedAdam store_params False)");
  return true;
}

/* The attention backend a row states where the recipe's stack leaves Transformer
 * Engine no fused kernel (column 'attention_backend'; empty: TE's choice,
 * the layout's rule). "unfused": TE's UnfusedDotProductAttention, the
 * eager baddbmm / fused scale-mask softmax / bmm path that writes the s x s
 * scores to HBM (transformer_engine/pytorch/attention/dot_product_attention/
 * backends.py at v2.3; plateau's eager attention). The v25.05 DeepSeek-V3
 * GB200 rows: latent attention's 192 / 128 heads on sm100, in
 * nemo:25.04.01 (deepseek_v3/pretraining/launch.sh FW_VERSION; the NeMo
 * commit 7a8f1cc7bc that setup.sh pins has requirements/manifest.json
 * transformer_engine bee4649c15, 2025-03-18). That TE's
 * nvte_get_fused_attn_backend refuses F16_arbitrary_seqlen for
 * `sm_arch_ >= 100 && (head_dim_qk > 128 || head_dim_v > 128)` (fused_attn.cpp,
 * the same in v2.2-v2.4), and get_attention_backend disables FlashAttention
 * for head_dim_qk != head_dim_v ("does not support MLA"): only the unfused
 * backend is left (NVTE_UNFUSED_ATTN defaults to 1). TE's sm100 192 / 128
 * training path came with TE PR #1797 (71c76b6ba, 2025-06-13, first in v2.5)
 * and needs cuDNN 9.11, both after the tag that published these results
 * (v25.05, 2025-06-10). The GB200 launch's --recompute_modules core_attn
 * (mla_up_proj on H100, where sm90 keeps the fused kernel) is the recompute
 * that drops those scores. */
static bool dgxc_attention(const struct validate_in *in, struct pl_framework *fw,
                           struct pl_vrow *row) {
  const char *a = cell(in, "attention_backend");
  if (!*a)
    return true;
  if (strcmp(a, "unfused") != 0)
    return validate_skip(row, "column 'attention_backend': '%s' is not unfused", a);
  fw->attention = PL_ATTENTION_EAGER;
  validate_note(row, "unfused attention (the container's Transformer Engine has no fused "
                     "kernel for these heads on this GPU: TE's UnfusedDotProductAttention)");
  return true;
}

/* Column 'overlap_param_gather': the recipe's Megatron-Core DDP
 * overlap_param_gather where it differs from the preset's (empty: the
 * preset's). The v25.05 Nemotron-H recipe (NeMo 7a8f1cc7bc
 * nemo/collections/llm/recipes/nemotronh_56b.py trainer():
 * DistributedDataParallelConfig(overlap_param_gather=False, "Verify that
 * this works"); True from 00b778eb5e, the v25.07 pin): the distributed
 * optimizer's parameter all_gathers are waited for after the step. */
static bool dgxc_param_gather(const struct validate_in *in, struct pl_framework *fw,
                              struct pl_vrow *row) {
  const char *v = cell(in, "overlap_param_gather");
  if (strcmp(v, "false") == 0) {
    fw->overlap_param_gather = PL_SETTING_OFF;
    validate_note(row, "overlap_param_gather off (the recipe's DDP config)");
  } else if (strcmp(v, "true") == 0) {
    fw->overlap_param_gather = PL_SETTING_ON;
  } else if (*v) {
    return validate_skip(row, "column 'overlap_param_gather': '%s' is not true or false", v);
  }
  return true;
}

/* The container's preset: NeMo 24.x (24.05, 24.09, 24.12) the nemo-2024
 * preset (FlashAttention-2 as the 24.x launcher runs it, mid-2024 cuDNN where a recipe sets
 * NVTE_FUSED_ATTN=1; data/frameworks/nemo-2024.json), NeMo 25.0x the
 * nemo preset (as the NeMo 25.02 performance-summary rows). Then what the
 * recipe sets:
 *  - cross_entropy_loss_fusion true in the Llama 3.1 and Nemotron-4 yaml
 *    (llama3.1/llama3.1_*.yaml, nemotron/nemotron4-*-synth.yaml @ v24.11.1
 *    and v25.02): NeMo 1 copies it into Megatron-Core's TransformerConfig
 *    (megatron_base_model.py build_transformer_config), the fused loss; the
 *    GPT-3 yaml (nemo_megatron/gpt3_175b_hydra.yaml) does not set it: the
 *    preset's unfused Megatron cross-entropy;
 *  - NVTE_FUSED_ATTN=0 (nemo_megatron/launch.sh @ v24.11.1,
 *    nemotron/configure.sh for 340b): Transformer Engine's
 *    DotProductAttention then chooses its FlashAttention backend
 *    (transformer_engine/pytorch/attention.py get_attention_backend: the
 *    fused (cuDNN) backend off by the variable), plateau's flash attention;
 *  - ub_tp_comm_overlap and the yaml's userbuffers SMs;
 *  - the data-parallel bucket (dgxc_bucket);
 *  - the optimizer dtype (dgxc_optim_dtype);
 *  - an attention backend the row states (dgxc_attention);
 *  - the DDP overlap_param_gather the recipe states (dgxc_param_gather). */
bool validate_dgxc_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row) {
  const char *cont = cell(in, "container");
  if (strncmp(cont, "nemo:24.", 8) == 0) {
    if (!validate_row_preset("nemo-2024", fw, row))
      return false;
  } else if (strncmp(cont, "nemo:25.11", 10) == 0) {
    /* NeMo 25.11 (25.11.01 in dgxc-benchmarking v25.12 qwen3/pretrain/launch.sh
     * FW_VERSION): Megatron-Bridge v0.2.x on NGC PyTorch 25.09 (the pinned
     * 15927667ed, llmb-r0.2.0, docker/Dockerfile.ci FROM nvcr.io/nvidia/pytorch:25.09-py3),
     * the nemo-25-11 preset's cuDNN 9.13, as the Bridge summary's 25.11 rows */
    if (!validate_row_preset("nemo-25-11", fw, row))
      return false;
    validate_note(row, "cuDNN 9.13 attention (the container's image, NGC PyTorch 25.09)");
  } else if (strncmp(cont, "nemo:25.0", 9) != 0) {
    return validate_skip(row, "container '%s': only NeMo 24.x, 25.0x and 25.11 rows are read",
                         cont);
  } else if (strncmp(cont, "nemo:25.02", 10) == 0 || strncmp(cont, "nemo:25.04", 10) == 0) {
    /* 25.02.01 (v25.04 recipes) and 25.04.0x (v25.05): NGC PyTorch 25.01's cuDNN
     * 9.7.0 (validate_nemo_2025_cudnn, sources_nemo.c) */
    validate_nemo_2025_cudnn(fw, row);
  }
  if (strcmp(cell(in, "cross_entropy_loss_fusion"), "true") == 0) {
    fw->megatron_xent = PL_SETTING_OFF;
    validate_note(row, "fused cross-entropy (the recipe yaml's cross_entropy_loss_fusion true)");
  }
  if (strcmp(cell(in, "NVTE_FUSED_ATTN"), "0") == 0) {
    fw->attention = PL_ATTENTION_FLASH;
    validate_note(row, "FlashAttention (NVTE_FUSED_ATTN=0: TE's flash backend)");
  } else if (strcmp(cell(in, "NVTE_FUSED_ATTN"), "1") == 0) {
    /* the recipe turns TE's fused attention on (llama3.1/configure.sh @
     * v24.11.1: export NVTE_FLASH_ATTN=0, NVTE_FUSED_ATTN=1; nemotron/
     * configure.sh for 15b), which the nemo-2024 preset has
     * off as NeMo-Framework-Launcher's config.yaml of the 24.x tags does
     * (data/frameworks/nemo-2024.json attention): TE's choice, cuDNN on
     * Hopper and Blackwell */
    fw->attention = PL_ATTENTION_TE;
    validate_note(row, "cuDNN fused attention (NVTE_FUSED_ATTN=1: TE's fused backend)");
  }
  const char *ub = cell(in, "ub_tp_comm_overlap");
  if (strcmp(ub, "false") == 0)
    fw->tp_comm_overlap = PL_SETTING_OFF;
  else if (strcmp(ub, "true") != 0)
    return validate_skip(row, "column 'ub_tp_comm_overlap': '%s' is not true or false", ub);
  if (!dgxc_ub_sms(in, "ub proj_fprop SMs", &fw->ub_proj_fprop_sms, &fw->ub_proj_fprop_sms_set,
                   row) ||
      !dgxc_ub_sms(in, "ub fc2_fprop SMs", &fw->ub_fc2_fprop_sms, &fw->ub_fc2_fprop_sms_set, row))
    return false;
  if (stated(in, "ub proj_fprop SMs") || stated(in, "ub fc2_fprop SMs"))
    validate_note(row, "userbuffers %lld/%lld SMs (proj/fc2 fprop: the recipe's ub config)",
                  (long long)fw->ub_proj_fprop_sms, (long long)fw->ub_fc2_fprop_sms);
  return dgxc_bucket(in, fw, row) && dgxc_optim_dtype(in, fw, row) &&
         dgxc_attention(in, fw, row) && dgxc_param_gather(in, fw, row);
}

/* The models of the v25.05 MoE and hybrid recipes, by the row's model name:
 * a preset where data/models has the configuration the NeMo script builds,
 * otherwise the reason the row cannot be expressed. The other names are the
 * NeMo rows' (validate_nemo_model: Llama 3.1, Nemotron-4, GPT-3 by family,
 * dimensions from the row). */
static const struct {
  const char *name;   /* as the model column spells it */
  const char *preset; /* NULL: skipped with why */
  const char *why;
} dgxc_models[] = {
    /* llama4/launch.sh @ v25.05: NeMo 7a8f1cc7bc scripts/performance/llm/pretrain_llama4_e128.py,
     * Llama4Experts128Config (nemo/collections/llm/gpt/model/llama.py: 48 layers, 128 experts
     * top-1 with a shared expert, MoE every other layer: moe_layer_freq [0, 1] * 24) = the
     * checkpoint's text_config of data/models/llama4-maverick.json */
    {"LLAMA4-Maverick-400B", "llama4-maverick", NULL},
    /* deepseek_v3/pretraining/launch.sh @ v25.05: NeMo 7a8f1cc7bc pretrain_deepseek_v3.py,
     * DeepSeekV3Config (gpt/model/deepseek.py) with recipes/deepseek_v3.py use_mtp True
     * (mtp_num_layers 1) = data/models/deepseek-v3.json (num_nextn_predict_layers 1) */
    {"DeepSeek-V3", "deepseek-v3", NULL},
    /* grok1/setup.sh @ v25.05: NeMo 6f2c6fdaff pretrain_grok1_314b.py model():
     * MixtralConfig8x7B with 64 layers, hidden 6144, 48 heads, 8 query groups, ffn
     * 32768, 8 experts, seq 8192, the Meta-Llama-3-70B tokenizer = data/models/grok1-314b */
    {"Grok1-314B", "grok1-314b", NULL},
    /* nemotronh/setup.sh @ v25.05: NeMo 7a8f1cc7bc pretrain_nemotronh_56b.py,
     * NemotronHConfig56B (gpt/model/ssm.py: 118 blocks, hidden 8192, state 256, ffn 32768,
     * 64 heads, NullTokenizer vocab 131072) = data/models/nemotron-h-56b */
    {"Nemotron-H-56B", "nemotron-h-56b", NULL},
    /* qwen3/pretrain/launch.sh @ v25.12: Megatron-Bridge 15927667ed
     * scripts/performance/configs/qwen3/qwen3_llm_pretrain.py qwen3_235b_a22b_h100_config,
     * recipes/qwen/qwen3_moe.py qwen3_235b_a22b_pretrain_config (AutoBridge of
     * Qwen/Qwen3-235B-A22B) = data/models/qwen3-235b-a22b */
    {"Qwen3-235B-A22B", "qwen3-235b-a22b", NULL},
};

bool validate_dgxc_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  const char *name = cell(in, "model");
  for (size_t i = 0; i < sizeof dgxc_models / sizeof dgxc_models[0]; i++) {
    if (strcmp(name, dgxc_models[i].name) != 0)
      continue;
    if (dgxc_models[i].preset == NULL)
      return validate_skip(row, "%s", dgxc_models[i].why);
    return validate_mcore_preset(in, dgxc_models[i].preset, m, row);
  }
  return validate_nemo_model(in, m, row);
}

/* A whole-number cell of the stage columns (empty = not set). */
static bool dgxc_stage(const struct validate_in *in, const char *col, int64_t *dst,
                       struct pl_vrow *row) {
  bool present = false;
  int64_t v = 0;
  if (validate_int(cell(in, col), &v, &present) != PL_OK || (present && v <= 0))
    return validate_skip(row, "column '%s': '%s' is not a positive whole number", col,
                         cell(in, col));
  if (present)
    *dst = v;
  return true;
}

/* The MoE settings a DeepSeek-V3 row states (empty: the preset's):
 *  - 'moe_dispatcher': Megatron-Core's token dispatcher (alltoall, the
 *    DeepSeekConfig default moe_token_dispatcher_type; deepep where the
 *    v25.08 script sets flex with moe_enable_deepep on h100);
 *  - 'moe_balance': "token drop" (MegatronTokenDropCallback: capacity
 *    factor 1.0, padded to capacity) or "force-balanced"
 *    (moe_router_force_load_balancing True): either way every expert rank
 *    computes the mean;
 *  - 'mtp_layers': the MTP modules the recipe trains (recipes/deepseek_v3.py
 *    pretrain_recipe use_mtp True: mtp_num_layers 1), on the last stage
 *    (Megatron-Core multi_token_prediction.py get_mtp_num_layers_to_build,
 *    ac198fc0d6) unless the layout string places them;
 *  - 'moe_a2a_overlap': the Megatron-Bridge workload base config's
 *    moe_a2a_overlap (Megatron-Bridge 15927667ed scripts/performance/configs/
 *    qwen3/workload_base_configs.py QWEN3_235B_A22B_H100_BF16_BASE_CONFIG; the
 *    scripts' overlap_moe_expert_parallel_comm, validate_mcore_ep_overlap);
 *  - 'pipeline_layout': Megatron-Core's --pipeline-model-parallel-layout the
 *    script builds from its (pp, vp) map, or the split that
 *    account_for_embedding/loss_in_pipeline_split makes. */
static bool dgxc_moe(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *disp = cell(in, "moe_dispatcher");
  if (*disp && pl_moe_dispatch_parse(disp, &l->dispatch, NULL) != PL_OK)
    return validate_skip(row, "column 'moe_dispatcher': '%s' is not a dispatcher", disp);
  const char *bal = cell(in, "moe_balance");
  if (strcmp(bal, "token drop") == 0 || strcmp(bal, "force-balanced") == 0) {
    l->moe_imbalance = 1.0;
    l->moe_pad_capacity = bal[0] == 't'; /* MegatronTokenDropCallback pads (layout.h) */
    l->moe_force_balance = bal[0] == 'f'; /* RandomSTE's random logits (layout.h) */
    validate_note(row, "imbalance 1 (%s)",
                  bal[0] == 't' ? "NeMo's token drop: capacity factor 1.0, padded to capacity"
                                : "the script's moe_router_force_load_balancing");
  } else if (*bal) {
    return validate_skip(row, "column 'moe_balance': '%s' is not 'token drop' or "
                              "'force-balanced'",
                         bal);
  }
  bool present = false;
  int64_t mtp = 0;
  if (validate_int(cell(in, "mtp_layers"), &mtp, &present) != PL_OK || (present && mtp < 0))
    return validate_skip(row, "column 'mtp_layers': '%s' is not a whole number",
                         cell(in, "mtp_layers"));
  if (present) {
    l->mtp_layers = mtp;
    validate_note(row, "%lld MTP module(s) (the recipe's use_mtp)", (long long)mtp);
  }
  const char *ov = cell(in, "moe_a2a_overlap");
  if (strcmp(ov, "true") == 0)
    validate_mcore_ep_overlap(l, row, "the config's moe_a2a_overlap");
  else if (*ov && strcmp(ov, "false") != 0)
    return validate_skip(row, "column 'moe_a2a_overlap': '%s' is not true or false", ov);
  const char *pl = cell(in, "pipeline_layout");
  if (*pl) {
    if (strlen(pl) >= sizeof l->pipeline_layout)
      return validate_skip(row, "column 'pipeline_layout': longer than %zu characters",
                           sizeof l->pipeline_layout - 1);
    snprintf(l->pipeline_layout, sizeof l->pipeline_layout, "%s", pl);
    validate_note(row, "pipeline layout %s (the script's (pp, vp) map)", pl);
  }
  return true;
}

/* The NeMo 2 rows (v25.04 on) run NeMo's performance recipes: their layout
 * rules are the NeMo performance-summary rows' (validate_nemo_layout:
 * distributed optimizer, the Llama 3.1 405B recipe's embedding and loss in
 * the pipeline split, ep / etp, NeMo's token drop for Llama 4); the NeMo 1
 * rows state everything they set. What the v25.05 DeepSeek-V3 script sets
 * on top (NeMo 7a8f1cc7bc scripts/performance/llm/pretrain_deepseek_v3.py
 * override_recipe_configs):
 *  - recompute_granularity "selective" with the launch's --recompute_modules
 *    (mla_up_proj on H100, core_attn on GB200): column 'recompute_modules';
 *  - num_layers_in_first_pipeline_stage 64/pp - 1 and
 *    num_layers_in_last_pipeline_stage 64/pp - 2 (61 blocks): columns
 *    'first_stage_layers' and 'last_stage_layers';
 *  - MegatronTokenDropCallback (USE_TOKEN_DROP True), the alltoall
 *    dispatcher and one MTP module: dgxc_moe. */
/* FP8 parameters of the NeMo 1 FP8 rows (column 'fp8_params' true: the
 * launch's +model.fp8_params=True): NeMo builds the model under Transformer
 * Engine's fp8_model_init (Float8Tensor weights; megatron_gpt_model.py
 * model_provider_func, v2.0.0 line 362, v2.1.0 line 396, the 24.09 and 24.12
 * containers' NeMo; v2.0.0rc0, 24.05's, line 340 and distributed_adam.py
 * lines 172 / 229 the same). Both optimizers the rows name then gather them at 1 B:
 * Apex's distributed_fused_adam as NeMo's MegatronDistributedFusedAdam
 * (nemo/core/optim/distributed_adam.py, v2.0.0 and v2.1.0 lines 235-238 and
 * 283-295: the FP8 parameters in buckets of their own with param_sync_dtype
 * torch.uint8, the MLPerf GPT-3 v4.x rows' mechanism), and
 * mcore_distributed_optim, whose DDP config takes fp8_param_gather =
 * cfg.fp8_params (megatron_gpt_model.py v2.0.0 line 563, v2.1.0 line 598:
 * Megatron-Core's uint8 buffers). layout.fp8_all_gather under zero1
 * (pl_layout_te_fp8_params). */
static void dgxc_nemo1_fp8_params(const struct validate_in *in, struct pl_layout *l,
                                  struct pl_vrow *row) {
  if (strcmp(cell(in, "fp8_params"), "true") == 0)
    validate_fp8_delayed_params(l, row, "FP8 parameters, gathered at 1 B (fp8_params: "
                                        "fp8_model_init, uint8 parameter buckets)");
}

/* A row run by a 2025 performance script whose settings the row's columns
 * state: NeMo 2's scripts/performance/llm (v25.04 .. v25.08), or, from
 * v25.10, Megatron-Bridge's scripts/performance (dgxc-benchmarking v25.10
 * 8e77d607c0 deepseek_v3/pretrain/launch.sh `python3 -m
 * scripts.performance.setup_experiment`, metadata.yaml framework
 * megatron_bridge, Megatron-Bridge 7c0ae3fd54 run_script.py): both build
 * Megatron-Core's TE model with the distributed optimizer and read the same
 * columns (recompute modules, stages or layout, the MoE settings). */
static bool dgxc_perf_script(const struct validate_in *in) {
  const char *launcher = cell(in, "launcher");
  return strncmp(launcher, "NeMo 2", 6) == 0 || strncmp(launcher, "Megatron-Bridge", 15) == 0;
}

/* FP8 parameters of the NeMo 2 rows run under FP8 current scaling (the
 * launch's -fr cs, precision naming bf16_with_fp8_current_scaling_mixed):
 * NeMo's recipe of that name sets fp8_param_gather True
 * (nemo/collections/llm/recipes/precision/mixed_precision.py, llmb-nemo-r2.5.0
 * e990789ed7 line 138; the scripts' set_precision_configs only turns off
 * first_last_layers_bf16), gathered at 1 B under the distributed optimizer
 * as Megatron-Bridge's copy of the recipe (validate_bridge_fp8_params). */
static void dgxc_fp8_cs_params(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  if (strstr(cell(in, "precision"), "bf16_with_fp8_current_scaling_mixed") != NULL)
    validate_bridge_fp8_params(in, l, row);
}

/* Megatron FSDP rows (sharding "Megatron FSDP ...": Megatron-Bridge f23d790cf6
 * scripts/performance/utils/helpers.py set_megatron_fsdp_overrides, the
 * perf_matrix's use_megatron_fsdp: data_parallel_sharding_strategy
 * optim_grads_params, zero3) take what the Bridge and NeMo 2 rows of Megatron
 * FSDP take (source_bridge.c validate_bridge_modes, sources_nemo.c
 * nemo_2025_memory): the blocks as its units and gradient shards in the
 * reduce dtype (layout.h); and column 'cpu_offloading_num_layers', the
 * perf_matrix's activation offload (set_recompute_overrides: cpu_offloading
 * True, weights False; layout.act_offload_layers, memory only). */
static bool dgxc_fsdp(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (l->shard == PL_SHARD_ZERO3 && strncmp(cell(in, "sharding"), "Megatron FSDP", 13) == 0) {
    l->fsdp_block_units = true;
    l->shard_grads_reduce_dtype = true;
    validate_note(row, "Megatron FSDP: blocks as its units, gradient shards in the reduce dtype");
  }
  int64_t n = 0;
  if (!dgxc_stage(in, "cpu_offloading_num_layers", &n, row))
    return false;
  if (n > 0) {
    l->act_offload_layers = n;
    validate_note(row, "activations of %lld blocks offloaded to the host (the perf_matrix's "
                       "cpu_offloading_num_layers)",
                  (long long)n);
  }
  return true;
}

bool validate_dgxc_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  if (!dgxc_perf_script(in)) {
    dgxc_nemo1_fp8_params(in, l, row);
    return true;
  }
  if (!validate_nemo_layout(in, l, row))
    return false;
  if (!validate_recompute_modules(in, l, row, "the launch's --recompute_modules"))
    return false;
  if (!dgxc_stage(in, "first_stage_layers", &l->first_stage_layers, row) ||
      !dgxc_stage(in, "last_stage_layers", &l->last_stage_layers, row))
    return false;
  if (l->first_stage_layers > 0 || l->last_stage_layers > 0)
    validate_note(row, "first / last pipeline stage %lld / %lld blocks (NeMo's DeepSeek-V3 "
                       "performance script)",
                  (long long)l->first_stage_layers, (long long)l->last_stage_layers);
  dgxc_fp8_cs_params(in, l, row);
  return dgxc_fsdp(in, l, row) && dgxc_moe(in, l, row);
}

/* The README's "Training step time (seconds per step)", printed. */
bool validate_dgxc_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row) {
  (void)run;
  return measure_time(in, "Training step time (seconds per step)", 1.0, row);
}
