#!/usr/bin/env bash
# Session 29 (thunder29): --optimizer adamw|sgd (layout.opt_sgd): torch.optim.SGD with momentum 0 and
# weight decay over the 16-bit parameters (Lightning Fabric 'bf16-true', lightning-thunder's lit-gpt
# examples). Step bytes per parameter (src/model/constants.h SGD_*, torch/optim/sgd.py
# _single_tensor_sgd): grad.add(param) 6 B + param.add_(grad) 6 B = 12 B; clip_grad_norm_ over 16-bit
# gradients 6 B more (18). One GPU, ddp: optimizer_s = params x bytes / (HBM x hbm_fraction) + one
# kernel overhead, so differences between settings are in the ratio of their byte differences:
#   AdamW eager foreach + clip 92, without clip 80; SGD + clip 18, without clip 12.
# Memory: no optimizer state (0 B) and 16-bit gradients.
. "$(dirname "$0")/lib.sh"

# a small dense model, shared with the other optimizer-step scripts
M="$PL_SOURCE_DIR/tests/data/models/opt-test.json"
# field KEY ARGS...: predict's breakdown / memory figure KEY for one H100, ddp
field() { k=$1; shift; "$PLATEAU" predict --model "$M" --gpus 1 --gpu h100 --shard ddp --mbs 1 --seq 2048 "$@" \
  --format json | python3 -c 'import json, sys; d = json.load(sys.stdin); k = sys.argv[1]; print(d["breakdown"].get(k, d["memory"].get(k)))' "$k"; }
ratio() { python3 -c 'import sys; a, b, c, d, r = map(float, sys.argv[1:]); sys.exit(0 if abs((a - b) / (c - d) - r) < 1e-9 * r else 1)' "$@"; }

e92=$(field optimizer_s --kernels unfused)
e80=$(field optimizer_s --kernels unfused --grad-clip off)
s18=$(field optimizer_s --kernels unfused --optimizer sgd --grad-reduce-dtype bf16)
s12=$(field optimizer_s --kernels unfused --optimizer sgd --grad-reduce-dtype bf16 --grad-clip off)
check "SGD's 16-bit norm pass (6 B) is half AdamW's fp32 one (12 B)" ratio "$s18" "$s12" "$e92" "$e80" 0.5
check "AdamW foreach - SGD without clip: 68 B, 11 1/3 times SGD's norm pass" ratio "$e80" "$s12" "$s18" "$s12" "$(python3 -c 'print(68/6)')"
check "SGD is eager under --kernels fused too" [ "$(field optimizer_s --kernels fused --optimizer sgd --grad-reduce-dtype bf16 --grad-clip off)" = "$s12" ]
check "--optimizer-impl foreach (the default) leaves SGD's step as it is" [ "$(field optimizer_s --kernels unfused --optimizer-impl foreach --optimizer sgd --grad-reduce-dtype bf16 --grad-clip off)" = "$s12" ]
check "default: adamw" [ "$(field optimizer_s --kernels unfused --optimizer adamw)" = "$e92" ]
check "SGD keeps no optimizer state" [ "$(field optimizer_bytes --optimizer sgd --grad-reduce-dtype bf16)" = "0" ]
g2=$(field grads_bytes --optimizer sgd --grad-reduce-dtype bf16 --shard zero3 --gpus 2)
g4=$(field grads_bytes --grad-reduce-dtype bf16 --shard zero3 --gpus 2)
check "zero3: SGD's sharded gradients are 16-bit, half AdamW's fp32 ones" python3 -c "import sys; sys.exit(0 if abs(2 * $g2 - $g4) < 1e-6 * $g4 else 1)"

# reported in the JSON and as the last CSV column
expect_ok predict --optimizer sgd --grad-reduce-dtype bf16 --format json
check "json: optimizer sgd" grep -q '"optimizer": "sgd"' "$TMP/out"
expect_ok predict --format json
check "json: optimizer adamw by default" grep -q '"optimizer": "adamw"' "$TMP/out"
expect_ok predict --optimizer sgd --grad-reduce-dtype bf16 --format csv
check "csv: framework.optimizer appended, before later sessions' columns" grep -q ',framework.optimizer,hardware.nccl_tuner,' "$TMP/out"
check "csv: sgd" [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "framework.optimizer") c = i } NR == 2 { print $c }' "$TMP/out")" = sgd ]

expect_fail 1 "^plateau: --optimizer: unknown optimizer 'adam' \(expected adamw\|sgd\)$" -- predict --optimizer adam
expect_fail 1 "^plateau: --optimizer: unknown optimizer '' \(expected adamw\|sgd\)$" -- predict --optimizer ''
expect_fail 2 "option needs a value '--optimizer'" -- predict --optimizer
expect_fail 1 "^plateau: layout: --optimizer sgd needs --grad-reduce-dtype bf16" -- predict --optimizer sgd
expect_fail 1 "^plateau: layout: --optimizer sgd cannot be combined with --adam-moments-dtype bf16" -- predict --optimizer sgd --grad-reduce-dtype bf16 --adam-moments-dtype bf16 --shard zero1 --gpus 8
expect_fail 1 "^plateau: layout: --optimizer sgd cannot be combined" -- predict --framework torchtitan --optimizer sgd --grad-reduce-dtype bf16
# AdamW's master and fused implementation are refused, not ignored (review29b)
expect_fail 1 "^plateau: layout: --optimizer sgd cannot be combined with --adam-master none or --optimizer-impl fused" -- predict --optimizer sgd --grad-reduce-dtype bf16 --optimizer-impl fused
expect_fail 1 "^plateau: layout: --optimizer sgd cannot be combined with --adam-master none" -- predict --optimizer sgd --grad-reduce-dtype bf16 --adam-master none
finish
