/* sources_scale.c: two published runs at 10,000+ GPUs, read as their papers
 * state them (data/validation/README.md and SOURCES.md, session 13):
 *   megascale  Jiang et al., MegaScale (NSDI 2024, arXiv 2402.15627v1):
 *              Table 2 (175B strong scaling, 256-12,288 GPUs), Table 3
 *              (ablation at 256 GPUs), Figure 9 (530B weak scaling, 2,240-
 *              11,200 GPUs); Megatron-LM's rows and Table 3 (1), the
 *              parallel transformer block (session 29); the rest carry
 *              sliding-window attention of an unstated window; iteration
 *              time printed, or MFU by the paper's model-FLOP count
 *   llama3     Llama Team, The Llama 3 Herd of Models (arXiv 2407.21783)
 *              Table 4: 405B on 8,192 and 16,384 H100; TFLOPs/GPU by the
 *              MFU definition the paper cites (PaLM, Chowdhery et al.)
 * The table entries are in sources.c; this file holds their rules. These
 * are conventions of the sources, not corrections: nothing here looks at a
 * prediction. */
#include <stdio.h>
#include <string.h>

#include <plateau/flops.h>
#include <plateau/hw.h>

#include "validate/validate_int.h"

/* Model FLOPs of one iteration, no recomputation: Korthikanti et al. 2022's
 * count of their MFU (docs/model.md), F = 72 B s l h^2 (1 + s/6h + V/12lh). MegaScale's MFU is this
 * over (iteration time x GPUs x 312 TFLOP/s): Table 2's eight Megatron-LM
 * rows agree with their printed iteration times within the rounding (175B,
 * 256 GPUs, B 768, 40.0 s: 53.04 % against 53.0 %; 12,288 GPUs, B 6144,
 * 8.57 s: 41.26 % against 41.2 %; docs/accuracy.md). */
double validate_megatron_model_flops(double batch, double seq, double layers, double hidden,
                                     double vocab) {
  return 72.0 * batch * seq * layers * hidden * hidden *
         (1.0 + seq / (6.0 * hidden) + vocab / (12.0 * layers * hidden));
}

/* ------------------------------------------------------------- MegaScale */

/* Megatron-LM at commit 285068c8 (2023-01-11, MegaScale Sec. 6.1), for what
 * the paper leaves unstated: README.md "Activation Checkpointing and
 * Recomputation" ("Selective recomputation is the default and recommended in
 * almost all cases", --recompute-activations) and examples/
 * pretrain_gpt3_175B.sh (--micro-batch-size 1). Megatron-LM's rows and
 * Table 3 (1) (the parallel transformer block on the baseline) are
 * expressible; MegaScale's other rows add a sliding-window attention whose
 * window is not stated, LAMB and its own TP/PP/DP overlap and operators
 * (Sec. 3.1-3.3). */
bool validate_megascale_layout(const struct validate_in *in, struct pl_layout *l,
                               struct pl_vrow *row) {
  const char *method = cell(in, "Method");
  /* Table 3's rows are cumulative (Sec. 6.1): (1) adds the parallel
   * transformer block to the baseline (layout.parallel_block, set by
   * validate_megascale_overrides); (2) adds sliding-window attention, whose
   * window w the paper does not state (Sec. 3.1 gives only its O(s x w)
   * cost), and every later row and MegaScale's own rows (Table 2, Figure 9)
   * carry it, so they stay skipped */
  if (strcmp(method, "Megatron-LM") != 0 && strcmp(method, "baseline") != 0 &&
      strcmp(method, "(1) with PTB") != 0)
    return validate_skip(row,
                         "'%s': includes MegaScale's sliding-window attention, whose window the "
                         "paper does not state (Sec. 3.1), besides its TP/PP/DP overlap, "
                         "operators and LAMB",
                         method);
  if (cell(in, "recompute")[0] == '\0') {
    l->recompute = PL_RECOMPUTE_SELECTIVE;
    validate_note(row, "recompute selective (not stated; Megatron-LM README @ 285068c8: "
                       "selective is 'the default and recommended in almost all cases')");
  }
  if (l->mbs == 0) {
    l->mbs = 1;
    validate_note(row, "micro-batch 1 (not stated; Megatron-LM examples/pretrain_gpt3_175B.sh "
                       "@ 285068c8)");
  }
  return true;
}

