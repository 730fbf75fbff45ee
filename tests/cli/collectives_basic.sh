#!/usr/bin/env bash
# `plateau collectives`: nccl-tests-like tables, CSV and JSON rows, the
# study's Figure 2 trend, and clear errors for bad input.
. "$(dirname "$0")/lib.sh"

# text: one table per group size, nccl-tests columns, algo and proto
expect_ok collectives --cluster dgx-h100 --op all_gather --nodes 1,2 --bytes 1M..4M
check "two tables" [ "$(grep -c '^# all_gather on dgx-h100' "$TMP/out")" = 2 ]
check "three sizes per table" [ "$(grep -cE '^ +(1048576|2097152|4194304) ' "$TMP/out")" = 6 ]
check "units in the header" grep -q '(GB/s)' "$TMP/out"
# all_gather count column is per rank, as nccl-tests prints it: 1 MiB / 4 B / 8 = 32768
check "per-rank count" grep -qE '^ +1048576 +32768 +float' "$TMP/out"

# CSV rows and the study's trend: 64 MiB all_gather loses most of its busbw
# from 4 to 256 nodes, all_reduce keeps most of it
expect_ok collectives --cluster dgx-h100 --op all_gather,all_reduce --nodes 1..256 \
  --bytes 64M --format csv
check "csv header" grep -q '^op,gpus,nodes,bytes,time_s,algbw_gbps,busbw_gbps,algo,proto$' "$TMP/out"
check "18 rows" [ "$(grep -c '^all_' "$TMP/out")" = 18 ]
ag4=$(awk -F, '$1=="all_gather" && $3==4 {print $7}' "$TMP/out")
ag256=$(awk -F, '$1=="all_gather" && $3==256 {print $7}' "$TMP/out")
ar4=$(awk -F, '$1=="all_reduce" && $3==4 {print $7}' "$TMP/out")
ar256=$(awk -F, '$1=="all_reduce" && $3==256 {print $7}' "$TMP/out")
check "all_gather at 256 nodes well below 4 nodes ($ag256 vs $ag4)" \
  awk -v a="$ag256" -v b="$ag4" 'BEGIN { exit !(a < 0.25 * b) }'
check "all_reduce keeps most of it ($ar256 vs $ar4)" \
  awk -v a="$ar256" -v b="$ar4" 'BEGIN { exit !(a > 0.5 * b) }'

# JSON: {"rows": [...]} with the documented keys
expect_ok collectives --op reduce_scatter --gpus 16 --bytes 1G --format json
for key in op gpus nodes ranks_per_node active_per_node bytes time_s algbw_gbps busbw_gbps algo proto; do
  check "json key $key" grep -q "\"$key\"" "$TMP/out"
done
check "json rows" grep -q '"rows"' "$TMP/out"

# forced algorithms, strided groups, cluster files
expect_ok collectives --op all_reduce --nodes 4 --bytes 1G --algo tree --format csv
check "tree forced" grep -q ',tree,' "$TMP/out"
expect_ok collectives --op all_gather --gpus 4 --ranks-per-node 1 --bytes 1G --format csv
check "one rank per node: 4 nodes" grep -q '^all_gather,4,4,' "$TMP/out"
expect_ok collectives --cluster "$PL_SOURCE_DIR/data/clusters/dgx-a100.json" --bytes 1M

# IB SHARP (CollNet): a cluster file with inter.sharp runs a 484-rank group
# at 2 ranks per node on collnet_direct (39.2 us + S / 90 GB/s), the preset not
sed 's/"latency": {"value": "14 us"/"sharp": true, "latency": {"value": "14 us"/' \
  "$PL_SOURCE_DIR/data/clusters/dgx-h100.json" > "$TMP/sharp.json"
expect_ok collectives --cluster "$TMP/sharp.json" --op reduce_scatter --gpus 484 \
  --ranks-per-node 2 --bytes 96M --format csv
check "sharp: collnet_direct chosen" grep -q ',collnet_direct,Simple$' "$TMP/out"
expect_ok collectives --cluster "$TMP/sharp.json" --op all_reduce --nodes 12 --bytes 1G \
  --algo collnet_chain --format csv
check "sharp: collnet_chain forced" grep -q ',collnet_chain,Simple$' "$TMP/out"
expect_fail 1 "collnet_direct needs IB SHARP" -- collectives --op all_gather --nodes 4 \
  --algo collnet_direct

# sibling groups on shared NICs: Jean Zay has 4 Omni-Path links for 8 GPUs; a dp
# group of 2 ranks per node with all 8 GPUs active gets half its NICs, 12.5 GB/s
# per node, where alone its 4 channels drive 4 x 0.4 x 12.5 = 20 GB/s of its
# 25 (docs/collectives.md, "Channels on the network"), so a 1 GiB all_reduce
# takes about 1.6 times as long; DGX H100 (a NIC per GPU) not
jz=(collectives --cluster jean-zay-a100 --gpus 8 --ranks-per-node 2 --bytes 1G --format csv)
expect_ok "${jz[@]}"
alone=$(awk -F, '$1=="all_reduce" {print $5}' "$TMP/out")
expect_ok "${jz[@]}" --active-per-node 8
shared=$(awk -F, '$1=="all_reduce" {print $5}' "$TMP/out")
check "jean-zay: 8 active GPUs about 1.6 times the time ($shared vs $alone)" \
  awk -v a="$shared" -v b="$alone" 'BEGIN { exit !(a > 1.45 * b && a < 1.75 * b) }'
