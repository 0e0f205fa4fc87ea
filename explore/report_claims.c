/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/report_claims.c: what proves each claim, for people and for
 * programs: which features grow the cone, the largest models that refute
 * a required or impossible feature (with the observation and constraint),
 * the feasible models behind "either way", the check that would decide
 * each undecided claim, and what separates the proven minimal models. */
#include <math.h>
#include <string.h>

#include "explore/explore_int.h"

#define PROOF_MAX_TOPS 64
#define SHOW_CHECKS 4

static void features_text(const struct explore_search *s, udd_features sel,
			  struct cp_buf *b)
{
	explore_format_features(s, sel, b);
}

static void json_number(struct cp_buf *b, double x)
{
	if (isfinite(x))
		cp_buf_printf(b, "%.6g", x);
	else
		cp_buf_puts(b, "null");
}

static void json_string_or_null(struct cp_buf *b, const char *text)
{
	if (text)
		cp_buf_json_string(b, text);
	else
		cp_buf_puts(b, "null");
}

/* The status of varying feature i over the verdict table. */
struct fstatus {
	int fw, fwo, uw, uwo;
};

static struct fstatus status_of(const struct explore_verdicts *t, size_t i)
{
	struct fstatus st = { 0, 0, 0, 0 };
	uint64_t sub, total = (uint64_t)1 << t->nc;

	for (sub = 0; sub < total; sub++) {
		int has = (sub >> i) & 1;

		if (t->v[sub] < 0)
			*(has ? &st.uw : &st.uwo) = 1;
		else if (t->v[sub] == 1)
			*(has ? &st.fw : &st.fwo) = 1;
	}
	return st;
}

/* ---- refuted tops, in words and in JSON ---- */

static void refuted_text(const struct explore_search *s,
			 const struct explore_verdicts *t, udd_features top,
			 struct cp_buf *b)
{
	long idx = explore_refuting_model(s, t, top);
	const struct explore_model *m;

	cp_buf_puts(b, "      ");
	features_text(s, top, b);
	if (idx < 0) {
		cp_buf_puts(b, ": refuted\n");
		return;
	}
	m = &s->models[idx];
	if (m->features == top)
		cp_buf_printf(b, " (#%zu) refuted", (size_t)idx + 1);
	else {
		cp_buf_printf(b, " refuted: its cone lies within that of refuted #%zu ",
			      (size_t)idx + 1);
		features_text(s, m->features, b);
	}
	if (m->eval.witness)
		cp_buf_printf(b, " by %s: %s (margin %.3g sd)", m->eval.witness,
			      m->eval.witness_constraint ? m->eval.witness_constraint : "?",
			      m->eval.witness_margin);
	else if (m->eval.refuted_by)
		cp_buf_printf(b, " by %s", m->eval.refuted_by);
	cp_buf_puts(b, "\n");
}

static void refuted_json(const struct explore_search *s,
			 const struct explore_verdicts *t, udd_features top,
			 struct cp_buf *b)
{
	long idx = explore_refuting_model(s, t, top);
	const struct explore_model *m = idx >= 0 ? &s->models[idx] : NULL;

	cp_buf_puts(b, "{\"model\": ");
	explore_features_json(s, top, b);
	cp_buf_puts(b, ", \"checked_model\": ");
	if (m)
		explore_features_json(s, m->features, b);
	else
		cp_buf_puts(b, "null");
	cp_buf_puts(b, ", \"observation\": ");
	json_string_or_null(b, m ? (m->eval.witness ? m->eval.witness : m->eval.refuted_by) : NULL);
	cp_buf_puts(b, ", \"constraint\": ");
	json_string_or_null(b, m ? m->eval.witness_constraint : NULL);
	if (m && m->eval.witness) {
		cp_buf_puts(b, ", \"margin\": ");
		json_number(b, m->eval.witness_margin);
	}
	cp_buf_puts(b, "}");
}

/* A checked feasible model with (with = 1) or without feature f, or one
 * whose feasibility follows: a checked feasible model within it by
 * cone-growing features.  -1 when none. */
