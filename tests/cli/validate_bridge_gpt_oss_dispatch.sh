#!/usr/bin/env bash
# GPT-OSS 120B's token dispatcher by the release each Megatron-Bridge row ran (src/validate/source_bridge_moe.c
# validate_bridge_gpt_oss_dispatch): the recipe's alltoall unless the release's performance config names the
# hybridep backend (v0.4.0 GB200/B300/B200 V2, v0.4.2 B300 V2, v0.5.0 B300 V2 and GB300/GB200
# FP8_MX_V2, HEAD perf_recipes GB300/GB200 fp8mx). Under alltoall the block carries the
# dispatcher's own ops (moe_preprocess, sort_chunks: src/model/moe_dispatch.c).
. "$(dirname "$0")/lib.sh"
B="$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv"
# row: section, GPU -> dispatcher
for c in "262 alltoall" "219 alltoall" "220 alltoall" "183 alltoall" "138 alltoall" "141 hybridep" \
  "140 hybridep" "139 hybridep" "95 alltoall" "94 hybridep" "93 alltoall" "92 alltoall" "46 hybridep" \
  "45 hybridep" "6 hybridep" "96 alltoall"; do
  set -- $c
  expect_ok validate "$B" --explain "$1"
  check "row $1: dispatch=$2" grep -q "dispatch=$2 " "$TMP/out"
  if [ "$2" = alltoall ]; then
    check "row $1: the release's alltoall" grep -q "alltoall dispatcher (the release's GPT-OSS config)" "$TMP/out"
    check "row $1: the dispatcher's preprocess op" grep -qE "^ +layer +moe_preprocess " "$TMP/out"
  else
    check "row $1: the release's hybridep" grep -q "hybridep dispatcher (the release's GPT-OSS config)" "$TMP/out"
    check "row $1: no alltoall preprocess op" sh -c "! grep -qE '^ +layer +moe_preprocess ' '$TMP/out'"
  fi
  check "row $1: not the GB-wide guess" sh -c "! grep -q 'hybridep dispatcher (GB200/GB300 configs)' '$TMP/out'"
done
finish
