/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/region.c: confidence regions for an observation's mean rate vector:
 * mean, covariance with missing samples, the degenerate-case floor, the
 * eigen-decomposition (LAPACKE dsyevd) and the quantiles (GSL) that size
 * the ellipsoid, the PCA box and the independent box.  docs/method/statistics.md
 * derives every formula used here. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <lapacke.h>

#include "stats/region.h"
#include "stats/stats_int.h"

/* ==== eigen-decomposition ==== */

/* dsyevd called as LAPACKE_dsyevd calls it for a row-major 'U' matrix (the
 * same column-major upper triangle, its workspace query, its NaN check
 * with its info -5), so the results are the same to the bit; without
 * LAPACKE's two transposes and three allocations per call (a region of 26
 * counters spends most of its time here).  v must not alias a: it
 * receives the column-major copy that dsyevd overwrites with the
 * eigenvectors, which are then already the rows of v. */
int stats_symmetric_eigen(const double *a, size_t k, double *w, double *v,
			  struct cp_error *err)
{
	double *work, wq = 0;
	lapack_int n, lwork = -1, liwork = -1, iq = 0, info = 0, *iwork;
	size_t i, j;

	if (k == 0)
		return CP_OK;
	if (k > 46340)   /* k*k must fit lapack_int */
		return cp_error_set(err, CP_ELIMIT, "matrix too large (%zu)", k);
	for (i = 0; i < k; i++)
		for (j = i; j < k; j++)
			if (isnan(a[i * k + j]))
				return cp_error_set(err, CP_ENUMERIC, "eigen-decomposition "
						    "failed (dsyevd info -5)");
	n = (lapack_int)k;
	cp_lapack_serial();
	LAPACK_dsyevd("V", "U", &n, v, &n, w, &wq, &lwork, &iq, &liwork, &info);
	if (info != 0)
		return cp_error_set(err, CP_ENUMERIC, "eigen-decomposition failed "
				    "(dsyevd info %d)", (int)info);
	lwork = (lapack_int)wq;
	liwork = iq;
	work = cp_malloc((size_t)lwork * sizeof *work + (size_t)liwork * sizeof *iwork);
	if (!work)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	iwork = (lapack_int *)(void *)(work + lwork);
	/* column-major element (i, j) = row-major a[i][j] */
	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			v[j * k + i] = a[i * k + j];
	/* eigenvalues ascending in w, eigenvectors in the columns */
	LAPACK_dsyevd("V", "U", &n, v, &n, w, work, &lwork, iwork, &liwork, &info);
	cp_free(work);
	if (info != 0)
		return cp_error_set(err, CP_ENUMERIC,
				    "eigen-decomposition failed (dsyevd info %d)",
				    (int)info);
	return CP_OK;
}

/* ==== regions ==== */

void region_trim(struct region *r)
{
	if (!r)
		return;
	cp_free(r->mu);
	cp_free(r->cov);
	cp_free(r->axes);
	cp_free(r->box_axes);
	cp_free(r->lambda);
	cp_free(r->half_pca);
	cp_free(r->half_ind);
	cp_free(r->sigma);
	cp_free(r->n_counted);
	r->mu = r->cov = r->axes = r->box_axes = r->lambda = NULL;
	r->half_pca = r->half_ind = r->sigma = NULL;
	r->n_counted = NULL;
}

void region_free(struct region *r)
{
	if (!r)
		return;
	region_trim(r);
	cp_free(r);
}

static struct region *region_alloc(size_t k)
{
	struct region *r = cp_calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->k = k;
	/* region_build writes every entry of these before it reads one
	 * (axes under the diagonal rule are cleared there), so they need no
	 * zeroing: a 26-counter region is 22 KB a time */
	r->mu = cp_malloc(k * sizeof *r->mu);
	r->cov = cp_malloc(k * k * sizeof *r->cov);
	r->axes = cp_malloc(k * k * sizeof *r->axes);
	r->box_axes = cp_malloc(k * k * sizeof *r->box_axes);
	r->lambda = cp_malloc(k * sizeof *r->lambda);
	r->half_pca = cp_malloc(k * sizeof *r->half_pca);
	r->half_ind = cp_malloc(k * sizeof *r->half_ind);
	r->sigma = cp_malloc(k * k * sizeof *r->sigma);
	r->n_counted = cp_calloc(k, sizeof *r->n_counted);
	if (!r->mu || !r->cov || !r->axes || !r->box_axes || !r->lambda || !r->half_pca ||
	    !r->half_ind || !r->sigma || !r->n_counted) {
		region_free(r);
		return NULL;
	}
	return r;
}

