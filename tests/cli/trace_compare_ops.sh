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
# the trace side: the measured kernel sums (trace analyze, docs/ground-truth.md).
# cuDNN SDPA backward's two helpers (src/trace/kcat.c) are attention:
# gemm 37.762 ms - convert_dq_to_16bits 0.342 ms = 37.420 ms; attention
# 10.203 ms + 0.342 ms + compute_dot_do_o 0.431 ms = 10.976 ms
assert abs(float(rows["gemm_s"]["a"]) - 37.42e-3) < 0.01e-3
assert abs(float(rows["attention_s"]["a"]) - 10.98e-3) < 0.01e-3
PY

# per operation: predict --ops --format json against the trace (docs/trace.md 9.5)
expect_ok "${P[@]}" --ops --format json
cp "$TMP/out" "$TMP/ops.json"
expect_ok trace analyze --format json "$T"
cp "$TMP/out" "$TMP/an.json"
expect_ok trace compare --format csv "$T" "$TMP/ops.json"
cp "$TMP/out" "$TMP/ops.csv"
check "per-operation rows: shapes matched, hand-checked" python3 - "$TMP/ops.csv" "$TMP/ops.json" "$TMP/an.json" <<'PY'
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))
        if r["section"] == "operation" and r["field"] == "time_s"]
by = {r["name"]: r for r in rows}
ops = {o["segment"] + "." + o["name"]: o for o in json.load(open(sys.argv[2]))["ops"]}
# every GEMM and attention op of the prediction is found in the trace, both passes
for name, o in ops.items():
    if o["kind"] == "memory":
        continue
    for p in ("fwd", "bwd"):
        r = by[name + "." + p]
        blocks = 16 if name.startswith("layer.") else 1
        assert abs(float(r["b"]) - o[p + "_s"] * blocks) < 1e-12, (name, p)
        assert float(r["a"]) > 0, (name, p)
# fc1 forward in the trace: 354 us per call (docs/ground-truth.md), 16 calls per step
assert abs(float(by["layer.fc1.fwd"]["a"]) / 16 - 355e-6) < 3e-6, by["layer.fc1.fwd"]["a"]
# attention forward: cuDNN at 181 us per call (docs/ground-truth.md, isolated)
assert abs(float(by["layer.attn.fwd"]["a"]) / 16 - 183e-6) < 3e-6, by["layer.attn.fwd"]["a"]
# the fused AdamW step: 13.55 ms per step (docs/ground-truth.md)
assert abs(float(by["optimizer.step"]["a"]) - 13.55e-3) < 0.01e-3, by["optimizer.step"]["a"]
# the measured rows add up to every kernel and memset of the step (memcpy apart)
an = json.load(open(sys.argv[3]))
k = an["kernel_time"]
want = an["breakdown"]["kernel_s"] - k["memcpy_s"]
got = sum(float(r["a"]) for r in rows if r["a"] != "")
assert abs(got - want) < 0.005 * want, (got, want)
# no GEMM or attention op of the trace is left unmatched
assert not [r for r in csv.DictReader(open(sys.argv[1])) if r["section"] == "operation_unmatched"]
PY
check "per-operation GEMM rates, hand-derived" python3 - "$TMP/ops.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t = {r["name"]: r for r in rows if r["section"] == "operation" and r["field"] == "time_s"}
f = {r["name"]: r for r in rows if r["section"] == "operation" and r["field"] == "flops_per_s"}
# fc1 forward: 16 calls per step of 2 x 4096 x 16384 x 2048 = 274.878 GFLOP each,
# 4.398 TFLOP per step, over the trace's 5.68 ms: about 774 TFLOP/s
fl = 16 * 2 * 4096 * 16384 * 2048
assert abs(float(f["layer.fc1.fwd"]["a"]) - fl / float(t["layer.fc1.fwd"]["a"])) < 1e-6 * fl / 1e-3
assert abs(float(f["layer.fc1.fwd"]["a"]) - 774e12) < 3e12, f["layer.fc1.fwd"]["a"]
# the backward's two GEMMs (dgrad, wgrad) have the forward's FLOPs each: 32 x 274.878 GFLOP
fl = 32 * 2 * 4096 * 16384 * 2048
assert abs(float(f["layer.fc1.bwd"]["b"]) - fl / float(t["layer.fc1.bwd"]["b"])) < 1e-6 * fl / 1e-3
# the head's gradients on the prediction side run at the MAMF ceiling times the sustained
# clock of data/gpus/h100.json: 794.5 x 0.868 = 689.6 TFLOP/s (less 2 x 1.2 us of kernel
# overhead in 6.3 ms, 0.04 %)
assert abs(float(f["head.lm_head.bwd"]["b"]) - 689.6e12) < 0.002 * 689.6e12, f["head.lm_head.bwd"]["b"]
# only GEMM rows carry a rate (attention counts FLOPs differently; memory-bound none)
assert "layer.attn.fwd" not in f and "optimizer.step" not in f
assert set(f) == {n for n in t if n.startswith(("layer.qkv.", "layer.proj.", "layer.fc1.", "layer.fc2.",
                                                 "head.lm_head."))}, sorted(f)
