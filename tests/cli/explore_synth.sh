#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore_synth.sh: explore on a family whose claims are known
# (tests/data/explore/synth.udd, its header says which): every kind of
# claim proven by the default search with its targeted checks, the same
# claims as --exhaustive, the non-monotone feature found, the two minimal
# models separated, and every undecided claim with a runnable check.
CP=${CP:-bin/counterpoint}
M=tests/data/explore/synth.udd
D=tests/data/explore/synth.csv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore_synth.sh: $*"; exit 1; }

claims() {  # the claim lines of a report
	grep -E '^(required|impossible) features|^features the data allow|^undecided features|^minimal feasible' "$1"
}
$CP explore "$M" "$D" -o "$tmp/d.txt" || fail "default: exit $?"
$CP explore "$M" "$D" --exhaustive -o "$tmp/x.txt" || fail "exhaustive: exit $?"
claims "$tmp/d.txt" > "$tmp/d.claims"
claims "$tmp/x.txt" > "$tmp/x.claims"
cat > "$tmp/want" <<'W'
minimal feasible models (proven: no feasible sub-model, at 99% over all 2 observations): {need,alt1} {need,alt2}
required features (proven: every model without one is refuted, at 99% over all 2 observations): need
impossible features (proven: every model with one is refuted, at 99% over all 2 observations): bad
features the data allow either way (models with and without fit): alt1, alt2, spare
undecided features (models untested; --exhaustive decides): none
W
cmp -s "$tmp/d.claims" "$tmp/want" || { diff "$tmp/want" "$tmp/d.claims"; fail "default search: wrong claims"; }
cmp -s "$tmp/x.claims" "$tmp/want" || { diff "$tmp/want" "$tmp/x.claims"; fail "--exhaustive: wrong claims"; }
grep -q '^  adding one of these can only grow the cone: need, alt1, alt2, spare$' "$tmp/d.txt" ||
	fail "monotone features"
grep -q '^  bad can shrink it .*with {}, adding bad loses work: d .*which breaks c = a + d of the new cone' "$tmp/d.txt" ||
	fail "bad not shown to shrink the cone"
# (the proof names the constraint run1 breaks by the largest margin)
grep -q '^      {need,alt1,alt2,bad,spare} (#[0-9]*) refuted by run1: b + d + e <= c' "$tmp/d.txt" ||
	fail "bad's proof: the largest model with it and its observation"
grep -q '^  {need,alt1} vs {need,alt2}: μpaths of the second break' "$tmp/d.txt" || fail "no separation"
grep -q '^        c <= b$' "$tmp/d.txt" || fail "{need,alt2}'s separating constraint"
grep -q '^        work: a, c$' "$tmp/d.txt" || fail "the μpath that breaks c <= b"
grep -q '^        run1 -[0-9.]*, run2 -[0-9.]*$' "$tmp/d.txt" || fail "margins"
# fewer evaluations than --exhaustive
n=$(sed -n 's/^models tested (\([0-9]*\),.*/\1/p' "$tmp/d.txt")
[ "$n" -lt 32 ] || fail "the default search tested $n models"

# JSON: proofs and alternatives
$CP explore "$M" "$D" --json > "$tmp/d.json" || fail "json: exit $?"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 2
assert [r["feature"] for r in d["required"]] == ["need"] and [r["feature"] for r in d["impossible"]] == ["bad"]
r = d["impossible"][0]["refuted_models"][0]
assert r["model"] == r["checked_model"] == ["need", "alt1", "alt2", "bad", "spare"] and r["observation"] == "run1" and r["constraint"] == "b + d + e <= c", r
assert d["monotonicity"]["grows"] == ["need", "alt1", "alt2", "spare"]
assert [x["feature"] for x in d["monotonicity"]["shrinks"]] == ["bad"]
p = {x["feature"]: x for x in d["proofs"]}
assert p["bad"]["claim"] == "impossible" and p["bad"]["refuted_models"][0]["model"] == ["need", "alt1", "alt2", "bad", "spare"]
assert p["bad"]["refuted_models"][0]["observation"] == "run1"
assert len(p["need"]["refuted_models"]) == 2   # one per assignment of bad
a = {(tuple(x["a"]), tuple(x["b"])): x for x in d["alternatives"]}
x = a[(("need", "alt2"), ("need", "alt1"))]
assert x["constraint"] == "c <= b" and x["paths"][0]["counters"] == "a, c", x
assert [m["observation"] for m in x["margins"]] == ["run1", "run2"] and all(m["margin"] < 0 for m in x["margins"])
assert d["undecided_checks"] == []
' "$tmp/d.json" || fail "json"

# budget: after 3 models every claim but none is undecided, and each
# printed check runs and decides (the first refutes the largest model
# without need)
$CP explore "$M" "$D" --max-models 3 -o "$tmp/b.txt"; [ $? -le 1 ] || fail "budget: exit"
grep -q '^undecided claims and the checks that decide them:$' "$tmp/b.txt" || { cat "$tmp/b.txt"; fail "budget: no checks"; }
line=$(sed -n '/^    is need required?/{n;s/^ *counterpoint //p;q;}' "$tmp/b.txt")
[ -n "$line" ] || fail "budget: no check for need"
$CP $line > "$tmp/c.txt"; [ $? = 1 ] || fail "$line should refute the model"
# monotonicity off: claims rest on checked verdicts, never contradicting
$CP explore "$M" "$D" --monotone-models 0 -o "$tmp/n.txt" || fail "--monotone-models 0: exit $?"
grep -q '^monotonicity' "$tmp/n.txt" && fail "--monotone-models 0 still decided monotonicity"
grep -q '^required features (proven: every model without one is refuted, at 99% over [^)]*): \(need\|none\)$' "$tmp/n.txt" ||
	fail "--monotone-models 0: required"
# a feature that removes every count: its cone is {0}, it shrinks the
# baseline's, and the one targeted check proves it impossible
printf 'counter a "A";\ncounter b "B";\nfeature off "no counts";\nuop u { if (off) { done; } incr a; incr b; done; }\n' > "$tmp/off.udd"
awk 'BEGIN { print "observation,interval,event,value,enabled_ns,running_ns";
	for (i = 0; i < 30; i++) { printf "o,%d,A,%d,1000000000,1000000000\n", i, 1000 + i % 7;
		printf "o,%d,B,%d,1000000000,1000000000\n", i, 1000 + i % 5 } }' > "$tmp/off.csv"
$CP explore "$tmp/off.udd" "$tmp/off.csv" -o "$tmp/off.txt" || fail "off: exit $?"
grep -q '^impossible features (proven: every model with one is refuted, at 99% over [^)]*): off$' "$tmp/off.txt" ||
	{ cat "$tmp/off.txt"; fail "off: not proven impossible"; }
grep -q '^  off can shrink it .*loses u: a, b' "$tmp/off.txt" || fail "off: not found to shrink the cone"
exit 0
