/* model_int.h (internal to src/model): what the model loaders share.
 * Ownership: none; the functions fill caller-owned values. */
#ifndef PL_MODEL_INT_H
#define PL_MODEL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <plateau/layout.h>
#include <plateau/model.h>

#include "base/json.h"

/* A parallel degree or a batch size as the formulas use it: unset (0) reads as 1. */
static inline int64_t deg(int64_t v) { return v > 0 ? v : 1; }

/* Limits on model dimensions. They are far above any published model (the
 * largest dense models have h = 2^15, l < 2^8, V < 2^18) and keep every
 * product in params.c below 2^62, so parameter counts cannot overflow int64:
 * l * (3 h f + 4 (a d) h) <= 2^16 * (3 * 2^20 * 2^22 + 4 * 2^22 * 2^20) < 2^62. */
#define MODEL_MAX_LAYERS (INT64_C(1) << 16)
#define MODEL_MAX_HIDDEN (INT64_C(1) << 20)
#define MODEL_MAX_FFN (INT64_C(1) << 22)
#define MODEL_MAX_HEADS (INT64_C(1) << 16)
#define MODEL_MAX_QKV_WIDTH (INT64_C(1) << 22) /* heads * head_dim */
#define MODEL_MAX_VOCAB (INT64_C(1) << 24)
#define MODEL_MAX_SEQ (INT64_C(1) << 26)
/* Mixture of experts: experts * expert_ffn is held below MODEL_MAX_FFN
 * (pl_model_check), so a block's routed experts count no more than one dense
 * MLP at the limit, and the bound above still holds with the dense MLP, the
 * shared expert and the experts together (13 h f < 2^46 per block). The
 * largest published MoE block, Llama 4 Maverick, has 128 * 8192 = 2^20. */
#define MODEL_MAX_EXPERTS (INT64_C(1) << 16)

/* A required (or optional: leaves *out untouched when absent) positive
 * integer no larger than max. Errors name origin and key: absent ->
 * PL_ERR_MISSING, not an integer -> PL_ERR_PARSE, <= 0 or > max -> PL_ERR_RANGE. */
enum pl_status model_json_size(yajl_val obj, const char *key, bool required, const char *origin,
                               int64_t max, int64_t *out, struct pl_diag *diag);

/* A table of such fields, read in order until the first error. */
struct model_size {
  const char *key;
  bool required;
  int64_t max;
  int64_t *out;
};
enum pl_status model_json_sizes(yajl_val obj, const struct model_size *f, size_t n,
                                const char *origin, struct pl_diag *diag);

/* Fill *out from a Hugging Face config.json tree (hf_config.c). */
enum pl_status model_from_hf(yajl_val root, const char *origin, struct pl_model *out,
                             struct pl_diag *diag);

/* The mixture-of-experts and attention-variant fields of the model types
 * that have them (hf_moe.c); type is the config's model_type. */
enum pl_status model_hf_moe(yajl_val root, const char *origin, const char *type,
                            struct pl_model *m, struct pl_diag *diag);

/* Op builders (op_build.c) of flops.c and mamba.c: a GEMM of count
 * (m x k) @ (k x n) products, and a memory-bound op over elems elements with
 * per-element FLOPs and bytes (pl_op in flops.h). */
struct pl_op;
void model_op_gemm(struct pl_op *op, const char *name, int64_t m, int64_t n, int64_t k,
                   int64_t count);
void model_op_memory(struct pl_op *op, const char *name, double elems, double fwd_flops,
                     double bwd_flops, double fwd_bytes, double bwd_bytes);

/* LoRA (finetune.c, layout.task lora): a GEMM op whose weight is frozen
 * (forward and dgrad, no wgrad: pl_op.frozen); a block's ops ops[0 .. n)
 * frozen and the adapters of the layout's targets appended (returns the new
 * count; n unchanged without lora); the layout's LoRA fields checked against
 * the model (pl_layout_resolve). */
void model_op_freeze(struct pl_op *op);
int model_lora_layer_ops(const struct pl_model *m, const struct pl_layout *l, struct pl_op *ops,
                         int n);
