/* test_mamba.c: hybrid Mamba-2 stacks (model/mamba.c): the Nemotron 3 Nano
 * preset's parameters and FLOPs derived by hand, the HF NemotronH config
 * read to the same model, one Mamba block's per-GPU ops, and bad input. */
#include <plateau/flops.h>
#include <plateau/memory.h>
#include <plateau/model.h>
#include <plateau/sim.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model_fixture.h"

static struct pl_layout layout(const struct pl_model *m, int64_t gpus, int64_t tp, int64_t ep,
                               int64_t mbs, int64_t gbs) {
  return resolved(m, (struct pl_layout){.gpus = gpus, .tp = tp, .ep = ep, .mbs = mbs, .gbs = gbs});
}

/* Nemotron 3 Nano: h 2688, pattern of 52 blocks with 23 M, 23 E, 6 *;
 * Mamba H 64, P 64 (d_inner 4096), G 8, N 128, d_conv 4; attention 32
 * heads of 128, 2 KV heads; 128 experts of 1856 (two-matrix), top 6, shared
 * 3712, router bias; vocab 131072 untied.
 *   Mamba block: norm 2688 + in_proj 2688 x (8192 + 2048 + 64) = 27,697,152
 *     + conv (4096 + 2048) x (4 + 1) = 30,720 + 3 x 64 = 192 + gated norm
 *     4096 + out_proj 4096 x 2688 = 11,010,048: 38,744,896.
 *   Attention block: norm 2688 + Q 2688 x 4096 = 11,010,048 + K, V 2 x 2688 x
 *     256 = 1,376,256 + O 11,010,048: 23,399,040.
 *   MoE block: norm 2688 + router 128 x 2688 = 344,064 + bias 128 + experts
 *     128 x 2 x 2688 x 1856 = 1,277,165,568 + shared 2 x 2688 x 3712 =
 *     19,955,712: 1,297,468,160.
 *   Outside: 2 x 131072 x 2688 = 704,643,072 + final norm 2688.
 *   Total 23 x 38,744,896 + 6 x 23,399,040 + 23 x 1,297,468,160 + 704,645,760
 *     = 31,577,940,288 (published: 31.6B).
 *   Active: MoE block with 6 experts 2688 + 344,064 + 128 + 59,867,136 +
 *     19,955,712 = 80,169,728; 23 x 38,744,896 + 6 x 23,399,040 + 23 x
 *     80,169,728 + 704,645,760 = 3,580,076,352 (published: 3.6B with
 *     embeddings). */
static void test_nano_params(void) {
  struct pl_model m = model("nemotron-3-nano");
  CHECK(pl_model_is_hybrid(&m));
  CHECK_EQ_INT(pl_model_kind_layers(&m, 'M'), 23);
  CHECK_EQ_INT(pl_model_kind_layers(&m, 'E'), 23);
  CHECK_EQ_INT(pl_model_kind_layers(&m, '*'), 6);
  CHECK_EQ_INT(pl_model_kind_layers(&m, '-'), 0);
  CHECK_EQ_INT(pl_model_moe_layers(&m), 23);
  CHECK_EQ_INT(pl_model_moe_blocks_below(&m, 5), 2); /* MEMEM */
  CHECK_EQ_INT(pl_model_attention_layers(&m), 6);
  CHECK_EQ_INT(pl_model_dense_mlp_layers(&m), 0);
  CHECK_EQ_INT(pl_model_mamba_params(&m), INT64_C(38744896));
  CHECK_EQ_INT(pl_model_moe_layer_params(&m), INT64_C(1297468160));
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(31577940288));
  CHECK_EQ_INT(pl_model_active_params(&m), INT64_C(3580076352));
  /* the mean non-MoE block: (23 x 38,744,896 + 6 x 23,399,040) / 29 */
  CHECK_EQ_INT(pl_model_layer_params(&m), INT64_C(1031526848) / 29);
  /* published 31.6B total, 3.6B active with embeddings: within 0.1 % and 1 % */
  CHECK(fabs((double)pl_model_params(&m) / 31.6e9 - 1.0) < 1e-3);
  CHECK(fabs((double)pl_model_active_params(&m) / 3.6e9 - 1.0) < 1e-2);
}

