#!/usr/bin/env bash
# The data-parallel bucket per NeMo release (docs/frameworks.md "Bucket size"): NeMo 2 and
# Megatron-Bridge rows run the nemo preset's 128 Mi-parameter bucket (bucket_params, NeMo's
# MegatronCommOverlapCallback / Bridge's CommOverlapConfig _get_optimizer_overlap_cfgs), NeMo 1.x
# rows Apex's 100 MiB (nemo-2024), MLPerf GPT-3 rows the BUCKET_CAP_MB their config sets (v3.x
# 100, v4.x config_common.sh 200, v4.1's 32-node config 125); a bad cell skips the row, named.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/nemo_2409_2507_performance_summary.csv" "$V/nemo_2407_performance_summary.csv" \
  "$V/mlperf_gpt3.csv" "$V/mlperf_v5.csv" --format csv
check "NeMo 25.02 row: nemo preset, 128 Mi parameters" \
  grep -qE '^"nemo_2409_2507_performance_summary",2,.*,"nemo",.*--bucket-params 134217728 ' "$TMP/out"
# session 25 (nemo25): the container's launcher configs (NeMo-Framework-Launcher tag 24.07,
# 8325688d) per model: gpt3/5b.yaml optim.bucket_cap_mb 400, nemotron_8b 100, llama 125
check "NeMo 24.07 GPT3-5B row: nemo-2024, the launcher config's 400 MiB" \
  grep -qE '^"nemo_2407_performance_summary",1,.*--framework nemo-2024 .*--bucket-mb 400 ' "$TMP/out"
check "NeMo 24.07 Nemotron-8B row: 100 MiB" \
  grep -qE '^"nemo_2407_performance_summary",8,.*--bucket-mb 100 ' "$TMP/out"
check "NeMo 24.07 LLAMA2-7B row: 125 MiB" \
  grep -qE '^"nemo_2407_performance_summary",5,.*--bucket-mb 125 ' "$TMP/out"
# cross_entropy_loss_fusion true in nemotron_8b/22b and llama3_8b/70b at the 24.07 tag (not the
# llama2 / gpt3 / 340b files): Megatron-Core's fused loss there, the unfused one elsewhere
check "NeMo 24.07 LLAMA3-8B row: fused cross-entropy (launcher config)" \
  grep -qE '^"nemo_2407_performance_summary",11,.*cross_entropy_loss_fusion true.*--megatron-xent off ' "$TMP/out"
check "NeMo 24.07 LLAMA2-7B row: unfused cross-entropy" \
  grep -qE '^"nemo_2407_performance_summary",5,.*--megatron-xent on ' "$TMP/out"
check "NeMo 24.03.01 long-sequence row: unfused, 125 MiB (launcher tag 24.03.01)" \
  grep -qE '^"nemo_2407_performance_summary",63,.*24.03.01 5c7e280a.*--megatron-xent on .*--bucket-mb 125 ' "$TMP/out"
# the 24.x launcher's config.yaml env_vars NVTE_FUSED_ATTN: 0 (tags 24.03.01, 24.07): FlashAttention-2
# (the nemo-2024 preset's attention, session 28 era28), the short- and the long-sequence rows
check "rows 11 and 63 run FlashAttention-2 (the launcher's NVTE_FUSED_ATTN=0)" bash -c "
  grep -E '^\"nemo_2407_performance_summary\",11,' '$TMP/out' | grep -q -- '--attention flash ' &&
  grep -E '^\"nemo_2407_performance_summary\",63,' '$TMP/out' | grep -q -- '--attention flash '"
check "MLPerf v5.0 405B (NeMo 2 callback): 128 Mi parameters" \
  grep -qE '^"mlperf_v5",1,.*--bucket-params 134217728 ' "$TMP/out"
check "MLPerf GPT-3 v3.0: 100 MiB" \
  grep -qE '^"mlperf_gpt3",1,.*buckets of 100 MiB \(BUCKET_CAP_MB.*--bucket-mb 100 ' "$TMP/out"
check "MLPerf GPT-3 v4.0: 200 MiB (config_common.sh)" \
  grep -qE '^"mlperf_gpt3",28,.*buckets of 200 MiB.*--bucket-mb 200 ' "$TMP/out"
check "MLPerf GPT-3 v4.1 32 nodes: 125 MiB" \
  grep -qE '^"mlperf_gpt3",43,.*buckets of 125 MiB.*--bucket-mb 125 ' "$TMP/out"
# NeMo r2.3.0/r2.4.0 bf16_with_fp8_current_scaling_mixed sets fp8_param_gather whatever the sharding:
# the 25.04/25.07 FP8-CS rows under the distributed optimizer gather FP8 parameters (session 23)
check "NeMo 25.0x FP8-CS row under the distributed optimizer: FP8 parameters gathered at 1 B" \
  grep -qE '^"nemo_2409_2507_performance_summary",11,.*FP8 parameters, gathered at 1 B.*--fp8-all-gather on' "$TMP/out"
