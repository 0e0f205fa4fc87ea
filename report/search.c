/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report/search.c: the explore section of a report, the answer first:
 * explore's conclusion and each proven claim with what proves it (the
 * models of the family the claim quantifies over, those the search
 * evaluated listed by number, the rest refuted by cone containment);
 * then the search as a picture legible at a thousand models (the minimal
 * models, the refuted models the claims rest on, the paths between them
 * through the family's inclusion order, the rest as counts per level,
 * drawn by Graphviz); the models tested as a table; the candidates
 * skipped; and the minimal models' flow bounds. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

/* Links listed before the rest are folded, in a proof or a cell. */
#define SHOWN 5
/* Violated constraints listed for a model (explore --json has every one). */
#define MAX_VIOLATIONS 50
/* Models drawn one by one in the picture; the others are counted. */
#define MAX_DRAWN 48

/* "{a,b}" with a break opportunity after each comma: long feature sets
 * wrap in a narrow cell. */
static void features(struct cp_buf *b, const struct explore_search *s,
		     udd_features f)
{
	struct cp_buf t;
	const char *p;

	cp_buf_init(&t);
	explore_format_features(s, f, &t);
	cp_buf_puts(b, "<code>");
	for (p = t.data ? t.data : ""; *p; p++) {
		char one[2] = { *p, 0 };

		report_html_text(b, one);
		if (*p == ',')
			cp_buf_puts(b, "<wbr>");
	}
	cp_buf_puts(b, "</code>");
	b->failed |= t.failed;
	cp_buf_release(&t);
}

static void model_link(struct cp_buf *b, size_t i)
{
	cp_buf_printf(b, "<a href=\"#model-%zu\">#%zu</a>", i + 1, i + 1);
}

static size_t n_bits(udd_features f)
{
	size_t n = 0;

	for (; f; f &= f - 1)
		n++;
	return n;
}

/* ---- what the claims rest on ---- */

/* Mark the largest refuted models of a claim's half (those with feature
 * bit when has, else without it): refuted models of the half that no
 * other refuted model of the half contains.  A smaller model's cone lies
 * within theirs. */
static void mark_basis(const struct explore_search *s, udd_features bit, int has,
		       unsigned char *mark)
{
	size_t n = explore_n_models(s), i, j;

	for (i = 0; i < n; i++) {
		const struct explore_model *m = explore_model_at(s, i);

		if (m->feasible || !(m->features & bit) != !has)
			continue;
		for (j = 0; j < n; j++) {
			const struct explore_model *o = explore_model_at(s, j);

			if (j != i && !o->feasible && !(o->features & bit) == !has &&
			    (o->features & m->features) == m->features &&
			    o->features != m->features)
				break;
		}
		if (j == n)
			mark[i] = 1;
	}
}

/* The models the picture draws one by one: the minimal ones, the refuted
 * models the claims rest on (the largest of each claim's half, and each
 * minimal model's sub-models one feature smaller), the models cited for
 * a feature the data allow either way, and every one's parents back to
 * the start; at most MAX_DRAWN, in that order of importance. */
