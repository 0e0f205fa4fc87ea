/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/longrun.c: autocorrelated intervals and the PCA box's halves:
 * lag-1 autocorrelation and its significance, Andrews' bandwidth, the
 * Newey-West (Bartlett) long-run covariance, prewhitening's degrees of
 * freedom, and the PCA box built from independent halves of the samples.
 * docs/method/statistics.md derives them. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <lapacke.h>

#include "stats/region.h"
#include "stats/stats_int.h"

double stats_lag1_worst(const double *lag1, size_t k)
{
	double worst = NAN;
	size_t j;

	for (j = 0; j < k; j++) {
		double a = fabs(lag1[j]);

		if (!isnan(a) && !(a <= worst))
			worst = a;
	}
	return worst;
}

int stats_max_lag1(const double *x, size_t n, size_t k, double *worst)
{
	double *lag1 = cp_malloc((k + 1) * sizeof *lag1);

	if (!lag1 || stats_lag1_all(x, n, k, lag1)) {
		cp_free(lag1);
		return CP_ENOMEM;
	}
	*worst = stats_lag1_worst(lag1, k);
	cp_free(lag1);
	return CP_OK;
}

/* The automatic treatment of autocorrelated intervals: a long-run
 * (heteroscedasticity and autocorrelation consistent) covariance over all
 * intervals, Newey-West with the Bartlett kernel, its bandwidth by
 * Andrews' (1991) AR(1) plug-in rule:
 *     alpha = sum_j 4 rho_j^2 / ((1 - rho_j)^6 (1 + rho_j)^2) s_j
 *           / sum_j s_j / (1 - rho_j)^4,   s_j = (1 - rho_j^2)^2,
 *     L = 1.1447 (alpha n)^(1/3),
 * rho_j the lag-1 autocorrelation of counter j (standardised series, so
 * the innovation variances are 1 - rho_j^2).  No significant lag-1
 * autocorrelation (stats_lag1_significant) gives L = 0: the plain sample
 * covariance, with its exact quantiles.  Unlike batch means this keeps n
 * samples and the full covariance.  *out = L (0 .. n/2); returns a
 * status. */
int stats_hac_bandwidth(const double *rates, size_t n, size_t k, size_t *out)
{
	double num = 0, den = 0, worst, alpha, L, *lag1 = cp_malloc((k + 1) * sizeof *lag1);
	size_t j;

	*out = 0;
	if (!lag1 || stats_lag1_all(rates, n, k, lag1)) {
		cp_free(lag1);
		return CP_ENOMEM;
	}
	worst = stats_lag1_worst(lag1, k);
	for (j = 0; j < k; j++) {
		double r = lag1[j], s;

		if (isnan(r))
			continue;
		if (r > 0.97)
			r = 0.97;   /* a unit root has no finite long-run variance */
		if (r < -0.97)
			r = -0.97;
		s = (1 - r * r) * (1 - r * r);
		num += 4 * r * r * s / (pow(1 - r, 6) * (1 + r) * (1 + r));
		den += s / pow(1 - r, 4);
	}
	cp_free(lag1);
	if (!stats_lag1_significant(worst, n) || !(den > 0))
		return CP_OK;
	alpha = num / den;
	L = 1.1447 * cbrt(alpha * (double)n);
	if (!(L >= 1))
		L = 1;
	if (L > (double)n / 2)
		L = (double)n / 2;
	*out = (size_t)L;
	return CP_OK;
}

/* The equivalent degrees of freedom of a Bartlett long-run variance with
 * bandwidth L over n samples: n / (L * integral of k^2) = 1.5 n / L
 * (Priestley's equivalent degrees of freedom at frequency zero), never
 * more than the n - 1 of the plain sample variance. */
double stats_hac_dof(size_t n, size_t L)
{
	double nu = (double)n - 1;

	if (L > 0 && 1.5 * (double)n / (double)L < nu)
		nu = 1.5 * (double)n / (double)L;
	return nu;
}

/* Whether row x (k counters) has a counter that was not counted. */
static int row_has_nan(const double *x, size_t k)
{
	size_t j;

	for (j = 0; j < k; j++)
		if (isnan(x[j]))
			return 1;
	return 0;
}

/* y += a x, element by element (each y_i one multiply and one add, as a
 * scalar loop would do; restrict and
 * the unrolling let the compiler use vector registers). */
