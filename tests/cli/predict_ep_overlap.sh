#!/usr/bin/env bash
# --ep-comm-overlap (Megatron-Core --overlap-moe-expert-parallel-comm, src/sim/lower.c
# ep_beside): an MoE step whose expert-parallel all-to-alls cross nodes gets faster and
# exposes less communication with it, more of it overlapped; the behaviour appears in JSON
# and CSV; a dense step cannot take it; Megatron-Core's conditions are refused on one line
# with a non-zero exit.
. "$(dirname "$0")/lib.sh"

jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

moe=(predict --model qwen3-30b-a3b --gpus 16 --ep 16 --gbs 32 --shard zero1)

expect_ok "${moe[@]}" --format json
cp "$TMP/out" "$TMP/off.json"
check "off by default" [ "$(jget "$TMP/off.json" "['framework']['ep_comm_overlap']")" = False ]
expect_ok "${moe[@]}" --ep-comm-overlap on --format json
cp "$TMP/out" "$TMP/on.json"
check "on in JSON" [ "$(jget "$TMP/on.json" "['framework']['ep_comm_overlap']")" = True ]
check "faster step" lt "$(jget "$TMP/on.json" "['step_time_s']")" "$(jget "$TMP/off.json" "['step_time_s']")"
check "less exposed communication" lt "$(jget "$TMP/on.json" "['breakdown']['exposed_comm_s']")" \
  "$(jget "$TMP/off.json" "['breakdown']['exposed_comm_s']")"
check "more overlapped communication" lt "$(jget "$TMP/off.json" "['breakdown']['overlapped_comm_s']")" \
  "$(jget "$TMP/on.json" "['breakdown']['overlapped_comm_s']")"
# the same FLOPs: only the schedule of the all-to-alls changes
check "same FLOPs" [ "$(jget "$TMP/on.json" "['flops']['model_per_step']")" = "$(jget "$TMP/off.json" "['flops']['model_per_step']")" ]
# With TE userbuffers' tp overlap (the nemo preset: tp_comm_overlap, here tp 2
# with sp) the expert-parallel all_to_all stays blocking: userbuffers overlap TE's
# linear layers' tp collectives only (src/sim/lower_unit.c sim_emit_unit); only
# --ep-comm-overlap on hides it
tpo=(predict --model qwen3-30b-a3b --gpus 16 --tp 2 --ep 8 --gbs 32 --shard zero1 --framework nemo --format json)
expect_ok "${tpo[@]}"; cp "$TMP/out" "$TMP/tpo_off.json"
expect_ok "${tpo[@]}" --ep-comm-overlap on; cp "$TMP/out" "$TMP/tpo_on.json"
check "tp overlap: the all_to_all is exposed without ep overlap" python3 -c "
import json; c = [x for x in json.load(open('$TMP/tpo_off.json'))['collectives'] if x['op'] == 'all_to_all'][0]
assert c['time_s'] > 0 and c['exposed_s'] > 0.9 * c['time_s'], c"
check "tp overlap: ep overlap hides it" python3 -c "
import json; c = [x for x in json.load(open('$TMP/tpo_on.json'))['collectives'] if x['op'] == 'all_to_all'][0]
assert c['exposed_s'] < 0.5 * c['time_s'], c"
check "tp overlap: ep overlap faster" lt "$(jget "$TMP/tpo_on.json" "['step_time_s']")" "$(jget "$TMP/tpo_off.json" "['step_time_s']")"
expect_ok "${moe[@]}" --ep-comm-overlap on --format csv
check "on in CSV" [ "$(col "$TMP/out" framework.ep_comm_overlap)" = on ]
expect_ok "${moe[@]}" --format csv
check "off in CSV" [ "$(col "$TMP/out" framework.ep_comm_overlap)" = off ]
# with pp > 1 it needs a virtual pipeline; with one it runs
expect_ok predict --model qwen3-30b-a3b --gpus 16 --ep 8 --pp 2 --vp 2 --gbs 32 --ep-comm-overlap on --format json
check "pp 2 vp 2 runs" [ "$(jget "$TMP/out" "['framework']['ep_comm_overlap']")" = True ]

# bad values and Megatron-Core's conditions (transformer_config.py __post_init__)
expect_fail 1 "^plateau: --ep-comm-overlap: unknown value 'yes' \(expected on\|off\)" -- "${moe[@]}" --ep-comm-overlap yes
expect_fail 1 "ep comm overlap needs a mixture-of-experts model" -- predict --model llama2-7b --gpus 8 --ep-comm-overlap on
expect_fail 1 "ep comm overlap needs expert parallelism \(ep > 1\)" -- predict --model qwen3-30b-a3b --gpus 8 --ep-comm-overlap on
expect_fail 1 "ep comm overlap needs the alltoall or deepep dispatcher" -- "${moe[@]}" --moe-dispatch allgather --ep-comm-overlap on
expect_fail 1 "ep comm overlap cannot run with full recomputation" -- "${moe[@]}" --recompute full --ep-comm-overlap on
expect_fail 1 "ep comm overlap needs a virtual pipeline \(vp > 1\) when pp > 1" -- predict --model qwen3-30b-a3b --gpus 16 --ep 8 --pp 2 --gbs 32 --ep-comm-overlap on

# --delay-wgrad (Megatron-Core delay_wgrad_compute, lower_unit.c ep_delay_wgrad): off by
# default; with the overlap it moves the backward's delayed wgrad GEMMs beside the partner
# forward's windows (same FLOPs); refused without the overlap (transformer_config.py
# "overlap_moe_expert_parallel_comm must be enabled when enabling delay_wgrad_compute")
check "delay wgrad: off by default" [ "$(jget "$TMP/on.json" "['framework']['delay_wgrad_compute']")" = False ]
expect_ok "${moe[@]}" --ep-comm-overlap on --delay-wgrad on --format json
cp "$TMP/out" "$TMP/dw.json"
check "delay wgrad: on in JSON" [ "$(jget "$TMP/dw.json" "['framework']['delay_wgrad_compute']")" = True ]
check "delay wgrad: same FLOPs" [ "$(jget "$TMP/dw.json" "['flops']['model_per_step']")" = "$(jget "$TMP/on.json" "['flops']['model_per_step']")" ]
check "delay wgrad: the step moves" [ "$(jget "$TMP/dw.json" "['step_time_s']")" != "$(jget "$TMP/on.json" "['step_time_s']")" ]
expect_ok "${moe[@]}" --ep-comm-overlap on --delay-wgrad on --format csv
check "delay wgrad: on in CSV" [ "$(col "$TMP/out" framework.delay_wgrad_compute)" = on ]
expect_fail 1 "^plateau: --delay-wgrad: unknown value 'yes' \(expected on\|off\)" -- "${moe[@]}" --ep-comm-overlap on --delay-wgrad yes
expect_fail 1 "delay wgrad needs the ep comm overlap" -- "${moe[@]}" --delay-wgrad on
expect_fail 1 "delay wgrad needs the ep comm overlap" -- predict --model llama2-7b --gpus 8 --delay-wgrad on

finish
