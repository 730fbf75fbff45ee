#!/usr/bin/env bash
# Transformer Engine's fused MXFP8 grouped MLP by the release each Megatron-Bridge row ran
# (src/validate/source_bridge_moe.c validate_bridge_fused_mlp; layout.fused_grouped_mlp): on for the MoE MXFP8 configs
# that set cutedsl_fused_grouped_mlp (v0.5.0: 26.06, 26.06.01) or the TE op fuser with
# NVTE_CUTEDSL_FUSED_GROUPED_MLP (HEAD perf_recipes: 26.08); there the experts' activation is not an
# op of its own. Off for BF16 rows, 26.04's MXFP8 rows and the 26.06 GPT-OSS B300 config.
# Every fused row runs the kernels with cuDNN's cluster margin 8 (layout.cudnn_cluster_margin:
# v0.5.0 perf_plugins.py CUDNNFE_CLUSTER_OVERLAP_MARGIN=8 with the fused MLP and moe_a2a_overlap;
# HEAD perf_recipes' env); the others without.
. "$(dirname "$0")/lib.sh"
B="$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv"
# row (validate's numbering) -> on|off
for c in "44 on" "45 on" "5 on" "6 on" "7 on" "49 on" "51 on" "40 on" \
  "46 off" "93 off" "149 off" "43 off"; do
  set -- $c
  expect_ok validate "$B" --explain "$1"
  if [ "$2" = on ]; then
    check "row $1: fused grouped MLP" grep -q "fused MXFP8 grouped MLP (the release's" "$TMP/out"
    check "row $1: no expert_act op" sh -c "! grep -qE '^ +layer +expert_act ' '$TMP/out'"
    check "row $1: cluster margin 8" grep -q "with 8 clusters left free (the release's CUDNNFE_CLUSTER_OVERLAP_MARGIN)" "$TMP/out"
  else
    check "row $1: no fused grouped MLP" sh -c "! grep -q 'fused MXFP8 grouped MLP' '$TMP/out'"
    check "row $1: expert_act op" grep -qE "^ +layer +expert_act " "$TMP/out"
    check "row $1: no cluster margin" sh -c "! grep -q 'CUDNNFE_CLUSTER_OVERLAP_MARGIN' '$TMP/out'"
  fi
done
finish
