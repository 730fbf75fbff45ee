#!/usr/bin/env bash
# Fine-tuning (--task, --lora-rank, --lora-targets; src/model/finetune.c):
# SFT is pre-training's step, LoRA is faster than it on the same layout (no
# base wgrad, no base gradient reduction or optimizer), a larger rank or more
# targets cost more, the JSON and CSV carry the task, LoRA under FSDP2
# gathers the frozen weights and reduces the adapters' gradients only, and
# bad values fail on one line with a non-zero exit.
. "$(dirname "$0")/lib.sh"

jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

base=(predict --model llama2-7b --gpus 8 --tp 2 --gbs 32 --shard zero1 --format json)

expect_ok "${base[@]}"
cp "$TMP/out" "$TMP/pre.json"
expect_ok "${base[@]}" --task sft
cp "$TMP/out" "$TMP/sft.json"
expect_ok "${base[@]}" --task lora
cp "$TMP/out" "$TMP/lora.json"
expect_ok "${base[@]}" --task lora --lora-targets linear_qkv
cp "$TMP/out" "$TMP/qkv.json"
expect_ok "${base[@]}" --task lora --lora-rank 256
cp "$TMP/out" "$TMP/r256.json"

check "sft: the pre-training step" [ "$(jget "$TMP/sft.json" "['step_time_s']")" = "$(jget "$TMP/pre.json" "['step_time_s']")" ]
check "lora faster than pre-training" gt "$(jget "$TMP/pre.json" "['step_time_s']")" "$(jget "$TMP/lora.json" "['step_time_s']")"
check "lora: one target faster than four" gt "$(jget "$TMP/lora.json" "['step_time_s']")" "$(jget "$TMP/qkv.json" "['step_time_s']")"
check "lora: rank 256 slower than 32" gt "$(jget "$TMP/r256.json" "['step_time_s']")" "$(jget "$TMP/lora.json" "['step_time_s']")"
check "lora: fewer model FLOPs (no base wgrad)" gt "$(jget "$TMP/pre.json" "['flops']['model_per_step']")" "$(jget "$TMP/lora.json" "['flops']['model_per_step']")"
check "lora: optimizer states of the adapters only" gt "$(jget "$TMP/pre.json" "['memory']['optimizer_bytes']")" "$(jget "$TMP/lora.json" "['memory']['optimizer_bytes']")"
check "json: task" [ "$(jget "$TMP/lora.json" "['layout']['task']")" = lora ]
check "json: rank default 32" [ "$(jget "$TMP/lora.json" "['layout']['lora_rank']")" = 32 ]
check "json: all targets" [ "$(jget "$TMP/lora.json" "['layout']['lora_targets']")" = linear_qkv,linear_proj,linear_fc1,linear_fc2 ]
check "json: one target" [ "$(jget "$TMP/qkv.json" "['layout']['lora_targets']")" = linear_qkv ]
check "json: pretrain by default" [ "$(jget "$TMP/pre.json" "['layout']['task']")" = pretrain ]
check "json: no rank without lora" [ "$(jget "$TMP/pre.json" "['layout']['lora_rank']")" = 0 ]

# LoRA without --shard runs the distributed optimizer (zero1), not zero2
expect_ok predict --model llama2-7b --gpus 8 --task lora --format json
check "lora: zero1 by default" [ "$(jget "$TMP/out" "['layout']['shard']")" = zero1 ]

# CSV: the three columns at the end
expect_ok predict --model llama2-7b --gpus 8 --task lora --lora-targets linear_fc1,linear_qkv --format csv
csvget() { python3 -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])" "$1" "$2"; }
check "csv: task" [ "$(csvget "$TMP/out" layout.task)" = lora ]
check "csv: rank" [ "$(csvget "$TMP/out" layout.lora_rank)" = 32 ]
check "csv: targets in bit order" [ "$(csvget "$TMP/out" layout.lora_targets)" = linear_qkv,linear_fc1 ]

# packed samples: attention per sample, faster; recorded in JSON and CSV
expect_ok "${base[@]}" --task sft --packed-sample-len 512
cp "$TMP/out" "$TMP/packed.json"
check "packed: faster than whole sequences" gt "$(jget "$TMP/sft.json" "['step_time_s']")" "$(jget "$TMP/packed.json" "['step_time_s']")"
check "json: packed_sample_len" [ "$(jget "$TMP/packed.json" "['layout']['packed_sample_len']")" = 512 ]
check "json: no packing by default" [ "$(jget "$TMP/sft.json" "['layout']['packed_sample_len']")" = 0 ]
expect_ok "${base[@]}" --packed-sample-len 4096
check "packed: one sample of seq is the whole sequence" [ "$(jget "$TMP/out" "['step_time_s']")" = "$(jget "$TMP/pre.json" "['step_time_s']")" ]
expect_fail 1 "must divide seq 4096 \(the nearest that do: 256, 512\)" -- "${base[@]}" --packed-sample-len 300
expect_fail 1 "^plateau: --packed-sample-len: " -- "${base[@]}" --packed-sample-len 0
expect_fail 1 "cp 1 and a fused attention kernel only" -- predict --model llama2-7b --gpus 8 --cp 2 --packed-sample-len 512

