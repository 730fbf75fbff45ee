/* test_model.c: model loading (presets, plateau files, Hugging Face
 * config.json) and exact parameter counts against published totals. */
#include <plateau/data.h>
#include <plateau/model.h>

#include <math.h>
#include <string.h>

#include "check.h"

static struct pl_model load(const char *name_or_path) {
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  memset(&m, 0, sizeof m);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load(name_or_path, &m, &d), PL_OK, dp);
  return m;
}

static struct pl_model load_hf(const char *file) {
  char path[512];
  snprintf(path, sizeof path, "%s/hf/%s", PL_TEST_DATA, file);
  return load(path);
}

/* Llama-2 7B (h 4096, l 32, MHA, f 11008, V 32000, untied, RMSNorm):
 * block = attention 4 h^2 = 67,108,864 + MLP 3 h f = 135,266,304 + 2 norms
 * 8,192 = 202,383,360; 32 blocks = 6,476,267,520; token table and LM head
 * 2 * 32000 * 4096 = 262,144,000; final norm 4,096.
 * Total 6,738,415,616 = the published count. */
static void test_llama2_7b(void) {
  struct pl_model m = load("llama2-7b");
  CHECK_EQ_INT(pl_model_layer_params(&m), 202383360);
  CHECK_EQ_INT(pl_model_embedding_params(&m), 131072000);
  CHECK_EQ_INT(pl_model_head_params(&m), 131076096);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(6738415616));
  CHECK_EQ_INT(m.published_params, INT64_C(6738415616));
  CHECK_EQ_INT(m.head_dim, 128);
  CHECK_EQ_INT(m.kv_heads, 32);
  CHECK_STR(m.name, "llama2-7b");
  struct pl_model hf = load_hf("Llama-2-7b-hf.json");
  CHECK_EQ_INT(pl_model_params(&hf), INT64_C(6738415616));
  CHECK_EQ_INT(hf.seq_len, 4096);
  CHECK(hf.mlp == PL_MLP_SWIGLU && hf.norm == PL_NORM_RMS && hf.pos == PL_POS_ROTARY);
  CHECK(!hf.tied_embeddings && !hf.qkv_bias && !hf.linear_bias && !hf.dropout);
  CHECK_STR(hf.name, "meta-llama/Llama-2-7b-hf");
}

/* Llama-3 8B (GQA: 8 KV heads of 128): attention 2 h^2 + 2 h (8 * 128)
 * = 33,554,432 + 8,388,608 = 41,943,040; MLP 3 * 4096 * 14336 = 176,160,768;
 * norms 8,192; block 218,112,000; 32 blocks 6,979,584,000; embeddings and
 * head 2 * 128256 * 4096 = 1,050,673,152; final norm 4,096.
 * Total 8,030,261,248 (published). */
static void test_llama3(void) {
  struct pl_model m = load("llama3-8b");
  CHECK_EQ_INT(pl_model_layer_params(&m), 218112000);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(8030261248));
  CHECK_EQ_INT(m.published_params, pl_model_params(&m));
  /* 70B: attention 2 * 8192^2 + 2 * 8192 * 1024 = 150,994,944; MLP
   * 3 * 8192 * 28672 = 704,643,072; norms 16,384; block 855,654,400; x80 =
   * 68,452,352,000; + 2 * 128256 * 8192 = 2,101,346,304 + 8,192
   * = 70,553,706,496 (published). */
  struct pl_model m70 = load("llama3-70b");
  CHECK_EQ_INT(pl_model_params(&m70), INT64_C(70553706496));
  CHECK_EQ_INT(m70.published_params, pl_model_params(&m70));
  /* 405B: attention 2 * 16384^2 + 2 * 16384 * 1024 = 570,425,344; MLP
   * 3 * 16384 * 53248 = 2,617,245,696; norms 32,768; block 3,187,703,808;
   * x126 = 401,650,679,808; + 2 * 128256 * 16384 = 4,202,692,608 + 16,384
   * = 405,853,388,800 (Meta states "405B"). */
  struct pl_model m405 = load("llama3-405b");
  CHECK_EQ_INT(pl_model_params(&m405), INT64_C(405853388800));
}

/* Llama-2 13B: block 4 * 5120^2 + 3 * 5120 * 13824 + 2 * 5120 = 104,857,600
 * + 212,336,640 + 10,240 = 317,204,480; x40 = 12,688,179,200; + 2 * 32000 *
 * 5120 = 327,680,000 + 5,120 = 13,015,864,320.
 * Llama-2 70B: block as Llama-3 70B (855,654,400) x80 = 68,452,352,000;
 * + 2 * 32000 * 8192 = 524,288,000 + 8,192 = 68,976,648,192. */
static void test_llama2_big(void) {
  struct pl_model m13 = load("llama2-13b");
  CHECK_EQ_INT(pl_model_params(&m13), INT64_C(13015864320));
  struct pl_model m70 = load("llama2-70b");
  CHECK_EQ_INT(pl_model_params(&m70), INT64_C(68976648192));
}

