/* test_validate_generic.c: rows of a user's own runs (src/validate/source_generic.c;
 * data/validation/README.md "Your own runs"): a row whose source is no built-in
 * source is read by the generic rules, its metric converted by the documented
 * formula, every refusal naming the column to add. Hand-derived figures in the
 * comments. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plateau/plateau.h>

#include "validate/validate_int.h"
#include "check.h"

static struct pl_diag d;
static struct pl_diag *dp;

#define HEADER                                                                                     \
  "source,model,layers,hidden,heads,kv_heads,ffn_hidden,seq_len,vocab,gpu,num_gpus,tp,pp,"          \
  "micro_batch,global_batch,sharding,recompute,precision,framework,architecture,cluster,"           \
  "framework_flags,hardware_flags,step_time_s,tokens_per_s_per_gpu,tokens_per_s,mfu,"              \
  "tflops_per_gpu\n"
/* llama2-7b on 64 A100 80GB, torchtitan, FSDP, micro-batch 2, global batch 128 */
#define RUN "my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,fsdp,full,bf16,torchtitan,,,"

static const struct pl_vrow *row_of(const struct pl_validation *v, int64_t r) {
  for (size_t i = 0; i < v->n_rows; i++)
    if (v->rows[i].row == r)
      return &v->rows[i];
  return NULL;
}

static void load(struct pl_validation *v, const char *csv) {
  pl_validation_init(v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_validation_add_csv(v, "own", csv, strlen(csv), &d), PL_OK, dp);
}

/* The five metric columns, each converted as documented. */
static void test_metrics(void) {
  const char *csv = HEADER
      /* 1 */ RUN ",,2.5,,,,\n"
      /* 2: tokens per step 128 x 4096 = 524288; / (2000 x 64 = 128000) = 4.096 s */
      RUN ",,,2000,,,\n"
      /* 3: 524288 / 131072 = 4 s */
      RUN ",,,,131072,,\n"
      /* 4, 5, 6: 50 %, 0.5 and 156 TFLOP/s per GPU (0.5 x the A100's 312) are one figure */
      RUN ",,,,,50%,\n"
      RUN ",,,,,0.5,\n"
      RUN ",,,,,,156\n"
      /* 7: the first non-empty column wins: step_time_s */
      RUN ",,3,2000,,,\n";
  struct pl_validation v;
  load(&v, csv);
  CHECK_EQ_INT(v.n_rows, 7);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  if (r == NULL || r->skipped) {
    pl_validation_free(&v);
    return;
  }
  CHECK_STR(r->source, "generic");
  CHECK_STR(r->framework, "torchtitan");
  CHECK_STR(r->gpu, "a100-80g");
  CHECK_NEAR_REL(r->measured, 2.5, 0);
  CHECK(!r->published_rate);
  CHECK_EQ_INT(r->layout.shard, PL_SHARD_ZERO3); /* "fsdp" */
  CHECK_EQ_INT(r->layout.recompute, PL_RECOMPUTE_FULL);
  CHECK_CONTAINS(r->assumed, "model: preset llama2-7b");
  r = row_of(&v, 2);
  CHECK_NEAR_REL(r ? r->measured : 0, 4.096, 1e-15);
  CHECK(r != NULL && r->published_rate);
  r = row_of(&v, 3);
  CHECK_NEAR_REL(r ? r->measured : 0, 4.0, 1e-15);
  /* PaLM's count of llama2-7b (no vocabulary padding under torchtitan) */
  struct pl_model m;
  pl_diag_clear(&d);
  CHECK_STATUS(pl_model_load("llama2-7b", &m, &d), PL_OK, dp);
  m.seq_len = 4096;
  double want = pl_flops_palm_per_token(&m, 4096) * 524288.0 / (0.5 * 64 * 312e12);
  for (int64_t i = 4; i <= 6; i++) {
    r = row_of(&v, i);
    CHECK(r != NULL && !r->skipped);
    CHECK_NEAR_REL(r ? r->measured : 0, want, 1e-12);
  }
  r = row_of(&v, 4);
  CHECK_CONTAINS(r ? r->metric : NULL, "percent");
  r = row_of(&v, 5);
  CHECK_CONTAINS(r ? r->metric : NULL, "fraction");
  r = row_of(&v, 7);
  CHECK_NEAR_REL(r ? r->measured : 0, 3.0, 0);
  pl_validation_free(&v);
}

