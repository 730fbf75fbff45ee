#!/usr/bin/env bash
# Session 29 (hard29): inputs named twice and study inputs checked before the
# grid runs (docs/robustness.md rows 74-75).
#  - One file given twice (the same name, a directory and a file in it, a
#    symlink) was read twice: `trace analyze r0 r0` averaged rank 0 as two
#    ranks of a world of 2, `calibrate nccl log log` fitted every row with twice
#    the weight, both exit 0. Now one line naming the file, exit 1, no --out
#    written (src/base/samefile.c: same st_dev and st_ino).
#  - `study --out /nonexistent/r` and `study --validation empty.csv` ran the
#    whole grid (minutes) before failing; now they fail before it (no progress
#    line on stderr) and nothing is left beside --out.
. "$(dirname "$0")/lib.sh"
TR="$PL_TEST_DATA/traces/hta_nccl_data.json.gz"
N="$PL_TEST_DATA/nccl/h100_1node_8gpu_all_gather_ring_together.txt"

# ---- trace analyze / compare / calibrate trace: one trace twice ----
expect_fail 1 "^plateau: trace '.*hta_nccl_data.json.gz' given twice: each rank's trace is read once$" -- \
  trace analyze "$TR" "$TR"
mkdir "$TMP/td"
cp "$TR" "$TMP/td/r0.json.gz"
expect_fail 1 "trace '.*td/r0.json.gz' given twice" -- trace analyze "$TMP/td" "$TMP/td/r0.json.gz"
ln -s "$TR" "$TMP/link.json.gz"
expect_fail 1 "traces '.*hta_nccl_data.json.gz' and '.*link.json.gz' are one file" -- \
  trace analyze "$TR" "$TMP/link.json.gz"
# a copy is another file (another inode): read as given, the duplicate rank noted
expect_ok trace analyze "$TR" "$TMP/td/r0.json.gz"
check "a copy: noted as a duplicate rank" grep -q "rank 0 appears in more than one file" "$TMP/out"
# one directory alone, and A against itself, are still fine
expect_ok trace analyze "$TMP/td"
expect_ok trace compare "$TR" "$TR"
expect_fail 1 "trace '.*' given twice" -- \
  calibrate trace "$TR" "$TR" --cluster dgx-h100 --out "$TMP/fit.json"
check "calibrate trace: no --out written" [ ! -e "$TMP/fit.json" ]

# ---- calibrate nccl / compute: one log or trace twice ----
expect_fail 1 "^plateau: log '.*all_gather_ring_together.txt' given twice: each input is read once$" -- \
  calibrate nccl "$N" "$N" --cluster dgx-h100 --out "$TMP/fit.json"
check "calibrate nccl: no --out written" [ ! -e "$TMP/fit.json" ]
ln -s "$N" "$TMP/log.txt"
expect_fail 1 "logs '.*all_gather_ring_together.txt' and '.*log.txt' are one file" -- \
  calibrate nccl "$N" "$TMP/log.txt" --cluster dgx-h100 --out "$TMP/fit.json"
expect_ok calibrate nccl "$N" --cluster dgx-h100 --out "$TMP/fit.json"
rm -f "$TMP/fit.json"
expect_fail 1 "traces '.*' and '.*link.json.gz' are one file" -- \
  calibrate compute "$TR" "$TMP/link.json.gz" --gpu h100 --out "$TMP/fit.json"
check "calibrate compute: no --out written" [ ! -e "$TMP/fit.json" ]

# ---- study: --out's parent and --validation checked before the grid ----
expect_fail 1 "^plateau: cannot create a directory beside '$TMP/no/such/r': No such file or directory$" -- \
  study --out "$TMP/no/such/r"
check "study --out in a missing directory: failed before the grid (no progress)" \
  bash -c "! grep -q points '$TMP/err'"
: >"$TMP/empty.csv"
expect_fail 1 "^plateau: csv '.*empty.csv': empty \(no header line\)$" -- \
  study --out "$TMP/r" --validation "$TMP/empty.csv"
check "study --validation empty.csv: failed before the grid (no progress)" \
  bash -c "! grep -q points '$TMP/err'"
check "nothing left beside --out" bash -c "! ls '$TMP' | grep -q '^r'"

# ---- validate: a published rate so large the step is ~0 s ----
# the skip reason read "the published figure implies inf % MFU" (src/validate/validate.c)
sed 's/,24000,/,1e308,/' "$PL_SOURCE_DIR/data/validation/tinyllama_readme.csv" >"$TMP/tiny.csv"
check "the test set the rate" grep -q ',1e308,' "$TMP/tiny.csv"
expect_ok validate "$TMP/tiny.csv" --format json
check "skipped: an unbounded MFU" grep -q 'implies a step of .* s, an unbounded MFU' "$TMP/out"
check "no 'inf %' in the reason" bash -c "! grep -q 'inf %' '$TMP/out'"
finish
