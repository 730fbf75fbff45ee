#!/usr/bin/env python3
"""Fit cuDNN's and FlashAttention-2's rate by shape to the kernel-only H100 measurements.

Reads data/ground-truth/h100/attn_kernels.csv (bench/gpu/attn_kernels.py: CUDA
activity durations, no host floor) and fits, per backend, head dim and pass,
the two parameters of plateau's attention form (docs/step-model.md 2.2,
src/sim/compute.c attn_tiles_makespan): one CTA per 128-query-row tile of one
head (Dao 2023, FlashAttention-2, arXiv 2307.08691, Sec. 3.2), tiles dealt
heaviest first, in grid order, to the first free of 132 SMs; causal tile i
costs (i+1)*128 + K0 key positions; time = makespan * tile FLOPs per key /
(asymptote * peak / SMs) + kernel_overhead (1.2 us, h100.json) per kernel.
Least squares of log(predicted / measured) over K0 (step 16) and the asymptote.
FlashAttention-2's forward deals each head's tiles in query-block order, lightest
first (flash-attention csrc/flash_attn/src/flash_fwd_launch_template.h
run_flash_fwd: grid(num_m_block, b, h), flash_fwd_kernel.h m_block = blockIdx.x;
kBlockM 128 for head dim 64 and 128 on sm90), and its forward rows that ran the
split-KV kernel (fwd_kernels 2: flash_api.cpp set_params_splitkv splits when
batch x heads x ceil(seq / 64) < 0.8 x 2 x SMs, then a combine kernel) are left
out of its forward fit: the form describes the one-kernel grid (both printed).
A calibration of the kernel: no validation row is read.
Usage: scripts/attn-kernel-shape-fit.py [csv]
       scripts/attn-kernel-shape-fit.py --cudnn-frontend CSV SMS PEAK_TFLOPS
The second form reads NVIDIA's published cuDNN SDPA training benchmark
(NVIDIA/cudnn-frontend benchmark/sdpa_benchmark_training, copied to
data/published/cudnn-frontend/: kernel times from the torch profiler, median
of 10 iterations) for a GPU with SMS SMs and that dense bf16 peak: its cuDNN
bf16 causal ("top_left") rows, non-deterministic backward.
"""
import csv
import heapq
import math
import sys

SMS = 132
PEAK = 989.4e12  # H100 SXM5 dense bf16, the csv's fractions are of this
OVERHEAD_S = 1.2e-6  # h100.json efficiency.kernel_overhead
TILE = 128


def makespan(b, h, s, k0, lightest_first=False):
    one = [(i + 1) * TILE + k0 for i in range((s + TILE - 1) // TILE)]
    tiles = (one if lightest_first else one[::-1]) * (b * h)
    heap = [0.0] * SMS
    span = 0.0
    for w in tiles:
        t = heapq.heappop(heap) + w
        span = max(span, t)
        heapq.heappush(heap, t)
    return span


def fit(sub, col, mult, kernels, lightest_first=False):
    best = None
    for k0 in range(0, 1601, 16):
        spans = [makespan(int(r["batch"]), int(r["q_heads"]), int(r["seq"]), k0, lightest_first)
                 for r in sub]
        for fi in range(200, 800, 5):
            f = fi / 1000
            err = []
            for sp, r in zip(spans, sub):
                per_key = 2 * TILE * (int(r["d_qk"]) + int(r["d_v"])) * mult
                t = sp * per_key / (PEAK * f / SMS) + kernels * OVERHEAD_S
                err.append(math.log(t / float(r[col])))
            rms = math.sqrt(sum(e * e for e in err) / len(err))
            if best is None or rms < best[0]:
                best = (rms, k0, f, max(abs(e) for e in err))
    return best


def cudnn_frontend_rows(path):
    """The published benchmark's rows in this script's columns (times in s)."""
    out = {}
    for r in csv.DictReader(open(path)):
        if (r["backend"] != "cudnn" or r["data_type"] != "bfloat16" or r["attn_mask"] != "top_left"
                or r["success"] != "True" or r["deterministic_bwd"] != "False"):
            continue
        key = (r["batch_size"], r["num_q_heads"], r["num_kv_heads"], r["q_seqlen"],
               r["head_dim_qk"], r["head_dim_vo"])
        row = out.setdefault(key, {"backend": "cudnn", "batch": key[0], "q_heads": key[1],
                                   "kv_heads": key[2], "seq": key[3], "d_qk": key[4],
                                   "d_v": key[5], "error": ""})
        if r["profile_pass"] == "both":  # one row with both times (the H200 file)
            row["fwd_s"] = float(r["fwd_time_ms"]) / 1e3
            row["bwd_s"] = float(r["bwd_time_ms"]) / 1e3
        else:
            row[r["profile_pass"] + "_s"] = float(r["time_ms"]) / 1e3
    return [r for r in out.values() if "fwd_s" in r and "bwd_s" in r]


def main():
    global SMS, PEAK
    if len(sys.argv) == 5 and sys.argv[1] == "--cudnn-frontend":
        SMS, PEAK = int(sys.argv[3]), float(sys.argv[4]) * 1e12
        rows = cudnn_frontend_rows(sys.argv[2])
        for name, col, mult, kernels in (("fwd", "fwd_s", 1.0, 1), ("bwd", "bwd_s", 2.5, 2)):
            rms, k0, f, worst = fit(rows, col, mult, kernels)
            print(f"cudnn d128 {name}: {len(rows)} shapes, asymptote {f:.3f}, K0 {k0}, "
                  f"rms {100 * rms:.1f} %, worst {100 * worst:.1f} %")
        return
    path = sys.argv[1] if len(sys.argv) > 1 else "data/ground-truth/h100/attn_kernels.csv"
    rows = [r for r in csv.DictReader(open(path)) if not r["error"]]
    for be in ("cudnn", "flash"):
        for d in ("128", "64", "192"):
            sub = [r for r in rows if r["backend"] == be and r["d_qk"] == d]
            if not sub:
                continue
            for name, col, mult, kernels in (("fwd", "fwd_s", 1.0, 1), ("bwd", "bwd_s", 2.5, 2)):
                light = be == "flash" and name == "fwd"
                cases = [("", sub)]
                if light:
                    one = [r for r in sub if float(r["fwd_kernels"]) < 2]
                    cases = [(" (split-KV rows left out)", one), (" (all rows)", sub)]
                for what, rows_ in cases:
                    rms, k0, f, worst = fit(rows_, col, mult, kernels, light)
                    print(f"{be} d{d} {name}{what}: {len(rows_)} shapes, asymptote {f:.3f}, "
                          f"K0 {k0}, rms {100 * rms:.1f} %, worst {100 * worst:.1f} %")


if __name__ == "__main__":
    main()
