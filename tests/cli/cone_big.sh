#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/cone_big.sh: an equality beyond 64 bits is kept exactly, never
# refused: `counterpoint cone` prints it (text and JSON) and it holds, in
# exact integers, on every signature; `check` still checks, with the
# facets not listed and the reason given.
CP=${CP:-bin/counterpoint}
M=tests/data/cone/bigeq.udd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$CP" cone "$M" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "cone: status $?"; }
grep -q '^equalities (1):' "$tmp/out" || fail "one equality expected"
grep -q '577445607463153192624164343\*a' "$tmp/out" || { cat "$tmp/out"; fail "equality not printed exactly"; }
"$CP" cone "$M" --json >"$tmp/json" 2>/dev/null || fail "cone --json"
python3 - "$tmp/json" <<'PY' || exit 1
import json, sys
c = json.load(open(sys.argv[1]))
rays = [r["vector"] for r in c["extreme_rays"]]
assert len(rays) == 3 and c["dimension"] == 3
(eq,) = c["equalities"]
a = eq["vector"]
assert max(abs(x) for x in a) >= 2**63, a            # beyond 64 bits
assert all(sum(x * y for x, y in zip(a, r)) == 0 for r in rays), a
assert str(a[0]) in eq["text"] and " = " in eq["text"]
for f in c["facets"]:
    v = f["vector"]
    assert all(sum(x * y for x, y in zip(v, r)) >= 0 for r in rays), v
    assert sum(1 for r in rays if sum(x * y for x, y in zip(v, r)) == 0) == 2, v
PY

# check: the solver works in int64, so the facets are not listed, and the
# observation is still checked
awk 'BEGIN { print "observation,interval,event,value,enabled_ns,running_ns";
	for (i = 0; i < 10; i++)
		printf "o,%d,A,%d,1000,1000\no,%d,B,%d,1000,1000\no,%d,C,%d,1000,1000\no,%d,D,%d,1000,1000\n",
			i, 1000000007 + i, i, 998244353 + i, i, 1073741789, i, 12345 + i }' >"$tmp/d.csv"
"$CP" check "$M" "$tmp/d.csv" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || { cat "$tmp/out" "$tmp/err"; fail "check: status $rc"; }
grep -q '^o: ' "$tmp/out" || fail "check: no verdict"
grep -q 'equality has a coefficient beyond 64 bits' "$tmp/err" || { cat "$tmp/err"; fail "check: reason not given"; }
echo "PASS: cone_big"
