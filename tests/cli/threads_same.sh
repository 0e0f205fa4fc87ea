#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/threads_same.sh: a report does not depend on --threads.  Every
# run of 256 observations (FEAS_CHUNK) is checked from a fresh LP whatever
# the thread count, so even explanations taken from a warm-started LP's
# certificate (which depend on what was checked before) are the same on 1,
# 2 or 3 threads: check's text and JSON on the bundled all-features sweep
# (where one observation's certificate differed before) and on 8 copies of
# it (288 observations: two chunks, on two threads or in turn), and
# explore's JSON.
CP=${CP:-bin/counterpoint}
M=models/haswell/mmu.udd
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
awk -F, 'NR == 1 { hdr = $0; next } { row[++n] = $0 }
	END { print hdr; for (c = 1; c <= 8; c++) for (i = 1; i <= n; i++)
		print "c" c "/" row[i] }' datasets/sim-sweep-all.csv >"$tmp/big.csv"

for D in datasets/sim-sweep-all.csv "$tmp/big.csv"; do
	for r in pca independent; do
		for t in 1 2 3; do
			"$CP" check "$M" "$D" --region $r --threads $t >"$tmp/$r.$t.txt" 2>/dev/null
			[ $? = 1 ] || fail "$D: check --region $r --threads $t: expected status 1"
			"$CP" check "$M" "$D" --region $r --threads $t --json >"$tmp/$r.$t.json" 2>/dev/null
		done
		for t in 2 3; do
			cmp -s "$tmp/$r.1.txt" "$tmp/$r.$t.txt" ||
				fail "$D: check --region $r: --threads $t prints another report than --threads 1"
			cmp -s "$tmp/$r.1.json" "$tmp/$r.$t.json" ||
				fail "$D: check --region $r --json: --threads $t differs from --threads 1"
		done
	done
	grep -q "certificate (not a facet)" "$tmp/pca.1.txt" ||
		fail "$D: no certificate-derived explanation: the case no longer tests the warm start"
done
[ "$(grep -c "certificate (not a facet)" "$tmp/pca.1.txt")" -ge 8 ] ||
	fail "the copies' explanations are missing"
for t in 1 2; do
	"$CP" explore "$M" datasets/sim-sweep-all.csv --threads $t --json >"$tmp/explore.$t.json" 2>/dev/null
	[ $? = 0 ] || fail "explore --threads $t: status"
done
cmp -s "$tmp/explore.1.json" "$tmp/explore.2.json" ||
	fail "explore --json: --threads 2 differs from --threads 1"
exit 0
