/* source_generic.c: a row of the user's own runs (data/validation/README.md,
 * "Your own runs"). A record whose `source` cell matches no built-in source
 * (sources.c) is read by these rules instead of being skipped; built-in rows
 * never come here, so their predictions do not move. Every value a row leaves
 * open is said in its notes (assumed), and every refusal names the column to
 * add:
 *   framework  the `framework` column names a data/frameworks preset: its
 *              name in any case or punctuation ("Megatron-Core", "NeMo"), or
 *              an alias below; validate --framework replaces it
 *   model      the `model` column names a data/models preset the same way
 *              ("Llama 3.1 70B" = llama3-70b: Llama 3.1 has Llama 3's
 *              dimensions), or holds a model as predict --model takes it
 *              (JSON text, a model file or HF config.json), else the
 *              dimension columns build it with the family of an
 *              `architecture` column (gpt or llama); `vocab_padding` says
 *              how the run padded its vocabulary (generic_vocab_padding)
 *   hardware   the gpu column as for every source (row.c); an optional
 *              `cluster` column names a cluster preset holding that GPU
 *   layout     the common columns as row.c reads them, ep and etp, sharding
 *              empty = the framework preset's default; shard_group, moe_imbalance,
 *              moe_dispatch; framework_flags, hardware_flags and layout_flags
 *              (predict's flags)
 *   metric     the first non-empty of step_time_s, tokens_per_s_per_gpu,
 *              tokens_per_s, mfu, tflops_per_gpu
 * Nothing here looks at a prediction: only the run's description is built. */
#include <stdio.h>
#include <string.h>

#include <plateau/data.h>
#include <plateau/flops.h>
#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/layout.h>
#include <plateau/model.h>
#include <plateau/run_flags.h>

#include "validate/validate_int.h"

/* ------------------------------------------------------------ framework */

/* Names users write for a framework whose preset is named otherwise (squashed:
 * lowercase letters and digits). A preset's own name in any spelling needs no
 * entry ("Megatron-Core" = megatron-core). */
static const struct {
  const char *alias;
  const char *preset;
} framework_aliases[] = {
    {"mcore", "megatron-core"},
    /* Megatron-Bridge runs Megatron-Core with NeMo's performance settings: the
     * bridge entry of sources.c predicts its published rows with the nemo preset */
    {"megatronbridge", "nemo"},
    {"nemo2", "nemo"},
    /* the deepspeed preset is Megatron-DeepSpeed (data/frameworks/deepspeed.json) */
    {"megatrondeepspeed", "deepspeed"},
    /* PyTorch's FullyShardedDataParallel (FSDP1): data/frameworks/pytorch-fsdp.json */
    {"fsdp", "pytorch-fsdp"},
    {"fsdp1", "pytorch-fsdp"},
    /* llm-foundry trains with MosaicML Composer (data/frameworks/llm-foundry.json) */
    {"composer", "llm-foundry"},
    {"mosaicmlcomposer", "llm-foundry"},
};

/* The preset a squashed name means among the presets of kind (exact name or
 * squashed equality), or NULL; *n_found counts the presets that match. */
static const char *preset_named(const char *kind, const char *text, const char *want,
                                int *n_found) {
  const char *found = NULL;
  char have[96];
  *n_found = 0;
  for (size_t i = 0; pl_data_name(kind, i) != NULL; i++) {
    const char *name = pl_data_name(kind, i);
    if (strcmp(name, text) == 0) {
      *n_found = 1;
      return name;
    }
    validate_squash(name, have, sizeof have);
    if (strcmp(have, want) == 0) {
      found = name;
      ++*n_found;
    }
  }
  return found;
}

static const char *framework_preset(const char *text) {
  char want[96];
  int n = 0;
  validate_squash(text, want, sizeof want);
  if (want[0] == '\0')
    return NULL;
  const char *name = preset_named("frameworks", text, want, &n);
  if (n == 1)
    return name;
  for (size_t i = 0; i < sizeof framework_aliases / sizeof framework_aliases[0]; i++)
    if (strcmp(want, framework_aliases[i].alias) == 0)
      return framework_aliases[i].preset;
  return NULL;
}

