#!/usr/bin/env bash
# `plateau calibrate compute`: fit a GPU's compute efficiencies to the kernels
# of a Kineto trace recorded with shapes (the measured H100 trace), write a
# GPU file that works as --gpu, report figures, totals and unused kernels;
# bad input gives a one-line error and exit 1, usage errors exit 2.
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces"
GT="$T/gt_h100_llama3.2-1b_seq4096.json.gz"

expect_ok calibrate compute "$GT" --gpu h100 --out "$TMP/h100c.json"
check "figures printed" grep -qE '^  gemm.mamf +[0-9.]+ TFLOP/s +[0-9.]+ TFLOP/s +[0-9]+ +[0-9]+' "$TMP/out"
check "attention fitted" grep -qE '^  attention.bwd_fraction .* [0-9]+ +[0-9]+ +[0-9.]+%$' "$TMP/out"
check "fitted total within 10%" \
  awk '/^kernel time of those ops/ { s = $NF; gsub(/[()%+-]/, "", s); exit !(s + 0 < 10) }' "$TMP/out"
check "unused kernels named" grep -q 'aten::_fused_adamw_ .*op without a byte count' "$TMP/out"
check "file written" [ -s "$TMP/h100c.json" ]
check "no temp file left" [ -z "$(ls "$TMP" | grep 'h100c.json.')" ]
check "sources name the fit" grep -q 'plateau calibrate compute (from base GPU' "$TMP/h100c.json"
check "cuDNN's rate by shape kept" grep -q '"fwd_tile_fixed_keys"' "$TMP/h100c.json"
expect_ok predict --model llama3-8b --gpus 8 --gpu "$TMP/h100c.json"
check "calibrated file works as --gpu" grep -q 'step time' "$TMP/out"

# JSON report; a GPU file as the base; two traces
expect_ok calibrate compute "$GT" "$T/tracelens_h100_bert_small.json.gz" --gpu "$TMP/h100c.json" \
  --out "$TMP/h100d.json" --format json
check "json figures" grep -q '"name": "attention.fwd_fraction"' "$TMP/out"
check "json lists both traces" grep -q 'tracelens_h100_bert_small' "$TMP/out"
check "non-causal attention named" grep -q 'not causal' "$TMP/out"

# ops beside a collective (TraceLens's MI300X ResNet trace, RCCL): left out by
# default; --overlap correct shortens them by mi300x's overlap_slowdown; include
# takes them as measured (the fit before session 27: hbm_fraction 0.4166)
MI="$T/tracelens_mi300_resnet_act_checkpoint.json.gz"
expect_ok calibrate compute "$MI" --gpu mi300x --out "$TMP/mi.json"
check "beside: 24 ops left out" grep -q 'ops beside a collective: 24, left out' "$TMP/out"
check "beside: 18 ops used" grep -q 'from 1 trace, 18 ops with shapes' "$TMP/out"
check "beside: named as not used" grep -q 'aten::add_ .*ran beside a collective' "$TMP/out"
expect_ok calibrate compute "$MI" --gpu mi300x --out "$TMP/mi.json" --overlap include
check "include: 42 ops, the fit before" grep -qE '^  hbm_fraction +0.8000 +0.4166 +33 ' "$TMP/out"
check "include: not listed as unused" sh -c "! grep -q 'ran beside a collective' '$TMP/out'"
expect_ok calibrate compute "$MI" --gpu mi300x --out "$TMP/mi.json" --overlap correct --format json
check "correct: json names the mode" grep -q '"overlap": "correct"' "$TMP/out"
check "correct: 24 ops beside" grep -q '"ops": 24' "$TMP/out"
expect_fail 1 "--overlap: unknown value 'x'" -- calibrate compute "$MI" --gpu mi300x \
  --out "$TMP/x.json" --overlap x

# bad input: exit 1, one line
expect_fail 1 "no GPU kernels" -- calibrate compute "$T/hta_cpu_only_rank-34.json.gz" --gpu h100 \
  --out "$TMP/x.json"
expect_fail 1 "no kernel whose shape could be recovered" -- calibrate compute \
  "$T/hta_nccl_data.json.gz" --gpu h100 --out "$TMP/x.json"
expect_fail 1 "cannot open" -- calibrate compute "$TMP/none.json" --gpu h100 --out "$TMP/x.json"
printf '{"traceEvents":[' >"$TMP/trunc.json"
expect_fail 1 "malformed JSON" -- calibrate compute "$TMP/trunc.json" --gpu h100 --out "$TMP/x.json"
expect_fail 1 "unknown gpu .h1000" -- calibrate compute "$GT" --gpu h1000 --out "$TMP/x.json"
check "nothing written on failure" [ ! -e "$TMP/x.json" ]
# usage: exit 2
expect_fail 2 "required" -- calibrate compute "$GT" --out "$TMP/x.json"
expect_fail 2 "at least one trace" -- calibrate compute --gpu h100 --out "$TMP/x.json"
expect_fail 2 "csv" -- calibrate compute "$GT" --gpu h100 --out "$TMP/x.json" --format csv
expect_fail 2 "" -- calibrate compute "$GT" --gpu h100 --out "$TMP/x.json" --bogus 1
finish
