#!/usr/bin/env bash
# --megatron-xent (layout.megatron_xent, session 16): the loss as Megatron's
# vocab_parallel_cross_entropy runs it op by op (Megatron-LM without
# --cross-entropy-loss-fusion; sim/compute.c megatron_xent_extra_s): 32 B per logit and
# 5 kernels more forward, 8 B and 1 kernel more backward than the fused pass.
. "$(dirname "$0")/lib.sh"
json_raw() { grep -o "\"$2\": *[a-z0-9\"-]*" "$1" | head -1 | sed 's/.*: *//; s/"//g'; }
json_num() { grep -o "\"$2\": *[-0-9.e+]*" "$1" | head -1 | sed 's/.*: *//'; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
# Llama 2 7B, predict's defaults (8 h100, dp 8, mbs 1, one micro-batch, seq 4096), vocab
# 32000: 131,072,000 logits; 32 + 8 B each = 5,242,880,000 B at 3.35 TB/s x 0.9 (h100
# hbm_fraction) = 1.738932 ms, plus 6 kernels x 1.2 us = 1.746132 ms more per step.
expect_ok predict --model llama2-7b --format json
cp "$TMP/out" "$TMP/x0.json"
check "megatron xent: off by default" [ "$(json_raw "$TMP/out" megatron_xent)" = false ]
expect_ok predict --model llama2-7b --megatron-xent on --format json
check "megatron xent: on in JSON" [ "$(json_raw "$TMP/out" megatron_xent)" = true ]
check "megatron xent: step 1.746132 ms longer" awk -v a="$(json_num "$TMP/x0.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { d = b - a - 1.746132e-3; exit !(d < 1e-9 && d > -1e-9) }'
expect_ok predict --model llama2-7b --megatron-xent on --te-cross-entropy on --format json
check "megatron xent: none under TE's cross-entropy" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/x0.json" step_time_s)" ]
expect_ok predict --model llama2-7b --megatron-xent on --format csv
check "megatron xent: csv column on" [ "$(col "$TMP/out" framework.megatron_xent)" = on ]
expect_ok predict --model llama2-7b --framework megatron-core --format json
check "megatron-core preset: on" [ "$(json_raw "$TMP/out" megatron_xent)" = true ]
expect_ok predict --model llama2-7b --framework megatron-core --megatron-xent off --format json
check "megatron-core preset: the flag turns it off" [ "$(json_raw "$TMP/out" megatron_xent)" = false ]
expect_ok predict --model llama2-7b --framework nemo --format json
check "nemo preset: off" [ "$(json_raw "$TMP/out" megatron_xent)" = false ]
expect_fail 1 "^plateau: --megatron-xent: unknown value 'yes' \(expected on\|off\)" -- predict --megatron-xent yes
expect_fail 2 "^plateau predict: option needs a value '--megatron-xent'" -- predict --megatron-xent
# The NeMo loader (sources_nemo.c validate_nemo_overrides): NeMo 1.x rows (24.07, 24.03.01) run
# the unfused loss (no cross_entropy_loss_fusion in their configs); NeMo 2.0's 2025 rows keep
# the nemo preset's fused one.
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/nemo_2407_performance_summary.csv" --format csv
check "nemo 24.07 row 1: --megatron-xent on" sh -c "grep -E '^\"nemo_2407_performance_summary\",1,' '$TMP/out' | grep -q -- '--megatron-xent on'"
check "nemo 24.07 row 1: said in assumed" sh -c "grep -E '^\"nemo_2407_performance_summary\",1,' '$TMP/out' | grep -q 'unfused cross-entropy (NeMo 1.x'"
expect_ok validate "$V/nemo_2409_2507_performance_summary.csv" --format csv
check "nemo 25.02 row 9: --megatron-xent off" sh -c "grep -E '^\"nemo_2409_2507_performance_summary\",9,' '$TMP/out' | grep -q -- '--megatron-xent off'"
# MT-NLG (Megatron-DeepSpeed without the deepspeed preset; sources_deepspeed.c
# validate_mtnlg_layout, xent16): its printed command turns it on.
expect_ok validate "$V/mtnlg530b_paper.csv" --format csv
check "mt-nlg row 1: --megatron-xent on" sh -c "grep -E '^\"mtnlg530b_paper\",1,' '$TMP/out' | grep -q -- '--megatron-xent on'"
# MLPerf GPT-3: v4.0's image (NeMo 2.0.0rc0 on Megatron-Core 0.7.0) runs it; v3.x and v4.1 keep
# the preset's fused loss (sources_nemo.c validate_mlperf_overrides).
expect_ok validate "$V/mlperf_gpt3.csv" --format csv
check "mlperf: the 9 v4.0 rows (28-36) run it" [ "$(grep -- '--megatron-xent on' "$TMP/out" | cut -d, -f2 | tr '\n' ' ')" = "28 29 30 31 32 33 34 35 36 " ]
check "mlperf v4.0 row 28: said in assumed" sh -c "grep -E '^\"mlperf_gpt3\",28,' '$TMP/out' | grep -q 'v4.0 image'"
finish
