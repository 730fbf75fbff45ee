/* test_framework.c: framework presets (data/frameworks/): every preset loads
 * and every behaviour in it names its source; applying a framework writes
 * only what it sets; the resolved framework reads the layout back; a zeroed
 * framework leaves a prediction unchanged (the default stays today's). */
#include <plateau/data.h>
#include <plateau/framework.h>
#include <plateau/predict.h>

#include <string.h>

#include "base/json.h"
#include "check.h"

/* Every behaviour of every embedded preset is {"value", "source"} with a
 * source of some length (repository, file, version). */
static void test_presets_have_sources(void) {
  size_t n = 0;
  for (size_t i = 0; pl_data_name("frameworks", i) != NULL; i++, n++) {
    const char *name = pl_data_name("frameworks", i);
    struct pl_framework fw;
    struct pl_diag d, *dp = &d;
    CHECK_STATUS(pl_framework_preset(name, &fw, &d), PL_OK, dp);
    CHECK_STR(fw.name, name);
    CHECK(strlen(fw.description) > 20);
    size_t len = 0;
    const char *text = pl_data_find("frameworks", name, &len);
    yajl_val root = NULL;
    CHECK_STATUS(base_json_parse(text, len, name, &root, &d), PL_OK, dp);
    yajl_val b = base_json_get(root, "behaviours");
    CHECK(b != NULL && YAJL_IS_OBJECT(b) && b->u.object.len > 0);
    for (size_t k = 0; b != NULL && k < b->u.object.len; k++) {
      yajl_val src = base_json_get(b->u.object.values[k], "source");
      const char *text_src = src != NULL && YAJL_IS_STRING(src) ? src->u.string : "";
      CHECK(strlen(text_src) > 20);
    }
    base_json_free(root);
  }
  /* the seven of issue 17, deepspeed-zero3-2021 (issue 18), session 16's versioned
   * presets fms-fsdp, fms-fsdp-2024-03, nemo-2024, nemo-25-11, and session 23's
   * fsdp2-study-2024 (the scaling study's own stack), session 25's torchtitan-2024-04 */
  CHECK_EQ_INT((int64_t)n, 14);
}

/* Unset behaviours leave the layout alone; set ones overwrite it, through
 * the layout's negative fields where it has them. */
static void test_apply(void) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.eager_attention = true;
  struct pl_framework fw;
  memset(&fw, 0, sizeof fw);
  pl_framework_apply(&fw, &l);
  CHECK(l.eager_attention);
  CHECK(!l.shard_set);
  fw.attention = PL_ATTENTION_TRITON;
  fw.sequence_parallel = PL_SETTING_OFF;
  fw.overlap_grad_reduce = PL_SETTING_OFF;
  fw.fsdp_prefetch = PL_SETTING_OFF;
  fw.grad_reduce_fp32 = PL_SETTING_OFF;
  fw.shard_set = true;
  fw.shard = PL_SHARD_ZERO1;
  pl_framework_apply(&fw, &l);
  CHECK(!l.eager_attention && l.attention_triton);
  CHECK(l.no_sp && l.grad_reduce_after_backward && l.gather_no_prefetch && l.grad_reduce_bf16);
  CHECK(l.shard_set && l.shard == PL_SHARD_ZERO1);
  /* a layout's explicit shard wins over the framework's */
  l.shard = PL_SHARD_ZERO3;
  pl_framework_apply(&fw, &l);
  CHECK(l.shard == PL_SHARD_ZERO3);
  struct pl_framework r;
  pl_framework_resolved(&fw, &l, &r);
  CHECK(r.attention == PL_ATTENTION_TRITON);
  CHECK(r.sequence_parallel == PL_SETTING_OFF && r.fused_kernels == PL_SETTING_ON);
  CHECK(r.overlap_grad_reduce == PL_SETTING_OFF && r.grad_reduce_fp32 == PL_SETTING_OFF);
}

