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
 * refuted by the same observations.  No claim rests on a model whose
 * verdict is not known, so the default search and --exhaustive never
 * contradict each other: the search proves less, never something else. */
#include <stdlib.h>
#include <string.h>

#include "explore/explore_int.h"

/* Families beyond this many candidates are not enumerated: their claims
 * stay undecided (2^24 lookups are a fraction of a second). */
#define CLAIMS_MAX_CANDIDATES 24

struct known {
	udd_features f;
	int feasible;
};

static int known_cmp(const void *a, const void *b)
{
	udd_features x = ((const struct known *)a)->f, y = ((const struct known *)b)->f;

	return x < y ? -1 : x > y;
}

/* Every known verdict, sorted by feature set; NULL on allocation
 * failure (then nothing is known and every claim is undecided). */
static struct known *known_table(const struct explore_search *s, size_t *n)
{
	size_t i, m = 0, cap = s->n_models + s->n_edges + 1;
	struct known *t = cp_calloc(cap, sizeof *t);

	*n = 0;
	if (!t)
		return NULL;
	for (i = 0; i < s->n_models; i++) {
		t[m].f = s->models[i].features;
		t[m++].feasible = s->models[i].feasible;
	}
	for (i = 0; i < s->n_edges; i++) {
		const struct explore_edge *e = &s->edges[i];

		if (e->step < EXPLORE_SKIP_SAME_CONE || s->models[e->from].feasible)
			continue;
		t[m].f = s->models[e->from].features | ((udd_features)1 << e->feature);
		t[m++].feasible = 0;
	}
	qsort(t, m, sizeof *t, known_cmp);
	*n = m;
	return t;
}

static int lookup(const struct known *t, size_t n, udd_features f)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].f == f)
			return t[mid].feasible ? 1 : 0;
		if (t[mid].f < f)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int explore_known(const struct explore_search *s, udd_features f)
{
	size_t n;
	struct known *t = known_table(s, &n);
	int v = t ? lookup(t, n, f) : -1;

	cp_free(t);
	return v;
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

/* The family's model for subset bits of the varying features (bit i of
 * sub = the i-th). */
static udd_features member(const struct explore_search *s, const size_t *cand,
			   size_t nc, uint64_t sub)
{
	udd_features f = fixed_part(s);
	size_t i;

	for (i = 0; i < nc; i++)
		if (sub & ((uint64_t)1 << i))
			f |= (udd_features)1 << cand[i];
	return f;
}

void explore_claims_compute(const struct explore_search *s,
			    struct explore_claims *c)
{
	size_t cand[64], nc = 0, f, i, n;
	uint64_t sub, total;
	struct known *t;
	int *seen_feasible_with = NULL, *seen_feasible_without = NULL;
	int *unknown_with = NULL, *unknown_without = NULL;

	memset(c, 0, sizeof *c);
	for (f = 0; f < s->space.n_features && f < 64; f++)
		if (varying(s) & ((udd_features)1 << f))
			cand[nc++] = f;
	c->undecided = varying(s);
	if (nc > CLAIMS_MAX_CANDIDATES)
		return;
	t = known_table(s, &n);
	seen_feasible_with = cp_calloc(nc + 1, sizeof *seen_feasible_with);
	seen_feasible_without = cp_calloc(nc + 1, sizeof *seen_feasible_without);
	unknown_with = cp_calloc(nc + 1, sizeof *unknown_with);
	unknown_without = cp_calloc(nc + 1, sizeof *unknown_without);
	if (!t || !seen_feasible_with || !seen_feasible_without || !unknown_with ||
	    !unknown_without)
		goto out;
	c->enumerable = 1;
	total = (uint64_t)1 << nc;
	c->universe = (size_t)total;
	for (sub = 0; sub < total; sub++) {
		int v = lookup(t, n, member(s, cand, nc, sub));

		c->known += v >= 0;
		c->n_feasible_known += v == 1;
		for (i = 0; i < nc; i++) {
			int has = (sub >> i) & 1;

			if (v < 0)
				(has ? unknown_with : unknown_without)[i] = 1;
			else if (v == 1)
				(has ? seen_feasible_with : seen_feasible_without)[i] = 1;
		}
	}
	for (i = 0; i < nc; i++) {
		udd_features bit = (udd_features)1 << cand[i];

		if (!unknown_without[i] && !seen_feasible_without[i])
			c->required |= bit;
		if (!unknown_with[i] && !seen_feasible_with[i])
			c->impossible |= bit;
	}
	/* a feature both required and impossible: nothing is feasible, and
	 * neither word helps; the conclusion says no model explains the data */
	c->undecided = varying(s) & ~(c->required | c->impossible);
	for (i = 0; i < nc; i++) {
		udd_features bit = (udd_features)1 << cand[i];

		if ((c->undecided & bit) && !unknown_with[i] && !unknown_without[i]) {
			c->undecided &= ~bit;
			c->either |= bit;
		}
	}
out:
	cp_free(t);
	cp_free(seen_feasible_with);
	cp_free(seen_feasible_without);
	cp_free(unknown_with);
	cp_free(unknown_without);
}

int explore_proven_minimal(const struct explore_search *s, udd_features m)
{
	udd_features base = fixed_part(s);
	udd_features free_bits = m & varying(s), sub;
	size_t n;
	struct known *t;
	int ok = 1;

	if ((m & ~varying(s)) != base)
		return 0;
	t = known_table(s, &n);
	if (!t)
		return 0;
	if (lookup(t, n, m) != 1)
		ok = 0;
	/* every proper subset of m's candidate features, by the standard
	 * submask walk */
	for (sub = (free_bits - 1) & free_bits; ok; sub = (sub - 1) & free_bits) {
		if (lookup(t, n, base | sub) != 0)
			ok = 0;
		if (!sub)
			break;
	}
	if (free_bits == 0)
		ok = lookup(t, n, m) == 1;
	cp_free(t);
	return ok;
}
