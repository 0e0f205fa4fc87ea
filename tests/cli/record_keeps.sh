#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/record_keeps.sh: record -o never destroys an existing dataset
# before its first interval is on disk: a command that cannot run, an
# unknown event, a name no dataset holds (refused) and the time before
# the first interval leave the old file as it was; a hard-linked
# target is written for every name; a recorder killed with -9 leaves a
# temporary file that the next write to the target removes.
CP=${CP:-bin/counterpoint}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "record_keeps.sh: $*"; exit 1; }
"$CP" record -u -e page-faults -o "$tmp/probe.csv" -- true 2>"$tmp/err" ||
	{ echo "cannot record here: $(cat "$tmp/err")"; exit 77; }
echo "precious" > "$tmp/keep.csv"
precious() { [ "$(cat "$tmp/keep.csv")" = precious ] || fail "$1: keep.csv is now: $(head -c 200 "$tmp/keep.csv")"; }

"$CP" record -u -e page-faults -o "$tmp/keep.csv" -- /nonexistent/cmd 2>/dev/null
[ $? = 2 ] || fail "a command that cannot run: status"
precious "a command that cannot run"
"$CP" record -u -e no-such-event -o "$tmp/keep.csv" -- true 2>/dev/null
precious "an unknown event"
"$CP" record -u --observation "$(printf 'a\nb')" -e page-faults -o "$tmp/keep.csv" -- true 2>"$tmp/err"
[ $? = 2 ] && grep -q "has a newline" "$tmp/err" || fail "an observation name with a newline: $(cat "$tmp/err")"
precious "a name with a newline"
# before the first interval (one second) the old file is still there
"$CP" record -u -I 1000 -e page-faults -o "$tmp/keep.csv" -- sleep 2 &
pid=$!
sleep 0.5
precious "half a second into the first interval"
wait $pid || fail "the recording failed"
grep -q '^sleep,0,page-faults,' "$tmp/keep.csv" || fail "no first interval: $(cat "$tmp/keep.csv")"

# a hard-linked target: both names see the dataset
echo "old" > "$tmp/h1.csv" && ln "$tmp/h1.csv" "$tmp/h2.csv" || fail "ln"
"$CP" record -u -e page-faults --observation h -o "$tmp/h1.csv" -- true || fail "hard link: $?"
grep -q '^h,0,page-faults,' "$tmp/h2.csv" || fail "the other name of a hard link: $(cat "$tmp/h2.csv")"
[ "$(stat -c %h "$tmp/h1.csv")" = 2 ] || fail "the hard link was cut"

# killed before its first interval: the old file stays, and the
# temporary file it left goes with the next write
echo "precious" > "$tmp/keep.csv"
"$CP" record -u -I 5000 -e page-faults -o "$tmp/keep.csv" -- sleep 3 &
pid=$!
sleep 0.5
kill -KILL $pid
wait $pid 2>/dev/null
precious "a recorder killed with -9"
ls "$tmp" | grep -q '^keep\.csv\.tmp\.' || fail "no temporary file left by kill -9 (nothing to clean)"
"$CP" record -u -e page-faults -o "$tmp/keep.csv" -- true || fail "after the kill: $?"
ls "$tmp" | grep -q '\.tmp\.' && fail "temporary files left: $(ls "$tmp")"
exit 0
