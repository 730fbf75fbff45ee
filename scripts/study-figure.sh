#!/usr/bin/env bash
# Regenerate the README's study figure (docs/figures/study-scaling.*) from the
# default `plateau study` (about a minute on 2 cores; needs gnuplot).
#   scripts/study-figure.sh [path/to/plateau]
set -euo pipefail
cd "$(dirname "$0")/.."
plateau=${1:-build-test/plateau}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$plateau" study --out "$out/study" --quiet >"$out/summary.txt"
mkdir -p docs/figures
cp "$out/study/figures/scaling.svg" docs/figures/study-scaling.svg
cp "$out/study/figures/scaling.png" docs/figures/study-scaling.png
grep '^  scaling:' "$out/summary.txt" | sed 's/^  scaling: //' >docs/figures/study-scaling.txt
echo "wrote docs/figures/study-scaling.svg, .png and .txt (its finding)"
