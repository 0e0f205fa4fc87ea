#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/check_threads.sh: what a second thread buys `counterpoint check`
# end to end, as a user runs it: ROUNDS rounds, each running one thread
# and two (the order flipped every round, so that neither always runs on
# a machine the other has just warmed or cooled), the report written to a
# file.  Prints every run's wall time, each round's ratio, and the
# medians of each kind with their ratio.  On a shared host the one-thread
# and two-thread runs of a round see different neighbours; the medians
# over many rounds are the figure to quote.  With --warm each timed run
# comes right after an untimed one of the same kind: on a virtual machine
# memory freed a few seconds ago may have gone back to the host, and a
# run that touches its 600 MB more slowly (one thread) pays more for
# taking it back; --warm gives both kinds the same start.
#
#   sh bench/check_threads.sh [--warm] DATA [ROUNDS [MODEL [CHECK OPTIONS...]]]
#
# DATA: a long CSV (e.g. 10^5 observations: build/bench/load --make t10.csv
# 3572 b100k.csv); ROUNDS: 6 by default; MODEL: models/haswell/mmu.udd.
CP=${CP:-bin/counterpoint}
warm=
[ "$1" = --warm ] && { warm=1; shift; }
[ $# -ge 1 ] || { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
data=$1; rounds=${2:-6}; model=${3:-models/haswell/mmu.udd}
[ $# -ge 3 ] && shift 3 || shift $#
[ -r "$data" ] || { echo "check_threads.sh: cannot read '$data'" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "command: sh bench/check_threads.sh ${warm:+--warm }$data $rounds $model $*"
now() { date +%s.%N; }
run() {  # $1 = threads, then check's options; prints the wall seconds
	n=$1; shift
	[ -n "$warm" ] && "$CP" check "$model" "$data" --threads "$n" \
		-o "$tmp/out$n.txt" "$@" >/dev/null 2>&1
	a=$(now)
	"$CP" check "$model" "$data" --threads "$n" -o "$tmp/out$n.txt" "$@" \
		2>"$tmp/err" >/dev/null
	rc=$?
	b=$(now)
	if [ $rc -gt 1 ]; then
		echo "check_threads.sh: check --threads $n failed (exit $rc):" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	echo "$a $b" | awk '{ printf "%.3f\n", $2 - $1 }'
}
: >"$tmp/t1"; : >"$tmp/t2"
r=1
while [ $r -le "$rounds" ]; do
	if [ $((r % 2)) -eq 1 ]; then order="1 2"; else order="2 1"; fi
	for t in $order; do
		run $t "$@" >>"$tmp/t$t" || exit 1
	done
	cmp -s "$tmp/out1.txt" "$tmp/out2.txt" ||
		{ echo "check_threads.sh: the reports of one and two threads differ" >&2; exit 1; }
	a=$(tail -n 1 "$tmp/t1"); b=$(tail -n 1 "$tmp/t2")
	echo "round $r: one thread $a s, two threads $b s, ratio $(echo "$a $b" | awk '{ printf "%.2f", $1 / $2 }')"
	r=$((r + 1))
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
m1=$(median "$tmp/t1"); m2=$(median "$tmp/t2")
echo "medians over $rounds rounds: one thread $m1 s, two threads $m2 s, ratio $(echo "$m1 $m2" | awk '{ printf "%.2f", $1 / $2 }')"
