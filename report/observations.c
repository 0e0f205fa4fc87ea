/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/observations.c: the check section of a report, the answer
 * first: the verdict for the model as a whole and the constraints ranked
 * by how many observations break them; then the table of observations x
 * violated constraints (margins, colour-scaled, the most violated
 * observation first, emitted in that order); then each observation's
 * details, folded, with the plot of the constraint it is about
 * (report_check_constraint) for the `plots` most violated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/cone.h"
#include "report/report.h"
#include "report/report_int.h"

/* Constraint columns of the table; the others are counted in one. */
#define MATRIX_COLUMNS 16
/* Constraints listed before the rest are folded. */
#define RANKED_SHOWN 10

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

/* ---- the distinct violated constraints, ranked ---- */

struct ranked {
	const int64_t *a;       /* k coefficients (an observation's result's) */
	int is_eq;
	size_t count;           /* observations breaking it */
	double largest;         /* its largest margin, at observation `where` */
	size_t where;
	size_t last;            /* 1 + the last observation counted */
};

/* What the section is built from: the order of the observations, the
 * ranked constraints and each violation's rank. */
struct plan {
	size_t n, k;
	size_t *order;          /* infeasible by largest margin, feasible,
				 * unusable; dataset order on ties */
	double *largest;        /* per infeasible observation: its largest
				 * margin (-inf without violations) */
	size_t n_ranked;
	struct ranked *ranked;
	size_t *start;          /* n + 1: observation i's violations are
				 * rank_of[start[i] .. start[i + 1]) */
	size_t *rank_of;
	size_t n_bad, n_feasible, n_unusable, n_undecided;
};

/* qsort has no context argument: what the comparisons read, set just
 * before each sort (the report runs on one thread) */
static size_t sort_k;
static const struct ranked *sort_ranked;
static const double *sort_largest;

struct vref {
	const int64_t *a;
	int is_eq;
	size_t slot;            /* index into rank_of */
};

static int same_constraint(const struct vref *p, const struct vref *q)
{
	return p->is_eq == q->is_eq && !memcmp(p->a, q->a, sort_k * sizeof *p->a);
}

static int vref_cmp(const void *x, const void *y)
{
	const struct vref *p = x, *q = y;
	size_t j;

	if (p->is_eq != q->is_eq)
		return p->is_eq - q->is_eq;
	for (j = 0; j < sort_k; j++)
		if (p->a[j] != q->a[j])
			return p->a[j] < q->a[j] ? -1 : 1;
	return p->slot < q->slot ? -1 : p->slot > q->slot;
}

/* The most observations first, then the largest margin, then the first
 * observation found */
