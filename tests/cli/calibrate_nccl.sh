#!/usr/bin/env bash
# `plateau calibrate nccl`: fit a cluster to real nccl-tests logs, write a
# cluster file that works as --cluster, print errors per size; bad logs give
# a clear error or the parsable part plus warnings.
. "$(dirname "$0")/lib.sh"
N="$PL_TEST_DATA/nccl"

expect_ok calibrate nccl "$N/h100_1node_8gpu_all_reduce_ring_together.txt" --cluster dgx-h100 \
  --algo ring --out "$TMP/h100.json"
check "fitted values printed" grep -q 'intra (nvswitch)  hop' "$TMP/out"
check "per-size errors printed" grep -qE '^ +8589934592 .*%' "$TMP/out"
check "rms within 10% at >= 1 MiB" \
  awk '/error over fitted rows/ { gsub(/[%,]/, ""); exit !($6 < 10 && $8 < 10) }' "$TMP/out"
check "file written" [ -s "$TMP/h100.json" ]
check "no temp file left" [ ! -e "$TMP/h100.json.tmp" ]
expect_ok collectives --cluster "$TMP/h100.json" --bytes 1G --format csv
check "calibrated file works as --cluster" grep -q '^all_reduce,8,1,' "$TMP/out"

# two-node log without rank lines: --nodes fills the gap; JSON report
expect_ok calibrate nccl "$N/a100_2node_p4de_efa_all_reduce_aws.txt" --cluster aws-p4de \
  --nodes 2 --out "$TMP/p4de.json" --format json
check "json fit" grep -q '"node_net_bytes_per_s"' "$TMP/out"
expect_fail 1 "cannot tell how many nodes.*--nodes" -- calibrate nccl \
  "$N/a100_2node_p4de_efa_all_reduce_aws.txt" --cluster aws-p4de --out "$TMP/x.json"
expect_fail 1 "op says all_gather" -- calibrate nccl \
  "$N/h100_1node_8gpu_all_reduce_ring_together.txt" --cluster dgx-h100 --op all_gather \
  --out "$TMP/x.json"

# several logs with one algorithm each
expect_ok calibrate nccl "$N/h100_1node_8gpu_all_gather_ring_together.txt" \
  "$N/h100_1node_8gpu_all_reduce_nvls_together.txt" --algo ring,nvls --cluster dgx-h100 \
  --out "$TMP/two.json"
expect_fail 1 "one per log" -- calibrate nccl "$N/h100_1node_8gpu_all_gather_ring_together.txt" \
  --algo ring,nvls,tree --cluster dgx-h100 --out "$TMP/x.json"

# logs that name no collective (ALCF Polaris): --op, one per log
M="$PL_TEST_DATA/nccl-multinode"
expect_ok calibrate nccl "$M/a100_2node_8gpu_all_reduce_alcf-polaris-slingshot.txt" \
  "$M/a100_2node_8gpu_all_gather_alcf-polaris-slingshot.txt" --op all_reduce,all_gather \
  --cluster alcf-polaris --out "$TMP/pol.json"
check "both ops fitted" grep -q 'all_gather, 8 ranks on 2 nodes' "$TMP/out"
check "no figure at the fit's edge on the 2-node Polaris logs" \
  sh -c "! grep -q 'edge of the fit' '$TMP/err'"
# the proxy's per-message cost (src/net/proxy_msg.c) is fitted there, written
# to the file, and the file works as --cluster; presets carry none
check "message cost fitted" grep -qE "inter message +[1-9][0-9.]* us per network message" "$TMP/out"
check "message cost written" grep -q '"message_overhead"' "$TMP/pol.json"
check "fitted message cost sourced to the fit" \
  sh -c "grep -A2 '\"message_overhead\"' '$TMP/pol.json' | grep -q 'fitted by plateau calibrate nccl'"
# the 2-node Polaris rows leave the NVLink figures where the base has them
# (the fit widens them but no row moves them): written as the base's
check "unmoved NVLink bandwidth sourced to the base" \
  sh -c "grep -A2 '\"nccl_bandwidth\"' '$TMP/pol.json' | grep -q 'from the base cluster'"
# what the fit did not measure (session 28, pol28): the pairs its rows ran, and that every
# fitted ring step posts >= 4 network messages (4 channels at 8 ranks from 1 MiB), so at
# 1,024 ranks a ring LL call below 4 x 4096 x 1024 B = 16 MiB posts fewer, unfitted
check "extrapolation: pairs the fitted rows ran" \
  grep -q 'extrapolating: the fitted rows ran ring/LL, ring/Simple;' "$TMP/out"
