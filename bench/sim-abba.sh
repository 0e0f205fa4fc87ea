#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/sim-abba.sh: is one counterpoint binary's simulator faster than
# another's?  Times `counterpoint sim` on random 1G with every feature
# (5 M correct-path μops from a cold machine) with each binary, in
# A B B A order per round, so that the run order's bias on a shared host
# (the second of a pair runs faster) falls on both alike, and prints each
# binary's mean and minimum user time.
# usage: bench/sim-abba.sh A_BINARY B_BINARY [ROUNDS (default 10)] [WORKLOAD]
a=${1:?usage: $0 A B [ROUNDS] [WORKLOAD]}
b=${2:?usage: $0 A B [ROUNDS] [WORKLOAD]}
rounds=${3:-10}
wl=${4:-random:footprint=1G,stores=0.2}
LC_ALL=C; export LC_ALL
out=$(mktemp); trap 'rm -f "$out"' EXIT
run() {
	/usr/bin/time -f "%U" "$1" sim --workload "$wl" --features all \
		--intervals 50 --interval-uops 100000 --warmup 0 -o "$out" 2>&1 >/dev/null
}
echo "bench/sim-abba.sh $a $b $rounds $wl"
i=0
while [ "$i" -lt "$rounds" ]; do
	echo "A $(run "$a")"; echo "B $(run "$b")"
	echo "B $(run "$b")"; echo "A $(run "$a")"
	i=$((i + 1))
done | awk -v a="$a" -v b="$b" '
	$2 !~ /^[0-9.]+$/ { print "bench/sim-abba.sh: " $0 > "/dev/stderr"; bad = 1; next }
	{ s[$1] += $2; n[$1]++; if (!($1 in mn) || $2 < mn[$1]) mn[$1] = $2 }
	END {
		if (bad) exit 1
		printf "A %s: mean %.3f s, min %.2f s (%d runs)\n", a, s["A"] / n["A"], mn["A"], n["A"]
		printf "B %s: mean %.3f s, min %.2f s (%d runs)\n", b, s["B"] / n["B"], mn["B"], n["B"]
	}'
