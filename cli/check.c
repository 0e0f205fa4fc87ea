/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli/check.c: `counterpoint check MODEL DATA`: is the model consistent
 * with each observation of a dataset?  The options, then the library
 * pipeline (pipeline/pipeline.h: regions, cone under its budget, solver),
 * then one of two report writers (text, JSON).  Exit 0 all checked
 * observations feasible, 1 some infeasible, 2 bad usage or input (or
 * nothing could be checked), 3 internal error. */
#include <errno.h>
#include <getopt.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

#include "geometry/cone.h"
#include "pipeline/pipeline.h"
#include "report/report.h"

static const char check_help[] =
	"usage: counterpoint check MODEL DATA [--with F,...]\n"
	"                          [--region pca|independent|ellipsoid]\n"
	"                          [--confidence P] [--family-confidence P]\n"
	"                          [--json] [--threads N]\n"
	"                          [--batches B|auto|none] [--per-interval]\n"
	"                          [--counters C,...] [--strict]\n"
	"                          [--max-facets N] [--violations N]\n"
	"                          [-o FILE] [--html FILE] [--plots N|all] [-v]\n"
	"\n"
	"Test a model against measurements: for each observation of DATA (a long\n"
	"CSV dataset), is its confidence region consistent with the model's cone\n"
	"of counter signatures?  Infeasible observations list the model\n"
	"constraints the whole region breaks, each with its margin in standard\n"
	"deviations (how far the region lies beyond it).  The constraints come\n"
	"from the cone's facets when it has at most --max-facets of them, and\n"
	"otherwise from the LP's Farkas certificate, tightened to a facet and\n"
	"checked exactly.  DATA '-' is standard input.  A dataset is read and\n"
	"checked in parts: memory does not grow with its length.  A file not\n"
	"grouped by observation is read by observation, its text more than\n"
	"once (a note says how often).\n"
	"\n"
	"options:\n"
	"  --with F,...          enable these model features (all others off)\n"
	"  --region SHAPE        pca (default): box along the principal axes;\n"
	"                        independent: box along each counter;\n"
	"                        ellipsoid: exact test, with p-values\n"
	"  --confidence P        confidence level of the regions (default 0.99)\n"
	"  --family-confidence P the level of the summary's claim about the model\n"
	"                        as a whole, over all the observations checked\n"
	"                        (default 0.99): an observation counts against\n"
	"                        the model only if its region at P^(1/n) (n\n"
	"                        observations) misses the cone too\n"
	"  --batches B           'auto' (the default: a long-run covariance when\n"
	"                        the intervals are autocorrelated), 'none' (every\n"
	"                        interval an independent sample) or B batch means\n"
	"  --per-interval        regions for one interval, not for the mean\n"
	"  --counters C,...      check only these model counters (the cone is\n"
	"                        projected onto them); without it every model\n"
	"                        counter must be in DATA\n"
	"  --strict              an unusable observation (one that cannot form a\n"
	"                        region) is an error, exit 2\n"
	"  --json                machine-readable output\n"
	"  --threads N           worker threads (default: one per CPU)\n"
	"  --max-facets N        list at most N facets of the cone (default 20000;\n"
	"                        0: explain from LP certificates only)\n"
	"  --violations N        list at most N violated constraints an\n"
	"                        observation, the largest margins first, and N\n"
	"                        in the summary, the most observations first\n"
	"                        (default 5; 0: every one; --json has every one)\n"
	"  -o, --output FILE     write the report to FILE (atomically)\n"
	"  --html FILE           also write a report for a browser: one\n"
	"                        self-contained page with each verdict and a plot\n"
	"                        of the cone and the regions on the counters of\n"
	"                        the most violated (or tightest) constraint\n"
	"  --plots N|all         plots in the --html page for the N most violated\n"
	"                        observations (default 50; all: every one)\n"
	"  -v, --verbose         on standard error, each phase's wall and CPU\n"
	"                        time (CPU over wall: how many threads it kept\n"
	"                        busy)\n"
	"  -h, --help            this text\n"
	"\n"
	"Each observation's verdict is at --confidence.  The summary then says\n"
	"whether the model as a whole is refuted at --family-confidence over the\n"
	"usable observations: with n of them, one in 100 refutes a true model at\n"
	"99% each up to 1 - 0.99^n of the time (28% at n = 32), so only an\n"
	"observation whose region at P^(1/n) misses the cone too refutes it.\n"
	"\n"
	"A verdict marked 'borderline' was within floating-point tolerance and\n"
	"was settled in exact arithmetic.  An observation that cannot form a\n"
	"region (an event counted in too few intervals) is reported 'unusable'\n"
	"with the reason; the others are checked.\n"
	"\n"
	"exit status: 0 every checked observation feasible, 1 some infeasible,\n"
	"2 bad usage or input, or no observation usable (with --strict: any\n"
	"unusable), 3 internal error\n";


/* ---- -v: where the time went ---- */

struct phases {
	int on;
	double wall, cpu;          /* at the last mark */
	struct cp_buf line;
	double wall0, cpu0;
};

/* End the phase named what (NULL: start the clock). */
static void phase_mark(struct phases *p, const char *what)
{
	double w, c;

	if (!p->on)
		return;
	w = cp_seconds();
	c = cp_cpu_seconds();
	if (!what) {
		cp_buf_init(&p->line);
		p->wall0 = w;
		p->cpu0 = c;
	} else {
		cp_buf_printf(&p->line, "%s%s %.3f / %.3f", p->line.len ? ", " : "",
			      what, w - p->wall, c - p->cpu);
	}
	p->wall = w;
	p->cpu = c;
}

/* --strict and an unusable observation, or none usable: the error (the
 * first such observation), 1; else 0. */
