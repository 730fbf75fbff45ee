#!/usr/bin/env bash
# Search and sweep under `mpirun -np 2` give byte-identical CSV to a serial
# run (docs/search.md, "Parallel runs"). Registered by the top-level
# CMakeLists.txt only when MPI was found. Env: PLATEAU, MPIEXEC.
set -u
fails=0
count=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mpi() { "$MPIEXEC" --oversubscribe --allow-run-as-root -np 2 "$PLATEAU" "$@"; }

same() {
  local what=$1; shift
  count=$((count + 1))
  "$PLATEAU" "$@" --threads 1 >"$TMP/serial" 2>"$TMP/serial.err"
  local rc1=$?
  mpi "$@" --threads 1 >"$TMP/mpi" 2>"$TMP/mpi.err"
  local rc2=$?
  if [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ] || ! cmp -s "$TMP/serial" "$TMP/mpi" || [ ! -s "$TMP/serial" ]; then
    echo "FAIL: $what (serial exit $rc1, mpi exit $rc2)" >&2
    cat "$TMP/serial.err" "$TMP/mpi.err" >&2
    diff "$TMP/serial" "$TMP/mpi" | head -5 >&2
    fails=$((fails + 1))
  fi
}

same "search csv" search --model llama2-7b --gpus 16 --gbs 32 --top 5 --format csv
same "search json" search --model llama2-7b --gpus 16 --gbs 32 --top 3 --fix mbs=1 --format json
same "sweep given csv" sweep --model llama2-7b --gpus 8..64 --format csv
same "sweep strategies csv" sweep --model llama2-7b --gpus 8..32 --strategies fsdp,tp2,best \
  --fix mbs=1,recompute=none --format csv
echo "$((count - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
