/* test_moe_latent.c: latent MoE (model/moe_latent.c) and MTP in a hybrid
 * stack (model/hybrid_mtp.c) on the Nemotron 3 Super and 3.5 Lightning presets: parameters
 * derived by hand against the published totals, the latent widths of the
 * MoE ops, the MTP module's blocks in the average block, and bad input. */
#include <plateau/flops.h>
#include <plateau/model.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model_fixture.h"

/* Nemotron 3 Super: h 4096, 88 blocks (40 M, 40 E, 8 *); Mamba H 128, P 64
 * (d_inner 8192), G 8, N 128, d_conv 4; attention 32 heads of 128, 2 KV
 * heads; 512 experts of 2688 (two-matrix) at latent width 1024, top 22,
 * shared 5376, router bias; vocab 131072 untied.
 *   Mamba block: norm 4096 + in_proj 4096 x (16384 + 2048 + 128) = 76,021,760
 *     + conv (8192 + 2048) x 5 = 51,200 + 3 x 128 + gated norm 8192 +
 *     out_proj 8192 x 4096 = 33,554,432: 109,640,064.
 *   Attention block: norm 4096 + Q 16,777,216 + K, V 2 x 4096 x 256 =
 *     2,097,152 + O 16,777,216: 35,655,680.
 *   MoE block: norm 4096 + router 512 x 4096 = 2,097,152 + bias 512 + latent
 *     projections 2 x 4096 x 1024 = 8,388,608 + experts 512 x 2 x 1024 x 2688
 *     = 2,818,572,288 + shared 2 x 4096 x 5376 = 44,040,192: 2,873,102,848.
 *   Outside: 2 x 131072 x 4096 = 1,073,741,824 + final norm 4096.
 *   Total 40 x 109,640,064 + 8 x 35,655,680 + 40 x 2,873,102,848 +
 *     1,073,745,920 = 120,668,707,840: the HF API total 123,611,033,088 less
 *     the MTP module's 2,942,325,248 (below).
 *   Active: MoE block with 22 experts (22 x 5,505,024 = 121,110,528):
 *     175,641,088; 40 x 109,640,064 + 8 x 35,655,680 + 40 x 175,641,088 +
 *     1,073,745,920 = 12,770,237,440 (12B active).
 *   MTP module ("*E"): 35,655,680 + 2,873,102,848 + eh_proj 2 x 4096^2 =
 *     33,554,432 + 3 norms 12,288 = 2,942,325,248. */
static void test_super_params(void) {
  struct pl_model m = model("nemotron-3-super");
  CHECK_EQ_INT(m.moe_latent, 1024);
  CHECK(strcmp(m.mtp_pattern, "*E") == 0);
  CHECK_EQ_INT(pl_model_kind_layers(&m, 'M'), 40);
  CHECK_EQ_INT(pl_model_kind_layers(&m, 'E'), 40);
  CHECK_EQ_INT(pl_model_kind_layers(&m, '*'), 8);
  CHECK_EQ_INT(pl_model_moe_width(&m), 1024);
  CHECK_EQ_INT(pl_model_moe_latent_params(&m), INT64_C(8388608));
  CHECK_EQ_INT(pl_model_expert_params(&m), INT64_C(5505024));
  CHECK_EQ_INT(pl_model_mamba_params(&m), INT64_C(109640064));
  CHECK_EQ_INT(pl_model_moe_layer_params(&m), INT64_C(2873102848));
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(120668707840));
  CHECK_EQ_INT(pl_model_active_params(&m), INT64_C(12770237440));
  CHECK_EQ_INT(pl_model_mtp_params(&m), INT64_C(2942325248));
  CHECK_EQ_INT(pl_model_params(&m) + pl_model_mtp_params(&m), INT64_C(123611033088));
  /* the HF nemotron_h config (tests/data/hf) reads to the same model */
  struct pl_model hf = model(PL_TEST_DATA "/hf/Nemotron-3-Super-120B-A12B.json");
  CHECK_EQ_INT(pl_model_params(&hf), pl_model_params(&m));
  CHECK_EQ_INT(pl_model_active_params(&hf), pl_model_active_params(&m));
  CHECK_EQ_INT(pl_model_mtp_params(&hf), pl_model_mtp_params(&m));
  CHECK_EQ_INT(hf.moe_latent, 1024);
  CHECK(strcmp(hf.mtp_pattern, "*E") == 0);
  CHECK(hf.router_fp32 && hf.router_aux_loss); /* the NemotronH provider's router */
  CHECK(hf.pos == PL_POS_NONE);                /* position_embedding_type "none" */
  /* a model without moe_latent keeps the h-wide experts */
  struct pl_model nano = model("nemotron-3-nano");
  CHECK_EQ_INT(pl_model_moe_width(&nano), 2688);
  CHECK_EQ_INT(pl_model_moe_latent_params(&nano), 0);
}

