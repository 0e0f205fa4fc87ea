/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_feas.c: the feasibility solver: verdicts on regions
 * built by hand, violated constraints from listed H-representations and
 * from certificates, the exact re-check of borderline boxes, NNLS, the
 * nesting of the three region shapes, the LP against brute-force
 * facets on random cones, and the witness point of a feasible region
 * (in the region, from the cone).  Fixed seeds throughout. */
#include <pthread.h>
#include <stdio.h>

#include "solver/feas.h"
#include "check.h"
#include "test_feas_lib.h"

/* walk_basic-like: counters (causes_walk, pde_miss); a walk either hits
 * the PDE cache (1,0) or misses it (1,1).  Cone: pde_miss >= 0 and
 * causes_walk - pde_miss >= 0. */
static const uint32_t walk_basic[] = { 1, 0, 1, 1 };
/* walk_pde_early-like: the PDE cache is also looked up without a walk
 * (0,1), so pde_miss > causes_walk is fine. */
static const uint32_t walk_pde_early[] = { 1, 0, 1, 1, 0, 1 };

static void box2(struct tl_region *r, double m0, double m1, double s)
{
	memset(r, 0, sizeof *r);
	r->k = 2;
	r->mu[0] = m0;
	r->mu[1] = m1;
	r->cov[0] = r->cov[3] = s * s;
	tl_region_finish(r, 9.21);  /* chi2_2(0.99) */
}

/* Is x in the region of q, up to tol of its size (half-widths, q)? */
static int in_region(const struct feas_query *q, const double *x, size_t k, double tol)
{
	double d[64], y[64], t = 0;
	size_t i, j;

	for (i = 0; i < k; i++)
		d[i] = x[i] - q->mu[i];
	if (q->shape == FEAS_ELLIPSOID) {
		/* d' cov^-1 d by a Cholesky solve */
		double L[64 * 64];

		memcpy(L, q->cov, k * k * sizeof *L);
		if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (int)k, L, (int)k))
			return 0;
		for (i = 0; i < k; i++) {
			double s = d[i];

			for (j = 0; j < i; j++)
				s -= L[i * k + j] * y[j];
			y[i] = s / L[i * k + i];
			t += y[i] * y[i];
		}
		return t <= q->q * (1 + tol);
	}
	for (i = 0; i < k; i++) {
		double c = 0;

		if (q->shape == FEAS_PCA)
			for (j = 0; j < k; j++)
				c += q->axes[i * k + j] * d[j];
		else
			c = d[i];
		if (fabs(c) > q->half[i] * (1 + tol) + tol)
			return 0;
	}
	return 1;
}

static void test_walk_basic_violation(void)
{
	struct feas_model *fm = NULL, *fe = NULL;
	struct feas_result res;
	struct feas_query q;
	struct tl_region r;
	struct cp_error err;
	enum feas_shape sh;

	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, walk_basic, NULL, &fm, &err) == CP_OK);
	CHECK(feas_model_new(2, 3, walk_pde_early, NULL, &fe, &err) == CP_OK);
	CHECK(feas_model_dim(fm) == 2);
	/* consistent: 1000 walks, 300 PDE misses */
	box2(&r, 1000, 300, 5);
	for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++) {
		tl_query(&r, sh, &q);
		CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECKF(res.feasible, "shape %d", (int)sh);
		CHECK(res.n_violations == 0);
		/* the point a picture shows: in the region and in the cone */
		{
			double x[2] = { -1, -1 };
			int found = 0;

			CHECK(feas_witness(fm, &q, x, &found, &err) == CP_OK);
			CHECKF(found && in_region(&q, x, 2, 1e-6), "shape %d: (%g, %g)",
			       (int)sh, x[0], x[1]);
			CHECK(x[1] >= -1e-6 && x[0] - x[1] >= -1e-6);
		}
	}
	/* broken: more PDE misses than walks, far beyond the noise */
	box2(&r, 1000, 1300, 5);
	for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++) {
		tl_query(&r, sh, &q);
		CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECKF(!res.feasible, "shape %d", (int)sh);
		CHECKF(res.n_violations == 1, "shape %d: %zu violations", (int)sh,
		       res.n_violations);
		if (res.n_violations == 1) {
			/* causes_walk - pde_miss >= 0, from the certificate */
			CHECK(res.violations[0].a[0] == 1 && res.violations[0].a[1] == -1);
			CHECK(!res.violations[0].is_equality);
			CHECK(res.violations[0].exact);
			CHECK(res.violations[0].index == FEAS_NO_INDEX);
			/* 300 below, in sd of (x0 - x1) = 5 sqrt 2: 42.4 sd at the
			 * centre, less the region's own half-width */
			CHECK_NEAR(res.violations[0].mean_sd, -300 / (5 * sqrt(2)), 1e-6);
			CHECK(res.violations[0].margin > 30 && res.violations[0].margin < 42.5);
		}
		{
			double x[2];
			int found = 1;

			CHECK(feas_witness(fm, &q, x, &found, &err) == CP_OK);
			CHECKF(!found, "shape %d: a point of a missed cone", (int)sh);
		}
		CHECK(feas_check(fe, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECKF(res.feasible, "pde_early, shape %d", (int)sh);
	}
	feas_result_release(&res);
	feas_model_free(fm);
	feas_model_free(fe);
}

static void test_listed_constraints(void)
{
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct tl_region r;
	struct cp_error err;
	const int64_t c0[] = { 0, 1 }, c1[] = { 1, -1 };

	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, walk_basic, NULL, &fm, &err) == CP_OK);
	CHECK(feas_model_add_constraint(fm, c0, 0, &err) == CP_OK);
	CHECK(feas_model_add_constraint(fm, c1, 0, &err) == CP_OK);
	CHECK(feas_model_n_constraints(fm) == 2);
	box2(&r, 1000, 1300, 5);
	tl_query(&r, FEAS_PCA, &q);
	CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
	CHECK(!res.feasible);
	CHECK(res.n_violations == 1 && res.violations[0].index == 1);
	/* both broken at once: negative PDE misses too (x1 < 0 and x1 > x0) */
	box2(&r, -2000, -1000, 5);
	tl_query(&r, FEAS_INDEPENDENT, &q);
	CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
	CHECK(!res.feasible);
	CHECK(res.n_violations == 2);
	/* both again, the second listed broken further: the largest margin
	 * comes first (x0 - x1 = -2900 at about 7 sd a unit, x1 = -100 at 5) */
	box2(&r, -3000, -100, 5);
	tl_query(&r, FEAS_INDEPENDENT, &q);
	CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
	CHECK(!res.feasible);
	CHECK(res.n_violations == 2);
	if (res.n_violations == 2) {
		CHECKF(res.violations[0].index == 1 && res.violations[1].index == 0,
		       "order: %zu, %zu", res.violations[0].index,
		       res.violations[1].index);
		CHECK(res.violations[0].margin > res.violations[1].margin);
	}
	/* too late to add one */
	CHECK(feas_model_add_constraint(fm, c0, 0, &err) == CP_EINTERNAL);
	feas_result_release(&res);
	feas_model_free(fm);
}

