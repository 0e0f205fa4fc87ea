#!/bin/sh
# tests/cli/explore.sh: `counterpoint explore` end to end.  Usage errors
# exit 2; on a small simulator run with walk merging on, the baseline is
# refuted by "retired STLB-missing loads <= walks" and merge is the one
# required feature; on a run of the baseline machine, no feature is needed.
# Skips (77) when the build lacks the simulator.
CP=${CP:-bin/counterpoint}
MODEL=models/haswell/mmu.udd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "explore.sh: $*"; exit 1; }

$CP explore >/dev/null 2>&1; [ $? = 2 ] || fail "no arguments should exit 2"
$CP explore --bogus a b >/dev/null 2>&1; [ $? = 2 ] || fail "unknown option should exit 2"
$CP explore "$MODEL" x.csv --region round >/dev/null 2>&1; [ $? = 2 ] || fail "bad --region should exit 2"
$CP explore "$MODEL" x.csv --features nosuch >/dev/null 2>&1; [ $? = 2 ] || fail "unknown feature should exit 2"
$CP explore "$MODEL" "$tmp/missing.csv" >/dev/null 2>&1; [ $? = 2 ] || fail "missing dataset should exit 2"

$CP sim --help >/dev/null 2>&1 || { echo "needs counterpoint sim"; exit 77; }
run() {  # $1 = simulator features, $2 = output name
	$CP sim --features "$1" --pages 4k --seed 3 --intervals 200 \
		--interval-uops 5000 \
		--workload linear:footprint=32M,stride=64,dir=up,stores=0.2 \
		-o "$tmp/$2.csv" || fail "sim --features $1 failed"
	$CP explore "$MODEL" "$tmp/$2.csv" --dot "$tmp/$2.dot" -o "$tmp/$2.txt"
	echo $? > "$tmp/$2.status"
}
run merge merge
[ "$(cat "$tmp/merge.status")" = 0 ] || fail "merge: exit $(cat "$tmp/merge.status")"
grep -q '^required features (in every feasible model): merge$' "$tmp/merge.txt" ||
	{ cat "$tmp/merge.txt"; fail "merge: required features are not {merge}"; }
grep -q '^  #1 .*{} .*INFEASIBLE' "$tmp/merge.txt" || fail "merge: the baseline was not refuted"
grep -q 'retired_stlb_miss <=' "$tmp/merge.txt" || fail "merge: violated constraint not named"
grep -Eq -- '^	m1 -> m[0-9]+ \[label="\+merge"\]' "$tmp/merge.dot" || fail "merge: graph lacks the +merge edge"
run none base
[ "$(cat "$tmp/base.status")" = 0 ] || fail "baseline: exit $(cat "$tmp/base.status")"
grep -q 'need no hypothesis beyond the baseline' "$tmp/base.txt" ||
	{ cat "$tmp/base.txt"; fail "baseline: a feature was required"; }
exit 0
