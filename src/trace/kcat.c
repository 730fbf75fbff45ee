/* kcat.c: the category of a GPU event (docs/trace.md 3.5): memcpy and
 * memset by the event's kind, communication kernels by their collective,
 * compute kernels by the words of their name.
 *
 * The words are the kernels' own names as the libraries that launch them
 * write them; each list says where its words come from. The first list
 * that matches wins (attention, gemm, reduction, elementwise), and a kernel
 * named otherwise is other_compute rather than guessed. A word can carry a
 * longer word it must not be the start of, where a type or a helper holds
 * the word but says nothing of the kernel: "conv" is not "convert" (vLLM's
 * _typeConvert<T> in the template arguments of fused_add_rms_norm_kernel,
 * cuDNN's convert_dq_to_16bits), "cutlass" is not "cutlass::" (the
 * cutlass::bfloat16_t argument of TensorRT-LLM's MoE finalizeKernel; a
 * CUTLASS GEMM or convolution names gemm or conv itself), "reduce" is not
 * "reduced_" (cuDNN's integer-division helper type cudnn::reduced_divisor,
 * which a name cut at 160 bytes may hold only in part). */
#include <ctype.h>
#include <string.h>

#include "trace_int.h"

#define NAME_LOWER_MAX 161 /* the reader keeps 160 name bytes (NAME_KEEP, reader_int.h) */

static const char *const kcat_names[PL_TK_N] = {
    "gemm",       "attention",  "elementwise",    "reduction",   "other_compute",
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all",  "broadcast",
    "send_recv",  "other_comm", "memcpy",         "memset"};

const char *pl_trace_kcat_name(enum pl_trace_kcat c) {
  return (unsigned)c < PL_TK_N ? kcat_names[c] : "?";
}

struct word {
  const char *w;   /* lower case */
  const char *but_not; /* a match that starts this longer word does not count */
};

/* low holds a lower-case name: does it contain one of the words? */
static bool has_word(const char *low, const struct word *words) {
  for (; words->w != NULL; words++)
    for (const char *f = strstr(low, words->w); f != NULL; f = strstr(f + 1, words->w))
      if (words->but_not == NULL || strncmp(f, words->but_not, strlen(words->but_not)) != 0)
        return true;
  return false;
}

/* FlashAttention (flash_fwd/bwd, FA3 FlashAttnFwdSm90), fused MHA (fmha,
 * mha_), PyTorch SDPA and cuDNN's SDPA graphs (sdpa), and the two helper
 * kernels of FlashAttention-2's backward pass, flash_bwd_dot_do_o_kernel
 * (D = rowsum(dO * O)) and flash_bwd_convert_dq_kernel (Dao-AILab/
 * flash-attention csrc/flash_attn/src/flash_bwd_launch_template.h), which
 * cuDNN's SDPA backward runs as cudnn::fusion::compute_dot_do_o_specialized
 * and convert_dq_to_16bits (launched by aten::_cudnn_attention_backward in
 * tests/data/traces/gt_h100_llama3.2-1b_seq4096.json.gz). */
static const struct word attention_words[] = {
    {"flash", NULL}, {"fmha", NULL},     {"attention", NULL},  {"attn", NULL},
    {"sdpa", NULL},  {"mha_", NULL},     {"dot_do_o", NULL},   {"convert_dq", NULL},
    {NULL, NULL}};

/* cuBLAS/cuBLASLt (gemm, gemv, nvjet, xmma, cublas), CUTLASS (cutlass_80_
 * tensorop_s1688gemm..., s16816/h1688/wmma tiles), rocBLAS/Tensile (Cijk_),
 * batched GEMMs (bmm: TensorRT-LLM's trtllm-gen bmm_* kernels, TraceLens
 * classify_kernels.py KERNEL_TYPE_RULES "gemm|matmul|bmm" -> GEMM), and
 * cuDNN convolutions, which run as GEMMs: implicit-GEMM kernels (conv,
 * fprop, dgrad, wgrad, and the *_scudnn_* kernels) and Winograd's
 * (winograd); in the repository's traces these launch from
 * aten::cudnn_convolution and aten::convolution_backward. */
static const struct word gemm_words[] = {
    {"gemm", NULL},   {"gemv", NULL},   {"cutlass", "cutlass::"}, {"cijk_", NULL},
    {"nvjet", NULL},  {"xmma", NULL},   {"cublas", NULL},         {"wgrad", NULL},
    {"dgrad", NULL},  {"fprop", NULL},  {"conv", "convert"},      {"matmul", NULL},
    {"s16816", NULL}, {"s1688", NULL},  {"h1688", NULL},          {"h16816", NULL},
    {"wmma", NULL},   {"scudnn", NULL}, {"winograd", NULL},       {"bmm", NULL},
    {NULL, NULL}};

