#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/sim-m0.sh: the simulator's baseline (no features) obeys the
# conventional model m0 of docs/processors/haswell.md in every interval of every sweep
# observation, counted without multiplexing: walks started = completed,
# retired STLB-missing μops <= completed walks, PDE misses <= walks,
# completed walks <= walker references <= 4 x completed walks.
# With every feature on, some of those relations fail (as they should).
set -e
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
$CP sim --sweep --intervals 4 --interval-uops 20000 --warmup 20000 \
	--counters 28 -o "$d/m0.csv"
$CP sim --sweep --features all --intervals 4 --interval-uops 20000 \
	--warmup 20000 --counters 28 -o "$d/all.csv"
check='
BEGIN { FS = "," }
NR > 1 {
	k = $1 "," $2; v[k, $3] = $4; keys[k] = 1
	if ($5 != $6) { print "multiplexed row: " $0; bad++ }
}
END {
	for (k in keys) {
		for (c = 0; c < 2; c++) {
			p = c ? "DTLB_STORE_MISSES." : "DTLB_LOAD_MISSES."
			r = c ? "MEM_UOPS_RETIRED.STLB_MISS_STORES" : "MEM_UOPS_RETIRED.STLB_MISS_LOADS"
			cw = v[k, p "MISS_CAUSES_A_WALK"]; wd = v[k, p "WALK_COMPLETED"]
			if (cw != wd) { print k ": " p " walks started " cw " != completed " wd; viol++ }
			if (v[k, r] > wd) { print k ": " r " " v[k, r] " > walks " wd; viol++ }
			if (v[k, p "PDE_CACHE_MISS"] > cw) { print k ": pde misses > walks"; viol++ }
			if (wd != v[k, p "WALK_COMPLETED_4K"] + v[k, p "WALK_COMPLETED_2M_4M"] + v[k, p "WALK_COMPLETED_1G"]) { print k ": sizes"; viol++ }
			walks += wd
		}
		refs = v[k, "PAGE_WALKER_LOADS.DTLB_L1"] + v[k, "PAGE_WALKER_LOADS.DTLB_L2"] + v[k, "PAGE_WALKER_LOADS.DTLB_L3"] + v[k, "PAGE_WALKER_LOADS.DTLB_MEMORY"]
		w = v[k, "DTLB_LOAD_MISSES.WALK_COMPLETED"] + v[k, "DTLB_STORE_MISSES.WALK_COMPLETED"]
		if (refs < w || refs > 4 * w) { print k ": refs " refs " walks " w; viol++ }
		n++
	}
	printf "%d intervals, %d violations, %d walks\n", n, viol + 0, walks
	exit bad ? 2 : (viol ? 1 : 0)
}'
awk "$check" "$d/m0.csv" || { echo "baseline violates m0"; exit 1; }
if awk "$check" "$d/all.csv" >"$d/all.out"; then
	echo "all features: no m0 violation found"; exit 1
fi
tail -n 1 "$d/all.out"
