#!/usr/bin/env bash
# NVIDIA dgxc-benchmarking's Expected Performance tables (data/validation/dgxc_benchmarking.csv,
# src/validate/source_dgxc.c): the printed seconds per step are compared as printed (row 11:
# Llama 3.1 70B BF16 on 64 H100, 14.72 s, v24.11.1), every row runs the nemo-2024 preset, the
# recipe's NVTE_FUSED_ATTN=0 gives FlashAttention (GPT-3 175B at v24.11.1, row 61) and its absence
# not (row 121, v25.02), the yaml's loss fusion and userbuffers SMs are read; bad cells skip the
# row with the column named. The data-parallel bucket is the yaml's bucket_cap_mb (NeMo 1) or NeMo 2's
# MegatronCommOverlapCallback bucket_size of 128 Mi parameters (v25.04 on); GB200 rows (v25.05) run
# on the gb200-nvl72 preset with the NVLink segment rule of the other NVL72 sources.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/dgxc_benchmarking.csv" --format csv
check "row 11 compares the printed 14.72 s" \
  grep -qE '^"dgxc_benchmarking",11,12,"LLAMA3.1-70B, 64 x h100, tp4 pp4 dp2 cp2 vp5, mbs 1 gbs 128, none","dgxc","h100","dgx-h100","step_time_s","Training step time \(seconds per step\) \(printed\)",14.72,14.72,' "$TMP/out"
check "row 11 reads the fused loss and ub SMs" \
  grep -qE '^"dgxc_benchmarking",11,.*fused cross-entropy \(the recipe yaml.*userbuffers 24/16 SMs.*buckets of 75 MiB' "$TMP/out"
check "row 61 runs FlashAttention" grep -qE '^"dgxc_benchmarking",61,.*FlashAttention \(NVTE_FUSED_ATTN=0' "$TMP/out"
check "row 121 does not" bash -c "! grep -E '^\"dgxc_benchmarking\",121,' '$TMP/out' | grep -q FlashAttention"
# the nemo-2024 preset runs FlashAttention-2 (the 24.x launcher's NVTE_FUSED_ATTN=0, session 28 era28);
# a recipe's NVTE_FUSED_ATTN=1 (llama3.1/configure.sh @ v24.11.1) turns TE's cuDNN attention back on
check "row 1 (24.09, NVTE_FUSED_ATTN=1) runs cuDNN attention" \
  grep -qE '^"dgxc_benchmarking",1,.*cuDNN fused attention \(NVTE_FUSED_ATTN=1.*--attention cudnn ' "$TMP/out"
check "row 61 command: --attention flash" grep -qE '^"dgxc_benchmarking",61,.*--attention flash ' "$TMP/out"
check "row 61 keeps the unfused loss (no fusion in the GPT-3 yaml)" \
  bash -c "! grep -E '^\"dgxc_benchmarking\",61,' '$TMP/out' | grep -q 'fused cross-entropy'"
check "framework nemo-2024" grep -qE '^"dgxc_benchmarking",1,.*,"nemo-2024",' "$TMP/out"
# NeMo 2 rows (v25.04): the nemo preset, NeMo 2's 128 Mi-parameter DDP bucket (bf16 gradients:
# 256 MiB), the 405B recipe's embedding and loss in the pipeline split
check "row 180 NeMo 2 bucket" grep -qE '^"dgxc_benchmarking",180,.*buckets of 134217728 parameters \(NeMo 2.*,"nemo",' "$TMP/out"
check "row 180 command: bucket in parameters" grep -qE '^"dgxc_benchmarking",180,.*--bucket-params 134217728' "$TMP/out"
check "row 189 on a GB200 NVL72 segment" grep -qE '^"dgxc_benchmarking",189,[0-9]+,"LLAMA3.1-405B, 128 x gb200, tp4 pp8 dp2 cp2 vp8, mbs 1 gbs 64, none","dgxc","gb200","gb200-nvl72",.*NVLink segment of 16 trays' "$TMP/out"
# Llama 3.1 405B: the NeMo 1 yaml rows (v24.11.1-v25.02) keep its num_query_groups 16; the NeMo 2
# and Megatron-Bridge rows build Llama31Config405B / Llama31ModelProvider405B: 8 KV heads
check "405B kv heads: NeMo 1 row 23 16, NeMo 2 row 189 and Bridge row 256 8" bash -c "
  grep -E '^\"dgxc_benchmarking\",23,' '$TMP/out' | grep -q '\"\"kv_heads\"\":16,' &&
  grep -E '^\"dgxc_benchmarking\",189,' '$TMP/out' | grep -q '\"\"kv_heads\"\":8,' &&
  grep -E '^\"dgxc_benchmarking\",256,' '$TMP/out' | grep -q '\"\"kv_heads\"\":8,'"
