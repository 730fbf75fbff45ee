#!/usr/bin/env bash
# Bad input to `plateau search` gets one line naming the problem and a
# non-zero exit, never a crash.
. "$(dirname "$0")/lib.sh"

expect_fail 1 "--objective cost needs --gpu-hour-price" -- search --gpus 8 --objective cost
expect_fail 1 "unknown objective 'speed'" -- search --gpus 8 --objective speed
expect_fail 1 "--gpu-hour-price: -1 is not a positive price|--gpu-hour-price" -- search --gpus 8 --gpu-hour-price -1
expect_fail 1 "--fix: 'bogus=1': unknown key 'bogus'" -- search --gpus 8 --fix bogus=1
expect_fail 1 "--fix: 'tp': expected key=value" -- search --gpus 8 --fix tp
expect_fail 1 "--fix: 'shard=zero9'" -- search --gpus 8 --fix shard=zero9
expect_fail 1 "tp=3 does not divide 8 GPUs" -- search --gpus 8 --fix tp=3
expect_fail 1 "mbs=3 does not divide the global batch 8" -- search --gpus 8 --fix mbs=3
expect_fail 1 "top 0 is outside 1..10000|--top" -- search --gpus 8 --top 0
expect_fail 1 "top 20000 is outside 1..10000" -- search --gpus 8 --top 20000
expect_fail 1 "--threads" -- search --gpus 8 --threads 0x
expect_fail 1 "--threads: 5000 is more than 1024" -- search --gpus 8 --threads 5000
expect_fail 1 "llama9" -- search --model llama9
expect_fail 1 "unknown format" -- search --gpus 8 --format xml
expect_fail 2 "unknown option '--bogus'" -- search --bogus
# a flag no layout can take is an error naming it, not "no layout fits"
# (hard26: every layout was refused by pl_layout_resolve and search printed
# "no layout fits" with exit 0)
expect_fail 1 "^plateau: search: every layout is refused: layout: --lora-rank 8192 exceeds the model width 4096" -- search --model llama2-7b --gpus 8 --task lora --lora-rank 8192
expect_fail 1 "every layout is refused: layout: --packed-sample-len 8192 exceeds seq 4096" -- search --model llama2-7b --gpus 8 --packed-sample-len 8192 --format json
expect_fail 1 "every layout is refused: layout: --bf16-last-blocks 40 must be between" -- search --model llama2-7b --gpus 8 --dtype fp8 --bf16-last-blocks 40
expect_fail 1 "every layout is refused: .*not a mixture-of-experts model" -- search --model qwen3-30b-a3b --gpus 8 --task lora
finish
