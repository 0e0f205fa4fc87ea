#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/endless.sh: inputs that never end are not read until memory
# runs out: /dev/zero is refused at its first byte (a text has no NUL)
# by every reader, and a pipe whose line never ends stops at 16 MB.
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
exit 0