/* Equalities: counters (walk_done, done_4k, done_2m) with walk_done =
 * done_4k + done_2m on every path.  A region off that plane is explained
 * by the equality. */
static void test_equality_violation(void)
{
	static const uint32_t S[] = { 1, 1, 0, 1, 0, 1 };
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct tl_region r;
	struct cp_error err;
	enum feas_shape sh;

	feas_result_init(&res);
	CHECK(feas_model_new(3, 2, S, NULL, &fm, &err) == CP_OK);
	CHECK(feas_model_dim(fm) == 2);
	memset(&r, 0, sizeof r);
	r.k = 3;
	r.mu[0] = 1000;
	r.mu[1] = 500;
	r.mu[2] = 300;  /* 200 walks of no size */
	r.cov[0] = r.cov[4] = r.cov[8] = 4;
	tl_region_finish(&r, 11.34);
	for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++) {
		tl_query(&r, sh, &q);
		CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECK(!res.feasible);
		CHECKF(res.n_violations == 1, "shape %d", (int)sh);
		if (res.n_violations == 1) {
			const int64_t *a = res.violations[0].a;

			CHECK(res.violations[0].is_equality);
			CHECK((a[0] == 1 && a[1] == -1 && a[2] == -1) ||
			      (a[0] == -1 && a[1] == 1 && a[2] == 1));
		}
	}
	r.mu[2] = 500;
	tl_query(&r, FEAS_ELLIPSOID, &q);
	CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
	CHECK(res.feasible);
	CHECK(res.d2 < 1e-9);
	feas_result_release(&res);
	feas_model_free(fm);
}

/* The span's equalities given by the caller (feas_model_options) are the
 * model's: given the canonical row, the violation is the one the model
 * finds when it derives them; given the same equality written the other
 * way round, it reports that row as given (so the option is read, not
 * ignored). */
static void test_given_equalities(void)
{
	static const uint32_t S[] = { 1, 1, 0, 1, 0, 1 };
	struct feas_model_options fo;
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct tl_region r;
	struct cp_error err;
	int64_t derived[3] = { 0, 0, 0 }, flipped[3];
	int given, j;

	feas_result_init(&res);
	memset(&r, 0, sizeof r);
	r.k = 3;
	r.mu[0] = 1000;
	r.mu[1] = 500;
	r.mu[2] = 300;
	r.cov[0] = r.cov[4] = r.cov[8] = 4;
	tl_region_finish(&r, 11.34);
	tl_query(&r, FEAS_INDEPENDENT, &q);
	for (given = 0; given < 3; given++) {
		memset(&fo, 0, sizeof fo);
		fo.equalities_given = 1;
		fo.n_equalities = 1;
		fo.equalities = given == 1 ? derived : flipped;
		CHECK(feas_model_new(3, 2, S, given ? &fo : NULL, &fm, &err) == CP_OK);
		CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECK(!res.feasible && res.n_violations == 1);
		if (res.n_violations == 1) {
			const int64_t *a = res.violations[0].a;

			CHECK(res.violations[0].is_equality);
			for (j = 0; j < 3; j++) {
				if (given == 0) {
					derived[j] = a[j];
					flipped[j] = -a[j];
				} else {
					CHECK(a[j] == (given == 1 ? derived[j] : flipped[j]));
				}
			}
		}
		feas_model_free(fm);
		fm = NULL;
	}
	CHECK(derived[0] != 0);
	feas_result_release(&res);
}

