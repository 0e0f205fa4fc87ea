/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/report_suggest.c: a suggestion search (explore/suggest.c) as
 * text for people and as `suggest --json` (docs/manual/json.md,
 * docs/manual/suggest.md).  Flow bounds are printed rounded outward, as `flows`
 * prints them (pipe_flows_put_bound). */
#include <string.h>

#include "explore/suggest_int.h"

/* Violated constraints the text lists before "... and N more". */
#define SHOWN_VIOLATED 10

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "6.1% of load.retired": the share's denominator in words. */
static void put_per(const struct explore_suggest *s, const struct explore_new_path *p,
		    struct cp_buf *b)
{
	if (p->flow_per)
		cp_buf_printf(b, " of %s", p->flow_per);
	else
		cp_buf_printf(b, " of %s μops", udd_model_uop_name(s->model, p->uop));
}

static void put_flow(const struct explore_suggest *s, const struct explore_new_path *p,
		     struct cp_buf *b)
{
	if (!p->flow_defined) {
		cp_buf_puts(b, "not bounded (no observation it explains bounds the share)");
		return;
	}
	cp_buf_puts(b, "at least ");
	pipe_flows_put_bound(b, 100 * p->flow_lo, 4, -1);
	cp_buf_puts(b, "%");
	put_per(s, p, b);
	cp_buf_printf(b, " must take it (in %s), at most ", p->flow_lo_at);
	pipe_flows_put_bound(b, 100 * p->flow_hi, 4, 1);
	cp_buf_puts(b, "% in any observation");
}

/* "all 3 observations", "the 1 observation". */
static void put_all(size_t n, struct cp_buf *b)
{
	cp_buf_printf(b, n == 1 ? "the %zu observation" : "all %zu observations", n);
}

/* What the search tried, in one paragraph. */
static void put_tried(const struct explore_suggest *s, struct cp_buf *b)
{
	cp_buf_printf(b, "tried %zu candidate signatures (within %zu edit%s of the model's %zu "
		      "(uop, signature) pairs, and signatures of one or two counters of the "
		      "violated constraints); %zu break some violated constraint; %zu "
		      "set%s of at most %zu checked (%zu observation checks)\n",
		      s->generated, s->opt.max_edits, plural(s->opt.max_edits, "", "s"),
		      s->n_signatures, s->favourable, s->sets_checked,
		      plural(s->sets_checked, "", "s"), s->opt.max_new, s->checks);
}

/* The observations that refute a suggestion, by name. */
static void put_unexplained(const struct explore_suggestion *x, struct cp_buf *b)
{
	size_t i;

	for (i = 0; i < x->n_unexplained && x->unexplained && i < 20; i++)
		cp_buf_printf(b, "%s%s", i ? ", " : "", x->unexplained[i]);
	if (x->n_unexplained > 20)
		cp_buf_printf(b, " and %zu more", x->n_unexplained - 20);
	if (x->undecided)
		cp_buf_printf(b, "; %zu undecided: feasible in floating point, the exact "
			      "re-check failed", x->undecided);
}

/* What a suggestion explains, by check's rule: "all 3 observations (each
 * feasible at 99%)", "all 3 observations: 2 feasible at 99% each, the
 * other at 99.9666% (none refutes it at 99% over the 3)", "30 of 36
 * observations (6 refute it at 99% over them: a, b, ...)". */
static void put_explains(const struct explore_suggest *s,
			 const struct explore_suggestion *x, struct cp_buf *b)
{
	size_t rest = x->of - x->feasible_each;

	if (x->explains == x->of) {
		put_all(x->of, b);
		if (!rest) {
			cp_buf_puts(b, " (each checked feasible at ");
			pipe_put_level(b, s->confidence);
			cp_buf_puts(b, " on the model's signatures and these)");
			return;
		}
		cp_buf_printf(b, ": %zu feasible at ", x->feasible_each);
		pipe_put_level(b, s->confidence);
		cp_buf_printf(b, " each, the other%s at ", plural(rest, "", "s"));
		pipe_put_level(b, s->family_level);
		cp_buf_puts(b, " (none refutes it at ");
		pipe_put_level(b, s->family_confidence);
		cp_buf_printf(b, " over the %zu)", x->of);
		return;
	}
	cp_buf_printf(b, "%zu of %zu observations (%zu refute%s it at ", x->explains, x->of,
		      x->of - x->explains, plural(x->of - x->explains, "s", ""));
	pipe_put_level(b, s->family_confidence);
	cp_buf_puts(b, " over them: ");
	put_unexplained(x, b);
	cp_buf_puts(b, ")");
}

