/* SPDX-License-Identifier: GPL-3.0-or-later */
/* solver/support.c: the regions' support functions and margins (the one
 * formula for max over a region of a.x), query validation, and the
 * adapter from a stats region to a query. */
#include <math.h>
#include <string.h>

#include "solver/feas.h"
#include "solver/feas_int.h"

#include "stats/region.h"

/* ================================================================ *
 * Small linear algebra and support functions                        *
 * ================================================================ */

double feas_dot(const double *a, const double *b, size_t k)
{
	double s = 0;
	size_t i;

	for (i = 0; i < k; i++)
		s += a[i] * b[i];
	return s;
}

/* a's non-zero positions in nz (room for FEAS_SPARSE_K): constraints
 * read a few counters, and the sums below need only those.  NULL (every
 * position) when k is larger. */
#define FEAS_SPARSE_K 256

static const size_t *support_of(const double *a, size_t k, size_t *nz, size_t *n)
{
	size_t i;

	if (k > FEAS_SPARSE_K) {
		*n = k;
		return NULL;
	}
	for (i = *n = 0; i < k; i++)
		if (a[i] != 0)
			nz[(*n)++] = i;
	return nz;
}

#define AT(u) (ix ? ix[u] : (u))

/* The region's half-width along a:  max_{x in R} a.(x - mu).
 *   PCA box:      sum_i half_i |axes_i . a|
 *   independent:  sum_j half_j |a_j|
 *   ellipsoid:    sqrt(q a^T cov a)
 * and, when sd is not NULL, the standard deviation of a.x under the
 * covariance of the mean (the half-width when the query has none).  The
 * sums run over a's positions ix[0..n) (support_of), in the order of the
 * sums over all k, leaving out only zero products (the region's numbers
 * are finite): the values are those sums' to the bit. */
static void spread_sd(const struct feas_query *q, const double *a, size_t k,
		      const size_t *ix, size_t n, double *spread, double *sd)
{
	double s = 0, quad = 0, t;
	size_t i, u, v;

	if (q->shape == FEAS_ELLIPSOID || (sd && q->cov))
		for (u = 0; u < n; u++)
			for (v = 0; v < n; v++)
				quad += a[AT(u)] * q->cov[AT(u) * k + AT(v)] * a[AT(v)];
	switch (q->shape) {
	case FEAS_PCA:
		for (i = 0; i < k; i++) {
			const double *ax = q->axes + i * k;

			for (u = 0, t = 0; u < n; u++)
				t += ax[AT(u)] * a[AT(u)];
			s += q->half[i] * fabs(t);
		}
		*spread = s;
		break;
	case FEAS_INDEPENDENT:
		for (u = 0; u < n; u++)
			s += q->half[AT(u)] * fabs(a[AT(u)]);
		*spread = s;
		break;
	case FEAS_ELLIPSOID:
		*spread = sqrt(q->q * (quad > 0 ? quad : 0));
		break;
	default:
		*spread = NAN;
	}
	if (sd)
		*sd = q->cov ? sqrt(quad > 0 ? quad : 0) : *spread;
}

double feas_spread(const struct feas_query *q, const double *a, size_t k)
{
	size_t nz[FEAS_SPARSE_K], n;
	const size_t *ix = support_of(a, k, nz, &n);
	double h;

	spread_sd(q, a, k, ix, n, &h, NULL);
	return h;
}

/* Margin of constraint a (see feas.h): positive when the whole region
 * breaks it.  For a.x >= 0 the region's largest a.x is a.mu + spread. */

double feas_margin(const struct feas_query *q, const double *a, size_t k,
		   int is_equality, double *mean_sd)
{
	double ms;

	return feas_margin_of(q, a, k, is_equality, mean_sd ? mean_sd : &ms);
}

double feas_margin_of(const struct feas_query *q, const double *a, size_t k,
			int is_equality, double *mean_sd)
{
	size_t nz[FEAS_SPARSE_K], n, u;
	const size_t *ix = support_of(a, k, nz, &n);
	double c = 0, h, sd;

	for (u = 0; u < n; u++)
		c += a[AT(u)] * q->mu[AT(u)];
	spread_sd(q, a, k, ix, n, &h, &sd);

	if (!(sd > 0))
		sd = 1;  /* a zero-width region: margins in plain units */
	*mean_sd = c / sd;
	if (!is_equality)
		return -(c + h) / sd;
	if (c - h > 0)
		return (c - h) / sd;
	if (c + h < 0)
		return -(c + h) / sd;
	return -fmin(c + h, h - c) / sd;
}

#undef AT

/* Validate a query: every number finite, widths non-negative. */
int feas_query_check(const struct feas_query *q, size_t k,
		       struct cp_error *err)
{
	size_t i;

	if (!q || !q->mu)
		return cp_error_set(err, CP_EINPUT, "region without a centre");
	for (i = 0; i < k; i++)
		if (!isfinite(q->mu[i]))
			return cp_error_set(err, CP_EINPUT,
					    "region centre is not finite in counter %zu", i);
	if (q->shape == FEAS_PCA || q->shape == FEAS_INDEPENDENT) {
		if (!q->half || (q->shape == FEAS_PCA && !q->axes))
			return cp_error_set(err, CP_EINPUT, "box region without its widths or axes");
		for (i = 0; i < k; i++)
			if (!isfinite(q->half[i]) || q->half[i] < 0)
				return cp_error_set(err, CP_EINPUT,
						    "box half-width %zu is negative or not finite", i);
		if (q->shape == FEAS_PCA)
			for (i = 0; i < k * k; i++)
				if (!isfinite(q->axes[i]))
					return cp_error_set(err, CP_EINPUT, "box axes are not finite");
	} else if (q->shape == FEAS_ELLIPSOID) {
		if (!q->cov || !isfinite(q->q) || q->q < 0)
			return cp_error_set(err, CP_EINPUT,
					    "ellipsoid region without a covariance or a finite quantile");
	} else {
		return cp_error_set(err, CP_EINPUT, "unknown region shape %d", (int)q->shape);
	}
	if (q->cov)
		for (i = 0; i < k * k; i++)
			if (!isfinite(q->cov[i]))
				return cp_error_set(err, CP_EINPUT, "region covariance is not finite");
	return CP_OK;
}

/* ================================================================ *
 * Regions from the stats module                                     *
 * ================================================================ */

void feas_query_from_region(const struct region *r, enum feas_shape shape,
			    struct feas_query *q)
{
	memset(q, 0, sizeof *q);
	q->shape = shape;
	q->mu = r->mu;
	q->cov = r->cov;
	q->n = r->n;
	q->q = r->q;
	switch (shape) {
	case FEAS_PCA:
		if (r->pca_on_counters) {
			/* the same box, along the counters: the solver's
			 * cheaper independent-box paths (no k x k rotation) */
			q->shape = FEAS_INDEPENDENT;
			q->half = r->half_ind;
			break;
		}
		q->axes = r->box_axes;
		q->half = r->half_pca;
		break;
	case FEAS_INDEPENDENT:
		q->half = r->half_ind;
		break;
	case FEAS_ELLIPSOID:
		break;
	}
}

