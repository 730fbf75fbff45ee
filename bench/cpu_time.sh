#!/usr/bin/env bash
# User and system CPU time of pl_predict per bench_predict layout: the median
# of RUNS runs of COUNT predictions each, less the median of RUNS runs of one
# prediction (process start, presets), and the system share of what is left
# (target: under 5 % on every layout; bench/README.md).
#   bench/cpu_time.sh [BENCH_PREDICT] [COUNT] [RUNS]
# e.g. bench/cpu_time.sh build-test/bench/bench_predict 5000 5
set -euo pipefail
bin=${1:-build-test/bench/bench_predict}
count=${2:-5000}
runs=${3:-5}
tmp=${TMPDIR:-/tmp}/cpu_time.$$
trap 'rm -f "$tmp"' EXIT
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# median user and system seconds of RUNS runs of `bin 1 case n`
times_of() {
  : >"$tmp"
  for ((r = 0; r < runs; r++)); do
    TIMEFORMAT='%U %S' # bash's time: the child's user and system seconds
    { time "$bin" 1 "$1" "$2" >/dev/null; } 2>>"$tmp"
  done
  echo "$(awk '{print $1}' "$tmp" | median) $(awk '{print $2}' "$tmp" | median)"
}
printf '%-5s %12s %12s %8s\n' case user_s sys_s sys_pct
for c in 0 1 2 3 4; do
  read -r u s <<<"$(times_of "$c" "$count")"
  read -r u1 s1 <<<"$(times_of "$c" 1)"
  awk -v c="$c" -v u="$u" -v s="$s" -v u1="$u1" -v s1="$s1" 'BEGIN {
    u -= u1; s -= s1; if (s < 0) s = 0
    printf "%-5s %12.3f %12.3f %7.1f%%\n", c, u, s, (u + s > 0) ? 100 * s / (u + s) : 0 }'
done
