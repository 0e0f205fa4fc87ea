/* report/observations.c: the check section of a report: a summary table of
 * the verdicts, then per observation its verdict, the constraints its
 * region breaks with their margins, and the plot of the constraint it is
 * about (report_check_constraint). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "geometry/cone.h"
#include "report/report.h"

static const char *shape_word(enum feas_shape s)
{
	return s == FEAS_PCA ? "PCA box" : s == FEAS_INDEPENDENT ? "independent box"
		: "ellipsoid";
}

int report_check_constraint(const struct report_check *c, size_t obs,
			    const int64_t **a, int *is_eq, double *margin,
			    double *mean_sd)
{
	const struct feas_result *res = &c->res[obs];
	const struct feas_query *q = pipe_data_query(c->pd, obs);
	size_t k = pipe_data_n_counters(c->pd), i, j, best = 0, lo, hi;
	size_t n_eq = pipe_model_n_equalities(c->pm);
	double bm = -INFINITY, coef[64], *buf = coef;
	int found = 0;

	if (!pipe_data_region(c->pd, obs))
		return 0;
	if (!res->feasible) {
		for (i = 0; i < res->n_violations; i++)
			if (!found || res->violations[i].margin > bm) {
				bm = res->violations[i].margin;
				best = i;
				found = 1;
			}
		if (!found)
			return 0;
		*a = res->violations[best].a;
		*is_eq = res->violations[best].is_equality;
		*margin = res->violations[best].margin;
		*mean_sd = res->violations[best].mean_sd;
		return 1;
	}
	if (!pipe_model_has_facets(c->pm))
		return 0;
	/* the facets; the equalities only when the cone has none */
	lo = pipe_model_n_facets(c->pm) ? n_eq : 0;
	hi = pipe_model_n_facets(c->pm) ? n_eq + pipe_model_n_facets(c->pm) : n_eq;
	if (k > 64 && !(buf = cp_calloc(k, sizeof *buf)))
		return -1;
	for (i = lo; i < hi; i++) {
		const int64_t *ai = pipe_model_constraint(c->pm, i);
		double m, ms;

		for (j = 0; j < k; j++)
			buf[j] = (double)ai[j];
		m = feas_margin(q, buf, k, i < n_eq, &ms);
		if (!found || m > bm) {
			bm = m;
			best = i;
			*margin = m;
			*mean_sd = ms;
			found = 1;
		}
	}
	if (buf != coef)
		cp_free(buf);
	if (!found)
		return 0;
	*a = pipe_model_constraint(c->pm, best);
	*is_eq = best < n_eq;
	return 1;
}

static void put_constraint(struct cp_buf *b, const struct report_check *c,
			   const int64_t *a, int is_eq)
{
	struct cp_buf t;

	cp_buf_init(&t);
	cone_format_constraint(a, pipe_data_n_counters(c->pd), pipe_data_names(c->pd),
			       is_eq, &t);
	cp_buf_puts(b, "<code>");
	report_html_text(b, t.data ? t.data : "");
	cp_buf_puts(b, "</code>");
	b->failed |= t.failed;
	cp_buf_release(&t);
}

static void verdict_cell(struct cp_buf *b, const struct report_check *c, size_t i)
{
	if (!pipe_data_region(c->pd, i))
		cp_buf_puts(b, "<span class=\"unusable\">unusable</span>");
	else if (c->res[i].feasible)
		cp_buf_puts(b, "<span class=\"feasible\">feasible</span>");
	else
		cp_buf_puts(b, "<span class=\"infeasible\">INFEASIBLE</span>");
	if (pipe_data_region(c->pd, i) && pipe_verdict_note(&c->res[i]))
		cp_buf_printf(b, " (%s)", pipe_verdict_note(&c->res[i]));
}

