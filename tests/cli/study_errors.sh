#!/usr/bin/env bash
# Bad input to `plateau study`: one line naming the problem, non-zero exit,
# nothing written (issue "The study in one command").
. "$(dirname "$0")/lib.sh"

expect_fail 1 "cannot open '/nonexistent/spec.json'" -- study --spec /nonexistent/spec.json --out "$TMP/r"
printf '{"nodes": [1, 2' >"$TMP/trunc.json"
expect_fail 1 "malformed JSON" -- study --spec "$TMP/trunc.json" --out "$TMP/r"
printf '{"nodez": [1]}' >"$TMP/typo.json"
expect_fail 1 "field 'nodez': unknown" -- study --spec "$TMP/typo.json" --out "$TMP/r"
printf '{"nodes": [2, 1]}' >"$TMP/order.json"
expect_fail 1 "field 'nodes': must be ascending" -- study --spec "$TMP/order.json" --out "$TMP/r"
printf '{"strategies": ["tp2"]}' >"$TMP/nofsdp.json"
expect_fail 1 "field 'strategies': must include \"fsdp\"" -- study --spec "$TMP/nofsdp.json" --out "$TMP/r"
printf '{"seq": -4}' >"$TMP/seq.json"
expect_fail 1 "field 'seq'" -- study --spec "$TMP/seq.json" --out "$TMP/r"
printf '{"models": ["llama9-1t"], "nodes": [1]}' >"$TMP/model.json"
expect_fail 1 "spec field 'models':.*llama9-1t" -- study --spec "$TMP/model.json" --out "$TMP/r"
printf '{"clusters": ["dgx-nothing"], "nodes": [1]}' >"$TMP/cluster.json"
expect_fail 1 "spec field 'clusters':.*dgx-nothing" -- study --spec "$TMP/cluster.json" --out "$TMP/r"
printf '{"nodes": [1], "strategies": ["fsdp", "hsdp"]}' >"$TMP/hsdp.json"
expect_fail 1 "hybrid sharding needs a shard group" -- study --spec "$TMP/hsdp.json" --out "$TMP/r"
printf '{"nodes": [1], "framework": "no-such-stack"}' >"$TMP/fw.json"
expect_fail 1 "field 'framework':.*no-such-stack" -- study --spec "$TMP/fw.json" --out "$TMP/r"
expect_fail 1 "^plateau: --framework: .*no-such-stack" -- study --framework no-such-stack --out "$TMP/r"
expect_fail 1 "--threads: .*not a positive integer|--threads" -- study --threads 0 --out "$TMP/r"
expect_fail 2 "unexpected argument 'extra'" -- study extra
expect_fail 2 "unknown option '--bogus'" -- study --bogus
: >"$TMP/file"
printf '{"models": ["llama2-7b"], "clusters": ["dgx-h100"], "nodes": [1], "strategies": ["fsdp"], "global_batch": []}' >"$TMP/one.json"
expect_fail 1 "--out '.*file' exists and is not a directory" -- study --spec "$TMP/one.json" --out "$TMP/file" --quiet
expect_fail 1 "--measured '/nonexistent/traces'" -- study --spec "$TMP/one.json" --out "$TMP/r" --quiet --measured /nonexistent/traces
check "nothing written after errors" test ! -e "$TMP/r"
finish
