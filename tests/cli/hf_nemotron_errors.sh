#!/usr/bin/env bash
# Hostile values in an HF nemotron_h config's session-26 keys (moe_latent_size,
# num_nextn_predict_layers, mtp_hybrid_override_pattern; src/model/hf_mamba.c)
# and in a plateau model file's moe_latent / mtp_pattern: one line, exit 1.
# Each case edits one key of the assembled Nemotron 3 Super config.
. "$(dirname "$0")/lib.sh"

SUPER="$PL_TEST_DATA/hf/Nemotron-3-Super-120B-A12B.json"
# mutate NAME KEY JSON-VALUE: $TMP/NAME.json is the Super config with KEY set
mutate() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d[sys.argv[3]]=json.loads(sys.argv[4]); json.dump(d,open(sys.argv[2],"w"))' \
    "$SUPER" "$TMP/$1.json" "$2" "$3"
}
bad() { # NAME KEY VALUE PATTERN
  mutate "$1" "$2" "$3"
  expect_fail 1 "$4" -- predict --model "$TMP/$1.json" --gpus 64
  check "one line: $1" [ "$(wc -l <"$TMP/err")" -le 1 ]
}

expect_ok predict --model "$SUPER" --gpus 64
bad latent_neg moe_latent_size -1 "field 'moe_latent_size' must be a positive integer, not -1"
bad latent_zero moe_latent_size 0 "field 'moe_latent_size' must be a positive integer, not 0"
bad latent_str moe_latent_size '"1024"' "field 'moe_latent_size' must be an integer"
bad latent_float moe_latent_size 1024.5 "field 'moe_latent_size' must be an integer"
bad latent_bool moe_latent_size true "field 'moe_latent_size' must be an integer"
bad latent_huge moe_latent_size 1000000000000000000000000000000 "too large for an integer"
# hard26: -1 read as no MTP module before; the plateau reader refuses mtp_layers < 0
bad mtp_neg num_nextn_predict_layers -1 "num_nextn_predict_layers must not be negative, not -1"
bad mtp_str num_nextn_predict_layers '"1"' "field 'num_nextn_predict_layers' must be an integer"
bad mtp_float num_nextn_predict_layers 1.5 "field 'num_nextn_predict_layers' must be an integer"
bad mtp_huge num_nextn_predict_layers 1000000 "num_nextn_predict_layers 1000000 is above"
bad pat_empty mtp_hybrid_override_pattern '""' "needs mtp_hybrid_override_pattern"
bad pat_null mtp_hybrid_override_pattern null "needs mtp_hybrid_override_pattern"
bad pat_num mtp_hybrid_override_pattern 5 "field 'mtp_hybrid_override_pattern' must be a string"
bad pat_letter mtp_hybrid_override_pattern '"*X"' "mtp_pattern has a letter other than M, \*, - and E"
bad pat_long mtp_hybrid_override_pattern "\"$(printf '*E%.0s' $(seq 300))\"" "longer than"

# a plateau model file (Llama 2 7B's with one key added): moe_latent without
# experts, of the wrong type, mtp_pattern of the wrong type
L7="$PL_SOURCE_DIR/data/models/llama2-7b.json"
plat() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d[sys.argv[3]]=json.loads(sys.argv[4]); json.dump(d,open(sys.argv[2],"w"))' "$L7" "$TMP/$1.json" "$2" "$3"; }
plat dense moe_latent 256
expect_fail 1 "moe_latent needs routed experts" -- predict --model "$TMP/dense.json" --gpus 8
plat neg moe_latent -1
expect_fail 1 "moe_latent" -- predict --model "$TMP/neg.json" --gpus 8
plat str moe_latent '"x"'
expect_fail 1 "moe_latent" -- predict --model "$TMP/str.json" --gpus 8
plat pat mtp_pattern 7
expect_fail 1 "mtp_pattern" -- predict --model "$TMP/pat.json" --gpus 8

finish
