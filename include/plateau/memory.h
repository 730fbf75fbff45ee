/* memory.h: bytes each GPU holds during a step, by part, for the busiest
 * pipeline stage. Mixed-precision AdamW as Megatron-LM keeps it: bf16
 * parameters (2 B), fp32 gradients (4 B), fp32 master weights + Adam m + v
 * (12 B), sharded over the shard group per the ZeRO stage. Activations follow
 * Korthikanti et al. 2022 (arXiv 2205.05198) Sec. 4, generalised to GQA,
 * gated MLPs and FlashAttention; derivations in docs/model.md "Memory".
 * Ownership: plain value owned by the caller. */
#ifndef PLATEAU_MEMORY_H
#define PLATEAU_MEMORY_H

#include <stdbool.h>
#include "hw.h"
#include "layout.h"
#include "model.h"

struct pl_memory {
  double params_bytes;       /* resident parameters (sharded per shard mode) */
  double grads_bytes;        /* gradients */
  double optimizer_bytes;    /* AdamW: fp32 master, m, v */
  double activations_bytes;  /* saved activations of the in-flight micro-batches,
                                embedding/logits on first/last stage, recompute working set */
  double other_bytes;        /* unsharded FSDP buffers, comm buffers, framework allowance */
  double total_bytes;
  double capacity_bytes;     /* the GPU's HBM */
  bool fits;
  int64_t stage;             /* the pipeline stage that decides (0-based) */
  char why[256];             /* when !fits: "needs 91.2 GiB > 80 GiB (optimizer states 48.0 GiB)" */
  /* breakdown of the deciding stage */
  int64_t stage_layers;      /* transformer blocks on it (all its virtual chunks) */
  double stage_params;       /* parameters it holds before ZeRO sharding (tp-sharded) */
  double in_flight;          /* micro-batches whose activations it holds at peak */
  double layer_act_bytes;    /* one block, one micro-batch (pl_memory_layer_activation_bytes) */
  double logits_bytes;       /* fp32 logits for the loss (last stage), included in activations */
  double unsharded_bytes;    /* FSDP/ZeRO gathered params and unsharded grads, in other */
  double comm_bytes;         /* SP all-gather and pipeline send/recv buffers, in other */
  double framework_bytes;    /* CUDA context, NCCL, allocator fragmentation, in other */
};

/* The busiest pipeline stage (largest total); out->stage says which. */
void pl_memory_compute(const struct pl_model *m, const struct pl_layout *l,
                       const struct pl_gpu *g, struct pl_memory *out);
/* The same for one given stage (0-based, clamped to [0, pp - 1]). */
void pl_memory_stage(const struct pl_model *m, const struct pl_layout *l, const struct pl_gpu *g,
                     int64_t stage, struct pl_memory *out);

/* Activation bytes one transformer block saves for backward, for one
 * micro-batch on one GPU (mbs sequences of seq / cp tokens), under the
 * layout's tp, sequence parallelism, recompute mode and attention kind.
 * With a GPT-3 style model (MHA, 4h GELU MLP, dropout) and eager attention
 * this is Korthikanti Table 2: sbh(34 + 5as/h), sbh(10 + 24/t + 5as/ht),
 * sbh(34/t + 5as/ht), without the 5as/h term for selective recompute, and
 * 2sbh (2sbh/t with SP) for full recompute. */
double pl_memory_layer_activation_bytes(const struct pl_model *m, const struct pl_layout *l);

#endif
