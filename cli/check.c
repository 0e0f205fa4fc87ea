/* cli/check.c: `counterpoint check MODEL DATA`: is the model consistent
 * with each observation of a dataset?  Compiles the model, derives its
 * cone (H-representation when it fits under --max-facets), builds each
 * observation's confidence region and hands them all to the solver; prints
 * one verdict per observation with the violated constraints and their
 * margins, then a summary.  Exit 0 all feasible, 1 some infeasible, 2 bad
 * usage or input, 3 internal error. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "solver/feas.h"

#include "geometry/cone.h"
#include "stats/region.h"

static const char check_help[] =
	"usage: counterpoint check MODEL DATA [--with F,...]\n"
	"                          [--region pca|independent|ellipsoid]\n"
	"                          [--confidence P] [--json] [--threads N]\n"
	"                          [--batches N] [--per-interval]\n"
	"                          [--max-facets N] [-o FILE]\n"
	"\n"
	"Test a model against measurements: for each observation of DATA (a long\n"
	"CSV dataset), is its confidence region consistent with the model's cone\n"
	"of counter signatures?  Infeasible observations list the model\n"
	"constraints the whole region breaks, each with its margin in standard\n"
	"deviations (how far the region lies beyond it).  The constraints come\n"
	"from the cone's facets when it has at most --max-facets of them, and\n"
	"otherwise from the LP's Farkas certificate, tightened to a facet and\n"
	"checked exactly.\n"
	"\n"
	"options:\n"
	"  --with F,...          enable these model features (all others off)\n"
	"  --region SHAPE        pca (default): box along the principal axes;\n"
	"                        independent: box along each counter;\n"
	"                        ellipsoid: exact test, with p-values\n"
	"  --confidence P        confidence level of the regions (default 0.99)\n"
	"  --batches N           batch means over N batches of intervals (default:\n"
	"                        chosen from the autocorrelation; 1 = none)\n"
	"  --per-interval        regions for one interval, not for the mean\n"
	"  --json                machine-readable output\n"
	"  --threads N           worker threads (default: one per CPU)\n"
	"  --max-facets N        list at most N facets of the cone (default 20000;\n"
	"                        0: explain from LP certificates only)\n"
	"  -o, --output FILE     write the report to FILE (atomically)\n"
	"  -h, --help            this text\n"
	"\n"
	"A verdict marked 'borderline' was within floating-point tolerance and\n"
	"was settled in exact arithmetic.\n"
	"\n"
	"exit status: 0 every observation feasible, 1 some infeasible, 2 bad\n"
	"usage or input, 3 internal error\n";


/* ---- progress on a terminal ---- */

struct progress {
	int tty;
	double start;
	int shown;
	const char *what;  /* "regions", "checking" */
};

