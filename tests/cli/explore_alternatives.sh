#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore_alternatives.sh: a simulated machine with a PML4E
# cache, 1G pages: walks with a single reference, which a PML4E cache and
# walk bypassing both explain.  explore proves both minimal (and a third,
# {merge,abort,replay}, as --exhaustive does), says what
# separates them (a lower bound on walker references of {pml4_cache}'s
# cone that {bypass}'s μpaths break; {bypass}'s cone holds {pml4_cache}'s),
# and its claims are those of --exhaustive.
CP=${CP:-bin/counterpoint}
MODEL=models/haswell/mmu.udd
C=pml4_cache,bypass,merge,abort,replay
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore_alternatives.sh: $*"; exit 1; }

$CP sim --features pml4_cache --pages 1g --workload random:footprint=16G,stores=0.2 \
	--intervals 40 --interval-uops 20000 --seed 11 -o "$tmp/d.csv" || fail "sim"
$CP explore "$MODEL" "$tmp/d.csv" --candidates $C -o "$tmp/r.txt" || fail "explore: exit $?"
$CP explore "$MODEL" "$tmp/d.csv" --candidates $C --exhaustive -o "$tmp/x.txt" || fail "exhaustive: exit $?"
claims() { grep -E '^(required|impossible) features|^features the data allow|^undecided features' "$1"; }
claims "$tmp/r.txt" > "$tmp/r.c"; claims "$tmp/x.txt" > "$tmp/x.c"
cmp -s "$tmp/r.c" "$tmp/x.c" || { diff "$tmp/x.c" "$tmp/r.c"; fail "the search and --exhaustive disagree"; }
grep -q '^undecided features (models untested; --exhaustive decides): none$' "$tmp/r.txt" || fail "undecided claims"
# every minimal model, as --exhaustive finds them (the default search
# listed only the first two before the dualization)
grep '^minimal feasible models' "$tmp/x.txt" > "$tmp/x.m"
grep '^minimal feasible models' "$tmp/r.txt" > "$tmp/r.m"
cmp -s "$tmp/r.m" "$tmp/x.m" || { diff "$tmp/x.m" "$tmp/r.m"; fail "minimal models differ from --exhaustive's"; }
grep -q '^minimal feasible models (proven: no feasible sub-model, at 99% over [^)]*): {pml4_cache} {bypass} {merge,abort,replay}$' "$tmp/r.txt" ||
	{ cat "$tmp/r.txt"; fail "minimal models"; }
grep -q '^  {pml4_cache} vs {bypass}: μpaths of the second break the first.s constraint$' "$tmp/r.txt" ||
	fail "no separation of {pml4_cache} from {bypass}"
sed -n '/^  {pml4_cache} vs {bypass}/{n;p;}' "$tmp/r.txt" | grep -q '<= walk_ref.l1 + walk_ref.l2 + walk_ref.l3 + walk_ref.mem$' ||
	fail "the separating constraint is not a lower bound on references"
grep -q '^        load: load.causes_walk, load.walk_done, load.walk_done_1g$' "$tmp/r.txt" ||
	fail "the bypassed 1G walk is not named"
grep -q '^        random-fp16g-1g -[0-9.]*$' "$tmp/r.txt" || fail "the observation's margin"
grep -q '^  {bypass} vs {pml4_cache}: the cone of the second lies within the first.s' "$tmp/r.txt" ||
	fail "{pml4_cache}'s cone within {bypass}'s not said"
$CP explore "$MODEL" "$tmp/d.csv" --candidates $C --json > "$tmp/r.json" || fail "json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
a = {(tuple(x["a"]), tuple(x["b"])): x for x in d["alternatives"]}
x = a[(("pml4_cache",), ("bypass",))]
assert not x["b_within_a"] and x["paths_breaking"] > 0 and x["margins"][0]["margin"] < 0, x
assert a[(("bypass",), ("pml4_cache",))]["b_within_a"]
' "$tmp/r.json" || fail "json alternatives"
exit 0
