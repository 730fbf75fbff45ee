/* test_validate.c: `plateau validate` in the library: the RFC 4180 reader,
 * number cells, the source FLOP conventions, how rows become runs (and
 * which are skipped, with which reason), the summaries and the regression
 * guard. Predicted step times themselves belong to the step model's tests;
 * here only their bookkeeping is checked (error = 100 (p - m) / m). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "validate/validate_int.h"
#include "check.h"

/* One diagnostics record for every call; CHECK_STATUS prints its message. */
static struct pl_diag d;
static struct pl_diag *dp; /* = &d, set in main */

static void test_csv_basic(void) {
  /* BOM, CRLF, a blank line, an empty last field, quotes with commas,
   * doubled quotes and a line break inside */
  const char *t = "\xEF\xBB\xBF"
                  "a,b,c\r\n"
                  "1,\"x, \"\"y\"\"\",\r\n"
                  "\r\n"
                  "2,\"two\nlines\",z\n";
  struct validate_csv c;
  pl_diag_clear(&d);
  CHECK_STATUS(validate_csv_parse(t, strlen(t), "t", &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_cols, 3);
  CHECK_EQ_INT(c.n_records, 3); /* header + 2; the blank line is not a record */
  CHECK_STR(validate_csv_cell(&c, 0, "a"), "a");
  CHECK_STR(validate_csv_cell(&c, 1, "b"), "x, \"y\"");
  CHECK_STR(validate_csv_cell(&c, 1, "c"), "");
  CHECK_STR(validate_csv_cell(&c, 2, "b"), "two\nlines");
  CHECK_STR(validate_csv_cell(&c, 2, "nope"), ""); /* absent column */
  CHECK_EQ_INT(c.lines[1], 2);
  CHECK_EQ_INT(c.lines[2], 4); /* after the blank line 3 */
  CHECK_EQ_INT(validate_csv_col(&c, "c"), 2);
  CHECK_EQ_INT(validate_csv_col(&c, "d"), -1);
  validate_csv_free(&c);
  /* no final newline; a trailing comma makes an empty last field */
  const char *u = "a,b\n1,";
  CHECK_STATUS(validate_csv_parse(u, strlen(u), "u", &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_records, 2);
  CHECK_STR(validate_csv_cell(&c, 1, "b"), "");
  validate_csv_free(&c);
}

static void csv_bad(const char *text, const char *why, int64_t line) {
  struct validate_csv c;
  pl_diag_clear(&d);
  CHECK_STATUS(validate_csv_parse(text, strlen(text), "bad.csv", &c, &d), PL_ERR_PARSE, dp);
  CHECK_CONTAINS(d.msg, why);
  CHECK_CONTAINS(d.msg, "bad.csv");
  CHECK_EQ_INT(d.line, line);
}

static void test_csv_errors(void) {
  csv_bad("a,b\n1,\"open\n2,3\n", "unterminated quoted field", 2);
  csv_bad("a,b\n1,2,3\n", "3 fields, the header has 2", 2);
  csv_bad("a,b\n1,\"x\"y\n", "text after a closing quote", 2);
  csv_bad("a,b\n1,x\"y\n", "quote inside an unquoted field", 2);
  csv_bad("a,b\r1,2\n", "carriage return", 1);
  csv_bad("", "empty", 0);
}

static void test_numbers(void) {
  double v = 0;
  int64_t n = 0;
  bool present = false;
  CHECK_STATUS(validate_num(" 44% ", &v, &present), PL_OK, dp);
  CHECK(present);
  CHECK_NEAR_REL(v, 44.0, 0);
  CHECK_STATUS(validate_num("2560*", &v, &present), PL_OK, dp); /* SC21 footnote mark */
  CHECK_NEAR_REL(v, 2560.0, 0);
  CHECK_STATUS(validate_num("", &v, &present), PL_OK, dp);
  CHECK(!present);
  CHECK_STATUS(validate_num("2M", &v, &present), PL_ERR_PARSE, dp);
  CHECK_STATUS(validate_int("1.5", &n, &present), PL_ERR_RANGE, dp);
  CHECK_STATUS(validate_int("-4", &n, &present), PL_ERR_RANGE, dp);
  CHECK_STATUS(validate_int("3072", &n, &present), PL_OK, dp);
  CHECK_EQ_INT(n, 3072);
}

static void test_eq3(void) {
  /* SC21 Table 1, GPT 1.7B: B 512, s 2048, l 24, h 2304, V 51200.
   * 96 B s l h^2 = 96 * 512 * 2048 * 24 * 5308416 = 12824703626379264;
   * 1 + s/6h + V/16lh = 1 + 2048/13824 + 51200/884736 = 1.2060185185...
   * F = 1.5466830067925e16 FLOPs per iteration. */
  CHECK_NEAR_REL(validate_megatron_eq3_flops(512, 2048, 24, 2304, 51200), 1.5466830067925e16,
                 1e-12);
}

/* The common columns plus SC21's metric columns; rows are appended. */
/* the header of the Megatron-Bridge performance summary rows the bridge tests feed */
#define BRIDGE_HEADER                                                                              \
  "source,table_or_section,model,layers,hidden,heads,kv_heads,seq_len,gpu,num_gpus,tp,pp,"         \
  "cp,ep,vp,sharding,recompute,micro_batch,global_batch,precision,Task,Tokens / sec / GPU,"        \
  "notes\n"

#define SC21_HEADER                                                                                \
  "source,source_ref,table_or_section,model,params_B,layers,hidden,heads,kv_heads,ffn_hidden,"     \
  "seq_len,vocab,gpu,num_gpus,tp,pp,cp,dp,ep,vp,sharding,recompute,micro_batch,global_batch,"      \
  "precision,Model-parallel size,Achieved teraFLOP/s per GPU,Percentage of theoretical peak "      \
  "FLOP/s,Achieved aggregate petaFLOP/s,Training time for 300B tokens (days),arch_source,"         \
  "derived_fields,notes\n"
#define SC21_SRC "\"Narayanan et al., SC21, \"\"Efficient\"\"\",Table 1,t1,"

static const struct pl_vrow *row_of(const struct pl_validation *v, int64_t r) {
  for (size_t i = 0; i < v->n_rows; i++)
    if (v->rows[i].row == r)
      return &v->rows[i];
  return NULL;
}

static void test_rows(void) {
  const char *csv = SC21_HEADER
      /* 1: GPT 1.7B on 32 A100, the SC21 Table 1 row; predicted */
      SC21_SRC
      "GPT 1.7B,1.7,24,2304,24,,,2048,51200,A100-SXM4-80GB (DGX A100),32,1,1,1,32,,,"
      "none,full (activation recomputation),,512,mixed,,137,44%,4.4,,,,interleaved\n"
      /* 2: Table 2 PTD-P row, model-parallel size 96 not split: tp 8 (GPUs of a DGX
       * A100 server, the paper's rule), pp 96 / 8 = 12, which divides the 96 layers */
      SC21_SRC "GPT-3 175B,175,96,12288,96,,,2048,51200,A100-SXM4-80GB,384,,,,4,,,none,,1,1536,"
      "mixed,96,153,,,84,,,\n"
      /* 3: Sec. 5.8 text point: no configuration */
      SC21_SRC "GPT-3 175B,,,,,,,2048,51200,A100-SXM4-80GB,,,,,,,,,,,,,,113,,,,,,\n"
      /* 4: a stated dp that does not multiply out */
      SC21_SRC "GPT 1.7B,1.7,24,2304,24,,,2048,51200,A100-SXM4-80GB,32,1,1,1,16,,,none,full,,512,"
      "mixed,,137,,,,,,\n"
      /* 5: no built-in source: read as a user's own run (source_generic.c), which
   * needs a framework column */
      "Somebody 2030,x,y,GPT 1.7B,1.7,24,2304,24,,,2048,51200,A100-SXM4-80GB,32,1,1,1,32,,,none,"
      "full,,512,mixed,,137,,,,,,\n"
      /* 6: a GPU with no preset */
      SC21_SRC "GPT 1.7B,1.7,24,2304,24,,,2048,51200,TPU v4,32,1,1,1,32,,,none,full,,512,mixed,,"
      "137,,,,,,\n"
      /* 7: an A100 string naming Omni-Path: the Jean Zay cluster preset */
      SC21_SRC "GPT 1.7B,1.7,24,2304,24,,,2048,51200,\"A100 80GB (Jean Zay; 4 OmniPath links)\","
      "32,1,1,1,32,,,none,full,,512,mixed,,137,,,,,,\n"
      /* 8: model-parallel size 96 with 100 layers: pp 12 does not divide them, skipped */
      SC21_SRC "GPT 175B,175,100,12288,96,,,2048,51200,A100-SXM4-80GB,384,,,,4,,,none,,1,1536,"
      "mixed,96,153,,,84,,,\n"
      /* 9: model-parallel size 20: not a multiple of 8, skipped */
      SC21_SRC "GPT-3 175B,175,96,12288,96,,,2048,51200,A100-SXM4-80GB,80,,,,4,,,none,,1,1536,"
      "mixed,20,153,,,84,,,\n";
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "sc21", csv, strlen(csv), &d), PL_OK, dp);
  CHECK_EQ_INT(v.n_rows, 9);
  CHECK_EQ_INT(v.n_sets, 1);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    /* measured = eq. 3 FLOPs / (137 TFLOP/s x 32 GPUs) = 1.5466830067925e16 / 4.384e15 */
    CHECK_NEAR_REL(r->measured, 3.528017807464643, 1e-12);
    CHECK_NEAR_REL(r->published, 137.0, 0);
    CHECK(r->predicted > 0);
    CHECK_NEAR_REL(r->error, 100.0 * (r->predicted - r->measured) / r->measured, 1e-12);
    /* a rate (TFLOP/s) published: its error is the predicted rate's, measured / predicted - 1 */
    CHECK(r->published_rate);
    CHECK_NEAR_REL(r->published_error, 100.0 * (r->measured / r->predicted - 1.0), 1e-12);
    CHECK_STR(r->source, "sc21");
    CHECK_CONTAINS(r->architecture, "learned positions");
    CHECK_STR(r->gpu, "a100-80g");
    CHECK_STR(r->cluster, "dgx-a100");
    CHECK_EQ_INT(r->layout.dp, 32);
    CHECK_EQ_INT(r->layout.mbs, 1);
    CHECK(!r->layout.sp);
    CHECK_EQ_INT(r->layout.recompute, PL_RECOMPUTE_FULL);
    CHECK_CONTAINS(r->assumed, "micro-batch 1 (not stated)");
    CHECK_CONTAINS(r->assumed, "ffn_hidden=4h");
    CHECK_CONTAINS(r->assumed, "kv_heads=heads");
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_EQ_INT(r->layout.tp, 8);
    CHECK_EQ_INT(r->layout.pp, 12);
    CHECK_EQ_INT(r->layout.dp, 4);
    CHECK_EQ_INT(r->layout.vp, 1);
    CHECK_CONTAINS(r->assumed, "tp 8 pp 12 (model-parallel size 96 not split");
    CHECK_CONTAINS(r->assumed, "non-interleaved");
  }
  r = row_of(&v, 8);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "tp/pp split of model-parallel size 96 not stated");
  r = row_of(&v, 9);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "tp/pp split of model-parallel size 20 not stated");
  r = row_of(&v, 3);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "GPU count not stated");
  r = row_of(&v, 4);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "dp 16 x tp 1 x pp 1 x cp 1 != 32 GPUs");
  r = row_of(&v, 5);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL,
                 "source 'Somebody 2030' is no built-in source and column 'framework' is empty");
  r = row_of(&v, 6);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "gpu 'TPU v4' has no preset");
  r = row_of(&v, 7);
  CHECK(r != NULL && !r->skipped);
  CHECK_STR(r ? r->gpu : NULL, "a100-80g");
  CHECK_STR(r ? r->cluster : NULL, "jean-zay-a100");
  CHECK_EQ_INT(v.sets[0].rows, 9);
  CHECK_EQ_INT(v.sets[0].skipped + v.sets[0].predicted, 9);
  CHECK_EQ_INT(v.overall.rows, 9);
  pl_validation_free(&v);
}

