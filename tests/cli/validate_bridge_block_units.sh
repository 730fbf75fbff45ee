#!/usr/bin/env bash
# Megatron FSDP's units are the transformer blocks (Megatron-Core mcore_fsdp_adapter.py
# fsdp_unit_modules = [TransformerLayer]); the embedding, final norm and LM head stay gathered
# (layout.fsdp_block_units, set by validate for every Megatron FSDP row). Megatron-Bridge's
# GB200 Llama 3 70B FP8-CS rows (77, 126, 170, 206, 247; 40 blocks offloaded) were skipped as
# "does not fit" at 190.7 GiB > 185 GiB with the embedding and LM head counted as one unit
# gathered twice; at 184.14 GiB they fit and are predicted.
. "$(dirname "$0")/lib.sh"
B="$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv"
expect_ok validate "$B" --explain 77
check "row 77: blocks as units" grep -q "gradient shards in the reduce dtype, blocks as its units" "$TMP/out"
check "row 77 fits" grep -q "184.14 GiB of 185.03 GiB: fits" "$TMP/out"
expect_ok validate "$B"
for r in 77 126 170 206 247; do
  check "row $r predicted" grep -qE "^ +$r +llama3-70b, 64 x gb200, .* -?[0-9.]+%$" "$TMP/out"
done
finish
