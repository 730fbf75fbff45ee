#!/usr/bin/env bash
# The model presets of session 18 (data/models; counts derived by hand in
# tests/unit/test_presets18.c) predict by name, dotted names included; a Hugging Face config
# that declares a feature plateau does not model (Gemma 2's logit soft-capping) is refused with
# one line naming the field; the unknown-model message lists whole names and says where the
# rest is.
. "$(dirname "$0")/lib.sh"
jget() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[k]
print(d)' "$1" "$2"; }

# name, GPUs and layout, total parameters
while read -r name params args; do
  # shellcheck disable=SC2086
  expect_ok predict --model "$name" --gpu h100 $args --format json
  check "$name params" [ "$(jget "$TMP/out" model.params)" = "$params" ]
  check "$name: a step time" python3 -c 'import json,sys,math
d = json.load(open(sys.argv[1])); s = d["step_time_s"]
sys.exit(0 if isinstance(s, float) and math.isfinite(s) and s > 0 else 1)' "$TMP/out"
done <<'ROWS'
qwen3-8b 8190735360 --gpus 8
qwen3-14b 14768307200 --gpus 8 --tp 2
qwen3-32b 32762123264 --gpus 16 --tp 4
qwen2.5-7b 7615616512 --gpus 8
qwen2.5-72b 72706203648 --gpus 64 --tp 8 --pp 2
llama3.2-1b 1235814400 --gpus 8
llama3.2-3b 3212749824 --gpus 8
mistral-nemo-12b 12247782400 --gpus 8 --tp 2
deepseek-v2-lite 15706484224 --gpus 8 --ep 8
deepseek-v2 235741434880 --gpus 256 --ep 16 --pp 4 --recompute full
gpt-oss-20b 20914757184 --gpus 8 --ep 8
grok1-314b 316454737920 --gpus 512 --tp 4 --pp 8 --cp 2 --ep 8 --vp 8 --gbs 1024
nemotron-h-8b 8100852736 --gpus 8 --tp 2
nemotron-h-56b 56324350464 --gpus 64 --tp 8
nemotron4-15b 15628775424 --gpus 16 --tp 4
nemotron4-340b 341029195776 --gpus 256 --tp 8 --pp 8 --vp 12 --gbs 64
ROWS

# a released name whose config gives a preset's model loads that preset
expect_ok predict --model llama3.1-8b --gpus 8 --format json
check "llama3.1-8b is the llama3-8b preset" [ "$(jget "$TMP/out" model.name)" = llama3-8b ]

expect_ok list models
check "list models: a dotted preset name" grep -q '^  llama3\.2-1b ' "$TMP/out"
check "list models: qwen2.5-72b" grep -q '^  qwen2\.5-72b ' "$TMP/out"

expect_fail 1 "^plateau: .*gemma-2-9b\.json': field 'attn_logit_softcapping': attention logit soft-capping \(Gemma 2\) is not modelled$" -- \
  predict --model "$PL_TEST_DATA/hf/gemma-2-9b.json" --gpus 8
check "the refusal is one line" [ "$(wc -l <"$TMP/err")" = 1 ]
expect_fail 1 "^plateau: unknown model 'qwen3-9b' \(presets: deepseek-v2-lite, .*, \.\.\. \(plateau list models\); or give the path" -- \
  predict --model qwen3-9b --gpus 8
finish
