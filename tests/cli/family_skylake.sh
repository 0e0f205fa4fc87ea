#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/family_skylake.sh: models/skylake/mmu.udd on the simulator
# speaking Skylake's events (sim --cpu skylake: no PDE-cache or walker
# events, STLB hits of any size, MEM_INST_RETIRED).  Walks started and
# completed and retired STLB misses show merging and aborts; the
# prefetcher hides behind replay, and the PDE cache, a root-level cache
# and bypassing change no count (tests/cli/lib/family.sh).
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "family_skylake.sh: $*"; exit 1; }
. tests/cli/lib/family.sh
family skylake models/skylake/mmu.udd 61 prefetch,merge,abort merge,\ abort
for f in pde_early pml4_cache bypass; do
	grep -q "^  #1 +$f: the cone does not grow$" "$tmp/explore" ||
		fail "$f should not change the cone on Skylake's counters"
done
family skylake models/skylake/mmu.udd 62 none none
exit 0
