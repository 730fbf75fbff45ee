#!/usr/bin/env bash
# Output files, pipes and full disks (docs/robustness.md, "Files and streams"):
# every writer goes through src/base/outfile.c and the CLI's outpath.c check,
# standard output is checked on exit (src/cli/main.c), and trace directories
# and pipes are read without blocking or seeking (src/trace/set.c, input.c).
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces"
N="$PL_TEST_DATA/nccl"
M="$PL_SOURCE_DIR/data/models/llama2-7b.json"
V="$PL_SOURCE_DIR/data/validation"

# ---- standard output on a full disk: exit 1 with the reason, every command ----
if [ -w /dev/full ]; then
  for args in "predict --model llama2-7b --gpus 8" "list models" "collectives --op all_reduce" \
    "search --model llama2-7b --gpus 8 --top 1" "sweep --model llama2-7b --gpus 8,16" \
    "trace analyze $T/hta_nccl_data.json.gz" "validate $V/opt175b_paper.csv" "--help" \
    "predict --help"; do
    count=$((count + 1))
    # shellcheck disable=SC2086
    "$PLATEAU" $args >/dev/full 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne 1 ] || ! grep -q "cannot write standard output: " "$TMP/err"; then
      echo "FAIL: plateau $args >/dev/full -> exit $rc" >&2
      sed 's/^/    /' "$TMP/err" >&2
      fails=$((fails + 1))
    fi
  done
fi

# ---- an output path that is a directory, or also an input ----
expect_fail 1 "--trace '$TMP': it is a directory; give a file name" -- \
  predict --model llama2-7b --gpus 8 --trace "$TMP"
cp "$M" "$TMP/m.json"
cp "$TMP/m.json" "$TMP/m.orig"
expect_fail 1 "--trace '.*m.json' is also an input of this run \(--model '.*m.json'\)" -- \
  predict --model "$TMP/m.json" --gpus 8 --trace "$TMP/m.json"
check "the model file named as --trace is untouched" cmp -s "$TMP/m.json" "$TMP/m.orig"
ln -s m.json "$TMP/alias.json"
expect_fail 1 "is also an input of this run" -- \
  predict --model "$TMP/alias.json" --gpus 8 --trace "$TMP/m.json"
L="$N/$(ls "$N" | grep -m1 '\.txt$')"
cp "$L" "$TMP/log.txt"
expect_fail 1 "--out '.*log.txt' is also an input of this run \('.*log.txt'\)" -- \
  calibrate nccl --cluster dgx-h100 --out "$TMP/log.txt" "$TMP/log.txt"
check "the nccl log named as --out is untouched" cmp -s "$TMP/log.txt" "$L"
cp "$V/opt175b_paper.csv" "$TMP/v.csv"
expect_fail 1 "--write-baseline '.*v.csv' is also an input" -- \
  validate "$TMP/v.csv" --write-baseline "$TMP/v.csv"
check "the CSV named as --write-baseline is untouched" cmp -s "$TMP/v.csv" "$V/opt175b_paper.csv"

# ---- a symlink is followed: its target is replaced, the link stays ----
ln -s target.json "$TMP/link.json"
expect_ok predict --model llama2-7b --gpus 8 --trace "$TMP/link.json"
check "--trace through a symlink keeps the link" test -L "$TMP/link.json"
check "--trace through a symlink writes its target" test -s "$TMP/target.json"

# ---- a FIFO is written in place, not replaced ----
mkfifo "$TMP/fifo"
(cat "$TMP/fifo" >"$TMP/fifo.out") &
reader=$!
expect_ok predict --model llama2-7b --gpus 8 --trace "$TMP/fifo"
wait "$reader"
check "--trace FIFO stays a FIFO" test -p "$TMP/fifo"
check "--trace FIFO's reader got the timeline" grep -q traceEvents "$TMP/fifo.out"

# ---- a device is written in place: /dev/full stays a device, the error is reported ----
if [ -w /dev/full ] && [ -c /dev/full ]; then
  expect_fail 1 "cannot write '/dev/full': No space left on device" -- \
    predict --model llama2-7b --gpus 8 --trace /dev/full
  check "/dev/full is still a character device" test -c /dev/full
fi

# ---- traces from pipes, and FIFOs inside a trace directory ----
expect_ok trace analyze "$T/hta_nccl_data.json.gz"
sed 's|[^ ]*hta_nccl_data.json.gz|F|' "$TMP/out" >"$TMP/file.txt"
count=$((count + 1))
if ! "$PLATEAU" trace analyze /dev/stdin <"$T/hta_nccl_data.json.gz" >"$TMP/pipe.txt" 2>"$TMP/err"; then
  echo "FAIL: trace analyze /dev/stdin (gzip on a pipe)" >&2; fails=$((fails + 1))
fi
sed -i 's|/dev/stdin|F|' "$TMP/pipe.txt"
check "a gzip trace read from a pipe gives the same analysis" cmp -s "$TMP/file.txt" "$TMP/pipe.txt"
mkdir "$TMP/d" "$TMP/e"
cp "$T/hta_nccl_data.json.gz" "$TMP/d/"
mkfifo "$TMP/d/rank1.json" "$TMP/e/rank0.json"
count=$((count + 1))
if ! timeout 60 "$PLATEAU" trace analyze "$TMP/d" >"$TMP/out" 2>"$TMP/err"; then
  echo "FAIL: trace analyze DIR with a FIFO in it (exit $?)" >&2; fails=$((fails + 1))
fi
expect_fail 1 "directory '.*e' has no regular trace files \('rank0.json' and 0 other entries are not regular files\)" -- \
  trace analyze "$TMP/e"

# ---- one layout too large to simulate does not stop a search ----
expect_ok search --model llama2-7b --gpus 8 --gbs 1048576 --top 3
check "search counts the layouts above the simulation limit" grep -q "simulation_limit [1-9]" "$TMP/out"

# ---- a file name that is not UTF-8: the JSON stays UTF-8 (RFC 8259 section 8.1) ----
# validate names a dataset by its file; the Latin-1 byte 0xFF is written as
# U+FFFD (src/base/emit.c put_string), not passed through to break json.loads
cp "$V/tinyllama_readme.csv" "$TMP/lat$(printf '\377').csv"
expect_ok validate "$TMP/lat$(printf '\377').csv" --format json
check "a non-UTF-8 file name is U+FFFD in the JSON" grep -q '"name": "lat\\ufffd"' "$TMP/out"
check "no raw 0xFF byte in the JSON" bash -c "! LC_ALL=C grep -q \$'\\xff' '$TMP/out'"

finish
