#!/usr/bin/env bash
# `plateau list gpus|clusters|models`: every preset with a one-line description.
. "$(dirname "$0")/lib.sh"
expect_ok list gpus
for g in v100 a100-40g a100-80g h100 h200 b200 mi300x; do
  check "gpu $g listed" grep -qE "^  $g +[A-Z]" "$TMP/out"
done
expect_ok list clusters
for c in dgx-v100 dgx-a100 dgx-h100 dgx-h200 dgx-b200 mi300x-platform aws-p5; do
  check "cluster $c listed" grep -qE "^  $c +[A-Z]" "$TMP/out"
done
expect_ok list models --format csv
check "csv header" grep -q '^name,description$' "$TMP/out"
expect_ok list clusters --format json
check "json" grep -q '"clusters"' "$TMP/out"
expect_fail 1 "unknown kind 'tpus'" -- list tpus
expect_fail 2 "name one kind" -- list
finish
