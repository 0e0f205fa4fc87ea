#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_signal.sh: SIGTERM sent to the recorder is passed on to
# the command; the recorder writes the last interval, reports the signal
# and exits with the command's status, 128 + 15, leaving a valid dataset.
CP=${CP:-bin/counterpoint}
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
"$CP" record -u -I 10 -e page-faults,context-switches -o "$out/d.csv" -- \
	sh -c 'while :; do :; done' 2>"$out/err" &
rec=$!
# wait until some intervals are on disk, then stop the recorder
i=0
while [ "$(cat "$out/d.csv" 2>/dev/null | wc -l)" -lt 7 ] && [ $i -lt 200 ]; do
	sleep 0.05; i=$((i + 1))
done
kill -TERM $rec
wait $rec; rc=$?
[ "$rc" = 143 ] || { echo "status $rc"; cat "$out/err"; exit 1; }
grep -q "^counterpoint record: 'sh' was killed by signal 15 (Terminated); [0-9]* intervals written$" "$out/err" ||
	{ cat "$out/err"; exit 1; }
awk -F, 'NR == 1 && $0 != "observation,interval,event,value,enabled_ns,running_ns" { exit 1 }
	NR > 1 && NF != 6 { exit 1 } END { if (NR < 7 || (NR - 1) % 2) exit 1 }' "$out/d.csv" ||
	{ echo "bad dataset"; cat "$out/d.csv"; exit 1; }
exit 0
