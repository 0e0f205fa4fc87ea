#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/sim-identical.sh: does a changed simulator still simulate the same
# machine?  Runs `counterpoint sim` with a reference binary and a new one
# over every workload kind, page mode and a set of feature sets and machine
# parameters, with --truth, plus sweeps, and compares the dataset and truth
# files byte for byte.  The reference's outputs are kept (keyed by its
# checksum) so repeated checks run the new binary only.
# usage: bench/sim-identical.sh BASE_BINARY NEW_BINARY [JOBS (default 2)]
# Run from the repository root (the trace workload reads datasets/).
# Exit 0 when every output is identical, 1 otherwise.
base=${1:?usage: $0 BASE NEW [JOBS]}
new=${2:?usage: $0 BASE NEW [JOBS]}
jobs=${3:-2}
LC_ALL=C; export LC_ALL
sum=$(cksum <"$base" | cut -d' ' -f1)
ref=${TMPDIR:-/tmp}/sim-identical-ref-$sum
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
list="$out/list"

wl_linear_up="linear:footprint=32M,stride=64,dir=up,stores=0.2"
wl_linear_down="linear:footprint=32M,stride=64,dir=down,stores=0.2"
wl_linear_big="linear:footprint=8G,stride=4K,dir=up,stores=0.1"
wl_random="random:footprint=1G,stores=0.2"
wl_random_big="random:footprint=16G,stores=0.2"
wl_random_run="random:footprint=1G,stores=0.2,run=4"
wl_trace="trace:datasets/awk.lackey.xz"
wl_phases="phases:mean=30k;linear:footprint=32M,stride=64,dir=up,stores=0.2;random:footprint=1G,stores=0.2,run=4;linear:footprint=8G,stride=4K,dir=up,stores=0.1"
wl_phases2="phases:mean=20k;linear:footprint=8G,stride=4K,dir=up,stores=0.1;random:footprint=16G,stores=0.2"

# One case per line: NAME|ARGUMENTS (word-split by the shell; no spaces
# inside an argument).
n=0
add() { n=$((n + 1)); echo "c$n|$*" >>"$list"; }
short="--intervals 4 --interval-uops 25000 --warmup 100000"
for wl in "$wl_linear_up" "$wl_linear_down" "$wl_linear_big" "$wl_random" \
	  "$wl_random_big" "$wl_random_run" "$wl_trace" "$wl_phases" "$wl_phases2"; do
	for pages in 4k 2m 1g mix; do
		for f in none all merge abort replay bypass prefetch \
			 prefetch,prefetch_dtlb_miss prefetch,prefetch_stlb_miss \
			 prefetch,prefetch_stores pml4_cache pde_early merge,abort \
			 merge,pde_early,abort prefetch,abort,merge replay,merge \
			 all; do
			add "--workload $wl --pages $pages --features $f $short"
		done
	done
	# longer runs: page aging (2 ms) and steady state
	add "--workload $wl --pages 4k --features all --intervals 10 --interval-uops 100000"
	add "--workload $wl --pages mix --features none --intervals 10 --interval-uops 100000"
	# machine parameters off the defaults: other shapes of every
	# structure, more walkers, aging often enough that the epochs wrap
	add "--workload $wl --pages mix --features all $short --set walkers=4 --set l1_ways=4 --set l2_ways=16 --set l3_ways=8 --set stlb_ways=4 --set dtlb_4k_ways=2 --set pde_ways=8 --set pde_entries=64"
	add "--workload $wl --pages 4k --features all $short --set walkers=1 --set abort_after_refs=1 --set spec_share=0.5 --set abit_clear_ns=3"
	add "--workload $wl --pages 2m --features all $short --set abit_clear_ns=1 --set bypass_cycles=1000 --set window=16 --counters 28"
	add "--workload $wl --pages 1g --features all $short --set dtlb_1g_ways=1 --set stlb_ways=16 --set l1_ways=16 --set l2_ways=4 --set pml4_ways=1 --set pml4_entries=4 --seed 7"
	add "--workload $wl --pages mix --features merge,replay,abort $short --set mix_2m_share=0.9 --set walkers=3 --set l3_ways=12 --set l3_bytes=6291456 --seed 3"
done
add "--sweep --intervals 3 --interval-uops 20000 --features all"
add "--sweep --intervals 3 --interval-uops 20000 --features none"
add "--sweep --intervals 3 --interval-uops 20000 --features merge,abort,pde_early"
add "--sweep --intervals 3 --interval-uops 20000 --features prefetch,replay,bypass,pml4_cache --seed 5"

# One case: $1 = binary, $2 = output folder, $3 = the case line.
cat >"$out/run1" <<'EOF1'
name=${3%%|*}; args=${3#*|}
"$1" sim $args -o "$2/$name.csv" --truth "$2/$name.truth" \
	>"$2/$name.out" 2>&1 || echo "exit $?" >>"$2/$name.out"
EOF1
runall() {  # $1 = binary, $2 = output folder
	mkdir -p "$2"
	tr '\n' '\0' <"$list" | xargs -0 -P "$jobs" -n 1 sh "$out/run1" "$1" "$2"
}

if [ ! -f "$ref/done" ] || ! cmp -s "$list" "$ref/list"; then
	rm -rf "$ref"
	echo "reference outputs of $base -> $ref"
	runall "$base" "$ref"
	cp "$list" "$ref/list"
	touch "$ref/done"
fi
runall "$new" "$out/new"
bad=0
while IFS= read -r line; do
	name=${line%%|*}
	for ext in csv truth out; do
		if ! cmp -s "$ref/$name.$ext" "$out/new/$name.$ext"; then
			echo "DIFFERS: $name.$ext: sim ${line#*|}"
			bad=$((bad + 1))
		fi
	done
done <"$list"
total=$(wc -l <"$list")
if [ "$bad" -gt 0 ]; then
	echo "$bad outputs differ ($total cases)"
	exit 1
fi
echo "identical: $total cases (datasets, truth files, messages)"
exit 0
