#!/usr/bin/env bash
# Session 29 (moe29). The MoE model zoo's rows run Megatron-Core with --moe-grouped-gemm and
# Transformer Engine: TEGroupedMLP, TE's GroupedLinear, one cuBLAS call per local expert, each
# charged the megatron-core preset's host_per_gemm (48 us, as nemo). Row 5 (Qwen3-235B, 256 H100,
# tp4 ep8: 16 local experts, 1,024 tokens per rank) is host-bound: -37.2 % -> -10.0 %.
# Row 11's command (GB200 BF16) sets --cuda-graph-impl transformer_engine --cuda-graph-scope attn
# moe_router moe_preprocess (layout.cuda_graph_scopes, read by validate's zoo_graph_scope):
# -5.2 % -> +1.9 %; row 13's command sets no graph.
. "$(dirname "$0")/lib.sh"
Z="$PL_SOURCE_DIR/data/validation/megatron_moe_modelzoo.csv"
expect_ok validate "$Z" --format csv
cp "$TMP/out" "$TMP/rows.csv"
check "row 5: the preset's 48 us per GEMM call" sh -c "grep -F '256 x h100, tp4 pp8 dp8 vp4, mbs 1 gbs 2048' '$TMP/rows.csv' | grep -qF -- \"--host-per-gemm '48 us'\""
check "row 11: the command's scopes in its prediction" sh -c "grep -F '256 x gb200, tp1 pp8 dp32' '$TMP/rows.csv' | grep -qF -- '--cuda-graph-scope attn,moe_router,moe_preprocess'"
expect_ok validate "$Z" --explain 5
err5=$(sed -n 's/.*per step: \([-+][0-9.]*\)%.*/\1/p' "$TMP/out" | head -1)
check "row 5 within 15 % (was -37.2 %)" awk -v e="$err5" 'BEGIN { exit !(e != "" && e > -15 && e < 15) }'
expect_ok validate "$Z" --explain 11
check "row 11: graph scopes read from the command" grep -q "CUDA graph scope attn,moe_router,moe_preprocess (the command)" "$TMP/out"
expect_ok validate "$Z" --explain 13
check "row 13 (no graph in its command): no scope" sh -c "! grep -q 'CUDA graph scope' '$TMP/out'"
finish
