#!/usr/bin/env python3
"""trace_host_replay.py TRACE [SCALE...]: how much of a one-GPU eager trace's step is the host.

Replays each ProfilerStep of a Kineto trace (one rank, the step's kernels on one CUDA stream, as
eager PyTorch runs them) as a launch queue: kernel i starts at max(its launch call's end, the
previous kernel's end + q) and runs for its measured duration. q is the trace's own median gap
between a kernel and the one queued behind it (a kernel whose launch call returned before the
GPU went idle: the "other" gaps of plateau trace analyze, docs/trace.md 3.6). SCALE multiplies
each launch's time since the step's start (the host's pace; 1 = as traced): the step a host
that issues each op SCALE times as fast would give, with the same kernels.

Used for docs/accuracy.md "Session 28 (trace28)": on the H100 trace the replay at 1.0 gives the
traced step within 0.4 %; the unprofiled steps of the same run (data/ground-truth/h100/
summary.json, train.step_median_s 116.53 ms) are reached at a scale of about 0.6, where the step
is GPU-bound but for the queued gaps and the step's first launches.

Limits: one stream (kernels of other streams would be serialized with these), the launch call's
end as the earliest start (what CUPTI records), no host-side model of why ops took their time.
"""
import collections
import gzip
import json
import statistics
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
LAUNCH_CATS = ("cuda_runtime", "cuda_driver")


def load(path):
    f = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    with f:
        return json.load(f)["traceEvents"]


def steps_of(ev):
    """Per ProfilerStep on the host: (start, end, [(launch_end, gpu_start, gpu_dur)])."""
    launch = {}
    for e in ev:
        if e.get("cat") in LAUNCH_CATS and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = float(e["ts"]) + float(e.get("dur", 0))
    gpu = sorted((float(e["ts"]), float(e["dur"]), launch.get(e.get("args", {}).get("correlation")))
                 for e in ev if e.get("cat") in GPU_CATS)
    host_steps = sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in ev
                        if str(e.get("name", "")).startswith("ProfilerStep#")
                        and e.get("cat") != "gpu_user_annotation")
    out = []
    for t0, t1 in host_steps:
        k = [(l, s, d) for s, d, l in gpu if t0 <= s < t1 and l is not None]
        if k:
            out.append((t0, t1, k))
    return out


def queued_gap(steps):
    """Median gap before a kernel whose launch returned before the GPU went idle."""
    gaps = []
    for t0, _, k in steps:
        end = t0
        for l, s, d in k:
            if s > end and l <= end:
                gaps.append(s - end)
            end = max(end, s + d)
    return statistics.median(gaps) if gaps else 0.0


def replay(t0, k, scale, q):
    """The step's GPU end and its idle time, in us from t0."""
    end, idle = t0, 0.0
    for l, _, d in k:
        start = max(t0 + scale * (l - t0), end + q)
        idle += start - end
        end = start + d
    return end - t0, idle


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    try:
        scales = [float(x) for x in argv[2:]] or [1.0, 0.8, 0.6, 0.4, 0.2, 0.0]
    except ValueError as e:
        print(f"trace_host_replay: SCALE must be a number ({e})", file=sys.stderr)
        return 2
    if any(not s >= 0.0 for s in scales):
        print("trace_host_replay: SCALE must be >= 0", file=sys.stderr)
        return 2
    try:
        steps = steps_of(load(argv[1]))
    except (OSError, ValueError, KeyError) as e:
        print(f"trace_host_replay: cannot read a Kineto trace from {argv[1]}: {e}", file=sys.stderr)
        return 1
    if not steps:
        print("trace_host_replay: no ProfilerStep with linked GPU events in " + argv[1], file=sys.stderr)
        return 1
    q = queued_gap(steps)
    busy = statistics.mean(sum(d for _, _, d in k) for _, _, k in steps)
    traced = statistics.mean(t1 - t0 for t0, t1, _ in steps)
    print(f"{len(steps)} steps: traced step {traced / 1e3:.2f} ms, kernels {busy / 1e3:.2f} ms, "
          f"{statistics.mean(len(k) for _, _, k in steps):.0f} GPU events, queued gap q {q:.2f} us")
    print(f"{'scale':>6} {'step ms':>9} {'idle ms':>9}")
    for s in scales:
        r = [replay(t0, k, s, q) for t0, _, k in steps]
        print(f"{s:6.2f} {statistics.mean(x[0] for x in r) / 1e3:9.2f} "
              f"{statistics.mean(x[1] for x in r) / 1e3:9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
