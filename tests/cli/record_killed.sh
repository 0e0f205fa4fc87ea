#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_killed.sh: a workload killed halfway leaves a valid
# dataset up to its last interval, and its signal is reported (exit
# 128 + 9, as a shell reports it).
CP=${CP:-bin/counterpoint}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$CP" record -u -I 10 -e page-faults,minor-faults,context-switches -o "$out/d.csv" -- \
	sh -c 'i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; kill -KILL $$' 2>"$out/err"; rc=$?
[ "$rc" = 137 ] || { echo "status $rc"; cat "$out/err"; exit 1; }
grep -q "^counterpoint record: 'sh' was killed by signal 9 (Killed); [0-9]* intervals\? written$" "$out/err" || { cat "$out/err"; exit 1; }
head -n 1 "$out/d.csv" | grep -q '^observation,interval,event,value,enabled_ns,running_ns$' || exit 1
# every row complete, three rows per interval, intervals numbered 0, 1, ...
awk -F, 'NR > 1 {
	if (NF != 6 || $1 != "sh") bad = 1
	if ($6 > $5) bad = 1
	n[$2]++
	if ($2 + 0 > max) max = $2 + 0
	rows++
}
END {
	for (i = 0; i <= max; i++) if (n[i] != 3) bad = 1
	if (rows < 6 || bad) { print "bad dataset: " rows " rows"; exit 1 }
}' "$out/d.csv" || { cat "$out/d.csv"; exit 1; }
exit 0
