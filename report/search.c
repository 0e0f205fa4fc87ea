/* report/search.c: the explore section of a report: the search as a
 * picture (explore_dot drawn by Graphviz), the models tested as a table,
 * the candidates skipped, and each proven claim with what proves it: the
 * models of the family that the claim quantifies over, those the search
 * evaluated listed by number, the rest refuted by cone containment. */
#include <stdio.h>
#include <string.h>

#include "report/report.h"

static void features(struct cp_buf *b, const struct explore_search *s,
		     udd_features f)
{
	struct cp_buf t;

	cp_buf_init(&t);
	explore_format_features(s, f, &t);
	cp_buf_puts(b, "<code>");
	report_html_text(b, t.data ? t.data : "");
	cp_buf_puts(b, "</code>");
	b->failed |= t.failed;
	cp_buf_release(&t);
}

static void picture(const struct report_explore *e, struct cp_buf *b)
{
	struct cp_buf dot, svg;
	struct cp_error err;

	cp_buf_init(&dot);
	cp_buf_init(&svg);
	cp_error_clear(&err);
	explore_dot(e->s, &dot);
	cp_buf_puts(b, "<h3>The search</h3>\n");
	if (!dot.failed && !report_dot_svg(dot.data ? dot.data : "", dot.len, &svg, &err) &&
	    !svg.failed) {
		cp_buf_puts(b, "<figure class=\"search\">\n");
		cp_buf_append(b, svg.data, svg.len);
		cp_buf_puts(b, "<figcaption>Models as boxes (green: feasible, red: "
			    "refuted, double border: proven minimal); solid arrows add a "
			    "feature (discovery), dashed ones prune it (elimination)."
			    "</figcaption>\n</figure>\n");
	} else {
		/* said, not hidden: the graph's text stays readable */
		cp_buf_puts(b, "<p class=\"note\">No picture of the search: ");
		report_html_text(b, dot.failed || svg.failed ? "out of memory" : err.msg);
		cp_buf_puts(b, ".</p>\n<details><summary>the search as a Graphviz "
			    "digraph</summary><pre>");
		report_html_text(b, dot.data ? dot.data : "");
		cp_buf_puts(b, "</pre></details>\n");
	}
	cp_buf_release(&dot);
	cp_buf_release(&svg);
}

static void models_table(const struct explore_search *s, struct cp_buf *b)
{
	size_t n = explore_n_models(s), i, j;

	cp_buf_printf(b, "<h3>Models tested (%zu)</h3>\n<table class=\"models\">\n"
		      "<tr><th>#</th><th>features</th><th>verdict</th><th>infeasible"
		      "</th><th>signatures</th><th>origin</th><th>refuted by</th>"
		      "<th>violated constraints (observations)</th></tr>\n", n);
	for (i = 0; i < n; i++) {
		const struct explore_model *m = explore_model_at(s, i);

		cp_buf_printf(b, "<tr id=\"model-%zu\"><td>%zu</td><td>", i + 1, i + 1);
		features(b, s, m->features);
		cp_buf_printf(b, "</td><td class=\"%s\">%s</td><td>%zu/%zu",
			      m->feasible ? "feasible" : "infeasible",
			      m->feasible ? (m->minimal ? "minimal" : "feasible") : "refuted",
			      m->eval.n_infeasible, m->eval.n_observations);
		if (explore_eval_refuting(&m->eval) != m->eval.n_infeasible)
			cp_buf_printf(b, " (%zu refute over all)",
				      explore_eval_refuting(&m->eval));
		cp_buf_printf(b, "</td><td>%zu</td><td>%s", m->eval.n_signatures,
			      explore_origin_name(m->origin));
		if (m->origin == EXPLORE_DISCOVERY || m->origin == EXPLORE_ELIMINATION) {
			const struct explore_model *p = explore_model_at(s, m->parent);
			udd_features diff = m->features ^ p->features;
			cp_buf_printf(b, " from <a href=\"#model-%zu\">#%zu</a> %s", m->parent + 1,
				      m->parent + 1, m->origin == EXPLORE_DISCOVERY ? "+" : "-");
			features(b, s, diff);
		}
		cp_buf_puts(b, "</td><td>");
		report_html_text(b, m->eval.refuted_by ? m->eval.refuted_by : "");
		cp_buf_puts(b, "</td><td>");
		/* the most observations first; past five, folded */
		for (j = 0; j < m->eval.n_violations; j++) {
			if (j == 5)
				cp_buf_printf(b, "<details><summary>%zu more</summary>",
					      m->eval.n_violations - 5);
			cp_buf_puts(b, j && j != 5 ? "<br><code>" : "<code>");
			report_html_text(b, m->eval.violations[j].constraint);
			cp_buf_printf(b, "</code> (%zu)", m->eval.violations[j].count);
		}
		if (m->eval.n_violations > 5)
			cp_buf_puts(b, "</details>");
		cp_buf_puts(b, "</td></tr>\n");
	}
	cp_buf_puts(b, "</table>\n");
}

