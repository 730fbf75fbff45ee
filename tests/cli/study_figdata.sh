#!/usr/bin/env bash
# The study's new figures plot what results.csv says: every point of
# exposed-collectives.dat (exposed time per collective type, ms) and of
# generations-scaling.dat (tokens/s per GPU and exposed communication as a
# share of the step, per cluster) is found in results.csv's row of the same
# strategy, cluster and GPU count. Needs python3 (CSV with quoted fields);
# skipped without it. No gnuplot needed: scripts and data are written anyway.
. "$(dirname "$0")/lib.sh"
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 not installed"
  exit 77
fi
cat >"$TMP/s.json" <<'EOF2'
{"models": ["llama2-7b"], "clusters": ["dgx-a100", "dgx-h100"], "nodes": [1, 4, 32],
 "strategies": ["fsdp", "tp2"], "batch_per_gpu": [1], "global_batch": [256]}
EOF2
expect_ok study --spec "$TMP/s.json" --out "$TMP/r" --quiet --gnuplot /nonexistent/gnuplot
check "exposed-collectives data written" test -s "$TMP/r/figures/exposed-collectives.dat"
check "generations-scaling data written" test -s "$TMP/r/figures/generations-scaling.dat"
check "results.csv has the exposed columns" grep -q 'study.exposed_all_gather_s,study.exposed_reduce_scatter_s,study.exposed_all_reduce_s,study.exposed_tp_s,study.exposed_pp_s,study.exposed_cp_s' "$TMP/r/results.csv"
check "figure data = results.csv" python3 - "$TMP/r" <<'EOF2'
import csv, re, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/results.csv")))
def row(strategy, cluster, gpus):
    for r in rows:
        if (r["study.strategy"] == strategy and r["study.cluster"] == cluster and
                r["study.batch_kind"] == "per_gpu" and int(r["study.gpus"]) == gpus):
            return r
    raise SystemExit("no row %s %s %d" % (strategy, cluster, gpus))
def blocks(path, bands=False):
    """(panel, title, [(x, y)]) of the lines; with bands=True the error
    bands instead: (panel, "what it surrounds", [(x, y, lo, hi)])."""
    out, head = [], None
    for line in open(path):
        m = re.match(r'# block \d+: panel (\d+), "([^"]*)"', line)
        if m:
            band = m.group(2).startswith("error band ")
            head = (int(m.group(1)), m.group(2)[len("error band "):] if band else m.group(2), [])
            if band == bands and not m.group(2).startswith("published "):
                out.append(head)
        elif line.strip() and not line.startswith("#"):
            v = line.split()
            head[2].append((int(float(v[0])),) + tuple(float(t) for t in v[1:4 if bands else 2]))
    return out
def near(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))
n = 0
# exposed-collectives: panel 1 FSDP alone, panel 2 tp2, on the focus cluster (the last: dgx-h100)
for panel, kind, pts in blocks(d + "/figures/exposed-collectives.dat"):
    for x, y in pts:
        r = row("fsdp" if panel == 1 else "tp2", "dgx-h100", x)
        want = 1e3 * float(r["study.exposed_%s_s" % kind])
        assert near(y, want), (panel, kind, x, y, want)
        n += 1
for panel, cluster, pts in blocks(d + "/figures/generations-scaling.dat"):
    for x, y in pts:
        r = row("fsdp", cluster, x)
        if panel == 1:
            want = float(r["tokens_per_s_per_gpu"])
        else:
            want = 100 * float(r["breakdown.exposed_comm_s"]) / float(r["step_time_s"])
        assert near(y, want), (panel, cluster, x, y, want)
        n += 1
assert n >= 12, n
# The error bands (#20): every shaded band is results.csv's range of the
# point it surrounds (tokens_per_s_lo/_hi, per GPU divided by the GPUs; mfu_lo/_hi).
nb = 0
def band(path, pick):
    global nb
    for panel, what, pts in blocks(d + "/figures/" + path, bands=True):
        for x, y, lo, hi in pts:
            r, scale, col = pick(panel, what, x)
            assert near(y, scale * float(r[col])), (path, panel, what, x, y)
            assert near(lo, scale * float(r[col + "_lo"])), (path, panel, what, x, lo)
            assert near(hi, scale * float(r[col + "_hi"])), (path, panel, what, x, hi)
            assert 0 < lo <= hi, (path, what, x, lo, hi)  # the band need not hold y: a class whose runs were all slower lies below it
            nb += 1
