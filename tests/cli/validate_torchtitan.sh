#!/usr/bin/env bash
# pytorch/torchtitan's published runs (data/validation/torchtitan_performance.csv, session 13):
# the source's rules in src/validate/source_torchtitan.c. Checks the metric conversion by
# hand, the row's machine (HBM, power limit), the GPU mapping, torchtitan's pipeline split,
# its AC modes, the rows it cannot express, and bad values in its columns.
. "$(dirname "$0")/lib.sh"
T="$PL_SOURCE_DIR/data/validation/torchtitan_performance.csv"
expect_ok validate "$T" --format csv
row() { grep -E "^\"torchtitan_performance\",$1," "$TMP/out"; }
# Row 1 (Table 1, FSDP, 8 GPUs, local batch 2, global 16, seq 8192, 5,762 TPS/GPU):
# step = 16 x 8192 / (5762 x 8) = 131072 / 46096 = 2.843457 s
# the optimizer as each row's torchtitan built it (source_torchtitan.c): 9dec370 (2024-12)
# foreach (--optimizer.fused off), 820504e (2025-06) the preset's fused
check "row 1 (torchtitan 9dec370): foreach AdamW" sh -c "grep -E '^\"torchtitan_performance\",1,' '$TMP/out' | grep -q -- '--optimizer-impl foreach'"
check "row 19 (torchtitan 820504e): fused AdamW" sh -c "grep -E '^\"torchtitan_performance\",19,' '$TMP/out' | grep -q -- '--optimizer-impl fused'"
check "row 1 measured step by hand" sh -c "grep -E '^\"torchtitan_performance\",1,' '$TMP/out' | grep -q ',5762,2.84346,'"
check "row 1 on h100 / dgx-h100 at the 500 W limit" sh -c "grep -E '^\"torchtitan_performance\",1,[0-9]+,\"[^\"]*\",\"torchtitan\",\"h100\",\"dgx-h100\"' '$TMP/out' | grep -q 'board power limit 500 W'"
check "row 1 HBM from the row" sh -c "grep -E '^\"torchtitan_performance\",1,' '$TMP/out' | grep -q 'HBM 96 GiB at 2.40 TB/s'"
# rows 36-43 (docs/performance.md @ 1ea476e9f, 64 A100 80GB) ran on AWS: the repository's own
# multinode_trainer.slurm of that commit is "optimized for AWS with EFA" (FI_PROVIDER=efa,
# "Enable for A100"); A100 80 GB on EFA is the p4de.24xlarge, so the row names it and the
# fabric table maps it to the aws-p4de preset (4 x 100 Gb/s EFA), not dgx-a100
for r in 36 43; do
  check "row $r (AWS p4de) maps to a100-80g / aws-p4de" sh -c "grep -qE '^\"torchtitan_performance\",$r,[0-9]+,\"[^\"]*\",\"torchtitan\",\"a100-80g\",\"aws-p4de\"' '$TMP/out'"
done
# the fabric needle is a name on one GPU: "p4de" on an A100 40 GB (AWS sells no such p4de) keeps
# the DGX fabric; case and punctuation do not matter; without it row 36 is on dgx-a100 and faster
python3 - "$T" "$TMP/p4.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[35].keys()))
w.writeheader()
for g in ("A100 40GB (64 GPUs; AWS p4de.24xlarge)", "A100 80GB (64 GPUs; aws P4DE)", "A100 80GB (64 GPUs)"):
    r = dict(rows[35]); r["gpu"] = g; w.writerow(r)
PY
cp "$TMP/out" "$TMP/tt.csv"
expect_ok validate "$TMP/p4.csv" --format csv
check "p4de on a 40 GB A100 stays on dgx-a100" sh -c "grep -qE '^\"p4\",1,[0-9]+,\"[^\"]*\",\"torchtitan\",\"a100-40g\",\"dgx-a100\"' '$TMP/out'"
check "P4DE in any case maps to aws-p4de" sh -c "grep -qE '^\"p4\",2,[0-9]+,\"[^\"]*\",\"torchtitan\",\"a100-80g\",\"aws-p4de\"' '$TMP/out'"
check "no fabric word: dgx-a100" sh -c "grep -qE '^\"p4\",3,[0-9]+,\"[^\"]*\",\"torchtitan\",\"a100-80g\",\"dgx-a100\"' '$TMP/out'"
p4=$(grep -E '^"p4",2,' "$TMP/out" | python3 -c "import csv,sys; print(list(csv.reader(sys.stdin))[0][11])")
dgx=$(grep -E '^"p4",3,' "$TMP/out" | python3 -c "import csv,sys; print(list(csv.reader(sys.stdin))[0][11])")
check "EFA's 4 x 100 Gb/s slows row 36 ($dgx s on dgx-a100 < $p4 s on aws-p4de)" python3 -c "import sys; sys.exit(0 if 0 < $dgx < $p4 else 1)"
cp "$TMP/tt.csv" "$TMP/out"
# rows 36-43 ran torch-2.4.0.dev20240412 (README @ 1ea476e9f), whose FSDP2 copied the
# reduce_scatter input in on the reduce-scatter stream (until pytorch #129721, 2024-06-27):
# the torchtitan-2024-04 preset; the end-2024 rows keep torchtitan (copy-in on the compute stream)
for r in 36 43; do
  check "row $r runs torchtitan-2024-04 with --fsdp2-rs-copy-in on" sh -c "grep -E '^\"torchtitan_performance\",$r,' '$TMP/out' | grep -q -- '\"torchtitan-2024-04\".*--fsdp2-rs-copy-in on'"
