#!/bin/sh
# tests/cli/record_check.sh: the real-hardware path end to end on real
# counters.  The bundled recordings (datasets/linux/faults.csv) and a fresh
# one made here are feasible for models/linux/faults.udd and refuted by
# models/linux/faults_wrong.udd.  Skipped (77) until `counterpoint check`
# exists.
CP=${CP:-bin/counterpoint}
"$CP" check --help >/dev/null 2>&1 || { echo "counterpoint check does not exist yet"; exit 77; }
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fail=0

expect() {  # $1 = wanted status, $2 = model, $3 = dataset
	"$CP" check "$2" "$3" >"$out/check.out" 2>&1; rc=$?
	if [ "$rc" != "$1" ]; then
		echo "check $2 $3: status $rc, expected $1"; cat "$out/check.out"; fail=1
	fi
}

expect 0 models/linux/faults.udd datasets/linux/faults.csv
expect 1 models/linux/faults_wrong.udd datasets/linux/faults.csv
# the wrong model is refuted on most bundled observations (each has a
# mean page-fault rate 4 to 47 standard errors away from its major-fault
# rate, which the wrong model says are equal)
n_obs=$(tail -n +2 datasets/linux/faults.csv | cut -d, -f1 | sort -u | wc -l)
n_bad=$(grep -c 'INFEASIBLE' "$out/check.out")
[ $((2 * n_bad)) -ge "$n_obs" ] || { echo "wrong model refuted on $n_bad of $n_obs observations"; cat "$out/check.out"; fail=1; }

# record -> check on this machine, now
"$CP" record --user-only --model models/linux/faults.udd -I 10 --observation linear \
	-o "$out/fresh.csv" -- "$CP" bench-workload linear --footprint 32M -q || exit 1
"$CP" record --user-only --model models/linux/faults.udd -I 10 --observation random \
	--append -o "$out/fresh.csv" -- "$CP" bench-workload random --footprint 32M -q || exit 1
expect 0 models/linux/faults.udd "$out/fresh.csv"
expect 1 models/linux/faults_wrong.udd "$out/fresh.csv"
exit $fail
