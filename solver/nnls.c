/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/nnls.c: non-negative least squares (Lawson and Hanson, "Solving
 * Least Squares Problems", 1974, ch. 23) on LAPACK's QR, certified by the
 * KKT conditions.  Used for the exact ellipsoid test: the smallest
 * Mahalanobis distance from an observation's mean to the model cone,
 *     d2 = min_{f >= 0} || L^{-1} (S^T f - mu) ||^2,   cov = L L^T.
 * The matrix A = L^{-1} S^T is never formed (k^2 m flops): the gradient
 * w = A^T (b - A f) = -S u with u = L^{-T} r is two triangular solves and
 * one pass over S, and only the passive columns of A are built, for the
 * least-squares step. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "solver/feas_int.h"

/* Solve L y = v in place (L lower triangular, column-major k x k). */
static void forward(const double *L, size_t k, double *v)
{
	size_t i, j;

	for (i = 0; i < k; i++) {
		double s = v[i];

		for (j = 0; j < i; j++)
			s -= L[i + j * k] * v[j];
		v[i] = s / L[i + i * k];
	}
}

/* Solve L^T y = v in place. */
static void backward(const double *L, size_t k, double *v)
{
	size_t i, j;

	for (i = k; i-- > 0;) {
		double s = v[i];

		for (j = i + 1; j < k; j++)
			s -= L[j + i * k] * v[j];
		v[i] = s / L[i + i * k];
	}
}

struct nnls {
	size_t k, m;
	const double *S, *snorm, *L, *mu;
	double *b;      /* L^{-1} mu */
	double *u;      /* L^{-T} r */
	double unorm;
};

/* r = L^{-1} (S^T f - mu) (over the passive set, where f may be
 * non-zero), u = L^{-T} r, and w_p = -s_p . u for every p. */
static void gradient(struct nnls *c, const size_t *P, size_t np,
		     const double *f, double *r, double *w)
{
	size_t k = c->k, i, j, p;

	for (i = 0; i < k; i++)
		r[i] = -c->mu[i];
	for (j = 0; j < np; j++)
		for (i = 0; i < k; i++)
			r[i] += c->S[P[j] * k + i] * f[P[j]];
	forward(c->L, k, r);
	memcpy(c->u, r, k * sizeof *r);
	backward(c->L, k, c->u);
	c->unorm = 0;
	for (i = 0; i < k; i++)
		c->unorm += c->u[i] * c->u[i];
	c->unorm = sqrt(c->unorm);
	for (p = 0; p < c->m; p++) {
		const double *s = c->S + p * k;
		double v = 0;

		for (i = 0; i < k; i++)
			v -= s[i] * c->u[i];
		w[p] = v;
	}
}

/* Least squares on the passive columns: z = argmin ||A_P z - b|| by
 * LAPACK's dgels (Householder QR).  Returns 0, 1 when A_P is rank
 * deficient, -1 when LAPACK failed. */
static int passive_ls(struct nnls *c, const size_t *P, size_t np,
		      double *work, double *z)
{
	size_t k = c->k, ld = k > np ? k : np, i, j;
	double *AP = work, *rhs = work + k * np;
	lapack_int info;

	for (j = 0; j < np; j++) {
		memcpy(AP + j * k, c->S + P[j] * k, k * sizeof *AP);
		forward(c->L, k, AP + j * k);
	}
	memset(rhs, 0, ld * sizeof *rhs);
	memcpy(rhs, c->b, k * sizeof *rhs);
	info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)k, (lapack_int)np, 1,
			     AP, (lapack_int)k, rhs, (lapack_int)ld);
	if (info < 0)
		return -1;
	if (info > 0)
		return 1;
	for (i = 0; i < np; i++)
		z[i] = rhs[i];
	return 0;
}

/* Lawson and Hanson's active-set algorithm as one loop (about 160 lines):
 * its inner and outer iterations share the passive set, the
 * least-squares solve and the step length, and splitting them would pass
 * all of that around. */
