/* test_memory.c: memory per GPU: Korthikanti et al. 2022 Table 2, model
 * states under each ZeRO stage, pipeline in-flight micro-batches. */
#include <plateau/flops.h>
#include <plateau/memory.h>

#include <string.h>

#include "check.h"
#include "model_fixture.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* An H100-like GPU filled by hand (80 GiB), so these tests do not depend on
 * the GPU data files. */
static struct pl_gpu gpu80(void) {
  struct pl_gpu g;
  memset(&g, 0, sizeof g);
  g.hbm_bytes = 80 * GIB;
  return g;
}

struct spec {
  int64_t gpus, tp, pp, cp, vp, gbs, mbs, shard_group;
  enum pl_shard shard;
  enum pl_recompute recompute;
  enum pl_schedule schedule;
};

static struct pl_layout layout(const struct pl_model *m, struct spec s) {
  return resolved(m, (struct pl_layout){.gpus = s.gpus, .tp = s.tp, .pp = s.pp, .cp = s.cp,
                                        .vp = s.vp, .gbs = s.gbs, .mbs = s.mbs, .shard = s.shard,
                                        .shard_set = true, .shard_group = s.shard_group,
                                        .recompute = s.recompute, .schedule = s.schedule});
}

/* Korthikanti et al. 2022 Table 2, GPT-3 175B block (h 12288, a 96, 4h GELU
 * MLP, dropout), s 2048, b 1, eager attention (the paper's Megatron):
 * sbh = 2048 * 12288 = 25,165,824 and 5as/h = 5 * 96 * 2048 / 12288 = 80.
 *   no parallelism          sbh (34 + 80)          = 114    sbh = 2,868,903,936 B
 *   tp 8                    sbh (10 + 24/8 + 80/8) = 23     sbh =   578,813,952 B
 *   tp 8 + sp               sbh (34/8 + 80/8)      = 14.25  sbh =   358,612,992 B
 *   selective, none / tp / tp + sp: 34 sbh, 13 sbh, 4.25 sbh
 *   full recompute: 2 sbh = 50,331,648 B; with sp 2 sbh / 8 = 6,291,456 B. */
static void test_korthikanti_table2(void) {
  struct pl_model m = model("gpt3-175b");
  double sbh = 2048.0 * 12288;
  struct spec one = {.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP};
  struct spec tp8 = {.gpus = 8, .tp = 8, .gbs = 1, .shard = PL_SHARD_DDP};
  struct pl_layout l1 = layout(&m, one), lt = layout(&m, tp8), ls = layout(&m, tp8);
  l1.eager_attention = lt.eager_attention = ls.eager_attention = true;
  lt.sp = false; /* tensor parallelism without sequence parallelism */
  CHECK(ls.sp);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l1), 114 * sbh, 1e-15);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &lt), 23 * sbh, 1e-15);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &ls), 14.25 * sbh, 1e-15);
  l1.recompute = lt.recompute = ls.recompute = PL_RECOMPUTE_SELECTIVE;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l1), 34 * sbh, 1e-15);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &lt), 13 * sbh, 1e-15);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &ls), 4.25 * sbh, 1e-15);
  l1.recompute = lt.recompute = ls.recompute = PL_RECOMPUTE_FULL;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l1), 2 * sbh, 1e-15);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &lt), 2 * sbh, 1e-15);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &ls), 2 * sbh / 8, 1e-15);
}

/* Llama-3 8B block (GQA 8 x 128, SwiGLU f 14336, no dropout), s 8192, b 1,
 * FlashAttention, one GPU. Per token: norm1/QKV/norm2/fc1 inputs 8h = 32,768;
 * Q, K, V and proj input 2 (2 * 4096 + 2 * 1024) = 20,480; gate + up 4f and
 * fc2 input 2f = 6 * 14336 = 86,016; fp32 LSE 4 * 32 = 128. Total 139,392 B
 * per token, x 8192 = 1,141,899,264 B. cp 2 halves the tokens and the bytes. */
static void test_gqa_swiglu(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP});
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 139392.0 * 8192, 1e-15);
  struct pl_layout lc =
      layout(&m, (struct spec){.gpus = 2, .cp = 2, .gbs = 1, .shard = PL_SHARD_DDP});
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &lc), 139392.0 * 4096, 1e-15);
}

/* Quantized saved GEMM inputs (memory_act.c model_mem_layer_act; Transformer Engine keeps
 * the quantized copy of a GEMM's input for the weight gradient). Llama-3 8B
 * as test_gqa_swiglu, per token, e bytes an element:
 *   norm1, norm2 inputs 4h = 16,384 (bf16) + QKV, fc1 inputs 2e h;
 *   Q, K, V 2 (q + 2kv) = 12,288; proj input: the attention output FlashAttention
 *   keeps (2q) + its quantized copy (e q); gate + up 4f = 57,344 + fc2 input e f;
 *   LSE 128.
 * FP8 (e 1): 16,384 + 8,192 + 12,288 + 12,288 + 57,344 + 14,336 + 128 = 120,960.
 * NVFP4 (e 0.5 + 1/16): 16,384 + 4,608 + 12,288 + 10,496 + 57,344 + 8,064 + 128
 * = 109,312. MXFP8 (e 1 + 1/32): 16,384 + 8,448 + 12,288 + 12,416 + 57,344 +
 * 14,784 + 128 = 121,792. BF16 stays 139,392 (test_gqa_swiglu). */
static void test_quantized_saved_inputs(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP});
  l.dtype = PL_DTYPE_FP8;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 120960.0 * 8192, 1e-15);
  l.dtype = PL_DTYPE_NVFP4;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 109312.0 * 8192, 1e-15);
  l.dtype = PL_DTYPE_MXFP8;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 121792.0 * 8192, 1e-15);
  l.dtype = PL_DTYPE_BF16;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 139392.0 * 8192, 1e-15);
  /* torchao's Float8Linear (fp8-tensorwise) saves the 16-bit inputs: bf16's figure */
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 139392.0 * 8192, 1e-15);
  /* and so does its rowwise recipe (the same matmul_with_hp_or_float8_args) */
  l.fp8_recipe = PL_FP8_RECIPE_ROWWISE;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 139392.0 * 8192, 1e-15);
}

/* Recompute ops (torchtitan per-op SAC; memory_act.c model_mem_layer_act): Llama-3 8B,
 * s 8192, b 1, FlashAttention. One GPU, per token: block input 2h = 8,192;
 * wq output 2q = 8,192; wv output 2kv = 2,048; SDPA output 2q = 8,192 and
 * its fp32 LSE 4 * 32 = 128; w1 output 2f = 28,672; w2 output 2h = 8,192:
 * 63,616 B, x 8192 = 521,142,272 B. tp 8 with SP: input 2h/8 = 1,024; wq,
 * SDPA 1,024 each; wv 256; LSE 16; w1 3,584; w2 (before its reduce_scatter)
 * 8,192; the two reduce_scatter outputs 2 * 2h/8 = 2,048: 17,168 B per token,
 * x 8192 = 140,640,256 B. */
static void test_recompute_ops(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l1 = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP,
                                                 .recompute = PL_RECOMPUTE_OPS});
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l1), 63616.0 * 8192, 1e-15);
  struct pl_layout l8 = layout(&m, (struct spec){.gpus = 8, .tp = 8, .gbs = 1,
                                                 .shard = PL_SHARD_DDP,
                                                 .recompute = PL_RECOMPUTE_OPS});
  CHECK(l8.sp);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l8), 17168.0 * 8192, 1e-15);
  /* between full and none on the whole stage (the re-run block included) */
  struct pl_gpu g = gpu80();
  double act[4];
  for (int r = 0; r < 4; r++) {
    struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP,
                                                  .recompute = (enum pl_recompute)r});
    struct pl_memory mem;
    pl_memory_compute(&m, &l, &g, &mem);
    act[r] = mem.activations_bytes;
  }
  CHECK(act[PL_RECOMPUTE_FULL] < act[PL_RECOMPUTE_OPS]);
  CHECK(act[PL_RECOMPUTE_OPS] < act[PL_RECOMPUTE_SELECTIVE]);
  /* 32 blocks of the saved set; the re-run set (none - ops = 75,776 B per
   * token) is smaller than the head the stage holds anyway (final-norm and
   * LM-head inputs 4h = 16,384 B plus fp32 logits 4V = 513,024 B per token),
   * and the two are not held at once, so only the blocks differ */
  CHECK_NEAR_REL(act[PL_RECOMPUTE_OPS] - act[PL_RECOMPUTE_NONE],
                 32.0 * (63616.0 - 139392.0) * 8192, 1e-12);
}

/* Megatron-Core --recompute-method uniform (memory.c uniform_groups):
 * Llama-3 8B on one GPU, s 8192, b 1: 32 blocks in groups of 4 keep 8 group
 * inputs (2sbh = 2 * 8192 * 4096 B each) instead of 32, and a group's
 * backward re-creates 4 blocks at once (139,392 B per token each,
 * test_gqa_swiglu) instead of 1. The re-run set and the head (4h + 4V =
 * 529,408 B per token, test_recompute_ops) are held in turn, the larger
 * counts. The re-run set also holds the MLP's fc2 input gradient during
 * its first backward (memory_act.c model_mem_mlp_bwd_extra: 2f = 28,672 B per token, no
 * dropout mask). Full's one block (139,392 + 28,672) is below the head,
 * uniform's four (557,568 + 28,672) above it, so uniform - full =
 * (8 - 32) * 2 * 8192 * 4096 + (4 * 139,392 + 28,672 - 529,408) * 8192 B.
 * With 6 (not dividing 32): 6 groups, the widest 6. */
