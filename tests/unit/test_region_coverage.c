/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_region_coverage.c: do the regions hold the true mean as
 * often as they claim?  Correlated Gaussian samples with a known mean
 * (fixed seeds), dimensions 2, 5 and 20, 1000 trials each: the ellipsoid
 * and both boxes must contain the mean in at least 99% of trials within
 * binomial error (990 - 3 * sqrt(1000 * 0.99 * 0.01) = 980.6, so >= 981),
 * and the PCA box must be smaller than the independent box when the
 * counters are strongly correlated.  Also: the diagonal rule (n <= k),
 * missing samples, batch means on autocorrelated intervals, and the
 * per-interval (prediction) region. */
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "common/cp.h"
#include "stats/region.h"
#include "check.h"

#define TRIALS 1000
#define MIN_HITS 981
#define MAXK 20

/* Equicorrelated covariance with correlation rho and scales 1..k (so the
 * counters differ in size, as real counters do), and its Cholesky factor
 * L (lower, row-major). */
static void make_cov(size_t k, double rho, double *L)
{
	double s[MAXK * MAXK];
	size_t i, j, l;

	for (i = 0; i < k; i++)
		for (j = 0; j < k; j++)
			s[i * k + j] = (double)(i + 1) * (double)(j + 1) *
				       (i == j ? 1 : rho);
	memset(L, 0, k * k * sizeof *L);
	for (j = 0; j < k; j++) {
		double d = s[j * k + j];

		for (l = 0; l < j; l++)
			d -= L[j * k + l] * L[j * k + l];
		L[j * k + j] = sqrt(d);
		for (i = j + 1; i < k; i++) {
			double v = s[i * k + j];

			for (l = 0; l < j; l++)
				v -= L[i * k + l] * L[j * k + l];
			L[i * k + j] = v / L[j * k + j];
		}
	}
}

/* One sample mu + L z into x. */
static void draw(gsl_rng *g, size_t k, const double *mu, const double *L,
		 double *x)
{
	double z[MAXK];
	size_t i, j;

	for (j = 0; j < k; j++)
		z[j] = gsl_ran_gaussian(g, 1.0);
	for (i = 0; i < k; i++) {
		x[i] = mu[i];
		for (j = 0; j <= i; j++)
			x[i] += L[i * k + j] * z[j];
	}
}

struct tally {
	int ell, pca, ind, pca_smaller;
};

/* Does each shape of r hold target?  Counted into t. */
static void count_hits(struct tally *t, const struct region *r,
		       const double *target)
{
	t->ell += region_contains(r, REGION_ELLIPSOID, target);
	t->pca += region_contains(r, REGION_PCA, target);
	t->ind += region_contains(r, REGION_INDEPENDENT, target);
}

/* Run TRIALS regions of n intervals each in dimension k.  missing: the
 * probability that a sample is not counted; phi: AR(1) coefficient of the
 * intervals (0 = independent); per_interval: test a new sample instead
 * of the mean. */
static struct tally run(unsigned long seed, size_t k, size_t n, double rho,
			double missing, double phi, size_t batches,
			int per_interval)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double L[MAXK * MAXK], mu[MAXK], res[MAXK], target[MAXK];
	double *x = cp_malloc(n * k * sizeof *x);
	struct region_options o;
	struct tally t = { 0, 0, 0, 0 };
	size_t trial, i, j;

	gsl_rng_set(g, seed);
	make_cov(k, rho, L);
	for (j = 0; j < k; j++) {
		mu[j] = 1000.0 * (double)(j + 1);
		res[j] = 1e-9;            /* the floor plays no part here */
	}
	memset(&o, 0, sizeof o);
	o.confidence = 0.99;
	o.resolution = res;
	o.batches = batches;
	o.per_interval = per_interval;
	for (trial = 0; trial < TRIALS; trial++) {
		struct region *r = NULL;
		struct cp_error err;
		double e[MAXK] = { 0 }, lp = 0, li = 0;

		for (i = 0; i < n; i++) {
			/* AR(1) with stationary variance: e = phi e + sqrt(1-phi^2) w */
			double w[MAXK];

			draw(g, k, (double[MAXK]){ 0 }, L, w);
			for (j = 0; j < k; j++) {
				e[j] = i == 0 ? w[j] : phi * e[j] + sqrt(1 - phi * phi) * w[j];
				x[i * k + j] = mu[j] + e[j];
				if (missing > 0 && gsl_rng_uniform(g) < missing)
					x[i * k + j] = NAN;
			}
		}
		if (per_interval)
			draw(g, k, mu, L, target);
		else
			memcpy(target, mu, k * sizeof *mu);
		if (region_build(x, n, k, &o, &r, &err)) {
			printf("  region_build: %s\n", err.msg);
			break;
		}
		count_hits(&t, r, target);
		for (j = 0; j < k; j++) {
			lp += log(r->half_pca[j]);
			li += log(r->half_ind[j]);
		}
		t.pca_smaller += lp < li;
		region_free(r);
	}
	printf("  k=%zu n=%zu rho=%g missing=%g phi=%g batches=%zu%s: "
	       "ellipsoid %d, PCA box %d, independent box %d of %d; "
	       "PCA box smaller in %d\n", k, n, rho, missing, phi, batches,
	       per_interval ? " per-interval" : "", t.ell, t.pca, t.ind,
	       TRIALS, t.pca_smaller);
	cp_free(x);
	gsl_rng_free(g);
	return t;
}