/* The MoE ops at ep 64, mbs 1, seq 8192, tp 1: the router reads h-wide
 * tokens (512 x 4096); latent_fc1 projects the 8192 tokens 4096 -> 1024
 * before the dispatch, the 8 local experts' fc1 read 1024-wide rows and
 * fc2 writes 1024-wide rows, latent_fc2 projects back 1024 -> 4096, the
 * shared expert stays at h. */
static void test_super_ops(void) {
  struct pl_model m = model("nemotron-3-super");
  struct pl_layout l = resolved(
      &m,
      (struct pl_layout){
          .gpus = 64, .tp = 1, .ep = 64, .mbs = 1, .gbs = 512, .seq = 8192, .moe_imbalance = 1.0});
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *router = find(ops, n, "router"), *f1 = find(ops, n, "latent_fc1");
  const struct pl_op *f2 = find(ops, n, "latent_fc2"), *e1 = find(ops, n, "expert_fc1");
  const struct pl_op *e2 = find(ops, n, "expert_fc2"), *s1 = find(ops, n, "shared_fc1");
  CHECK(router != NULL && f1 != NULL && f2 != NULL && e1 != NULL && e2 != NULL && s1 != NULL);
  if (router == NULL || f1 == NULL || f2 == NULL || e1 == NULL || e2 == NULL || s1 == NULL)
    return;
  CHECK_EQ_INT(router->n, 512);
  CHECK_EQ_INT(router->k, 4096);
  CHECK_EQ_INT(f1->m, 8192);
  CHECK_EQ_INT(f1->n, 1024);
  CHECK_EQ_INT(f1->k, 4096);
  CHECK_EQ_INT(f2->n, 4096);
  CHECK_EQ_INT(f2->k, 1024);
  CHECK_EQ_INT(e1->k, 1024);
  CHECK_EQ_INT(e1->n, 2688);
  CHECK_EQ_INT(e2->n, 1024);
  CHECK_EQ_INT(e2->k, 2688);
  CHECK_EQ_INT(s1->k, 4096);
  /* no position embedding (pos "none"): no RoPE op */
  CHECK(m.pos == PL_POS_NONE);
  CHECK(find(ops, n, "rope") == NULL);
  /* balanced routing (moe_imbalance 1): 8192 x 22 copies over 8 local experts = 22,528 rows each */
  CHECK_EQ_INT(e1->m, 22528);
  /* 40 of 88 blocks are MoE without MTP */
  CHECK(fabs(router->share - 40.0 / 88.0) < 1e-12);
  CHECK(fabs(pl_moe_block_share(&m, &l) - 40.0 / 88.0) < 1e-12);
}

/* Two MTP runs of the "*E" module (the recipe's mtp_num_layers 2): the last
 * stage holds 88 + 2 x 2 = 92 blocks, of which 42 MoE, 10 attention and 40
 * Mamba; pp 2: 44 and 44 + 4. */
