#!/usr/bin/env python3
# validate-with-flags.py PLATEAU CSV... -- FLAG...: a what-if on the validation rows. Each predicted
# row's `command` (the predict line that reproduces it, docs/accuracy.md "every row reproduced by its
# command") is run again with FLAG... appended, and per dataset the mean |error| and mean signed
# error (percent, of the step time against the published one) are printed without and with them.
# For flags validate does not take (framework and layout flags: --tp-comm-overlap on, ...); the
# hardware flags (--gpu-variability 0.01, --nic-bandwidth, ..., --cluster/--gpu files) validate
# takes itself (data/validation/README.md "Your own runs") and gives the same figures; this script
# prints both columns side by side. Run from the repository root. A row whose command does not
# reproduce its prediction is counted and left out.
import collections, csv, json, shlex, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
if '--' not in sys.argv or len(sys.argv) < 4:
    sys.exit('usage: validate-with-flags.py PLATEAU CSV... -- FLAG...')
cut = sys.argv.index('--')
plateau, files, flags = sys.argv[1], sys.argv[2:cut], sys.argv[cut + 1:]
out = subprocess.run([plateau, 'validate', *files, '--format', 'csv'], capture_output=True, text=True).stdout
rows = [r for r in csv.DictReader(out.splitlines()) if r['predicted_s'] and r['command'].startswith('plateau predict')]
def step(r, extra):
    args = shlex.split(r['command'])
    p = subprocess.run([plateau, *args[1:], '--format', 'json', *extra], capture_output=True, text=True)
    try:
        return json.loads(p.stdout)['step_time_s']
    except ValueError:
        return None
def both(r):
    return step(r, []), step(r, flags)
with ThreadPoolExecutor(2) as ex:
    got = list(ex.map(both, rows))
g, left = collections.defaultdict(lambda: ([], [])), 0
for r, (off, on) in zip(rows, got):
    if off is None or on is None or abs(off / float(r['predicted_s']) - 1) > 2e-5:
        left += 1
        continue
    m = float(r['measured_s'])
    for key in (r['dataset'], 'all'):
        g[key][0].append((off / m - 1) * 100)
        g[key][1].append((on / m - 1) * 100)
def s(e):
    return '%6.2f %+6.2f' % (sum(abs(x) for x in e) / len(e), sum(e) / len(e))
print('%-40s %5s  %-14s  %-14s' % ('dataset', 'rows', 'mean|e| bias', 'with ' + ' '.join(flags)))
for k in sorted(g, key=lambda k: (k == 'all', k)):
    print('%-40s %5d  %s  %s' % (k, len(g[k][0]), s(g[k][0]), s(g[k][1])))
if left:
    print('%d rows left out (command failed or did not reproduce the prediction)' % left)
