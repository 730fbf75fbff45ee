/* sources_int.h (internal to src/validate): what the files of the older
 * sources' rules share (sources.c, the table, and the rules by source family:
 * sources_megatron.c, sources_deepspeed.c, sources_llmfoundry.c,
 * sources_nemo.c): a row's cell, whether a column is stated, the published
 * metric and step time readers, the recompute default, and the rules the
 * table entries name. */
#ifndef PL_SOURCES_INT_H
#define PL_SOURCES_INT_H

#include <stdbool.h>

#include "validate/validate_int.h"

/* A published number in column col (> 0), or the row skipped. */
static inline bool metric(const struct validate_in *in, const char *col, struct pl_vrow *row) {
  return validate_metric(in, col, row); /* metric.c */
}

static inline void recompute_default(const struct validate_in *in, struct pl_layout *l,
                                     struct pl_vrow *row, const char *why) {
  if (stated(in, "recompute"))
    return;
  l->recompute = PL_RECOMPUTE_FULL;
  validate_note(row, "recompute full (not stated; %s)", why);
}

/* Printed step time in seconds (scale 1) or milliseconds (scale 1e-3). */
static inline bool measure_time(const struct validate_in *in, const char *col, double scale,
                                struct pl_vrow *row) {
  return validate_measure_time(in, col, scale, row); /* metric.c */
}

/* The rules of the table entries (sources.c), by file. */
/* source_mlperf_ctas.c: the MLPerf NeMo rows' NCCL CTA caps (layout.nccl_max_ctas_*) */
bool validate_mlperf_nccl_ctas(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row);
bool validate_mlperf_nccl_floor(const struct validate_in *in, struct pl_cluster *c,
                                struct pl_vrow *row);
bool validate_mlperf_gpt3_layout(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row);
void validate_mlperf_gpt3_hardware(const struct validate_in *in, const struct pl_layout *l,
                                   struct pl_cluster *c, struct pl_vrow *row);
/* sources_megatron.c */
bool validate_sc21_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row);
bool validate_sc21_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_sc21_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row);
bool validate_korthikanti_overrides(const struct validate_in *in, struct pl_framework *fw,
                                    struct pl_vrow *row);
bool validate_korthikanti_layout(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row);
bool validate_korthikanti_measure(const struct validate_in *in, const struct pl_run *run,
                                  struct pl_vrow *row);
bool validate_megatron20_layout(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row);
bool validate_megatron20_measure(const struct validate_in *in, const struct pl_run *run,
                                 struct pl_vrow *row);
/* sources_deepspeed.c */
bool validate_mtnlg_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_mtnlg_measure(const struct validate_in *in, const struct pl_run *run,
                            struct pl_vrow *row);
bool validate_bloom_overrides(const struct validate_in *in, struct pl_framework *fw,
                              struct pl_vrow *row);
bool validate_bloom_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_bloom_measure(const struct validate_in *in, const struct pl_run *run,
                            struct pl_vrow *row);
bool validate_vtrain_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_vtrain_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row);
/* sources_llmfoundry.c */
bool validate_llmfoundry_overrides(const struct validate_in *in, struct pl_framework *fw,
                                   struct pl_vrow *row);
bool validate_llmfoundry_layout(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row);
bool validate_llmfoundry_measure(const struct validate_in *in, const struct pl_run *run,
                                 struct pl_vrow *row);
/* sources_nemo.c */
bool validate_nemo_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row);
bool validate_nemo_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_nemo_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row);
/* the NeMo 25.02 / 25.04 containers' cuDNN (NGC PyTorch 25.01's 9.7.0) */
void validate_nemo_2025_cudnn(struct pl_framework *fw, struct pl_vrow *row);
bool validate_nemo_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row);
bool validate_mlperf_overrides(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row);
bool validate_mlperf_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
void validate_mlperf_hardware(const struct validate_in *in, const struct pl_layout *l,
                              struct pl_cluster *c, struct pl_vrow *row);
bool validate_mlperf_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row);
bool validate_mlperf_llama_model(const struct validate_in *in, struct pl_model *m,
                                 struct pl_vrow *row);
bool validate_mlperf_llama8b_model(const struct validate_in *in, struct pl_model *m,
                                   struct pl_vrow *row);
bool validate_mlperf_llama_layout(const struct validate_in *in, struct pl_layout *l,
                                  struct pl_vrow *row);
void validate_mlperf_llama_hardware(const struct validate_in *in, const struct pl_layout *l,
                                    struct pl_cluster *c, struct pl_vrow *row);
bool validate_mlperf_v5_measure(const struct validate_in *in, const struct pl_run *run,
                                struct pl_vrow *row);
/* source_dgxc.c */
bool validate_dgxc_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row);
bool validate_dgxc_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row);
bool validate_dgxc_model(const struct validate_in *in, struct pl_model *m, struct pl_vrow *row);
bool validate_dgxc_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row);

#endif
