#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/report.sh: `check --html` and `explore --html` end to end.
# The page is self-contained (no script, nothing fetched, a CSP that
# forbids fetching); every plot is well-formed SVG with both axes named
# after counters and a legend row for every shape drawn; the infeasible
# observation's plot has the golden structure (tests/data/report/); the
# search is drawn by Graphviz with one node per model tested, and the
# claims carry their proofs; --html leaves the text report and the exit
# status as they were; an unwritable --html is an error (exit 2) that
# leaves nothing behind; without Graphviz the page says so and keeps the
# graph's text.  Flow bounds: check --html --with draws one interval bar
# per (uop, feature) on each feasible observation (golden structure
# tests/data/report/check_flows_bars.classes), labelled with the numbers
# `flows` prints, and says why the infeasible one has none; explore
# --html draws the minimal model's bars, labelled as `flows --with` it
# prints them.
CP=${CP:-bin/counterpoint}
ACP=${ACP:-$CP}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "report.sh: $*"; exit 1; }
top=$(pwd)

# The dataset of tests/cli/check.sh: good1, good2 follow walk_basic's
# flows; bad has 1300 PDE misses for 1000 walks.
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

M=models/examples/walk_basic.udd
"$CP" check $M "$tmp/data.csv" >"$tmp/plain.txt" 2>&1; plain=$?
"$ACP" check $M "$tmp/data.csv" --html "$tmp/check.html" >"$tmp/html.txt" 2>&1; rc=$?
[ $rc = $plain ] && [ $rc = 1 ] || fail "check --html: status $rc, without it $plain (expected 1)"
cmp -s "$tmp/plain.txt" "$tmp/html.txt" || fail "check --html changed the text report"
[ -s "$tmp/check.html" ] || fail "check --html wrote nothing"
# every region shape once
for region in independent ellipsoid; do
	"$ACP" check $M "$tmp/data.csv" --region $region --html "$tmp/check-$region.html" \
		>/dev/null 2>&1
	[ $? = 1 ] || fail "check --region $region --html: status"
done

# facets not listed: the infeasible observation's plot shows the
# certificate's constraint, the feasible ones the cone and regions only;
# an observation that cannot form a region says why
"$CP" check $M "$tmp/data.csv" --max-facets 0 --html "$tmp/nofacets.html" >/dev/null 2>&1
[ $? = 1 ] || fail "check --max-facets 0 --html: status"
cp "$tmp/data.csv" "$tmp/unusable.csv"
for e in DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK DTLB_LOAD_MISSES.PDE_CACHE_MISS \
	 DTLB_LOAD_MISSES.WALK_COMPLETED MEM_UOPS_RETIRED.ALL_LOADS; do
	echo "short,0,$e,10,1000000000,1000000000" >> "$tmp/unusable.csv"
done
"$CP" check $M "$tmp/unusable.csv" --html "$tmp/unusable.html" >/dev/null 2>&1
[ $? = 1 ] || fail "check --html with an unusable observation: status"

# every observation feasible: the model is consistent, nothing ranked
grep -v '^bad,' "$tmp/data.csv" > "$tmp/good.csv"
"$CP" check $M "$tmp/good.csv" --html "$tmp/good.html" >/dev/null 2>&1 ||
	fail "check --html on feasible data: status"
grep -q '<strong class="feasible">The model is consistent with the data</strong>: every one of the 2 usable' \
	"$tmp/good.html" || fail "check --html on feasible data: the verdict"
grep -q 'The constraints broken\|class="mx"' "$tmp/good.html" && fail "check --html on feasible data: a table of violations"

# --plots N|all: plots for the N most violated observations only
for n in 0 1 all; do
	"$CP" check $M "$tmp/data.csv" --plots $n --html "$tmp/plots-$n.html" >/dev/null 2>&1
	[ $? = 1 ] || fail "check --plots $n --html: status"
