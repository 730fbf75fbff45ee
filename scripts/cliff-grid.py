#!/usr/bin/env python3
# cliff-grid.py [PLATEAU] [--quick] [--check] [--random N [--seed S]] [--jobs N] [--csv OUT] [-v]: runs `plateau predict --format json`
# over a grid of configurations close to what published training runs use (models, GPUs, GPU
# counts 8..4096, tp/pp/cp/vp/ep, gbs, seq 2k..32k, dtypes, shard modes, every framework preset)
# and flags outputs no mechanism should produce: NaN/inf/negative, MFU > 0.75 or < 0.05, a
# collective exposed longer than it runs, a breakdown that does not sum to the step, a layout that
# does not fit but still gets a step, step time falling as gbs grows, per-sequence time or per-GPU
# throughput jumping > 20 % between neighbouring configurations, and framework presets whose
# sources differ but whose predictions are identical. Run from the repository root. Exit status 0
# (the findings are for reading: docs/accuracy.md, "Session 25 (helper cliff25)"); with --check, 1
# when a configuration breaks an invariant no mechanism may break (HARD below: NaN, a breakdown
# that does not sum, a collective exposed longer than it runs, a step for a layout that does not
# fit, step time falling as gbs grows).
# Each finding line names the check and the exact `plateau predict` command(s) to reproduce it.
import json, math, random, subprocess, sys, collections, itertools
from concurrent.futures import ThreadPoolExecutor

args = [a for a in sys.argv[1:]]
PLATEAU = 'build-test/plateau'
if args and not args[0].startswith('-'):
    PLATEAU = args.pop(0)
QUICK = '--quick' in args
VERBOSE = '-v' in args
JOBS = int(args[args.index('--jobs') + 1]) if '--jobs' in args else 1
CSV = args[args.index('--csv') + 1] if '--csv' in args else None
CHECK = '--check' in args
# what no configuration may show whatever the mechanism: --check exits 1 on any of them
HARD = ('bad-exit', 'nan-neg', 'sum', 'exposed>coll', 'exposed-one', 'nofit-step', 'fits-no-step', 'hfu<mfu',
        'gbs-nonmono', 'step-recompute', 'machine-nic', 'machine-hbm', 'machine-cap', 'machine-var')

# thresholds the brief of session 25 set (cliff25): none is fitted to a dataset
MFU_HI, MFU_LO = 0.75, 0.05
JUMP = 0.20          # neighbouring configurations differing by more than this, unexplained
SUM_TOL = 0.01       # breakdown terms against the step time

GPUS = ['a100-40g', 'a100-80g', 'h100', 'h200', 'b200', 'gb200']
FRAMEWORKS = ['', 'megatron-core', 'megatron-lm', 'nemo', 'nemo-2024', 'nemo-25-11', 'torchtitan',
              'pytorch-fsdp', 'fsdp2-study-2024', 'fms-fsdp', 'fms-fsdp-2024-03', 'llm-foundry',
              'deepspeed', 'deepspeed-zero3-2021']
MEGATRON = ['megatron-core', 'nemo', 'nemo-2024', 'nemo-25-11']
FSDP = ['torchtitan', 'pytorch-fsdp', 'fsdp2-study-2024', 'fms-fsdp', 'llm-foundry']

