#!/usr/bin/env bash
# `plateau study` end to end on tiny grids (the default grid takes a minute;
# docs/study.md "Cost"): the report's files and their contents, findings that
# follow the inputs, measured runs, atomic replacement of --out, and a run
# without gnuplot (issue "The study in one command", Done when).
. "$(dirname "$0")/lib.sh"

# 1 model x 2 clusters x 2 batch regimes x 3 strategies x 2 scales = 24 points.
cat >"$TMP/a.json" <<'EOF'
{"models": ["llama2-7b"], "clusters": ["dgx-a100", "dgx-h100"], "nodes": [1, 2],
 "strategies": ["fsdp", "tp2", "best"], "batch_per_gpu": [1], "global_batch": [32],
 "best": "recompute=none,schedule=1f1b,shard=zero2,shard_group=dp"}
EOF
# The same grid on other hardware, with shorter sequences.
sed -e 's/"dgx-a100", "dgx-h100"/"dgx-v100", "dgx-a100"/' -e 's/"nodes"/"seq": 2048, "nodes"/' \
  "$TMP/a.json" >"$TMP/b.json"

have_gnuplot=0
command -v "${PLATEAU_GNUPLOT:-gnuplot}" >/dev/null 2>&1 && have_gnuplot=1

expect_ok study --spec "$TMP/a.json" --out "$TMP/ra" --threads 2
cp "$TMP/out" "$TMP/a.out"
R=$TMP/ra
for f in index.html results.csv results.json spec.json .plateau-study figures/scaling.gp \
  figures/scaling.dat figures/breakdown.gp figures/collectives.dat; do
  check "report has $f" test -s "$R/$f"
