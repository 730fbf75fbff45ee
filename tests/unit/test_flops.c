/* test_flops.c: per-GPU ops and per-step FLOP totals against hand
 * derivations, Megatron eq. 3 and the PaLM formula. */
#include <plateau/flops.h>
#include <plateau/memory.h>
#include <plateau/sim.h>

#include <string.h>

#include "check.h"
#include "model_fixture.h"

/* A layout resolved as the CLI would, on 8-GPU nodes. */
static struct pl_layout layout(const struct pl_model *m, int64_t gpus, int64_t tp, int64_t cp,
                               int64_t gbs, enum pl_recompute r) {
  return resolved(m, (struct pl_layout){.gpus = gpus, .tp = tp, .cp = cp, .gbs = gbs, .recompute = r});
}

/* Llama-2 7B, 8 GPUs of DP, gbs 8, seq 4096: 32,768 tokens per step.
 * Matmul weights per block: 4 h^2 + 3 h f = 67,108,864 + 135,266,304 =
 * 202,375,168; with the LM head 32 * 202,375,168 + 131,072,000 =
 * 6,607,077,376 = N minus the token table (131,072,000) and norms (266,240).
 * Per token: 6 * 6,607,077,376 = 39,642,464,256 for the GEMMs plus
 * attention 3 * 4 * s * h * l = 12 * 4096 * 4096 * 32 = 6,442,450,944:
 * 46,084,915,200 FLOPs/token, x 32,768 = 1.5101e18 model FLOPs per step.
 * PaLM's 6N + 12 l h s = 40,430,493,696 + 6,442,450,944 = 46,872,944,640
 * per token: 6N counts the embedding table as if it were a matmul, 1.7% more. */
static void test_llama2_step(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_layout l = layout(&m, 8, 1, 1, 8, PL_RECOMPUTE_NONE);
  struct pl_flops f;
  pl_flops_compute(&m, &l, &f);
  double tokens = 8.0 * 4096;
  CHECK_NEAR_REL(f.tokens_per_step, tokens, 0);
  CHECK_NEAR_REL(f.model_per_step, 46084915200.0 * tokens, 1e-15);
  CHECK_NEAR_REL(f.palm_per_step, 46872944640.0 * tokens, 1e-15);
  CHECK_NEAR_REL(f.palm_per_step - f.model_per_step, 6.0 * (131072000.0 + 266240.0) * tokens,
                 1e-12);
  CHECK_NEAR_REL(f.hardware_per_step, f.model_per_step, 0);
  /* one block, one sequence: 2 * 4096 * 202,375,168 + 4 * 4096^2 * 4096 */
  CHECK_NEAR_REL(f.layer_fwd, 2.0 * 4096 * 202375168.0 + 4.0 * 4096.0 * 4096 * 4096, 1e-15);
  CHECK_NEAR_REL(f.layer_bwd, 2 * f.layer_fwd, 1e-15);
  CHECK_NEAR_REL(f.head_fwd, 2.0 * 4096 * 4096 * 32000, 1e-15);
  /* Selective recompute adds the attention core forward once per block:
   * 8 sequences * 32 blocks * 4 * 4096^2 * 4096 = 7.0369e16. */
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  pl_flops_compute(&m, &l, &f);
  CHECK_NEAR_REL(f.hardware_per_step - f.model_per_step, 8.0 * 32 * 4 * 4096.0 * 4096 * 4096,
                 1e-12);
  /* Full recompute adds one forward of every block: 8 * 32 * layer_fwd. */
  l.recompute = PL_RECOMPUTE_FULL;
  pl_flops_compute(&m, &l, &f);
  CHECK_NEAR_REL(f.hardware_per_step - f.model_per_step, 8.0 * 32 * f.layer_fwd, 1e-12);
}

/* GPT-3 175B with full recompute: hardware FLOPs = 4 passes of every block
 * (24 s h^2 + 4 s^2 h each) + 3 passes of the LM head (2 s h V) =
 * 96 B s l h^2 (1 + s/6h) + 6 B s h V = Narayanan et al. eq. 3 exactly, since
 * 96 B s l h^2 * V/(16 l h) = 6 B s h V. Megatron's SC21 175B run: B = 1536,
 * s = 2048, 1536 GPUs (tp 8, pp 12 in the paper; pp does not change FLOPs). */
static void test_eq3(void) {
  struct pl_model m = model("gpt3-175b");
  struct pl_layout l = layout(&m, 1536, 8, 1, 1536, PL_RECOMPUTE_FULL);
  struct pl_flops f;
  pl_flops_compute(&m, &l, &f);
  double h = 12288, s = 2048, layers = 96, v = 50257, b = 1536;
  double eq3 = 96 * b * s * layers * h * h * (1 + s / (6 * h) + v / (16 * layers * h));
  CHECK_NEAR_REL(f.megatron_per_step, eq3, 1e-15);
  CHECK_NEAR_REL(f.hardware_per_step, eq3, 1e-12);
  /* Without recompute the model FLOPs are 3/4 of the block term plus the head:
   * 72 B s l h^2 (1 + s/6h) + 6 B s h V. */
  double model_flops = 72 * b * s * layers * h * h * (1 + s / (6 * h)) + 6 * b * s * h * v;
  CHECK_NEAR_REL(f.model_per_step, model_flops, 1e-12);
}

/* Summed over the tp * cp GPUs that share a micro-batch, the sharded GEMM and
 * attention FLOPs give back the unsharded block (exact: tp divides heads, KV
 * heads and f; cp divides seq). Llama-3 8B, tp 2, cp 2, seq 8192. */
static void test_sharding_sums(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, 8, 2, 2, 8, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  struct pl_flops f;
  pl_flops_compute(&m, &l, &f);
  int n = pl_layer_ops(&m, &l, ops);
  CHECK_EQ_INT(n, 11);
  double matmul = 0;
  for (int i = 0; i < n; i++)
    if (ops[i].kind != PL_OP_MEMORY)
      matmul += ops[i].fwd_flops;
  CHECK_NEAR_REL(matmul * 2 * 2, f.layer_fwd, 1e-12);
  int nh = pl_head_ops(&m, &l, ops);
  const struct pl_op *head = find(ops, nh, "lm_head");
  CHECK(head != NULL);
  /* 128256 / 2 = 64128 columns, 8192 / 2 = 4096 tokens per GPU */
  CHECK_EQ_INT(head->n, 64128);
  CHECK_EQ_INT(head->m, 4096);
  CHECK_NEAR_REL(head->fwd_flops * 2 * 2, f.head_fwd, 1e-12);
}

/* Shapes of Llama-3 8B on one GPU, mbs 1, seq 8192: QKV n = 4096 + 2 * 8 *
 * 128 = 6144; fc1 fuses gate and up, n = 2 * 14336; attention: 32 heads, 8192
 * queries x 8192 keys x 128; backward 2x (GEMM) and 2.5x (attention). */
static void test_shapes(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_SELECTIVE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *qkv = find(ops, n, "qkv"), *fc1 = find(ops, n, "fc1");
  const struct pl_op *attn = find(ops, n, "attn"), *norm = find(ops, n, "norm1");
  CHECK(qkv && fc1 && attn && norm && find(ops, n, "rope") && find(ops, n, "swiglu"));
  if (!(qkv && fc1 && attn && norm))
    return;
  CHECK_EQ_INT(qkv->m, 8192);
  CHECK_EQ_INT(qkv->n, 6144);
  CHECK_EQ_INT(qkv->k, 4096);
  CHECK_NEAR_REL(qkv->fwd_flops, 2.0 * 8192 * 6144 * 4096, 0);
  CHECK_NEAR_REL(qkv->bwd_flops, 2 * qkv->fwd_flops, 0);
  /* bytes: (8192 x 4096 + 4096 x 6144 + 8192 x 6144) x 2 B */
  CHECK_NEAR_REL(qkv->fwd_bytes, 2.0 * (8192.0 * 4096 + 4096.0 * 6144 + 8192.0 * 6144), 0);
  CHECK_EQ_INT(fc1->n, 28672);
  CHECK_EQ_INT(attn->kind, PL_OP_ATTENTION);
  CHECK_EQ_INT(attn->count, 32);
  CHECK_NEAR_REL(attn->fwd_flops, 4.0 * 32 * 8192 * 8192 * 128, 0);
  CHECK_NEAR_REL(attn->bwd_flops, 2.5 * attn->fwd_flops, 0);
  CHECK(attn->recompute && !qkv->recompute && !norm->recompute);
  CHECK(attn->causal && !qkv->causal);
  /* RMSNorm reads and writes 8192 x 4096 bf16 values: 4 B per element */
  CHECK_NEAR_REL(norm->fwd_bytes, 4.0 * 8192 * 4096, 0);
}

/* Sequence parallelism splits norm and residual tokens by tp; GEMMs keep
 * all tokens and split their weights. Full recompute marks every layer op. */
static void test_sequence_parallel(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_layout l1 = layout(&m, 8, 1, 1, 8, PL_RECOMPUTE_NONE);
  struct pl_layout l4 = layout(&m, 8, 4, 1, 8, PL_RECOMPUTE_FULL);
  struct pl_op a[PL_MAX_LAYER_OPS], b[PL_MAX_LAYER_OPS];
  int na = pl_layer_ops(&m, &l1, a), nb = pl_layer_ops(&m, &l4, b);
  CHECK(l4.sp);
  CHECK_NEAR_REL(find(b, nb, "norm2")->fwd_bytes, find(a, na, "norm2")->fwd_bytes / 4, 1e-15);
  CHECK_NEAR_REL(find(b, nb, "resid1")->fwd_flops, find(a, na, "resid1")->fwd_flops / 4, 1e-15);
  CHECK_EQ_INT(find(b, nb, "proj")->m, 4096);
  CHECK_EQ_INT(find(b, nb, "proj")->k, 1024);
  for (int i = 0; i < nb; i++)
    CHECK(b[i].recompute);
  for (int i = 0; i < na; i++)
    CHECK(!a[i].recompute);
}