check "row 196 FP8 ring-exchange ub SMs" grep -qE '^"dgxc_benchmarking",196,.*userbuffers 1/1 SMs' "$TMP/out"
# Nemotron-4 340B (NeMo 1, rows 51-60): the yaml's optim.dtype bf16 makes NeMo set Apex's
# store_params False for the BF16 rows: bf16 m and v, no master (4 B per parameter instead of 12);
# row 51 (128 H100, dp 2) then fits (84.6 GiB before) and is predicted; its command carries the two
# flags. The FP8 rows run fp8_params (store_params True, a bf16 master): bf16 moments only
check "row 51 predicted with bf16 Adam states, no master" \
  grep -qE '^"dgxc_benchmarking",51,[0-9]+,"Nemotron4-340B, 128 x h100,.*,4\.61,4\.61,[0-9.]+,.*Adam m and v in bf16 and no master copy.*--adam-moments-dtype bf16 --adam-master none' "$TMP/out"
check "row 56 (FP8, fp8_params: Apex keeps a bf16 master) bf16 moments only" \
  grep -qE '^"dgxc_benchmarking",56,.*fp8_params: Apex keeps a bf16 master.*--adam-moments-dtype bf16 --adam-master kept' "$TMP/out"
check "Nemotron-4 15B keeps the fp32 states" bash -c "! grep -E '^\"dgxc_benchmarking\",35,' '$TMP/out' | grep -q 'adam-master none'"
check "row 158 embedding and loss in the split" grep -qE '^"dgxc_benchmarking",158,.*embedding, loss count in the pipeline split' "$TMP/out"
# v25.05.x tables (rows 197-242) and later tags' MFU worked examples (243-245): Nemotron-4 on
# GB200 with the b200 userbuffers config (ring-exchange proj_fprop, 1 SM); Llama 4 Maverick and
# DeepSeek-V3 on their presets with the scripts' expert layout; Grok-1 and Nemotron-H 56B on the
# presets of session 18 (models18: data/models/grok1-314b, nemotron-h-56b; before, skipped for
# want of them)
check "row 201 340B GB200 b200 ub config" grep -qE '^"dgxc_benchmarking",201,[0-9]+,"Nemotron4-340B, 128 x gb200,.*userbuffers 1/24 SMs' "$TMP/out"
check "row 213 Llama 4 Maverick preset, ep 64, token drop" \
  grep -qE '^"dgxc_benchmarking",213,.*imbalance 1 \(NeMo.s token drop.*preset llama4-maverick.*--ep 64 --etp 1 ' "$TMP/out"
check "row 221 DeepSeek-V3 recompute, uneven stages, MTP" \
  grep -qE '^"dgxc_benchmarking",221,.*--recompute-modules mla_up_proj --first-stage-layers 3 --last-stage-layers 2 --mtp-layers 1 .*--moe-dispatch alltoall --moe-imbalance 1' "$TMP/out"
check "row 245 DeepSeek-V3 v25.08: layout string, deepep, force balance" \
  grep -qE "^\"dgxc_benchmarking\",245,.*the script.s moe_router_force_load_balancing.*--pipeline-layout 'Et\*4\|\(t\*4\|\)\*14tmL' --ep 64 --etp 1 --moe-dispatch deepep" "$TMP/out"
# DeepSeek-V3 on GB200 in nemo:25.04.01 (rows 222-224): that container's Transformer Engine has no
# fused kernel for latent attention's 192/128 heads on sm100 (fused_attn.cpp before TE PR #1797),
# FlashAttention refuses MLA: TE's UnfusedDotProductAttention, plateau's eager attention. The H100
# rows of the same table keep the fused path
check "row 223 DeepSeek-V3 GB200 runs unfused attention" \
  grep -qE '^"dgxc_benchmarking",223,.*unfused attention \(the container.s Transformer Engine.*--attention eager ' "$TMP/out"