static size_t drawn_models(const struct explore_search *s, size_t n_features,
			   unsigned char *drawn)
{
	size_t n = explore_n_models(s), i, j, f, count = 0, pass;
	udd_features req = explore_required(s), imp = explore_impossible(s);
	struct explore_claim_basis cb;
	unsigned char *want;

	explore_claim_basis(s, &cb);
	if (!(want = cp_calloc(n + 1, 1)))
		return 0;
	for (pass = 0; pass < 4; pass++) {
		memset(want, 0, n);
		for (i = 0; i < n; i++) {
			const struct explore_model *m = explore_model_at(s, i);

			if (pass == 0 && m->minimal)
				want[i] = 1;
			if (pass == 1 && m->minimal)
				for (j = 0; j < n; j++) {
					const struct explore_model *o = explore_model_at(s, j);

					if (!o->feasible && (o->features & m->features) == o->features &&
					    n_bits(m->features & ~o->features) == 1)
						want[j] = 1;
				}
		}
		for (f = 0; pass == 1 && f < n_features; f++)
			if ((req | imp) & ((udd_features)1 << f))
				mark_basis(s, (udd_features)1 << f, !(req & ((udd_features)1 << f)),
					   want);
		for (f = 0; pass == 2 && f < n_features; f++) {
			udd_features bit = (udd_features)1 << f;
			int with = 0, without = 0;

			if (!(cb.either & bit))
				continue;
			for (i = 0; i < n; i++) {
				const struct explore_model *m = explore_model_at(s, i);

				if (m->feasible && (m->features & bit) && !with++)
					want[i] = 1;
				if (m->feasible && !(m->features & bit) && !without++)
					want[i] = 1;
			}
		}
		if (pass == 3) {
			/* the paths: parents of everything drawn, and the start */
			want[0] = 1;
			for (i = 0; i < n; i++) {
				const struct explore_model *m = explore_model_at(s, i);

				if (drawn[i] && (m->origin == EXPLORE_DISCOVERY ||
						 m->origin == EXPLORE_ELIMINATION))
					for (j = m->parent; ; j = explore_model_at(s, j)->parent) {
						const struct explore_model *p = explore_model_at(s, j);

						want[j] = 1;
						if (p->origin != EXPLORE_DISCOVERY &&
						    p->origin != EXPLORE_ELIMINATION)
							break;
					}
			}
		}
		for (i = 0; i < n && count < MAX_DRAWN; i++)
			if (want[i] && !drawn[i]) {
				drawn[i] = 1;
				count++;
			}
	}
	cp_free(want);
	return count;
}

/* A label for Graphviz: the model's number and features, in lines of
 * about 20 characters broken after a comma, and its verdict. */
static void dot_label(struct cp_buf *b, const struct explore_search *s, size_t i)
{
	const struct explore_model *m = explore_model_at(s, i);
	struct cp_buf t;
	const char *p, *q;
	size_t col;

	cp_buf_init(&t);
	explore_format_features(s, m->features, &t);
	col = b->len;
	cp_buf_printf(b, "#%zu ", i + 1);
	col = b->len - col;
	for (p = t.data ? t.data : ""; *p; p = q) {
		/* the next piece: up to and with a comma, or the rest */
		for (q = p; *q && *q != ','; q++)
			;
		if (*q)
			q++;
		if (col > 0 && col + (size_t)(q - p) > 20) {
			cp_buf_puts(b, "\\n");
			col = 0;
		}
		for (; p < q; p++, col++) {
			if (*p == '"' || *p == '\\')
				cp_buf_puts(b, "\\");
			cp_buf_append(b, p, 1);
		}
	}
	b->failed |= t.failed;
	cp_buf_release(&t);
	if (m->feasible)
		cp_buf_puts(b, "\\nfeasible");
	else
		cp_buf_printf(b, "\\n%zu/%zu infeasible", m->eval.n_infeasible,
			      m->eval.n_observations);
}

/* The picture's graph: levels by the number of features; the models
 * drawn, each linked to its row; between them the family's inclusion
 * order (an arrow from a model to each drawn one that adds features to
 * it with no drawn model between), labelled with what it adds; per
 * level a box counting the models not drawn. */
static void search_dot(const struct explore_search *s, size_t n_features,
		       struct cp_buf *b, size_t *n_drawn)
{
	size_t n = explore_n_models(s), i, j, l, c, lo = SIZE_MAX, hi = 0;
	unsigned char *drawn = cp_calloc(n + 1, 1);
	size_t *lev = cp_calloc(n + 1, sizeof *lev);

