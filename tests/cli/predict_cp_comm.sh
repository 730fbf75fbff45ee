#!/usr/bin/env bash
# Context parallelism's exchange (--cp-comm-type p2p|all_gather|a2a|a2a+p2p,
# --cp-a2a-size; Megatron-Core cp_comm_type over Transformer Engine's
# context_parallel.py; src/sim/segments.c layer_cp, lower_unit.c cp_exposed,
# docs/step-model.md "context parallelism"): p2p, the default, is the ring of
# send/recv pairs hidden behind the attention steps; all_gather all_gathers K
# and V and reduce_scatters dK and dV, exposed; a2a swaps Q, K, V and O
# between sequence and heads with all_to_all, exposed; a2a+p2p runs the a2a
# over --cp-a2a-size ranks and the ring across. JSON and CSV, bad values.
. "$(dirname "$0")/lib.sh"

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { python3 -c "import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))[sys.argv[2]])" "$1" "$2"; }
# coll FILE GROUP OP FIELD: a collective's field from predict's JSON, or "none"
coll() { python3 -c "
import json,sys
d=json.load(open(sys.argv[1]))
c=[c for c in d['collectives'] if c['group']==sys.argv[2] and c['op']==sys.argv[3]]
print(c[0][sys.argv[4]] if c else 'none')" "$1" "$2" "$3" "$4"; }
same() { [ "$1" = "$2" ]; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b * (1 - 1e-9)) }'; }

run=(predict --model llama3-8b --gpu h100 --gpus 16 --tp 2 --cp 4 --seq 65536 --gbs 16 --format json)
expect_ok "${run[@]}"; cp "$TMP/out" "$TMP/default.json"
check "default: p2p in JSON" same "$(j "$TMP/out" "['layout']['cp_comm_type']")" p2p
check "default: no a2a size" same "$(j "$TMP/out" "['layout']['cp_a2a_size']")" 0
check "default: the ring's send/recv" [ "$(coll "$TMP/out" cp send_recv count)" != none ]
expect_ok "${run[@]}" --cp-comm-type p2p
check "p2p: the default step" same "$(j "$TMP/out" "['step_time_s']")" "$(j "$TMP/default.json" "['step_time_s']")"

expect_ok "${run[@]}" --cp-comm-type all_gather; cp "$TMP/out" "$TMP/ag.json"
check "all_gather: in JSON" same "$(j "$TMP/out" "['layout']['cp_comm_type']")" all_gather
check "all_gather: no send/recv" same "$(coll "$TMP/out" cp send_recv count)" none
check "all_gather: K/V all_gathered" [ "$(coll "$TMP/out" cp all_gather count)" != none ]
check "all_gather: dK/dV reduce_scattered" [ "$(coll "$TMP/out" cp reduce_scatter count)" != none ]
check "all_gather: the gathers exposed" ge "$(coll "$TMP/out" cp all_gather exposed_s)" "$(coll "$TMP/out" cp all_gather time_s)"
check "all_gather: more exposed comm than p2p" ge "$(j "$TMP/out" "['breakdown']['exposed_comm_s']")" "$(j "$TMP/default.json" "['breakdown']['exposed_comm_s']")"

expect_ok "${run[@]}" --cp-comm-type a2a; cp "$TMP/out" "$TMP/a2a.json"
check "a2a: in JSON" same "$(j "$TMP/out" "['layout']['cp_comm_type']")" a2a
check "a2a: all_to_all over cp" [ "$(coll "$TMP/out" cp all_to_all count)" != none ]
check "a2a: no send/recv" same "$(coll "$TMP/out" cp send_recv count)" none
check "a2a: the all_to_alls exposed" ge "$(coll "$TMP/out" cp all_to_all exposed_s)" "$(coll "$TMP/out" cp all_to_all time_s)"
check "a2a: same model FLOPs" same "$(j "$TMP/out" "['flops']['model_per_step']")" "$(j "$TMP/default.json" "['flops']['model_per_step']")"

