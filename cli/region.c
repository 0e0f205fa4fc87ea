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
		"                          [--batches B|auto|none] [--per-interval]\n"
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
		"  --confidence C      confidence level in (0, 1) (default 0.99)\n"
		"  --events LIST       these events, comma-separated (default: every\n"
		"                      event counted in the observation)\n"
		"  --model MODEL       the events MODEL's counters read, in counter order\n"
		"                      (a missing one is an error naming the counter)\n"
		"  --with F,...        features enabled in MODEL\n"
		"  --batches B         batch means: B batches, 'none', or 'auto' (the\n"
		"                      default: batch when intervals are autocorrelated)\n"
		"  --per-interval      region for one new interval, not for the mean\n"
		"  -h, --help          show this help\n"
		"\n"
		"See docs/statistics.md for the formulas.  Exit status: 0 success,\n"
		"2 bad usage or input (every bad row of DATA is listed), 3 internal error.\n");
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

/* Variance share of the top principal components of the correlation
 * matrix (counters with zero variance left out), and the pairs above
 * 0.9. */
static int print_correlations(struct cp_buf *b, const struct region *r,
			      const char *const *ev, struct cp_error *err)
{
	size_t k = r->k, m = 0, i, j, pairs = 0, high = 0;
	size_t *idx = cp_calloc(k, sizeof *idx);
	double *c = cp_calloc(k * k, sizeof *c), *w = cp_calloc(k, sizeof *w);
	double *v = cp_calloc(k * k, sizeof *v), total = 0, acc = 0;
	int rc = CP_OK;

	if (!idx || !c || !w || !v) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (j = 0; j < k; j++)
		if (r->sigma[j * k + j] > 0)
			idx[m++] = j;
	for (i = 0; i < m; i++)
		for (j = 0; j < m; j++)
			c[i * m + j] = r->sigma[idx[i] * k + idx[j]] /
				sqrt(r->sigma[idx[i] * k + idx[i]] *
				     r->sigma[idx[j] * k + idx[j]]);
	if (m >= 2) {
		if ((rc = stats_symmetric_eigen(c, m, w, v, err)))
			goto out;
		for (i = 0; i < m; i++)
			total += w[i] > 0 ? w[i] : 0;
		cp_buf_printf(b, "  variance share of the top principal components "
			      "(correlation matrix of %zu varying counters):", m);
		for (i = 0; i < m && i < 3; i++) {
			acc += w[m - 1 - i] > 0 ? w[m - 1 - i] : 0;
			cp_buf_printf(b, " %zu: %.1f%%", i + 1, 100 * acc / total);
		}
		cp_buf_puts(b, "\n");
	}
	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++) {
			pairs++;
			high += c[i * m + j] > 0.9;
		}
	if (pairs) {
		cp_buf_printf(b, "  pairs with correlation > 0.9: %zu of %zu (%.1f%%)\n",
			      high, pairs, 100.0 * (double)high / (double)pairs);
		for (i = 0; i < m; i++)
			for (j = i + 1; j < m; j++)
				if (c[i * m + j] > 0.9)
					cp_buf_printf(b, "    %-24s %-24s %.4f\n",
						      ev[idx[i]], ev[idx[j]],
						      c[i * m + j]);
	}
out:
	cp_free(idx);
	cp_free(c);
	cp_free(w);
	cp_free(v);
	return rc;
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

/* One observation's report.  Returns 0, or an error already in err. */
static int report(struct cp_buf *b, const struct stats_dataset *d, size_t obs,
		  const char *const *events, size_t nev,
		  const char *const *labels, const struct region_options *opt,
		  struct cp_error *err)
{
	struct region_options o = *opt;
	const char **ev = NULL;
	struct region *r = NULL;
	size_t k = 0, e, j, ntot = stats_dataset_n_events(d);
	int rc = CP_OK, first_nc = 1;
	double vol_pca = 0, vol_ind = 0;

