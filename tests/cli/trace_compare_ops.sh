#!/usr/bin/env bash
# `plateau trace compare` of a measured trace against a prediction, per kernel
# category and per operation (docs/trace.md 9.4): the H100 ground-truth trace
# (docs/ground-truth.md) against `plateau predict` of the same configuration.
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces/gt_h100_llama3.2-1b_seq4096.json.gz"
M="$PL_SOURCE_DIR/bench/gpu/model.json"
P=(predict --model "$M" --gpus 1 --gpu h100 --seq 4096 --shard ddp --mbs 1 --kernels unfused)

# predict's JSON carries compute per step by the trace's kernel categories
expect_ok "${P[@]}" --format json
cp "$TMP/out" "$TMP/pred.json"
check "kernel_time in predict's JSON" grep -q '"kernel_time": {' "$TMP/pred.json"
# on one GPU (no overlap slowdown, no host floor) the categories add up to compute + optimizer
check "categories sum to compute + optimizer" python3 - "$TMP/pred.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
k, b = d["kernel_time"], d["breakdown"]
s = sum(k.values())
want = b["compute_s"] + b["optimizer_s"]
sys.exit(0 if abs(s - want) < 1e-9 * want and k["other_compute_s"] == 0 else 1)
PY
# pp > 1: no one GPU runs embedding and head, so no per-category figure
expect_ok predict --format json --model llama2-7b --gpus 8 --pp 2 --gbs 16
check "kernel_time null with pp 2" grep -q '"kernel_time": null' "$TMP/out"

# trace compare pairs them (CSV), with the trace's categories on side A
expect_ok trace compare --format csv "$T" "$TMP/pred.json"
cp "$TMP/out" "$TMP/cmp.csv"
check "gemm_s paired" python3 - "$TMP/cmp.csv" "$TMP/pred.json" <<'PY'
import csv, json, sys
rows = {r["name"]: r for r in csv.DictReader(open(sys.argv[1])) if r["section"] == "metric"}
k = json.load(open(sys.argv[2]))["kernel_time"]
for m in ("gemm_s", "attention_s", "elementwise_s", "reduction_s"):
    r = rows[m]
    a, b = float(r["a"]), float(r["b"])
    assert abs(b - k[m]) <= 1e-9 * k[m], m
    assert abs(float(r["diff"]) - (b - a)) < 1e-12, m
# the trace side: the measured kernel sums (trace analyze, docs/ground-truth.md)
assert abs(float(rows["gemm_s"]["a"]) - 37.76e-3) < 0.01e-3
assert abs(float(rows["attention_s"]["a"]) - 10.20e-3) < 0.01e-3
PY
finish