band("generations-scaling.dat", lambda p, c, x: (row("fsdp", c, x), 1.0 / x, "tokens_per_s"))
band("scaling.dat", lambda p, m, x: (row("fsdp", "dgx-h100", x), 1.0 if p == 1 else 1.0 / x,
                                     "tokens_per_s"))
band("mfu.dat", lambda p, t, x: (row("fsdp", t.split()[1], x), 100.0, "mfu"))
assert nb >= 18, nb
for f in ("scaling", "mfu", "generations-scaling"):
    gp = open(d + "/figures/%s.gp" % f).read()
    assert "with filledcurves" in gp and 'title "error band (90% of published runs)"' in gp, f
print("checked", n, "points and", nb, "band points")
EOF2
# --validation (#21): published runs of the same model, GPU and seq drawn as markers; every
# marker is the per-GPU throughput results.json's "published" entry gives, and every entry
# of a matched dataset is drawn
expect_ok study --spec "$TMP/s.json" --out "$TMP/rv" --quiet --gnuplot /nonexistent/gnuplot --validation "$PL_SOURCE_DIR/data/validation"
check "published markers = results.json" python3 - "$TMP/rv" <<'EOF2'
import json, re, sys
d = sys.argv[1]
res = json.load(open(d + "/results.json"))
pub, dtype = res["published"], res["spec"]["dtype"]
assert any(p["dataset"] == "nemo_2407_performance_summary" and p["model"] == "llama2-7b" and
           p["cluster"] == "dgx-h100" for p in pub), pub
for p in pub:
    assert p["model"] == "llama2-7b" and p["seq"] == 4096, p
    want = p["gbs"] * p["seq"] / (p["measured_step_time_s"] * p["gpus"])
    assert abs(p["tokens_per_s_per_gpu"] - want) <= 1e-9 * want, p
    # measured MFU: the prediction's FLOPs and peak over the measured step (docs/study.md)
    want = p["predicted_mfu"] * p["predicted_step_time_s"] / p["measured_step_time_s"]
    assert 0 < p["mfu"] < 1 and abs(p["mfu"] - want) <= 1e-9 * want, p
# every marker is an entry of results.json: same dataset, GPUs, model (or cluster) and value;
# the legend names the precision exactly when it is not the spec's
n, fp8 = 0, 0
for fig, key, scale in (("scaling", "tokens_per_s_per_gpu", 1), ("generations-scaling",
                        "tokens_per_s_per_gpu", 1), ("mfu", "mfu", 100)):
    head = None
    for line in open(d + "/figures/%s.dat" % fig):
        m = re.match(r'# block \d+: panel \d+, "published (.+) \(([^,)]*)(, ([^)]*))?\)"', line)
        if line.startswith("#"):
            head = m.groups() if m else None
        elif line.strip() and head:
            x, y = line.split()[:2]
            hits = [p for p in pub if p["dataset"] == head[1] and p["gpus"] == int(float(x)) and
                    set(head[0].split()) <= {p["model"], p["cluster"]} and
                    abs(scale * p[key] - float(y)) <= 1e-9 * float(y) and
                    (head[3] or dtype).lower() == p["dtype"]]
            assert hits, (fig, head, x, y)
            assert (head[3] is None) == (hits[0]["dtype"] == dtype), (fig, head)
            fp8 += head[3] == "FP8"
            n += 1
    gp = open(d + "/figures/%s.gp" % fig).read()
    assert re.search(r'with points pt \d+ ps [0-9.]+ lc rgb "[^"]+" title "published ', gp), fig
assert n >= 6 and fp8 >= 6, (n, fp8)
print("checked", n, "published markers")
EOF2
# Side-by-side panels (#21) share one plot area (the same four margins, fixed on the screen, so a
# longer legend does not shrink one panel), line panels on the GPU axis share their x range
# and tics (the published run at 4 GPUs is in the right panel of scaling only), and panels of
# one quantity (same y label, linear) share their y range.
check "paired panels share plot area and x axis" python3 - "$TMP/rv" <<'EOF2'
import glob, re, sys
n = n_same_y = 0
for gp in sorted(glob.glob(sys.argv[1] + "/figures/*.gp")):
    panels = re.split(r"\n  # panel \d+\n", open(gp).read())[1:]
    if len(panels) < 2:
        continue
    def lines(p, what):
        return [l for l in p.splitlines() if re.match(r"  set %s\b" % what, l)]
    for what in ("lmargin", "rmargin"):
        assert all(len(lines(p, what)) == 1 for p in panels), (gp, what)
    for what in ("bmargin", "tmargin"):
        assert all(lines(p, what) == lines(panels[0], what) != [] for p in panels), (gp, what)
    ylabels = {lines(p, "ylabel")[0] for p in panels}
    if len(ylabels) == 1 and not any("set logscale y" in p for p in panels):
        assert all(lines(p, "yrange") == lines(panels[0], "yrange") != [] for p in panels), gp
        n_same_y += 1
    if all("set logscale x 2" in p for p in panels):
        for what in ("xrange", "xtics"):
            assert all(lines(p, what) == lines(panels[0], what) for p in panels), (gp, what)
    n += 1
