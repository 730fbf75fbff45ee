#!/usr/bin/env bash
# Bad input and limits across the commands (docs/robustness.md, docs/limits.md):
# each gets one line naming the problem and exit 1 (2 for usage), never a
# crash, hang or NaN. Rows already covered by tests/cli/*_errors.sh are not
# repeated here; docs/robustness.md points to both.
. "$(dirname "$0")/lib.sh"
T="$PL_TEST_DATA/traces"
N="$PL_TEST_DATA/nccl"
M="$PL_SOURCE_DIR/data/models/llama2-7b.json"

# ---- JSON documents (models, clusters, specs): src/base/json.c ----
{ printf '{"a": '; for i in $(seq 70); do printf '['; done
  for i in $(seq 70); do printf ']'; done; printf '}'; } >"$TMP/deep.json"
expect_fail 1 "model '.*deep.json': JSON nested deeper than 64 levels" -- predict --model "$TMP/deep.json"
printf '{"layers": 2\0}' >"$TMP/nul.json"
expect_fail 1 "model '.*nul.json': contains a NUL byte, not JSON text" -- predict --model "$TMP/nul.json"
gzip -c "$M" >"$TMP/gz.json"
expect_fail 1 "'.*gz.json' is gzip-compressed: decompress it first" -- predict --model "$TMP/gz.json"
{ printf '{"pad": "'; head -c $((17 << 20)) /dev/zero | tr '\0' x; printf '"}'; } >"$TMP/big.json"
expect_fail 1 "'.*big.json' is larger than 16 MiB, the limit for this kind of file" -- predict --model "$TMP/big.json"
rm -f "$TMP/big.json"
expect_fail 1 "cannot read '.*': Is a directory" -- predict --model "$TMP"
sed "s/\"name\": \"[^\"]*\"/\"name\": \"$(printf 'n%.0s' $(seq 300))\"/" "$M" >"$TMP/name.json"
expect_fail 1 "model '.*name.json': field 'name' is longer than 63 characters" -- predict --model "$TMP/name.json"
sed 's/"layers": 32/"layers": 100000/' "$M" >"$TMP/layers.json"
expect_fail 1 "field 'layers' is 100000, above the limit 65536" -- predict --model "$TMP/layers.json"
sed 's/"gpus_per_node": {"value": 8/"gpus_per_node": {"value": 2000/' \
  "$PL_SOURCE_DIR/data/clusters/dgx-h100.json" >"$TMP/gpn.json"
expect_fail 1 "cluster file '.*gpn.json': field 'gpus_per_node' is 2000, expected 1..1024" -- \
  predict --cluster "$TMP/gpn.json"
sed 's/"nics_per_node": {"value": 8/"nics_per_node": {"value": 2000/' \
  "$PL_SOURCE_DIR/data/clusters/dgx-h100.json" >"$TMP/nics.json"
expect_fail 1 "field 'nics_per_node' is 2000, expected 0..1024" -- predict --cluster "$TMP/nics.json"

# ---- layout limits: src/model/layout.c, PL_LAYOUT_MAX_* ----
expect_fail 1 "layout: gpus 16777217 is more than the limit 16777216" -- predict --gpus 16777217
expect_fail 1 "layout: nodes 9223372036854775807 is more than the limit 2097152" -- \
  predict --nodes 9223372036854775807
expect_fail 1 "layout: gbs 4611686018427387904 is more than the limit 68719476736" -- \
  predict --gbs 4611686018427387904
expect_fail 1 "layout: seq 100000000 is more than the limit 67108864" -- predict --seq 100000000
expect_fail 1 "layout: mbs 576460752303423488 is more than the limit" -- predict --mbs 576460752303423488
expect_fail 1 "search: 16777217 GPUs is above the limit of 16777216" -- search --gpus 16777217
expect_fail 1 "search: 9223372036854775807 nodes is above the limit" -- search --nodes 9223372036854775807
expect_fail 1 "passes to simulate \(limit [0-9]+ tasks\)" -- predict --gbs 10000000000 --gpus 8

# ---- an option given twice: the last value (docs/robustness.md; validate-with-flags.py appends) ----
expect_ok predict --gpus 8 --gpus 16 --format json
check "--gpus 8 --gpus 16 runs 16 GPUs" grep -q '"gpus": 16,' "$TMP/out"
expect_fail 1 "--tp: '0' must be positive" -- predict --tp 2 --tp 0

# ---- extreme but valid: every number finite (no nan/inf in any format) ----
for args in "--gpus 1 --model llama3-405b" "--gpus 131072" "--seq 1" "--seq 1048576 --gpus 64 --cp 8" \
            "--gpus 8 --gbs 8192 --mbs 1024" "--model gpt3-175b --gpus 16777216 --tp 8 --pp 8"; do
  for fmt in text csv json; do
    # shellcheck disable=SC2086
    expect_ok predict $args --format $fmt
    check "predict $args --format $fmt: no nan/inf" \
      bash -c "! grep -qiwE 'nan|-?inf(inity)?' '$TMP/out'"
  done
done

