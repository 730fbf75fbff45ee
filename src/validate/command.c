/* command.c: the `plateau predict` command line that reproduces a validation
 * row's prediction (validate --format json key "command", CSV column
 * "command").
 *
 * The row's run as pl_predict resolved it, written out as predict's flags:
 * the model (its preset name when the preset is the same model, else the
 * model inline as plateau model-file JSON, which --model reads when the
 * argument starts with '{'), the GPU and cluster presets, every layout value
 * and every framework behaviour as it ran (pl_framework_resolved), so the
 * loader's per-row settings (cuDNN release, userbuffers SM margins, recompute
 * modules, ...) are all on the line. The flag table below follows
 * src/cli/run_opts.c load_behaviours (flag name and words); tests/cli/
 * validate_command.sh runs printed commands and compares step_time_s, so a
 * flag that drifts fails there. */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "validate_int.h"

struct buf {
  char *s;
  size_t n, len;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...) {
  if (b->len >= b->n)
    return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->s + b->len, b->n - b->len, fmt, ap);
  va_end(ap);
  if (k > 0)
    b->len += (size_t)k;
}

/* A name or string for a single-quoted shell word: quotes and backslashes
 * would end it or escape JSON, so they become '_'. */
static void put_word(struct buf *b, const char *s) {
  for (; *s != '\0' && b->len + 1 < b->n; s++) {
    char c = (*s == '\'' || *s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? '_' : *s;
    b->s[b->len++] = c;
    b->s[b->len] = '\0';
  }
}

/* ---------------------------------------------------------------- model */

/* The model as a plateau model file (src/model/model_load.c reads every
 * key written here). */
static void model_json(struct buf *b, const struct pl_model *m) {
  put(b, "{\"name\":\"");
  put_word(b, m->name);
  put(b, "\",\"mlp\":\"%s\",\"pos\":\"%s\",\"norm\":\"%s\"", pl_mlp_name(m->mlp),
      pl_pos_name(m->pos), pl_norm_name(m->norm));
  if (m->hybrid_pattern[0] != '\0') {
    put(b, ",\"hybrid_pattern\":\"");
    put_word(b, m->hybrid_pattern);
    put(b, "\"");
  }
  const struct {
    const char *key;
    int64_t v;
  } sizes[] = {
      {"layers", m->layers},           {"hidden", m->hidden},
      {"heads", m->heads},             {"kv_heads", m->kv_heads},
      {"head_dim", m->head_dim},       {"ffn_hidden", m->ffn_hidden},
      {"vocab", m->vocab},             {"seq_len", m->seq_len},
      {"max_positions", m->max_positions}, {"sliding_window", m->sliding_window},
      {"published_params", m->published_params},
      {"published_active_params", m->published_active_params},
      {"experts", m->experts},         {"top_k", m->top_k},
      {"expert_ffn", m->expert_ffn},   {"shared_ffn", m->shared_ffn},
      {"moe_first_dense", m->moe_first_dense}, {"moe_step", m->moe_step},
      {"q_lora_rank", m->q_lora_rank}, {"kv_lora_rank", m->kv_lora_rank},
      {"qk_rope_dim", m->qk_rope_dim}, {"v_head_dim", m->v_head_dim},
      {"mtp_layers", m->mtp_layers},   {"full_attn_layers", m->full_attn_layers},
      {"mamba_heads", m->mamba_heads}, {"mamba_head_dim", m->mamba_head_dim},
      {"mamba_groups", m->mamba_groups}, {"mamba_state", m->mamba_state},
      {"mamba_conv", m->mamba_conv},   {"mamba_chunk", m->mamba_chunk},
  };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (sizes[i].v != 0)
      put(b, ",\"%s\":%" PRId64, sizes[i].key, sizes[i].v);
  const struct {
    const char *key;
    bool v;
  } flags[] = {
      {"tied_embeddings", m->tied_embeddings}, {"linear_bias", m->linear_bias},
      {"qkv_bias", m->qkv_bias},       {"out_bias", m->out_bias},
      {"mlp_bias", m->mlp_bias},       {"dropout", m->dropout},
      {"router_bias", m->router_bias}, {"shared_gate", m->shared_gate},
      {"router_fp32", m->router_fp32}, {"qk_norm", m->qk_norm},
      {"attn_sinks", m->attn_sinks},   {"glu_clamp", m->glu_clamp},
      {"rope_yarn", m->rope_yarn},
  };
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    put(b, ",\"%s\":%s", flags[i].key, flags[i].v ? "true" : "false");
  put(b, "}");
}

/* --model: the preset's name when the preset writes the same JSON, else the
 * JSON itself. */
static void model_arg(struct buf *b, const struct pl_model *m) {
  char own[2048], preset[2048];
  struct buf o = {own, sizeof own, 0}, p = {preset, sizeof preset, 0};
  own[0] = preset[0] = '\0';
  model_json(&o, m);
  struct pl_model pm;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (m->name[0] != '\0' && strchr(m->name, '/') == NULL &&
      pl_model_load(m->name, &pm, &d) == PL_OK) {
    model_json(&p, &pm);
    if (strcmp(own, preset) == 0) {
      put(b, " --model %s", m->name);
      return;
    }
  }
  put(b, " --model '%s'", own);
}

/* ----------------------------------------------------------------- layout */

static void layout_args(struct buf *b, const struct pl_layout *l, const struct pl_model *m) {
  put(b,
      " --gpus %" PRId64 " --tp %" PRId64 " --pp %" PRId64 " --cp %" PRId64 " --vp %" PRId64
      " --seq %" PRId64 " --mbs %" PRId64 " --gbs %" PRId64 " --shard %s",
      l->gpus, l->tp, l->pp, l->cp, l->vp, l->seq, l->mbs, l->gbs, pl_shard_name(l->shard));
  if (l->shard_group > 0 && l->shard_group != l->dp)
    put(b, " --shard-group %" PRId64, l->shard_group);
  put(b, " --dtype %s --schedule %s --recompute %s", pl_layout_dtype_name(l),
      pl_schedule_name(l->schedule), pl_recompute_name(l->recompute));
  if (l->recompute == PL_RECOMPUTE_SELECTIVE && l->recompute_modules != 0) {
    put(b, " --recompute-modules ");
    const char *sep = "";
    for (int bit = 0; bit < 32; bit++)
      if ((l->recompute_modules & (1u << bit)) != 0 && pl_recompute_module_name(bit) != NULL) {
        put(b, "%s%s", sep, pl_recompute_module_name(bit));
        sep = ",";
      }
  }
  if (l->recompute == PL_RECOMPUTE_FULL && l->recompute_uniform)
    put(b, " --recompute-method uniform");
  const struct {
    const char *flag;
    int64_t v;
  } counts[] = {
      {"recompute-layers", l->recompute_layers}, {"recompute-every", l->recompute_every},
      {"first-stage-layers", l->first_stage_layers}, {"last-stage-layers", l->last_stage_layers},
      {"mtp-layers", l->mtp_layers}, {"act-offload-layers", l->act_offload_layers},
  };
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
    if (counts[i].v > 0)
      put(b, " --%s %" PRId64, counts[i].flag, counts[i].v);
  if (l->account_embed_loss)
    put(b, " --account-embed-loss on");
  if (l->pipeline_layout[0] != '\0') {
    put(b, " --pipeline-layout '");
    put_word(b, l->pipeline_layout);
    put(b, "'");
  }
  if (pl_model_is_moe(m))
    put(b, " --ep %" PRId64 " --etp %" PRId64 " --moe-dispatch %s --moe-imbalance %.17g", l->ep,
        l->etp, pl_moe_dispatch_name(l->dispatch), l->moe_imbalance);
  char list[160];
  if (l->offload_modules != 0) {
    pl_offload_modules_format(l->offload_modules, list, sizeof list);
    put(b, " --offload-modules %s", list);
  }
  if (l->cuda_graph_scopes != 0) {
    pl_cuda_graph_scopes_format(l->cuda_graph_scopes, list, sizeof list);
    put(b, " --cuda-graph-scope %s", list);
  }
}

/* -------------------------------------------------------------- framework */

/* Every behaviour flag of predict, by the framework field it sets
 * (src/cli/run_opts.c load_behaviours): the word for on, the word for off. */
static const struct {
  const char *flag;
  size_t off;
  const char *on, *off_word;
} behaviours[] = {
#define FW(f) offsetof(struct pl_framework, f)
    {"kernels", FW(fused_kernels), "fused", "unfused"},
    {"fsdp-comm", FW(fsdp_separate_comms), "separate", "one"},
    {"fsdp-prefetch", FW(fsdp_prefetch), "on", "off"},
    {"sequence-parallel", FW(sequence_parallel), "on", "off"},
    {"tp-comm-overlap", FW(tp_comm_overlap), "on", "off"},
    {"overlap-grad-reduce", FW(overlap_grad_reduce), "on", "off"},
    {"overlap-param-gather", FW(overlap_param_gather), "on", "off"},
    {"overlap-p2p", FW(overlap_p2p), "on", "off"},
    {"p2p-serial", FW(p2p_serial), "on", "off"},
    {"p2p-scatter-gather", FW(p2p_scatter_gather), "on", "off"},
    {"shard-grads-reduce-dtype", FW(shard_grads_reduce_dtype), "on", "off"},
    {"grad-reduce-dtype", FW(grad_reduce_fp32), "fp32", "bf16"},
    {"zero1-grad-reduce", FW(zero1_grad_all_reduce), "all-reduce", "reduce-scatter"},
    {"grad-accum", FW(grad_accum_fp32_copy), "fp32-copy", "in-place"},
    {"fp8-weight-cache", FW(fp8_weight_cache), "on", "off"},
    {"fsdp-pp-unsharded", FW(fsdp_pp_unsharded), "on", "off"},
    {"head-16bit", FW(head_16bit), "on", "off"},
    {"te-cross-entropy", FW(te_cross_entropy), "on", "off"},
    {"megatron-xent", FW(megatron_xent), "on", "off"},
    {"fsdp-block-units", FW(fsdp_block_units), "on", "off"},
    {"adam-moments-dtype", FW(adam_moments_bf16), "bf16", "fp32"},
    {"te-linear-bwd-overlap", FW(te_linear_bwd_overlap), "on", "off"},
    {"moe-host-sync", FW(moe_host_sync), "on", "off"},
    {"launch-blocking", FW(launch_blocking), "on", "off"},
    {"ep-comm-overlap", FW(ep_comm_overlap), "on", "off"},
    {"zero3-grad-reduce", FW(zero3_grad_all_reduce), "all-reduce", "reduce-scatter"},
    {"fp8-all-gather", FW(fp8_all_gather), "on", "off"},
    {"zero3-reuse", FW(zero3_reuse), "on", "off"},
    {"zero3-debug-norm", FW(zero3_debug_norm), "on", "off"},
    {"fp8-attention", FW(fp8_attention), "on", "off"},
    {"nvfp4-rht-unfused", FW(nvfp4_rht_unfused), "on", "off"},
    {"fused-grouped-mlp", FW(fused_grouped_mlp), "on", "off"},
    {"tp-seq-copies", FW(tp_seq_copies), "on", "off"},
    {"cp-allgather", FW(cp_allgather), "on", "off"},
    {"async-tp", FW(async_tp), "on", "off"},
    {"grad-accum-fusion", FW(grad_accum_fusion), "on", "off"},
#undef FW
};

static void framework_args(struct buf *b, const struct pl_prediction *p) {
  const struct pl_layout *l = &p->run.layout;
  struct pl_framework fw;
  pl_framework_resolved(&p->run.framework, l, &fw);
  if (p->run.framework.name[0] != '\0') {
    put(b, " --framework ");
    put_word(b, p->run.framework.name);
  }
  put(b, " --attention %s", pl_attention_name(fw.attention));
  for (size_t i = 0; i < sizeof behaviours / sizeof behaviours[0]; i++) {
    enum pl_setting v = *(const enum pl_setting *)((const char *)&fw + behaviours[i].off);
    if (v != PL_SETTING_UNSET)
      put(b, " --%s %s", behaviours[i].flag, v == PL_SETTING_ON ? behaviours[i].on
                                                                 : behaviours[i].off_word);
  }
  char cudnn[16];
  pl_cudnn_version_str(l->cudnn_version, cudnn, sizeof cudnn);
  put(b, " --cudnn %s", cudnn);
  if (l->logit_metric_passes > 0) /* the flag takes 1..16; absent = none */
    put(b, " --logit-metric-passes %" PRId64, l->logit_metric_passes);
  put(b, " --cudnn-cluster-margin %" PRId64 " --ub-proj-fprop-sms %" PRId64
         " --ub-fc2-fprop-sms %" PRId64,
      l->cudnn_cluster_margin, l->ub_proj_fprop_sms, l->ub_fc2_fprop_sms);
  const struct {
    const char *flag;
    double s;
  } times[] = {
      {"host-per-kernel", l->host_per_kernel_s}, {"host-per-gemm", l->host_per_gemm_s},
      {"host-per-launch", l->host_per_launch_s}, {"zero3-list-copy", l->zero3_list_copy_s},
  };
  for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
    put(b, " --%s '%.17g s'", times[i].flag, times[i].s);
  if (l->bucket_dp_scaled)
    put(b, " --bucket-mb megatron");
  else if (l->bucket_bytes > 0)
    put(b, " --bucket-mb %.17g", l->bucket_bytes / (1024.0 * 1024.0));
}

void validate_command(const struct pl_prediction *p, const char *cluster, char *out, size_t n) {
  struct buf b = {out, n, 0};
  if (n == 0)
    return;
  out[0] = '\0';
  put(&b, "plateau predict");
  model_arg(&b, &p->run.model);
  put(&b, " --gpu ");
  put_word(&b, p->run.cluster.gpu.name);
  put(&b, " --cluster ");
  put_word(&b, cluster);
  layout_args(&b, &p->run.layout, &p->run.model);
  framework_args(&b, p);
}
