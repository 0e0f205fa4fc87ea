#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/suggest_sim.sh: suggest rediscovers a feature's μpaths.  For
# merge and pde_early, data simulated with the feature on (three
# workloads; bench/suggest_evidence.sh, the table of docs/manual/suggest.md) and
# suggest on the baseline: the first suggestion explains every
# observation and its new signatures are the feature's (`paths --with`).
# And explore, where no model of its family fits, prints suggestions.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "suggest_sim.sh: $*"; exit 1; }

CP=$CP sh bench/suggest_evidence.sh merge pde_early > "$tmp/rows" ||
	{ cat "$tmp/rows"; fail "a feature's μpaths were not rediscovered"; }
[ "$(grep -c '| yes (3/3) | yes |' "$tmp/rows")" = 2 ] || { cat "$tmp/rows"; fail "rows"; }
grep -q '^| merge | 3 | 2 | load: load.retired, load.retired_stlb_miss; store: store.retired, store.retired_stlb_miss |' "$tmp/rows" ||
	{ cat "$tmp/rows"; fail "merge: not the merged μpaths"; }

# explore on merge data with merge out of its candidates: every model is
# refuted, and the merged μpaths come first among its suggestions
$CP sim --features merge --pages 4k --intervals 60 --interval-uops 20000 \
	--workload linear:footprint=64M,stride=64,dir=up,stores=0.3 --seed 7714 -o "$tmp/m.csv" || fail "sim"
$CP explore models/haswell/mmu.udd "$tmp/m.csv" --candidates abort,bypass,replay,pde_early,pml4_cache \
	-o "$tmp/x.txt" 2>/dev/null; [ $? = 1 ] || fail "explore should find no model"
grep -q "^suggested μpaths for the best model, {} " "$tmp/x.txt" || { cat "$tmp/x.txt"; fail "no suggestions"; }
grep -q '^  1\. explains 1 of 1: new load μpath load.retired, load.retired_stlb_miss (like \[2\], +load.retired_stlb_miss;.*new store μpath store.retired, store.retired_stlb_miss' "$tmp/x.txt" ||
	{ cat "$tmp/x.txt"; fail "the first suggestion"; }

# --html: the same suggestions as a page
$CP suggest tests/data/flows/walk_merge.udd tests/data/flows/merge.csv --keep 2 \
	--html "$tmp/s.html" > "$tmp/s.txt" || fail "html: exit $?"
grep -q '<h3>Suggestion 2: explains <span class="feasible">3 of 3</span> observations</h3>' "$tmp/s.html" ||
	fail "html: no second suggestion"
grep -q '<td><code>load.retired, load.retired_stlb_miss</code></td><td>\[1\] <code>load.retired</code>' "$tmp/s.html" ||
	fail "html: the merged μpath"
exit 0
