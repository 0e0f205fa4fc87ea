/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/explore.c: `counterpoint explore`: which feature sets of a μDD model
 * family agree with a dataset.  Discovery from a starting model, then
 * elimination (or every subset with --exhaustive); the report lists every
 * model tested and ends with a conclusion in plain words. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "explore/explore.h"
#include "report/report.h"

#include "solver/feas.h"
#include "stats/region.h"

static const char usage_text[] =
	"usage: counterpoint explore MODEL DATA [--features F,...] [--candidates F,...]\n"
	"                            [--region pca|independent|ellipsoid]\n"
	"                            [--confidence C] [--family-confidence C]\n"
	"                            [--batches B|auto|none]\n"
	"                            [--per-interval] [--tolerance N]\n"
	"                            [--exhaustive] [--deep] [--max-models N]\n"
	"                            [--cone-seconds S] [--threads N] [--counters C,...]\n"
	"                            [--monotone-models N] [--no-targeted] [--no-flows]\n"
	"                            [--violations N] [-o REPORT] [--dot FILE]\n"
	"                            [--json] [--html FILE] [--plots N|all] [-v]\n"
	"\n"
	"Search the feature space of a μDD model family for the models that agree\n"
	"with the counters in DATA (a long-CSV dataset).  Discovery starts from\n"
	"--features (default: none, the baseline) and, while a model is refuted,\n"
	"tries adding each feature whose cone relaxes a constraint the data\n"
	"violate (features that do not grow the cone are skipped).  Elimination\n"
	"then prunes features one at a time from every feasible model until\n"
	"pruning refutes it.  The report lists every model tested (features,\n"
	"infeasible observations, violated constraints) and only the claims\n"
	"those verdicts prove: a feature is required when every model of the\n"
	"family without it is refuted, impossible when every model with it is,\n"
	"a model minimal when every sub-model is refuted; features the data\n"
	"allow either way are named, and what untested models leave open is\n"
	"'undecided' (--exhaustive decides it).  No model is built twice.  Each\n"
	"verdict per observation is at --confidence; a model counts as refuted,\n"
	"and every claim holds, at --family-confidence over all the observations\n"
	"(the report gives both where they differ).\n"
	"\n"
	"Before the search, explore decides exactly which features can only grow\n"
	"the cone (adding one never loses a signature's direction, over every model\n"
	"of the family) and which can shrink it (trigger variants: alternatives of\n"
	"one choice).  Verdicts then follow from others: a model inside a refuted\n"
	"one by cone-growing features is refuted, one containing a feasible one is\n"
	"feasible.  After discovery and elimination, targeted checks test the\n"
	"largest models without and with each feature (one per alternative): all\n"
	"refuted proves it required (impossible), so the default search decides\n"
	"what --exhaustive would.  The report names the model and observation\n"
	"behind each claim, a 'counterpoint check' line for each undecided one, and\n"
	"for each pair of minimal models the constraint that separates them, the\n"
	"μpaths that break it and each observation's margin on it.  For each proven\n"
	"minimal model it bounds the flows, as 'counterpoint flows --with' the\n"
	"model does: per observation the model fits, uop and feature, the rate and\n"
	"the share of the uop's μops on the μpaths the feature adds.\n"
	"\n"
	"options:\n"
	"  --features F,...    starting model (default: no features)\n"
	"  --candidates F,...  features the search may add or prune (default: all;\n"
	"                      claims are proven for at most 24 of them)\n"
	"  --region KIND       confidence region: pca (default), independent,\n"
	"                      ellipsoid\n"
	"  --confidence C      confidence level of the regions (default 0.99)\n"
	"  --family-confidence C  level of every claim over all the observations\n"
	"                      (default 0.99): a model counts as refuted only\n"
	"                      where an observation's region at C^(1/n) (n\n"
	"                      observations) misses its cone too\n"
	"  --batches B         'auto' (the default: a long-run covariance when\n"
	"                      the intervals are autocorrelated), 'none' (every\n"
	"                      interval an independent sample) or B batch means\n"
	"  --per-interval      regions for one interval, not for the mean\n"
	"  --tolerance N       a model refuted by at most N observations still\n"
	"                      counts as feasible (default 0)\n"
	"  --exhaustive        test every subset of the candidates instead (at\n"
	"                      most 16 candidates)\n"
	"  --deep              keep discovering past the first feasible level\n"
	"  --max-models N      evaluate at most N models (default 4096)\n"
	"  --cone-seconds S    time budget for a model's exact facets (default 5;\n"
	"                      0: never; without facets, violated constraints come\n"
	"                      from the solver's certificates)\n"
	"  --threads N         worker threads (default: one per CPU)\n"
	"  --counters C,...    use only these model counters (the model is\n"
	"                      projected onto them); without it every model\n"
	"                      counter must be in DATA\n"
	"  --monotone-models N decide monotonicity when the family has at most N\n"
	"                      models (default 1024; 0: never, claims then rest on\n"
	"                      checked verdicts only)\n"
	"  --no-targeted       skip the targeted checks after elimination\n"
	"  --no-flows          do not bound the minimal models' flows\n"
	"  --violations N      list at most N violated constraints a refuted\n"
	"                      model, those the most observations violate first\n"
	"                      (default 5; 0: every one; --json has every one)\n"
	"  -o, --output FILE   write the report to FILE (default standard output)\n"
	"  --dot FILE          write the search as a Graphviz digraph\n"
	"  --html FILE         also write a report for a browser: one\n"
	"                      self-contained page with the search drawn (by\n"
	"                      Graphviz's dot), the models tested and the claims\n"
	"                      with their proofs\n"
	"  --plots N|all       flow bars in the --html page for the first N\n"
	"                      observations of each minimal model (default 50;\n"
	"                      all: every one)\n"
	"  --json              the report as JSON (docs/manual/json.md: the\n"
	"                      models with their verdicts, minimal, required,\n"
	"                      impossible, either, undecided, monotonicity,\n"
	"                      proofs, undecided_checks,\n"
	"                      alternatives; each minimal model's flows as\n"
	"                      'flows --json' gives them)\n"
	"  -v, --verbose       on standard error, the CPU time of each phase\n"
	"                      (regions, signatures, facets, region checks, ...)\n"
	"                      and what the solver did (checks, pre-filtered,\n"
	"                      LP solves, facet LPs)\n"
	"  -h, --help          this text\n"
	"\n"
	"exit status: 0 some model agrees with the data, 1 none does, 2 bad usage\n"
	"or input, 3 internal error\n";


