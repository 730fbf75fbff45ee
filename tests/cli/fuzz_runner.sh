#!/usr/bin/env bash
# The replay runner's mutation mode (tests/fuzz/replay_main.c) really
# mutates: with ctest's --seed 1 the rounds start from different corpus files
# and sizes (until session 26 the xorshift state was 0 for --seed 1 and every
# round ran the same mutant), and PL_FUZZ_DUMP keeps the mutant it ran.
. "$(dirname "$0")/lib.sh"

R="$(dirname "$PLATEAU")/tests/replay_fuzz_words"
C="$PL_SOURCE_DIR/tests/fuzz/corpus/fuzz_words"
if [ ! -x "$R" ]; then
  echo "FAIL: no replay runner at $R" >&2
  exit 1
fi
PL_FUZZ_VERBOSE=1 PL_FUZZ_DUMP="$TMP/mutant" "$R" "$C" --mutate 0.05 --seed 1 >"$TMP/out" 2>"$TMP/err"
check "runner exits 0" [ $? -eq 0 ]
bases=$(grep -o 'base [0-9]*' "$TMP/err" | sort -u | wc -l)
sizes=$(grep -o '[0-9]* bytes' "$TMP/err" | sort -u | wc -l)
check "seed 1: rounds start from several corpus files ($bases)" [ "$bases" -ge 3 ]
check "seed 1: mutants of several sizes ($sizes)" [ "$sizes" -ge 3 ]
check "PL_FUZZ_DUMP wrote the last mutant" [ -f "$TMP/mutant" ]
# two seeds give two sequences
PL_FUZZ_VERBOSE=1 "$R" "$C" --mutate 0.02 --seed 2 >/dev/null 2>"$TMP/err2"
head -20 "$TMP/err" >"$TMP/a"; head -20 "$TMP/err2" >"$TMP/b"
differ() { ! cmp -s "$1" "$2"; }
check "seeds 1 and 2 differ" differ "$TMP/a" "$TMP/b"
finish
