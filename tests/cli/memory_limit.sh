#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/memory_limit.sh: under an address-space limit (ulimit -v, as
# batch schedulers and containers bound jobs) every command returns: it
# works when the limit holds what it needs, and otherwise exits 3 saying
# it ran out of memory and what the limit is.  No OpenBLAS is loaded
# (its allocator retries a failed mmap forever: the process hung at
# start-up and at the first LAPACK call).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "memory_limit.sh: $*"; exit 1; }
M=models/haswell/mmu.udd; D=datasets/sim-sweep-all.csv

if command -v ldd >/dev/null && ldd "$CP" | grep -qi openblas; then
	fail "$CP loads OpenBLAS: $(ldd "$CP" | grep -i openblas)"
fi
(ulimit -v 150000 && timeout 20 "$CP" --version >/dev/null) ||
	fail "--version under ulimit -v 150000: status $?"

# the same results under 300 MB as without a limit (OpenBLAS hung there
# at the first LAPACK call)
"$CP" check $M $D >"$tmp/free.txt" 2>/dev/null
(ulimit -v 300000 && timeout 60 "$CP" check $M $D >"$tmp/bound.txt" 2>/dev/null)
rc=$?
[ $rc = 1 ] || fail "check under ulimit -v 300000: status $rc, expected 1"
cmp -s "$tmp/free.txt" "$tmp/bound.txt" || fail "check's report differs under ulimit -v 300000"

# down to where the libraries no longer load: every run ends, and one
# that fails says why
said=0
for kb in 200000 100000 60000 45000 40000 35000 30000 25000; do
	for c in "check $M $D" "explore $M $D --candidates merge,abort" "region $D" \
		 "flows $M $D --with merge"; do
		# shellcheck disable=SC2086
		(ulimit -v $kb && exec timeout 60 "$CP" $c) >/dev/null 2>"$tmp/err"
		rc=$?
		case $rc in
		0|1) ;;
		3) grep -q "out of memory\|cannot start a thread" "$tmp/err" &&
			grep -q "is limited to [0-9]* MB (ulimit -v $kb)" "$tmp/err" ||
			fail "${c%% *} under ulimit -v $kb: exit 3 without the reason: $(cat "$tmp/err")"
		   said=$((said + 1)) ;;
		127) ;;     # the dynamic loader itself cannot map the libraries
		124) fail "${c%% *} under ulimit -v $kb hangs" ;;
		*) fail "${c%% *} under ulimit -v $kb: status $rc: $(cat "$tmp/err")" ;;
		esac
	done
done
[ $said -gt 0 ] || fail "no run ran out of memory: the limits tried are too high"
echo "$said runs ran out of memory and said so"