static void put_path(const struct explore_suggest *s, const struct explore_new_path *p,
		     struct cp_buf *b)
{
	const char *line, *next;

	cp_buf_printf(b, "  new %s μpath: %s\n", udd_model_uop_name(s->model, p->uop),
		      p->counters);
	cp_buf_printf(b, "    like [%zu] %s\n", p->like + 1, p->like_counters);
	cp_buf_printf(b, "      e.g. %s\n", p->like_example);
	cp_buf_printf(b, "    edit%s (%zu): %s\n", plural(p->edits, "", "s"), p->edits, p->edit);
	cp_buf_puts(b, "    flow: ");
	put_flow(s, p, b);
	cp_buf_puts(b, "\n    μDD (a sketch to adapt: the new μpath leaves the old one "
		    "where its counts part):\n");
	for (line = p->fragment; line && *line; line = next) {
		next = strchr(line, '\n');
		next = next ? next + 1 : line + strlen(line);
		cp_buf_puts(b, "      ");
		cp_buf_append(b, line, (size_t)(next - line));
	}
}

void explore_suggest_report(const struct explore_suggest *s, size_t max, int brief,
			    struct cp_buf *b)
{
	size_t i, j, n = s->n_suggestions;
	int all = explore_suggest_explains_all(s);

	if (max && n > max)
		n = max;
	if (!brief) {
		char *with = udd_model_selection_str(s->model, s->sel);

		cp_buf_printf(b, "model %s (features: %s), %zu observation%s (region %s, "
			      "confidence %g)\n", udd_model_file(s->model),
			      with && *with ? with : "none", s->n_observations,
			      plural(s->n_observations, "", "s"), s->region, s->confidence);
		cp_free(with);
		cp_buf_puts(b, s->claim ? s->claim : "");
		if (!s->refuting && !s->undecided) {
			cp_buf_puts(b, "no observation refutes the model: nothing to suggest\n");
			return;
		}
		cp_buf_puts(b, "\nviolated constraints (each a certificate: a new μpath helps "
			    "only if it breaks one), the most observations first:\n");
		for (i = 0; i < s->n_violated && i < SHOWN_VIOLATED; i++)
			cp_buf_printf(b, "  [%zu] %s   (%zu observation%s)\n", i + 1,
				      s->violated[i].text, s->violated[i].count,
				      plural(s->violated[i].count, "", "s"));
		if (s->n_violated > SHOWN_VIOLATED)
			cp_buf_printf(b, "  ... and %zu more (--json lists every one)\n",
				      s->n_violated - SHOWN_VIOLATED);
		cp_buf_puts(b, "\n");
		put_tried(s, b);
	}
	if (!all) {
		cp_buf_puts(b, brief ? "  " : "\n");
		if (!s->complete)
			cp_buf_printf(b, "undecided: the search stopped after %zu observation "
				      "checks (--max-checks) before it tried every set the "
				      "certificates allow%s", s->checks,
				      s->unpriced ? ", and an observation left no certificate "
				      "to price against" : "");
		else if (s->pruned_by_pricing)
		{
			cp_buf_printf(b, "no set of at most %zu new μpath%s within %zu edit%s "
				      "explains ", s->opt.max_new, plural(s->opt.max_new, "", "s"),
				      s->opt.max_edits, plural(s->opt.max_edits, "", "s"));
			put_all(s->usable, b);
			cp_buf_puts(b, ": no such set breaks every violated constraint");
		}
		else
		{
			cp_buf_printf(b, "no set of at most %zu new μpath%s within %zu edit%s "
				      "explains ", s->opt.max_new, plural(s->opt.max_new, "", "s"),
				      s->opt.max_edits, plural(s->opt.max_edits, "", "s"));
			put_all(s->usable, b);
			cp_buf_printf(b, ": every set that breaks every violated constraint "
				      "was checked (%zu sets)", s->sets_checked);
		}
		cp_buf_puts(b, n ? "; the sets that explain the most found:\n" : "\n");
	}
	for (i = 0; i < n; i++) {
		const struct explore_suggestion *x = &s->suggestions[i];

		if (brief) {
			cp_buf_printf(b, "  %zu. explains %zu of %zu:", i + 1, x->explains, x->of);
			for (j = 0; j < x->n_new; j++) {
				const struct explore_new_path *p = &x->paths[j];

				cp_buf_printf(b, "%s new %s μpath %s (like [%zu], %s", j ? ";" : "",
					      udd_model_uop_name(s->model, p->uop), p->counters,
					      p->like + 1, p->edit);
				if (p->flow_defined) {
					cp_buf_puts(b, "; at least ");
					pipe_flows_put_bound(b, 100 * p->flow_lo, 4, -1);
					cp_buf_puts(b, "%");
					put_per(s, p, b);
				}
				cp_buf_puts(b, ")");
			}
			cp_buf_puts(b, "\n");
			continue;
		}
		cp_buf_printf(b, "\nsuggestion %zu: explains ", i + 1);
		put_explains(s, x, b);
		cp_buf_printf(b, "; %zu new μpath%s, %zu edit%s\n", x->n_new,
			      plural(x->n_new, "", "s"), x->edits, plural(x->edits, "", "s"));
		for (j = 0; j < x->n_new; j++)
			put_path(s, &x->paths[j], b);
		if (x->n_relaxed) {
			cp_buf_puts(b, "  relaxes");
			for (j = 0; j < x->n_relaxed; j++)
				cp_buf_printf(b, " [%zu]", x->relaxed[j] + 1);
			cp_buf_puts(b, "\n");
		}
	}
}