/* Batch means: batch t holds intervals [t*n/b, (t+1)*n/b); its mean over
 * the counted ones, NAN if the counter was counted in none of them. */
static double *batch_means(const double *x, size_t n, size_t k, size_t b)
{
	double *y = cp_malloc(b * k * sizeof *y);
	size_t t, i, j;

	if (!y)
		return NULL;
	for (t = 0; t < b; t++) {
		size_t lo = t * n / b, hi = (t + 1) * n / b;

		for (j = 0; j < k; j++) {
			double s = 0;
			size_t c = 0;

			for (i = lo; i < hi; i++)
				if (!isnan(x[i * k + j])) {
					s += x[i * k + j];
					c++;
				}
			y[t * k + j] = c ? s / (double)c : (double)NAN;
		}
	}
	return y;
}

/* A counter's name for messages: opt->names[j], or "counter j". */
static const char *counter_name(const struct region_options *opt, size_t j,
				char *buf)
{
	if (opt && opt->names && opt->names[j])
		return opt->names[j];
	snprintf(buf, 32, "counter %zu", j);
	return buf;
}

/* The per-counter (independent) box as box_axes/half_pca, in variance
 * order: where the split-half PCA box cannot be built or is not wanted. */
static void independent_as_box(struct region *r)
{
	size_t k = r->k, i, j, l;

	for (i = 0; i < k * k; i++)
		r->box_axes[i] = 0;
	for (j = 0; j < k; j++) {
		size_t rank = 0;

		for (l = 0; l < k; l++)
			if (r->cov[l * k + l] < r->cov[j * k + j] ||
			    (r->cov[l * k + l] == r->cov[j * k + j] && l < j))
				rank++;
		r->box_axes[rank * k + j] = 1;
		r->half_pca[rank] = r->half_ind[j];
	}
	r->pca_on_counters = 1;
}

/* The floor of counter j's variance of the mean from its counting
 * resolution res (one count as a rate) over n samples: rounding to
 * whole counts, res^2 / (12 n), and the zero-count bound, (L res / n)^2
 * / q1 with L = ln(1/(1-gamma)) at the per-counter level gamma (the
 * exact Poisson bound for no event in running time n / res); a
 * per-interval region adds one sample's rounding, res^2 / 12. */
static double resolution_floor(double res, double n, double zero_count,
			       double q1, int per_interval)
{
	double z = zero_count * res / n;

	return res * res / 12.0 / n + z * z / q1 + (per_interval ? res * res / 12.0 : 0);
}

/* Diagonal rule (too few samples for a full covariance, or a summary
 * without them): keep only the variances; the axes are the counters
 * themselves, ordered by ascending variance (w: k scratch values). */
static void diagonal_rule(struct region *r, double *w)
{
	size_t k = r->k, j, l;

	r->rule = REGION_RULE_DIAGONAL;
	memset(r->axes, 0, k * k * sizeof *r->axes);
	for (j = 0; j < k; j++) {
		r->lambda[j] = r->cov[j * k + j];
		memset(r->cov + j * k, 0, k * sizeof *r->cov);
		r->cov[j * k + j] = r->lambda[j];
	}
	for (j = 0; j < k; j++) {
		/* rank of counter j in ascending variance (stable: an equal
		 * one before it counts); two loops without a branch */
		double lj = r->lambda[j];
		size_t rank = 0;

		for (l = 0; l < j; l++)
			rank += r->lambda[l] <= lj;
		for (l = j + 1; l < k; l++)
			rank += r->lambda[l] < lj;
		w[rank] = lj;
		r->axes[rank * k + j] = 1;
	}
	memcpy(r->lambda, w, k * sizeof *w);
}

