#!/usr/bin/env bash
# Golden CLI transcripts: each tests/golden/<case>.cmd holds the arguments of
# one plateau call (one line, word-split, no quoting); <case>.out is its exact
# stdout. A diff fails the test. To accept a reviewed change, regenerate with
#   PL_GOLDEN_UPDATE=1 ctest -R cli_golden   (then review git diff tests/golden)
. "$(dirname "$0")/lib.sh"
dir="$PL_SOURCE_DIR/tests/golden"
for cmd in "$dir"/*.cmd; do
  name=$(basename "$cmd" .cmd)
  read -r -a argv <"$cmd"
  count=$((count + 1))
  # the version every JSON opens with (git describe) is masked: it changes with each commit
  "$PLATEAU" "${argv[@]}" >"$TMP/$name.raw" 2>"$TMP/$name.err"
  rc=$?
  sed '1,2s/^  "version": ".*",$/  "version": "(masked)",/' "$TMP/$name.raw" >"$TMP/$name.out"
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: $name: plateau ${argv[*]} exited non-zero:" >&2
    cat "$TMP/$name.err" >&2
    fails=$((fails + 1))
    continue
  fi
  if [ "${PL_GOLDEN_UPDATE:-0}" = 1 ]; then
    cp "$TMP/$name.out" "$dir/$name.out"
  elif ! diff -u "$dir/$name.out" "$TMP/$name.out" >&2; then
    echo "FAIL: $name: output differs from tests/golden/$name.out (see diff above)" >&2
    fails=$((fails + 1))
  fi
done
finish