static void test_recompute_uniform(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP,
                                                .recompute = PL_RECOMPUTE_FULL});
  struct pl_memory full, uni, uni6;
  pl_memory_compute(&m, &l, &g, &full);
  l.recompute_uniform = true;
  l.recompute_layers = 4;
  pl_memory_compute(&m, &l, &g, &uni);
  CHECK_NEAR_REL(uni.activations_bytes - full.activations_bytes,
                 (8.0 - 32.0) * 2 * 8192 * 4096 + (4.0 * 139392 + 28672 - 529408) * 8192, 1e-12);
  l.recompute_layers = 6;
  pl_memory_compute(&m, &l, &g, &uni6);
  CHECK_NEAR_REL(uni6.activations_bytes - full.activations_bytes,
                 (6.0 - 32.0) * 2 * 8192 * 4096 + (6.0 * 139392 + 28672 - 529408) * 8192, 1e-12);
  /* the FLOPs and time of full recompute: every block */
  CHECK_NEAR_REL(pl_recompute_share(&m, &l), 1.0, 0);
}

/* Activation CPU offloading (layout.act_offload_layers; Transformer Engine
 * get_cpu_offload_context: the GPU keeps (num_layers - offloaded) x T).
 * Llama-3 8B, one GPU, s 8192, b 1, bf16: T = 139,392 B per token x 8192 =
 * 1,141,899,264 B a block (test_gqa_swiglu). Offloading 12 of the 32 blocks
 * frees 12 T = 13,702,791,168 B of activations, nothing else: the logits and
 * LM-head inputs stay, and parameters, gradients and optimizer states do not
 * move. 31 blocks (all but the last, TE's most) free 31 T. */
static void test_act_offload(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP});
  struct pl_memory none, off12, off31;
  pl_memory_compute(&m, &l, &g, &none);
  l.act_offload_layers = 12;
  pl_memory_compute(&m, &l, &g, &off12);
  CHECK_NEAR_REL(none.activations_bytes - off12.activations_bytes, 13702791168.0, 1e-12);
  CHECK_NEAR_REL(off12.params_bytes + off12.grads_bytes + off12.optimizer_bytes,
                 none.params_bytes + none.grads_bytes + none.optimizer_bytes, 0);
  l.act_offload_layers = 31;
  pl_memory_compute(&m, &l, &g, &off31);
  CHECK_NEAR_REL(none.activations_bytes - off31.activations_bytes, 31.0 * 1141899264.0, 1e-12);
  /* Megatron-Core refuses it with pp > 1, with recompute, and for N >= blocks */
  struct pl_cluster c;
  struct pl_diag d;
  memset(&c, 0, sizeof c);
  c.gpus_per_node = 8;
  struct pl_layout bad;
  memset(&bad, 0, sizeof bad);
  bad.gpus = 2;
  bad.pp = 2;
  bad.gbs = 2;
  bad.act_offload_layers = 4;
  CHECK(pl_layout_resolve(&bad, &m, &c, &d) == PL_ERR_LAYOUT);
  memset(&bad, 0, sizeof bad);
  bad.gpus = 1;
  bad.gbs = 1;
  bad.recompute = PL_RECOMPUTE_FULL;
  bad.act_offload_layers = 4;
  CHECK(pl_layout_resolve(&bad, &m, &c, &d) == PL_ERR_LAYOUT);
  memset(&bad, 0, sizeof bad);
  bad.gpus = 1;
  bad.gbs = 1;
  bad.act_offload_layers = 32;
  CHECK(pl_layout_resolve(&bad, &m, &c, &d) == PL_ERR_LAYOUT);
}

/* full < selective < none, with eager attention (the s x s scores) and with
 * FlashAttention (only the fp32 LSE separates none from selective). */
static void test_recompute_order(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  for (int eager = 0; eager < 2; eager++) {
    double act[3];
    for (int r = 0; r < 3; r++) {
      struct spec s = {
          .gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO3, .recompute = (enum pl_recompute)r};
      struct pl_layout l = layout(&m, s);
      l.eager_attention = eager;
      struct pl_memory mem;
      pl_memory_compute(&m, &l, &g, &mem);
      act[r] = mem.activations_bytes;
    }
    CHECK(act[PL_RECOMPUTE_FULL] < act[PL_RECOMPUTE_SELECTIVE]);
    CHECK(act[PL_RECOMPUTE_SELECTIVE] < act[PL_RECOMPUTE_NONE]);
  }
}

/* Eager attention's backward (memory_act.c model_mem_eager_attention_bwd_extra): GPT-3 175B
 * block as in test_korthikanti_table2 (sbh = 2048 * 12288, 5as/h = 80), one
 * GPU, b 1, bf16. At the core attention's backward the block still holds the
 * first norm's and QKV's inputs (4 sbh), Q, K, V (6 sbh) and the scores
 * (80 sbh), plus the probabilities' 2-byte gradient 2as/h = 32 sbh: 122 sbh
 * against the 114 sbh it saves, 8 sbh more. Full recompute: 96 block inputs
 * of 2 sbh, the embedding dropout mask (1 sbh) and the re-run block
 * (114 sbh, larger than the head's 4 sbh + fp32 logits ~16.4 sbh):
 * 192 + 1 + 114 + 8 = 315 sbh. Selective: 96 x 34 sbh, the mask, the re-run
 * scores 80 sbh and the 8 sbh: 3,353 sbh. tp 8 (no sp): the block holds
 * 4 + 6/8 + 10 + 4 = 18.75 sbh there against 23 sbh saved: nothing added.
 * FlashAttention: no score gradient, but the MLP's (memory_act.c model_mem_mlp_bwd_extra):
 * fc2's input gradient 2 x 4h = 8 sbh less the freed dropout mask (1 sbh),
 * 7 sbh on the re-run block (34 sbh + the LSE 384 sb). With eager attention
 * the larger of the two counts: 8 sbh above; with tp 8 the MLP's is
 * 8/8 - 1 = 0; under selective recompute the re-run scores (80 sbh) are not
 * there yet at the MLP's backward: 7 - 80 < 0, nothing. */
static void test_eager_attention_backward(void) {
  struct pl_model m = model("gpt3-175b");
  struct pl_gpu g = gpu80();
  double sbh = 2048.0 * 12288;
  struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP,
                                                .recompute = PL_RECOMPUTE_FULL});
  l.eager_attention = true;
  struct pl_memory mem;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.activations_bytes, 315 * sbh, 1e-12);
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.activations_bytes, (96 * 34 + 1 + 80 + 8) * sbh, 1e-12);
  l.recompute = PL_RECOMPUTE_FULL;
  l.eager_attention = false;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.activations_bytes, (192 + 1 + 34 + 7) * sbh + 384 * 2048.0, 1e-12);
  struct pl_layout t8 = layout(&m, (struct spec){.gpus = 8, .tp = 8, .gbs = 1,
                                                 .shard = PL_SHARD_DDP,
                                                 .recompute = PL_RECOMPUTE_FULL});
  t8.eager_attention = true;
  t8.sp = false;
  pl_memory_compute(&m, &t8, &g, &mem);
  CHECK_NEAR_REL(mem.activations_bytes, (192 + 1 + 23) * sbh, 1e-12);
}

/* Llama-2 7B on 8 GPUs (dp 8, pp 1, tp 1): the stage holds all N =
 * 6,738,415,616 parameters. zero1: bf16 params 2N, fp32 grads 4N, optimizer
 * 12N / 8; zero2 also grads / 8; zero3 also params / 8. */
static void test_model_states(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  double n = 6738415616.0;
  const double want[4][3] = {{2 * n, 4 * n, 12 * n},
                             {2 * n, 4 * n, 12 * n / 8},
                             {2 * n, 4 * n / 8, 12 * n / 8},
                             {2 * n / 8, 4 * n / 8, 12 * n / 8}};
  for (int z = 0; z < 4; z++) {
    struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = (enum pl_shard)z});
    struct pl_memory mem;
    pl_memory_compute(&m, &l, &g, &mem);
    CHECK_NEAR_REL(mem.stage_params, n, 1e-15);
    CHECK_NEAR_REL(mem.params_bytes, want[z][0], 1e-15);
    CHECK_NEAR_REL(mem.grads_bytes, want[z][1], 1e-15);
    CHECK_NEAR_REL(mem.optimizer_bytes, want[z][2], 1e-15);
  }
}

/* DeepSpeed 2021 ZeRO-3 (layout.zero3_list_copy_s) gathers per module, not
 * per block (memory_states.c deepspeed_working_elems), by hand. GPT-3 175B on 384
 * GPUs: the largest tensor is the token table, 50,257 x 12,288 =
 * 617,558,016 elements (fc1 and fc2 hold 603,979,776); the working set is
 * that tensor gathered, its full gradient, and the bucket under reduction,
 * max(617,558,016, 2 x 5e8) = 1e9: 2 B x (2 x 617,558,016 + 1e9) =
 * 4,470,232,064 B. With the module trace working (zero3_no_reuse false) up
 * to stage3_max_reuse_distance (1e9) more, with prefetch 5e7 more. The
 * gradient partitions are 16-bit: 2 B x N / 384. Without the per-parameter
 * path the block unit: 2 x 2 B x block + 4 B x block. */
