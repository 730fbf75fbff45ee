#!/usr/bin/env bash
# Build with warnings as errors and run the whole test suite (the README's test command).
#   scripts/test.sh             normal build in build-test/
#   scripts/test.sh --sanitize  ASan + UBSan build in build-asan/ (no recovery)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=build-test
flags=(-DPL_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [ "${1:-}" = "--sanitize" ]; then
  dir=build-asan
  flags+=(-DPL_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
cmake -S . -B "$dir" "${flags[@]}" >/dev/null
cmake --build "$dir" -j "$(nproc)"
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
