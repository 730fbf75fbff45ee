#!/usr/bin/env python3
# Host time per kernel of a C++ loop vs a Python loop (issue 19, session 11, helper qwen11):
# data/ground-truth/h200/README.md. PyTorch only, about 30 s, no profiler.
# Run: python3 bench/gpu/host_launch.py > OUT.json (JSON on stdout, nothing else written).
import json, time, torch
torch.cuda.init(); dev = "cuda"
N = 16                      # local experts of Qwen3-30B at ep 8
def med(fn, per, iters=300, warm=30):
    for _ in range(warm): fn()
    torch.cuda.synchronize(); ts = []
    for _ in range(iters):
        t0 = time.perf_counter(); fn(); ts.append((time.perf_counter() - t0) / per)
        torch.cuda.synchronize()
    ts.sort(); return ts[len(ts) // 2] * 1e6, ts[len(ts) // 10] * 1e6   # median, p10 (us)
small_bf = [torch.randn(1024, device=dev, dtype=torch.bfloat16) for _ in range(N)]
mixed = [torch.randn(1024, device=dev, dtype=(torch.bfloat16 if i % 2 else torch.float32)) for i in range(N)]
a = torch.randn(64, 64, device=dev, dtype=torch.bfloat16)
cnt = torch.randint(0, 100, (N,), device=dev)
res = {}
# 1 python loop of eager ATen ops with an output (dispatcher + allocation + launch + Python)
res["py_loop_mul_us"] = med(lambda: [torch.mul(x, 2.0) for x in small_bf], N)
# 2 C++ loop: foreach slow path (mixed dtypes) = one at::mul per tensor from C++, with outputs
res["cpp_foreach_slow_out_us"] = med(lambda: torch._foreach_mul(mixed, 2.0), N)
# 3 C++ loop in place (no allocation)
res["cpp_foreach_slow_inplace_us"] = med(lambda: torch._foreach_mul_(mixed, 1.0), N)
# 4 fast path: one multi-tensor-apply kernel for all 16 (per tensor)
res["cpp_foreach_fast_out_us"] = med(lambda: torch._foreach_mul(small_bf, 2.0), N)
# 5 bare launch through pybind (no dispatcher, no allocation): torch.cuda._sleep
res["py_cuda_sleep_launch_us"] = med(lambda: [torch.cuda._sleep(1) for _ in range(N)], N)
# 6 python loop of tiny cuBLAS GEMMs (aten::mm) without profiler, vs the 48 us profiled figure
res["py_loop_mm_us"] = med(lambda: [torch.mm(a, a) for _ in range(N)], N)
# 7 one device-to-host read of 16 counts (Megatron's tokens_per_expert.tolist())
res["tolist_sync_us"] = med(lambda: cnt.tolist(), 1)
# 8 empty allocation alone (caching allocator through the dispatcher)
res["py_empty_us"] = med(lambda: [torch.empty(4096, device=dev, dtype=torch.uint8) for _ in range(N)], N)
res["torch"] = torch.__version__; res["gpu"] = torch.cuda.get_device_name()
print(json.dumps(res, indent=1))
