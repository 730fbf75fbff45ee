#!/usr/bin/env bash
# Absurd numbers, conflicting inputs and unclear messages (docs/robustness.md,
# "Numbers and conflicts"): each gets one line naming the problem and a
# non-zero exit, never a printed absurd result, inf or nan.
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces"
M="$PL_SOURCE_DIR/data/models/llama2-7b.json"
V="$PL_SOURCE_DIR/data/validation"
TR="$T/hta_nccl_data.json.gz"

# ---- trace analyze: MFU from inputs that cannot be right ----
expect_fail 1 "MFU would be 7.28e\+287 %, above 100 %: 1e\+300 FLOPs per step \(--flops-per-step\)" -- \
  trace analyze "$TR" --flops-per-step 1e300
expect_fail 1 "MFU would be .* above 100 %: .*\(--model x --tokens-per-step\)" -- \
  trace analyze "$TR" --model llama2-7b --tokens-per-step 1e18
expect_fail 1 "--tokens-per-step and --flops-per-step must be positive" -- \
  trace analyze "$TR" --flops-per-step 0
expect_fail 1 "--gpu: a peak of '0 TFLOP/s' leaves MFU undefined; give a positive rate" -- \
  trace analyze "$TR" --flops-per-step 1e12 --gpu '0 TFLOP/s'
echo '{"traceEvents": []}' >"$TMP/empty.json"
expect_fail 1 "trace '.*empty.json': traceEvents is empty, nothing to analyze" -- \
  trace analyze "$TMP/empty.json"

# ---- collectives: sizes and groups that have no answer ----
expect_fail 1 "--bytes: 1.5 is not a whole number of bytes from 1 to 2\^53" -- collectives --bytes 1.5
expect_fail 1 "all_reduce on 1 rank: a collective needs a group of at least 2 GPUs" -- \
  collectives --gpus 1 --bytes 1M

# ---- JSON: duplicate keys, a byte order mark, integers too large ----
sed 's/"layers": 32/"layers": 32, "layers": 80/' "$M" >"$TMP/dup.json"
expect_fail 1 "model '.*dup.json': key 'layers' appears twice in one object" -- predict --model "$TMP/dup.json"
{ printf '\357\273\277'; cat "$M"; } >"$TMP/bom.json"
expect_ok predict --model "$TMP/bom.json"
for v in 9223372036854775808 1e18; do
  sed "s/\"layers\": 32/\"layers\": $v/" "$M" >"$TMP/big.json"
  expect_fail 1 "field 'layers' is $v, too large for an integer" -- predict --model "$TMP/big.json"
done
sed 's/"layers": 32/"layers": 1e309/' "$M" >"$TMP/inf.json"
expect_fail 1 "field 'layers' is 1e309, too large for a number" -- predict --model "$TMP/inf.json"

# ---- hexadecimal numbers (C99 strtod reads them): 0x100 was 256 bytes ----
expect_fail 1 "--bytes: '0x100' is not a size" -- collectives --bytes 0x100
expect_fail 1 "--gpu-hour-price: '0x10' is not a finite number" -- predict --gpu-hour-price 0x10
expect_fail 1 "--hbm-bandwidth: '0x10 TB/s' is not a bandwidth" -- predict --hbm-bandwidth '0x10 TB/s'