/* Attention "te" is Transformer Engine's choice (get_attention_backend:
 * FusedAttention preferred on compute capability >= 9.0 when cuDNN supports
 * the shape): pl_layout_resolve runs cuDNN on dgx-h100 for Llama-2-7B (head
 * dim 128) and on dgx-b200, FlashAttention-2 on dgx-a100 (sm80), for
 * Mistral's sliding window and for DeepSeek-V3's MLA heads (192/128) on
 * Hopper (cuDNN-version dependent there); those MLA heads run cuDNN on
 * Blackwell (TE has no other fused kernel for them on sm100: layout.c
 * te_uses_cudnn); the step equals the one with the kernel named. */
/* One prediction with attention kernel a (PL_ATTENTION_TE: let the layout
 * resolve it): the kernel that ran, and the step time in *step_s. */
static enum pl_attention run_kernel(const char *model, const char *cluster, enum pl_attention a,
                                    double *step_s) {
  static struct pl_run run;
  static struct pl_prediction p;
  struct pl_diag d, *dp = &d;
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_load(model, &run.model, &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load(cluster, &run.cluster, &d), PL_OK, dp);
  run.layout.gpus = 8;
  run.layout.tp = 8;
  run.layout.seq = 4096;
  run.framework.attention = a;
  CHECK_STATUS(pl_predict(&run, &p, &d), PL_OK, dp);
  struct pl_framework r;
  pl_framework_resolved(&run.framework, &p.run.layout, &r);
  *step_s = p.step.step_time_s;
  return r.attention;
}

static enum pl_attention te_kernel(const char *model, const char *cluster, double *step_s) {
  return run_kernel(model, cluster, PL_ATTENTION_TE, step_s);
}

static double named_kernel(const char *model, const char *cluster, enum pl_attention a) {
  double step_s = 0;
  run_kernel(model, cluster, a, &step_s);
  return step_s;
}

static void test_te_attention(void) {
  double te = 0;
  CHECK(te_kernel("llama2-7b", "dgx-h100", &te) == PL_ATTENTION_CUDNN);
  CHECK(te == named_kernel("llama2-7b", "dgx-h100", PL_ATTENTION_CUDNN));
  /* cuDNN is faster than FlashAttention-2: at 4 heads per GPU and seq 4096
   * both run by shape (h100 attention.cudnn.shape and attention.shape, fitted
   * to attn_kernels.csv, which measures them there at 0.32 and 0.15 of peak
   * forward) */
  CHECK(te < named_kernel("llama2-7b", "dgx-h100", PL_ATTENTION_FLASH));
  CHECK(te_kernel("llama2-7b", "dgx-b200", &te) == PL_ATTENTION_CUDNN);
  CHECK(te_kernel("llama2-7b", "dgx-a100", &te) == PL_ATTENTION_FLASH);
  CHECK(te == named_kernel("llama2-7b", "dgx-a100", PL_ATTENTION_FLASH));
  /* a sliding window runs on cuDNN from 9.2 (layout.c te_uses_cudnn): the default
   * cuDNN is the latest */
  CHECK(te_kernel("mistral-7b", "dgx-h100", &te) == PL_ATTENTION_CUDNN);
  CHECK(te_kernel("deepseek-v3", "gb200-nvl72", &te) == PL_ATTENTION_CUDNN);
  CHECK(te_kernel("deepseek-v3", "dgx-b300", &te) == PL_ATTENTION_CUDNN);
  CHECK(te_kernel("deepseek-v3", "dgx-h100", &te) == PL_ATTENTION_FLASH);
  CHECK(strcmp(pl_attention_name(PL_ATTENTION_TE), "te") == 0);
  CHECK(strcmp(pl_attention_name(PL_ATTENTION_CUDNN), "cudnn") == 0);
  /* cudnn named on a GPU file without cuDNN figures is refused */
  static struct pl_run run;
  static struct pl_prediction p;
  struct pl_diag d;
  memset(&run, 0, sizeof run);
  CHECK(pl_model_load("llama2-7b", &run.model, &d) == PL_OK);
  CHECK(pl_cluster_load("dgx-a100", &run.cluster, &d) == PL_OK);
  run.layout.gpus = 8;
  run.framework.attention = PL_ATTENTION_CUDNN;
  CHECK(pl_predict(&run, &p, &d) == PL_ERR_LAYOUT);
  CHECK(strstr(d.msg, "cuDNN attention figures") != NULL);
}

/* No framework named = plateau's defaults: the same step to the bit as a
 * run that names a framework file setting every behaviour to its default. */
