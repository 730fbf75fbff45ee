/* test_presets18.c: the session-18 model presets (data/models/) for models
 * that published training tables name: exact parameter counts derived by hand
 * below, checked against the totals their model cards and papers state; and
 * the refusal of configs that declare a feature plateau does not model.
 *
 * Notation as docs/model.md "Parameters": block = attention h(q + 2kv) + qh
 * (+ q + 2kv Q/K/V biases, + 2d Q/K RMSNorm weights) + MLP 3hf (gated) or
 * 2hf + norms 2h (RMSNorm) or 4h (LayerNorm); N = l block + V h (x 2
 * untied) + final norm. */
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "check.h"
#include "model_fixture.h"

/* v agrees with a published figure pub (in units of unit) stated to its last
 * digit, rounded or cut: within one unit (as test_model.c check_rounds). */
static void check_rounds(int64_t v, double pub, double unit) {
  double r = (double)v / unit;
  CHECK(fabs(r - pub) < 1.0);
  if (fabs(r - pub) >= 1.0)
    fprintf(stderr, "  %lld is %.2f units, published %.2f\n", (long long)v, r, pub);
}

static int64_t non_embedding(const struct pl_model *m) {
  return pl_model_params(m) - pl_model_embedding_params(m) - pl_model_head_params(m);
}

/* Qwen3 dense (q = a 128, kv = 8 * 128 = 1024, Q/K norms 2 * 128, untied
 * V 151936). 8B: h 4096, a 32: attention 4096 * 6144 + 4096^2 + 256 =
 * 41,943,296; MLP 3 * 4096 * 12288 = 150,994,944; norms 8,192; block
 * 192,946,432, x36 = 6,946,071,552 ("6.95B non-embedding"); + 2 * 151936 *
 * 4096 = 1,244,659,712 + 4,096 = 8,190,735,360 ("8.2B").
 * 14B: h 5120, a 40: 5120 * 7168 + 5120^2 + 256 = 62,914,816; 3 * 5120 *
 * 17408 = 267,386,880; 10,240; block 330,311,936, x40 = 13,212,477,440
 * ("13.2B"); + 1,555,824,640 + 5,120 = 14,768,307,200 ("14.8B").
 * 32B: h 5120, a 64 (q 8192): 5120 * 10240 + 8192 * 5120 + 256 =
 * 94,372,096; 3 * 5120 * 25600 = 393,216,000; 10,240; block 487,598,336,
 * x64 = 31,206,293,504 ("31.2B"); total 32,762,123,264 ("32.8B"). */
static void test_qwen3_dense(void) {
  struct pl_model m = model("qwen3-8b");
  CHECK_EQ_INT(pl_model_layer_params(&m), 192946432);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(8190735360));
  check_rounds(pl_model_params(&m), 82, 1e8);
  check_rounds(non_embedding(&m) - m.hidden, 695, 1e7);
  CHECK(m.qk_norm && !m.qkv_bias && !m.tied_embeddings);
  CHECK_EQ_INT(m.seq_len, 4096);
  struct pl_model m14 = model("qwen3-14b");
  CHECK_EQ_INT(pl_model_layer_params(&m14), 330311936);
  CHECK_EQ_INT(pl_model_params(&m14), INT64_C(14768307200));
  check_rounds(pl_model_params(&m14), 148, 1e8);
  check_rounds(non_embedding(&m14), 132, 1e8);
  struct pl_model m32 = model("qwen3-32b");
  CHECK_EQ_INT(pl_model_layer_params(&m32), 487598336);
  CHECK_EQ_INT(pl_model_params(&m32), INT64_C(32762123264));
  check_rounds(pl_model_params(&m32), 328, 1e8);
  check_rounds(non_embedding(&m32), 312, 1e8);
}

