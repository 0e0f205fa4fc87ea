#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore_minimal.sh: the default search lists every minimal
# model, proven.  On this simulator run (the machine has prefetch,
# prefetch_stlb_miss, prefetch_stores, merge and bypass) four models are
# minimal: {merge,pde_early}, {merge,bypass}, {prefetch,merge,abort} and
# {merge,abort,replay}; discovery and elimination alone found the first
# two, and the dualization within each alternative of the cone-shrinking
# features finds the others, knowing every verdict of the family with far
# fewer checks than --exhaustive's 1024.
CP=${CP:-bin/counterpoint}
M=models/haswell/mmu.udd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore_minimal.sh: $*"; exit 1; }
$CP sim --workload 'random:footprint=1G,stores=0.4,run=8' --pages 4k \
	--features prefetch,prefetch_stlb_miss,prefetch_stores,merge,bypass \
	--seed 50201 -o "$tmp/d.csv" || fail "sim: exit $?"
$CP explore "$M" "$tmp/d.csv" -o "$tmp/r.txt" 2>/dev/null || fail "explore: exit $?"
grep -q '^minimal feasible models (proven: [^)]*): {merge,pde_early} {merge,bypass} {prefetch,merge,abort} {merge,abort,replay}$' "$tmp/r.txt" ||
	{ grep '^minimal' "$tmp/r.txt"; fail "not the four minimal models"; }
n=$(sed -n 's/^verdicts known: 1024 of the family.s 1024 models (2^10; \([0-9]*\) checked, .*; so every minimal model is listed above$/\1/p' "$tmp/r.txt")
[ -n "$n" ] && [ "$n" -lt 256 ] || { grep '^verdicts' "$tmp/r.txt"; fail "not every verdict known, or too many checks"; }
grep -q '(dualization; ' "$tmp/r.txt" || fail "no model checked by the dualization"
exit 0
