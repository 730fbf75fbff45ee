#!/usr/bin/env python3
"""attn_soak.py: cuDNN causal attention (forward + backward) back to back for 30 s per shape on one
GPU: its rate, SM clock and board power over time, to tell whether attention's burst rate
(attn_sweep.csv, measured at the 1980 MHz boost) holds under the board's power limit or falls
like the GEMMs' (gemm.sustained_fraction). Two shapes: Llama-3-8B (seq 8192, 32 query / 8 KV
heads, d 128) and Llama-2-7B at seq 32768 with 16 heads (NeMo's long-context rows per GPU).
Rates count plateau's executed FLOPs: causal forward 2 GEMMs halved, backward 2.5 x forward.
Writes $OUT/attn_soak.json (one row per 5 calls). Never run in CI.
"""
import os, time, json, threading, torch, torch.nn.functional as F
import pynvml as N  # or nvidia-ml-py
from torch.nn.attention import sdpa_kernel, SDPBackend
N.nvmlInit(); h = N.nvmlDeviceGetHandleByIndex(0)
out = os.environ.get("OUT", "/tmp"); rows = []
def run(name, b, hq, hk, s, d, secs=30):
    q = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(b, hk, s, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn_like(k, requires_grad=True); g = torch.randn(b, hq, s, d, device="cuda", dtype=torch.bfloat16)
    flops = 2 * 2 * b * hq * s * s * d / 2 * 3.5   # causal fwd (2 GEMMs, halved) + bwd (2.5x)
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        for _ in range(3): F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hq != hk).backward(g)
        torch.cuda.synchronize(); t0 = time.time(); n = 0
        while time.time() - t0 < secs:
            e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True); e0.record()
            for _ in range(5): F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=hq != hk).backward(g)
            e1.record(); e1.synchronize(); dt = e0.elapsed_time(e1) / 1e3 / 5; n += 5
            rows.append(dict(case=name, t=time.time() - t0, tflops=flops / dt / 1e12,
                             sm_mhz=N.nvmlDeviceGetClockInfo(h, N.NVML_CLOCK_SM),
                             power_w=N.nvmlDeviceGetPowerUsage(h) / 1e3))
def gemm_soak(secs=15, n=8192):
    """the same card's 8192^3 bf16 GEMM soak, for the sustained/burst ratio beside attention's"""
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16); b = torch.randn_like(a); c = torch.empty_like(a)
    t0 = time.time()
    while time.time() - t0 < secs:
        e0, e1 = torch.cuda.Event(True), torch.cuda.Event(True); e0.record()
        for _ in range(20): torch.matmul(a, b, out=c)
        e1.record(); e1.synchronize(); dt = e0.elapsed_time(e1) / 1e3 / 20
        rows.append(dict(case="gemm_8192", t=time.time() - t0, tflops=2 * n ** 3 / dt / 1e12,
                         sm_mhz=N.nvmlDeviceGetClockInfo(h, N.NVML_CLOCK_SM),
                         power_w=N.nvmlDeviceGetPowerUsage(h) / 1e3))
gemm_soak()
time.sleep(5)
run("llama3-8b_s8192_h32kv8", 1, 32, 8, 8192, 128)
time.sleep(5)
run("llama2-7b_s32768_h16", 1, 16, 16, 32768, 128)
json.dump(rows, open(os.path.join(out, "attn_soak.json"), "w"))
for c in sorted(set(r["case"] for r in rows)):
    rs = [r for r in rows if r["case"] == c]; first, last = rs[:5], rs[-20:]
    avg = lambda xs, k: sum(x[k] for x in xs) / len(xs)
    print(c, "first %.0f TF @ %.0f MHz, last %.0f TF @ %.0f MHz %.0f W" % (avg(first, "tflops"), avg(first, "sm_mhz"), avg(last, "tflops"), avg(last, "sm_mhz"), avg(last, "power_w")))
