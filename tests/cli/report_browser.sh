#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tier: full
# tests/cli/report_browser.sh: the HTML reports in a real browser.
# Headless Chromium, driven over the DevTools protocol on a pipe
# (tests/cli/browser.py), renders `check --html` and `explore --html`
# and the test asks the page itself:
#  - three observations: every <details> opened, screenshots of parts of
#    the page (decoded with python3's zlib) show what only rendered plots
#    draw: the cone's wedge and the violated side in each of the three
#    plots, and on the explore page Graphviz's feasible and refuted fills
#    in the search's picture and the minimal model's flow bars (#45818e);
#  - the bundled sweep renamed to 224 and 1,000 observations, and an
#    exhaustive search of its 1,024 models, at 1280x800: the answer (the
#    check's verdict, the search's conclusion) within the first screen;
#    with every <details> open, no two text boxes of an SVG overlap (their
#    rendered extents), no element passes the window's right edge, and
#    no text is drawn smaller than 8 px (the search's graph stays
#    legible); check's page is at most 1,000,000 bytes at 1,000
#    observations and grows less than the observations do.
# With REPORT_SHOTS=DIR the first screens (and the picture of the 1,024
# models' search) are written there as WebP images, with the pages' sizes in
# sizes.txt (docs/manual/report.md shows them).  Skipped (status 77) when
# Chromium is not installed; `make deps` installs it.
CP=${CP:-bin/counterpoint}
browser=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium is not installed (make deps installs it)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "report_browser.sh: $*"; exit 1; }
MM=models/haswell/mmu.udd

awk 'BEGIN {
	srand(7);
	print "observation,interval,event,value,enabled_ns,running_ns";
	n = split("good1 1000 300 5000,good2 2000 900 9000,bad 1000 1300 5000", obs, ",");
	for (o = 1; o <= n; o++) {
		split(obs[o], f, " ");
		for (i = 0; i < 20; i++) {
			w = f[2] + int(20 * (rand() - 0.5)); p = f[3] + int(20 * (rand() - 0.5));
			r = f[4] + int(40 * (rand() - 0.5));
			printf "%s,%d,DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK,%d,1000000000,1000000000\n", f[1], i, w;
			printf "%s,%d,DTLB_LOAD_MISSES.PDE_CACHE_MISS,%d,1000000000,1000000000\n", f[1], i, p;
			printf "%s,%d,DTLB_LOAD_MISSES.WALK_COMPLETED,%d,1000000000,1000000000\n", f[1], i, w;
			printf "%s,%d,MEM_UOPS_RETIRED.ALL_LOADS,%d,1000000000,1000000000\n", f[1], i, r;
		}
	}
}' > "$tmp/data.csv"
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --html "$tmp/check.html" \
	>/dev/null 2>&1
[ $? = 1 ] || fail "check --html: status"
"$CP" sim --features merge --pages 4k --seed 3 --intervals 200 --interval-uops 5000 \
	--workload linear:footprint=32M,stride=64,dir=up,stores=0.2 -o "$tmp/merge.csv" ||
	fail "sim failed"
"$CP" explore $MM "$tmp/merge.csv" --candidates merge,abort,replay \
	--exhaustive -o /dev/null --html "$tmp/explore.html" 2>/dev/null ||
	fail "explore --html: status"

