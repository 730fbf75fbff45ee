#!/usr/bin/env python3
"""run_all.py: ground truth for plateau's compute model on one NVIDIA GPU.

One prepared run of a few minutes (docs/ground-truth.md says what each number
is for and how it compares with `plateau predict --ops`):

  1. GEMMs: every GEMM shape of `plateau predict --ops --format json` for the
     models and layouts in shapes.json (forward, dgrad, wgrad as plateau names
     them), bf16 through torch.matmul and fp8 (e4m3) through torch._scaled_mm;
  2. attention: SDPA forward and forward+backward at the layouts' attention
     shapes, with the FlashAttention-2 backend, the cuDNN backend and the default;
  3. memory-bound ops: copy, add, mul, silu, RMSNorm (fused and as Hugging
     Face's LlamaRMSNorm), LayerNorm, softmax and cross-entropy;
  4. a sustained GEMM soak (8192^3 bf16, about 20 s) for the burst vs
     sustained rate and the power it draws;
  5. training steps of a small Llama-style model (model.json, also a plateau
     model file) at seq 4096: timed steps, then a few steps under
     torch.profiler with record_shapes=True, written as a gzipped Kineto trace.
NVML power, clocks and temperature are sampled in a background thread all along,
each sample tagged with the section running.

Outputs under --out (at most 8 files): summary.json (versions, GPU, soak,
steps, section timings), gemm.csv, attention.csv, memory.csv, power.csv,
trace.json.gz, log.txt.

Every section stops on a wall-clock limit so the whole run ends in about 6
minutes. --dry-run runs the planning and writing logic without torch or a GPU
(a fake timer), so the CPU side can be checked anywhere. Never run in CI.
"""
import argparse
import csv
import gzip
import json
import math
import os
import shutil
import statistics
import sys
import threading
import time

try:  # the device machine has both; a dry run needs neither
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - dry run
    torch = None
    F = None
try:
    import pynvml
except ImportError:  # pragma: no cover
    pynvml = None

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = time.time()
LOG = []
SMOKE = False  # --smoke: torch on the CPU at toy sizes, to exercise every code path


def sync():
    if not SMOKE:
        torch.cuda.synchronize()


class WallEvent:
    """torch.cuda.Event's timing interface on the host clock (smoke runs)."""

    def __init__(self, enable_timing=True):
        self.t = None

    def record(self):
        self.t = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


def event():
    return WallEvent() if SMOKE else torch.cuda.Event(enable_timing=True)


def log(msg):
    line = "[%7.1f s] %s" % (time.time() - T0, msg)
    print(line, flush=True)
    LOG.append(line)