/* Megatron-LM pads the vocabulary to a multiple of 128 x tp
 * (--make-vocab-size-divisible-by 128, megatron/training/arguments.py;
 * _vocab_size_with_padding in megatron/training/tokenizer/tokenizer.py), and
 * so do the stacks built on it: Megatron-Core, NeMo, Megatron-DeepSpeed (the
 * built-in sources of these frameworks pad, sources.c megatron_vocab_pad). */
static bool megatron_family(const char *framework) {
  static const char *const fams[] = {"megatron-lm", "megatron-core", "nemo", "deepspeed"};
  char fam[64];
  pl_framework_family(framework, fam, sizeof fam);
  for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
    if (strcmp(fam, fams[i]) == 0)
      return true;
  return false;
}

/* The vocab_padding column: how the run padded the vocabulary. Empty = the
 * framework's way (megatron_family: Megatron's 128 x tp; the others keep it);
 * `none` = as the model states it (Megatron-Bridge's training setup keeps a model
 * provider's set vocab_size unpadded, setup.py _validate_and_set_vocab_size; so do
 * Hugging Face-based trainers); a positive integer N = Megatron's
 * --make-vocab-size-divisible-by N, a multiple of N x tp (_vocab_size_with_padding,
 * megatron/training/tokenizer/tokenizer.py; the MoE Model Zoo's Qwen3 configs give
 * 1187). */
#define GENERIC_MAX_VOCAB_DIVISOR 1000000

static bool generic_vocab_padding(const struct validate_in *in, struct validate_source *out,
                                  struct pl_vrow *row) {
  const char *text = cell(in, "vocab_padding");
  char s[32];
  validate_squash(text, s, sizeof s);
  if (s[0] == '\0')
    return true;
  if (strcmp(s, "none") == 0) {
    out->megatron_vocab_pad = false;
    validate_note(row, "vocab as the model states it, unpadded (column vocab_padding)");
    return true;
  }
  int64_t n = 0;
  bool present = false;
  if (validate_int(text, &n, &present) != PL_OK || !present || n < 1 ||
      n > GENERIC_MAX_VOCAB_DIVISOR)
    return validate_skip(row, "column 'vocab_padding': '%.20s' is neither none nor a whole "
                              "number 1-%d (Megatron's --make-vocab-size-divisible-by)",
                         text, GENERIC_MAX_VOCAB_DIVISOR);
  out->megatron_vocab_pad = true;
  out->vocab_divisor = n;
  return true;
}

/* ---------------------------------------------------------------- model */

/* The model preset the `model` cell names, or NULL (*ambiguous: two presets
 * squash to it). "Llama 3.1" reads as "Llama 3": Llama 3.1 8B and 70B have
 * Llama 3's dimensions (Hugging Face config.json of meta-llama/Llama-3.1-8B and
 * -70B: the layers, hidden, heads, kv heads, intermediate size and vocabulary of
 * Meta-Llama-3-8B / -70B; they differ in rope_scaling and context length;
 * tabulated e.g. by oumi-ai/oumi configs/recipes/llama3_1/README.md), and
 * llama3-405b is Llama 3.1 405B; a leading "Meta-" (the Hugging Face names)
 * is dropped. */
static const char *model_preset(const char *text, bool *ambiguous) {
  char buf[128], want[128];
  snprintf(buf, sizeof buf, "%s", text);
  char *p = strstr(buf, "3.1");
  validate_squash(buf, want, sizeof want);
  if (p != NULL && strstr(want, "llama") != NULL) {
    memmove(p + 1, p + 3, strlen(p + 3) + 1); /* "3.1" -> "3" */
    validate_squash(buf, want, sizeof want);
  }
  if (strncmp(want, "metallama", 9) == 0)
    memmove(want, want + 4, strlen(want + 4) + 1);
  int n = 0;
  const char *name = want[0] != '\0' ? preset_named("models", text, want, &n) : NULL;
  *ambiguous = n > 1;
  return n == 1 ? name : NULL;
}

static const char *const gpt_family =
    "gpt (architecture column): GPT-2/3 as Megatron-LM builds it, GELU MLP, learned positions, "
    "LayerNorm, biases, tied embeddings, dropout 0.1";
static const char *const llama_family =
    "llama (architecture column): SwiGLU MLP, RoPE, RMSNorm, untied output layer, no biases, no "
    "dropout (Hugging Face LlamaConfig defaults)";
