#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/family_zen4.sh: models/zen4/mmu.udd on the simulator speaking
# Zen 4's events (sim --cpu zen4: Zen 3's without the walker event).
# Only more L1 DTLB misses than ops dispatched shows anything: replays
# (or prefetches) on workloads where nearly every op walks; the two are
# alternatives, neither required (tests/cli/lib/family.sh).
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "family_zen4.sh: $*"; exit 1; }
. tests/cli/lib/family.sh
family zen4 models/zen4/mmu.udd 71 prefetch,replay none
grep -q '^minimal feasible models (proven: no feasible sub-model[^)]*): {prefetch} {replay}$' "$tmp/explore" ||
	{ cat "$tmp/explore"; fail "zen4: prefetch and replay should be the minimal models"; }
grep -q 'INFEASIBLE' "$tmp/explore" || fail "zen4: the baseline should be refuted"
exit 0