	if (!(ev = cp_calloc((events ? nev : ntot) + 1, sizeof *ev)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	cp_buf_printf(b, "observation '%s'\n", stats_dataset_observation(d, obs));
	if (events) {
		for (j = 0; j < nev; j++)
			ev[k++] = events[j];
	} else {
		/* every event counted at least twice; list the others */
		for (e = 0; e < ntot; e++) {
			size_t c = stats_dataset_n_counted(d, obs, e);

			if (c >= 2) {
				ev[k++] = stats_dataset_event(d, e);
				continue;
			}
			cp_buf_printf(b, "%s%s", first_nc ? "  left out (counted in "
				      "fewer than 2 intervals): " : ", ",
				      stats_dataset_event(d, e));
			first_nc = 0;
		}
		if (!first_nc)
			cp_buf_puts(b, "\n");
	}
	if (labels)
		o.names = labels;
	if ((rc = stats_observation_region(d, obs, ev, k, &o, &r, err)))
		goto out;
	if (labels)          /* print the model's counter names */
		for (j = 0; j < k; j++)
			ev[j] = labels[j];
	cp_buf_printf(b, "  %zu intervals, %zu counter%s, confidence %g, rule: %s\n",
		      stats_dataset_n_intervals(d, obs), k, k == 1 ? "" : "s",
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
			      r->lag1, !r->prewhitened && r->batch_size <= 1 &&
			      stats_lag1_significant(r->lag1, r->n_samples) ?
			      " (significant: the region may be too small)" : "");
	cp_buf_printf(b, "  %-28s %-14s %-14s %s\n", "counter", "mean (/s)",
		      "+-independent", "intervals counted");
	for (j = 0; j < k; j++) {
		size_t id;

		for (id = 0; id < ntot && strcmp(stats_dataset_event(d, id),
						     events ? events[j] : ev[j]); id++)
			;
		cp_buf_printf(b, "  %-28s %-14.6g %-14.5g %zu\n", ev[j], r->mu[j],
			      r->half_ind[j], stats_dataset_n_counted(d, obs, id));
		vol_pca += log(r->half_pca[j]);
		vol_ind += log(r->half_ind[j]);
	}
	print_axes(b, r, ev);
	cp_buf_printf(b, "  box volume, PCA / independent: %.3g\n",
		      exp(vol_pca - vol_ind));
	rc = print_correlations(b, r, ev, err);
out:
	region_free(r);
	cp_free(ev);
	return rc;
}

/* Long only because getopt_long wants one case per option; the work is
 * in the library and in the report writers above. */
int cli_region(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "observation", required_argument, NULL, 'O' },
		{ "confidence", required_argument, NULL, 'c' },
		{ "events", required_argument, NULL, 'e' },
		{ "batches", required_argument, NULL, 'b' },
		{ "per-interval", no_argument, NULL, 'p' },
		{ "model", required_argument, NULL, 'm' },
		{ "with", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct region_options opt;
	struct stats_dataset *d = NULL;
	struct cp_error err;
	struct cp_buf out, diag;
	const char *observation = NULL, *model_path = NULL, *with = NULL;
	const char **mevents = NULL, **mlabels = NULL;
	struct udd_model *model = NULL;
	struct udd_sigset *sigset = NULL;
	udd_features sel = 0;
	char *evlist = NULL, **events = NULL;
	size_t nev = 0, o, nobs;
	int c, status = CLI_OK;

	memset(&opt, 0, sizeof opt);
	opt.confidence = 0.99;
	opt.batches = REGION_BATCHES_AUTO;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'O':
			observation = optarg;
			break;
		case 'c':
			if (cli_parse_double(cmd, "--confidence", optarg, 0, 1,
					     &opt.confidence))
				return CLI_USAGE;
			if (opt.confidence <= 0 || opt.confidence >= 1)
				return cli_usage_error(cmd, "--confidence wants a "
						       "number strictly between 0 "
						       "and 1, not '%s'", optarg);
			break;
		case 'e':
			evlist = optarg;
			break;
		case 'b':
			if (cli_parse_batches(cmd, optarg, &opt.batches))
				return CLI_USAGE;
			break;
		case 'p':
			opt.per_interval = 1;
			break;
		case 'm':
			model_path = optarg;
			break;
		case 'w':
			with = optarg;
			break;
		case 'h':
			usage(stdout);
			return CLI_OK;
		default:
			return cli_bad_option(cmd, c, argv);
		}
	}
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
		size_t j, k;

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
	if (stats_dataset_load_diag(argv[optind], &d, &diag, &err)) {
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
	for (; o < nobs; o++) {
		if (o && !observation)
			cp_buf_puts(&out, "\n");
		int rc;

		if (sigset) {
			/* names the model counter whose event is missing */
			rc = stats_sigset_events(d, o, sigset, mevents, &err);
			if (!rc)
				rc = report(&out, d, o, mevents,
					    udd_sigset_n_counters(sigset),
					    mlabels, &opt, &err);
		} else {
			rc = report(&out, d, o, (const char *const *)events,
				    nev, NULL, &opt, &err);
		}
		if (rc) {
			/* print what was built so far, then the error */
			status = cli_write_output(cmd, NULL, &out);
			cp_buf_release(&out);
			cp_buf_init(&out);
			status = cli_print_error(cmd, &err);
			if (err.code == CP_EINTERNAL || err.code == CP_ENOMEM ||
			    err.code == CP_ENUMERIC)
				goto out;
		}
	}
	if (cli_write_output(cmd, NULL, &out) != CLI_OK)
		status = CLI_INTERNAL;
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
