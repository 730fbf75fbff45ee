#!/usr/bin/env bash
# The accuracy regression guard (docs/accuracy.md, "Regression guard"):
# `plateau validate` over every published dataset of data/validation/ must
# not be worse, per dataset, than tests/data/accuracy-baseline.json by more
# than one percentage point of mean error, nor predict fewer rows. The table
# is printed either way. After a model change that improves accuracy:
#   plateau validate data/validation/*.csv --write-baseline tests/data/accuracy-baseline.json
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
BASE="$PL_TEST_DATA/accuracy-baseline.json"

count=$((count + 1))
"$PLATEAU" validate "$V"/*.csv --summary --baseline "$BASE" >"$TMP/out" 2>"$TMP/err"
rc=$?
cat "$TMP/out" "$TMP/err"
if [ "$rc" -ne 0 ]; then
  echo "FAIL: accuracy regressed against $BASE (exit $rc); see the table and findings above" >&2
  fails=$((fails + 1))
fi
for f in "$V"/*.csv; do
  check "summary lists $(basename "$f" .csv)" grep -q "^$(basename "$f" .csv) " "$TMP/out"
done
check "summary has the overall line" grep -q "^all " "$TMP/out"

# The guard itself can fail: a baseline claiming a smaller error than this
# run's (every mape set to 0) must make the command exit 1 and name it.
# (small datasets from here on: the suite also runs under sanitizers)
expect_ok validate "$V/mtnlg530b_paper.csv" --write-baseline "$TMP/b.json"
sed 's/"mape": [0-9.e+-]*/"mape": 0/' "$TMP/b.json" >"$TMP/strict.json"
expect_fail 1 "regression: mtnlg530b_paper: mean error" -- \
  validate "$V/mtnlg530b_paper.csv" --baseline "$TMP/strict.json"
# and a baseline naming a dataset that was not validated
expect_fail 1 "in the baseline but not validated" -- \
  validate "$V/opt175b_paper.csv" --baseline "$TMP/b.json"

# JSON carries the contract's fields; every row is either predicted or skipped with a reason
SMALL=("$V/bloom176b_bigscience.csv" "$V/megatron_lm_readme_2020.csv" "$V/mtnlg530b_paper.csv"
       "$V/opt175b_paper.csv")
expect_ok validate "${SMALL[@]}" --format json
for key in '"datasets"' '"rows"' '"mape"' '"median_ape"' '"max_ape"' '"skipped_reason"' \
           '"quantity": "step_time_s"'; do
  check "json has $key" grep -q "$key" "$TMP/out"
done
check "no row without a prediction lacks a reason" \
  bash -c "! grep -A1 '\"error\": null' '$TMP/out' | grep -q '\"skipped_reason\": null'"
expect_ok validate "${SMALL[@]}" --format csv
check "csv has one line per published row (3 + 12 + 3 + 1)" test "$(grep -c '^"' "$TMP/out")" -eq 19

# --plot writes the gnuplot script (and the figure when gnuplot is installed)
if command -v gnuplot >/dev/null 2>&1; then
  expect_ok validate "$V/mtnlg530b_paper.csv" --summary --plot "$TMP/fig"
  check "svg drawn" test -s "$TMP/fig/accuracy.svg"
  check "png drawn" test -s "$TMP/fig/accuracy.png"
  check "script kept" grep -q "set output \"accuracy.png\"" "$TMP/fig/accuracy.gp"
fi
finish
