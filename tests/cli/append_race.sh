#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/append_race.sh: appends to one dataset at the same time lose
# nothing: two `import perf --append` each add their observation (the
# second reads what the first renamed in), two `record --append` onto a
# new file write one header.  Each race is run several times (it lost
# data in about half the runs).
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "append_race.sh: $*"; exit 1; }
stat=tests/data/perf/sw.csv
round=0
while [ $round -lt 8 ]; do
	round=$((round + 1))
	"$CP" import perf "$stat" --observation base -o "$tmp/base.csv" || fail "import"
	"$CP" import perf "$stat" --observation a --append -o "$tmp/base.csv" & a=$!
	"$CP" import perf "$stat" --observation b --append -o "$tmp/base.csv" & b=$!
	wait $a || fail "round $round: the first append failed"
	wait $b || fail "round $round: the second append failed"
	obs=$(cut -d, -f1 "$tmp/base.csv" | sort -u | tr '\n' ' ')
	[ "$obs" = "a b base observation " ] || fail "round $round: observations $obs"
done

if "$CP" record -u -e page-faults -o "$tmp/probe.csv" -- true 2>/dev/null; then
	round=0
	while [ $round -lt 6 ]; do
		round=$((round + 1))
		rm -f "$tmp/r.csv"
		"$CP" record -u -e page-faults --observation x --append -o "$tmp/r.csv" -- true 2>/dev/null & a=$!
		"$CP" record -u -e page-faults --observation y --append -o "$tmp/r.csv" -- true 2>/dev/null & b=$!
		wait $a || fail "round $round: the first record failed"
		wait $b || fail "round $round: the second record failed"
		[ "$(grep -c '^observation,' "$tmp/r.csv")" = 1 ] ||
			fail "round $round: $(grep -c '^observation,' "$tmp/r.csv") headers"
		obs=$(cut -d, -f1 "$tmp/r.csv" | sort -u | tr '\n' ' ')
		[ "$obs" = "observation x y " ] || fail "round $round: observations $obs"
	done
else
	echo "record cannot count here: its race is not run"
fi
exit 0
