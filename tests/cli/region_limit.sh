#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/region_limit.sh: a region holds at most 256 counters (its
# covariance is k x k, its eigen-decomposition O(k^3)): 257 events are
# refused at once with the limit named, exit 2, where they took minutes
# and gigabytes; 256 are not refused for their number.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "region_limit.sh: $*"; exit 1; }
gen() {  # $1: events; 3 intervals of one observation
	awk -v k="$1" 'BEGIN { print "observation,interval,event,value,enabled_ns,running_ns";
		for (i = 0; i < 3; i++) for (e = 0; e < k; e++)
			printf "o,%d,e%d,%d,1000000,1000000\n", i, e, 100 + e * 7 + i * i * (e % 5) }'
}
gen 257 > "$tmp/257.csv"
timeout 60 "$CP" region "$tmp/257.csv" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc = 2 ] || fail "257 events: status $rc: $(head -c 300 "$tmp/err")"
grep -q "257 counters: a region holds at most 256" "$tmp/err" || fail "257 events: $(head -c 300 "$tmp/err")"
gen 256 > "$tmp/256.csv"
timeout 120 "$CP" region "$tmp/256.csv" >/dev/null 2>"$tmp/err"
grep -q "a region holds at most" "$tmp/err" && fail "256 events refused"
exit 0
