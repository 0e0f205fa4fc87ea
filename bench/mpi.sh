#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench/mpi.sh: the speed-up of `counterpoint explore --exhaustive` under
# mpirun (docs/manual/mpi.md): the same exploration on one process (the plain
# build) and on 1, 2, ... MPI processes of bin/counterpoint-mpi, one
# solver thread each, the reports compared.  Prints each command and its
# wall time.  Usage: sh bench/mpi.sh [MAX_PROCESSES] (default 2).
#   MODEL, DATA, CANDIDATES: the exploration (default: the Haswell model
#   on the bundled sweep, six candidates, 64 models).
set -e
max=${1:-2}
MODEL=${MODEL:-models/haswell/mmu.udd}
DATA=${DATA:-datasets/sim-sweep-all.csv}
CANDIDATES=${CANDIDATES:-merge,abort,bypass,replay,pde_early,pml4_cache}
[ -x bin/counterpoint ] && [ -x bin/counterpoint-mpi ] || { echo "bench/mpi.sh: run make && make mpi first"; exit 2; }
root=; [ "$(id -u)" = 0 ] && root=--allow-run-as-root
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args="explore $MODEL $DATA --candidates $CANDIDATES --exhaustive --threads 1 --json"
timed() {  # timed OUT CMD...: wall seconds of CMD, stdout to OUT
	out=$1; shift
	t0=$(date +%s.%N)
	"$@" > "$out" 2>/dev/null || [ $? = 1 ]
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc -l
}
echo "machine: $(nproc) CPUs, $(uname -m); $(bin/counterpoint-mpi --version | sed -n 2p)"
# shellcheck disable=SC2086
base=$(timed "$tmp/one.json" bin/counterpoint $args)
printf '%-72s %7.2f s\n' "bin/counterpoint $args" "$base"
n=1
while [ "$n" -le "$max" ]; do
	# shellcheck disable=SC2086
	t=$(timed "$tmp/n.json" mpirun $root --oversubscribe -n $n bin/counterpoint-mpi $args)
	same=identical; cmp -s "$tmp/one.json" "$tmp/n.json" || same=DIFFERENT
	printf '%-72s %7.2f s  speed-up %.2fx, report %s\n' \
		"mpirun -n $n bin/counterpoint-mpi $args" "$t" "$(echo "$base / $t" | bc -l)" "$same"
	n=$((n + 1))
done
