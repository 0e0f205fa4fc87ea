#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/stdout_full.sh: a standard output that cannot take the
# result (/dev/full: no space left) is an error of every command, exit 2
# with the reason, as any other output that cannot be written (region
# said exit 3, --help said nothing and exit 0).
CP=${CP:-bin/counterpoint}
fail() { echo "stdout_full.sh: $*"; exit 1; }
[ -c /dev/full ] || { echo "no /dev/full"; exit 77; }
M=models/linux/faults.udd
D=tests/data/perf/sw.long.csv
for c in "region $D" "check $M $D" "paths $M" "cone $M" "dot $M" \
	 "import perf tests/data/perf/sw.csv" "sim --intervals 1 --interval-uops 100 --warmup 100" \
	 "--help" "--version" "check --help" "sim --print-config"; do
	# shellcheck disable=SC2086
	"$CP" $c >/dev/full 2>"${TMPDIR:-/tmp}/stdout_full.$$"; rc=$?
	err=$(cat "${TMPDIR:-/tmp}/stdout_full.$$"); rm -f "${TMPDIR:-/tmp}/stdout_full.$$"
	[ $rc = 2 ] || fail "$c > /dev/full: status $rc"
	printf '%s\n' "$err" | grep -q "cannot write to standard output: No space left on device" ||
		fail "$c > /dev/full: $err"
done
exit 0
