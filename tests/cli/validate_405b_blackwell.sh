#!/usr/bin/env bash
# Issue 19's target for the Llama 3.1 405B rows of Megatron-Bridge on GB200/GB300 (mean |error|
# <= 10 %, met in session 6 by the measured GB200 GEMM rates, docs/accuracy.md "Issue 19,
# session 6") stays met, and every one of the 32 rows stays predicted (a row turned into a skip,
# e.g. by a memory change, cannot hide a miss). The same figure as
# scripts/validate-moe-groups.py's "Llama 3.1 405B GB200/GB300" line.
# Limit 11 % since session 7: Transformer Engine runs cuDNN's fused attention on Blackwell
# (get_attention_backend, compute capability >= 9.0; docs/step-model.md 2.2), estimated at 0.51 /
# 0.44 of peak against the FlashAttention estimate of 0.34 before: 9.1 -> 10.5 %, the target
# missed by 0.5 point (docs/accuracy.md "Session 7 (issue 17, helper attn7)").
# Limit 10 % again since session 9 (helper bw9): B300/GB300's block-scaled GEMMs at NVIDIA's
# measured rates against FP8 (TE gemm_profiling.rst) and Bridge's "FP8" rows as current scaling:
# 10.5 -> 7.5 %. Checked to fail with the limit at 7.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
if ! command -v python3 >/dev/null; then
  echo "python3 not found: skipped"
  exit 77
fi
expect_ok validate "$V/megatron_bridge_performance_summary.csv" --format json
got=$(python3 - "$TMP/out" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
errs = [abs(r["error"]) for r in rows
        if r["error"] is not None and r["run"].startswith("llama3-405b")
        and r["gpu"] in ("gb200", "gb300")]
print(len(errs), "%.2f" % (sum(errs) / len(errs)) if errs else "nan")
PY
)
n=${got% *}
m=${got#* }
echo "Llama 3.1 405B GB200/GB300: $n rows, mean |error| $m % (target and guard <= 10 %)"
check "405B GB200/GB300: 32 rows predicted (got $n)" [ "$n" -ge 32 ]
check "405B GB200/GB300: mean |error| $m % <= 10 %" python3 -c "import sys; sys.exit(not float('$m') <= 10)"
finish
