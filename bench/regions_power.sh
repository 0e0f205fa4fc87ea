#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/regions_power.sh: how many observations each region shape refutes
# for wrong models, and for the true one, on a simulator sweep with a seed
# the repository's datasets do not use.  The machine has every feature;
# the wrong models are the baseline and "every feature but one".  Prints
# one row per model: infeasible observations with the independent box,
# the PCA box and the ellipsoid, and the PCA/independent ratio.
#
#   sh bench/regions_power.sh [SEED] [INTERVALS]      (default 9191 50)
CP=${CP:-bin/counterpoint}
MODEL=models/haswell/mmu.udd
seed=${1:-9191}; intervals=${2:-50}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "command: sh bench/regions_power.sh $seed $intervals"
$CP sim --sweep --workload trace:datasets/awk.lackey.xz \
	--workload 'phases:mean=300k;trace:datasets/awk.lackey.xz;random:footprint=1G,stores=0.2,run=4' \
	--features all --seed "$seed" --intervals "$intervals" -o "$tmp/s.csv" || exit 1
n=$(cut -d, -f1 "$tmp/s.csv" | tail -n +2 | sort -u | wc -l)
pairs=$($CP region "$tmp/s.csv" | awk '/pairs with correlation > 0.9:/ { split($6, a, " "); c += $6; t += $8 } END { if (t) printf "%d of %d (%.0f%%)", c, t, 100 * c / t }')
echo "sweep: $n observations x $intervals intervals, seed $seed; counter pairs correlated above 0.9: $pairs"
all=$(grep '^feature ' $MODEL | awk '{print $2}' | tr '\n' ' ')
printf '%-34s %12s %8s %10s %8s   %s\n' "model" "independent" "PCA" "ellipsoid" "PCA/ind" \
	"phased only (ind/PCA/ell)"
ti=0; tp=0; te=0; pi=0; pp=0; pe=0
row() {  # $1 = label, $2 = --with list
	for s in independent pca ellipsoid; do
		$CP check $MODEL "$tmp/s.csv" --with "$2" --region $s >"$tmp/$s.txt" 2>/dev/null
	done
	ind=$(grep -c ': INFEASIBLE' "$tmp/independent.txt")
	pca=$(grep -c ': INFEASIBLE' "$tmp/pca.txt")
	ell=$(grep -c ': INFEASIBLE' "$tmp/ellipsoid.txt")
	phi=$(grep -c '^phases-.*: INFEASIBLE' "$tmp/independent.txt")
	php=$(grep -c '^phases-.*: INFEASIBLE' "$tmp/pca.txt")
	phe=$(grep -c '^phases-.*: INFEASIBLE' "$tmp/ellipsoid.txt")
	ratio=$(awk -v a="$pca" -v b="$ind" 'BEGIN { if (b) printf "%.2f", a / b; else print (a ? "inf" : "-") }')
	printf '%-34s %12s %8s %10s %8s   %s/%s/%s\n' "$1" "$ind" "$pca" "$ell" "$ratio" "$phi" "$php" "$phe"
	if [ "$1" != "true model (all features)" ]; then
		ti=$((ti + ind)); tp=$((tp + pca)); te=$((te + ell))
		pi=$((pi + phi)); pp=$((pp + php)); pe=$((pe + phe))
	fi
}
row "true model (all features)" "$(echo $all | tr ' ' ',')"
row "baseline {}" ""
for f in $all; do
	row "all but $f" "$(echo $all | tr ' ' '\n' | grep -vx "$f" | tr '\n' ',' | sed 's/,$//')"
done
printf '%-34s %12s %8s %10s %8s   %s/%s/%s\n' "wrong models, total" "$ti" "$tp" "$te" \
	"$(awk -v a="$tp" -v b="$ti" 'BEGIN { if (b) printf "%.2f", a / b; else print "-" }')" "$pi" "$pp" "$pe"
