/* finetune.c: what fine-tuning changes in a block's step (layout.task;
 * docs/finetune.md). SFT trains every weight on the token stream it is
 * given, so it is pre-training's step and needs nothing here. LoRA (Hu et al.
 * 2021, arXiv 2106.09685) as Megatron-Bridge runs it
 * (NVIDIA-NeMo/Megatron-Bridge 067f987 src/megatron/bridge/peft/lora.py
 * LoRA.transform, peft/utils.py ParallelLinearAdapter, peft/lora_layers.py
 * LoRALinear.forward) and NeMo 1 before it (NeMo 4c73f77 megatron_gpt_
 * finetuning_config.yaml lora_tuning: adapter_dim 32, alpha 32, dropout 0):
 *  - every base weight is frozen (PEFT.freeze_model, requires_grad False):
 *    the base GEMMs run forward and dgrad, no wgrad (pl_op.frozen), the
 *    embedding's backward (its weight gradient) does not run, and the
 *    data-parallel reduction and the optimizer see the adapters only
 *    (Megatron-Core DistributedDataParallel buffers hold requires_grad
 *    parameters only; src/sim/seg_params.c);
 *  - each target linear gets an adapter y += (alpha/dim) B(A(x)), A: in -> r,
 *    B: r -> out, 16-bit GEMMs under any recipe (Megatron-Core's own
 *    tensor_parallel linears, not Transformer Engine's), shaped as
 *    ParallelLinearAdapter shards them: for a column-parallel base (linear_qkv, linear_fc1) A is a ColumnParallelLinear
 *    (r / tp outputs, gathered) and B a ColumnParallelLinear (out / tp); for a
 *    row-parallel base (linear_proj, linear_fc2) A is a RowParallelLinear
 *    (in / tp inputs, r outputs) and B a ColumnParallelLinear (out / tp,
 *    gathered, then scattered to the sequence-parallel shard);
 *  - the adapter's output is scaled (x * alpha / dim) and added to the base
 *    output (two element-wise kernels forward); backward the scale's kernel
 *    and the sum of the base's and the adapter's input gradients (autograd
 *    accumulates both into x's gradient: one add kernel).
 * Not modelled (docs/finetune.md): the adapters' own small tensor-parallel
 * collectives (A's gathered r-wide output, the row-parallel A's all_reduce,
 * B's gathered output), dropout (the default 0 makes it nn.Identity), the
 * first block's input gradient (the frozen embedding needs none), and the
 * saved-activation memory frozen linears no longer keep for a wgrad. */
#include <plateau/flops.h>
#include <plateau/layout.h>

#include <stdio.h>
#include <string.h>

#include "model/constants.h"
#include "model/flops_int.h"
#include "model/model_int.h"

static const char *const task_names[] = {"pretrain", "sft", "lora"};

const char *pl_run_task_name(enum pl_run_task t) {
  return (unsigned)t < sizeof task_names / sizeof task_names[0] ? task_names[t] : "?";
}

enum pl_status pl_run_task_parse(const char *s, enum pl_run_task *out, struct pl_diag *diag) {
  for (size_t i = 0; i < sizeof task_names / sizeof task_names[0]; i++)
    if (s != NULL && strcmp(s, task_names[i]) == 0) {
      *out = (enum pl_run_task)i;
      return PL_OK;
    }
  return pl_diag_set(diag, PL_ERR_PARSE, "unknown task '%s' (expected pretrain|sft|lora)",
                     s != NULL ? s : "");
}

/* Megatron-Bridge's target_modules names, in bit order. */
static const char *const target_names[] = {"linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"};
#define N_TARGETS (sizeof target_names / sizeof target_names[0])