# ---------------------------------------------------------------- NVML sampler
class Sampler:
    """Background thread: power, energy, clocks, temperature every period_s,
    tagged with the current section label."""

    def __init__(self, period_s=0.02):
        self.period_s = period_s
        self.label = "start"
        self.rows = []
        self.ok = False
        self.handle = None
        self.stop_ev = threading.Event()
        self.thread = None
        self.info = {}
        if pynvml is None:
            self.info["nvml"] = "pynvml not importable"
            return
        try:
            pynvml.nvmlInit()
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(0)
            self.ok = True
            self.info = self._static_info()
        except Exception as e:  # noqa: BLE001 - record and go on without power
            self.info["nvml"] = "init failed: %r" % (e,)

    def _try(self, fn, *a):
        try:
            return fn(*a)
        except Exception:  # noqa: BLE001
            return None

    def _static_info(self):
        h = self.handle
        p = pynvml
        s = lambda v: v.decode() if isinstance(v, bytes) else v  # noqa: E731
        info = {
            "nvml_name": s(self._try(p.nvmlDeviceGetName, h)),
            "driver": s(self._try(p.nvmlSystemGetDriverVersion)),
            "nvml_version": s(self._try(p.nvmlSystemGetNVMLVersion)),
            "cuda_driver_version": self._try(p.nvmlSystemGetCudaDriverVersion),
            "power_limit_w": (self._try(p.nvmlDeviceGetPowerManagementLimit, h) or 0) / 1000.0,
            "power_default_limit_w": (self._try(p.nvmlDeviceGetPowerManagementDefaultLimit, h) or 0)
            / 1000.0,
            "enforced_power_limit_w": (self._try(p.nvmlDeviceGetEnforcedPowerLimit, h) or 0) / 1000.0,
            "max_sm_clock_mhz": self._try(p.nvmlDeviceGetMaxClockInfo, h, p.NVML_CLOCK_SM),
            "max_mem_clock_mhz": self._try(p.nvmlDeviceGetMaxClockInfo, h, p.NVML_CLOCK_MEM),
            "serial_hidden": True,
        }
        mem = self._try(p.nvmlDeviceGetMemoryInfo, h)
        if mem is not None:
            info["memory_total_bytes"] = mem.total
        return info

    def _sample(self):
        h, p = self.handle, pynvml
        row = {
            "t_s": time.time() - T0,
            "section": self.label,
            "power_w": None,
            "power_instant_w": None,
            "energy_j": None,
            "sm_clock_mhz": self._try(p.nvmlDeviceGetClockInfo, h, p.NVML_CLOCK_SM),
            "mem_clock_mhz": self._try(p.nvmlDeviceGetClockInfo, h, p.NVML_CLOCK_MEM),
            "temp_c": self._try(p.nvmlDeviceGetTemperature, h, p.NVML_TEMPERATURE_GPU),
            "util_gpu": None,
            "clock_reasons": None,
        }
        pw = self._try(p.nvmlDeviceGetPowerUsage, h)
        row["power_w"] = pw / 1000.0 if pw is not None else None
        en = self._try(p.nvmlDeviceGetTotalEnergyConsumption, h)
        row["energy_j"] = en / 1000.0 if en is not None else None
        fid = getattr(p, "NVML_FI_DEV_POWER_INSTANT", None)
        if fid is not None:
            try:
                fv = p.nvmlDeviceGetFieldValues(h, [fid])
                if fv and fv[0].nvmlReturn == 0:
                    row["power_instant_w"] = fv[0].value.uiVal / 1000.0
            except Exception:  # noqa: BLE001 - older drivers lack the field
                pass
        ut = self._try(p.nvmlDeviceGetUtilizationRates, h)
        row["util_gpu"] = ut.gpu if ut is not None else None
        fn = getattr(p, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            p, "nvmlDeviceGetCurrentClocksThrottleReasons", None
        )
        if fn is not None:
            row["clock_reasons"] = self._try(fn, h)
        return row

    def _loop(self):
        while not self.stop_ev.is_set():
            self.rows.append(self._sample())
            self.stop_ev.wait(self.period_s)

    def start(self):
        if self.ok:
            self.thread = threading.Thread(target=self._loop, daemon=True)
            self.thread.start()

    def stop(self):
        self.stop_ev.set()
        if self.thread is not None:
            self.thread.join(timeout=2)

    def energy_j(self):
        if not self.ok:
            return None
        en = self._try(pynvml.nvmlDeviceGetTotalEnergyConsumption, self.handle)
        return en / 1000.0 if en is not None else None

    def write(self, path):
        keys = ["t_s", "section", "power_w", "power_instant_w", "energy_j", "sm_clock_mhz",
                "mem_clock_mhz", "temp_c", "util_gpu", "clock_reasons"]
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in self.rows:
                w.writerow({k: (("%.4f" % r[k]) if isinstance(r[k], float) else r[k]) for k in keys})


# ---------------------------------------------------------------- timing
class Timer:
    """Times fn() on the GPU with CUDA events: a batch of reps between two
    events (so launch gaps of small kernels do not count), repeated, median."""

    def __init__(self, dry):
        self.dry = dry

    def time_s(self, fn, fake_s=1e-3, target_batch_s=0.004, batches=5, max_reps=200):
        if self.dry:
            fn()
            return fake_s
        fn()
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        one = max(time.perf_counter() - t0, 1e-6)
        reps = int(min(max_reps, max(1, math.ceil(target_batch_s / one))))
        times = []
        for _ in range(batches):
            a, b = event(), event()
            a.record()
            for _ in range(reps):
                fn()
            b.record()
            b.synchronize()
            times.append(a.elapsed_time(b) / 1e3 / reps)
        return statistics.median(times)


def device():
    return "cpu" if SMOKE else "cuda"


# ---------------------------------------------------------------- GEMMs
def gemm_plan(shapes):
    """Unique (M, N, K) of every GEMM plateau times: forward (m, n, k), dgrad
    (m, k, n) and wgrad (k, n, m) of each gemm op (src/sim/compute.c,
    gemm_op_s), with the configs and op names that use it."""
    plan = {}
    for cfg in shapes["configs"]:
        for op in cfg["ops"]:
            if op["kind"] != "gemm":
                continue
            m, n, k, c = op["m"], op["n"], op["k"], op["count"]
            for pas, mnk in (("fwd", (m, n, k)), ("dgrad", (m, k, n)), ("wgrad", (k, n, m))):
                key = mnk + (c, pas)
                e = plan.setdefault(key, {"uses": []})
                e["uses"].append("%s:%s:%s" % (cfg["name"], op["name"], pas))
    return plan