/* The whole walk_basic model (causes_walk, pde_miss, walk_done, retired):
 * a TLB hit (0,0,0,1), a walk with a PDE hit (1,0,1,1) and with a miss
 * (1,1,1,1); walk_done = causes_walk on every path.  Without a facet list
 * the certificate's facet is written in its sparsest form,
 * causes_walk - pde_miss >= 0, not combined with the equality. */
static void test_sparsest_form(void)
{
	static const uint32_t S[] = { 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1 };
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct tl_region r;
	struct cp_error err;
	enum feas_shape sh;

	feas_result_init(&res);
	CHECK(feas_model_new(4, 3, S, NULL, &fm, &err) == CP_OK);
	CHECK(feas_model_dim(fm) == 3);
	memset(&r, 0, sizeof r);
	r.k = 4;
	r.mu[0] = 1000;
	r.mu[1] = 1300;
	r.mu[2] = 1000;
	r.mu[3] = 5000;
	r.cov[0] = r.cov[5] = r.cov[10] = r.cov[15] = 4;
	r.cov[2] = r.cov[8] = 3.9;  /* walks and completed walks move together */
	tl_region_finish(&r, 13.28);
	for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++) {
		tl_query(&r, sh, &q);
		CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECK(!res.feasible);
		CHECKF(res.n_violations == 1, "shape %d", (int)sh);
		if (res.n_violations == 1) {
			const int64_t *a = res.violations[0].a;

			CHECKF(a[0] == 1 && a[1] == -1 && a[2] == 0 && a[3] == 0,
			       "shape %d: %lld %lld %lld %lld", (int)sh, (long long)a[0],
			       (long long)a[1], (long long)a[2], (long long)a[3]);
			CHECK(res.violations[0].exact && res.violations[0].margin > 0);
		}
	}
	feas_result_release(&res);
	feas_model_free(fm);
}

/* A model whose μpaths count nothing: its cone is {0}.  A region around 0
 * is feasible; one away from it breaks an equality x_j = 0. */
static void test_zero_cone(void)
{
	static const uint32_t S[] = { 0, 0, 0, 0 };
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct tl_region r;
	struct cp_error err;
	enum feas_shape sh;

	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, S, NULL, &fm, &err) == CP_OK);
	CHECK(feas_model_n_signatures(fm) == 0 && feas_model_dim(fm) == 0);
	for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++) {
		box2(&r, 1, -1, 2);
		tl_query(&r, sh, &q);
		CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECKF(res.feasible, "shape %d", (int)sh);
		box2(&r, 100, 1, 2);
		tl_query(&r, sh, &q);
		CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
		CHECKF(!res.feasible, "shape %d", (int)sh);
		CHECK(res.n_violations == 1);
		if (res.n_violations == 1)
			CHECK(res.violations[0].is_equality && res.violations[0].a[0] != 0);
	}
	feas_result_release(&res);
	feas_model_free(fm);
}

/* Bad queries are errors, never GLPK aborts. */
static void test_bad_queries(void)
{
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct tl_region r;
	struct cp_error err;

	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, walk_basic, NULL, &fm, &err) == CP_OK);
	box2(&r, 10, 5, 1);
	tl_query(&r, FEAS_PCA, &q);
	r.mu[0] = NAN;
	CHECK(feas_check(fm, &q, 0, &res, &err) == CP_EINPUT);
	r.mu[0] = 10;
	r.half_pca[1] = -1;
	CHECK(feas_check(fm, &q, 0, &res, &err) == CP_EINPUT);
	r.half_pca[1] = INFINITY;
	CHECK(feas_check(fm, &q, 0, &res, &err) == CP_EINPUT);
	r.half_pca[1] = 0;  /* zero width is allowed (a fixed bound) */
	CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK);
	tl_query(&r, FEAS_ELLIPSOID, &q);
	r.cov[0] = -1;  /* not positive definite */
	CHECK(feas_check(fm, &q, 0, &res, &err) == CP_EINPUT);
	q.shape = (enum feas_shape)7;
	CHECK(feas_check(fm, &q, 0, &res, &err) == CP_EINPUT);
	feas_result_release(&res);
	feas_model_free(fm);
	CHECK(feas_model_new(0, 2, walk_basic, NULL, &fm, &err) == CP_EINPUT);
	CHECK(fm == NULL);
}

/* Boxes that touch the cone within 1e-8 relative: GLPK's own tolerance
 * (1e-7) would accept both; the exact re-check tells them apart. */
