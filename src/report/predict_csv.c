/* predict_csv.c: a prediction as one flat CSV row. The column list is written
 * once (columns()) and drives both the header and the rows, so they cannot
 * drift apart. Values not simulated are empty cells, never NaN. */
#include <plateau/band.h>
#include <plateau/hw.h>
#include <plateau/report.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct csv {
  FILE *out;
  bool header; /* writing names instead of values */
  bool first;
};

static void sep(struct csv *c) {
  if (!c->first)
    fputc(',', c->out);
  c->first = false;
}

static void col_num(struct csv *c, const char *name, double v, bool valid) {
  sep(c);
  if (c->header) {
    fputs(name, c->out);
  } else if (valid) {
    char buf[40];
    pl_fmt_csv(buf, sizeof buf, v);
    fputs(buf, c->out);
  }
}

static void col_int(struct csv *c, const char *name, int64_t v) {
  sep(c);
  if (c->header)
    fputs(name, c->out);
  else
    fprintf(c->out, "%lld", (long long)v);
}

/* Strings are quoted only when they need it (RFC 4180). */
static void col_str(struct csv *c, const char *name, const char *v) {
  sep(c);
  if (c->header) {
    fputs(name, c->out);
    return;
  }
  if (v == NULL)
    return;
  if (strpbrk(v, ",\"\n") == NULL) {
    fputs(v, c->out);
    return;
  }
  fputc('"', c->out);
  for (const char *s = v; *s; s++) {
    if (*s == '"')
      fputc('"', c->out);
    fputc(*s, c->out);
  }
  fputc('"', c->out);
}

/* The "train" object's columns; empty cells where its inputs were not given. */
/* A mixture-of-experts layout switch: true/false on an MoE run, empty otherwise
 * (as the JSON writes null). */
static void col_moe_bool(struct csv *c, const char *name, bool moe, bool v) {
  col_str(c, name, moe ? (v ? "true" : "false") : NULL);
}

static void train_columns(struct csv *c, const struct pl_prediction *p) {
  const struct pl_train_opts *o = &p->run.train;
  const struct pl_train *t = &p->train;
  bool tok = t->has_tokens, gpu = t->has_gpu_price, kwh = t->has_energy_price;
  col_num(c, "train.tokens", o->tokens, o->tokens > 0);
  col_num(c, "train.gpu_hour_usd", o->gpu_hour_usd, o->gpu_hour_usd > 0);
  col_num(c, "train.kwh_usd", o->kwh_usd, o->kwh_usd > 0);
  col_num(c, "train.steps", t->steps, tok);
  col_num(c, "train.time_s", t->time_s, tok);
  col_num(c, "train.days", t->days, tok);
  col_num(c, "train.gpu_hours", t->gpu_hours, tok);
  col_num(c, "train.cost_usd", t->cost_usd, tok && gpu);
  col_num(c, "train.energy_j", t->energy_j, tok);
  col_num(c, "train.energy_kwh", t->energy_kwh, tok);
  col_num(c, "train.energy_cost_usd", t->energy_cost_usd, tok && kwh);
  col_num(c, "train.cost_usd_per_mtok", t->usd_per_mtok, gpu);
  col_num(c, "train.energy_cost_usd_per_mtok", t->energy_usd_per_mtok, kwh);
}

/* The resolved framework behaviours, after every older column (framework.h). */
static void framework_columns(struct csv *c, const struct pl_prediction *p) {
  struct pl_framework fw;
  pl_framework_resolved(&p->run.framework, &p->run.layout, &fw);
  col_str(c, "framework.name", fw.name[0] != '\0' ? fw.name : NULL);
  col_str(c, "framework.attention", pl_attention_name(fw.attention));
  enum pl_setting v;
  const char *key;
  char name[64];
  for (size_t i = 0; (key = pl_framework_setting(&fw, i, &v)) != NULL; i++) {
    snprintf(name, sizeof name, "framework.%s", key);
    col_str(c, name, pl_setting_name(v));
  }
  col_int(c, "framework.logit_metric_passes", fw.logit_metric_passes);
  col_num(c, "hardware.power_cap_w", p->run.cluster.gpu.power_cap_w, p->run.cluster.gpu.power_cap_w > 0);
}

