#!/usr/bin/env bash
# `--fsdp-ga-nosync off|on|keep` (layout.fsdp_ga_nosync / fsdp_ga_keep,
# docs/step-model.md section 5): zero2/zero3 with pp 1 and gradient accumulation
# as NeMo AutoModel runs it: on, get_sync_ctx's set_requires_gradient_sync(False)
# (recipes/llm/train_ft.py): every backward but the last skips its
# reduce_scatter; keep, its MoEFSDPSyncMixin (components/moe/fsdp_mixin.py,
# enable_fsdp_optimizations): the units also stay gathered. Llama-2 7B, 8 GPUs,
# zero2, gbs 64 (dp 8, mbs 1: 8 micro-batches), 33 FSDP units (32 blocks, the
# embedding and the head with the root): by hand 8 x 33 = 264 gathers and 264
# reduce_scatters a step without it; on: 264 gathers, 33 reduce_scatters (the
# last backward); keep: 33 and 33 (the first forward gathers); each step
# shorter. validate sets keep on NeMo AutoModel row 2 (Nemotron 3 Nano), on on
# row 1 (Nemotron 3 Super). Bad values fail.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

run=(predict --model llama2-7b --gpus 8 --gbs 64 --shard zero2 --framework torchtitan)
expect_ok "${run[@]}"
check "off: 264 dp all_gathers" grep -qE "^  all_gather +dp +264 " "$TMP/out"
check "off: 264 dp reduce_scatters" grep -qE "^  reduce_scatter +dp +264 " "$TMP/out"
expect_ok "${run[@]}" --format json
cp "$TMP/out" "$TMP/off.json"
expect_ok "${run[@]}" --fsdp-ga-nosync on
check "on: 264 dp all_gathers" grep -qE "^  all_gather +dp +264 " "$TMP/out"
check "on: 33 dp reduce_scatters" grep -qE "^  reduce_scatter +dp +33 " "$TMP/out"
expect_ok "${run[@]}" --fsdp-ga-nosync on --format json
cp "$TMP/out" "$TMP/on.json"
check "on: a shorter step" awk \
  -v a="$(json_num "$TMP/off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(b > 0 && b < a) }'
expect_ok "${run[@]}" --fsdp-ga-nosync keep
check "keep: 33 dp all_gathers" grep -qE "^  all_gather +dp +33 " "$TMP/out"
check "keep: 33 dp reduce_scatters" grep -qE "^  reduce_scatter +dp +33 " "$TMP/out"
expect_ok "${run[@]}" --fsdp-ga-nosync keep --format json
check "keep: shorter than on" awk \
  -v a="$(json_num "$TMP/on.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(b > 0 && b < a) }'
expect_ok "${run[@]}" --fsdp-ga-nosync off --format json
check "off is the default" \
  [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/off.json" step_time_s)" ]

expect_ok validate "$PL_SOURCE_DIR/data/validation/nemo_automodel_performance.csv" --format csv
check "AutoModel row 2 carries --fsdp-ga-nosync keep" \
  grep -qE '^"nemo_automodel_performance",2,.*--fsdp-ga-nosync keep' "$TMP/out"
check "AutoModel row 1 carries --fsdp-ga-nosync on" \
  grep -qE '^"nemo_automodel_performance",1,.*--fsdp-ga-nosync on' "$TMP/out"
check "AutoModel row 10 (defer_fsdp_grad_sync False) does not" \
  sh -c "! grep -qE '^\"nemo_automodel_performance\",10,.*--fsdp-ga-nosync' '$TMP/out'"

expect_fail 1 "^plateau: --fsdp-ga-nosync: unknown value 'yes' \(expected off\|on\|keep\)" -- \
  "${run[@]}" --fsdp-ga-nosync yes
expect_fail 1 "^plateau: layout: --fsdp-ga-nosync needs FSDP units" -- \
  predict --model llama2-7b --gpus 8 --gbs 64 --shard zero1 --fsdp-ga-nosync on
expect_fail 1 "^plateau: layout: --fsdp-ga-nosync is for pp 1" -- \
  predict --model llama2-7b --gpus 8 --pp 2 --gbs 64 --shard zero3 --fsdp-ga-nosync on
finish
