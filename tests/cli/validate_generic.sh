#!/usr/bin/env bash
# `plateau validate` on a user's own CSV (src/validate/source_generic.c; data/validation/README.md
# "Your own runs"): rows whose source is no built-in source are read by the generic rules.
# tests/data/validation-user/own_runs.csv rewrites published runs already in data/validation/
# (Korthikanti Table 5, vTrain, MegaScale Table 2, NeMo 24.07, torchtitan) in the generic columns:
# every row predicts, its command reproduces the prediction, the same run by preset name or by
# its dimensions predicts the same, and bad cells are skipped with the column to add.
. "$(dirname "$0")/lib.sh"
OWN="$PL_TEST_DATA/validation-user/own_runs.csv"
V="$PL_SOURCE_DIR/data/validation"

expect_ok validate "$OWN" --format json
python3 - "$TMP/out" >"$TMP/rows" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
for r in rows:
    print("%d\t%s\t%s\t%.9g\t%.9g\t%s" % (r["row"], r["source"], r["skipped_reason"] or "-",
          r["predicted"] or 0, r["measured"] or 0, r["command"] or ""))
PY
check "10 rows" [ "$(wc -l <"$TMP/rows")" -eq 10 ]
check "every row is read by the generic rules" [ "$(cut -f2 "$TMP/rows" | sort -u)" = "generic" ]
check "every row is predicted" [ "$(cut -f3 "$TMP/rows" | sort -u)" = "-" ]
# the same run by preset name (row 7) and by its dimensions with architecture llama (row 8)
p7=$(awk -F'\t' '$1 == 7 {print $4}' "$TMP/rows")
p8=$(awk -F'\t' '$1 == 8 {print $4}' "$TMP/rows")
check "preset and dimensions predict alike ($p7 vs $p8)" [ "$p7" = "$p8" ]
# measured by hand: row 7: 128 x 4096 tokens / (2162 tokens/s/GPU x 64) = 3.78908418 s;
# row 3: 768 x 2048 / 39300 tokens/s = 40.0219847 s; row 1: 1.42 s as printed
check "tokens_per_s_per_gpu converted" [ "$(awk -F'\t' '$1 == 7 {print $5}' "$TMP/rows")" = "3.78908418" ]
check "tokens_per_s converted" [ "$(awk -F'\t' '$1 == 3 {print $5}' "$TMP/rows")" = "40.0219847" ]
check "step_time_s as printed" [ "$(awk -F'\t' '$1 == 1 {print $5}' "$TMP/rows")" = "1.42" ]
# each row's command reproduces its prediction
n=0
while IFS=$'\t' read -r row src why want meas cmd; do
  n=$((n + 1))
  got=$(eval "\"\$PLATEAU\" ${cmd#plateau } --format json" | python3 -c \
    'import json, sys; print("%.9g" % json.load(sys.stdin)["step_time_s"])')
  check "row $row: command gives $want s (got $got)" [ "$got" = "$want" ]
done <"$TMP/rows"
check "all commands run ($n)" [ "$n" -eq 10 ]
check "framework_flags reach the command" grep -q $'^3\t.*--sequence-parallel on' "$TMP/rows"
check "hardware_flags reach the command" grep -q $'^10\t.*--power-cap .500 W. --hbm .96 GiB.' "$TMP/rows"
check "cluster column reaches the command" grep -q $'^2\t.*--cluster vtrain-a100' "$TMP/rows"

# --explain and the text report
expect_ok validate "$OWN" --explain 8
check "explain: the architecture column's family" grep -q "architecture: llama (architecture column)" "$TMP/out"
check "explain: the metric" grep -q "metric: tokens_per_s_per_gpu -> step" "$TMP/out"
expect_ok validate "$OWN" --summary
check "summary: 10 rows predicted" grep -Eq "^own_runs +10 +10 +0 " "$TMP/out"

