#!/usr/bin/env bash
# Issue 19's target: the MoE rows of Megatron-Bridge's performance summary and the Megatron MoE model
# zoo (DeepSeek-V3, Qwen3-235B-A22B, Qwen3-30B-A3B, GPT-OSS 120B) predicted with a mean error <= 15 %
# on the tokens/s/GPU the sources publish (validate's published_error), and every one of the 132 rows
# stays predicted (a row turned into a skip cannot hide a miss). The same figure as
# scripts/validate-moe-groups.py's "MoE rows (bridge+zoo)" line, "tokens/s". Met in session 26
# (18.4 -> 13.3 %: moe26's non-vectorized element-wise kernels on Blackwell, docs/accuracy.md
# "Session 26 (helper moe26)"). Checked to fail with the limit at 13.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
if ! command -v python3 >/dev/null; then
  echo "python3 not found: skipped"
  exit 77
fi
expect_ok validate "$V/megatron_bridge_performance_summary.csv" "$V/megatron_moe_modelzoo.csv" --format json
got=$(python3 - "$TMP/out" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
moe = ("deepseek-v3", "qwen3-235b-a22b", "qwen3-30b-a3b", "gpt-oss-120b")
errs = [abs(r["published_error"]) for r in rows
        if r["error"] is not None and r["run"].split(",")[0] in moe]
print(len(errs), "%.2f" % (sum(errs) / len(errs)) if errs else "nan")
PY
)
n=${got% *}
m=${got#* }
echo "MoE rows (Bridge + zoo): $n rows, tokens/s mean |error| $m % (target and guard <= 15 %)"
check "MoE: 132 rows predicted (got $n)" [ "$n" -ge 132 ]
check "MoE: tokens/s mean |error| $m % <= 15 %" python3 -c "import sys; sys.exit(not float('$m') <= 15)"
finish