static void test_deepspeed_zero3_working_set(void) {
  struct pl_model m = model("gpt3-175b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 384, .gbs = 384, .shard = PL_SHARD_ZERO3});
  struct pl_memory base, mem;
  pl_memory_compute(&m, &l, &g, &base);
  l.zero3_list_copy_s = 22.64e-6;
  l.zero3_no_reuse = true;
  l.gather_no_prefetch = true;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 2.0 * (2.0 * 617558016.0 + 1e9), 1e-15);
  CHECK_NEAR_REL(mem.grads_bytes, 2.0 * mem.stage_params / 384.0, 1e-15);
  CHECK_NEAR_REL(mem.params_bytes, base.params_bytes, 1e-15);
  double h = 12288.0, block = 12 * h * h + 13 * h;
  CHECK_NEAR_REL(base.unsharded_bytes, 8.0 * block, 1e-15);
  CHECK_NEAR_REL(base.grads_bytes, 4.0 * base.stage_params / 384.0, 1e-15);
  l.zero3_no_reuse = false;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 2.0 * (2.0 * 617558016.0 + 2e9), 1e-15);
  l.gather_no_prefetch = false;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 2.0 * (2.0 * 617558016.0 + 2.05e9), 1e-15);
}

/* Megatron FSDP's gradient shards (layout.shard_grads_reduce_dtype) are in
 * the reduce dtype: Megatron-Core core_v0.16.0 megatron_fsdp/
 * param_and_grad_buffer.py _init_each_parameter_group_buffers makes the
 * main_grad_buffer fp32 only with grad_reduce_in_fp32. By hand, Llama 2 7B
 * (n = 6,738,415,616 parameters) zero3 over 8 GPUs with bf16 reduction:
 * gradients 2 B x n / 8 = 1,684,603,904 B; with fp32 reduction, or without
 * the flag (PyTorch FSDP2 keeps fp32 gradient shards), 4 B x n / 8 =
 * 3,369,207,808 B. Parameters (2 B x n / 8), optimizer (12 B x n / 8) and
 * the unsharded unit do not move. zero2 shards the gradients the same way;
 * ddp is the ddp/zero1 rule (bf16 with grad_reduce_bf16, flag or not). */
static void test_megatron_fsdp_grads(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  double n = 6738415616.0;
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO3});
  struct pl_memory fsdp2, mfsdp, fp32;
  l.grad_reduce_bf16 = true;
  pl_memory_compute(&m, &l, &g, &fsdp2);
  CHECK_NEAR_REL(fsdp2.grads_bytes, 3369207808.0, 1e-15);
  l.shard_grads_reduce_dtype = true;
  pl_memory_compute(&m, &l, &g, &mfsdp);
  CHECK_NEAR_REL(mfsdp.grads_bytes, 1684603904.0, 1e-15);
  CHECK_NEAR_REL(mfsdp.params_bytes, 2.0 * n / 8.0, 1e-15);
  CHECK_NEAR_REL(mfsdp.optimizer_bytes, 12.0 * n / 8.0, 1e-15);
  CHECK_NEAR_REL(mfsdp.unsharded_bytes, fsdp2.unsharded_bytes, 1e-15);
  l.grad_reduce_bf16 = false;
  pl_memory_compute(&m, &l, &g, &fp32);
  CHECK_NEAR_REL(fp32.grads_bytes, 3369207808.0, 1e-15);
  l.grad_reduce_bf16 = true;
  l.shard = PL_SHARD_ZERO2;
  pl_memory_compute(&m, &l, &g, &mfsdp);
  CHECK_NEAR_REL(mfsdp.grads_bytes, 1684603904.0, 1e-15);
  l.shard = PL_SHARD_DDP;
  pl_memory_compute(&m, &l, &g, &mfsdp);
  CHECK_NEAR_REL(mfsdp.grads_bytes, 2.0 * n, 1e-15);
}

/* zero3 bytes per GPU fall as dp grows (8, 16, 64 GPUs, same batch per GPU). */
static void test_zero3_scaling(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  double prev = 0;
  const int64_t gpus[] = {8, 16, 64};
  for (int i = 0; i < 3; i++) {
    struct pl_layout l =
        layout(&m, (struct spec){.gpus = gpus[i], .gbs = gpus[i], .shard = PL_SHARD_ZERO3});
    struct pl_memory mem;
    pl_memory_compute(&m, &l, &g, &mem);
    if (i > 0)
      CHECK(mem.total_bytes < prev);
    prev = mem.total_bytes;
  }
}

/* Hybrid sharding (zero3 over groups of 8 of the 64 data-parallel ranks)
 * needs more than zero3 over all 64 and less than ddp. */
static void test_hybrid(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_memory ddp, hsdp, fsdp;
  struct pl_layout l = layout(&m, (struct spec){.gpus = 64, .gbs = 64, .shard = PL_SHARD_DDP});
  pl_memory_compute(&m, &l, &g, &ddp);
  l = layout(&m, (struct spec){.gpus = 64, .gbs = 64, .shard = PL_SHARD_ZERO3, .shard_group = 8});
  pl_memory_compute(&m, &l, &g, &hsdp);
  l = layout(&m, (struct spec){.gpus = 64, .gbs = 64, .shard = PL_SHARD_ZERO3});
  pl_memory_compute(&m, &l, &g, &fsdp);
  CHECK(fsdp.total_bytes < hsdp.total_bytes);
  CHECK(hsdp.total_bytes < ddp.total_bytes);
  /* optimizer states: 12 N / 8 for the hybrid group, 12 N / 64 for full */
  CHECK_NEAR_REL(hsdp.optimizer_bytes, 12 * 6738415616.0 / 8, 1e-15);
  CHECK_NEAR_REL(fsdp.optimizer_bytes, 12 * 6738415616.0 / 64, 1e-15);
}

/* 1f1b, pp 4, 8 micro-batches: stage 0 holds min(4, 8) = 4 micro-batches,
 * the last stage min(1, 8) = 1; the first stage's activations are larger
 * even though the last one adds the fp32 logits (4 * 4096 * 32000 B). */
static void test_pipeline(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 4, .pp = 4, .gbs = 8, .shard = PL_SHARD_ZERO1});
  CHECK_EQ_INT(l.micro_batches, 8);
  struct pl_memory first, last, busiest;
  pl_memory_stage(&m, &l, &g, 0, &first);
  pl_memory_stage(&m, &l, &g, 3, &last);
  pl_memory_compute(&m, &l, &g, &busiest);
  CHECK_NEAR_REL(first.in_flight, 4, 0);
  CHECK_NEAR_REL(last.in_flight, 1, 0);
  CHECK_EQ_INT(first.stage_layers, 8);
  CHECK_NEAR_REL(last.logits_bytes, 4.0 * 4096 * 32000, 1e-15);
  CHECK(first.activations_bytes > last.activations_bytes);
  CHECK(busiest.total_bytes >= first.total_bytes && busiest.total_bytes >= last.total_bytes);
  /* gpipe holds all 8 micro-batches on every stage */
  l.schedule = PL_SCHEDULE_GPIPE;
  pl_memory_stage(&m, &l, &g, 0, &first);
  CHECK_NEAR_REL(first.in_flight, 8, 0);
  /* interleaved, v = 2: rank 0 holds 2 (4 - 1) + (2 - 1) 4 + 1 = 11 chunk
   * micro-batches = 5.5 stage micro-batches = p (1 + (p - 1)/(p v)) =
   * 4 (1 + 3/8) (Korthikanti Sec. 4.2.3). */
  l = layout(&m, (struct spec){.gpus = 4, .pp = 4, .vp = 2, .gbs = 8, .shard = PL_SHARD_ZERO1});
  CHECK_EQ_INT(l.schedule, PL_SCHEDULE_INTERLEAVED);
  pl_memory_stage(&m, &l, &g, 0, &first);
  CHECK_NEAR_REL(first.in_flight, 4 * (1 + 3.0 / 8), 1e-15);
}

/* FSDP with pipelining as torchtitan runs it (layout.fsdp_pp_unsharded),
 * Llama-2 7B (h 4096, f 11008, 32 blocks, vocab 32000, untied), 8 GPUs,
 * pp 4, zero3 over dp 2. One block on one GPU: 4096 (3 x 4096) + 4096^2 +
 * 3 x 4096 x 11008 + 2 x 4096 norms = 202,383,360 parameters; stage 0 holds
 * 8 blocks and the embedding (32000 x 4096 = 131,072,000): 1,750,138,880;
 * stage 3 8 blocks, the final norm and the LM head: 1,750,142,976. The stage
 * stays gathered in bf16 (2 B) with fp32 unsharded gradients (4 B) for the
 * whole step: 6 B x 1,750,138,880 = 10,500,833,280 B on stage 0 and
 * 10,500,857,856 B on stage 3, instead of zero3's per-unit current and
 * prefetched bf16 parameters and one unit's fp32 gradients (8 B x the
 * largest unit, the block: 1,619,066,880 B). With pp = 1 the behaviour does
 * nothing (torchtitan reshards after forward without pp): zero3's 8 B x the
 * largest unit, there the embedding with the final norm and LM head,
 * 131,072,000 + 4096 + 131,072,000 = 262,148,096 parameters. */
