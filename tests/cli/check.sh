#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/check.sh: `counterpoint check` end to end on walk_basic.udd and
# walk_pde_early.udd with a generated dataset: observations made from the
# model's own flows are feasible; one with more PDE-cache misses than walks
# is infeasible under walk_basic (and the constraint tying the two is
# named), feasible under walk_pde_early; usage errors exit 2; --json
# parses; --threads does not change the report; -v times the phases.
CP=${CP:-bin/counterpoint}
ACP=${ACP:-$CP}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Observations: 20 one-second intervals each.  good1/good2 follow the
# flows of walk_basic (walks = completed walks, PDE misses below walks,
# retired loads above); bad has 1300 PDE misses for 1000 walks.
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

for region in pca independent ellipsoid; do
	"$ACP" check models/examples/walk_basic.udd "$tmp/data.csv" --region $region \
		>"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc = 1 ] || { cat "$tmp/out" "$tmp/err"; fail "walk_basic $region: status $rc, expected 1"; }
	grep -q '^good1: feasible' "$tmp/out" || fail "walk_basic $region: good1 not feasible"
	grep -q '^good2: feasible' "$tmp/out" || fail "walk_basic $region: good2 not feasible"
	grep -q '^bad: INFEASIBLE' "$tmp/out" || fail "walk_basic $region: bad not infeasible"
	sed -n '/^bad:/,/^[a-z0-9]*:/p' "$tmp/out" | grep 'violates' | grep 'load.pde_miss' |
		grep -q 'load.causes_walk' || { cat "$tmp/out"; fail "walk_basic $region: constraint not named"; }
	grep -q "3 observations, 1 infeasible" "$tmp/out" || fail "walk_basic $region: summary"
	"$ACP" check models/examples/walk_pde_early.udd "$tmp/data.csv" --region $region \
		>"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc = 0 ] || { cat "$tmp/out" "$tmp/err"; fail "walk_pde_early $region: status $rc, expected 0"; }
done

# certificates only (no facet list): the same verdicts and constraint
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --max-facets 0 >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] || fail "--max-facets 0: status"
grep -q '^bad: INFEASIBLE' "$tmp/out" || fail "--max-facets 0: bad not infeasible"

# threads keep the order and the report
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --threads 1 >"$tmp/t1" 2>/dev/null
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --threads 2 >"$tmp/t2" 2>/dev/null
cmp -s "$tmp/t1" "$tmp/t2" || fail "--threads 1 and 2 differ"

# JSON parses and agrees
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --json >"$tmp/json" 2>/dev/null
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["summary"]["observations"] == 3 and d["summary"]["infeasible"] == 1, d["summary"]
bad = [o for o in d["observations"] if o["name"] == "bad"][0]
assert not bad["feasible"] and bad["violations"], bad
' "$tmp/json" || fail "--json"

# An observation that cannot form a region (its events counted in one
# interval) is reported unusable with the reason; the others are checked
# and decide the exit status; --strict makes it an error; only unusable
# observations is an error.
cp "$tmp/data.csv" "$tmp/unusable.csv"
for e in MISS_CAUSES_A_WALK PDE_CACHE_MISS WALK_COMPLETED; do
	echo "short,0,DTLB_LOAD_MISSES.$e,10,1000000000,1000000000" >> "$tmp/unusable.csv"
done
echo "short,0,MEM_UOPS_RETIRED.ALL_LOADS,50,1000000000,1000000000" >> "$tmp/unusable.csv"
"$CP" check models/examples/walk_basic.udd "$tmp/unusable.csv" >"$tmp/out" 2>&1
[ $? = 1 ] || { cat "$tmp/out"; fail "unusable: bad is still infeasible (exit 1)"; }
grep -q '^short: unusable (' "$tmp/out" || { cat "$tmp/out"; fail "unusable not reported"; }
grep -q '^good1: feasible' "$tmp/out" || fail "unusable hid the others"
grep -q '^4 observations, 1 infeasible, 1 unusable' "$tmp/out" || { cat "$tmp/out"; fail "summary"; }
"$CP" check models/examples/walk_basic.udd "$tmp/unusable.csv" --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); s=[o for o in d["observations"] if o["name"]=="short"][0]; assert not s["usable"] and s["unusable"], s; assert d["summary"]["unusable"]==1' ||
	fail "unusable in --json"
"$CP" check models/examples/walk_basic.udd "$tmp/unusable.csv" --strict >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "--strict with an unusable observation should exit 2"
grep -Eq "unusable.csv:[0-9]+: observation 'short': unusable \(--strict\): " "$tmp/err" || { cat "$tmp/err"; fail "--strict message"; }
grep '^observation\|^short' "$tmp/unusable.csv" > "$tmp/only.csv"
"$CP" check models/examples/walk_basic.udd "$tmp/only.csv" >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "no usable observation should exit 2"
grep -q "no observation can form a region" "$tmp/err" || { cat "$tmp/err"; fail "none usable message"; }

# An observation with no more intervals than counters gets the diagonal
# rule, and the report says so for it (text and JSON).
awk -F, 'NR == 1 || ($1 == "good1" && $2 < 4)' "$tmp/data.csv" | sed 's/^good1,/few,/' > "$tmp/few.csv"
"$CP" check models/examples/walk_basic.udd "$tmp/few.csv" >"$tmp/out" 2>&1
grep -q '^few: feasible (diagonal rule: too few samples' "$tmp/out" || { cat "$tmp/out"; fail "diagonal rule not said"; }
"$CP" check models/examples/walk_basic.udd "$tmp/few.csv" --json |
	python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["observations"][0]["rule"]=="diagonal", d' ||
	fail "diagonal rule not in --json"

