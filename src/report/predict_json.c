/* predict_json.c: the JSON object of one prediction (see report.h). The key
 * names are interface contracts (issues 2 and 4): add keys, never rename. */
#include <plateau/band.h>
#include <plateau/coll.h>
#include <plateau/flops.h>
#include <plateau/report.h>

#include <stdio.h>

static void model_json(struct pl_emit *e, const struct pl_prediction *p) {
  const struct pl_model *m = &p->run.model;
  pl_emit_obj_begin(e, "model");
  pl_emit_str(e, "name", m->name);
  pl_emit_int(e, "params", p->params);
  pl_emit_int(e, "active_params", p->active_params);
  pl_emit_int(e, "layers", m->layers);
  pl_emit_int(e, "hidden", m->hidden);
  pl_emit_int(e, "heads", m->heads);
  pl_emit_int(e, "kv_heads", m->kv_heads);
  pl_emit_int(e, "head_dim", m->head_dim);
  pl_emit_int(e, "ffn_hidden", m->ffn_hidden);
  pl_emit_int(e, "vocab", m->vocab);
  pl_emit_str(e, "mlp", pl_mlp_name(m->mlp));
  if (pl_model_is_moe(m)) {
    pl_emit_int(e, "experts", m->experts);
    pl_emit_int(e, "top_k", m->top_k);
    pl_emit_int(e, "expert_ffn", m->expert_ffn);
    pl_emit_int(e, "moe_layers", pl_model_moe_layers(m));
    if (m->moe_latent > 0) /* latent MoE (model/moe_latent.c) */
      pl_emit_int(e, "moe_latent", m->moe_latent);
  }
  if (m->mtp_pattern[0] != '\0') /* a hybrid MTP module's blocks (model/hybrid_mtp.c) */
    pl_emit_str(e, "mtp_pattern", m->mtp_pattern);
  if (m->max_context > 0) /* a Hugging Face config: its full context (seq defaulted below it) */
    pl_emit_int(e, "max_context", m->max_context);
  pl_emit_obj_end(e);
}

static void hardware_json(struct pl_emit *e, const struct pl_prediction *p) {
  const struct pl_cluster *c = &p->run.cluster;
  pl_emit_obj_begin(e, "hardware");
  pl_emit_str(e, "gpu", c->gpu.name);
  pl_emit_str(e, "cluster", c->name);
  pl_emit_int(e, "gpus_per_node", c->gpus_per_node);
  pl_emit_num(e, "peak_flops_per_s", pl_gpu_peak_flops_per_s(&c->gpu, p->run.layout.dtype));
  pl_emit_num(e, "hbm_bytes", c->gpu.hbm_bytes);
  pl_emit_num(e, "hbm_bytes_per_s", c->gpu.hbm_bytes_per_s);
  pl_emit_num(e, "nic_bytes_per_s", c->nic_bytes_per_s);
  pl_emit_bool(e, "sharp", c->sharp);
  if (c->gpu.power_cap_w > 0)
    pl_emit_num(e, "power_cap_w", c->gpu.power_cap_w);
  else
    pl_emit_null(e, "power_cap_w");
  /* --gpu-variability: the clocks' spread (0 off) and the slowest GPU's clock
   * against the mean that the step ran at (src/hw/variability.c) */
  pl_emit_num(e, "gpu_variability", c->gpu.clock_cv);
  /* --nccl-min-channels: NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS's floor (0: none) */
  pl_emit_int(e, "nccl_min_channels", c->nccl_min_channels);
  /* --nccl-tuner: who picks each call's algorithm and protocol (cluster.nccl_tuner) */
  pl_emit_str(e, "nccl_tuner", pl_cluster_nccl_tuner(c));
  pl_emit_num(e, "gpu_slowest_clock_fraction",
              c->gpu.clock_slowest_fraction > 0 ? c->gpu.clock_slowest_fraction : 1.0);
  char ver[32];
  pl_nccl_version_str(c->nccl_version, ver, sizeof ver);
  if (ver[0] != '\0')
    pl_emit_str(e, "nccl_version", ver);
  else
    pl_emit_null(e, "nccl_version");
  pl_emit_obj_end(e);
}