/* Reductions: ATen's reduce_kernel, softmax, norms (layer_norm_kernel.cu's
 * RowwiseMoments: a row's mean and variance, and GammaBetaBackward: the
 * column sums of dgamma, dbeta; cuDNN's batch norm
 * bn_fw_* / bn_bw_*, launched by aten::cudnn_batch_norm[_backward]),
 * pooling (max_pool_*, avg_pool_*, adaptive_average_pool), losses,
 * scans, Inductor's triton_red/triton_per, TransformerEngine's amax
 * kernels (transformer_engine/common/recipe). */
static const struct word reduction_words[] = {
    {"reduce", "reduced_"}, {"softmax", NULL},     {"norm", NULL},
    {"triton_red", NULL},          {"triton_per", NULL},  {"cross_entropy", NULL},
    {"nll_loss", NULL},            {"argmax", NULL},      {"cumsum", NULL},
    {"scan", NULL},                {"bn_fw", NULL},       {"bn_bw", NULL},
    {"gammabeta", NULL},           {"max_pool", NULL},    {"avg_pool", NULL},
    {"average_pool", NULL},        {"amax", NULL},        {"moments", NULL},
    {NULL, NULL}};

/* Memory-bound element-wise and data-movement kernels: ATen's elementwise,
 * copy, fill, cat, index, gather/scatter, dropout; foreach / multi_tensor
 * optimizers; Inductor's triton_poi; layout transforms (transpose, cuDNN's
 * nchwToNhwc / nhwcToNchw, MIOpen's batched_transpose); TransformerEngine
 * v2.8 transformer_engine/common: cast / quantize / dequantize, *transpose*,
 * gated_act and unary activations, fused_rope, moe_permute / moe_unpermute,
 * multi_padding, fused_topk; TraceLens classify_kernels.py's Elementwise
 * rules (rotary|rope, embedding, silu/gelu/swiglu, top_k, the MoE
 * finalizeKernel, quantize_with_block_size). */
static const struct word elementwise_words[] = {
    {"elementwise", NULL}, {"foreach", NULL},    {"multi_tensor", NULL}, {"triton_poi", NULL},
    {"fill", NULL},        {"copy", NULL},       {"catarray", NULL},     {"index", NULL},
    {"gather", NULL},      {"scatter", NULL},    {"where", NULL},        {"dropout", NULL},
    {"transpose", NULL},   {"nchwtonhwc", NULL}, {"nhwctonchw", NULL},   {"cast", NULL},
    {"quant", NULL},       {"convert", NULL},    {"gated_act", NULL},    {"unary", NULL},
    {"gelu", NULL},        {"silu", NULL},       {"swiglu", NULL},       {"rotary", NULL},
    {"_rope", NULL},       {"rope_", NULL},      {"embedding", NULL},    {"permute", NULL},
    {"padding", NULL},     {"topk", NULL},       {"finalize", NULL},     {NULL, NULL}};

int trace_comm_cat(enum trace_op op) {
  return (int)trace_kcat_of("", TRACE_COMM, op) - (int)PL_TK_ALL_REDUCE;
}

enum pl_trace_kcat trace_kcat_of(const char *name, enum trace_kind kind, enum trace_op op) {
  static const enum pl_trace_kcat comm[TRACE_OP_N] = {
      [TRACE_OP_ALL_REDUCE] = PL_TK_ALL_REDUCE,         [TRACE_OP_ALL_GATHER] = PL_TK_ALL_GATHER,
      [TRACE_OP_REDUCE_SCATTER] = PL_TK_REDUCE_SCATTER, [TRACE_OP_ALL_TO_ALL] = PL_TK_ALL_TO_ALL,
      [TRACE_OP_BROADCAST] = PL_TK_BROADCAST,           [TRACE_OP_SEND_RECV] = PL_TK_SEND_RECV};
  if (kind == TRACE_MEMCPY)
    return PL_TK_MEMCPY;
  if (kind == TRACE_MEMSET)
    return PL_TK_MEMSET;
  if (kind == TRACE_COMM)
    return (unsigned)op < TRACE_OP_N && comm[op] != 0 ? comm[op] : PL_TK_OTHER_COMM;
  char low[NAME_LOWER_MAX];
  size_t n = 0;
  for (; name[n] != '\0' && n + 1 < sizeof low; n++)
    low[n] = (char)tolower((unsigned char)name[n]);
  low[n] = '\0';
  for (char *f = strstr(low, "fbgemm"); f != NULL; f = strstr(f, "fbgemm"))
    memcpy(f, "fb____", 6); /* FBGEMM's library name says nothing of the kernel */
  if (has_word(low, attention_words))
    return PL_TK_ATTENTION;
  if (has_word(low, gemm_words))
    return PL_TK_GEMM;
  if (has_word(low, reduction_words))
    return PL_TK_REDUCTION;
  if (has_word(low, elementwise_words))
    return PL_TK_ELEMENTWISE;
  return PL_TK_OTHER_COMPUTE;
}
