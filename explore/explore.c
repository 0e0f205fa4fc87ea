/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/explore.c: the feature-space search of `counterpoint explore`
 * (discovery, elimination, exhaustive, targeted checks) and its result
 * cache; the text and Graphviz reports are in explore/report_text.c.
 * The search never evaluates a feature set twice: every model tested is
 * kept in one table, looked up by its feature bitset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explore/explore.h"
#include "explore/explore_int.h"


/* ================================================================ */
/* evaluations                                                      */
/* ================================================================ */

void explore_eval_release(struct explore_eval *e)
{
	size_t i;

	if (!e)
		return;
	for (i = 0; i < e->n_violations; i++)
		cp_free(e->violations[i].constraint);
	cp_free(e->violations);
	cp_free(e->refuted_by);
	cp_free(e->witness);
	cp_free(e->witness_constraint);
	memset(e, 0, sizeof *e);
}

size_t explore_eval_refuting(const struct explore_eval *e)
{
	return e->family ? e->n_refuting : e->n_infeasible;
}

/* The verdicts of an evaluation, in both views. */
static void set_verdicts(const struct explore_search *s, struct explore_model *m)
{
	m->feasible = explore_eval_refuting(&m->eval) <= s->tolerance;
	m->feasible_each = m->eval.n_infeasible <= s->tolerance;
}

void explore_put_view(const struct explore_search *s, enum explore_view v,
		      struct cp_buf *b)
{
	double c = s->confidence > 0 ? s->confidence : 0.99;
	size_t n;

	if (v == EXPLORE_VIEW_EACH || !(s->family_level > 0)) {
		pipe_put_level(b, c);
		cp_buf_puts(b, " each");
		return;
	}
	pipe_put_level(b, s->family_confidence);
	n = s->n_models ? s->models[0].eval.n_observations : 0;
	if (n == 1)
		cp_buf_puts(b, " over the one observation");
	else
		cp_buf_printf(b, " over all %zu observations", n);
}

void explore_monotonicity_release(struct explore_monotonicity *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < 64; i++)
		cp_free(m->lost[i]);
	memset(m, 0, sizeof *m);
}

void explore_separation_release(struct explore_separation *p)
{
	size_t i;

	if (!p)
		return;
	cp_free(p->constraint);
	for (i = 0; i < p->n_shown && i < EXPLORE_MAX_PATHS; i++) {
		cp_free(p->paths[i].uop);
		cp_free(p->paths[i].counters);
		cp_free(p->paths[i].example);
	}
	for (i = 0; i < p->n_margins; i++)
		cp_free(p->margins[i].observation);
	cp_free(p->margins);
	memset(p, 0, sizeof *p);
}

int explore_eval_add_violation(struct explore_eval *e, const char *constraint,
			       size_t count)
{
	struct explore_violation *v;
	char *text;

	text = cp_strdup(constraint);
	if (!text)
		return CP_ENOMEM;
	v = cp_reallocarray(e->violations, e->n_violations + 1, sizeof *v);
	if (!v) {
		cp_free(text);
		return CP_ENOMEM;
	}
	e->violations = v;
	v[e->n_violations].constraint = text;
	v[e->n_violations].count = count;
	e->n_violations++;
	return 0;
}

/* ================================================================ */
/* the model table                                                  */
/* ================================================================ */

/* Index of the model with exactly these features, or -1.  Linear: a
 * search tests at most a few thousand models, each costing far more than
 * this scan. */
long explore_find_model(const struct explore_search *s, udd_features sel)
{
	size_t i;

	for (i = 0; i < s->n_models; i++)
		if (s->models[i].features == sel)
			return (long)i;
	return -1;
}

/* Evaluate sel unless it was evaluated before; *index gets its row and
 * *fresh whether it was new.  *fresh = 0 and *index = -1 when the
 * max_models budget is spent. */
static int get_model(struct explore_search *s,
		     const struct explore_evaluator *ev, size_t max_models,
		     udd_features sel, enum explore_origin origin,
		     size_t parent, long *index, int *fresh,
		     struct cp_error *err)
{
	struct explore_model *m;
	double t0;
	long found;
	int rc;

