#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/claims_coverage.sh: how often the true model is refuted, per type
# of observation and over whole sweeps, on simulator sweeps with seeds the
# repository does not use (44001 on).  The evidence of docs/method/statistics.md
# §10: every cell of the per-observation table (workload kind x page mode
# x multiplexed or not) at most 1% at 99% each, and the model's
# family-wise false refutation ("model as a whole: REFUTED" at 99% over
# the sweep) in at most 1% of sweeps.
#
# Each sweep is `sim --sweep` (the default workloads: two linear 32M
# streams, a linear 8G stride-4K stream, random 1G and 16G, two phased
# programs) plus one more workload, on every page mode, with a feature
# set; the sweep's true model is mmu.udd with those features.  Feature
# sets and extra workloads rotate with the seed.
#
#   sh bench/claims_coverage.sh [OUT_DIR]
#   SWEEPS=25 NS="50 20 10" MUX="4 28" SEED0=44001 sh bench/claims_coverage.sh DIR
#
# Sweeps are kept in OUT_DIR and reused; verdicts go to OUT_DIR/obs.tsv
# (n, mux, seed, shape, observation, verdict) and OUT_DIR/sweeps.tsv
# (n, mux, seed, shape, infeasible observations, observations, refuted
# over all).  Prints the tables and the time taken.
CP=${CP:-bin/counterpoint}
MODEL=models/haswell/mmu.udd
out=${1:-$(mktemp -d)}
SWEEPS=${SWEEPS:-25}
NS=${NS:-50 20 10}
MUX=${MUX:-4 28}
SEED0=${SEED0:-44001}
SHAPES=${SHAPES:-pca independent ellipsoid}
mkdir -p "$out"
start=$(date +%s)
echo "command: SWEEPS=$SWEEPS NS=\"$NS\" MUX=\"$MUX\" SEED0=$SEED0 SHAPES=\"$SHAPES\" sh bench/claims_coverage.sh $out"
all=prefetch,prefetch_dtlb_miss,prefetch_stlb_miss,prefetch_stores,merge,pde_early,pml4_cache,abort,bypass,replay
config() {   # $1 = sweep number: the simulator's features
	case $(($1 % 6)) in
	0) echo "$all" ;;
	1) echo prefetch,merge,abort ;;
	2) echo merge,pde_early,bypass,replay ;;
	3) echo pml4_cache,bypass ;;
	4) echo prefetch,prefetch_stlb_miss,prefetch_stores,merge,bypass ;;
	5) echo abort,replay ;;
	esac
}
extra() {    # $1 = sweep number: one more workload
	case $(($1 % 4)) in
	0) echo 'random:footprint=20G,stores=0.35,run=3' ;;
	1) echo 'linear:footprint=256M,stride=128,dir=down,stores=0.4' ;;
	2) echo 'random:footprint=4G,stores=0.1' ;;
	3) echo 'phases:mean=300k;linear:footprint=64M,stride=64,dir=up,stores=0.2;random:footprint=2G,stores=0.3,run=4' ;;
	esac
}
: >"$out/obs.tsv"
: >"$out/sweeps.tsv"
for n in $NS; do
	for mux in $MUX; do
		i=0
		while [ $i -lt "$SWEEPS" ]; do
			seed=$((SEED0 + i))
			cfg=$(config $i)
			d="$out/n$n-mux$mux-s$seed.csv"
			if [ ! -s "$d" ]; then
				"$CP" sim --sweep --workload "$(extra $i)" --features "$cfg" \
					--seed "$seed" --intervals "$n" --counters "$mux" \
					-o "$d" 2>/dev/null || { echo "sim failed: seed $seed"; exit 1; }
			fi
			for shape in $SHAPES; do
				"$CP" check $MODEL "$d" --with "$cfg" --region $shape \
					>"$out/r.txt" 2>/dev/null
				awk -v n="$n" -v m="$mux" -v s="$seed" -v sh="$shape" \
					'/: (feasible|INFEASIBLE)/ {
						name = $0; sub(/: (feasible|INFEASIBLE).*/, "", name)
						v = ($0 ~ /: INFEASIBLE/) ? 1 : 0
						printf "%s\t%s\t%s\t%s\t%s\t%d\n", n, m, s, sh, name, v
					}' "$out/r.txt" >>"$out/obs.tsv"
				inf=$(grep -c ': INFEASIBLE' "$out/r.txt")
				tot=$(grep -c ': \(feasible\|INFEASIBLE\)' "$out/r.txt")
				fam=0; grep -q '^model as a whole: REFUTED' "$out/r.txt" && fam=1
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$mux" "$seed" "$shape" \
					"$inf" "$tot" "$fam" >>"$out/sweeps.tsv"
			done
			i=$((i + 1))
		done
	done
done
rm -f "$out/r.txt"
# per observation type: kind (text before the first '-'), page mode (after
# the last '-'), multiplexed (4 counters) or not
echo
echo "true model refuted at 99% each, per observation type (refuted/instances):"
awk -F'\t' '{
	kind = $5; sub(/-.*/, "", kind); pages = $5; sub(/.*-/, "", pages)
	key = $1 "\t" ($2 == 4 ? "multiplexed" : "not") "\t" kind "\t" pages
	cnt[key, $4]++; ref[key, $4] += $6; keys[key] = 1; shapes[$4] = 1
} END {
	printf "%-4s %-12s %-7s %-5s", "n", "multiplexed", "kind", "pages"
	for (s in shapes) printf " %18s", s
	printf "\n"
	for (k in keys) {
		split(k, f, "\t")
		printf "%-4s %-12s %-7s %-5s", f[1], f[2], f[3], f[4]
		for (s in shapes)
			printf " %9d/%-4d%4.1f%%", ref[k, s], cnt[k, s],
				cnt[k, s] ? 100 * ref[k, s] / cnt[k, s] : 0
		printf "\n"
	}
}' "$out/obs.tsv" | { read -r h; echo "$h"; sort -k1,1n -k2,2 -k3,3 -k4,4; }
echo
echo "whole sweeps: refuted at 99% over all the sweep's observations (family-wise), and by some observation at 99% each:"
awk -F'\t' '{
	key = $1 "\t" ($2 == 4 ? "multiplexed" : "not") "\t" $4
	n[key]++; fam[key] += $7; each[key] += ($5 > 0); obs[key] += $6; keys[key] = 1
} END {
	printf "%-4s %-12s %-12s %8s %18s %18s\n", "n", "multiplexed", "shape",
		"sweeps", "family-wise", "some obs. at 99%"
	for (k in keys) {
		split(k, f, "\t")
		printf "%-4s %-12s %-12s %8d %12d %4.1f%% %12d %4.1f%%\n", f[1], f[2], f[3],
			n[k], fam[k], 100 * fam[k] / n[k], each[k], 100 * each[k] / n[k]
	}
}' "$out/sweeps.tsv" | { read -r h; echo "$h"; sort -k1,1n -k2,2 -k3,3; }
echo
echo "took $(( $(date +%s) - start )) s"