/* Mistral 7B from its published config.json: the Llama-3 8B block (GQA 8,
 * f 14336) = 218,112,000; x32 = 6,979,584,000; + 2 * 32000 * 4096 =
 * 262,144,000 + 4,096 = 7,241,732,096 (published). */
/* The default training length of a config (issue 20): a stated one
 * (rope_scaling's original_max_position_embeddings, Llama 4 Scout: 8192)
 * stays; a context at or under 4096 (Pythia: 2048) stays; above it without
 * a stated length (Qwen2.5: 32768) it becomes 4096 with the context kept. */
static void test_hf_default_seq(void) {
  struct pl_model scout = load_hf("Llama-4-Scout-17B-16E.json");
  CHECK_EQ_INT(scout.seq_len, 8192);
  CHECK_EQ_INT(scout.max_context, 0);
  struct pl_model pythia = load_hf("pythia-6.9b-deduped.json");
  CHECK_EQ_INT(pythia.seq_len, 2048);
  CHECK_EQ_INT(pythia.max_context, 0);
  struct pl_model qwen = load_hf("Qwen2.5-0.5B.json");
  CHECK_EQ_INT(qwen.seq_len, 4096);
  CHECK_EQ_INT(qwen.max_context, 32768);
}

static void test_mistral(void) {
  struct pl_model hf = load_hf("Mistral-7B-v0.1.json");
  CHECK_EQ_INT(pl_model_params(&hf), INT64_C(7241732096));
  CHECK_EQ_INT(hf.kv_heads, 8);
  CHECK_EQ_INT(hf.sliding_window, 4096);
  /* max_position_embeddings 32768 with no training length stated: the
   * default is 4096 and the context is kept (issue 20) */
  CHECK_EQ_INT(hf.seq_len, 4096);
  CHECK_EQ_INT(hf.max_context, 32768);
  CHECK_STR(hf.name, "Mistral-7B-v0.1");
  struct pl_model preset = load("mistral-7b");
  CHECK_EQ_INT(pl_model_params(&preset), pl_model_params(&hf));
  CHECK_EQ_INT(preset.published_params, INT64_C(7241732096));
}

/* GPT-2 small (h 768, l 12, V 50257, 1024 positions, tied, biases):
 * block: qkv 768 * 2304 + 2304 = 1,771,776; proj 768^2 + 768 = 590,592;
 * fc1 768 * 3072 + 3072 = 2,362,368; fc2 3072 * 768 + 768 = 2,360,064; two
 * LayerNorms 4 * 768 = 3,072; total 7,087,872; x12 = 85,054,464.
 * wte 50257 * 768 = 38,597,376; wpe 1024 * 768 = 786,432; ln_f 1,536.
 * Total 124,439,808 (published). Both the Hub file (no n_inner) and a
 * re-saved one ("n_inner": null) mean n_inner = 4 * 768 = 3072. */
static void test_gpt2(void) {
  const char *files[] = {"gpt2.json", "gpt2-resaved.json"};
  for (int i = 0; i < 2; i++) {
    struct pl_model m = load_hf(files[i]);
    CHECK_EQ_INT(m.ffn_hidden, 3072);
    CHECK_EQ_INT(pl_model_layer_params(&m), 7087872);
    CHECK_EQ_INT(pl_model_params(&m), INT64_C(124439808));
    CHECK(m.tied_embeddings && m.linear_bias && m.pos == PL_POS_LEARNED);
    CHECK(m.mlp == PL_MLP_GELU && m.norm == PL_NORM_LAYER);
    CHECK(m.dropout); /* attn_pdrop, resid_pdrop 0.1 */
    CHECK_EQ_INT(m.max_positions, 1024);
    CHECK_EQ_INT(m.seq_len, 1024);
  }
}

/* GPT-3 175B (Brown et al. Table 2.1): block 12 h^2 + 13 h with h = 12288
 * = 1,811,939,328 + 159,744 = 1,812,099,072; x96 = 173,961,510,912;
 * wte 50257 * 12288 = 617,558,016; wpe 2048 * 12288 = 25,165,824; ln_f
 * 24,576. Total 174,604,259,328 (the paper's "175.0B"). */
static void test_gpt3(void) {
  struct pl_model m = load("gpt3-175b");
  CHECK_EQ_INT(pl_model_layer_params(&m), INT64_C(1812099072));
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(174604259328));
}

/* Qwen2.5-0.5B (h 896, 14 heads of 64, 2 KV heads, f 4864, V 151936, tied,
 * Q/K/V biases): q 896^2 + 896 = 803,712; k and v 896 * 128 + 128 = 114,816
 * each; o 802,816; MLP 3 * 896 * 4864 = 13,074,432; norms 1,792; block
 * 14,912,384; x24 = 357,897,216; embeddings 151936 * 896 = 136,134,656;
 * final norm 896. Total 494,032,768 (checkpoint total). */
static void test_qwen2(void) {
  struct pl_model m = load_hf("Qwen2.5-0.5B.json");
  CHECK(m.qkv_bias && !m.out_bias && m.tied_embeddings);
  CHECK_EQ_INT(m.sliding_window, 0); /* use_sliding_window false */
  CHECK_EQ_INT(pl_model_layer_params(&m), 14912384);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(494032768));
}

