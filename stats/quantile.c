/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats/quantile.c: the quantiles that size every region (GSL): the
 * Sidak-corrected per-axis t, Hotelling's T^2, the choice between the
 * full-covariance and diagonal rules, and their inverses for p-values.
 * docs/method/statistics.md derives them. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <lapacke.h>

#include "stats/region.h"
#include "stats/stats_int.h"

/* ==== quantiles ==== */

/* GSL calls abort() on domain errors unless its handler is off; every
 * entry point that calls GSL switches it off first, once per process (so
 * threads building regions do not all write GSL's global). */
static void gsl_quiet_once(void)
{
	gsl_set_error_handler_off();
}

static void gsl_quiet(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, gsl_quiet_once);
}

int stats_conf_ok(double c)
{
	return c > 0 && c < 1;
}

/* The quantiles a check asks for are few (one k, a few sample counts)
 * and asked once per region; GSL's inverses take microseconds each.  Each
 * thread keeps the last ones it computed, by their arguments: a function
 * of its arguments only, so the numbers are the same. */
#define MEMO_BITS 5
#define MEMO_SLOTS (1 << MEMO_BITS)

struct memo {
	double a, b, c;       /* the arguments; all 0: empty */
	double v[2];
};

static _Thread_local struct memo memo_q1[MEMO_SLOTS], memo_halves[MEMO_SLOTS];

static struct memo *memo_find(struct memo *m, double a, double b, double c, int *hit)
{
	uint64_t x, y, z, h;
	struct memo *e;

	memcpy(&x, &a, sizeof x);
	memcpy(&y, &b, sizeof y);
	memcpy(&z, &c, sizeof z);
	/* a multiplicative mix: the slot from the high bits */
	h = (x ^ y * 0x9E3779B97F4A7C15ull ^ z * 0xC2B2AE3D27D4EB4Full) * 0x9E3779B97F4A7C15ull;
	e = m + (h >> (64 - MEMO_BITS));

	*hit = e->a == a && e->b == b && e->c == c;
	e->a = a;
	e->b = b;
	e->c = c;
	return e;
}

static double quantile1(double confidence, size_t k, size_t n)
{
	double gamma, t;

	gsl_quiet();
	gamma = pow(confidence, 1.0 / (double)k);
	if (n == 0)
		return gsl_cdf_chisq_Pinv(gamma, 1);
	/* F(1, n-1) = t(n-1)^2; GSL's t inverse stays accurate for large n
	 * where its F inverse does not */
	t = gsl_cdf_tdist_Pinv((1 + gamma) / 2, (double)(n - 1));
	return t * t;
}

/* Per-counter quantile with the Sidak correction: each of the k
 * intervals has level gamma = c^(1/k), so all k hold together with
 * probability >= c (Sidak's inequality).  A t interval with n-1 degrees of
 * freedom squared is F(1, n-1):  q1 = F^{-1}_{1,n-1}(gamma). */
double region_quantile1(double confidence, size_t k, size_t n)
{
	struct memo *e;
	int hit;

	if (!stats_conf_ok(confidence) || k == 0 || n == 1)
		return NAN;
	e = memo_find(memo_q1, confidence, (double)k, (double)n, &hit);
	if (!hit)
		e->v[0] = quantile1(confidence, k, n);
	return e->v[0];
}

/* Do two halves of a counter's samples differ in spread beyond what
 * stationary Gaussian samples allow?  va/vb ~ F(nua, nub) for such
 * samples; the two-sided test at level SPLIT_STATIONARY_ALPHA for the
 * k counters together (Sidak).  A spread of exactly 0 against one that
 * is not (a counter that counted in one half only) always differs; two
 * zeros never do. */
int stats_halves_differ(double va, double vb, double nua, double nub, size_t k)
{
	struct memo *e;
	double a, x;
	int hit;

	if (!(va > 0) && !(vb > 0))
		return 0;
	if (!(va > 0) || !(vb > 0))
		return 1;
	if (!(nua > 0) || !(nub > 0) || k == 0)
		return 0;
	gsl_quiet();
	a = -expm1(log1p(-SPLIT_STATIONARY_ALPHA) / (double)k);
	x = va / vb;
	/* two-sided p < a: x beyond either tail's a/2 quantile, which
	 * depend on the degrees of freedom and k only (kept) */
	e = memo_find(memo_halves, nua, nub, (double)k, &hit);
	if (!hit) {
		e->v[0] = gsl_cdf_fdist_Pinv(a / 2, nua, nub);
		e->v[1] = gsl_cdf_fdist_Qinv(a / 2, nua, nub);
	}
	if (isfinite(e->v[0]) && isfinite(e->v[1]))
		return x < e->v[0] || x > e->v[1];
	/* GSL's inverse gave up: the p-value itself */
	{
		double p = gsl_cdf_fdist_Q(x, nua, nub);

		return 2 * (p < 0.5 ? p : 1 - p) < a;
	}
}