static const char *const preset_family = "the data/models preset named in column 'model'";
static const char *const file_family =
    "the model column's plateau model JSON or file (model file or Hugging Face config.json), "
    "as predict --model reads it";

/* A model cell that predict --model reads as a model itself rather than a
 * preset name: JSON text ('{' first: the `command` of a validated row writes
 * such a model) or a .json file (a plateau model file or a Hugging Face
 * config.json; a relative path from the working directory, as predict's). */
static bool model_is_file(const char *text) {
  size_t n = strlen(text);
  return text[0] == '{' || (n > 5 && strcmp(text + n - 5, ".json") == 0);
}

/* The model column's JSON or file, loaded by predict's loader; stated
 * dimension columns must agree with it. */
static bool generic_model_file(const struct validate_in *in, const char *text, struct pl_model *m,
                               struct pl_vrow *row) {
  struct pl_diag d;
  pl_diag_clear(&d);
  enum pl_status st = pl_model_load(text, m, &d);
  if (st != PL_OK) {
    if (st == PL_ERR_NOMEM)
      *in->fatal = st;
    return validate_skip(row, "column 'model': %s", d.msg);
  }
  if (text[0] == '{')
    validate_note(row, "model: %s from the model column's JSON", m->name);
  else
    validate_note(row, "model: %s from file %.80s", m->name, text);
  return validate_mcore_dims(in, m, row);
}

/* The family an `architecture` cell names, or NULL. */
static const char *architecture_family(const char *text) {
  char a[32];
  validate_squash(text, a, sizeof a);
  if (strcmp(a, "gpt") == 0)
    return gpt_family;
  if (strcmp(a, "llama") == 0)
    return llama_family;
  return NULL;
}

static bool generic_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row) {
  const char *name = cell(in, "model");
  if (model_is_file(name))
    return generic_model_file(in, name, m, row);
  bool ambiguous = false;
  const char *preset = model_preset(name, &ambiguous);
  if (preset != NULL)
    return validate_mcore_preset(in, preset, m, row); /* stated dimensions must agree */
  const char *fam = architecture_family(cell(in, "architecture"));
  if (fam == gpt_family) {
    /* GPT3_FAMILY of sources.c: the defaults of Megatron-LM's GPT
     * (megatron/training/arguments.py: --hidden-dropout 0.1, learned
     * absolute positions, tied output layer) */
    m->mlp = PL_MLP_GELU;
    m->pos = PL_POS_LEARNED;
    m->norm = PL_NORM_LAYER;
    m->tied_embeddings = m->linear_bias = m->dropout = true;
  } else {
    /* huggingface/transformers models/llama/configuration_llama.py LlamaConfig
     * defaults: hidden_act "silu" (the gated MLP of LlamaMLP), rope_theta,
     * rms_norm_eps, tie_word_embeddings False, attention_bias False,
     * mlp_bias False, attention_dropout 0.0 */
    m->mlp = PL_MLP_SWIGLU;
    m->pos = PL_POS_ROTARY;
    m->norm = PL_NORM_RMS;
    m->tied_embeddings = m->linear_bias = m->dropout = false;
  }
  validate_note(row, "model: %s from the dimension columns", fam == gpt_family ? "gpt" : "llama");
  return true;
}

/* Whether the row names a model plateau can build (its family in *family):
 * checked before the row is read, so that a refusal names the columns to add. */
static bool model_stated(const struct validate_in *in, const char **family, struct pl_vrow *row) {
  const char *name = cell(in, "model");
  bool ambiguous = false;
  if (model_is_file(name)) {
    *family = file_family;
    return true;
  }
  if (model_preset(name, &ambiguous) != NULL) {
    *family = preset_family;
    return true;
  }
  if (ambiguous)
    return validate_skip(row, "model '%.60s' names more than one preset: write the preset's exact "
                         "name (plateau list models)", name);
  if (!stated(in, "layers") || !stated(in, "hidden") || !stated(in, "heads")) {
    char hint[160] = "";
    pl_data_hint("models", name, hint, sizeof hint);
    return validate_skip(row,
                         "model '%.60s' is no preset (plateau list models%s%s): name one in "
                         "column 'model', or fill the columns layers, hidden, heads, vocab "
                         "(kv_heads, ffn_hidden) and 'architecture' (gpt or llama)",
                         name, hint[0] != '\0' ? "; " : "", hint);
  }
  *family = architecture_family(cell(in, "architecture"));
  if (*family == NULL)
    return validate_skip(row,
                         "model '%.60s' is no preset: add a column 'architecture' = gpt or llama "
                         "(its MLP, norm and positions; got '%.20s')",
                         name, cell(in, "architecture"));
  if (!stated(in, "vocab"))
    return validate_skip(row, "column 'vocab' is empty: add the model's vocabulary size");
  if (*family == llama_family && !stated(in, "ffn_hidden"))
    return validate_skip(row, "column 'ffn_hidden' is empty: a llama MLP's width is no fixed "
                              "multiple of hidden, add it");
  return true;
}

