#!/usr/bin/env python3
# HTA's communication/computation overlap (CommunicationAnalysis.get_comm_comp_overlap,
# hta/analyzers/communication_analysis.py) and temporal breakdown
# (BreakdownAnalysis.get_temporal_breakdown, hta/analyzers/breakdown_analysis.py), HTA f4d0062,
# re-derived in plain Python for one trace file (one rank):
#   - GPU events: cat kernel / gpu_memcpy / gpu_memset (2021 schema: Kernel, Memcpy, Memset);
#   - HTA's kernel types (hta/common/types.py): communication = CommunicateKernelGroupingPattern
#     (^nccl | ^hip | ^hccl | ncclKernel anywhere), computation = not ComputeKernelGroupingPattern
#     (^nccl, Memcpy, Memset, dma, ^...Sync, ^hip, ...), the rest memory;
#   - overlap ratio = |merged comm ∩ merged compute| / |merged comm|;
#   - temporal: span = last end - first start over all GPU events, idle = span - |union of all|,
#     compute = |merged compute|, non-compute = span - compute - idle.
# Times exact (decimal) in ns. Two selections of events:
#   all   every GPU event: what `plateau trace analyze --window trace` measures;
#   hta   HTA's default load (Trace._filter_irrelevant_gpu_kernels with
#         include_last_profiler_step=False): only GPU events whose launch (runtime call with the
#         same correlation) starts before the last ProfilerStep#N starts.
# Prints, per selection: comm_ns compute_ns overlap_ns idle_ns span_ns ratio.
# Then, for "all", the same overlap per collective kind (plateau's comm_by_op, docs/trace.md
# 3.4.2): M_k = the union of the communication kernels of kind k, printed as
# "kind <k> |M_k| |M_k ∩ compute|"; the kind is the kernel's args "Collective name" (allreduce ->
# all_reduce, ...) when it has one, else read from the kernel name (AllReduce, Broadcast,
# AllGather, ReduceScatter, SendRecv), else other_comm. Kinds that plateau takes from a
# record_param_comms op or an nccl: annotation are not re-derived here.
# tests/unit/test_trace_kernels.c test_hta_overlap holds the "all" numbers of three traces.
# Usage: scripts/hta_overlap_ref.py TRACE.json[.gz]
import gzip, json, re, sys
from decimal import Decimal, ROUND_HALF_UP

f = sys.argv[1]
d = json.load(gzip.open(f) if f.endswith(".gz") else open(f), parse_float=Decimal)
ev = d["traceEvents"] if isinstance(d, dict) else d
COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
NOT_COMPUTE = re.compile(r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|"
                         r"(cuda.*LaunchKernel)|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|"
                         r"(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")


def ns(x):
    return int((Decimal(x) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def union(iv):
    out = []
    for a, b in sorted(iv):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(u):
    return sum(b - a for a, b in u)


def inter(u, v):
    i = j = t = 0
    while i < len(u) and j < len(v):
        lo, hi = max(u[i][0], v[j][0]), min(u[i][1], v[j][1])
        t += max(0, hi - lo)
        if u[i][1] < v[j][1]:
            i += 1
        else:
            j += 1
    return t


launch = {}
steps = []
for e in ev:
    if e.get("ph") != "X":
        continue
    a = e.get("args", {}) or {}
    if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime") and "correlation" in a:
        launch.setdefault(a["correlation"], ns(e["ts"]))
    if e.get("cat") in ("cpu_op", "user_annotation", "Operator") and re.match(r"^ProfilerStep#(\d+)", e["name"]):
        steps.append(ns(e["ts"]))
last_step = max(steps) if steps else None
gpu = []
kinds = []
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"):
        a = e.get("args", {}) or {}
        t = ns(e["ts"])
        gpu.append((t, t + ns(e["dur"]), e["name"], launch.get(a.get("correlation"))))
        kinds.append(str(a.get("Collective name") or ""))

for sel in ("all", "hta"):
    g = gpu if sel == "all" else [x for x in gpu if x[3] is not None and (last_step is None or x[3] < last_step)]
    if not g:
        print(sel, "no GPU events")
        continue
    comm = union([(a, b) for a, b, n, _ in g if COMM.match(n)])
    comp = union([(a, b) for a, b, n, _ in g if not NOT_COMPUTE.match(n)])
    span = max(b for _, b, _, _ in g) - min(a for a, _, _, _ in g)
    idle = span - length(union([(a, b) for a, b, _, _ in g]))
    ov = inter(comm, comp)
    ratio = ov / length(comm) if comm else float("nan")
    print(sel, length(comm), length(comp), ov, idle, span, "%.6f" % ratio)


KIND = [("allreduce", "all_reduce"), ("allgather", "all_gather"), ("reducescatter", "reduce_scatter"),
        ("alltoall", "all_to_all"), ("broadcast", "broadcast"), ("sendrecv", "send_recv")]


def kind_of(coll, name):
    for src in (coll.lower().replace("_", ""), name.lower().replace("_", "")):
        for k, v in KIND:
            if k in src:
                return v
    return "other_comm"


comp = union([(a, b) for a, b, n, _ in gpu if not NOT_COMPUTE.match(n)])
per = {}
for (a, b, n, _), c in zip(gpu, kinds):
    if COMM.match(n):
        per.setdefault(kind_of(c, n), []).append((a, b))
for k in sorted(per):
    u = union(per[k])
    print("kind", k, length(u), inter(u, comp))
