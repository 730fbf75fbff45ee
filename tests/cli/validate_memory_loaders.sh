#!/usr/bin/env bash
# Memory settings the loaders read from the frameworks' code (session 16, docs/accuracy.md
# "Session 16 (helper mem16)"):
# - torchtitan: tensor parallelism is DTensor's plan, whose linears save the gathered inputs
#   whole (layout.tp_gathered_saved), and the loss at tp > 1 runs under loss_parallel (16 B per
#   logit at its backward), and FSDP2 keeps fp32 shards (16 B per parameter): the 70B tp 8 rows
#   11 / 12 predict 65.71 GiB (published 71.9 / 67.6);
# - NeMo 25.04 / 25.07 performance scripts: TE fused cross-entropy, and for Megatron FSDP rows the
#   blocks as units, bf16 gradient shards, FP8 parameters: the GB200 Llama 3 70B rows 12 / 19,
#   skipped as "does not fit" at 193.6 GiB before, fit at 181.83 GiB and are predicted; row 20
#   (405B, r2.4.0's recommended 95 offloaded blocks) is no longer refused for memory, and (since
#   pl_cluster_place puts its 128 GPUs on 64-GPU NVLink segments) is predicted.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/torchtitan_performance.csv" --quantity memory
for r in 11 12; do
  check "torchtitan row $r: 65.708 GiB" grep -qE "^ +$r +Llama 3.1 70B, 256 x h100, .* 65\.708 " "$TMP/out"
done
N="$V/nemo_2409_2507_performance_summary.csv"
expect_ok validate "$N" --explain 12
check "nemo row 12: TE cross-entropy" grep -q "TE fused cross-entropy (the performance scripts'" "$TMP/out"
check "nemo row 12: Megatron FSDP units" grep -q "Megatron FSDP: blocks as its units" "$TMP/out"
# 184.55 GiB with BF16 parameters and units (session 24: r2.3.0's performance scripts turn
# fp8_param_gather off under Megatron FSDP; 181.83 GiB with them in FP8)
check "nemo row 12 fits" grep -q "184.55 GiB of 185.03 GiB: fits" "$TMP/out"
expect_ok validate "$N"
for r in 12 19; do
  check "nemo row $r predicted" grep -qE "^ +$r +LLAMA3-70B, 64 x gb200, .* [-+]?[0-9.]+%$" "$TMP/out"
done
check "nemo row 20 not refused for memory: predicted" grep -qE "^ +20 +LLAMA3.1-405B, 128 x gb200, .* [-+]?[0-9.]+%$" "$TMP/out"
expect_ok validate "$N" --format csv
check "nemo row 20: the release's offload noted" \
  grep -qE '^"nemo_2409_2507_performance_summary",20,.*activations of 95 blocks offloaded' "$TMP/out"
finish
