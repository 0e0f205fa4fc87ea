#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/run.sh: runs the tests in parallel and prints
# "N passed, N failed, N skipped".
#
#   sh tests/run.sh [--quick] [-j N] [PATTERN ...]
#
# --quick is `make check`'s tier: unit tests, CLI golden cases, the error
# catalogues, quick CLI scripts and the DSL fuzz corpus replayed through
# the plain binary.  Without it (`make test`) every test runs: also the
# CLI scripts marked "# tier: full" (browser, MPI, long sweeps), the
# corpus replayed through the sanitized binary, the fuzz targets on their
# seed corpora, and the unit tests again under ASan and UBSan, reported
# on a line of their own and not added to the count.
# A PATTERN (an extended regular expression) keeps the tests whose name
# (group/name, as the failures print it: unit/test_udd, case/check-m0,
# script/explore, dsl/unknown-counter ...) it matches.
#
# Groups run one after another, each with a progress line; the tests of a
# group run N at a time (default: the number of processors).  A failed
# test keeps its output under build/test-failures/.
LC_ALL=C; export LC_ALL
ASAN_OPTIONS=detect_leaks=1; export ASAN_OPTIONS
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS
top=$(pwd)
CP=${CP:-$top/bin/counterpoint}; export CP
ACP=${ACP:-$top/build/asan/counterpoint}; export ACP

# ---- one test: sh tests/run.sh --one GROUP NAME OUT ----
# Writes OUT.res ("passed failed skipped") and OUT.log (what to show when
# it fails).  A unit test program counts its PASS:/FAIL:/SKIP: lines.
if [ "$1" = --one ]; then
	g=$2; n=$3; out=$4; log=$out.log
	pass=0; fail=0; skip=0
	unit() {  # $1 = binary
		if [ ! -x "$1" ]; then
			echo "$1 is not built (make check or make test builds it)" >"$log"
			fail=1; return
		fi
		"$1" >"$log" 2>&1; rc=$?
		pass=$(grep -c '^PASS: ' "$log"); fail=$(grep -c '^FAIL: ' "$log")
		skip=$(grep -c '^SKIP: ' "$log")
		[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && {
			fail=1; echo "exited with status $rc" >>"$log"; }
	}
	verdict() {  # $1 = 0 pass, 77 skip, else fail
		case $1 in 0) pass=1 ;; 77) skip=1 ;; *) fail=1 ;; esac
	}
	# an error catalogue's case: command $1 on file $2 exits with
	# FILE.status (default $3) and prints FILE.err; $4 adds options
	error_case() {
		base=${2%.*}
		# shellcheck disable=SC2086
		"$CP" "$1" "$2" $4 >/dev/null 2>"$out.stderr"; rc=$?
		want=$3; [ -f "$base.status" ] && want=$(cat "$base.status")
		{ echo "status $rc, expected $want"
		  diff -u "$base.err" "$out.stderr" | head -n 20; } >"$log"
		[ "$rc" = "$want" ] && cmp -s "$out.stderr" "$base.err"
		verdict $?
	}
	case $g in
	unit) unit "build/tests/$n" ;;
	asan) unit "build/asan/tests/$n" ;;
	case)
		d=tests/cli/cases/$n
		sh "$d/cmd" >"$out.stdout" 2>"$out.stderr"; rc=$?
		want=0; [ -f "$d/status" ] && want=$(cat "$d/status")
		: >"$log"
		[ "$rc" = "$want" ] || echo "exit status $rc, expected $want" >>"$log"
		# every case compares stdout (an empty file when it must be empty)
		if [ ! -f "$d/stdout" ]; then echo "no $d/stdout" >>"$log"
		elif ! cmp -s "$out.stdout" "$d/stdout"; then
			echo "stdout differs:" >>"$log"
			diff -u "$d/stdout" "$out.stdout" | head -n 30 >>"$log"
		fi
		if [ -f "$d/stderr" ] && ! cmp -s "$out.stderr" "$d/stderr"; then
			echo "stderr differs:" >>"$log"
			diff -u "$d/stderr" "$out.stderr" | head -n 30 >>"$log"
		fi
		[ -s "$log" ]; verdict $((1 - $?))
		;;
	script)
		sh "tests/cli/$n.sh" >"$log" 2>&1; verdict $? ;;
	install)
		sh tests/install.sh >"$log" 2>&1; verdict $? ;;
	dsl)
		# `counterpoint paths` prints exactly NAME.err on stderr and
		# exits 1 (NAME.status); a first line "// args: ..." adds options
		u=tests/dsl/errors/$n.udd
		error_case paths "$u" 1 "$(sed -n '1s|^// args: ||p' "$u")" ;;
	dataset)
		# `counterpoint region NAME.csv` prints exactly NAME.err and
		# exits 2 (NAME.status); NAME.args adds options
		c=tests/stats/errors/$n.csv
		args=""; [ -f "${c%.csv}.args" ] && args=$(cat "${c%.csv}.args")
		error_case region "$c" 2 "$args" ;;
	replay)
		# the DSL fuzz corpus and past crashes: a status above 2 is a
		# crash (ASan's command in the full tier)
		bin=$CP; [ -n "$REPLAY_ASAN" ] && bin=$ACP
		"$bin" paths "$n" >/dev/null 2>"$log"; rc=$?
		[ "$rc" -le 2 ]; verdict $? ;;
	fuzz)
		# a fuzz target (clang, ASan, UBSan) once on each seed: libFuzzer
		# exits non-zero on a crash, a leak or undefined behaviour
		t=${n%%/*}; f=tests/fuzz/corpus/$n
		build/fuzz/"$t" "$f" >"$log" 2>&1; verdict $? ;;
	esac
	echo "$pass $fail $skip" >"$out.res"
	exit 0
fi

# ---- the list of tests, the groups, the summary ----
quick=0; jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2); pat=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	-h|--help) sed -n '3,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) pat="$pat${pat:+|}$1" ;;
	esac
	shift
done
# the quick tier builds no sanitized command: tests that run it run the
# plain one
[ $quick = 1 ] && ACP=$CP
fails="$top/build/test-failures"
rm -rf "$fails"; mkdir -p "$fails"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
total_p=0; total_f=0; total_s=0; asan_line=""

# A script is in the full tier when it says "# tier: full" in its
# first lines.
tier_full() { head -n 12 "$1" | grep -q '^# tier: full'; }

# The tests of group $1, one "group NAME" per line.
list() {
	case $1 in
	unit|asan)
		# from the sources: a test that was not built fails
		for t in tests/unit/test_*.c; do
			t=${t##*/}; echo "$1 ${t%.c}"; done ;;
	case)
		for d in tests/cli/cases/*/; do
			[ -f "$d/cmd" ] && echo "case $(basename "$d")"; done ;;
	script)
		for s in tests/cli/*.sh; do
			[ $quick = 1 ] && tier_full "$s" && continue
			echo "script $(basename "$s" .sh)"
		done
		[ $quick = 1 ] || echo "install install" ;;
	dsl)
		for u in tests/dsl/errors/*.udd; do
			[ -f "$u" ] && echo "dsl $(basename "$u" .udd)"; done ;;
	dataset)
		for c in tests/stats/errors/*.csv; do
			[ -f "$c" ] && echo "dataset $(basename "$c" .csv)"; done ;;
	replay)
		for f in tests/fuzz/corpus/fuzz_parser/* tests/fuzz/crashes/*; do
			[ -f "$f" ] && echo "replay $f"; done ;;
	fuzz)
		for t in tests/fuzz/fuzz_*.c; do
			t=$(basename "$t" .c)
			for f in tests/fuzz/corpus/"$t"/*; do
				[ -f "$f" ] && echo "fuzz $t/${f##*/}"; done
		done ;;
	esac
}

