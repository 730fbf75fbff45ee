#!/usr/bin/env python3
"""Mamba-2 SSD kernels on one GPU: device time per kernel from the CUDA activity trace.

Times mamba_ssm's chunked state-space-duality scan, `mamba_chunk_scan_combined` (Dao & Gu 2024,
arXiv 2405.21060, Sec. 6; state-spaces/mamba mamba_ssm/ops/triton/ssd_combined.py), forward and
forward+backward, called as Megatron-Core's MambaMixer calls its core (z=None: the gate goes to the
gated RMSNorm; per-head D, dt_bias, dt_softplus=True), and the gated RMSNorm that follows it
(mamba_ssm/ops/triton/layernorm_gated.py rmsnorm_fn, norm_before_gate=False, group size
d_inner / ngroups). Megatron-Core's fused path (MambaSplitConv1dScanCombinedFn) runs the same
_mamba_chunk_scan_combined_fwd/_bwd; its causal conv1d is a CUDA extension not timed here.

The kernels are mamba_ssm's Triton source, imported from --mamba-src (a checkout of
state-spaces/mamba; its CUDA extensions are not needed: the package __init__ is bypassed).
Per shape: 3 warm-up forward+backward calls (Triton autotuning happens there), then torch.profiler
over `--reps` forward calls and, separately, `--reps` forward+backward calls; each kernel's device
duration is summed by name and divided by reps. The backward is the forward+backward minus the
forward, per kernel name. Wall times (CUDA events around the same loops) are written beside.

Writes OUT/ssd_kernels.csv (one row per shape, pass and kernel), OUT/ssd_summary.csv (one row per
shape: kernel sums and wall times) and OUT/ssd_meta.json (versions, GPU, clocks).
"""
import argparse
import csv
import json
import os
import sys
import time
import types

SHAPES_FIRST = [
    (1, 4096, 64, 64, 8, 128, 128),
    (1, 16384, 64, 64, 8, 128, 128),
    (1, 32768, 64, 64, 8, 128, 128),
    (8, 4096, 64, 64, 8, 128, 128),
]
SHAPES = [
    # batch, seqlen, nheads, headdim, ngroups, dstate, chunk  -- Nemotron 3 Nano at tp 1 and tp 2
    (1, 8192, 64, 64, 8, 128, 128),
    (2, 8192, 64, 64, 8, 128, 128),
    (4, 8192, 64, 64, 8, 128, 128),
    (1, 8192, 32, 64, 4, 128, 128),
    (2, 8192, 32, 64, 4, 128, 128),
    (4, 8192, 32, 64, 4, 128, 128),
    # the same work spread differently: heads, groups, state, chunk, length
    (1, 8192, 128, 64, 8, 128, 128),  # also Nemotron-H 8B's mixer (mamba_num_heads 128, head_dim 64, groups 8)
    (1, 8192, 16, 64, 2, 128, 128),
    (1, 8192, 64, 64, 1, 128, 128),
    (1, 8192, 64, 64, 8, 64, 128),
    (1, 8192, 64, 64, 8, 256, 128),
    (1, 8192, 64, 64, 8, 128, 256),
    (1, 8192, 64, 64, 8, 128, 64),
    (1, 4096, 64, 64, 8, 128, 128),
    (1, 16384, 64, 64, 8, 128, 128),
    (1, 32768, 64, 64, 8, 128, 128),
    (8, 4096, 64, 64, 8, 128, 128),
    (1, 8192, 80, 64, 1, 128, 256),   # Mamba-2 2.7B (mamba2-2.7b config: d_model 2560, expand 2)
    (1, 8192, 64, 128, 8, 128, 128),
]


def load_mamba(src):
    pkg = types.ModuleType("mamba_ssm")
    pkg.__path__ = [os.path.join(src, "mamba_ssm")]
    sys.modules["mamba_ssm"] = pkg
    from mamba_ssm.ops.triton.ssd_combined import mamba_chunk_scan_combined
    from mamba_ssm.ops.triton.layernorm_gated import rmsnorm_fn
    return mamba_chunk_scan_combined, rmsnorm_fn