/* A model by its dimensions with a stated family predicts as the preset of
 * the same dimensions and family; Megatron frameworks pad the vocabulary. */
static void test_model_rows(void) {
  const char *csv = HEADER
      "my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,none,bf16,torchtitan,,,,,2.5,,,,\n"
      "my lab,my 7b,32,4096,32,32,11008,4096,32000,A100 80GB,64,1,1,2,128,,none,bf16,torchtitan,"
      "llama,,,,2.5,,,,\n"
      /* 3: "Llama 3.1 8B" is the llama3-8b preset; a megatron framework pads 128256 to a
       * multiple of 128 x tp 8 = 1024: 126 x 1024 = 129024 */
      "my lab,Llama 3.1 8B,,,,,,8192,,H100,8,8,1,1,8,,,,Megatron-Core,,,,,1,,,,\n"
      /* 4: 50257 -> 50304 at tp 1 (393 x 128) */
      "my lab,gpt small,12,768,12,,,1024,50257,H100,8,1,1,1,8,,,,mcore,gpt,,,,1,,,,\n";
  struct pl_validation v;
  load(&v, csv);
  const struct pl_vrow *a = row_of(&v, 1), *b = row_of(&v, 2);
  CHECK(a != NULL && !a->skipped && b != NULL && !b->skipped);
  if (a != NULL && b != NULL)
    CHECK_NEAR_REL(b->predicted, a->predicted, 1e-12);
  const struct pl_vrow *r = row_of(&v, 3);
  CHECK(r != NULL && !r->skipped);
  CHECK_CONTAINS(r ? r->assumed : NULL, "model: preset llama3-8b");
  CHECK_CONTAINS(r ? r->assumed : NULL, "framework 'Megatron-Core' = preset megatron-core");
  CHECK_CONTAINS(r ? r->assumed : NULL, "vocab 128256 padded to 129024");
  r = row_of(&v, 4);
  CHECK(r != NULL && !r->skipped);
  CHECK_CONTAINS(r ? r->assumed : NULL, "vocab 50257 padded to 50304");
  CHECK_CONTAINS(r ? r->architecture : NULL, "GELU MLP, learned positions");
  CHECK_STR(r ? r->framework : NULL, "megatron-core");
  pl_validation_free(&v);
}

