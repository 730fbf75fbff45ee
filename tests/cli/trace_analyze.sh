#!/usr/bin/env bash
# `plateau trace analyze` end to end: every output format, directories,
# missing ranks, thread-count independence, MFU from --flops-per-step.
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces"

# a directory of 8 ranks; JSON keys as predict names them
expect_ok trace analyze --format json "$T/dlrm"
check "json has step_time_s" grep -q '"step_time_s": ' "$TMP/out"
check "json has breakdown.exposed_comm_s" grep -q '"exposed_comm_s": ' "$TMP/out"
check "json lists 8 ranks" test "$(grep -c '"rank": ' "$TMP/out")" -ge 8
check "json has collectives with busbw_gbps" grep -q '"busbw_gbps"' "$TMP/out"
check "json names no missing rank" grep -q '"missing_ranks": \[\]' "$TMP/out"
cp "$TMP/out" "$TMP/t2.json"
# the same with one thread: byte-identical
expect_ok trace analyze --format json --threads 1 "$T/dlrm"
check "threads 1 == threads default" cmp -s "$TMP/out" "$TMP/t2.json"
# CSV: a header and one row per rank
expect_ok trace analyze --format csv "$T/dlrm"
check "csv header" grep -q '^rank,file,steps,span_s,compute_s,comm_s,overlapped_comm_s,exposed_comm_s,memory_s' "$TMP/out"
check "csv 8 rows" test "$(wc -l <"$TMP/out")" -eq 9
# seven of eight ranks: the missing one is named
expect_ok trace analyze "$T"/dlrm/worker[0-4]*.gz "$T"/dlrm/worker[6-7]*.gz
check "missing rank 5 named" grep -q 'missing ranks (1 of 8): 5' "$TMP/out"
# MFU from a given FLOP count and peak: 1e12 FLOPs per step over 8 GPUs
expect_ok trace analyze --format json --flops-per-step 1e12 --gpu "125 TFLOP/s" --tokens-per-step 4096 "$T/dlrm"
check "json mfu is a number" grep -qE '"mfu": [0-9.e-]+' "$TMP/out"
check "json tokens_per_s is a number" grep -qE '"tokens_per_s": [0-9.e+-]+' "$TMP/out"
# text: the formats out there
expect_ok trace analyze "$T/kineto2021_resnet50_worker0.json.gz"
check "2021 schema: 5 of 6 steps kept" grep -q '5 steps kept of 6, 1 warm-up skipped' "$TMP/out"
expect_ok trace analyze "$T/hta_cpu_only_rank-34.json.gz"
check "CPU-only is said" grep -q 'CPU-only trace: no GPU events' "$TMP/out"
expect_ok trace analyze "$T/hta_alexnet_no_steps.json.gz"
check "no ProfilerStep is said" grep -q 'has no ProfilerStep; the whole trace is one window' "$TMP/out"
expect_ok trace analyze "$T/hta_amd_mi250_minitoy.json.gz"
check "cut-short last step is said" grep -q 'last step cut short by the profiler, dropped' "$TMP/out"
expect_ok trace analyze "$T/tracelens_mi300_resnet_act_checkpoint.json.gz"
check "RCCL all_reduce sized from record_param_comms" grep -qE 'all_reduce +8 +2\.0 +11\.15 MiB' "$TMP/out"
expect_ok trace analyze "$T/tracelens_b200_eager.json.gz" "$T/hta_sampled_rank-0.json.gz" "$T/hta_nccl_data.json.gz"
check "files from different runs noted" grep -q 'disagree on world_size' "$TMP/out"
expect_ok trace analyze --help
check "help lists --skip" grep -q -- '--skip N' "$TMP/out"
check "help lists --top" grep -q -- '--top N' "$TMP/out"

