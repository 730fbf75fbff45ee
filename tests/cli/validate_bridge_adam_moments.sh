#!/usr/bin/env bash
# Every Megatron-Bridge release's DeepSeek-V3 recipe runs Megatron-Core's precision-aware
# optimizer with bf16 moments (recipes/deepseek/deepseek_v3.py: use_precision_aware_optimizer,
# exp_avg_dtype / exp_avg_sq_dtype bf16; layout.adam_moments_bf16, set by validate). The
# GB200 MXFP8 rows 89 and 135 (26.04.01, 26.02.01) were skipped as "does not fit" at
# 185.5 GiB > 185 GiB with 12 B of optimizer state per parameter; with 8 B (fp32 master
# shards under MXFP8, bf16 m and v) stage 0 needs 176.23 GiB and they are predicted; 176.75 GiB
# since the busiest expert rank holds the forced-balance router's random spread of routed
# copies (session 24, model/moe_balance.c: x1.0128 at ep 64 with 4,096 tokens a rank).
. "$(dirname "$0")/lib.sh"
B="$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv"
expect_ok validate "$B" --explain 89
check "row 89: bf16 moments" grep -q "Adam moments in bf16 (the recipe's precision-aware optimizer)" "$TMP/out"
check "row 89: optimizer states 17.73 GiB" grep -qE "optimizer states +17\.73 GiB" "$TMP/out"
check "row 89 fits" grep -q "176.75 GiB of 185.03 GiB: fits" "$TMP/out"
expect_ok validate "$B"
for r in 89 135; do
  check "row $r predicted" grep -qE "^ +$r +deepseek-v3, 256 x gb200, .* [-+][0-9.]+%$" "$TMP/out"
done
finish
