#!/usr/bin/env python3
"""Rates of the Mamba-2 SSD's Triton kernels, per part of plateau's ops, from measured kernel times.

Reads data/ground-truth/h200/ssd_kernels.csv (bench/gpu/ssd_kernels.py: mamba_ssm's
mamba_chunk_scan_combined and the gated RMSNorm, device time per kernel from the CUDA activity
trace, one H200) and prints, for each part plateau splits the SSD into (src/model/mamba.c) and each
pass, the rate the kernels reach on the work plateau counts for that part:

  ssd_states       _chunk_cumsum_fwd, _state_passing_fwd; backward: their re-runs,
                   _state_passing_bwd, _chunk_cumsum_bwd and the backward's ATen kernels (the
                   sums, flips, cumsum, fills and adds of _mamba_chunk_scan_combined_bwd):
                   HBM bytes (6 per fp32 state element forward, 20 backward, plus the cumsum's
                   12 B per token and head, twice in backward) / time / HBM bandwidth
  ssd_chunk_state  _chunk_state_fwd; backward its re-run and _chunk_state_bwd_db:
                   FLOPs 2 N P Q per (chunk, head), 3x in backward / time / BF16 peak
  ssd_bmm_cb       _bmm_chunk_fwd; backward its re-run, _chunk_scan_bwd_dcb and 2 _bmm_chunk_bwd:
                   FLOPs 2 Q Q N per (chunk, group), 3x in backward plus the dCB kernel's
                   2 Q Q P per (chunk, head) / time / BF16 peak
  ssd_chunk_scan   _chunk_scan_fwd; backward _chunk_scan_bwd_dstates,
                   _chunk_scan_chunk_state_bwd_dx, _chunk_scan_bwd_dc, _chunk_scan_bwd_ddAcs_stable:
                   FLOPs 2 Q P (Q + N) per (chunk, head), 2x in backward / time / BF16 peak
  ssm_norm         the norm's kernels (_layer_norm_fwd_1pass; _layer_norm_bwd and the ATen
                   weight-gradient sum and cast), from the scan-z run (--scan-z, default
                   data/ground-truth/h200/ssd_scan_z_kernels.csv: the norm Megatron-Core runs,
                   without z): HBM bytes (forward reads y and writes the output, 4 B per
                   element; backward reads y, dy and writes dy, 6 B) / time / HBM bandwidth;
                   the gated norm of the first CSV (6 / 10 B) is printed beside it
  ssd_gate         the gate y silu(z) in the scan (scan-z run): forward the _chunk_scan_fwd time
                   with z minus without z at the same shape (4 B per element: z read, out_x
                   written), backward _chunk_scan_bwd_dz (12 B) / time / HBM bandwidth

One rate per part and pass: the geometric mean over the shapes (least squares of log time for a
single scale), with the rms and worst deviation of the shapes from it. Kernel durations only (no
launch gaps: plateau adds its kernel_overhead per kernel).

usage: scripts/ssd-kernel-fit.py [CSV] [--scan-z CSV] [--peak-tflops 989.4] [--hbm-tbs 4.8]
"""
import argparse
import collections
import csv
import math

PARTS = {
    "ssd_states": {
        "fwd": ["_chunk_cumsum_fwd_kernel", "_state_passing_fwd_kernel"],
        "bwd": ["_chunk_cumsum_fwd_kernel", "_state_passing_fwd_kernel", "_state_passing_bwd_kernel",
                "_chunk_cumsum_bwd_kernel", "ATEN"],
    },
    "ssd_chunk_state": {"fwd": ["_chunk_state_fwd_kernel"],
                        "bwd": ["_chunk_state_fwd_kernel", "_chunk_state_bwd_db_kernel"]},
    "ssd_bmm_cb": {"fwd": ["_bmm_chunk_fwd_kernel"],
                   "bwd": ["_bmm_chunk_fwd_kernel", "_chunk_scan_bwd_dcb_kernel", "_bmm_chunk_bwd_kernel"]},
    "ssd_chunk_scan": {"fwd": ["_chunk_scan_fwd_kernel"],
                       "bwd": ["_chunk_scan_bwd_dstates_kernel", "_chunk_scan_chunk_state_bwd_dx_kernel",
                               "_chunk_scan_bwd_dc_kernel", "_chunk_scan_bwd_ddAcs_stable_kernel"]},
    "ssm_norm_z": {"fwd": ["_layer_norm_fwd_1pass_kernel"], "bwd": ["_layer_norm_bwd_kernel", "ATEN"]},
}


def work(part, pas, b, s, h, p, g, n, q):
    """The work plateau counts for the part (src/model/mamba.c model_mamba_ops): FLOPs or bytes."""
    chunks = b * math.ceil(s / q)
    t = b * s
    states = chunks * h * n * p
    cumsum = t * h * 3 * 4
    fwd = pas == "fwd"
    if part == "ssd_states":
        return states * 6 + cumsum if fwd else states * 20 + 2 * cumsum
    if part == "ssd_chunk_state":
        return 2 * n * p * q * chunks * h * (1 if fwd else 3)
    if part == "ssd_bmm_cb":
        return 2 * q * q * n * chunks * g if fwd else 3 * 2 * q * q * n * chunks * g + 2 * q * q * p * chunks * h
    if part == "ssd_chunk_scan":
        return 2 * q * p * (q + n) * chunks * h * (1 if fwd else 2)
    if part == "ssd_gate":
        return t * h * p * (4 if fwd else 12)
    if part == "ssm_norm_z":
        return t * h * p * (6 if fwd else 10)  # the gated norm (the first CSV)
    return t * h * p * (4 if fwd else 6)  # ssm_norm without z