def gemm_inputs(M, N, K, count, pas, sets):
    """Operands laid out as autograd hands them to cuBLAS for nn.Linear
    (y = x W^T with x: tokens x in, W: out x in), in plateau's M, N, K:
      fwd   (m, n, k): x[M,K] @ W[N,K]^T          (TN)
      dgrad (m, k, n): dy[M,K] @ W[K,N]           (NN)
      wgrad (k, n, m): dy[K,N]^T @ x[K,M] -> [N,M] (NT; same FLOPs)"""
    dev = device()
    bs = (count,) if count > 1 else ()
    sa = {"fwd": (M, K), "dgrad": (M, K), "wgrad": (K, N)}[pas]
    sb = {"fwd": (N, K), "dgrad": (K, N), "wgrad": (K, M)}[pas]
    out = []
    for _ in range(sets):
        a = torch.randn(bs + sa, device=dev, dtype=torch.bfloat16)
        b = torch.randn(bs + sb, device=dev, dtype=torch.bfloat16)
        out.append((a, b))
    return out


def gemm_call(pas, a, b):
    if pas == "fwd":
        return torch.matmul(a, b.transpose(-1, -2))
    if pas == "dgrad":
        return torch.matmul(a, b)
    return torch.matmul(a.transpose(-1, -2), b)


def run_gemms(args, timer, sampler, plan, budget_s):
    rows = []
    t_end = time.time() + budget_s
    keys = sorted(plan.keys(), key=lambda s: (-(s[0] * s[1] * s[2] * s[3]), s[4]))
    l2 = 50 * 2**20
    if not args.dry_run and not SMOKE:
        l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", l2)
    sampler.label = "gemm"
    t_start = time.time()
    for dtype, share in (("bf16", 0.6), ("fp8", 1.0)):
        t_end = t_start + share * budget_s
        for key in keys:
            if time.time() > t_end:
                log("gemm %s: wall-clock limit reached, %d rows" % (dtype, len(rows)))
                break
            M, N, K, count, pas = key
            if dtype == "fp8" and pas != "fwd" and (M, N, K, count, "fwd") in plan:
                continue  # fp8 runs every pass as TN (Hopper FP8 GEMMs are TN only): same kernel
            M0, N0, K0 = M, N, K
            if args.smoke:
                M, N, K = min(M, 256), min(N, 256), min(K, 256)
            flops = 2.0 * M * N * K * count
            row = {"dtype": dtype, "pass": pas, "M": M0, "N": N0, "K": K0, "count": count,
                   "flops": 2.0 * M0 * N0 * K0 * count,
                   "time_s": "", "tflops": "", "sets": "", "error": "",
                   "uses": " ".join(sorted(set(plan[key]["uses"])))}
            try:
                set_bytes = 2 * (M * K + N * K + M * N) * count
                sets = max(1, min(8, math.ceil(3 * l2 / max(set_bytes, 1))))
                row["sets"] = sets
                if args.dry_run:
                    t = timer.time_s(lambda: None, fake_s=flops / 6e14 + 5e-6)
                else:
                    t = time_gemm(timer, M, N, K, count, dtype, pas, sets)
                row["time_s"] = "%.9g" % t
                row["tflops"] = "%.2f" % (flops / t / 1e12)
            except Exception as e:  # noqa: BLE001 - a shape that fails is recorded, not fatal
                row["error"] = repr(e)[:200]
            rows.append(row)
        if not args.dry_run and not SMOKE:
            torch.cuda.empty_cache()
    return rows