check "row 221 (H100) does not" bash -c "! grep -E '^\"dgxc_benchmarking\",221,' '$TMP/out' | grep -q 'attention eager'"
# row 246 (v25.10): DeepSeek-V3 on 256 GB200 through Megatron-Bridge's scripts/performance (launcher
# 'Megatron-Bridge ...'): its recompute modules, token drop, MTP and (4, 4) layout string are read
# as the NeMo 2 rows' are, and no unfused attention (attention_backend empty: nemo:25.09.00)
check "row 246 Megatron-Bridge DeepSeek-V3 GB200: layout, recompute, token drop" \
  grep -qE "^\"dgxc_benchmarking\",246,[0-9]+,\"deepseek-v3, 256 x gb200, tp1 pp4 dp64 vp4,.*imbalance 1 \(NeMo.s token drop.*--recompute-modules mla_up_proj .*--mtp-layers 1 .*--pipeline-layout 'Et\*4\|\(t\*4\|\)\*14tmL' --ep 64 --etp 1 --moe-dispatch alltoall" "$TMP/out"
check "row 246 keeps the fused attention" bash -c "! grep -E '^\"dgxc_benchmarking\",246,' '$TMP/out' | grep -q 'attention eager'"
check "row 225 Grok-1 on its preset" grep -qE '^"dgxc_benchmarking",225,.*preset grok1-314b' "$TMP/out"
# NeMo 2 rows with tp overlap but no ub config for their GPU (Nemotron-4 on H100, Llama 4 H100,
# Nemotron-H): Transformer Engine's initialize_ub defaults, pipeline proj/fc2 fprop with 16 SMs
check "row 199 Nemotron-4 340B H100 TE-default ub 16/16 SMs" grep -qE '^"dgxc_benchmarking",199,.*userbuffers 16/16 SMs.*--ub-proj-fprop-sms 16 --ub-fc2-fprop-sms 16 ' "$TMP/out"
# the Grok-1 script (NeMo 6f2c6fdaff) sets the fp8_b200 ub config for every GPU and dtype: 1/1 SMs
check "row 238 Grok-1 H100 BF16 ub 1/1 SMs" grep -qE '^"dgxc_benchmarking",238,.*userbuffers 1/1 SMs.*--ub-proj-fprop-sms 1 --ub-fc2-fprop-sms 1 ' "$TMP/out"
check "row 231 Nemotron-H on its hybrid preset, not read as dense Nemotron" \
  grep -qE '^"dgxc_benchmarking",231,.*preset nemotron-h-56b' "$TMP/out"
# Nemotron-H at v25.05 (rows 231-237, NeMo 7a8f1cc7bc): the script builds pretrain_recipe() without
# performance_mode, so no MegatronCommOverlapCallback (no userbuffers tp overlap, Megatron-Core's
# default bucket), the recipe's DDP overlap_param_gather False, NVTE_FUSED_ATTN=0; v25.07's example
# run (row 252, NeMo 00b778eb5e, performance_mode True) keeps the preset's
check "row 234 Nemotron-H v25.05: no tp overlap, mcore bucket, param gather waited, flash" \
  grep -qE "^\"dgxc_benchmarking\",234,.*FlashAttention \(NVTE_FUSED_ATTN=0.*Megatron-Core's default bucket.*overlap_param_gather off \(the recipe.*--attention flash .*--tp-comm-overlap off .*--overlap-param-gather off .*--bucket-mb megatron " "$TMP/out"
check "row 252 (v25.07) keeps tp overlap and the overlapped gather" \
  grep -qE '^"dgxc_benchmarking",252,.*--tp-comm-overlap on .*--overlap-param-gather on .*--bucket-params 134217728' "$TMP/out"