static void check_coverage(struct tally t)
{
	CHECKF(t.ell >= MIN_HITS, "ellipsoid %d", t.ell);
	CHECKF(t.pca >= MIN_HITS, "PCA box %d", t.pca);
	CHECKF(t.ind >= MIN_HITS, "independent box %d", t.ind);
	/* the PCA box is a Sidak box in the principal frame, no longer the
	 * ellipsoid's bounding box: it need not contain the ellipsoid, and
	 * its own coverage is what is checked above */
}

static void test_coverage_dim2(void)
{
	struct tally t = run(101, 2, 40, 0.95, 0, 0, 0, 0);

	check_coverage(t);
	/* Hotelling is exact here: not grossly conservative either */
	CHECKF(t.ell <= 998, "ellipsoid %d", t.ell);
	CHECK(t.pca_smaller == TRIALS);
}

static void test_coverage_dim5(void)
{
	struct tally t = run(202, 5, 40, 0.95, 0, 0, 0, 0);

	check_coverage(t);
	CHECKF(t.ell <= 998, "ellipsoid %d", t.ell);
	CHECK(t.pca_smaller == TRIALS);
}

static void test_coverage_dim20(void)
{
	struct tally t = run(303, 20, 60, 0.95, 0, 0, 0, 0);

	check_coverage(t);
	CHECKF(t.ell <= 998, "ellipsoid %d", t.ell);
	CHECKF(t.pca_smaller >= 990, "PCA box smaller in %d", t.pca_smaller);
}

/* Weak correlation: the PCA box holds no advantage, coverage still holds. */
static void test_coverage_uncorrelated(void)
{
	check_coverage(run(404, 5, 40, 0.0, 0, 0, 0, 0));
}

/* Fewer intervals than counters: the diagonal rule. */
static void test_coverage_diagonal_rule(void)
{
	check_coverage(run(505, 20, 12, 0.95, 0, 0, 0, 0));
	check_coverage(run(506, 5, 3, 0.95, 0, 0, 0, 0));
	/* n > k but below the crossover (k = 5: n < 11) */
	check_coverage(run(507, 5, 9, 0.95, 0, 0, 0, 0));
}

/* 15% of samples not counted (multiplexing), handled pairwise. */
static void test_coverage_missing(void)
{
	check_coverage(run(606, 5, 40, 0.95, 0.15, 0, 0, 0));
}

/* Autocorrelated intervals (AR(1), phi = 0.8): treating them as
 * independent is dishonest; 10 batch means restore the coverage. */
static void test_coverage_batch_means(void)
{
	struct tally naive = run(707, 2, 400, 0.9, 0, 0.8, 1, 0);
	struct tally batched = run(707, 2, 400, 0.9, 0, 0.8, 10, 0);

	CHECKF(naive.ell < 900, "naive ellipsoid %d", naive.ell);
	check_coverage(batched);
	/* the automatic rule finds the correlation itself */
	check_coverage(run(707, 2, 400, 0.9, 0, 0.8, REGION_BATCHES_AUTO, 0));
	check_coverage(run(708, 5, 400, 0.9, 0, 0.5, REGION_BATCHES_AUTO, 0));
}

/* The per-interval (prediction) region holds a new interval. */
static void test_coverage_per_interval(void)
{
	check_coverage(run(808, 5, 40, 0.95, 0, 0, 0, 1));
}

/* Multiplexing with short intervals: 6 counters in 3 groups of 2, one
 * group counted per interval in rotation, so counters of different groups
 * are never counted together (n_jl = 0: no covariance estimate, and none
 * needed, since their means come from disjoint intervals). */