static void test_nemo_flops(void) {
  /* NeMo's Llama count per token, LLAMA2-7B (l 32, h 4096, a = g = 32, f 11008, V 32000,
   * s 4096): l h^2 = 536870912; 12 + 12 + 18 * 11008 / 4096 (48.375) + 12 * 4096 / 4096 (12)
   * + 6 * 32000 / (32 * 4096) (1.46484375) = 85.83984375 -> 46084915200 FLOPs per token;
   * one sequence of 4096 tokens: 1.887638126592e14. (NeMo 24.07: 16847 tokens/s/GPU x
   * 46.085 GFLOP = 776.4 TFLOP/s, printed 776.) */
  CHECK_NEAR_REL(validate_nemo_llama_flops(1, 4096, 32, 4096, 32, 32, 11008, 32000),
                 1.887638126592e14, 1e-12);
}

/* NeMo rows: a model named without dimensions takes them from NeMo's config
 * (GPT3-5B: 24 x 4096, 32 heads, ffn 16384, GPT-2 vocabulary padded to 50304
 * at tp 1), the distributed optimizer and sequence parallelism are NeMo's;
 * measured step = GBS 2048 x 2048 tokens / (22521 tokens/s/GPU x 64 GPUs) =
 * 4194304 / 1441344 = 2.91000... s. SFT and LoRA rows are skipped with their
 * reason; an MLPerf row's "distributed optimizer" reads as zero1 and its
 * "granularity null" as no recompute. */
static void test_nemo_mlperf_rows(void) {
  const char *csv =
      "source,model,layers,hidden,heads,seq_len,vocab,gpu,num_gpus,tp,pp,cp,vp,sharding,"
      "recompute,micro_batch,global_batch,precision,Task,Tokens / sec / GPU,"
      "\"step time s (median segment, derived)\"\n"
      "NVIDIA/NeMo docs/source/performance/performance_summary.md,GPT3-5B,,,,2048,,"
      "H100 (DGX-H100),64,1,1,1,1,,,4,2048,FP8,pretrain,22521,\n"
      "NVIDIA/NeMo docs/source/performance/performance_summary.md,LLAMA2-7B,32,4096,32,4096,"
      "32000,H100 (DGX-H100),8,1,1,,,,,1,32,FP8,LoRA,25206,\n"
      "MLPerf Training v3.0 results,GPT-3 175B,96,12288,96,2048,,NVIDIA H100-SXM5-80GB,512,4,8,"
      ",12,distributed optimizer (USE_DIST_OPTIMIZER=True),ACT_CKPT_GRANULARITY=null,1,2048,"
      "FP8,,,12.113\n";
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "nemo", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 2048.0 * 2048 / (22521.0 * 64), 1e-12);
    CHECK_EQ_INT(r->layout.shard, PL_SHARD_ZERO1);
    CHECK_EQ_INT(r->layout.dtype, PL_DTYPE_FP8);
    CHECK_STR(r->framework, "nemo");
    CHECK_CONTAINS(r->assumed, "5b.yaml");
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "LoRA");
  r = row_of(&v, 3);
  CHECK(r != NULL && (r->skipped ? strstr(r->skipped_reason, "does not fit") != NULL : true));
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 12.113, 1e-12);
    CHECK_EQ_INT(r->layout.shard, PL_SHARD_ZERO1);
    CHECK_EQ_INT(r->layout.recompute, PL_RECOMPUTE_NONE);
    CHECK_EQ_INT(r->layout.vp, 12);
    CHECK(r->layout.sp);
  }
  pl_validation_free(&v);
}

/* MLPerf v5.0 Llama 3.1 405B rows (source "mlperf_llama", mlp15): the
 * preset llama3-405b (126 layers: not divisible by pp 8 x vp 8 = 64 unless
 * the embedding and the loss count as a layer each, ASYM_PP_EMBED and
 * ASYM_PP_LOSS True: 128 / 64 = 2 per virtual stage); measured = the
 * log-interval column as printed (55.099 s); a column that contradicts the
 * preset (layers 80) or one ASYM flag alone skips the row. Row 1 is the
 * 512-GPU H100 result (eos-dfw_n64, result_0). */
static void test_mlperf_llama_rows(void) {
  const char *head =
      "source,model,layers,hidden,heads,kv_heads,seq_len,vocab,gpu,num_gpus,tp,pp,cp,vp,sharding,"
      "recompute,micro_batch,global_batch,precision,TP_COMM_OVERLAP,ASYM_PP_EMBED (config),"
      "ASYM_PP_LOSS (config),\"step time s (median log interval, derived)\",CUDA graphs (config),"
      "notes\n";
  const char *src = "\"MLPerf Training v5.0 results, NVIDIA closed division, Llama 3.1 405B "
                    "(mlcommons/training_results_v5.0)\"";
  char csv[4096];
  snprintf(csv, sizeof csv,
           "%s%s,L,126,16384,128,8,8192,128256,NVIDIA H100-SXM5-80GB,512,8,8,2,8,distributed "
           "optimizer,none,1,1152,FP8,True,True,True,55.099,,\n"
           "%s,L,80,16384,128,8,8192,128256,NVIDIA H100-SXM5-80GB,512,8,8,2,8,distributed "
           "optimizer,none,1,1152,FP8,True,True,True,55.099,,\n"
           "%s,L,126,16384,128,8,8192,128256,NVIDIA H100-SXM5-80GB,512,8,8,2,8,distributed "
           "optimizer,none,1,1152,FP8,True,True,False,55.099,,\n"
           "%s,L,126,16384,128,8,8192,128256,NVIDIA GB200,2560,4,8,2,8,distributed optimizer,none,"
           "1,960,NVFP4,False,True,True,3.194,FULL_CUDA_GRAPH=1,SEGMENT=16 (config)\n",
           head, src, src, src, src);
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "mlperf_v5", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 55.099, 1e-12);
    CHECK(r->layout.account_embed_loss);
    CHECK_EQ_INT(r->layout.shard, PL_SHARD_ZERO1);
    CHECK_EQ_INT(r->layout.dtype, PL_DTYPE_FP8);
    CHECK_EQ_INT(r->layout.cp, 2);
    CHECK_STR(r->framework, "nemo");
    CHECK_CONTAINS(r->assumed, "llama3-405b");
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "layers");
  r = row_of(&v, 3);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "ASYM_PP_LOSS 'False'");
  /* 2,560 GB200 (v5.1): dp = 2560 / 64 = 40 groups placed by 64-GPU NVLink
   * segments (SEGMENT=16 trays x 4); whole-step CUDA graph from FULL_CUDA_GRAPH=1 */
  r = row_of(&v, 4);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_EQ_INT(r->layout.dp, 40);
    CHECK_EQ_INT(r->layout.dtype, PL_DTYPE_NVFP4);
    CHECK(r->layout.cuda_graph_scopes & PL_CGS_FULL_ITERATION);
    CHECK_CONTAINS(r->assumed, "NVLink segment of 16 trays = 64 GPUs");
  }
  pl_validation_free(&v);
}

/* MLPerf v5.1 Llama 3.1 8B rows (source "mlperf_llama8b", mlperf18): the
 * preset llama3-8b (32 layers, hidden 4096, 32 heads, 8 KV heads), checked
 * against the columns (a row stating 126 layers is refused); FP8_RECIPE=
 * tensorwise in the precision cell is Transformer Engine's current scaling;
 * a system whose config is "not identified" is refused with the reason; the
 * measured step is the log-interval column as printed (0.1710 s: NVIDIA's
 * 72-GB200 tyche_ngpu72 median; 0.4058 s its 8-GPU NVFP4 one). */
