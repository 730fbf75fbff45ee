/* model_load.c: find a model by preset name or path, tell a plateau model
 * file from a Hugging Face config.json by its fields, read the plateau format
 * and check the result.
 *
 * The plateau model format (one JSON object, documented in docs/model.md
 * "Model files"): required layers, hidden, heads, ffn_hidden, vocab, seq_len,
 * mlp ("gelu" | "swiglu"), pos ("rotary" | "learned" | "alibi" | "none"), norm ("rms" | "layer");
 * optional name, source, kv_heads (= heads), head_dim (= hidden / heads),
 * max_positions (required with pos "learned"), tied_embeddings, linear_bias,
 * qkv_bias, out_bias, mlp_bias, dropout (all false), sliding_window (0),
 * published_params (0); mixture of experts and attention variants (all 0 /
 * false, struct pl_model): experts, top_k, expert_ffn, shared_ffn,
 * moe_first_dense, moe_step, router_bias, shared_gate, router_fp32, router_aux_loss,
 * q_lora_rank, kv_lora_rank, qk_rope_dim, v_head_dim, mtp_layers, full_attn_layers,
 * qk_norm, attn_sinks, glu_clamp, rope_yarn, published_active_params; hybrid
 * Mamba-2 stacks: hybrid_pattern (a string of M * - E), mamba_heads,
 * mamba_head_dim, mamba_groups, mamba_state, mamba_conv (4), mamba_chunk (128),
 * mtp_pattern (the block kinds of one MTP module, hybrid stacks only); latent
 * MoE: moe_latent (0). Unknown keys are ignored so
 * files can carry notes, except a near miss of a key above (base_json_near_miss). */
#include <plateau/alloc.h>
#include <plateau/data.h>
#include <plateau/model.h>

#include <stdio.h>
#include <string.h>

#include "model/model_int.h"

/* Copy name into m->name, truncating to fit. */
static void model_set_name(struct pl_model *m, const char *name) {
  snprintf(m->name, sizeof m->name, "%s", name);
}

static bool model_is_hf(yajl_val root) {
  static const char *const hf_keys[] = {"model_type", "num_hidden_layers", "n_layer", "hidden_size",
                                        "n_embd",     "architectures"};
  if (base_json_get(root, "layers") != NULL)
    return false;
  for (size_t i = 0; i < sizeof hf_keys / sizeof hf_keys[0]; i++)
    if (base_json_get(root, hf_keys[i]) != NULL)
      return true;
  return false;
}

/* A string field that must be one of names; its index goes to *out. */
static enum pl_status json_enum(yajl_val obj, const char *key, const char *const *names, int n,
                                const char *origin, int *out, struct pl_diag *diag) {
  char s[32] = "";
  enum pl_status st = base_json_str(obj, key, true, origin, s, sizeof s, diag);
  if (st != PL_OK)
    return st;
  for (int i = 0; i < n; i++) {
    if (strcmp(s, names[i]) == 0) {
      *out = i;
      return PL_OK;
    }
  }
  char list[128] = "";
  size_t used = 0;
  for (int i = 0; i < n && used < sizeof list; i++) {
    int w = snprintf(list + used, sizeof list - used, "%s'%s'",
                     i == 0 ? "" : (i == n - 1 ? " or " : ", "), names[i]);
    if (w < 0)
      break;
    used += (size_t)w;
  }
  return pl_diag_set(diag, PL_ERR_PARSE, "%s: field '%s' is '%s', expected %s", origin, key, s,
                     list);
}

static enum pl_status plateau_kinds(yajl_val root, const char *origin, struct pl_model *m,
                                    struct pl_diag *diag) {
  const char *const mlp_names[] = {pl_mlp_name(PL_MLP_GELU), pl_mlp_name(PL_MLP_SWIGLU)};
  const char *const pos_names[] = {pl_pos_name(PL_POS_ROTARY), pl_pos_name(PL_POS_LEARNED),
                                   pl_pos_name(PL_POS_ALIBI), pl_pos_name(PL_POS_NONE)};
  const char *const norm_names[] = {pl_norm_name(PL_NORM_RMS), pl_norm_name(PL_NORM_LAYER)};
  int mlp = 0, pos = 0, norm = 0;
  enum pl_status st = json_enum(root, "mlp", mlp_names, 2, origin, &mlp, diag);
  if (st == PL_OK)
    st = json_enum(root, "pos", pos_names, 4, origin, &pos, diag);
  if (st == PL_OK)
    st = json_enum(root, "norm", norm_names, 2, origin, &norm, diag);
  m->mlp = mlp == 0 ? PL_MLP_GELU : PL_MLP_SWIGLU;
  m->pos = pos == 0   ? PL_POS_ROTARY
           : pos == 1 ? PL_POS_LEARNED
           : pos == 2 ? PL_POS_ALIBI
                      : PL_POS_NONE;
  m->norm = norm == 0 ? PL_NORM_RMS : PL_NORM_LAYER;
  return st;
}

