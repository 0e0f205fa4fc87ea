#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tier: full
# tests/cli/mpi.sh: check and explore under mpirun (bin/counterpoint-mpi,
# docs/manual/mpi.md) print what one process prints, for 1, 2 and 3 processes
# (timings aside), and a process that dies fails the run without a report.
# Skipped when the MPI build is not there (no mpicc).
CP=${CP:-bin/counterpoint}
MPI=${MPI:-bin/counterpoint-mpi}
[ -x "$MPI" ] && command -v mpirun >/dev/null 2>&1 || { echo "no $MPI or mpirun (make mpi needs mpicc)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "mpi.sh: $*"; exit 1; }
root=; [ "$(id -u)" = 0 ] && root=--allow-run-as-root
run() {  # run N ARGS...: the MPI build on N processes, stdout only
	n=$1; shift
	timeout 300 mpirun $root --oversubscribe -n "$n" "$MPI" "$@" 2>"$tmp/err"
}
untimed() {  # the report without its wall times
	sed -e 's/; [0-9.]* s)$/; T s)/' -e 's/), [0-9.]* s$/), T s/' -e 's/ flow columns ([0-9.]* s)$/ flow columns (T s)/' "$1"
}
"$MPI" --version | grep -q '^MPI: Open MPI' || fail "--version does not name MPI"
"$CP" --version | grep -q '^MPI: no' || fail "the plain build's --version does not say 'MPI: no'"

# check: text and JSON, two thread counts (the lanes follow --threads)
M=models/haswell/mmu.udd
for case in "datasets/sim-sweep-m0.csv" "datasets/sim-sweep-all.csv --json" \
	    "datasets/sim-sweep-all.csv --threads 3" "datasets/sim-sweep-m0.csv --region ellipsoid --json"; do
	# shellcheck disable=SC2086
	"$CP" check $M $case > "$tmp/one"; want=$?
	for n in 1 2 3; do
		# shellcheck disable=SC2086
		run $n check $M $case > "$tmp/many"; rc=$?
		[ "$rc" = "$want" ] || fail "check $case on $n: exit $rc, not $want ($(tail -n 3 "$tmp/err"))"
		cmp -s "$tmp/one" "$tmp/many" || { diff "$tmp/one" "$tmp/many" | head; fail "check $case on $n processes differs"; }
	done
done

# explore: --exhaustive and the default search, JSON and text
X=tests/data/explore
for case in "--exhaustive --json" "--exhaustive" "--json" ""; do
	# shellcheck disable=SC2086
	"$CP" explore $X/synth.udd $X/synth.csv $case > "$tmp/one"; want=$?
	untimed "$tmp/one" > "$tmp/one.u"
	for n in 1 2 3; do
		# shellcheck disable=SC2086
		run $n explore $X/synth.udd $X/synth.csv $case > "$tmp/many"; rc=$?
		[ "$rc" = "$want" ] || fail "explore $case on $n: exit $rc, not $want"
		untimed "$tmp/many" > "$tmp/many.u"
		cmp -s "$tmp/one.u" "$tmp/many.u" || { diff "$tmp/one.u" "$tmp/many.u" | head; fail "explore $case on $n processes differs"; }
	done
done

# an error on rank 0 stops every process with its status and message
run 2 check $M /nonexistent.csv > "$tmp/out"; rc=$?
[ "$rc" = 2 ] || fail "a missing dataset: exit $rc, not 2"
grep -q "nonexistent.csv" "$tmp/err" || fail "a missing dataset: no message"

# a process killed in the middle: the run fails, nothing is written
for cmd in "explore $X/synth.udd $X/synth.csv --exhaustive" "check $M datasets/sim-sweep-all.csv"; do
	# shellcheck disable=SC2086
	CP_MPI_TEST_KILL_RANK=1 run 2 $cmd -o "$tmp/report" > "$tmp/out"; rc=$?
	[ "$rc" != 0 ] && [ "$rc" != 1 ] || fail "$cmd with a killed process: exit $rc"
	[ ! -e "$tmp/report" ] || fail "$cmd with a killed process wrote a report"
	[ ! -s "$tmp/out" ] || fail "$cmd with a killed process printed a report"
	grep -qi "signal 9\|killed" "$tmp/err" || { cat "$tmp/err"; fail "$cmd: no message naming the dead process"; }
done
exit 0
