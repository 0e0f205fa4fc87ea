/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/report_json.c: the search and its proven claims for programs
 * (`counterpoint explore --json`), documented in docs/processors/haswell.md
 * and docs/schema/explore.json ("explore --json").  Every claim carries what proves
 * it: a required feature the number of models without it (all refuted), an
 * impossible one the number with it (all refuted). */
#include <string.h>

#include "explore/explore_int.h"

void explore_features_json(const struct explore_search *s, udd_features sel,
			   struct cp_buf *b)
{
	size_t f;
	int first = 1;

	cp_buf_puts(b, "[");
	for (f = 0; f < s->space.n_features; f++) {
		if (!(sel & ((udd_features)1 << f)))
			continue;
		cp_buf_puts(b, first ? "" : ", ");
		cp_buf_json_string(b, s->space.names[f]);
		first = 0;
	}
	cp_buf_puts(b, "]");
}

const char *explore_origin_name(enum explore_origin o)
{
	switch (o) {
	case EXPLORE_START: return "start";
	case EXPLORE_DISCOVERY: return "discovery";
	case EXPLORE_ELIMINATION: return "elimination";
	case EXPLORE_EXHAUSTIVE: return "exhaustive";
	case EXPLORE_TARGETED: return "targeted";
	case EXPLORE_DUALIZATION: return "dualization";
	}
	return "?";
}

static void claim_list(const struct explore_search *s, udd_features sel,
		       const char *proof, size_t half, int with, struct cp_buf *b)
{
	size_t f;
	int first = 1;

	cp_buf_puts(b, "[");
	for (f = 0; f < s->space.n_features; f++) {
		if (!(sel & ((udd_features)1 << f)))
			continue;
		cp_buf_puts(b, first ? "\n    {\"feature\": " : ",\n    {\"feature\": ");
		cp_buf_json_string(b, s->space.names[f]);
		if (proof)
			cp_buf_printf(b, ", \"proof\": \"%s\", \"models_refuted\": %zu",
				      proof, half);
		cp_buf_puts(b, ", \"refuted_models\": ");
		explore_json_refuted_tops(s, f, with, b);
		cp_buf_puts(b, "}");
		first = 0;
	}
	cp_buf_puts(b, first ? "]" : "\n  ]");
}

void explore_report_json(const struct explore_search *s, const char *model,
			 const char *data, struct cp_buf *b)
{
	struct explore_claims c;
	size_t i, j;

	explore_claims_compute(s, &c);
	cp_buf_json_begin(b, model, data);
	cp_buf_printf(b, ",\n  \"search\": \"%s\",\n  \"start\": ",
		      s->exhaustive ? "exhaustive" : "discovery then elimination");
	explore_features_json(s, s->space.start, b);
	cp_buf_puts(b, ",\n  \"candidates\": ");
	explore_features_json(s, s->space.candidates, b);
	cp_buf_printf(b, ",\n  \"confidence\": %g,\n  \"family_confidence\": ",
		      s->confidence > 0 ? s->confidence : 0.99);
	if (s->family_level > 0)
		cp_buf_printf(b, "%g,\n  \"family_level\": %.10g", s->family_confidence,
			      s->family_level);
	else
		cp_buf_puts(b, "null,\n  \"family_level\": null");
	cp_buf_printf(b, ",\n  \"family_models\": %zu,\n  \"known_verdicts\": %zu,\n"
		      "  \"truncated\": %s,\n  \"models\": [",
		      c.enumerable ? c.universe : 0, c.known,
		      s->truncated ? "true" : "false");
	for (i = 0; i < s->n_models; i++) {
		const struct explore_model *m = &s->models[i];

		cp_buf_puts(b, i ? ",\n    {\"features\": " : "\n    {\"features\": ");
		explore_features_json(s, m->features, b);
		cp_buf_printf(b, ", \"verdict\": \"%s\", \"minimal\": %s, \"origin\": \"%s\", "
			      "\"observations\": %zu, \"infeasible\": %zu, \"refuting\": %zu, "
			      "\"feasible_each\": %s, \"signatures\": %zu, \"refuted_by\": ",
			      m->feasible ? "feasible" : "refuted",
			      m->minimal ? "true" : "false", explore_origin_name(m->origin),
			      m->eval.n_observations, m->eval.n_infeasible,
			      explore_eval_refuting(&m->eval),
			      m->feasible_each ? "true" : "false", m->eval.n_signatures);
		if (m->eval.refuted_by)
			cp_buf_json_string(b, m->eval.refuted_by);
		else
			cp_buf_puts(b, "null");
		cp_buf_puts(b, ", \"violations\": [");
		for (j = 0; j < m->eval.n_violations; j++) {
			cp_buf_puts(b, j ? ", {\"constraint\": " : "{\"constraint\": ");
			cp_buf_json_string(b, m->eval.violations[j].constraint);
			cp_buf_printf(b, ", \"observations\": %zu}",
				      m->eval.violations[j].count);
		}
		cp_buf_puts(b, "], \"flows\": ");
		explore_json_flows(s, i, b);
		cp_buf_puts(b, "}");
	}
	cp_buf_puts(b, s->n_models ? "\n  ],\n  \"minimal\": [" : "],\n  \"minimal\": [");
	for (i = 0, j = 0; i < s->n_models; i++)
		if (s->models[i].minimal) {
			cp_buf_puts(b, j++ ? ", " : "");
			explore_features_json(s, s->models[i].features, b);
		}
	cp_buf_puts(b, "],\n  \"required\": ");
	claim_list(s, c.required & ~c.impossible,
		   "every model of the family without it is refuted",
		   c.enumerable ? c.universe / 2 : 0, 0, b);
	cp_buf_puts(b, ",\n  \"impossible\": ");
	claim_list(s, c.impossible & ~c.required,
		   "every model of the family with it is refuted",
		   c.enumerable ? c.universe / 2 : 0, 1, b);
	cp_buf_puts(b, ",\n  \"either\": ");
	explore_features_json(s, c.either, b);
	cp_buf_puts(b, ",\n  \"undecided\": ");
	explore_features_json(s, c.undecided, b);
	explore_json_claims_extra(s, b);
	cp_buf_puts(b, "\n}\n");
}
