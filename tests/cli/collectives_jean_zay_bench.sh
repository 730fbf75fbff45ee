#!/usr/bin/env bash
# Regression check: the jean-zay-a100 preset against the one NCCL measurement
# taken in BLOOM's own environment (session 28, jz28; docs/collectives.md,
# "Session 28 (jz28)").
#
# Source: bigscience-workshop/bigscience experiments/bandwidth/
# all_reduce_bench-a100-n4.txt (HEAD 9e64edec2a, committed 2022-04-29; script
# all_reduce_bench.py, N x M = 5e5 x 2000 fp32 = 4e9 B; .slurm: 4 nodes x 8
# A100 80 GB, NCCL 2.10.3+cuda11.3 over NET/IB on hfi1_0..3, no /GDRDMA).
# Its 4 x 32 rank timings after the first trial lie in 1.5186..1.5312 s,
# median 1.5292 s: busbw = 4e9 / 1.5292 x 2 x 31/32 = 5.068 GB/s (the log
# prints "busbw: 40.5 Gbps").
#
# What plateau predicts, by hand: 4 Omni-Path rails (4 NICs, 8 GPUs) give 4
# rings at NCCL's 12 GB/s search speed (below 25: not duplicated), 8 coll
# channels (src/net/tuner.c group_net_channels); each drives 0.4 of its
# 12.5 GB/s rail, so the node's network carries min(50, 8 x 0.4 x 12.5) =
# 40 GB/s; NVLink (230 x 8/7) does not bind. Transfer 4e9 x 2 x 31/32 / 40e9
# = 0.19375 s, plus latency and fill: busbw a little under 40 GB/s.
#
# The miss, kept in view: NCCL's log shows ONE ring (2 coll channels, both
# entering each node at GPU 0 through NET/IB/1 and leaving at GPU 7 through
# NET/IB/3), about 2.5 GB/s per channel; plateau has no key for that ring
# count nor for a per-channel rate on this fabric (OPA verbs without
# GPUDirect RDMA), so it predicts 7.9 times the measured busbw. A change
# that moves this figure must re-set the bounds below and say why here.
. "$(dirname "$0")/lib.sh"

measured=5.068
expect_ok collectives --cluster jean-zay-a100 --nodes 4 --bytes 4000000000 --format csv
busbw=$(awk -F, '$1=="all_reduce" && $2==32 {print $7}' "$TMP/out")
check "one row for 32 ranks on 4 nodes" [ -n "$busbw" ]
check "ring, Simple" grep -q '^all_reduce,32,4,4000000000,.*,ring,Simple$' "$TMP/out"
check "busbw at the 40 GB/s channel bound less latency and fill ($busbw)" \
  awk -v b="$busbw" 'BEGIN { exit !(b > 39.5 && b <= 40.0) }'
check "the known miss: 7.7 to 8.0 times the measured $measured GB/s ($busbw)" \
  awk -v b="$busbw" -v m="$measured" 'BEGIN { r = b / m; exit !(r > 7.7 && r < 8.0) }'

finish