/* GPT-NeoX field names (Pythia-160M dimensions: h 768, l 12, f 3072,
 * V 50304, untied embed_out, rotary): block as GPT-2 = 7,087,872; x12 =
 * 85,054,464; embed_in + embed_out 2 * 50304 * 768 = 77,266,944; final
 * LayerNorm 1,536. Total 162,322,944, the published Pythia-160M total
 * (85,056,000 non-embedding = blocks + final norm). */
static void test_neox(void) {
  const char *cfg = "{\"architectures\": [\"GPTNeoXForCausalLM\"], \"hidden_act\": \"gelu\","
                    " \"hidden_size\": 768, \"intermediate_size\": 3072,"
                    " \"max_position_embeddings\": 2048, \"model_type\": \"gpt_neox\","
                    " \"num_attention_heads\": 12, \"num_hidden_layers\": 12, \"rotary_pct\": 0.25,"
                    " \"tie_word_embeddings\": false, \"use_parallel_residual\": true,"
                    " \"vocab_size\": 50304}";
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_model_from_json(cfg, strlen(cfg), "neox", &m, &d), PL_OK, dp);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(162322944));
  CHECK_EQ_INT(pl_model_params(&m) - pl_model_embedding_params(&m) - m.vocab * m.hidden, 85056000);
  CHECK(m.pos == PL_POS_ROTARY && !m.tied_embeddings);
}

/* Pythia 6.9B (GPT-NeoX layout, h 4096, l 32, f 16384, V 50432, biases):
 * qkv 4096 * 12288 + 12288 = 50,343,936; dense 4096^2 + 4096 = 16,781,312;
 * fc1 4096 * 16384 + 16384 = 67,125,248; fc2 16384 * 4096 + 4096 =
 * 67,112,960; two LayerNorms 16,384; block 201,379,840; x32 =
 * 6,444,154,880; + final LayerNorm 8,192 = 6,444,163,072 non-embedding (as
 * the model card states); + embed_in and embed_out 2 * 50432 * 4096 =
 * 413,138,944: total 6,857,302,016. */
static void test_pythia(void) {
  struct pl_model m = load_hf("pythia-6.9b-deduped.json");
  CHECK_EQ_INT(pl_model_layer_params(&m), 201379840);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(6857302016));
  CHECK(m.linear_bias && !m.dropout && m.pos == PL_POS_ROTARY && m.mlp == PL_MLP_GELU);
  CHECK_EQ_INT(m.seq_len, 2048);
}

/* A plateau model file with every optional field left out. */
static void test_plateau_format(void) {
  const char *doc = "{\"layers\": 2, \"hidden\": 64, \"heads\": 4, \"ffn_hidden\": 256,"
                    " \"vocab\": 100, \"seq_len\": 32, \"mlp\": \"gelu\", \"pos\": \"rotary\","
                    " \"norm\": \"layer\"}";
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_model_from_json(doc, strlen(doc), "doc", &m, &d), PL_OK, dp);
  CHECK_EQ_INT(m.kv_heads, 4);
  CHECK_EQ_INT(m.head_dim, 16);
  /* block 4 * 64^2 + 2 * 64 * 256 + 4 * 64 = 16384 + 32768 + 256 = 49,408;
   * x2 = 98,816; embeddings and head 2 * 100 * 64 = 12,800; final norm 128. */
  CHECK_EQ_INT(pl_model_params(&m), 98816 + 12800 + 128);
}

static void expect_fail(const char *doc, enum pl_status want, const char *needle) {
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_from_json(doc, strlen(doc), "model 'x.json'", &m, &d), want, dp);
  CHECK_CONTAINS(d.msg, needle);
}

#define LLAMA_REST                                                                                 \
  "\"model_type\": \"llama\", \"intermediate_size\": 11008, \"vocab_size\": 32000, "               \
  "\"max_position_embeddings\": 4096, \"num_attention_heads\": 32"

