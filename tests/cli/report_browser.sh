#!/bin/sh
# tier: full
# tests/cli/report_browser.sh: the HTML reports in a real browser.
# Headless Chromium renders `check --html` and `explore --html` to PNG
# screenshots (1200x2000); the screenshots are decoded (python3's zlib,
# no imaging library) and must not be blank, and must show what only a
# rendered plot draws: the cone's shaded wedge and the violated side in
# each of the three plots (three separate bands of the wedge's colour),
# and the search graph's feasible and refuted boxes in Graphviz's fills;
# and the minimal model's flow bounds as bars (their fill, #45818e, over
# at least a bar's worth of pixels).
# Skipped (status 77) when Chromium is not installed; `make deps`
# installs it.
CP=${CP:-bin/counterpoint}
browser=$(command -v chromium || command -v chromium-browser) ||
	{ echo "chromium is not installed (make deps installs it)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "report_browser.sh: $*"; exit 1; }

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
"$CP" explore models/haswell/mmu.udd "$tmp/merge.csv" --candidates merge,abort,replay \
	--exhaustive -o /dev/null --html "$tmp/explore.html" || fail "explore --html: status"

shot() {  # $1 = page, $2 = png
	HOME="$tmp" timeout 180 "$browser" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --user-data-dir="$tmp/profile" \
		--screenshot="$2" --window-size=1200,2000 "file://$1" >"$tmp/chromium.log" 2>&1
	[ -s "$2" ] || { tail -n 5 "$tmp/chromium.log"; fail "chromium wrote no screenshot of $1"; }
}
shot "$tmp/check.html" "$tmp/check.png"
shot "$tmp/explore.html" "$tmp/explore.png"

python3 - "$tmp" <<'PY' || fail "the screenshots"
import struct, sys, zlib
from collections import Counter
tmp = sys.argv[1]

def read_png(path):
    """Per row, how many pixels have each (r, g, b) colour: an 8-bit RGB or
    RGBA PNG without interlace."""
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
        rows.append(Counter(zip(line[0::bpp], line[1::bpp], line[2::bpp])))
        prev = line
    return w, h, rows

def near(px, rgb, tol=6):
    return all(abs(px[i] - rgb[i]) <= tol for i in range(3))

def count(row, rgb, tol=6):
    return sum(n for p, n in row.items() if near(p, rgb, tol))

def bands(rows, rgb, min_pixels):
    """Runs of consecutive rows holding at least min_pixels of colour rgb."""
    n, inside = 0, False
    for row in rows:
        has = count(row, rgb) >= min_pixels
        n += has and not inside
        inside = has
    return n

# the plot's fills over its #fafafa area: the wedge #9fc5e8 at 0.55,
# the violated side #f4cccc at 0.6
CONE = tuple(round(0.55 * c + 0.45 * 250) for c in (0x9f, 0xc5, 0xe8))
BAD = tuple(round(0.6 * c + 0.4 * 250) for c in (0xf4, 0xcc, 0xcc))
w, h, rows = read_png(tmp + "/check.png")
assert (w, h) == (1200, 2000), (w, h)
total = w * h
ink = sum(sum(row.values()) - row[(255, 255, 255)] for row in rows)
assert ink > total * 0.05, "check page nearly blank: %d non-white pixels" % ink
cone = sum(count(row, CONE) for row in rows)
bad = sum(count(row, BAD) for row in rows)
assert cone > 20000 and bad > 5000, (cone, bad)
nb = bands(rows, CONE, 20)
assert nb == 3, "the wedge in %d bands, expected one per plot (3)" % nb
print("check.png: %d of %d pixels drawn, wedge %d, violated side %d, %d plots"
      % (ink, total, cone, bad, nb))

w, h, rows = read_png(tmp + "/explore.png")
ink = sum(sum(row.values()) - row[(255, 255, 255)] for row in rows)
feasible = sum(count(row, (0xd9, 0xea, 0xd3), 2) for row in rows)
refuted = sum(count(row, (0xf4, 0xcc, 0xcc), 2) for row in rows)
assert ink > w * h * 0.03, "explore page nearly blank: %d" % ink
assert feasible > 5000 and refuted > 5000, (feasible, refuted)
bars = sum(count(row, (0x45, 0x81, 0x8e), 2) for row in rows)
assert bars > 2000, "the flow bars: %d pixels of their fill" % bars
print("explore.png: %d pixels drawn, feasible boxes %d, refuted %d, flow bars %d"
      % (ink, feasible, refuted, bars))
PY
