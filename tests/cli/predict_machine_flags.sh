#!/usr/bin/env bash
# Session 16 (cmd16): predict flags for what validate's loaders set and no flag expressed
# (include/plateau/run_flags.h): the machine (--hbm, --hbm-bandwidth, --nic-bandwidth, --sharp,
# --gpus-per-node) and the framework fields (--eager-cross-entropy, --step-sync-all-reduces,
# --step-sync-broadcasts, --step-sync-all-gathers, --opt-syncs-per-tensor). Each: its effect
# or its value in the output, and its bad values (one line, exit 1).
. "$(dirname "$0")/lib.sh"

# get FILE EXPR: a value of predict's JSON in FILE (d = the document)
get() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# step ARGS...: predict's step time for ARGS
step() { "$PLATEAU" predict "$@" --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["step_time_s"])'; }
slower() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' "$1" "$2"; }

base=$(step)
two=$(step --nodes 2)

# --hbm: the capacity; 40 GiB cannot hold Llama-2 7B on 8 GPUs with zero2 (~46 GiB)
expect_ok predict --hbm '40 GiB' --format json
check "--hbm '40 GiB' is the capacity (42949672960 B)" [ "$(get "$TMP/out" 'd["memory"]["capacity_bytes"]')" = "42949672960.0" ]
check "--hbm: reported as hardware.hbm_bytes" [ "$(get "$TMP/out" 'd["hardware"]["hbm_bytes"]')" = "42949672960.0" ]
check "--hbm '40 GiB': does not fit" [ "$(get "$TMP/out" 'd["memory"]["fits"]')" = "False" ]
expect_fail 1 "^plateau: --hbm: '80' is not a memory size above 0 \(e.g. '80 GiB'\)$" -- predict --hbm 80
expect_fail 1 "^plateau: --hbm: '0 GiB' is not a memory size above 0" -- predict --hbm '0 GiB'
expect_fail 1 "^plateau: --hbm: '' is not a memory size" -- predict --hbm ''
expect_fail 1 "^plateau: --hbm: '80 GB/s' is not a memory size" -- predict --hbm '80 GB/s'

# --hbm-bandwidth: memory-bound kernels slower at 1 TB/s than the H100's 3.35 TB/s
check "--hbm-bandwidth '1 TB/s' is slower" slower "$(step --hbm-bandwidth '1 TB/s')" "$base"
check "--hbm-bandwidth '3.35 TB/s' is the H100's" [ "$(step --hbm-bandwidth '3.35 TB/s')" = "$base" ]
expect_fail 1 "^plateau: --hbm-bandwidth: 'fast' is not a bandwidth above 0 \(e.g. '3.35 TB/s'\)$" -- predict --hbm-bandwidth fast
expect_fail 1 "^plateau: --hbm-bandwidth: '-1 TB/s' is not a bandwidth above 0" -- predict --hbm-bandwidth '-1 TB/s'

# --nic-bandwidth: per NIC; DGX H100's are 400 Gb/s = 50 GB/s, a quarter of that is slower
check "--nic-bandwidth '100 Gb/s' is slower on 2 nodes" slower "$(step --nodes 2 --nic-bandwidth '100 Gb/s')" "$two"
check "--nic-bandwidth '50 GB/s' is DGX H100's 400 Gb/s" [ "$(step --nodes 2 --nic-bandwidth '50 GB/s')" = "$two" ]
expect_ok predict --nic-bandwidth '100 Gb/s' --format json
check "--nic-bandwidth: reported as hardware.nic_bytes_per_s" [ "$(get "$TMP/out" 'd["hardware"]["nic_bytes_per_s"]')" = "12500000000.0" ]
expect_fail 1 "^plateau: --nic-bandwidth: '400' is not a bandwidth above 0 \(e.g. '400 Gb/s'\)$" -- predict --nic-bandwidth 400
expect_fail 1 "^plateau: --nic-bandwidth: '0 Gb/s' is not a bandwidth above 0" -- predict --nic-bandwidth '0 Gb/s'