/* On a terminal: the models whose verdict is known out of the family
 * (when the family is small enough to count them cheaply) and the
 * checks run. */
struct search_progress {
	struct cli_progress line;
	int count_known;      /* a family of at most 2^16 models */
};

static void search_progress(void *ctx, const struct explore_search *s)
{
	struct search_progress *sp = ctx;
	struct cli_progress *p = &sp->line;
	struct explore_claim_basis cb;

	if (!cli_progress_due(p))
		return;
	cb.enumerable = 0;
	if (sp->count_known)
		explore_claim_basis(s, &cb);
	if (cb.enumerable)
		cli_progress_show(p, "%zu/%zu models known, %zu checked", cb.known,
				  cb.universe, explore_n_models(s));
	else
		cli_progress_show(p, "%zu models checked", explore_n_models(s));
}

static const char *const region_names[] = { "pca box", "independent box",
					    "ellipsoid" };

/* -v: where the CPU time went, every phase (they sum to the total). */
static void print_phases(const struct explore_family *fam)
{
	double cpu[EXPLORE_N_PHASES], total = 0;
	struct feas_stats st;
	size_t i;

	explore_family_phases(fam, cpu);
	fputs("counterpoint explore: CPU seconds by phase:", stderr);
	for (i = 0; i < EXPLORE_N_PHASES; i++) {
		fprintf(stderr, "%s %s %.3f", i ? "," : "",
			explore_phase_name((enum explore_phase)i), cpu[i]);
		total += cpu[i];
	}
	fprintf(stderr, "; total %.3f\n", total);
	explore_family_solver_stats(fam, &st);
	fprintf(stderr, "counterpoint explore: solver: %" PRIu64 " checks, %" PRIu64
		" decided without an LP, %" PRIu64 " LP solves (%" PRIu64
		" simplex iterations), %" PRIu64 " exact re-solves, %" PRIu64
		" shrink tests, %" PRIu64 " facet LPs, %" PRIu64 " facets verified\n",
		st.checks, st.prefiltered, st.lp_solves, st.iterations,
		st.exact_solves, st.shrink_tests, st.facet_lps, st.facets_verified);
}

