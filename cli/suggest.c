/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/suggest.c: `counterpoint suggest MODEL DATA`: the μpaths a refuted
 * model lacks.  Check's option vocabulary for the regions, the search of
 * explore/suggest.c, then text, JSON or a page.  Exit 0 when the first
 * suggestion explains every usable observation (or the model already
 * fits them all), 1 when none does, 2 bad usage or input, 3 internal
 * error. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#include "explore/explore.h"
#include "pipeline/pipeline.h"

static const char suggest_help[] =
	"usage: counterpoint suggest MODEL DATA [--with F,...] [--max-new N]\n"
	"                            [--max-edits E] [--keep K] [--max-checks C]\n"
	"                            [--region pca|independent|ellipsoid]\n"
	"                            [--confidence P] [--family-confidence P]\n"
	"                            [--batches B|auto|none]\n"
	"                            [--per-interval] [--counters C,...]\n"
	"                            [--threads N] [--json] [-o FILE]\n"
	"                            [--html FILE] [-v]\n"
	"\n"
	"When the data refute a model, propose the μpaths it lacks: sets of at\n"
	"most N new counter signatures, each E edits or fewer from a μpath of\n"
	"the same uop (drop one of its increment steps, add a counter increment,\n"
	"change a count by one), or one or two counters of the violated\n"
	"constraints.  Each violated constraint is a certificate (the cone keeps\n"
	"it, the whole region breaks it): a new signature helps only if it\n"
	"breaks it, and a set explains the data only if its signatures break\n"
	"every one.  Every set the certificates allow is checked; a suggestion\n"
	"'explains' an observation when the observation does not refute the\n"
	"model's signatures and the new ones by the rule of 'counterpoint\n"
	"check' (same regions, confidence, family-wise level and exact\n"
	"re-checks): feasible at --confidence, or at the level each of the n\n"
	"usable observations needs for --family-confidence over all of them;\n"
	"the search works on the regions at that level.  When no set explains\n"
	"them all, the report says so, what it tried, and the sets that\n"
	"explain the most.\n"
	"\n"
	"Ranked: explains the most, then fewer new signatures, fewer edits, the\n"
	"smallest flow the data force on the new μpaths (a share of the uop's\n"
	"μops, bounded as 'counterpoint flows' bounds it), fewer counters\n"
	"touched, fewer of the model's other constraints broken, and μpaths cut\n"
	"short before μpaths with more increments before the rest.  Each new\n"
	"μpath is printed with its uop, its counters, the nearest μpath of the\n"
	"model ('counterpoint paths --with F' numbers it) and the edits, its\n"
	"flow bounds, and a μDD fragment (a feature and a property of its own)\n"
	"placed where it leaves that μpath.\n"
	"\n"
	"options:\n"
	"  --with F,...          the model's features (all others off)\n"
	"  --max-new N           new signatures a suggestion, 1 to 3 (default 2)\n"
	"  --max-edits E         edits from a signature of the model (default 2)\n"
	"  --keep K              suggestions listed (default 5)\n"
	"  --max-checks C        observation checks the search may make (default\n"
	"                        50000); past it the claim is 'undecided'\n"
	"  --region SHAPE        pca (default), independent, or ellipsoid\n"
	"  --confidence P        confidence level of the regions (default 0.99)\n"
	"  --family-confidence P the level of the claims over the usable\n"
	"                        observations, as check's summary (default 0.99)\n"
	"  --batches B           batch means: B batches, 'none' or 'auto' (default)\n"
	"  --per-interval        regions for one interval, not for the mean\n"
	"  --counters C,...      use only these model counters (the cone is\n"
	"                        projected onto them)\n"
	"  --threads N           worker threads for the model's check and the\n"
	"                        kept suggestions' proofs (default: one per CPU)\n"
	"  --json                machine-readable output (docs/manual/suggest.md)\n"
	"  -o, --output FILE     write the report to FILE (atomically)\n"
	"  --html FILE           also write the report as a page for a browser\n"
	"  -v, --verbose         on standard error, how many candidates were\n"
	"                        priced, sets checked and suggestions proven\n"
	"  -h, --help            this text\n"
	"\n"
	"exit status: 0 the first suggestion explains every usable observation\n"
	"(or none refutes the model), 1 no suggestion does, 2 bad usage or\n"
	"input, 3 internal error\n";

/* Long only because getopt_long wants one case per option; the work is
 * the pipeline (regions) and explore_suggest_run. */
