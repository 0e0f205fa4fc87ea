/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/check.c: speed of the feasibility check.  For the biggest bundled
 * model (models/examples/big.udd, or the model given) and for a random
 * model of 40 counters and 2,000 signatures it builds synthetic
 * observations (x = S f for random flows f, a correlated covariance of the
 * mean, the boxes and the ellipsoid at check's quantiles for 50 intervals:
 * Sidak-corrected t per axis, Hotelling's T^2), then times feas_check
 * on one core, warm-started, over observations that come in runs of
 * similar ones (as datasets list repeated runs of one workload), over
 * the same observations shuffled, and in runs but each from a fresh LP
 * (feas_model_restart: what a check without warm start costs); 1 in 10 observations is pushed out of
 * the cone (a counter below zero), so about 10% must come out infeasible.  Prints microseconds per observation.  Figures only.
 *
 *   build/bench/check [MODEL] [N_OBSERVATIONS] */
#include <gsl/gsl_cdf.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dsl/udd.h"
#include "solver/feas.h"
#include "stats/region.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unif(void) { return (double)(next() >> 11) / 9007199254740992.0; }

static double normal(void)
{
	double u = unif(), v = unif();

	return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

/* CPU time of this thread: on a shared machine wall time mostly measures
 * the neighbours. */
static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One observation's region, all shapes. */
struct obs {
	double *mu, *cov, *axes, *half_pca, *half_ind;
	double q;
};

static void obs_make(struct obs *o, size_t k, size_t m, const uint32_t *S,
		     const double *base_f, int push_out)
{
	double *B = malloc(k * k * sizeof *B), *w = malloc(k * sizeof *w);
	double *x = calloc(k, sizeof *x), scale = 0, q1;
	size_t i, j, l, p;

	o->mu = malloc(k * sizeof *o->mu);
	o->cov = malloc(k * k * sizeof *o->cov);
	o->axes = malloc(k * k * sizeof *o->axes);
	o->half_pca = malloc(k * sizeof *o->half_pca);
	o->half_ind = malloc(k * sizeof *o->half_ind);
	/* the quantiles check uses for 50 intervals: Hotelling's T^2 for the
	 * ellipsoid, the Sidak-corrected t for each box axis */
	o->q = region_quantile(0.99, k, 50);
	q1 = region_quantile1(0.99, k, 50);
	for (p = 0; p < m; p++) {
		double f = base_f[p] * (0.9 + 0.2 * unif());

		if (f != 0)
			for (i = 0; i < k; i++)
				x[i] += f * S[p * k + i];
	}
	for (i = 0; i < k; i++)
		scale = fmax(scale, x[i]);
	scale = scale > 0 ? scale * 1e-3 : 1;
	/* covariance of the mean: low-rank correlated part plus noise */
	for (i = 0; i < k * k; i++)
		B[i] = normal();
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			double v = 0;

			for (l = 0; l < 3; l++)
				v += B[i * k + l] * B[j * k + l];
			o->cov[i * k + j] = scale * scale * (0.3 * v + (i == j ? 0.1 : 0));
		}
	for (i = 0; i < k; i++)
		o->mu[i] = x[i] + sqrt(o->cov[i * k + i]) * 0.5 * normal();
	if (push_out) {
		/* a counter far below zero: no non-negative flows give it (a
		 * counter raised instead can stay inside a full-dimensional
		 * cone, which made every observation feasible) */
		i = next() % k;
		o->mu[i] = -(50 * scale + 0.2 * x[i]) - 100 * sqrt(o->cov[i * k + i]);
	}
	memcpy(B, o->cov, k * k * sizeof *B);
	LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (int)k, B, (int)k, w);
	for (i = 0; i < k; i++) {
		for (j = 0; j < k; j++)
			o->axes[i * k + j] = B[j * k + i];
		o->half_pca[i] = sqrt(q1 * (w[i] > 0 ? w[i] : 0));
		o->half_ind[i] = sqrt(q1 * o->cov[i * k + i]);
	}
	free(B);
	free(w);
	free(x);
}

static void obs_free(struct obs *o)
{
	free(o->mu);
	free(o->cov);
	free(o->axes);
	free(o->half_pca);
	free(o->half_ind);
}

static void query(const struct obs *o, enum feas_shape sh, struct feas_query *q)
{
	memset(q, 0, sizeof *q);
	q->shape = sh;
	q->mu = o->mu;
	q->cov = o->cov;
	q->axes = o->axes;
	q->half = sh == FEAS_INDEPENDENT ? o->half_ind : o->half_pca;
	q->q = o->q;
}

