#!/usr/bin/env bash
# The validation datasets added in session 27 (olmo_core_readme, nemo_automodel_performance,
# tinyllama_readme, nemo_launcher_examples; all read by the generic rules of
# src/validate/source_generic.c) with one cell corrupted: the row is skipped with a reason
# naming the column and the value (data/validation/README.md "Your own runs": bad cells are
# skipped, the others still predicted), never a crash, a NaN or a silent prediction; a file
# whose layout is broken (a column missing, a row short) is refused with one line, exit 1.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"

# corrupt SRC DST COLUMN VALUE: row 1's COLUMN set to VALUE; VALUE __DROP__ removes the
# column from every row, __SHORT__ drops row 1's last field
corrupt() {
  python3 - "$@" <<'PY'
import csv, sys
src, dst, col, val = sys.argv[1:5]
rows = list(csv.reader(open(src, newline="")))
if val == "__DROP__":
    i = rows[0].index(col)
    rows = [r[:i] + r[i + 1:] for r in rows]
elif val == "__SHORT__":
    rows[1] = rows[1][:-1]
else:
    rows[1][rows[0].index(col)] = val
csv.writer(open(dst, "w", newline="")).writerows(rows)
PY
}

# row1 FILE: row 1's error_pct and skipped_reason (tab-separated) from validate --format csv;
# also checks no cell of any row reads nan or inf
row1() {
  python3 - "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
bad = [k for r in rows for k, v in r.items() if k != "command" and v and v.strip().lower() in ("nan", "-nan", "inf", "-inf")]
print("%s\t%s\t%d\t%s" % (rows[0]["error_pct"] or "-", rows[0]["skipped_reason"] or "-", len(rows), ",".join(bad) or "-"))
PY
}

# skipped DATASET COLUMN VALUE PATTERN: validate exits 0, row 1 is skipped with a reason
# matching PATTERN, the other rows are all still there, and no figure is nan/inf
skipped() {
  local ds=$1 col=$2 val=$3 pattern=$4
  corrupt "$V/$ds.csv" "$TMP/$ds.csv" "$col" "$val"
  expect_ok validate "$TMP/$ds.csv" --format csv
  local got rows
  got=$(row1 "$TMP/out")
  rows=$(( $(grep -c '' "$V/$ds.csv") - 1 ))
  check "$ds $col='$val': row 1 skipped with /$pattern/ (got: $got)" \
    bash -c '[ "$(cut -f1 <<<"$1")" = "-" ] && cut -f2 <<<"$1" | grep -qE -- "$2"' _ "$got" "$pattern"
  check "$ds $col='$val': all $rows rows reported" [ "$(cut -f3 <<<"$got")" = "$rows" ]
  check "$ds $col='$val': no nan/inf cell" [ "$(cut -f4 <<<"$got")" = "-" ]
}

# refused DATASET COLUMN VALUE PATTERN: validate exits 1 with one stderr line matching PATTERN
refused() {
  local ds=$1 col=$2 val=$3 pattern=$4
  corrupt "$V/$ds.csv" "$TMP/$ds.csv" "$col" "$val"
  expect_fail 1 "$pattern" -- validate "$TMP/$ds.csv"
  check "$ds $col '$val': one stderr line" [ "$(grep -c '' "$TMP/err")" -eq 1 ]
}

