#!/usr/bin/env python3
"""FP8 GEMMs' per-tile fixed cost (gemm.tile_fixed_k_fp8) from the project's H100 measurements.

Reads the FP8 e4m3 GEMMs this project measured on one H100 SXM5 through
torch._scaled_mm (TN, tensorwise scales, bf16 out; PyTorch 2.11.0+cu130, CUDA
13.0, boost clock; data/ground-truth/h100/README.md):
  gemm.csv      every GEMM of `plateau predict --ops` for shapes.json (median
                of 5 batches, CUDA events, bench/gpu/run_all.py),
  moe_gemm.csv  sections dense (8192^3), expert (one expert's fc1/fc2 forward,
                dgrad, wgrad at 128-8192 tokens) and layer (the ':dense' rows:
                one GEMM of a layer's FLOPs; the ':loop' rows are Python loops
                and are not used), bench/gpu/moe_gemm.py.
Both time back-to-back Python calls with CUDA events, so a call costs at least
the host's launch path (the smallest expert GEMMs all read 15-20 us whatever
their FLOPs); only rows of at least MIN_S (40 us, twice that floor) are used,
and the fit is printed for other thresholds too.

Form: plateau's GEMM model (src/sim/compute.c pl_gemm_time_s, docs/step-model.md
2.1) with the FP8 rate: 128x256 tiles (or the transpose, whichever fewer
waves) dealt in waves over 132 SMs; each tile pays its K loop plus K0 K
elements of fixed cost (prologue, epilogue), the same form as the BF16
gemm.tile_fixed_k; the rate is gemm.mamf_fp8 (1369.7 TFLOP/s at
8192x4096x128256, gemm.csv's fastest) divided by the quantization the model
gives that shape (its K0 share included), never above MAMF itself (the
ceiling), or the HBM time at 0.9 of 3.35 TB/s if longer, plus kernel_overhead
1.2 us (data/gpus/h100.json). Burst rates (no sustained fraction): the
measurements, like MAMF, ran at the 1980 MHz boost.

Fits, least squares of log(predicted / measured):
  1. K0 alone, rate anchored at gemm.mamf_fp8 (what plateau would use);
  2. K0 and a free asymptote (a check that K0 is not absorbing the anchor);
  3. the BF16 key's derivation (OpenXLA table at fixed M x N): within each
     fixed (M, N) series of the expert wgrad rows (K = tokens per expert),
     rate(K) / rate(K_max) = [K / (K + K0)] / [K_max / (K_max + K0)].
A calibration of the kernel: no validation row is read.
Usage: scripts/gemm-fp8-tile-fit.py [ground-truth dir]
"""
import csv
import math
import os
import sys

SMS = 132
TILE = (128, 256)
MAMF = 1369.7e12
MAMF_SHAPE = (8192, 4096, 128256)
HBM = 3.35e12 * 0.9
OVERHEAD_S = 1.2e-6
MIN_S = 40e-6