static void test_bad_json_text(void) {
  expect_fail("{" LLAMA_REST ", \"num_hidden_layers\": 32, \"hidden_size\": -4096}", PL_ERR_RANGE,
              "'hidden_size' must be a positive integer, not -4096");
  expect_fail("{" LLAMA_REST ", \"num_hidden_layers\": 32, \"hidden_size\": \"4096\"}",
              PL_ERR_PARSE, "field 'hidden_size' must be an integer");
  expect_fail("{" LLAMA_REST ", \"num_hidden_layers\": 32, \"hidden_size\": 4096.5}", PL_ERR_PARSE,
              "'hidden_size' must be an integer");
  expect_fail("{" LLAMA_REST ", \"num_hidden_layers\": 32, \"hidden_size\": 4096, "
              "\"num_key_value_heads\": 5}",
              PL_ERR_RANGE, "kv_heads 5 must divide heads 32");
  expect_fail("{" LLAMA_REST ", \"num_hidden_layers\": 32, \"hidden_size\": 4096, "
              "\"num_local_experts\": 8}",
              PL_ERR_UNSUPPORTED, "model_type 'llama' with mixture-of-experts field");
  expect_fail("{\"model_type\": \"mixtral\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
              "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100, "
              "\"max_position_embeddings\": 64, \"num_local_experts\": 8, "
              "\"num_experts_per_tok\": 9}",
              PL_ERR_RANGE, "top_k 9 is above the experts (8)");
  expect_fail("{\"model_type\": \"mixtral\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
              "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100, "
              "\"max_position_embeddings\": 64, \"num_local_experts\": 8}",
              PL_ERR_MISSING, "'num_experts_per_tok'");
  expect_fail("{\"model_type\": \"mixtral\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
              "\"num_attention_heads\": 4, \"intermediate_size\": 4194304, \"vocab_size\": 100, "
              "\"max_position_embeddings\": 64, \"num_local_experts\": 8, "
              "\"num_experts_per_tok\": 2}",
              PL_ERR_RANGE, "experts * expert_ffn = 33554432 is above the limit");
  expect_fail("{\"model_type\": \"deepseek_v3\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
              "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100, "
              "\"max_position_embeddings\": 64, \"n_routed_experts\": 8, "
              "\"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32, "
              "\"moe_layer_freq\": 2}",
              PL_ERR_UNSUPPORTED, "'moe_layer_freq' is 2");
  expect_fail("{\"model_type\": \"qwen3_moe\", \"num_hidden_layers\": 2, \"hidden_size\": 64, "
              "\"num_attention_heads\": 4, \"intermediate_size\": 128, \"vocab_size\": 100, "
              "\"max_position_embeddings\": 64, \"num_experts\": 8, "
              "\"num_experts_per_tok\": 2, \"moe_intermediate_size\": 32, "
              "\"mlp_only_layers\": [0]}",
              PL_ERR_UNSUPPORTED, "'mlp_only_layers'");
  expect_fail("{\"model_type\": \"t5\", \"num_layers\": 6}", PL_ERR_UNSUPPORTED, "model_type 't5'");
  expect_fail("{\"n_layer\": 12, \"n_embd\": 768, \"n_head\": 12, \"vocab_size\": 50257}",
              PL_ERR_MISSING, "missing field 'n_positions'");
  expect_fail("{\"layers\": 2, \"hidden\": 64, \"heads\": 4, \"ffn_hidden\": 256, \"vocab\": 100,"
              " \"seq_len\": 32, \"pos\": \"rotary\", \"norm\": \"rms\"}",
              PL_ERR_MISSING, "missing field 'mlp'");
  expect_fail("{\"layers\": 2, \"hidden\": 64, \"heads\": 4, \"ffn_hidden\": 256, \"vocab\": 100,"
              " \"seq_len\": 32, \"mlp\": \"relu\", \"pos\": \"rotary\", \"norm\": \"rms\"}",
              PL_ERR_PARSE, "field 'mlp' is 'relu'");
  expect_fail("{\"layers\": 2, \"hidden\": 64, \"heads\": 4, \"ffn_hidden\": 256, \"vocab\": 100,"
              " \"seq_len\": 32, \"mlp\": \"gelu\", \"pos\": \"learned\", \"norm\": \"rms\"}",
              PL_ERR_MISSING, "'max_positions'");
  expect_fail("{\"layers\": 100000000, \"hidden\": 64, \"heads\": 4, \"ffn_hidden\": 256,"
              " \"vocab\": 100, \"seq_len\": 32, \"mlp\": \"gelu\", \"pos\": \"rotary\","
              " \"norm\": \"rms\"}",
              PL_ERR_RANGE, "'layers' is 100000000, above the limit");
  expect_fail("[1, 2]", PL_ERR_PARSE, "expected a JSON object");
  expect_fail("", PL_ERR_PARSE, "empty");
}

static void expect_load_fail(const char *name_or_path, enum pl_status want, const char *needle) {
  struct pl_model m;
  struct pl_diag d, *dp = &d;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load(name_or_path, &m, &d), want, dp);
  CHECK_CONTAINS(d.msg, needle);
}

static void test_bad_files(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/hf/bad/missing-hidden-size.json", PL_TEST_DATA);
  expect_load_fail(path, PL_ERR_MISSING, "missing-hidden-size.json': missing field 'hidden_size'");
  snprintf(path, sizeof path, "%s/hf/bad/zero-layers.json", PL_TEST_DATA);
  expect_load_fail(path, PL_ERR_RANGE, "'num_hidden_layers' must be a positive integer, not 0");
  snprintf(path, sizeof path, "%s/hf/bad/malformed.json", PL_TEST_DATA);
  expect_load_fail(path, PL_ERR_PARSE, "malformed.json': malformed JSON");
  expect_load_fail("/nonexistent/config.json", PL_ERR_IO, "/nonexistent/config.json");
  expect_load_fail("llama9-1t", PL_ERR_UNKNOWN, "unknown model 'llama9-1t' (presets: deepseek-v2-lite, deepseek-v2, deepseek-v3,");
  /* 34 presets do not fit one line: whole names, then where the rest is */
  expect_load_fail("llama9-1t", PL_ERR_UNKNOWN, ", ... (plateau list models); or give the path");
  expect_load_fail("", PL_ERR_MISSING, "no model given");
}

