/* cli/flows.c: `counterpoint flows MODEL DATA --with F,...`: how much of
 * each feature the data need.  Per observation, uop and feature, the
 * smallest and largest flow on the μpaths the feature adds, as a rate per
 * second and as a share of the uop's μops, over region ∩ cone
 * (pipeline.h "flows").  Check's option vocabulary; text or JSON. */
#include <getopt.h>
#include <math.h>
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
	"  --json                machine-readable output (schema 1)\n"
	"  --threads N           worker threads (default: one per CPU)\n"
	"  -o, --output FILE     write the report to FILE (atomically)\n"
	"  -h, --help            this text\n"
	"\n"
	"exit status: 0 every usable observation bounded, 1 some infeasible (or\n"
	"without a flow at the boundary), 2 bad usage or input, 3 internal error\n";

static const char *status_name(enum pipe_flow_status s)
{
	switch (s) {
	case PIPE_FLOWS_BOUNDED: return "bounded";
	case PIPE_FLOWS_UNUSABLE: return "unusable";
	case PIPE_FLOWS_INFEASIBLE: return "infeasible";
	case PIPE_FLOWS_NO_FLOW: return "no_flow";
	}
	return "?";
}

/* v with `digits` significant digits, rounded down (dir < 0) or up: the
 * printed decimal, read back, lies on the right side of v. */
static void put_outward(struct cp_buf *b, double v, int digits, int dir)
{
	char s[64];
	double e, scale, r;
	int tries;

	if (!isfinite(v)) {
		cp_buf_puts(b, "?");
		return;
	}
	if (v == 0) {
		cp_buf_puts(b, "0");
		return;
	}
	e = floor(log10(fabs(v)));
	scale = pow(10, digits - 1 - e);
	r = dir < 0 ? floor(v * scale) : ceil(v * scale);
	for (tries = 0; tries < 4; tries++) {
		snprintf(s, sizeof s, "%.*g", digits + 1, r / scale);
		if (dir < 0 ? strtod(s, NULL) <= v : strtod(s, NULL) >= v)
			break;
		r += dir;
	}
	cp_buf_puts(b, s);
}

static void put_interval(struct cp_buf *b, double lo, double hi, double scale,
			 const char *unit)
{
	cp_buf_puts(b, "[");
	put_outward(b, lo * scale, 4, -1);
	cp_buf_printf(b, "%s, ", unit);
	put_outward(b, hi * scale, 4, 1);
	cp_buf_printf(b, "%s]", unit);
}

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
	size_t nf = pipe_flows_n_features(pf), i, u, f, any = 0;
	char *feats = udd_model_selection_str(r->model, r->sel);

	cp_buf_printf(b, "model %s, features: %s; %zu flow columns\n", r->model_path,
		      feats && feats[0] ? feats : "(none)", pipe_flows_n_columns(pf));
	cp_free(feats);
	for (u = 0; u < nu; u++) {
		if (!pipe_flows_n_uop_columns(pf, u))
			continue;
		cp_buf_printf(b, "  %s: %zu columns; shares per %s", pipe_flows_uop(pf, u),
			      pipe_flows_n_uop_columns(pf, u), pipe_flows_per(pf, u) ?
			      pipe_flows_per(pf, u) : "counted μop");
		for (f = 0; f < nf; f++)
			if (pipe_flows_n_needing(pf, u, f))
				cp_buf_printf(b, "; %s adds %zu", pipe_flows_feature(pf, f),
					      pipe_flows_n_needing(pf, u, f));
		cp_buf_puts(b, "\n");
		for (f = 0; f < nf; f++)
			any += pipe_flows_n_needing(pf, u, f) > 0;
	}
	if (!any)
		cp_buf_puts(b, "  (no feature adds a signature: nothing to bound)\n");
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
		cp_buf_printf(b, "  %-8s %-20s %-26s %s\n", "uop", "feature",
			      "rate (/s)", "share");
		for (u = 0; u < nu; u++)
			for (f = 0; f < nf; f++) {
				const struct pipe_flow_bounds *fb = &r->out[(i * nu + u) * nf + f];
				struct cp_buf cell;

				if (!pipe_flows_n_needing(pf, u, f))
					continue;
				cp_buf_init(&cell);
				put_interval(&cell, fb->rate.lo, fb->rate.hi, 1, "");
				cp_buf_printf(b, "  %-8s %-20s %-26s ", pipe_flows_uop(pf, u),
					      pipe_flows_feature(pf, f), cell.data ? cell.data : "");
				cp_buf_release(&cell);
				if (fb->share.defined)
					put_interval(b, fb->share.lo, fb->share.hi, 100, "%");
				else
					cp_buf_puts(b, "undefined (the region allows no μops)");
				if (fb->rate.inexact || fb->share.inexact)
					cp_buf_puts(b, "  (inexact optimum; bounds hold)");
				cp_buf_puts(b, "\n");
			}
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