	*fresh = 0;
	found = explore_find_model(s, sel);
	if (found >= 0) {
		*index = found;
		return 0;
	}
	*index = -1;
	if (s->n_models >= max_models) {
		s->truncated = 1;
		return 0;
	}
	if (s->n_models == s->cap_models) {
		size_t cap = s->cap_models ? 2 * s->cap_models : 16;

		m = cp_reallocarray(s->models, cap, sizeof *m);
		if (!m)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		s->models = m;
		s->cap_models = cap;
	}
	m = &s->models[s->n_models];
	memset(m, 0, sizeof *m);
	m->features = sel;
	m->origin = origin;
	m->parent = parent;
	t0 = cp_seconds();
	s->n_evaluations++;
	rc = ev->evaluate(ev->ctx, sel, &m->eval, err);
	if (rc) {
		explore_eval_release(&m->eval);
		return rc;
	}
	m->seconds = cp_seconds() - t0;
	set_verdicts(s, m);
	*index = (long)s->n_models++;
	*fresh = 1;
	if (s->progress)
		s->progress(s->progress_ctx, s);
	return 0;
}

int explore_get_model(struct explore_search *s, const struct explore_evaluator *ev,
		      size_t max_models, udd_features sel, enum explore_origin origin,
		      long *index, struct cp_error *err)
{
	int fresh;

	return get_model(s, ev, max_models, sel, origin, 0, index, &fresh, err);
}

/* Models a batch is evaluated in at a time when a progress callback
 * follows the search (one call after each part). */
#define EXPLORE_PROGRESS_PART 16

/* get_model for a list known in advance, in its order: the feature sets
 * not evaluated before go to the evaluator's evaluate_batch at once (one
 * by one without it).  *spent = 1 when the max_models budget stopped the
 * list, as get_model's index -1 does. */
static int get_models(struct explore_search *s,
		      const struct explore_evaluator *ev, size_t max_models,
		      const udd_features *sel, const enum explore_origin *origin,
		      size_t n, int *spent, struct cp_error *err)
{
	udd_features *fresh = NULL;
	struct explore_model *m;
	double *seconds = NULL;
	size_t i, j, c, part = 0, nf = 0;
	int rc = 0;

	*spent = 0;
	if (!ev->evaluate_batch || n < 2) {
		for (i = 0; i < n && !rc && !*spent; i++) {
			long idx;
			int f;

			rc = get_model(s, ev, max_models, sel[i], origin[i], 0, &idx, &f, err);
			*spent = !rc && idx < 0;
		}
		return rc;
	}
	fresh = cp_calloc(n, sizeof *fresh);
	seconds = cp_calloc(n, sizeof *seconds);
	if (!fresh || !seconds) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (explore_find_model(s, sel[i]) >= 0)
			continue;
		for (j = 0; j < nf && fresh[j] != sel[i]; j++)
			;
		if (j < nf)
			continue;
		if (s->n_models + nf >= max_models) {
			s->truncated = 1;
			*spent = 1;
			break;
		}
		fresh[nf++] = sel[i];
	}
	if (!nf)
		goto out;
	if (s->n_models + nf > s->cap_models) {
		size_t cap = s->cap_models ? s->cap_models : 16;

		while (cap < s->n_models + nf)
			cap *= 2;
		m = cp_reallocarray(s->models, cap, sizeof *m);
		if (!m) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto out;
		}
		s->models = m;
		s->cap_models = cap;
	}
	memset(&s->models[s->n_models], 0, nf * sizeof *m);
	s->n_evaluations += nf;
	/* the evaluations land in the table's new rows, in list order; in
	 * parts when someone follows the progress */
	for (c = 0; c < nf; c += part) {
		struct explore_eval *evs;

		part = s->progress ? EXPLORE_PROGRESS_PART : nf;
		part = part < nf - c ? part : nf - c;
		m = &s->models[s->n_models];
		evs = cp_calloc(part, sizeof *evs);
		if (!evs) {
			rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			goto out;
		}
		rc = ev->evaluate_batch(ev->ctx, fresh + c, part, evs, seconds + c, err);
		for (j = 0; j < part; j++) {
			if (rc) {
				explore_eval_release(&evs[j]);
				continue;
			}
			m[j].eval = evs[j];
		}
		cp_free(evs);
		if (rc)
			goto out;
		for (j = 0; j < part; j++) {
			for (i = 0; i < n && sel[i] != fresh[c + j]; i++)
				;
			m[j].features = fresh[c + j];
			m[j].origin = origin[i];
			m[j].seconds = seconds[c + j];
			set_verdicts(s, &m[j]);
		}
		s->n_models += part;
		if (s->progress)
			s->progress(s->progress_ctx, s);
	}