/* The arrays a lean region (region_options.lean) does without. */
static void make_lean(struct region *r)
{
	cp_free(r->sigma);
	cp_free(r->axes);
	r->sigma = r->axes = NULL;
	/* a PCA box along the counters is checked as the independent box
	 * (feas_query_from_region): its own copy is not read */
	if (!r->pca_box || r->pca_on_counters) {
		cp_free(r->box_axes);
		cp_free(r->half_pca);
		r->box_axes = r->half_pca = NULL;
	}
}

/* One function, in the order docs/method/statistics.md derives the region:
 * validate, prewhiten or batch, means, (long-run) covariance of the mean,
 * the counting-resolution floor, the rule (full covariance or diagonal)
 * and its eigen-decomposition, quantiles, boxes.  It stays whole (about
 * 300 lines) because every step reads the intermediate arrays of the ones
 * before it (counts per counter and pair, floors, prewhitening rho);
 * the pieces that stand alone live in longrun.c and quantile.c.
 * The AR(1) residuals go to SCRATCH (n k doubles: the rates themselves
 * when their owner frees them after, so that one observation of 10^5
 * intervals holds its rates once, not twice), or to memory of their own
 * when SCRATCH is NULL (region_build). */
static int build(const double *rates, double *scratch, size_t n, size_t k,
		 const struct region_options *opt, struct region **out,
		 struct cp_error *err)
{
	struct region *r = NULL;
	const double *x = rates;
	double *xb = NULL, *floor_ = NULL, *w = NULL, *v = NULL, *cfull = NULL;
	size_t *nint = NULL, m = n, i, j, l, nmin = SIZE_MAX;
	double conf = opt && opt->confidence > 0 ? opt->confidence : 0.99;
	size_t batches = opt ? opt->batches : 0;
	int per_interval = opt && opt->per_interval, rc = CP_OK;
	size_t bandwidth = 0, *njl_all = NULL;
	double *rho = NULL, *resid = NULL, *omega = NULL, *nu_j = NULL, *acc = NULL;
	double *lag1 = NULL;
	char cname[32];
	double zero_count, lag1_rates = NAN;

	*out = NULL;
	if (k == 0)
		return cp_error_set(err, CP_EINPUT, "a region needs at least one counter");
	if (!stats_conf_ok(conf))
		return cp_error_set(err, CP_EINPUT,
				    "confidence %g is not in (0, 1)", conf);
	if (k > REGION_MAX_COUNTERS || (n && k > SIZE_MAX / n))
		return cp_error_set(err, CP_ELIMIT, "%zu counters: a region holds at "
				    "most %d (its covariance has k x k entries)", k,
				    REGION_MAX_COUNTERS);
	for (i = 0; i < n * k; i++)
		if (isinf(rates[i]))
			return cp_error_set(err, CP_EINPUT,
					    "rate of '%s' in interval %zu is "
					    "infinite", counter_name(opt, i % k, cname),
					    i / k);
	if (batches > n)
		return cp_error_set(err, CP_EINPUT, "%zu batches need at least "
				    "as many intervals, not %zu", batches, n);
	if (batches == REGION_BATCHES_AUTO) {
		if (!(lag1 = cp_malloc((k + 1) * sizeof *lag1)) ||
		    stats_lag1_all(rates, n, k, lag1))
			goto nomem;
		lag1_rates = stats_lag1_worst(lag1, k);
	}
	if (batches == REGION_BATCHES_AUTO &&
	    stats_lag1_significant(lag1_rates, n) && n >= 8) {
		/* AR(1) prewhitening (Andrews and Monahan): the residuals
		 * e_t = x_t - rho x_{t-1} per counter (made below, once the
		 * rates' own sums are taken), their long-run covariance,
		 * recoloured by 1/((1-rho_j)(1-rho_l)).  rho is the lag-1
		 * autocorrelation with Kendall's bias correction (1 + 3 rho)/n,
		 * kept inside (-0.97, 0.97). */
		if (!(rho = cp_calloc(k, sizeof *rho)))
			goto nomem;
		for (j = 0; j < k; j++) {
			double a = lag1[j];

			a = isnan(a) ? 0 : a + (1 + 3 * a) / (double)n;
			rho[j] = a > 0.97 ? 0.97 : a < -0.97 ? -0.97 : a;
		}
	}
	if (batches >= 2 && batches < n) {
		if (!(xb = batch_means(rates, n, k, batches)))
			goto nomem;
		x = xb;
		m = batches;
	}
	if (!(r = region_alloc(k)))
		goto nomem;
	nint = cp_calloc(k, sizeof *nint);
	njl_all = cp_malloc(k * k * sizeof *njl_all);
	floor_ = cp_malloc(k * sizeof *floor_);
	w = cp_malloc(k * sizeof *w);
	v = cp_malloc(k * k * sizeof *v);
	acc = cp_malloc(k * k * sizeof *acc);
	if (!nint || !njl_all || !floor_ || !w || !v || !acc)
		goto nomem;
	r->confidence = conf;