enum pl_status pl_lora_targets_parse(const char *s, uint32_t *out, struct pl_diag *diag) {
  if (s == NULL || s[0] == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE,
                       "empty target list (expected all or linear_qkv,linear_proj,linear_fc1,"
                       "linear_fc2)");
  if (strcmp(s, "all") == 0) {
    *out = PL_LORA_ALL;
    return PL_OK;
  }
  uint32_t mask = 0;
  const char *p = s;
  while (*p != '\0') {
    const char *end = strchr(p, ',');
    size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
    size_t i = 0;
    while (i < N_TARGETS && !(strlen(target_names[i]) == len && strncmp(p, target_names[i], len) == 0))
      i++;
    if (i == N_TARGETS && len == 0)
      return pl_diag_set(diag, PL_ERR_PARSE, "empty target in '%s'", s);
    if (i == N_TARGETS && len == 3 && strncmp(p, "all", 3) == 0)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "'all' stands alone, not in a list with other targets ('%s')", s);
    if (i == N_TARGETS)
      return pl_diag_set(diag, PL_ERR_PARSE,
                         "unknown target '%.*s' (expected all or linear_qkv,linear_proj,"
                         "linear_fc1,linear_fc2)",
                         (int)len, p);
    if ((mask & (1u << i)) != 0)
      return pl_diag_set(diag, PL_ERR_PARSE, "target '%s' given twice", target_names[i]);
    mask |= 1u << i;
    if (end == NULL)
      break;
    p = end + 1;
    if (*p == '\0')
      return pl_diag_set(diag, PL_ERR_PARSE, "empty target after ',' in '%s'", s);
  }
  *out = mask;
  return PL_OK;
}

void pl_lora_targets_format(uint32_t mask, char *buf, size_t n) {
  size_t used = 0;
  if (n > 0)
    buf[0] = '\0';
  for (size_t i = 0; i < N_TARGETS; i++) {
    if ((mask & (1u << i)) == 0)
      continue;
    int w = snprintf(buf + used, used < n ? n - used : 0, "%s%s", used > 0 ? "," : "",
                     target_names[i]);
    used += w > 0 ? (size_t)w : 0;
  }
}

int64_t pl_lora_rank(const struct pl_layout *l) {
  if (l->task != PL_RUN_LORA)
    return 0;
  return l->lora_rank > 0 ? l->lora_rank : LORA_DIM_DEFAULT;
}

uint32_t pl_lora_targets(const struct pl_layout *l) {
  if (l->task != PL_RUN_LORA)
    return 0;
  return l->lora_targets != 0 ? (l->lora_targets & PL_LORA_ALL) : PL_LORA_ALL;
}

/* One target linear's widths: in and out of the whole (unsharded) base
 * linear, and whether the base is column-parallel (its input whole on every
 * tp rank) or row-parallel (its input split by tp). */
struct target {
  const char *a, *b, *add; /* op names */
  double in, out;
  bool column;
};

static int targets_of(const struct pl_model *m, uint32_t mask, struct target t[N_TARGETS]) {
  double h = (double)m->hidden, f = (double)m->ffn_hidden;
  double q = (double)(m->heads * m->head_dim), kv = (double)(m->kv_heads * m->head_dim);
  double up = m->mlp == PL_MLP_SWIGLU ? 2.0 : 1.0;
  const struct target all[N_TARGETS] = {
      {"lora_qkv_a", "lora_qkv_b", "lora_qkv_add", h, q + 2.0 * kv, true},
      {"lora_proj_a", "lora_proj_b", "lora_proj_add", q, h, false},
      {"lora_fc1_a", "lora_fc1_b", "lora_fc1_add", h, up * f, true},
      {"lora_fc2_a", "lora_fc2_b", "lora_fc2_add", f, h, false},
  };
  int n = 0;
  for (size_t i = 0; i < N_TARGETS; i++)
    if ((mask & (1u << i)) != 0)
      t[n++] = all[i];
  return n;
}

double pl_lora_layer_params(const struct pl_model *m, const struct pl_layout *l) {
  uint32_t mask = pl_lora_targets(l);
  if (mask == 0)
    return 0;
  struct target t[N_TARGETS];
  int n = targets_of(m, mask, t);
  double r = (double)pl_lora_rank(l), tp = (double)deg(l->tp), p = 0;
  /* A (in x r) and B (r x out), each split once by tp (ParallelLinearAdapter:
   * the column-parallel A by its r outputs, the row-parallel A by its in
   * inputs, B always by its out outputs) */
  for (int i = 0; i < n; i++)
    p += r * (t[i].in + t[i].out) / tp;
  return p;
}