/* No model fits: the μpaths the best one lacks, as `counterpoint suggest`
 * proposes them (its defaults, the first three). */
static int suggestions(struct explore_family *fam, const struct explore_search *s,
		       size_t threads, struct cp_buf *b)
{
	struct explore_suggest_options xo = { 2, 2, 3, 0, threads, 0 };
	struct explore_suggest *sg = NULL;
	struct cp_error err;
	udd_features best;

	cp_error_clear(&err);
	if (explore_family_suggest(fam, s, &xo, &best, &sg, &err))
		return cli_print_error("explore", &err);
	cp_buf_puts(b, "suggested μpaths for the best model, ");
	explore_format_features(s, best, b);
	cp_buf_puts(b, " ('counterpoint suggest --with' it for the whole report):\n");
	explore_suggest_report(sg, 3, 1, b);
	explore_suggest_free(sg);
	return CLI_OK;
}

/* Long only because getopt_long wants one case per option; the work is
 * in the library and in the report writers above. */
int cli_explore(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_OPT_REGION, CLI_OPT_CONFIDENCE, CLI_OPT_FAMILY_CONFIDENCE,
		CLI_OPT_BATCHES, CLI_OPT_PER_INTERVAL, CLI_OPT_THREADS, CLI_OPT_COUNTERS,
		CLI_OPT_HTML, CLI_OPT_PLOTS, CLI_OPT_JSON, CLI_OPT_VIOLATIONS,
		{ "features", required_argument, NULL, 'f' },
		{ "candidates", required_argument, NULL, 'c' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "exhaustive", no_argument, NULL, 'x' },
		{ "deep", no_argument, NULL, 'D' },
		{ "max-models", required_argument, NULL, 'M' },
		{ "cone-seconds", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "dot", required_argument, NULL, 'g' },
		{ "monotone-models", required_argument, NULL, 'N' },
		{ "no-targeted", no_argument, NULL, 'G' },
		{ "no-flows", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *features = NULL, *candidates = NULL, *output = NULL;
	const char *dot = NULL, *html, *region_arg = NULL, *confidence_arg = NULL;
	const char *batches_arg = NULL;
	int json;
	size_t mono_models = 1024, max_violations, plots;
	struct cli_data_options dop;
	struct cp_buf cmd;
	struct explore_family_options fo;
	struct explore_options so;
	struct search_progress progress;
	struct explore_space space;
	struct explore_evaluator ev;
	struct udd_model *m = NULL;
	struct stats_dataset *d = NULL;
	struct explore_family *fam = NULL;
	struct explore_search *s = NULL;
	const char **names = NULL;
	struct cp_error err;
	struct cp_buf b, g, page;
	double cone_seconds = 5, t0;
	size_t i, n_models, n_facets, n_checked, n_checks, n_obs;
	int opt, rc, verbose = 0;

	memset(&fo, 0, sizeof fo);
	memset(&so, 0, sizeof so);
	cli_data_options_init(&dop);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":ho:v", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': features = optarg; break;
		case 'c': candidates = optarg; break;
		case 't':
			if (cli_parse_size("explore", "--tolerance", optarg, &so.tolerance))
				return CLI_USAGE;
			break;
		case 'x': so.exhaustive = 1; break;
		case 'D': so.deep = 1; break;
		case 'M':
			if (cli_parse_count("explore", "--max-models", optarg, &so.max_models))
				return CLI_USAGE;
			break;
		case 's':
			if (cli_parse_double("explore", "--cone-seconds", optarg,
					     0, 1e6, &cone_seconds))
				return CLI_USAGE;
			break;
		case 'o': output = optarg; break;
		case 'g': dot = optarg; break;
		case 'N':
			if (cli_parse_size("explore", "--monotone-models", optarg, &mono_models))
				return CLI_USAGE;
			break;
		case 'G': so.no_targeted = 1; break;
		case 'F': so.no_flows = 1; break;
		case 'v': verbose = 1; break;
		case 'h': fputs(usage_text, stdout); return CLI_OK;
		default:
			if ((rc = cli_data_option("explore", opt, optarg, argv, longopts, &dop)))
				return rc;
			if (opt == CLI_O_REGION)
				region_arg = optarg;
			else if (opt == CLI_O_CONFIDENCE)
				confidence_arg = optarg;
			else if (opt == CLI_O_BATCHES)
				batches_arg = optarg;
		}
	}
	fo.region = (int)dop.region;
	fo.confidence = dop.confidence;
	fo.family_confidence = dop.family_confidence;
	fo.batches = dop.batches;
	fo.per_interval = dop.per_interval;
	fo.threads = dop.threads;
	fo.counters = dop.counters;
	html = dop.html;
	plots = dop.plots;
	json = dop.json;
	max_violations = dop.violations;
	if ((rc = cli_model_and_data("explore", argc, optind)))
		return rc;
	{
		const struct cp_file_use files[] = {
			{ "MODEL", argv[optind], 0 }, { "DATA", argv[optind + 1], 0 },
			{ "-o", output, 1 }, { "--dot", dot, 1 }, { "--html", html, 1 }
		};

		if ((rc = cli_files_distinct("explore", files, 5)))
			return rc;
	}
	fo.cone_seconds = cone_seconds > 0 ? cone_seconds : -1;
	fo.monotone_models = mono_models;
	if (cli_mpi_rank() > 0)
		return cli_mpi_explore_worker(argv[optind], argv[optind + 1], &fo);
	rc = cli_load_model("explore", argv[optind], features, CLI_USAGE, &m,
			    &space.start);
	if (rc)
		return rc;
	cp_error_clear(&err);
	cp_buf_init(&b);
	cp_buf_init(&g);
	cp_buf_init(&page);
	cp_buf_init(&cmd);
	space.n_features = udd_model_n_features(m);
	space.candidates = space.n_features >= 64 ? ~(udd_features)0 :
		((udd_features)1 << space.n_features) - 1;
	if (candidates && udd_model_select(m, candidates, &space.candidates, &err)) {
		rc = cli_usage_error("explore", "--candidates: %s", err.msg);
		goto out;
	}
	if (so.exhaustive) {
		size_t n = explore_space_n_varying(&space);

		if (n > EXPLORE_EXHAUSTIVE_MAX) {
			rc = cli_usage_error("explore", "--exhaustive over %zu features "
					     "would test 2^%zu models; pass --candidates", n, n);
			goto out;
		}
	}
	names = cp_calloc(space.n_features ? space.n_features : 1, sizeof *names);
	if (!names) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		rc = cli_print_error("explore", &err);
		goto out;
	}
	for (i = 0; i < space.n_features; i++)
		names[i] = udd_model_feature_name(m, i);
	space.names = names;
	rc = stats_dataset_load_threads(argv[optind + 1], fo.threads, &d, NULL, &err);
	if (!rc) {
		cli_note_unread_events("explore", argv[optind + 1], m, d);
		rc = explore_family_new(m, d, &fo, &fam, &err);
	}
	if (!rc && cli_mpi_size() > 1)
		rc = cli_mpi_explore(argv[optind], argv[optind + 1], fam, &err);
	if (rc) {
		rc = cli_print_error("explore", &err);
		goto out;
	}
	explore_family_evaluator(fam, &ev);
	if (!mono_models)
		ev.monotone = NULL;
	/* the check that decides an undecided claim, with the same regions */
	cp_buf_printf(&cmd, "counterpoint check %s %s", argv[optind], argv[optind + 1]);
	if (region_arg)
		cp_buf_printf(&cmd, " --region %s", region_arg);
	if (confidence_arg)
		cp_buf_printf(&cmd, " --confidence %s", confidence_arg);
	if (batches_arg)
		cp_buf_printf(&cmd, " --batches %s", batches_arg);
	if (fo.per_interval)
		cp_buf_puts(&cmd, " --per-interval");
	if (fo.counters)
		cp_buf_printf(&cmd, " --counters %s", fo.counters);
	so.check_command = cmd.failed ? NULL : cmd.data;
	so.confidence = fo.confidence > 0 ? fo.confidence : 0.99;
	so.family_confidence = explore_family_confidence(fam);
	so.family_level = explore_family_level(fam);
	cli_progress_init(&progress.line, "explore");
	progress.count_known = explore_space_n_varying(&space) <= EXPLORE_EXHAUSTIVE_MAX;
	if (progress.line.tty) {
		so.progress = search_progress;
		so.progress_ctx = &progress;
	}
	t0 = cp_seconds();
	rc = explore_run(&space, &ev, &so, &s, &err);
	cli_progress_end(&progress.line);
	if (rc) {
		rc = cli_print_error("explore", &err);
		goto out;
	}
	explore_family_stats(fam, &n_models, &n_facets, &n_checked, &n_checks);
	if (json) {
		explore_report_json(s, udd_model_file(m), argv[optind + 1], &b);
		goto write;
	}
	n_obs = explore_family_n_observations(fam);
	cp_buf_printf(&b, "model %s, data %s: %zu observation%s, %s at %g "
		      "confidence each; claims at ", udd_model_file(m), argv[optind + 1],
		      n_obs, n_obs == 1 ? "" : "s", region_names[fo.region],
		      fo.confidence > 0 ? fo.confidence : 0.99);
	pipe_put_level(&b, so.family_confidence);
	if (n_obs == 1)
		cp_buf_puts(&b, " over the one observation");
	else
		cp_buf_printf(&b, " over all %zu", n_obs);
	if (so.family_level > so.confidence) {
		cp_buf_puts(&b, " (an observation refutes a model when its region at ");
		pipe_put_level(&b, so.family_level);
		cp_buf_puts(&b, " misses the cone too)");
	}
	cp_buf_puts(&b, "\n");
	if (explore_family_n_missing(fam)) {
		cp_buf_puts(&b, "counters left out (the model is projected onto the "
			    "others):");
		for (i = 0; i < explore_family_n_missing(fam); i++)
			cp_buf_printf(&b, " %s", explore_family_missing(fam, i));
		cp_buf_puts(&b, "\n");
	}
	cp_buf_puts(&b, "features:");
	for (i = 0; i < space.n_features; i++)
		cp_buf_printf(&b, " %s%s", names[i],
			      space.candidates & ((udd_features)1 << i) ? "" :
			      " (fixed)");
	cp_buf_puts(&b, "\nstart: ");
	explore_format_features(s, space.start, &b);
	cp_buf_puts(&b, "\n\n");
	explore_report_n(s, max_violations, &b);
	if (!explore_n_feasible(s) && (rc = suggestions(fam, s, fo.threads, &b)))
		goto out;
	cp_buf_printf(&b, "\n%zu feature sets compiled, %zu checked against the "
		      "data (%zu region checks; %zu with exact facets, the others "
		      "explained by LP certificates), %.1f s\n", n_models,
		      n_checked, n_checks, n_facets, cp_seconds() - t0);
	if (explore_family_n_inexact(fam))
		cp_buf_printf(&b, "undecided: %zu borderline verdicts are floating-point "
			      "answers (their exact re-check could not run); a claim "
			      "above that rests on one of them is not proven\n",
			      explore_family_n_inexact(fam));