static void progress_cb(void *ctx, size_t done, size_t total)
{
	struct progress *p = ctx;
	char bar[31];
	size_t i, fill;

	if (!p->tty || cp_seconds() - p->start < 1.0)
		return;
	fill = total ? done * 30 / total : 30;
	for (i = 0; i < 30; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[30] = '\0';
	fprintf(stderr, "\rcounterpoint check: %s [%s] %zu/%zu observations", p->what, bar,
		done, total);
	fflush(stderr);
	p->shown = 1;
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
}

/* ---- output helpers ---- */

static void json_str(struct cp_buf *b, const char *s)
{
	cp_buf_puts(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			cp_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			cp_buf_printf(b, "\\u%04x", c);
		else
			cp_buf_append(b, s, 1);
	}
	cp_buf_puts(b, "\"");
}

static void json_num(struct cp_buf *b, double v)
{
	if (isfinite(v))
		cp_buf_printf(b, "%.6g", v);
	else
		cp_buf_puts(b, "null");
}

/* One violated constraint, counted over observations for the summary. */
struct tally {
	char *text;
	size_t count;
};

static int tally_add(struct tally **t, size_t *n, const char *text)
{
	size_t i;
	struct tally *nt;

	for (i = 0; i < *n; i++)
		if (!strcmp((*t)[i].text, text)) {
			(*t)[i].count++;
			return 0;
		}
	nt = cp_reallocarray(*t, *n + 1, sizeof *nt);
	if (!nt)
		return -1;
	*t = nt;
	nt[*n].text = cp_strdup(text);
	if (!nt[*n].text)
		return -1;
	nt[*n].count = 1;
	++*n;
	return 0;
}

static int tally_cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static const char *shape_name(enum feas_shape s)
{
	return s == FEAS_PCA ? "pca" : s == FEAS_INDEPENDENT ? "independent" : "ellipsoid";
}

/* ---- the command ---- */

struct run {
	struct udd_model *model;
	struct udd_sigset *set;
	struct cone *cone;
	struct feas_model *fm;
	struct stats_dataset *data;
	struct region **regions;
	struct feas_query *queries;
	struct feas_result *results;
	size_t n_obs, k;
	const char **names;
};

static void run_free(struct run *r)
{
	size_t i;

	if (r->results)
		for (i = 0; i < r->n_obs; i++)
			feas_result_release(&r->results[i]);
	if (r->regions)
		for (i = 0; i < r->n_obs; i++)
			region_free(r->regions[i]);
	cp_free(r->results);
	cp_free(r->regions);
	cp_free(r->queries);
	cp_free(r->names);
	stats_dataset_free(r->data);
	feas_model_free(r->fm);
	cone_free(r->cone);
	udd_sigset_free(r->set);
	udd_model_free(r->model);
	feas_thread_end();
}

int cli_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "with", required_argument, NULL, 'w' },
		{ "region", required_argument, NULL, 'r' },
		{ "confidence", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "threads", required_argument, NULL, 't' },
		{ "max-facets", required_argument, NULL, 'f' },
		{ "batches", required_argument, NULL, 'b' },
		{ "per-interval", no_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *with = NULL, *output = NULL, *model_path, *data_path;
	enum feas_shape shape = FEAS_PCA;
	double confidence = 0.99;
	size_t threads = 0, max_facets = 20000, i, j, infeasible = 0, n_tally = 0;
	size_t batches = 0;
	int json = 0, opt, rc = CLI_OK, hrep = 0, per_interval = 0;
	struct run r;
	struct cp_error err;
	struct cp_buf b, rel;
	struct tally *tally = NULL;
	struct progress prog;

	memset(&r, 0, sizeof r);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			with = optarg;
			break;
		case 'r':
			if (!strcmp(optarg, "pca"))
				shape = FEAS_PCA;
			else if (!strcmp(optarg, "independent"))
				shape = FEAS_INDEPENDENT;
			else if (!strcmp(optarg, "ellipsoid"))
				shape = FEAS_ELLIPSOID;
			else
				return cli_usage_error("check", "--region wants pca, independent "
						       "or ellipsoid, not '%s'", optarg);
			break;
		case 'c':
			if (cli_parse_double("check", "--confidence", optarg, 0.5, 0.999999,
					     &confidence))
				return CLI_USAGE;
			break;
		case 'j':
			json = 1;
			break;
		case 't':
			if (cli_parse_size("check", "--threads", optarg, &threads))
				return CLI_USAGE;
			if (threads > 256)
				return cli_usage_error("check", "--threads wants at most 256, not '%s'",
						       optarg);
			break;
		case 'f':
			if (cli_parse_size("check", "--max-facets", optarg, &max_facets))
				return CLI_USAGE;
			break;
		case 'b':
			if (cli_parse_size("check", "--batches", optarg, &batches))
				return CLI_USAGE;
			break;
		case 'p':
			per_interval = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			fputs(check_help, stdout);
			return CLI_OK;
		default:
			return cli_bad_option("check", opt, argv);
		}
	}
	if (argc - optind != 2)
		return cli_usage_error("check", argc - optind < 2
				       ? "a MODEL and a DATA file are required"
				       : "only one MODEL and one DATA file are accepted");
	model_path = argv[optind];
	data_path = argv[optind + 1];
	cp_error_clear(&err);

	/* ---- the model: signatures, cone, solver ---- */
	{
		udd_features sel = 0;

		rc = cli_load_model("check", model_path, with, CLI_USAGE, &r.model, &sel);
		if (rc)
			return rc;
		if (udd_sigset_build(r.model, sel, 0, &r.set, &err)) {
			rc = cli_print_error("check", &err);
			goto out;
		}
	}
	r.k = udd_sigset_n_counters(r.set);
	r.names = cp_calloc(r.k ? r.k : 1, sizeof *r.names);
	if (!r.names) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		rc = cli_print_error("check", &err);
		goto out;
	}
	for (j = 0; j < r.k; j++)
		r.names[j] = udd_sigset_counter_name(r.set, j);
	if (max_facets == 0) {
		/* --max-facets 0: explain from certificates only */
	} else {
		struct cone_options copt = { max_facets, 30.0 };
		struct cp_error cerr;

		cp_error_clear(&cerr);
		if (cone_build(r.k, udd_sigset_size(r.set), udd_sigset_matrix(r.set),
			       &copt, &r.cone, &cerr) == CP_OK) {
			hrep = 1;
		} else {
			if (cerr.code == CP_ENOMEM) {
				rc = cli_print_error("check", &cerr);
				goto out;
			}
			fprintf(stderr, "counterpoint check: note: the cone's facets are not "
				"listed (%s); violations are explained from LP certificates\n",
				cerr.msg);
			cone_free(r.cone);
			r.cone = NULL;
		}
	}
	if (feas_model_new(r.k, udd_sigset_size(r.set), udd_sigset_matrix(r.set), NULL,
			   &r.fm, &err)) {
		rc = cli_print_error("check", &err);
		goto out;
	}
	if (hrep) {
		for (i = 0; i < cone_n_equalities(r.cone); i++)
			if (feas_model_add_constraint(r.fm, cone_equality(r.cone, i), 1, &err))
				break;
		for (i = 0; !err.code && i < cone_n_facets(r.cone); i++)
			if (feas_model_add_constraint(r.fm, cone_facet(r.cone, i), 0, &err))
				break;
		if (err.code) {
			rc = cli_print_error("check", &err);
			goto out;
		}
	}

	/* ---- the data: one region per observation ---- */
	if (stats_dataset_load(data_path, &r.data, &err)) {
		rc = cli_print_error("check", &err);
		goto out;
	}
	r.n_obs = stats_dataset_n_observations(r.data);
	r.regions = cp_calloc(r.n_obs ? r.n_obs : 1, sizeof *r.regions);
	r.queries = cp_calloc(r.n_obs ? r.n_obs : 1, sizeof *r.queries);
	r.results = cp_calloc(r.n_obs ? r.n_obs : 1, sizeof *r.results);
	if (!r.regions || !r.queries || !r.results) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		rc = cli_print_error("check", &err);
		goto out;
	}
	prog.tty = isatty(2);
	prog.start = cp_seconds();
	prog.shown = 0;
	prog.what = "regions ";
	for (i = 0; i < r.n_obs; i++) {
		struct region_options ropt;

		if (i % 64 == 0)
			progress_cb(&prog, i, r.n_obs);
		feas_result_init(&r.results[i]);
		memset(&ropt, 0, sizeof ropt);
		ropt.confidence = confidence;
		ropt.batches = batches;
		ropt.per_interval = per_interval;
		ropt.names = r.names;
		if (stats_sigset_region(r.data, i, r.set, &ropt, &r.regions[i], &err)) {
			char msg[CP_ERROR_MAX];

			snprintf(msg, sizeof msg, "%s", err.msg);
			cp_error_set(&err, err.code ? err.code : CP_EINPUT,
				     "observation '%.200s': %.700s",
				     stats_dataset_observation(r.data, i), msg);
			progress_end(&prog);
			rc = cli_print_error("check", &err);
			goto out;
		}
		feas_query_from_region(r.regions[i], shape, &r.queries[i]);
	}

	/* ---- the check ---- */
	prog.what = "checking";
	if (feas_check_batch(r.fm, r.n_obs, r.queries, FEAS_EXPLAIN, threads, r.results,
			     progress_cb, &prog, &err)) {
		progress_end(&prog);
		rc = cli_print_error("check", &err);
		goto out;
	}
	progress_end(&prog);

	/* ---- the report ---- */
	cp_buf_init(&b);
	cp_buf_init(&rel);
	if (json) {
		cp_buf_puts(&b, "{\n\"model\": ");
		json_str(&b, model_path);
		cp_buf_puts(&b, ",\n\"data\": ");
		json_str(&b, data_path);
		cp_buf_printf(&b, ",\n\"region\": \"%s\",\n\"confidence\": %g,\n"
			      "\"facets_listed\": %s,\n\"observations\": [", shape_name(shape),
			      confidence, hrep ? "true" : "false");
	}
	for (i = 0; i < r.n_obs; i++) {
		const struct feas_result *res = &r.results[i];
		const char *name = stats_dataset_observation(r.data, i);

		infeasible += !res->feasible;
		if (json) {
			cp_buf_puts(&b, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
			json_str(&b, name);
			cp_buf_printf(&b, ", \"feasible\": %s, \"borderline\": %s",
				      res->feasible ? "true" : "false",
				      res->borderline ? "true" : "false");
			if (shape == FEAS_ELLIPSOID) {
				cp_buf_puts(&b, ", \"d2\": ");
				json_num(&b, res->d2);
				cp_buf_puts(&b, ", \"p_value\": ");
				json_num(&b, res->p_value);
			}
			cp_buf_puts(&b, ", \"violations\": [");
		} else {
			cp_buf_printf(&b, "%s: %s", name, res->feasible ? "feasible" : "INFEASIBLE");
			if (shape == FEAS_ELLIPSOID)
				cp_buf_printf(&b, " (d2 %.4g, q %.4g, p %.3g)", res->d2,
					      r.regions[i]->q, res->p_value);
			if (res->borderline)
				cp_buf_puts(&b, " (borderline)");
			cp_buf_puts(&b, "\n");
		}
		for (j = 0; j < res->n_violations; j++) {
			const struct feas_violation *v = &res->violations[j];
			const char *origin = v->index != FEAS_NO_INDEX ? "facet"
				: v->is_equality ? "equality from the certificate"
				: v->is_facet ? "facet from the certificate"
				: "certificate (not a facet)";
			size_t c;

			rel.len = 0;
			if (rel.data)
				rel.data[0] = '\0';
			cone_format_constraint(v->a, r.k, r.names, v->is_equality, &rel);
			if (rel.failed || tally_add(&tally, &n_tally, rel.data ? rel.data : "")) {
				cp_error_set(&err, CP_ENOMEM, "out of memory");
				rc = cli_print_error("check", &err);
				cp_buf_release(&b);
				cp_buf_release(&rel);
				goto out;
			}
			if (json) {
				cp_buf_puts(&b, j ? ", {\"constraint\": " : "{\"constraint\": ");
				json_str(&b, rel.data ? rel.data : "");
				cp_buf_puts(&b, ", \"coefficients\": [");
				for (c = 0; c < r.k; c++)
					cp_buf_printf(&b, c ? ", %lld" : "%lld", (long long)v->a[c]);
				cp_buf_printf(&b, "], \"equality\": %s, \"facet\": %s, \"exact\": %s, "
					      "\"origin\": \"%s\", \"margin\": ",
					      v->is_equality ? "true" : "false",
					      v->is_facet ? "true" : "false",
					      v->exact ? "true" : "false", origin);
				json_num(&b, v->margin);
				cp_buf_puts(&b, ", \"centre_sd\": ");
				json_num(&b, v->mean_sd);
				cp_buf_puts(&b, "}");
			} else {
				cp_buf_printf(&b, "    violates %s   margin %.3g sd", rel.data ? rel.data : "",
					      v->margin);
				if (v->index == FEAS_NO_INDEX)
					cp_buf_printf(&b, "   [%s]", origin);
				cp_buf_puts(&b, "\n");
			}
		}
		if (json)
			cp_buf_puts(&b, "]}");
	}
	if (n_tally)
		qsort(tally, n_tally, sizeof *tally, tally_cmp);
	if (json) {
		cp_buf_printf(&b, "\n],\n\"summary\": {\"observations\": %zu, \"infeasible\": %zu, "
			      "\"violated\": [", r.n_obs, infeasible);
		for (i = 0; i < n_tally; i++) {
			cp_buf_puts(&b, i ? ", {\"constraint\": " : "{\"constraint\": ");
			json_str(&b, tally[i].text);
			cp_buf_printf(&b, ", \"observations\": %zu}", tally[i].count);
		}
		cp_buf_puts(&b, "]}\n}\n");
	} else {
		cp_buf_printf(&b, "\n%zu observation%s, %zu infeasible (region %s, confidence %g",
			      r.n_obs, r.n_obs == 1 ? "" : "s", infeasible, shape_name(shape),
			      confidence);
		if (hrep)
			cp_buf_printf(&b, "; cone: %zu equalit%s, %zu facet%s)\n",
				      cone_n_equalities(r.cone),
				      cone_n_equalities(r.cone) == 1 ? "y" : "ies",
				      cone_n_facets(r.cone), cone_n_facets(r.cone) == 1 ? "" : "s");
		else
			cp_buf_puts(&b, "; cone facets not listed: violations from LP certificates)\n");
		for (i = 0; i < n_tally; i++)
			cp_buf_printf(&b, "  %zu observation%s violate%s %s\n", tally[i].count,
				      tally[i].count == 1 ? "" : "s", tally[i].count == 1 ? "s" : "",
				      tally[i].text);
	}
	cp_buf_release(&rel);
	rc = cli_write_output("check", output, &b);
	cp_buf_release(&b);
	if (rc == CLI_OK && infeasible)
		rc = CLI_RESULT;
out:
	for (i = 0; i < n_tally; i++)
		cp_free(tally[i].text);
	cp_free(tally);
	run_free(&r);
	return rc;
}
