#!/usr/bin/env bash
# `validate --explain ROW`: one published run's whole prediction, with
# compute per operation. It must be the same prediction the full validation
# makes for that row (same measured and predicted step), say why a skipped
# row is skipped, and refuse what it cannot do with a clear message.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
K="$V/korthikanti2022_activation_recompute.csv"

# the row's measured,predicted pair from the whole file's text report
# (printed to 3 decimals: compared to 0.05 %)
pair_text() { awk -v r="$2" '$1 == r && $NF ~ /%$/ {print $(NF-2) "," $(NF-1)}' "$1"; }
num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

expect_ok validate "$K"
cp "$TMP/out" "$TMP/all.txt"
for r in 1 3 9; do
  expect_ok validate "$K" --explain "$r" --format json
  cp "$TMP/out" "$TMP/one.json"
  want=$(pair_text "$TMP/all.txt" "$r")
  got="$(num "$TMP/one.json" measured),$(num "$TMP/one.json" predicted)"
  check "row $r: the same prediction as the full run ($want)" \
    awk -v a="$want" -v b="$got" 'BEGIN {split(a, x, ","); split(b, y, ",");
      exit !(x[2] > 0 && (x[1] - y[1]) ^ 2 <= 2.5e-7 * x[1] ^ 2 && (x[2] - y[2]) ^ 2 <= 2.5e-7 * x[2] ^ 2)}'
  check "row $r: json has the row, the prediction and its ops" \
    sh -c "grep -q '\"row\": *{' '$TMP/one.json' && grep -q '\"prediction\": *{' '$TMP/one.json' && grep -q '\"per_step_s\"' '$TMP/one.json'"
done

expect_ok validate "$K" --explain 1
check "text: the row line" grep -q "^korthikanti2022_activation_recompute row 1 (line 2): " "$TMP/out"
check "text: measured and predicted" grep -Eq "^  measured [0-9.]+ s, predicted [0-9.]+ s per step: [+-][0-9.]+%" "$TMP/out"
check "text: the prediction" grep -q "^plateau predict: " "$TMP/out"
check "text: compute per operation" grep -q "^compute per operation" "$TMP/out"

# torchtitan's selective layer AC (every 2nd of 32 blocks recomputed, row
# 36: Llama 3 8B on 64 A100): the ops' sum per step counts the recomputed
# forward in half the blocks, as the simulator, so it is not above the
# step's compute, which adds only the slowdown while collectives run beside
# it (at most the overlapped communication)
T="$V/torchtitan_performance.csv"
expect_ok validate "$T" --explain 36 --format json
cp "$TMP/out" "$TMP/tt.json"
ops_sum=$(grep -o '"per_step_s": *[0-9.e+-]*' "$TMP/tt.json" | sed 's/.*: *//' | awk '{s += $1} END {printf "%.17g", s}')
check "row 36: the ops sum ($ops_sum s) <= compute_s <= it + overlapped comm" \
  awk -v s="$ops_sum" -v c="$(num "$TMP/tt.json" compute_s)" -v o="$(num "$TMP/tt.json" overlapped_comm_s)" \
  'BEGIN {exit !(s > 0 && s <= c * (1 + 1e-9) && c <= s + o)}'
expect_ok validate "$T" --explain 36
check "text: row 36 is a selective layer AC row" grep -q "every 2nd block" "$TMP/out"
check "text: the share of blocks recomputed" \
  grep -q "(recompute full on 16 of a stage's 32 blocks: bwd is the average block's" "$TMP/out"
check "text: the step's compute beside the sum" grep -Eq "^ +step's compute +[0-9.]+ s = sum \+ " "$TMP/out"
check "text: what is not compute" \
  grep -Eq "^ +not compute +exposed communication .*, pipeline bubble .*, optimizer .*, other " "$TMP/out"

expect_ok validate "$V/opt175b_paper.csv" --explain 1
check "a skipped row says why" grep -q "^  skipped: " "$TMP/out"
check "a skipped row has no prediction" sh -c "! grep -q '^plateau predict' '$TMP/out'"
expect_ok validate "$V/opt175b_paper.csv" --explain 1 --format json
check "json: a skipped row's prediction is null" grep -q '"prediction": null' "$TMP/out"

expect_fail 1 "no row 999 \(it has rows 1 to 15\)" -- validate "$K" --explain 999
expect_fail 1 "--explain: '0' must be positive" -- validate "$K" --explain 0
expect_fail 1 "--explain: 'x' is not a positive integer" -- validate "$K" --explain x
expect_fail 2 "--explain: give exactly one CSV file" -- validate "$K" "$V/opt175b_paper.csv" --explain 1
expect_fail 2 "--explain: text or json output only" -- validate "$K" --explain 1 --format csv
expect_fail 2 "--explain: not with --plot" -- validate "$K" --explain 1 --plot "$TMP/p"
expect_fail 1 "cannot open" -- validate /nonexistent/x.csv --explain 1
finish