# ---- model files: a misspelt key is refused, a note is not (src/model/model_load.c) ----
# before: "kv_head": 8 was ignored and Llama 3 70B ran as full attention (kv_heads = heads)
sed 's/"kv_heads": 8,/"kv_head": 8,/' "$PL_SOURCE_DIR/data/models/llama3-70b.json" >"$TMP/kv.json"
check "the test misspelt kv_heads" grep -q '"kv_head": 8' "$TMP/kv.json"
expect_fail 1 "model '.*kv.json': unknown key 'kv_head': did you mean 'kv_heads'\?" -- predict --model "$TMP/kv.json"
sed 's/"ffn_hidden": 11008/"ffn_hiden": 11008, "ffn_hidden": 11008/' "$M" >"$TMP/ffn.json"
expect_fail 1 "unknown key 'ffn_hiden': did you mean 'ffn_hidden'\?" -- predict --model "$TMP/ffn.json"
sed 's/"layers": 32,/"layers": 32, "notes": "x", "layers_source": "y", "moe": 0,/' "$M" >"$TMP/notes.json"
expect_ok predict --model "$TMP/notes.json" --format json
check "keys far from any plateau reads stay notes" grep -q '"params": 6738415616' "$TMP/out"
# a framework file's "behaviors" (American spelling): every behaviour was dropped and the
# file ran as plateau's defaults
printf '{"name": "x", "behaviors": {"sequence_parallel": {"value": true}}}' >"$TMP/fw.json"
expect_fail 1 "framework file '.*fw.json': unknown key 'behaviors': did you mean 'behaviours'\?" -- \
  predict --framework "$TMP/fw.json"
# GPU and cluster files: "peak_fp8s" dropped the FP8 rate, "nccl_channel" the channel count
sed 's/"peak_fp8"/"peak_fp8s"/' "$PL_SOURCE_DIR/data/gpus/h100.json" >"$TMP/g.json"
check "the test misspelt peak_fp8" grep -q '"peak_fp8s"' "$TMP/g.json"
expect_fail 1 "unknown key 'peak_fp8s': did you mean 'peak_fp8'\?" -- predict --gpu "$TMP/g.json"
sed 's/"nccl_channels"/"nccl_channel"/' "$PL_SOURCE_DIR/data/clusters/dgx-h100.json" >"$TMP/c.json"
check "the test misspelt nccl_channels" grep -q '"nccl_channel"' "$TMP/c.json"
expect_fail 1 "unknown key 'nccl_channel': did you mean 'nccl_channels'\?" -- predict --cluster "$TMP/c.json"

# ---- CSV: duplicate header, NUL byte; published figures above the peak ----
sed -e '1s/$/,model/' -e '2,$s/$/,x/' "$V/opt175b_paper.csv" >"$TMP/h.csv"
expect_fail 1 "csv '.*h.csv': column 'model' appears twice in the header \(columns 4 and [0-9]+\)" -- \
  validate "$TMP/h.csv"
{ cat "$V/opt175b_paper.csv"; printf 'a\0b\n'; } >"$TMP/nul.csv"
expect_fail 1 "csv '.*nul.csv': line [0-9]+: contains a NUL byte, not CSV text" -- validate "$TMP/nul.csv"
# row 1 (GPT 1.7B): "... TFLOP/s),,137,44%,..." -> 99,999,999 TFLOP/s per GPU
sed '2s/TFLOP\/s),,137,44%/TFLOP\/s),,99999999,44%/' "$V/megatron_sc21_narayanan.csv" >"$TMP/peak.csv"
check "the test edited the published rate" grep -q ',,99999999,44%' "$TMP/peak.csv"
expect_ok validate "$TMP/peak.csv"
check "a published rate above the peak is skipped with its reason" \
  grep -q "skipped (GPT 1.7B): the published figure implies .* MFU, above the GPU's peak" "$TMP/out"

# ---- baseline: negative figures ----
sed '0,/"mape": [0-9.]*/s//"mape": -50/' "$PL_TEST_DATA/accuracy-baseline.json" >"$TMP/neg.json"
expect_fail 1 "baseline '.*neg.json': dataset '.*': predicted [0-9]+ and mape -50 must not be negative" -- \
  validate "$V/opt175b_paper.csv" --baseline "$TMP/neg.json"

# ---- conflicting flags ----
expect_fail 1 "--tp 2 conflicts with --fix tp=4: give one" -- \
  search --model llama2-7b --gpus 8 --tp 2 --fix tp=4
