#!/usr/bin/env bash
# Session 27 (trace27): eager SwiGLU on chunk halves, --autocast-weight-casts (layout.autocast_weight_casts, src/sim/autocast.c)
# and eager log_softmax's re-reads of rows past shared memory (src/sim/compute.c
# eager_xent_extra_s, constants.h LOG_SOFTMAX_REREAD_*). Hand-derived:
#  - autocast: 6 B per GEMM weight element each way; this model's block weights are
#    qkv 1024 x 3072 + proj 1024 x 1024 + fc1 1024 x 8192 + fc2 4096 x 1024 = 16777216
#    (100663296 B), its LM head 32000 x 1024 = 32768000 (196608000 B);
#  - eager cross-entropy adds, per logit, 8 + 8 B forward and 16 + 4 B backward when a fp32
#    row (vocab x 4 B) is past 48 KiB (vocab 32000: 128000 B), 8 and 16 B when it fits
#    (vocab 8192: 32768 B). Doubling the tokens doubles those bytes and leaves the kernel
#    overheads, so (on - off at seq 2048) - (on - off at seq 1024) forward over backward
#    is 16/20 = 0.8, and 8/16 = 0.5 for the short rows.
. "$(dirname "$0")/lib.sh"

model() {
  cat >"$TMP/m$1.json" <<JSON
{"name": "ax-test", "layers": 4, "hidden": 1024, "heads": 8, "kv_heads": 8, "head_dim": 128,
 "ffn_hidden": 4096, "vocab": $1, "seq_len": 2048, "mlp": "swiglu", "pos": "rotary", "norm": "rms"}
JSON
}
model 32000
model 8192
# op MODEL EXPR ARGS...: EXPR over the predicted op list (o: the ops by segment.name)
op() {
  local m=$1 expr=$2
  shift 2
  "$PLATEAU" predict --model "$TMP/m$m.json" --gpus 1 --gpu h100 --shard ddp --mbs 1 --kernels unfused \
    --ops "$@" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
o = {x["segment"] + "." + x["name"]: x for x in d["ops"]}
print(eval(sys.argv[1]))' "$expr"
}

check "autocast: the block's casts are 6 B x 16777216 each way" \
  [ "$(op 32000 'int(o["layer.autocast_casts"]["fwd_bytes"]), int(o["layer.autocast_casts"]["bwd_bytes"])' --autocast-weight-casts on)" = "(100663296, 100663296)" ]
check "autocast: the head's are 6 B x 32768000" \
  [ "$(op 32000 'int(o["head.autocast_casts"]["fwd_bytes"])' --autocast-weight-casts on)" = "196608000" ]
# the backward's bf16 -> fp32 cast is PyTorch's unrolled (dtype-casting) copy: on an H100 4 B per
# element at strided_elementwise 0.415 against the forward's vectorized 6 B at 0.9, 9.639 / 6.667
check "autocast: the backward cast on the non-vectorized path (H100)" python3 -c 'import sys; a, b = eval(sys.argv[1]); sys.exit(0 if abs((b - 1.2e-6 * 4) / (a - 1.2e-6 * 4) - (4 / 0.415) / (6 / 0.9)) < 1e-3 else 1)' \
  "$(op 32000 'o["layer.autocast_casts"]["fwd_s"], o["layer.autocast_casts"]["bwd_s"]' --autocast-weight-casts on)"
check "autocast off (default): no casts" [ "$(op 32000 '"layer.autocast_casts" in o')" = "False" ]
check "autocast: the embedding is not cast" [ "$(op 32000 '"embed.autocast_casts" in o' --autocast-weight-casts on)" = "False" ]