static void test_fsdp_pp_unsharded(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 8, .pp = 4, .gbs = 8, .shard = PL_SHARD_ZERO3});
  struct pl_memory first, last;
  pl_memory_stage(&m, &l, &g, 0, &first);
  CHECK_NEAR_REL(first.unsharded_bytes, 8.0 * 202383360.0, 1e-15);
  double before = first.total_bytes;
  l.fsdp_pp_unsharded = true;
  pl_memory_stage(&m, &l, &g, 0, &first);
  pl_memory_stage(&m, &l, &g, 3, &last);
  CHECK_NEAR_REL(first.stage_params, 1750138880.0, 1e-15);
  CHECK_NEAR_REL(first.unsharded_bytes, 10500833280.0, 1e-15);
  CHECK_NEAR_REL(last.unsharded_bytes, 10500857856.0, 1e-15);
  /* the rest of "other" (buffers, allowance) moves only by 5 % fragmentation */
  CHECK_NEAR_REL(first.total_bytes - before, 1.05 * (10500833280.0 - 1619066880.0), 1e-12);
  /* sharded model states unchanged: 2 B and 4 B over dp 2, 12 B over dp 2 */
  CHECK_NEAR_REL(first.params_bytes, 2.0 * 1750138880.0 / 2, 1e-15);
  CHECK_NEAR_REL(first.grads_bytes, 4.0 * 1750138880.0 / 2, 1e-15);
  l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO3});
  l.fsdp_pp_unsharded = true;
  pl_memory_stage(&m, &l, &g, 0, &first);
  CHECK_NEAR_REL(first.unsharded_bytes, 8.0 * 262148096.0, 1e-15);
}

/* layout.fsdp_ga_nosync + fsdp_ga_keep (NeMo AutoModel's MoEFSDPSyncMixin,
 * pp 1): from the first backward to the last reduce_scatter every unit stays
 * gathered in bf16 (2 B) with its gradient accumulated unsharded in fp32
 * (4 B); without keep (get_sync_ctx alone) only the gradients: zero3 4 B x
 * 6,738,415,616 + its two gathered units 2 x 2 B x 262,148,096 =
 * 26,953,662,464 + 1,048,592,384 = 28,002,254,848 B. Llama-2 7B
 * (test_fsdp_pp_unsharded): 32 x 202,383,360 + 131,072,000 (embedding) +
 * 4096 (final norm) + 131,072,000 (head) = 6,738,415,616 parameters on the
 * one stage. 8 GPUs, dp 8, mbs 1, gbs 64: 8 micro-batches.
 *   zero3: 6 B x 6,738,415,616 = 40,430,493,696 B (was 8 B x the largest
 *          unit, 262,148,096: 2,097,184,768 B);
 *   zero2: the parameters are whole already (params_bytes): 4 B x
 *          6,738,415,616 = 26,953,662,464 B (was 4 B x 262,148,096);
 *   gbs 8 (one micro-batch, nothing to accumulate): unchanged. */
static void test_fsdp_ga_nosync(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_memory mem;
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 64, .mbs = 1, .shard = PL_SHARD_ZERO3});
  pl_memory_stage(&m, &l, &g, 0, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 8.0 * 262148096.0, 1e-15);
  l.fsdp_ga_nosync = true;
  pl_memory_stage(&m, &l, &g, 0, &mem);
  CHECK_NEAR_REL(mem.stage_params, 6738415616.0, 1e-15);
  CHECK_NEAR_REL(mem.unsharded_bytes, 28002254848.0, 1e-15);
  l.fsdp_ga_keep = true;
  pl_memory_stage(&m, &l, &g, 0, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 40430493696.0, 1e-15);
  l = layout(&m, (struct spec){.gpus = 8, .gbs = 64, .mbs = 1, .shard = PL_SHARD_ZERO2});
  l.fsdp_ga_nosync = true;
  pl_memory_stage(&m, &l, &g, 0, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 26953662464.0, 1e-15);
  l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .mbs = 1, .shard = PL_SHARD_ZERO3});
  l.fsdp_ga_nosync = l.fsdp_ga_keep = true;
  pl_memory_stage(&m, &l, &g, 0, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 8.0 * 262148096.0, 1e-15);
}

/* FSDP2 with bf16 parameters and no fp32 master (layout.adam_no_master, NeMo
 * AutoModel's MoE rows): foreach_reduce casts the reduce_scatter output back
 * to the parameter's dtype, so the sharded gradients are 2 B. Llama-2 7B,
 * zero3 over 8: 2 B x 6,738,415,616 / 8 = 1,684,603,904 B (4 B: 3,369,207,808
 * B, test_megatron_fsdp_grads' fsdp2 figure); zero2 the same; zero1 (not
 * FSDP2 units, gradients whole) keeps 4 B x 6,738,415,616 = 26,953,662,464 B. */
static void test_fsdp2_bf16_grads(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_memory mem;
  enum pl_shard sh[3] = {PL_SHARD_ZERO3, PL_SHARD_ZERO2, PL_SHARD_ZERO1};
  double was[3] = {3369207808.0, 3369207808.0, 26953662464.0};
  double want[3] = {1684603904.0, 1684603904.0, 26953662464.0};
  for (int i = 0; i < 3; i++) {
    struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .mbs = 1, .shard = sh[i]});
    pl_memory_stage(&m, &l, &g, 0, &mem);
    CHECK_NEAR_REL(mem.grads_bytes, was[i], 1e-15);
    l.adam_no_master = true;
    l.fp32_param_shards = false;
    pl_memory_stage(&m, &l, &g, 0, &mem);
    CHECK_NEAR_REL(mem.grads_bytes, want[i], 1e-15);
  }
}

/* zero2 with fsdp_pp_unsharded (FSDP without resharding after forward, as
 * the Llama 3 Herd loader describes Meta's): zero2 keeps the parameters
 * whole, so params_bytes already holds stage 0's bf16 parameters, 2 B x
 * 1,750,138,880 = 3,500,277,760 B (test_fsdp_pp_unsharded's stage), and the
 * unsharded part adds only the fp32 gradients, 4 B x 1,750,138,880 =
 * 7,000,555,520 B, not 6 B: the 16-bit weights were counted twice before. */
static void test_fsdp_pp_unsharded_zero2(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 8, .pp = 4, .gbs = 8, .shard = PL_SHARD_ZERO2});
  l.fsdp_pp_unsharded = true;
  struct pl_memory first;
  pl_memory_stage(&m, &l, &g, 0, &first);
  CHECK_NEAR_REL(first.params_bytes, 3500277760.0, 1e-15);
  CHECK_NEAR_REL(first.unsharded_bytes, 7000555520.0, 1e-15);
}

/* fsdp_pp_unsharded under the interleaved schedule (memory.c
 * fsdp_pp_grads_not_live): FSDP2 creates a chunk's unsharded fp32 gradients at
 * its first backward and drops them at its last. Llama-2 7B, 8 GPUs, pp 2,
 * vp 2 (4 virtual stages of 8 blocks), dp 4, zero2, gbs 8: m = 2 micro-batches,
 * 4 chunk-micro-batches per rank. A block has 202,383,360 parameters, the
 * token table and the LM head 131,072,000 each, the final norm 4,096.
 * Rank 0: warm-up min(2 + 2, 4) = 4, every forward before the first backward.
 * At chunk 1's first backward (k 0) it holds 4 chunk-micro-batches and chunk
 * 1's gradients, 4 B x 8 x 202,383,360 = 6,476,267,520 B; at chunk 0's
 * (k 2) chunk 1 is done (its last backward is k 1) and 2 are held: 2 fewer
 * chunk-micro-batches (8 blocks of ~0.54 GB each) against 4 B x (8 blocks +
 * the token table) = 7,000,555,520 B of gradients: lower. So 6,476,267,520 B
 * of the stage's 4 B x (16 x 202,383,360 + 131,072,000) = 13,476,823,040 B.
 * Rank 1: warm-up 2, 3 held at chunk 1's first backward (virtual stage 3:
 * 8 blocks, final norm, LM head): 4 B x 1,750,142,976 = 7,000,571,904 B.
 * With m = 4 (gbs 16, two groups of pp = 2) chunk 1 is still live at chunk
 * 0's first backward (its last is in the second group) and 5 are held: all
 * 13,476,823,040 B, as before; and 1f1b (vp 1) keeps the whole stage's. */
static void test_fsdp_pp_lazy_grads(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .pp = 2, .vp = 2, .gbs = 8,
                                                .shard = PL_SHARD_ZERO2,
                                                .schedule = PL_SCHEDULE_INTERLEAVED});
  l.fsdp_pp_unsharded = true;
  CHECK_EQ_INT(l.micro_batches, 2);
  struct pl_memory r0, r1;
  pl_memory_stage(&m, &l, &g, 0, &r0);
  pl_memory_stage(&m, &l, &g, 1, &r1);
  CHECK_NEAR_REL(r0.stage_params, 16.0 * 202383360.0 + 131072000.0, 1e-15);
  CHECK_NEAR_REL(r0.in_flight, 2.0, 1e-15);
  CHECK_NEAR_REL(r0.unsharded_bytes, 6476267520.0, 1e-15);
  CHECK_NEAR_REL(r1.unsharded_bytes, 7000571904.0, 1e-15);
  l = layout(&m, (struct spec){.gpus = 8, .pp = 2, .vp = 2, .gbs = 16, .shard = PL_SHARD_ZERO2,
                               .schedule = PL_SCHEDULE_INTERLEAVED});
  l.fsdp_pp_unsharded = true;
  CHECK_EQ_INT(l.micro_batches, 4);
  pl_memory_stage(&m, &l, &g, 0, &r0);
  CHECK_NEAR_REL(r0.unsharded_bytes, 13476823040.0, 1e-15);
  l = layout(&m, (struct spec){.gpus = 8, .pp = 2, .gbs = 8, .shard = PL_SHARD_ZERO2});
  l.fsdp_pp_unsharded = true;
  pl_memory_stage(&m, &l, &g, 0, &r0);
  CHECK_NEAR_REL(r0.unsharded_bytes, 4.0 * (16.0 * 202383360.0 + 131072000.0), 1e-15);
}

