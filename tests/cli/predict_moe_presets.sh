#!/usr/bin/env bash
# The MoE presets of session 17 (data/models: kimi-k2, mixtral-8x22b, llama4-scout,
# llama4-maverick; counts derived by hand in tests/unit/test_model.c) predict and search,
# and the validation rows they unlock are predicted with them (Megatron-Bridge Kimi K2 with
# its recipe's pipeline layout; NeMo Mixtral 8x22B and Llama 4 Scout); the DeepSeek-V3
# pp 2 vp 4 rows (25.11 GB300), whose layout no Bridge release tag states, with the one
# their release branch's test line gives.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
jget() { python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[k]
print(d)' "$1" "$2"; }

# Kimi K2 on 256 GB300 as the Bridge recipe lays it out (pp 4 vp 4: 61 blocks, the first
# virtual stage with the embedding, the last one block and the loss)
expect_ok predict --model kimi-k2 --gpu gb300 --gpus 256 --pp 4 --pipeline-layout 'Et*4|(t*4|)*14tL' \
  --ep 64 --mbs 2 --gbs 4096 --format json
check "kimi-k2 params" [ "$(jget "$TMP/out" model.params)" = 1026408232448 ]
check "kimi-k2 active params" [ "$(jget "$TMP/out" model.active_params)" = 32861500928 ]
check "kimi-k2: 60 MoE blocks of 61" [ "$(jget "$TMP/out" model.moe_layers)" = 60 ]
check "kimi-k2: vp 4 from the layout" [ "$(jget "$TMP/out" layout.vp)" = 4 ]
# without the layout, 61 blocks do not interleave over pp 4 x vp 4: one line, exit 1
expect_fail 1 "^plateau: layout: interleaving needs layers \(61\) divisible by pp\*vp = 16" -- \
  predict --model kimi-k2 --gpu gb300 --gpus 256 --pp 4 --vp 4 --ep 64 --mbs 2 --gbs 4096
# the Hugging Face config (model_type kimi_k2, num_nextn_predict_layers 0) is the same model
expect_ok predict --model "$PL_SOURCE_DIR/tests/data/hf/Kimi-K2-Instruct.json" --gpu gb300 \
  --gpus 256 --pp 4 --pipeline-layout 'Et*4|(t*4|)*14tL' --ep 64 --mbs 2 --gbs 4096 --format json
check "Kimi-K2-Instruct config.json params" [ "$(jget "$TMP/out" model.params)" = 1026408232448 ]

expect_ok search --model llama4-scout --gpus 64
check "search llama4-scout ranks layouts" grep -Eq "^ +1 +[0-9]+ +[0-9]+ " "$TMP/out"
expect_ok predict --model llama4-maverick --gpus 128 --ep 16 --pp 4 --gbs 512 --format json
check "llama4-maverick params" [ "$(jget "$TMP/out" model.params)" = 400711848960 ]
check "llama4-maverick: 24 MoE blocks of 48" [ "$(jget "$TMP/out" model.moe_layers)" = 24 ]
expect_ok predict --model mixtral-8x22b --gpus 64 --tp 2 --ep 8 --gbs 256 --format json
check "mixtral-8x22b params" [ "$(jget "$TMP/out" model.params)" = 140620634112 ]

# the validation rows the presets unlock
expect_ok validate "$V/megatron_bridge_performance_summary.csv" "$V/nemo_2409_2507_performance_summary.csv" \
  --format json
python3 - "$TMP/out" >"$TMP/rows" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    print("%s|%d|%s|%s" % (r["dataset"], r["row"], "skip" if r["predicted"] is None else "pred",
                           r["skipped_reason"] or r["assumed"] or ""))
PY
check "4 Kimi K2 rows predicted with the recipe's layout" [ "$(grep -c \
  '^megatron_bridge_performance_summary|[0-9]*|pred|.*pipeline layout Et\*4|(t\*4|)\*14tL, no MTP (Megatron-Bridge Kimi K2 recipe).*preset kimi-k2' \
  "$TMP/rows")" = 4 ]
check "no row refused for want of a Kimi K2 preset" [ "$(grep -c 'no Kimi K2 preset' "$TMP/rows")" = 0 ]
check "2 Mixtral 8x22B rows predicted" [ "$(grep -c '^nemo_2409_2507_performance_summary|[0-9]*|pred|.*preset mixtral-8x22b' "$TMP/rows")" = 2 ]
check "the Llama 4 Scout row predicted" [ "$(grep -c '^nemo_2409_2507_performance_summary|[0-9]*|pred|.*preset llama4-scout' "$TMP/rows")" = 1 ]
# NeMo 2's Mixtral recipes (r2.2.0/r2.3.0): MegatronCommOverlapCallback without
# tp_comm_overlap, experts padded to capacity (no dispatcher sync): the 4 Mixtral rows
# (8x7B 7, 16; 8x22B 8, 17) carry both, no other row of the two tables does
check "4 NeMo Mixtral rows: tp_comm_overlap off" [ "$(grep -c '^nemo_2409_2507_performance_summary|\(7\|8\|16\|17\)|pred|.*tp_comm_overlap off (NeMo 2.s Mixtral recipes.*no host sync in the dispatcher' "$TMP/rows")" = 4 ]
check "no other row takes the Mixtral rule" [ "$(grep -c "NeMo 2's Mixtral recipes" "$TMP/rows")" = 4 ]
expect_ok validate "$V/nemo_2409_2507_performance_summary.csv" --format csv
check "row 8's command: userbuffers and the host sync off" python3 -c 'import csv,sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r["row"] == "8"][0]
sys.exit(0 if "--tp-comm-overlap off" in r["command"] and "--moe-host-sync off" in r["command"] else 1)' "$TMP/out"
# the 25.11 DGX-GB300 DeepSeek-V3 pp 2 vp 4 rows: the layout of the release branch's test
# line (gaod/r0.2.0_test d19cb73c8), 16 chunks, so vp 8 (source_bridge.c bridge_deepseek)
check "DeepSeek-V3 25.11 GB300 pp 2 vp 4: 4 rows predicted with d19cb73c8's layout" [ "$(grep -c \
  '^megatron_bridge_performance_summary|23[89]\|24[01]|pred|.*pipeline layout Et\*3|(t\*4|)\*14ttL, no MTP (Megatron-Bridge gaod/r0.2.0_test d19cb73c8' \
  "$TMP/rows")" = 4 ]
check "no DeepSeek-V3 row skipped for its pipeline layout" [ "$(grep -c '|skip|no Megatron-Bridge DeepSeek-V3 pipeline layout' "$TMP/rows")" = 0 ]
finish
