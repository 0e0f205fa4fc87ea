/* SPDX-License-Identifier: GPL-3.0-or-later */
/* explore/claims.c: the claims explore prints, each proven from verdicts
 * that were computed.  The family is every feature set that agrees with
 * the starting model outside the candidates: 2^c models for c candidates.
 *
 *   f is required    when every model of the family without f is refuted;
 *   f is impossible  when every model with f is refuted;
 *   a feasible model is minimal when every proper sub-model is refuted;
 *   anything else is undecided.
 *
 * A verdict is known when the search evaluated the model, or when it
 * skipped it as a candidate whose cone provably lies within a refuted
 * parent's (the exact containment test of the evaluator's compare) or
 * satisfies every constraint the parent's regions break: such a child is
 * refuted by the same observations; or when it follows from another
 * known verdict through features that grow the cone (the evaluator's
 * exact monotonicity): if G and L differ only by such features and G is
 * within L, cone(G) lies within cone(L), so every observation refuting L
 * refutes G, and a feasible G makes L feasible.  No claim rests on a model
 * whose verdict is not known, so the default search and --exhaustive never
 * contradict each other: the search proves less, never something else. */
#include <stdlib.h>
#include <string.h>

#include "explore/explore_int.h"

/* Families beyond EXPLORE_CLAIMS_MAX_CANDIDATES candidates are not
 * enumerated: their claims stay undecided (2^24 lookups are a fraction of
 * a second); verdicts are implied through monotonicity up to 2^20 models. */
#define CLAIMS_MAX_IMPLIED 20

struct known {
	udd_features f;
	int feasible;
	size_t src;                 /* the checked model that proves it (a
				     * skipped child: its refuted parent) */
};

static int known_cmp(const void *a, const void *b)
{
	udd_features x = ((const struct known *)a)->f, y = ((const struct known *)b)->f;

	return x < y ? -1 : x > y;
}

/* Every known verdict, sorted by feature set; NULL on allocation
 * failure (then nothing is known and every claim is undecided). */
static struct known *known_table(const struct explore_search *s,
				 enum explore_view view, size_t *n)
{
	size_t i, m = 0, cap = s->n_models + s->n_edges + 1;
	struct known *t = cp_calloc(cap, sizeof *t);

	*n = 0;
	if (!t)
		return NULL;
	for (i = 0; i < s->n_models; i++) {
		t[m].f = s->models[i].features;
		t[m].src = i;
		t[m++].feasible = explore_model_feasible(&s->models[i], view);
	}
	for (i = 0; i < s->n_edges; i++) {
		const struct explore_edge *e = &s->edges[i];

		if (e->step < EXPLORE_SKIP_SAME_CONE ||
		    explore_model_feasible(&s->models[e->from], view))
			continue;
		t[m].f = s->models[e->from].features | ((udd_features)1 << e->feature);
		t[m].src = e->from;
		t[m++].feasible = 0;
	}
	qsort(t, m, sizeof *t, known_cmp);
	*n = m;
	return t;
}