static void test_borderline_exact(void)
{
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct cp_error err;
	double mu[2], half[2] = { 1e9, 1e3 };
	int i;

	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, walk_basic, NULL, &fm, &err) == CP_OK);
	memset(&q, 0, sizeof q);
	q.shape = FEAS_INDEPENDENT;
	q.mu = mu;
	q.half = half;
	/* x1 <= x0 needed; the box's best corner is x0 = mu0 + 1e9,
	 * x1 = mu1 - 1e3.  Put the corner exactly 10 units away either side. */
	for (i = 0; i < 2; i++) {
		double gap = i ? 10 : -10;

		mu[0] = 1e9;
		mu[1] = 2e9 + 1e3 + gap;  /* corner x1 - x0 = gap */
		CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK);
		CHECKF(res.feasible == (gap <= 0), "gap %g: feasible %d", gap, res.feasible);
	}
	{
		struct feas_stats st;

		feas_model_stats(fm, &st);
		printf("  borderline: %llu of %llu checks borderline, %llu exact re-checks\n",
		       (unsigned long long)st.borderline, (unsigned long long)st.checks,
		       (unsigned long long)st.exact_solves);
	}
	/* FEAS_NO_EXACT still answers */
	CHECK(feas_check(fm, &q, FEAS_NO_EXACT, &res, &err) == CP_OK);
	feas_result_release(&res);
	feas_model_free(fm);
}

/* A borderline box whose data no power of two makes integral within the
 * range of a double (half-widths of 1e-310 beside coordinates of 1): the
 * exact re-check cannot run, and feas_check says so (CP_ENUMERIC) rather
 * than keep the floating-point verdict silently; FEAS_NO_EXACT answers
 * and flags it borderline (the pipeline then reports it undecided). */
static void test_borderline_exact_out_of_range(void)
{
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct cp_error err;
	double mu[2] = { 1, 1 + 0x1p-50 }, half[2] = { 1e-310, 1e-310 };

	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, walk_basic, NULL, &fm, &err) == CP_OK);
	memset(&q, 0, sizeof q);
	q.shape = FEAS_INDEPENDENT;
	q.mu = mu;
	q.half = half;
	/* x1 <= x0 is broken by 2^-50: a certificate far shallower than
	 * 1e-7, so borderline */
	CHECK(feas_check(fm, &q, FEAS_NO_PREFILTER, &res, &err) == CP_ENUMERIC);
	cp_error_clear(&err);
	CHECK(feas_check(fm, &q, FEAS_NO_PREFILTER | FEAS_NO_EXACT, &res, &err) == CP_OK);
	CHECK(res.borderline);
	feas_result_release(&res);
	feas_model_free(fm);
}

/* Many boxes within a few units of the cone at scales up to 1e12, against
 * the exact answer: for walk_basic's cone {0 <= x1 <= x0} an independent
 * box [lo0,hi0] x [lo1,hi1] is feasible iff max(lo1, 0) <= min(hi0, hi1).
 * Integers below 2^53 keep every bound exact.  glp_exact turns doubles
 * into rationals within 1e-9 relative (GLPK's set_d_eps), so the verdict
 * is exact for gaps above that; below, a wrong verdict must at least be
 * flagged borderline when GLPK's solution shows it (gaps above 1e-11). */
static void test_borderline_many(void)
{
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct feas_query q;
	struct cp_error err;
	double mu[2], half[2];
	size_t t, wrong_big = 0, unflagged = 0, wrong_small = 0, wrong_float = 0;
	size_t n = 3000, n_big = 0, n_small = 0;

	tl_seed(77);
	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, walk_basic, NULL, &fm, &err) == CP_OK);
	memset(&q, 0, sizeof q);
	q.shape = FEAS_INDEPENDENT;
	q.mu = mu;
	q.half = half;
	for (t = 0; t < n; t++) {
		double scale = pow(10, 3 + (double)(tl_next() % 10)), rel;
		double hi0, lo1, hi1;
		int want, gap = (int)(tl_next() % 7) - 3;

		half[0] = floor(scale * (0.01 + tl_unif()));
		half[1] = floor(scale * (0.01 + tl_unif()));
		mu[0] = floor(scale * (1 + tl_unif()));
		/* put lo1 = mu1 - half1 at hi0 + gap */
		mu[1] = mu[0] + half[0] + half[1] + gap;
		hi0 = mu[0] + half[0];
		lo1 = mu[1] - half[1];
		hi1 = mu[1] + half[1];
		want = fmax(lo1, 0) <= fmin(hi0, hi1);
		rel = fabs((double)gap) / (fabs(mu[1]) + half[1]);
		CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK);
		if (rel >= 1e-8) {
			n_big++;
			wrong_big += res.feasible != want;
		} else {
			n_small++;
			wrong_small += res.feasible != want;
			if (rel >= 1e-11)
				unflagged += res.feasible != want && !res.borderline;
		}
		CHECK(feas_check(fm, &q, FEAS_NO_EXACT, &res, &err) == CP_OK);
		wrong_float += res.feasible != want;
	}
	printf("  %zu boxes within 3 units of the cone (scales 1e3-1e12): float verdicts "
	       "wrong %zu; with the exact re-check wrong %zu of %zu with gaps >= 1e-8 "
	       "relative, %zu of %zu below (%zu unflagged above 1e-11)\n", n, wrong_float,
	       wrong_big, n_big, wrong_small, n_small, unflagged);
	CHECK(wrong_big == 0);
	CHECK(unflagged == 0);
	CHECK(n_big > 500);
	feas_result_release(&res);
	feas_model_free(fm);
}

/* Random cones in dimension 3 and 4; boxes of all sizes near the cone.
 * The box LP is feasible exactly when no brute-force facet is violated by
 * the box's support, except when the box lies beyond a lower-dimensional
 * face (no single facet separates it); then the certificate reported must
 * be a valid inequality that separates it. */
