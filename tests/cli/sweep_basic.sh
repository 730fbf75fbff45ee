#!/usr/bin/env bash
# `plateau sweep` (docs/search.md): scale axes in every form, the figures of
# diminishing returns, strategies side by side, and output that does not
# depend on the number of threads. Small points only.
. "$(dirname "$0")/lib.sh"

col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
rows() { echo $(($(wc -l <"$1") - 1)); }

# the given layout (FSDP default) over a doubling range; weak scaling
expect_ok sweep --model llama2-7b --gpus 8..64 --format csv --threads 1
cp "$TMP/out" "$TMP/g1.csv"
check "4 points for 8..64" [ "$(rows "$TMP/g1.csv")" -eq 4 ]
# (grep reads the header line itself: a pipe after check would apply to
# check's own output and could not fail)
head -1 "$TMP/g1.csv" >"$TMP/g1.head"
check "columns: predict's, then the figures" \
  grep -q '^model.name,.*,power.tokens_per_j,.*,framework.name,.*,framework.logit_metric_passes,hardware.power_cap_w,layout.batch_per_gpu,.*,framework.grad_accum,step_time_s_lo,step_time_s_hi,tokens_per_s_lo,tokens_per_s_hi,mfu_lo,mfu_hi,error_band.class,error_band.published_runs,framework.host_per_kernel_s,framework.fp8_weight_cache,framework.bucket_mb,framework.fsdp_pp_unsharded,framework.zero3_list_copy_s,layout.recompute_method,framework.head_16bit,framework.launch_blocking,framework.ep_comm_overlap,framework.zero3_grad_reduce,framework.fp8_all_gather,layout.recompute_modules,framework.zero3_reuse,framework.cudnn_2024,framework.host_per_gemm_s,framework.zero3_debug_norm,layout.cuda_graph_scope,hardware.nccl_version,framework.te_cross_entropy,framework.te_linear_bwd_overlap,framework.host_per_launch_s,framework.fsdp_block_units,framework.adam_moments_dtype,framework.moe_host_sync,layout.offload_modules,framework.fp8_attention,framework.nvfp4_rht_unfused,framework.fused_grouped_mlp,framework.cudnn_913,framework.tp_seq_copies,framework.cudnn_version,framework.cp_allgather,framework.async_tp,framework.cudnn_cluster_margin,framework.grad_accum_fusion,framework.ub_proj_fprop_sms,framework.ub_fc2_fprop_sms,framework.step_sync_all_reduces,framework.step_sync_broadcasts,framework.step_sync_all_gathers,framework.opt_syncs_per_tensor,layout.account_embed_loss,framework.megatron_xent,hardware.gpus_per_node,hardware.hbm_bytes,hardware.hbm_bytes_per_s,hardware.nic_bytes_per_s,hardware.sharp,framework.eager_cross_entropy,framework.pp_keep_outputs,framework.tp_gathered_saved,framework.fp32_param_shards,hardware.gpu_variability,framework.adam_master,framework.bucket_params,framework.fsdp1_copies,layout.moe_pad_capacity,framework.moe_expert_padding,framework.gqa_query_copy,layout.moe_force_balance,framework.fms_rope,framework.kv_expand_copy,framework.separate_linears,framework.rope_complex,framework.fsdp2_predivide,framework.fsdp2_rs_copy_in,framework.hybridep_sms,framework.moe_router_fusion,framework.fused_norm,framework.jit_fuser,framework.fsdp_root_unit,framework.nccl_max_ctas_tp,framework.nccl_max_ctas_cp,framework.nccl_max_ctas_dp,framework.nccl_max_ctas_pp,hardware.nccl_min_channels,layout.bf16_last_blocks,layout.bf16_modules,layout.task,layout.lora_rank,layout.lora_targets,layout.packed_sample_len,framework.hf_shift_copy,framework.align_grad_reduce,layout.defer_embedding_wgrad,layout.cp_comm_type,layout.cp_a2a_size,framework.overlap_param_gather_with_optimizer_step,framework.delay_wgrad_compute,framework.optimizer_impl,framework.grad_clip,framework.autocast_weight_casts,framework.optimizer_torch,framework.logits_shift_copy,framework.eager_z_loss,framework.grad_buffer_passes,framework.grad_scale_pass,framework.logits_fp32,framework.grad_comm_cast,layout.pp_schedules,layout.moe_fake_gate,layout.moe_act_compiled,framework.grad_nan_check,framework.optimizer,hardware.nccl_tuner,framework.megatron_softmax,framework.inductor_norms,framework.parallel_block,layout.fsdp_ga_nosync,layout.moe_fc1_bias_eager,framework.fp8_amax_reduce,strategy,scaling_efficiency,marginal_tokens_per_s_per_gpu,marginal_efficiency$' "$TMP/g1.head"