/* PyTorch's all-gather context parallelism (layout.cp_allgather; memory_act.c
 * model_mem_cp_allgather_bwd_extra). Llama-3 8B, 8 GPUs, cp 8, seq 8192:
 * 1,024 tokens per GPU, tp 1, 32 heads of 128 (a d = 4,096). At the core
 * attention's backward the block still holds per token the norm1 and QKV
 * inputs 2 x 8,192, Q, K, V 2 (4,096 + 2 x 1,024) = 12,288, the attention
 * output 8,192 and the fp32 LSE 128: 36,992 B of its 139,392 saved
 * (test_gqa_swiglu). On top: the gathered K and V 4 x 8 x 4,096 = 131,072,
 * grad_query 4 x 4,096, grad_key and grad_value 8 x 4,096, the step's
 * gradients 6 x 4,096: 204,800 B. Extra 36,992 + 204,800 - 139,392 =
 * 102,400 B per token, against the MLP's fc2 input gradient 2 x 14,336 =
 * 28,672 B that the block adds without it: +73,728 B x 1,024 tokens =
 * 75,497,472 B more activations; the ring's double-buffered K and V, 2 x 2
 * x 2 x 1,024 x 1,024 = 8,388,608 B, leave the buffers. Stage 0 of pp 2:
 * on the last stage the loss's head, 4 B x 1,024 x 128,256 logits, is larger
 * and is not held with it (memory.c). */
static void test_cp_allgather_backward(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(
      &m, (struct spec){.gpus = 16, .pp = 2, .cp = 8, .gbs = 2, .shard = PL_SHARD_ZERO3});
  struct pl_memory ring, ag;
  pl_memory_stage(&m, &l, &g, 0, &ring);
  l.cp_allgather = true;
  pl_memory_stage(&m, &l, &g, 0, &ag);
  CHECK_NEAR_REL(ag.activations_bytes - ring.activations_bytes, 75497472.0, 1e-12);
  CHECK_NEAR_REL(ring.comm_bytes - ag.comm_bytes, 8388608.0, 1e-12);
  /* no context parallelism: nothing */
  l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO3});
  pl_memory_compute(&m, &l, &g, &ring);
  l.cp_allgather = true;
  pl_memory_compute(&m, &l, &g, &ag);
  CHECK_NEAR_REL(ag.total_bytes, ring.total_bytes, 0);
}

/* layout.pp_keep_outputs (torch.distributed.pipelining before PyTorch PR
 * #153383): every stage keeps each micro-batch's output to the step's end.
 * Llama-2 7B, 8 GPUs, pp 4, dp 2, gbs 8, mbs 1: 4 micro-batches of 4096
 * tokens, tp 1. A hidden-state output is 2 x 4096 x 4096 = 33,554,432 B, the
 * last stage's logits 2 x 4096 x 32000 = 262,144,000 B. Stage 0 keeps 4 x
 * 33,554,432 = 134,217,728 B more activations, stage 3 4 x 262,144,000 =
 * 1,048,576,000 B; the total moves by 1.05 x that (the 5 % fragmentation
 * allowance). Interleaved, vp 2 (8 virtual stages, 4 blocks each): rank 3
 * holds virtual stage 3 (hidden) and 7 (the logits): 4 x (33,554,432 +
 * 262,144,000) = 1,182,793,728 B; rank 0 two hidden outputs, 268,435,456 B.
 * Off, or pp = 1: nothing. */
static void test_pp_keep_outputs(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_memory off0, off3, on0, on3;
  for (int64_t vp = 1; vp <= 2; vp++) {
    struct pl_layout l = layout(
        &m, (struct spec){.gpus = 8, .pp = 4, .vp = vp, .gbs = 8, .shard = PL_SHARD_ZERO3});
    CHECK_EQ_INT(l.micro_batches, 4);
    pl_memory_stage(&m, &l, &g, 0, &off0);
    pl_memory_stage(&m, &l, &g, 3, &off3);
    l.pp_keep_outputs = true;
    pl_memory_stage(&m, &l, &g, 0, &on0);
    pl_memory_stage(&m, &l, &g, 3, &on3);
    double first = vp == 1 ? 134217728.0 : 268435456.0;
    double last = vp == 1 ? 1048576000.0 : 1182793728.0;
    CHECK_NEAR_REL(on0.activations_bytes - off0.activations_bytes, first, 1e-12);
    CHECK_NEAR_REL(on3.activations_bytes - off3.activations_bytes, last, 1e-12);
    CHECK_NEAR_REL(on3.total_bytes - off3.total_bytes, 1.05 * last, 1e-12);
  }
  struct pl_layout one = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO3});
  pl_memory_stage(&m, &one, &g, 0, &off0);
  one.pp_keep_outputs = true;
  pl_memory_stage(&m, &one, &g, 0, &on0);
  CHECK_NEAR_REL(on0.total_bytes, off0.total_bytes, 0);
}

/* Llama-2 70B with plain DDP on 8 GPUs: 18 B x 69 B parameters, far beyond
 * 80 GiB; the optimizer states (12 x 68,976,648,192 B = 770.9 GiB) are the
 * largest part. With zero3 over 64 GPUs it fits only with full recompute:
 * selective still keeps 274,432 B per token per block (8h + 2 (2 * 8192 +
 * 2 * 1024) + 6 * 28672) = 1.05 GiB per block at s 4096, 84 GiB for 80. */
static void test_does_not_fit(void) {
  struct pl_model m = model("llama2-70b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_DDP});
  struct pl_memory mem;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK(!mem.fits);
  CHECK_NEAR_REL(mem.capacity_bytes, 80 * GIB, 0);
  CHECK_CONTAINS(mem.why, "> 80 GiB (optimizer states 770.9 GiB)");
  CHECK_CONTAINS(mem.why, "needs ");
  l = layout(
      &m, (struct spec){
              .gpus = 64, .gbs = 64, .shard = PL_SHARD_ZERO3, .recompute = PL_RECOMPUTE_SELECTIVE});
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK(!mem.fits);
  CHECK_CONTAINS(mem.why, "(activations 84.");
  l.recompute = PL_RECOMPUTE_FULL;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK(mem.fits);
  CHECK_STR(mem.why, "");
}

/* The embedding and the loss counted in the pipeline split (Megatron-Core
 * --account-for-embedding/loss-in-pipeline-split): Llama 3.1 405B, 126 blocks
 * + 2 over pp 8 x vp 4 = 32 chunks of 4; chunk 0 (embedding) and chunk 31
 * (loss) build 3. Stage 0 holds chunks 0, 8, 16, 24: 3 + 4 + 4 + 4 = 15
 * blocks, stage 7 likewise 15, the others 16. Without it 126 does not divide
 * by 32. pp 8 x vp 16: 128 / 128 = 1 per chunk, chunk 0 holds none. */
static void test_account_embed_loss(void) {
  struct pl_model m = model("llama3-405b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .pp = 8, .gbs = 64, .shard = PL_SHARD_ZERO1});
  l.vp = 4;
  l.account_embed_loss = true;
  int64_t first = -1;
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, m.layers, 0, &first), 3);
  CHECK_EQ_INT(first, 0);
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, m.layers, 1, &first), 4);
  CHECK_EQ_INT(first, 3);
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, m.layers, 31, &first), 3);
  CHECK_EQ_INT(first, 123);
  struct pl_memory s0, s3;
  pl_memory_stage(&m, &l, &g, 0, &s0);
  pl_memory_stage(&m, &l, &g, 3, &s3);
  CHECK_EQ_INT(s0.stage_layers, 15);
  CHECK_EQ_INT(s3.stage_layers, 16);
  l.vp = 16;
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, m.layers, 0, NULL), 0);
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, m.layers, 5, NULL), 1);
  l.account_embed_loss = false; /* the usual split: 126 = 15 x 8 + 6, the first 6 take 16 */
  l.vp = 1;
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, m.layers, 5, NULL), 16);
  CHECK_EQ_INT(pl_layout_chunk_layers(&l, m.layers, 6, NULL), 15);
}

/* Megatron-Core selective recompute modules (layout.recompute_modules),
 * test_gqa_swiglu's Llama-3 8B block (139,392 B per token, s 8192): layernorm
 * frees the two norm outputs (QKV and fc1 inputs, 2 x 2h = 16,384 B), mlp
 * the MLP internals (gate + up 4f and fc2 input 2f = 86,016 B), core_attn
 * the fp32 LSE (128 B). DeepSeek-V3 (one GPU, bf16, s 4096): moe_act frees
 * the experts' fc2 inputs, top_k copies x 2 B x 2048 on 58 of 61 blocks:
 * 58/61 x 8 x 2 x 2048 = 58/61 x 32,768 B per token. */
