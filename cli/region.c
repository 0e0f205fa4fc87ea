/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/region.c: `counterpoint region DATA`: per observation, the number of
 * intervals, the mean rates, the half-widths of the independent and PCA
 * boxes, the variance share of the top principal components and the
 * strongly correlated counter pairs.  The statistics live in stats/. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "stats/region.h"

static const char *const cmd = "region";

static void usage(FILE *out)
{
	fprintf(out,
		"usage: counterpoint region DATA [--observation NAME] [--confidence C]\n"
		"                          [--events E1,E2,... | --model MODEL [--with F,...]]\n"
		"                          [--batches B|auto|none] [--per-interval] [--json]\n"
		"                          [--threads N]\n"
		"\n"
		"Print the confidence regions of a dataset's observations (the long CSV\n"
		"observation,interval,event,value,enabled_ns,running_ns): per observation\n"
		"the intervals used, the mean rate of each counter (scaled count per\n"
		"second), the half-widths of the independent box and of the PCA box, the\n"
		"share of variance in the top principal components of the correlation\n"
		"matrix, and the counter pairs with correlation above 0.9.\n"
		"\n"
		"options:\n"
		"  --observation NAME  only this observation (default: all)\n"
		"  --confidence C      confidence level, 0.5 to 0.999999 (default 0.99)\n"
		"  --events LIST       these events, comma-separated (default: every\n"
		"                      event counted in the observation)\n"
		"  --model MODEL       the events MODEL's counters read, in counter order\n"
		"                      (a missing one is an error naming the counter)\n"
		"  --with F,...        features enabled in MODEL\n"
		"  --batches B         batch means: B batches, 'none', or 'auto' (the\n"
		"                      default: batch when intervals are autocorrelated)\n"
		"  --per-interval      region for one new interval, not for the mean\n"
		"  --json              the regions as JSON (docs/manual/json.md)\n"
		"  --threads N         threads reading DATA (default: one per CPU)\n"
		"  -h, --help          show this help\n"
		"\n"
		"The formulas: docs/method/statistics.md.\n\n"
		"exit status: 0 success, 2 bad usage or input (every bad row of DATA\n"
		"is listed), 3 internal error\n");
}

/* Split a comma-separated list into a NULL-free array of k strings that
 * point into the (modified) copy *buf. */
static int split_list(char *list, char ***out, size_t *k)
{
	size_t n = 1, i;
	char *p, **v;

	for (p = list; *p; p++)
		n += *p == ',';
	if (!(v = cp_calloc(n, sizeof *v)))
		return CP_ENOMEM;
	for (i = 0, p = list; i < n; i++) {
		char *c = strchr(p, ',');

		if (c)
			*c = '\0';
		v[i] = p;
		p = c ? c + 1 : p + strlen(p);
	}
	*out = v;
	*k = n;
	return CP_OK;
}

static const char *rule_name(enum region_rule r)
{
	return r == REGION_RULE_HOTELLING ? "Hotelling T^2" :
	       "diagonal (too few samples for a useful full covariance)";
}

/* The samples' lag-1 autocorrelation is significant and nothing (batch
 * means, the long-run covariance) accounts for it. */
static int lag1_flagged(const struct region *r)
{
	return !isnan(r->lag1) && !r->prewhitened && r->batch_size <= 1 &&
	       stats_lag1_significant(r->lag1, r->n_samples);
}

/* Variance share of the top principal components of the correlation
 * matrix, and the pairs above 0.9. */