static void layout_json(struct pl_emit *e, const struct pl_prediction *p) {
  const struct pl_layout *l = &p->run.layout;
  int64_t layers = p->run.model.layers;
  pl_emit_obj_begin(e, "layout");
  pl_emit_int(e, "gpus", l->gpus);
  pl_emit_int(e, "nodes", l->nodes);
  pl_emit_int(e, "dp", l->dp);
  pl_emit_int(e, "tp", l->tp);
  pl_emit_int(e, "pp", l->pp);
  pl_emit_int(e, "cp", l->cp);
  pl_emit_str(e, "cp_comm_type", pl_cp_comm_name(l->cp_comm));
  pl_emit_int(e, "cp_a2a_size", l->cp_a2a);
  pl_emit_int(e, "vp", l->vp);
  pl_emit_str(e, "shard", pl_shard_name(l->shard));
  pl_emit_int(e, "shard_group", l->shard_group);
  pl_emit_int(e, "mbs", l->mbs);
  pl_emit_int(e, "gbs", l->gbs);
  pl_emit_num(e, "batch_per_gpu", l->gpus > 0 ? (double)l->gbs / (double)l->gpus : 0.0);
  pl_emit_int(e, "micro_batches", l->micro_batches);
  pl_emit_int(e, "seq", l->seq);
  pl_emit_str(e, "recompute", pl_recompute_name(l->recompute));
  pl_emit_int(e, "recompute_layers", l->recompute_layers);
  pl_emit_int(e, "recompute_every", l->recompute_every);
  pl_emit_str(e, "recompute_method", l->recompute_uniform ? "uniform" : "block");
  pl_emit_int(e, "act_offload_layers", l->act_offload_layers); /* cpu_offloading_num_layers */
  uint32_t rcm = pl_layout_recompute_modules(l);
  char rcm_s[128];
  pl_recompute_modules_format(rcm, rcm_s, sizeof rcm_s);
  if (rcm != 0) /* Megatron-Core recompute_modules in effect (selective only) */
    pl_emit_str(e, "recompute_modules", rcm_s);
  else
    pl_emit_null(e, "recompute_modules");
  char ofm_s[64]; /* Megatron-Core's fine-grained activation offloading */
  pl_offload_modules_format(l->offload_modules, ofm_s, sizeof ofm_s);
  if (l->offload_modules != 0)
    pl_emit_str(e, "offload_modules", ofm_s);
  else
    pl_emit_null(e, "offload_modules");
  char cgs_s[64]; /* Megatron-Core cuda_graph_scope: ops without eager host cost */
  pl_cuda_graph_scopes_format(l->cuda_graph_scopes, cgs_s, sizeof cgs_s);
  pl_emit_str(e, "cuda_graph_scope", cgs_s);
  char dw_s[24]; /* Megatron-Core defer_embedding_wgrad_compute: off, all or the limit */
  pl_layout_wgrad_deferral_format(l->wgrad_deferral, dw_s, sizeof dw_s);
  pl_emit_str(e, "defer_embedding_wgrad", dw_s);
  pl_emit_str(e, "schedule", pl_schedule_name(l->schedule));
  pl_emit_int(e, "pp_schedules", l->pp_schedules);
  pl_emit_str(e, "dtype", pl_layout_dtype_name(l));
  pl_emit_bool(e, "sp", l->sp);
  pl_emit_str(e, "fsdp_comm", l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3
                                  ? (l->fsdp_one_comm ? "one" : "separate")
                                  : "none");
  if (l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3)
    pl_emit_bool(e, "fsdp_prefetch", !l->gather_no_prefetch);
  else
    pl_emit_null(e, "fsdp_prefetch");
  /* NeMo AutoModel's deferred gradient sync (--fsdp-ga-nosync, automodel29) */
  pl_emit_str(e, "fsdp_ga_nosync", pl_fsdp_ga_nosync_name(l));
  pl_emit_int(e, "ep", l->ep);
  pl_emit_int(e, "etp", l->etp);
  pl_emit_int(e, "edp", l->edp);
  if (l->ep * l->etp > 1 || l->moe_imbalance > 0) {
    pl_emit_num(e, "moe_imbalance", l->moe_imbalance);
    pl_emit_str(e, "moe_dispatch", pl_moe_dispatch_name(l->dispatch));
    pl_emit_bool(e, "moe_pad_capacity", l->moe_pad_capacity);
    pl_emit_bool(e, "moe_force_balance", l->moe_force_balance);
    pl_emit_bool(e, "moe_fake_gate", l->moe_fake_gate);
    pl_emit_bool(e, "moe_act_compiled", l->moe_act_compiled);
    pl_emit_bool(e, "moe_fc1_bias_eager", l->moe_fc1_bias_eager);
    /* what the busiest rank carries: the given imbalance, or under forced
     * balance the random logits' spread where larger (model/moe_balance.c) */
    pl_emit_num(e, "moe_imbalance_applied", pl_moe_imbalance(&p->run.model, l));
  } else {
    pl_emit_null(e, "moe_imbalance");
    pl_emit_null(e, "moe_dispatch");
    pl_emit_null(e, "moe_pad_capacity");
    pl_emit_null(e, "moe_force_balance");
    pl_emit_null(e, "moe_fake_gate");
    pl_emit_null(e, "moe_act_compiled");
    pl_emit_null(e, "moe_fc1_bias_eager");
    pl_emit_null(e, "moe_imbalance_applied");
  }
  /* blocks on the first and last pipeline stage, as split (given or even) */
  pl_emit_int(e, "first_stage_layers", pl_layout_stage_layers(l, layers, 0));
  pl_emit_int(e, "last_stage_layers", pl_layout_stage_layers(l, layers, l->pp - 1));
  if (l->pipeline_layout[0] != '\0')
    pl_emit_str(e, "pipeline_layout", l->pipeline_layout);
  else
    pl_emit_null(e, "pipeline_layout");
  pl_emit_int(e, "mtp_layers", l->mtp_layers);
  pl_emit_int(e, "bf16_last_blocks", l->bf16_last_blocks);
  char b16_s[96];
  pl_bf16_modules_format(l->bf16_modules, b16_s, sizeof b16_s);
  if (l->bf16_modules != 0)
    pl_emit_str(e, "bf16_modules", b16_s);
  else
    pl_emit_null(e, "bf16_modules");
  pl_emit_bool(e, "account_embed_loss", l->account_embed_loss);
  /* what the step trains (--task) and, with lora, the rank and targets in
   * effect (src/model/finetune.c); 0 and "" otherwise */
  pl_emit_str(e, "task", pl_run_task_name(l->task));
  pl_emit_int(e, "lora_rank", pl_lora_rank(l));
  char targets[80];
  pl_lora_targets_format(pl_lora_targets(l), targets, sizeof targets);
  pl_emit_str(e, "lora_targets", targets);
  pl_emit_int(e, "packed_sample_len", l->packed_sample_len); /* 0: one sample per sequence */
  pl_emit_obj_end(e);
}