static void summary(const struct report_check *c, struct cp_buf *b)
{
	const struct pipe_options *o = pipe_data_options(c->pd);
	const struct stats_dataset *d = pipe_data_dataset(c->pd);
	size_t n = pipe_data_n_observations(c->pd), i, bad = 0;

	for (i = 0; i < n; i++)
		bad += pipe_data_region(c->pd, i) && !c->res[i].feasible;
	cp_buf_puts(b, "<section class=\"check\">\n<h2>Observations</h2>\n<p>Model <code>");
	report_html_text(b, c->model_path);
	cp_buf_puts(b, "</code>, data <code>");
	report_html_text(b, c->data_path);
	cp_buf_printf(b, "</code>: %zu observation%s, %zu infeasible, %zu unusable; "
		      "regions: %s at confidence %g; ", n, n == 1 ? "" : "s", bad,
		      pipe_data_n_unusable(c->pd), shape_word(o->shape), o->confidence);
	if (pipe_model_has_facets(c->pm))
		cp_buf_printf(b, "cone: %zu equalit%s, %zu facet%s.</p>\n",
			      pipe_model_n_equalities(c->pm),
			      pipe_model_n_equalities(c->pm) == 1 ? "y" : "ies",
			      pipe_model_n_facets(c->pm),
			      pipe_model_n_facets(c->pm) == 1 ? "" : "s");
	else
		cp_buf_puts(b, "cone facets not listed (violations from LP "
			    "certificates).</p>\n");
	cp_buf_puts(b, "<table class=\"verdicts\">\n<tr><th>observation</th><th>verdict"
		    "</th><th>violated constraints</th><th>largest margin (sd)</th></tr>\n");
	for (i = 0; i < n; i++) {
		const struct feas_result *res = &c->res[i];
		double m = -INFINITY;
		size_t j;

		cp_buf_printf(b, "<tr><td><a href=\"#obs-%zu\">", i + 1);
		report_html_text(b, stats_dataset_observation(d, i));
		cp_buf_puts(b, "</a></td><td>");
		verdict_cell(b, c, i);
		if (!pipe_data_region(c->pd, i)) {
			cp_buf_puts(b, "</td><td colspan=\"2\">");
			report_html_text(b, pipe_data_unusable(c->pd, i));
			cp_buf_puts(b, "</td></tr>\n");
			continue;
		}
		for (j = 0; j < res->n_violations; j++)
			m = fmax(m, res->violations[j].margin);
		cp_buf_printf(b, "</td><td>%zu</td><td>", res->n_violations);
		if (res->n_violations)
			cp_buf_printf(b, "%.3g", m);
		cp_buf_puts(b, "</td></tr>\n");
	}
	cp_buf_puts(b, "</table>\n");
}

static int observation(const struct report_check *c, size_t i, struct cp_buf *b,
		       struct cp_error *err)
{
	const struct pipe_options *o = pipe_data_options(c->pd);
	const struct stats_dataset *d = pipe_data_dataset(c->pd);
	const struct region *r = pipe_data_region(c->pd, i);
	const struct feas_result *res = &c->res[i];
	struct report_plot p;
	char id[32];
	size_t j, x, y;
	int rc;

