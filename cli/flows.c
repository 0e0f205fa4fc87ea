/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/flows.c: `counterpoint flows MODEL DATA --with F,...`: how much of
 * each feature the data need.  Per observation, uop and feature, the
 * smallest and largest flow on the μpaths the feature adds, as a rate per
 * second and as a share of the uop's μops, over region ∩ cone
 * (pipeline.h "flows").  Check's option vocabulary; text or JSON. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#include "pipeline/pipeline.h"

static const char flows_help[] =
	"usage: counterpoint flows MODEL DATA --with F,...\n"
	"                          [--region pca|independent|ellipsoid]\n"
	"                          [--confidence P] [--json] [--threads N]\n"
	"                          [--batches B|auto|none] [--per-interval]\n"
	"                          [--counters C,...] [-o FILE]\n"
	"\n"
	"How much of each feature the data need: for every feasible observation\n"
	"of DATA, each uop and each feature of --with, the smallest and largest\n"
	"flow the region and the model's cone allow on the μpaths the feature\n"
	"adds (the uop's signatures that no μpath has with the feature off), as a\n"
	"rate (per second, the regions' unit) and as a share of the uop's μops\n"
	"(per '<uop>.retired' when that counter is checked, else per μop of the\n"
	"uop that counts something).  Bounds come from LPs and are\n"
	"certified by their duals, rounded outward.  Infeasible observations get\n"
	"no bounds.\n"
	"\n"
	"options:\n"
	"  --with F,...          the model's features (all others off)\n"
	"  --region SHAPE        pca (default), independent, or ellipsoid (bounded\n"
	"                        through its enclosing box and tangent cuts)\n"
	"  --confidence P        confidence level of the regions (default 0.99)\n"
	"  --batches B           batch means: B batches, 'none' or 'auto' (default)\n"
	"  --per-interval        regions for one interval, not for the mean\n"
	"  --counters C,...      use only these model counters (the cone is\n"
	"                        projected onto them)\n"
	"  --json                machine-readable output (docs/manual/json.md)\n"
	"  --threads N           worker threads (default: one per CPU)\n"
	"  -o, --output FILE     write the report to FILE (atomically)\n"
	"  -h, --help            this text\n"
	"\n"
	"exit status: 0 every usable observation bounded, 1 some infeasible (or\n"
	"without a flow at the boundary), 2 bad usage or input, 3 internal error\n";

struct report {
	const char *model_path, *data_path;
	const struct udd_model *model;
	udd_features sel;
	const struct pipe_data *pd;
	const struct pipe_flows *pf;
	const struct pipe_flow_bounds *out;
	const enum pipe_flow_status *status;
	size_t n_status[4];
};

static int report_text(struct report *r, struct cp_buf *b)
{
	const struct pipe_data *pd = r->pd;
	const struct pipe_flows *pf = r->pf;
	const struct pipe_options *o = pipe_data_options(pd);
	const struct stats_dataset *d = pipe_data_dataset(pd);
	size_t n = pipe_data_n_observations(pd), nu = pipe_flows_n_uops(pf);
	size_t nf = pipe_flows_n_features(pf), i, any = 0;
	char *feats = udd_model_selection_str(r->model, r->sel);

	cp_buf_printf(b, "model %s, features: %s; %zu flow columns\n", r->model_path,
		      feats && feats[0] ? feats : "(none)", pipe_flows_n_columns(pf));
	cp_free(feats);
	any = pipe_flows_text_columns(pf, "  ", b);
	for (i = 0; i < n; i++) {
		const char *name = stats_dataset_observation(d, i);

		r->n_status[r->status[i]]++;
		switch (r->status[i]) {
		case PIPE_FLOWS_UNUSABLE:
			cp_buf_printf(b, "\n%s: unusable (%s)\n", name, pipe_data_unusable(pd, i));
			continue;
		case PIPE_FLOWS_INFEASIBLE:
			cp_buf_printf(b, "\n%s: INFEASIBLE (no flow bounds)\n", name);
			continue;
		case PIPE_FLOWS_NO_FLOW:
			cp_buf_printf(b, "\n%s: feasible at the boundary, but the LP finds no "
				      "flow (no bounds)\n", name);
			continue;
		case PIPE_FLOWS_BOUNDED:
			break;
		}
		cp_buf_printf(b, "\n%s: feasible\n", name);
		if (!any)
			continue;
		pipe_flows_text_rows(pf, &r->out[i * nu * nf], "  ", b);
	}
	cp_buf_printf(b, "\n%zu observation%s: %zu bounded, %zu infeasible", n,
		      n == 1 ? "" : "s", r->n_status[PIPE_FLOWS_BOUNDED],
		      r->n_status[PIPE_FLOWS_INFEASIBLE]);
	if (r->n_status[PIPE_FLOWS_NO_FLOW])
		cp_buf_printf(b, ", %zu without a flow", r->n_status[PIPE_FLOWS_NO_FLOW]);
	if (r->n_status[PIPE_FLOWS_UNUSABLE])
		cp_buf_printf(b, ", %zu unusable", r->n_status[PIPE_FLOWS_UNUSABLE]);
	cp_buf_printf(b, " (region %s, confidence %g)\n", cli_region_name(o->shape),
		      o->confidence);
	return b->failed ? -1 : 0;
}

