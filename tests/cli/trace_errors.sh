#!/usr/bin/env bash
# Bad traces get one line naming the file and the byte offset, and exit 1;
# usage errors exit 2 (trace issue, "Done when"). The bad files are made here
# at run time; nothing large is committed.
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces"

# truncated JSON: the first 5000 bytes of a real trace
head -c 5000 "$T/hta_triton_example.json" >"$TMP/cut.json"
expect_fail 1 "trace '.*cut.json': byte [0-9]+: truncated JSON" -- trace analyze "$TMP/cut.json"
# truncated gzip
head -c 3000 "$T/tracelens_h100_bert_small.json.gz" >"$TMP/cut.json.gz"
expect_fail 1 "trace '.*cut.json.gz': truncated gzip data .*byte [0-9]+" -- trace analyze "$TMP/cut.json.gz"
# corrupt gzip: a valid header, then garbage
{ head -c 20 "$T/tracelens_h100_bert_small.json.gz"; head -c 4000 /dev/urandom; } >"$TMP/bad.json.gz"
expect_fail 1 "trace '.*bad.json.gz'.*byte [0-9]+" -- trace analyze "$TMP/bad.json.gz"
# malformed JSON in the middle
printf '{"traceEvents": [{"ph": "X",, "cat": "kernel"}]}' >"$TMP/mal.json"
expect_fail 1 "trace '.*mal.json': byte [0-9]+: malformed JSON" -- trace analyze "$TMP/mal.json"
# wrong types
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "abc", "dur": 1}]}' >"$TMP/ts.json"
expect_fail 1 "trace '.*ts.json': byte [0-9]+: field 'ts' is a string, expected a number" -- trace analyze "$TMP/ts.json"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "args": {"correlation": [1]}}]}' >"$TMP/corr.json"
expect_fail 1 "byte [0-9]+: field 'correlation' is an array" -- trace analyze "$TMP/corr.json"
printf '{"traceEvents": {"ph": "X"}}' >"$TMP/obj.json"
expect_fail 1 "byte [0-9]+: field 'traceEvents' is an object, expected an array" -- trace analyze "$TMP/obj.json"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": -1}]}' >"$TMP/neg.json"
expect_fail 1 "byte [0-9]+: field 'dur' value -1 is negative" -- trace analyze "$TMP/neg.json"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5}]}' >"$TMP/nodur.json"
expect_fail 1 "byte [0-9]+: traceEvents\[0\] has no 'dur'" -- trace analyze "$TMP/nodur.json"
# a 100 MB string (a name), made here
{ printf '{"traceEvents": [{"name": "'; head -c 100000000 /dev/zero | tr '\0' 'a'; printf '"}]}'; } >"$TMP/long.json"
expect_fail 1 "trace '.*long.json': byte [0-9]+: a string or number longer than 4 MiB" -- trace analyze "$TMP/long.json"
rm -f "$TMP/long.json"
# deep nesting inside an event's args
{ printf '{"traceEvents": [{"args": '; head -c 100000 /dev/zero | tr '\0' '['; } >"$TMP/deep.json"
expect_fail 1 "trace '.*deep.json': byte [0-9]+: nesting deeper than 64 levels" -- trace analyze "$TMP/deep.json"
# JSON that is not a trace
printf '{"model": "llama2-7b", "layers": 32}' >"$TMP/cfg.json"
expect_fail 1 "trace '.*cfg.json': not a Kineto trace \(no traceEvents array\)" -- trace analyze "$TMP/cfg.json"
printf '[1, 2]' >"$TMP/arr.json"
expect_fail 1 "byte [0-9]+: field 'traceEvents\[0\]' is a number, expected an object" -- trace analyze "$TMP/arr.json"
printf '"just a string"' >"$TMP/str.json"
expect_fail 1 "not a Kineto trace: the top-level value is a string" -- trace analyze "$TMP/str.json"
: >"$TMP/empty.json"
expect_fail 1 "trace '.*empty.json': empty file" -- trace analyze "$TMP/empty.json"
expect_fail 1 "cannot open trace '/nonexistent/rank0.json'" -- trace analyze /nonexistent/rank0.json
mkdir -p "$TMP/nodir"
expect_fail 1 "directory '.*nodir' has no \*.json" -- trace analyze "$TMP/nodir"
# one bad file in a set fails the set, naming that file
expect_fail 1 "trace '.*ts.json'" -- trace analyze "$T/dlrm" "$TMP/ts.json"
# options
expect_fail 1 "plateau: .*--skip 5 leaves no steps \(3 complete steps\)" -- trace analyze --skip 5 "$T/tracelens_mi300_resnet_act_checkpoint.json.gz"
expect_fail 1 "plateau: --window: unknown value 'epoch'" -- trace analyze --window epoch "$T/hta_triton_example.json"
expect_fail 1 "plateau: --format: unknown format 'xml'" -- trace analyze --format xml "$T/hta_triton_example.json"
expect_fail 1 "plateau: --model needs --tokens-per-step" -- trace analyze --model llama2-7b "$T/hta_triton_example.json"
expect_fail 2 "no trace files given" -- trace analyze
expect_fail 2 "unknown subcommand 'frobnicate'" -- trace frobnicate
expect_fail 2 "unknown option '--bogus'" -- trace analyze --bogus "$T/hta_triton_example.json"
finish