/* layout.parallel_block (GPT-NeoX gpt_j_residual, MegaScale Sec. 3.1): Llama-2
 * 7B (h 4096), 8 GPUs, tp 4 with sequence parallelism, seq 4096. The serial
 * block lists norm1, resid1, norm2, resid2 over the sequence shard (t / 4
 * tokens of a micro-batch of t = mbs x 4096); the parallel one keeps norm1
 * (same bytes: RMSNorm 4 B per element over t/4 x 4096) and resid2 (6 B per
 * element over t/4 x 4096), drops resid1 and norm2, and adds branch_sum,
 * the MLP output added onto the attention output before the tp reduction:
 * 6 B per element over all t x 4096 (for t = 4096: 100,663,296 B, four
 * times resid2's 25,165,824). GEMM and attention FLOPs are unchanged. */
static void test_parallel_block(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_layout ls = layout(&m, 8, 4, 1, 8, PL_RECOMPUTE_NONE);
  struct pl_layout lp = ls;
  lp.parallel_block = true;
  struct pl_op s[PL_MAX_LAYER_OPS], p[PL_MAX_LAYER_OPS];
  int ns = pl_layer_ops(&m, &ls, s), np = pl_layer_ops(&m, &lp, p);
  CHECK(ls.sp);
  CHECK_EQ_INT(np, ns - 1); /* - resid1 - norm2 + branch_sum */
  CHECK(find(p, np, "norm2") == NULL && find(p, np, "resid1") == NULL);
  const struct pl_op *sum = find(p, np, "branch_sum"), *r2 = find(p, np, "resid2");
  CHECK(sum != NULL && r2 != NULL);
  if (sum == NULL || r2 == NULL)
    return;
  double t = (double)ls.mbs * 4096.0;
  CHECK_NEAR_REL(sum->fwd_bytes, 6.0 * t * 4096, 1e-15);
  CHECK_NEAR_REL(r2->fwd_bytes, 6.0 * t / 4 * 4096, 1e-15);
  CHECK_NEAR_REL(find(p, np, "norm1")->fwd_bytes, 4.0 * t / 4 * 4096, 1e-15);
  double fs = 0, fp = 0;
  for (int i = 0; i < ns; i++)
    if (s[i].kind != PL_OP_MEMORY)
      fs += s[i].fwd_flops;
  for (int i = 0; i < np; i++)
    if (p[i].kind != PL_OP_MEMORY)
      fp += p[i].fwd_flops;
  CHECK_NEAR_REL(fp, fs, 0);
  /* saved activations (memory_act.c): the serial block saves norm1's and
   * norm2's inputs (2 B each) and the QKV and fc1 inputs (2 B each, bf16);
   * the parallel block norm1's input and the one norm output both GEMMs
   * save: 4 B per element less, over the sequence shard t/4 x 4096 (Llama-2
   * has no dropout): 4 x t / 4 x 4096 = 4,096 t B (16,777,216 at t 4096) */
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &ls) -
                     pl_memory_layer_activation_bytes(&m, &lp),
                 4096.0 * t, 1e-12);
}

/* Recompute ops (torchtitan per-op SAC, flops.c mark_recompute): the mms
 * wk, wo and w3 are re-run, SDPA and wq, wv, w1, w2 kept. Llama-3 8B
 * (h 4096, q 4096, kv 1024, f 14336), 8 GPUs of dp, gbs 8, s 8192: 65,536
 * tokens per step; extra hardware FLOPs 2 h (kv + q + f) per token and block
 * = 2 * 4096 * 19,456 = 159,383,552, x 32 blocks x 65,536 tokens =
 * 3.3425e14. Per micro-batch (8192 tokens) the qkv part re-run is wk's 1,024
 * columns: 2 * 8192 * 1024 * 4096 FLOPs; fc1's w3 half 14,336 columns; with
 * tp 4 wk is 256 columns. */
static void test_recompute_ops(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, 8, 1, 1, 8, PL_RECOMPUTE_OPS);
  struct pl_flops f;
  pl_flops_compute(&m, &l, &f);
  CHECK_NEAR_REL(f.hardware_per_step - f.model_per_step, 159383552.0 * 32 * 65536, 1e-12);
  struct pl_op ops[PL_MAX_LAYER_OPS], part;
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *qkv = find(ops, n, "qkv"), *fc1 = find(ops, n, "fc1");
  CHECK(pl_op_recompute_part(qkv, &part));
  CHECK_EQ_INT(part.n, 1024);
  CHECK_NEAR_REL(part.fwd_flops, 2.0 * 8192 * 1024 * 4096, 0);
  CHECK(pl_op_recompute_part(fc1, &part));
  CHECK_EQ_INT(part.n, 14336);
  CHECK(pl_op_recompute_part(find(ops, n, "proj"), &part));
  CHECK_NEAR_REL(part.fwd_flops, find(ops, n, "proj")->fwd_flops, 0);
  CHECK(!pl_op_recompute_part(find(ops, n, "fc2"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "attn"), &part));
  CHECK(pl_op_recompute_part(find(ops, n, "norm1"), &part));
  CHECK(pl_op_recompute_part(find(ops, n, "swiglu"), &part));
  struct pl_layout l4 = layout(&m, 8, 4, 1, 8, PL_RECOMPUTE_OPS);
  n = pl_layer_ops(&m, &l4, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "qkv"), &part));
  CHECK_EQ_INT(part.n, 256);
  /* the sum of the re-run parts of one block is the closed form's share */
  n = pl_layer_ops(&m, &l, ops);
  double gemm = 0;
  for (int i = 0; i < n; i++)
    if (ops[i].kind != PL_OP_MEMORY && pl_op_recompute_part(&ops[i], &part))
      gemm += part.fwd_flops;
  CHECK_NEAR_REL(gemm * 32 * 8, f.hardware_per_step - f.model_per_step, 1e-12);
  /* no Llama-style block, no ops: GELU MLP */
  struct pl_model g = model("gpt3-175b");
  struct pl_cluster c;
  struct pl_layout lg;
  struct pl_diag d;
  memset(&c, 0, sizeof c);
  memset(&lg, 0, sizeof lg);
  lg.gpus = 8;
  lg.gbs = 8;
  lg.recompute = PL_RECOMPUTE_OPS;
  CHECK(pl_layout_resolve(&lg, &g, &c, &d) == PL_ERR_LAYOUT);
}

/* How many times an average block's backward re-runs an op's forward
 * (pl_op_recompute_runs), as the simulator prices it (segments.c
 * seg_compute). Llama-2 7B, 32 blocks, 8 GPUs:
 *   full alone: every block, 1; --recompute-every 2 (torchtitan's selective
 *   layer AC '2'): blocks 2, 4, .., 32 = 16 of 32 = 0.5; every 3: floor(32/3)
 *   = 10 of 32 = 0.3125; --recompute-layers 5 (block method, one chunk of 32):
 *   5/32 = 0.15625; with pp 2 a stage's chunk holds 16 blocks: 5/16 = 0.3125;
 *   uniform with groups of 4: every block, 1;
 *   selective: the attention core in every block, 1, and qkv never, 0;
 *   none: 0. The recomputed part of a fully recomputed op is the op itself. */
static void test_recompute_runs(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_layout l = layout(&m, 8, 1, 1, 8, PL_RECOMPUTE_FULL);
  struct pl_op ops[PL_MAX_LAYER_OPS], part;
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *qkv = find(ops, n, "qkv");
  CHECK(qkv != NULL);
  if (qkv == NULL)
    return;
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &l, qkv, &part), 1.0, 0);
  CHECK_NEAR_REL(part.fwd_flops, qkv->fwd_flops, 0);
  l.recompute_every = 2;
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &l, qkv, &part), 0.5, 0);
  l.recompute_every = 3;
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &l, qkv, &part), 0.3125, 0);
  l.recompute_every = 0;
  l.recompute_layers = 5;
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &l, qkv, &part), 0.15625, 0);
  struct pl_layout l2 = resolved(&m, (struct pl_layout){.gpus = 8, .pp = 2, .gbs = 8,
                                                         .recompute = PL_RECOMPUTE_FULL,
                                                         .recompute_layers = 5});
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &l2, qkv, &part), 0.3125, 0);
  l.recompute_layers = 4;
  l.recompute_uniform = true;
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &l, qkv, &part), 1.0, 0);
  struct pl_layout ls = layout(&m, 8, 1, 1, 8, PL_RECOMPUTE_SELECTIVE);
  n = pl_layer_ops(&m, &ls, ops);
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &ls, find(ops, n, "attn"), &part), 1.0, 0);
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &ls, find(ops, n, "qkv"), &part), 0.0, 0);
  struct pl_layout ln = layout(&m, 8, 1, 1, 8, PL_RECOMPUTE_NONE);
  n = pl_layer_ops(&m, &ln, ops);
  CHECK_NEAR_REL(pl_op_recompute_runs(&m, &ln, find(ops, n, "attn"), &part), 0.0, 0);
}

/* Megatron-Core selective recompute modules (layout.recompute_modules) on
 * DeepSeek-V3, one GPU, gbs 1, seq 4096. mla_up_proj re-runs q_up
 * (q_lora_rank 1536 -> 128 heads x 192) and kv_up (kv_lora_rank 512 ->
 * 128 x (128 + 128)) and the RoPE: 2 (1536 * 24,576 + 512 * 32,768) =
 * 109,051,904 FLOPs per token and block, x 61 blocks x 4096 tokens; mlp
 * re-runs the 3 dense MLPs: 3 * 2 * 3 * 7168 * 18432 = 2,378,170,368 per
 * token; moe_act and layernorm re-run element-wise kernels only (no matmul
 * FLOPs). */
