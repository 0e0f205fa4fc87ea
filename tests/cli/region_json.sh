#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/region_json.sh: `region --json` is valid JSON (docs/schema/region.json) with
# the text report's numbers, also for names that are not UTF-8.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "region_json.sh: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not installed"; exit 77; }
"$CP" region tests/data/perf/sw.long.csv --json > "$tmp/sw.json" || fail "sw.long.csv failed"
"$CP" region tests/data/perf/sw.long.csv > "$tmp/sw.txt" || fail "sw.long.csv text failed"
# an observation and an event named with bytes that are not UTF-8
printf 'observation,interval,event,value,enabled_ns,running_ns\n' > "$tmp/bad.csv"
for i in 0 1 2 3; do
	printf 'r\377n,%d,ev\300,%d,10,10\nr\377n,%d,b,%d,10,10\n' $i $((i * 3 + 1)) $i $((i + 5)) >> "$tmp/bad.csv"
done
"$CP" region "$tmp/bad.csv" --json > "$tmp/bad.json" || fail "non-UTF-8 names failed"
python3 - "$tmp/sw.json" "$tmp/sw.txt" "$tmp/bad.json" <<'PY' || fail "schema check failed"
import json, sys
sw = json.load(open(sys.argv[1], encoding="utf-8"))
assert sw["schema"] == 2 and sw["model"] is None, sw
o = sw["observations"][0]
text = open(sys.argv[2]).read().split("\n")
for c in o["counters"]:   # the text's mean column, %.6g
    line = [l for l in text if l.split()[:1] == [c["name"]]][0]
    assert float(line.split()[1]) == float("%.6g" % c["mean"]), (line, c)
k = len(o["counters"])
assert len(o["pca_box"]) == k and all(len(a["axis"]) == k for a in o["pca_box"])
assert len(o["covariance"]) == k
w = [a["half_width"] for a in o["pca_box"]]
assert w == sorted(w, reverse=True), w
bad = json.load(open(sys.argv[3], encoding="utf-8"))
names = [bad["observations"][0]["name"]] + [c["name"] for c in bad["observations"][0]["counters"]]
assert names == ["r\u00ffn", "b", "ev\u00c0"] or names == ["r\u00ffn", "ev\u00c0", "b"], names
PY
exit 0