/* The HF NemotronH config (tests/data/hf) reads to the preset's model. */
static void test_hf_config(void) {
  struct pl_model p = model("nemotron-3-nano");
  struct pl_model h = model(PL_TEST_DATA "/hf/Nemotron-3-Nano-30B-A3B.json");
  CHECK_EQ_INT(pl_model_params(&h), pl_model_params(&p));
  CHECK_EQ_INT(pl_model_active_params(&h), pl_model_active_params(&p));
  CHECK(strcmp(h.hybrid_pattern, p.hybrid_pattern) == 0);
  CHECK_EQ_INT(h.head_dim, 128); /* attention_head_dim, not 2688 / 32 */
  CHECK_EQ_INT(h.mamba_conv, 4);
  CHECK_EQ_INT(h.mamba_chunk, 128);
  CHECK(h.mlp == PL_MLP_GELU);
  CHECK(h.router_bias);
}

/* One Mamba block's ops, mbs 1, seq 8192, tp 1 then tp 2: in_proj (8192 x
 * 10304 x 2688), the SSD matmuls over 64 chunks: chunk states N x P x Q per
 * (chunk, head) = 64 x 64 pairs, CB Q x Q x N per (chunk, group) = 64 x 8,
 * the scan Q x P x (Q + N) per (chunk, head); out_proj 8192 x 2688 x 4096.
 * Each weighted by 23/52 of the blocks. */
static void test_mamba_ops(void) {
  struct pl_model m = model("nemotron-3-nano");
  struct pl_layout l = layout(&m, 8, 1, 8, 1, 8);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *in = find(ops, n, "in_proj"), *out = find(ops, n, "out_proj");
  const struct pl_op *cs = find(ops, n, "ssd_chunk_state"), *cb = find(ops, n, "ssd_bmm_cb");
  const struct pl_op *sc = find(ops, n, "ssd_chunk_scan"), *conv = find(ops, n, "conv1d");
  CHECK(in && out && cs && cb && sc && conv && find(ops, n, "attn") && find(ops, n, "expert_fc1"));
  if (!(in && out && cs && cb && sc && conv))
    return;
  CHECK_NEAR_REL(in->fwd_flops, 2.0 * 8192 * 10304 * 2688, 1e-9);
  CHECK_NEAR_REL(in->share, 23.0 / 52.0, 1e-12);
  CHECK_NEAR_REL(out->fwd_flops, 2.0 * 8192 * 2688 * 4096, 1e-9);
  CHECK_EQ_INT(cs->count, 64 * 64);
  CHECK_NEAR_REL(cs->fwd_flops, 2.0 * 128 * 64 * 128 * 64 * 64, 1e-9);
  CHECK_NEAR_REL(cs->bwd_flops, 3.0 * cs->fwd_flops, 1e-9); /* re-run before its backward */
  CHECK_EQ_INT(cb->count, 64 * 8);
  CHECK_NEAR_REL(cb->fwd_flops, 2.0 * 128 * 128 * 128 * 64 * 8, 1e-9);
  /* re-run and two _bmm_chunk_bwd (3x) plus _chunk_scan_bwd_dcb, 2 Q Q P per
   * (chunk, head): 3 x 2,147,483,648 + 2 x 128 x 128 x 64 x 64 x 64 = 6,442,450,944
   * + 8,589,934,592 = 15,032,385,536 */
  CHECK_NEAR_REL(cb->bwd_flops, 15032385536.0, 1e-12);
  CHECK_NEAR_REL(sc->fwd_flops, 2.0 * 128 * 64 * 256 * 64 * 64, 1e-9);
  CHECK_NEAR_REL(sc->bwd_flops, 2.0 * sc->fwd_flops, 1e-9);
  CHECK(cs->batched && cs->high_precision && !in->batched);
  /* conv over x B C: 8192 tokens x (4096 + 2048) channels, 4 B fwd, 10 B bwd */
  CHECK_NEAR_REL(conv->fwd_bytes, 8192.0 * 6144 * 4, 1e-9);
  CHECK_NEAR_REL(conv->bwd_bytes, 8192.0 * 6144 * 10, 1e-9);
  /* attention on 6/52 of the blocks, the MoE on 23/52, norm1 on all */
  CHECK_NEAR_REL(find(ops, n, "attn")->share, 6.0 / 52.0, 1e-12);
  CHECK_NEAR_REL(find(ops, n, "expert_fc1")->share, 23.0 / 52.0, 1e-12);
  CHECK_NEAR_REL(find(ops, n, "norm1")->share, 1.0, 1e-12);
  CHECK(find(ops, n, "norm2") == NULL && find(ops, n, "fc1") == NULL);

  struct pl_layout l2 = layout(&m, 8, 2, 4, 1, 4); /* heads 64 / 2, groups 8 / 2 */
  n = pl_layer_ops(&m, &l2, ops);
  CHECK_EQ_INT(find(ops, n, "in_proj")->n, 10304 / 2);
  CHECK_EQ_INT(find(ops, n, "out_proj")->k, 2048);
  CHECK_EQ_INT(find(ops, n, "ssd_chunk_state")->count, 64 * 32);
  CHECK_EQ_INT(find(ops, n, "ssd_bmm_cb")->count, 64 * 4);
}

