#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/family_icelake.sh: models/icelake/mmu.udd and
# models/sapphirerapids/mmu.udd (the same μDD with Golden Cove's codes) on
# the simulator speaking their events (sim --cpu icelake, sapphirerapids:
# no walk-start event).  Retired STLB misses beyond completed walks show
# merging; aborts, replays and the prefetcher change no cone without walk
# starts (tests/cli/lib/family.sh).
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "family_icelake.sh: $*"; exit 1; }
. tests/cli/lib/family.sh
family icelake models/icelake/mmu.udd 41 merge,abort merge
for f in prefetch abort replay; do
	grep -q "^  #1 +$f: the cone does not grow$" "$tmp/explore" ||
		fail "$f should not change the cone on Ice Lake's counters"
done
family sapphirerapids models/sapphirerapids/mmu.udd 51 merge,prefetch merge
exit 0