/* Published counts are stated to a last digit (671B, 30.5B, 116.83B), some
 * rounded and some cut (Qwen3-30B-A3B's 3,353,032,704 is "3.3B", Qwen1.5's
 * 2,689,173,504 "2.7B"): v agrees when it is within one unit of that digit.
 * pub is in units: 671 with unit 1e9, 305 with unit 1e8, 11683 with 1e7. */
static void check_rounds(int64_t v, double pub, double unit) {
  double r = (double)v / unit;
  CHECK(fabs(r - pub) < 1.0);
  if (fabs(r - pub) >= 1.0)
    fprintf(stderr, "  %lld is %.2f units, published %.2f\n", (long long)v, r, pub);
}

/* DeepSeek-V3 (h 7168, 61 blocks, 3 dense, MLA). Attention per block:
 * q_a 7168 * 1536 = 11,010,048 + q_a_norm 1,536 + q_b 1536 * 128 * 192 =
 * 37,748,736 + kv_a 7168 * 576 = 4,128,768 + kv_a_norm 512 + kv_b 512 * 128 *
 * 256 = 16,777,216 + o 128 * 128 * 7168 = 117,440,512 = 187,107,328; with the
 * two norms 14,336: 187,121,664. Dense block + 3 * 7168 * 18432 = 396,361,728
 * = 583,483,392. One expert 3 * 7168 * 2048 = 44,040,192; MoE block: 256
 * experts 11,274,289,152 + shared 44,040,192 + router 256 * 7168 = 1,835,008
 * + correction bias 256 = 11,507,286,272. Total 3 * 583,483,392 + 58 *
 * 11,507,286,272 + 2 * 129280 * 7168 (1,853,358,080) + 7,168 =
 * 671,026,419,200: "671B". Active: MoE block with 8 experts 585,318,656;
 * 3 * 583,483,392 + 58 * 585,318,656 + 1,853,365,248 = 37,552,297,472;
 * without the input embedding (926,679,040) 36,625,618,432: "37B".
 * MTP: one MoE block + eh_proj 2 * 7168^2 = 102,760,448 + 3 norms 21,504 =
 * 11,610,068,224 (the checkpoint's 14B also stores copies of the embedding
 * and head, 1,853,358,080, and fp8 scales). */
static void test_deepseek_v3(void) {
  struct pl_model m = load("deepseek-v3");
  CHECK_EQ_INT(pl_model_attention_params(&m), 187121664);
  CHECK_EQ_INT(pl_model_layer_params(&m), 583483392);
  CHECK_EQ_INT(pl_model_expert_params(&m), 44040192);
  CHECK_EQ_INT(pl_model_moe_layer_params(&m), INT64_C(11507286272));
  CHECK_EQ_INT(pl_model_moe_layers(&m), 58);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(671026419200));
  CHECK_EQ_INT(pl_model_active_params(&m), INT64_C(37552297472));
  CHECK_EQ_INT(pl_model_mtp_params(&m), INT64_C(11610068224));
  check_rounds(pl_model_params(&m), 671, 1e9);
  check_rounds(pl_model_active_params(&m) - pl_model_embedding_params(&m), 37, 1e9);
  struct pl_model hf = load_hf("DeepSeek-V3.json");
  CHECK_EQ_INT(pl_model_params(&hf), pl_model_params(&m));
  CHECK_EQ_INT(pl_model_active_params(&hf), pl_model_active_params(&m));
  CHECK_EQ_INT(hf.head_dim, 192);
  CHECK_EQ_INT(hf.seq_len, 4096);
  CHECK_EQ_INT(hf.mtp_layers, 1);
  CHECK(hf.router_bias);
}

/* Qwen3-235B-A22B: attention 4096 * (8192 + 2 * 512) + 8192 * 4096 =
 * 71,303,168 + q/k norms 256 = 71,303,424, norms 8,192; router 128 * 4096 =
 * 524,288; expert 3 * 4096 * 1536 = 18,874,368, x128 = 2,415,919,104; block
 * 2,487,755,008; x94 = 233,848,970,752; + 2 * 151936 * 4096 = 1,244,659,712
 * + 4,096 = 235,093,634,560 ("235B"; non-embedding 233,848,974,848 "234B").
 * Active block with 8 experts 222,830,848; x94 = 20,946,099,712 +
 * 1,244,663,808 = 22,190,763,520 ("22B").
 * Qwen3-30B-A3B: attention 2048 * (4096 + 1024) + 4096 * 2048 + 256 =
 * 18,874,624, norms 4,096, router 262,144, expert 3 * 2048 * 768 = 4,718,592,
 * x128 = 603,979,776; block 623,120,640, x48 = 29,909,790,720 + 2 * 151936 *
 * 2048 = 622,329,856 + 2,048 = 30,532,122,624 ("30.5B"); active block
 * 56,889,600, x48 = 2,730,700,800 + 622,331,904 = 3,353,032,704 ("3.3B"). */
