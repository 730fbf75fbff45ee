/* test_finetune.c: LoRA (src/model/finetune.c, layout.task lora) against hand
 * derivations on Llama-2 7B (h 4096, 32 heads of 128, no GQA, SwiGLU f 11008,
 * 32 blocks, vocab 32000): the adapters' parameters, a block's frozen and
 * adapter ops, the step's FLOPs and the model states; and the task and
 * target words. */
#include <plateau/plateau.h>

#include <string.h>

#include "check.h"
#include "model_fixture.h"
#include "run_fixture.h"

static struct pl_layout lora(const struct pl_model *m, int64_t gpus, int64_t tp, uint32_t targets,
                             enum pl_shard shard) {
  return resolved(m, (struct pl_layout){.gpus = gpus, .tp = tp, .gbs = gpus, .shard = shard,
                                        .shard_set = true, .task = PL_RUN_LORA,
                                        .lora_targets = targets});
}

/* Adapter weights r (in + out) per target, r = 32, whole widths:
 *   linear_qkv  in h, out 3h (q + 2 kv)  32 x 16,384 = 524,288
 *   linear_proj in h, out h              32 x  8,192 = 262,144
 *   linear_fc1  in h, out 2f             32 x 26,112 = 835,584
 *   linear_fc2  in f, out h              32 x 15,104 = 483,328
 * all four 2,105,344 per block; tp 2 splits each once: 1,052,672. */
static void test_adapter_params(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_layout l = lora(&m, 1, 1, 0, PL_SHARD_DDP);
  CHECK_EQ_INT(pl_lora_rank(&l), 32);
  CHECK_EQ_INT(pl_lora_targets(&l), PL_LORA_ALL);
  CHECK_NEAR_REL(pl_lora_layer_params(&m, &l), 2105344.0, 1e-15);
  CHECK_NEAR_REL(pl_lora_layer_tensors(&l), 8.0, 1e-15);
  struct pl_layout q = lora(&m, 1, 1, PL_LORA_QKV, PL_SHARD_DDP);
  CHECK_NEAR_REL(pl_lora_layer_params(&m, &q), 524288.0, 1e-15);
  CHECK_NEAR_REL(pl_lora_layer_tensors(&q), 2.0, 1e-15);
  struct pl_layout t2 = lora(&m, 2, 2, 0, PL_SHARD_DDP);
  CHECK_NEAR_REL(pl_lora_layer_params(&m, &t2), 1052672.0, 1e-15);
  struct pl_layout r16 = l;
  r16.lora_rank = 16;
  CHECK_NEAR_REL(pl_lora_layer_params(&m, &r16), 1052672.0, 1e-15);
  /* pre-training and SFT train no adapters */
  struct pl_layout pre = resolved(&m, (struct pl_layout){.gpus = 1, .gbs = 1});
  CHECK_NEAR_REL(pl_lora_layer_params(&m, &pre), 0.0, 1e-15);
  CHECK_EQ_INT(pl_lora_rank(&pre), 0);
}

/* One block, mbs 1, seq 4096 (4,096 tokens), tp 1:
 *   qkv frozen: forward 2 x 4096 x 12288 x 4096 = 412,316,860,416 FLOPs,
 *     backward the dgrad alone, the same;
 *   lora_qkv_a (4096 x 4096) @ (4096 x 32): 2 x 4096 x 32 x 4096 = 1,073,741,824,
 *     backward dgrad + wgrad 2,147,483,648;
 *   lora_fc1_b (4096 x 32) @ (32 x 22016): 2 x 4096 x 22016 x 32 = 5,771,362,304;
 *   lora_qkv_add forward 2 B x 5 x 4096 x 12288 = 503,316,480 B, backward
 *     2 B x (2 x 4096 x 12288 + 3 x 4096 x 4096) = 301,989,888 B;
 * twelve ops more than pre-training (A, B, add for four targets).
 * tp 2 with sequence parallelism: lora_qkv_a's r outputs split (n 16);
 * lora_proj_a reads the split input (k 2048) whole rank (n 32), lora_proj_b
 * splits its outputs (n 2048); the proj add runs over the sequence shard:
 * 2 B x 5 x 2048 x 4096 = 83,886,080 B. */
