#!/usr/bin/env bash
# `plateau trace compare A B` end to end: a trace against its own analyze
# result (every difference 0), two different traces, a prediction against a
# trace, each output format, and the errors.
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces"
W0="$T/dlrm/worker0_step_12.1694128201545.pt.trace.json.gz"

expect_ok trace analyze --format json "$T/dlrm"
cp "$TMP/out" "$TMP/dlrm.json"
# the directory against its own result: same numbers, differences 0
expect_ok trace compare --format csv "$T/dlrm" "$TMP/dlrm.json"
check "csv header" grep -qx 'section,name,group_size,field,a,b,diff,rel' "$TMP/out"
check "step_time_s compared" grep -q '^metric,step_time_s,,value,' "$TMP/out"
check "all diffs 0 against its own result" \
  awk -F, 'NR > 1 && $7 != "" && $7 != 0 { bad = 1 } END { exit bad }' "$TMP/out"
check "collective rows with group size" grep -q '^collective,all_reduce,8,time_s,' "$TMP/out"
# rank 0 alone against all 8 ranks: B - A and (B - A) / A by hand from the CSV
expect_ok trace compare --format csv "$W0" "$T/dlrm"
check "diff = b - a and rel = diff / a" awk -F, '$2 == "step_time_s" {
    d = $6 - $5; r = d / $5; e1 = $7 - d; e2 = $8 - r
    exit !(e1 < 1e-12 && e1 > -1e-12 && e2 < 1e-9 && e2 > -1e-9 && $7 != 0) }' "$TMP/out"
# JSON: metrics keyed by name, each {a, b, diff, rel}
expect_ok trace compare --format json "$W0" "$TMP/dlrm.json"
check "json a side" grep -q '"source": "trace"' "$TMP/out"
check "json b side" grep -q '"source": "trace analyze result"' "$TMP/out"
check "json metric object" grep -qE '"step_time_s": \{' "$TMP/out"
check "json rel" grep -qE '"rel": -?[0-9.e-]+' "$TMP/out"
# text
expect_ok trace compare "$W0" "$T/dlrm"
check "text names both sides" grep -q '^B  .*dlrm  (trace, 8 files)' "$TMP/out"
check "text has a relative column" grep -qE '^step_time_s .*[+-][0-9]+\.[0-9]{2}%$' "$TMP/out"
# a prediction against a trace: metrics only one side defines show '-'
expect_ok predict --format json
cp "$TMP/out" "$TMP/pred.json"
expect_ok trace compare "$TMP/pred.json" "$T/hta_nccl_data.json.gz"
check "predict side named" grep -q '(predict result, 8 GPUs)' "$TMP/out"
check "bubble only on predict side" grep -qE '^bubble_s +[0-9.]+ [mu]?s +- +- +-$' "$TMP/out"
check "idle only on trace side" grep -qE '^idle_s +- +[0-9.]+ [mu]?s +- +-$' "$TMP/out"
# the analyses of docs/trace.md 3.5-3.7 and 4.1 compared (#21): dlrm's 8 ranks against HTA's
# one-rank NCCL trace; each side is its own trace analyze (dlrm: host wait 7.42 ms per step,
# collective wait 46.843 ms over 8 ranks = 5.855375 ms, hand-checked in test_trace_kernels.c);
# a single rank waits on no one, so its coll_wait_s is null, not 0
expect_ok trace analyze --format json "$T/hta_nccl_data.json.gz"
cp "$TMP/out" "$TMP/nccl.json"
expect_ok trace compare --format json "$T/dlrm" "$T/hta_nccl_data.json.gz"
if command -v python3 >/dev/null 2>&1; then
  check "kernel, idle, launch and wait metrics = each side's analyze" python3 - "$TMP/out" "$TMP/dlrm.json" "$TMP/nccl.json" <<'PY'
import json, sys
c, a, b = (json.load(open(p)) for p in sys.argv[1:4])
m = c["metrics"]
def near(x, y):
    return abs(x - y) <= 1e-12 + 1e-9 * abs(y)
for k in ("idle_host_s", "idle_kernel_s", "idle_other_s", "kernel_s"):
    assert near(m[k]["a"], a["breakdown"][k]) and near(m[k]["b"], b["breakdown"][k]), k
for k in ("gemm_s", "elementwise_s", "reduction_s", "other_compute_s"):
    assert near(m[k]["a"], a["kernel_time"][k]) and near(m[k]["b"], b["kernel_time"][k]), k
for q in ("p50", "p90"):
    k = "launch_delay_%s_s" % q
    assert near(m[k]["a"], a["launch"]["delay_%s_s" % q]) and near(m[k]["b"], b["launch"]["delay_%s_s" % q]), k
assert near(m["idle_host_s"]["a"], 7.416625e-3), m["idle_host_s"]
assert near(m["coll_wait_s"]["a"], 46.843e-3 / 8) and m["coll_wait_s"]["b"] is None, m["coll_wait_s"]
assert near(m["idle_host_s"]["diff"], m["idle_host_s"]["b"] - m["idle_host_s"]["a"])
PY
fi
# errors
printf '{"model": "x"}' >"$TMP/cfg.json"
expect_fail 1 "plateau: '.*cfg.json': neither a Kineto trace nor a plateau result" -- trace compare "$TMP/cfg.json" "$W0"
expect_fail 1 "cannot open trace '/nonexistent.json'" -- trace compare "$W0" /nonexistent.json
expect_fail 2 "expected two runs A B, got 1" -- trace compare "$W0"
expect_fail 2 "expected two runs A B, got 3" -- trace compare "$W0" "$W0" "$W0"
expect_fail 1 "plateau: --format: unknown format 'xml'" -- trace compare --format xml "$W0" "$W0"
expect_ok trace compare --help
check "help names the result files" grep -q 'plateau predict' "$TMP/out"
finish