# bad values: one line, non-zero exit
expect_fail 1 "^plateau: --task: unknown task 'bogus' \(expected pretrain\|sft\|lora\)" -- "${base[@]}" --task bogus
expect_fail 1 "^plateau: --lora-targets: unknown target 'qkv'" -- "${base[@]}" --task lora --lora-targets qkv
expect_fail 1 "^plateau: --lora-targets: target 'linear_fc1' given twice" -- "${base[@]}" --task lora --lora-targets linear_fc1,linear_fc1
expect_fail 1 "^plateau: --lora-rank: " -- "${base[@]}" --task lora --lora-rank x
expect_fail 1 "^plateau: --lora-rank: " -- "${base[@]}" --task lora --lora-rank -4
expect_fail 1 "need --task lora" -- "${base[@]}" --lora-rank 16
expect_fail 1 "need --task lora" -- "${base[@]}" --task sft --lora-targets linear_qkv
expect_fail 1 "must be positive and divisible by tp 2" -- "${base[@]}" --task lora --lora-rank 33
# LoRA under FSDP2 (zero2/zero3; src/sim/seg_params.c sim_seg_gathered_params):
# the frozen base weights are gathered with the adapters, only the adapters'
# gradients reduce_scattered: per block 4 B x 2,105,344 adapter parameters =
# 8,421,376 B (Llama-2 7B, r 32, all targets; tests/unit/test_predict.c
# test_lora_fsdp_units), 32 calls; the gathers move the whole model
expect_ok predict --model llama2-7b --gpus 8 --task lora --shard zero3 --format json
cp "$TMP/out" "$TMP/lora3.json"
expect_ok predict --model llama2-7b --gpus 8 --shard zero3 --format json
cp "$TMP/out" "$TMP/pre3.json"
collget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(c[sys.argv[3]] * (c['count'] if sys.argv[3] == 'bytes' else 1) for c in d['collectives'] if c['op'] == sys.argv[2] and c['group'] == 'dp'))" "$1" "$2" "$3"; }
check "lora zero3: reduce_scatter of the adapters only" [ "$(collget "$TMP/lora3.json" reduce_scatter bytes)" = 269484032 ]
check "lora zero3: 32 reduce_scatters" [ "$(collget "$TMP/lora3.json" reduce_scatter count)" = 32 ]
check "lora zero3: the frozen weights still gathered" gt "$(collget "$TMP/lora3.json" all_gather bytes)" "$(collget "$TMP/pre3.json" all_gather bytes)"
check "lora zero3: faster than pre-training" gt "$(jget "$TMP/pre3.json" "['step_time_s']")" "$(jget "$TMP/lora3.json" "['step_time_s']")"
check "lora zero3: optimizer states of the adapters only" gt "$(jget "$TMP/pre3.json" "['memory']['optimizer_bytes']")" "$(jget "$TMP/lora3.json" "['memory']['optimizer_bytes']")"
expect_ok predict --model llama2-7b --gpus 8 --task lora --shard zero2
# the sharded paths not derived for frozen parameters: refused
expect_fail 1 "zero1 or FSDP2 \(zero2/zero3\) only, not FSDP1's flat parameters" -- predict --model llama2-7b --gpus 8 --task lora --shard zero3 --fsdp1-copies on
expect_fail 1 "not DeepSpeed's per-parameter ZeRO-3" -- predict --model llama2-7b --gpus 8 --task lora --shard zero3 --zero3-list-copy 22us
expect_fail 1 "not Megatron FSDP" -- predict --model llama2-7b --gpus 8 --task lora --shard zero3 --fsdp-block-units on
expect_fail 1 "not FP8 all-gather" -- predict --model llama2-7b --gpus 8 --task lora --shard zero3 --dtype fp8 --fp8-all-gather on
expect_fail 1 "not a mixture-of-experts model" -- predict --model qwen3-30b-a3b --gpus 8 --task lora
for f in "$TMP/err"; do check "one line" [ "$(wc -l <"$f")" -le 1 ]; done

finish
