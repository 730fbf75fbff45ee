#!/usr/bin/env python3
"""attn_sweep.py: causal attention kernels on one GPU, over the shapes training runs use.

Why: Transformer Engine (Megatron-Core, NeMo) runs cuDNN's fused flash attention on
compute capability >= 9.0 (TE get_attention_backend: "Disabling FlashAttention to give
FusedAttention preference on Hopper+"), PyTorch's SDPA picks cuDNN or FlashAttention-2 by
version; plateau's GPU files modelled FlashAttention-2 only. This run measures both kernels
through PyTorch's SDPA (cuDNN backend = cuDNN's fused SDPA graph, the kernels TE's
FusedAttention F16_arbitrary_seqlen calls; flash backend = FlashAttention-2 as built into
PyTorch) over head dims 64 / 128 / 192 (MLA: q/k 192, v 128), sequence 1k-32k, query heads
per GPU 4-128, GQA groups 1 and 8, micro-batch 1-4, forward and forward+backward.

A second, short section (`clock`) runs 8192^3 bf16 GEMMs with memory copies interleaved at
several duty cycles and records each GEMM's rate with the card's NVML power and SM clock:
how the GEMM rate follows the average power under the board's power limit.

Timing: run_all.py's Timer (CUDA events around a batch of back-to-back calls, median of 5
batches after warm-up). Output under --out: attn_sweep.csv, clock.csv, power.csv (NVML every
20 ms, tagged with the running case), meta.json (versions), log.txt. Never run in CI.
Dry run without torch: `python3 bench/gpu/attn_sweep.py --out DIR --dry-run`.
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
import run_all as ra  # noqa: E402  (Timer, Sampler, versions, log)

torch = ra.torch
F = ra.F


def cases():
    """(batch, q heads, kv heads, seq, d_qk, d_v): the attention shapes per GPU of the
    validation rows (Llama 2/3, GPT-3, Mixtral, Qwen3 at tp 1-8; DeepSeek-V3 MLA) and a grid
    around them."""
    out = []
    for d in (128, 64):
        for s in (1024, 2048, 4096, 8192, 16384):
            for h in (4, 8, 16, 32, 64):
                if d == 64 and h == 4:
                    continue
                for g in (1, 8):
                    hk = max(1, h // g)
                    if g == 8 and h < 8:
                        continue
                    out.append((1, h, hk, s, d, d))
    for s in (32768,):
        for h in (8, 16):
            out.append((1, h, h // 8 if h >= 8 else 1, s, 128, 128))
    for b in (2, 4):
        out.append((b, 32, 8, 4096, 128, 128))
        out.append((b, 16, 16, 2048, 128, 128))
    for h in (16, 32, 64, 128):  # DeepSeek-V3 MLA per GPU (128 heads / tp)
        for s in (4096,):
            out.append((1, h, h, s, 192, 128))
    return out


def sdpa_ctx(be):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel([{"flash": SDPBackend.FLASH_ATTENTION,
                         "cudnn": SDPBackend.CUDNN_ATTENTION}[be]])


def attention_fns(b, h, hk, s, dqk, dv):
    """forward and forward+backward of causal SDPA at one shape (bf16, GQA when hk < h), on
    random inputs; the caller picks the backend (sdpa_ctx) around the calls"""
    dev, dt = "cuda", torch.bfloat16
    q = torch.randn(b, h, s, dqk, device=dev, dtype=dt, requires_grad=True)
    k = torch.randn(b, hk, s, dqk, device=dev, dtype=dt, requires_grad=True)
    v = torch.randn(b, hk, s, dv, device=dev, dtype=dt, requires_grad=True)
    go = torch.randn(b, h, s, dv, device=dev, dtype=dt)
    gqa = hk != h

    def fwd():
        with torch.no_grad():
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)

    def fwd_bwd():
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=gqa)
        o.backward(go)
        q.grad = k.grad = v.grad = None
    return fwd, fwd_bwd


def time_case(timer, be, b, h, hk, s, dqk, dv):
    fwd, fwd_bwd = attention_fns(b, h, hk, s, dqk, dv)
    with sdpa_ctx(be):
        f = timer.time_s(fwd)
        fb = timer.time_s(fwd_bwd)
    return f, fb


def run_attention(args, timer, sampler, budget_s):
    rows = []
    t_end = time.time() + budget_s
    peak = args.peak_tflops * 1e12
    for (b, h, hk, s, dqk, dv) in cases():
        # causal FLOPs as plateau counts them: 2 GEMMs (QK^T, PV) of b*h*s*s*d, halved by the mask
        fwd_flops = 2.0 * b * h * s * s * (dqk + dv) / 2
        bwd_flops = 2.5 * fwd_flops  # 5 GEMMs in the backward (dQ, dK, dV, dP, recomputed S)
        for be in ("cudnn", "flash"):
            if time.time() > t_end:
                break
            row = {"backend": be, "batch": b, "q_heads": h, "kv_heads": hk, "seq": s,
                   "d_qk": dqk, "d_v": dv, "fwd_flops": fwd_flops, "bwd_flops": bwd_flops,
                   "fwd_s": "", "fwd_bwd_s": "", "bwd_s": "", "fwd_frac": "", "bwd_frac": "",
                   "error": ""}
            sampler.label = "attn:%s:b%d:h%d:k%d:s%d:d%d" % (be, b, h, hk, s, dqk)
            if args.dry_run:
                rows.append(row)
                continue
            try:
                f, fb = time_case(timer, be, b, h, hk, s, dqk, dv)
                bw = fb - f
                row.update(fwd_s="%.9g" % f, fwd_bwd_s="%.9g" % fb, bwd_s="%.9g" % bw,
                           fwd_frac="%.4f" % (fwd_flops / f / peak),
                           bwd_frac="%.4f" % (bwd_flops / bw / peak) if bw > 0 else "")
            except Exception as e:  # noqa: BLE001 - unsupported shapes are data too
                row["error"] = repr(e).split("\n")[0][:200]
            torch.cuda.empty_cache()
            rows.append(row)
            ra.log("%-5s b%d h%3d/%3d s%6d d%3d/%3d  fwd %s  bwd %s  %s" % (
                be, b, h, hk, s, dqk, dv, row["fwd_frac"], row["bwd_frac"], row["error"]))
    return rows


def run_clock(args, timer, sampler, seconds_each):
    """8192^3 bf16 GEMMs, each followed by `copies` 1 GiB device copies (memory-bound, lower
    power): per duty, the median GEMM rate (CUDA events around each GEMM) and the NVML power,
    SM clock of the same seconds."""
    rows = []
    if args.dry_run:
        return rows
    n = 8192
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    bm = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
    src = torch.empty(1 << 29, device="cuda", dtype=torch.bfloat16)  # 1 GiB
    dst = torch.empty_like(src)
    for copies in (0, 1, 2, 4, 8):
        sampler.label = "clock:copies%d" % copies
        en0, w0 = sampler.energy_j(), time.time()
        i0 = len(sampler.rows)
        rates, busy_gemm, busy_all = [], 0.0, 0.0
        t_end = time.time() + seconds_each
        while time.time() < t_end:
            evs = [(ra.event(), ra.event(), ra.event()) for _ in range(20)]
            for e0, e1, e2 in evs:
                e0.record()
                torch.matmul(a, bm, out=c)
                e1.record()
                for _ in range(copies):
                    dst.copy_(src)
                e2.record()
            evs[-1][2].synchronize()
            for e0, e1, e2 in evs:
                g = e0.elapsed_time(e1) / 1e3
                rates.append(2.0 * n ** 3 / g / 1e12)
                busy_gemm += g
                busy_all += e0.elapsed_time(e2) / 1e3
        en1, wall = sampler.energy_j(), time.time() - w0
        clocks = [r["sm_clock_mhz"] for r in sampler.rows[i0:] if r.get("sm_clock_mhz")]
        rows.append({"copies_per_gemm": copies, "gemms": len(rates),
                     "gemm_tflops_median": "%.1f" % statistics.median(rates),
                     "gemm_tflops_first": "%.1f" % rates[0],
                     "gemm_time_share": "%.3f" % (busy_gemm / busy_all),
                     "avg_power_w": "%.1f" % ((en1 - en0) / wall) if en0 is not None and
                     en1 is not None else "",
                     "sm_clock_mhz_median": statistics.median(clocks) if clocks else ""})
        ra.log("clock copies %d: %s" % (copies, rows[-1]))
    del a, bm, c, src, dst
    torch.cuda.empty_cache()
    return rows


def write_csv(path, rows):
    if not rows:
        open(path, "w").close()
        return
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=float, default=150, help="attention section, seconds")
    ap.add_argument("--clock-seconds", type=float, default=6.0, help="per duty cycle")
    ap.add_argument("--peak-tflops", type=float, default=989.4,
                    help="dense bf16 peak for the fractions (H100/H200 SXM datasheet: 989.4)")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if not args.dry_run and (torch is None or not torch.cuda.is_available()):
        sys.exit("attn_sweep.py: needs torch with a CUDA device (or --dry-run)")
    meta = {"versions": ra.versions() if not args.dry_run else {}, "args": vars(args)}
    sampler = ra.Sampler()
    meta["nvml"] = sampler.info
    sampler.start()
    timer = ra.Timer(args.dry_run)
    rc = 0
    try:
        ra.log("versions %s" % json.dumps(meta["versions"]))
        sampler.label = "idle_start"
        time.sleep(0 if args.dry_run else 2.0)
        for name, fn in (("attn_sweep", lambda: run_attention(args, timer, sampler, args.budget)),
                         ("clock", lambda: run_clock(args, timer, sampler, args.clock_seconds))):
            t = time.time()
            try:
                write_csv(os.path.join(args.out, name + ".csv"), fn())
            except Exception as e:  # noqa: BLE001 - keep the other section
                import traceback
                meta.setdefault("errors", {})[name] = traceback.format_exc()
                ra.log("ERROR in %s: %r" % (name, e))
                rc = 1
            meta[name + "_wall_s"] = time.time() - t
    finally:
        sampler.stop()
        sampler.write(os.path.join(args.out, "power.csv"))
        with open(os.path.join(args.out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1, default=str)
        with open(os.path.join(args.out, "log.txt"), "w") as f:
            f.write("\n".join(ra.LOG) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