/* Inputs added after the framework columns (issue 20: a row records every
 * option that changes it), each under its flag's name. */
static void input_columns(struct csv *c, const struct pl_prediction *p) {
  const struct pl_layout *l = &p->run.layout;
  bool fsdp = l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
  bool moe = l->ep * l->etp > 1 || l->moe_imbalance > 0;
  col_num(c, "layout.batch_per_gpu", l->gpus > 0 ? (double)l->gbs / (double)l->gpus : 0.0,
          l->gpus > 0);
  col_str(c, "layout.sp", l->sp ? "true" : "false");
  col_str(c, "layout.fsdp_comm", fsdp ? (l->fsdp_one_comm ? "one" : "separate") : "none");
  col_str(c, "layout.fsdp_prefetch", fsdp ? (l->gather_no_prefetch ? "false" : "true") : NULL);
  col_int(c, "layout.ep", l->ep);
  col_int(c, "layout.etp", l->etp);
  col_int(c, "layout.edp", l->edp);
  col_num(c, "layout.moe_imbalance", l->moe_imbalance, moe);
  col_str(c, "layout.moe_dispatch", moe ? pl_moe_dispatch_name(l->dispatch) : NULL);
  col_int(c, "layout.recompute_layers", l->recompute_layers);
  col_int(c, "layout.recompute_every", l->recompute_every);
  col_int(c, "layout.act_offload_layers", l->act_offload_layers);
  col_int(c, "layout.first_stage_layers", pl_layout_stage_layers(l, p->run.model.layers, 0));
  col_int(c, "layout.last_stage_layers",
          pl_layout_stage_layers(l, p->run.model.layers, l->pp > 0 ? l->pp - 1 : 0));
  col_str(c, "layout.pipeline_layout", l->pipeline_layout[0] != '\0' ? l->pipeline_layout : NULL);
  col_int(c, "layout.mtp_layers", l->mtp_layers);
  struct pl_framework fw;
  pl_framework_resolved(&p->run.framework, l, &fw);
  const char *key, *word;
  char name[64];
  for (size_t i = 0; (word = pl_framework_flag_word(&fw, i, &key)) != NULL; i++) {
    snprintf(name, sizeof name, "framework.%s", key);
    col_str(c, name, word);
  }
}

/* The error band (band.h), after every older column: empty without one. */
static void band_columns(struct csv *c, const struct pl_prediction *p) {
  const struct pl_step *s = &p->step;
  struct pl_band b = {0};
  if (!c->header)
    pl_band_of(p, &b);
  struct pl_band_ranges r = {0};
  if (b.known)
    pl_band_ranges(&b, s, &r);
  col_num(c, "step_time_s_lo", r.step_time_s[0], b.known);
  col_num(c, "step_time_s_hi", r.step_time_s[1], b.known);
  col_num(c, "tokens_per_s_lo", r.tokens_per_s[0], b.known);
  col_num(c, "tokens_per_s_hi", r.tokens_per_s[1], b.known);
  col_num(c, "mfu_lo", r.mfu[0], b.known);
  col_num(c, "mfu_hi", r.mfu[1], b.known);
  col_str(c, "error_band.class", b.known ? b.class_name : NULL);
  sep(c);
  if (c->header)
    fputs("error_band.published_runs", c->out);
  else if (b.known)
    fprintf(c->out, "%lld", (long long)b.rows);
}