/* The framework's behaviours as the layout ran them (framework.h). */
static void framework_json(struct pl_emit *e, const struct pl_prediction *p) {
  struct pl_framework fw;
  pl_framework_resolved(&p->run.framework, &p->run.layout, &fw);
  pl_emit_obj_begin(e, "framework");
  if (fw.name[0] != '\0')
    pl_emit_str(e, "name", fw.name);
  else
    pl_emit_null(e, "name");
  pl_emit_str(e, "attention", pl_attention_name(fw.attention));
  enum pl_setting v;
  const char *key;
  for (size_t i = 0; (key = pl_framework_setting(&fw, i, &v)) != NULL; i++)
    pl_emit_bool(e, key, v == PL_SETTING_ON);
  pl_emit_int(e, "logit_metric_passes", fw.logit_metric_passes);
  /* the same behaviours in the words of their flags (--kernels, ...) */
  const char *word;
  for (size_t i = 0; (word = pl_framework_flag_word(&fw, i, &key)) != NULL; i++)
    pl_emit_str(e, key, word);
  pl_emit_num(e, "host_per_kernel_s", fw.host_per_kernel_s);
  /* the ddp/zero1 gradient bucket in MiB as run; megatron: Megatron-Core's dp-scaled default */
  pl_emit_num(e, "bucket_mb", fw.bucket_mb);
  pl_emit_bool(e, "bucket_megatron", fw.bucket_dp_scaled);
  /* the bucket in parameters where the framework sets it so (NeMo 2, Megatron-Bridge); 0 = not */
  pl_emit_num(e, "bucket_params", fw.bucket_params);
  pl_emit_bool(e, "fp8_weight_cache", fw.fp8_weight_cache == PL_SETTING_ON);
  pl_emit_bool(e, "fsdp_pp_unsharded", fw.fsdp_pp_unsharded == PL_SETTING_ON);
  pl_emit_num(e, "zero3_list_copy_s", fw.zero3_list_copy_s);
  pl_emit_bool(e, "head_16bit", fw.head_16bit == PL_SETTING_ON);
  pl_emit_bool(e, "launch_blocking", fw.launch_blocking == PL_SETTING_ON);
  pl_emit_bool(e, "ep_comm_overlap", fw.ep_comm_overlap == PL_SETTING_ON);
  pl_emit_bool(e, "delay_wgrad_compute", fw.delay_wgrad == PL_SETTING_ON);
  pl_emit_str(e, "optimizer_impl", fw.optimizer_fused == PL_SETTING_ON ? "fused" : "foreach");
  pl_emit_bool(e, "grad_clip", fw.grad_clip == PL_SETTING_ON);
  pl_emit_bool(e, "autocast_weight_casts", fw.autocast_weight_casts == PL_SETTING_ON);
  pl_emit_bool(e, "optimizer_torch", fw.optimizer_torch == PL_SETTING_ON);
  pl_emit_str(e, "optimizer", pl_framework_flag_value(&fw, "optimizer"));
  pl_emit_str(e, "zero3_grad_reduce",
              fw.zero3_grad_all_reduce == PL_SETTING_ON ? "all-reduce" : "reduce-scatter");
  pl_emit_bool(e, "fp8_all_gather", fw.fp8_all_gather == PL_SETTING_ON);
  pl_emit_bool(e, "zero3_reuse", fw.zero3_reuse == PL_SETTING_ON);
  pl_emit_bool(e, "cudnn_2024", fw.cudnn_2024 == PL_SETTING_ON);
  pl_emit_num(e, "host_per_gemm_s", fw.host_per_gemm_s);
  pl_emit_bool(e, "zero3_debug_norm", fw.zero3_debug_norm == PL_SETTING_ON);
  pl_emit_bool(e, "te_cross_entropy", fw.te_cross_entropy == PL_SETTING_ON);
  pl_emit_bool(e, "te_linear_bwd_overlap", fw.te_linear_bwd_overlap == PL_SETTING_ON);
  pl_emit_bool(e, "align_grad_reduce", fw.align_grad_reduce == PL_SETTING_ON);
  pl_emit_bool(e, "overlap_param_gather_with_optimizer_step", fw.pg_with_opt_step == PL_SETTING_ON);
  pl_emit_num(e, "host_per_launch_s", fw.host_per_launch_s);
  pl_emit_bool(e, "fsdp_block_units", fw.fsdp_block_units == PL_SETTING_ON);
  pl_emit_str(e, "adam_moments_dtype", fw.adam_moments_bf16 == PL_SETTING_ON ? "bf16" : "fp32");
  pl_emit_bool(e, "moe_host_sync", fw.moe_host_sync == PL_SETTING_ON);
  pl_emit_bool(e, "moe_expert_padding", fw.moe_expert_padding == PL_SETTING_ON);
  pl_emit_bool(e, "moe_router_fusion", fw.moe_router_fusion == PL_SETTING_ON);
  pl_emit_bool(e, "jit_fuser", fw.jit_fuser == PL_SETTING_ON);
  pl_emit_bool(e, "fp8_attention", fw.fp8_attention == PL_SETTING_ON);
  pl_emit_bool(e, "nvfp4_rht_unfused", fw.nvfp4_rht_unfused == PL_SETTING_ON);
  pl_emit_bool(e, "fused_grouped_mlp", fw.fused_grouped_mlp == PL_SETTING_ON);
  pl_emit_bool(e, "cudnn_913", fw.cudnn_913 == PL_SETTING_ON);
  pl_emit_bool(e, "tp_seq_copies", fw.tp_seq_copies == PL_SETTING_ON);
  char cudnn[16];
  pl_cudnn_version_str(fw.cudnn_version, cudnn, sizeof cudnn);
  pl_emit_str(e, "cudnn_version", cudnn);
  pl_emit_bool(e, "cp_allgather", fw.cp_allgather == PL_SETTING_ON);
  pl_emit_bool(e, "async_tp", fw.async_tp == PL_SETTING_ON);
  pl_emit_int(e, "cudnn_cluster_margin", fw.cudnn_cluster_margin);
  pl_emit_bool(e, "grad_accum_fusion", fw.grad_accum_fusion == PL_SETTING_ON);
  pl_emit_int(e, "ub_proj_fprop_sms", fw.ub_proj_fprop_sms);
  pl_emit_int(e, "ub_fc2_fprop_sms", fw.ub_fc2_fprop_sms);
  pl_emit_int(e, "hybridep_sms", fw.hybridep_sms);
  pl_emit_int(e, "nccl_max_ctas_tp", fw.nccl_max_ctas_tp);
  pl_emit_int(e, "nccl_max_ctas_cp", fw.nccl_max_ctas_cp);
  pl_emit_int(e, "nccl_max_ctas_dp", fw.nccl_max_ctas_dp);
  pl_emit_int(e, "nccl_max_ctas_pp", fw.nccl_max_ctas_pp);
  pl_emit_int(e, "step_sync_all_reduces", fw.step_sync_all_reduces);
  pl_emit_int(e, "step_sync_broadcasts", fw.step_sync_broadcasts);
  pl_emit_int(e, "step_sync_all_gathers", fw.step_sync_all_gathers);
  pl_emit_int(e, "opt_syncs_per_tensor", fw.opt_syncs_per_tensor);
  pl_emit_bool(e, "megatron_xent", fw.megatron_xent == PL_SETTING_ON);
  pl_emit_bool(e, "gqa_query_copy", fw.gqa_query_copy == PL_SETTING_ON);
  pl_emit_bool(e, "fms_rope", fw.fms_rope == PL_SETTING_ON);
  pl_emit_bool(e, "kv_expand_copy", fw.kv_expand_copy == PL_SETTING_ON);
  pl_emit_bool(e, "separate_linears", fw.separate_linears == PL_SETTING_ON);
  pl_emit_bool(e, "rope_complex", fw.rope_complex == PL_SETTING_ON);
  pl_emit_bool(e, "eager_cross_entropy", fw.eager_xent == PL_SETTING_ON);
  pl_emit_bool(e, "pp_keep_outputs", fw.pp_keep_outputs == PL_SETTING_ON);
  pl_emit_bool(e, "tp_gathered_saved", fw.tp_gathered_saved == PL_SETTING_ON);
  pl_emit_bool(e, "fp32_param_shards", fw.fp32_param_shards == PL_SETTING_ON);
  pl_emit_str(e, "adam_master", pl_framework_flag_value(&fw, "adam-master"));
  pl_emit_bool(e, "fsdp1_copies", fw.fsdp1_copies == PL_SETTING_ON);
  pl_emit_bool(e, "fsdp2_predivide", fw.fsdp2_predivide == PL_SETTING_ON);
  pl_emit_bool(e, "fsdp2_rs_copy_in", fw.fsdp2_rs_copy_in == PL_SETTING_ON);
  pl_emit_bool(e, "fused_norm", fw.fused_norm == PL_SETTING_ON);
  pl_emit_bool(e, "inductor_norms", fw.inductor_norms == PL_SETTING_ON);
  pl_emit_bool(e, "fsdp_root_unit", fw.fsdp_root_unit == PL_SETTING_ON);
  pl_emit_bool(e, "hf_shift_copy", fw.hf_shift_copy == PL_SETTING_ON);
  pl_emit_bool(e, "logits_shift_copy", fw.logits_shift_copy == PL_SETTING_ON);
  pl_emit_bool(e, "eager_z_loss", fw.eager_z_loss == PL_SETTING_ON);
  pl_emit_bool(e, "grad_buffer_passes", fw.grad_buffer_passes == PL_SETTING_ON);
  pl_emit_bool(e, "grad_scale_pass", fw.grad_scale_pass == PL_SETTING_ON);
  pl_emit_bool(e, "logits_fp32", fw.logits_fp32 == PL_SETTING_ON);
  pl_emit_bool(e, "grad_comm_cast", fw.grad_comm_cast == PL_SETTING_ON);
  pl_emit_bool(e, "grad_nan_check", fw.grad_nan_check == PL_SETTING_ON);
  pl_emit_bool(e, "megatron_softmax", fw.megatron_softmax == PL_SETTING_ON);
  pl_emit_bool(e, "parallel_block", fw.parallel_block == PL_SETTING_ON);
  /* Transformer Engine release_v0.8's blocking amax all_reduce over dp x tp (--fp8-amax-reduce, amax29) */
  pl_emit_str(e, "fp8_amax_reduce", pl_framework_flag_value(&fw, "fp8-amax-reduce"));
  pl_emit_obj_end(e);
}

