#!/usr/bin/env bash
# --offload-modules LIST (Megatron-Core --fine-grained-activation-offloading
# --offload-modules; layout.offload_modules): the experts' fc1 input and/or
# activation input go to the host. Qwen3-30B-A3B, 8 GPUs, ep 8, zero1, bf16,
# imbalance 1, seq 4096: 32,768 routed copies a block; expert_fc1 4,096 B and
# moe_act 3,072 B a copy, 234,881,024 B a block for both; 48 blocks, one
# block's groups kept: activations 47 x 234,881,024 = 11,039,408,128 B lower
# (test_memory test_offload_modules). Parameters, optimizer and the step do not
# move (memory only). Recorded in JSON and CSV; bad values fail with one line.
. "$(dirname "$0")/lib.sh"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }

run=(predict --model qwen3-30b-a3b --gpus 8 --ep 8 --shard zero1 --seq 4096 --moe-imbalance 1 --format json)
expect_ok "${run[@]}"; cp "$TMP/out" "$TMP/none.json"
expect_ok "${run[@]}" --offload-modules expert_fc1,moe_act; cp "$TMP/out" "$TMP/off.json"
check "activations 11,039,408,128 B lower" python3 -c "
import json; a, b = (json.load(open('$TMP/' + x + '.json')) for x in ('none', 'off'))
assert a['memory']['activations_bytes'] - b['memory']['activations_bytes'] == 11039408128, a['memory']['activations_bytes'] - b['memory']['activations_bytes']
assert a['memory']['params_bytes'] == b['memory']['params_bytes']
assert a['memory']['optimizer_bytes'] == b['memory']['optimizer_bytes']
assert a['step_time_s'] == b['step_time_s']"
check "json offload_modules" [ "$(j "$TMP/off.json" "['layout']['offload_modules']")" = expert_fc1,moe_act ]
check "json: null without offload" [ "$(j "$TMP/none.json" "['layout']['offload_modules']")" = None ]
expect_ok predict --model qwen3-30b-a3b --gpus 8 --ep 8 --offload-modules moe_act --format csv
check "csv offload_modules" [ "$(col "$TMP/out" layout.offload_modules)" = moe_act ]
expect_ok predict --help
check "in --help" grep -q -- '--offload-modules LIST' "$TMP/out"

# bad values
expect_fail 1 "^plateau: --offload-modules: unknown offload module 'core_attn' \(expected a comma-separated list of expert_fc1\|moe_act" -- predict --model qwen3-30b-a3b --gpus 8 --ep 8 --offload-modules core_attn
expect_fail 1 "^plateau: --offload-modules: empty offload module list" -- predict --model qwen3-30b-a3b --gpus 8 --ep 8 --offload-modules ""
expect_fail 1 "^plateau: --offload-modules: offload module 'moe_act' given twice" -- predict --model qwen3-30b-a3b --gpus 8 --ep 8 --offload-modules moe_act,moe_act
expect_fail 1 "needs an MoE model; 'llama3-8b' has no experts" -- predict --model llama3-8b --gpus 8 --offload-modules expert_fc1
expect_fail 1 "cannot be combined with --act-offload-layers" -- predict --model qwen3-30b-a3b --gpus 8 --ep 8 --act-offload-layers 2 --offload-modules moe_act
finish
