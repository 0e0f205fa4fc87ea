/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/check_regions.c: how many violations each region shape finds on
 * correlated synthetic data.  Observations are generated from
 * walk_pde_early.udd's μpaths (the PDE cache is also looked up without a
 * walk, so load.pde_miss may exceed load.causes_walk) and checked against
 * walk_basic.udd, which forbids that; per interval all flows share a
 * phase factor (programs have phases), so the counters are strongly
 * correlated, plus counting noise on each counter.  Regions come from the
 * stats module (region_build, 99%), verdicts from the solver.  Prints how
 * many observations each shape refutes and how many more the PCA box and
 * the ellipsoid refute than the independent box (the CounterPoint study
 * reported over 24% more for PCA boxes on average).  Figures only.
 *
 * The truth is known: with W walks per second, a share `miss` of them
 * missing the PDE cache and PDE lookups without a walk at `early` W,
 * load.pde_miss - load.causes_walk = W (miss + early - 1), so an
 * observation's true mean is outside walk_basic's cone exactly when
 * miss + early > 1 (about 1 in 20).  Each shape's refutations are split
 * into those (found) and the rest (false: at 99% at most about 1% of
 * the observations inside may be refuted).
 *
 *   build/bench/check_regions [N_OBSERVATIONS] [N_INTERVALS] [SEED] [PHASE]
 *
 * PHASE (default 0.05) is the relative spread of the per-interval phase
 * factor: the larger, the more the counters move together. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsl/udd.h"
#include "solver/feas.h"
#include "stats/region.h"

static uint64_t rng = 12345;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double unif(void) { return (double)(next() >> 11) / 9007199254740992.0; }

static double normal(void)
{
	double u = unif(), v = unif();

	return sqrt(-2 * log(u > 1e-300 ? u : 1e-300)) * cos(6.283185307179586 * v);
}

static int load(const char *path, struct udd_sigset **set)
{
	struct udd_model *m = NULL;
	struct cp_error err;
	int rc;

	cp_error_clear(&err);
	rc = udd_model_parse_file(path, &m, &err);
	if (!rc)
		rc = udd_sigset_build(m, 0, 0, set, &err);
	if (rc)
		fprintf(stderr, "bench/check_regions: %s: %s\n", path, err.msg);
	udd_model_free(m);
	return rc;
}