/* Megatron-LM's README @ 285068c8 runs tensor parallelism with
 * --sequence-parallel (its "Distributed Pretraining" example); the rest is
 * the megatron-lm preset (local DDP reducing after the backward, blocking
 * p2p, no TP overlap: the three overlaps MegaScale's Table 3 adds).
 * Gradient accumulation fusion is on at 285068c8 unless a run turns it off:
 * megatron/arguments.py --no-gradient-accumulation-fusion is store_false
 * (added by 83b1e42f30, 2022-02-13; fp16 main_grad supported since
 * 07916bf245, 2022-09-27, an ancestor), megatron/core/tensor_parallel/
 * layers.py raises when it is on without apex's fused_weight_gradient_mlp_cuda,
 * and megatron/model/distributed.py param_hook adds only the param.grad the
 * fused linears leave None (the norms, biases, embedding). The megatron-lm
 * preset stays off for its 2020-21 rows (SC21, the 2020 README: before
 * 83b1e42f30). */
bool validate_megascale_overrides(const struct validate_in *in, struct pl_framework *fw,
                                  struct pl_vrow *row) {
  /* Table 3 row (1): "with PTB", the parallel transformer block of Sec. 3.1,
   * y = x + MLP(LN(x)) + Attention(LN(x)), on the baseline (layout.parallel_block) */
  if (strcmp(cell(in, "Method"), "(1) with PTB") == 0) {
    fw->parallel_block = PL_SETTING_ON;
    validate_note(row, "parallel transformer block (Table 3 (1), Sec. 3.1): one LayerNorm and "
                       "one tp all_gather/reduce_scatter pair per block and pass, as GPT-NeoX's "
                       "gpt_j_residual");
  }
  fw->sequence_parallel = PL_SETTING_ON;
  fw->grad_accum_fusion = PL_SETTING_ON;
  validate_note(row, "sequence parallelism on (not stated; Megatron-LM README @ 285068c8 "
                     "example); gradient accumulation fusion on (Megatron-LM @ 285068c8 "
                     "default, --no-gradient-accumulation-fusion store_false)");
  return true;
}

/* Printed iteration time (Table 2); else the MFU (Table 3, Figure 9) turned
 * into a step by the paper's own count: step = F / (MFU x GPUs x the GPU's
 * 16-bit dense peak, 312 TFLOP/s for the A100 presets). */
bool validate_megascale_measure(const struct validate_in *in, const struct pl_run *run,
                                struct pl_vrow *row) {
  if (cell(in, "Iteration Time (s)")[0] != '\0')
    return validate_measure_time(in, "Iteration Time (s)", 1.0, row);
  if (!validate_metric(in, "MFU", row))
    return false;
  double vocab = 0;
  bool present = false;
  if (validate_num(cell(in, "vocab"), &vocab, &present) != PL_OK || !present || !(vocab > 0))
    return validate_skip(row, "column 'vocab' needed for the MFU conversion");
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  double f = validate_megatron_model_flops((double)l->gbs, (double)m->seq_len, (double)m->layers,
                                           (double)m->hidden, vocab);
  double peak = pl_gpu_peak_flops_per_s(&run->cluster.gpu, PL_DTYPE_BF16);
  row->measured = f / (row->published / 100.0 * (double)l->gpus * peak);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric,
           "MFU -> step = 72 B s l h^2 (1 + s/6h + V/12lh) / (MFU x GPUs x %.0f TFLOP/s)",
           peak / 1e12);
  return true;
}

/* ---------------------------------------------------------------- Llama 3 */

/* The sharding and recompute words of Sec. 3.3.2: "Our use of FSDP for
 * Llama 3 shards optimizer states and gradients, but for model shards we do
 * not reshard after forward computation" is ZeRO-2 (FSDP SHARD_GRAD_OP,
 * layout.h); "we could pre-train Llama 3 on sequences of 8K tokens without
 * activation checkpointing". The 128K stage states no recompute: none, said. */
