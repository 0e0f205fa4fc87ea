/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_region.c: known answers for the quantiles (tabulated
 * chi^2, F and t values), the eigen-decomposition, a small region worked
 * by hand, and the degenerate-case rule. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/cp.h"
#include "solver/feas.h"
#include "stats/region.h"
#include "stats/stats_int.h"
#include "check.h"

#include <gsl/gsl_cdf.h>

/* chi^2 quantiles from a printed table (NIST/SEMATECH e-Handbook 1.3.6.7.4,
 * upper-tail critical values; 3 decimals there, more from R's qchisq). */
static void test_chi_square_table(void)
{
	static const struct { double c; size_t k; double q; } t[] = {
		{ 0.99, 1, 6.634897 }, { 0.99, 2, 9.210340 },
		{ 0.95, 5, 11.070498 }, { 0.99, 5, 15.086272 },
		{ 0.99, 10, 23.209251 }, { 0.99, 20, 37.566235 },
		{ 0.90, 3, 6.251389 }, { 0.999, 4, 18.466827 },
	};
	size_t i;

	for (i = 0; i < sizeof t / sizeof *t; i++) {
		CHECK_NEAR(region_quantile(t[i].c, t[i].k, 0), t[i].q, 1e-5);
		CHECK_NEAR(region_confidence_of(t[i].q, t[i].k, 0), t[i].c, 1e-7);
	}
	/* Sidak, known covariance: chi^2_1 at 0.99^(1/2) = 0.994987 is the
	 * square of the normal quantile z(1 - 0.0050126/2) = 2.80623 */
	CHECK_NEAR(region_quantile1(0.99, 2, 0), 2.80623 * 2.80623, 2e-4);
}

/* F and t quantiles from tables: t_9(0.995) = 3.2498 so F_{1,9}(0.99) =
 * 10.5614; F_{2,10}(0.99) = 7.5594; F_{5,20}(0.99) = 4.1027. */
static void test_hotelling_and_t(void)
{
	CHECK_NEAR(region_quantile1(0.99, 1, 10), 10.5614, 1e-3);
	CHECK_NEAR(region_quantile(0.99, 1, 10), 10.5614, 1e-3);
	/* Hotelling k=2, n=12: 2*11/10 * F_{2,10}(0.99) */
	CHECK_NEAR(region_quantile(0.99, 2, 12), 2.2 * 7.5594, 2e-3);
	/* k=5, n=25: 5*24/20 * F_{5,20}(0.99) */
	CHECK_NEAR(region_quantile(0.99, 5, 25), 6.0 * 4.1027, 2e-3);
	/* Hotelling tends to chi^2 as n grows */
	CHECK_NEAR(region_quantile(0.99, 5, 1000000), 15.086272, 1e-3);
	/* the rule depends on k and n only: Hotelling from n = 11 for k = 5,
	 * n = 29 for k = 20 */
	CHECK(region_rule_for(5, 10) == REGION_RULE_DIAGONAL);
	CHECK(region_rule_for(5, 11) == REGION_RULE_HOTELLING);
	CHECK(region_rule_for(20, 28) == REGION_RULE_DIAGONAL);
	CHECK(region_rule_for(20, 29) == REGION_RULE_HOTELLING);
	CHECK(region_rule_for(1, 2) == REGION_RULE_HOTELLING);
	CHECK(region_rule_for(3, 3) == REGION_RULE_DIAGONAL);
	/* the diagonal rule: k * F_{1,n-1}(c^(1/k)) */
	CHECK_NEAR(region_quantile(0.99, 5, 4), 5 * region_quantile1(0.99, 5, 4), 1e-9);
	CHECK_NEAR(region_quantile(0.99, 5, 8), 5 * region_quantile1(0.99, 5, 8), 1e-9);
	/* F_{1,n} for huge n is chi^2_1 */
	CHECK_NEAR(region_quantile1(0.99, 1, 10000000), 6.634897, 1e-4);
	CHECK(isnan(region_quantile(0.99, 3, 1)));
	CHECK(isnan(region_quantile(1.0, 3, 10)));
	CHECK(isnan(region_quantile(0.0, 3, 10)));
	CHECK(region_confidence_of(0, 3, 10) == 0);
}

/* The quantiles kept per thread (stats/quantile.c) are the ones GSL
 * computes, whatever the order of asking and however many collide in the
 * memo; the halves' test by kept critical values decides as the p-value
 * does, just inside and just outside each tail. */
static void test_quantile_memo(void)
{
	size_t k, n, round;

	for (round = 0; round < 2; round++)
		for (k = 1; k <= 30; k += 7)
			for (n = 2; n <= 200; n += 9) {
				double g = pow(0.99, 1.0 / (double)k);
				double t = gsl_cdf_tdist_Pinv((1 + g) / 2, (double)(n - 1));

				CHECK(region_quantile1(0.99, k, n) == t * t);
			}
	for (round = 0; round < 2; round++)
		for (k = 1; k <= 28; k += 9)
			for (n = 3; n <= 300; n += 37) {
				double nua = (double)n, nub = (double)n + 2.5;
				double a = -expm1(log1p(-SPLIT_STATIONARY_ALPHA) / (double)k);
				double lo = gsl_cdf_fdist_Pinv(a / 2, nua, nub);
				double hi = gsl_cdf_fdist_Qinv(a / 2, nua, nub);
				double x[] = { lo * (1 - 1e-6), lo * (1 + 1e-6), 1,
					       hi * (1 - 1e-6), hi * (1 + 1e-6) };
				size_t i;

				for (i = 0; i < sizeof x / sizeof *x; i++) {
					double p = gsl_cdf_fdist_Q(x[i], nua, nub);
					int want = 2 * (p < 0.5 ? p : 1 - p) < a;

					CHECK(stats_halves_differ(x[i] * 3, 3, nua, nub, k) == want);
				}
				CHECK(stats_halves_differ(lo * (1 - 1e-6), 1, nua, nub, k));
				CHECK(!stats_halves_differ(1, 1, nua, nub, k));
			}
}

