#!/usr/bin/env bash
# The userbuffers SMs of the NeMo 2 performance page's rows (session 25, nemo25): each
# performance script hands MegatronCommOverlapCallback the ub config of its GPU and dtype
# (NVIDIA/NeMo v2.2.0 scripts/llm/performance, v2.3.0 / v2.4.0 scripts/performance/llm
# pretrain_*.py ub_cfg[gpu_type][compute_dtype]); the proj/fc2 fprop num_sm of that config
# (ring exchange: 1) replace the nemo preset's 24/16. Rows without tp overlap or tp 1 keep none.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/nemo_2409_2507_performance_summary.csv" --format csv
check "25.02 B200 Llama3 70B: fp8 b200 h8192 tp2 config, ring exchange 1/1" \
  grep -qE '^"nemo_2409_2507_performance_summary",3,.*userbuffers_fp8_b200_h8192_tp2.*--ub-proj-fprop-sms 1 --ub-fc2-fprop-sms 1 ' "$TMP/out"
check "25.02 B200 Nemotron-340B: the bf16 config for every dtype, fc2 pipeline 24" \
  grep -qE '^"nemo_2409_2507_performance_summary",6,.*userbuffers_bf16_b200_h18432_tp8.*--ub-proj-fprop-sms 1 --ub-fc2-fprop-sms 24 ' "$TMP/out"
check "25.02 H100 GPT3 175B: fp8 h100 h12288 config, proj pipeline 24, fc2 ring exchange" \
  grep -qE '^"nemo_2409_2507_performance_summary",9,.*userbuffers_fp8_h100_h12288_tp4.*--ub-proj-fprop-sms 24 --ub-fc2-fprop-sms 1 ' "$TMP/out"
check "25.04 GB200 Nemotron-340B: the fp8 b200 config (gb200 key)" \
  grep -qE '^"nemo_2409_2507_performance_summary",15,.*userbuffers_fp8_b200_h18432_tp8.*--ub-proj-fprop-sms 1 --ub-fc2-fprop-sms 1 ' "$TMP/out"
check "25.07 GB200 405B tp2: the gb200 fp8 entry" \
  grep -qE '^"nemo_2409_2507_performance_summary",20,.*v2.4.0 pretrain_llama31_405b.py.*--ub-fc2-fprop-sms 1 ' "$TMP/out"
check "tp-1 row (25.02 Llama3 8B): no ub config named" \
  bash -c "! grep -E '^\"nemo_2409_2507_performance_summary\",2,' '$TMP/out' | grep -q 'userbuffers'"
check "Mixtral 8x22B (tp overlap off): no ub config named" \
  bash -c "! grep -E '^\"nemo_2409_2507_performance_summary\",8,' '$TMP/out' | grep -q 'userbuffers'"
finish
