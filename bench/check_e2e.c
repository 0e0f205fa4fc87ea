/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/check_e2e.c: what a user of `counterpoint check` waits for, end to
 * end through the library pipeline (pipeline/pipeline.h): loading the CSV,
 * building every observation's region (what its shape reads, as check
 * does without --html), the model (signatures, cone, LP),
 * and checking every observation, for each region shape, on one thread.
 * Prints the time of each step, microseconds per observation, and the
 * verdict counts (so a change that makes it fast by deciding wrongly
 * shows); the share of the regions' time spent reading the dataset (the
 * rates and resolutions of each observation); and, last, regions and
 * checks of the PCA box on THREADS threads against one, wall and CPU
 * time, streamed as check runs them (each region built, checked and
 * trimmed; the per-shape lines build them all first, to time each
 * step).  Each shape is measured in a child process, so that its
 * regions start in fresh memory as in a `check` run.  Figures only:
 * nothing is asserted.
 *
 *   build/bench/check_e2e [MODEL [DATA [FEATURES [THREADS]]]]
 *   (defaults: models/haswell/mmu.udd datasets/sim-sweep-all.csv, no
 *   features, 2 threads) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline/pipeline.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What building a region spends reading the dataset: the rates and the
 * resolutions of each observation's counters, as stats_observation_region
 * asks for them. */
static int time_reading(const struct udd_model *model, const struct stats_dataset *data)
{
	struct pipe_options po = { 0 };
	struct pipe_data *pd = NULL;
	struct cp_error err;
	size_t n = stats_dataset_n_observations(data), i, k;
	double t0, *res;

	cp_error_clear(&err);
	if (pipe_data_new(model, data, &po, &pd, &err)) {
		fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
		return 1;
	}
	k = pipe_data_n_counters(pd);
	res = calloc(k + 1, sizeof *res);
	t0 = cpu_seconds();
	for (i = 0; i < n; i++) {
		const char **events = calloc(k + 1, sizeof *events);
		double *rates = NULL;
		size_t j, nint;

		for (j = 0; j < k; j++)
			events[j] = udd_model_counter_event(model, pipe_data_columns(pd)[j]);
		if (!stats_observation_rates(data, i, events, k, &rates, &nint, &err))
			stats_observation_resolution(data, i, events, k, res, &err);
		free(rates);
		free(events);
	}
	printf("reading the dataset (rates, resolutions) %.1f us/obs of the regions' time\n",
	       1e6 * (cpu_seconds() - t0) / (double)n);
	free(res);
	pipe_data_free(pd);
	return 0;
}

/* Regions and checks (PCA box) on `threads` threads against one: wall
 * time is what threads buy, CPU time what they cost. */
