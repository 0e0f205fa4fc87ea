#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore_family_wise.sh: claims at the family-wise level, on
# data of known truth (tests/data/family/line.udd: the data were drawn
# from the baseline, a = b).  At 99% each, one of the 40 observations
# refutes the baseline, and explore would prove {more_a} minimal; at 99%
# over all 40 (each region at 0.99^(1/40)) none does: the baseline is the
# minimal model, and the reports say both views.
CP=${CP:-bin/counterpoint}
M=tests/data/family/line.udd
D=tests/data/family/line.csv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore_family_wise.sh: $*"; exit 1; }

$CP check $M $D >"$tmp/c.txt"; [ $? = 1 ] || fail "check: one observation is infeasible at 99% each"
grep -q '^40 observations, 1 infeasible ' "$tmp/c.txt" || fail "check: not 1 of 40"
grep -q '^model as a whole: not refuted at 99% over the 40 usable observations (1 infeasible at 99% each, none at 99.9748%, the level each needs for 99% over 40)$' "$tmp/c.txt" ||
	{ tail -2 "$tmp/c.txt"; fail "check: the summary"; }
$CP check $M $D --family-confidence 0.5 >"$tmp/c5.txt"
grep -q '^model as a whole: REFUTED at 50% over the 40 usable observations (1 infeasible at 99% each, also at 99%, ' "$tmp/c5.txt" && fail "check: at 0.5 the level is 0.99's"
grep -q '^model as a whole: REFUTED at 50% over the 40 usable observations (1 infeasible at 99% each)$' "$tmp/c5.txt" ||
	{ tail -2 "$tmp/c5.txt"; fail "check --family-confidence 0.5: refuted"; }
$CP explore $M $D -o "$tmp/e.txt" || fail "explore: exit $?"
grep -q '^  #1   {}  *MINIMAL    1/40 infeasible, none refutes over all 40  (start' "$tmp/e.txt" ||
	{ cat "$tmp/e.txt"; fail "explore: the baseline"; }
grep -q '^minimal feasible models (proven: no feasible sub-model, at 99% over all 40 observations): {}$' "$tmp/e.txt" ||
	fail "explore: minimal models"
grep -q '^at 99% each (one observation alone, not corrected for 40; not claims): minimal {more_a}$' "$tmp/e.txt" ||
	fail "explore: the per-observation view"
grep -q 'At 99% each (one observation alone, no correction for 40), 1 of the models that explain the data would be refuted: not claims.$' "$tmp/e.txt" ||
	fail "explore: the conclusion's per-observation view"
$CP explore $M $D --json -o "$tmp/e.json" || fail "explore --json"
python3 - "$tmp/e.json" <<'PY' || fail "explore --json"
import json, sys
d = json.load(open(sys.argv[1]))
m = {tuple(x["features"]): x for x in d["models"]}
b = m[()]
assert (b["verdict"], b["infeasible"], b["refuting"], b["feasible_each"]) == ("feasible", 1, 0, False), b
assert d["minimal"] == [[]], d["minimal"]
PY
exit 0
