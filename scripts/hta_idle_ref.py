# HTA's per-stream idle breakdown (BreakdownAnalysis._analyze_idle_time_for_stream), re-derived in plain Python
import json,gzip,sys,collections
from decimal import Decimal, ROUND_HALF_UP
d=json.load(gzip.open(sys.argv[1]) if sys.argv[1].endswith(".gz") else open(sys.argv[1]), parse_float=Decimal)
ev=d['traceEvents']
def ns(x): return int((Decimal(x)*1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))
rt={}
for e in ev:
    if e.get('ph')=='X' and e.get('cat') in ('cuda_runtime','cuda_driver','Runtime') and 'correlation' in e.get('args',{}):
        rt.setdefault(e['args']['correlation'], ns(e['ts']))
per=collections.defaultdict(list)
for e in ev:
    if e.get('ph')=='X' and e.get('cat') in ('kernel','gpu_memcpy','gpu_memset','Kernel','Memcpy','Memset'):
        per[e['tid'] if isinstance(e['tid'],int) else int(''.join(c for c in str(e['tid']) if c.isdigit()))].append((ns(e['ts']),ns(e['dur']),rt.get(e.get('args',{}).get('correlation'))))
out={}
for s,k in per.items():
    k.sort(key=lambda x:x[0])
    cat=collections.Counter()
    for i in range(1,len(k)):
        prev_end=k[i-1][0]+k[i-1][1]; gap=k[i][0]-prev_end
        if k[i][2] is not None and k[i][2]>prev_end: cat['host']+=gap
        elif gap<30: cat['kernel']+=gap
        else: cat['other']+=gap
    out[s]=dict(cat)
for s in sorted(out): print(s, out[s])
