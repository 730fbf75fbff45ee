#!/usr/bin/env bash
# --act-offload-layers N (Megatron-Core cpu_offloading_num_layers, activations
# only; Transformer Engine get_cpu_offload_context): the GPU keeps the saved
# activations of the other blocks only; parameters, gradients, optimizer and
# the step time do not move. Recorded in JSON; Megatron-Core's refusals
# (pp > 1, recompute, N >= blocks) and bad values fail with one line.
. "$(dirname "$0")/lib.sh"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }

run=(predict --model llama3-8b --gpu gb300 --gpus 8 --shard zero3 --mbs 2 --gbs 64 --seq 8192 --dtype fp8-current --format json)
expect_ok "${run[@]}"; cp "$TMP/out" "$TMP/none.json"
expect_ok "${run[@]}" --act-offload-layers 8; cp "$TMP/out" "$TMP/off.json"
# 8 of 32 blocks: activations lower by a quarter of the blocks' share (the logits and
# LM-head inputs stay, so between 20 and 25 % of the total)
check "activations lower by 8 blocks" python3 -c "
import json; a, b = (json.load(open('$TMP/' + x + '.json')) for x in ('none', 'off'))
drop = a['memory']['activations_bytes'] - b['memory']['activations_bytes']
assert drop > 0.2 * a['memory']['activations_bytes'] and drop < 0.25 * a['memory']['activations_bytes'], drop
assert a['memory']['params_bytes'] == b['memory']['params_bytes']
assert a['memory']['optimizer_bytes'] == b['memory']['optimizer_bytes']
assert a['step_time_s'] == b['step_time_s']"
check "json act_offload_layers" [ "$(j "$TMP/off.json" "['layout']['act_offload_layers']")" = 8 ]
check "json: 0 without offload" [ "$(j "$TMP/none.json" "['layout']['act_offload_layers']")" = 0 ]
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
expect_ok predict --model llama3-8b --gpus 8 --act-offload-layers 8 --format csv
check "csv act_offload_layers" [ "$(col "$TMP/out" layout.act_offload_layers)" = 8 ]

# bad values
expect_fail 1 "needs pp 1" -- predict --model llama3-70b --gpus 64 --pp 4 --act-offload-layers 4
expect_fail 1 "needs --recompute none" -- predict --model llama3-70b --gpus 64 --recompute full --act-offload-layers 4
expect_fail 1 "must be below the model's 80 blocks" -- predict --model llama3-70b --gpus 64 --act-offload-layers 80
expect_fail 1 "not a positive integer" -- predict --model llama3-70b --gpus 64 --act-offload-layers -1
expect_fail 1 "must be positive" -- predict --model llama3-70b --gpus 64 --act-offload-layers 0
finish
