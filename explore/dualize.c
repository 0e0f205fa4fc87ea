/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/dualize.c: every minimal model, proven.  Within one alternative
 * of the features that may shrink the cone (one assignment of them), a
 * model's verdict is monotone in the features that can only grow it:
 * adding one keeps a feasible model feasible (its cone only grows), and
 * removing one keeps a refuted model refuted.  Its feasible models are
 * then the supersets of its minimal feasible sets, and its refuted ones
 * the subsets of its maximal refuted sets; the two lists are dual (each
 * the minimal transversals of the other's complements).  They are learnt
 * together, Dualize-and-Advance style (Gunopulos, Khardon, Mannila and
 * Toivonen, 1997): a model whose verdict neither list implies is a
 * counterexample to their duality; it is checked and walked down to a
 * new minimal feasible set (it fits) or up to a new maximal refuted one
 * (it does not), one check a step.  Each walk adds one set to a list in
 * at most n + 1 checks, so an alternative is decided in at most
 * (|minimal feasible| + |maximal refuted|) (n + 1) checks, against the 2^n
 * of its models.  Counterexamples are found in the verdict table (every
 * model of the family, explore/claims.c), whose verdicts each check
 * spreads through the cone-growing features; the family's claims are
 * enumerated up to 2^20 models, so the table is that large at most.
 * Once every alternative is decided, every verdict of the family is
 * known, and with it every minimal model (explore_proven_minimal_in). */
#include <string.h>

#include "explore/explore_int.h"

/* Spread verdict v of table entry sub through the cone-growing bits
 * (mono): a feasible model makes every superset by them feasible, a
 * refuted one every subset refuted.  Entries already known are kept. */
static void spread(struct explore_verdicts *t, uint64_t sub, int v, uint64_t mono)
{
	uint64_t free = v ? mono & ~sub : mono & sub, x;

	for (x = free;; x = (x - 1) & free) {
		uint64_t y = v ? sub | x : sub & ~x;

		if (t->v[y] < 0)
			t->v[y] = (signed char)v;
		if (!x)
			break;
	}
}

struct walk {
	struct explore_search *s;
	const struct explore_evaluator *ev;
	struct explore_verdicts *t;
	size_t max_models;
	uint64_t mono;       /* table bits of the cone-growing features */
	int spent;           /* the model budget ran out */
};

/* The verdict of entry sub, checked when unknown (and spread). */
static int verdict(struct walk *w, uint64_t sub, int *v, struct cp_error *err)
{
	long idx;
	int rc;

	if (w->t->v[sub] >= 0) {
		*v = w->t->v[sub];
		return 0;
	}
	rc = explore_get_model(w->s, w->ev, w->max_models, explore_verdicts_model(w->t, sub),
			       EXPLORE_DUALIZATION, &idx, err);
	if (rc)
		return rc;
	if (idx < 0) {
		w->spent = 1;
		*v = -1;
		return 0;
	}
	*v = w->s->models[idx].feasible != 0;
	w->t->v[sub] = (signed char)*v;
	spread(w->t, sub, *v, w->mono);
	return 0;
}

/* From an unknown model, down to a minimal feasible set of its
 * alternative or up to a maximal refuted one. */
static int advance(struct walk *w, uint64_t sub, struct cp_error *err)
{
	size_t i;
	int v, rc;

	if ((rc = verdict(w, sub, &v, err)) || v < 0)
		return rc;
	for (i = 0; i < w->t->nc && !w->spent; i++) {
		uint64_t bit = (uint64_t)1 << i, next;
		int nv;

		/* down from a feasible one, up from a refuted one */
		if (!(w->mono & bit) || (v && !(sub & bit)) || (!v && (sub & bit)))
			continue;
		next = v ? sub & ~bit : sub | bit;
		if ((rc = verdict(w, next, &nv, err)))
			return rc;
		if (nv == v)
			sub = next;
	}
	return 0;
}

int explore_dualize(struct explore_search *s, const struct explore_evaluator *ev,
		    size_t max_models, struct cp_error *err)
{
	struct walk w;
	uint64_t sub, total;
	size_t i;
	int rc = 0;

	memset(&w, 0, sizeof w);
	w.s = s;
	w.ev = ev;
	w.max_models = max_models;
	if (!s->has_mono || !s->mono.models)
		return 0;   /* monotonicity not decided: nothing to walk on */
	if (!(w.t = explore_verdicts_new(s)))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	/* no cone-growing feature (or verdicts that contradict them, or a
	 * table too large to imply through): the reports say what is open */
	if (!w.t->mono || w.t->conflicts) {
		explore_verdicts_free(w.t);
		return 0;
	}
	for (i = 0; i < w.t->nc; i++)
		if (w.t->mono & ((udd_features)1 << w.t->cand[i]))
			w.mono |= (uint64_t)1 << i;
	total = (uint64_t)1 << w.t->nc;
	for (sub = 0; sub < total && !rc && !w.spent; sub++)
		if (w.t->v[sub] < 0)
			rc = advance(&w, sub, err);
	explore_verdicts_free(w.t);
	return rc;
}