static void flops_json(struct pl_emit *e, const struct pl_flops *f) {
  pl_emit_obj_begin(e, "flops");
  pl_emit_num(e, "model_per_step", f->model_per_step);
  pl_emit_num(e, "hardware_per_step", f->hardware_per_step);
  pl_emit_num(e, "tokens_per_step", f->tokens_per_step);
  pl_emit_num(e, "megatron_per_step", f->megatron_per_step);
  pl_emit_num(e, "palm_per_step", f->palm_per_step);
  pl_emit_obj_end(e);
}

static void memory_json(struct pl_emit *e, const struct pl_memory *m) {
  pl_emit_obj_begin(e, "memory");
  pl_emit_num(e, "params_bytes", m->params_bytes);
  pl_emit_num(e, "grads_bytes", m->grads_bytes);
  pl_emit_num(e, "optimizer_bytes", m->optimizer_bytes);
  pl_emit_num(e, "activations_bytes", m->activations_bytes);
  pl_emit_num(e, "other_bytes", m->other_bytes);
  pl_emit_num(e, "total_bytes", m->total_bytes);
  pl_emit_num(e, "capacity_bytes", m->capacity_bytes);
  pl_emit_bool(e, "fits", m->fits);
  pl_emit_str(e, "why", m->fits ? NULL : m->why);
  pl_emit_int(e, "stage", m->stage);
  pl_emit_obj_end(e);
}

