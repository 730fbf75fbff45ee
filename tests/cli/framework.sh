#!/usr/bin/env bash
# Frameworks as an input (docs/frameworks.md): `plateau list frameworks`, the
# presets, --framework on every command that predicts, each behaviour's own
# flag overriding the preset, the resolved behaviours in JSON and CSV, and
# the mechanisms the new flags switch on (each must move the step the way its
# framework code says), with bad values failing on one line.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }
json_raw() { grep -o "\"$2\": *[a-z0-9\"-]*" "$1" | head -1 | sed 's/.*: *//; s/"//g'; }
fw_obj() { sed -n '/"framework": {/,/}/p' "$1"; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
# faster A B: B's step time is below A's; both must have one (a run that does not fit prints
# "step_time_s": null, and two empty values would compare as true)
faster() {
  local a b
  a=$(json_num "$1" step_time_s) b=$(json_num "$2" step_time_s)
  [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(b < a * 0.999) }'
}
# onoff_refused FLAG KEY: an on|off behaviour refuses 'yes' and '' on the command line
# and a string in a framework file, each on one line
onoff_refused() {
  expect_fail 1 "^plateau: --$1: unknown value 'yes' \(expected on\|off\)" -- predict --"$1" yes
  expect_fail 1 "^plateau: --$1: unknown value '' \(expected on\|off\)" -- predict --"$1" ''
  echo "{\"name\": \"x\", \"behaviours\": {\"$2\": \"on\"}}" >"$TMP/bad_$2.json"
  expect_fail 1 "behaviour '$2' must be true or false" -- predict --framework "$TMP/bad_$2.json"
}


# on_by_default_off_slower FLAG JSON_KEY NAME ARGS...: FLAG on by default (JSON
# JSON_KEY true), off reported in JSON and as CSV column framework.JSON_KEY,
# off slower than on, and 'maybe' a usage error.
on_by_default_off_slower() {
  local flag=$1 key=$2 name=$3
  shift 3
  expect_ok predict "$@" --format json
  cp "$TMP/out" "$TMP/${key}_on.json"
  check "$name: on by default" [ "$(json_raw "$TMP/out" "$key")" = true ]
  expect_ok predict "$@" --"$flag" off --format json
  check "$name: off in JSON" [ "$(json_raw "$TMP/out" "$key")" = false ]
  check "$name: slower off" faster "$TMP/out" "$TMP/${key}_on.json"
  expect_ok predict "$@" --"$flag" off --format csv
  check "$name: csv column off" [ "$(col "$TMP/out" "framework.$key")" = off ]
  expect_fail 1 "^plateau: --$flag: unknown value 'maybe' \(expected on\|off\)" -- predict --"$flag" maybe
}

# list: every preset with its description, in three formats
expect_ok list frameworks
for f in megatron-lm megatron-core nemo nemo-2024 nemo-25-11 torchtitan pytorch-fsdp fms-fsdp fms-fsdp-2024-03 llm-foundry deepspeed deepspeed-zero3-2021; do
  check "list names $f" grep -q "^  $f " "$TMP/out"
done
expect_ok list frameworks --format csv
check "list csv header" [ "$(head -1 "$TMP/out")" = "name,description" ]
expect_ok list frameworks --format json
check "list json" grep -q '"frameworks"' "$TMP/out"
expect_fail 1 "unknown kind 'framework' \(expected models, gpus, clusters or frameworks\)" -- list framework

# no framework: the JSON says so and every behaviour is plateau's default
expect_ok predict --format json
fw_obj "$TMP/out" >"$TMP/fw0"
check "default: framework name null" grep -q '"name": null' "$TMP/fw0"
check "default: tp_comm_overlap false" [ "$(json_raw "$TMP/out" tp_comm_overlap)" = false ]

# each preset loads and names itself in JSON and CSV
for f in megatron-lm megatron-core nemo nemo-2024 nemo-25-11 torchtitan pytorch-fsdp fms-fsdp fms-fsdp-2024-03 llm-foundry deepspeed deepspeed-zero3-2021; do
  expect_ok predict --framework "$f" --format csv
  check "$f: csv framework.name" [ "$(col "$TMP/out" framework.name)" = "$f" ]
done
expect_ok predict --framework nemo --format json
check "nemo: zero1 by default" [ "$(json_raw "$TMP/out" shard)" = zero1 ]
check "nemo: tp_comm_overlap" [ "$(json_raw "$TMP/out" tp_comm_overlap)" = true ]
check "nemo: grad_reduce_fp32 false" [ "$(json_raw "$TMP/out" grad_reduce_fp32)" = false ]
expect_ok predict --framework megatron-lm --format json
check "megatron-lm: ddp" [ "$(json_raw "$TMP/out" shard)" = ddp ]
check "megatron-lm: eager attention" [ "$(json_raw "$TMP/out" attention)" = eager ]
expect_ok predict --framework torchtitan --format csv
check "torchtitan: zero3" [ "$(col "$TMP/out" layout.shard)" = zero3 ]
check "torchtitan: unfused kernels" [ "$(col "$TMP/out" framework.fused_kernels)" = off ]

# a flag overrides the preset; --shard overrides the preset's sharding
expect_ok predict --framework nemo --tp-comm-overlap off --shard zero2 --format csv
check "override: tp_comm_overlap off" [ "$(col "$TMP/out" framework.tp_comm_overlap)" = off ]
check "override: shard zero2" [ "$(col "$TMP/out" layout.shard)" = zero2 ]
check "override: the rest of the preset kept" [ "$(col "$TMP/out" framework.overlap_param_gather)" = on ]

# a framework file: any behaviour subset, sources optional
cat >"$TMP/fw.json" <<'EOF'
{"name": "mine", "description": "test", "behaviours": {"tp_comm_overlap": {"value": true, "source": "test"}, "attention": "eager"}}
EOF
expect_ok predict --framework "$TMP/fw.json" --format csv
check "file: name" [ "$(col "$TMP/out" framework.name)" = mine ]
check "file: behaviour" [ "$(col "$TMP/out" framework.attention)" = eager ]
echo '{"name": "x", "behaviours": {"tp_overlap": true}}' >"$TMP/bad1.json"
expect_fail 1 "^plateau: --framework: framework file '.*bad1.json': unknown behaviour 'tp_overlap'" -- predict --framework "$TMP/bad1.json"
echo '{"name": "x", "behaviours": {"tp_comm_overlap": "yes"}}' >"$TMP/bad2.json"
expect_fail 1 "behaviour 'tp_comm_overlap' must be true or false" -- predict --framework "$TMP/bad2.json"
echo '{"behaviours": {}}' >"$TMP/bad3.json"
expect_fail 1 "field 'name'" -- predict --framework "$TMP/bad3.json"
expect_fail 1 "^plateau: --framework: unknown framework 'megatron' \(presets: deepspeed-zero3-2021, deepspeed, " -- predict --framework megatron

# --- mechanisms ---------------------------------------------------------
# Transformer Engine userbuffers: tp all_gather/reduce_scatter beside the GEMMs
tp=(predict --model llama2-13b --gpus 16 --tp 8 --shard zero1 --batch-per-gpu 4 --mbs 1 --format json)
expect_ok "${tp[@]}" --tp-comm-overlap off
cp "$TMP/out" "$TMP/tp0.json"
expect_ok "${tp[@]}"
check "--tp-comm-overlap off is the default" cmp -s "$TMP/out" "$TMP/tp0.json"
expect_ok "${tp[@]}" --tp-comm-overlap on
cp "$TMP/out" "$TMP/tp1.json"
check "tp overlap: faster step" faster "$TMP/tp0.json" "$TMP/tp1.json"
check "tp overlap: less exposed communication" awk -v a="$(json_num "$TMP/tp0.json" exposed_comm_s)" \
  -v b="$(json_num "$TMP/tp1.json" exposed_comm_s)" 'BEGIN { exit !(b < a) }'
expect_ok "${tp[@]}" --sequence-parallel off
cp "$TMP/out" "$TMP/sp0.json"
expect_ok "${tp[@]}" --tp-comm-overlap on --sequence-parallel off
check "tp overlap needs sequence parallelism: no step change without it" \
  [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/sp0.json" step_time_s)" ]

# Megatron-Core distributed optimizer: parameter all_gather overlapped with the next forward
pg=(predict --model llama2-13b --gpus 64 --tp 2 --shard zero1 --batch-per-gpu 1 --format json)
expect_ok "${pg[@]}"
cp "$TMP/out" "$TMP/pg0.json"
expect_ok "${pg[@]}" --overlap-param-gather on
check "param gather overlap: faster step" faster "$TMP/pg0.json" "$TMP/out"
expect_ok predict --model llama2-13b --gpus 64 --tp 2 --shard zero1 --batch-per-gpu 1 --overlap-grad-reduce off --format json
check "grad reduce after backward: slower" faster "$TMP/out" "$TMP/pg0.json"

# gradient reduction in bf16 halves the data-parallel reduce_scatter's bytes:
# half as many 25 MiB buckets (13B / tp 2 x 4 B = 994 buckets in fp32)
rs_calls() { awk '$1 == "reduce_scatter" && $2 == "dp" { print $3 }' "$TMP/out"; }
expect_ok predict --model llama2-13b --gpus 64 --tp 2 --shard zero1
check "fp32 grads: 994 bucket reduce_scatters" [ "$(rs_calls)" = 994 ]
expect_ok predict --model llama2-13b --gpus 64 --tp 2 --shard zero1 --grad-reduce-dtype bf16
check "bf16 grads: 497" [ "$(rs_calls)" = 497 ]
# and the bf16 gradient buffer holds half the bytes (13.0 B / tp 2 x 2 B = 12.1 GiB, not 24.2)
check "bf16 grads: gradient memory halves" grep -Eq "^  gradients +12\.1[0-9] GiB" "$TMP/out"
# zero3: each unit's reduce_scatter moves its gradients at 4 B (fp32) or 2 B (bf16) per element,
# twice or once the bytes of its 2 B all_gather (FSDP MixedPrecision reduce_dtype; DeepSpeed fp16 ZeRO-3)
coll_size() { awk -v op="$1" '$1 == op && $2 == "dp" { print $4 " " $5 }' "$TMP/out"; }
expect_ok predict --model llama2-7b --gpus 16 --shard zero3
check "zero3 fp32 grads: reduce_scatter 756.03 MiB" [ "$(coll_size reduce_scatter)" = "756.03 MiB" ]
check "zero3 fp32 grads: all_gather 378.01 MiB" [ "$(coll_size all_gather)" = "378.01 MiB" ]
expect_ok predict --model llama2-7b --gpus 16 --shard zero3 --grad-reduce-dtype bf16
check "zero3 bf16 grads: reduce_scatter 378.01 MiB" [ "$(coll_size reduce_scatter)" = "378.01 MiB" ]
expect_ok predict --model llama2-7b --gpus 16 --shard zero3 --framework deepspeed-zero3-2021 --format json
check "deepspeed-zero3-2021: fp16 gradient reduction" grep -q "\"grad_reduce_fp32\": false" "$TMP/out"

# interleaved pipeline: asynchronous p2p is never slower
ip=(predict --model llama2-13b --gpus 32 --tp 2 --pp 4 --vp 2 --schedule interleaved --gbs 64 --shard zero1 --format json)
expect_ok "${ip[@]}"
cp "$TMP/out" "$TMP/ip0.json"
expect_ok "${ip[@]}" --overlap-p2p on
check "overlap p2p: faster step" faster "$TMP/ip0.json" "$TMP/out"

# DeepSpeed's pipeline exchange (--p2p-serial, lower_p2p.c sim_p2p_emit_serial),
# derived by hand for 2 stages, tp 1, m = 64 / 8 = 8 micro-batches of
# 1 x 2048 tokens (llama2-7b, hidden 4096: F = 2048 x 4096 x 2 B = 16,777,216 B
# per send). Megatron's batched send/recv moves a boundary's activation and
# gradient at once; DeepSpeed's TrainSchedule one after the other, each
# waiting for both stages: a 2-stage 1F1B step gets m - 1 = 7 more transfer
# times T (T = the send_recv's time per call). Stage 1 also clones what it
# receives twice per forward (engine.py _exec_recv_activations and
# _exec_forward_pass: 2 F each read and written), on the step's path for every
# micro-batch: 8 x (4 F / (2039 GB/s x 0.88) + 1.2 us) = 8 x 38.60 us
# = 0.3088 ms. At T = 5.5479 ms / 8 = 0.69349 ms: 4.8544 + 0.3088 = 5.163 ms.
pp2=(predict --model llama2-7b --gpus 16 --tp 1 --pp 2 --gbs 64 --seq 2048 --recompute full --shard ddp --cluster dgx-a100 --format json)
expect_ok "${pp2[@]}" --p2p-serial off
cp "$TMP/out" "$TMP/pp2off.json"
expect_ok "${pp2[@]}" --p2p-serial on
check "p2p-serial on in JSON" grep -q '"p2p_serial": true' "$TMP/out"
check "p2p-serial off in JSON" grep -q '"p2p_serial": false' "$TMP/pp2off.json"
check "p2p-serial: the step grows by 7 T + 8 clones (hand-derived)" python3 - "$TMP/pp2off.json" "$TMP/out" <<'PY'
import json, sys
off, on = (json.load(open(f)) for f in sys.argv[1:3])
sr = [c for c in on["collectives"] if c["op"] == "send_recv"][0]
t = sr["time_s"] / sr["count"]
clones = 8 * (4 * 16777216 / (2039e9 * 0.88) + 1.2e-6)
want = 7 * t + clones
got = on["step_time_s"] - off["step_time_s"]
sys.exit(0 if abs(got - want) <= 0.01 * want else 1)
PY
expect_ok predict --model llama2-13b --gpus 16 --pp 2 --gbs 64 --shard ddp --framework deepspeed --format csv
check "deepspeed preset: p2p_serial on in CSV" [ "$(col "$TMP/out" framework.p2p_serial)" = on ]
expect_fail 1 "^plateau: --p2p-serial: unknown value 'maybe' \(expected on\|off\)" -- predict --p2p-serial maybe

# Megatron-LM's scatter/gather of pipeline tensors (--p2p-scatter-gather,
# lower_p2p.c sg_pass_extras; megatron/p2p_communication.py _communicate, v2.5-
# v3.0), derived by hand for 2 stages, tp 2, m = 8 micro-batches of 1 x 2048
# tokens (llama2-7b, hidden 4096: F = 2048 x 4096 x 2 B = 16,777,216 B).
# Every received tensor is rebuilt by an all_gather over tp (time t per call,
# read from the JSON) and c10d's copy of the flat result into the chunk list
# (2 F bytes: c = 2 F / (2039 GB/s x 0.88) + 1.2 us = 19.90 us). Stage 1 (the
# head's, the slower) gathers each forward's activation and runs without
# waiting: its m forwards grow by g = t + c each; stage 0 gathers each
# backward's gradient, of which only the last is on the step's path after
# stage 1 ends: the step grows by (m + 1) g = 9 g (t = 48.27 us: 0.6136 ms;
# 8 g or 10 g are 11 % off). Off, each tp rank sends the whole F (no SP:
# Megatron's get_tensor_shapes splits the sequence only with sequence
# parallelism), on F / tp: the same m + 1 = 9 sends on the step's path (stage
# 0's first forward send, each of stage 1's gradient sends, which its next
# pass waits for) each get shorter by T_off - T_on (read from the JSON): the
# step changes by 9 (g - (T_off - T_on)) = 0.2853 ms.
sg=(predict --model llama2-7b --gpus 4 --tp 2 --pp 2 --gbs 8 --seq 2048 --recompute full --shard ddp --cluster dgx-a100 --framework megatron-lm --format json)
expect_ok "${sg[@]}" --p2p-scatter-gather off
cp "$TMP/out" "$TMP/sgoff.json"
check "p2p-scatter-gather off in JSON" grep -q '"p2p_scatter_gather": false' "$TMP/sgoff.json"
expect_ok "${sg[@]}"
check "megatron-lm preset: p2p_scatter_gather on in JSON" grep -q '"p2p_scatter_gather": true' "$TMP/out"
check "p2p-scatter-gather: the step grows by (m + 1) (all_gather + copy) (hand-derived)" python3 - "$TMP/sgoff.json" "$TMP/out" <<'PY'
import json, sys
off, on = (json.load(open(f)) for f in sys.argv[1:3])
ag = [c for c in on["collectives"] if c["op"] == "all_gather" and c["group"] == "tp"]
if len(ag) != 1 or ag[0]["count"] != 8 or any(c["op"] == "all_gather" for c in off["collectives"]):
    sys.exit(1)
g = ag[0]["time_s"] / ag[0]["count"] + 2 * 16777216 / (2039e9 * 0.88) + 1.2e-6
sr = [[c for c in d["collectives"] if c["op"] == "send_recv"][0] for d in (off, on)]
if sr[0]["bytes"] != 16777216 or sr[1]["bytes"] != 16777216 / 2:
    sys.exit(1)
dt = sr[0]["time_s"] / sr[0]["count"] - sr[1]["time_s"] / sr[1]["count"]
want = 9 * (g - dt)
got = on["step_time_s"] - off["step_time_s"]
sys.exit(0 if abs(got - want) <= 0.01 * want else 1)
PY
# --grad-comm-cast (DeepSpeed's allreduce_bucket casts the fp32 gradients to its
# default communication_data_type, bf16 under bf16, for the dp all_reduce and
# copies them back; _exec_reduce_tied_grads all_reduces the fp32 _hp_grad as it
# is): on in the deepspeed preset, off in megatron-lm. GPT-3 175B, tp 8 pp 16
# dp 2: one rank's stage holds P gradient elements; the dp all_reduce moves
# 2 P bytes with the cast and 4 P without (same bucket bytes: ceil(2P / B) and
# ceil(4P / B) calls), while the tied-embedding all_reduce over pp moves its
# 4 B per element either way; the step is shorter with the cast.
gc=(predict --model gpt3-175b --gpus 256 --tp 8 --pp 16 --gbs 64 --recompute full --framework deepspeed --format json)
expect_ok "${gc[@]}" --grad-comm-cast off
cp "$TMP/out" "$TMP/gcoff.json"
check "grad-comm-cast off in JSON" grep -q '"grad_comm_cast": false' "$TMP/gcoff.json"
expect_ok "${gc[@]}"
cp "$TMP/out" "$TMP/gcon.json"
check "deepspeed preset: grad_comm_cast on in JSON" grep -q '"grad_comm_cast": true' "$TMP/gcon.json"
check "grad-comm-cast: the dp all_reduce moves half the bytes, the tied all_reduce the same (hand-derived)" python3 - "$TMP/gcoff.json" "$TMP/gcon.json" <<'PY'
import json, sys
off, on = (json.load(open(f)) for f in sys.argv[1:3])
def total(d, op, group):
    return sum(c["count"] * c["bytes"] for c in d["collectives"] if c["op"] == op and c["group"] == group)
dp_off, dp_on = total(off, "all_reduce", "dp"), total(on, "all_reduce", "dp")
pp_off, pp_on = total(off, "all_reduce", "pp"), total(on, "all_reduce", "pp")
ok = dp_on > 0 and abs(dp_off - 2 * dp_on) <= 1e-9 * dp_off and pp_on > 0 and pp_on == pp_off
sys.exit(0 if ok and on["step_time_s"] < off["step_time_s"] else 1)
PY
expect_ok predict --model llama2-7b --gpus 16 --framework megatron-lm --format json
check "megatron-lm preset: grad_comm_cast off" grep -q '"grad_comm_cast": false' "$TMP/out"
onoff_refused grad-comm-cast grad_comm_cast

# --megatron-softmax (layout.megatron_softmax, session 29 vtrain29): Megatron's
# FusedScaleMaskSoftmax takes its fused kernel only when micro-batch x heads per
# tp rank is a multiple of 4 (Megatron-DeepSpeed megatron/model/fused_softmax.py
# is_kernel_available), else PyTorch's fp32 softmax op by op: on in the deepspeed
# preset, off in megatron-lm. vTrain's GPT (16 heads) at tp 8: micro-batch 1 gives
# 2 x 1 = 2 (unfused: the step is longer with it on), micro-batch 2 gives 4 (fused:
# the same step on and off).
ms_model='{"name":"ms","mlp":"gelu","pos":"learned","norm":"layer","layers":4,"hidden":1024,"heads":16,"kv_heads":16,"head_dim":64,"ffn_hidden":4096,"vocab":51200,"seq_len":1024,"max_positions":1024,"linear_bias":true,"dropout":true,"tied_embeddings":true}'
ms=(predict --model "$ms_model" --gpu a100-80g --gpus 8 --tp 8 --seq 1024 --gbs 8 --recompute full --framework deepspeed --format json)
expect_ok "${ms[@]}" --mbs 1
cp "$TMP/out" "$TMP/mson.json"
check "deepspeed preset: megatron_softmax on in JSON" grep -q '"megatron_softmax": true' "$TMP/mson.json"
expect_ok "${ms[@]}" --mbs 1 --megatron-softmax off
cp "$TMP/out" "$TMP/msoff.json"
check "megatron-softmax off in JSON" grep -q '"megatron_softmax": false' "$TMP/msoff.json"
check "megatron-softmax: b x np = 2, the unfused softmax makes the step longer" faster "$TMP/mson.json" "$TMP/msoff.json"
expect_ok "${ms[@]}" --mbs 2
cp "$TMP/out" "$TMP/ms2on.json"
expect_ok "${ms[@]}" --mbs 2 --megatron-softmax off
check "megatron-softmax: b x np = 4, the fused kernel, the same step" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/ms2on.json" step_time_s)" ]
expect_ok predict --model "$ms_model" --gpus 8 --tp 8 --framework megatron-lm --format csv
check "megatron-lm preset: csv column megatron_softmax off" [ "$(col "$TMP/out" framework.megatron_softmax)" = off ]
onoff_refused megatron-softmax megatron_softmax