static void skipped(const struct explore_search *s, const char *const *names,
		    struct cp_buf *b)
{
	size_t i, n = 0;

	for (i = 0; i < explore_n_edges(s); i++)
		n += explore_edge_at(s, i)->step >= EXPLORE_SKIP_SAME_CONE;
	if (!n)
		return;
	cp_buf_printf(b, "<h3>Candidates skipped (%zu)</h3>\n<ul class=\"skipped\">\n", n);
	for (i = 0; i < explore_n_edges(s); i++) {
		const struct explore_edge *e = explore_edge_at(s, i);

		if (e->step < EXPLORE_SKIP_SAME_CONE)
			continue;
		cp_buf_printf(b, "<li><a href=\"#model-%zu\">#%zu</a> +<code>", e->from + 1,
			      e->from + 1);
		report_html_text(b, names[e->feature]);
		cp_buf_printf(b, "</code>: %s</li>\n", e->step == EXPLORE_SKIP_SAME_CONE ?
			      "the cone does not grow (refuted like its parent)" :
			      "relaxes no violated constraint (refuted like its parent)");
	}
	cp_buf_puts(b, "</ul>\n");
}

/* The proof of "every model with (has = 1) or without (has = 0) feature
 * f is refuted": the family's half it quantifies over, the evaluated
 * models of that half (all refuted), the rest known by containment. */
static void proof(const struct explore_search *s, const struct explore_claim_basis *cb,
		  size_t f, int has, struct cp_buf *b)
{
	size_t i, n = explore_n_models(s), listed = 0;
	udd_features bit = (udd_features)1 << f;

	cp_buf_printf(b, "every model of the family %s it is refuted: %zu model%s", has ?
		      "with" : "without", cb->universe / 2, cb->universe / 2 == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		const struct explore_model *m = explore_model_at(s, i);

		if (!(m->features & bit) != !has)
			continue;
		cp_buf_printf(b, "%s<a href=\"#model-%zu\">#%zu</a>", listed ? ", " :
			      "; evaluated and refuted: ", i + 1, i + 1);
		listed++;
	}
	if (listed < cb->universe / 2)
		cp_buf_printf(b, "; the other %zu refuted without an evaluation (their cone "
			      "lies within a refuted parent's)", cb->universe / 2 - listed);
}

static void claims(const struct explore_search *s, const char *const *names,
		   size_t n_features, struct cp_buf *b)
{
	struct explore_claim_basis cb;
	udd_features req = explore_required(s), imp = explore_impossible(s);
	udd_features und = explore_undecided(s);
	size_t f, i, n = explore_n_models(s), n_min = 0;
	struct cp_buf t;

	explore_claim_basis(s, &cb);
	cp_buf_puts(b, "<h3>Claims and their proofs</h3>\n");
	if (cb.enumerable)
		cp_buf_printf(b, "<p>Verdicts known for %zu of the family's %zu models "
			      "(%zu evaluated, the rest refuted by cone containment).</p>\n",
			      cb.known, cb.universe, n);
	else
		cp_buf_puts(b, "<p>The family is too large to enumerate: no claim over "
			    "it is made.</p>\n");
	cp_buf_puts(b, "<table class=\"claims\">\n<tr><th>claim</th><th>proof</th></tr>\n");
	for (f = 0; f < n_features; f++) {
		udd_features bit = (udd_features)1 << f;

		if (!((req | imp) & bit))
			continue;
		cp_buf_puts(b, (req & bit) ? "<tr class=\"required\"><td>required: <code>" :
			    "<tr class=\"impossible\"><td>impossible: <code>");
		report_html_text(b, names[f]);
		cp_buf_puts(b, "</code></td><td>");
		proof(s, &cb, f, !(req & bit), b);
		cp_buf_puts(b, "</td></tr>\n");
	}
	for (i = 0; i < n; i++) {
		const struct explore_model *m = explore_model_at(s, i);

		if (!m->minimal)
			continue;
		n_min++;
		cp_buf_puts(b, "<tr class=\"minimal\"><td>minimal: ");
		features(b, s, m->features);
		cp_buf_printf(b, "</td><td>feasible (<a href=\"#model-%zu\">#%zu</a>), and "
			      "every proper sub-model of the family is known refuted</td>"
			      "</tr>\n", i + 1, i + 1);
	}
	for (f = 0; f < n_features; f++) {
		udd_features bit = (udd_features)1 << f;
		size_t with = 0, without = 0;

		if (!(cb.either & bit))
			continue;
		for (i = 0; i < n; i++) {
			const struct explore_model *m = explore_model_at(s, i);

			if (!m->feasible)
				continue;
			if ((m->features & bit) && !with)
				with = i + 1;
			if (!(m->features & bit) && !without)
				without = i + 1;
		}
		cp_buf_puts(b, "<tr class=\"either\"><td>either way: <code>");
		report_html_text(b, names[f]);
		cp_buf_puts(b, "</code></td><td>every verdict is known, and models with it");
		if (with)
			cp_buf_printf(b, " (<a href=\"#model-%zu\">#%zu</a>)", with, with);
		cp_buf_puts(b, " and without it");
		if (without)
			cp_buf_printf(b, " (<a href=\"#model-%zu\">#%zu</a>)", without, without);
		cp_buf_puts(b, " fit the data</td></tr>\n");
	}
	for (f = 0; f < n_features; f++)
		if (und & ((udd_features)1 << f)) {
			cp_buf_puts(b, "<tr class=\"undecided\"><td>undecided: <code>");
			report_html_text(b, names[f]);
			cp_buf_puts(b, "</code></td><td>not proven either way: models of the "
				    "family were not tested (--exhaustive decides)</td></tr>\n");
		}
	cp_buf_puts(b, "</table>\n");
	if (!n_min)
		cp_buf_puts(b, "<p>No minimal feasible model is proven.</p>\n");
	cp_buf_init(&t);
	explore_conclusion(s, &t);
	cp_buf_puts(b, "<p class=\"conclusion\"><b>Conclusion.</b> ");
	report_html_text(b, t.data ? t.data : "");
	cp_buf_puts(b, "</p>\n");
	b->failed |= t.failed;
	cp_buf_release(&t);
}