/* ==== JSON ==== */

static void json_bound(struct cp_buf *b, int defined, double v, int dir)
{
	if (!defined)
		cp_buf_puts(b, "null");
	else
		pipe_flows_put_bound(b, v, 6, dir);
}

static void json_path(const struct explore_suggest *s, const struct explore_new_path *p,
		      struct cp_buf *b)
{
	size_t c, n;

	cp_buf_puts(b, "{\"uop\": ");
	cp_buf_json_string(b, udd_model_uop_name(s->model, p->uop));
	cp_buf_puts(b, ", \"vector\": [");
	for (c = 0; c < s->k; c++)
		cp_buf_printf(b, c ? ", %u" : "%u", (unsigned)p->counts[c]);
	/* the same, sparse and by name, as an architect reads it */
	cp_buf_puts(b, "], \"counters\": {");
	for (c = 0, n = 0; c < s->k; c++)
		if (p->counts[c]) {
			cp_buf_puts(b, n++ ? ", " : "");
			cp_buf_json_string(b, s->names[c]);
			cp_buf_printf(b, ": %u", (unsigned)p->counts[c]);
		}
	cp_buf_printf(b, "}, \"like\": %zu, \"like_counters\": ", p->like + 1);
	cp_buf_json_string(b, p->like_counters);
	cp_buf_puts(b, ", \"like_example\": ");
	cp_buf_json_string(b, p->like_example);
	cp_buf_printf(b, ", \"edits\": %zu, \"edit\": ", p->edits);
	cp_buf_json_string(b, p->edit);
	cp_buf_puts(b, ", \"flow\": {\"lo\": ");
	json_bound(b, p->flow_defined, p->flow_lo, -1);
	cp_buf_puts(b, ", \"hi\": ");
	json_bound(b, p->flow_defined, p->flow_hi, 1);
	cp_buf_puts(b, ", \"per\": ");
	if (p->flow_per)
		cp_buf_json_string(b, p->flow_per);
	else
		cp_buf_puts(b, "null");
	cp_buf_puts(b, ", \"lo_observation\": ");
	if (p->flow_defined)
		cp_buf_json_string(b, p->flow_lo_at);
	else
		cp_buf_puts(b, "null");
	cp_buf_printf(b, "}, \"line\": %u, \"place\": ", p->line);
	cp_buf_json_string(b, p->place);
	cp_buf_puts(b, ", \"fragment\": ");
	cp_buf_json_string(b, p->fragment);
	cp_buf_puts(b, "}");
}

