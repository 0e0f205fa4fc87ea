#!/bin/sh
# tests/run.sh: runs every test and prints "N passed, N failed, N skipped".
#  1. unit tests (build/tests/test_*), each printing PASS:/FAIL:/SKIP: lines;
#  2. the same unit tests built with AddressSanitizer + UBSan;
#  3. CLI golden cases (tests/cli/cases/NAME/{cmd,stdout,stderr,status});
#  4. CLI scripts (tests/cli/*.sh, tests/install.sh: exit 0 pass, 77 skip,
#     else fail);
#  5. DSL error cases (tests/dsl/errors/NAME.udd with NAME.err) and
#     dataset error cases (tests/stats/errors/NAME.csv with NAME.err);
#  6. fuzz corpus and past crashes replayed through the sanitized binary,
#     and every fuzz target run once on each file of its seed corpus.
# A failed case keeps its output under build/test-failures/.
LC_ALL=C; export LC_ALL
OPENBLAS_NUM_THREADS=1; export OPENBLAS_NUM_THREADS
ASAN_OPTIONS=detect_leaks=1; export ASAN_OPTIONS
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1; export UBSAN_OPTIONS
top=$(pwd)
CP="$top/bin/counterpoint"; export CP
ACP="$top/build/asan/counterpoint"; export ACP
fails="$top/build/test-failures"
rm -rf "$fails"; mkdir -p "$fails"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0; skip=0

ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }

run_unit() {  # $1 = binary, $2 = label prefix
	name=$2$(basename "$1")
	out="$tmp/unit.out"
	"$1" >"$out" 2>&1; rc=$?
	p=$(grep -c '^PASS: ' "$out"); f=$(grep -c '^FAIL: ' "$out")
	s=$(grep -c '^SKIP: ' "$out")
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	# a skipped test says why (the "  skip: ..." line just before it)
	awk -v pre="$2" '/^  skip: /{why=substr($0, 9)} /^SKIP: /{print "SKIP: " pre substr($0, 7) ": " why}' "$out"
	if [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then
		[ "$f" -eq 0 ] && ko "$name exited with status $rc"
		grep -v '^PASS: ' "$out" | sed "s|^|  $name: |" | head -n 60
		cp "$out" "$fails/$name.out"
	fi
}

for t in build/tests/test_*; do
	[ -x "$t" ] && run_unit "$t" ""
done
for t in build/asan/tests/test_*; do
	[ -x "$t" ] && run_unit "$t" "asan:"
done

# CLI golden cases: cmd runs with sh in the repository root.
for d in tests/cli/cases/*/; do
	[ -f "$d/cmd" ] || continue
	name=cli:$(basename "$d")
	(cd "$top" && sh "$d/cmd") >"$tmp/out" 2>"$tmp/err"; rc=$?
	want=0; [ -f "$d/status" ] && want=$(cat "$d/status")
	bad=""
	[ "$rc" = "$want" ] || bad="exit status $rc, expected $want"
	if [ -f "$d/stdout" ] && ! cmp -s "$tmp/out" "$d/stdout"; then
		bad="$bad stdout differs"; diff -u "$d/stdout" "$tmp/out" | head -n 30
	fi
	if [ -f "$d/stderr" ] && ! cmp -s "$tmp/err" "$d/stderr"; then
		bad="$bad stderr differs"; diff -u "$d/stderr" "$tmp/err" | head -n 30
	fi
	if [ -n "$bad" ]; then
		ko "$name: $bad"
		mkdir -p "$fails/$name"; cp "$tmp/out" "$tmp/err" "$fails/$name/"
	else
		ok
	fi
done

# CLI scripts: larger end-to-end checks.
for s in tests/cli/*.sh tests/install.sh; do
	[ -f "$s" ] || continue
	name=cli:$(basename "$s" .sh)
	(cd "$top" && sh "$s") >"$tmp/out" 2>&1; rc=$?
	if [ "$rc" = 0 ]; then ok
	elif [ "$rc" = 77 ]; then skip=$((skip + 1)); echo "SKIP: $name: $(tail -n 1 "$tmp/out")"
	else ko "$name (status $rc)"; tail -n 30 "$tmp/out"; cp "$tmp/out" "$fails/$(basename "$s").out"
	fi
done

# DSL error cases: `counterpoint paths` must print exactly NAME.err on
# stderr and exit 1.  A first line "// args: ..." adds options.
for u in tests/dsl/errors/*.udd; do
	[ -f "$u" ] || continue
	name=dsl:$(basename "$u" .udd)
	args=$(sed -n '1s|^// args: ||p' "$u")
	# shellcheck disable=SC2086
	"$CP" paths "$u" $args >/dev/null 2>"$tmp/err"; rc=$?
	want=1; [ -f "${u%.udd}.status" ] && want=$(cat "${u%.udd}.status")
	if [ "$rc" = "$want" ] && cmp -s "$tmp/err" "${u%.udd}.err"; then ok
	else ko "$name (status $rc)"; diff -u "${u%.udd}.err" "$tmp/err" | head -n 20
	fi
done

# Dataset error cases: `counterpoint region NAME.csv` must print exactly
# NAME.err on stderr (every message "file:line: ...") and exit 2
# (NAME.status otherwise); NAME.args adds options.
for c in tests/stats/errors/*.csv; do
	[ -f "$c" ] || continue
	name=dataset:$(basename "$c" .csv)
	args=""; [ -f "${c%.csv}.args" ] && args=$(cat "${c%.csv}.args")
	# shellcheck disable=SC2086
	"$CP" region "$c" $args >/dev/null 2>"$tmp/err"; rc=$?
	want=2; [ -f "${c%.csv}.status" ] && want=$(cat "${c%.csv}.status")
	if [ "$rc" = "$want" ] && cmp -s "$tmp/err" "${c%.csv}.err"; then ok
	else ko "$name (status $rc)"; diff -u "${c%.csv}.err" "$tmp/err" | head -n 20
	fi
done

# Fuzz corpus replay under the sanitizers: any status above 2 is a crash.
# The DSL corpus and past DSL crashes go through the sanitized command.
if [ -x "$ACP" ]; then
	for f in tests/fuzz/corpus/fuzz_parser/* tests/fuzz/crashes/*; do
		[ -f "$f" ] || continue
		"$ACP" paths "$f" >/dev/null 2>"$tmp/err"; rc=$?
		if [ "$rc" -le 2 ]; then ok
		else ko "fuzz-replay:$f (status $rc)"; tail -n 20 "$tmp/err"
		fi
	done
fi

# Every fuzz target (built with clang, ASan and UBSan) runs each file of
# its seed corpus once: libFuzzer exits non-zero on a crash, a leak or
# undefined behaviour.
for t in tests/fuzz/fuzz_*.c; do
	[ -f "$t" ] || continue
	n=$(basename "$t" .c); bin="$top/build/fuzz/$n"
	if [ ! -x "$bin" ]; then ko "fuzz:$n: $bin not built"; continue; fi
	seeds=0
	for f in tests/fuzz/corpus/"$n"/*; do
		[ -f "$f" ] || continue
		seeds=$((seeds + 1))
		if "$bin" "$f" >"$tmp/out" 2>&1; then ok
		else ko "fuzz:$n:$f"; tail -n 20 "$tmp/out"
		fi
	done
	[ "$seeds" -gt 0 ] || ko "fuzz:$n: no seed corpus in tests/fuzz/corpus/$n"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