# layout families per model, as published runs of each size use them (Megatron-Bridge / NeMo
# recipes, torchtitan's configs, MLPerf): (name, flags, model-parallel GPUs per replica, frameworks)
FAMILIES = {
    'llama3-8b': [('fsdp', [], 1, [''] + FSDP), ('tp2', ['--tp', '2'], 2, MEGATRON + ['torchtitan']),
                  ('zero1', ['--shard', 'zero1'], 1, MEGATRON + ['deepspeed'])],
    'llama2-7b': [('fsdp', [], 1, [''] + FSDP + ['deepspeed-zero3-2021']), ('zero1', ['--shard', 'zero1'], 1, MEGATRON)],
    'llama2-13b': [('fsdp', ['--shard', 'zero3'], 1, [''] + FSDP), ('tp2', ['--tp', '2'], 2, MEGATRON)],
    'llama2-70b': [('tp4pp4', ['--tp', '4', '--pp', '4'], 16, MEGATRON + ['megatron-lm']),
                   ('fsdp', ['--shard', 'zero3', '--recompute', 'full'], 1, FSDP)],
    'llama3-70b': [('tp4pp4vp5', ['--tp', '4', '--pp', '4', '--vp', '5', '--schedule', 'interleaved'], 16, MEGATRON),
                   ('tp8fsdp', ['--tp', '8', '--shard', 'zero3'], 8, ['torchtitan'])],
    'llama3-405b': [('tp8pp9', ['--tp', '8', '--pp', '9', '--recompute', 'selective'], 72, MEGATRON),
                    ('tp8pp7vp2', ['--tp', '8', '--pp', '7', '--vp', '2', '--schedule', 'interleaved'], 56, MEGATRON)],
    'gpt3-175b': [('tp8pp8', ['--tp', '8', '--pp', '8', '--recompute', 'selective'], 64, MEGATRON + ['megatron-lm', 'deepspeed']),
                  ('tp4pp8vp6', ['--tp', '4', '--pp', '8', '--vp', '6', '--schedule', 'interleaved'], 32, MEGATRON)],
    'mixtral-8x7b': [('ep8', ['--ep', '8', '--shard', 'zero1'], 1, MEGATRON), ('tp2ep4', ['--tp', '2', '--ep', '4', '--shard', 'zero1'], 2, MEGATRON)],
    'qwen3-30b-a3b': [('ep8', ['--ep', '8', '--shard', 'zero1'], 1, MEGATRON)],
    'deepseek-v3': [('pp16ep64', ['--pp', '16', '--ep', '64', '--shard', 'zero1', '--recompute', 'full'], 16, MEGATRON)],
}
if QUICK:
    FAMILIES = {k: v[:1] for k, v in FAMILIES.items() if k in ('llama3-8b', 'llama3-70b', 'mixtral-8x7b')}
    GPUS = ['a100-80g', 'h100', 'b200']