/* Qwen2.5 (Q/K/V biases, untied V 152064). 7B: h 3584, a 28, kv 4 * 128 =
 * 512: 3584 * 4608 + 3584^2 + 4,608 = 29,364,736; 3 * 3584 * 18944 =
 * 203,685,888; 7,168; block 233,057,792, x28 = 6,525,618,176 ("6.53B");
 * + 2 * 152064 * 3584 = 1,089,994,752 + 3,584 = 7,615,616,512 ("7.61B").
 * 72B: h 8192, a 64, kv 1024: 8192 * 10240 + 8192^2 + 10,240 = 151,005,184;
 * 3 * 8192 * 29568 = 726,663,168; 16,384; block 877,684,736, x80 =
 * 70,214,778,880; + 2,491,416,576 + 8,192 = 72,706,203,648 ("72.7B"). The
 * card's "70.0B non-embedding" is 0.2B below these sizes' 70.21B while its
 * total agrees: the non-embedding figure is compared to the billion. */
static void test_qwen25(void) {
  struct pl_model m = model("qwen2.5-7b");
  CHECK_EQ_INT(pl_model_layer_params(&m), 233057792);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(7615616512));
  check_rounds(pl_model_params(&m), 761, 1e7);
  check_rounds(non_embedding(&m), 653, 1e7);
  CHECK(m.qkv_bias && !m.out_bias && !m.qk_norm);
  struct pl_model m72 = model("qwen2.5-72b");
  CHECK_EQ_INT(pl_model_layer_params(&m72), 877684736);
  CHECK_EQ_INT(pl_model_params(&m72), INT64_C(72706203648));
  check_rounds(pl_model_params(&m72), 727, 1e8);
  check_rounds(non_embedding(&m72), 70, 1e9);
}

/* Llama 3.2 (tied V 128256, kv 8 heads). 1B: h 2048, a 32, d 64 (q 2048,
 * kv 512): 2048 * 3072 + 2048^2 = 10,485,760; 3 * 2048 * 8192 =
 * 50,331,648; 4,096; block 60,821,504, x16 = 973,144,064; + 128256 * 2048 =
 * 262,668,288 + 2,048 = 1,235,814,400 ("1.23B"). 3B: h 3072, a 24, d 128
 * (q 3072, kv 1024): 3072 * 5120 + 3072^2 = 25,165,824; 3 * 3072 * 8192 =
 * 75,497,472; 6,144; block 100,669,440, x28 = 2,818,744,320; + 128256 *
 * 3072 = 394,002,432 + 3,072 = 3,212,749,824 ("3.21B"). Mistral-Nemo 12B:
 * h 5120, a 32, d 128 (q 4096, kv 1024): 5120 * 6144 + 4096 * 5120 =
 * 52,428,800; 3 * 5120 * 14336 = 220,200,960; 10,240; block 272,640,000,
 * x40 = 10,905,600,000; + 2 * 131072 * 5120 = 1,342,177,280 + 5,120 =
 * 12,247,782,400 ("12B"). */
static void test_llama32_nemo(void) {
  struct pl_model m = model("llama3.2-1b");
  CHECK_EQ_INT(pl_model_layer_params(&m), 60821504);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(1235814400));
  check_rounds(pl_model_params(&m), 123, 1e7);
  CHECK(m.tied_embeddings);
  CHECK_EQ_INT(m.seq_len, 8192);
  struct pl_model m3 = model("llama3.2-3b");
  CHECK_EQ_INT(pl_model_layer_params(&m3), 100669440);
  CHECK_EQ_INT(pl_model_params(&m3), INT64_C(3212749824));
  check_rounds(pl_model_params(&m3), 321, 1e7);
  struct pl_model n = model("mistral-nemo-12b");
  CHECK_EQ_INT(pl_model_layer_params(&n), 272640000);
  CHECK_EQ_INT(pl_model_params(&n), INT64_C(12247782400));
  check_rounds(pl_model_params(&n), 12, 1e9);
  CHECK_EQ_INT(n.head_dim, 128);
  CHECK_EQ_INT(n.sliding_window, 0);
}