def kernel_times(torch, fn, reps):
    from torch.profiler import profile, ProfilerActivity
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    out = {}
    for e in prof.key_averages():  # as attn_kernels.py: the CUDA activity's kernels, by name
        t = getattr(e, "self_device_time_total", None)
        if t is None:
            t = getattr(e, "self_cuda_time_total", 0.0)
        if t > 0:
            out[e.key] = [e.count, t * 1e-6]
    return {k: (v[0] / reps, v[1] / reps) for k, v in out.items()}


def wall_time(torch, fn, reps):
    torch.cuda.synchronize()
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e-3 / reps


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mamba-src", required=True, help="checkout of state-spaces/mamba")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--budget", type=float, default=300.0, help="stop starting shapes after this many seconds")
    ap.add_argument("--lengths-first", action="store_true", help="time the sequence-length shapes first")
    ap.add_argument("--scan-z", action="store_true",
                    help="pass the gate z to the scan (Megatron-Core MambaMixer's call: mamba_split_conv1d_scan_combined "
                         "without rmsnorm_weight gates inside _chunk_scan_fwd) and time the norm with z=None")
    ap.add_argument("--nano-only", action="store_true", help="only Nemotron 3 Nano's shapes (tp 1 and 2)")
    args = ap.parse_args()

    import torch
    scan, rmsnorm_fn = load_mamba(args.mamba_src)
    import triton
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    meta = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "torch": torch.__version__,
            "cuda": torch.version.cuda, "triton": triton.__version__, "gpu": props.name,
            "sms": props.multi_processor_count, "mamba_src": args.mamba_src, "scan_z": args.scan_z, "shapes": [], "skipped": []}
    try:
        import subprocess
        meta["nvidia_smi"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,power.limit,clocks.max.sm",
                                             "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except Exception as ex:  # nvidia-smi missing: keep going
        meta["nvidia_smi"] = str(ex)
    t0 = time.time()
    krows, srows = [], []
    if args.nano_only:
        order = [s for s in SHAPES[:6]]
    else:
        order = SHAPES_FIRST + [s for s in SHAPES if s not in SHAPES_FIRST] if args.lengths_first else SHAPES
    for (b, L, h, p, g, n, chunk) in order:
        if time.time() - t0 > args.budget:
            meta["skipped"].append([b, L, h, p, g, n, chunk])
            continue
        torch.manual_seed(0)
        x = torch.randn(b, L, h, p, device=dev, dtype=torch.bfloat16, requires_grad=True)
        dt = torch.randn(b, L, h, device=dev, dtype=torch.bfloat16, requires_grad=True)
        A = (-torch.rand(h, device=dev, dtype=torch.float32) * 8 - 1).requires_grad_()
        B = torch.randn(b, L, g, n, device=dev, dtype=torch.bfloat16, requires_grad=True)
        C = torch.randn(b, L, g, n, device=dev, dtype=torch.bfloat16, requires_grad=True)
        D = torch.ones(h, device=dev, dtype=torch.float32, requires_grad=True)
        dt_bias = torch.rand(h, device=dev, dtype=torch.float32, requires_grad=True)
        dout = torch.randn(b, L, h, p, device=dev, dtype=torch.bfloat16)
        z = torch.randn(b, L, h, p, device=dev, dtype=torch.bfloat16, requires_grad=True) if args.scan_z else None
        d_inner = h * p
        zin = torch.randn(b * L, d_inner, device=dev, dtype=torch.bfloat16, requires_grad=True)
        yin = torch.randn(b * L, d_inner, device=dev, dtype=torch.bfloat16, requires_grad=True)
        w = torch.ones(d_inner, device=dev, dtype=torch.bfloat16, requires_grad=True)
        gnorm_dout = torch.randn(b * L, d_inner, device=dev, dtype=torch.bfloat16)

        def fwd():
            return scan(x, dt, A, B, C, chunk, D=D, z=z, dt_bias=dt_bias, dt_softplus=True)

        leaves = (x, dt, A, B, C, D, dt_bias) + ((z,) if z is not None else ())
        nleaves = (zin, yin, w)

        def fwdbwd():
            # In MambaMixer x, dt, B, C come from the conv1d and in_proj: no gradient accumulation into
            # leaves. Clearing .grad keeps AccumulateGrad from adding into an old gradient (a kernel the
            # real backward does not run).
            for t in leaves:
                t.grad = None
            y = fwd()
            y.backward(dout)

        def nfwd():
            return rmsnorm_fn(yin, w, None, z=None if args.scan_z else zin, eps=1e-5, group_size=d_inner // g, norm_before_gate=False)

        def nfwdbwd():
            for t in nleaves:
                t.grad = None
            nfwd().backward(gnorm_dout)

        try:
            ts = time.time()
            for _ in range(3):
                fwdbwd()
                nfwdbwd()
            torch.cuda.synchronize()
            warm_s = time.time() - ts
            res = {}
            for name, f, fb in (("ssd", fwd, fwdbwd), ("gated_rmsnorm", nfwd, nfwdbwd)):
                kf = kernel_times(torch, f, args.reps)
                kfb = kernel_times(torch, fb, args.reps)
                wf = wall_time(torch, f, args.reps)
                wfb = wall_time(torch, fb, args.reps)
                res[name] = (kf, kfb, wf, wfb)
        except Exception as ex:  # a shape Triton refuses: record and go on
            meta["skipped"].append([b, L, h, p, g, n, chunk, repr(ex)[:300]])
            continue
        shape = dict(batch=b, seqlen=L, nheads=h, headdim=p, ngroups=g, dstate=n, chunk=chunk)
        for name, (kf, kfb, wf, wfb) in res.items():
            for k in sorted(set(kf) | set(kfb)):
                cf, tf = kf.get(k, (0, 0.0))
                cfb, tfb = kfb.get(k, (0, 0.0))
                krows.append(dict(op=name, **shape, kernel=k, fwd_calls=cf, fwd_s=f"{tf:.9f}",
                                  bwd_calls=cfb - cf, bwd_s=f"{tfb - tf:.9f}"))
            srows.append(dict(op=name, **shape, fwd_kernel_s=f"{sum(v[1] for v in kf.values()):.9f}",
                              fwd_bwd_kernel_s=f"{sum(v[1] for v in kfb.values()):.9f}",
                              fwd_kernels=sum(v[0] for v in kf.values()),
                              fwd_bwd_kernels=sum(v[0] for v in kfb.values()),
                              fwd_wall_s=f"{wf:.9f}", fwd_bwd_wall_s=f"{wfb:.9f}", warmup_s=f"{warm_s:.2f}"))
        print(f"{time.time() - t0:6.1f}s {shape} ssd fwd {float(srows[-2]['fwd_kernel_s']) * 1e3:.3f} ms "
              f"fwd+bwd {float(srows[-2]['fwd_bwd_kernel_s']) * 1e3:.3f} ms (warm-up {warm_s:.1f} s)", flush=True)
        meta["shapes"].append(shape)
        del x, dt, A, B, C, D, dt_bias, dout, z, zin, yin, w, gnorm_dout
        torch.cuda.empty_cache()
        for fname, rows in (("ssd_kernels.csv", krows), ("ssd_summary.csv", srows)):
            with open(os.path.join(args.out, fname), "w", newline="") as f:
                wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
                wr.writeheader()
                wr.writerows(rows)
        meta["wall_s"] = round(time.time() - t0, 1)
        with open(os.path.join(args.out, "ssd_meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
    print(json.dumps({k: meta[k] for k in ("gpu", "triton", "torch", "skipped", "wall_s") if k in meta}))


if __name__ == "__main__":
    main()
