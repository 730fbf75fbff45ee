#!/usr/bin/env bash
# Partial full recomputation (docs/step-model.md 2.4): --recompute-layers N
# (Megatron-Core --recompute-method block --recompute-num-layers N) and
# --recompute-every K (torchtitan selective_ac_option K). Both move compute
# and memory between recompute none and full, are recorded in JSON and CSV,
# and fail on bad values with one line.
. "$(dirname "$0")/lib.sh"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
between() { awk -v a="$1" -v x="$2" -v b="$3" 'BEGIN { exit !(a < x && x < b) }'; }

run=(predict --model llama3-70b --gpus 64 --tp 8 --pp 8 --gbs 128 --shard zero1 --format json)
expect_ok "${run[@]}" --recompute none; cp "$TMP/out" "$TMP/none.json"
expect_ok "${run[@]}" --recompute full; cp "$TMP/out" "$TMP/full.json"
expect_ok "${run[@]}" --recompute full --recompute-layers 5; cp "$TMP/out" "$TMP/l5.json"
expect_ok "${run[@]}" --recompute full --recompute-every 2; cp "$TMP/out" "$TMP/e2.json"
expect_ok "${run[@]}" --recompute full --recompute-layers 10; cp "$TMP/out" "$TMP/l10.json"

for f in l5 e2; do
  check "$f: step between none and full" between "$(j "$TMP/none.json" "['step_time_s']")" "$(j "$TMP/$f.json" "['step_time_s']")" "$(j "$TMP/full.json" "['step_time_s']")"
  check "$f: activations between full and none" between "$(j "$TMP/full.json" "['memory']['activations_bytes']")" "$(j "$TMP/$f.json" "['memory']['activations_bytes']")" "$(j "$TMP/none.json" "['memory']['activations_bytes']")"
done
# 10 blocks per stage: 5 of them recomputed, the hardware FLOPs halfway
check "l5: half the recomputed FLOPs" python3 -c "
import json; n, f, h = (json.load(open('$TMP/' + x + '.json'))['flops']['hardware_per_step'] for x in ('none', 'full', 'l5'))
assert abs((h - n) / (f - n) - 0.5) < 1e-12"
# every second block of 10 = the first 5: the same share
check "e2 = l5 here (5 of 10 blocks)" [ "$(j "$TMP/e2.json" "['step_time_s']")" = "$(j "$TMP/l5.json" "['step_time_s']")" ]
# N at least the chunk's blocks: every block, as plain full
check "l10 = full" [ "$(j "$TMP/l10.json" "['step_time_s']")" = "$(j "$TMP/full.json" "['step_time_s']")" ]
check "json recompute_layers" [ "$(j "$TMP/l5.json" "['layout']['recompute_layers']")" = 5 ]
check "json recompute_every" [ "$(j "$TMP/e2.json" "['layout']['recompute_every']")" = 2 ]
expect_ok predict --recompute full --recompute-every 4 --format csv
check "csv recompute_every" [ "$(col "$TMP/out" layout.recompute_every)" = 4 ]
check "csv recompute_layers 0 (all)" [ "$(col "$TMP/out" layout.recompute_layers)" = 0 ]

# bad values
expect_fail 1 "need --recompute full" -- predict --recompute-layers 2
expect_fail 1 "need --recompute full" -- predict --recompute selective --recompute-every 2
expect_fail 1 "give --recompute-layers or --recompute-every, not both" -- predict --recompute full --recompute-layers 2 --recompute-every 2
expect_fail 1 "more than the model's 32 blocks" -- predict --recompute full --recompute-every 33
expect_fail 1 "^plateau: --recompute-layers: '0' must be positive$" -- predict --recompute full --recompute-layers 0
expect_fail 1 "^plateau: --recompute-every: " -- predict --recompute full --recompute-every two
expect_fail 1 "a layout search does not take it" -- search --gpus 8 --recompute full --recompute-layers 2
expect_fail 1 "^plateau: --recompute: unknown recompute mode 'ops' \(expected none\|selective\|full\)$" -- predict --recompute ops

finish
