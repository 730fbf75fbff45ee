/* model.h: a decoder-only transformer (Llama and GPT families, their
 * mixture-of-experts variants, hybrid Mamba-2 stacks) and its parameter count.
 *
 * A model comes from a preset name (data/models/<name>.json, embedded in the
 * library), a plateau model file, or a Hugging Face config.json as published
 * (Llama, Mistral, Qwen2, GPT-2, GPT-NeoX, Mixtral, Qwen2-MoE, Qwen3(-MoE),
 * DeepSeek-V2/V3, GPT-OSS, Llama 4, NemotronH field names); the format is told
 * from the fields. Hybrid Mamba-2 stacks (Nemotron-H, Nemotron 3): hybrid_pattern.
 * File format and field mapping: docs/model.md, "Model files".
 * Ownership: struct pl_model is a plain value owned by the caller. */
#ifndef PLATEAU_MODEL_H
#define PLATEAU_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include "status.h"

enum pl_mlp { PL_MLP_GELU, PL_MLP_SWIGLU };          /* 2 or 3 FFN matrices (SWIGLU = any gated MLP) */
enum pl_pos { PL_POS_ROTARY, PL_POS_LEARNED, PL_POS_ALIBI, PL_POS_NONE }; /* RoPE, a position
                                   table, ALiBi (no parameters, no op), or none (Nemotron-H:
                                   position_embedding_type "none", no parameters, no op) */
enum pl_norm { PL_NORM_RMS, PL_NORM_LAYER };          /* weight, or weight + bias */

#define PL_MODEL_MAX_PATTERN 255 /* letters of a hybrid layer pattern (Nemotron-H 56B: 118) */
#define PL_MODEL_MAX_MTP_PATTERN 15 /* letters of one hybrid MTP module (Super: "*E") */

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
  int64_t max_context;     /* a Hugging Face config's full context when seq_len was set
                              below it (no training length stated); 0 = seq_len is the model's */
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
  int64_t published_active_params; /* active per token its source states, 0 = not stated */
  bool qk_norm;            /* RMSNorm on each query and key head (Qwen3: 2 head_dim weights) */
  bool attn_sinks;         /* one learned sink logit per head (GPT-OSS: heads weights) */
  bool glu_clamp;          /* the gated MLP clamps both halves of fc1's output before the
                              activation (GPT-OSS swiglu_limit; Megatron-Core
                              activation_func_clamp_value) */
  bool rope_yarn;          /* RoPE with YaRN scaling whose attention factor is not 1 (GPT-OSS:
                              factor 32, 0.1 ln 32 + 1 = 1.35): Megatron-Core applies it with
                              its unfused kernels (flops.c ROPE_UNFUSED) */
  int64_t full_attn_layers;/* with sliding_window: blocks that still attend the whole
                              sequence (GPT-OSS alternates: half); 0 = every block windowed */
  /* Mixture of experts (docs/model.md "Mixture of experts"); experts = 0: dense */
  int64_t experts;         /* routed experts of one MoE block */
  int64_t top_k;           /* routed experts each token goes to */
  int64_t expert_ffn;      /* inner width of one routed expert's MLP */
  int64_t shared_ffn;      /* inner width of the shared expert(s) together, 0 = none */
  int64_t moe_first_dense; /* leading blocks with the dense MLP (DeepSeek first_k_dense_replace) */
  int64_t moe_step;        /* after those, block i is MoE when (i + 1) % moe_step == 0
                              (1 = all; Llama 4 interleave_moe_layer_step); 0 = 1 */
  bool router_bias;        /* router holds one bias per expert (GPT-OSS router bias,
                              DeepSeek-V3 e_score_correction_bias) */
  bool shared_gate;        /* sigmoid gate Linear(h, 1) on the shared expert (Qwen2-MoE) */
  bool router_fp32;        /* router logits in fp32 (Megatron-Core moe_router_dtype "fp32"):
                              its backward casts the input and weight up and the gradients
                              back (flops.c ROUTER_FP32_CASTS) */
  bool router_aux_loss;    /* the recipe's router adds Megatron-Core's switch load-balancing
                              loss (moe_router_load_balancing_type "aux_loss", coefficient > 0)
                              with the fused router (moe_router_fusion): op router_aux_loss,
                              5 kernels forward and 5 backward (flops.c ROUTER_AUX_LOSS) */
  /* Multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank = 0: ordinary
   * attention. head_dim is then the query/key head (nope + rope part). */
  int64_t q_lora_rank;     /* query down-projection rank, 0 = queries projected directly */
  int64_t kv_lora_rank;    /* compressed key/value rank */
  int64_t qk_rope_dim;     /* decoupled RoPE part of each query/key head (shared key) */
  int64_t v_head_dim;      /* value head width (0 = head_dim) */
  int64_t mtp_layers;      /* multi-token-prediction depth (DeepSeek-V3 num_nextn_predict_layers):
                              extra MoE blocks after the trunk; not in pl_model_params */
  /* Hybrid stacks (Nemotron-H, Nemotron 3: docs/model.md "Hybrid Mamba-2
   * models"). hybrid_pattern[0] == 0: every block is attention + MLP/MoE as
   * above. Otherwise block i is ONE mixer with its pre-norm and residual, of
   * the kind hybrid_pattern[i] names (Megatron-Core hybrid_layer_pattern,
   * HF NemotronH hybrid_override_pattern): 'M' Mamba-2, '*' attention, '-'
   * MLP (ffn_hidden, mlp), 'E' MoE (experts ...); layers = its length. */
  char hybrid_pattern[PL_MODEL_MAX_PATTERN + 1];
  int64_t mamba_heads;     /* SSM heads H (d_inner = H x mamba_head_dim) */
  int64_t mamba_head_dim;  /* head width P */
  int64_t mamba_groups;    /* B/C groups G (ngroups) */
  int64_t mamba_state;     /* state size N (d_state) */
  int64_t mamba_conv;      /* causal conv1d kernel width (d_conv) */
  int64_t mamba_chunk;     /* SSD chunk length Q (chunk_size) */
  /* Latent MoE (Nemotron 3 Super / Ultra; moe_latent.c): the routed experts
   * and the token dispatch run at width moe_latent, between a down-projection
   * h -> moe_latent before the dispatch and an up-projection after the
   * combine (Megatron-Core moe_layer.py fc1_latent_proj / fc2_latent_proj);
   * the router and the shared expert stay at h. 0 = no latent projection. */
  int64_t moe_latent;
  /* A hybrid stack's MTP module (HF NemotronH mtp_hybrid_override_pattern,
   * Megatron-Core mtp_hybrid_override_pattern): the kinds of the blocks one
   * MTP module runs ("*E": an attention and an MoE block); empty = none. */
  char mtp_pattern[PL_MODEL_MAX_MTP_PATTERN + 1];
};

