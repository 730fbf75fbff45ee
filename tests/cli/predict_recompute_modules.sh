#!/usr/bin/env bash
# Megatron-Core selective recompute modules (docs/step-model.md 2.4):
# --recompute-modules LIST (Megatron --recompute-modules with
# --recompute-granularity selective). Each module re-runs its ops before the
# backward (slower step, more hardware FLOPs, model FLOPs unchanged) and frees
# its saved activations; recorded in JSON and CSV; bad values fail with one line.
. "$(dirname "$0")/lib.sh"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { python3 -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])" "$1" "$2"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# DeepSeek-V3 on 256 B300 as Megatron-Bridge's pp 16 ep 8 recipe lays it out
run=(predict --model deepseek-v3 --gpu b300 --gpus 256 --pp 16 --ep 8 --mbs 1 --gbs 4096
     --dtype mxfp8 --pipeline-layout 'Et*4|(t*4|)*14tmL' --mtp-layers 1 --format json)
expect_ok "${run[@]}"; cp "$TMP/out" "$TMP/none.json"
expect_ok "${run[@]}" --recompute-modules mla_up_proj; cp "$TMP/out" "$TMP/mla.json"
expect_ok "${run[@]}" --recompute-modules moe; cp "$TMP/out" "$TMP/moe.json"
expect_ok "${run[@]}" --recompute-modules layernorm,moe_act; cp "$TMP/out" "$TMP/ln.json"
expect_ok "${run[@]}" --recompute selective; cp "$TMP/out" "$TMP/sel.json"
expect_ok "${run[@]}" --recompute selective --recompute-modules core_attn; cp "$TMP/out" "$TMP/ca.json"

for f in mla moe ln; do
  check "$f: slower than none" lt "$(j "$TMP/none.json" "['step_time_s']")" "$(j "$TMP/$f.json" "['step_time_s']")"
  check "$f: fewer activations than none" lt "$(j "$TMP/$f.json" "['memory']['activations_bytes']")" "$(j "$TMP/none.json" "['memory']['activations_bytes']")"
  check "$f: same model FLOPs" [ "$(j "$TMP/$f.json" "['flops']['model_per_step']")" = "$(j "$TMP/none.json" "['flops']['model_per_step']")" ]
done
# mla_up_proj re-runs q_up and kv_up: 2 (1536 x 24576 + 512 x 32768) FLOPs per
# token and block, 61 blocks, 4096 x 4096 tokens (tests/unit/test_flops.c)
check "mla: hardware FLOPs = model + the up projections" python3 -c "
import json; n, m = (json.load(open('$TMP/' + x + '.json'))['flops'] for x in ('none', 'mla'))
assert abs((m['hardware_per_step'] - n['hardware_per_step']) / (109051904 * 61 * 4096 * 4096) - 1) < 1e-9"
# layernorm and moe_act re-run element-wise kernels only: no matmul FLOPs
check "ln: no recomputed matmul FLOPs" [ "$(j "$TMP/ln.json" "['flops']['hardware_per_step']")" = "$(j "$TMP/none.json" "['flops']['hardware_per_step']")" ]
# the whole MoE layer re-runs more than its activation and norms
check "moe slower than layernorm,moe_act" lt "$(j "$TMP/ln.json" "['step_time_s']")" "$(j "$TMP/moe.json" "['step_time_s']")"
# Megatron-Core's default list is core_attn: the plain selective mode
check "core_attn = selective" [ "$(j "$TMP/ca.json" "['step_time_s']")" = "$(j "$TMP/sel.json" "['step_time_s']")" ]
check "json recompute_modules" [ "$(j "$TMP/ln.json" "['layout']['recompute_modules']")" = "moe_act,layernorm" ]
check "json recompute selective" [ "$(j "$TMP/ln.json" "['layout']['recompute']")" = selective ]
check "json default core_attn" [ "$(j "$TMP/sel.json" "['layout']['recompute_modules']")" = core_attn ]
check "json null without selective" [ "$(j "$TMP/none.json" "['layout']['recompute_modules']")" = None ]
expect_ok predict --model qwen3-30b-a3b --gpus 8 --ep 8 --recompute-modules moe,layernorm --format csv
check "csv recompute_modules" [ "$(col "$TMP/out" layout.recompute_modules)" = "layernorm,moe" ]

# bad values
expect_fail 1 "^plateau: --recompute-modules: unknown recompute module 'attn'" -- predict --recompute-modules attn
expect_fail 1 "^plateau: --recompute-modules: recompute module 'mlp' given twice$" -- predict --recompute-modules mlp,mlp
expect_fail 1 "^plateau: --recompute-modules: empty recompute module list" -- predict --recompute-modules ''
expect_fail 1 "^plateau: --recompute-modules: unknown recompute module ''" -- predict --recompute-modules mlp,
expect_fail 1 "^plateau: --recompute-modules: needs --recompute selective" -- predict --recompute full --recompute-modules mlp
expect_fail 1 "mla_up_proj needs multi-latent attention" -- predict --model llama3-8b --recompute-modules mla_up_proj
expect_fail 1 "moe_act and moe need an MoE model" -- predict --model llama3-8b --recompute-modules moe_act
expect_fail 1 "shared_experts needs an MoE model with a shared" -- predict --model qwen3-30b-a3b --gpus 8 --ep 8 --recompute-modules shared_experts
expect_fail 1 "every block of 'qwen3-30b-a3b' is MoE" -- predict --model qwen3-30b-a3b --gpus 8 --ep 8 --recompute-modules mlp
expect_fail 1 "delayed scaling does not support moe_act and layernorm" -- predict --gpu h100 --dtype fp8-delayed --recompute-modules layernorm
expect_fail 1 "recompute module moe cannot run with the ep all-to-all overlap" -- predict --model qwen3-30b-a3b --gpus 8 --ep 8 --ep-comm-overlap on --recompute-modules moe
expect_fail 1 "a layout search does not take it" -- search --gpus 8 --recompute-modules mlp

finish