static void axpy(size_t k, double a, const double *restrict x, double *restrict y)
{
	size_t i;

	for (i = 0; i + 4 <= k; i += 4) {   /* unrolled: the compiler pairs them */
		y[i] += a * x[i];
		y[i + 1] += a * x[i + 1];
		y[i + 2] += a * x[i + 2];
		y[i + 3] += a * x[i + 3];
	}
	for (; i < k; i++)
		y[i] += a * x[i];
}

/* y += a x, then y += u b, element by element (two products added in
 * turn, as a scalar loop adds them; unrolled as axpy is). */
static void axpy2(size_t k, double a, const double *restrict x,
		  const double *restrict u, double b, double *restrict y)
{
	size_t i;

	for (i = 0; i + 4 <= k; i += 4) {
		y[i] += a * x[i];
		y[i] += u[i] * b;
		y[i + 1] += a * x[i + 1];
		y[i + 1] += u[i + 1] * b;
		y[i + 2] += a * x[i + 2];
		y[i + 2] += u[i + 2] * b;
		y[i + 3] += a * x[i + 3];
		y[i + 3] += u[i + 3] * b;
	}
	for (; i < k; i++) {
		y[i] += a * x[i];
		y[i] += u[i] * b;
	}
}

/* tot[j][l] (j <= l) = sum_{h=1..L} (1 - h/(L+1)) (G_h[j][l] + G_h[l][j]),
 * G_h the lag-h autocovariance over the pairs of intervals where both
 * were counted.  Row by row, every pair at once: rows i and i + h stay in
 * cache (a pair at a time went through the whole block k^2 L / 2 times,
 * most of a long observation's time).  Each pair's sum takes its terms in
 * the order a pair-at-a-time loop takes them, so the sums are the same to
 * the bit.  g, np: k*k scratch; da: 2k scratch. */
static void long_run(const double *x, size_t m, size_t k, const double *mu,
		     size_t L, double *tot, double *g, size_t *np, double *da)
{
	double *db = da + k;
	size_t h, i, j, l;

	memset(tot, 0, k * k * sizeof *tot);
	for (h = 1; h <= L && h < m; h++) {
		double wt = 1 - (double)h / (double)(L + 1);
		size_t full = 0;      /* row pairs with every counter counted */

		memset(g, 0, k * k * sizeof *g);
		memset(np, 0, k * k * sizeof *np);
		for (i = 0; i + h < m; i++) {
			const double *xa = x + i * k, *xb = x + (i + h) * k;

			if (!row_has_nan(xa, k) && !row_has_nan(xb, k)) {
				full++;
				for (j = 0; j < k; j++) {
					da[j] = xa[j] - mu[j];
					db[j] = xb[j] - mu[j];
				}
				for (j = 0; j < k; j++)
					axpy2(k - j, da[j], db + j, da + j, db[j],
					      g + j * k + j);
				continue;
			}
			for (j = 0; j < k; j++)
				for (l = j; l < k; l++) {
					double a = xa[j], b = xb[l];
					double c = xa[l], d = xb[j];

					if (!isnan(a) && !isnan(b)) {
						g[j * k + l] += (a - mu[j]) * (b - mu[l]);
						np[j * k + l]++;
					}
					if (!isnan(c) && !isnan(d)) {
						g[j * k + l] += (c - mu[l]) * (d - mu[j]);
						np[j * k + l]++;
					}
				}
		}
		/* np counts both orders: 2 (m - h) pairs when nothing is
		 * missing; the autocovariance divides by the pairs of one
		 * order */
		for (j = 0; j < k; j++)
			for (l = j; l < k; l++) {
				size_t n2 = np[j * k + l] + 2 * full;

				if (n2 >= 2)
					tot[j * k + l] += wt * g[j * k + l] / ((double)n2 / 2);
			}
	}
}

/* Degrees of freedom of a prewhitened long-run variance: the residuals'
 * (nu_hac), and the estimated rho, whose recolouring factor 1/(1-rho)^2
 * has var(log) ~ (2/(1-rho))^2 (1-rho^2)/n; a chi^2_nu variance has
 * var(log) ~ 2/nu, and the two add.  rho is the counter's largest
 * (the least certain factor). */
double stats_prewhite_dof(double nu_hac, double rho, size_t n)
{
	double extra = rho > 0 ? 2 * (1 + rho) / ((1 - rho) * (double)n) : 0;
	double nu = 1 / (1 / nu_hac + extra);
	/* the delta method overstates the uncertainty of short series: never
	 * below the AR(1) effective sample size n (1 - rho)/(1 + rho), what
	 * batches of one autocorrelation time would give */
	double eff = rho > 0 ? (double)n * (1 - rho) / (1 + rho) : (double)n;

	return nu > eff ? nu : eff < nu_hac ? eff : nu_hac;
}



