/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_pipe_stream.c: the streamed check (pipe_check_stream,
 * what `counterpoint check` runs) gives what building every region and
 * then checking them (pipe_check) gives: the same usable observations and
 * reasons, the same verdicts, and the same explanations bit for bit, on
 * one, two and three threads.  The explanations from LP certificates
 * (no facets listed) depend on each LP's warm start, so they are the
 * same only if the stream checks the same chunks of usable observations
 * from a fresh LP in the same order; unusable observations sit just
 * before chunk boundaries so that a chunk counted over all observations
 * would differ.  A streamed dataset keeps only its regions' numbers, and
 * the pipeline refuses to check it twice or the other way. */
#include <stdio.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "tests/unit/check.h"

#include "solver/feas.h"
#include "stats/region.h"

#define N_OBS 700
#define N_INTERVALS 12

static int unusable(size_t o)
{
	return o == 3 || o == 250 || o == 255 || o == 256 || o == 511 || o == 600;
}

/* walk_basic.udd's four events; every seventh observation breaks
 * pde_miss <= causes_walk; an unusable one counts PDE_CACHE_MISS in one
 * interval only. */
static void add_observation(struct cp_buf *b, size_t o)
{
	double base = 1e6 * (1.0 + (double)(o % 17) / 10.0);
	long offset = o % 7 == 3 ? 1500 + 40 * (long)(o % 5) : -1500;
	size_t i;

	for (i = 0; i < N_INTERVALS; i++) {
		long noise = (long)((i * 37 + o * 11) % 101) - 50;
		long noise2 = (long)((i * 53 + o * 29) % 97) - 48;
		double walk = base + (double)noise;
		int counted = !unusable(o) || i == 4;

		cp_buf_printf(b, "o%zu,%zu,DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK,%.0f,"
			      "1000000000,1000000000\n", o, i, walk);
		cp_buf_printf(b, "o%zu,%zu,DTLB_LOAD_MISSES.WALK_COMPLETED,%.0f,"
			      "1000000000,1000000000\n", o, i, walk - (double)(noise2 & 7));
		cp_buf_printf(b, "o%zu,%zu,DTLB_LOAD_MISSES.PDE_CACHE_MISS,%.0f,"
			      "1000000000,%s\n", o, i, counted ? walk + (double)offset : 0,
			      counted ? "1000000000" : "0");
		cp_buf_printf(b, "o%zu,%zu,MEM_UOPS_RETIRED.ALL_LOADS,%.0f,"
			      "1000000000,1000000000\n", o, i,
			      1.5 * base + (double)(7 * noise2));
	}
}

static int same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof a);
}

/* Do two checks of the same data agree entirely?  Prints the first
 * difference. */
static int same_results(const struct pipe_data *pa, const struct feas_result *ra,
			const struct pipe_data *pb, const struct feas_result *rb,
			size_t k, const char *what)
{
	size_t i, j;

	if (pipe_data_n_unusable(pa) != pipe_data_n_unusable(pb)) {
		printf("  %s: %zu unusable, expected %zu\n", what,
		       pipe_data_n_unusable(pb), pipe_data_n_unusable(pa));
		return 0;
	}
	for (i = 0; i < pipe_data_n_observations(pa); i++) {
		const struct region *a = pipe_data_region(pa, i), *b = pipe_data_region(pb, i);
		const struct feas_result *x = &ra[i], *y = &rb[i];

		if (!a != !b || (!a && strcmp(pipe_data_unusable(pa, i),
					     pipe_data_unusable(pb, i)))) {
			printf("  %s: observation %zu: usable %d / %d, '%s' / '%s'\n", what,
			       i, !!a, !!b, a ? "" : pipe_data_unusable(pa, i),
			       b ? "" : pipe_data_unusable(pb, i));
			return 0;
		}
		if (!a)
			continue;
		if (!same_double(a->q, b->q) || a->rule != b->rule || a->n != b->n ||
		    x->feasible != y->feasible || x->borderline != y->borderline ||
		    x->undecided != y->undecided || !same_double(x->d2, y->d2) ||
		    !same_double(x->p_value, y->p_value) ||
		    x->n_violations != y->n_violations) {
			printf("  %s: observation %zu: verdict %d / %d, %zu / %zu "
			       "violations\n", what, i, x->feasible, y->feasible,
			       x->n_violations, y->n_violations);
			return 0;
		}
		for (j = 0; j < x->n_violations; j++) {
			const struct feas_violation *u = &x->violations[j], *v = &y->violations[j];

			if (u->index != v->index || u->is_equality != v->is_equality ||
			    u->is_facet != v->is_facet || u->exact != v->exact ||
			    !same_double(u->margin, v->margin) ||
			    !same_double(u->mean_sd, v->mean_sd) ||
			    memcmp(u->a, v->a, k * sizeof *u->a)) {
				printf("  %s: observation %zu: violation %zu differs "
				       "(margin %.17g / %.17g)\n", what, i, j, u->margin,
				       v->margin);
				return 0;
			}
		}
	}
	return 1;
}