static int unusable_error(const struct stats_dataset *data,
			  const struct pipe_data *pd, int strict, struct cp_error *err)
{
	size_t n = pipe_data_n_observations(pd), i;

	if (strict && pipe_data_n_unusable(pd)) {
		for (i = 0; i < n && pipe_data_region(pd, i); i++)
			;
		stats_observation_error(data, i, CP_EINPUT, err, "unusable "
					"(--strict): %.600s", pipe_data_unusable(pd, i));
		return 1;
	}
	if (n && pipe_data_n_unusable(pd) == n) {
		stats_observation_error(data, 0, CP_EINPUT, err, "%.600s (no "
					"observation can form a region; this is the first)",
					pipe_data_unusable(pd, 0));
		return 1;
	}
	return 0;
}

static void phases_print(struct phases *p)
{
	if (!p->on)
		return;
	if (!p->line.failed)
		fprintf(stderr, "counterpoint check: seconds by phase (wall / CPU of "
			"every thread): %s; total %.3f / %.3f\n", p->line.data,
			p->wall - p->wall0, p->cpu - p->cpu0);
	cp_buf_release(&p->line);
	p->on = 0;
}

/* ---- progress on a terminal ---- */

struct progress {
	struct cli_progress line;
	const char *what;  /* "regions", "checking" */
	size_t before;     /* in parts: the observations of the parts before */
	const struct stats_reader *rd;   /* in parts: the input */
};

static void progress_cb(void *ctx, size_t done, size_t total)
{
	struct progress *p = ctx;
	double f;

	if (!p->rd) {
		cli_progress_show(&p->line, "%s %zu/%zu observations", p->what, done, total);
		return;
	}
	/* in parts the total is not known: the observations checked, and of
	 * a file how much is read */
	f = stats_reader_fraction(p->rd);
	if (f >= 0)
		cli_progress_show(&p->line, "%zu observations checked, %.0f%% of %s read",
				  p->before + done, 100 * f, stats_reader_name(p->rd));
	else
		cli_progress_show(&p->line, "%zu observations checked", p->before + done);
}

/* ---- output helpers ---- */

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
	size_t first;             /* order of first sight: ties keep it */
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
	nt[*n].first = *n;
	++*n;
	return 0;
}

