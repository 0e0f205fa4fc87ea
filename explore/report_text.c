/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/report_text.c: the search's reports for people: the text
 * report with its conclusion in plain words (every sentence resting on a
 * verdict that ran or a proven claim), and the search as a Graphviz
 * digraph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"
#include "explore/explore_int.h"

/* ================================================================ */
/* reports                                                          */
/* ================================================================ */

static void list_features(const struct explore_search *s, udd_features sel,
			  const char *sep, struct cp_buf *b)
{
	size_t f;
	int first = 1;

	for (f = 0; f < s->space.n_features; f++) {
		if (!(sel & ((udd_features)1 << f)))
			continue;
		if (!first)
			cp_buf_puts(b, sep);
		cp_buf_puts(b, s->space.names[f]);
		first = 0;
	}
}

/* "a, b" or "none". */
static void list_or_none(const struct explore_search *s, udd_features sel,
			 struct cp_buf *b)
{
	if (sel)
		list_features(s, sel, ", ", b);
	else
		cp_buf_puts(b, "none");
}

void explore_format_features(const struct explore_search *s,
			     udd_features sel, struct cp_buf *b)
{
	cp_buf_puts(b, "{");
	list_features(s, sel, ",", b);
	cp_buf_puts(b, "}");
}

static void origin_text(const struct explore_search *s,
			const struct explore_model *m, struct cp_buf *b)
{
	size_t f;
	udd_features diff;

	switch (m->origin) {
	case EXPLORE_START:
		cp_buf_puts(b, "start");
		return;
	case EXPLORE_EXHAUSTIVE:
		cp_buf_puts(b, "exhaustive");
		return;
	case EXPLORE_TARGETED:
		cp_buf_puts(b, "targeted");
		return;
	case EXPLORE_DUALIZATION:
		cp_buf_puts(b, "dualization");
		return;
	case EXPLORE_DISCOVERY:
	case EXPLORE_ELIMINATION:
		break;
	}
	diff = m->features ^ s->models[m->parent].features;
	cp_buf_printf(b, "%s: #%zu ", m->origin == EXPLORE_DISCOVERY ?
		      "discovery" : "elimination", m->parent + 1);
	for (f = 0; f < s->space.n_features; f++)
		if (diff & ((udd_features)1 << f))
			cp_buf_printf(b, "%c%s", m->origin == EXPLORE_DISCOVERY ?
				      '+' : '-', s->space.names[f]);
}

/* Features as "a, b and c" for sentences. */
static void say_features(const struct explore_search *s, udd_features sel,
			 struct cp_buf *b)
{
	size_t f, n = udd_features_count(sel), k = 0;

	for (f = 0; f < s->space.n_features; f++) {
		if (!(sel & ((udd_features)1 << f)))
			continue;
		if (k > 0)
			cp_buf_puts(b, k + 1 == n ? " and " : ", ");
		cp_buf_puts(b, s->space.names[f]);
		k++;
	}
}

static void each_view_text(const struct explore_search *s, struct cp_buf *b);

/* Only proven sentences (explore/claims.c): what was refuted or fits,
 * what every consistent model needs, what none can have, and what the
 * tested models leave undecided. */
