#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/check_parts.sh: `check` reads its dataset in parts (stats_reader)
# and writes the report a check of the whole dataset writes, byte for byte:
# text, --json and -o, at one and two threads, on a file grouped by
# observation, on one whose observations take turns in groups of three,
# and on both through standard input; a file not grouped by observation
# (observations taking turns throughout, rows sorted by event, shuffled)
# is read by observation, and through a pipe is an error; observations
# longer than a part, in parts and in one.  The
# reference is a check with --html, which loads the dataset whole.  Small parts (COUNTERPOINT_PART_BYTES) cut these small files
# into many.  Last, a file larger than the address space allowed by
# `ulimit -v` checks in parts, where the whole-file load runs out, and so
# does one observation larger than it from a pipe.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
M=models/haswell/mmu.udd
W="--with prefetch"
T=$PWD/datasets/sim-sweep-all.csv

# N observations of PER intervals, cut from the bundled sweep's, WIDTH of
# them taking turns interval by interval; observation 300 never counts
# its first event (unusable).
gen() {
	python3 - "$T" "$@" <<'PY'
import sys, collections
tpl, n, per, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
lines = open(tpl).read().splitlines()
rows = collections.OrderedDict()
for l in lines[1:]:
    f = l.split(',', 2)
    rows.setdefault(f[0], collections.OrderedDict()).setdefault(int(f[1]), []).append(f[2])
pieces = []
for o, ivs in rows.items():
    ks = sorted(ivs)
    for a in range(0, len(ks) - per + 1, per):
        pieces.append((o, [ivs[k] for k in ks[a:a + per]]))
out = sys.stdout
out.write(lines[0] + '\n')
for w0 in range(0, n, width):
    grp = [(j, pieces[j % len(pieces)]) for j in range(w0, min(n, w0 + width))]
    for t in range(per):
        for j, (o, ivs) in grp:
            for r in ivs[t]:
                if j == 300 and r is ivs[t][0]:
                    f = r.split(',')
                    r = ','.join([f[0], '0', f[2], '0'] + f[4:])
                out.write('j%d-%s,%d,%s\n' % (j, o, t, r))
PY
}
gen 700 5 1 > "$tmp/grouped.csv" || fail "generating the data"
gen 700 5 3 > "$tmp/turns.csv"
gen 700 5 700 > "$tmp/mixed.csv"
# the grouped rows sorted by event (stable), and shuffled
python3 - "$tmp" <<'PY' || fail "reordering the data"
import sys, random
d = sys.argv[1]
head, *rows = open(d + '/grouped.csv').read().splitlines(True)
open(d + '/byevent.csv', 'w').write(head + ''.join(sorted(rows, key=lambda r: r.split(',')[2])))
random.Random(7).shuffle(rows)
open(d + '/shuffled.csv', 'w').write(head + ''.join(rows))
# shuffled again with CRLF line ends and blank lines among the rows
rows = [r.replace('\n', '\r\n') + ('\r\n' if i % 97 == 0 else '') for i, r in enumerate(rows)]
open(d + '/crlf.csv', 'w', newline='').write(head.replace('\n', '\r\n') + ''.join(rows))
PY

