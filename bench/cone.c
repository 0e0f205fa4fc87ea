/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/cone.c: how long the exact cone takes, against the exact peers.
 *
 *   build/bench/cone [--all] [--case NAME]... [--limit S] [--repeat N]
 *                    [--no-peers] [--no-normaliz] [--no-lrs] [--qhull]
 *                    [MODEL...]
 *
 * Each MODEL (default: the bundled models, and mmu.udd with its slowest
 * feature selection and with all features) is timed first: parsing,
 * signatures and cone, then the peers on its signatures; MODEL may be
 * PATH:FEATURES (a --with list, or all).  Then the fixed-seed signature sets of
 * bench/cone_cases.h (sparse, dense, one embedded in more counters than its
 * dimension); the slow ones only with --all.  When normaliz (Debian
 * package `normaliz`) or lrs (`lrslib`) is installed, each set also goes
 * to them (one thread, same --limit through timeout(1)), and the line
 * prints their wall time, the ratio counterpoint / peer, and whether the
 * facet SETS are identical: each facet is identified by the signatures it
 * holds (a facet is determined by them), peers' normals are parsed exactly
 * (GMP) and checked to hold on every signature.  --qhull also times the
 * forced Qhull method.  Prints figures and the command, never pass/fail. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <gmp.h>

#include "bench/cone_cases.h"
#include "common/cp.h"
#include "dsl/udd.h"
#include "geometry/cone.h"

static const struct cone_case cases[] = {
	{ "sparse-12-100", CASE_SPARSE, 12, 100, 1, 0 },
	{ "sparse-16-150", CASE_SPARSE, 16, 150, 2, 0 },
	{ "sparse-20-300", CASE_SPARSE, 20, 300, 13, 0 },
	{ "dense-12-30", CASE_DENSE, 12, 30, 1, 0 },
	{ "embedded-14in16-100", CASE_EMBEDDED, 16, 100, 1, 0 },
	{ "embedded-14in16-60", CASE_EMBEDDED, 16, 60, 1, 1 },
	{ "sparse-20-300-b", CASE_SPARSE, 20, 300, 15, 1 },
	{ "sparse-16-100", CASE_SPARSE, 16, 100, 2, 1 },
};

/* ==== facet sets as sets of incidence bit-sets ==== */

struct facet_set {
	size_t n, cap, words;
	uint64_t *inc;  /* n * words: signatures on the facet */
	int invalid;    /* some normal fails a.s >= 0 */
};

static int cmp_words;

static int cmp_inc(const void *a, const void *b)
{
	return memcmp(a, b, (size_t)cmp_words * sizeof(uint64_t));
}

/* Record normal a (k entries) as the set of signatures it holds. */
static void set_add(struct facet_set *fs, size_t k, size_t m,
		    const uint32_t *S, mpz_t *a, mpz_t t)
{
	size_t j, i;
	uint64_t *row;

	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 1024;
		fs->inc = realloc(fs->inc, fs->cap * fs->words * sizeof *fs->inc);
		if (!fs->inc) {
			fprintf(stderr, "out of memory\n");
			exit(3);
		}
	}
	row = fs->inc + fs->n * fs->words;
	memset(row, 0, fs->words * sizeof *row);
	for (j = 0; j < m; j++) {
		mpz_set_ui(t, 0);
		for (i = 0; i < k; i++)
			mpz_addmul_ui(t, a[i], S[j * k + i]);
		if (mpz_sgn(t) < 0)
			fs->invalid = 1;
		else if (!mpz_sgn(t))
			row[j / 64] |= (uint64_t)1 << (j % 64);
	}
	fs->n++;
}

static void set_sort(struct facet_set *fs)
{
	cmp_words = (int)fs->words;
	qsort(fs->inc, fs->n, fs->words * sizeof *fs->inc, cmp_inc);
}

static const char *set_compare(struct facet_set *a, struct facet_set *b)
{
	if (a->invalid || b->invalid)
		return "INVALID normal";
	if (a->n != b->n)
		return "DIFFERENT count";
	set_sort(a);
	set_sort(b);
	if (memcmp(a->inc, b->inc, a->n * a->words * sizeof *a->inc))
		return "DIFFERENT sets";
	return "identical";
}

/* ==== the peers ==== */

