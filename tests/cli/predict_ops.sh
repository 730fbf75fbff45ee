#!/usr/bin/env bash
# `predict --ops`: compute per operation. On one GPU nothing overlaps or
# waits, so the ops' per-step times add up to the step's compute time (the
# closed form of docs/step-model.md section 9); with pipeline stages the
# per-step figures count the busiest stage's blocks; csv has no room for it.
. "$(dirname "$0")/lib.sh"

num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }
sum() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | sed 's/.*: *//' | awk '{s += $1} END {printf "%.17g", s}'; }
close() { awk -v a="$1" -v b="$2" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-9 * b)}'; }

qwen="$PL_TEST_DATA/hf/Qwen2.5-0.5B.json"
# full recompute of some blocks (Qwen2.5-0.5B: 24 blocks; every 5th: 4 of
# them, torchtitan's selective layer AC; the first 7, Megatron's block
# method): the ops count the recomputed forward in that share of the blocks,
# as the simulator prices the average block
for extra in "" "--recompute full --mbs 2 --gbs 8" "--recompute selective --gbs 4" \
  "--recompute full --recompute-every 5 --mbs 2 --gbs 8" \
  "--recompute full --recompute-layers 7 --gbs 4"; do
  # shellcheck disable=SC2086
  expect_ok predict --model "$qwen" --gpus 1 $extra --ops --format json
  cp "$TMP/out" "$TMP/one.json"
  check "1 GPU ($extra): the ops add up to compute_s" \
    close "$(sum "$TMP/one.json" per_step_s)" "$(num "$TMP/one.json" compute_s)"
done
check "json: every op has a segment" [ "$(grep -c '"segment"' "$TMP/one.json")" -ge 10 ]
check "json: the embedding, a block and the head" \
  grep -q '"segment": *"embed".*' "$TMP/one.json"
check "json: the prediction is still there" grep -q '"step_time_s"' "$TMP/one.json"
expect_ok predict --model "$qwen" --gpus 1 --format json
check "without --ops json has no ops" sh -c "! grep -q '\"ops\"' '$TMP/out'"

expect_ok predict --model llama2-7b --gpus 16 --pp 4 --gbs 32 --ops
check "text: the table" grep -q "^compute per operation" "$TMP/out"
check "text: pp 4 runs 8 of 32 blocks per stage, 8 micro-batches" \
  grep -q "per step: 8 blocks x 8 micro-batches" "$TMP/out"
check "text: the GEMM shape of qkv" grep -Eq "layer +qkv +gemm +[0-9]+ x 12288 x 4096 x 1" "$TMP/out"
check "text: pp > 1 prints no one-GPU sum" sh -c "! grep -q 'sum per step' '$TMP/out'"
expect_ok predict --model llama2-7b --gpus 8 --ops
check "text: pp 1 sums the step" grep -q "sum per step" "$TMP/out"

check "text: a layout that fits says nothing more" sh -c "! grep -q 'does not fit, so no step' '$TMP/out'"
expect_ok predict --model llama2-70b --gpus 8 --ops
check "text: a layout that does not fit still lists its ops" grep -Eq "layer +fc1 +gemm" "$TMP/out"
check "text: and says no step was simulated" grep -q "does not fit, so no step was simulated" "$TMP/out"

expect_fail 2 "--ops: text or json output only" -- predict --ops --format csv
finish
