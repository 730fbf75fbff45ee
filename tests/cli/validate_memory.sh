#!/usr/bin/env bash
# `plateau validate --quantity memory`: plateau's peak memory per GPU against the published
# figure (torchtitan's Memory(GiB), the caching allocator's peak reserved bytes), in text, CSV
# and JSON; a run plateau predicts not to fit is still compared; bad values.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
TT="$V/torchtitan_performance.csv"

# CSV: the value columns are bytes. Row 1 prints 82.4 GiB: 82.4 x 1,073,741,824 =
# 88,476,326,298 B (%.6g: 8.84763e+10).
expect_ok validate "$TT" --quantity memory --format csv
check "csv header names bytes" grep -q ',published,measured_bytes,predicted_bytes,error_pct,' "$TMP/out"
check "row 1: quantity, published 82.4, measured 8.84763e+10 B" \
  grep -q '^"torchtitan_performance",1,[0-9]*,.*,"peak_memory_bytes",".*max_reserved_gib.*",82.4,8.84763e+10,' "$TMP/out"
# measured, predicted, error of row 1 (the cells after the published 82.4)
read -r meas pred err < <(sed -n 's/^"torchtitan_performance",1,.*",82\.4,\([^,]*\),\([^,]*\),\([^,]*\),.*/\1 \2 \3/p' "$TMP/out")
# the error is 100 (predicted - measured) / measured of the two byte columns
check "error from the byte columns ($meas $pred $err)" \
  awk -v m="$meas" -v p="$pred" -v e="$err" 'BEGIN { d = 100 * (p - m) / m - e; exit !(m > 0 && d < 0.01 && d > -0.01) }'
# the predicted figure is the total of the row's memory breakdown in --explain
pred_gib=$(awk -v p="$pred" 'BEGIN { printf "%.2f", p / 1073741824 }')
expect_ok validate "$TT" --explain 1
check "predicted = --explain's memory total ($pred_gib GiB)" \
  grep -qE "^  total +$pred_gib GiB of" "$TMP/out"
# 23 rows print Memory(GiB) (20 torchtitan pages + torchao's README rows 44-46, session 17);
# the others are skipped with the reason, none dropped
expect_ok validate "$TT" --quantity memory --summary
check "23 of 46 rows compared" grep -qE '^torchtitan_performance +46 +23 +23 ' "$TMP/out"
check "memory summary heading" grep -q '^peak memory per GPU, predicted vs published' "$TMP/out"
expect_ok validate "$TT" --quantity memory
check "row 19 skipped: no published figure" \
  grep -q "19  skipped (Llama 3.1 70B): no published memory figure (column 'Memory(GiB)' empty)" "$TMP/out"
check "text shows GiB" grep -q 'meas.(GiB) pred.(GiB)' "$TMP/out"
# a source without a memory figure: every row skipped with the reason
expect_ok validate "$V/megatron_lm_readme_2020.csv" --quantity memory --summary
check "the 2020 README prints none: 12 rows, 0 compared" \
  grep -qE '^megatron_lm_readme_2020 +12 +0 +12 ' "$TMP/out"
expect_ok validate "$V/megatron_lm_readme_2020.csv" --quantity memory
check "skipped with the reason" grep -q "source 'megatron20' publishes no per-GPU memory figure" "$TMP/out"

# A run plateau predicts not to fit is compared, and says so: row 1 on a 40 GB GPU
{ head -n 1 "$TT"; sed -n 2p "$TT" | sed 's/,96GB,/,40GB,/'; } >"$TMP/small.csv"
expect_ok validate "$TMP/small.csv" --quantity memory --format csv
check "compared although it does not fit" grep -q 'plateau predicts it does not fit: needs' "$TMP/out"
check "and not skipped" grep -q '",82.4,8.84763e+10,[0-9.e+]*,' "$TMP/out"

# JSON: the document's quantity
expect_ok validate "$TT" --quantity memory --format json
check "json quantity" grep -q '"quantity": "peak_memory_bytes"' "$TMP/out"
expect_ok validate "$TT" --format json
check "json default quantity" grep -q '"quantity": "step_time_s"' "$TMP/out"

# bad values and combinations
expect_fail 1 "--quantity: quantity 'power' unknown \(known: step, memory\)" -- \
  validate "$TT" --quantity power
expect_fail 1 "--quantity: quantity '' unknown" -- validate "$TT" --quantity ''
expect_fail 2 "option '--quantity' needs a value|--quantity" -- validate "$TT" --quantity
expect_fail 2 "--quantity memory: not with --scaling" -- validate "$TT" --quantity memory --scaling
expect_fail 2 "--quantity memory: not with" -- \
  validate "$TT" --quantity memory --baseline "$TMP/b.json"
expect_fail 2 "--explain: not with --quantity" -- validate "$TT" --explain 1 --quantity memory
finish