static void test_lp_vs_hrep(void)
{
	size_t trial, agree = 0, beyond_face = 0, explained_facet = 0, total = 0;
	size_t missed_facet = 0, infeasible = 0;
	struct cp_error err;
	struct feas_result res;

	tl_seed(7);
	feas_result_init(&res);
	for (trial = 0; trial < 40; trial++) {
		size_t k = 3 + trial % 2, m = 5 + tl_next() % 6, p, i, nf, obs;
		uint32_t S[16 * 4];
		int64_t F[400 * 4];
		struct feas_model *fm = NULL;

		for (p = 0; p < m * k; p++)
			S[p] = (uint32_t)(tl_next() % 5);
		for (p = 0; p < m; p++)
			S[p * k + p % k] += 1;  /* no zero signatures */
		nf = tl_facets(k, m, S, F, 400);
		if (nf < k)
			continue;  /* not full-dimensional */
		CHECK(feas_model_new(k, m, S, NULL, &fm, &err) == CP_OK);
		if (!fm)
			continue;
		for (obs = 0; obs < 50; obs++) {
			struct tl_region r;
			struct feas_query q;
			int hrep_infeasible = 0;
			double a[4];
			size_t f;

			memset(&r, 0, sizeof r);
			r.k = k;
			for (i = 0; i < k; i++)
				r.mu[i] = 10 * tl_normal();
			tl_random_cov(&r, 0.5 + 4 * tl_unif(), 0.8);
			tl_region_finish(&r, 11.34);
			tl_query(&r, obs % 2 ? FEAS_INDEPENDENT : FEAS_PCA, &q);
			for (f = 0; f < nf; f++) {
				double h = 0, sp = 0;
				size_t j;

				for (i = 0; i < k; i++) {
					a[i] = (double)F[f * k + i];
					h += a[i] * r.mu[i];
				}
				if (q.shape == FEAS_PCA) {
					for (j = 0; j < k; j++) {
						double t = 0;

						for (i = 0; i < k; i++)
							t += r.axes[j * k + i] * a[i];
						sp += r.half_pca[j] * fabs(t);
					}
				} else {
					for (i = 0; i < k; i++)
						sp += r.half_ind[i] * fabs(a[i]);
				}
				if (h + sp < 0)
					hrep_infeasible = 1;
			}
			CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
			total++;
			if (res.feasible == !hrep_infeasible) {
				agree++;
			} else {
				/* only one direction may differ */
				CHECKF(!res.feasible && !hrep_infeasible,
				       "LP feasible but a facet is violated (trial %zu obs %zu)",
				       trial, obs);
				beyond_face++;
			}
			infeasible += !res.feasible;
			if (!res.feasible) {
				CHECK(res.n_violations >= 1);
				if (res.n_violations >= 1) {
					const struct feas_violation *v = &res.violations[0];
					int listed = 0;

					CHECK(v->margin > 0);
					CHECK(v->exact);
					for (f = 0; f < nf; f++)
						if (!memcmp(F + f * k, v->a, k * sizeof *v->a))
							listed = 1;
					/* a facet is one the brute force found */
					if (v->is_facet || (hrep_infeasible && listed))
						CHECK(listed);
					explained_facet += listed;
					/* the tightening is a heuristic: it may miss a
					 * separating facet and report a valid, exactly
					 * checked non-facet inequality instead */
					missed_facet += hrep_infeasible && !listed;
				}
			}
		}
		feas_model_free(fm);
	}
	printf("  lp-vs-hrep: %zu boxes, %zu infeasible, %zu agree with the facets, "
	       "%zu beyond a lower-dimensional face; %zu explained by a facet, "
	       "%zu by a non-facet although a facet separates\n", total, infeasible,
	       agree, beyond_face, explained_facet, missed_facet);
	CHECK(total > 1000);
	CHECK(infeasible > total / 5);
	CHECK(missed_facet * 20 <= infeasible);
	feas_result_release(&res);
}

/* Data generated from the model's own flows (x = S f, f >= 0), with
 * noise inside the region, is feasible for every shape. */