# --parallel-block (layout.parallel_block, session 29 megascale29): the GPT-J/PaLM parallel
# block as GPT-NeoX's gpt_j_residual runs it (MegaScale Sec. 3.1): one tp all_gather/reduce_scatter
# pair per block and pass instead of two, one norm; off in every preset. At tp 8 the tp traffic
# halves, so the step is shorter; refused for an MoE model and with --tp-comm-overlap on.
pb=(predict --model "$ms_model" --gpu a100-80g --gpus 8 --tp 8 --seq 1024 --gbs 8 --mbs 1 --framework megatron-lm --format json)
expect_ok "${pb[@]}"
cp "$TMP/out" "$TMP/pboff.json"
check "parallel_block off by default in JSON" grep -q '"parallel_block": false' "$TMP/pboff.json"
expect_ok "${pb[@]}" --parallel-block on
cp "$TMP/out" "$TMP/pbon.json"
check "parallel-block on in JSON" grep -q '"parallel_block": true' "$TMP/pbon.json"
check "parallel-block: half the tp collectives, a shorter step" faster "$TMP/pboff.json" "$TMP/pbon.json"
expect_ok predict --model "$ms_model" --gpus 8 --tp 8 --parallel-block on --format csv
check "parallel-block: csv column on" [ "$(col "$TMP/out" framework.parallel_block)" = on ]
expect_fail 1 "parallel transformer block is modelled for dense blocks .*not with a mixture-of-experts model" -- predict --model mixtral-8x7b --gpus 8 --tp 8 --parallel-block on
expect_fail 1 "not with --tp-comm-overlap on; use --parallel-block off" -- predict --model "$ms_model" --gpus 8 --tp 8 --tp-comm-overlap on --parallel-block on
onoff_refused parallel-block parallel_block

# with sequence parallelism the tensor is already split along the sequence:
# no gather (Megatron-LM commit cfd2e21, 2022), the step as with it off
expect_ok "${sg[@]}" --sequence-parallel on --p2p-scatter-gather off
cp "$TMP/out" "$TMP/sgspoff.json"
expect_ok "${sg[@]}" --sequence-parallel on
check "p2p-scatter-gather: nothing with sequence parallelism" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/sgspoff.json" step_time_s)" ]
expect_ok predict --model llama2-13b --gpus 16 --tp 2 --pp 2 --gbs 64 --framework megatron-lm --format csv
check "megatron-lm preset: p2p_scatter_gather on in CSV" [ "$(col "$TMP/out" framework.p2p_scatter_gather)" = on ]
expect_ok predict --model llama2-13b --gpus 16 --tp 2 --pp 2 --gbs 64 --framework megatron-core --format csv
check "megatron-core preset: p2p_scatter_gather off in CSV" [ "$(col "$TMP/out" framework.p2p_scatter_gather)" = off ]

# --- every command takes --framework ------------------------------------
expect_ok search --model llama2-7b --gpus 16 --framework nemo --top 1 --format csv
check "search: framework column" [ "$(col "$TMP/out" framework.name)" = nemo ]
expect_ok sweep --model llama2-7b --gpus 8..16 --framework torchtitan --format csv --threads 1
check "sweep: framework column" [ "$(col "$TMP/out" framework.name | sort -u)" = torchtitan ]
expect_ok validate --framework megatron-lm --summary "$PL_SOURCE_DIR/data/validation/megatron_sc21_narayanan.csv"
expect_fail 1 "^plateau: --framework: unknown framework 'x'" -- validate --framework x "$PL_SOURCE_DIR/data/validation/megatron_sc21_narayanan.csv"
expect_fail 1 "^plateau: --framework: unknown framework 'x'" -- study --framework x --out "$TMP/s"

# --- bad values, one line each ---------------------------------------------
for flag in tp-comm-overlap overlap-grad-reduce overlap-param-gather overlap-p2p p2p-serial p2p-scatter-gather sequence-parallel; do
  expect_fail 1 "^plateau: --$flag: unknown value 'yes' \(expected on\|off\)" -- predict --$flag yes
done
expect_fail 1 "^plateau: --grad-reduce-dtype: unknown dtype 'fp16' \(expected fp32\|bf16\)" -- predict --grad-reduce-dtype fp16
expect_fail 1 "^plateau: --kernels: unknown kernels 'x' \(expected fused\|unfused\)$" -- predict --kernels x
expect_fail 1 "^plateau: --fsdp-comm: unknown value 'two' \(expected one\|separate\)$" -- predict --fsdp-comm two
expect_fail 1 "^plateau: --zero1-grad-reduce: unknown op 'x' \(expected reduce-scatter\|all-reduce\)" -- predict --zero1-grad-reduce x
expect_fail 1 "^plateau: --grad-accum: unknown mode 'x' \(expected in-place\|fp32-copy\)" -- predict --grad-accum x
expect_fail 1 "^plateau: --logit-metric-passes: 17 is out of range \(expected 0..16\)" -- predict --logit-metric-passes 17
expect_fail 1 "^plateau: --logit-metric-passes:" -- predict --logit-metric-passes two
expect_fail 1 "^plateau: --attention: unknown attention 'x' \(expected flash\|cudnn\|te\|triton\|eager\)" -- predict --attention x
expect_fail 2 "option needs a value" -- predict --framework

# FP8 needs FP8 tensor cores: refused on A100 and V100 (once printed MFU 0.0 %)
expect_fail 1 "^plateau: layout: dtype fp8 needs FP8 tensor cores, which gpu 'a100-80g' lacks" -- predict --gpu a100-80g --dtype fp8
expect_fail 1 "^plateau: layout: dtype fp8 needs FP8 tensor cores, which gpu 'v100' lacks" -- predict --gpu v100 --dtype fp8
expect_fail 1 "^plateau: search: dtype fp8 needs FP8 tensor cores, which gpu 'a100-80g' lacks" -- search --gpu a100-80g --dtype fp8 --gpus 8
expect_ok predict --gpu h100 --dtype fp8

# --power-cap: the clock under the cap, ((W - idle) / (TDP - idle))^(1/3) of the
# clock at the TDP (src/hw/power_cap.c): h100 at 500 W, (430/630)^(1/3) = 0.881,
# so compute-bound work takes up to 1/0.881 = 1.135 x as long, and the draw stays under 500 W
pc=(predict --model llama3-8b --gpus 8 --format json)
expect_ok "${pc[@]}"
cp "$TMP/out" "$TMP/pc0.json"
check "no cap: power_cap_w null" grep -q '"power_cap_w": null' "$TMP/pc0.json"
expect_ok "${pc[@]}" --power-cap 500
cp "$TMP/out" "$TMP/pc1.json"
check "cap recorded" grep -q '"power_cap_w": 500' "$TMP/pc1.json"
check "500 W: step 1.05-1.135 x longer" awk -v a="$(json_num "$TMP/pc0.json" step_time_s)" \
  -v b="$(json_num "$TMP/pc1.json" step_time_s)" 'BEGIN { r = b / a; exit !(r > 1.05 && r <= 1.1351) }'
check "500 W: draw at most 500 W" awk -v w="$(json_num "$TMP/pc1.json" gpu_w)" 'BEGIN { exit !(w <= 500) }'
expect_ok "${pc[@]}" --power-cap "500 W"
check "'500 W' is 500" cmp -s "$TMP/out" "$TMP/pc1.json"
expect_ok "${pc[@]}" --power-cap 700
grep -v power_cap_w "$TMP/out" >"$TMP/pc2"
grep -v power_cap_w "$TMP/pc0.json" >"$TMP/pc3"
check "a cap at the TDP changes no number" cmp -s "$TMP/pc2" "$TMP/pc3"
expect_fail 1 "^plateau: --power-cap: power cap 800 W for gpu 'h100': expected above its idle 70 W and at most its TDP 700 W" -- predict --power-cap 800
expect_fail 1 "^plateau: --power-cap: power cap 50 W for gpu 'h100'" -- predict --power-cap 50
expect_fail 1 "^plateau: --power-cap: 'abc' is not a power" -- predict --power-cap abc
expect_fail 1 "^plateau: --power-cap: '500 GB' is not a power" -- predict --power-cap "500 GB"

# --host-per-kernel: eager PyTorch's host time per kernel (docs/step-model.md
# 2.6). A small model with short kernels (Qwen2.5-0.5B, hidden 896, on 8 A100s with tp 2, like
# vTrain's single-node runs) becomes host-bound: every pass takes at least its
# kernels times the host cost; a large one (llama2-13b, 4k tokens) does not move.
small="--model $PL_SOURCE_DIR/tests/data/hf/Qwen2.5-0.5B.json --gpu a100-80g --gpus 8 --tp 2 --mbs 1 --gbs 8 --seq 1024 --recompute full"
expect_ok predict $small --format json
cp "$TMP/out" "$TMP/hk0.json"
check "host: default 0 in JSON" [ "$(json_num "$TMP/out" host_per_kernel_s)" = 0 ]
expect_ok predict $small --host-per-kernel '37 us' --format json
check "host: 37 us in JSON" [ "$(json_num "$TMP/out" host_per_kernel_s)" = 3.7e-05 ]
check "host 37 us: small model slower" faster "$TMP/out" "$TMP/hk0.json"
expect_ok predict $small --framework deepspeed --format csv
check "deepspeed: csv host_per_kernel_s" [ "$(col "$TMP/out" framework.host_per_kernel_s)" = 3.7e-05 ]
expect_ok predict $small --framework deepspeed --host-per-kernel 0 --format json
check "host 0 overrides the preset" [ "$(json_num "$TMP/out" host_per_kernel_s)" = 0 ]
expect_ok predict --model llama2-13b --gpus 16 --format json
cp "$TMP/out" "$TMP/hk2.json"
expect_ok predict --model llama2-13b --gpus 16 --host-per-kernel '37 us' --format json
check "host 37 us: GPU-bound step unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/hk2.json" step_time_s)" ]
expect_fail 1 "^plateau: --host-per-kernel: '2 ms' is not a time from 0 to 1 ms" -- predict --host-per-kernel '2 ms'
expect_fail 1 "^plateau: --host-per-kernel: 'fast' is not a time" -- predict --host-per-kernel fast
expect_fail 1 "^plateau: --host-per-kernel: '37' is not a time" -- predict --host-per-kernel 37

# --host-per-gemm: the host time of one cuBLAS GEMM call from Transformer Engine, one call per
# local expert of a grouped expert GEMM (docs/step-model.md 2.6). The nemo preset sets 48 us:
# Qwen3-30B-A3B on 8 B200 with ep 8 (16 local experts) at micro-batch 1, the Bridge recipe, is
# host-bound (16 x 2 forward + 16 x 4 backward expert GEMM calls per block); 0 overrides the
# preset; a large dense model does not move.
moe1="--model qwen3-30b-a3b --gpu b200 --gpus 8 --ep 8 --mbs 1 --gbs 64 --seq 4096 --framework nemo"
expect_ok predict $moe1 --format json
cp "$TMP/out" "$TMP/hg1.json"
check "nemo: host_per_gemm_s 48 us in JSON" [ "$(json_num "$TMP/out" host_per_gemm_s)" = 4.8e-05 ]
expect_ok predict $moe1 --host-per-gemm 0 --format json
check "host_per_gemm 0 overrides the preset" [ "$(json_num "$TMP/out" host_per_gemm_s)" = 0 ]
check "host_per_gemm 48 us: MoE mbs 1 slower" faster "$TMP/hg1.json" "$TMP/out"
expect_ok predict $moe1 --format csv
check "nemo: csv host_per_gemm_s" [ "$(col "$TMP/out" framework.host_per_gemm_s)" = 4.8e-05 ]
expect_ok predict --model llama2-13b --gpus 16 --host-per-gemm '48 us' --format json
check "host_per_gemm 48 us: GPU-bound step unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/hk2.json" step_time_s)" ]
expect_fail 1 "^plateau: --host-per-gemm: '-1 us' is not a time from 0 to 1 ms" -- predict --host-per-gemm '-1 us'
expect_fail 1 "^plateau: --host-per-gemm: 'slow' is not a time" -- predict --host-per-gemm slow
# --cuda-graph-scope: the ops a Megatron-Core run captures in CUDA graphs cost the host nothing
# (layout.h enum pl_cuda_graph_scope). The nemo preset charges 37 us per eager kernel and 48 us per
# GEMM call; the host-bound MoE step above gets faster as the scopes grow (attention, then the
# router), fastest with the whole iteration captured; JSON and CSV name the scopes.
expect_ok predict $moe1 --format json
check "cuda_graph_scope defaults to none" [ "$(json_raw "$TMP/out" cuda_graph_scope)" = none ]
cp "$TMP/out" "$TMP/cg0.json"
expect_ok predict $moe1 --cuda-graph-scope attn --format json
cp "$TMP/out" "$TMP/cg1.json"
check "cuda graph attn: host-bound MoE step faster" faster "$TMP/cg0.json" "$TMP/cg1.json"
expect_ok predict $moe1 --cuda-graph-scope attn,moe_router,moe_preprocess --format json
cp "$TMP/out" "$TMP/cg2.json"
check "cuda graph attn+moe_router: faster again" faster "$TMP/cg1.json" "$TMP/cg2.json"
check "cuda_graph_scope in JSON" grep -q '"cuda_graph_scope": *"attn,moe_router,moe_preprocess"' "$TMP/out"
expect_ok predict $moe1 --cuda-graph-scope full_iteration --format json
check "cuda graph full_iteration: fastest" faster "$TMP/cg2.json" "$TMP/out"
expect_ok predict $moe1 --cuda-graph-scope attn --format csv
check "csv layout.cuda_graph_scope" [ "$(col "$TMP/out" layout.cuda_graph_scope)" = attn ]
# mlp (CudaGraphScope.mlp, dense blocks' _forward_mlp): the host-bound dense Llama 3.2 1B step at
# micro-batch 1 on B200 gets faster; attn,mlp (a whole-layer graph) names both; moe (drop-and-pad
# MoE layers) is not modelled and refused
dense1="--model llama3.2-1b --gpu b200 --gpus 8 --mbs 1 --gbs 64 --seq 2048 --framework nemo"
expect_ok predict $dense1 --format json
cp "$TMP/out" "$TMP/cgd0.json"
expect_ok predict $dense1 --cuda-graph-scope mlp --format json
check "cuda graph mlp: host-bound dense step faster" faster "$TMP/cgd0.json" "$TMP/out"
expect_ok predict $dense1 --cuda-graph-scope attn,mlp --format json
check "cuda_graph_scope attn,mlp in JSON" grep -q '"cuda_graph_scope": *"attn,mlp"' "$TMP/out"
expect_fail 1 "^plateau: --cuda-graph-scope: unknown CUDA graph scope 'moe'" -- predict --cuda-graph-scope moe
expect_fail 1 "^plateau: --cuda-graph-scope: CUDA graph scope 'attn' given twice" -- predict --cuda-graph-scope attn,attn
# --defer-embedding-wgrad: Megatron-Core defer_embedding_wgrad_compute with wgrad_deferral_limit:
# the last stage's LM-head wgrads of its first N micro-batches run in the pipeline flush. Llama 3 8B
# on pp 2, dp 8 (8 micro-batches): faster with 22 deferred, the same with all; pp 1 ignores it;
# the validate command writes it back; bad values refused
defer="--model llama3-8b --gpus 16 --pp 2 --gbs 64 --shard zero1 --framework megatron-core"
expect_ok predict $defer --format json
cp "$TMP/out" "$TMP/dw0.json"
expect_ok predict $defer --defer-embedding-wgrad 22 --format json
cp "$TMP/out" "$TMP/dw1.json"
check "defer-embedding-wgrad 22: pp 2 step faster" faster "$TMP/dw0.json" "$TMP/dw1.json"
expect_ok predict $defer --defer-embedding-wgrad all --format json
check "defer-embedding-wgrad all = 22 with 8 micro-batches" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/dw1.json" step_time_s)" ]
expect_ok predict --model llama3-8b --gpus 8 --gbs 64 --shard zero1 --framework megatron-core --format json
cp "$TMP/out" "$TMP/dw2.json"
expect_ok predict --model llama3-8b --gpus 8 --gbs 64 --shard zero1 --framework megatron-core --defer-embedding-wgrad all --format json
check "defer-embedding-wgrad: pp 1 unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/dw2.json" step_time_s)" ]
expect_fail 1 "^plateau: --defer-embedding-wgrad: 'some' is not off, all or a micro-batch count" -- predict --defer-embedding-wgrad some
expect_fail 1 "^plateau: --defer-embedding-wgrad: '0' is not off, all or a micro-batch count" -- predict --defer-embedding-wgrad 0
# --align-grad-reduce: Megatron-Core's schedules launch each chunk's whole reduction (grad_sync_func):
# on in megatron-core (Megatron-LM's default), off in nemo (NeMo 2 leaves it unset); a pp 4 step
# moves, a pp 1 step does not; JSON and CSV say it; bad values refused
agr="--model llama3-8b --gpus 32 --pp 4 --gbs 64 --shard zero1 --framework megatron-core --overlap-grad-reduce on"
expect_ok predict $agr --format json
check "megatron-core: align_grad_reduce on" grep -q '"align_grad_reduce": *true' "$TMP/out"
cp "$TMP/out" "$TMP/ag1.json"
expect_ok predict $agr --align-grad-reduce off --format json
check "align-grad-reduce off: pp 4 step differs" [ "$(json_num "$TMP/out" step_time_s)" != "$(json_num "$TMP/ag1.json" step_time_s)" ]
expect_ok predict --model llama3-8b --gpus 8 --gbs 64 --framework megatron-core --shard zero1 --overlap-grad-reduce on --format json
cp "$TMP/out" "$TMP/ag2.json"
expect_ok predict --model llama3-8b --gpus 8 --gbs 64 --framework megatron-core --shard zero1 --overlap-grad-reduce on --align-grad-reduce off --format json
check "align-grad-reduce: pp 1 unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/ag2.json" step_time_s)" ]
expect_ok predict --model llama3-8b --gpus 8 --framework nemo --format csv
check "nemo: csv framework.align_grad_reduce off" [ "$(col "$TMP/out" framework.align_grad_reduce)" = off ]
expect_fail 1 "^plateau: --align-grad-reduce" -- predict --align-grad-reduce maybe
# --overlap-param-gather-with-optimizer-step: the first chunk's first bucket gathered after its own
# optimizer step (Megatron-Bridge's performance scripts for dp, pp, vp > 1): an interleaved zero1
# step is no slower; JSON says it; bad values refused
pgo="--model llama3-70b --gpus 64 --tp 4 --pp 4 --vp 5 --recompute full --schedule interleaved --gbs 128 --shard zero1 --framework nemo"
expect_ok predict $pgo --format json
cp "$TMP/out" "$TMP/pgo0.json"
expect_ok predict $pgo --overlap-param-gather-with-optimizer-step on --format json
check "pg with optimizer step: JSON on" grep -q '"overlap_param_gather_with_optimizer_step": *true' "$TMP/out"
check "pg with optimizer step: interleaved step shorter (by ~2 ms of 17.35 s)" awk -v a="$(json_num "$TMP/pgo0.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b < a) }'
expect_fail 1 "^plateau: --overlap-param-gather-with-optimizer-step" -- predict --overlap-param-gather-with-optimizer-step 2
cat >"$TMP/hg.json" <<'JSON'
{"name": "hg", "description": "test", "behaviours": {"host_per_gemm": "-5 us"}}
JSON
expect_fail 1 "host_per_gemm" -- predict --framework "$TMP/hg.json"

