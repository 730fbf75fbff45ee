#!/usr/bin/env bash
# NVIDIA NeMo AutoModel's performance summary (data/validation/nemo_automodel_performance.csv,
# session 27): PyTorch FSDP2 runs on DGX-H100, BF16 — MoE pre-training (Nemotron 3 Super / Nano / Ultra,
# DeepSeek-V3, Kimi K2, Qwen3-30B-A3B, GPT-OSS), Llama 3 70B pre-training with cp 2, and LoRA of
# Llama 3 8B / 70B and Qwen2.5 7B / 32B (and the four LoRA rows with pp 4 the page printed before
# April 2026); read by the generic rules (src/validate/source_generic.c)
# as torchtitan. The published seconds per global step are compared as printed. Regression bound
# from the first look (docs/accuracy.md "Session 27 (helper gt27)"): the first look's 10 predicted rows
# (1, 2, 4, 5, 7, 8, 10, 11, 12, 17) stay predicted, their mean |error| <= ceil(first look 24.7 + 3)
# = 28 % and each <= ceil(worst 52.3 + 5) = 58 %. Re-set at the lead's merge of session 27's helpers,
# whose sourced changes move these rows (h100 strided_elementwise, measured in the project's H100
# trace, prices GPT-OSS's clamp and bias kernels: row 8 +32.2 -> +44.0 %; the shared experts' output
# add and the comm-overlap slowdown: the MoE rows +1..+8; the embedding-table zero fill and the
# tied-table add: rows 11-12 +2 points): 28.0 / 56.7 %, so <= ceil(28.0 + 3) = 32 % and each
# <= ceil(56.7 + 5) = 62 %. Re-set by session 28 (moe28), whose sourced changes move the MoE
# rows: FSDP2 keeps the routed experts out of the block's dp unit (AutoModel moe/parallelizer.py
# apply_fsdp), the GQA rows hand K and V to the kernel unexpanded (--kv-expand-copy off), and
# AutoModel's FakeBalancedGate (--moe-fake-gate on: no router GEMM, consecutive experts, so DeepEP
# sends a token to 1-4 ranks instead of the uniform draw's 3.4-19): rows 1 +57.5 -> +14.7,
# 2 +45.2 -> +16.6, 4 +17.0 -> -21.9, 5 +40.9 -> -6.1, 7 +25.6 -> -4.8, 8 +47.0 -> +14.7 (rows 2 and 7
# also read as zero2: their parallelizer does not reshard after forward; row 8's experts run
# AutoModel's compiled quick_geglu_deepep, --moe-act-compiled on); the
# first look's 10 rows 29.2 / 57.5 -> 13.7 / 30.3 % (the worst now row 17, pipelined LoRA),
# so <= ceil(13.7 + 3) = 17 % and each <= ceil(30.3 + 5) = 36 %. Rows predicted later (a memory or layout refusal lifted)
# are not in the bound, so wider coverage cannot fail it. A guard, not a target.
# Session 29 (lora29): LoRA under FSDP2 (--task lora with zero2/zero3: the frozen base weights
# gathered with the adapters, only the adapters' gradients reduce_scattered; src/sim/seg_params.c
# sim_seg_gathered_params, AutoModel _peft/lora.py LinearLoRA and distributed/parallelizer.py at
# 2013a4dd6) lifts the layout refusal of the seven zero3 LoRA rows 13-16 and 18-20. Their first look
# (docs/accuracy.md "Session 29 (lora29)"): +5.4, +22.5, -4.6, +8.4, +1.2, -22.3, -2.4 %, mean |error|
# 9.53 %, worst 22.5 % (row 14); bound of their own: all seven predicted, mean <= ceil(9.53 + 3) = 13 %,
# each <= ceil(22.5 + 5) = 28 %.
. "$(dirname "$0")/lib.sh"
T="$PL_SOURCE_DIR/data/validation/nemo_automodel_performance.csv"
if ! command -v python3 >/dev/null; then
  echo "python3 not found: skipped"
  exit 77