/* A step quantity, or null when no step was simulated. */
static void step_num(struct pl_emit *e, const struct pl_step *s, const char *key, double v) {
  if (s->simulated)
    pl_emit_num(e, key, v);
  else
    pl_emit_null(e, key);
}

static void range(struct pl_emit *e, const struct pl_band *b, const char *key, double lo, double hi) {
  if (!b->known) {
    pl_emit_null(e, key);
    return;
  }
  pl_emit_arr_begin(e, key);
  pl_emit_num(e, NULL, lo);
  pl_emit_num(e, NULL, hi);
  pl_emit_arr_end(e);
}

/* How far off the step may be (band.h): "*_range": [lo, hi] for step time,
 * throughput and MFU, and "error_band" with the class behind them; null when
 * no step was simulated or no class applies. */
static void band_json(struct pl_emit *e, const struct pl_prediction *p) {
  const struct pl_step *s = &p->step;
  struct pl_band b;
  pl_band_of(p, &b);
  struct pl_band_ranges r = {0};
  if (b.known)
    pl_band_ranges(&b, s, &r);
  range(e, &b, "step_time_s_range", r.step_time_s[0], r.step_time_s[1]);
  range(e, &b, "tokens_per_s_range", r.tokens_per_s[0], r.tokens_per_s[1]);
  range(e, &b, "mfu_range", r.mfu[0], r.mfu[1]);
  if (!b.known) {
    pl_emit_null(e, "error_band");
    return;
  }
  pl_emit_obj_begin(e, "error_band");
  pl_emit_str(e, "class", b.class_name);
  pl_emit_int(e, "published_runs", b.rows);
  range(e, &b, "measured_over_predicted", b.ratio_lo, b.ratio_hi);
  pl_emit_str(e, "source", "data/accuracy/error-bands.json (docs/accuracy.md, \"Error band\")");
  pl_emit_obj_end(e);
}

