#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/cli/harness.sh: the unit-test harness reports a passed, a failed and
# a skipped test as such (a skip is never counted as a pass), and run.sh's
# counting reads those lines.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "harness.sh: $*"; exit 1; }
cat > "$tmp/t.c" <<'C'
#include "tests/unit/check.h"
static void test_ok(void) { CHECK(1 + 1 == 2); }
static void test_bad(void) { CHECK(1 + 1 == 3); }
static void test_absent(void) { SKIP("no %s here", "widget"); CHECK(0); }
int main(void)
{
	check_prog = "t";
	RUN(test_ok);
	RUN(test_bad);
	RUN(test_absent);
	return check_summary();
}
C
${CC:-cc} -std=c11 -Wall -Wextra -Werror -I. -o "$tmp/t" "$tmp/t.c" || fail "does not compile"
"$tmp/t" > "$tmp/out"; rc=$?
[ "$rc" = 1 ] || fail "a failed test must make the program exit 1 (got $rc)"
grep -qx 'PASS: t:test_ok' "$tmp/out" || fail "pass line missing"
grep -qx 'FAIL: t:test_bad' "$tmp/out" || fail "fail line missing"
grep -qx 'SKIP: t:test_absent' "$tmp/out" || fail "skip line missing"
grep -qx '  skip: no widget here' "$tmp/out" || fail "skip reason missing"
[ "$(grep -c '^PASS: ' "$tmp/out")" = 1 ] || fail "a skipped test was counted as passed"
exit 0