static int tally_cmp(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* ---- the reports ---- */

struct report {
	const char *model_path, *data_path;
	const struct udd_model *model;
	udd_features sel;
	const struct pipe_data *pd;
	const struct pipe_model *pm;
	const struct feas_result *res;
	struct tally *tally;      /* violated constraints, most frequent first */
	size_t n_tally, infeasible;
	const struct pipe_family *family;
	const unsigned char *refutes;   /* per observation, at the family's level */
	size_t n_refuting;
	size_t max_violations;    /* listed an observation (0: all), text only */
	const struct pipe_options *opt;
	size_t n_obs, n_unusable;
};

static const char *origin_of(const struct feas_violation *v)
{
	return v->index != FEAS_NO_INDEX ? "facet"
		: v->is_equality ? "equality from the certificate"
		: v->is_facet ? "facet from the certificate"
		: "certificate (not a facet)";
}

/* The constraint as text, and counted for the summary. */
static int violation_text(struct report *r, const struct feas_violation *v,
			  struct cp_buf *rel)
{
	rel->len = 0;
	if (rel->data)
		rel->data[0] = '\0';
	cone_format_constraint(v->a, pipe_data_n_counters(r->pd),
			       pipe_data_names(r->pd), v->is_equality, rel);
	return rel->failed || tally_add(&r->tally, &r->n_tally, rel->data ? rel->data : "");
}

/* The summary's claim about the model as a whole, at the family-wise
 * level over the usable observations, with the per-observation view
 * where it differs. */
static void family_text(const struct report *r, struct cp_buf *b)
{
	pipe_family_put_claim(b, r->family, r->infeasible, r->n_refuting);
}

/* Observation i of r->pd (result res) as text: its verdict's line and
 * the violated constraints, counted for the summary. */
static int obs_text(struct report *r, size_t i, const struct feas_result *res,
		    struct cp_buf *b, struct cp_buf *rel)
{
	const struct pipe_data *pd = r->pd;
	const struct pipe_options *o = pipe_data_options(pd);
	const struct stats_dataset *d = pipe_data_dataset(pd);
	const char *name = stats_dataset_observation(d, i);
	size_t j;

	if (!pipe_data_region(pd, i)) {
		/* where its rows start, so that they can be found */
		cp_buf_printf(b, "%s: unusable (%s; its rows from %s:%u)\n", name,
			      pipe_data_unusable(pd, i), stats_dataset_path(d),
			      stats_dataset_observation_line(d, i));
		return 0;
	}
	r->infeasible += !res->feasible;
	/* puts, not printf: a line an observation, 10^5 of them */
	cp_buf_puts(b, name);
	cp_buf_puts(b, res->feasible ? ": feasible" : ": INFEASIBLE");
	if (o->shape == FEAS_ELLIPSOID)
		cp_buf_printf(b, " (d2 %.4g, q %.4g, p %.3g)", res->d2,
			      pipe_data_region(pd, i)->q, res->p_value);
	if (pipe_verdict_note(res))
		cp_buf_printf(b, " (%s)", pipe_verdict_note(res));
	if (pipe_data_region(pd, i)->runs)
		cp_buf_printf(b, " (a perf stat -r summary of %zu runs: "
			      "correlations unknown, %s)",
			      pipe_data_region(pd, i)->runs,
			      o->shape == FEAS_ELLIPSOID ? "the ellipsoid "
			      "through the independent box's corners" :
			      "the independent box");
	else if (pipe_data_region(pd, i)->rule == REGION_RULE_DIAGONAL)
		cp_buf_puts(b, " (diagonal rule: too few samples for the full "
			    "covariance)");
	if (pipe_data_region(pd, i)->dof_floored)
		cp_buf_puts(b, " (autocorrelated and short: the region may be "
			    "too small)");
	cp_buf_puts(b, "\n");
	/* the largest margins first (solver/feas.h); every one is
	 * counted for the summary, the first max_violations listed */
	for (j = 0; j < res->n_violations; j++) {
		const struct feas_violation *v = &res->violations[j];

		if (violation_text(r, v, rel))
			return -1;
		if (r->max_violations && j >= r->max_violations)
			continue;
		cp_buf_printf(b, "    violates %s   margin %.3g sd",
			      rel->data ? rel->data : "", v->margin);
		if (v->index == FEAS_NO_INDEX)
			cp_buf_printf(b, "   [%s]", origin_of(v));
		cp_buf_puts(b, "\n");
	}
	if (r->max_violations && res->n_violations > r->max_violations)
		cp_buf_printf(b, "    ... and %zu more violated constraint%s "
			      "(--violations 0 lists every one)\n",
			      res->n_violations - r->max_violations,
			      res->n_violations - r->max_violations == 1 ? "" : "s");
	return 0;
}

/* The text report's summary, after every observation's lines. */
static void summary_text(struct report *r, struct cp_buf *b)
{
	const struct pipe_options *o = r->opt;
	size_t n = r->n_obs, nu = r->n_unusable, i;

	if (r->n_tally)
		qsort(r->tally, r->n_tally, sizeof *r->tally, tally_cmp);
	cp_buf_printf(b, "\n%zu observation%s, %zu infeasible", n, n == 1 ? "" : "s",
		      r->infeasible);
	if (nu)
		cp_buf_printf(b, ", %zu unusable", nu);
	cp_buf_printf(b, " (region %s, confidence %g", cli_region_name(o->shape), o->confidence);
	if (pipe_model_has_facets(r->pm))
		cp_buf_printf(b, "; cone: %zu equalit%s, %zu facet%s)\n",
			      pipe_model_n_equalities(r->pm),
			      pipe_model_n_equalities(r->pm) == 1 ? "y" : "ies",
			      pipe_model_n_facets(r->pm),
			      pipe_model_n_facets(r->pm) == 1 ? "" : "s");
	else
		cp_buf_puts(b, "; cone facets not listed: violations from LP certificates)\n");
	family_text(r, b);
	for (i = 0; i < r->n_tally && (!r->max_violations || i < r->max_violations); i++)
		cp_buf_printf(b, "  %zu observation%s violate%s %s\n", r->tally[i].count,
			      r->tally[i].count == 1 ? "" : "s",
			      r->tally[i].count == 1 ? "s" : "", r->tally[i].text);
	if (i < r->n_tally)
		cp_buf_printf(b, "  ... and %zu more violated constraint%s\n",
			      r->n_tally - i, r->n_tally - i == 1 ? "" : "s");
}

/* The JSON report's opening, before its observations. */
static void head_json(struct report *r, const struct pipe_data *pd, struct cp_buf *b)
{
	const struct pipe_options *o = r->opt;

	cp_buf_json_begin(b, r->model_path, r->data_path);
	cp_buf_puts(b, ",\n\"features\": ");
	udd_model_json_features(r->model, r->sel, b);
	cp_buf_puts(b, ",\n\"counters\": ");
	udd_model_json_counters(r->model, pipe_data_names(pd), pipe_data_n_counters(pd), b);
	cp_buf_printf(b, ",\n\"region\": \"%s\",\n\"confidence\": %g,\n"
		      "\"facets_listed\": %s,\n\"observations\": [", cli_region_name(o->shape),
		      o->confidence, pipe_model_has_facets(r->pm) ? "true" : "false");
}

/* Observation i of r->pd as a JSON object (first: the first one),
 * "refutes" as given, or left out when refutes_at is not NULL:
 * *refutes_at is then where it goes in b (the family-wise check comes
 * after every observation). */
static int obs_json(struct report *r, size_t i, int first,
		    const struct feas_result *res, int refutes, struct cp_buf *b,
		    struct cp_buf *rel, size_t *refutes_at)
{
	const struct pipe_data *pd = r->pd;
	const struct pipe_options *o = pipe_data_options(pd);
	const struct stats_dataset *d = pipe_data_dataset(pd);
	size_t k = pipe_data_n_counters(pd), j, c;

	cp_buf_puts(b, first ? "\n  {\"name\": " : ",\n  {\"name\": ");
	cli_json_string(b, stats_dataset_observation(d, i));
	if (!pipe_data_region(pd, i)) {
		cp_buf_puts(b, ", \"usable\": false, \"unusable\": ");
		cli_json_string(b, pipe_data_unusable(pd, i));
		cp_buf_puts(b, ", \"file\": ");
		cli_json_string(b, stats_dataset_path(d));
		cp_buf_printf(b, ", \"line\": %u", stats_dataset_observation_line(d, i));
		cp_buf_puts(b, "}");
		return 0;
	}
	r->infeasible += !res->feasible;
	cp_buf_printf(b, ", \"usable\": true, \"feasible\": %s, \"borderline\": %s, "
		      "\"undecided\": %s, "
		      "\"rule\": \"%s\", \"long_run\": %s, \"may_be_small\": %s",
		      res->feasible ? "true" : "false",
		      res->borderline ? "true" : "false",
		      res->undecided ? "true" : "false",
		      pipe_data_region(pd, i)->rule == REGION_RULE_DIAGONAL ?
		      "diagonal" : "full",
		      pipe_data_region(pd, i)->prewhitened ? "true" : "false",
		      pipe_data_region(pd, i)->dof_floored ? "true" : "false");
	if (pipe_data_region(pd, i)->runs)
		cp_buf_printf(b, ", \"runs\": %zu", pipe_data_region(pd, i)->runs);
	if (o->shape == FEAS_ELLIPSOID) {
		cp_buf_puts(b, ", \"d2\": ");
		json_num(b, res->d2);
		cp_buf_puts(b, ", \"p_value\": ");
		json_num(b, res->p_value);
	}
	cp_buf_puts(b, ", \"refutes\": ");
	if (refutes_at)
		*refutes_at = b->len;
	else
		cp_buf_puts(b, refutes ? "true" : "false");
	cp_buf_puts(b, ", \"violations\": [");
	for (j = 0; j < res->n_violations; j++) {
		const struct feas_violation *v = &res->violations[j];

		if (violation_text(r, v, rel))
			return -1;
		cp_buf_puts(b, j ? ", {\"constraint\": " : "{\"constraint\": ");
		cli_json_string(b, rel->data ? rel->data : "");
		cp_buf_puts(b, ", \"vector\": [");
		for (c = 0; c < k; c++)
			cp_buf_printf(b, c ? ", %lld" : "%lld", (long long)v->a[c]);
		cp_buf_printf(b, "], \"equality\": %s, \"facet\": %s, \"exact\": %s, "
			      "\"origin\": \"%s\", \"margin\": ",
			      v->is_equality ? "true" : "false",
			      v->is_facet ? "true" : "false",
			      v->exact ? "true" : "false", origin_of(v));
		json_num(b, v->margin);
		cp_buf_puts(b, ", \"centre_sd\": ");
		json_num(b, v->mean_sd);
		cp_buf_puts(b, "}");
	}
	cp_buf_puts(b, "]}");
	return 0;
}

/* The JSON report's summary and end. */
static void summary_json(struct report *r, struct cp_buf *b)
{
	size_t i;

	if (r->n_tally)
		qsort(r->tally, r->n_tally, sizeof *r->tally, tally_cmp);
	cp_buf_printf(b, "\n],\n\"summary\": {\"observations\": %zu, \"infeasible\": %zu, "
		      "\"unusable\": %zu, \"family\": {\"confidence\": %g, \"level\": %.10g, "
		      "\"observations\": %zu, \"refuting\": %zu, \"refuted\": %s}, "
		      "\"violated\": [", r->n_obs, r->infeasible, r->n_unusable,
		      pipe_family_confidence(r->family), pipe_family_level(r->family),
		      pipe_family_n(r->family), r->n_refuting,
		      r->n_refuting ? "true" : "false");
	for (i = 0; i < r->n_tally; i++) {
		cp_buf_puts(b, i ? ", {\"constraint\": " : "{\"constraint\": ");
		cli_json_string(b, r->tally[i].text);
		cp_buf_printf(b, ", \"observations\": %zu}", r->tally[i].count);
	}
	cp_buf_puts(b, "]}\n}\n");
}

/* The whole report of a dataset checked whole. */
static int report_whole(struct report *r, int json, struct cp_buf *b)
{
	size_t i;
	struct cp_buf rel;
	int rc = 0;

	cp_buf_init(&rel);
	if (json)
		head_json(r, r->pd, b);
	for (i = 0; i < r->n_obs && !rc; i++)
		rc = json ? obs_json(r, i, i == 0, &r->res[i], r->refutes[i], b, &rel,
				 NULL) :
			obs_text(r, i, &r->res[i], b, &rel);
	if (!rc) {
		if (json)
			summary_json(r, b);
		else
			summary_text(r, b);
	}
	cp_buf_release(&rel);
	return rc;
}

/* For --html: the flow bounds of the model's features on every feasible
 * observation, as `counterpoint flows --with` computes them. */
static int html_flows(const struct udd_model *model, udd_features sel,
		      const struct pipe_data *pd, const struct feas_result *res,
		      size_t threads, struct pipe_flows **pf,
		      struct pipe_flow_bounds **out, enum pipe_flow_status **status,
		      struct cp_error *err)
{
	size_t n = pipe_data_n_observations(pd);

	if (pipe_flows_new(model, sel, pd, pf, err))
		return -1;
	*out = cp_calloc(n * pipe_flows_n_uops(*pf) * pipe_flows_n_features(*pf) + 1,
			 sizeof **out);
	*status = cp_calloc(n + 1, sizeof **status);
	if (!*out || !*status)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return pipe_flows_bound(*pf, pd, res, threads, *out, *status, err);
}

/* Back to no observation reported (the tallies freed). */
static void report_reset(struct report *r)
{
	size_t i;

	for (i = 0; i < r->n_tally; i++)
		cp_free(r->tally[i].text);
	cp_free(r->tally);
	r->tally = NULL;
	r->n_tally = r->infeasible = r->n_refuting = r->n_obs = r->n_unusable = 0;
}

/* ---- a dataset checked in parts (stats_reader) ---- */

/* The report a check in parts holds in memory at most (its body beyond
 * goes to a temporary file): a text line or a JSON object of about 100
 * to 250 bytes an observation, 100 to 250 MB at 10^6 observations. */
#define REPORT_HOLD ((size_t)8 << 20)

/* The part's observations taken: what the report and the family-wise
 * check need of them after the part is gone. */
struct parts {
	struct report *rep;
	int json;
	struct cp_buf *b, rel;
	size_t usable;
	size_t *inf_at;           /* JSON: where each infeasible one's "refutes" goes */
	size_t n_inf, cap_inf;
	size_t *keep;             /* the part's infeasible observations */
	unsigned char *tail;      /* the last part's: refuted at the family's level */
	size_t n_tail;
	struct pipe_family *family;   /* over the last part */
	struct cp_error strict_err, first_err;  /* the first unusable; observation 0's */
	int have_strict, first_unusable;
	/* the report's body beyond `hold` bytes goes to a temporary file
	 * (spool, -1: none yet), spilled bytes of it, so that the memory of
	 * a check does not grow with its observations; inf_at counts from
	 * the body's start */
	int spool;
	uint64_t spilled;
	size_t hold;
};

/* The report's body held so far, to the spool (err set on failure). */
static int parts_spill(struct parts *p, struct cp_error *err)
{
	if (p->b->failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (p->spool < 0 && (p->spool = cp_temp_fd(err)) < 0)
		return CP_EIO;
	if (cp_write_all(p->spool, p->b->data, p->b->len))
		return cp_error_set(err, CP_EIO, "cannot write a temporary file: %s",
				    strerror(errno));
	p->spilled += p->b->len;
	p->b->len = 0;
	return CP_OK;
}

/* Bytes [from, to) of the report's body, from the spool or memory. */
static int body_copy(const struct parts *p, uint64_t from, uint64_t to,
		     struct cp_output *o, struct cp_error *err)
{
	char buf[1 << 16];

	if (p->spool < 0)
		return cp_output_write(o, p->b->data + from, (size_t)(to - from), err);
	while (from < to) {
		size_t n = to - from < sizeof buf ? (size_t)(to - from) : sizeof buf;
		ssize_t got = pread(p->spool, buf, n, (off_t)from);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return cp_error_set(err, CP_EIO, "cannot read a temporary file: %s",
					    got ? strerror(errno) : "it is shorter than written");
		if (cp_output_write(o, buf, (size_t)got, err))
			return CP_EIO;
		from += (uint64_t)got;
	}
	return CP_OK;
}

/* The report to output: its body with each infeasible observation's
 * "refutes" (JSON), now known, then the summary. */
static int parts_write(struct parts *p, const unsigned char *refutes,
		       const char *output, struct cp_error *err)
{
	struct cp_output o;
	struct cp_buf tail;
	uint64_t from = 0, end;
	size_t i;
	int rc;

	if (p->spool >= 0 && (rc = parts_spill(p, err)))
		return rc;
	if (p->b->failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	end = p->spilled + p->b->len;
	cp_buf_init(&tail);
	if (p->json)
		summary_json(p->rep, &tail);
	else
		summary_text(p->rep, &tail);
	if (tail.failed)
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	else
		rc = cp_output_open(&o, output ? output : "-", err);
	if (rc) {
		cp_buf_release(&tail);
		return rc;
	}
	for (i = 0; i < p->n_inf && !rc; i++) {
		rc = body_copy(p, from, p->inf_at[i], &o, err);
		if (!rc)
			rc = cp_output_write(&o, refutes[i] ? "true" : "false",
					     refutes[i] ? 4 : 5, err);
		from = p->inf_at[i];
	}
	if (!rc)
		rc = body_copy(p, from, end, &o, err);
	if (!rc)
		rc = cp_output_write(&o, tail.data ? tail.data : "", tail.len, err);
	if (!rc)
		rc = cp_output_close(&o, err);
	else
		cp_output_abort(&o);
	cp_buf_release(&tail);
	return rc;
}

/* Observations [0, m) of the part pd (results res) into the report. */
static int parts_take(struct parts *p, const struct pipe_data *pd,
		      const struct feas_result *res, size_t m, size_t *n_keep,
		      struct cp_error *err)
{
	struct report *r = p->rep;
	size_t i;

	r->pd = pd;
	*n_keep = 0;
	for (i = 0; i < m; i++) {
		size_t at = 0, first = r->n_obs + i == 0;
		int inf = pipe_data_region(pd, i) && !res[i].feasible;

		if (inf && p->json && p->n_inf == p->cap_inf) {
			size_t cap = p->cap_inf ? 2 * p->cap_inf : 256;
			size_t *a = cp_reallocarray(p->inf_at, cap, sizeof *a);

			if (!a)
				return cp_error_set(err, CP_ENOMEM, "out of memory");
			p->inf_at = a;
			p->cap_inf = cap;
		}
		if (p->json ? obs_json(r, i, (int)first, &res[i], 0, p->b, &p->rel,
				       inf ? &at : NULL) :
		    obs_text(r, i, &res[i], p->b, &p->rel))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		if (inf && p->json)
			p->inf_at[p->n_inf++] = p->spilled + at;
		if (inf)
			p->keep[(*n_keep)++] = i;
		if (pipe_data_region(pd, i)) {
			p->usable++;
			continue;
		}
		r->n_unusable++;
		if (!p->have_strict) {
			p->have_strict = 1;
			stats_observation_error(pipe_data_dataset(pd), i, CP_EINPUT,
						&p->strict_err, "unusable (--strict): %.600s",
						pipe_data_unusable(pd, i));
		}
		if (first) {
			p->first_unusable = 1;
			stats_observation_error(pipe_data_dataset(pd), i, CP_EINPUT,
						&p->first_err, "%.600s (no observation can "
						"form a region; this is the first)",
						pipe_data_unusable(pd, i));
		}
	}
	r->n_obs += m;
	return CP_OK;
}

/* The family-wise check of the observations kept (those infeasible), read
 * again: refutes[j] for the j-th of them. */
static int parts_family(struct stats_reader *rd, const struct udd_model *model,
			const struct pipe_options *po, struct pipe_model *pm,
			double family_confidence, size_t n_usable, size_t threads,
			unsigned char *refutes, size_t *n_refuting,
			struct cp_error *err)
{
	enum { MAX = 4096 };
	size_t idx[MAX], n, j, done = 0;
	struct pipe_options o = *po;
	int rc = CP_OK;

	*n_refuting = 0;
	o.n_observations = 0;
	o.partial = 0;
	for (;;) {
		const struct stats_dataset *d;
		struct pipe_data *pd = NULL;
		struct pipe_family *fam = NULL;
		struct feas_result *res = NULL;
		unsigned char *ref = NULL;
		size_t no, i, nr;

		if ((rc = stats_reader_kept(rd, &d, idx, MAX, &n, err)) || !n)
			break;
		if ((rc = pipe_data_new(model, d, &o, &pd, err)))
			break;
		no = pipe_data_n_observations(pd);
		res = cp_calloc(no + 1, sizeof *res);
		ref = cp_calloc(no + 1, 1);
		if (!res || !ref)
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		for (i = 0; !rc && i < no; i++)
			res[i].feasible = 1;    /* not one kept: not checked */
		for (j = 0; !rc && j < n; j++) {
			if (idx[j] >= no)
				rc = cp_error_set(err, CP_EINTERNAL, "an observation "
						  "kept is not where it was read");
			else
				res[idx[j]].feasible = 0;
		}
		if (!rc)
			rc = pipe_family_new(pd, family_confidence, n_usable, &fam, err);
		if (!rc)
			rc = pipe_family_check(fam, pm, res, threads, ref, &nr, NULL, err);
		for (j = 0; !rc && j < n; j++) {
			refutes[done + j] = ref[idx[j]];
			*n_refuting += ref[idx[j]];
		}
		done += n;
		pipe_family_free(fam);
		cp_free(res);
		cp_free(ref);
		pipe_data_free(pd);
		if (rc)
			break;
	}
	return rc;
}

/* The family-wise check of the last part's infeasible observations
 * (p->keep, n of them), on the part itself: the part in memory is the
 * rest of the input, so nothing of it is read again.  Also the summary's
 * family (p->family). */
static int parts_family_last(struct parts *p, const struct pipe_data *pd,
			     struct pipe_model *pm, const struct feas_result *res,
			     size_t n, double family_confidence, size_t threads,
			     struct cp_error *err)
{
	size_t no = pipe_data_n_observations(pd), nr, j;
	unsigned char *ref = cp_calloc(no + 1, 1);
	int rc;

	if (!(p->tail = cp_calloc(n + 1, 1)) || !ref) {
		cp_free(ref);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	if (!(rc = pipe_family_new(pd, family_confidence, p->usable, &p->family, err)) &&
	    !(rc = pipe_family_check(p->family, pm, res, threads, ref, &nr, NULL, err)))
		for (j = 0; j < n; j++)
			p->tail[j] = ref[p->keep[j]];
	p->n_tail = n;
	cp_free(ref);
	return rc;
}

/* `check` on a dataset read in parts: each part's regions built and
 * checked as it comes, its observations' report written, its infeasible
 * ones kept to be read again for the family-wise claim.  The report is
 * the one a check of the whole dataset writes.  Returns a CLI status, or
 * -1 when the input must be loaded whole (a file not grouped by
 * observation, or one with bad rows, whose messages the whole file
 * gives). */
static int check_parts(struct report *rep, int json, int strict,
		       const struct udd_model *model, udd_features sel,
		       const struct pipe_options *po, const struct pipe_budget *budget,
		       double family_confidence, size_t threads, int by_index,
		       const char *output, struct phases *phases, struct cp_error *err)
{
	struct stats_reader *rd = NULL;
	struct pipe_model *pm = NULL;
	struct pipe_family *family = NULL;
	struct pipe_data *pd = NULL, *last = NULL;
	const struct stats_dataset *d, *events = NULL;
	unsigned char *refutes = NULL;
	struct cp_buf b;
	struct parts p;
	struct progress prog;
	size_t i, usable_before = 0, part = 0, loads = 0;
	double reads = 0;
	int rc = CLI_OK;

	memset(&p, 0, sizeof p);
	cp_buf_init(&b);
	cp_buf_init(&p.rel);
	p.rep = rep;
	p.json = json;
	p.b = &b;
	p.spool = -1;
	p.hold = REPORT_HOLD;
	memset(&prog, 0, sizeof prog);
	cli_progress_init(&prog.line, "check");
	cp_error_clear(&p.strict_err);
	cp_error_clear(&p.first_err);
	rep->opt = po;
	/* the size of a part, for the tests: small parts cut small files
	 * (and a report held in memory up to an eighth of one) */
	if (getenv("COUNTERPOINT_PART_BYTES")) {
		part = strtoull(getenv("COUNTERPOINT_PART_BYTES"), NULL, 10);
		p.hold = part / 8;
	}
	if (stats_reader_open(rep->data_path, po->threads, part, &rd, err))
		goto fail;
	if (by_index && stats_reader_index(rd, FEAS_CHUNK, &loads, &reads, err)) {
		if (stats_reader_rereadable(rd) && err->code == CP_EINPUT)
			rc = -1;
		goto fail;
	}
	prog.rd = rd;
	for (;;) {
		struct pipe_options o = *po;
		struct feas_result *res = NULL;
		size_t nw, m, n_keep = 0;
		int crc, first;

		if (stats_reader_next(rd, &d, &nw, err)) {
			/* not grouped: by observation (a file); whole: every
			 * bad row (not a file that cannot be read) */
			if (!stats_reader_grouped(rd) && stats_reader_seekable(rd))
				rc = -2;
			else if (stats_reader_rereadable(rd) && err->code == CP_EINPUT)
				rc = -1;
			goto fail;
		}
		if (!d)
			break;
		events = d;
		o.stream = 1;
		o.n_observations = nw;
		o.usable_before = usable_before;
		o.partial = !stats_reader_last(rd);
		pipe_data_free(last);
		last = NULL;
		first = !pm;
		if (pipe_data_new(model, d, &o, &pd, err) ||
		    (first && pipe_model_new(model, sel, pd, budget, &pm, err))) {
			/* a part of a file not grouped may lack what the file
			 * has (a file sorted by event): by observation, which
			 * says it again if the whole file lacks it */
			if (!by_index && o.partial && stats_reader_seekable(rd))
				rc = -2;
			goto fail;
		}
		if (first) {
			rep->pm = pm;
			if (json)
				head_json(rep, pd, &b);
		}
		nw = pipe_data_n_observations(pd);
		p.keep = cp_calloc(nw + 1, sizeof *p.keep);
		res = cp_calloc(nw + 1, sizeof *res);
		if (!res || !p.keep) {
			cp_free(res);
			cp_error_set(err, CP_ENOMEM, "out of memory");
			goto fail;
		}
		for (i = 0; i < nw; i++)
			feas_result_init(&res[i]);
		crc = pipe_check_stream(pm, pd, FEAS_EXPLAIN, threads, res, NULL,
					progress_cb, &prog, err);
		m = crc ? 0 : stats_reader_cut(rd, pipe_data_n_done(pd));
		if (!crc) {
			size_t before = p.usable;

			crc = parts_take(&p, pd, res, m, &n_keep, err);
			usable_before += p.usable - before;
			prog.before += m;
		}
		if (!crc && b.len >= p.hold)
			crc = parts_spill(&p, err);
		if (!crc && stats_reader_last(rd) && m == nw)
			crc = parts_family_last(&p, pd, pm, res, n_keep,
						family_confidence, threads, err);
		else if (!crc)
			crc = stats_reader_keep(rd, p.keep, n_keep, err);
		if (!crc)
			crc = stats_reader_take(rd, m, err);
		for (i = 0; i < nw; i++)
			feas_result_release(&res[i]);
		cp_free(res);
		cp_free(p.keep);
		p.keep = NULL;
		last = pd;      /* the options and counters, for the summary */
		pd = NULL;
		if (crc)
			goto fail;
	}
	cli_progress_end(&prog.line);
	phase_mark(phases, "load, regions and checks in parts");
	if (by_index)
		fprintf(stderr, "counterpoint check: note: %s is not grouped by "
			"observation: read by observation in %zu part%s, %.1f times "
			"its size after a first reading (grouped, it is read once)\n",
			stats_reader_name(rd), loads, loads == 1 ? "" : "s", reads);
	if (events)
		cli_note_unread_events("check", rep->data_path, model, events);
	if (pm && !pipe_model_has_facets(pm) && budget->max_facets)
		fprintf(stderr, "counterpoint check: note: the cone's facets are not "
			"listed (%s); violations are explained from LP certificates\n",
			pipe_model_no_facets(pm));
	if (strict && p.have_strict) {
		*err = p.strict_err;
		goto fail;
	}
	if (rep->n_obs && rep->n_unusable == rep->n_obs) {
		*err = p.first_err;
		goto fail;
	}
	if (!last) {
		cp_error_set(err, CP_EINTERNAL, "'%s' gave no part", rep->data_path);
		goto fail;
	}
	if (!(refutes = cp_calloc(rep->infeasible + 1, 1))) {
		cp_error_set(err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	if (parts_family(rd, model, po, pm, family_confidence, p.usable, threads,
			 refutes, &rep->n_refuting, err))
		goto fail;
	/* the last part's, checked as it was read (parts_family_last) */
	for (i = 0; i < p.n_tail; i++) {
		refutes[rep->infeasible - p.n_tail + i] = p.tail[i];
		rep->n_refuting += p.tail[i];
	}
	family = p.family;
	p.family = NULL;
	if (!family && pipe_family_new(last, family_confidence, p.usable, &family, err))
		goto fail;
	phase_mark(phases, "family-wise");
	rep->family = family;
	if (parts_write(&p, refutes, output, err))
		goto fail;
	phase_mark(phases, "report");
	phases_print(phases);
	if (rc == CLI_OK && rep->infeasible)
		rc = CLI_RESULT;
	goto out;
fail:
	if (rc != -1 && rc != -2)
		rc = cli_print_error("check", err);
out:
	cli_progress_end(&prog.line);
	if (p.spool >= 0)
		close(p.spool);
	cp_buf_release(&b);
	cp_buf_release(&p.rel);
	cp_free(p.inf_at);
	cp_free(p.keep);
	cp_free(p.tail);
	cp_free(refutes);
	pipe_family_free(p.family);
	pipe_family_free(family);
	pipe_data_free(pd);
	pipe_data_free(last);
	pipe_model_free(pm);
	stats_reader_close(rd);
	return rc;
}

/* ---- the command ---- */

/* Long only because getopt_long wants one case per option; the work is
 * the library pipeline (pipeline/pipeline.h) and the report writers
 * above. */
int cli_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_OPT_WITH, CLI_OPT_REGION, CLI_OPT_CONFIDENCE,
		CLI_OPT_FAMILY_CONFIDENCE, CLI_OPT_JSON, CLI_OPT_THREADS,
		CLI_OPT_VIOLATIONS, CLI_OPT_BATCHES, CLI_OPT_PER_INTERVAL,
		CLI_OPT_COUNTERS, CLI_OPT_HTML, CLI_OPT_PLOTS,
		{ "max-facets", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *with, *output = NULL, *html;
	struct cli_data_options dop;
	struct pipe_options po;
	struct pipe_budget budget = PIPE_BUDGET_CHECK;
	size_t threads, i, n = 0, plots;
	int json, strict = 0, opt, rc = CLI_OK, by_index;
	struct udd_model *model = NULL;
	struct stats_dataset *data = NULL;
	struct pipe_data *pd = NULL;
	struct pipe_model *pm = NULL;
	struct feas_result *res = NULL;
	udd_features sel = 0;
	struct pipe_flows *pf = NULL;
	struct pipe_flow_bounds *fout = NULL;
	enum pipe_flow_status *fstatus = NULL;
	struct pipe_family *family = NULL;
	unsigned char *refutes = NULL;
	double family_confidence;
	struct cp_error err;
	struct cp_buf b, page;
	struct report rep;
	struct progress prog;
	struct phases phases;

	memset(&phases, 0, sizeof phases);
	memset(&rep, 0, sizeof rep);
	cli_data_options_init(&dop);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:hv", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (cli_parse_size("check", "--max-facets", optarg, &budget.max_facets))
				return CLI_USAGE;
			break;
		case 'S':
			strict = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'v':
			phases.on = 1;
			break;
		case 'h':
			fputs(check_help, stdout);
			return CLI_OK;
		default:
			if ((rc = cli_data_option("check", opt, optarg, argv, longopts, &dop)))
				return rc;
		}
	}
	cli_data_pipe_options(&dop, &po);
	with = dop.with;
	html = dop.html;
	json = dop.json;
	threads = dop.threads;
	plots = dop.plots;
	family_confidence = dop.family_confidence;
	rep.max_violations = dop.violations;
	if ((rc = cli_model_and_data("check", argc, optind)))
		return rc;
	rep.model_path = argv[optind];
	rep.data_path = argv[optind + 1];
	{
		const struct cp_file_use files[] = {
			{ "MODEL", rep.model_path, 0 }, { "DATA", rep.data_path, 0 },
			{ "-o", output, 1 }, { "--html", html, 1 }
		};

		if ((rc = cli_files_distinct("check", files, 4)))
			return rc;
	}
	cp_error_clear(&err);
	cp_buf_init(&b);
	cp_buf_init(&page);

	po.threads = threads ? threads : feas_cpu_count();   /* regions too */
	po.shape_only = !html;   /* the browser report draws every shape */
	/* regions built as they are checked, and trimmed once checked:
	 * the reports below read only their numbers (the browser report
	 * draws them, and MPI hands the built ones out) */
	po.stream = !html && cli_mpi_size() <= 1;
#ifdef __GLIBC__
	/* A streamed check keeps no region: what its threads allocate (a
	 * region's arrays and temporaries, 30-odd blocks an observation, and
	 * GLPK's) is freed soon after, so each thread is better off with an
	 * arena of its own: at two threads a shared arena's allocator and
	 * lock took 13% of the samples.  Before any thread starts, as glibc
	 * fixes the count when the first one needs an arena; a caller's
	 * arena_max stands. */
	if (po.stream && !(getenv("GLIBC_TUNABLES") &&   /* the caller's own */
			   strstr(getenv("GLIBC_TUNABLES"), "glibc.malloc.arena_max")))
		mallopt(M_ARENA_MAX, (int)(po.threads < 64 ? po.threads : 64));
#endif
	if (cli_mpi_rank() > 0)
		return cli_mpi_check_worker(rep.model_path, with, &po, &budget);
	rc = cli_load_model("check", rep.model_path, with, CLI_USAGE, &model, &sel);
	if (rc)
		return rc;
	rep.model = model;
	rep.sel = sel;
	cli_progress_init(&prog.line, "check");
	prog.what = "regions ";
	phase_mark(&phases, NULL);
	/* in parts; a file not grouped by observation comes back (-2), to
	 * be read by observation; one that must be loaded whole comes back
	 * (-1), to be loaded below */
	for (by_index = 0; po.stream && by_index < 2; by_index++) {
		rc = check_parts(&rep, json, strict, model, sel, &po, &budget,
				 family_confidence, threads, by_index, output,
				 &phases, &err);
		if (rc >= 0)
			goto out;
		report_reset(&rep);
		cp_error_clear(&err);
		if (phases.on)
			cp_buf_release(&phases.line);
		phase_mark(&phases, NULL);
		if (rc == -1)
			break;
	}
	rc = CLI_OK;
	if (stats_dataset_load_threads(rep.data_path, po.threads, &data, NULL, &err))
		goto fail;
	phase_mark(&phases, "load");
	cli_note_unread_events("check", rep.data_path, model, data);
	if (pipe_data_new(model, data, &po, &pd, &err))
		goto fail;
	if (!po.stream)
		phase_mark(&phases, "regions");
	n = pipe_data_n_observations(pd);
	if (pipe_model_new(model, sel, pd, &budget, &pm, &err))
		goto fail;
	phase_mark(&phases, "model");
	if (!pipe_model_has_facets(pm) && budget.max_facets)
		fprintf(stderr, "counterpoint check: note: the cone's facets are not "
			"listed (%s); violations are explained from LP certificates\n",
			pipe_model_no_facets(pm));
	if (!po.stream && unusable_error(data, pd, strict, &err))
		goto fail;
	res = cp_calloc(n + 1, sizeof *res);
	if (!res) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	for (i = 0; i < n; i++)
		feas_result_init(&res[i]);
	prog.what = "checking";
	if (po.stream ?
	    pipe_check_stream(pm, pd, FEAS_EXPLAIN, threads, res, NULL, progress_cb,
			      &prog, &err) :
	    cli_mpi_size() > 1 ?
	    cli_mpi_check(rep.model_path, rep.data_path, data, pd, pm, threads, res, &err) :
	    pipe_check(pm, pd, FEAS_EXPLAIN, threads, res, NULL, progress_cb, &prog, &err))
		goto fail;
	cli_progress_end(&prog.line);
	phase_mark(&phases, po.stream ? "regions and checks" : "checks");
	if (po.stream && unusable_error(data, pd, strict, &err))
		goto fail;

	/* the model as a whole, at the family-wise level over the usable
	 * observations: those infeasible are checked again at C^(1/n) */
	if (pipe_family_new(pd, family_confidence, n - pipe_data_n_unusable(pd), &family,
			    &err) ||
	    !(refutes = cp_calloc(n + 1, 1)) ||
	    pipe_family_check(family, pm, res, threads, refutes, &rep.n_refuting, NULL,
			      &err)) {
		if (!refutes)
			cp_error_set(&err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	phase_mark(&phases, "family-wise");
	rep.pd = pd;
	rep.pm = pm;
	rep.res = res;
	rep.family = family;
	rep.refutes = refutes;
	rep.opt = pipe_data_options(pd);
	rep.n_obs = n;
	rep.n_unusable = pipe_data_n_unusable(pd);
	if (report_whole(&rep, json, &b)) {
		cp_error_set(&err, CP_ENOMEM, "out of memory");
		goto fail;
	}
	if (html) {
		struct report_check hc = { rep.model_path, rep.data_path, pd, pm, res,
					   NULL, NULL, NULL, plots };

		/* the page draws the features' flow bounds, as `flows` gives them */
		if (sel && html_flows(model, sel, pd, res, threads, &pf, &fout, &fstatus,
				      &err))
			goto fail;
		hc.pf = pf;
		hc.flows = fout;
		hc.flow_status = fstatus;
		if ((rc = cli_html_check(&hc, &page)))
			goto out;
	}
	{	/* the report and the page together: a failure writes neither */
		const char *paths[2] = { output, html };
		struct cp_buf *bufs[2] = { &b, &page };

		rc = cli_write_outputs("check", paths, bufs, html ? 2 : 1);
	}
	phase_mark(&phases, "report");
	phases_print(&phases);
	if (rc == CLI_OK && rep.infeasible)
		rc = CLI_RESULT;
	goto out;
fail:
	cli_progress_end(&prog.line);
	rc = cli_print_error("check", &err);
out:
	if (phases.on)
		cp_buf_release(&phases.line);
	cp_buf_release(&b);
	report_reset(&rep);
	cp_buf_release(&page);
	for (i = 0; res && i < n; i++)
		feas_result_release(&res[i]);
	cp_free(res);
	cp_free(fout);
	cp_free(fstatus);
	cp_free(refutes);
	pipe_family_free(family);
	pipe_flows_free(pf);
	pipe_model_free(pm);
	pipe_data_free(pd);
	stats_dataset_free(data);
	udd_model_free(model);
	feas_thread_end();
	return rc;
}
