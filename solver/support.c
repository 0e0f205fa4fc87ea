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

/* The region's half-width along a:  max_{x in R} a.(x - mu).
 *   PCA box:      sum_i half_i |axes_i . a|
 *   independent:  sum_j half_j |a_j|
 *   ellipsoid:    sqrt(q a^T cov a)                                   */
double feas_spread(const struct feas_query *q, const double *a, size_t k)
{
	double s = 0;
	size_t i, j;

	switch (q->shape) {
	case FEAS_PCA:
		for (i = 0; i < k; i++)
			s += q->half[i] * fabs(feas_dot(q->axes + i * k, a, k));
		return s;
	case FEAS_INDEPENDENT:
		for (j = 0; j < k; j++)
			s += q->half[j] * fabs(a[j]);
		return s;
	case FEAS_ELLIPSOID:
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++)
				s += a[i] * q->cov[i * k + j] * a[j];
		return sqrt(q->q * (s > 0 ? s : 0));
	}
	return NAN;
}

#define FEAS_SPARSE_K 256

/* Standard deviation of a.x under the covariance of the mean (or the
 * half-width when the query has no covariance). */
static double sd_along(const struct feas_query *q, const double *a, size_t k)
{
	double s = 0;
	size_t i, j;

	if (!q->cov)
		return feas_spread(q, a, k);
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			s += a[i] * q->cov[i * k + j] * a[j];
	return sqrt(s > 0 ? s : 0);
}

/* Margin of constraint a (see feas.h): positive when the whole region
 * breaks it.  For a.x >= 0 the region's largest a.x is a.mu + spread. */

double feas_margin(const struct feas_query *q, const double *a, size_t k,
		   int is_equality, double *mean_sd)
{
	double ms;

	return feas_margin_of(q, a, k, is_equality, mean_sd ? mean_sd : &ms);
}

/* feas_spread and sd_along over a's non-zeros nz[0..n): constraints read a
 * few counters.  Each sum keeps the dense loops' order and leaves out only
 * zero products (the region's numbers are finite), so the values are
 * theirs to the bit. */
static void spread_sd_sparse(const struct feas_query *q, const double *a,
			     size_t k, const size_t *nz, size_t n,
			     double *spread, double *sd)
{
	double s = 0, t;
	size_t i, u, v;

	if (q->cov || q->shape == FEAS_ELLIPSOID) {
		for (u = 0; u < n; u++)
			for (v = 0; v < n; v++)
				s += a[nz[u]] * q->cov[nz[u] * k + nz[v]] * a[nz[v]];
		if (q->shape == FEAS_ELLIPSOID)
			*spread = sqrt(q->q * (s > 0 ? s : 0));
		if (q->cov)
			*sd = sqrt(s > 0 ? s : 0);
		if (q->shape == FEAS_ELLIPSOID)
			return;
	}
	s = 0;
	if (q->shape == FEAS_PCA) {
		for (i = 0; i < k; i++) {
			const double *ax = q->axes + i * k;

			for (u = 0, t = 0; u < n; u++)
				t += ax[nz[u]] * a[nz[u]];
			s += q->half[i] * fabs(t);
		}
	} else {
		for (u = 0; u < n; u++)
			s += q->half[nz[u]] * fabs(a[nz[u]]);
	}
	*spread = s;
	if (!q->cov)
		*sd = s;
}

double feas_margin_of(const struct feas_query *q, const double *a, size_t k,
			int is_equality, double *mean_sd)
{
	double c, h = 0, sd = 0;
	size_t nz[FEAS_SPARSE_K], n, i;

	if (k <= FEAS_SPARSE_K && (q->shape == FEAS_PCA || q->shape == FEAS_INDEPENDENT ||
				   q->shape == FEAS_ELLIPSOID)) {
		for (i = n = 0; i < k; i++)
			if (a[i] != 0)
				nz[n++] = i;
		for (i = 0, c = 0; i < n; i++)
			c += a[nz[i]] * q->mu[nz[i]];
		spread_sd_sparse(q, a, k, nz, n, &h, &sd);
	} else {
		c = feas_dot(a, q->mu, k);
		h = feas_spread(q, a, k);
		sd = sd_along(q, a, k);
	}

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