def time_gemm(timer, M, N, K, count, dtype, pas, sets):
    i = [0]
    if dtype == "bf16":
        ins = gemm_inputs(M, N, K, count, pas, sets)

        def fn():
            a, b = ins[i[0] % sets]
            i[0] += 1
            return gemm_call(pas, a, b)
        return timer.time_s(fn)
    if count > 1:
        raise RuntimeError("fp8 batched GEMM not timed (torch._scaled_mm is 2-D)")
    ins = gemm_inputs(M, N, K, count, "fwd", sets)
    f8 = torch.float8_e4m3fn
    one = torch.ones((), device=device(), dtype=torch.float32)
    ins8 = [(a.to(f8), w.to(f8)) for a, w in ins]
    del ins

    def fn8():
        a, w = ins8[i[0] % sets]
        i[0] += 1
        return torch._scaled_mm(a, w.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    return timer.time_s(fn8)


# ---------------------------------------------------------------- attention
def attention_plan(shapes):
    plan = {}
    for cfg in shapes["configs"]:
        for op in cfg["ops"]:
            if op["kind"] != "attention":
                continue
            key = (op["m"], op["n"], op["k"], op["count"])
            e = plan.setdefault(key, {"uses": [], "fwd_flops": op["fwd_flops"],
                                      "bwd_flops": op["bwd_flops"]})
            e["uses"].append("%s:%s" % (cfg["name"], op["name"]))
    return plan


def run_attention(args, timer, sampler, plan, budget_s):
    rows = []
    t_end = time.time() + budget_s
    sampler.label = "attention"
    backends = ["flash", "cudnn", "default"]
    for key in sorted(plan.keys()):
        for be in backends:
            if time.time() > t_end:
                log("attention: wall-clock limit reached, %d rows" % len(rows))
                return rows
            sq, sk, d, count = key
            e = plan[key]
            tq, tk, tc = (min(sq, 128), min(sk, 128), min(count, 4)) if SMOKE else (sq, sk, count)
            row = {"backend": be, "sq": sq, "sk": sk, "head_dim": d, "count": count,
                   "causal": 1, "fwd_flops_counted": e["fwd_flops"],
                   "bwd_flops_counted": e["bwd_flops"], "fwd_s": "", "fwd_bwd_s": "", "bwd_s": "",
                   "kernels": "", "error": "", "uses": " ".join(sorted(set(e["uses"])))}
            try:
                if args.dry_run:
                    f, fb = 1e-3, 3.5e-3
                else:
                    f, fb = time_sdpa(timer, tq, tk, d, tc, be)
                row["fwd_s"] = "%.9g" % f
                row["fwd_bwd_s"] = "%.9g" % fb
                row["bwd_s"] = "%.9g" % (fb - f)
            except Exception as ex:  # noqa: BLE001
                row["error"] = repr(ex)[:200]
            rows.append(row)
    return rows


def sdpa_context(be):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    if be == "flash":
        return sdpa_kernel([SDPBackend.FLASH_ATTENTION])
    if be == "cudnn":
        return sdpa_kernel([SDPBackend.CUDNN_ATTENTION])
    import contextlib
    return contextlib.nullcontext()


def time_sdpa(timer, sq, sk, d, count, be):
    dev = device()
    dt = torch.bfloat16
    q = torch.randn(1, count, sq, d, device=dev, dtype=dt, requires_grad=True)
    k = torch.randn(1, count, sk, d, device=dev, dtype=dt, requires_grad=True)
    v = torch.randn(1, count, sk, d, device=dev, dtype=dt, requires_grad=True)
    g = torch.randn(1, count, sq, d, device=dev, dtype=dt)
    with sdpa_context(be):
        def fwd():
            with torch.no_grad():
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)

        def fwd_bwd():
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            o.backward(g)
            q.grad = k.grad = v.grad = None
        f = timer.time_s(fwd)
        fb = timer.time_s(fwd_bwd)
    return f, fb


# ---------------------------------------------------------------- memory-bound ops
def memory_cases(shapes):
    """(name, tokens, width, bytes_min) per case: the least bytes each op must
    move (each input read once, each output written once), bf16 unless named."""
    tokens = 4096
    widths = sorted({c["hidden"] for c in shapes["configs"]})
    cases = []
    for h in widths:
        n = tokens * h
        cases += [("copy", tokens, h, 4 * n), ("add", tokens, h, 6 * n), ("mul", tokens, h, 6 * n),
                  ("silu", tokens, h, 4 * n), ("rms_norm_fused", tokens, h, 4 * n),
                  ("rms_norm_hf", tokens, h, 4 * n), ("layer_norm", tokens, h, 4 * n)]
    for vocab in sorted({c["vocab"] for c in shapes["configs"]}):
        n = tokens * vocab
        cases += [("softmax", tokens, vocab, 4 * n),
                  ("cross_entropy_fwd_bwd", tokens, vocab, 12 * n)]
    cases.append(("copy_1gib", 2**29, 1, 2 * 2**30))
    return cases