# Run group $1 ($2: its label); adds to the totals (or, for asan, makes
# its own line).
group() {
	list "$1" >"$tmp/list"
	if [ -n "$pat" ]; then
		awk '{ print $1 "/" $2 " " $0 }' "$tmp/list" | grep -E -- "^[^ ]*($pat)" |
			cut -d' ' -f2- >"$tmp/list.k"
		mv "$tmp/list.k" "$tmp/list"
	fi
	[ -s "$tmp/list" ] || return 0
	start=$(date +%s)
	mkdir -p "$tmp/$1"
	# each test's output file: its name with / made _
	awk -v dir="$tmp/$1" '{ f = $2; gsub("/", "_", f); print $1, $2, dir "/" f }' \
		"$tmp/list" | xargs -P "$jobs" -L 1 sh "$0" --one
	p=0; f=0; s=0
	while read -r g n; do
		o=$tmp/$1/$(echo "$n" | tr / _)
		if [ ! -f "$o.res" ]; then
			f=$((f + 1)); echo "FAIL: $g/$n: did not finish"; continue
		fi
		read -r tp tf ts <"$o.res"
		p=$((p + tp)); f=$((f + tf)); s=$((s + ts))
		if [ "$tf" -gt 0 ]; then
			echo "FAIL: $g/$n"
			grep -v '^PASS: ' "$o.log" | head -n 40 | sed 's/^/  /'
			mkdir -p "$fails/$g"
			cp "$o".* "$fails/$g/" 2>/dev/null
		fi
		if [ "$ts" -gt 0 ]; then
			# a skipped test says why (a unit test: the "  skip:" line
			# before it; a script: its last line)
			if [ "$g" = unit ] || [ "$g" = asan ]; then
				awk -v pre="$g/" '/^  skip: /{why=substr($0, 9)} /^SKIP: /{print "SKIP: " pre substr($0, 7) ": " why}' "$o.log"
			else
				echo "SKIP: $g/$n: $(tail -n 1 "$o.log")"
			fi
		fi
	done <"$tmp/list"
	printf '%-9s %4d passed, %d failed, %d skipped (%s s)\n' "$2" "$p" "$f" "$s" \
		$(($(date +%s) - start))
	if [ "$1" = asan ]; then
		asan_line="sanitizers (the unit tests again under ASan and UBSan, not counted above): $p passed, $f failed, $s skipped"
		asan_f=$f
	else
		total_p=$((total_p + p)); total_f=$((total_f + f)); total_s=$((total_s + s))
	fi
}

asan_f=0
# the full tier replays the fuzz corpora through the sanitized command
[ $quick = 0 ] && { REPLAY_ASAN=1; export REPLAY_ASAN; }
group unit unit
group case cases
group dsl dsl
group dataset datasets
group replay replay
group script scripts
if [ $quick = 0 ]; then
	group fuzz fuzz
	group asan asan
fi
[ -n "$asan_line" ] && echo "$asan_line"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ] && [ "$asan_f" -eq 0 ]