double stats_max_of(const double *a, size_t k)
{
	double m = 0;
	size_t j;

	for (j = 0; j < k; j++)
		if (a[j] > m)
			m = a[j];
	return m;
}

void stats_col_sums(const double *x, size_t lo, size_t hi, size_t k, double *sum,
		    size_t *cnt)
{
	size_t i, j;

	memset(sum, 0, k * sizeof *sum);
	memset(cnt, 0, k * sizeof *cnt);
	for (i = lo; i < hi; i++) {
		const double *row = x + i * k;

		for (j = 0; j < k; j++)
			if (!isnan(row[j])) {
				sum[j] += row[j];
				cnt[j]++;
			}
	}
}

void stats_cross_sums(const double *x, size_t lo, size_t hi, size_t k,
		      const double *mu, double *acc, size_t *cnt, double *d)
{
	size_t i, j, l, full = 0;

	memset(acc, 0, k * k * sizeof *acc);
	memset(cnt, 0, k * k * sizeof *cnt);
	for (i = lo; i < hi; i++) {
		const double *row = x + i * k;

		if (!row_has_nan(row, k)) {
			full++;
			for (j = 0; j < k; j++)
				d[j] = row[j] - mu[j];
			for (j = 0; j < k; j++)
				axpy(k - j, d[j], d + j, acc + j * k + j);
			continue;
		}
		for (j = 0; j < k; j++) {
			double dj = row[j] - mu[j];

			if (isnan(row[j]))
				continue;
			for (l = j; l < k; l++)
				if (!isnan(row[l])) {
					acc[j * k + l] += dj * (row[l] - mu[l]);
					cnt[j * k + l]++;
				}
		}
	}
	for (j = 0; j < k; j++)
		for (l = j; l < k; l++)
			cnt[j * k + l] += full;
}

/* The (long-run, with bandwidth L) covariance of the samples in rows
 * [lo, hi) of x, centred on that block's own means, pairwise over the
 * rows where both counters were counted: S (k*k), the means mu (k). */
int stats_block_cov(const double *x, size_t lo, size_t hi, size_t k,
		    size_t L, double *mu, double *S)
{
	/* one block: tot, g (k*k), d (2k), then np (k*k) */
	double *tot = cp_malloc((2 * k * k + 2 * k) * sizeof *tot + k * k * sizeof(size_t));
	double *g = tot + k * k, *d = g + k * k;
	size_t *np = (size_t *)(void *)(d + 2 * k), j, l;

	if (!tot)
		return CP_ENOMEM;
	stats_col_sums(x, lo, hi, k, mu, np);
	for (j = 0; j < k; j++)
		mu[j] = np[j] ? mu[j] / (double)np[j] : 0;
	if (L)
		long_run(x + lo * k, hi - lo, k, mu, L, tot, g, np, d);
	/* g, np: the lag-0 sums (tot is long_run's) */
	stats_cross_sums(x, lo, hi, k, mu, g, np, d);
	for (j = 0; j < k; j++)
		for (l = j; l < k; l++) {
			double sum = g[j * k + l];
			size_t c = np[j * k + l];

			sum = c >= 2 ? sum / (double)(c - 1) : 0;
			if (L)
				sum += tot[j * k + l];
			S[j * k + l] = S[l * k + j] = sum;
		}
	cp_free(tot);
	return CP_OK;
}

/* Schafer and Strimmer's (2005) shrinkage intensity towards the diagonal
 * (target "D": correlations shrunk towards 0, variances kept) for samples
 * lo..hi of x (no missing values): lambda = sum Var(r_jl) / sum r_jl^2
 * over the pairs j != l, with Var(r_jl) estimated from the products of
 * the standardized samples; clipped to [0, 1].  0 when nothing correlates
 * or fewer than 3 samples. */
