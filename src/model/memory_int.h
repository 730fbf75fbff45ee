/* memory_int.h (internal to src/model): what the memory model's files share.
 * memory.c adds up the busiest pipeline stage's bytes (pl_memory_compute)
 * from memory_states.c (a stage's parameters, gradients, optimizer states and
 * FSDP/ZeRO unsharded units) and memory_act.c (one block's activations);
 * memory.c calls the other two, neither calls back (check_calls).
 * Derivations: docs/model.md "Memory". */
#ifndef PL_MEMORY_INT_H
#define PL_MEMORY_INT_H

#include <stdint.h>

#include <plateau/layout.h>
#include <plateau/model.h>

#include "model/model_int.h"

static inline int64_t seq_of(const struct pl_model *m, const struct pl_layout *l) {
  return l->seq > 0 ? l->seq : m->seq_len;
}

/* What divides a block's "replicated" activations (the block input, norm
 * outputs, dropout masks): sequence parallelism shards them over tp. */
static inline double sp_div(const struct pl_layout *l) {
  return l->sp && deg(l->tp) > 1 ? (double)deg(l->tp) : 1.0;
}

/* Sequence parallelism as PyTorch DTensor runs it (layout.tp_gathered_saved:
 * torchtitan's apply_tp, parallelisms/parallelize_llama.py at 9dec370): the
 * input hooks of PrepareModuleInput (the attention and feed_forward modules)
 * and of the output layer's ColwiseParallel(input_layouts=Shard(1)) all-gather
 * the sequence-sharded activation to Replicate before the module runs, so the
 * column-parallel linears inside save the gathered tensor for their weight
 * gradient, whole on every rank. Megatron's sequence-parallel linears
 * (LinearWithGradAccumulationAndAsyncCommunication) save the shard and gather
 * again in the backward. */
static inline bool tp_gathered_inputs_saved(const struct pl_layout *l) {
  return l->tp_gathered_saved && l->sp && deg(l->tp) > 1;
}

/* Tokens of one micro-batch on one GPU: mbs * seq / cp. */
static inline double local_tokens(const struct pl_model *m, const struct pl_layout *l) {
  return (double)deg(l->mbs) * (double)(seq_of(m, l) / deg(l->cp));
}

/* One pipeline stage's figures: model_mem_states fills the first two lines
 * and the model states, memory.c the rest. */
struct stage {
  int64_t layers;
  double params, in_flight, layer_act, logits;
  double params_b, grads_b, optimizer_b, act_b, unsharded_b, comm_b, framework_b, total_b;
};

/* memory_act.c. One block's activations on the GPU for one micro-batch,
 * under recompute mode r: what it saves, less what offloading moves to the
 * host. */
double model_mem_layer_act(const struct pl_model *m, const struct pl_layout *l,
                           enum pl_recompute r);
/* e: bytes of a saved GEMM input element; mlp: bytes per MLP ffn element. */
void model_mem_saved_gemm_bytes(const struct pl_model *m, const struct pl_layout *l, double *e,
                                double *mlp);
/* What fine-grained activation offloading moves to the host from one MoE
 * block of sb tokens. */
double model_mem_offload_moe_block(const struct pl_model *m, const struct pl_layout *l, double sb,
                                   double e, double mlp);
/* What the first block in its backward holds beyond what it saved: eager
 * attention's score gradient, and the MLP's fc2 input gradient (rerun: the
 * bytes of the block being re-run). */
double model_mem_eager_attention_bwd_extra(const struct pl_model *m, const struct pl_layout *l);
/* The core attention's backward under PyTorch's all-gather context
 * parallelism (layout.cp_allgather): the gathered K/V and fp32 gradients. */
double model_mem_cp_allgather_bwd_extra(const struct pl_model *m, const struct pl_layout *l);
double model_mem_mlp_bwd_extra(const struct pl_model *m, const struct pl_layout *l, double rerun);

/* memory_states.c. Stage i's blocks, parameters and model-state bytes
 * (layers, params, params_b, grads_b, optimizer_b, unsharded_b). */
void model_mem_states(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                      struct stage *s);

/* Parameters of rank i's virtual chunk c on one GPU (the token table on the
 * model's first chunk, final norm and LM head on its last). */
double model_mem_chunk_params(const struct pl_model *m, const struct pl_layout *l, int64_t i,
                              int64_t c);

#endif