static void test_recompute_modules(void) {
  struct pl_model m = model("deepseek-v3");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_flops none, f;
  pl_flops_compute(&m, &l, &none);
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MLA_UP_PROJ;
  pl_flops_compute(&m, &l, &f);
  CHECK_NEAR_REL(f.model_per_step, none.model_per_step, 0);
  CHECK_NEAR_REL(f.hardware_per_step - f.model_per_step, 109051904.0 * 61 * 4096, 1e-12);
  l.recompute_modules = PL_RCM_MLA_UP_PROJ | PL_RCM_MLP | PL_RCM_MOE_ACT | PL_RCM_LAYERNORM;
  pl_flops_compute(&m, &l, &f);
  CHECK_NEAR_REL(f.hardware_per_step - f.model_per_step,
                 (109051904.0 * 61 + 2378170368.0) * 4096, 1e-12);
  /* the ops each module marks */
  struct pl_op ops[PL_MAX_LAYER_OPS], part;
  l.recompute_modules = PL_RCM_MLA_UP_PROJ;
  int n = pl_layer_ops(&m, &l, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "q_up"), &part));
  CHECK(pl_op_recompute_part(find(ops, n, "kv_up"), &part));
  CHECK(pl_op_recompute_part(find(ops, n, "rope"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "q_down"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "attn"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "expert_fc1"), &part));
  /* the attention op carries both head dims (Q and K 128 + 64 RoPE = 192,
   * V 128): eager attention times P.V at V's (compute.c eager_attention_s) */
  CHECK_EQ_INT(find(ops, n, "attn")->k, 192);
  CHECK_EQ_INT(find(ops, n, "attn")->k_v, 128);
  l.recompute_modules = PL_RCM_MOE_ACT | PL_RCM_LAYERNORM;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "expert_act"), &part));
  CHECK(pl_op_recompute_part(find(ops, n, "norm1"), &part));
  CHECK(pl_op_recompute_part(find(ops, n, "norm2"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "shared_act"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "expert_fc2"), &part));
  l.recompute_modules = PL_RCM_MOE;
  n = pl_layer_ops(&m, &l, ops);
  static const char *const moe_ops[] = {"router",     "router_topk", "permute",   "expert_fc1",
                                        "expert_act", "expert_fc2",  "unpermute", "shared_fc1",
                                        "shared_act", "shared_fc2"};
  for (size_t i = 0; i < sizeof moe_ops / sizeof moe_ops[0]; i++)
    CHECK(pl_op_recompute_part(find(ops, n, moe_ops[i]), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "norm2"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "fc1"), &part));
  /* 0 = Megatron-Core's default: core_attn alone, the plain selective mode */
  l.recompute_modules = 0;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "attn"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "kv_up"), &part));
  CHECK_EQ_INT((int64_t)pl_layout_recompute_modules(&l), PL_RCM_CORE_ATTN);
  /* what Megatron-Core refuses (transformer_config.py __post_init__) */
  struct pl_model dense = model("llama3-8b");
  struct pl_cluster c;
  struct pl_layout b;
  struct pl_diag d;
  memset(&c, 0, sizeof c);
  const uint32_t bad_dense[] = {PL_RCM_MLA_UP_PROJ, PL_RCM_MOE_ACT, PL_RCM_MOE,
                                PL_RCM_SHARED_EXPERTS};
  for (size_t i = 0; i < sizeof bad_dense / sizeof bad_dense[0]; i++) {
    memset(&b, 0, sizeof b);
    b.gpus = 8;
    b.gbs = 8;
    b.recompute = PL_RECOMPUTE_SELECTIVE;
    b.recompute_modules = bad_dense[i];
    CHECK(pl_layout_resolve(&b, &dense, &c, &d) == PL_ERR_LAYOUT);
  }
  memset(&b, 0, sizeof b);
  b.gpus = 8;
  b.gbs = 8;
  b.recompute = PL_RECOMPUTE_FULL;
  b.recompute_modules = PL_RCM_LAYERNORM;
  CHECK(pl_layout_resolve(&b, &dense, &c, &d) == PL_ERR_LAYOUT);
  /* names: parse and format round trip, bad lists refused */
  uint32_t mask = 0;
  CHECK(pl_recompute_modules_parse("mlp,mla_up_proj", &mask, &d) == PL_OK);
  CHECK_EQ_INT((int64_t)mask, PL_RCM_MLP | PL_RCM_MLA_UP_PROJ);
  char buf[128];
  pl_recompute_modules_format(mask, buf, sizeof buf);
  CHECK(strcmp(buf, "mla_up_proj,mlp") == 0);
  CHECK(pl_recompute_modules_parse("mlp,mlp", &mask, &d) == PL_ERR_PARSE);
  CHECK(pl_recompute_modules_parse("attn", &mask, &d) == PL_ERR_PARSE);
  CHECK(pl_recompute_modules_parse("", &mask, &d) == PL_ERR_PARSE);
  CHECK(pl_recompute_modules_parse("mlp,", &mask, &d) == PL_ERR_PARSE);
}

/* GPT-2 family: no RoPE op, GELU MLP with 2 matrices, learned positions in
 * the embedding op; the vocabulary 50257 is padded to 2 * 25129 under tp 2. */
