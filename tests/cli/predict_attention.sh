#!/usr/bin/env bash
# The attention kernel as a framework behaviour (docs/step-model.md 2.2, docs/frameworks.md):
# --attention cudnn (cuDNN's fused flash attention, the GPU file's cudnn figures) and te
# (Transformer Engine's choice, get_attention_backend: cuDNN on compute capability >= 9.0 where
# cuDNN trains the head dims, FlashAttention-2 below), the megatron-core and nemo presets that
# use te, the resolved kernel in JSON and CSV, and bad values failing on one line.
. "$(dirname "$0")/lib.sh"

col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b * 0.9999) }'; }
kernel() { grep -o '"attention": *"[a-z]*"' "$TMP/out" | head -1 | sed 's/.*: *//; s/"//g'; }

run=(predict --model llama3-8b --gpus 8 --seq 8192)
# named kernels on H100: recorded, and cuDNN (0.615/0.532 of peak) beats FlashAttention-2 (0.35)
for a in flash cudnn; do
  expect_ok "${run[@]}" --gpu h100 --attention "$a" --format csv
  cp "$TMP/out" "$TMP/$a.csv"
  check "$a: csv framework.attention" [ "$(col "$TMP/$a.csv" framework.attention)" = "$a" ]
done
check "cudnn faster than flash on h100" lt "$(col "$TMP/cudnn.csv" step_time_s)" "$(col "$TMP/flash.csv" step_time_s)"
expect_ok "${run[@]}" --gpu h100 --attention cudnn --format json
check "cudnn: json framework.attention" [ "$(kernel)" = cudnn ]

# te resolves against the GPU: cudnn on Hopper and Blackwell, flash on Ampere; never printed as te
expect_ok "${run[@]}" --gpu h100 --attention te --format csv
check "te on h100 runs cudnn" [ "$(col "$TMP/out" framework.attention)" = cudnn ]
check "te on h100 = cudnn step" [ "$(col "$TMP/out" step_time_s)" = "$(col "$TMP/cudnn.csv" step_time_s)" ]
expect_ok "${run[@]}" --gpu b200 --attention te --format json
check "te on b200 runs cudnn (TE 2.x: >= (9, 0))" [ "$(kernel)" = cudnn ]
expect_ok "${run[@]}" --gpu a100-80g --attention te --format csv
cp "$TMP/out" "$TMP/te_a100.csv"
check "te on a100 runs flash" [ "$(col "$TMP/te_a100.csv" framework.attention)" = flash ]
expect_ok "${run[@]}" --gpu a100-80g --attention flash --format csv
check "te on a100 = flash step" [ "$(col "$TMP/out" step_time_s)" = "$(col "$TMP/te_a100.csv" step_time_s)" ]
# a sliding window runs on cuDNN from 9.2 (fused_attn.cpp nvte_get_fused_attn_backend, TE
# v2.9-v2.18), attention sinks from 9.13.1, and TE disables FlashAttention for sinks
# (get_attention_backend "Filter: Softmax type"); below those versions plateau keeps flash
expect_ok predict --model mistral-7b --gpus 8 --gpu h100 --attention te --format json
check "te with a sliding window, latest cuDNN: cudnn" [ "$(kernel)" = cudnn ]
expect_ok predict --model mistral-7b --gpus 8 --gpu h100 --attention te --cudnn 9.1 --format json
check "te with a sliding window, cuDNN 9.1: flash" [ "$(kernel)" = flash ]
expect_ok predict --model mistral-7b --gpus 8 --gpu h100 --attention te --cudnn 9.2 --format json
check "te with a sliding window, cuDNN 9.2: cudnn" [ "$(kernel)" = cudnn ]
oss=(predict --model gpt-oss-120b --gpu h100 --gpus 64 --ep 8 --pp 4 --mbs 1 --gbs 64 --attention te)
expect_ok "${oss[@]}" --format json
check "te with sinks, latest cuDNN: cudnn" [ "$(kernel)" = cudnn ]
expect_ok "${oss[@]}" --cudnn 9.13 --format json
check "te with sinks, cuDNN 9.13.0: flash" [ "$(kernel)" = flash ]
expect_ok "${oss[@]}" --cudnn 9.13.1 --format json
check "te with sinks, cuDNN 9.13.1: cudnn" [ "$(kernel)" = cudnn ]
# FP8 attention with sinks or a window: TE 2.16 keeps cuDNN for it from cuDNN 9.21 on sm100
ossfp8=(predict --model gpt-oss-120b --cluster gb300-nvl72 --gpus 64 --ep 16 --mbs 4 --gbs 1280 --dtype mxfp8 --attention te --fp8-attention on)
expect_ok "${ossfp8[@]}" --cudnn 9.21 --format json
check "fp8 attention with sinks, cuDNN 9.21: cudnn" [ "$(kernel)" = cudnn ]
expect_fail 1 "^plateau: layout: fp8 attention with attention sinks or a sliding window needs cuDNN 9.21 or newer; use --cudnn latest or --fp8-attention off$" -- "${ossfp8[@]}" --cudnn 9.13.1

# the presets that run Transformer Engine pick te; a flag overrides it
expect_ok "${run[@]}" --gpu h100 --framework megatron-core --format json
check "megatron-core on h100: cudnn" [ "$(kernel)" = cudnn ]
expect_ok "${run[@]}" --gpu a100-80g --framework megatron-core --format json
check "megatron-core on a100: flash" [ "$(kernel)" = flash ]
expect_ok "${run[@]}" --gpu gb200 --framework nemo --format json
check "nemo on gb200: cudnn" [ "$(kernel)" = cudnn ]
expect_ok "${run[@]}" --gpu h100 --framework nemo --attention flash --format json
check "nemo --attention flash overrides te" [ "$(kernel)" = flash ]
# a framework file may say te or cudnn
cat >"$TMP/fw.json" <<'J'
{"name": "mine", "description": "test", "behaviours": {"attention": {"value": "te", "source": "test"}}}
J
expect_ok "${run[@]}" --gpu h200 --framework "$TMP/fw.json" --format json
check "file: te on h200 runs cudnn" [ "$(kernel)" = cudnn ]

# bad values: one line, non-zero
expect_fail 1 "^plateau: --attention: unknown attention 'fa3' \(expected flash\|cudnn\|te\|triton\|eager\)$" -- predict --attention fa3
expect_fail 1 "^plateau: --attention: unknown attention 'CUDNN'" -- predict --attention CUDNN
expect_fail 2 "option needs a value" -- predict --attention
expect_fail 1 "^plateau: layout: attention cudnn needs the GPU's cuDNN attention figures, which gpu 'a100-80g' lacks" -- predict --gpu a100-80g --attention cudnn
expect_fail 1 "^plateau: layout: attention cudnn needs the GPU's cuDNN attention figures, which gpu 'v100' lacks" -- predict --gpu v100 --attention cudnn
cat >"$TMP/bad.json" <<'J'
{"name": "bad", "description": "test", "behaviours": {"attention": "fa3"}}
J
expect_fail 1 "behaviour 'attention' must be \"flash\", \"cudnn\", \"te\", \"triton\" or \"eager\"" -- predict --framework "$TMP/bad.json"
finish