/* The mixer's RMSNorm after the gate (Megatron-Core passes z to the scan):
 * 8192 tokens x 4096, fwd reads y and writes out (2 x 2 B), bwd reads y and
 * dy and writes dx (3 x 2 B). The layout copies of _ssm_training: none at
 * mbs 1; at mbs 2 (16384 tokens) the forward copies zxBCdt (10304) and y
 * (4096), a read and a write of 2 B each: 16384 x 14400 x 4 = 943,718,400 B
 * in 2 kernels; the backward copies dzxBCdt once: 16384 x 10304 x 4 =
 * 675,282,944 B. */
static void test_mamba_norm_and_layout(void) {
  struct pl_model m = model("nemotron-3-nano");
  struct pl_layout l = layout(&m, 8, 1, 8, 1, 8);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *norm = find(ops, n, "ssm_norm");
  CHECK(norm != NULL && find(ops, n, "ssm_layout") == NULL);
  if (norm != NULL) {
    CHECK_NEAR_REL(norm->fwd_bytes, 8192.0 * 4096 * 4, 1e-12);
    CHECK_NEAR_REL(norm->bwd_bytes, 8192.0 * 4096 * 6, 1e-12);
  }
  struct pl_layout l2 = layout(&m, 8, 1, 8, 2, 16);
  n = pl_layer_ops(&m, &l2, ops);
  const struct pl_op *cp = find(ops, n, "ssm_layout");
  CHECK(cp != NULL);
  if (cp == NULL)
    return;
  CHECK_NEAR_REL(cp->fwd_bytes, 943718400.0, 1e-12);
  CHECK_NEAR_REL(cp->bwd_bytes, 675282944.0, 1e-12);
  CHECK_EQ_INT(pl_op_kernels(cp, PL_PASS_FWD), 2);
  CHECK_EQ_INT(pl_op_kernels(cp, PL_PASS_BWD), 1);
  CHECK_NEAR_REL(cp->share, 23.0 / 52.0, 1e-12);
  /* each copy reads a permuted view: all on PyTorch's non-vectorized path,
   * 16384 x 14400 = 235,929,600 elements forward, 16384 x 10304 =
   * 168,820,736 backward (docs/step-model.md 2.3h) */
  CHECK_NEAR_REL(cp->fwd_strided_elems, 235929600.0, 1e-12);
  CHECK_NEAR_REL(cp->bwd_strided_elems, 168820736.0, 1e-12);
  CHECK_NEAR_REL(cp->fwd_strided_bytes, cp->fwd_bytes, 1e-12);
  CHECK_NEAR_REL(cp->bwd_strided_bytes, cp->bwd_bytes, 1e-12);
}

/* One Nano Mamba block (mbs 1, seq 8192, tp 1) on h200, whose file gives
 * the kernels' measured rates (efficiency.mamba_ssm; BF16 peak 989.4 TFLOP/s,
 * gemm sustained 0.887, HBM 4.8 TB/s, kernel_overhead 1.2 us):
 *   ssd_chunk_scan fwd: 2 x 128 x 64 x 256 x 4096 = 17,179,869,184 FLOP at
 *     989.4e12 x 0.113 x 0.887 = 99.1686e12 FLOP/s = 173.24 us + 1.2 us;
 *     bwd 2x the FLOPs at 0.0695: 563.32 us + 4 launches = 568.12 us
 *   ssd_states fwd: 64 x 64 x 128 x 64 = 33,554,432 state elements x 6 B +
 *     8192 x 64 x 12 B = 207,618,048 B at 0.644 x 4.8e12 = 67.17 us + 2 x
 *     1.2 us = 69.57 us
 *   ssm_norm bwd: 8192 x 4096 x 6 B = 201,326,592 B at 0.215 x 4.8e12 =
 *     195.08 us + 3 x 1.2 us = 198.68 us
 *   ssd_gate fwd: 8192 x 4096 x 4 B = 134,217,728 B at 0.649 x 4.8e12 =
 *     43.08 us, no launch of its own (inside _chunk_scan_fwd); bwd 12 B per
 *     element, 402,653,184 B at 0.751 x 4.8e12 = 111.70 us + 1.2 us
 * and a100-80g, whose file gives none, keeps the GEMM tile model: the scan
 * costs the same as an unnamed GEMM op of its shape. */