static void test_mlperf_llama8b_rows(void) {
  const char *head =
      "source,model,layers,hidden,heads,kv_heads,seq_len,vocab,gpu,num_gpus,tp,pp,cp,vp,sharding,"
      "recompute,micro_batch,global_batch,precision,TP_COMM_OVERLAP,"
      "\"step time s (median log interval, derived)\",CUDA graphs (config),notes\n";
  const char *src = "\"MLPerf Training v5.1 results, NVIDIA closed division, Llama 3.1 8B "
                    "(mlcommons/training_results_v5.1)\"";
  char csv[4096];
  snprintf(csv, sizeof csv,
           "%s%s,L,32,4096,32,8,8192,128256,NVIDIA Blackwell GPU (GB200),72,1,1,2,1,distributed "
           "optimizer,none,1,36,\"FP8 (FP8=True, FP8_RECIPE=tensorwise, FP8_HYBRID=True)\",False,"
           "0.1710,FULL_CUDA_GRAPH=1,\n"
           "%s,L,126,4096,32,8,8192,128256,NVIDIA Blackwell GPU (GB200),72,1,1,2,1,distributed "
           "optimizer,none,1,36,FP8,False,0.1710,FULL_CUDA_GRAPH=1,\n"
           "%s,L,32,4096,32,8,8192,128256,NVIDIA Blackwell GPU (B200-SXM-180GB),8,1,1,1,1,"
           "distributed optimizer,none,2,16,\"not identified (ambiguous: a.sh; b_fp4.sh)\",False,"
           "0.4530,FULL_CUDA_GRAPH=1,\n"
           "%s,L,32,4096,32,8,8192,128256,NVIDIA Blackwell GPU (GB200),8,1,1,1,1,distributed "
           "optimizer,none,2,16,\"NVFP4 (FP4=True, FP4_RECIPE=nvfp4)\",False,0.4058,"
           "FULL_CUDA_GRAPH=0,\n",
           head, src, src, src, src);
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "mlperf_v51_llama8b", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 0.1710, 1e-12);
    CHECK_EQ_INT(r->layout.dtype, PL_DTYPE_FP8);
    CHECK_EQ_INT(r->layout.fp8_recipe, PL_FP8_RECIPE_CURRENT);
    CHECK_EQ_INT(r->layout.cp, 2);
    CHECK_EQ_INT(r->layout.dp, 36);
    CHECK_EQ_INT(r->layout.shard, PL_SHARD_ZERO1);
    CHECK(r->layout.cuda_graph_scopes & PL_CGS_FULL_ITERATION);
    CHECK_STR(r->framework, "nemo");
    CHECK_CONTAINS(r->assumed, "llama3-8b");
    CHECK_CONTAINS(r->assumed, "FP8_RECIPE=tensorwise");
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "layers");
  r = row_of(&v, 3);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "config: not identified (ambiguous");
  /* NVFP4 (no FP8 recipe to set); FULL_CUDA_GRAPH=0: no whole-step graph */
  r = row_of(&v, 4);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_EQ_INT(r->layout.dtype, PL_DTYPE_NVFP4);
    CHECK(!(r->layout.cuda_graph_scopes & PL_CGS_FULL_ITERATION));
    CHECK_NEAR_REL(r->measured, 0.4058, 1e-12);
  }
  pl_validation_free(&v);
}

/* llm-foundry rows: MPT's ALiBi ran in the Triton FlashAttention, eager
 * kernels; MP Mode DEFAULT reduces gradients in fp32 as modelled. Measured
 * step = 16 x 2048 tokens / 100000 tokens/s = 0.32768 s. */
static void test_llmfoundry_row(void) {
  const char *csv =
      "source,model,layers,hidden,heads,seq_len,vocab,gpu,num_gpus,tp,pp,sharding,recompute,"
      "micro_batch,global_batch,precision,Throughput (T/s),MP Mode,Activation CPUOffload\n"
      "mosaicml/llm-foundry README,MPT-1b,24,2048,16,2048,50368,H100 80GB,8,1,1,FSDP FULL_SHARD,"
      "none,2,16,amp_bf16,100000,DEFAULT,False\n";
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "mpt", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 16.0 * 2048 / 100000, 1e-12);
    CHECK(r->layout.attention_triton);
    CHECK(!r->layout.eager_attention);
    CHECK(!r->layout.gather_no_prefetch);
    CHECK(r->layout.fsdp_one_comm);
    CHECK_EQ_INT(r->layout.kernels, PL_KERNELS_UNFUSED);
    CHECK_CONTAINS(r->assumed, "gradients reduced in fp32, as modelled");
    CHECK_STR(r->cluster, "dgx-h100");
  }
  pl_validation_free(&v);
}

/* One FSDP communicator (layout.fsdp_one_comm, the default for zero2/zero3;
 * fsdp_separate_comms opts out): a unit's reduce_scatter queues behind the gathers on one stream,
 * which can only delay the step. llama2-70b, zero3, 64 H100 over 8 nodes,
 * mbs 1 x 4096 tokens, full recompute: a unit's gathers and reduce_scatter
 * take about as long as its compute (inter-node rings), so the serialized
 * step is strictly longer; zero1 (tp 8, pp 4) has no per-unit FSDP traffic
 * and does not move. */
static double predict_70b(enum pl_shard shard, bool one_comm) {
  static struct pl_run run;
  static struct pl_prediction out;
  memset(&run, 0, sizeof run);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load("llama2-70b", &run.model, &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, dp);
  run.layout.gpus = 64;
  run.layout.tp = shard == PL_SHARD_ZERO1 ? 8 : 1;
  run.layout.pp = shard == PL_SHARD_ZERO1 ? 4 : 1;
  run.layout.mbs = 1;
  run.layout.batch_per_gpu = 2;
  run.layout.shard = shard;
  run.layout.shard_set = true;
  run.layout.recompute = shard == PL_SHARD_ZERO1 ? PL_RECOMPUTE_SELECTIVE : PL_RECOMPUTE_FULL;
  run.layout.fsdp_separate_comms = !one_comm; /* one communicator is the default */
  CHECK_STATUS(pl_predict(&run, &out, &d), PL_OK, dp);
  CHECK(out.step.simulated);
  return out.step.step_time_s;
}

static void test_fsdp_one_comm(void) {
  double apart = predict_70b(PL_SHARD_ZERO3, false), one = predict_70b(PL_SHARD_ZERO3, true);
  CHECK(one > apart);
  CHECK_NEAR_REL(predict_70b(PL_SHARD_ZERO1, true), predict_70b(PL_SHARD_ZERO1, false), 0);
}

/* BLOOM rows: DeepSpeed's BF16_Optimizer all_reduces the fp32 gradients
 * (pipeline engine _bf16_reduce_grads) where a plain ZeRO-1 reduce_scatters
 * them: the same run with the sharding cell not naming BF16_Optimizer keeps
 * the reduce_scatter, moves half the gradient bytes and is predicted faster.
 * Measured step = the printed 2.5 s. */
static void test_bloom_row(void) {
  const char *csv =
      "source,model,layers,hidden,heads,seq_len,vocab,gpu,num_gpus,tp,pp,sharding,recompute,"
      "micro_batch,global_batch,precision,elapsed time per iteration (s)\n"
      "bigscience-workshop/bigscience tr11,tiny,4,1024,16,2048,50304,A100 80GB,32,1,2,"
      "\"ZeRO stage 1 (DeepSpeed BF16_Optimizer implements its own ZeRO-1)\",full,1,64,bf16,2.5\n"
      "bigscience-workshop/bigscience tr11,tiny,4,1024,16,2048,50304,A100 80GB,32,1,2,"
      "ZeRO stage 1,full,1,64,bf16,2.5\n";
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "bloom", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *a = row_of(&v, 1), *b = row_of(&v, 2);
  CHECK(a != NULL && !a->skipped && b != NULL && !b->skipped);
  if (a != NULL && !a->skipped && b != NULL && !b->skipped) {
    CHECK_NEAR_REL(a->measured, 2.5, 0);
    CHECK_EQ_INT(a->layout.shard, PL_SHARD_ZERO1);
    CHECK(a->layout.zero1_grad_all_reduce);
    CHECK(a->layout.grad_accum_cast); /* update_hp_grads: cast, then add */
    CHECK_CONTAINS(a->assumed, "bf16 gradients cast to fp32 and added (update_hp_grads), fp32 "
                               "gradients all_reduced");
    CHECK(!b->layout.zero1_grad_all_reduce);
    CHECK(!b->layout.grad_accum_cast);
    CHECK(a->predicted > b->predicted);
  }
  pl_validation_free(&v);
}

static void test_bad_layout(void) {
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  const char *nocol = "source,model\nx,y\n";
  CHECK_STATUS(pl_validation_add_csv(&v, "nocol", nocol, strlen(nocol), &d), PL_ERR_MISSING, dp);
  CHECK_CONTAINS(d.msg, "no column 'layers'");
  CHECK_STATUS(pl_validation_add_file(&v, "/nonexistent/x.csv", &d), PL_ERR_IO, dp);
  CHECK_CONTAINS(d.msg, "/nonexistent/x.csv");
  pl_validation_free(&v);
}

static void fake_row(struct pl_vrow *r, const char *ds, int64_t row, double err, bool skipped) {
  memset(r, 0, sizeof *r);
  snprintf(r->dataset, sizeof r->dataset, "%s", ds);
  r->row = row;
  r->measured = 10.0;
  r->predicted = 10.0 * (1 + err / 100);
  r->error = err;
  r->published_error = err; /* a published time */
  r->skipped = skipped;
}