static void test_qwen3_moe(void) {
  struct pl_model m = load("qwen3-235b-a22b");
  CHECK_EQ_INT(pl_model_moe_layer_params(&m), INT64_C(2487755008));
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(235093634560));
  CHECK_EQ_INT(pl_model_active_params(&m), INT64_C(22190763520));
  check_rounds(pl_model_params(&m), 235, 1e9);
  check_rounds(pl_model_params(&m) - pl_model_embedding_params(&m) - m.vocab * m.hidden, 234, 1e9);
  check_rounds(pl_model_active_params(&m), 22, 1e9);
  struct pl_model hf = load_hf("Qwen3-235B-A22B.json");
  CHECK_EQ_INT(pl_model_params(&hf), pl_model_params(&m));
  CHECK_EQ_INT(pl_model_active_params(&hf), pl_model_active_params(&m));
  CHECK(hf.qk_norm && !hf.qkv_bias && hf.sliding_window == 0);
  struct pl_model s = load("qwen3-30b-a3b");
  CHECK_EQ_INT(pl_model_params(&s), INT64_C(30532122624));
  CHECK_EQ_INT(pl_model_active_params(&s), INT64_C(3353032704));
  check_rounds(pl_model_params(&s), 305, 1e8);
  check_rounds(pl_model_active_params(&s), 33, 1e8);
  /* moe_router_dtype: Megatron-Bridge sets "fp32" for DeepSeek-V3 and
   * Nemotron 3 Nano, leaves it unset (the input's bf16) for Qwen3 MoE */
  CHECK(!s.router_fp32 && load("deepseek-v3").router_fp32 && load("nemotron-3-nano").router_fp32);
  /* the switch load-balancing loss: the Qwen3 MoE recipes' aux_loss (Megatron-Bridge
   * qwen_provider.py, the model zoo's Qwen3-235B-A22B.yaml), not DeepSeek-V3's
   * seq_aux_loss with expert bias nor a Hugging Face config's */
  CHECK(s.router_aux_loss && load("qwen3-235b-a22b").router_aux_loss);
  CHECK(!load("deepseek-v3").router_aux_loss && !load("gpt-oss-120b").router_aux_loss);
  struct pl_model shf = load_hf("Qwen3-30B-A3B.json");
  CHECK_EQ_INT(pl_model_params(&shf), pl_model_params(&s));
}

/* Mixtral 8x7B: attention 41,943,040 + norms 8,192 (the Mistral block),
 * router 8 * 4096 = 32,768, expert 3 * 4096 * 14336 = 176,160,768, x8 =
 * 1,409,286,144; block 1,451,270,144; x32 = 46,440,644,608 + 2 * 32000 *
 * 4096 = 262,144,000 + 4,096 = 46,702,792,704 (published). Active block with
 * 2 experts 394,305,536, x32 = 12,617,777,152 + 262,148,096 =
 * 12,879,925,248 ("12.9B per token"). */
static void test_mixtral(void) {
  struct pl_model m = load("mixtral-8x7b");
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(46702792704));
  CHECK_EQ_INT(pl_model_active_params(&m), INT64_C(12879925248));
  check_rounds(pl_model_active_params(&m), 129, 1e8);
  struct pl_model hf = load_hf("Mixtral-8x7B-v0.1.json");
  CHECK_EQ_INT(pl_model_params(&hf), INT64_C(46702792704));
  CHECK_EQ_INT(hf.experts, 8);
  CHECK_EQ_INT(hf.top_k, 2);
  CHECK_EQ_INT(hf.sliding_window, 0);
}

/* GPT-OSS 120B: attention q 2880 * 4096 + 4096, k and v 2880 * 512 + 512
 * each, o 4096 * 2880 + 2880, sinks 64 = 26,550,144; norms 5,760; router
 * 2880 * 128 + 128 = 368,768; expert 3 * 2880 * 2880 + 2 * 2880 + 2880 =
 * 24,891,840, x128 = 3,186,155,520; block 3,213,080,192; x36 =
 * 115,670,886,912; + 2 * 201088 * 2880 = 1,158,266,880 + 2,880 =
 * 116,829,156,672 ("116.83B"). Active: block with 4 experts 126,492,032, x36
 * = 4,553,713,152 + unembedding 579,133,440 + 2,880 = 5,132,849,472
 * ("5.13B", the model card counting the unembedding but not the embedding). */