static void columns(struct csv *c, const struct pl_prediction *p) {
  const struct pl_layout *l = &p->run.layout;
  const struct pl_memory *m = &p->memory;
  const struct pl_step *s = &p->step;
  bool ok = s->simulated;
  col_str(c, "model.name", p->run.model.name);
  col_int(c, "model.params", p->params);
  col_int(c, "model.active_params", p->active_params);
  col_str(c, "hardware.gpu", p->run.cluster.gpu.name);
  col_str(c, "hardware.cluster", p->run.cluster.name);
  col_int(c, "layout.gpus", l->gpus);
  col_int(c, "layout.nodes", l->nodes);
  col_int(c, "layout.dp", l->dp);
  col_int(c, "layout.tp", l->tp);
  col_int(c, "layout.pp", l->pp);
  col_int(c, "layout.cp", l->cp);
  col_int(c, "layout.vp", l->vp);
  col_str(c, "layout.shard", pl_shard_name(l->shard));
  col_int(c, "layout.shard_group", l->shard_group);
  col_int(c, "layout.mbs", l->mbs);
  col_int(c, "layout.gbs", l->gbs);
  col_int(c, "layout.micro_batches", l->micro_batches);
  col_int(c, "layout.seq", l->seq);
  col_str(c, "layout.recompute", pl_recompute_name(l->recompute));
  col_str(c, "layout.schedule", pl_schedule_name(l->schedule));
  col_str(c, "layout.dtype", pl_layout_dtype_name(l));
  col_num(c, "flops.model_per_step", p->flops.model_per_step, true);
  col_num(c, "flops.hardware_per_step", p->flops.hardware_per_step, true);
  col_num(c, "memory.params_bytes", m->params_bytes, true);
  col_num(c, "memory.grads_bytes", m->grads_bytes, true);
  col_num(c, "memory.optimizer_bytes", m->optimizer_bytes, true);
  col_num(c, "memory.activations_bytes", m->activations_bytes, true);
  col_num(c, "memory.other_bytes", m->other_bytes, true);
  col_num(c, "memory.total_bytes", m->total_bytes, true);
  col_num(c, "memory.capacity_bytes", m->capacity_bytes, true);
  col_str(c, "memory.fits", m->fits ? "true" : "false");
  col_str(c, "memory.why", m->fits ? NULL : m->why);
  col_num(c, "step_time_s", s->step_time_s, ok);
  col_num(c, "tokens_per_s", s->tokens_per_s, ok);
  col_num(c, "tokens_per_s_per_gpu", s->tokens_per_s_per_gpu, ok);
  col_num(c, "mfu", s->mfu, ok);
  col_num(c, "hfu", s->hfu, ok);
  col_num(c, "tflops_per_gpu", s->tflops_per_gpu, ok);
  col_num(c, "breakdown.compute_s", s->compute_s, ok);
  col_num(c, "breakdown.exposed_comm_s", s->exposed_comm_s, ok);
  col_num(c, "breakdown.bubble_s", s->bubble_s, ok);
  col_num(c, "breakdown.optimizer_s", s->optimizer_s, ok);
  col_num(c, "breakdown.other_s", s->other_s, ok);
  col_num(c, "breakdown.overlapped_comm_s", s->overlapped_comm_s, ok);
  col_num(c, "power.gpu_w", s->gpu_w, ok);
  col_num(c, "power.cluster_w", s->cluster_w, ok);
  col_num(c, "power.energy_per_step_j", s->energy_per_step_j, ok);
  col_num(c, "power.tokens_per_j", s->tokens_per_j, ok);
  train_columns(c, p);
  framework_columns(c, p);
  input_columns(c, p);
  band_columns(c, p);
  /* added after the error band: the eager host time per kernel (framework.h) */
  struct pl_framework fw;
  pl_framework_resolved(&p->run.framework, l, &fw);
  col_num(c, "framework.host_per_kernel_s", fw.host_per_kernel_s, true);
  col_str(c, "framework.fp8_weight_cache", pl_setting_name(fw.fp8_weight_cache));
  col_num(c, "framework.bucket_mb", fw.bucket_mb, true);
  col_str(c, "framework.fsdp_pp_unsharded", pl_setting_name(fw.fsdp_pp_unsharded));
  col_num(c, "framework.zero3_list_copy_s", fw.zero3_list_copy_s, true);
  /* added after those: Megatron's --recompute-method */
  col_str(c, "layout.recompute_method", l->recompute_uniform ? "uniform" : "block");
  col_str(c, "framework.head_16bit", pl_setting_name(fw.head_16bit));
  col_str(c, "framework.launch_blocking", pl_setting_name(fw.launch_blocking));
  col_str(c, "framework.ep_comm_overlap", pl_setting_name(fw.ep_comm_overlap));
  col_str(c, "framework.zero3_grad_reduce",
          fw.zero3_grad_all_reduce == PL_SETTING_ON ? "all-reduce" : "reduce-scatter");
  col_str(c, "framework.fp8_all_gather", pl_setting_name(fw.fp8_all_gather));
  /* added after those: Megatron-Core's --recompute-modules in effect (selective only) */
  uint32_t rcm = pl_layout_recompute_modules(l);
  char rcm_s[128];
  pl_recompute_modules_format(rcm, rcm_s, sizeof rcm_s);
  col_str(c, "layout.recompute_modules", rcm != 0 ? rcm_s : NULL);
  col_str(c, "framework.zero3_reuse", pl_setting_name(fw.zero3_reuse));
  col_str(c, "framework.cudnn_2024", pl_setting_name(fw.cudnn_2024));
  col_num(c, "framework.host_per_gemm_s", fw.host_per_gemm_s, true);
  col_str(c, "framework.zero3_debug_norm", pl_setting_name(fw.zero3_debug_norm));
  char cgs_s[64]; /* added after those: Megatron-Core cuda_graph_scope (layout.h) */
  pl_cuda_graph_scopes_format(l->cuda_graph_scopes, cgs_s, sizeof cgs_s);
  col_str(c, "layout.cuda_graph_scope", cgs_s);
  char ver[32]; /* added after those: the NCCL release (--nccl-version), empty when not stated */
  pl_nccl_version_str(p->run.cluster.nccl_version, ver, sizeof ver);
  col_str(c, "hardware.nccl_version", ver[0] != '\0' ? ver : NULL);
  /* added after those: Transformer Engine's fused cross-entropy (layout.h) */
  col_str(c, "framework.te_cross_entropy", pl_setting_name(fw.te_cross_entropy));
  /* added after those: TE linears' async backward collectives (layout.h) */
  col_str(c, "framework.te_linear_bwd_overlap", pl_setting_name(fw.te_linear_bwd_overlap));
  /* added after those: TE's per-expert quantize launches from C++ (layout.h) */
  col_num(c, "framework.host_per_launch_s", fw.host_per_launch_s, true);
  /* added after those: Megatron FSDP's block-only units (layout.h) */
  col_str(c, "framework.fsdp_block_units", pl_setting_name(fw.fsdp_block_units));
  /* added after those: the precision-aware optimizer's moments (layout.h) */
  col_str(c, "framework.adam_moments_dtype", fw.adam_moments_bf16 == PL_SETTING_ON ? "bf16" : "fp32");
  /* added after those: the MoE forward's host wait for the tokens per expert (layout.h) */
  col_str(c, "framework.moe_host_sync", pl_setting_name(fw.moe_host_sync));
  char ofm_s[64]; /* added after those: fine-grained activation offloading (layout.h) */
  pl_offload_modules_format(l->offload_modules, ofm_s, sizeof ofm_s);
  col_str(c, "layout.offload_modules", l->offload_modules != 0 ? ofm_s : NULL);
  /* added after those: MXFP8 attention (layout.h) */
  col_str(c, "framework.fp8_attention", pl_setting_name(fw.fp8_attention));
  /* added after those: TE < 2.14's unfused NVFP4 RHT cast (layout.h) */
  col_str(c, "framework.nvfp4_rht_unfused", pl_setting_name(fw.nvfp4_rht_unfused));
  /* added after those: TE's fused MXFP8 grouped MLP (layout.h) */
  col_str(c, "framework.fused_grouped_mlp", pl_setting_name(fw.fused_grouped_mlp));
  /* added after those: cuDNN 9.13's attention rates (layout.h) */
  col_str(c, "framework.cudnn_913", pl_setting_name(fw.cudnn_913));
  /* added after those: the copies of tp collectives on the sequence dim (layout.h) */
  col_str(c, "framework.tp_seq_copies", pl_setting_name(fw.tp_seq_copies));
  /* added after those: the cuDNN release attention runs as (layout.h; the two
   * columns above are its older on/off aliases) */
  char cudnn[16];
  pl_cudnn_version_str(fw.cudnn_version, cudnn, sizeof cudnn);
  col_str(c, "framework.cudnn_version", cudnn);
  /* added after those: PyTorch context_parallel's allgather ring (layout.h) */
  col_str(c, "framework.cp_allgather", pl_setting_name(fw.cp_allgather));
  /* added after those: PyTorch's micro-pipeline TP (layout.h) */
  col_str(c, "framework.async_tp", pl_setting_name(fw.async_tp));
  /* added after those: the fused grouped MLP's cuDNN cluster margin (layout.h) */
  col_int(c, "framework.cudnn_cluster_margin", fw.cudnn_cluster_margin);
  /* added after those: Megatron-Core's gradient accumulation fusion (layout.h) */
  col_str(c, "framework.grad_accum_fusion", pl_setting_name(fw.grad_accum_fusion));
  col_int(c, "framework.ub_proj_fprop_sms", fw.ub_proj_fprop_sms);
  col_int(c, "framework.ub_fc2_fprop_sms", fw.ub_fc2_fprop_sms);
  /* added after those: the trainer loop's host-waited collectives per step (layout.h) */
  col_int(c, "framework.step_sync_all_reduces", fw.step_sync_all_reduces);
  col_int(c, "framework.step_sync_broadcasts", fw.step_sync_broadcasts);
  col_int(c, "framework.step_sync_all_gathers", fw.step_sync_all_gathers);
  /* added after those: the optimizer's host syncs per parameter tensor (layout.h) */
  col_int(c, "framework.opt_syncs_per_tensor", fw.opt_syncs_per_tensor);
  col_str(c, "layout.account_embed_loss", l->account_embed_loss ? "true" : "false");
  /* added after those: Megatron's unfused vocab-parallel cross-entropy (layout.h) */
  col_str(c, "framework.megatron_xent", pl_setting_name(fw.megatron_xent));
  /* added after those: the machine as run (predict's --gpus-per-node, --hbm, --hbm-bandwidth,
   * --nic-bandwidth, --sharp) and --eager-cross-entropy (include/plateau/run_flags.h) */
  const struct pl_cluster *hw = &p->run.cluster;
  col_int(c, "hardware.gpus_per_node", hw->gpus_per_node);
  col_num(c, "hardware.hbm_bytes", hw->gpu.hbm_bytes, true);
  col_num(c, "hardware.hbm_bytes_per_s", hw->gpu.hbm_bytes_per_s, true);
  col_num(c, "hardware.nic_bytes_per_s", hw->nic_bytes_per_s, true);
  col_str(c, "hardware.sharp", hw->sharp ? "on" : "off");
  col_str(c, "framework.eager_cross_entropy", pl_setting_name(fw.eager_xent));
  /* added after those: pipeline stage outputs kept to the step's end (layout.pp_keep_outputs) */
  col_str(c, "framework.pp_keep_outputs", pl_setting_name(fw.pp_keep_outputs));
  /* added after those: the PyTorch memory layouts torchtitan's preset sets (session 17) */
  col_str(c, "framework.tp_gathered_saved", pl_setting_name(fw.tp_gathered_saved));
  col_str(c, "framework.fp32_param_shards", pl_setting_name(fw.fp32_param_shards));
  col_num(c, "hardware.gpu_variability", hw->gpu.clock_cv, true); /* src/hw/variability.c */
  /* added after it: an optimizer with no master copy (layout.adam_no_master, nem17) */
  col_str(c, "framework.adam_master", pl_framework_flag_value(&fw, "adam-master"));
  /* added after it: the bucket in parameters (NeMo 2 / Megatron-Bridge; 0 = not set, bucket18) */
  col_num(c, "framework.bucket_params", fw.bucket_params, true);
  /* added after it: PyTorch FSDP1's flat-parameter copies (layout.fsdp1_copies, fsdp19) */
  col_str(c, "framework.fsdp1_copies", pl_setting_name(fw.fsdp1_copies));
  /* added after it: Megatron-Core's drop-and-pad expert capacity (layout.moe_pad_capacity) */
  bool moe = l->ep * l->etp > 1 || l->moe_imbalance > 0;
  col_moe_bool(c, "layout.moe_pad_capacity", moe, l->moe_pad_capacity);
  /* added after it: TE's per-expert padding under FP8/FP4 (layout.moe_expert_padding, session 21) */
  col_str(c, "framework.moe_expert_padding", pl_setting_name(fw.moe_expert_padding));
  /* added after it: Megatron-Core's GQA query copy (layout.gqa_query_copy) */
  col_str(c, "framework.gqa_query_copy", pl_setting_name(fw.gqa_query_copy));
  /* added after it: the benchmark's forced router balance (layout.moe_force_balance, session 22) */
  col_moe_bool(c, "layout.moe_force_balance", moe, l->moe_force_balance);
  /* added after it: IBM fms's eager RoPE and GQA K/V expansion (layout.fms_rope,
   * layout.kv_expand_copy, session 22) */
  col_str(c, "framework.fms_rope", pl_setting_name(fw.fms_rope));
  col_str(c, "framework.kv_expand_copy", pl_setting_name(fw.kv_expand_copy));
  /* added after it: q, k and v as three linears (layout.separate_linears, torchtitan) */
  col_str(c, "framework.separate_linears", pl_setting_name(fw.separate_linears));
  /* added after it: RoPE by complex multiplication (layout.rope_complex, torchtitan) */
  col_str(c, "framework.rope_complex", pl_setting_name(fw.rope_complex));
  /* added after it: FSDP2's pre-division pass of the PyTorch 2.3 line (layout.fsdp2_predivide,
   * session 23) */
  col_str(c, "framework.fsdp2_predivide", pl_setting_name(fw.fsdp2_predivide));
  /* added after it: where PyTorch 2.3's FSDP2 copies gradients in (layout.fsdp2_rs_copy_in) */
  col_str(c, "framework.fsdp2_rs_copy_in", pl_setting_name(fw.fsdp2_rs_copy_in));
  /* added after it: HybridEP's SMs (layout.hybridep_sms, session 23) */
  col_int(c, "framework.hybridep_sms", fw.hybridep_sms);
  /* added after it: Megatron-Core's fused router or its eager path (layout.moe_router_unfused,
   * session 24) */
  col_str(c, "framework.moe_router_fusion", pl_setting_name(fw.moe_router_fusion));
  /* added after it: the RMSNorm as one fused kernel under eager kernels (layout.fused_norm,
   * torchtitan's Triton fused_rmsnorm, session 24) */
  col_str(c, "framework.fused_norm", pl_setting_name(fw.fused_norm));
  /* added after it: Megatron-Core's SwiGLU compiled or eager (layout.jit_eager, session 25) */
  col_str(c, "framework.jit_fuser", pl_setting_name(fw.jit_fuser));
  /* added after it: the embedding, final norm and LM head as one FSDP unit (layout.fsdp_root_unit,
   * session 25) */
  col_str(c, "framework.fsdp_root_unit", pl_setting_name(fw.fsdp_root_unit));
  /* added after it: the communicators' NCCL CTA caps (layout.nccl_max_ctas_*, cta25, session 25) */
  col_int(c, "framework.nccl_max_ctas_tp", fw.nccl_max_ctas_tp);
  col_int(c, "framework.nccl_max_ctas_cp", fw.nccl_max_ctas_cp);
  col_int(c, "framework.nccl_max_ctas_dp", fw.nccl_max_ctas_dp);
  col_int(c, "framework.nccl_max_ctas_pp", fw.nccl_max_ctas_pp);
  /* and the channel floor under every communicator (--nccl-min-channels, cluster.nccl_min_channels) */
  col_int(c, "hardware.nccl_min_channels", hw->nccl_min_channels);
  /* added after it: the last blocks at 16-bit under FP8 / FP4 (--bf16-last-blocks, nem26, session 26) */
  col_int(c, "layout.bf16_last_blocks", l->bf16_last_blocks);
  char b16_s[96];
  pl_bf16_modules_format(l->bf16_modules, b16_s, sizeof b16_s);
  col_str(c, "layout.bf16_modules", l->bf16_modules != 0 ? b16_s : NULL);
  /* added after it: what the step trains and LoRA's rank and targets in effect (--task,
   * --lora-rank, --lora-targets; src/model/finetune.c, ft26, session 26) */
  col_str(c, "layout.task", pl_run_task_name(l->task));
  col_int(c, "layout.lora_rank", pl_lora_rank(l));
  char targets[80];
  pl_lora_targets_format(pl_lora_targets(l), targets, sizeof targets);
  col_str(c, "layout.lora_targets", targets);
  col_int(c, "layout.packed_sample_len", l->packed_sample_len);
  /* added after it: Hugging Face's shifted fp32 logits copy (layout.hf_shift_copy, session 26) */
  col_str(c, "framework.hf_shift_copy", pl_setting_name(fw.hf_shift_copy));
  /* added after it: Megatron-Core align_grad_reduce and the LM-head wgrad deferral (ovl26, session 26) */
  col_str(c, "framework.align_grad_reduce", pl_setting_name(fw.align_grad_reduce));
  char dw_s[24]; /* and the LM-head wgrad deferral (layout.wgrad_deferral, ovl26) */
  pl_layout_wgrad_deferral_format(p->run.layout.wgrad_deferral, dw_s, sizeof dw_s);
  col_str(c, "layout.defer_embedding_wgrad", dw_s);
  /* context parallelism's exchange (--cp-comm-type, --cp-a2a-size; layout.cp_comm, cp_a2a) */
  col_str(c, "layout.cp_comm_type", pl_cp_comm_name(l->cp_comm));
  col_int(c, "layout.cp_a2a_size", l->cp_a2a);
  /* Megatron-Core overlap_param_gather_with_optimizer_step (ovl26) */
  col_str(c, "framework.overlap_param_gather_with_optimizer_step",
          pl_setting_name(fw.pg_with_opt_step));
  /* Megatron-Core delay_wgrad_compute under the EP overlap (layout.delay_wgrad, moe27) */
  col_str(c, "framework.delay_wgrad_compute", pl_setting_name(fw.delay_wgrad));
  /* eager runs' optimizer implementation and the gradient-norm pass (layout.opt_fused,
   * layout.no_grad_clip, trace27) */
  col_str(c, "framework.optimizer_impl", fw.optimizer_fused == PL_SETTING_ON ? "fused" : "foreach");
  col_str(c, "framework.grad_clip", pl_setting_name(fw.grad_clip));
  col_str(c, "framework.autocast_weight_casts", pl_setting_name(fw.autocast_weight_casts));
  col_str(c, "framework.optimizer_torch", pl_setting_name(fw.optimizer_torch));
  /* the 16-bit logits' shift copy before a compiled loss (layout.logits_shift_copy, olmo27) */
  col_str(c, "framework.logits_shift_copy", pl_setting_name(fw.logits_shift_copy));
  /* the eager z-loss beside the eager fp32 loss (layout.eager_z_loss, olmo27) */
  col_str(c, "framework.eager_z_loss", pl_setting_name(fw.eager_z_loss));
  /* Megatron-Core DDP's gradient-buffer zero and NaN-check passes (layout.grad_buffer_passes, nemo28) */
  col_str(c, "framework.grad_buffer_passes", pl_setting_name(fw.grad_buffer_passes));
  col_str(c, "framework.grad_scale_pass", pl_setting_name(fw.grad_scale_pass));
  /* the model's fp32 logits before a fused loss (layout.logits_fp32, olmo28) */
  col_str(c, "framework.logits_fp32", pl_setting_name(fw.logits_fp32));
  /* DeepSpeed's 16-bit gradient all_reduce (layout.grad_comm_cast, mdsp28) */
  col_str(c, "framework.grad_comm_cast", pl_setting_name(fw.grad_comm_cast));
  /* the step's pipeline schedules (layout.pp_schedules, moescale28) and AutoModel's
   * fake balanced gate and compiled expert activation (moe28) */
  col_int(c, "layout.pp_schedules", l->pp_schedules);
  col_moe_bool(c, "layout.moe_fake_gate", moe, l->moe_fake_gate);
  col_moe_bool(c, "layout.moe_act_compiled", moe, l->moe_act_compiled);
  /* Megatron-Core DDP's check_for_nan_in_grad bucket norms, apart from the
   * buffer's zero pass (layout.no_grad_nan_check, mlperfcfg28) */
  col_str(c, "framework.grad_nan_check", pl_setting_name(fw.grad_nan_check));
  /* torch.optim.SGD over 16-bit parameters or AdamW (layout.opt_sgd, thunder29) */
  col_str(c, "framework.optimizer", pl_framework_flag_value(&fw, "optimizer"));
  /* added after it: who picks each collective's algorithm and protocol (--nccl-tuner,
   * cluster.nccl_tuner: nccl or the aws-ofi-nccl P5 plugin's map, efa29b, session 29) */
  col_str(c, "hardware.nccl_tuner", pl_cluster_nccl_tuner(hw));
  /* Megatron's FusedScaleMaskSoftmax and its unfused fallback (layout.megatron_softmax, vtrain29) */
  col_str(c, "framework.megatron_softmax", pl_setting_name(fw.megatron_softmax));
  /* torch.compile's generated RMSNorm kernels at their published rate
   * (layout.inductor_norms, compile29) */
  col_str(c, "framework.inductor_norms", pl_setting_name(fw.inductor_norms));
  /* the GPT-J/PaLM parallel transformer block (layout.parallel_block, megascale29) */
  col_str(c, "framework.parallel_block", pl_setting_name(fw.parallel_block));
  /* NeMo AutoModel's deferred FSDP gradient sync and eager fc1 expert bias
   * (layout.fsdp_ga_nosync / fsdp_ga_keep, layout.moe_fc1_bias_eager, automodel29) */
  col_str(c, "layout.fsdp_ga_nosync", pl_fsdp_ga_nosync_name(l));
  col_moe_bool(c, "layout.moe_fc1_bias_eager", moe, l->moe_fc1_bias_eager);
  /* Transformer Engine release_v0.8's blocking amax all_reduce over dp x tp
   * (--fp8-amax-reduce, layout.fp8_amax_reduce_sync, amax29) */
  col_str(c, "framework.fp8_amax_reduce", pl_framework_flag_value(&fw, "fp8-amax-reduce"));
}

void pl_report_predict_csv_header(FILE *out) {
  static const struct pl_prediction names_only; /* values unused when writing names */
  struct csv c = {out, true, true};
  columns(&c, &names_only);
  fputc('\n', out);
}

void pl_report_predict_csv_row(FILE *out, const struct pl_prediction *p) {
  struct csv c = {out, false, true};
  columns(&c, p);
  fputc('\n', out);
}