static int report_json(struct report *r, struct cp_buf *b)
{
	pipe_flows_json_report(r->pf, r->pd, r->model_path, r->data_path, r->out,
			       r->status, r->n_status, b);
	return b->failed ? -1 : 0;
}

/* Long only because getopt_long wants one case per option; the work is
 * the library pipeline (pipe_check for the verdicts, pipe_flows_bound
 * for the bounds). */
int cli_flows(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_OPT_WITH, CLI_OPT_REGION, CLI_OPT_CONFIDENCE, CLI_OPT_JSON,
		CLI_OPT_THREADS, CLI_OPT_BATCHES, CLI_OPT_PER_INTERVAL, CLI_OPT_COUNTERS,
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *with, *output = NULL;
	struct cli_data_options dop;
	struct pipe_options po;
	size_t threads, n = 0;
	int json, opt, rc = CLI_OK;
	struct udd_model *model = NULL;
	struct stats_dataset *data = NULL;
	struct pipe_data *pd = NULL;
	struct pipe_flows *pf = NULL;
	struct pipe_flow_bounds *out = NULL;
	enum pipe_flow_status *status = NULL;
	udd_features sel = 0;
	struct cp_error err;
	struct cp_buf b;
	struct report rep;

	memset(&rep, 0, sizeof rep);
	cli_data_options_init(&dop);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(flows_help, stdout);
			return CLI_OK;
		default:
			if ((rc = cli_data_option("flows", opt, optarg, argv, longopts, &dop)))
				return rc;
		}
	}
	cli_data_pipe_options(&dop, &po);
	with = dop.with;
	json = dop.json;
	threads = dop.threads;
	if ((rc = cli_model_and_data("flows", argc, optind)))
		return rc;
	if (!with || !with[0])
		return cli_usage_error("flows", "--with names the features whose flows "
				       "to bound");
	rep.model_path = argv[optind];
	rep.data_path = argv[optind + 1];
	{
		const struct cp_file_use files[] = {
			{ "MODEL", rep.model_path, 0 }, { "DATA", rep.data_path, 0 },
			{ "-o", output, 1 }
		};

		if ((rc = cli_files_distinct("flows", files, 3)))
			return rc;
	}
	cp_error_clear(&err);
	cp_buf_init(&b);

	rc = cli_load_model("flows", rep.model_path, with, CLI_USAGE, &model, &sel);
	if (rc)
		return rc;
	if (stats_dataset_load_threads(rep.data_path, threads, &data, NULL, &err))
		goto fail;
	cli_note_unread_events("flows", rep.data_path, model, data);
	if (pipe_data_new(model, data, &po, &pd, &err))
		goto fail;
	n = pipe_data_n_observations(pd);
	if (n && pipe_data_n_unusable(pd) == n) {
		stats_observation_error(data, 0, CP_EINPUT, &err, "%.600s (no "
					"observation can form a region; this is the first)",
					pipe_data_unusable(pd, 0));
		goto fail;
	}
	if (pipe_flows_run(model, sel, pd, threads, &pf, &out, &status, &err))
		goto fail;
	rep.model = model;
	rep.sel = sel;
	rep.pd = pd;
	rep.pf = pf;
	rep.out = out;
	rep.status = status;
	if (json ? report_json(&rep, &b) : report_text(&rep, &b)) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	rc = cli_write_output("flows", output, &b);
	if (rc == CLI_OK && (rep.n_status[PIPE_FLOWS_INFEASIBLE] ||
			     rep.n_status[PIPE_FLOWS_NO_FLOW]))
		rc = CLI_RESULT;
	goto out;
fail:
	rc = cli_print_error("flows", &err);
out:
	cp_buf_release(&b);
	cp_free(status);
	cp_free(out);
	pipe_flows_free(pf);
	pipe_data_free(pd);
	stats_dataset_free(data);
	udd_model_free(model);
	feas_thread_end();
	return rc;
}
