#!/usr/bin/env bash
# MLPerf Training v5.1 Llama 3.1 8B (data/validation/mlperf_v51_llama8b.csv, source mlperf_llama8b in
# src/validate/sources.c; rows written by scripts/mlperf-llama-rows.py from mlcommons/
# training_results_v5.1 @ 441d65f4): one row per system, the median of its result files' log-interval
# step times, compared as written (row 13: NVIDIA's 72-GB300 theia_ngpu72, 0.148 s). Every row runs
# the llama3-8b preset; each system's accelerator picks the cluster preset (GB300 -> gb300-nvl72,
# H100 -> dgx-h100, H200 -> dgx-h200, B300 -> dgx-b300); FP8_RECIPE=tensorwise is FP8 current
# scaling; a system whose submission holds configs of its shape that differ in precision (Oracle's
# 1-node B200, row 22) is refused with the candidates named. The 405B rows of other submitters
# appended to mlperf_v5.csv (Nebius H200 v5.0, rows 49-54; University of Florida B200 v5.1, 55-60).
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/mlperf_v51_llama8b.csv" --format csv
check "33 systems written" [ "$(grep -c '^"mlperf_v51_llama8b",' "$TMP/out")" -eq 33 ]
check "32 predicted" [ "$(grep -E '^"mlperf_v51_llama8b",' "$TMP/out" | grep -c ',"step_time_s","step time s (median log interval, derived) (printed)",')" -eq 32 ]
check "row 13 GB300 72 compares 0.148 s on gb300-nvl72" \
  grep -qE '^"mlperf_v51_llama8b",13,14,"llama3-8b, 72 x gb300, tp1 pp1 dp36 cp2, mbs 1 gbs 36, none","mlperf_llama8b","gb300","gb300-nvl72","step_time_s","step time s \(median log interval, derived\) \(printed\)",0.148,0.148,' "$TMP/out"
check "row 13 FP8 current scaling and a full-iteration graph" \
  grep -qE '^"mlperf_v51_llama8b",13,.*FP8 current scaling \(FP8_RECIPE=tensorwise.*full-iteration CUDA graph.*--dtype fp8-current .*--cuda-graph-scope full_iteration' "$TMP/out"
check "row 1 Cisco H100 on dgx-h100, delayed FP8 (its v5.0-era config sets no recipe)" \
  grep -qE '^"mlperf_v51_llama8b",1,2,"llama3-8b, 128 x h100, tp2 pp1 dp64,.*"dgx-h100".*--dtype fp8 ' "$TMP/out"
check "row 7 HPE H200 on dgx-h200" grep -qE '^"mlperf_v51_llama8b",7,8,"llama3-8b, 64 x h200,.*"dgx-h200"' "$TMP/out"
check "row 4 Dell B300 on dgx-b300" grep -qE '^"mlperf_v51_llama8b",4,5,"llama3-8b, 8 x b300,.*"dgx-b300"' "$TMP/out"
check "row 12 GB300 512 on 16-tray NVLink segments" \
  grep -qE '^"mlperf_v51_llama8b",12,.*NVLink segment of 16 trays' "$TMP/out"
# no SHARP for the 8B benchmark (sources_nemo.c validate_mlperf_hardware, as for GPT-3 and 405B):
# the config's NCCL_SHARP_GROUP_SIZE_THRESH=2 is inert without NCCL_COLLNET_ENABLE, which nothing in
# these submissions sets (sharp: false, no SBATCH_NETWORK=sharp); no row's command says --sharp on
check "row 12 without SHARP (NCCL_COLLNET_ENABLE unset)" \
  bash -c "grep -E '^\"mlperf_v51_llama8b\",12,' '$TMP/out' | grep -q 'no IB SHARP: the config.s NCCL_SHARP_GROUP_SIZE_THRESH is inert'"