static void test_gpt_oss(void) {
  struct pl_model m = load("gpt-oss-120b");
  CHECK_EQ_INT(pl_model_expert_params(&m), 24891840);
  CHECK_EQ_INT(pl_model_params(&m), INT64_C(116829156672));
  CHECK_EQ_INT(pl_model_active_params(&m) - pl_model_embedding_params(&m), INT64_C(5132849472));
  check_rounds(pl_model_params(&m), 11683, 1e7);
  check_rounds(pl_model_active_params(&m) - pl_model_embedding_params(&m), 513, 1e7);
  struct pl_model hf = load_hf("gpt-oss-120b.json");
  CHECK_EQ_INT(pl_model_params(&hf), pl_model_params(&m));
  CHECK_EQ_INT(hf.full_attn_layers, 18);
  CHECK_EQ_INT(hf.sliding_window, 128);
  CHECK_EQ_INT(hf.seq_len, 4096);
  /* swiglu_limit 7.0: the clamped GLU, in the preset and from the config */
  CHECK(m.glu_clamp && hf.glu_clamp);
  CHECK(!load("deepseek-v3").glu_clamp);
  /* rope_scaling yarn, factor 32, no mscale: attention factor 1.35, unfused
   * RoPE; DeepSeek-V3's yarn has mscale = mscale_all_dim = 1.0 (factor 1);
   * Llama 2 has no rope_scaling */
  CHECK(m.rope_yarn && hf.rope_yarn);
  CHECK(!load_hf("DeepSeek-V3.json").rope_yarn);
  CHECK(!load_hf("Llama-2-7b-hf.json").rope_yarn);
  CHECK(!load("llama3-8b").rope_yarn);
}

/* Qwen1.5-MoE-A2.7B (qwen2_moe, shared expert with gate): attention 4 *
 * 2048^2 + QKV biases 6,144 = 16,783,360, norms 4,096, router 60 * 2048 =
 * 122,880, 60 experts of 3 * 2048 * 1408 = 8,650,752 (519,045,120), shared
 * 3 * 2048 * 5632 = 34,603,008 + gate 2,048; block 570,560,512, x24 =
 * 13,693,452,288 + 2 * 151936 * 2048 + 2,048 = 14,315,784,192 ("14.3B");
 * active block 86,118,400, x24 + 622,331,904 = 2,689,173,504 ("2.7B").
 * DeepSeek-V2-Lite (no q_lora_rank): attention q 2048 * 16 * 192 = 6,291,456
 * + kv_a 2048 * 576 = 1,179,648 + 512 + kv_b 512 * 16 * 256 = 2,097,152 + o
 * 16 * 128 * 2048 = 4,194,304 = 13,763,072; dense block + 4,096 norms + 3 *
 * 2048 * 10944 = 81,007,104; MoE block: router 131,072 + 64 * 8,650,752 +
 * shared (2 x 1408) 17,301,504 = 584,847,872; 81,007,104 + 26 * 584,847,872
 * + 2 * 102400 * 2048 + 2,048 = 15,706,484,224 ("15.7B").
 * Llama 4 Scout (text): attention 2 * 5120^2 + 2 * 5120 * 1024 = 62,914,560,
 * norms 10,240, router 81,920, 16 experts and a shared one of 3 * 5120 *
 * 8192 = 125,829,120; block 2,202,101,760, x48 + 2 * 202048 * 5120 + 5,120
 * = 107,769,861,120 (the 109B of the release adds the vision tower); active
 * block 314,664,960, x48 + 2,068,976,640 = 17,172,894,720 ("17B active"). */
static void test_other_moe(void) {
  struct pl_model q = load_hf("Qwen1.5-MoE-A2.7B.json");
  CHECK_EQ_INT(pl_model_params(&q), INT64_C(14315784192));
  CHECK_EQ_INT(pl_model_active_params(&q), INT64_C(2689173504));
  CHECK(q.shared_gate && q.qkv_bias && q.sliding_window == 0);
  struct pl_model d = load_hf("DeepSeek-V2-Lite.json");
  CHECK_EQ_INT(pl_model_attention_params(&d), 13763072 + 4096);
  CHECK_EQ_INT(pl_model_params(&d), INT64_C(15706484224));
  CHECK(!d.router_bias && d.q_lora_rank == 0 && d.mtp_layers == 0);
  struct pl_model l4 = load_hf("Llama-4-Scout-17B-16E.json");
  CHECK_EQ_INT(pl_model_params(&l4), INT64_C(107769861120));
  CHECK_EQ_INT(pl_model_active_params(&l4), INT64_C(17172894720));
  CHECK_EQ_INT(l4.ffn_hidden, 16384);
  CHECK_EQ_INT(l4.seq_len, 8192);
}

