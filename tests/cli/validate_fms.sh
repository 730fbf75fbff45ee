#!/usr/bin/env bash
# IBM + PyTorch's FSDP runs (data/validation/ibm_fsdp_blog.csv, session 14): the source's
# rules in src/validate/source_fms.c. Checks the metric conversion by hand, HSDP's shard
# group, fms-fsdp's every-2nd-block checkpointing, the stated inter-node bandwidth, the rows
# it cannot express, and bad values in its columns.
. "$(dirname "$0")/lib.sh"
T="$PL_SOURCE_DIR/data/validation/ibm_fsdp_blog.csv"
expect_ok validate "$T" --format csv
# Row 1 (blog Table 1, 7B, 128 A100, batch 2 per GPU, seq 4096, 3700 tokens/sec/GPU):
# step = 256 x 4096 / (3700 x 128) = 1048576 / 473600 = 2.214054 s
check "row 1 measured step by hand" sh -c "grep -E '^\"ibm_fsdp_blog\",1,' '$TMP/out' | grep -q ',3700,2.21405,'"
check "row 1 on a100-80g / dgx-a100 under pytorch-fsdp" sh -c "grep -E '^\"ibm_fsdp_blog\",1,' '$TMP/out' | grep -q '\"a100-80g\",\"dgx-a100\"'"
check "row 1 HSDP within the 8-GPU node" sh -c "grep -E '^\"ibm_fsdp_blog\",1,' '$TMP/out' | grep -q 'sharded over the node.s 8 GPUs'"
# 400 Gb/s per node over dgx-a100's 8 NICs = 50 Gb/s each; 800 over dgx-h100's 8 = 100
check "row 1 network 400 Gb/s per node" sh -c "grep -E '^\"ibm_fsdp_blog\",1,' '$TMP/out' | grep -q '8 NICs of 50 Gb/s'"
check "row 2 network 800 Gb/s per node" sh -c "grep -E '^\"ibm_fsdp_blog\",2,' '$TMP/out' | grep -q '8 NICs of 100 Gb/s'"
check "row 3 (13B selective) every 2nd block" sh -c "grep -E '^\"ibm_fsdp_blog\",3,' '$TMP/out' | grep -q 'every 2nd block'"
for r in 11 12 13 14 15 16; do
  check "row $r (selective fraction not stated) skipped" sh -c "grep -E '^\"ibm_fsdp_blog\",$r,' '$TMP/out' | grep -q 'selective AC fraction p'"
done
# Bad values, one column at a time, on a copy of row 1; the last is row 1 at 4x the bandwidth.
python3 - "$T" "$TMP/bad.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
r1 = rows[0]
variants = [("inter-node Gb/s per node", "fast"), ("inter-node Gb/s per node", "-400"),
            ("tokens/sec/GPU", "many"), ("tokens/sec/GPU", ""), ("recompute", "sometimes"),
            ("sharding", "DDP"), ("inter-node Gb/s per node", "1600")]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(r1.keys()))
w.writeheader()
for col, v in variants:
    r = dict(r1); r[col] = v; w.writerow(r)
PY
expect_ok validate "$TMP/bad.csv" --format csv
bad() { grep -E "^\"bad\",$1," "$TMP/out" | grep -q "$2"; }
check "bandwidth not a number skips" bad 1 "column 'inter-node Gb/s per node': 'fast'"
check "negative bandwidth skips" bad 2 "column 'inter-node Gb/s per node'"
check "rate not a number skips" bad 3 "column 'tokens/sec/GPU': 'many'"
check "no rate skips" bad 4 "column 'tokens/sec/GPU' is empty"
check "unknown recompute skips" bad 5 "recompute 'sometimes' not understood"
check "unknown sharding skips" bad 6 "sharding 'DDP' not understood"
check "1600 Gb/s per node = 8 NICs of 200 Gb/s" bad 7 "8 NICs of 200 Gb/s"
finish