static void test_gpt_family(void) {
  struct pl_model m = model("gpt3-175b");
  struct pl_layout l = layout(&m, 8, 2, 1, 8, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  CHECK_EQ_INT(n, 10);
  CHECK(find(ops, n, "rope") == NULL && find(ops, n, "gelu") != NULL);
  CHECK_EQ_INT(find(ops, n, "fc1")->n, 49152 / 2);
  CHECK_EQ_INT(pl_embed_ops(&m, &l, ops), 1);
  CHECK(ops[0].fwd_flops > 0); /* position add */
  int nh = pl_head_ops(&m, &l, ops);
  CHECK_EQ_INT(find(ops, nh, "lm_head")->n, 25129);
}

/* The embedding's backward writes the whole table's gradient from
 * at::zeros (PyTorch Embedding.cu embedding_dense_backward_cuda): Llama 3 8B,
 * seq 8192, mbs 1: the 8,192 tokens' 8192 x 4096 x 10 B = 335,544,320 plus
 * the 128,256 x 4096 rows at 2 B = 1,050,673,152: 1,386,217,472 B in the
 * sorted path's 21 kernels (8,192 > 3,072 indices); at tp 2 the rank's 64,128
 * rows: 335,544,320 + 525,336,576 = 860,880,896. GPT-3 at seq 2048, tp 2:
 * 2,048 indices take the feature kernel (fill + 1 = 2 kernels), 2048 x 12288
 * x 10 = 251,658,240 plus 25,129 x 12288 x 2 = 617,570,304: 869,228,544;
 * GPT-3's table is tied to its head, so on one stage autograd also sums the
 * two table gradients (input_buffer.cpp accumulate, 6 B per element):
 * + 25,129 x 12288 x 6 = 1,852,710,912 -> 2,721,939,456 B in 3 kernels; not
 * at pp 2 (the copies on two stages) nor with Megatron's fused head
 * (layout.grad_accum_fusion). */
static void test_embed_table_fill(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, 8, 1, 1, 8, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  CHECK_EQ_INT(pl_embed_ops(&m, &l, ops), 1);
  CHECK_NEAR_REL(ops[0].bwd_bytes, 1386217472.0, 1e-15);
  CHECK_EQ_INT(pl_op_kernels(&ops[0], PL_PASS_BWD), 21);
  CHECK_EQ_INT(pl_op_kernels(&ops[0], PL_PASS_FWD), 1);
  l = layout(&m, 8, 2, 1, 8, PL_RECOMPUTE_NONE);
  pl_embed_ops(&m, &l, ops);
  CHECK_NEAR_REL(ops[0].bwd_bytes, 860880896.0, 1e-15);
  struct pl_model g = model("gpt3-175b");
  l = layout(&g, 8, 2, 1, 8, PL_RECOMPUTE_NONE);
  pl_embed_ops(&g, &l, ops);
  CHECK_NEAR_REL(ops[0].bwd_bytes, 2721939456.0, 1e-15);
  CHECK_EQ_INT(pl_op_kernels(&ops[0], PL_PASS_BWD), 3);
  l.grad_accum_fusion = true;
  pl_embed_ops(&g, &l, ops);
  CHECK_NEAR_REL(ops[0].bwd_bytes, 869228544.0, 1e-15);
  CHECK_EQ_INT(pl_op_kernels(&ops[0], PL_PASS_BWD), 2);
  l.grad_accum_fusion = false;
  l.pp = 2;
  pl_embed_ops(&g, &l, ops);
  CHECK_NEAR_REL(ops[0].bwd_bytes, 869228544.0, 1e-15);
}

/* Mistral's 4096-key window caps the attention keys at seq 8192. */
static void test_window(void) {
  struct pl_model m = model("mistral-7b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *attn = find(ops, n, "attn");
  CHECK_EQ_INT(attn->m, 8192);
  CHECK_EQ_INT(attn->n, 4096);
  CHECK_NEAR_REL(attn->fwd_flops, 4.0 * 32 * 8192 * 4096 * 128, 0);
}

/* Validation: Korthikanti et al. 2022 Table 5 ("present work": selective
 * recompute + SP, A100 peak 312 TFLOP/s, s = 2048, V = 51200, 4h GELU MLP;
 * configs from Table 3, rows copied from shared/validation
 * korthikanti2022_activation_recompute.csv). Their MFU uses model FLOPs
 * 72 B s l h^2 (1 + s/6h + V/12lh), which is plateau's model_per_step for
 * such a model, so MFU = model_per_step / (time * GPUs * 312e12) must give
 * the printed MFU, within the rounding of the printed numbers: time to
 * 0.005 s and MFU to 0.05 points (22B: 0.005/1.10 + 0.0005/0.415 = 0.57%). */
static void test_korthikanti_mfu(void) {
  const struct {
    int64_t layers, hidden, heads, gbs, gpus;
    double time_s, mfu;
  } rows[] = {{48, 6144, 64, 4, 8, 1.10, 0.415},          /* 22B */
              {96, 12288, 96, 64, 64, 13.75, 0.514},      /* 175B */
              {105, 20480, 128, 280, 280, 37.83, 0.560},  /* 530B */
              {128, 25600, 160, 512, 512, 71.49, 0.563}}; /* 1T */
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    char doc[512];
    snprintf(doc, sizeof doc,
             "{\"layers\": %lld, \"hidden\": %lld, \"heads\": %lld, \"ffn_hidden\": %lld,"
             " \"vocab\": 51200, \"seq_len\": 2048, \"max_positions\": 2048, \"mlp\": \"gelu\","
             " \"pos\": \"learned\", \"norm\": \"layer\", \"linear_bias\": true}",
             (long long)rows[i].layers, (long long)rows[i].hidden, (long long)rows[i].heads,
             (long long)(4 * rows[i].hidden));
    struct pl_model m;
    struct pl_diag d, *dp = &d;
    CHECK_STATUS(pl_model_from_json(doc, strlen(doc), "row", &m, &d), PL_OK, dp);
    struct pl_layout l = layout(&m, 8, 8, 1, rows[i].gbs, PL_RECOMPUTE_SELECTIVE);
    struct pl_flops f;
    pl_flops_compute(&m, &l, &f);
    double mfu = f.model_per_step / (rows[i].time_s * (double)rows[i].gpus * 312e12);
    CHECK_NEAR_REL(mfu, rows[i].mfu, 0.005 / rows[i].time_s + 0.0005 / rows[i].mfu);
  }
}

/* GPT-OSS's expert extras (model glu_clamp, mlp_bias): on one GPU with gbs 1 at
 * seq 4096 each of the 128 experts takes 4096 * 4 / 128 = 128 routed copies, so
 * the clamped GLU and the weighted fc2 bias each cover 128 * 128 * 2880 =
 * 47,185,920 elements (expert_ffn = hidden = 2880): the clamps and the cat 16 B
 * forward; backward PyTorch's clamp_backward as a bool mask and a where, glu
 * half (<=, where) 3 + 5 = 8 B, linear half (>=, <=, logical_and_, where)
 * 3 + 3 + 3 + 5 = 14 B per element of its half, and chunk's cat 8 B: 30 B in
 * 2 + 4 + 1 = 7 kernels; the per-expert bias (bf16
 * probabilities) 12 B and 16 B (flops.c GLU_CLAMP, EXPERT_BIAS: the backward's
 * 12 B of products and sums plus split_with_sizes_backward's 4 B cat); the
 * bias's backward launches 4 x 128 + 1 kernels. Under the flex dispatcher the
 * probabilities are fp32 (EXPERT_BIAS_FP32): forward b * p 4 B, the add
 * 2 + 4 + 4, the cat 4 + 4, .to(bf16) 4 + 2 = 28 B in 2 x 128 + 2 kernels;
 * backward the cast up 2 + 4, t's gradient cast down 4 + 2, grad * p and its
 * sum 8 + 4, grad * b and its sum 8 + 4, the split's cat 2 + 2 = 40 B in
 * 6 x 128 + 2 kernels; an fp32 router (router_fp32) does the same. Neither moves the FLOPs; moe_act re-runs the clamp (it is inside
 * Megatron-Core's checkpointed bias_act_func), moe re-runs both. DeepSeek-V3 has
 * neither. */
static void test_gpt_oss_experts(void) {
  struct pl_model m = model("gpt-oss-120b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS], part;
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *clamp = find(ops, n, "expert_clamp"), *bias = find(ops, n, "expert_bias");
  CHECK(clamp != NULL && bias != NULL);
  if (clamp == NULL || bias == NULL)
    return;
  double elems = 128.0 * 128.0 * 2880.0;
  CHECK_NEAR_REL(clamp->fwd_bytes, 16.0 * elems, 1e-12);
  CHECK_NEAR_REL(clamp->bwd_bytes, 30.0 * elems, 1e-12);
  CHECK_EQ_INT(clamp->bwd_kernels, 7);
  CHECK_NEAR_REL(bias->fwd_bytes, 12.0 * elems, 1e-12);
  CHECK_NEAR_REL(bias->bwd_bytes, 16.0 * elems, 1e-12);
  CHECK_EQ_INT(bias->bwd_kernels, 513);
  /* the kernels on PyTorch's non-vectorized path (strided or broadcast
   * operands): the clamps on the chunk halves, 2 elements and 8 B forward;
   * backward the three compares on the saved halves (3 x 3 B) and the two
   * wheres on the cat gradient's slices (2 x 5 B): 5 elements, 19 B; the bias's
   * broadcast products b * p (2 B) and grad * p, grad * b (4 B each) */
  CHECK_NEAR_REL(clamp->fwd_strided_elems, 2.0 * elems, 1e-12);
  CHECK_NEAR_REL(clamp->fwd_strided_bytes, 8.0 * elems, 1e-12);
  CHECK_NEAR_REL(clamp->bwd_strided_elems, 5.0 * elems, 1e-12);
  CHECK_NEAR_REL(clamp->bwd_strided_bytes, 19.0 * elems, 1e-12);
  CHECK_NEAR_REL(bias->fwd_strided_elems, elems, 1e-12);
  CHECK_NEAR_REL(bias->fwd_strided_bytes, 2.0 * elems, 1e-12);
  CHECK_NEAR_REL(bias->bwd_strided_elems, 2.0 * elems, 1e-12);
  CHECK_NEAR_REL(bias->bwd_strided_bytes, 8.0 * elems, 1e-12);
  CHECK_NEAR_REL(find(ops, n, "expert_act")->fwd_strided_elems, 0.0, 0);
  /* forward: two clamps and the cat; per expert b * p and the add, then the cat */
  CHECK_EQ_INT(clamp->fwd_kernels, 3);
  CHECK_EQ_INT(bias->fwd_kernels, 257);
  /* host sync: torch.tensor(linear_offset, device=...) in the clamped GLU
   * (the dispatcher's own wait is layout.moe_host_sync, moe_sync.c) */
  CHECK(clamp->host_sync && !bias->host_sync && !find(ops, n, "expert_act")->host_sync);
  CHECK(!find(ops, n, "router_topk")->host_sync);
  CHECK(clamp->kind == PL_OP_MEMORY && bias->kind == PL_OP_MEMORY);
  /* the clamp sits between fc1 and the activation, the bias right after fc2 */
  CHECK(clamp + 1 == find(ops, n, "expert_act"));
  CHECK(bias - 1 == find(ops, n, "expert_fc2"));
  /* fp32 probabilities: the flex dispatcher (deepep or hybridep), or an fp32 router */
  for (int k = 0; k < 3; k++) {
    struct pl_model mk = m;
    struct pl_layout lk = l;
    if (k < 2)
      lk.dispatch = k == 0 ? PL_MOE_DEEPEP : PL_MOE_HYBRIDEP;
    else
      mk.router_fp32 = true;
    int nk = pl_layer_ops(&mk, &lk, ops);
    const struct pl_op *b32 = find(ops, nk, "expert_bias");
    CHECK(b32 != NULL);
    if (b32 == NULL)
      continue;
    CHECK_NEAR_REL(b32->fwd_bytes, 28.0 * elems, 1e-12);
    CHECK_NEAR_REL(b32->bwd_bytes, 40.0 * elems, 1e-12);
    /* fp32 broadcast products: b * p writes 4 B; grad * p, grad * b 8 B each */
    CHECK_NEAR_REL(b32->fwd_strided_bytes, 4.0 * elems, 1e-12);
    CHECK_NEAR_REL(b32->bwd_strided_elems, 2.0 * elems, 1e-12);
    CHECK_NEAR_REL(b32->bwd_strided_bytes, 16.0 * elems, 1e-12);
    CHECK_EQ_INT(b32->fwd_kernels, 258);
    CHECK_EQ_INT(b32->bwd_kernels, 770);
    /* the clamp does not depend on the probabilities' dtype */
    CHECK_NEAR_REL(find(ops, nk, "expert_clamp")->bwd_bytes, 30.0 * elems, 1e-12);
  }
  /* layout.moe_act_compiled (NeMo AutoModel's @torch.compile quick_geglu_deepep): no eager
   * clamp and cat, the activation one fused kernel each way at the fused GLU's bytes, read
   * fc1's two halves and write the output, 4 + 2 = 6 B forward, read the gradient and the
   * input, write the input's gradient, 2 + 4 + 4 = 10 B backward; the bias unchanged */
  {
    struct pl_layout lc = l;
    lc.moe_act_compiled = true;
    int nc = pl_layer_ops(&m, &lc, ops);
    CHECK(find(ops, nc, "expert_clamp") == NULL);
    const struct pl_op *act = find(ops, nc, "expert_act");
    CHECK(act != NULL && find(ops, nc, "expert_bias") != NULL);
    if (act != NULL) {
      CHECK_NEAR_REL(act->fwd_bytes, 6.0 * elems, 1e-12);
      CHECK_NEAR_REL(act->bwd_bytes, 10.0 * elems, 1e-12);
      CHECK(!act->host_sync);
    }
  }
  /* layout.moe_fc1_bias_eager (NeMo AutoModel's GroupedExpertsDeepEP._apply_bias on fc1's
   * output, no probabilities): over fc1's 2 x 2880 columns, 2 x elems elements: t + b
   * 2 + 2 B and the cat 2 + 2 B forward (8 B), b's sums 2 B and the split's cat 2 + 2 B
   * backward (6 B); t + b on the non-vectorized path (a broadcast b): 1 element, 4 B
   * forward; 128 adds and the cat forward, 128 sums, the bias stack and the cat backward;
   * right after expert_fc1; off by default; fc2's bias unchanged */
  {
    CHECK(find(ops, n, "expert_fc1_bias") == NULL);
    struct pl_layout le = l;
    le.moe_fc1_bias_eager = true;
    int ne = pl_layer_ops(&m, &le, ops);
    const struct pl_op *b1 = find(ops, ne, "expert_fc1_bias");
    CHECK(b1 != NULL);
    if (b1 != NULL) {
      CHECK_NEAR_REL(b1->fwd_bytes, 8.0 * 2.0 * elems, 1e-12);
      CHECK_NEAR_REL(b1->bwd_bytes, 6.0 * 2.0 * elems, 1e-12);
      CHECK_NEAR_REL(b1->fwd_strided_elems, 2.0 * elems, 1e-12);
      CHECK_NEAR_REL(b1->fwd_strided_bytes, 4.0 * 2.0 * elems, 1e-12);
      CHECK_NEAR_REL(b1->bwd_strided_elems, 0.0, 0);
      CHECK_EQ_INT(b1->fwd_kernels, 129);
      CHECK_EQ_INT(b1->bwd_kernels, 130);
      CHECK(b1 - 1 == find(ops, ne, "expert_fc1"));
      CHECK(b1->kind == PL_OP_MEMORY);
      CHECK_NEAR_REL(find(ops, ne, "expert_bias")->fwd_bytes, 12.0 * elems, 1e-12);
    }
  }
  n = pl_layer_ops(&m, &l, ops);
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MOE_ACT;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "expert_clamp"), &part));
  CHECK(!pl_op_recompute_part(find(ops, n, "expert_bias"), &part));
  l.recompute_modules = PL_RCM_MOE;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "expert_clamp"), &part));
  CHECK(pl_op_recompute_part(find(ops, n, "expert_bias"), &part));
  /* the attention output's bias added by Megatron-Core's unfused bias-dropout-add
   * (TEGroupedMLP forbids bias_dropout_fusion with linear biases): resid1 over
   * 4096 tokens x 2880 reads and writes 2 + 2 B more forward (10 B) and sums the
   * gradient for the bias backward (8 B), two kernels each way (RESIDUAL_BIAS) */
  const struct pl_op *r1 = find(ops, n, "resid1");
  double hid = 4096.0 * 2880.0;
  CHECK(r1 != NULL);
  if (r1 != NULL) {
    CHECK_NEAR_REL(r1->fwd_bytes, 10.0 * hid, 1e-12);
    CHECK_NEAR_REL(r1->bwd_bytes, 8.0 * hid, 1e-12);
    CHECK_EQ_INT(r1->fwd_kernels, 2);
    CHECK_EQ_INT(r1->bwd_kernels, 2);
    /* x + bias broadcasts the bias: 1 element, 4 B on the non-vectorized path;
     * the backward's sum is a reduction */
    CHECK_NEAR_REL(r1->fwd_strided_elems, hid, 1e-12);
    CHECK_NEAR_REL(r1->fwd_strided_bytes, 4.0 * hid, 1e-12);
    CHECK_NEAR_REL(r1->bwd_strided_elems, 0.0, 0);
  }
  struct pl_model ds = model("deepseek-v3");
  struct pl_layout ld = layout(&ds, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  n = pl_layer_ops(&ds, &ld, ops);
  CHECK(find(ops, n, "expert_clamp") == NULL && find(ops, n, "expert_bias") == NULL);
  /* no biases: the plain residual add (6 B each way, one kernel) */
  r1 = find(ops, n, "resid1");
  CHECK(r1 != NULL && r1->fwd_kernels <= 1);
  if (r1 != NULL)
    CHECK_NEAR_REL(r1->fwd_bytes, 6.0 * 4096.0 * 7168.0, 1e-12);
}