# --sharp: CollNet for groups of >= 2 nodes; zero1's reductions on 4 nodes get faster
z1=$(step --nodes 4 --shard zero1)
check "--sharp on is faster for zero1 on 4 nodes" slower "$z1" "$(step --nodes 4 --shard zero1 --sharp on)"
check "--sharp off is dgx-h100's" [ "$(step --nodes 4 --shard zero1 --sharp off)" = "$z1" ]
expect_ok predict --sharp on --format json
check "--sharp: reported as hardware.sharp" [ "$(get "$TMP/out" 'd["hardware"]["sharp"]')" = "True" ]
expect_fail 1 "^plateau: --sharp: unknown value 'yes' \(expected on\|off\)$" -- predict --sharp yes
expect_fail 1 "^plateau: --sharp: on needs an InfiniBand network \(cluster 'aws-p5' has 'efa'\)$" -- predict --cluster aws-p5 --sharp on

# --gpus-per-node: 128 GB200s in NVLink segments of 16 trays (64 GPUs): 2 nodes; the 72-GPU
# rack does not divide 128
expect_ok predict --gpu gb200 --gpus 128 --gpus-per-node 64 --format json
check "--gpus-per-node 64: 2 nodes of 64" [ "$(get "$TMP/out" 'd["layout"]["nodes"], d["hardware"]["gpus_per_node"]')" = "(2, 64)" ]
# without the flag the rack is cut the same way (pl_cluster_place: whole trays, the largest
# segment that divides 128); an explicit node size is placed as given
expect_ok predict --gpu gb200 --gpus 128 --format json
check "gb200, 128 GPUs: 2 segments of 64" [ "$(get "$TMP/out" 'd["layout"]["nodes"], d["hardware"]["gpus_per_node"]')" = "(2, 64)" ]
# 128 GPUs on nodes of 72 (72 + 56): the uneven data-parallel group is priced as 2 full nodes
# (pl_group_strided, src/net/group.c), no longer refused
expect_ok predict --gpu gb200 --gpus 128 --gpus-per-node 72 --format json
check "gb200, 128 GPUs on nodes of 72: 2 nodes" [ "$(get "$TMP/out" 'd["layout"]["nodes"], d["hardware"]["gpus_per_node"]')" = "(2, 72)" ]
expect_fail 1 "^plateau: --gpus-per-node: '73' is not a GPU count from 1 to the cluster's 72$" -- predict --gpu gb200 --gpus-per-node 73
expect_fail 1 "^plateau: --gpus-per-node: '0' is not a GPU count" -- predict --gpus-per-node 0
expect_fail 1 "^plateau: --gpus-per-node: 'two' is not a GPU count" -- predict --gpus-per-node two
expect_fail 1 "^plateau: --gpus-per-node: 3 GPUs would hold a part of a NIC \(the cluster has 4 NICs per 8 GPUs\)$" -- predict --cluster aws-p4de --gpus-per-node 3

# --eager-cross-entropy: an fp32 log_softmax output and gradients, 8 B more per logit
expect_ok predict --model llama3-8b --format json
plain=$(get "$TMP/out" 'd["memory"]["total_bytes"]')
expect_ok predict --model llama3-8b --eager-cross-entropy on --format json
check "--eager-cross-entropy on holds more memory" slower "$(get "$TMP/out" 'd["memory"]["total_bytes"]')" "$plain"
check "--eager-cross-entropy: reported" [ "$(get "$TMP/out" 'd["framework"]["eager_cross_entropy"]')" = "True" ]
# ... and its time with the fused kernels of the default (torchtitan compiled
# without its loss): the fp32 cast and passes, a slower step (compute.c eager_xent_op)
expect_ok predict --model llama3-8b --seq 4096 --format json
cp "$TMP/out" "$TMP/plain.json"
expect_ok predict --model llama3-8b --seq 4096 --eager-cross-entropy on --format json
check "--eager-cross-entropy on: a slower step with fused kernels" slower "$(get "$TMP/out" 'd["step_time_s"]')" "$(get "$TMP/plain.json" 'd["step_time_s"]')"
expect_fail 1 "^plateau: --eager-cross-entropy: unknown value 'yes' \(expected on\|off\)$" -- predict --eager-cross-entropy yes