def waves(m, n, tm, tn):
    tiles = -(-m // tm) * -(-n // tn)
    return -(-tiles // SMS) * tm * tn


def work(m, n):
    return min(waves(m, n, *TILE), waves(m, n, TILE[1], TILE[0])) * SMS


def predict(m, n, k, k0, mamf=MAMF):
    sm, sn, sk = MAMF_SHAPE
    q = sm * sn / work(sm, sn) * sk / (sk + k0)
    rate = mamf / q
    t = max(2 * work(m, n) * (k + k0) / rate, 2.0 * m * n * k / mamf)
    t_mem = (1 * (m * k + k * n) + 2 * m * n) / HBM
    return max(t, t_mem) + OVERHEAD_S


def rows(d):
    out = []
    for r in csv.DictReader(open(os.path.join(d, "gemm.csv"))):
        if r["dtype"] == "fp8" and not r["error"]:
            out.append(("gemm", r["pass"], int(r["M"]), int(r["N"]), int(r["K"]), float(r["time_s"])))
    for r in csv.DictReader(open(os.path.join(d, "moe_gemm.csv"))):
        if r["dtype"] != "fp8":
            continue
        if r["section"] in ("dense", "expert") or (r["section"] == "layer" and r["pass"].endswith(":dense")):
            out.append((r["section"] + ":" + r["case"], r["pass"], int(r["M"]), int(r["N"]), int(r["K"]),
                        float(r["time_s"])))
    return out


def rms(sub, k0, mamf=MAMF):
    e = [math.log(predict(m, n, k, k0, mamf) / t) for _, _, m, n, k, t in sub]
    return math.sqrt(sum(x * x for x in e) / len(e)), sum(e) / len(e)


def fit_k0(sub, mamf=MAMF):
    return min((rms(sub, k0, mamf)[0], k0) for k0 in range(0, 1201, 8))


def fit_free(sub):
    best = None
    for a in range(1200, 1501, 5):
        r, k0 = fit_k0(sub, a * 1e12)
        if best is None or r < best[0]:
            best = (r, k0, a)
    return best


def series_fit(sub):
    """OpenXLA-style: within fixed (case, M, N) wgrad series, K = tokens varies."""
    groups = {}
    for src, p, m, n, k, t in sub:
        if p.endswith("wgrad") and src.startswith("expert"):
            groups.setdefault((src, m, n), []).append((k, 2.0 * m * n * k / t))
    best = None
    for k0 in range(0, 1201, 8):
        e = []
        for pts in groups.values():
            if len(pts) < 2:
                continue
            kmax, rmax = max(pts)
            for k, r in pts:
                if k == kmax:
                    continue
                model = (k / (k + k0)) / (kmax / (kmax + k0))
                e.append(math.log(model / (r / rmax)))
        s = math.sqrt(sum(x * x for x in e) / len(e))
        if best is None or s < best[0]:
            best = (s, k0, len(e), groups)
    return best


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "data",
                                                             "ground-truth", "h100")
    all_rows = rows(d)
    use = [r for r in all_rows if r[5] >= MIN_S]
    print(f"FP8 rows: {len(all_rows)}, of at least {MIN_S * 1e6:.0f} us: {len(use)}")
    r0, b0 = rms(use, 0)
    r, k0 = fit_k0(use)
    rr, bb = rms(use, k0)
    print(f"1. K0 = 0 (today): rms {r0 * 100:.1f} %, mean log error {b0 * 100:+.1f} %")
    print(f"   K0 alone at MAMF {MAMF / 1e12:.1f}: K0 = {k0}, rms {rr * 100:.1f} %, mean {bb * 100:+.1f} %")
    for thr in (25e-6, 60e-6, 100e-6):
        sub = [x for x in all_rows if x[5] >= thr]
        print(f"   rows >= {thr * 1e6:.0f} us ({len(sub)}): K0 = {fit_k0(sub)[1]}")
    for lo, hi in ((0, 2048), (2049, 10 ** 9)):
        sub = [x for x in use if lo <= x[4] <= hi]
        print(f"   K in [{lo}, {hi}] ({len(sub)} rows): K0 = {fit_k0(sub)[1]}")
    for src in ("gemm", "expert", "layer"):
        sub = [x for x in use if x[0].startswith(src)]
        if sub:
            print(f"   {src} rows only ({len(sub)}): K0 = {fit_k0(sub)[1]}")
    fr, fk0, fa = fit_free(use)
    print(f"2. K0 and asymptote free: K0 = {fk0}, MAMF-equivalent {fa} TFLOP/s, rms {fr * 100:.1f} %")
    s, sk0, n, groups = series_fit(use)
    print(f"3. fixed-(M, N) wgrad series ({len(groups)} series, {n} ratios): K0 = {sk0}, rms {s * 100:.1f} %")
    print("\nrows by K (measured TFLOP/s, error of K0 = 0 and of the fit):")
    for src, p, m, n, k, t in sorted(use, key=lambda x: (x[4], x[2] * x[3])):
        e0 = predict(m, n, k, 0) / t - 1
        e1 = predict(m, n, k, k0) / t - 1
        print(f"  {src:24s} {p:14s} {m:6d} {n:6d} {k:6d} {2 * m * n * k / t / 1e12:7.1f} "
              f"{e0 * 100:+6.1f} {e1 * 100:+6.1f}")


if __name__ == "__main__":
    main()