/* --------------------------------------------------------------- layout */

/* The sharding cell: empty = the framework preset's default; plateau's own
 * words (predict --shard: ddp, zero1, zero2, zero3); FSDP, FSDP1, FSDP2 =
 * zero3 (PyTorch FSDP's default ShardingStrategy.FULL_SHARD,
 * torch/distributed/fsdp/fully_sharded_data_parallel.py; FSDP2's fully_shard
 * reshard_after_forward=True, torch/distributed/fsdp/_fully_shard); then the
 * words of the built-in sources' rows (row.c). The recompute cell: empty =
 * none; plateau's words (predict --recompute: none, selective, full, ops),
 * then the sources' words. */
static bool generic_modes(const struct validate_in *in, struct pl_layout *l,
                          struct pl_vrow *row) {
  const char *shard = cell(in, "sharding"), *rc = cell(in, "recompute");
  char s[64];
  validate_squash(shard, s, sizeof s);
  if (s[0] == '\0') {
    l->shard_set = false; /* pl_framework_apply gives the preset's */
    validate_note(row, "sharding: the framework's default (not stated)");
  } else if (strcmp(s, "fsdp") == 0 || strcmp(s, "fsdp1") == 0 || strcmp(s, "fsdp2") == 0) {
    l->shard = PL_SHARD_ZERO3;
  } else if (pl_shard_parse(shard, &l->shard, NULL) != PL_OK &&
             !validate_parse_shard(shard, &l->shard)) {
    return validate_skip(row, "sharding '%.40s' not understood: write ddp, zero1, zero2, zero3 or "
                              "fsdp in column 'sharding', or leave it empty", shard);
  }
  if (rc[0] == '\0') {
    l->recompute = PL_RECOMPUTE_NONE; /* selective when layout_flags names recompute modules */
    if (strstr(cell(in, "layout_flags"), "--recompute-modules") == NULL)
      validate_note(row, "recompute none (not stated)");
  } else if (pl_recompute_parse(rc, &l->recompute, NULL) != PL_OK &&
             !validate_parse_recompute(rc, &l->recompute)) {
    return validate_skip(row, "recompute '%.40s' not understood: write none, selective, full or "
                              "ops in column 'recompute'", rc);
  }
  return true;
}

/* The precision cell: plateau's own words first (predict --dtype: bf16, fp8,
 * fp8-delayed, fp8-current, fp8-blockwise, fp8-tensorwise, mxfp8, nvfp4, in
 * any case), else the sources' words as row.c reads them (FP8, MXFP8 / FP8-MX,
 * FP8-CS, NVFP4; anything else 16-bit) when they name one. */
static bool generic_precision(const struct validate_in *in, struct pl_layout *l,
                              struct pl_vrow *row) {
  const char *p = cell(in, "precision");
  char low[48], s[64];
  size_t n = 0;
  for (; p[n] != '\0' && n + 1 < sizeof low; n++)
    low[n] = (char)((p[n] >= 'A' && p[n] <= 'Z') ? p[n] - 'A' + 'a' : p[n]);
  low[n] = '\0';
  validate_squash(p, s, sizeof s);
  if (s[0] == '\0') {
    validate_note(row, "precision bf16 (not stated)");
    return true;
  }
  if (pl_layout_dtype_parse(low, l, NULL) == PL_OK)
    return true;
  if (strstr(s, "fp8") != NULL || strstr(s, "nvfp4") != NULL || strstr(s, "bf16") != NULL ||
      strcmp(s, "mixed") == 0 || strcmp(s, "amp") == 0)
    return true;
  if (strstr(s, "fp16") != NULL) {
    validate_note(row, "fp16 timed as bf16 (the same tensor-core rate)");
    return true;
  }
  return validate_skip(row, "precision '%.30s' not understood: write bf16, fp8, fp8-current, "
                            "mxfp8 or nvfp4 in column 'precision'", p);
}