static void test_generated_feasible(void)
{
	size_t trial, bad = 0;
	struct cp_error err;
	struct feas_result res;

	tl_seed(11);
	feas_result_init(&res);
	for (trial = 0; trial < 30; trial++) {
		size_t k = 4 + trial % 9, m = 10 + tl_next() % 40, p, i, j, obs;
		uint32_t S[60 * 12];
		struct feas_model *fm = NULL;

		for (p = 0; p < m * k; p++)
			S[p] = tl_next() % 3 == 0 ? (uint32_t)(tl_next() % 4) : 0;
		CHECK(feas_model_new(k, m, S, NULL, &fm, &err) == CP_OK);
		for (obs = 0; obs < 10; obs++) {
			struct tl_region r;
			struct feas_query q;
			double x[12], dlt[12], d2 = 0, Lt[144];
			enum feas_shape sh;

			memset(&r, 0, sizeof r);
			r.k = k;
			for (i = 0; i < k; i++)
				x[i] = 0;
			for (p = 0; p < m; p++) {
				double f = tl_next() % 2 ? 1e6 * tl_unif() : 0;

				for (i = 0; i < k; i++)
					x[i] += f * S[p * k + i];
			}
			tl_random_cov(&r, 100 + 1e4 * tl_unif(), 0.9);
			tl_region_finish(&r, gsl_cdf_chisq_Pinv(0.99, (double)k));
			/* mu = x + L z with |z|^2 = 0.9 q: inside the ellipsoid */
			memcpy(Lt, r.cov, k * k * sizeof *Lt);
			LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (int)k, Lt, (int)k);
			for (i = 0; i < k; i++) {
				dlt[i] = tl_normal();
				d2 += dlt[i] * dlt[i];
			}
			for (i = 0; i < k; i++) {
				double s = 0;

				for (j = 0; j <= i; j++)
					s += Lt[i * k + j] * dlt[j] * sqrt(0.9 * r.q / d2);
				r.mu[i] = x[i] + s;
			}
			for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++) {
				tl_query(&r, sh, &q);
				CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &res, &err) == CP_OK);
				if (!res.feasible) {
					bad++;
					printf("  trial %zu obs %zu shape %d infeasible (d2 %g q %g)\n",
					       trial, obs, (int)sh, res.d2, r.q);
				}
				if (res.feasible) {
					double wx[12];
					int found = 0;

					CHECK(feas_witness(fm, &q, wx, &found, &err) == CP_OK);
					if (!found || !in_region(&q, wx, k, 1e-6)) {
						bad++;
						printf("  trial %zu obs %zu shape %d: witness %s\n",
						       trial, obs, (int)sh, found ?
						       "outside the region" : "not found");
					}
				}
				if (sh == FEAS_ELLIPSOID) {
					CHECK(res.d2 <= 0.9 * r.q * (1 + 1e-6));
					CHECK(res.kkt < 1e-6);
					CHECK(res.p_value > 0.01);
				}
			}
		}
		feas_model_free(fm);
	}
	CHECK(bad == 0);
	feas_result_release(&res);
}

/* The ellipsoid lies inside the PCA box of the same quantile, so a box
 * verdict of infeasible implies the ellipsoid's; and the ellipsoid's
 * violated constraints really miss the ellipsoid. */
static void test_nesting(void)
{
	size_t trial, box_inf = 0, ell_inf = 0, ind_inf = 0;
	struct cp_error err;
	struct feas_result rb, re, ri;

	tl_seed(23);
	feas_result_init(&rb);
	feas_result_init(&re);
	feas_result_init(&ri);
	for (trial = 0; trial < 20; trial++) {
		size_t k = 3 + trial % 6, m = 6 + tl_next() % 20, p, i, obs;
		uint32_t S[26 * 8];
		struct feas_model *fm = NULL;

		for (p = 0; p < m * k; p++)
			S[p] = tl_next() % 2 ? (uint32_t)(tl_next() % 3) : 0;
		CHECK(feas_model_new(k, m, S, NULL, &fm, &err) == CP_OK);
		for (obs = 0; obs < 40; obs++) {
			struct tl_region r;
			struct feas_query q;

			memset(&r, 0, sizeof r);
			r.k = k;
			/* near the cone: a positive combination, then pushed */
			for (i = 0; i < k; i++)
				r.mu[i] = 0;
			for (p = 0; p < m; p++) {
				double f = tl_unif();

				for (i = 0; i < k; i++)
					r.mu[i] += f * S[p * k + i];
			}
			for (i = 0; i < k; i++)
				r.mu[i] += 2 * tl_normal();
			tl_random_cov(&r, 0.2 + tl_unif(), 0.95);
			tl_region_finish(&r, gsl_cdf_chisq_Pinv(0.99, (double)k));
			tl_query(&r, FEAS_PCA, &q);
			CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &rb, &err) == CP_OK);
			tl_query(&r, FEAS_ELLIPSOID, &q);
			CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &re, &err) == CP_OK);
			tl_query(&r, FEAS_INDEPENDENT, &q);
			CHECK(feas_check(fm, &q, FEAS_EXPLAIN, &ri, &err) == CP_OK);
			box_inf += !rb.feasible;
			ell_inf += !re.feasible;
			ind_inf += !ri.feasible;
			CHECKF(rb.feasible || !re.feasible,
			       "trial %zu obs %zu: box infeasible, ellipsoid feasible", trial, obs);
			CHECKF(ri.feasible || !re.feasible,
			       "trial %zu obs %zu: independent box infeasible, ellipsoid feasible",
			       trial, obs);
			if (!re.feasible) {
				CHECK(re.n_violations >= 1);
				CHECK(re.p_value < 0.01);
				if (re.n_violations)
					CHECK(re.violations[0].margin > 0);
			}
		}
		feas_model_free(fm);
	}
	printf("  nesting: 800 regions: PCA box infeasible %zu, independent box %zu, "
	       "ellipsoid %zu\n", box_inf, ind_inf, ell_inf);
	CHECK(box_inf > 20);
	CHECK(ell_inf >= box_inf && ell_inf >= ind_inf);
	feas_result_release(&rb);
	feas_result_release(&re);
	feas_result_release(&ri);
}

