#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_perm.sh: an unprivileged user under perf_event_paranoid
# >= 2 is told the setting and what to do; --user-only then works.  Runs
# the recorder as 'nobody' through setpriv; skipped when not root.
CP=${CP:-bin/counterpoint}
[ "$(id -u)" = 0 ] || { echo "needs root to switch to nobody"; exit 77; }
command -v setpriv >/dev/null || { echo "no setpriv"; exit 77; }
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
[ -n "$par" ] && [ "$par" -ge 2 ] || { echo "perf_event_paranoid is $par (< 2)"; exit 77; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
chmod 777 "$out"
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
asnobody "$CP" --version >/dev/null 2>&1 || { echo "nobody cannot run $CP"; exit 77; }
err=$(asnobody "$CP" record -e page-faults -o "$out/a.csv" -- true 2>&1); rc=$?
if [ "$par" -ge 3 ] && asnobody "$CP" record --user-only -e page-faults -o /dev/null -- true 2>/dev/null; then
	# upstream Linux treats 3 as 2: user space only still works
	want="counterpoint record: cannot open 'page-faults': permission denied (perf_event_paranoid is $par, and this kernel lets unprivileged users count user space only); record with --user-only, run as root, or as root run 'sysctl kernel.perf_event_paranoid=1'"
elif [ "$par" -ge 3 ]; then
	want="counterpoint record: cannot open 'page-faults': permission denied (perf_event_paranoid is $par: this kernel lets only privileged users count events); run as root, give the recorder CAP_PERFMON, or as root run 'sysctl kernel.perf_event_paranoid=2' and record with --user-only"
else
	want="counterpoint record: cannot open 'page-faults': permission denied (perf_event_paranoid is $par: unprivileged users may count user space only); record with --user-only, run as root, or as root run 'sysctl kernel.perf_event_paranoid=1'"
fi
[ "$rc" = 2 ] && [ "$err" = "$want" ] || { echo "status $rc, stderr: $err"; exit 1; }
[ -e "$out/a.csv" ] && { echo "a failed recording left $out/a.csv"; exit 1; }
if [ "$par" -eq 2 ]; then
	asnobody "$CP" record --user-only -e page-faults -o "$out/b.csv" -- true || { echo "--user-only failed"; exit 1; }
	head -n 1 "$out/b.csv" | grep -q '^observation,interval,event,value,enabled_ns,running_ns$' || exit 1
fi
exit 0