# --host-per-launch: the host time of one kernel Transformer Engine launches from C++: its
# GroupedLinear quantizes the input and the output gradient per local expert (split_quantize:
# 1 kernel per expert under MXFP8, 3 under FP8 current scaling; docs/step-model.md 2.6). The nemo
# preset sets 7.3 us: the host-bound MXFP8 Qwen3-30B step at micro-batch 1 (16 local experts) is
# slower with it; 0 overrides the preset; the BF16 step (no quantize) does not move.
moe8="--model qwen3-30b-a3b --gpu b200 --gpus 8 --ep 8 --mbs 1 --gbs 64 --seq 4096 --framework nemo --dtype mxfp8"
expect_ok predict $moe8 --format json
cp "$TMP/out" "$TMP/hl1.json"
check "nemo: host_per_launch_s 7.3 us in JSON" awk -v v="$(json_num "$TMP/out" host_per_launch_s)" 'BEGIN { exit !(v > 7.29e-6 && v < 7.31e-6) }'
expect_ok predict $moe8 --host-per-launch 0 --format json
check "host_per_launch 0 overrides the preset" [ "$(json_num "$TMP/out" host_per_launch_s)" = 0 ]
check "host_per_launch 7.3 us: MXFP8 MoE mbs 1 slower" faster "$TMP/hl1.json" "$TMP/out"
expect_ok predict $moe8 --format csv
check "nemo: csv host_per_launch_s" awk -v v="$(col "$TMP/out" framework.host_per_launch_s)" 'BEGIN { exit !(v > 7.29e-6 && v < 7.31e-6) }'
expect_ok predict $moe1 --host-per-launch 0 --format json
check "host_per_launch: BF16 MoE unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/hg1.json" step_time_s)" ]
expect_fail 1 "^plateau: --host-per-launch: '-1 us' is not a time from 0 to 1 ms" -- predict --host-per-launch '-1 us'
expect_fail 1 "^plateau: --host-per-launch: 'fast' is not a time" -- predict --host-per-launch fast
cat >"$TMP/hl.json" <<'JSON'
{"name": "hl", "description": "test", "behaviours": {"host_per_launch": "2 ms"}}
JSON
expect_fail 1 "host_per_launch" -- predict --framework "$TMP/hl.json"

# torchtitan's activation checkpointing is the run's, not the preset's (docs/frameworks.md): with
# no --recompute the preset leaves none; its code default (selective_ac_option "2") is given as
# --recompute full --recompute-every 2, which recomputes (more FLOPs, slower) and holds less
tt="--model llama3-8b --gpus 8 --gbs 64 --framework torchtitan --format json"
expect_ok predict $tt
cp "$TMP/out" "$TMP/tt0.json"
check "torchtitan: no recompute by default" [ "$(json_raw "$TMP/out" recompute)" = none ]
expect_ok predict $tt --recompute full --recompute-every 2
check "torchtitan AC '2': recompute full" [ "$(json_raw "$TMP/out" recompute)" = full ]
check "torchtitan AC '2': every 2" [ "$(json_num "$TMP/out" recompute_every)" = 2 ]
check "torchtitan AC '2': slower" faster "$TMP/out" "$TMP/tt0.json"
expect_fail 1 "recompute-every" -- predict $tt --recompute-every 2

# --launch-blocking (CUDA_LAUNCH_BLOCKING=1, BLOOM's tr11 runs): the host time per kernel adds to
# the GPU time instead of hiding under it, so even the GPU-bound llama2-13b step above grows, and
# the host-bound small one grows too; with no host time it changes nothing.
expect_ok predict --model llama2-13b --gpus 16 --format json --launch-blocking on
check "blocking: off by default" [ "$(json_raw "$TMP/hk2.json" launch_blocking)" = false ]
check "blocking: on in JSON" [ "$(json_raw "$TMP/out" launch_blocking)" = true ]
check "blocking, no host time: step unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/hk2.json" step_time_s)" ]
expect_ok predict --model llama2-13b --gpus 16 --host-per-kernel '37 us' --launch-blocking on --format json
check "blocking 37 us: GPU-bound step slower" faster "$TMP/out" "$TMP/hk2.json"
expect_ok predict $small --host-per-kernel '37 us' --format json
cp "$TMP/out" "$TMP/hk1.json"
expect_ok predict $small --framework deepspeed --launch-blocking on --format csv
check "blocking: csv launch_blocking on" [ "$(col "$TMP/out" framework.launch_blocking)" = on ]
expect_ok predict $small --framework deepspeed --launch-blocking on --format json
check "blocking: host-bound step slower still" faster "$TMP/out" "$TMP/hk1.json"
cat >"$TMP/lb.json" <<'EOF2'
{"name": "lb", "description": "test", "behaviours": {"host_per_kernel": "37 us", "launch_blocking": true}}
EOF2
expect_ok predict $small --framework "$TMP/lb.json" --format json
check "blocking: framework file sets it" [ "$(json_raw "$TMP/out" launch_blocking)" = true ]
cat >"$TMP/lb2.json" <<'EOF2'
{"name": "lb", "description": "test", "behaviours": {"launch_blocking": "yes"}}
EOF2
expect_fail 1 "behaviour 'launch_blocking' must be true or false" -- predict --framework "$TMP/lb2.json"
expect_fail 1 "^plateau: --launch-blocking: unknown value 'yes' \(expected on\|off\)" -- predict --launch-blocking yes
expect_fail 1 "^plateau: --launch-blocking: unknown value '' \(expected on\|off\)" -- predict --launch-blocking ''

# --fp8-all-gather (torchtitan enable_fsdp_float8_all_gather with torchao's tensorwise FP8): under
# zero3 the blocks' GEMM weights are gathered at 1 B instead of 2 and cast once on the shard, so
# the step and the dp all_gather bytes shrink; torchtitan's preset leaves it off; with bf16 or
# a block-scaled recipe (fp8-blockwise, MXFP8), or under zero1, it changes nothing. With a per-tensor Transformer Engine recipe
# (fp8-current) it is Megatron FSDP's fp8_param_gather since session 10 (uint8 parameter buffers,
# megatron_fsdp/param_and_grad_buffer.py): gathers and parameter shards shrink too (below).
f8="--model llama3-8b --gpus 64 --gbs 512 --framework torchtitan --dtype fp8-tensorwise"
agb() { python3 -c "import json,sys; print(sum(c['bytes'] * c['count'] for c in json.load(open(sys.argv[1]))['collectives'] if c['op'] == 'all_gather' and c['group'] == 'dp'))" "$1"; }
expect_ok predict $f8 --format json
cp "$TMP/out" "$TMP/f8off.json"
check "fp8-all-gather: off in torchtitan's preset" [ "$(json_raw "$TMP/f8off.json" fp8_all_gather)" = false ]
expect_ok predict $f8 --fp8-all-gather on --format json
cp "$TMP/out" "$TMP/f8on.json"
check "fp8-all-gather: on in JSON" [ "$(json_raw "$TMP/f8on.json" fp8_all_gather)" = true ]
check "fp8-all-gather: step faster" faster "$TMP/f8off.json" "$TMP/f8on.json"
check "fp8-all-gather: fewer dp all_gather bytes (over 35% fewer: GEMM weights dominate)" \
  python3 -c "import sys; a, b = float('$(agb "$TMP/f8off.json")'), float('$(agb "$TMP/f8on.json")'); sys.exit(not b < 0.65 * a)"
expect_ok predict $f8 --fp8-all-gather on --format csv
check "fp8-all-gather: csv column" [ "$(col "$TMP/out" framework.fp8_all_gather)" = on ]
for d in bf16 fp8-blockwise; do
  expect_ok predict --model llama3-8b --gpus 64 --gbs 512 --framework torchtitan --dtype $d --format json
  cp "$TMP/out" "$TMP/f8a.json"
  expect_ok predict --model llama3-8b --gpus 64 --gbs 512 --framework torchtitan --dtype $d --fp8-all-gather on --format json
  check "fp8-all-gather with $d: step unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/f8a.json" step_time_s)" ]
done
# fp8-current under zero3 (TE FP8 parameters): Llama 3 8B, 32 blocks of 4096 (4096 + 2 x 1024) +
# 4096^2 + 3 x 4096 x 14336 = 218,103,808 GEMM weights, shards over 64 GPUs at 1 B instead of 2:
# 32 x 218,103,808 / 64 = 109,051,904 B fewer parameter bytes; fewer dp all_gather bytes.
te8="--model llama3-8b --gpus 64 --gbs 512 --framework torchtitan --dtype fp8-current --format json"
expect_ok predict $te8
cp "$TMP/out" "$TMP/te8off.json"
expect_ok predict $te8 --fp8-all-gather on
check "fp8-all-gather with fp8-current: parameter shards 109,051,904 B smaller" awk \
  -v a="$(json_num "$TMP/te8off.json" params_bytes)" -v b="$(json_num "$TMP/out" params_bytes)" \
  'BEGIN { exit !(a - b == 109051904) }'
check "fp8-all-gather with fp8-current: fewer dp all_gather bytes" \
  python3 -c "import sys; sys.exit(not float('$(agb "$TMP/out")') < 0.65 * float('$(agb "$TMP/te8off.json")'))"
expect_ok predict $f8 --shard zero1 --format json
cp "$TMP/out" "$TMP/f8a.json"
expect_ok predict $f8 --shard zero1 --fp8-all-gather on --format json
check "fp8-all-gather under zero1: step unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/f8a.json" step_time_s)" ]
cat >"$TMP/f8g.json" <<'EOF2'
{"name": "f8g", "description": "test", "behaviours": {"shard": "zero3", "fp8_all_gather": true}}
EOF2
expect_ok predict --model llama3-8b --gpus 64 --gbs 512 --dtype fp8-tensorwise --framework "$TMP/f8g.json" --format json
check "fp8-all-gather: framework file sets it" [ "$(json_raw "$TMP/out" fp8_all_gather)" = true ]
cat >"$TMP/f8g2.json" <<'EOF2'
{"name": "f8g", "description": "test", "behaviours": {"fp8_all_gather": "on"}}
EOF2
expect_fail 1 "behaviour 'fp8_all_gather' must be true or false" -- predict --framework "$TMP/f8g2.json"
expect_fail 1 "^plateau: --fp8-all-gather: unknown value 'yes' \(expected on\|off\)" -- predict --fp8-all-gather yes
expect_fail 1 "^plateau: --fp8-all-gather: unknown value '' \(expected on\|off\)" -- predict --fp8-all-gather ''

# zero3_list_copy (preset deepspeed-zero3-2021, docs/step-model.md 2.7): DeepSpeed 0.3.16's
# ZeRO-3 gathers and reduce_scatters one parameter per call through the tensor-list API, each
# call costing the host one narrow + copy_ per rank: on 768 ranks far slower than one call per
# layer (the same behaviours with the time 0), and the time is in JSON and CSV.
z3="--model gpt3-175b --gpu a100-80g --cluster dgx-a100 --gpus 768 --mbs 1 --gbs 768 --recompute full"
expect_ok predict $z3 --framework deepspeed-zero3-2021 --format json
cp "$TMP/out" "$TMP/z3.json"
check "zero3 list: 22.64 us in JSON" [ "$(json_num "$TMP/out" zero3_list_copy_s)" = 2.264e-05 ]
expect_ok predict $z3 --framework deepspeed-zero3-2021 --format csv
check "zero3 list: csv column" [ "$(col "$TMP/out" framework.zero3_list_copy_s)" = 2.264e-05 ]
cat >"$TMP/z0.json" <<'EOF2'
{"name": "z0", "description": "test", "behaviours": {"shard": "zero3", "fsdp_prefetch": false, "attention": "eager", "host_per_kernel": "37 us", "zero3_list_copy": "0 us"}}
EOF2
expect_ok predict $z3 --framework "$TMP/z0.json" --format json
check "zero3 list: default 0 in JSON" [ "$(json_num "$TMP/out" zero3_list_copy_s)" = 0 ]
check "zero3 list: per-parameter calls slower" faster "$TMP/z3.json" "$TMP/out"
cp "$TMP/out" "$TMP/z0.json.out"
expect_ok predict --framework deepspeed-zero3-2021 --format json
check "zero3 list: default run predicts" grep -q '"step_time_s"' "$TMP/out"
# --zero3-list-copy overrides the preset's behaviour, both ways
expect_ok predict $z3 --framework deepspeed-zero3-2021 --zero3-list-copy 0 --format json
check "--zero3-list-copy 0 overrides the preset" [ "$(json_num "$TMP/out" zero3_list_copy_s)" = 0 ]
check "--zero3-list-copy 0: faster than the preset" faster "$TMP/z3.json" "$TMP/out"
expect_ok predict $z3 --framework "$TMP/z0.json" --zero3-list-copy '22.64 us' --format json
check "--zero3-list-copy 22.64 us: in JSON" [ "$(json_num "$TMP/out" zero3_list_copy_s)" = 2.264e-05 ]
check "--zero3-list-copy 22.64 us: slower than the 0 us file" faster "$TMP/out" "$TMP/z0.json.out"
expect_fail 1 "^plateau: --zero3-list-copy: '2 ms' is not a time from 0 to 1 ms" -- predict --zero3-list-copy '2 ms'
expect_fail 1 "^plateau: --zero3-list-copy: 'slow' is not a time" -- predict --zero3-list-copy slow
expect_fail 1 "^plateau: --zero3-list-copy: '-1 us' is not a time" -- predict --zero3-list-copy '-1 us'
echo '{"name": "x", "behaviours": {"zero3_list_copy": "2 ms"}}' >"$TMP/bad_z3.json"
expect_fail 1 "behaviour 'zero3_list_copy' must be a time from 0 to 1 ms" -- predict --framework "$TMP/bad_z3.json"
echo '{"name": "x", "behaviours": {"zero3_list_copy": 15}}' >"$TMP/bad_z3b.json"
expect_fail 1 "behaviour 'zero3_list_copy' must be a time from 0 to 1 ms" -- predict --framework "$TMP/bad_z3b.json"

# zero3_grad_all_reduce (--zero3-grad-reduce; preset deepspeed-zero3-2021, docs/step-model.md 2.7):
# DeepSpeed 0.3.x ZeRO-3's default config (reduce_scatter false) all_reduces whole gradients in
# buckets of 5e8 elements instead of one tensor-list reduce_scatter per parameter, so the
# collectives list an all_reduce and no reduce_scatter; on 768 ranks the per-rank list copies it
# saves outweigh the doubled bytes. The value is in JSON and CSV; the flag overrides the preset.
check "zero3 grad all_reduce: preset's JSON value" [ "$(json_raw "$TMP/z3.json" zero3_grad_reduce)" = all-reduce ]
check "zero3 grad all_reduce: an all_reduce op" grep -q '"op": *"all_reduce"' "$TMP/z3.json"
check "zero3 grad all_reduce: no reduce_scatter op" [ "$(grep -c '"op": *"reduce_scatter"' "$TMP/z3.json")" = 0 ]
expect_ok predict $z3 --framework deepspeed-zero3-2021 --format csv
check "zero3 grad all_reduce: csv column all-reduce" [ "$(col "$TMP/out" framework.zero3_grad_reduce)" = all-reduce ]
expect_ok predict $z3 --framework deepspeed-zero3-2021 --zero3-grad-reduce reduce-scatter --format json
check "--zero3-grad-reduce reduce-scatter overrides the preset" [ "$(json_raw "$TMP/out" zero3_grad_reduce)" = reduce-scatter ]
check "--zero3-grad-reduce reduce-scatter: a reduce_scatter op" grep -q '"op": *"reduce_scatter"' "$TMP/out"
check "--zero3-grad-reduce reduce-scatter: per-parameter list reduce_scatters slower" faster "$TMP/out" "$TMP/z3.json"
expect_ok predict $z3 --framework "$TMP/z0.json" --zero3-grad-reduce all-reduce --format json
check "--zero3-grad-reduce all-reduce: in JSON" [ "$(json_raw "$TMP/out" zero3_grad_reduce)" = all-reduce ]
expect_ok predict --format json
check "zero3 grad all_reduce: reduce-scatter by default" [ "$(json_raw "$TMP/out" zero3_grad_reduce)" = reduce-scatter ]
expect_fail 1 "^plateau: --zero3-grad-reduce: unknown op 'allreduce' \(expected reduce-scatter\|all-reduce\)" -- predict --zero3-grad-reduce allreduce
expect_fail 1 "^plateau: --zero3-grad-reduce: unknown op '' \(expected reduce-scatter\|all-reduce\)" -- predict --zero3-grad-reduce ''
echo '{"name": "x", "behaviours": {"zero3_grad_all_reduce": "yes"}}' >"$TMP/bad_z3c.json"
expect_fail 1 "behaviour 'zero3_grad_all_reduce' must be true or false" -- predict --framework "$TMP/bad_z3c.json"

# zero3_reuse (--zero3-reuse; off in deepspeed-zero3-2021, docs/step-model.md 2.7): DeepSpeed
# 0.3.14-0.5.x's module trace is off by one step, so no parameter is kept for its next use and the
# backward gathers again every tensor its recomputed forward gathered; on keeps those reused within
# stage3_max_reuse_distance (fewer gathers, a faster step). In JSON and CSV; the flag overrides.
check "zero3 reuse: preset's JSON value false" [ "$(json_raw "$TMP/z3.json" zero3_reuse)" = false ]
expect_ok predict $z3 --framework deepspeed-zero3-2021 --format csv
check "zero3 reuse: csv column off" [ "$(col "$TMP/out" framework.zero3_reuse)" = off ]
expect_ok predict $z3 --framework deepspeed-zero3-2021 --zero3-reuse on --format json
check "--zero3-reuse on overrides the preset" [ "$(json_raw "$TMP/out" zero3_reuse)" = true ]
check "--zero3-reuse on: fewer gathers, faster than the preset" faster "$TMP/z3.json" "$TMP/out"
expect_ok predict --format json
check "zero3 reuse: on by default" [ "$(json_raw "$TMP/out" zero3_reuse)" = true ]
expect_fail 1 "^plateau: --zero3-reuse: unknown value 'no' \(expected on\|off\)" -- predict --zero3-reuse no
expect_fail 1 "^plateau: --zero3-reuse: unknown value '' \(expected on\|off\)" -- predict --zero3-reuse ''
echo '{"name": "x", "behaviours": {"zero3_reuse": "off"}}' >"$TMP/bad_z3r.json"
expect_fail 1 "behaviour 'zero3_reuse' must be true or false" -- predict --framework "$TMP/bad_z3r.json"

# zero3_debug_norm (--zero3-debug-norm; on in deepspeed-zero3-2021, docs/step-model.md 2.7):
# DeepSpeed 0.3.15-0.4.1's fetch_sub_module formats each parameter's norm into a debug message, so
# every module fetch reads each parameter and waits for the result; off is faster. In JSON and CSV.
check "zero3 debug norm: preset's JSON value true" [ "$(json_raw "$TMP/z3.json" zero3_debug_norm)" = true ]
expect_ok predict $z3 --framework deepspeed-zero3-2021 --format csv
check "zero3 debug norm: csv column on" [ "$(col "$TMP/out" framework.zero3_debug_norm)" = on ]
expect_ok predict $z3 --framework deepspeed-zero3-2021 --zero3-debug-norm off --format json
check "--zero3-debug-norm off overrides the preset" [ "$(json_raw "$TMP/out" zero3_debug_norm)" = false ]
check "--zero3-debug-norm off: no norm reads, faster than the preset" faster "$TMP/z3.json" "$TMP/out"
expect_ok predict --format json
check "zero3 debug norm: off by default" [ "$(json_raw "$TMP/out" zero3_debug_norm)" = false ]
expect_fail 1 "^plateau: --zero3-debug-norm: unknown value 'yes' \(expected on\|off\)" -- predict --zero3-debug-norm yes
expect_fail 1 "^plateau: --zero3-debug-norm: unknown value '' \(expected on\|off\)" -- predict --zero3-debug-norm ''
echo '{"name": "x", "behaviours": {"zero3_debug_norm": 1}}' >"$TMP/bad_z3n.json"
expect_fail 1 "behaviour 'zero3_debug_norm' must be true or false" -- predict --framework "$TMP/bad_z3n.json"

# cudnn_2024 (--cudnn-2024; docs/step-model.md 2.2 "cuDNN of 2024"): cuDNN fused attention at the
# rates NVIDIA published for cuDNN 9.1 (h100.json attention.cudnn.shape_2024: lower asymptotes), so
# a long-sequence run with cuDNN attention is slower; a run with FlashAttention-2, or on a GPU file
# without the 2024 figures (a100: TE picks flash there), does not move. In JSON and CSV.
# (tp 2: at tp 1 the run needs 98 GiB of 80 and has no step time, which made the comparisons
# below compare empty strings until session 13)
c24="--model llama2-7b --gpu h100 --cluster dgx-h100 --seq 16384 --gpus 8 --gbs 8 --tp 2 --attention cudnn"
expect_ok predict $c24 --format json
cp "$TMP/out" "$TMP/c24_off.json"
check "cudnn 2024: the run fits (a step time to compare)" [ -n "$(json_num "$TMP/out" step_time_s)" ]
check "cudnn 2024: off by default" [ "$(json_raw "$TMP/out" cudnn_2024)" = false ]
expect_ok predict $c24 --cudnn-2024 on --format json
check "--cudnn-2024 on: in JSON" [ "$(json_raw "$TMP/out" cudnn_2024)" = true ]
check "--cudnn-2024 on: cuDNN 9.1's lower rates, a slower step" faster "$TMP/out" "$TMP/c24_off.json"
expect_ok predict $c24 --cudnn-2024 on --format csv
check "cudnn 2024: csv column on" [ "$(col "$TMP/out" framework.cudnn_2024)" = on ]
expect_ok predict --model llama2-7b --gpu h100 --cluster dgx-h100 --seq 16384 --gpus 8 --gbs 8 --tp 2 --attention flash --format json
cp "$TMP/out" "$TMP/c24_flash.json"
check "cudnn 2024: the flash run fits" [ -n "$(json_num "$TMP/out" step_time_s)" ]
expect_ok predict --model llama2-7b --gpu h100 --cluster dgx-h100 --seq 16384 --gpus 8 --gbs 8 --tp 2 --attention flash --cudnn-2024 on --format json
check "--cudnn-2024 on: FlashAttention-2 runs unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c24_flash.json" step_time_s)" ]
expect_ok predict --framework nemo --model llama2-7b --gpu h100 --cluster dgx-h100 --seq 16384 --gpus 8 --gbs 8 --format json
check "cudnn 2024: the nemo preset means today's cuDNN" [ "$(json_raw "$TMP/out" cudnn_2024)" = false ]
onoff_refused cudnn-2024 cudnn_2024

