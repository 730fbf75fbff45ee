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
# NeMo 2's pre-training performance recipes defer the LM-head wgrads (session 26, ovl26;
# pretrain_performance_optimizations: defer_embedding_wgrad_compute, wgrad_deferral_limit 22 for
# llama3_70b / nemotron4_340b, 50 for gpt3_175b / llama31_405b); pp-1 rows and Mixtral none
check "25.02 B200 Llama3 70B (pp 4): 22 head wgrads deferred" \
  grep -qE '^"nemo_2409_2507_performance_summary",3,.*llama3_70b.py pretrain_performance_optimizations.*--defer-embedding-wgrad 22' "$TMP/out"
check "25.02 H100 GPT3 175B (pp 8): 50 deferred" \
  grep -qE '^"nemo_2409_2507_performance_summary",9,.*--defer-embedding-wgrad 50' "$TMP/out"
check "pp-1 row (25.02 Llama3 8B): none deferred" \
  bash -c "! grep -E '^\"nemo_2409_2507_performance_summary\",2,' '$TMP/out' | grep -q 'defer-embedding-wgrad'"
check "Mixtral 8x22B (pp 4, recipe sets none): none deferred" \
  bash -c "! grep -E '^\"nemo_2409_2507_performance_summary\",8,' '$TMP/out' | grep -q 'defer-embedding-wgrad'"
# NeMo 2's performance scripts set overlap_param_gather_with_optimizer_step for dp, pp, vp > 1
# (session 29, nemo29; set_primary_perf_configs v2.2.0 scripts/llm/performance/utils.py,
# v2.3.0 scripts/performance/utils.py, v2.4.0 helpers.py); rows short of any of the three: off
check "25.02 B200 GPT3 175B (dp 32, pp 4, vp 6): first chunk's gather beside the step" \
  grep -qE '^"nemo_2409_2507_performance_summary",1,.*overlap_param_gather_with_optimizer_step.*--overlap-param-gather-with-optimizer-step on ' "$TMP/out"
check "25.04 GB200 Mixtral 8x22B (dp 4, pp 4, vp 14): on" \
  grep -qE '^"nemo_2409_2507_performance_summary",17,.*--overlap-param-gather-with-optimizer-step on ' "$TMP/out"
check "pp-1 row (25.02 Llama3 8B): off" \
  grep -qE '^"nemo_2409_2507_performance_summary",2,.*--overlap-param-gather-with-optimizer-step off ' "$TMP/out"
check "Megatron FSDP row (25.04 GB200 Llama3 70B, pp 1): off" \
  grep -qE '^"nemo_2409_2507_performance_summary",12,.*--overlap-param-gather-with-optimizer-step off ' "$TMP/out"
# Megatron-Bridge Llama 3 70B / 3.1 405B rows (source_bridge_framework.c bridge_llama_ub): the
# release's llama3{,1}_llm_pretrain.py hands CommOverlapConfig the b200 (gb300/gb200/b300/b200) or
# h100 ub config of its precision (v0.2.2 .. v0.5.1); fp8 configs run both fprop overlaps as ring
# exchanges; 25.11's fp8_mx configs also turn overlap_param_gather off ("NaN grad norm")
B="$V/megatron_bridge_performance_summary.csv"
expect_ok validate "$B" --format csv
check "Bridge 26.04 GB200 Llama3 70B MXFP8: fp8 b200 h8192 tp2 config, 1/1" \
  grep -qE '^"megatron_bridge_performance_summary",124,.*userbuffers_fp8_b200_h8192_tp2.*--ub-proj-fprop-sms 1 --ub-fc2-fprop-sms 1 ' "$TMP/out"
check "Bridge H100 405B FP8: fp8 h100 h16384 tp8 cp2 config" \
  grep -qE '^"megatron_bridge_performance_summary",87,.*userbuffers_fp8_h100_h16384_tp8_cp2.*--ub-fc2-fprop-sms 1 ' "$TMP/out"
check "Bridge 25.11 B200 405B FP8-MX: overlap_param_gather off (NaN grad norm block)" \
  grep -qE '^"megatron_bridge_performance_summary",259,.*NaN grad norm.*--overlap-param-gather off ' "$TMP/out"
check "Bridge 25.11 B200 405B FP8-CS: parameter gather still overlapped" \
  grep -qE '^"megatron_bridge_performance_summary",258,.*--overlap-param-gather on ' "$TMP/out"
check "Bridge NVFP4 Llama row (tp overlap off): no ub config named" \
  bash -c "! grep -E '^\"megatron_bridge_performance_summary\",122,' '$TMP/out' | grep -q 'userbuffers_'"
# the bf16 configs: row 124 as BF16 takes userbuffers_bf16_b200_h8192_tp2 (proj 32, fc2 16 SMs)
head -1 "$B" > "$TMP/bf16.csv"
sed -n 125p "$B" | sed 's/,MXFP8,/,BF16,/' >> "$TMP/bf16.csv"
expect_ok validate "$TMP/bf16.csv" --format csv
check "Bridge GB200 Llama3 70B BF16: bf16 b200 config, 32/16" \
  grep -qE '^"bf16",1,.*userbuffers_bf16_b200_h8192_tp2.*--ub-proj-fprop-sms 32 --ub-fc2-fprop-sms 16 ' "$TMP/out"
finish
