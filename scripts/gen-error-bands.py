#!/usr/bin/env python3
"""Write data/accuracy/error-bands.json: the error band of each class of run,
from `plateau validate`'s residuals on the published runs (docs/accuracy.md,
"Error band"; the reader is src/report/band.c, the classes are band.h's).

    scripts/gen-error-bands.py [PLATEAU [OUT]]
    (defaults: build-test/plateau, data/accuracy/error-bands.json)

For every predicted validation row, r = measured / predicted step time. A row
belongs to its classes "GPU FRAMEWORK SCALE", "GPU SCALE", "GPU" and "all"
(SCALE: single-node when the run's GPUs fit in one node, else multi-node).
For each class with at least MIN_ROWS rows, the ratios are sorted, the
floor(TRIM_PCT % of n) lowest and highest are dropped, and the band is
[lowest kept, highest kept]: at least 100 - 2 TRIM_PCT % of the class's rows
lie inside it. Nothing is typed by hand; rerun this after any change that
moves predictions (tests/unit/test_band.c says when).
"""
import glob
import json
import math
import os
import re
import subprocess
import sys

TRIM_PCT = 5    # ratios dropped at each end: a 90 % central band
MIN_ROWS = 20   # fewer rows: the trimmed ends are the extremes, so no band of its own


def class_keys(gpu, framework, nodes):
    scale = "single-node" if nodes <= 1 else "multi-node"
    keys = []
    if framework:
        keys.append("%s %s %s" % (gpu, framework, scale))
    keys += ["%s %s" % (gpu, scale), gpu, "all"]
    return keys


def families(root):
    """Each preset's family: the preset at the root of its "base" chain (a
    versioned preset such as nemo-2024 is in nemo's class), as
    pl_framework's family (src/model/framework.c) that pl_band_of looks up."""
    base = {}
    for f in glob.glob(os.path.join(root, "data", "frameworks", "*.json")):
        d = json.load(open(f))
        base[d["name"]] = d.get("base")
    fam = {}
    for name in base:
        n = name
        while base.get(n):
            n = base[n]
        fam[name] = n
    return fam


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    plateau = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build-test", "plateau")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "data", "accuracy", "error-bands.json")
    csvs = sorted(glob.glob(os.path.join(root, "data", "validation", "*.csv")))
    doc = json.loads(subprocess.run([plateau, "validate", "--format", "json"] + csvs,
                                    check=True, capture_output=True, text=True).stdout)
    fam = families(root)
    ratios = {}
    order = []
    for r in doc["rows"]:
        if r["predicted"] is None or r["measured"] is None:
            continue
        framework = fam.get(r["framework"], r["framework"])
        for k in class_keys(r["gpu"], framework, r["layout"]["nodes"]):
            if k not in ratios:
                ratios[k] = []
                order.append(k)
            ratios[k].append(r["measured"] / r["predicted"])
    classes = []
    for k in sorted(order):
        v = sorted(ratios[k])
        n = len(v)
        if n < MIN_ROWS:
            continue
        cut = math.floor(TRIM_PCT / 100.0 * n)
        # six decimals, rounded outwards so the kept rows stay inside
        lo = math.floor(v[cut] * 1e6) / 1e6
        hi = math.ceil(v[n - 1 - cut] * 1e6) / 1e6
        classes.append({"class": k, "rows": n, "measured_over_predicted": [lo, hi],
                        "inside": sum(1 for x in v if lo <= x <= hi)})
    band = {
        "about": "error band of each class of run: measured / predicted step time of the class's "
                 "published runs, the lowest and highest trim_pct % dropped (docs/accuracy.md, "
                 "\"Error band\"). Generated: do not edit.",
        "generated_by": "scripts/gen-error-bands.py",
        "command": "plateau validate data/validation/*.csv --format json",
        # the release only: a "-g<commit>" suffix would rewrite the file at every
        # commit though no band moved (the commit is in git's own history)
        "plateau_version": re.sub(r"-g[0-9a-f]+(-dirty)?$", "", doc.get("version") or ""),
        "trim_pct": TRIM_PCT,
        "min_rows": MIN_ROWS,
        "classes": classes,
    }
    tmp = out + ".tmp"
    with open(tmp, "w") as f:  # one class per line, so a regeneration's diff reads class by class
        head = json.dumps({k: v for k, v in band.items() if k != "classes"}, indent=1)[:-2]
        f.write(head + ',\n "classes": [\n')
        f.write(",\n".join("  " + json.dumps(c) for c in classes))
        f.write("\n ]\n}\n")
    os.replace(tmp, out)
    for c in classes:
        print("%-36s %5d rows  %.3f .. %.3f  inside %d" % (c["class"], c["rows"], *c["measured_over_predicted"], c["inside"]))


if __name__ == "__main__":
    main()
