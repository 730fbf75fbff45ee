#!/usr/bin/env bash
# Together AI's GB200 NVL72 cluster benchmarks (data/validation/together_gb200.csv,
# src/validate/source_together.c): the report's median seconds per step are compared as printed,
# on the gb200-nvl72 preset, with what the runs' scripts and Configuration Summary state (selective
# recompute modules, no tp overlap, fp32 gradient reduce, the bucket, GPT-OSS's alltoall dispatcher
# and forced balance); bad cells skip the row with the column named.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/together_gb200.csv" --format csv
check "row 1 Qwen2.5 72B compares the printed 20.29 s" \
  grep -qE '^"together_gb200",1,2,"qwen2.5-72b, 64 x gb200, tp8 pp4 dp2, mbs 2 gbs 512, selective","together","gb200","gb200-nvl72","step_time_s","Training step time \(seconds per step\) \(printed\)",20.29,20.29,' "$TMP/out"
check "row 1 reads the summary" \
  grep -qE '^"together_gb200",1,.*--recompute-modules layernorm .*--tp-comm-overlap off .*--grad-reduce-dtype fp32 ' "$TMP/out"
check "row 1 Megatron-Core default bucket" grep -qE "^\"together_gb200\",1,.*Megatron-Core's default bucket" "$TMP/out"
check "row 2 GPT-OSS 120B: ep 64, alltoall, forced balance, 128 Mi bucket" \
  grep -qE '^"together_gb200",2,3,"gpt-oss-120b, 64 x gb200,.*,5\.555,5\.555,.*--recompute-modules moe_act,layernorm --ep 64 --etp 1 --moe-dispatch alltoall --moe-imbalance 1 --moe-force-balance on .*--bucket-params 134217728 ' "$TMP/out"
check "row 3 (rack 07, 17 trays) converts 782 TFLOPS/GPU by Megatron-LM's FLOPs: 18.64 s" \
  grep -qE '^"together_gb200",3,4,"qwen2.5-72b, 68 x gb200, tp2 pp2 dp17, mbs 1 gbs 544, full","together","gb200","gb200-nvl72","step_time_s","Model TFLOP/s/GPU \(Megatron-Bridge count\) -> step = Megatron-LM model FLOPs.*",782,18\.64' "$TMP/out"
# bad cells: one row each, built from row 2
head -1 "$V/together_gb200.csv" > "$TMP/bad.csv"
row=$(sed -n 3p "$V/together_gb200.csv")
echo "${row/,nemo:26.02,/,nemo:25.09,}" >> "$TMP/bad.csv"
echo "${row/,true,false,true,/,yes,false,true,}" >> "$TMP/bad.csv"
echo "${row/,none,alltoall,/,full,alltoall,}" >> "$TMP/bad.csv"
echo "${row/,none,alltoall,/,none,teleport,}" >> "$TMP/bad.csv"
echo "${row/,force-balanced,/,maybe,}" >> "$TMP/bad.csv"
echo "${row/,134217728,/,lots,}" >> "$TMP/bad.csv"
echo "${row/,5.555,/,abc,}" >> "$TMP/bad.csv"
echo "${row/,GPT OSS 120B,/,GPT OSS 9000B,}" >> "$TMP/bad.csv"
r3=$(sed -n 4p "$V/together_gb200.csv")
echo "${r3%,782},fast" >> "$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv" --format csv
check "container not 26.02 skipped" grep -qE "^\"bad\",1,.*container 'nemo:25.09'" "$TMP/out"
check "flag not true/false skipped" grep -qE "^\"bad\",2,.*column 'cross_entropy_loss_fusion': 'yes'" "$TMP/out"
check "CUDA graphs not read skipped" grep -qE "^\"bad\",3,.*column 'cuda_graphs': 'full'" "$TMP/out"
check "dispatcher unknown skipped" grep -qE "^\"bad\",4,.*column 'moe_dispatcher': 'teleport'" "$TMP/out"
check "balance unknown skipped" grep -qE "^\"bad\",5,.*column 'moe_balance': 'maybe'" "$TMP/out"
check "bucket not a number skipped" grep -qE "^\"bad\",6,.*column 'ddp bucket_size \(parameters\)': 'lots'" "$TMP/out"
check "step time not a number skipped" grep -qE "^\"bad\",7,.*Training step time" "$TMP/out"
check "unknown model skipped" grep -qE "^\"bad\",8,.*model 'GPT OSS 9000B'" "$TMP/out"
check "TFLOPS not a number skipped" grep -qE "^\"bad\",9,.*column 'Model TFLOP/s/GPU \(Megatron-Bridge count\)': 'fast'" "$TMP/out"
finish
