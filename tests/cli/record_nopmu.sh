#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_nopmu.sh: on a machine without a hardware PMU, asking for
# a hardware event says so in one sentence (exit 2), whether the name is
# perf's, a vendor's, libpfm4's or raw; `--pmu` blames the PMU it names.
# Skipped where a PMU exists.
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
# --pmu names a PMU this machine lacks: the PMU is blamed, not the machine's
# counters, and the way to see its encodings is given
err=$(env -u LIBPFM_ENCODE_INACTIVE "$CP" record --dry-run --pmu hsw -e page-faults 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$err" = "counterpoint record: PMU 'hsw' is not on this machine (it has no hardware PMU: virtual machine?); LIBPFM_ENCODE_INACTIVE=1 with --dry-run shows its encodings" ] || {
	echo "--pmu hsw: status $rc, stderr: $err"; exit 1; }
# a model's counters: the first name's reason, not an alias's
err=$("$CP" record --model models/haswell/mmu.udd -o /dev/null -- true 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$err" = "counterpoint record: models/haswell/mmu.udd: counter 'load.causes_walk': cannot record 'DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK': $msg" ] || {
	echo "--model: status $rc, stderr: $err"; exit 1; }
# and `events` says it too
"$CP" events page-faults 2>&1 >/dev/null | grep -q "$msg" || { echo "events gives no note"; exit 1; }
exit 0
