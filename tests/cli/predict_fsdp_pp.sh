#!/usr/bin/env bash
# `--fsdp-pp-unsharded on|off` (docs/step-model.md section 5): FSDP combined
# with pipelining as torchtitan runs it (apply_fsdp: reshard_after_forward
# False with pp; PyTorch pipelining stage.py backward_maybe_with_nosync: no
# gradient sync until the last backward). On: each stage gathers its units
# once per step (stage 0 of Llama-2 7B on pp 4: 8 blocks + the embedding = 9
# all_gathers and 9 reduce_scatters instead of per micro-batch ones), and it
# holds the whole stage's bf16 parameters and fp32 gradients (6 B per
# parameter, docs/model.md). The torchtitan preset turns it on; the flag
# overrides the preset; it does nothing with pp = 1; it is in JSON and CSV;
# bad values fail.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }
json_raw() { grep -o "\"$2\": *[a-z]*" "$1" | head -1 | sed 's/.*: *//'; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
# calls of the dp collective OP in the JSON's collectives list
dp_calls() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(c["count"] for c in d["collectives"] if c["group"]=="dp" and c["op"]==sys.argv[2]))' "$1" "$2"
}

run=(predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --shard zero3 --format json)
expect_ok "${run[@]}"
cp "$TMP/out" "$TMP/off.json"
check "default: off" [ "$(json_raw "$TMP/off.json" fsdp_pp_unsharded)" = false ]
expect_ok "${run[@]}" --fsdp-pp-unsharded off
check "--fsdp-pp-unsharded off is the default" cmp -s "$TMP/out" "$TMP/off.json"
expect_ok "${run[@]}" --fsdp-pp-unsharded on
cp "$TMP/out" "$TMP/on.json"
check "on is reported" [ "$(json_raw "$TMP/on.json" fsdp_pp_unsharded)" = true ]
check "off: gathers per micro-batch (more than 9)" [ "$(dp_calls "$TMP/off.json" all_gather)" -gt 9 ]
check "on: 9 all_gathers per step on stage 0" [ "$(dp_calls "$TMP/on.json" all_gather)" -eq 9 ]
check "on: 9 reduce_scatters per step on stage 0" [ "$(dp_calls "$TMP/on.json" reduce_scatter)" -eq 9 ]
# 6 B x 1,750,138,880 stage-0 parameters (tests/unit/test_memory.c) replace
# 8 B x one block (202,383,360), plus 5 % fragmentation: +9.33e9 B at least
check "on: the stage's unsharded parameters and gradients in memory" awk \
  -v t0="$(json_num "$TMP/off.json" total_bytes)" -v t1="$(json_num "$TMP/on.json" total_bytes)" \
  'BEGIN { exit !(t1 - t0 > 9.3e9 && t1 - t0 < 9.4e9) }'
check "on: faster (fewer gathers)" awk \
  -v s0="$(json_num "$TMP/off.json" step_time_s)" -v s1="$(json_num "$TMP/on.json" step_time_s)" \
  'BEGIN { exit !(s1 < s0) }'

# torchtitan's preset turns it on; the flag overrides the preset
expect_ok "${run[@]}" --framework torchtitan
check "torchtitan: on" [ "$(json_raw "$TMP/out" fsdp_pp_unsharded)" = true ]
expect_ok "${run[@]}" --framework torchtitan --fsdp-pp-unsharded off
check "torchtitan --fsdp-pp-unsharded off: off" [ "$(json_raw "$TMP/out" fsdp_pp_unsharded)" = false ]

# pp = 1: nothing changes but the reported setting
expect_ok predict --model llama2-7b --gpus 16 --gbs 64 --shard zero3 --format json
s0=$(json_num "$TMP/out" step_time_s); t0=$(json_num "$TMP/out" total_bytes)
expect_ok predict --model llama2-7b --gpus 16 --gbs 64 --shard zero3 --format json --fsdp-pp-unsharded on
check "pp 1: same step" [ "$(json_num "$TMP/out" step_time_s)" = "$s0" ]
check "pp 1: same memory" [ "$(json_num "$TMP/out" total_bytes)" = "$t0" ]

expect_ok predict --model llama2-7b --gpus 16 --pp 4 --gbs 64 --shard zero3 --fsdp-pp-unsharded on --format csv
check "csv: framework.fsdp_pp_unsharded on" [ "$(col "$TMP/out" framework.fsdp_pp_unsharded)" = on ]

expect_fail 1 "^plateau: --fsdp-pp-unsharded: unknown value 'yes' \(expected on\|off\)" -- predict --fsdp-pp-unsharded yes
expect_fail 1 "^plateau: --fsdp-pp-unsharded: unknown value '' \(expected on\|off\)" -- predict --fsdp-pp-unsharded ""
printf '{"name": "x", "behaviours": {"fsdp_pp_unsharded": 1}}\n' >"$TMP/bad.json"
expect_fail 1 "behaviour 'fsdp_pp_unsharded' must be true or false" -- predict --framework "$TMP/bad.json"
finish