static long feasible_witness(const struct explore_search *s,
			     const struct explore_verdicts *t, size_t f, int with,
			     udd_features *model)
{
	udd_features bit = (udd_features)1 << f;
	size_t i;
	long best = -1;

	/* the smallest: a checked feasible model, or (f growing the cone)
	 * a checked feasible model without f, plus f */
	for (i = 0; i < s->n_models; i++) {
		udd_features m = s->models[i].features;

		if (!s->models[i].feasible)
			continue;
		if (!!(m & bit) != with) {
			if (!with || !(t->mono & bit) || explore_verdict(t, m | bit) != 1)
				continue;
			m |= bit;
		}
		if (best < 0 || udd_features_count(m) < udd_features_count(*model)) {
			best = (long)i;
			*model = m;
		}
	}
	return best;
}

/* ---- the text ---- */

static void monotonicity_text(const struct explore_search *s, struct cp_buf *b)
{
	const struct explore_monotonicity *mo = &s->mono;
	udd_features vary = explore_varying(s), und;
	size_t f;

	if (!s->has_mono)
		return;
	if (!mo->models) {
		cp_buf_puts(b, "monotonicity: not decided (the family is larger than "
			    "--monotone-models); claims rest on checked verdicts only\n");
		return;
	}
	cp_buf_printf(b, "monotonicity (exact, on the signatures of the family's %zu "
		      "models):\n  adding one of these can only grow the cone: ",
		      mo->models);
	if (mo->grows & vary)
		for (f = 0, und = 0; f < s->space.n_features; f++) {
			if (!(mo->grows & vary & ((udd_features)1 << f)))
				continue;
			cp_buf_printf(b, "%s%s", und ? ", " : "", s->space.names[f]);
			und = 1;
		}
	else
		cp_buf_puts(b, "none");
	cp_buf_puts(b, "\n");
	for (f = 0; f < s->space.n_features; f++)
		if (mo->shrinks & vary & ((udd_features)1 << f))
			cp_buf_printf(b, "  %s can shrink it (an alternative, not an "
				      "addition): %s\n", s->space.names[f],
				      mo->lost[f] ? mo->lost[f] : "");
	und = vary & ~(mo->grows | mo->shrinks);
	for (f = 0; f < s->space.n_features; f++)
		if (und & ((udd_features)1 << f))
			cp_buf_printf(b, "  %s: not decided (its exact cone was over "
				      "budget)\n", s->space.names[f]);
}

/* The largest models with or without feature f (explore_tops) whose
 * verdict is unknown, as check lines. */
static void check_lines(const struct explore_search *s,
			const struct explore_verdicts *t, size_t f, int with,
			struct cp_buf *b)
{
	udd_features tops[PROOF_MAX_TOPS];
	size_t nt = explore_tops(t, f, with, tops, PROOF_MAX_TOPS), j, shown = 0,
	       open = 0;

	if (nt > PROOF_MAX_TOPS) {
		cp_buf_printf(b, "    %s %s: too many alternatives to list; "
			      "--exhaustive decides\n", s->space.names[f],
			      with ? "impossible?" : "required?");
		return;
	}
	for (j = 0; j < nt; j++)
		open += explore_verdict(t, tops[j]) < 0;
	cp_buf_printf(b, "    is %s %s? %s:\n", s->space.names[f],
		      with ? "impossible" : "required",
		      open == 1 ? "this check decides it (refuted: yes; feasible: no)" :
		      "these checks decide it (all refuted: yes; one feasible: no)");
	for (j = 0; j < nt; j++) {
		if (explore_verdict(t, tops[j]) >= 0)
			continue;
		if (shown++ == SHOW_CHECKS) {
			cp_buf_printf(b, "      (and %zu more)\n", open - SHOW_CHECKS);
			break;
		}
		cp_buf_puts(b, "      ");
		explore_check_line(s, tops[j], b);
		cp_buf_puts(b, "\n");
	}
}