done
check "progress on stderr" grep -q "24/24 points" "$TMP/err"
check "csv: header + 24 rows" test "$(wc -l <"$R/results.csv")" -eq 25
check "csv: axes then predict's columns" grep -Eq '^study.model,study.cluster,study.strategy,.*,model.name,.*,step_time_s,tokens_per_s,.*,power.tokens_per_j(,train\.[a-z_]+)*,framework.name,.*,framework.logit_metric_passes,hardware.power_cap_w,layout.batch_per_gpu,.*,framework.grad_accum,step_time_s_lo,step_time_s_hi,tokens_per_s_lo,tokens_per_s_hi,mfu_lo,mfu_hi,error_band.class,error_band.published_runs,framework.host_per_kernel_s,framework.fp8_weight_cache,framework.bucket_mb,framework.fsdp_pp_unsharded,framework.zero3_list_copy_s,layout.recompute_method,framework.head_16bit,framework.launch_blocking,framework.ep_comm_overlap,framework.zero3_grad_reduce,framework.fp8_all_gather,layout.recompute_modules,framework.zero3_reuse,framework.cudnn_2024,framework.host_per_gemm_s,framework.zero3_debug_norm,layout.cuda_graph_scope,hardware.nccl_version,framework.te_cross_entropy,framework.te_linear_bwd_overlap,framework.host_per_launch_s,framework.fsdp_block_units,framework.adam_moments_dtype,framework.moe_host_sync,layout.offload_modules,framework.fp8_attention,framework.nvfp4_rht_unfused,framework.fused_grouped_mlp,framework.cudnn_913,framework.tp_seq_copies,framework.cudnn_version,framework.cp_allgather,framework.async_tp,framework.cudnn_cluster_margin,framework.grad_accum_fusion,framework.ub_proj_fprop_sms,framework.ub_fc2_fprop_sms,framework.step_sync_all_reduces,framework.step_sync_broadcasts,framework.step_sync_all_gathers,framework.opt_syncs_per_tensor,layout.account_embed_loss,framework.megatron_xent,hardware.gpus_per_node,hardware.hbm_bytes,hardware.hbm_bytes_per_s,hardware.nic_bytes_per_s,hardware.sharp,framework.eager_cross_entropy,framework.pp_keep_outputs,framework.tp_gathered_saved,framework.fp32_param_shards,hardware.gpu_variability,framework.adam_master,framework.bucket_params,framework.fsdp1_copies,layout.moe_pad_capacity,framework.moe_expert_padding,framework.gqa_query_copy,layout.moe_force_balance,framework.fms_rope,framework.kv_expand_copy,framework.separate_linears,framework.rope_complex,framework.fsdp2_predivide,framework.fsdp2_rs_copy_in,framework.hybridep_sms,framework.moe_router_fusion,framework.fused_norm,framework.jit_fuser,framework.fsdp_root_unit,framework.nccl_max_ctas_tp,framework.nccl_max_ctas_cp,framework.nccl_max_ctas_dp,framework.nccl_max_ctas_pp,hardware.nccl_min_channels,layout.bf16_last_blocks,layout.bf16_modules,layout.task,layout.lora_rank,layout.lora_targets,layout.packed_sample_len,framework.hf_shift_copy,framework.align_grad_reduce,layout.defer_embedding_wgrad,layout.cp_comm_type,layout.cp_a2a_size,framework.overlap_param_gather_with_optimizer_step,framework.delay_wgrad_compute,framework.optimizer_impl,framework.grad_clip,framework.autocast_weight_casts,framework.optimizer_torch,framework.logits_shift_copy,framework.eager_z_loss,framework.grad_buffer_passes,framework.grad_scale_pass,framework.logits_fp32,framework.grad_comm_cast,layout.pp_schedules,layout.moe_fake_gate,layout.moe_act_compiled,framework.grad_nan_check,framework.optimizer,hardware.nccl_tuner,framework.megatron_softmax,framework.inductor_norms,framework.parallel_block,layout.fsdp_ga_nosync,layout.moe_fc1_bias_eager,framework.fp8_amax_reduce,study.exposed_all_gather_s,study.exposed_reduce_scatter_s,study.exposed_all_reduce_s,study.exposed_tp_s,study.exposed_pp_s,study.exposed_cp_s$' "$R/results.csv"
check "json: 24 points" test "$(grep -o '"study": {' "$R/results.json" | wc -l)" -eq 24
check "json: predict's fields" grep -q '"tokens_per_s_per_gpu": [0-9]' "$R/results.json"
check "json: findings" grep -q '"findings": "Under FSDP alone on dgx-h100' "$R/results.json"
check "json: version (git describe) first, plateau_version kept" grep -qzE '^\{\s*"version": "[^"]+",\s*"plateau_version": ' "$R/results.json"
check "spec.json reads back" sh -c "'$PLATEAU' study --spec '$R/spec.json' --out '$TMP/rspec' --quiet >/dev/null"
check "same results from spec.json" cmp -s "$R/results.csv" "$TMP/rspec/results.csv"
# The study's framework (session 23): the paper's stack by default, written into spec.json and
# every row; --framework none (or "framework": "none") runs plateau's defaults, which differ.
check "spec.json names the default framework" grep -q '"framework": "fsdp2-study-2024"' "$R/spec.json"
check "csv rows run the default framework" grep -q ',fsdp2-study-2024,' "$R/results.csv"
expect_ok study --spec "$TMP/a.json" --out "$TMP/rnone" --threads 2 --quiet --framework none
check "--framework none: spec.json says none" grep -q '"framework": "none"' "$TMP/rnone/spec.json"
check "--framework none: results differ from the default" sh -c "! cmp -s '$R/results.csv' '$TMP/rnone/results.csv'"
check "--framework none: spec.json reads back" sh -c "'$PLATEAU' study --spec '$TMP/rnone/spec.json' --out '$TMP/rnone2' --quiet >/dev/null"
check "--framework none: same results from spec.json" cmp -s "$TMP/rnone/results.csv" "$TMP/rnone2/results.csv"

