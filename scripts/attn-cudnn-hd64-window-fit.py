#!/usr/bin/env python3
"""cuDNN's head-dim-64 attention on Blackwell, fitted to NVIDIA's published GPT-OSS benchmark.

Reads NVIDIA's published cudnn-frontend SDPA training benchmark, its GPT-OSS
configuration as run with cuDNN 9.19.1 on one GB200 and one GB300
(benchmark/sdpa_benchmark_training/results/gb{200,300}_919_only_cudnn/gpt_oss_*.csv
@ df73764, copied to data/published/cudnn-frontend/sdpa_gpt_oss_gb{200,300}_cudnn9.19.csv,
SOURCES.md; benchmark_single_sdpa.py: kernel times from the torch profiler, median
of 10 iterations, free clocks): bf16, head dim 64, 64 query and 8 KV heads (GPT-OSS's),
batch 2, causal with a 1024-token sliding window, sequence 2k-32k, forward and
(non-deterministic) backward. No validation row is read.

plateau times such an op (m queries against a window of n keys) with its tile
form (docs/step-model.md 2.2, src/sim/compute.c attention_shape_math_s,
tile_keys and attn_tiles_makespan): 128-query-row tiles of one head, each
costing the key positions of the whole 128-key tiles its CTA walks plus K0
(session 24: a CTA of R query rows starting at row r0 walks key tiles
max(0, (r0 - n) // 128) to ceil((r0 + R) / 128); R = 256 for cuDNN's sm100
forward, Tiles_Q = 2 in cudnn-frontend's sm100_sdpa_prefill_engine.h, 128
otherwise; so a 1024-key window costs 1280 keys per tile forward and 1152
backward on Blackwell, 1152 both ways on H200), tiles dealt in grid order to
the first free SM;
time = makespan x tile FLOPs per key / (asymptote x peak / SMs) + 1.2 us per
kernel (kernel_overhead; 1 forward, 2 backward kernels as
scripts/attn-kernel-shape-fit.py). Without a head-dim-64 entry a Blackwell file
times such an op with its head-dim-128 asymptote held under the exponential
bound (attention.cudnn.tensor_flops_per_exp); this script prints that form's
error first, then fits the two parameters of attention.cudnn.shape_head_dim_64
(least squares of log(predicted / published) over K0 in steps of 16 and the
asymptote in steps of 0.005), and checks the fit on the same benchmark's
window-128 files (cuDNN 9.22.0, 128 query and 128 KV heads: sdpa_gpt_oss_gb*.csv)
and the method on H200 (sdpa_gpt_oss_h200.csv against h200.json's measured
head-dim-64 entry).
Usage: scripts/attn-cudnn-hd64-window-fit.py
"""
import csv
import heapq
import math

D = "data/published/cudnn-frontend/"
TILE = 128
OVERHEAD_S = 1.2e-6
# GPU: SMs, dense bf16 peak, head-dim-128 shape (fwd f, bwd f, fwd K0, bwd K0), tensor FLOPs per exp
GPUS = {
    "gb200": (152, 2500e12, (0.705, 0.550, 400, 320), 512),
    "gb300": (152, 2500e12, (0.795, 0.640, 240, 464), 256),
    "h200": (132, 989.4e12, (0.67, 0.60, 192, 400), 256),
}
# query rows of the CTA whose key range a window tile walks (compute.c
# ATTN_WINDOW_CTA_ROWS_SM100_FWD): cuDNN's sm100 forward 256, else 128
SM100 = ("gb200", "gb300")
H200_HD64 = (0.490, 0.485, 192, 496)  # h200.json attention.cudnn.shape_head_dim_64 (measured)


def rows(path):
    """(batch x heads, seq, window, d, fwd s, bwd s) of the bf16 non-deterministic rows."""
    out = {}
    for r in csv.DictReader(open(path)):
        if (r["backend"] != "cudnn" or r["data_type"] != "bfloat16" or r["success"] != "True"
                or r["deterministic_bwd"] != "False"):
            continue
        key = (int(r["batch_size"]) * int(r["num_q_heads"]), int(r["q_seqlen"]),
               int(r["sliding_window_size"]), int(r["head_dim_qk"]))
        row = out.setdefault(key, {})
        if r["profile_pass"] == "both":
            row["fwd"] = float(r["fwd_time_ms"]) / 1e3
            row["bwd"] = float(r["bwd_time_ms"]) / 1e3
        else:
            row[r["profile_pass"]] = float(r["time_ms"]) / 1e3
    return [(k[0], k[1], k[2], k[3], v["fwd"], v["bwd"]) for k, v in sorted(out.items())
            if "fwd" in v and "bwd" in v]