void explore_conclusion(const struct explore_search *s, struct cp_buf *b)
{
	struct explore_claims c;
	udd_features req, imp;
	size_t i, n_min = 0, best = 0, n_feas = explore_n_feasible(s);
	long start;

	if (s->n_models == 0) {
		cp_buf_puts(b, "No model was tested.\n");
		return;
	}
	explore_claims_compute(s, &c);
	req = c.required & ~c.impossible;
	imp = c.impossible & ~c.required;
	for (i = 0; i < s->n_models; i++) {
		n_min += s->models[i].minimal != 0;
		if (explore_eval_refuting(&s->models[i].eval) <
		    explore_eval_refuting(&s->models[best].eval))
			best = i;
	}
	start = explore_find_model(s, s->space.start);
	if (s->family_level > 0) {
		cp_buf_puts(b, "(Every claim here holds at ");
		explore_put_view(s, EXPLORE_VIEW_FAMILY, b);
		cp_buf_puts(b, ".) ");
	}
	if (!n_feas) {
		cp_buf_printf(b, "No model tested explains the data: the best, ");
		explore_format_features(s, s->models[best].features, b);
		cp_buf_printf(b, ", is still refuted by %zu of %zu observations. ",
			      explore_eval_refuting(&s->models[best].eval),
			      s->models[best].eval.n_observations);
		if (c.enumerable && c.known == c.universe)
			cp_buf_puts(b, "Every model of the family is refuted: it lacks a "
				    "mechanism the hardware has (or the data are wrong).\n");
		else
			cp_buf_printf(b, "%zu of the family's %zu models were not tested "
				      "(--exhaustive tests them all).\n",
				      c.enumerable ? c.universe - c.known : 0,
				      c.enumerable ? c.universe : 0);
		return;
	}
	if (start >= 0 && s->models[start].feasible)
		cp_buf_printf(b, "The %s explains the data: no feature is needed. ",
			      s->space.start ? "starting model" : "baseline");
	else if (start >= 0)
		cp_buf_printf(b, "The %s is refuted. ",
			      s->space.start ? "starting model" : "baseline");
	cp_buf_printf(b, "%zu model%s tested explain%s the data", n_feas,
		      n_feas == 1 ? "" : "s", n_feas == 1 ? "s" : "");
	if (n_min)
		cp_buf_printf(b, "; %zu %s proven minimal (no feasible sub-model)",
			      n_min, n_min == 1 ? "is" : "are");
	cp_buf_puts(b, ". ");
	if (req) {
		cp_buf_puts(b, "Proven: the hardware needs ");
		say_features(s, req, b);
		cp_buf_puts(b, " (every model of the family without ");
		cp_buf_puts(b, udd_features_count(req) == 1 ? "it" : "one of them");
		cp_buf_puts(b, " is refuted). ");
	}
	if (imp) {
		cp_buf_puts(b, "Proven: no consistent model has ");
		say_features(s, imp, b);
		cp_buf_puts(b, " (every model with ");
		cp_buf_puts(b, udd_features_count(imp) == 1 ? "it" : "one of them");
		cp_buf_puts(b, " is refuted). ");
	}
	if (n_min > 1) {
		size_t k = 0;

		cp_buf_puts(b, "The data cannot tell apart the minimal models ");
		for (i = 0; i < s->n_models; i++) {
			if (!s->models[i].minimal)
				continue;
			if (k++)
				cp_buf_puts(b, k == n_min ? " and " : ", ");
			explore_format_features(s, s->models[i].features, b);
		}
		cp_buf_puts(b, ". ");
	}
	if (c.either) {
		cp_buf_puts(b, "The data allow ");
		say_features(s, c.either, b);
		cp_buf_puts(b, " either way (models with and without fit). ");
	}
	if (c.undecided) {
		cp_buf_puts(b, "Undecided: ");
		say_features(s, c.undecided, b);
		if (c.enumerable)
			cp_buf_printf(b, " (%zu of the family's %zu models untested; "
				      "--exhaustive decides)", c.universe - c.known,
				      c.universe);
		else
			cp_buf_printf(b, " (claims are proven for families of at most "
				      "%d candidate features; restrict --candidates)",
				      EXPLORE_CLAIMS_MAX_CANDIDATES);
		cp_buf_puts(b, ".");
	}
	if (s->truncated)
		cp_buf_puts(b, " (The search stopped at its model budget.)");
	each_view_text(s, b);
	cp_buf_puts(b, "\n");
}

/* Where the views differ: what each observation's verdict at the
 * regions' confidence alone would have said, as a sentence of the
 * conclusion (not a claim: no correction for the number of
 * observations). */
