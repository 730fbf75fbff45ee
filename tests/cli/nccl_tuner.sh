#!/usr/bin/env bash
# --nccl-tuner nccl|aws-ofi-nccl-p5 (src/model/cluster_flags.c): who picks each
# collective's algorithm and protocol, the cluster field nccl_tuner as a flag of
# predict, collectives and validate's what-if; reported in JSON and CSV; bad
# values refused. The picks are the plugin's P5 map (src/net/ofi_regions.c,
# hand-derived in tests/unit/test_ofi_regions.c): a 256 MiB all_reduce over
# 8 nodes x 8 ranks is log2(bytes) 28 x log2(ranks) 6, inside the 8-per-node
# map's ring/LL128 region; NCCL's own tuner picks NVLS_TREE/Simple there.
# At 2 nodes the plugin defers to NCCL (groups of more than 2 nodes only).
. "$(dirname "$0")/lib.sh"

# collectives: the preset's plugin map against NCCL's own pick
expect_ok collectives --cluster aws-p5 --op all_reduce --nodes 8 --bytes 256M --format csv
check "aws-p5 default: the plugin's ring/LL128" grep -q '^all_reduce,64,8,268435456,.*,ring,LL128$' "$TMP/out"
expect_ok collectives --cluster aws-p5 --op all_reduce --nodes 8 --bytes 256M --format csv \
  --nccl-tuner nccl
check "--nccl-tuner nccl: NCCL's nvls_tree/Simple" grep -q ',nvls_tree,Simple$' "$TMP/out"
expect_ok collectives --cluster dgx-h100 --op all_reduce --nodes 8 --bytes 256M --format csv \
  --nccl-tuner aws-ofi-nccl-p5
check "the plugin's map on another cluster too" grep -q ',ring,LL128$' "$TMP/out"
expect_ok collectives --cluster aws-p5 --op all_reduce --nodes 2 --bytes 256M --format csv
a=$(cut -d, -f8,9 "$TMP/out" | tail -1)
expect_ok collectives --cluster aws-p5 --op all_reduce --nodes 2 --bytes 256M --format csv \
  --nccl-tuner nccl
check "2 nodes: the plugin defers to NCCL ($a)" [ "$a" = "$(cut -d, -f8,9 "$TMP/out" | tail -1)" ]
expect_ok collectives --cluster aws-p5 --nodes 4 --bytes 1M --format json --nccl-tuner nccl
check "collectives json: nccl_tuner" grep -q '"nccl_tuner": "nccl"' "$TMP/out"
expect_ok collectives --cluster aws-p5 --nodes 4 --bytes 1M --format json
check "collectives json: the preset's" grep -q '"nccl_tuner": "aws-ofi-nccl-p5"' "$TMP/out"

# predict: JSON hardware.nccl_tuner, CSV column appended last, and the step moves
expect_ok predict --model llama2-7b --cluster aws-p5 --nodes 8 --format json
check "predict json: the preset's tuner" grep -q '"nccl_tuner": "aws-ofi-nccl-p5"' "$TMP/out"
expect_ok predict --model llama2-7b --cluster aws-p5 --nodes 8 --format json --nccl-tuner nccl
check "predict json: --nccl-tuner nccl" grep -q '"nccl_tuner": "nccl"' "$TMP/out"
expect_ok predict --model llama2-7b --gpus 8 --format json
check "dgx-h100: nccl" grep -q '"nccl_tuner": "nccl"' "$TMP/out"
expect_ok predict --model llama2-7b --cluster aws-p5 --nodes 8 --format csv --nccl-tuner nccl
# appended after framework.optimizer; later sessions' columns follow it (framework.megatron_softmax, ...)
check "csv: hardware.nccl_tuner follows framework.optimizer" grep -q ',framework.optimizer,hardware.nccl_tuner,' "$TMP/out"
check "csv: its value" [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "hardware.nccl_tuner") c = i } NR == 2 { print $c }' "$TMP/out")" = nccl ]

# validate: nanotron's rows say --nccl-tuner nccl in hardware_flags (PyTorch 2.1's NCCL 2.18
# has no tuner plugins: data/validation/SOURCES.md); the what-if flag overrides it. Row 20
# (3.57B, tp4 dp64 on 32 nodes: DP at 2 ranks per node) is the one the map moves most: its
# 25 MiB buckets over 64 nodes-ranks are NVLS_TREE under NCCL and ring/LL128 under the map
# (test_ofi_regions), so the two predictions must differ.
N="$PL_SOURCE_DIR/data/validation/nanotron_benchmarks.csv"
expect_ok validate "$N" --format csv
check "validate: the rows' hardware flag read into the command" \
  grep -q -- '--cluster aws-p5 --nccl-tuner nccl ' "$TMP/out"
r20() { awk '$1 == 20 && $NF ~ /%$/ { print $(NF - 1) }' "$1"; }
expect_ok validate "$N"
cp "$TMP/out" "$TMP/nccl.txt"
expect_ok validate "$N" --nccl-tuner aws-ofi-nccl-p5 --format csv
# the preset's own tuner again: the command (pl_cluster_flags_format) writes no edit
check "validate what-if: the command drops the preset's own tuner" \
  [ "$(grep -c -- '--cluster aws-p5 --nccl-tuner' "$TMP/out")" = 0 ]
expect_ok validate "$N" --nccl-tuner aws-ofi-nccl-p5
check "validate what-if: row 20 moves ($(r20 "$TMP/nccl.txt") vs $(r20 "$TMP/out") s)" \
  awk -v a="$(r20 "$TMP/nccl.txt")" -v b="$(r20 "$TMP/out")" 'BEGIN { exit !(a > 0 && b > a * 1.05) }'

# bad values: a clear error, exit 1
expect_fail 1 "^plateau: --nccl-tuner: unknown value 'aws' \(expected nccl\|aws-ofi-nccl-p5\)" -- \
  predict --model llama2-7b --cluster aws-p5 --nodes 8 --nccl-tuner aws
expect_fail 1 "--nccl-tuner: unknown value 'NCCL'" -- predict --model llama2-7b --nccl-tuner NCCL
expect_fail 1 "--nccl-tuner: unknown value ''" -- predict --model llama2-7b --nccl-tuner ''
expect_fail 1 "--nccl-tuner: unknown value 'p5'" -- collectives --cluster aws-p5 --nodes 4 \
  --nccl-tuner p5
expect_fail 1 "--nccl-tuner: unknown value 'x'" -- validate "$N" --nccl-tuner x
sed 's/,--nccl-tuner nccl,/,--nccl-tuner bogus,/' "$N" > "$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv"
check "validate: a bad row flag skips the row with the reason" \
  grep -q "column 'hardware_flags': --nccl-tuner: unknown value 'bogus'" "$TMP/out"

finish
