#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/regions_evidence.sh: coverage and power of every region shape and
# covariance estimator on the simulator, over the settings docs/method/statistics.md
# §8 reports: k = 2, 5 and 26 counters, n = 10 .. 200 intervals, multiplexed
# (4 counters, the default) and not (28 counters: every event counted all the
# time), steady and phased workloads.  The machine has every feature on, so
# mmu.udd with every feature is the true model (coverage: how often it is
# refuted, at most 1% may be) and the baseline and each "every feature but
# one" model are wrong (power: how often each shape refutes them).
#
# Seeds are the repository's unused ones; each seed is one sweep (the
# default workloads, the awk trace and awk phased with table probes, every
# page mode: 24 steady and 12 phased observations), and the seeds of a
# setting are checked together.
#
#   sh bench/regions_evidence.sh [OUT_DIR]
#   NS="10 50" MUX="4 28" SEEDS="31001 31002" K="2a 5 26" sh bench/regions_evidence.sh
#
# Prints one row per setting x counter set:
#   obs      usable observations (steady+phased)
#   true     observations refuting the true model (independent/PCA/ellipsoid),
#            with the automatic covariance, plain intervals, 5 batch means
#   wrong    refutations of the 11 wrong models, all observations (ind/PCA/ell),
#            automatic covariance
#   phased   the same, phased observations only
#   rows     (data, wrong model) rows, each a seed's sweep and one wrong
#            model: those where the PCA box refutes fewer observations
#            than the independent box, by more than one / at all / total,
#            and the largest shortfall
# Every figure is a count of observations ("INFEASIBLE" verdicts); nothing
# is estimated.  Takes about an hour of CPU with the defaults.
CP=${CP:-bin/counterpoint}
MODEL=models/haswell/mmu.udd
out=${1:-$(mktemp -d)}
NS=${NS:-10 20 50 100 200}
MUX=${MUX:-4 28}
SEEDS=${SEEDS:-31001 31002 31003 31004}
K=${K:-2a 2b 5 26}
EST=${EST:-auto none 5}
mkdir -p "$out"
echo "command: NS=\"$NS\" MUX=\"$MUX\" SEEDS=\"$SEEDS\" K=\"$K\" EST=\"$EST\" sh bench/regions_evidence.sh $out"

all=$(grep '^feature ' $MODEL | awk '{print $2}' | tr '\n' ',' | sed 's/,$//')
# the counter sets: 2a holds a constraint the data sit on (walk_done =
# walk_done_4k on 4K pages), 2b one that wrong models break
# (retired_stlb_miss <= causes_walk without merge), 5 both kinds, 26 all
counters() {
	case $1 in
	2a) echo "--counters load.walk_done,load.walk_done_4k" ;;
	2b) echo "--counters load.retired_stlb_miss,load.causes_walk" ;;
	5) echo "--counters load.walk_done,load.walk_done_4k,load.walk_done_2m,load.causes_walk,load.retired_stlb_miss" ;;
	26) echo "" ;;
	esac
}
batches() {
	case $1 in
	auto) echo "--batches auto" ;;
	none) echo "--batches none" ;;
	*) echo "--batches $1" ;;
	esac
}
# infeasible observations: all, and phased only ($1 = check's text output)
count() {
	printf '%s %s' "$(grep -c ': INFEASIBLE' "$1")" \
		"$(grep -c '^s[0-9]*-phases-.*: INFEASIBLE' "$1")"
}

printf '%-6s %4s %-3s %7s  %-26s %-14s %-14s %s\n' counters n k obs \
	"true: auto none batches5" "wrong (auto)" "phased (auto)" "rows: >1/any/all max"
for mux in $MUX; do
	for n in $NS; do
		data="$out/mux$mux-n$n.csv"
		if [ ! -s "$data" ]; then
			first=1
			rm -f "$data.tmp"
			for seed in $SEEDS; do
				"$CP" sim --sweep --workload trace:datasets/awk.lackey.xz \
					--workload 'phases:mean=300k;trace:datasets/awk.lackey.xz;random:footprint=1G,stores=0.2,run=4' \
					--features all --seed "$seed" --intervals "$n" \
					--counters "$mux" -o "$out/one.csv" || exit 1
				# observation names carry their seed
				awk -v s="s$seed-" -v f="$first" 'NR == 1 { if (f) print; next } { print s $0 }' \
					"$out/one.csv" >>"$data.tmp"
				first=0
			done
			mv "$data.tmp" "$data"
			rm -f "$out/one.csv"
		fi
		for k in $K; do
			tr=""; wr=""; ph=""
			: >"$out/rows.txt"
			for est in $EST; do
				[ "$est" != auto ] && [ "$est" != none ] && [ "$est" -gt "$n" ] && { tr="$tr -"; continue; }
				t=""
				for shape in independent pca ellipsoid; do
					"$CP" check $MODEL "$data" --with "$all" --region $shape \
						$(counters $k) $(batches $est) >"$out/r.txt" 2>/dev/null
					set -- $(count "$out/r.txt")
					t="$t/$1"
					[ "$est" = auto ] || continue
					usable=$(grep -c ': \(feasible\|INFEASIBLE\)' "$out/r.txt")
					uph=$(grep -c '^s[0-9]*-phases-.*: \(feasible\|INFEASIBLE\)' "$out/r.txt")
					wa=0; wp=0
					for f in "" $(echo "$all" | tr ',' ' '); do
						if [ -z "$f" ]; then with=""; else
							with=$(echo "$all" | tr ',' '\n' | grep -vx "$f" | tr '\n' ',' | sed 's/,$//')
						fi
						"$CP" check $MODEL "$data" --with "$with" --region $shape \
							$(counters $k) $(batches $est) >"$out/w.txt" 2>/dev/null
						set -- $(count "$out/w.txt")
						wa=$((wa + $1)); wp=$((wp + $2))
						# per seed's sweep: this wrong model's refutations
						for seed in $SEEDS; do
							printf '%s %s %s %s\n' "$shape" "${f:-baseline}" "$seed" \
								"$(grep -c "^s$seed-.*: INFEASIBLE" "$out/w.txt")"
						done >>"$out/rows.txt"
					done
					wr="$wr/$wa"; ph="$ph/$wp"
				done
				tr="$tr ${t#/}"
			done
			rows=$(awk '{ c[$1, $2, $3] = $4; r[$2, $3] = 1 }
				END { for (x in r) { d = c["pca", x] - c["independent", x]; n++
					if (d < -1) big++; if (d < 0) any++; if (d < worst) worst = d }
					printf "%d/%d/%d %d", big, any, n, worst }' "$out/rows.txt")
			printf '%-6s %4s %-3s %7s  %-26s %-14s %-14s %s\n' "mux$mux" "$n" "$k" \
				"$((usable - uph))+$uph" "${tr# }" "${wr#/}" "${ph#/}" "$rows"
		done
	done
done