	cp_buf_printf(b, "<section class=\"observation\" id=\"obs-%zu\">\n<h3>", i + 1);
	report_html_text(b, stats_dataset_observation(d, i));
	cp_buf_puts(b, ": ");
	verdict_cell(b, c, i);
	cp_buf_puts(b, "</h3>\n");
	if (!r) {
		cp_buf_puts(b, "<p>No region: ");
		report_html_text(b, pipe_data_unusable(c->pd, i));
		cp_buf_puts(b, ".</p>\n");
		return CP_OK;
	}
	cp_buf_printf(b, "<p>%s from %zu samples", shape_word(o->shape), r->n);
	if (o->shape == FEAS_ELLIPSOID)
		cp_buf_printf(b, "; squared distance to the cone %.4g against q %.4g, "
			      "p %.3g", res->d2, r->q, res->p_value);
	if (r->runs)
		cp_buf_printf(b, "; a perf stat -r summary of %zu runs: means and "
			      "standard errors only, correlations unknown (the "
			      "independent box)", r->runs);
	else if (r->rule == REGION_RULE_DIAGONAL)
		cp_buf_puts(b, "; diagonal rule (too few samples for the full covariance)");
	if (r->dof_floored)
		cp_buf_puts(b, "; autocorrelated and short: the region may be too small");
	cp_buf_puts(b, ".</p>\n");
	if (res->n_violations) {
		/* the largest margins first (solver/feas.h); past five, the
		 * rest in a folded table of their own */
		cp_buf_puts(b, "<table class=\"violations\">\n<tr><th>violated constraint"
			    "</th><th>margin (sd)</th><th>centre (sd)</th></tr>\n");
		for (j = 0; j < res->n_violations; j++) {
			const struct feas_violation *v = &res->violations[j];

			if (j == 5)
				cp_buf_printf(b, "</table>\n<details><summary>%zu more"
					      "</summary>\n<table class=\"violations\">\n",
					      res->n_violations - 5);
			cp_buf_puts(b, "<tr><td>");
			put_constraint(b, c, v->a, v->is_equality);
			if (v->index == FEAS_NO_INDEX)
				cp_buf_puts(b, " (from the LP certificate)");
			cp_buf_printf(b, "</td><td>%.3g</td><td>%.3g</td></tr>\n", v->margin,
				      v->mean_sd);
		}
		cp_buf_puts(b, res->n_violations > 5 ? "</table>\n</details>\n" :
			    "</table>\n");
	}
	memset(&p, 0, sizeof p);
	p.region = r;
	p.checked = o->shape;
	p.names = pipe_data_names(c->pd);
	p.signatures = pipe_model_signatures(c->pm);
	p.n_signatures = pipe_model_n_signatures(c->pm);
	p.role = res->feasible ? "tightest" : "most violated";
	snprintf(id, sizeof id, "plot%zu", i + 1);
	p.id = id;
	rc = report_check_constraint(c, i, &p.constraint, &p.is_equality, &p.margin,
				     &p.mean_sd);
	if (rc < 0)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	if (!rc)
		p.constraint = NULL;
	if (r->k < 2) {
		cp_buf_puts(b, "<p class=\"note\">One counter: no plane to plot.</p>\n");
		return CP_OK;
	}
	report_plot_axes(&p, &x, &y);
	cp_buf_puts(b, "<figure>\n");
	if ((rc = report_plot_svg(&p, b, err)))
		return rc;
	cp_buf_puts(b, "<figcaption>");
	if (p.constraint) {
		cp_buf_printf(b, "The %s constraint, ", p.role);
		put_constraint(b, c, p.constraint, p.is_equality);
		cp_buf_printf(b, " (margin %.3g sd: %s), on its two heaviest counters "
			      "<code>", p.margin, p.margin > 0 ?
			      "the whole region breaks it" : "the region meets it");
	} else {
		cp_buf_puts(b, pipe_model_has_facets(c->pm) ?
			    "No constraint to show; the two counters of largest mean, <code>" :
			    "No constraint to show (the cone's facets are not listed); "
			    "the two counters of largest mean, <code>");
	}
	report_html_text(b, p.names[x]);
	cp_buf_puts(b, "</code> and <code>");
	report_html_text(b, p.names[y]);
	cp_buf_puts(b, "</code>.  The cone and the three regions are exact projections "
		    "onto this plane; the constraint's line holds the other counters "
		    "at the observation's mean.</figcaption>\n</figure>\n");
	return CP_OK;
}

int report_check_html(const struct report_check *c, struct cp_buf *b,
		      struct cp_error *err)
{
	size_t n = pipe_data_n_observations(c->pd), i;
	int rc;

	summary(c, b);
	for (i = 0; i < n; i++) {
		size_t cells;

		if ((rc = observation(c, i, b, err)))
			return rc;
		if (c->pf) {
			cells = pipe_flows_n_uops(c->pf) * pipe_flows_n_features(c->pf);
			report_flows_html(c->pf, c->flow_status[i], &c->flows[i * cells],
					  stats_dataset_observation(pipe_data_dataset(c->pd), i),
					  b);
		}
		cp_buf_puts(b, "</section>\n");   /* observation()'s */
	}
	cp_buf_puts(b, "</section>\n");
	if (b->failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return CP_OK;
}