# The bundled sweep's 36 observations copied under new names ("-r1",
# "-r2", ...) up to n of them.
renamed() {  # $1 = n
	awk -F, -v want="$1" 'NR == 1 { print; next }
	{ if (!($1 in id)) { id[$1] = n++; name[id[$1]] = $1 }
	  rows[id[$1]] = rows[id[$1]] substr($0, length($1) + 1) "\n" }
	END { for (c = 0; c * n < want; c++)
		for (o = 0; o < n && c * n + o < want; o++) {
			m = split(rows[o], r, "\n")
			for (i = 1; i < m; i++) print (c ? name[o] "-r" c : name[o]) r[i]
		} }' datasets/sim-sweep-all.csv
}
# run in $tmp, so that the pages name the files as a user's would
top=$(pwd)
case $CP in /*) cpabs=$CP ;; *) cpabs=$top/$CP ;; esac
ln -s "$top/models" "$tmp/models" && ln -s "$top/datasets" "$tmp/datasets" ||
	fail "cannot link the models"
for n in 224 1000; do
	renamed $n > "$tmp/sweep-$n.csv"
	[ "$(cut -d, -f1 "$tmp/sweep-$n.csv" | sort -u | wc -l)" = $((n + 1)) ] ||
		fail "$n observations expected in sweep-$n.csv"
	(cd "$tmp" && "$cpabs" check $MM sweep-$n.csv --html check-$n.html >/dev/null 2>&1)
	[ $? = 1 ] || fail "check --html on $n observations: status"
	(cd "$tmp" && "$cpabs" explore $MM sweep-$n.csv -o /dev/null --html explore-$n.html \
		2>/dev/null) || fail "explore --html on $n observations: status"
	rm -f "$tmp/sweep-$n.csv"
done
(cd "$tmp" && "$cpabs" explore $MM datasets/sim-sweep-all.csv --exhaustive -o /dev/null \
	--html explore-1024.html 2>/dev/null) || fail "explore --exhaustive --html: status"

python3 - "$tmp" "$browser" "${REPORT_SHOTS:-}" <<'PY' || fail "the pages in Chromium"
import os, struct, sys, zlib
sys.path.insert(0, "tests/cli")
import browser
tmp, path, shots = sys.argv[1:4]

def read_png(path):
    """The pixels of an 8-bit RGB or RGBA PNG without interlace: width,
    height, bytes per pixel and one bytearray per row."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path + ": not a PNG"
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and not interlace, ihdr
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), w * bpp
    prev, rows = bytearray(stride), []
    for y in range(h):
        base = y * (stride + 1)
        f, line = raw[base], bytearray(raw[base + 1:base + 1 + stride])
        for i in range(stride) if f else ():
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: add = a
            elif f == 2: add = b
            elif f == 3: add = (a + b) >> 1
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                add = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + add) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

def count(img, rgb, tol=6):
    """Pixels of colour rgb (each channel within tol)."""
    w, h, bpp, rows = img
    n = 0
    for line in rows:
        for i in range(0, w * bpp, bpp):
            if abs(line[i] - rgb[0]) <= tol and abs(line[i + 1] - rgb[1]) <= tol and \
               abs(line[i + 2] - rgb[2]) <= tol:
                n += 1
    return n

b = browser.Browser(path, os.path.join(tmp, "profile"))
try:
    # ---- three observations: what the rendered plots draw ----
    # the plot's fills over its #fafafa area: the wedge #9fc5e8 at 0.55,
    # the violated side #f4cccc at 0.6; in each of the three plots
    CONE = tuple(round(0.55 * c + 0.45 * 250) for c in (0x9f, 0xc5, 0xe8))
    BAD = tuple(round(0.6 * c + 0.4 * 250) for c in (0xf4, 0xcc, 0xcc))
    b.open(tmp + "/check.html")
    b.eval("document.querySelectorAll('details').forEach(d => d.open = true)")
    boxes = b.boxes("svg.cp-plot")
    assert len(boxes) == 3, boxes
    for i, box in enumerate(boxes):
        b.screenshot("%s/plot%d.png" % (tmp, i), box)
        img = read_png("%s/plot%d.png" % (tmp, i))
        cone, bad = count(img, CONE), count(img, BAD)
        assert cone > 1000 and bad > 1000, ("a plot's wedge and violated side", box, cone, bad)
        print("check.html: plot %d (%dx%d px): wedge %d pixels, violated side %d"
              % (i + 1, img[0], img[1], cone, bad))
    b.open(tmp + "/explore.html")
    b.eval("document.querySelectorAll('details').forEach(d => d.open = true)")
    for sel in ("figure.search", "section.model-flows"):
        box = b.boxes(sel)
        assert len(box) == 1, (sel, box)
        b.screenshot("%s/part.png" % tmp, box[0])
        img = read_png("%s/part.png" % tmp)
        if sel == "figure.search":
            feasible = count(img, (0xd9, 0xea, 0xd3), tol=2)
            refuted = count(img, (0xf4, 0xcc, 0xcc), tol=2)
            assert feasible > 2000 and refuted > 2000, (feasible, refuted)
            print("explore.html: the search: feasible boxes %d pixels, refuted %d"
                  % (feasible, refuted))
        else:
            bars = count(img, (0x45, 0x81, 0x8e), tol=2)
            assert bars > 2000, "the flow bars: %d pixels of their fill" % bars
            print("explore.html: the flow bars: %d pixels" % bars)

    # ---- hundreds of observations, a thousand models ----
    size = {}
    for page, answer in (("check-224", "#summary .verdict"), ("check-1000", "#summary .verdict"),
                         ("explore-224", "#summary .conclusion"),
                         ("explore-1000", "#summary .conclusion"),
                         ("explore-1024", "#summary .conclusion")):
        f = "%s/%s.html" % (tmp, page)
        size[page] = os.path.getsize(f)
        b.size(1280, 800)
        b.open(f)
        if shots:
            b.screenshot(os.path.join(shots, page + ".webp"))
            if page == "explore-1024":
                b.screenshot(os.path.join(shots, page + "-search.webp"), b.boxes("figure.search")[0])
        m = browser.measure(b, answer)
        print("%s.html: %d bytes, %d SVGs with %d texts (smallest %.1f px); the answer "
              "at %.0f-%.0f px of %d" % (page, size[page], m["svgs"], m["texts"],
                                         m["smallest"], m["summary"]["top"],
                                         m["summary"]["bottom"], m["height"]))
        assert m["summary"] and m["summary"]["bottom"] <= m["height"], \
            (page, "the answer is not in the first screen", m["summary"])
        assert not m["overlaps"], (page, "text boxes overlap", m["overlaps"])
        assert not m["overflow"] and m["scrollWidth"] <= m["width"], \
            (page, "past the right edge", m["scrollWidth"], m["overflow"])
        assert m["smallest"] >= 8, (page, "text drawn at %.1f px" % m["smallest"])
    assert size["check-1000"] <= 1000000, size["check-1000"]
    assert size["check-1000"] / size["check-224"] < 1000 / 224, size
    if shots:
        with open(os.path.join(shots, "sizes.txt"), "w") as out:
            for page in sorted(size):
                out.write("%s.html %d\n" % (page, size[page]))
finally:
    b.close()
PY