static void print_correlations(struct cp_buf *b, const struct stats_correlations *cr,
			       const char *const *ev)
{
	size_t m = cr->m, i, j, pairs = 0, high = 0;
	const double *c = cr->c;

	if (cr->n_share) {
		cp_buf_printf(b, "  variance share of the top principal components "
			      "(correlation matrix of %zu varying counters):", m);
		for (i = 0; i < cr->n_share; i++)
			cp_buf_printf(b, " %zu: %.1f%%", i + 1, cr->share[i]);
		cp_buf_puts(b, "\n");
	}
	if (!cr->n_share && cr->n_uncompared)
		cp_buf_printf(b, "  variance share of the top principal components: "
			      "undecided (%zu pair%s of varying counters counted "
			      "together in fewer than %u intervals)\n",
			      cr->n_uncompared, cr->n_uncompared == 1 ? "" : "s",
			      STATS_CORR_MIN_SHARED);
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++) {
			pairs += !isnan(c[i * m + j]);
			high += c[i * m + j] > 0.9;
		}
	if (pairs) {
		cp_buf_printf(b, "  pairs with correlation > 0.9: %zu of %zu (%.1f%%)",
			      high, pairs, 100.0 * (double)high / (double)pairs);
		if (cr->n_uncompared)
			cp_buf_printf(b, "; %zu more not compared (counted together "
				      "in fewer than %u intervals)", cr->n_uncompared,
				      STATS_CORR_MIN_SHARED);
		cp_buf_puts(b, "\n");
		for (i = 0; i < m; i++)
			for (j = i + 1; j < m; j++)
				if (c[i * m + j] > 0.9)
					cp_buf_printf(b, "    %-24s %-24s %.4f\n",
						      ev[cr->idx[i]], ev[cr->idx[j]],
						      c[i * m + j]);
	}
}

/* The counter with the largest loading on axis i, for labelling. */
static void print_axes(struct cp_buf *b, const struct region *r,
		       const char *const *ev)
{
	size_t k = r->k, i, j, shown;

	cp_buf_puts(b, "  PCA box (axes of the mean's covariance, widest first):\n"
		    "    axis  half-width    main counters (loading)\n");
	for (shown = 0; shown < k && shown < 5; shown++) {
		size_t a = k - 1 - shown, top[2] = { 0, 0 };
		const double *v = r->box_axes + a * k;

		for (j = 1; j < k; j++)
			if (fabs(v[j]) > fabs(v[top[0]]))
				top[0] = j;
		top[1] = top[0] == 0 && k > 1 ? 1 : 0;
		for (j = 0; j < k; j++)
			if (j != top[0] && fabs(v[j]) > fabs(v[top[1]]))
				top[1] = j;
		cp_buf_printf(b, "    %-5zu %-13.5g %s (%+.3f)", shown + 1,
			      r->half_pca[a], ev[top[0]], v[top[0]]);
		if (k > 1 && fabs(v[top[1]]) >= 0.1)
			cp_buf_printf(b, ", %s (%+.3f)", ev[top[1]], v[top[1]]);
		cp_buf_puts(b, "\n");
	}
	if (k > 5) {
		double lo = r->half_pca[0], hi = r->half_pca[0];

		for (i = 0; i < k - 5; i++) {
			if (r->half_pca[i] < lo)
				lo = r->half_pca[i];
			if (r->half_pca[i] > hi)
				hi = r->half_pca[i];
		}
		cp_buf_printf(b, "    (%zu narrower axes, half-widths %.5g to %.5g)\n",
			      k - 5, lo, hi);
	}
}

/* One observation's region over the events asked for (or every event
 * counted at least twice: the others are left_out), with the names to
 * print (the model's counter names under --model). */
struct obs_region {
	size_t obs, k;
	const char **ev;          /* k names to print */
	const char **left_out;    /* n_left_out events counted < 2 times */
	size_t n_left_out;
	size_t *counted;          /* k: intervals in which each was counted */
	struct region *r;
	struct stats_correlations cr;
};

static void obs_region_release(struct obs_region *o)
{
	cp_free(o->ev);
	cp_free(o->left_out);
	cp_free(o->counted);
	region_free(o->r);
	stats_correlations_release(&o->cr);
}

/* Returns 0, or an error already in err (o is then released by the
 * caller all the same). */
