#!/usr/bin/env bash
# Megatron-Core pipeline layout strings (--pipeline-layout) and multi-token
# prediction (--mtp-layers), src/model/pipe_layout.c: a string that spells the
# even split predicts exactly what the split does, the string sets vp, the MTP
# module makes the step slower, both appear in JSON and CSV, and bad strings
# fail on one line with a non-zero exit.
. "$(dirname "$0")/lib.sh"

jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$1" "$2"; }
col() { awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next } { print $c }' "$1"; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

base=(predict --model llama2-7b --gpus 8 --pp 4 --gbs 32 --format json)

# 32 blocks on 4 ranks, 8 each, spelled as a layout: the same prediction
expect_ok "${base[@]}"
cp "$TMP/out" "$TMP/even.json"
expect_ok "${base[@]}" --pipeline-layout 'Et*8|t*8|t*8|t*8L'
cp "$TMP/out" "$TMP/str.json"
check "even split as a string: same step" [ "$(jget "$TMP/str.json" "['step_time_s']")" = "$(jget "$TMP/even.json" "['step_time_s']")" ]
check "string recorded" [ "$(jget "$TMP/str.json" "['layout']['pipeline_layout']")" = 'Et*8|t*8|t*8|t*8L' ]
check "no string: null" [ "$(jget "$TMP/even.json" "['layout']['pipeline_layout']")" = None ]
check "no MTP by default" [ "$(jget "$TMP/even.json" "['layout']['mtp_layers']")" = 0 ]

# 8 stages on 4 ranks: vp 2, the same as --vp 2
expect_ok "${base[@]}" --vp 2
cp "$TMP/out" "$TMP/vp2.json"
expect_ok "${base[@]}" --pipeline-layout 'E(t*4|)*7t*4L'
cp "$TMP/out" "$TMP/str2.json"
check "string sets vp 2" [ "$(jget "$TMP/str2.json" "['layout']['vp']")" = 2 ]
check "interleaved as a string: same step" [ "$(jget "$TMP/str2.json" "['step_time_s']")" = "$(jget "$TMP/vp2.json" "['step_time_s']")" ]

# a heavier first rank (11 blocks) is slower than the even split
expect_ok "${base[@]}" --pipeline-layout 'Et*11|t*7|t*7|t*7L'
check "uneven string: slower" gt "$(jget "$TMP/out" "['step_time_s']")" "$(jget "$TMP/even.json" "['step_time_s']")"

# one MTP module on the last rank: one more block and one more head pass there
expect_ok "${base[@]}" --mtp-layers 1
cp "$TMP/out" "$TMP/mtp.json"
check "MTP: slower" gt "$(jget "$TMP/mtp.json" "['step_time_s']")" "$(jget "$TMP/even.json" "['step_time_s']")"
check "MTP: recorded" [ "$(jget "$TMP/mtp.json" "['layout']['mtp_layers']")" = 1 ]
check "MTP: last stage 9 blocks" [ "$(jget "$TMP/mtp.json" "['layout']['last_stage_layers']")" = 9 ]
check "MTP: more model FLOPs" gt "$(jget "$TMP/mtp.json" "['flops']['model_per_step']")" "$(jget "$TMP/even.json" "['flops']['model_per_step']")"
expect_ok "${base[@]}" --mtp-layers 1 --pipeline-layout 'Et*8|t*8|t*8|t*8mL'
check "MTP string = MTP on the last stage" [ "$(jget "$TMP/out" "['step_time_s']")" = "$(jget "$TMP/mtp.json" "['step_time_s']")" ]

# CSV columns
expect_ok predict --model llama2-7b --gpus 8 --pp 4 --gbs 32 --pipeline-layout 'Et*8|t*8|t*8|t*8L' --format csv
check "csv: layout column" [ "$(col "$TMP/out" layout.pipeline_layout)" = 'Et*8|t*8|t*8|t*8L' ]
check "csv: mtp column" [ "$(col "$TMP/out" layout.mtp_layers)" = 0 ]

# DeepSeek-V3 with Megatron-Bridge's string on pp 2: vp 8
expect_ok predict --model deepseek-v3 --gpu b300 --gpus 256 --pp 2 --ep 32 --gbs 4096 --dtype mxfp8 \
  --moe-imbalance 1 --mtp-layers 1 --pipeline-layout 'Et*4|(t*4|)*14tmL' --format json
check "deepseek: vp 8" [ "$(jget "$TMP/out" "['layout']['vp']")" = 8 ]

# bad values: one line, exit 1
b=(predict --model llama2-7b --gpus 8 --pp 4 --gbs 32)
expect_fail 1 "^plateau: pipeline layout 'Et\*8\|t\*8\|t\*8\|t\*8X': invalid layer character 'X'" -- "${b[@]}" --pipeline-layout 'Et*8|t*8|t*8|t*8X'
expect_fail 1 "31 transformer blocks \(t\), the model has 32" -- "${b[@]}" --pipeline-layout 'Et*8|t*8|t*8|t*7L'
expect_fail 1 "3 virtual stages are not divisible by pp = 4" -- "${b[@]}" --pipeline-layout 'Et*8|t*16|t*8L'
expect_fail 1 "needs one embedding \(E\) first and one loss \(L\) last" -- "${b[@]}" --pipeline-layout 't*8|t*8|t*8|t*8L'
expect_fail 1 "1 MTP modules \(m\) but --mtp-layers 0" -- "${b[@]}" --pipeline-layout 'Et*8|t*8|t*8|t*8mL'
expect_fail 1 "vp = 4 conflicts" -- "${b[@]}" --vp 4 --pipeline-layout 'E(t*4|)*7t*4L'
expect_fail 1 "expands past" -- "${b[@]}" --pipeline-layout 'Et*999999999|t*8|t*8|t*8L'
expect_fail 1 "cannot be combined" -- "${b[@]}" --first-stage-layers 11 --pipeline-layout 'Et*11|t*7|t*7|t*7L'
expect_fail 1 "^plateau: --pipeline-layout: '' must be 1 to 255 characters$" -- "${b[@]}" --pipeline-layout ''
expect_fail 1 "^plateau: --mtp-layers: " -- "${b[@]}" --mtp-layers x
expect_fail 1 "^plateau: --mtp-layers: " -- "${b[@]}" --mtp-layers -1
expect_fail 1 "mtp layers must be from 0 to 16" -- "${b[@]}" --mtp-layers 17
expect_fail 1 "a layout search does not take it" -- search --gpus 8 --pipeline-layout 'Et*32L'
for f in "$TMP/err"; do check "one line" [ "$(wc -l <"$f")" -le 1 ]; done

finish
