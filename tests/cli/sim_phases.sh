#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/sim_phases.sh: a phased program makes the counter rates of an
# observation move together, as on real machines: `counterpoint region`
# finds at least a quarter of the counter pairs correlated above 0.9 in the
# sweep's phased program (a stream over 8G at stride 4K and random access
# over 16G), and few in the same random access run steadily.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/r.txt" 2>/dev/null | grep -E 'observation|pairs'; exit 1; }

share() {   # the percentage region prints for the one observation in $1
	"$CP" region "$1" > "$tmp/r.txt" || fail "region $1"
	sed -n 's/.*pairs with correlation > 0.9: [0-9]* of [0-9]* (\([0-9]*\)\..*/\1/p' "$tmp/r.txt"
}

"$CP" sim --features all --workload \
	'phases:mean=100k;linear:footprint=8G,stride=4K,dir=up,stores=0.1;random:footprint=16G,stores=0.2' \
	-o "$tmp/phases.csv" || fail "sim phases"
"$CP" sim --features all --workload random:footprint=16G,stores=0.2 \
	-o "$tmp/steady.csv" || fail "sim steady"
p=$(share "$tmp/phases.csv"); s=$(share "$tmp/steady.csv")
[ -n "$p" ] && [ -n "$s" ] || fail "no correlation line"
echo "pairs above 0.9: phased $p%, steady $s%"
[ "$p" -ge 25 ] || fail "phased: only $p% of pairs above 0.9"
[ "$s" -lt 10 ] || fail "steady: $s% of pairs above 0.9"
exit 0