static void test_block_ops(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_op pre[PL_MAX_LAYER_OPS], ops[PL_MAX_LAYER_OPS];
  struct pl_layout lp = resolved(&m, (struct pl_layout){.gpus = 1, .gbs = 1});
  struct pl_layout l = lora(&m, 1, 1, 0, PL_SHARD_DDP);
  int np = pl_layer_ops(&m, &lp, pre), n = pl_layer_ops(&m, &l, ops);
  CHECK_EQ_INT(n, np + 12);
  const struct pl_op *qkv = find(ops, n, "qkv"), *a = find(ops, n, "lora_qkv_a");
  const struct pl_op *b = find(ops, n, "lora_fc1_b"), *add = find(ops, n, "lora_qkv_add");
  CHECK(qkv != NULL && a != NULL && b != NULL && add != NULL);
  if (qkv == NULL || a == NULL || b == NULL || add == NULL)
    return;
  CHECK(qkv->frozen);
  CHECK_NEAR_REL(qkv->fwd_flops, 412316860416.0, 1e-15);
  CHECK_NEAR_REL(qkv->bwd_flops, 412316860416.0, 1e-15);
  CHECK(!a->frozen);
  CHECK_NEAR_REL(a->fwd_flops, 1073741824.0, 1e-15);
  CHECK_NEAR_REL(a->bwd_flops, 2147483648.0, 1e-15);
  CHECK_NEAR_REL(b->fwd_flops, 5771362304.0, 1e-15);
  CHECK_NEAR_REL(add->fwd_bytes, 503316480.0, 1e-15);
  CHECK_NEAR_REL(add->bwd_bytes, 301989888.0, 1e-15);
  CHECK_EQ_INT(add->fwd_kernels, 2);
  for (int i = 0; i < n; i++) /* every base GEMM frozen, every adapter GEMM trained */
    if (ops[i].kind == PL_OP_GEMM)
      CHECK(ops[i].frozen == (strncmp(ops[i].name, "lora_", 5) != 0));
  /* the head's output layer is frozen, the embedding runs no backward */
  int nh = pl_head_ops(&m, &l, ops);
  const struct pl_op *head = find(ops, nh, "lm_head");
  CHECK(head != NULL && head->frozen && head->bwd_flops == head->fwd_flops);
  pl_embed_ops(&m, &l, ops);
  CHECK_NEAR_REL(ops[0].bwd_bytes, 0.0, 1e-15);

  struct pl_layout t2 = lora(&m, 2, 2, 0, PL_SHARD_DDP);
  n = pl_layer_ops(&m, &t2, ops);
  const struct pl_op *a2 = find(ops, n, "lora_qkv_a"), *pa = find(ops, n, "lora_proj_a");
  const struct pl_op *pb = find(ops, n, "lora_proj_b"), *padd = find(ops, n, "lora_proj_add");
  CHECK(a2 != NULL && pa != NULL && pb != NULL && padd != NULL);
  if (a2 == NULL || pa == NULL || pb == NULL || padd == NULL)
    return;
  CHECK_EQ_INT(a2->n, 16);
  CHECK_EQ_INT(pa->k, 2048);
  CHECK_EQ_INT(pa->n, 32);
  CHECK_EQ_INT(pb->n, 2048);
  CHECK_NEAR_REL(padd->fwd_bytes, 83886080.0, 1e-15);
}

/* The step's model FLOPs: pre-training counts 3 x (GEMMs + head + attention);
 * LoRA 2 x (GEMMs + head) + 3 x attention + 3 x adapters. Per token the
 * GEMMs are 32 x (2 x 4 h^2 + 2 x 3 h f) = 32 x 404,750,336 = 12,952,010,752
 * and the head 2 h V = 262,144,000: 13,214,154,752; the adapters (all four)
 * 32 x 2 x 2,105,344 = 134,742,016. So pretrain - lora = tokens x
 * (13,214,154,752 - 3 x 134,742,016) = tokens x 12,809,928,704. */
static void test_step_flops(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_layout lp = resolved(&m, (struct pl_layout){.gpus = 1, .gbs = 1});
  struct pl_layout l = lora(&m, 1, 1, 0, PL_SHARD_DDP);
  struct pl_flops fp, fl;
  pl_flops_compute(&m, &lp, &fp);
  pl_flops_compute(&m, &l, &fl);
  CHECK_NEAR_REL(fp.model_per_step - fl.model_per_step, 4096.0 * 12809928704.0, 1e-12);
}

/* Model states, ddp on one GPU, linear_qkv only: the frozen base keeps its
 * 2 B weights (2 x 6,738,415,616), the adapters 32 x 524,288 = 16,777,216
 * parameters add 2 B each and carry fp32 gradients (4 B: 67,108,864 B) and
 * Adam's states (12 B: 201,326,592 B). zero1 on 8 GPUs shards the states: 1/8. */