static void test_coverage_rotating_groups(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double x[60 * 6], mu[6], res[6];
	struct region_options o = { .confidence = 0.99, .resolution = res,
				    .batches = 1 };
	struct tally t = { 0, 0, 0, 0 };
	size_t i, j;
	int trial;

	gsl_rng_set(g, 1010);
	for (j = 0; j < 6; j++) {
		mu[j] = 100.0 * (double)(j + 1);
		res[j] = 1e-9;
	}
	for (trial = 0; trial < TRIALS; trial++) {
		struct region *r = NULL;
		struct cp_error err;

		for (i = 0; i < 60; i++) {
			double f = gsl_ran_gaussian(g, 1.0);

			for (j = 0; j < 6; j++)
				x[i * 6 + j] = j / 2 == i % 3 ?
					mu[j] + (double)(j + 1) *
					(0.95 * f + 0.31 * gsl_ran_gaussian(g, 1.0)) : NAN;
		}
		if (region_build(x, 60, 6, &o, &r, &err)) {
			printf("  region_build: %s\n", err.msg);
			break;
		}
		count_hits(&t, r, mu);
		region_free(r);
	}
	printf("  k=6 n=60 rotating groups of 2: ellipsoid %d, PCA box %d, "
	       "independent box %d of %d\n", t.ell, t.pca, t.ind, TRIALS);
	check_coverage(t);
	gsl_rng_free(g);
}

/* Rare events: Poisson counts in 0.1 s intervals (resolution 10/s), so
 * most intervals of the slow rates count nothing and the sample variance
 * is often zero: the counting-resolution floor must keep the independent
 * box honest.  1000 trials per rate, n = 20. */
static void test_coverage_rare_counts(void)
{
	static const double rate[] = { 0.1, 1, 2, 5, 20, 200 };
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double x[20], res = 10;
	struct region_options o = { .confidence = 0.99, .resolution = &res,
				    .batches = 1 };
	size_t a, i;
	int trial;

	gsl_rng_set(g, 909);
	for (a = 0; a < sizeof rate / sizeof *rate; a++) {
		int hits = 0;

		for (trial = 0; trial < TRIALS; trial++) {
			struct region *r = NULL;
			struct cp_error err;

			for (i = 0; i < 20; i++)
				x[i] = 10.0 * gsl_ran_poisson(g, rate[a] * 0.1);
			if (region_build(x, 20, 1, &o, &r, &err))
				break;
			hits += region_contains(r, REGION_INDEPENDENT, &rate[a]);
			region_free(r);
		}
		printf("  Poisson rate %g/s, n=20: independent box %d of %d\n",
		       rate[a], hits, TRIALS);
		CHECKF(hits >= MIN_HITS, "rate %g: %d", rate[a], hits);
	}
	gsl_rng_free(g);
}

/* A phase in one half: a counter active only during a phase of 5 to 15
 * of the run's 50 intervals (its length and place drawn anew each run,
 * so its true mean is 10,000 x 10/50 = 2000), beside three steady ones.
 * The phase makes the intervals autocorrelated, so the region is
 * prewhitened, and where it falls wholly in the first half the second
 * half's residuals of that counter are all 0: the split box's width
 * along it fell to the counting floor and the box missed the true mean
 * (620 of 1000 before the widths were kept at the whole sample's along
 * such axes). */
static void test_coverage_phase_in_one_half(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double x[50 * 4], mu[4] = { 1000, 500, 2000, 300 }, res[4] = { 1, 1, 1, 1 };
	struct region_options o = { .confidence = 0.99, .resolution = res };
	struct tally t = { 0, 0, 0, 0 };
	size_t i;
	int trial;

	gsl_rng_set(g, 1111);
	for (trial = 0; trial < TRIALS; trial++) {
		struct region *r = NULL;
		struct cp_error err;
		size_t len = 5 + gsl_rng_uniform_int(g, 11);
		size_t at = gsl_rng_uniform_int(g, 50 - len + 1);

		for (i = 0; i < 50; i++) {
			double f = gsl_ran_gaussian(g, 10.0);

			x[i * 4] = mu[0] + f;
			x[i * 4 + 1] = mu[1] + 0.5 * f + gsl_ran_gaussian(g, 1.0);
			x[i * 4 + 2] = i >= at && i < at + len ?
				1e4 * (1 + gsl_ran_gaussian(g, 0.05)) : 0;
			x[i * 4 + 3] = mu[3] + gsl_ran_gaussian(g, 5.0);
		}
		if (region_build(x, 50, 4, &o, &r, &err)) {
			printf("  region_build: %s\n", err.msg);
			break;
		}
		count_hits(&t, r, mu);
		region_free(r);
	}
	printf("  k=4 n=50 a phase in one half: ellipsoid %d, PCA box %d, "
	       "independent box %d of %d\n", t.ell, t.pca, t.ind, TRIALS);
	CHECKF(t.pca >= MIN_HITS, "PCA box %d", t.pca);
	CHECKF(t.ind >= MIN_HITS, "independent box %d", t.ind);
	gsl_rng_free(g);
}