void explore_report_proofs(const struct explore_search *s, struct cp_buf *b)
{
	struct explore_verdicts *t = explore_verdicts_new(s);
	udd_features tops[PROOF_MAX_TOPS];
	size_t i, j;
	int header = 0, undecided_header = 0;

	monotonicity_text(s, b);
	if (!t)
		return;
	if (t->conflicts)
		cp_buf_printf(b, "warning: %zu verdicts implied by monotonicity contradict "
			      "checked ones (a borderline verdict?); none is used\n",
			      t->conflicts);
	for (i = 0; i < t->nc; i++) {
		size_t f = t->cand[i], nt;
		struct fstatus st = status_of(t, i);
		int req = !st.uwo && !st.fwo, imp = !st.uw && !st.fw;

		if (req == imp)
			continue;
		if (!header++)
			cp_buf_puts(b, "proofs:\n");
		nt = explore_tops(t, f, imp, tops, PROOF_MAX_TOPS);
		cp_buf_printf(b, "  %s is %s: every model %s it is refuted; ",
			      s->space.names[f], req ? "required" : "impossible",
			      req ? "without" : "with");
		if (nt > PROOF_MAX_TOPS || !s->has_mono || !s->mono.models) {
			cp_buf_printf(b, "all %zu checked or implied\n",
				      (size_t)1 << (t->nc - 1));
			continue;
		}
		cp_buf_printf(b, "%s:\n", nt == 1 ? "the largest one" :
			      "the largest ones (one per alternative)");
		for (j = 0; j < nt; j++)
			refuted_text(s, t, tops[j], b);
	}
	for (i = 0; i < t->nc; i++) {
		size_t f = t->cand[i];
		struct fstatus st = status_of(t, i);
		udd_features mw = 0, mwo = 0;
		long w, wo;

		if (!(st.fw && st.fwo))
			continue;
		w = feasible_witness(s, t, f, 1, &mw);
		wo = feasible_witness(s, t, f, 0, &mwo);
		if (w < 0 || wo < 0)
			continue;
		if (!header++)
			cp_buf_puts(b, "proofs:\n");
		cp_buf_printf(b, "  %s either way: feasible with it ", s->space.names[f]);
		features_text(s, mw, b);
		if (s->models[w].features != mw) {
			cp_buf_printf(b, " (contains feasible #%zu ", (size_t)w + 1);
			features_text(s, s->models[w].features, b);
			cp_buf_puts(b, " by cone-growing features)");
		}
		cp_buf_puts(b, ", without ");
		features_text(s, mwo, b);
		cp_buf_puts(b, "\n");
	}
	for (i = 0; i < t->nc; i++) {
		struct fstatus st = status_of(t, i);

		if ((st.fw && st.fwo) || (!st.uw && !st.fw) || (!st.uwo && !st.fwo))
			continue;   /* either, impossible or required: decided */
		if (!undecided_header++)
			cp_buf_puts(b, "undecided claims and the checks that decide them:\n");
		if (!st.fwo && st.uwo)
			check_lines(s, t, t->cand[i], 0, b);
		if (!st.fw && st.uw)
			check_lines(s, t, t->cand[i], 1, b);
	}
	explore_verdicts_free(t);
}