/* The batch API gives the single-threaded verdicts, in input order. */
static void test_batch_threads(void)
{
	static const uint32_t S[] = { 1, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 2 };
	struct feas_model *fm = NULL;
	static struct tl_region r[200];
	static struct feas_query q[200];
	static struct feas_result one[200], many[200];
	struct cp_error err;
	size_t i, j, same = 0;

	tl_seed(5);
	CHECK(feas_model_new(3, 4, S, NULL, &fm, &err) == CP_OK);
	for (i = 0; i < 200; i++) {
		memset(&r[i], 0, sizeof r[i]);
		r[i].k = 3;
		for (j = 0; j < 3; j++)
			r[i].mu[j] = 10 + 8 * tl_normal();
		tl_random_cov(&r[i], 1, 0.7);
		tl_region_finish(&r[i], 11.34);
		tl_query(&r[i], (enum feas_shape)(i % 3), &q[i]);
		feas_result_init(&one[i]);
		feas_result_init(&many[i]);
		CHECK(feas_check(fm, &q[i], FEAS_EXPLAIN, &one[i], &err) == CP_OK);
	}
	CHECK(feas_check_batch(fm, 200, q, FEAS_EXPLAIN, 3, many, NULL, NULL, &err) == CP_OK);
	for (i = 0; i < 200; i++) {
		int eq = one[i].feasible == many[i].feasible &&
			one[i].n_violations == many[i].n_violations;

		for (j = 0; eq && j < one[i].n_violations; j++)
			eq = !memcmp(one[i].violations[j].a, many[i].violations[j].a,
				     3 * sizeof(int64_t));
		same += eq;
		feas_result_release(&one[i]);
		feas_result_release(&many[i]);
	}
	CHECKF(same == 200, "%zu of 200 agree", same);
	/* an error names the observation */
	r[57].half_pca[0] = -1;
	q[57].shape = FEAS_PCA;
	q[57].half = r[57].half_pca;
	CHECK(feas_check_batch(fm, 200, q, 0, 2, many, NULL, NULL, &err) == CP_EINPUT);
	CHECK(strstr(err.msg, "observation 58") != NULL);
	for (i = 0; i < 200; i++)
		feas_result_release(&many[i]);
	feas_model_free(fm);
	feas_thread_end();
}

struct other_thread {
	struct feas_model *fm;
	const struct feas_query *q;
	int rc;
};

static void *check_elsewhere(void *arg)
{
	struct other_thread *t = arg;
	struct feas_result res;
	struct cp_error err;

	feas_result_init(&res);
	t->rc = feas_check(t->fm, t->q, 0, &res, &err);
	feas_result_release(&res);
	feas_thread_end();
	return NULL;
}

static void count_progress(void *ctx, size_t done, size_t total)
{
	size_t *last = ctx;

	CHECK(done <= total);
	CHECK(done >= *last);
	*last = done;
}

/* A model's own LP belongs to the thread that first used it: another
 * thread gets an error, not a crash; the batch reports progress up to the
 * total. */
static void test_thread_rules(void)
{
	struct feas_model *fm = NULL;
	struct feas_result res, many[40];
	struct feas_query q, qs[40];
	struct tl_region r;
	struct cp_error err;
	struct other_thread t;
	pthread_t tid;
	size_t i, last = 0;

	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, walk_basic, NULL, &fm, &err) == CP_OK);
	box2(&r, 1000, 300, 5);
	tl_query(&r, FEAS_PCA, &q);
	CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK && res.feasible);
	t.fm = fm;
	t.q = &q;
	t.rc = 0;
	CHECK(pthread_create(&tid, NULL, check_elsewhere, &t) == 0);
	pthread_join(tid, NULL);
	CHECK(t.rc == CP_EINTERNAL);
	for (i = 0; i < 40; i++) {
		qs[i] = q;
		feas_result_init(&many[i]);
	}
	CHECK(feas_check_batch(fm, 40, qs, 0, 2, many, count_progress, &last, &err) == CP_OK);
	CHECK(last == 40);
	for (i = 0; i < 40; i++) {
		CHECK(many[i].feasible);
		feas_result_release(&many[i]);
	}
	feas_result_release(&res);
	feas_model_free(fm);
}

/* Correlated synthetic data: counters come in strongly correlated pairs
 * and the model ties each pair by a constraint along the correlated
 * direction; the PCA box sees the violations an independent box misses. */
static void test_pca_vs_independent(void)
{
	/* counters (a, b): paths (1,0) and (1,1): b <= a */
	static const uint32_t S[] = { 1, 0, 1, 1 };
	struct feas_model *fm = NULL;
	struct feas_result res;
	struct cp_error err;
	size_t obs, n_pca = 0, n_ind = 0, n_ell = 0;

	tl_seed(99);
	feas_result_init(&res);
	CHECK(feas_model_new(2, 2, S, NULL, &fm, &err) == CP_OK);
	for (obs = 0; obs < 2000; obs++) {
		struct tl_region r;
		struct feas_query q;
		double a = 1000 + 100 * tl_normal(), s = 10 + 20 * tl_unif();
		double rho = 0.5 + 0.49 * tl_unif();

		memset(&r, 0, sizeof r);
		r.k = 2;
		/* b a little above a, as a model lacking a feature would see */
		r.mu[0] = a;
		r.mu[1] = a + 8 * s * tl_unif();
		r.cov[0] = r.cov[3] = s * s;
		r.cov[1] = r.cov[2] = rho * s * s;
		tl_region_finish(&r, 9.21);
		tl_query(&r, FEAS_PCA, &q);
		CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK);
		n_pca += !res.feasible;
		tl_query(&r, FEAS_INDEPENDENT, &q);
		CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK);
		n_ind += !res.feasible;
		tl_query(&r, FEAS_ELLIPSOID, &q);
		CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK);
		n_ell += !res.feasible;
	}
	printf("  correlated pairs (rho 0.5-0.99), 2000 observations: independent box %zu "
	       "infeasible, PCA box %zu, ellipsoid %zu\n", n_ind, n_pca, n_ell);
	CHECK(n_pca > n_ind);
	CHECK(n_ell >= n_pca);
	feas_result_release(&res);
	feas_model_free(fm);
}

