#!/usr/bin/env python3
# gpu-twin-pairs.py [PLATEAU] [GPU_A GPU_B] [-v]: the Megatron-Bridge performance-summary rows that
# ran the same model, GPU count, layout (tp, pp, cp, ep, vp), micro and global batch, sequence,
# precision and task in the same release table on two GPUs (default gb200 and gb300), and for each
# such twin pair the published step-time ratio A / B (= B's tokens/s over A's) against plateau's
# (`plateau validate data/validation/megatron_bridge_performance_summary.csv --format csv`,
# measured_s and predicted_s; run from the repository root). A pair whose rows plateau skips is
# listed as skipped. The ratio of two runs that differ only in the GPU is what a per-GPU rate
# (GEMM, attention, HBM, clock) must reproduce; docs/accuracy.md "Session 26 (helper gbr26)".
# -v also prints each pair's two errors and the two rows' step components (compute, exposed
# communication, bubble) as plateau splits them.
import csv, math, subprocess, sys

args = [a for a in sys.argv[1:] if a != '-v']
verbose = '-v' in sys.argv[1:]
PLATEAU = args[0] if args else 'build-test/plateau'
GPU_A, GPU_B = (args[1], args[2]) if len(args) >= 3 else ('gb200', 'gb300')
CSV = 'data/validation/megatron_bridge_performance_summary.csv'

try:
    out = subprocess.run([PLATEAU, 'validate', CSV, '--format', 'csv'], capture_output=True,
                         text=True)
except OSError as e:
    sys.exit('gpu-twin-pairs: cannot run %s: %s' % (PLATEAU, e.strerror))
if out.returncode != 0:
    sys.exit('gpu-twin-pairs: %s validate failed: %s' % (PLATEAU, out.stderr.strip()))
pred = {int(r['row']): r for r in csv.DictReader(out.stdout.splitlines())}
src = list(csv.DictReader(open(CSV)))


def gpu(r):
    return r['gpu'].replace('DGX-', '').lower()


def release(r):
    # "26.04.01 NeMo Container / Pre-Training Performance / ..." -> the release table
    return r['table_or_section'].split(' / ')[0]


KEYS = ('model', 'num_gpus', 'tp', 'pp', 'cp', 'ep', 'vp', 'micro_batch', 'global_batch',
        'seq_len', 'precision', 'Task')
groups = {}
for i, r in enumerate(src, 1):  # validate numbers rows from 1 in file order
    g = gpu(r)
    if g not in (GPU_A, GPU_B):
        continue
    key = (release(r),) + tuple(r[k] for k in KEYS)
    groups.setdefault(key, {}).setdefault(g, []).append(i)

pairs = []
print('%-24s %-16s %4s %-14s %-8s %-7s %9s %9s %8s %8s' % (
    'release', 'model', 'gpus', 'tp/pp/cp/ep/vp', 'mbs/gbs', 'prec', 'rows',
    'published', 'plateau', 'pub/pla'))
for key, d in groups.items():
    if GPU_A not in d or GPU_B not in d:
        continue
    a, b = d[GPU_A][0], d[GPU_B][0]
    ra, rb = pred.get(a), pred.get(b)
    rel, model, n, tp, pp, cp, ep, vp, mbs, gbs, seq, prec, task = key
    layout = '/'.join(x or '-' for x in (tp, pp, cp, ep, vp))
    head = '%-24s %-16s %4s %-14s %-8s %-7s %4d/%-4d' % (
        rel[:24], model[:16] + ('' if task == 'pretrain' else ' ' + task), n, layout,
        mbs + '/' + gbs, prec, a, b)
    if not ra or not rb or not ra['predicted_s'] or not rb['predicted_s']:
        print(head + '  skipped (%s)' % ((ra or {}).get('skipped_reason') or
                                         (rb or {}).get('skipped_reason') or 'not predicted')[:60])
        continue
    pub = float(ra['measured_s']) / float(rb['measured_s'])
    pla = float(ra['predicted_s']) / float(rb['predicted_s'])
    pairs.append((pub, pla, prec))
    print(head + ' %9.3f %9.3f %8.3f' % (pub, pla, pub / pla))
    if verbose:
        for r in (ra, rb):
            print('    %-6s row %4s  error %+6.1f%%  compute %.3f s  exposed comm %.3f s  bubble %.3f s'
                  % (r['gpu'], r['row'], float(r['error_pct']), float(r['compute_s']),
                     float(r['exposed_comm_s']), float(r['bubble_s'])))


def gmean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else float('nan')


print('%d twin pairs %s / %s: geometric mean step ratio published %.3f, plateau %.3f' % (
    len(pairs), GPU_A, GPU_B, gmean([p[0] for p in pairs]), gmean([p[1] for p in pairs])))
for prec in sorted(set(p[2] for p in pairs)):
    s = [p for p in pairs if p[2] == prec]
    print('  %-8s %2d pairs: published %.3f, plateau %.3f' % (
        prec, len(s), gmean([p[0] for p in s]), gmean([p[1] for p in s])))
