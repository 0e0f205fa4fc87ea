/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_explore_family.c: the real evaluator (signatures, LP,
 * regions) on a toy model family and a synthetic dataset whose answer is
 * known: the data need feature `extra` and nothing else. */
#include <stdio.h>
#include <string.h>

#include "explore/explore.h"
#include "tests/unit/check.h"

#include "solver/feas.h"
#include "stats/region.h"

/* Baseline: every hit is preceded by a lookup (hits <= lookups).  extra:
 * hits without a lookup.  useless: changes no signature. */
static const char toy_model[] =
	"counter lookups \"TOY.LOOKUPS\";\n"
	"counter hits \"TOY.HITS\";\n"
	"counter other \"TOY.OTHER\";\n"
	"property outcome { hit, miss };\n"
	"property kind { plain, odd };\n"
	"feature extra \"hits without a lookup\";\n"
	"feature useless \"changes nothing\";\n"
	"feature spare \"more of other\";\n"
	"uop access {\n"
	"    if (extra) {\n"
	"        switch (kind) { case odd: incr hits; done; case plain: go; }\n"
	"    }\n"
	"    if (useless) { nothing; }\n"
	"    if (spare) { incr other; }\n"
	"    incr lookups;\n"
	"    switch (outcome) { case hit: incr hits; case miss: missed; }\n"
	"    done;\n"
	"}\n";

/* One observation: n intervals of one second, rates around (l, h, o)
 * with a little deterministic noise; o < 0: no TOY.OTHER rows. */
static void add_observation(struct cp_buf *b, const char *name, double l,
			    double h, double o, unsigned *seed)
{
	static const char *const ev[3] = { "TOY.LOOKUPS", "TOY.HITS", "TOY.OTHER" };
	double mean[3] = { l, h, o < 0 ? 0 : o };
	int i, e;

	for (i = 0; i < 40; i++)
		for (e = 0; e < (o < 0 ? 2 : 3); e++) {
			double noise;

			*seed = *seed * 1103515245u + 12345u;
			noise = ((double)((*seed >> 8) % 2001) - 1000.0) / 1000.0;
			cp_buf_printf(b, "%s,%d,%s,%.0f,1000000000,1000000000\n",
				      name, i, ev[e], mean[e] * (1 + 0.01 * noise));
		}
}

struct fixture;
static int setup_other(struct fixture *fx, double hits_ratio, double other);

struct fixture {
	struct udd_model *m;
	struct stats_dataset *d;
	struct explore_family *fam;
	const char *names[3];
};

static int setup(struct fixture *fx, double hits_ratio)
{
	return setup_other(fx, hits_ratio, 0);
}

static int setup_other(struct fixture *fx, double hits_ratio, double other)
{
	struct cp_error err;
	struct cp_buf b;
	unsigned seed = 7;
	size_t i;
	int rc;

	memset(fx, 0, sizeof *fx);
	cp_error_clear(&err);
	rc = udd_model_parse_string("toy.udd", toy_model, sizeof toy_model - 1,
				    &fx->m, &err);
	CHECKF(rc == 0, "%s", err.msg);
	if (rc)
		return rc;
	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns\n");
	add_observation(&b, "fits", 10000, 6000, other, &seed);
	add_observation(&b, "needs-extra", 10000, 10000 * hits_ratio, other, &seed);
	add_observation(&b, "fits-too", 5000, 1000, other, &seed);
	rc = stats_dataset_parse("toy.csv", b.data, b.len, &fx->d, NULL, &err);
	cp_buf_release(&b);
	CHECKF(rc == 0, "%s", err.msg);
	if (rc)
		return rc;
	{
		/* without TOY.OTHER in the data, the policy (pipeline.h) is an
		 * error naming the counter, and --counters projects */
		struct explore_family_options o = { 0 };

		if (other < 0) {
			CHECK(explore_family_new(fx->m, fx->d, NULL, &fx->fam, &err) == CP_EINPUT);
			CHECK(strstr(err.msg, "'other' (event 'TOY.OTHER')") != NULL);
			o.counters = "lookups,hits";
		}
		rc = explore_family_new(fx->m, fx->d, &o, &fx->fam, &err);
	}
	CHECKF(rc == 0, "%s", err.msg);
	for (i = 0; i < 3; i++)
		fx->names[i] = udd_model_feature_name(fx->m, i);
	return rc;
}

static void teardown(struct fixture *fx)
{
	explore_family_free(fx->fam);
	stats_dataset_free(fx->d);
	udd_model_free(fx->m);
	feas_thread_end();
}

static const struct explore_model *model_with(const struct explore_search *s,
					      udd_features sel)
{
	size_t i;

	for (i = 0; i < explore_n_models(s); i++)
		if (explore_model_at(s, i)->features == sel)
			return explore_model_at(s, i);
	return NULL;
}