static enum pl_status plateau_flags(yajl_val root, const char *origin, struct pl_model *m,
                                    struct pl_diag *diag) {
  enum pl_status st =
      base_json_bool(root, "tied_embeddings", false, origin, &m->tied_embeddings, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "linear_bias", false, origin, &m->linear_bias, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "qkv_bias", false, origin, &m->qkv_bias, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "out_bias", false, origin, &m->out_bias, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "mlp_bias", false, origin, &m->mlp_bias, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "dropout", false, origin, &m->dropout, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "router_bias", false, origin, &m->router_bias, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "shared_gate", false, origin, &m->shared_gate, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "router_fp32", false, origin, &m->router_fp32, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "router_aux_loss", false, origin, &m->router_aux_loss, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "qk_norm", false, origin, &m->qk_norm, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "attn_sinks", false, origin, &m->attn_sinks, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "glu_clamp", false, origin, &m->glu_clamp, diag);
  if (st == PL_OK)
    st = base_json_bool(root, "rope_yarn", false, origin, &m->rope_yarn, diag);
  return st;
}

static enum pl_status plateau_sizes(yajl_val root, const char *origin, struct pl_model *m,
                                    struct pl_diag *diag) {
  const struct model_size f[] = {
      {"layers", true, MODEL_MAX_LAYERS, &m->layers},
      {"hidden", true, MODEL_MAX_HIDDEN, &m->hidden},
      {"heads", true, MODEL_MAX_HEADS, &m->heads},
      {"kv_heads", false, MODEL_MAX_HEADS, &m->kv_heads},
      {"head_dim", false, MODEL_MAX_QKV_WIDTH, &m->head_dim},
      {"ffn_hidden", true, MODEL_MAX_FFN, &m->ffn_hidden},
      {"vocab", true, MODEL_MAX_VOCAB, &m->vocab},
      {"seq_len", true, MODEL_MAX_SEQ, &m->seq_len},
      {"max_positions", false, MODEL_MAX_SEQ, &m->max_positions},
      {"sliding_window", false, MODEL_MAX_SEQ, &m->sliding_window},
      {"published_params", false, INT64_MAX, &m->published_params},
      {"published_active_params", false, INT64_MAX, &m->published_active_params},
      {"experts", false, MODEL_MAX_EXPERTS, &m->experts},
      {"top_k", false, MODEL_MAX_EXPERTS, &m->top_k},
      {"expert_ffn", false, MODEL_MAX_FFN, &m->expert_ffn},
      {"shared_ffn", false, MODEL_MAX_FFN, &m->shared_ffn},
      {"moe_first_dense", false, MODEL_MAX_LAYERS, &m->moe_first_dense},
      {"moe_step", false, MODEL_MAX_LAYERS, &m->moe_step},
      {"q_lora_rank", false, MODEL_MAX_HIDDEN, &m->q_lora_rank},
      {"kv_lora_rank", false, MODEL_MAX_HIDDEN, &m->kv_lora_rank},
      {"qk_rope_dim", false, MODEL_MAX_HIDDEN, &m->qk_rope_dim},
      {"v_head_dim", false, MODEL_MAX_QKV_WIDTH, &m->v_head_dim},
      {"mtp_layers", false, MODEL_MAX_LAYERS, &m->mtp_layers},
      {"full_attn_layers", false, MODEL_MAX_LAYERS, &m->full_attn_layers},
      {"mamba_heads", false, MODEL_MAX_HIDDEN, &m->mamba_heads},
      {"mamba_head_dim", false, MODEL_MAX_HIDDEN, &m->mamba_head_dim},
      {"mamba_groups", false, MODEL_MAX_HIDDEN, &m->mamba_groups},
      {"mamba_state", false, MODEL_MAX_HIDDEN, &m->mamba_state},
      {"mamba_conv", false, MODEL_MAX_HIDDEN, &m->mamba_conv},
      {"mamba_chunk", false, MODEL_MAX_SEQ, &m->mamba_chunk},
      {"moe_latent", false, MODEL_MAX_HIDDEN, &m->moe_latent},
  };
  return model_json_sizes(root, f, sizeof f / sizeof f[0], origin, diag);
}

