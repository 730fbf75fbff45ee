#!/usr/bin/env bash
# Transformer Engine's userbuffers SM margins (--ub-proj-fprop-sms, --ub-fc2-fprop-sms;
# src/sim/ub_margin.c): under --tp-comm-overlap with sequence parallelism the forward proj
# and fc2 GEMMs run on sm_count - num_sm SMs (TE comm_gemm_overlap.cpp _math_sms) and their
# reduce_scatters take no SM from compute. The nemo preset's values in JSON, each flag
# overriding it, no effect without the overlap, a framework file's keys, bad values.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }
B="predict --model llama3-8b --cluster dgx-h100 --gpus 8 --tp 4 --gbs 16 --mbs 1 --seq 4096 --framework nemo"

expect_ok $B --format json
cp "$TMP/out" "$TMP/preset.json"
check "nemo preset: proj 24 SMs in JSON" [ "$(json_num "$TMP/preset.json" ub_proj_fprop_sms)" = 24 ]
check "nemo preset: fc2 16 SMs in JSON" [ "$(json_num "$TMP/preset.json" ub_fc2_fprop_sms)" = 16 ]
expect_ok $B --ub-proj-fprop-sms 8 --format json
check "--ub-proj-fprop-sms 8 over the preset" [ "$(json_num "$TMP/out" ub_proj_fprop_sms)" = 8 ]
check "--ub-proj-fprop-sms 8: fc2 keeps the preset's" [ "$(json_num "$TMP/out" ub_fc2_fprop_sms)" = 16 ]
# a margin on one GEMM only: its reduce_scatters still run on SMs beside compute (lower_unit.c
# ub_mode needs both), and the fc2 GEMM runs on 116 of 132 SMs: slower than no margin at all
expect_ok $B --ub-proj-fprop-sms 0 --ub-fc2-fprop-sms 0 --format json
cp "$TMP/out" "$TMP/none.json"
expect_ok $B --ub-proj-fprop-sms 0 --format json
check "fc2 margin alone: slower than none" awk -v a="$(json_num "$TMP/none.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b > a * 1.001) }'
check "step times are numbers" [ -n "$(json_num "$TMP/none.json" step_time_s)" ]
expect_ok $B --ub-fc2-fprop-sms 20 --format csv
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
check "csv: proj column 24" [ "$(col "$TMP/out" framework.ub_proj_fprop_sms)" = 24 ]
check "csv: fc2 column 20" [ "$(col "$TMP/out" framework.ub_fc2_fprop_sms)" = 20 ]
# without the overlap the margins change nothing
expect_ok $B --tp-comm-overlap off --format json
cp "$TMP/out" "$TMP/off.json"
expect_ok $B --tp-comm-overlap off --ub-proj-fprop-sms 0 --ub-fc2-fprop-sms 0 --format json
check "no overlap: margins change nothing" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/off.json" step_time_s)" ]
# a framework file
echo '{"name": "x", "behaviours": {"tp_comm_overlap": true, "ub_proj_fprop_sms": 20, "ub_fc2_fprop_sms": 1}}' >"$TMP/ub.json"
expect_ok predict --model llama3-8b --gpus 8 --tp 4 --gbs 16 --framework "$TMP/ub.json" --format json
check "framework file: proj 20" [ "$(json_num "$TMP/out" ub_proj_fprop_sms)" = 20 ]
check "framework file: fc2 1" [ "$(json_num "$TMP/out" ub_fc2_fprop_sms)" = 1 ]
# bad values
for f in ub-proj-fprop-sms ub-fc2-fprop-sms; do
  for bad in 256 -1 x 8.5 ''; do
    expect_fail 1 "^plateau: --$f: '$bad' is not an SM count 0..255" -- predict --$f "$bad"
  done
done
expect_fail 1 "^plateau: layout: a userbuffers margin of 132 SMs leaves none of gpu 'h100''s 132 SMs" -- $B --ub-fc2-fprop-sms 132
for bad in '"8"' 256 -1 true; do
  echo "{\"name\": \"x\", \"behaviours\": {\"ub_fc2_fprop_sms\": $bad}}" >"$TMP/bad.json"
  expect_fail 1 "behaviour 'ub_fc2_fprop_sms' must be an integer 0..255" -- predict --framework "$TMP/bad.json"
done
finish