static void each_view_text(const struct explore_search *s, struct cp_buf *b)
{
	size_t i, n_each = 0, n_obs = s->models[0].eval.n_observations, flips = 0;
	struct explore_claims fw, each;

	if (!(s->family_level > 0) || !explore_views_differ(s))
		return;
	for (i = 0; i < s->n_models; i++) {
		n_each += s->models[i].feasible_each != 0;
		flips += s->models[i].feasible && !s->models[i].feasible_each;
	}
	explore_claims_compute_view(s, EXPLORE_VIEW_FAMILY, &fw);
	explore_claims_compute_view(s, EXPLORE_VIEW_EACH, &each);
	cp_buf_puts(b, b->len && b->data && b->data[b->len - 1] == ' ' ? "At " : " At ");
	explore_put_view(s, EXPLORE_VIEW_EACH, b);
	cp_buf_printf(b, " (one observation alone, no correction for %zu), ", n_obs);
	if (flips)
		cp_buf_printf(b, "%zu of the models that explain the data would be "
			      "refuted", flips);
	if (!n_each) {
		cp_buf_puts(b, flips ? " and " : "");
		cp_buf_puts(b, "no model tested would explain the data");
	}
	if ((each.required & ~each.impossible) != (fw.required & ~fw.impossible) &&
	    (each.required & ~each.impossible)) {
		cp_buf_puts(b, "; ");
		say_features(s, each.required & ~each.impossible, b);
		cp_buf_puts(b, " would seem required");
	}
	if ((each.impossible & ~each.required) != (fw.impossible & ~fw.required) &&
	    (each.impossible & ~each.required)) {
		cp_buf_puts(b, "; ");
		say_features(s, each.impossible & ~each.required, b);
		cp_buf_puts(b, " would seem impossible");
	}
	cp_buf_puts(b, ": not claims.");
}

/* How many of the family's 2^n models have a verdict and how: checked,
 * implied through the cone-growing features, refuted by cone
 * containment; and, when some have none, which part is open (per
 * alternative of the cone-shrinking features) and the check that
 * decides the next. */
static void verdicts_text(const struct explore_search *s,
			  const struct explore_claims *c, struct cp_buf *b)
{
	struct explore_verdicts *t;
	uint64_t sub, total, alt, nonmono = 0;
	size_t i, nc, open_alts = 0, direct;
	long next = -1;

	cp_buf_printf(b, "verdicts known: %zu of the family's %zu models", c->known,
		      c->universe);
	if (!c->enumerable) {
		cp_buf_puts(b, " (too many to enumerate)\n");
		return;
	}
	direct = c->known - c->implied;
	cp_buf_printf(b, " (2^%zu; %zu checked, %zu implied by monotonicity, %zu "
		      "refuted by cone containment)", udd_features_count(explore_varying(s)),
		      s->n_models, c->implied, direct > s->n_models ? direct - s->n_models : 0);
	if (c->known == c->universe) {
		cp_buf_puts(b, "; so every minimal model is listed above\n");
		return;
	}
	cp_buf_printf(b, "; not decided: %zu, so other minimal models may exist "
		      "among them", c->universe - c->known);
	t = explore_verdicts_new(s);
	if (!t) {
		cp_buf_puts(b, "\n");
		return;
	}
	nc = t->nc;
	total = (uint64_t)1 << nc;
	for (i = 0; i < nc; i++)
		if (!(t->mono & ((udd_features)1 << t->cand[i])))
			nonmono |= (uint64_t)1 << i;
	/* per alternative: its open models (every assignment of nonmono) */
	for (alt = 0;; alt = (alt - nonmono) & nonmono) {
		size_t open = 0;

		for (sub = 0; sub < total; sub++)
			if ((sub & nonmono) == alt && t->v[sub] < 0) {
				open++;
				if (next < 0)
					next = (long)sub;
			}
		if (open) {
			cp_buf_puts(b, open_alts++ ? ", " : " (");
			if (nonmono) {
				cp_buf_puts(b, "alternative ");
				explore_format_features(s, explore_verdicts_model(t, alt) &
							~t->fixed, b);
				cp_buf_puts(b, ": ");
			}
			cp_buf_printf(b, "%zu", open);
		}
		if (alt == nonmono)
			break;
	}
	cp_buf_puts(b, open_alts ? ")" : "");
	if (next >= 0) {
		cp_buf_puts(b, "; the next check: ");
		explore_check_line(s, explore_verdicts_model(t, (uint64_t)next), b);
	}
	cp_buf_puts(b, "\n");
	explore_verdicts_free(t);
}

/* ", at 99% over all 32 observations": the level of the claims. */
static void level_text(const struct explore_search *s, struct cp_buf *b)
{
	if (!(s->family_level > 0))
		return;
	cp_buf_puts(b, ", at ");
	explore_put_view(s, EXPLORE_VIEW_FAMILY, b);
}

/* The claims of the other view, where they differ: each observation's
 * verdict at the regions' confidence alone. */
