#!/usr/bin/env bash
# `--pp-schedules N` (layout.pp_schedules, docs/step-model.md section 5): the
# step's micro-batches run as N pipeline schedules one after another, PyTorch
# pipelining's schedule.step() once per gradient-accumulation step (NeMo
# AutoModel recipes/llm/benchmark.py run_benchmark -> train_ft.py
# _forward_backward_step @ 89e3a9fdd). Llama-2 7B, 16 GPUs, pp 4, 1F1B, gbs 64
# (dp 4, mbs 1: 16 micro-batches): a 1F1B schedule's bubble is (p - 1)(tf + tb)
# whatever its micro-batch count, so 4 schedules of 4 have 4 times the bubble
# of one schedule of 16 (by hand: 0.288 s -> 1.153 s here; checked as a ratio
# of 3.9-4.1) and a longer step; under FSDP (zero3 with torchtitan's
# fsdp_pp_unsharded) each schedule gathers and reduce_scatters every chunk
# once: 4 times the dp calls. validate sets it on NeMo AutoModel rows 4 and 17.
# Bad values fail.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

run=(predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --shard zero3 --framework torchtitan --format json)
expect_ok "${run[@]}"
cp "$TMP/out" "$TMP/one.json"
expect_ok "${run[@]}" --pp-schedules 1
check "--pp-schedules 1 is one schedule" \
  [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/one.json" step_time_s)" ]
expect_ok "${run[@]}" --pp-schedules 4
cp "$TMP/out" "$TMP/four.json"
check "4 schedules: 4 times the bubble" awk \
  -v b1="$(json_num "$TMP/one.json" bubble_s)" -v b4="$(json_num "$TMP/four.json" bubble_s)" \
  'BEGIN { r = b4 / b1; exit !(b1 > 0 && r >= 3.9 && r <= 4.1) }'
check "4 schedules: a longer step" awk \
  -v t1="$(json_num "$TMP/one.json" step_time_s)" -v t4="$(json_num "$TMP/four.json" step_time_s)" \
  'BEGIN { exit !(t4 > t1) }'
expect_ok predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --shard zero3 --framework torchtitan
check "one schedule: 9 dp all_gathers (8 blocks and the embedding)" grep -qE "^  all_gather +dp +9 " "$TMP/out"
expect_ok predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --shard zero3 --framework torchtitan --pp-schedules 4
check "four schedules: 36 dp all_gathers" grep -qE "^  all_gather +dp +36 " "$TMP/out"

expect_ok validate "$PL_SOURCE_DIR/data/validation/nemo_automodel_performance.csv" --format csv
check "AutoModel row 4 carries --pp-schedules 4" \
  grep -qE '^"nemo_automodel_performance",4,.*--pp-schedules 4' "$TMP/out"
check "AutoModel row 17 carries --pp-schedules 8" \
  grep -qE '^"nemo_automodel_performance",17,.*--pp-schedules 8' "$TMP/out"

expect_fail 1 "^plateau: layout: --pp-schedules 3 must divide the step's 16 micro-batches" -- \
  predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --pp-schedules 3
expect_fail 1 "^plateau: layout: --pp-schedules 2 needs pipeline parallelism" -- \
  predict --model llama2-7b --gpus 16 --gbs 64 --pp-schedules 2
expect_fail 1 "^plateau: layout: interleaving needs each pipeline schedule's micro-batches" -- \
  predict --model llama2-7b --gpus 16 --pp 4 --vp 2 --gbs 64 --pp-schedules 8
expect_fail 1 "^plateau: --pp-schedules: 'x' is not a positive integer" -- predict --pp-schedules x
expect_fail 1 "^plateau: --pp-schedules: '-1' is not a positive integer" -- predict --pp-schedules -1
finish