# session 24: the 25.02 rows' FP8 recipe, bf16_with_fp8_mixed (delayed), sets fp8_params too
# (v2.2.0 mixed_precision.py; MegatronMixedPrecision -> fp8_param_gather), so they gather at 1 B;
# r2.3.0's performance scripts turn it off under Megatron FSDP (25.04 row 12), r2.4.0's do not
# (25.07 row 19); the NeMo 24.07 rows (NeMo 1 launcher) are not read by that rule
check "NeMo 25.02 FP8 (bf16_with_fp8_mixed) row: FP8 parameters gathered at 1 B" \
  grep -qE '^"nemo_2409_2507_performance_summary",3,.*bf16_with_fp8_mixed.s fp8_param_gather.*--fp8-all-gather on' "$TMP/out"
check "NeMo 25.04 Megatron FSDP FP8-CS row: BF16 parameters (r2.3.0 turns the gather off)" \
  grep -qE '^"nemo_2409_2507_performance_summary",12,.*BF16 parameters \(r2.3.0.*--fp8-all-gather off' "$TMP/out"
check "NeMo 25.07 Megatron FSDP FP8-CS row: FP8 parameters" \
  grep -qE '^"nemo_2409_2507_performance_summary",19,.*--shard zero3 .*--fp8-all-gather on' "$TMP/out"
check "NeMo 24.07 row: no FP8 parameter gather by the NeMo 2 rule" \
  bash -c "! grep -E '^\"nemo_2407_performance_summary\",' '$TMP/out' | grep -q 'bf16_with_fp8_mixed'"
expect_ok validate "$V/dgxc_benchmarking.csv" --format csv
check "dgxc NeMo 2 FP8 row (bf16_with_fp8_mixed): FP8 parameters gathered at 1 B" \
  grep -qE '^"dgxc_benchmarking",192,.*bf16_with_fp8_mixed.s fp8_param_gather.*--fp8-all-gather on' "$TMP/out"
check "dgxc NeMo 1 FP8 row: not by the NeMo 2 rule" \
  bash -c "! grep -E '^\"dgxc_benchmarking\",6,' '$TMP/out' | grep -q 'bf16_with_fp8_mixed'"
# the NeMo 1 FP8 rows with fp8_params (fp8_model_init; Apex distributed_fused_adam's uint8 FP8
# buckets, or mcore_distributed_optim's fp8_param_gather = fp8_params) gather at 1 B; a BF16 row
# with fp8_params true builds no FP8 weights
check "dgxc NeMo 1 FP8 row with fp8_params: FP8 parameters gathered at 1 B" \
  grep -qE '^"dgxc_benchmarking",6,.*fp8_params: fp8_model_init.*--fp8-all-gather on' "$TMP/out"
check "dgxc NeMo 1 FP8 row under mcore_distributed_optim: FP8 parameters too" \
  grep -qE '^"dgxc_benchmarking",113,.*--fp8-all-gather on' "$TMP/out"
check "dgxc NeMo 1 BF16 row with fp8_params: no FP8 parameters" \
  grep -qE '^"dgxc_benchmarking",61,.*--fp8-all-gather off' "$TMP/out"
expect_ok validate "$V/nemo_2409_2507_performance_summary.csv" "$V/nemo_2407_performance_summary.csv" \
  "$V/mlperf_gpt3.csv" "$V/mlperf_v5.csv" --format csv
check "no MLPerf GPT-3 row in parameters" bash -c "! grep -E '^\"mlperf_gpt3\",' '$TMP/out' | grep -q 'bucket-params'"
# bad cells: one row each, built from row 1
head -1 "$V/mlperf_gpt3.csv" > "$TMP/bad.csv"
row=$(sed -n 2p "$V/mlperf_gpt3.csv" | tr -d '\r')
# (BUCKET_CAP_MB is followed by FP8_PARAMS (config), empty in row 1, the two userbuffers SMs and
# the image's attention backend and cuDNN: flash and empty in row 1)
# then the four NCCL CTA columns (session 25) and Megatron-Core's caps (session 29): set aside, put back last
cta=",$(echo "$row" | awk -F, '{ print $(NF-4) "," $(NF-3) "," $(NF-2) "," $(NF-1) "," $NF }')"
row=${row%"$cta"}
echo "${row%,100,,24,20,flash,},-5,,24,20,flash,$cta" >> "$TMP/bad.csv"
echo "${row%,100,,24,20,flash,},big,,24,20,flash,$cta" >> "$TMP/bad.csv"
echo "${row%,100,,24,20,flash,},2e5,,24,20,flash,$cta" >> "$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv" --format csv
check "BUCKET_CAP_MB negative skipped" grep -qE "^\"bad\",1,.*column 'BUCKET_CAP_MB \(config\)': '-5' is not a size in MiB" "$TMP/out"
check "BUCKET_CAP_MB not a number skipped" grep -qE "^\"bad\",2,.*column 'BUCKET_CAP_MB \(config\)': 'big'" "$TMP/out"
check "BUCKET_CAP_MB too large skipped" grep -qE "^\"bad\",3,.*column 'BUCKET_CAP_MB \(config\)': '2e5'" "$TMP/out"
finish