check "gpus 8 16 32 64" [ "$(col "$TMP/g1.csv" layout.gpus | tr '\n' ' ')" = "8 16 32 64 " ]
check "weak scaling: gbs = gpus" [ "$(col "$TMP/g1.csv" layout.gbs | tr '\n' ' ')" = "8 16 32 64 " ]
check "scaling efficiency 1 at the smallest point" [ "$(col "$TMP/g1.csv" scaling_efficiency | head -1)" = "1" ]
check "no marginal figure at the smallest point" [ -z "$(col "$TMP/g1.csv" marginal_tokens_per_s_per_gpu | head -1)" ]
check "strategy 'given'" [ -z "$(col "$TMP/g1.csv" strategy | grep -v '^given$')" ]
# scaling efficiency = (T/N)/(T0/N0), recomputed from the CSV
check "scaling efficiency matches its definition" awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "tokens_per_s") t = i; if ($i == "layout.gpus") n = i; if ($i == "scaling_efficiency") e = i; if ($i == "marginal_tokens_per_s_per_gpu") m = i } next }
  NR == 2 { t0 = $t; n0 = $n; tp = $t; np = $n; next }
  { want = ($t / $n) / (t0 / n0); if ((want - $e) ^ 2 > 1e-18 * want ^ 2) exit 1;
    mw = ($t - tp) / ($n - np); if ((mw - $m) ^ 2 > 1e-18 * mw ^ 2) exit 1; tp = $t; np = $n }' "$TMP/g1.csv"
expect_ok sweep --model llama2-7b --gpus 8..64 --format csv --threads 2
check "given layout: CSV identical for --threads 1 and 2" cmp -s "$TMP/g1.csv" "$TMP/out"

# axis forms: list with "...", nodes, strong scaling
expect_ok sweep --gpus 8,16,...,64 --format csv
check "8,16,...,64 doubles" [ "$(col "$TMP/out" layout.gpus | tr '\n' ' ')" = "8 16 32 64 " ]
expect_ok sweep --gpus 8,16,...,40 --format csv
check "8,16,...,40 stops below 40, then 40" [ "$(col "$TMP/out" layout.gpus | tr '\n' ' ')" = "8 16 32 40 " ]
expect_ok sweep --gpus 24,8,16,8 --format csv
check "sorted and deduplicated" [ "$(col "$TMP/out" layout.gpus | tr '\n' ' ')" = "8 16 24 " ]
expect_ok sweep --nodes 1,2 --format csv
check "--nodes 1,2 is 8 and 16 GPUs" [ "$(col "$TMP/out" layout.gpus | tr '\n' ' ')" = "8 16 " ]
expect_ok sweep --gpus 8..32 --gbs 32 --format csv
check "strong scaling: gbs fixed" [ "$(col "$TMP/out" layout.gbs | tr '\n' ' ')" = "32 32 32 " ]