static double shrink_intensity(const double *x, size_t lo, size_t hi, size_t k,
			       double *mean, double *sd)
{
	size_t n = hi - lo, i, j, l;
	double num = 0, den = 0, dn;

	if (n < 3)
		return 0;
	dn = (double)n;
	for (j = 0; j < k; j++) {
		double s = 0, q = 0;

		for (i = lo; i < hi; i++)
			s += x[i * k + j];
		mean[j] = s / dn;
		for (i = lo; i < hi; i++)
			q += (x[i * k + j] - mean[j]) * (x[i * k + j] - mean[j]);
		sd[j] = sqrt(q / (dn - 1));
	}
	for (j = 0; j < k; j++) {
		if (!(sd[j] > 0))
			continue;
		for (l = j + 1; l < k; l++) {
			double wbar = 0, v = 0, r;

			if (!(sd[l] > 0))
				continue;
			for (i = lo; i < hi; i++)
				wbar += (x[i * k + j] - mean[j]) / sd[j] *
					((x[i * k + l] - mean[l]) / sd[l]);
			wbar /= dn;
			for (i = lo; i < hi; i++) {
				double wk = (x[i * k + j] - mean[j]) / sd[j] *
					((x[i * k + l] - mean[l]) / sd[l]) - wbar;

				v += wk * wk;
			}
			r = dn / (dn - 1) * wbar;
			num += dn / ((dn - 1) * (dn - 1) * (dn - 1)) * v;
			den += r * r;
		}
	}
	if (!(den > 0))
		return 0;
	return num >= den ? 1 : num / den;
}

/* The axes by blocks: counters whose correlations in S (the first half's
 * covariance) reach corr, directly or through others, form a
 * block, and S's covariances between blocks are set to 0, so that each
 * block gets principal axes of its own.  Rates span orders of magnitude
 * (STLB hits at 10^8/s beside walk starts at 10^6/s), and an axis of a
 * large counter that leans on a small one it barely correlates with by a
 * few per cent of its length adds more to the small counter's width than
 * the small counter's own spread; within a block the correlations are
 * strong enough to pay for it.  A function of the first half only, so
 * the widths' law is unchanged.  root: k scratch. */
static void split_blocks(double *S, size_t k, size_t *root, double corr)
{
	size_t j, l, a, b;

	for (j = 0; j < k; j++)
		root[j] = j;
	for (j = 0; j < k; j++)
		for (l = j + 1; l < k; l++) {
			double d = S[j * k + j] * S[l * k + l], c = S[j * k + l];

			/* most pairs are far below corr: those are passed over
			 * before the square root (a margin of 2 in the square
			 * that no rounding crosses) */
			if (!(d > 0) || 2 * c * c < corr * corr * d ||
			    !(fabs(c) >= corr * sqrt(d)))
				continue;
			for (a = j; root[a] != a; a = root[a])
				;
			for (b = l; root[b] != b; b = root[b])
				;
			if (a != b)
				root[a > b ? a : b] = a < b ? a : b;
		}
	for (j = 0; j < k; j++) {
		for (a = j; root[a] != a; a = root[a])
			;
		root[j] = a;   /* roots are found before their members */
	}
	for (j = 0; j < k; j++)
		for (l = 0; l < k; l++)
			if (root[j] != root[l])
				S[j * k + l] = 0;
}

/* The kinds of axis of a short run's frame (block_axes). */
enum { AXIS_THIN = 0, AXIS_COUNTER = 1, AXIS_WIDE = 2 };

/* A short run's frame: S (the first half's covariance, its covariances
 * between blocks already 0, root[] each counter's block: split_blocks
 * at SHORT_BLOCK_CORR) gives each
 * block of two or more counters its own principal axes, the widest
 * AXIS_WIDE and the others AXIS_THIN, and each counter alone its own
 * axis (AXIS_COUNTER).  Rows of V, kinds in kind. */
static int block_axes(const double *S, size_t k, const size_t *root, double *w,
		      double *V, unsigned char *kind, struct cp_error *err)
{
	size_t *mem = cp_malloc((k + 1) * sizeof *mem), b, i, j, n, row = 0;
	double *sub = cp_malloc((k * k + 1) * sizeof *sub);
	double *vec = cp_malloc((k * k + 1) * sizeof *vec);
	int rc = CP_OK;

	if (!mem || !sub || !vec) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	memset(V, 0, k * k * sizeof *V);
	for (b = 0; b < k && !rc; b++) {
		if (root[b] != b)
			continue;
		for (j = b, n = 0; j < k; j++)
			if (root[j] == b)
				mem[n++] = j;
		if (n == 1) {
			V[row * k + b] = 1;
			kind[row++] = AXIS_COUNTER;
			continue;
		}
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				sub[i * n + j] = S[mem[i] * k + mem[j]];
		if ((rc = stats_symmetric_eigen(sub, n, w, vec, err)))
			break;
		for (i = 0; i < n; i++, row++) {   /* ascending: the last is widest */
			for (j = 0; j < n; j++)
				V[row * k + mem[j]] = vec[i * n + j];
			kind[row] = i + 1 == n ? AXIS_WIDE : AXIS_THIN;
		}
	}
out:
	cp_free(mem);
	cp_free(sub);
	cp_free(vec);
	return rc;
}

