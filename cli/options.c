/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/options.c: the options that the commands checking data share
 * (check, flows, explore, suggest, region), parsed and checked once. */
#include <getopt.h>
#include <string.h>

#include "cli/cli.h"
#include "pipeline/pipeline.h"

void cli_data_options_init(struct cli_data_options *o)
{
	memset(o, 0, sizeof *o);
	o->region = FEAS_PCA;
	o->confidence = 0.99;
	o->family_confidence = 0.99;
	o->plots = CLI_PLOTS_DEFAULT;
	o->violations = 5;
}

int cli_data_option(const char *cmd, int opt, const char *arg, char **argv,
		    const struct option *longopts, struct cli_data_options *o)
{
	switch (opt) {
	case CLI_O_WITH:
		o->with = arg;
		return CLI_OK;
	case CLI_O_REGION:
		return cli_parse_region(cmd, arg, &o->region);
	case CLI_O_CONFIDENCE:
		return cli_parse_double(cmd, "--confidence", arg, 0.5, 0.999999,
					&o->confidence);
	case CLI_O_FAMILY_CONFIDENCE:
		return cli_parse_double(cmd, "--family-confidence", arg, 0.5, 0.999999,
					&o->family_confidence);
	case CLI_O_BATCHES:
		return cli_parse_batches(cmd, arg, &o->batches);
	case CLI_O_PER_INTERVAL:
		o->per_interval = 1;
		return CLI_OK;
	case CLI_O_COUNTERS:
		o->counters = arg;
		return CLI_OK;
	case CLI_O_THREADS:
		return cli_parse_threads(cmd, arg, &o->threads);
	case CLI_O_JSON:
		o->json = 1;
		return CLI_OK;
	case CLI_O_HTML:
		o->html = arg;
		return CLI_OK;
	case CLI_O_PLOTS:
		return cli_parse_plots(cmd, arg, &o->plots);
	case CLI_O_VIOLATIONS:
		return cli_parse_size(cmd, "--violations", arg, &o->violations);
	default:
		return cli_bad_option(cmd, opt, argv, longopts);
	}
}

void cli_data_pipe_options(const struct cli_data_options *o, struct pipe_options *po)
{
	memset(po, 0, sizeof *po);
	po->confidence = o->confidence;
	po->batches = o->batches;
	po->per_interval = o->per_interval;
	po->shape = o->region;
	po->counters = o->counters;
}

int cli_model_and_data(const char *cmd, int argc, int optind)
{
	if (argc - optind == 2)
		return CLI_OK;
	return cli_usage_error(cmd, argc - optind < 2 ? "a MODEL and a DATA file are "
			       "required" : "only one MODEL and one DATA file are accepted");
}