/* The ellipsoid's distance d2 against brute force: every subset of at
 * most k signatures, unconstrained least squares, keep the ones with
 * positive flows; d2 is the smallest residual (or ||L^-1 mu||^2). */
static double brute_d2(size_t k, size_t m, const uint32_t *S, const double *cov,
		       const double *mu)
{
	double L[16], b[4], best;
	size_t mask, i, j;

	memcpy(L, cov, k * k * sizeof *L);
	LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', (int)k, L, (int)k);
	memcpy(b, mu, k * sizeof *b);
	LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', (int)k, 1, L, (int)k, b, (int)k);
	best = 0;
	for (i = 0; i < k; i++)
		best += b[i] * b[i];
	for (mask = 1; mask < (1u << m); mask++) {
		double A[4 * 8], rhs[8], r2 = 0;
		size_t np = 0, cols[8];
		int ok = 1;

		for (j = 0; j < m; j++)
			if (mask & (1u << j))
				cols[np++] = j;
		if (np > k)
			continue;
		for (j = 0; j < np; j++) {
			for (i = 0; i < k; i++)
				A[j * k + i] = S[cols[j] * k + i];
			LAPACKE_dtrtrs(LAPACK_COL_MAJOR, 'L', 'N', 'N', (int)k, 1, L, (int)k,
				       A + j * k, (int)k);
		}
		memset(rhs, 0, sizeof rhs);
		memcpy(rhs, b, k * sizeof *b);
		if (LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (int)k, (int)np, 1, A, (int)k, rhs,
				  (int)(k > np ? k : np)) != 0)
			continue;
		for (j = 0; j < np; j++)
			ok &= rhs[j] > 0;
		if (!ok)
			continue;
		/* residual of the least-squares fit: rows np..k-1 of rhs */
		for (i = np; i < k; i++)
			r2 += rhs[i] * rhs[i];
		if (r2 < best)
			best = r2;
	}
	return best;
}

static void test_nnls_brute_force(void)
{
	size_t trial, worst_i = 0;
	double worst = 0;
	struct cp_error err;
	struct feas_result res;

	tl_seed(31);
	feas_result_init(&res);
	for (trial = 0; trial < 300; trial++) {
		size_t k = 2 + trial % 3, m = 2 + tl_next() % 7, p, i, rep;
		uint32_t S[8 * 4];
		struct feas_model *fm = NULL;
		struct tl_region r;
		struct feas_query q;
		double want;

		for (p = 0; p < m * k; p++)
			S[p] = (uint32_t)(tl_next() % 4);
		for (p = 0; p < m; p++)
			S[p * k + p % k] += 1;
		CHECK(feas_model_new(k, m, S, NULL, &fm, &err) == CP_OK);
		memset(&r, 0, sizeof r);
		r.k = k;
		for (i = 0; i < k; i++)
			r.mu[i] = 5 * tl_normal();
		tl_random_cov(&r, 0.5 + tl_unif(), 0.7);
		tl_region_finish(&r, 7.8);
		tl_query(&r, FEAS_ELLIPSOID, &q);
		want = brute_d2(k, m, S, r.cov, r.mu);
		/* twice: the second run warm-starts from the first */
		for (rep = 0; rep < 2; rep++) {
			CHECK(feas_check(fm, &q, 0, &res, &err) == CP_OK);
			if (fabs(res.d2 - want) > worst) {
				worst = fabs(res.d2 - want);
				worst_i = trial;
			}
			CHECK(res.kkt < 1e-8);
			CHECK(res.feasible == (want <= r.q) || fabs(want - r.q) < 1e-9);
		}
		feas_model_free(fm);
	}
	CHECKF(worst < 1e-8, "worst |d2 - brute force| = %g (trial %zu)", worst, worst_i);
	feas_result_release(&res);
}

int main(void)
{
	check_prog = "test_feas";
	RUN(test_walk_basic_violation);
	RUN(test_listed_constraints);
	RUN(test_equality_violation);
	RUN(test_given_equalities);
	RUN(test_sparsest_form);
	RUN(test_zero_cone);
	RUN(test_bad_queries);
	RUN(test_borderline_exact);
	RUN(test_borderline_exact_out_of_range);
	RUN(test_borderline_many);
	RUN(test_lp_vs_hrep);
	RUN(test_generated_feasible);
	RUN(test_nesting);
	RUN(test_nnls_brute_force);
	RUN(test_batch_threads);
	RUN(test_thread_rules);
	RUN(test_pca_vs_independent);
	feas_thread_end();
	return check_summary();
}
