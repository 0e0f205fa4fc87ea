#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/check_sim.sh: `counterpoint check` on the simulator's data.  A
# machine whose PDE cache is looked up before the walk starts
# (`sim --features pde_early`) breaks walk_basic.udd's
# load.pde_miss <= load.causes_walk on some workloads; walk_pde_early.udd,
# which models the early lookup, never breaks a constraint on PDE misses.
# (Both models leave out the simulator's wrong-path loads, which walk and
# never retire: where walks are as frequent as loads, a region tight
# enough refutes "walks <= retired loads", rightly.)
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" "$tmp/err" 2>/dev/null | head -n 40; exit 1; }

"$CP" sim --sweep --intervals 20 --interval-uops 50000 --warmup 200000 \
	--features pde_early -o "$tmp/data.csv" || fail "sim"
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] || fail "walk_basic: expected some infeasible observations"
grep -q 'observations\{0,1\} violates\{0,1\} load.pde_miss <= load.causes_walk' "$tmp/out" ||
	fail "walk_basic: PDE constraint not reported"
sed -n '/infeasible (region/,$p' "$tmp/out" | grep violate | grep -v pde_miss |
	grep -qv 'retired' && fail "walk_basic: a constraint beyond PDE misses and speculation"
"$CP" check models/examples/walk_pde_early.udd "$tmp/data.csv" >"$tmp/out" 2>"$tmp/err"
[ $? -le 1 ] || fail "walk_pde_early: check failed"
grep -q 'violates.*pde_miss' "$tmp/out" && fail "walk_pde_early: a PDE constraint broken"
exit 0