PY
expect_ok trace compare "$T" "$TMP/ops.json"
check "text per-operation table" grep -qE '^  layer\.fc1 +fwd +4096 x 16384 x 2048 x 1 +16 ' "$TMP/out"
check "text GEMM rate columns" grep -qE '^  layer\.fc1 +fwd +4096 x 16384 x 2048 x 1 +16 .* 77[0-9] +6[0-9][0-9]$' "$TMP/out"
check "text no rate for attention" grep -qE '^  layer\.attn +fwd .* +- +-$' "$TMP/out"
check "text idle by phase" grep -qE '^  fwd +9\.96 ms +99[0-9]\.[0-9] us$' "$TMP/out"
check "text names the step count" grep -q 'A: 3 ProfilerStep ranges' "$TMP/out"
expect_ok trace compare --format json "$TMP/ops.json" "$T"
check "json operations, trace on side b" python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["operations_trace"] == {"side": "b", "steps": 3, "steps_known": True}
fc1 = [o for o in d["operations"] if o["name"] == "layer.fc1" and o["pass"] == "fwd"][0]
assert fc1["calls"] == 16 and fc1["time_s"]["a"] > fc1["time_s"]["b"] > 0
# the trace on side b: its rate is b, the prediction's a
fl = 16 * 2 * 4096 * 16384 * 2048
assert abs(fc1["flops_per_s"]["b"] - fl / fc1["time_s"]["b"]) < 1e3
assert abs(fc1["flops_per_s"]["a"] - fl / fc1["time_s"]["a"]) < 1e3
attn = [o for o in d["operations"] if o["name"] == "layer.attn" and o["pass"] == "fwd"][0]
assert "flops_per_s" not in attn
ib = d["idle_by_phase"]
assert ib["side"] == "b" and ib["fwd"]["host_s"] > 9e-3 and ib["bwd"]["host_s"] == 0, ib
assert d["operations_unmatched"] == []
PY
# another sequence length: no shape matches; each trace op is listed with its reason
# (5 GEMMs forward, their 10 gradients, attention forward and backward)
expect_ok predict --model "$M" --gpus 1 --gpu h100 --seq 2048 --ops --format json
cp "$TMP/out" "$TMP/ops2k.json"
expect_ok trace compare --format json "$T" "$TMP/ops2k.json"
check "unmatched ops named with the reason" python3 - "$TMP/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
u = d["operations_unmatched"]
assert len(u) == 17 and all(x["why"] == "no predicted op of this shape" for x in u), u
fc1 = [x for x in u if x["shape"] == "4096 x 16384 x 2048 x 1"][0]
assert fc1["op"] == "aten::mm" and fc1["phase"] == "forward" and fc1["calls"] == 16
PY
# a prediction without --ops: the metrics, and a note instead of the table
expect_ok trace compare "$T" "$TMP/pred.json"
check "note without ops" grep -q '^per operation: the prediction has no ops: write it with `plateau predict --ops --format json`$' "$TMP/out"
expect_ok trace compare --format json "$T" "$TMP/pred.json"
check "json operations null without ops" grep -q '"operations": null' "$TMP/out"
check "json idle_by_phase null without ops" grep -q '"idle_by_phase": null' "$TMP/out"
# two traces: no table
expect_ok trace compare "$T" "$T"
check "no per-operation table for two traces" bash -c '! grep -q "per operation" "$1"' _ "$TMP/out"
# bad ops in a prediction
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["ops"]=5; json.dump(d,open(sys.argv[2],"w"))' "$TMP/ops.json" "$TMP/bad.json"
expect_fail 1 "bad.json': field 'ops': expected an array" -- trace compare "$T" "$TMP/bad.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["ops"][0]["m"]; json.dump(d,open(sys.argv[2],"w"))' "$TMP/ops.json" "$TMP/bad2.json"
expect_fail 1 "bad2.json'.*'m'" -- trace compare "$T" "$TMP/bad2.json"
# GPU idle by phase (docs/trace.md 9.5): the gaps of trace analyze's idle split (docs/trace.md 3.6,
# the same HTA rule), put to the phase of the op launched next. This trace holds only its 3 steps,
# so the split adds up to analyze's idle: host wait 9.96 ms, all in the forward (the autograd
# thread and the fused optimizer find the GPU busy: docs/accuracy.md Session 28 trace28), and
# queued gaps 3.41 ms
check "idle by phase adds up to trace analyze's idle" python3 - "$TMP/ops.csv" "$TMP/an.json" <<'PY'
import csv, json, sys
rows = {(r["name"], r["field"]): float(r["a"]) for r in csv.DictReader(open(sys.argv[1]))
        if r["section"] == "idle_by_phase"}