/* DeepSeek-V2-Lite: test_model.c test_other_moe derives 15,706,484,224 from
 * the config; the preset is the same model. Active: the dense block
 * 81,007,104 + 26 MoE blocks with 6 of 64 experts (13,763,072 + 4,096 +
 * router 131,072 + 8 x 8,650,752 = 83,104,256) = 2,241,717,760 + the head
 * and final norm 209,717,248 = 2,451,435,008 without the input embedding
 * ("2.4B").
 * DeepSeek-V2 (h 5120, 128 heads, q_lora 1536): attention q_a 5120 * 1536 =
 * 7,864,320 + 1,536 + q_b 1536 * 128 * 192 = 37,748,736 + kv_a 5120 * 576 =
 * 2,949,120 + 512 + kv_b 512 * 128 * 256 = 16,777,216 + o 16384 * 5120 =
 * 83,886,080 = 149,227,520; + norms 10,240. Dense block + 3 * 5120 * 12288
 * = 188,743,680 -> 337,981,440. Expert 3 * 5120 * 1536 = 23,592,960; MoE
 * block 160 experts 3,774,873,600 + 2 shared 47,185,920 + router 819,200 ->
 * 3,972,116,480; x59 = 234,354,872,320; + 2 * 102400 * 5120 =
 * 1,048,576,000 + 5,120: 235,741,434,880 ("236B"). Active MoE block 8
 * experts (6 routed + 2 shared) 188,743,680 + 819,200 + 149,237,760 =
 * 338,800,640, x59 = 19,989,237,760 + 337,981,440 + head 524,293,120 =
 * 20,851,512,320 without the input embedding ("21B"). */
static void test_deepseek_v2(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/hf/DeepSeek-V2-Lite.json", PL_TEST_DATA);
  struct pl_model hf = model(path);
  struct pl_model l = model("deepseek-v2-lite");
  CHECK_EQ_INT(pl_model_params(&l), pl_model_params(&hf));
  CHECK_EQ_INT(pl_model_active_params(&l), pl_model_active_params(&hf));
  CHECK_EQ_INT(pl_model_params(&l), INT64_C(15706484224));
  CHECK_EQ_INT(pl_model_active_params(&l) - pl_model_embedding_params(&l), INT64_C(2451435008));
  check_rounds(pl_model_params(&l), 157, 1e8);
  check_rounds(pl_model_active_params(&l) - pl_model_embedding_params(&l), 24, 1e8);
  struct pl_model v2 = model("deepseek-v2");
  CHECK_EQ_INT(pl_model_params(&v2), INT64_C(235741434880));
  CHECK_EQ_INT(pl_model_active_params(&v2) - pl_model_embedding_params(&v2),
               INT64_C(20851512320));
  check_rounds(pl_model_params(&v2), 236, 1e9);
  check_rounds(pl_model_active_params(&v2) - pl_model_embedding_params(&v2), 21, 1e9);
  CHECK(!v2.router_bias && v2.mtp_layers == 0 && v2.q_lora_rank == 1536);
}

/* gpt-oss-20b: the 120b block (test_model.c test_gpt_oss: expert 24,891,840)
 * with 32 experts and 24 layers. Attention 2880 * 5120 + 5,120 + 4096 * 2880
 * + 2,880 + 64 sinks = 26,550,144; router 32 * 2880 + 32 = 92,192; norms
 * 5,760; block 26,550,144 + 796,538,880 + 92,192 + 5,760 = 823,186,976, x24
 * = 19,756,487,424; + 2 * 201088 * 2880 = 1,158,266,880 + 2,880:
 * 20,914,757,184 ("20.91B"). Active block with 4 experts 126,215,456, x24
 * + the head 579,133,440 + 2,880 = 3,608,307,264 ("3.61B", without the
 * embedding). */
static void test_gpt_oss_20b(void) {
  struct pl_model m = model("gpt-oss-20b");
  CHECK_EQ_INT(pl_model_expert_params(&m), 24891840);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(20914757184));
  CHECK_EQ_INT(pl_model_active_params(&m) - pl_model_embedding_params(&m), INT64_C(3608307264));
  check_rounds(pl_model_params(&m), 2091, 1e7);
  check_rounds(pl_model_active_params(&m) - pl_model_embedding_params(&m), 361, 1e7);
  CHECK_EQ_INT(m.full_attn_layers, 12);
  CHECK(m.glu_clamp && m.rope_yarn && m.attn_sinks);
}