/* A mixture-of-experts run's router and dispatcher, when stated: moe_imbalance
 * (tokens of the busiest expert rank over the mean, >= 1; predict
 * --moe-imbalance; 1 for a force-balanced router) and moe_dispatch (predict
 * --moe-dispatch: alltoall, allgather, deepep, hybridep); empty = plateau's
 * defaults (docs/cli.md). */
static bool generic_moe(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *imb = cell(in, "moe_imbalance"), *disp = cell(in, "moe_dispatch");
  bool present = false;
  double v = 0;
  /* the upper bound is the layout's (layout.c MOE_IMBALANCE_MAX), as for predict
   * --moe-imbalance: a cap of its own here refused 1001-1024 as 'not >= 1' */
  if (validate_num(imb, &v, &present) != PL_OK || (present && !(v >= 1.0)))
    return validate_skip(row, "column 'moe_imbalance': '%.20s' is not a number >= 1", imb);
  if (present)
    l->moe_imbalance = v;
  if (disp[0] != '\0' && pl_moe_dispatch_parse(disp, &l->dispatch, NULL) != PL_OK)
    return validate_skip(row, "column 'moe_dispatch': '%.20s' is none of alltoall, allgather, "
                              "deepep, hybridep", disp);
  return true;
}

/* shard_group: the GPUs one shard spans (predict --shard-group), fewer than
 * dp for hybrid sharding (PyTorch FSDP HYBRID_SHARD, HSDP: sharded within the
 * group, replicated across); empty = the whole data-parallel group. */
static bool generic_shard_group(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row) {
  bool present = false;
  int64_t g = 0;
  if (validate_int(cell(in, "shard_group"), &g, &present) != PL_OK)
    return validate_skip(row, "column 'shard_group': '%.20s' is not a positive integer",
                         cell(in, "shard_group"));
  if (present)
    l->shard_group = g;
  return true;
}

static bool generic_layout_flags(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row);

static bool generic_layout(const struct validate_in *in, struct pl_layout *l,
                           struct pl_vrow *row) {
  return validate_mcore_experts(in, l, row) && generic_shard_group(in, l, row) &&
         generic_moe(in, l, row) && generic_precision(in, l, row) &&
         generic_layout_flags(in, l, row);
}

/* ---------------------------------------------------------------- flags */

/* The optional columns framework_flags and hardware_flags hold `plateau
 * predict` flags ("--sequence-parallel on --overlap-grad-reduce on";
 * "--power-cap '500 W' --hbm '96 GiB'"): the run's departures from the
 * framework and cluster presets, read with the CLI's own tables
 * (include/plateau/run_flags.h), so every behaviour predict takes can be
 * stated and the row's command repeats it. Values may be quoted ('...' or
 * "...") to hold spaces. */
#define GENERIC_MAX_FLAGS 128

struct flag_set {
  char text[4096];
  size_t n;
  const char *name[GENERIC_MAX_FLAGS];
  const char *value[GENERIC_MAX_FLAGS];
};

static const char *flag_get(void *ctx, const char *name) {
  const struct flag_set *fs = ctx;
  for (size_t i = 0; i < fs->n; i++)
    if (strcmp(fs->name[i], name) == 0)
      return fs->value[i];
  return NULL;
}

/* The next word of *p (quotes removed) written into *out, or NULL at the end;
 * *bad on an unterminated quote. */
static char *next_word(char **p, bool *bad) {
  char *s = *p;
  while (*s == ' ' || *s == '\t')
    s++;
  if (*s == '\0')
    return NULL;
  char *w = s, *o = s;
  while (*s != '\0' && *s != ' ' && *s != '\t') {
    if (*s == '\'' || *s == '"') {
      char q = *s++;
      while (*s != '\0' && *s != q)
        *o++ = *s++;
      if (*s != q) {
        *bad = true;
        return NULL;
      }
      s++;
    } else {
      *o++ = *s++;
    }
  }
  if (*s != '\0')
    s++;
  *o = '\0';
  *p = s;
  return w;
}