	*n_drawn = 0;
	if (!drawn || !lev) {
		b->failed = 1;
		goto out;
	}
	*n_drawn = drawn_models(s, n_features, drawn);
	for (i = 0; i < n; i++) {
		lev[i] = n_bits(explore_model_at(s, i)->features);
		lo = lev[i] < lo ? lev[i] : lo;
		hi = lev[i] > hi ? lev[i] : hi;
	}
	cp_buf_puts(b, "digraph search {\n\trankdir=TB; nodesep=0.15; ranksep=0.3;\n"
		    "\tnode [shape=box, style=filled, fontname=\"Helvetica\", fontsize=10, "
		    "margin=\"0.06,0.03\"];\n"
		    "\tedge [fontname=\"Helvetica\", fontsize=9, color=\"#777777\"];\n");
	for (l = lo; n && l <= hi; l++) {
		size_t feasible = 0, refuted = 0;

		for (i = 0; i < n; i++)
			if (lev[i] == l && !drawn[i]) {
				feasible += explore_model_at(s, i)->feasible != 0;
				refuted += !explore_model_at(s, i)->feasible;
			}
		/* the level's name, and the models on it not drawn */
		cp_buf_printf(b, "\tsubgraph level%zu { rank=same;\n\t\tl%zu [shape=plaintext, "
			      "style=\"\", fontcolor=\"#555555\", label=\"%zu feature%s", l, l, l,
			      l == 1 ? "" : "s");
		if (feasible + refuted)
			cp_buf_printf(b, "\\n%zu more: %zu feasible,\\n%zu refuted",
				      feasible + refuted, feasible, refuted);
		cp_buf_puts(b, "\"];\n");
		for (i = 0; i < n; i++) {
			const struct explore_model *m = explore_model_at(s, i);

			if (lev[i] != l || !drawn[i])
				continue;
			cp_buf_printf(b, "\t\tm%zu [label=\"", i + 1);
			dot_label(b, s, i);
			cp_buf_printf(b, "\", fillcolor=\"%s\"%s, URL=\"#model-%zu\", "
				      "tooltip=\"model #%zu\"];\n", m->feasible ? "#d9ead3" : "#f4cccc",
				      m->minimal ? ", peripheries=2, penwidth=2" : "", i + 1, i + 1);
		}
		cp_buf_puts(b, "\t}\n");
		if (l > lo)
			cp_buf_printf(b, "\tl%zu -> l%zu [style=invis];\n", l - 1, l);
	}
	/* cover relations of the inclusion order among the drawn models */
	for (i = 0; i < n; i++)
		for (j = 0; drawn[i] && j < n; j++) {
			udd_features a = explore_model_at(s, i)->features;
			udd_features z = explore_model_at(s, j)->features;
			struct cp_buf t;

			if (!drawn[j] || (a & z) != a || a == z)
				continue;
			for (c = 0; c < n; c++) {
				udd_features m = explore_model_at(s, c)->features;

				if (drawn[c] && c != i && c != j && (a & m) == a && (m & z) == m &&
				    m != a && m != z)
					break;
			}
			if (c < n)
				continue;
			/* what the arrow adds, named when it is one or two
			 * features (a longer arrow crosses levels that say how
			 * many; a label on it would widen every level it
			 * crosses) */
			cp_buf_init(&t);
			if (n_bits(z & ~a) <= 2)
				explore_format_features(s, z & ~a, &t);
			if (t.len >= 2) {
				t.data[t.len - 1] = 0;
				cp_buf_printf(b, "\tm%zu -> m%zu [label=\"+%s\"];\n", i + 1,
					      j + 1, t.data + 1);
			} else {
				cp_buf_printf(b, "\tm%zu -> m%zu;\n", i + 1, j + 1);
			}
			b->failed |= t.failed;
			cp_buf_release(&t);
		}
	cp_buf_puts(b, "}\n");
out:
	cp_free(drawn);
	cp_free(lev);
}

static void picture(const struct report_explore *e, struct cp_buf *b)
{
	struct cp_buf dot, svg;
	struct cp_error err;
	size_t drawn, n = explore_n_models(e->s);

	cp_buf_init(&dot);
	cp_buf_init(&svg);
	cp_error_clear(&err);
	search_dot(e->s, e->n_features, &dot, &drawn);
	cp_buf_puts(b, "<h2>The search</h2>\n");
	if (!dot.failed && !report_dot_svg(dot.data ? dot.data : "", dot.len, &svg, &err) &&
	    !svg.failed) {
		cp_buf_puts(b, "<figure class=\"search\">\n");
		cp_buf_append(b, svg.data, svg.len);
		cp_buf_printf(b, "<figcaption>%zu of the %zu models tested, by their number of "
			      "features: the minimal ones (double border), the refuted ones "
			      "the claims rest on (the largest of each claim's half, and each "
			      "minimal model's sub-models one feature smaller), the models "
			      "cited for a feature the data allow either way, and the paths "
			      "between them (an arrow adds the features it names, or those of the "
			      "levels it crosses); green "
			      "feasible, red refuted; each box links to its row.%s"
			      "</figcaption>\n</figure>\n", drawn, n, drawn < n ?
			      "  The other models are counted beside their level's name." : "");
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

/* ---- the models tested ---- */

/* The observations refuting model i: how many, and which, unfolded the
 * first time a set appears, else "the same as" the model that showed
 * it (a thousand models share a few sets).  Without the family's
 * verdicts, explore's own short list. */
struct refuting {
	const unsigned char **sets;      /* per model: its verdicts, or NULL */
	uint64_t *hash;
	size_t n_obs;
};

static uint64_t verdict_hash(const unsigned char *v, size_t n)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ v[i]) * 1099511628211ULL;
	return h;
}