void explore_report_alternatives(const struct explore_search *s, struct cp_buf *b)
{
	size_t i, j, n = explore_n_separations(s);

	if (!n)
		return;
	cp_buf_puts(b, "alternatives (what separates the proven minimal models):\n");
	for (i = 0; i < n; i++) {
		const struct explore_separation *p = explore_separation_at(s, i);

		cp_buf_puts(b, "  ");
		features_text(s, p->a, b);
		cp_buf_puts(b, " vs ");
		features_text(s, p->b, b);
		if (p->within) {
			cp_buf_puts(b, ": the cone of the second lies within the first's; "
				    "no observation refutes the first and not the second\n");
			continue;
		}
		cp_buf_puts(b, ": μpaths of the second break the first's constraint\n        ");
		cp_buf_puts(b, p->constraint ? p->constraint : "?");
		if (p->n_constraints > 1)
			cp_buf_printf(b, "\n      (the closest to the data of %zu such constraints)",
				      p->n_constraints);
		cp_buf_printf(b, "\n      %zu μpath signature%s of ", p->n_paths,
			      p->n_paths == 1 ? "" : "s");
		features_text(s, p->b, b);
		cp_buf_puts(b, p->n_paths == 1 ? " breaks it:\n" : " break it, e.g.\n");
		for (j = 0; j < p->n_shown; j++)
			cp_buf_printf(b, "        %s: %s\n          e.g. %s\n", p->paths[j].uop,
				      p->paths[j].counters, p->paths[j].example);
		cp_buf_puts(b, "      margins (sd; > 0: the region breaks it, refuting ");
		features_text(s, p->a, b);
		cp_buf_puts(b, "):");
		for (j = 0; j < p->n_margins; j++)
			cp_buf_printf(b, "%s%s %.3g", j % 6 ? ", " : "\n        ",
				      p->margins[j].observation, p->margins[j].margin);
		cp_buf_puts(b, "\n");
	}
}

/* ---- JSON ---- */

void explore_json_refuted_tops(const struct explore_search *s, size_t f,
			       int with, struct cp_buf *b)
{
	struct explore_verdicts *t = explore_verdicts_new(s);
	udd_features tops[PROOF_MAX_TOPS];
	size_t nt = t ? explore_tops(t, f, with, tops, PROOF_MAX_TOPS) : 0, j;

	cp_buf_puts(b, "[");
	if (t && s->has_mono && s->mono.models && nt <= PROOF_MAX_TOPS)
		for (j = 0; j < nt; j++) {
			cp_buf_puts(b, j ? ", " : "");
			refuted_json(s, t, tops[j], b);
		}
	cp_buf_puts(b, "]");
	explore_verdicts_free(t);
}

