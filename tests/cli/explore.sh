#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore.sh: `counterpoint explore` end to end.  Usage errors
# exit 2; on a small simulator run with walk merging on, the baseline is
# refuted by "retired STLB-missing loads <= walks"; the default search
# proves nothing it did not test (every feature undecided, the conclusion
# never says a feature is needed), and an exhaustive search over three
# candidates proves merge required; on a run of the baseline machine, the
# baseline fits and no feature is needed.
CP=${CP:-bin/counterpoint}
MODEL=models/haswell/mmu.udd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore.sh: $*"; exit 1; }

$CP explore >/dev/null 2>&1; [ $? = 2 ] || fail "no arguments should exit 2"
$CP explore --bogus a b >/dev/null 2>&1; [ $? = 2 ] || fail "unknown option should exit 2"
$CP explore "$MODEL" x.csv --region round >/dev/null 2>&1; [ $? = 2 ] || fail "bad --region should exit 2"
$CP explore "$MODEL" x.csv --features nosuch >/dev/null 2>&1; [ $? = 2 ] || fail "unknown feature should exit 2"
$CP explore "$MODEL" "$tmp/missing.csv" >/dev/null 2>&1; [ $? = 2 ] || fail "missing dataset should exit 2"

run() {  # $1 = simulator features, $2 = output name
	$CP sim --features "$1" --pages 4k --seed 3 --intervals 200 \
		--interval-uops 5000 \
		--workload linear:footprint=32M,stride=64,dir=up,stores=0.2 \
		-o "$tmp/$2.csv" || fail "sim --features $1 failed"
	$CP explore "$MODEL" "$tmp/$2.csv" --dot "$tmp/$2.dot" -o "$tmp/$2.txt"
	echo $? > "$tmp/$2.status"
	$CP explore "$MODEL" "$tmp/$2.csv" --candidates merge,abort,replay --exhaustive \
		-o "$tmp/$2.x.txt"
	echo $? > "$tmp/$2.x.status"
}
run merge merge
[ "$(cat "$tmp/merge.status")" = 0 ] || fail "merge: exit $(cat "$tmp/merge.status")"
# the default search proves merge required with its targeted checks (the
# largest models without merge, one per prefetch trigger variant), naming
# the model and observation that refute each; the same as --exhaustive
grep -q '^required features (proven: every model without one is refuted, at 99% over [^)]*): merge$' "$tmp/merge.txt" ||
	{ cat "$tmp/merge.txt"; fail "merge: the default search did not prove merge required"; }
grep -q '^  merge is required: every model without it is refuted; the largest ones' "$tmp/merge.txt" ||
	fail "merge: no proof of the required feature"
grep -Eq '^      \{prefetch,prefetch_stores,pde_early,pml4_cache,abort,bypass,replay\} \(#[0-9]+\) refuted by linear-' "$tmp/merge.txt" ||
	fail "merge: the largest model without merge is not named with its refuting observation"
grep -q '^  prefetch_dtlb_miss can shrink it' "$tmp/merge.txt" || fail "merge: the trigger variant is not found to shrink the cone"
grep -q 'Undecided' "$tmp/merge.txt" && fail "merge: the default search left claims undecided"
# without the targeted checks merge stays undecided, and each check that
# would decide it is printed; run the first: it refutes the model
$CP explore "$MODEL" "$tmp/merge.csv" --no-targeted -o "$tmp/merge.n.txt" || fail "--no-targeted: exit $?"
grep -q 'Undecided: .*merge' "$tmp/merge.n.txt" || fail "merge --no-targeted: undecided features not said"
grep -q '^    is merge required? these checks decide it' "$tmp/merge.n.txt" ||
	{ cat "$tmp/merge.n.txt"; fail "merge --no-targeted: no deciding checks"; }