static void step_json(struct pl_emit *e, const struct pl_prediction *p) {
  const struct pl_step *s = &p->step;
  step_num(e, s, "step_time_s", s->step_time_s);
  step_num(e, s, "tokens_per_s", s->tokens_per_s);
  step_num(e, s, "tokens_per_s_per_gpu", s->tokens_per_s_per_gpu);
  step_num(e, s, "mfu", s->mfu);
  step_num(e, s, "hfu", s->hfu);
  step_num(e, s, "tflops_per_gpu", s->tflops_per_gpu);
  band_json(e, p);
  pl_emit_obj_begin(e, "breakdown");
  step_num(e, s, "compute_s", s->compute_s);
  step_num(e, s, "exposed_comm_s", s->exposed_comm_s);
  step_num(e, s, "bubble_s", s->bubble_s);
  step_num(e, s, "optimizer_s", s->optimizer_s);
  step_num(e, s, "other_s", s->other_s);
  step_num(e, s, "overlapped_comm_s", s->overlapped_comm_s);
  pl_emit_obj_end(e);
  /* compute per step by the trace's kernel categories (docs/trace.md 9.4):
   * `plateau trace compare` pairs them with a trace's; null when no step was
   * simulated or pp > 1 */
  double kc[PL_KC_N];
  if (pl_report_kernel_classes(p, kc)) {
    pl_emit_obj_begin(e, "kernel_time");
    for (int c = 0; c < PL_KC_N; c++) {
      char k[40];
      snprintf(k, sizeof k, "%s_s", pl_kernel_class_name((enum pl_kernel_class)c));
      pl_emit_num(e, k, kc[c]);
    }
    pl_emit_obj_end(e);
  } else {
    pl_emit_null(e, "kernel_time");
  }
  pl_emit_arr_begin(e, "collectives");
  for (int i = 0; s->simulated && i < s->n_collectives; i++) {
    const struct pl_coll_summary *c = &s->collectives[i];
    pl_emit_obj_begin(e, NULL);
    pl_emit_str(e, "op", c->op);
    pl_emit_str(e, "group", c->group);
    pl_emit_int(e, "count", c->count);
    pl_emit_num(e, "bytes", c->bytes);
    pl_emit_num(e, "time_s", c->time_s);
    pl_emit_num(e, "exposed_s", c->exposed_s);
    pl_emit_obj_end(e);
  }
  pl_emit_arr_end(e);
  pl_emit_obj_begin(e, "power");
  step_num(e, s, "gpu_w", s->gpu_w);
  step_num(e, s, "cluster_w", s->cluster_w);
  step_num(e, s, "energy_per_step_j", s->energy_per_step_j);
  step_num(e, s, "tokens_per_j", s->tokens_per_j);
  pl_emit_obj_end(e);
}

