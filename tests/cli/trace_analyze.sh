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
finish