static void test_zero_is_default(void) {
  static struct pl_run run;
  static struct pl_prediction a, b;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_model_load("llama2-7b", &run.model, &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, dp);
  run.layout.gpus = 16;
  run.layout.tp = 2;
  CHECK_STATUS(pl_predict(&run, &a, &d), PL_OK, dp);
  run.framework.tp_comm_overlap = PL_SETTING_OFF;
  run.framework.overlap_grad_reduce = PL_SETTING_ON;
  run.framework.grad_reduce_fp32 = PL_SETTING_ON;
  run.framework.attention = PL_ATTENTION_FLASH;
  run.framework.fused_kernels = PL_SETTING_ON;
  run.framework.bucket_mb = 25; /* torch DDP bucket_cap_mb, the default */
  CHECK_STATUS(pl_predict(&run, &b, &d), PL_OK, dp);
  CHECK(a.step.step_time_s == b.step.step_time_s);
  CHECK(a.step.step_time_s > 0);
}

/* The bucket (docs/frameworks.md "Bucket size"), derived by hand: 25 MiB by
 * default; NeMo 1's (Apex) 100 MiB; NeMo 2's 128 x 1024 x 1024 = 134,217,728
 * parameters when dp > 1, x 2 B (bf16 gradients or parameters) = 268,435,456
 * B = 256 MiB, x 4 B (fp32 gradients) = 512 MiB, and one bucket of every
 * parameter at dp 1 or without overlap; Megatron-Core max(40e6, 1e6 dp cp)
 * parameters, times the element bytes; one bucket of every parameter
 * without overlap. */
static void test_bucket(void) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.dp = 8;
  l.cp = 1;
  CHECK(pl_layout_bucket_bytes(&l, 4, 1e9) == 25.0 * 1024 * 1024);
  struct pl_framework fw;
  struct pl_diag d;
  CHECK(pl_framework_preset("nemo-2024", &fw, &d) == PL_OK);
  pl_framework_apply(&fw, &l);
  CHECK(pl_layout_bucket_bytes(&l, 2, 1e9) == 100.0 * 1024 * 1024);
  CHECK(fw.bucket_params == 0); /* the file's bucket_mb replaces its base's bucket_params */
  CHECK(pl_framework_preset("nemo", &fw, &d) == PL_OK);
  CHECK(fw.bucket_params == 134217728.0 && fw.bucket_mb == 0);
  memset(&l, 0, sizeof l);
  l.dp = 8;
  l.cp = 1;
  pl_framework_apply(&fw, &l);
  CHECK(l.bucket_params == 134217728.0 && l.bucket_bytes == 0 && !l.bucket_dp_scaled);
  CHECK(pl_layout_bucket_bytes(&l, 2, 1e9) == 268435456.0);
  CHECK(pl_layout_bucket_bytes(&l, 4, 1e9) == 536870912.0);
  l.dp = 1;
  l.cp = 2; /* dp without cp is 1: bucket_size None, overlap off: one bucket */
  CHECK(pl_layout_bucket_bytes(&l, 2, 1e9) == 2e9);
  l.dp = 8;
  l.grad_reduce_after_backward = true; /* overlap_grad_reduce off: one bucket */
  CHECK(pl_layout_bucket_bytes(&l, 2, 1e9) == 2e9);
  CHECK(!pl_bucket_params_ok(0) && !pl_bucket_params_ok(1.5) && !pl_bucket_params_ok(2e12));
  CHECK(pl_bucket_params_ok(1) && pl_bucket_params_ok(1e12));
  const char *half = "{\"name\": \"x\", \"behaviours\": {\"bucket_params\": 1.5}}";
  CHECK(pl_framework_parse(half, strlen(half), "t", &fw, &d) == PL_ERR_PARSE);
  CHECK_CONTAINS(d.msg, "behaviour 'bucket_params' must be a whole number of parameters from 1 "
                        "to 1e12");
  const char *word = "{\"name\": \"x\", \"behaviours\": {\"bucket_params\": \"128M\"}}";
  CHECK(pl_framework_parse(word, strlen(word), "t", &fw, &d) == PL_ERR_PARSE);
  /* a file over nemo: its bucket_mb replaces nemo's bucket_params, and back */
  const char *mb = "{\"name\": \"x\", \"base\": \"nemo\", "
                   "\"behaviours\": {\"bucket_mb\": 50}}";
  CHECK(pl_framework_parse(mb, strlen(mb), "t", &fw, &d) == PL_OK);
  CHECK(fw.bucket_mb == 50 && fw.bucket_params == 0 && !fw.bucket_dp_scaled);
  const char *pa = "{\"name\": \"x\", \"base\": \"nemo-2024\", "
                   "\"behaviours\": {\"bucket_params\": 1000}}";
  CHECK(pl_framework_parse(pa, strlen(pa), "t", &fw, &d) == PL_OK);
  CHECK(fw.bucket_mb == 0 && fw.bucket_params == 1000);
  CHECK(pl_framework_preset("megatron-core", &fw, &d) == PL_OK);
  memset(&l, 0, sizeof l);
  l.dp = 8;
  l.cp = 1;
  pl_framework_apply(&fw, &l);
  CHECK(l.bucket_dp_scaled && l.grad_reduce_after_backward);
  CHECK(pl_layout_bucket_bytes(&l, 4, 7e9) == 7e9 * 4); /* overlap off: one bucket */
  l.grad_reduce_after_backward = false;
  CHECK(pl_layout_bucket_bytes(&l, 4, 7e9) == 40e6 * 4); /* 1e6 * 8 < 40e6 */
  l.dp = 121;
  l.cp = 4; /* dp with context parallelism: 484 */
  CHECK(pl_layout_bucket_bytes(&l, 2, 7e9) == 484e6 * 2);
}

