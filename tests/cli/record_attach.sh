#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_attach.sh: record attaches as perf stat does, with the
# kernel's software events (no PMU needed).  -p PID counts a running
# process until it exits, or until SIGINT, which leaves it running; -a
# and -C count whole CPUs while a command runs (root, or
# perf_event_paranoid <= 0; skipped otherwise), and an unprivileged user
# is told perf's rules (as 'nobody', through setpriv, when root).
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d)
busy=; sleeper=
cleanup() {
	[ -n "$busy" ] && kill "$busy" 2>/dev/null
	[ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "record_attach.sh: $*"; exit 1; }
header=observation,interval,event,value,enabled_ns,running_ns

# -p: until the process exits (once the recording has intervals); its
# threads' counts, under pid-PID
sh -c "while [ ! -e '$tmp/stop' ]; do :; done" &
busy=$!
"$CP" record -p "$busy" -I 20 -e task-clock,context-switches -o "$tmp/p.csv" \
	2>"$tmp/err" &
rec=$!
i=0
while [ "$(cat "$tmp/p.csv" 2>/dev/null | wc -l)" -lt 5 ] && [ $i -lt 400 ]; do
	sleep 0.05; i=$((i + 1))
done
: >"$tmp/stop"
wait "$rec"; rc=$?
busy=
[ "$rc" = 0 ] || { cat "$tmp/err"; fail "-p: exit $rc"; }
[ "$(head -n 1 "$tmp/p.csv")" = "$header" ] || fail "-p: no header"
awk -F, -v obs="pid-" 'NR > 1 {
	if (NF != 6 || index($1, obs) != 1) bad = 1
	if ($3 == "task-clock") clock += $4
}
END { if (bad || clock <= 0) exit 1 }' "$tmp/p.csv" ||
	{ cat "$tmp/p.csv"; fail "-p: bad dataset"; }

# -p: SIGINT ends the recording; the process keeps running
sh -c 'while :; do sleep 0.01; done' &
sleeper=$!
"$CP" record -p "$sleeper" -I 10 -e context-switches -o "$tmp/i.csv" 2>"$tmp/err" &
rec=$!
# rows come once the counters run (the handlers are set by then)
i=0
while [ ! -s "$tmp/i.csv" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
kill -INT "$rec"
wait "$rec"; rc=$?
[ "$rc" = 0 ] || { cat "$tmp/err"; fail "-p then SIGINT: exit $rc"; }
kill -0 "$sleeper" 2>/dev/null || fail "-p: the process attached to did not survive"
[ "$(head -n 1 "$tmp/i.csv")" = "$header" ] || fail "-p then SIGINT: no header"

# usage
"$CP" record -p 12x -e task-clock >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q "^counterpoint record: -p wants process ids (123,456), not '12x'; " "$tmp/err" ||
	{ cat "$tmp/err"; fail "-p 12x"; }
"$CP" record -a -C 0 -e task-clock -- true 2>"$tmp/err"
[ $? = 2 ] || fail "-a with -C should be refused"
"$CP" record -C 0-x -e task-clock -- true 2>"$tmp/err"
[ $? = 2 ] && grep -q "bad CPU list '0-x'" "$tmp/err" || { cat "$tmp/err"; fail "-C 0-x"; }

# -a, -C: whole CPUs while the command runs; the rows sum the CPUs
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if [ "$(id -u)" = 0 ] || [ "${par:-2}" -le 0 ]; then
	ncpu=$(getconf _NPROCESSORS_ONLN)
	"$CP" record -a -I 50 -e cpu-clock -o "$tmp/a.csv" -- sleep 0.3 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "-a: exit $?"; }
	# every CPU's clock runs all the time: enabled ~ CPUs x wall time
	awk -F, -v n="$ncpu" 'NR > 1 { en += $5; v += $4 }
		END { if (en < n * 0.25e9 || en > n * 2e9 || v <= 0) exit 1 }' "$tmp/a.csv" ||
		{ cat "$tmp/a.csv"; fail "-a: enabled time is not the CPUs' ($ncpu)"; }
	"$CP" record -C 0 -I 50 -e cpu-clock -o "$tmp/c.csv" -- sleep 0.2 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "-C 0: exit $?"; }
	awk -F, 'NR > 1 { en += $5 } END { if (en < 0.15e9 || en > 1e9) exit 1 }' "$tmp/c.csv" ||
		{ cat "$tmp/c.csv"; fail "-C 0: enabled time is not one CPU's"; }
else
	echo "not root and perf_event_paranoid is $par: -a and -C not run"
fi

# an unprivileged user is told the rules for CPUs and for others' processes
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && [ "${par:-0}" -ge 1 ]; then
	asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
	chmod 755 "$tmp"
	if asnobody "$CP" --version >/dev/null 2>&1; then
		asnobody "$CP" record -a -e task-clock -o /dev/null -- true 2>"$tmp/err"
		[ $? = 2 ] && grep -q "^counterpoint record: cannot open 'task-clock' on CPU [0-9]*: permission denied (perf_event_paranoid is $par; counting a whole CPU (-a, -C) takes perf_event_paranoid -1 or 0 or CAP_PERFMON" "$tmp/err" ||
			{ cat "$tmp/err"; fail "-a as nobody"; }
		asnobody "$CP" record -u -p "$sleeper" -e task-clock -o /dev/null 2>"$tmp/err"
		[ $? = 2 ] && grep -q "^counterpoint record: cannot attach 'task-clock' to process $sleeper: permission denied" "$tmp/err" ||
			{ cat "$tmp/err"; fail "-p of root's process as nobody"; }
	fi
fi
exit 0
