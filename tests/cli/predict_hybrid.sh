#!/usr/bin/env bash
# Hybrid Mamba-2 stacks (docs/model.md "Hybrid Mamba-2 models"): the
# nemotron-3-nano preset and its HF NemotronH config predict end to end with
# the published parameter counts; tensor parallelism splits the Mamba mixer;
# bad hybrid input fails with one line and exit 1.
. "$(dirname "$0")/lib.sh"

json_num() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | sed 's/.*: *//'; }

expect_ok predict --model nemotron-3-nano --gpu gb200 --gpus 8 --ep 8 --mbs 2 --gbs 512 \
  --shard zero1 --dtype mxfp8 --moe-imbalance 1 --format json
cp "$TMP/out" "$TMP/nano.json"
check "params 31,577,940,288 (published 31.6B)" grep -q '"params": 31577940288' "$TMP/nano.json"
check "active 3,580,076,352 (published 3.6B with embeddings)" \
  grep -q '"active_params": 3580076352' "$TMP/nano.json"
check "23 MoE blocks" [ "$(json_num "$TMP/nano.json" moe_layers)" = 23 ]
check "a finite positive step time" awk -v t="$(json_num "$TMP/nano.json" step_time_s)" \
  'BEGIN { exit !(t > 0 && t < 1e6) }'
check "expert dispatch: all_to_all over ep" grep -q '"op": "all_to_all"' "$TMP/nano.json"

expect_ok predict --model nemotron-3-nano --gpu gb200 --gpus 8 --ep 8 --mbs 2 --gbs 512 \
  --shard zero1 --dtype mxfp8 --moe-imbalance 1 --ops
check "explain lists the Mamba ops" grep -Eq "^  layer +ssd_chunk_scan +gemm" "$TMP/out"
check "explain lists in_proj" grep -Eq "^  layer +in_proj +gemm +16384 x 10304 x 2688" "$TMP/out"

expect_ok predict --model "$PL_TEST_DATA/hf/Nemotron-3-Nano-30B-A3B.json" --gpus 8 --ep 8 \
  --seq 8192 --format json
check "HF NemotronH config: the preset's params" grep -q '"params": 31577940288' "$TMP/out"

# tp 2 splits heads 64 and groups 8 (Megatron-Core MambaMixer): one tp all_reduce per block
expect_ok predict --model nemotron-3-nano --gpu gb200 --gpus 8 --tp 2 --ep 4 --gbs 64 --format json
check "tp 2: tp all_reduce" grep -q '"group": "tp"' "$TMP/out"

# CUDA graph scope mamba (Megatron-Core CudaGraphModule.mamba): the Mamba blocks' kernels
# cost the host nothing, so a host-bound run (200 us per kernel) gets faster
expect_ok predict --model nemotron-3-nano --gpu h100 --gpus 8 --ep 8 --seq 256 --gbs 8 \
  --host-per-kernel 200us --format json
cp "$TMP/out" "$TMP/eager.json"
expect_ok predict --model nemotron-3-nano --gpu h100 --gpus 8 --ep 8 --seq 256 --gbs 8 \
  --host-per-kernel 200us --cuda-graph-scope mamba --format json
check "mamba scope: host-bound step faster" awk -v a="$(json_num "$TMP/eager.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b < a) }'
expect_fail 1 "^plateau: layout cp=2: context parallelism of Mamba layers is not modelled" -- \
  predict --model nemotron-3-nano --gpus 16 --cp 2 --gbs 64
expect_fail 1 "unknown CUDA graph scope 'mambo' \(expected none or a comma-separated list of attn\|mlp\|moe_router\|moe_preprocess\|mamba\|full_iteration\)" -- \
  predict --model nemotron-3-nano --cuda-graph-scope mambo

cat >"$TMP/badletter.json" <<'JSON'
{"name": "h", "layers": 3, "hidden": 256, "heads": 4, "ffn_hidden": 512, "vocab": 1000,
 "seq_len": 512, "mlp": "gelu", "pos": "rotary", "norm": "rms", "hybrid_pattern": "MQ*",
 "mamba_heads": 8, "mamba_head_dim": 64, "mamba_groups": 2, "mamba_state": 16}
JSON
expect_fail 1 "^plateau: model 'h': hybrid_pattern 'MQ\*' has a letter other than M" -- \
  predict --model "$TMP/badletter.json"