static void test_summary(void) {
  struct pl_vrow rows[5];
  fake_row(&rows[0], "a", 1, +10, false);
  fake_row(&rows[1], "a", 2, -20, false);
  fake_row(&rows[2], "a", 3, +5, false);
  fake_row(&rows[3], "a", 4, 99, true); /* skipped: not counted */
  fake_row(&rows[4], "a", 5, -7, false);
  struct pl_vsummary s;
  CHECK_STATUS(pl_validation_summarize(rows, 5, "a", &s, NULL), PL_OK, dp);
  CHECK_EQ_INT(s.rows, 5);
  CHECK_EQ_INT(s.predicted, 4);
  CHECK_EQ_INT(s.skipped, 1);
  CHECK_NEAR_REL(s.mape, (10.0 + 20 + 5 + 7) / 4, 1e-12); /* 10.5 */
  CHECK_NEAR_REL(s.median_ape, (7.0 + 10) / 2, 1e-12);    /* sorted 5 7 10 20 */
  CHECK_NEAR_REL(s.max_ape, 20.0, 0);
  CHECK_NEAR_REL(s.bias, (10.0 - 20 + 5 - 7) / 4, 1e-12); /* -3: signed mean */
  CHECK_EQ_INT(s.worst_row, 2);
  /* on the published column: row 1 a rate 10 % too slow in step time (rate 1 / 1.1 of the
   * published: -9.09 %), row 2 a rate 20 % too fast (1 / 0.8: +25 %), rows 3 and 5 times */
  rows[0].published_rate = true, rows[0].published_error = 100.0 * (1.0 / 1.1 - 1.0);
  rows[1].published_rate = true, rows[1].published_error = 25.0;
  CHECK_STATUS(pl_validation_summarize(rows, 5, "a", &s, NULL), PL_OK, dp);
  CHECK_NEAR_REL(s.published_mape, (100.0 / 11.0 + 25 + 5 + 7) / 4, 1e-12);
  CHECK_NEAR_REL(s.published_bias, (-100.0 / 11.0 + 25 + 5 - 7) / 4, 1e-12);
  CHECK_NEAR_REL(s.mape, 10.5, 1e-12); /* the step's figures do not change */
  CHECK_STATUS(pl_validation_summarize(rows, 3, "a", &s, NULL), PL_OK, dp);
  CHECK_NEAR_REL(s.median_ape, 10.0, 0); /* odd count: middle of 5 10 20 */
  CHECK_STATUS(pl_validation_summarize(rows + 3, 1, "a", &s, NULL), PL_OK, dp);
  CHECK_EQ_INT(s.predicted, 0);
  CHECK_NEAR_REL(s.mape, 0, 0);
  CHECK_EQ_INT(s.worst_row, 0);
}

/* A two-dataset validation built by hand, for the baseline tests. */
static void fake_validation(struct pl_validation *v, struct pl_vrow rows[4],
                            struct pl_vsummary sets[2]) {
  pl_validation_init(v);
  fake_row(&rows[0], "a", 1, 10, false);
  fake_row(&rows[1], "a", 2, -6, false);
  fake_row(&rows[2], "b", 1, 3, false);
  fake_row(&rows[3], "b", 2, 0, true);
  v->rows = rows;
  v->n_rows = 4;
  v->sets = sets;
  v->n_sets = 2;
  pl_validation_summarize(rows, 2, "a", &sets[0], NULL);     /* mape 8 */
  pl_validation_summarize(rows + 2, 2, "b", &sets[1], NULL); /* mape 3 */
  pl_validation_summarize(rows, 4, "all", &v->overall, NULL);
}

static void test_baseline(void) {
  const char *path = "/tmp/plateau-test-validate-baseline.json";
  struct pl_vrow rows[4];
  struct pl_vsummary sets[2];
  struct pl_validation v;
  struct pl_vcheck c;
  pl_diag_clear(&d);
  fake_validation(&v, rows, sets);
  CHECK_STATUS(pl_validation_write_baseline(&v, path, "test", &d), PL_OK, dp);
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 0);
  CHECK_NEAR_REL(c.tolerance_pct, 1.0, 0);
  /* a: 8% -> 9.5%, beyond 8 + 1 pp: fails; b: 3% -> 3.9%, within: passes */
  sets[0].mape = 9.5;
  sets[1].mape = 3.9;
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 1);
  CHECK_STR(c.findings[0].dataset, "a");
  CHECK_CONTAINS(c.findings[0].msg, "mean error 9.50% > baseline 8.00% + 1.00 pp");
  /* an improvement beyond the tolerance is a note, not a failure */
  sets[0].mape = 6.5;
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 0);
  CHECK_EQ_INT(c.n_findings, 1);
  CHECK_CONTAINS(c.findings[0].msg, "improved");
  /* a predicted row turned into a skip fails even when the mean is better */
  sets[0].predicted = 1;
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 1);
  CHECK_CONTAINS(c.findings[0].msg, "became a skip");
  /* a dataset of the baseline that was not validated fails */
  sets[0].predicted = 2;
  sets[0].mape = 8;
  v.n_sets = 1;
  snprintf(sets[0].name, sizeof sets[0].name, "c");
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 2); /* a and b missing; c is new (a note) */
  CHECK_EQ_INT(c.n_findings, 3);
  remove(path);
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_ERR_IO, dp);
  /* 70 datasets in the baseline, none validated: 70 failures counted, the
   * first 64 kept as findings (session 18: the ones past 64 were not counted) */
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f == NULL)
    return;
  fprintf(f, "{\"datasets\": [");
  for (int i = 0; i < 70; i++)
    fprintf(f, "%s{\"name\": \"d%d\", \"predicted\": 1, \"mape\": 1}", i ? ", " : "", i);
  fprintf(f, "]}");
  fclose(f);
  v.n_sets = 0;
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 70);
  CHECK_EQ_INT(c.n_findings, PL_VALIDATE_MAX_FINDINGS);
  remove(path);
}

static void test_reports(void) {
  struct pl_vrow rows[4];
  struct pl_vsummary sets[2];
  struct pl_validation v;
  fake_validation(&v, rows, sets);
  snprintf(rows[3].skipped_reason, sizeof rows[3].skipped_reason, "why \"quoted\", here");
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (f == NULL)
    return;
  pl_report_validate_csv(f, &v);
  struct pl_emit *e = pl_emit_open(f);
  pl_report_validate_json(e, &v);
  CHECK_STATUS(pl_emit_close(e, NULL), PL_OK, dp);
  pl_report_validate_text(f, &v, true);
  pl_report_validate_gnuplot(f, &v, "a.svg", NULL);
  static char buf[1 << 16];
  rewind(f);
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  CHECK_CONTAINS(buf, "\"why \"\"quoted\"\", here\""); /* CSV quoting */
  CHECK_CONTAINS(buf, "\"skipped_reason\": null");     /* JSON, predicted row */
  CHECK_CONTAINS(buf, "\"skipped_reason\": \"why \\\"quoted\\\", here\"");
  CHECK_CONTAINS(buf, "\"mape\": 8,");
  CHECK_CONTAINS(buf, "skipped (): why");
  CHECK_CONTAINS(buf, "set output \"a.svg\"");
  CHECK_CONTAINS(buf, "$d1 << EOD");
}

/* One synthetic row of a weak-scaling series: per-GPU work fixed by mbs,
 * micro-batches and seq; gbs grows with the GPU count. */
static struct pl_vrow scaling_row(const char *dataset, int64_t row, int64_t gpus, int64_t mbs,
                                  double measured, double predicted) {
  struct pl_vrow r;
  memset(&r, 0, sizeof r);
  snprintf(r.dataset, sizeof r.dataset, "%s", dataset);
  snprintf(r.model, sizeof r.model, "m");
  snprintf(r.gpu, sizeof r.gpu, "h100");
  snprintf(r.cluster, sizeof r.cluster, "dgx-h100");
  r.row = row;
  r.layout.gpus = r.layout.dp = gpus;
  r.layout.tp = r.layout.pp = r.layout.cp = r.layout.vp = 1;
  r.layout.mbs = mbs;
  r.layout.micro_batches = 1;
  r.layout.gbs = gpus * mbs;
  r.layout.seq = 2048;
  r.measured = measured;
  r.predicted = predicted;
  return r;
}

