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
 * modules, ...) are all on the line, and what the loader changed in the
 * cluster and GPU presets (power cap, HBM, NIC bandwidth, SHARP, the NVLink
 * segment). The framework and hardware flags come from the tables the CLI
 * reads them with (include/plateau/run_flags.h), so the two cannot drift;
 * tests/cli/validate_command.sh runs printed commands of every source and
 * compares step_time_s. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <plateau/run_flags.h>

#include "base/flag_text.h"
#include "validate_int.h"

/* ---------------------------------------------------------------- model */

/* The model as a plateau model file (src/model/model_load.c reads every
 * key written here). */
static void model_json(struct flag_text *b, const struct pl_model *m) {
  flag_text_put(b, "{\"name\":\"");
  flag_text_word(b, m->name);
  flag_text_put(b, "\",\"mlp\":\"%s\",\"pos\":\"%s\",\"norm\":\"%s\"", pl_mlp_name(m->mlp),
      pl_pos_name(m->pos), pl_norm_name(m->norm));
  if (m->hybrid_pattern[0] != '\0') {
    flag_text_put(b, ",\"hybrid_pattern\":\"");
    flag_text_word(b, m->hybrid_pattern);
    flag_text_put(b, "\"");
  }
  /* the MTP module's block kinds (hybrid stacks with mtp_layers: model_load.c
   * refuses mtp_layers without it) */
  if (m->mtp_pattern[0] != '\0') {
    flag_text_put(b, ",\"mtp_pattern\":\"");
    flag_text_word(b, m->mtp_pattern);
    flag_text_put(b, "\"");
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
      {"moe_latent", m->moe_latent},
      {"mamba_heads", m->mamba_heads}, {"mamba_head_dim", m->mamba_head_dim},
      {"mamba_groups", m->mamba_groups}, {"mamba_state", m->mamba_state},
      {"mamba_conv", m->mamba_conv},   {"mamba_chunk", m->mamba_chunk},
  };
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (sizes[i].v != 0)
      flag_text_put(b, ",\"%s\":%" PRId64, sizes[i].key, sizes[i].v);
  const struct {
    const char *key;
    bool v;
  } flags[] = {
      {"tied_embeddings", m->tied_embeddings}, {"linear_bias", m->linear_bias},
      {"qkv_bias", m->qkv_bias},       {"out_bias", m->out_bias},
      {"mlp_bias", m->mlp_bias},       {"dropout", m->dropout},
      {"router_bias", m->router_bias}, {"shared_gate", m->shared_gate},
      {"router_fp32", m->router_fp32}, {"router_aux_loss", m->router_aux_loss},
      {"qk_norm", m->qk_norm},
      {"attn_sinks", m->attn_sinks},   {"glu_clamp", m->glu_clamp},
      {"rope_yarn", m->rope_yarn},
  };
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    flag_text_put(b, ",\"%s\":%s", flags[i].key, flags[i].v ? "true" : "false");
  flag_text_put(b, "}");
}

/* --model: the preset's name when the preset writes the same JSON, else the
 * JSON itself. */
static void model_arg(struct flag_text *b, const struct pl_model *m) {
  char own[2048], preset[2048];
  struct flag_text o = {own, sizeof own, 0}, p = {preset, sizeof preset, 0};
  own[0] = preset[0] = '\0';
  model_json(&o, m);
  struct pl_model pm;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (m->name[0] != '\0' && strchr(m->name, '/') == NULL &&
      pl_model_load(m->name, &pm, &d) == PL_OK) {
    model_json(&p, &pm);
    if (strcmp(own, preset) == 0) {
      flag_text_put(b, " --model %s", m->name);
      return;
    }
  }
  flag_text_put(b, " --model '%s'", own);
}

/* -------------------------------------------------------------- framework */

/* The framework as it ran: every behaviour, resolved (pl_framework_resolved). */
static void framework_args(struct flag_text *b, const struct pl_prediction *p) {
  struct pl_framework fw;
  pl_framework_resolved(&p->run.framework, &p->run.layout, &fw);
  size_t at = b->need < b->n ? b->need : b->n;
  b->need += pl_framework_flags_format(&fw, b->s + at, b->n - at);
}

/* What the row's loader changed in the cluster and GPU presets (the same
 * loading as the CLI's: the cluster, then the run's GPU when it differs),
 * and the NCCL release when the cluster's is not the preset's. */
static enum pl_status hardware_args(struct flag_text *b, const struct pl_cluster *c,
                                    const char *cluster, const char *gpu) {
  struct pl_cluster base;
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_cluster_load(cluster, &base, &d);
  if (st == PL_OK && gpu != NULL) /* validate --gpu FILE: the file's figures are the base */
    st = pl_gpu_load(gpu, &base.gpu, &d);
  else if (st == PL_OK && strcmp(base.gpu.name, c->gpu.name) != 0)
    st = pl_gpu_load(c->gpu.name, &base.gpu, &d);
  if (st != PL_OK) /* validate loaded both for this row: only memory can fail here */
    return st;
  size_t at = b->need < b->n ? b->need : b->n;
  b->need += pl_cluster_flags_format(c, &base, b->s + at, b->n - at);
  if (c->nccl_version != base.nccl_version && c->nccl_version > 0) {
    char v[32];
    pl_nccl_version_str(c->nccl_version, v, sizeof v);
    flag_text_put(b, " --nccl-version %s", v);
  }
  return PL_OK;
}

enum pl_status validate_command(const struct pl_prediction *p, const char *cluster,
                                const char *gpu, char *out, size_t n) {
  struct flag_text b = {out, n, 0};
  if (n == 0)
    return PL_OK;
  out[0] = '\0';
  flag_text_put(&b, "plateau predict");
  model_arg(&b, &p->run.model);
  flag_text_put(&b, " --gpu ");
  flag_text_word(&b, gpu != NULL ? gpu : p->run.cluster.gpu.name);
  flag_text_put(&b, " --cluster ");
  flag_text_word(&b, cluster);
  enum pl_status st = hardware_args(&b, &p->run.cluster, cluster, gpu);
  size_t at = b.need < b.n ? b.need : b.n;
  b.need += pl_layout_flags_format(&p->run.layout, pl_model_is_moe(&p->run.model), b.s + at,
                                   b.n - at);
  framework_args(&b, p);
  return st;
}