enum pl_status model_lora_check(const struct pl_layout *l, const struct pl_model *m,
                                struct pl_diag *diag);

/* Megatron-Core's alltoall dispatcher's ops (moe_dispatch.c), appended at
 * ops[n] when layout dispatch is alltoall (else nothing); each returns the
 * new count. preprocess: the token counts before the permutation
 * (moe_preprocess, moe_counts_d2h) for tokens_n tokens per rank; permute: the
 * permutation's kernel count; sort: with more than one local expert, the sort
 * of the rank's received_elems routed elements by local expert (name
 * "sort_chunks") or back ("unsort_chunks"). */
int model_moe_a2a_preprocess(const struct pl_model *m, const struct pl_layout *l, double tokens_n,
                             struct pl_op *ops, int n);
void model_moe_a2a_permute(const struct pl_layout *l, struct pl_op *permute);
int model_moe_a2a_sort(const struct pl_model *m, const struct pl_layout *l, const char *name,
                       double received_elems, struct pl_op *ops, int n);

/* layout.bf16_modules (quant_modules.c): the named GEMMs of ops[0, n) at
 * 16-bit (pl_op.high_precision) under an FP8 / FP4 dtype. */
struct pl_op;
void model_bf16_modules_apply(const struct pl_layout *l, struct pl_op *ops, int n);

/* moe_latent, in range and only with routed experts (moe_latent.c). */
enum pl_status model_moe_latent_check(const struct pl_model *m, struct pl_diag *diag);

/* A hybrid stack's MTP module (hybrid_mtp.c): its blocks (the length of
 * model.mtp_pattern; 1 for other models), and one run's forward FLOPs for one
 * sequence of seq tokens from the per-token FLOPs of each block kind and an
 * attention block's core. */
int64_t model_hybrid_mtp_blocks(const struct pl_model *m);
double model_hybrid_mtp_seq_flops(const struct pl_model *m, double seq, double attn_proj_tok,
                                  double moe_tok, double mlp_tok, double attn_core_seq);

/* Hybrid Mamba-2 stacks (mamba.c). */
enum pl_status model_hybrid_check(const struct pl_model *m, struct pl_diag *diag);
/* mamba_conv and mamba_chunk when a hybrid stack leaves them out. */
void model_mamba_defaults(struct pl_model *m);
/* The Mamba-2 mixer's ops on one tp rank, appended at ops[n]; returns the
 * new count. tokens = mbs * seq (per sequence seq tokens). */
int model_mamba_ops(const struct pl_model *m, int64_t tp, int64_t mbs, int64_t seq,
                    int64_t tokens, struct pl_op *ops, int n);
double model_mamba_token_flops(const struct pl_model *m); /* fwd, one token, unsharded */
/* Activation bytes one token keeps for one Mamba-2 mixer's backward on a
 * tp rank; e = bytes of a saved GEMM input element. */
double model_mamba_act_bytes_per_token(const struct pl_model *m, double tp, double e);
/* The NemotronH fields of a Hugging Face config (hf_mamba.c); a no-op for
 * other model types. */
enum pl_status model_hf_hybrid(yajl_val root, const char *origin, const char *type,
                               struct pl_model *m, struct pl_diag *diag);

/* A comma-separated list of names (each of names[0 .. count), at most once)
 * as a bit mask, and back (layout.c); `what` names one ("recompute module"),
 * `expected` lists the choices for the error. An empty list is the caller's
 * to refuse. */
enum pl_status model_name_mask_parse(const char *p, const char *const *names, int count,
                                     const char *what, const char *expected, uint32_t *out,
                                     struct pl_diag *diag);
void model_name_mask_format(uint32_t mask, const char *const *names, int count, char *buf,
                            size_t n);

/* Bytes of one routed token copy that Megatron-Core's fine-grained activation
 * offloading (layout.offload_modules) moves to the host (offload.c); e and
 * mlp in memory_act.c model_mem_layer_act's terms, clamp the clamped GLU's copy. */
double model_offload_copy_bytes(const struct pl_model *m, const struct pl_layout *l, double e,
                                double mlp, double etp, double clamp);

#endif