static void test_scaling(void) {
  struct pl_vrow rows[8];
  rows[0] = scaling_row("d", 1, 8, 1, 1.0, 0.9);
  rows[1] = scaling_row("d", 2, 16, 1, 1.1, 0.9);  /* measured 1/1.1, predicted 1 */
  rows[2] = scaling_row("d", 3, 32, 1, 1.25, 1.0); /* 0.8 and 0.9 */
  rows[3] = scaling_row("d", 4, 16, 2, 1.0, 1.0);  /* another mbs: its own series, alone */
  rows[4] = scaling_row("d", 5, 64, 1, 9.0, 9.0);  /* skipped: not in any series */
  rows[4].skipped = true;
  rows[5] = scaling_row("d", 6, 8, 1, 3.0, 3.0);   /* a repeat of the base's count: no pair */
  rows[6] = scaling_row("e", 1, 4, 1, 2.0, 2.0);   /* the smaller count comes later */
  rows[7] = scaling_row("e", 2, 2, 1, 1.0, 1.0);   /* 0.5 both */
  struct pl_validation v;
  pl_validation_init(&v);
  v.rows = rows;
  v.n_rows = 8;
  struct pl_vscaling_set s;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_scaling(&v, &s, &d), PL_OK, dp);
  CHECK_EQ_INT(s.n, 3);
  CHECK_STR(s.pairs[0].dataset, "d");
  CHECK_EQ_INT(s.pairs[0].base_row, 1);
  CHECK_EQ_INT(s.pairs[0].row, 2);
  CHECK_EQ_INT(s.pairs[0].base_gpus, 8);
  CHECK_EQ_INT(s.pairs[0].gpus, 16);
  CHECK_NEAR_REL(s.pairs[0].measured_eff, 1.0 / 1.1, 1e-12);
  CHECK_NEAR_REL(s.pairs[0].predicted_eff, 1.0, 1e-12);
  CHECK_NEAR_REL(s.pairs[0].gap_pp, 100.0 - 100.0 / 1.1, 1e-12);
  CHECK_EQ_INT(s.pairs[1].row, 3);
  CHECK_NEAR_REL(s.pairs[1].measured_eff, 0.8, 1e-12);
  CHECK_NEAR_REL(s.pairs[1].predicted_eff, 0.9, 1e-12);
  CHECK_STR(s.pairs[2].dataset, "e");
  CHECK_EQ_INT(s.pairs[2].base_row, 2);
  CHECK_EQ_INT(s.pairs[2].row, 1);
  CHECK_NEAR_REL(s.pairs[2].measured_eff, 0.5, 1e-12);
  CHECK_NEAR_REL(s.pairs[2].gap_pp + 1.0, 1.0, 1e-12); /* 0 */
  CHECK_CONTAINS(s.pairs[0].series, "m, h100, bf16, recompute none, seq 2048, mbs 1 x 1 per step");
  /* losses 100/11 (9.09), 20, 50 measured; 0, 10, 50 predicted */
  CHECK_NEAR_REL(s.mean_measured_loss_pct, (100.0 / 11.0 + 20.0 + 50.0) / 3.0, 1e-12);
  CHECK_NEAR_REL(s.mean_predicted_loss_pct, 20.0, 1e-12);
  CHECK_NEAR_REL(s.mean_abs_gap_pp, (100.0 / 11.0 + 10.0) / 3.0, 1e-12);
  CHECK_NEAR_REL(s.median_gap_pp, 100.0 / 11.0, 1e-12);
  pl_vscaling_free(&s);
  CHECK(s.pairs == NULL && s.n == 0);
  /* the regression guard keeps the pairs and their mean |gap| */
  const char *path = "/tmp/plateau-test-validate-scaling-baseline.json";
  struct pl_vsummary sets[2] = {{.name = "d"}, {.name = "e"}};
  v.sets = sets;
  v.n_sets = 2;
  struct pl_vcheck c;
  CHECK_STATUS(pl_validation_write_baseline(&v, path, "test", &d), PL_OK, dp);
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 0);
  rows[2].predicted = 1.125; /* 0.9 / 1.125 = 0.8 predicted: gaps 9.09, 0, 0: 3.03 from 6.36 */
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 0);
  CHECK_EQ_INT(c.n_findings, 1);
  CHECK_CONTAINS(c.findings[0].msg, "mean |gap| 3.03 pp < baseline 6.36 pp - 1.00 pp: improved");
  rows[2].predicted = 0.7; /* 0.9 / 0.7 = 1.29 predicted: gaps 9.09, 48.6, 0: 19.2 pp */
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK_EQ_INT(c.n_failed, 1);
  CHECK_STR(c.findings[0].dataset, "scaling");
  CHECK_CONTAINS(c.findings[0].msg, "> baseline 6.36 pp + 1.00 pp");
  rows[2].predicted = 1.0;
  rows[1].skipped = true; /* one pair fewer */
  CHECK_STATUS(pl_validation_check_baseline(&v, path, &c, &d), PL_OK, dp);
  CHECK(c.n_failed >= 1);
  CHECK_CONTAINS(c.findings[0].msg, "2 weak-scaling pairs, baseline 3");
  rows[1].skipped = false;
  remove(path);
  v.sets = NULL;
  v.n_sets = 0;
  v.n_rows = 1; /* one row: no series */
  CHECK_STATUS(pl_validation_scaling(&v, &s, &d), PL_OK, dp);
  CHECK_EQ_INT(s.n, 0);
  CHECK_NEAR_REL(s.median_gap_pp + 1.0, 1.0, 0);
  pl_vscaling_free(&s);
}

/* Megatron-LM's model FLOPs (training.py num_floating_point_operations) of
 * Qwen3-235B-A22B, one 4096-token sequence: per block 12 h (f_e k g + h (1 +
 * g_kv/a + s/2h) d a / h) = 12 x 4096 x (1536 x 8 x 1.5 + 4096 x 1.5625 x 2)
 * = 12 x 4096 x 31232; x 94 blocks = 144300834816; logits 6 x 4096 x 151936 =
 * 3733979136; 148034813952 per token (the zoo's rows printing step time and
 * TFLOP/s imply 147.3e9 and 148.2e9). */
static void test_megatron_flops(void) {
  struct pl_model m;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load("qwen3-235b-a22b", &m, &d), PL_OK, dp);
  CHECK_NEAR_REL(validate_megatron_flops(&m, 1, 4096), 148034813952.0 * 4096, 1e-12);
}

/* The MoE sources: a Megatron-Bridge row on 256 GB200 names its preset,
 * reads FP8-MX as mxfp8, ep 32, the recipe's embedding/loss split accounting,
 * force-balanced routing, the hybridep dispatcher and a 64-GPU NVLink segment
 * (256 is no multiple of 72); measured = 8192 x 4096 / (7280 x 256) s. A
 * Nemotron 3 Super row is skipped with its reason (Nano is a preset). A zoo row with a step time is
 * compared on it; its HybridEP reads as hybridep, SEGMENT=8 as 32 GPUs. */
/* cuDNN 9.13's attention rates follow the section's release (source_bridge_framework.c
 * bridge_cudnn): 25.11 is v0.2.x, whose image is NGC PyTorch 25.09 (cuDNN 9.13);
 * 26.02 is v0.3.0 (PyTorch 25.11): today's rates. The H100 row carries the setting
 * too (h100.json has no 9.13 figures, so its time does not move). */
static void test_bridge_cudnn_913(void) {
  struct pl_validation v;
  pl_diag_clear(&d);
  const char *csv =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.11 NeMo Container / x,"
      "LLAMA3_8B,32,4096,32,8,8192,DGX-B200,8,1,1,1,1,,,,2,128,FP8-CS,pretrain,30624,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "LLAMA3_8B,32,4096,32,8,8192,DGX-B200,8,1,1,1,1,,,,2,128,FP8-CS,pretrain,30624,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.11 NeMo Container / x,"
      "LLAMA3_8B,32,4096,32,8,8192,DGX-H100,8,1,1,1,1,,,,1,128,FP8-CS,pretrain,14000,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", csv, strlen(csv), &d), PL_OK, dp);
  const bool on[] = {true, false, true};
  for (int i = 0; i < 3; i++) {
    const struct pl_vrow *r = row_of(&v, 1 + i);
    CHECK(r != NULL && !r->skipped && (r->layout.cudnn_version == PL_CUDNN_913) == on[i]);
  }
  pl_validation_free(&v);
}

/* The vocabulary by release (source_bridge.c validate_bridge_model): Megatron-Bridge's
 * _validate_and_set_vocab_size keeps a model's set vocab_size unpadded; only 25.09's
 * Llama providers (v0.1.0rc4) leave it unset, so the recipe's NullTokenizer 128256 is
 * padded to 128 x tp: 128512 at tp 4 (128256 = 250.5 x 512). 26.02's Llama (its HF config)
 * and 25.09's Qwen3 provider (151936) stay as set. */
static void test_bridge_vocab(void) {
  struct pl_validation v;
  pl_diag_clear(&d);
  const char *csv =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.09 NeMo Container / x,"
      "LLAMA3.1_405B,,,,,8192,DGX-GB200,128,4,8,2,1,8,,,1,64,FP8-CS,pretrain,800,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "LLAMA3.1_405B,,,,,8192,DGX-GB200,128,4,8,2,1,8,,,1,64,FP8-CS,pretrain,800,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.09 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-H100,256,2,8,1,32,4,,,1,8192,FP8-CS,pretrain,1611,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", csv, strlen(csv), &d), PL_OK, dp);
  const char *want[] = {"vocab 128256 padded to 128512", "vocab 128256 unpadded",
                        "vocab 151936 unpadded"};
  for (int i = 0; i < 3; i++) {
    const struct pl_vrow *r = row_of(&v, 1 + i);
    CHECK(r != NULL && !r->skipped);
    if (r != NULL)
      CHECK_CONTAINS(r->assumed, want[i]);
  }
  pl_validation_free(&v);
}