/* Appends ", "key": [...]" pieces to an open JSON object. */
void explore_json_claims_extra(const struct explore_search *s, struct cp_buf *b)
{
	struct explore_verdicts *t = explore_verdicts_new(s);
	const struct explore_monotonicity *mo = &s->mono;
	udd_features vary = explore_varying(s), tops[PROOF_MAX_TOPS];
	size_t i, j, f, n;

	cp_buf_puts(b, ",\n  \"monotonicity\": ");
	if (!s->has_mono || !mo->models) {
		cp_buf_puts(b, "null");
	} else {
		cp_buf_printf(b, "{\"models\": %zu, \"grows\": ", mo->models);
		explore_features_json(s, mo->grows & vary, b);
		cp_buf_puts(b, ", \"shrinks\": [");
		for (f = 0, n = 0; f < s->space.n_features; f++) {
			if (!(mo->shrinks & vary & ((udd_features)1 << f)))
				continue;
			cp_buf_puts(b, n++ ? ", {\"feature\": " : "{\"feature\": ");
			cp_buf_json_string(b, s->space.names[f]);
			cp_buf_puts(b, ", \"context\": ");
			explore_features_json(s, mo->context[f], b);
			cp_buf_puts(b, ", \"lost\": ");
			json_string_or_null(b, mo->lost[f]);
			cp_buf_puts(b, "}");
		}
		cp_buf_puts(b, "], \"undecided\": ");
		explore_features_json(s, vary & ~(mo->grows | mo->shrinks), b);
		cp_buf_puts(b, "}");
	}
	cp_buf_printf(b, ",\n  \"implied_verdicts\": %zu", t ? t->implied : 0);
	cp_buf_puts(b, ",\n  \"proofs\": [");
	for (i = 0, n = 0; t && i < t->nc; i++) {
		struct fstatus st = status_of(t, i);
		int req = !st.uwo && !st.fwo, imp = !st.uw && !st.fw;

		if (req == imp)
			continue;
		f = t->cand[i];
		cp_buf_puts(b, n++ ? ",\n    {\"feature\": " : "\n    {\"feature\": ");
		cp_buf_json_string(b, s->space.names[f]);
		cp_buf_printf(b, ", \"claim\": \"%s\", \"refuted_models\": ",
			      req ? "required" : "impossible");
		explore_json_refuted_tops(s, f, imp, b);
		cp_buf_puts(b, "}");
	}
	cp_buf_puts(b, n ? "\n  ]" : "]");
	cp_buf_puts(b, ",\n  \"undecided_checks\": [");
	for (i = 0, n = 0; t && i < t->nc; i++) {
		struct fstatus st = status_of(t, i);
		int with;

		if ((st.fw && st.fwo) || (!st.uw && !st.fw) || (!st.uwo && !st.fwo))
			continue;
		for (with = 0; with <= 1; with++) {
			size_t nt;

			if (with ? (st.fw || !st.uw) : (st.fwo || !st.uwo))
				continue;
			nt = explore_tops(t, t->cand[i], with, tops, PROOF_MAX_TOPS);
			for (j = 0; j < nt && nt <= PROOF_MAX_TOPS; j++) {
				struct cp_buf line;

				if (explore_verdict(t, tops[j]) >= 0)
					continue;
				cp_buf_puts(b, n++ ? ",\n    {\"feature\": " : "\n    {\"feature\": ");
				cp_buf_json_string(b, s->space.names[t->cand[i]]);
				cp_buf_printf(b, ", \"claim\": \"%s\", \"model\": ",
					      with ? "impossible" : "required");
				explore_features_json(s, tops[j], b);
				cp_buf_puts(b, ", \"check\": ");
				cp_buf_init(&line);
				explore_check_line(s, tops[j], &line);
				json_string_or_null(b, line.failed ? NULL : line.data);
				cp_buf_release(&line);
				cp_buf_puts(b, "}");
			}
		}
	}
	cp_buf_puts(b, n ? "\n  ]" : "]");
	cp_buf_puts(b, ",\n  \"alternatives\": [");
	for (i = 0; i < s->n_seps; i++) {
		const struct explore_separation *p = &s->seps[i];

		cp_buf_puts(b, i ? ",\n    {\"a\": " : "\n    {\"a\": ");
		explore_features_json(s, p->a, b);
		cp_buf_puts(b, ", \"b\": ");
		explore_features_json(s, p->b, b);
		cp_buf_printf(b, ", \"b_within_a\": %s, \"constraint\": ",
			      p->within ? "true" : "false");
		json_string_or_null(b, p->constraint);
		cp_buf_printf(b, ", \"is_equality\": %s, \"constraints_broken\": %zu, "
			      "\"paths_breaking\": %zu, \"paths\": [",
			      p->is_equality ? "true" : "false", p->n_constraints, p->n_paths);
		for (j = 0; j < p->n_shown; j++) {
			cp_buf_puts(b, j ? ", {\"uop\": " : "{\"uop\": ");
			cp_buf_json_string(b, p->paths[j].uop);
			cp_buf_puts(b, ", \"counters\": ");
			cp_buf_json_string(b, p->paths[j].counters);
			cp_buf_puts(b, ", \"example\": ");
			cp_buf_json_string(b, p->paths[j].example);
			cp_buf_puts(b, "}");
		}
		cp_buf_puts(b, "], \"margins\": [");
		for (j = 0; j < p->n_margins; j++) {
			cp_buf_puts(b, j ? ", {\"observation\": " : "{\"observation\": ");
			cp_buf_json_string(b, p->margins[j].observation);
			cp_buf_puts(b, ", \"margin\": ");
			json_number(b, p->margins[j].margin);
			cp_buf_puts(b, ", \"mean_sd\": ");
			json_number(b, p->margins[j].mean_sd);
			cp_buf_puts(b, "}");
		}
		cp_buf_puts(b, "]}");
	}
	cp_buf_puts(b, s->n_seps ? "\n  ]" : "]");
	explore_verdicts_free(t);
}