/* Transformer Engine's sequence-parallel gathers move the quantized tensor
 * (layout_bytes.c pl_layout_tp_gather_bytes, TE v2.12 distributed.py): per-tensor
 * FP8 1 B in every gather (rowwise only); MXFP8 1 + 1/32 = 1.03125 B per copy
 * (E8M0 scale per 32), FP8 blocks 1 + 4/128 = 1.03125 B (FP32 scale per 128),
 * NVFP4 0.5 + 1/16 = 0.5625 B; the grad_output gathers both copies; torchao's
 * tensorwise Float8 TP styles 1 B in each gather. */
static void test_tp_gather_bytes(void) {
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  l.dtype = PL_DTYPE_BF16;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 2.0);
  l.dtype = PL_DTYPE_FP8;
  l.fp8_recipe = PL_FP8_RECIPE_DELAYED;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_FWD) == 1.0);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 1.0);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_REGATHER) == 1.0);
  l.fp8_recipe = PL_FP8_RECIPE_CURRENT;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 1.0);
  l.fp8_recipe = PL_FP8_RECIPE_BLOCKWISE;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_FWD) == 1.03125);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 2.0625);
  /* torchao's Float8 TP styles (torchtitan): the float8 tensor, 1 B, in the
   * forward input gather and the gradient gather alike */
  l.fp8_recipe = PL_FP8_RECIPE_TENSORWISE;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_FWD) == 1.0);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 1.0);
  /* torchao's rowwise recipe has no Float8 TP styles ("all distributed
   * communication is done in high precision", torchtitan docs/float8.md):
   * 2 B in every gather */
  l.fp8_recipe = PL_FP8_RECIPE_ROWWISE;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_FWD) == 2.0);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 2.0);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_REGATHER) == 2.0);
  l.dtype = PL_DTYPE_MXFP8;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_REGATHER) == 1.03125);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 2.0625);
  l.dtype = PL_DTYPE_NVFP4;
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_FWD) == 0.5625);
  CHECK(pl_layout_tp_gather_bytes(&l, PL_TP_GATHER_GRAD) == 1.125);
}

/* sequence_parallel "moe" (megatron-core.json; Megatron-Core's MoELayer.forward
 * refuses MoE training with tp > 1 without sequence parallelism): off for a
 * dense model, on for an MoE model with tp > 1, and an explicit setting wins. */
