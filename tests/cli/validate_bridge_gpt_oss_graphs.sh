#!/usr/bin/env bash
# GPT-OSS 120B's CUDA-graph scopes by the release each Megatron-Bridge row ran
# (src/validate/source_bridge_runtime.c validate_bridge_graph_scope): GB300 and B300
# [attn, moe_router, moe_preprocess] (cuda_graph_impl transformer_engine in v0.2.2 GB300,
# v0.3.0-v0.5.0 GB300/B300 V1 and the V2/FP8_MX configs built on them, HEAD perf_recipes
# gb300 bf16 and b300), full_iteration for the v0.5.0 / HEAD GB300 and GB200 MXFP8 configs,
# none on GB200 BF16, B200 and H100.
. "$(dirname "$0")/lib.sh"
B="$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv"
# row (section GPU precision) -> scopes
for c in "242 attn,moe_router,moe_preprocess" "219 attn,moe_router,moe_preprocess" \
  "221 attn,moe_router,moe_preprocess" "92 attn,moe_router,moe_preprocess" \
  "140 attn,moe_router,moe_preprocess" "46 attn,moe_router,moe_preprocess" \
  "5 full_iteration" "6 full_iteration" "44 full_iteration" "45 full_iteration" \
  "93 none" "253 none" "95 none" "262 none" "96 none" "223 none"; do
  set -- $c
  expect_ok validate "$B" --explain "$1"
  check "row $1: CUDA graph scope $2" \
    grep -q "CUDA graph scope $2 (the release's config, not stated in the row)" "$TMP/out"
done
# the scope reaches the row's command
expect_ok validate "$B" --format csv
check "row 92's command carries its scopes" \
  grep -q '^"megatron_bridge_performance_summary",92,.*--cuda-graph-scope attn,moe_router,moe_preprocess' "$TMP/out"
finish
