/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench/flows.c: what a user of `counterpoint flows` waits for, through the
 * library pipeline (pipeline/pipeline.h): per region shape, the regions,
 * the feasibility check (no cone), the flow columns and the certified
 * bounds of every (observation, uop, feature), on one thread.  Prints the
 * time of each step, microseconds per bounded observation, how many
 * bounds the LP solved, and how many came out inexact (so a change that
 * gets fast by loosening the ellipsoid's cuts shows).  Figures only:
 * nothing is asserted.
 *
 *   build/bench/flows [MODEL [DATA [FEATURES]]]
 *   (defaults: models/haswell/mmu.udd datasets/sim-sweep-all.csv
 *   prefetch,prefetch_stlb_miss,prefetch_stores,merge,pde_early,
 *   pml4_cache,abort,replay,bypass: the simulator's ten switches as the
 *   model family names them) */
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
	const char *with = argc > 3 ? argv[3] :
		"prefetch,prefetch_stlb_miss,prefetch_stores,merge,pde_early,"
		"pml4_cache,abort,replay,bypass";
	static const char *const shape_names[] = { "pca", "independent", "ellipsoid" };
	struct udd_model *model = NULL;
	struct stats_dataset *data = NULL;
	udd_features sel = 0;
	struct cp_error err;
	int shape;

	cp_error_clear(&err);
	printf("bench/flows: %s %s %s (CPU time, one thread; the machine is shared)\n",
	       model_path, data_path, with);
	printf("command: build/bench/flows %s %s %s\n", model_path, data_path, with);
	if (udd_model_parse_file(model_path, &model, &err) ||
	    udd_model_select(model, with, &sel, &err) ||
	    stats_dataset_load(data_path, &data, &err)) {
		fprintf(stderr, "bench/flows: %s\n", err.msg);
		return 1;
	}
	for (shape = 0; shape < 3; shape++) {
		struct pipe_options po = { 0 };
		struct pipe_data *pd = NULL;
		struct pipe_model *pm = NULL;
		struct pipe_flows *pf = NULL;
		struct feas_result *res = NULL;
		struct pipe_flow_bounds *out = NULL;
		enum pipe_flow_status *st = NULL;
		double t0, t_reg, t_check, t_cols, t_bound;
		size_t n = 0, i, u, f, cells, bounded = 0, quantities = 0, inexact = 0;

		po.shape = (enum feas_shape)shape;
		t0 = cpu_seconds();
		if (pipe_data_new(model, data, &po, &pd, &err))
			goto fail;
		t_reg = cpu_seconds() - t0;
		n = pipe_data_n_observations(pd);
		res = calloc(n + 1, sizeof *res);
		st = calloc(n + 1, sizeof *st);
		for (i = 0; i < n; i++)
			feas_result_init(&res[i]);
		t0 = cpu_seconds();
		if (pipe_model_new(model, sel, pd, NULL, &pm, &err) ||
		    pipe_check(pm, pd, 0, 1, res, NULL, NULL, NULL, &err))
			goto fail;
		t_check = cpu_seconds() - t0;
		t0 = cpu_seconds();
		if (pipe_flows_new(model, sel, pd, &pf, &err))
			goto fail;
		t_cols = cpu_seconds() - t0;
		cells = pipe_flows_n_uops(pf) * pipe_flows_n_features(pf);
		out = calloc(n * cells + 1, sizeof *out);
		t0 = cpu_seconds();
		if (pipe_flows_bound(pf, pd, res, 1, out, st, &err))
			goto fail;
		t_bound = cpu_seconds() - t0;
		for (i = 0; i < n; i++) {
			if (st[i] != PIPE_FLOWS_BOUNDED)
				continue;
			bounded++;
			for (u = 0; u < pipe_flows_n_uops(pf); u++)
				for (f = 0; f < pipe_flows_n_features(pf); f++) {
					const struct pipe_flow_bounds *b = &out[i * cells +
						u * pipe_flows_n_features(pf) + f];

					if (!pipe_flows_n_needing(pf, u, f))
						continue;
					quantities += 2;
					inexact += b->rate.inexact + b->share.inexact;
				}
		}
		printf("%-11s  %zu columns; regions %.3f s, check %.3f s, columns %.3f s, "
		       "bounds %.3f s: %zu of %zu observations bounded (%.0f us each), "
		       "%zu rates and shares, %zu inexact\n", shape_names[shape],
		       pipe_flows_n_columns(pf), t_reg, t_check, t_cols, t_bound, bounded,
		       n, bounded ? 1e6 * t_bound / (double)bounded : 0.0, quantities,
		       inexact);
		goto next;
fail:
		fprintf(stderr, "bench/flows: %s: %s\n", shape_names[shape], err.msg);
next:
		for (i = 0; res && i < n; i++)
			feas_result_release(&res[i]);
		free(res);
		free(st);
		free(out);
		pipe_flows_free(pf);
		pipe_model_free(pm);
		pipe_data_free(pd);
	}
	stats_dataset_free(data);
	udd_model_free(model);
	feas_thread_end();
	return 0;
}