/* Grok-1 as NeMo's recipe builds it (h 6144, 48 heads, 8 kv): attention 6144
 * * 8192 + 6144^2 = 88,080,384; expert 3 * 6144 * 32768 = 603,979,776;
 * block 88,080,384 + 8 experts 4,831,838,208 + router 49,152 + norms
 * 12,288 = 4,919,980,032, x64 = 314,878,722,048 ("314B": the blocks;
 * xAI's count adds one 131072-row table, the recipe two of 128256). Total
 * + 2 * 128256 * 6144 = 1,576,009,728 + 6,144 = 316,454,737,920. */
static void test_grok1(void) {
  struct pl_model m = model("grok1-314b");
  CHECK_EQ_INT(pl_model_moe_layer_params(&m), INT64_C(4919980032));
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(316454737920));
  check_rounds(non_embedding(&m), 314, 1e9);
  CHECK_EQ_INT(m.top_k, 2);
  CHECK_EQ_INT(m.seq_len, 8192);
}

/* Nemotron-H 8B (h 4096; Mamba-2 d_inner 128 heads * 64 = 8192, 8 groups,
 * state 128): in_proj 4096 * (2 * 8192 + 2 * 8 * 128 + 128) = 76,021,760;
 * conv (8192 + 2048) * 4 + bias 10,240 = 51,200; A, D, dt bias 384; gated
 * norm 8,192; out_proj 8192 * 4096 = 33,554,432; block norm 4,096: Mamba
 * block 109,640,064, x24 = 2,631,361,536. MLP block 2 * 4096 * 21504 +
 * 4,096 = 176,164,864, x24 = 4,227,956,736. Attention block 4096 * 6144 +
 * 4096^2 + 4,096 = 41,947,136, x4 = 167,788,544. + 2 * 131072 * 4096 =
 * 1,073,741,824 + 4,096: 8,100,852,736 ("8B"). 56B: the same formulas at
 * h 8192, 256 Mamba heads (d_inner 16384), state 256, f 32768, 64 heads,
 * 54 M / 54 - / 10 *: 56,324,350,464 ("56B"). */
static void test_nemotron_h(void) {
  struct pl_model m = model("nemotron-h-8b");
  CHECK_EQ_INT(pl_model_kind_layers(&m, 'M'), 24);
  CHECK_EQ_INT(pl_model_kind_layers(&m, '-'), 24);
  CHECK_EQ_INT(pl_model_kind_layers(&m, '*'), 4);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(8100852736));
  check_rounds(pl_model_params(&m), 8, 1e9);
  struct pl_model b = model("nemotron-h-56b");
  CHECK_EQ_INT(pl_model_kind_layers(&b, 'M'), 54);
  CHECK_EQ_INT(pl_model_kind_layers(&b, '-'), 54);
  CHECK_EQ_INT(pl_model_kind_layers(&b, '*'), 10);
  CHECK_EQ_INT(pl_model_params(&b), INT64_C(56324350464));
  check_rounds(pl_model_params(&b), 56, 1e9);
}

/* Nemotron-4 (squared-ReLU two-matrix MLP, LayerNorm weight + bias, untied
 * V 256000, 8 KV heads). 15B: h 6144, a 48: 6144 * 8192 + 6144^2 =
 * 88,080,384; 2 * 6144 * 24576 = 301,989,888; norms 4 * 6144 = 24,576;
 * block 390,094,848, x32 = 12,483,035,136 ("12.5B non-embedding"); tables
 * 2 * 256000 * 6144 = 3,145,728,000 ("3.2B embedding"); + final norm
 * 12,288 = 15,628,775,424. 340B: h 18432, a 96, d 192 (kv 1536): 18432 *
 * 21504 + 18432^2 = 736,100,352; 2 * 18432 * 73728 = 2,717,908,992;
 * 73,728; block 3,454,083,072, x96 = 331,591,974,912 ("331.6B"); tables
 * 9,437,184,000 ("9.4B"); total 341,029,195,776. */