/* The flags of column col, each a name of names(i) (i >= first). */
static bool flags_parse(const struct validate_in *in, const char *col,
                        const char *(*names)(size_t), size_t first, struct flag_set *fs,
                        struct pl_vrow *row) {
  const char *text = cell(in, col);
  fs->n = 0;
  if (strlen(text) >= sizeof fs->text)
    return validate_skip(row, "column '%s' is longer than %zu characters", col,
                         sizeof fs->text - 1);
  memcpy(fs->text, text, strlen(text) + 1);
  char *p = fs->text, *w = NULL;
  bool bad = false;
  while ((w = next_word(&p, &bad)) != NULL) {
    if (strncmp(w, "--", 2) != 0)
      return validate_skip(row, "column '%s': '%.40s' is no flag (write --name value ...)", col, w);
    bool known = false;
    for (size_t i = first; names(i) != NULL && !known; i++)
      known = strcmp(names(i), w + 2) == 0;
    if (!known)
      return validate_skip(row, "column '%s': '%.40s' is no flag it takes (plateau predict --help)",
                           col, w);
    if (fs->n == GENERIC_MAX_FLAGS)
      return validate_skip(row, "column '%s': more than %d flags", col, GENERIC_MAX_FLAGS);
    fs->name[fs->n] = w + 2;
    fs->value[fs->n] = next_word(&p, &bad);
    if (fs->value[fs->n] == NULL)
      break;
    fs->n++;
  }
  if (bad || (w != NULL && fs->value[fs->n] == NULL))
    return validate_skip(row, "column '%s': %s", col,
                         bad ? "a quote is not closed" : "the last flag has no value");
  return true;
}

/* The framework_flags column over the framework preset (--framework is
 * the framework column's, so not taken here: first = 1). */
static bool generic_overrides(const struct validate_in *in, struct pl_framework *fw,
                              struct pl_vrow *row) {
  struct flag_set fs;
  if (!stated(in, "framework_flags"))
    return true;
  if (!flags_parse(in, "framework_flags", pl_framework_flag_name, 1, &fs, row))
    return false;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_framework_flags_read(fw, flag_get, &fs, &d) != PL_OK)
    return validate_skip(row, "column 'framework_flags': %s", d.msg);
  validate_note(row, "framework flags: %s", cell(in, "framework_flags"));
  return true;
}

/* The layout flags whose value a common column holds: written there, so
 * that a row states each value once. */
static const struct {
  const char *flag, *col;
} layout_cols[] = {
    {"gpus", "num_gpus"},       {"nodes", "num_gpus"},         {"tp", "tp"},
    {"pp", "pp"},               {"cp", "cp"},                  {"vp", "vp"},
    {"seq", "seq_len"},         {"mbs", "micro_batch"},        {"gbs", "global_batch"},
    {"batch-per-gpu", "global_batch"}, {"shard", "sharding"},  {"shard-group", "shard_group"},
    {"recompute", "recompute"}, {"dtype", "precision"},        {"ep", "ep"},
    {"etp", "etp"},             {"moe-imbalance", "moe_imbalance"},
    {"moe-dispatch", "moe_dispatch"},
};

/* The layout_flags column: predict's layout flags the common columns do not
 * hold ("--pipeline-layout 'Et*4|(t*4|)*14tmL' --account-embed-loss on",
 * "--recompute-modules core_attn,moe_act --cuda-graph-scope attn"), read
 * with the CLI's own table (pl_layout_flags_read) over the columns' layout.
 * --recompute-modules makes an empty recompute column selective; against a
 * stated one it must agree (Megatron-Core reads recompute_modules with
 * selective granularity only). */
static bool generic_layout_flags(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row) {
  if (!stated(in, "layout_flags"))
    return true;
  struct flag_set fs;
  if (!flags_parse(in, "layout_flags", pl_layout_flag_name, 0, &fs, row))
    return false;
  for (size_t i = 0; i < fs.n; i++)
    for (size_t k = 0; k < sizeof layout_cols / sizeof layout_cols[0]; k++)
      if (strcmp(fs.name[i], layout_cols[k].flag) == 0)
        return validate_skip(row, "column 'layout_flags': --%s is column '%s': write it there",
                             fs.name[i], layout_cols[k].col);
  enum pl_recompute before = l->recompute;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_layout_flags_read(l, flag_get, &fs, &d) != PL_OK)
    return validate_skip(row, "column 'layout_flags': %s", d.msg);
  if (stated(in, "recompute") && l->recompute != before)
    return validate_skip(row, "column 'layout_flags': --recompute-modules needs recompute "
                              "selective (Megatron-Core reads recompute_modules with selective "
                              "granularity only), column 'recompute' says %s",
                         pl_recompute_name(before));
  validate_note(row, "layout flags: %s", cell(in, "layout_flags"));
  return true;
}