static void each_view_claims(const struct explore_search *s,
			     const struct explore_claims *fw, struct cp_buf *b)
{
	struct explore_claims each;
	struct explore_verdicts *t;
	udd_features ereq, eimp, freq = fw->required & ~fw->impossible,
		     fimp = fw->impossible & ~fw->required;
	size_t i, n = 0;

	if (!(s->family_level > 0) || !explore_views_differ(s))
		return;
	explore_claims_compute_view(s, EXPLORE_VIEW_EACH, &each);
	ereq = each.required & ~each.impossible;
	eimp = each.impossible & ~each.required;
	cp_buf_puts(b, "at ");
	explore_put_view(s, EXPLORE_VIEW_EACH, b);
	cp_buf_printf(b, " (one observation alone, not corrected for %zu; not "
		      "claims): ", s->models[0].eval.n_observations);
	t = explore_verdicts_new_view(s, EXPLORE_VIEW_EACH);
	cp_buf_puts(b, "minimal");
	for (i = 0; t && i < s->n_models; i++)
		if (s->models[i].feasible_each &&
		    explore_proven_minimal_in(t, s->models[i].features)) {
			cp_buf_puts(b, " ");
			explore_format_features(s, s->models[i].features, b);
			n++;
		}
	explore_verdicts_free(t);
	cp_buf_puts(b, n ? "" : " none");
	if (ereq != freq) {
		cp_buf_puts(b, "; required ");
		list_or_none(s, ereq, b);
	}
	if (eimp != fimp) {
		cp_buf_puts(b, "; impossible ");
		list_or_none(s, eimp, b);
	}
	cp_buf_puts(b, "\n");
}

void explore_report(const struct explore_search *s, struct cp_buf *b)
{
	explore_report_n(s, 0, b);
}

void explore_report_n(const struct explore_search *s, size_t max_violations,
		      struct cp_buf *b)
{
	size_t i, j, n_skip = 0;
	int width = 2;

