#!/usr/bin/env python3
# HTA's kernel breakdown (BreakdownAnalysis.get_gpu_kernel_breakdown, HTA 0c2146a: the sum of
# `dur` per kernel name over the whole trace), re-derived in plain Python: GPU events (kernel,
# gpu_memcpy, gpu_memset), names cut at 160 bytes as plateau's reader keeps them, times read
# exactly (decimal) in ns. Prints the 5 longest names (ns, calls, name), the total and the
# number of names: tests/unit/test_trace_kernels.c test_hta_kernels holds two traces' numbers.
# Usage: scripts/hta_kernel_ref.py TRACE.json[.gz]
import json,gzip,sys,collections
from decimal import Decimal, ROUND_HALF_UP
f=sys.argv[1]
d=json.load(gzip.open(f) if f.endswith(".gz") else open(f), parse_float=Decimal)
def ns(x): return int((Decimal(x)*1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
tot=collections.Counter(); cnt=collections.Counter()
for e in d['traceEvents']:
    if e.get('ph')=='X' and e.get('cat') in ('kernel','gpu_memcpy','gpu_memset','Kernel','Memcpy','Memset'):
        n=e['name'][:160]; tot[n]+=ns(e['dur']); cnt[n]+=1
for n,t in tot.most_common(5): print(t, cnt[n], n[:70])
print("total", sum(tot.values()), "names", len(tot))