static void test_model_states(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g;
  memset(&g, 0, sizeof g);
  g.hbm_bytes = 80.0 * 1024 * 1024 * 1024;
  struct pl_layout l = lora(&m, 1, 1, PL_LORA_QKV, PL_SHARD_DDP);
  struct pl_memory mem;
  pl_memory_compute(&m, &l, &g, &mem);
  double n = 6738415616.0, a = 16777216.0;
  CHECK_NEAR_REL(mem.params_bytes, 2.0 * (n + a), 1e-15);
  CHECK_NEAR_REL(mem.grads_bytes, 4.0 * a, 1e-15);
  CHECK_NEAR_REL(mem.optimizer_bytes, 12.0 * a, 1e-15);
  struct pl_layout z = lora(&m, 8, 1, PL_LORA_QKV, PL_SHARD_ZERO1);
  pl_memory_compute(&m, &z, &g, &mem);
  CHECK_NEAR_REL(mem.optimizer_bytes, 12.0 * a / 8.0, 1e-15);
  /* zero3 (FSDP2) on 8 GPUs: the frozen base and the adapters sharded alike,
   * 2 x (6,738,415,616 + 16,777,216) / 8 = 1,688,798,208 B; the adapters'
   * sharded fp32 gradients 4 x 16,777,216 / 8 = 8,388,608 B and states
   * 12 x 16,777,216 / 8 = 25,165,824 B; zero2 keeps the parameters whole
   * and shards the gradients the same */
  struct pl_layout z3 = lora(&m, 8, 1, PL_LORA_QKV, PL_SHARD_ZERO3);
  pl_memory_compute(&m, &z3, &g, &mem);
  CHECK_NEAR_REL(mem.params_bytes, 1688798208.0, 1e-15);
  CHECK_NEAR_REL(mem.grads_bytes, 8388608.0, 1e-15);
  CHECK_NEAR_REL(mem.optimizer_bytes, 25165824.0, 1e-15);
  struct pl_layout z2 = lora(&m, 8, 1, PL_LORA_QKV, PL_SHARD_ZERO2);
  pl_memory_compute(&m, &z2, &g, &mem);
  CHECK_NEAR_REL(mem.params_bytes, 2.0 * (n + a), 1e-15);
  CHECK_NEAR_REL(mem.grads_bytes, 8388608.0, 1e-15);
}

/* LoRA under layout.fsdp_ga_nosync (NeMo AutoModel's deferred FSDP2 sync,
 * pp 1), Llama-2 7B, linear_qkv, 8 GPUs, mbs 1, gbs 64 (8 micro-batches):
 * the gradients held unsharded until the last backward are the adapters'
 * only, a = 16,777,216 parameters at fp32 (the frozen base has no .grad),
 * while the gathered parameters kept by `keep` are the base and the
 * adapters, n + a = 6,738,415,616 + 16,777,216 (test_model_states):
 *   zero2 (on or keep):  4 a                              =     67,108,864 B
 *   zero3 on:  zero3's two gathered units, 2 x 2 B x the
 *              largest (embedding + final norm + head,
 *              262,148,096), plus 4 a                     =  1,115,701,248 B
 *   zero3 keep: 2 (n + a) + 4 a                           = 13,577,494,528 B
 * (review29b: the merged code held fp32 gradients for the frozen base too,
 * 4 (n + a) = 27,020,771,328 B under zero2 and 6 (n + a) under zero3 keep) */
static void test_ga_nosync(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g;
  memset(&g, 0, sizeof g);
  g.hbm_bytes = 80.0 * 1024 * 1024 * 1024;
  struct pl_memory mem;
  for (int keep = 0; keep < 2; keep++) {
    struct pl_layout z2 = resolved(&m, (struct pl_layout){.gpus = 8, .mbs = 1, .gbs = 64,
                                                          .shard = PL_SHARD_ZERO2, .shard_set = true,
                                                          .task = PL_RUN_LORA,
                                                          .lora_targets = PL_LORA_QKV,
                                                          .fsdp_ga_nosync = true,
                                                          .fsdp_ga_keep = keep == 1});
    CHECK_EQ_INT(z2.micro_batches, 8);
    pl_memory_compute(&m, &z2, &g, &mem);
    CHECK_NEAR_REL(mem.unsharded_bytes, 67108864.0, 1e-15);
  }
  struct pl_layout z3 = resolved(&m, (struct pl_layout){.gpus = 8, .mbs = 1, .gbs = 64,
                                                        .shard = PL_SHARD_ZERO3, .shard_set = true,
                                                        .task = PL_RUN_LORA,
                                                        .lora_targets = PL_LORA_QKV,
                                                        .fsdp_ga_nosync = true});
  pl_memory_compute(&m, &z3, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 1115701248.0, 1e-15);
  z3.fsdp_ga_keep = true;
  pl_memory_compute(&m, &z3, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 13577494528.0, 1e-15);
}

