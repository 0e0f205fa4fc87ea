/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_family.c: family-wise claims (pipeline/family.c) on
 * synthetic data of known truth.  A model whose cone is the line a = b,
 * and sweeps of 40 observations whose true means lie on it (so the model
 * is true): at 99% each, one of the 40 regions misses the line in about
 * one sweep in fourteen, while the claim "refuted at 99% over all 40" may be
 * false in at most 1% of sweeps.  And a model that is false by a wide
 * margin stays refuted at the family-wise level. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "pipeline/pipeline.h"
#include "tests/unit/check.h"

#define SWEEPS 400
#define OBS 40
#define INTERVALS 20

static const char model_text[] =
	"counter a \"A\";\ncounter b \"B\";\nuop u { incr a; incr b; done; }\n";

/* One sweep as a dataset in memory: per observation and interval a
 * spread along a - b only (sd 1 each), around the true mean (10^6,
 * 10^6 + shift): the PCA box's axes are the line's direction and the one
 * across it, and at 99% (Sidak over the 2 axes) it misses the line with
 * probability 1 - 0.99^(1/2) = 0.5% when the model is true. */
static char *sweep_text(gsl_rng *g, double shift, size_t *len)
{
	struct cp_buf b;
	size_t o, i;

	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns\n");
	for (o = 0; o < OBS; o++)
		for (i = 0; i < INTERVALS; i++) {
			double e = gsl_ran_gaussian(g, 1);

			cp_buf_printf(&b, "o%zu,%zu,A,%.6f,1000000000,1000000000\n", o, i,
				      1e6 + e);
			cp_buf_printf(&b, "o%zu,%zu,B,%.6f,1000000000,1000000000\n", o, i,
				      1e6 + shift - e);
		}
	*len = b.len;
	return b.data;
}

struct outcome {
	size_t infeasible, refuting;
};

/* The model against one sweep: observations infeasible at 99% each, and
 * those that refute it at 99% over all of them. */
static int one_sweep(const struct udd_model *m, const char *text, size_t len,
		     struct outcome *out, double *level)
{
	struct stats_dataset *d = NULL;
	struct pipe_data *pd = NULL;
	struct pipe_model *pm = NULL;
	struct pipe_family *fam = NULL;
	struct feas_result res[OBS];
	unsigned char refutes[OBS];
	struct pipe_options po;
	struct cp_error err;
	size_t i;
	int rc;

	memset(&po, 0, sizeof po);
	for (i = 0; i < OBS; i++)
		feas_result_init(&res[i]);
	cp_error_clear(&err);
	rc = stats_dataset_parse("sweep.csv", text, len, &d, NULL, &err);
	if (!rc)
		rc = pipe_data_new(m, d, &po, &pd, &err);
	if (!rc)
		rc = pipe_model_new(m, 0, pd, &PIPE_BUDGET_CHECK, &pm, &err);
	if (!rc)
		rc = pipe_check(pm, pd, 0, 1, res, NULL, NULL, NULL, &err);
	if (!rc)
		rc = pipe_family_new(pd, 0.99, OBS, &fam, &err);
	if (!rc)
		rc = pipe_family_check(fam, pm, res, 1, refutes, &out->refuting, NULL, &err);
	if (rc)
		printf("  %s\n", err.msg);
	out->infeasible = 0;
	for (i = 0; !rc && i < OBS; i++) {
		out->infeasible += !res[i].feasible;
		/* a refuting observation is an infeasible one */
		CHECK(!refutes[i] || !res[i].feasible);
	}
	if (fam)
		*level = pipe_family_level(fam);
	for (i = 0; i < OBS; i++)
		feas_result_release(&res[i]);
	pipe_family_free(fam);
	pipe_model_free(pm);
	pipe_data_free(pd);
	stats_dataset_free(d);
	return rc;
}

static void test_true_model_family_wise(void)
{
	struct udd_model *m = NULL;
	struct cp_error err;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	size_t s, each = 0, family = 0;
	double level = 0;

	gsl_rng_set(g, 4401);
	CHECKF(udd_model_parse_string("line.udd", model_text, sizeof model_text - 1,
				      &m, &err) == 0, "%s", err.msg);
	for (s = 0; m && s < SWEEPS; s++) {
		struct outcome o;
		size_t len;
		char *text = sweep_text(g, 0, &len);

		if (!text || one_sweep(m, text, len, &o, &level)) {
			cp_free(text);
			CHECK(0);
			break;
		}
		each += o.infeasible > 0;
		family += o.refuting > 0;
		cp_free(text);
	}
	printf("  true model, %d sweeps of %d observations: refuted at 99%% each "
	       "in %zu, at 99%% over all %d (each region at %.6f) in %zu\n",
	       SWEEPS, OBS, each, OBS, level, family);
	CHECK_NEAR(level, pow(0.99, 1.0 / OBS), 1e-12);
	/* at most 0.5% per observation (the split box's widths have fewer
	 * degrees of freedom than the whole run: 9% of sweeps, not 18%);
	 * family-wise at most 1% (binomial 400 x 0.01: more than 10 with
	 * probability 0.3%) */
	CHECKF(each >= 20, "per observation %zu", each);
	CHECKF(family <= 10, "family-wise %zu", family);
	udd_model_free(m);
	gsl_rng_free(g);
}

static void test_false_model_stays_refuted(void)
{
	struct udd_model *m = NULL;
	struct cp_error err;
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	struct outcome o = { 0, 0 };
	double level = 0;
	size_t len;
	char *text;

	gsl_rng_set(g, 4402);
	CHECKF(udd_model_parse_string("line.udd", model_text, sizeof model_text - 1,
				      &m, &err) == 0, "%s", err.msg);
	/* b above a by 11 sd of a - b's mean in every observation */
	text = sweep_text(g, 5.0, &len);
	CHECK(text && m && one_sweep(m, text, len, &o, &level) == 0);
	printf("  false model: %zu of %d observations infeasible at 99%% each, "
	       "%zu refute at 99%% over all\n", o.infeasible, OBS, o.refuting);
	CHECK(o.refuting > 0 && o.refuting <= o.infeasible);
	cp_free(text);
	udd_model_free(m);
	gsl_rng_free(g);
}

static void test_level(void)
{
	CHECK_NEAR(pipe_family_level_for(0.99, 0.99, 32), pow(0.99, 1.0 / 32), 1e-14);
	/* never below the regions' own level */
	CHECK(pipe_family_level_for(0.9, 0.99, 2) == 0.99);
	CHECK(pipe_family_level_for(0.99, 0.95, 1) == 0.99);
	{
		struct cp_buf b;

		cp_buf_init(&b);
		pipe_put_level(&b, 0.99);
		cp_buf_puts(&b, " ");
		pipe_put_level(&b, pow(0.99, 1.0 / 32));
		CHECK_STR(b.data, "99% 99.9685%");
		cp_buf_release(&b);
	}
}

int main(void)
{
	check_prog = "test_family";
	RUN(test_level);
	RUN(test_true_model_family_wise);
	RUN(test_false_model_stays_refuted);
	return check_summary();
}