static void json_num(struct cp_buf *b, double v)
{
	if (isfinite(v))
		cp_buf_printf(b, "%.17g", v);
	else
		cp_buf_puts(b, "null");
}

static void json_pair(struct cp_buf *b, const char *key, double lo, double hi)
{
	cp_buf_printf(b, ", \"%s\": [", key);
	json_num(b, lo);
	cp_buf_puts(b, ", ");
	json_num(b, hi);
	cp_buf_puts(b, "]");
}

static int report_json(struct report *r, struct cp_buf *b)
{
	const struct pipe_data *pd = r->pd;
	const struct pipe_flows *pf = r->pf;
	const struct pipe_options *o = pipe_data_options(pd);
	const struct stats_dataset *d = pipe_data_dataset(pd);
	size_t n = pipe_data_n_observations(pd), nu = pipe_flows_n_uops(pf);
	size_t nf = pipe_flows_n_features(pf), i, u, f;

	cp_buf_puts(b, "{\n\"schema\": 1,\n\"model\": ");
	cli_json_string(b, r->model_path);
	cp_buf_puts(b, ",\n\"data\": ");
	cli_json_string(b, r->data_path);
	cp_buf_puts(b, ",\n\"features\": [");
	for (f = 0; f < nf; f++) {
		cp_buf_puts(b, f ? ", " : "");
		cli_json_string(b, pipe_flows_feature(pf, f));
	}
	cp_buf_printf(b, "],\n\"region\": \"%s\",\n\"confidence\": %g,\n\"columns\": %zu,\n"
		      "\"uops\": {", cli_region_name(o->shape), o->confidence,
		      pipe_flows_n_columns(pf));
	for (u = 0; u < nu; u++) {
		cp_buf_puts(b, u ? ", " : "");
		cli_json_string(b, pipe_flows_uop(pf, u));
		cp_buf_printf(b, ": {\"columns\": %zu, \"per\": ", pipe_flows_n_uop_columns(pf, u));
		if (pipe_flows_per(pf, u))
			cli_json_string(b, pipe_flows_per(pf, u));
		else
			cp_buf_puts(b, "null");
		cp_buf_puts(b, ", \"features\": {");
		for (f = 0; f < nf; f++) {
			cp_buf_puts(b, f ? ", " : "");
			cli_json_string(b, pipe_flows_feature(pf, f));
			cp_buf_printf(b, ": %zu", pipe_flows_n_needing(pf, u, f));
		}
		cp_buf_puts(b, "}}");
	}
	cp_buf_puts(b, "},\n\"observations\": [");
	for (i = 0; i < n; i++) {
		r->n_status[r->status[i]]++;
		cp_buf_puts(b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		cli_json_string(b, stats_dataset_observation(d, i));
		cp_buf_printf(b, ", \"status\": \"%s\"", status_name(r->status[i]));
		if (r->status[i] == PIPE_FLOWS_UNUSABLE) {
			cp_buf_puts(b, ", \"unusable\": ");
			cli_json_string(b, pipe_data_unusable(pd, i));
		}
		if (r->status[i] != PIPE_FLOWS_BOUNDED) {
			cp_buf_puts(b, "}");
			continue;
		}
		cp_buf_puts(b, ", \"uops\": {");
		for (u = 0; u < nu; u++) {
			size_t shown = 0;

			cp_buf_puts(b, u ? ", " : "");
			cli_json_string(b, pipe_flows_uop(pf, u));
			cp_buf_puts(b, ": {");
			for (f = 0; f < nf; f++) {
				const struct pipe_flow_bounds *fb = &r->out[(i * nu + u) * nf + f];

				if (!pipe_flows_n_needing(pf, u, f))
					continue;
				cp_buf_puts(b, shown++ ? ", " : "");
				cli_json_string(b, pipe_flows_feature(pf, f));
				cp_buf_puts(b, ": {\"inexact\": ");
				cp_buf_puts(b, fb->rate.inexact || fb->share.inexact ? "true" : "false");
				json_pair(b, "rate", fb->rate.lo, fb->rate.hi);
				json_pair(b, "rate_attained", fb->rate.lo_at, fb->rate.hi_at);
				if (fb->share.defined) {
					json_pair(b, "share", fb->share.lo, fb->share.hi);
					json_pair(b, "share_attained", fb->share.lo_at, fb->share.hi_at);
				} else {
					cp_buf_puts(b, ", \"share\": null, \"share_attained\": null");
				}
				cp_buf_puts(b, "}");
			}
			cp_buf_puts(b, "}");
		}
		cp_buf_puts(b, "}}");
	}
	cp_buf_printf(b, "\n],\n\"summary\": {\"observations\": %zu, \"bounded\": %zu, "
		      "\"infeasible\": %zu, \"no_flow\": %zu, \"unusable\": %zu}\n}\n", n,
		      r->n_status[PIPE_FLOWS_BOUNDED], r->n_status[PIPE_FLOWS_INFEASIBLE],
		      r->n_status[PIPE_FLOWS_NO_FLOW], r->n_status[PIPE_FLOWS_UNUSABLE]);
	return b->failed ? -1 : 0;
}

/* Long only because getopt_long wants one case per option; the work is
 * the library pipeline (pipe_check for the verdicts, pipe_flows_bound
 * for the bounds). */
int cli_flows(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "with", required_argument, NULL, 'w' },
		{ "region", required_argument, NULL, 'r' },
		{ "confidence", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "batches", required_argument, NULL, 'b' },
		{ "per-interval", no_argument, NULL, 'p' },
		{ "counters", required_argument, NULL, 'C' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *with = NULL, *output = NULL;
	struct pipe_options po;
	size_t threads = 0, i, n = 0;
	int json = 0, opt, rc = CLI_OK;
	struct udd_model *model = NULL;
	struct stats_dataset *data = NULL;
	struct pipe_data *pd = NULL;
	struct pipe_model *pm = NULL;
	struct pipe_flows *pf = NULL;
	struct feas_result *res = NULL;
	struct pipe_flow_bounds *out = NULL;
	enum pipe_flow_status *status = NULL;
	udd_features sel = 0;
	struct cp_error err;
	struct cp_buf b;
	struct report rep;

	memset(&po, 0, sizeof po);
	memset(&rep, 0, sizeof rep);
	po.confidence = 0.99;
	po.shape = FEAS_PCA;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			with = optarg;
			break;
		case 'r':
			if (cli_parse_region("flows", optarg, &po.shape))
				return CLI_USAGE;
			break;
		case 'c':
			if (cli_parse_double("flows", "--confidence", optarg, 0.5, 0.999999,
					     &po.confidence))
				return CLI_USAGE;
			break;
		case 'j':
			json = 1;
			break;
		case 't':
			if (cli_parse_threads("flows", optarg, &threads))
				return CLI_USAGE;
			break;
		case 'b':
			if (cli_parse_batches("flows", optarg, &po.batches))
				return CLI_USAGE;
			break;
		case 'p':
			po.per_interval = 1;
			break;
		case 'C':
			po.counters = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(flows_help, stdout);
			return CLI_OK;
		default:
			return cli_bad_option("flows", opt, argv);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("flows", argc - optind < 2
				       ? "a MODEL and a DATA file are required"
				       : "only one MODEL and one DATA file are accepted");
	if (!with || !with[0])
		return cli_usage_error("flows", "--with names the features whose flows "
				       "to bound");
	rep.model_path = argv[optind];
	rep.data_path = argv[optind + 1];
	cp_error_clear(&err);
	cp_buf_init(&b);

	rc = cli_load_model("flows", rep.model_path, with, CLI_USAGE, &model, &sel);
	if (rc)
		return rc;
	if (stats_dataset_load(rep.data_path, &data, &err))
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
	/* verdicts first (no cone needed: feasibility only), then bounds */
	if (pipe_model_new(model, sel, pd, NULL, &pm, &err) ||
	    pipe_flows_new(model, sel, pd, &pf, &err))
		goto fail;
	res = cp_calloc(n + 1, sizeof *res);
	status = cp_calloc(n + 1, sizeof *status);
	out = cp_calloc(n * pipe_flows_n_uops(pf) * pipe_flows_n_features(pf) + 1,
			sizeof *out);
	if (!res || !status || !out) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++)
		feas_result_init(&res[i]);
	if (pipe_check(pm, pd, 0, threads, res, NULL, NULL, NULL, &err) ||
	    pipe_flows_bound(pf, pd, res, threads, out, status, &err))
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
	for (i = 0; res && i < n; i++)
		feas_result_release(&res[i]);
	cp_free(res);
	cp_free(status);
	cp_free(out);
	pipe_flows_free(pf);
	pipe_model_free(pm);
	pipe_data_free(pd);
	stats_dataset_free(data);
	udd_model_free(model);
	feas_thread_end();
	return rc;
}
