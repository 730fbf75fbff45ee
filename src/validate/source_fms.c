/* source_fms.c: how IBM's foundation-model-stack/fms-fsdp runs are read
 * (data/validation/ibm_fsdp_blog.csv; README.md there, "How each source
 * defines its metrics").
 *
 * The rows are the PyTorch blog "Maximizing training throughput using
 * PyTorch FSDP" (IBM and Meta, 2024-03-13, Table 1) and the fms-fsdp README
 * tables with torch.compile (ed74fd5, 2024-05-09): Llama 2 7B-70B on 128 A100
 * and 96 H100, batch 2 per GPU at 4096 tokens. What they state becomes the
 * run: PyTorch FSDP1 (FullyShardedDataParallel: main_training.py @ 4ffb9bd /
 * ed74fd5, limit_all_gathers=True, the default BACKWARD_PRE prefetch), FULL
 * or HYBRID sharding, fms-fsdp's block-level activation checkpointing,
 * torch.compile, and the cluster's inter-node bandwidth. Nothing here looks at
 * a prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <plateau/framework.h>
#include <plateau/hw.h>
#include <plateau/layout.h>

#include "validate/validate_int.h"

/* FSDP1's HYBRID_SHARD shards within a node and replicates across nodes:
 * the intra-node group is the node's processes (torch/distributed/fsdp/
 * _init_utils.py _init_intra_and_inter_node_groups, v2.2: one group per
 * torch.cuda.device_count() ranks), and fms-fsdp starts 8 per node
 * (scripts/train.sh, torchrun --nproc_per_node=8, @ 4ffb9bd). */
#define FMS_PROCS_PER_NODE 8

/* Sharding: "FSDP (FULL_SHARD)" = zero3 over all GPUs; "HSDP (HYBRID_SHARD
 * ...)" = zero3 within the 8-GPU node, replicas across nodes. Recompute as
 * fms-fsdp applies it (fms_fsdp/policies/ac_handler.py apply_fsdp_checkpointing,
 * a checkpoint_wrapper around whole LLaMABlocks): "none", "full" (every
 * block), "selective every 2nd block" (every_xth_item = 2 @ 4ffb9bd: blocks
 * 2, 4, ...; the row's derived_fields say why 2); a selective fraction the
 * page does not give cannot be expressed. */
bool validate_fms_modes(const struct validate_in *in, struct pl_layout *l, struct pl_vrow *row) {
  const char *shard = cell(in, "sharding"), *rc = cell(in, "recompute");
  if (strncmp(shard, "HSDP", 4) == 0) {
    l->shard = PL_SHARD_ZERO3;
    l->shard_group = FMS_PROCS_PER_NODE;
    validate_note(row, "HSDP: FSDP1 HYBRID_SHARD, sharded over the node's %d GPUs, replicated "
                       "across nodes",
                  FMS_PROCS_PER_NODE);
  } else if (strncmp(shard, "FSDP", 4) == 0) {
    l->shard = PL_SHARD_ZERO3;
  } else {
    return validate_skip(row, "sharding '%s' not understood (fms-fsdp: FSDP or HSDP)", shard);
  }
  if (strncmp(rc, "none", 4) == 0) {
    l->recompute = PL_RECOMPUTE_NONE;
  } else if (strncmp(rc, "full", 4) == 0) {
    l->recompute = PL_RECOMPUTE_FULL;
  } else if (strncmp(rc, "selective every 2nd block", 25) == 0) {
    l->recompute = PL_RECOMPUTE_FULL;
    l->recompute_every = 2;
    validate_note(row, "selective AC: every 2nd block checkpointed (fms-fsdp apply_fsdp_checkpointing)");
  } else if (strncmp(rc, "selective fraction not stated", 29) == 0) {
    return validate_skip(row, "fms-fsdp's selective AC fraction p (apply_fsdp_checkpointing, "
                              "ed74fd5) is not stated for this row");
  } else {
    return validate_skip(row, "recompute '%s' not understood", rc);
  }
  return true;
}

/* The row's departure from the fms-fsdp preset (data/frameworks/fms-fsdp.json:
 * bf16 gradient reduction and torch.compile, the training config's defaults
 * at ed74fd5): the row's torch.compile cell (use_torch_compile,
 * main_training.py: torch.compile of the whole FSDP model; Inductor fuses
 * the element-wise ops, as plateau's fused kernels, the rule of the
 * torchtitan rows), its RMSNorm (fms LayerNormParameterized, use_mean False)
 * an Inductor-generated reduction (layout.inductor_norms, compile29). The PyTorch blog's rows (March 2024) ran fms-fsdp before
 * compile became its default (fms-fsdp-2024-03). */
bool validate_fms_overrides(const struct validate_in *in, struct pl_framework *fw,
                            struct pl_vrow *row) {
  if (strncmp(cell(in, "source_ref"), "PyTorch blog", 12) == 0) {
    if (!validate_row_preset("fms-fsdp-2024-03", fw, row))
      return false;
  }
  fw->fused_kernels =
      strcmp(cell(in, "torch.compile"), "yes") == 0 ? PL_SETTING_ON : PL_SETTING_OFF;
  fw->inductor_norms = fw->fused_kernels;
  return true;
}

/* The inter-node bandwidth the page states for the cluster ("400Gbps
 * inter-node interconnect" for the A100 cluster, "800Gbps" for the H100
 * one): taken per node, shared by the preset's NICs. How the node's
 * bandwidth is split into NICs is not stated; the preset's NIC count is
 * kept (one per GPU), each NIC the stated total over them. */
void validate_fms_hardware(const struct validate_in *in, const struct pl_layout *l,
                           struct pl_cluster *c, struct pl_vrow *row) {
  (void)l;
  bool present = false;
  double gbps = 0;
  if (validate_num(cell(in, "inter-node Gb/s per node"), &gbps, &present) != PL_OK ||
      (present && !(gbps > 0))) {
    validate_skip(row, "column 'inter-node Gb/s per node': '%s' is not a positive number",
                  cell(in, "inter-node Gb/s per node"));
    return;
  }
  if (!present || c->nics_per_node <= 0)
    return;
  c->nic_bytes_per_s = gbps * 1e9 / 8.0 / (double)c->nics_per_node;
  validate_note(row, "inter-node %.0f Gb/s per node (the page's), as %lld NICs of %.0f Gb/s",
                gbps, (long long)c->nics_per_node, c->nic_bytes_per_s * 8.0 / 1e9);
}

/* fms-fsdp prints "overall token per gpu per sec" = tokens seen over the
 * report interval / world_size / elapsed time (fms_fsdp/utils/train_utils.py
 * train, @ 4ffb9bd), so step = global batch tokens / (rate x GPUs). */
bool validate_fms_measure(const struct validate_in *in, const struct pl_run *run,
                          struct pl_vrow *row) {
  const char *col = "tokens/sec/GPU";
  if (!validate_metric(in, col, row))
    return false;
  row->measured = (double)run->layout.gbs * (double)run->model.seq_len /
                  (row->published * (double)run->layout.gpus);
  row->published_rate = true; /* step = X / the published rate */
  snprintf(row->metric, sizeof row->metric, "%s -> step = global batch tokens / (rate x GPUs)",
           col);
  return true;
}