/* Transformer Engine's fused MXFP8 grouped MLP (layout.fused_grouped_mlp): the
 * GLU with its clamp, the biases and the router probabilities run in cuDNN's
 * grouped GEMM epilogues (TE v2.16 ops/fused/forward_grouped_mlp.py,
 * backward_grouped_mlp.py). GPT-OSS as in test_gpt_oss_experts (128 x 128 x
 * 2880 = 47,185,920 elements of fc2's output): no expert_clamp (so no host
 * sync) and no expert_act; expert_bias keeps only the backward's
 * compute_grouped_dbias_dscales, one kernel reading fc2's output gradient
 * (2 B: 94,371,840 B), nothing forward. DeepSeek-V3: no expert_act, its shared
 * expert's activation stays. */
static void test_fused_grouped_mlp(void) {
  struct pl_model m = model("gpt-oss-120b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  l.fused_grouped_mlp = true;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "expert_clamp") == NULL && find(ops, n, "expert_act") == NULL);
  const struct pl_op *bias = find(ops, n, "expert_bias");
  CHECK(bias != NULL);
  if (bias == NULL)
    return;
  CHECK_NEAR_REL(bias->fwd_bytes, 0.0, 0);
  CHECK_NEAR_REL(bias->bwd_bytes, 94371840.0, 1e-12);
  CHECK_EQ_INT(pl_op_kernels(bias, PL_PASS_FWD), 0);
  CHECK_EQ_INT(pl_op_kernels(bias, PL_PASS_BWD), 1);
  for (int i = 0; i < n; i++)
    CHECK(!ops[i].host_sync);
  CHECK(bias - 1 == find(ops, n, "expert_fc2"));
  struct pl_model ds = model("deepseek-v3");
  struct pl_layout ld = layout(&ds, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  ld.fused_grouped_mlp = true;
  n = pl_layer_ops(&ds, &ld, ops);
  CHECK(find(ops, n, "expert_act") == NULL && find(ops, n, "shared_act") != NULL);
}

/* The forced-balance router's spread (model/moe_balance.c): every token's
 * top_k experts are a uniformly random subset, so a rank's load is a sum of
 * hypergeometric counts and the busiest of ep ranks is sigma sqrt(ep/(ep-1))
 * E[max of ep normals] above the mean.
 * ep 2, 8 experts, top 2, 1,000 tokens a rank: one token puts 2 x 1/2 x 1/2 x
 * 6/7 = 3/7 variance on a rank; 2,000 tokens: sigma sqrt(6000/7); the two
 * loads sum to 4,000, so the larger is the mean 2,000 plus |N(0, sigma)|,
 * E = sigma sqrt(2/pi): 1 + sqrt(2/pi) sqrt(6000/7) / 2000 = 1.01167983.
 * Qwen3-30B-A3B (128 experts, top 8) at ep 16, 4,096 tokens a rank:
 * 8 x 1/16 x 15/16 x 120/127 = 0.442913 per token, x 65,536 tokens, sigma
 * 170.373; E[max of 16] = 1.76599 (Harter 1961, Biometrika 48, Table 1):
 * 1 + sqrt(16/15) x 1.76599 x 170.373 / 32,768 = 1.0094831. Resolving the
 * 16-GPU layout with the forced balance sets it, and pl_moe_imbalance takes
 * the larger of it and the given imbalance. */
static void test_random_imbalance(void) {
  CHECK_NEAR_REL(pl_moe_random_imbalance(8, 2, 2, 1000.0), 1.01167983402, 1e-9);
  CHECK_NEAR_REL(pl_moe_random_imbalance(128, 8, 16, 4096.0), 1.00948314, 1e-7);
  CHECK_NEAR_REL(pl_moe_random_imbalance(128, 8, 1, 4096.0), 1.0, 0);
  CHECK_NEAR_REL(pl_moe_random_imbalance(8, 8, 4, 4096.0), 1.0, 0); /* every expert */
  CHECK(pl_moe_random_imbalance(128, 8, 16, 32768.0) < pl_moe_random_imbalance(128, 8, 16, 4096.0));
  struct pl_model m = model("qwen3-30b-a3b");
  struct pl_layout in = {.gpus = 16, .ep = 16, .gbs = 16, .moe_imbalance = 1.0,
                         .moe_force_balance = true};
  struct pl_layout l = resolved(&m, in);
  CHECK_NEAR_REL(l.moe_random_imbalance, 1.00948314, 1e-7);
  CHECK_NEAR_REL(pl_moe_imbalance(&m, &l), 1.00948314, 1e-7);
  l.moe_imbalance = 1.25; /* a given imbalance above the spread stands */
  CHECK_NEAR_REL(pl_moe_imbalance(&m, &l), 1.25, 0);
  in.moe_force_balance = false;
  l = resolved(&m, in);
  CHECK_NEAR_REL(pl_moe_imbalance(&m, &l), 1.0, 0);
}

/* Megatron-Core's alltoall dispatcher (flops.c MOE_PREPROCESS, SORT_CHUNKS;
 * token_dispatcher.py core_v0.15.0 .. core_v0.18.2). GPT-OSS on one GPU, gbs 1,
 * seq 4096: the routing map is 4096 tokens x 128 experts = 524,288 bools, read
 * once (1 B each) by preprocess, nothing backward; with ep = etp = 1 its two
 * launches are the sum (moe_preprocess) and the tokens_per_expert copy of the
 * 128 local experts' int64 counts (moe_counts_d2h, 1,024 B). The rank computes all
 * 4096 x 4 = 16,384 routed copies x 2880 = 47,185,920 elements: the sort by
 * local expert after the dispatch and the one back before the combine each
 * read and write them (2 + 2 B: 188,743,680 B) both ways, two kernels forward
 * (make_chunk_sort_map, sort_chunks_by_map) and one backward. With ep 8 (16
 * local experts of 1024 copies each, balanced: moe_imbalance 1) the copies are
 * the same 47,185,920 elements (the default imbalance, 1.25 on the busiest
 * rank, makes them 58,982,400: 235,929,600 B); preprocess launches 7 (five
 * sums, the local experts' slice copy, the counts' all_gather) and the copies
 * to the host 4 (tokens_per_expert, input_splits, output_splits,
 * output_splits_tp: 16 + 8 + 8 + 1 = 33 int64, 264 B). One expert per rank (ep 128): no
 * sort. The permutation before the dispatch launches four kernels (the
 * row-id map's three triton passes, then the permute). The flex (deepep)
 * dispatcher runs none of these (its permute stays one kernel). */
static void test_alltoall_dispatcher_ops(void) {
  struct pl_model m = model("gpt-oss-120b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  l.dispatch = PL_MOE_ALLTOALL;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *pre = find(ops, n, "moe_preprocess"), *sort = find(ops, n, "sort_chunks");
  const struct pl_op *unsort = find(ops, n, "unsort_chunks"), *perm = find(ops, n, "permute");
  CHECK(pre != NULL && sort != NULL && unsort != NULL && perm != NULL);
  if (pre == NULL || sort == NULL || unsort == NULL || perm == NULL)
    return;
  CHECK_NEAR_REL(pre->fwd_bytes, 524288.0, 1e-12);
  CHECK_NEAR_REL(pre->bwd_bytes, 0.0, 0);
  CHECK_EQ_INT(pl_op_kernels(pre, PL_PASS_FWD), 1);
  CHECK_EQ_INT(pl_op_kernels(pre, PL_PASS_BWD), 0);
  const struct pl_op *d2h = find(ops, n, "moe_counts_d2h");
  CHECK(d2h != NULL && d2h == pre + 1);
  if (d2h != NULL) {
    CHECK_NEAR_REL(d2h->fwd_bytes, 1024.0, 1e-12);
    CHECK_EQ_INT(pl_op_kernels(d2h, PL_PASS_FWD), 1);
    CHECK_EQ_INT(pl_op_kernels(d2h, PL_PASS_BWD), 0);
  }
  CHECK_NEAR_REL(sort->fwd_bytes, 188743680.0, 1e-12);
  CHECK_NEAR_REL(sort->bwd_bytes, 188743680.0, 1e-12);
  CHECK_NEAR_REL(unsort->fwd_bytes, 188743680.0, 1e-12);
  CHECK_EQ_INT(pl_op_kernels(sort, PL_PASS_FWD), 2);
  CHECK_EQ_INT(pl_op_kernels(sort, PL_PASS_BWD), 1);
  CHECK_EQ_INT(pl_op_kernels(unsort, PL_PASS_BWD), 1);
  /* issue order: preprocess, permute, (dispatch), sort ... unsort, (combine), unpermute */
  CHECK(pre + 2 == perm && perm + 1 == sort);
  CHECK(unsort + 1 == find(ops, n, "unpermute"));
  /* Megatron-Core's schedule nodes under the EP overlap (core_v0.15.0-core_v0.18.0
   * moe_layer.py routed_experts_compute: dispatch_postprocess's sort, the experts,
   * combine_preprocess's unsort in the mlp node; fine_grained_callables.py
   * submodule_combine_forward: the unpermute and mlp_bda in the combine node;
   * preprocess's permute in the attn node) */
  CHECK(pl_op_moe_mlp_node(sort) && pl_op_moe_mlp_node(unsort) && !pl_op_moe_mlp_node(perm));
  CHECK(pl_op_moe_mlp_node(find(ops, n, "expert_fc1")) && !pl_op_moe_mlp_node(pre));
  CHECK(pl_op_moe_combine_node(find(ops, n, "unpermute")) &&
        pl_op_moe_combine_node(find(ops, n, "resid2")));
  CHECK(!pl_op_moe_combine_node(perm) && !pl_op_moe_combine_node(unsort) &&
        !pl_op_moe_mlp_node(find(ops, n, "unpermute")));
  CHECK(sort->fwd_flops == 0 && pre->fwd_flops == 0);
  /* the permutation's three row-id-map passes and the permute kernel; one backward */
  CHECK_EQ_INT(pl_op_kernels(perm, PL_PASS_FWD), 4);
  CHECK_EQ_INT(pl_op_kernels(perm, PL_PASS_BWD), 1);
  l.ep = 8;
  l.moe_imbalance = 1.0;
  n = pl_layer_ops(&m, &l, ops);
  pre = find(ops, n, "moe_preprocess");
  sort = find(ops, n, "sort_chunks");
  CHECK(pre != NULL && sort != NULL);
  if (pre != NULL && sort != NULL) {
    CHECK_EQ_INT(pl_op_kernels(pre, PL_PASS_FWD), 7);
    CHECK_EQ_INT(pl_op_kernels(pre + 1, PL_PASS_FWD), 4);
    CHECK_NEAR_REL(pre[1].fwd_bytes, 264.0, 1e-12);
    CHECK_NEAR_REL(sort->fwd_bytes, 188743680.0, 1e-12);
  }
  l.moe_imbalance = 1.25;
  n = pl_layer_ops(&m, &l, ops);
  CHECK_NEAR_REL(find(ops, n, "sort_chunks")->fwd_bytes, 235929600.0, 1e-12);
  l.ep = 128;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "moe_preprocess") != NULL && find(ops, n, "sort_chunks") == NULL &&
        find(ops, n, "unsort_chunks") == NULL);
  l.ep = 8;
  l.dispatch = PL_MOE_DEEPEP;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "moe_preprocess") == NULL && find(ops, n, "sort_chunks") == NULL);
  CHECK_EQ_INT(pl_op_kernels(find(ops, n, "permute"), PL_PASS_FWD), 1);
  /* the moe module re-runs them */
  l.dispatch = PL_MOE_ALLTOALL;
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MOE;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "moe_preprocess")->recompute && find(ops, n, "sort_chunks")->recompute &&
        find(ops, n, "unsort_chunks")->recompute);
}