int main(int argc, char **argv)
{
	size_t n_obs = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 2000;
	size_t n_int = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 20;
	struct udd_sigset *truth = NULL, *tested = NULL;
	struct feas_model *fm = NULL;
	struct cp_error err;
	size_t k, mt, o, i, j, p, count[3] = { 0, 0, 0 }, only_pca = 0, only_ind = 0;
	size_t outside = 0, found[3] = { 0, 0, 0 }, false_[3] = { 0, 0, 0 };
	double *rates, *flow;
	int sh;

	double phase_sd = argc > 4 ? strtod(argv[4], NULL) : 0.05;

	if (argc > 3)
		rng = strtoull(argv[3], NULL, 10) | 1;
	if (load("models/examples/walk_pde_early.udd", &truth) ||
	    load("models/examples/walk_basic.udd", &tested))
		return 1;
	k = udd_sigset_n_counters(tested);
	mt = udd_sigset_size(truth);
	if (udd_sigset_n_counters(truth) != k) {
		fprintf(stderr, "bench/check_regions: the models' counters differ\n");
		return 1;
	}
	cp_error_clear(&err);
	if (feas_model_new(k, udd_sigset_size(tested), udd_sigset_matrix(tested), NULL, &fm,
			   &err)) {
		fprintf(stderr, "bench/check_regions: %s\n", err.msg);
		return 1;
	}
	rates = malloc(n_int * k * sizeof *rates);
	flow = malloc(mt * sizeof *flow);
	printf("bench/check_regions %zu %zu: data from walk_pde_early.udd, checked against "
	       "walk_basic.udd, %zu intervals per observation, phase spread %g, 99%% regions\n",
	       n_obs, n_int, n_int, phase_sd);
	for (o = 0; o < n_obs; o++) {
		struct region_options ropt;
		struct region *r = NULL;
		int verdict[3];
		double walks = 1e4 * (1 + 9 * unif()), miss = 0.5 + 0.5 * unif();
		double early = 0.05 * unif();
		int out = miss + early > 1;   /* the true mean breaks pde_miss <= causes_walk */

		/* per-signature mean flows (per second): walks with a PDE hit or
		 * miss, PDE lookups without a walk (what walk_basic lacks),
		 * TLB hits, aborted lookups */
		for (p = 0; p < mt; p++) {
			const uint32_t *s = udd_sigset_signature(truth, p);
			int walk = s[0] > 0, pde = s[1] > 0, ret = s[3] > 0;

			if (walk)
				flow[p] = walks * (pde ? miss : 1 - miss);
			else if (pde)
				flow[p] = walks * early;
			else if (ret)
				flow[p] = walks * (5 + 20 * unif());
			else
				flow[p] = walks * 0.01;
		}
		for (i = 0; i < n_int; i++) {
			double phase = fmax(0.05, 1 + phase_sd * normal());

			for (j = 0; j < k; j++) {
				double x = 0;

				for (p = 0; p < mt; p++)
					x += phase * flow[p] * udd_sigset_signature(truth, p)[j];
				/* counting noise, one second per interval */
				rates[i * k + j] = fmax(0, x + sqrt(x + 1) * normal());
			}
		}
		memset(&ropt, 0, sizeof ropt);
		ropt.confidence = 0.99;
		ropt.batches = 1;
		if (region_build(rates, n_int, k, &ropt, &r, &err)) {
			fprintf(stderr, "bench/check_regions: %s\n", err.msg);
			return 1;
		}
		for (sh = FEAS_PCA; sh <= FEAS_ELLIPSOID; sh++) {
			struct feas_query q;
			struct feas_result res;

			feas_result_init(&res);
			feas_query_from_region(r, (enum feas_shape)sh, &q);
			if (feas_check(fm, &q, 0, &res, &err)) {
				fprintf(stderr, "bench/check_regions: %s\n", err.msg);
				return 1;
			}
			verdict[sh] = !res.feasible;
			count[sh] += verdict[sh];
			found[sh] += verdict[sh] && out;
			false_[sh] += verdict[sh] && !out;
			feas_result_release(&res);
		}
		outside += out;
		only_pca += verdict[FEAS_PCA] && !verdict[FEAS_INDEPENDENT];
		only_ind += verdict[FEAS_INDEPENDENT] && !verdict[FEAS_PCA];
		region_free(r);
	}
	printf("  infeasible: independent box %zu, PCA box %zu, ellipsoid %zu of %zu\n",
	       count[FEAS_INDEPENDENT], count[FEAS_PCA], count[FEAS_ELLIPSOID], n_obs);
	printf("  truly outside the cone: %zu; found by independent %zu, PCA %zu, ellipsoid %zu\n",
	       outside, found[FEAS_INDEPENDENT], found[FEAS_PCA], found[FEAS_ELLIPSOID]);
	printf("  refuted although inside (false, of %zu): independent %zu, PCA %zu, ellipsoid %zu\n",
	       n_obs - outside, false_[FEAS_INDEPENDENT], false_[FEAS_PCA], false_[FEAS_ELLIPSOID]);
	if (count[FEAS_INDEPENDENT])
		printf("  PCA box finds %+.0f%% against the independent box (%zu only by PCA, "
		       "%zu only by independent); the ellipsoid %+.0f%%\n",
		       100.0 * ((double)count[FEAS_PCA] / (double)count[FEAS_INDEPENDENT] - 1),
		       only_pca, only_ind,
		       100.0 * ((double)count[FEAS_ELLIPSOID] / (double)count[FEAS_INDEPENDENT] - 1));
	else
		printf("  the independent box refutes none (%zu only by PCA)\n", only_pca);
	free(rates);
	free(flow);
	feas_model_free(fm);
	udd_sigset_free(truth);
	udd_sigset_free(tested);
	return 0;
}