/* The PCA box, in the principal frame with its axes and widths from
 * independent halves.  The smallest eigenvalues of a sample covariance
 * underestimate the variance along their own eigenvectors (at k = 20,
 * n = 60 a box sized by them held the mean in 88% of trials, not 99%),
 * so the axes V come from the first half of the samples and the variance
 * along each axis from the second: given V, (n_B - 1) v'S_B v / v'Sigma v
 * is chi^2 with n_B - 1 degrees of freedom, and the mean of all n samples
 * is independent of both halves' covariances (Gaussian samples), so each
 * axis gets an exact t interval, Sidak-corrected for k axes.  Axes are
 * stored by ascending half-width.  When a half has no more samples than
 * counters, the first half's correlations are shrunk towards 0
 * (Schafer-Strimmer) before its eigenvectors are taken, and the axes are
 * taken block by block (split_blocks): better axes, and no change to
 * the widths' law.  With independent samples (no long-run
 * covariance) the second half's covariance also takes the contrast of
 * the halves' means, sqrt(n_A n_B / n) (mean_A - mean_B): it is N(0,
 * Sigma) and independent of the full mean and of both halves' spreads,
 * so the widths get n_B degrees of freedom, not n_B - 1 (Helmert's
 * decomposition of the n - 1 residual degrees of freedom).  When the
 * halves are so short that the per-axis quantile exceeds
 * SPLIT_MAX_PENALTY^2 times the full sample's, the box would be wider
 * than the independent box along every counter by more than the
 * correlations typically win back; and when the first half has no more
 * than k/2 samples, its axes (a covariance of rank below k/2, the rest
 * made by shrinkage) lean on counters they barely correlate with, and
 * the box reaches past the independent box along single counters and
 * their differences, the directions counter models constrain.  Either
 * way the frame is the short run's: the counters with the independent
 * box's intervals, save blocks of near-identities (block_axes; a rule on
 * k and the degrees of freedom, the frame a function of the first half,
 * never of the widths' data).  A counter whose spread in the two halves differs beyond
 * what stationary samples allow (stats_halves_differ: a phase in one
 * half) voids the premise that the second half speaks for the run:
 * then the axes it weighs on keep at least the whole sample's width
 * along them, sqrt(q1 v'C v) with C the full covariance of the mean
 * (cfull).  Returns 0; -1 when a half is too short, -2 when samples are
 * missing (the caller chooses another box). */
