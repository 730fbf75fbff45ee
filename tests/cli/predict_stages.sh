#!/usr/bin/env bash
# Uneven pipeline stages (--first-stage-layers, --last-stage-layers; Megatron-Core
# --decoder-first/last-pipeline-num-layers, docs/step-model.md section 5): the
# split as Megatron-Core makes it, recorded in JSON and CSV, the step and the
# memory following the largest stage, and bad values failing on one line.
. "$(dirname "$0")/lib.sh"

jnum() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

base=(predict --model llama2-7b --gpus 8 --pp 4 --gbs 32 --format json)

# even split: 32 blocks on 4 stages, 8 each, recorded as such
expect_ok "${base[@]}"
cp "$TMP/out" "$TMP/even.json"
check "even: first stage 8 blocks" [ "$(jnum "$TMP/even.json" "['layout']['first_stage_layers']")" = 8 ]
check "even: last stage 8 blocks" [ "$(jnum "$TMP/even.json" "['layout']['last_stage_layers']")" = 8 ]

# 11 on the first stage, the other 21 split 7/7/7: the first stage decides
expect_ok "${base[@]}" --first-stage-layers 11
cp "$TMP/out" "$TMP/f11.json"
check "first 11: recorded" [ "$(jnum "$TMP/f11.json" "['layout']['first_stage_layers']")" = 11 ]
check "first 11: the rest split evenly (last 7)" [ "$(jnum "$TMP/f11.json" "['layout']['last_stage_layers']")" = 7 ]
check "first 11: slower step (the largest stage holds 11 > 8 blocks)" \
  gt "$(jnum "$TMP/f11.json" "['step_time_s']")" "$(jnum "$TMP/even.json" "['step_time_s']")"
check "first 11: memory decided by stage 0" [ "$(jnum "$TMP/f11.json" "['memory']['stage']")" = 0 ]
check "first 11: more activation memory on the busiest stage" \
  gt "$(jnum "$TMP/f11.json" "['memory']['activations_bytes']")" "$(jnum "$TMP/even.json" "['memory']['activations_bytes']")"

# Llama 3 405B as Meta ran it (126 blocks on 16 stages, one fewer on the first
# and last: Llama 3 paper, Sec. 3.3.2): 7 + 14 x 8 + 7
expect_ok predict --model llama3-405b --gpus 1024 --tp 8 --pp 16 --gbs 512 --shard zero1 \
  --recompute full --first-stage-layers 7 --last-stage-layers 7 --format csv
check "405B csv: first 7" [ "$(col "$TMP/out" layout.first_stage_layers)" = 7 ]
check "405B csv: last 7" [ "$(col "$TMP/out" layout.last_stage_layers)" = 7 ]
# with interleaving each stage's blocks split over its chunks
expect_ok predict --model llama3-405b --gpus 1024 --tp 8 --pp 16 --vp 2 --gbs 512 --shard zero1 \
  --recompute full --first-stage-layers 6 --last-stage-layers 8 --format json
check "405B vp 2: step simulated" python3 -c "import json,sys; sys.exit(json.load(open('$TMP/out'))['step_time_s'] is None)"

# bad values: one line each
expect_fail 1 "^plateau: --first-stage-layers: '0' must be positive$" -- "${base[@]}" --first-stage-layers 0
expect_fail 1 "^plateau: --last-stage-layers: '-3' is not a positive integer$" -- "${base[@]}" --last-stage-layers -3
expect_fail 1 "^plateau: --first-stage-layers: " -- "${base[@]}" --first-stage-layers x
expect_fail 1 "need pp >= 2" -- predict --first-stage-layers 4
expect_fail 1 "not divisible by the other 14 stages" -- predict --model llama3-405b --gpus 1024 --tp 8 --pp 16 --first-stage-layers 2 --last-stage-layers 4
expect_fail 1 "leave 0 of 32 blocks for the other 2 stages" -- "${base[@]}" --first-stage-layers 30 --last-stage-layers 2
expect_fail 1 "leave 2 of 32 blocks for the other 3 stages" -- "${base[@]}" --first-stage-layers 30
expect_fail 1 "stage 0's 7 blocks are not divisible by vp = 2" -- "${base[@]}" --vp 2 --first-stage-layers 7 --last-stage-layers 7 --pp 4
expect_fail 1 "a layout search does not take it" -- search --gpus 8 --first-stage-layers 4
expect_fail 1 "a layout search does not take it" -- sweep --gpus 8,16 --layout best --last-stage-layers 4
# sweep with the given layout takes them
expect_ok sweep --gpus 8,16 --pp 2 --first-stage-layers 17 --format csv --threads 1
check "sweep given: recorded per point" [ "$(col "$TMP/out" layout.first_stage_layers | tr '\n' ' ')" = "17 17 " ]

finish
