/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/paths.c: enumeration speed and memory of the μDD compiler.  For
 * each model file given (default models/examples/big.udd) and for the
 * generated shapes the language's own patterns make (properties decided
 * and then re-decided, long nests of switches), it times the distinct-
 * signature enumeration (udd_sigset_build), the rows alone as check and
 * explore make them (udd_signatures_build) and reports the peak memory of
 * a process that does only that; for files it also times both over every
 * feature set of the family and the walk over every μpath.  Figures only;
 * never pass/fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsl/udd.h"

static int count_path(void *ctx, const char *uop, const char *path,
		      const uint32_t *sig)
{
	(void)uop;
	(void)path;
	(void)sig;
	++*(unsigned long long *)ctx;
	return 0;
}

/* ---- generated shapes ---- */

/* n binary properties decided in order and then decided again in reverse
 * order, each decision incrementing on 'x': one counter for all
 * (n + 1 signatures) or one per property (2^n). */
static void gen_redecide(struct cp_buf *b, int n, int per_property)
{
	int i;

	if (per_property)
		for (i = 1; i <= n; i++)
			cp_buf_printf(b, "counter c%d \"C%d\";\n", i, i);
	else
		cp_buf_puts(b, "counter a1 \"A\";\n");
	for (i = 1; i <= n; i++)
		cp_buf_printf(b, "property p%d { x, y };\n", i);
	cp_buf_puts(b, "uop u {\n");
	for (i = 1; i <= n; i++)
		cp_buf_printf(b, "  switch (p%d) { case x: incr %s%d; case y: }\n",
			      i, per_property ? "c" : "a", per_property ? i : 1);
	for (i = n; i >= 1; i--)
		cp_buf_printf(b, "  switch (p%d) { case x: incr %s%d; case y: }\n",
			      i, per_property ? "c" : "a", per_property ? i : 1);
	cp_buf_puts(b, "  done;\n}\n");
}

/* n switches, each nested in the 'y' case of the one before (variant 0,
 * 1) or in the 'default' of one whose 'x' ends in done (2); 'x'
 * increments one counter for all (variant 0: 2 signatures) or one per
 * level (1, 2: n + 1).  n + 1 μpaths either way. */
static void gen_nested(struct cp_buf *b, int n, int variant)
{
	int i, per_level = variant > 0;

	if (variant == 2) {
		for (i = 1; i <= n; i++)
			cp_buf_printf(b, "counter c%d \"C%d\";\n", i, i);
		for (i = 1; i <= n; i++)
			cp_buf_printf(b, "property p%d { x, y };\n", i);
		cp_buf_puts(b, "uop u {\n");
		for (i = 1; i <= n; i++)
			cp_buf_printf(b, "switch (p%d) { case x: incr c%d; done; default:\n", i, i);
		cp_buf_puts(b, "done;\n");
		for (i = 1; i <= n; i++)
			cp_buf_puts(b, "}");
		cp_buf_puts(b, "\n}\n");
		return;
	}

	if (per_level)
		for (i = 1; i <= n; i++)
			cp_buf_printf(b, "counter c%d \"C%d\";\n", i, i);
	else
		cp_buf_puts(b, "counter c0 \"C0\";\n");
	for (i = 1; i <= n; i++)
		cp_buf_printf(b, "property p%d { x, y };\n", i);
	cp_buf_puts(b, "uop u {\n");
	for (i = 1; i <= n; i++)
		cp_buf_printf(b, "switch (p%d) { case x: incr c%d; case y:\n", i,
			      per_level ? i : 0);
	for (i = 1; i <= n; i++)
		cp_buf_puts(b, "}");
	cp_buf_puts(b, "\ndone;\n}\n");
}

