#!/usr/bin/env bash
# TinyLlama's published throughput (data/validation/tinyllama_readme.csv, session 27): 24k tokens/s per
# A100-40G GPU for the 1.1B model under Lightning Fabric FSDP (FULL_SHARD, no activation checkpointing,
# FlashAttention-2 and flash-attn / xformers fused kernels), read by the generic rules as pytorch-fsdp
# with fused kernels. Checks the conversion by hand and a regression bound from the first look
# (docs/accuracy.md "Session 27 (helper gt27)"): -14.7 % (predicted too fast); bound |error| <=
# ceil(14.7 + 3) = 18 % (the rule of cli_validate_olmo_core / cli_validate_automodel for a mean;
# one row). A guard, not a target.
. "$(dirname "$0")/lib.sh"
T="$PL_SOURCE_DIR/data/validation/tinyllama_readme.csv"
if ! command -v python3 >/dev/null; then
  echo "python3 not found: skipped"
  exit 77
fi
expect_ok validate "$T" --format csv
row() { grep -E "^\"tinyllama_readme\",$1," "$TMP/out" | grep -q -- "$2"; }
# 16 GPUs x 8 sequences x 8 accumulation steps = 1024 sequences of 2048 tokens at 24,000 tokens/s/GPU:
# step = 1024 x 2048 / (24000 x 16) = 5.46133 s
check "row 1 step by hand (tokens/s per GPU)" row 1 ',24000,5.46133,'
check "row 1 FSDP1 FULL_SHARD on 16 A100 40 GB, bf16 reduce" row 1 '--gpu a100-40g .*--gpus 16 .*--shard zero3 .*--framework pytorch-fsdp .*--grad-reduce-dtype bf16'
check "row 1 GQA without a KV expand copy" row 1 '"kv_heads"":4.*--kv-expand-copy off'
# session 28 (olmo28): flash-attn's fused xentropy kernel on the fp32 logits Lightning Fabric's
# convert_output hands it, and autocast's weight casts of FSDP's fp32 parameters (bf16-mixed)
check "row 1 fused loss on fp32 logits, fp32 parameters under autocast" row 1 '--eager-cross-entropy off .*--logits-fp32 on .*--autocast-weight-casts on'
e=$(python3 -c "
import csv, sys
r = [r for r in csv.DictReader(open('$TMP/out')) if r['row'] == '1'][0]
print(abs(float(r['error_pct'])) if r['error_pct'] else 'nan')")
echo "TinyLlama: |error| $e % (bound 18)"
check "row 1 predicted, |error| $e % <= 18 %" python3 -c "import sys; sys.exit(not float('$e') <= 18)"
finish
