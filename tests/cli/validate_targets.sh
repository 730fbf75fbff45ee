#!/usr/bin/env bash
# Issue 17's accuracy targets that are met stay met ("Done when": NeMo 24.07 dense pre-training
# rows <= 10 % (met again since session 24: see below), MLPerf GPT-3 <= 10 % (a
# regression bound at 10.5 % in session 23, the target again since session 24), vTrain single- and multi-node <= 10 %, and no existing dataset worse
# than the issue's start: Korthikanti <= 5 %, SC21 Table 1 <= 10 %, llm-foundry BF16 <= 10 %), and issue 18's SC21 ZeRO-3 rows 11-16 <= 15 %.
# The regression guard (validate_accuracy.sh) holds whole datasets to their baseline within 1
# point; the targets are on subsets of rows it cannot see, and on fixed limits. Each subset is
# named by the rows of its source table (docs/accuracy.md "Bias per dataset"). vTrain
# multi-node (target 10 %) is checked since it was met in session 9 (9.96 %, helper vtr9's
# DeepSpeed pipeline exchange): a thin margin, so a change that moves it past 10 % fails here.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"

if ! command -v python3 >/dev/null; then
  echo "python3 not found: skipped"
  exit 77
fi

expect_ok validate "$V/korthikanti2022_activation_recompute.csv" "$V/megatron_sc21_narayanan.csv" \
  "$V/llmfoundry_mpt_benchmarks.csv" "$V/nemo_2407_performance_summary.csv" "$V/mlperf_gpt3.csv" \
  "$V/vtrain_ground_truth_single.csv" "$V/vtrain_ground_truth_multi.csv" --format json
cp "$TMP/out" "$TMP/rows.json"

# mape DATASET ROWS DTYPE: mean |error| (percent) of DATASET's predicted rows, those numbered in
# ROWS ("a-b,c-d", or "all") and of layout dtype DTYPE ("any" for all), and how many there are.
mape() {
  python3 - "$TMP/rows.json" "$1" "$2" "$3" <<'EOF'
import json, sys
doc, ds, ranges, dtype = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
def wanted(n):
    if ranges == "all":
        return True
    return any(int(a) <= n <= int(b) for a, b in (r.split("-") for r in ranges.split(",")))
errs = [abs(r["error"]) for r in doc["rows"]
        if r["dataset"] == ds and r["error"] is not None and wanted(r["row"])
        and (dtype == "any" or (r["layout"] or {}).get("dtype") == dtype)]
print(len(errs), "%.2f" % (sum(errs) / len(errs)) if errs else "nan")
EOF
}

# target NAME DATASET ROWS DTYPE MIN_ROWS LIMIT: the subset has at least MIN_ROWS predicted rows
# (a row turned into a skip cannot hide a miss) and a mean |error| of at most LIMIT percent.
target() {
  local got n m
  got=$(mape "$2" "$3" "$4")
  n=${got% *}
  m=${got#* }
  echo "$1: $n rows, mean |error| $m % (target <= $6 %)"
  check "$1: at least $5 rows predicted (got $n)" [ "$n" -ge "$5" ]
  check "$1: mean |error| $m % <= $6 %" python3 -c "import sys; sys.exit(not float('$m') <= $6)"
}

target "Korthikanti et al. 2022" korthikanti2022_activation_recompute all any 9 5
target "SC21 Table 1 (rows 1-10)" megatron_sc21_narayanan 1-10 any 10 10
# issue 18: Table 2's DeepSpeed ZeRO-3 rows (GPT-3 175B / 530B, tp 1 pp 1, 384-2,240 A100)
target "SC21 ZeRO-3 (rows 11-16)" megatron_sc21_narayanan 11-16 any 6 15
target "llm-foundry BF16 rows" llmfoundry_mpt_benchmarks all bf16 207 10
# NeMo 24.07 (issue 17's 10 %): session 24 (gaf24) switched on Megatron-Core's gradient
# accumulation fusion in the nemo and megatron-core presets, as NeMo's launcher configs
# (gradient_accumulation_fusion True), NeMo 2's GPTConfig and Megatron-LM's arguments.py say
# (docs/accuracy.md "Session 24 (helper gaf24)"): without the per-micro-batch fp32 add pass the
# presets had charged the table went 5.48 -> 11.42 %, every row faster; fp8acc24's measured FP8
# per-tile cost on the split-accumulator GEMMs (dgrad, wgrad; Transformer Engine _2X_ACC_*) then
# took it to 8.61 %, so the target holds again.
target "NeMo 24.07 pre-training table (rows 1-12, 19-30, 37-48)" nemo_2407_performance_summary \
  1-12,19-30,37-48 any 36 10
# MLPerf GPT-3: session 23 (sharp23) read that no GPT-3 / 405B submission ran IB SHARP (NCCL's
# CollNet needs NCCL_COLLNET_ENABLE=1, which only the enroot hook for SBATCH_NETWORK=sharp writes;
# no gpt3 config sets it; docs/accuracy.md "Session 23 (helper sharp23)"), which took the dataset
# from 6.95 to 10.21 % and this bound to a regression bound at 10.5 %. Session 24's gradient
# accumulation fusion (NVIDIA's gpt3 conf/custom.yaml: gradient_accumulation_fusion True) takes it
# to 7.61 %: issue 17's 10 % again.
target "MLPerf Training GPT-3 175B" mlperf_gpt3 all any 48 10
target "vTrain single-node" vtrain_ground_truth_single all any 1440 10
target "vTrain multi-node" vtrain_ground_truth_multi all any 109 10

# The subsets are what their names say: rows 13-18 of NeMo are fine-tuning (skipped), so the
# pre-training ranges hold no other table's rows; llm-foundry's FP8 rows are outside the BF16 set.
check "NeMo: rows 13-18 are not predicted (fine-tuning)" \
  [ "$(mape nemo_2407_performance_summary 13-18 any | cut -d' ' -f1)" -eq 0 ]
check "llm-foundry: FP8 rows exist apart from the BF16 ones" \
  [ "$(mape llmfoundry_mpt_benchmarks all fp8 | cut -d' ' -f1)" -ge 1 ]

finish