struct peer_run {
	double wall, cpu;
	int ok;          /* 1 ran and parsed, 0 failed, -1 not installed */
	int timed_out;
};

static double children_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

static void run_timed(const char *cmd, struct peer_run *pr)
{
	double t0 = cp_seconds(), c0 = children_cpu();
	int st = system(cmd);

	pr->wall = cp_seconds() - t0;
	pr->cpu = children_cpu() - c0;
	pr->timed_out = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 124;
	pr->ok = st == 0;
}

/* Parse up to n rows of k+skip integers from f into fs, one row a line
 * (the first skip entries dropped; rows whose k entries are all zero and
 * rows marked in is_eq dropped). */
static int read_rows(FILE *f, size_t n, size_t skip, size_t k, size_t m,
		     const uint32_t *S, struct facet_set *fs, const unsigned char *is_eq,
		     size_t n_eq)
{
	mpz_t *a = malloc((k + 1) * sizeof *a), t;
	char *line = NULL;
	size_t cap = 0, r, i;
	int rc = 0;

	mpz_init(t);
	for (i = 0; i < k; i++)
		mpz_init(a[i]);
	for (r = 0; r < n && !rc; r++) {
		char *tok, *save = NULL;
		int zero = 1;

		if (getline(&line, &cap, f) < 0) {
			rc = -1;
			break;
		}
		tok = strtok_r(line, " \t\n", &save);
		for (i = 0; i < skip && tok; i++)
			tok = strtok_r(NULL, " \t\n", &save);
		for (i = 0; i < k && !rc; i++, tok = strtok_r(NULL, " \t\n", &save)) {
			if (!tok || mpz_set_str(a[i], tok, 10))
				rc = -1;
			else if (mpz_sgn(a[i]))
				zero = 0;
		}
		if (!rc && !zero && !(r < n_eq && is_eq[r]))
			set_add(fs, k, m, S, a, t);
	}
	free(line);
	for (i = 0; i < k; i++)
		mpz_clear(a[i]);
	free(a);
	mpz_clear(t);
	return rc;
}

static void normaliz(const char *dir, size_t k, size_t m, const uint32_t *S,
		     double limit, struct peer_run *pr, struct facet_set *fs)
{
	char path[512], cmd[1024], line[512];
	FILE *f;
	size_t j, i, n;

	pr->ok = -1;
	if (!have("normaliz"))
		return;
	snprintf(path, sizeof path, "%s/c.in", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "amb_space %zu\ncone %zu\n", k, m);
	for (j = 0; j < m; j++) {
		for (i = 0; i < k; i++)
			fprintf(f, "%u ", S[j * k + i]);
		fprintf(f, "\n");
	}
	fprintf(f, "SupportHyperplanes\n");
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd %s && rm -f c.out && timeout %g normaliz -c -x=1 "
		 "c.in >/dev/null 2>&1", dir, limit);
	run_timed(cmd, pr);
	if (!pr->ok)
		return;
	snprintf(path, sizeof path, "%s/c.out", dir);
	f = fopen(path, "r");
	pr->ok = 0;
	while (f && fgets(line, sizeof line, f)) {
		char tail[64];

		if (sscanf(line, "%zu support hyperplane%63[^\n]", &n, tail) == 2 &&
		    strchr(tail, ':')) {
			pr->ok = !read_rows(f, n, 0, k, m, S, fs, NULL, 0);
			break;
		}
	}
	if (f)
		fclose(f);
}

