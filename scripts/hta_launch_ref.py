#!/usr/bin/env python3
# HTA's CUDA kernel launch statistics (CudaKernelAnalysis.cuda_kernel_launch_stats, HTA f4d0062,
# hta/analyzers/cuda_kernel_analysis.py) re-derived in plain Python for one trace file, times
# exact in ns:
#   - CPU side: runtime calls (cat cuda_runtime / cuda_driver; 2021 schema Runtime) with
#     args.correlation; HTA joins only cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync and
#     cudaMemsetAsync ("hta" selection); "all" takes every runtime or driver call with a
#     correlation, as plateau does (docs/trace.md 3.7);
#   - GPU side: kernel, gpu_memcpy, gpu_memset (Kernel, Memcpy, Memset) with the same
#     correlation (an inner join on it);
#   - launch_delay = ts_gpu - ts_cpu - dur_cpu, clipped at 0; outliers: launch_delay > 100 us,
#     runtime call (dur_cpu) > 50 us.
# Prints per selection: events, sum of delays (ns), max delay (ns), delays > 100 us, calls > 50 us.
# plateau's launch.hta_* over the whole trace (--window trace) is the "all" selection when a
# correlation has one runtime call and one GPU event. tests/unit/test_trace_kernels.c holds them.
# Usage: scripts/hta_launch_ref.py TRACE.json[.gz]
import gzip, json, sys
from decimal import Decimal, ROUND_HALF_UP

HTA_CALLS = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync"}


def ns(x):
    return int((Decimal(x) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


f = sys.argv[1]
d = json.load(gzip.open(f) if f.endswith(".gz") else open(f), parse_float=Decimal)
ev = d["traceEvents"] if isinstance(d, dict) else d
cpu, gpu = {}, {}
for e in ev:
    if e.get("ph") != "X":
        continue
    a = e.get("args", {}) or {}
    c = a.get("correlation")
    if c is None:
        continue
    if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"):
        cpu.setdefault(c, []).append((ns(e["ts"]), ns(e["dur"]), e["name"]))
    elif e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"):
        gpu.setdefault(c, []).append(ns(e["ts"]))
for sel in ("all", "hta"):
    n = total = mx = late = slow = 0
    for c, calls in cpu.items():
        for ts_c, dur_c, name in calls:
            if sel == "hta" and name not in HTA_CALLS:
                continue
            for ts_g in gpu.get(c, []):
                dl = max(0, ts_g - ts_c - dur_c)
                n += 1
                total += dl
                mx = max(mx, dl)
                late += dl > 100000
                slow += dur_c > 50000
    print(sel, n, total, mx, late, slow)
