#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/cone_normaliz.sh: `counterpoint cone` finds exactly Normaliz's
# facets (normaliz -x=1 -s) on cones of each kind the speed comparison
# uses: sparse and dense random rows (bench/cone_cases.py), and a model's
# signatures with equalities and facets holding many rays.  Facets are
# compared as the sets of signatures they hold, every normal checked on
# every signature (bench/cone_normaliz.py; its times are not looked at).
# Skipped when normaliz is not installed.
CP=${CP:-bin/counterpoint}
command -v normaliz >/dev/null 2>&1 || { echo "SKIP: normaliz is not installed"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
set -- sparse:16:150:2 sparse:16:100:2 dense:11:28:4:2 \
	model:models/haswell/mmu.udd:prefetch,prefetch_dtlb_miss,prefetch_stores,bypass,replay \
	model:models/examples/big.udd
python3 bench/cone_normaliz.py --repeat 1 --cp "$CP" --dir "$tmp" "$@" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; echo "FAIL: bench/cone_normaliz.py: status $?"; exit 1; }
n=$(grep -c ' identical' "$tmp/out")
[ "$n" = $# ] || { cat "$tmp/out"; echo "FAIL: $n of $# cases identical to Normaliz"; exit 1; }
echo "PASS: cone_normaliz ($# cases)"
