#!/bin/sh
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
printf '%-34s %12s %8s %10s %8s\n' "model" "independent" "PCA" "ellipsoid" "PCA/ind"
row() {  # $1 = label, $2 = --with list
	ind=$($CP check $MODEL "$tmp/s.csv" --with "$2" --region independent 2>/dev/null | grep -c ': INFEASIBLE')
	pca=$($CP check $MODEL "$tmp/s.csv" --with "$2" --region pca 2>/dev/null | grep -c ': INFEASIBLE')
	ell=$($CP check $MODEL "$tmp/s.csv" --with "$2" --region ellipsoid 2>/dev/null | grep -c ': INFEASIBLE')
	ratio=$(awk -v a="$pca" -v b="$ind" 'BEGIN { if (b) printf "%.2f", a / b; else print (a ? "inf" : "-") }')
	printf '%-34s %12s %8s %10s %8s\n' "$1" "$ind" "$pca" "$ell" "$ratio"
}
row "true model (all features)" "$(echo $all | tr ' ' ',')"
row "baseline {}" ""
for f in $all; do
	row "all but $f" "$(echo $all | tr ' ' '\n' | grep -vx "$f" | tr '\n' ',' | sed 's/,$//')"
done
