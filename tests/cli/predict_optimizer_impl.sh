#!/usr/bin/env bash
# Session 27 (trace27): --optimizer-impl fused|foreach (layout.opt_fused) and --grad-clip on|off
# (layout.no_grad_clip): the optimizer step's HBM bytes per parameter (src/sim/lower_dp.c
# sim_opt_bytes_per_param, src/model/constants.h). One GPU, ddp: optimizer_s = params x bytes /
# (HBM bandwidth x hbm_fraction) + one kernel overhead, so differences of optimizer_s between
# settings are in the ratio of their byte differences, whatever the model and GPU:
#   eager foreach + clip_grad_norm_ 80 + 12 = 92, eager fused + clip 28 + 12 = 40,
#   eager fused, no clip 28; Megatron/TE fused step 30 + norm pass 4 = 34, no clip 30.
. "$(dirname "$0")/lib.sh"

# a small dense model, shared with the other optimizer-step scripts
M="$PL_SOURCE_DIR/tests/data/models/opt-test.json"
# opt ARGS...: predict's optimizer_s for one H100, ddp
opt() { "$PLATEAU" predict --model "$M" --gpus 1 --gpu h100 --shard ddp --mbs 1 --seq 2048 "$@" \
  --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["breakdown"]["optimizer_s"])'; }
# ratio A B C D R: (A - B) / (C - D) is R to 1e-9
ratio() { python3 -c 'import sys; a, b, c, d, r = map(float, sys.argv[1:]); sys.exit(0 if abs((a - b) / (c - d) - r) < 1e-9 * r else 1)' "$@"; }

e92=$(opt --kernels unfused)
e40=$(opt --kernels unfused --optimizer-impl fused)
e28=$(opt --kernels unfused --optimizer-impl fused --grad-clip off)
e80=$(opt --kernels unfused --grad-clip off)
f34=$(opt --kernels fused)
f30=$(opt --kernels fused --grad-clip off)
check "foreach - fused (with clip) is 52 B against the eager norm pass's 12 B" ratio "$e92" "$e40" "$e40" "$e28" "$(python3 -c 'print(52/12)')"
check "without clip the same 52 B apart" ratio "$e80" "$e28" "$e92" "$e40" 1
check "Megatron's norm pass (4 B) is a third of eager PyTorch's (12 B)" ratio "$e40" "$e28" "$f34" "$f30" 3
check "--optimizer-impl is ignored with --kernels fused" [ "$(opt --kernels fused --optimizer-impl fused)" = "$f34" ]
# --optimizer-torch: a compiled model (--kernels fused) whose step is torch.optim's (torchtitan)
check "--optimizer-torch on: compiled blocks, torch's foreach step (92 B)" [ "$(opt --kernels fused --optimizer-torch on)" = "$e92" ]
check "--optimizer-torch on --optimizer-impl fused: 40 B" [ "$(opt --kernels fused --optimizer-torch on --optimizer-impl fused)" = "$e40" ]
check "default: foreach" [ "$(opt --kernels unfused --optimizer-impl foreach)" = "$e92" ]

# reported in the JSON and as the last CSV columns
expect_ok predict --kernels unfused --optimizer-impl fused --grad-clip off --format json
check "json: optimizer_impl fused" grep -q '"optimizer_impl": "fused"' "$TMP/out"
check "json: grad_clip false" grep -q '"grad_clip": false' "$TMP/out"
expect_ok predict --format csv
check "csv: the two columns appended" grep -q ',framework.optimizer_impl,framework.grad_clip,framework.autocast_weight_casts,framework.optimizer_torch,framework.logits_shift_copy,framework.eager_z_loss,framework.grad_buffer_passes,framework.grad_scale_pass,framework.logits_fp32,framework.grad_comm_cast,layout.pp_schedules,layout.moe_fake_gate,layout.moe_act_compiled,framework.grad_nan_check,framework.optimizer,hardware.nccl_tuner,framework.megatron_softmax,framework.inductor_norms,framework.parallel_block,layout.fsdp_ga_nosync,layout.moe_fc1_bias_eager,framework.fp8_amax_reduce$' "$TMP/out"

# the torchtitan preset (v0.1.0) runs torch.optim.AdamW(fused=True)
expect_ok predict --framework torchtitan --format json
check "torchtitan: fused" grep -q '"optimizer_impl": "fused"' "$TMP/out"
check "torchtitan: torch.optim's step" grep -q '"optimizer_torch": true' "$TMP/out"
expect_ok predict --framework torchtitan-2024-04 --format json
check "torchtitan-2024-04 (foreach=True): foreach" grep -q '"optimizer_impl": "foreach"' "$TMP/out"

expect_fail 1 "^plateau: --optimizer-impl: unknown implementation 'for-loop' \(expected fused\|foreach\)$" -- predict --optimizer-impl for-loop
expect_fail 1 "^plateau: --optimizer-impl: unknown implementation '' \(expected fused\|foreach\)$" -- predict --optimizer-impl ''
expect_fail 1 "^plateau: --grad-clip: unknown value 'maybe' \(expected on\|off\)$" -- predict --grad-clip maybe
expect_fail 1 "^plateau: --optimizer-torch: unknown value 'apex' \(expected on\|off\)$" -- predict --optimizer-torch apex
finish