# cudnn_913 (--cudnn-913; docs/step-model.md 2.2 "cuDNN 9.13 on Blackwell"): cuDNN fused attention at
# the rates NVIDIA published for cuDNN 9.13.1 (b200.json attention.cudnn.shape_9_13: lower
# asymptotes than today's), so a long-sequence B200 run with cuDNN attention is slower; a GPU file
# without the 9.13 figures (h100) does not move. In JSON and CSV.
c913="--model llama3-8b --gpu b200 --cluster dgx-b200 --seq 16384 --gpus 8 --gbs 8 --attention cudnn"
expect_ok predict $c913 --format json
cp "$TMP/out" "$TMP/c913_off.json"
check "cudnn 9.13: the run fits (a step time to compare)" [ -n "$(json_num "$TMP/out" step_time_s)" ]
check "cudnn 9.13: off by default" [ "$(json_raw "$TMP/out" cudnn_913)" = false ]
expect_ok predict $c913 --cudnn-913 on --format json
check "--cudnn-913 on: in JSON" [ "$(json_raw "$TMP/out" cudnn_913)" = true ]
check "--cudnn-913 on: cuDNN 9.13's lower rates, a slower step" faster "$TMP/out" "$TMP/c913_off.json"
expect_ok predict $c913 --cudnn-913 on --format csv
check "cudnn 9.13: csv column on" [ "$(col "$TMP/out" framework.cudnn_913)" = on ]
# appended columns keep their order: cudnn_913, then tp_seq_copies (added after it by tt13, session 13),
# then cudnn_version (cudnn13, session 13), then cp_allgather (cp13, session 13), then async_tp (atp13, session 13),
# then cudnn_cluster_margin (ossmoe14, session 14), then grad_accum_fusion (mcore14, session 14), then ub_proj_fprop_sms and ub_fc2_fprop_sms (ub14); then layout.account_embed_loss (user15, session 15); then framework.megatron_xent (mlm16, session 16); then the machine as run and eager_cross_entropy (cmd16, session 16); then pp_keep_outputs (herd17, session 17); then the torchtitan memory layouts (session 17); then hardware.gpu_variability (var17, session 17), then framework.adam_master (nem17, session 17), framework.bucket_params (bucket18), framework.fsdp1_copies (fsdp19), then layout.moe_pad_capacity (a2a19, session 19), then framework.moe_expert_padding (session 21), then framework.gqa_query_copy (pad21, session 21), then layout.moe_force_balance (qwen22, session 22), then framework.fms_rope and framework.kv_expand_copy (old22, session 22), then framework.separate_linears and framework.rope_complex (tt22, session 22), then framework.fsdp2_predivide and framework.fsdp2_rs_copy_in (study23, session 23), then framework.hybridep_sms (ep23, session 23), then framework.moe_router_fusion (nano24, session 24), then framework.fused_norm (norm24, session 24) last; then (session 28) framework.grad_buffer_passes, grad_scale_pass, logits_fp32, grad_comm_cast, layout.pp_schedules, moe_fake_gate, moe_act_compiled, then framework.grad_nan_check (mlperfcfg28); then framework.optimizer (thunder29, session 29), then hardware.nccl_tuner (efa29b, session 29), then framework.megatron_softmax (vtrain29, session 29), then framework.inductor_norms (compile29, session 29), then framework.parallel_block (megascale29, session 29), then layout.fsdp_ga_nosync and layout.moe_fc1_bias_eager (automodel29, session 29), then framework.fp8_amax_reduce (amax29, session 29)
check "cudnn 9.13: csv column appended, then tp_seq_copies and the version's" grep -q ',framework.cudnn_913,framework.tp_seq_copies,framework.cudnn_version,framework.cp_allgather,framework.async_tp,framework.cudnn_cluster_margin,framework.grad_accum_fusion,framework.ub_proj_fprop_sms,framework.ub_fc2_fprop_sms,framework.step_sync_all_reduces,framework.step_sync_broadcasts,framework.step_sync_all_gathers,framework.opt_syncs_per_tensor,layout.account_embed_loss,framework.megatron_xent,hardware.gpus_per_node,hardware.hbm_bytes,hardware.hbm_bytes_per_s,hardware.nic_bytes_per_s,hardware.sharp,framework.eager_cross_entropy,framework.pp_keep_outputs,framework.tp_gathered_saved,framework.fp32_param_shards,hardware.gpu_variability,framework.adam_master,framework.bucket_params,framework.fsdp1_copies,layout.moe_pad_capacity,framework.moe_expert_padding,framework.gqa_query_copy,layout.moe_force_balance,framework.fms_rope,framework.kv_expand_copy,framework.separate_linears,framework.rope_complex,framework.fsdp2_predivide,framework.fsdp2_rs_copy_in,framework.hybridep_sms,framework.moe_router_fusion,framework.fused_norm,framework.jit_fuser,framework.fsdp_root_unit,framework.nccl_max_ctas_tp,framework.nccl_max_ctas_cp,framework.nccl_max_ctas_dp,framework.nccl_max_ctas_pp,hardware.nccl_min_channels,layout.bf16_last_blocks,layout.bf16_modules,layout.task,layout.lora_rank,layout.lora_targets,layout.packed_sample_len,framework.hf_shift_copy,framework.align_grad_reduce,layout.defer_embedding_wgrad,layout.cp_comm_type,layout.cp_a2a_size,framework.overlap_param_gather_with_optimizer_step,framework.delay_wgrad_compute,framework.optimizer_impl,framework.grad_clip,framework.autocast_weight_casts,framework.optimizer_torch,framework.logits_shift_copy,framework.eager_z_loss,framework.grad_buffer_passes,framework.grad_scale_pass,framework.logits_fp32,framework.grad_comm_cast,layout.pp_schedules,layout.moe_fake_gate,layout.moe_act_compiled,framework.grad_nan_check,framework.optimizer,hardware.nccl_tuner,framework.megatron_softmax,framework.inductor_norms,framework.parallel_block,layout.fsdp_ga_nosync,layout.moe_fc1_bias_eager,framework.fp8_amax_reduce$' "$TMP/out"
expect_ok predict $c24 --cudnn-913 on --format json
check "--cudnn-913 on: h100 (no 9.13 figures) runs unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c24_off.json" step_time_s)" ]
onoff_refused cudnn-913 cudnn_913

# cudnn_version (--cudnn VERSION; docs/step-model.md 2.2 "cuDNN by version"): the cuDNN release
# attention runs as; a GPU file's release entries (attention.cudnn.shape_<major>_<minor>,
# shape_2024 = 9.0-9.1): the oldest entry at or after the run's release wins (a release older
# than the oldest entry runs as that entry, session 26); a release newer than every entry runs at
# today's rates (latest, the default).
# --cudnn-2024 on / --cudnn-913 on are the releases 9.1 / 9.13.
expect_ok predict $c913 --format csv
check "cudnn version: latest by default (csv)" [ "$(col "$TMP/out" framework.cudnn_version)" = latest ]
check "cudnn version: latest by default (json)" grep -q '"cudnn_version": "latest"' "$TMP/c913_off.json"
expect_ok predict $c913 --cudnn-913 on --format json
cp "$TMP/out" "$TMP/c913_on.json"
check "--cudnn-913 on: the release 9.13" grep -q '"cudnn_version": "9.13"' "$TMP/out"
expect_ok predict $c913 --cudnn 9.13 --format json
check "--cudnn 9.13 = --cudnn-913 on" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c913_on.json" step_time_s)" ]
check "--cudnn 9.13: the alias reads on" [ "$(json_raw "$TMP/out" cudnn_913)" = true ]
expect_ok predict $c913 --cudnn 9.13.1 --format csv
check "--cudnn 9.13.1: csv column" [ "$(col "$TMP/out" framework.cudnn_version)" = 9.13.1 ]
expect_ok predict $c913 --cudnn 9.10 --format json
cp "$TMP/out" "$TMP/c910.json"
check "--cudnn 9.10 on b200: its 9.10.2 entry, slower than 9.13's" awk -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/c913_on.json" step_time_s)" 'BEGIN { exit !(a > b) }'
check "--cudnn 9.10: neither alias" [ "$(json_raw "$TMP/out" cudnn_913)" = false ]
expect_ok predict $c913 --cudnn 9.9 --format json
check "--cudnn 9.9 on b200: older than its oldest entry, that entry (9.10)" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c910.json" step_time_s)" ]
expect_ok predict $c913 --cudnn-2024 on --format json
check "--cudnn-2024 on on b200 (no 2024 figures): the oldest entry (9.10)" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c910.json" step_time_s)" ]
expect_ok predict $c913 --cudnn 9.17 --format json
check "--cudnn 9.17 on b200: newer than every entry, today's rates" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c913_off.json" step_time_s)" ]
# a release the GPU file has no entry for takes today's rates, the head-dim-64 figures
# included (gpt-oss-120b: head dim 64; h200 has no 9.13 entry)
c64="--model gpt-oss-120b --gpu h200 --cluster dgx-h200 --gpus 64 --seq 8192 --gbs 64 --ep 8 --attention cudnn"
expect_ok predict $c64 --format json
cp "$TMP/out" "$TMP/c64_latest.json"
expect_ok predict $c64 --cudnn 9.13 --format json
check "--cudnn 9.13 on h200 (no entry), head dim 64: a step" [ -n "$(json_num "$TMP/out" step_time_s)" ]
check "--cudnn 9.13 on h200 (no entry), head dim 64: today's rates" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c64_latest.json" step_time_s)" ]
expect_ok predict $c913 --cudnn latest --cudnn-913 on --format json
check "--cudnn wins over --cudnn-913" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c913_off.json" step_time_s)" ]
expect_ok predict $c24 --cudnn-2024 on --format json
cp "$TMP/out" "$TMP/c24_on.json"
expect_ok predict $c24 --cudnn 9.1 --format json
check "--cudnn 9.1 = --cudnn-2024 on" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c24_on.json" step_time_s)" ]
check "--cudnn 9.1: the 2024 alias reads on" [ "$(json_raw "$TMP/out" cudnn_2024)" = true ]
expect_ok predict $c24 --cudnn 9.0 --format json
check "--cudnn 9.0 on h100: the 2024 entry" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c24_on.json" step_time_s)" ]
echo '{"name": "x", "behaviours": {"attention": "cudnn", "cudnn_version": {"value": "9.13", "source": "test"}}}' >"$TMP/fw_c913.json"
expect_ok predict --framework "$TMP/fw_c913.json" --model llama3-8b --gpu b200 --cluster dgx-b200 --seq 16384 --gpus 8 --gbs 8 --format json
check "framework file cudnn_version 9.13 = --cudnn-913 on" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c913_on.json" step_time_s)" ]
expect_ok predict --framework "$TMP/fw_c913.json" --model llama3-8b --gpu b200 --cluster dgx-b200 --seq 16384 --gpus 8 --gbs 8 --cudnn-913 off --format json
check "--cudnn-913 off overrides the file's 9.13" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/c913_off.json" step_time_s)" ]
expect_fail 1 "^plateau: --cudnn: '7' is not a cuDNN version \(expected MAJOR.MINOR\[.PATCH\], e.g. 9.13, or latest\)$" -- predict --cudnn 7
expect_fail 1 "^plateau: --cudnn: 'abc' is not a cuDNN version" -- predict --cudnn abc
expect_fail 1 "^plateau: --cudnn: '' is not a cuDNN version" -- predict --cudnn ''
expect_fail 1 "^plateau: --cudnn: cuDNN version '8.8': fused flash attention needs cuDNN 8.9 or newer$" -- predict --cudnn 8.8
echo '{"name": "x", "behaviours": {"cudnn_version": 9.13}}' >"$TMP/bad_cv.json"
expect_fail 1 "behaviour 'cudnn_version' must be a cuDNN version from 8.9" -- predict --framework "$TMP/bad_cv.json"

# fp8_attention (--fp8-attention; docs/step-model.md 2.2 "MXFP8 attention"): Megatron-Core's
# fp8_dot_product_attention under the mxfp8 recipe, cuDNN's MXFP8 SDPA at the BF16 kernel's time x
# gb300.json attention.cudnn.mxfp8_time_ratio (head dim 128: forward 0.722, backward 1.022): a
# long-sequence run is faster. Refused without mxfp8, without cuDNN attention. In JSON and CSV.
f8a="--model llama3-8b --cluster gb300-nvl72 --gpus 8 --gbs 8 --seq 16384 --dtype mxfp8 --attention te"
expect_ok predict $f8a --format json
cp "$TMP/out" "$TMP/f8a_off.json"
check "fp8 attention: off by default" [ "$(json_raw "$TMP/out" fp8_attention)" = false ]
expect_ok predict $f8a --fp8-attention on --format json
check "--fp8-attention on: in JSON" [ "$(json_raw "$TMP/out" fp8_attention)" = true ]
check "--fp8-attention on: MXFP8 attention, a faster step" faster "$TMP/f8a_off.json" "$TMP/out"
expect_ok predict $f8a --fp8-attention on --format csv
check "fp8 attention: csv column on" [ "$(col "$TMP/out" framework.fp8_attention)" = on ]
expect_fail 1 "fp8 attention is modelled under the mxfp8 recipe only \(dtype is bf16\)" -- predict --model llama3-8b --cluster gb300-nvl72 --gpus 8 --dtype bf16 --fp8-attention on
expect_fail 1 "fp8 attention runs on cuDNN's fused attention only" -- predict --model llama3-8b --cluster gb300-nvl72 --gpus 8 --dtype mxfp8 --attention flash --fp8-attention on
onoff_refused fp8-attention fp8_attention

# nvfp4_rht_unfused (--nvfp4-rht-unfused; docs/step-model.md 2.3e): Transformer Engine before 2.14
# reads each NVFP4 input and output gradient once more for the RHT'd columnwise cast (+2 B per
# element in fp8_casts): a slower step under nvfp4, none under mxfp8 (no such pass). JSON and CSV.
rht="--model llama3-8b --cluster gb300-nvl72 --gpus 8 --gbs 8 --dtype nvfp4"
expect_ok predict $rht --format json
cp "$TMP/out" "$TMP/rht_off.json"
check "nvfp4 rht unfused: off by default" [ "$(json_raw "$TMP/out" nvfp4_rht_unfused)" = false ]
expect_ok predict $rht --nvfp4-rht-unfused on --format json
check "--nvfp4-rht-unfused on: in JSON" [ "$(json_raw "$TMP/out" nvfp4_rht_unfused)" = true ]
check "--nvfp4-rht-unfused on: one more pass, a slower step" faster "$TMP/out" "$TMP/rht_off.json"
expect_ok predict $rht --nvfp4-rht-unfused on --format csv
check "nvfp4 rht unfused: csv column on" [ "$(col "$TMP/out" framework.nvfp4_rht_unfused)" = on ]
mx="--model llama3-8b --cluster gb300-nvl72 --gpus 8 --gbs 8 --dtype mxfp8 --format json"
expect_ok predict $mx
cp "$TMP/out" "$TMP/rht_mx_off.json"
expect_ok predict $mx --nvfp4-rht-unfused on
check "--nvfp4-rht-unfused: no effect under mxfp8" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/rht_mx_off.json" step_time_s)" ]
onoff_refused nvfp4-rht-unfused nvfp4_rht_unfused

# fused_grouped_mlp (--fused-grouped-mlp; docs/step-model.md 2.6): Transformer Engine's fused MXFP8
# grouped MLP runs the experts' GLU, clamp and biases in cuDNN's grouped GEMM epilogues: GPT-OSS
# under mxfp8 on GB300 is faster with it; refused where the kernel does not run (bf16, a dense
# model, etp > 1). JSON and CSV.
# 64 GPUs, ep 64: the layout of the Bridge GB300 rows (8 GPUs cannot hold the model and its Adam states)
fgm="--model gpt-oss-120b --cluster gb300-nvl72 --gpus 64 --ep 64 --gbs 64 --dtype mxfp8"
expect_ok predict $fgm --format json
cp "$TMP/out" "$TMP/fgm_off.json"
check "fused grouped mlp: off by default" [ "$(json_raw "$TMP/out" fused_grouped_mlp)" = false ]
expect_ok predict $fgm --fused-grouped-mlp on --format json
check "--fused-grouped-mlp on: in JSON" [ "$(json_raw "$TMP/out" fused_grouped_mlp)" = true ]
check "--fused-grouped-mlp on: the GLU, clamp and bias passes gone, a faster step" faster "$TMP/fgm_off.json" "$TMP/out"
expect_ok predict $fgm --fused-grouped-mlp on --format csv
check "fused grouped mlp: csv column on" [ "$(col "$TMP/out" framework.fused_grouped_mlp)" = on ]
expect_fail 1 "^plateau: layout: the fused grouped MLP runs under the mxfp8 recipe only" -- predict --model gpt-oss-120b --cluster gb300-nvl72 --gpus 8 --ep 8 --gbs 8 --fused-grouped-mlp on
expect_fail 1 "^plateau: layout: the fused grouped MLP needs a mixture-of-experts model" -- predict --model llama3-8b --cluster gb300-nvl72 --gpus 8 --gbs 8 --dtype mxfp8 --fused-grouped-mlp on
expect_fail 1 "^plateau: layout: the fused grouped MLP does not run with etp > 1" -- predict $fgm --ep 4 --etp 2 --fused-grouped-mlp on
onoff_refused fused-grouped-mlp fused_grouped_mlp

# cudnn_cluster_margin (--cudnn-cluster-margin; docs/step-model.md 2.6): cuDNN frontend's
# CUDNNFE_CLUSTER_OVERLAP_MARGIN, which Megatron-Bridge's fused-MLP configs set to 8: the fused
# MLP's forward and dgrad kernels run on 80 - 8 of GB300's 80 two-SM clusters, a slower step;
# 0 (the default) is the step without it; refused without the fused MLP and where no cluster
# would remain. JSON and CSV, bad values, the framework file key.
check "cluster margin: 0 by default" [ "$(json_num "$TMP/fgm_off.json" cudnn_cluster_margin)" = 0 ]
expect_ok predict $fgm --fused-grouped-mlp on --format json
cp "$TMP/out" "$TMP/fgm_on.json"
expect_ok predict $fgm --fused-grouped-mlp on --cudnn-cluster-margin 8 --format json
check "--cudnn-cluster-margin 8: in JSON" [ "$(json_num "$TMP/out" cudnn_cluster_margin)" = 8 ]
check "--cudnn-cluster-margin 8: the fused MLP on 72 of 80 clusters, a slower step" faster "$TMP/out" "$TMP/fgm_on.json"
expect_ok predict $fgm --fused-grouped-mlp on --cudnn-cluster-margin 0 --format json
check "--cudnn-cluster-margin 0: the step without a margin" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/fgm_on.json" step_time_s)" ]
expect_ok predict $fgm --fused-grouped-mlp on --cudnn-cluster-margin 8 --format csv
check "cluster margin: csv column 8" [ "$(col "$TMP/out" framework.cudnn_cluster_margin)" = 8 ]
echo '{"name": "x", "behaviours": {"fused_grouped_mlp": true, "cudnn_cluster_margin": 8}}' >"$TMP/margin.json"
expect_ok predict $fgm --framework "$TMP/margin.json" --format json
check "cluster margin: from a framework file" [ "$(json_num "$TMP/out" cudnn_cluster_margin)" = 8 ]
expect_ok predict $fgm --framework "$TMP/margin.json" --cudnn-cluster-margin 0 --format json
check "--cudnn-cluster-margin 0 overrides the file" [ "$(json_num "$TMP/out" cudnn_cluster_margin)" = 0 ]
expect_fail 1 "^plateau: layout: the cuDNN cluster margin applies to the fused grouped MLP's kernels only" -- predict $fgm --cudnn-cluster-margin 8
sed '/"sm_count"/,/}/ s/"value": [0-9]*/"value": 100/' "$(dirname "$0")/../../data/gpus/gb300.json" >"$TMP/gb300_100sm.json"
expect_fail 1 "^plateau: layout: a cuDNN cluster margin of 50 leaves none of gpu 'gb300''s 50 two-SM clusters" -- predict --model gpt-oss-120b --gpu "$TMP/gb300_100sm.json" --cluster gb300-nvl72 --gpus 64 --ep 64 --gbs 64 --dtype mxfp8 --fused-grouped-mlp on --cudnn-cluster-margin 50
for bad in 65 -1 x 8.5 ''; do
  expect_fail 1 "^plateau: --cudnn-cluster-margin: '$bad' is not a cluster count 0..64" -- predict --cudnn-cluster-margin "$bad"