static void test_moe_rows(void) {
  const char *csv =
      "source,model,layers,hidden,heads,kv_heads,seq_len,gpu,num_gpus,tp,pp,cp,ep,vp,sharding,"
      "recompute,micro_batch,global_batch,precision,Task,Tokens / sec / GPU,notes\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,Qwen3_235B_a22B,,,,,4096,"
      "DGX-GB200,256,1,8,1,32,3,,,1,8192,FP8-MX,pretrain,7280,"
      "MoE model; benchmarks force-balance tokens across experts\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,Nemotron_3_Super,,,,,8192,"
      "DGX-GB300,64,1,1,1,64,,,,1,512,MXFP8,pretrain,9856,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,LLAMA3_8B,,,,,8192,"
      "DGX-H100,8,1,1,1,,,,,1,128,FP8-CS,pretrain,14000,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md,GPT OSS 120B,,,,,4096,"
      "DGX-GB300,64,1,1,1,16,,,,4,1280,MXFP8,pretrain,20288[^gpt-oss-note],\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md,GPT OSS 120B,,,,,4096,"
      "DGX-GB300,64,1,1,1,16,,,,4,1280,MXFP8,pretrain,33024,\n";
  struct pl_validation v;
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", csv, strlen(csv), &d), PL_OK, dp);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL);
  if (r != NULL) {
    CHECK_NEAR_REL(r->measured, 8192.0 * 4096 / (7280.0 * 256), 1e-12);
    CHECK_EQ_INT(r->layout.dtype, PL_DTYPE_MXFP8);
    CHECK_EQ_INT(r->layout.fp8_recipe, PL_FP8_RECIPE_TENSOR);
    CHECK_EQ_INT(r->layout.ep, 32);
    CHECK(r->layout.account_embed_loss);
    /* the GB200 config's hybridep backend (source_bridge.c validate_bridge_layout) */
    CHECK_EQ_INT(r->layout.dispatch, PL_MOE_HYBRIDEP);
    CHECK_NEAR_REL(r->layout.moe_imbalance, 1.0, 0);
    CHECK_STR(r->gpu, "gb200");
    CHECK_CONTAINS(r->assumed, "qwen3-235b-a22b");
    CHECK_CONTAINS(r->assumed, "NVLink segment of 16 trays = 64 GPUs");
  }
  /* Nemotron 3 Super: the preset's latent MoE, and the recipe's two MTP runs
   * of the '*E' module (source_bridge.c) */
  r = row_of(&v, 2);
  CHECK(r != NULL && !r->skipped);
  if (r != NULL) {
    CHECK_STR(r->model, "nemotron-3-super");
    CHECK_EQ_INT(r->layout.mtp_layers, 2);
    CHECK_CONTAINS(r->assumed, "MTP: two runs of the repeated '*E' module");
  }
  /* "FP8-CS": Megatron-Bridge's current-scaling recipe */
  r = row_of(&v, 3);
  CHECK(r != NULL);
  if (r != NULL) {
    CHECK_EQ_INT(r->layout.dtype, PL_DTYPE_FP8);
    CHECK_EQ_INT(r->layout.fp8_recipe, PL_FP8_RECIPE_CURRENT);
  }
  /* a figure the table's footnote flags as a known regression is skipped; the
   * same row without the marker is predicted */
  r = row_of(&v, 4);
  CHECK(r != NULL && r->skipped);
  if (r != NULL)
    CHECK_CONTAINS(r->skipped_reason, "known performance regression");
  r = row_of(&v, 5);
  CHECK(r != NULL && !r->skipped);
  pl_validation_free(&v);
  /* the expert-parallel all-to-all overlap follows the section's release
   * (source_bridge_moe.c validate_bridge_ep_overlap): Qwen3-235B MXFP8 on 256 GB200 has it in
   * 26.08 (perf_recipes qwen/common.py), not in 26.02 (no workload config of
   * v0.3.x sets it); DeepSeek-V3 MXFP8 GB300 has it from 26.06 (v0.5.0) */
  const char *ver =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.08 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-GB200,256,1,8,1,32,3,,,1,8192,MXFP8,pretrain,7280,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-GB200,256,1,8,1,32,3,,,1,8192,MXFP8,pretrain,7280,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06.01 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-GB300,256,1,2,1,32,8,,,1,4096,MXFP8,pretrain,6288,\n"
      /* Qwen3-30B: v0.5.0 FP8_MX_V1 on GB300/GB200/B300 (26.06, 26.06.01) sets it, its
       * B200 config and v0.4.x (26.04.01) do not; H100 in 26.02 (v0.3.0) sets it, in
       * 26.02.01 (v0.3.1) not */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06.01 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-GB300,8,1,1,1,8,,,,8,512,MXFP8,pretrain,44544,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-B300,8,1,1,1,8,,,,8,512,MXFP8,pretrain,40769,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-B200,8,1,1,1,8,,,,4,512,MXFP8,pretrain,27136,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04.01 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-GB300,8,1,1,1,8,,,,8,512,MXFP8,pretrain,31744,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-H100,16,1,2,1,8,12,,,1,1024,FP8,pretrain,5113,\n"
      /* 26.02.01 at v0.3.1's QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1 layout (pp 1
       * ep 16); the table's own pp 2 vp 12 ep 8 is row 16, skipped */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02.01 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-H100,16,1,1,1,16,,,,1,1024,FP8,pretrain,9058,\n"
      /* Qwen3-235B (ep10's audit): H100_V2 keeps the V1 configs' moe_a2a_overlap=True
       * (v0.3.0-v0.5.0: 26.02.01, 26.04.01), v0.5.0 GB300 FP8_MX_V2 (26.06) sets it */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04.01 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-H100,256,2,8,1,32,4,,,1,8192,FP8,pretrain,1712,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02.01 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-H100,256,2,8,1,32,4,,,1,8192,FP8,pretrain,1611,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-GB300,256,1,4,1,32,12,,,2,8192,MXFP8,pretrain,7280,\n"
      /* DeepSeek-V3 MXFP8 on GB200 in 26.06 (v0.5.0 GB200_FP8_MX_V1: no fp8 attention) */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-GB200,256,1,4,1,64,4,,,1,4096,MXFP8,pretrain,4969,\n"
      /* GPT-OSS 120B MXFP8 in 26.06: v0.5.0 GPT_OSS_120B_PRETRAIN_CONFIG_GB300_FP8_MX_V2
       * sets fp8_dot_product_attention, its B300 FP8_MX_V2 (= the BF16 config) not */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "GPT OSS 120B,,,,,4096,DGX-GB300,64,1,1,1,16,,,,4,1280,MXFP8,pretrain,33166,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "GPT OSS 120B,,,,,4096,DGX-B300,64,1,1,1,8,,,,4,1280,MXFP8,pretrain,18534,\n"
      /* Qwen3 rows whose stated layout is not their release's (source_bridge_qwen3.c):
       * 26.02.01 H100 at pp 2 vp 12 ep 8 (v0.3.1: pp 1 ep 16), 25.11 H100 at vp 24 mbs 2
       * (v0.2.x QWEN3_30B_A3B_H100_FP8_CS_BASE_CONFIG: vp 12 mbs 1) skipped; 25.11 at
       * the configuration's own layout read */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02.01 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-H100,16,1,2,1,8,12,,,1,1024,FP8,pretrain,9058,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md,25.11 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-H100,16,1,2,1,8,24,,,2,512,FP8-CS,pretrain,5275,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md,25.11 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-H100,16,1,2,1,8,12,,,1,512,FP8-CS,pretrain,5275,\n"
      /* Qwen3-30B in 26.02 (v0.3.0): the B200 config names no flex backend (alltoall), the
       * B300 config hybridep (source_bridge_moe.c validate_bridge_release_dispatch) */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md,26.02 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-B200,8,1,1,1,8,,,,1,512,MXFP8,pretrain,9691,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md,26.02 NeMo Container / x,"
      "Qwen3_30B_a3B,,,,,4096,DGX-B300,8,1,1,1,8,,,,8,512,MXFP8,pretrain,29521,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", ver, strlen(ver), &d), PL_OK, dp);
  /* MXFP8 attention by release (source_bridge_precision.c validate_bridge_fp8_attention):
   * v0.5.0 (26.06, 26.06.01) DeepSeek-V3 GB300 FP8_MX, Qwen3-235B GB300/GB200 FP8_MX_V2, Qwen3-30B
   * GB300/GB200/B300 FP8_MX_V1 and 26.08's perf_recipes set fp8_dot_product_attention;
   * 26.02-26.04.01 (no config of v0.3.x-v0.4.x), B200 Qwen3-30B, H100 and DeepSeek-V3
   * GB200 do not */
  const bool fp8_attn[] = {true,  false, true,  true, true,  false, false, false,
                           false, false, false, true, false, true,  false};
  for (int i = 0; i < 15; i++) {
    r = row_of(&v, 1 + i);
    CHECK(r != NULL && !r->skipped && r->layout.fp8_attention == fp8_attn[i]);
  }
  /* GPT-OSS 120B MXFP8 in 26.06 on GB300 and B300: the v0.5.0 configs' hybridep backend
   * (source_bridge_moe.c validate_bridge_gpt_oss_dispatch), read as hybridep as the other
   * models' hybridep configs */
  for (int i = 14; i <= 15; i++) {
    r = row_of(&v, i);
    CHECK(r != NULL && !r->skipped && r->layout.dispatch == PL_MOE_HYBRIDEP);
  }
  /* the LM head in MXFP8 where the release sets fp8_output_proj (sources.c
   * bridge_output_proj: v0.5.0 deepseek_v3_pretrain_config_{gb300,gb200} with mxfp8),
   * nemo's 16-bit head elsewhere (the Qwen3 rows) */
  const int head16[][2] = {{3, false}, {13, false}, {12, true}, {1, true}, {4, true}};
  for (size_t i = 0; i < sizeof head16 / sizeof head16[0]; i++) {
    r = row_of(&v, head16[i][0]);
    CHECK(r != NULL && r->layout.head_16bit == (bool)head16[i][1]);
  }
  r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped && r->layout.ep_comm_overlap);
  r = row_of(&v, 2);
  CHECK(r != NULL && !r->skipped && !r->layout.ep_comm_overlap);
  r = row_of(&v, 3);
  CHECK(r != NULL && r->layout.ep_comm_overlap);
  const bool qwen_overlap[] = {true, true, false, false, true, false};
  for (int i = 0; i < 6; i++) {
    r = row_of(&v, 4 + i);
    CHECK(r != NULL && !r->skipped && r->layout.ep_comm_overlap == qwen_overlap[i]);
  }
  for (int i = 10; i <= 12; i++) {
    r = row_of(&v, i);
    CHECK(r != NULL && !r->skipped && r->layout.ep_comm_overlap);
  }
  /* their dispatcher by release (source_bridge.c validate_bridge_layout): Qwen3-30B H100 26.02 (v0.3.0
   * QWEN3_30B_A3B_PRETRAIN_CONFIG_H100_FP8_CS_V1) deepep, 26.02.01 (v0.3.1) hybridep; the
   * Qwen3-235B H100 rows keep alltoall, GB300 hybridep (the NVL72 configs); Qwen3-30B B300 and
   * B200 in 26.06 hybridep (v0.5.0 QWEN3_30B_A3B_PRETRAIN_CONFIG_{B300,B200}_*_V1
   * moe_flex_dispatcher_backend "hybridep", qwen3_30b_a3b_pretrain_config_{b300,b200} "flex":
   * source_bridge_moe.c validate_bridge_release_dispatch) */
  const int qwen_dispatch[][2] = {{8, PL_MOE_DEEPEP},   {9, PL_MOE_HYBRIDEP}, {10, PL_MOE_ALLTOALL},
                                  {6, PL_MOE_HYBRIDEP}, {5, PL_MOE_HYBRIDEP}, {4, PL_MOE_HYBRIDEP},
                                  {19, PL_MOE_ALLTOALL}, {20, PL_MOE_HYBRIDEP}};
  for (size_t i = 0; i < sizeof qwen_dispatch / sizeof qwen_dispatch[0]; i++) {
    r = row_of(&v, qwen_dispatch[i][0]);
    CHECK(r != NULL && (int)r->layout.dispatch == qwen_dispatch[i][1]);
  }
  const bool qwen_layout_skipped[] = {true, true, false};
  for (int i = 0; i < 3; i++) {
    r = row_of(&v, 16 + i);
    CHECK(r != NULL && r->skipped == qwen_layout_skipped[i]);
    CHECK(r != NULL &&
          (strstr(r->skipped_reason, "is not the release's") != NULL) == qwen_layout_skipped[i]);
  }
  /* and their tp overlap is off on H100 (source_bridge_framework.c validate_bridge_overrides),
   * on elsewhere */
  r = row_of(&v, 10);
  CHECK(r != NULL && !r->layout.tp_comm_overlap);
  r = row_of(&v, 12);
  CHECK(r != NULL && r->layout.tp_comm_overlap);
  pl_validation_free(&v);
  /* Nemotron 3 Nano's dispatcher (source_bridge.c validate_bridge_layout): BASE_NEMOTRON_3_NANO_CONFIG
   * sets moe_flex_dispatcher_backend "hybridep" for every GPU in v0.3.1-v0.5.0 (26.02.01 ..
   * 26.06.01): DGX B300 and H100 hybridep, GB300 too (the NVL72 configs' hybridep); 26.02 (not a
   * release the table has Nano rows of) keeps alltoall */
  const char *nano =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "Nemotron_3_Nano,,,,,8192,DGX-B300,8,1,1,1,8,,,,4,512,MXFP8,pretrain,37316,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04 NeMo Container / x,"
      "Nemotron_3_Nano,,,,,8192,DGX-H100,16,1,1,1,8,,,,1,1024,FP8,pretrain,14507,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "Nemotron_3_Nano,,,,,8192,DGX-GB300,8,1,1,1,8,,,,4,512,MXFP8,pretrain,39749,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "Nemotron_3_Nano,,,,,8192,DGX-B300,8,1,1,1,8,,,,4,512,MXFP8,pretrain,37316,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", nano, strlen(nano), &d), PL_OK, dp);
  const int nano_dispatch[] = {PL_MOE_HYBRIDEP, PL_MOE_HYBRIDEP, PL_MOE_HYBRIDEP, PL_MOE_ALLTOALL};
  for (int i = 0; i < 4; i++) {
    r = row_of(&v, 1 + i);
    CHECK(r != NULL && !r->skipped && (int)r->layout.dispatch == nano_dispatch[i]);
  }
  pl_validation_free(&v);
  /* Qwen3-235B's dispatcher on DGX B300 (source_bridge_moe.c validate_bridge_release_dispatch):
   * v0.4.2 qwen3_235b_a22b_pretrain_config_b300 sets moe_token_dispatcher_type "flex" and
   * QWEN3_235B_A22B_PRETRAIN_CONFIG_B300_*_V1 the "hybridep" backend (26.04.01); v0.4.0 (26.04)
   * "alltoall"; the B200 function keeps "alltoall" in v0.4.2 */
  const char *q235 =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04.01 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-B300,256,1,8,1,8,,,,2,8192,MXFP8,pretrain,5934,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-B300,256,1,8,1,8,,,,2,8192,MXFP8,pretrain,4863,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04.01 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-B200,256,1,8,1,8,,,,1,8192,MXFP8,pretrain,3775,\n"
      /* DeepSeek-V3 on DGX B200 from 26.02 (v0.3.0 .. v0.5.0 DEEPSEEK_V3_PRETRAIN_CONFIG_B200_V1
       * "hybridep"): hybridep, so no Transformer Engine Fp8Padding (model/flops.c); 25.11 alltoall */
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-B200,256,1,16,1,8,,,,1,4096,MXFP8,pretrain,1100,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.11 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-B200,256,1,16,1,8,,,,1,2048,MXFP8,pretrain,1100,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", q235, strlen(q235), &d), PL_OK, dp);
  const int q235_dispatch[] = {PL_MOE_HYBRIDEP, PL_MOE_ALLTOALL, PL_MOE_ALLTOALL, PL_MOE_HYBRIDEP,
                               PL_MOE_ALLTOALL};
  for (int i = 0; i < 5; i++) {
    r = row_of(&v, 1 + i);
    CHECK(r != NULL && !r->skipped && (int)r->layout.dispatch == q235_dispatch[i]);
  }
  pl_validation_free(&v);
  /* 25.11's fp8_mx DeepSeek-V3 GB300/GB200 and Qwen3-235B B200 configs turn
   * overlap_param_gather off ("NaN grad norm", v0.2.2 deepseek_llm_pretrain.py,
   * qwen3_llm_pretrain.py; source_bridge_framework.c validate_bridge_overrides); BF16 and
   * 26.02 keep it */
  const char *pg =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.11 NeMo Container / x,"
      "DeepSeekV3 (w/o MTP),,,,,4096,DGX-GB200,256,1,8,1,32,4,,,1,4096,FP8-MX,pretrain,4018,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.11 NeMo Container / x,"
      "DeepSeekV3 (w/o MTP),,,,,4096,DGX-GB200,256,1,4,1,64,4,,,1,4096,BF16,pretrain,3139,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-GB200,256,1,4,1,64,4,,,1,4096,MXFP8,pretrain,4969,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", pg, strlen(pg), &d), PL_OK, dp);
  const bool pg_on[] = {false, true, true};
  for (int i = 0; i < 3; i++) {
    r = row_of(&v, 1 + i);
    CHECK(r != NULL && !r->skipped && r->layout.overlap_param_gather == pg_on[i]);
  }
  pl_validation_free(&v);
  /* 25.11's DGX-GB300 DeepSeek-V3 w/o MTP, pp 2 vp 4 (source_bridge.c bridge_deepseek):
   * Megatron-Bridge gaod/r0.2.0_test d19cb73c8's layout "Et*3|(t*4|)*14ttL" (3 + 14 x 4 + 2
   * = 61 blocks in 16 chunks, so vp 8 by Megatron-Core's rule); the same layout in 26.02
   * (with MTP) or on GB200 is not this config and stays skipped */
  const char *g3 =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.11 NeMo Container / x,"
      "DeepSeekV3 (w/o MTP),,,,,4096,DGX-GB300,256,1,2,1,32,4,,,1,4096,BF16,pretrain,3848,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-GB300,256,1,2,1,32,4,,,1,4096,BF16,pretrain,3848,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.11 NeMo Container / x,"
      "DeepSeekV3 (w/o MTP),,,,,4096,DGX-GB200,256,1,2,1,32,4,,,1,4096,BF16,pretrain,3848,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", g3, strlen(g3), &d), PL_OK, dp);
  r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped && r->layout.vp == 8 && r->layout.pp == 2 &&
        strcmp(r->layout.pipeline_layout, "Et*3|(t*4|)*14ttL") == 0 && r->layout.mtp_layers == 0);
  r = row_of(&v, 2);
  CHECK(r != NULL && r->skipped);
  r = row_of(&v, 3);
  CHECK(r != NULL && r->skipped);
  pl_validation_free(&v);
  /* tp overlap per release configuration (source_bridge_framework.c
   * validate_bridge_overrides): Llama 3.1
   * 405B NVFP4 off (v0.5.0 llama31_405b_pretrain_config_gb200: False if nvfp4), its
   * FP8 row on; Qwen3-235B H100 in 25.09 on (r0.1.0 run_script.py passes
   * CommOverlapConfig(tp_comm_overlap=True)) */
  const char *tpo =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "LLAMA3.1_405B,,,,,8192,DGX-GB200,256,4,16,1,,8,,,1,1536,NVFP4,pretrain,1166,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "LLAMA3.1_405B,,,,,8192,DGX-GB200,256,4,16,1,,8,,,1,1536,FP8,pretrain,1166,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,25.09 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-H100,256,2,8,1,32,4,,,1,8192,FP8,pretrain,1611,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", tpo, strlen(tpo), &d), PL_OK, dp);
  const bool tp_overlap[] = {false, true, true};
  for (int i = 0; i < 3; i++) {
    r = row_of(&v, 1 + i);
    CHECK(r != NULL && r->layout.tp_comm_overlap == tp_overlap[i]);
  }
  pl_validation_free(&v);
  /* recompute modules follow the section's release (source_bridge_runtime.c
   * validate_bridge_recompute):
   * DeepSeek-V3 MXFP8 GB300 none from 26.06 (v0.5.0 GB300_FP8_MX_V2 []), GB200
   * mlp in 26.04 (v0.4.0 GB200_V2), mla_up_proj in 26.02 (v0.3.0); GPT-OSS 120B
   * on B200 layernorm and moe_act, on B300 none; Qwen3 none */
  const char *rc =
      BRIDGE_HEADER
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.06 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-GB300,256,1,2,1,32,8,,,1,4096,MXFP8,pretrain,6338,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.04 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-GB200,256,1,4,1,64,4,,,1,4096,MXFP8,pretrain,4193,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "DeepSeekV3,,,,,4096,DGX-GB200,256,1,4,1,64,4,,,1,4096,MXFP8,pretrain,3955,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "GPT OSS 120B,,,,,4096,DGX-B200,64,1,1,1,64,,,,4,1280,BF16,pretrain,8047,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "GPT OSS 120B,,,,,4096,DGX-B300,64,1,1,1,64,,,,4,1280,BF16,pretrain,8047,\n"
      "NVIDIA-NeMo/Megatron-Bridge docs/performance-summary.md,26.02 NeMo Container / x,"
      "Qwen3_235B_a22B,,,,,4096,DGX-GB200,256,1,8,1,32,3,,,1,8192,MXFP8,pretrain,7280,\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "bridge", rc, strlen(rc), &d), PL_OK, dp);
  const struct {
    int row;
    enum pl_recompute r;
    uint32_t mods;
  } want[] = {{1, PL_RECOMPUTE_NONE, 0},
              {2, PL_RECOMPUTE_SELECTIVE, PL_RCM_MLP},
              {3, PL_RECOMPUTE_SELECTIVE, PL_RCM_MLA_UP_PROJ},
              {4, PL_RECOMPUTE_SELECTIVE, PL_RCM_LAYERNORM | PL_RCM_MOE_ACT},
              {5, PL_RECOMPUTE_NONE, 0},
              {6, PL_RECOMPUTE_NONE, 0}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    r = row_of(&v, want[i].row);
    CHECK(r != NULL);
    if (r == NULL)
      continue;
    CHECK_EQ_INT(r->layout.recompute, want[i].r);
    CHECK_EQ_INT((int64_t)pl_layout_recompute_modules(&r->layout), (int64_t)want[i].mods);
  }
  pl_validation_free(&v);
  const char *zoo =
      "source,model,layers,hidden,heads,kv_heads,seq_len,gpu,num_gpus,tp,pp,cp,ep,vp,sharding,"
      "recompute,micro_batch,global_batch,precision,Step time (sec),TFLOPS,moe_experts,moe_topk,"
      "moe_ffn_hidden,etp,moe_dispatcher,notes\n"
      "Megatron-Core MoE ModelZoo,Qwen3-235B-A22B,94,4096,64,4,4096,GB200 (NVL72),256,1,8,1,8,1,"
      ",none specified in the command,1,8192,BF16,,750,128,8,1536,,HybridEP,"
      "`DISPATCHER=hybridep SEGMENT=8 ... --moe-router-force-load-balancing`\n"
      "Megatron-Core MoE ModelZoo,Qwen3-235B-A22B,94,4096,64,4,4096,H100,256,2,8,1,32,4,,"
      "\"norm, act\",1,2048,BF16,19.7,,128,8,1536,1,DeepEP,\n"
      "Megatron-Core MoE ModelZoo,Qwen3-235B-A22B,94,4096,64,4,16384,H100,256,4,8,1,8,4,,"
      "selective (layernorm moe),1,256,bf16,,295 (forced balance) / 237 (dropless),128,8,1536,,"
      "DeepEP,\n"
      /* rows 4-7: the EP all-to-all overlap (source_mcore.c validate_zoo_layout): the readme row's
       * "+1f1b overlap" and A2A_OVERLAP=1 in the command turn it on, A2A_OVERLAP=0 not;
       * with pp > 1 and no vp Megatron-Core refuses it (row 7) */
      "Megatron-Core MoE ModelZoo,Qwen3-235B-A22B,94,4096,64,4,4096,H100,256,2,8,1,32,4,,"
      "\"norm, act\",1,2048,BF16,17.6,,128,8,1536,1,DeepEP,+1f1b overlap; code moe_dev\n"
      "Megatron-Core MoE ModelZoo,Qwen3-235B-A22B,94,4096,64,4,4096,GB300 (NVL72),64,1,1,1,64,1,"
      ",none specified in the command,1,8192,MXFP8,,1000,128,8,1536,,HybridEP,"
      "`DISPATCHER=hybridep SEGMENT=16 A2A_OVERLAP=1 TP=1 PP=1 EP=64 ...`\n"
      "Megatron-Core MoE ModelZoo,Qwen3-235B-A22B,94,4096,64,4,4096,GB200 (NVL72),256,1,8,1,8,1,"
      ",none specified in the command,1,8192,BF16,,750,128,8,1536,,HybridEP,"
      "`DISPATCHER=hybridep SEGMENT=2 A2A_OVERLAP=0 TP=1 PP=8 ...`\n"
      "Megatron-Core MoE ModelZoo,Qwen3-235B-A22B,94,4096,64,4,4096,GB200 (NVL72),256,1,8,1,8,1,"
      ",none specified in the command,1,8192,BF16,,750,128,8,1536,,HybridEP,"
      "`DISPATCHER=hybridep SEGMENT=2 A2A_OVERLAP=1 TP=1 PP=8 ...`\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "zoo", zoo, strlen(zoo), &d), PL_OK, dp);
  r = row_of(&v, 1);
  CHECK(r != NULL);
  if (r != NULL) {
    CHECK_EQ_INT(r->layout.dispatch, PL_MOE_HYBRIDEP); /* source_mcore.c validate_zoo_layout */
    CHECK_CONTAINS(r->assumed, "NVLink segment of 8 trays = 32 GPUs");
    CHECK_NEAR_REL(r->published, 750.0, 0);
  }
  r = row_of(&v, 2);
  CHECK(r != NULL && (r->skipped ? strstr(r->skipped_reason, "does not fit") != NULL : true));
  if (r != NULL && !r->skipped) {
    CHECK_NEAR_REL(r->measured, 19.7, 1e-12);
    CHECK(r->layout.account_embed_loss);
    CHECK_EQ_INT(r->layout.vp, 4);
    CHECK_EQ_INT((int64_t)r->layout.recompute_modules, PL_RCM_LAYERNORM | PL_RCM_MOE_ACT);
  }
  /* "selective (layernorm moe)": the whole MoE layer and the norms re-run */
  r = row_of(&v, 3);
  CHECK(r != NULL);
  if (r != NULL)
    CHECK_EQ_INT((int64_t)r->layout.recompute_modules, PL_RCM_LAYERNORM | PL_RCM_MOE);
  const bool zoo_overlap[] = {false, false, false, true, true, false, false};
  for (int i = 0; i < 7; i++) {
    r = row_of(&v, 1 + i);
    CHECK(r != NULL && r->layout.ep_comm_overlap == zoo_overlap[i]);
  }
  /* "+1f1b overlap" (row 4 here): that readme row's own run, --combined-1f1b
   * --combined-1f1b-recipe ep_a2a with no --delay-wgrad-compute (the readme's
   * commit 8017e11, examples/qwen3/run_235b.sh; session 29, epov29); A2A_OVERLAP=1
   * (row 5): sbatch_benchmarking.sh's --delay-wgrad-compute with the overlap */
  r = row_of(&v, 4);
  CHECK(r != NULL && r->layout.ep_comm_overlap && !r->layout.delay_wgrad);
  r = row_of(&v, 5);
  CHECK(r != NULL && r->layout.ep_comm_overlap && r->layout.delay_wgrad);
  r = row_of(&v, 7);
  CHECK(r != NULL && strstr(r->assumed, "ep all-to-all overlap off (A2A_OVERLAP=1") != NULL);
  pl_validation_free(&v);
  /* The readme's "### H100" table prints no command: its rows' runs are the
   * launch scripts published with them, each with --moe-router-force-load-balancing
   * (examples/qwen3/run_235b.sh @ 8017e11 for Code moe_dev(f3e6c5) and
   * main(1e057005); source_mcore.c zoo_h100_balance, session 29 zoofb29). Row 1:
   * that table and a known Code -> forced balance, imbalance 1; row 2: the same
   * Code under another table (no script named) -> the default router; row 3: the
   * H100 table with a Code no script is known for -> the default router. */
  const char *zoo_h100 =
      "source,table_or_section,model,layers,hidden,heads,kv_heads,seq_len,gpu,num_gpus,tp,pp,cp,"
      "ep,vp,sharding,recompute,micro_batch,global_batch,precision,Step time (sec),TFLOPS,"
      "moe_experts,moe_topk,moe_ffn_hidden,etp,moe_dispatcher,notes\n"
      "Megatron-Core MoE ModelZoo,section '### H100' table (line 11) row line 14,Qwen3-235B-A22B,"
      "94,4096,64,4,4096,H100,256,2,8,1,32,4,,\"norm, act\",1,2048,BF16,19.7,,128,8,1536,1,DeepEP,"
      "Megatron-LM code: moe_dev(f3e6c5); GA=128\n"
      "Megatron-Core MoE ModelZoo,section '### Other' table (line 11) row line 14,Qwen3-235B-A22B,"
      "94,4096,64,4,4096,H100,256,2,8,1,32,4,,\"norm, act\",1,2048,BF16,19.7,,128,8,1536,1,DeepEP,"
      "Megatron-LM code: moe_dev(f3e6c5); GA=128\n"
      "Megatron-Core MoE ModelZoo,section '### H100' table (line 11) row line 14,Qwen3-235B-A22B,"
      "94,4096,64,4,4096,H100,256,2,8,1,32,4,,\"norm, act\",1,2048,BF16,19.7,,128,8,1536,1,DeepEP,"
      "Megatron-LM code: main(0000000); GA=128\n";
  pl_validation_init(&v);
  CHECK_STATUS(pl_validation_add_csv(&v, "zoo", zoo_h100, strlen(zoo_h100), &d), PL_OK, dp);
  const bool zoo_balanced[] = {true, false, false};
  for (int i = 0; i < 3; i++) {
    r = row_of(&v, 1 + i);
    CHECK(r != NULL && r->layout.moe_force_balance == zoo_balanced[i]);
    if (r != NULL)
      CHECK_EQ_INT(strstr(r->assumed, "--moe-router-force-load-balancing in the row's command, "
                                      "examples/qwen3/run_235b.sh @ 8017e11") != NULL,
                   zoo_balanced[i]);
  }
  r = row_of(&v, 1);
  if (r != NULL)
    CHECK_NEAR_REL(r->layout.moe_imbalance, 1.0, 0);
  pl_validation_free(&v);
}

int main(void) {
  dp = &d;
  test_csv_basic();
  test_csv_errors();
  test_numbers();
  test_eq3();
  test_nemo_flops();
  test_nemo_mlperf_rows();
  test_mlperf_llama_rows();
  test_mlperf_llama8b_rows();
  test_megatron_flops();
  test_moe_rows();
  test_bridge_cudnn_913();
  test_bridge_vocab();
  test_rows();
  test_llmfoundry_row();
  test_fsdp_one_comm();
  test_bloom_row();
  test_bad_layout();
  test_summary();
  test_baseline();
  test_reports();
  test_scaling();
  return check_finish();
}
