/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_feas_cone.c: the solver against the geometry module's
 * exact H-representation on random cones of 5 to 8 counters (beyond the
 * brute force of test_feas.c), including cones with equalities.  The box
 * LP is feasible only if no listed constraint is broken by the box's
 * support; a listed constraint broken means infeasible; and without the
 * list, a constraint derived from a certificate that the solver calls a
 * facet is one of the cone's facets, modulo its equalities. */
#include <stdio.h>

#include "solver/feas.h"
#include "check.h"
#include "test_feas_lib.h"

#include "geometry/cone.h"

/* Is a (a facet normal up to equalities) equal to one of the cone's
 * facets?  Both are valid on the cone and vanish on the same signatures
 * exactly when they are the same facet. */
static int same_facet(size_t k, size_t m, const uint32_t *S, const int64_t *a,
		      const int64_t *b)
{
	size_t p, i;

	for (p = 0; p < m; p++) {
		int64_t sa = 0, sb = 0;

		for (i = 0; i < k; i++) {
			sa += a[i] * (int64_t)S[p * k + i];
			sb += b[i] * (int64_t)S[p * k + i];
		}
		if ((sa == 0) != (sb == 0))
			return 0;
	}
	return 1;
}

static void test_random_cones(void)
{
	size_t trial, boxes = 0, infeasible = 0, listed_broken = 0, derived = 0;
	size_t derived_facet = 0, beyond = 0, derived_eq = 0, derived_other = 0;
	size_t missed = 0;
	struct cp_error err;
	struct feas_result res, res2;

	tl_seed(1234);
	feas_result_init(&res);
	feas_result_init(&res2);
	for (trial = 0; trial < 24; trial++) {
		size_t k = 5 + trial % 4, m = 8 + tl_next() % 12, p, i, obs, c;
		uint32_t S[20 * 8];
		struct cone *cone = NULL;
		struct cone_options copt = { 100000, 0, 0 };
		struct feas_model *fm = NULL, *bare = NULL;

		for (p = 0; p < m * k; p++)
			S[p] = tl_next() % 3 == 0 ? (uint32_t)(tl_next() % 3) : 0;
		/* every third cone has an equality: counter k-1 = counter 0 */
		if (trial % 3 == 0)
			for (p = 0; p < m; p++)
				S[p * k + k - 1] = S[p * k];
		if (cone_build(k, m, S, &copt, &cone, &err) != CP_OK) {
			CHECKF(0, "cone_build: %s", err.msg);
			continue;
		}
		CHECK(feas_model_new(k, m, S, NULL, &fm, &err) == CP_OK);
		CHECK(feas_model_new(k, m, S, NULL, &bare, &err) == CP_OK);
		for (c = 0; c < cone_n_equalities(cone); c++)
			CHECK(feas_model_add_constraint(fm, cone_equality(cone, c), 1, &err) == CP_OK);
		for (c = 0; c < cone_n_facets(cone); c++)
			CHECK(feas_model_add_constraint(fm, cone_facet(cone, c), 0, &err) == CP_OK);
		for (obs = 0; obs < 40; obs++) {
			struct tl_region r;
			struct feas_query q;

			memset(&r, 0, sizeof r);
			r.k = k;
			for (i = 0; i < k; i++)
				r.mu[i] = 0;
			for (p = 0; p < m; p++) {
				double f = tl_unif();

				for (i = 0; i < k; i++)
					r.mu[i] += f * S[p * k + i];
			}
			for (i = 0; i < k; i++)
				r.mu[i] += 1.5 * tl_normal();
			tl_random_cov(&r, 0.1 + 0.3 * tl_unif(), 0.9);
			tl_region_finish(&r, 15.0);
			tl_query(&r, (enum feas_shape)(obs % 3), &q);
			/* every third from a fresh LP: boxes then also try the
			 * cone's nearest point as a witness */
			CHECK(feas_check(fm, &q, FEAS_EXPLAIN | (obs % 3 ? 0 : FEAS_FRESH), &res,
					 &err) == CP_OK);
			CHECK(feas_check(bare, &q, FEAS_EXPLAIN, &res2, &err) == CP_OK);
			boxes++;
			CHECK(res.feasible == res2.feasible);
			if (res.feasible) {
				CHECK(res.n_violations == 0);
				continue;
			}
			infeasible++;
			CHECK(res.n_violations >= 1 && res2.n_violations >= 1);
			if (res.n_violations && res.violations[0].index != FEAS_NO_INDEX)
				listed_broken++;
			else
				beyond++;
			for (c = 0; c < res.n_violations; c++)
				CHECK(res.violations[c].margin > 0);
			if (res2.n_violations) {
				const struct feas_violation *v = &res2.violations[0];

				derived++;
				derived_eq += v->is_equality;
				derived_other += !v->is_equality && !v->is_facet;
				/* a facet the list says breaks the region, yet the
				 * search reported a non-facet */
				missed += !v->is_equality && !v->is_facet &&
					  res.violations[0].index != FEAS_NO_INDEX &&
					  !res.violations[0].is_equality;
				CHECK(v->exact && v->margin > 0);
				if (v->is_facet && !v->is_equality) {
					int found = 0;

					for (c = 0; c < cone_n_facets(cone) && !found; c++)
						found = same_facet(k, m, S, v->a, cone_facet(cone, c));
					CHECKF(found, "trial %zu obs %zu: derived facet not in the list",
					       trial, obs);
					derived_facet += found;
				}
			}
		}
		feas_model_free(fm);
		feas_model_free(bare);
		cone_free(cone);
	}
	printf("  cones of 5-8 counters: %zu regions, %zu infeasible: %zu break a listed "
	       "constraint, %zu lie beyond a lower-dimensional face; without the list %zu "
	       "derived constraints: %zu equalities, %zu verified facets, %zu other valid "
	       "inequalities (%zu where a listed facet separates)\n", boxes, infeasible,
	       listed_broken, beyond, derived, derived_eq, derived_facet, derived_other,
	       missed);
	CHECK(infeasible > boxes / 10);
	CHECK(missed * 10 <= derived);
	feas_result_release(&res);
	feas_result_release(&res2);
}

