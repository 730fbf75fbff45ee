/* model.h: a decoder-only transformer (Llama and GPT families) and its
 * parameter count.
 *
 * A model comes from a preset name (data/models/<name>.json, embedded in the
 * library), a plateau model file, or a Hugging Face config.json as published
 * (Llama, Mistral, Qwen2, GPT-2, GPT-NeoX field names); the format is told
 * from the fields. File format and field mapping: docs/model.md, "Model files".
 * Ownership: struct pl_model is a plain value owned by the caller. */
#ifndef PLATEAU_MODEL_H
#define PLATEAU_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "status.h"

enum pl_mlp { PL_MLP_GELU, PL_MLP_SWIGLU };          /* 2 or 3 FFN matrices (SWIGLU = any gated MLP) */
enum pl_pos { PL_POS_ROTARY, PL_POS_LEARNED, PL_POS_ALIBI }; /* RoPE, a position table, or
                                                       ALiBi (no parameters, no op) */
enum pl_norm { PL_NORM_RMS, PL_NORM_LAYER };          /* weight, or weight + bias */

struct pl_model {
  char name[64];
  int64_t layers;          /* transformer blocks */
  int64_t hidden;          /* model width h */
  int64_t heads;           /* attention (query) heads */
  int64_t kv_heads;        /* key/value heads: = heads (MHA), < heads (GQA), 1 (MQA) */
  int64_t head_dim;        /* per head; usually hidden / heads */
  int64_t ffn_hidden;      /* MLP inner width */
  int64_t vocab;           /* vocabulary size (as the embedding table holds it) */
  int64_t seq_len;         /* default training sequence length, tokens */
  int64_t max_positions;   /* rows of the learned position table (PL_POS_LEARNED) */
  enum pl_mlp mlp;
  enum pl_pos pos;
  enum pl_norm norm;
  bool tied_embeddings;    /* LM head shares the input embedding matrix */
  bool linear_bias;        /* every linear layer has a bias (GPT-2, GPT-NeoX, GPT-3) */
  bool qkv_bias;           /* Q/K/V projections have a bias (Qwen2; Llama attention_bias) */
  bool out_bias;           /* attention output projection has a bias (Llama attention_bias) */
  bool mlp_bias;           /* MLP matrices have biases (Llama mlp_bias) */
  bool dropout;            /* training applies attention/residual dropout (masks are stored) */
  int64_t sliding_window;  /* keys each query sees at most (Mistral); 0 = whole sequence */
  int64_t published_params;/* total its source states, 0 = not stated (presets only) */
};

/* Load by preset name, path to a plateau model file, or path to a Hugging
 * Face config.json (detected by its fields). */
enum pl_status pl_model_load(const char *name_or_path, struct pl_model *out,
                             struct pl_diag *diag);
/* Same, from JSON text already in memory; origin names it in messages. */
enum pl_status pl_model_from_json(const char *text, size_t len, const char *origin,
                                  struct pl_model *out, struct pl_diag *diag);
/* Check the dimensions are positive, within the limits that keep every count
 * below 2^62, and consistent (heads % kv_heads == 0 ...). */
enum pl_status pl_model_check(const struct pl_model *m, struct pl_diag *diag);

/* Parameter counts, exact. */
int64_t pl_model_params(const struct pl_model *m);          /* all, embeddings included */
int64_t pl_model_layer_params(const struct pl_model *m);    /* one transformer block */
int64_t pl_model_embedding_params(const struct pl_model *m);/* token (+ position) table */
int64_t pl_model_head_params(const struct pl_model *m);     /* LM head (0 when tied) + final norm */

#endif
