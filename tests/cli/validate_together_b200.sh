#!/usr/bin/env bash
# Together AI's B200 runs of NVIDIA's dgxc recipes (data/validation/together_b200.csv, source
# key together-b200 in src/validate/sources.c): the report's seconds per step are compared as
# printed, on the dgx-b200 preset, and the rows are read by the Megatron-Bridge rules of the
# 26.02 release (their performance scripts ran them); bad cells skip the row with the reason.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/together_b200.csv" --format csv
check "row 1 Llama 3 70B MXFP8 compares the printed 9.509 s at gbs 2048" \
  grep -qE '^"together_b200",1,2,"llama3-70b, 512 x b200, tp2 pp4 dp64 vp5, mbs 1 gbs 2048, none","together-b200","b200","dgx-b200","step_time_s","Training step time \(seconds per step\) \(printed\)",9.509,9.509,' "$TMP/out"
check "row 3 Llama 3.1 405B FP8 read as current scaling (the release's fp8_cs)" \
  grep -qE '^"together_b200",3,.*FP8 as current scaling' "$TMP/out"
check "row 4 Llama 3.1 405B NVFP4: the release's V1 config recompute_num_layers 1 (full, block)" \
  grep -qE '^"together_b200",4,.*--recompute full --recompute-layers 1 ' "$TMP/out"
check "row 6 DeepSeek-V3 BF16: the release's B200 V2 config recompute_modules [mla_up_proj]" \
  grep -qE '^"together_b200",6,.*--recompute selective --recompute-modules mla_up_proj ' "$TMP/out"
check "row 5 DeepSeek-V3 MXFP8 takes the release's recompute modules and pipeline layout" \
  grep -qE '^"together_b200",5,.*recompute modules mla_up_proj.*pipeline layout Et\*4\|\(t\*4\|\)\*14tmL' "$TMP/out"
check "row 7 Qwen3-235B-A22B BF16 at gbs 16384 (the base 8192 scaled to 512 GPUs)" \
  grep -qE '^"together_b200",7,8,"qwen3-235b-a22b, 512 x b200, tp1 pp8 dp64 vp4, mbs 1 gbs 16384,.*,32\.2,32\.2,' "$TMP/out"
check "row 13 DeepSeek-V3 MXFP8 at 256 GPUs: the log's 27.85 s at gbs 4096" \
  grep -qE '^"together_b200",13,14,"deepseek-v3, 256 x b200, tp1 pp16 dp16, mbs 1 gbs 4096,.*,27\.85,27\.85,' "$TMP/out"
# The DeepSeek-V3 / Qwen3-235B rows ran Bridge v0.3.0's performance configs, which force the
# router's balance (column moe_balance 'force-balanced'; session 24)
check "row 13 DeepSeek-V3: force-balanced router, imbalance 1" \
  grep -qE '^"together_b200",13,.*imbalance 1 \(the script.s moe_router_force_load_balancing\).*--moe-imbalance 1 --moe-force-balance on ' "$TMP/out"
check "row 7 Qwen3-235B: force-balanced router" \
  grep -qE '^"together_b200",7,.*--moe-imbalance 1 --moe-force-balance on ' "$TMP/out"
# Rows 16-17 (Nemotron-H 56B FP8-CS, tp2, distributed optimizer) fit since the Bridge rule reads
# fp8_cs's fp8_param_gather under the distributed optimizer too (validate_bridge_fp8_params,
# session 23): with BF16 parameters plateau put them at 182.2 / 183.5 GiB > 180 GiB and skipped
# them, though Together ran them.
check "rows 16-17 Nemotron-H 56B FP8-CS: the fp8_cs recipe's FP8 parameters under zero1, predicted" \
  grep -qE '^"together_b200",16,17,"nemotron-h-56b, 512 x b200,.*FP8 parameters, gathered at 1 B .*--shard zero1 .*--fp8-all-gather on ' "$TMP/out"