done
echo '{"name": "x", "behaviours": {"cudnn_cluster_margin": "8"}}' >"$TMP/bad_margin.json"
expect_fail 1 "behaviour 'cudnn_cluster_margin' must be an integer 0..64" -- predict --framework "$TMP/bad_margin.json"
echo '{"name": "x", "behaviours": {"cudnn_cluster_margin": 65}}' >"$TMP/bad_margin.json"
expect_fail 1 "behaviour 'cudnn_cluster_margin' must be an integer 0..64" -- predict --framework "$TMP/bad_margin.json"

# tp_seq_copies (--tp-seq-copies; src/sim/segments.c tp_seq_copies): torchtitan's batch-first
# sequence-parallel collectives copy their output (all_gather) or input (reduce_scatter). On in the
# torchtitan preset; with tp 8 the step is slower with it; off without tp. JSON and CSV, bad values.
tsc="--model llama3-8b --gpus 16 --tp 8 --gbs 16 --framework torchtitan"
expect_ok predict $tsc --tp-seq-copies off --format json
cp "$TMP/out" "$TMP/tsc_off.json"
check "tp seq copies: off in JSON" [ "$(json_raw "$TMP/out" tp_seq_copies)" = false ]
expect_ok predict $tsc --format json
check "tp seq copies: on in the torchtitan preset" [ "$(json_raw "$TMP/out" tp_seq_copies)" = true ]
check "tp seq copies: a slower step with tp 8" faster "$TMP/out" "$TMP/tsc_off.json"
expect_ok predict $tsc --format csv
check "tp seq copies: csv column on" [ "$(col "$TMP/out" framework.tp_seq_copies)" = on ]
expect_ok predict --model llama3-8b --gpus 16 --gbs 16 --framework torchtitan --format json
cp "$TMP/out" "$TMP/tsc_tp1.json"
expect_ok predict --model llama3-8b --gpus 16 --gbs 16 --framework torchtitan --tp-seq-copies off --format json
check "tp seq copies: no effect without tp" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/tsc_tp1.json" step_time_s)" ]
onoff_refused tp-seq-copies tp_seq_copies

# cp_allgather (--cp-allgather; src/sim/lower_unit.c cp_gather_rings, segments.c layer_cp_allgather /
# cp_merge_ops): PyTorch context_parallel's allgather ring as torchtitan runs it. On in the torchtitan
# preset; with cp 4 the step is slower with it (the K/V all_gather hides behind one step of four, eager
# fp32 merges); no effect without cp. JSON and CSV, bad values.
cpa="--model llama3-8b --gpus 8 --cp 4 --seq 65536 --gbs 2 --recompute full --framework torchtitan"
expect_ok predict $cpa --cp-allgather off --format json
cp "$TMP/out" "$TMP/cpa_off.json"
check "cp allgather: off in JSON" [ "$(json_raw "$TMP/out" cp_allgather)" = false ]
expect_ok predict $cpa --format json
check "cp allgather: on in the torchtitan preset" [ "$(json_raw "$TMP/out" cp_allgather)" = true ]
check "cp allgather: a slower step with cp 4" faster "$TMP/out" "$TMP/cpa_off.json"
expect_ok predict $cpa --format csv
check "cp allgather: csv column on" [ "$(col "$TMP/out" framework.cp_allgather)" = on ]
expect_ok predict --model llama3-8b --gpus 8 --gbs 8 --framework torchtitan --format json
cp "$TMP/out" "$TMP/cpa_cp1.json"
expect_ok predict --model llama3-8b --gpus 8 --gbs 8 --framework torchtitan --cp-allgather off --format json
check "cp allgather: the run without cp has a step time" [ -n "$(json_num "$TMP/out" step_time_s)" ]
check "cp allgather: no effect without cp" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/cpa_cp1.json" step_time_s)" ]
onoff_refused cp-allgather cp_allgather

# async_tp (--async-tp; src/sim/lower_unit.c atp_windows): PyTorch's micro-pipeline TP. Off in every
# preset (torchtitan's experimental.enable_async_tensor_parallel defaults to false); with tp 8 and
# sp the fused collectives hide behind their partner GEMMs, so the step is faster; without tp no
# effect. JSON and CSV, bad values.
atp="--model llama3-8b --gpus 16 --tp 8 --gbs 16 --framework torchtitan"
expect_ok predict $atp --format json
cp "$TMP/out" "$TMP/atp_off.json"
check "async tp: off in the torchtitan preset" [ "$(json_raw "$TMP/out" async_tp)" = false ]
expect_ok predict $atp --async-tp on --format json
check "async tp: on in JSON" [ "$(json_raw "$TMP/out" async_tp)" = true ]
check "async tp: a faster step with tp 8" faster "$TMP/atp_off.json" "$TMP/out"
expect_ok predict $atp --async-tp on --format csv
check "async tp: csv column on" [ "$(col "$TMP/out" framework.async_tp)" = on ]
expect_ok predict --model llama3-8b --gpus 16 --gbs 16 --framework torchtitan --format json
cp "$TMP/out" "$TMP/atp_tp1.json"
expect_ok predict --model llama3-8b --gpus 16 --gbs 16 --framework torchtitan --async-tp on --format json
check "async tp: no effect without tp" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/atp_tp1.json" step_time_s)" ]
onoff_refused async-tp async_tp

# --bucket-mb: the ddp/zero1 bucket (docs/frameworks.md). zero1 over dp 32 without overlap:
# a larger bucket means fewer reduce_scatter and all_gather calls, so a faster step; Megatron-Core's
# rule (max(40e6, 1e6 dp) parameters, one bucket without overlap_grad_reduce) and NeMo's 100 MiB.
big="--model llama2-13b --gpus 256 --tp 8 --shard zero1 --overlap-grad-reduce off"
expect_ok predict $big --format json
cp "$TMP/out" "$TMP/b25.json"
check "bucket: default 25 MiB in JSON" [ "$(json_num "$TMP/out" bucket_mb)" = 25 ]
check "bucket: default not megatron" [ "$(json_raw "$TMP/out" bucket_megatron)" = false ]
expect_ok predict $big --bucket-mb 100 --format json
cp "$TMP/out" "$TMP/b100.json"
check "bucket 100: in JSON" [ "$(json_num "$TMP/out" bucket_mb)" = 100 ]
check "bucket 100: fewer calls, faster" faster "$TMP/b25.json" "$TMP/b100.json"
expect_ok predict $big --bucket-mb megatron --format json
check "bucket megatron: 40e6 fp32 params in MiB" [ "$(json_num "$TMP/out" bucket_mb)" = 152.587890625 ]
check "bucket megatron: flagged" [ "$(json_raw "$TMP/out" bucket_megatron)" = true ]
check "bucket megatron: one bucket without overlap, faster than 100 MiB" faster "$TMP/b100.json" "$TMP/out"
expect_ok predict $big --framework nemo-2024 --format csv
check "nemo-2024: csv bucket_mb 100 (Apex)" [ "$(col "$TMP/out" framework.bucket_mb)" = 100 ]
expect_ok predict $big --framework nemo --bucket-mb 25 --format csv
check "bucket 25 overrides the preset" [ "$(col "$TMP/out" framework.bucket_mb)" = 25 ]
# --bucket-params: NeMo 2 / Megatron-Bridge size Megatron-Core's bucket in parameters
# (134217728 when dp > 1): 128 Mi x 2 B (the nemo preset's bf16 gradients) = 256 MiB, the same
# as --bucket-mb 256 then; x 4 B (fp32 gradients) = 512 MiB for the reduce while the bf16
# parameter gather keeps 128 Mi elements = 256 MiB calls. Without overlap_grad_reduce one
# bucket of every gradient, as megatron's rule: the same step as --bucket-mb megatron.
bigon="--model llama2-13b --gpus 256 --tp 8 --shard zero1 --overlap-grad-reduce on"
expect_ok predict $bigon --framework nemo --format json
cp "$TMP/out" "$TMP/bp_nemo.json"
check "nemo: 256 MiB bucket in JSON" [ "$(json_num "$TMP/out" bucket_mb)" = 256 ]
check "nemo: bucket_params in JSON" [ "$(json_num "$TMP/out" bucket_params)" = 134217728 ]
expect_ok predict $bigon --framework nemo --bucket-mb 256 --format json
check "nemo: bucket_params 128 Mi = --bucket-mb 256 in bf16" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/bp_nemo.json" step_time_s)" ]
check "bucket-mb over the preset: no bucket_params" [ "$(json_num "$TMP/out" bucket_params)" = 0 ]
expect_ok predict $bigon --bucket-params 134217728 --format json
cp "$TMP/out" "$TMP/bp_fp32.json"
check "bucket-params: fp32 gradients, 512 MiB" [ "$(json_num "$TMP/out" bucket_mb)" = 512 ]
expect_ok predict $bigon --bucket-mb 512 --format json
check "bucket-params in fp32: the gather stays 128 Mi bf16 parameters (256 MiB calls), not 512 MiB" [ "$(json_num "$TMP/out" step_time_s)" != "$(json_num "$TMP/bp_fp32.json" step_time_s)" ]
expect_ok predict $big --bucket-params 134217728 --format json
cp "$TMP/out" "$TMP/bp_off.json"
expect_ok predict $big --bucket-mb megatron --format json
check "bucket-params without overlap: one bucket, as megatron's" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/bp_off.json" step_time_s)" ]
expect_ok predict $big --framework nemo --format csv
check "nemo: csv bucket_mb 256" [ "$(col "$TMP/out" framework.bucket_mb)" = 256 ]
check "nemo: csv bucket_params" [ "$(col "$TMP/out" framework.bucket_params)" = 134217728 ]
expect_fail 1 "^plateau: --bucket-params: '0' is not a whole number of parameters from 1 to 1e12" -- predict --bucket-params 0
expect_fail 1 "^plateau: --bucket-params: '-5' is not a whole number" -- predict --bucket-params -5
expect_fail 1 "^plateau: --bucket-params: '1.5' is not a whole number" -- predict --bucket-params 1.5
expect_fail 1 "^plateau: --bucket-params: '2e12' is not a whole number" -- predict --bucket-params 2e12
expect_fail 1 "^plateau: --bucket-params: '128M' is not a whole number" -- predict --bucket-params 128M
expect_fail 1 "^plateau: --bucket-params: 'nan' is not a whole number" -- predict --bucket-params nan
expect_fail 1 "^plateau: --bucket-params: 'inf' is not a whole number" -- predict --bucket-params inf
expect_fail 1 "^plateau: --bucket-params: '' is not a whole number" -- predict --bucket-params ''
expect_fail 1 "^plateau: --bucket-params: give the bucket by --bucket-mb or --bucket-params, not both" -- predict --bucket-mb 100 --bucket-params 1000
printf '{"name": "bp", "behaviours": {"bucket_params": 1.5}}' > "$TMP/bp.json"
expect_fail 1 "behaviour 'bucket_params' must be a whole number of parameters from 1 to 1e12" -- predict --framework "$TMP/bp.json"
expect_fail 1 "^plateau: --bucket-mb: '0' is not a size in MiB above 0 and up to 100000" -- predict --bucket-mb 0
expect_fail 1 "^plateau: --bucket-mb: '-5' is not a size in MiB" -- predict --bucket-mb -5
expect_fail 1 "^plateau: --bucket-mb: '2e5' is not a size in MiB" -- predict --bucket-mb 2e5
expect_fail 1 "^plateau: --bucket-mb: '10MB' is not a size in MiB" -- predict --bucket-mb 10MB
expect_fail 1 "^plateau: --bucket-mb: 'nan' is not a size in MiB" -- predict --bucket-mb nan
# --fp8-weight-cache: Transformer Engine's cached FP8 weights (is_first_microbatch,
# as Megatron-Core's forward_step sets it): with 8 micro-batches the weight casts
# are paid once, so the FP8 step is faster; BF16 does not move.
w="--model llama2-7b --gpus 8 --gbs 64 --dtype fp8"
expect_ok predict $w --format json
cp "$TMP/out" "$TMP/wc0.json"
check "fp8 weight cache: off by default" [ "$(json_raw "$TMP/out" fp8_weight_cache)" = false ]
expect_ok predict $w --fp8-weight-cache on --format json
check "fp8 weight cache: on in JSON" [ "$(json_raw "$TMP/out" fp8_weight_cache)" = true ]
check "fp8 weight cache: faster FP8 step" faster "$TMP/wc0.json" "$TMP/out"
expect_ok predict --model llama2-7b --gpus 8 --gbs 64 --format json
cp "$TMP/out" "$TMP/wc2.json"
expect_ok predict --model llama2-7b --gpus 8 --gbs 64 --fp8-weight-cache on --format json
check "fp8 weight cache: bf16 unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/wc2.json" step_time_s)" ]
expect_ok predict --framework nemo --format csv
check "nemo: csv fp8_weight_cache on" [ "$(col "$TMP/out" framework.fp8_weight_cache)" = on ]
expect_fail 1 "^plateau: --fp8-weight-cache: unknown value 'yes' \(expected on\|off\)" -- predict --fp8-weight-cache yes
# --head-16bit: Megatron-Core's output layer is a plain ColumnParallelLinear, not a
# Transformer Engine module, so the LM head's GEMMs stay bf16 under FP8/MXFP8/NVFP4:
# the FP8 step is slower with it (the head at the bf16 rate), a bf16 step does not move.
expect_ok predict $w --format json
cp "$TMP/out" "$TMP/h0.json"
check "head 16-bit: off by default" [ "$(json_raw "$TMP/out" head_16bit)" = false ]
expect_ok predict $w --head-16bit on --format json
check "head 16-bit: on in JSON" [ "$(json_raw "$TMP/out" head_16bit)" = true ]
check "head 16-bit: slower FP8 step" faster "$TMP/out" "$TMP/h0.json"
expect_ok predict --model llama2-7b --gpus 8 --gbs 64 --head-16bit on --format json
check "head 16-bit: bf16 unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/wc2.json" step_time_s)" ]
expect_ok predict --framework nemo --format csv
check "nemo: csv head_16bit on" [ "$(col "$TMP/out" framework.head_16bit)" = on ]
expect_ok predict --framework torchtitan --format csv
check "torchtitan: csv head_16bit off" [ "$(col "$TMP/out" framework.head_16bit)" = off ]
expect_fail 1 "^plateau: --head-16bit: unknown value '1' \(expected on\|off\)" -- predict --head-16bit 1

# --shard-grads-reduce-dtype: Megatron FSDP keeps its gradient shards in the
# reduce dtype (megatron_fsdp/param_and_grad_buffer.py main_grad_buffer), PyTorch
# FSDP2 in fp32. Llama 2 7B zero3 on 8 GPUs, bf16 reduction: 2 B x 6,738,415,616 / 8
# = 1,684,603,904 B with it, 4 B x n / 8 = 3,369,207,808 B without; the step does not move.
m7="--model llama2-7b --gpus 8 --gbs 8 --shard zero3 --grad-reduce-dtype bf16"
expect_ok predict $m7 --format json
cp "$TMP/out" "$TMP/sg0.json"
check "shard grads: fp32 by default" [ "$(json_num "$TMP/out" grads_bytes)" = 3369207808 ]
check "shard grads: off in JSON" [ "$(json_raw "$TMP/out" shard_grads_reduce_dtype)" = false ]
expect_ok predict $m7 --shard-grads-reduce-dtype on --format json
check "shard grads: bf16 with it" [ "$(json_num "$TMP/out" grads_bytes)" = 1684603904 ]
check "shard grads: on in JSON" [ "$(json_raw "$TMP/out" shard_grads_reduce_dtype)" = true ]
check "shard grads: step unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/sg0.json" step_time_s)" ]
expect_fail 1 "^plateau: --shard-grads-reduce-dtype: unknown value 'yes' \(expected on\|off\)" -- predict --shard-grads-reduce-dtype yes

# --te-cross-entropy: TE's fused cross-entropy keeps the bf16 logits (Megatron-Core
# cross_entropy_fusion_impl te), not an fp32 copy. Llama 2 7B, 1 GPU, mbs 1, seq 4096,
# vocab 32000: logits 4 x 4096 x 32000 = 524,288,000 B without, 262,144,000 B with it,
# so the activations drop by 262,144,000 B; the step does not move.
expect_ok predict --model llama2-7b --format json
cp "$TMP/out" "$TMP/xe0.json"
check "te xent: off in JSON" [ "$(json_raw "$TMP/out" te_cross_entropy)" = false ]
expect_ok predict --model llama2-7b --te-cross-entropy on --format json
check "te xent: activations 262,144,000 B lower" awk -v a="$(json_num "$TMP/xe0.json" activations_bytes)" \
  -v b="$(json_num "$TMP/out" activations_bytes)" 'BEGIN { exit !(a - b == 262144000) }'
check "te xent: on in JSON" [ "$(json_raw "$TMP/out" te_cross_entropy)" = true ]
check "te xent: step unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/xe0.json" step_time_s)" ]
expect_ok predict --model llama2-7b --te-cross-entropy on --format csv
check "te xent: csv column on" [ "$(col "$TMP/out" framework.te_cross_entropy)" = on ]
expect_fail 1 "^plateau: --te-cross-entropy: unknown value 'yes' \(expected on\|off\)" -- predict --te-cross-entropy yes

# --fsdp-block-units: zero3 as Megatron FSDP runs it (fsdp_unit_modules
# [TransformerLayer]): the token table, final norm and LM head stay gathered at
# 2 B; two blocks gathered, two gradient buckets of a block. Llama 2 7B, 8 GPUs,
# bf16 gradient shards: unsharded 2,097,184,768 B off, 2,143,363,072 B on
# (test_memory test_fsdp_block_units), 46,178,304 B more, plus the 5 %
# allowance: other_bytes 48,487,219.2 B higher.
fb="predict --model llama2-7b --gpus 8 --shard zero3 --grad-reduce-dtype bf16 --shard-grads-reduce-dtype on"
expect_ok $fb --format json
cp "$TMP/out" "$TMP/fb0.json"
check "block units: off by default" [ "$(json_raw "$TMP/out" fsdp_block_units)" = false ]
expect_ok $fb --fsdp-block-units on --format json
check "block units: on in JSON" [ "$(json_raw "$TMP/out" fsdp_block_units)" = true ]
check "block units: other 48,487,219.2 B higher" awk -v a="$(json_num "$TMP/fb0.json" other_bytes)" \
  -v b="$(json_num "$TMP/out" other_bytes)" 'BEGIN { d = b - a - 48487219.2; exit !(d < 0.5 && d > -0.5) }'
# the backward gathers the embedding and the head no more (megatron_fsdp.py
# _register_fsdp_hooks: no backward pre-gather on non-unit modules): 68 -> 66
# all_gathers, a step no slower
check "block units: 66 all_gathers" grep -q '"count": 66,' "$TMP/out"
check "block units: step not slower" awk -v a="$(json_num "$TMP/fb0.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b <= a) }'
expect_ok $fb --fsdp-block-units on --format csv
check "block units: csv column on" [ "$(col "$TMP/out" framework.fsdp_block_units)" = on ]
expect_ok predict --help
check "block units: in --help" grep -q -- '--fsdp-block-units on|off' "$TMP/out"
expect_fail 1 "^plateau: --fsdp-block-units: unknown value 'yes' \(expected on\|off\)" -- predict --fsdp-block-units yes
expect_fail 1 "^plateau: --fsdp-block-units: unknown value '' \(expected on\|off\)" -- predict --fsdp-block-units ""

# --fsdp-root-unit: the embedding, final norm and LM head as ONE FSDP unit,
# the root's (PyTorch FSDP1 / FSDP2 wrapping the model last: torchtitan before
# 2025-07-28, FSDP1 auto-wrap): gathered once before the forward, kept through
# the backward, reduce_scattered after the whole backward. Llama 2 7B (32
# blocks, 6,738,415,616 parameters; embedding and untied head 32,000 x 4,096
# each, final norm 4,096: 262,148,096), zero3 over 16 GPUs. Off: 34 units,
# each gathered forward and backward, 68 all_gathers of 2 x 2 B x P / 68 =
# 396,377,389.18 B on average, 34 reduce_scatters. On: 32 blocks gathered
# twice + the root once = 65 calls of (4 P - 2 x 262,148,096) / 65 =
# 406,605,634.95 B; 33 reduce_scatters of the same 4 B x P in all
# (816,777,650.42 B each); the root's reduce_scatter after the last backward
# adds exposed communication. On in the torchtitan preset (v0.1.0).
RU="predict --model llama2-7b --gpus 16 --shard zero3"
expect_ok $RU --format json
cp "$TMP/out" "$TMP/ru0.json"
check "root unit: off by default" [ "$(json_raw "$TMP/out" fsdp_root_unit)" = false ]
check "root unit off: 68 all_gathers" grep -q '"count": 68,' "$TMP/ru0.json"
expect_ok $RU --fsdp-root-unit on --format json
check "root unit: on in JSON" [ "$(json_raw "$TMP/out" fsdp_root_unit)" = true ]
check "root unit: 65 all_gathers, 33 reduce_scatters" \
  sh -c "grep -q '\"count\": 65,' '$TMP/out' && grep -q '\"count\": 33,' '$TMP/out'"
