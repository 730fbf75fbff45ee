/* quant_modules.c: modules a run keeps at 16-bit under FP8 / FP4
 * (layout.bf16_modules, --bf16-modules).
 *
 * Megatron-Core's per-module quantization recipe (TransformerConfig.quant_recipe,
 * --te-precision-config-file; megatron/core/quantization/quant_config.py and
 * extensions/TransformerEngineMixedPrecision.md, NVIDIA/Megatron-LM d98e8a6)
 * matches module names against glob patterns and runs a matched linear under
 * the named recipe. Megatron-Bridge's Nemotron 3 Super NVFP4 recipes load
 * perf_recipes/nemotronh/te_quant.cfg (HEAD 067f987df0; the same file in
 * v0.4.0 .. v0.5.0 scripts/performance/configs/nemotronh/): "*.linear_qkv",
 * "*.linear_proj" and "*mlp.fc[12]_latent_proj" in bf16, "mtp.*" in bf16
 * (the MTP blocks: hybrid_mtp.c already prices them at 16-bit) and
 * "*mixer.out_proj" in MXFP8 (not priced: a GEMM here is FP4 or 16-bit). The
 * ops these names mean: qkv and proj (attention_ops), latent_fc1 and
 * latent_fc2 (moe_ops). */
#include <plateau/flops.h>
#include <plateau/layout.h>

#include <string.h>

#include "model/model_int.h"

/* In bit order; Megatron-Core's module names */
static const char *const bf16_module_names[PL_B16_COUNT] = {"linear_qkv", "linear_proj",
                                                            "latent_proj"};

enum pl_status pl_bf16_modules_parse(const char *s, uint32_t *out, struct pl_diag *diag) {
  const char *p = s != NULL ? s : "";
  if (*p == '\0')
    return pl_diag_set(diag, PL_ERR_PARSE, "empty 16-bit module list");
  return model_name_mask_parse(p, bf16_module_names, PL_B16_COUNT, "16-bit module",
                               "a comma-separated list of linear_qkv|linear_proj|latent_proj", out,
                               diag);
}

void pl_bf16_modules_format(uint32_t mask, char *buf, size_t n) {
  model_name_mask_format(mask, bf16_module_names, PL_B16_COUNT, buf, n);
}

void model_bf16_modules_apply(const struct pl_layout *l, struct pl_op *ops, int n) {
  if (l->bf16_modules == 0 || l->dtype == PL_DTYPE_BF16)
    return;
  for (int i = 0; i < n; i++) {
    const char *name = ops[i].name;
    bool hit = ((l->bf16_modules & PL_B16_LINEAR_QKV) && strcmp(name, "qkv") == 0) ||
               ((l->bf16_modules & PL_B16_LINEAR_PROJ) && strcmp(name, "proj") == 0) ||
               ((l->bf16_modules & PL_B16_LATENT_PROJ) &&
                (strcmp(name, "latent_fc1") == 0 || strcmp(name, "latent_fc2") == 0));
    if (hit && ops[i].kind == PL_OP_GEMM)
      ops[i].high_precision = true;
  }
}
