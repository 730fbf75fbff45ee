#!/usr/bin/env bash
# Issue 20: a result records every input that changes it. For predict,
# search and sweep, every option of the command's option table (read from
# its --help, so a new flag is checked the day it is added) must appear in
# the JSON output as a key of its own name ("--moe-dispatch" -> "moe_dispatch",
# or with a unit suffix: "--power-cap" -> "power_cap_w"), and, where the
# output is a table, as a CSV column (the last part of "layout.tp").
# Only the options below are exempt, each for the reason given.
. "$(dirname "$0")/lib.sh"

# Options that change no figure of the result: output form, extra files,
# threads (results are identical for any --threads: search_basic.sh),
# --exhaustive (no pruning: the same ranking, search_basic.sh), --top (how
# many results are shown).
exempt=" format trace ops threads quiet exhaustive top "
# Keys older than this test, contracts that are never renamed (issue 2):
# the option's name -> the key that records it.
alias_of() {
  case "$1" in
    gpu-hour-price) echo gpu_hour_usd ;;
    energy-price) echo kwh_usd ;;
    cudnn) echo cudnn_version ;; # the release, named as the key the framework file takes
    # bandwidths carry their SI unit in the key (units in names): bytes per second
    hbm-bandwidth) echo hbm_bytes_per_s ;;
    nic-bandwidth) echo nic_bytes_per_s ;;
    *) echo "${1//-/_}" ;;
  esac
}
# Options of a sweep recorded once for the whole sweep, not per row: they
# are checked in the JSON only.
sweep_json_only=" knee fix objective strategies layout "
search_json_only=" fix "

# options CMD: the long options of CMD's table, one per line.
options() { "$PLATEAU" "$1" --help | sed -n 's/^  --\([a-z0-9-]*\).*/\1/p'; }

# keys FILE: every JSON key in FILE, one per line.
keys() { grep -o '"[a-z0-9_]*":' "$1" | tr -d '":' | sort -u; }
# columns FILE: the last part of every CSV header name in FILE, and X for
# X.name (model.name records --model).
columns() { head -1 "$1" | tr ',' '\n' | sed 's/^\([a-z_]*\)\.name$/\1/; s/.*\.//' | sort -u; }

# has LIST NAME: NAME, or NAME_<unit>, is in LIST (a file of names).
has() { grep -qE "^$2(_[a-z]+)?\$" "$1"; }

check_cmd() {
  local cmd=$1 json=$2 csv=$3 json_only=$4 n=0
  keys "$json" >"$TMP/keys"
  [ -n "$csv" ] && columns "$csv" >"$TMP/cols"
  for o in $(options "$cmd"); do
    case "$exempt" in *" $o "*) continue ;; esac
    n=$((n + 1))
    local k
    k=$(alias_of "$o")
    check "$cmd --$o is in the JSON output (key $k)" has "$TMP/keys" "$k"
    case "$json_only" in *" $o "*) continue ;; esac
    [ -n "$csv" ] && check "$cmd --$o is in the CSV output (column $k)" has "$TMP/cols" "$k"
  done
  check "$cmd: options were read from --help ($n)" [ "$n" -ge 30 ]
}

# --tokens and the prices fill the "train" object, which is null without them
train=(--tokens 1T --gpu-hour-price 2 --energy-price 0.1)

expect_ok predict --format json "${train[@]}"
cp "$TMP/out" "$TMP/p.json"
expect_ok predict --format csv "${train[@]}"
cp "$TMP/out" "$TMP/p.csv"
check_cmd predict "$TMP/p.json" "$TMP/p.csv" " "

search=(--gpus 8 --top 1 --threads 1 --fix tp=1 "${train[@]}")
expect_ok search --format json "${search[@]}"
cp "$TMP/out" "$TMP/s.json"
expect_ok search --format csv "${search[@]}"
cp "$TMP/out" "$TMP/s.csv"
check_cmd search "$TMP/s.json" "$TMP/s.csv" "$search_json_only"

sweep=(--gpus 8,16 --threads 1 "${train[@]}")
expect_ok sweep --format json "${sweep[@]}"
cp "$TMP/out" "$TMP/w.json"
expect_ok sweep --format csv "${sweep[@]}"
cp "$TMP/out" "$TMP/w.csv"
check_cmd sweep "$TMP/w.json" "$TMP/w.csv" "$sweep_json_only"

# the check itself fails on an option that is not reported
check "an unreported option is caught" bash -c '! grep -qE "^no_such_option(_[a-z]+)?\$" "$1"' _ "$TMP/keys"

finish
