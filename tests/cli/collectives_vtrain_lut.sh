#!/usr/bin/env bash
# The A100 tensor-parallel all_reduce inside one node against vTrain's own
# nccl-tests tables for its A100 cluster (VIA-Research/vTrain @ f8dda84
# trace/a100/AR_GPU{2,4,8}_1M_1024M_LUT, copied unchanged into
# tests/data/nccl/vtrain-a100/, MIT licence there; columns: size (B), count,
# type, out-of-place time (ns), busbw, in-place time (ns), busbw).
# The vTrain multi-node rows all_reduce 24-384 MiB over tp 2, 4 and 8 GPUs of a
# node (mbs x 2048 x hidden x 2 B); the sizes below cover them and the data-
# parallel calls of the single-node rows. Issue 17, session 8 (helper vtr8):
# the model is within 12 % of the measurement at every size from 32 MiB to
# 1 GiB (docs/accuracy.md, "Session 8 (issue 17, helper vtr8)"). Bounds: the
# figure measured then plus 2 points, per size and as the mean per group size.
# Below 32 MiB the model is 5-60 % faster than these tables (a 92 us floor at
# 8 GPUs up to 5 MiB): documented there, not guarded.
. "$(dirname "$0")/lib.sh"

L="$PL_TEST_DATA/nccl/vtrain-a100"
sizes=33554432,67108864,100663296,134217728,268435456,536870912,1073741824
for g in 2 4 8; do
  expect_ok collectives --cluster vtrain-a100 --gpus "$g" --bytes "$sizes" --format csv
  check "7 sizes at $g GPUs" [ "$(grep -c '^all_reduce,' "$TMP/out")" = 7 ]
  # join on the byte size; time = mean of out-of-place and in-place
  awk -F, 'NR == FNR { if (FNR > 1) lut[$1] = ($4 + $6) / 2e9; next }
           FNR > 1 && ($4 in lut) { e = $5 / lut[$4] - 1; printf "%s %.4f\n", $4, e }' \
    "$L/AR_GPU${g}_1M_1024M_LUT" "$TMP/out" >"$TMP/err_$g"
  check "every size has a measurement at $g GPUs" [ "$(wc -l <"$TMP/err_$g")" = 7 ]
  # measured at session 8: max |error| 12.0 / 5.0 / 7.7 %, mean 7.6 / 1.8 / 3.9 %
  case $g in 2) max=0.14 mean=0.10 ;; 4) max=0.07 mean=0.04 ;; 8) max=0.10 mean=0.06 ;; esac
  check "every size within $max at $g GPUs: $(tr '\n' ' ' <"$TMP/err_$g")" \
    awk -v m="$max" '{ e = $2 < 0 ? -$2 : $2; if (e > m) bad = 1 } END { exit bad }' "$TMP/err_$g"
  check "mean within $mean at $g GPUs" \
    awk -v m="$mean" '{ e = $2 < 0 ? -$2 : $2; s += e; n++ } END { exit !(n > 0 && s / n <= m) }' "$TMP/err_$g"
done

finish