static void test_ssd_rates(void) {
  struct pl_model m = model("nemotron-3-nano");
  struct pl_layout l = layout(&m, 8, 1, 8, 1, 8);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *sc = find(ops, n, "ssd_chunk_scan"), *st = find(ops, n, "ssd_states");
  const struct pl_op *norm = find(ops, n, "ssm_norm");
  struct pl_gpu g;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_gpu_load("h200", &g, &d), PL_OK, dp);
  CHECK(sc && st && norm);
  if (!(sc && st && norm))
    return;
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_FP8, sc, PL_PASS_FWD), 174.44e-6, 1e-3);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_BF16, sc, PL_PASS_BWD), 568.12e-6, 1e-3);
  CHECK_EQ_INT(pl_op_kernels(sc, PL_PASS_BWD), 4);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_BF16, st, PL_PASS_FWD), 69.57e-6, 1e-3);
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_BF16, norm, PL_PASS_BWD), 198.68e-6, 1e-3);
  const struct pl_op *gate = find(ops, n, "ssd_gate");
  CHECK(gate != NULL);
  if (gate != NULL) {
    CHECK_EQ_INT(pl_op_kernels(gate, PL_PASS_FWD), 0);
    CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_BF16, gate, PL_PASS_FWD), 43.08e-6, 1e-3);
    CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_BF16, gate, PL_PASS_BWD), 112.90e-6, 1e-3);
  }
  CHECK_STATUS(pl_gpu_load("a100-80g", &g, &d), PL_OK, dp);
  struct pl_op plain = *sc;
  plain.name = "gemm";
  CHECK_NEAR_REL(pl_op_time_s(&g, PL_DTYPE_BF16, sc, PL_PASS_FWD),
                 pl_op_time_s(&g, PL_DTYPE_BF16, &plain, PL_PASS_FWD), 1e-12);
}

/* Model FLOPs per token (forward), seq 8192:
 *   attention blocks 6 x (projections 2 (2688 x 4608 + 4096 x 2688) =
 *     46,792,704 + core 2 x 8192 x 32 x 256 = 134,217,728)
 *   Mamba blocks 23 x (2 x 2688 x 10304 + 2 x 4096 x 2688 = 77,414,400 +
 *     CB 2 x 128 x 128 x 8 = 262,144 + 2 x 64 x 64 x (256 + 128) = 3,145,728)
 *     = 23 x 80,822,272
 *   MoE blocks 23 x (router 2 x 2688 x 128 = 688,128 + 6 x 4 x 2688 x 1856 =
 *     119,734,272 + shared 4 x 2688 x 3712 = 39,911,424) = 23 x 160,333,824
 *   logits 2 x 2688 x 131072 = 704,643,072
 *   = 280,756,224 + 805,306,368 + 1,858,912,256 + 3,687,677,952 +
 *     704,643,072 = 7,337,295,872; model_per_step = 3 x 8192 x that per
 *     sequence. */
static void test_nano_flops(void) {
  struct pl_model m = model("nemotron-3-nano");
  struct pl_layout l = layout(&m, 8, 1, 8, 1, 8);
  struct pl_flops f;
  pl_flops_compute(&m, &l, &f);
  CHECK_NEAR_REL(f.model_per_step, 8.0 * 3.0 * 8192.0 * 7337295872.0, 1e-12);
  /* PaLM: 12 l h s over the 6 attention blocks only */
  CHECK_NEAR_REL(pl_flops_palm_per_token(&m, 8192),
                 6.0 * 3580076352.0 + 12.0 * 6.0 * 4096.0 * 8192.0, 1e-12);
}