cd "$tmp" || fail "cd"
case $CP in /*) ;; *) CP=$OLDPWD/$CP ;; esac
M=$OLDPWD/$M
export COUNTERPOINT_PART_BYTES=200000
for f in grouped turns mixed byevent shuffled crlf; do
	for out in text json; do
		o=; [ $out = json ] && o=--json
		"$CP" check "$M" $f.csv $W $o --html whole.html >whole.$f.$out 2>/dev/null
		rc=$?; [ $rc = 1 ] || fail "$f $out: whole-file check exit $rc, expected 1"
		for t in 1 2; do
			"$CP" check "$M" $f.csv $W $o --threads $t >parts 2>err; rc=$?
			[ $rc = 1 ] || { cat err; fail "$f $out threads $t: exit $rc"; }
			cmp -s whole.$f.$out parts || fail "$f $out threads $t: report differs"
			case $f in grouped|turns) by=0 ;; *) by=1 ;; esac
			[ "$(grep -c "^counterpoint check: note: $f.csv is not grouped by observation: read by observation in [0-9]* parts" err)" = $by ] ||
				{ cat err; fail "$f $out threads $t: read by observation is not said (or said wrongly)"; }
			"$CP" check "$M" $f.csv $W $o --threads $t -o parts.o 2>/dev/null
			cmp -s whole.$f.$out parts.o || fail "$f $out threads $t: -o differs"
		done
	done
done
grep -q '^j300-.*: unusable (.*its rows from grouped.csv:' whole.grouped.text ||
	fail "no unusable observation in the data"
grep -q 'INFEASIBLE' whole.grouped.text || fail "no infeasible observation in the data"
grep -q '"refutes": true' whole.grouped.json || fail "no refuting observation in the data"

# Standard input, from a pipe and redirected from the file (read as a
# file): the reports name the data '-' and its lines <stdin>:LINE;
# otherwise the same.
for f in grouped turns; do
	for t in 1 2; do
		for how in pipe file; do
			stdin() { if [ $how = pipe ]; then cat $f.csv | "$CP" "$@"; else "$CP" "$@" <$f.csv; fi; }
			stdin check "$M" - $W --threads $t >parts 2>err; rc=$?
			[ $rc = 1 ] || { cat err; fail "stdin ($how) $f threads $t: exit $rc"; }
			sed "s|its rows from $f.csv:|its rows from <stdin>:|" whole.$f.text | cmp -s - parts ||
				fail "stdin ($how) $f threads $t: text report differs"
			stdin check "$M" - $W --json --threads $t >parts 2>/dev/null
			sed -e "s|^\"data\": \"$f.csv\"|\"data\": \"-\"|" \
			    -e "s|\"file\": \"$f.csv\"|\"file\": \"<stdin>\"|" whole.$f.json |
				cmp -s - parts || fail "stdin ($how) $f threads $t: JSON report differs"
		done
	done
done
# the report beyond what is held waits in a file in TMPDIR; one that
# cannot be made is said
COUNTERPOINT_PART_BYTES=80 TMPDIR="$tmp" "$CP" check "$M" grouped.csv $W >parts 2>/dev/null
cmp -s whole.grouped.text parts || fail "a report spilled to TMPDIR differs"
COUNTERPOINT_PART_BYTES=80 TMPDIR="$tmp/none" "$CP" check "$M" grouped.csv $W >parts 2>err; rc=$?
[ $rc = 2 ] && grep -q "cannot make a temporary file in '$tmp/none' (TMPDIR): No such file or directory" err ||
	{ cat err; fail "TMPDIR that does not exist: exit $rc"; }
# standard input read as a file from where its reading stands (a line
# before the dataset taken by the shell)
{ echo "a line of something else"; cat grouped.csv; } >prefixed.csv
{ IFS= read -r skip; "$CP" check "$M" - $W >parts 2>err; } <prefixed.csv
sed "s|its rows from grouped.csv:|its rows from <stdin>:|" whole.grouped.text | cmp -s - parts ||
	{ cat err; fail "standard input after a line read by the shell: report differs"; }
# not grouped: from standard input redirected from the file, by
# observation; names quoted, loaded whole; bad rows of observations read
# in different parts, the whole file's messages; from a pipe, an error
"$CP" check "$M" - $W <shuffled.csv >parts 2>err
sed "s|its rows from shuffled.csv:|its rows from <stdin>:|" whole.shuffled.text | cmp -s - parts ||
	{ cat err; fail "standard input (a file) not grouped: report differs"; }
sed 's/^\(j[^,]*\),/"\1",/' mixed.csv >quoted.csv
"$CP" check "$M" quoted.csv $W >parts 2>err
sed "s|its rows from mixed.csv:|its rows from quoted.csv:|" whole.mixed.text | cmp -s - parts ||
	{ cat err; fail "quoted names not grouped: report differs"; }
grep -q 'read by observation' err && fail "quoted names read by observation"
awk '/^j(5|650)-[^,]*,4,/ && !bad[$1 ~ /^j5-/]++ { sub(/,4,/, ",x,") } { print }' mixed.csv >bad.csv
"$CP" check "$M" bad.csv $W --html whole.html >/dev/null 2>err.whole
"$CP" check "$M" bad.csv $W >/dev/null 2>err; rc=$?
[ $rc = 2 ] && [ "$(grep -c "interval 'x'" err)" = 2 ] && cmp -s err.whole err ||
	{ cat err; fail "bad rows in a file not grouped: exit $rc, or not the whole file's messages"; }
cat mixed.csv | "$CP" check "$M" - $W >parts 2>err; rc=$?
[ $rc = 2 ] || fail "stdin of observations taking turns: exit $rc, expected 2"
grep -q "<stdin>:[0-9]*: observation 'j[0-9]*-.*' has rows after other observations' rows" err ||
	{ cat err; fail "stdin of observations taking turns: no message"; }

# Observations longer than a part (its rows read on to where it ends)
# around short ones, at a family-wise level above the regions' own: the
# last part's family-wise check runs on the part in memory, the others'
# on their rows read again; and the same file as one part.
python3 - "$T" >long.csv <<'PY' || fail "generating the long observations"
import sys
lines = open(sys.argv[1]).read().splitlines()
head, rows = lines[0], [l.split(',', 2) for l in lines[1:]]
first = [r for r in rows if r[0] == rows[0][0]]
print(head)
for o, n in (('long-a', 400), ('short', 0), ('long-b', 300)):
    if n == 0:
        for r in rows[:len(first) // 5 * 2]:
            print(','.join(r))
        continue
    per = sum(1 for r in first if r[1] == '0')
    for i in range(n):
        for r in first[(i % (len(first) // per)) * per:][:per]:
            print('%s,%d,%s' % (o, i, r[2]))
PY
for part in 200000 0; do
	for out in text json; do
		o=; [ $out = json ] && o=--json
		"$CP" check "$M" long.csv $W $o --family-confidence 0.999 --html whole.html \
			>whole.long.$out 2>/dev/null
		COUNTERPOINT_PART_BYTES=$part "$CP" check "$M" long.csv $W $o \
			--family-confidence 0.999 --threads 1 >parts 2>err
		cmp -s whole.long.$out parts || { cat err; fail "long observations $out, parts of $part bytes: report differs"; }
		cat long.csv | COUNTERPOINT_PART_BYTES=$part "$CP" check "$M" - $W $o \
			--family-confidence 0.999 --threads 2 >parts 2>err
		sed -e "s|^\"data\": \"long.csv\"|\"data\": \"-\"|" whole.long.$out |
			cmp -s - parts || { cat err; fail "long observations $out from a pipe, parts of $part bytes: report differs"; }
		COUNTERPOINT_PART_BYTES=$part "$CP" check "$M" - $W $o \
			--family-confidence 0.999 --threads 2 <long.csv >parts 2>err
		sed -e "s|^\"data\": \"long.csv\"|\"data\": \"-\"|" whole.long.$out |
			cmp -s - parts || { cat err; fail "long observations $out from standard input (a file), parts of $part bytes: report differs"; }
	done
done
grep -q "^long-b: INFEASIBLE" whole.long.text || fail "the last long observation is not infeasible"
grep -q "REFUTED at 99.9%" whole.long.text || fail "the long observations refute nothing"
unset COUNTERPOINT_PART_BYTES

# 8,000 observations, 94 MB, checked within 80 MB of address space in
# parts of 4 MB; the whole-file load of the same file runs out.
gen 8000 5 1 > big.csv
(ulimit -v 80000; COUNTERPOINT_PART_BYTES=4000000 "$CP" check "$M" big.csv $W \
	--threads 1 >big.out 2>big.err); rc=$?
[ $rc = 1 ] || { cat big.err; fail "a file beyond ulimit -v: exit $rc, expected 1"; }
grep -q '^8000 observations, [0-9]* infeasible, 1 unusable' big.out ||
	{ tail -3 big.out; fail "a file beyond ulimit -v: summary"; }
(ulimit -v 80000; "$CP" check "$M" big.csv $W --threads 1 --html big.html \
	>/dev/null 2>&1); rc=$?
[ $rc = 3 ] || fail "the whole-file load within ulimit -v 80000 exited $rc, not 3 (out of memory): the limit tests nothing"
# the same observations taking turns throughout: read by observation
# within 60 MB, where loading it whole (names quoted) runs out
gen 8000 5 8000 > bigturns.csv
(ulimit -v 60000; COUNTERPOINT_PART_BYTES=4000000 "$CP" check "$M" bigturns.csv $W \
	--threads 1 >bigturns.out 2>big.err); rc=$?
[ $rc = 1 ] || { cat big.err; fail "a file not grouped beyond ulimit -v: exit $rc, expected 1"; }
"$CP" check "$M" bigturns.csv $W --threads 1 --html big.html >bigturns.whole 2>/dev/null
cmp -s bigturns.whole bigturns.out || fail "a file not grouped beyond ulimit -v: report differs"
# its parts' blocks loaded on two threads
COUNTERPOINT_PART_BYTES=4000000 "$CP" check "$M" bigturns.csv $W --threads 2 >bigturns.out 2>big.err
cmp -s bigturns.whole bigturns.out || { cat big.err; fail "a file not grouped on two threads: report differs"; }
sed 's/^\(j[^,]*\),/"\1",/' bigturns.csv >bigquoted.csv
(ulimit -v 60000; COUNTERPOINT_PART_BYTES=4000000 "$CP" check "$M" bigquoted.csv $W \
	--threads 1 >/dev/null 2>&1); rc=$?
[ $rc = 3 ] || fail "loading the file not grouped whole within ulimit -v 60000 exited $rc, not 3: the limit tests nothing"

# One observation of 30,000 intervals (48 MB) from a pipe, in parts of
# 4 MB: past its first part it goes on in a temporary file, so it checks
# within 60 MB of address space (its text held as well ran out), with
# the report the file gives.
python3 - "$T" 30000 >one.csv <<'PY' || fail "generating one long observation"
import sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split(',', 2) for l in lines[1:]]
first = [r for r in rows if r[0] == rows[0][0]]
per = sum(1 for r in first if r[1] == '0')
blocks = [[r[2] for r in first[k * per:(k + 1) * per]] for k in range(len(first) // per)]
out = [lines[0]]
for i in range(int(sys.argv[2])):
    out.extend('one,%d,%s' % (i, r) for r in blocks[i % len(blocks)])
print('\n'.join(out))
PY
"$CP" check "$M" one.csv $W --threads 1 >one.file 2>/dev/null
cat one.csv | (ulimit -v 60000; COUNTERPOINT_PART_BYTES=4000000 "$CP" check "$M" - $W \
	--threads 1 >one.pipe 2>one.err); rc=$?
[ $rc = 1 ] || { cat one.err; fail "one long observation from a pipe within ulimit -v 60000: exit $rc, expected 1"; }
cmp -s one.file one.pipe || fail "one long observation from a pipe: report differs"
# with no temporary file to be had, it grows in memory as before
cat one.csv | COUNTERPOINT_PART_BYTES=4000000 TMPDIR="$tmp/none" "$CP" check "$M" - $W \
	--threads 1 >one.pipe 2>one.err; rc=$?
[ $rc = 1 ] && cmp -s one.file one.pipe ||
	{ cat one.err; fail "one long observation from a pipe without TMPDIR: exit $rc"; }
exit 0