/* Every refusal names what to add; none crashes. */
static void test_refusals(void) {
  static const struct {
    const char *row, *why;
  } cases[] = {
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,,,,,,2.5,,,,",
       "column 'framework' is empty"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,pytorch,,,,,2.5,,,,",
       "framework 'pytorch' is no preset (plateau list frameworks; did you mean 'pytorch-fsdp'?)"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,,,,,,,",
       "no measured figure: fill one of the columns step_time_s"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,,,fast,,,,",
       "column 'step_time_s': 'fast' is not a positive number"},
      {"my lab,foo,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,,,2.5,,,,",
       "model 'foo' is no preset (plateau list models): name one in column 'model', or fill"},
      {"my lab,foo,4,256,4,,,4096,32000,A100 80GB,64,1,1,2,128,,,,nemo,,,,,2.5,,,,",
       "add a column 'architecture' = gpt or llama"},
      {"my lab,foo,4,256,4,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,gpt,,,,2.5,,,,",
       "column 'vocab' is empty"},
      {"my lab,foo,4,256,4,,,4096,32000,A100 80GB,64,1,1,2,128,,,,nemo,llama,,,,2.5,,,,",
       "column 'ffn_hidden' is empty"},
      {"my lab,llama2-7b,40,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,,,2.5,,,,",
       "column 'layers' = 40 but the preset has 32"},
      {"my lab,llama2-7b,,,,,,,,A100 80GB,64,1,1,2,128,,,,nemo,,,,,2.5,,,,",
       "column 'seq_len' is empty: add the sequence length"},
      {"my lab,llama2-7b,,,,,,4096,,,64,1,1,2,128,,,,nemo,,,,,2.5,,,,", "column 'gpu' is empty"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,x,1,2,128,,,,nemo,,,,,2.5,,,,",
       "column 'tp': 'x' is not a positive integer"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,hsdp,,,nemo,,,,,2.5,,,,",
       "sharding 'hsdp' not understood: write ddp, zero1, zero2, zero3 or fsdp"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,some,,nemo,,,,,2.5,,,,",
       "recompute 'some' not understood: write none, selective, full or ops"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,fp32,nemo,,,,,2.5,,,,",
       "precision 'fp32' not understood"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,dgx-h100,,,2.5,,,,",
       "cluster 'dgx-h100' does not hold the gpu column's 'A100 80GB' (a100-80g)"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,dgx-a1000,,,2.5,,,,",
       "cluster 'dgx-a1000' is no preset"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,--bogus on,,2.5,,,,",
       "column 'framework_flags': '--bogus' is no flag it takes"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,--framework nemo,,2.5,,,,",
       "column 'framework_flags': '--framework' is no flag it takes"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,--kernels,,2.5,,,,",
       "column 'framework_flags': the last flag has no value"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,--kernels sometimes,,2.5,,,,",
       "column 'framework_flags': --kernels"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,,--power-cap '500,2.5,,,,",
       "column 'hardware_flags': a quote is not closed"},
      {"my lab,llama2-7b,,,,,,4096,,A100 80GB,64,1,1,2,128,,,,nemo,,,,--power-cap lots,2.5,,,,",
       "column 'hardware_flags': --power-cap"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char csv[1024];
    snprintf(csv, sizeof csv, "%s%s\n", HEADER, cases[i].row);
    struct pl_validation v;
    load(&v, csv);
    const struct pl_vrow *r = row_of(&v, 1);
    CHECK(r != NULL && r->skipped);
    CHECK_CONTAINS(r ? r->skipped_reason : NULL, cases[i].why);
    pl_validation_free(&v);
  }
}

/* The MoE columns: qwen3-30b-a3b on 8 H100 with ep 8; a bad imbalance or dispatcher is
 * skipped with the column named. */
static void test_moe_columns(void) {
  const char *csv =
      "source,model,layers,hidden,heads,seq_len,gpu,num_gpus,tp,pp,ep,micro_batch,global_batch,"
      "recompute,framework,moe_imbalance,moe_dispatch,step_time_s\n"
      "my lab,qwen3-30b-a3b,,,,4096,H100,8,1,1,8,1,8,full,nemo,1,allgather,1\n"
      "my lab,qwen3-30b-a3b,,,,4096,H100,8,1,1,8,1,8,full,nemo,0.5,,1\n"
      "my lab,qwen3-30b-a3b,,,,4096,H100,8,1,1,8,1,8,full,nemo,,ring,1\n";
  struct pl_validation v;
  load(&v, csv);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  CHECK_NEAR_REL(r ? r->layout.moe_imbalance : 0, 1.0, 0);
  CHECK(r != NULL && r->layout.dispatch == PL_MOE_ALLGATHER);
  CHECK_EQ_INT(r ? r->layout.ep : 0, 8);
  r = row_of(&v, 2);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "column 'moe_imbalance': '0.5' is not a number >= 1");
  r = row_of(&v, 3);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "column 'moe_dispatch': 'ring' is none of");
  pl_validation_free(&v);
}

/* shard_group: hybrid sharding (HSDP) over groups of 8 of the 64 data-parallel GPUs. */
static void test_shard_group(void) {
  const char *csv =
      "source,model,layers,hidden,heads,seq_len,gpu,num_gpus,tp,pp,micro_batch,global_batch,"
      "sharding,shard_group,framework,step_time_s\n"
      "my lab,llama2-7b,,,,4096,A100 80GB,64,1,1,2,128,fsdp,8,pytorch-fsdp,5\n"
      "my lab,llama2-7b,,,,4096,A100 80GB,64,1,1,2,128,fsdp,eight,pytorch-fsdp,1\n";
  struct pl_validation v;
  load(&v, csv);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK(r != NULL && !r->skipped);
  CHECK_EQ_INT(r ? r->layout.shard_group : 0, 8);
  r = row_of(&v, 2);
  CHECK_CONTAINS(r ? r->skipped_reason : NULL, "column 'shard_group': 'eight' is not a positive");
  pl_validation_free(&v);
}