# ---- study specs: src/study/spec.c ----
: >"$TMP/empty.json"
expect_fail 1 "spec '.*empty.json': empty file, expected a JSON object" -- study --spec "$TMP/empty.json" --out "$TMP/st"
printf '{"model": ["llama2-7b"]}' >"$TMP/unk.json"
expect_fail 1 "spec '.*unk.json': field 'model': unknown \(expected models" -- study --spec "$TMP/unk.json" --out "$TMP/st"
printf '{"nodes": [%s]}' "$(seq -s, 1 33)" >"$TMP/axis.json"
expect_fail 1 "field 'nodes': 33 entries, at most 32" -- study --spec "$TMP/axis.json" --out "$TMP/st"
printf '{"models": ["llama2-7b"]' >"$TMP/cut.json"
expect_fail 1 "spec '.*cut.json': malformed JSON" -- study --spec "$TMP/cut.json" --out "$TMP/st"
printf '{"models": ["llama2-7b"], "clusters": ["dgx-h100"], "nodes": [1], "strategies": ["fsdp"], "batch_per_gpu": [1], "global_batch": []}' >"$TMP/spec.json"
expect_fail 1 "cannot create a directory beside '/nonexistent/dir/st'" -- \
  study --spec "$TMP/spec.json" --out /nonexistent/dir/st --quiet --threads 1
# shellcheck disable=SC2046
expect_fail 1 "--measured: 17 runs, at most 16" -- study --spec "$TMP/spec.json" --out "$TMP/st" \
  --quiet --threads 1 --measured $(for i in $(seq 17); do printf '%s ' "$TMP/m$i"; done)

printf '{"models": ["gpt3-175b", "llama2-13b", "llama2-70b", "llama2-7b", "llama3-405b", "llama3-70b",
  "llama3-8b", "mistral-7b"], "clusters": ["aws-p4de", "aws-p5", "dgx-a100", "dgx-b200", "dgx-h100",
  "dgx-h200", "dgx-v100", "gcp-a3mega", "mi300x-platform"], "nodes": [%s], "batch_per_gpu": [%s],
  "global_batch": [], "strategies": ["fsdp"]}' "$(seq -s, 1 32)" "$(seq -s, 1 32)" >"$TMP/points.json"
expect_fail 1 "study spec: the grid has 73728 points, more than 50000" -- \
  study --spec "$TMP/points.json" --out "$TMP/st" --quiet

# ---- command-line lists and outputs ----
expect_fail 1 "--gpus: '99999999999' is more than 16777216" -- collectives --gpus 99999999999
expect_fail 1 "--bytes: value too long" -- collectives --bytes "$(seq -s, 1 1000)"
expect_fail 1 "--bytes: '1e400' is not a size" -- collectives --bytes 1e400
expect_fail 1 "--bytes: '1e308G' is too large" -- collectives --bytes 1e308G
expect_fail 1 "--model: more than 64 items" -- sweep --gpus 8 --model "$(printf 'llama2-7b,%.0s' $(seq 64))llama2-7b"
expect_fail 1 "--flops-per-step: 'nan' is not a finite number" -- \
  trace analyze --flops-per-step nan "$T/hta_triton_example.json"
expect_fail 1 "search: global batch 3000000000 is above the limit of 2147483647" -- \
  search --gpus 8 --gbs 3000000000
expect_fail 1 "--gpu-hour-price: 'inf' is not a finite number" -- search --gpus 8 --objective cost --gpu-hour-price inf
# shellcheck disable=SC2046
expect_fail 2 "too many arguments" -- trace analyze $(seq -f "$TMP/%g.json" 4097)
expect_fail 1 "cannot write '/nonexistent/x.json'" -- \
  calibrate nccl "$N/h100_1node_8gpu_all_reduce_ring_together.txt" --cluster dgx-h100 --out /nonexistent/x.json
check "no temporary left beside a failed output" bash -c "! ls '$TMP' | grep -q '\.tmp'"

# ---- data files: nccl-tests logs, validation CSVs, traces ----
head -c $((65 << 20)) /dev/zero | tr '\0' ' ' >"$TMP/big.txt"
expect_fail 1 "'.*big.txt' is larger than 64 MiB, the limit for this kind of file" -- \
  calibrate nccl "$TMP/big.txt" --cluster dgx-h100 --out "$TMP/c.json"
rm -f "$TMP/big.txt"
head -c 3000 "$PLATEAU" >"$TMP/bin.txt"
expect_fail 1 "'.*bin.txt': binary data, not an nccl-tests log" -- calibrate nccl "$TMP/bin.txt" --cluster dgx-h100 --out "$TMP/c.json"
{ seq -s, -f 'c%g' 600; seq -s, 600; } >"$TMP/wide.csv"
expect_fail 1 "csv '.*wide.csv': line 1: more than 512 fields in one record" -- validate "$TMP/wide.csv"
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 9e18, "dur": 1}]}' >"$TMP/ts.json"
expect_fail 1 "trace '.*ts.json': byte [0-9]+: field 'ts' value 9e18 is not a time in microseconds" -- \
  trace analyze "$TMP/ts.json"
mkdir "$TMP/ranks" && (cd "$TMP/ranks" && seq -f '%g.json' 65537 | xargs touch)
expect_fail 1 "'.*ranks': more than 65536 trace files in one analysis" -- trace analyze "$TMP/ranks"
rm -rf "$TMP/ranks"
finish