static void run(const char *label, size_t k, size_t m, const uint32_t *S,
		size_t n)
{
	static const char *const shape_name[] = { "PCA box", "independent box", "ellipsoid" };
	struct feas_model *fm = NULL;
	struct cp_error err;
	struct obs *o = malloc(n * sizeof *o);
	size_t *order = malloc(n * sizeof *order);
	double *f = calloc(m, sizeof *f);
	struct feas_query *qs = malloc(n * sizeof *qs);
	struct feas_result res, *rs = malloc(n * sizeof *rs);
	size_t i, p, infeasible;
	int sh, shuffled, explain;
	double t0, t;

	cp_error_clear(&err);
	t0 = cp_seconds();
	if (feas_model_new(k, m, S, NULL, &fm, &err)) {
		fprintf(stderr, "bench/check: %s\n", err.msg);
		exit(1);
	}
	printf("%s: %zu counters, %zu signatures, span dimension %zu, "
	       "%zu observations; model set up in %.1f ms\n", label, k, m,
	       feas_model_dim(fm), n, (cp_seconds() - t0) * 1e3);
	/* runs of 20 similar observations (one workload, repeated) */
	for (i = 0; i < n; i++) {
		if (i % 20 == 0)
			for (p = 0; p < m; p++)
				f[p] = next() % 8 == 0 ? 1e4 * unif() : 0;
		obs_make(&o[i], k, m, S, f, i % 10 == 9);
		order[i] = i;
	}
	feas_result_init(&res);
	for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++)
		for (shuffled = 0; shuffled < 3; shuffled++)
			for (explain = 0; explain < 2; explain++) {
				size_t reps = sh == FEAS_ELLIPSOID ? (n < 500 ? n : 500) : n;

				if (shuffled && (sh == FEAS_ELLIPSOID || explain))
					continue;
				/* CHECK_BENCH_ONLY=0|1|2 times one shape's verdicts only
				 * (for profiling) */
				if (getenv("CHECK_BENCH_ONLY") &&
				    (atoi(getenv("CHECK_BENCH_ONLY")) != sh || shuffled || explain))
					continue;
				if (shuffled == 1)
					for (i = n - 1; i > 0; i--) {
						size_t j = next() % (i + 1), tmp = order[i];

						order[i] = order[j];
						order[j] = tmp;
					}
				else
					for (i = 0; i < n; i++)
						order[i] = i;
				infeasible = 0;
				t0 = cpu_now();
				for (i = 0; i < reps; i++) {
					struct feas_query q;

					query(&o[order[i]], (enum feas_shape)sh, &q);
					if (shuffled == 2)
						feas_model_restart(fm); /* no warm start */
					if (feas_check(fm, &q, explain ? FEAS_EXPLAIN : 0, &res, &err)) {
						fprintf(stderr, "bench/check: %s\n", err.msg);
						exit(1);
					}
					infeasible += !res.feasible;
				}
				t = cpu_now() - t0;
				printf("  %-16s %-9s %-12s %8.1f us/observation CPU  (%zu of %zu infeasible)\n",
				       shape_name[sh], shuffled == 1 ? "shuffled" :
				       shuffled ? "fresh LP" : "in runs",
				       explain ? "explained" : "verdict", t / (double)reps * 1e6,
				       infeasible, reps);
			}
	{
		struct feas_stats st;

		feas_model_stats(fm, &st);
		printf("  LP solves %llu (%llu simplex iterations), shrunk-box tests %llu, "
		       "exact re-checks %llu (borderline %llu), certificates %llu, facet LPs %llu\n",
		       (unsigned long long)st.lp_solves, (unsigned long long)st.iterations,
		       (unsigned long long)st.shrink_tests,
		       (unsigned long long)st.exact_solves, (unsigned long long)st.borderline,
		       (unsigned long long)st.certificates, (unsigned long long)st.facet_lps);
	}
	/* the batch API on two threads (the machine has 2 cores, shared) */
	for (i = 0; i < n; i++) {
		query(&o[i], FEAS_PCA, &qs[i]);
		feas_result_init(&rs[i]);
	}
	{
		struct timespec c0, c1;
		double cpu;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
		t0 = cp_seconds();
		if (feas_check_batch(fm, n, qs, 0, 2, rs, NULL, NULL, &err)) {
			fprintf(stderr, "bench/check: %s\n", err.msg);
			exit(1);
		}
		t = cp_seconds() - t0;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
		cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-9;
		printf("  %-16s %-9s %-12s %8.1f us/observation wall, %.1f CPU, 2 threads\n",
		       "PCA box", "in runs", "batch", t / (double)n * 1e6, cpu / (double)n * 1e6);
	}
	for (i = 0; i < n; i++) {
		feas_result_release(&rs[i]);
		obs_free(&o[i]);
	}
	feas_result_release(&res);
	feas_model_free(fm);
	free(o);
	free(order);
	free(f);
	free(qs);
	free(rs);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "models/examples/big.udd";
	size_t n = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 2000;
	struct udd_model *model = NULL;
	struct udd_sigset *set = NULL;
	struct cp_error err;
	size_t k, m, j, i;
	uint32_t *S;

	printf("bench/check: %s %zu (one core unless noted; the machine is shared)\n",
	       path, n);
	cp_error_clear(&err);
	if (udd_model_parse_file(path, &model, &err) ||
	    udd_sigset_build(model, 0, 0, &set, &err)) {
		fprintf(stderr, "bench/check: %s: %s\n", path, err.msg);
		return 1;
	}
	k = udd_sigset_n_counters(set);
	m = udd_sigset_size(set);
	S = malloc(k * m * sizeof *S);
	for (j = 0; j < m; j++)
		memcpy(S + j * k, udd_sigset_signature(set, j), k * sizeof *S);
	run(path, k, m, S, n);
	free(S);
	udd_sigset_free(set);
	udd_model_free(model);

	/* random sparse model: 40 counters, 2000 signatures */
	k = 40;
	m = 2000;
	S = malloc(k * m * sizeof *S);
	for (i = 0; i < k * m; i++)
		S[i] = next() % 6 == 0 ? (uint32_t)(1 + next() % 3) : 0;
	run("random model", k, m, S, n);
	free(S);
	return 0;
}
