#!/usr/bin/env bash
# The validation datasets added in session 27 (olmo_core_readme, nemo_automodel_performance,
# tinyllama_readme, nemo_launcher_examples; all read by the generic rules of
# src/validate/source_generic.c) with one cell corrupted: the row is skipped with a reason
# naming the column and the value (data/validation/README.md "Your own runs": bad cells are
# skipped, the others still predicted), never a crash, a NaN or a silent prediction; a file
# whose layout is broken (a column missing, a row short) is refused with one line, exit 1.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
command -v python3 >/dev/null || { echo "python3 not found: skipped"; exit 77; }

# cases: kind (skip: row 1 skipped; refuse: the file refused), dataset, column, value
# (__DROP__ removes the column from every row, __SHORT__ drops row 1's last field) and the
# pattern (grep -E) of the skip reason or of the one stderr line
cases=()
add() { cases+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4"$'\t'"$5"); }
for ds in olmo_core_readme nemo_automodel_performance tinyllama_readme nemo_launcher_examples; do
  add skip "$ds" num_gpus -8 "column 'num_gpus': '-8' is not a positive integer"
  add skip "$ds" num_gpus 0 "column 'num_gpus': '0' is not a positive integer"
  add skip "$ds" num_gpus abc "column 'num_gpus': 'abc' is not a positive integer"
  add skip "$ds" num_gpus nan "column 'num_gpus': 'nan' is not a positive integer"
  add skip "$ds" num_gpus 1e99 "column 'num_gpus': '1e99' is not a positive integer"
  add skip "$ds" micro_batch -1 "column 'micro_batch': '-1' is not a positive integer"
  add skip "$ds" global_batch 0 "column 'global_batch': '0' is not a positive integer"
  add skip "$ds" global_batch 7 "global batch 7 is not divisible by dp\*mbs"
  add skip "$ds" seq_len -4096 "column 'seq_len': '-4096' is not a positive integer"
  add skip "$ds" tp -1 "column 'tp': '-1' is not a positive integer"
  add skip "$ds" ep -3 "column 'ep': '-3' is not a positive integer"
  add skip "$ds" vp 0 "column 'vp': '0' is not a positive integer"
  add skip "$ds" dp 99999999999 "dp 99999999999 x tp [0-9]+ x pp [0-9]+ x cp [0-9]+ != [0-9]+ GPUs"
  add skip "$ds" precision fp7 "precision 'fp7' not understood"
  add skip "$ds" recompute maybe "recompute 'maybe' not understood"
  add skip "$ds" sharding zz "sharding 'zz' not understood"
  add skip "$ds" framework bogus "framework 'bogus' is no preset"
  add skip "$ds" gpu Z100 "gpu 'Z100' has no preset mapping"
  add skip "$ds" cluster nocluster "cluster 'nocluster' is no preset"
  add skip "$ds" model '{' "column 'model': inline model JSON: malformed JSON"
  add skip "$ds" framework_flags "--bogus 1" "column 'framework_flags': '--bogus' is no flag it takes"
  # the flags added in session 27 reach the row's checks (src/model/framework_flags.c)
  add skip "$ds" framework_flags "--delay-wgrad maybe" \
    "column 'framework_flags': --delay-wgrad: unknown value 'maybe' \(expected on\|off\)"
  add skip "$ds" framework_flags "--eager-cross-entropy 2" \
    "column 'framework_flags': --eager-cross-entropy: unknown value '2' \(expected on\|off\)"
  add skip "$ds" hardware_flags "--hbm -5" "column 'hardware_flags': --hbm: '-5' is not a memory size above 0"
  add skip "$ds" step_time_s -1 "column 'step_time_s': '-1' is not a positive number"
  add skip "$ds" step_time_s nan "column 'step_time_s': 'nan' is not a positive number"
  add refuse "$ds" num_gpus __DROP__ "no column 'num_gpus' \(not the data/validation layout"
  add refuse "$ds" gpu __DROP__ "no column 'gpu' \(not the data/validation layout"
  add refuse "$ds" source __DROP__ "no column 'source' \(not the data/validation layout"
  add refuse "$ds" num_gpus __SHORT__ "line 2: [0-9]+ fields, the header has [0-9]+"
done
# the rows that publish a tokens/s figure (not the AutoModel page, whose step_time_s is printed
# and read first: data/validation/README.md 'the first non-empty of')
for ds in olmo_core_readme tinyllama_readme nemo_launcher_examples; do
  add skip "$ds" tokens_per_s_per_gpu -5 "column 'tokens_per_s_per_gpu': '-5' is not a positive number"
  add skip "$ds" tokens_per_s_per_gpu abc "column 'tokens_per_s_per_gpu': 'abc' is not a positive number"
  add skip "$ds" tokens_per_s_per_gpu inf "column 'tokens_per_s_per_gpu': 'inf' is not a positive number"
done
# the AutoModel page's MoE columns, the launcher table's vocab_padding column
add skip nemo_automodel_performance moe_imbalance -1 "column 'moe_imbalance': '-1' is not a number >= 1"
add skip nemo_automodel_performance moe_imbalance nan "column 'moe_imbalance': 'nan' is not a number >= 1"
# above the layout's 1024 (layout.c MOE_IMBALANCE_MAX): predict's own message (the column had a cap
# of 1000 of its own that called 1001-1024 'not a number >= 1')
add skip nemo_automodel_performance moe_imbalance 1e6 "layout: moe imbalance 1e\+06 must be between 1 \(balanced\) and 1024"
add skip nemo_automodel_performance moe_dispatch zzz "column 'moe_dispatch': 'zzz' is none of alltoall"
add skip nemo_automodel_performance layout_flags "--zz" "column 'layout_flags': '--zz' is no flag it takes"
# Megatron-Core's rule for the session-27 flag (transformer_config.py: delay_wgrad_compute needs
# overlap_moe_expert_parallel_comm), in a row as in predict
add skip nemo_automodel_performance framework_flags "--kernels fused --delay-wgrad on" \
  "delay wgrad needs the ep comm overlap"
add skip nemo_launcher_examples vocab_padding zz "column 'vocab_padding': 'zz' is neither none nor a whole number"
add skip nemo_launcher_examples vocab_padding 0 "column 'vocab_padding': '0' is neither none nor a whole number"

# write every corrupted file at once: $TMP/case_N.csv
printf '%s\n' "${cases[@]}" >"$TMP/cases.tsv"
python3 - "$TMP" "$V" <<'PY'
import csv, sys
tmp, vdir = sys.argv[1:3]
for n, line in enumerate(open(tmp + "/cases.tsv").read().splitlines()):
    kind, ds, col, val, _ = line.split("\t")
    rows = list(csv.reader(open("%s/%s.csv" % (vdir, ds), newline="")))
    if val == "__DROP__":
        i = rows[0].index(col)
        rows = [r[:i] + r[i + 1:] for r in rows]
    elif val == "__SHORT__":
        rows[1] = rows[1][:-1]
    else:
        rows[1][rows[0].index(col)] = val
    csv.writer(open("%s/case_%d.csv" % (tmp, n), "w", newline="")).writerows(rows)
PY

# the unmodified datasets and every skip case: exit 0, the CSV report kept for the check below
for ds in olmo_core_readme nemo_automodel_performance tinyllama_readme nemo_launcher_examples; do
  expect_ok validate "$V/$ds.csv" --format csv
  cp "$TMP/out" "$TMP/clean_$ds.out"
done
n=0
while IFS=$'\t' read -r kind ds col val pattern; do
  if [ "$kind" = skip ]; then
    expect_ok validate "$TMP/case_$n.csv" --format csv
    cp "$TMP/out" "$TMP/case_$n.out"
  else
    expect_fail 1 "$pattern" -- validate "$TMP/case_$n.csv"
    check "$ds $col '$val': one stderr line" [ "$(grep -c '' "$TMP/err")" -eq 1 ]
  fi
  n=$((n + 1))
done <"$TMP/cases.tsv"

# per report: row 1's error_pct and skipped_reason, the row count, the cells reading nan/inf
python3 - "$TMP" "$V" >"$TMP/rows.tsv" <<'PY'
import csv, os, sys
tmp, vdir = sys.argv[1:3]
def summary(path):
    rows = list(csv.DictReader(open(path, newline="")))
    bad = [k for r in rows for k, v in r.items()
           if k != "command" and v and v.strip().lower() in ("nan", "-nan", "inf", "-inf")]
    r1 = rows[0] if rows else {}
    return "%s\t%s\t%d\t%s" % (r1.get("error_pct") or "-", r1.get("skipped_reason") or "-",
                               len(rows), ",".join(bad) or "-")
for ds in ("olmo_core_readme", "nemo_automodel_performance", "tinyllama_readme",
           "nemo_launcher_examples"):
    print("clean_%s\t%s" % (ds, summary("%s/clean_%s.out" % (tmp, ds))))
for n, line in enumerate(open(tmp + "/cases.tsv").read().splitlines()):
    if os.path.exists("%s/case_%d.out" % (tmp, n)):
        print("case_%d\t%s" % (n, summary("%s/case_%d.out" % (tmp, n))))
PY
for ds in olmo_core_readme nemo_automodel_performance tinyllama_readme nemo_launcher_examples; do
  check "$ds: no nan/inf cell" [ "$(awk -F'\t' -v k="clean_$ds" '$1 == k {print $5}' "$TMP/rows.tsv")" = "-" ]
done
n=0
while IFS=$'\t' read -r kind ds col val pattern; do
  if [ "$kind" = skip ]; then
    IFS=$'\t' read -r _ err why nrows bad < <(awk -F'\t' -v k="case_$n" '$1 == k' "$TMP/rows.tsv")
    want=$(($(grep -c '' "$V/$ds.csv") - 1))
    check "$ds $col='$val': row 1 skipped with /$pattern/ (got '$err' '$why')" \
      bash -c '[ "$1" = "-" ] && grep -qE -- "$3" <<<"$2"' _ "$err" "$why" "$pattern"
    check "$ds $col='$val': all $want rows reported ($nrows)" [ "$nrows" = "$want" ]
    check "$ds $col='$val': no nan/inf cell ($bad)" [ "$bad" = "-" ]
  fi
  n=$((n + 1))
done <"$TMP/cases.tsv"

# and a row that states both (AutoModel row 1 with no recomputation, memory aside) is predicted,
# its command carrying the flags and giving the row's prediction
python3 - "$V/nemo_automodel_performance.csv" "$TMP/dw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h, r = rows[0], list(rows[1])
r[h.index("framework_flags")] = "--kernels fused --ep-comm-overlap on --delay-wgrad on"
r[h.index("recompute")] = "none"
r[h.index("hardware_flags")] = "--hbm '1 TiB'"
csv.writer(open(sys.argv[2], "w", newline="")).writerows([h, r])
PY
# moe_imbalance up to the layout's 1024 is read, as predict --moe-imbalance 1024 is
# (row 2: row 1 runs --fsdp-ga-nosync on since session 29 and at 1024 no longer fits in 80 GiB)
python3 - "$V/nemo_automodel_performance.csv" "$TMP/mi.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
rows[2][rows[0].index("moe_imbalance")] = "1024"
csv.writer(open(sys.argv[2], "w", newline="")).writerows([rows[0], rows[2]])
PY
expect_ok validate "$TMP/mi.csv" --format csv
check "moe_imbalance 1024 predicted (the layout's bound)" \
  bash -c 'python3 -c "import csv, sys; r = list(csv.DictReader(open(sys.argv[1])))[0]; sys.exit(not r[\"error_pct\"])" "$1"' _ "$TMP/out"
check "and its command states it" grep -q -- '--moe-imbalance 1024' "$TMP/out"

expect_ok validate "$TMP/dw.csv" --format json
read -r pred cmd < <(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["rows"][0]
print("%.9g" % (r["predicted"] or 0), r["command"] or "")' "$TMP/out")
check "delay-wgrad row predicted ($pred s)" python3 -c "import sys; sys.exit(not float('$pred') > 0)"
check "its command carries --ep-comm-overlap on --delay-wgrad on" \
  bash -c '[[ "$1" == *"--ep-comm-overlap on"*"--delay-wgrad on"* || "$1" == *"--delay-wgrad on"*"--ep-comm-overlap on"* ]]' _ "$cmd"
got=$(eval "\"\$PLATEAU\" ${cmd#plateau } --format json" | python3 -c \
  'import json, sys; d = json.load(sys.stdin); print("%.9g" % d["step_time_s"], d["framework"]["delay_wgrad_compute"])')
check "the command gives the row's $pred s with delay_wgrad_compute true (got $got)" [ "$got" = "$pred True" ]
finish
