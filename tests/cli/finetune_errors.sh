#!/usr/bin/env bash
# Hostile values for session 26's fine-tuning and 16-bit-module flags
# (--task, --lora-rank, --lora-targets, --packed-sample-len, --bf16-last-blocks,
# --bf16-modules, --hf-shift-copy): each fails on one line starting "plateau"
# with exit 1 (a bad value; an unknown option or a missing value is a usage
# error, exit 2), in predict, sweep and study alike, never a crash or a
# silently priced nonsense layout. predict_finetune.sh holds the mechanism's
# own checks.
. "$(dirname "$0")/lib.sh"

B=(predict --model llama2-7b --gpus 8 --tp 2 --gbs 32 --shard zero1)
one_line() { check "one line: $1" [ "$(wc -l <"$TMP/err")" -le 1 ]; }

# integers: empty, blank, signs, floats, hex, text, overflow
for f in lora-rank packed-sample-len bf16-last-blocks; do
  for v in "" " " -1 1.5 0x10 16abc nan inf 1e3; do
    expect_fail 1 "^plateau: --$f: " -- "${B[@]}" --task lora --dtype fp8 --$f "$v"
    one_line "--$f '$v'"
  done
  expect_fail 1 "^plateau: --$f: '99999999999999999999' is too large" -- "${B[@]}" --$f 99999999999999999999
  expect_fail 2 "option needs a value" -- "${B[@]}" --$f
done

# a rank above the model width is no adapter (Hu et al. 2021: r << min(d, k));
# before session 26's hardening 9223372036854775806 priced exabytes of adapter
expect_fail 1 "^plateau: layout: --lora-rank 8192 exceeds the model width 4096" -- "${B[@]}" --task lora --lora-rank 8192
expect_fail 1 "exceeds the model width 4096" -- "${B[@]}" --task lora --lora-rank 9223372036854775806
expect_ok "${B[@]}" --task lora --lora-rank 4096
expect_fail 1 "need --task lora" -- "${B[@]}" --task sft --lora-rank 8192

# a packed sample longer than the sequence (seq itself is one sample: accepted)
expect_fail 1 "^plateau: layout: --packed-sample-len 4097 exceeds seq 4096" -- "${B[@]}" --packed-sample-len 4097
expect_fail 1 "exceeds seq 2048" -- "${B[@]}" --seq 2048 --packed-sample-len 4096
expect_ok "${B[@]}" --packed-sample-len 4096

# words: case, blanks, empty items, duplicates, unknown items
for v in "" PRETRAIN "lora " Lora; do
  expect_fail 1 "^plateau: --task: unknown task" -- "${B[@]}" --task "$v"
done
for v in "" , "linear_qkv," ",linear_qkv" "linear_qkv,,linear_fc1" " linear_qkv" LINEAR_QKV none; do
  expect_fail 1 "^plateau: --lora-targets: " -- "${B[@]}" --task lora --lora-targets "$v"
  one_line "--lora-targets '$v'"
done
for v in "" , "linear_qkv," linear_qkv,linear_qkv all none LINEAR_QKV; do
  expect_fail 1 "^plateau: --bf16-modules: " -- "${B[@]}" --dtype fp8 --bf16-modules "$v"
  one_line "--bf16-modules '$v'"
done
for v in "" yes 1 ON on,off; do
  expect_fail 1 "^plateau: --hf-shift-copy: unknown value" -- "${B[@]}" --hf-shift-copy "$v"
done

expect_fail 1 "^plateau: --lora-targets: 'all' stands alone, not in a list" -- "${B[@]}" --task lora --lora-targets all,linear_qkv
expect_fail 1 "^plateau: --lora-targets: empty target in ',linear_qkv'" -- "${B[@]}" --task lora --lora-targets ,linear_qkv

# combinations the mechanisms refuse
expect_fail 1 "not a mixture-of-experts model" -- predict --model qwen3-30b-a3b --gpus 8 --task lora
# zero2/zero3 as FSDP2 run LoRA (session 29); FSDP1's flat parameters do not
expect_fail 1 "not FSDP1's flat parameters" -- "${B[@]}" --task lora --shard zero2 --fsdp1-copies on
expect_fail 1 "must be between 0 and the model's 32 blocks" -- "${B[@]}" --dtype fp8 --bf16-last-blocks 33

# sweep takes the flags as one value for every point and names the point it refuses
S=(sweep --model llama2-7b --gpus 8)
expect_fail 1 "^plateau: --lora-rank: '16,32' is not a positive integer" -- "${S[@]}" --task lora --lora-rank 16,32
expect_fail 1 "^plateau: sweep point llama2-7b, 8 GPUs: layout: --lora-rank 8192 exceeds" -- "${S[@]}" --task lora --lora-rank 8192
expect_fail 1 "^plateau: sweep point llama2-7b, 8 GPUs: layout: --packed-sample-len 8192 exceeds" -- "${S[@]}" --packed-sample-len 8192

# the generic validation CSV's layout_flags cell reads the same flags: a bad
# one skips its row with the flag's own message (fuzz seed of the same rows)
expect_ok validate "$PL_SOURCE_DIR/tests/fuzz/corpus/fuzz_validate_csv/own_layout_flags_finetune.csv"
check "validate: 1 predicted, 7 skipped" grep -q "8 rows, 1 predicted, 7 skipped" "$TMP/out"
check "validate: rank above width skipped" grep -q "1  skipped (22B): layout: --lora-rank 8192 exceeds the model width 6144" "$TMP/out"
check "validate: packed above seq skipped" grep -q "3  skipped (22B): layout: --packed-sample-len 4096 exceeds seq 2048" "$TMP/out"
check "validate: unknown task skipped" grep -q "6  skipped (22B): column 'layout_flags': --task: unknown task 'bogus'" "$TMP/out"

finish
