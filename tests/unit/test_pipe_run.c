/* SPDX-License-Identifier: GPL-3.0-or-later */
/* tests/unit/test_pipe_run.c: pipe_run, the one-call pipeline: verdicts
 * and violated constraints on a dataset with a known answer, its errors
 * (located), a dataset none of whose observations is usable, and every
 * allocation failure on the way (no leak, no crash, an error). */
#include <stdlib.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "tests/unit/check.h"

static const char *const model = "models/examples/walk_basic.udd";
static char dir[] = "/tmp/test_pipe_run.XXXXXX";
static char good_bad[256], bad_row[256], one_interval[256];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* "good": a PDE-cache miss for 30% of the walks; "bad": twice as many
 * PDE-cache misses as walks, which walk_basic's cone forbids. */
static void write_data(void)
{
	FILE *f;
	int o, i;

	snprintf(good_bad, sizeof good_bad, "%s/walks.csv", dir);
	snprintf(bad_row, sizeof bad_row, "%s/bad_row.csv", dir);
	snprintf(one_interval, sizeof one_interval, "%s/one.csv", dir);
	if (!(f = fopen(good_bad, "w")))
		return;
	fputs("observation,interval,event,value,enabled_ns,running_ns\n", f);
	for (o = 0; o < 2; o++)
		for (i = 0; i < 16; i++) {
			int w = 1000 + (i * 37) % 101;
			int p = o ? 2 * w + i % 3 : w * 3 / 10 + i % 3;
			const char *n = o ? "bad" : "good";

			fprintf(f, "%s,%d,DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK,%d,10,10\n", n, i, w);
			fprintf(f, "%s,%d,DTLB_LOAD_MISSES.PDE_CACHE_MISS,%d,10,10\n", n, i, p);
			fprintf(f, "%s,%d,DTLB_LOAD_MISSES.WALK_COMPLETED,%d,10,10\n", n, i, w);
			fprintf(f, "%s,%d,MEM_UOPS_RETIRED.ALL_LOADS,%d,10,10\n", n, i,
				200000 + (i * 7919) % 5003);
		}
	fclose(f);
	put(bad_row, "observation,interval,event,value,enabled_ns,running_ns\n"
	    "o,0,DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK,x,10,10\n");
	put(one_interval, "observation,interval,event,value,enabled_ns,running_ns\n"
	    "o,0,DTLB_LOAD_MISSES.MISS_CAUSES_A_WALK,1,10,10\n"
	    "o,0,DTLB_LOAD_MISSES.PDE_CACHE_MISS,1,10,10\n"
	    "o,0,DTLB_LOAD_MISSES.WALK_COMPLETED,1,10,10\n"
	    "o,0,MEM_UOPS_RETIRED.ALL_LOADS,1,10,10\n");
}

static void test_verdicts(void)
{
	struct cp_error err;
	struct pipe_run *r = NULL;

	cp_error_clear(&err);
	CHECKF(pipe_run(model, NULL, good_bad, NULL, 1, &r, &err) == CP_OK, "%s", err.msg);
	if (!r)
		return;
	CHECK(pipe_run_n_observations(r) == 2);
	CHECK_STR(pipe_run_observation(r, 0), "good");
	CHECK(pipe_run_verdict(r, 0) == PIPE_FEASIBLE);
	CHECK(pipe_run_n_violations(r, 0) == 0);
	CHECK(pipe_run_unusable(r, 0) == NULL);
	CHECK_STR(pipe_run_observation(r, 1), "bad");
	CHECK(pipe_run_verdict(r, 1) == PIPE_INFEASIBLE);
	CHECK(pipe_run_n_violations(r, 1) == 1);
	if (pipe_run_n_violations(r, 1) == 1) {
		CHECK_STR(pipe_run_violation(r, 1, 0), "load.pde_miss <= load.causes_walk");
		CHECK(pipe_run_result(r, 1)->violations[0].margin > 10);
	}
	CHECK(pipe_model_has_facets(pipe_run_model(r)));
	CHECK(pipe_model_n_facets(pipe_run_model(r)) == 3);
	CHECK(pipe_data_n_counters(pipe_run_data(r)) == 4);
	pipe_run_free(r);
}