static void test_stream_is_check(void)
{
	struct udd_model *m = NULL;
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf b;
	size_t o, shape, bi, t, i;
	static const struct pipe_budget budgets[2] = { PIPE_BUDGET_CHECK, { 0, 0 } };
	static const size_t threads[3] = { 1, 2, 3 };
	size_t n_infeasible = 0, n_derived = 0;

	cp_error_clear(&err);
	if (udd_model_parse_file("models/examples/walk_basic.udd", &m, &err)) {
		printf("  %s\n", err.msg);
		CHECK(0);
		return;
	}
	cp_buf_init(&b);
	cp_buf_puts(&b, "observation,interval,event,value,enabled_ns,running_ns\n");
	for (o = 0; o < N_OBS; o++)
		add_observation(&b, o);
	CHECK(!b.failed);
	CHECK(stats_dataset_parse("stream.csv", b.data, b.len, &d, NULL, &err) == 0);
	if (!d) {
		printf("  %s:%u: %s\n", err.file, err.line, err.msg);
		goto out;
	}
	for (shape = 0; shape < 3; shape++) {
		for (bi = 0; bi < 2; bi++) {
			struct pipe_options po;
			struct pipe_data *pd = NULL;
			struct pipe_model *pm = NULL;
			static struct feas_result want[N_OBS], got[N_OBS];
			size_t k;

			memset(&po, 0, sizeof po);
			po.shape = (enum feas_shape)shape;
			po.shape_only = 1;
			po.threads = 1;
			for (i = 0; i < N_OBS; i++)
				feas_result_init(&want[i]);
			CHECK(pipe_data_new(m, d, &po, &pd, &err) == 0);
			CHECK(pd && pipe_model_new(m, 0, pd, &budgets[bi], &pm, &err) == 0);
			CHECK(pm && pipe_check(pm, pd, FEAS_EXPLAIN, 1, want, NULL, NULL,
					       NULL, &err) == 0);
			if (!pm)
				goto next;
			k = pipe_data_n_counters(pd);
			CHECK(pipe_data_n_unusable(pd) == 6);
			for (i = 0; i < N_OBS; i++) {
				n_infeasible += pipe_data_region(pd, i) && !want[i].feasible;
				if (pipe_data_region(pd, i) && !want[i].feasible &&
				    want[i].n_violations &&
				    want[i].violations[0].index == FEAS_NO_INDEX)
					n_derived++;
			}
			for (t = 0; t < 3; t++) {
				struct pipe_options ps = po;
				struct pipe_data *sd = NULL;
				char what[64];

				snprintf(what, sizeof what, "shape %zu, budget %zu, %zu threads",
					 shape, bi, threads[t]);
				ps.stream = 1;
				ps.threads = threads[t];
				for (i = 0; i < N_OBS; i++)
					feas_result_init(&got[i]);
				CHECK(pipe_data_new(m, d, &ps, &sd, &err) == 0);
				CHECK(sd && pipe_data_region(sd, 0) == NULL);
				/* the regions are the stream's to build */
				CHECK(sd && pipe_check(pm, sd, FEAS_EXPLAIN, 1, got, NULL, NULL,
						       NULL, &err) == CP_EINTERNAL);
				CHECK(sd && pipe_check_stream(pm, sd, FEAS_EXPLAIN, threads[t],
							      got, NULL, NULL, NULL, &err) == 0);
				CHECKF(sd && same_results(pd, want, sd, got, k, what), "%s", what);
				for (i = 0; sd && i < N_OBS; i++)
					if (pipe_data_region(sd, i)) {
						CHECK(pipe_data_query(sd, i) == NULL);
						CHECK(pipe_data_region(sd, i)->cov == NULL);
					}
				/* once */
				CHECK(sd && pipe_check_stream(pm, sd, FEAS_EXPLAIN, threads[t],
							      got, NULL, NULL, NULL, &err) ==
				      CP_EINTERNAL);
				for (i = 0; i < N_OBS; i++)
					feas_result_release(&got[i]);
				pipe_data_free(sd);
			}
next:
			for (i = 0; i < N_OBS; i++)
				feas_result_release(&want[i]);
			pipe_model_free(pm);
			pipe_data_free(pd);
		}
	}
	/* the data test what they are meant to: violations, some explained
	 * from certificates */
	CHECKF(n_infeasible >= 100, "%zu infeasible", n_infeasible);
	CHECKF(n_derived >= 100, "%zu explained from certificates", n_derived);
out:
	feas_thread_end();
	stats_dataset_free(d);
	cp_buf_release(&b);
	udd_model_free(m);
}

int main(void)
{
	check_prog = "test_pipe_stream";
	RUN(test_stream_is_check);
	return check_summary();
}
