#!/bin/sh
# tests/cli/check_sim.sh: `counterpoint check` on the simulator's data.  A
# machine whose PDE cache is looked up before the walk starts
# (`sim --features pde_early`) breaks walk_basic.udd's
# load.pde_miss <= load.causes_walk on some workloads, and only that
# constraint; walk_pde_early.udd, which models the early lookup, is
# consistent with every observation.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/out" "$tmp/err" 2>/dev/null | head -n 40; exit 1; }

"$CP" sim --sweep --intervals 20 --interval-uops 50000 --warmup 200000 \
	--features pde_early -o "$tmp/data.csv" || fail "sim"
"$CP" check models/examples/walk_basic.udd "$tmp/data.csv" >"$tmp/out" 2>"$tmp/err"
[ $? = 1 ] || fail "walk_basic: expected some infeasible observations"
grep -q 'observations\{0,1\} violates\{0,1\} load.pde_miss <= load.causes_walk' "$tmp/out" ||
	fail "walk_basic: PDE constraint not reported"
[ "$(sed -n '/infeasible (region/,$p' "$tmp/out" | grep -c 'violate')" = 1 ] ||
	fail "walk_basic: other constraints reported"
"$CP" check models/examples/walk_pde_early.udd "$tmp/data.csv" >"$tmp/out" 2>"$tmp/err"
[ $? = 0 ] || fail "walk_pde_early: expected every observation feasible"
exit 0
