#!/usr/bin/env python3
"""clock_duty.py: the GEMM rate, SM clock and board power of one GPU against the GEMMs' share of
GPU time, between full load and boost.

Follows attn_sweep.py's `clock` section (data/ground-truth/h100/clock.csv, five duty points) with
the throttled range in finer steps, and FP8: 8192^3 GEMMs (bf16 through torch.matmul, fp8 e4m3
through torch._scaled_mm with tensorwise scales), each followed by one device copy of S MiB (S
from the list below: the copy's length sets the duty), 6 s per point. Per point: the median GEMM
rate (CUDA events around each GEMM), the GEMMs' share of GPU time (events around GEMM+copy), the
average board power (NVML energy counter over the point) and the median SM clock (NVML, 20 ms).
The points were chosen before the run to test plateau's clock-from-power formula
(docs/step-model.md 2.1) where it was not derived (duty 0.55-0.95) and to measure the FP8 draw.
Output under --out: clock_duty.csv, clock_duty_power.csv, clock_duty_meta.json. Never run in CI.
"""
import argparse
import csv
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_all as ra  # noqa: E402

torch = ra.torch

COPY_MIB = {"bf16": (0, 128, 256, 512, 768, 1024, 1536, 2048, 4096),
            "fp8": (0, 256, 512, 1024, 2048, 4096)}


def gemm_fn(dtype, n):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    if dtype == "bf16":
        c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        return lambda: torch.matmul(a, b, out=c)
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major second operand (TN)
    one = torch.ones((), device="cuda", dtype=torch.float32)
    return lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def point(sampler, fn, flops, copy_mib, seconds, label):
    src = dst = None
    if copy_mib:
        src = torch.empty(copy_mib << 19, device="cuda", dtype=torch.bfloat16)
        dst = torch.empty_like(src)
    for _ in range(20):  # settle at this duty before measuring
        fn()
        if src is not None:
            dst.copy_(src)
    torch.cuda.synchronize()
    sampler.label = label
    i0 = len(sampler.rows)
    en0, w0 = sampler.energy_j(), time.time()
    rates, g_s, all_s = [], 0.0, 0.0
    t_end = time.time() + seconds
    while time.time() < t_end:
        evs = [(ra.event(), ra.event(), ra.event()) for _ in range(20)]
        for e0, e1, e2 in evs:
            e0.record()
            fn()
            e1.record()
            if src is not None:
                dst.copy_(src)
            e2.record()
        evs[-1][2].synchronize()
        for e0, e1, e2 in evs:
            g = e0.elapsed_time(e1) / 1e3
            rates.append(flops / g / 1e12)
            g_s += g
            all_s += e0.elapsed_time(e2) / 1e3
    en1, wall = sampler.energy_j(), time.time() - w0
    clocks = [r["sm_clock_mhz"] for r in sampler.rows[i0:] if r.get("sm_clock_mhz")]
    del src, dst
    return {"gemm_tflops_median": "%.1f" % statistics.median(rates), "gemms": len(rates),
            "gemm_time_share": "%.3f" % (g_s / all_s),
            "avg_power_w": "%.1f" % ((en1 - en0) / wall) if en0 is not None and en1 is not None
            else "", "sm_clock_mhz_median": statistics.median(clocks) if clocks else ""}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=6.0)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if torch is None or not torch.cuda.is_available():
        sys.exit("clock_duty.py: needs torch with a CUDA device")
    meta = {"versions": ra.versions(), "args": vars(args), "copy_mib": COPY_MIB}
    sampler = ra.Sampler()
    meta["nvml"] = sampler.info
    sampler.start()
    rows = []
    n = 8192
    try:
        sampler.label = "idle_start"
        time.sleep(2.0)
        for dtype in ("bf16", "fp8"):
            fn = gemm_fn(dtype, n)
            for mib in COPY_MIB[dtype]:
                r = {"dtype": dtype, "copy_mib": mib}
                try:
                    r.update(point(sampler, fn, 2.0 * n ** 3, mib, args.seconds,
                                   "duty:%s:%d" % (dtype, mib)))
                except Exception as e:  # noqa: BLE001
                    r["error"] = repr(e)[:200]
                rows.append(r)
                ra.log("%s" % r)
            del fn
            torch.cuda.empty_cache()
    finally:
        sampler.stop()
        sampler.write(os.path.join(args.out, "clock_duty_power.csv"))
        keys = ["dtype", "copy_mib", "gemms", "gemm_tflops_median", "gemm_time_share",
                "avg_power_w", "sm_clock_mhz_median", "error"]
        with open(os.path.join(args.out, "clock_duty.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow({k: r.get(k, "") for k in keys})
        with open(os.path.join(args.out, "clock_duty_meta.json"), "w") as f:
            json.dump(meta, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
