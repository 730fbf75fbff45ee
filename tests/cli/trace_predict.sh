#!/usr/bin/env bash
# Round trip: `plateau predict --trace FILE` writes the predicted step as a
# Kineto-like trace; `plateau trace analyze` on that file must reproduce
# predict's own breakdown within 1% (docs/trace.md 9.3).
#
# The two sides define one thing differently, and the check says so rather
# than hiding it: predict's compute_s excludes the optimizer step (it has its
# own optimizer_s), while a trace's compute_s is every non-NCCL kernel, the
# optimizer's included (docs/trace.md 3, TraceLens and the study). So
#   trace compute_s = predict compute_s + optimizer_s
#   trace idle_s    = predict bubble_s + other_s
# Pipeline-parallel predictions (pp > 1) put every stage in one file (one pid
# per stage); trace analyze measures one rank per pid (trace_pp.sh checks the
# numbers; here only the note).
. "$(dirname "$0")/lib.sh"

# value A|B of a metric from `trace compare --format csv` (a = predict, b = trace)
val() { awk -F, -v n="$2" -v c="$1" '$1 == "metric" && $2 == n { print (c == "a" ? $5 : $6) }' "$TMP/c.csv"; }
coll() { awk -F, -v n="$2" -v f="$3" -v c="$1" '$1 == "collective" && $2 == n && $4 == f { print (c == "a" ? $5 : $6) }' "$TMP/c.csv"; }
# near X Y TOL: |X - Y| <= TOL * |Y|
near() { awk -v x="$1" -v y="$2" -v t="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; a = y < 0 ? -y : y; exit !(x != "" && y != "" && d <= t * a) }'; }

roundtrip() {
  local what="$1"; shift
  expect_ok predict "$@" --format json --trace "$TMP/t.json"
  cp "$TMP/out" "$TMP/p.json"
  expect_ok trace compare --format csv "$TMP/p.json" "$TMP/t.json"
  cp "$TMP/out" "$TMP/c.csv"
  local step; step=$(val a step_time_s)
  check "$what: step_time_s" near "$(val b step_time_s)" "$step" 0.01
  check "$what: exposed_comm_s" near "$(val b exposed_comm_s)" "$(val a exposed_comm_s)" 0.01
  check "$what: overlapped_comm_s" near "$(val b overlapped_comm_s)" "$(val a overlapped_comm_s)" 0.01
  local pc; pc=$(awk -v x="$(val a compute_s)" -v y="$(val a optimizer_s)" 'BEGIN { printf "%.17g", x + y }')
  check "$what: trace compute_s = predict compute_s + optimizer_s" near "$(val b compute_s)" "$pc" 0.01
  local idle; idle=$(awk -v x="$(val a bubble_s)" -v y="$(val a other_s)" -v s="$step" \
    -v t="$(val b idle_s)" 'BEGIN { d = t - x - y; if (d < 0) d = -d; print d <= 0.01 * s }')
  check "$what: trace idle_s = predict bubble_s + other_s (to 1% of the step)" test "$idle" = 1
  for op in all_gather reduce_scatter; do
    check "$what: $op calls" near "$(coll b $op calls)" "$(coll a $op calls)" 0
    check "$what: $op time" near "$(coll b $op time_s)" "$(coll a $op time_s)" 0.01
    check "$what: $op bytes" near "$(coll b $op bytes)" "$(coll a $op bytes)" 1e-9
  done
}

roundtrip "fsdp zero2 8 GPUs"
roundtrip "zero3" --shard zero3
roundtrip "tp 2" --tp 2
roundtrip "cp 2" --cp 2
roundtrip "full recompute" --recompute full

# pp > 1: one file holds every stage; analyze says it measured them as one
expect_ok predict --pp 2 --gbs 16 --trace "$TMP/pp.json"
expect_ok trace analyze "$TMP/pp.json"
check "pp 2: multi-device note" grep -q 'GPU events of 2 devices (pid) in one file' "$TMP/out"
finish
