#!/usr/bin/env bash
# Pipeline parallelism round trip: `plateau predict --pp 2 --trace FILE`
# writes both stages into one file, one pid per stage; `trace analyze` must
# measure it as one rank per GPU pid over the file's step (docs/trace.md 8)
# and reproduce, for the stage predict reports (the one with the most
# compute, docs/step-model.md 6), predict's breakdown within 1%.
#
# Mappings, as in trace_predict.sh:
#   trace compute_s = predict compute_s + optimizer_s (a trace's compute is every
#                     non-NCCL kernel, the optimizer's included)
#   trace idle_s    = predict bubble_s + other_s (to 1% of the step)
# and one more for pp: predict counts a pipeline transfer as comm of both the
# sender and the receiver, while the trace writer draws each transfer once, on
# the sender's pid. So the reported stage's trace comm_s plus the send_recv
# kernel time of the other stage (what it received) is predict's comm
# (exposed + overlapped), and its trace exposed_comm_s is predict's minus at
# most that received time.
. "$(dirname "$0")/lib.sh"

# near X Y TOL: |X - Y| <= TOL * |Y|
near() { awk -v x="$1" -v y="$2" -v t="$3" 'BEGIN { d = x - y; if (d < 0) d = -d; a = y < 0 ? -y : y; exit !(x != "" && y != "" && d <= t * a) }'; }
# csv COLUMN PID: a column of `trace analyze --format csv` for the rank of that pid
csv() { awk -F, -v c="$1" -v p="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  $col["gpu_pid"] == p { print $col[c] }' "$TMP/t.csv"; }
# pred KEY: a number from predict's JSON (the first occurrence of "KEY": ...)
pred() { grep -o "\"$1\": [-0-9.e+]*" "$TMP/p.json" | head -1 | awk '{ print $2 }'; }
sum() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%.17g", x + y }'; }

expect_ok predict --pp 2 --gbs 16 --format json --trace "$TMP/t.json"
cp "$TMP/out" "$TMP/p.json"
expect_ok trace analyze --format csv "$TMP/t.json"
cp "$TMP/out" "$TMP/t.csv"
check "pp 2: one rank per stage pid" test "$(awk 'END { print NR - 1 }' "$TMP/t.csv")" = 2
check "pp 2: pids 0 and 1" test "$(csv gpu_pid 0)$(csv gpu_pid 1)" = 01

# the reported stage: the one with the most compute
busy=0 other=1
if awk -v a="$(csv compute_s 1)" -v b="$(csv compute_s 0)" 'BEGIN { exit !(a > b) }'; then
  busy=1 other=0
fi
step=$(pred step_time_s)
check "pp 2: stage $busy step_time_s" near "$(csv span_s $busy)" "$step" 0.01
check "pp 2: stage $other step_time_s (the file's step)" near "$(csv span_s $other)" "$step" 0.01
check "pp 2: stage $busy compute_s = predict compute_s + optimizer_s" \
  near "$(csv compute_s $busy)" "$(sum "$(pred compute_s)" "$(pred optimizer_s)")" 0.01
check "pp 2: stage $busy overlapped_comm_s" \
  near "$(csv overlapped_comm_s $busy)" "$(pred overlapped_comm_s)" 0.01
idle_ok=$(awk -v t="$(csv idle_s $busy)" -v b="$(pred bubble_s)" -v o="$(pred other_s)" -v s="$step" \
  'BEGIN { d = t - b - o; if (d < 0) d = -d; print d <= 0.01 * s }')
check "pp 2: stage $busy idle_s = predict bubble_s + other_s (to 1% of the step)" test "$idle_ok" = 1

# what the reported stage received: the other stage's send_recv kernels
expect_ok trace analyze --format json "$TMP/t.json"
recv=$(tr -d ' \n' <"$TMP/out" | grep -o "\"gpu_pid\":$other,.*" | grep -o '"op":"send_recv"[^}]*' |
  head -1 | grep -o '"time_s":[-0-9.e+]*' | cut -d: -f2)
check "pp 2: stage $other sent pipeline transfers" awk -v r="$recv" 'BEGIN { exit !(r > 0) }'
pcomm=$(sum "$(pred exposed_comm_s)" "$(pred overlapped_comm_s)")
check "pp 2: stage $busy comm_s + received = predict exposed + overlapped" \
  near "$(sum "$(csv comm_s $busy)" "$recv")" "$pcomm" 0.01
exp_ok=$(awk -v t="$(csv exposed_comm_s $busy)" -v p="$(pred exposed_comm_s)" -v r="$recv" \
  'BEGIN { d = p - t; print (d >= -0.01 * p && d <= r * 1.01) }')
check "pp 2: stage $busy exposed_comm_s = predict's less at most the received time" test "$exp_ok" = 1

# the straggler (most span - exposed comm) is named by its pid as well as its rank
strag=$(awk -v a="$(csv span_s 0)" -v b="$(csv exposed_comm_s 0)" -v c="$(csv span_s 1)" \
  -v d="$(csv exposed_comm_s 1)" 'BEGIN { print (c - d > a - b) ? 1 : 0 }')
check "pp 2: JSON straggler names pid $strag" grep -q "\"straggler\":{[^}]*\"gpu_pid\":$strag" \
  <(tr -d ' \n' <"$TMP/out")
expect_ok trace analyze "$TMP/t.json"
check "pp 2: text straggler names pid $strag" grep -q "straggler: rank .*, pid $strag)" "$TMP/out"

# a Kineto trace of one rank (one GPU pid) stays one rank
expect_ok trace analyze --format csv "$PL_TEST_DATA/traces/hta_nccl_data.json.gz"
check "one GPU pid: one rank" test "$(awk 'END { print NR - 1 }' "$TMP/out")" = 1
finish