expect_ok search --model llama2-7b --gpus 8 --tp 2 --fix tp=2,pp=2 --top 1

# ---- session 18 e2e sweep (every command x every option with a value x 0, -1, nan, inf,
# 1e308, '', abc, huge integers): what was accepted or printed inf ----
expect_fail 1 "--tokens: 1e19 is above the limit of 1e\+18 tokens" -- predict --tokens 1e19
expect_fail 1 "--gpu-hour-price: 1e308 is above the limit of 1e\+06 USD" -- predict --gpu-hour-price 1e308
expect_fail 1 "--energy-price: 1e308 is above the limit of 1e\+06 USD" -- \
  sweep --model llama2-7b --gpus 8,16 --energy-price 1e308
expect_fail 1 "--gpu-hour-price: 1e308 is above the limit of 1e\+06 USD" -- \
  search --model llama2-7b --gpus 8 --top 1 --gpu-hour-price 1e308
expect_ok predict --tokens 1e18 --gpu-hour-price 1e6 --energy-price 1e6
# a GPU at 1e-288 B/s: a 1e299 s step; its cost to train would be inf
expect_fail 1 "time and cost to train: 1e\+18 tokens at a step of 1.1[0-9]*e\+299 s give a figure beyond a double" -- \
  predict --gpus 16 --hbm-bandwidth '1e-300 TB/s' --tokens 1e18 --gpu-hour-price 1e6
expect_ok predict --gpus 16 --hbm-bandwidth '1e-300 TB/s'
check "a 1e299 s step is printed with its unit, not as 31 digits" \
  grep -qE 'step time +1\.1[0-9]*e\+299 s ' "$TMP/out"
expect_ok search --model llama2-7b --gpus 8 --top 1 --hbm-bandwidth '1e-300 TB/s' --gpu-hour-price 1
check "search: a cost of 1e300 USD/Mtok in %g, not 300 digits" \
  bash -c "! grep -qE '[0-9]{40}' '$TMP/out'"
expect_fail 1 "--tokens-per-step: 1e\+308 tokens in a step of .* s is not a finite rate" -- \
  trace analyze "$TR" --tokens-per-step 1e308
expect_fail 1 "--seq sets the attention FLOPs of --model with --tokens-per-step; it has no use without them" -- \
  trace analyze "$TR" --seq abc
expect_fail 1 "--fix constrains searched layouts: give --layout best or --strategies" -- \
  sweep --model llama2-7b --gpus 8,16 --fix abc
# fuzz_words: search constraints beyond the layout limits were carried along
expect_fail 1 "--strategies: unknown strategy 'cp8888888888888888888': 8888888888888888888 is more than the limit 16777216" -- \
  sweep --gpus 8 --strategies cp8888888888888888888
expect_fail 1 "--fix: 'tp=8888888888888888888': 8888888888888888888 is more than the limit 16777216" -- \
  search --gpus 8 --fix tp=8888888888888888888
# fuzz_words: a value with a line break quoted in the library's error made two lines
expect_fail 1 "^plateau: --recompute: unknown recompute mode 'selec i' \(expected" -- \
  predict --recompute "$(printf 'selec\ni')"
check "the error is one line" [ "$(wc -l <"$TMP/err")" -eq 1 ]

