#!/usr/bin/env python3
"""moe_gemm.py: ground truth for plateau's MoE expert GEMMs and GPT-OSS attention on one GPU.

One prepared run of about three minutes (issue 19; docs/accuracy.md "Issue 19, session 4" says
which figures come from it and how they are used):

  1. dense reference: 8192^3 bf16 (torch.matmul) and fp8 e4m3 (torch._scaled_mm, tensorwise
     scales), the rate a large GEMM reaches on this card;
  2. one expert's GEMMs at the expert shapes of the Megatron-Bridge MoE rows (fc1 = [T,h]x[h,2f]
     for the gated MLP, fc2 = [T,f]x[f,h], each forward, dgrad and wgrad) for a grid of tokens
     per expert T, bf16 and fp8: the rate of one small GEMM against the dense one;
  3. one MoE layer's experts as the framework launches them: a Python loop of E per-expert GEMMs
     on one stream (Transformer Engine's GroupedLinear on Hopper launches one cuBLAS GEMM per
     expert, nvte_multi_stream_cublas_gemm), torch._grouped_mm (one grouped kernel, CUTLASS), and
     one dense GEMM of the same FLOPs, at the (E local experts, T tokens per expert) of the rows;
  4. (section `streams`, run on its own with MOE_GEMM_SECTIONS=dense,streams) the same layers'
     forward, dgrad and wgrad GEMMs launched as Transformer Engine's multi_stream_cublas_gemm
     does (GEMM i on compute stream i % 4, event-synchronised), against a one-stream loop;
  5. GPT-OSS attention (64 query heads, 8 KV heads, head_dim 64, seq 4096, batch 1): forward and
     forward+backward of full causal attention through SDPA (flash backend), sliding-window-128
     causal through SDPA with an explicit mask, and the unfused path (QK^T, masked fp32 softmax,
     PV materialised), plus flex_attention with a sliding-window block mask if it compiles in time.

Timing: CUDA events around a batch of `reps` back-to-back launches, median of >= 20 batches after
warmup; the batch time includes any host launch gap (what a per-expert loop costs). Every section
stops on a wall-clock budget. Output: CSV on stdout and in $OUT/moe_gemm.csv, versions in
$OUT/moe_gemm_meta.json. Never run in CI.
"""
import csv
import io
import json
import os
import statistics
import subprocess
import sys
import time

T0 = time.time()
BUDGET_S = float(os.environ.get("MOE_GEMM_BUDGET_S", "200"))
OUT = os.environ.get("OUT", ".")

import torch  # noqa: E402

ROWS = []
FIELDS = ["section", "case", "dtype", "pass", "E", "M", "N", "K", "flops", "time_s", "tflops",
          "note"]


def left():
    return BUDGET_S - (time.time() - T0)


def add(section, case, dtype, pss, E, M, N, K, flops, t, note=""):
    ROWS.append({"section": section, "case": case, "dtype": dtype, "pass": pss, "E": E, "M": M,
                 "N": N, "K": K, "flops": "%.0f" % flops, "time_s": "%.9f" % t,
                 "tflops": "%.2f" % (flops / t / 1e12 if t > 0 else 0.0), "note": note})


def timeit(fn, reps=10, iters=20, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(iters):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(reps):
            fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3 / reps)
    return statistics.median(ts)


dev = torch.device("cuda")
E4M3 = getattr(torch, "float8_e4m3fn", None)
ONE = torch.ones((), device=dev, dtype=torch.float32)


def fp8(x):
    return x.to(E4M3)


def mm_bf16(M, N, K):
    a = torch.randn(M, K, device=dev, dtype=torch.bfloat16)
    b = torch.randn(K, N, device=dev, dtype=torch.bfloat16)
    return lambda: torch.matmul(a, b)


def mm_fp8(M, N, K):
    # _scaled_mm wants A row-major [M,K] and B column-major [K,N]
    a = fp8(torch.randn(M, K, device=dev))
    b = fp8(torch.randn(N, K, device=dev)).t()
    return lambda: torch._scaled_mm(a, b, scale_a=ONE, scale_b=ONE, out_dtype=torch.bfloat16)


def reps_for(flops):
    return max(1, min(50, int(2e11 / max(flops, 1.0))))


def dense():
    for dt, mk in (("bf16", mm_bf16), ("fp8", mm_fp8)):
        try:
            n = 8192
            f = 2.0 * n * n * n
            t = timeit(mk(n, n, n), reps=5, iters=20)
            add("dense", "8192^3", dt, "fwd", 1, n, n, n, f, t)
        except Exception as e:  # noqa: BLE001
            add("dense", "8192^3", dt, "fwd", 1, 8192, 8192, 8192, 0, 0, "error: %s" % e)