static void lrs(const char *dir, size_t k, size_t m, const uint32_t *S,
		double limit, struct peer_run *pr, struct facet_set *fs)
{
	char path[512], cmd[1024], line[4096];
	unsigned char *is_eq = NULL;
	FILE *f;
	size_t j, i;

	pr->ok = -1;
	if (!have("lrs"))
		return;
	snprintf(path, sizeof path, "%s/c.ine", dir);
	f = fopen(path, "w");
	if (!f)
		return;
	/* the cone as a polyhedron: the origin and m rays */
	fprintf(f, "cone\nV-representation\nbegin\n%zu %zu integer\n1", m + 1, k + 1);
	for (i = 0; i < k; i++)
		fprintf(f, " 0");
	fprintf(f, "\n");
	for (j = 0; j < m; j++) {
		fprintf(f, "0");
		for (i = 0; i < k; i++)
			fprintf(f, " %u", S[j * k + i]);
		fprintf(f, "\n");
	}
	fprintf(f, "end\n");
	fclose(f);
	snprintf(cmd, sizeof cmd, "cd %s && timeout %g lrs c.ine c.ext >/dev/null 2>&1",
		 dir, limit);
	run_timed(cmd, pr);
	if (!pr->ok)
		return;
	snprintf(path, sizeof path, "%s/c.ext", dir);
	f = fopen(path, "r");
	pr->ok = 0;
	while (f && fgets(line, sizeof line, f)) {
		if (!strncmp(line, "linearity", 9)) {
			/* "linearity n i1 ... in": rows that are equations */
			char *p = line + 9, *e;
			long cnt = strtol(p, &e, 10), q;

			free(is_eq);
			is_eq = calloc(m + k + 2, 1);
			for (q = 0, p = e; q < cnt && is_eq; q++, p = e) {
				long row = strtol(p, &e, 10);

				if (row >= 1 && (size_t)row <= m + k + 1)
					is_eq[row - 1] = 1;
			}
		}
		if (!strncmp(line, "begin", 5)) {
			size_t rows;

			if (!fgets(line, sizeof line, f))
				break;
			/* "***** k+1 rational": rows until "end" */
			rows = SIZE_MAX;
			{
				long pos = ftell(f);
				size_t cntr = 0;

				while (fgets(line, sizeof line, f) && strncmp(line, "end", 3))
					cntr++;
				rows = cntr;
				fseek(f, pos, SEEK_SET);
			}
			pr->ok = !read_rows(f, rows, 1, k, m, S, fs, is_eq,
					    is_eq ? m + k + 2 : 0);
			break;
		}
	}
	if (f)
		fclose(f);
	free(is_eq);
}

/* ==== counterpoint ==== */

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Best wall time of repeat builds, and the CPU time of that run. */
static int ours(size_t k, size_t m, const uint32_t *S, double limit, int method,
		int repeat, double *best, double *cpu, struct cone_stats *st,
		struct cone **out, struct cp_error *err)
{
	struct cone_options opt;
	int r, rc = 0;

	memset(&opt, 0, sizeof opt);
	opt.max_seconds = limit;
	*best = 1e30;
	for (r = 0; r < repeat; r++) {
		double t0 = cp_seconds(), c0 = cpu_now(), t;

		cone_free(*out);
		*out = NULL;
		rc = cone_build_method(k, m, S, &opt, method, st, out, err);
		t = cp_seconds() - t0;
		if (t < *best) {
			*best = t;
			*cpu = cpu_now() - c0;
		}
		if (rc)
			break;
	}
	return rc;
}

static void run_peers(size_t k, size_t m, const uint32_t *S, const struct cone *c,
		      double t, double cpu, double limit, int peers, const char *dir);

/* A model's cone, path[:FEATURES] (a --with list, or "all"), then the
 * peers on its signatures. */
static void bench_model(const char *spec, double limit, int repeat, int peers,
			const char *dir)
{
	struct udd_model *m = NULL;
	struct udd_sigset *s = NULL;
	struct cone *c = NULL;
	struct cone_stats st;
	struct cp_error err;
	udd_features sel = 0;
	double best, cpu, t0, t1;
	char path[512];
	const char *with = strchr(spec, ':');

	snprintf(path, sizeof path, "%.*s", with ? (int)(with - spec) : (int)strlen(spec), spec);
	cp_error_clear(&err);
	t0 = cp_seconds();
	if (udd_model_parse_file(path, &m, &err)) {
		printf("%-36s error: %s\n", spec, err.msg);
		goto out;
	}
	if (with && !strcmp(with + 1, "all"))
		sel = udd_model_n_features(m) >= 64 ? ~(udd_features)0 :
		      ((udd_features)1 << udd_model_n_features(m)) - 1;
	else if (with && udd_model_select(m, with + 1, &sel, &err)) {
		printf("%-36s error: %s\n", spec, err.msg);
		goto out;
	}
	if (udd_sigset_build(m, sel, 0, &s, &err)) {
		printf("%-36s error: %s\n", spec, err.msg);
		goto out;
	}
	t1 = cp_seconds();
	if (ours(udd_sigset_n_counters(s), udd_sigset_size(s), udd_sigset_matrix(s),
		 limit, CONE_AUTO, repeat, &best, &cpu, &st, &c, &err)) {
		printf("%-36s %s\n", spec, err.msg);
		goto out;
	}
	printf("%-36s %-4zu %-5zu %-4zu %-8zu %-10.4f (cpu %.4f s; signatures %.4f s; %s)\n",
	       spec, udd_sigset_n_counters(s), udd_sigset_size(s), cone_dim(c),
	       cone_n_facets(c), best, cpu, t1 - t0, st.method);
	if (peers)
		run_peers(udd_sigset_n_counters(s), udd_sigset_size(s),
			  udd_sigset_matrix(s), c, best, cpu, limit, peers, dir);
out:
	cone_free(c);
	udd_sigset_free(s);
	udd_model_free(m);
}