static double moe_sp_step(const char *model, struct pl_framework *fw, bool *sp_on) {
  static struct pl_run run;
  static struct pl_prediction p;
  struct pl_diag d, *dp = &d;
  memset(&run, 0, sizeof run);
  CHECK_STATUS(pl_model_load(model, &run.model, &d), PL_OK, dp);
  CHECK_STATUS(pl_cluster_load("dgx-h100", &run.cluster, &d), PL_OK, dp);
  run.layout.gpus = 64;
  run.layout.tp = 2;
  run.layout.ep = strcmp(model, "mixtral-8x7b") == 0 ? 8 : 1;
  run.layout.gbs = 256;
  run.layout.mbs = 1;
  run.framework = *fw;
  CHECK_STATUS(pl_predict(&run, &p, &d), PL_OK, dp);
  *sp_on = p.run.layout.sp;
  return p.step.step_time_s;
}

static void test_sp_moe(void) {
  struct pl_framework fw, on;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_framework_preset("megatron-core", &fw, &d), PL_OK, dp);
  CHECK(fw.sequence_parallel == PL_SETTING_UNSET && fw.sequence_parallel_moe);
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  pl_framework_apply(&fw, &l);
  CHECK(l.no_sp && l.sp_moe);
  bool sp = true;
  moe_sp_step("llama2-7b", &fw, &sp);
  CHECK(!sp); /* dense: Megatron-Core's opt-in default, off */
  double moe_s = moe_sp_step("mixtral-8x7b", &fw, &sp);
  CHECK(sp);
  on = fw;
  on.sequence_parallel = PL_SETTING_ON;
  CHECK(moe_sp_step("mixtral-8x7b", &on, &sp) == moe_s && sp); /* the same run */
  /* an explicit off keeps the layout's refusal */
  on.sequence_parallel = PL_SETTING_OFF;
  pl_framework_apply(&on, &l);
  CHECK(l.no_sp && !l.sp_moe);
  const char *bad = "{\"name\": \"x\", \"behaviours\": {\"sequence_parallel\": \"dense\"}}";
  CHECK(pl_framework_parse(bad, strlen(bad), "t", &fw, &d) == PL_ERR_PARSE);
  CHECK_CONTAINS(d.msg, "behaviour 'sequence_parallel' must be true, false or \"moe\"");
}

/* HybridEP's SM count: the preset's (nemo: 32, the Bridge perf scripts' common
 * override) fills a layout that gives none; a count the run gives itself (a
 * validation loader's reading of the row's 26.08 recipe: 16) is kept, and the
 * resolved framework reports it; Megatron-Core's 16 when neither gives one. */
static void test_hybridep_sms(void) {
  struct pl_framework fw, out;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_framework_preset("nemo", &fw, &d), PL_OK, dp);
  CHECK(fw.hybridep_sms_set && fw.hybridep_sms == 32);
  struct pl_layout l;
  memset(&l, 0, sizeof l);
  pl_framework_apply(&fw, &l);
  CHECK(l.hybridep_sms == 32);
  memset(&l, 0, sizeof l);
  l.hybridep_sms = 16;
  pl_framework_apply(&fw, &l);
  CHECK(l.hybridep_sms == 16);
  pl_framework_resolved(&fw, &l, &out);
  CHECK(out.hybridep_sms_set && out.hybridep_sms == 16);
  CHECK_STATUS(pl_framework_preset("megatron-core", &fw, &d), PL_OK, dp);
  memset(&l, 0, sizeof l);
  pl_framework_apply(&fw, &l);
  pl_framework_resolved(&fw, &l, &out);
  CHECK(out.hybridep_sms == 16);
}

/* A file's "base": the base preset's behaviours, then the file's own; name and
 * description are the file's. nemo-2024 = nemo with FlashAttention-2 (the
 * launcher's NVTE_FUSED_ATTN=0), cuDNN 9.1 (90100) where a recipe turns it
 * back on, Megatron's unfused cross-entropy and Apex's 100 MiB buckets;
 * fms-fsdp-2024-03 -> fms-fsdp -> pytorch-fsdp, two levels. */