# expert shapes: hidden h, expert ffn f (fc1 output 2f: gated MLP in all four models)
MODELS = [
    ("deepseek-v3", 7168, 2048),
    ("qwen3-235b-a22b", 4096, 1536),
    ("qwen3-30b-a3b", 2048, 768),
    ("gpt-oss-120b", 2880, 2880),
]
T_GRID = [128, 256, 512, 1024, 2048, 4096, 8192]


def gemm_shapes(h, f, T):
    # (pass, M, N, K) for fc1 and fc2 as nn.Linear: fwd [T,in]x[in,out], dgrad [T,out]x[out,in],
    # wgrad [out,T]x[T,in]
    out = []
    for name, i, o in (("fc1", h, 2 * f), ("fc2", f, h)):
        out += [(name + ":fwd", T, o, i), (name + ":dgrad", T, i, o), (name + ":wgrad", o, i, T)]
    return out


def per_expert():
    for dt, mk in (("bf16", mm_bf16), ("fp8", mm_fp8)):
        for name, h, f in MODELS:
            for T in T_GRID:
                if left() < 110:
                    return
                for pss, M, N, K in gemm_shapes(h, f, T):
                    fl = 2.0 * M * N * K
                    try:
                        t = timeit(mk(M, N, K), reps=reps_for(fl), iters=20)
                        add("expert", name, dt, pss, 1, M, N, K, fl, t)
                    except Exception as e:  # noqa: BLE001
                        add("expert", name, dt, pss, 1, M, N, K, fl, 0, "error: %s" % e)


# (model, E local experts, T tokens per expert, row): tokens per expert = seq*mbs/tp * topk * ep
# / experts (Megatron-Core alltoall dispatcher, balanced routing as the Bridge benchmarks force)
LAYERS = [
    ("deepseek-v3", 7168, 2048, 4, 4096, "H100 tp2 ep64 mbs1 seq4096"),
    ("qwen3-235b-a22b", 4096, 1536, 4, 4096, "H100 tp2 ep32 mbs1 seq4096"),
    ("qwen3-30b-a3b", 2048, 768, 16, 2048, "H100 ep8 mbs1 seq4096"),
    ("qwen3-30b-a3b", 2048, 768, 16, 4096, "H100 ep8 mbs2 seq4096"),
    ("qwen3-30b-a3b", 2048, 768, 8, 4096, "H100 ep16 mbs1 seq4096"),
    ("gpt-oss-120b", 2880, 2880, 16, 1024, "H100 ep8 mbs1 seq4096"),
]


def layer_loops():
    gm = getattr(torch, "_grouped_mm", None)
    for name, h, f, E, T, note in LAYERS:
        if left() < 70:
            return
        for lname, i, o in (("fc1", h, 2 * f), ("fc2", f, h)):
            fl = 2.0 * E * T * i * o
            # per-expert loop, bf16
            xs = [torch.randn(T, i, device=dev, dtype=torch.bfloat16) for _ in range(E)]
            ws = [torch.randn(i, o, device=dev, dtype=torch.bfloat16) for _ in range(E)]

            def loop():
                for x, w in zip(xs, ws):
                    torch.matmul(x, w)
            add("layer", name, "bf16", lname + ":fwd:loop", E, T, o, i, fl,
                timeit(loop, reps=2, iters=20), note)
            # dense GEMM of the same FLOPs
            add("layer", name, "bf16", lname + ":fwd:dense", E, E * T, o, i, fl,
                timeit(mm_bf16(E * T, o, i), reps=2, iters=20), note)
            # one grouped kernel
            if gm is not None:
                try:
                    a = torch.randn(E * T, i, device=dev, dtype=torch.bfloat16)
                    b = torch.randn(E, o, i, device=dev, dtype=torch.bfloat16).transpose(-2, -1)
                    offs = torch.arange(T, E * T + 1, T, device=dev, dtype=torch.int32)
                    add("layer", name, "bf16", lname + ":fwd:grouped_mm", E, T, o, i, fl,
                        timeit(lambda: gm(a, b, offs=offs, out_dtype=torch.bfloat16), reps=2,
                               iters=20), note)
                except Exception as e:  # noqa: BLE001
                    add("layer", name, "bf16", lname + ":fwd:grouped_mm", E, T, o, i, fl, 0,
                        "error: %s" % str(e)[:120])
            # per-expert loop, fp8 (tensorwise scales, as Float8CurrentScaling's GEMM)
            try:
                xf = [fp8(x) for x in xs]
                wf = [fp8(torch.randn(o, i, device=dev)).t() for _ in range(E)]

                def loop8():
                    for x, w in zip(xf, wf):
                        torch._scaled_mm(x, w, scale_a=ONE, scale_b=ONE, out_dtype=torch.bfloat16)
                add("layer", name, "fp8", lname + ":fwd:loop", E, T, o, i, fl,
                    timeit(loop8, reps=2, iters=20), note)
                add("layer", name, "fp8", lname + ":fwd:dense", E, E * T, o, i, fl,
                    timeit(mm_fp8(E * T, o, i), reps=2, iters=20), note)
            except Exception as e:  # noqa: BLE001
                add("layer", name, "fp8", lname + ":fwd:loop", E, T, o, i, fl, 0,
                    "error: %s" % str(e)[:120])
            del xs, ws


