#!/usr/bin/env python3
# validate-moe-groups.py [PLATEAU] [-v]: the groups of issue 19 (docs/accuracy.md): mean |error| and
# mean signed error of the MoE rows of Megatron-Bridge and the Megatron MoE model zoo, and of
# Llama 3.1 405B on GB200/GB300, and, apart, Together AI's GB200 GPT-OSS run and B200 MoE runs, from `plateau validate ... --format csv` (run from the repository root).
# Each line gives the step-time error (validate's error_pct) and, after "tokens/s", the error on the
# column the sources publish (published_error_pct: a rate's error, measured / predicted - 1 of the
# step, larger than the step's when plateau is too fast).
import csv,sys,collections,subprocess
PLATEAU = sys.argv[1] if len(sys.argv) > 1 else 'build-test/plateau'
out=subprocess.run([PLATEAU,'validate','data/validation/megatron_bridge_performance_summary.csv','data/validation/megatron_moe_modelzoo.csv','data/validation/together_gb200.csv','data/validation/together_b200.csv','--format','csv'],capture_output=True,text=True).stdout
# the issue 19 groups are Bridge's and the zoo's rows; Together AI's GB200 runs (session 22) are an
# independent check, printed on their own line and kept out of those groups; so are their B200
# runs of the dgxc recipes (session 23, together_b200.csv)
allrows=list(csv.DictReader(out.splitlines()))
r=[x for x in allrows if not x['dataset'].startswith('together')]
def stats(rows, published="tokens/s"):
    e=[float(x['error_pct']) for x in rows]
    t=[float(x['published_error_pct']) for x in rows]
    n=max(1,len(e))
    return "%3d rows  mean|err| %5.1f%%  bias %+5.1f%%  | %s: mean|err| %5.1f%%  bias %+5.1f%%" % (
        len(e), sum(abs(v) for v in e)/n, sum(e)/n, published, sum(abs(v) for v in t)/n, sum(t)/n)
ran=[x for x in r if not x['skipped_reason']]
moe=[x for x in ran if x['run'].split(',')[0] in ('deepseek-v3','qwen3-235b-a22b','qwen3-30b-a3b','gpt-oss-120b')]
print("MoE rows (bridge+zoo):", stats(moe))
print("  bridge MoE:", stats([x for x in moe if x['dataset'].startswith('megatron_bridge')]))
print("  zoo:", stats([x for x in moe if x['dataset'].startswith('megatron_moe')]))
print("MoE rows with Nemotron 3 Nano (hybrid Mamba-2 MoE):", stats(moe+[x for x in ran if x['run'].startswith('nemotron-3-nano')]))
# the kimi-k2 preset (session 17) unlocks 4 Bridge rows, outside issue 19's set above
print("MoE rows (bridge+zoo) with Kimi K2:", stats(moe+[x for x in ran if x['run'].startswith('kimi-k2')]))
l405=[x for x in ran if x['run'].startswith('llama3-405b') and x['gpu'] in ('gb200','gb300')]
print("Llama 3.1 405B GB200/GB300:", stats(l405))
print("Llama 3.1 405B all:", stats([x for x in ran if x['run'].startswith('llama3-405b')]))
print("Together GB200 GPT-OSS 120B (independent check, not in the groups above):",
      stats([x for x in allrows if x['dataset'] == 'together_gb200' and not x['skipped_reason']
             and x['run'].startswith('gpt-oss-120b')],
            # Together publishes the median step time itself (together_gb200.csv), so its
            # published figure is the step, not a tokens/s rate
            published="published step time"))
tb=[x for x in allrows if x['dataset'] == 'together_b200' and not x['skipped_reason']]
print("Together B200 DeepSeek-V3 / Qwen3-235B (independent check, the Bridge 26.02 recipes):",
      stats([x for x in tb if x['run'].split(',')[0] in ('deepseek-v3','qwen3-235b-a22b')], published="published step time"))
print("Together B200 Grok-1 314B (independent check, NeMo 2 recipe):",
      stats([x for x in tb if x['run'].startswith('grok1-314b')], published="published step time"))
print("dense Llama 3 8B/70B:", stats([x for x in ran if x['run'].startswith('llama3-') and not x['run'].startswith('llama3-405b')]))
if len(sys.argv)>2:
    g=collections.defaultdict(list)
    for x in ran: g[(x['dataset'][:10], x['run'].split(',')[0], x['gpu'])].append(x)
    for k,v in sorted(g.items()): print(" ",k, stats(v))
    sk=collections.Counter((x['dataset'][:10],x['skipped_reason'][:100]) for x in r if x['skipped_reason'])
    for k,v in sk.most_common(): print(v,k)