done
"$CP" check $M "$tmp/data.csv" --plots some --html "$tmp/x.html" >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "plots wants a non-negative integer, not 'some'" "$tmp/err" ||
	fail "--plots some: $(cat "$tmp/err")"
"$CP" check --help | grep -q -- "--plots N|all" || fail "check --help lacks --plots"

python3 - "$tmp" "$top/tests/data/report" <<'PY' || fail "check --html: page structure"
import re, sys, xml.etree.ElementTree as ET
tmp, golden = sys.argv[1], sys.argv[2]
NS = "{http://www.w3.org/2000/svg}"

def self_contained(page, name):
    assert page.startswith("<!DOCTYPE html>"), name
    assert "Content-Security-Policy" in page and "default-src 'none'" in page, name
    assert "<script" not in page.lower(), name + ": a script"
    for m in re.finditer(r'(?:src|href)\s*=\s*"([^"]*)"', page):
        assert m.group(1).startswith("#"), name + ": fetches " + m.group(1)
    urls = set(re.findall(r'https?://[^"\s<>]*', page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls

def plots(page):
    return [ET.fromstring(m.group(0)) for m in
            re.finditer(r'<svg [^>]*class="cp-plot".*?</svg>', page, re.S)]

def classes(svg):
    out = []
    for e in svg.iter():
        c = e.get("class")
        if c and c not in ("cp-tick", "cp-swatch"):
            out.extend(c.split())
    return out

counters = {"load.causes_walk", "load.pde_miss", "load.walk_done", "load.retired"}
for shape in ("pca", "independent", "ellipsoid"):
    name = "check.html" if shape == "pca" else "check-%s.html" % shape
    page = open("%s/%s" % (tmp, name), encoding="utf-8").read()
    self_contained(page, name)
    svgs = plots(page)
    assert len(svgs) == 3, (name, len(svgs))
    for svg in svgs:
        cl = classes(svg)
        for need in ("cp-axis-x", "cp-axis-y", "cp-legend", "cp-cone", "cp-mean",
                     "cp-box-pca", "cp-box-independent", "cp-ellipsoid",
                     "cp-legend-box-pca", "cp-legend-box-independent",
                     "cp-legend-ellipsoid", "cp-legend-cone", "cp-legend-mean"):
            assert need in cl, (name, need, cl)
        labels = [e.text for e in svg.iter(NS + "text")
                  if (e.get("class") or "") == "cp-axis-label"]
        assert len(labels) == 2, labels
        for l in labels:
            assert l.endswith(" (per second)") and l[:-13] in counters, labels
        # the shape checked is the one marked so in the legend
        word = {"pca": "PCA box", "independent": "independent box",
                "ellipsoid": "ellipsoid"}[shape]
        legend = [e.text for e in svg.iter(NS + "text")]
        assert word + " (checked)" in legend, (name, legend)
    # the verdicts, and the infeasible one's constraint and plot: the
    # infeasible observation first, then the feasible ones
    for obs, verdict in (("good1", "feasible"), ("good2", "feasible"),
                         ("bad", "INFEASIBLE")):
        assert re.search(r'<details id="obs-\d"><summary><b>%s</b>: <span class="\w+">%s</span>'
                         % (obs, verdict), page), obs
    order = re.findall(r'<details id="obs-\d"><summary><b>(\w+)</b>', page)
    assert order == ["bad", "good1", "good2"], order
    bad = page[page.index("<b>bad</b>"):page.index("<b>good1</b>")]
    assert "<code>load.pde_miss &lt;= load.causes_walk</code>" in bad
    assert "most violated: margin" in bad and "cp-witness" not in bad
    # the feasible ones show where region and cone meet (the solver's point)
    for good in page.split("<b>good")[1:]:
        assert good.count('class="cp-witness"') == 2, "a witness in each panel"
        assert "cp-legend-witness" in good
    # the answer first: the verdict for the model, the constraint ranked
    head = page[:page.index("<h2>Observations &times;")]
    assert re.search(r'<strong class="infeasible">The model is refuted</strong>: 1 of the 3 '
                     r'usable observations', head)
    assert re.search(r'<tr id="c1"><td>C1</td><td><code>load.pde_miss &lt;= load.causes_walk</code>'
                     r'</td><td>1</td><td>[0-9.]+</td><td><a href="#obs-3">bad</a>', head), head
    if shape == "pca":
        got = classes(svgs[0])
        want = open(golden + "/check_bad_plot.classes").read().split()
        assert got == want, "bad's plot:\n  got  %s\n  want %s" % (got, want)

for n, want in (("0", []), ("1", ["bad"]), ("all", ["bad", "good1", "good2"])):
    page = open("%s/plots-%s.html" % (tmp, n), encoding="utf-8").read()
    drawn = [m.group(1) for m in re.finditer(r'<summary><b>(\w+)</b>(?:(?!</details>).)*'
                                             r'class="cp-plot"', page, re.S)]
    assert drawn == want and len(plots(page)) == len(want), (n, drawn)
page = open(tmp + "/nofacets.html", encoding="utf-8").read()
self_contained(page, "nofacets.html")
svgs = plots(page)
assert len(svgs) == 3, len(svgs)
for svg, has_line in zip(svgs, (True, False, False)):
    cl = classes(svg)
    assert "cp-axis-x" in cl and "cp-legend" in cl and "cp-cone" in cl, cl
    assert ("cp-constraint" in cl) == has_line, cl
assert "No constraint to show (the cone's facets are not listed)" in page
page = open(tmp + "/unusable.html", encoding="utf-8").read()
assert re.search(r'<details id="obs-4"><summary><b>short</b>: <span class="unusable">unusable'
                 r'</span></summary>\n<p>No region: ', page)
assert re.search(r'<p class="unusable-list"><b>Unusable \(1\):</b> <a href="#obs-4">short</a>', page)
assert len(plots(page)) == 3
PY

# flow bounds on check's page: the small merge model of tests/cli/flows.sh
FM=tests/data/flows/walk_merge.udd
FD=tests/data/flows/merge.csv
"$CP" check $FM $FD --with merge >"$tmp/fplain.txt" 2>&1; plain=$?
"$ACP" check $FM $FD --with merge --html "$tmp/flows.html" >"$tmp/fhtml.txt" 2>&1; rc=$?
[ $rc = $plain ] && [ $rc = 1 ] || fail "check --with merge --html: status $rc, without it $plain"
cmp -s "$tmp/fplain.txt" "$tmp/fhtml.txt" || fail "check --with --html changed the text report"
"$CP" flows $FM $FD --with merge --threads 1 >"$tmp/flows.txt"
python3 - "$tmp" "$top/tests/data/report" <<'PY' || fail "check --html: flow bars"
import re, sys, xml.etree.ElementTree as ET
tmp, golden = sys.argv[1], sys.argv[2]
NS = "{http://www.w3.org/2000/svg}"
page = open(tmp + "/flows.html", encoding="utf-8").read()
assert "<script" not in page.lower() and "default-src 'none'" in page
# flows' text: observation -> {(uop, feature): share}
want, name = {}, None
for line in open(tmp + "/flows.txt"):
    m = re.match(r"^(\S+): feasible$", line)
    if m:
        name = m.group(1); want[name] = {}
    elif name and re.match(r"^  \S+ +\S+ +\[", line):
        f = line.split()
        want[name][(f[0], f[1])] = line[line.rindex("["):].strip()
assert set(want) == {"merging", "no_merge"}, want
want_classes = open(golden + "/check_flows_bars.classes").read().split()
for obs in ("merging", "no_merge", "broken"):
    sec = re.search(r'<details id="obs-\d+"><summary><b>%s</b>:.*?</details>' % obs,
                    page, re.S).group(0)
    svgs = re.findall(r'<svg [^>]*class="cp-flows".*?</svg>', sec, re.S)
    if obs == "broken":
        assert not svgs and "No flow bounds: the model is infeasible" in sec, obs
        continue
    assert len(svgs) == 1, (obs, len(svgs))
    svg = ET.fromstring(svgs[0])
    got = [c for e in svg.iter() if e.get("class") for c in e.get("class").split()]
    assert got == want_classes, (obs, got, want_classes)
    bars = {}
    for g in svg.iter(NS + "g"):
        if g.get("class") != "cp-flow":
            continue
        name_ = [t.text for t in g.iter(NS + "text") if t.get("class") == "cp-flow-name"][0]
        label = [t.text for t in g.iter(NS + "text") if t.get("class") == "cp-flow-label"][0]
        bar = [r for r in g.iter(NS + "rect") if "cp-flow-bar" in r.get("class").split()][0]
        track = [r for r in g.iter(NS + "rect") if r.get("class") == "cp-flow-track"][0]
        # the bar spans [lo, hi] of the 0-100% track
        lo, hi = [float(x.rstrip("%")) / 100 for x in label.strip("[]").split(", ")]
        x0, w = float(track.get("x")), float(track.get("width"))
        bx, bw = float(bar.get("x")), float(bar.get("width"))
        assert abs(bx - (x0 + lo * w)) < 0.6, (obs, bx, x0 + lo * w)
        assert abs(bx + bw - (x0 + max(hi * w, lo * w + 2))) < 0.6, (obs, bx + bw, hi)
        bars[tuple(name_.split())] = label
    assert bars == want[obs], (obs, bars, want[obs])
PY

# explore --html: the simulator run of tests/cli/explore.sh with walk
# merging on; the exhaustive search proves merge required
MM=models/haswell/mmu.udd
"$CP" sim --features merge --pages 4k --seed 3 --intervals 200 --interval-uops 5000 \
	--workload linear:footprint=32M,stride=64,dir=up,stores=0.2 -o "$tmp/merge.csv" ||
	fail "sim failed"
"$CP" explore $MM "$tmp/merge.csv" --candidates merge,abort,replay --exhaustive \
	--json -o "$tmp/x.json"; plain=$?
"$ACP" explore $MM "$tmp/merge.csv" --candidates merge,abort,replay --exhaustive \
	--json -o "$tmp/xh.json" --html "$tmp/explore.html"; rc=$?
[ $rc = 0 ] && [ $plain = 0 ] || fail "explore --html: status $rc, without it $plain"
cmp -s "$tmp/x.json" "$tmp/xh.json" || fail "explore --html changed the report"
"$CP" flows $MM "$tmp/merge.csv" --with merge --threads 1 >"$tmp/mflows.txt"
case $CP in /*) cpabs=$CP ;; *) cpabs=$top/$CP ;; esac
PATH=/nonexistent "$cpabs" explore $MM "$tmp/merge.csv" --candidates merge,abort,replay \
	--exhaustive -o /dev/null --html "$tmp/nodot.html"
[ $? = 0 ] || fail "explore --html without Graphviz: status"
python3 - "$tmp" <<'PY' || fail "explore --html: page structure"
import re, sys, xml.etree.ElementTree as ET
tmp = sys.argv[1]
page = open(tmp + "/explore.html", encoding="utf-8").read()
assert "<script" not in page.lower() and "default-src 'none'" in page
# the answer first: the conclusion, the claims, then the picture and
# the models tested
at = [page.index(x) for x in ('<p class="conclusion verdict"><b>Conclusion.</b>',
                              '<table class="claims">', '<figure class="search">',
                              '<table class="models">')]
assert at == sorted(at), at
m = re.search(r'<figure class="search">\s*(<svg.*?</svg>)', page, re.S)
assert m, "no search picture"
svg = ET.fromstring(m.group(1))
SVG = "{http://www.w3.org/2000/svg}"
nodes = {g.find(SVG + "title").text: g for g in svg.iter(SVG + "g") if g.get("class") == "node"}
rows = re.findall(r'<tr id="model-(\d+)">', page)
assert rows == [str(i) for i in range(1, 9)], rows
# every model drawn, or counted on its level; each drawn one links to its row
drawn = sorted(int(t[1:]) for t in nodes if re.match(r"m\d+$", t))
counted = sum(int(m.group(1)) for t, g in nodes.items() if re.match(r"l\d+$", t)
              for m in [re.search(r"(\d+) more", " ".join(x.text or "" for x in g.iter(SVG + "text")))] if m)
assert len(drawn) + counted == 8, (drawn, counted)
for n in drawn:
    links = [a for a in nodes["m%d" % n].iter(SVG + "a")]
    assert any(a.get("{http://www.w3.org/1999/xlink}href") == "#model-%d" % n for a in links), n
minimal = re.findall(r'<tr id="model-(\d+)">(?:(?!</tr>).)*>minimal<', page)
assert minimal and all(int(n) in drawn for n in minimal), (minimal, drawn)
claim = re.search(r'<tr class="required"><td>required: <code>merge</code></td><td>(.*?)</td></tr>', page)
assert claim, "required merge"
assert "every model of the family without it is refuted: 4 models" in claim.group(1)
links = re.findall(r'href="#model-(\d+)"', claim.group(1))
assert len(links) == 4, links
for n in links:     # every model the proof cites is refuted and lacks merge
    row = re.search(r'<tr id="model-%s">(.*?)</tr>' % n, page).group(1)
    assert ">refuted<" in row and "merge" not in row.split("</td>")[1], row
assert re.search(r'<tr class="minimal"><td>minimal: <code>\{merge\}</code>', page)
assert "Proven: the hardware needs merge" in page
# the minimal model's flow bars, labelled as flows --with merge prints them
sec = re.search(r'<section class="model-flows" id="flows-(\d+)">(.*?)</section>', page, re.S)
assert sec, "no flow bounds of the minimal model"
assert re.search(r'<tr id="model-%s">.*?minimal' % sec.group(1), page), "flows of a non-minimal model"
assert "<code>{merge}</code>" in sec.group(2)
want, part = {}, {}
for line in open(tmp + "/mflows.txt"):
    if re.match(r"^  \S+ +\S+ +\[", line):
        f = line.split()
        row = line.rstrip("\n")
        part[(f[0], f[1])] = row.endswith("  (identifiable part only)")
        row = row.replace("  (identifiable part only)", "")
        want[(f[0], f[1])] = row[row.rindex("["):].strip()
assert len(want) == 2, want
svgs = re.findall(r'<svg [^>]*class="cp-flows".*?</svg>', sec.group(2), re.S)
assert len(svgs) == 1, len(svgs)
got = {}
for g in ET.fromstring(svgs[0]).iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") == "cp-flow":
        t = {e.get("class"): e.text for e in g.iter("{http://www.w3.org/2000/svg}text")}
        name = t["cp-flow-name"]
        key = tuple(name.replace(" (identifiable part)", "").split())
        got[key] = t["cp-flow-label"].replace(" (past 100%)", "")
        bar = [r for r in g.iter("{http://www.w3.org/2000/svg}rect")
               if "cp-flow-bar" in r.get("class").split()]
        assert bar, "no bar"
        # a feature the counters cannot wholly attribute is labelled so,
        # in the text and on its (pale) bar alike
        assert name.endswith(" (identifiable part)") == part[key], (name, part)
        assert ("cp-flow-part" in bar[0].get("class").split()) == part[key], name
assert got == want, (got, want)
nodot = open(tmp + "/nodot.html", encoding="utf-8").read()
assert "No picture of the search: cannot run Graphviz" in nodot, "no-dot note"
assert "<details><summary>the search as a Graphviz digraph</summary><pre>digraph search {" in nodot
assert '<figure class="search">' not in nodot
PY

# Dozens of violated constraints: check --html where an observation
# breaks 64 facets (the README's run, seed 1, with {abort,replay}) lists
# each observation's as --json has them, in its order, by their rank in
# the page's table of constraints; that table ranks them by how many
# observations break them, with the largest margin and where; the table
# of observations x constraints holds each margin, rows by largest
# margin; and explore --html on the bundled sweep (refuted models break
# up to 36) lists each model's as --json has them, five shown and the
# rest folded
"$CP" sim --features merge --pages 4k --intervals 200 --interval-uops 5000 \
	--workload linear:footprint=32M,stride=64,dir=up,stores=0.2 -o "$tmp/demo.csv" ||
	fail "sim failed"
"$CP" sim --features merge --pages 4k --intervals 200 --interval-uops 5000 \
	--workload linear:footprint=32M,stride=64,dir=down,stores=0.2 -o "$tmp/demo2.csv" || fail "sim failed"
tail -n +2 "$tmp/demo2.csv" >> "$tmp/demo.csv"
"$CP" check $MM "$tmp/demo.csv" --with abort,replay --json > "$tmp/ar.json" 2>/dev/null
"$CP" check $MM "$tmp/demo.csv" --with abort,replay --html "$tmp/ar.html" > /dev/null 2>&1
[ $? = 1 ] || fail "check --with abort,replay --html: status"
"$CP" explore $MM datasets/sim-sweep-all.csv --candidates merge,replay --exhaustive \
	--no-flows --json -o "$tmp/sw.json" --html "$tmp/sw.html" 2>/dev/null
[ $? -le 1 ] || fail "explore --html on the sweep: status"
python3 - "$tmp" "$CP" <<'PY' || fail "--html: the constraints broken"
import json, re, subprocess, sys
tmp, cp = sys.argv[1], sys.argv[2]
def esc(t):
    return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
def folded(part, n, row):   # five rows shown, the rest under "N more"
    assert len(re.findall(row, part.split("<details>")[0])) == min(n, 5), part
    assert ("<details><summary>%d more</summary>" % (n - 5) in part) == (n > 5), part
def num(v):   # report_number
    a = abs(v)
    return "0" if a < 0.005 else "%.3g" % v if a < 999.5 else "%.0f" % v if a < 1e6 else "%.3g" % v
page = open(tmp + "/ar.html", encoding="utf-8").read()
obs = json.load(open(tmp + "/ar.json"))["observations"]
assert any(len(o["violations"]) > 5 for o in obs)
# the ranked table: C<n> -> constraint, observations, largest margin, where
ranked = {int(m.group(1)): (m.group(2), int(m.group(3)), m.group(4), m.group(5)) for m in
          re.finditer(r'<tr id="c(\d+)"><td>C\d+</td><td><code>(.*?)</code></td><td>(\d+)</td>'
                      r'<td>([^<]*)</td><td><a href="#obs-\d+">([^<]*)</a>', page)}
want = {}
for o in obs:
    for v in o["violations"]:
        w = want.setdefault(v["constraint"], [0, float("-inf"), None])
        w[0] += 1
        if v["margin"] > w[1]:
            w[1], w[2] = v["margin"], o["name"]
assert len(ranked) == len(want), (len(ranked), len(want))
assert sorted(ranked) == list(range(1, len(want) + 1))
counts = [ranked[r][1] for r in sorted(ranked)]
assert counts == sorted(counts, reverse=True), counts
for r, (text, n, m, where) in ranked.items():
    c = [k for k in want if esc(k) == text]
    assert len(c) == 1, text
    assert want[c[0]][0] == n and num(want[c[0]][1]) == m and want[c[0]][2] == where, (r, want[c[0]])
byname = {t: r for r, (t, _, _, _) in ranked.items()}
# each observation's details: its violations as --json orders them
for i, o in enumerate(obs, 1):
    sec = re.search(r'<details id="obs-%d">(.*?)</details>' % i, page, re.S).group(1)
    rows = re.findall(r"<tr><td>C(\d+)<td>([^<]*)<td>([^<\n]*)", sec)
    assert [(int(r), m) for r, m, _ in rows] == \
        [(byname[esc(v["constraint"])], num(v["margin"])) for v in o["violations"]], i
# the table of observations x constraints, most violated first
mx = re.search(r'<table class="mx">(.*?)</table>', page, re.S).group(1)
head = re.findall(r'<th><a href="#c(\d+)"', mx)
rows = re.findall(r'<tr><td><a href="#obs-(\d+)">[^<]*</a><td>([^<\n]*)((?:<td[^>]*>[^<\n]*)*)', mx)
bad = [o for o in obs if not o["feasible"]]
assert len(rows) == len(bad) >= 2, (len(rows), len(bad))
largest = [max(v["margin"] for v in obs[int(i) - 1]["violations"]) for i, _, _ in rows]
assert largest == sorted(largest, reverse=True), largest
for i, big, cells in rows:
    o = obs[int(i) - 1]
    assert big == num(max(v["margin"] for v in o["violations"]))
    got = re.findall(r'<td(?: class="m(\d)")?>([^<\n]*)', cells)
    for col, (cls, val) in zip(head, got):
        t = ranked[int(col)][0]
        v = [x["margin"] for x in o["violations"] if esc(x["constraint"]) == t]
        assert (val == num(v[0])) if v else val == "", (i, col, val, v)
        assert (cls != "") == bool(v)
page = open(tmp + "/sw.html", encoding="utf-8").read()
models = json.load(open(tmp + "/sw.json"))["models"]
assert any(len(m["violations"]) > 5 for m in models)
for i, m in enumerate(models, 1):
    cell = re.search(r'<tr id="model-%d">(.*?)</tr>' % i, page, re.S).group(1).split("<td>")[-1]
    codes = re.findall(r"<code>(.*?)</code> \((\d+)\)", cell)
    assert [(c, int(k)) for c, k in codes] == [(esc(x["constraint"]), x["observations"]) for x in m["violations"]], (i, cell)
    folded(cell, len(m["violations"]), r"<code>")
# the observations refuting each model: a count, and the names as check
# --with its features finds them infeasible, listed once and referred
# to by the first model with the same ones
seen = {}
for i, m in enumerate(models, 1):
    cell = re.search(r'<tr id="model-%d">(.*?)</tr>' % i, page, re.S).group(1).split("<td>")[-2]
    out = subprocess.run([cp, "check", "models/haswell/mmu.udd", "datasets/sim-sweep-all.csv",
                          "--json"] + (["--with", ",".join(m["features"])] if m["features"] else []),
                         capture_output=True, text=True).stdout
    bad = tuple(o["name"] for o in json.loads(out)["observations"] if not o["feasible"])
    assert len(bad) == m["infeasible"], (i, len(bad), m["infeasible"])
    if not bad:
        assert cell == "</td>", (i, cell)
    elif bad in seen:
        assert cell == '%d, the same as <a href="#model-%d">#%d</a></td>' % (len(bad), seen[bad], seen[bad]), cell
    else:
        seen[bad] = i
        assert cell == "<details><summary>%d</summary>%s</details></td>" % (len(bad), esc(", ".join(bad))), cell
assert len(seen) >= 2, seen
PY

# an unwritable --html: exit 2, said, nothing left behind; an existing
# file is replaced whole
"$CP" check $M "$tmp/data.csv" --html "$tmp/no/such/dir/r.html" >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "unwritable --html: status"
grep -q "counterpoint check: .*no/such/dir" "$tmp/err" || { cat "$tmp/err"; fail "unwritable --html: message"; }
mkdir "$tmp/out"; echo old > "$tmp/out/r.html"
"$CP" check $M "$tmp/data.csv" --html "$tmp/out/r.html" >/dev/null 2>&1
[ "$(ls "$tmp/out")" = r.html ] || fail "--html left other files: $(ls "$tmp/out")"
head -n 1 "$tmp/out/r.html" | grep -qx '<!DOCTYPE html>' || fail "--html did not replace the file"
"$CP" check --html >/dev/null 2>&1; [ $? = 2 ] || fail "--html without a value: status"
exit 0