static void test_toy_needs_extra(void)
{
	struct fixture fx;
	struct explore_evaluator ev;
	struct explore_space space;
	struct explore_search *s = NULL;
	const struct explore_model *m;
	struct cp_error err;
	size_t i;
	int skipped_useless = 0;

	if (setup(&fx, 1.5))
		goto out;
	explore_family_evaluator(fx.fam, &ev);
	space.n_features = 3;
	space.names = fx.names;
	space.start = 0;
	space.candidates = 7;
	CHECKF(explore_run(&space, &ev, NULL, &s, &err) == 0, "%s", err.msg);
	if (!s)
		goto out;
	m = model_with(s, 0);
	CHECK(m && !m->feasible && m->eval.n_infeasible == 1 &&
	      m->eval.n_observations == 3);
	CHECK(m && m->eval.n_violations == 1);
	if (m && m->eval.n_violations == 1)
		CHECK_STR(m->eval.violations[0].constraint, "hits <= lookups");
	m = model_with(s, 1);
	CHECK(m && m->feasible && m->minimal);
	CHECK((explore_required(s) & ~1u) == 0);
	for (i = 0; i < explore_n_edges(s); i++) {
		const struct explore_edge *e = explore_edge_at(s, i);

		if (e->from == 0 && e->feature == 1)
			skipped_useless = e->step == EXPLORE_SKIP_SAME_CONE;
		if (e->from == 0 && e->feature == 2)
			CHECK(e->step == EXPLORE_SKIP_NO_RELAXATION);
	}
	CHECK(skipped_useless);
	CHECK(model_with(s, 2) == NULL);   /* spare: grows, relaxes nothing */
out:
	explore_free(s);
	teardown(&fx);
}

/* The same data without the odd observation: the baseline fits. */
static void test_toy_baseline_fits(void)
{
	size_t i;
	struct fixture fx;
	struct explore_evaluator ev;
	struct explore_space space;
	struct explore_search *s = NULL;
	struct cp_error err;
	struct cp_buf b;

	if (setup(&fx, 0.5))
		goto out;
	explore_family_evaluator(fx.fam, &ev);
	space.n_features = 3;
	space.names = fx.names;
	space.start = 0;
	space.candidates = 7;
	CHECKF(explore_run(&space, &ev, NULL, &s, &err) == 0, "%s", err.msg);
	if (!s)
		goto out;
	CHECK(explore_model_at(s, 0)->features == 0 && explore_model_at(s, 0)->minimal);
	/* extra and useless only add μpaths; spare adds `other` to every
	 * path, so the cone of {} is not within that of {spare} */
	CHECK(explore_monotonicity(s) && explore_monotonicity(s)->grows == 3 &&
	      explore_monotonicity(s)->shrinks == 4);
	/* {} fits: every model with extra or useless fits too (implied); the
	 * targeted checks test only the largest models with spare */
	for (i = 1; i < explore_n_models(s); i++)
		CHECK(explore_model_at(s, i)->origin == EXPLORE_TARGETED &&
		      (explore_model_at(s, i)->features & 4));
	CHECK(explore_undecided(s) == 0);
	cp_buf_init(&b);
	explore_conclusion(s, &b);
	CHECK(!b.failed && strstr(b.data, "The baseline explains the data: no feature is needed"));
	cp_buf_release(&b);
out:
	explore_free(s);
	teardown(&fx);
}

/* Exhaustive: 8 models, and feature sets with equal signatures share one
 * LP run ({useless} is evaluated as a copy of {}). */
static void test_toy_exhaustive(void)
{
	struct fixture fx;
	struct explore_evaluator ev;
	struct explore_space space;
	struct explore_options opt;
	struct explore_search *s = NULL;
	struct cp_error err;
	size_t models, facets, checked, checks;

	if (setup(&fx, 1.5))
		goto out;
	explore_family_evaluator(fx.fam, &ev);
	space.n_features = 3;
	space.names = fx.names;
	space.start = 0;
	space.candidates = 7;
	memset(&opt, 0, sizeof opt);
	opt.exhaustive = 1;
	CHECKF(explore_run(&space, &ev, &opt, &s, &err) == 0, "%s", err.msg);
	if (!s)
		goto out;
	CHECK(explore_n_models(s) == 8);
	CHECK(explore_required(s) == 1);
	CHECK((explore_impossible(s) & 1) == 0);
	explore_family_stats(fx.fam, &models, &facets, &checked, &checks);
	CHECK(models == 8);
	CHECK(checked == 4);
	CHECK(facets == 4);   /* a 3-counter cone is well within budget */
	CHECK(checks == 4 * 3);   /* 4 distinct signature sets x 3 observations */
out:
	explore_free(s);
	teardown(&fx);
}

/* A dataset without TOY.OTHER: the model is projected onto lookups and
 * hits, so `spare` (which only adds `other`) no longer changes the cone. */
static void test_toy_projection(void)
{
	struct fixture fx;
	struct explore_evaluator ev;
	struct explore_space space;
	struct explore_search *s = NULL;
	struct cp_error err;
	size_t i;
	int spare_same = 0;

	if (setup_other(&fx, 1.5, -1))
		goto out;
	CHECK(explore_family_n_missing(fx.fam) == 1);
	CHECK_STR(explore_family_missing(fx.fam, 0), "other");
	explore_family_evaluator(fx.fam, &ev);
	space.n_features = 3;
	space.names = fx.names;
	space.start = 0;
	space.candidates = 7;
	CHECKF(explore_run(&space, &ev, NULL, &s, &err) == 0, "%s", err.msg);
	if (!s)
		goto out;
	CHECK((explore_required(s) & ~1u) == 0);
	for (i = 0; i < explore_n_edges(s); i++) {
		const struct explore_edge *e = explore_edge_at(s, i);

		if (e->from == 0 && e->feature == 2)
			spare_same = e->step == EXPLORE_SKIP_SAME_CONE;
	}
	CHECK(spare_same);
out:
	explore_free(s);
	teardown(&fx);
}

int main(void)
{
	check_prog = "test_explore_family";
	RUN(test_toy_needs_extra);
	RUN(test_toy_baseline_fits);
	RUN(test_toy_exhaustive);
	RUN(test_toy_projection);
	return check_summary();
}