# memory: the peak_memory_gib column (row 10: 82.4 GiB); the others say what to add
expect_ok validate "$OWN" --quantity memory --format csv
check "memory: row 10 compared" grep -q '^"own_runs",10,.*"generic".*"peak_memory_gib (printed, GiB per GPU)"' "$TMP/out"
check "memory: row 1 asks for the column" grep -q '^"own_runs",1,.*fill the column peak_memory_gib' "$TMP/out"

# a CSV without a framework column: skipped with the column to add, or --framework names it
cut -d, -f1-25 "$OWN" | head -2 >"$TMP/nofw.csv"
check "fixture cut keeps the common columns" grep -q '^source,.*,precision$' "$TMP/nofw.csv"
printf '%s,architecture,step_time_s\n' "$(head -1 "$TMP/nofw.csv")" >"$TMP/nofw2.csv"
printf '%s,gpt,1.42\n' "$(sed -n 2p "$TMP/nofw.csv")" >>"$TMP/nofw2.csv"
expect_ok validate "$TMP/nofw2.csv" --format csv
check "no framework: the column to add" grep -q "column 'framework' is empty: name a framework preset" "$TMP/out"
expect_ok validate "$TMP/nofw2.csv" --framework megatron-lm --format csv
check "--framework stands for the column" grep -q '"generic",.*"framework: --framework megatron-lm' "$TMP/out"

# bad cells: a skip reason naming the column, never a crash, exit 0
H=$(head -1 "$OWN")
{
  echo "$H"
  sed -n 2p "$OWN" | sed 's/,Megatron-LM,gpt,/,Megatron-XL,gpt,/'
  sed -n 2p "$OWN" | sed 's/,Megatron-LM,gpt,/,Megatron-LM,,/'
  sed -n 2p "$OWN" | sed 's/,1\.42,/,,/'
  sed -n 2p "$OWN" | sed 's/,1\.42,/,1.4x,/'
  sed -n 2p "$OWN" | sed 's/,22B,22,48,6144,64,/,22B,22,,,,/'
  sed -n 2p "$OWN" | sed 's/,A100 80GB,8,8,/,A100 80GB,8,eight,/'
} >"$TMP/bad.csv"
expect_ok validate "$TMP/bad.csv" --format csv
check "unknown framework" grep -q "framework 'Megatron-XL' is no preset (plateau list frameworks" "$TMP/out"
check "dimensions without architecture" grep -q "add a column 'architecture' = gpt or llama" "$TMP/out"
check "missing metric" grep -q "no measured figure: fill one of the columns step_time_s" "$TMP/out"
check "non-numeric metric" grep -q "column 'step_time_s': '1.4x' is not a positive number" "$TMP/out"
check "unknown model without dimensions" grep -q "model '22B' is no preset (plateau list models" "$TMP/out"
check "non-numeric degree" grep -q "column 'tp': 'eight' is not a positive integer" "$TMP/out"

H0=$(head -1 "$OWN")
R1=$(sed -n 2p "$OWN")
# layout_flags: predict's layout flags the columns do not hold, read with predict's own table
# (pl_layout_flags_read); row 1 (22B, tp 8, full recompute) with each cell below
{
  printf '%s,layout_flags\n' "$H0"
  for cell in "--recompute-method uniform --recompute-layers 1" "--tp 2" "--recompute-method diag" \
    "--bogus 1" '"--recompute-modules core_attn,mlp"' "--first-stage-layers" "--pipeline-layout 'Et|t" \
    "--cp-comm-type all_gather" "--cp-comm-type ring"; do
    printf '%s,%s\n' "$R1" "$cell"
  done
} >"$TMP/layout.csv"
expect_ok validate "$TMP/layout.csv" --format csv
check "layout_flags reach the run and its command" \
  grep -q '^"layout",1,.*--recompute full --recompute-method uniform --recompute-layers 1 ' "$TMP/out"