def mem_fn(name, tokens, width):
    dev = device()
    dt = torch.bfloat16
    x = torch.randn(tokens, width, device=dev, dtype=dt)
    if name in ("copy", "copy_1gib"):
        y = torch.empty_like(x)
        return lambda: y.copy_(x)
    if name == "add":
        y = torch.randn_like(x)
        return lambda: x + y
    if name == "mul":
        y = torch.randn_like(x)
        return lambda: x * y
    if name == "silu":
        return lambda: F.silu(x)
    w = torch.ones(width, device=dev, dtype=dt)
    if name == "rms_norm_fused":
        return lambda: F.rms_norm(x, (width,), w, 1e-5)
    if name == "rms_norm_hf":
        return lambda: hf_rms_norm(x, w, 1e-5)
    if name == "layer_norm":
        b = torch.zeros(width, device=dev, dtype=dt)
        return lambda: F.layer_norm(x, (width,), w, b, 1e-5)
    if name == "softmax":
        return lambda: torch.softmax(x, dim=-1)
    if name == "cross_entropy_fwd_bwd":
        xl = x.detach().requires_grad_(True)
        tgt = torch.randint(0, width, (tokens,), device=dev)

        def ce():
            with torch.autocast(device(), dtype=torch.bfloat16):
                loss = F.cross_entropy(xl, tgt)
            loss.backward()
            xl.grad = None
        return ce
    raise ValueError(name)


def hf_rms_norm(x, w, eps):
    """transformers LlamaRMSNorm.forward (models/llama/modeling_llama.py)."""
    dt = x.dtype
    h = x.to(torch.float32)
    var = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(var + eps)
    return w * h.to(dt)


def run_memory(args, timer, sampler, cases, budget_s):
    rows = []
    t_end = time.time() + budget_s
    sampler.label = "memory"
    for name, tokens, width, nbytes in cases:
        if time.time() > t_end:
            log("memory: wall-clock limit reached, %d rows" % len(rows))
            break
        row = {"op": name, "tokens": tokens, "width": width, "bytes_min": nbytes, "time_s": "",
               "gbps": "", "error": ""}
        try:
            if args.dry_run:
                t = nbytes / 3e12 + 3e-6
            elif SMOKE:
                t = timer.time_s(mem_fn(name, min(tokens, 64), min(width, 1024)))
            else:
                t = timer.time_s(mem_fn(name, tokens, width))
            row["time_s"] = "%.9g" % t
            row["gbps"] = "%.1f" % (nbytes / t / 1e9)
        except Exception as ex:  # noqa: BLE001
            row["error"] = repr(ex)[:200]
        rows.append(row)
        if not args.dry_run and not SMOKE:
            torch.cuda.empty_cache()
    return rows


# ---------------------------------------------------------------- soak
def run_soak(args, sampler, seconds):
    """8192^3 bf16 GEMMs back to back for `seconds`: TFLOP/s per window and
    the NVML power and clocks of the same seconds (power.csv, 'soak')."""
    sampler.label = "soak"
    if args.dry_run:
        return {"windows": [], "note": "dry run"}
    n = 256 if SMOKE else 8192
    a = torch.randn(n, n, device=device(), dtype=torch.bfloat16)
    b = torch.randn(n, n, device=device(), dtype=torch.bfloat16)
    c = torch.empty(n, n, device=device(), dtype=torch.bfloat16)
    flops = 2.0 * n ** 3
    windows = []
    t_end = time.time() + seconds
    per_window = 400  # about 0.5 s of 8192^3 GEMMs: long enough for the energy counter
    while time.time() < t_end:
        e0, e1 = event(), event()
        en0 = sampler.energy_j()
        w0 = time.time()
        e0.record()
        for _ in range(per_window):
            torch.matmul(a, b, out=c)
        e1.record()
        e1.synchronize()
        s = e0.elapsed_time(e1) / 1e3
        en1 = sampler.energy_j()
        wall = time.time() - w0
        windows.append({"t_s": w0 - T0, "gpu_s": s, "tflops": flops * per_window / s / 1e12,
                        "avg_power_w": (en1 - en0) / wall if en0 is not None and en1 is not None
                        else None})
    del a, b, c
    if not SMOKE:
        torch.cuda.empty_cache()
    return {"shape": [n, n, n], "gemms_per_window": per_window, "windows": windows}


