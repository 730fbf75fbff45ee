#!/usr/bin/env bash
# Duplicated trace events (issue 22): a trace whose communication kernels
# appear twice (the same pid, tid, ts, dur and name, as when events are merged
# twice) must give the same collectives table as the trace itself, with a note
# and "duplicate_comm_events" counting the copies. The crafted trace is HTA's
# NCCL test trace with every NCCL kernel appended a second time.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: no python3 to craft the trace"; exit 77; }
SRC="$PL_TEST_DATA/traces/hta_nccl_data.json.gz"
python3 - "$SRC" "$TMP/dup.json" <<'PY' >"$TMP/n"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
dup = [dict(e) for e in d["traceEvents"] if e.get("cat") == "kernel" and "nccl" in e.get("name", "").lower()]
d["traceEvents"] += dup
json.dump(d, open(sys.argv[2], "w"))
print(len(dup))
PY
n=$(cat "$TMP/n")
check "crafted: NCCL kernels copied" test "$n" -gt 10

expect_ok trace analyze "$SRC"
sed -n '/^collectives/,/^$/p' "$TMP/out" >"$TMP/orig.coll"
expect_ok trace analyze "$TMP/dup.json"
sed -n '/^collectives/,/^$/p' "$TMP/out" >"$TMP/dup.coll"
check "collectives table has rows" test "$(wc -l <"$TMP/orig.coll")" -ge 3
check "duplicates do not change the collectives table" cmp -s "$TMP/orig.coll" "$TMP/dup.coll"
check "note names the duplicates" grep -qE "^note: .*dup.json: [0-9]+ communication kernels appear twice \(same pid, tid, ts, dur and name\): each counted once$" "$TMP/out"
check "no note on the original" bash -c "! grep -q 'appear twice' <('$PLATEAU' trace analyze '$SRC')"

expect_ok trace analyze "$SRC" --format json
grep -o '"duplicate_comm_events": [0-9]*' "$TMP/out" >"$TMP/orig.dups"
grep -o '"comm_s": {[^}]*}' "$TMP/out" | head -1 >"$TMP/orig.comm"
expect_ok trace analyze "$TMP/dup.json" --format json
check "json: no duplicates in the original" grep -qx '"duplicate_comm_events": 0' "$TMP/orig.dups"
d=$(grep -o '"duplicate_comm_events": [0-9]*' "$TMP/out" | head -1 | awk '{print $2}')
check "json: duplicates counted (in the steps' windows, at most the copies made)" test "${d:-0}" -gt 0 -a "${d:-0}" -le "$n"
finish