b = json.load(open(sys.argv[2]))["breakdown"]
host = sum(v for (p, f), v in rows.items() if f == "host_s")
queued = sum(v for (p, f), v in rows.items() if f == "queued_s")
assert abs(host - b["idle_host_s"]) < 1e-6 and abs(queued - b["idle_other_s"] - b["idle_kernel_s"]) < 1e-6, rows
assert abs(rows[("fwd", "host_s")] - 9.96e-3) < 0.01e-3 and rows[("bwd", "host_s")] == 0, rows
assert rows[("step", "host_s")] == 0 and rows[("bwd", "queued_s")] > rows[("fwd", "queued_s")] > 0, rows
PY
# scripts/trace_host_replay.py (docs/accuracy.md, Session 28 trace28): the launch-queue replay of
# the trace's steps gives the traced step at scale 1 (within 1 %), and with an infinitely fast host
# (scale 0) the kernels plus one queued gap per GPU event: 111.98 ms + 2249 x 1.41 us = 115.15 ms
check "host replay reproduces the trace" python3 - "$PL_SOURCE_DIR/scripts/trace_host_replay.py" "$T" <<'PY'
import re, subprocess, sys
out = subprocess.run([sys.executable, sys.argv[1], sys.argv[2], "1", "0"], check=True,
                     capture_output=True, text=True).stdout
head = re.search(r"traced step ([0-9.]+) ms, kernels ([0-9.]+) ms, ([0-9]+) GPU events, queued gap q ([0-9.]+) us", out)
traced, busy, n, q = float(head[1]), float(head[2]), int(head[3]), float(head[4])
rows = {float(a): float(b) for a, b in re.findall(r"^ *([0-9.]+) +([0-9.]+) +[0-9.]+$", out, re.M)}
assert abs(rows[1.0] - traced) < 0.01 * traced, out
assert n == 2249 and abs(busy - 111.98) < 0.01, out
assert abs(rows[0.0] - (busy + n * q / 1e3)) < 0.05, out
PY
check "host replay: usage without a trace" bash -c '! python3 "$1" 2>/dev/null' _ "$PL_SOURCE_DIR/scripts/trace_host_replay.py"
finish