if [ $have_gnuplot -eq 1 ]; then
  n_svg=$(ls "$R"/figures/*.svg | wc -l)
  check "figures drawn (svg)" test "$n_svg" -ge 8
  check "figures drawn (png)" test "$(ls "$R"/figures/*.png | wc -l)" -eq "$n_svg"
  check "every svg embedded in index.html" test "$(grep -o 'data:image/svg+xml;base64,' "$R/index.html" | wc -l)" -eq "$n_svg"
  check "no network in index.html" sh -c "! grep -qE '(src|href)=\"(https?:)?//' '$R/index.html'"
else
  echo "note: gnuplot not installed, figure drawing not checked here" >&2
fi

# Findings are computed from the data: other inputs, other sentences.
expect_ok study --spec "$TMP/b.json" --out "$TMP/rb" --quiet
cp "$TMP/out" "$TMP/b.out"
grep '^  [a-z]*:' "$TMP/a.out" | cut -d: -f1 >"$TMP/a.ids"
grep '^  [a-z]*:' "$TMP/b.out" | cut -d: -f1 >"$TMP/b.ids"
check "findings printed" test "$(wc -l <"$TMP/a.ids")" -ge 6
check "same figures have findings" cmp -s "$TMP/a.ids" "$TMP/b.ids"
for id in scaling mfu breakdown power generations memory collectives; do
  check "finding '$id' changes with the inputs" sh -c \
    "test \"\$(grep '^  $id:' '$TMP/a.out')\" != \"\$(grep '^  $id:' '$TMP/b.out')\""
done
check "finding names the new hardware" grep -q "^  generations: .*A100-80G trains llama2-7b .* as fast as V100" "$TMP/b.out"

# Atomic replacement: a second run replaces the report and leaves nothing beside it.
expect_ok study --spec "$TMP/b.json" --out "$R" --quiet
check "report replaced" cmp -s "$R/results.csv" "$TMP/rb/results.csv"
check "no temporary directories left" sh -c "! ls -d '$TMP'/*.tmp-* '$TMP'/*.old-* 2>/dev/null | grep -q ."
# A directory that is not a report is refused and kept as it was.
mkdir "$TMP/mine" && echo keep >"$TMP/mine/notes.txt"
expect_fail 1 "'.*mine' exists and is not a plateau study report" -- study --spec "$TMP/a.json" --out "$TMP/mine" --quiet
check "foreign directory untouched" test "$(ls "$TMP/mine")" = notes.txt

# Ctrl-C during the default grid (tens of seconds): nothing is left behind.
# The signal is sent once the first progress line shows the handler is set
# (a fixed sleep raced with a slow start under the sanitizers: a background
# job of a script starts with SIGINT ignored until the handler replaces it).
"$PLATEAU" study --out "$TMP/int" >/dev/null 2>"$TMP/interrupt.log" &
pid=$!
for _ in $(seq 600); do
  grep -q "points" "$TMP/interrupt.log" 2>/dev/null && break
  sleep 0.2
done
kill -INT $pid
wait $pid
rc=$?
check "interrupted: non-zero exit" test $rc -ne 0
# (exit 1 when the handler caught it; 130 if the signal came before it was set)
check "interrupted: says so" grep -Eq "interrupted(; nothing was written|;.*left as it was)" "$TMP/interrupt.log"
check "interrupted: no report" test ! -e "$TMP/int"
check "interrupted: no temporary directory" sh -c "! ls -d '$TMP'/int.* 2>/dev/null | grep -q ."

# Without gnuplot: CSV, JSON, scripts and data are written, and the user is told how to draw.
PLATEAU_GNUPLOT=/nonexistent/gnuplot expect_ok study --spec "$TMP/a.json" --out "$TMP/nogp" --quiet
check "no gnuplot: says how to get figures" grep -q "install gnuplot (Debian: apt-get install gnuplot-nox)" "$TMP/err"
check "no gnuplot: csv and json" test -s "$TMP/nogp/results.csv" -a -s "$TMP/nogp/results.json"
check "no gnuplot: scripts" test -s "$TMP/nogp/figures/scaling.gp" -a -s "$TMP/nogp/figures/scaling.dat"
check "no gnuplot: no svg" sh -c "! ls '$TMP'/nogp/figures/*.svg 2>/dev/null | grep -q ."
check "no gnuplot: page says so" grep -q "figures not drawn" "$TMP/nogp/index.html"
# The same with PATH lacking gnuplot (the binary is found by absolute path).
env -u PLATEAU_GNUPLOT PATH=/nonexistent "$PLATEAU" study --spec "$TMP/a.json" --out "$TMP/nopath" --quiet >"$TMP/out" 2>"$TMP/err"
check "PATH without gnuplot: exit 0" test $? -eq 0
check "PATH without gnuplot: hint" grep -q "cannot run 'gnuplot'" "$TMP/err"
# A gnuplot script redraws its figure from the files kept beside it.
if [ $have_gnuplot -eq 1 ]; then
  check "kept script redraws" sh -c "cd '$TMP/nogp/figures' && ${PLATEAU_GNUPLOT:-gnuplot} scaling.gp && test -s scaling.svg"
fi

# Measured runs: an 8-rank DLRM trace set (tests/data/traces/dlrm) over the predictions.
expect_ok study --spec "$TMP/a.json" --out "$TMP/rm" --quiet --measured "$PL_TEST_DATA/traces/dlrm"
check "measured figure" test -s "$TMP/rm/figures/measured.dat"
check "measured finding" grep -q "^  measured: Measured run 'dlrm' (8 GPUs)" "$TMP/out"
check "measured in json" grep -q '"label": "dlrm"' "$TMP/rm/results.json"
finish