	/* Mean of each counter over the samples where it was counted. */
	stats_col_sums(x, 0, m, k, acc, r->n_counted);
	if (x == rates)
		memcpy(nint, r->n_counted, k * sizeof *nint);
	else
		stats_col_sums(rates, 0, n, k, v, nint);
	for (j = 0; j < k; j++) {
		double s = acc[j];

		if (r->n_counted[j] < 2) {
			rc = cp_error_set(err, CP_EINPUT,
					  "'%s' was counted in %zu %s%s; a region "
					  "needs at least 2", counter_name(opt, j, cname),
					  r->n_counted[j],
					  xb ? "batch" : "interval",
					  r->n_counted[j] == 1 ? "" : "s");
			goto out;
		}
		r->mu[j] = s / (double)r->n_counted[j];
		if (r->n_counted[j] < nmin)
			nmin = r->n_counted[j];
	}
	/* the cross sums, the last read of the rates when they are
	 * prewhitened: the residuals may then take their place */
	stats_cross_sums(x, 0, m, k, r->mu, acc, njl_all, v);
	if (rho) {
		if (!(resid = scratch) &&
		    !(resid = cp_malloc((n - 1) * k * sizeof *resid)))
			goto nomem;
		for (i = 1; i < n; i++)    /* row i - 1 from rows i - 1 and i */
			for (j = 0; j < k; j++)
				resid[(i - 1) * k + j] = rates[i * k + j] -
					rho[j] * rates[(i - 1) * k + j];
		if (stats_hac_bandwidth(resid, n - 1, k, &bandwidth))
			goto nomem;
	}
	r->batch_size = m ? n / m : 1;
	if (x == rates && batches == REGION_BATCHES_AUTO)
		r->lag1 = lag1_rates;
	else if (stats_max_lag1(x, m, k, &r->lag1))
		goto nomem;
	r->bandwidth = bandwidth;
	r->prewhitened = rho != NULL;
	r->n_samples = nmin;
	/* the quantiles see the long-run variance's equivalent degrees of
	 * freedom as nu + 1 samples (prewhitening spends one on rho) */
	if (rho) {
		double nu_hac = bandwidth ? stats_hac_dof(nmin - 1, bandwidth) :
			(double)nmin - 2, inv = 0, nu;

		/* Each counter's variance is as certain as its own rho allows
		 * (nu_j); the full covariance gets their harmonic mean, so one
		 * slowly drifting counter does not make all of them uncertain
		 * (Welch-Satterthwaite over equal shares). */
		if (!(nu_j = cp_malloc(k * sizeof *nu_j)))
			goto nomem;
		for (j = 0; j < k; j++) {
			nu_j[j] = stats_prewhite_dof(nu_hac, rho[j], nmin);
			if (nu_j[j] < HAC_MIN_DOF)
				nu_j[j] = HAC_MIN_DOF;
			inv += 1 / nu_j[j];
		}
		nu = (double)k / inv;
		/* A short, strongly autocorrelated run carries almost no
		 * information on its long-run variance; below HAC_MIN_DOF the
		 * quantiles are kept at that floor (as batch means kept eight
		 * batches) and the report says the region may be too small. */
		if (nu < HAC_MIN_DOF) {
			nu = HAC_MIN_DOF;
			r->dof_floored = 1;
		}

		nmin = (size_t)floor(nu) + 1;
		if (!(omega = cp_malloc(k * k * sizeof *omega)) ||
		    !(w = cp_realloc(w, (k > 1 ? k : 2) * sizeof *w)))
			goto nomem;
		if (stats_block_cov(resid, 0, n - 1, k, bandwidth, w, omega))
			goto nomem;
		for (j = 0; j < k; j++)
			for (l = 0; l < k; l++)
				omega[j * k + l] /= (1 - rho[j]) * (1 - rho[l]);
	}
	if (nmin < 2)
		nmin = 2;
	r->n = nmin;