out:
	cp_free(fresh);
	cp_free(seconds);
	return rc;
}

static int add_edge(struct explore_search *s, size_t from, size_t to,
		    size_t feature, enum explore_step step,
		    struct cp_error *err)
{
	struct explore_edge *e;

	if (s->n_edges == s->cap_edges) {
		size_t cap = s->cap_edges ? 2 * s->cap_edges : 32;

		e = cp_reallocarray(s->edges, cap, sizeof *e);
		if (!e)
			return cp_error_set(err, CP_ENOMEM, "out of memory");
		s->edges = e;
		s->cap_edges = cap;
	}
	e = &s->edges[s->n_edges++];
	e->from = from;
	e->to = to;
	e->feature = feature;
	e->step = step;
	return 0;
}

/* ================================================================ */
/* discovery                                                        */
/* ================================================================ */

/* Discovery is breadth-first over "infeasible model + one feature":
 * level 0 is the start model; level n+1 holds the models obtained by
 * adding to an infeasible level-n model one candidate whose cone grows
 * and relaxes at least one of the constraints its data violate (when the
 * evaluator names none, every growing candidate counts).  It stops after
 * the first level that holds a feasible model unless opt->deep. */
static int discover(struct explore_search *s,
		    const struct explore_evaluator *ev,
		    const struct explore_options *opt, size_t max_models,
		    struct cp_error *err)
{
	size_t *level = NULL, *next = NULL;
	size_t n_level = 0, n_next = 0, cap = 0;
	unsigned char *relaxed = NULL;
	long idx;
	int fresh, rc;

	rc = get_model(s, ev, max_models, s->space.start, EXPLORE_START, 0,
		       &idx, &fresh, err);
	if (rc || idx < 0)
		return rc;
	cap = 16;
	level = cp_malloc(cap * sizeof *level);
	next = cp_malloc(cap * sizeof *next);
	if (!level || !next) {
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
		goto out;
	}
	level[n_level++] = (size_t)idx;
	while (n_level) {
		int found_feasible = 0;
		size_t li, f;

		n_next = 0;
		for (li = 0; li < n_level; li++) {
			size_t pi = level[li];
			udd_features parent = s->models[pi].features;
			size_t nv;

			if (s->models[pi].feasible)
				continue;
			nv = s->models[pi].eval.n_violations;
			cp_free(relaxed);
			relaxed = cp_calloc(nv ? nv : 1, 1);
			if (!relaxed) {
				rc = cp_error_set(err, CP_ENOMEM, "out of memory");
				goto out;
			}
			for (f = 0; f < s->space.n_features; f++) {
				udd_features bit = (udd_features)1 << f;
				udd_features child = parent | bit;
				int grows = 0, any = 0;
				size_t i;

				if (!(s->space.candidates & bit) || (parent & bit))
					continue;
				memset(relaxed, 0, nv ? nv : 1);
				rc = ev->compare(ev->ctx, parent, child,
						 &s->models[pi].eval, &grows,
						 relaxed, err);
				if (rc)
					goto out;
				for (i = 0; i < nv; i++)
					any |= relaxed[i];
				if (!grows || (nv && !any)) {
					rc = add_edge(s, pi, pi, f, !grows ?
						      EXPLORE_SKIP_SAME_CONE :
						      EXPLORE_SKIP_NO_RELAXATION,
						      err);
					if (rc)
						goto out;
					continue;
				}
				rc = get_model(s, ev, max_models, child,
					       EXPLORE_DISCOVERY, pi, &idx,
					       &fresh, err);
				if (rc)
					goto out;
				if (idx < 0)
					goto out;   /* budget spent */
				rc = add_edge(s, pi, (size_t)idx, f,
					      EXPLORE_ADDED, err);
				if (rc)
					goto out;
				if (!fresh)
					continue;
				if (s->models[idx].feasible)
					found_feasible = 1;
				if (n_next == cap) {
					size_t *l2, *n2;

					l2 = cp_reallocarray(level, 2 * cap, sizeof *level);
					if (l2)
						level = l2;
					n2 = cp_reallocarray(next, 2 * cap, sizeof *next);
					if (n2)
						next = n2;
					if (!l2 || !n2) {
						rc = cp_error_set(err, CP_ENOMEM,
								  "out of memory");
						goto out;
					}
					cap *= 2;
				}
				next[n_next++] = (size_t)idx;
			}
		}
		if (found_feasible && !opt->deep)
			break;
		memcpy(level, next, n_next * sizeof *level);
		n_level = n_next;
	}
out:
	cp_free(relaxed);
	cp_free(level);
	cp_free(next);
	return rc;
}

