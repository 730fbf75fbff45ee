#!/usr/bin/env bash
# The trainer loop's small host-waited collectives over all GPUs once per step
# (framework behaviours step_sync_all_reduces / _broadcasts / _all_gathers,
# src/sim/step_sync.c; llm-foundry's Composer loop: 8, 1, 4). Each is
# latency-bound and follows the optimizer on the step's critical path, so the
# step grows by exactly their summed collective times, which grow with the
# world size; the JSON and CSV report the counts; bad values fail on one line.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }

echo '{"name": "none", "behaviours": {}}' >"$TMP/none.json"
echo '{"name": "syncs", "behaviours": {"step_sync_all_reduces": 8, "step_sync_broadcasts": 1,
  "step_sync_all_gathers": 4}}' >"$TMP/syncs.json"

# the step's growth against the collectives' own times at G GPUs (dgx-h100):
# 8 all_reduces of 8 B, 1 broadcast of 8 B, 4 all_gathers of 8 B per rank.
# By hand at 512 GPUs (64 nodes; `plateau collectives --gpus 512 --bytes 8`):
# all_reduce tree/LL 75.22 us, broadcast ring/LL 1389.0 us (511 hops),
# all_gather ring/LL 2561.6 us: 8 x 75.22 + 1389.0 + 4 x 2561.6 = 12237 us.
# At 8 GPUs (one node) the same calls cost 0.18 ms.
growth() {
  local g=$1 run=(predict --model llama2-7b --shard zero3 --batch-per-gpu 2 --mbs 2 --format json)
  expect_ok "${run[@]}" --gpus "$g" --framework "$TMP/none.json"
  cp "$TMP/out" "$TMP/none_$g.json"
  expect_ok "${run[@]}" --gpus "$g" --framework "$TMP/syncs.json"
  cp "$TMP/out" "$TMP/syncs_$g.json"
  awk -v a="$(json_num "$TMP/none_$g.json" step_time_s)" \
      -v b="$(json_num "$TMP/syncs_$g.json" step_time_s)" 'BEGIN { printf "%.9f", b - a }'
}
colls() {
  expect_ok collectives --op all_reduce,broadcast,all_gather --gpus "$1" --bytes 8,"$(($1 * 8))" --format csv
  awk -F, -v g="$1" 'NR > 1 && $1 == "all_reduce" && $4 == 8 { t += 8 * $5 }
    NR > 1 && $1 == "broadcast" && $4 == 8 { t += $5 }
    NR > 1 && $1 == "all_gather" && $4 == 8 * g { t += 4 * $5 } END { printf "%.9f", t }' "$TMP/out"
}
d512=$(growth 512)
c512=$(colls 512)
check "512 GPUs: the step grows by the calls' collective times ($d512 s vs $c512 s)" awk \
  -v d="$d512" -v c="$c512" 'BEGIN { exit !(c > 0 && d > c * 0.999 && d < c * 1.001) }'
check "512 GPUs: by hand, 12.24 ms" awk -v d="$d512" 'BEGIN { exit !(d > 0.01220 && d < 0.01228) }'
check "512 GPUs: exposed, not hidden" awk -v a="$(json_num "$TMP/none_512.json" exposed_comm_s)" \
  -v b="$(json_num "$TMP/syncs_512.json" exposed_comm_s)" -v d="$d512" \
  'BEGIN { exit !(b - a > d * 0.999) }'
d8=$(growth 8)
check "8 GPUs: a hundredth of the 512-GPU cost ($d8 s)" awk -v d="$d8" -v e="$d512" \
  'BEGIN { exit !(d > 0 && d < e / 20) }'

# the counts are reported; llm-foundry's preset carries Composer's
expect_ok predict --framework llm-foundry --format json
check "llm-foundry: 8 all_reduces" [ "$(json_num "$TMP/out" step_sync_all_reduces)" = 8 ]
check "llm-foundry: 1 broadcast" [ "$(json_num "$TMP/out" step_sync_broadcasts)" = 1 ]
check "llm-foundry: 4 all_gathers" [ "$(json_num "$TMP/out" step_sync_all_gathers)" = 4 ]
expect_ok predict --format csv
check "default: none (csv)" [ "$(col "$TMP/out" framework.step_sync_all_gathers)" = 0 ]

for bad in -1 65 1.5 '"8"'; do
  echo "{\"name\": \"x\", \"behaviours\": {\"step_sync_broadcasts\": $bad}}" >"$TMP/bad.json"
  expect_fail 1 "behaviour 'step_sync_broadcasts' must be an integer 0\.\.64" -- \
    predict --framework "$TMP/bad.json"
done

# opt_syncs_per_tensor (src/sim/opt_host.c; llm-foundry: 1, Composer's DecoupledAdamW reads each
# tensor's step with .item()): the eager optimizer waits for the host once per parameter tensor of
# the GPU, then issues 8 kernels at host_per_kernel each. By hand, llama2-7b (RMSNorm, fused QKV
# and gate/up: 6 tensors per block, 1 embedding, final norm + untied output 2) under zero3 on 512
# GPUs: a shard holds 1 + T/512 of a unit's T tensors: 32 x 1.01171875 + 1 + 1.00390625 =
# 34.37890625 tensors; per tensor 37 us (sync) + max(8 x 37 us, its 12 us of kernels) = 333 us:
# 34.37890625 x 333 us = 11.448 ms; by bytes alone 0.4 ms.
opt() { echo "{\"name\": \"o\", \"behaviours\": {\"host_per_kernel\": \"$1\", \"fused_kernels\": false,
  \"opt_syncs_per_tensor\": $2}}" >"$TMP/o.json"
  expect_ok predict --model llama2-7b --shard zero3 --batch-per-gpu 2 --mbs 2 --gpus 512 \
    --framework "$TMP/o.json" --format json
  json_num "$TMP/out" optimizer_s; }
o1=$(opt "37 us" 1)
o0=$(opt "37 us" 0)
check "optimizer host-bound: 11.448 ms by hand ($o1 s)" awk -v o="$o1" 'BEGIN { exit !(o > 0.011437 && o < 0.011460) }'
check "optimizer by bytes without the syncs ($o0 s)" awk -v o="$o0" 'BEGIN { exit !(o > 0 && o < 0.001) }'
check "no host time per kernel: no floor" [ "$(opt "0 us" 1)" = "$o0" ]
expect_ok predict --framework llm-foundry --format json
check "llm-foundry: 1 sync per tensor" [ "$(json_num "$TMP/out" opt_syncs_per_tensor)" = 1 ]
for bad in -1 5 '"1"'; do
  echo "{\"name\": \"x\", \"behaviours\": {\"opt_syncs_per_tensor\": $bad}}" >"$TMP/bad.json"
  expect_fail 1 "behaviour 'opt_syncs_per_tensor' must be an integer 0\.\.4" -- predict --framework "$TMP/bad.json"
done
finish