	/* Sample covariance, pairwise over the samples where both counters
	 * were counted:  S_jl = sum (x_ij - mu_j)(x_il - mu_l) / (n_jl - 1).
	 * Covariance of the mean vector with n_j samples of counter j:
	 *     C_jl = S_jl * n_jl / (n_j * n_l)      (C_jj = S_jj / n_j);
	 * a per-interval (prediction) region adds the spread of one new
	 * interval:  C + S. */
	for (j = 0; j < k; j++) {
		for (l = j; l < k; l++) {
			double s = acc[j * k + l], c;
			size_t njl = njl_all[j * k + l];

			s = njl >= 2 ? s / (double)(njl - 1) : 0;
			r->sigma[j * k + l] = r->sigma[l * k + j] = s;
			njl_all[l * k + j] = njl;
			/* autocorrelated: the long-run covariance instead */
			if (omega)
				s = omega[j * k + l];
			c = s * (double)njl /
			    ((double)r->n_counted[j] * (double)r->n_counted[l]);
			if (per_interval)
				c += s;
			r->cov[j * k + l] = r->cov[l * k + j] = c;
		}
	}

	/* The floor, from the counting resolution res_j (one count as a
	 * rate).  (a) Rounding to whole counts: per-interval variance
	 * res_j^2/12, for the mean of N_j counted intervals res_j^2/(12 N_j).
	 * (b) Zero counts: a counter that saw nothing in N_j intervals still
	 * has a rate up to L res_j / N_j, L = ln(1/(1-gamma)), at the
	 * per-counter level gamma = c^(1/k) (the exact Poisson bound for no
	 * event in running time N_j/res_j); the variance floor
	 * (L res_j/N_j)^2 / q1 makes every half-width at least that.  (b) is
	 * negligible once the counter's total count exceeds ~L^2 (about 20
	 * at 0.99).  Both are added to the diagonal, so regions only grow. */
	r->q1 = region_quantile1(conf, k, nmin);
	zero_count = -log1p(-pow(conf, 1.0 / (double)k));
	for (j = 0; j < k; j++) {
		double res = opt && opt->resolution ? opt->resolution[j] : 1.0;

		if (!(res > 0) || !isfinite(res)) {
			rc = cp_error_set(err, CP_EINPUT,
					  "resolution of '%s' is %g, not a "
					  "positive number", counter_name(opt, j, cname),
					  res);
			goto out;
		}
		floor_[j] = resolution_floor(res, (double)nint[j], zero_count, r->q1,
					     per_interval);
		r->cov[j * k + j] += floor_[j];
	}
	/* the whole sample's covariance of the mean, before a rule keeps
	 * only its diagonal: the floor of the split box's widths */
	if (k > 1 && !(opt && opt->no_pca_box)) {
		if (!(cfull = cp_malloc(k * k * sizeof *cfull)))
			goto nomem;
		memcpy(cfull, r->cov, k * k * sizeof *cfull);
	}