/* Kimi K2 (DeepSeek-V3's block with 64 heads, 384 experts, 1 dense block,
 * vocab 163840, no MTP). Attention: q_a 7168 * 1536 = 11,010,048 + q_b 1536 *
 * 64 * 192 = 18,874,368 + kv_a 7168 * 576 = 4,128,768 + kv_b 512 * 64 * 256 =
 * 8,388,608 + o 64 * 128 * 7168 = 58,720,256 + q_a/kv_a norms 2,048 =
 * 101,124,096; + block norms 14,336. Dense block + 3 * 7168 * 18432 =
 * 396,361,728: 497,500,160. MoE block: 385 experts (384 routed + shared) of
 * 44,040,192 = 16,955,473,920 + router 384 * 7168 + bias 384 = 2,752,896:
 * 17,059,365,248. Total 497,500,160 + 60 * 17,059,365,248 + 2 * 163840 *
 * 7168 (2,348,810,240) + 7,168 = 1,026,408,232,448 (model card: "1T").
 * Active: MoE block with 9 experts 500,253,056; 497,500,160 + 60 *
 * 500,253,056 + 2,348,817,408 = 32,861,500,928; without the input
 * embedding (1,174,405,120) 31,687,095,808: "32B activated".
 * Mixtral 8x22B: attention 2 * 6144^2 + 2 * 6144 * 1024 = 88,080,384, norms
 * 12,288, router 8 * 6144 = 49,152, 8 experts of 3 * 6144 * 16384 =
 * 301,989,888; block 2,504,060,928, x56 = 140,227,411,968 + 2 * 32000 *
 * 6144 + 6,144 = 140,620,634,112 ("141B"); active block (2 experts)
 * 692,121,600, x56 + 393,222,144 = 39,152,031,744 ("39B active").
 * Llama 4 Maverick (text): attention 62,914,560 + norms 10,240 (the Scout
 * block, test_other_moe); MoE block (odd blocks): router 128 * 5120 =
 * 655,360 + 128 experts and a shared one of 125,829,120 = 16,231,792,640:
 * 16,295,536,640; dense block: 3 * 5120 * 16384 = 251,658,240: 314,583,040;
 * 24 of each = 398,642,872,320 + 2 * 202048 * 5120 + 5,120 =
 * 400,711,848,960 ("400B" with the vision tower); active: MoE block with one
 * expert 315,238,400, 24 * (315,238,400 + 314,583,040) + 2,068,976,640 =
 * 17,184,691,200 ("17B active"). Each preset = its config.json. */
static void test_session17_presets(void) {
  struct pl_model k = load("kimi-k2");
  CHECK_EQ_INT(pl_model_params(&k), INT64_C(1026408232448));
  CHECK_EQ_INT(pl_model_active_params(&k), INT64_C(32861500928));
  check_rounds(pl_model_params(&k), 1, 1e12);
  check_rounds(pl_model_active_params(&k) - pl_model_embedding_params(&k), 32, 1e9);
  CHECK(k.mtp_layers == 0 && k.router_bias && k.router_fp32 && k.moe_first_dense == 1);
  struct pl_model khf = load_hf("Kimi-K2-Instruct.json"); /* model_type kimi_k2 */
  CHECK_EQ_INT(pl_model_params(&khf), pl_model_params(&k));
  CHECK_EQ_INT(khf.mtp_layers, 0); /* num_nextn_predict_layers 0 */
  CHECK_EQ_INT(khf.seq_len, 4096);
  struct pl_model x = load("mixtral-8x22b");
  CHECK_EQ_INT(pl_model_params(&x), INT64_C(140620634112));
  CHECK_EQ_INT(pl_model_active_params(&x), INT64_C(39152031744));
  check_rounds(pl_model_params(&x), 141, 1e9);
  check_rounds(pl_model_active_params(&x), 39, 1e9);
  struct pl_model xhf = load_hf("Mixtral-8x22B-v0.1.json");
  CHECK_EQ_INT(pl_model_params(&xhf), pl_model_params(&x));
  struct pl_model s = load("llama4-scout");
  struct pl_model shf = load_hf("Llama-4-Scout-17B-16E.json");
  CHECK_EQ_INT(pl_model_params(&s), pl_model_params(&shf));
  CHECK_EQ_INT(pl_model_active_params(&s), pl_model_active_params(&shf));
  check_rounds(pl_model_active_params(&s), 17, 1e9);
  struct pl_model mv = load("llama4-maverick");
  CHECK_EQ_INT(pl_model_params(&mv), INT64_C(400711848960));
  CHECK_EQ_INT(pl_model_active_params(&mv), INT64_C(17184691200));
  check_rounds(pl_model_params(&mv), 4, 1e11);
  check_rounds(pl_model_active_params(&mv), 17, 1e9);
  CHECK_EQ_INT(pl_model_moe_layers(&mv), 24);
  struct pl_model mhf = load_hf("Llama-4-Maverick-17B-128E.json");
  CHECK_EQ_INT(pl_model_params(&mhf), pl_model_params(&mv));
  CHECK_EQ_INT(mhf.moe_step, 2);
}

/* Every preset loads and, where its source states a total, matches it. */
static void test_all_presets(void) {
  int n = 0;
  for (size_t i = 0; pl_data_name("models", i) != NULL; i++, n++) {
    struct pl_model m = load(pl_data_name("models", i));
    if (m.published_params > 0)
      CHECK_EQ_INT(pl_model_params(&m), m.published_params);
  }
  CHECK_EQ_INT(n, 36); /* 13 + nemotron-3-nano + kimi-k2, mixtral-8x22b, llama4-scout, -maverick
                        + 16 of session 18 (test_presets18.c) + nemotron-3-super,
                        nemotron-3.5-lightning */
}

int main(void) {
  test_llama2_7b();
  test_llama3();
  test_llama2_big();
  test_mistral();
  test_hf_default_seq();
  test_gpt2();
  test_gpt3();
  test_qwen2();
  test_neox();
  test_pythia();
  test_plateau_format();
  test_bad_json_text();
  test_bad_files();
  test_all_presets();
  test_deepseek_v3();
  test_qwen3_moe();
  test_mixtral();
  test_gpt_oss();
  test_other_moe();
  test_session17_presets();
  return check_finish();
}