/* vocab_padding: llama3-70b (vocabulary 128256) on nemo at tp 4. Empty = Megatron's
 * 128 x tp = 512: 128256 / 512 = 250.5 -> 251 x 512 = 128512; none = 128256 as stated;
 * 256 = --make-vocab-size-divisible-by 256: 1024, 128256 / 1024 = 125.25 -> 126 x 1024 =
 * 129024; a word or zero is skipped naming the column. */
static void test_vocab_padding(void) {
  const char *csv =
      "source,model,layers,hidden,heads,seq_len,gpu,num_gpus,tp,pp,micro_batch,global_batch,"
      "framework,vocab_padding,step_time_s\n"
      "my lab,llama3-70b,,,,8192,H100,64,4,4,1,64,nemo,,10\n"
      "my lab,llama3-70b,,,,8192,H100,64,4,4,1,64,nemo,None,10\n"
      "my lab,llama3-70b,,,,8192,H100,64,4,4,1,64,nemo,256,10\n"
      "my lab,llama3-70b,,,,8192,H100,64,4,4,1,64,nemo,auto,10\n"
      "my lab,llama3-70b,,,,8192,H100,64,4,4,1,64,nemo,0,10\n";
  struct pl_validation v;
  load(&v, csv);
  /* the command holds the model: as JSON where the vocabulary departs from the preset's */
  const char *want[] = {"\"vocab\":128512", "--model llama3-70b ", "\"vocab\":129024"};
  for (int i = 0; i < 3; i++) {
    const struct pl_vrow *r = row_of(&v, 1 + i);
    CHECK(r != NULL && !r->skipped);
    CHECK_CONTAINS(r ? r->command : NULL, want[i]);
  }
  const struct pl_vrow *r = row_of(&v, 2);
  CHECK_CONTAINS(r ? r->assumed : NULL, "vocab as the model states it, unpadded");
  for (int i = 4; i <= 5; i++) {
    r = row_of(&v, i);
    CHECK_CONTAINS(r ? r->skipped_reason : NULL,
                   "column 'vocab_padding': '"); /* names the column and the cell */
    CHECK_CONTAINS(r ? r->skipped_reason : NULL, "is neither none nor a whole number");
  }
  pl_validation_free(&v);
}

/* A built-in source's row never takes the generic rules, even with the
 * generic columns; validate --framework stands for an empty framework column. */
static void test_builtin_and_override(void) {
  const char *csv =
      "source,model,layers,hidden,heads,seq_len,vocab,gpu,num_gpus,tp,pp,micro_batch,"
      "global_batch,recompute,framework,step_time_s,Iteration Time (seconds)\n"
      "\"Korthikanti et al., x\",22B,48,6144,64,2048,51200,A100 80GB,8,8,1,4,4,full,nemo,1,1.42\n"
      "my lab,llama2-7b,,,,4096,,A100 80GB,64,1,1,2,128,full,,2.5,\n";
  struct pl_validation v;
  load(&v, csv);
  const struct pl_vrow *r = row_of(&v, 1);
  CHECK_STR(r ? r->source : NULL, "korthikanti");
  CHECK_NEAR_REL(r ? r->measured : 0, 1.42, 0);
  r = row_of(&v, 2);
  CHECK(r != NULL && r->skipped);
  pl_validation_free(&v);
  pl_validation_init(&v);
  pl_diag_clear(&d);
  CHECK_STATUS(pl_framework_preset("pytorch-fsdp", &v.framework, &d), PL_OK, dp);
  CHECK_STATUS(pl_validation_add_csv(&v, "own", csv, strlen(csv), &d), PL_OK, dp);
  r = row_of(&v, 2);
  CHECK(r != NULL && !r->skipped);
  CHECK_STR(r ? r->framework : NULL, "pytorch-fsdp");
  CHECK_CONTAINS(r ? r->assumed : NULL, "framework: --framework pytorch-fsdp");
  pl_validation_free(&v);
}

int main(void) {
  dp = &d;
  test_metrics();
  test_model_rows();
  test_refusals();
  test_moe_columns();
  test_shard_group();
  test_vocab_padding();
  test_builtin_and_override();
  return check_finish();
}
