#!/usr/bin/env bash
# scripts/cliff-grid.py --quick --check (session 25, cliff25): about 800 predictions over models,
# GPUs, GPU counts 8..4096, gbs, seq, dtypes and framework presets, none of which may show NaN,
# inf or a negative figure, a breakdown that does not sum to the step, a collective exposed longer
# than it runs or longer than the step's exposed communication, a step for a layout that does not
# fit, HFU below MFU, or a step that gets shorter as the global batch grows (docs/accuracy.md,
# "Session 25 (helper cliff25)"). Skipped (77) without python3.
. "$(dirname "$0")/lib.sh"
PY=$(command -v python3) || exit 77
cd "$PL_SOURCE_DIR" || exit 1
count=$((count + 1))
if ! "$PY" scripts/cliff-grid.py "$PLATEAU" --quick --check >"$TMP/out" 2>"$TMP/err"; then
  echo "FAIL: cliff-grid --quick --check:" >&2
  sed 's/^/    /' "$TMP/out" "$TMP/err" >&2
  fails=$((fails + 1))
fi
check "cliff-grid predicted the grid" grep -qE '^cliff-grid: [0-9]{3,} configurations' "$TMP/out"
finish
