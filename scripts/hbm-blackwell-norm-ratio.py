#!/usr/bin/env python3
"""Blackwell's hbm_fraction from Hopper's, by the same memory-bound kernels on both parts.

Reads NVIDIA's published cudnn-frontend norm benchmark (benchmark/norms/results/{h200,gb200,gb300}/
all_models_*.csv @ df73764, in snapshot 3929da2, MIT licence; copied to
data/published/cudnn-frontend/norms_{h200,gb200,gb300}_cudnn9.19.csv, SOURCES.md): one release
(cudnn-frontend 1.19.0, cuDNN 9.19.1) and one harness (benchmark_single_norm.py) timing RMSNorm /
LayerNorm of LLM training shapes with cuDNN, PyTorch eager and torch.compile, forward and backward,
reported as GB/s. For every bf16 shape of at least 16 Mi elements (the training shapes, past the
launch-bound small ones) and each pass it takes the best kernel's GB/s over the GPU's spec bandwidth
(H200 4.8 TB/s, GB200 and GB300 8 TB/s) and prints the median of the Blackwell / H200 ratio of those
fractions. No validation row is read.

plateau's hbm_fraction for Hopper is 0.9 (the best any kernel reaches, h100.json); this ratio carries
it to Blackwell as a fraction of each file's own spec bandwidth: hbm_fraction = 0.9 x ratio (gb200 and
b200, the same die, 0.80; gb300 and b300 0.81). docs/hardware.md "HBM fraction on Blackwell".
Usage: scripts/hbm-blackwell-norm-ratio.py
"""
import csv
import statistics

D = "data/published/cudnn-frontend/"
SPEC_GBPS = {"h200": 4800.0, "gb200": 8000.0, "gb300": 8000.0}
MIN_ELEMENTS = 16 * 2 ** 20


def best_fractions(gpu):
    """(norm, type, N, C) -> (best forward fraction, best backward fraction) of spec bandwidth."""
    best = {}
    for r in csv.DictReader(open(D + f"norms_{gpu}_cudnn9.19.csv")):
        if r["success"] != "True" or r["data_type"] != "bfloat16":
            continue
        n, c = int(r["N"]), int(r["C"])
        if n * c < MIN_ELEMENTS:
            continue
        key = (r["norm_name"], r["norm_type"], n, c)
        f = (float(r["fwd_gbps"]) / SPEC_GBPS[gpu], float(r["bwd_gbps"]) / SPEC_GBPS[gpu])
        old = best.get(key, (0.0, 0.0))
        best[key] = (max(old[0], f[0]), max(old[1], f[1]))
    return best


def main():
    hop = best_fractions("h200")
    print(f"H200 best-kernel fraction of 4.8 TB/s, median: forward "
          f"{statistics.median(v[0] for v in hop.values()):.3f}, backward "
          f"{statistics.median(v[1] for v in hop.values()):.3f} ({len(hop)} shapes)")
    for gpu in ("gb200", "gb300"):
        bw = best_fractions(gpu)
        keys = sorted(set(hop) & set(bw))
        fwd = [bw[k][0] / hop[k][0] for k in keys]
        bwd = [bw[k][1] / hop[k][1] for k in keys]
        both = statistics.median(fwd + bwd)
        print(f"{gpu} / h200 ({len(keys)} shapes): forward {statistics.median(fwd):.3f} "
              f"[{min(fwd):.2f}-{max(fwd):.2f}], backward {statistics.median(bwd):.3f} "
              f"[{min(bwd):.2f}-{max(bwd):.2f}], both passes {both:.3f}: hbm_fraction 0.9 x {both:.3f} "
              f"= {0.9 * both:.3f} of 8 TB/s ({0.9 * both * 8:.2f} TB/s)")


if __name__ == "__main__":
    main()