bool validate_llama3_modes(const struct validate_in *in, struct pl_layout *l,
                           struct pl_vrow *row) {
  const char *shard = cell(in, "sharding"), *rc = cell(in, "recompute");
  if (strstr(shard, "FSDP") == NULL || strstr(shard, "not resharded after forward") == NULL)
    return validate_skip(row, "sharding '%s' not understood", shard);
  l->shard = PL_SHARD_ZERO2;
  validate_note(row, "zero2 (FSDP without resharding after forward, Sec. 3.3.2)");
  if (strncmp(rc, "none", 4) == 0) {
    l->recompute = PL_RECOMPUTE_NONE;
  } else if (rc[0] == '\0') {
    l->recompute = PL_RECOMPUTE_NONE;
    validate_note(row, "recompute none (not stated for this stage; the 8K stages ran without)");
  } else {
    return validate_skip(row, "recompute '%s' not understood", rc);
  }
  return true;
}

/* The torchtitan preset stands in for Meta's in-house stack only for its
 * parallelism mechanisms (sources.c): the preset's PyTorch memory layouts are
 * not assumed. The paper's TP is Korthikanti et al.'s (sequence parallel, the
 * shard saved: tp_gathered_saved off), its loss and parameter storage are not
 * stated (eager_xent, fp32_param_shards off: plateau's defaults). Its CP is
 * not PyTorch's context_parallel either (cp_allgather off): Sec. 3.3.2
 * all-gathers K and V, exposed, see validate_llama3_layout. */
bool validate_llama3_overrides(const struct validate_in *in, struct pl_framework *fw,
                               struct pl_vrow *row) {
  (void)in;
  (void)row;
  fw->tp_gathered_saved = PL_SETTING_OFF;
  fw->fp32_param_shards = PL_SETTING_OFF;
  fw->eager_xent = PL_SETTING_OFF;
  fw->cp_allgather = PL_SETTING_OFF;
  return true;
}

/* Sec. 3.3.2: one Transformer layer fewer on the first and the last stage,
 * so that "the first model chunk on the first stage has only the embedding,
 * and the last model chunk on the last stage has only output projection and
 * loss": the embedding and the loss count as one layer each in the split
 * (Megatron-Core's account_for_embedding/loss_in_pipeline_split), and a
 * chunk holding the embedding alone means one layer per chunk: vp =
 * (layers + 2) / pp (126 + 2 = 128 over 16 stages: 8). */
bool validate_llama3_layout(const struct validate_in *in, struct pl_layout *l,
                            struct pl_vrow *row) {
  bool present = false;
  int64_t layers = 0;
  if (validate_int(cell(in, "layers"), &layers, &present) != PL_OK || !present)
    return validate_skip(row, "column 'layers' needed for the pipeline split");
  l->account_embed_loss = true;
  /* Sec. 3.3.2 (the row's notes): "all-gather based CP (K and V
   * all-gathered, exposed on the critical path)", K and V at their own GQA
   * width (8 KV heads, not repeated to the 128 query heads): Transformer
   * Engine's AttnFuncWithCPAndKVAllGather, which cites this section
   * (context_parallel.py, v2.20.0.dev0 @ d0067d0; layout.cp_comm) */
  if (l->cp > 1) {
    l->cp_comm = PL_CP_ALL_GATHER;
    validate_note(row, "cp all_gather of K and V at kv-head width, exposed (Sec. 3.3.2)");
  }
  if (cell(in, "vp")[0] == '\0' && l->pp > 1 && (layers + 2) % l->pp == 0) {
    l->vp = (layers + 2) / l->pp;
    l->schedule = PL_SCHEDULE_INTERLEAVED;
    validate_note(row,
                  "vp %lld: one layer per chunk (Sec. 3.3.2: first chunk holds only the "
                  "embedding, last only the output and loss)",
                  (long long)l->vp);
  }
  return true;
}

/* TFLOPs/GPU of Table 4, the BF16 MFU numerator the paper cites (Chowdhery
 * et al.: 6N + 12 L H Q T per token, pl_flops_palm_per_token): step = that
 * x tokens per step / (rate x GPUs). */
bool validate_llama3_measure(const struct validate_in *in, const struct pl_run *run,
                             struct pl_vrow *row) {
  if (!validate_metric(in, "TFLOPs/GPU", row))
    return false;
  const struct pl_model *m = &run->model;
  const struct pl_layout *l = &run->layout;
  double tokens = (double)l->gbs * (double)m->seq_len;
  row->measured = pl_flops_palm_per_token(m, m->seq_len) * tokens /
                  (row->published * 1e12 * (double)l->gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric,
           "TFLOPs/GPU -> step = (6N + 12 L H Q T) x tokens / (rate x GPUs) (PaLM MFU count)");
  return true;
}