/* Defaults that depend on other fields, then the consistency checks. */
static enum pl_status plateau_finish(const char *origin, struct pl_model *m, struct pl_diag *diag) {
  if (m->kv_heads == 0)
    m->kv_heads = m->heads;
  if (m->head_dim == 0) {
    if (m->hidden % m->heads != 0)
      return pl_diag_set(diag, PL_ERR_RANGE,
                         "%s: hidden %lld is not divisible by heads %lld: give 'head_dim'", origin,
                         (long long)m->hidden, (long long)m->heads);
    m->head_dim = m->hidden / m->heads;
  }
  if (m->pos == PL_POS_LEARNED && m->max_positions == 0)
    return pl_diag_set(diag, PL_ERR_MISSING,
                       "%s: missing field 'max_positions' (required with pos \"learned\")", origin);
  model_mamba_defaults(m);
  return PL_OK;
}

static enum pl_status check_size(const struct pl_model *m, const char *what, int64_t v, int64_t max,
                                 struct pl_diag *diag) {
  if (v <= 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "model '%s': %s must be positive, not %lld", m->name,
                       what, (long long)v);
  if (v > max)
    return pl_diag_set(diag, PL_ERR_RANGE, "model '%s': %s %lld is above the limit %lld", m->name,
                       what, (long long)v, (long long)max);
  return PL_OK;
}

/* Mixture of experts: top_k within the experts, the experts' total width
 * within the limit (model_int.h); multi-head latent attention: the rope part
 * inside the head. */
static enum pl_status check_moe(const struct pl_model *m, struct pl_diag *diag) {
  if (m->experts < 0 || m->top_k < 0 || m->expert_ffn < 0 || m->shared_ffn < 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "model '%s': expert sizes must not be negative",
                       m->name);
  if (m->experts == 0)
    return m->top_k == 0 ? PL_OK
                         : pl_diag_set(diag, PL_ERR_RANGE,
                                       "model '%s': top_k %lld without experts", m->name,
                                       (long long)m->top_k);
  if (m->top_k > m->experts)
    return pl_diag_set(diag, PL_ERR_RANGE, "model '%s': top_k %lld is above the experts (%lld)",
                       m->name, (long long)m->top_k, (long long)m->experts);
  enum pl_status st = check_size(m, "top_k", m->top_k, m->experts, diag);
  if (st == PL_OK)
    st = check_size(m, "expert_ffn", m->expert_ffn, MODEL_MAX_FFN, diag);
  if (st == PL_OK && m->experts * m->expert_ffn > MODEL_MAX_FFN)
    st = pl_diag_set(diag, PL_ERR_RANGE,
                     "model '%s': experts * expert_ffn = %lld is above the limit %lld", m->name,
                     (long long)(m->experts * m->expert_ffn), (long long)MODEL_MAX_FFN);
  return st;
}

static enum pl_status check_variants(const struct pl_model *m, struct pl_diag *diag) {
  enum pl_status st = check_moe(m, diag);
  if (st == PL_OK)
    st = model_hybrid_check(m, diag);
  if (st == PL_OK)
    st = model_moe_latent_check(m, diag);
  if (st != PL_OK)
    return st;
  if (m->kv_lora_rank > 0 && m->qk_rope_dim >= m->head_dim)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': qk_rope_dim %lld must be below head_dim %lld (latent "
                       "attention: head_dim = nope + rope part)",
                       m->name, (long long)m->qk_rope_dim, (long long)m->head_dim);
  if (m->full_attn_layers < 0 || m->full_attn_layers > m->layers || m->mtp_layers < 0 ||
      m->moe_first_dense < 0 || m->moe_step < 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': full_attn_layers, mtp_layers, moe_first_dense and moe_step "
                       "must be between 0 and the layers",
                       m->name);
  return PL_OK;
}