sed 's/"MQ\*"/"M*"/' "$TMP/badletter.json" >"$TMP/badlen.json"
expect_fail 1 "hybrid_pattern has 2 blocks but layers is 3" -- predict --model "$TMP/badlen.json"
sed 's/"MQ\*"/"M*-"/; s/"mamba_groups": 2/"mamba_groups": 3/' "$TMP/badletter.json" >"$TMP/badg.json"
expect_fail 1 "mamba_groups 3 must divide mamba_heads 8" -- predict --model "$TMP/badg.json"
sed 's/"MQ\*"/"M*-"/' "$TMP/badletter.json" >"$TMP/good.json"
expect_ok predict --model "$TMP/good.json" --gpus 2 --tp 2
# the Bridge Nemotron 3 Nano rows run the recipe's unfused router (nemotron_3_nano.py
# moe_router_fusion False): every one says so and predicts with --moe-router-fusion off,
# which is slower than the fused router at the same command
expect_ok validate "$PL_SOURCE_DIR/data/validation/megatron_bridge_performance_summary.csv" --format csv
grep 'nemotron-3-nano' "$TMP/out" >"$TMP/nano_rows.csv"
n_nano=$(wc -l <"$TMP/nano_rows.csv")
check "bridge nano rows ($n_nano)" [ "$n_nano" -ge 20 ]
check "bridge nano rows: unfused router noted" [ "$(grep -c 'unfused router' "$TMP/nano_rows.csv")" = "$n_nano" ]
check "bridge nano rows: predicted with --moe-router-fusion off" \
  [ "$(grep -c -- '--moe-router-fusion off' "$TMP/nano_rows.csv")" = "$n_nano" ]
# 26.08's Nano GB300 MXFP8 recipe sets fp8_dot_product_attention (HEAD perf_recipes/nemotronh/
# gb300/nemotronh.py); the v0.5.0 Nano configs (26.06) do not
check "bridge nano 26.08 gb300: MXFP8 attention" \
  [ "$(grep -c -- '--fp8-attention on' "$TMP/nano_rows.csv")" = 1 ]
# 26.08's Nano recipes set their own moe_hybridep_num_sms after _benchmark_common's 32
# (HEAD perf_recipes/nemotronh/gb300/nemotronh.py _build_nemotron_3_nano_gb300_mxfp8: 16),
# and the row's value beats the nemo preset's 32: the one 26.08 Nano row runs 16 SMs, the
# earlier GB rows keep 32
check "bridge nano 26.08 gb300: the recipe's 16 HybridEP SMs noted" \
  [ "$(grep -c '16 HybridEP SMs' "$TMP/nano_rows.csv")" = 1 ]
check "bridge nano 26.08 gb300: predicted with --hybridep-sms 16" \
  [ "$(grep -c -- '--hybridep-sms 16' "$TMP/nano_rows.csv")" = 1 ]
check "bridge nano 26.08 gb300: the noted row is the one with 16" \
  [ "$(grep '16 HybridEP SMs' "$TMP/nano_rows.csv" | grep -c -- '--hybridep-sms 16')" = 1 ]
check "bridge nano gb rows before 26.08: the preset's 32" \
  [ "$(grep -c -- '--hybridep-sms 32' "$TMP/nano_rows.csv")" -ge 6 ]
check "bridge qwen3 rows: fused router" [ "$(grep 'qwen3-30b' "$TMP/out" | grep -c 'moe-router-fusion off')" = 0 ]
expect_ok predict --model nemotron-3-nano --gpu gb200 --gpus 8 --ep 8 --mbs 2 --gbs 512 --format json
cp "$TMP/out" "$TMP/rf_on.json"
expect_ok predict --model nemotron-3-nano --gpu gb200 --gpus 8 --ep 8 --mbs 2 --gbs 512 \
  --moe-router-fusion off --format json
check "nano: the unfused router is slower" awk -v a="$(json_num "$TMP/rf_on.json" step_time_s)" \
  -v b="$(json_num "$TMP/out" step_time_s)" 'BEGIN { exit !(b > a) }'

expect_fail 1 "tp must divide the Mamba heads \(8\) and groups \(2\)" -- predict \
  --model "$TMP/good.json" --gpus 4 --tp 4
# MTP in a hybrid stack needs the module's blocks (mtp_hybrid_override_pattern)
sed 's/"num_hidden_layers": 52,/"num_hidden_layers": 52, "num_nextn_predict_layers": 1,/' \
  "$PL_TEST_DATA/hf/Nemotron-3-Nano-30B-A3B.json" >"$TMP/mtp.json"
expect_fail 1 "num_nextn_predict_layers 1 needs mtp_hybrid_override_pattern" -- predict \
  --model "$TMP/mtp.json"
