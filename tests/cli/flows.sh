#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/flows.sh: `counterpoint flows --json` (docs/schema/flows.json) on the small
# merge model: the report's structure, the infeasible observation without
# bounds, every shape's bounds bracketing the value the observation's mean
# implies (merged loads = STLB misses - walks, identified), and equal
# reports on one thread and on several.
CP=${CP:-bin/counterpoint}
M=tests/data/flows/walk_merge.udd
D=tests/data/flows/merge.csv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

for r in pca independent ellipsoid; do
	"$CP" flows "$M" "$D" --with merge --region $r --json -o "$tmp/$r.json"
	[ $? = 1 ] || fail "$r: expected status 1 (one infeasible observation)"
	"$CP" flows "$M" "$D" --with merge --region $r --json --threads 1 >"$tmp/$r.1.json"
	cmp -s "$tmp/$r.json" "$tmp/$r.1.json" || fail "$r: --threads 1 differs"
done
python3 - "$D" "$tmp" <<'PY' || exit 1
import csv, json, sys
data, tmp = sys.argv[1:3]
sums = {}
for r in csv.DictReader(open(data)):
    k = (r["observation"], r["event"])
    sums[k] = sums.get(k, 0) + int(r["value"]) * 1e9 / int(r["enabled_ns"])
for shape in ("pca", "independent", "ellipsoid"):
    rep = json.load(open("%s/%s.json" % (tmp, shape)))
    assert rep["schema"] == 2 and rep["region"] == shape
    assert rep["features"] == ["merge"]
    # merge's μpaths: the merged load (its own signature) and the miss
    # that allocates a walk, which does what a load without merge does
    # (so it is not merge's): the flow is wholly attributable
    assert rep["uops"]["load"] == {"columns": 3, "per": "load.retired",
                                   "features": {"merge": 1},
                                   "identifiability": {"merge": {
                                       "signatures": 1, "identifiable": 1,
                                       "shared": 0, "blind": 0,
                                       "attributable": True,
                                       "shared_pair": None, "separator": None}}}
    st = {o["name"]: o for o in rep["observations"]}
    assert st["broken"]["status"] == "infeasible" and "uops" not in st["broken"]
    assert rep["summary"] == {"observations": 3, "bounded": 2, "infeasible": 1,
                              "no_flow": 0, "unusable": 0}
    for name in ("merging", "no_merge"):
        b = st[name]["uops"]["load"]["merge"]
        assert b["part"] == "all", b
        mean = lambda e: sums[(name, e)] / 20
        merged = mean("MEM_UOPS_RETIRED.STLB_MISS_LOADS") - \
            mean("DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK")
        share = merged / mean("MEM_UOPS_RETIRED.ALL_LOADS")
        assert b["rate"][0] <= max(merged, 0) <= b["rate"][1], (shape, name, b, merged)
        assert b["share"][0] <= max(share, 0) <= b["share"][1], (shape, name, b, share)
        # attained by flows verified to the LP's tolerance (1e-9 relative here)
        tol = 1e-9 * b["rate"][1]
        assert b["rate"][0] - tol <= b["rate_attained"][0] <= b["rate_attained"][1] <= b["rate"][1] + tol
        assert b["inexact"] is False
    # merging: about 3% of loads merge, and the data prove some do
    b = st["merging"]["uops"]["load"]["merge"]
    assert 0.02 < b["share"][0] < 0.03 < b["share"][1] < 0.04, b
PY
exit 0
