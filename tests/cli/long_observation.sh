#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/long_observation.sh: one observation whose rows take 64 MB or
# more is not held but read again from its file in pieces whenever its
# rates are needed (stats/dataset.c, "lazy").  `region` and `check`
# (text and --json, one and two threads, a model the data refutes, so
# the family-wise region reads it again) write what the whole load
# writes, byte for byte, on layouts that make pieces meet inside an
# interval (COUNTERPOINT_LAZY_BYTES=1: pieces of 256 bytes), with CRLF
# line ends and blank lines, rows of an interval in any order, an event
# first counted late; and on layouts pieces cannot read (an interval out
# of order, an event twice in one, a bad row, a second observation),
# which load whole with the same messages.  Last, an observation of
# 100,000 intervals x 28 events (164 MB) at the default size: `region`
# and `check` within 70 MB of address space, where the whole load needs
# 95 MB.
# tier: full
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
M=models/haswell/mmu.udd
OBSGEN=build/bench/obsgen
[ -x "$OBSGEN" ] || make -s "$OBSGEN" >/dev/null || fail "building $OBSGEN"

"$OBSGEN" datasets/sim-sweep-all.csv 300 --long >"$tmp/long.csv" || fail "generating the data"
python3 - "$tmp" <<'PY' || fail "making the layouts"
import sys, random
d = sys.argv[1]
head, *rows = open(d + '/long.csv').read().splitlines()
rnd = random.Random(7)
ivs = {}
for r in rows:
    ivs.setdefault(int(r.split(',')[1]), []).append(r)
def write(name, lines, nl='\n'):
    open(d + '/' + name + '.csv', 'w', newline='').write(nl.join([head] + lines) + nl)
# CRLF, blank lines, rows of an interval in any order, one event from
# interval 150 on, one not counted now and then
out = []
for i in sorted(ivs):
    rs = list(ivs[i])
    rnd.shuffle(rs)
    for r in rs:
        f = r.split(',')
        if f[2].endswith('WALK_DURATION') and f[2].startswith('DTLB_STORE') and i < 150:
            continue
        if rnd.random() < 0.02:
            f[3], f[5] = '0', '0'
        out.append(','.join(f))
        if rnd.random() < 0.01:
            out.append(rnd.choice(['', ' ', '\t']))
write('mixed', out, '\r\n')
flat = [r for i in sorted(ivs) for r in ivs[i]]
swap = list(flat); swap[28 * 10:28 * 12] = swap[28 * 11:28 * 12] + swap[28 * 10:28 * 11]
write('swapped', swap)
write('twice', flat[:5000] + [flat[4990]] + flat[5000:])
bad = list(flat); bad[6000] = bad[6000].replace(',', ',x', 1)
write('bad', bad)
write('second', flat + ['other,' + r.split(',', 1)[1] for r in flat[:56]])
PY

for f in long mixed swapped twice bad second; do
	D=$tmp/$f.csv
	for cmd in "region $D" "region $D --json --threads 2" \
		"check $M $D --with prefetch --json" \
		"check $M $D --with prefetch,merge,pde_early,pml4_cache,abort,replay,bypass --threads 2"; do
		COUNTERPOINT_LAZY_BYTES=0 "$CP" $cmd >"$tmp/whole.out" 2>&1; echo "exit $?" >>"$tmp/whole.out"
		COUNTERPOINT_LAZY_BYTES=1 "$CP" $cmd >"$tmp/lazy.out" 2>&1; echo "exit $?" >>"$tmp/lazy.out"
		cmp -s "$tmp/whole.out" "$tmp/lazy.out" ||
			{ diff "$tmp/whole.out" "$tmp/lazy.out" | head; fail "$f: $cmd: in pieces, not as whole"; }
	done
done
grep -q '^exit 1$' "$tmp/whole.out" || fail "the model the data refutes: $(tail -1 "$tmp/whole.out")"
COUNTERPOINT_LAZY_BYTES=0 "$CP" region "$tmp/bad.csv" >/dev/null 2>&1 && fail "a bad row: exit 0"

# 164 MB at the default size: within 70 MB of address space
B=$tmp/big.csv
"$OBSGEN" datasets/sim-sweep-all.csv 100000 --long >"$B" || fail "generating 164 MB"
(ulimit -v 70000; "$CP" region "$B" --threads 1 >"$tmp/big.out" 2>"$tmp/big.err") ||
	{ cat "$tmp/big.err"; fail "region of one long observation within ulimit -v 70000"; }
grep -q '100000 intervals, 28 counters' "$tmp/big.out" ||
	{ head -3 "$tmp/big.out"; fail "region: intervals"; }
(ulimit -v 70000; "$CP" check "$M" "$B" --with prefetch --threads 1 >"$tmp/big.out" 2>"$tmp/big.err")
[ $? = 1 ] || { cat "$tmp/big.err"; fail "check of one long observation within ulimit -v 70000"; }
grep -q '^1 observations\?, 1 infeasible' "$tmp/big.out" || { tail -3 "$tmp/big.out"; fail "check: summary"; }
(ulimit -v 70000; COUNTERPOINT_LAZY_BYTES=0 "$CP" region "$B" --threads 1 >/dev/null 2>&1)
[ $? = 3 ] || fail "the whole load within ulimit -v 70000 did not run out: the limit tests nothing"
echo "ok"
