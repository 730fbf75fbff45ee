#!/usr/bin/env python3
"""cuDNN 9.13's attention on Blackwell against plateau's cuDNN form.

Reads NVIDIA's published cudnn-frontend SDPA benchmark results of 2025
(benchmark/sdpa_benchmark_training/artifacts/sdpa_fp8_benchmark_results_NVIDIA_*.csv,
benchmark_fp8_sdpa.py: cuDNN through cudnn-frontend's Python graph API, CUDA
events around graph.execute, median of 10 iterations after 5 warm-up ones, free
clocks; copied to data/published/cudnn-frontend/, SOURCES.md), its "bf16" rows:
causal, head dim 128, batch 1, 128 query heads, 8 KV heads, seq 0.5k-128k.
TFLOP/s there count causal FLOPs as half and the backward as 2.5x the forward,
as the other published files; the times are used directly.

For each file and pass it fits the asymptote of plateau's form (docs/step-model.md
2.2, src/sim/compute.c attn_tiles_makespan; scripts/attn-kernel-shape-fit.py)
with the per-tile fixed cost K0 held at the GPU file's cuDNN 9.22 fit
(attention.cudnn.shape), on the rows of seq 8k-32k: event timing includes the
host's graph.execute before the first kernel, which is a visible part of the
shorter calls only (the 2k backward is about 1.7x the kernel-only 9.22 time on
GB300); the 8k-32k rows are the range of the 9.22 fits. The same benchmark's
GB200 file of cuDNN 9.17.0 (b372d39) checks the method against the kernel-only
9.22 fit of gb200.json (0.700 / 0.550). No validation row is read.
Usage: scripts/attn-cudnn-913-fit.py
"""
import csv
import math
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
shape_fit = __import__("attn-kernel-shape-fit")

D = "data/published/cudnn-frontend/"
# file, GPU, SMs, dense bf16 peak (the GPU file's), K0 fwd / bwd of its attention.cudnn.shape
FILES = [
    ("sdpa_2025-10_bb37575_b200_cudnn9.13.1.csv", "b200", 148, 2250e12, 400, 336),
    ("sdpa_2025-10_bb37575_gb300_cudnn9.13.1.csv", "gb300", 152, 2500e12, 240, 464),
    ("sdpa_2025-07_9793df5_b200_cudnn9.10.2.csv", "b200", 148, 2250e12, 400, 336),
    ("sdpa_2025-12_b372d39_gb200_cudnn9.17.0.csv", "gb200", 152, 2500e12, 400, 320),
]


def rows(path):
    out = []
    for r in csv.DictReader(open(path)):
        if r["precision"] != "bf16" or r["is_causal"] != "True":
            continue
        b, h, s = int(r["batch_size"]), int(r["num_q_heads"]), int(r["q_seqlen"])
        if 8192 <= s <= 32768:
            out.append(dict(b=b, h=h, s=s, fwd=float(r["forward_time"]) / 1e3,
                            bwd=float(r["backward_time"]) / 1e3))
    return out


def fit(sub, col, mult, kernels, k0):
    spans = [shape_fit.makespan(r["b"], r["h"], r["s"], k0) for r in sub]
    best = None
    for fi in range(300, 1000, 5):
        f = fi / 1000
        err = [math.log((sp * 2 * shape_fit.TILE * 256 * mult / (shape_fit.PEAK * f / shape_fit.SMS)
                         + kernels * shape_fit.OVERHEAD_S) / r[col]) for sp, r in zip(spans, sub)]
        rms = math.sqrt(sum(e * e for e in err) / len(err))
        if best is None or rms < best[0]:
            best = (rms, f, max(abs(e) for e in err))
    return best


def main():
    got = {}
    for name, gpu, sms, peak, k0f, k0b in FILES:
        shape_fit.SMS, shape_fit.PEAK = sms, peak
        sub = rows(D + name)
        out = []
        for pas, col, mult, kernels, k0 in (("fwd", "fwd", 1.0, 1, k0f), ("bwd", "bwd", 2.5, 2, k0b)):
            rms, f, worst = fit(sub, col, mult, kernels, k0)
            got[(name, pas)] = f
            out.append(f"{pas} {f:.3f} (K0 {k0}, rms {100 * rms:.1f} %, worst {100 * worst:.1f} %)")
        print(f"{name} ({gpu}, {len(sub)} shapes): " + "; ".join(out))
    # GB200 has no cuDNN 9.13 file: B200's fit per SM at GB200's clock (the same SM;
    # b200.json's scaling the other way, 2062 / 1965 MHz) on GB200's 152 SMs (B200 148)
    # over GB200's 2500 TFLOP/s peak
    scale = 2062 / 1965 * 2250 / 2500 * 152 / 148
    b200, gb300 = FILES[0][0], FILES[1][0]
    print("gb200 estimate = b200 9.13.1 x 2062/1965 x 2250/2500 x 152/148 = x %.4f: %.3f / %.3f"
          % (scale, got[(b200, "fwd")] * scale, got[(b200, "bwd")] * scale))
    # session 26: B200's cuDNN 9.10.2 fit is b200.json's shape_9_10, and the same per-SM
    # rule gives gb200.json's shape_9_10 (the oldest release either file measures)
    b910 = FILES[2][0]
    print("gb200 9.10 estimate = b200 9.10.2 x %.4f: %.3f / %.3f"
          % (scale, got[(b910, "fwd")] * scale, got[(b910, "bwd")] * scale))
    # The check of b200.json's default (cuDNN 9.22) estimate: B200's 9.13.1 fit times
    # GB300's published gain from 9.13.1 to 9.17.0 (the b372d39 GB300 file of the same benchmark)
    shape_fit.SMS, shape_fit.PEAK = 152, 2500e12
    g917 = rows(D + "sdpa_2025-12_b372d39_gb300_cudnn9.17.0.csv")
    gain = {p: fit(g917, p, m, k, k0)[1] / got[(gb300, p)]
            for p, m, k, k0 in (("fwd", 1.0, 1, 240), ("bwd", 2.5, 2, 464))}
    print("b200 at 9.17 = b200 9.13.1 x gb300 9.17.0/9.13.1 (%.3f, %.3f): %.3f / %.3f"
          % (gain["fwd"], gain["bwd"], got[(b200, "fwd")] * gain["fwd"], got[(b200, "bwd")] * gain["bwd"]))


if __name__ == "__main__":
    main()
