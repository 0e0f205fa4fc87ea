#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/explore_abort.sh: regions that keep correlation find a
# feature switched on.  A machine with the prefetcher and aborts, 100
# autocorrelated intervals of 28 counters: with the automatic treatment of
# autocorrelation (no --batches option) the model without abort is refuted
# on the walk equality that aborted walks break, the true model fits, and
# an exhaustive search over five candidates proves abort required.  (With
# batch means and the diagonal rule, abort was missed on this run.)
CP=${CP:-bin/counterpoint}
MODEL=models/haswell/mmu.udd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore_abort.sh: $*"; exit 1; }

$CP sim --workload linear:footprint=96M,stride=64,dir=down,stores=0.3 \
	--features prefetch,abort --intervals 100 --seed 4242 --counters 28 \
	-o "$tmp/pa.csv" || fail "sim"
$CP check "$MODEL" "$tmp/pa.csv" --with prefetch > "$tmp/out" 2>&1
[ $? = 1 ] || { cat "$tmp/out"; fail "{prefetch} should be refuted"; }
grep -q 'violates store.causes_walk = ' "$tmp/out" || { cat "$tmp/out"; fail "walk equality"; }
$CP check "$MODEL" "$tmp/pa.csv" --with prefetch,abort > "$tmp/out" 2>&1
[ $? = 0 ] || { cat "$tmp/out"; fail "the true model {prefetch,abort} should fit"; }
$CP explore "$MODEL" "$tmp/pa.csv" --candidates prefetch,abort,replay,merge,bypass \
	--exhaustive > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "explore"; }
grep -q '^required features (proven: every model without one is refuted, at 99% over [^)]*): abort$' "$tmp/out" ||
	{ cat "$tmp/out"; fail "abort not proven required"; }
exit 0