/* ------------------------------------------------------------- hardware */

/* A `cluster` column must name a preset holding the row's GPU: row.c takes
 * the source's cluster only then, and a silent fallback would hide it. */
static void generic_hardware(const struct validate_in *in, const struct pl_layout *l,
                             struct pl_cluster *c, struct pl_vrow *row) {
  (void)l;
  const char *want = cell(in, "cluster");
  if (want[0] != '\0' && strcmp(row->cluster, want) != 0) {
    validate_skip(row, "cluster '%.40s' does not hold the gpu column's '%.40s' (%s): name its GPU "
                       "in column 'gpu', or leave 'cluster' empty", want, cell(in, "gpu"),
                  c->gpu_name);
    return;
  }
  struct flag_set fs;
  if (!stated(in, "hardware_flags") ||
      !flags_parse(in, "hardware_flags", pl_cluster_flag_name, 0, &fs, row))
    return;
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_cluster_flags_read(c, flag_get, &fs, &d) != PL_OK)
    validate_skip(row, "column 'hardware_flags': %s", d.msg);
  else
    validate_note(row, "hardware flags: %s", cell(in, "hardware_flags"));
}

/* --------------------------------------------------------------- metric */

/* The metric columns a row may carry, the first non-empty one read. */
static const char *const metric_cols[] = {"step_time_s", "tokens_per_s_per_gpu", "tokens_per_s",
                                          "mfu", "tflops_per_gpu"};

static const char *metric_col(const struct validate_in *in) {
  for (size_t i = 0; i < sizeof metric_cols / sizeof metric_cols[0]; i++)
    if (stated(in, metric_cols[i]))
      return metric_cols[i];
  return NULL;
}

/* step_time_s as printed; a rate r: step = X / r with X the tokens of a step
 * (gbs x seq; per GPU: / GPUs) or its FLOPs by PaLM's count (Chowdhery et
 * al. 2022, appendix B: 6 N + 12 L H Q T per token, pl_flops_palm_per_token:
 * N all parameters, embeddings included; active ones of an MoE) over the
 * GPU's dense BF16 peak for mfu. */
static bool generic_measure(const struct validate_in *in, const struct pl_run *run,
                            struct pl_vrow *row) {
  const char *col = metric_col(in);
  if (strcmp(col, "step_time_s") == 0)
    return validate_measure_time(in, col, 1.0, row);
  if (!validate_metric(in, col, row))
    return false;
  const struct pl_layout *l = &run->layout;
  double gpus = (double)l->gpus, v = row->published;
  double tokens = (double)l->gbs * (double)run->model.seq_len;
  double flops = pl_flops_palm_per_token(&run->model, run->model.seq_len) * tokens;
  row->published_rate = true; /* step = X / the published rate */
  if (strcmp(col, "tokens_per_s_per_gpu") == 0) {
    row->measured = tokens / (v * gpus);
    snprintf(row->metric, sizeof row->metric,
             "tokens_per_s_per_gpu -> step = global_batch x seq_len / (rate x GPUs)");
  } else if (strcmp(col, "tokens_per_s") == 0) {
    row->measured = tokens / v;
    snprintf(row->metric, sizeof row->metric, "tokens_per_s -> step = global_batch x seq_len / rate");
  } else if (strcmp(col, "mfu") == 0) {
    /* "44%" or 44 is a percentage, 0.44 a fraction */
    bool percent = strchr(cell(in, col), '%') != NULL || v > 1.0;
    double peak = pl_gpu_peak_flops_per_s(&run->cluster.gpu, PL_DTYPE_BF16);
    row->measured = flops / ((percent ? v / 100.0 : v) * gpus * peak);
    snprintf(row->metric, sizeof row->metric,
             "mfu (%s) -> step = (6N + 12 L H Q T) x tokens / (MFU x GPUs x %.0f TFLOP/s, the "
             "GPU's dense BF16 peak)", percent ? "percent" : "fraction", peak / 1e12);
  } else {
    row->measured = flops / (v * 1e12 * gpus);
    snprintf(row->metric, sizeof row->metric,
             "tflops_per_gpu -> step = (6N + 12 L H Q T) x tokens / (rate x GPUs) (PaLM count)");
  }
  return true;
}