static int obs_region_build(struct obs_region *o, const struct stats_dataset *d,
			    size_t obs, const char *const *events, size_t nev,
			    const char *const *labels,
			    const struct region_options *opt, struct cp_error *err)
{
	struct region_options ro = *opt;
	size_t e, j, id, ntot = stats_dataset_n_events(d), n = events ? nev : ntot;
	size_t *counts;
	int rc;

	memset(o, 0, sizeof *o);
	o->obs = obs;
	o->ev = cp_calloc(n + 1, sizeof *o->ev);
	o->left_out = cp_calloc(ntot + 1, sizeof *o->left_out);
	o->counted = cp_calloc(n + 1, sizeof *o->counted);
	counts = cp_calloc(ntot + 1, sizeof *counts);
	if (!o->ev || !o->left_out || !o->counted || !counts) {
		cp_free(counts);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	/* one pass over the samples for every event (once per event was
	 * quadratic in the events) */
	stats_dataset_counted(d, obs, counts);
	if (events) {
		for (j = 0; j < nev; j++)
			o->ev[o->k++] = events[j];
	} else {
		for (e = 0; e < ntot; e++) {
			if (counts[e] >= 2)
				o->ev[o->k++] = stats_dataset_event(d, e);
			else
				o->left_out[o->n_left_out++] = stats_dataset_event(d, e);
		}
	}
	for (j = 0; j < o->k; j++) {
		id = stats_dataset_find_event(d, o->ev[j]);
		o->counted[j] = id < ntot ? counts[id] : 0;
	}
	cp_free(counts);
	if (labels)
		ro.names = labels;
	ro.correlations = &o->cr;
	if ((rc = stats_observation_region(d, obs, o->ev, o->k, &ro, &o->r, err)))
		return rc;
	if (labels)          /* print the model's counter names */
		for (j = 0; j < o->k; j++)
			o->ev[j] = labels[j];
	return CP_OK;
}

static void report_text(struct cp_buf *b, const struct stats_dataset *d,
			const struct obs_region *o)
{
	const struct region *r = o->r;
	size_t j, k = o->k;
	double vol_pca = 0, vol_ind = 0;
	int width = 28;

	cp_buf_printf(b, "observation '%s'\n", stats_dataset_observation(d, o->obs));
	for (j = 0; j < o->n_left_out; j++)
		cp_buf_printf(b, "%s%s", j ? ", " : "  left out (counted in "
			      "fewer than 2 intervals): ", o->left_out[j]);
	if (o->n_left_out)
		cp_buf_puts(b, "\n");
	if (!r)
		return;
	if (r->runs)
		cp_buf_printf(b, "  a perf stat -r summary of %zu runs, %zu counter%s, "
			      "confidence %g: means and standard errors only, the "
			      "correlations unknown, so the region is the independent "
			      "box (the PCA box is that box, the ellipsoid the one "
			      "through its corners)\n", r->runs, k, k == 1 ? "" : "s",
			      r->confidence);
	else
		cp_buf_printf(b, "  %zu intervals, %zu counter%s, confidence %g, rule: %s\n",
			      stats_dataset_n_intervals(d, o->obs), k, k == 1 ? "" : "s",
			      r->confidence, rule_name(r->rule));
	if (r->batch_size > 1)
		cp_buf_printf(b, "  batch means: %zu samples of %zu intervals "
			      "(intervals are autocorrelated)\n", r->n, r->batch_size);
	if (r->prewhitened)
		cp_buf_printf(b, "  long-run covariance (intervals are autocorrelated): "
			      "AR(1) prewhitened, Bartlett bandwidth %zu, %zu effective "
			      "samples of %zu%s\n", r->bandwidth, r->n, r->n_samples,
			      r->dof_floored ? " (too few for this autocorrelation: "
			      "the region may be too small)" : "");
	if (!isnan(r->lag1))
		cp_buf_printf(b, "  largest lag-1 autocorrelation of the samples: %.3f%s\n",
			      r->lag1, lag1_flagged(r) ?
			      " (significant: the region may be too small)" : "");
	/* the names' column as wide as the longest (Haswell's reach 38) */
	for (j = 0; j < k; j++)
		if (strlen(o->ev[j]) > (size_t)width)
			width = (int)strlen(o->ev[j]);
	cp_buf_printf(b, "  %-*s %-14s %-14s %s\n", width, "counter", "mean (/s)",
		      "+-independent", "intervals counted");
	for (j = 0; j < k; j++) {
		cp_buf_printf(b, "  %-*s %-14.6g %-14.5g %zu\n", width, o->ev[j],
			      r->mu[j], r->half_ind[j], o->counted[j]);
		vol_pca += log(r->half_pca[j]);
		vol_ind += log(r->half_ind[j]);
	}
	print_axes(b, r, o->ev);
	cp_buf_printf(b, "  box volume, PCA / independent: %.3g\n",
		      exp(vol_pca - vol_ind));
	print_correlations(b, &o->cr, o->ev);
}

static void json_num(struct cp_buf *b, double v)
{
	if (isfinite(v))
		cp_buf_printf(b, "%.10g", v);
	else
		cp_buf_puts(b, "null");
}

static void json_names(struct cp_buf *b, const char *const *v, size_t n)
{
	size_t i;

	cp_buf_puts(b, "[");
	for (i = 0; i < n; i++) {
		if (i)
			cp_buf_puts(b, ", ");
		cp_buf_json_string(b, v[i]);
	}
	cp_buf_puts(b, "]");
}

/* One observation as JSON (docs/method/statistics.md): the region's
 * numbers in full precision; error (the message) when it has none. */
static void report_json(struct cp_buf *b, const struct stats_dataset *d,
			const struct obs_region *o, const struct cp_error *err)
{
	const struct region *r = o->r;
	size_t i, j, k = o->k, m = o->cr.m;
	double vol_pca = 0, vol_ind = 0;

	cp_buf_puts(b, "    {\"name\": ");
	cp_buf_json_string(b, stats_dataset_observation(d, o->obs));
	cp_buf_puts(b, ", \"left_out\": ");
	json_names(b, o->left_out, o->n_left_out);
	if (!r) {
		char msg[CP_ERROR_MAX + 300];

		cp_error_format(err, msg, sizeof msg);
		cp_buf_puts(b, ", \"error\": ");
		cp_buf_json_string(b, msg);
		cp_buf_puts(b, "}");
		return;
	}
	cp_buf_printf(b, ",\n     \"intervals\": %zu, \"rule\": \"%s\", \"samples\": %zu, "
		      "\"samples_used\": %zu, \"batch_size\": %zu, \"long_run\": %s, "
		      "\"bandwidth\": %zu, \"may_be_small\": %s, \"lag1_significant\": %s, "
		      "\"lag1\": ",
		      stats_dataset_n_intervals(d, o->obs),
		      r->rule == REGION_RULE_DIAGONAL ? "diagonal" : "full",
		      r->n, r->n_samples, r->batch_size,
		      r->prewhitened ? "true" : "false", r->bandwidth,
		      r->dof_floored ? "true" : "false",
		      lag1_flagged(r) ? "true" : "false");
	json_num(b, r->lag1);
	if (r->runs)
		cp_buf_printf(b, ", \"runs\": %zu", r->runs);
	cp_buf_puts(b, ",\n     \"counters\": [");
	for (j = 0; j < k; j++) {
		cp_buf_puts(b, j ? ",\n       {\"name\": " : "\n       {\"name\": ");
		cp_buf_json_string(b, o->ev[j]);
		cp_buf_puts(b, ", \"mean\": ");
		json_num(b, r->mu[j]);
		cp_buf_puts(b, ", \"half_independent\": ");
		json_num(b, r->half_ind[j]);
		cp_buf_printf(b, ", \"intervals_counted\": %zu}", o->counted[j]);
		vol_pca += log(r->half_pca[j]);
		vol_ind += log(r->half_ind[j]);
	}
	cp_buf_puts(b, "],\n     \"pca_box\": [");
	for (i = 0; i < k; i++) {
		size_t a = k - 1 - i;       /* widest first, as the text */

		cp_buf_puts(b, i ? ",\n       {\"half_width\": " : "\n       {\"half_width\": ");
		json_num(b, r->half_pca[a]);
		cp_buf_puts(b, ", \"axis\": [");
		for (j = 0; j < k; j++) {
			if (j)
				cp_buf_puts(b, ", ");
			json_num(b, r->box_axes[a * k + j]);
		}
		cp_buf_puts(b, "]}");
	}
	cp_buf_puts(b, "],\n     \"box_volume_ratio\": ");
	json_num(b, exp(vol_pca - vol_ind));
	cp_buf_puts(b, ",\n     \"covariance\": [");
	for (i = 0; i < k; i++) {
		cp_buf_puts(b, i ? ", [" : "[");
		for (j = 0; j < k; j++) {
			if (j)
				cp_buf_puts(b, ", ");
			json_num(b, r->cov[i * k + j]);
		}
		cp_buf_puts(b, "]");
	}
	cp_buf_puts(b, "],\n     \"variance_share\": [");
	for (i = 0; i < o->cr.n_share; i++) {
		if (i)
			cp_buf_puts(b, ", ");
		json_num(b, o->cr.share[i] / 100);
	}
	cp_buf_printf(b, "],\n     \"pairs_compared\": %zu, \"pairs_not_compared\": %zu",
		      o->cr.n_pairs - o->cr.n_uncompared, o->cr.n_uncompared);
	cp_buf_puts(b, ",\n     \"correlated_pairs\": [");
	for (i = 0, k = 0; i < m; i++)
		for (j = i + 1; j < m; j++) {
			if (!(o->cr.c[i * m + j] > 0.9))
				continue;
			cp_buf_puts(b, k++ ? ", {\"a\": " : "{\"a\": ");
			cp_buf_json_string(b, o->ev[o->cr.idx[i]]);
			cp_buf_puts(b, ", \"b\": ");
			cp_buf_json_string(b, o->ev[o->cr.idx[j]]);
			cp_buf_puts(b, ", \"correlation\": ");
			json_num(b, o->cr.c[i * m + j]);
			cp_buf_puts(b, "}");
		}
	cp_buf_puts(b, "]}");
}

/* Long only because getopt_long wants one case per option; the work is
 * in the library and in the report writers above. */
int cli_region(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_OPT_CONFIDENCE, CLI_OPT_BATCHES, CLI_OPT_PER_INTERVAL, CLI_OPT_WITH,
		CLI_OPT_JSON, CLI_OPT_THREADS,
		{ "observation", required_argument, NULL, 'O' },
		{ "events", required_argument, NULL, 'e' },
		{ "model", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct region_options opt;
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf out, diag;
	const char *observation = NULL, *model_path = NULL, *with;
	struct cli_data_options dop;
	const char **mevents = NULL, **mlabels = NULL;
	struct udd_model *model = NULL;
	struct udd_sigset *sigset = NULL;
	udd_features sel = 0;
	char *evlist = NULL, **events = NULL;
	size_t nev = 0, o, nobs, threads, j;
	int first, fatal, lacking = 0;
	int c, json, status = CLI_OK;

	memset(&opt, 0, sizeof opt);
	cli_data_options_init(&dop);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'O':
			observation = optarg;
			break;
		case 'e':
			evlist = optarg;
			break;
		case 'm':
			model_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			if ((status = cli_data_option(cmd, c, optarg, argv, longopts, &dop)))
				return status;
		}
	}
	opt.confidence = dop.confidence;
	opt.batches = dop.batches;
	opt.per_interval = dop.per_interval;
	with = dop.with;
	json = dop.json;
	threads = dop.threads;
	if (optind != argc - 1)
		return cli_usage_error(cmd, optind >= argc ? "no dataset given" :
				       "one dataset only");
	if (model_path && evlist)
		return cli_usage_error(cmd, "--model and --events exclude each other");
	if (with && !model_path)
		return cli_usage_error(cmd, "--with needs --model");
	cp_error_clear(&err);
	cp_buf_init(&out);
	cp_buf_init(&diag);
	if (model_path) {
		size_t k;

		if ((status = cli_load_model(cmd, model_path, with, CLI_USAGE,
					     &model, &sel)))
			goto out;
		if (udd_sigset_build(model, sel, 0, &sigset, &err)) {
			status = cli_print_error(cmd, &err);
			goto out;
		}
		k = udd_sigset_n_counters(sigset);
		mevents = cp_calloc(k + 1, sizeof *mevents);
		mlabels = cp_calloc(k + 1, sizeof *mlabels);
		if (!mevents || !mlabels) {
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			status = cli_print_error(cmd, &err);
			goto out;
		}
		for (j = 0; j < k; j++) {
			mevents[j] = udd_sigset_counter_event(sigset, j);
			mlabels[j] = udd_sigset_counter_name(sigset, j);
		}
	}
	if (stats_dataset_load_threads(argv[optind], threads, &d, &diag, &err)) {
		if (diag.len && !diag.failed) {
			char *p = diag.data, *nl;

			for (; *p; p = nl + 1) {
				nl = strchr(p, '\n');
				fprintf(stderr, "counterpoint %s: %.*s\n", cmd,
					(int)(nl - p), p);
			}
			status = err.code == CP_ENOMEM ? CLI_INTERNAL : CLI_USAGE;
		} else {
			status = cli_print_error(cmd, &err);
		}
		goto out;
	}
	if (model)
		cli_note_unread_events(cmd, argv[optind], model, d);
	if (evlist) {
		char *copy = cp_strdup(evlist);

		if (!copy || split_list(copy, &events, &nev)) {
			cp_free(copy);
			cp_error_set(&err, CP_ENOMEM, "out of memory");
			status = cli_print_error(cmd, &err);
			goto out;
		}
		evlist = copy;           /* owned now, freed at out */
	}
	nobs = stats_dataset_n_observations(d);
	if (observation) {
		o = stats_dataset_find_observation(d, observation);
		if (o == (size_t)-1) {
			status = cli_usage_error(cmd, "'%s' has no observation '%s'",
						 argv[optind], observation);
			goto out;
		}
		nobs = o + 1;
	} else {
		o = 0;
	}
	if (json) {
		cp_buf_json_begin(&out, model_path, argv[optind]);
		cp_buf_puts(&out, ",\n\"features\": ");
		if (model_path)
			udd_model_json_features(model, sel, &out);
		else
			cp_buf_puts(&out, "null");
		cp_buf_printf(&out, ",\n\"confidence\": %g,\n\"per_interval\": %s,"
			      "\n\"observations\": [", opt.confidence,
			      opt.per_interval ? "true" : "false");
	}
	/* An event the whole dataset lacks is the dataset's fault: its
	 * message (which names it) is printed once, at the first
	 * observation; text output stops there, JSON gives every
	 * observation's entry the error. */
	if (sigset) {
		for (j = 0; j < udd_sigset_n_counters(sigset); j++) {
			size_t e;

			/* (two names of one event: lacking, its message the
			 * observation's) */
			lacking |= stats_model_counter_event(d, model, j, &e, &err) ||
				   e == (size_t)-1;
		}
	} else if (events) {
		for (j = 0; j < nev; j++)
			lacking |= stats_dataset_find_event(d, events[j]) == (size_t)-1;
	}
	for (first = 1; o < nobs; o++, first = 0) {
		struct obs_region reg;
		int rc;

		if (!first)
			cp_buf_puts(&out, json ? ",\n" : "\n");
		else if (json)
			cp_buf_puts(&out, "\n");
		if (sigset) {
			/* names the model counter whose event is missing */
			memset(&reg, 0, sizeof reg);
			reg.obs = o;
			rc = stats_sigset_events(d, o, sigset, mevents, &err);
			if (!rc)
				rc = obs_region_build(&reg, d, o, mevents,
						      udd_sigset_n_counters(sigset),
						      mlabels, &opt, &err);
		} else {
			rc = obs_region_build(&reg, d, o, (const char *const *)events,
					      nev, NULL, &opt, &err);
		}
		fatal = rc && (err.code == CP_EINTERNAL || err.code == CP_ENOMEM ||
			       err.code == CP_ENUMERIC);
		if (rc && lacking && !json) {
			/* the dataset's fault, not the observation's: no
			 * header, the message once */
			obs_region_release(&reg);
			status = cli_print_error(cmd, &err);
			goto out;
		}
		if (rc) {
			region_free(reg.r);
			reg.r = NULL;
		}
		if (!json)
			report_text(&out, d, &reg);
		else if (!fatal)
			report_json(&out, d, &reg, &err);
		obs_region_release(&reg);
		if (rc && !json) {
			/* print what was built so far, then the error */
			status = cli_write_output(cmd, NULL, &out);
			cp_buf_release(&out);
			cp_buf_init(&out);
		}
		/* (JSON: each observation's entry has the error, stderr
		 * has it once) */
		if (rc && lacking && !first)
			status = CLI_USAGE;
		else if (rc)
			status = cli_print_error(cmd, &err);
		if (fatal)
			goto out;
	}
	if (json)
		cp_buf_puts(&out, "\n  ]\n}\n");
	{	/* standard output that cannot be written: its error's status */
		int wrc = cli_write_output(cmd, NULL, &out);

		if (wrc != CLI_OK)
			status = wrc;
	}
out:
	if (evlist != NULL && events) {
		cp_free(events[0]);
		cp_free(events);
	}
	cp_buf_release(&out);
	cp_buf_release(&diag);
	stats_dataset_free(d);
	cp_free(mevents);
	cp_free(mlabels);
	udd_sigset_free(sigset);
	udd_model_free(model);
	return status;
}