/* The kinds' names as model files spell them ("gelu", "rotary", "rms", ...). */
const char *pl_mlp_name(enum pl_mlp mlp);
const char *pl_pos_name(enum pl_pos pos);
const char *pl_norm_name(enum pl_norm norm);

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

/* Mixture of experts (all 0 / false for a dense model). pl_model_layer_params
 * is then a block with the dense MLP; pl_model_params sums both kinds. */
bool pl_model_is_moe(const struct pl_model *m);
int64_t pl_model_moe_layers(const struct pl_model *m);      /* blocks with experts */
/* MoE blocks among blocks 0..x-1: block j has experts when j >= moe_first_dense
 * and moe_step divides j + 1 (0 for a dense model). */
int64_t pl_model_moe_blocks_below(const struct pl_model *m, int64_t x);
int64_t pl_model_attention_params(const struct pl_model *m);/* one block's attention + its 2 norms */
int64_t pl_model_expert_params(const struct pl_model *m);   /* one routed expert */
int64_t pl_model_moe_layer_params(const struct pl_model *m);/* one MoE block, all experts */
/* Parameters one token uses: the routed experts counted top_k times, the
 * rest (embedding table and LM head included) in full: the convention of
 * Mistral's 12.9B and Qwen's 22B/3.3B. docs/model.md "Mixture of experts". */
int64_t pl_model_active_params(const struct pl_model *m);
/* DeepSeek-V3's MTP modules: per depth one MoE block, two RMSNorms and the
 * 2h x h projection (embedding and head shared with the trunk). */
int64_t pl_model_mtp_params(const struct pl_model *m);
/* Latent MoE (moe_latent.c): the width the routed experts and the token
 * dispatch run at (moe_latent, else hidden), and one MoE block's two latent
 * projections' parameters (0 without moe_latent). */
int64_t pl_model_moe_width(const struct pl_model *m);
int64_t pl_model_moe_latent_params(const struct pl_model *m);

/* Hybrid Mamba-2 stacks (mamba.c; all 0 / false without a hybrid_pattern). */
bool pl_model_is_hybrid(const struct pl_model *m);
/* Blocks among 0..x-1 whose pattern letter is kind ('M', '*', '-', 'E'). */
int64_t pl_model_kind_below(const struct pl_model *m, char kind, int64_t x);
int64_t pl_model_kind_layers(const struct pl_model *m, char kind); /* whole stack */
/* One Mamba-2 block: pre-norm, in_proj, conv1d (+ bias), dt_bias, A_log, D,
 * the gated RMSNorm and out_proj (Megatron-Core ssm/mamba_mixer.py). */
int64_t pl_model_mamba_params(const struct pl_model *m);
/* Blocks that hold an attention mixer: the '*' blocks of a hybrid, every block otherwise. */
int64_t pl_model_attention_layers(const struct pl_model *m);
/* Blocks with a dense MLP: the '-' blocks of a hybrid, the non-MoE blocks otherwise. */
int64_t pl_model_dense_mlp_layers(const struct pl_model *m);

#endif
