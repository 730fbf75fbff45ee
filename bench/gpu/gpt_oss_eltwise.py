#!/usr/bin/env python3
"""gpt_oss_eltwise.py: GPT-OSS's eager element-wise kernels on strided views (issue 19, helper oss22).
PyTorch only, one GPU, ~1 min. Writes JSON to stdout.

Megatron-Core runs GPT-OSS's clamped GLU and its unfused YaRN RoPE as eager PyTorch ops on views that
are not contiguous (core_v0.16.0 megatron/core/fusions/fused_bias_geglu.py
weighted_bias_quick_geglu_impl: `x_glu, x_linear = input.chunk(2, -1)`, a clamp on each half, a cat;
megatron/core/models/common/embeddings/rope_utils.py _apply_rotary_pos_emb_bshd and _rotate_half on
k and v, views of the fused qkv output). PyTorch's CUDA TensorIterator vectorizes an element-wise
kernel only when every operand is contiguous (aten/src/ATen/native/cuda/CUDALoops.cuh
gpu_kernel_impl_nocast: launch_vectorized_kernel if iter.is_contiguous(), else launch_legacy_kernel
with an offset calculator). plateau prices all of them at the GPU file's hbm_fraction of the HBM
bandwidth (src/sim/compute.c), as for contiguous kernels. This bench times each op on the view
Megatron-Core gives it and the same op on a contiguous tensor of the same size, so the ratio is the
rate a strided-view key would need (docs/accuracy.md "Session 22 (helper oss22)").

Shapes: the Bridge GPT-OSS rows' routed tokens per GPU (ep 8, seq 4096, top 4 of 128 experts:
16 local experts x 1024 rows at mbs 1 (H100), x 4096 at mbs 4 (Blackwell)), fc1 width 2 x 2880,
bf16; RoPE on [seq 4096, mbs, 8 kv groups, (64/8 + 2) x 64] qkv with head dim 64."""
import json
import statistics

import torch

dev, dt = "cuda", torch.bfloat16
ITERS, REPS = 20, 7


def timed(fn):
    """Median device time of fn over REPS x ITERS back-to-back calls (CUDA events), in seconds."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(REPS):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(ITERS):
            fn()
        e1.record()
        torch.cuda.synchronize()
        out.append(e0.elapsed_time(e1) / ITERS * 1e-3)
    return statistics.median(out)


def case(res, name, fn_view, fn_contig, nbytes):
    """One op on the view and on a contiguous tensor: seconds and bytes/s (the bytes plateau counts)."""
    tv, tc = timed(fn_view), timed(fn_contig)
    res["cases"].append({"op": name, "bytes": nbytes, "view_s": tv, "contig_s": tc,
                         "view_Bps": nbytes / tv, "contig_Bps": nbytes / tc, "view_over_contig": tv / tc})


res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "cases": []}
big = torch.empty(1 << 29, device=dev, dtype=torch.uint8)  # 512 MiB copy: the HBM reference
res["copy_512MiB_Bps"] = 2 * big.numel() / timed(lambda: big.clone())
del big

for rows in (16 * 1024, 16 * 4096):
    F = 2880
    h = torch.randn(rows, 2 * F, device=dev, dtype=dt)
    a, b = h.chunk(2, -1)  # strided halves, as weighted_bias_quick_geglu_impl
    ac, bc = a.contiguous(), b.contiguous()
    half = rows * F * 2  # bytes of one bf16 half
    case(res, f"clamp_glu rows={rows}", lambda: a.clamp(max=7.0), lambda: ac.clamp(max=7.0), 2 * half)
    case(res, f"clamp_linear rows={rows}", lambda: b.clamp(min=-7.0, max=7.0),
         lambda: bc.clamp(min=-7.0, max=7.0), 2 * half)
    g = torch.randn(rows, F, device=dev, dtype=dt)
    zero = torch.zeros((), device=dev, dtype=dt)
    # clamp's backward (FunctionsManual.cpp clamp_backward): where(self <= max, grad, 0) on the view
    case(res, f"clamp_bwd_where rows={rows}", lambda: torch.where(a <= 7.0, g, zero),
         lambda: torch.where(ac <= 7.0, g, zero), 2 * half + rows * F)
    case(res, f"cat_halves rows={rows}", lambda: torch.cat((ac, bc), -1), lambda: h.clone(), 4 * half)
    del h, a, b, ac, bc, g

for mbs in (1, 4):
    s, ng, hn = 4096, 8, 64
    qkv = torch.randn(s, mbs, ng, (64 // ng + 2) * hn, device=dev, dtype=dt)
    k = qkv[..., (64 // ng) * hn:(64 // ng + 1) * hn]  # a view, as get_query_key_value_tensors' split
    kc = k.contiguous()
    cos = torch.randn(s, 1, 1, hn, device=dev, dtype=dt)
    kb = k.numel() * 2

    def rotate_half(x):
        x1, x2 = torch.chunk(x, 2, dim=-1)
        return torch.cat((-x2, x1), dim=-1)

    case(res, f"rope_mul_cos k mbs={mbs}", lambda: k * cos, lambda: kc * cos, 2 * kb)
    case(res, f"rope_rotate_half k mbs={mbs}", lambda: rotate_half(k), lambda: rotate_half(kc), 3 * kb)
    del qkv, k, kc

print(json.dumps(res, indent=1))
