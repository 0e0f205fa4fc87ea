#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/flows_truth.sh: `counterpoint flows` against the simulator's
# ground truth.  For merge, abort, prefetch and replay, simulate a machine
# with that one feature on three workloads (no multiplexing, so the data
# are exact counts), bound the feature's flows with the Haswell model
# with the feature, and check that the true share of load μops on the
# feature's paths (from --truth, per retired load, rates per second of
# each interval as the regions are) lies inside the bounds of every
# observation; then all of merge, abort and replay at once (a replayed
# merged load needs both).  The truth quantity of each feature:
# tests/cli/truth.py.
CP=${CP:-bin/counterpoint}
M=models/haswell/mmu.udd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)   # truth.py

for f in merge abort prefetch replay merge,abort,replay; do
	: >"$tmp/$f.csv"; : >"$tmp/$f.truth"   # names with commas are fine
	for w in linear:footprint=32M,stride=64,dir=up,stores=0.2 \
		 random:footprint=64M,stores=0.3 \
		 linear:footprint=256M,stride=4K,dir=down,stores=0.1; do
		"$CP" sim --features "$f" --pages 4k --intervals 30 --interval-uops 4000 \
			--warmup 100000 --counters 32 --seed 7 --workload "$w" \
			--truth "$tmp/t.csv" -o "$tmp/d.csv" || fail "sim $f $w"
		# one header, observations appended
		if [ -s "$tmp/$f.csv" ]; then tail -n +2 "$tmp/d.csv"; else cat "$tmp/d.csv"; fi >>"$tmp/$f.csv"
		if [ -s "$tmp/$f.truth" ]; then tail -n +2 "$tmp/t.csv"; else cat "$tmp/t.csv"; fi >>"$tmp/$f.truth"
	done
	"$CP" flows "$M" "$tmp/$f.csv" --with "$f" --json -o "$tmp/$f.json" ||
		fail "flows $f: status $?"
	PYTHONPATH="$here" python3 - "$f" "$tmp/$f.csv" "$tmp/$f.truth" "$tmp/$f.json" <<'PY' || exit 1
import json, sys
from truth import true_flows, inside
features, data, truth, report = sys.argv[1:5]
feats = features.split(",")
tf = true_flows(data, truth, feats, 30)
rep = json.load(open(report))
assert rep["schema"] == 2
bad = 0
for ob in rep["observations"]:
    name = ob["name"]
    assert ob["status"] == "bounded", (name, ob["status"])
    for f in feats:
        b = ob["uops"]["load"][f]
        share, rate = tf[(name, f)]
        ok = inside(b, share, rate)
        print("%-18s %-9s %-30s true share %.4f%%  bounds [%.4f%%, %.4f%%]  rate %.4g in [%.4g, %.4g] %s"
              % (features, f, name, 100 * share, 100 * b["share"][0], 100 * b["share"][1],
                 rate, b["rate"][0], b["rate"][1], "ok" if ok else "OUTSIDE"))
        bad += not ok
sys.exit(1 if bad else 0)
PY
done
exit 0