static int time_threads(const struct udd_model *model, const struct stats_dataset *data,
			udd_features sel, size_t threads)
{
	size_t counts[2] = { 1, threads }, c;

	for (c = 0; c < 2; c++) {
		struct pipe_options po = { 0 };
		struct pipe_budget budget = PIPE_BUDGET_CHECK;
		struct pipe_data *pd = NULL;
		struct pipe_model *pm = NULL;
		struct feas_result *res;
		struct cp_error err;
		double w0, c0;
		size_t n, i;

		cp_error_clear(&err);
		po.threads = counts[c];
		po.shape_only = 1;
		po.stream = 1;   /* as check streams them */
		w0 = wall_seconds();
		c0 = cpu_seconds();
		if (pipe_data_new(model, data, &po, &pd, &err) ||
		    pipe_model_new(model, sel, pd, &budget, &pm, &err)) {
			fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
			return 1;
		}
		n = pipe_data_n_observations(pd);
		res = calloc(n + 1, sizeof *res);
		for (i = 0; i < n; i++)
			feas_result_init(&res[i]);
		if (pipe_check_stream(pm, pd, FEAS_EXPLAIN, counts[c], res, NULL, NULL, NULL,
				      &err)) {
			fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
			return 1;
		}
		printf("pca on %zu thread%s: regions, model and check %.3f s wall, %.3f s CPU\n",
		       counts[c], counts[c] == 1 ? "" : "s", wall_seconds() - w0,
		       cpu_seconds() - c0);
		for (i = 0; i < n; i++)
			feas_result_release(&res[i]);
		free(res);
		pipe_model_free(pm);
		pipe_data_free(pd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *model_path = argc > 1 ? argv[1] : "models/haswell/mmu.udd";
	const char *data_path = argc > 2 ? argv[2] : "datasets/sim-sweep-all.csv";
	const char *with = argc > 3 && argv[3][0] ? argv[3] : NULL;
	size_t threads = argc > 4 ? (size_t)strtoul(argv[4], NULL, 10) : 2;
	static const char *const shape_names[] = { "pca", "independent", "ellipsoid" };
	struct udd_model *model = NULL;
	struct stats_dataset *data = NULL;
	udd_features sel = 0;
	struct cp_error err;
	double t0, t_load;
	int shape;

	cp_error_clear(&err);
	printf("bench/check_e2e: %s %s %s (CPU time, one thread; the machine is shared)\n",
	       model_path, data_path, with ? with : "(no features)");
	printf("command: build/bench/check_e2e %s %s %s %zu\n", model_path, data_path,
	       with ? with : "''", threads);
	if (udd_model_parse_file(model_path, &model, &err) ||
	    (with && udd_model_select(model, with, &sel, &err))) {
		fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
		return 1;
	}
	t0 = cpu_seconds();
	if (stats_dataset_load(data_path, &data, &err)) {
		fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
		return 1;
	}
	t_load = cpu_seconds() - t0;
	printf("load: %.3f s for %zu observations (%.1f us each)\n", t_load,
	       stats_dataset_n_observations(data),
	       1e6 * t_load / (double)stats_dataset_n_observations(data));
	/* Each shape in a child process of its own: its regions then start
	 * in fresh memory, as a `check` run's do, whichever shape came
	 * before (in one process the first shape paid the page faults that
	 * the later ones reused, 30 us an observation on 8,400). */
	fflush(stdout);
	for (shape = 0; shape < 3; shape++) {
		struct pipe_options po = { 0 };
		pid_t child = fork();
		int status;

		if (child < 0) {
			perror("bench/check_e2e: fork");
			return 1;
		}
		if (child > 0) {
			if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) ||
			    WEXITSTATUS(status))
				return 1;
			continue;
		}
		struct pipe_budget budget = PIPE_BUDGET_CHECK;
		struct pipe_data *pd = NULL;
		struct pipe_model *pm = NULL;
		struct feas_result *res;
		struct feas_stats st;
		double t1, t2, t3, t4;
		size_t n, i, infeasible = 0, usable;

		po.shape = (enum feas_shape)shape;
		po.shape_only = 1;   /* as check does without --html */
		t1 = cpu_seconds();
		if (pipe_data_new(model, data, &po, &pd, &err)) {
			fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
			return 1;
		}
		t2 = cpu_seconds();
		if (pipe_model_new(model, sel, pd, &budget, &pm, &err)) {
			fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
			return 1;
		}
		t3 = cpu_seconds();
		n = pipe_data_n_observations(pd);
		usable = n - pipe_data_n_unusable(pd);
		res = calloc(n + 1, sizeof *res);
		for (i = 0; i < n; i++)
			feas_result_init(&res[i]);
		if (pipe_check(pm, pd, FEAS_EXPLAIN, 1, res, NULL, NULL, NULL, &err)) {
			fprintf(stderr, "bench/check_e2e: %s\n", err.msg);
			return 1;
		}
		t4 = cpu_seconds();
		for (i = 0; i < n; i++)
			infeasible += pipe_data_region(pd, i) && !res[i].feasible;
		feas_model_stats(pipe_model_solver(pm), &st);
		printf("%-11s regions %.1f us/obs, model %.3f s (%s), check %.1f us/obs; "
		       "%zu of %zu usable observations infeasible; %llu decided in closed form, "
		       "%llu LP solves (%llu shrink tests, %llu exact), %llu facet LPs\n",
		       shape_names[shape],
		       1e6 * (t2 - t1) / (double)n, t3 - t2,
		       pipe_model_has_facets(pm) ? "facets listed" : "certificates",
		       usable ? 1e6 * (t4 - t3) / (double)usable : 0.0, infeasible, usable,
		       (unsigned long long)st.prefiltered, (unsigned long long)st.lp_solves,
		       (unsigned long long)st.shrink_tests, (unsigned long long)st.exact_solves,
		       (unsigned long long)st.facet_lps);
		for (i = 0; i < n; i++)
			feas_result_release(&res[i]);
		free(res);
		pipe_model_free(pm);
		pipe_data_free(pd);
		feas_thread_end();
		fflush(stdout);
		_exit(0);
	}
	if (time_reading(model, data) || time_threads(model, data, sel, threads))
		return 1;
	feas_thread_end();
	stats_dataset_free(data);
	udd_model_free(model);
	return 0;
}
