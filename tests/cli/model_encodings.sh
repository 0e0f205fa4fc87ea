#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/model_encodings.sh: every bundled processor model's events,
# as `record --dry-run --pmu PMU` encodes them (LIBPFM_ENCODE_INACTIVE=1:
# on any machine), are the codes of the vendor's own list
# (tests/data/vendor/, sources in its README): each counter resolves, its
# config is the vendor's event code and unit mask (Intel: event | umask <<
# 8; AMD: event bits 0-7 and 32-35, umask << 8), and every raw code the
# model lists as an alias is that code too.  Then the model compiles and
# its cone is computed.
CP=${CP:-bin/counterpoint}
V=tests/data/vendor
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "model_encodings.sh: $*"; exit 1; }

check() {  # $1 model, $2 libpfm4 PMU, $3... vendor lists
	model=$1; pmu=$2; shift 2
	LIBPFM_ENCODE_INACTIVE=1 "$CP" record --model "$model" --dry-run \
		--pmu "$pmu" >"$tmp/dry" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "$model: dry run for $pmu failed"; }
	python3 - "$model" "$pmu" "$tmp/dry" "$@" <<'EOF' || fail "$model on $pmu"
import json, re, sys
model, pmu, dry, lists = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
amd = pmu.startswith("amd64")

def code(e):
    ev, um = int(e["EventCode"], 16), int(e.get("UMask", "0"), 16)
    c = (ev & 0xff) | (um << 8) | ((ev & 0xf00) << 24)
    c |= int(e.get("CounterMask", "0")) << 24
    c |= int(e.get("Invert", "0")) << 23 | int(e.get("EdgeDetect", "0")) << 18
    return c

vendor = []
for f in lists:
    d = json.load(open(f))
    vendor.append({e["EventName"]: code(e) for e in (d["Events"] if isinstance(d, dict) else d)})
counters = re.findall(r'^counter\s+(\S+)\s+((?:"[^"]*"\s*\|?\s*)+);', open(model).read(), re.M)
assert counters, "no counter lines"
bad = []
first = {}
for name, alts in counters:
    names = re.findall(r'"([^"]*)"', alts)
    first[names[0]] = name
    for v, f in zip(vendor, lists):
        if names[0] not in v:
            bad.append("%s: %s is not in %s" % (name, names[0], f))
            continue
        for a in names[1:]:
            if re.fullmatch(r"r[0-9a-fA-F]+", a) and int(a[1:], 16) != v[names[0]]:
                bad.append("%s: alias %s is not %s's code %#x in %s" % (name, a, names[0], v[names[0]], f))
lines = [l.rstrip("\n").split("\t") for l in open(dry)]
assert len(lines) == len(counters), "%d encodings for %d counters" % (len(lines), len(counters))
for (name, alts), l in zip(counters, lines):
    names = re.findall(r'"([^"]*)"', alts)
    m = re.search(r" config=(0x[0-9a-f]+|0)\b", l[1])
    got = int(m.group(1), 16)
    if len(l) > 2 and not l[2].startswith("for '%s'," % names[0]):
        bad.append("%s: note %r" % (name, l[2]))
    if l[0] not in names:
        bad.append("%s: opens %s, not one of its names" % (name, l[0]))
    if " hardware" not in l[1]:
        bad.append("%s: not a hardware event: %s" % (name, l[1]))
    for v, f in zip(vendor, lists):
        if names[0] in v and got != v[names[0]]:
            bad.append("%s: %s encodes as %#x, %s says %#x" % (name, l[0], got, f, v[names[0]]))
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("%s on %s: %d counters, each the vendor's code" % (model, pmu, len(counters)))
EOF
	"$CP" cone "$model" >"$tmp/cone" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "$model: cone failed"; }
	grep -q '^facets (' "$tmp/cone" || fail "$model: no facets"
}

check models/haswell/mmu.udd hsw $V/haswell_core.json
check models/skylake/mmu.udd skl $V/skylake_core.json $V/cascadelakex_core.json
check models/skylake/mmu.udd clx $V/skylake_core.json $V/cascadelakex_core.json
check models/icelake/mmu.udd icl $V/icelake_core.json $V/icelakex_core.json
check models/icelake/mmu.udd icx $V/icelake_core.json $V/icelakex_core.json
check models/sapphirerapids/mmu.udd spr $V/sapphirerapids_core.json $V/alderlake_goldencove_core.json
check models/zen3/mmu.udd amd64_fam19h_zen3 $V/amdzen3_memory.json
check models/zen4/mmu.udd amd64_fam19h_zen4 $V/amdzen4_memory.json
exit 0
