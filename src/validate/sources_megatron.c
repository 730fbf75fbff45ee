/* sources_megatron.c: the rules of the Megatron-LM papers' and README's
 * sources (table entries in sources.c): sc21 (Narayanan et al. SC21, TFLOP/s
 * by eq. 3), korthikanti (Korthikanti et al. 2022, iteration time),
 * megatron20 (Megatron-LM README 2020, iteration time). Conventions of the
 * sources, not corrections: nothing here looks at a prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/model.h>

#include "validate/sources_int.h"

/* Narayanan et al. 2021 (arXiv 2104.04473), eq. 3: FLOPs of one iteration
 * with activation recomputation, F = 96 B s l h^2 (1 + s/6h + V/16lh). The
 * 96 = 4 passes (forward, recomputed forward, 2x backward) x 24 B s h^2 per
 * layer; GEMMs only. */
double validate_megatron_eq3_flops(double batch, double seq, double layers, double hidden,
                                   double vocab) {
  return 96.0 * batch * seq * layers * hidden * hidden *
         (1.0 + seq / (6.0 * hidden) + vocab / (16.0 * layers * hidden));
}

/* ------------------------------------------------------------------ SC21 */

/* Smallest divisor >= 2 of n (n itself when prime), 1 when n < 2: the
 * fewest interleaved chunks that split a stage's n layers evenly (SC21
 * Table 1 here, the Megatron-LM README H100 rows in source_mlm_h100.c). */
int64_t validate_smallest_divisor(int64_t n) {
  for (int64_t k = 2; k <= n; k++)
    if (n % k == 0)
      return k;
  return 1;
}

/* Table 2's PTD-P rows give only the model-parallel size (96 for GPT-3 175B,
 * 280 for 530B). The paper picks the degrees "using heuristics described in
 * Sec. 3" (Sec. 5.1): tensor parallelism up to the GPUs of one server, then
 * pipeline parallelism (Sec. 3.3 Takeaway #1; Sec. 5.4.1: peak "when the
 * tensor-parallel size is equal to the number of GPUs in a single node (8 with
 * DGX A100 nodes)"), as every Table 1 row from 18.4B up runs. The split is
 * taken only where Megatron-LM can run it: the heads divide by tp (mpu
 * divide() in ParallelSelfAttention) and the layers by pp
 * (ParallelTransformer's assert). For 280 it is the only split with tp <= 8
 * that does (tp 1/2/4 leave pp 280/140/70, none dividing 105 layers). */
#define SC21_TP_PER_SERVER 8

static bool sc21_split(const struct validate_in *in, double mp, struct pl_layout *l,
                       struct pl_vrow *row) {
  bool present = false, ok = true;
  int64_t heads = 0, layers = 0, m = (int64_t)mp;
  ok = validate_int(cell(in, "heads"), &heads, &present) == PL_OK && present && ok;
  ok = validate_int(cell(in, "layers"), &layers, &present) == PL_OK && present && ok;
  if (!ok || (double)m != mp || m % SC21_TP_PER_SERVER != 0 || heads % SC21_TP_PER_SERVER != 0 ||
      layers % (m / SC21_TP_PER_SERVER) != 0)
    return validate_skip(row, "tp/pp split of model-parallel size %g not stated", mp);
  l->tp = SC21_TP_PER_SERVER;
  l->pp = m / SC21_TP_PER_SERVER;
  validate_note(row,
                "tp %d pp %lld (model-parallel size %lld not split in Table 2: tp = GPUs per "
                "DGX A100 server, Sec. 3.3/5.4.1); non-interleaved schedule (Megatron's "
                "default; Table 2 names none)",
                SC21_TP_PER_SERVER, (long long)l->pp, (long long)m);
  return true;
}

bool validate_sc21_layout(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  bool present = false;
  double mp = 0;
  if (validate_num(cell(in, "Model-parallel size"), &mp, &present) == PL_OK && present &&
      !stated(in, "tp") && mp > 1 && !sc21_split(in, mp, l, row))
    return false;
  recompute_default(in, l, row, "Eq. 3 of the paper counts the recompute forward");
  /* Table 1 ran the interleaved schedule without saying how many chunks:
   * the fewest that divide a stage's layers (the same rule as the step
   * model's own validation test, tests/unit/test_predict_validation.c). */
  int64_t layers = 0;
  if (!stated(in, "vp") && l->pp > 1 && strstr(cell(in, "notes"), "interleaved") != NULL &&
      validate_int(cell(in, "layers"), &layers, &present) == PL_OK && present) {
    int64_t vp = validate_smallest_divisor(layers / l->pp);
    if (vp > 1) {
      l->vp = vp;
      l->schedule = PL_SCHEDULE_INTERLEAVED;
    }
    validate_note(row,
                  "interleaved chunks per device not stated: vp=%lld, the fewest that divide "
                  "the %lld layers of a stage",
                  (long long)vp, (long long)(layers / l->pp));
  }
  return true;
}