def layer_streams():
    """The per-expert GEMMs as Transformer Engine's multi_stream_cublas_gemm launches them
    (transformer_engine/common/gemm/cublaslt_gemm.cu, TE 2.x): an event on the current stream,
    GEMM i on compute stream i % 4 (nvte_get_num_compute_streams, default 4), then the current
    stream waits on an event of each compute stream. Forward, dgrad and wgrad, bf16 and fp8."""
    nstreams = int(os.environ.get("NVTE_NUM_COMPUTE_STREAMS", "4"))
    streams = [torch.cuda.Stream() for _ in range(nstreams)]
    for name, h, f, E, T, note in LAYERS:
        if left() < 50:
            return
        for lname, i, o in (("fc1", h, 2 * f), ("fc2", f, h)):
            for pss, M, N, K in ((":fwd", T, o, i), (":dgrad", T, i, o), (":wgrad", o, i, T)):
                fl = 2.0 * E * M * N * K
                for dt in ("bf16", "fp8"):
                    try:
                        if dt == "bf16":
                            xs = [torch.randn(M, K, device=dev, dtype=torch.bfloat16) for _ in range(E)]
                            ws = [torch.randn(K, N, device=dev, dtype=torch.bfloat16) for _ in range(E)]

                            def one(x, w):
                                torch.matmul(x, w)
                        else:
                            xs = [fp8(torch.randn(M, K, device=dev)) for _ in range(E)]
                            ws = [fp8(torch.randn(N, K, device=dev)).t() for _ in range(E)]

                            def one(x, w):
                                torch._scaled_mm(x, w, scale_a=ONE, scale_b=ONE,
                                                 out_dtype=torch.bfloat16)

                        def multi():
                            cur = torch.cuda.current_stream()
                            ev = torch.cuda.Event()
                            ev.record(cur)
                            used = streams[:min(nstreams, E)]
                            for st in used:
                                st.wait_event(ev)
                            for j, (x, w) in enumerate(zip(xs, ws)):
                                with torch.cuda.stream(streams[j % nstreams]):
                                    one(x, w)
                            for st in used:
                                e2 = torch.cuda.Event()
                                e2.record(st)
                                cur.wait_event(e2)

                        def loop():
                            for x, w in zip(xs, ws):
                                one(x, w)
                        add("streams", name, dt, lname + pss + ":streams%d" % nstreams, E, M, N,
                            K, fl, timeit(multi, reps=2, iters=20), note)
                        add("streams", name, dt, lname + pss + ":loop", E, M, N, K, fl,
                            timeit(loop, reps=2, iters=20), note)
                        del xs, ws
                    except Exception as e:  # noqa: BLE001
                        add("streams", name, dt, lname + pss, E, M, N, K, fl, 0,
                            "error: %s" % str(e)[:120])


