#!/usr/bin/env bash
# `--fsdp-ga-nosync on|off` (layout.fsdp_ga_nosync, docs/step-model.md section 4):
# zero2/zero3 with pp 1 and gradient accumulation as NeMo AutoModel's
# MoEFSDPSyncMixin runs it (components/moe/fsdp_mixin.py, 2c236e081+, with
# enable_fsdp_optimizations): every backward but the last skips its
# reduce_scatter and keeps its unit gathered. Llama-2 7B, 8 GPUs, zero2, gbs 64
# (dp 8, mbs 1: 8 micro-batches), 33 FSDP units (32 blocks, the embedding and
# the head with the root): by hand 8 x 33 = 264 gathers and 264 reduce_scatters
# a step without it, 33 and 33 with it (the first forward gathers, the last
# backward reduce_scatters), and a shorter step. validate sets it on NeMo
# AutoModel row 2 (Nemotron 3 Nano). Bad values fail.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

run=(predict --model llama2-7b --gpus 8 --gbs 64 --shard zero2 --framework torchtitan)
expect_ok "${run[@]}"
check "off: 264 dp all_gathers" grep -qE "^  all_gather +dp +264 " "$TMP/out"
check "off: 264 dp reduce_scatters" grep -qE "^  reduce_scatter +dp +264 " "$TMP/out"
expect_ok "${run[@]}" --format json
cp "$TMP/out" "$TMP/off.json"
expect_ok "${run[@]}" --fsdp-ga-nosync on
check "on: 33 dp all_gathers" grep -qE "^  all_gather +dp +33 " "$TMP/out"
check "on: 33 dp reduce_scatters" grep -qE "^  reduce_scatter +dp +33 " "$TMP/out"
expect_ok "${run[@]}" --fsdp-ga-nosync on --format json
check "on: a shorter step" awk \
  -v a="$(json_num "$TMP/off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(b > 0 && b < a) }'
expect_ok "${run[@]}" --fsdp-ga-nosync off --format json
check "off is the default" \
  [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/off.json" step_time_s)" ]

expect_ok validate "$PL_SOURCE_DIR/data/validation/nemo_automodel_performance.csv" --format csv
check "AutoModel row 2 carries --fsdp-ga-nosync on" \
  grep -qE '^"nemo_automodel_performance",2,.*--fsdp-ga-nosync on' "$TMP/out"

expect_fail 1 "^plateau: --fsdp-ga-nosync: unknown value 'yes' \(expected off\|on\)" -- \
  "${run[@]}" --fsdp-ga-nosync yes
expect_fail 1 "^plateau: layout: --fsdp-ga-nosync needs FSDP units" -- \
  predict --model llama2-7b --gpus 8 --gbs 64 --shard zero1 --fsdp-ga-nosync on
expect_fail 1 "^plateau: layout: --fsdp-ga-nosync is for pp 1" -- \
  predict --model llama2-7b --gpus 8 --pp 2 --gbs 64 --shard zero3 --fsdp-ga-nosync on
finish