/* The shared experts' output add (Megatron-Core moe_layer.py MoELayer.postprocess,
 * core_v0.16.0: output = output + shared_expert_output): DeepSeek-V3 on one GPU,
 * seq 4096, hidden 7168: 4096 x 7168 = 29,360,128 elements, reads 2 and writes
 * 1 x 2 B = 176,160,768 B forward; the backward's sum of the MoE input's two
 * gradients (shared experts, router and dispatch) the same. At tp 2 with
 * sequence parallelism the shard's 2048 tokens: 88,080,384 B. One FLOP per
 * element; in the combine node (postprocess), re-run by the moe recompute
 * module, after the unpermute in the list. GPT-OSS (no shared expert) has none. */
static void test_shared_expert_add(void) {
  struct pl_model m = model("deepseek-v3");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *add = find(ops, n, "moe_shared_add");
  CHECK(add != NULL);
  if (add == NULL)
    return;
  CHECK_NEAR_REL(add->fwd_bytes, 176160768.0, 1e-12);
  CHECK_NEAR_REL(add->bwd_bytes, 176160768.0, 1e-12);
  CHECK_NEAR_REL(add->fwd_flops, 29360128.0, 1e-12);
  CHECK(pl_op_moe_combine_node(add) && !pl_op_moe_mlp_node(add));
  /* the shared experts run in the attn node (core_v0.16.0 fine_grained_callables.py
   * submodule_attn_forward: shared_experts_compute before the router), not the mlp node */
  CHECK(!pl_op_moe_mlp_node(find(ops, n, "shared_fc1")) &&
        !pl_op_moe_mlp_node(find(ops, n, "shared_act")) &&
        !pl_op_moe_mlp_node(find(ops, n, "shared_fc2")));
  CHECK(pl_op_moe_mlp_node(find(ops, n, "expert_fc1")));
  CHECK(add > find(ops, n, "unpermute") && add > find(ops, n, "shared_fc2"));
  CHECK_NEAR_REL(add->share, find(ops, n, "shared_fc2")->share, 0);
  CHECK(!add->recompute);
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MOE;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "moe_shared_add")->recompute);
  l.recompute_modules = PL_RCM_SHARED_EXPERTS;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(!find(ops, n, "moe_shared_add")->recompute);
  struct pl_layout l2 = layout(&m, 2, 2, 1, 1, PL_RECOMPUTE_NONE);
  CHECK(l2.sp);
  n = pl_layer_ops(&m, &l2, ops);
  CHECK_NEAR_REL(find(ops, n, "moe_shared_add")->fwd_bytes, 88080384.0, 1e-12);
  struct pl_model oss = model("gpt-oss-120b");
  struct pl_layout lo = layout(&oss, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  n = pl_layer_ops(&oss, &lo, ops);
  CHECK(find(ops, n, "moe_shared_add") == NULL);
}

/* Latent attention's RoPE as Megatron-Core's fused MLA kernels run it
 * (flops.c mla_rope_bytes; fused_mla_yarn_rope_apply.py core_v0.16.0).
 * DeepSeek-V3 on one GPU, seq 4096: 128 heads, k_dim 192 - 64 = 128, v 128,
 * emb 64. q kernel in place: 4 x 4096 x 128 x 64 = 134,217,728 B; kv kernel:
 * reads kv 128 x (128 + 128) and k_pos_emb 64, writes o_key 128 x (64 + 128)
 * and o_value 128 x 128 per token, 2 B each:
 * 2 x 4096 x (128 x 576 + 64) = 2 x 4096 x 73,792 = 604,504,064 B;
 * 738,721,792 B each way (the backward reads dk, dv and writes d_kv, d_emb:
 * the same sizes), two kernels each way. The old op read and wrote the
 * rotated elements alone: 4 x 4096 x (128 x 64 + 64) = 135,266,304 B.
 * FLOPs stay 3 per rotated element. At tp 2, 64 heads:
 * 4 x 4096 x 64 x 64 + 2 x 4096 x (64 x 576 + 64) = 67,108,864 +
 * 302,514,176 = 369,623,040 B. */
static void test_mla_rope(void) {
  struct pl_model m = model("deepseek-v3");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *r = find(ops, n, "rope");
  CHECK(r != NULL);
  if (r == NULL)
    return;
  CHECK_NEAR_REL(r->fwd_bytes, 738721792.0, 1e-12);
  CHECK_NEAR_REL(r->bwd_bytes, 738721792.0, 1e-12);
  CHECK_NEAR_REL(r->fwd_flops, 3.0 * 4096.0 * (128.0 * 64 + 64), 1e-12);
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_FWD), 2);
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_BWD), 2);
  l = layout(&m, 2, 2, 1, 1, PL_RECOMPUTE_NONE);
  n = pl_layer_ops(&m, &l, ops);
  r = find(ops, n, "rope");
  CHECK(r != NULL && fabs(r->fwd_bytes - 369623040.0) < 1e-3);
}

/* YaRN RoPE (model rope_yarn, GPT-OSS) runs Megatron-Core's unfused path
 * (flops.c ROPE_UNFUSED): on one GPU at seq 4096 the rope op covers q and k,
 * 4096 * (64 * 64 + 8 * 64) = 4096 * 4608 = 18,874,368 elements, 24 B forward
 * (452,984,832 B) in 12 kernels and 34 B backward (641,728,512 B) in 9; the
 * fused op (same model with rope_yarn off) 4 B each way, one kernel. FLOPs
 * unchanged (3 per element each way). */