	for (i = 0; i < s->n_models; i++) {
		struct cp_buf t;

		cp_buf_init(&t);
		explore_format_features(s, s->models[i].features, &t);
		if (t.len > (size_t)width)
			width = (int)t.len;
		cp_buf_release(&t);
	}
	cp_buf_printf(b, "models tested (%zu, %s):\n", s->n_models,
		      s->exhaustive ? "every subset" :
		      "discovery then elimination");
	for (i = 0; i < s->n_models; i++) {
		const struct explore_model *m = &s->models[i];
		struct cp_buf t;

		cp_buf_init(&t);
		explore_format_features(s, m->features, &t);
		cp_buf_printf(b, "  #%-3zu %-*s  %-10s %zu/%zu infeasible",
			      i + 1, width, t.len ? t.data : "",
			      m->feasible ? (m->minimal ? "MINIMAL" : "feasible") :
			      "INFEASIBLE", m->eval.n_infeasible,
			      m->eval.n_observations);
		if (m->eval.family && m->eval.n_refuting != m->eval.n_infeasible) {
			if (m->eval.n_refuting)
				cp_buf_printf(b, ", %zu refute", m->eval.n_refuting);
			else
				cp_buf_puts(b, ", none refutes");
			cp_buf_printf(b, " over all %zu", m->eval.n_observations);
		}
		cp_buf_puts(b, "  (");
		cp_buf_release(&t);
		origin_text(s, m, b);
		cp_buf_printf(b, "; %.3f s)\n", m->seconds);
		if (m->eval.refuted_by)
			cp_buf_printf(b, "        refuted by: %s\n", m->eval.refuted_by);
		/* the most observations first (explore.h) */
		for (j = 0; j < m->eval.n_violations &&
			    (!max_violations || j < max_violations); j++)
			cp_buf_printf(b, "        violated by %zu: %s\n",
				      m->eval.violations[j].count,
				      m->eval.violations[j].constraint);
		if (j < m->eval.n_violations)
			cp_buf_printf(b, "        ... and %zu more violated constraint%s "
				      "(--violations 0 lists every one)\n",
				      m->eval.n_violations - j,
				      m->eval.n_violations - j == 1 ? "" : "s");
	}
	for (i = 0; i < s->n_edges; i++)
		n_skip += s->edges[i].step >= EXPLORE_SKIP_SAME_CONE;
	if (n_skip) {
		cp_buf_printf(b, "candidates skipped (%zu):\n", n_skip);
		for (i = 0; i < s->n_edges; i++) {
			const struct explore_edge *e = &s->edges[i];

			if (e->step < EXPLORE_SKIP_SAME_CONE)
				continue;
			cp_buf_printf(b, "  #%zu +%s: %s\n", e->from + 1,
				      s->space.names[e->feature],
				      e->step == EXPLORE_SKIP_SAME_CONE ?
				      "the cone does not grow" :
				      "relaxes no violated constraint");
		}
	}
	cp_buf_puts(b, "minimal feasible models (proven: no feasible sub-model");
	level_text(s, b);
	cp_buf_puts(b, "):");
	for (i = 0, j = 0; i < s->n_models; i++)
		if (s->models[i].minimal) {
			cp_buf_puts(b, " ");
			explore_format_features(s, s->models[i].features, b);
			j++;
		}
	cp_buf_puts(b, j ? "\n" : " none proven\n");
	{
		struct explore_claims c;
		udd_features req, imp;

		explore_claims_compute(s, &c);
		req = c.required & ~c.impossible;
		imp = c.impossible & ~c.required;
		verdicts_text(s, &c, b);
		cp_buf_puts(b, "required features (proven: every model without one is refuted");
		level_text(s, b);
		cp_buf_puts(b, "): ");
		list_or_none(s, req, b);
		cp_buf_puts(b, "\nimpossible features (proven: every model with one is refuted");
		level_text(s, b);
		cp_buf_puts(b, "): ");
		list_or_none(s, imp, b);
		cp_buf_puts(b, "\nfeatures the data allow either way (models with and without fit): ");
		list_or_none(s, c.either, b);
		if (c.enumerable)
			cp_buf_puts(b, "\nundecided features (models untested; "
				    "--exhaustive decides): ");
		else
			cp_buf_printf(b, "\nundecided features (claims need at most %d "
				      "candidates; restrict --candidates): ",
				      EXPLORE_CLAIMS_MAX_CANDIDATES);
		list_or_none(s, c.undecided, b);
		cp_buf_puts(b, "\n");
		each_view_claims(s, &c, b);
	}
	explore_report_proofs(s, b);
	explore_report_alternatives(s, b);
	explore_report_flows(s, b);
	if (s->truncated)
		cp_buf_puts(b, "search stopped at the model budget (--max-models)\n");
	cp_buf_puts(b, "conclusion: ");
	explore_conclusion(s, b);
}

void explore_dot(const struct explore_search *s, struct cp_buf *b)
{
	size_t i;

	cp_buf_puts(b, "digraph explore {\n"
		    "\trankdir=TB;\n"
		    "\tnode [shape=box, style=filled, fontname=\"Helvetica\"];\n"
		    "\tedge [fontname=\"Helvetica\", fontsize=10];\n");
	for (i = 0; i < s->n_models; i++) {
		const struct explore_model *m = &s->models[i];

		cp_buf_printf(b, "\tm%zu [label=\"#%zu ", i + 1, i + 1);
		explore_format_features(s, m->features, b);
		if (m->feasible)
			cp_buf_puts(b, "\\nfeasible\"");
		else
			cp_buf_printf(b, "\\n%zu/%zu infeasible\"",
				      m->eval.n_infeasible,
				      m->eval.n_observations);
		cp_buf_printf(b, ", fillcolor=\"%s\"%s];\n",
			      m->feasible ? "#d9ead3" : "#f4cccc",
			      m->minimal ? ", peripheries=2, penwidth=2" : "");
	}
	for (i = 0; i < s->n_edges; i++) {
		const struct explore_edge *e = &s->edges[i];

		if (e->step == EXPLORE_ADDED)
			cp_buf_printf(b, "\tm%zu -> m%zu [label=\"+%s\"];\n",
				      e->from + 1, e->to + 1,
				      s->space.names[e->feature]);
		else if (e->step == EXPLORE_PRUNED)
			cp_buf_printf(b, "\tm%zu -> m%zu [label=\"-%s\", "
				      "style=dashed, color=\"#555555\"];\n",
				      e->from + 1, e->to + 1,
				      s->space.names[e->feature]);
	}
	cp_buf_puts(b, "}\n");
}
