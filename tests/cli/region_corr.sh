#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/region_corr.sh: `region`'s correlations are Pearson's r over
# the intervals two counters were counted in together (|r| <= 1 whatever
# multiplexing left out), and pairs counted together in fewer than 10
# intervals are not compared.  Here b = 2a in the 12 intervals b was
# counted in, while a runs far higher in the other 28 (dividing by a's
# spread over all 40, as region once did, gave about 0); c shares 5
# intervals with a and none with b.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "region_corr.sh: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }

awk 'BEGIN {
	print "observation,interval,event,value,enabled_ns,running_ns"
	for (t = 0; t < 40; t++) {
		a = t < 12 ? 100 + (t % 7) * 10 + t : 100000 + t * 5000
		printf "o,%d,a,%d,1000000000,1000000000\n", t, a
		if (t < 12) printf "o,%d,b,%d,1000000000,1000000000\n", t, 2 * a
		else printf "o,%d,b,0,1000000000,0\n", t
		if (t >= 30 && t < 35) printf "o,%d,c,%d,1000000000,1000000000\n", t, 50 + t * t
		else printf "o,%d,c,0,1000000000,0\n", t
	}
}' > "$tmp/d.csv"
$CP region "$tmp/d.csv" > "$tmp/out" || fail "region failed"
grep -q '^  pairs with correlation > 0.9: 1 of 1 (100.0%); 2 more not compared (counted together in fewer than 10 intervals)$' "$tmp/out" ||
	fail "pairs line"
grep -q '^    a  *b  *1.0000$' "$tmp/out" || fail "a and b: r = 1 over their common intervals"
grep -q 'variance share of the top principal components: undecided (2 pairs' "$tmp/out" ||
	fail "shares: not undecided"
awk '/pairs with correlation/ { on = 1; next } on && NF == 3 && $3 + 0 > 1 { bad = 1 } END { exit bad }' "$tmp/out" ||
	fail "a correlation above 1"
$CP region "$tmp/d.csv" --json > "$tmp/out" || fail "region --json failed"
command -v python3 >/dev/null || exit 0
python3 - "$tmp/out" <<'PY' || fail "JSON"
import json, sys
o = json.load(open(sys.argv[1]))["observations"][0]
assert o["pairs_compared"] == 1 and o["pairs_not_compared"] == 2, o
assert o["variance_share"] == [], o["variance_share"]
p = o["correlated_pairs"]
assert len(p) == 1 and {p[0]["a"], p[0]["b"]} == {"a", "b"} and abs(p[0]["correlation"] - 1) < 1e-12, p
PY
exit 0