check "no 8B row runs with --sharp on" bash -c "! grep -E '^\"mlperf_v51_llama8b\",' '$TMP/out' | grep -q -- '--sharp on'"
# nor the GPT-3 175B (v4.0/v4.1) and Llama 3.1 405B rows: their config_common.sh has the same inert
# threshold and "export SHARP=True" commented out (session 23, docs/accuracy.md)
expect_ok validate "$V/mlperf_gpt3.csv" "$V/mlperf_v5.csv" --format csv
check "GPT-3 row 28 (v4.0, 10,752 H100) without SHARP" \
  bash -c "grep -E '^\"mlperf_gpt3\",28,' '$TMP/out' | grep -q 'no IB SHARP: the config.s NCCL_SHARP_GROUP_SIZE_THRESH is inert'"
check "no GPT-3 or 405B row runs with --sharp on" bash -c "! grep -q -- '--sharp on' '$TMP/out'"
expect_ok validate "$V/mlperf_v51_llama8b.csv" --format csv
# FP8 parameters (FP8_PARAM_GATHER=True in NVIDIA's config_common.sh; Cisco's config_common.sh
# FP8_PARAMS=True, which its pretrain.py passes as the DDP's fp8_param_gather:
# `fp8_param_gather = config.model.optim.fp8_params`, conf/custom.yaml optim.fp8_params
# ${oc.env:FP8_PARAMS,False}; session 28, uf28, as for the v5.0 ngc25.01 405B rows)
check "row 13 FP8 parameters gathered at 1 B" \
  grep -qE '^"mlperf_v51_llama8b",13,.*FP8 parameters, all_gathered at 1 B \(FP8_PARAM_GATHER=True in the config\).*--fp8-all-gather on' "$TMP/out"
check "row 1 (Cisco) with FP8 parameters (FP8_PARAMS)" bash -c "grep -E '^\"mlperf_v51_llama8b\",1,' '$TMP/out' | grep -q -- '--fp8-all-gather on'"
check "row 14 NVFP4" bash -c "grep -E '^\"mlperf_v51_llama8b\",14,' '$TMP/out' | grep -q -- '--dtype nvfp4 '"
check "row 14 without a whole-step graph (FULL_CUDA_GRAPH=0)" \
  bash -c "! grep -E '^\"mlperf_v51_llama8b\",14,' '$TMP/out' | grep -q -- '--cuda-graph-scope full_iteration'"
# the DDP bucket: BUCKET_SIZE=768000000 parameters in NVIDIA's config_common_8b.sh (row 13);
# University of Florida's copy sets none (row 32): the preset's (custom.yaml's 134217728)
check "row 13 buckets of BUCKET_SIZE parameters" \
  grep -qE '^"mlperf_v51_llama8b",13,.*data-parallel buckets of 768000000 parameters \(BUCKET_SIZE in the config\)' "$TMP/out"
check "row 32 keeps the preset's bucket" bash -c "! grep -E '^\"mlperf_v51_llama8b\",32,' '$TMP/out' | grep -q 'BUCKET_SIZE in the config'"
# cuDNN: every Blackwell v5.1 image pins libcudnn9 9.13.1.26 on NGC PyTorch 25.09 (their Dockerfiles):
# the rates published for cuDNN 9.13.1; the Hopper images (Cisco 25.01, HPE 25.08) keep the preset's
check "row 27 B200 (v5.1): cuDNN 9.13 attention" \
  grep -qE '^"mlperf_v51_llama8b",27,.*cuDNN 9.13 attention \(the image.s libcudnn9 9.13.1.26.*--cudnn 9.13 ' "$TMP/out"
check "row 1 Cisco H100: not cuDNN 9.13" bash -c "! grep -E '^\"mlperf_v51_llama8b\",1,' '$TMP/out' | grep -q -- '--cudnn 9.13'"
check "row 22 refused: config not identified" \
  grep -qE "^\"mlperf_v51_llama8b\",22,.*the submission's config: not identified \(ambiguous: config_DGXB200_1x8x2xtp1pp1cp1_8b.sh; config_DGXB200_1x8x2xtp1pp1cp1_8b_fp4.sh\)" "$TMP/out"