/* region_confidence_of inverts region_quantile under every rule. */
static void test_quantile_inverse(void)
{
	static const double conf[] = { 0.5, 0.9, 0.99, 0.999 };
	static const size_t ks[] = { 1, 2, 5, 20 }, ns[] = { 0, 2, 3, 8, 21, 60, 1000 };
	size_t a, b, c;

	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			for (c = 0; c < 7; c++) {
				double q = region_quantile(conf[a], ks[b], ns[c]);

				CHECKF(fabs(region_confidence_of(q, ks[b], ns[c]) - conf[a]) < 1e-7,
				       "c=%g k=%zu n=%zu q=%g", conf[a], ks[b], ns[c], q);
			}
}

static void test_eigen_known(void)
{
	double a[4] = { 2, 1, 1, 2 }, w[3], v[9];
	double b[9] = { 4, 1, 0, 1, 4, 0, 0, 0, 1 };
	struct cp_error err;

	CHECK(stats_symmetric_eigen(a, 2, w, v, &err) == 0);
	CHECK_NEAR(w[0], 1, 1e-12);
	CHECK_NEAR(w[1], 3, 1e-12);
	CHECK_NEAR(fabs(v[0]), M_SQRT1_2, 1e-12);
	CHECK_NEAR(v[0] + v[1], 0, 1e-12);         /* (1,-1)/sqrt 2 */
	CHECK_NEAR(v[2] - v[3], 0, 1e-12);         /* (1, 1)/sqrt 2 */
	CHECK(stats_symmetric_eigen(b, 3, w, v, &err) == 0);
	CHECK_NEAR(w[0], 1, 1e-12);
	CHECK_NEAR(w[1], 3, 1e-12);
	CHECK_NEAR(w[2], 5, 1e-12);
	CHECK_NEAR(fabs(v[2]), 1, 1e-12);          /* e_3 for lambda = 1 */
}

/* A v_i = lambda_i v_i and V orthonormal, on a fixed 6x6 matrix. */
static void test_eigen_residual(void)
{
	double a[36], w[6], v[36];
	struct cp_error err;
	size_t i, j, l;
	unsigned s = 12345;

	for (i = 0; i < 6; i++)
		for (j = 0; j <= i; j++) {
			s = s * 1103515245u + 12345u;
			a[i * 6 + j] = a[j * 6 + i] = (double)(s >> 16 & 0xff) / 25.0 - 5;
		}
	CHECK(stats_symmetric_eigen(a, 6, w, v, &err) == 0);
	for (i = 0; i < 6; i++) {
		if (i)
			CHECK(w[i - 1] <= w[i]);
		for (j = 0; j < 6; j++) {
			double av = 0, dot = 0;

			for (l = 0; l < 6; l++) {
				av += a[j * 6 + l] * v[i * 6 + l];
				dot += v[i * 6 + l] * v[j * 6 + l];
			}
			CHECK_NEAR(av, w[i] * v[i * 6 + j], 1e-10);
			CHECK_NEAR(dot, i == j, 1e-12);
		}
	}
}

/* x = 1, 2, 3: mean 2, S = 1, cov = 1/3 (+ a negligible floor), n = 3,
 * k = 1: q = q1 = F_{1,2}(0.99) = 98.503. */