static void print_peer(const char *name, const struct peer_run *pr, double t,
		       double cpu, struct facet_set *mine, struct facet_set *theirs)
{
	if (pr->ok < 0)
		return;
	if (pr->timed_out) {
		printf("  %-9s > %.1f s (timeout)\n", name, pr->wall);
		return;
	}
	if (!pr->ok) {
		printf("  %-9s failed\n", name);
		return;
	}
	printf("  %-9s %8.3f s wall %8.3f s cpu  ratio wall %5.2f cpu %5.2f  "
	       "facets %zu  %s\n", name, pr->wall, pr->cpu, t / pr->wall,
	       cpu / pr->cpu, theirs->n, set_compare(mine, theirs));
}

/* The peers on the same rows, and their facet sets against ours. */
static void run_peers(size_t k, size_t m, const uint32_t *S, const struct cone *c,
		      double t, double cpu, double limit, int peers, const char *dir)
{
	size_t words = (m + 63) / 64, f, i;
	struct facet_set mine = { 0, 0, words, NULL, 0 }, fn = mine, fl = mine;
	struct peer_run pn, pl;
	mpz_t *a = malloc(k * sizeof *a), tt;

	mpz_init(tt);
	for (i = 0; i < k; i++)
		mpz_init(a[i]);
	for (f = 0; f < cone_n_facets(c); f++) {
		cone_facet_mpz(c, f, a);
		set_add(&mine, k, m, S, a, tt);
	}
	if (peers & 1) {
		normaliz(dir, k, m, S, limit, &pn, &fn);
		print_peer("normaliz", &pn, t, cpu, &mine, &fn);
		fflush(stdout);
	}
	if (peers & 2) {
		lrs(dir, k, m, S, limit, &pl, &fl);
		print_peer("lrs", &pl, t, cpu, &mine, &fl);
	}
	fflush(stdout);
	for (i = 0; i < k; i++)
		mpz_clear(a[i]);
	mpz_clear(tt);
	free(a);
	free(mine.inc);
	free(fn.inc);
	free(fl.inc);
}

static void bench_case(const struct cone_case *cc, double limit, int repeat,
		       int peers, int qhull, const char *dir)
{
	size_t k = cc->k, m = cc->m;
	uint32_t *S = malloc(k * m * sizeof *S);
	struct cone *c = NULL;
	struct cone_stats st;
	struct cp_error err;
	double t, cpu = 0;

	case_generate(cc, S);
	if (ours(k, m, S, limit, CONE_AUTO, repeat, &t, &cpu, &st, &c, &err)) {
		printf("%-20s %-4zu %-4zu  %s (%.1f s)\n", cc->name, k, m, err.msg, t);
	} else {
		printf("%-20s %-4zu %-4zu %-4zu %-8zu %8.3f s wall %8.3f s cpu  %s: "
		       "%zu rays inserted, %llu pairs, %llu adjacency tests (%llu rank), "
		       "at most %zu partial%s\n",
		       cc->name, k, m, cone_dim(c), cone_n_facets(c), t, cpu, st.method,
		       st.inserted, (unsigned long long)st.candidates,
		       (unsigned long long)st.adjacency_tests,
		       (unsigned long long)st.rank_tests, st.max_partial,
		       st.gmp ? ", GMP" : "");
	}
	fflush(stdout);
	if (qhull) {
		struct cone *q = NULL;
		double tq, cq;

		if (ours(k, m, S, limit, CONE_QHULL, repeat, &tq, &cq, &st, &q, &err))
			printf("  %-9s %s (%.1f s)\n", "qhull", err.msg, tq);
		else
			printf("  %-9s %8.3f s wall %8.3f s cpu  %zu facets\n", "qhull", tq, cq,
			       cone_n_facets(q));
		cone_free(q);
	}
	if (peers && c)
		run_peers(k, m, S, c, t, cpu, limit, peers, dir);
	cone_free(c);
	free(S);
}

