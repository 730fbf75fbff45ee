#!/usr/bin/env bash
# FP8 recipes as --dtype values (Transformer Engine DelayedScaling,
# Float8CurrentScaling, Float8BlockScaling; docs/step-model.md 2.3e): each is
# recorded in JSON, CSV and text, moves the step the way its casts say, and
# is refused where the GPU has no FP8 tensor cores.
. "$(dirname "$0")/lib.sh"

col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b * 0.9999) }'; }

run=(predict --model llama3-70b --gpus 64 --tp 8 --pp 4 --gbs 128 --shard zero1 --recompute full)
for d in fp8 fp8-delayed fp8-current fp8-blockwise fp8-tensorwise fp8-rowwise; do
  expect_ok "${run[@]}" --dtype "$d" --format csv
  cp "$TMP/out" "$TMP/$d.csv"
  check "$d: csv layout.dtype" [ "$(col "$TMP/$d.csv" layout.dtype)" = "$d" ]
done
step() { col "$TMP/$1.csv" step_time_s; }
# cached weights: the weight casts once per step instead of per micro-batch
check "fp8-delayed faster than fp8 (weights cached over 32 micro-batches)" lt "$(step fp8-delayed)" "$(step fp8)"
# current scaling reads every activation and gradient once more for its amax
check "fp8-current slower than fp8-delayed (amax pass)" lt "$(step fp8-delayed)" "$(step fp8-current)"
# blockwise casts as delayed (scales inside the cast), but its sequence-parallel gathers carry
# FP32 scales per 1x128 block and the grad_output gathers both copies (2 x 1.03125 B against
# delayed's 1 B: layout_bytes.c pl_layout_tp_gather_bytes), so it is slower at tp 8
check "fp8-blockwise slower than fp8-delayed (quantized gathers with scales, both copies)" lt "$(step fp8-delayed)" "$(step fp8-blockwise)"
# torchao tensorwise (torchtitan's float8 recipe): amax before every cast, weights cast every
# forward, and the 16-bit input and weight cast again in backward: slower than fp8, whose casts
# write the transpose once; its saved GEMM inputs are 16-bit, so activations are bf16's
check "fp8-tensorwise slower than fp8 (backward casts again)" lt "$(step fp8)" "$(step fp8-tensorwise)"
expect_ok "${run[@]}" --dtype bf16 --format csv
cp "$TMP/out" "$TMP/bf16.csv"
check "fp8-tensorwise keeps bf16 activations (torchao saves input_hp)" \
  [ "$(col "$TMP/fp8-tensorwise.csv" memory.activations_bytes)" = "$(col "$TMP/bf16.csv" memory.activations_bytes)" ]
check "fp8 keeps FP8 copies (fewer activation bytes than fp8-tensorwise)" \
  lt "$(col "$TMP/fp8.csv" memory.activations_bytes)" "$(col "$TMP/fp8-tensorwise.csv" memory.activations_bytes)"
check "fp8-tensorwise faster than bf16 (FP8 GEMMs)" lt "$(step fp8-tensorwise)" "$(col "$TMP/bf16.csv" step_time_s)"
# torchao rowwise: the tensorwise casts, but each linear casts its own input (q, k, v and the
# gated MLP's two up matrices: 3 and 2 casts of one tensor), the backward GEMMs' outputs are
# rescaled in a pass of their own, and the sequence-parallel gathers stay 16-bit (no Float8
# TP styles): slower than tensorwise at tp 8; its saved GEMM inputs are 16-bit too
check "fp8-rowwise slower than fp8-tensorwise (per-linear casts, rescale, 16-bit TP gathers)" \
  lt "$(step fp8-tensorwise)" "$(step fp8-rowwise)"
check "fp8-rowwise keeps bf16 activations (torchao saves input_hp)" \
  [ "$(col "$TMP/fp8-rowwise.csv" memory.activations_bytes)" = "$(col "$TMP/bf16.csv" memory.activations_bytes)" ]
# without TP (no gathers), the casts and the rescale alone still make it slower than tensorwise
one=(predict --model llama3-8b --gpus 8 --gbs 16 --framework torchtitan --format csv)
expect_ok "${one[@]}" --dtype fp8-tensorwise
cp "$TMP/out" "$TMP/tw1.csv"
expect_ok "${one[@]}" --dtype fp8-rowwise
check "fp8-rowwise slower than fp8-tensorwise at tp 1" lt "$(col "$TMP/tw1.csv" step_time_s)" "$(col "$TMP/out" step_time_s)"
check "fp8-rowwise csv dtype at tp 1" [ "$(col "$TMP/out" layout.dtype)" = fp8-rowwise ]
# torchao's float8 all-gather is tensorwise only (Float8LinearConfig asserts it)
expect_fail 1 "fp8-rowwise gathers its weights in 16 bits .*use --fp8-all-gather off" -- \
  predict --model llama3-8b --gpus 8 --dtype fp8-rowwise --shard zero3 --fp8-all-gather on
