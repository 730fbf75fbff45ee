#!/usr/bin/env bash
# --nccl-version (collectives, predict) and the cluster-file key nccl_version:
# the NCCL release whose tuner picks each call's algorithm and protocol
# (src/net/nccl_version.c), and clear errors for bad values.
. "$(dirname "$0")/lib.sh"

# H100, 10 nodes x 2 ranks, 32 MiB all_reduce: the default tables pick
# NVLS_TREE; NCCL 2.28.9+ ranks it with a 20.9 us network latency, not 14
# (2 log2i(10) x 6.9 = 41.4 us more), and picks ring/LL128
g2=(collectives --cluster dgx-h100 --gpus 20 --ranks-per-node 2 --bytes 32M --format csv)
expect_ok "${g2[@]}"
check "default: nvls_tree" grep -q ',nvls_tree,Simple$' "$TMP/out"
expect_ok "${g2[@]}" --nccl-version 2.28.7
check "2.28.7 (14 us): nvls_tree" grep -q ',nvls_tree,Simple$' "$TMP/out"
expect_ok "${g2[@]}" --nccl-version 2.29.2
check "2.29.2 (20.9 us): ring/LL128" grep -q ',ring,LL128$' "$TMP/out"
# 2.19.3-2.27.x rank NVLS_TREE on the NVLS search graph (session 28, nvls_tree.c
# nvls_tree_rank_bw_graph): 2 heads x min(48, 48 / 2) x 5/6 = 40 GB/s, 109 us + 32 MiB
# = 948 us, against ring/LL128 on 4 rings of 24 GB/s, 0.92 x 96 x 20/38 = 46.5 GB/s,
# 14 + 20 x 1.9 + 18 x 4.0 = 124 us + 32 MiB = 845 us: ring/LL128 (the default tables
# keep NVLS_TREE, above: the release is read, not ignored)
expect_ok "${g2[@]}" --nccl-version 2.26.2+cuda12.8
check "as NCCL prints it (2.26.2): ring/LL128" grep -q ',ring,LL128$' "$TMP/out"

# the cluster-file key does the same, and the flag overrides it
sed 's/"gpu": "h100",/"gpu": "h100", "nccl_version": {"value": "2.29.2", "source": "NCCL_DEBUG=VERSION"},/' \
  "$PL_SOURCE_DIR/data/clusters/dgx-h100.json" > "$TMP/v229.json"
check "the key went in" grep -q '"nccl_version"' "$TMP/v229.json"
g2f=(collectives --cluster "$TMP/v229.json" --gpus 20 --ranks-per-node 2 --bytes 32M --format csv)
expect_ok "${g2f[@]}"
check "cluster file 2.29.2: ring/LL128" grep -q ',ring,LL128$' "$TMP/out"
expect_ok "${g2f[@]}" --nccl-version 2.28.3
check "flag over file: nvls_tree" grep -q ',nvls_tree,Simple$' "$TMP/out"

# predict records it (JSON hardware.nccl_version, CSV column), null when not stated
expect_ok predict --gpus 16 --nccl-version 2.29.2 --format json
check "predict json" grep -q '"nccl_version": "2.29.2"' "$TMP/out"
expect_ok predict --gpus 16 --format json
check "predict json default null" grep -q '"nccl_version": null' "$TMP/out"
expect_ok predict --gpus 16 --nccl-version 2.29.2 --format csv
# by name, not as the last column: later columns are appended after it (fit10's
# framework.te_cross_entropy, session 10)
check "predict csv column" grep -q ',hardware.nccl_version,' "$TMP/out"
check "predict csv value" sh -c "tail -1 '$TMP/out' | grep -q ',2\.29\.2,'"

# bad values: one line, exit 1
for v in 2.29 latest 2.29.2.1 v2.29.2 ""; do
  expect_fail 1 "^plateau: --nccl-version: '$v' is not an NCCL version \(expected MAJOR.MINOR.PATCH" \
    -- collectives --nccl-version "$v"
done
expect_fail 1 "^plateau: --nccl-version: NCCL version '2.22.3': plateau carries the tuning tables of NCCL 2.23 to 2.29" \
  -- collectives --nccl-version 2.22.3
expect_fail 1 "^plateau: --nccl-version: NCCL version '3.0.0'" -- predict --nccl-version 3.0.0
expect_fail 1 "^plateau: --nccl-version: 'x' is not an NCCL version" -- predict --nccl-version x
expect_fail 2 "nccl-version" -- collectives --nccl-version
sed 's/"gpu": "h100",/"gpu": "h100", "nccl_version": "2.18.1",/' \
  "$PL_SOURCE_DIR/data/clusters/dgx-h100.json" > "$TMP/old.json"
expect_fail 1 "field 'nccl_version': NCCL version '2.18.1'" -- collectives --cluster "$TMP/old.json"
check "one line of error" [ "$(wc -l < "$TMP/err")" = 1 ]

# --help lists it
expect_ok collectives --help
check "collectives --help" grep -q -- '--nccl-version V' "$TMP/out"
expect_ok predict --help
check "predict --help" grep -q -- '--nccl-version V' "$TMP/out"

finish