/* On objects already loaded: the same verdicts and texts; the model and
 * dataset stay the caller's. */
static void test_borrowed(void)
{
	struct cp_error err;
	struct udd_model *m = NULL;
	struct stats_dataset *d = NULL;
	struct pipe_run *r = NULL;

	CHECK(udd_model_parse_file(model, &m, &err) == CP_OK);
	CHECK(stats_dataset_load(good_bad, &d, &err) == CP_OK);
	if (m && d)
		CHECKF(pipe_run_on(m, NULL, d, NULL, 1, &r, &err) == CP_OK, "%s", err.msg);
	if (r) {
		CHECK(pipe_run_verdict(r, 0) == PIPE_FEASIBLE);
		CHECK(pipe_run_verdict(r, 1) == PIPE_INFEASIBLE);
		CHECK(pipe_run_n_violations(r, 1) == 1 &&
		      !strcmp(pipe_run_violation(r, 1, 0), "load.pde_miss <= load.causes_walk"));
		CHECK(pipe_run_udd_model(r) == m);
	}
	pipe_run_free(r);
	CHECK(stats_dataset_n_observations(d) == 2);   /* still there */
	CHECK(pipe_run_on(m, "nope", d, NULL, 1, &r, &err) == CP_ESEMANTIC && !r);
	stats_dataset_free(d);
	udd_model_free(m);
}

/* The ellipsoid through opt: the same verdicts, with p-values. */
static void test_options(void)
{
	struct cp_error err;
	struct pipe_run *r = NULL;
	struct pipe_options o;

	memset(&o, 0, sizeof o);
	o.shape = FEAS_ELLIPSOID;
	o.confidence = 0.95;
	CHECKF(pipe_run(model, "", good_bad, &o, 1, &r, &err) == CP_OK, "%s", err.msg);
	if (!r)
		return;
	CHECK(pipe_run_verdict(r, 0) == PIPE_FEASIBLE);
	CHECK(pipe_run_verdict(r, 1) == PIPE_INFEASIBLE);
	CHECK(pipe_run_result(r, 1)->p_value < 0.05);
	pipe_run_free(r);
}

static void test_errors(void)
{
	struct cp_error err;
	struct pipe_run *r = (struct pipe_run *)&err;

	CHECK(pipe_run("no/such.udd", NULL, good_bad, NULL, 1, &r, &err) == CP_EIO);
	CHECK(r == NULL);
	CHECK(pipe_run(model, "nope", good_bad, NULL, 1, &r, &err) == CP_ESEMANTIC);
	CHECKF(strstr(err.msg, "'nope'") != NULL, "%s", err.msg);
	CHECK(pipe_run(model, NULL, bad_row, NULL, 1, &r, &err) == CP_EINPUT);
	CHECK(err.line == 2);
	CHECKF(strstr(err.msg, "not a number") != NULL, "%s", err.msg);
	CHECK(r == NULL);
}

static void test_unusable(void)
{
	struct cp_error err;
	struct pipe_run *r = NULL;

	CHECKF(pipe_run(model, NULL, one_interval, NULL, 1, &r, &err) == CP_OK, "%s", err.msg);
	if (!r)
		return;
	CHECK(pipe_run_n_observations(r) == 1);
	CHECK(pipe_run_verdict(r, 0) == PIPE_UNUSABLE);
	CHECK(pipe_run_unusable(r, 0) != NULL);
	pipe_run_free(r);
}

/* The nth allocation fails, for every n until a run needs no more: each
 * ends in an error or a complete run, never a crash or a leak (ASan). */