	if (region_rule_for(k, nmin) == REGION_RULE_HOTELLING) {
		/* Hotelling rule: full covariance.  Pairwise deletion can
		 * leave C indefinite, so eigenvalues below the smallest floor
		 * are raised to it and C rebuilt as V diag(lambda) V^T. */
		double lo = floor_[0];
		int clipped = 0;

		r->rule = REGION_RULE_HOTELLING;
		for (j = 1; j < k; j++)
			if (floor_[j] < lo)
				lo = floor_[j];
		if ((rc = stats_symmetric_eigen(r->cov, k, w, v, err)))
			goto out;
		for (i = 0; i < k; i++)
			if (!(w[i] >= lo)) {
				w[i] = lo;
				clipped = 1;
			}
		if (clipped)
			for (j = 0; j < k; j++)
				for (l = 0; l < k; l++) {
					double s = 0;

					for (i = 0; i < k; i++)
						s += v[i * k + j] * w[i] * v[i * k + l];
					r->cov[j * k + l] = s;
				}
		memcpy(r->lambda, w, k * sizeof *w);
		memcpy(r->axes, v, k * k * sizeof *v);
		/* max(w_i, lo) keeps dsyevd's ascending order */
	} else {
		diagonal_rule(r, w);
	}
	r->q = stats_quantile_for(conf, k, nmin, r->rule, r->q1);
	if (!isfinite(r->q) || !isfinite(r->q1)) {
		rc = cp_error_set(err, CP_ENUMERIC, "quantile failed for "
				  "confidence %g, k = %zu, n = %zu", conf, k, nmin);
		goto out;
	}
	/* The PCA box is a box in the principal frame: the mean's
	 * projections on the covariance's eigenvectors are uncorrelated
	 * (independent under normality), so each axis needs only the
	 * Sidak-corrected t quantile q1 for k axes, as each counter does in
	 * the independent box: half_i = sqrt(q1 lambda_i).  (The ellipsoid's
	 * bounding box, sqrt(q lambda_i), is the Scheffe box of every
	 * direction at once, far wider at large k.)  Under the diagonal rule
	 * the axes are the counters and the box is the independent one. */
	for (i = 0; i < k; i++) {
		/* prewhitened: each counter's interval with its own degrees
		 * of freedom */
		double q1i = nu_j ? region_quantile1(conf, k, (size_t)floor(nu_j[i]) + 1)
				  : r->q1;

		r->half_ind[i] = sqrt((isfinite(q1i) ? q1i : r->q1) * r->cov[i * k + i]);
		r->half_pca[i] = sqrt(r->q1 * r->lambda[i]);
	}
	memcpy(r->box_axes, r->axes, k * k * sizeof *r->axes);
	r->pca_box = 1;
	if (opt && opt->no_pca_box) {
		r->pca_box = 0;
		if (!opt->lean)   /* lean frees the box fields below */
			independent_as_box(r);
	}
	/* The split-half PCA box needs no full-covariance quantile: each axis
	 * is a t interval of its own, so it stands under the diagonal rule
	 * too (with n_B - 1 < k the second half is singular, but the axes,
	 * from the first half, fall in its null space with probability 0). */
	if (k > 1 && r->pca_box) {
		rc = rho ? stats_split_pca_box(r, resid, n - 1, k, bandwidth, rho, njl_all,
					 floor_, cfull, per_interval, conf, err)
			 : stats_split_pca_box(r, x, m, k, 0, NULL, njl_all, floor_,
					 cfull, per_interval, conf, err);
		if (rc > 0)
			goto out;
		if (rc == -2 && r->rule == REGION_RULE_DIAGONAL) {
			/* samples missing, few samples: the independent box
			 * already holds (axes = counters) */
		} else if (rc == -2) {
			for (i = 0; i < k; i++)
				r->half_pca[i] = sqrt(r->q * r->lambda[i]);
		} else if (rc < 0) {
			/* halves too short for the split: the per-counter
			 * (independent) box, in variance order */
			independent_as_box(r);
		}
		rc = CP_OK;
	}
	if (opt && opt->lean)
		make_lean(r);
	*out = r;
	r = NULL;
	goto out;
nomem:
	rc = cp_error_set(err, CP_ENOMEM, "out of memory");
out:
	region_free(r);
	cp_free(xb);
	cp_free(rho);
	cp_free(nu_j);
	if (resid != scratch)
		cp_free(resid);
	cp_free(omega);
	cp_free(njl_all);
	cp_free(nint);
	cp_free(floor_);
	cp_free(cfull);
	cp_free(w);
	cp_free(v);
	cp_free(acc);
	cp_free(lag1);
	return rc;
}

int region_build(const double *rates, size_t n, size_t k,
		 const struct region_options *opt, struct region **out,
		 struct cp_error *err)
{
	return build(rates, NULL, n, k, opt, out, err);
}