/* A short run (10 intervals, 6 counters: halves too short for the split
 * box): counters 0 and 1 count nearly the same events (a hardware
 * identity, correlation above 0.999), 2 and 3 likewise, 4 and 5 alone.
 * The box pairs them: it holds the true mean as often as it claims, it
 * reaches along each counter about as far as the independent box, and a
 * mean that breaks the identity by 10 sd of the difference, which the
 * independent box holds, lies outside it (before the pairs the PCA box
 * was the independent box here: 7 of 1000). */
static void test_coverage_short_run_pairs(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double x[10 * 6], mu[6] = { 1000, 1000, 500, 250, 800, 300 }, res[6];
	double off[6];
	struct region_options o = { .confidence = 0.99, .resolution = res };
	struct tally t = { 0, 0, 0, 0 };
	int trial, sees = 0, ind_holds = 0, reach_ok = 0;
	size_t i, j;

	gsl_rng_set(g, 1212);
	for (j = 0; j < 6; j++)
		res[j] = 1e-9;
	/* the identity of 0 and 1 broken by 10 sd of their difference's mean
	 * (each interval's difference has sd 0.1 * sqrt 2) */
	memcpy(off, mu, sizeof off);
	off[1] += 10 * 0.1 * sqrt(2.0) / sqrt(10.0);
	for (trial = 0; trial < TRIALS; trial++) {
		struct region *r = NULL;
		struct cp_error err;

		for (i = 0; i < 10; i++) {
			double a = gsl_ran_gaussian(g, 20), b = gsl_ran_gaussian(g, 10);

			x[i * 6] = mu[0] + a + gsl_ran_gaussian(g, 0.1);
			x[i * 6 + 1] = mu[1] + a + gsl_ran_gaussian(g, 0.1);
			x[i * 6 + 2] = mu[2] + b + gsl_ran_gaussian(g, 0.05);
			x[i * 6 + 3] = mu[3] + b / 2 + gsl_ran_gaussian(g, 0.05);
			x[i * 6 + 4] = mu[4] + gsl_ran_gaussian(g, 15);
			x[i * 6 + 5] = mu[5] + gsl_ran_gaussian(g, 5);
		}
		if (region_build(x, 10, 6, &o, &r, &err)) {
			printf("  region_build: %s\n", err.msg);
			break;
		}
		count_hits(&t, r, mu);
		ind_holds += region_contains(r, REGION_INDEPENDENT, off);
		sees += !region_contains(r, REGION_PCA, off);
		{
			int ok = 1;

			for (j = 0; j < 6; j++) {
				double reach = 0;

				for (i = 0; i < 6; i++)
					reach += fabs(r->box_axes[i * 6 + j]) * r->half_pca[i];
				ok &= reach <= 1.1 * r->half_ind[j];
			}
			reach_ok += ok;
		}
		region_free(r);
	}
	printf("  k=6 n=10 two identity pairs: ellipsoid %d, PCA box %d, independent "
	       "box %d of %d; a broken identity outside the PCA box in %d, inside "
	       "the independent box in %d; reach within 10%% of the independent "
	       "box in %d\n", t.ell, t.pca, t.ind, TRIALS, sees, ind_holds, reach_ok);
	CHECKF(t.pca >= MIN_HITS, "PCA box %d", t.pca);
	CHECKF(t.ind >= MIN_HITS, "independent box %d", t.ind);
	CHECKF(ind_holds >= 900 && sees >= 800, "broken identity: %d, %d", ind_holds, sees);
	CHECKF(reach_ok >= 990, "reach %d", reach_ok);
	gsl_rng_free(g);
}