static void test_super_mtp(void) {
  struct pl_model m = model("nemotron-3-super");
  struct pl_layout l = resolved(
      &m, (struct pl_layout){
              .gpus = 64, .tp = 1, .ep = 64, .mbs = 1, .gbs = 512, .seq = 8192, .mtp_layers = 2});
  CHECK_EQ_INT(l.mtp_module_blocks, 2);
  CHECK_EQ_INT(pl_layout_stage_layers(&l, m.layers, 0), 92);
  CHECK(fabs(pl_hybrid_share(&m, &l, 'E') - 42.0 / 92.0) < 1e-12);
  CHECK(fabs(pl_hybrid_share(&m, &l, '*') - 10.0 / 92.0) < 1e-12);
  CHECK(fabs(pl_hybrid_share(&m, &l, 'M') - 40.0 / 92.0) < 1e-12);
  CHECK(fabs(pl_hybrid_share(&m, NULL, 'E') - 40.0 / 88.0) < 1e-12);
  struct pl_layout p2 = resolved(&m, (struct pl_layout){.gpus = 64,
                                                        .tp = 1,
                                                        .pp = 2,
                                                        .ep = 32,
                                                        .mbs = 1,
                                                        .gbs = 512,
                                                        .seq = 8192,
                                                        .mtp_layers = 2});
  CHECK_EQ_INT(pl_layout_stage_layers(&p2, m.layers, 0), 44);
  CHECK_EQ_INT(pl_layout_stage_layers(&p2, m.layers, 1), 48);
  /* model FLOPs: the two runs add 2 x ("*E" blocks + eh_proj + norms + head) */
  struct pl_flops with, without;
  struct pl_layout l0 = resolved(
      &m, (struct pl_layout){.gpus = 64, .tp = 1, .ep = 64, .mbs = 1, .gbs = 512, .seq = 8192});
  pl_flops_compute(&m, &l, &with);
  pl_flops_compute(&m, &l0, &without);
  CHECK(with.model_per_step > without.model_per_step);
}

/* Nemotron 3.5 Lightning: Nano's trunk and one "*E" MTP module: attention
 * block 23,399,040 + MoE block 1,297,468,160 + eh_proj 2 x 2688^2 =
 * 14,450,688 + 3 norms 8,064 = 1,335,325,952 (test_mamba.c's block figures). */
static void test_lightning(void) {
  struct pl_model m = model("nemotron-3.5-lightning");
  struct pl_model nano = model("nemotron-3-nano");
  CHECK_EQ_INT(pl_model_params(&m), pl_model_params(&nano));
  CHECK_EQ_INT(pl_model_mtp_params(&m), INT64_C(1335325952));
  CHECK_EQ_INT(m.moe_latent, 0);
  struct pl_layout l = resolved(
      &m,
      (struct pl_layout){.gpus = 8, .ep = 8, .mbs = 2, .gbs = 512, .seq = 8192, .mtp_layers = 2});
  CHECK_EQ_INT(pl_layout_stage_layers(&l, m.layers, 0), 56); /* 52 + 2 x 2 */
  CHECK(fabs(pl_hybrid_share(&m, &l, 'E') - 25.0 / 56.0) < 1e-12);
}

/* NVFP4 with the last 14 blocks in 16-bit and two MTP runs (16-bit: the
 * NemotronH provider's keep_mtp_spec_in_bf16): the last 14 of the pattern,
 * EMEM*EMEMEMEME, hold 6 M, 7 E and 1 *; so M 6 / 40, E (7 + 2) / 42,
 * * (1 + 2) / 10. Each GEMM of a kind splits into a 16-bit copy run by that
 * share of the blocks; the two copies' shares add up to the op's. BF16: no split. */