check "layout_flags: a column's flag is refused" \
  grep -q "column 'layout_flags': --tp is column 'tp': write it there" "$TMP/out"
check "layout_flags: a bad value, predict's message" \
  grep -q "column 'layout_flags': --recompute-method: unknown method 'diag' (expected block|uniform)" "$TMP/out"
check "layout_flags: no such flag" grep -q "column 'layout_flags': '--bogus' is no flag it takes" "$TMP/out"
check "layout_flags: recompute modules against a full recompute column" \
  grep -q "column 'layout_flags': --recompute-modules needs recompute selective .*column 'recompute' says full" "$TMP/out"
check "layout_flags: a flag without value" grep -q "column 'layout_flags': the last flag has no value" "$TMP/out"
check "layout_flags: an open quote" grep -q "column 'layout_flags': a quote is not closed" "$TMP/out"
check "layout_flags: --cp-comm-type reaches the command (row 8)" \
  grep -q '^"layout",8,.* --cp-comm-type all_gather ' "$TMP/out"
check "layout_flags: --cp-comm-type bad value" \
  grep -q "column 'layout_flags': --cp-comm-type: unknown cp comm type 'ring' (expected p2p|all_gather|a2a|a2a+p2p)" "$TMP/out"

# vocab_padding: empty = the framework's (megatron-lm: 128 x tp; row 1's 51200 at tp 8 is
# 50 x 1024, kept), none = as stated, N = --make-vocab-size-divisible-by N: 300 x 8 = 2400,
# 51200 / 2400 = 21.3 -> 22 x 2400 = 52800; bad cells skipped naming the column
{
  printf '%s,vocab_padding\n' "$H0"
  for cell in "" none 300 x 0 -128 1.5; do
    printf '%s,%s\n' "$R1" "$cell"
  done
} >"$TMP/vocab.csv"
expect_ok validate "$TMP/vocab.csv" --format csv
check "vocab_padding empty: the framework's rule, 51200 kept" \
  grep -q '^"vocab",1,.*""vocab"":51200' "$TMP/out"
check "vocab_padding none: said in the notes" \
  grep -q '^"vocab",2,.*vocab as the model states it, unpadded (column vocab_padding).*""vocab"":51200' "$TMP/out"
check "vocab_padding 300: 52800" \
  grep -q '^"vocab",3,.*vocab 51200 padded to 52800 (Megatron: multiple of 300 tp).*""vocab"":52800' "$TMP/out"
for r in 4 5 6 7; do
  check "vocab_padding bad cell (row $r): skipped naming the column" \
    grep -q "^\"vocab\",$r,.*column 'vocab_padding': .* is neither none nor a whole number" "$TMP/out"
done

# the model column as predict --model takes it: a model file, its JSON text, a Hugging Face
# config.json (row 7 of the fixture: Llama 2 13B by preset name, no dimension columns)
python3 - "$OWN" "$PL_SOURCE_DIR" "$PL_TEST_DATA" >"$TMP/models.csv" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
h, r7 = rows[0], rows[7]
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(h)
def put(model, layers=""):
    r = list(r7)
    r[h.index("model")], r[h.index("layers")] = model, layers
    w.writerow(r)
