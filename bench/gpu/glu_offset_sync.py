#!/usr/bin/env python3
"""glu_offset_sync.py: does Megatron-Core's GPT-OSS expert activation stall the host? (issue 19, helper oss11)
PyTorch only, one H100, ~1 min. Writes JSON to stdout. Shapes: the Bridge GPT-OSS H100 rows (ep 8,
mbs 1, seq 4096: 16 local experts x 1024 tokens, hidden 2880, expert ffn 2880, bf16).
A block here = Megatron-Core TEGroupedMLP.forward as eager code: fc1 (16 GEMMs), the clamped-GLU
chunk/clamp/cat, the offset tensor, the compiled weighted quick-GEGLU, fc2 (16 GEMMs), _apply_bias
(per expert t + b*p, cat). Variant 'tensor' builds the offset as Megatron does
(torch.tensor(1.0, device=...)), 'full' with torch.full (no sync)."""
import json, time, statistics, torch
dev, dt = "cuda", torch.bfloat16
E, T, H, F = 16, 1024, 2880, 2880
torch.manual_seed(0)
x = torch.randn(E * T, H, device=dev, dtype=dt)
w1 = [torch.randn(H, 2 * F, device=dev, dtype=dt) * 0.02 for _ in range(E)]
w2 = [torch.randn(F, H, device=dev, dtype=dt) * 0.02 for _ in range(E)]
b2 = [torch.randn(H, device=dev, dtype=dt) for _ in range(E)]
probs = torch.rand(E * T, 1, device=dev, dtype=dt)

@torch.compile
def wgeglu(y, w, off):
    y1, y2 = torch.chunk(y, 2, -1)
    return (y1 * torch.sigmoid(1.702 * y1) * (y2 + off) * w).to(y.dtype)

def block(variant):
    h = torch.cat([xi @ wi for xi, wi in zip(torch.split(x, T), w1)])
    a, b = h.chunk(2, -1)
    h = torch.cat((a.clamp(max=7.0), b.clamp(min=-7.0, max=7.0)), -1)
    if variant == "tensor":
        off = torch.tensor(1.0, dtype=dt, device=dev)
    else:
        off = torch.full((), 1.0, dtype=dt, device=dev)
    g = wgeglu(h, probs, off)
    o = torch.cat([gi @ wi for gi, wi in zip(torch.split(g, T), w2)])
    return torch.cat([t + bb * p for t, bb, p in zip(torch.split(o, T), b2, torch.split(probs, T))])

N = 30
res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "blocks": N}
for v in ("full", "tensor"):
    for _ in range(5):
        block(v)
    torch.cuda.synchronize()
    walls, issues = [], []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(N):
            block(v)
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        t2 = time.perf_counter()
        issues.append((t1 - t0) / N * 1e6)
        walls.append((t2 - t0) / N * 1e6)
    res[v + "_wall_us_per_block"] = statistics.median(walls)
    res[v + "_issue_us_per_block"] = statistics.median(issues)
# GPU-only time per block: hold the GPU with a sleep so the host queues all blocks first ('full').
gpu = []
for _ in range(5):
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(int(2e9))  # ~1 s at 1.98 GHz
    e0.record()
    t0 = time.perf_counter()
    for _ in range(N):
        block("full")
    issued = time.perf_counter() - t0
    e1.record()
    torch.cuda.synchronize()
    gpu.append((e0.elapsed_time(e1) * 1e3 / N, issued))
res["gpu_us_per_block"] = statistics.median(g for g, _ in gpu)
res["gpu_measure_host_issue_s"] = max(i for _, i in gpu)  # must stay < ~1 s (the sleep)
# Does torch.tensor(..., device=cuda) wait for queued work? Host time of one call behind ~16 GEMMs.
for v in ("full", "tensor"):
    ts = []
    for _ in range(10):
        torch.cuda.synchronize()
        for xi, wi in zip(torch.split(x, T), w1):
            xi @ wi
        t0 = time.perf_counter()
        if v == "tensor":
            torch.tensor(1.0, dtype=dt, device=dev)
        else:
            torch.full((), 1.0, dtype=dt, device=dev)
        ts.append((time.perf_counter() - t0) * 1e6)
    res[v + "_call_us_behind_16_gemms"] = statistics.median(ts)
print(json.dumps(res, indent=1))