write:
	if (b.failed) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		rc = cli_print_error("explore", &err);
		goto out;
	}
	if (dot)
		explore_dot(s, &g);
	if (html) {
		struct report_explore he = { s, names, space.n_features, argv[optind],
					     argv[optind + 1], region_names[fo.region],
					     fo.confidence > 0 ? fo.confidence : 0.99,
					     explore_family_n_observations(fam),
					     so.family_confidence, so.family_level, fam, d,
					     plots };

		if ((rc = cli_html_explore(&he, &page)))
			goto out;
	}
	{	/* every output or none */
		const char *paths[3] = { output, dot, html };
		struct cp_buf *bufs[3] = { &b, &g, &page };
		size_t k, n = 1;

		for (k = 1; k < 3; k++)
			if (paths[k]) {
				paths[n] = paths[k];
				bufs[n++] = bufs[k];
			}
		if ((rc = cli_write_outputs("explore", paths, bufs, n)))
			goto out;
	}
	if (verbose)
		print_phases(fam);
	rc = explore_n_feasible(s) ? CLI_OK : CLI_RESULT;
out:
	explore_free(s);
	explore_family_free(fam);
	feas_thread_end();
	stats_dataset_free(d);
	udd_model_free(m);
	cp_free(names);
	cp_buf_release(&b);
	cp_buf_release(&g);
	cp_buf_release(&page);
	cp_buf_release(&cmd);
	return rc;
}
