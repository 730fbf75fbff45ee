#!/usr/bin/env bash
# Time and cost to train (`--tokens`, `--gpu-hour-price`, `--energy-price`;
# src/sim/train.c, docs/model.md "Time and cost to train") on predict, search
# and sweep, in text, JSON and CSV, against a hand computation.
#
# Hand computation for the issue's example, Llama-3 70B on 1024 H100s, tp 8
# (dp 128), one 8,192-token sequence per GPU: gbs 1024 x 8192 = 8,388,608
# tokens per step; 15T tokens take ceil(15e12 / 8,388,608) = ceil(1,788,139.3)
# = 1,788,140 steps. At the step time predicted when this test was written,
# 10.142 s, that is 18.135e6 s = 209.9 days; 1024 GPUs x 18.135e6 s / 3600 =
# 5.158e6 GPU-hours, x $2.50 = $12.90 M. The checks below redo this sum from
# the printed step time, so they hold whatever the step model predicts.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

run=(predict --model llama3-70b --gpus 1024 --tp 8 --tokens 15T --gpu-hour-price 2.5)
expect_ok "${run[@]}" --format json
cp "$TMP/out" "$TMP/p.json"
step=$(json_num "$TMP/p.json" step_time_s)
check "json: 1,788,140 steps" awk -v n="$(json_num "$TMP/p.json" steps)" 'BEGIN { exit !(n == 1788140) }'
check "json: days = steps x step time / 86400" awk -v s="$step" \
  -v d="$(json_num "$TMP/p.json" days)" 'BEGIN { w = 1788140 * s / 86400; exit !(d > 0 && (d - w)^2 < (1e-12 * w)^2) }'
check "json: GPU-hours = 1024 x time / 3600, cost = x 2.5" awk -v s="$step" \
  -v h="$(json_num "$TMP/p.json" gpu_hours)" -v c="$(json_num "$TMP/p.json" cost_usd)" \
  'BEGIN { w = 1024 * 1788140 * s / 3600; exit !((h - w)^2 < (1e-12 * w)^2 && (c - 2.5 * w)^2 < (1e-12 * 2.5 * w)^2) }'
check "json: about 210 days and 12.9 M USD at today's step time (10.142 s +-20 %)" awk \
  -v d="$(json_num "$TMP/p.json" days)" -v c="$(json_num "$TMP/p.json" cost_usd)" \
  'BEGIN { exit !(d > 168 && d < 252 && c > 10.3e6 && c < 15.5e6) }'
check "json: no energy price, no energy cost" grep -q '"energy_cost_usd": null' "$TMP/p.json"

expect_ok "${run[@]}"
check "text: days to train" grep -Eq "^  time to train +[0-9.]+ days \([0-9.]+ M steps" "$TMP/out"
check "text: dollars" grep -Eq '^  GPU cost +\$[0-9.]+ M at \$2.5 per GPU-hour' "$TMP/out"
check "text: GPU-hours" grep -Eq "^  GPU-hours +[0-9.]+ M$" "$TMP/out"

expect_ok "${run[@]}" --energy-price 0.1 --format csv
check "csv: train columns in the header" \
  sh -c "head -1 '$TMP/out' | grep -q 'train.tokens,train.gpu_hour_usd,train.kwh_usd,train.steps,train.time_s,train.days,train.gpu_hours,train.cost_usd,train.energy_j,train.energy_kwh,train.energy_cost_usd'"
check "csv: the row has the steps" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i } NR == 2 { exit !($col["train.steps"] == 1788140) }' "$TMP/out"
check "csv: energy cost = kWh x 0.1" awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
  NR == 2 { k = $col["train.energy_kwh"]; c = $col["train.energy_cost_usd"]; exit !(k > 0 && (c - 0.1 * k)^2 < (1e-12 * c)^2) }' "$TMP/out"

# price alone: cost per million tokens, no budget
expect_ok predict --gpu-hour-price 2 --format json
check "price without tokens: per million tokens only" \
  sh -c "grep -q '\"days\": null' '$TMP/out' && grep -Eq '\"cost_usd_per_mtok\": [0-9]' '$TMP/out'"
expect_ok predict --format json
check "nothing asked: train is null" grep -q '"train": null' "$TMP/out"

# search and sweep carry it on every result
expect_ok search --gpus 16 --top 2 --tokens 300B --format json
check "search: every result has days" [ "$(grep -Ec '"days": [0-9]' "$TMP/out")" -ge 2 ]
expect_ok sweep --gpus 8,16 --tokens 2T --gpu-hour-price 2 --format json
check "sweep: every point has a cost" [ "$(grep -Ec '"cost_usd": [0-9]' "$TMP/out")" -eq 2 ]
expect_ok sweep --gpus 8,16 --tokens 2T --gpu-hour-price 2
check "sweep text: days and cost columns" grep -Eq "days +USD" "$TMP/out"

# bad values
expect_fail 1 "^plateau: --tokens: '15X' is not a count" -- predict --tokens 15X
expect_fail 1 "^plateau: --tokens: '0' must be positive" -- predict --tokens 0
expect_fail 1 "^plateau: --tokens: '-2T' must be positive" -- predict --tokens -2T
expect_fail 1 "^plateau: --tokens: '0.5' is 0.5, less than 1" -- predict --tokens 0.5
expect_fail 1 "^plateau: --tokens: '0x10' is not a count" -- predict --tokens 0x10
expect_fail 1 "^plateau: --tokens: expected a count" -- predict --tokens ""
expect_fail 1 "^plateau: --gpu-hour-price: -1 is not a positive price" -- predict --gpu-hour-price -1
expect_fail 1 "^plateau: --gpu-hour-price: 'x' is not a finite number" -- predict --gpu-hour-price x
expect_fail 1 "^plateau: --energy-price: 0 is not a positive price" -- predict --energy-price 0
expect_fail 1 "^plateau: --energy-price: 'nan' is not a finite number" -- sweep --gpus 8 --energy-price nan
expect_fail 1 "^plateau: --tokens: '1e400' is not a count" -- search --gpus 8 --tokens 1e400
expect_fail 2 "option needs a value" -- predict --tokens
finish
