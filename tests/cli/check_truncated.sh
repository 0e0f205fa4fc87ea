#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/check_truncated.sh: a dataset cut short by another program
# while `check` reads it in parts gives an error that says so (exit 2),
# never a signal (the parts were once mapped: a page past the new end
# killed the process with SIGBUS) and never a verdict on what is left.
# The file is cut at several moments of the run; one that falls before
# the check opens it or after it has ended is no test, so at least one
# must fall within it.
CP=${CP:-bin/counterpoint}
fail() { echo "check_truncated.sh: $*"; exit 1; }
M=$PWD/models/haswell/mmu.udd
T=$PWD/datasets/sim-sweep-all.csv
case $CP in /*) ;; *) CP=$PWD/$CP ;; esac
tmp=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
awk -F, 'NR == 1 && FNR == 1 { print; next } FNR > 1 { $1 = "c" c "-" $1; print }
	FNR == 1 { c++ }' OFS=, "$T" "$T" "$T" "$T" "$T" "$T" "$T" "$T" >"$tmp/src.csv" ||
	fail "making the data"
hit=0
for d in 0.02 0.05 0.1 0.2 0.4 0.8; do
	cp "$tmp/src.csv" "$tmp/d.csv"
	COUNTERPOINT_PART_BYTES=1000000 "$CP" check "$M" "$tmp/d.csv" --threads 1 \
		-o "$tmp/out" 2>"$tmp/err" &
	pid=$!
	sleep $d
	: >"$tmp/d.csv"
	wait $pid; rc=$?
	[ $rc -lt 128 ] || fail "cut at ${d}s: killed by signal $((rc - 128))"
	case $rc in
	0|1) ;;
	2) if grep -q "cannot read '.*d.csv'.*: it is shorter than when it was opened (another program changed it)" "$tmp/err"; then
		hit=1
	   else   # cut before the check opened it: an empty file
		grep -q "d.csv:1: empty file (no header)" "$tmp/err" ||
			fail "cut at ${d}s: $(head -c 300 "$tmp/err")"
	   fi ;;
	*) fail "cut at ${d}s: exit $rc: $(head -c 300 "$tmp/err")" ;;
	esac
done
[ $hit = 1 ] || fail "every cut fell after the check ended: no test (a faster machine needs more data)"
exit 0