static void test_recompute_modules(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP});
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_LAYERNORM;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), (139392.0 - 16384) * 8192, 1e-15);
  l.recompute_modules = PL_RCM_MLP;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), (139392.0 - 86016) * 8192, 1e-15);
  l.recompute_modules = PL_RCM_LAYERNORM | PL_RCM_MLP | PL_RCM_CORE_ATTN;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 36864.0 * 8192, 1e-15);
  l.recompute_modules = 0; /* Megatron's default list: core_attn */
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), (139392.0 - 128) * 8192, 1e-15);
  struct pl_model d = model("deepseek-v3");
  struct pl_layout ld = layout(&d, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP});
  double none = pl_memory_layer_activation_bytes(&d, &ld);
  ld.recompute = PL_RECOMPUTE_SELECTIVE;
  ld.recompute_modules = PL_RCM_MOE_ACT;
  CHECK_NEAR_REL(none - pl_memory_layer_activation_bytes(&d, &ld), 58.0 / 61 * 32768 * 4096,
                 1e-12);
  /* the whole MoE layer frees more than its activation alone; a stage holds
   * what the recomputed block needs back on top (memory.c activations) */
  ld.recompute_modules = PL_RCM_MOE;
  double moe = pl_memory_layer_activation_bytes(&d, &ld);
  CHECK(moe < none - 58.0 / 61 * 32768 * 4096);
  struct pl_gpu g = gpu80();
  struct pl_memory mem;
  pl_memory_compute(&d, &ld, &g, &mem);
  CHECK_NEAR_REL(mem.layer_act_bytes, moe, 1e-15);
}

/* Transformer Engine's fused cross-entropy (layout.te_cross_entropy) keeps the
 * bf16 logits, its gradient written into them in place, instead of Megatron-
 * Core's native fp32 copy. Llama-2 7B (vocab 32000), pp 4, mbs 1, seq 4096:
 * the last stage's logits are 4 x 4096 x 32000 = 524,288,000 B without it and
 * 2 x 4096 x 32000 = 262,144,000 B with it; its activations drop by that
 * 262,144,000 B (no recompute: the head is held beside the blocks); the first
 * stage, which has no head, does not move. */
static void test_te_cross_entropy(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 4, .pp = 4, .gbs = 8, .shard = PL_SHARD_ZERO1});
  struct pl_memory last0, last1, first0, first1;
  pl_memory_stage(&m, &l, &g, 3, &last0);
  pl_memory_stage(&m, &l, &g, 0, &first0);
  l.te_cross_entropy = true;
  pl_memory_stage(&m, &l, &g, 3, &last1);
  pl_memory_stage(&m, &l, &g, 0, &first1);
  CHECK_NEAR_REL(last0.logits_bytes, 524288000.0, 1e-15);
  CHECK_NEAR_REL(last1.logits_bytes, 262144000.0, 1e-15);
  CHECK_NEAR_REL(last0.activations_bytes - last1.activations_bytes, 262144000.0, 1e-12);
  CHECK_NEAR_REL(first1.activations_bytes, first0.activations_bytes, 0);
}

/* PyTorch's eager cross-entropy on fp32 logits (layout.eager_xent, torchtitan
 * 9dec370's loss_fn): log_softmax's saved fp32 output, nll_loss's fp32
 * gradient and the fp32 input gradient, 12 B per logit at the loss's
 * backward, 8 B more than the 4 B fp32 logits. Same run as above (Llama-2 7B,
 * pp 4, mbs 1, seq 4096, no recompute: the head is held beside the blocks):
 * the last stage's activations rise by 8 x 4096 x 32000 = 1,048,576,000 B,
 * logits_bytes (the part held from the forward) stays 524,288,000 B, the first
 * stage does not move; with TE's fused cross-entropy the flag has no effect. */
static void test_eager_cross_entropy(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 4, .pp = 4, .gbs = 8, .shard = PL_SHARD_ZERO1});
  struct pl_memory last0, last1, first0, first1, te0, te1;
  pl_memory_stage(&m, &l, &g, 3, &last0);
  pl_memory_stage(&m, &l, &g, 0, &first0);
  l.eager_xent = true;
  pl_memory_stage(&m, &l, &g, 3, &last1);
  pl_memory_stage(&m, &l, &g, 0, &first1);
  CHECK_NEAR_REL(last1.activations_bytes - last0.activations_bytes, 1048576000.0, 1e-12);
  CHECK_NEAR_REL(last1.logits_bytes, 524288000.0, 1e-15);
  CHECK_NEAR_REL(first1.activations_bytes, first0.activations_bytes, 0);
  l.te_cross_entropy = true;
  pl_memory_stage(&m, &l, &g, 3, &te1);
  l.eager_xent = false;
  pl_memory_stage(&m, &l, &g, 3, &te0);
  CHECK_NEAR_REL(te1.activations_bytes, te0.activations_bytes, 0);
}

/* Transformer Engine FP8 parameters under Megatron FSDP (layout.fp8_all_gather
 * with a per-tensor TE FP8 recipe, pl_layout_te_fp8_params). Llama-2 7B on 16
 * GPUs, pp 2, zero3 over dp 8, fp8 current scaling. A block's GEMM weights:
 * 4096 (3 x 4096) + 4096^2 + 3 x 4096 x 11008 = 202,375,168 (the block has
 * 202,383,360 parameters with its two norms). Stage 0 holds 16 blocks and the
 * token table (32000 x 4096 = 131,072,000 < a block, so the FSDP unit is a
 * block). Shards: 1 B instead of 2 for 16 x 202,375,168 / 8 GEMM weights,
 * 404,750,336 B less. Unsharded: 2 gathered units at 2 B + one unit's fp32
 * gradients = 8 x 202,383,360 = 1,619,066,880 B without, and 2 x 202,375,168
 * = 404,750,336 B less with (the gathered GEMM weights at 1 B): 1,214,316,544.
 * MXFP8 (a transpose buffer in Megatron FSDP) and ddp are left as they were; zero1
 * keeps its whole FP8 weights at 1 B (below). */
static void test_te_fp8_params(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 16, .pp = 2, .gbs = 16, .shard = PL_SHARD_ZERO3});
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  struct pl_memory off, on;
  pl_memory_stage(&m, &l, &g, 0, &off);
  CHECK_NEAR_REL(off.unsharded_bytes, 1619066880.0, 1e-15);
  l.fp8_all_gather = true;
  CHECK(pl_layout_te_fp8_params(&l));
  CHECK_NEAR_REL(pl_layout_fp8_gathered_weights(&m, &l), 202375168.0, 1e-15);
  pl_memory_stage(&m, &l, &g, 0, &on);
  CHECK_NEAR_REL(off.params_bytes - on.params_bytes, 404750336.0, 1e-12);
  CHECK_NEAR_REL(on.unsharded_bytes, 1214316544.0, 1e-15);
  CHECK_NEAR_REL(on.grads_bytes, off.grads_bytes, 0);
  CHECK_NEAR_REL(on.optimizer_bytes, off.optimizer_bytes, 0);
  l.dtype = PL_DTYPE_MXFP8;
  CHECK(!pl_layout_te_fp8_params(&l));
  l.dtype = PL_DTYPE_FP8;
  l.shard = PL_SHARD_DDP;
  CHECK(!pl_layout_te_fp8_params(&l));
  /* zero1 (Megatron-Core's distributed optimizer with fp8_param_gather, session 22):
   * the model's weights are whole on every rank, the 16 blocks' GEMM weights at 1 B:
   * 16 x 202,375,168 = 3,238,002,688 B less; gradients and optimizer states unchanged */
  l.shard = PL_SHARD_ZERO1;
  l.fp8_all_gather = false;
  pl_memory_stage(&m, &l, &g, 0, &off);
  l.fp8_all_gather = true;
  CHECK(pl_layout_te_fp8_params(&l));
  pl_memory_stage(&m, &l, &g, 0, &on);
  CHECK_NEAR_REL(off.params_bytes - on.params_bytes, 3238002688.0, 1e-12);
  CHECK_NEAR_REL(on.grads_bytes, off.grads_bytes, 0);
  CHECK_NEAR_REL(on.optimizer_bytes, off.optimizer_bytes, 0);
}

/* Megatron FSDP's units (layout.fsdp_block_units): only the blocks are FSDP
 * units; the token table, final norm and LM head stay gathered at 2 B.
 * Llama-2 7B (untied, vocab 32000, h 4096), 8 GPUs, pp 1, zero3 over 8. A
 * block has 202,383,360 parameters, the token table and the LM head
 * 32000 x 4096 = 131,072,000 each, the final norm 4096: the edge is
 * 262,148,096.
 * Off: the unit is the larger of a block and the edge (262,148,096): two
 * gathered at 2 B plus one at fp32, 8 x 262,148,096 = 2,097,184,768 B.
 * On, bf16 gradient shards (shard_grads_reduce_dtype, grad_reduce_bf16): the
 * edge 2 x 262,148,096 = 524,296,192, two blocks 2 x 2 x 202,383,360 =
 * 809,533,440 and two bf16 gradient buckets of a block (larger than the head
 * alone) 809,533,440: 2,143,363,072 B.
 * On, fp32 gradients: the buckets double, 2 x 4 x 202,383,360 =
 * 1,619,066,880: 2,952,896,512 B.
 * FP8 current scaling with TE FP8 parameters: each gathered block's
 * 202,375,168 GEMM weights at 1 B, 2 x (404,766,720 - 202,375,168) =
 * 404,783,104 for the blocks: 1,738,612,736 B with bf16 buckets.
 * pp 2, stage 1 (16 blocks, final norm, LM head): the edge 131,076,096 at
 * 2 B = 262,152,192, + 809,533,440 + 809,533,440 = 1,881,219,072 B.
 * zero2 is left as it was. */
