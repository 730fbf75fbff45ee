/* source_dgxc.c: how NVIDIA's DGX Cloud Benchmarking recipes are read
 * (data/validation/dgxc_benchmarking.csv; README.md there, "How each source
 * defines its metrics").
 *
 * github.com/NVIDIA/dgxc-benchmarking: each recipe's README has an "Expected
 * Performance" table of the training step time (seconds per step, "the last
 * training step timing" of NeMo's train_step_timing), tokens/s and MFU per
 * GPU count on DGX Cloud H100. The rows hold what the recipe's own launch
 * scripts and Hydra yaml at the same tag set (NeMo 1 launcher path,
 * megatron_gpt_pretraining.py, containers nemo:24.05 / 24.09 / 24.12): the
 * layout, the model dimensions, the userbuffers SMs, the attention backend
 * (NVTE_FUSED_ATTN) and the loss fusion. Nothing here looks at a
 * prediction. */
#include <stdio.h>
#include <string.h>

#include <plateau/framework.h>

#include "validate/sources_int.h"

/* The userbuffers SMs of one recipe yaml (ub_tp_comm_overlap_cfg proj_fprop
 * and fc2_fprop num_sm, both "method: pipeline" with set_sm_margin 1);
 * empty = the yaml sets no ub config: NeMo's default, the preset's. */
static bool dgxc_ub_sms(const struct validate_in *in, const char *col, int64_t *sms, bool *set,
                        struct pl_vrow *row) {
  bool present = false;
  int64_t v = 0;
  if (validate_int(cell(in, col), &v, &present) != PL_OK || (present && v < 0))
    return validate_skip(row, "column '%s': '%s' is not a whole number", col, cell(in, col));
  if (present) {
    *sms = v;
    *set = true;
  }
  return true;
}

/* The container's preset: every row ran a NeMo 24.x container (24.05, 24.09,
 * 24.12), the nemo-2024 preset (mid-2024 cuDNN; data/frameworks/
 * nemo-2024.json). Then what the recipe sets:
 *  - cross_entropy_loss_fusion true in the Llama 3.1 and Nemotron-4 yaml
 *    (llama3.1/llama3.1_*.yaml, nemotron/nemotron4-*-synth.yaml @ v24.11.1
 *    and v25.02): NeMo 1 copies it into Megatron-Core's TransformerConfig
 *    (megatron_base_model.py build_transformer_config), the fused loss; the
 *    GPT-3 yaml (nemo_megatron/gpt3_175b_hydra.yaml) does not set it: the
 *    preset's unfused Megatron cross-entropy;
 *  - NVTE_FUSED_ATTN=0 (nemo_megatron/launch.sh @ v24.11.1,
 *    nemotron/configure.sh for 340b): Transformer Engine's
 *    DotProductAttention then chooses its FlashAttention backend
 *    (transformer_engine/pytorch/attention.py get_attention_backend: the
 *    fused (cuDNN) backend off by the variable), plateau's flash attention;
 *  - ub_tp_comm_overlap and the yaml's userbuffers SMs. */
bool validate_dgxc_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row) {
  const char *cont = cell(in, "container");
  if (strncmp(cont, "nemo:24.", 8) != 0)
    return validate_skip(row, "container '%s': only NeMo 24.x rows are read", cont);
  struct pl_diag d;
  pl_diag_clear(&d);
  if (pl_framework_preset("nemo-2024", fw, &d) != PL_OK)
    return validate_skip(row, "framework preset: %s", d.msg);
  snprintf(row->framework, sizeof row->framework, "nemo-2024");
  if (strcmp(cell(in, "cross_entropy_loss_fusion"), "true") == 0) {
    fw->megatron_xent = PL_SETTING_OFF;
    validate_note(row, "fused cross-entropy (the recipe yaml's cross_entropy_loss_fusion true)");
  }
  if (strcmp(cell(in, "NVTE_FUSED_ATTN"), "0") == 0) {
    fw->attention = PL_ATTENTION_FLASH;
    validate_note(row, "FlashAttention (NVTE_FUSED_ATTN=0: TE's flash backend)");
  }
  const char *ub = cell(in, "ub_tp_comm_overlap");
  if (strcmp(ub, "false") == 0)
    fw->tp_comm_overlap = PL_SETTING_OFF;
  else if (strcmp(ub, "true") != 0)
    return validate_skip(row, "column 'ub_tp_comm_overlap': '%s' is not true or false", ub);
  if (!dgxc_ub_sms(in, "ub proj_fprop SMs", &fw->ub_proj_fprop_sms, &fw->ub_proj_fprop_sms_set,
                   row) ||
      !dgxc_ub_sms(in, "ub fc2_fprop SMs", &fw->ub_fc2_fprop_sms, &fw->ub_fc2_fprop_sms_set, row))
    return false;
  if (fw->ub_proj_fprop_sms_set)
    validate_note(row, "userbuffers %lld/%lld SMs (proj/fc2 fprop: the recipe yaml)",
                  (long long)fw->ub_proj_fprop_sms, (long long)fw->ub_fc2_fprop_sms);
  return true;
}

/* The README's "Training step time (seconds per step)", printed. */
bool validate_dgxc_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row) {
  (void)run;
  return measure_time(in, "Training step time (seconds per step)", 1.0, row);
}
