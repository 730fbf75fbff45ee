#!/usr/bin/env python3
"""cuDNN attention of mid-2024 (cuDNN 9.1) against plateau's cuDNN form.

Reads NVIDIA's published cudnn-frontend SDPA benchmark results
(data/published/cudnn-frontend/sdpa_2024-05_b740542_h200_cudnn9.1.csv:
NVIDIA/cudnn-frontend benchmark/benchmark_results.csv at commit b740542,
2024-05-07, benchmark/benchmark_flash_attention.py, cuDNN 9.1 ("cudnn backend
version : 90100" in its README), clocks locked at 1980 MHz on an H200 (the
README's nvidia-smi -ac 3201,1980: H200's memory clock), bf16, head dim 128,
16 heads, batch x seq = 16k tokens). Its TFLOP/s count causal FLOPs as half
(flops(): 4 b s^2 h d / 2) and the backward as 2.5x the forward, as
data/ground-truth/h100/attn_kernels.csv does, so time = FLOPs / rate.

For each pass it fits the asymptote of plateau's form (docs/step-model.md 2.2,
src/sim/compute.c attn_tiles_makespan; scripts/attn-kernel-shape-fit.py) with
K0 held at the cuDNN 9.19 fit (forward 192, backward 400 key positions,
data/gpus/h100.json attention.cudnn.shape), on the causal rows; then prints
the free two-parameter fit and the non-causal rows as checks. No validation
row is read.
Usage: scripts/attn-cudnn-2024-fit.py [csv]
"""
import csv
import math
import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
shape_fit = __import__("attn-kernel-shape-fit")

K0_919 = {"fwd": 192, "bwd": 400}
ASYM_919 = {"fwd": 0.670, "bwd": 0.600}


def span(b, h, s, k0, causal):
    if causal:
        return shape_fit.makespan(b, h, s, k0)
    tiles = (s + shape_fit.TILE - 1) // shape_fit.TILE
    return max(tiles * b * h * (s + k0) / shape_fit.SMS, s + k0)


def rows(path):
    out = []
    for r in csv.DictReader(open(path)):
        b, h, s, d = (int(r[k]) for k in ("Batch", "Number of heads", "Sequence length", "Head dim"))
        causal = r["causal"] == "True"
        fwd_flops = 4 * b * s * s * h * d / (2 if causal else 1)
        out.append(dict(b=b, h=h, s=s, d=d, causal=causal,
                        fwd_s=fwd_flops / (float(r["cudnn BF16 (TFlops/s fwd)"]) * 1e12),
                        bwd_s=2.5 * fwd_flops / (float(r["cudnn BF16 (TFlops/s bwd)"]) * 1e12)))
    return out


_spans = {}


def err(sub, name, k0, f):
    mult, kernels = (1.0, 1) if name == "fwd" else (2.5, 2)
    e = []
    for r in sub:
        per_key = 2 * shape_fit.TILE * 2 * r["d"] * mult
        key = (r["b"], r["h"], r["s"], k0, r["causal"])
        if key not in _spans:
            _spans[key] = span(*key)
        t = _spans[key] * per_key / (shape_fit.PEAK * f / shape_fit.SMS)
        t += kernels * shape_fit.OVERHEAD_S
        e.append(math.log(t / r[name + "_s"]))
    return e


def best_f(sub, name, k0):
    best = None
    for fi in range(250, 800, 2):
        f = fi / 1000
        e = err(sub, name, k0, f)
        rms = math.sqrt(sum(x * x for x in e) / len(e))
        if best is None or rms < best[0]:
            best = (rms, f, max(abs(x) for x in e))
    return best


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else \
        "data/published/cudnn-frontend/sdpa_2024-05_b740542_h200_cudnn9.1.csv"
    all_rows = rows(path)
    causal = [r for r in all_rows if r["causal"]]
    for name in ("fwd", "bwd"):
        rms, f, worst = best_f(causal, name, K0_919[name])
        print(f"{name}: causal, K0 {K0_919[name]} (the 9.19 fit): asymptote {f:.3f} "
              f"(rms {100 * rms:.1f} %, worst {100 * worst:.1f} %); 9.19: {ASYM_919[name]:.3f}, "
              f"ratio {f / ASYM_919[name]:.3f}")
        for r in causal:
            e919 = err([r], name, K0_919[name], ASYM_919[name])[0]
            print(f"    b{r['b']} h{r['h']} s{r['s']}: published {r[name + '_s'] * 1e3:.3f} ms, "
                  f"9.19 form {100 * (math.exp(e919) - 1):+.1f} %")
        free = min((best_f(causal, name, k0) + (k0,) for k0 in range(0, 1601, 32)))
        print(f"    free fit: K0 {free[3]}, asymptote {free[1]:.3f}, rms {100 * free[0]:.1f} %")
        nc = [r for r in all_rows if not r["causal"]]
        e = err(nc, name, K0_919[name], f)
        print(f"    non-causal rows at that asymptote: rms {100 * math.sqrt(sum(x * x for x in e) / len(e)):.1f} %")


if __name__ == "__main__":
    main()