/* A perf stat -r summary: N runs, per counter the mean mu_j and the
 * standard error of the mean se_j (perf's stddev_stats() divides the
 * runs' variance by N; its "+- x%" is 100 se_j / mu_j).  The covariance
 * of the mean is diagonal, its off-diagonal terms unknown:
 *     C_jj = se_j^2 + floor_j,
 * floor_j the counting-resolution floor of N samples (section 5.2),
 * and each counter's half-width sqrt(q1 C_jj) with q1 the squared
 * Student t quantile with N - 1 degrees of freedom at the Sidak level
 * c^(1/k): the independent box, which holds the k means together with
 * probability >= c whatever their correlations (Sidak's inequality).
 * A per-interval region is for one new run: C_jj = se_j^2 (N + 1) plus
 * the floor of one run.  The PCA box is the independent box and the
 * ellipsoid the one through its corners (the diagonal rule's). */
int region_build_summary(const double *mu, const double *se, size_t runs,
			 size_t k, const struct region_options *opt,
			 struct region **out, struct cp_error *err)
{
	struct region *r = NULL;
	double conf = opt && opt->confidence > 0 ? opt->confidence : 0.99;
	double zero_count, *w = NULL, n = (double)runs;
	char cname[32];
	size_t j;
	int rc = CP_OK;

	*out = NULL;
	if (k == 0)
		return cp_error_set(err, CP_EINPUT, "a region needs at least one counter");
	if (!stats_conf_ok(conf))
		return cp_error_set(err, CP_EINPUT,
				    "confidence %g is not in (0, 1)", conf);
	if (runs < 2)
		return cp_error_set(err, CP_EINPUT, "a summary of %zu run%s has no "
				    "spread; a region needs at least 2", runs,
				    runs == 1 ? "" : "s");
	if (k > 46340)
		return cp_error_set(err, CP_ELIMIT, "too many counters (%zu)", k);
	for (j = 0; j < k; j++)
		if (!isfinite(mu[j]) || !(se[j] >= 0) || !isfinite(se[j]))
			return cp_error_set(err, CP_EINPUT, "mean or standard error of "
					    "'%s' is not a finite number",
					    counter_name(opt, j, cname));
	if (!(r = region_alloc(k)) || !(w = cp_malloc(k * sizeof *w))) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	r->confidence = conf;
	r->n = r->n_samples = runs;
	r->batch_size = 1;
	r->lag1 = NAN;
	r->runs = runs;
	r->q1 = region_quantile1(conf, k, runs);
	zero_count = -log1p(-pow(conf, 1.0 / (double)k));
	memset(r->cov, 0, k * k * sizeof *r->cov);
	memset(r->sigma, 0, k * k * sizeof *r->sigma);
	for (j = 0; j < k; j++) {
		double res = opt && opt->resolution ? opt->resolution[j] : 1.0;

		if (!(res > 0) || !isfinite(res)) {
			rc = cp_error_set(err, CP_EINPUT, "resolution of '%s' is %g, not "
					  "a positive number", counter_name(opt, j, cname),
					  res);
			goto out;
		}
		r->mu[j] = mu[j];
		r->n_counted[j] = runs;
		r->sigma[j * k + j] = se[j] * se[j] * n;   /* one run's variance */
		r->cov[j * k + j] = se[j] * se[j] + resolution_floor(res, n, zero_count,
			r->q1, opt && opt->per_interval);
		if (opt && opt->per_interval)
			r->cov[j * k + j] += se[j] * se[j] * n;
	}
	diagonal_rule(r, w);
	r->q = stats_quantile_for(conf, k, runs, r->rule, r->q1);
	if (!isfinite(r->q) || !isfinite(r->q1)) {
		rc = cp_error_set(err, CP_ENUMERIC, "quantile failed for confidence "
				  "%g, k = %zu, n = %zu", conf, k, runs);
		goto out;
	}
	for (j = 0; j < k; j++)
		r->half_ind[j] = sqrt(r->q1 * r->cov[j * k + j]);
	memcpy(r->box_axes, r->axes, k * k * sizeof *r->axes);
	for (j = 0; j < k; j++)
		r->half_pca[j] = sqrt(r->q1 * r->lambda[j]);
	r->pca_box = !(opt && opt->no_pca_box);
	r->pca_on_counters = 1;
	if (opt && opt->lean)
		make_lean(r);
	*out = r;
	r = NULL;
out:
	region_free(r);
	cp_free(w);
	return rc;
}