static void test_region_by_hand(void)
{
	double x[3] = { 1, 2, 3 }, res = 1e-9, probe;
	struct region_options o = { .confidence = 0.99, .resolution = &res };
	struct region *r = NULL;
	struct cp_error err;

	CHECK(region_build(x, 3, 1, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->k == 1 && r->n == 3 && r->rule == REGION_RULE_HOTELLING);
	CHECK_NEAR(r->mu[0], 2, 1e-15);
	CHECK_NEAR(r->sigma[0], 1, 1e-15);
	CHECK_NEAR(r->cov[0], 1.0 / 3, 1e-12);
	CHECK_NEAR(r->q, 98.50251, 1e-4);
	CHECK_NEAR(r->half_ind[0], sqrt(98.50251 / 3), 1e-4);
	CHECK_NEAR(r->half_pca[0], r->half_ind[0], 1e-9);
	probe = 2 + 0.999 * r->half_ind[0];
	CHECK(region_contains(r, REGION_ELLIPSOID, &probe));
	CHECK(region_contains(r, REGION_PCA, &probe));
	CHECK(region_contains(r, REGION_INDEPENDENT, &probe));
	probe = 2 - 1.001 * r->half_ind[0];
	CHECK(!region_contains(r, REGION_ELLIPSOID, &probe));
	CHECK(!region_contains(r, REGION_INDEPENDENT, &probe));
	CHECK_NEAR(region_confidence_of(region_mahalanobis2(r, &probe), 1, 3), 0.99, 1e-4);
	region_free(r);
	region_free(NULL);
}

/* Default floor: resolution 1 per counter gives variance 1/12 per
 * interval, 1/(12 n) for the mean, plus the zero-count term
 * (L/n)^2/q1, L = -ln(1 - 0.99^(1/k)); a constant counter's half-width
 * is then at least L/n, the Poisson bound for no event. */
static void test_default_floor(void)
{
	double x[8] = { 5, 1, 5, 2, 5, 3, 5, 4 };   /* counter 0 constant */
	struct region *r = NULL;
	struct cp_error err;

	CHECK(region_build(x, 4, 2, NULL, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->confidence == 0.99);
	{
		double L = -log(1 - sqrt(0.99));

		CHECK_NEAR(r->cov[0], 1.0 / 48 + L * L / 16 / r->q1, 1e-12);
		CHECK(r->half_ind[0] >= L / 4 && r->lambda[0] > 0);
	}
	region_free(r);
}

/* Exactly dependent counters (x1 = 2 x0) and a constant counter: the
 * covariance stays positive definite and the true mean is inside. */
static void test_rank_deficient(void)
{
	double x[30 * 3], res[3] = { 1, 1, 1 }, truth[3] = { 10, 20, 7 };
	struct region_options o = { .resolution = res };
	struct region *r = NULL;
	struct cp_error err;
	size_t i;

	for (i = 0; i < 30; i++) {
		double e = (double)((i * 7) % 11) - 5;   /* mean 0 over 11 */

		x[i * 3] = 10 + e;
		x[i * 3 + 1] = 2 * x[i * 3];
		x[i * 3 + 2] = 7;
	}
	CHECK(region_build(x, 30, 3, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->rule == REGION_RULE_HOTELLING);
	CHECK(r->lambda[0] > 0 && r->lambda[1] > 0);
	CHECK(r->half_pca[0] > 0 && r->half_ind[2] > 0);
	CHECK(region_contains(r, REGION_ELLIPSOID, truth));
	CHECK(region_contains(r, REGION_PCA, truth));
	CHECK(region_contains(r, REGION_INDEPENDENT, truth));
	region_free(r);
}

/* no_pca_box: the same region but for the box, which is the independent
 * one (pca_box 0); by default the split-half PCA box (pca_box 1), which
 * on correlated counters is not the independent box. */
static void test_no_pca_box(void)
{
	double x[40 * 4], res[4] = { 1, 1, 1, 1 }, p[4];
	struct region_options o = { .resolution = res };
	struct region *a = NULL, *b = NULL;
	struct cp_error err;
	size_t i, j, differ = 0, k = 4;
	uint64_t s = 12345;

	for (i = 0; i < 40; i++) {
		double u = (double)((i * 7) % 13) - 6, v = (double)((i * 5) % 11) - 5;

		x[i * 4] = 100 + u;
		x[i * 4 + 1] = 200 + 2 * u + 0.1 * v;
		x[i * 4 + 2] = 50 + v;
		x[i * 4 + 3] = 80 + u - v;
	}
	CHECK(region_build(x, 40, 4, &o, &a, &err) == 0);
	o.no_pca_box = 1;
	CHECK(region_build(x, 40, 4, &o, &b, &err) == 0);
	if (!a || !b)
		goto out;
	CHECK(a->pca_box == 1 && b->pca_box == 0);
	CHECK(!memcmp(a->mu, b->mu, k * sizeof *a->mu));
	CHECK(!memcmp(a->cov, b->cov, k * k * sizeof *a->cov));
	CHECK(!memcmp(a->axes, b->axes, k * k * sizeof *a->axes));
	CHECK(!memcmp(a->half_ind, b->half_ind, k * sizeof *a->half_ind));
	CHECK(a->q == b->q && a->q1 == b->q1 && a->n == b->n);
	/* b's box is the independent box, a's is not */
	for (i = 0; i < 2000; i++) {
		for (j = 0; j < k; j++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			p[j] = a->mu[j] + 3 * a->half_ind[j] * ((double)(s >> 11) / 9007199254740992.0 - 0.5);
		}
		CHECK(region_contains(b, REGION_PCA, p) == region_contains(b, REGION_INDEPENDENT, p));
		differ += region_contains(a, REGION_PCA, p) != region_contains(a, REGION_INDEPENDENT, p);
	}
	CHECK(differ > 100);
	/* lean: what the solver reads, the same; the rest gone */
	{
		struct region *c = NULL;

		o.no_pca_box = 0;
		o.lean = 1;
		CHECK(region_build(x, 40, 4, &o, &c, &err) == 0);
		if (c) {
			CHECK(c->sigma == NULL && c->axes == NULL && c->pca_box == 1);
			CHECK(!memcmp(a->cov, c->cov, k * k * sizeof *a->cov));
			CHECK(!memcmp(a->lambda, c->lambda, k * sizeof *a->lambda));
			CHECK(!memcmp(a->box_axes, c->box_axes, k * k * sizeof *a->box_axes));
			CHECK(!memcmp(a->half_pca, c->half_pca, k * sizeof *a->half_pca));
			CHECK(a->q == c->q);
			CHECK(region_contains(c, REGION_ELLIPSOID, a->mu) == -1);
			CHECK(region_contains(c, REGION_PCA, a->mu) == 1);
			region_free(c);
		}
		o.no_pca_box = 1;
		CHECK(region_build(x, 40, 4, &o, &c, &err) == 0);
		if (c) {
			CHECK(c->box_axes == NULL && c->half_pca == NULL && c->pca_box == 0);
			CHECK(!memcmp(a->half_ind, c->half_ind, k * sizeof *a->half_ind));
			CHECK(region_contains(c, REGION_PCA, a->mu) == -1);
			CHECK(region_contains(c, REGION_INDEPENDENT, a->mu) == 1);
			region_free(c);
		}
	}
out:
	region_free(a);
	region_free(b);
}

/* n <= k: the diagonal rule.  Off-diagonal covariance is dropped, axes
 * are the counters ordered by variance, q = k q1. */
static void test_too_few_intervals(void)
{
	double x[3 * 5] = { 1, 10, 0, 3, 5,
			    2, 30, 0, 3, 6,
			    3, 20, 0, 3, 7 };
	double res[5] = { 1e-3, 1e-3, 1e-3, 1e-3, 1e-3 };
	struct region_options o = { .resolution = res };
	struct region *r = NULL;
	struct cp_error err;
	size_t j;

	CHECK(region_build(x, 3, 5, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->rule == REGION_RULE_DIAGONAL);
	CHECK(r->n == 3);
	CHECK_NEAR(r->q, 5 * r->q1, 1e-9);
	CHECK_NEAR(r->q1, region_quantile1(0.99, 5, 3), 1e-12);
	CHECK(r->cov[0 * 5 + 4] == 0);
	for (j = 0; j < 5; j++) {
		CHECK(r->half_ind[j] > 0);
		if (j)
			CHECK(r->lambda[j - 1] <= r->lambda[j]);
	}
	/* the largest variance is counter 1: the last axis is e_1 */
	CHECK(r->axes[4 * 5 + 1] == 1);
	/* the ellipsoid holds the box's corners */
	{
		double corner[5];

		for (j = 0; j < 5; j++)
			corner[j] = r->mu[j] + 0.999999 * r->half_ind[j];
		CHECK(region_contains(r, REGION_ELLIPSOID, corner));
		CHECK(region_contains(r, REGION_PCA, corner));
		/* the PCA box is the independent box */
		corner[1] = r->mu[1] + 1.000001 * r->half_ind[1];
		CHECK(!region_contains(r, REGION_PCA, corner));
		CHECK_NEAR(r->half_pca[4], r->half_ind[1], 1e-9 * r->half_ind[1]);
	}
	region_free(r);
}

/* The split-half PCA box by hand, k = 2, n = 12 plain intervals: the
 * axes are the eigenvectors of the first six samples' covariance (closed
 * form for 2 x 2), the widths come from the last six samples' covariance
 * with the halves' contrast added, sqrt(6 * 6 / 12) (mean_A - mean_B),
 * so n_B = 6 degrees of freedom: half_i = sqrt(q1(df 6) v_i' S_B' v_i / n)
 * (the floor is negligible at resolution 1e-9).  Fails if the contrast
 * or its degree of freedom is dropped, or the halves are taken other
 * than first and last. */
static void test_split_box_by_hand(void)
{
	double x[12 * 2], res[2] = { 1e-9, 1e-9 }, sa[3] = { 0, 0, 0 }, sb[3] = { 0, 0, 0 };
	double ma[2] = { 0, 0 }, mb[2] = { 0, 0 }, v[2][2], half[2], th, c, q1;
	struct region_options o = { .resolution = res, .batches = 1 };
	struct region *r = NULL;
	struct cp_error err;
	size_t i, a;

	for (i = 0; i < 12; i++) {
		double u = (double)((i * 7) % 12) - 5.5, e = (double)((i * 5) % 7) - 3;

		x[i * 2] = 1000 + 10 * u + e;
		x[i * 2 + 1] = 3000 + 20 * u - 2 * e + (i >= 6 ? 4 : 0);
	}
	for (i = 0; i < 12; i++) {
		ma[0] += i < 6 ? x[i * 2] / 6 : 0;
		ma[1] += i < 6 ? x[i * 2 + 1] / 6 : 0;
		mb[0] += i >= 6 ? x[i * 2] / 6 : 0;
		mb[1] += i >= 6 ? x[i * 2 + 1] / 6 : 0;
	}
	for (i = 0; i < 12; i++) {
		double *s = i < 6 ? sa : sb, *m = i < 6 ? ma : mb;
		double d0 = x[i * 2] - m[0], d1 = x[i * 2 + 1] - m[1];

		s[0] += d0 * d0 / 5;
		s[1] += d0 * d1 / 5;
		s[2] += d1 * d1 / 5;
	}
	/* B's covariance with the contrast: (5 S_B + 3 d d') / 6 */
	c = 6.0 * 6.0 / 12.0;
	sb[0] = (5 * sb[0] + c * (ma[0] - mb[0]) * (ma[0] - mb[0])) / 6;
	sb[1] = (5 * sb[1] + c * (ma[0] - mb[0]) * (ma[1] - mb[1])) / 6;
	sb[2] = (5 * sb[2] + c * (ma[1] - mb[1]) * (ma[1] - mb[1])) / 6;
	th = 0.5 * atan2(2 * sa[1], sa[0] - sa[2]);
	v[0][0] = cos(th);
	v[0][1] = sin(th);
	v[1][0] = -sin(th);
	v[1][1] = cos(th);
	q1 = region_quantile1(0.99, 2, 7);   /* 6 degrees of freedom */
	for (a = 0; a < 2; a++)
		half[a] = sqrt(q1 * (v[a][0] * v[a][0] * sb[0] + 2 * v[a][0] * v[a][1] * sb[1] +
				     v[a][1] * v[a][1] * sb[2]) / 12);
	CHECK(region_build(x, 12, 2, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->pca_box == 1 && r->rule == REGION_RULE_HOTELLING);
	for (i = 0; i < 2; i++) {
		/* stored by ascending half-width: match the axis up to sign */
		const double *b = r->box_axes + i * 2;

		a = fabs(b[0] * v[0][0] + b[1] * v[0][1]) > 0.5 ? 0 : 1;
		CHECK_NEAR(fabs(b[0] * v[a][0] + b[1] * v[a][1]), 1, 1e-9);
		CHECK_NEAR(r->half_pca[i], half[a], 1e-9 * half[a]);
	}
	CHECK(r->half_pca[0] <= r->half_pca[1]);
	region_free(r);
}

/* The split's penalty rule: k = 5 counters, n = 10 plain intervals
 * leave halves of 5 samples, whose per-axis quantile (t with 5 degrees
 * of freedom, Sidak for 5 axes) is more than SPLIT_MAX_PENALTY = 1.25
 * times the full sample's (t with 9): the short run's frame.  Its
 * counters move together (first-half correlations above 0.99), so they
 * form one block, its wide axis as wide as the whole sample says and its
 * four thin ones narrow: along each counter the box reaches about as far
 * as the independent box (within 10%), and along a thin axis far less.  Counters that do not correlate keep the independent box itself,
 * which the solver is then given (lean or not).  At n = 40 the split box
 * is used. */
static void test_split_penalty(void)
{
	double x[40 * 5], y[10 * 5], res[5] = { 1, 1, 1, 1, 1 };
	struct region_options o = { .resolution = res, .batches = 1 };
	struct region *r = NULL;
	struct cp_error err;
	size_t i, j, l, n;

	for (i = 0; i < 40; i++) {
		double u = (double)((i * 7) % 13) - 6;

		for (j = 0; j < 5; j++)
			x[i * 5 + j] = 1000 * (double)(j + 1) + 30 * u * (double)(j + 1) +
				       (double)((i * (j + 3)) % 5) - 2;
	}
	for (i = 0; i < 10; i++)
		for (j = 0; j < 5; j++)
			y[i * 5 + j] = 1000 + (double)((i * (2 * j + 3) + j * j) % 7);
	CHECK(sqrt(region_quantile1(0.99, 5, 6) / region_quantile1(0.99, 5, 10)) > 1.25);
	CHECK(sqrt(region_quantile1(0.99, 5, 21) / region_quantile1(0.99, 5, 40)) < 1.25);
	for (n = 10; n <= 40; n += 30) {
		size_t on_counters = 0;

		CHECK(region_build(x, n, 5, &o, &r, &err) == 0);
		if (!r)
			return;
		for (i = 0; i < 5; i++)
			for (l = 0; l < 5; l++)
				on_counters += fabs(r->box_axes[i * 5 + l]) == 1;
		CHECK(!r->pca_on_counters);
		if (n == 10) {
			size_t thin = 0;

			/* one block of five */
			CHECK(on_counters == 0);
			for (l = 0; l < 5; l++) {
				double reach = 0;

				for (i = 0; i < 5; i++)
					reach += fabs(r->box_axes[i * 5 + l]) * r->half_pca[i];
				CHECKF(reach <= 1.1 * r->half_ind[l], "counter %zu: %g against %g",
				       l, reach, r->half_ind[l]);
			}
			/* the block's thin axes (near-identities of the data):
			 * far narrower than the independent box reaches along
			 * them */
			for (i = 0; i < 5; i++) {
				double ind = 0;

				for (l = 0; l < 5; l++)
					ind += fabs(r->box_axes[i * 5 + l]) * r->half_ind[l];
				if (r->half_pca[i] < 0.2 * ind)
					thin++;
			}
			CHECKF(thin == 4, "%zu thin axes", thin);
		} else {
			CHECK(on_counters == 0);
		}
		region_free(r);
		r = NULL;
	}
	for (o.lean = 0; o.lean <= 1; o.lean++) {
		struct feas_query q;

		CHECK(region_build(y, 10, 5, &o, &r, &err) == 0);
		if (!r)
			return;
		CHECK(r->pca_on_counters);
		CHECK(!o.lean || (r->box_axes == NULL && r->half_pca == NULL));
		feas_query_from_region(r, FEAS_PCA, &q);
		CHECK(q.shape == FEAS_INDEPENDENT && q.half == r->half_ind && !q.axes);
		region_free(r);
		r = NULL;
	}
}

/* A short run's blocks need a first half of SHORT_BLOCK_MIN_SAMPLES
 * samples (stats/longrun.c, stats_split_pca_box).  Five plain intervals of two
 * counters (five pooled perf stat runs, dTLB-load-misses and dTLB-loads
 * per second of tests/data/perf/public/osproject-tapuz-thpoff1.out ...
 * 5.out): the first half's two samples correlate perfectly whatever the
 * counters, and the pair rotated into a box of 2.48 times the
 * independent box's volume; the PCA box is the independent box.  The
 * same counters, ten intervals (a first half of 5) correlated at 0.99995
 * in it: the pair rotates. */
static void test_short_pair_samples(void)
{
	static const double pool[5 * 2] = { 2.61766e7, 1.04974e8, 2.68002e7, 8.03315e7,
					    2.61425e7, 7.13557e7, 2.64124e7, 6.12033e7,
					    2.66499e7, 5.5135e7 };
	/* u and e orthogonal over each half's five samples */
	static const double u[10] = { -2, -1, 0, 1, 2, 1, -2, 2, 0, -1 };
	static const double e[10] = { 1, -2, 0, 2, -1, -1, 0, 1, 2, -2 };
	double x[10 * 2], res[2] = { 1e-9, 1e-9 }, s00 = 0, s01 = 0, s11 = 0;
	struct region_options o = { .resolution = res, .batches = 1 };
	struct region *r = NULL;
	struct cp_error err;
	size_t i;

	CHECK(region_build(pool, 5, 2, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->pca_box && r->pca_on_counters);
	region_free(r);
	r = NULL;
	for (i = 0; i < 10; i++) {
		x[i * 2] = 2.6e7 + 3e5 * u[i];
		x[i * 2 + 1] = 7e7 + 1e7 * u[i] + 1e5 * e[i];
	}
	for (i = 0; i < 5; i++) {   /* the first half's means are the offsets */
		s00 += (x[i * 2] - 2.6e7) * (x[i * 2] - 2.6e7);
		s11 += (x[i * 2 + 1] - 7e7) * (x[i * 2 + 1] - 7e7);
		s01 += (x[i * 2] - 2.6e7) * (x[i * 2 + 1] - 7e7);
	}
	CHECK(s01 / sqrt(s00 * s11) > 0.9999 && s01 / sqrt(s00 * s11) < 0.99999);
	CHECK(region_build(x, 10, 2, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->pca_box && !r->pca_on_counters);
	region_free(r);
}

/* The split box's axes by blocks: counters 0 and 1 move together at
 * 10^8 (correlation near 1); counter 2, at 10^3, follows them weakly
 * (correlation about 0.3 in the first half, below SPLIT_BLOCK_CORR): its
 * axis is its own, e_2, and the block's two axes do not touch it, so
 * none of the large spread leaks into its width.  Fails if the blocks go. */
static void test_split_blocks(void)
{
	double x[40 * 3], res[3] = { 1, 1, 1 };
	struct region_options o = { .resolution = res, .batches = 1 };
	struct region *r = NULL;
	struct cp_error err;
	size_t i, e2 = 0;

	for (i = 0; i < 40; i++) {
		double u = (double)((i * 7) % 13) - 6, v = (double)((i * 5) % 11) - 5;

		x[i * 3] = 1e8 + 1e6 * u;
		x[i * 3 + 1] = 2e8 + 2e6 * u + 1e3 * v;
		x[i * 3 + 2] = 1e3 + 3 * u + 10 * v;
	}
	CHECK(region_build(x, 40, 3, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->pca_box && !r->pca_on_counters);
	for (i = 0; i < 3; i++) {
		const double *a = r->box_axes + i * 3;

		if (fabs(a[2]) == 1)
			e2++;
		else
			CHECK(a[2] == 0);
	}
	CHECK(e2 == 1);
	region_free(r);
}

/* A perf stat -r summary's region by hand: per counter the mean and the
 * standard error of the mean; half-width t_{N-1}((1+g)/2) * se at the
 * Sidak level g = c^(1/k), plus the resolution floor; correlations
 * unknown, so the PCA box is the independent box and the ellipsoid the
 * one through its corners. */
static void test_summary_by_hand(void)
{
	static const double mu[2] = { 1000, 20 }, se[2] = { 10, 0 };
	double res[2] = { 1e-3, 1e-3 }, g = sqrt(0.99);
	struct region_options o = { .confidence = 0.99, .resolution = res };
	struct region *r = NULL;
	struct cp_error err;
	double t, floor0, x[2];

	cp_error_clear(&err);
	CHECK(region_build_summary(mu, se, 5, 2, &o, &r, &err) == 0);
	if (!r)
		return;
	/* t_4 at (1 + 0.99^(1/2))/2 = 0.997494: 5.0 from tables (t_4(0.9975)
	 * = 5.5976, t_4(0.995) = 4.6041) */
	t = sqrt(region_quantile1(0.99, 2, 5));
	CHECK(t > 4.6041 && t < 5.5976);
	CHECK_NEAR(region_quantile1(0.99, 2, 5), region_quantile1(g, 1, 5), 1e-9);
	floor0 = 1e-6 / 12 / 5 + pow(-log1p(-g) * 1e-3 / 5, 2) / r->q1;
	CHECK_NEAR(r->half_ind[0], sqrt(r->q1 * (100 + floor0)), 1e-9);
	CHECK_NEAR(r->half_ind[0], t * 10, 1e-6);
	/* a counter constant over the runs keeps the zero-count bound, L res/N */
	CHECK(r->half_ind[1] >= -log1p(-g) * 1e-3 / 5 && r->half_ind[1] < 2e-3);
	CHECK(r->runs == 5 && r->n == 5 && r->rule == REGION_RULE_DIAGONAL);
	CHECK(r->pca_on_counters && r->n_counted[0] == 5);
	CHECK(r->cov[1] == 0 && r->cov[2] == 0);
	CHECK_NEAR(r->q, 2 * r->q1, 1e-9);
	/* the box's corner is on the ellipsoid */
	x[0] = mu[0] + r->half_ind[0];
	x[1] = mu[1] + r->half_ind[1];
	CHECK_NEAR(region_mahalanobis2(r, x), r->q, 1e-6);
	x[0] = mu[0] + r->half_ind[0] * 0.999999;
	x[1] = mu[1] - r->half_ind[1] * 0.999999;
	CHECK(region_contains(r, REGION_INDEPENDENT, x) == 1);
	CHECK(region_contains(r, REGION_PCA, x) == 1);
	x[0] = mu[0] + r->half_ind[0] * 1.000001;
	CHECK(region_contains(r, REGION_INDEPENDENT, x) == 0);
	region_free(r);
	/* one new run: se^2 (N + 1) */
	o.per_interval = 1;
	CHECK(region_build_summary(mu, se, 5, 2, &o, &r, &err) == 0);
	CHECK(r && r->half_ind[0] > t * 10 * sqrt(6) * 0.999999 &&
	      r->half_ind[0] < t * 10 * sqrt(6) * 1.000001);
	region_free(r);
	r = NULL;
	CHECK(region_build_summary(mu, se, 1, 2, NULL, &r, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "a summary of 1 run has no spread; a region needs at least 2");
	CHECK(r == NULL);
	o.per_interval = 0;
	o.names = (const char *[]){ "a", "b" };
	CHECK(region_build_summary((double[]){ 1, NAN }, se, 3, 2, &o, &r, &err) == CP_EINPUT);
	CHECK_STR(err.msg, "mean or standard error of 'b' is not a finite number");
	CHECK(region_build_summary(mu, se, 3, 0, &o, &r, &err) == CP_EINPUT);
}

/* The same through a dataset: se_pct of the value, rates per second of
 * running time, the observation's runs. */
static void test_summary_dataset(void)
{
	static const char text[] =
		"observation,interval,event,value,enabled_ns,running_ns,runs,se_pct\n"
		"r,0,a,3000,2000000000,2000000000,4,2.5\n"
		"r,0,b,500,2000000000,1000000000,4,0\n";
	const char *ev[] = { "a", "b" };
	struct stats_dataset *d = NULL;
	struct region *r = NULL;
	struct cp_error err;
	double t;

	cp_error_clear(&err);
	CHECK(stats_dataset_parse("s.csv", text, strlen(text), &d, NULL, &err) == 0);
	if (!d)
		return;
	CHECK(stats_observation_region(d, 0, ev, 2, NULL, &r, &err) == 0);
	if (r) {
		/* 3000 in 2 s: 1500/s, +- 2.5%: se 37.5/s; 500 in 1 s running */
		CHECK_NEAR(r->mu[0], 1500, 1e-9);
		CHECK_NEAR(r->mu[1], 500, 1e-9);
		t = sqrt(region_quantile1(0.99, 2, 4));
		CHECK_NEAR(r->half_ind[0], t * 37.5, 0.01);
		CHECK(r->runs == 4);
	}
	region_free(r);
	stats_dataset_free(d);
}

/* An autocorrelated observation through the dataset, whose residuals take
 * the rates' place, gives the region region_build gives from rates it may
 * not touch: the same bytes, prewhitened. */
static void test_prewhitened_in_place(void)
{
	const char *ev[] = { "a", "b", "c" };
	struct cp_buf t = { 0 };
	struct stats_dataset *d = NULL;
	struct region *ra = NULL, *rb = NULL;
	struct region_options o = { 0 };
	struct cp_error err;
	double *rates = NULL, res[3], xa = 0, xb = 0;
	size_t n = 0, i;
	uint64_t s = 7;

	cp_buf_puts(&t, "observation,interval,event,value,enabled_ns,running_ns\n");
	for (i = 0; i < 300; i++) {
		/* AR(1) at 0.8 with xorshift noise; c missing every tenth */
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		xa = 0.8 * xa + (double)(s % 1000);
		xb = 0.8 * xb + (double)(s >> 54);
		cp_buf_printf(&t, "o,%zu,a,%.0f,1000000000,1000000000\n", i, 5e4 + xa);
		cp_buf_printf(&t, "o,%zu,b,%.0f,1000000000,1000000000\n", i, 3e4 + xa + xb);
		if (i % 10)
			cp_buf_printf(&t, "o,%zu,c,%.0f,1000000000,500000000\n", i, 2e4 + xb);
	}
	cp_error_clear(&err);
	CHECK(t.data && stats_dataset_parse("ar.csv", t.data, t.len, &d, NULL, &err) == 0);
	if (!d)
		goto out;
	CHECK(stats_observation_rates(d, 0, ev, 3, &rates, &n, &err) == 0 && n == 300);
	CHECK(stats_observation_resolution(d, 0, ev, 3, res, &err) == 0);
	o.resolution = res;
	CHECK(rates && region_build(rates, n, 3, &o, &ra, &err) == 0);
	CHECK(stats_observation_region(d, 0, ev, 3, NULL, &rb, &err) == 0);
	if (!ra || !rb)
		goto out;
	CHECK(ra->prewhitened && rb->prewhitened);
	CHECK(memcmp(ra->mu, rb->mu, 3 * sizeof *ra->mu) == 0);
	CHECK(memcmp(ra->cov, rb->cov, 9 * sizeof *ra->cov) == 0);
	CHECK(memcmp(ra->half_ind, rb->half_ind, 3 * sizeof *ra->half_ind) == 0);
	CHECK(memcmp(ra->half_pca, rb->half_pca, 3 * sizeof *ra->half_pca) == 0);
	CHECK(memcmp(ra->box_axes, rb->box_axes, 9 * sizeof *ra->box_axes) == 0);
	CHECK(ra->bandwidth == rb->bandwidth && ra->n == rb->n);
out:
	region_free(ra);
	region_free(rb);
	cp_free(rates);
	stats_dataset_free(d);
	cp_buf_release(&t);
}

static void expect_build_error(const double *x, size_t n, size_t k,
			       const struct region_options *o, const char *msg)
{
	struct region *r = NULL;
	struct cp_error err;

	cp_error_clear(&err);
	CHECK(region_build(x, n, k, o, &r, &err) != 0);
	CHECK(r == NULL);
	CHECK_STR(err.msg, msg);
}

static void test_build_errors(void)
{
	double x[6] = { 1, NAN, 2, NAN, 3, 4 }, y[2] = { 1, 2 }, inf[2] = { 1, INFINITY };
	const char *names[] = { "a", "b" };
	struct region_options o = { .names = names };
	struct region_options bad_conf = { .confidence = 1.5 };
	struct region_options batches = { .batches = 5 };
	(void)0;
	double zero = 0;
	struct region_options bad_res = { .resolution = &zero };

	expect_build_error(x, 3, 2, &o, "'b' was counted in 1 interval; a region needs at least 2");
	expect_build_error(y, 1, 2, NULL, "'counter 0' was counted in 1 interval; a region needs at least 2");
	expect_build_error(y, 0, 1, NULL, "'counter 0' was counted in 0 intervals; a region needs at least 2");
	expect_build_error(inf, 2, 1, NULL, "rate of 'counter 0' in interval 1 is infinite");
	expect_build_error(y, 2, 1, &bad_conf, "confidence 1.5 is not in (0, 1)");
	expect_build_error(y, 2, 1, &batches, "5 batches need at least as many intervals, not 2");
	expect_build_error(y, 2, 1, &bad_res, "resolution of 'counter 0' is 0, not a positive number");
	expect_build_error(y, 2, 0, NULL, "a region needs at least one counter");
}

/* Batch means of 6 intervals in 3 batches: (1,2), (3,4), (5,NaN). */
static void test_batch_means(void)
{
	double x[6] = { 1, 2, 3, 4, 5, NAN }, res = 1e-9;
	struct region_options o = { .batches = 3, .resolution = &res };
	struct region *r = NULL;
	struct cp_error err;

	CHECK(region_build(x, 6, 1, &o, &r, &err) == 0);
	if (!r)
		return;
	CHECK(r->n == 3);
	CHECK_NEAR(r->mu[0], (1.5 + 3.5 + 5) / 3, 1e-12);
	region_free(r);
}

static void test_lag1(void)
{
	double up[6] = { 1, 2, 3, 4, 5, 6 }, alt[6] = { 1, -1, 1, -1, 1, -1 };
	double flat[4] = { 2, 2, 2, 2 };

	CHECK_NEAR(stats_lag1_autocorrelation(up, 6, 1, 0), 0.5, 1e-12);
	CHECK_NEAR(stats_lag1_autocorrelation(alt, 6, 1, 0), -5.0 / 6, 1e-12);
	CHECK(isnan(stats_lag1_autocorrelation(flat, 4, 1, 0)));
}

static void test_allocation_failures(void)
{
	double x[40];
	unsigned long nth;
	int ok = 0, wrong = 0;
	size_t i;

	for (i = 0; i < 40; i++)
		x[i] = (double)((i * 13) % 7) + (double)(i % 4);
	for (nth = 1; nth < 100 && !ok; nth++) {
		struct region *r = NULL;
		struct cp_error err;
		int rc;

		cp_alloc_fail_at(nth);
		rc = region_build(x, 10, 4, NULL, &r, &err);
		cp_alloc_fail_at(0);
		if (rc == 0)
			ok = 1;
		else if (rc != CP_ENOMEM)
			wrong = 1;
		region_free(r);
	}
	CHECK(ok && !wrong);
}

int main(void)
{
	check_prog = "test_region";
	RUN(test_chi_square_table);
	RUN(test_hotelling_and_t);
	RUN(test_quantile_inverse);
	RUN(test_quantile_memo);
	RUN(test_eigen_known);
	RUN(test_eigen_residual);
	RUN(test_region_by_hand);
	RUN(test_default_floor);
	RUN(test_rank_deficient);
	RUN(test_no_pca_box);
	RUN(test_too_few_intervals);
	RUN(test_split_box_by_hand);
	RUN(test_split_penalty);
	RUN(test_short_pair_samples);
	RUN(test_split_blocks);
	RUN(test_build_errors);
	RUN(test_summary_by_hand);
	RUN(test_summary_dataset);
	RUN(test_prewhitened_in_place);
	RUN(test_batch_means);
	RUN(test_lag1);
	RUN(test_allocation_failures);
	return check_summary();
}
