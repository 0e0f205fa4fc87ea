#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore_flows.sh: explore bounds the flows of every proven
# minimal model exactly as `counterpoint flows --with` that model does:
# the "flows" of each minimal model in explore --json equal flows --json's
# columns, uops, observations and summary, and the text report's rows
# equal flows' text rows, on the synthetic family (two minimal models),
# on the small merge model under --tolerance (an infeasible observation
# of a minimal model gets no bounds and says so), and on simulator data
# with walk merging on, where the true share of merged loads (sim
# --truth, tests/cli/truth.py) lies inside explore's bounds on every
# observation.  --no-flows leaves them out.  flows runs on one thread:
# explore bounds on one (explore/flows.c), since with more
# feas_flows_batch hands observations to whichever thread is free, and a
# box's warm start (so the last bits of its certified bounds) depends on
# the observation solved before it on that thread.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore_flows.sh: $*"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)   # truth.py

# same(MODEL DATA NAME [explore options]): explore's bounds of every
# minimal model against flows --with it, JSON and text
same() {
	m=$1; d=$2; n=$3; shift 3
	"$CP" explore "$m" "$d" "$@" --json -o "$tmp/$n.json" || fail "$n: explore --json: exit $?"
	"$CP" explore "$m" "$d" "$@" -o "$tmp/$n.txt" || fail "$n: explore: exit $?"
	python3 - "$tmp/$n.json" > "$tmp/$n.minimal" <<'PY' || fail "$n: no minimal model with flows"
import json, sys
d = json.load(open(sys.argv[1]))
mins = [m for m in d["models"] if m["minimal"]]
assert mins and [m["features"] for m in mins] == d["minimal"]
for m in d["models"]:
    assert (m["flows"] is not None) == m["minimal"], m["features"]
for m in mins:
    print(",".join(m["features"]))
PY
	while read -r with; do
		"$CP" flows "$m" "$d" --with "$with" --json -o "$tmp/$n.$with.json"
		[ $? -le 1 ] || fail "$n: flows --with $with --json"
		"$CP" flows "$m" "$d" --with "$with" -o "$tmp/$n.$with.txt"
		[ $? -le 1 ] || fail "$n: flows --with $with"
		python3 - "$tmp/$n.json" "$tmp/$n.$with.json" "$tmp/$n.txt" "$tmp/$n.$with.txt" \
			"$with" <<'PY' || fail "$n: explore's bounds of {$with} differ from flows'"
import json, re, sys
ex, fl = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
with_ = sys.argv[5].split(",")
m = [m for m in ex["models"] if m["minimal"] and m["features"] == with_][0]
for key in ("columns", "uops", "observations", "summary"):
    assert m["flows"][key] == fl[key], (key, m["flows"][key], fl[key])
assert any(o["status"] == "bounded" and o["uops"] for o in fl["observations"])

def rows(lines, start, indent):
    """observation -> its status and rows, below the line at start"""
    out, name = {}, None
    for line in lines[start:]:
        g = re.match(r"^%s(\S.*?): (feasible|INFEASIBLE.*|unusable.*)$" % indent, line)
        if g:
            name = g.group(1)
            out[name] = [g.group(2).split()[0]]
        elif name and line.startswith(indent + "  ") and not line.startswith(indent + "  uop "):
            out[name].append(line.split())
        elif name:
            name = None if not line.startswith(indent) else name
    return out
et = open(sys.argv[3]).read().split("\n")
at = [i for i, l in enumerate(et) if l.startswith("  {%s} (#" % ",".join(with_))]
assert len(at) >= 1, "no flow section for {%s} in the text report" % ",".join(with_)
end = next(i for i in range(at[-1] + 1, len(et)) if not et[i].startswith("    "))
got = rows(et[:end], at[-1] + 1, "    ")
want = rows(open(sys.argv[4]).read().split("\n"), 0, "")
assert got == want, (got, want)
assert any(len(v) > 1 for v in got.values()), "no bounded rows in the text"
PY
	done < "$tmp/$n.minimal"
}

same tests/data/explore/synth.udd tests/data/explore/synth.csv synth
[ "$(wc -l < "$tmp/synth.minimal")" = 2 ] || fail "synth: two minimal models expected"
same tests/data/flows/walk_merge.udd tests/data/flows/merge.csv tol --tolerance 1
python3 - "$tmp/tol.json" <<'PY' || fail "tolerance: the infeasible observation"
import json, sys
m = [m for m in json.load(open(sys.argv[1]))["models"] if m["minimal"]][0]
st = {o["name"]: o["status"] for o in m["flows"]["observations"]}
assert st == {"merging": "bounded", "no_merge": "bounded", "broken": "infeasible"}, st
PY
grep -q '^    broken: INFEASIBLE (counted within --tolerance; no flow bounds)$' "$tmp/tol.txt" ||
	fail "tolerance: the text does not say why broken has no bounds"

# --no-flows: none computed, none printed
"$CP" explore tests/data/explore/synth.udd tests/data/explore/synth.csv --no-flows --json \
	-o "$tmp/nf.json" || fail "--no-flows: exit $?"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["minimal"] and all(m["flows"] is None for m in d["models"])' "$tmp/nf.json" ||
	fail "--no-flows: flows in the JSON"
"$CP" explore tests/data/explore/synth.udd tests/data/explore/synth.csv --no-flows \
	-o "$tmp/nf.txt" || fail "--no-flows text: exit $?"
! grep -q '^flow bounds' "$tmp/nf.txt" || fail "--no-flows: flows in the text"

# the simulator with walk merging on: {merge} is the minimal model, and
# the true share of merged loads lies inside its bounds
: >"$tmp/sim.csv"; : >"$tmp/sim.truth"
for w in linear:footprint=32M,stride=64,dir=up,stores=0.2 random:footprint=64M,stores=0.3; do
	"$CP" sim --features merge --pages 4k --intervals 30 --interval-uops 4000 \
		--warmup 100000 --counters 32 --seed 7 --workload "$w" \
		--truth "$tmp/t.csv" -o "$tmp/d.csv" || fail "sim $w"
	if [ -s "$tmp/sim.csv" ]; then tail -n +2 "$tmp/d.csv"; else cat "$tmp/d.csv"; fi >>"$tmp/sim.csv"
	if [ -s "$tmp/sim.truth" ]; then tail -n +2 "$tmp/t.csv"; else cat "$tmp/t.csv"; fi >>"$tmp/sim.truth"
done
same models/haswell/mmu.udd "$tmp/sim.csv" sim --candidates merge,abort,replay --exhaustive
PYTHONPATH="$here" python3 - "$tmp/sim.csv" "$tmp/sim.truth" "$tmp/sim.json" <<'PY' ||
import json, sys
from truth import true_flows, inside
data, truth, report = sys.argv[1:4]
d = json.load(open(report))
assert d["minimal"] == [["merge"]], d["minimal"]
m = [m for m in d["models"] if m["minimal"]][0]
tf = true_flows(data, truth, ["merge"], 30)
obs = m["flows"]["observations"]
assert len(obs) == 2, obs
for o in obs:
    assert o["status"] == "bounded", o
    b = o["uops"]["load"]["merge"]
    share, rate = tf[(o["name"], "merge")]
    print("%-30s true share %.4f%% in explore's [%.4f%%, %.4f%%]" %
          (o["name"], 100 * share, 100 * b["share"][0], 100 * b["share"][1]))
    assert inside(b, share, rate), (o["name"], share, rate, b)
PY
	fail "sim: the true share of merged loads is outside explore's bounds"
exit 0