double pl_lora_layer_tensors(const struct pl_layout *l) {
  uint32_t mask = pl_lora_targets(l);
  double n = 0;
  for (size_t i = 0; i < N_TARGETS; i++)
    n += (mask & (1u << i)) != 0 ? 2.0 : 0.0;
  return n;
}

void model_op_freeze(struct pl_op *op) {
  if (op->kind != PL_OP_GEMM || op->frozen)
    return;
  /* dgrad alone: the forward's FLOPs, and its three matrices once */
  op->frozen = true;
  op->bwd_flops = op->fwd_flops;
  op->bwd_bytes = op->fwd_bytes;
}

int model_lora_layer_ops(const struct pl_model *m, const struct pl_layout *l,
                         struct pl_op *ops, int n) {
  uint32_t mask = pl_lora_targets(l);
  if (mask == 0)
    return n;
  for (int i = 0; i < n; i++)
    model_op_freeze(&ops[i]);
  struct dims d = dims_of(m, l);
  struct target t[N_TARGETS];
  int k = targets_of(m, mask, t);
  int64_t r = pl_lora_rank(l), tp = d.tp;
  for (int i = 0; i < k && n + 3 <= PL_MAX_LAYER_OPS; i++) {
    int64_t in = (int64_t)t[i].in, out = (int64_t)t[i].out;
    if (t[i].column) {
      model_op_gemm(&ops[n], t[i].a, d.tokens, r / tp, in, 1);
      model_op_gemm(&ops[n + 1], t[i].b, d.tokens, out / tp, r, 1);
    } else {
      model_op_gemm(&ops[n], t[i].a, d.tokens, r, in / tp, 1);
      model_op_gemm(&ops[n + 1], t[i].b, d.tokens, out / tp, r, 1);
    }
    /* the adapters are Megatron-Core's own tensor_parallel linears (peft/utils.py
     * imports ColumnParallelLinear, RowParallelLinear from megatron.core.tensor_parallel),
     * plain 16-bit matmuls whatever the recipe: no Transformer Engine FP8 */
    ops[n].high_precision = ops[n + 1].high_precision = true;
    n += 2;
    /* the scale and the add over the base output this rank holds (a
     * row-parallel base's output is the sequence-parallel shard), 2 B
     * elements: forward scale (read, write) and add (two reads, a write);
     * backward the scale (read, write) and the input gradients' sum over
     * the base input this rank holds (two reads, a write) */
    double e_out = t[i].column ? (double)d.tokens * (double)(out / tp)
                               : (double)d.tokens_n * (double)out;
    double e_in = t[i].column ? (double)d.tokens * (double)in : (double)d.tokens * (double)(in / tp);
    model_op_memory(&ops[n], t[i].add, 1.0, 0.0, 0.0, BF16_BYTES * 5.0 * e_out,
                    BF16_BYTES * (2.0 * e_out + 3.0 * e_in));
    ops[n].fwd_kernels = 2;
    ops[n].bwd_kernels = 2;
    n++;
  }
  return n;
}

/* layout.packed_sample_len: the varlen attention of packed samples as
 * flops.c prices it (dims.pack), for the layouts it holds for: a whole
 * number of samples per sequence, no context parallelism (Transformer
 * Engine's THD context parallelism splits each sample over the ranks: not
 * modelled), a fused attention kernel (the eager path materialises the
 * whole s x s scores). */