/* (x-mu)^T cov^-1 (x-mu) = sum_i (v_i.(x-mu))^2 / lambda_i. */
double region_mahalanobis2(const struct region *r, const double *x)
{
	size_t i, j, k = r->k;
	double d2 = 0;

	for (i = 0; i < k; i++) {
		double p = 0;

		for (j = 0; j < k; j++)
			p += r->axes[i * k + j] * (x[j] - r->mu[j]);
		d2 += p * p / r->lambda[i];
	}
	return d2;
}

int region_contains(const struct region *r, enum region_kind kind,
		    const double *x)
{
	size_t i, j, k = r->k;

	switch (kind) {
	case REGION_ELLIPSOID:
		if (!r->axes)
			return -1;   /* a lean region (region_options.lean) */
		return region_mahalanobis2(r, x) <= r->q;
	case REGION_PCA:
		if (!r->box_axes)
			return -1;
		for (i = 0; i < k; i++) {
			double p = 0;

			for (j = 0; j < k; j++)
				p += r->box_axes[i * k + j] * (x[j] - r->mu[j]);
			if (fabs(p) > r->half_pca[i])
				return 0;
		}
		return 1;
	case REGION_INDEPENDENT:
		for (j = 0; j < k; j++)
			if (fabs(x[j] - r->mu[j]) > r->half_ind[j])
				return 0;
		return 1;
	}
	return 0;
}

int stats_observation_region(const struct stats_dataset *d, size_t obs,
			     const char *const *events, size_t k,
			     const struct region_options *opt,
			     struct region **out, struct cp_error *err)
{
	struct region_options o;
	double *rates = NULL, *res = NULL;
	size_t n;
	int rc, built = 0;

	*out = NULL;
	memset(&o, 0, sizeof o);
	if (opt)
		o = *opt;
	if (k > REGION_MAX_COUNTERS)     /* before the rates are read */
		return stats_observation_error(d, obs, CP_ELIMIT, err, "%zu counters: "
					       "a region holds at most %d (its "
					       "covariance has k x k entries)", k,
					       REGION_MAX_COUNTERS);
	if (!o.resolution && !(res = cp_calloc(k ? k : 1, sizeof *res)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (!o.names)
		o.names = events;
	if (stats_dataset_runs(d, obs)) {
		/* a perf stat -r summary: means and standard errors */
		double *mu = cp_calloc(k ? 3 * k : 3, sizeof *mu);

		if (!mu) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto out;
		}
		if (!(rc = stats_observation_summary(d, obs, events, k, mu, mu + k,
						     mu + 2 * k, err)) &&
		    (!o.correlations ||
		     !(rc = stats_correlations(o.correlations, d, obs, events, k, err)))) {
			if (!o.resolution)
				o.resolution = mu + 2 * k;
			rc = built = region_build_summary(mu, mu + k,
							  stats_dataset_runs(d, obs),
							  k, &o, out, err);
		}
		cp_free(mu);
	} else if (!(rc = stats_observation_read(d, obs, events, k, &rates, &n, res,
						 err)) &&
		   (!o.correlations ||     /* before build makes them its scratch */
		    !(rc = stats_correlations_rates(o.correlations, rates, n, k, err)))) {
		if (res)
			o.resolution = res;
		rc = built = build(rates, rates, n, k, &o, out, err);
	}
	if (built && err && err->code == CP_EINPUT) {
		char msg[CP_ERROR_MAX];

		snprintf(msg, sizeof msg, "%s", err->msg);
		stats_observation_error(d, obs, rc, err, "%s", msg);
	}
out:
	cp_free(rates);
	cp_free(res);
	return rc;
}

/* r1 = sum_t (x_t - m)(x_{t+1} - m) / sum_t (x_t - m)^2 over the counted
 * values (the usual sample autocorrelation; pairs with a gap skipped). */