# ---------------------------------------------------------------- training steps
def load_model_cfg(path):
    with open(path) as f:
        m = json.load(f)
    m.setdefault("kv_heads", m["heads"])
    m.setdefault("head_dim", m["hidden"] // m["heads"])
    return m


def param_count(m):
    h, L, f, V = m["hidden"], m["layers"], m["ffn_hidden"], m["vocab"]
    hd, H, KV = m["head_dim"], m["heads"], m["kv_heads"]
    qkv = h * (H + 2 * KV) * hd
    per_layer = qkv + H * hd * h + 3 * h * f + 2 * h
    emb = V * h * (1 if m.get("tied_embeddings") else 2)
    return L * per_layer + emb + h


def build_model(m, dev):
    """A Llama block as eager PyTorch runs it: fused QKV and gate/up
    projections (as plateau's op list, src/model/flops.c), Hugging Face's
    RMSNorm and rotate_half RoPE, SDPA causal attention (GQA by repeating
    K/V heads), SwiGLU, no biases, tied embeddings when the config says so."""
    nn = torch.nn
    h, H, KV, hd, f = m["hidden"], m["heads"], m["kv_heads"], m["head_dim"], m["ffn_hidden"]

    class RMSNorm(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(h))

        def forward(self, x):
            # LlamaRMSNorm with a bf16 weight (the model in bf16, as FSDP's
            # param_dtype or model.to(bfloat16) runs it): bf16 out
            return hf_rms_norm(x, self.weight.to(x.dtype), 1e-5)

    def rotate_half(x):
        x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = RMSNorm(), RMSNorm()
            self.qkv = nn.Linear(h, (H + 2 * KV) * hd, bias=False)
            self.proj = nn.Linear(H * hd, h, bias=False)
            self.fc1 = nn.Linear(h, 2 * f, bias=False)
            self.fc2 = nn.Linear(f, h, bias=False)

        def forward(self, x, cos, sin):
            b, s, _ = x.shape
            y = self.qkv(self.norm1(x))
            q, k, v = y.split([H * hd, KV * hd, KV * hd], dim=-1)
            q = q.view(b, s, H, hd).transpose(1, 2)
            k = k.view(b, s, KV, hd).transpose(1, 2)
            v = v.view(b, s, KV, hd).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if KV != H:
                k = k.repeat_interleave(H // KV, dim=1)
                v = v.repeat_interleave(H // KV, dim=1)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(o.transpose(1, 2).reshape(b, s, H * hd))
            g, u = self.fc1(self.norm2(x)).chunk(2, dim=-1)
            return x + self.fc2(F.silu(g) * u)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(m["vocab"], h)
            self.blocks = nn.ModuleList([Block() for _ in range(m["layers"])])
            self.norm = RMSNorm()
            self.head = nn.Linear(h, m["vocab"], bias=False)
            if m.get("tied_embeddings"):
                self.head.weight = self.embed.weight

        def forward(self, ids):
            s = ids.shape[1]
            inv = 1.0 / (500000.0 ** (torch.arange(0, hd, 2, device=ids.device).float() / hd))
            fr = torch.outer(torch.arange(s, device=ids.device).float(), inv)
            emb = torch.cat((fr, fr), dim=-1)
            cos, sin = emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)
            x = self.embed(ids).to(torch.bfloat16)  # bf16 residual stream, as plateau counts it
            for blk in self.blocks:
                x = blk(x, cos, sin)
            return self.head(self.norm(x))

    return Model().to(dev)


def run_training(args, sampler, m, budget_s):
    res = {"model": m, "params": param_count(m), "seq": args.seq, "mbs": args.mbs,
           "precision": "fp32 master weights, bf16 autocast, AdamW lr 1e-4",
           "optimizer": args.optimizer, "clip_grad_norm": args.clip,
           "attention": "F.scaled_dot_product_attention, default backend"}
    sampler.label = "train_setup"
    if args.dry_run:
        res["note"] = "dry run: model not built"
        return res, None
    t_end = time.time() + budget_s
    torch.manual_seed(0)
    dev = device()
    if SMOKE:
        m = dict(m, layers=2, hidden=256, heads=4, kv_heads=2, head_dim=64, ffn_hidden=512,
                 vocab=1000)
        args.seq = 128
    model = build_model(m, dev)
    res["params_torch"] = sum(p.numel() for p in model.parameters())
    # fused: one multi-tensor kernel; foreach: torch.optim's default on CUDA
    # (_multi_tensor_adamw), what plateau's --kernels unfused models
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=args.optimizer == "fused",
                            foreach=args.optimizer == "foreach")
    sampler.label = "train_first"
    ids = torch.randint(0, m["vocab"], (args.mbs, args.seq + 1), device=dev)
    x, y = ids[:, :-1], ids[:, 1:]

    def step():
        with torch.autocast(dev, dtype=torch.bfloat16):
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), y.reshape(-1))
        loss.backward()
        if args.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        opt.step()
        opt.zero_grad(set_to_none=True)
        return loss

    sampler.label = "train_warmup"
    for _ in range(3):
        step()
    sync()
    if not SMOKE:
        res["max_memory_allocated_bytes"] = torch.cuda.max_memory_allocated()
    sampler.label = "train_timed"
    times = []
    en0, w0 = sampler.energy_j(), time.time()
    while len(times) < args.steps and time.time() < t_end - 30:
        a, b = event(), event()
        a.record()
        loss = step()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    wall = time.time() - w0
    en1 = sampler.energy_j()
    res["step_s"] = times
    res["step_median_s"] = statistics.median(times) if times else None
    res["timed_wall_s"] = wall
    res["timed_avg_power_w"] = ((en1 - en0) / wall) if en0 is not None and en1 is not None else None
    res["loss_last"] = float(loss.item()) if times else None

    sampler.label = "train_profile"
    from torch.profiler import ProfilerActivity, profile, schedule
    trace_path = os.path.join(args.out, "trace.json")
    sched = schedule(wait=1, warmup=1, active=args.profile_steps, repeat=1)
    acts = [ProfilerActivity.CPU] + ([] if SMOKE else [ProfilerActivity.CUDA])
    with profile(activities=acts, record_shapes=True, schedule=sched,
                 on_trace_ready=lambda p: p.export_chrome_trace(trace_path)) as prof:
        for _ in range(2 + args.profile_steps):
            step()
            sync()
            prof.step()
    sampler.label = "train_export"
    with open(trace_path, "rb") as fi, gzip.open(trace_path + ".gz", "wb", compresslevel=9) as fo:
        shutil.copyfileobj(fi, fo)
    os.remove(trace_path)
    res["trace_gz_bytes"] = os.path.getsize(trace_path + ".gz")
    del model, opt
    if not SMOKE:
        torch.cuda.empty_cache()
    return res, trace_path + ".gz"