static void test_base(void) {
  struct pl_framework fw, nemo;
  struct pl_diag d, *dp = &d;
  CHECK_STATUS(pl_framework_preset("nemo", &nemo, &d), PL_OK, dp);
  CHECK_STATUS(pl_framework_preset("nemo-2024", &fw, &d), PL_OK, dp);
  CHECK_STR(fw.name, "nemo-2024");
  CHECK_STR(fw.family, "nemo");
  CHECK_STR(nemo.family, "nemo");
  CHECK(fw.cudnn_version_set && fw.cudnn_version == 90100);
  CHECK(!nemo.cudnn_version_set);
  /* everything else is nemo's */
  CHECK(fw.megatron_xent == PL_SETTING_ON && nemo.megatron_xent == PL_SETTING_UNSET);
  fw.megatron_xent = nemo.megatron_xent;
  /* Apex's 100 MiB buckets (NeMo 1.x) instead of NeMo 2's 128 Mi parameters */
  CHECK(fw.bucket_mb == 100 && fw.bucket_params == 0 && nemo.bucket_params == 134217728.0);
  fw.bucket_mb = nemo.bucket_mb;
  fw.bucket_params = nemo.bucket_params;
  /* FlashAttention-2: the 24.x launcher's NVTE_FUSED_ATTN=0 (session 28, helper era28) */
  CHECK(fw.attention == PL_ATTENTION_FLASH && nemo.attention == PL_ATTENTION_TE);
  fw.attention = nemo.attention;
  /* Apex's optimizer holds the gradients: no Megatron-Core DDP buffer passes (session 28) */
  CHECK(fw.grad_buffer_passes == PL_SETTING_OFF && nemo.grad_buffer_passes == PL_SETTING_ON);
  fw.grad_buffer_passes = nemo.grad_buffer_passes;
  fw.cudnn_version_set = nemo.cudnn_version_set;
  fw.cudnn_version = nemo.cudnn_version;
  memcpy(fw.name, nemo.name, sizeof fw.name);
  memcpy(fw.description, nemo.description, sizeof fw.description);
  CHECK(memcmp(&fw, &nemo, sizeof fw) == 0);
  CHECK_STATUS(pl_framework_preset("fms-fsdp-2024-03", &fw, &d), PL_OK, dp);
  CHECK(fw.fused_kernels == PL_SETTING_OFF);     /* its own */
  CHECK(fw.grad_reduce_fp32 == PL_SETTING_OFF);  /* fms-fsdp's */
  CHECK(fw.fsdp_prefetch == PL_SETTING_ON);      /* pytorch-fsdp's */
  CHECK(fw.shard_set && fw.shard == PL_SHARD_ZERO3);
  CHECK_STR(fw.family, "pytorch-fsdp");
  char fam[32];
  CHECK_STR(pl_framework_family("nemo-25-11", fam, sizeof fam), "nemo");
  CHECK_STR(pl_framework_family("megatron-lm", fam, sizeof fam), "megatron-lm");
  CHECK_STR(pl_framework_family("file", fam, sizeof fam), "file"); /* no preset: the name */
  const char *bad = "{\"name\": \"x\", \"base\": \"nope\", \"behaviours\": {}}";
  CHECK(pl_framework_parse(bad, strlen(bad), "t", &fw, &d) == PL_ERR_PARSE);
  CHECK_CONTAINS(d.msg, "t: base 'nope' is not a framework preset");
  const char *num = "{\"name\": \"x\", \"base\": 3}";
  CHECK(pl_framework_parse(num, strlen(num), "t", &fw, &d) != PL_OK);
}

static void test_errors(void) {
  struct pl_framework fw;
  struct pl_diag d;
  CHECK(pl_framework_preset("nope", &fw, &d) == PL_ERR_UNKNOWN);
  CHECK_CONTAINS(d.msg, "unknown framework 'nope' (presets: deepspeed-zero3-2021, deepspeed,");
  CHECK(pl_framework_load("", &fw, &d) == PL_ERR_MISSING);
  CHECK(pl_framework_load("/nonexistent/fw.json", &fw, &d) != PL_OK);
  enum pl_setting s;
  CHECK(pl_setting_parse("yes", &s, &d) == PL_ERR_PARSE);
  CHECK(pl_setting_parse("on", &s, &d) == PL_OK && s == PL_SETTING_ON);
}

int main(void) {
  test_presets_have_sources();
  test_apply();
  test_zero_is_default();
  test_te_attention();
  test_bucket();
  test_tp_gather_bytes();
  test_errors();
  test_sp_moe();
  test_base();
  test_hybridep_sms();
  return check_finish();
}
