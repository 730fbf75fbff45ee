#!/usr/bin/env bash
# Partial full recomputation (docs/step-model.md 2.4): --recompute-layers N
# (Megatron-Core --recompute-method block --recompute-num-layers N) and
# --recompute-every K (torchtitan selective_ac_option K). Both move compute
# and memory between recompute none and full, are recorded in JSON and CSV,
# and fail on bad values with one line.
. "$(dirname "$0")/lib.sh"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
between() { awk -v a="$1" -v x="$2" -v b="$3" 'BEGIN { exit !(a < x && x < b) }'; }

run=(predict --model llama3-70b --gpus 64 --tp 8 --pp 8 --gbs 128 --shard zero1 --format json)
expect_ok "${run[@]}" --recompute none; cp "$TMP/out" "$TMP/none.json"
expect_ok "${run[@]}" --recompute full; cp "$TMP/out" "$TMP/full.json"
expect_ok "${run[@]}" --recompute full --recompute-layers 5; cp "$TMP/out" "$TMP/l5.json"
expect_ok "${run[@]}" --recompute full --recompute-every 2; cp "$TMP/out" "$TMP/e2.json"
expect_ok "${run[@]}" --recompute full --recompute-layers 10; cp "$TMP/out" "$TMP/l10.json"

for f in l5 e2; do
  check "$f: step between none and full" between "$(j "$TMP/none.json" "['step_time_s']")" "$(j "$TMP/$f.json" "['step_time_s']")" "$(j "$TMP/full.json" "['step_time_s']")"
  check "$f: activations between full and none" between "$(j "$TMP/full.json" "['memory']['activations_bytes']")" "$(j "$TMP/$f.json" "['memory']['activations_bytes']")" "$(j "$TMP/none.json" "['memory']['activations_bytes']")"
done
# 10 blocks per stage: 5 of them recomputed, the hardware FLOPs halfway
check "l5: half the recomputed FLOPs" python3 -c "
import json; n, f, h = (json.load(open('$TMP/' + x + '.json'))['flops']['hardware_per_step'] for x in ('none', 'full', 'l5'))
assert abs((h - n) / (f - n) - 0.5) < 1e-12"
# every second block of 10 = the first 5: the same share
check "e2 = l5 here (5 of 10 blocks)" [ "$(j "$TMP/e2.json" "['step_time_s']")" = "$(j "$TMP/l5.json" "['step_time_s']")" ]
# N at least the chunk's blocks: every block, as plain full
check "l10 = full" [ "$(j "$TMP/l10.json" "['step_time_s']")" = "$(j "$TMP/full.json" "['step_time_s']")" ]
check "json recompute_layers" [ "$(j "$TMP/l5.json" "['layout']['recompute_layers']")" = 5 ]
check "json recompute_every" [ "$(j "$TMP/e2.json" "['layout']['recompute_every']")" = 2 ]
expect_ok predict --recompute full --recompute-every 4 --format csv
check "csv recompute_every" [ "$(col "$TMP/out" layout.recompute_every)" = 4 ]
check "csv recompute_layers 0 (all)" [ "$(col "$TMP/out" layout.recompute_layers)" = 0 ]

# bad values
expect_fail 1 "need --recompute full" -- predict --recompute-layers 2
expect_fail 1 "need --recompute full" -- predict --recompute selective --recompute-every 2
expect_fail 1 "give --recompute-layers or --recompute-every, not both" -- predict --recompute full --recompute-layers 2 --recompute-every 2
expect_fail 1 "more than the model's 32 blocks" -- predict --recompute full --recompute-every 33
expect_fail 1 "^plateau: --recompute-layers: '0' must be positive$" -- predict --recompute full --recompute-layers 0
expect_fail 1 "^plateau: --recompute-every: " -- predict --recompute full --recompute-every two
expect_fail 1 "a layout search does not take it" -- search --gpus 8 --recompute full --recompute-layers 2
expect_fail 1 "^plateau: --recompute: unknown recompute mode 'op' \(expected none\|selective\|full\|ops\)$" -- predict --recompute op
expect_fail 1 "^plateau: --recompute: unknown recompute mode '' " -- predict --recompute ''

