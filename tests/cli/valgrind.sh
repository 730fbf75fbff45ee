#!/usr/bin/env bash
# Valgrind memcheck over one small end-to-end run of every command
# (docs/robustness.md, "Sanitizers"): invalid reads/writes, uses of
# uninitialised values and definite leaks fail the test (exit 99 from
# valgrind). Skipped (exit 77, ctest SKIP_RETURN_CODE) when valgrind is not
# installed or the binary is built with AddressSanitizer (the two cannot run
# together; the ASan build covers the same runs through the other tests).
# Inputs are tiny so the whole run stays well under a minute.
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind not installed: skipped"
  exit 77
fi
if grep -qa "__asan_init" "$PLATEAU"; then
  echo "binary built with AddressSanitizer: skipped"
  exit 77
fi

T="$PL_TEST_DATA/traces"
N="$PL_TEST_DATA/nccl"
VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite
    --show-leak-kinds=definite --track-origins=no)

# vg ARGS...: plateau under memcheck exits 0 with no memcheck error.
vg() {
  count=$((count + 1))
  "${VG[@]}" "$PLATEAU" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "FAIL: valgrind plateau $* -> exit $rc:" >&2
    sed 's/^/    /' "$TMP/err" | head -40 >&2
    fails=$((fails + 1))
  fi
}

printf '%s' '{"models": ["llama2-7b"], "clusters": ["dgx-h100"], "nodes": [1, 2],
  "strategies": ["fsdp"], "batch_per_gpu": [1], "global_batch": []}' >"$TMP/spec.json"
head -n 3 "$PL_TEST_DATA/validation/megatron_sc21_narayanan.csv" >"$TMP/sc21.csv"

vg predict --model llama2-7b --gpus 16 --tp 2 --pp 2 --format json
vg search --model llama2-7b --gpus 4 --gbs 8 --fix shard=zero2,recompute=none,mbs=1 --top 2 \
  --threads 1
vg sweep --model llama2-7b --gpus 8,16 --strategies fsdp --format csv --threads 1
vg study --spec "$TMP/spec.json" --out "$TMP/study" --threads 1 --quiet --gnuplot /nonexistent
check "study wrote results.json" test -s "$TMP/study/results.json"
vg collectives --cluster dgx-h100 --op all_reduce,all_gather --nodes 1,2 --bytes 1M,1G
vg calibrate nccl "$N/h100_1node_8gpu_all_reduce_ring_together.txt" --cluster dgx-h100 \
  --out "$TMP/cal.json"
vg trace analyze --threads 1 "$T/hta_triton_example.json.gz"
vg trace compare "$T/hta_triton_example.json.gz" "$T/hta_triton_example.json"
vg validate "$TMP/sc21.csv" --format json
vg list gpus
# and one clean failure per kind: an error path must not leak either
count=$((count + 1))
"${VG[@]}" "$PLATEAU" predict --model /nonexistent.json >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] || { echo "FAIL: valgrind on a failing predict" >&2; cat "$TMP/err" >&2; fails=$((fails + 1)); }
count=$((count + 1))
printf '{"traceEvents": [{"ph": "X", "ts": "x"' >"$TMP/bad.json"
"${VG[@]}" "$PLATEAU" trace analyze "$TMP/bad.json" >/dev/null 2>"$TMP/err"
[ $? -eq 1 ] || { echo "FAIL: valgrind on a failing trace analyze" >&2; cat "$TMP/err" >&2; fails=$((fails + 1)); }
finish