static void test_rope_yarn(void) {
  struct pl_model m = model("gpt-oss-120b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  CHECK(m.rope_yarn);
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *r = find(ops, n, "rope");
  CHECK(r != NULL);
  if (r == NULL)
    return;
  CHECK_NEAR_REL(r->fwd_bytes, 452984832.0, 1e-12);
  CHECK_NEAR_REL(r->bwd_bytes, 641728512.0, 1e-12);
  CHECK_NEAR_REL(r->fwd_flops, 3.0 * 18874368.0, 1e-12);
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_FWD), 12);
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_BWD), 9);
  /* on PyTorch's non-vectorized path: * cos and * sin (broadcast tables, 1
   * element and 4 B each) and -x2 on a chunk half (0.5 element, 2 B), each way:
   * 2.5 x 18,874,368 = 47,185,920 elements and 10 B x 18,874,368 = 188,743,680 B */
  CHECK_NEAR_REL(r->fwd_strided_elems, 47185920.0, 1e-12);
  CHECK_NEAR_REL(r->bwd_strided_elems, 47185920.0, 1e-12);
  CHECK_NEAR_REL(r->fwd_strided_bytes, 188743680.0, 1e-12);
  CHECK_NEAR_REL(r->bwd_strided_bytes, 188743680.0, 1e-12);
  m.rope_yarn = false;
  n = pl_layer_ops(&m, &l, ops);
  r = find(ops, n, "rope");
  CHECK(r != NULL);
  if (r == NULL)
    return;
  CHECK_NEAR_REL(r->fwd_bytes, 4.0 * 18874368.0, 1e-12);
  CHECK_NEAR_REL(r->bwd_bytes, 4.0 * 18874368.0, 1e-12);
  CHECK_NEAR_REL(r->fwd_strided_elems, 0.0, 0); /* Transformer Engine's fused kernel */
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_FWD), 1);
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_BWD), 1);
}

/* Qwen3's Q/K RMSNorm (Megatron-Core q_layernorm, k_layernorm) between the
 * QKV GEMM and RoPE: Qwen3-30B-A3B on one GPU, mbs 1, seq 4096, 32 query
 * heads and 4 KV heads of 128: q and k widths 4096 + 512 = 4608 per token,
 * 4096 x 4608 = 18,874,368 elements; RMSNorm 4 B forward (read, write) and
 * 6 B backward (read x and dy, write dx) per element: 75,497,472 and
 * 113,246,208 B; two kernels forward, three per norm backward. Llama 3 has
 * no QK norm. */
static void test_qk_norm(void) {
  struct pl_model m = model("qwen3-30b-a3b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *qk = find(ops, n, "qk_norm");
  CHECK(qk != NULL);
  if (qk == NULL)
    return;
  CHECK_NEAR_REL(qk->fwd_bytes, 75497472.0, 0);
  CHECK_NEAR_REL(qk->bwd_bytes, 113246208.0, 0);
  CHECK_EQ_INT(qk->fwd_kernels, 2);
  CHECK_EQ_INT(qk->bwd_kernels, 6);
  CHECK(qk - 1 == find(ops, n, "qkv") && qk + 1 == find(ops, n, "rope"));
  struct pl_model ll = model("llama3-8b");
  struct pl_layout l8 = layout(&ll, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  n = pl_layer_ops(&ll, &l8, ops);
  CHECK(find(ops, n, "qk_norm") == NULL);
}

/* Megatron-Core's GQA query copy (layout.gqa_query_copy, flops.c
 * GQA_QUERY_COPY): Llama 3 8B on one GPU, mbs 1, its seq 8192, 32 query heads
 * and 8 KV groups of 128: ng = 8 lies strictly between 1 and np = 32, so
 * query.reshape copies the 4096-wide query: 8192 x 4096 = 33,554,432
 * elements at 2 B read + 2 B written = 134,217,728 B, one kernel forward,
 * nothing backward. With tp 8 a rank holds one KV group (ng = 1: a view), and
 * Llama 2 7B (np = ng, MHA) has none; off by default. */
static void test_gqa_query_copy(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "q_copy") == NULL);
  l.gqa_query_copy = true;
  n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *q = find(ops, n, "q_copy");
  CHECK(q != NULL);
  if (q == NULL)
    return;
  CHECK_NEAR_REL(q->fwd_bytes, 134217728.0, 0);
  CHECK_NEAR_REL(q->bwd_bytes, 0.0, 0);
  /* the copy reads a strided view: every element on the non-vectorized path */
  CHECK_NEAR_REL(q->fwd_strided_elems, 134217728.0 / 4.0, 0);
  CHECK_NEAR_REL(q->fwd_strided_bytes, 134217728.0, 0);
  CHECK_EQ_INT(pl_op_kernels(q, PL_PASS_FWD), 1);
  CHECK_EQ_INT(pl_op_kernels(q, PL_PASS_BWD), 0);
  CHECK(q - 1 == find(ops, n, "qkv"));
  struct pl_layout l8 = layout(&m, 8, 8, 1, 1, PL_RECOMPUTE_NONE);
  l8.gqa_query_copy = true;
  n = pl_layer_ops(&m, &l8, ops);
  CHECK(find(ops, n, "q_copy") == NULL);
  struct pl_model mha = model("llama2-7b");
  struct pl_layout lm = layout(&mha, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  lm.gqa_query_copy = true;
  n = pl_layer_ops(&mha, &lm, ops);
  CHECK(find(ops, n, "q_copy") == NULL);
}

/* TE's per-expert padding (layout.moe_expert_padding, flops.c EXPERT_PAD): on
 * one GPU with gbs 1 at seq 4096, GPT-OSS's 128 experts take 4096 * 4 / 128 =
 * 128 routed copies each (as test_gpt_oss_experts), so the padding copies
 * cover 128 * 128 * 2880 = 47,185,920 elements: forward the input into the
 * padded rows (2 + 2 B) and fc2's output out of them (2 + 2 B) = 8 B, the
 * backward the same two copies of the gradients = 8 B; three kernels each way
 * (input, probabilities, output). Only under an FP8/FP4 dtype, with the
 * setting on, and not under HybridEP, whose dispatch pads; it sits between the
 * permutation and fc1 and is re-run with the MoE block. */
static void test_expert_padding(void) {
  struct pl_model m = model("gpt-oss-120b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS], part;
  l.moe_expert_padding = true;
  int n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "expert_pad") == NULL); /* bf16: no padding */
  l.dtype = PL_DTYPE_MXFP8;
  n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *pad = find(ops, n, "expert_pad");
  CHECK(pad != NULL);
  if (pad == NULL)
    return;
  double elems = 128.0 * 128.0 * 2880.0;
  CHECK_NEAR_REL(pad->fwd_bytes, 8.0 * elems, 1e-12);
  CHECK_NEAR_REL(pad->bwd_bytes, 8.0 * elems, 1e-12);
  CHECK_EQ_INT(pad->fwd_kernels, 3);
  CHECK_EQ_INT(pad->bwd_kernels, 3);
  CHECK(pad->kind == PL_OP_MEMORY && pad->fwd_flops == 0);
  CHECK(pad + 1 == find(ops, n, "expert_fc1"));
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MOE;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "expert_pad"), &part));
  l.recompute = PL_RECOMPUTE_NONE;
  l.dispatch = PL_MOE_HYBRIDEP;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "expert_pad") == NULL);
  l.dispatch = PL_MOE_DEEPEP;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "expert_pad") != NULL);
  l.moe_expert_padding = false;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "expert_pad") == NULL);
}

/* The router without moe_router_fusion (layout.moe_router_unfused, flops.c
 * ROUTER_TOPK_UNFUSED / ROUTER_AUX_LOSS_UNFUSED). Qwen3-30B-A3B on one GPU,
 * mbs 1, seq 4096: 4,096 tokens x 128 experts = 524,288 fp32 scores. Fused, the
 * top-k is one kernel each way at 12 B per element (read and write the logits,
 * write the probabilities; backward the same) and the load-balancing loss 5
 * kernels each way at 14 / 28 B; unfused, counted from core_v0.16.0 moe_utils.py
 * by hand: top-k 82 B in 27 kernels forward, 16 B in 9 backward; the loss 54 B
 * in 20 forward, 48 B in 12 backward. */