/* Twenty intervals of twenty counters: halves of ten samples, too few
 * for the split box's axes (a first half of at most k/2 samples), so the
 * frame is the short run's.  Counter 0 counts the events of 1 and 2
 * together (walk_done = walk_done_4k + walk_done_2m), which move
 * together (a block of three, correlated above 0.99), 3 and 4 count
 * nearly the same events, the other
 * fifteen are unrelated, at scales from 5 to 75.  The PCA box holds the
 * true mean as often as it claims; along the difference of two
 * unrelated counters (the direction of a constraint such as
 * retired_stlb_miss <= causes_walk) it reaches exactly as far as the
 * independent box, in every trial (the split box's axes, from ten
 * samples in twenty dimensions, leaned on them: fails if the rule on
 * the first half's size goes); and a mean that breaks the identity of
 * the block by 10 sd of its noise, which the independent box holds, lies
 * outside it. */
static void test_coverage_short_run_blocks(void)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	double x[20 * 20], mu[20], off[20], res[20];
	struct region_options o = { .confidence = 0.99, .resolution = res };
	struct tally t = { 0, 0, 0, 0 };
	int trial, sees = 0, ind_holds = 0, reach_ok = 0;
	size_t i, j;

	gsl_rng_set(g, 2020);
	for (j = 0; j < 20; j++) {
		mu[j] = 1000.0 * (double)(j + 1);
		res[j] = 1e-9;
	}
	mu[0] = mu[1] + mu[2];
	memcpy(off, mu, sizeof off);
	/* each interval's counter 0 has noise sd 0.2 beyond 1 + 2 */
	off[0] += 10 * 0.2 / sqrt(20.0);
	for (trial = 0; trial < TRIALS; trial++) {
		struct region *r = NULL;
		struct cp_error err;
		double a5 = 0, a6 = 0, reach = 0;

		for (i = 0; i < 20; i++) {
			double *xi = x + i * 20;
			double a = gsl_ran_gaussian(g, 30), c = gsl_ran_gaussian(g, 10);

			xi[1] = mu[1] + a + gsl_ran_gaussian(g, 1);
			xi[2] = mu[2] + a / 2 + gsl_ran_gaussian(g, 1);
			xi[0] = xi[1] + xi[2] - mu[1] - mu[2] + mu[0] + gsl_ran_gaussian(g, 0.2);
			xi[3] = mu[3] + c + gsl_ran_gaussian(g, 0.1);
			xi[4] = mu[4] + c + gsl_ran_gaussian(g, 0.1);
			for (j = 5; j < 20; j++)
				xi[j] = mu[j] + gsl_ran_gaussian(g, 5.0 * (double)(j - 4));
		}
		if (region_build(x, 20, 20, &o, &r, &err)) {
			printf("  region_build: %s\n", err.msg);
			break;
		}
		count_hits(&t, r, mu);
		ind_holds += region_contains(r, REGION_INDEPENDENT, off);
		sees += !region_contains(r, REGION_PCA, off);
		/* the box's reach along e_5 - e_6 against the independent box's */
		for (i = 0; i < 20; i++) {
			a5 = r->box_axes[i * 20 + 5];
			a6 = r->box_axes[i * 20 + 6];
			reach += fabs(a5 - a6) * r->half_pca[i];
		}
		reach_ok += reach <= (1 + 1e-12) * (r->half_ind[5] + r->half_ind[6]);
		region_free(r);
	}
	printf("  k=20 n=20 a block of three and a pair: ellipsoid %d, PCA box %d, "
	       "independent box %d of %d; a broken identity outside the PCA box "
	       "in %d, inside the independent box in %d; along e5 - e6 no farther "
	       "than the independent box in %d\n", t.ell, t.pca, t.ind, TRIALS,
	       sees, ind_holds, reach_ok);
	CHECKF(t.pca >= MIN_HITS, "PCA box %d", t.pca);
	CHECKF(t.ind >= MIN_HITS, "independent box %d", t.ind);
	CHECKF(ind_holds >= 900 && sees >= 800, "broken identity: %d, %d", ind_holds, sees);
	CHECKF(reach_ok == TRIALS, "reach %d", reach_ok);
	gsl_rng_free(g);
}

int main(void)
{
	check_prog = "test_region_coverage";
	RUN(test_coverage_dim2);
	RUN(test_coverage_dim5);
	RUN(test_coverage_dim20);
	RUN(test_coverage_uncorrelated);
	RUN(test_coverage_diagonal_rule);
	RUN(test_coverage_missing);
	RUN(test_coverage_batch_means);
	RUN(test_coverage_per_interval);
	RUN(test_coverage_rotating_groups);
	RUN(test_coverage_rare_counts);
	RUN(test_coverage_phase_in_one_half);
	RUN(test_coverage_short_run_pairs);
	RUN(test_coverage_short_run_blocks);
	return check_summary();
}