static void refuted_by(const struct report_explore *e, struct refuting *r, size_t i,
		       struct cp_buf *b)
{
	const struct explore_model *m = explore_model_at(e->s, i);
	const unsigned char *v = r->sets ? r->sets[i] : NULL;
	size_t j, listed = 0;

	if (!m->eval.n_infeasible)
		return;
	if (!v || !e->data) {
		cp_buf_printf(b, "%zu: ", m->eval.n_infeasible);
		report_html_text(b, m->eval.refuted_by ? m->eval.refuted_by : "");
		return;
	}
	for (j = 0; j < i; j++)
		if (r->sets[j] && r->hash[j] == r->hash[i] &&
		    !memcmp(r->sets[j], v, r->n_obs)) {
			cp_buf_printf(b, "%zu, the same as ", m->eval.n_infeasible);
			model_link(b, j);
			return;
		}
	cp_buf_printf(b, "<details><summary>%zu</summary>", m->eval.n_infeasible);
	for (j = 0; j < r->n_obs; j++)
		if (!v[j]) {
			cp_buf_puts(b, listed++ ? ", " : "");
			report_html_text(b, stats_dataset_observation(e->data, j));
		}
	cp_buf_puts(b, "</details>");
}

static void models_table(const struct report_explore *e, struct cp_buf *b)
{
	const struct explore_search *s = e->s;
	size_t n = explore_n_models(s), i, j;
	struct refuting r;

	memset(&r, 0, sizeof r);
	r.n_obs = e->n_observations;
	if (e->family && e->data && (r.sets = cp_calloc(n + 1, sizeof *r.sets)) &&
	    (r.hash = cp_calloc(n + 1, sizeof *r.hash)))
		for (i = 0; i < n; i++) {
			const struct explore_model *m = explore_model_at(s, i);

			r.sets[i] = explore_family_verdicts(e->family, m->features);
			if (r.sets[i])
				r.hash[i] = verdict_hash(r.sets[i], r.n_obs);
		}
	if (r.sets && !r.hash) {
		cp_free(r.sets);
		r.sets = NULL;
	}
	cp_buf_printf(b, "<h2>Models tested (%zu)</h2>\n<table class=\"models\">\n"
		      "<colgroup><col class=\"n\"><col class=\"f\"><col class=\"v\">"
		      "<col class=\"i\"><col class=\"s\"><col class=\"o\"><col class=\"r\">"
		      "<col class=\"c\"></colgroup>\n"
		      "<tr><th>#</th><th>features</th><th>verdict</th><th>infeasible"
		      "</th><th>signatures</th><th>origin</th><th>refuted by</th>"
		      "<th>violated constraints (observations)</th></tr>\n", n);
	for (i = 0; i < n; i++) {
		const struct explore_model *m = explore_model_at(s, i);
		size_t nv = m->eval.n_violations < MAX_VIOLATIONS ? m->eval.n_violations :
			MAX_VIOLATIONS;

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

			cp_buf_puts(b, " from ");
			model_link(b, m->parent);
			cp_buf_puts(b, m->origin == EXPLORE_DISCOVERY ? " +" : " -");
			features(b, s, m->features ^ p->features);
		}
		cp_buf_puts(b, "</td><td>");
		refuted_by(e, &r, i, b);
		cp_buf_puts(b, "</td><td>");
		/* the most observations first; past five, folded */
		for (j = 0; j < nv; j++) {
			if (j == SHOWN)
				cp_buf_printf(b, "<details><summary>%zu more</summary>",
					      m->eval.n_violations - SHOWN);
			cp_buf_puts(b, j && j != SHOWN ? "<br><code>" : "<code>");
			report_html_text(b, m->eval.violations[j].constraint);
			cp_buf_printf(b, "</code> (%zu)", m->eval.violations[j].count);
		}
		if (m->eval.n_violations > nv)
			cp_buf_printf(b, "<br>and %zu more (explore --json lists every one)",
				      m->eval.n_violations - nv);
		if (m->eval.n_violations > SHOWN)
			cp_buf_puts(b, "</details>");
		cp_buf_puts(b, "</td></tr>\n");
	}
	cp_buf_puts(b, "</table>\n");
	cp_free(r.sets);
	cp_free(r.hash);
}