static void test_nemotron4(void) {
  struct pl_model m = model("nemotron4-15b");
  CHECK_EQ_INT(pl_model_layer_params(&m), 390094848);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(15628775424));
  check_rounds(non_embedding(&m) - 2 * m.hidden, 125, 1e8);
  check_rounds(pl_model_embedding_params(&m) + pl_model_head_params(&m) - 2 * m.hidden, 32, 1e8);
  CHECK(m.mlp == PL_MLP_GELU && m.norm == PL_NORM_LAYER && !m.linear_bias);
  struct pl_model b = model("nemotron4-340b");
  CHECK_EQ_INT(pl_model_layer_params(&b), INT64_C(3454083072));
  CHECK_EQ_INT(pl_model_params(&b), INT64_C(341029195776));
  check_rounds(non_embedding(&b) - 2 * b.hidden, 3316, 1e8);
  check_rounds(pl_model_embedding_params(&b) + pl_model_head_params(&b) - 2 * b.hidden, 94, 1e8);
}

/* A config that declares a feature plateau does not model is refused by the
 * field's name (hf_config.c refuse_unmodelled_fields). */
static void test_refused_features(void) {
  char path[512];
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  snprintf(path, sizeof path, "%s/hf/gemma-2-9b.json", PL_TEST_DATA);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load(path, &m, &d), PL_ERR_UNSUPPORTED, dp);
  CHECK_CONTAINS(d.msg, "field 'attn_logit_softcapping': attention logit soft-capping (Gemma 2) "
                        "is not modelled");
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load("{\"model_type\": \"qwen3_next\", \"num_hidden_layers\": 48, "
                             "\"linear_num_value_heads\": 32}",
                             &m, &d),
               PL_ERR_UNSUPPORTED, dp);
  CHECK_CONTAINS(d.msg, "field 'linear_num_value_heads': Gated DeltaNet linear attention");
  /* null (Gemma 3 configs without the attention cap) is not a declaration */
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load("{\"model_type\": \"llama\", \"num_hidden_layers\": 2, \"hidden_size\": "
                             "64, \"num_attention_heads\": 4, \"intermediate_size\": 128, "
                             "\"vocab_size\": 100, \"max_position_embeddings\": 256, "
                             "\"attn_logit_softcapping\": null}",
                             &m, &d),
               PL_OK, dp);
}

/* Llama 3.1 8B's config gives the llama3-8b model (the same sizes; its
 * rope_scaling llama3 keeps the 8,192-token training length and is no YaRN),
 * so the name llama3.1-8b loads that preset (model_load.c model_alias). */
static void test_aliases(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/hf/Llama-3.1-8B.json", PL_TEST_DATA);
  struct pl_model hf = model(path);
  struct pl_model p = model("llama3-8b");
  CHECK_EQ_INT(pl_model_params(&hf), pl_model_params(&p));
  CHECK_EQ_INT(hf.seq_len, p.seq_len);
  CHECK(!hf.rope_yarn && !hf.tied_embeddings);
  struct pl_model a = model("llama3.1-8b");
  CHECK_EQ_INT(pl_model_params(&a), INT64_C(8030261248));
  CHECK_STR(a.name, "llama3-8b");
  CHECK_EQ_INT(pl_model_params(&a), pl_model_params(&hf));
  struct pl_model a70 = model("llama3.1-70b"), a405 = model("llama3.1-405b");
  CHECK_EQ_INT(pl_model_params(&a70), INT64_C(70553706496));
  CHECK_EQ_INT(pl_model_params(&a405), INT64_C(405853388800));
}

int main(void) {
  test_qwen3_dense();
  test_qwen25();
  test_llama32_nemo();
  test_deepseek_v2();
  test_gpt_oss_20b();
  test_grok1();
  test_nemotron_h();
  test_nemotron4();
  test_refused_features();
  test_aliases();
  return check_finish();
}