# strategies side by side, searched at each point; threads do not matter
expect_ok sweep --model llama2-7b --gpus 8..32 --strategies fsdp,tp2,best --fix mbs=1 --format csv --threads 1
cp "$TMP/out" "$TMP/s1.csv"
check "3 strategies x 3 points" [ "$(rows "$TMP/s1.csv")" -eq 9 ]
check "strategies in order" [ "$(col "$TMP/s1.csv" strategy | uniq | tr '\n' ' ')" = "fsdp tp2 best " ]
check "tp2 rows have tp 2" [ "$(paste -d' ' <(col "$TMP/s1.csv" strategy) <(col "$TMP/s1.csv" layout.tp) | grep '^tp2' | grep -cv ' 2$')" -eq 0 ]
check "fsdp rows: tp = pp = cp = 1" [ "$(paste -d' ' <(col "$TMP/s1.csv" strategy) <(col "$TMP/s1.csv" layout.tp) <(col "$TMP/s1.csv" layout.pp) <(col "$TMP/s1.csv" layout.cp) | grep '^fsdp' | grep -cv ' 1 1 1$')" -eq 0 ]
# best is at least as fast as any strategy at the same point
check "best >= every strategy" awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "tokens_per_s") t = i; if ($i == "layout.gpus") n = i; if ($i == "strategy") s = i } next }
  { if ($s == "best") best[$n] = $t; else if ($t > max[$n]) max[$n] = $t }
  END { for (k in max) if (best[k] < max[k]) exit 1 }' "$TMP/s1.csv"
expect_ok sweep --model llama2-7b --gpus 8..32 --strategies fsdp,tp2,best --fix mbs=1 --format csv --threads 2
check "strategies: CSV identical for --threads 1 and 2" cmp -s "$TMP/s1.csv" "$TMP/out"

# JSON: points and the knee; a strategy that cannot divide a point is skipped
expect_ok sweep --model llama2-7b --gpus 8..16 --strategies tp16,fsdp --fix mbs=1 --format json --knee 0.9
check "JSON points" grep -q '"points": \[' "$TMP/out"
check "JSON knee with its threshold" grep -A1 -q '"knee": {' "$TMP/out"
check "JSON knee threshold 0.9" grep -q '"threshold": 0.9' "$TMP/out"
check "points carry the figures" grep -q '"scaling_efficiency":' "$TMP/out"
check "skipped point noted on stderr" grep -q 'skipped: search: tp=16 does not divide 8 GPUs' "$TMP/err"
check "and in the JSON (the C API and Python do not see stderr)" \
  grep -q '"why": "search: tp=16 does not divide 8 GPUs"' "$TMP/out"
check "the skipped point names its strategy and scale" \
  grep -B3 -q '"gpus": 8,' <(grep -A4 '"skipped": \[' "$TMP/out")
# text: a table per series with its knee
expect_ok sweep --model llama2-7b --gpus 8..16 --layout best --fix mbs=1
check "text series header" grep -q '^plateau sweep: llama2-7b on h100, strategy best' "$TMP/out"
check "text knee line" grep -q '^knee: ' "$TMP/out"
# the error band per point (predict's, tokens/s and MFU) and the classes behind it
check "text band column" grep -q '^ *gpus  layout  *tokens/s  *band ' "$TMP/out"
check "text band per point" grep -Eq '^ *8  dp.* -?[0-9]+%/\+?-?[0-9]+% ' "$TMP/out"
check "text band classes" grep -q '^band: error band of tokens/s, per GPU and MFU, the middle 90% of the published runs of the point.s class (docs/accuracy.md): h100 single-node ([0-9]* runs)' "$TMP/out"
# every run option reaches sweep: the option table once held 64 and silently
# dropped the last of RUN_OPTS (--bucket-mb, --zero3-list-copy, --zero3-reuse)
expect_ok sweep --model llama2-7b --gpus 8..16 --shard ddp --bucket-mb 50 --format csv --threads 1
check "sweep takes --bucket-mb (the last run option)" [ "$(col "$TMP/out" framework.bucket_mb | head -1)" = "50" ]

finish

