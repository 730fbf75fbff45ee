#!/usr/bin/env bash
# validate's "command" (JSON key, last CSV column; src/validate/command.c): the plateau
# predict command line that reproduces a row's prediction. For rows of every dataset, the
# printed command is run and its step_time_s must equal the row's predicted step to 9
# significant digits (session 16: all 2,272 predicted rows did; docs/accuracy.md "Session 16 (helper cmd16)").
# --account-embed-loss (the flag the commands of Megatron-Core rows need) and its bad values.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"

# Every dataset: its first, middle and last predicted rows, and the rows whose loader edits
# the cluster (--power-cap/--hbm/--hbm-bandwidth: torchtitan; --nic-bandwidth: IBM FSDP;
# --sharp: none since session 23 (MLPerf ran without CollNet); --gpus-per-node: GB200/GB300 NVL72 segments in Bridge, the model zoo,
# MLPerf v5) or sets a behaviour only a loader sets (--eager-cross-entropy: torchtitan).
expect_ok validate "$V"/*.csv --format json
python3 - "$TMP/out" >"$TMP/rows" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["predicted"] is not None]
want = {("torchtitan_performance", 1), ("torchtitan_performance", 36), ("ibm_fsdp_blog", 1),
        ("mlperf_gpt3", 28), ("mlperf_v5", 37), ("megatron_bridge_performance_summary", 1),
        ("megatron_moe_modelzoo", 11), ("megatron_sc21_narayanan", 14),
        ("megatron_bridge_performance_summary", 25), ("bloom176b_bigscience", 1)}
by = {}
for r in rows:
    by.setdefault(r["dataset"], []).append(r)
for ds, rs in sorted(by.items()):
    for r in rs:
        if r in (rs[0], rs[len(rs) // 2], rs[-1]) or (ds, r["row"]) in want:
            print("%s\t%d\t%.9g\t%s" % (ds, r["row"], r["predicted"], r["command"]))
PY
n=0
while IFS=$'\t' read -r ds row want cmd; do
  n=$((n + 1))
  check "$ds row $row: a predict command" [ "${cmd#plateau predict }" != "$cmd" ]
  got=$(eval "\"\$PLATEAU\" ${cmd#plateau } --format json" | python3 -c \
    'import json, sys; print("%.9g" % json.load(sys.stdin)["step_time_s"])')
  check "$ds row $row: command gives $want s (got $got)" [ "$got" = "$want" ]
done <"$TMP/rows"
check "rows of every dataset were run ($n)" [ "$n" -ge 60 ]
check "a torchtitan command sets the machine" grep -q "torchtitan_performance.*--power-cap '[0-9]* W' --hbm '[0-9.]* GiB'.*--eager-cross-entropy on" "$TMP/rows"
check "an IBM FSDP command sets the NIC" grep -q "ibm_fsdp_blog.*--nic-bandwidth '[0-9.]* Gb/s'" "$TMP/rows"
check "no MLPerf command sets SHARP (no CollNet in the submissions)" bash -c "! grep -q 'mlperf.*--sharp on' '$TMP/rows'"
check "a GB200 command sets the NVLink segment" grep -q "megatron_bridge_performance_summary.*--gpus-per-node 64" "$TMP/rows"

# the CSV carries it as its last column
expect_ok validate "$V/megatron_sc21_narayanan.csv" --format csv
check "csv: command is the last column" grep -q ',published_error_pct,command$' "$TMP/out"
check "csv: a row's command" grep -q '"\?plateau predict --model' "$TMP/out"

# Memory too (session 17): the torchtitan rows' published peak memory is reproduced by the
# row's command, now that DTensor's saved gathers, FSDP2's fp32 shards and the eager loss are
# the torchtitan preset's (--tp-gathered-saved, --fp32-param-shards, --eager-cross-entropy)
expect_ok validate "$V/torchtitan_performance.csv" --quantity memory --format json
cp "$TMP/out" "$TMP/mem.json"
expect_ok validate "$V/torchtitan_performance.csv" --format json
python3 - "$TMP/mem.json" "$TMP/out" >"$TMP/memrows" <<'PY'
import json, sys
mem = {r["row"]: r for r in json.load(open(sys.argv[1]))["rows"] if r["predicted"] is not None}
for r in json.load(open(sys.argv[2]))["rows"]:
    if r["row"] in mem and r["command"]:
        print("%d\t%.6g\t%s" % (r["row"], mem[r["row"]]["predicted"], r["command"]))
PY
m=0
while IFS=$'\t' read -r row want cmd; do
  m=$((m + 1))
  got=$(eval "\"\$PLATEAU\" ${cmd#plateau } --format json" | python3 -c \
    'import json, sys; print("%.6g" % json.load(sys.stdin)["memory"]["total_bytes"])')
  check "torchtitan row $row: command gives $want B of memory (got $got)" [ "$got" = "$want" ]
done <"$TMP/memrows"
check "torchtitan memory rows were run ($m)" [ "$m" -ge 20 ]
check "the commands carry the preset's memory layouts" grep -q -- "--tp-gathered-saved on --fp32-param-shards on" "$TMP/memrows"

# --account-embed-loss: Megatron-Core's pipeline split; on moves a block off the first and last stage
B="predict --model llama3-8b --gpus 8 --pp 4 --gbs 32 --seq 4096"
expect_ok $B --format json
plain=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$TMP/out")
expect_ok $B --account-embed-loss on --format json
acc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$TMP/out")
check "--account-embed-loss on changes the step ($plain vs $acc)" [ "$plain" != "$acc" ]
expect_ok $B --account-embed-loss off --format json
off=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$TMP/out")
check "--account-embed-loss off is the default" [ "$plain" = "$off" ]
expect_fail 1 "^plateau: --account-embed-loss: unknown value 'yes' \(expected off\|on\)" -- $B --account-embed-loss yes
expect_fail 1 "^plateau: --account-embed-loss: unknown value '' \(expected off\|on\)" -- $B --account-embed-loss ''
# an inline model that is not JSON
expect_fail 1 "^plateau: .*inline model JSON" -- predict --model '{"layers": 2'
finish