line=$(sed -n '/^    is merge required?/{n;s/^ *counterpoint //p;q;}' "$tmp/merge.n.txt")
[ -n "$line" ] || fail "merge --no-targeted: no check line"
$CP $line > "$tmp/merge.c.txt"; [ $? = 1 ] || fail "the deciding check ($line) should refute the model"
[ "$(cat "$tmp/merge.x.status")" = 0 ] || fail "merge --exhaustive: exit $(cat "$tmp/merge.x.status")"
grep -q '^required features (proven: every model without one is refuted, at 99% over [^)]*): merge$' "$tmp/merge.x.txt" ||
	{ cat "$tmp/merge.x.txt"; fail "merge --exhaustive: merge not proven required"; }
grep -q 'Proven: the hardware needs merge' "$tmp/merge.x.txt" || fail "merge --exhaustive: conclusion"
# the same claims as JSON (docs/schema/explore.json), each required feature with its proof
$CP explore "$MODEL" "$tmp/merge.csv" --candidates merge,abort,replay --exhaustive --json \
	> "$tmp/merge.json" || fail "explore --json: exit $?"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 2 and d["family_models"] == 8 and d["known_verdicts"] == 8, d
assert [r["feature"] for r in d["required"]] == ["merge"], d["required"]
assert d["required"][0]["models_refuted"] == 4 and d["undecided"] == [], d
assert len(d["models"]) == 8 and all(m["verdict"] in ("feasible", "refuted") for m in d["models"])
assert d["monotonicity"]["grows"] == ["merge", "abort", "replay"], d["monotonicity"]
p = [x for x in d["proofs"] if x["feature"] == "merge"][0]
assert p["claim"] == "required" and p["refuted_models"][0]["model"] == ["abort", "replay"], p
assert p["refuted_models"][0]["observation"] and p["refuted_models"][0]["constraint"], p
assert {"features": [], "verdict": "refuted"}.items() <= [m for m in d["models"] if m["features"] == []][0].items()
' "$tmp/merge.json" || fail "explore --json: schema or claims"
grep -q '^  #1 .*{} .*INFEASIBLE' "$tmp/merge.txt" || fail "merge: the baseline was not refuted"
grep -q 'retired_stlb_miss <=' "$tmp/merge.txt" || fail "merge: violated constraint not named"
grep -Eq -- '^	m1 -> m[0-9]+ \[label="\+merge"\]' "$tmp/merge.dot" || fail "merge: graph lacks the +merge edge"
run none base
[ "$(cat "$tmp/base.status")" = 0 ] || fail "baseline: exit $(cat "$tmp/base.status")"
grep -q 'The baseline explains the data: no feature is needed' "$tmp/base.txt" ||
	{ cat "$tmp/base.txt"; fail "baseline: a feature was required"; }
# -v: CPU by phase and what the solver did.  Every model of the bundled
# sweep's search has its facets listed, so its explanations need no facet
# LP (solver/explain.c: a listed facet's form in span(S) in closed form).
"$CP" explore models/haswell/mmu.udd datasets/sim-sweep-all.csv --threads 1 -v \
	>/dev/null 2>"$tmp/v.err"
grep -q 'CPU seconds by phase: regions ' "$tmp/v.err" || { cat "$tmp/v.err"; fail "-v: no phases"; }
grep -Eq 'solver: [1-9][0-9]* checks, .* LP solves .* 0 facet LPs' "$tmp/v.err" ||
	{ cat "$tmp/v.err"; fail "-v: facet LPs ran although every facet was listed"; }
# The box pre-filters decide most checks without an LP: 3,134 of 4,068
# with the ray along the signatures' sum alone, 3,400 with the projections
# after it (solver/prefilter.c).
pre=$(sed -n 's/.* checks, \([0-9]*\) decided without an LP.*/\1/p' "$tmp/v.err")
[ "${pre:-0}" -ge 3300 ] || { cat "$tmp/v.err"; fail "-v: only ${pre:-0} checks decided without an LP"; }
exit 0
