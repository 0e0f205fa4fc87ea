#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/same_file.sh: no command writes an output onto one of its
# inputs or onto another of its outputs, whatever the names (the same
# path, another spelling, a hard link, a symbolic link): each refuses
# with exit 2 before any work, as cp refuses "are the same file", and
# the files stay as they were.  A command's outputs are written all or
# none: check with an --html that cannot be written leaves -o alone.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "same_file.sh: $*"; exit 1; }
cp models/linux/faults.udd "$tmp/m.udd" && cp tests/data/perf/sw.long.csv "$tmp/d.csv" &&
	cp tests/data/perf/sw.csv "$tmp/p.csv" || fail "no test data"
ln "$tmp/d.csv" "$tmp/hard.csv" && ln -s d.csv "$tmp/sym.csv" || fail "links"
cp "$tmp/m.udd" "$tmp/m.keep" && cp "$tmp/d.csv" "$tmp/d.keep" && cp "$tmp/p.csv" "$tmp/p.keep"

refused() {  # $@: a command that must refuse
	"$CP" "$@" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc = 2 ] || fail "$*: status $rc, expected 2: $(cat "$tmp/err")"
	grep -q "are the same file$" "$tmp/err" || fail "$*: $(cat "$tmp/err")"
}
refused check "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/d.csv"
refused check "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/hard.csv"
refused check "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/sym.csv"
refused check "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/../${tmp##*/}/d.csv"
refused check "$tmp/m.udd" "$tmp/d.csv" --html "$tmp/m.udd"
refused check "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/r" --html "$tmp/./r"
refused explore "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/r" --dot "$tmp/r" --html "$tmp/r"
refused explore "$tmp/m.udd" "$tmp/d.csv" --dot "$tmp/d.csv"
refused flows "$tmp/m.udd" "$tmp/d.csv" --with anon -o "$tmp/m.udd"
refused dot "$tmp/m.udd" -o "$tmp/m.udd"
refused import perf "$tmp/p.csv" -o "$tmp/p.csv"
refused record --model "$tmp/m.udd" -o "$tmp/m.udd" -- true
refused import gem5 "$tmp/p.csv" -o "$tmp/p.csv"
refused suggest "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/r" --html "$tmp/r"
refused suggest "$tmp/m.udd" "$tmp/d.csv" --html "$tmp/hard.csv"
refused sim --truth "$tmp/s.csv" -o "$tmp/s.csv"
"$CP" sim --print-config > "$tmp/c.cfg" && cp "$tmp/c.cfg" "$tmp/c.keep" || fail "print-config"
refused sim --config "$tmp/c.cfg" -o "$tmp/c.cfg"
cmp -s "$tmp/c.cfg" "$tmp/c.keep" || fail "sim's --config changed"
[ -e "$tmp/r" ] && fail "an output was written"
cmp -s "$tmp/m.udd" "$tmp/m.keep" && cmp -s "$tmp/d.csv" "$tmp/d.keep" &&
	cmp -s "$tmp/p.csv" "$tmp/p.keep" || fail "an input changed"
# what is no input: standard output twice, /dev/null twice
"$CP" explore "$tmp/m.udd" "$tmp/d.csv" -o /dev/null --dot /dev/null >/dev/null 2>&1
rc=$?; [ $rc -le 1 ] || fail "explore -o /dev/null --dot /dev/null: status $rc"

# all or none: --html into a directory fails, and -o keeps what it had
echo "the old report" > "$tmp/report.txt"
"$CP" check "$tmp/m.udd" "$tmp/d.csv" -o "$tmp/report.txt" --html "$tmp" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] || fail "--html into a directory: status $rc"
[ "$(cat "$tmp/report.txt")" = "the old report" ] || fail "-o was written though --html failed"
ls "$tmp" | grep -q '\.tmp\.' && fail "a temporary file was left: $(ls "$tmp")"
exit 0
