#!/usr/bin/env bash
# The Megatron-LM README's H100 scaling results (data/validation/megatron_lm_readme_h100.csv,
# session 16): the source's rules in src/validate/source_mlm_h100.c. Checks the metric
# conversion by hand (Megatron-LM core_r0.8.0 num_floating_point_operations), the README's
# overlap flags and what Megatron-LM requires with them, the strong-scaling rows' assumed
# layout, and bad values in its columns.
. "$(dirname "$0")/lib.sh"
T="$PL_SOURCE_DIR/data/validation/megatron_lm_readme_h100.csv"
expect_ok validate "$T" --format csv
row() { grep -E "^\"megatron_lm_readme_h100\",$1," "$TMP/out" | grep -q -- "$2"; }
# Row 1 (1.7B: L 24, h 2048, batch 192, seq 4096, V 131072, ffn 4h, 48 GPUs, 408.8 TFLOP/s):
# F = 12 B s L h^2 ((1 + 1 + s/h) + 4 + V/(2 L h)) = 12 x 192 x 4096 x 24 x 2048^2
#   x (4 + 4 + 131072/98304) = 9.49978e14 x 9.333333 = 8.866462e15 FLOPs;
# step = 8.866462e15 / (408.8e12 x 48) = 0.451854 s
check "row 1 measured step by hand (r0.8.0 FLOPs / per-GPU rate)" row 1 ',408.8,0.451854,'
# Row 10 (177B: L 96, h 12288, batch 1152, 96 GPUs, MFU 47 %):
# F = 12 x 1152 x 4096 x 96 x 12288^2 x ((2 + 1/3) + 4 + 131072/2359296) = 8.207810e17 x 6.388889
#   = 5.243879e18; step = 5.243879e18 / (0.47 x 989.4e12 x 96) = 117.466 s
check "row 10 measured step by hand (MFU x H100 BF16 peak)" row 10 ',47,117.466,'
check "rows on h100 / dgx-h100" row 4 '"h100","dgx-h100"'
check "row 4 distributed optimizer" row 4 '--shard zero1'
check "row 4 README overlap flags" row 4 '--tp-comm-overlap on --overlap-grad-reduce on --overlap-param-gather on'
check "row 4 sequence parallel (tp-comm-overlap needs it)" row 4 '--sequence-parallel on'
check "row 4 untied output layer" row 4 'tied_embeddings"":false'
check "row 4 under megatron-core" row 4 '"megatron-core"'
check "row 10 tp 8 pp 6 from the model table" row 10 'tp8 pp6 dp2'
check "row 11 tp 8 pp 6 from the model table" row 11 'tp8 pp6 dp96'
# Interleaved schedule (session 28, mlm28): the README overlaps pipeline communication, which
# Megatron-LM core_r0.8.0 does only with --num-layers-per-virtual-pipeline-stage (arguments.py
# sets overlap_p2p_comm False otherwise); vp = the fewest chunks that divide a stage's layers:
# 177B 96 layers / pp 6 = 16 a stage -> 2; 119B 92 / 4 = 23 (prime) -> 23; 462B 112 / 16 = 7 -> 7.
check "row 7 interleaved, vp 2 (16 layers a stage)" row 7 'tp8 pp6 dp48 vp2'
check "row 6 interleaved, vp 23 (23 layers a stage, prime)" row 6 'tp8 pp4 dp48 vp23'
check "row 9 interleaved, vp 7 (7 layers a stage)" row 9 'tp8 pp16 dp48 vp7'
check "row 11 interleaved like the table's 177B row" row 11 'tp8 pp6 dp96 vp2'
check "row 7 runs the interleaved schedule" row 7 '--schedule interleaved'
check "row 7 says why" row 7 'which core_r0.8.0 does only interleaved'
check "row 4 (pp 1) stays non-pipelined" row 4 'tp8 pp1 dp48, '
# Gradients reduce in fp32 (session 29, mlm29): BF16 forces accumulate_allreduce_grads_in_fp32 at
# core_r0.8.0 (arguments.py l.302-308; --grad-reduce-in-bf16 only from 2025). Row 4's +25 % is this
# traffic at micro-batch 1 (docs/accuracy.md "Session 29 (helper mlm29)"): it must not be dropped.
check "row 4 reduces gradients in fp32 (r0.8.0 forces it with bf16)" row 4 '--grad-reduce-dtype fp32'
# cuDNN of the runs' date (session 28, mlmc28): mid-2024 containers carry cuDNN <= 9.1 (9.2 from
# NGC 24.07), Megatron-Core r0.8.0's CI image is NGC PyTorch 24.01: the GPU file's 9.1 figures.
check "row 1 attention at cuDNN 9.1" row 1 '--cudnn 9.1'
check "row 10 attention at cuDNN 9.1" row 10 '--cudnn 9.1'
check "row 10 says why" row 10 'cuDNN 9.1 attention (a mid-2024 container'
# Bad values, one column at a time, on copies of rows 1 and 10.
python3 - "$T" "$TMP/bad.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
r1, r10 = rows[0], rows[9]
variants = [(r1, "Per-GPU teraFLOP/s", "fast"), (r1, "Per-GPU teraFLOP/s", "-408.8"),
            (r10, "MFU", ""), (r10, "MFU", "most"), (r10, "num_gpus", "100"),
            (r1, "recompute", "sometimes"),
            # model table 177B row with batch 1200: 25 micro-batches, not a multiple of pp 6:
            # core_r0.8.0's interleaved schedule refuses it (schedules.py), so 1F1B
            (rows[6], "global_batch", "1200")]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(r1.keys()))
w.writeheader()
for base, col, v in variants:
    r = dict(base); r[col] = v; w.writerow(r)
PY
expect_ok validate "$TMP/bad.csv" --format csv
bad() { grep -E "^\"bad\",$1," "$TMP/out" | grep -q "$2"; }
check "rate not a number skips" bad 1 "column 'Per-GPU teraFLOP/s': 'fast'"
check "negative rate skips" bad 2 "column 'Per-GPU teraFLOP/s': '-408.8' is not a positive number"
check "no rate skips" bad 3 "column 'MFU' is empty"
check "MFU not a number skips" bad 4 "column 'MFU': 'most'"
check "strong-scaling GPUs not a multiple of tp 8 pp 6 skips" bad 5 "100 GPUs do not take the model table's tp 8 pp 6"
check "unknown recompute skips" bad 6 "recompute 'sometimes' not understood"
check "25 micro-batches on pp 6: not interleaved" bad 7 'tp8 pp6 dp48, mbs 1 gbs 1200'
check "25 micro-batches on pp 6: says why" bad 7 'non-interleaved 1F1B (25 micro-batches, pp 6)'
finish
