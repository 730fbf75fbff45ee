#!/usr/bin/env bash
# `plateau validate --by dataset|gpu|framework|dtype`: the summary grouped
# another way, in text, CSV and JSON, and its bad values.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
TWO=("$V/mtnlg530b_paper.csv" "$V/megatron_lm_readme_2020.csv")

# CSV: one line per group. MT-NLG's 3 rows ran Megatron-DeepSpeed (preset deepspeed), the 2020
# README's 12 rows Megatron-LM; every row of both is predicted.
expect_ok validate "${TWO[@]}" --by framework --format csv
check "csv header" grep -q '^by,group,rows,predicted,skipped,mape_pct,median_ape_pct,max_ape_pct,bias_pct,worst_dataset,worst_row$' "$TMP/out"
check "deepspeed group: 3 rows, 3 predicted" grep -q '^"framework","deepspeed",3,3,0,' "$TMP/out"
check "megatron-lm group: 12 rows, 12 predicted" grep -q '^"framework","megatron-lm",12,12,0,' "$TMP/out"
check "two groups" test "$(grep -c '^"framework"' "$TMP/out")" -eq 2

# A group that holds exactly one dataset has that dataset's figures (count, mean, median,
# worst, bias): the grouping summarizes as the per-dataset table does.
expect_ok validate "$V/mtnlg530b_paper.csv" --summary
grep '^mtnlg530b_paper ' "$TMP/out" | awk '{print $2,$3,$4,$5,$6,$7,$8}' >"$TMP/ds"
expect_ok validate "$V/mtnlg530b_paper.csv" --summary --by framework
check "text table is headed by the key" grep -q '^framework  *rows  *pred' "$TMP/out"
grep '^deepspeed ' "$TMP/out" | awk '{print $2,$3,$4,$5,$6,$7,$8}' >"$TMP/grp"
check "group line = dataset line" diff "$TMP/ds" "$TMP/grp"
check "overall line kept" grep -q '^all ' "$TMP/out"

# by GPU: the 2020 README's rows ran on DGX-2 V100 and DGX A100 (40 GB): the group counts add
# up to the rows read
expect_ok validate "${TWO[@]}" --by gpu --format csv
check "a v100 group" grep -q '^"gpu","v100",' "$TMP/out"
check "groups add up to 15 rows" \
  test "$(awk -F, 'NR > 1 {n += $3} END {print n}' "$TMP/out")" -eq 15

# by dtype: NeMo's rows are FP8; the rows skipped before their run was built (SFT, LoRA, the
# B200 rows whose degrees do not multiply out) have no precision: group "unknown"
expect_ok validate "$V/nemo_2407_performance_summary.csv" --by dtype --format csv
check "an fp8 group" grep -q '^"dtype","fp8",' "$TMP/out"
check "dtype groups add up to 71 rows" \
  test "$(awk -F, 'NR > 1 {n += $3} END {print n}' "$TMP/out")" -eq 71

# JSON: the whole document plus "by" and "groups"
expect_ok validate "${TWO[@]}" --by dataset --format json
check "json by" grep -q '"by": "dataset"' "$TMP/out"
check "json groups" grep -q '"groups": \[' "$TMP/out"
check "json rows kept" grep -q '"rows": \[' "$TMP/out"
check "json rows name their framework" grep -q '"framework": "deepspeed"' "$TMP/out"

# bad values and combinations
expect_fail 1 "--by: group 'model' unknown \(known: dataset, gpu, framework, dtype\)" -- \
  validate "$V/opt175b_paper.csv" --by model
expect_fail 2 "--by: not with --scaling" -- validate "$V/opt175b_paper.csv" --by gpu --scaling
expect_fail 2 "--explain: not with --by" -- \
  validate "$V/opt175b_paper.csv" --explain 1 --by gpu
expect_fail 2 "option '--by' needs a value|--by" -- validate "$V/opt175b_paper.csv" --by
finish
