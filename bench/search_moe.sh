#!/usr/bin/env bash
# search_moe.sh [PLATEAU] [RUNS]: issue 19's speed target, through the CLI as a user runs it:
# `plateau search --model deepseek-v3 --gpus 1024 --gpu h100` ranks layouts with ep in under
# 10 s on one core (--threads 1). Prints the median user+system CPU seconds of RUNS runs (bash's
# `time`; CPU, not wall time, since the machines these run on are shared) and the first ranked
# layout, whose last column is its ep. A benchmark, never run by ctest.
set -euo pipefail
PLATEAU=${1:-build-test/plateau}
RUNS=${2:-3}
TIMEFORMAT='%U %S'
times=()
for _ in $(seq "$RUNS"); do
  t=$( { time "$PLATEAU" search --model deepseek-v3 --gpus 1024 --gpu h100 --threads 1 --top 3 \
    >/tmp/search_moe.$$ 2>/dev/null; } 2>&1)
  times+=("$(echo "$t" | awk '{print $1 + $2}')")
done
median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
grep -E '^ +1 ' /tmp/search_moe.$$ | sed 's/^/best: /'
grep -E '^layouts:' /tmp/search_moe.$$
rm -f /tmp/search_moe.$$
echo "deepseek-v3 on 1024 h100, one thread: median ${median} s CPU over ${RUNS} runs (target < 10 s)"