expect_ok "${run[@]}" --cp-comm-type a2a+p2p --cp-a2a-size 2
check "a2a+p2p: in JSON" same "$(j "$TMP/out" "['layout']['cp_comm_type']")" a2a+p2p
check "a2a+p2p: a2a size in JSON" same "$(j "$TMP/out" "['layout']['cp_a2a_size']")" 2
check "a2a+p2p: all_to_all over the a2a group" [ "$(coll "$TMP/out" cp-a2a all_to_all count)" != none ]
check "a2a+p2p: the ring across" [ "$(coll "$TMP/out" cp-ring send_recv count)" != none ]

expect_ok predict --model llama3-8b --gpu h100 --gpus 16 --tp 2 --cp 4 --seq 65536 --gbs 16 --cp-comm-type a2a+p2p --cp-a2a-size 2
check "text: the exchange under layout" grep -q "cp exchange=a2a+p2p (a2a over 2, ring over 2)" "$TMP/out"
expect_ok predict --model llama3-8b --gpu h100 --gpus 16 --tp 2 --cp 4 --seq 65536 --gbs 16
check "text: p2p unsaid" [ "$(grep -c "cp exchange" "$TMP/out")" = 0 ]

csv=(predict --model llama3-8b --gpu h100 --gpus 16 --tp 2 --cp 4 --seq 65536 --gbs 16 --format csv)
expect_ok "${csv[@]}" --cp-comm-type a2a+p2p --cp-a2a-size 2
check "csv: cp_comm_type column" same "$(col "$TMP/out" layout.cp_comm_type)" a2a+p2p
check "csv: cp_a2a_size column" same "$(col "$TMP/out" layout.cp_a2a_size)" 2
expect_ok "${csv[@]}"
check "csv: p2p by default" same "$(col "$TMP/out" layout.cp_comm_type)" p2p

# no effect without cp
one=(predict --model llama3-8b --gpu h100 --gpus 8 --gbs 8 --format json)
expect_ok "${one[@]}"; cp "$TMP/out" "$TMP/cp1.json"
expect_ok "${one[@]}" --cp-comm-type all_gather
check "cp 1: all_gather changes nothing" same "$(j "$TMP/out" "['step_time_s']")" "$(j "$TMP/cp1.json" "['step_time_s']")"

# bad values: one line, non-zero exit
base=(predict --model llama3-8b --gpu h100 --gpus 16 --tp 2 --cp 4 --seq 65536)
expect_fail 1 "^plateau: --cp-comm-type: unknown cp comm type 'ring' \(expected p2p\|all_gather\|a2a\|a2a\+p2p\)" -- "${base[@]}" --cp-comm-type ring
expect_fail 1 "^plateau: --cp-comm-type: unknown cp comm type ''" -- "${base[@]}" --cp-comm-type ''
expect_fail 1 "^plateau: layout: the cp a2a over 8 ranks must divide the heads per tp rank \(16 query, 4 key/value\)" -- predict --model llama3-8b --gpu h100 --gpus 16 --tp 2 --cp 8 --seq 65536 --cp-comm-type a2a
expect_fail 1 "^plateau: layout: --cp-a2a-size needs --cp-comm-type a2a\+p2p" -- "${base[@]}" --cp-a2a-size 2
expect_fail 1 "^plateau: layout cp=4: --cp-comm-type a2a\+p2p needs --cp-a2a-size dividing cp" -- "${base[@]}" --cp-comm-type a2a+p2p
expect_fail 1 "^plateau: layout cp=4: --cp-comm-type a2a\+p2p needs --cp-a2a-size dividing cp" -- "${base[@]}" --cp-comm-type a2a+p2p --cp-a2a-size 3
expect_fail 1 "^plateau: --cp-a2a-size: " -- "${base[@]}" --cp-comm-type a2a+p2p --cp-a2a-size two
expect_fail 1 "give --cp-allgather off" -- "${base[@]}" --cp-comm-type all_gather --framework torchtitan
expect_ok "${base[@]}" --cp-comm-type all_gather --framework torchtitan --cp-allgather off
finish