static void test_fsdp_block_units(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO3});
  struct pl_memory mem;
  l.grad_reduce_bf16 = true;
  l.shard_grads_reduce_dtype = true;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 2097184768.0, 1e-15);
  l.fsdp_block_units = true;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 2143363072.0, 1e-15);
  l.grad_reduce_bf16 = false;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 2952896512.0, 1e-15);
  l.grad_reduce_bf16 = true;
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  l.fp8_all_gather = true;
  pl_memory_compute(&m, &l, &g, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 1738612736.0, 1e-15);
  struct pl_layout p =
      layout(&m, (struct spec){.gpus = 16, .pp = 2, .gbs = 16, .shard = PL_SHARD_ZERO3});
  p.grad_reduce_bf16 = true;
  p.shard_grads_reduce_dtype = true;
  p.fsdp_block_units = true;
  pl_memory_stage(&m, &p, &g, 1, &mem);
  CHECK_NEAR_REL(mem.unsharded_bytes, 1881219072.0, 1e-15);
  struct pl_memory z2a, z2b;
  l.shard = PL_SHARD_ZERO2;
  pl_memory_compute(&m, &l, &g, &z2b);
  l.fsdp_block_units = false;
  pl_memory_compute(&m, &l, &g, &z2a);
  CHECK_NEAR_REL(z2b.unsharded_bytes, z2a.unsharded_bytes, 0);
}

/* Megatron-Core's precision-aware optimizer with bf16 moments
 * (layout.adam_moments_bf16). Llama-2 7B, 6,738,415,616 parameters, zero1
 * over 8 GPUs: AdamW's 12 B give 12 x 6,738,415,616 / 8 = 10,107,623,424 B.
 * bf16 run: TE's FusedAdam holds the masters as 16-bit remainders, 2 + 2 +
 * 2 = 6 B: 5,053,811,712 B. FP8 current scaling: Megatron-Core's fp32
 * master shards, 4 + 2 + 2 = 8 B: 6,738,415,616 B. Parameters and
 * gradients do not move. */
static void test_adam_moments_bf16(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO1});
  struct pl_memory a, b, c;
  pl_memory_compute(&m, &l, &g, &a);
  CHECK_NEAR_REL(a.optimizer_bytes, 10107623424.0, 1e-15);
  l.adam_moments_bf16 = true;
  pl_memory_compute(&m, &l, &g, &b);
  CHECK_NEAR_REL(b.optimizer_bytes, 5053811712.0, 1e-15);
  CHECK_NEAR_REL(b.params_bytes, a.params_bytes, 0);
  CHECK_NEAR_REL(b.grads_bytes, a.grads_bytes, 0);
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  pl_memory_compute(&m, &l, &g, &c);
  CHECK_NEAR_REL(c.optimizer_bytes, 6738415616.0, 1e-15);
}

/* An optimizer with no master copy (layout.adam_no_master: Apex
 * DistributedFusedAdam store_params False, NeMo 1 with optim.dtype equal to
 * the model's). Llama-2 7B, 6,738,415,616 parameters, zero1 over 8 GPUs:
 * fp32 m and v only, 4 + 4 = 8 B: 8 x 6,738,415,616 / 8 = 6,738,415,616 B;
 * with bf16 m and v (Apex dtype bf16) 2 + 2 = 4 B: 3,369,207,808 B, in a
 * bf16 and in an FP8 run alike (no master to keep in fp32). Parameters and
 * gradients do not move. */
static void test_adam_no_master(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO1});
  struct pl_memory a, b, c, d;
  pl_memory_compute(&m, &l, &g, &a);
  l.adam_no_master = true;
  pl_memory_compute(&m, &l, &g, &b);
  CHECK_NEAR_REL(b.optimizer_bytes, 6738415616.0, 1e-15);
  CHECK_NEAR_REL(b.params_bytes, a.params_bytes, 0);
  CHECK_NEAR_REL(b.grads_bytes, a.grads_bytes, 0);
  l.adam_moments_bf16 = true;
  pl_memory_compute(&m, &l, &g, &c);
  CHECK_NEAR_REL(c.optimizer_bytes, 3369207808.0, 1e-15);
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  pl_memory_compute(&m, &l, &g, &d);
  CHECK_NEAR_REL(d.optimizer_bytes, 3369207808.0, 1e-15);
}

/* torch.optim.SGD, momentum 0, over 16-bit parameters (layout.opt_sgd;
 * Lightning Fabric 'bf16-true' with lightning-thunder's lit-gpt examples):
 * torch/optim/sgd.py creates a momentum_buffer only when momentum != 0 and
 * keeps no master, so the optimizer states are 0 B; the gradients are the
 * bf16 parameters' own, 2 B. Llama-2 7B, 6,738,415,616 parameters:
 * one GPU (ddp): gradients 2 x 6,738,415,616 = 13,476,831,232 B, parameters
 * the same; zero3 over 8 GPUs: 13,476,831,232 / 8 = 1,684,603,904 B each, and
 * the unsharded unit's gradient at 2 B instead of 4: the unit is the larger
 * of a block (4h^2 + 3hf + 2h = 4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096 =
 * 202,383,360) and the edge modules (32000 x 4096 x 2 + 4096 =
 * 262,148,096), so unsharded_bytes falls by 2 x 262,148,096 = 524,296,192 B. */
static void test_sgd_states(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 1, .gbs = 1, .shard = PL_SHARD_DDP});
  struct pl_memory a, b, c;
  l.opt_sgd = true;
  l.grad_reduce_bf16 = true;
  pl_memory_compute(&m, &l, &g, &a);
  CHECK(a.optimizer_bytes == 0.0);
  CHECK_NEAR_REL(a.grads_bytes, 13476831232.0, 1e-15);
  CHECK_NEAR_REL(a.params_bytes, 13476831232.0, 1e-15);
  l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO3});
  pl_memory_compute(&m, &l, &g, &b);
  l.opt_sgd = true;
  l.grad_reduce_bf16 = true;
  pl_memory_compute(&m, &l, &g, &c);
  CHECK(c.optimizer_bytes == 0.0);
  CHECK_NEAR_REL(c.grads_bytes, 1684603904.0, 1e-15);
  CHECK_NEAR_REL(c.params_bytes, 1684603904.0, 1e-15);
  CHECK_NEAR_REL(b.unsharded_bytes - c.unsharded_bytes, 524296192.0, 1e-12);
}

/* Megatron-Core's fine-grained activation offloading (layout.offload_modules).
 * Qwen3-30B-A3B (h 2048, 128 experts top-8, expert ffn 768, all 48 blocks
 * MoE), 8 GPUs, ep 8, zero1, imbalance 1, bf16 (e = 2, SwiGLU: mlp = 4 + e),
 * mbs 1, seq 4096: 4096 x 8 = 32,768 routed copies a block. expert_fc1
 * moves the fc1 input, 2 x 2048 = 4,096 B a copy, 134,217,728 B a block;
 * moe_act the fc1 output, 4 x 768 = 3,072 B a copy, 100,663,296 B a block;
 * both 234,881,024 B. The stage (pp 1, one micro-batch) keeps one block's
 * offloaded groups: its activations fall by 47 x 234,881,024 =
 * 11,039,408,128 B. With moe_act recomputed the fc1 output still goes (the
 * checkpoint's input); with the whole MoE layer recomputed nothing does. */
static void test_offload_modules(void) {
  struct pl_model m = model("qwen3-30b-a3b");
  struct pl_gpu g = gpu80();
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO1});
  l.ep = 8;
  l = resolved(&m, l);
  l.moe_imbalance = 1.0;
  l.seq = 4096;
  double none = pl_memory_layer_activation_bytes(&m, &l);
  struct pl_memory a, b;
  pl_memory_compute(&m, &l, &g, &a);
  l.offload_modules = PL_OFM_EXPERT_FC1;
  CHECK_NEAR_REL(none - pl_memory_layer_activation_bytes(&m, &l), 134217728.0, 1e-12);
  l.offload_modules = PL_OFM_MOE_ACT;
  CHECK_NEAR_REL(none - pl_memory_layer_activation_bytes(&m, &l), 100663296.0, 1e-12);
  l.offload_modules = PL_OFM_EXPERT_FC1 | PL_OFM_MOE_ACT;
  CHECK_NEAR_REL(none - pl_memory_layer_activation_bytes(&m, &l), 234881024.0, 1e-12);
  pl_memory_compute(&m, &l, &g, &b);
  CHECK_NEAR_REL(a.activations_bytes - b.activations_bytes, 11039408128.0, 1e-12);
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MOE_ACT;
  l.offload_modules = 0;
  double rc = pl_memory_layer_activation_bytes(&m, &l);
  l.offload_modules = PL_OFM_MOE_ACT;
  CHECK_NEAR_REL(rc - pl_memory_layer_activation_bytes(&m, &l), 100663296.0, 1e-12);
  l.recompute_modules = PL_RCM_MOE;
  l.offload_modules = 0;
  rc = pl_memory_layer_activation_bytes(&m, &l);
  l.offload_modules = PL_OFM_EXPERT_FC1 | PL_OFM_MOE_ACT;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), rc, 0);
}