int main(int argc, char **argv)
{
	static const char *const bundled[] = {
		"models/examples/walk_basic.udd", "models/examples/walk_pde_early.udd",
		"models/examples/big.udd", "models/haswell/mmu.udd",
		/* the slowest selections of the Haswell family against
		 * Normaliz (seconds of CPU each), and all ten */
		"models/haswell/mmu.udd:prefetch,prefetch_dtlb_miss,prefetch_stores,bypass,replay",
		"models/haswell/mmu.udd:prefetch,prefetch_dtlb_miss,prefetch_stlb_miss,"
		"prefetch_stores,pml4_cache,bypass,replay",
		"models/haswell/mmu.udd:all", NULL
	};
	const char *models[64], *only[64];
	int all = 0, peers = 3, qhull = 0, repeat = 1, a, nmodels = 0, nonly = 0, i;
	double limit = 60;
	char dir[] = "/tmp/cone-bench-XXXXXX", cmd[128];
	size_t ci;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--all"))
			all = 1;
		else if (!strcmp(argv[a], "--no-peers"))
			peers = 0;
		else if (!strcmp(argv[a], "--no-lrs"))
			peers &= ~2;
		else if (!strcmp(argv[a], "--no-normaliz"))
			peers &= ~1;
		else if (!strcmp(argv[a], "--qhull"))
			qhull = 1;
		else if (!strcmp(argv[a], "--repeat") && a + 1 < argc)
			repeat = atoi(argv[++a]);
		else if (!strcmp(argv[a], "--limit") && a + 1 < argc)
			limit = atof(argv[++a]);
		else if (!strcmp(argv[a], "--case") && a + 1 < argc && nonly < 64)
			only[nonly++] = argv[++a];
		else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			printf("usage: build/bench/cone [--all] [--case NAME]... [--limit S]\n"
			       "       [--repeat N] [--no-peers] [--no-normaliz] [--no-lrs] [--qhull]\n"
			       "       [MODEL...]\n"
			       "cases:");
			for (ci = 0; ci < sizeof cases / sizeof *cases; ci++)
				printf(" %s%s", cases[ci].name, cases[ci].slow ? " (slow)" : "");
			printf("\n");
			return 0;
		} else if (argv[a][0] == '-') {
			fprintf(stderr, "bench/cone: unknown option '%s' (try --help)\n", argv[a]);
			return 2;
		} else if (nmodels < 64)
			models[nmodels++] = argv[a];
	}
	if (repeat < 1)
		repeat = 1;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 3;
	}
	printf("# command:");
	for (a = 0; a < argc; a++)
		printf(" %s", argv[a]);
	printf("\n# best of %d runs; peers single-threaded (normaliz -x=1, lrs), "
	       "limit %g s; the machine is shared, times are noisy\n", repeat, limit);
	if (!nmodels && !nonly)
		for (; bundled[nmodels]; nmodels++)
			models[nmodels] = bundled[nmodels];
	if (nmodels)
		printf("%-36s %-4s %-5s %-4s %-8s %-10s\n", "model", "k", "m", "dim",
		       "facets", "seconds");
	for (i = 0; i < nmodels; i++)
		bench_model(models[i], limit, repeat, peers, dir);
	printf("\n%-20s %-4s %-4s %-4s %-8s %10s\n", "case", "k", "m", "dim", "facets",
	       "seconds");
	for (ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
		const struct cone_case *cc = &cases[ci];
		int pick = !nonly && (all || !cc->slow);

		for (i = 0; i < nonly; i++)
			pick |= !strcmp(only[i], cc->name);
		if (pick)
			bench_case(cc, limit, repeat, peers, qhull, dir);
		else if (!nonly)
			printf("%-20s skipped (slow; --all or --case %s)\n", cc->name, cc->name);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd)) {
		/* a stale temp folder is harmless */
	}
	return 0;
}
