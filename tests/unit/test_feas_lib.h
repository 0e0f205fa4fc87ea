/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_feas_lib.h: helpers for the solver's unit tests: a fixed
 * random generator, regions built by hand (mean, covariance of the mean,
 * PCA axes, boxes and the ellipsoid at one quantile), and brute-force
 * facets of small full-dimensional cones (the oracle the LP is compared
 * with).  Static functions only: included by one test program each. */
#ifndef TEST_FEAS_LIB_H
#define TEST_FEAS_LIB_H

#include <gsl/gsl_cdf.h>
#include <lapacke.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t tl_state = 88172645463325252ull;

static inline void tl_seed(uint64_t s) { tl_state = s ? s : 1; }

static inline uint64_t tl_next(void)
{
	tl_state ^= tl_state << 13;
	tl_state ^= tl_state >> 7;
	tl_state ^= tl_state << 17;
	return tl_state;
}

static inline double tl_unif(void) { return (double)(tl_next() >> 11) / 9007199254740992.0; }

static inline double tl_normal(void)
{
	double u = tl_unif(), v = tl_unif();

	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A region as stats would build it: mean mu, covariance of the mean cov,
 * eigen-axes (rows), half-widths of both boxes, quantile q. */
struct tl_region {
	size_t k;
	double mu[64], cov[64 * 64], axes[64 * 64], lambda[64];
	double half_pca[64], half_ind[64], q;
};

/* Fill axes/lambda from cov, and both boxes at quantile q: the PCA box
 * +-sqrt(q lambda_i) along v_i and the independent box +-sqrt(q cov_jj)
 * (both circumscribe the ellipsoid, so the ellipsoid nests inside). */
static inline void tl_region_finish(struct tl_region *r, double q)
{
	size_t k = r->k, i, j;
	double a[64 * 64];

	memcpy(a, r->cov, k * k * sizeof *a);
	LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', (int)k, a, (int)k, r->lambda);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			r->axes[i * k + j] = a[j * k + i];
	r->q = q;
	for (i = 0; i < k; i++) {
		double l = r->lambda[i] > 0 ? r->lambda[i] : 0;

		r->half_pca[i] = sqrt(q * l);
		r->half_ind[i] = sqrt(q * r->cov[i * k + i]);
	}
}

/* Random covariance B B^T / k + eps I, scaled by s^2, with correlation
 * controlled by rho (0: diagonal, near 1: strongly correlated). */
static inline void tl_random_cov(struct tl_region *r, double s, double rho)
{
	size_t k = r->k, i, j, l;
	double B[64 * 64];

	for (i = 0; i < k * k; i++)
		B[i] = tl_normal();
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++) {
			double v = 0;

			for (l = 0; l < k; l++)
				v += B[i * k + l] * B[j * k + l];
			v = rho * v / (double)k + (i == j ? (1 - rho) + 1e-3 : 0);
			r->cov[i * k + j] = v * s * s;
		}
}

static inline void tl_query(const struct tl_region *r, enum feas_shape shape,
		     struct feas_query *q)
{
	memset(q, 0, sizeof *q);
	q->shape = shape;
	q->mu = r->mu;
	q->cov = r->cov;
	q->axes = r->axes;
	q->half = shape == FEAS_INDEPENDENT ? r->half_ind : r->half_pca;
	q->q = r->q;
	q->n = 0;
}

/* ---- brute-force facets of a full-dimensional cone (k <= 4) ---- */

static inline double tl_det(double *a, size_t n)
{
	size_t i, j, c;
	double d = 1;

	for (c = 0; c < n; c++) {
		size_t p = c;

		for (i = c + 1; i < n; i++)
			if (fabs(a[i * n + c]) > fabs(a[p * n + c]))
				p = i;
		if (fabs(a[p * n + c]) < 1e-12)
			return 0;
		if (p != c) {
			for (j = 0; j < n; j++) {
				double t = a[c * n + j];

				a[c * n + j] = a[p * n + j];
				a[p * n + j] = t;
			}
			d = -d;
		}
		d *= a[c * n + c];
		for (i = c + 1; i < n; i++) {
			double f = a[i * n + c] / a[c * n + c];

			for (j = c; j < n; j++)
				a[i * n + j] -= f * a[c * n + j];
		}
	}
	return d;
}

static inline int64_t tl_gcd(int64_t a, int64_t b)
{
	if (a < 0) a = -a;
	if (b < 0) b = -b;
	while (b) { int64_t t = a % b; a = b; b = t; }
	return a;
}

/* Facets (primitive integer normals, a.s >= 0) of cone{S} in dimension
 * k (2..4), S full-dimensional; returns how many (at most maxf). */
static inline size_t tl_facets(size_t k, size_t m, const uint32_t *S, int64_t *F,
			size_t maxf)
{
	size_t nf = 0, idx[4], i, j, p, r = k - 1;

	if (k < 2 || k > 4 || m < r)
		return 0;
	for (i = 0; i < r; i++)
		idx[i] = i;
	for (;;) {
		int64_t a[4], g = 0;
		int pos = 0, neg = 0, dup = 0;

		/* normal by cofactors of the (k-1) x k matrix of the subset */
		for (j = 0; j < k; j++) {
			double M[16];
			size_t rr, c, cc;

			for (rr = 0; rr < r; rr++)
				for (c = cc = 0; c < k; c++)
					if (c != j)
						M[rr * r + cc++] = S[idx[rr] * k + c];
			a[j] = (int64_t)llround(((j % 2) ? -1 : 1) * tl_det(M, r));
			g = tl_gcd(g, a[j]);
		}
		if (g != 0) {
			for (j = 0; j < k; j++)
				a[j] /= g;
			for (p = 0; p < m; p++) {
				int64_t s = 0;

				for (j = 0; j < k; j++)
					s += a[j] * (int64_t)S[p * k + j];
				pos += s > 0;
				neg += s < 0;
			}
			if (!(pos && neg)) {
				if (neg)
					for (j = 0; j < k; j++)
						a[j] = -a[j];
				for (i = 0; i < nf; i++)
					if (!memcmp(F + i * k, a, k * sizeof *a))
						dup = 1;
				if (!dup && nf < maxf)
					memcpy(F + nf++ * k, a, k * sizeof *a);
			}
		}
		/* next (k-1)-subset in lexicographic order */
		i = r;
		while (i > 0 && idx[i - 1] == m - r + i - 1)
			i--;
		if (i == 0)
			break;
		idx[i - 1]++;
		for (j = i; j < r; j++)
			idx[j] = idx[j - 1] + 1;
	}
	return nf;
}

#endif