def run(cmd):
    p = subprocess.run([PLATEAU, 'predict', '--format', 'json'] + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()
        # bad input: one line starting 'plateau' and exit 1 (docs/robustness.md), never a crash
        bad = p.returncode != 1 or len(err) != 1 or not err[0].startswith('plateau')
        return {'error': (err or ['exit %d' % p.returncode])[-1], 'bad_exit': bad, 'rc': p.returncode}
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        return {'error': 'bad json: %s' % e}


results = {}


def predict_all(cmds):
    todo = [c for c in cmds if tuple(c) not in results]
    with ThreadPoolExecutor(JOBS) as ex:
        for c, r in zip(todo, ex.map(run, todo)):
            results[tuple(c)] = r


def cmdline(c):
    return 'plateau predict ' + ' '.join(c)


findings = []


def flag(kind, msg, *cmds):
    findings.append((kind, msg, [cmdline(c) for c in cmds]))


def dtype_for(gpu):
    return ['bf16', 'fp8'] if gpu != 'a100-40g' and gpu != 'a100-80g' else ['bf16']


# lines: lists of commands that vary one axis, checked for neighbouring jumps
lines = collections.defaultdict(list)   # (axis, key) -> [cmd, ...]
counts = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
if QUICK:
    counts = [8, 64, 512, 4096]
for model, fams in FAMILIES.items():
    for name, fl, mp, fws in fams:
        for gpu in GPUS:
            for dt in dtype_for(gpu):
                for fw in fws:
                    base = ['--model', model, '--gpu', gpu, '--dtype', dt] + fl + (['--framework', fw] if fw else [])
                    # weak scaling: 4 sequences per data-parallel rank (mbs 1), 2 pp with a
                    # pipeline (its bubble then at most a third of the step, as runs keep it), GPU
                    # count doubling
                    pp = int(fl[fl.index('--pp') + 1]) if '--pp' in fl else 1
                    per_rank = 4 if pp == 1 else 2 * pp
                    for n in counts:
                        if n % mp or n < mp:
                            continue
                        dp = n // mp
                        c = base + ['--gpus', str(n), '--gbs', str(per_rank * dp)]
                        lines[('gpus-weak', tuple(base))].append(c)
                    # global batch doubling at a fixed layout (64 GPUs or the smallest that holds one replica)
                    n = max(64, mp)
                    while n % mp:
                        n += 1
                    dp = n // mp
                    for k in [1, 2, 4, 8, 16, 32]:
                        lines[('gbs', tuple(base + ['--gpus', str(n)]))].append(base + ['--gpus', str(n), '--gbs', str(k * dp)])
                    # sequence length doubling at fixed tokens per step (dense models only)
                    if model.startswith(('llama', 'gpt3')) and not QUICK or model == 'llama3-8b':
                        for s in [2048, 4096, 8192, 16384, 32768]:
                            k = max(1, 4 * 8192 // s)
                            lines[('seq', tuple(base + ['--gpus', str(n)]))].append(
                                base + ['--gpus', str(n), '--seq', str(s), '--gbs', str(k * dp)])
                    # strong scaling: the gbs of 512 GPUs' weak line held while the GPU count doubles
                    if fw in ('', 'nemo', 'torchtitan'):
                        G = per_rank * (512 // mp) if 512 >= mp else per_rank
                        for n2 in counts:
                            if n2 % mp or n2 < mp or G % (n2 // mp):
                                continue
                            lines[('gpus-strong', tuple(base))].append(base + ['--gpus', str(n2), '--gbs', str(G)])

# ladders: one setting stepped where memory per GPU must move one way (a step may not be
# predicted the other way round either where the setting only removes work)
MEM_MODELS = ['llama3-8b', 'llama2-13b', 'llama3-70b', 'mixtral-8x7b'] if not QUICK else ['llama3-8b', 'mixtral-8x7b']
mem_lines = collections.defaultdict(list)   # (ladder, key) -> [cmd, ...], memory non-increasing along it
for model in MEM_MODELS:
    moe = ['--ep', '8'] if model.startswith('mixtral') else []
    for gpu in (['a100-80g', 'h100', 'b200'] if not QUICK else ['h100']):
        for fw in ['', 'megatron-core', 'nemo', 'torchtitan']:
            fwf = ['--framework', fw] if fw else []
            base = ['--model', model, '--gpu', gpu, '--gpus', '64'] + moe + fwf
            # sharding more of the state: ddp, zero1, zero2, zero3
            for sh in ['ddp', 'zero1', 'zero2', 'zero3']:
                mem_lines[('shard', tuple(base))].append(base + ['--gbs', '128', '--shard', sh])
            # more tensor parallelism at a fixed global batch
            for tp in [1, 2, 4, 8]:
                mem_lines[('tp', tuple(base))].append(base + ['--gbs', '128', '--shard', 'zero1', '--tp', str(tp)])
            # more recomputation
            for rc in ['none', 'selective', 'full']:
                mem_lines[('recompute', tuple(base))].append(base + ['--gbs', '128', '--shard', 'zero1', '--recompute', rc])
            # a smaller micro-batch at a fixed global batch (reversed: mbs 4, 2, 1)
            for mbs in [4, 2, 1]:
                mem_lines[('mbs', tuple(base))].append(base + ['--gbs', '256', '--shard', 'zero1', '--mbs', str(mbs)])
            # a shorter sequence at a fixed micro-batch
            for sq in [16384, 8192, 4096, 2048]:
                mem_lines[('seq', tuple(base))].append(base + ['--gbs', '128', '--shard', 'zero1', '--seq', str(sq)])
            # context parallelism at a long sequence
            for cp in [1, 2, 4]:
                mem_lines[('cp', tuple(base))].append(base + ['--gbs', '32', '--shard', 'zero1', '--seq', '16384', '--cp', str(cp)])
# node counts one by one (published runs use 3, 6, 12, 24, 96 nodes as often as powers of two):
# per-GPU throughput at the same work per GPU should move smoothly from one node count to the next
NODE_CASES = [
    ['--model', 'llama3-8b', '--framework', 'torchtitan'],
    ['--model', 'llama3-8b', '--framework', 'nemo', '--tp', '1'],
    ['--model', 'llama2-13b', '--shard', 'zero3'],
    ['--model', 'llama3-70b', '--framework', 'nemo', '--tp', '4', '--pp', '2'],
    ['--model', 'mixtral-8x7b', '--framework', 'nemo', '--ep', '8', '--shard', 'zero1'],
]
node_counts = list(range(1, 33)) + [48, 64, 96, 128, 192, 256, 384, 512]
if QUICK:
    node_counts = list(range(1, 9))
for case in NODE_CASES:
    mp = 8 if '--pp' in case else 1
    for gpu in (['a100-80g', 'h100', 'b200', 'gb200'] if not QUICK else ['h100']):
        for dt in dtype_for(gpu)[:1]:
            base = case + ['--gpu', gpu, '--dtype', dt]
            for nn in node_counts:
                n = 8 * nn if gpu != 'gb200' else 4 * nn   # gb200: 4 GPUs per tray, 72 per rack
                if n % mp:
                    continue
                lines[('nodes', tuple(base))].append(base + ['--gpus', str(n), '--gbs', str(4 * n // (mp // 2 if mp > 1 else 1))])

# machine ladders: a faster network, faster HBM or a higher power limit never slows a step, a wider
# spread of GPU clocks never speeds it (--sharp is left out: NCCL's tuner may pick CollNet where
# plateau's own time for it is a little slower, 0.01-0.3 % on the full grid)
MACH = [('nic', '--nic-bandwidth', ['100 Gb/s', '200 Gb/s', '400 Gb/s', '800 Gb/s', '1600 Gb/s'], -1),
        ('hbm', '--hbm-bandwidth', ['1.5 TB/s', '2 TB/s', '3 TB/s', '4 TB/s', '6 TB/s', '8 TB/s'], -1),
        ('cap', '--power-cap', None, -1),
        ('var', '--gpu-variability', ['off', '0.5%', '1%', '2%', '5%'], +1)]
CAPS = {'a100-80g': ['250 W', '300 W', '350 W', '400 W'], 'h100': ['400 W', '500 W', '600 W', '700 W'],
        'b200': ['600 W', '700 W', '800 W', '900 W', '1000 W']}
mach_lines = []   # (name, sign, [cmd, ...])
MACH_CASES = [['--model', 'llama3-8b', '--framework', 'torchtitan'],
              ['--model', 'llama3-8b', '--framework', 'nemo', '--tp', '2'],
              ['--model', 'llama3-70b', '--framework', 'nemo', '--tp', '4', '--pp', '4'],
              ['--model', 'mixtral-8x7b', '--framework', 'nemo', '--ep', '8', '--shard', 'zero1']]
for case in (MACH_CASES if not QUICK else MACH_CASES[:2]):
    mp = 16 if '--pp' in case else (2 if '--tp' in case else 1)
    for gpu in (['a100-80g', 'h100', 'b200'] if not QUICK else ['h100']):
        for n in ([16, 64, 512] if not QUICK else [64]):
            base = case + ['--gpu', gpu, '--gpus', str(n), '--gbs', str(8 * (n // mp))]
            for name, f, vals, sign in MACH:
                mach_lines.append((name, sign, [base + [f, v] for v in (vals or CAPS[gpu])]))

# overlap switches: a behaviour a framework turns on to hide communication, on against off at the
# same configuration under nemo and megatron-core (more than 1 % slower with it on is a finding:
# e.g. overlapped gradient buckets against one call of every gradient when off)
OVL_CASES = [(['--model', 'llama3-8b', '--tp', '2'], [16, 64, 512]),
             (['--model', 'llama3-70b', '--tp', '4', '--pp', '4'], [64, 512]),
             (['--model', 'llama3-70b', '--tp', '8', '--pp', '2', '--cp', '2', '--seq', '16384'], [64, 512]),
             (['--model', 'llama3-405b', '--tp', '8', '--pp', '9'], [576]),
             (['--model', 'gpt3-175b', '--tp', '4', '--pp', '8', '--vp', '6', '--schedule', 'interleaved'], [256, 1024]),
             (['--model', 'mixtral-8x7b', '--tp', '2', '--ep', '4'], [64, 256]),
             (['--model', 'qwen3-30b-a3b', '--ep', '8'], [64, 256])]
OVL_FLAGS = ['--tp-comm-overlap', '--overlap-grad-reduce', '--overlap-param-gather', '--overlap-p2p',
             '--ep-comm-overlap', '--te-linear-bwd-overlap']
ovl_pairs = []
for case, ns in (OVL_CASES if not QUICK else OVL_CASES[:1]):
    mp = 1
    for k in ('--tp', '--pp', '--cp'):
        if k in case:
            mp *= int(case[case.index(k) + 1])
    pp = int(case[case.index('--pp') + 1]) if '--pp' in case else 1
    for gpu in (['h100', 'b200', 'gb200'] if not QUICK else ['h100']):
        for fw in ['nemo', 'megatron-core']:
            for n in (ns if not QUICK else ns[:1]):
                base = case + ['--gpu', gpu, '--framework', fw, '--gpus', str(n), '--gbs',
                               str((n // mp) * max(8, 2 * pp)), '--shard', 'zero1']
                for f in OVL_FLAGS:
                    ovl_pairs.append((base + [f, 'off'], base + [f, 'on']))

# random configurations (--random N [--seed S]): any preset model, GPU, layout, dtype, sequence and
# framework preset drawn at random, for the point checks only (most are refused with a one-line
# layout error or do not fit: both fine)
RANDOM = int(args[args.index('--random') + 1]) if '--random' in args else 0
rng = random.Random(int(args[args.index('--seed') + 1]) if '--seed' in args else 25)
RMODELS = ['llama3-8b', 'llama3-70b', 'llama3-405b', 'llama2-7b', 'llama2-13b', 'llama2-70b', 'gpt3-175b',
           'mixtral-8x7b', 'qwen3-30b-a3b', 'deepseek-v3', 'qwen3-8b', 'nemotron-h-8b', 'gpt-oss-20b',
           'llama3.2-1b']
RGPUS = ['a100-40g', 'a100-80g', 'h100', 'h200', 'b200', 'gb200', 'b300', 'gb300', 'v100', 'mi300x']


def random_cmd():
    m, g = rng.choice(RMODELS), rng.choice(RGPUS)
    tp, pp, cp = rng.choice([1, 1, 2, 4, 8]), rng.choice([1, 1, 2, 4, 8]), rng.choice([1, 1, 1, 2, 4])
    mp = tp * pp * cp
    n = mp * rng.choice([1, 2, 4, 8, 16, 32, 64, 128])
    if g in ('gb200', 'gb300') and n > 72 and n % 64:
        n = (n // 64 + 1) * 64
    mbs = rng.choice([1, 1, 2, 4])
    per = rng.choice([1, 2, 4, 8, 16]) if pp == 1 else pp * rng.choice([1, 2, 4])
    c = ['--model', m, '--gpu', g, '--gpus', str(n), '--tp', str(tp), '--pp', str(pp), '--cp', str(cp),
         '--mbs', str(mbs), '--gbs', str((n // mp) * mbs * per)]
    if m in ('mixtral-8x7b', 'qwen3-30b-a3b', 'deepseek-v3', 'gpt-oss-20b'):
        c += ['--ep', str(rng.choice([1, 2, 4, 8]))]
    if pp > 1 and rng.random() < 0.4:
        c += ['--vp', str(rng.choice([2, 4])), '--schedule', 'interleaved']
    c += ['--shard', rng.choice(['ddp', 'zero1', 'zero2', 'zero3']),
          '--recompute', rng.choice(['none', 'none', 'selective', 'full']),
          '--dtype', rng.choice(['bf16', 'bf16', 'fp8', 'fp8-current', 'mxfp8', 'fp8-tensorwise']),
          '--seq', str(rng.choice([1024, 2048, 4096, 8192, 16384, 32768]))]
    fw = rng.choice(FRAMEWORKS)
    if fw:
        c += ['--framework', fw]
    if rng.random() < 0.2:
        c += ['--tp-comm-overlap', rng.choice(['on', 'off'])]
    if rng.random() < 0.2:
        c += ['--attention', rng.choice(['flash', 'cudnn', 'te', 'triton', 'eager'])]
    if rng.random() < 0.1:
        c += ['--kernels', 'unfused']
    if rng.random() < 0.1:
        c += ['--fp8-weight-cache', 'on']
    return c


random_cmds = [random_cmd() for _ in range(RANDOM)]

allcmds = [c for l in lines.values() for c in l] + [c for l in mem_lines.values() for c in l] \
    + [c for _, _, l in mach_lines for c in l] + [c for p in ovl_pairs for c in p] + random_cmds
predict_all(allcmds)
sys.stderr.write('%d configurations predicted\n' % len(results))


def ok(r):
    return r and 'error' not in r and r.get('step_time_s') is not None


# point checks on every configuration
nerr = collections.Counter()
for c, r in results.items():
    c = list(c)
    if 'error' in r:
        nerr[r['error'][:90]] += 1
        if r.get('bad_exit'):
            flag('bad-exit', 'exit %d, stderr %s' % (r['rc'], r['error'][:200]), c)
        continue
    m = r['memory']
    st = r.get('step_time_s')
    if st is None:
        if m.get('fits'):
            flag('fits-no-step', 'fits but no step', c)
        continue
    if not m.get('fits'):
        flag('nofit-step', 'memory %.1f GiB > %.1f GiB but a step is predicted' % (m['total_bytes'] / 2**30, m['capacity_bytes'] / 2**30), c)
    vals = [st, r['tokens_per_s'], r['mfu'], r['hfu']] + [v for v in r['breakdown'].values() if v is not None] \
        + [v for v in (r.get('kernel_time') or {}).values()] + [x for k in r['collectives'] for x in (k['time_s'], k['exposed_s'], k['bytes'])] \
        + [m['total_bytes'], m['activations_bytes']]
    if any(not isinstance(v, (int, float)) or math.isnan(v) or math.isinf(v) or v < 0 for v in vals):
        flag('nan-neg', 'NaN/inf/negative in outputs', c)
    if r['mfu'] > MFU_HI or r['mfu'] < MFU_LO:
        # MFU counts the full s x s attention (PaLM App. B, Megatron-LM; docs/model.md) where a
        # causal kernel does half: the utilization of the work the kernels do is lower at long
        # sequences; printed beside it (query heads x head dim, forward + backward = 3 x 4 s^2 a d)
        md = r['model']
        att = 12.0 * r['layout']['seq'] ** 2 * md['heads'] * md['head_dim'] * md['layers'] * r['layout']['gbs']
        fl = r['flops']['model_per_step']
        causal = r['mfu'] * max(fl - 0.5 * att, 0.0) / fl
        flag('mfu-low' if r['mfu'] < MFU_LO else 'mfu-high' if causal > MFU_HI - 0.05 else 'mfu-full-attn',
             'MFU %.3f (%.3f with causal attention counted as half)' % (r['mfu'], causal), c)
    if r['hfu'] + 1e-9 < r['mfu']:
        flag('hfu<mfu', 'HFU %.3f < MFU %.3f' % (r['hfu'], r['mfu']), c)
    for k in r['collectives']:
        if k['exposed_s'] > k['time_s'] * (1 + 1e-6) + 1e-9:
            flag('exposed>coll', '%s/%s exposed %.4g s > its %.4g s' % (k['op'], k['group'], k['exposed_s'], k['time_s']), c)
    b = r['breakdown']
    tot = sum(b[x] for x in ('compute_s', 'exposed_comm_s', 'bubble_s', 'optimizer_s', 'other_s'))
    if abs(tot - st) > SUM_TOL * st:
        flag('sum', 'breakdown sums to %.4g s, step %.4g s' % (tot, st), c)
    # a collective's exposed_s is its own time outside compute (src/sim/account.c add_summary), so
    # two collectives exposed at once (tp and dp streams) both count it and their sum may exceed the
    # step's exposed communication, a union; one collective alone may not exceed it
    exp_max = max([k['exposed_s'] for k in r['collectives']] or [0])
    if exp_max > (b['exposed_comm_s'] + b['bubble_s'] + b['other_s']) * (1 + SUM_TOL) + 1e-6:
        flag('exposed-one', 'one collective exposed %.4g s > breakdown exposed %.4g s' % (exp_max, b['exposed_comm_s']), c)


def per(r, what):
    if what == 'seq-time':       # step time per sequence
        return r['step_time_s'] / r['layout']['gbs']
    if what == 'tok-time-per-flop':
        return r['step_time_s'] / r['flops']['model_per_step']
    if what == 'tps-gpu':
        return r['tokens_per_s_per_gpu']
    return r['step_time_s']


# neighbour checks along each line
for (axis, key), cmds in lines.items():
    rs = [(c, results.get(tuple(c))) for c in cmds]
    rs = [(c, r) for c, r in rs if ok(r)]
    for (c1, r1), (c2, r2) in zip(rs, rs[1:]):
        if axis == 'gbs':
            if r2['step_time_s'] < r1['step_time_s'] * (1 - 1e-9):
                flag('gbs-nonmono', 'step %.4g s at gbs %d > %.4g s at gbs %d' % (r1['step_time_s'], r1['layout']['gbs'], r2['step_time_s'], r2['layout']['gbs']), c1, c2)
            a, b = per(r1, 'seq-time'), per(r2, 'seq-time')
            if b > a * (1 + 0.02):
                flag('gbs-per-seq-up', 'time per sequence rises %.1f%% from gbs %d to %d' % (100 * (b / a - 1), r1['layout']['gbs'], r2['layout']['gbs']), c1, c2)
            elif b < a * (1 - JUMP) and r1['layout']['micro_batches'] >= 4 * r1['layout']['pp']:
                # beyond the pipeline's fill and drain, (pp - 1) of m + pp - 1 slots, a falling cost
                # per sequence is a fixed per-step cost amortized; more than 20 % is worth a look
                flag('gbs-jump', 'time per sequence falls %.1f%% from gbs %d to %d' % (100 * (1 - b / a), r1['layout']['gbs'], r2['layout']['gbs']), c1, c2)
        elif axis == 'seq':
            # compute time per model FLOP: kernel rates should move smoothly with the sequence
            # (FSDP's per-micro-batch gathers halve with the micro-batches, so the step's own
            # time per FLOP may fall steeply where the step is communication-bound)
            a = r1['breakdown']['compute_s'] / r1['flops']['model_per_step']
            b = r2['breakdown']['compute_s'] / r2['flops']['model_per_step']
            if abs(b / a - 1) > JUMP:
                flag('seq-jump', 'compute time per model FLOP %+.1f%% from seq %d to %d' % (100 * (b / a - 1), r1['layout']['seq'], r2['layout']['seq']), c1, c2)
        elif axis == 'gpus-weak':
            a, b = per(r1, 'tps-gpu'), per(r2, 'tps-gpu')
            if r2['tokens_per_s'] < r1['tokens_per_s']:
                flag('weak-total-down', 'total tokens/s falls from %d GPUs (%.0f) to %d (%.0f)' % (r1['layout']['gpus'], r1['tokens_per_s'], r2['layout']['gpus'], r2['tokens_per_s']), c1, c2)
            if b > a * (1 + 0.02):
                flag('weak-per-gpu-up', 'tokens/s per GPU rises %.1f%% from %d to %d GPUs' % (100 * (b / a - 1), r1['layout']['gpus'], r2['layout']['gpus']), c1, c2)
            elif b < a * (1 - JUMP):
                b1, b2 = r1['breakdown'], r2['breakdown']
                flag('weak-jump', 'tokens/s per GPU falls %.1f%% from %d to %d GPUs (exposed comm %.3g -> %.3g s, compute %.3g -> %.3g s)' % (
                    100 * (1 - b / a), r1['layout']['gpus'], r2['layout']['gpus'], b1['exposed_comm_s'], b2['exposed_comm_s'], b1['compute_s'], b2['compute_s']), c1, c2)
            # the same work per GPU: its compute should not move as the GPUs double beyond what
            # the collectives run beside it take (src/sim/engine.c: 1 + overlap_slowdown, 0.189
            # in every GPU file, Lee et al. 2025)
            ca, cb = r1['breakdown']['compute_s'], r2['breakdown']['compute_s']
            if abs(cb / ca - 1) > JUMP:
                flag('weak-compute', 'compute per step %+.1f%% from %d to %d GPUs at the same work per GPU' % (100 * (cb / ca - 1), r1['layout']['gpus'], r2['layout']['gpus']), c1, c2)
        elif axis == 'nodes':
            a, b = per(r1, 'tps-gpu'), per(r2, 'tps-gpu')
            if b > a * (1 + 0.02):
                flag('nodes-per-gpu-up', 'tokens/s per GPU rises %.1f%% from %d to %d GPUs' % (100 * (b / a - 1), r1['layout']['gpus'], r2['layout']['gpus']), c1, c2)
            elif b < a * (1 - 0.10) and r1['layout']['gpus'] >= 16:
                flag('nodes-jump', 'tokens/s per GPU falls %.1f%% from %d to %d GPUs' % (100 * (1 - b / a), r1['layout']['gpus'], r2['layout']['gpus']), c1, c2)
        elif axis == 'gpus-strong':
            if r2['step_time_s'] > r1['step_time_s'] * (1 + JUMP):
                flag('strong-slower', 'step rises %.1f%% from %d to %d GPUs at gbs %d' % (100 * (r2['step_time_s'] / r1['step_time_s'] - 1), r1['layout']['gpus'], r2['layout']['gpus'], r1['layout']['gbs']), c1, c2)

# memory ladders: memory per GPU (and for the step-removing ladders, step time) non-increasing
for (ladder, key), cmds in mem_lines.items():
    rs = [(c, results.get(tuple(c))) for c in cmds]
    rs = [(c, r) for c, r in rs if r and 'error' not in r]
    for (c1, r1), (c2, r2) in zip(rs, rs[1:]):
        m1, m2 = r1['memory']['total_bytes'], r2['memory']['total_bytes']
        if m2 > m1 * 1.001 + 2**20:
            flag('mem-' + ladder, 'memory per GPU rises %.2f -> %.2f GiB along %s (%s)' % (
                m1 / 2**30, m2 / 2**30, ladder, ' '.join(c2[len(c2) - 2:])), c1, c2)
        if ladder in ('shard',) and ok(r1) and ok(r2) and r2['step_time_s'] < r1['step_time_s'] * (1 - 0.01):
            flag('step-shard', 'step falls %.4g -> %.4g s sharding more (%s)' % (r1['step_time_s'], r2['step_time_s'], c2[-1]), c1, c2)
        if ladder in ('recompute',) and ok(r1) and ok(r2) and r2['step_time_s'] < r1['step_time_s'] * (1 - 1e-9):
            flag('step-recompute', 'step falls %.4g -> %.4g s recomputing more (%s)' % (r1['step_time_s'], r2['step_time_s'], c2[-1]), c1, c2)

for name, sign, cmds in mach_lines:
    rs = [(c, results.get(tuple(c))) for c in cmds]
    rs = [(c, r) for c, r in rs if ok(r)]
    for (c1, r1), (c2, r2) in zip(rs, rs[1:]):
        a, b = r1['step_time_s'], r2['step_time_s']
        if (b - a) * sign < -1e-9 * a:
            flag('machine-' + name, 'step %.5g -> %.5g s from %s to %s' % (a, b, c1[-1], c2[-1]), c1, c2)

for c1, c2 in ovl_pairs:
    r1, r2 = results.get(tuple(c1)), results.get(tuple(c2))
    if ok(r1) and ok(r2) and r2['step_time_s'] > r1['step_time_s'] * 1.01:
        flag('overlap-slower', '%s on: step %.4g -> %.4g s (%+.1f%%)' % (c2[-2], r1['step_time_s'], r2['step_time_s'],
                                                                        100 * (r2['step_time_s'] / r1['step_time_s'] - 1)), c1, c2)

# framework presets: configurations that differ only in --framework and predict the same step
byfw = collections.defaultdict(list)
for c, r in results.items():
    if not ok(r) or '--framework' not in c:
        continue
    i = c.index('--framework')
    byfw[c[:i] + c[i + 2:]].append((c[i + 1], r['step_time_s'], list(c)))
same = collections.Counter()
for k, v in byfw.items():
    for (f1, s1, c1), (f2, s2, c2) in itertools.combinations(sorted(v), 2):
        if f1 != f2 and abs(s1 - s2) <= 1e-12 * s1:
            same[(f1, f2)] += 1
            if same[(f1, f2)] == 1:
                flag('fw-identical', 'presets %s and %s predict the same step (%.6g s)' % (f1, f2, s1), c1, c2)
for (f1, f2), n in same.items():
    findings.append(('fw-identical-count', '%s == %s on %d configurations' % (f1, f2, n), []))

# report
kinds = collections.Counter(k for k, _, _ in findings)
print('cliff-grid: %d configurations, %d refused (errors), %d findings' % (len(results), sum(nerr.values()), len(findings)))
for k, n in sorted(kinds.items()):
    print('  %-20s %5d' % (k, n))
if VERBOSE:
    for e, n in nerr.most_common():
        print('refused %4d  %s' % (n, e))
    for k, msg, cmds in findings:
        print('%s: %s' % (k, msg))
        for c in cmds:
            print('    ' + c)
if CSV:
    with open(CSV, 'w') as f:
        f.write('check,finding,command,command2\n')
        for k, msg, cmds in findings:
            f.write('%s,"%s",%s,%s\n' % (k, msg.replace('"', "'"), cmds[0] if cmds else '', cmds[1] if len(cmds) > 1 else ''))
if CHECK:
    bad = [f for f in findings if f[0] in HARD]
    for k, msg, cmds in bad[:20]:
        sys.stderr.write('cliff-grid: %s: %s: %s\n' % (k, msg, cmds[0] if cmds else ''))
    sys.exit(1 if bad else 0)