f = sys.argv[2] + "/data/models/llama2-13b.json"
put(f)                                                  # 1: the preset's file
put(json.dumps(json.load(open(f))))                     # 2: its JSON text
put(sys.argv[3] + "/hf/Llama-2-7b-hf.json")             # 3: a Hugging Face config.json
put(sys.argv[2] + "/data/models/llama2-70b.json", "40")  # 4: a stated dimension disagrees
put('{"name": "x"')                                     # 5: JSON cut short
put("/nonexistent/model.json")                          # 6: no such file
PY
expect_ok validate "$OWN" --format csv
cp "$TMP/out" "$TMP/own.csv"
expect_ok validate "$TMP/models.csv" --format csv
same_as_7() { python3 -c 'import csv, sys
p = lambda f, row: [r["predicted_s"] for r in csv.DictReader(open(f)) if r["row"] == row][0]
sys.exit(not p(sys.argv[1], "7") or p(sys.argv[1], "7") != p(sys.argv[2], sys.argv[3]))' \
  "$TMP/own.csv" "$TMP/out" "$1"; }
check "model file predicts as the preset" same_as_7 1
check "model JSON predicts as the preset" same_as_7 2
check "model file: the note" grep -q "model: llama2-13b from file .*llama2-13b.json" "$TMP/out"
check "HF config.json predicts" python3 -c 'import csv, sys
r = [x for x in csv.DictReader(open(sys.argv[1])) if x["row"] == "3"][0]
sys.exit(not r["predicted_s"] or "from file" not in r["assumed"])' "$TMP/out"
check "model file: a stated dimension must agree" grep -q "^\"models\",4,.*column 'layers' = 40 but the preset has 80" "$TMP/out"
check "model JSON cut short: skipped naming the column" grep -q "^\"models\",5,.*column 'model': " "$TMP/out"
check "model file missing: skipped naming the column" grep -q "^\"models\",6,.*column 'model': " "$TMP/out"

# the generic rules are the loaders' engine: a published row rewritten as a user's own, with
# its loader's framework, hardware and layout settings as framework_flags / hardware_flags /
# layout_flags (from the row's command) and vocab_padding none (the command's model holds the
# vocabulary as the loader sized it: Megatron-Bridge keeps a set one, the MoE Model Zoo pads to
# 1187 x tp), predicts exactly as the loader does; Megatron-Bridge's rows carry pipeline
# layouts, uneven stages, recompute modules, CUDA-graph scopes, MTP and offload
expect_ok validate "$V/nemo_2407_performance_summary.csv" "$V/mlperf_gpt3.csv" \
  "$V/torchtitan_performance.csv" "$V/megatron_bridge_performance_summary.csv" \
  "$V/megatron_moe_modelzoo.csv" --format csv
python3 - "$TMP/out" >"$TMP/rewritten.csv" <<'PY'
import csv, json, shlex, sys
hw = {"power-cap", "hbm", "hbm-bandwidth", "nic-bandwidth", "sharp", "gpus-per-node", "nccl-min-channels"}
lay = {"gpus", "tp", "pp", "cp", "vp", "seq", "mbs", "gbs", "shard", "shard-group", "dtype", "schedule",
       "recompute", "ep", "etp", "moe-imbalance", "moe-dispatch"}
cols = ("source,model,layers,hidden,heads,kv_heads,ffn_hidden,vocab,architecture,seq_len,gpu,num_gpus,"
        "tp,pp,cp,vp,ep,etp,sharding,shard_group,recompute,micro_batch,global_batch,precision,framework,"
        "cluster,moe_imbalance,moe_dispatch,framework_flags,hardware_flags,layout_flags,vocab_padding,"
        "step_time_s,"
        "predicted_by_loader").split(",")
w = csv.DictWriter(sys.stdout, cols, lineterminator="\n")
w.writeheader()
for r in csv.DictReader(open(sys.argv[1])):
    if not r["command"]:
        continue
    a = shlex.split(r["command"])[2:]
    f = [(a[i][2:], a[i + 1]) for i in range(0, len(a), 2)]
    k = [n for n, _ in f]
    fd = dict(f)
    if "framework" not in k:
        continue
    i = k.index("framework")
    own = [n for n in k[:i] if n not in lay | hw | {"model", "gpu", "cluster"}]
    if fd["schedule"] == "gpipe":
        own.append("schedule")
    d = {"model": fd["model"]}
    if fd["model"].startswith("{"):
        m = json.loads(fd["model"])
        flags = {n: v for n, v in m.items() if isinstance(v, bool)}
        on = {n for n, v in flags.items() if v}
        fam = None
        if (m["mlp"], m["pos"], m["norm"]) == ("gelu", "learned", "layer") and \
                on == {"tied_embeddings", "linear_bias", "dropout"}:
            fam = "gpt"
        elif (m["mlp"], m["pos"], m["norm"]) == ("swiglu", "rotary", "rms") and not on:
            fam = "llama"
        if fam is not None and not set(m) - set(flags) - {
                "name", "mlp", "pos", "norm", "layers", "hidden", "heads", "kv_heads", "head_dim",
                "ffn_hidden", "vocab", "seq_len", "max_positions"} and \
                m["head_dim"] * m["heads"] == m["hidden"]:
            d = {"model": "own " + m["name"], "architecture": fam}
            d.update({n: m[n] for n in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab")})
        # else the model column keeps the command's JSON, as predict --model reads it
    gpu = {"a100-80g": "A100 80GB", "a100-40g": "A100 40GB"}.get(fd["gpu"], fd["gpu"])
    d.update(source="my lab", seq_len=fd["seq"], gpu=gpu, num_gpus=fd["gpus"], tp=fd["tp"],
             pp=fd["pp"], cp=fd["cp"], vp=fd["vp"], sharding=fd["shard"], recompute=fd["recompute"],
             shard_group=fd.get("shard-group", ""),
             micro_batch=fd["mbs"], global_batch=fd["gbs"], precision=fd["dtype"],
             framework=fd["framework"], cluster=fd["cluster"], step_time_s=r["measured_s"],
             framework_flags=" ".join("--%s %s" % (n, shlex.quote(v)) for n, v in f[i + 1:]),
             hardware_flags=" ".join("--%s %s" % (n, shlex.quote(v)) for n, v in f if n in hw),
             layout_flags=" ".join("--%s %s" % (n, shlex.quote(fd[n])) for n in own),
             predicted_by_loader=r["predicted_s"],
             # the command's model holds the vocabulary as the loader sized it (padded or
             # kept as the release's setup keeps it: Megatron-Bridge): taken as stated
             vocab_padding="none")
    if "ep" in fd:
        d.update(ep=fd["ep"], etp=fd["etp"], moe_imbalance=fd["moe-imbalance"],
                 moe_dispatch=fd["moe-dispatch"])
    w.writerow(d)
PY
n_rw=$(($(wc -l <"$TMP/rewritten.csv") - 1))
check "published rows rewritten ($n_rw)" [ "$n_rw" -ge 250 ]
n_lay=$(python3 -c 'import csv, sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["layout_flags"]))' \
  "$TMP/rewritten.csv")
check "rewritten rows with layout_flags ($n_lay)" [ "$n_lay" -ge 100 ]
n_json=$(python3 -c 'import csv, sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["model"].startswith("{")))' \
  "$TMP/rewritten.csv")
check "rewritten rows with the model as JSON ($n_json)" [ "$n_json" -ge 20 ]
expect_ok validate "$TMP/rewritten.csv" --format csv
python3 - "$TMP/rewritten.csv" "$TMP/out" >"$TMP/diff" <<'PY'
import csv, sys
for a, b in zip(csv.DictReader(open(sys.argv[1])), csv.DictReader(open(sys.argv[2]))):
    if b["source"] != "generic" or b["predicted_s"] != a["predicted_by_loader"]:
        print(b["row"], a["predicted_by_loader"], b["predicted_s"], b["skipped_reason"])
PY
check "every rewritten row predicts as its loader ($(wc -l <"$TMP/diff") differ)" [ ! -s "$TMP/diff" ]

# built-in sources keep their loaders: no published row is read as a generic one
expect_ok validate "$V/korthikanti2022_activation_recompute.csv" "$V/torchtitan_performance.csv" --format csv
check "built-in rows keep their source" grep -q '"korthikanti"' "$TMP/out"
check "no built-in row is generic" bash -c "! grep -q '\"generic\"' '$TMP/out'"
finish
