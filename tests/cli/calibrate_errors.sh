#!/usr/bin/env bash
# Bad values to `plateau calibrate nccl|trace|compute`: one line naming the problem, exit 1
# (bad value) or 2 (usage), and no --out file written. --format csv is not offered by any
# calibrate kind (their reports are text or JSON): calibrate nccl and trace printed the text
# report for it (fixed in session 27, hard27), as calibrate compute already refused it.
. "$(dirname "$0")/lib.sh"
L="$PL_TEST_DATA/nccl/h100_1node_8gpu_all_reduce_ring_together.txt"
T="$PL_TEST_DATA/traces/hta_nccl_data.json.gz"
GT="$PL_TEST_DATA/traces/gt_h100_llama3.2-1b_seq4096.json.gz"
O="$TMP/out.json"

nccl() { expect_fail "$1" "$2" -- calibrate nccl "$L" --cluster dgx-h100 --out "$O" "${@:3}"
  check "calibrate nccl ${*:3}: one stderr line or two with usage's hint" \
    [ "$(grep -c '' "$TMP/err")" -le 2 ]
  check "calibrate nccl ${*:3}: no --out written" [ ! -e "$O" ]; }
nccl 2 "calibrate nccl: --format: csv is not offered here \(text\|json\)" --format csv
nccl 1 "--format: unknown format 'xml'" --format xml
nccl 1 "--min-bytes: '-1' is not a size" --min-bytes -1
nccl 1 "--min-bytes: 'x' is not a size" --min-bytes x
nccl 1 "only 0 result rows of at least .* bytes: too few to fit" --min-bytes 1e30
nccl 1 "--nodes: '0' must be positive" --nodes 0
nccl 1 "--nodes: '-2' is not a positive integer" --nodes -2
nccl 1 "--nodes: '99999999999999999999' is too large" --nodes 99999999999999999999
nccl 1 "--gpus: '0' must be positive" --gpus 0
nccl 1 "the log lists 8 ranks but --gpus says 3" --gpus 3
nccl 1 "--algo: unknown algorithm 'zz'" --algo zz
nccl 1 "--algo: give one algorithm for all logs or one per log \(1 logs, 2 given\)" --algo ring,tree

expect_fail 2 "calibrate trace: --format: csv is not offered here \(text\|json\)" -- \
  calibrate trace "$T" --cluster dgx-h100 --out "$O" --format csv
check "calibrate trace --format csv: no --out written" [ ! -e "$O" ]
expect_fail 2 "calibrate compute: --format: csv is not offered here \(text\|json\)" -- \
  calibrate compute "$GT" --gpu h100 --out "$O" --format csv
check "calibrate compute --format csv: no --out written" [ ! -e "$O" ]

# the formats they do offer still work
expect_ok calibrate nccl "$L" --cluster dgx-h100 --out "$O" --format json
check "calibrate nccl --format json: a JSON report" grep -q '"at_limit"' "$TMP/out"
check "and the file" [ -s "$O" ]
finish
