#!/usr/bin/env bash
# `validate --scaling`: weak scaling as published. Every pair's efficiencies
# must be the ratio of its two rows' step times in the full validation
# (within a series the work per GPU is the same, so per-GPU throughput is
# 1 / step time), in text, CSV and JSON alike; a file without a series says
# so; --scaling refuses --explain; pairs stay inside one publication.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
F="$V/llmfoundry_mpt_benchmarks.csv"

expect_ok validate "$F"
cp "$TMP/out" "$TMP/rows.txt"
expect_ok validate "$F" --scaling --format csv
cp "$TMP/out" "$TMP/pairs.csv"
check "csv header" sh -c "head -1 '$TMP/pairs.csv' | grep -qx 'dataset,series,base_row,row,base_gpus,gpus,measured_efficiency,predicted_efficiency,gap_pp'"
n=$(($(wc -l <"$TMP/pairs.csv") - 1))
check "the MPT tables have weak-scaling series ($n pairs)" test "$n" -ge 20

# step times by row from the text report (3 decimals: compared to 0.5 %)
step() { awk -v r="$1" -v k="$2" '$1 == r && $NF ~ /%$/ {print $(NF - 3 + k)}' "$TMP/rows.txt"; }
bad=0
while IFS=, read -r base row bg g meff peff gap; do
  mb=$(step "$base" 1) mr=$(step "$row" 1) pb=$(step "$base" 2) pr=$(step "$row" 2)
  awk -v mb="$mb" -v mr="$mr" -v pb="$pb" -v pr="$pr" -v me="$meff" -v pe="$peff" -v gap="$gap" \
    -v bg="$bg" -v g="$g" 'BEGIN {
      ok = g > bg && (me - mb / mr) ^ 2 <= 2.5e-5 * me ^ 2 && (pe - pb / pr) ^ 2 <= 2.5e-5 * pe ^ 2 &&
           (gap - 100 * (pe - me)) ^ 2 <= 1e-4
      exit !ok }' || { bad=$((bad + 1)); echo "pair $base->$row: $meff $peff $gap vs steps $mb $mr $pb $pr" >&2; }
done < <(tail -n +2 "$TMP/pairs.csv" | awk -F, '{print $(NF-6) "," $(NF-5) "," $(NF-4) "," $(NF-3) "," $(NF-2) "," $(NF-1) "," $NF}')
check "every pair is the ratio of its rows' step times ($bad off)" test "$bad" -eq 0

expect_ok validate "$F" --scaling --format json
check "json: pairs and summary" sh -c "grep -q '\"scaling\": *\[' '$TMP/out' && grep -q '\"pairs\": *$n' '$TMP/out' && grep -q '\"median_gap_pp\"' '$TMP/out'"
check "json: as many pairs as the csv" test "$(grep -c '"base_row"' "$TMP/out")" -eq "$n"
expect_ok validate "$F" --scaling
check "text: one line per pair" test "$(grep -Ec '^ +[0-9]+->[0-9]+ +[0-9]+->[0-9]+ ' "$TMP/out")" -eq "$n"
check "text: the summary" grep -Eq "^$n pairs: per-GPU throughput lost, mean -?[0-9.]+% measured, -?[0-9.]+% predicted" "$TMP/out"

# --plot with --scaling: the weak-scaling figure's script, its data inline
if command -v gnuplot >/dev/null 2>&1; then
  expect_ok validate "$F" --scaling --plot "$TMP/fig"
  check "svg and png drawn" test -s "$TMP/fig/scaling.svg" -a -s "$TMP/fig/scaling.png"
else
  expect_fail 1 "gnuplot not found" -- validate "$F" --scaling --plot "$TMP/fig"
fi
check "the script holds every pair" test "$(grep -Ec '^-?[0-9.e+-]+ -?[0-9.e+-]+ [0-9]+ [0-9]+$' "$TMP/fig/scaling.gp")" -eq "$n"
check "no accuracy figure with --scaling" test ! -e "$TMP/fig/accuracy.gp"

# mlperf_gpt3 gathers four MLPerf rounds: a pair never joins two rounds (the
# 'source' cell), whose software differs, and the file keeps pairs within rounds.
expect_ok validate "$V/mlperf_gpt3.csv" --scaling --format csv
check "mlperf_gpt3: pairs within one round only" python3 - "$V/mlperf_gpt3.csv" "$TMP/out" <<'PY'
import csv, sys
src = {i + 1: r["source"] for i, r in enumerate(csv.DictReader(open(sys.argv[1])))}
pairs = list(csv.DictReader(open(sys.argv[2])))
crossed = [(p["base_row"], p["row"]) for p in pairs if src[int(p["base_row"])] != src[int(p["row"])]]
sys.exit(1 if crossed or not pairs else 0)
PY

expect_ok validate "$V/opt175b_paper.csv" --scaling
check "no series: said so" grep -q "^no series" "$TMP/out"
expect_ok validate "$V/opt175b_paper.csv" --scaling --format json
check "no series: json has zero pairs" grep -q '"pairs": 0' "$TMP/out"

expect_fail 2 "--explain: not with --plot, --baseline, --write-baseline or --scaling" -- \
  validate "$F" --explain 1 --scaling
finish