# why the GPU is idle, which kernels, how late (docs/trace.md 3.5-3.7, 4.1)
expect_ok trace analyze --top 3 "$T/dlrm"
check "idle split shown" grep -q '^why the GPU is idle' "$TMP/out"
check "host wait of dlrm: 98.6% of idle" grep -qE 'host wait \(launched late\) +7\.42 ms +98\.6%' "$TMP/out"
check "--top 3 lists 3 names" grep -q '^top 3 of 81 kernel names' "$TMP/out"
# NCCL's SendRecv kernels launched inside ProcessGroupNCCL's "nccl:all_to_all" annotation are
# the all_to_all collective (src/trace/reader_shape.c), sized from its Input Dims
check "all_to_all kernels first" grep -qE '^ +4\.74 ms +66\.[0-9]% +5\.0 .* all_to_all +ncclKernel_SendRecv' "$TMP/out"
check "dlrm all_to_all sized" grep -qE '^  all_to_all +8 +5\.0 +12\.59 KiB' "$TMP/out"
check "launch delays shown" grep -q 'launch delay (GPU start - launch)  mean' "$TMP/out"
check "HTA's launch delay shown" grep -qE "HTA's delay \(GPU start - call end\) mean .* over 100 us" "$TMP/out"
check "rank 7 arrives last at 5 of 8" grep -qE '^ +10 +8 +7 +5  46\.84 ms' "$TMP/out"
# each collective kind timed across ranks as TraceLens's NcclAnalyser does (docs/trace.md 4.2):
# the shortest kernel of each matched collective, start and end skew, busbw from it
check "across-ranks table shown" grep -q '^collectives across ranks (TraceLens' "$TMP/out"
check "dlrm all_reduce across ranks" grep -qE '^  all_reduce +8 +3\.0 +175\.0 us +564\.0 us +5\.7 us +24\.85$' "$TMP/out"
# exposed and overlapped communication per collective kind (docs/trace.md 3.4.2)
expect_ok trace analyze "$T/dlrm"
check "comm by collective shown" grep -q '^communication by collective' "$TMP/out"
check "dlrm all_to_all 98.2% exposed" grep -qE '^  all_to_all +4\.74 ms +85\.9 us +4\.66 ms +98\.2%$' "$TMP/out"
expect_ok trace analyze --format json "$T/dlrm"
tr -d ' \n' <"$TMP/out" >"$TMP/flat"
check "json comm_by_op" grep -q '"comm_by_op":\[{"op":"all_reduce","comm_s":0.00132' "$TMP/flat"
# TraceLens's per-size table (docs/trace.md 3.4.1): the rows of its coll_analysis.csv
expect_ok trace analyze --window trace "$T/tracelens_mi300_resnet_act_checkpoint.json.gz"
check "per-size table shown" grep -q '^collectives of rank 0 by message size' "$TMP/out"
check "mi300 16.82 MiB all_reduce row" grep -qE '^  all_reduce +8 +16\.82 MiB +3 +26\.80 ms +8\.93 ms +276\.1 us +8\.66 ms +9\.21 ms$' "$TMP/out"
check "mi300 unsized row kept" grep -qE '^  unknown +8 +not in trace +5 ' "$TMP/out"
expect_ok trace analyze --format json --window trace "$T/tracelens_mi300_resnet_act_checkpoint.json.gz"
tr -d ' \n' <"$TMP/out" >"$TMP/flat"
check "json coll_sizes" grep -q '"coll_sizes":\[{"op":"all_reduce","group_size":8,"bytes":17632384,"dtype_bytes":2,"other_sizes":false,"calls":3' "$TMP/flat"
# past 256 distinct sizes a new size joins its (op, group)'s "other sizes" row: 300 all_reduce
# calls of 300 sizes (1..300 floats), 1 us each, one after the other -> 256 rows of one call
# and one row of the remaining 44 calls
{
  printf '{"traceEvents":['
  for i in $(seq 1 300); do
    [ "$i" -gt 1 ] && printf ','
    printf '{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce_RING_LL","pid":0,"tid":7,"ts":%d,"dur":1,"args":{"correlation":%d,"Collective name":"allreduce","In msg nelems":%d,"Out msg nelems":%d,"Group size":2,"dtype":"Float"}}' $((i * 2)) "$i" "$i" "$i"
  done
  printf ']}'
} >"$TMP/sizes.json"
expect_ok trace analyze --format json "$TMP/sizes.json"
tr -d ' \n' <"$TMP/out" >"$TMP/flat"
check "257 size rows" test "$(grep -o '"other_sizes":' "$TMP/flat" | wc -l)" -eq 257
check "other sizes row: 44 calls, bytes null" grep -q '"bytes":null,"dtype_bytes":null,"other_sizes":true,"calls":44,' "$TMP/flat"
expect_ok trace analyze "$T/hta_sampled_rank-0.json.gz"
check "one rank: no across-ranks table" sh -c "! grep -q '^collectives across ranks' '$TMP/out'"
# its _all_gather_base annotation gives the input only, and the group is unknown
check "sizes missing in words" grep -qE '^  all_gather +128 +1\.0 not in trace' "$TMP/out"
expect_ok trace analyze --top 3 "$T/dlrm"
expect_ok trace analyze --format json --top 2 "$T/dlrm"
tr -d ' \n' <"$TMP/out" >"$TMP/flat"
check "json kernel_time" grep -q '"kernel_time":{"gemm_s"' "$TMP/flat"
check "json idle_host_s" grep -q '"idle_host_s":' "$TMP/flat"
check "json arrivals" grep -q '"arrivals":\[{"step":10,"collectives":8,"last_rank":7' "$TMP/flat"
check "json streams" grep -q '"streams":\[{"stream":' "$TMP/flat"
check "json launch" grep -q '"launch":{"events":' "$TMP/flat"
check "json HTA launch delay" grep -q '"hta_events":[0-9]*,"hta_delay_mean_s":' "$TMP/flat"
check "json collectives across ranks" grep -q '"busbw_gbps":3.28[0-9]*,"matched":3,"matched_count":3,"sync_time_s":0.000175' "$TMP/flat"
check "json sync busbw" grep -q '"sync_busbw_gbps":24.852' "$TMP/flat"
check "rank rows keep their keys" sh -c "! grep -q '\"ranks\":\\[.*\"collectives\":\\[[^]]*\"matched\"' '$TMP/flat'"
expect_ok trace analyze --format csv "$T/dlrm"
check "csv has the new columns" grep -q ',idle_host_s,idle_kernel_s,idle_other_s,kernel_s,gemm_s,' "$TMP/out"
expect_fail 1 '^plateau: --top: .0. must be positive' -- trace analyze --top 0 "$T/dlrm"
expect_fail 1 '^plateau: .*top' -- trace analyze --top many "$T/dlrm"
# a trace without a rank, a CPU-only trace: said in words
expect_ok trace analyze "$T/hta_triton_example.json.gz"
check "no rank in words" grep -q 'the trace without a rank: 1 step kept of 1' "$TMP/out"
check "no rank noted" grep -q 'records no rank (no distributedInfo, no rank in its name)' "$TMP/out"
check "no 'rank -1'" sh -c '! grep -q "rank -1" "$1"' _ "$TMP/out"
expect_ok trace analyze "$T/hta_cpu_only_rank-34.json.gz"
check "CPU-only: what is missing" grep -q 'no GPU time, compute, communication or idle to divide it' "$TMP/out"
check "CPU-only: no 0.0%" sh -c '! grep -q "0\.0%" "$1"' _ "$TMP/out"
finish