static void skipped(const struct explore_search *s, const char *const *names,
		    struct cp_buf *b)
{
	size_t i, n = 0;

	for (i = 0; i < explore_n_edges(s); i++)
		n += explore_edge_at(s, i)->step >= EXPLORE_SKIP_SAME_CONE;
	if (!n)
		return;
	cp_buf_printf(b, "<h2>Candidates skipped (%zu)</h2>\n<ul class=\"skipped\">\n", n);
	for (i = 0; i < explore_n_edges(s); i++) {
		const struct explore_edge *e = explore_edge_at(s, i);

		if (e->step < EXPLORE_SKIP_SAME_CONE)
			continue;
		cp_buf_puts(b, "<li>");
		model_link(b, e->from);
		cp_buf_puts(b, " +<code>");
		report_html_text(b, names[e->feature]);
		cp_buf_printf(b, "</code>: %s</li>\n", e->step == EXPLORE_SKIP_SAME_CONE ?
			      "the cone does not grow (refuted like its parent)" :
			      "relaxes no violated constraint (refuted like its parent)");
	}
	cp_buf_puts(b, "</ul>\n");
}

/* ---- the claims ---- */

/* The proof of "every model with (has = 1) or without (has = 0) feature
 * f is refuted": the family's half it quantifies over, the evaluated
 * models of that half (all refuted; past five, folded after the
 * sentence), the rest known by containment. */
static void proof(const struct explore_search *s, const struct explore_claim_basis *cb,
		  size_t f, int has, struct cp_buf *b)
{
	size_t i, n = explore_n_models(s), listed = 0, total = 0;
	udd_features bit = (udd_features)1 << f;

	for (i = 0; i < n; i++)
		total += !(explore_model_at(s, i)->features & bit) == !has;
	cp_buf_printf(b, "every model of the family %s it is refuted: %zu model%s", has ?
		      "with" : "without", cb->universe / 2, cb->universe / 2 == 1 ? "" : "s");
	if (total && total <= SHOWN)
		cp_buf_puts(b, "; evaluated and refuted: ");
	else if (total)
		cp_buf_printf(b, "; %zu evaluated and refuted (listed below)", total);
	for (i = 0; total <= SHOWN && i < n; i++)
		if (!(explore_model_at(s, i)->features & bit) == !has) {
			cp_buf_puts(b, listed++ ? ", " : "");
			model_link(b, i);
		}
	if (total < cb->universe / 2)
		cp_buf_printf(b, "; the other %zu refuted without an evaluation (their cone "
			      "lies within a refuted parent's)", cb->universe / 2 - total);
	if (total <= SHOWN)
		return;
	cp_buf_printf(b, "<details><summary>the %zu evaluated</summary>", total);
	for (i = 0; i < n; i++)
		if (!(explore_model_at(s, i)->features & bit) == !has) {
			cp_buf_puts(b, listed++ ? ", " : "");
			model_link(b, i);
		}
	cp_buf_puts(b, "</details>");
}

static void claims(const struct explore_search *s, const char *const *names,
		   size_t n_features, struct cp_buf *b)
{
	struct explore_claim_basis cb;
	udd_features req = explore_required(s), imp = explore_impossible(s);
	udd_features und = explore_undecided(s);
	size_t f, i, n = explore_n_models(s), n_min = 0;

	explore_claim_basis(s, &cb);
	cp_buf_puts(b, "<h2>Claims and their proofs</h2>\n");
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
		cp_buf_puts(b, "</td><td>feasible (");
		model_link(b, i);
		cp_buf_puts(b, "), and every proper sub-model of the family is known refuted"
			    "</td></tr>\n");
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
		if (with) {
			cp_buf_puts(b, " (");
			model_link(b, with - 1);
			cp_buf_puts(b, ")");
		}
		cp_buf_puts(b, " and without it");
		if (without) {
			cp_buf_puts(b, " (");
			model_link(b, without - 1);
			cp_buf_puts(b, ")");
		}
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
}