static void test_alloc_failures(void)
{
	struct cp_error err;
	unsigned long n;
	int done = 0;

	for (n = 1; n < 100000 && !done; n++) {
		struct pipe_run *r = NULL;
		int rc;

		cp_alloc_fail_at(n);
		rc = pipe_run(model, NULL, good_bad, NULL, 1, &r, &err);
		cp_alloc_fail_at(0);
		if (rc == CP_OK) {
			CHECK(pipe_run_verdict(r, 1) == PIPE_INFEASIBLE);
			done = 1;
		} else {
			CHECK(r == NULL);
		}
		pipe_run_free(r);
	}
	CHECKF(done && n > 10, "a run without failures after %lu allocations", n);
}

/* The one point-in-cone test: cone{(1,0,0,0), (1,1,0,0)} on the data's
 * four counters, decided by the solver, by the exact cone under a
 * budget (with the constraint s breaks), and for the cone {0}. */
static void test_contains(void)
{
	static const uint32_t S[] = { 1, 0, 0, 0, 1, 1, 0, 0 };
	static const uint32_t in[] = { 3, 1, 0, 0 }, row[] = { 1, 1, 0, 0 },
		out1[] = { 0, 1, 0, 0 }, out2[] = { 1, 0, 2, 0 }, zero[4] = { 0 };
	struct pipe_budget budget = { 100, 5 };
	struct pipe_model *pm = NULL;
	struct pipe_run *r = NULL;
	struct cp_error err;
	int64_t a[4];
	int inside, is_eq, pass;

	CHECKF(pipe_run(model, NULL, good_bad, NULL, 1, &r, &err) == CP_OK, "%s", err.msg);
	if (!r)
		return;
	for (pass = 0; pass < 2; pass++) {
		const struct pipe_budget *b = pass ? &budget : NULL;

		CHECK(pipe_model_new_from(0, S, 2, pipe_run_data(r), NULL, &pm, &err) == CP_OK);
		CHECK(pipe_model_contains(pm, in, b, &inside, a, &is_eq, &err) == CP_OK && inside == 1);
		CHECK(pipe_model_contains(pm, row, b, &inside, a, &is_eq, &err) == CP_OK && inside == 1);
		CHECK(pipe_model_contains(pm, out1, b, &inside, a, &is_eq, &err) == CP_OK && inside == 0);
		if (b)   /* x0 - x1 >= 0 (or a multiple): every row keeps it, out1 breaks it */
			CHECK(!is_eq && a[0] > 0 && a[1] == -a[0]);
		CHECK(pipe_model_contains(pm, out2, b, &inside, a, &is_eq, &err) == CP_OK && inside == 0);
		if (b)   /* x2 = 0 */
			CHECK(a[2] != 0 && a[0] == 0 && a[1] == 0);
		CHECK(pipe_model_has_facets(pm) == pass);   /* the exact cone was built */
		pipe_model_free(pm);
		pm = NULL;
	}
	CHECK(pipe_model_new_from(0, S, 0, pipe_run_data(r), NULL, &pm, &err) == CP_OK);
	CHECK(pipe_model_contains(pm, zero, &budget, &inside, a, &is_eq, &err) == CP_OK && inside == 1);
	CHECK(pipe_model_contains(pm, out1, &budget, &inside, a, &is_eq, &err) == CP_OK && inside == 0);
	CHECK(!is_eq && a[1] == -1 && a[0] == 0 && a[2] == 0);   /* -x1 >= 0 */
	pipe_model_free(pm);
	pipe_run_free(r);
}

int main(void)
{
	check_prog = "test_pipe_run";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	write_data();
	RUN(test_verdicts);
	RUN(test_borrowed);
	RUN(test_options);
	RUN(test_contains);
	RUN(test_errors);
	RUN(test_unusable);
	RUN(test_alloc_failures);
	unlink(good_bad);
	unlink(bad_row);
	unlink(one_interval);
	rmdir(dir);
	feas_thread_end();
	return check_summary();
}