# A counter the dataset lacks is an error naming it; --counters checks a
# subset, the cone projected onto it (here: PDE misses <= walks still
# refutes bad).
grep -v ALL_LOADS "$tmp/data.csv" > "$tmp/noloads.csv"
"$CP" check models/examples/walk_basic.udd "$tmp/noloads.csv" >/dev/null 2>"$tmp/err"
[ $? = 2 ] || fail "missing counter should exit 2"
grep -q "lacks 1 of the model's counters: 'load.retired' (event 'MEM_UOPS_RETIRED.ALL_LOADS')" "$tmp/err" ||
	{ cat "$tmp/err"; fail "missing counter not named"; }
"$CP" check models/examples/walk_basic.udd "$tmp/noloads.csv" \
	--counters load.causes_walk,load.pde_miss,load.walk_done >"$tmp/out" 2>&1
[ $? = 1 ] || { cat "$tmp/out"; fail "--counters subset: bad should stay infeasible"; }
grep -q '^bad: INFEASIBLE' "$tmp/out" || fail "--counters subset: bad"
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --counters nosuch >/dev/null 2>&1
[ $? = 2 ] || fail "--counters with an unknown counter should exit 2"

# With every facet listed, an infeasible region no listed form breaks is
# explained without a facet LP: a listed facet written in span(S) (it
# differs from the listed form by equalities, and over a full-dimensional
# region the two have different margins).  On the bundled sweep the
# ellipsoid of linear-up-s4096-fp8g-mix breaks such a form, where the
# facet LPs at a few points of the region found none and reported a
# non-facet certificate.
"$CP" cone models/haswell/mmu.udd --json >"$tmp/cone.json" 2>/dev/null ||
	fail "cone --json"
"$CP" check models/haswell/mmu.udd datasets/sim-sweep-all.csv --region ellipsoid \
	--json >"$tmp/ell.json" 2>/dev/null
[ $? = 1 ] || fail "ellipsoid check of the sweep: expected status 1"
python3 - "$tmp/cone.json" "$tmp/ell.json" <<'PY' || fail "span(S) form of a listed facet not reported"
import json, sys
from fractions import Fraction
cone = json.load(open(sys.argv[1])); chk = json.load(open(sys.argv[2]))
E = [e["vector"] for e in cone["equalities"]]
F = [f["vector"] for f in cone["facets"]]
def rank(rows):
    m = [[Fraction(x) for x in r] for r in rows]; r = 0
    for c in range(len(m[0]) if m else 0):
        p = next((i for i in range(r, len(m)) if m[i][c]), None)
        if p is None: continue
        m[r], m[p] = m[p], m[r]
        for i in range(len(m)):
            if i != r and m[i][c]:
                t = m[i][c] / m[r][c]; m[i] = [a - t * b for a, b in zip(m[i], m[r])]
        r += 1
    return r
obs = {o["name"]: o for o in chk["observations"]}
v = obs["linear-up-s4096-fp8g-mix"]["violations"]
assert len(v) == 1 and v[0]["facet"] and v[0]["exact"] and v[0]["margin"] > 0, v
a = v[0]["vector"]
assert a not in F, "a listed form: step 1 would have reported it"
re = rank(E)
assert rank(E + [a]) == re + 1, "not a facet: lies in the equalities' span"
assert any(rank(E + [f, a]) == re + 1 for f in F), "not a listed facet modulo equalities"
PY

# without --html, check builds only what the chosen shape reads (no
# split-half PCA box for the independent box or the ellipsoid); --html
# builds every shape to draw them: the report is the same either way, on
# the bundled sweep too
for region in independent ellipsoid pca; do
	for md in "models/examples/walk_basic.udd $tmp/data.csv" \
		  "models/haswell/mmu.udd datasets/sim-sweep-all.csv"; do
		set -- $md
		"$CP" check "$1" "$2" --region $region --json >"$tmp/only.json" 2>/dev/null
		"$CP" check "$1" "$2" --region $region --json --html "$tmp/r.html" \
			>"$tmp/all.json" 2>/dev/null
		[ -s "$tmp/only.json" ] && cmp -s "$tmp/only.json" "$tmp/all.json" ||
			fail "$region on $2: the report depends on --html"
	done
done

# -v: each phase's wall and CPU time on stderr, the report unchanged
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --threads 2 >"$tmp/plain.txt" 2>/dev/null
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --threads 2 -v >"$tmp/v.txt" 2>"$tmp/v.err"
cmp -s "$tmp/plain.txt" "$tmp/v.txt" || fail "-v changed the report"
grep -Eq '^counterpoint check: seconds by phase \(wall / CPU of every thread\): load, regions and checks in parts [0-9.]+ / [0-9.]+, family-wise [0-9.]+ / [0-9.]+, report [0-9.]+ / [0-9.]+; total [0-9.]+ / [0-9.]+$' "$tmp/v.err" ||
	{ cat "$tmp/v.err"; fail "-v: no phase line"; }

# usage and input errors exit 2
"$CP" check models/examples/walk_basic.udd >/dev/null 2>&1; [ $? = 2 ] || fail "one argument"
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --region cube >/dev/null 2>&1
[ $? = 2 ] || fail "--region cube"
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --confidence 2 >/dev/null 2>&1
[ $? = 2 ] || fail "--confidence 2"
"$CP" check models/examples/walk_basic.udd "$tmp/missing.csv" >/dev/null 2>&1
[ $? = 2 ] || fail "missing data file"
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" --bogus >/dev/null 2>&1
[ $? = 2 ] || fail "unknown option"
exit 0
