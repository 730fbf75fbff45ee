#!/usr/bin/env bash
# `plateau validate` with a hardware what-if (--cluster, --gpu, predict's hardware flags,
# --nccl-version; include/plateau/validate.h struct pl_vhardware): a user validates runs against
# their own calibrated machine. The calibrated files come from calibrate nccl / calibrate compute
# on the repository's fixtures. Rows on another GPU are skipped with the reason; every predicted
# row's command (with the files and flags) reproduces its prediction; bad values give one line and
# exit 1, combinations validate cannot honour exit 2.
. "$(dirname "$0")/lib.sh"
OWN="$PL_TEST_DATA/validation-user/own_runs.csv"
V="$PL_SOURCE_DIR/data/validation"
N="$PL_TEST_DATA/nccl"
T="$PL_TEST_DATA/traces"

expect_ok calibrate nccl "$N/h100_1node_8gpu_all_reduce_ring_together.txt" --cluster dgx-h100 \
  --out "$TMP/clu.json"
expect_ok calibrate compute "$T/gt_h100_llama3.2-1b_seq4096.json.gz" --gpu h100 --out "$TMP/gpu.json"

# each predicted row's command gives its predicted step (6 significant digits, as the CSV)
reproduces() {
  python3 - "$PLATEAU" "$TMP/out" <<'PY'
import csv, json, shlex, subprocess, sys
bad = 0
for r in csv.DictReader(open(sys.argv[2])):
    if not r["predicted_s"]:
        continue
    a = shlex.split(r["command"])
    q = subprocess.run([sys.argv[1], *a[1:], "--format", "json"], capture_output=True, text=True)
    got = json.loads(q.stdout)["step_time_s"] if q.returncode == 0 else -1
    if abs(got / float(r["predicted_s"]) - 1) > 1e-5:
        print("row", r["dataset"], r["row"], r["predicted_s"], got)
        bad += 1
sys.exit(bad > 0)
PY
}
# rows predicted / skipped for a reason matching $1
count() { python3 -c 'import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pick = (lambda r: r["predicted_s"] != "") if sys.argv[2] == "" else \
    (lambda r: re.search(sys.argv[2], r["skipped_reason"]))
print(sum(1 for r in rows if pick(r)))' \
  "$TMP/out" "$1"; }

# --cluster FILE: own_runs rows 5, 6, 10 ran on H100 (the calibrated cluster's GPU); the seven
# A100 rows are skipped, naming the GPUs
expect_ok validate "$OWN" --cluster "$TMP/clu.json" --format csv
check "cluster: the 3 H100 rows predicted" [ "$(count '')" -eq 3 ]
check "cluster: the 7 A100 rows skipped with the reason" \
  [ "$(count "validate --cluster '.*clu.json' is a cluster of h100; the row ran on a100-80g")" -eq 7 ]
check "cluster: the file is the command's" grep -q -- "--cluster $TMP/clu.json" "$TMP/out"
check "cluster: the note says it" grep -q "what-if: cluster $TMP/clu.json (validate --cluster/--gpu)" "$TMP/out"
check "cluster: commands reproduce" reproduces
# the row's own hardware_flags still apply on the what-if cluster (row 10: '500 W', '96 GiB')
check "cluster: the row's hardware flags kept" grep -q "^\"own_runs\",10,.*--power-cap '500 W' --hbm '96 GiB'" "$TMP/out"

# --gpu FILE: the calibrated H100 figures for the H100 rows of three datasets; the step moves
expect_ok validate "$V/torchtitan_performance.csv" --format csv
cp "$TMP/out" "$TMP/plain.csv"
expect_ok validate "$V/torchtitan_performance.csv" --gpu "$TMP/gpu.json" --format csv
check "gpu: the file is the command's" grep -q -- "--gpu $TMP/gpu.json --cluster dgx-h100" "$TMP/out"
check "gpu: commands reproduce" reproduces
check "gpu: row 1 (H100) moved" python3 -c 'import csv, sys
a, b = (next(r for r in csv.DictReader(open(f)) if r["row"] == "1") for f in sys.argv[1:])
sys.exit(a["predicted_s"] == b["predicted_s"] or a["gpu"] != "h100")' "$TMP/plain.csv" "$TMP/out"
check "gpu: rows on another GPU skipped" \
  [ "$(count "validate --gpu '.*gpu.json' is GPU h100; the row ran on h200")" -ge 1 ]

# predict's hardware flags and --nccl-version, on every row, written in each command
expect_ok validate "$OWN" "$V/ibm_fsdp_blog.csv" --nic-bandwidth '200 Gb/s' --nccl-version 2.23.4 \
  --format csv
check "flags: every row predicted" [ "$(count '')" -ge 20 ]
check "flags: the command has them" grep -q -- "--nic-bandwidth '200 Gb/s' --nccl-version 2.23.4" "$TMP/out"
check "flags: the note says them" grep -q "what-if flags (validate): --nic-bandwidth 200 Gb/s --nccl-version 2.23.4" "$TMP/out"
check "flags: commands reproduce" reproduces
# a value only some machines refuse: 16 GPUs per NVLink domain fits the GB200/GB300 NVL72 rows of
# mlperf_v5, not its DGX rows (8 GPUs per node), which are skipped with predict's reason
expect_ok validate "$V/mlperf_v5.csv" --gpus-per-node 16 --format csv
check "machine-bound: NVL72 rows predicted" [ "$(count '')" -ge 20 ]
check "machine-bound: DGX rows skipped" \
  [ "$(count "validate what-if: --gpus-per-node: '16' is not a GPU count from 1 to the cluster's 8")" -ge 10 ]
check "machine-bound: commands reproduce" reproduces

# bad values: one line, exit 1
expect_fail 1 "^plateau: --cluster: unknown cluster 'nonexist'" -- validate "$OWN" --cluster nonexist
expect_fail 1 "^plateau: --cluster: '' must be 1 to 1023 characters" -- validate "$OWN" --cluster ""
expect_fail 1 "^plateau: --gpu: unknown gpu 'nope'" -- validate "$OWN" --gpu nope
expect_fail 1 "^plateau: --power-cap: 'abc' is not a power" -- validate "$OWN" --power-cap abc
expect_fail 1 "^plateau: --hbm: '-3' is not a memory size above 0" -- validate "$OWN" --hbm -3
expect_fail 1 "^plateau: --hbm-bandwidth: '0' is not a bandwidth above 0" -- validate "$OWN" --hbm-bandwidth 0
expect_fail 1 "^plateau: --nic-bandwidth: 'fast' is not a bandwidth above 0" -- validate "$OWN" --nic-bandwidth fast
expect_fail 1 "^plateau: --sharp: unknown value 'maybe' \(expected on\|off\)" -- validate "$OWN" --sharp maybe
expect_fail 1 "^plateau: --gpus-per-node: 'x' is not a GPU count" -- validate "$OWN" --gpus-per-node x
expect_fail 1 "^plateau: --gpu-variability: 'nan' is not a clock spread" -- validate "$OWN" --gpu-variability nan
expect_fail 1 "^plateau: --nccl-version: '1.0' is not an NCCL version" -- validate "$OWN" --nccl-version 1.0
# with --cluster every row runs on it: what it refuses is refused up front
expect_fail 1 "^plateau: --sharp: on needs an InfiniBand network \(cluster 'aws-p4de' has 'efa'\)" -- \
  validate "$OWN" --cluster aws-p4de --sharp on
expect_fail 1 "^plateau: --gpus-per-node: '9' is not a GPU count from 1 to the cluster's 8" -- \
  validate "$OWN" --cluster dgx-h100 --gpus-per-node 9
# not with the presets' own accuracy checks, nor --explain (a row's command explains it)
expect_fail 2 "--cluster: not with --explain, --baseline or --write-baseline" -- \
  validate "$OWN" --cluster dgx-h100 --explain 1
expect_fail 2 "--power-cap: not with --explain, --baseline or --write-baseline" -- \
  validate "$OWN" --power-cap 500 --baseline "$PL_TEST_DATA/accuracy-baseline.json"
expect_fail 2 "--gpu: not with --explain, --baseline or --write-baseline" -- \
  validate "$OWN" --gpu h100 --write-baseline "$TMP/b.json"
check "no baseline written" [ ! -e "$TMP/b.json" ]
finish