/* ---- one measurement, in a child process so its peak memory is its own ---- */
static void measure(const char *label, const char *file, const char *src,
		    size_t len, size_t max_signatures, int walk)
{
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct cp_error err;
	double t0, t_memo, t_walk;
	unsigned long long walked = 0;
	int reps = 0, rc;

	cp_error_clear(&err);
	rc = file ? udd_model_parse_file(file, &m, &err)
		  : udd_model_parse_string(label, src, len, &m, &err);
	if (rc) {
		printf("%s\n  cannot parse: %s\n", label, err.msg);
		udd_model_free(m);
		return;
	}
	t0 = cp_seconds();
	do {
		udd_sigset_free(s);
		s = NULL;
		rc = udd_sigset_build(m, 0, max_signatures, &s, &err);
		reps++;
	} while (!rc && cp_seconds() - t0 < 1.0);
	t_memo = (cp_seconds() - t0) / reps;
	printf("%s\n", label);
	if (rc) {
		printf("  stops after %.3f ms: %s\n", t_memo * 1e3, err.msg);
	} else {
		printf("  %llu μpaths, %zu distinct signatures, %zu counters\n",
		       (unsigned long long)udd_sigset_total_paths(s), udd_sigset_size(s),
		       udd_sigset_n_counters(s));
		printf("  enumeration: %.3f ms (mean of %d runs): %.3g μpaths/s, %.3g distinct signatures/s\n",
		       t_memo * 1e3, reps, (double)udd_sigset_total_paths(s) / t_memo,
		       (double)udd_sigset_size(s) / t_memo);
	}
	{
		/* the rows alone, as check and explore make them (a walk over
		 * the μpaths where they are few, else the enumeration) */
		uint32_t *v = NULL;
		size_t n = 0;

		reps = 0;
		t0 = cp_seconds();
		do {
			cp_free(v);
			v = NULL;
			rc = udd_signatures_build(m, 0, max_signatures, &v, &n, &err);
			reps++;
		} while (!rc && cp_seconds() - t0 < 1.0);
		t_memo = (cp_seconds() - t0) / reps;
		if (rc)
			printf("  rows only: stops after %.3f ms\n", t_memo * 1e3);
		else
			printf("  rows only (udd_signatures_build): %.3f ms (mean of %d runs), %zu rows\n",
			       t_memo * 1e3, reps, n);
		cp_free(v);
	}
	if (file && udd_model_n_features(m) && udd_model_n_features(m) <= 12) {
		/* every feature set of the family, as explore meets them */
		udd_features sel, all = (udd_features)1 << udd_model_n_features(m);
		unsigned long long rows = 0;
		double t_sets = 0, t_rows = 0;

		for (sel = 0; sel < all; sel++) {
			struct udd_sigset *x = NULL;
			uint32_t *v = NULL;
			size_t n = 0;

			t0 = cp_seconds();
			rc = udd_sigset_build(m, sel, max_signatures, &x, &err);
			t_sets += cp_seconds() - t0;
			udd_sigset_free(x);
			t0 = cp_seconds();
			rc |= udd_signatures_build(m, sel, max_signatures, &v, &n, &err);
			t_rows += cp_seconds() - t0;
			rows += n;
			cp_free(v);
			if (rc)
				break;
		}
		if (sel == all)
			printf("  every feature set (%llu, %llu rows in all): enumeration %.3f s, rows only %.3f s\n",
			       (unsigned long long)all, rows, t_sets, t_rows);
	}
	if (walk) {
		t0 = cp_seconds();
		udd_model_each_path(m, 0, count_path, &walked, &err);
		t_walk = cp_seconds() - t0;
		printf("  walking every μpath (with path text): %.3f ms: %.3g μpaths/s\n",
		       t_walk * 1e3, (double)walked / t_walk);
	}
	udd_sigset_free(s);
	udd_model_free(m);
}

static int run(const char *label, const char *file, const char *src,
	       size_t len, size_t max_signatures, int walk)
{
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("bench/paths: fork");
		return 1;
	}
	if (pid == 0) {
		measure(label, file, src, len, max_signatures, walk);
		fflush(stdout);
		_exit(0);
	}
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status)) {
		printf("%s\n  the measuring process failed\n", label);
		return 1;
	}
	printf("  peak memory of the process: %.1f MB\n", (double)ru.ru_maxrss / 1024);
	return 0;
}

static int run_shape(const char *label, void (*gen)(struct cp_buf *, int, int),
		     int n, int variant, size_t max_signatures)
{
	struct cp_buf b;
	int rc;

	cp_buf_init(&b);
	gen(&b, n, variant);
	if (b.failed) {
		cp_buf_release(&b);
		return 1;
	}
	rc = run(label, NULL, b.data, b.len, max_signatures, 0);
	cp_buf_release(&b);
	return rc;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	printf("command: build/bench/paths%s\n", argc > 1 ? " MODEL..." : "");
	printf("(each figure: one thread; memory is the peak resident size of a child\n"
	       " process that parses the model and enumerates it)\n\n");
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			rc |= run(argv[i], argv[i], NULL, 0, 0, 1);
		return rc;
	}
	rc |= run("models/examples/big.udd", "models/examples/big.udd", NULL, 0, 0, 1);
	rc |= run("models/haswell/mmu.udd", "models/haswell/mmu.udd", NULL, 0, 0, 1);
	rc |= run_shape("20 properties decided, then re-decided in reverse order, one counter",
			gen_redecide, 20, 0, 0);
	rc |= run_shape("20 properties decided, then re-decided in reverse order, one counter each (2^20 signatures)",
			gen_redecide, 20, 1, 0);
	rc |= run_shape("the same with --max-signatures 100000",
			gen_redecide, 20, 1, 100000);
	rc |= run_shape("2,000 nested switches, one counter",
			gen_nested, 2000, 0, 0);
	rc |= run_shape("2,000 nested switches, one counter each",
			gen_nested, 2000, 1, 0);
	rc |= run_shape("2,000 nested switches, one counter each, 'x' ends in done, the rest in 'default'",
			gen_nested, 2000, 2, 0);
	return rc;
}