# row 253 (v25.12): Qwen3-235B-A22B BF16 on 256 H100 through Megatron-Bridge in nemo:25.11.01: the
# nemo-25-11 preset (cuDNN 9.13), the base config's moe_a2a_overlap, forced balance, tp overlap
# off, the account_for_embedding/loss split as a layout string
check "row 253 Qwen3-235B v25.12: nemo-25-11, ep overlap, layout" \
  grep -qE "^\"dgxc_benchmarking\",253,[0-9]+,\"qwen3-235b-a22b, 256 x h100, tp2 pp8 dp16 vp4,.*ep all-to-all overlap \(the config.s moe_a2a_overlap\).*cuDNN 9.13 attention.*\"nemo-25-11\",.*--pipeline-layout 'Et\*2\|\(t\*3\|\)\*30t\*2L' --ep 32 --etp 1 --moe-dispatch alltoall .*--tp-comm-overlap off " "$TMP/out"
# rows 254-255: Nemotron-H's later example runs, in performance mode (NeMo 9244b1ec89, v25.08 H100;
# llmb-nemo-r2.5.0, v25.10 GB200 under FP8 current scaling, whose recipe gathers FP8 parameters)
check "row 254 Nemotron-H v25.08 H100 in performance mode" \
  grep -qE '^"dgxc_benchmarking",254,.*--tp-comm-overlap on .*--overlap-param-gather on .*--bucket-params 134217728' "$TMP/out"
check "row 255 Nemotron-H v25.10 GB200 FP8-CS with FP8 parameters" \
  grep -qE "^\"dgxc_benchmarking\",255,[0-9]+,\"nemotron-h-56b, 128 x gb200, tp4 pp1 dp32, mbs 2 gbs 384,.*FP8 parameters, gathered at 1 B \(the fp8_cs recipe.*--dtype fp8-current .*--fp8-all-gather on " "$TMP/out"
# row 256 (v25.10): Llama 3.1 405B FP8-CS on 128 GB200 through Megatron-Bridge: Megatron FSDP
# (zero3, blocks as units, gradient shards in the reduce dtype) and 80 offloaded blocks (without
# them the row does not fit)
check "row 256 405B Megatron FSDP with offload" \
  grep -qE "^\"dgxc_benchmarking\",256,[0-9]+,\"LLAMA3.1-405B, 128 x gb200, tp2 pp1 dp64,.*Megatron FSDP: blocks as its units.*activations of 80 blocks offloaded.*--shard zero3 .*--act-offload-layers 80 .*--fsdp-block-units on " "$TMP/out"
# bad cells of the MoE columns: one row each, built from row 221 (DeepSeek-V3, v25.05) and, for the
# layout string, row 245
head -1 "$V/dgxc_benchmarking.csv" > "$TMP/badm.csv"
ds=$(sed -n 222p "$V/dgxc_benchmarking.csv")
echo "${ds/,1,mla_up_proj,3,2,/,1,mla_up_proj,-3,2,}" >> "$TMP/badm.csv"
echo "${ds/,1,mla_up_proj,3,2,/,1,bogus,3,2,}" >> "$TMP/badm.csv"
echo "${ds/,alltoall,token drop,1/,teleport,token drop,1}" >> "$TMP/badm.csv"
echo "${ds/,alltoall,token drop,1/,alltoall,maybe,1}" >> "$TMP/badm.csv"
echo "${ds/,alltoall,token drop,1/,alltoall,token drop,x}" >> "$TMP/badm.csv"
gb=$(sed -n 224p "$V/dgxc_benchmarking.csv")
echo "${gb/,token drop,1,unfused/,token drop,1,flashy}" >> "$TMP/badm.csv"
ex=$(sed -n 246p "$V/dgxc_benchmarking.csv")
echo "${ex/,Et\*4|(t\*4|)\*14tmL,/,Et*4|tmL,}" >> "$TMP/badm.csv"
mb=$(sed -n 247p "$V/dgxc_benchmarking.csv")
echo "${mb/Megatron-Bridge (scripts/Other launcher (scripts/}" >> "$TMP/badm.csv"
nh=$(sed -n 235p "$V/dgxc_benchmarking.csv")
echo "${nh%,false,,},sometimes,," >> "$TMP/badm.csv"
qw=$(sed -n 254p "$V/dgxc_benchmarking.csv")
echo "${qw%,true,},often," >> "$TMP/badm.csv"
ll=$(sed -n 257p "$V/dgxc_benchmarking.csv")
echo "${ll%,80},-80" >> "$TMP/badm.csv"
expect_ok validate "$TMP/badm.csv" --format csv
check "first_stage_layers not positive skipped" grep -qE "^\"badm\",1,.*column 'first_stage_layers': '-3'" "$TMP/out"
check "recompute_modules unknown skipped" grep -qE "^\"badm\",2,.*column 'recompute_modules': .*bogus" "$TMP/out"
check "moe_dispatcher unknown skipped" grep -qE "^\"badm\",3,.*column 'moe_dispatcher': 'teleport'" "$TMP/out"
check "moe_balance unknown skipped" grep -qE "^\"badm\",4,.*column 'moe_balance': 'maybe'" "$TMP/out"
check "mtp_layers not a number skipped" grep -qE "^\"badm\",5,.*column 'mtp_layers': 'x'" "$TMP/out"
check "attention_backend unknown skipped" grep -qE "^\"badm\",6,.*column 'attention_backend': 'flashy' is not unfused" "$TMP/out"
check "a launcher other than NeMo 2 or Megatron-Bridge: the layout columns unread" \
  grep -qE "^\"badm\",8,.*interleaving needs layers \(61\) divisible by pp\*vp = 16" "$TMP/out"