int stats_split_pca_box(struct region *r, const double *x, size_t m, size_t k,
			 size_t L, const double *rho, const size_t *njl,
			 const double *floor_, const double *cfull,
			 int per_interval, double conf, struct cp_error *err)
{
	size_t na = m / 2, nb = m - na, i, j, l, t, *ord, *nzi, *nzn, *act, n_act = 0;
	double *mem, *mu, *mb, *SA, *SB, *w, *V, *h, *VT, *uw, *us, *uc, *sv, *fv, *pv,
	       *cv, *nuj;
	double nu, q1b;
	int rc = -1, any_unsteady = 0, short_run;
	unsigned char *unsteady, *kind, *used;

	if (na < 2 || nb < 3)
		return -1;
	/* With samples missing, pairwise covariances of a half understate
	 * the variance along thin directions (measured: 975 of 1000 at 15%
	 * missing): the caller takes the ellipsoid's bounding box, which
	 * holds whatever the direction. */
	for (i = 0; i < m * k; i++)
		if (isnan(x[i]))
			return -2;
	/* the widths' degrees of freedom, and the rule on them, before any
	 * work: n_B (n_B - 1 for time series, whose halves' means are not
	 * independent) or the long-run estimate's */
	nu = L ? stats_hac_dof(nb, L) : rho ? (double)nb - 1 : (double)nb;
	q1b = region_quantile1(conf, k, (size_t)floor(nu) + 1);
	if (!isfinite(q1b))
		return -1;
	/* the rule is judged at the reference level 0.99, so that the choice
	 * of box depends on k and the degrees of freedom alone */
	short_run = region_quantile1(0.99, k, (size_t)floor(nu) + 1) >
		    SPLIT_MAX_PENALTY * SPLIT_MAX_PENALTY * region_quantile1(0.99, k, r->n) ||
		    2 * na <= k;
	/* one block: the doubles (mu, mb, w, h: k; SA, SB, V: k*k; VT and
	 * its sums: k*k + 8k), the indices (ord, nzn, act: k; nzi: k*k),
	 * the flags (unsteady, kind, used: k) */
	if (!(mem = cp_malloc((4 * k * k + 12 * k) * sizeof *mem +
			      (k * k + 3 * k) * sizeof *ord + 3 * k)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	mu = mem;
	mb = mu + k;
	w = mb + k;
	h = w + k;
	SA = h + k;
	SB = SA + k * k;
	V = SB + k * k;
	VT = V + k * k;
	ord = (size_t *)(void *)(VT + k * k + 8 * k);
	nzn = ord + k;
	act = nzn + k;
	nzi = act + k;
	unsteady = (unsigned char *)(nzi + k * k);
	kind = unsteady + k;
	used = kind + k;
	memset(kind, 0, k);
	memset(used, 0, k);
	if (stats_block_cov(x, 0, na, k, L, mu, SA) ||
	    stats_block_cov(x, na, m, k, L, mb, SB)) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	/* A counter whose spread differs between the halves (a phase in
	 * one of them) breaks the split's premise that the second half
	 * speaks for the whole run: the widths of the axes it weighs on may
	 * not fall below the whole sample's (below). */
	{
		double nua = L ? stats_hac_dof(na, L) : (double)na - 1;
		double nub = L ? stats_hac_dof(nb, L) : (double)nb - 1;

		for (j = 0; j < k; j++) {
			unsteady[j] = (unsigned char)stats_halves_differ(SA[j * k + j],
						SB[j * k + j], nua, nub, k);
			any_unsteady |= unsteady[j];
		}
	}
	if (rho)   /* prewhitened residuals: back to the rates' scale */
		for (j = 0; j < k; j++)
			for (l = 0; l < k; l++)
				SA[j * k + l] /= (1 - rho[j]) * (1 - rho[l]);
	{
		/* The axes only need to be good, not unbiased: the widths
		 * along them come from the other half whatever they are.
		 * With no more samples in a half than counters its covariance
		 * is singular and its thin directions are noise, so its
		 * correlations are shrunk towards 0 first (the intensity
		 * estimated from the half itself).  Longer halves keep their
		 * correlations: one intensity for every pair would also
		 * loosen pairs that correlate at 0.9998, whose thin
		 * direction is the box's power (measured on a 4-counter
		 * case: box volume 0.0086 -> 0.0115 of the independent). */
		double lambda = na <= k && !short_run ? shrink_intensity(x, 0, na, k, h, w) : 0;

		for (j = 0; j < k && lambda > 0; j++)
			for (l = 0; l < k; l++)
				if (j != l)
					SA[j * k + l] *= 1 - lambda;
	}
	if (short_run) {
		/* only near-identities of the first half rotate the frame:
		 * none from fewer than SHORT_BLOCK_MIN_SAMPLES samples, which
		 * correlate perfectly whatever the counters (five pooled perf
		 * stat runs had rotated into a box of 2.48 times the
		 * independent box's volume) */
		split_blocks(SA, k, ord, na >= SHORT_BLOCK_MIN_SAMPLES ? SHORT_BLOCK_CORR :
			     (double)INFINITY);
		if ((rc = block_axes(SA, k, ord, w, V, kind, err)))
			goto out;
	} else {
		split_blocks(SA, k, ord, SPLIT_BLOCK_CORR);
		if ((rc = stats_symmetric_eigen(SA, k, w, V, err)))
			goto out;
	}
	/* The axes whose widths come from the second half (act), and the
	 * counters they weigh on (used): a short run's axes of one counter
	 * keep the independent box's interval, so their quadratic forms,
	 * most of a short run's work, are not formed.  Every sum below runs
	 * over the used counters in ascending order and leaves out only
	 * terms of an axis's zero weights: the numbers are the same. */
	for (i = 0; i < k; i++) {
		if (kind[i] == AXIS_COUNTER)
			continue;
		act[n_act++] = i;
		for (j = 0; j < k; j++)
			if (V[i * k + j] != 0)
				used[j] = 1;
	}
	{
		/* the halves' contrast: one more degree of freedom for B */
		double c = (double)na * (double)nb / (double)m;

		for (j = 0; j < k; j++)
			for (l = 0; l < k; l++) {
				if (!used[j] || !used[l])
					continue;
				if (!L && !rho)
					SB[j * k + l] = ((double)(nb - 1) * SB[j * k + l] +
							 c * (mu[j] - mb[j]) * (mu[l] - mb[l])) /
							(double)nb;
				if (rho)   /* back to the rates' scale */
					SB[j * k + l] /= (1 - rho[j]) * (1 - rho[l]);
			}
	}
	uw = VT + k * k;
	us = uw + k;
	uc = us + k;
	sv = uc + k;
	fv = sv + k;
	pv = fv + k;
	cv = pv + k;
	nuj = cv + k;
	/* the mean's covariance as the full one is made (pairwise counts
	 * n_jl / (n_j n_l)), from the second half's S; formed once, so each
	 * axis costs two quadratic forms (k^2) and no division */
	for (j = 0; j < k; j++)
		for (l = 0; l < k; l++)
			if (used[j] && used[l])
				SA[j * k + l] = SB[j * k + l] * (double)njl[j * k + l] /
						((double)r->n_counted[j] *
						 (double)r->n_counted[l]);
	/* Every axis at once, over the transposed axes VT (VT[l][i] = v_i[l]):
	 * each sum still runs over l (then j) in ascending order, as it would
	 * axis by axis, so the numbers are the same; the k independent sums
	 * of one step are what the processor can overlap. */
	for (l = 0; l < k; l++)
		for (i = 0; used[l] && i < k; i++)   /* the used counters' rows */
			VT[l * k + i] = V[i * k + l];
	/* A short run's axes are mostly single counters and pairs: a row of
	 * VT with few nonzero terms adds only those (the zeros it skips add
	 * exactly nothing to a sum that starts at +0, so the sums are the
	 * same). */
	for (l = 0; l < k; l++) {
		nzn[l] = 0;
		for (i = 0; used[l] && i < k; i++)
			if (VT[l * k + i] != 0)
				nzi[l * k + nzn[l]++] = i;
	}
	for (i = 0; i < k; i++)
		sv[i] = fv[i] = pv[i] = cv[i] = 0;
	for (j = 0; j < k; j++) {
		const double *wj = SA + j * k, *sj = SB + j * k, *vj = VT + j * k;
		const double *cj = cfull + j * k;

		if (!used[j])
			continue;
		for (i = 0; i < k; i++)
			uw[i] = us[i] = uc[i] = 0;
		for (l = 0; l < k; l++) {
			const double *vl = VT + l * k;

			if (!used[l])
				continue;
			if (2 * nzn[l] >= k) {
				axpy(k, wj[l], vl, uw);
				axpy(k, cj[l], vl, uc);
				continue;
			}
			for (t = 0; t < nzn[l]; t++) {
				i = nzi[l * k + t];
				uw[i] += wj[l] * vl[i];
				uc[i] += cj[l] * vl[i];
			}
		}
		if (per_interval)
			for (l = 0; l < k; l++)
				if (used[l])
					axpy(k, sj[l], VT + l * k, us);
		for (t = 0; t < n_act; t++) {
			i = act[t];
			sv[i] += vj[i] * uw[i];
			pv[i] += vj[i] * us[i];
			fv[i] += vj[i] * vj[i] * floor_[j];
			cv[i] += vj[i] * uc[i];
		}
	}
	/* each counter's own degrees of freedom (prewhitened), the same for
	 * every axis */
	for (j = 0; rho && j < k; j++) {
		nuj[j] = stats_prewhite_dof(nu, rho[j], nb);
		if (nuj[j] < HAC_MIN_DOF)
			nuj[j] = HAC_MIN_DOF;
	}
	for (i = 0; i < k; i++) {
		const double *v = V + i * k;
		double s = sv[i], f = fv[i], p = pv[i];

		/* a short run's frame: a counter of its own keeps the
		 * independent box's interval (module comment) */
		if (kind[i] == AXIS_COUNTER) {
			for (j = 0; j < k && !(v[j] > 0.5); j++)
				;
			h[i] = r->half_ind[j < k ? j : 0];
			continue;
		}
		if (s < 0)
			s = 0;
		/* a prediction adds one sample's spread */
		s += (per_interval && p > 0 ? p : 0) + f;
		if (rho) {
			/* prewhitened: the axis's degrees of freedom from its
			 * counters' own (Welch-Satterthwaite, weights v_j^2 S_jj) */
			double num = 0, den = 0, q;

			for (j = 0; j < k; j++) {
				double wj = v[j] * v[j] * SB[j * k + j];

				num += wj;
				den += wj * wj / nuj[j];
			}
			q = den > 0 ? region_quantile1(conf, k,
				(size_t)floor(num * num / den) + 1) : q1b;
			h[i] = sqrt((isfinite(q) ? q : q1b) * s);
		} else {
			h[i] = sqrt(q1b * s);
		}
		/* never narrower than the whole sample's interval along the
		 * same axis when counters whose halves differ carry a share
		 * of its variance: one active in the first half only (a
		 * phase) has no spread in the second, whose widths would then
		 * fall to the counting floor */
		if (any_unsteady && cv[i] > 0 && sqrt(r->q1 * cv[i]) > h[i]) {
			double part = 0, all = 0;

			for (j = 0; j < k; j++) {
				double e = v[j] * v[j] * cfull[j * k + j];

				all += e;
				part += unsteady[j] ? e : 0;
			}
			if (part >= SPLIT_UNSTEADY_SHARE * all)
				h[i] = sqrt(r->q1 * cv[i]);
		}
		/* a block's widest axis: the whole sample's */
		if (kind[i] == AXIS_WIDE && cv[i] > 0)
			h[i] = sqrt(r->q1 * cv[i]);
	}
	/* ascending half-width, equal ones in axis order (insertion sort,
	 * the keys moved along: w is free) */
	for (i = 0; i < k; i++) {
		double key = h[i];

		for (j = i; j > 0 && w[j - 1] > key; j--) {
			w[j] = w[j - 1];
			ord[j] = ord[j - 1];
		}
		w[j] = key;
		ord[j] = i;
	}
	for (i = 0; i < k; i++) {
		memcpy(r->box_axes + i * k, V + ord[i] * k, k * sizeof *V);
		r->half_pca[i] = h[ord[i]];
	}
	/* a short run with no block: the independent box itself */
	{
		int alone = short_run;

		for (i = 0; i < k && alone; i++)
			alone = kind[i] == AXIS_COUNTER;
		r->pca_on_counters = alone;
	}
	rc = 0;
out:
	cp_free(mem);
	return rc;
}


int stats_lag1_significant(double lag1, size_t n)
{
	/* three standard errors of a lag-1 autocorrelation of white noise
	 * (1/sqrt(n)): a false alarm about once in 700 counters */
	return n > 0 && lag1 > 3 / sqrt((double)n);
}

/* One counter's lag-1 sums (lag1_range). */
struct lag1_acc {
	double m, num, den;
	size_t c, pairs;
};

/* The lag-1 autocorrelation of counters [j0, j1) of x (n x k) into
 * out[j - j0]: row by row, every counter of the range at once, each
 * counter's sums over the rows in ascending order (the same sums as a
 * counter at a time, which walked the whole matrix once per counter, a
 * row's width apart).  a: j1 - j0 scratch. */
static void lag1_range(const double *x, size_t n, size_t k, size_t j0, size_t j1,
		       struct lag1_acc *a, double *out)
{
	size_t i, j, nj = j1 - j0;

	memset(a, 0, nj * sizeof *a);
	for (i = 0; i < n; i++) {
		const double *row = x + i * k + j0;

		for (j = 0; j < nj; j++)
			if (!isnan(row[j])) {
				a[j].m += row[j];
				a[j].c++;
			}
	}
	for (j = 0; j < nj; j++)
		if (a[j].c >= 3)
			a[j].m /= (double)a[j].c;
	for (i = 0; i < n; i++) {
		const double *row = x + i * k + j0, *next = row + k;

		for (j = 0; j < nj; j++) {
			double v = row[j], m = a[j].m;

			if (isnan(v) || a[j].c < 3)
				continue;
			a[j].den += (v - m) * (v - m);
			if (i + 1 < n && !isnan(next[j])) {
				a[j].num += (v - m) * (next[j] - m);
				a[j].pairs++;
			}
		}
	}
	for (j = 0; j < nj; j++)
		out[j] = a[j].c < 3 || a[j].pairs < 3 || !(a[j].den > 0) ? (double)NAN :
			a[j].num / a[j].den;
}

double stats_lag1_autocorrelation(const double *rates, size_t n, size_t k,
				  size_t j)
{
	struct lag1_acc a;
	double r;

	lag1_range(rates, n, k, j, j + 1, &a, &r);
	return r;
}

int stats_lag1_all(const double *x, size_t n, size_t k, double *out)
{
	struct lag1_acc *a = cp_malloc((k + 1) * sizeof *a);

	if (!a)
		return CP_ENOMEM;
	lag1_range(x, n, k, 0, k, a, out);
	cp_free(a);
	return CP_OK;
}