def tile_keys(i, m, n, rows):
    """compute.c tile_keys for a window (n < m): whole 128-key tiles its CTA walks.

    The benchmark gives cuDNN left_bound = sliding_window_size (benchmark_single_sdpa.py), so the
    loop starts at (r0 - n) // 128; Transformer Engine's window_size_left + 1 (compute.c) would
    start one tile earlier at these windows."""
    r0 = i * TILE // rows * rows
    first = (r0 - n) // TILE if r0 > n else 0
    last = min((r0 + rows + TILE - 1) // TILE, (m + TILE - 1) // TILE)
    return (last - first) * TILE


def makespan(count, m, n, k0, sms, rows=TILE):
    """compute.c attn_tiles_makespan for a window (n < m): tile i costs tile_keys + k0."""
    tiles = (m + TILE - 1) // TILE
    cost = [tile_keys(i, m, n, rows) + k0 for i in range(tiles)]
    if tiles * count > 32768:
        return max(count * sum(cost) / sms, max(cost))
    heap = [0.0] * sms
    span = 0.0
    for _ in range(count):
        for i in range(tiles - 1, -1, -1):
            t = heapq.heappop(heap) + cost[i]
            span = max(span, t)
            heapq.heappush(heap, t)
    return span


def rows_of(gpu, fwd):
    return 256 if fwd and gpu in SM100 else TILE


def predict(gpu, r, f, k0, fwd, span=None):
    sms, peak, _, tpe = GPUS[gpu]
    bh, s, w, d = r[:4]
    mult = 1.0 if fwd else 2.5
    bound = 4.0 * d * mult / tpe  # compute.c attn_exp_bound
    f = min(f, bound)
    per_key = 2 * TILE * 2 * d * mult
    kernels = 1 if fwd else 2
    if span is None:
        span = makespan(bh, s, w, k0, sms, rows_of(gpu, fwd))
    return span * per_key / (peak * f / sms) + kernels * OVERHEAD_S


def errors(gpu, sub, f, k0, fwd, spans=None):
    spans = spans or [None] * len(sub)
    return [math.log(predict(gpu, r, f, k0, fwd, sp) / (r[4] if fwd else r[5]))
            for r, sp in zip(sub, spans)]


def fit(gpu, sub, fwd, k0s=range(0, 2001, 16)):
    best = None
    for k0 in k0s:
        spans = [makespan(r[0], r[1], r[2], k0, GPUS[gpu][0], rows_of(gpu, fwd)) for r in sub]
        for fi in range(100, 900, 5):
            err = errors(gpu, sub, fi / 1000, k0, fwd, spans)
            rms = math.sqrt(sum(e * e for e in err) / len(err))
            if best is None or rms < best[0]:
                best = (rms, fi / 1000, k0, max(abs(e) for e in err))
    return best


def show(label, gpu, sub, f, k0, fwd):
    err = errors(gpu, sub, f, k0, fwd)
    cells = ", ".join(f"{r[1] // 1024}k {100 * (math.exp(e) - 1):+.0f} %" for r, e in zip(sub, err))
    print(f"  {label}: {cells}")


def main():
    fits = {}
    for gpu in ("gb200", "gb300"):
        sub = rows(D + f"sdpa_gpt_oss_{gpu}_cudnn9.19.csv")
        shape = GPUS[gpu][2]
        print(f"{gpu}, cuDNN 9.19.1, window 1024, 64/8 heads, batch 2 ({len(sub)} sequences):")
        for fwd, name in ((True, "fwd"), (False, "bwd")):
            f128, k128 = (shape[0], shape[2]) if fwd else (shape[1], shape[3])
            show(f"{name} head-dim-128 form (f {f128}, K0 {k128}) vs published", gpu, sub, f128,
                 k128, fwd)
            rms, f, k0, worst = fit(gpu, sub, fwd)
            print(f"  {name} free fit: asymptote {f:.3f}, K0 {k0}, rms {100 * rms:.1f} %, "
                  f"worst {100 * worst:.1f} % (one window: only (window + K0) / asymptote is "
                  f"determined, {(sub[0][2] + k0) / f:.0f})")
            rms, f, k0, worst = fit(gpu, sub, fwd, [k128])
            fits[(gpu, fwd)] = (f, k0)
            print(f"  {name} fit, K0 held at the head-dim-128 fit's: asymptote {f:.3f}, K0 {k0}, "
                  f"rms {100 * rms:.1f} %, worst {100 * worst:.1f} %")
            show(f"{name} fitted form vs published", gpu, sub, f, k0, fwd)
        check = rows(D + f"sdpa_gpt_oss_{gpu}.csv")
        print(f"  check, cuDNN 9.22.0, window 128, 128/128 heads ({len(check)} sequences):")
        for fwd, name in ((True, "fwd"), (False, "bwd")):
            f, k0 = fits[(gpu, fwd)]
            show(f"{name} fitted form vs published", gpu, check, f, k0, fwd)
    sub = rows(D + "sdpa_gpt_oss_h200.csv")
    print("h200, cuDNN 9.19.1, window 1024 (the method on h200.json's measured head-dim-64 entry):")
    show("fwd", "h200", sub, H200_HD64[0], H200_HD64[2], True)
    show("bwd", "h200", sub, H200_HD64[1], H200_HD64[3], False)


if __name__ == "__main__":
    main()