check "row 18 Nemotron-4 340B FP8-CS (NeMo 2, together-nemo2): tp overlap off, current scaling" \
  grep -qE '^"together_b200",18,19,"Nemotron4-340B, 512 x b200, tp8 pp4 dp16 vp12, mbs 1 gbs 128, none","together-nemo2",.*--dtype fp8-current .*--tp-comm-overlap off ' "$TMP/out"
check "row 20 Grok-1 BF16 (NeMo 2): ep 8 etp 1, token drop, tp overlap off" \
  grep -qE '^"together_b200",20,21,"grok1-314b, 512 x b200, tp4 pp4 dp32 vp8, mbs 1 gbs 1024, none","together-nemo2",.*token drop.*--ep 8 --etp 1 .*--tp-comm-overlap off ' "$TMP/out"
check "row 22 Llama 3 70B FP8-CS, 64 GPUs: Megatron FSDP, the config's 5 offloaded blocks, 25.11 rules" \
  grep -qE '^"together_b200",22,23,"llama3-70b, 64 x b200, tp1 pp1 dp64, mbs 1 gbs 128, none",.*--shard zero3 --dtype fp8-current .*--act-offload-layers 5 --framework nemo-25-11 ' "$TMP/out"
check "row 18 Nemotron-4 340B FP8-CS: NeMo's fp8_param_gather under the distributed optimizer" \
  grep -qE '^"together_b200",18,.*FP8 parameters, gathered at 1 B .*--fp8-all-gather on ' "$TMP/out"
# the DeepSeek-V3 MXFP8 26.02 rows (5: 512 GPUs, the profiled preset; 13: the same at 256)
# run Megatron-Core's SwiGLU as eager kernels, as the run's torch-profiler report shows;
# no other row does
check "rows 5 and 13: eager SwiGLU (--jit-fuser off)" \
  [ "$(grep -cE '^"together_b200",(5|13),.*SwiGLU as eager kernels.*--jit-fuser off ' "$TMP/out")" = 2 ]
check "no other row: --jit-fuser off" [ "$(grep -c -- '--jit-fuser off' "$TMP/out")" = 2 ]
expect_ok validate "$V/together_b200.csv"
check "every row predicted" grep -q 'together_b200: 27 rows, 27 predicted, 0 skipped' "$TMP/out"
# bad cells: one row each, built from row 1
head -1 "$V/together_b200.csv" > "$TMP/bad.csv"
row=$(sed -n 2p "$V/together_b200.csv")
echo "${row/,9.509,/,abc,}" >> "$TMP/bad.csv"
echo "${row/,LLAMA3_70B,/,LLAMA3_9000B,}" >> "$TMP/bad.csv"
echo "${row/,pretrain,/,sft,}" >> "$TMP/bad.csv"
echo "${row/,MXFP8,/,,}" >> "$TMP/bad.csv"
r18=$(sed -n 19p "$V/together_b200.csv")
echo "${r18/,false,true (NeMo 2/,maybe,true (NeMo 2}" >> "$TMP/bad.csv"
echo "${r18/,nemo:25.07.01,/,nemo:23.11,}" >> "$TMP/bad.csv"
r13=$(sed -n 14p "$V/together_b200.csv")
echo "${r13%,force-balanced},balanced-ish" >> "$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv" --format csv
check "step time not a number skipped" grep -qE "^\"bad\",1,.*Training step time" "$TMP/out"
check "unknown model skipped" grep -qE "^\"bad\",2,.*LLAMA3_9000B" "$TMP/out"
check "not pre-training skipped" grep -qE "^\"bad\",3,.*task 'sft' is not pre-training" "$TMP/out"
check "precision not stated skipped" grep -qE "^\"bad\",4,.*precision" "$TMP/out"
check "NeMo 2 row: tp overlap not true/false skipped" grep -qE "^\"bad\",5,.*column 'ub_tp_comm_overlap': 'maybe'" "$TMP/out"
check "NeMo 2 row: container not read skipped" grep -qE "^\"bad\",6,.*container 'nemo:23.11'" "$TMP/out"
check "moe_balance not read skipped" grep -qE "^\"bad\",7,.*column 'moe_balance': 'balanced-ish' is not 'force-balanced'" "$TMP/out"
finish