# --recompute ops (torchtitan per-op SAC, docs/step-model.md 2.4): wk, wo, w3
# and the element-wise ops re-run, 2 h (kv + q + f) extra FLOPs per token and
# block; the SP all_gathers re-run, the reduce_scatters saved
expect_ok "${run[@]}" --recompute ops; cp "$TMP/out" "$TMP/ops.json"
check "ops: step between none and full" between "$(j "$TMP/none.json" "['step_time_s']")" "$(j "$TMP/ops.json" "['step_time_s']")" "$(j "$TMP/full.json" "['step_time_s']")"
check "ops: activations between full and none" between "$(j "$TMP/full.json" "['memory']['activations_bytes']")" "$(j "$TMP/ops.json" "['memory']['activations_bytes']")" "$(j "$TMP/none.json" "['memory']['activations_bytes']")"
check "ops: hardware FLOPs = model + 2 h (kv + q + f) per token and block" python3 -c "
import json; d = json.load(open('$TMP/ops.json')); m, f = d['model'], d['flops']
h, q, kv = m['hidden'], m['heads'] * m['head_dim'], m['kv_heads'] * m['head_dim']
extra = f['tokens_per_step'] * m['layers'] * 2 * h * (kv + q + m['ffn_hidden'])
assert abs(f['hardware_per_step'] - f['model_per_step'] - extra) <= 1e-12 * extra, (f, extra)"
check "json layout.recompute ops" [ "$(j "$TMP/ops.json" "['layout']['recompute']")" = ops ]
# tp 8 with SP, 10 blocks per stage, 128 micro-batches: 2 more tp all_gathers
# per block backward than without recompute (2560), the reduce_scatters as many
check "ops: +2 all_gathers per block, reduce_scatters unchanged" python3 -c "
import json
def calls(f, op): return sum(c['count'] for c in json.load(open('$TMP/' + f))['collectives'] if c['group'] == 'tp' and c['op'] == op)
assert calls('ops.json', 'all_gather') - calls('none.json', 'all_gather') == 2 * 10 * 128
assert calls('ops.json', 'reduce_scatter') == calls('none.json', 'reduce_scatter')"
expect_ok "${run[@]}" --recompute ops --ops; cp "$TMP/out" "$TMP/ops_ops.json"
check "ops: qkv, proj, fc1 re-run, fc2 and attn kept (--ops)" python3 -c "
import json; ops = {o['name']: o for o in json.load(open('$TMP/ops_ops.json'))['ops'] if o['segment'] == 'layer'}
assert all(ops[n]['recompute'] for n in ('qkv', 'proj', 'fc1', 'norm1', 'swiglu')), ops
assert not ops['fc2']['recompute'] and not ops['attn']['recompute']"
expect_ok predict --model llama3-8b --recompute ops --format csv
check "csv layout.recompute ops" [ "$(col "$TMP/out" layout.recompute)" = ops ]
expect_ok predict --model llama3-8b --recompute ops
check "text names ops" grep -q "recompute=ops" "$TMP/out"
expect_ok search --model llama3-8b --gpus 16 --gbs 64 --recompute ops --top 2 --format csv
check "search --recompute ops: rows are ops" [ "$(col "$TMP/out" layout.recompute | sort -u)" = ops ]
expect_fail 1 "--recompute ops models torchtitan's dense Llama-style block .*'gpt3-175b'" -- predict --model gpt3-175b --recompute ops
expect_fail 1 "--recompute ops models torchtitan's dense Llama-style block .*'mixtral-8x7b'" -- predict --model mixtral-8x7b --recompute ops
expect_fail 1 "need --recompute full" -- predict --model llama3-8b --recompute ops --recompute-layers 2

# --recompute-method uniform|block (Megatron-Core --recompute-method,
# TransformerBlock._checkpointed_forward): block (default) is --recompute-layers
# as above; uniform recomputes every block, checkpointed in groups of N
expect_ok "${run[@]}" --recompute full --recompute-method uniform --recompute-layers 2; cp "$TMP/out" "$TMP/u2.json"
expect_ok "${run[@]}" --recompute full --recompute-method block --recompute-layers 5; cp "$TMP/out" "$TMP/b5.json"
expect_ok "${run[@]}" --recompute full --recompute-method uniform; cp "$TMP/out" "$TMP/u0.json"
check "uniform: the step and FLOPs of full" [ "$(j "$TMP/u2.json" "['step_time_s']")" = "$(j "$TMP/full.json" "['step_time_s']")" ]
check "uniform: hardware FLOPs of full" [ "$(j "$TMP/u2.json" "['flops']['hardware_per_step']")" = "$(j "$TMP/full.json" "['flops']['hardware_per_step']")" ]
# stage 0 (8 micro-batches in flight, 10 blocks): 5 group inputs instead of
# 10 (2 s h / t = 16 MiB each), a group's backward re-creates 2 blocks
# instead of 1 (34,336 B per token x 8192 = 281,280,512 B)
check "uniform 2: 8 x 5 inputs less, one block's set more" python3 -c "
import json; f, u = (json.load(open('$TMP/' + x + '.json'))['memory']['activations_bytes'] for x in ('full', 'u2'))
assert u - f == -8 * 5 * 2 * 8192 * 8192 // 8 + 34336 * 8192, (u, f)"
check "uniform without N = full" [ "$(j "$TMP/u0.json" "['memory']['activations_bytes']")" = "$(j "$TMP/full.json" "['memory']['activations_bytes']")" ]
check "block 5 = --recompute-layers 5" [ "$(j "$TMP/b5.json" "['step_time_s']")" = "$(j "$TMP/l5.json" "['step_time_s']")" ]
check "json recompute_method uniform" [ "$(j "$TMP/u2.json" "['layout']['recompute_method']")" = uniform ]
check "json recompute_method block by default" [ "$(j "$TMP/l5.json" "['layout']['recompute_method']")" = block ]
expect_ok predict --recompute full --recompute-method uniform --recompute-layers 4 --format csv
check "csv recompute_method" [ "$(col "$TMP/out" layout.recompute_method)" = uniform ]
expect_fail 1 "^plateau: --recompute-method: unknown method 'blocks' \(expected block\|uniform\)$" -- predict --recompute full --recompute-method blocks
expect_fail 1 "^plateau: --recompute-method: needs --recompute full" -- predict --recompute-method uniform
expect_fail 1 "^plateau: --recompute-method: needs --recompute full" -- predict --recompute selective --recompute-method block
expect_fail 1 "give --recompute-method uniform or --recompute-every, not both" -- predict --recompute full --recompute-method uniform --recompute-every 2
expect_fail 1 "more than the model's 32 blocks" -- predict --recompute full --recompute-method uniform --recompute-layers 33
expect_fail 1 "a layout search does not take it" -- search --gpus 8 --recompute full --recompute-method uniform

finish