/* The simulator's block (run_fixture.h: h 1024, 8 heads of 128, f 2816,
 * 1,024 tokens a micro-batch), LoRA on all four targets, r 32:
 *  - adapter weights r (in + out): qkv 32 x 4,096 + proj 32 x 2,048 +
 *    fc1 32 x 6,656 + fc2 32 x 3,840 = 532,480. Unfused gradient
 *    accumulation adds them (10 B each: 5,324,800 B) in 8 launches (A and B
 *    of four targets); fused, the adapter GEMMs accumulate in their wgrad
 *    (wgrad_accum_fp32) and nothing is left; the frozen GEMMs have no wgrad
 *    to fuse into. The head and embedding have nothing to accumulate.
 *  - FP8 (delayed scaling, a Hopper-like GPU: FP8 GEMMs TN only, so an input
 *    or output gradient is cast to a rowwise and a columnwise copy, 2 + 2 x 1
 *    B): a frozen GEMM's input and output gradient get the rowwise copy only
 *    (2 + 1 B), the weight both; the adapters stay 16-bit (no casts). Per
 *    micro-batch the casts drop by 1 B x the base inputs, 1,024 x (1,024 x 3
 *    + 2,816) = 6,029,312 B forward, and 1 B x the base outputs, 1,024 x
 *    (3,072 + 1,024 + 5,632 + 1,024) = 11,010,048 B backward. */
static void test_sim_block(void) {
  struct pl_run run;
  struct pl_op ops[PL_MAX_LAYER_OPS];
  small_llama(&run);
  run.layout.task = PL_RUN_LORA;
  int n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *acc = find(ops, n, "grad_accum");
  CHECK(acc != NULL);
  if (acc != NULL) {
    CHECK_NEAR_REL(acc->bwd_bytes, 5324800.0, 1e-12);
    CHECK_EQ_INT(pl_op_kernels(acc, PL_PASS_BWD), 8);
  }
  const struct pl_op *qkv = find(ops, n, "qkv");
  CHECK(qkv != NULL && pl_op_kernels(qkv, PL_PASS_BWD) == 1);
  run.layout.grad_accum_fusion = true;
  n = pl_sim_segment_ops(&run, 1, ops);
  acc = find(ops, n, "grad_accum");
  CHECK(acc == NULL || acc->bwd_bytes == 0.0);
  for (int i = 0; i < n; i++)
    if (ops[i].kind == PL_OP_GEMM && strcmp(ops[i].name, "attn") != 0)
      CHECK(ops[i].wgrad_accum_fp32 == !ops[i].frozen);
  n = pl_sim_segment_ops(&run, 2, ops);
  acc = find(ops, n, "grad_accum");
  CHECK(acc == NULL || acc->bwd_bytes == 0.0);

  struct pl_run pre;
  small_llama(&pre);
  pre.layout.dtype = run.layout.dtype = PL_DTYPE_FP8;
  pre.layout.fp8_recipe = run.layout.fp8_recipe = PL_FP8_RECIPE_DELAYED;
  run.layout.grad_accum_fusion = false;
  struct pl_op pops[PL_MAX_LAYER_OPS];
  int np = pl_sim_segment_ops(&pre, 1, pops);
  n = pl_sim_segment_ops(&run, 1, ops);
  const struct pl_op *cp = find(pops, np, "fp8_casts"), *cl = find(ops, n, "fp8_casts");
  CHECK(cp != NULL && cl != NULL);
  if (cp != NULL && cl != NULL) {
    CHECK_NEAR_REL(cp->fwd_bytes - cl->fwd_bytes, 6029312.0, 1e-12);
    CHECK_NEAR_REL(cp->bwd_bytes - cl->bwd_bytes, 11010048.0, 1e-12);
  }
  const struct pl_op *a = find(ops, n, "lora_fc1_a");
  CHECK(a != NULL && a->high_precision);
}