expect_ok "${jz[@]}" --active-per-node 2
check "active = ranks per node is the group alone" \
  awk -F, -v b="$alone" '$1=="all_reduce" { exit !($5 == b) }' "$TMP/out"
expect_ok collectives --gpus 64 --ranks-per-node 1 --bytes 1G --format csv
h_alone=$(awk -F, '$1=="all_reduce" {print $5}' "$TMP/out")
expect_ok collectives --gpus 64 --ranks-per-node 1 --bytes 1G --format csv --active-per-node 8
check "dgx-h100: a NIC per GPU, siblings change nothing" \
  awk -F, -v b="$h_alone" '$1=="all_reduce" { exit !($5 == b) }' "$TMP/out"
expect_ok "${jz[@]}" --active-per-node 8 --format text
check "text says the NICs are shared" grep -q "8 GPUs of each node on the network at once" "$TMP/out"

# bad input: one line, exit 1 (or 2 for usage)
expect_fail 1 "unknown collective 'allgatherv'" -- collectives --op allgatherv
expect_fail 1 "tree runs all_reduce only" -- collectives --op all_gather --algo tree
expect_fail 1 "unknown algorithm 'hypercube'" -- collectives --algo hypercube
expect_fail 1 "bytes.*unknown size suffix" -- collectives --bytes 8Q
expect_fail 1 "bytes.*positive" -- collectives --bytes 0..1G
expect_fail 1 "nodes.*must be positive" -- collectives --nodes 0
expect_fail 1 "nodes.*more than" -- collectives --nodes 99999999
expect_fail 1 "GPUs per node" -- collectives --ranks-per-node 16
expect_fail 1 "active-per-node 9: cluster 'dgx-h100' has 8 GPUs per node" -- collectives --active-per-node 9
expect_fail 1 "active-per-node: '-1' is not a positive integer" -- collectives --active-per-node -1
expect_fail 1 "give --nodes or --gpus" -- collectives --nodes 1 --gpus 8
expect_fail 1 "ranks must be a positive multiple" -- collectives --gpus 12
expect_fail 1 "unknown cluster 'dgx-z9'" -- collectives --cluster dgx-z9
expect_fail 2 "unknown option" -- collectives --size 1M
# Blackwell on 800 Gb/s rails (dgx-b300): NCCL 2.28.3+ searches sm100 rings from 96 GB/s
# (src/graph/search.cc sm100SpeedArrayInter, chosen by compute capability for every pattern), so
# the 8 rails give 8 rings of 96 GB/s, duplicated to 16 of 48: 32 coll channels. With the sm90
# list's 48 GB/s start they were 16 channels, capped at 16 x 0.4 x 100 GB/s = 640 GB/s of bus
# bandwidth: the 2-node ring at 8 GiB is now above that cap.
expect_ok collectives --cluster dgx-b300 --nodes 2 --bytes 8G --algo ring --format csv
check "dgx-b300 2-node ring above the 16-channel cap" awk -F, 'NR == 2 { exit !($0 ~ /ring/) }' "$TMP/out"
b300=$(python3 -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1])))[0]; print(r["busbw_gbs"] if "busbw_gbs" in r else [v for k,v in r.items() if "busbw" in k][0])' "$TMP/out")
check "dgx-b300 2-node ring busbw $b300 > 640 GB/s" awk -v b="$b300" 'BEGIN { exit !(b > 640) }'
# the network edits predict takes: --sharp on makes a 2-node+ reduce_scatter CollNetDirect where
# NCCL's tuner prefers it (dgx-h100, 16 nodes at 2 ranks per node: a ring pays 31 network steps);
# --nic-bandwidth halves the rails; --gpus-per-node places the group in NVLink segments
expect_ok collectives --sharp on --op reduce_scatter --nodes 16 --ranks-per-node 2 --bytes 64M --format csv
check "--sharp on: collnet_direct" awk -F, 'NR == 2 { exit !($8 == "collnet_direct") }' "$TMP/out"
expect_ok collectives --op reduce_scatter --nodes 16 --ranks-per-node 2 --bytes 64M --format csv
check "default dgx-h100 (no SHARP): not collnet" awk -F, 'NR == 2 { exit ($8 ~ /collnet/) }' "$TMP/out"
expect_ok collectives --nodes 2 --bytes 1G --format csv
full=$(awk -F, 'NR == 2 { print $5 }' "$TMP/out")
expect_ok collectives --nodes 2 --bytes 1G --format csv --nic-bandwidth '200 Gb/s'
half=$(awk -F, 'NR == 2 { print $5 }' "$TMP/out")
check "--nic-bandwidth 200 Gb/s is slower ($half s > $full s)" awk -v a="$half" -v b="$full" 'BEGIN { exit !(a > b) }'
expect_ok collectives --cluster gb300-nvl72 --gpus-per-node 64 --gpus 128 --format csv --bytes 1G
check "--gpus-per-node 64: 128 GPUs are 2 nodes" awk -F, 'NR == 2 { exit !($3 == 2) }' "$TMP/out"
expect_fail 1 "sharp: unknown value 'maybe'" -- collectives --sharp maybe
expect_fail 1 "gpus-per-node: '100' is not a GPU count" -- collectives --cluster gb300-nvl72 --gpus-per-node 100
expect_fail 1 "nic-bandwidth" -- collectives --nic-bandwidth fast
finish
