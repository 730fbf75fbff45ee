#!/usr/bin/env bash
# Session 29 (skip29): the Megatron-Bridge 25.09 section prints no precision. A row is read only
# where the release's performance configuration ties its figure to exactly one recipe
# (src/validate/source_bridge_precision.c validate_bridge_precision_2509: Megatron-Bridge
# scripts/performance/configs/*/*_llm_pretrain.yaml perf_matrix at the page's commit fa0315ae2 and
# at v0.1.0rc4; the section's footnote makes a parenthesised figure block scaled = fp8_mx).
# 12 rows are read, the rest stay skipped with "precision not stated in the row": the Llama
# figures whose layout fp8_ds and fp8_cs share, the DeepSeek-V3 / Qwen3 figures runnable under
# either, DeepSeek-V3 GB200's parenthesised pp 8 vp 2 (no config), H100's 128x128 figures.
# First-look errors (model unchanged, docs/accuracy.md "Session 29 (skip29)"): 8B GB200 MXFP8
# -10.8 %, 70B GB200 FP8-CS -11.6 %, 70B GB200 MXFP8 -11.7 %, 405B GB200 -28.7 %, Qwen3-30B GB200
# -19.6 %, Qwen3-235B GB200 -17.2 %, 8B B200 -7.9 %, 405B B200 -17.3 %, DeepSeek-V3 B200 -31.5 %,
# Qwen3-235B B200 -2.4 %, Qwen3-30B H100 -14.5 % (two rows). Bounds: each within +-40 %.
. "$(dirname "$0")/lib.sh"
B="$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv"
# row 274: LLAMA3_70B GB200, parenthesised: tp 2 pp 4 vp 5 is the fp8_mx entry alone; mbs 1
# from that entry and the row's GA (16) = 128 / (mbs 1 x dp 8), not the table's MBS 2
expect_ok validate "$B" --explain 274
check "row 274 is mxfp8" grep -q "dtype=mxfp8" "$TMP/out"
check "row 274 runs mbs 1" grep -q "mbs=1 " "$TMP/out"
check "row 274 says why" grep -q "the 25.09 performance config's only recipe" "$TMP/out"
# row 273: the unparenthesised 70B GB200 figure, mbs 2 FSDP: only fp8_cs has mbs 2, with
# cpu_offloading_num_layers 40 (validate_bridge_offload, 25.09 added)
expect_ok validate "$B" --explain 273
check "row 273 is fp8-current" grep -q "dtype=fp8-current" "$TMP/out"
check "row 273 offloads 40 blocks" grep -q "activations of 40 blocks offloaded" "$TMP/out"
# row 271: LLAMA3_8B GB200 unparenthesised: fp8_ds and fp8_cs share its layout -> still skipped
expect_ok validate "$B" --explain 271
check "row 271 (ds or cs) stays skipped" grep -q "precision not stated in the row" "$TMP/out"
# row 280: Qwen3-30B GB200 parenthesised (MXFP8): 25.09 token drop (v0.1.0rc4 run_script.py
# apply_moe_token_drop): alltoall, padded to capacity, no forced balance
expect_ok validate "$B" --explain 280
check "row 280 is mxfp8" grep -q "dtype=mxfp8" "$TMP/out"
check "row 280 runs the 25.09 token drop" grep -q "25.09 token drop: alltoall dispatcher" "$TMP/out"
check "row 280 is not hybridep" sh -c "! grep -q 'hybridep dispatcher' '$TMP/out'"
# row 288: DeepSeek-V3 B200 parenthesised: v0.1.0rc4 run_script.py recompute ["mla_up_proj"]
expect_ok validate "$B" --explain 288
check "row 288 recomputes mla_up_proj" grep -q "recompute modules mla_up_proj" "$TMP/out"
expect_ok validate "$B" --format csv
if command -v python3 >/dev/null; then
  check "12 of the 31 25.09 rows are predicted, each within 40 %" python3 - "$TMP/out" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if 271 <= int(r["row"]) <= 301]
got = [r for r in rows if not r["skipped_reason"]]
print(len(got), [(r["row"], r["error_pct"][:6]) for r in got])
sys.exit(not (len(got) == 12 and all(abs(float(r["error_pct"])) < 40 for r in got)))
PY
fi
finish
