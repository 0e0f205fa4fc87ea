#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/endless.sh: inputs that never end are not read until memory
# runs out: /dev/zero is refused at its first byte (a text has no NUL)
# by every reader, a pipe whose line never ends stops at 16 MB, and an
# endless pipe of valid rows stops at the text held at once
# (COUNTERPOINT_STREAM_MAX lowers it from 4 GB): the whole text of a
# dataset loaded whole, the one observation `check` cannot cut.
CP=${CP:-bin/counterpoint}
fail() { echo "endless.sh: $*"; exit 1; }
M=models/linux/faults.udd
try() {  # $1: the status wanted, $2: the message wanted, then the command
	want=$1; msg=$2; shift 2
	out=$(timeout 20 "$CP" "$@" 2>&1 >/dev/null); rc=$?
	[ $rc = "$want" ] || fail "$*: status $rc, expected $want: $(printf '%s' "$out" | head -c 300)"
	printf '%s\n' "$out" | grep -q "$msg" || fail "$*: $(printf '%s' "$out" | head -c 300)"
}
try 2 "/dev/zero:1: not a text file (NUL byte)" region /dev/zero
try 2 "/dev/zero:1: not a text file (NUL byte)" check $M /dev/zero
try 1 "/dev/zero:1:1: error: unexpected byte 0x00" paths /dev/zero
try 2 "/dev/zero:1:1: not a text file (NUL byte)" import perf /dev/zero
try 2 "/dev/zero:1:1: not a text file (NUL byte)" sim --workload trace:/dev/zero
try 2 "/dev/zero:1:1: not a text file (NUL byte)" sim --config /dev/zero
out=$(yes x | tr -d '\n' | timeout 60 "$CP" region /dev/stdin 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "counterpoint region: /dev/stdin:1: line longer than 16 MB (from a pipe or a device: stopped reading)" ] ||
	fail "an endless line from a pipe: status $rc: $(printf '%s' "$out" | head -c 300)"
# check reads a dataset in parts as it comes: the same limits
out=$( (echo observation,interval,event,value,enabled_ns,running_ns; yes x | tr -d '\n') |
	timeout 60 "$CP" check $M - 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && [ "$out" = "counterpoint check: <stdin>:2: line longer than 16 MB (from a pipe or a device: stopped reading)" ] ||
	fail "check, an endless line from a pipe: status $rc: $(printf '%s' "$out" | head -c 300)"
# endless valid rows: the same one again and again, or one observation
# whose intervals go on; the line named is the one where the limit is met
H=observation,interval,event,value,enabled_ns,running_ns
COUNTERPOINT_STREAM_MAX=1000000; export COUNTERPOINT_STREAM_MAX
endless() {  # $1: rows (same, more), $2: the message wanted, then the command
	rows=$1; msg=$2; shift 2
	out=$( (echo $H; case $rows in
		same) yes 'a,0,e,1,1,1' ;;
		more) seq 1 100000000 | awk '{print "a,"$1",e,1,1,1"}' ;;
		esac) 2>/dev/null | timeout 20 "$CP" "$@" 2>&1 >/dev/null); rc=$?
	[ $rc = 2 ] && [ "$out" = "$msg" ] ||
		fail "endless rows ($rows), $*: status $rc: $(printf '%s' "$out" | head -c 300)"
}
# the limit counts the header in a whole text, not in an observation: a
# header of 55 bytes, rows of 12, byte 1000000 is on line 83330 or 83335
endless same "counterpoint region: /dev/stdin:83330: input longer than 1000000 bytes from a pipe or a device: stopped reading (write it to a file)" region /dev/stdin
endless same "counterpoint check: <stdin>:83335: observation longer than 1000000 bytes from a pipe or a device: stopped reading (write it to a file)" check $M -
endless more "counterpoint region: /dev/stdin:63192: input longer than 1000000 bytes from a pipe or a device: stopped reading (write it to a file)" region /dev/stdin
endless more "counterpoint check: <stdin>:63196: observation longer than 1000000 bytes from a pipe or a device: stopped reading (write it to a file)" check $M -
# up to the limit an input is read: a dataset of exactly that many bytes
D=datasets/sim-sweep-all.csv
COUNTERPOINT_STREAM_MAX=$(wc -c < $D)
"$CP" region /dev/stdin < $D > /dev/null 2>&1 && cat $D | "$CP" region /dev/stdin > /dev/null ||
	fail "a dataset as long as the limit from a pipe"
COUNTERPOINT_STREAM_MAX=$((COUNTERPOINT_STREAM_MAX - 1))
out=$(cat $D | "$CP" region /dev/stdin 2>&1 >/dev/null) && fail "a dataset one byte over the limit from a pipe"
exit 0