static const struct known *lookup_entry(const struct known *t, size_t n,
					udd_features f)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].f == f)
			return &t[mid];
		if (t[mid].f < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int lookup(const struct known *t, size_t n, udd_features f)
{
	const struct known *k = lookup_entry(t, n, f);

	return k ? k->feasible != 0 : -1;
}

/* The family the claims are about: the features that vary (the
 * candidates; under --exhaustive the start's features stay fixed, so only
 * the other candidates vary) and the fixed part. */
static udd_features varying(const struct explore_search *s)
{
	return s->exhaustive ? s->space.candidates & ~s->space.start
			     : s->space.candidates;
}

static udd_features fixed_part(const struct explore_search *s)
{
	return s->space.start & ~varying(s);
}

udd_features explore_varying(const struct explore_search *s)
{
	return varying(s);
}

udd_features explore_fixed(const struct explore_search *s)
{
	return fixed_part(s);
}

udd_features explore_verdicts_model(const struct explore_verdicts *t, uint64_t sub)
{
	udd_features f = t->fixed;
	size_t i;

	for (i = 0; i < t->nc; i++)
		if (sub & ((uint64_t)1 << i))
			f |= (udd_features)1 << t->cand[i];
	return f;
}

/* The subset bits of feature set f, or -1 when f is outside the family. */
static int64_t index_of(const struct explore_verdicts *t, udd_features f)
{
	udd_features vary = 0;
	uint64_t sub = 0;
	size_t i;

	for (i = 0; i < t->nc; i++) {
		udd_features bit = (udd_features)1 << t->cand[i];

		vary |= bit;
		if (f & bit)
			sub |= (uint64_t)1 << i;
	}
	if ((f & ~vary) != t->fixed)
		return -1;
	return (int64_t)sub;
}

/* ================================================================ */
/* the verdict table                                                */
/* ================================================================ */

/* Implied verdicts.  refuted: a model is refuted when adding one
 * cone-growing feature gives a refuted model (supersets first, so the
 * walk sees them final); feasible: when removing one gives a feasible
 * model (subsets first).  Chains of such steps cover every pair that
 * differs by cone-growing features only. */
static void imply(struct explore_verdicts *t, unsigned char *ref,
		  unsigned char *feas)
{
	uint64_t total = (uint64_t)1 << t->nc, sub;
	size_t i, mi[64], nm = 0;

	for (i = 0; i < t->nc; i++)
		if (t->mono & ((udd_features)1 << t->cand[i]))
			mi[nm++] = i;
	for (sub = 0; sub < total; sub++) {
		ref[sub] = t->v[sub] == 0;
		feas[sub] = t->v[sub] == 1;
	}
	for (sub = total; sub-- > 0;)
		for (i = 0; i < nm && !ref[sub]; i++) {
			uint64_t bit = (uint64_t)1 << mi[i];

			if (!(sub & bit) && ref[sub | bit])
				ref[sub] = 1;
		}
	for (sub = 0; sub < total; sub++)
		for (i = 0; i < nm && !feas[sub]; i++) {
			uint64_t bit = (uint64_t)1 << mi[i];

			if ((sub & bit) && feas[sub & ~bit])
				feas[sub] = 1;
		}
}

int explore_claims_enumerable(const struct explore_search *s)
{
	return udd_features_count(varying(s)) <= EXPLORE_CLAIMS_MAX_CANDIDATES;
}

int explore_model_feasible(const struct explore_model *m, enum explore_view v)
{
	return v == EXPLORE_VIEW_EACH ? m->feasible_each : m->feasible;
}

int explore_views_differ(const struct explore_search *s)
{
	size_t i;

	for (i = 0; i < s->n_models; i++)
		if (!s->models[i].feasible != !s->models[i].feasible_each)
			return 1;
	return 0;
}

struct explore_verdicts *explore_verdicts_new(const struct explore_search *s)
{
	return explore_verdicts_new_view(s, EXPLORE_VIEW_FAMILY);
}

struct explore_verdicts *explore_verdicts_new_view(const struct explore_search *s,
						   enum explore_view view)
{
	struct explore_verdicts *t;
	struct known *kt = NULL;
	unsigned char *ref = NULL, *feas = NULL;
	size_t f, n;
	uint64_t sub, total;

	t = cp_calloc(1, sizeof *t);
	if (!t)
		return NULL;
	for (f = 0; f < s->space.n_features && f < 64; f++)
		if (varying(s) & ((udd_features)1 << f))
			t->cand[t->nc++] = f;
	t->fixed = fixed_part(s);
	t->mono = s->has_mono ? s->mono.grows & varying(s) : 0;
	if (t->nc > EXPLORE_CLAIMS_MAX_CANDIDATES)
		goto fail;
	total = (uint64_t)1 << t->nc;
	t->v = cp_malloc((size_t)total);
	kt = known_table(s, view, &n);
	if (!t->v || !kt)
		goto fail;
	for (sub = 0; sub < total; sub++)
		t->v[sub] = (signed char)lookup(kt, n, explore_verdicts_model(t, sub));
	cp_free(kt);
	if (!t->mono || t->nc > CLAIMS_MAX_IMPLIED)
		return t;
	ref = cp_malloc((size_t)total);
	feas = cp_malloc((size_t)total);
	if (!ref || !feas) {
		/* nothing implied: the checked verdicts alone */
		cp_free(ref);
		cp_free(feas);
		t->mono = 0;
		return t;
	}
	imply(t, ref, feas);
	for (sub = 0; sub < total; sub++)
		t->conflicts += ref[sub] && feas[sub];
	/* A contradiction means some verdict is wrong (a borderline one):
	 * then imply nothing rather than build on it. */
	if (!t->conflicts)
		for (sub = 0; sub < total; sub++) {
			signed char v = ref[sub] ? 0 : feas[sub] ? 1 : -1;

			t->implied += t->v[sub] < 0 && v >= 0;
			t->v[sub] = v;
		}
	cp_free(ref);
	cp_free(feas);
	return t;
fail:
	cp_free(kt);
	explore_verdicts_free(t);
	return NULL;
}

void explore_verdicts_free(struct explore_verdicts *t)
{
	if (!t)
		return;
	cp_free(t->v);
	cp_free(t);
}

int explore_verdict(const struct explore_verdicts *t, udd_features f)
{
	int64_t i = t ? index_of(t, f) : -1;

	return i < 0 ? -1 : t->v[i];
}

size_t explore_tops(const struct explore_verdicts *t, size_t f, int with,
		    udd_features *out, size_t max)
{
	udd_features bit = (udd_features)1 << f, base = t->fixed;
	size_t i, other[64], no = 0, n;
	uint64_t a;

	for (i = 0; i < t->nc; i++) {
		udd_features b = (udd_features)1 << t->cand[i];

		if (b == bit)
			continue;
		if (t->mono & b)
			base |= b;
		else
			other[no++] = t->cand[i];
	}
	if (with)
		base |= bit;
	if (no >= 20)
		return SIZE_MAX;
	n = (size_t)1 << no;
	for (a = 0; a < n && a < max; a++) {
		udd_features top = base;

		for (i = 0; i < no; i++)
			if (a & ((uint64_t)1 << i))
				top |= (udd_features)1 << other[i];
		out[a] = top;
	}
	return n;
}

long explore_refuting_model(const struct explore_search *s,
			    const struct explore_verdicts *t, udd_features f)
{
	struct known *kt;
	size_t n, i;
	long best = -1;
	int best_extra = 0;

	kt = known_table(s, EXPLORE_VIEW_FAMILY, &n);
	if (!kt)
		return -1;
	/* f itself first, then the smallest refuted model containing it by
	 * cone-growing features only */
	for (i = 0; i < n; i++) {
		udd_features extra = kt[i].f & ~f;

		if (kt[i].feasible || (f & ~kt[i].f))
			continue;
		if (extra && (!t || (extra & ~t->mono)))
			continue;
		if (best < 0 || (int)udd_features_count(extra) < best_extra) {
			best = (long)kt[i].src;
			best_extra = (int)udd_features_count(extra);
		}
	}
	cp_free(kt);
	return best;
}

void explore_check_line(const struct explore_search *s, udd_features f,
			struct cp_buf *b)
{
	size_t i;
	int first = 1;

	cp_buf_puts(b, s->check_command ? s->check_command : "check");
	if (!f)
		return;
	cp_buf_puts(b, " --with ");
	for (i = 0; i < s->space.n_features; i++) {
		if (!(f & ((udd_features)1 << i)))
			continue;
		cp_buf_printf(b, "%s%s", first ? "" : ",", s->space.names[i]);
		first = 0;
	}
}

/* ================================================================ */
/* the claims                                                       */
/* ================================================================ */

int explore_known(const struct explore_search *s, udd_features f)
{
	struct explore_verdicts *t = explore_verdicts_new(s);
	int v = explore_verdict(t, f);

	explore_verdicts_free(t);
	return v;
}

void explore_claims_compute(const struct explore_search *s,
			    struct explore_claims *c)
{
	explore_claims_compute_view(s, EXPLORE_VIEW_FAMILY, c);
}

void explore_claims_compute_view(const struct explore_search *s, enum explore_view view,
				 struct explore_claims *c)
{
	struct explore_verdicts *t;
	size_t i, nc;
	uint64_t sub, total;
	unsigned char fw[64] = { 0 }, fwo[64] = { 0 }, uw[64] = { 0 }, uwo[64] = { 0 };

	memset(c, 0, sizeof *c);
	c->undecided = varying(s);
	t = explore_verdicts_new_view(s, view);
	if (!t)
		return;
	nc = t->nc;
	c->enumerable = 1;
	c->implied = t->implied;
	c->conflicts = t->conflicts;
	total = (uint64_t)1 << nc;
	c->universe = (size_t)total;
	for (sub = 0; sub < total; sub++) {
		int v = t->v[sub];

		c->known += v >= 0;
		c->n_feasible_known += v == 1;
		for (i = 0; i < nc; i++) {
			int has = (sub >> i) & 1;

			if (v < 0)
				(has ? uw : uwo)[i] = 1;
			else if (v == 1)
				(has ? fw : fwo)[i] = 1;
		}
	}
	for (i = 0; i < nc; i++) {
		udd_features bit = (udd_features)1 << t->cand[i];

		if (!uwo[i] && !fwo[i])
			c->required |= bit;
		if (!uw[i] && !fw[i])
			c->impossible |= bit;
	}
	/* a feature both required and impossible: nothing is feasible, and
	 * neither word helps; the conclusion says no model explains the data */
	c->undecided = varying(s) & ~(c->required | c->impossible);
	for (i = 0; i < nc; i++) {
		udd_features bit = (udd_features)1 << t->cand[i];

		if ((c->undecided & bit) && fw[i] && fwo[i]) {
			c->undecided &= ~bit;
			c->either |= bit;
		}
	}
	explore_verdicts_free(t);
}

int explore_proven_minimal_in(const struct explore_verdicts *t, udd_features m)
{
	int64_t idx = t ? index_of(t, m) : -1;
	uint64_t mb, sub;

	if (idx < 0 || t->v[idx] != 1)
		return 0;
	mb = (uint64_t)idx;
	/* every proper subset, by the standard submask walk */
	for (sub = (mb - 1) & mb; mb; sub = (sub - 1) & mb) {
		if (t->v[sub] != 0)
			return 0;
		if (!sub)
			break;
	}
	return 1;
}

int explore_proven_minimal(const struct explore_search *s, udd_features m)
{
	struct explore_verdicts *t = explore_verdicts_new(s);
	int ok = explore_proven_minimal_in(t, m);

	explore_verdicts_free(t);
	return ok;
}
