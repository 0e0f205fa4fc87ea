#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# datasets/linux/record.sh: the exact commands that recorded
# datasets/linux/faults.csv: seven real programs, each one observation,
# under `counterpoint record` with the events models/linux/faults.udd
# declares (page-faults, minor-faults, major-faults, read as one group)
# every 10 ms.  Run from the repository root after `make`; as root or with
# perf_event_paranoid <= 1 (otherwise add --user-only).
set -e
CP=${CP:-bin/counterpoint}
OUT=${1:-datasets/linux/faults.csv}
rec() {  # $1 = observation, rest = command
	obs=$1; shift
	"$CP" record --model models/linux/faults.udd -I 10 --observation "$obs" \
		--append -o "$OUT" -- "$@" >/dev/null
}
rm -f "$OUT"
rec cc-O2-event.c          cc -O2 -I. -c hw/event.c -o /dev/null
rec sort-4M-numbers       sh -c 'seq 1 4000000 | sort -rn'
rec xz-4MB                sh -c 'cat /usr/bin/* 2>/dev/null | head -c 4000000 | xz -6 -T1'
rec linear-256M           "$CP" bench-workload linear --footprint 256M
rec random-64M-stores     "$CP" bench-workload random --footprint 64M --store-ratio 0.5
rec coldmap-16M           python3 datasets/linux/coldmap.py 16 2
rec python-bytes-512M     python3 -c "b = b'x' * (1 << 29)"