# ---- every command x every option that takes a value: 'nan', 'abc' and '' are refused
# with one line and exit 1 or 2 (options that name an output are left out: they write) ----
printf '{"models": ["llama2-7b"], "clusters": ["dgx-h100"], "nodes": [1], "strategies": ["fsdp"], "batch_per_gpu": [1], "global_batch": [8]}' >"$TMP/sweep_spec.json"
every_option() { # CMD... -- BASE ARGS
  local cmd=() base=() opt v n
  while [ "$1" != "--" ]; do cmd+=("$1"); shift; done; shift
  base=("$@")
  for opt in $("$PLATEAU" "${cmd[@]}" --help | sed -nE 's/^  (--[a-z0-9-]+) [^ ].*/\1/p'); do
    case "$opt" in --out|--spec|--plot|--write-baseline|--trace|--baseline|--measured|--gnuplot) continue ;; esac
    for v in nan abc ''; do
      count=$((count + 1))
      "$PLATEAU" "${cmd[@]}" "${base[@]}" "$opt" "$v" >"$TMP/out" 2>"$TMP/err"
      rc=$?
      n=$(grep -c . "$TMP/err")
      if { [ "$rc" -ne 1 ] && [ "$rc" -ne 2 ]; } || [ "$n" -ne 1 ] || ! grep -q '^plateau' "$TMP/err"; then
        echo "FAIL: plateau ${cmd[*]} $opt '$v' -> exit $rc, $n stderr lines" >&2
        sed 's/^/    /' "$TMP/err" >&2; fails=$((fails + 1))
      fi
    done
  done
}
every_option predict --
every_option search -- --model llama2-7b --gpus 8 --top 1
every_option sweep -- --model llama2-7b --gpus 8,16
every_option collectives --
every_option study -- --spec "$TMP/sweep_spec.json" --out "$TMP/sweep_st" --quiet --threads 1
every_option calibrate nccl -- "$PL_TEST_DATA/nccl/h100_1node_8gpu_all_reduce_ring_together.txt" \
  --cluster dgx-h100 --out "$TMP/sweep_c.json"
every_option calibrate trace -- "$TR" --cluster dgx-h100 --out "$TMP/sweep_c.json"
every_option calibrate compute -- "$T/gt_h100_llama3.2-1b_seq4096.json.gz" --gpu h100 --out "$TMP/sweep_g.json"
every_option trace analyze -- "$TR"
every_option trace compare -- "$TR" "$T/hta_triton_example.json"
every_option validate -- "$V/opt175b_paper.csv"
every_option list models --
check "no output file written by a refused option" \
  bash -c "! ls '$TMP' | grep -qE '^sweep_(st|c.json|g.json)$'"

# ---- study: relative --gnuplot, --out through a symlink, checked before the run ----
cat >"$TMP/s.json" <<'JSON'
{"models": ["llama2-7b"], "clusters": ["dgx-h100"], "nodes": [1],
 "strategies": ["fsdp"], "batch_per_gpu": [1], "global_batch": [8]}
JSON
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexit 3\n' >"$TMP/bin/gp" && chmod +x "$TMP/bin/gp"
count=$((count + 1))
(cd "$TMP" && "$PLATEAU" study --spec s.json --out r0 --gnuplot bin/gp --quiet >out 2>err)
if ! grep -q "gnuplot failed" "$TMP/err"; then
  echo "FAIL: a relative --gnuplot runs from the current directory, not the report's" >&2
  sed 's/^/    /' "$TMP/err" >&2; fails=$((fails + 1))
fi
expect_ok study --spec "$TMP/s.json" --out "$TMP/r1" --gnuplot nope/gnuplot --quiet
check "a missing relative --gnuplot is named with its full path" \
  grep -q "cannot run '$PWD/nope/gnuplot'" "$TMP/err"
mkdir "$TMP/notreport" && touch "$TMP/notreport/x"
expect_fail 1 "--out '.*notreport' exists and is not a plateau study report" -- \
  study --spec "$TMP/s.json" --out "$TMP/notreport" --quiet
check "no study ran before the --out check" sh -c "! grep -q 'points in' '$TMP/out'"
expect_ok study --spec "$TMP/s.json" --out "$TMP/old" --quiet
ln -s old "$TMP/link"
expect_ok study --spec "$TMP/s.json" --out "$TMP/link" --quiet
check "--out through a symlink keeps the link" test -L "$TMP/link"
check "--out through a symlink replaces its target report" test -f "$TMP/old/results.csv"

finish
