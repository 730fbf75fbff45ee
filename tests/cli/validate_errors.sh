#!/usr/bin/env bash
# Bad input to `plateau validate` gets one line naming the problem and a
# non-zero exit, never a crash: missing or malformed CSVs, a CSV that is not
# in the data/validation layout, bad options and baselines.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"

expect_fail 2 "give at least one CSV" -- validate
expect_fail 1 "cannot open '/nonexistent/x.csv'" -- validate /nonexistent/x.csv
printf 'source,model\n"open,x\n' >"$TMP/unterminated.csv"
expect_fail 1 "unterminated.csv': line 2: unterminated quoted field" -- validate "$TMP/unterminated.csv"
printf 'a,b\n1,2,3\n' >"$TMP/fields.csv"
expect_fail 1 "line 2: 3 fields, the header has 2" -- validate "$TMP/fields.csv"
printf 'a,b\n1,2\n' >"$TMP/other.csv"
expect_fail 1 "no column 'source' \(not the data/validation layout" -- validate "$TMP/other.csv"
: >"$TMP/empty.csv"
expect_fail 1 "empty" -- validate "$TMP/empty.csv"
expect_fail 1 "given twice" -- validate "$V/opt175b_paper.csv" "$V/opt175b_paper.csv"
expect_fail 1 "unknown format 'xml'" -- validate --format xml "$V/opt175b_paper.csv"
expect_fail 2 "unknown option '--bogus'" -- validate --bogus "$V/opt175b_paper.csv"
expect_fail 2 "give --baseline or --write-baseline, not both" -- \
  validate --baseline a.json --write-baseline b.json "$V/opt175b_paper.csv"
expect_fail 1 "cannot open '/nonexistent/b.json'" -- \
  validate --baseline /nonexistent/b.json "$V/opt175b_paper.csv"
printf '{"datasets": 3}' >"$TMP/bad-baseline.json"
expect_fail 1 "'datasets' must be an array" -- \
  validate --baseline "$TMP/bad-baseline.json" "$V/opt175b_paper.csv"

# --explain runs the row's own loader: --framework is refused, not ignored
expect_fail 2 "--explain: not with --framework" -- \
  validate --explain 1 --framework nemo "$V/opt175b_paper.csv"

# help goes to stdout with exit 0
expect_ok validate --help
check "help names the command" grep -q "plateau validate \[options\] FILE.csv" "$TMP/out"
finish
