/* bench/cone.c: how long the exact cone takes on random sparse signature
 * sets shaped like μDD signatures (each bumps 1 to 5 counters by 1 to 4),
 * dimensions 8, 12, 16, 20 and 50 to 300 signatures, fixed seeds.  Prints
 * figures, never pass/fail.
 *
 *   build/bench/cone [--quick] [--repeat N] [--oracle] [--limit S] [MODEL...]
 *
 * Each MODEL (default: the bundled examples) is timed first: parsing,
 * signatures and cone.  Every cone stops after --limit seconds (default
 * 60) and reports that instead of a time.
 * --oracle also runs normaliz (when installed) on each set and compares
 * facet counts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cp.h"
#include "dsl/udd.h"
#include "geometry/cone.h"

static uint64_t state;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void random_set(size_t k, size_t m, uint64_t seed, uint32_t *S)
{
	size_t j;

	state = seed * 0x9E3779B97F4A7C15ULL + 12345;
	memset(S, 0, k * m * sizeof *S);
	for (j = 0; j < m; j++) {
		unsigned bumps = 1 + (unsigned)(rnd() % 5), b;

		for (b = 0; b < bumps; b++)
			S[j * k + rnd() % k] += 1 + (uint32_t)(rnd() % 4);
	}
}

/* Facet count from normaliz, or -1 when it is not installed or fails. */
static long normaliz_facets(size_t k, size_t m, const uint32_t *S)
{
	char dir[] = "/tmp/cone-bench-XXXXXX", path[256], line[512];
	FILE *f;
	long n = -1;
	size_t j, i;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof path, "%s/c.in", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "amb_space %zu\ncone %zu\n", k, m);
	for (j = 0; j < m; j++) {
		for (i = 0; i < k; i++)
			fprintf(f, "%u ", S[j * k + i]);
		fprintf(f, "\n");
	}
	fprintf(f, "SupportHyperplanes\n");
	fclose(f);
	snprintf(line, sizeof line, "cd %s && normaliz -c c.in >/dev/null 2>&1", dir);
	if (system(line) == 0) {
		snprintf(path, sizeof path, "%s/c.out", dir);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof line, f))
			if (strstr(line, "support hyperplanes") && n < 0)
				n = strtol(line, NULL, 10);
		if (f)
			fclose(f);
	}
	snprintf(line, sizeof line, "rm -rf %s", dir);
	if (system(line)) {
		/* nothing to do: a stale temp folder is harmless */
	}
	return n;
}

static void bench_model(const char *path, const struct cone_options *opt,
			int repeat)
{
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct cone *c = NULL;
	struct cp_error err;
	double best = 1e9, t0, t1;
	int r;

	t0 = now();
	if (udd_model_parse_file(path, &m, &err) ||
	    udd_sigset_build(m, 0, 0, &s, &err)) {
		printf("%-34s error: %s\n", path, err.msg);
		goto out;
	}
	t1 = now();
	for (r = 0; r < repeat; r++) {
		double t2 = now(), t;

		cone_free(c);
		c = NULL;
		if (cone_build(udd_sigset_n_counters(s), udd_sigset_size(s),
			       udd_sigset_matrix(s), opt, &c, &err)) {
			printf("%-34s k=%zu m=%zu: %s\n", path, udd_sigset_n_counters(s),
			       udd_sigset_size(s), err.msg);
			goto out;
		}
		t = now() - t2;
		if (t < best)
			best = t;
	}
	printf("%-34s %-5zu %-5zu %-5zu %-8zu %-8zu %-10.4f (signatures %.4f s)\n",
	       path, udd_sigset_n_counters(s), udd_sigset_size(s), cone_dim(c),
	       cone_n_facets(c), cone_n_extreme(c), best, t1 - t0);
out:
	cone_free(c);
	udd_sigset_free(s);
	udd_model_free(m);
}

int main(int argc, char **argv)
{
	static const size_t dims[] = { 8, 12, 16, 20 };
	static const size_t sizes[] = { 50, 100, 200, 300 };
	static const char *const bundled[] = {
		"models/examples/walk_basic.udd", "models/examples/walk_pde_early.udd",
		"models/examples/big.udd", NULL
	};
	const char *models[64];
	int quick = 0, oracle = 0, repeat = 3, a, nmodels = 0, i;
	double limit = 60;
	struct cone_options copt = { 0, 0 };
	size_t di, si;
	uint32_t *S = malloc(20 * 300 * sizeof *S);

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--quick"))
			quick = 1;
		else if (!strcmp(argv[a], "--oracle"))
			oracle = 1;
		else if (!strcmp(argv[a], "--repeat") && a + 1 < argc)
			repeat = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--limit") && a + 1 < argc)
			limit = atof(argv[++a]);
		else if (nmodels < 64)
			models[nmodels++] = argv[a];
	}
	copt.max_seconds = limit;
	if (!nmodels)
		for (; bundled[nmodels]; nmodels++)
			models[nmodels] = bundled[nmodels];
	if (repeat < 1)
		repeat = 1;
	printf("# best of %d runs; the machine is shared, so times are noisy\n", repeat);
	printf("%-34s %-5s %-5s %-5s %-8s %-8s %-10s\n", "model", "k", "m", "dim",
	       "facets", "extreme", "seconds");
	for (i = 0; i < nmodels; i++)
		bench_model(models[i], &copt, repeat);
	printf("\n# exact cone on random sparse signature sets (seed = dim*1000 + m)\n");
	printf("%-5s %-5s %-5s %-8s %-8s %-10s%s\n", "k", "m", "dim", "facets",
	       "extreme", "seconds", oracle ? " normaliz" : "");
	for (di = 0; di < sizeof dims / sizeof *dims; di++) {
		for (si = 0; si < sizeof sizes / sizeof *sizes; si++) {
			size_t k = dims[di], m = sizes[si];
			double best = 1e9;
			struct cone *c = NULL;
			struct cp_error err;
			int r, rc = 0;

			if (quick && (m > 100 || k > 12))
				continue;
			random_set(k, m, k * 1000 + m, S);
			for (r = 0; r < repeat; r++) {
				double t0 = now(), t;

				cone_free(c);
				c = NULL;
				rc = cone_build(k, m, S, &copt, &c, &err);
				t = now() - t0;
				if (t < best)
					best = t;
				if (rc)
					break;
			}
			if (rc) {
				printf("%-5zu %-5zu error: %s\n", k, m, err.msg);
				continue;
			}
			printf("%-5zu %-5zu %-5zu %-8zu %-8zu %-10.4f", k, m,
			       cone_dim(c), cone_n_facets(c), cone_n_extreme(c), best);
			if (oracle)
				printf(" %ld", normaliz_facets(k, m, S));
			printf("\n");
			fflush(stdout);
			cone_free(c);
		}
	}
	printf("# command: build/bench/cone%s%s --repeat %d --limit %g", quick ? " --quick" : "",
	       oracle ? " --oracle" : "", repeat, limit);
	for (i = 0; i < nmodels && models[0] != bundled[0]; i++)
		printf(" %s", models[i]);
	printf("\n");
	free(S);
	return 0;
}