enum pl_status pl_model_check(const struct pl_model *m, struct pl_diag *diag) {
  const struct {
    const char *what;
    int64_t v, max;
  } f[] = {
      {"layers", m->layers, MODEL_MAX_LAYERS},        {"hidden", m->hidden, MODEL_MAX_HIDDEN},
      {"heads", m->heads, MODEL_MAX_HEADS},           {"kv_heads", m->kv_heads, MODEL_MAX_HEADS},
      {"head_dim", m->head_dim, MODEL_MAX_QKV_WIDTH}, {"ffn_hidden", m->ffn_hidden, MODEL_MAX_FFN},
      {"vocab", m->vocab, MODEL_MAX_VOCAB},           {"seq_len", m->seq_len, MODEL_MAX_SEQ},
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    enum pl_status st = check_size(m, f[i].what, f[i].v, f[i].max, diag);
    if (st != PL_OK)
      return st;
  }
  if (m->heads % m->kv_heads != 0)
    return pl_diag_set(diag, PL_ERR_RANGE, "model '%s': kv_heads %lld must divide heads %lld",
                       m->name, (long long)m->kv_heads, (long long)m->heads);
  if (m->heads * m->head_dim > MODEL_MAX_QKV_WIDTH)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': heads * head_dim = %lld is above the limit %lld", m->name,
                       (long long)(m->heads * m->head_dim), (long long)MODEL_MAX_QKV_WIDTH);
  enum pl_status st = check_variants(m, diag);
  if (st != PL_OK)
    return st;
  if (m->pos == PL_POS_LEARNED)
    return check_size(m, "max_positions (learned positions)", m->max_positions, MODEL_MAX_SEQ,
                      diag);
  if (m->sliding_window < 0 || m->max_positions < 0)
    return pl_diag_set(diag, PL_ERR_RANGE,
                       "model '%s': sliding_window and max_positions must not be negative",
                       m->name);
  return PL_OK;
}

/* Every key model_from_plateau reads (the header comment's list). */
static const char *const model_keys[] = {
    "name", "source", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab",
    "seq_len", "mlp", "pos", "norm", "max_positions", "tied_embeddings", "linear_bias",
    "qkv_bias", "out_bias", "mlp_bias", "dropout", "sliding_window", "published_params",
    "published_active_params", "experts", "top_k", "expert_ffn", "shared_ffn",
    "moe_first_dense", "moe_step", "router_bias", "shared_gate", "router_fp32",
    "router_aux_loss", "q_lora_rank", "kv_lora_rank", "qk_rope_dim", "v_head_dim", "mtp_layers",
    "full_attn_layers", "qk_norm", "attn_sinks", "glu_clamp", "rope_yarn", "hybrid_pattern",
    "mamba_heads", "mamba_head_dim", "mamba_groups", "mamba_state", "mamba_conv", "mamba_chunk",
    "mtp_pattern", "moe_latent"};

static enum pl_status model_from_plateau(yajl_val root, const char *origin, struct pl_model *m,
                                         struct pl_diag *diag) {
  enum pl_status st = base_json_near_miss(root, model_keys, sizeof model_keys / sizeof model_keys[0],
                                          origin, diag); /* "kv_head": kv_heads would default */
  if (st == PL_OK)
    st = base_json_str(root, "name", false, origin, m->name, sizeof m->name, diag);
  if (st == PL_OK)
    st = base_json_str(root, "hybrid_pattern", false, origin, m->hybrid_pattern,
                       sizeof m->hybrid_pattern, diag);
  if (st == PL_OK)
    st = base_json_str(root, "mtp_pattern", false, origin, m->mtp_pattern, sizeof m->mtp_pattern,
                       diag);
  if (st == PL_OK)
    st = plateau_sizes(root, origin, m, diag);
  if (st == PL_OK)
    st = plateau_kinds(root, origin, m, diag);
  if (st == PL_OK)
    st = plateau_flags(root, origin, m, diag);
  if (st == PL_OK)
    st = plateau_finish(origin, m, diag);
  return st;
}

/* Parse, name (fallback when the document gives no name), check. */
static enum pl_status model_parse(const char *text, size_t len, const char *origin,
                                  const char *fallback, struct pl_model *out,
                                  struct pl_diag *diag) {
  yajl_val root = NULL;
  enum pl_status st = base_json_parse(text, len, origin, &root, diag);
  if (st != PL_OK)
    return st;
  struct pl_model m;
  memset(&m, 0, sizeof m);
  if (model_is_hf(root))
    st = model_from_hf(root, origin, &m, diag);
  else
    st = model_from_plateau(root, origin, &m, diag);
  base_json_free(root);
  if (st != PL_OK)
    return st;
  if (m.name[0] == '\0')
    model_set_name(&m, fallback);
  st = pl_model_check(&m, diag);
  if (st == PL_OK)
    *out = m;
  return st;
}

enum pl_status pl_model_from_json(const char *text, size_t len, const char *origin,
                                  struct pl_model *out, struct pl_diag *diag) {
  return model_parse(text, len, origin, "model", out, diag);
}

/* A name for a model read from a file: "Llama-2-7b-hf" for
 * ".../Llama-2-7b-hf/config.json", else the file name without ".json". */
