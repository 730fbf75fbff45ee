#!/usr/bin/env python3
# block-factor.py [--plateau P] [--model PREFIX] [--extra 'FLAG VALUE ...'] CSV...: by how much each
# validation row's transformer blocks miss (docs/accuracy.md "Session 22 (helper oss22)").
# For each computed row of `plateau validate CSV... --format csv` it reruns the row's command
#  - with its host costs set to 0 (--host-per-kernel/--host-per-gemm/--host-per-launch '0 us'): the
#    GPU-only step, and
#  - with --ops: the blocks' op sum (the per_step_s of every op outside the embed and head segments;
#    for pp > 1 the busiest stage's) and the pipeline bubble,
# and prints X = (measured - (GPU-only step - blocks - bubble)) / (blocks + bubble): the factor every
# block op would need for the row to match if the time outside the blocks (head, embedding,
# exposed communication, optimizer) is right. X near 1: the blocks are priced right; X above 1:
# time is missing inside the blocks (or in waits the model does not have). --extra replaces the
# row's own value of each flag it names (e.g. --extra '--grad-accum-fusion on'). Then the median
# per dataset, model and GPU. Run from the repository root; about 1 s per row.
import argparse
import collections
import csv
import json
import shlex
import statistics
import subprocess

ap = argparse.ArgumentParser()
ap.add_argument('--plateau', default='build-test/plateau')
ap.add_argument('--model', default='', help='only rows whose run starts with this preset name')
ap.add_argument('--extra', default='', help='flags replacing the row command\'s own values')
ap.add_argument('csv', nargs='+')
a = ap.parse_args()

out = subprocess.run([a.plateau, 'validate', *a.csv, '--format', 'csv'], capture_output=True,
                     text=True, check=True).stdout
rows = [r for r in csv.DictReader(out.splitlines())
        if r['error_pct'] and r['run'].startswith(a.model) and r['command']]


def with_flags(argv, extra):
    """argv with each --flag of extra set to extra's value (appended when the row has none)."""
    argv = list(argv)
    ex = shlex.split(extra)
    for i in range(0, len(ex) - 1, 2):
        if ex[i] in argv:
            argv[argv.index(ex[i]) + 1] = ex[i + 1]
        else:
            argv += [ex[i], ex[i + 1]]
    return argv


def run_json(argv):
    return json.loads(subprocess.run(argv + ['--format', 'json'], capture_output=True, text=True,
                                     check=True).stdout)


HOST0 = "--host-per-kernel '0 us' --host-per-gemm '0 us' --host-per-launch '0 us'"
groups = collections.defaultdict(list)
for r in rows:
    argv = shlex.split(r['command'])
    argv[0] = a.plateau
    argv = with_flags(argv, a.extra)
    try:
        gpu_only = run_json(with_flags(argv, HOST0))
        ops = run_json(argv + ['--ops'])['ops']
    except subprocess.CalledProcessError as e:
        print('%s row %s: the command failed (%s), skipped' % (r['dataset'], r['row'],
                                                              e.stderr.strip().splitlines()[:1]))
        continue
    blocks = sum(o['per_step_s'] for o in ops if o['segment'] not in ('embed', 'head'))
    bubble = gpu_only['breakdown']['bubble_s']
    outside = gpu_only['step_time_s'] - blocks - bubble
    x = (float(r['measured_s']) - outside) / (blocks + bubble) if blocks + bubble > 0 else float('nan')
    model = r['run'].split(',')[0]
    groups[(r['dataset'], model, r['gpu'])].append(x)
    print('%s row %s %s %s: measured %.3f s, plateau %.3f s, GPU-only %.3f s, blocks %.3f s, '
          'bubble %.3f s, X %.2f' % (r['dataset'], r['row'], model, r['gpu'], float(r['measured_s']),
                                     float(r['predicted_s']), gpu_only['step_time_s'], blocks,
                                     bubble, x))
for k in sorted(groups):
    v = groups[k]
    print('%s %s %s: %d rows, X median %.2f (%.2f-%.2f)' % (k[0], k[1], k[2], len(v),
                                                           statistics.median(v), min(v), max(v)))
