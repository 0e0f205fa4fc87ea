#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/violations.sh: check and explore list the violated constraints
# an observation (a model) the largest margins (the most observations)
# first, at most --violations N of them (default 5, 0: every one), and say
# how many more there are; --json keeps every one.  On the synthetic
# family of tests/data/explore/synth.udd the model with every feature is
# refuted by both observations on two constraints, by different margins.
CP=${CP:-bin/counterpoint}
M=tests/data/explore/synth.udd
D=tests/data/explore/synth.csv
ALL=need,alt1,alt2,bad,spare
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "violations.sh: $*"; cat "$tmp/out" 2>/dev/null; exit 1; }

# every one (default 5 > 2), margins never increasing within an observation
$CP check "$M" "$D" --with $ALL > "$tmp/out"
[ $? = 1 ] || fail "check: status"
[ "$(grep -c '^    violates ' "$tmp/out")" = 4 ] || fail "default: not all four listed"
grep -q 'more violated' "$tmp/out" && fail "default: a remainder line with nothing left out"
awk '/^[^ ]/ { last = "" }
     /^    violates / { m = $(NF - 1) + 0
	if (last != "" && m > last) bad = 1; last = m }
     END { exit bad }' "$tmp/out" || fail "margins not in decreasing order"
sed -n '/^run1:/{n;p}' "$tmp/out" | grep -q '^    violates b + d + e <= c ' ||
	fail "run1's largest violation is not first"
sed -n '/^run2:/{n;p}' "$tmp/out" | grep -q '^    violates a + d <= c ' ||
	fail "run2's largest violation is not first"

# one each, and what is left out said, in the observations and the summary
$CP check "$M" "$D" --with $ALL --violations 1 > "$tmp/out"
[ $? = 1 ] || fail "check --violations 1: status"
[ "$(grep -c '^    violates ' "$tmp/out")" = 2 ] || fail "--violations 1: not one each"
[ "$(grep -c '^    \.\.\. and 1 more violated constraint (--violations 0 lists every one)$' "$tmp/out")" = 2 ] ||
	fail "--violations 1: the remainder line"
[ "$(grep -c '^  2 observations violate ' "$tmp/out")" = 1 ] || fail "--violations 1: summary"
grep -q '^  \.\.\. and 1 more violated constraint$' "$tmp/out" || fail "--violations 1: summary remainder"
$CP check "$M" "$D" --with $ALL --violations 0 > "$tmp/out"
[ "$(grep -c '^    violates ' "$tmp/out")" = 4 ] || fail "--violations 0: not all four"
$CP check "$M" "$D" --with $ALL --violations 1 --json > "$tmp/out"
[ "$(grep -o '"constraint": ' "$tmp/out" | wc -l)" = 6 ] ||
	fail "--json: every violation (4) and the summary's two"

# explore: a refuted model's list, by how many observations break each
$CP explore "$M" "$D" --exhaustive --violations 1 > "$tmp/out"
[ $? = 0 ] || fail "explore: status"
sed -n '/^  #[0-9]* *{need,alt1,alt2,bad,spare} /,/^  #/p' "$tmp/out" > "$tmp/m"
[ "$(grep -c '^        violated by ' "$tmp/m")" = 1 ] || { cat "$tmp/m"; fail "explore --violations 1: one listed"; }
grep -q '^        \.\.\. and 1 more violated constraint (--violations 0 lists every one)$' "$tmp/m" ||
	{ cat "$tmp/m"; fail "explore: the remainder line"; }
$CP explore "$M" "$D" --exhaustive --violations 0 > "$tmp/out"
sed -n '/^  #[0-9]* *{need,alt1,alt2,bad,spare} /,/^  #/p' "$tmp/out" > "$tmp/m"
[ "$(grep -c '^        violated by 2: ' "$tmp/m")" = 2 ] || { cat "$tmp/m"; fail "explore --violations 0: both"; }

# on the bundled sweep, where constraints differ in how many observations
# break them: every model's list (text and JSON) the most first
$CP explore models/haswell/mmu.udd datasets/sim-sweep-all.csv --candidates merge,replay \
	--exhaustive --no-flows > "$tmp/out" 2>/dev/null
sed -n '/^  #1 /,/^  #2 /p' "$tmp/out" > "$tmp/m"
grep -q '^        violated by 17: load.causes_walk = load.walk_done$' "$tmp/m" ||
	{ cat "$tmp/m"; fail "sweep: the most frequent first"; }
grep -q '^        \.\.\. and 11 more violated constraints' "$tmp/m" || { cat "$tmp/m"; fail "sweep: remainder"; }
if command -v python3 >/dev/null; then
	$CP explore models/haswell/mmu.udd datasets/sim-sweep-all.csv --candidates merge,replay \
		--exhaustive --no-flows --json > "$tmp/out" 2>/dev/null
	python3 - "$tmp/out" <<'PY' || fail "JSON: a model's violations out of order"
import json, sys
models = json.load(open(sys.argv[1]))["models"]
assert any(len(m["violations"]) > 5 for m in models)
for m in models:
    n = [v["observations"] for v in m["violations"]]
    assert n == sorted(n, reverse=True), (m["features"], n)
PY
fi

# bad values are usage errors
for v in -1 x 1.5 ''; do
	$CP check "$M" "$D" --violations "$v" > /dev/null 2> "$tmp/out"
	[ $? = 2 ] || fail "check --violations '$v' accepted"
	grep -q -- '--violations' "$tmp/out" || fail "check --violations '$v': message"
	$CP explore "$M" "$D" --violations "$v" > /dev/null 2> "$tmp/out"
	[ $? = 2 ] || fail "explore --violations '$v' accepted"
done
exit 0