/* Each minimal model's flow bounds: per observation its bars (or why
 * there are none), as `check --html --with` the model draws them. */
static void flows(const struct explore_search *s, struct cp_buf *b)
{
	size_t i, j, n = explore_n_models(s), shown = 0;

	for (i = 0; i < n; i++) {
		const struct explore_flows *fl = explore_model_flows(s, i);
		size_t cells;

		if (!fl)
			continue;
		if (!shown++)
			cp_buf_puts(b, "<h3>Flow bounds of the minimal models</h3>\n"
				    "<p>How much of each feature the data need: for each "
				    "proven minimal model, as <code>counterpoint flows "
				    "--with</code> the model computes them; only the "
				    "observations the model fits are bounded.</p>\n");
		cp_buf_printf(b, "<section class=\"model-flows\" id=\"flows-%zu\">\n<h4>"
			      "<a href=\"#model-%zu\">#%zu</a> ", i + 1, i + 1, i + 1);
		features(b, s, fl->features);
		cp_buf_puts(b, "</h4>\n");
		if (!fl->pf) {
			cp_buf_puts(b, "<p class=\"note flows-none\">No features: no flow to "
				    "bound.</p>\n</section>\n");
			continue;
		}
		cells = pipe_flows_n_uops(fl->pf) * pipe_flows_n_features(fl->pf);
		for (j = 0; j < fl->n_observations; j++) {
			cp_buf_puts(b, "<p class=\"flows-observation\">");
			report_html_text(b, fl->observations[j]);
			cp_buf_puts(b, ":</p>\n");
			report_flows_html(fl->pf, fl->status[j], &fl->bounds[j * cells],
					  fl->observations[j], b);
		}
		cp_buf_puts(b, "</section>\n");
	}
	if (!shown && n)
		cp_buf_puts(b, "<p class=\"note\">No flow bounds: no proven minimal "
			    "model, or they were not computed (--no-flows).</p>\n");
}

int report_explore_html(const struct report_explore *e, struct cp_buf *b,
			struct cp_error *err)
{
	cp_buf_puts(b, "<section class=\"explore\">\n<h2>Search of the model family</h2>\n"
		    "<p>Model <code>");
	report_html_text(b, e->model_path);
	cp_buf_puts(b, "</code>, data <code>");
	report_html_text(b, e->data_path);
	cp_buf_printf(b, "</code>: %zu observation%s, %s at confidence %g each",
		      e->n_observations, e->n_observations == 1 ? "" : "s", e->region,
		      e->confidence);
	if (e->family_level > 0) {
		cp_buf_puts(b, "; every claim at ");
		pipe_put_level(b, e->family_confidence);
		cp_buf_printf(b, " over all %zu (an observation refutes a model when its "
			      "region at ", e->n_observations);
		pipe_put_level(b, e->family_level);
		cp_buf_puts(b, " misses the cone too)");
	}
	cp_buf_puts(b, ".</p>\n");
	picture(e, b);
	models_table(e->s, b);
	skipped(e->s, e->names, b);
	claims(e->s, e->names, e->n_features, b);
	flows(e->s, b);
	cp_buf_puts(b, "</section>\n");
	if (b->failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return CP_OK;
}