check "root unit: all_gather 406,605,634.95 B per call" awk -v b="$(grep -o '"bytes": *[0-9.e+-]*' "$TMP/out" | head -1 | sed 's/.*: *//')" \
  'BEGIN { d = b - 406605634.95; exit !(d < 0.01 && d > -0.01) }'
check "root unit: more exposed communication" awk -v a="$(json_num "$TMP/ru0.json" exposed_comm_s)" \
  -v b="$(json_num "$TMP/out" exposed_comm_s)" 'BEGIN { exit !(b > a) }'
expect_ok $RU --pp 2 --format json
cp "$TMP/out" "$TMP/ru2.json"
expect_ok $RU --fsdp-root-unit on --pp 2 --format json
check "root unit: no effect with pp 2 (embedding and head on different stages)" \
  [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/ru2.json" step_time_s)" ]
expect_ok $RU --framework torchtitan --format json
check "root unit: on in the torchtitan preset" [ "$(json_raw "$TMP/out" fsdp_root_unit)" = true ]
expect_ok $RU --fsdp-root-unit on --format csv
check "root unit: csv column on" [ "$(col "$TMP/out" framework.fsdp_root_unit)" = on ]
expect_ok predict --help
check "root unit: in --help" grep -q -- '--fsdp-root-unit on|off' "$TMP/out"
expect_fail 1 "^plateau: --fsdp-root-unit: unknown value 'yes' \(expected on\|off\)" -- predict --fsdp-root-unit yes

# --hf-shift-copy: Hugging Face's causal-LM loss (transformers 00227283
# LlamaForCausalLM.forward: logits.float(), then shift_logits = logits[..., :-1,
# :].contiguous()) copies the fp32 logits once more: +8 B per logit forward (one
# kernel), +12 B backward (slice_backward's zeros and copy, two kernels), only
# with the eager fp32 loss (--eager-cross-entropy on). Hand-derived, Llama 2 7B on one
# a100-80g, mbs 1, seq 4096: 4,096 x 32,000 = 131,072,000 logits; forward
# +1,048,576,000 B / (2039 GB/s x 0.88) + 1.2 us = 585.59 us, backward
# +1,572,864,000 B / (2039 GB/s x 0.88) + 2.4 us = 878.98 us on the loss op.
# On in the pytorch-fsdp preset, off in fms-fsdp (its loader shifts the labels).
hs="predict --model llama2-7b --gpu a100-80g --gpus 1 --mbs 1 --gbs 1 --seq 4096 --kernels unfused --eager-cross-entropy on --ops --format json"
lossop() { python3 -c "import json,sys; o=[x for x in json.load(open(sys.argv[1]))['ops'] if x['name'] == 'loss'][0]; print('%.2f %.2f' % (o['fwd_s'] * 1e6, o['bwd_s'] * 1e6))" "$1"; }
expect_ok $hs
cp "$TMP/out" "$TMP/hs0.json"
check "hf shift: off by default" [ "$(json_raw "$TMP/out" hf_shift_copy)" = false ]
expect_ok $hs --hf-shift-copy on
check "hf shift: on in JSON" [ "$(json_raw "$TMP/out" hf_shift_copy)" = true ]
check "hf shift: the loss op +585.59 us forward, +878.98 us backward (hand-derived)" python3 -c "
import sys
a = [float(x) for x in sys.argv[1].split()]; b = [float(x) for x in sys.argv[2].split()]
sys.exit(not (abs(b[0] - a[0] - 585.59) < 0.02 and abs(b[1] - a[1] - 878.98) < 0.02))" "$(lossop "$TMP/hs0.json")" "$(lossop "$TMP/out")"
hs8="predict --model llama2-7b --gpu a100-80g --gpus 8 --shard zero3 --mbs 1 --gbs 8 --seq 4096 --format json"
expect_ok $hs8 --kernels unfused --eager-cross-entropy on
cp "$TMP/out" "$TMP/hs8a.json"
expect_ok $hs8 --kernels unfused --eager-cross-entropy on --hf-shift-copy on
check "hf shift: slower step (8 GPUs, zero3)" awk -v a="$(json_num "$TMP/hs8a.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(a > 0 && b > a) }'
expect_ok $hs8 --kernels unfused --hf-shift-copy on
cp "$TMP/out" "$TMP/hs1.json"
expect_ok $hs8 --kernels unfused
check "hf shift: nothing without the eager loss" sh -c "[ -n '$(json_num "$TMP/out" step_time_s)' ] && [ '$(json_num "$TMP/out" step_time_s)' = '$(json_num "$TMP/hs1.json" step_time_s)' ]"
expect_ok predict --model llama2-7b --framework pytorch-fsdp --format json
check "hf shift: on in the pytorch-fsdp preset" [ "$(json_raw "$TMP/out" hf_shift_copy)" = true ]
expect_ok predict --model llama2-7b --framework fms-fsdp-2024-03 --format json
check "hf shift: off in fms-fsdp-2024-03 (through fms-fsdp)" [ "$(json_raw "$TMP/out" hf_shift_copy)" = false ]
expect_ok predict --model llama2-7b --hf-shift-copy on --format csv
check "hf shift: csv column on" [ "$(col "$TMP/out" framework.hf_shift_copy)" = on ]
expect_ok predict --help
check "hf shift: in --help" grep -q -- '--hf-shift-copy on|off' "$TMP/out"
expect_fail 1 "^plateau: --hf-shift-copy: unknown value 'yes' \(expected on\|off\)" -- predict --hf-shift-copy yes

# --logits-shift-copy: OLMo-core's trainer (e27ba74550 train/trainer.py
# Trainer.get_losses) copies the bf16 logits with logits[..., :-1, :].contiguous()
# eagerly before its compiled loss: +4 B per logit forward (one kernel), +6 B
# backward (zeros and copy, two kernels), only without the eager fp32 loss.
# Hand-derived, the same 131,072,000 logits on one a100-80g: forward
# +524,288,000 B / (2039 GB/s x 0.88) + 1.2 us = 293.39 us, backward
# +786,432,000 B / (2039 GB/s x 0.88) + 2.4 us = 440.69 us on the loss op.
ls="predict --model llama2-7b --gpu a100-80g --gpus 1 --mbs 1 --gbs 1 --seq 4096 --kernels fused --eager-cross-entropy off --ops --format json"
expect_ok $ls
cp "$TMP/out" "$TMP/ls0.json"
check "logits shift: off by default" [ "$(json_raw "$TMP/out" logits_shift_copy)" = false ]
expect_ok $ls --logits-shift-copy on
check "logits shift: on in JSON" [ "$(json_raw "$TMP/out" logits_shift_copy)" = true ]
check "logits shift: the loss op +293.39 us forward, +440.69 us backward (hand-derived)" python3 -c "
import sys
a = [float(x) for x in sys.argv[1].split()]; b = [float(x) for x in sys.argv[2].split()]
sys.exit(not (abs(b[0] - a[0] - 293.39) < 0.02 and abs(b[1] - a[1] - 440.69) < 0.02))" "$(lossop "$TMP/ls0.json")" "$(lossop "$TMP/out")"
expect_ok ${ls/--eager-cross-entropy off/--eager-cross-entropy on}
cp "$TMP/out" "$TMP/ls1.json"
expect_ok ${ls/--eager-cross-entropy off/--eager-cross-entropy on} --logits-shift-copy on
check "logits shift: nothing with the eager fp32 loss" [ "$(lossop "$TMP/out")" = "$(lossop "$TMP/ls1.json")" ]
expect_ok predict --model llama2-7b --logits-shift-copy on --format csv
check "logits shift: csv column on" [ "$(col "$TMP/out" framework.logits_shift_copy)" = on ]
expect_ok predict --help
check "logits shift: in --help" grep -q -- '--logits-shift-copy on|off' "$TMP/out"
expect_fail 1 "^plateau: --logits-shift-copy: unknown value 'yes' \(expected on\|off\)" -- predict --logits-shift-copy yes

# --logits-fp32 (olmo28): OLMo-core's model returns self.w_out(h).float() and, with
# fused_loss, its Triton cross-entropy reads the fp32 logits (41400c46f): the cast
# (6 B forward, 6 B backward, one kernel each) and the loss's fp32 read (-2 B
# forward) and fp32 gradient (+2 B backward). Hand-derived on one a100-80g (no
# strided_elementwise rate: the cast at hbm_fraction), 131,072,000 logits:
# forward 4 B, 524,288,000 B / (2039 GB/s x 0.88) + 1.2 us = 293.39 us; backward
# 8 B, 1,048,576,000 B / 1794.32 GB/s + 1.2 us = 585.59 us on the loss op.
expect_ok $ls --logits-fp32 on
check "logits fp32: on in JSON" [ "$(json_raw "$TMP/out" logits_fp32)" = true ]
check "logits fp32: the loss op +293.39 us forward, +585.59 us backward (hand-derived)" python3 -c "
import sys
a = [float(x) for x in sys.argv[1].split()]; b = [float(x) for x in sys.argv[2].split()]
sys.exit(not (abs(b[0] - a[0] - 293.39) < 0.02 and abs(b[1] - a[1] - 585.59) < 0.02))" "$(lossop "$TMP/ls0.json")" "$(lossop "$TMP/out")"
expect_ok ${ls/--eager-cross-entropy off/--eager-cross-entropy on} --logits-fp32 on
check "logits fp32: nothing with the eager fp32 loss" [ "$(lossop "$TMP/out")" = "$(lossop "$TMP/ls1.json")" ]
expect_ok predict --model llama2-7b --format json
check "logits fp32: off by default" [ "$(json_raw "$TMP/out" logits_fp32)" = false ]
expect_ok predict --model llama2-7b --logits-fp32 on --format csv
check "logits fp32: csv column on" [ "$(col "$TMP/out" framework.logits_fp32)" = on ]
expect_ok predict --help
check "logits fp32: in --help" grep -q -- '--logits-fp32 on|off' "$TMP/out"
expect_fail 1 "^plateau: --logits-fp32: unknown value 'yes' \(expected on\|off\)" -- predict --logits-fp32 yes

# --eager-z-loss: OLMo-core's eager cross_entropy_loss also computes
# logits.logsumexp(-1).pow(2) on the fp32 logits (ATen logsumexp: amax, broadcast
# subtract, exp_, sum; backward grad * (self - result).exp() and autograd's sum of
# the two logit gradients): +24 B per logit forward, +36 B backward, 4 kernels
# each, only with the eager loss. Hand-derived, the same 131,072,000 logits on one
# a100-80g (no strided_elementwise rate: broadcast ops at hbm_fraction):
# +3,145,728,000 B / (2039 GB/s x 0.88) + 4.8 us = 1757.96 us forward,
# +4,718,592,000 B / 1794.32 GB/s + 4.8 us = 2634.54 us backward.
expect_ok $hs
cp "$TMP/out" "$TMP/zl0.json"
check "eager z-loss: off by default" [ "$(json_raw "$TMP/out" eager_z_loss)" = false ]
expect_ok $hs --eager-z-loss on
check "eager z-loss: on in JSON" [ "$(json_raw "$TMP/out" eager_z_loss)" = true ]
check "eager z-loss: the loss op +1757.96 us forward, +2634.54 us backward (hand-derived)" python3 -c "
import sys
a = [float(x) for x in sys.argv[1].split()]; b = [float(x) for x in sys.argv[2].split()]
sys.exit(not (abs(b[0] - a[0] - 1757.96) < 0.05 and abs(b[1] - a[1] - 2634.54) < 0.05))" "$(lossop "$TMP/zl0.json")" "$(lossop "$TMP/out")"
expect_ok $ls --eager-z-loss on
check "eager z-loss: nothing without the eager loss" [ "$(lossop "$TMP/out")" = "$(lossop "$TMP/ls0.json")" ]
expect_ok predict --model llama2-7b --eager-z-loss on --format csv
check "eager z-loss: csv column on" [ "$(col "$TMP/out" framework.eager_z_loss)" = on ]
expect_ok predict --help
check "eager z-loss: in --help" grep -q -- '--eager-z-loss on|off' "$TMP/out"
expect_fail 1 "^plateau: --eager-z-loss: unknown value 'yes' \(expected on\|off\)" -- predict --eager-z-loss yes

# --adam-moments-dtype bf16: Megatron-Core's precision-aware optimizer (exp_avg,
# exp_avg_sq in bf16). Llama 2 7B (6,738,415,616 parameters), zero1 over 8 GPUs,
# bf16: TE's FusedAdam keeps the masters as 16-bit remainders, 2 + 2 + 2 = 6 B
# per parameter instead of 12: optimizer_bytes 10,107,623,424 -> 5,053,811,712
# (test_memory test_adam_moments_bf16). The fused step moves 26 B per
# parameter instead of 34 (m and v read and written at 2 B), so optimizer_s
# falls to 26/34 of its HBM time (the kernel overhead is under 0.1 % of it).
am="predict --model llama2-7b --gpus 8 --shard zero1"
expect_ok $am --format json
cp "$TMP/out" "$TMP/am0.json"
check "adam moments: fp32 by default" [ "$(json_raw "$TMP/out" adam_moments_dtype)" = fp32 ]
check "adam moments: 12 B per parameter" [ "$(json_num "$TMP/out" optimizer_bytes)" = 10107623424 ]
expect_ok $am --adam-moments-dtype bf16 --format json
check "adam moments: bf16 in JSON" [ "$(json_raw "$TMP/out" adam_moments_dtype)" = bf16 ]
check "adam moments: 6 B per parameter" [ "$(json_num "$TMP/out" optimizer_bytes)" = 5053811712 ]
check "adam moments: step 26/34" awk -v a="$(json_num "$TMP/am0.json" optimizer_s)" \
  -v b="$(json_num "$TMP/out" optimizer_s)" 'BEGIN { d = b / a - 26 / 34; exit !(d < 1e-3 && d > -1e-3) }'
expect_ok $am --adam-moments-dtype bf16 --format csv
check "adam moments: csv column bf16" [ "$(col "$TMP/out" framework.adam_moments_dtype)" = bf16 ]
expect_fail 1 "^plateau: --adam-moments-dtype: unknown dtype 'fp16' \(expected bf16\|fp32\)" -- predict --adam-moments-dtype fp16
expect_fail 1 "^plateau: layout: --adam-moments-dtype bf16 needs --shard zero1 or higher" -- predict --shard ddp --adam-moments-dtype bf16
# --adam-master none: no master copy, the 16-bit parameters are the optimizer's (Apex
# DistributedFusedAdam store_params False). Same run: m and v only, 8 B per parameter:
# 8 x 6,738,415,616 / 8 = 6,738,415,616; with bf16 moments 4 B: 3,369,207,808
# (test_memory test_adam_no_master). Memory only: the step time does not move.
check "adam master: kept by default" [ "$(json_raw "$TMP/am0.json" adam_master)" = kept ]
expect_ok $am --adam-master none --format json
check "adam master: none in JSON" [ "$(json_raw "$TMP/out" adam_master)" = none ]
check "adam master: 8 B per parameter" [ "$(json_num "$TMP/out" optimizer_bytes)" = 6738415616 ]
check "adam master: same step" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/am0.json" step_time_s)" ]
expect_ok $am --adam-master none --adam-moments-dtype bf16 --format json
check "adam master: 4 B with bf16 moments" [ "$(json_num "$TMP/out" optimizer_bytes)" = 3369207808 ]
expect_ok $am --adam-master none --format csv
check "adam master: csv column none" [ "$(col "$TMP/out" framework.adam_master)" = none ]
expect_fail 1 "^plateau: --adam-master: unknown value 'off' \(expected none\|kept\)" -- predict --adam-master off