static enum pl_status packed_check(const struct pl_layout *l, struct pl_diag *diag) {
  int64_t p = l->packed_sample_len, seq = l->seq;
  /* a packed sequence holds whole samples, so none is longer than it (seq
   * itself is one sample: the unpacked step) */
  if (p > seq)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --packed-sample-len %lld exceeds seq %lld (a packed sequence "
                       "holds whole samples)",
                       (long long)p, (long long)seq);
  if (p <= 0 || p == seq)
    return PL_OK;
  if (seq % p != 0) {
    int64_t below = p, above = p;
    while (seq % below != 0)
      below--;
    while (seq % above != 0)
      above++;
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --packed-sample-len %lld must divide seq %lld (the nearest that "
                       "do: %lld, %lld)",
                       (long long)p, (long long)seq, (long long)below, (long long)above);
  }
  if (deg(l->cp) > 1 || l->eager_attention)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --packed-sample-len is modelled with cp 1 and a fused attention "
                       "kernel only");
  return PL_OK;
}

enum pl_status model_lora_check(const struct pl_layout *l, const struct pl_model *m,
                                struct pl_diag *diag) {
  enum pl_status st = packed_check(l, diag);
  if (st != PL_OK)
    return st;
  if (l->task != PL_RUN_LORA) {
    if (l->lora_rank != 0 || l->lora_targets != 0)
      return pl_diag_set(diag, PL_ERR_LAYOUT,
                         "layout: --lora-rank and --lora-targets need --task lora");
    return PL_OK;
  }
  /* zero2/zero3: PyTorch FSDP2 (fully_shard) as NeMo AutoModel and
   * torchtune run LoRA (src/sim/seg_params.c sim_seg_gathered_params: the
   * frozen base weights gathered with the adapters, only the adapters'
   * gradients reduce_scattered). Not the other sharded paths: FSDP1's flat
   * parameter (layout.fsdp1_copies), DeepSpeed 2021's per-parameter ZeRO-3
   * (layout.zero3_list_copy_s) and Megatron FSDP (layout.fsdp_block_units)
   * keep their own buffers, not derived for frozen parameters; nor the FP8
   * all-gather of frozen weights (layout.fp8_all_gather) */
  bool sharded = l->shard == PL_SHARD_ZERO2 || l->shard == PL_SHARD_ZERO3;
  const char *why = pl_model_is_moe(m)      ? "a mixture-of-experts model"
                    : pl_model_is_hybrid(m) ? "a hybrid (Mamba) model"
                    : m->kv_lora_rank > 0   ? "latent attention"
                    : l->mtp_layers > 0     ? "multi-token prediction"
                    : sharded && l->fsdp1_copies ? "FSDP1's flat parameters (--fsdp1-copies)"
                    : sharded && l->zero3_list_copy_s > 0
                        ? "DeepSpeed's per-parameter ZeRO-3 (--zero3-list-copy)"
                    : sharded && l->fsdp_block_units ? "Megatron FSDP (--fsdp-block-units)"
                    /* torchao's float8 all-gather converts nn.Linear modules; whether
                     * a LoRA-wrapped frozen linear is converted is not derived */
                    : sharded && l->fp8_all_gather ? "FP8 all-gather (--fp8-all-gather)"
                                                   : NULL;
  if (why != NULL)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --task lora is modelled for dense attention models with ddp, "
                       "zero1 or FSDP2 (zero2/zero3) only, not %s",
                       why);
  int64_t r = pl_lora_rank(l), tp = deg(l->tp);
  if (l->lora_rank < 0 || r % tp != 0)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --lora-rank %lld must be positive and divisible by tp %lld "
                       "(Megatron-Core's ColumnParallelLinear splits the rank over tp)",
                       (long long)r, (long long)tp);
  /* the adapter factors an in x out update as A (in x r) times B (r x out):
   * a rank above min(in, out) is no longer low-rank (Hu et al. 2021, arXiv
   * 2106.09685 section 4.1, r << min(d, k)); every target linear has the
   * model width on one side, so a rank above it exceeds min(in, out) for all
   * of them (and would only price a larger-than-dense adapter) */
  if (r > m->hidden)
    return pl_diag_set(diag, PL_ERR_LAYOUT,
                       "layout: --lora-rank %lld exceeds the model width %lld (the adapter "
                       "would not be low-rank)",
                       (long long)r, (long long)m->hidden);
  return PL_OK;
}