expect_ok validate "$V/mlperf_v5.csv" --format csv
check "405B Nebius H200 (v5.0) row 49 on dgx-h200, delayed FP8" \
  grep -qE '^"mlperf_v5",49,50,"llama3-405b, 1024 x h200, tp4 pp8 dp16 cp2 vp8,.*"dgx-h200".*--dtype fp8 ' "$TMP/out"
check "405B UF B200 (v5.1) row 58: dp 7, current scaling" \
  grep -qE '^"mlperf_v5",58,59,"llama3-405b, 448 x b200, tp4 pp8 dp7 cp2 vp8,.*"dgx-b200".*--dtype fp8-current ' "$TMP/out"
# University of Florida's hpg.dgxb200x8 configs comment TP_COMM_OVERLAP out ("#export
# TP_COMM_OVERLAP=True") and its config_common.sh sets none: conf/custom.yaml's default
# ub_tp_comm_overlap ${oc.env:TP_COMM_OVERLAP,False} (scripts/mlperf-llama-rows.py yaml_env_default)
check "405B UF B200 rows 55-60 userbuffers off (yaml default), Nebius H200 row 49 on" bash -c "
  [ \"\$(grep -E '^\"mlperf_v5\",(55|56|57|58|59|60),' '$TMP/out' | grep -c -- '--tp-comm-overlap off ')\" -eq 6 ] &&
  grep -E '^\"mlperf_v5\",55,' '$TMP/out' | grep -q 'tp_comm_overlap off (TP_COMM_OVERLAP=False in the config)' &&
  grep -E '^\"mlperf_v5\",49,' '$TMP/out' | grep -q -- '--tp-comm-overlap on '"
# the v5.0 GB200 images are NGC PyTorch 25.04 (cuDNN 9.9.0), the v5.0 H200 rows' 25.01 keep the preset's
check "405B v5.0 GB200 rows 16 and 34 cuDNN 9.9, H200 row 49 not" bash -c "
  grep -E '^\"mlperf_v5\",16,' '$TMP/out' | grep -q -- '--cudnn 9.9 ' &&
  grep -E '^\"mlperf_v5\",34,' '$TMP/out' | grep -q -- '--cudnn 9.9 ' &&
  ! grep -E '^\"mlperf_v5\",49,' '$TMP/out' | grep -q -- '--cudnn 9.9 '"
check "405B v5.1 B200 row 58 cuDNN 9.13, v5.0 GB200 row 16 not" bash -c "
  grep -E '^\"mlperf_v5\",58,' '$TMP/out' | grep -q -- '--cudnn 9.13 ' &&
  ! grep -E '^\"mlperf_v5\",16,' '$TMP/out' | grep -q -- '--cudnn 9.13 '"
# NCCL CTA caps (source_mlperf_ctas.c, session 25): v5.0 rows (yaml tp 8 cp 1 dp_cp 8 pp 2,
# NCCL_MIN_NCHANNELS=4) cap tp 8, cp and pp at the floor 4, dp 8; v5.1 rows export NCCL_MAX_CTAS=32,
# which replaces every communicator's maxCTAs (NCCL src/init.cc envConfigOverride)
check "405B v5.0 H100 row 1: CTA caps tp 8 cp 4 dp 8 pp 4" bash -c "
  grep -E '^\"mlperf_v5\",1,' '$TMP/out' | grep -q -- '--nccl-max-ctas-tp 8 --nccl-max-ctas-cp 4 --nccl-max-ctas-dp 8 --nccl-max-ctas-pp 4'"
check "405B v5.1 GB200 row 22: NCCL_MAX_CTAS=32 replaces the yaml's caps" bash -c "
  grep -E '^\"mlperf_v5\",22,' '$TMP/out' | grep -q -- '--nccl-max-ctas-cp 32 ' &&
  grep -E '^\"mlperf_v5\",22,' '$TMP/out' | grep -q 'NCCL channels >= 16 (NCCL_MIN_CTAS)'"
# GPT-3 175B of other submitters (data/validation/mlperf_gpt3_others.csv, scripts/mlperf-gpt3-rows.py):
# Supermicro ("smc", v4.0, 512 H100, vp 12 from conf/custom.yaml's INTERLEAVED_PIPELINE default,
# NVIDIA's v4.0 image: the unfused loss, SHARP threshold 2 but no CollNet), Oracle (v4.1, 1,536 / 3,072 H100 on
# RoCE: no SHARP setting, the fabric said), Azure+NVIDIA (v3.1, 10,752 H100, NVIDIA's config) and
# NVIDIA_CoreWeave (v3.0, 768-3,584 H100), compared as the NVIDIA rows' segment step time
expect_ok validate "$V/mlperf_gpt3_others.csv" --format csv
check "21 GPT-3 rows predicted" [ "$(grep -E '^"mlperf_gpt3_others",' "$TMP/out" | grep -c ',"step_time_s","step time s (median segment, derived) (printed)",')" -eq 21 ]
grep -E '^"mlperf_gpt3_others",10,' "$TMP/out" > "$TMP/row10"
check "row 10 Azure 10,752 H100 compares 0.978 s" \
  grep -qE '^"mlperf_gpt3_others",10,11,"GPT-3 175B \(MLPerf gpt3 benchmark\), 10752 x h100, tp4 pp8 dp336 vp12, mbs 1 gbs 2688, none",.*,0\.978,0\.978,' "$TMP/row10"
check "row 10 keeps the fused loss (v3.1)" grep -q -- '--megatron-xent off' "$TMP/row10"
check "row 19 CoreWeave 3,584 H100" grep -qE '^"mlperf_gpt3_others",19,20,"GPT-3 175B \(MLPerf gpt3 benchmark\), 3584 x h100, tp4 pp8 dp112 vp12, mbs 1 gbs 2688, none","mlperf","h100","dgx-h100"' "$TMP/out"
check "row 1 Supermicro: vp 12, 10.766 s, unfused loss, no SHARP" \
  grep -qE '^"mlperf_gpt3_others",1,2,"GPT-3 175B \(MLPerf gpt3 benchmark\), 512 x h100, tp4 pp8 dp16 vp12, mbs 2 gbs 2048, none","mlperf","h100","dgx-h100","step_time_s","step time s \(median segment, derived\) \(printed\)",10.766,10.766,.*no IB SHARP: the config.s NCCL_SHARP_GROUP_SIZE_THRESH is inert.*unfused cross-entropy' "$TMP/out"
check "row 4 Oracle on RoCE, no SHARP" grep -qE "^\"mlperf_gpt3_others\",4,5,\"GPT-3 175B \(MLPerf gpt3 benchmark\), 1536 x h100,.*row's inter-node fabric is RoCE" "$TMP/out"
check "row 4 keeps SHARP off" bash -c "! grep -E '^\"mlperf_gpt3_others\",4,' '$TMP/out' | grep -q 'IB SHARP'"
# session 29 (mlpgpt29): Oracle's config_common.sh exports NCCL_CFG_PATH (its result logs print
# model.nccl_communicator_config_path); its folder holds no conf/, so the yaml is NVIDIA's v4.1
# implementation's (as the tp_overlap yaml): tp/dp 8, cp 1 and pp 2 raised to NCCL_MIN_NCHANNELS 4.
# CoreWeave v3.0 and Azure v3.1 export no NCCL_CFG_PATH: uncapped
check "rows 4 and 7 Oracle: NCCL CTAs from NCCL_CFG_PATH" bash -c "
  grep -E '^\"mlperf_gpt3_others\",4,' '$TMP/out' | grep -q -- '--nccl-max-ctas-tp 8 --nccl-max-ctas-cp 4 --nccl-max-ctas-dp 8 --nccl-max-ctas-pp 4' &&
  grep -E '^\"mlperf_gpt3_others\",7,' '$TMP/out' | grep -q 'NCCL CTAs tp 8 cp 4 dp 8 pp 4 (NCCL_CFG_PATH)' &&
  grep -E '^\"mlperf_gpt3_others\",13,' '$TMP/out' | grep -q -- '--nccl-max-ctas-tp 0 '"
# v3.1 (NVIDIA's and Azure+NVIDIA's pytorch/config_common.sh): MEGATRON_CORE_{TP,DP,P2P}_MAX_CTAS
# 8/8/2, read by the image's Megatron-Core (df727128 parallel_state.py); pp 2 raised to
# NCCL_MIN_NCHANNELS 4, no cp group
check "row 10 Azure v3.1: NCCL CTAs from Megatron-Core's environment" bash -c "
  grep -E '^\"mlperf_gpt3_others\",10,' '$TMP/out' | grep -q -- '--nccl-max-ctas-tp 8 --nccl-max-ctas-cp 0 --nccl-max-ctas-dp 8 --nccl-max-ctas-pp 4' &&
  grep -E '^\"mlperf_gpt3_others\",10,' '$TMP/out' | grep -q 'NCCL CTAs tp 8 cp 0 dp 8 pp 4 (MEGATRON_CORE_\*_MAX_CTAS)'"
# session 29 (amax29): the v3.0 images (TE release_v0.8, NeMo v1.17.0_pt_23.04) reduce the
# delayed-scaling amaxes with a blocking all_reduce over each stage's tp x dp ranks per model chunk
# and pass (--fp8-amax-reduce sync-dp-tp); v3.1 (NVTE_ASYNC_AMAX_REDUCTION=1, tp only) and later off
check "rows 13 and 19 CoreWeave v3.0: TE 0.8's blocking amax all_reduce" bash -c "
  grep -E '^\"mlperf_gpt3_others\",13,' '$TMP/out' | grep -q -- '--fp8-amax-reduce sync-dp-tp' &&
  grep -E '^\"mlperf_gpt3_others\",19,' '$TMP/out' | grep -q 'blocking amax all_reduce over the stage' &&
  grep -E '^\"mlperf_gpt3_others\",10,' '$TMP/out' | grep -q -- '--fp8-amax-reduce off' &&
  grep -E '^\"mlperf_gpt3_others\",4,' '$TMP/out' | grep -q -- '--fp8-amax-reduce off'"
head -1 "$V/mlperf_gpt3_others.csv" > "$TMP/badcta.csv"
row=$(sed -n 11p "$V/mlperf_gpt3_others.csv")
echo "${row%,tp=8 dp=8 pp=2},tp=8 dp=x pp=2" >> "$TMP/badcta.csv"
echo "${row%,tp=8 dp=8 pp=2},tp=8 dp=8 pp=65" >> "$TMP/badcta.csv"
expect_ok validate "$TMP/badcta.csv" --format csv
check "Megatron-Core CTA cap not a count skipped" \
  grep -qE "^\"badcta\",1,.*MEGATRON_CORE_\*_MAX_CTAS \(config_common.sh\) 'tp=8 dp=x pp=2': key dp not a count 1..64" "$TMP/out"
check "Megatron-Core CTA cap above 64 skipped" \
  grep -qE "^\"badcta\",2,.*'tp=8 dp=8 pp=65': key pp not a count 1..64" "$TMP/out"
# FP8 parameters of the GPT-3 rows (session 23): FP8_PARAMS=True in the v4.0 / v4.1
# config_common.sh (column 'FP8_PARAMS (config)'), NeMo's distributed Adam gathers them in uint8
# buckets; the v3.x configs set none. The 405B rows: the DDP fp8_param_gather their pretrain.py
# passes (column 'FP8_PARAM_GATHER (config)'; the NVFP4 configs False)
expect_ok validate "$V/mlperf_gpt3.csv" "$V/mlperf_v5.csv" --format csv
check "GPT-3 row 28 (v4.0) FP8 parameters gathered at 1 B" \
  grep -qE '^"mlperf_gpt3",28,.*FP8 parameters, all_gathered at 1 B \(FP8_PARAMS=True in the config.*--fp8-all-gather on' "$TMP/out"
check "GPT-3 row 22 (v3.1) without" bash -c "! grep -E '^\"mlperf_gpt3\",22,' '$TMP/out' | grep -q -- '--fp8-all-gather on'"
check "405B row 1 (v5.0 eos-dfw, FP8_PARAMS as fp8_param_gather) FP8 parameters" \
  bash -c "grep -E '^\"mlperf_v5\",1,' '$TMP/out' | grep -q -- '--fp8-all-gather on'"
check "405B row 22 (NVFP4) without" bash -c "! grep -E '^\"mlperf_v5\",22,' '$TMP/out' | grep -q -- '--fp8-all-gather on'"
head -1 "$V/mlperf_gpt3.csv" > "$TMP/bad3.csv"
row=$(sed -n 29p "$V/mlperf_gpt3.csv")
# the four NCCL CTA columns (session 25) and Megatron-Core's CTA caps (session 29) close the row:
# set aside, put back last
cta=",$(echo "$row" | awk -F, '{ print $(NF-4) "," $(NF-3) "," $(NF-2) "," $(NF-1) "," $NF }')"
row=${row%"$cta"}
echo "${row%,True,24,4,cudnn,9.1.0},maybe,24,4,cudnn,9.1.0$cta" >> "$TMP/bad3.csv"
echo "${row%,True,24,4,cudnn,9.1.0},True,24,4.5,cudnn,9.1.0$cta" >> "$TMP/bad3.csv"
echo "${row%,cudnn,9.1.0},xformers,9.1.0$cta" >> "$TMP/bad3.csv"
echo "${row%,cudnn,9.1.0},cudnn,8.7$cta" >> "$TMP/bad3.csv"
echo "${row%,cudnn,9.1.0},cudnn,nine$cta" >> "$TMP/bad3.csv"
expect_ok validate "$TMP/bad3.csv" --format csv
check "FP8_PARAMS neither True nor False skipped" grep -qE "^\"bad3\",1,.*column 'FP8_PARAMS \(config\)': 'maybe'" "$TMP/out"
check "userbuffers SMs not whole skipped" grep -qE "^\"bad3\",2,.*column 'ub fc2_fprop SMs \(config\)': '4.5'" "$TMP/out"
check "attention backend neither flash nor cudnn skipped" grep -qE "^\"bad3\",3,.*column 'attention backend \(image\)': 'xformers' is not flash or cudnn" "$TMP/out"
check "cuDNN before 8.9 skipped" grep -qE "^\"bad3\",4,.*column 'cuDNN \(image\)': .*needs cuDNN 8.9 or newer" "$TMP/out"
check "cuDNN not a version skipped" grep -qE "^\"bad3\",5,.*column 'cuDNN \(image\)': 'nine' is not a cuDNN version" "$TMP/out"
# the attention kernel of each round's image (session 25, columns 'attention backend (image)' and
# 'cuDNN (image)'): TE release_v0.8 (v3.0) and TE 09ba8427 with flash-attn 2.0.8 (v3.1) run
# FlashAttention before cuDNN; v4.0 (NGC PyTorch 24.04, the log's cudnn_version 9.1.0.70) cuDNN 9.1
expect_ok validate "$V/mlperf_gpt3.csv" "$V/mlperf_gpt3_others.csv" --format csv
check "GPT-3 row 1 (v3.0) FlashAttention" bash -c "grep -E '^\"mlperf_gpt3\",1,' '$TMP/out' | grep -q -- '--attention flash '"
check "GPT-3 row 22 (v3.1) FlashAttention" bash -c "grep -E '^\"mlperf_gpt3\",22,' '$TMP/out' | grep -q -- '--attention flash '"
check "GPT-3 row 34 (v4.0) cuDNN 9.1" bash -c "grep -E '^\"mlperf_gpt3\",34,' '$TMP/out' | grep -q -- '--attention cudnn .*--cudnn 9.1 '"
check "GPT-3 row 37 (v4.1 B200 preview, no Dockerfile) the preset's cuDNN" bash -c "grep -E '^\"mlperf_gpt3\",37,' '$TMP/out' | grep -q -- '--attention cudnn .*--cudnn latest '"
check "GPT-3 others row 10 (Azure v3.1) FlashAttention" bash -c "grep -E '^\"mlperf_gpt3_others\",10,' '$TMP/out' | grep -q -- '--attention flash '"
# the other submitters' distributed-Adam buckets (session 25, column 'BUCKET_CAP_MB (config)'):
# Azure v3.1 the yaml's default 100 MiB, Supermicro v4.0 config_common.sh 200
check "GPT-3 others row 10 (Azure v3.1) 100 MiB buckets" bash -c "grep -E '^\"mlperf_gpt3_others\",10,' '$TMP/out' | grep -q -- '--bucket-mb 100 '"
check "GPT-3 others row 1 (Supermicro v4.0) 200 MiB buckets" bash -c "grep -E '^\"mlperf_gpt3_others\",1,' '$TMP/out' | grep -q -- '--bucket-mb 200 '"
# the userbuffers SMs of each GPT-3 submission's tp_overlap yaml (v3.0 24/20, v3.1 24/4, v4.x mbs1
# 24/4 via FC2_FPROP_SM=4, v4.x mbs2 24/ring_exchange 1)
expect_ok validate "$V/mlperf_gpt3.csv" --format csv
check "GPT-3 row 1 (v3.0) fc2 20 SMs" bash -c "grep -E '^\"mlperf_gpt3\",1,' '$TMP/out' | grep -q -- '--ub-proj-fprop-sms 24 --ub-fc2-fprop-sms 20 '"
check "GPT-3 row 22 (v3.1) fc2 4 SMs" bash -c "grep -E '^\"mlperf_gpt3\",22,' '$TMP/out' | grep -q -- '--ub-proj-fprop-sms 24 --ub-fc2-fprop-sms 4 '"
check "GPT-3 row 34 (v4.0 mbs2) fc2 ring_exchange 1 SM" bash -c "grep -E '^\"mlperf_gpt3\",34,' '$TMP/out' | grep -q -- '--ub-fc2-fprop-sms 1 '"
# the other submitters' rows (session 24) by the same rule: Supermicro v4.0 mbs2 and Oracle v4.1
# mbs2 (its folder holds config_*.sh only: NVIDIA's v4.1 h100tp4mbs2.yaml, every copy alike)
# 24/1, Azure v3.1 24/4, CoreWeave v3.0 24/20
expect_ok validate "$V/mlperf_gpt3_others.csv" --format csv
for rs in "1 1" "4 1" "10 4" "19 20"; do
  set -- $rs
  check "GPT-3 others row $1: fc2 $2 SMs" bash -c "grep -E '^\"mlperf_gpt3_others\",$1,' '$TMP/out' | grep -q -- '--ub-proj-fprop-sms 24 --ub-fc2-fprop-sms $2 '"
done
# Session 28 (uf28): the userbuffers SM margins of the forward proj / fc2 GEMMs as the 8B
# implementations' NeMo 2 pretrain.py builds them (scripts/mlperf-llama-rows.py ub_fprop_margins):
# a ring_exchange entry keeps RingExchangeOverlapCfg's set_sm_margin=False (no margin), a pipeline
# one its num_sm with set_sm_margin 1. Cisco (row 1): its pretrain.py hands the callback a
# hard-coded TransformerLayerTPOverlapCfg (proj_fprop PipelineOverlapCfg(num_sm=24,
# set_sm_margin=True), fc2_fprop num_sm=8) and leaves the yaml's config unused; NVIDIA's 512-GPU rows 12 and 15 (GPU_ARCH=gb200: gb200tp2mbs1.yaml): both
# ring_exchange. tp 1 rows carry none.
expect_ok validate "$V/mlperf_v51_llama8b.csv" --format csv
check "row 1 Cisco ub margins 24/8" bash -c "grep -E '^\"mlperf_v51_llama8b\",1,' '$TMP/out' | grep -q -- '--ub-proj-fprop-sms 24 --ub-fc2-fprop-sms 8 '"
for r in 12 15; do
  check "row $r ub margins 0/0 (ring_exchange)" bash -c "grep -E '^\"mlperf_v51_llama8b\",$r,' '$TMP/out' | grep -q -- '--ub-proj-fprop-sms 0 --ub-fc2-fprop-sms 0 '"
done
check "row 30 (tp 1) no ub margin note" bash -c "! grep -E '^\"mlperf_v51_llama8b\",30,' '$TMP/out' | grep -q 'userbuffers margins'"
# Session 28 (mlperfcfg28): Megatron-Core DDP's check_for_nan_in_grad as each submission's
# pretrain.py get_strategy passes it (scripts/mlperf-llama-rows.py nan_check_of): False in every v5.1
# 8B implementation but Cisco's (True), so the bucket-norm read is not counted there
# (--grad-nan-check off); the 405B rows: True in the v5.0 ngc25.01 implementations (NVIDIA eos-dfw,
# Nebius), `not config.model.full_cuda_graph` in the ngc25.04 ones (FULL_CUDA_GRAPH=True: off),
# False in the v5.1 ones (NVIDIA, University of Florida)
check "8B row 1 Cisco check_for_nan_in_grad=True" bash -c "grep -E '^\"mlperf_v51_llama8b\",1,' '$TMP/out' | grep -q -- '--grad-nan-check on '"
check "8B row 13 check_for_nan_in_grad=False" bash -c "grep -E '^\"mlperf_v51_llama8b\",13,' '$TMP/out' | grep -q -- '--grad-nan-check off '"
check "8B: 30 rows with the check off (all but Cisco's two and Oracle's refused one)" \
  [ "$(grep -E '^"mlperf_v51_llama8b",' "$TMP/out" | grep -c -- '--grad-nan-check off ')" -eq 30 ]
expect_ok validate "$V/mlperf_v5.csv" --format csv
for rs in "1 on" "16 off" "34 off" "22 off" "49 on" "55 off"; do
  set -- $rs
  check "405B row $1 grad nan check $2" bash -c "grep -E '^\"mlperf_v5\",$1,' '$TMP/out' | grep -q -- '--grad-nan-check $2 '"
done
# bad cells, one row each, built from row 13
head -1 "$V/mlperf_v51_llama8b.csv" > "$TMP/bad.csv"
row=$(sed -n 14p "$V/mlperf_v51_llama8b.csv")
# the last seven columns: the four NCCL CTA ones (session 25), the two ub margins and
# check_for_nan_in_grad (session 28)
cta=",$(echo "$row" | awk -F, '{ print $(NF-6) "," $(NF-5) "," $(NF-4) "," $(NF-3) "," $(NF-2) "," $(NF-1) "," $NF }')"
echo "${row/,0.1480,/,fast,}" >> "$TMP/bad.csv"
echo "${row/llama31_8b benchmark),8,32,/llama31_8b benchmark),8,40,}" >> "$TMP/bad.csv"
echo "${row/,,,FULL_CUDA_GRAPH=1,/,True,False,FULL_CUDA_GRAPH=1,}" >> "$TMP/bad.csv"
echo "${row%,768000000,True"$cta"},lots,True$cta" >> "$TMP/bad.csv"
echo "${row%,,,False},x,,False" >> "$TMP/bad.csv"
echo "${row%,False},maybe" >> "$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv" --format csv
check "step time not a number skipped" grep -qE "^\"bad\",1,.*step time s \(median log interval, derived\)" "$TMP/out"
check "layers contradicting the preset skipped" grep -qE "^\"bad\",2,.*layers" "$TMP/out"
check "one ASYM flag alone skipped" grep -qE "^\"bad\",3,.*ASYM_PP_EMBED 'True', ASYM_PP_LOSS 'False'" "$TMP/out"
check "BUCKET_SIZE not a number skipped" grep -qE "^\"bad\",4,.*column 'BUCKET_SIZE \(config, parameters\)': 'lots'" "$TMP/out"
check "ub margin not a number skipped" grep -qE "^\"bad\",5,.*column 'ub proj_fprop SMs \(config\)': 'x' is not a whole number of SMs" "$TMP/out"
check "check_for_nan_in_grad neither True nor False skipped" grep -qE "^\"bad\",6,.*column 'check_for_nan_in_grad \(pretrain.py\)': 'maybe' is not True or False" "$TMP/out"
finish