# ---------------------------------------------------------------- main
def versions():
    v = {"python": sys.version.split()[0]}
    try:
        import subprocess
        q = ("name,driver_version,vbios_version,power.limit,power.default_limit,clocks.max.sm,"
             "clocks.max.memory,pstate,persistence_mode,compute_mode")
        r = subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv"], capture_output=True,
                           text=True, timeout=20)
        v["nvidia_smi"] = r.stdout.strip()
    except Exception as e:  # noqa: BLE001
        v["nvidia_smi"] = "unavailable: %r" % (e,)
    if torch is not None:
        v["torch"] = torch.__version__
        v["cuda"] = torch.version.cuda
        v["cudnn"] = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        if not SMOKE and torch.cuda.is_available():
            p = torch.cuda.get_device_properties(0)
            v["gpu"] = p.name
            v["sm_count"] = p.multi_processor_count
            v["l2_bytes"] = getattr(p, "L2_cache_size", None)
            v["memory_bytes"] = p.total_memory
            v["capability"] = "%d.%d" % (p.major, p.minor)
            try:
                v["cublas_version"] = torch._C._cuda_getCompiledVersion()
            except Exception:  # noqa: BLE001
                pass
    return v


def print_table(g, a, mrows, summary):
    """The short table the device call's reply shows."""
    print("\n== gemm (TFLOP/s) ==")
    for r in (g or [])[:12]:
        print("  %-4s %-5s %6d x %6d x %6d  %s %s" % (r["dtype"], r["pass"], r["M"], r["N"], r["K"],
                                                     r["tflops"], r["error"][:60]))
    print("  ... %d rows, %d errors" % (len(g or []), sum(1 for r in (g or []) if r["error"])))
    print("== attention ==")
    for r in a or []:
        print("  %-7s %5d %5d d%-3d x%-3d fwd %s bwd %s %s" % (r["backend"], r["sq"], r["sk"],
              r["head_dim"], r["count"], r["fwd_s"], r["bwd_s"], r["error"][:60]))
    print("== memory (GB/s) ==")
    for r in mrows or []:
        print("  %-22s %8d x %6d  %s %s" % (r["op"], r["tokens"], r["width"], r["gbps"], r["error"][:60]))
    soak = summary.get("soak") or {}
    w = soak.get("windows") or []
    if w:
        print("== soak: first %.0f TFLOP/s, last %.0f, min %.0f; power %s W ==" % (
            w[0]["tflops"], w[-1]["tflops"], min(x["tflops"] for x in w), w[-1]["avg_power_w"]))
    tr = summary.get("train") or {}
    print("== train: params %s, median step %s s, power %s W, trace %s B ==" % (
        tr.get("params_torch"), tr.get("step_median_s"), tr.get("timed_avg_power_w"),
        tr.get("trace_gz_bytes")))