int cli_suggest(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_OPT_WITH, CLI_OPT_REGION, CLI_OPT_CONFIDENCE, CLI_OPT_FAMILY_CONFIDENCE,
		CLI_OPT_BATCHES, CLI_OPT_PER_INTERVAL, CLI_OPT_COUNTERS, CLI_OPT_THREADS,
		CLI_OPT_JSON, CLI_OPT_HTML,
		{ "max-new", required_argument, NULL, 'N' },
		{ "max-edits", required_argument, NULL, 'E' },
		{ "keep", required_argument, NULL, 'K' },
		{ "max-checks", required_argument, NULL, 'M' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *with, *output = NULL, *html, *model_path, *data_path;
	struct cli_data_options dop;
	struct explore_suggest_options so;
	struct pipe_options po;
	size_t threads, n;
	int json, verbose = 0, opt, rc = CLI_OK;
	struct udd_model *model = NULL;
	struct stats_dataset *data = NULL;
	struct pipe_data *pd = NULL;
	struct explore_suggest *s = NULL;
	struct cp_buf b, page;
	udd_features sel = 0;
	struct cp_error err;

	memset(&so, 0, sizeof so);
	cli_data_options_init(&dop);
	so.max_new = 2;
	so.max_edits = 2;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:hv", longopts, NULL)) != -1) {
		switch (opt) {
		case 'N':
			if (cli_parse_size("suggest", "--max-new", optarg, &so.max_new))
				return CLI_USAGE;
			if (so.max_new < 1 || so.max_new > EXPLORE_SUGGEST_MAX_NEW)
				return cli_usage_error("suggest", "--max-new: 1 to %d, not '%s'",
						       EXPLORE_SUGGEST_MAX_NEW, optarg);
			break;
		case 'E':
			if (cli_parse_size("suggest", "--max-edits", optarg, &so.max_edits))
				return CLI_USAGE;
			if (so.max_edits > 8)
				return cli_usage_error("suggest", "--max-edits: at most 8, not "
						       "'%s'", optarg);
			break;
		case 'K':
			if (cli_parse_count("suggest", "--keep", optarg, &so.keep))
				return CLI_USAGE;
			break;
		case 'M':
			if (cli_parse_count("suggest", "--max-checks", optarg, &so.max_checks))
				return CLI_USAGE;
			break;
		case 'o':
			output = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			fputs(suggest_help, stdout);
			return CLI_OK;
		default:
			if ((rc = cli_data_option("suggest", opt, optarg, argv, longopts, &dop)))
				return rc;
		}
	}
	cli_data_pipe_options(&dop, &po);
	with = dop.with;
	html = dop.html;
	json = dop.json;
	threads = dop.threads;
	so.family_confidence = dop.family_confidence;
	if ((rc = cli_model_and_data("suggest", argc, optind)))
		return rc;
	model_path = argv[optind];
	data_path = argv[optind + 1];
	{
		const struct cp_file_use files[] = {
			{ "MODEL", model_path, 0 }, { "DATA", data_path, 0 },
			{ "-o", output, 1 }, { "--html", html, 1 }
		};

		if ((rc = cli_files_distinct("suggest", files, 4)))
			return rc;
	}
	cp_error_clear(&err);
	cp_buf_init(&b);
	cp_buf_init(&page);
	so.threads = threads;
	po.threads = threads ? threads : feas_cpu_count();

	rc = cli_load_model("suggest", model_path, with, CLI_USAGE, &model, &sel);
	if (rc)
		return rc;
	if (stats_dataset_load_threads(data_path, po.threads, &data, NULL, &err))
		goto fail;
	cli_note_unread_events("suggest", data_path, model, data);
	/* the regions as `check` builds them */
	if (pipe_data_new(model, data, &po, &pd, &err))
		goto fail;
	n = pipe_data_n_observations(pd);
	if (n && pipe_data_n_unusable(pd) == n) {
		stats_observation_error(data, 0, CP_EINPUT, &err, "%.600s (no "
					"observation can form a region; this is the first)",
					pipe_data_unusable(pd, 0));
		goto fail;
	}
	if (explore_suggest_run(model, sel, pd, NULL, &so, &s, &err))
		goto fail;
	if (json)
		explore_suggest_json(s, model_path, data_path, &b);
	else
		explore_suggest_report(s, 0, 0, &b);
	if (b.failed) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	if (verbose) {
		struct cp_buf v;

		cp_buf_init(&v);
		explore_suggest_counts(s, &v);
		if (!v.failed)
			fprintf(stderr, "counterpoint suggest: %s\n", v.data);
		cp_buf_release(&v);
	}
	if (html && (rc = cli_html_suggest(model, model_path, data_path, s, &page)))
		goto out;
	{	/* the report and the page together: a failure writes neither */
		const char *paths[2] = { output, html };
		struct cp_buf *bufs[2] = { &b, &page };

		rc = cli_write_outputs("suggest", paths, bufs, html ? 2 : 1);
	}
	if (rc == CLI_OK && !explore_suggest_explains_all(s))
		rc = CLI_RESULT;
	goto out;
fail:
	rc = cli_print_error("suggest", &err);
out:
	cp_buf_release(&b);
	cp_buf_release(&page);
	explore_suggest_free(s);
	pipe_data_free(pd);
	stats_dataset_free(data);
	udd_model_free(model);
	feas_thread_end();
	return rc;
}