/* validate --quantity memory: the peak memory per GPU in GiB (2^30 bytes),
 * as the run measured it; plateau's is its total with buffers and the
 * framework's allowance (validate.c record_memory). What the figure counts
 * (PyTorch's peak reserved bytes, torch.cuda.max_memory_reserved, or the
 * device's use as nvidia-smi shows it, CUDA context included) is the user's to
 * say in notes. */
static bool generic_memory(const struct validate_in *in, struct pl_vrow *row) {
  const char *col = "peak_memory_gib";
  if (!stated(in, col))
    return validate_skip(row, "no memory figure: fill the column peak_memory_gib (GiB per GPU)");
  if (!validate_metric(in, col, row))
    return false;
  row->measured = row->published * 1073741824.0;
  snprintf(row->metric, sizeof row->metric, "%s (printed, GiB per GPU)", col);
  return true;
}

/* ---------------------------------------------------------------- entry */

static const struct validate_source generic = {
    .key = "generic",
    .match = "",
    .pos = PL_POS_ROTARY, /* the model rule sets the family */
    .sequence_parallel = false, /* the framework preset decides (every preset sets it) */
    .use_preset = true,
    .model = generic_model,
    .modes = generic_modes,
    .overrides = generic_overrides,
    .layout = generic_layout,
    .hardware = generic_hardware,
    .measure = generic_measure,
    .memory = generic_memory,
};

bool validate_generic_source(const struct validate_in *in, struct validate_source *out,
                             struct pl_vrow *row) {
  *out = generic;
  snprintf(row->source, sizeof row->source, "%s", generic.key); /* said when skipped too */
  if (in->framework != NULL) { /* validate --framework: it replaces the preset anyway */
    out->framework = in->framework->name[0] != '\0' ? in->framework->name : "file";
    out->use_preset = false;
    validate_note(row, "framework: --framework %s", out->framework);
  } else {
    const char *fw = cell(in, "framework");
    if (fw[0] == '\0')
      return validate_skip(row, "source '%.40s' is no built-in source and column 'framework' "
                                "is empty: name a framework preset (plateau list frameworks) or "
                                "give validate --framework", cell(in, "source"));
    out->framework = framework_preset(fw);
    if (out->framework == NULL) {
      char hint[160] = "";
      pl_data_hint("frameworks", fw, hint, sizeof hint);
      return validate_skip(row, "framework '%.40s' is no preset (plateau list frameworks%s%s)",
                           fw, hint[0] != '\0' ? "; " : "", hint);
    }
    if (strcmp(fw, out->framework) != 0)
      validate_note(row, "framework '%s' = preset %s", fw, out->framework);
  }
  static const struct {
    const char *col, *what;
  } needed[] = {{"gpu", "the GPU (plateau list gpus: H100, A100 80GB, B200, ...)"},
                {"num_gpus", "the number of GPUs"},
                {"global_batch", "the global batch in sequences"},
                {"seq_len", "the sequence length"}};
  for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
    if (!stated(in, needed[i].col))
      return validate_skip(row, "column '%s' is empty: add %s", needed[i].col, needed[i].what);
  if (in->quantity == PL_VQUANTITY_STEP && metric_col(in) == NULL)
    return validate_skip(row, "no measured figure: fill one of the columns step_time_s, "
                              "tokens_per_s_per_gpu, tokens_per_s, mfu, tflops_per_gpu");
  out->megatron_vocab_pad = megatron_family(out->framework);
  if (!generic_vocab_padding(in, out, row))
    return false;
  const char *cl = cell(in, "cluster");
  if (cl[0] != '\0') {
    if (pl_data_find("clusters", cl, NULL) == NULL) {
      char hint[160] = "";
      pl_data_hint("clusters", cl, hint, sizeof hint);
      return validate_skip(row, "cluster '%.40s' is no preset (plateau list clusters%s%s)", cl,
                           hint[0] != '\0' ? "; " : "", hint);
    }
    out->cluster = cl;
  }
  return model_stated(in, &out->family, row);
}