# loss M SEQ XENT [ARGS]: the loss op's forward and backward seconds (on an H200, which has no
# strided_elementwise rate, so every byte runs at hbm_fraction)
loss() {
  local m=$1 seq=$2 x=$3
  shift 3
  op "$m" 'o["head.loss"]["fwd_s"], o["head.loss"]["bwd_s"]' --gpu h200 --seq "$seq" --eager-cross-entropy "$x" "$@"
}
ratio() {
  python3 -c 'import sys
a, b, c, d = (eval(x) for x in sys.argv[1:5]); r = float(sys.argv[5])
f = (a[0] - b[0]) - (c[0] - d[0]); g = (a[1] - b[1]) - (c[1] - d[1])
sys.exit(0 if abs(f / g - r) < 1e-6 else 1)' "$@"
}
check "log_softmax past shared memory: forward 16 B, backward 20 B per logit" \
  ratio "$(loss 32000 2048 on)" "$(loss 32000 2048 off)" "$(loss 32000 1024 on)" "$(loss 32000 1024 off)" 0.8
check "rows in shared memory: 8 B and 16 B" \
  ratio "$(loss 8192 2048 on)" "$(loss 8192 2048 off)" "$(loss 8192 1024 on)" "$(loss 8192 1024 off)" 0.5
# On an H100 (hbm_fraction 0.9, strided_elementwise 0.415) logits.float() is PyTorch's unrolled
# (dtype-casting) copy, 4 B per element at 0.415 in place of its 6 B at 0.9: forward
# (16 - 6) / 0.9 + 4 / 0.415 against backward 20 / 0.9, a ratio of 0.933735
check "H100: the logits' fp32 cast on the non-vectorized path" \
  ratio "$(loss 32000 2048 on --gpu h100)" "$(loss 32000 2048 off --gpu h100)" "$(loss 32000 1024 on --gpu h100)" \
  "$(loss 32000 1024 off --gpu h100)" "$(python3 -c 'print((10 / 0.9 + 4 / 0.415) / (20 / 0.9))')"

# eager SwiGLU on torch.chunk halves of one fc1 (segments.c unfused_kernels, without
# --separate-linears): chunk's backward cat adds 8 B per ffn element to swiglu_eager's 8 B
# (2048 tokens x 4096 = 8388608 elements: 134217728 B against 67108864), and its silu and multiply
# run on PyTorch's non-vectorized path (slower than with separate linears)
check "chunked SwiGLU: the backward cat, 16 B per ffn element" \
  [ "$(op 32000 'int(o["layer.swiglu_eager"]["bwd_bytes"])' --separate-linears off)" = "134217728" ]
check "separate linears: 8 B" \
  [ "$(op 32000 'int(o["layer.swiglu_eager"]["bwd_bytes"])' --separate-linears on)" = "67108864" ]
check "chunked SwiGLU's forward is slower (non-vectorized)" python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) > float(sys.argv[2]) else 1)' \
  "$(op 32000 'o["layer.swiglu_eager"]["fwd_s"]' --separate-linears off)" "$(op 32000 'o["layer.swiglu_eager"]["fwd_s"]' --separate-linears on)"

# eager ddp's gradient passes (src/sim/eager_accum.c): AccumulateGrad steals the first
# micro-batch's gradient, later ones add in place (3 x g B per parameter, g = 4 under autocast's
# fp32 parameters, 2 otherwise), DDP over dp > 1 copies into its bucket and back (4 x g). A block
# holds 16779264 parameters (the GEMMs above and two 1024-wide norms).
accum() { op 32000 'int(o["layer.grad_accum"]["bwd_bytes"])' "$@"; }
check "eager ddp, one micro-batch, one GPU: stolen, 0 B" [ "$(accum --autocast-weight-casts on --gbs 1)" = "0" ]
check "four micro-batches, fp32: 3/4 x 12 B = 9 B per parameter" \
  [ "$(accum --autocast-weight-casts on --gbs 4)" = "151013376" ]
check "dp 2, bf16 gradients: the bucket copies, 8 B per parameter" \
  [ "$(accum --gpus 2 --gbs 2)" = "134234112" ]
check "fused kernels keep Megatron's 10 B" [ "$(accum --kernels fused --gbs 1)" = "167792640" ]

expect_ok predict --autocast-weight-casts on --format json
check "json: autocast_weight_casts" grep -q '"autocast_weight_casts": true' "$TMP/out"
expect_fail 1 "^plateau: --autocast-weight-casts: unknown value 'yes' \(expected on\|off\)$" -- predict --autocast-weight-casts yes
finish