# --te-linear-bwd-overlap: with tp and no --tp-comm-overlap, TE's column-parallel
# linears run the dgrad reduce_scatter beside the wgrad GEMM and the input
# all_gather beside the dgrad GEMM (TE _LayerNormLinear.backward): Llama 2 7B on
# 8 GPUs, tp 4, the step moves; on in the nemo and megatron-core presets, off in
# megatron-lm (its own layers) and by default. test_predict derives the amount.
expect_ok predict --model llama2-7b --gpus 8 --tp 4 --format json
cp "$TMP/out" "$TMP/tb0.json"
check "te bwd: off by default" [ "$(json_raw "$TMP/out" te_linear_bwd_overlap)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --tp 4 --te-linear-bwd-overlap on --format json
check "te bwd: on in JSON" [ "$(json_raw "$TMP/out" te_linear_bwd_overlap)" = true ]
check "te bwd: step moves" [ "$(json_num "$TMP/out" step_time_s)" != "$(json_num "$TMP/tb0.json" step_time_s)" ]
expect_ok predict --model llama2-7b --gpus 8 --tp 4 --framework megatron-core --format json
check "te bwd: on in megatron-core" [ "$(json_raw "$TMP/out" te_linear_bwd_overlap)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --tp 4 --framework megatron-lm --format json
check "te bwd: off in megatron-lm" [ "$(json_raw "$TMP/out" te_linear_bwd_overlap)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --tp 4 --te-linear-bwd-overlap on --format csv
check "te bwd: csv column on" [ "$(col "$TMP/out" framework.te_linear_bwd_overlap)" = on ]
expect_fail 1 "^plateau: --te-linear-bwd-overlap: unknown value 'yes' \(expected on\|off\)" -- predict --te-linear-bwd-overlap yes

# --grad-accum-fusion: ddp/zero1, Megatron-Core's gradient_accumulation_fusion:
# the weight-gradient GEMMs accumulate into the fp32 main_grad, so the
# per-micro-batch add pass keeps only the norms, biases and embedding
# (test_grad_accum derives the bytes). Llama 2 7B on 8 GPUs, zero1, 8
# micro-batches: off by default; on in the megatron-core and nemo presets
# (session 24: Megatron-LM's store_false flag, NeMo's configs;
# docs/frameworks.md), where --grad-accum-fusion off turns it off; on, the
# step is faster; zero3 has no add pass, so it changes nothing there.
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --format json
cp "$TMP/out" "$TMP/ga0.json"
check "grad accum fusion: off by default" [ "$(json_raw "$TMP/out" grad_accum_fusion)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --grad-accum-fusion on --format json
check "grad accum fusion: on in JSON" [ "$(json_raw "$TMP/out" grad_accum_fusion)" = true ]
check "grad accum fusion: step faster" awk -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/ga0.json" step_time_s)" 'BEGIN { exit !(a < b) }'
expect_ok predict --model llama2-7b --gpus 8 --shard zero3 --gbs 64 --format json
cp "$TMP/out" "$TMP/ga3.json"
expect_ok predict --model llama2-7b --gpus 8 --shard zero3 --gbs 64 --grad-accum-fusion on --format json
check "grad accum fusion: zero3 unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/ga3.json" step_time_s)" ]
expect_ok predict --model llama2-7b --gpus 8 --framework nemo --format json
check "grad accum fusion: on in nemo" [ "$(json_raw "$TMP/out" grad_accum_fusion)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --framework megatron-core --format json
check "grad accum fusion: on in megatron-core" [ "$(json_raw "$TMP/out" grad_accum_fusion)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --framework megatron-lm --format json
check "grad accum fusion: off in megatron-lm (2020-21 code)" [ "$(json_raw "$TMP/out" grad_accum_fusion)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --framework nemo --grad-accum-fusion off --format json
check "grad accum fusion: a run's off replaces the preset's on" [ "$(json_raw "$TMP/out" grad_accum_fusion)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --grad-accum-fusion on --format csv
check "grad accum fusion: csv column on" [ "$(col "$TMP/out" framework.grad_accum_fusion)" = on ]
expect_fail 1 "^plateau: --grad-accum-fusion: unknown value 'yes' \(expected on\|off\)" -- predict --grad-accum-fusion yes

# --grad-buffer-passes: ddp/zero1, Megatron-Core DDP's per-step zero_ of its
# gradient buffer and check_for_nan_in_grad's bucket norms, 2 x 4 B per local
# fp32 gradient (test_grad_buffer derives the time). Off by default; on in the
# megatron-core and nemo presets, off in nemo-2024 (Apex's optimizer holds the
# gradients) and megatron-lm; on, the optimizer time grows; zero3 unchanged.
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --format json
cp "$TMP/out" "$TMP/gb0.json"
check "grad buffer passes: off by default" [ "$(json_raw "$TMP/out" grad_buffer_passes)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --grad-buffer-passes on --format json
check "grad buffer passes: on in JSON" [ "$(json_raw "$TMP/out" grad_buffer_passes)" = true ]
check "grad buffer passes: step slower" awk -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/gb0.json" step_time_s)" 'BEGIN { exit !(a > b) }'
expect_ok predict --model llama2-7b --gpus 8 --shard zero3 --gbs 64 --format json
cp "$TMP/out" "$TMP/gb3.json"
expect_ok predict --model llama2-7b --gpus 8 --shard zero3 --gbs 64 --grad-buffer-passes on --format json
check "grad buffer passes: zero3 unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/gb3.json" step_time_s)" ]
expect_ok predict --model llama2-7b --gpus 8 --framework nemo --format json
check "grad buffer passes: on in nemo" [ "$(json_raw "$TMP/out" grad_buffer_passes)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --framework megatron-core --format json
check "grad buffer passes: on in megatron-core" [ "$(json_raw "$TMP/out" grad_buffer_passes)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --framework nemo-2024 --format json
check "grad buffer passes: off in nemo-2024 (Apex)" [ "$(json_raw "$TMP/out" grad_buffer_passes)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --framework megatron-lm --format json
check "grad buffer passes: off in megatron-lm" [ "$(json_raw "$TMP/out" grad_buffer_passes)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --grad-buffer-passes on --format csv
check "grad buffer passes: csv column on" [ "$(col "$TMP/out" framework.grad_buffer_passes)" = on ]
expect_fail 1 "^plateau: --grad-buffer-passes: unknown value 'yes' \(expected on\|off\)" -- predict --grad-buffer-passes yes

# --grad-scale-pass: Megatron-Core DDP without average_in_collective scales each
# bucket by 1/dp before its reduce, 2 x 4 B more per fp32 gradient: on in
# megatron-core (Megatron-LM's default), off in nemo (average_in_collective=True).
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --grad-scale-pass on --format json
check "grad scale pass: on in JSON" [ "$(json_raw "$TMP/out" grad_scale_pass)" = true ]
check "grad scale pass: step slower" awk -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/gb0.json" step_time_s)" 'BEGIN { exit !(a > b) }'
expect_ok predict --model llama2-7b --gpus 8 --framework megatron-core --format json
check "grad scale pass: on in megatron-core" [ "$(json_raw "$TMP/out" grad_scale_pass)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --framework nemo --format json
check "grad scale pass: off in nemo" [ "$(json_raw "$TMP/out" grad_scale_pass)" = false ]
expect_ok predict --model llama2-7b --gpus 8 --grad-scale-pass on --format csv
check "grad scale pass: csv column on" [ "$(col "$TMP/out" framework.grad_scale_pass)" = on ]
expect_fail 1 "^plateau: --grad-scale-pass: unknown value 'x' \(expected on\|off\)" -- predict --grad-scale-pass x

# --grad-nan-check: with --grad-buffer-passes on, Megatron-Core DDP's
# check_for_nan_in_grad bucket norms (one read of every local gradient); off
# (check_for_nan_in_grad=False, the MLPerf v5.1 NeMo 2 pretrain.py) leaves the
# zero pass only: faster than on, slower than no buffer passes; on by default
# and in nemo; nothing without the buffer passes.
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --grad-buffer-passes on --format json
cp "$TMP/out" "$TMP/gbon.json"
check "grad nan check: on by default" [ "$(json_raw "$TMP/out" grad_nan_check)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --grad-buffer-passes on --grad-nan-check off --format json
check "grad nan check: off in JSON" [ "$(json_raw "$TMP/out" grad_nan_check)" = false ]
check "grad nan check: off faster than on" awk -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/gbon.json" step_time_s)" 'BEGIN { exit !(a < b) }'
check "grad nan check: off slower than no passes" awk -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/gb0.json" step_time_s)" 'BEGIN { exit !(a > b) }'
expect_ok predict --model llama2-7b --gpus 8 --shard zero1 --gbs 64 --grad-nan-check off --format json
check "grad nan check: nothing without the buffer passes" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/gb0.json" step_time_s)" ]
expect_ok predict --model llama2-7b --gpus 8 --framework nemo --format json
check "grad nan check: on in nemo" [ "$(json_raw "$TMP/out" grad_nan_check)" = true ]
expect_ok predict --model llama2-7b --gpus 8 --grad-nan-check off --format csv
check "grad nan check: csv column off" [ "$(col "$TMP/out" framework.grad_nan_check)" = off ]
expect_fail 1 "^plateau: --grad-nan-check: unknown value 'maybe' \(expected on\|off\)" -- predict --grad-nan-check maybe

# --moe-host-sync: the host waits once per MoE block's forward for the tokens per
# local expert (Megatron-Core's dispatchers), so the GPU idles while it issues the
# experts: Qwen3-30B-A3B on 8 B200, ep 8, the flex dispatcher, mbs 4: slower with
# it in nemo (host floors 37/48 us); without host floors (no framework) it cannot
# move the step; on in nemo and megatron-core, off by default. test_sim_compute
# derives the amount.
MS="--model qwen3-30b-a3b --gpu b200 --gpus 8 --ep 8 --mbs 4 --gbs 64 --moe-dispatch deepep"
expect_ok predict $MS --framework nemo --moe-host-sync off --format json
cp "$TMP/out" "$TMP/ms0.json"
check "moe sync: off in JSON" [ "$(json_raw "$TMP/out" moe_host_sync)" = false ]
expect_ok predict $MS --framework nemo --format json
check "moe sync: on in nemo" [ "$(json_raw "$TMP/out" moe_host_sync)" = true ]
check "moe sync: slower with the wait" faster "$TMP/out" "$TMP/ms0.json"
expect_ok predict $MS --framework megatron-core --format json
check "moe sync: on in megatron-core" [ "$(json_raw "$TMP/out" moe_host_sync)" = true ]
expect_ok predict $MS --format json
cp "$TMP/out" "$TMP/ms1.json"
check "moe sync: off by default" [ "$(json_raw "$TMP/out" moe_host_sync)" = false ]
expect_ok predict $MS --moe-host-sync on --format json
check "moe sync: no host floor, no change" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/ms1.json" step_time_s)" ]
expect_ok predict $MS --moe-host-sync on --format csv
check "moe sync: csv column on" [ "$(col "$TMP/out" framework.moe_host_sync)" = on ]
expect_fail 1 "^plateau: --moe-host-sync: unknown value 'yes' \(expected on\|off\)" -- predict --moe-host-sync yes

# --moe-expert-padding: under an FP8/FP4 dtype TE pads each local expert's rows
# to the GEMM alignment and back (8 B per routed element each way, test_flops
# derives it): slower with it on under mxfp8, no change under bf16 nor with the
# hybridep dispatcher (its dispatch pads); on in megatron-core and nemo, off by default.
MP="--model qwen3-30b-a3b --gpu b200 --gpus 8 --ep 8 --mbs 4 --gbs 64"
expect_ok predict $MP --dtype mxfp8 --format json
cp "$TMP/out" "$TMP/mp0.json"
check "moe padding: off by default" [ "$(json_raw "$TMP/out" moe_expert_padding)" = false ]
expect_ok predict $MP --dtype mxfp8 --moe-expert-padding on --format json
check "moe padding: on in JSON" [ "$(json_raw "$TMP/out" moe_expert_padding)" = true ]
check "moe padding: slower with the copies" faster "$TMP/out" "$TMP/mp0.json"
expect_ok predict $MP --dtype mxfp8 --moe-dispatch hybridep --format json
cp "$TMP/out" "$TMP/mp1.json"
expect_ok predict $MP --dtype mxfp8 --moe-dispatch hybridep --moe-expert-padding on --format json
check "moe padding: hybridep pads in its dispatch" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/mp1.json" step_time_s)" ]
expect_ok predict $MP --format json
cp "$TMP/out" "$TMP/mp2.json"
expect_ok predict $MP --moe-expert-padding on --format json
check "moe padding: bf16 needs no padding" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/mp2.json" step_time_s)" ]
expect_ok predict $MP --framework megatron-core --format json
check "moe padding: on in megatron-core" [ "$(json_raw "$TMP/out" moe_expert_padding)" = true ]
expect_ok predict $MP --framework nemo --format json
check "moe padding: on in nemo" [ "$(json_raw "$TMP/out" moe_expert_padding)" = true ]
expect_ok predict $MP --moe-expert-padding on --format csv
check "moe padding: csv column on" [ "$(col "$TMP/out" framework.moe_expert_padding)" = on ]
expect_fail 1 "^plateau: --moe-expert-padding: unknown value 'yes' \(expected on\|off\)" -- predict --moe-expert-padding yes

# --moe-router-fusion: on (default) the router's top-k and load-balancing loss are
# Transformer Engine's fused kernels; off, Megatron-Core's eager path (27 + 20
# kernels forward, 9 + 12 backward over the fp32 scores, test_flops derives the
# bytes): slower, reported in JSON and CSV; a bad value is a usage error.
on_by_default_off_slower moe-router-fusion moe_router_fusion "router fusion" \
  --model qwen3-30b-a3b --gpu b200 --gpus 8 --ep 8 --mbs 4 --gbs 64

# --jit-fuser: on (default) Megatron-Core's SwiGLU is torch.compile's one kernel
# each way; off, its eager kernels on the chunked halves (test_flops derives the
# bytes: 10 / 58 B per element, 14 / 80 B for the routed experts): slower,
# reported in JSON and CSV; a bad value is a usage error.
on_by_default_off_slower jit-fuser jit_fuser "jit fuser" \
  --model qwen3-30b-a3b --gpu b200 --gpus 8 --ep 8 --mbs 4 --gbs 64

# vTrain's rows run on the source's own cluster, vtrain-a100 (4 x 200 Gb/s per
# node, vTrain src/config.py inter_node_bandwidth 800 Gbps; docs/hardware.md);
# other A100 sources keep dgx-a100. Its halved network slows a multi-node
# data-parallel step and leaves a one-node step as it was.
{ head -1 "$PL_SOURCE_DIR/data/validation/vtrain_ground_truth_multi.csv"
  sed -n 2p "$PL_SOURCE_DIR/data/validation/vtrain_ground_truth_multi.csv"
  sed -n 2p "$PL_SOURCE_DIR/data/validation/vtrain_ground_truth_single.csv"; } >"$TMP/vt.csv"
expect_ok validate --format csv "$TMP/vt.csv"
check "vtrain: both rows on vtrain-a100" [ "$(grep -c '"a100-80g","vtrain-a100"' "$TMP/out")" = 2 ]
expect_ok validate --format csv "$PL_SOURCE_DIR/data/validation/megatron_sc21_narayanan.csv"
check "sc21: stays on dgx-a100" [ "$(grep -c '"vtrain-a100"' "$TMP/out")" = 0 ]
check "sc21: on dgx-a100" grep -q '"a100-80g","dgx-a100"' "$TMP/out"
# llama2-13b at tp 8 dp 8 fits in 80 GB (gpt3-175b at tp 8 alone does not, and gave no step)
expect_ok predict --model llama2-13b --gpus 64 --tp 8 --gbs 64 --cluster dgx-a100 --format json
cp "$TMP/out" "$TMP/dgx.json"
expect_ok predict --model llama2-13b --gpus 64 --tp 8 --gbs 64 --cluster vtrain-a100 --format json
check "vtrain-a100: 8 nodes slower than dgx-a100" faster "$TMP/out" "$TMP/dgx.json"
expect_ok predict --model gpt3-175b --gpus 8 --tp 8 --gbs 8 --cluster dgx-a100 --format json
cp "$TMP/out" "$TMP/dgx1.json"
expect_ok predict --model gpt3-175b --gpus 8 --tp 8 --gbs 8 --cluster vtrain-a100 --format json
check "vtrain-a100: one node as dgx-a100" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/dgx1.json" step_time_s)" ]

# Versioned presets (session 16): a file's "base" preset, then its own behaviours. nemo-2024 is
# nemo with cuDNN 9.1, Megatron's unfused cross-entropy and Apex's 100 MiB buckets (the mid-2024
# NeMo 1.x containers; session 28: and no Megatron-Core DDP gradient-buffer passes, Apex's
# optimizer holding the gradients; and FlashAttention-2, the 24.x launcher's NVTE_FUSED_ATTN=0,
# helper era28): the step of --framework nemo --attention flash --cudnn 9.1 --megatron-xent on
# --bucket-mb 100 --grad-buffer-passes off; with --attention te it runs the cuDNN 9.1 attention
# (dgxc's NVTE_FUSED_ATTN=1 recipes); a user file with a base works the same; a base that is no
# preset fails with one line.
v16=(predict --model llama2-7b --gpus 16 --tp 2 --gbs 64 --format json)
expect_ok "${v16[@]}" --framework nemo-2024
cp "$TMP/out" "$TMP/n24.json"
check "nemo-2024 keeps cuDNN 9.1 for a recipe that turns it on" grep -q '"cudnn_version": "9.1"' "$TMP/n24.json"
check "nemo-2024's error band is its family's (nemo)" grep -q '"class": "h100 nemo multi-node"' "$TMP/n24.json"
expect_ok "${v16[@]}" --framework nemo --attention flash --cudnn 9.1 --megatron-xent on --bucket-mb 100 --grad-buffer-passes off
check "nemo-2024 = nemo + --attention flash --cudnn 9.1 --megatron-xent on --bucket-mb 100 --grad-buffer-passes off" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/n24.json" step_time_s)" ]
expect_ok "${v16[@]}" --framework nemo-2024 --attention te
cp "$TMP/out" "$TMP/n24te.json"
check "nemo-2024 --attention te (cuDNN 9.1) is faster than its FlashAttention-2" awk -v a="$(json_num "$TMP/n24te.json" step_time_s)" -v b="$(json_num "$TMP/n24.json" step_time_s)" 'BEGIN { exit !(a < b) }'
expect_ok "${v16[@]}" --framework nemo --cudnn 9.1 --megatron-xent on --bucket-mb 100 --grad-buffer-passes off
check "nemo-2024 --attention te = nemo + --cudnn 9.1 --megatron-xent on --bucket-mb 100 --grad-buffer-passes off" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/n24te.json" step_time_s)" ]
expect_ok "${v16[@]}" --framework nemo
check "nemo-2024 differs from nemo (older cuDNN)" [ "$(json_num "$TMP/out" step_time_s)" != "$(json_num "$TMP/n24te.json" step_time_s)" ]
printf '{"name": "mine", "base": "nemo", "behaviours": {"attention": "flash", "cudnn_version": "9.1", "megatron_xent": true, "bucket_mb": 100, "grad_buffer_passes": false}}' > "$TMP/mine.json"
expect_ok "${v16[@]}" --framework "$TMP/mine.json"
check "a user file with base nemo" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/n24.json" step_time_s)" ]
printf '{"name": "mine", "base": "nemo-3000", "behaviours": {}}' > "$TMP/bad_base.json"
expect_fail 1 "base 'nemo-3000' is not a framework preset" -- "${v16[@]}" --framework "$TMP/bad_base.json"
printf '{"name": "mine", "behaviours": {"sequence_parallel": "sometimes"}}' > "$TMP/bad_sp.json"
expect_fail 1 "behaviour 'sequence_parallel' must be true, false or \"moe\"" -- "${v16[@]}" --framework "$TMP/bad_sp.json"

# fsdp1_copies (--fsdp1-copies; src/sim/segments.c param_kernels): PyTorch FSDP1's flat-parameter
# copies (no copy-out; cat, cast to fp32, pre-divide: 18 B per parameter in backward) instead of
# FSDP2's (4 B forward, 10 B backward). On in the pytorch-fsdp and llm-foundry presets (and
# fms-fsdp through its base), off in torchtitan's; with an fp32 reduce the step is slower with it,
# with a bf16 reduce faster (8 B); no effect without zero2/zero3. JSON and CSV, bad values.
f1="--model llama3-8b --gpus 8 --gbs 16 --shard zero3 --framework torchtitan"
expect_ok predict $f1 --format json
cp "$TMP/out" "$TMP/f1_off.json"
check "fsdp1 copies: off in the torchtitan preset" [ "$(json_raw "$TMP/out" fsdp1_copies)" = false ]
expect_ok predict $f1 --fsdp1-copies on --format json
cp "$TMP/out" "$TMP/f1_on.json"
check "fsdp1 copies: on in JSON" [ "$(json_raw "$TMP/out" fsdp1_copies)" = true ]
check "fsdp1 copies: a slower step with an fp32 reduce" faster "$TMP/f1_on.json" "$TMP/f1_off.json"
expect_ok predict $f1 --grad-reduce-dtype bf16 --format json
cp "$TMP/out" "$TMP/f1_bf16_off.json"
expect_ok predict $f1 --grad-reduce-dtype bf16 --fsdp1-copies on --format json
check "fsdp1 copies: a faster step with a bf16 reduce" faster "$TMP/f1_bf16_off.json" "$TMP/out"
for fw in pytorch-fsdp llm-foundry fms-fsdp; do
  expect_ok predict --model llama3-8b --gpus 8 --gbs 16 --framework $fw --format json
  check "fsdp1 copies: on in the $fw preset" [ "$(json_raw "$TMP/out" fsdp1_copies)" = true ]
done
expect_ok predict $f1 --fsdp1-copies on --format csv
check "fsdp1 copies: csv column on" [ "$(col "$TMP/out" framework.fsdp1_copies)" = on ]
expect_ok predict --model llama3-8b --gpus 8 --gbs 16 --shard zero1 --format json
cp "$TMP/out" "$TMP/f1_z1.json"
expect_ok predict --model llama3-8b --gpus 8 --gbs 16 --shard zero1 --fsdp1-copies on --format json
check "fsdp1 copies: no effect with zero1" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/f1_z1.json" step_time_s)" ]
onoff_refused fsdp1-copies fsdp1_copies


# --gqa-query-copy: Megatron-Core's split of the fused QKV output leaves the query
# strided and query.reshape copies it (1 < kv groups < heads per tp rank). Off by
# default, on in the megatron-core and nemo presets; Llama 3 8B (32 heads, 8 KV
# groups) gets slower with it, Llama 2 7B (MHA: a view) does not move.
expect_ok predict --model llama3-8b --format json
cp "$TMP/out" "$TMP/gq0.json"
check "gqa copy: off in JSON by default" [ "$(json_raw "$TMP/out" gqa_query_copy)" = false ]
expect_ok predict --model llama3-8b --gqa-query-copy on --format json
check "gqa copy: on in JSON" [ "$(json_raw "$TMP/out" gqa_query_copy)" = true ]
check "gqa copy: step longer" awk -v a="$(json_num "$TMP/gq0.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b > a) }'
expect_ok predict --model llama3-8b --framework megatron-core --format json
check "gqa copy: on in the megatron-core preset" [ "$(json_raw "$TMP/out" gqa_query_copy)" = true ]
expect_ok predict --model llama3-8b --framework torchtitan --format json
check "gqa copy: off in the torchtitan preset" [ "$(json_raw "$TMP/out" gqa_query_copy)" = false ]
expect_ok predict --model llama2-7b --format json
cp "$TMP/out" "$TMP/gq1.json"
expect_ok predict --model llama2-7b --gqa-query-copy on --format json
check "gqa copy: MHA unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/gq1.json" step_time_s)" ]
expect_ok predict --model llama3-8b --gqa-query-copy on --format csv
check "gqa copy: csv column on" [ "$(col "$TMP/out" framework.gqa_query_copy)" = on ]
expect_fail 1 "^plateau: --gqa-query-copy: unknown value 'yes' \(expected on\|off\)" -- predict --gqa-query-copy yes


# --fms-rope / --kv-expand-copy: IBM fms's eager attention (foundation-model-stack
# ec70f500). Off by default; kv_expand_copy on in pytorch-fsdp (HF repeat_kv) and fms-fsdp,
# both on in the fms-fsdp-2024-03 preset (session 26). Hand-derived op
# bytes (--ops json): Llama 2 7B, 1 GPU, mbs 1, seq 4096, unfused: fms's RoPE
# moves 32 B more than the fused 4 per q and k element each way: 32 x 4096 tokens
# x 64 heads x 128 = 1,073,741,824 B; Llama 3 8B (32 heads, 8 kv), seq 8192: the
# K/V expansion copies 2 B x 2 (K, V) x 8192 x (32 + 8) x 128 = 167,772,160 B each
# way; Llama 2 7B (MHA) has none.
opb() { python3 -c "import json,sys; o=[x for x in json.load(open(sys.argv[1]))['ops'] if x['name'] == sys.argv[2]]; print('%.0f %.0f' % (o[0]['fwd_bytes'], o[0]['bwd_bytes']) if o else 'none')" "$1" "$2"; }
expect_ok predict --model llama2-7b --gpus 1 --mbs 1 --gbs 1 --seq 4096 --kernels unfused --format json
check "fms rope: off in JSON by default" [ "$(json_raw "$TMP/out" fms_rope)" = false ]
check "kv expand: off in JSON by default" [ "$(json_raw "$TMP/out" kv_expand_copy)" = false ]
expect_ok predict --model llama2-7b --gpus 1 --mbs 1 --gbs 1 --seq 4096 --kernels unfused --fms-rope on --ops --format json
check "fms rope: on in JSON" [ "$(json_raw "$TMP/out" fms_rope)" = true ]
check "fms rope: 32 B per q/k element each way (hand-derived)" [ "$(opb "$TMP/out" rope_eager)" = "1073741824 1073741824" ]
expect_ok predict --model llama2-7b --gpus 1 --mbs 1 --gbs 1 --seq 4096 --fms-rope on --ops --format json
check "fms rope: nothing with fused kernels" [ "$(opb "$TMP/out" rope_eager)" = none ]
expect_ok predict --model llama3-8b --gpus 1 --mbs 1 --gbs 1 --seq 8192 --kv-expand-copy on --ops --format json
check "kv expand: on in JSON" [ "$(json_raw "$TMP/out" kv_expand_copy)" = true ]
check "kv expand: K and V copied to 32 heads (hand-derived)" [ "$(opb "$TMP/out" kv_expand)" = "167772160 167772160" ]
expect_ok predict --model llama2-7b --gpus 1 --mbs 1 --gbs 1 --seq 4096 --kv-expand-copy on --ops --format json
check "kv expand: none for MHA" [ "$(opb "$TMP/out" kv_expand)" = none ]
expect_ok predict --model llama3-8b --framework fms-fsdp-2024-03 --format json
check "fms: both on in the fms-fsdp-2024-03 preset" [ "$(json_raw "$TMP/out" fms_rope)$(json_raw "$TMP/out" kv_expand_copy)" = truetrue ]
expect_ok predict --model llama3-8b --framework fms-fsdp --format json
check "fms: rope off, kv expand copy on in the compiled fms-fsdp preset" [ "$(json_raw "$TMP/out" fms_rope)$(json_raw "$TMP/out" kv_expand_copy)" = falsetrue ]
expect_ok predict --model llama3-8b --framework pytorch-fsdp --format json
check "pytorch-fsdp (HF modules): separate linears, kv expand copy and fp32 logits on" [ "$(json_raw "$TMP/out" separate_linears)$(json_raw "$TMP/out" kv_expand_copy)$(json_raw "$TMP/out" eager_cross_entropy)" = truetruetrue ]
expect_ok predict --model llama3-8b --framework fms-fsdp --format json
check "fms-fsdp: separate linears on, bf16 logits (no eager_xent)" [ "$(json_raw "$TMP/out" separate_linears)$(json_raw "$TMP/out" eager_cross_entropy)" = truefalse ]
# fms-fsdp's loop waits on FSDP1 clip_grad_norm_'s all_reduce every step (train_utils.py .item())
check "fms-fsdp: one host-waited all_reduce per step" [ "$(json_raw "$TMP/out" step_sync_all_reduces)" = 1 ]
expect_ok predict --model llama3-8b --framework fms-fsdp-2024-03 --format json
check "fms-fsdp-2024-03: the same loop, one all_reduce" [ "$(json_raw "$TMP/out" step_sync_all_reduces)" = 1 ]
expect_ok predict --model llama3-8b --framework pytorch-fsdp --format json
check "pytorch-fsdp: no step syncs of its own" [ "$(json_raw "$TMP/out" step_sync_all_reduces)" = 0 ]
expect_ok predict --model llama3-8b --fms-rope on --kv-expand-copy on --format csv
check "fms: csv columns on" [ "$(col "$TMP/out" framework.fms_rope),$(col "$TMP/out" framework.kv_expand_copy)" = on,on ]
expect_fail 1 "^plateau: --fms-rope: unknown value 'yes' \(expected on\|off\)" -- predict --fms-rope yes
expect_fail 1 "^plateau: --kv-expand-copy: unknown value '1' \(expected on\|off\)" -- predict --kv-expand-copy 1

# torchtitan's q, k and v as three linears (layout.separate_linears: wq, wk, wv; autograd sums
# three input gradients, and Llama 3 8B's k and v GEMMs are narrow) and its RoPE by complex
# multiplication (layout.rope_complex: apply_rotary_emb, unfused under torch.compile): each off by
# default, on in the torchtitan preset, off in megatron-core, and each makes Llama 3 8B slower.
torchtitan_behaviour() { # FLAG KEY
  local flag=$1 key=$2
  expect_ok predict --model llama3-8b --format json
  cp "$TMP/out" "$TMP/$key.0.json"
  check "$key: off in JSON by default" [ "$(json_raw "$TMP/out" "$key")" = false ]
  expect_ok predict --model llama3-8b "--$flag" on --format json
  check "$key: on in JSON" [ "$(json_raw "$TMP/out" "$key")" = true ]
  check "$key: step longer" awk -v a="$(json_num "$TMP/$key.0.json" step_time_s)" \
    -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b > a) }'
  expect_ok predict --model llama3-8b --framework torchtitan --format json
  check "$key: on in the torchtitan preset" [ "$(json_raw "$TMP/out" "$key")" = true ]
  expect_ok predict --model llama3-8b --framework megatron-core --format json
  check "$key: off in the megatron-core preset" [ "$(json_raw "$TMP/out" "$key")" = false ]
  expect_ok predict --model llama3-8b "--$flag" on --format csv
  check "$key: csv column on" [ "$(col "$TMP/out" "framework.$key")" = on ]
  expect_fail 1 "^plateau: --$flag: unknown value 'yes' \(expected on\|off\)" -- predict "--$flag" yes
}
torchtitan_behaviour separate-linears separate_linears
torchtitan_behaviour rope-complex rope_complex

