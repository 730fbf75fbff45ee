/* sources_llmfoundry.c: the rules of MosaicML llm-foundry's published
 * throughput table (table entry in sources.c): tokens/s over the cluster,
 * Composer's FSDP mixed-precision modes. Conventions of the source, not
 * corrections: nothing here looks at a prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/sources_int.h"

/* ------------------------------------------------------------ llm-foundry */

bool validate_llmfoundry_layout(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row) {
  if (strcmp(cell(in, "Activation CPUOffload"), "True") == 0)
    return validate_skip(row, "activation CPU offload is not modelled");
  if (strcmp(cell(in, "MP Mode"), "DEFAULT") == 0)
    validate_note(row, "FSDP mixed precision DEFAULT: gradients reduced in fp32, as modelled");
  else if (strcmp(cell(in, "MP Mode"), "PURE") == 0)
    validate_note(row, "FSDP mixed precision PURE: gradients reduced in bf16, as modelled");
  /* FSDP's gathers and reduce_scatters on one process group, Composer's two
   * train metrics on every micro-batch's logits (logit_metric_passes 2),
   * Triton FlashAttention, eager element-wise kernels: the llm-foundry preset
   * (data/frameworks/llm-foundry.json) */
  (void)l;
  return true;
}

/* Composer composer/trainer/mosaic_fsdp_utils.py get_mixed_precision: 'PURE'
 * sets reduce_dtype to the precision's dtype (bf16): 2 B per gradient in
 * FSDP's reduce_scatter (src/sim/fsdp_comm.c fsdp_grad_bytes), the row's
 * departure from the preset. */
bool validate_llmfoundry_overrides(const struct validate_in *in, struct pl_framework *fw,
                                   struct pl_vrow *row) {
  (void)row;
  if (strcmp(cell(in, "MP Mode"), "PURE") == 0)
    fw->grad_reduce_fp32 = PL_SETTING_OFF;
  return true;
}

bool validate_llmfoundry_measure(const struct validate_in *in, const struct pl_run *run,
                                 struct pl_vrow *row) {
  const char *col = "Throughput (T/s)";
  if (!metric(in, col, row))
    return false;
  row->measured = (double)run->layout.gbs * (double)run->model.seq_len / row->published;
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / rate", col);
  return true;
}
