#!/usr/bin/env bash
# `--fsdp-comm one|separate` (docs/step-model.md section 5, "One FSDP
# communicator"): one communicator is the default for zero2/zero3, shown as
# layout.fsdp_comm; a separate reduce_scatter communicator changes the step
# where gathers and reduce_scatters overlap; zero1 has none; bad values fail.
. "$(dirname "$0")/lib.sh"

# json_str FILE KEY / json_num FILE KEY: the first value of "KEY": in FILE.
json_str() { grep -o "\"$2\": *\"[a-z]*\"" "$1" | head -1 | sed 's/.*"\([a-z]*\)"$/\1/'; }
json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

# llama2-70b zero3, tp4 on 256 H100: per unit the gathers and the
# reduce_scatter overlap the compute, so serializing them moves the step
run=(predict --model llama2-70b --gpus 256 --tp 4 --shard zero3 --recompute full --batch-per-gpu 2 --format json)
expect_ok "${run[@]}"
cp "$TMP/out" "$TMP/one.json"
check "default is one communicator" [ "$(json_str "$TMP/one.json" fsdp_comm)" = one ]
expect_ok "${run[@]}" --fsdp-comm separate
cp "$TMP/out" "$TMP/sep.json"
check "--fsdp-comm separate is reported" [ "$(json_str "$TMP/sep.json" fsdp_comm)" = separate ]
check "the step time depends on it" \
  [ "$(json_num "$TMP/one.json" step_time_s)" != "$(json_num "$TMP/sep.json" step_time_s)" ]
expect_ok "${run[@]}" --fsdp-comm one
check "--fsdp-comm one is the default" cmp -s "$TMP/out" "$TMP/one.json"

# zero1 has no per-unit FSDP traffic
expect_ok predict --model llama2-7b --gpus 16 --shard zero1 --format json
check "zero1 reports none" [ "$(json_str "$TMP/out" fsdp_comm)" = none ]

expect_fail 1 "--fsdp-comm: unknown value 'two' \(expected one\|separate\)" -- predict --fsdp-comm two
expect_fail 1 "--fsdp-comm: unknown value" -- search --gpus 8 --fsdp-comm ""
finish
