#!/usr/bin/env bash
# `--pp-keep-outputs on|off` (layout.pp_keep_outputs, docs/frameworks.md): every
# pipeline stage keeps each micro-batch's output until the step ends, as
# torch.distributed.pipelining did before PyTorch PR #153383 (stage.py
# forward_one_chunk: output_chunks). Memory only. Llama-2 7B, 16 GPUs, pp 4,
# gbs 64 (dp 4, mbs 1: 16 micro-batches of 4096 tokens): the last stage keeps
# 16 x 2 B x 4096 x 32000 logits = 4,194,304,000 B more activations, stage 0
# 16 x 2 B x 4096 x 4096 = 536,870,912 B; the busiest stage's activations rise
# by at least the smaller and at most the larger. The step does not move; the
# setting is in JSON and CSV; validate sets it for torchtitan's torch 1963fc8
# PP rows (row 14: 72.81 GiB against the published 72.7 in session 17; 60.34 GiB
# since session 26's fit26, whose FSDP2 gradients exist only from a chunk's first
# backward: row 14 runs every forward first, so one chunk's are live at the peak,
# docs/model.md); bad values fail.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }
json_raw() { grep -o "\"$2\": *[a-z]*" "$1" | head -1 | sed 's/.*: *//'; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }

run=(predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --shard zero3 --format json)
expect_ok "${run[@]}"
cp "$TMP/out" "$TMP/off.json"
check "default: off" [ "$(json_raw "$TMP/off.json" pp_keep_outputs)" = false ]
expect_ok "${run[@]}" --pp-keep-outputs on
cp "$TMP/out" "$TMP/on.json"
check "on is reported" [ "$(json_raw "$TMP/on.json" pp_keep_outputs)" = true ]
check "on: the kept outputs in the activations" awk \
  -v a0="$(json_num "$TMP/off.json" activations_bytes)" -v a1="$(json_num "$TMP/on.json" activations_bytes)" \
  'BEGIN { d = a1 - a0; exit !(d >= 536870912 && d <= 4194304000) }'
check "on: same step time" [ "$(json_num "$TMP/on.json" step_time_s)" = "$(json_num "$TMP/off.json" step_time_s)" ]

# pp = 1: nothing changes but the reported setting
expect_ok predict --model llama2-7b --gpus 16 --gbs 64 --shard zero3 --format json
t0=$(json_num "$TMP/out" total_bytes)
expect_ok predict --model llama2-7b --gpus 16 --gbs 64 --shard zero3 --format json --pp-keep-outputs on
check "pp 1: same memory" [ "$(json_num "$TMP/out" total_bytes)" = "$t0" ]

expect_ok predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --pp-keep-outputs on --format csv
check "csv: framework.pp_keep_outputs on" [ "$(col "$TMP/out" framework.pp_keep_outputs)" = on ]

expect_ok validate "$PL_SOURCE_DIR/data/validation/torchtitan_performance.csv" --quantity memory
check "torchtitan row 14 (interleaved): 60.344 GiB" \
  grep -qE "^ +14 +Llama 3.1 405B, 512 x h100, .* 60\.344 " "$TMP/out"
expect_ok validate "$PL_SOURCE_DIR/data/validation/torchtitan_performance.csv" --format csv
check "torchtitan PP rows: the command carries it" \
  grep -qE '^"torchtitan_performance",13,.*--pp-keep-outputs on' "$TMP/out"

expect_fail 1 "^plateau: --pp-keep-outputs: unknown value 'yes' \(expected on\|off\)" -- predict --pp-keep-outputs yes
expect_fail 1 "^plateau: --pp-keep-outputs: unknown value '' \(expected on\|off\)" -- predict --pp-keep-outputs ""
finish
