#!/usr/bin/env bash
# validate's "command" (JSON key, last CSV column; src/validate/command.c): the plateau
# predict command line that reproduces a row's prediction. For rows of several sources
# (Megatron-LM 2021, vTrain, NeMo, Megatron-Bridge with its per-release cuDNN and ub margins,
# llm-foundry, DeepSpeed ZeRO-3, Megatron-Core model zoo on H100), the printed command is run
# and its step_time_s must equal the row's predicted step to 9 significant digits.
# --account-embed-loss (the flag the commands of Megatron-Core rows need) and its bad values.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"

# rows: FILE ROW
while read -r file row; do
  expect_ok validate "$V/$file.csv" --format json
  python3 - "$TMP/out" "$row" >"$TMP/cmd" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [x for x in d["rows"] if x["row"] == int(sys.argv[2])][0]
print("%.9g" % r["predicted"])
print(r["command"])
PY
  want=$(sed -n 1p "$TMP/cmd")
  cmd=$(sed -n 2p "$TMP/cmd")
  check "$file row $row: a predict command" [ "${cmd#plateau predict }" != "$cmd" ]
  got=$(eval "\"\$PLATEAU\" ${cmd#plateau } --format json" | python3 -c \
    'import json, sys; print("%.9g" % json.load(sys.stdin)["step_time_s"])')
  check "$file row $row: command gives $want s (got $got)" [ "$got" = "$want" ]
done <<'ROWS'
megatron_sc21_narayanan 3
megatron_sc21_narayanan 14
vtrain_ground_truth_multi 3
nemo_2407_performance_summary 2
megatron_bridge_performance_summary 25
megatron_bridge_performance_summary 95
llmfoundry_mpt_benchmarks 2
bloom176b_bigscience 1
ROWS

# the CSV carries it as its last column
expect_ok validate "$V/megatron_sc21_narayanan.csv" --format csv
check "csv: command is the last column" grep -q ',published_error_pct,command$' "$TMP/out"
check "csv: a row's command" grep -q '"\?plateau predict --model' "$TMP/out"

# --account-embed-loss: Megatron-Core's pipeline split; on moves a block off the first and last stage
B="predict --model llama3-8b --gpus 8 --pp 4 --gbs 32 --seq 4096"
expect_ok $B --format json
plain=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$TMP/out")
expect_ok $B --account-embed-loss on --format json
acc=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$TMP/out")
check "--account-embed-loss on changes the step ($plain vs $acc)" [ "$plain" != "$acc" ]
expect_ok $B --account-embed-loss off --format json
off=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["step_time_s"])' "$TMP/out")
check "--account-embed-loss off is the default" [ "$plain" = "$off" ]
expect_fail 1 "^plateau: --account-embed-loss: unknown value 'yes' \(expected off\|on\)" -- $B --account-embed-loss yes
expect_fail 1 "^plateau: --account-embed-loss: unknown value '' \(expected off\|on\)" -- $B --account-embed-loss ''
# an inline model that is not JSON
expect_fail 1 "^plateau: .*inline model JSON" -- predict --model '{"layers": 2'
finish
