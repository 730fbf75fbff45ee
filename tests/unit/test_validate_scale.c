/* test_validate_scale.c: how `plateau validate` reads the two sources of
 * src/validate/sources_scale.c (MegaScale, NSDI 2024; Llama 3 Table 4): the
 * model-FLOP count behind MegaScale's MFU, the MFU and TFLOP/s conversions to
 * a step time, and which rows are skipped with which reason. Expected
 * numbers are derived by hand in the comments. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "validate/validate_int.h"
#include "check.h"

static struct pl_diag d;
static struct pl_diag *dp;

static const struct pl_vrow *row_of(const struct pl_validation *v, int64_t r) {
  for (size_t i = 0; i < v->n_rows; i++)
    if (v->rows[i].row == r)
      return &v->rows[i];
  return NULL;
}

/* Korthikanti's model FLOPs, 175B of MegaScale Table 1 (l 96, h 12288),
 * B 768, s 2048, V 64000:
 *   72 x 768 x 2048 x 96 x 12288^2 = 1.641565e18
 *   1 + 2048/73728 + 64000/(12 x 96 x 12288) = 1 + 0.0277778 + 0.0045210
 *   F = 1.641565e18 x 1.0322988 = 1.694583e18
 * and Table 2's 256-GPU Megatron-LM row, 40.0 s: F / (40 x 256 x 312e12) =
 * 53.04 %, the printed 53.0 %. */
static void test_model_flops(void) {
  double f = validate_megatron_model_flops(768, 2048, 96, 12288, 64000);
  CHECK_NEAR_REL(f, 1.694583e18, 1e-6);
  CHECK_NEAR_REL(f / (40.0 * 256 * 312e12), 0.5304, 1e-3);
}

#define MS_HEADER                                                                                 \
  "source,model,layers,hidden,heads,seq_len,vocab,gpu,num_gpus,tp,pp,dp,vp,sharding,recompute,"    \
  "micro_batch,global_batch,precision,Method,Iteration Time (s),MFU\n"
#define MS_SRC "\"Jiang et al., \"\"MegaScale: Scaling Large Language Model Training to More\"\"\","
#define MS_175B "GPT 175B,96,12288,128,2048,64000,\"NVIDIA Ampere GPUs (A100-class), RoCE\","

static void test_megascale_rows(void) {
  const char *csv =
      MS_HEADER
      /* 1: Table 2, Megatron-LM, 256 GPUs, B 768, printed 40.0 s */
      MS_SRC MS_175B "256,8,8,4,6,,,,768,,Megatron-LM,40.0,53.0%\n"
      /* 2: Table 3's baseline, B 256, MFU 47.7 %: step = F(256) / (0.477 x 256 x 312e12)
       * with F(256) = 1.694583e18 / 3 = 5.648609e17 -> 5.648609e17 / 3.809894e16 = 14.826 s */
      MS_SRC MS_175B "256,8,8,4,6,,,,256,,baseline,,47.7%\n"
      /* 3: MegaScale's own row: skipped (sliding-window attention of an unstated window) */
      MS_SRC MS_175B "256,8,8,4,6,,,,768,,MegaScale,32.0,65.3%\n"
      /* 4: Table 3 (1), the parallel transformer block, MFU 52.3 %: step = 5.648609e17 /
       * (0.523 x 256 x 312e12 = 4.177306e16) = 13.522 s; layout.parallel_block on */
      MS_SRC MS_175B "256,8,8,4,6,,,,256,,(1) with PTB,,52.3%\n"
      /* 5: Table 3 (2), sliding-window attention added: skipped */
      MS_SRC MS_175B "256,8,8,4,6,,,,256,,(2) with SWA,,53.3%\n";
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "megascale", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 40.0, 0);
    CHECK_STR(r->gpu, "a100-80g");
    CHECK_STR(r->framework, "megatron-lm");
    CHECK_EQ_INT(r->layout.recompute, PL_RECOMPUTE_SELECTIVE);
    CHECK_EQ_INT(r->layout.mbs, 1);
    CHECK_EQ_INT(r->layout.vp, 6);
    CHECK_EQ_INT(r->layout.schedule, PL_SCHEDULE_INTERLEAVED);
    CHECK(!r->layout.no_sp);
    CHECK_CONTAINS(r->assumed, "Megatron-LM README @ 285068c8");
    CHECK_CONTAINS(r->assumed, "RoCE");
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->published, 47.7, 0);
    CHECK_NEAR_REL(r->measured, 14.826, 1e-4);
    CHECK(r->published_rate);
  }
  r = row_of(&v, 3);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "sliding-window attention, whose window the paper does not");
  r = row_of(&v, 4);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 13.522, 1e-4);
    CHECK(r->layout.parallel_block);
    CHECK_CONTAINS(r->assumed, "parallel transformer block");
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && !r->skipped && !r->layout.parallel_block);
  r = row_of(&v, 5);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "'(2) with SWA'");
  pl_validation_free(&v);
}

#define L3_HEADER                                                                                 \
  "source,model,layers,hidden,heads,kv_heads,seq_len,vocab,gpu,num_gpus,tp,pp,cp,dp,vp,sharding," \
  "recompute,micro_batch,global_batch,precision,TFLOPs/GPU\n"
#define L3_SRC "\"Llama Team, AI @ Meta, \"\"The Llama 3 Herd of Models\"\"\",Llama 3 405B,"
#define L3_SHARD                                                                                  \
  "\"FSDP: shards optimizer states and gradients; model shards not resharded after forward\","

/* The llama3-405b preset has N = 405,853,388,800 parameters: per block
 * 2h^2 (q, o) + 2 x h x 1024 (k, v: 8 heads of 128) + 3 h f (SwiGLU) + 2h
 * (norms) = 536,870,912 + 33,554,432 + 2,617,245,696 + 32,768 =
 * 3,187,703,808; x 126 = 401,650,679,808; + 2 x 128,256 x 16,384 (untied
 * embedding and head) = 4,202,692,608; + 16,384 (final norm).
 * PaLM per token at s 8192: 6N + 12 x 126 x 16384 x 8192 = 2,435,120,332,800
 * + 202,937,204,736 = 2,638,057,537,536; x 2048 x 8192 tokens / (430e12 x
 * 8192 GPUs) = 12.5645 s. */
static void test_llama3_rows(void) {
  const char *csv = L3_HEADER
      /* 1: Table 4 row 1 */
      L3_SRC "126,16384,128,8,8192,128000,\"H100 80GB HBM3; RoCE\",8192,8,16,1,64,," L3_SHARD
             "none,,2048,BF16,430\n"
      /* 2: a sharding the rule does not know: skipped */
      L3_SRC "126,16384,128,8,8192,128000,H100 80GB HBM3,8192,8,16,1,64,,FSDP,none,,2048,BF16,"
             "430\n";
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "llama3", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL);
  if (r != NULL) {
    /* measured is set before the prediction, which may find it does not fit */
    CHECK_NEAR_REL(r->measured, 12.5645, 1e-4);
    CHECK_EQ_INT(r->layout.shard, PL_SHARD_ZERO2);
    CHECK_EQ_INT(r->layout.recompute, PL_RECOMPUTE_NONE);
    CHECK_EQ_INT(r->layout.vp, 8); /* (126 + 2) / 16 */
    CHECK(r->layout.account_embed_loss);
    CHECK_STR(r->framework, "torchtitan");
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "sharding 'FSDP' not understood");
  pl_validation_free(&v);
}

int main(void) {
  dp = &d;
  test_model_flops();
  test_megascale_rows();
  test_llama3_rows();
  return check_finish();
}