sed 's/"num_hidden_layers": 52,/"num_hidden_layers": 52, "num_nextn_predict_layers": 1, "mtp_hybrid_override_pattern": "*E",/' \
  "$PL_TEST_DATA/hf/Nemotron-3-Nano-30B-A3B.json" >"$TMP/mtp.json"
expect_ok predict --model "$TMP/mtp.json" --gpu b200 --gpus 8 --ep 8 --seq 4096 --shard zero1 \
  --mtp-layers 2 --format json
cp "$TMP/out" "$TMP/mtp_out.json"
expect_ok predict --model nemotron-3-nano --gpu b200 --gpus 8 --ep 8 --seq 4096 --shard zero1 \
  --format json
check "hybrid MTP: two '*E' runs make the step slower" awk \
  -v a="$(json_num "$TMP/out" step_time_s)" -v b="$(json_num "$TMP/mtp_out.json" step_time_s)" \
  'BEGIN { exit !(b > a) }'
# latent MoE: the experts and the dispatch at moe_latent_size (fewer parameters)
sed 's/"num_hidden_layers": 52,/"num_hidden_layers": 52, "moe_latent_size": 1024,/' \
  "$PL_TEST_DATA/hf/Nemotron-3-Nano-30B-A3B.json" >"$TMP/latent.json"
expect_ok predict --model "$TMP/latent.json" --gpus 8 --ep 8 --format json
check "latent MoE: fewer parameters than the h-wide experts" awk \
  -v a="$(json_num "$TMP/out" params)" -v b="$(json_num "$TMP/mtp_out.json" params)" \
  'BEGIN { exit !(a < b) }'
sed 's/"num_hidden_layers": 52,/"num_hidden_layers": 52, "moe_latent_size": -4,/' \
  "$PL_TEST_DATA/hf/Nemotron-3-Nano-30B-A3B.json" >"$TMP/latent_bad.json"
expect_fail 1 "moe_latent_size" -- predict --model "$TMP/latent_bad.json"
expect_fail 1 "cannot place a hybrid model's 2-block MTP module" -- predict \
  --model nemotron-3-super --gpus 64 --ep 64 --mtp-layers 2 --pipeline-layout 'Et*88mmL'
expect_ok predict --model nemotron-3-super --gpu gb300 --gpus 64 --ep 64 --mtp-layers 2 \
  --seq 8192 --mbs 1 --gbs 512 --dtype nvfp4 --format json
cp "$TMP/out" "$TMP/fp4.json"
expect_ok predict --model nemotron-3-super --gpu gb300 --gpus 64 --ep 64 --mtp-layers 2 \
  --seq 8192 --mbs 1 --gbs 512 --dtype nvfp4 --bf16-last-blocks 14 --format json
check "--bf16-last-blocks: in the JSON" [ "$(json_num "$TMP/out" bf16_last_blocks)" = 14 ]
check "the model's latent width in the JSON" [ "$(json_num "$TMP/out" moe_latent)" = 1024 ]
check "the model's MTP module in the JSON" grep -q '"mtp_pattern": "\*E"' "$TMP/out"
check "--bf16-last-blocks 14: 16-bit GEMMs make the NVFP4 step slower" awk \
  -v a="$(json_num "$TMP/fp4.json" step_time_s)" -v b="$(json_num "$TMP/out" step_time_s)" \
  'BEGIN { exit !(b > a) }'
expect_ok predict --model nemotron-3-super --gpu gb300 --gpus 64 --ep 64 --mtp-layers 2 \
  --seq 8192 --mbs 1 --gbs 512 --dtype nvfp4 --bf16-last-blocks 14 \
  --bf16-modules linear_qkv,linear_proj,latent_proj --format json
check "--bf16-modules: in the JSON" grep -q '"bf16_modules": "linear_qkv,linear_proj,latent_proj"' \
  "$TMP/out"
expect_fail 1 "--bf16-modules: unknown 16-bit module 'fc1'" -- predict --model nemotron-3-super \
  --bf16-modules fc1
expect_fail 1 "--bf16-last-blocks 89 must be between 0 and the model's 88 blocks" -- predict \
  --model nemotron-3-super --gpu gb300 --gpus 64 --ep 64 --bf16-last-blocks 89
expect_fail 1 "--bf16-last-blocks: .x. is not a positive integer" -- predict \
  --model nemotron-3-super --bf16-last-blocks x
sed 's/"num_hidden_layers": 52,/"num_hidden_layers": 51,/' \
  "$PL_TEST_DATA/hf/Nemotron-3-Nano-30B-A3B.json" >"$TMP/hf51.json"
expect_fail 1 "hybrid_pattern has 52 blocks but layers is 51" -- predict --model "$TMP/hf51.json"

finish