def attention():
    import torch.nn.functional as F
    B, HQ, HKV, S, D, W = 1, 64, 8, 4096, 64, 128
    q = torch.randn(B, HQ, S, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(B, HKV, S, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(B, HKV, S, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
    kr = k.repeat_interleave(HQ // HKV, dim=1).detach().requires_grad_(True)
    vr = v.repeat_interleave(HQ // HKV, dim=1).detach().requires_grad_(True)
    go = torch.randn(B, HQ, S, D, device=dev, dtype=torch.bfloat16)
    i = torch.arange(S, device=dev)
    swmask = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < W)
    full_fl = 4.0 * B * HQ * S * S * D / 2  # causal: half of QK^T and PV
    sw_fl = 4.0 * B * HQ * S * W * D
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def run(case, fwd, fl, note):
        if left() < 15:
            return
        try:
            add("attention", case, "bf16", "fwd", 1, S, S, D, fl,
                timeit(lambda: fwd(), reps=2, iters=20), note)

            def fb():
                o = fwd()
                o.backward(go)
            add("attention", case, "bf16", "fwd+bwd", 1, S, S, D, 3.5 * fl,
                timeit(fb, reps=2, iters=20), note)
        except Exception as e:  # noqa: BLE001
            add("attention", case, "bf16", "fwd", 1, S, S, D, fl, 0, "error: %s" % str(e)[:120])

    def flash_causal():
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            return F.scaled_dot_product_attention(q, kr, vr, is_causal=True)

    def cudnn_causal():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            return F.scaled_dot_product_attention(q, kr, vr, is_causal=True)

    def masked_sw():
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
            return F.scaled_dot_product_attention(q, kr, vr, attn_mask=swmask)

    def masked_full():
        with sdpa_kernel([SDPBackend.EFFICIENT_ATTENTION]):
            return F.scaled_dot_product_attention(q, kr, vr, attn_mask=causal)

    causal = i[None, :] <= i[:, None]

    def unfused(mask):
        def f():
            s = torch.matmul(q, kr.transpose(-2, -1)) * (D ** -0.5)
            s = s.float().masked_fill(~mask, float("-inf"))
            p = torch.softmax(s, dim=-1).to(torch.bfloat16)
            return torch.matmul(p, vr)
        return f
    run("full_causal:sdpa_flash", flash_causal, full_fl, "flash backend, is_causal")
    run("full_causal:sdpa_cudnn", cudnn_causal, full_fl, "cuDNN backend, is_causal")
    run("full_causal:sdpa_mem_efficient_mask", masked_full, full_fl, "explicit causal mask")
    run("sliding128:sdpa_mem_efficient_mask", masked_sw, sw_fl, "explicit window mask; FLOPs: window only")
    run("full_causal:unfused", unfused(causal), full_fl, "QK^T, fp32 masked softmax, PV")
    run("sliding128:unfused", unfused(swmask), sw_fl, "QK^T, fp32 masked softmax, PV; FLOPs: window only")
    if left() < 60:
        return
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention

        def sw(b, h, qi, ki):
            return (ki <= qi) & (qi - ki < W)

        def cm(b, h, qi, ki):
            return ki <= qi
        fa = torch.compile(flex_attention)
        bm_sw = create_block_mask(sw, None, None, S, S, device="cuda")
        bm_c = create_block_mask(cm, None, None, S, S, device="cuda")
        run("sliding128:flex", lambda: fa(q, k, v, block_mask=bm_sw, enable_gqa=True), sw_fl,
            "flex_attention compiled; FLOPs: window only")
        run("full_causal:flex", lambda: fa(q, k, v, block_mask=bm_c, enable_gqa=True), full_fl,
            "flex_attention compiled")
    except Exception as e:  # noqa: BLE001
        add("attention", "flex", "bf16", "fwd", 1, S, S, D, 0, 0, "error: %s" % str(e)[:120])


def meta():
    m = {"date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
         "torch": torch.__version__, "cuda": torch.version.cuda,
         "cudnn": torch.backends.cudnn.version(), "gpu": torch.cuda.get_device_name(0),
         "capability": "%d.%d" % torch.cuda.get_device_capability(0),
         "grouped_mm": hasattr(torch, "_grouped_mm")}
    try:
        m["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,power.limit,clocks.max.sm",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001
        m["nvidia_smi"] = "error: %s" % e
    return m


def main():
    torch.backends.cuda.matmul.allow_tf32 = False
    m = meta()
    print("# " + json.dumps(m), flush=True)
    wall = {}
    only = os.environ.get("MOE_GEMM_SECTIONS", "dense,expert,layer,attention").split(",")
    for name, fn in (("dense", dense), ("expert", per_expert), ("layer", layer_loops),
                     ("streams", layer_streams), ("attention", attention)):
        if name not in only:
            continue
        t = time.time()
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            add(name, "section", "", "", 0, 0, 0, 0, 0, 0, "error: %s" % str(e)[:160])
        wall[name] = round(time.time() - t, 1)
        print("# section %s %.1f s" % (name, wall[name]), file=sys.stderr, flush=True)
        m["section_wall_s"] = wall
        save(m, final=(name == only[-1]))


def save(m, final):
    # written after every section, so a run stopped at its limit still leaves what it measured
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=FIELDS)
    w.writeheader()
    w.writerows(ROWS)
    if final:
        sys.stdout.write(buf.getvalue())
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "moe_gemm.csv"), "w") as fh:
        fh.write(buf.getvalue())
    with open(os.path.join(OUT, "moe_gemm_meta.json"), "w") as fh:
        json.dump(m, fh, indent=1)


if __name__ == "__main__":
    main()
