#!/usr/bin/env bash
# NVIDIA dgxc-benchmarking's Expected Performance tables (data/validation/dgxc_benchmarking.csv,
# src/validate/source_dgxc.c): the printed seconds per step are compared as printed (row 11:
# Llama 3.1 70B BF16 on 64 H100, 14.72 s, v24.11.1), every row runs the nemo-2024 preset, the
# recipe's NVTE_FUSED_ATTN=0 gives FlashAttention (GPT-3 175B at v24.11.1, row 61) and its absence
# not (row 121, v25.02), the yaml's loss fusion and userbuffers SMs are read; bad cells skip the
# row with the column named.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/dgxc_benchmarking.csv" --format csv
check "row 11 compares the printed 14.72 s" \
  grep -qE '^"dgxc_benchmarking",11,12,"LLAMA3.1-70B, 64 x h100, tp4 pp4 dp2 cp2 vp5, mbs 1 gbs 128, none","dgxc","h100","dgx-h100","step_time_s","Training step time \(seconds per step\) \(printed\)",14.72,14.72,' "$TMP/out"
check "row 11 reads the fused loss and ub SMs" \
  grep -qE '^"dgxc_benchmarking",11,.*fused cross-entropy \(the recipe yaml.*userbuffers 24/16 SMs' "$TMP/out"
check "row 61 runs FlashAttention" grep -qE '^"dgxc_benchmarking",61,.*FlashAttention \(NVTE_FUSED_ATTN=0' "$TMP/out"
check "row 121 does not" bash -c "! grep -E '^\"dgxc_benchmarking\",121,' '$TMP/out' | grep -q FlashAttention"
check "row 61 keeps the unfused loss (no fusion in the GPT-3 yaml)" \
  bash -c "! grep -E '^\"dgxc_benchmarking\",61,' '$TMP/out' | grep -q 'fused cross-entropy'"
check "framework nemo-2024" grep -qE '^"dgxc_benchmarking",1,.*,"nemo-2024",' "$TMP/out"
# bad cells: one row each, built from row 11
head -1 "$V/dgxc_benchmarking.csv" > "$TMP/bad.csv"
row=$(sed -n 12p "$V/dgxc_benchmarking.csv")
echo "${row/,nemo:24.09,/,nemo:25.02,}" >> "$TMP/bad.csv"
echo "${row/,1,true,24,16,/,1,maybe,24,16,}" >> "$TMP/bad.csv"
echo "${row/,1,true,24,16,/,1,true,x,16,}" >> "$TMP/bad.csv"
echo "${row/,14.72,71235,/,abc,71235,}" >> "$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv" --format csv
check "container not 24.x skipped" grep -qE "^\"bad\",1,.*container 'nemo:25.02': only NeMo 24.x rows" "$TMP/out"
check "ub flag not true/false skipped" grep -qE "^\"bad\",2,.*column 'ub_tp_comm_overlap': 'maybe'" "$TMP/out"
check "ub SMs not a number skipped" grep -qE "^\"bad\",3,.*column 'ub proj_fprop SMs': 'x'" "$TMP/out"
check "step time not a number skipped" grep -qE "^\"bad\",4,.*Training step time" "$TMP/out"
finish