check "fp8-rowwise with fp8 all-gather: one line on stderr" [ "$(wc -l <"$TMP/err")" -eq 1 ]
# one micro-batch: nothing to cache, delayed equals today's fp8
expect_ok predict --dtype fp8 --format csv
cp "$TMP/out" "$TMP/m1a.csv"
expect_ok predict --dtype fp8-delayed --format csv
check "one micro-batch: fp8-delayed = fp8" [ "$(col "$TMP/out" step_time_s)" = "$(col "$TMP/m1a.csv" step_time_s)" ]
# fp8 stays what it was: the default value's name and numbers
check "fp8 keeps its name" [ "$(col "$TMP/m1a.csv" layout.dtype)" = fp8 ]
expect_ok predict --dtype fp8-current --format json
check "json layout.dtype" grep -q '"dtype": "fp8-current"' "$TMP/out"
expect_ok predict --dtype fp8-blockwise
check "text names the recipe" grep -q 'dtype=fp8-blockwise' "$TMP/out"

# bad values
expect_fail 1 "^plateau: --dtype: unknown dtype 'fp8-x' \(expected bf16\|fp8\|fp8-delayed\|fp8-current\|fp8-blockwise\|fp8-tensorwise\|fp8-rowwise\|mxfp8\|nvfp4\)$" -- predict --dtype fp8-x
expect_fail 1 "^plateau: --dtype: unknown dtype '' " -- predict --dtype ''
expect_fail 1 "dtype fp8-delayed needs FP8 tensor cores, which gpu 'a100-80g' lacks" -- predict --gpu a100-80g --dtype fp8-delayed
expect_fail 1 "needs FP8 tensor cores, which gpu .a100-80g. lacks" -- search --gpus 8 --gpu a100-80g --dtype fp8-current
expect_fail 1 "dtype fp8-tensorwise needs FP8 tensor cores, which gpu 'a100-80g' lacks" -- predict --gpu a100-80g --dtype fp8-tensorwise
expect_fail 1 "dtype fp8-rowwise needs FP8 tensor cores, which gpu 'a100-80g' lacks" -- predict --gpu a100-80g --dtype fp8-rowwise
expect_fail 1 "^plateau: --dtype: unknown dtype 'rowwise' " -- predict --dtype rowwise
expect_fail 1 "^plateau: --dtype: unknown dtype 'tensorwise' " -- predict --dtype tensorwise


# zero1 with TE FP8 parameters (Megatron-Core's distributed optimizer with fp8_param_gather,
# layout_bytes.c pl_layout_te_fp8_params; lower_dp.c param_gather): the blocks' GEMM weights are
# all_gathered at 1 B, the rest at 2 B. Llama 3 8B at tp 1: per block
# h(q + 2kv) + qh + 3hf = 4096 x 6144 + 4096 x 4096 + 3 x 4096 x 14336 = 218,103,808 weights,
# 32 blocks 6,979,321,856; the rest 8,030,261,248 - 6,979,321,856 = 1,050,939,392 (embedding and
# output layer 128,256 x 4096 each, the norms). 16-bit: 60 calls of
# 8,030,261,248 x 2 / 60 = 267,675,374.9 B. FP8 (lower_dp.c fp8_groups, Megatron-Core
# partition_buckets case 3): NeMo's bucket of 134,217,728 elements cuts the FP8 weights into
# 6,979,321,856 / 134,217,728 = 52 buckets; the last joins the non-FP8 buckets (the output layer's,
# closed at 525,336,576 >= 134,217,728, and the embedding's with the norms): 51 + 3 = 54 calls,
# 1,050,939,392 x 2 + 6,979,321,856 x 1 = 9,081,200,640 B in all (mean 168,170,382.2 per call).
# The gradients' reduce_scatter the same: 51 FP8 buckets, then the last group's 3 calls.
z1=(predict --model llama3-8b --gpu b200 --cluster dgx-b200 --gpus 256 --tp 1 --cp 2 --seq 8192 --mbs 1
    --gbs 128 --shard zero1 --dtype fp8-current --framework nemo --format json)
ag_bytes() { python3 -c "import json,sys; print(int(round([c['bytes'] for c in json.load(open(sys.argv[1]))['collectives'] if c['op']=='all_gather' and c['group']=='dp'][0])))" "$1"; }
expect_ok "${z1[@]}" --fp8-all-gather off
cp "$TMP/out" "$TMP/z1off.json"
expect_ok "${z1[@]}" --fp8-all-gather on
cp "$TMP/out" "$TMP/z1on.json"
check "zero1 dp all_gather 16-bit without FP8 parameters" [ "$(ag_bytes "$TMP/z1off.json")" = 267675375 ]
check "zero1 dp all_gather at 1 B for the FP8 block weights" [ "$(ag_bytes "$TMP/z1on.json")" = 168170382 ]
coll_count() { python3 -c "import json,sys; print([c['count'] for c in json.load(open(sys.argv[1]))['collectives'] if c['op']==sys.argv[2] and c['group']=='dp'][0])" "$1" "$2"; }
check "FP8 bucket groups: 54 dp all_gather calls" [ "$(coll_count "$TMP/z1on.json" all_gather)" = 54 ]
check "FP8 bucket groups: 54 dp reduce_scatter calls" [ "$(coll_count "$TMP/z1on.json" reduce_scatter)" = 54 ]
check "16-bit parameters: 60 dp all_gather calls" [ "$(coll_count "$TMP/z1off.json" all_gather)" = 60 ]

finish
