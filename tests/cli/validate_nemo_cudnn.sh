#!/usr/bin/env bash
# The cuDNN of the NeMo 25.02 / 25.04 containers (session 29, bwsw29; src/validate/sources_nemo.c
# validate_nemo_2025_cudnn): NVIDIA/NeMo v2.2.0 / v2.3.0 requirements/manifest.json build on
# nvcr.io/nvidia/pytorch:25.01-py3, whose cuDNN is 9.7.0.66 (MLPerf v5.0 NVIDIA/systems/
# eos-dfw_*_ngc25.01_nemo.json). The NeMo page's 25.02 / 25.04 sections and dgxc's nemo:25.02.x /
# 25.04.x rows run it; 25.07 (v2.4.0: 25.05-py3, not read) and the other containers do not.
# On B200 / GB200 a 9.7 run takes the oldest release NVIDIA published figures of, 9.10.2
# (attention.cudnn.shape_9_10); on H100 (2024 figures only) today's.
. "$(dirname "$0")/lib.sh"
V="$PL_SOURCE_DIR/data/validation"
expect_ok validate "$V/nemo_2409_2507_performance_summary.csv" --format csv
check "NeMo 25.02 B200 Llama3 8B: cuDNN 9.7 (NGC PyTorch 25.01)" \
  grep -qE '^"nemo_2409_2507_performance_summary",2,.*cuDNN 9.7 attention \(the container.s base.*--cudnn 9.7 ' "$TMP/out"
check "NeMo 25.04 GB200 Llama3 8B: cuDNN 9.7" \
  grep -qE '^"nemo_2409_2507_performance_summary",11,.*--cudnn 9.7 ' "$TMP/out"
check "NeMo 25.07 GB200 405B (v2.4.0 base 25.05, not read): not 9.7" \
  bash -c "! grep -E '^\"nemo_2409_2507_performance_summary\",20,' '$TMP/out' | grep -q -- '--cudnn 9.7'"
expect_ok validate "$V/dgxc_benchmarking.csv" --format csv
check "dgxc nemo:25.04.01 GB200 row 216: cuDNN 9.7" \
  grep -qE '^"dgxc_benchmarking",216,.*cuDNN 9.7 attention.*--cudnn 9.7 ' "$TMP/out"
check "dgxc nemo:25.09.00 GB200 row 246: not 9.7" \
  bash -c "! grep -E '^\"dgxc_benchmarking\",246,' '$TMP/out' | grep -q -- '--cudnn 9.7'"
check "dgxc nemo:24.x row 11: the nemo-2024 preset's 9.1" \
  grep -qE '^"dgxc_benchmarking",11,.*--cudnn 9.1 ' "$TMP/out"
# what 9.7 prices: B200 as 9.10 (older than every entry: the oldest), slower than today's; H100
# (no entry at or above 9.7) as today's
step() { "$PLATEAU" predict --model llama3-8b --gpu "$1" --gpus 8 --tp 1 --seq 8192 --mbs 1 \
  --gbs 128 --dtype fp8 --attention cudnn --cudnn "$2" --format csv |
  python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin))["step_time_s"])'; }
b97=$(step b200 9.7); b910=$(step b200 9.10); blat=$(step b200 latest)
h97=$(step h100 9.7); hlat=$(step h100 latest)
# the step times by column name, and none empty (an empty pair would compare equal)
check "five step times read ($b97 $b910 $blat $h97 $hlat)" \
  awk -v a="$b97" -v b="$b910" -v c="$blat" -v d="$h97" -v e="$hlat" \
  'BEGIN { exit !(a > 0 && b > 0 && c > 0 && d > 0 && e > 0) }'
check "b200: cuDNN 9.7 = 9.10 ($b97 = $b910 s)" [ "$b97" = "$b910" ]
check "b200: cuDNN 9.7 slower than latest ($b97 > $blat s)" \
  awk -v a="$b97" -v b="$blat" 'BEGIN { exit !(a > b) }'
check "h100: cuDNN 9.7 = latest ($h97 = $hlat s)" [ "$h97" = "$hlat" ]
finish