check "overlap_param_gather not true/false skipped" \
  grep -qE "^\"badm\",9,.*column 'overlap_param_gather': 'sometimes' is not true or false" "$TMP/out"
check "moe_a2a_overlap not true/false skipped" \
  grep -qE "^\"badm\",10,.*column 'moe_a2a_overlap': 'often' is not true or false" "$TMP/out"
check "cpu_offloading_num_layers not positive skipped" \
  grep -qE "^\"badm\",11,.*column 'cpu_offloading_num_layers': '-80' is not a positive whole number" "$TMP/out"
check "pipeline_layout not divisible by pp skipped" grep -qE "^\"badm\",7,.*pipeline layout 'Et\\*4\\|tmL': its 2 virtual stages are not divisible by pp = 8" "$TMP/out"
# bad cells: one row each, built from row 11
head -1 "$V/dgxc_benchmarking.csv" > "$TMP/bad.csv"
row=$(sed -n 12p "$V/dgxc_benchmarking.csv")
echo "${row/,nemo:24.09,/,nemo:26.02,}" >> "$TMP/bad.csv"
echo "${row/,1,true,24,16,/,1,maybe,24,16,}" >> "$TMP/bad.csv"
echo "${row/,1,true,24,16,/,1,true,x,16,}" >> "$TMP/bad.csv"
echo "${row/,14.72,71235,/,abc,71235,}" >> "$TMP/bad.csv"
echo "${row/,true,75,,,pretrain,/,true,-5,,,pretrain,}" >> "$TMP/bad.csv"
echo "${row/,true,75,,,pretrain,/,true,,lots,,pretrain,}" >> "$TMP/bad.csv"
echo "${row/,true,75,,,pretrain,/,true,75,,fp16,pretrain,}" >> "$TMP/bad.csv"
echo "${row/,true,75,,,pretrain,/,true,,1.5,,pretrain,}" >> "$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv" --format csv
check "container not 24.x, 25.0x or 25.11 skipped" grep -qE "^\"bad\",1,.*container 'nemo:26.02': only NeMo 24.x, 25.0x and 25.11 rows" "$TMP/out"
check "ub flag not true/false skipped" grep -qE "^\"bad\",2,.*column 'ub_tp_comm_overlap': 'maybe'" "$TMP/out"
check "ub SMs not a number skipped" grep -qE "^\"bad\",3,.*column 'ub proj_fprop SMs': 'x'" "$TMP/out"
check "step time not a number skipped" grep -qE "^\"bad\",4,.*Training step time" "$TMP/out"
check "bucket_cap_mb not positive skipped" grep -qE "^\"bad\",5,.*column 'bucket_cap_mb': '-5'" "$TMP/out"
check "ddp bucket_size not a number skipped" grep -qE "^\"bad\",6,.*column 'ddp bucket_size \(parameters\)': 'lots'" "$TMP/out"
check "optim dtype not bf16/fp32 skipped" grep -qE "^\"bad\",7,.*column 'optim dtype': 'fp16'" "$TMP/out"
check "ddp bucket_size not whole skipped" grep -qE "^\"bad\",8,.*column 'ddp bucket_size \(parameters\)': '1.5' is not a whole number" "$TMP/out"
finish