assert n >= 6 and n_same_y >= 2, (n, n_same_y)  # exposed-collectives, collectives_size (breakdown: one panel without "best")
scaling = open(sys.argv[1] + "/figures/scaling.gp").read()
assert '"4" 4' in scaling.split("# panel 2")[0], "the left panel has the 4-GPU tic too"
print("checked", n, "two-panel figures")
EOF2
expect_fail 1 "^plateau: --validation '/nonexistent': " -- study --spec "$TMP/s.json" --out "$TMP/r4" --quiet --validation /nonexistent
# refused before the grid runs: the default grid (25 s here) would have run first
expect_fail 1 "^plateau: --validation '/nonexistent': " -- study --out "$TMP/r5" --validation /nonexistent
check "refused before any progress" sh -c '! grep -q "^plateau study: " "$1"' _ "$TMP/err"
mkdir "$TMP/nocsv"
expect_fail 1 "^plateau: --validation '.*nocsv': no .csv file in the directory" -- study --spec "$TMP/s.json" --out "$TMP/r4" --quiet --validation "$TMP/nocsv"
# Without --validation the study draws the embedded published runs (CMakeLists.txt
# PL_EMBED_VALIDATION): on the default grid's models, clusters and sequence length they are
# exactly the runs all of data/validation gives, so the default report shows every published run
# it can match; --validation none draws none.
cat >"$TMP/d.json" <<'EOF2'
{"nodes": [1], "strategies": ["fsdp"], "batch_per_gpu": [1], "global_batch": [64]}
EOF2
expect_ok study --spec "$TMP/d.json" --out "$TMP/rd" --quiet --gnuplot /nonexistent/gnuplot
expect_ok study --spec "$TMP/d.json" --out "$TMP/rdv" --quiet --gnuplot /nonexistent/gnuplot --validation "$PL_SOURCE_DIR/data/validation"
expect_ok study --spec "$TMP/d.json" --out "$TMP/rdn" --quiet --gnuplot /nonexistent/gnuplot --validation none
check "embedded published runs = data/validation's on the default grid" python3 - "$TMP" <<'EOF2'
import json, sys
d = sys.argv[1]
emb, full, none = (json.load(open(d + "/%s/results.json" % r))["published"] for r in ("rd", "rdv", "rdn"))
assert emb == full and len(emb) >= 10, (len(emb), len(full))
assert {p["model"] for p in emb} == {"llama2-7b", "llama2-13b", "llama2-70b"}, emb
assert none == [], none
mfu = open(d + "/rd/figures/mfu.dat").read()
assert '"published llama2-7b dgx-h100 (nemo_2407_performance_summary, FP8)"' in mfu
print("checked", len(emb), "embedded runs")
EOF2
check "no caption is cut short" python3 - "$TMP/rd/results.json" <<'EOF2'
import json, sys
figs = json.load(open(sys.argv[1]))["figures"]
for f in (f for f in figs if "caption" in f):
    assert f["caption"].rstrip().endswith("."), (f["id"], f["caption"][-60:])
assert any("published runs" in f["caption"] for f in figs if f["id"] == "mfu"), "mfu caption"
EOF2
# --png-scale: bad values
expect_fail 1 '^plateau: --png-scale: .*more than 4' -- study --spec "$TMP/s.json" --out "$TMP/r2" --png-scale 5 --quiet
expect_fail 1 '^plateau: --png-scale' -- study --spec "$TMP/s.json" --out "$TMP/r2" --png-scale 0 --quiet
# the script offers the print resolution, and --png-scale sets its default
expect_ok study --spec "$TMP/s.json" --out "$TMP/r3" --quiet --gnuplot /nonexistent/gnuplot --png-scale 3
check "--png-scale 3 is the script's default" grep -q '^if (!exists("png_scale")) png_scale = 3$' "$TMP/r3/figures/exposed-collectives.gp"
check "gp script scales the PNG" grep -q 'set terminal pngcairo size 1280 \* k,560 \* k' "$TMP/r/figures/exposed-collectives.gp"
finish
