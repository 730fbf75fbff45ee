#!/usr/bin/env bash
# index.html of a study renders in headless Chromium: every figure decodes
# (the page's own counter, read from the DOM after load) and the screenshot
# is not blank. Skipped (exit 77) when chromium or gnuplot is not installed;
# scripts/install-deps.sh installs both (Debian chromium, gnuplot-nox).
. "$(dirname "$0")/lib.sh"

CHROMIUM=${PL_CHROMIUM:-chromium}
GNUPLOT=${PLATEAU_GNUPLOT:-gnuplot}
if ! command -v "$CHROMIUM" >/dev/null 2>&1; then
  echo "SKIP: $CHROMIUM not installed (Debian: apt-get install chromium)"
  exit 77
fi
if ! command -v "$GNUPLOT" >/dev/null 2>&1; then
  echo "SKIP: gnuplot not installed (Debian: apt-get install gnuplot-nox)"
  exit 77
fi

cat >"$TMP/s.json" <<'EOF'
{"models": ["llama2-7b"], "clusters": ["dgx-a100", "dgx-h100"], "nodes": [1, 2],
 "strategies": ["fsdp", "tp2", "best"], "batch_per_gpu": [1], "global_batch": [32],
 "best": "recompute=none,schedule=1f1b,shard=zero2,shard_group=dp"}
EOF
# PL_STUDY_RENDER_DEFAULT=1: the default grid instead (33 s here against 18 s), with the published
# runs the binary embeds (issue 21's "the report has the figures for the default study")
if [ "${PL_STUDY_RENDER_DEFAULT:-0}" = 1 ]; then
  expect_ok study --out "$TMP/r" --quiet
else
  expect_ok study --spec "$TMP/s.json" --out "$TMP/r" --quiet --validation "$PL_SOURCE_DIR/data/validation"
fi
n_svg=$(ls "$TMP"/r/figures/*.svg 2>/dev/null | wc -l)
check "figures drawn" test "$n_svg" -ge 8
# the error band (#20) and the published markers (#21) are drawn, with their legend entries
for f in scaling mfu generations-scaling; do
  check "$f.svg draws the error band" grep -q 'error band (90% of published runs)' "$TMP/r/figures/$f.svg"
done
# (NeMo's runs are FP8 against the spec's bf16: the legend says so)
for f in scaling generations-scaling mfu; do
  check "$f.svg draws the published runs" grep -q 'published .* (nemo_2407_performance_summary, FP8)' "$TMP/r/figures/$f.svg"
done

# Chromium as the issue prescribes: no sandbox, GPU, network or profile state.
chrome() {
  local ud
  ud=$(mktemp -d "$TMP/chrome.XXXXXX")
  timeout 180 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$ud" "$@" 2>>"$TMP/chrome.log"
}

chrome --dump-dom "file://$TMP/r/index.html" >"$TMP/dom.html"
status=$(grep -o 'id="figstatus"[^>]*>[^<]*' "$TMP/dom.html")
check "page script ran" grep -q 'figures loaded: ' "$TMP/dom.html"
check "every figure loaded ($status)" grep -q "data-loaded=\"$n_svg\" data-total=\"$n_svg\"" "$TMP/dom.html"

# Half scale keeps the pixel count (and the decoding below) small.
chrome --window-size=1300,2000 --force-device-scale-factor=0.5 --screenshot="$TMP/shot.png" "file://$TMP/r/index.html" >/dev/null
check "screenshot written" test -s "$TMP/shot.png"
# Not blank: many pixels that are not the white background. Decoded with
# Python's zlib when present, else judged by size (a blank page is ~10 KB).
if command -v python3 >/dev/null 2>&1; then
  ink=$(python3 - "$TMP/shot.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        bpp = {2: 3, 6: 4}[ctype]
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw, stride, prev, ink = zlib.decompress(idat), w * bpp, None, 0
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i] if prev else 0
        c = prev[i - bpp] if prev and i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    ink += sum(1 for x in range(0, stride, bpp) if min(line[x:x + 3]) < 200)
    prev = line
print(ink)
EOF
)
  check "screenshot not blank ($ink dark pixels)" test "${ink:-0}" -gt 20000
else
  check "screenshot not blank (size)" test "$(wc -c <"$TMP/shot.png")" -gt 100000
fi
[ "$fails" -eq 0 ] || { echo "chromium log:" >&2; tail -5 "$TMP/chrome.log" >&2; }
finish
