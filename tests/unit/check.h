/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/check.h: the unit-test harness.  A test program is a list of
 * `static void test_NAME(void)` functions run by RUN(); each prints one line
 * "PASS: prog:NAME", "FAIL: prog:NAME" (with the failed checks before it)
 * or "SKIP: prog:NAME" (a test whose prerequisite this machine lacks, with
 * the reason before it), which tests/run.sh counts.  main() returns
 * check_summary(). */
#ifndef CHECK_H
#define CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int check_failed_now;
static int check_skipped_now;
static int check_tests_failed;
static const char *check_prog = "test";

#define CHECK(cond) do { \
	if (!(cond)) { \
		printf("  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		check_failed_now = 1; \
	} \
} while (0)

#define CHECKF(cond, ...) do { \
	if (!(cond)) { \
		printf("  %s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		check_failed_now = 1; \
	} \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *check_a_ = (a), *check_b_ = (b); \
	if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_)) { \
		printf("  %s:%d: strings differ:\n    got:      %s\n    expected: %s\n", \
		       __FILE__, __LINE__, check_a_ ? check_a_ : "(null)", \
		       check_b_ ? check_b_ : "(null)"); \
		check_failed_now = 1; \
	} \
} while (0)

#define CHECK_NEAR(a, b, tol) do { \
	double check_x_ = (a), check_y_ = (b); \
	if (!(fabs(check_x_ - check_y_) <= (tol))) { \
		printf("  %s:%d: %s = %.17g, expected %.17g (tol %g)\n", \
		       __FILE__, __LINE__, #a, check_x_, check_y_, (double)(tol)); \
		check_failed_now = 1; \
	} \
} while (0)

/* A child process for a test that sets an address-space limit
 * (RLIMIT_AS), under which the sanitizer's allocator cannot run: the test
 * is skipped in the sanitized build. */
#if defined(__SANITIZE_ADDRESS__)
#define FORK_UNDER_LIMIT(pid) \
	SKIP("the sanitizer's allocator does not run under an address-space limit")
#else
#define FORK_UNDER_LIMIT(pid) do { \
	fflush(stdout); \
	(pid) = fork(); \
	CHECK((pid) >= 0); \
} while (0)
#endif

/* Child process PID's end: exit status WANT, or the check fails naming
 * the status or the signal it had. */
#define CHECK_CHILD_EXIT(pid, want) do { \
	int check_st_ = 0; \
	CHECK(waitpid((pid), &check_st_, 0) == (pid)); \
	CHECKF(WIFEXITED(check_st_) && WEXITSTATUS(check_st_) == (want), \
	       "child: %s %d", WIFEXITED(check_st_) ? "exit" : "signal", \
	       WIFEXITED(check_st_) ? WEXITSTATUS(check_st_) : WTERMSIG(check_st_)); \
} while (0)

/* Skip the rest of the current test (call it from the test function
 * itself): the machine lacks a prerequisite, which is said, not passed. */
#define SKIP(...) do { \
	printf("  skip: "); \
	printf(__VA_ARGS__); \
	printf("\n"); \
	check_skipped_now = 1; \
	return; \
} while (0)

#define RUN(fn) do { \
	check_failed_now = 0; \
	check_skipped_now = 0; \
	fn(); \
	printf("%s: %s:%s\n", check_failed_now ? "FAIL" : \
	       check_skipped_now ? "SKIP" : "PASS", check_prog, #fn); \
	fflush(stdout); \
	if (check_failed_now) \
		check_tests_failed++; \
} while (0)

static inline int check_summary(void)
{
	return check_tests_failed ? 1 : 0;
}

#endif
