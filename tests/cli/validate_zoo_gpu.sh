#!/usr/bin/env bash
# The Megatron MoE model zoo's GB300 rows (best_practice/qwen3/readme.md '### GB300' tables) name
# the launcher's GB200_CLUSTER=1 setting in their gpu cell ("GB300 (readme: ... sbatch_benchmarking.sh
# GB200_CLUSTER=1)"). They were read as GB200 (185 GiB, GB200 rates) until session 10: row 14 was
# skipped as "does not fit" (188.2 GiB > 185 GiB). Now they map to gb300 / gb300-nvl72; the GB200
# rows stay gb200.
. "$(dirname "$0")/lib.sh"
Z="$PL_SOURCE_DIR/data/validation/megatron_moe_modelzoo.csv"
expect_ok validate "$Z" --format csv
for r in 14 15 16; do
  check "row $r is gb300" grep -qE "^\"megatron_moe_modelzoo\",$r,[0-9]+,\"[^\"]*\",\"moezoo\",\"gb300\",\"gb300-nvl72\"" "$TMP/out"
done
for r in 11 12 13; do
  check "row $r is gb200" grep -qE "^\"megatron_moe_modelzoo\",$r,[0-9]+,\"[^\"]*\",\"moezoo\",\"gb200\",\"gb200-nvl72\"" "$TMP/out"
done
# sbatch_benchmarking.sh (@ e8650517d6 lines 80-81) passes --moe-hybridep-num-sms 32 with
# DISPATCHER=hybridep: each HybridEP row runs 32 SMs, over the megatron-core preset's 16
for r in 11 12 13 14 15 16; do
  check "row $r: sbatch_benchmarking.sh's 32 HybridEP SMs" sh -c \
    "grep -E '^\"megatron_moe_modelzoo\",$r,' '$TMP/out' | grep -q -- '--hybridep-sms 32'"
done
check "DeepEP/A2A rows keep Megatron-Core's 16" [ "$(grep -c -- '--hybridep-sms 16' "$TMP/out")" -ge 9 ]
check "row 14 predicted, not skipped" sh -c "! grep -E '^\"megatron_moe_modelzoo\",14,' '$TMP/out' | grep -q 'does not fit'"
finish