/* The closed-form pre-filters (solver/prefilter.c) against the LP on the
 * same boxes, and against the NNLS on the same ellipsoids: the same
 * verdict, the same listed constraints broken, for the ellipsoid the same
 * d2 and p-value, and they decide a good share themselves (or they are
 * not running). */
static void prefilter_trials(int ellipsoid)
{
	size_t trial, boxes = 0, decided = 0, infeasible = 0, on_face = 0;
	struct cp_error err;
	struct feas_result res, res2;

	tl_seed(4321);
	feas_result_init(&res);
	feas_result_init(&res2);
	for (trial = 0; trial < 30; trial++) {
		size_t k = 4 + trial % 5, m = 6 + tl_next() % 14, p, i, obs, c;
		uint32_t S[20 * 8];
		struct cone *cone = NULL;
		struct cone_options copt = { 100000, 0, 0 };
		struct feas_model *fm = NULL, *lp = NULL;
		struct feas_stats st;

		for (p = 0; p < m * k; p++)
			S[p] = tl_next() % 3 == 0 ? (uint32_t)(1 + tl_next() % 4) : 0;
		if (trial % 3 == 0)   /* an equality: counter k-1 = counter 0 */
			for (p = 0; p < m; p++)
				S[p * k + k - 1] = S[p * k];
		if (cone_build(k, m, S, &copt, &cone, &err) != CP_OK) {
			CHECKF(0, "cone_build: %s", err.msg);
			continue;
		}
		CHECK(feas_model_new(k, m, S, NULL, &fm, &err) == CP_OK);
		CHECK(feas_model_new(k, m, S, NULL, &lp, &err) == CP_OK);
		for (c = 0; c < cone_n_equalities(cone); c++) {
			CHECK(feas_model_add_constraint(fm, cone_equality(cone, c), 1, &err) == CP_OK);
			CHECK(feas_model_add_constraint(lp, cone_equality(cone, c), 1, &err) == CP_OK);
		}
		for (c = 0; c < cone_n_facets(cone); c++) {
			CHECK(feas_model_add_constraint(fm, cone_facet(cone, c), 0, &err) == CP_OK);
			CHECK(feas_model_add_constraint(lp, cone_facet(cone, c), 0, &err) == CP_OK);
		}
		CHECK(feas_model_set_complete(fm, &err) == CP_OK);
		for (obs = 0; obs < 60; obs++) {
			struct tl_region r;
			struct feas_query q;

			memset(&r, 0, sizeof r);
			r.k = k;
			for (p = 0; p < m; p++) {
				double f = obs % 4 == 0 && p % 2 ? 0 : tl_unif();

				for (i = 0; i < k; i++)
					r.mu[i] += f * S[p * k + i];
			}
			for (i = 0; i < k; i++)
				r.mu[i] += (obs % 5 == 0 ? 0.01 : 1.5) * tl_normal();
			tl_random_cov(&r, 0.05 + 0.3 * tl_unif(), 0.9);
			tl_region_finish(&r, obs % 2 ? 15.0 : 2.0);
			tl_query(&r, ellipsoid ? FEAS_ELLIPSOID : (enum feas_shape)(obs % 2), &q);
			/* every third from a fresh LP: boxes then also try the
			 * cone's nearest point as a witness */
			CHECK(feas_check(fm, &q, FEAS_EXPLAIN | (obs % 3 ? 0 : FEAS_FRESH), &res,
					 &err) == CP_OK);
			CHECK(feas_check(lp, &q, FEAS_EXPLAIN | FEAS_NO_PREFILTER, &res2, &err) == CP_OK);
			boxes++;
			CHECKF(res.feasible == res2.feasible, "trial %zu obs %zu: prefilter %d, LP %d",
			       trial, obs, res.feasible, res2.feasible);
			infeasible += !res2.feasible;
			if (ellipsoid) {
				CHECKF(fabs(res.d2 - res2.d2) <= 1e-9 * fmax(1, res2.d2),
				       "trial %zu obs %zu: d2 %.17g, NNLS %.17g", trial, obs,
				       res.d2, res2.d2);
				CHECK(fabs(res.p_value - res2.p_value) <= 1e-9);
				on_face += res2.feasible && res2.d2 > 1e-6;
			}
			if (res.feasible != res2.feasible || res.borderline || res2.borderline)
				continue;
			CHECK(res.n_violations == res2.n_violations);
			for (c = 0; c < res.n_violations && c < res2.n_violations; c++)
				CHECK(res.violations[c].index == res2.violations[c].index);
		}
		feas_model_stats(fm, &st);
		decided += st.prefiltered;
		feas_model_stats(lp, &st);
		CHECK(st.prefiltered == 0);
		feas_model_free(fm);
		feas_model_free(lp);
		cone_free(cone);
	}
	printf("  pre-filter: %zu %s (%zu infeasible, %zu feasible off the cone's "
	       "hull or on a face), %zu decided in closed form\n", boxes,
	       ellipsoid ? "ellipsoids" : "boxes", infeasible, on_face, decided);
	CHECK(infeasible > boxes / 10 && infeasible < boxes * 9 / 10);
	CHECK(decided > boxes / 3);
	CHECK(!ellipsoid || on_face > boxes / 10);
	feas_result_release(&res);
	feas_result_release(&res2);
}

static void test_prefilter(void)
{
	prefilter_trials(0);
}

static void test_prefilter_ellipsoid(void)
{
	prefilter_trials(1);
}


int main(void)
{
	check_prog = "test_feas_cone";
	RUN(test_random_cones);
	RUN(test_prefilter);
	RUN(test_prefilter_ellipsoid);
	feas_thread_end();
	return check_summary();
}
