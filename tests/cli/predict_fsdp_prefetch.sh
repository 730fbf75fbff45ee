#!/usr/bin/env bash
# `--fsdp-prefetch on|off` (docs/step-model.md section 5): on (default) lets a
# unit's gather start two units ahead and hide behind compute; off starts it
# after the previous unit's compute and makes the unit wait for it, a bound
# for runs whose gathers do not overlap. Off exposes communication: the step
# and the exposed time grow, while compute can only shrink (less of it is
# slowed by overlapped collectives); the layout reports it (null without
# zero2/zero3); bad values fail.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }
json_raw() { grep -o "\"$2\": *[a-z]*" "$1" | head -1 | sed 's/.*: *//'; }

# MPT-1b-like scale: a small model on 512 H100s, where the gathers are short
# against a layer's compute but not free
run=(predict --model llama2-7b --gpus 512 --shard zero3 --batch-per-gpu 4 --mbs 4 --format json)
expect_ok "${run[@]}"
cp "$TMP/out" "$TMP/on.json"
check "default: prefetched" [ "$(json_raw "$TMP/on.json" fsdp_prefetch)" = true ]
expect_ok "${run[@]}" --fsdp-prefetch on
check "--fsdp-prefetch on is the default" cmp -s "$TMP/out" "$TMP/on.json"
expect_ok "${run[@]}" --fsdp-prefetch off
cp "$TMP/out" "$TMP/off.json"
check "off is reported" [ "$(json_raw "$TMP/off.json" fsdp_prefetch)" = false ]
check "off: a slower step, more exposed communication, no more compute" awk \
  -v s0="$(json_num "$TMP/on.json" step_time_s)" -v s1="$(json_num "$TMP/off.json" step_time_s)" \
  -v e0="$(json_num "$TMP/on.json" exposed_comm_s)" -v e1="$(json_num "$TMP/off.json" exposed_comm_s)" \
  -v c0="$(json_num "$TMP/on.json" compute_s)" -v c1="$(json_num "$TMP/off.json" compute_s)" \
  'BEGIN { exit !(s1 > s0 * 1.01 && e1 > e0 && c1 <= c0) }'

expect_ok predict --model llama2-7b --gpus 64 --shard zero3 --fsdp-prefetch off
check "text: the layout line says prefetch=off" grep -Eq "^  layout .* shard=zero3 .* prefetch=off$" "$TMP/out"
expect_ok predict --model llama2-7b --gpus 64 --shard zero3
check "text: silent when on" sh -c "! grep -q 'prefetch=' '$TMP/out'"

expect_ok predict --model llama2-7b --gpus 16 --shard zero1 --format json
check "zero1: null" [ "$(json_raw "$TMP/out" fsdp_prefetch)" = null ]

expect_fail 1 "--fsdp-prefetch: unknown value 'maybe' \(expected on\|off\)" -- predict --fsdp-prefetch maybe
finish
