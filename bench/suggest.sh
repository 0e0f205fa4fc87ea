#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/suggest.sh [RUNS]: the CPU time of `counterpoint suggest` on the
# bundled all-features sweep with the baseline model (E = 2, N = 2, one
# thread), the case the speed target names (docs/manual/suggest.md).  Prints
# each run's user + system seconds of the process and its -v line (how
# many candidates were priced, sets checked, suggestions proven), then
# the smallest.  Run from the repository root.
CP=${CP:-bin/counterpoint}
runs=${1:-3}
best=
i=0
while [ $i -lt "$runs" ]; do
	out=$( { /usr/bin/time -f 'cpu %U %S' "$CP" suggest models/haswell/mmu.udd \
		datasets/sim-sweep-all.csv --max-edits 2 --max-new 2 --threads 1 -v \
		> /dev/null; } 2>&1 )
	cpu=$(printf '%s\n' "$out" | awk '/^cpu /{ printf "%.2f", $2 + $3 }')
	printf '%s\n' "$out" | grep 'priced'
	echo "run $((i + 1)): $cpu s CPU"
	if [ -z "$best" ] || [ "$(echo "$cpu < $best" | bc)" = 1 ]; then best=$cpu; fi
	i=$((i + 1))
done
echo "smallest: $best s CPU"
