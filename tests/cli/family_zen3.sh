#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/family_zen3.sh: models/zen3/mmu.udd on the simulator speaking
# Zen 3's events (sim --cpu zen3: ops dispatched, L1 DTLB reloads from the
# L2 DTLB or after a walk, walks started; loads and stores together).
# Walks started beyond reloads show aborts; merging, counted nowhere,
# changes no cone (tests/cli/lib/family.sh).
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "family_zen3.sh: $*"; exit 1; }
. tests/cli/lib/family.sh
family zen3 models/zen3/mmu.udd 31 abort,replay abort
# reloads beyond walks: the prefetcher or replays, which these counters
# cannot tell apart: both are minimal, neither required
grep -q '^minimal feasible models (proven: no feasible sub-model[^)]*): {prefetch,abort} {abort,replay}$' "$tmp/explore" ||
	{ cat "$tmp/explore"; fail "zen3: prefetch and replay should be alternatives"; }
grep -q '^  #1 +merge: the cone does not grow$' "$tmp/explore" ||
	fail "merge should not change the cone on Zen 3's counters"
exit 0
