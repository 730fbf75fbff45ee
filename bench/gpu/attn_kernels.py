#!/usr/bin/env python3
"""attn_kernels.py: the GPU kernel time of causal attention alone, per shape, without the host.

attn_sweep.py times batches of back-to-back SDPA calls with CUDA events, so calls shorter than
the Python/autograd launch path (about 23 us forward, 130-290 us forward+backward on the lent
host) measure the host, not the kernel. This run takes the kernels' own durations from the CUDA
activity trace (torch.profiler, ProfilerActivity.CUDA): per shape and backend, 5 forward calls and
5 forward+backward calls under the profiler after warm-up; kernel time per call = the sum of the
device durations of every kernel and memset the calls launched / 5. The shapes are attn_sweep.py's
(cases()). Output: $OUT/attn_kernels.csv with attn_sweep.csv's columns (fwd_s, fwd_bwd_s, bwd_s
are kernel times here) plus fwd_kernels / bwd_kernels (kernels per call) and a 'timing' column.
Never run in CI.
"""
import argparse
import csv
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_all as ra  # noqa: E402
import attn_sweep as sw  # noqa: E402

torch = ra.torch


def kernel_time(fn, calls=5):
    from torch.profiler import profile, ProfilerActivity
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    total_us, n = 0.0, 0
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", None)
        if t is None:
            t = getattr(e, "self_cuda_time_total", 0.0)
        if t > 0:
            total_us += t
            n += e.count
    return total_us * 1e-6 / calls, n / calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=200)
    ap.add_argument("--peak-tflops", type=float, default=989.4)
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    rows = []
    t_end = time.time() + args.budget
    peak = args.peak_tflops * 1e12
    for (b, h, hk, s, dqk, dv) in sw.cases():
        fwd_flops = 2.0 * b * h * s * s * (dqk + dv) / 2
        bwd_flops = 2.5 * fwd_flops
        for be in ("cudnn", "flash"):
            if time.time() > t_end:
                break
            row = {"backend": be, "batch": b, "q_heads": h, "kv_heads": hk, "seq": s, "d_qk": dqk,
                   "d_v": dv, "fwd_flops": fwd_flops, "bwd_flops": bwd_flops, "fwd_s": "",
                   "fwd_bwd_s": "", "bwd_s": "", "fwd_frac": "", "bwd_frac": "",
                   "fwd_kernels": "", "bwd_kernels": "", "timing": "cuda kernel durations",
                   "error": ""}
            try:
                fwd, fwd_bwd = sw.attention_fns(b, h, hk, s, dqk, dv)
                with sw.sdpa_ctx(be):
                    f, nf = kernel_time(fwd)
                    fb, nfb = kernel_time(fwd_bwd)
                del fwd, fwd_bwd
                bw = fb - f
                row.update(fwd_s="%.9g" % f, fwd_bwd_s="%.9g" % fb, bwd_s="%.9g" % bw,
                           fwd_frac="%.4f" % (fwd_flops / f / peak),
                           bwd_frac="%.4f" % (bwd_flops / bw / peak) if bw > 0 else "",
                           fwd_kernels="%.1f" % nf, bwd_kernels="%.1f" % (nfb - nf))
            except Exception as e:  # noqa: BLE001
                row["error"] = repr(e).split("\n")[0][:200]
            torch.cuda.empty_cache()
            rows.append(row)
            ra.log("%-5s b%d h%3d/%3d s%6d d%3d  fwd %s bwd %s %s" % (
                be, b, h, hk, s, dqk, row["fwd_frac"], row["bwd_frac"], row["error"]))
    with open(os.path.join(args.out, "attn_kernels.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(args.out, "attn_kernels_meta.json"), "w") as f:
        import json
        json.dump({"versions": ra.versions(), "args": vars(args)}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
