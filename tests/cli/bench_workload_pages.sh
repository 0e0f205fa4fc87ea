#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/bench_workload_pages.sh: 2M and 1G pages run where the system
# has them reserved and fail with an explicit reason (exit 2) where not.
CP=${CP:-bin/counterpoint}
hp=/sys/kernel/mm/hugepages
# 2M: 4 pages needed for 8M
if [ -d $hp/hugepages-2048kB ]; then
	free=$(cat $hp/hugepages-2048kB/free_hugepages)
	total=$(cat $hp/hugepages-2048kB/nr_hugepages)
	err=$("$CP" bench-workload linear --pages 2m --footprint 8M --accesses 1000 -q 2>&1); rc=$?
	if [ "$free" -ge 4 ]; then
		[ "$rc" = 0 ] || { echo "2m with $free free: status $rc: $err"; exit 1; }
	else
		want="counterpoint bench-workload: cannot map 8388608 bytes with 2M pages: $free of $total reserved 2M pages are free and 4 are needed (as root: echo 4 > $hp/hugepages-2048kB/nr_hugepages)"
		[ "$rc" = 2 ] && [ "$err" = "$want" ] || { echo "2m: status $rc: $err"; exit 1; }
	fi
fi
if [ ! -d $hp/hugepages-1048576kB ]; then
	err=$("$CP" bench-workload random --pages 1g --footprint 8M -q 2>&1); rc=$?
	want="counterpoint bench-workload: this system provides no 1G pages (no $hp/hugepages-1048576kB: the processor or the kernel lacks them)"
	[ "$rc" = 2 ] && [ "$err" = "$want" ] || { echo "1g: status $rc: $err"; exit 1; }
elif [ "$(cat $hp/hugepages-1048576kB/free_hugepages)" -lt 1 ]; then
	"$CP" bench-workload random --pages 1g --footprint 8M -q 2>/dev/null
	[ $? = 2 ] || { echo "1g without free pages did not fail"; exit 1; }
fi
exit 0
