/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_feas_large.c: large counts lose no violations.  On
 * models/examples/walk_basic.udd, load.pde_miss <= load.causes_walk is a
 * facet; observations where pde_miss = causes_walk + 1500 in every interval
 * break it by far more than their regions are wide, at any count level:
 * every region shape must find them infeasible at 10^6 and at 2^40..2^52
 * (where 1500 is below GLPK's relative tolerances of the counts), and the
 * true relation (causes_walk - 1500) feasible.  Through the pipeline, as
 * `counterpoint check` runs it.
 *
 * With the box LP's bounds relative to the counts (y in c +- h) and
 * glp_exact reading non-integral doubles approximately, the PCA box lost
 * the violation from 2^48 and the independent box from 2^44; the box LP
 * is now centred on the mean and its exact re-check reads integers. */
#include <stdio.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "tests/unit/check.h"

#include "solver/feas.h"
#include "stats/region.h"

#define N_INTERVALS 24

/* One observation at count level base: causes_walk = walk_done = base +
 * noise, pde_miss = causes_walk + offset, retired = 1.5 base + other
 * noise; one-second intervals (rate = count). */
static void add_observation(struct cp_buf *b, const char *name, double base,
			    long offset)
{
	int i;

	for (i = 0; i < N_INTERVALS; i++) {
		long noise = (i * 37) % 101 - 50, noise2 = (i * 53) % 97 - 48;
		double walk = base + (double)noise;

		cp_buf_printf(b, "%s,%d,DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK,%.0f,"
			      "1000000000,1000000000\n", name, i, walk);
		cp_buf_printf(b, "%s,%d,DTLB_LOAD_MISSES.WALK_COMPLETED,%.0f,"
			      "1000000000,1000000000\n", name, i, walk);
		cp_buf_printf(b, "%s,%d,DTLB_LOAD_MISSES.PDE_CACHE_MISS,%.0f,"
			      "1000000000,1000000000\n", name, i,
			      walk + (double)offset);
		cp_buf_printf(b, "%s,%d,MEM_UOPS_RETIRED.ALL_LOADS,%.0f,"
			      "1000000000,1000000000\n", name, i,
			      1.5 * base + (double)(7 * noise2));
	}
}

static const struct {
	const char *name;
	double base;
} levels[] = {
	{ "1e6", 1e6 }, { "2^40", 0x1p40 }, { "2^44", 0x1p44 },
	{ "2^46", 0x1p46 }, { "2^48", 0x1p48 }, { "2^50", 0x1p50 },
	{ "2^52", 0x1p52 },
};
#define N_LEVELS (sizeof levels / sizeof *levels)

static void test_large_counts(void)
{
	struct udd_model *m = NULL;
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf b;
	size_t i, shape;
	static const char *const shape_name[3] = { "pca", "independent", "ellipsoid" };

	cp_error_clear(&err);
	if (udd_model_parse_file("models/examples/walk_basic.udd", &m, &err)) {
		printf("  %s\n", err.msg);
		CHECK(0);
		return;
	}
	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns\n");
	for (i = 0; i < N_LEVELS; i++) {
		char name[64];

		snprintf(name, sizeof name, "violated-%s", levels[i].name);
		add_observation(&b, name, levels[i].base, 1500);
		snprintf(name, sizeof name, "true-%s", levels[i].name);
		add_observation(&b, name, levels[i].base, -1500);
	}
	CHECK(!b.failed);
	CHECK(stats_dataset_parse("large.csv", b.data, b.len, &d, NULL, &err) == 0);
	if (!d) {
		printf("  %s:%u: %s\n", err.file, err.line, err.msg);
		goto out;
	}
	for (shape = 0; shape < 3; shape++) {
		struct pipe_options po;
		struct pipe_data *pd = NULL;
		struct pipe_model *pm = NULL;
		struct feas_result res[2 * N_LEVELS];
		struct pipe_budget budget = PIPE_BUDGET_CHECK;

		memset(&po, 0, sizeof po);
		po.shape = (enum feas_shape)shape;
		po.batches = 1;
		for (i = 0; i < 2 * N_LEVELS; i++)
			feas_result_init(&res[i]);
		CHECK(pipe_data_new(m, d, &po, &pd, &err) == 0);
		CHECK(pd && pipe_model_new(m, 0, pd, &budget, &pm, &err) == 0);
		CHECK(pm && pipe_check(pm, pd, FEAS_EXPLAIN, 1, res, NULL, NULL,
				       NULL, &err) == 0);
		for (i = 0; pm && i < 2 * N_LEVELS; i++) {
			int want = i % 2;      /* violated first, then true */

			CHECKF(pipe_data_region(pd, i) && res[i].feasible == want,
			       "%s region, observation %s: %s, expected %s",
			       shape_name[shape],
			       stats_dataset_observation(d, i),
			       res[i].feasible ? "feasible" : "infeasible",
			       want ? "feasible" : "infeasible");
			if (!want && !res[i].feasible)
				CHECKF(res[i].n_violations >= 1,
				       "%s: no violated constraint listed",
				       stats_dataset_observation(d, i));
		}
		for (i = 0; i < 2 * N_LEVELS; i++)
			feas_result_release(&res[i]);
		pipe_model_free(pm);
		pipe_data_free(pd);
	}
out:
	feas_thread_end();
	stats_dataset_free(d);
	cp_buf_release(&b);
	udd_model_free(m);
}

int main(void)
{
	check_prog = "test_feas_large";
	RUN(test_large_counts);
	return check_summary();
}