/* Which rule a region of k counters from n samples uses.  Hotelling's
 * quantile explodes as n approaches k (k = 6, n = 8: q = 2086 against
 * k q1 = 150 for the diagonal rule), so the full covariance is used only
 * when its quantile is no larger than the diagonal rule's, judged at the
 * reference level 0.99.  The choice depends on k and n alone, never on
 * the data, so either way the stated confidence holds.  The crossover is
 * near n = 1.3 k + 3 (k = 5: n >= 11; k = 20: n >= 29). */
enum region_rule region_rule_for(size_t k, size_t n)
{
	double qh, qd;

	if (n == 0)
		return REGION_RULE_HOTELLING;   /* known covariance: chi^2 */
	if (n <= k || k == 0)
		return REGION_RULE_DIAGONAL;
	if (n >= 2 * k + 10)
		return REGION_RULE_HOTELLING;   /* well past the crossover */
	gsl_quiet();
	qh = (double)k * (double)(n - 1) / (double)(n - k) *
	     gsl_cdf_fdist_Pinv(0.99, (double)k, (double)(n - k));
	qd = (double)k * region_quantile1(0.99, k, n);
	/* k = 1: the two are the same t interval; rounding decides nothing */
	return qh <= qd * (1 + 1e-9) ? REGION_RULE_HOTELLING : REGION_RULE_DIAGONAL;
}

/* Ellipsoid quantile.  Hotelling rule: T^2 = n (xbar-mu)^T S^-1 (xbar-mu)
 * is distributed as k(n-1)/(n-k) F(k, n-k), so with cov = S/n the region
 * (x-mu)^T cov^-1 (x-mu) <= q has exact level c for Gaussian samples.
 * Diagonal rule: q = k q1, the ellipsoid through the corners of the Sidak
 * box, which it therefore contains.  n = 0 means a known covariance:
 * chi^2_k. */
double region_quantile(double confidence, size_t k, size_t n)
{
	enum region_rule rule;

	if (!stats_conf_ok(confidence) || k == 0 || n == 1)
		return NAN;
	rule = region_rule_for(k, n);
	return stats_quantile_for(confidence, k, n, rule, rule == REGION_RULE_HOTELLING ?
				  (double)NAN : region_quantile1(confidence, k, n));
}

/* region_quantile for a rule already chosen and the q1 already computed
 * (region_build has both): the same numbers, without choosing again. */
double stats_quantile_for(double confidence, size_t k, size_t n,
			  enum region_rule rule, double q1)
{
	double f;

	if (!stats_conf_ok(confidence) || k == 0 || n == 1)
		return NAN;
	gsl_quiet();
	if (n == 0)
		return gsl_cdf_chisq_Pinv(confidence, (double)k);
	if (rule == REGION_RULE_HOTELLING) {
		f = gsl_cdf_fdist_Pinv(confidence, (double)k, (double)(n - k));
		return (double)k * (double)(n - 1) / (double)(n - k) * f;
	}
	return (double)k * q1;
}

/* The inverse of region_quantile in its first argument. */
double region_confidence_of(double d2, size_t k, size_t n)
{
	double p;

	if (k == 0 || n == 1 || isnan(d2))
		return NAN;
	if (d2 <= 0)
		return 0;
	gsl_quiet();
	if (n == 0)
		return gsl_cdf_chisq_P(d2, (double)k);
	if (region_rule_for(k, n) == REGION_RULE_HOTELLING)
		return gsl_cdf_fdist_P(d2 * (double)(n - k) /
				       ((double)k * (double)(n - 1)),
				       (double)k, (double)(n - k));
	/* P(F(1, n-1) <= x) = 2 T_{n-1}(sqrt x) - 1 */
	p = 2 * gsl_cdf_tdist_P(sqrt(d2 / (double)k), (double)(n - 1)) - 1;
	return pow(p, (double)k);
}

