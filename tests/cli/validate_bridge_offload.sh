#!/usr/bin/env bash
# Megatron-Bridge's Llama 3 70B Megatron-FSDP FP8 rows on GB300/GB200 ran with activation CPU
# offloading (the releases' LLAMA3_70B_*_FP8_CS configs: cpu_offloading_num_layers 20 on GB300,
# 40 on GB200; src/validate/source_bridge_runtime.c validate_bridge_offload). Row 74 (26.04.01, GB300) was skipped as
# "does not fit" (350.4 GiB > 277.5 GiB) before; with 20 of 80 blocks offloaded it fits and is
# predicted. The 26.02.01 GB300 MXFP8/NVFP4 rows (165, 167) and the 25.11 GPT-OSS H100 row 268
# state layouts the release did not run: skipped with that reason, not "does not fit".
. "$(dirname "$0")/lib.sh"
B="$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv"
expect_ok validate "$B" --explain 74
check "row 74 offloads 20 blocks" grep -q "activations of 20 blocks offloaded to the host" "$TMP/out"
check "row 74 fits" grep -q "of 277.55 GiB: fits" "$TMP/out"
expect_ok validate "$B"
check "row 165: not the release's layout" grep -qE "^ +165 .*not the release's \(v0.3.1 LLAMA3_70B_PRETRAIN_CONFIG_GB300_NVFP4_V2" "$TMP/out"
check "row 167: not the release's layout" grep -qE "^ +167 .*not the release's \(v0.3.1 LLAMA3_70B_PRETRAIN_CONFIG_GB300_FP8_MX_V2" "$TMP/out"
check "row 268: mbs not the release's" grep -qE "^ +268 .*mbs 4 is not the release's" "$TMP/out"
check "row 75 (26.04.01 GB300 MXFP8 pp4 vp5 mbs 1) still predicted" sh -c "! grep -qE '^ +75 +skipped' '$TMP/out'"
finish