def report(part, pas, fr, peak_name):
    lg = [math.log(f) for _, f in fr]
    mean = sum(lg) / len(lg)
    dev = [math.exp(x - mean) - 1 for x in lg]
    rms = math.sqrt(sum(d * d for d in dev) / len(dev))
    worst = max(fr, key=lambda kf: abs(math.log(kf[1]) - mean))
    print("%-16s %s fraction %.4f (of %s) over %d shapes: rms %.1f %%, worst %+.1f %% at %s" % (
        part, pas, math.exp(mean), peak_name, len(fr), 100 * rms,
        100 * (worst[1] / math.exp(mean) - 1), worst[0]))


def read(path):
    """(shape, op, kernel class) -> {fwd, bwd} seconds."""
    out = collections.defaultdict(lambda: {"fwd": 0.0, "bwd": 0.0})
    for r in csv.DictReader(open(path)):
        key = tuple(int(r[k]) for k in ("batch", "seqlen", "nheads", "headdim", "ngroups", "dstate", "chunk"))
        kern = "ATEN" if not r["kernel"].startswith("_") else r["kernel"]
        for pas in ("fwd", "bwd"):
            out[(key, r["op"], kern)][pas] += float(r[pas + "_s"] or 0)
    return out


def scan_z_parts(base, path, hbm):
    z = read(path)
    shapes = sorted({k[0] for k in z})
    norm = {"fwd": [], "bwd": []}
    gate = {"fwd": [], "bwd": []}
    for key in shapes:
        for pas in ("fwd", "bwd"):
            kerns = ["_layer_norm_fwd_1pass_kernel"] if pas == "fwd" else ["_layer_norm_bwd_kernel", "ATEN"]
            t = sum(z[(key, "gated_rmsnorm", k)][pas] for k in kerns)
            norm[pas].append((key, work("ssm_norm", pas, *key) / t / hbm))
        scan = "_chunk_scan_fwd_kernel"
        dt = z[(key, "ssd", scan)]["fwd"] - base[(key, "ssd", scan)]["fwd"]
        if base[(key, "ssd", scan)]["fwd"] > 0 and dt > 0:
            gate["fwd"].append((key, work("ssd_gate", "fwd", *key) / dt / hbm))
        gate["bwd"].append((key, work("ssd_gate", "bwd", *key) / z[(key, "ssd", "_chunk_scan_bwd_dz_kernel")]["bwd"] / hbm))
    for pas in ("fwd", "bwd"):
        report("ssm_norm", pas, norm[pas], "HBM, scan-z run")
    for pas in ("fwd", "bwd"):
        report("ssd_gate", pas, gate[pas], "HBM, scan-z run")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv", nargs="?", default="data/ground-truth/h200/ssd_kernels.csv")
    ap.add_argument("--peak-tflops", type=float, default=989.4)
    ap.add_argument("--hbm-tbs", type=float, default=4.8)
    ap.add_argument("--scan-z", default="data/ground-truth/h200/ssd_scan_z_kernels.csv")
    a = ap.parse_args()
    times = collections.defaultdict(float)  # (shape, op, pass, part) -> s
    shapes = set()
    for r in csv.DictReader(open(a.csv)):
        key = tuple(int(r[k]) for k in ("batch", "seqlen", "nheads", "headdim", "ngroups", "dstate", "chunk"))
        shapes.add(key)
        kern = "ATEN" if not r["kernel"].startswith("_") else r["kernel"]
        for pas in ("fwd", "bwd"):
            for part, m in PARTS.items():
                if (part == "ssm_norm_z") != (r["op"] == "gated_rmsnorm"):
                    continue
                if kern in m[pas]:
                    times[(key, pas, part)] += float(r[pas + "_s"] or 0)
    for part in PARTS:
        for pas in ("fwd", "bwd"):
            mem = part in ("ssd_states", "ssm_norm_z")
            peak = (a.hbm_tbs if mem else a.peak_tflops) * 1e12
            fr = []
            for key in sorted(shapes):
                t = times[(key, pas, part)]
                if t > 0:
                    fr.append((key, work(part, pas, *key) / t / peak))
            lg = [math.log(f) for _, f in fr]
            mean = sum(lg) / len(lg)
            dev = [math.exp(x - mean) - 1 for x in lg]
            rms = math.sqrt(sum(d * d for d in dev) / len(dev))
            worst = max(fr, key=lambda kf: abs(math.log(kf[1]) - mean))
            print("%-16s %s fraction %.4f (of %s) over %d shapes: rms %.1f %%, worst %+.1f %% at %s" % (
                part, pas, math.exp(mean), "HBM" if mem else "BF16 peak", len(fr), 100 * rms,
                100 * (worst[1] / math.exp(mean) - 1), worst[0]))
            nano = [f for k, f in fr if k[2:] in ((64, 64, 8, 128, 128), (32, 64, 4, 128, 128)) and k[1] == 8192]
            if nano:
                print("%-16s %s   Nano tp1/tp2 shapes only: %s" % ("", pas, " ".join("%.4f" % f for f in nano)))
    if a.scan_z:
        scan_z_parts(read(a.csv), a.scan_z, a.hbm_tbs * 1e12)


if __name__ == "__main__":
    main()
