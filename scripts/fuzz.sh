#!/usr/bin/env bash
# Run every libFuzzer target for N seconds each (default 600), growing its
# corpus in a scratch copy; new crashes land in build-fuzz/crashes/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-600}; shift || true
# Undefined behaviour is a finding (a crash artifact), not a log line.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
CC=clang cmake -S . -B build-fuzz -DPL_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(cd tests/fuzz && ls fuzz_*.c | sed 's/\.c$//'))
mkdir -p build-fuzz/crashes
for t in "${targets[@]}"; do
  work=build-fuzz/corpus-$t
  mkdir -p "$work"
  cp -n tests/fuzz/corpus/$t/* "$work"/ 2>/dev/null || true
  echo "== $t for ${secs}s" >&2
  build-fuzz/tests/$t "$work" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix=build-fuzz/crashes/$t- 2>&1 | tail -n 3
done