check "extrapolation: one node count fitted" \
  grep -q 'extrapolating: every multi-node row ran on 2 nodes' "$TMP/out"
check "extrapolation: fewest messages a step and where a larger ring posts fewer" \
  grep -q 'posts >= 4 network messages .* below 4 x 4096 x ranks bytes (16 MiB at 1,024 ranks)' "$TMP/out"
expect_ok collectives --cluster "$TMP/pol.json" --op all_gather --gpus 2160 --bytes 1G --format csv
check "calibrated Polaris file works as --cluster" grep -q '^all_gather,2160,' "$TMP/out"
expect_ok calibrate nccl "$M/a100_2node_8gpu_all_reduce_alcf-polaris-slingshot.txt" \
  --op all_reduce --cluster alcf-polaris --out "$TMP/pol1.json" --format json
check "json message cost" grep -q '"inter_msg_s"' "$TMP/out"
check "json lists the NVLink figures the fit left at the base's" \
  sh -c "tr -d ' \n' <'$TMP/out' | grep -q '\"kept\":\[\"intra_latency_s\",\"intra_bytes_per_s\"\]'"
check "json says the network bandwidth was fitted" grep -q '"node_net_bytes_per_s_fitted": true' "$TMP/out"
check "json: the fewest network messages a fitted ring step posts" \
  grep -q '"min_net_msgs_per_step": 4' "$TMP/out"
check "json: the pairs the fitted rows ran" \
  sh -c "tr -d ' \n' <'$TMP/out' | grep -q '\"pairs\":\[\"ring/LL\",\"ring/Simple\"\]'"
# the 256-node tree-only log posts no ring message: no such note
# a 256-node Polaris all_reduce runs tree from 1 MiB: no fitted row posts the
# ring's messages, so the preset's 2.86 us is held, printed and written so
expect_ok calibrate nccl "$M/a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot.txt" \
  --op all_reduce --cluster alcf-polaris --out "$TMP/pol256.json"
check "held message cost printed" grep -q '2.86 us per network message, held at the base' "$TMP/out"
check "tree-only fit: pairs named, no ring-message note" \
  sh -c "grep -q 'fitted rows ran tree/' '$TMP/out' && ! grep -q 'network messages a proxy' '$TMP/out'"
check "held message cost sourced to the base" \
  sh -c "grep -A2 '\"message_overhead\"' '$TMP/pol256.json' | grep -q 'from the base cluster'"
# ... and its tree rows do not pin the hop latencies: the fit drives both to
# the edge of its range (1/100 of the base's), which it says
check "unpinned hop latency warned" grep -q 'network hop latency is at the edge of the fit' "$TMP/err"
expect_ok calibrate nccl "$M/a100_256node_1024gpu_all_reduce_alcf-polaris-slingshot.txt" \
  --op all_reduce --cluster alcf-polaris --out "$TMP/pol256.json" --format json
check "json names the unpinned figures" \
  sh -c "tr -d ' \n' <'$TMP/out' | grep -q '\"at_limit\":\[\"intra_latency_s\",\"inter_latency_s\"\]'"
expect_fail 1 "give one collective for all logs or one per log" -- calibrate nccl \
  "$M/a100_2node_8gpu_all_reduce_alcf-polaris-slingshot.txt" --op all_reduce,all_gather,all_gather \
  --cluster alcf-polaris --out "$TMP/x.json"
expect_fail 1 "--op: unknown collective" -- calibrate nccl \
  "$M/a100_2node_8gpu_all_reduce_alcf-polaris-slingshot.txt" --op all_reduce,bogus \
  --cluster alcf-polaris --out "$TMP/x.json"
# a provenance header describing omitted rank lines is not a rank line; the
# old nccl-tests "error" column (5e-07) is not a count of wrong results
expect_ok calibrate nccl "$M/h100_2node_16gpu_all_reduce_nccl-tests-issue309-gj-aion.txt" \
  --gpus 16 --nodes 2 --cluster dgx-h100 --out "$TMP/gj.json"
# a 2-node NVLS_TREE log does not set the network's bandwidth (fit.c
# net_bw_binds): the fit holds the base's figure, prints so, and the file
# names the base as that figure's source, not the fit
check "held NIC bandwidth printed" grep -q 'per node per direction (held at the base' "$TMP/out"
check "held NIC bandwidth sourced to the base" \
  sh -c "grep -A2 '\"nic_bandwidth\"' '$TMP/gj.json' | grep -q 'from the base cluster'"