/* ---- the minimal models' flow bounds ---- */

/* Each minimal model's flow bounds: per observation its bars, for the
 * first max_plots the model bounds; the observations it does not bound
 * in one line with the reason. */
static void flows(const struct report_explore *e, struct cp_buf *b)
{
	const struct explore_search *s = e->s;
	size_t i, j, n = explore_n_models(s), shown = 0;

	for (i = 0; i < n; i++) {
		const struct explore_flows *fl = explore_model_flows(s, i);
		size_t cells, drawn = 0, bounded = 0, none = 0;

		if (!fl)
			continue;
		if (!shown++)
			cp_buf_puts(b, "<h2>Flow bounds of the minimal models</h2>\n"
				    "<p>How much of each feature the data need: for each "
				    "proven minimal model, as <code>counterpoint flows "
				    "--with</code> the model computes them; only the "
				    "observations the model fits are bounded.</p>\n");
		cp_buf_printf(b, "<section class=\"model-flows\" id=\"flows-%zu\">\n<h3>",
			      i + 1);
		model_link(b, i);
		cp_buf_puts(b, " ");
		features(b, s, fl->features);
		cp_buf_puts(b, "</h3>\n");
		if (!fl->pf) {
			cp_buf_puts(b, "<p class=\"note flows-none\">No features: no flow to "
				    "bound.</p>\n</section>\n");
			continue;
		}
		cells = pipe_flows_n_uops(fl->pf) * pipe_flows_n_features(fl->pf);
		for (j = 0; j < fl->n_observations; j++) {
			if (fl->status[j] != PIPE_FLOWS_BOUNDED) {
				none++;
				continue;
			}
			if (bounded++ >= e->max_plots)
				continue;
			drawn++;
			cp_buf_puts(b, "<p class=\"flows-observation\">");
			report_html_text(b, fl->observations[j]);
			cp_buf_puts(b, ":</p>\n");
			report_flows_html(fl->pf, fl->status[j], &fl->bounds[j * cells],
					  fl->observations[j], b);
		}
		if (bounded > drawn)
			cp_buf_printf(b, "<p class=\"note\">%zu more observations bounded: "
				      "<code>--plots all</code> draws them, <code>counterpoint "
				      "flows</code> prints them.</p>\n", bounded - drawn);
		if (none) {
			size_t listed = 0;

			cp_buf_printf(b, "<p class=\"note flows-none\">No flow bounds on %zu "
				      "observation%s (the model is infeasible on it, or feasible "
				      "at the boundary with no flow the LP finds): ", none,
				      none == 1 ? "" : "s");
			for (j = 0; j < fl->n_observations; j++)
				if (fl->status[j] != PIPE_FLOWS_BOUNDED) {
					cp_buf_puts(b, listed++ ? ", " : "");
					report_html_text(b, fl->observations[j]);
				}
			cp_buf_puts(b, ".</p>\n");
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
	struct cp_buf t;

	cp_buf_init(&t);
	explore_conclusion(e->s, &t);
	cp_buf_puts(b, "<section class=\"explore\">\n<div id=\"summary\">\n"
		    "<p class=\"conclusion verdict\"><b>Conclusion.</b> ");
	report_html_text(b, t.data ? t.data : "");
	b->failed |= t.failed;
	cp_buf_release(&t);
	cp_buf_puts(b, "</p>\n<p class=\"setup\">Model <code>");
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
	cp_buf_printf(b, "; %zu model%s tested.</p>\n", explore_n_models(e->s),
		      explore_n_models(e->s) == 1 ? "" : "s");
	claims(e->s, e->names, e->n_features, b);
	cp_buf_puts(b, "</div>\n");
	picture(e, b);
	models_table(e, b);
	skipped(e->s, e->names, b);
	flows(e, b);
	cp_buf_puts(b, "</section>\n");
	if (b->failed)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	return CP_OK;
}