static void test_bf16_blocks(void) {
  struct pl_model m = model("nemotron-3-super");
  struct pl_layout l = resolved(&m, (struct pl_layout){.gpus = 64,
                                                       .ep = 64,
                                                       .mbs = 1,
                                                       .gbs = 512,
                                                       .seq = 8192,
                                                       .mtp_layers = 2,
                                                       .bf16_last_blocks = 14});
  l.dtype = PL_DTYPE_NVFP4; /* the fixture's cluster has no GPU file to resolve NVFP4 against */
  CHECK(fabs(pl_bf16_block_share(&m, &l, 'M') - 6.0 / 40.0) < 1e-12);
  CHECK(fabs(pl_bf16_block_share(&m, &l, 'E') - 9.0 / 42.0) < 1e-12);
  CHECK(fabs(pl_bf16_block_share(&m, &l, '*') - 3.0 / 10.0) < 1e-12);
  struct pl_op ops[PL_MAX_LAYER_OPS];
  int n = pl_layer_ops(&m, &l, ops);
  double lo = 0, hi = 0;
  for (int i = 0; i < n; i++)
    if (strcmp(ops[i].name, "expert_fc1") == 0)
      *(ops[i].high_precision ? &hi : &lo) += ops[i].share;
  CHECK(fabs(hi - 42.0 / 92.0 * 9.0 / 42.0) < 1e-12);
  CHECK(fabs(lo + hi - 42.0 / 92.0) < 1e-12);
  /* --bf16-modules (quant_modules.c): the named GEMMs at 16-bit, the others not */
  l.bf16_modules = PL_B16_LINEAR_QKV | PL_B16_LATENT_PROJ;
  n = pl_layer_ops(&m, &l, ops);
  const struct pl_op *qkv = find(ops, n, "qkv"), *lat = find(ops, n, "latent_fc2");
  const struct pl_op *proj = find(ops, n, "proj");
  CHECK(qkv != NULL && qkv->high_precision);
  CHECK(lat != NULL && lat->high_precision);
  CHECK(proj != NULL && !proj->high_precision); /* the first proj: the FP4 share */
  uint32_t mask = 0;
  struct pl_diag dg;
  CHECK(pl_bf16_modules_parse("linear_proj,latent_proj", &mask, &dg) == PL_OK);
  CHECK_EQ_INT(mask, PL_B16_LINEAR_PROJ | PL_B16_LATENT_PROJ);
  CHECK(pl_bf16_modules_parse("out_proj", &mask, &dg) != PL_OK);
  /* BF16: nothing splits; a dense model: last / layers */
  l.dtype = PL_DTYPE_BF16;
  CHECK(pl_bf16_block_share(&m, &l, 'E') == 0.0);
  struct pl_model d = model("llama3-8b");
  struct pl_layout ld =
      resolved(&d, (struct pl_layout){.gpus = 8, .mbs = 1, .gbs = 8, .bf16_last_blocks = 2});
  ld.dtype = PL_DTYPE_FP8;
  CHECK(fabs(pl_bf16_block_share(&d, &ld, 0) - 2.0 / 32.0) < 1e-12);
}

#define MOE "\"experts\": 8, \"top_k\": 2, \"expert_ffn\": 128"

static void test_bad_input(void) {
  model_json_refused(HYBRID_JSON_BASE "\"layers\": 2, \"moe_latent\": 64}",
                     "moe_latent needs routed experts");
  model_json_refused(HYBRID_JSON_BASE "\"layers\": 2, " MOE ", \"moe_latent\": -4}", "moe_latent");
  model_json_refused(HYBRID_JSON_BASE "\"layers\": 2, \"mtp_pattern\": \"*E\"}",
                     "mtp_pattern given without a hybrid_pattern");
  model_json_refused(HYBRID_JSON_BASE
                     "\"layers\": 2, \"hybrid_pattern\": \"ME\", " HYBRID_JSON_MAMBA ", " MOE
                     ", \"mtp_layers\": 1}",
                     "mtp_layers needs mtp_pattern");
  model_json_refused(HYBRID_JSON_BASE
                     "\"layers\": 2, \"hybrid_pattern\": \"ME\", " HYBRID_JSON_MAMBA ", " MOE
                     ", \"mtp_layers\": 1, \"mtp_pattern\": \"*X\"}",
                     "mtp_pattern has a letter other than");
  model_json_refused(HYBRID_JSON_BASE
                     "\"layers\": 2, \"hybrid_pattern\": \"ME\", " HYBRID_JSON_MAMBA ", " MOE
                     ", \"mtp_pattern\": \"*E*E*E*E*E*E*E*E\"}",
                     "mtp_pattern");
  /* a pipeline layout string cannot place the two-block MTP module */
  struct pl_model m = model("nemotron-3-super");
  struct pl_cluster c;
  struct pl_layout l;
  struct pl_diag d;
  memset(&c, 0, sizeof c);
  memset(&l, 0, sizeof l);
  c.gpus_per_node = 8;
  l.gpus = 64;
  l.ep = 64;
  l.mtp_layers = 2;
  snprintf(l.pipeline_layout, sizeof l.pipeline_layout, "%s", "Et*88mmL");
  pl_diag_clear(&d);
  CHECK(pl_layout_resolve(&l, &m, &c, &d) != PL_OK);
  CHECK(strstr(d.msg, "cannot place a hybrid model's 2-block MTP module") != NULL);
}

int main(void) {
  test_super_params();
  test_super_ops();
  test_super_mtp();
  test_lightning();
  test_bf16_blocks();
  test_bad_input();
  return check_finish();
}