static void name_from_path(const char *path, char *name, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if (strcmp(base, "config.json") == 0 && base > path + 1) {
    const char *end = base - 1, *start = end;
    while (start > path && start[-1] != '/')
      start--;
    snprintf(name, n, "%.*s", (int)(end - start), start);
    return;
  }
  size_t len = strlen(base);
  if (len > 5 && strcmp(base + len - 5, ".json") == 0)
    len -= 5;
  snprintf(name, n, "%.*s", (int)len, base);
}

static enum pl_status load_file(const char *path, struct pl_model *out, struct pl_diag *diag) {
  char *text = NULL;
  size_t len = 0;
  enum pl_status st = base_read_file(path, BASE_JSON_MAX_BYTES, &text, &len, diag);
  if (st != PL_OK)
    return st;
  char origin[300], name[64];
  snprintf(origin, sizeof origin, "model '%s'", path);
  name_from_path(path, name, sizeof name);
  st = model_parse(text, len, origin, name, out, diag);
  pl_free(text);
  return st;
}

/* The preset names, comma-separated, as many whole names as fit in about
 * 240 characters (the message is one struct pl_diag line of 512, with the
 * name and the "did you mean" hint); then "..." and where the rest is. */
static void preset_list(char *list, size_t size) {
  const char *more = ", ... (plateau list models)";
  size_t room = size - strlen(more) - 1;
  list[0] = '\0';
  for (size_t i = 0; pl_data_name("models", i) != NULL; i++) {
    const char *n = pl_data_name("models", i);
    if (strlen(list) + 2 + strlen(n) > room) {
      strncat(list, more, size - strlen(list) - 1);
      return;
    }
    if (i > 0)
      strncat(list, ", ", size - strlen(list) - 1);
    strncat(list, n, size - strlen(list) - 1);
  }
}

static enum pl_status unknown_preset(const char *name, struct pl_diag *diag) {
  char list[272];
  preset_list(list, sizeof list);
  char hint[160];
  bool near = pl_data_hint("models", name, hint, sizeof hint);
  return pl_diag_set(diag, PL_ERR_UNKNOWN,
                     "unknown model '%s' (presets: %s; or give the path of a plateau model file or "
                     "a Hugging Face config.json)%s%s",
                     name, list, near ? "; " : "", hint);
}

static bool looks_like_path(const char *s) {
  size_t n = strlen(s);
  return strchr(s, '/') != NULL || (n > 5 && strcmp(s + n - 5, ".json") == 0);
}

static bool file_exists(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL)
    return false;
  fclose(f);
  return true;
}

/* Names of released models whose config.json gives the same plateau model as
 * a preset (every field plateau reads is equal): the name loads the preset.
 * Llama 3.1 8B/70B differ from Llama 3 8B/70B only in max_position_embeddings
 * (131072 vs 8192) and rope_scaling (rope_type llama3, factor 8,
 * original_max_position_embeddings 8192: the same 8,192-token training length,
 * no YaRN), as Megatron-Bridge v0.3.1 llama_provider.py Llama31ModelProvider8B /
 * 70B vs Llama3ModelProvider8B / 70B also state (tests/unit/test_presets18.c
 * reads the Llama-3.1-8B config); the llama3-405b preset is Llama 3.1 405B. */
static const char *model_alias(const char *name) {
  static const struct {
    const char *alias, *preset;
  } aliases[] = {
      {"llama3.1-8b", "llama3-8b"},
      {"llama3.1-70b", "llama3-70b"},
      {"llama3.1-405b", "llama3-405b"},
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(name, aliases[i].alias) == 0)
      return aliases[i].preset;
  return name;
}

enum pl_status pl_model_load(const char *name_or_path, struct pl_model *out, struct pl_diag *diag) {
  if (name_or_path == NULL || name_or_path[0] == '\0')
    return pl_diag_set(diag, PL_ERR_MISSING, "no model given: name a preset or a model file");
  if (name_or_path[0] == '{') /* a model file's JSON itself (validate's "command" writes it) */
    return model_parse(name_or_path, strlen(name_or_path), "inline model JSON", "model", out, diag);
  if (looks_like_path(name_or_path))
    return load_file(name_or_path, out, diag);
  size_t len = 0;
  const char *text = pl_data_find("models", model_alias(name_or_path), &len);
  if (text == NULL)
    return file_exists(name_or_path) ? load_file(name_or_path, out, diag)
                                     : unknown_preset(name_or_path, diag);
  char origin[128];
  snprintf(origin, sizeof origin, "model preset '%s'", name_or_path);
  return model_parse(text, len, origin, name_or_path, out, diag);
}
