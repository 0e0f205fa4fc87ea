#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore_many.sh: explore over more candidate features than its
# claims enumerate (27 > 24) searches and reports, every claim undecided
# with the limit named (it said "out of memory", exit 3); restricted to
# synth.udd's five features, the same family proves its claims.
CP=${CP:-bin/counterpoint}
M=tests/data/explore/many.udd
D=tests/data/explore/synth.csv
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore_many.sh: $*"; exit 1; }

$CP explore "$M" "$D" -o "$tmp/r.txt" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
grep -q '^undecided features (claims need at most 24 candidates; restrict --candidates): need, alt1, alt2, bad, spare, x0,' "$tmp/r.txt" ||
	fail "no undecided line naming the limit"
grep -q "^required features (proven: every model without one is refuted[^)]*): none$" "$tmp/r.txt" || fail "a claim proven beyond the limit"
$CP explore "$M" "$D" --json -o "$tmp/r.json" || fail "--json: exit $?"
$CP explore "$M" "$D" --candidates need,alt1,alt2,bad,spare -o "$tmp/five.txt" || fail "five candidates: exit $?"
grep -q '^required features (proven: every model without one is refuted[^)]*): need$' "$tmp/five.txt" ||
	fail "five candidates: need not proven required"
exit 0