static int rank_cmp(const void *x, const void *y)
{
	const struct ranked *p = &sort_ranked[*(const size_t *)x];
	const struct ranked *q = &sort_ranked[*(const size_t *)y];

	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	if (p->largest != q->largest)
		return p->largest > q->largest ? -1 : 1;
	if (p->where != q->where)
		return p->where < q->where ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

static int order_cmp(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	double mi = sort_largest[i], mj = sort_largest[j];

	if (mi != mj)
		return mi > mj ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* 0 infeasible, 1 feasible, 2 unusable */
static int class_of(const struct report_check *c, size_t i)
{
	if (!pipe_data_region(c->pd, i))
		return 2;
	return c->res[i].feasible ? 1 : 0;
}

static void plan_free(struct plan *pl)
{
	cp_free(pl->order);
	cp_free(pl->largest);
	cp_free(pl->ranked);
	cp_free(pl->start);
	cp_free(pl->rank_of);
}

static int plan_make(const struct report_check *c, struct plan *pl)
{
	size_t n = pipe_data_n_observations(c->pd), i, j, t, total = 0;
	size_t groups[3] = { 0, 0, 0 }, at[3], *perm = NULL, *inv = NULL;
	struct ranked *copy = NULL;
	struct vref *refs = NULL;
	int rc = CP_ENOMEM;

	memset(pl, 0, sizeof *pl);
	pl->n = n;
	pl->k = pipe_data_n_counters(c->pd);
	for (i = 0; i < n; i++)
		if (class_of(c, i) == 0)
			total += c->res[i].n_violations;
	pl->order = cp_calloc(n + 1, sizeof *pl->order);
	pl->largest = cp_calloc(n + 1, sizeof *pl->largest);
	pl->start = cp_calloc(n + 1, sizeof *pl->start);
	pl->rank_of = cp_calloc(total + 1, sizeof *pl->rank_of);
	pl->ranked = cp_calloc(total + 1, sizeof *pl->ranked);
	refs = cp_calloc(total + 1, sizeof *refs);
	perm = cp_calloc(total + 1, sizeof *perm);
	inv = cp_calloc(total + 1, sizeof *inv);
	copy = cp_calloc(total + 1, sizeof *copy);
	if (!pl->order || !pl->largest || !pl->start || !pl->rank_of || !pl->ranked ||
	    !refs || !perm || !inv || !copy)
		goto out;
	/* every violation of an infeasible observation */
	for (i = 0, t = 0; i < n; i++) {
		const struct feas_result *res = &c->res[i];
		int cl = class_of(c, i);

		pl->start[i] = t;
		pl->largest[i] = -INFINITY;
		groups[cl]++;
		if (cl)
			continue;
		pl->n_undecided += res->undecided != 0;
		for (j = 0; j < res->n_violations; j++, t++) {
			refs[t].a = res->violations[j].a;
			refs[t].is_eq = res->violations[j].is_equality;
			refs[t].slot = t;
			pl->largest[i] = fmax(pl->largest[i], res->violations[j].margin);
		}
	}
	pl->start[n] = t;
	pl->n_bad = groups[0];
	pl->n_feasible = groups[1];
	pl->n_unusable = groups[2];
	/* the distinct ones, by their coefficients */
	sort_k = pl->k;
	qsort(refs, total, sizeof *refs, vref_cmp);
	for (t = 0; t < total; t++) {
		if (!t || !same_constraint(&refs[t], &refs[t - 1])) {
			pl->ranked[pl->n_ranked].a = refs[t].a;
			pl->ranked[pl->n_ranked].is_eq = refs[t].is_eq;
			pl->ranked[pl->n_ranked].largest = -INFINITY;
			pl->n_ranked++;
		}
		pl->rank_of[refs[t].slot] = pl->n_ranked - 1;
	}
	/* how many observations break each, and by how much at most */
	for (i = 0; i < n; i++)
		for (t = pl->start[i]; t < pl->start[i + 1]; t++) {
			struct ranked *r = &pl->ranked[pl->rank_of[t]];
			double m = c->res[i].violations[t - pl->start[i]].margin;

			if (r->last != i + 1) {
				r->last = i + 1;
				r->count++;
			}
			if (m > r->largest) {
				r->largest = m;
				r->where = i;
			}
		}
	/* ranked, and each violation renumbered to its rank */
	for (t = 0; t < pl->n_ranked; t++)
		perm[t] = t;
	sort_ranked = pl->ranked;
	qsort(perm, pl->n_ranked, sizeof *perm, rank_cmp);
	memcpy(copy, pl->ranked, pl->n_ranked * sizeof *copy);
	for (t = 0; t < pl->n_ranked; t++) {
		pl->ranked[t] = copy[perm[t]];
		inv[perm[t]] = t;
	}
	for (t = 0; t < total; t++)
		pl->rank_of[t] = inv[pl->rank_of[t]];
	/* the order: infeasible by largest margin, then feasible, unusable */
	at[0] = 0;
	at[1] = groups[0];
	at[2] = groups[0] + groups[1];
	for (i = 0; i < n; i++)
		pl->order[at[class_of(c, i)]++] = i;
	sort_largest = pl->largest;
	qsort(pl->order, groups[0], sizeof *pl->order, order_cmp);
	rc = CP_OK;
out:
	cp_free(refs);
	cp_free(perm);
	cp_free(inv);
	cp_free(copy);
	return rc;
}

/* ---- pieces ---- */

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

static void verdict_word(struct cp_buf *b, const struct report_check *c, size_t i)
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

static void obs_link(struct cp_buf *b, const struct report_check *c, size_t i)
{
	cp_buf_printf(b, "<a href=\"#obs-%zu\">", i + 1);
	report_html_text(b, stats_dataset_observation(pipe_data_dataset(c->pd), i));
	cp_buf_puts(b, "</a>");
}

/* The colour class of a margin: six steps from 0 to 100 sd and beyond. */
static int margin_class(double m)
{
	static const double edge[] = { 1, 3, 10, 30, 100 };
	int s = 0;

	while (s < 5 && !(m < edge[s]))
		s++;
	return s + 1;
}

/* ---- the summary: the answer ---- */

static void summary(const struct report_check *c, const struct plan *pl,
		    struct cp_buf *b)
{
	const struct pipe_options *o = pipe_data_options(c->pd);
	size_t usable = pl->n_bad + pl->n_feasible, proven = pl->n_bad - pl->n_undecided;
	size_t t;

	cp_buf_puts(b, "<section class=\"check\">\n<div id=\"summary\">\n");
	if (proven)
		cp_buf_printf(b, "<p class=\"verdict\"><strong class=\"infeasible\">The model "
			      "is refuted</strong>: %zu of the %zu usable observations break "
			      "it (each one's whole confidence region lies outside its "
			      "cone)", pl->n_bad, usable);
	else if (pl->n_bad)
		cp_buf_printf(b, "<p class=\"verdict\"><strong class=\"undecided\">"
			      "Undecided</strong>: %zu of the %zu usable observations were found "
			      "infeasible, none of them proven (their exact re-check "
			      "could not run)", pl->n_bad, usable);
	else if (usable)
		cp_buf_printf(b, "<p class=\"verdict\"><strong class=\"feasible\">The "
			      "model is consistent with the data</strong>: every one of the %zu "
			      "usable observations meets its cone", usable);
	else
		cp_buf_puts(b, "<p class=\"verdict\"><strong class=\"unusable\">Nothing "
			    "checked</strong>: no observation could form a confidence region");
	if (pl->n_undecided && proven)
		cp_buf_printf(b, " (%zu of them undecided: floating-point verdicts, not "
			      "proven)", pl->n_undecided);
	cp_buf_printf(b, "; %zu feasible, %zu unusable.</p>\n<p class=\"setup\">Model "
		      "<code>", pl->n_feasible, pl->n_unusable);
	report_html_text(b, c->model_path);
	cp_buf_puts(b, "</code>, data <code>");
	report_html_text(b, c->data_path);
	cp_buf_printf(b, "</code>: %zu observation%s; regions: %s at confidence %g "
		      "each; ", pl->n, pl->n == 1 ? "" : "s", shape_word(o->shape),
		      o->confidence);
	if (pipe_model_has_facets(c->pm))
		cp_buf_printf(b, "cone: %zu equalit%s, %zu facet%s.</p>\n",
			      pipe_model_n_equalities(c->pm),
			      pipe_model_n_equalities(c->pm) == 1 ? "y" : "ies",
			      pipe_model_n_facets(c->pm),
			      pipe_model_n_facets(c->pm) == 1 ? "" : "s");
	else
		cp_buf_puts(b, "cone facets not listed (violations from LP "
			    "certificates).</p>\n");
	if (!pl->n_ranked) {
		cp_buf_puts(b, "</div>\n");
		return;
	}
	cp_buf_printf(b, "<h2>The constraints broken (%zu)</h2>\n<table class=\"ranked\">\n"
		      "<tr><th></th><th>constraint</th><th>observations</th>"
		      "<th>largest margin (sd)</th><th>at</th></tr>\n", pl->n_ranked);
	for (t = 0; t < pl->n_ranked; t++) {
		const struct ranked *r = &pl->ranked[t];

		if (t == RANKED_SHOWN)
			cp_buf_printf(b, "</table>\n<details><summary>%zu more</summary>\n"
				      "<table class=\"ranked\">\n", pl->n_ranked - RANKED_SHOWN);
		cp_buf_printf(b, "<tr id=\"c%zu\"><td>C%zu</td><td>", t + 1, t + 1);
		put_constraint(b, c, r->a, r->is_eq);
		cp_buf_printf(b, "</td><td>%zu</td><td>", r->count);
		report_number(b, r->largest);
		cp_buf_puts(b, "</td><td>");
		obs_link(b, c, r->where);
		cp_buf_puts(b, "</td></tr>\n");
	}
	cp_buf_puts(b, pl->n_ranked > RANKED_SHOWN ? "</table>\n</details>\n" : "</table>\n");
	cp_buf_puts(b, "</div>\n");
}

/* ---- the table: observations x violated constraints ---- */

static void matrix(const struct report_check *c, const struct plan *pl,
		   struct cp_buf *b)
{
	size_t cols = pl->n_ranked < MATRIX_COLUMNS ? pl->n_ranked : MATRIX_COLUMNS;
	size_t i, o, t, listed;
	double *cell;
	int s;

	if (pl->n_bad) {
		cp_buf_printf(b, "<h2>Observations &times; violated constraints</h2>\n"
			      "<p class=\"note\">The %zu infeasible observations, the most "
			      "violated first: each cell the margin (sd) by which the "
			      "whole region breaks the constraint; ", pl->n_bad);
		for (s = 1; s <= 6; s++) {
			static const char *const range[] = { "", "below 1", "1-3", "3-10",
							     "10-30", "30-100", "100 and more" };

			cp_buf_printf(b, "<span class=\"m%d\">&nbsp;%s&nbsp;</span>%s", s,
				      range[s], s < 6 ? " " : ".</p>\n");
		}
		cp_buf_puts(b, "<table class=\"mx\">\n<tr><th>observation</th>"
			    "<th>largest</th>");
		for (t = 0; t < cols; t++) {
			cp_buf_printf(b, "<th><a href=\"#c%zu\" title=\"", t + 1);
			{
				struct cp_buf tx;

				cp_buf_init(&tx);
				cone_format_constraint(pl->ranked[t].a, pl->k,
						       pipe_data_names(c->pd),
						       pl->ranked[t].is_eq, &tx);
				report_html_text(b, tx.data ? tx.data : "");
				b->failed |= tx.failed;
				cp_buf_release(&tx);
			}
			cp_buf_printf(b, "\">C%zu</a></th>", t + 1);
		}
		if (pl->n_ranked > cols)
			cp_buf_printf(b, "<th title=\"how many of C%zu-C%zu it breaks\">"
				      "others</th>", cols + 1, pl->n_ranked);
		cp_buf_puts(b, "</tr>\n");
		cell = cp_calloc(cols + 1, sizeof *cell);
		if (!cell) {
			b->failed = 1;
			return;
		}
		for (o = 0; o < pl->n_bad; o++) {
			size_t others = 0;

			i = pl->order[o];
			for (t = 0; t < cols; t++)
				cell[t] = NAN;
			for (t = pl->start[i]; t < pl->start[i + 1]; t++) {
				size_t r = pl->rank_of[t];
				double m = c->res[i].violations[t - pl->start[i]].margin;

				if (r < cols)
					cell[r] = isnan(cell[r]) ? m : fmax(cell[r], m);
				else
					others++;
			}
			cp_buf_puts(b, "<tr><td>");
			obs_link(b, c, i);
			cp_buf_puts(b, "<td>");
			if (pl->start[i + 1] > pl->start[i])
				report_number(b, pl->largest[i]);
			/* end tags of cells are implied (HTML): a thousand rows
			 * stay small */
			for (t = 0; t < cols; t++) {
				if (isnan(cell[t])) {
					cp_buf_puts(b, "<td>");
					continue;
				}
				cp_buf_printf(b, "<td class=\"m%d\">", margin_class(cell[t]));
				report_number(b, cell[t]);
			}
			if (pl->n_ranked > cols) {
				cp_buf_puts(b, "<td>");
				if (others)
					cp_buf_printf(b, "%zu", others);
			}
			cp_buf_puts(b, "\n");
		}
		cp_free(cell);
		cp_buf_puts(b, "</table>\n");
	}
	for (s = 1; s <= 2; s++) {
		size_t first = s == 1 ? pl->n_bad : pl->n_bad + pl->n_feasible;
		size_t count = s == 1 ? pl->n_feasible : pl->n_unusable;

		if (!count)
			continue;
		cp_buf_printf(b, "<p class=\"%s-list\"><b>%s (%zu):</b> ", s == 1 ?
			      "feasible" : "unusable", s == 1 ? "Feasible" : "Unusable", count);
		for (listed = 0; listed < count; listed++) {
			i = pl->order[first + listed];
			if (listed)
				cp_buf_puts(b, ", ");
			obs_link(b, c, i);
		}
		cp_buf_puts(b, ".</p>\n");
	}
}

/* ---- one observation's details ---- */

struct details {
	const struct report_check *c;
	const struct plan *pl;
	struct feas_model *fm;       /* for witnesses, made on first use */
	double *witness;             /* k */
};

static int figure(struct details *d, size_t i, struct cp_buf *b, struct cp_error *err)
{
	const struct report_check *c = d->c;
	const struct pipe_options *o = pipe_data_options(c->pd);
	const struct region *r = pipe_data_region(c->pd, i);
	const struct feas_result *res = &c->res[i];
	struct report_plot p;
	char id[32];
	size_t x, y;
	int rc, found = 0;

	if (r->k < 2) {
		cp_buf_puts(b, "<p class=\"note\">One counter: no plane to plot.</p>\n");
		return CP_OK;
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
	if (res->feasible) {
		/* where region and cone meet: the solver's own point */
		if (!d->fm && (rc = feas_model_new(r->k, p.n_signatures, p.signatures, NULL,
						   &d->fm, err)))
			return rc;
		if (!d->witness && !(d->witness = cp_calloc(r->k, sizeof *d->witness)))
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		if ((rc = feas_witness(d->fm, pipe_data_query(c->pd, i), d->witness, &found,
				       err)))
			return rc;
		p.witness = found ? d->witness : NULL;
	}
	report_plot_axes(&p, &x, &y);
	cp_buf_puts(b, "<figure>\n");
	if ((rc = report_plot_svg(&p, b, err)))
		return rc;
	cp_buf_puts(b, "<figcaption>");
	if (p.constraint) {
		cp_buf_printf(b, "The %s constraint, ", p.role);
		put_constraint(b, c, p.constraint, p.is_equality);
		cp_buf_puts(b, " (margin ");
		report_number(b, p.margin);
		cp_buf_printf(b, " sd: %s), on its two heaviest counters <code>",
			      p.margin > 0 ? "the whole region breaks it" : "the region meets it");
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
		    "onto this plane; the constraint's line and the band of its values "
		    "over the region hold the other counters at the observation's mean");
	if (p.witness)
		cp_buf_puts(b, "; the diamond is a point of the region inside the cone, "
			    "the solver's");
	cp_buf_puts(b, ".</figcaption>\n</figure>\n");
	return CP_OK;
}

static int observation(struct details *d, size_t i, int plotted, struct cp_buf *b,
		       struct cp_error *err)
{
	const struct report_check *c = d->c;
	const struct plan *pl = d->pl;
	const struct pipe_options *o = pipe_data_options(c->pd);
	const struct region *r = pipe_data_region(c->pd, i);
	const struct feas_result *res = &c->res[i];
	size_t j, nv = pl->start[i + 1] - pl->start[i];
	int rc;

	cp_buf_printf(b, "<details id=\"obs-%zu\"><summary><b>", i + 1);
	report_html_text(b, stats_dataset_observation(pipe_data_dataset(c->pd), i));
	cp_buf_puts(b, "</b>: ");
	verdict_word(b, c, i);
	if (nv) {
		cp_buf_printf(b, ", %zu constraint%s broken, largest margin ", nv,
			      nv == 1 ? "" : "s");
		report_number(b, pl->largest[i]);
		cp_buf_puts(b, " sd");
	}
	cp_buf_puts(b, "</summary>\n");
	if (!r) {
		cp_buf_puts(b, "<p>No region: ");
		report_html_text(b, pipe_data_unusable(c->pd, i));
		cp_buf_puts(b, ".</p>\n</details>\n");
		return CP_OK;
	}
	cp_buf_printf(b, "<p>%s from %zu samples", shape_word(o->shape), r->n);
	if (o->shape == FEAS_ELLIPSOID) {
		cp_buf_puts(b, "; squared distance to the cone ");
		report_number(b, res->d2);
		cp_buf_puts(b, " against q ");
		report_number(b, r->q);
		cp_buf_printf(b, ", p %.3g", res->p_value);
	}
	if (r->runs)
		cp_buf_printf(b, "; a perf stat -r summary of %zu runs: means and "
			      "standard errors only, correlations unknown (the "
			      "independent box)", r->runs);
	else if (r->rule == REGION_RULE_DIAGONAL)
		cp_buf_puts(b, "; diagonal rule (too few samples for the full covariance)");
	if (r->dof_floored)
		cp_buf_puts(b, "; autocorrelated and short: the region may be too small");
	cp_buf_puts(b, ".</p>\n");
	if (nv) {
		/* the largest margins first (solver/feas.h), by their rank */
		cp_buf_puts(b, "<table class=\"violations\">\n<tr><th>breaks<th>margin"
			    "<th>centre\n");
		for (j = 0; j < nv; j++) {
			const struct feas_violation *v = &res->violations[j];
			size_t rank = pl->rank_of[pl->start[i] + j] + 1;

			cp_buf_printf(b, "<tr><td>C%zu%s<td>", rank, v->index == FEAS_NO_INDEX ?
				      " (from the LP certificate)" : "");
			report_number(b, v->margin);
			cp_buf_puts(b, "<td>");
			report_number(b, v->mean_sd);
			cp_buf_puts(b, "\n");
		}
		cp_buf_puts(b, "</table>\n");
	}
	if (plotted) {
		if ((rc = figure(d, i, b, err)))
			return rc;
		if (c->pf) {
			size_t cells = pipe_flows_n_uops(c->pf) * pipe_flows_n_features(c->pf);

			report_flows_html(c->pf, c->flow_status[i], &c->flows[i * cells],
					  stats_dataset_observation(pipe_data_dataset(c->pd), i),
					  b);
		}
	}
	cp_buf_puts(b, "</details>\n");
	return CP_OK;
}

int report_check_html(const struct report_check *c, struct cp_buf *b,
		      struct cp_error *err)
{
	struct plan pl;
	struct details d;
	size_t o, usable;
	int rc;

	if (plan_make(c, &pl)) {
		plan_free(&pl);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	memset(&d, 0, sizeof d);
	d.c = c;
	d.pl = &pl;
	summary(c, &pl, b);
	matrix(c, &pl, b);
	usable = pl.n_bad + pl.n_feasible;
	cp_buf_puts(b, "<h2>Each observation</h2>\n<div class=\"each\">\n<p class=\"note\">"
		    "In the order above, folded: open one for its region, the "
		    "constraints it breaks (margin and centre in sd of a.x)");
	if (c->max_plots >= usable)
		cp_buf_puts(b, " and its plot");
	else if (c->max_plots)
		cp_buf_printf(b, "; the %zu most violated have their plot (--plots all "
			      "draws every one)", c->max_plots);
	else
		cp_buf_puts(b, "; no plots (--plots 0)");
	cp_buf_puts(b, ".</p>\n");
	for (o = 0, rc = CP_OK; o < pl.n && !rc; o++)
		rc = observation(&d, pl.order[o], o < c->max_plots, b, err);
	cp_buf_puts(b, "</div>\n</section>\n");
	plan_free(&pl);
	feas_model_free(d.fm);
	cp_free(d.witness);
	if (!rc && b->failed)
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	return rc;
}
