#!/usr/bin/env python3
# attn-sweep-fractions.py [CSV]: the attention fractions of peak the GPU files take from the
# measured H100 sweep (data/ground-truth/h100/attn_sweep.csv, bench/gpu/attn_sweep.py; columns in
# data/ground-truth/h100/README.md), per backend and head dim: the median, min and max of
# fwd_frac / bwd_frac over the shapes whose timing is the kernel's and not the host's.
# Kernel-bound: fwd_s >= 0.5 ms and bwd_s >= 2 ms. The sweep's shortest calls take about 23 us
# forward and 130-290 us backward whatever their FLOPs (1.07 and 4.29 GFLOP forward both take 23 us): that is the
# benchmark's per-call host floor (Python, autograd), so only calls >= ~10x longer measure the
# kernel (docs/step-model.md 2.2). The looser 0.2 ms / 1 ms cut is printed beside it.
import csv, statistics, sys
path = sys.argv[1] if len(sys.argv) > 1 else 'data/ground-truth/h100/attn_sweep.csv'
rows = [r for r in csv.DictReader(open(path)) if not r['error']]
def summary(xs):
    return 'n %2d median %.3f min %.3f max %.3f' % (len(xs), statistics.median(xs), min(xs), max(xs)) if xs else 'n  0'
for backend in sorted(set(r['backend'] for r in rows)):
    for dqk, dv in sorted(set((r['d_qk'], r['d_v']) for r in rows if r['backend'] == backend), key=lambda k: int(k[0])):
        sel = [r for r in rows if r['backend'] == backend and r['d_qk'] == dqk and r['d_v'] == dv]
        for fwd_min, bwd_min in ((5e-4, 2e-3), (2e-4, 1e-3)):
            f = [float(r['fwd_frac']) for r in sel if float(r['fwd_s']) >= fwd_min]
            b = [float(r['bwd_frac']) for r in sel if float(r['bwd_s']) >= bwd_min]
            print('%-5s d %3s/%3s  cut %.1f/%.0f ms  fwd: %s  bwd: %s' % (backend, dqk, dv, fwd_min * 1e3, bwd_min * 1e3, summary(f), summary(b)))
