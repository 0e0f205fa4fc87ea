/* bench/check_e2e.c: what a user of `counterpoint check` waits for, end to
 * end through the library pipeline (pipeline/pipeline.h): loading the CSV,
 * building every observation's region, the model (signatures, cone, LP),
 * and checking every observation, for each region shape, on one thread.
 * Prints the time of each step, microseconds per observation, and the
 * verdict counts (so a change that makes it fast by deciding wrongly
 * shows).  Figures only: nothing is asserted.
 *
 *   build/bench/check_e2e [MODEL [DATA [FEATURES]]]
 *   (defaults: models/haswell/mmu.udd datasets/sim-sweep-all.csv, no
 *   features) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pipeline/pipeline.h"

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *model_path = argc > 1 ? argv[1] : "models/haswell/mmu.udd";
	const char *data_path = argc > 2 ? argv[2] : "datasets/sim-sweep-all.csv";
	const char *with = argc > 3 ? argv[3] : NULL;
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
	printf("command: build/bench/check_e2e %s %s%s%s\n", model_path, data_path,
	       with ? " " : "", with ? with : "");
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
	for (shape = 0; shape < 3; shape++) {
		struct pipe_options po = { 0 };
		struct pipe_budget budget = PIPE_BUDGET_CHECK;
		struct pipe_data *pd = NULL;
		struct pipe_model *pm = NULL;
		struct feas_result *res;
		struct feas_stats st;
		double t1, t2, t3, t4;
		size_t n, i, infeasible = 0, usable;

		po.shape = (enum feas_shape)shape;
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
		       "%llu LP solves\n", shape_names[shape],
		       1e6 * (t2 - t1) / (double)n, t3 - t2,
		       pipe_model_has_facets(pm) ? "facets listed" : "certificates",
		       usable ? 1e6 * (t4 - t3) / (double)usable : 0.0, infeasible, usable,
		       (unsigned long long)st.prefiltered, (unsigned long long)st.lp_solves);
		for (i = 0; i < n; i++)
			feas_result_release(&res[i]);
		free(res);
		pipe_model_free(pm);
		pipe_data_free(pd);
	}
	feas_thread_end();
	stats_dataset_free(data);
	udd_model_free(model);
	return 0;
}