/* Table 2's DeepSpeed ZeRO-3 (released in DeepSpeed 0.3.13, March 2021; the
 * paper's April 2021 runs) run with the preset deepspeed-zero3-2021
 * (data/frameworks/), DeepSpeed v0.3.16's behaviour: each parameter gathered
 * and reduce_scattered in its own tensor-list call, each gather after a
 * torch.cuda.synchronize() (not prefetched; DeepSpeed PR #1188); the other
 * rows with the source's megatron-lm. */
bool validate_sc21_overrides(const struct validate_in *in, struct pl_framework *fw,
                             struct pl_vrow *row) {
  const char *shard = cell(in, "sharding");
  if (strstr(shard, "DeepSpeed") == NULL || strstr(shard, "ZeRO-3") == NULL)
    return true;
  if (!validate_row_preset("deepspeed-zero3-2021", fw, row))
    return false;
  validate_note(row, "DeepSpeed ZeRO-3 of 2021 (preset deepspeed-zero3-2021): one gather and "
                     "one reduce_scatter per parameter, not prefetched");
  return true;
}

bool validate_sc21_measure(const struct validate_in *in, const struct pl_run *run,
                           struct pl_vrow *row) {
  const char *col = "Achieved teraFLOP/s per GPU";
  if (!metric(in, col, row))
    return false;
  const struct pl_model *m = &run->model;
  double f = validate_megatron_eq3_flops((double)run->layout.gbs, (double)m->seq_len,
                                         (double)m->layers, (double)m->hidden, (double)m->vocab);
  row->measured = f / (row->published * 1e12 * (double)run->layout.gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric,
           "%s -> step = eq.3 FLOPs (recompute counted) / (rate x GPUs)", col);
  return true;
}

/* ----------------------------------------------------------- Korthikanti */

bool validate_korthikanti_layout(const struct validate_in *in, struct pl_layout *l,
                                 struct pl_vrow *row) {
  if (stated(in, "Forward (ms)"))
    return validate_skip(row, "single-layer forward/backward time (Table 4), not a step");
  if (!stated(in, "vp") && l->pp > 1)
    validate_note(row, "vp not stated (interleaving is named for 175B and 530B only): 1F1B");
  return true;
}

/* The paper's own runs use its sequence parallelism (Megatron-LM v3.0 added
 * --sequence-parallel with it, off by default: the megatron-lm preset's
 * value) unless the recompute column says "no sequence parallelism": the
 * row's departure from the preset (layout_modes reads the same words). */
bool validate_korthikanti_overrides(const struct validate_in *in, struct pl_framework *fw,
                                    struct pl_vrow *row) {
  (void)row;
  bool off = strstr(cell(in, "recompute"), "no sequence parallelism") != NULL;
  fw->sequence_parallel = off ? PL_SETTING_OFF : PL_SETTING_ON;
  return true;
}

bool validate_korthikanti_measure(const struct validate_in *in, const struct pl_run *run,
                                  struct pl_vrow *row) {
  return measure_time(in, "Iteration Time (seconds)", 1.0, row);
}

/* ------------------------------------------------------ Megatron-LM 2020 */

bool validate_megatron20_layout(const struct validate_in *in, struct pl_layout *l,
                                struct pl_vrow *row) {
  recompute_default(in, l, row, "the README's TFLOP/s equal eq. 3 with the recompute forward");
  if (!stated(in, "sharding"))
    validate_note(row, "plain data parallel (Megatron v1)");
  if (l->mbs == 0) {
    int64_t dp = l->gpus / (l->tp * l->pp * l->cp);
    if (dp < 1 || l->gbs % dp != 0)
      return validate_skip(row, "global batch %lld not divisible by dp %lld", (long long)l->gbs,
                           (long long)dp);
    l->mbs = l->gbs / dp;
    validate_note(row, "micro-batch %lld = batch per replica (Megatron v1 has no micro-batches)",
                  (long long)l->mbs);
  }
  return true;
}

bool validate_megatron20_measure(const struct validate_in *in, const struct pl_run *run,
                                 struct pl_vrow *row) {
  return measure_time(in, "Iteration Time (ms)", 1e-3, row);
}