/* TE GroupedLinear saves the experts' fc1 input as its quantized copy under
 * FP8 (column-wise data, e bytes), not the bf16 tokens (memory_act.c
 * moe_act_delta). Qwen3-30B-A3B (h 2048, 32 heads x 128 = q 4096, 4 KV heads,
 * 128 experts top-8, expert ffn 768, every block MoE), tp 1, imbalance 1.
 * Per token of one block, bf16 (e = 2) against fp8 (e = 1): the replicated
 * part (4 + 2e) h drops 2h; the projection input 2 + e (bf16 output kept by
 * the fused attention plus the FP8 copy) against e = 2 rises q; the dense MLP
 * terms cancel (every block is MoE); each of the 8 routed copies drops its
 * fc1 input (2 - 1) h and its fc2 input (2 - 1) x 768: 2h - q + 8 (h + 768) =
 * 4096 - 4096 + 22528 = 22,528 B per token (6,144 B when the fc1 input was
 * counted at 2 B in both). */
static void test_moe_fc1_quantized(void) {
  struct pl_model m = model("qwen3-30b-a3b");
  struct pl_layout l = layout(&m, (struct spec){.gpus = 8, .gbs = 8, .shard = PL_SHARD_ZERO1});
  l.moe_imbalance = 1.0;
  double tokens = (double)l.mbs * 4096.0;
  double bf16 = pl_memory_layer_activation_bytes(&m, &l);
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  double fp8 = pl_memory_layer_activation_bytes(&m, &l);
  CHECK_NEAR_REL((bf16 - fp8) / tokens, 22528.0, 1e-12);
}

/* DTensor tensor parallelism (layout.tp_gathered_saved, torchtitan apply_tp)
 * and PyTorch's loss_parallel cross-entropy (layout.eager_xent at tp > 1).
 * Llama-3 8B (h 4096, q 4096, kv 1024, f 14336, vocab 128256), tp 8 + sp,
 * s 8192, b 1, no recompute, bf16.
 * One block, per token, without the flag (as test_gqa_swiglu, / 8):
 *   norm1/QKV/norm2/fc1 inputs 8h / 8 = 4,096; Q, K, V, proj input
 *   2 (2q + 2kv) / 8 = 2,560; gate + up + fc2 input 6f / 8 = 10,752;
 *   LSE 4 * 32 / 8 = 16: 17,424 B, x 8192 = 142,737,408 B.
 * With it the QKV and fc1 inputs are the gathered tensors, whole: 2 * 2h
 * instead of 2 * 2h / 8, 3.5h = 14,336 B more per token: 31,760 B, x 8192 =
 * 260,177,920 B. fp8-tensorwise (torchao's Float8 TP gathers the fp8 cast):
 * 2 * 1h instead, 1.5h = 6,144 more: 23,568 x 8192 = 193,069,056 B; fp8-rowwise
 * gathers and saves 16 bits: bf16's 31,760 x 8192. Without
 * sp the flag does nothing (the inputs are whole already).
 * The head, pp 2, last stage (16 blocks, 1 micro-batch in flight): the
 * LM-head input whole, 2 s h = 67,108,864 B instead of 8,388,608: the
 * stage's activations rise by 16 x 117,440,512 + 58,720,256 =
 * 1,937,768,448 B. The loss: logits 4 x 8192 x 16032 (128256 / 8) =
 * 525,336,576 B; eager_xent at tp 8 adds 12 B per logit (loss_parallel's
 * backward holds x, grad_input, exp(x) and their sum: 16 B against 4),
 * 12 x 8192 x 16032 = 1,576,009,728 B, not the 8 B of tp 1. */
static void test_dtensor_tp(void) {
  struct pl_model m = model("llama3-8b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 8, .tp = 8, .gbs = 1, .shard = PL_SHARD_DDP});
  CHECK(l.sp);
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 17424.0 * 8192, 1e-15);
  l.tp_gathered_saved = true;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &l), 31760.0 * 8192, 1e-15);
  struct pl_layout f8 = l;
  f8.dtype = PL_DTYPE_FP8;
  f8.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &f8), 23568.0 * 8192, 1e-15);
  f8.fp8_recipe = PL_FP8_RECIPE_ROWWISE;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &f8), 31760.0 * 8192, 1e-15);
  struct pl_layout nosp = l;
  nosp.sp = false;
  double whole = pl_memory_layer_activation_bytes(&m, &nosp);
  nosp.tp_gathered_saved = false;
  CHECK_NEAR_REL(pl_memory_layer_activation_bytes(&m, &nosp), whole, 0);

  struct pl_layout p =
      layout(&m, (struct spec){.gpus = 16, .tp = 8, .pp = 2, .gbs = 1, .shard = PL_SHARD_DDP});
  struct pl_memory off, on, xent;
  pl_memory_stage(&m, &p, &g, 1, &off);
  p.tp_gathered_saved = true;
  pl_memory_stage(&m, &p, &g, 1, &on);
  CHECK_NEAR_REL(on.activations_bytes - off.activations_bytes, 1937768448.0, 1e-12);
  CHECK_NEAR_REL(on.logits_bytes, 525336576.0, 1e-15);
  p.eager_xent = true;
  pl_memory_stage(&m, &p, &g, 1, &xent);
  CHECK_NEAR_REL(xent.activations_bytes - on.activations_bytes, 1576009728.0, 1e-12);
}

/* PyTorch FSDP's shards and torchao's FP8-gathered weights. Llama-2 7B on 8
 * GPUs, pp 4, zero3 over dp 2, stage 0 (8 blocks + the token table:
 * 1,750,138,880 parameters), as test_fsdp_pp_unsharded.
 * layout.fp32_param_shards: the shards are the fp32 parameters, no 16-bit
 * shard, no separate master: parameters 4 B x 1,750,138,880 / 2 =
 * 3,500,277,760 B (2 B before), optimizer states 8 B (Adam's m and v) x
 * 875,069,440 = 7,000,555,520 B (12 B before), gradients unchanged (4 B).
 * torchao's float8 all-gather (fp8-tensorwise with fp8_all_gather) under
 * fsdp_pp_unsharded: the gathered GEMM weights are Float8Tensors, 1 B: the
 * stage's unsharded bytes fall from 6 B x 1,750,138,880 = 10,500,833,280 by
 * 1 B x 8 blocks x 202,375,168 GEMM weights (4096 (3 x 4096) + 4096^2 +
 * 3 x 4096 x 11008) = 1,619,001,344, to 8,881,831,936 B; the shards stay. */
static void test_torch_fsdp_states(void) {
  struct pl_model m = model("llama2-7b");
  struct pl_gpu g = gpu80();
  struct pl_layout l =
      layout(&m, (struct spec){.gpus = 8, .pp = 4, .gbs = 8, .shard = PL_SHARD_ZERO3});
  struct pl_memory a, b;
  l.fp32_param_shards = true;
  pl_memory_stage(&m, &l, &g, 0, &a);
  CHECK_NEAR_REL(a.params_bytes, 3500277760.0, 1e-15);
  CHECK_NEAR_REL(a.optimizer_bytes, 7000555520.0, 1e-15);
  CHECK_NEAR_REL(a.grads_bytes, 3500277760.0, 1e-15);
  l.fp32_param_shards = false;
  l.fsdp_pp_unsharded = true;
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  pl_memory_stage(&m, &l, &g, 0, &a);
  CHECK_NEAR_REL(a.unsharded_bytes, 10500833280.0, 1e-15);
  l.fp8_all_gather = true;
  pl_memory_stage(&m, &l, &g, 0, &b);
  CHECK_NEAR_REL(b.unsharded_bytes, 8881831936.0, 1e-15);
  CHECK_NEAR_REL(b.params_bytes, a.params_bytes, 0);
}

int main(void) {
  test_fsdp_ga_nosync();
  test_fsdp2_bf16_grads();
  test_korthikanti_table2();
  test_account_embed_loss();
  test_gqa_swiglu();
  test_quantized_saved_inputs();
  test_recompute_order();
  test_eager_attention_backward();
  test_recompute_ops();
  test_recompute_uniform();
  test_act_offload();
  test_recompute_modules();
  test_model_states();
  test_zero3_scaling();
  test_deepspeed_zero3_working_set();
  test_hybrid();
  test_pipeline();
  test_does_not_fit();
  test_fsdp_pp_unsharded();
  test_fsdp_pp_unsharded_zero2();
  test_fsdp_pp_lazy_grads();
  test_cp_allgather_backward();
  test_pp_keep_outputs();
  test_megatron_fsdp_grads();
  test_te_cross_entropy();
  test_eager_cross_entropy();
  test_te_fp8_params();
  test_fsdp_block_units();
  test_adam_moments_bf16();
  test_adam_no_master();
  test_sgd_states();
  test_offload_modules();
  test_moe_fc1_quantized();
  test_dtensor_tp();
  test_torch_fsdp_states();
  return check_finish();
}
