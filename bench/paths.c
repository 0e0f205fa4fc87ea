/* bench/paths.c: enumeration speed of the μDD compiler.  For each model
 * given (default models/examples/big.udd) it times the memoised distinct-
 * signature enumeration and the plain walk over every μpath, and prints
 * μpaths/s and distinct signatures/s.  Figures only; never pass/fail. */
#include <stdio.h>

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

static int bench_model(const char *path)
{
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct cp_error err;
	double t0, t_memo, t_walk;
	unsigned long long walked = 0;
	int reps = 0;

	cp_error_clear(&err);
	if (udd_model_parse_file(path, &m, &err)) {
		fprintf(stderr, "bench/paths: %s: %s\n", path, err.msg);
		udd_model_free(m);
		return 1;
	}
	t0 = cp_seconds();
	do {
		udd_sigset_free(s);
		s = NULL;
		if (udd_sigset_build(m, 0, 0, &s, &err)) {
			fprintf(stderr, "bench/paths: %s\n", err.msg);
			udd_model_free(m);
			return 1;
		}
		reps++;
	} while (cp_seconds() - t0 < 1.0);
	t_memo = (cp_seconds() - t0) / reps;
	t0 = cp_seconds();
	udd_model_each_path(m, 0, count_path, &walked, &err);
	t_walk = cp_seconds() - t0;
	printf("%s\n", path);
	printf("  %llu μpaths, %zu distinct signatures, %zu counters\n",
	       (unsigned long long)udd_sigset_total_paths(s), udd_sigset_size(s),
	       udd_sigset_n_counters(s));
	printf("  memoised enumeration: %.3f ms (mean of %d runs): %.3g μpaths/s, %.3g distinct signatures/s\n",
	       t_memo * 1e3, reps, (double)udd_sigset_total_paths(s) / t_memo,
	       (double)udd_sigset_size(s) / t_memo);
	printf("  walking every μpath (with path text): %.3f ms: %.3g μpaths/s\n",
	       t_walk * 1e3, (double)walked / t_walk);
	udd_sigset_free(s);
	udd_model_free(m);
	return 0;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	printf("command: build/bench/paths%s\n", argc > 1 ? " MODEL..." : "");
	if (argc < 2)
		return bench_model("models/examples/big.udd");
	for (i = 1; i < argc; i++)
		rc |= bench_model(argv[i]);
	return rc;
}
