#!/usr/bin/env bash
# scripts/gpu-twin-pairs.py (session 26, gbr26): the Megatron-Bridge rows that ran one model,
# layout, batch, precision and task in one release table on two GPUs. The published ratios are
# the table's own figures, so they are checked by hand: Llama 3 70B FSDP FP8, 26.04.01, rows 77
# (GB200, 4224 tokens/s/GPU) and 74 (GB300, 5248): step ratio 5248 / 4224 = 1.242; 25.11 rows
# 247 / 236 (4312, 4520): 1.048; Llama 3 8B FP8-CS 25.11 rows 245 / 234 (31508, 37556): 1.192.
# A GPU with no Bridge rows pairs nothing; a missing plateau binary is an error.
# docs/accuracy.md "Session 26 (helper gbr26)". Skipped (77) without python3.
. "$(dirname "$0")/lib.sh"
PY=$(command -v python3) || exit 77
cd "$PL_SOURCE_DIR" || exit 1

count=$((count + 1))
if ! "$PY" scripts/gpu-twin-pairs.py "$PLATEAU" gb200 gb300 -v >"$TMP/out" 2>"$TMP/err"; then
  echo "FAIL: gpu-twin-pairs gb200 gb300:" >&2
  sed 's/^/    /' "$TMP/err" >&2
  fails=$((fails + 1))
fi
check "70B FSDP 26.04.01 pair (77/74) at 1.242" grep -qE '^26\.04\.01 .*LLAMA3_70B .* 77/74 +1\.242 ' "$TMP/out"
check "70B FSDP 25.11 pair (247/236) at 1.048" grep -qE '^25\.11 .*LLAMA3_70B .* 247/236 +1\.048 ' "$TMP/out"
check "8B FP8-CS 25.11 pair (245/234) at 1.192" grep -qE '^25\.11 .*LLAMA3_8B .*FP8-CS .* 245/234 +1\.192 ' "$TMP/out"
check "-v prints each row's error" grep -qE '^ +gb200 +row +77 +error' "$TMP/out"
check "skipped pairs are named, with the reason" grep -qE 'DeepSeekV4 Flash .* skipped \(DeepSeek-V4' "$TMP/out"
check "summary line counts the pairs" grep -qE '^1[0-9] twin pairs gb200 / gb300: geometric mean step ratio published 1\.2' "$TMP/out"

count=$((count + 1))
"$PY" scripts/gpu-twin-pairs.py "$PLATEAU" gb200 v100 >"$TMP/out2" 2>&1
check "a GPU without Bridge rows pairs nothing" grep -qE '^0 twin pairs gb200 / v100' "$TMP/out2"

count=$((count + 1))
if "$PY" scripts/gpu-twin-pairs.py "$TMP/no-such-plateau" >"$TMP/out3" 2>&1; then
  echo "FAIL: a missing plateau binary did not fail" >&2
  fails=$((fails + 1))
fi
finish