/* A train quantity: null when its inputs were not given or no step ran. */
static void train_num(struct pl_emit *e, const char *key, double v, bool valid) {
  if (valid)
    pl_emit_num(e, key, v);
  else
    pl_emit_null(e, key);
}

/* "train": time and cost of the --tokens budget (null when none of --tokens,
 * --gpu-hour-price, --energy-price was given). */
static void train_json(struct pl_emit *e, const struct pl_prediction *p) {
  const struct pl_train_opts *o = &p->run.train;
  const struct pl_train *t = &p->train;
  if (!(o->tokens > 0 || o->gpu_hour_usd > 0 || o->kwh_usd > 0)) {
    pl_emit_null(e, "train");
    return;
  }
  bool tok = t->has_tokens, gpu = t->has_gpu_price, kwh = t->has_energy_price;
  pl_emit_obj_begin(e, "train");
  train_num(e, "tokens", o->tokens, o->tokens > 0);
  train_num(e, "gpu_hour_usd", o->gpu_hour_usd, o->gpu_hour_usd > 0);
  train_num(e, "kwh_usd", o->kwh_usd, o->kwh_usd > 0);
  train_num(e, "steps", t->steps, tok);
  train_num(e, "time_s", t->time_s, tok);
  train_num(e, "days", t->days, tok);
  train_num(e, "gpu_hours", t->gpu_hours, tok);
  train_num(e, "cost_usd", t->cost_usd, tok && gpu);
  train_num(e, "energy_j", t->energy_j, tok);
  train_num(e, "energy_kwh", t->energy_kwh, tok);
  train_num(e, "energy_cost_usd", t->energy_cost_usd, tok && kwh);
  train_num(e, "cost_usd_per_mtok", t->usd_per_mtok, gpu);
  train_num(e, "energy_cost_usd_per_mtok", t->energy_usd_per_mtok, kwh);
  pl_emit_obj_end(e);
}

void pl_report_predict_members(struct pl_emit *e, const struct pl_prediction *p) {
  model_json(e, p);
  hardware_json(e, p);
  layout_json(e, p);
  framework_json(e, p);
  flops_json(e, &p->flops);
  memory_json(e, &p->memory);
  step_json(e, p);
  train_json(e, p);
}

void pl_report_predict_json(struct pl_emit *e, const char *key, const struct pl_prediction *p) {
  pl_emit_obj_begin(e, key);
  pl_report_predict_members(e, p);
  pl_emit_obj_end(e);
}

void pl_report_predict_ops_json(struct pl_emit *e, const char *key, const struct pl_prediction *p) {
  pl_emit_obj_begin(e, key);
  pl_report_predict_members(e, p);
  pl_report_ops_json(e, "ops", &p->run);
  pl_emit_obj_end(e);
}