# --fp32-param-shards (FSDP2's fp32 shards, 16 B per parameter instead of 18) and
# --tp-gathered-saved (DTensor's column-parallel linears save the gathered input): memory only
expect_ok predict --model llama3-8b --gpus 8 --shard zero3 --format json
z3=$(get "$TMP/out" 'd["memory"]["total_bytes"]'); z3s=$(get "$TMP/out" 'd["step_time_s"]')
expect_ok predict --model llama3-8b --gpus 8 --shard zero3 --fp32-param-shards on --format json
check "--fp32-param-shards on holds less memory" slower "$z3" "$(get "$TMP/out" 'd["memory"]["total_bytes"]')"
check "--fp32-param-shards: same step" [ "$(get "$TMP/out" 'd["step_time_s"]')" = "$z3s" ]
check "--fp32-param-shards: reported" [ "$(get "$TMP/out" 'd["framework"]["fp32_param_shards"]')" = "True" ]
expect_ok predict --model llama3-8b --gpus 8 --tp 2 --sequence-parallel on --format json
tp=$(get "$TMP/out" 'd["memory"]["total_bytes"]')
expect_ok predict --model llama3-8b --gpus 8 --tp 2 --sequence-parallel on --tp-gathered-saved on --format json
check "--tp-gathered-saved on holds more memory" slower "$(get "$TMP/out" 'd["memory"]["total_bytes"]')" "$tp"
check "--tp-gathered-saved: reported" [ "$(get "$TMP/out" 'd["framework"]["tp_gathered_saved"]')" = "True" ]
expect_ok predict --model llama3-8b --gpus 8 --framework torchtitan --format json
check "the torchtitan preset: DTensor's saved gathers, fp32 shards, eager loss" [ "$(get "$TMP/out" 'd["framework"]["tp_gathered_saved"], d["framework"]["fp32_param_shards"], d["framework"]["eager_cross_entropy"]')" = "(True, True, True)" ]
expect_fail 1 "^plateau: --fp32-param-shards: unknown value 'yes' \(expected on\|off\)$" -- predict --fp32-param-shards yes
expect_fail 1 "^plateau: --tp-gathered-saved: unknown value '1' \(expected on\|off\)$" -- predict --tp-gathered-saved 1
# --step-sync-*: host-waited small collectives per step add their latency
check "--step-sync-all-reduces 8 is slower on 2 nodes" slower "$(step --nodes 2 --step-sync-all-reduces 8)" "$two"
check "--step-sync-broadcasts 8 is slower on 2 nodes" slower "$(step --nodes 2 --step-sync-broadcasts 8)" "$two"
check "--step-sync-all-gathers 8 is slower on 2 nodes" slower "$(step --nodes 2 --step-sync-all-gathers 8)" "$two"
check "--step-sync-all-reduces 0 over llm-foundry's 3 is faster" slower \
  "$(step --framework llm-foundry --nodes 2)" "$(step --framework llm-foundry --nodes 2 --step-sync-all-reduces 0)"
for f in step-sync-all-reduces step-sync-broadcasts step-sync-all-gathers; do
  expect_fail 1 "^plateau: --$f: '65' is not a call count 0..64$" -- predict --$f 65
  expect_fail 1 "^plateau: --$f: '-1' is not a call count 0..64$" -- predict --$f -1
  expect_fail 1 "^plateau: --$f: 'x' is not a call count 0..64$" -- predict --$f x
done

# --opt-syncs-per-tensor: each parameter tensor's optimizer kernels wait for the host
hk=$(step --host-per-kernel '37 us')
check "--opt-syncs-per-tensor 1 is slower" slower "$(step --host-per-kernel '37 us' --opt-syncs-per-tensor 1)" "$hk"
expect_fail 1 "^plateau: --opt-syncs-per-tensor: '5' is not a sync count 0..4$" -- predict --opt-syncs-per-tensor 5
expect_fail 1 "^plateau: --opt-syncs-per-tensor: '' is not a sync count 0..4$" -- predict --opt-syncs-per-tensor ''

# search and sweep take them too (RUN_OPTS)
expect_ok sweep --gpus 8,16 --threads 1 --hbm-bandwidth '2 TB/s' --nic-bandwidth '200 Gb/s' --format csv
check "sweep: the machine in its CSV" grep -q ',8.589934592e+10,2e+12,2.5e+10,off,off,' "$TMP/out"
finish
