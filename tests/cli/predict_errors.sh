#!/usr/bin/env bash
# Bad input to `plateau predict` gets one line naming the problem and a
# non-zero exit, never a crash (foundation issue, "Done when").
. "$(dirname "$0")/lib.sh"

# unknown presets and files
expect_fail 1 "llama9-1t" -- predict --model llama9-1t
expect_fail 1 "gpu.*'tpu9'|'tpu9'" -- predict --gpu tpu9
expect_fail 1 "'dgx-nothing'" -- predict --cluster dgx-nothing
expect_fail 1 "cannot open '/nonexistent/config.json'" -- predict --model /nonexistent/config.json
# malformed JSON and a HF config missing a field
printf '{"hidden_size": 4096, "num_hidden_layers": ' >"$TMP/bad.json"
expect_fail 1 "malformed JSON" -- predict --model "$TMP/bad.json"
printf '{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000}' >"$TMP/nolayers.json"
expect_fail 1 "num_hidden_layers" -- predict --model "$TMP/nolayers.json"
: >"$TMP/empty.json"
expect_fail 1 "empty" -- predict --model "$TMP/empty.json"
printf '[1, 2]' >"$TMP/array.json"
expect_fail 1 "object" -- predict --model "$TMP/array.json"
# zero, negative and non-numeric sizes
expect_fail 1 "--gpus.*positive" -- predict --gpus 0
expect_fail 1 "--tp.*not a positive integer" -- predict --tp -2
expect_fail 1 "--mbs.*not a positive integer" -- predict --mbs abc
expect_fail 1 "--seq.*not a positive integer" -- predict --seq 4k
expect_fail 1 "--gbs.*too large" -- predict --gbs 99999999999999999999999
# impossible layouts
expect_fail 1 "tp must divide attention heads \(32\)" -- predict --tp 3 --gpus 24
expect_fail 1 "tp must divide KV heads \(8\)" -- predict --model llama2-70b --tp 16 --gpus 16
expect_fail 1 "more pipeline stages than layers" -- predict --pp 64 --gpus 64
expect_fail 1 "12 GPUs are not divisible by tp\*pp\*cp" -- predict --gpus 12 --tp 8
expect_fail 1 "global batch 12 is not divisible by dp\*mbs" -- predict --gpus 8 --gbs 12
expect_fail 1 "shard group 3 must divide" -- predict --gpus 16 --shard-group 3
expect_fail 1 "interleaved schedule needs pp >= 2" -- predict --schedule interleaved
expect_fail 1 "interleaved schedule needs vp >= 2" -- predict --pp 2 --vp 1 --schedule interleaved
# unknown names and usage errors (exit 2)
expect_fail 1 "unknown shard mode 'zero4'" -- predict --shard zero4
expect_fail 1 "unknown recompute mode" -- predict --recompute some
expect_fail 1 "unknown format" -- predict --format xml
expect_fail 2 "unknown option '--bogus'" -- predict --bogus 1
expect_fail 2 "option needs a value" -- predict --tp
expect_fail 2 "unknown command 'frobnicate'" -- frobnicate
expect_fail 1 "give --gpus or --nodes, not both" -- predict --gpus 8 --nodes 1
# an unknown preset name suggests the nearest presets (issue 20): prefix first, then edit distance
expect_fail 1 "unknown model 'llama3-7b' .*; did you mean 'llama2-7b', 'llama3-70b' or 'llama3-8b'\?$" -- predict --model llama3-7b
expect_fail 1 "unknown model 'LLAMA3-70B' .*; did you mean 'llama3-70b'\?$" -- predict --model LLAMA3-70B
expect_fail 1 "^plateau: --gpu: unknown gpu 'a100': not a preset .*; did you mean 'a100-40g' or 'a100-80g'\?$" -- predict --gpu a100
expect_fail 1 "unknown gpu 'h10': .*; did you mean 'h100'\?$" -- predict --gpus 8 --gpu h10 --cluster dgx-h100
expect_fail 1 "unknown cluster 'dgx-h10': .*; did you mean 'dgx-h100'\?$" -- predict --cluster dgx-h10
expect_fail 1 "unknown framework 'nemo2' .*; did you mean 'nemo'\?$" -- predict --framework nemo2
expect_fail 1 "unknown framework 'megatron' .*; did you mean 'megatron-core' or 'megatron-lm'\?$" -- predict --framework megatron
expect_fail 1 "unknown model 'zzzzzz' \(presets: [^;]*; or give the path of a plateau model file or a Hugging Face config.json\)$" -- predict --model zzzzzz
# a plateau model file's kind fields name every allowed value
python3 -c "import json,sys; m=json.load(open(sys.argv[1])); m['pos']='bogus'; json.dump(m,open(sys.argv[2],'w'))" \
  "$PL_SOURCE_DIR/data/models/llama2-7b.json" "$TMP/badpos.json"
expect_fail 1 "field 'pos' is 'bogus', expected 'rotary', 'learned', 'alibi' or 'none'$" -- predict --model "$TMP/badpos.json"
finish
