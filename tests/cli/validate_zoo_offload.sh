#!/usr/bin/env bash
# The MoE model zoo's Qwen3-235B GB200 row 12 ran with Megatron-Core's fine-grained
# activation offloading (its command: --fine-grained-activation-offloading --offload-modules
# expert_fc1 moe_act; layout.offload_modules, read by validate's zoo_offload). It was skipped
# as "does not fit" at 208.8 GiB > 185 GiB; with the experts' fc1 and activation inputs on
# the host, stage 0 needs 106.63 GiB and the row is predicted (106.64 GiB with the forced-balance
# router's random spread on the busiest expert rank, session 24, model/moe_balance.c).
. "$(dirname "$0")/lib.sh"
Z="$PL_SOURCE_DIR/data/validation/megatron_moe_modelzoo.csv"
expect_ok validate "$Z" --explain 12
check "row 12: offloading read from the command" grep -q "fine-grained activation offloading of expert_fc1,moe_act (the command)" "$TMP/out"
check "row 12 fits" grep -q "106.64 GiB of 185.03 GiB: fits" "$TMP/out"
expect_ok validate "$Z" --explain 13
check "row 13 (no offloading in its command) unchanged" sh -c "! grep -q 'fine-grained activation offloading' '$TMP/out'"
finish