def write_csv(path, rows):
    if not rows:
        open(path, "w").close()
        return
    keys = list(rows[0].keys())
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default=os.path.join(HERE, "shapes.json"))
    ap.add_argument("--model", default=os.path.join(HERE, "model.json"))
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--mbs", type=int, default=1)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--profile-steps", type=int, default=3)
    ap.add_argument("--budget", type=float, default=300, help="whole-run wall-clock seconds")
    ap.add_argument("--optimizer", choices=("fused", "foreach"), default="fused")
    ap.add_argument("--clip", type=float, default=0.0, help="clip_grad_norm_ max norm (0: none)")
    ap.add_argument("--only", default="", help="comma-separated sections to run (default all)")
    ap.add_argument("--dry-run", action="store_true", help="no torch/GPU: check planning and outputs")
    ap.add_argument("--smoke", action="store_true",
                    help="torch on the CPU at toy sizes: exercise every code path without a GPU")
    args = ap.parse_args(argv)
    global SMOKE
    SMOKE = args.smoke
    os.makedirs(args.out, exist_ok=True)
    if not args.dry_run and torch is None:
        sys.exit("run_all.py: torch is not importable (use --dry-run)")
    if not args.dry_run and not SMOKE and not torch.cuda.is_available():
        sys.exit("run_all.py: no CUDA device (use --dry-run or --smoke to check the CPU side)")
    with open(args.shapes) as f:
        shapes = json.load(f)
    m = load_model_cfg(args.model)
    B = args.budget
    # the share of the budget each section may use (they stop on these limits)
    shares = {"gemm": 0.25, "attention": 0.10, "memory": 0.07, "soak": 0.10, "train": 0.38}
    summary = {"versions": versions(), "args": vars(args), "sections": {}}
    sampler = Sampler()
    summary["nvml"] = sampler.info
    sampler.start()
    log("versions %s" % json.dumps(summary["versions"]))
    log("nvml %s" % json.dumps(sampler.info))
    timer = Timer(args.dry_run)
    only = set(x for x in args.only.split(",") if x)

    def section(name, fn):
        if only and name not in only:
            return None
        t = time.time()
        try:
            out = fn()
        except Exception as e:  # noqa: BLE001 - keep what the other sections measure
            import traceback
            summary.setdefault("errors", {})[name] = traceback.format_exc()
            log("ERROR in %s: %r" % (name, e))
            print(summary["errors"][name], flush=True)
            out = None
        summary["sections"][name] = {"wall_s": time.time() - t}
        log("%s: done in %.1f s" % (name, time.time() - t))
        return out

    def csv_section(name, fn):
        if only and name not in only:
            return []
        rows = section(name, fn) or []
        write_csv(os.path.join(args.out, name + ".csv"), rows)
        summary["sections"][name]["rows"] = len(rows)
        return rows

    try:
        sampler.label = "idle_start"
        time.sleep(0 if args.dry_run or SMOKE else 3.0)
        plan = gemm_plan(shapes)
        log("gemm: %d unique shapes and passes" % len(plan))
        g = csv_section("gemm", lambda: run_gemms(args, timer, sampler, plan, shares["gemm"] * B))
        a = csv_section("attention", lambda: run_attention(args, timer, sampler, attention_plan(shapes),
                                                           shares["attention"] * B))
        mrows = csv_section("memory", lambda: run_memory(args, timer, sampler, memory_cases(shapes),
                                                         shares["memory"] * B))
        summary["soak"] = section("soak", lambda: run_soak(args, sampler, shares["soak"] * B))
        tr = section("train", lambda: run_training(args, sampler, m, shares["train"] * B))
        summary["train"] = tr[0] if tr else None
        sampler.label = "idle_end"
        time.sleep(0 if args.dry_run or SMOKE else 1.0)
        print_table(g, a, mrows, summary)
    finally:
        sampler.stop()
        sampler.write(os.path.join(args.out, "power.csv"))
        summary["wall_s"] = time.time() - T0
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1, default=str)
        with open(os.path.join(args.out, "log.txt"), "w") as f:
            f.write("\n".join(LOG) + "\n")
    log("done in %.1f s" % (time.time() - T0))
    return 1 if "errors" in summary else 0


if __name__ == "__main__":
    sys.exit(main())