# FSDP2's pre-division pass of the PyTorch 2.3 line (layout.fsdp2_predivide, session 23): off by
# default and in torchtitan (later FSDP2 divides inside NCCL), on in fsdp2-study-2024, the scaling
# study's PyTorch 2.3.1 stack; with a bf16 reduce a pass over the reduce_scatter input per
# micro-batch, so the FSDP step is longer; nothing with an fp32 reduce (ReduceOp.AVG in 2.3),
# under ddp, or with one data-parallel rank (the factor is 1).
pd="--model llama2-7b --gpus 8 --gbs 8 --seq 4096 --shard zero2 --grad-reduce-dtype bf16"
expect_ok predict $pd --format json
cp "$TMP/out" "$TMP/pd0.json"
check "fsdp2_predivide: off in JSON by default" [ "$(json_raw "$TMP/out" fsdp2_predivide)" = false ]
expect_ok predict $pd --fsdp2-predivide on --format json
check "fsdp2_predivide: on in JSON" [ "$(json_raw "$TMP/out" fsdp2_predivide)" = true ]
check "fsdp2_predivide: step longer" awk -v a="$(json_num "$TMP/pd0.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b > a) }'
expect_ok predict $pd --framework torchtitan --format json
check "fsdp2_predivide: off in the torchtitan preset" [ "$(json_raw "$TMP/out" fsdp2_predivide)" = false ]
expect_ok predict $pd --framework fsdp2-study-2024 --format json
check "fsdp2_predivide: on in the fsdp2-study-2024 preset" [ "$(json_raw "$TMP/out" fsdp2_predivide)" = true ]
check "fsdp2-study-2024: eager kernels, flash attention, 37 us per kernel" [ "$(json_raw "$TMP/out" kernels),$(json_raw "$TMP/out" attention),$(json_num "$TMP/out" host_per_kernel_s)" = unfused,flash,3.7e-05 ]
expect_ok predict $pd --grad-reduce-dtype fp32 --format json
cp "$TMP/out" "$TMP/pd_fp32_0.json"
expect_ok predict $pd --grad-reduce-dtype fp32 --fsdp2-predivide on --format json
check "fsdp2_predivide: fp32 reduce unchanged (ReduceOp.AVG)" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/pd_fp32_0.json" step_time_s)" ]
expect_ok predict $pd --shard ddp --format json
cp "$TMP/out" "$TMP/pd_ddp0.json"
expect_ok predict $pd --shard ddp --fsdp2-predivide on --format json
check "fsdp2_predivide: ddp unchanged" [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/pd_ddp0.json" step_time_s)" ]
expect_ok predict $pd --fsdp2-predivide on --format csv
check "fsdp2_predivide: csv column on" [ "$(col "$TMP/out" framework.fsdp2_predivide)" = on ]
expect_fail 1 "^plateau: --fsdp2-predivide: unknown value 'yes' \(expected on\|off\)" -- predict --fsdp2-predivide yes

# FSDP2's copy-in behind the previous reduce_scatter (layout.fsdp2_rs_copy_in, PyTorch 2.3's
# foreach_reduce_scatter, session 23): on in fsdp2-study-2024, off by default and in torchtitan.
# Where the reduce_scatters set the backward (Llama 2 7B zero2 on 2,048 H100: 17 ms per call
# against ~11 ms of a block's backward), each block's copy-in adds to its reduce_scatter instead
# of running beside it: 202,383,360 parameters x 6 B (fp32 reduce: no pre-divide) at 3.35 TB/s x
# 0.9 = 0.40 ms per block, x 32 blocks = 12.9 ms, plus the embedding's and the head's (0.26 ms
# each): the step is 11 to 16 ms longer. At 8 GPUs (compute-bound) it moves by less than 1 ms.
rc="--model llama2-7b --gpu h100 --cluster dgx-h100 --seq 4096 --shard zero2 --mbs 1 --framework fsdp2-study-2024"
expect_ok predict $rc --gpus 2048 --gbs 2048 --fsdp2-rs-copy-in off --format json
cp "$TMP/out" "$TMP/rc_off.json"
check "fsdp2_rs_copy_in: off when turned off" [ "$(json_raw "$TMP/out" fsdp2_rs_copy_in)" = false ]
expect_ok predict $rc --gpus 2048 --gbs 2048 --format json
check "fsdp2_rs_copy_in: on in the fsdp2-study-2024 preset" [ "$(json_raw "$TMP/out" fsdp2_rs_copy_in)" = true ]
check "fsdp2_rs_copy_in: 2,048 H100 step 11-16 ms longer (32 blocks x 0.40 ms + edges)" awk \
  -v a="$(json_num "$TMP/rc_off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { d = b - a; exit !(d > 0.011 && d < 0.016) }'
expect_ok predict $rc --gpus 8 --gbs 8 --fsdp2-rs-copy-in off --format json
cp "$TMP/out" "$TMP/rc8_off.json"
expect_ok predict $rc --gpus 8 --gbs 8 --format json
check "fsdp2_rs_copy_in: 8 H100 (compute-bound) within 1 ms" awk \
  -v a="$(json_num "$TMP/rc8_off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { d = b - a; exit !(d >= 0 && d < 0.001) }'
expect_ok predict $pd --framework torchtitan --format json
check "fsdp2_rs_copy_in: off in the torchtitan preset" [ "$(json_raw "$TMP/out" fsdp2_rs_copy_in)" = false ]
expect_ok predict $pd --fsdp2-rs-copy-in on --format csv
check "fsdp2_rs_copy_in: csv column on" [ "$(col "$TMP/out" framework.fsdp2_rs_copy_in)" = on ]
expect_fail 1 "^plateau: --fsdp2-rs-copy-in: unknown value 'no' \(expected on\|off\)" -- predict --fsdp2-rs-copy-in no

# --fused-norm: torchtitan's Triton FusedRMSNorm (norm_type = "fused_rmsnorm", torchtitan/models/
# norms.py @ 1ea476e9f; session 24). Off by default. Llama 3 8B, 8 GPUs zero3, mbs 1, seq 8192, unfused:
# off, the eager chain rmsnorm_eager moves 2 norms x 32 B x 8192 x 4096 = 2,147,483,648 B forward
# and 2 x 86 B x 8192 x 4096 = 5,771,362,304 B backward; on, there is none and norm1 keeps the
# kernel's 4 B (x, y) = 134,217,728 B and 6 B (x, dy, dx) = 201,326,592 B: the step is shorter.
fn="--model llama3-8b --gpu h100 --gpus 8 --mbs 1 --gbs 8 --seq 8192 --shard zero3 --kernels unfused --ops --format json"
expect_ok predict $fn
cp "$TMP/out" "$TMP/fn_off.json"
check "fused_norm: off in JSON by default" [ "$(json_raw "$TMP/out" fused_norm)" = false ]
check "fused_norm: off, the eager chain (hand-derived)" [ "$(opb "$TMP/out" rmsnorm_eager)" = "2147483648 5771362304" ]
expect_ok predict $fn --fused-norm on
check "fused_norm: on in JSON" [ "$(json_raw "$TMP/out" fused_norm)" = true ]
check "fused_norm: on, no eager chain" [ "$(opb "$TMP/out" rmsnorm_eager)" = none ]
check "fused_norm: norm1 4 / 6 B per element (hand-derived)" [ "$(opb "$TMP/out" norm1)" = "134217728 201326592" ]
check "fused_norm: step shorter than the eager norm's" awk \
  -v a="$(json_num "$TMP/fn_off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(b < a) }'
expect_ok predict --model llama3-8b --framework torchtitan --fused-norm on --format csv
check "fused_norm: csv column on" [ "$(col "$TMP/out" framework.fused_norm)" = on ]
expect_fail 1 "^plateau: --fused-norm: unknown value 'yes' \(expected on\|off\)" -- predict --fused-norm yes

# --inductor-norms: torch.compile's generated RMSNorm kernels at the GPU file's published
# efficiency.rms_norm_compiled (h100 0.617: Dao-AILab/quack's H100 figure; compile29). Off by default.
# Llama 3 8B, 8 H100 zero3, mbs 1, seq 8192, fused kernels: norm1 moves 4 B x 8192 x 4096 =
# 134,217,728 B forward; off at hbm_fraction 134,217,728 / (3.35e12 x 0.9) = 44.517 us + 1.2 us =
# 45.717 us; on 134,217,728 / (3.35e12 x 0.617) = 64.935 us + 1.2 us = 66.135 us; the step is longer;
# a100-80g has no figure: on changes nothing there.
opf() { python3 -c "import json,sys; o=[x for x in json.load(open(sys.argv[1]))['ops'] if x['name'] == sys.argv[2]]; print('%.3f' % (o[0]['fwd_s'] * 1e6) if o else 'none')" "$1" "$2"; }
fi_="--model llama3-8b --gpus 8 --mbs 1 --gbs 8 --seq 8192 --shard zero3 --kernels fused --ops --format json"
expect_ok predict $fi_ --gpu h100
cp "$TMP/out" "$TMP/fi_off.json"
check "inductor_norms: off in JSON by default" [ "$(json_raw "$TMP/out" inductor_norms)" = false ]
check "inductor_norms: off, norm1 at hbm_fraction (hand-derived)" [ "$(opf "$TMP/out" norm1)" = 45.717 ]
expect_ok predict $fi_ --gpu h100 --inductor-norms on
check "inductor_norms: on in JSON" [ "$(json_raw "$TMP/out" inductor_norms)" = true ]
check "inductor_norms: on, norm1 at rms_norm_compiled 0.617 (hand-derived)" [ "$(opf "$TMP/out" norm1)" = 66.135 ]
check "inductor_norms: on, resid1 unchanged" [ "$(opf "$TMP/out" resid1)" = "$(opf "$TMP/fi_off.json" resid1)" ]
check "inductor_norms: step longer" awk \
  -v a="$(json_num "$TMP/fi_off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(b > a) }'
expect_ok predict $fi_ --gpu a100-80g
cp "$TMP/out" "$TMP/fi_a100.json"
expect_ok predict $fi_ --gpu a100-80g --inductor-norms on
check "inductor_norms: no figure for a100-80g, norm1 unchanged" [ "$(opf "$TMP/out" norm1)" = "$(opf "$TMP/fi_a100.json" norm1)" ]
expect_ok predict --model llama3-8b --framework torchtitan --inductor-norms on --format csv
check "inductor_norms: csv column on" [ "$(col "$TMP/out" framework.inductor_norms)" = on ]
expect_fail 1 "^plateau: --inductor-norms: unknown value 'yes' \(expected on\|off\)" -- predict --inductor-norms yes

# --nccl-max-ctas-{tp,cp,dp,pp}: a communicator's NCCL CTA cap (ncclConfig_t maxCTAs; Megatron-Core
# --nccl-communicator-config-path; src/net/ctas.c, session 25). 0 (none) by default. Llama 3 70B on
# 64 H100 (8 nodes), tp 8: the dp group's gradient collectives cross the nodes on 16 channels; at a
# cap of 2 each node's 8 rails carry 2 channels of 0.4 x 50 GB/s (NET_CHANNEL_NIC_FRACTION) = 40 GB/s
# instead of 320 GB/s, so the step is longer; the cap leaves the ranking (the algorithm) alone.
ct="--model llama3-70b --cluster dgx-h100 --gpus 64 --tp 8 --pp 1 --format json"
expect_ok predict $ct
cp "$TMP/out" "$TMP/ct_off.json"
check "nccl_max_ctas_dp: 0 in JSON by default" [ "$(json_raw "$TMP/out" nccl_max_ctas_dp)" = 0 ]
expect_ok predict $ct --nccl-max-ctas-dp 2
check "nccl_max_ctas_dp: 2 in JSON" [ "$(json_raw "$TMP/out" nccl_max_ctas_dp)" = 2 ]
check "nccl_max_ctas_dp: a 2-CTA dp group makes the step longer" awk \
  -v a="$(json_num "$TMP/ct_off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(b > a) }'
expect_ok predict $ct --nccl-max-ctas-tp 32 --nccl-max-ctas-dp 32
check "nccl_max_ctas: a cap at NCCL's 32 channels changes nothing" awk \
  -v a="$(json_num "$TMP/ct_off.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(a == b) }'
expect_ok predict --model llama3-8b --nccl-max-ctas-cp 4 --nccl-max-ctas-pp 2 --format csv
check "nccl_max_ctas_cp: csv column" [ "$(col "$TMP/out" framework.nccl_max_ctas_cp)" = 4 ]
check "nccl_max_ctas_pp: csv column" [ "$(col "$TMP/out" framework.nccl_max_ctas_pp)" = 2 ]
check "nccl_max_ctas_tp: csv column 0" [ "$(col "$TMP/out" framework.nccl_max_ctas_tp)" = 0 ]
expect_fail 1 "^plateau: --nccl-max-ctas-dp: '65' is not a CTA count 0..64" -- predict --nccl-max-ctas-dp 65
expect_fail 1 "^plateau: --nccl-max-ctas-pp: '-1' is not a CTA count 0..64" -- predict --nccl-max-ctas-pp -1
# --nccl-min-channels: the floor NCCL_MIN_NCHANNELS / NCCL_MIN_CTAS put under every communicator;
# a communicator's lower cap wins (NCCL init.cc: a minCTAs above maxCTAs is lowered to it): with the
# dp cap 2, a floor of 16 (DGX H100's 16 network channels already) leaves the step as it was
expect_ok predict $ct --nccl-max-ctas-dp 2
cp "$TMP/out" "$TMP/ct_cap2.json"
expect_ok predict $ct --nccl-max-ctas-dp 2 --nccl-min-channels 16
check "nccl-min-channels: the dp cap 2 still binds under a floor of 16" awk \
  -v a="$(json_num "$TMP/ct_cap2.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(a == b) }'
expect_fail 1 "^plateau: --nccl-min-channels: '65' is not a channel count 0..64" -- predict --nccl-min-channels 65


# --fp8-amax-reduce sync-dp-tp: Transformer Engine release_v0.8's blocking
# delayed-scaling amax all_reduce (MLPerf v3.0 GPT-3 images; segments.c
# sim_fp8_amax_reduce_wait_s). gpt3-175b on 512 H100 at tp 4, pp 8, vp 12, mbs 1,
# gbs 2048: dp 16, 128 micro-batches, 12 chunks of 1 block each per stage; per
# chunk and micro-batch one 48 B all_reduce forward (45.2733 us) and one 32 B
# backward (45.2488 us) over the stage's 64 ranks (`plateau collectives --cluster
# dgx-h100 --gpus 64 --bytes 32,48`): 128 x 12 x 90.522 us = 0.13904 s more a step
# (within 2 %: the pipeline bubble's share moves too); off by default.
amax_run() {
  expect_ok predict --model gpt3-175b --gpu h100 --cluster dgx-h100 --gpus 512 --tp 4 --pp 8 \
    --vp 12 --mbs 1 --gbs 2048 --shard zero1 --dtype fp8 --schedule interleaved --framework nemo \
    "$@" --format json
}
amax_run
cp "$TMP/out" "$TMP/amax_default.json"
amax_run --fp8-amax-reduce off
check "fp8 amax reduce: off is the default" \
  [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/amax_default.json" step_time_s)" ]
amax_run --fp8-amax-reduce sync-dp-tp
check "fp8 amax reduce: sync-dp-tp adds 128 x 12 x 90.52 us" awk \
  -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/amax_default.json" step_time_s)" \
  'BEGIN { d = a - b; exit !(d > 0.13904 * 0.98 && d < 0.13904 * 1.02) }'
expect_ok predict --model gpt3-175b --gpu h100 --cluster dgx-h100 --gpus 512 --tp 4 --pp 8 \
  --vp 12 --mbs 1 --gbs 2048 --shard zero1 --dtype bf16 --schedule interleaved --framework nemo \
  --fp8-amax-reduce sync-dp-tp --format json
cp "$TMP/out" "$TMP/amax_bf16_on.json"
expect_ok predict --model gpt3-175b --gpu h100 --cluster dgx-h100 --gpus 512 --tp 4 --pp 8 \
  --vp 12 --mbs 1 --gbs 2048 --shard zero1 --dtype bf16 --schedule interleaved --framework nemo \
  --format json
check "fp8 amax reduce: nothing under bf16" \
  [ "$(json_num "$TMP/out" step_time_s)" = "$(json_num "$TMP/amax_bf16_on.json" step_time_s)" ]
expect_fail 1 "^plateau: --fp8-amax-reduce: unknown mode 'maybe' \(expected off\|sync-dp-tp\)" -- predict --fp8-amax-reduce maybe
expect_fail 1 "^plateau: --fp8-amax-reduce: unknown mode 'async-tp' \(expected off\|sync-dp-tp\)" -- predict --fp8-amax-reduce async-tp
finish