void explore_suggest_json(const struct explore_suggest *s, const char *model,
			  const char *data, struct cp_buf *b)
{
	size_t i, j;

	cp_buf_json_begin(b, model, data);
	cp_buf_puts(b, ",\n\"features\": ");
	udd_model_json_features(s->model, s->sel, b);
	cp_buf_puts(b, ",\n\"counters\": ");
	udd_model_json_counters(s->model, s->names, s->k, b);
	cp_buf_printf(b, ",\n\"region\": \"%s\",\n\"confidence\": %g,\n\"max_new\": %zu,\n"
		      "\"max_edits\": %zu,\n\"observations\": %zu,\n\"usable\": %zu,\n"
		      "\"infeasible\": %zu,\n\"undecided\": %zu,\n\"family\": {\"confidence\": "
		      "%g, \"level\": %.10g},\n\"refuting\": %zu,\n\"violated\": [",
		      s->region, s->confidence, s->opt.max_new, s->opt.max_edits,
		      s->n_observations, s->usable, s->infeasible, s->undecided,
		      s->family_confidence, s->family_level, s->refuting);
	for (i = 0; i < s->n_violated; i++) {
		cp_buf_puts(b, i ? ",\n  {\"constraint\": " : "\n  {\"constraint\": ");
		cp_buf_json_string(b, s->violated[i].text);
		cp_buf_puts(b, ", \"vector\": [");
		for (j = 0; j < s->k; j++)
			cp_buf_printf(b, j ? ", %lld" : "%lld", (long long)s->violated[i].a[j]);
		cp_buf_printf(b, "], \"observations\": %zu}", s->violated[i].count);
	}
	cp_buf_printf(b, "],\n\"search\": {\"signatures\": %zu, \"priced\": %zu, "
		      "\"favourable\": %zu, \"sets_checked\": %zu, \"checks\": %zu, "
		      "\"proven\": %zu, \"complete\": %s, \"pruned_by_pricing\": %s},\n"
		      "\"explains_all\": %s,\n\"suggestions\": [",
		      s->n_signatures, s->generated, s->favourable, s->sets_checked, s->checks,
		      s->proven, s->complete ? "true" : "false",
		      s->pruned_by_pricing ? "true" : "false",
		      explore_suggest_explains_all(s) ? "true" : "false");
	for (i = 0; i < s->n_suggestions; i++) {
		const struct explore_suggestion *x = &s->suggestions[i];

		cp_buf_printf(b, "%s\n  {\"explains\": %zu, \"of\": %zu, \"feasible_each\": %zu, "
			      "\"undecided\": %zu, \"unexplained\": [", i ? "," : "", x->explains,
			      x->of, x->feasible_each, x->undecided);
		for (j = 0; j < x->n_unexplained && j < 20; j++) {
			cp_buf_puts(b, j ? ", " : "");
			cp_buf_json_string(b, x->unexplained[j]);
		}
		cp_buf_puts(b, "], \"signatures\": [");
		for (j = 0; j < x->n_new; j++) {
			cp_buf_puts(b, j ? ",\n    " : "\n    ");
			json_path(s, &x->paths[j], b);
		}
		cp_buf_puts(b, "],\n   \"like\": [");
		for (j = 0; j < x->n_new; j++)
			cp_buf_printf(b, j ? ", %zu" : "%zu", x->paths[j].like + 1);
		cp_buf_printf(b, "], \"edits\": %zu, \"counters_touched\": %zu, \"collateral\": %zu, "
			      "\"shape\": %zu, \"flow\": {\"lo\": ", x->edits, x->touched,
			      x->collateral, x->shape);
		json_bound(b, x->flow_defined, x->flow_lo, -1);
		cp_buf_puts(b, ", \"hi\": ");
		json_bound(b, x->flow_defined, x->flow_hi, 1);
		cp_buf_puts(b, "}, \"relaxes\": [");
		for (j = 0; j < x->n_relaxed; j++)
			cp_buf_printf(b, j ? ", %zu" : "%zu", x->relaxed[j] + 1);
		cp_buf_puts(b, "]}");
	}
	cp_buf_puts(b, "\n]\n}\n");
}
