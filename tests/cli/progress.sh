#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/progress.sh: long work (sim --sweep, explore, check) shows its progress on a terminal (one
# line on stderr, redrawn in place and erased at the end) and never when
# stderr is not one.  `script` gives the command a terminal.
command -v script >/dev/null || { echo "script (util-linux) not installed"; exit 77; }
# from the first update on, so that a fast machine shows it too
COUNTERPOINT_PROGRESS_AFTER=0; export COUNTERPOINT_PROGRESS_AFTER
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "progress.sh: $*"; exit 1; }
sweep="$CP sim --sweep --intervals 8 --interval-uops 20000"
script -qec "$sweep -o $tmp/tty.csv" /dev/null > "$tmp/tty.out" 2>&1 || fail "sim under a terminal failed"
grep -q 'counterpoint sim: [0-9]*/28 runs' "$tmp/tty.out" || fail "no progress line on a terminal"
# the last thing written is the erase of the line
[ "$(tail -c 4 "$tmp/tty.out" | od -An -c | tr -d ' ')" = '\r033[K' ] || fail "the progress line is not erased"
$sweep -o "$tmp/plain.csv" 2> "$tmp/plain.err" || fail "sim failed"
[ -s "$tmp/plain.err" ] && fail "progress written where stderr is not a terminal: $(head -c 80 "$tmp/plain.err")"
cmp -s "$tmp/tty.csv" "$tmp/plain.csv" || fail "the dataset depends on the terminal"

# explore: the models whose verdict is known out of the family, the checks run
search="$CP explore models/haswell/mmu.udd datasets/sim-sweep-all.csv --exhaustive --json --candidates merge,abort,bypass,pde_early,prefetch,replay"
script -qec "$search -o $tmp/tty.json" /dev/null > "$tmp/tty.out" 2>&1
[ $? -le 1 ] || fail "explore under a terminal failed"
grep -q 'counterpoint explore: [0-9]*/64 models known, [0-9]* checked' "$tmp/tty.out" ||
	fail "explore: no progress line on a terminal"
[ "$(tail -c 4 "$tmp/tty.out" | od -An -c | tr -d ' ')" = '\r033[K' ] || fail "explore: the progress line is not erased"
$search -o "$tmp/plain.json" 2> "$tmp/plain.err"
[ $? -le 1 ] || fail "explore failed"
grep -q 'counterpoint explore: [0-9]' "$tmp/plain.err" && fail "explore: progress where stderr is not a terminal"
cmp -s "$tmp/tty.json" "$tmp/plain.json" || fail "explore: the report depends on the terminal"
# check, read in parts: the observations checked and how much of the file
chk="$CP check models/haswell/mmu.udd datasets/sim-sweep-all.csv --threads 1"
script -qec "$chk -o $tmp/tty.txt" /dev/null > "$tmp/tty.out" 2>&1
[ $? -le 1 ] || fail "check under a terminal failed"
grep -q 'counterpoint check: [0-9]* observations checked, [0-9]*% of datasets/sim-sweep-all.csv read' "$tmp/tty.out" ||
	fail "check: no progress line on a terminal"
grep -q "$(printf '\033')\[Kcounterpoint check: note:" "$tmp/tty.out" ||
	fail "check: the progress line is not erased before the notes"
$chk -o "$tmp/plain.txt" 2> "$tmp/plain.err"
[ $? -le 1 ] || fail "check failed"
grep -q 'observations checked' "$tmp/plain.err" && fail "check: progress where stderr is not a terminal"
cmp -s "$tmp/tty.txt" "$tmp/plain.txt" || fail "check: the report depends on the terminal"
exit 0