check "fitted hop latency sourced to the fit" \
  sh -c "grep -A2 '\"latency\"' '$TMP/gj.json' | grep -q 'fitted by plateau calibrate nccl'"
expect_ok calibrate nccl "$M/a100_16node_128gpu_all_reduce_coreweave-readme2022.txt" \
  --cluster dgx-a100 --out "$TMP/cw.json"
check "old error column read" grep -q '5 ranks on 1 node' "$TMP/out"

# bad logs
: >"$TMP/empty.txt"
expect_fail 1 "empty file" -- calibrate nccl "$TMP/empty.txt" --cluster dgx-h100 --out "$TMP/x.json"
ls -l / >"$TMP/ls.txt"
expect_fail 1 "no nccl-tests result rows" -- calibrate nccl "$TMP/ls.txt" --cluster dgx-h100 --out "$TMP/x.json"
head -c 3000 "$N/h100_1node_8gpu_all_reduce_ring_together.txt" >"$TMP/trunc.txt"
expect_fail 1 "too few|no usable|no nccl-tests" -- calibrate nccl "$TMP/trunc.txt" \
  --cluster dgx-h100 --out "$TMP/x.json"
# garbled numbers in a good log: skipped with a warning naming the line
sed 's/ 5206.02 / 5206.02x /; s/ 182.99  320.23 / 999.99  320.23 /' \
  "$N/h100_1node_8gpu_all_reduce_ring_together.txt" >"$TMP/garbled.txt"
expect_ok calibrate nccl "$TMP/garbled.txt" --cluster dgx-h100 --algo ring --out "$TMP/g.json"
check "warning names the line" grep -qE "warning: .*garbled.txt.*line [0-9]+: unreadable time" "$TMP/err"
check "garbled algbw is caught" grep -qE "line [0-9]+: algbw 999.99" "$TMP/err"
# mixed ops in one file: each test is fitted as itself
cat "$N/h100_1node_8gpu_all_gather_ring_together.txt" \
  "$N/h100_1node_8gpu_reduce_scatter_ring_together.txt" >"$TMP/mixed.txt"
expect_ok calibrate nccl "$TMP/mixed.txt" --cluster dgx-h100 --algo ring --out "$TMP/m.json"
check "both tests reported" [ "$(grep -cE '^/.*mixed.txt \(line' "$TMP/out")" = 2 ]
printf '\0\1\2binary' >"$TMP/bin.txt"
expect_fail 1 "binary data" -- calibrate nccl "$TMP/bin.txt" --cluster dgx-h100 --out "$TMP/x.json"
expect_fail 1 "cannot open" -- calibrate nccl "$TMP/none.txt" --cluster dgx-h100 --out "$TMP/x.json"
expect_fail 1 "cannot write" -- calibrate nccl "$N/h100_1node_8gpu_all_reduce_ring_together.txt" \
  --cluster dgx-h100 --out /nonexistent/dir/x.json
# warnings reach the JSON report (the C API and Python do not see stderr): a log's
# skipped row in "warnings", a series' rank-count warning in its "warning" (null when none)
awk '{print} /^ +1048576 /{print "     2097152        524288     float     sum      -1   garbage"}' \
  "$N/h100_1node_8gpu_all_reduce_ring_together.txt" >"$TMP/cut.txt"
expect_ok calibrate nccl "$TMP/cut.txt" --cluster dgx-h100 --out "$TMP/cut.json" --format json
check "a skipped row is in the JSON's warnings" \
  grep -q "\"'.*cut.txt': line [0-9]*: incomplete result row (6 fields, expected 12 or 13): truncated?; row skipped\"" "$TMP/out"
check "a series without a warning has \"warning\": null" grep -q '"warning": null' "$TMP/out"
expect_ok calibrate nccl "$PL_TEST_DATA/nccl-multinode/a100_16node_128gpu_all_reduce_coreweave-readme2022.txt" \
  --cluster dgx-a100 --out "$TMP/cw.json" --format json
check "the series' rank-count warning is in the JSON" \
  grep -q '"warning": ".*busbw/algbw = 1.9843 implies 127 ranks for all_reduce' "$TMP/out"
check "no log warnings: an empty list" grep -q '"warnings": \[\]' "$TMP/out"
# usage
expect_fail 2 "cluster BASE and --out FILE are required" -- calibrate nccl "$TMP/ls.txt"
expect_fail 2 "unknown kind 'mpi'" -- calibrate mpi
expect_fail 2 "usage" -- calibrate
finish