static void test_router_unfused(void) {
  struct pl_model m = model("qwen3-30b-a3b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  const double e = 4096.0 * 128.0;
  CHECK(m.router_aux_loss);
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *t = find(ops, n, "router_topk"), *a = find(ops, n, "router_aux_loss");
  CHECK(t != NULL && a != NULL);
  if (t == NULL || a == NULL)
    return;
  CHECK_NEAR_REL(t->fwd_bytes, 12.0 * e, 1e-12);
  CHECK_NEAR_REL(t->bwd_bytes, 12.0 * e, 1e-12);
  CHECK_EQ_INT(t->fwd_kernels, 0);
  CHECK_EQ_INT(a->fwd_kernels, 5);
  CHECK_EQ_INT(a->bwd_kernels, 5);
  l.moe_router_unfused = true;
  n = pl_layer_ops(&m, &l, ops);
  t = find(ops, n, "router_topk");
  a = find(ops, n, "router_aux_loss");
  CHECK(t != NULL && a != NULL);
  if (t == NULL || a == NULL)
    return;
  CHECK_NEAR_REL(t->fwd_bytes, 82.0 * e, 1e-12);
  CHECK_NEAR_REL(t->bwd_bytes, 16.0 * e, 1e-12);
  CHECK_EQ_INT(t->fwd_kernels, 27);
  CHECK_EQ_INT(t->bwd_kernels, 9);
  CHECK_NEAR_REL(a->fwd_bytes, 54.0 * e, 1e-12);
  CHECK_NEAR_REL(a->bwd_bytes, 48.0 * e, 1e-12);
  CHECK_EQ_INT(a->fwd_kernels, 20);
  CHECK_EQ_INT(a->bwd_kernels, 12);
  CHECK(t->kind == PL_OP_MEMORY && a->kind == PL_OP_MEMORY);
}

/* Megatron-Core's SwiGLU as eager kernels (layout.jit_eager, flops.c SWIGLU_EAGER,
 * SWIGLU_WEIGHTED_EAGER), counted by hand from core_v0.16.0 fused_bias_swiglu.py,
 * per activation (output) element, bf16: swiglu = silu(y_1) (2 + 2 B) and
 * * y_2 (4 + 2) = 10 B in 2 kernels; swiglu_back = 2 x sigmoid (4 each),
 * g * s (6), 1 - s (4), y_1 * (.) (6), 1 + (.) (4), product (6), * y_2 (6),
 * silu (4), g * silu (6), cat (8) = 58 B in 11. Weighted (routed experts,
 * 16-bit probabilities): + * weights (4) = 14 B in 3; backward g * w (4) +
 * swiglu_back (58) + swiglu (10) + * g (6) + sum (2) = 80 B in 16. Fused:
 * 6 / 10 B in one kernel each way. GPT-OSS's experts (weighted quick-GEGLU,
 * fused_bias_geglu.py): forward 1.702 * y_1 (4), sigmoid (4), y_1 * s (6),
 * y_2 + offset (4), product (6), * weights (4) = 28 B in 6; backward g * w (4),
 * quick_geglu_back (4+4+6+4+4+6+4+6+4+6+6+6+8 = 68 B in 13), quick_geglu again
 * (24 B, 5), * g (6), sum (2) = 104 B in 21. Llama 3 8B (ffn 14336, its
 * preset's seq 8192), Qwen3-30B-A3B and GPT-OSS 120B on one GPU, mbs 1. */
static void test_jit_eager(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  const double e = 8192.0 * 14336.0; /* the preset's 8,192 tokens x ffn */
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *a = find(ops, n, "swiglu");
  CHECK(a != NULL);
  if (a == NULL)
    return;
  CHECK_NEAR_REL(a->fwd_bytes, 6.0 * e, 1e-12);
  CHECK_NEAR_REL(a->bwd_bytes, 10.0 * e, 1e-12);
  CHECK_EQ_INT(a->fwd_kernels, 0);
  l.jit_eager = true;
  n = pl_layer_ops(&m, &l, ops);
  a = find(ops, n, "swiglu");
  CHECK(a != NULL);
  if (a == NULL)
    return;
  CHECK_NEAR_REL(a->fwd_bytes, 10.0 * e, 1e-12);
  CHECK_NEAR_REL(a->bwd_bytes, 58.0 * e, 1e-12);
  CHECK_EQ_INT(a->fwd_kernels, 2);
  CHECK_EQ_INT(a->bwd_kernels, 11);
  /* on the halves (non-vectorized): forward silu(y_1) and * y_2 (2 elements,
   * 10 B); backward two sigmoids, y_1 * (1 - s), * y_2, silu(y_1) (5, 24 B) */
  CHECK_NEAR_REL(a->fwd_strided_elems, 2.0 * e, 1e-12);
  CHECK_NEAR_REL(a->fwd_strided_bytes, 10.0 * e, 1e-12);
  CHECK_NEAR_REL(a->bwd_strided_elems, 5.0 * e, 1e-12);
  CHECK_NEAR_REL(a->bwd_strided_bytes, 24.0 * e, 1e-12);

  struct pl_model q = model("qwen3-30b-a3b");
  struct pl_layout lq = layout(&q, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  n = pl_layer_ops(&q, &lq, ops);
  a = find(ops, n, "expert_act");
  CHECK(a != NULL);
  if (a == NULL)
    return;
  double f = a->fwd_bytes, b = a->bwd_bytes;
  lq.jit_eager = true;
  n = pl_layer_ops(&q, &lq, ops);
  a = find(ops, n, "expert_act");
  CHECK(a != NULL);
  if (a == NULL)
    return;
  CHECK_NEAR_REL(a->fwd_bytes, f * 14.0 / 6.0, 1e-12);
  CHECK_NEAR_REL(a->bwd_bytes, b * 80.0 / 10.0, 1e-12);
  CHECK_EQ_INT(a->fwd_kernels, 3);
  CHECK_EQ_INT(a->bwd_kernels, 16);
  /* weighted: + the broadcast * weights (forward 3 elements, 14 B), backward
   * g * weights, swiglu_back's 5 and the re-run swiglu's 2 (8, 38 B); per
   * output element f / 6 B */
  CHECK_NEAR_REL(a->fwd_strided_elems, 3.0 * f / 6.0, 1e-12);
  CHECK_NEAR_REL(a->bwd_strided_bytes, 38.0 * f / 6.0, 1e-12);

  struct pl_model g = model("gpt-oss-120b");
  struct pl_layout lg = layout(&g, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  n = pl_layer_ops(&g, &lg, ops);
  a = find(ops, n, "expert_act");
  CHECK(a != NULL);
  if (a == NULL)
    return;
  f = a->fwd_bytes;
  b = a->bwd_bytes;
  lg.jit_eager = true;
  n = pl_layer_ops(&g, &lg, ops);
  a = find(ops, n, "expert_act");
  CHECK(a != NULL);
  if (a == NULL)
    return;
  CHECK_NEAR_REL(a->fwd_bytes, f * 28.0 / 6.0, 1e-12);
  CHECK_NEAR_REL(a->bwd_bytes, b * 104.0 / 10.0, 1e-12);
  CHECK_EQ_INT(a->fwd_kernels, 6);
  CHECK_EQ_INT(a->bwd_kernels, 21);
  /* quick-GEGLU on the halves: 4 elements, 18 B forward; 8, 36 B backward */
  CHECK_NEAR_REL(a->fwd_strided_elems, 4.0 * f / 6.0, 1e-12);
  CHECK_NEAR_REL(a->fwd_strided_bytes, 18.0 * f / 6.0, 1e-12);
  CHECK_NEAR_REL(a->bwd_strided_elems, 8.0 * f / 6.0, 1e-12);
  CHECK_NEAR_REL(a->bwd_strided_bytes, 36.0 * f / 6.0, 1e-12);
}

/* The benchmarks' forced balance (layout.moe_force_balance; Megatron-Core
 * moe_utils.py RandomSTE: logits.clone().normal_(), backward the identity).
 * Qwen3-30B-A3B on one GPU, mbs 1, seq 4096: the router's logits are 4,096
 * tokens x 128 experts = 524,288 elements; clone reads and writes them, normal_
 * writes them: 3 x 2 B = 3,145,728 B in two kernels forward, nothing backward;
 * with the fp32 router 3 x 4 B = 6,291,456 B. Right after the router (and its
 * fp32 casts), before the top-k; re-run with the moe recompute module. */
static void test_router_random(void) {
  struct pl_model m = model("qwen3-30b-a3b");
  struct pl_layout l = layout(&m, 1, 1, 1, 1, PL_RECOMPUTE_NONE);
  struct pl_op ops[PL_MAX_LAYER_OPS], part;
  int n = pl_layer_ops(&m, &l, ops);
  CHECK(find(ops, n, "router_random") == NULL); /* off by default */
  l.moe_force_balance = true;
  n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *r = find(ops, n, "router_random"), *g = find(ops, n, "router");
  CHECK(r != NULL && g != NULL);
  if (r == NULL || g == NULL)
    return;
  CHECK_EQ_INT(g->m, 4096);
  double elems = 4096.0 * 128.0;
  CHECK_NEAR_REL(r->fwd_bytes, 6.0 * elems, 1e-12);
  CHECK(r->bwd_bytes == 0 && r->fwd_flops == 0 && r->kind == PL_OP_MEMORY);
  CHECK_EQ_INT(r->fwd_kernels, 2);
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_FWD), 2);
  CHECK_EQ_INT(pl_op_kernels(r, PL_PASS_BWD), 0);
  CHECK(r == g + 1 && r + 1 == find(ops, n, "router_topk"));
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MOE;
  n = pl_layer_ops(&m, &l, ops);
  CHECK(pl_op_recompute_part(find(ops, n, "router_random"), &part));
  l.recompute = PL_RECOMPUTE_NONE;
  m.router_fp32 = true;
  n = pl_layer_ops(&m, &l, ops);
  r = find(ops, n, "router_random");
  CHECK(r != NULL && r == find(ops, n, "router_fp32_casts") + 1);
  if (r != NULL)
    CHECK_NEAR_REL(r->fwd_bytes, 12.0 * elems, 1e-12);
}

/* The op list's room (PL_MAX_LAYER_OPS): a hybrid stack with every mixer kind
 * (Nemotron 3 Nano's pattern) given every attention and MoE option at once,
 * under MXFP8 with the alltoall dispatcher over ep 8: Mamba's mixer, the
 * attention with Q/K norm, the GQA query copy and a windowed plus a full
 * attention, a dense MLP block share, the MoE block with an fp32 router, the
 * aux loss, the forced balance's random logits, the dispatcher's counts, the
 * padding, the clamp and the biases, and a shared expert. It must leave room
 * for the 14 ops sim/segments.c may append, or those would be dropped. */
static void test_layer_ops_bound(void) {
  struct pl_model m = model("nemotron-3-nano");
  m.qk_norm = m.glu_clamp = m.mlp_bias = m.router_aux_loss = m.router_fp32 = true;
  m.mlp = PL_MLP_SWIGLU;
  m.sliding_window = 1024;
  m.full_attn_layers = 1;
  m.hybrid_pattern[1] = '-'; /* a dense MLP block too */
  struct pl_layout l = resolved(&m, (struct pl_layout){.gpus = 8, .ep = 8, .gbs = 8});
  l.dtype = PL_DTYPE_MXFP8;
  l.dispatch = PL_MOE_ALLTOALL;
  l.gqa_query_copy = l.moe_expert_padding = l.moe_force_balance = true;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  printf("test_layer_ops_bound: %d ops\n", n);
  CHECK(find(ops, n, "q_copy") != NULL && find(ops, n, "expert_pad") != NULL);
  CHECK(find(ops, n, "router_random") != NULL);
  CHECK(find(ops, n, "ssd_states") != NULL && find(ops, n, "attn_full") != NULL);
  CHECK(find(ops, n, "fc1") != NULL && find(ops, n, "shared_fc1") != NULL);
  CHECK(n + 14 <= PL_MAX_LAYER_OPS);
}

int main(void) {
  test_llama2_step();
  test_rope_yarn();
  test_mla_rope();
  test_eq3();
  test_sharding_sums();
  test_shapes();
  test_sequence_parallel();
  test_parallel_block();
  test_recompute_ops();
  test_recompute_modules();
  test_recompute_runs();
  test_gpt_family();
  test_embed_table_fill();
  test_window();
  test_gpt_oss_experts();
  test_fused_grouped_mlp();
  test_expert_padding();
  test_router_random();
  test_router_unfused();
  test_jit_eager();
  test_alltoall_dispatcher_ops();
  test_shared_expert_add();
  test_random_imbalance();
  test_qk_norm();
  test_gqa_query_copy();
  test_korthikanti_mfu();
  test_layer_ops_bound();
  return check_finish();
}