fi
expect_ok validate "$T" --format csv
row() { grep -E "^\"nemo_automodel_performance\",$1," "$TMP/out" | grep -q -- "$2"; }
check "row 10 compares the printed 18.90 s" row 10 '"step_time_s",.*,18.9,18.9,'
check "row 10 cp 2 over FSDP2, full recompute, compiled" row 10 '--cp 2 .*--shard zero3 .*--recompute full .*--framework torchtitan .*--kernels fused'
check "row 11 LoRA rank 16 on every linear, one GPU" row 11 '--gpus 1 .*--task lora --lora-rank 16 --lora-targets linear_qkv,linear_proj,linear_fc1,linear_fc2'
check "row 1 DeepEP, forced balance" row 1 '--moe-dispatch deepep --moe-imbalance 1 '
check "row 7 AutoModel's fake balanced gate, K/V unexpanded" row 7 '--moe-fake-gate on .*--kv-expand-copy off'
check "row 7 bf16 Adam moments (AutoModel's MoE models hold bf16 parameters)" row 7 '--adam-moments-dtype bf16'
check "row 7 no fp32 master, bf16 shards" row 7 '--fp32-param-shards off .*--adam-master none'
# row 1's model is the nemotron-3-super preset at seq 4096, so the command writes it inline: the JSON
# must carry the MTP module's block kinds and the latent width (src/validate/command.c), or the
# command is refused ('mtp_layers needs mtp_pattern'; cli_validate_command reruns it)
check "row 1 command carries mtp_pattern and moe_latent" row 1 '""mtp_pattern"":""\*E"".*""moe_latent"":1024'

check "row 3 (no preset) skipped naming the column" row 3 "model 'Nemotron V3 Ultra 550B' is no preset"
check "row 4 DeepSeek-V3: AutoModel's 32-stage split of 61 layers as a layout" row 4 "--pipeline-layout 'Ett|(tt|)\\*28t|t|tL'"
check "row 17 LoRA over an interleaved pipeline, dp 1" row 17 'tp2 pp4 dp1 vp10, mbs 1 gbs 32.*--shard ddp .*--schedule interleaved'
# errs ROW...: how many of the rows are predicted, their mean and worst |error| (%)
errs() { python3 - "$TMP/out" "$@" <<'PY'
import csv, sys
rows = set(map(int, sys.argv[2:]))
e = {int(r["row"]): abs(float(r["error_pct"])) for r in csv.DictReader(open(sys.argv[1]))
     if r["error_pct"] not in ("", None) and int(r["row"]) in rows}
v = list(e.values())
print(len(v), "%.2f" % (sum(v) / len(v)) if v else "nan", "%.2f" % max(v) if v else "nan")
PY
}
read -r n m w <<<"$(errs 1 2 4 5 7 8 10 11 12 17)"
echo "NeMo AutoModel, first-look rows: $n of 10 predicted, mean |error| $m %, worst $w % (bound: mean <= 17, worst <= 36)"
check "the first look's 10 rows predicted (got $n)" [ "$n" -eq 10 ]
check "mean |error| $m % <= 17 %" python3 -c "import sys; sys.exit(not float('$m') <= 17)"
check "worst |error| $w % <= 36 %" python3 -c "import sys; sys.exit(not float('$w') <= 36)"
check "row 13 LoRA under FSDP2 (zero3), tp 2" row 13 '--shard zero3 .*--task lora --lora-rank 16'
read -r n m w <<<"$(errs 13 14 15 16 18 19 20)"
echo "NeMo AutoModel, LoRA under FSDP2 (rows 13-16, 18-20): $n of 7 predicted, mean |error| $m %, worst $w % (bound: mean <= 13, worst <= 28)"
check "the seven FSDP2 LoRA rows predicted (got $n)" [ "$n" -eq 7 ]
check "FSDP2 LoRA mean |error| $m % <= 13 %" python3 -c "import sys; sys.exit(not float('$m') <= 13)"
check "FSDP2 LoRA worst |error| $w % <= 28 %" python3 -c "import sys; sys.exit(not float('$w') <= 28)"
finish