/* Packed samples (layout.packed_sample_len 256 of seq 4096; Llama 2 7B,
 * 32 heads of 128, mbs 1, tp 1): the attention op is 16 causal squares of
 * 256 per head, m = n = 256, count 32 x 16 = 512; forward FLOPs 2 x (4,096 x
 * 32 rows) x 256 keys x (128 + 128) = 17,179,869,184 (1/16 of the unpacked
 * 274,877,906,944); Q, K, V, O each read or written once either way (the
 * same bytes). The step's model FLOPs drop by 3 x 32 blocks x 2 x 4,096 x
 * 32 x 256 x (4,096 - 256) = 24,739,011,624,960 per sequence. */
static void test_packed(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_op ops[PL_MAX_LAYER_OPS], full[PL_MAX_LAYER_OPS];
  struct pl_layout l = resolved(&m, (struct pl_layout){.gpus = 1, .gbs = 1, .packed_sample_len = 256});
  struct pl_layout u = resolved(&m, (struct pl_layout){.gpus = 1, .gbs = 1});
  int n = pl_layer_ops(&m, &l, ops), nu = pl_layer_ops(&m, &u, full);
  const struct pl_op *a = find(ops, n, "attn"), *au = find(full, nu, "attn");
  CHECK(a != NULL && au != NULL);
  if (a == NULL || au == NULL)
    return;
  CHECK_EQ_INT(a->m, 256);
  CHECK_EQ_INT(a->n, 256);
  CHECK_EQ_INT(a->count, 512);
  CHECK_NEAR_REL(a->fwd_flops, 17179869184.0, 1e-15);
  CHECK_NEAR_REL(au->fwd_flops, 274877906944.0, 1e-15);
  CHECK_NEAR_REL(a->fwd_bytes, au->fwd_bytes, 1e-15);
  struct pl_flops fp, fu;
  pl_flops_compute(&m, &l, &fp);
  pl_flops_compute(&m, &u, &fu);
  CHECK_NEAR_REL(fu.model_per_step - fp.model_per_step, 24739011624960.0, 1e-12);
  /* a length that does not divide seq, or cp 2: refused */
  struct pl_cluster c;
  struct pl_diag d;
  memset(&c, 0, sizeof c);
  c.gpus_per_node = 8;
  struct pl_layout bad = {.gpus = 1, .gbs = 1, .packed_sample_len = 300};
  CHECK(pl_layout_resolve(&bad, &m, &c, &d) == PL_ERR_LAYOUT);
  CHECK_CONTAINS(d.msg, "the nearest that do: 256, 512");
  struct pl_layout cp = {.gpus = 2, .cp = 2, .gbs = 1, .packed_sample_len = 256};
  CHECK(pl_layout_resolve(&cp, &m, &c, &d) == PL_ERR_LAYOUT);
}

static void test_words(void) {
  struct pl_diag d;
  enum pl_run_task t = PL_RUN_PRETRAIN;
  CHECK(pl_run_task_parse("lora", &t, &d) == PL_OK && t == PL_RUN_LORA);
  CHECK(pl_run_task_parse("sft", &t, &d) == PL_OK && t == PL_RUN_SFT);
  CHECK(pl_run_task_parse("LoRA", &t, &d) == PL_ERR_PARSE);
  CHECK_STR(pl_run_task_name(PL_RUN_PRETRAIN), "pretrain");
  uint32_t mask = 0;
  CHECK(pl_lora_targets_parse("linear_fc2,linear_qkv", &mask, &d) == PL_OK);
  CHECK_EQ_INT(mask, PL_LORA_QKV | PL_LORA_FC2);
  char buf[80];
  pl_lora_targets_format(mask, buf, sizeof buf);
  CHECK_STR(buf, "linear_qkv,linear_fc2");
  CHECK(pl_lora_targets_parse("all", &mask, &d) == PL_OK && mask == PL_LORA_ALL);
  CHECK(pl_lora_targets_parse("linear_qkv,linear_qkv", &mask, &d) == PL_ERR_PARSE);
  CHECK(pl_lora_targets_parse("linear_qkv,", &mask, &d) == PL_ERR_PARSE);
  CHECK(pl_lora_targets_parse("qkv", &mask, &d) == PL_ERR_PARSE);
  CHECK(pl_lora_targets_parse("", &mask, &d) == PL_ERR_PARSE);
}

int main(void) {
  test_adapter_params();
  test_block_ops();
  test_step_flops();
  test_model_states();
  test_ga_nosync();
  test_sim_block();
  test_packed();
  test_words();
  return check_finish();
}
