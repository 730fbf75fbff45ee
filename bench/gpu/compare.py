#!/usr/bin/env python3
"""compare.py: plateau's predictions beside the H100 measurements of
data/ground-truth/h100 (bench/gpu/run_all.py), as the markdown tables of
docs/ground-truth.md. Predictions come from the plateau binary given, so the
tables follow any change to the GPU file. From the repository root:

  python3 bench/gpu/compare.py --plateau build-test/plateau [--gpu h100]
"""
import argparse
import collections
import csv
import gzip
import json
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "data", "ground-truth", "h100")
TRACE = os.path.join(ROOT, "tests", "data", "traces", "gt_h100_llama3.2-1b_seq4096.json.gz")
MODEL = os.path.join(ROOT, "bench", "gpu", "model.json")


def predict(plateau, argv, gpu):
    argv = [a if not a.endswith("model.json") else MODEL for a in argv]
    if "--gpu" in argv:
        argv[argv.index("--gpu") + 1] = gpu
    out = subprocess.run([plateau] + argv, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def rows(name):
    with open(os.path.join(DATA, name)) as f:
        return list(csv.DictReader(f))


def err(p, m):
    return "%+.1f %%" % (100.0 * (p / m - 1.0)) if m else "-"


def us(s):
    return "%.1f" % (s * 1e6)


def gemm_table(plateau, gpu, shapes):
    meas = {}
    for r in rows("gemm.csv"):
        if r["dtype"] == "bf16" and r["time_s"]:
            meas[(int(r["M"]), int(r["N"]), int(r["K"]), r["pass"])] = float(r["time_s"])
    print("| configuration | op | m x n x k | fwd pred (us) | fwd meas (us) | error | bwd pred (us) "
          "| bwd meas (us) | error |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    pf = mf = pb = mb = 0.0
    for cfg in shapes["configs"]:
        d = predict(plateau, cfg["argv"], gpu)
        for op in d["ops"]:
            if op["kind"] != "gemm":
                continue
            m, n, k = op["m"], op["n"], op["k"]
            f = meas.get((m, n, k, "fwd"))
            b = (meas.get((m, k, n, "dgrad"), 0) + meas.get((k, n, m, "wgrad"), 0)) or None
            if f is None or b is None:
                continue
            pf += op["fwd_s"]
            mf += f
            pb += op["bwd_s"]
            mb += b
            print("| %s | %s | %d x %d x %d | %s | %s | %s | %s | %s | %s |" % (
                cfg["name"], op["name"], m, n, k, us(op["fwd_s"]), us(f), err(op["fwd_s"], f),
                us(op["bwd_s"]), us(b), err(op["bwd_s"], b)))
    print("| **all** | | | %s | %s | %s | %s | %s | %s |" % (us(pf), us(mf), err(pf, mf), us(pb),
                                                             us(mb), err(pb, mb)))


def fp8_line(plateau, gpu, shapes):
    """fp8 (torch._scaled_mm, e4m3, TN) forward GEMMs against plateau --dtype fp8."""
    meas = {}
    for r in rows("gemm.csv"):
        if r["dtype"] == "fp8" and r["time_s"] and r["pass"] == "fwd":
            meas[(int(r["M"]), int(r["N"]), int(r["K"]))] = float(r["time_s"])
    print("| configuration | op | m x n x k | fwd pred (us) | fwd meas (us) | error |")
    print("|---|---|---|---:|---:|---:|")
    pt = mt = 0.0
    for cfg in shapes["configs"]:
        d = predict(plateau, cfg["argv"] + ["--dtype", "fp8"], gpu)
        for op in d["ops"]:
            t = meas.get((op["m"], op["n"], op["k"]))
            if op["kind"] != "gemm" or t is None:
                continue
            pt += op["fwd_s"]
            mt += t
            print("| %s | %s | %d x %d x %d | %s | %s | %s |" % (
                cfg["name"], op["name"], op["m"], op["n"], op["k"], us(op["fwd_s"]), us(t),
                err(op["fwd_s"], t)))
    print("| **all** | | | %s | %s | %s |" % (us(pt), us(mt), err(pt, mt)))


def attention_table(plateau, gpu, shapes):
    meas = collections.defaultdict(dict)
    for r in rows("attention.csv"):
        if r["fwd_s"]:
            key = (int(r["sq"]), int(r["sk"]), int(r["head_dim"]), int(r["count"]))
            meas[key][r["backend"]] = (float(r["fwd_s"]), float(r["bwd_s"]))
    print("| configuration | s x d x heads | fwd pred (us) | FA2 meas | error | cuDNN meas | error "
          "| bwd pred (us) | FA2 meas | error | cuDNN meas | error |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for cfg in shapes["configs"]:
        d = predict(plateau, cfg["argv"], gpu)
        for op in d["ops"]:
            if op["kind"] != "attention":
                continue
            mm = meas.get((op["m"], op["n"], op["k"], op["count"]))
            if not mm or "flash" not in mm or "cudnn" not in mm:
                continue
            fa, cu = mm["flash"], mm["cudnn"]
            print("| %s | %d x %d x %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                cfg["name"], op["m"], op["k"], op["count"], us(op["fwd_s"]), us(fa[0]),
                err(op["fwd_s"], fa[0]), us(cu[0]), err(op["fwd_s"], cu[0]), us(op["bwd_s"]),
                us(fa[1]), err(op["bwd_s"], fa[1]), us(cu[1]), err(op["bwd_s"], cu[1])))


def memory_table(hbm_rate):
    print("| op | tokens x width | least bytes (MB) | measured (GB/s) | plateau's rate (GB/s) "
          "| predicted time error |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows("memory.csv"):
        if not r["time_s"]:
            continue
        t = float(r["time_s"])
        b = float(r["bytes_min"])
        print("| %s | %s x %s | %.0f | %.0f | %.0f | %s |" % (
            r["op"], r["tokens"], r["width"], b / 1e6, b / t / 1e9, hbm_rate / 1e9,
            err(b / hbm_rate, t)))


def trace_classes(path):
    """Kernel time per step by class, kernels linked to their CPU op by
    correlation id and External id (the same linking plateau's reader does)."""
    d = json.load(gzip.open(path))
    ev = d["traceEvents"]
    rt = {e["args"]["correlation"]: e for e in ev
          if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    ops = collections.defaultdict(list)
    for e in ev:
        if e.get("cat") in ("cpu_op", "user_annotation"):
            ops[e["args"].get("External id")].append(e)
    agg = collections.Counter()
    for e in ev:
        if e.get("cat") not in ("kernel", "gpu_memset", "gpu_memcpy"):
            continue
        r = rt.get(e["args"].get("correlation"))
        o = ops.get(r["args"].get("External id")) if r else None
        inner = min(o, key=lambda z: z["dur"])["name"] if o else ""
        kn = e["name"]
        if "nvjet" in kn or "gemm" in kn.lower():
            c = "gemm"
        elif "attention" in inner:
            c = "attention"
        elif "adam" in inner or "_foreach" in inner or "norm" in inner and "_foreach" in inner:
            c = "optimizer"
        else:
            c = "memory"
        agg[c] += e["dur"] * 1e-6
    steps = [e["dur"] * 1e-6 for e in ev
             if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep")]
    return {k: v / len(steps) for k, v in agg.items()}, steps


def step_table(plateau, gpu):
    s1 = json.load(open(os.path.join(DATA, "summary.json")))
    s2 = json.load(open(os.path.join(DATA, "foreach-clip", "summary.json")))
    base = ["predict", "--model", MODEL, "--gpus", "1", "--gpu", gpu, "--seq", "4096", "--shard",
            "ddp", "--mbs", "1", "--kernels", "unfused", "--ops", "--format", "json"]
    unf = predict(plateau, base, gpu)
    fus = predict(plateau, base[:-5] + ["--kernels", "fused", "--ops", "--format", "json"], gpu)
    cls, steps = trace_classes(TRACE)
    kinds = collections.Counter()
    for op in unf["ops"]:
        kinds[op["kind"]] += op["per_step_s"]
    print("| class (per step) | predicted, --kernels unfused (ms) | measured in the trace (ms) | error |")
    print("|---|---:|---:|---:|")
    for k, name in (("gemm", "GEMM"), ("attention", "attention"), ("memory", "memory-bound")):
        print("| %s | %.2f | %.2f | %s |" % (name, kinds[k] * 1e3, cls.get(k, 0) * 1e3,
                                              err(kinds[k], cls.get(k, 0))))
    print("| optimizer (fused AdamW, 28 B/param measured) | %.2f (fused model: %.2f) | %.2f | %s |" % (
        unf["breakdown"]["optimizer_s"] * 1e3, fus["breakdown"]["optimizer_s"] * 1e3,
        cls.get("optimizer", 0) * 1e3, err(fus["breakdown"]["optimizer_s"], cls.get("optimizer", 1))))
    print()
    print("| step | predicted (ms) | measured median (ms) | error | predicted power (W) "
          "| NVML power (W) | error |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, s, p in (("fused AdamW, no clipping", s1, unf),
                        ("foreach AdamW + clip_grad_norm_ (what --kernels unfused models)", s2, unf)):
        t = s["train"]
        print("| %s | %.1f | %.1f | %s | %.0f | %.0f | %s |" % (
            label, p["step_time_s"] * 1e3, t["step_median_s"] * 1e3,
            err(p["step_time_s"], t["step_median_s"]), p["power"]["gpu_w"], t["timed_avg_power_w"],
            err(p["power"]["gpu_w"], t["timed_avg_power_w"])))
    print("\nprofiled steps (profiler on) %s ms; kernel time per step %.1f ms" % (
        ", ".join("%.1f" % (x * 1e3) for x in steps), sum(cls.values()) * 1e3))


def soak_line():
    s = json.load(open(os.path.join(DATA, "summary.json")))
    w = s["soak"]["windows"]
    tf = [x["tflops"] for x in w]
    pw = [x["avg_power_w"] for x in w if x["avg_power_w"]]
    print("soak 8192^3 bf16: %d windows, first %.0f, median %.0f, min %.0f TFLOP/s; power median "
          "%.0f W" % (len(w), tf[0], statistics.median(tf), min(tf), statistics.median(pw)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plateau", default=os.path.join(ROOT, "build-test", "plateau"))
    ap.add_argument("--gpu", default="h100")
    a = ap.parse_args()
    shapes = json.load(open(os.path.join(DATA, "shapes.json")))
    print("## GEMM (bf16)\n")
    gemm_table(a.plateau, a.gpu, shapes)
    print("\n## GEMM (fp8, forward)\n")
    fp8_line(a.plateau, a.gpu, shapes)
    print("\n## Attention (causal)\n")
    attention_table(a.plateau, a.gpu, shapes)
    print("\n## Memory-bound\n")
    gpu = json.loads(subprocess.run([a.plateau, "list", "gpus", "--format", "json"],
                                    capture_output=True, text=True).stdout or "null")
    rate = 3.35e12 * 0.9
    if isinstance(gpu, list):
        for g in gpu:
            if g.get("name") == a.gpu and g.get("hbm_bytes_per_s"):
                rate = g["hbm_bytes_per_s"] * g.get("hbm_fraction", 0.9)
    memory_table(rate)
    print("\n## Step and power\n")
    step_table(a.plateau, a.gpu)
    print()
    soak_line()


if __name__ == "__main__":
    main()