/* ================================================================ */
/* elimination                                                      */
/* ================================================================ */

/* From every feasible model (those discovery found, then those pruning
 * finds), prune each feature in turn.  A pruned model that is still
 * feasible is pruned further in its turn, so pruning stops only where
 * removing any single feature makes the model infeasible. */
static int eliminate(struct explore_search *s,
		     const struct explore_evaluator *ev, size_t max_models,
		     struct cp_error *err)
{
	size_t i, f;
	long idx;
	int fresh, rc;

	/* The table grows while we walk it; models appended later are
	 * visited too. */
	for (i = 0; i < s->n_models; i++) {
		udd_features sel = s->models[i].features;

		if (!s->models[i].feasible)
			continue;
		for (f = 0; f < s->space.n_features; f++) {
			udd_features bit = (udd_features)1 << f;

			if (!(sel & bit) || !(s->space.candidates & bit))
				continue;
			rc = get_model(s, ev, max_models, sel & ~bit,
				       EXPLORE_ELIMINATION, i, &idx, &fresh,
				       err);
			if (rc)
				return rc;
			if (idx < 0)
				return 0;
			rc = add_edge(s, i, (size_t)idx, f, EXPLORE_PRUNED, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ================================================================ */
/* exhaustive                                                       */
/* ================================================================ */

/* Every subset of the candidates, smallest first (then by bitset), plus
 * the start features, which stay fixed.  Edges join each model to its
 * one-feature extensions (the Hasse diagram), for the drawing. */
static int exhaustive(struct explore_search *s,
		      const struct explore_evaluator *ev, size_t max_models,
		      struct cp_error *err)
{
	udd_features cand = s->space.candidates & ~s->space.start;
	size_t bits[64], nb = 0, f, nl = 0;
	uint64_t n, k;
	int size, rc, spent;
	udd_features *list;
	enum explore_origin *origin;

	for (f = 0; f < s->space.n_features; f++)
		if (cand & ((udd_features)1 << f))
			bits[nb++] = f;
	if (nb > 20)
		return cp_error_set(err, CP_ELIMIT,
				    "--exhaustive over %zu features would test "
				    "2^%zu models; restrict the candidates", nb, nb);
	n = (uint64_t)1 << nb;
	list = cp_calloc(n, sizeof *list);
	origin = cp_calloc(n, sizeof *origin);
	if (!list || !origin) {
		cp_free(list);
		cp_free(origin);
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	}
	for (size = 0; size <= (int)nb; size++) {
		for (k = 0; k < n; k++) {
			udd_features sel = s->space.start;
			size_t j;

			if (udd_features_count(k) != (size_t)size)
				continue;
			for (j = 0; j < nb; j++)
				if (k & ((uint64_t)1 << j))
					sel |= (udd_features)1 << bits[j];
			origin[nl] = k ? EXPLORE_EXHAUSTIVE : EXPLORE_START;
			list[nl++] = sel;
		}
	}
	rc = get_models(s, ev, max_models, list, origin, nl, &spent, err);
	cp_free(list);
	cp_free(origin);
	if (rc)
		return rc;
	for (k = 0; k < s->n_models; k++) {
		for (f = 0; f < nb; f++) {
			udd_features bit = (udd_features)1 << bits[f];
			long to;

			if (s->models[k].features & bit)
				continue;
			to = explore_find_model(s, s->models[k].features | bit);
			if (to < 0)
				continue;
			rc = add_edge(s, k, (size_t)to, bits[f], EXPLORE_ADDED, err);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* ================================================================ */
/* targeted checks                                                  */
/* ================================================================ */

/* Add f to the list of models to check, once. */
static int want(udd_features *list, size_t *n, size_t cap, udd_features f)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (list[i] == f)
			return 0;
	if (*n == cap)
		return 0;
	list[(*n)++] = f;
	return 1;
}

#define TARGET_MAX_TOPS 64
#define TARGET_LIST 1024

/* The checks that decide the open claims, given the features that grow
 * the cone (explore/claims.c):
 *   f required   <=> every largest model without f is refuted (each
 *                    model without f lies, by cone-growing features only,
 *                    within one of them: one per assignment of the
 *                    features that may shrink the cone);
 *   f impossible <=> every largest model with f is refuted;
 *   m minimal    <=> m feasible and each of its largest proper sub-models
 *                    refuted: m less one cone-growing feature, and m's
 *                    cone-growing part with a proper subset of its other
 *                    features.
 * Only models whose verdict is not known yet are listed. */
static size_t open_checks(const struct explore_search *s,
			  const struct explore_verdicts *t, udd_features *list)
{
	size_t n = 0, i, j, k;
	uint64_t sub, total = (uint64_t)1 << t->nc;
	udd_features tops[TARGET_MAX_TOPS];

	for (i = 0; i < t->nc; i++) {
		int fw = 0, fwo = 0, uw = 0, uwo = 0, with;

		for (sub = 0; sub < total; sub++) {
			int has = (sub >> i) & 1;

			if (t->v[sub] < 0)
				*(has ? &uw : &uwo) = 1;
			else if (t->v[sub] == 1)
				*(has ? &fw : &fwo) = 1;
		}
		for (with = 0; with <= 1; with++) {
			size_t nt;

			if (with ? (fw || !uw) : (fwo || !uwo))
				continue;   /* decided */
			nt = explore_tops(t, t->cand[i], with, tops, TARGET_MAX_TOPS);
			if (nt > TARGET_MAX_TOPS)
				continue;   /* too many alternatives to check */
			for (j = 0; j < nt; j++)
				if (explore_verdict(t, tops[j]) < 0)
					want(list, &n, TARGET_LIST, tops[j]);
		}
	}
	for (k = 0; k < s->n_models; k++) {
		udd_features m = s->models[k].features, nonmono, mono_part, a;
		int open = 0, any_feasible = 0;

		if (!s->models[k].feasible || explore_proven_minimal_in(t, m))
			continue;
		nonmono = m & explore_varying(s) & ~t->mono;
		mono_part = m & ~nonmono;
		/* the largest proper sub-models; skip m when one is known
		 * feasible (it is not minimal) */
		for (i = 0; i < t->nc && !any_feasible; i++) {
			udd_features bit = (udd_features)1 << t->cand[i];

			if ((m & bit) && (t->mono & bit)) {
				int v = explore_verdict(t, m & ~bit);

				any_feasible |= v == 1;
				open |= v < 0;
			}
		}
		for (a = (nonmono - 1) & nonmono; nonmono && !any_feasible;
		     a = (a - 1) & nonmono) {
			int v = explore_verdict(t, mono_part | a);

			any_feasible |= v == 1;
			open |= v < 0;
			if (!a)
				break;
		}
		if (any_feasible || !open)
			continue;
		for (i = 0; i < t->nc; i++) {
			udd_features bit = (udd_features)1 << t->cand[i];

			if ((m & bit) && (t->mono & bit) &&
			    explore_verdict(t, m & ~bit) < 0)
				want(list, &n, TARGET_LIST, m & ~bit);
		}
		for (a = (nonmono - 1) & nonmono; nonmono; a = (a - 1) & nonmono) {
			if (explore_verdict(t, mono_part | a) < 0)
				want(list, &n, TARGET_LIST, mono_part | a);
			if (!a)
				break;
		}
	}
	return n;
}

/* Check the open models until every claim the tops can decide is
 * decided (a few rounds: a new feasible model may open a minimality). */
static int targeted(struct explore_search *s, const struct explore_evaluator *ev,
		    size_t max_models, struct cp_error *err)
{
	udd_features *list;
	size_t round, n, i;
	int rc = 0;

	if (!s->has_mono || !s->mono.models)
		return 0;   /* monotonicity not decided: no tops to rest on */
	list = cp_malloc(TARGET_LIST * sizeof *list);
	if (!list)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (round = 0; round < 8 && !rc; round++) {
		struct explore_verdicts *t = explore_verdicts_new(s);

		if (!t) {   /* beyond the table's limit: no claim to target */
			if (explore_claims_enumerable(s))
				rc = cp_error_set(err, CP_ENOMEM, "out of memory");
			break;
		}
		n = open_checks(s, t, list);
		explore_verdicts_free(t);
		if (!n)
			break;
		{
			enum explore_origin origin[TARGET_LIST];
			int spent;

			for (i = 0; i < n; i++)
				origin[i] = EXPLORE_TARGETED;
			rc = get_models(s, ev, max_models, list, origin, n, &spent, err);
			if (!rc && spent)
				break;   /* budget spent */
		}
	}
	cp_free(list);
	return rc;
}

/* ================================================================ */
/* the run                                                          */
/* ================================================================ */

/* minimal = proven minimal (explore/claims.c): feasible, and every proper
 * sub-model of the family known refuted. */
static int mark_minimal(struct explore_search *s, struct cp_error *err)
{
	struct explore_verdicts *t = explore_verdicts_new(s);
	size_t i;

	if (!t && s->n_models && explore_claims_enumerable(s))
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < s->n_models; i++)
		s->models[i].minimal = s->models[i].feasible &&
			explore_proven_minimal_in(t, s->models[i].features);
	explore_verdicts_free(t);
	return 0;
}

/* What separates each pair of proven minimal models (both ways). */
#define SEPARATE_MAX_MINIMAL 6
static int separations(struct explore_search *s,
		       const struct explore_evaluator *ev, struct cp_error *err)
{
	size_t mins[SEPARATE_MAX_MINIMAL], nmin = 0, i, j;
	int rc;

	if (!ev->separate)
		return 0;
	for (i = 0; i < s->n_models && nmin < SEPARATE_MAX_MINIMAL; i++)
		if (s->models[i].minimal)
			mins[nmin++] = i;
	if (nmin < 2)
		return 0;
	s->seps = cp_calloc(nmin * (nmin - 1), sizeof *s->seps);
	if (!s->seps)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < nmin; i++)
		for (j = 0; j < nmin; j++) {
			struct explore_separation *p;

			if (i == j)
				continue;
			p = &s->seps[s->n_seps++];
			p->a = s->models[mins[i]].features;
			p->b = s->models[mins[j]].features;
			rc = ev->separate(ev->ctx, p->a, p->b, p, err);
			if (rc)
				return rc;
		}
	return 0;
}

/* The flow bounds of each proven minimal model, for the reports. */
static int minimal_flows(struct explore_search *s,
			 const struct explore_evaluator *ev, struct cp_error *err)
{
	size_t i, n = 0;
	int rc;

	if (!ev->flows)
		return 0;
	for (i = 0; i < s->n_models; i++)
		n += s->models[i].minimal != 0;
	if (!n)
		return 0;
	s->flows = cp_calloc(n, sizeof *s->flows);
	if (!s->flows)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	for (i = 0; i < s->n_models; i++) {
		struct explore_flows *fl;
		double t0;

		if (!s->models[i].minimal)
			continue;
		fl = &s->flows[s->n_flows++];
		fl->features = s->models[i].features;
		t0 = cp_seconds();
		if ((rc = ev->flows(ev->ctx, fl->features, fl, err)))
			return rc;
		fl->seconds = cp_seconds() - t0;
	}
	return 0;
}

const struct explore_flows *explore_model_flows(const struct explore_search *s,
						size_t i)
{
	size_t j;

	for (j = 0; i < s->n_models && j < s->n_flows; j++)
		if (s->flows[j].features == s->models[i].features)
			return &s->flows[j];
	return NULL;
}

size_t explore_space_n_varying(const struct explore_space *sp)
{
	return udd_features_count(sp->candidates & ~sp->start);
}

int explore_run(const struct explore_space *space,
		const struct explore_evaluator *ev,
		const struct explore_options *opt,
		struct explore_search **out, struct cp_error *err)
{
	static const struct explore_options defaults;
	struct explore_search *s;
	size_t max_models;
	int rc;

	*out = NULL;
	if (!opt)
		opt = &defaults;
	if (space->n_features > 64)
		return cp_error_set(err, CP_ELIMIT,
				    "a model family has at most 64 features, not %zu",
				    space->n_features);
	s = cp_calloc(1, sizeof *s);
	if (!s)
		return cp_error_set(err, CP_ENOMEM, "out of memory");
	s->space = *space;
	if (space->n_features < 64) {
		udd_features all = ((udd_features)1 << space->n_features) - 1;

		s->space.candidates &= all;
		s->space.start &= all;
	}
	s->exhaustive = opt->exhaustive;
	s->tolerance = opt->tolerance;
	s->confidence = opt->confidence;
	s->family_confidence = opt->family_confidence;
	s->family_level = opt->family_level;
	s->progress = opt->progress;
	s->progress_ctx = opt->progress_ctx;
	max_models = opt->max_models ? opt->max_models : 4096;
	rc = 0;
	if (opt->check_command && !(s->check_command = cp_strdup(opt->check_command)))
		rc = cp_error_set(err, CP_ENOMEM, "out of memory");
	if (!rc && ev->monotone && explore_varying(s)) {
		rc = ev->monotone(ev->ctx, explore_fixed(s), explore_varying(s),
				  &s->mono, err);
		s->has_mono = !rc;
	}
	if (rc) {
	} else if (opt->exhaustive) {
		rc = exhaustive(s, ev, max_models, err);
	} else {
		rc = discover(s, ev, opt, max_models, err);
		if (!rc)
			rc = eliminate(s, ev, max_models, err);
		if (!rc && !opt->no_targeted)
			rc = targeted(s, ev, max_models, err);
		if (!rc && !opt->no_targeted)
			rc = explore_dualize(s, ev, max_models, err);
	}
	if (!rc)
		rc = mark_minimal(s, err);
	if (!rc)
		rc = separations(s, ev, err);
	if (!rc && !opt->no_flows)
		rc = minimal_flows(s, ev, err);
	if (rc) {
		explore_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void explore_free(struct explore_search *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n_models; i++)
		explore_eval_release(&s->models[i].eval);
	for (i = 0; i < s->n_seps; i++)
		explore_separation_release(&s->seps[i]);
	for (i = 0; i < s->n_flows; i++)
		explore_flows_release(&s->flows[i]);
	cp_free(s->flows);
	explore_monotonicity_release(&s->mono);
	cp_free(s->seps);
	cp_free(s->check_command);
	cp_free(s->models);
	cp_free(s->edges);
	cp_free(s);
}

/* ================================================================ */
/* accessors                                                        */
/* ================================================================ */

size_t explore_n_models(const struct explore_search *s)
{
	return s->n_models;
}

const struct explore_model *explore_model_at(const struct explore_search *s,
					     size_t i)
{
	return i < s->n_models ? &s->models[i] : NULL;
}

size_t explore_n_edges(const struct explore_search *s)
{
	return s->n_edges;
}

const struct explore_edge *explore_edge_at(const struct explore_search *s,
					   size_t i)
{
	return i < s->n_edges ? &s->edges[i] : NULL;
}

size_t explore_n_evaluations(const struct explore_search *s)
{
	return s->n_evaluations;
}

int explore_truncated(const struct explore_search *s)
{
	return s->truncated;
}

size_t explore_n_feasible(const struct explore_search *s)
{
	size_t i, n = 0;

	for (i = 0; i < s->n_models; i++)
		n += s->models[i].feasible != 0;
	return n;
}

udd_features explore_required(const struct explore_search *s)
{
	struct explore_claims c;

	explore_claims_compute(s, &c);
	return c.required & ~c.impossible;
}

udd_features explore_impossible(const struct explore_search *s)
{
	struct explore_claims c;

	explore_claims_compute(s, &c);
	return c.impossible & ~c.required;
}

udd_features explore_undecided(const struct explore_search *s)
{
	struct explore_claims c;

	explore_claims_compute(s, &c);
	return c.undecided;
}

void explore_claim_basis(const struct explore_search *s,
			 struct explore_claim_basis *out)
{
	struct explore_claims c;

	explore_claims_compute(s, &c);
	out->enumerable = c.enumerable;
	out->universe = c.enumerable ? c.universe : 0;
	out->known = c.known;
	out->either = c.either;
}

const struct explore_monotonicity *explore_monotonicity(const struct explore_search *s)
{
	return s->has_mono ? &s->mono : NULL;
}

size_t explore_n_separations(const struct explore_search *s)
{
	return s->n_seps;
}

const struct explore_separation *explore_separation_at(const struct explore_search *s,
						       size_t i)
{
	return i < s->n_seps ? &s->seps[i] : NULL;
}
