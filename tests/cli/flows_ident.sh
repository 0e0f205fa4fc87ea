#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/flows_ident.sh: identifiability in the flow bounds, on data of
# known truth.  tests/data/flows/walk_cache.udd: a walk cache hit costs
# one reference, so does a bypassed walk, and only load.skipped tells
# them apart; the data (cache.csv) have cache hits on about 5% of loads
# and no bypass.  With every counter both features are identifiable and
# the cache's share is bounded around 5%; without load.skipped each
# one's only signature is shared with the other's μpath: neither flow can
# be attributed, so none is bounded, and the reports say so (text, JSON,
# the HTML bars), naming the pair and load.skipped.  Then the simulator's
# PML4E cache (issue 44): its share of loads is not identifiable.
CP=${CP:-bin/counterpoint}
M=tests/data/flows/walk_cache.udd
D=tests/data/flows/cache.csv
SUB=load.retired,load.walks,walk_ref
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "flows_ident.sh: $*"; exit 1; }

"$CP" flows "$M" "$D" --with cache,bypass --json -o "$tmp/all.json" || fail "all: exit $?"
"$CP" flows "$M" "$D" --with cache,bypass --counters $SUB --json -o "$tmp/sub.json" ||
	fail "subset: exit $?"
"$CP" flows "$M" "$D" --with cache,bypass --counters $SUB -o "$tmp/sub.txt" || fail "text"
python3 - "$tmp" <<'PY' || fail "identifiability"
import json, sys
tmp = sys.argv[1]
a = json.load(open(tmp + "/all.json"))
idn = a["uops"]["load"]["identifiability"]
for f in ("cache", "bypass"):
    assert idn[f] == {"signatures": 1, "identifiable": 1, "shared": 0, "blind": 0,
                      "attributable": True, "shared_pair": None, "separator": None}, idn
b = a["observations"][0]["uops"]["load"]["cache"]
assert b["part"] == "all" and b["share"][0] <= 0.05 <= b["share"][1], b
s = json.load(open(tmp + "/sub.json"))
idn = s["uops"]["load"]["identifiability"]
assert s["uops"]["load"]["features"] == {"cache": 0, "bypass": 0}, s["uops"]
for f, mine, other in (("cache", "upper=hit", "skip=yes"), ("bypass", "skip=yes", "upper=hit")):
    x = idn[f]
    assert (x["signatures"], x["identifiable"], x["shared"], x["attributable"]) == (1, 0, 1, False), x
    assert mine in x["shared_pair"][0] and other in x["shared_pair"][1], x
    assert x["separator"] == "load.skipped", x
assert s["observations"][0]["uops"]["load"] == {}, s["observations"][0]
PY
grep -q '^    load cache: not identifiable by these counters: 1 of its 1 signatures come from μpaths without it too (e.g. .*; counter load.skipped would tell them apart); none of its flow can be attributed, so none is bounded$' "$tmp/sub.txt" ||
	{ cat "$tmp/sub.txt"; fail "text: cache not said to be unidentifiable"; }
"$CP" check "$M" "$D" --with cache,bypass --counters $SUB --html "$tmp/c.html" >/dev/null ||
	fail "check --html: exit $?"
grep -q 'Not identifiable by these counters, so bounded only on the signatures no μpath without the feature has (pale bars), or not at all: load cache (1 of its 1 signatures shared; nothing bounded); load bypass' "$tmp/c.html" ||
	fail "--html: not said"

# the PML4E cache beside bypassing walks: most of its μpaths' signatures
# are also bypassed or prefetched walks', so its flow is bounded only on
# the rest, and labelled so
"$CP" sim --sweep --workload linear:footprint=200M,stride=64,dir=down,stores=0.3 \
	--features prefetch,pml4_cache,bypass --seed 50399 --intervals 20 \
	--interval-uops 5000 --counters 28 -o "$tmp/s.csv" || fail "sim"
"$CP" flows models/haswell/mmu.udd "$tmp/s.csv" --with prefetch,pml4_cache,bypass \
	-o "$tmp/p.txt" 2>/dev/null
grep -q '^    load pml4_cache: not identifiable by these counters: [0-9]* of its [0-9]* signatures come from μpaths without it too .*pml4=hit.*the bounds below are of the flow on its other [0-9]* (the identifiable part), not of its flow$' "$tmp/p.txt" ||
	{ head -8 "$tmp/p.txt"; fail "pml4_cache not said to be unidentifiable"; }
grep -q '^  load     pml4_cache .*  (identifiable part only)$' "$tmp/p.txt" ||
	fail "pml4_cache's bounds not labelled the identifiable part"
exit 0
