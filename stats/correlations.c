/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/correlations.c: how an observation's counters move together over
 * its intervals, for `counterpoint region`'s report (not for regions,
 * which take batch means and the long-run covariance). */
#include <math.h>
#include <string.h>

#include "common/cp.h"
#include "stats/region.h"
#include "stats/stats_int.h"

void stats_correlations_release(struct stats_correlations *cr)
{
	cp_free(cr->idx);
	cp_free(cr->c);
}

/* Pearson's r of columns a and b of the n x k rates x over the rows where
 * both are counted (not NAN); NAN when fewer than STATS_CORR_MIN_SHARED rows
 * or either is constant over them. */
static double pair_correlation(const double *x, size_t n, size_t k,
			       size_t a, size_t b)
{
	double ma = 0, mb = 0, saa = 0, sbb = 0, sab = 0, r;
	size_t t, cnt = 0;

	for (t = 0; t < n; t++)
		if (!isnan(x[t * k + a]) && !isnan(x[t * k + b])) {
			ma += x[t * k + a];
			mb += x[t * k + b];
			cnt++;
		}
	if (cnt < STATS_CORR_MIN_SHARED)
		return NAN;
	ma /= (double)cnt;
	mb /= (double)cnt;
	for (t = 0; t < n; t++)
		if (!isnan(x[t * k + a]) && !isnan(x[t * k + b])) {
			double da = x[t * k + a] - ma, db = x[t * k + b] - mb;

			saa += da * da;
			sbb += db * db;
			sab += da * db;
		}
	if (!(saa > 0) || !(sbb > 0))
		return NAN;
	r = sab / sqrt(saa * sbb);
	return r > 1 ? 1 : r < -1 ? -1 : r;   /* rounding only */
}

/* Whether column j of x takes two values or more where counted. */
static int column_varies(const double *x, size_t n, size_t k, size_t j)
{
	double first = NAN;
	size_t t;

	for (t = 0; t < n; t++) {
		double v = x[t * k + j];

		if (isnan(v))
			continue;
		if (isnan(first))
			first = v;
		else if (v != first)
			return 1;
	}
	return 0;
}

int stats_correlations(struct stats_correlations *cr,
		       const struct stats_dataset *d, size_t obs,
		       const char *const *events, size_t k, struct cp_error *err)
{
	double *x = NULL;
	size_t n = 0;
	int rc;

	memset(cr, 0, sizeof *cr);
	if (!(rc = stats_observation_rates(d, obs, events, k, &x, &n, err)))
		rc = stats_correlations_rates(cr, x, n, k, err);
	cp_free(x);
	return rc;
}

int stats_correlations_rates(struct stats_correlations *cr, const double *x,
			     size_t n, size_t k, struct cp_error *err)
{
	size_t m = 0, i, j;
	double *w = NULL, *v = NULL;
	double total = 0, acc = 0;
	int rc = CP_OK;

	memset(cr, 0, sizeof *cr);
	cr->idx = cp_calloc(k ? k : 1, sizeof *cr->idx);
	cr->c = cp_calloc(k ? k * k : 1, sizeof *cr->c);
	w = cp_calloc(k ? k : 1, sizeof *w);
	v = cp_calloc(k ? k * k : 1, sizeof *v);
	if (!cr->idx || !cr->c || !w || !v) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (j = 0; j < k; j++)
		if (column_varies(x, n, k, j))
			cr->idx[m++] = j;
	cr->m = m;
	for (i = 0; i < m; i++) {
		cr->c[i * m + i] = 1;
		for (j = i + 1; j < m; j++) {
			double r = pair_correlation(x, n, k, cr->idx[i], cr->idx[j]);

			cr->c[i * m + j] = cr->c[j * m + i] = r;
			cr->n_pairs++;
			cr->n_uncompared += isnan(r) ? 1 : 0;
		}
	}
	/* the shares need every pair (pairwise estimates, so the matrix may
	 * be slightly indefinite: negative eigenvalues count as 0) */
	if (m >= 2 && !cr->n_uncompared) {
		if ((rc = stats_symmetric_eigen(cr->c, m, w, v, err)))
			goto out;
		for (i = 0; i < m; i++)
			total += w[i] > 0 ? w[i] : 0;
		for (i = 0; i < m && i < 3 && total > 0; i++) {
			acc += w[m - 1 - i] > 0 ? w[m - 1 - i] : 0;
			cr->share[cr->n_share++] = 100 * acc / total;
		}
	}
out:
	cp_free(w);
	cp_free(v);
	return rc;
}

