#!/bin/sh
# tests/cli/record_nopmu.sh: on a machine without a hardware PMU, asking for
# a hardware event says so in one sentence (exit 2), whether the name is
# perf's, a vendor's, libpfm4's or raw.  Skipped where a PMU exists.
CP=${CP:-bin/counterpoint}
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	echo "this machine has a hardware PMU"; exit 77
fi
msg="this machine exposes no hardware counters (virtual machine?): only software events can be recorded"
for ev in instructions DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK DTLB_LOAD_MISSES:MISS_CAUSES_A_WALK r108; do
	err=$("$CP" record -u -e "page-faults,$ev" -o /dev/null -- true 2>&1 >/dev/null); rc=$?
	want="counterpoint record: cannot record '$ev': $msg"
	if [ "$rc" != 2 ] || [ "$err" != "$want" ]; then
		echo "event $ev: status $rc, stderr: $err"; exit 1
	fi
done
# the same through libpfm4's inactive-PMU encoding: encoded, then refused at open
err=$(LIBPFM_ENCODE_INACTIVE=1 "$CP" record -u -e 'hsw::DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK' -o /dev/null -- true 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$err" = "counterpoint record: cannot record 'hsw::DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK': $msg" ] || {
	echo "inactive hsw: status $rc, stderr: $err"; exit 1; }
# and `events` says it too
"$CP" events page-faults 2>&1 >/dev/null | grep -q "$msg" || { echo "events gives no note"; exit 1; }
exit 0