/* Activations of the average block, bf16 (e = 2), mbs 1 x 8192 tokens,
 * tp 1, balanced routing; per token:
 *   every block: norm input 2 h + first GEMM input 2 h = 4 x 2688 = 10,752
 *   attention: Q, K, V 2 (4096 + 512) + proj input 2 x 4096 + LSE 4 x 32 = 17,536
 *   Mamba: zxbcdt 2 x 10304 + scan output 2 x 4096 + gated-norm input
 *     2 x 4096 + out_proj input 2 x 4096 + rstd 4 x 8 = 45,216
 *   MoE: router 4 x 128 + 6 copies x (2 x 2688 + 4 x 1856) + shared
 *     4 x 3712 = 92,160
 *   = 10,752 + (6 x 17,536 + 23 x 45,216 + 23 x 92,160) / 52. Selective
 * recompute of the MoE layer and the norm frees some of it. */
static void test_memory(void) {
  struct pl_model m = model("nemotron-3-nano");
  struct pl_layout l = layout(&m, 8, 1, 8, 1, 8);
  l.moe_imbalance = 1.0;
  double none = pl_memory_layer_activation_bytes(&m, &l);
  CHECK_NEAR_REL(none, 8192.0 * (10752.0 + (6.0 * 17536 + 23.0 * 45216 + 23.0 * 92160) / 52.0),
                 1e-12);
  l.recompute = PL_RECOMPUTE_SELECTIVE;
  l.recompute_modules = PL_RCM_MOE | PL_RCM_LAYERNORM;
  double sel = pl_memory_layer_activation_bytes(&m, &l);
  CHECK(sel > 0 && sel < none);
}

static void test_bad_input(void) {
  model_json_refused(HYBRID_JSON_BASE
                     "\"layers\": 3, \"hybrid_pattern\": \"MX*\", " HYBRID_JSON_MAMBA "}",
                     "letter other than M");
  model_json_refused(HYBRID_JSON_BASE
                     "\"layers\": 4, \"hybrid_pattern\": \"M*-\", " HYBRID_JSON_MAMBA "}",
                     "has 3 blocks but layers is 4");
  model_json_refused(HYBRID_JSON_BASE
                     "\"layers\": 2, \"hybrid_pattern\": \"ME\", " HYBRID_JSON_MAMBA "}",
                     "'E' blocks need experts");
  model_json_refused(HYBRID_JSON_BASE "\"layers\": 2, \"hybrid_pattern\": \"M*\"}",
                     "mamba_heads must be between 1");
  model_json_refused(
      HYBRID_JSON_BASE
      "\"layers\": 2, \"hybrid_pattern\": \"M*\", \"mamba_heads\": 8, \"mamba_head_dim\": 64, "
      "\"mamba_groups\": 3, \"mamba_state\": 16}",
      "mamba_groups 3 must divide mamba_heads 8");
  model_json_refused(HYBRID_JSON_BASE "\"layers\": 2, " HYBRID_JSON_MAMBA "}",
                     "Mamba dimensions given without a hybrid_pattern");
  model_json_refused(HYBRID_JSON_BASE "\"layers\": 2, \"hybrid_pattern\": 7}",
                     "'hybrid_pattern' must be a string");
  model_json_refused(
      HYBRID_JSON_BASE
      "\"layers\": 2, \"hybrid_pattern\": \"M*\", \"mamba_heads\": -8, \"mamba_head_dim\": 64, "
      "\"mamba_groups\": 2, \"mamba_state\": 16}",
      "mamba_heads");
  /* a good small hybrid loads, and tp must divide its Mamba groups */
  const char *ok =
      HYBRID_JSON_BASE "\"layers\": 3, \"hybrid_pattern\": \"M*-\", " HYBRID_JSON_MAMBA "}";
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_model_from_json(ok, strlen(ok), "test", &m, &d), PL_OK, dp);
  CHECK_EQ_INT(pl_model_kind_layers(&m, '-'), 1);
  CHECK_EQ_INT(pl_model_dense_mlp_layers(&m), 1);
  struct pl_cluster c;
  struct pl_layout l;
  memset(&c, 0, sizeof c);
  memset(&l, 0, sizeof l);
  c.gpus_per_node = 8;
  l.gpus = 4;
  l.tp = 4;
  pl_diag_clear(&d);
  CHECK(pl_layout_resolve(&l, &m, &c, &d) != PL_OK);
  CHECK(strstr(d.msg, "tp must divide the Mamba heads (8) and groups (2)") != NULL);
}

int main(void) {
  test_nano_params();
  test_hf_config();
  test_mamba_ops();
  test_mamba_norm_and_layout();
  test_ssd_rates();
  test_nano_flops();
  test_memory();
  test_bad_input();
  return check_finish();
}