int feas_nnls(size_t k, size_t m, const double *S, const double *snorm,
	      const double *L, const double *mu, size_t *passive, size_t *n_passive,
	      double *f, double *r, double *kkt, struct cp_error *err)
{
	struct nnls c;
	double *w = NULL, *z = NULL, *work = NULL, uscale;
	unsigned char *in_p = NULL, *banned = NULL;
	size_t *P = NULL, np = 0, p, outer, max_outer = 3 * (m + k) + 30;
	int rc = CP_OK;

	memset(&c, 0, sizeof c);
	c.k = k;
	c.m = m;
	c.S = S;
	c.snorm = snorm;
	c.L = L;
	c.mu = mu;
	w = cp_malloc((m ? m : 1) * sizeof *w);
	z = cp_malloc((k + 1) * sizeof *z);
	work = cp_malloc((k * (k + 1) + 2 * k + 2) * sizeof *work);
	c.b = cp_malloc(k * sizeof *c.b);
	c.u = cp_malloc(k * sizeof *c.u);
	in_p = cp_calloc(m ? m : 1, 1);
	banned = cp_calloc(m ? m : 1, 1);
	P = cp_malloc((k + 1) * sizeof *P);
	if (!w || !z || !work || !c.b || !c.u || !in_p || !banned || !P) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory in the ellipsoid test");
		goto out;
	}
	memcpy(c.b, mu, k * sizeof *c.b);
	forward(L, k, c.b);
	for (p = 0; p < m; p++)
		f[p] = 0;
	gradient(&c, P, np, f, r, w);
	/* the gradient's scale at f = 0: tolerances are relative to it, not
	 * to the (vanishing) gradient near a zero residual */
	uscale = c.unorm > 0 ? c.unorm : 1;
	/* Warm start: the previous passive set, less the columns whose
	 * least-squares flows are not positive, until all are. */
	if (passive && n_passive && *n_passive) {
		size_t j, keep, round;

		for (j = 0; j < *n_passive && j < k; j++)
			if (passive[j] < m && !in_p[passive[j]]) {
				P[np++] = passive[j];
				in_p[passive[j]] = 1;
			}
		for (round = 0; np && round < k + 1; round++) {
			int ls = passive_ls(&c, P, np, work, z);

			if (ls < 0) {
				rc = cp_error_set(err, CP_ENUMERIC,
						  "least squares failed in the ellipsoid test");
				goto out;
			}
			if (ls > 0) {
				/* dependent columns: start cold */
				for (j = 0; j < np; j++)
					in_p[P[j]] = 0;
				np = 0;
				break;
			}
			for (j = keep = 0; j < np; j++)
				if (z[j] > 0)
					P[keep++] = P[j];
				else
					in_p[P[j]] = 0;
			if (keep == np) {
				for (j = 0; j < np; j++)
					f[P[j]] = z[j];
				break;
			}
			np = keep;
		}
		gradient(&c, P, np, f, r, w);
	}
	for (outer = 0; outer < max_outer; outer++) {
		size_t t = m, inner;
		double best = 0;

		/* entering column: the largest gradient per unit of ||s_p||,
		 * when its cosine with -u is clearly positive */
		for (p = 0; p < m; p++)
			if (!in_p[p] && !banned[p] &&
			    w[p] > FEAS_TOL_NNLS_GRAD * snorm[p] * uscale && w[p] / snorm[p] > best) {
				best = w[p] / snorm[p];
				t = p;
			}
		if (t == m || np >= k)
			break;
		P[np++] = t;
		in_p[t] = 1;
		for (inner = 0; inner < 3 * k + 10; inner++) {
			double alpha = 1;
			int ls = passive_ls(&c, P, np, work, z);
			size_t j, keep;

			if (ls < 0) {
				rc = cp_error_set(err, CP_ENUMERIC,
						  "least squares failed in the ellipsoid test");
				goto out;
			}
			if (ls > 0) {
				/* the newest column depends on the others */
				np--;
				in_p[P[np]] = 0;
				banned[P[np]] = 1;
				break;
			}
			for (j = 0; j < np; j++)
				if (z[j] <= 0) {
					double fj = f[P[j]], s = fj / (fj - z[j]);

					if (s < alpha)
						alpha = s;
				}
			if (alpha >= 1) {
				for (j = 0; j < np; j++)
					f[P[j]] = z[j];
				break;
			}
			/* step towards z until a passive variable reaches 0,
			 * and return the zero ones to the active set */
			for (j = 0; j < np; j++)
				f[P[j]] += alpha * (z[j] - f[P[j]]);
			for (j = keep = 0; j < np; j++) {
				if (f[P[j]] <= FEAS_TOL_NNLS_ZERO * (1 + fabs(z[j]))) {
					f[P[j]] = 0;
					in_p[P[j]] = 0;
				} else {
					P[keep++] = P[j];
				}
			}
			np = keep;
		}
		gradient(&c, P, np, f, r, w);
		memset(banned, 0, m);
	}
	/* KKT certificate, relative to ||s_p|| and the gradient's scale at
	 * f = 0: w_p <= 0 where f_p = 0, w_p = 0 where f_p > 0 */
	{
		double worst = 0;

		gradient(&c, P, np, f, r, w);
		for (p = 0; p < m; p++) {
			double v = f[p] > 0 ? fabs(w[p]) : (w[p] > 0 ? w[p] : 0);

			v /= snorm[p] * uscale;
			if (v > worst)
				worst = v;
		}
		*kkt = worst;
	}
	if (passive && n_passive) {
		memcpy(passive, P, np * sizeof *P);
		*n_passive = np;
	}
out:
	cp_free(w);
	cp_free(z);
	cp_free(work);
	cp_free(c.b);
	cp_free(c.u);
	cp_free(in_p);
	cp_free(banned);
	cp_free(P);
	return rc;
}