done
check "row 1 keeps torchtitan, copy-in on the compute stream" sh -c "grep -E '^\"torchtitan_performance\",1,' '$TMP/out' | grep -q -- '\"torchtitan\".*--fsdp2-rs-copy-in off'"
check "row 31 (H200) maps to h200 / dgx-h200" sh -c "grep -qE '^\"torchtitan_performance\",31,[0-9]+,\"[^\"]*\",\"torchtitan\",\"h200\",\"dgx-h200\"' '$TMP/out'"
# Table 5 interleaved: 126 layers in 16 stages: 7, fourteen of 8, 7
check "row 14 predicted with torchtitan's split" sh -c "grep -E '^\"torchtitan_performance\",14,' '$TMP/out' | grep -q 'Et\*7|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*8|t\*7L'"
check "row 13 (1F1B) split 15, six of 16, 15" sh -c "grep -E '^\"torchtitan_performance\",13,' '$TMP/out' | grep -q 'Et\*15|t\*16|t\*16|t\*16|t\*16|t\*16|t\*16|t\*15L'"
check "row 36 selective layer = every 2nd block" sh -c "grep -E '^\"torchtitan_performance\",36,' '$TMP/out' | grep -q 'every 2nd block'"
# Float8 rowwise rows (the June 2025 async-TP page and torchao's README, session 17) run
# torchao's rowwise recipe: --dtype fp8-rowwise, 16-bit FSDP gathers; the tensorwise rows stay
for r in 23 24 29 30 46; do
  check "row $r (float8 rowwise) predicted as fp8-rowwise" sh -c "grep -E '^\"torchtitan_performance\",$r,' '$TMP/out' | grep -q -- '--dtype fp8-rowwise .*--fp8-all-gather off'"
done
for r in 21 27 45; do
  check "row $r (float8 tensorwise) stays fp8-tensorwise" sh -c "grep -E '^\"torchtitan_performance\",$r,' '$TMP/out' | grep -q -- '--dtype fp8-tensorwise'"
done
check "row 45 (tensorwise with float8 all-gather) gathers in FP8" sh -c "grep -E '^\"torchtitan_performance\",45,' '$TMP/out' | grep -q -- '--fp8-all-gather on'"
# torchao's README rows (44-46): Llama 3 8B, 8 GPUs, local batch 1, seq 8192, the row's
# median TPS: step = 8 x 8192 / (6768 x 8) = 8192 / 6768 = 1.210402 s (row 46)
check "row 46 measured step by hand" sh -c "grep -E '^\"torchtitan_performance\",46,' '$TMP/out' | grep -q ',6768,1.2104,'"
# Bad values, one column at a time, on a copy of row 1; and row 1 without its power limit.
python3 - "$T" "$TMP/bad.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
r1 = rows[0]
variants = [("GPU power limit", "900W"), ("GPU power limit", "abc"), ("GPU memory bandwidth", "fast"),
            ("TPS/GPU", "many"), ("TPS/GPU", ""), ("recompute", "sometimes"), ("sharding", "DDP"),
            ("GPU power limit", ""), ("norm_type", "layernorm"), ("norm_type", "")]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(r1.keys()))
w.writeheader()
for col, v in variants:
    r = dict(r1); r[col] = v; w.writerow(r)
PY
expect_ok validate "$TMP/bad.csv" --format csv
bad() { grep -E "^\"bad\",$1," "$TMP/out" | grep -q "$2"; }
check "power limit above the TDP skips" bad 1 "column 'GPU power limit'"
check "power limit not a number skips" bad 2 "not a positive number"
check "bandwidth not a number skips" bad 3 "not a positive number"
check "rate not a number skips" bad 4 "column 'TPS/GPU': 'many'"
check "no rate skips" bad 5 "no tokens-per-second figure"
check "unknown recompute skips" bad 6 "recompute 'sometimes' not understood"
check "unknown sharding skips" bad 7 "sharding 'DDP' not understood"
check "unknown norm_type skips" bad 9 "norm_type 'layernorm' is not rmsnorm or fused_rmsnorm"
check "empty norm_type: the eager RMSNorm, predicted" sh -c "grep -E '^\"bad\",10,' '$TMP/out' | grep -q 'plateau predict'"
# norm_type (session 24): the 8B and 13B tomls of 1ea476e9f set fused_rmsnorm (torchtitan's
# Triton FusedRMSNorm), the 70B tomls rmsnorm: rows 36 and 41 fused, row 38 and row 1 eager
expect_ok validate "$T" --format csv
for r in 36 41; do
  check "row $r (fused_rmsnorm) runs --fused-norm on" sh -c "grep -E '^\"torchtitan_performance\",$r,' '$TMP/out' | grep -q -- '--fused-norm on'"
done
for r in 1 38; do
  check "row $r (rmsnorm) keeps the eager norm" sh -c "! grep -E '^\"torchtitan_performance\",$r,' '$TMP/out' | grep -q -- '--fused-norm on'"
done
# the 500 W limit slows the step: row 1 as published vs the same row at the full TDP
expect_ok validate "$T" --format csv
capped=$(grep -E '^"torchtitan_performance",1,' "$TMP/out" | python3 -c "import csv,sys; print(list(csv.reader(sys.stdin))[0][11])")
expect_ok validate "$TMP/bad.csv" --format csv
uncapped=$(grep -E '^"bad",8,' "$TMP/out" | python3 -c "import csv,sys; print(list(csv.reader(sys.stdin))[0][11])")
check "the power limit slows row 1 ($uncapped s at 700 W < $capped s at 500 W)" python3 -c "import sys; sys.exit(0 if 0 < $uncapped < $capped else 1)"
finish