for ds in olmo_core_readme nemo_automodel_performance tinyllama_readme nemo_launcher_examples; do
  # the unmodified dataset predicts with no nan/inf anywhere
  expect_ok validate "$V/$ds.csv" --format csv
  check "$ds: no nan/inf cell" [ "$(row1 "$TMP/out" | cut -f4)" = "-" ]

  skipped "$ds" num_gpus -8 "column 'num_gpus': '-8' is not a positive integer"
  skipped "$ds" num_gpus 0 "column 'num_gpus': '0' is not a positive integer"
  skipped "$ds" num_gpus abc "column 'num_gpus': 'abc' is not a positive integer"
  skipped "$ds" num_gpus nan "column 'num_gpus': 'nan' is not a positive integer"
  skipped "$ds" num_gpus 1e99 "column 'num_gpus': '1e99' is not a positive integer"
  skipped "$ds" micro_batch -1 "column 'micro_batch': '-1' is not a positive integer"
  skipped "$ds" global_batch 0 "column 'global_batch': '0' is not a positive integer"
  skipped "$ds" global_batch 7 "global batch 7 is not divisible by dp\*mbs"
  skipped "$ds" seq_len -4096 "column 'seq_len': '-4096' is not a positive integer"
  skipped "$ds" tp -1 "column 'tp': '-1' is not a positive integer"
  skipped "$ds" ep -3 "column 'ep': '-3' is not a positive integer"
  skipped "$ds" vp 0 "column 'vp': '0' is not a positive integer"
  skipped "$ds" dp 99999999999 "dp 99999999999 x tp [0-9]+ x pp [0-9]+ x cp [0-9]+ != [0-9]+ GPUs"
  skipped "$ds" precision fp7 "precision 'fp7' not understood"
  skipped "$ds" recompute maybe "recompute 'maybe' not understood"
  skipped "$ds" sharding zz "sharding 'zz' not understood"
  skipped "$ds" framework bogus "framework 'bogus' is no preset"
  skipped "$ds" gpu Z100 "gpu 'Z100' has no preset mapping"
  skipped "$ds" cluster nocluster "cluster 'nocluster' is no preset"
  skipped "$ds" model '{' "column 'model': inline model JSON: malformed JSON"
  skipped "$ds" framework_flags "--bogus 1" "column 'framework_flags': '--bogus' is no flag it takes"
  # the flags added in session 27 reach the row's checks (run_opts.h)
  skipped "$ds" framework_flags "--delay-wgrad maybe" \
    "column 'framework_flags': --delay-wgrad: unknown value 'maybe' \(expected on\|off\)"
  skipped "$ds" framework_flags "--eager-cross-entropy 2" \
    "column 'framework_flags': --eager-cross-entropy: unknown value '2' \(expected on\|off\)"
  skipped "$ds" hardware_flags "--hbm -5" "column 'hardware_flags': --hbm: '-5' is not a memory size above 0"
  skipped "$ds" step_time_s -1 "column 'step_time_s': '-1' is not a positive number"
  skipped "$ds" step_time_s nan "column 'step_time_s': 'nan' is not a positive number"

  refused "$ds" num_gpus __DROP__ "no column 'num_gpus' \(not the data/validation layout"
  refused "$ds" gpu __DROP__ "no column 'gpu' \(not the data/validation layout"
  refused "$ds" source __DROP__ "no column 'source' \(not the data/validation layout"
  refused "$ds" num_gpus __SHORT__ "line 2: [0-9]+ fields, the header has [0-9]+"
done

# the rows that publish a tokens/s figure (not the AutoModel page, whose step_time_s is printed)
for ds in olmo_core_readme tinyllama_readme nemo_launcher_examples; do
  skipped "$ds" tokens_per_s_per_gpu -5 "column 'tokens_per_s_per_gpu': '-5' is not a positive number"
  skipped "$ds" tokens_per_s_per_gpu abc "column 'tokens_per_s_per_gpu': 'abc' is not a positive number"
  skipped "$ds" tokens_per_s_per_gpu inf "column 'tokens_per_s_per_gpu': 'inf' is not a positive number"
done

# the AutoModel page's MoE columns
skipped nemo_automodel_performance moe_imbalance -1 "column 'moe_imbalance': '-1' is not a number >= 1"
skipped nemo_automodel_performance moe_imbalance nan "column 'moe_imbalance': 'nan' is not a number >= 1"
skipped nemo_automodel_performance moe_dispatch zzz "column 'moe_dispatch': 'zzz' is none of alltoall"
skipped nemo_automodel_performance layout_flags "--zz" "column 'layout_flags': '--zz' is no flag it takes"
# the launcher table's vocab_padding column
skipped nemo_launcher_examples vocab_padding zz "column 'vocab_padding': 'zz' is neither none nor a whole number"
skipped nemo_launcher_examples vocab_padding 0 "column 'vocab_padding': '0' is neither none nor a whole number"
finish
